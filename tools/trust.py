"""``cardref trust``: judgement that survives imperfect senses, measured (issue 11).

Simulated hands of every game and option go through the table service's own path: a ``referee.table.TableSession``
over a real SQLite event log (in a temporary directory), the camera's plays through ``referee.camera.CameraBridge``
(its veto of a card the engine knows the seat cannot hold included), the dealing machine's deal as its bridge enters
it (``"source": "dealer"``). The players renege now and then (a card that does not follow; in Pitch a seat skipped
while it holds a trump). The sensors misread at the given rate: a wrong card of the same colour, of the same rank,
or anything else. A second engine, fed the true events as the table entered them, says which reneges were real.

The simulated director does only what a director at the table does: enters the card when the camera is unsure (the
card in front of it), and, when the referee shows a read at fault with its frame, fixes that read to the card the
frame shows. It never rules on a call: a call held for the director is counted, not scored.

Ends with one JSON line: hands, reneges_made (real), reneges_scored (real ones scored without the director),
misreads (injected), false_penalties (a renege scored that was not made), calls_withdrawn, held_for_director; and
hands_abandoned (a hand the simulation could not carry on: reported, never hidden), director_fixes, seconds.
"""

from __future__ import annotations

import random
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from engine.cards import BJ, CODES, LJ, card, rank_of, suit_of
from engine.hand import PLAY
from engine.match import Match
from engine.simulate import random_deal, random_event
from referee.camera import CameraBridge
from referee.eventlog import EventLog
from referee.table import EngineFault, Refused, TableSession

# Every game and option the properties test (tests/engine/test_properties.py CONFIGS).
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("bid_whist", {}),
    ("bid_whist", {"bid_order": "no>high=low"}),
    ("bid_whist", {"nt_jokers": "swap"}),
    ("bid_whist", {"nt_jokers": "dead"}),
    ("bid_whist", {"jokers_distinct": False}),
    ("bid_whist", {"renege_penalty": "hand"}),
    ("bid_euchre", {}),
    ("bid_euchre", {"set_penalty": "bid"}),
    ("bid_euchre", {"renege_penalty": "points"}),
    *[("pitch", {"points": p}) for p in (5, 7, 8, 10, 11, 13, 14, 15, 16)],
    ("pitch", {"reverse": True}),
    ("pitch", {"dirty": True}),
    ("pitch", {"players": 5}),
    ("pitch", {"jokers_distinct": False}),
    ("pitch", {"rob_to_partner": True}),
]
RENEGE_RATE = 0.04  # per play: about two reneges in three hands
HANDS_PER_LOG = 100  # a fresh log now and then keeps a refusal's rebuild (it reads the whole log) short
DIRECTOR = "director"


@dataclass
class Read:
    """What the camera's play detector reports (the attributes ``CameraBridge.handle`` reads)."""

    kind: str
    seat: int | None
    code: str | None
    confidence: float | None = None
    frame: int = 0
    detail: str = ""


@dataclass
class Tally:
    hands: int = 0
    reneges_made: int = 0
    reneges_scored: int = 0
    misreads: int = 0
    false_penalties: int = 0
    calls_withdrawn: int = 0
    held_for_director: int = 0
    hands_abandoned: int = 0
    director_fixes: int = 0

    def json(self, seconds: float) -> dict[str, Any]:
        return dict(self.__dict__, seconds=round(seconds, 1))


def misread(rng: random.Random, c: int, deck: int) -> int:
    """A wrong card for ``c``: of the same colour, of the same rank, or anything else (a third each)."""
    others = [x for x in range(54) if x != c]
    kind = rng.randrange(3)
    if c in (BJ, LJ):
        pool = [LJ if c == BJ else BJ] if kind < 2 else others
    elif kind == 0:  # same colour: spades/clubs, hearts/diamonds
        black = suit_of(c) in (0, 3)
        pool = [x for x in others if x < 52 and (suit_of(x) in (0, 3)) == black]
    elif kind == 1:
        pool = [x for x in others if x < 52 and rank_of(x) == rank_of(c)]
    else:
        pool = others
    return rng.choice(pool)


def blank(event: dict[str, Any], game: str) -> dict[str, Any]:
    """An event as a table without a dealing machine enters it: the face-down cards not read (null)."""
    e = dict(event)
    kind = e["event"]
    if kind == "deal":
        e["hands"] = None
        for key in ("kitty", "pack", "blind"):
            if key in e:
                e[key] = None
    elif kind == "discard" and game == "bid_whist":
        e["cards"] = [None] * len(e["cards"])
    elif kind == "joker_swap":
        e["drew"] = None
    elif kind == "exchange":
        e["card"] = None
    elif kind in ("draw", "rob"):
        e["cards"] = [None] * len(e["cards"])
    return e


