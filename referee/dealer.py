"""The dealing machine joined to the table (``firmware_bridge.simple.SimpleDealer`` -> a ``deal`` event).

When the table is to deal, ``deal()`` has the machine verify the deck, shuffle and deal the game's pattern, and
posts a ``deal`` event with the hands as the machine read them (a card it could not read stands as null) and, in
Bid Whist, the kitty. Pitch keeps its pack (five-handed: the blind) in the machine, so it is posted as null (the
machine does not report its order). When a Pitch seat asks for its refill, ``refill()`` has the machine deal N more
cards to that seat's pocket (``deal_more``) and posts a ``draw`` with the cards it read; ``rob()`` has it deal the
rest to the declarer's pocket (``deal_rest``) and posts a ``rob``. Each is checked against the engine before the
machine moves a card (a draw out of turn, a second rob...), so a refused step leaves the pack in the machine.
A fault of the machine sets the dealer's status to lost (shown on every page) and the table deals by hand until
it is back.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

from referee.devices import DealingMachine
from referee.table import REFUSALS, Refused, TableSession

MACHINE_FAULTS: tuple[type[BaseException], ...] = (OSError, RuntimeError, TimeoutError)


class DealerBridge:
    """One dealing machine at one table."""

    def __init__(self, session: TableSession, dealer: DealingMachine) -> None:
        self.session = session
        self.dealer = dealer
        self.busy = threading.Lock()  # one machine command at a time: two refills asked at once are not both dealt

    def deal(self, source: str = "dealer", actor: str = "machine") -> int:
        """Deal the current hand with the machine; returns the deal event's seq."""
        from firmware_bridge.errors import DealerError

        if not self.busy.acquire(timeout=0.5):
            raise Refused("the dealing machine is busy with another command: try again when it is done")
        try:
            return self._deal(DealerError, source, actor)
        finally:
            self.busy.release()

    def _deal(self, dealer_error: type[BaseException], source: str, actor: str) -> int:
        from engine.match import deal_pattern, deck_for

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
        except (dealer_error, *MACHINE_FAULTS) as exc:
            self.session.set_device("dealer", "lost", "dealer", actor, f"the dealing machine failed: {exc}")
            raise Refused(f"the dealing machine failed ({exc}); deal by hand", status=503) from None
        pockets = [list(p) for p in result.pockets]
        # The machine's reads carry their source (docs/engine-api.md, sensor reads): a read may be wrong.
        event: dict[str, Any] = {"event": "deal", "dealer": hand.dealer, "hands": pockets[:n], "source": "dealer"}
        key = hand.extra_key()
        if key == "kitty":
            event["kitty"] = pockets[4]
        elif key is not None:
            event[key] = None  # held in the machine, in an order it has not reported
        if self.session.devices.get("dealer") != "ok":
            self.session.set_device("dealer", "ok", "dealer", actor, "the dealing machine dealt")
        return self.session.submit(event, source, actor).seq

    # ---------------------------------------------------------------- Pitch: refills and the rob

    def dealt_this_hand(self) -> bool:
        """Whether the current hand's deal came from this machine (so the hand's pack is in its hopper)."""
        state = self.session.current
        if state is None:
            return False
        seq = self.session._deal_seq(state, state.match.hand)
        row = self.session.log.get(seq) if seq is not None else None
        return row is not None and row.source == "dealer"

    def refill(self, seat: int, count: int | None = None, source: str = "dealer", actor: str = "machine") -> int:
        """Pitch's refill: the machine deals ``count`` (default: the 6 - k due by RULINGS.md) more cards to
        ``seat``'s pocket; a ``draw`` event is posted with the cards it read. Returns the event's seq."""
        with self._machine_step("refill") as hand:
            due = pitch_refill_due(hand, seat)
            n = due if count is None else count
            if n > hand.pack_left():
                raise Refused(f"count: {n} cards asked, the pack has {hand.pack_left()}", status=422)
            self._check(hand, {"event": "draw", "seat": seat, "cards": [None] * n})
            cards = self._run(lambda: self.dealer.deal_more(seat, n), seat, n, actor) if n else []
            return self.session.submit({"event": "draw", "seat": seat, "cards": cards}, source, actor).seq

    def rob(self, seat: int | None = None, source: str = "dealer", actor: str = "machine") -> int:
        """Pitch's rob: the machine deals the rest of the pack to ``seat``'s pocket (default: the declarer's); a
        ``rob`` event is posted with the cards it read. Returns the event's seq."""
        with self._machine_step("rob") as hand:
            who = hand.declarer if seat is None else seat
            n = hand.pack_left()
            order = hand.draw_order()
            after = order.index(hand.drawn[-1]) + 1 if hand.drawn else 0  # a seat passed over may not draw later
            waiting = [s for s in order[after:] if pitch_refill_due(hand, s)]
            if waiting and not hand.robbed:
                raise Refused(f"the rob comes after the refills: seat {waiting[0]} has not had its refill "
                              f"({pitch_refill_due(hand, waiting[0])} cards due)")
            self._check(hand, {"event": "rob", "seat": who, "cards": [None] * n})
            cards = self._run(lambda: self.dealer.deal_rest(who), who, n, actor) if n else []
            return self.session.submit({"event": "rob", "seat": who, "cards": cards}, source, actor).seq

    def _machine_step(self, what: str) -> _Step:
        return _Step(self, what)

    def _check(self, hand: Any, event: dict[str, Any]) -> None:
        """The engine judges the step (on a copy) before the machine moves a card."""
        state = self.session.current
        assert state is not None
        trial = copy.deepcopy(state.match)
        try:
            trial.apply(event)
        except REFUSALS as exc:
            raise Refused(f"{event['event']} refused before the machine dealt: {exc}") from None

    def _run(self, command: Any, pocket: int, n: int, actor: str) -> list[str | None]:
        from firmware_bridge.errors import DealerError

        faults: tuple[type[BaseException], ...] = (DealerError, *MACHINE_FAULTS)
        try:
            result = command()
        except faults as exc:
            self.session.set_device("dealer", "lost", "dealer", actor, f"the dealing machine failed: {exc}")
            raise Refused(f"the dealing machine failed ({exc}); take the cards from the machine and post them "
                          f"with cards (null for each card not seen)", status=503) from None
        reads = [c for p, c in result.reads if p == pocket]
        return list(reads) if len(reads) == n else list(result.pockets[pocket][-n:])


