"""Random legal games, for tests, the demo and the benchmark: deals from a seeded shuffle, then a random
legal event at every turn."""

from __future__ import annotations

import random
from typing import Any

from engine.cards import CODES, cards_of
from engine.hand import BID, CHANCE, PLAY, Hand
from engine.match import Match


def random_deal(hand: Hand, rng: random.Random, known: bool = True) -> dict[str, Any]:
    """A deal event: the deck shuffled and dealt in the game's pattern (hands known, or ``null``)."""
    deck = cards_of(hand.deck_mask)
    rng.shuffle(deck)
    sizes = hand.deal_sizes()
    hands, i = [], 0
    for n in sizes[: hand.n_players]:
        hands.append([CODES[c] for c in deck[i : i + n]])
        i += n
    event: dict[str, Any] = {"event": "deal", "dealer": hand.dealer, "hands": hands if known else None}
    key = hand.extra_key()
    if key is not None:
        event[key] = [CODES[c] for c in deck[i:]] if known else None
    return event


def random_event(match: Match, rng: random.Random, pass_rate: float | None = None) -> dict[str, Any]:
    """One random legal event for the match's current state (a deal when the table is to deal).

    ``pass_rate``: in the bidding, the chance of a pass where a pass is legal (None: every legal bid,
    pass included, is equally likely; that makes most contracts the highest bid)."""
    hand = match.hand
    if hand.current_player() == CHANCE:
        return random_deal(hand, rng)
    if hand.phase == PLAY and (hand.tricks or hand.trick is None or hand.trick.cards):
        return {"event": "play", "seat": hand.play_turn(), "card": CODES[rng.choice(hand.legal_plays())]}
    # the first card of a hand goes through legal_events(), which offers the Bid Euchre defenders' fold too
    events = hand.legal_events()
    if pass_rate is not None and hand.phase == BID:
        passes = [e for e in events if e["bid"] == "pass"]
        bids = [e for e in events if e["bid"] != "pass"]
        if passes and (not bids or rng.random() < pass_rate):
            return passes[0]
        return rng.choice(bids)
    return rng.choice(events)


def random_events(
    match: Match, rng: random.Random, max_hands: int = 50, pass_rate: float | None = None
) -> list[dict[str, Any]]:
    """Play ``match`` to its end or to the end of hand ``max_hands`` with random legal events; returns the
    events applied."""
    events: list[dict[str, Any]] = []
    while not match.is_terminal() and len(match.hands) <= max_hands:
        event = random_event(match, rng, pass_rate)
        match.apply(event)
        events.append(event)
    return events
