"""The answer a refusal gives to anyone but the director: a function of the public history, never of hidden cards.

The engine judges an event with everything it knows: the dealt hands, the kitty, the pack. Its reason for a
refusal ("seat 1 cannot hold 7H", "the pack gives 6C next") can therefore tell a hidden card, and a table tablet
that posts many refused events could read every hand from the reasons (issue 13: 42 requests recovered a Bid Whist
declarer's 18 cards). So the table and the public never see the engine's own reason. They see what a *public twin*
of the match says: the same match replayed from the public form of its events (the deals without their cards, the
face-down discards, draws, robs and exchanges as unknown cards). The twin knows only what every player at the
table knows, so its reason for a refusal is one anybody could have worked out. An event the twin would accept but
the real engine refuses was refused for a reason that needs hidden knowledge: it gets one fixed text, "not a legal
<event> now", whatever the hidden cards are (RULINGS.md's hidden information: no player learns another's cards
from the referee).

What stays observable is that the event was refused at all: the table enters real events, and an event the hands
make impossible must be refused. An accepted one is recorded and played, so that bit cannot be probed for free.
"""

from __future__ import annotations

import copy
from typing import Any

from engine.errors import IllegalEvent
from engine.match import Match

# The events whose cards go face down (their cards are the asker's secret, or a hand's): the twin sees how many.
FACE_DOWN_LISTS = ("discard", "draw", "rob")
# A deal's dealt cards, by the name each game gives its extra pile (CONVENTIONS.md, deal).
DEALT_PILES = ("kitty", "pack", "blind")

# The fields each table event is read for (CONVENTIONS.md and docs/engine-api.md); anything else in a request
# is dropped before the event reaches the log or the engine, so a card named in an ignored field is never
# repeated back, nor masked differently.
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "deal": ("dealer", "hands", *DEALT_PILES),
    "bid": ("seat", "bid"),
    "declare": ("seat", "trump", "direction", "call"),
    "discard": ("seat", "cards"),
    "joker_swap": ("seat", "joker", "drew"),
    "exchange": ("seat", "card"),
    "fold": ("team",),
    "draw": ("seat", "cards"),
    "rob": ("seat", "cards"),
    "burn": ("seat", "cards"),
    "play": ("seat", "card"),
    "retract": ("seat",),
}


def used_fields(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` with only the fields its kind is read for (an unknown kind keeps its name only)."""
    kind = event.get("event")
    keep = EVENT_FIELDS.get(kind, ()) if isinstance(kind, str) else ()
    return {"event": kind, **{k: event[k] for k in keep if k in event}}


def public_form(event: dict[str, Any]) -> dict[str, Any]:
    """An event as a player who is not its seat saw it: the dealt cards and the face-down cards unknown."""
    kind = event.get("event")
    if kind == "deal":
        out = {"event": "deal", "dealer": event.get("dealer"), "hands": None}
        for key in DEALT_PILES:
            if key in event:
                out[key] = None
        return out
    if kind in FACE_DOWN_LISTS and isinstance(event.get("cards"), list):
        return dict(event, cards=[None] * len(event["cards"]))
    if kind == "exchange":
        return dict(event, card=None)
    if kind == "joker_swap":
        return dict(event, drew=None)  # the discard drawn is drawn unseen; the joker goes into the book face up
    return event


def fixed_text(event: dict[str, Any]) -> str:
    kind = event.get("event")
    return f"not a legal {kind if isinstance(kind, str) and kind in EVENT_FIELDS else 'event'} now"


class PublicTwin:
    """A match replayed from public knowledge alone, kept in step with the table's effective events."""

    def __init__(self, header: dict[str, Any], events: list[dict[str, Any]]) -> None:
        self.match: Match | None = Match(header["game"], header.get("options") or {}, header.get("players"),
                                          header.get("first_dealer", 0))
        for event in events:
            self.follow(event)

    def follow(self, event: dict[str, Any]) -> None:
        """The table accepted ``event``: the twin takes its public form. A twin that cannot follow (the public
        form of an event it has no rule for) stops; from then on every hidden-dependent answer is the fixed one."""
        if self.match is None or event.get("event") in ("ruling", "conflict"):
            # The director's rulings and the referee's conflicts of sensor reads are kept out: they score or
            # withdraw calls (suspicions among them, which are the director's), and no table event's legality
            # rests on them.
            return
        try:
            self.match.apply(public_form(event))
        except Exception:  # noqa: BLE001 - the twin gives up, which only makes answers vaguer, never leakier
            self.match = None

    def answer(self, event: dict[str, Any]) -> str:
        """What a non-director is told when the table refuses ``event``: the twin's reason if the public history
        alone refuses it, else the fixed text. Depends on the public history and the request only."""
        if self.match is None:
            return fixed_text(event)
        trial = _trial_copy(self.match)  # the twin must not move: an event it accepts was refused for real
        try:
            trial.apply(event)
        except IllegalEvent as exc:
            return str(exc) or fixed_text(event)
        except Exception:  # noqa: BLE001 - an engine fault on the twin says nothing public
            return fixed_text(event)
        return fixed_text(event)


def _trial_copy(match: Match) -> Match:
    """A copy of ``match`` that a table event may be tried on: a table event changes only the current hand, the
    totals and the winner (and may start a hand), so the finished hands are shared, not copied (a whole copy
    grew with the match: 7.7 ms per refusal late in a match)."""
    trial = copy.copy(match)
    trial.hands = [*match.hands[:-1], copy.deepcopy(match.hands[-1])]
    trial.scores = list(match.scores)
    return trial