def pitch_refill_due(hand: Any, seat: int) -> int:
    """RULINGS.md, refill: 6 - k cards (k = the trumps the seat kept, i.e. the cards it holds after its
    discard), fewer if the pack runs out."""
    k = hand.knowledge
    if k is None or not 0 <= seat < hand.n_players:
        raise Refused(f"seat: no seat {seat} at this table", status=422)
    return min(max(0, 6 - k.count[seat]), hand.pack_left())


class _Step:
    """A machine step of the current Pitch hand: the machine's lock held, the hand checked to be Pitch's and
    dealt by this machine."""

    def __init__(self, bridge: DealerBridge, what: str) -> None:
        self.bridge = bridge
        self.what = what

    def __enter__(self) -> Any:
        b = self.bridge
        if not b.busy.acquire(timeout=0.5):
            raise Refused("the dealing machine is busy with another command: try again when it is done")
        try:
            state = b.session.current
            if state is None:
                raise Refused("no match has been started: create one first")
            hand = state.match.hand
            if state.match.game != "pitch":
                raise Refused(f"the {self.what} is Pitch's; this match is {state.match.game}")
            if hand.phase != "exchange":
                raise Refused(f"the table is not at the refills: hand {hand.number} is in the {hand.phase} phase")
            if not b.dealt_this_hand():
                raise Refused(f"the machine did not deal hand {hand.number} (it was dealt by hand): post the "
                              f"{self.what}'s cards (null for each card not seen)")
            if b.session.devices.get("dealer") != "ok":
                raise Refused(f"the dealing machine is {b.session.devices.get('dealer')}: post the {self.what}'s "
                              f"cards (null for each card not seen)")
            return hand
        except BaseException:
            b.busy.release()
            raise

    def __exit__(self, *exc: object) -> None:
        self.bridge.busy.release()
