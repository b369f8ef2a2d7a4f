"""Random legal games, for tests, the demo and the benchmark: deals from a seeded shuffle, then a random
legal event at every turn."""

from __future__ import annotations

import random
from typing import Any

from engine.cards import CODES, cards_of
from engine.hand import CHANCE, PLAY, Hand
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


def random_events(match: Match, rng: random.Random, max_hands: int = 50) -> list[dict[str, Any]]:
    """Play ``match`` to its end (or ``max_hands``) with random legal events; returns the events applied."""
    events: list[dict[str, Any]] = []
    while not match.is_terminal() and len(match.hands) <= max_hands:
        hand = match.hand
        if hand.current_player() == CHANCE:
            if len(match.hands) == max_hands and hand.number == max_hands and events and hand.phase == "deal":
                break
            event = random_deal(hand, rng)
        elif hand.phase == PLAY:
            seat = hand.play_turn()
            event = {"event": "play", "seat": seat, "card": CODES[rng.choice(hand.legal_plays())]}
        else:
            event = rng.choice(hand.legal_events())
        match.apply(event)
        events.append(event)
    return events
