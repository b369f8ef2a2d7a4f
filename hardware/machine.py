"""The dealing machine's mechanism: a hopper of physical cards, a feed, a reader, pockets, a reject tray.

It knows nothing of the protocol (hardware/device.py speaks that). Each physical card has a serial number, so
a test can check that no card was lost or dealt twice. Time is modelled with sleeps: real timings by default,
scaled down for tests (``Timing.fast()``). Faults are injected on demand (``inject``) or at per-card rates
(``FaultRates``), drawn from a seeded random generator so a failing run can be replayed.

The simulator also stands in for the operator's hands, because a simulated machine has no one to clear its
jams: when a deal is resumed the "operator" has closed the door, put the rejected unreadable or bounced cards
back in the hopper, taken foreign and duplicate cards away and picked dropped cards off the floor; when a deck
is loaded the "operator" has gathered the pockets into the hopper.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from dealer_protocol.cards import full_deck

HOME_BACK = "cardref-blue"
FOREIGN_BACK = "casino-red"


@dataclass(frozen=True)
class PhysicalCard:
    """One piece of cardboard: a serial number (its physical identity), its face and its back."""

    serial: int
    face: str
    back: str = HOME_BACK


@dataclass(frozen=True)
class Timing:
    """Seconds the mechanism takes (real values: a random-access dealer of ~2 cards per second)."""

    feed: float = 0.30
    read: float = 0.05
    pocket_move: float = 0.08
    shuffle_per_card: float = 0.12
    verify_per_card: float = 0.10

    def scaled(self, factor: float) -> Timing:
        """All times multiplied by ``factor``."""
        return Timing(
            *(
                v * factor
                for v in (self.feed, self.read, self.pocket_move, self.shuffle_per_card, self.verify_per_card)
            )
        )

    @classmethod
    def fast(cls) -> Timing:
        """The fast mode for tests: 1/500 of the real times."""
        return cls().scaled(0.002)

    def per_card(self) -> float:
        """Mechanism time of one dealt card, a pocket move included."""
        return self.feed + self.read + self.pocket_move


class FaultKind(Enum):
    """Everything the mechanism or the deck can do wrong."""

    JAM = "jam"
    DOUBLE_FEED = "double_feed"
    UNREADABLE = "unreadable"
    DUPLICATE = "duplicate"
    MISSING = "missing"
    FOREIGN = "foreign"
    EXTRA = "extra"
    HOPPER_EMPTY = "hopper_empty"
    POCKET_COUNT = "pocket_count"
    DOOR_OPEN = "door_open"
    POWER_LOST = "power_lost"
    EMERGENCY_STOP = "emergency_stop"


# The mechanical faults (no power loss, no deck fault): what ``cardref dealer sim --fault-rate`` and the soak inject.
MECHANICAL_FAULTS = (
    FaultKind.JAM,
    FaultKind.DOUBLE_FEED,
    FaultKind.UNREADABLE,
    FaultKind.POCKET_COUNT,
    FaultKind.DOOR_OPEN,
)

# Kinds that can strike any card fed (rates are per card).
PER_CARD_KINDS = (
    FaultKind.JAM,
    FaultKind.DOUBLE_FEED,
    FaultKind.UNREADABLE,
    FaultKind.POCKET_COUNT,
    FaultKind.DOOR_OPEN,
    FaultKind.POWER_LOST,
)


@dataclass
class FaultRates:
    """Probability per card fed of each per-card fault (0 by default)."""

    rates: dict[FaultKind, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for kind, rate in self.rates.items():
            if kind not in PER_CARD_KINDS:
                raise ValueError(f"{kind.value} is not a per-card fault; inject it on demand")
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"rate of {kind.value} must be within 0..1, got {rate}")


class MechanismFault(Exception):
    """The mechanism stopped: ``kind``, and the pocket, card or card lists it concerns."""

    def __init__(
        self,
        kind: FaultKind,
        *,
        pocket: int | None = None,
        card: str | None = None,
        cards: list[str] | None = None,
        count: int = 0,
    ) -> None:
        super().__init__(kind.value)
        self.kind, self.pocket, self.card, self.cards, self.count = kind, pocket, card, cards or [], count


class PowerLoss(Exception):
    """The power failed: the device's RAM is gone; the mechanism and its non-volatile memory remain."""


@dataclass
class Plan:
    """An unfinished deal, kept in non-volatile memory: cards still due per pocket, or a deal file."""

    remaining: list[int]
    file_map: dict[str, int] | None = None  # card code -> pocket, for a deal file
    cursor: int = 0  # next pocket of the round-robin

    def total(self) -> int:
        return sum(self.remaining)


@dataclass(frozen=True)
class DeckCheck:
    """The findings of a deck verification."""

    count: int
    missing: list[str]
    extra: list[str]
    duplicate: list[str]
    foreign: list[str]

    def worst(self) -> FaultKind | None:
        for kind, found in (
            (FaultKind.FOREIGN, self.foreign),
            (FaultKind.DUPLICATE, self.duplicate),
            (FaultKind.EXTRA, self.extra),
            (FaultKind.MISSING, self.missing),
        ):
            if found:
                return kind
        return None


