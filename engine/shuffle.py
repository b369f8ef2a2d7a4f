"""A fast shuffle and deal for simulations (the benchmark, random games, the simulated dealing machine's hopper).

``random.shuffle`` is a Python loop over ``_randbelow``; compiled by mypyc this loop over ``rng.random()`` is
several times faster. ``int(random() * (i + 1))`` is biased by at most 2**-53 per draw, far below anything a
simulated deal could show.
"""

from __future__ import annotations

import random


def shuffle(cards: list[int], rng: random.Random) -> None:
    """Fisher-Yates in place, driven by ``rng`` (so a seed replays the same deal)."""
    rand = rng.random
    i = len(cards) - 1
    while i > 0:
        j = int(rand() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]
        i -= 1


def deal_shuffled(deck: list[int], sizes: list[int], rng: random.Random) -> list[list[int | None]]:
    """A random deal in the form ``Hand.deal`` takes: a copy of ``deck`` shuffled as by ``shuffle`` (the same
    draws, so the same seed deals the same cards) and cut into piles of ``sizes`` in order."""
    cards = deck[:]
    shuffle(cards, rng)
    out: list[list[int | None]] = []
    start = 0
    for n in sizes:
        pile: list[int | None] = [c for c in cards[start : start + n]]
        out.append(pile)
        start += n
    return out
