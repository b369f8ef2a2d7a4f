"""What the roles other than the director may see: refusal texts with hidden cards masked, events without the
cards dealt face down."""

from __future__ import annotations

import re
from typing import Any

CARD_RE = re.compile(r"\b(?:10|[2-9TJQKA])[SHDC]\b|\b[BL]J\b", re.IGNORECASE)


def masked(text: str, allowed: set[str]) -> str:
    """``text`` with every card code not in ``allowed`` (face up, or named by the asker) masked."""
    def one(m: re.Match[str]) -> str:
        code = m.group(0).upper().replace("10", "T")
        return m.group(0) if code in allowed else "a card"

    # The engine's own hint "(..., or BJ / LJ)" names the jokers as kinds of card, not as someone's card.
    hint = "or BJ / LJ)"
    return hint.join(CARD_RE.sub(one, part) for part in text.split(hint))


def public_event(event: dict[str, Any]) -> dict[str, Any]:
    """An event as everyone at the table sees it: the cards played face up, the bids, the declarations; only the
    number of cards of a deal, discard, draw, rob or burn."""
    kind = event.get("event")
    if kind == "play":
        return {"event": "play", "seat": event.get("seat"), "card": event.get("card")}
    if kind == "bid":
        return {"event": "bid", "seat": event.get("seat"), "bid": event.get("bid")}
    if kind == "declare":
        keep = ("seat", "trump", "direction", "call")
        return {"event": "declare", **{k: event[k] for k in keep if k in event}}
    if kind == "fold":
        return {"event": "fold", "team": event.get("team")}
    if kind == "deal":
        return {"event": "deal", "dealer": event.get("dealer"), "hands_known": event.get("hands") is not None}
    if kind in ("discard", "draw", "rob", "burn"):
        cards = event.get("cards")
        return {"event": kind, "seat": event.get("seat"), "count": len(cards) if isinstance(cards, list) else None}
    return {"event": kind, "seat": event.get("seat")} if "seat" in event else {"event": kind}
