"""Cards, suits and decks (CONVENTIONS.md "Cards").

A card is a small int so that a hand is a bitmask and the rules are bit operations:
``card = suit * 13 + rank`` with suits S H D C = 0..3 and ranks 2..A = 0..12; the Big Joker is 52
and the Little Joker 53. Codes on the outside are always the canonical strings (``"TH"``, ``"BJ"``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from engine.errors import CardError

# Final: a compiled build inlines these (or keeps them in C statics) instead of looking them up by name.
SUITS: Final = "SHDC"
RANKS: Final = "23456789TJQKA"
SPADES: Final = 0
HEARTS: Final = 1
DIAMONDS: Final = 2
CLUBS: Final = 3
NO_SUIT: Final = 4  # a joker at no trump belongs to no suit (RULINGS.md, Bid Whist, "Jokers at no trump")

BJ: Final = 52
LJ: Final = 53
N_CARDS: Final = 54
JOKERS: Final = (BJ, LJ)
JOKER_MASK: Final = (1 << BJ) | (1 << LJ)

R2: Final = 0
R3: Final = 1
R9: Final = 7
RT: Final = 8
RJ: Final = 9
RQ: Final = 10
RK: Final = 11
RA: Final = 12

CODES: Final[tuple[str, ...]] = tuple(r + s for s in SUITS for r in RANKS) + ("BJ", "LJ")
_BY_CODE: Final[dict[str, int]] = {code: i for i, code in enumerate(CODES)}




def card(code: object) -> int:
    """Parse a card code; accepts ``10H`` and lower case (CONVENTIONS.md "Cards"). Anything else is a CardError
    (typed ``object`` so that a compiled build checks it here, not with a TypeError at the call)."""
    if not isinstance(code, str):
        raise CardError(f"a card must be a string like 'TH', not {code!r}")
    found = _BY_CODE.get(code)  # the canonical spelling needs no clean-up
    if found is not None:
        return found
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


SUIT_MASKS: Final[tuple[int, ...]] = tuple(mask(range(s * 13, s * 13 + 13)) for s in range(4))
FULL_DECK_MASK: Final = (1 << N_CARDS) - 1  # 52 + two jokers (Bid Whist, Pitch)
EUCHRE_DECK_MASK: Final = mask(make(r, s) for s in range(4) for r in (R9, RT, RJ, RQ, RK, RA))  # 24 cards


def deck(mask_: int) -> list[int]:
    return cards_of(mask_)