class Table:
    """One simulated hand at a table: the truth, the service, the camera bridge."""

    def __init__(self, session: TableSession, rng: random.Random, rate: float, known: bool, tally: Tally) -> None:
        self.session = session
        self.bridge = CameraBridge(session, detector=_NoDetector())
        self.rng = rng
        self.rate = rate
        self.known = known
        self.tally = tally
        self.truth_of: dict[int, str] = {}  # a camera read's seq -> the card really played

    def hand(self, game: str, options: dict[str, Any]) -> None:
        rng = self.rng
        truth = Match(game, options, first_dealer=rng.randrange(options.get("players", 4)))
        self.session.create_match(game, options, None, truth.first_dealer, "table", "trust")
        deal = random_deal(truth.hand, rng)
        truth.apply(deal)
        self._deal(deal, game)
        while not truth.hands[0].is_terminal():
            hand = truth.hand
            if hand.phase == PLAY and (hand.tricks or (hand.trick is not None and hand.trick.cards)):
                event = self._play_of(truth)
                truth.apply(event)
                self._camera(event)
            else:
                event = random_event(truth, rng, 0.6)
                truth.apply(event)
                if event["event"] == "play":  # the first play of a hand goes through legal_events()
                    self._camera(event)
                else:
                    self._enter(event if self.known else blank(event, game))
        self._finish(truth)

    # ---------------------------------------------------------------- the players

    def _play_of(self, truth: Match) -> dict[str, Any]:
        """The seat on turn's play: legal, or now and then a renege (any card held; in Pitch the next seat plays,
        skipping the seat on turn)."""
        hand = truth.hand
        rng = self.rng
        seat = hand.play_turn()
        if rng.random() < RENEGE_RATE:
            if hand.game == "pitch":
                n = hand.n_players
                played = {s for s, _ in hand.trick.cards} if hand.trick is not None else set()
                later = [(seat + i) % n for i in range(1, n)]
                skip = next((s for s in later if s in hand.active and s not in played), None)
                if skip is not None:
                    held = hand.knowledge.certain[skip]
                    return {"event": "play", "seat": skip, "card": CODES[_any(rng, held)]}
            else:
                return {"event": "play", "seat": seat, "card": CODES[_any(rng, hand.knowledge.certain[seat])]}
        return {"event": "play", "seat": seat, "card": CODES[rng.choice(hand.legal_plays())]}

    # ---------------------------------------------------------------- the sensors and the table

    def _deal(self, deal: dict[str, Any], game: str) -> None:
        if not self.known:
            self._enter(blank(deal, game))
            return
        read = dict(deal, source="dealer")
        deck = self.session._need_match().match.hand.deck_mask
        for key in ("hands", "kitty", "pack", "blind"):
            if read.get(key) is None:
                continue
            piles = read[key] if key == "hands" else [read[key]]
            fresh = []
            for pile in piles:
                out = []
                for x in pile:
                    if self.rng.random() < self.rate:
                        self.tally.misreads += 1
                        x = CODES[misread(self.rng, card(x), deck)]
                    out.append(x)
                fresh.append(out)
            read[key] = fresh if key == "hands" else fresh[0]
        self.session.submit(read, "dealer", "machine")

    def _enter(self, event: dict[str, Any]) -> None:
        try:
            self.session.submit(event, "table", "table")
        except Refused as exc:
            raise _Abandon(f"the table's {event['event']} was refused: {exc.reason}") from None

    def _camera(self, event: dict[str, Any]) -> None:
        """The camera sees the play: read right, or misread; the bridge vetoes a card the seat cannot hold (the
        camera then says unsure); an unsure read or a refused one is entered by the table, as the director does."""
        seat, code = event["seat"], event["card"]
        read = code
        if self.rng.random() < self.rate:
            self.tally.misreads += 1
            deck = self.session._need_match().match.hand.deck_mask
            read = CODES[misread(self.rng, card(code), deck)]
        before = self.session.log.last_seq()
        if self.bridge.check(seat, read):
            self.bridge.handle(Read("card_played", seat, read, 0.97), None)
            if self.bridge.plays and self.bridge.plays[-1] > before:
                self.truth_of[self.bridge.plays[-1]] = code
                return
        else:
            self.bridge.handle(Read("unsure_card", seat, None, 0.4, detail="the read was vetoed"), None)
        self._table_play(event)

    def _table_play(self, event: dict[str, Any], tries: int = 3) -> None:
        """The director enters the card in front of it. Refused (the cards seen no longer add up: the session has
        recorded the conflict), the director looks at the reads shown at fault and fixes each to the card its
        frame shows, then enters the card again."""
        state = self.session._need_match()
        withdrawn_before = _withdrawn(state.match.hands[0])
        try:
            self.session.submit(dict(event), "table", "table")
            return
        except Refused as exc:
            why = exc.reason
        hand = self.session._need_match().match.hands[0]  # one hand per match here
        self.tally.calls_withdrawn += max(0, _withdrawn(hand) - withdrawn_before)
        if tries <= 0 or not hand.faulty:
            raise _Abandon(f"the table's play {event} was refused: {why}")
        seqs = self.session._hand_seqs(self.session._need_match(), hand)
        for i in list(hand.faulty):
            seq = seqs[i] if i < len(seqs) else None
            true = self.truth_of.get(seq) if seq is not None else None
            if seq is None or true is None:
                raise _Abandon(f"a read at fault that the simulation did not make: event {i}")
            self._fix(seq, true, 3)
        self._table_play(event, tries - 1)

    def _fix(self, seq: int, true: str, tries: int) -> None:
        """The director fixes read ``seq`` to the card its frame shows. Refused because a later read would no
        longer apply (that read is wrong too: with the hands unknown a misread can pass for a while), the
        director looks at that read's frame as well and fixes it first."""
        try:
            self.session.fix_card(seq, true, DIRECTOR, "the frame shows another card")
            self.tally.director_fixes += 1
        except Refused as exc:
            found = re.match(r"event (\d+) \(play\) would no longer apply", exc.reason)
            later = int(found.group(1)) if found else None
            row = self.session.log.get(later) if later is not None else None
            if tries <= 0 or later is None or row is None or self.truth_of.get(later) in (None, row.event.get("card")):
                raise _Abandon(f"the director's fix of read {seq} was refused: {exc.reason}") from None
            self._fix(later, self.truth_of[later], tries - 1)
            self._fix(seq, true, tries - 1)

    def _finish(self, truth: Match) -> None:
        real = {(r.seat, r.trick) for r in truth.hands[0].reneges}
        state = self.session._need_match()
        hand = state.match.hands[0]
        if not hand.is_terminal():
            raise _Abandon(f"the table's hand is over, the referee's is not ({hand.phase})")
        scored = {(r.seat, r.trick) for r in hand.reneges}
        self.tally.hands += 1
        self.tally.reneges_made += len(real)
        self.tally.reneges_scored += len(scored & real)
        self.tally.false_penalties += len(scored - real)
        self.tally.held_for_director += len(hand.held)


