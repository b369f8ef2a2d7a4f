"""Card codes as the dealing machine sends them: one byte per card.

The product's card codes are in CONVENTIONS.md (rank + suit, ``BJ``/``LJ``); this module is the wire's own small
helper, shared by the host driver and the device, so the wire never depends on the engine's card model. On the
wire a card is one byte:
``suit * 13 + rank`` for the 52 plain cards (ranks A..2, suits S H D C), 52 for the Big Joker, 53 for the
Little Joker, and ``UNKNOWN_CARD`` where the reader could not identify the face.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "AKQJT98765432"
SUITS = "SHDC"
JOKERS = ("BJ", "LJ")
UNKNOWN_CARD = 0xFF

def parse_card(text: str) -> str:
    """Return the canonical code of ``text`` (accepts ``10H`` and lower case); ValueError names the input."""
    raw = text.strip().upper()
    if raw in JOKERS:
        return raw
    if raw.startswith("10"):
        raw = "T" + raw[2:]
    if len(raw) != 2 or raw[0] not in RANKS or raw[1] not in SUITS:
        raise ValueError(f"not a card code: {text!r} (rank A K Q J T 9..2 + suit S H D C, or BJ/LJ)")
    return raw


def card_to_byte(code: str) -> int:
    """The wire byte of a canonical card code."""
    if code == "BJ":
        return 52
    if code == "LJ":
        return 53
    card = parse_card(code)
    return SUITS.index(card[1]) * 13 + RANKS.index(card[0])


def byte_to_card(value: int) -> str | None:
    """The card code of a wire byte, or None for an unidentified card; ValueError for a byte no card has."""
    if value == UNKNOWN_CARD:
        return None
    if 0 <= value < 52:
        return RANKS[value % 13] + SUITS[value // 13]
    if value == 52:
        return "BJ"
    if value == 53:
        return "LJ"
    raise ValueError(f"byte {value:#04x} is not a card")


def cards_to_bytes(cards: Iterable[str | None]) -> bytes:
    """Encode a list of card codes (None = unidentified)."""
    return bytes(UNKNOWN_CARD if c is None else card_to_byte(c) for c in cards)


def bytes_to_cards(data: bytes) -> list[str | None]:
    """Decode a list of card bytes."""
    return [byte_to_card(b) for b in data]


def full_deck() -> list[str]:
    """52 cards and both jokers, in a fixed order."""
    return [r + s for s in SUITS for r in RANKS] + list(JOKERS)
