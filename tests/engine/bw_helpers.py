"""Hand-built Bid Whist deals and records for the rule tests (test_rules_common.py, test_rules_bid_whist.py).

A deal is written out card by card: four 12-card hands and a 6-card kitty, as space-separated card codes.
Plays are written as ``"seat:CARD"`` tokens, one string per trick, so every worked example shows who played
what, in order.
"""

from __future__ import annotations

import json
from typing import Any

from engine.cards import CODES, card
from engine.match import Match
from engine.record import replay


def cards(text: str) -> list[str]:
    return text.split()


def deal(dealer: int, h0: str, h1: str, h2: str, h3: str, kitty: str, known: bool = True) -> dict[str, Any]:
    """A deal event from four 12-card hands and a 6-card kitty (checked: 54 distinct cards, the whole deck)."""
    hands = [cards(h) for h in (h0, h1, h2, h3)]
    kit = cards(kitty)
    assert [len(h) for h in hands] == [12, 12, 12, 12] and len(kit) == 6, "12 x 4 + 6"
    everything = [card(c) for h in hands for c in h] + [card(c) for c in kit]
    assert sorted(everything) == list(range(54)), "a Bid Whist deal is the whole 54-card deck, each card once"
    if not known:
        return {"event": "deal", "dealer": dealer, "hands": None, "kitty": None}
    return {"event": "deal", "dealer": dealer, "hands": hands, "kitty": kit}


def header(options: dict[str, Any] | None = None, first_dealer: int = 0) -> dict[str, Any]:
    return {
        "event": "match",
        "version": 1,
        "game": "bid_whist",
        "options": options or {},
        "players": ["Ann", "Bo", "Cy", "Di"],
        "first_dealer": first_dealer,
    }


def bids(*pairs: tuple[int, str]) -> list[dict[str, Any]]:
    return [{"event": "bid", "seat": s, "bid": b} for s, b in pairs]


def declare(seat: int, trump: str | None = None, direction: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"event": "declare", "seat": seat, "trump": trump}
    if direction is not None:
        event["direction"] = direction
    return event


def discard(seat: int, text: str | None) -> dict[str, Any]:
    """The declarer's six discards, face down: read (codes) or not (``None``: six nulls)."""
    return {"event": "discard", "seat": seat, "cards": cards(text) if text is not None else [None] * 6}


def plays(*tricks: str) -> list[dict[str, Any]]:
    """Play events from tricks written as ``"1:JS 2:8S 3:5S 0:AS"`` (seat:card, in the order played)."""
    out = []
    for trick in tricks:
        for token in trick.split():
            seat, code = token.split(":")
            out.append({"event": "play", "seat": int(seat), "card": code})
    return out


def _first_dealer(events: list[dict[str, Any]], first_dealer: int | None) -> int:
    if first_dealer is not None:
        return first_dealer
    return next((e["dealer"] for e in events if e["event"] == "deal"), 0)


def run(events: list[dict[str, Any]], options: dict[str, Any] | None = None, first_dealer: int | None = None) -> Match:
    """Apply events to a new Match (no record round trip); the first dealer is the first deal's."""
    m = Match("bid_whist", options, ["Ann", "Bo", "Cy", "Di"], _first_dealer(events, first_dealer))
    for e in events:
        m.apply(e)
    return m


def record(
    events: list[dict[str, Any]], options: dict[str, Any] | None = None, first_dealer: int | None = None
) -> list[str]:
    """The JSONL lines of a record: the match header, then the events."""
    return [json.dumps(e) for e in [header(options, _first_dealer(events, first_dealer)), *events]]


def replay_events(
    events: list[dict[str, Any]], options: dict[str, Any] | None = None, first_dealer: int | None = None
) -> Match:
    """Replay a record (JSONL lines) through engine.record.replay."""
    return replay(record(events, options, first_dealer))


def codes(cs: list[int]) -> list[str]:
    return [CODES[c] for c in cs]


def renege_list(match_or_hand: Any) -> list[dict[str, Any]]:
    """The hand result's reneges (seat, trick, card, led, proof)."""
    return match_or_hand.result()["reneges"]


# ---------------------------------------------------------------- shared worked deals

# "Tiered" deal: in spades, hearts and diamonds seat 0 holds A K Q, seat 1 J T 9, seat 2 8 7 6, seat 3 5 4 3;
# in clubs seat 1 holds the top (A K Q) and seat 0 J T 9. The kitty is the four 2s and both jokers.
# While everyone follows suit, the seat with the top tier of the suit led wins the trick.
TIERED = (
    "AS KS QS AH KH QH AD KD QD JC TC 9C",
    "JS TS 9S JH TH 9H JD TD 9D AC KC QC",
    "8S 7S 6S 8H 7H 6H 8D 7D 6D 8C 7C 6C",
    "5S 4S 3S 5H 4H 3H 5D 4D 3D 5C 4C 3C",
    "2S 2H 2D 2C BJ LJ",
)
TIERED_KITTY = TIERED[4]

# Seat 0 declares and leads; every seat follows suit all hand. Seat 0 wins tricks 1-9 (S, H, D),
# seat 1 tricks 10-12 (clubs). With the discard book: team 0 = 10 books, team 1 = 3.
TIERED_PLAY = (
    "0:AS 1:JS 2:8S 3:5S",
    "0:KS 1:TS 2:7S 3:4S",
    "0:QS 1:9S 2:6S 3:3S",
    "0:AH 1:JH 2:8H 3:5H",
    "0:KH 1:TH 2:7H 3:4H",
    "0:QH 1:9H 2:6H 3:3H",
    "0:AD 1:JD 2:8D 3:5D",
    "0:KD 1:TD 2:7D 3:4D",
    "0:QD 1:9D 2:6D 3:3D",
    "0:JC 1:AC 2:8C 3:5C",
    "1:KC 2:7C 3:4C 0:TC",
    "1:QC 2:6C 3:3C 0:9C",
)


def tiered_setup(
    dealer: int = 3, bid: str = "4", trump: str | None = "S", direction: str | None = None, known: bool = True
) -> list[dict[str, Any]]:
    """The tiered deal; seat 0 wins the bidding with ``bid`` (the others pass), names ``trump`` (or a no-trump
    ``direction``) and discards the six kitty cards, so every hand is again exactly as dealt."""
    order = [(dealer + 1 + i) % 4 for i in range(4)]
    return [
        deal(dealer, *TIERED, known=known),
        *bids(*[(s, bid if s == 0 else "pass") for s in order]),
        declare(0, trump, direction),
        discard(0, TIERED_KITTY if known else None),
    ]