class _NoDetector:
    """The bridge wires its callbacks into a detector; the simulation reads for it."""

    turn: Any = None
    check: Any = None
    seats: Any = None


class _Abandon(Exception):
    pass


def _any(rng: random.Random, mask: int) -> int:
    return rng.choice([c for c in range(54) if mask >> c & 1])


def _withdrawn(hand: Any) -> int:
    return sum(1 for i in hand.irregularities if i.get("kind") == "renege withdrawn")


def run(hands: int, rate: float, seed: int, game: str | None = None, known: bool = True,
        progress: TextIO | None = None, data: Path | None = None) -> dict[str, Any]:
    """Simulate ``hands`` hands; returns the tally (the JSON line's fields)."""
    configs = [c for c in CONFIGS if game is None or c[0] == game]
    rng = random.Random(seed)
    tally = Tally()
    started = time.monotonic()
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(prefix="cardref-trust-", dir=shm if shm.is_dir() else None) as tmp:
        root = data or Path(tmp)
        log: EventLog | None = None
        table: Table | None = None
        for i in range(hands):
            if i % HANDS_PER_LOG == 0:
                if log is not None:
                    log.close()
                log = EventLog(root / f"log-{i // HANDS_PER_LOG}.sqlite")
                table = Table(TableSession(log), rng, rate, known, tally)
            assert table is not None
            g, options = configs[rng.randrange(len(configs))]
            try:
                table.hand(g, options)
            except (_Abandon, EngineFault) as exc:
                tally.hands_abandoned += 1
                if progress is not None:
                    print(f"cardref trust: hand {i + 1} ({g} {options}) abandoned: {exc}", file=progress)
            if progress is not None and (i + 1) % 1000 == 0:
                print(f"cardref trust: {i + 1} hands, {time.monotonic() - started:.0f} s", file=progress)
        if log is not None:
            log.close()
    return tally.json(time.monotonic() - started)
