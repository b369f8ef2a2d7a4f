"""Cards, suits and decks (CONVENTIONS.md "Cards").

A card is a small int so that a hand is a bitmask and the rules are bit operations:
``card = suit * 13 + rank`` with suits S H D C = 0..3 and ranks 2..A = 0..12; the Big Joker is 52
and the Little Joker 53. Codes on the outside are always the canonical strings (``"TH"``, ``"BJ"``).
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "SHDC"
RANKS = "23456789TJQKA"
SPADES, HEARTS, DIAMONDS, CLUBS = 0, 1, 2, 3
NO_SUIT = 4  # a joker at no trump belongs to no suit (RULINGS.md, Bid Whist, "Jokers at no trump")

BJ = 52
LJ = 53
N_CARDS = 54
JOKERS = (BJ, LJ)
JOKER_MASK = (1 << BJ) | (1 << LJ)

R2, R3, R9, RT, RJ, RQ, RK, RA = 0, 1, 7, 8, 9, 10, 11, 12

CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS) + ("BJ", "LJ")
_BY_CODE: dict[str, int] = {code: i for i, code in enumerate(CODES)}


class CardError(ValueError):
    """A card code that is not a card."""


def card(code: str) -> int:
    """Parse a card code; accepts ``10H`` and lower case (CONVENTIONS.md "Cards")."""
    if not isinstance(code, str):
        raise CardError(f"a card must be a string like 'TH', not {code!r}")
    text = code.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    found = _BY_CODE.get(text)
    if found is None:
        raise CardError(f"{code!r} is not a card (rank A K Q J T 9..2 + suit S H D C, or BJ / LJ)")
    return found


def code(c: int) -> str:
    return CODES[c]


def suit_of(c: int) -> int:
    """The printed suit; jokers have none."""
    return c // 13 if c < 52 else NO_SUIT


def rank_of(c: int) -> int:
    return c % 13 if c < 52 else -1


def make(rank: int, suit: int) -> int:
    return suit * 13 + rank


def same_colour_suit(suit: int) -> int:
    """The other suit of the same colour: spades <-> clubs, hearts <-> diamonds (the off-jack's suit)."""
    return (CLUBS, DIAMONDS, HEARTS, SPADES)[suit]


def mask(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(m: int) -> list[int]:
    """The cards of a bitmask, lowest first."""
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def codes_of(m: int) -> list[str]:
    return [CODES[c] for c in cards_of(m)]


def lowest(m: int) -> int:
    return (m & -m).bit_length() - 1


SUIT_MASKS: tuple[int, ...] = tuple(mask(range(s * 13, s * 13 + 13)) for s in range(4))
FULL_DECK_MASK = (1 << N_CARDS) - 1  # 52 + two jokers (Bid Whist, Pitch)
EUCHRE_DECK_MASK = mask(make(r, s) for s in range(4) for r in (R9, RT, RJ, RQ, RK, RA))  # 24 cards


def deck(mask_: int) -> list[int]:
    return cards_of(mask_)
