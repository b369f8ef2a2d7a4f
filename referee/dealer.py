"""The dealing machine joined to the table (``firmware_bridge.simple.SimpleDealer`` -> a ``deal`` event).

When the table is to deal, ``deal()`` has the machine verify the deck, shuffle and deal the game's pattern, and
posts a ``deal`` event with the hands as the machine read them (a card it could not read stands as null) and, in
Bid Whist, the kitty. Pitch keeps its pack (five-handed: the blind) in the machine, so it is posted as null; the
refills and the rob from the machine are not joined yet. A fault of the machine sets the dealer's status to lost
(shown on every page) and the table deals by hand until it is back.
"""

from __future__ import annotations

from typing import Any

from referee.table import Refused, TableSession


class DealerBridge:
    """One dealing machine at one table."""

    def __init__(self, session: TableSession, dealer: Any) -> None:
        self.session = session
        self.dealer = dealer

    def deal(self, source: str = "dealer", actor: str = "machine") -> int:
        """Deal the current hand with the machine; returns the deal event's seq."""
        from firmware_bridge.cards import deal_pattern, deck_for
        from firmware_bridge.errors import DealerError

        state = self.session.current
        if state is None:
            raise Refused("no match has been started: create one first")
        match = state.match
        hand = match.hand
        if hand.phase != "deal":
            raise Refused(f"the table is not to deal: hand {hand.number} is in the {hand.phase} phase")
        n = match.n_players
        try:
            pattern = deal_pattern(match.game, n)
            self.dealer.load(deck_for(match.game))
            self.dealer.shuffle()
            result = self.dealer.deal(pattern)
        except (DealerError, OSError, RuntimeError, TimeoutError) as exc:
            self.session.set_device("dealer", "lost", "dealer", actor, f"the dealing machine failed: {exc}")
            raise Refused(f"the dealing machine failed ({exc}); deal by hand", status=503) from None
        pockets = [list(p) for p in result.pockets]
        event: dict[str, Any] = {"event": "deal", "dealer": hand.dealer, "hands": pockets[:n]}
        key = hand.extra_key()
        if key == "kitty":
            event["kitty"] = pockets[4]
        elif key is not None:
            event[key] = None  # held in the machine, in an order it has not reported
        if self.session.devices.get("dealer") != "ok":
            self.session.set_device("dealer", "ok", "dealer", actor, "the dealing machine dealt")
        return self.session.submit(event, source, actor).seq