class Machine:
    """The mechanism and what lies in it. Thread-safe for the device's worker and a test's injections."""

    def __init__(
        self,
        *,
        n_pockets: int = 5,
        timing: Timing | None = None,
        rates: FaultRates | None = None,
        seed: int | None = None,
        deck: list[str] | None = None,
    ) -> None:
        self.n_pockets = n_pockets
        self.timing = timing or Timing()
        self.rates = rates or FaultRates()
        self.rng = random.Random(seed)
        self.lock = threading.RLock()
        self._serials = 0
        self.hopper: list[PhysicalCard] = [self._new_card(face) for face in (deck or full_deck())]
        self.rng.shuffle(self.hopper)
        self.pockets: list[list[PhysicalCard]] = [[] for _ in range(n_pockets)]
        self.reject: list[PhysicalCard] = []
        self.floor: list[PhysicalCard] = []  # dropped cards the operator will find
        self.removed: list[PhysicalCard] = []  # foreign and duplicate cards the operator took away
        self.door_open = False
        self.armed: list[FaultKind] = []
        self.expected: list[str] | None = None  # the verified deck
        self.check_refused: set[int] = set()  # serials the last deck check sent to the reject tray
        self.stop_event = threading.Event()
        self.mechanism_seconds = 0.0  # time the mechanism spent working (for the benchmark)
        self.faults_raised: dict[FaultKind, int] = {}

    # Physical world

    def _new_card(self, face: str, back: str = HOME_BACK) -> PhysicalCard:
        self._serials += 1
        return PhysicalCard(self._serials, face, back)

    def all_cards(self) -> list[PhysicalCard]:
        """Every card in or on the machine, wherever it lies (the table of removed cards excluded)."""
        with self.lock:
            return [*self.hopper, *(c for p in self.pockets for c in p), *self.reject, *self.floor]

    def inject(self, kind: FaultKind) -> None:
        """Arm a fault: foreign, duplicate and extra cards go on top of the hopper now; the others strike at
        the next card fed (missing: a card falls out of the hopper; hopper empty: the rest is lifted out)."""
        with self.lock:
            if kind is FaultKind.FOREIGN:
                self.hopper.insert(0, self._new_card(self.rng.choice(full_deck()), FOREIGN_BACK))
            elif kind is FaultKind.DUPLICATE:
                source = self.rng.choice(self.all_cards())
                self.hopper.insert(0, self._new_card(source.face))
            elif kind is FaultKind.EXTRA:
                faces = {c.face for c in self.all_cards()}
                spare = [f for f in full_deck() if f not in faces]
                if spare:
                    self.hopper.insert(0, self._new_card(self.rng.choice(spare)))
            else:
                self.armed.append(kind)

    def operator_resumes(self) -> None:
        """What the simulated operator does before pressing resume (see the module's docstring)."""
        with self.lock:
            self.door_open = False
            back: list[PhysicalCard] = []
            for card in self.reject:
                dup = any(card.face == c.face for p in self.pockets for c in p)
                stranger = bool(self.expected) and card.face not in (self.expected or ())
                if card.back != HOME_BACK or dup or stranger:
                    self.removed.append(card)
                else:
                    back.append(card)
            self.reject = []
            self.hopper[:0] = back + self.floor
            self.floor = []

    def operator_loads(self) -> None:
        """The simulated operator gathers the pockets and the reject tray's good cards into the hopper."""
        with self.lock:
            for pocket in self.pockets:
                self.hopper.extend(pocket)
                pocket.clear()
            rejects, self.reject = self.reject, []
            for card in rejects:
                # Cards the last deck check refused are taken away; cards a deal rejected go back.
                refused = card.back != HOME_BACK or card.serial in self.check_refused
                (self.removed if refused else self.hopper).append(card)
            self.check_refused = set()
            self.door_open = False

    def open_door(self) -> None:
        """Someone opens the door: the mechanism stops before the next card."""
        with self.lock:
            self.door_open = True

    # Mechanism

    def _work(self, seconds: float) -> None:
        start = time.monotonic()
        if seconds > 0 and self.stop_event.wait(seconds):
            raise MechanismFault(FaultKind.EMERGENCY_STOP)
        if self.stop_event.is_set():
            raise MechanismFault(FaultKind.EMERGENCY_STOP)
        self.mechanism_seconds += time.monotonic() - start

    def _strikes(self, kind: FaultKind) -> bool:
        with self.lock:
            if kind in self.armed:
                self.armed.remove(kind)
                hit = True
            else:
                rate = self.rates.rates.get(kind, 0.0)
                hit = rate > 0 and self.rng.random() < rate
            if hit:
                self.faults_raised[kind] = self.faults_raised.get(kind, 0) + 1
            return hit

    def verify(self, expected: list[str], progress: Callable[[int, int], None] | None = None) -> DeckCheck:
        """Read every card in the hopper (the load pass). Cards that do not belong go to the reject tray."""
        with self.lock:
            cards = list(self.hopper)
        seen: set[str] = set()
        good: list[PhysicalCard] = []
        extra: list[str] = []
        duplicate: list[str] = []
        foreign: list[str] = []
        for i, card in enumerate(cards):
            self._work(self.timing.verify_per_card)
            if card.back != HOME_BACK:
                foreign.append(card.face)
            elif card.face in seen:
                duplicate.append(card.face)
            elif expected and card.face not in expected:
                extra.append(card.face)
            else:
                seen.add(card.face)
                good.append(card)
                continue
            with self.lock:
                self.hopper.remove(card)
                self.reject.append(card)
                self.check_refused.add(card.serial)
            if progress:
                progress(i + 1, len(cards))
        missing = [c for c in expected if c not in seen]
        check = DeckCheck(len(cards), missing, extra, duplicate, foreign)
        with self.lock:
            self.expected = list(expected) if check.worst() is None else None
        return check

    def shuffle(self) -> None:
        """Put the hopper in a new random order (the internal shuffler takes time per card)."""
        self._work(self.timing.shuffle_per_card * len(self.hopper))
        with self.lock:
            self.rng.shuffle(self.hopper)

    def next_pocket(self, plan: Plan, face: str) -> int | None:
        """Where a card goes: by identity for a deal file, else round-robin over pockets still due."""
        if plan.file_map is not None:
            pocket = plan.file_map.get(face)
            return pocket if pocket is not None and plan.remaining[pocket] > 0 else None
        n = len(plan.remaining)
        for step in range(n):
            p = (plan.cursor + step) % n
            if plan.remaining[p] > 0:
                return p
        return None

    def deal_one(self, plan: Plan) -> tuple[int, PhysicalCard]:
        """Feed, read and place one card of ``plan``; MechanismFault or PowerLoss when something fails."""
        if self.stop_event.is_set():
            raise MechanismFault(FaultKind.EMERGENCY_STOP)
        if self.door_open or self._strikes(FaultKind.DOOR_OPEN):
            self.door_open = True
            raise MechanismFault(FaultKind.DOOR_OPEN)
        if self._strikes(FaultKind.POWER_LOST):
            raise PowerLoss()
        if self._strikes(FaultKind.MISSING):
            with self.lock:  # a card falls out of the hopper onto the floor
                if self.hopper:
                    self.floor.append(self.hopper.pop(self.rng.randrange(len(self.hopper))))
        if self._strikes(FaultKind.HOPPER_EMPTY):
            with self.lock:  # someone lifts the rest of the cards out of the hopper
                self.floor.extend(self.hopper)
                self.hopper.clear()
        with self.lock:
            if not self.hopper:
                missing = self._unaccounted()
                if missing:
                    raise MechanismFault(FaultKind.MISSING, cards=missing)
                raise MechanismFault(FaultKind.HOPPER_EMPTY, count=plan.total())
        self._work(self.timing.feed)
        if self._strikes(FaultKind.JAM):
            raise MechanismFault(FaultKind.JAM)  # the card backs out to the top of the hopper
        if self._strikes(FaultKind.DOUBLE_FEED):
            raise MechanismFault(FaultKind.DOUBLE_FEED)  # both cards go back to the hopper
        with self.lock:
            card = self.hopper.pop(0)
        self._work(self.timing.read)
        if self._strikes(FaultKind.UNREADABLE):
            self._reject(card)
            raise MechanismFault(FaultKind.UNREADABLE)
        if card.back != HOME_BACK:
            self._reject(card)
            raise MechanismFault(FaultKind.FOREIGN, card=card.face)
        with self.lock:
            dealt = any(card.face == c.face for p in self.pockets for c in p)
        if dealt:
            self._reject(card)
            raise MechanismFault(FaultKind.DUPLICATE, card=card.face)
        pocket = self.next_pocket(plan, card.face)
        if pocket is None:
            self._reject(card)
            raise MechanismFault(FaultKind.EXTRA, card=card.face)
        self._work(self.timing.pocket_move)
        if self._strikes(FaultKind.POCKET_COUNT):
            # The card bounced off the pocket's edge: the pocket's sensor counts one card fewer than sent.
            self._reject(card)
            raise MechanismFault(FaultKind.POCKET_COUNT, pocket=pocket, count=len(self.pockets[pocket]))
        with self.lock:
            self.pockets[pocket].append(card)
            plan.remaining[pocket] -= 1
            if plan.file_map is None:
                plan.cursor = (pocket + 1) % len(plan.remaining)
        return pocket, card

    def _reject(self, card: PhysicalCard) -> None:
        with self.lock:
            self.reject.append(card)

    def _unaccounted(self) -> list[str]:
        if self.expected is None:
            return []
        present = {c.face for c in self.all_cards() if c.back == HOME_BACK and c not in self.floor}
        return [f for f in self.expected if f not in present]
