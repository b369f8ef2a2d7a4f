"""The table session: the event log joined to the engine.

Every event is appended to the log (``referee.eventlog``) *before* it is applied to the ``engine.match.Match``;
the state is whatever replaying the log gives, so a crash or a power cut resumes the hand where it stood. An event
the engine refuses stays in the log as a refused attempt (its reason beside it) and changes nothing.

Corrections are events too: the director's "undo event N" and "replace event N with ..." (a misread card fixed is
a replace of a play) change the *effective* event list, and the state is rebuilt by replaying it. A correction
that would make a later recorded event impossible is itself refused, naming that event, so the effective list is
always a record that replays. Rulings (the director accepts or rejects a renege call) and device status (the
dealing machine or the camera lost or back) are kept beside the engine's state; the engine's own judgement and
score are never overridden by them.

Views: ``public_state()`` is built from ``Match.public_view()`` with every card that is not face up removed (a
renege's proof card is shown only once it has been played); ``director_state()`` is everything.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.cards import CODES, SUITS, card
from engine.hand import CHANCE, Hand, IllegalEvent
from engine.match import Match
from engine.options import OptionError
from engine.record import match_header
from referee.eventlog import EventLog, Row

# What the engine raises for an event that cannot have happened, and what a malformed event may raise on its way
# through: all of them are refusals with a reason, never a crash of the table.
# Only the engine's own refusals are refusals. Anything else the engine raises is a bug of the referee: it is
# reported as one (EngineFault, a 500 naming it) and never passed off as a ruling on the event.
REFUSALS = (IllegalEvent,)

SEAT_EVENTS = ("bid", "declare", "discard", "joker_swap", "exchange", "draw", "rob", "burn", "play", "retract")
# ``conflict``: a read that contradicts the record, sent by the session itself (docs/engine-api.md, sensor reads).
GAME_EVENTS = ("deal", "fold", "conflict", *SEAT_EVENTS)
SENSORS = ("camera", "dealer")
DEVICES = ("dealer", "camera")


class Refused(Exception):
    """An attempt the table refused; ``seq`` is its row in the log (None: refused before it was logged)."""

    def __init__(self, reason: str, seq: int | None = None, status: int = 409) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seq = seq
        self.status = status


@dataclass
class MatchState:
    """A match rebuilt from the log."""

    id: int  # the seq of its ``match`` row
    header: dict[str, Any]
    match: Match
    seqs: list[int] = field(default_factory=list)  # the log seq of each applied event, in order
    events: list[dict[str, Any]] = field(default_factory=list)  # the effective events, as applied
    refused: list[dict[str, Any]] = field(default_factory=list)
    corrections: list[dict[str, Any]] = field(default_factory=list)
    rulings: list[dict[str, Any]] = field(default_factory=list)
    observations: list[dict[str, Any]] = field(default_factory=list)


def new_match(header: dict[str, Any]) -> Match:
    return Match(header["game"], header.get("options") or {}, header.get("players"), header.get("first_dealer", 0))


def describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, KeyError):
        text = f"missing field {text}"
    return text


class EngineFault(Exception):
    """The engine failed on an event (a bug, not a refusal). The event stays in the log, marked unjudged so the
    table still starts; the director sees the fault."""

    def __init__(self, reason: str, seq: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seq = seq


def fault_text(exc: BaseException) -> str:
    return (f"engine fault ({type(exc).__name__}: {exc}): the event is kept in the log but was not judged; "
            "this is a bug of the referee, please report it")


class TableSession:
    """One table: its log, its current match, its devices' status, and the listeners of what happens."""

    def __init__(self, log: EventLog, dealer: str = "none", camera: str = "none",
                 frames_dir: Path | None = None) -> None:
        self.log = log
        # The camera frames kept as evidence, one per card the camera read (``<seq>.jpg``): the director's only.
        self.frames_dir = frames_dir
        self.lock = threading.RLock()
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        # Device modes: "machine"/"camera" when connected, "none" when the table has none, "lost" when it was lost.
        self.devices: dict[str, str] = {"dealer": dealer, "camera": camera}
        self.current: MatchState | None = None
        self.rebuild()

    # ---------------------------------------------------------------- rebuilding from the log

    def rebuild(self) -> None:
        """The state from the log alone: the last match's effective events replayed (crash recovery)."""
        with self.lock:
            rows = list(self.log.rows())
            for r in rows:
                if r.kind == "status":
                    self.devices[r.event["device"]] = r.event["state"]
            ids = [r.seq for r in rows if r.kind == "match"]
            if not ids:
                self.current = None
                return
            self.current = self._rebuild_match(ids[-1], [r for r in rows if r.match == ids[-1]])

    def _rebuild_match(self, match_id: int, rows: list[Row]) -> MatchState:
        """Replay one match's rows in the order of the log, as the live session did. A row that was appended but
        not yet judged when the power went (no refusal row after it) is judged now, and its refusal logged."""
        header = next(r for r in rows if r.seq == match_id).event
        refused = {r.target for r in rows if r.kind == "refused"}
        seen: list[Row] = []
        state = self._replay(match_id, header, seen)
        for r in rows:
            if r.seq == match_id or r.kind in ("refused", "status", "observation"):
                seen.append(r)
                continue
            seen.append(r)
            if r.seq in refused:
                continue
            if r.kind == "game":
                try:
                    state.match.apply(r.event)
                except REFUSALS as exc:
                    self._log_refusal(r, describe(exc))
                    seen.append(self._refusal_row(r, describe(exc)))
                    state = self._replay(match_id, header, seen)
                    continue
                except Exception as exc:  # noqa: BLE001 - an engine bug: the table must still start
                    self._log_refusal(r, fault_text(exc))
                    seen.append(self._refusal_row(r, fault_text(exc)))
                    state = self._replay(match_id, header, seen)
                    continue
                state.seqs.append(r.seq)
                state.events.append(r.event)
            elif r.kind in ("undo", "replace"):
                try:
                    state = self._replay(match_id, header, seen, strict=True)
                except Refused as exc:
                    self._log_refusal(r, exc.reason)
                    seen.append(self._refusal_row(r, exc.reason))
                    state = self._replay(match_id, header, seen)
            elif r.kind == "ruling":
                state.rulings.append(self._ruling_json(r))
        return self._replay(match_id, header, seen)

    def _rebuild_current(self, state: MatchState) -> None:
        """The current match from its own rows (a match's id is the seq of its first row, and it is the last match
        in the log): what ``rebuild`` gives for it, without reading every earlier match."""
        rows = [r for r in self.log.rows(after=state.id - 1) if r.match == state.id]
        self.current = self._rebuild_match(state.id, rows)

    def _refusal_row(self, r: Row, why: str) -> Row:
        return Row(0, r.time, r.match, "system", "referee", "refused", {}, why, r.seq)

    def _log_refusal(self, r: Row, why: str) -> Row:
        return self.log.append(r.match, "system", "referee", "refused", {"event": "refused"}, why, r.seq)

    def _replay(self, match_id: int, header: dict[str, Any], rows: list[Row], strict: bool = False) -> MatchState:
        """A match from its rows: refused rows and undone corrections dropped, replacements applied. ``strict``:
        an event that no longer applies raises Refused naming it (a correction must leave a record that replays);
        otherwise it is skipped."""
        refused = {r.target: r for r in rows if r.kind == "refused"}
        # Undo of an undo restores: a row is active unless refused or undone by an active undo (later rows decide).
        undone: set[int] = set()
        active: set[int] = set()
        for r in reversed(rows):
            if r.seq in refused or r.seq in undone:
                continue
            active.add(r.seq)
            if r.kind == "undo" and r.target is not None:
                undone.add(r.target)
        replaced: dict[int, dict[str, Any]] = {}
        for r in rows:
            if r.kind == "replace" and r.seq in active and r.target is not None:
                replaced[r.target] = r.event["with"]
        state = MatchState(match_id, header, new_match(header))
        for r in rows:
            if r.kind == "refused" and r.target is not None:
                attempt = next((x for x in rows if x.seq == r.target), None)
                state.refused.append(
                    {"seq": r.target, "why": r.why, "event": attempt.event if attempt else None,
                     "actor": attempt.actor if attempt else None, "source": attempt.source if attempt else None}
                )
            if r.seq not in active:
                if r.kind in ("undo", "replace", "ruling") and r.seq not in refused:
                    state.corrections.append(dict(self._correction_json(r), active=False))
                continue
            if r.kind in ("undo", "replace"):
                state.corrections.append(dict(self._correction_json(r), active=True))
            elif r.kind == "ruling":
                # The engine applies the director's ruling (a rejected call is not scored, an accepted suspicion
                # is): it is an event of the table record too. One that no longer applies (its call undone) is kept
                # beside the calls but changes nothing.
                try:
                    state.match.apply(r.event)
                except REFUSALS:
                    state.rulings.append(dict(self._ruling_json(r), applied=False))
                    continue
                state.rulings.append(dict(self._ruling_json(r), applied=True))
                state.seqs.append(r.seq)
                state.events.append(r.event)
            elif r.kind == "observation":
                state.observations.append(dict(r.event, seq=r.seq, source=r.source, time=r.time))
            elif r.kind == "game":
                event = replaced.get(r.seq, r.event)
                try:
                    state.match.apply(event)
                except REFUSALS as exc:
                    if strict:
                        why = f"event {r.seq} ({event.get('event')}) would no longer apply: {describe(exc)}"
                        raise Refused(why) from None
                    continue
                state.seqs.append(r.seq)
                state.events.append(event)
        return state

    @staticmethod
    def _correction_json(r: Row) -> dict[str, Any]:
        out = {"seq": r.seq, "kind": r.kind, "target": r.target, "who": r.actor, "why": r.why, "time": r.time}
        if r.kind == "replace":
            out["with"] = r.event["with"]
        return out

    @staticmethod
    def _ruling_json(r: Row) -> dict[str, Any]:
        return dict(r.event, seq=r.seq, who=r.actor, why=r.why)

    # ---------------------------------------------------------------- commands

    def _need_match(self) -> MatchState:
        if self.current is None:
            raise Refused("no match has been started: create one first", status=409)
        return self.current

    def create_match(
        self,
        game: str,
        options: dict[str, Any] | None,
        players: list[str] | None,
        first_dealer: int,
        source: str,
        actor: str,
    ) -> MatchState:
        """A new match; checked by the engine first (nothing is logged for a match that cannot be)."""
        with self.lock:
            try:
                match = Match(game, options or {}, players, first_dealer)
            except (OptionError, IllegalEvent) as exc:
                raise Refused(str(exc), status=422) from None
            header = match_header(match)
            # A match's id is the seq of its own row: the log has one writer (under this lock) and never deletes,
            # so the next seq is the last one plus one.
            match_id = self.log.last_seq() + 1
            row = self.log.append(match_id, source, actor, "match", header)
            assert row.seq == match_id
            self.current = MatchState(row.seq, header, match)
            self._notify({"kind": "match", "seq": row.seq, "match": row.seq, "event": header, "actor": actor})
            return self.current

    def submit(self, event: dict[str, Any], source: str, actor: str) -> Row:
        """A table event: appended to the log, then applied. Raises Refused (the attempt logged) if the engine
        refuses it; the state is then what it was."""
        with self.lock:
            state = self._need_match()
            kind = event.get("event")
            if kind not in GAME_EVENTS:
                raise Refused(f"unknown event {kind!r}; the table's events: {', '.join(GAME_EVENTS)}", status=422)
            row = self.log.append(state.id, source, actor, "game", event)
            try:
                state.match.apply(event)
            except REFUSALS as exc:
                why = describe(exc)
                self._log_refusal(row, why)
                # The engine may have changed part of its state before it refused: rebuild from the log (the current
                # match's rows only: they are the last ones, and nothing else changed).
                self._rebuild_current(state)
                self._notify({"kind": "refused", "seq": row.seq, "match": state.id, "event": event, "why": why,
                              "actor": actor, "source": source})
                if kind == "play":
                    self._conflict(event, source, actor, row.seq)
                elif kind == "deal" and event.get("source") == "dealer":
                    retry = self._deal_without_doubtful_reads(event, why, source, actor, row.seq)
                    if retry is not None:
                        return retry
                raise Refused(why, row.seq) from None
            except Exception as exc:
                why = fault_text(exc)
                self._log_refusal(row, why)  # so that the log still replays (a restart would meet the bug again)
                self._rebuild_current(state)
                self._notify({"kind": "fault", "seq": row.seq, "match": state.id, "event": event, "why": why,
                              "actor": actor, "source": source})
                raise EngineFault(why, row.seq) from exc
            state.seqs.append(row.seq)
            state.events.append(event)
            self._notify({"kind": "game", "seq": row.seq, "match": state.id, "event": event, "actor": actor,
                          "source": source})
            return row

    def _conflict(self, event: dict[str, Any], source: str, actor: str, refused_seq: int) -> None:
        """A play refused because its card was already seen face up by a sensor read of this hand: the cards seen
        no longer add up, one of the reads is wrong. Recorded as a ``conflict`` event: the engine finds the read at
        fault and withdraws the calls resting on it; the director sees the reads with their frames."""
        state = self.current
        if state is None:
            return
        try:
            c = card(event.get("card"))
        except (ValueError, TypeError):
            return
        match = state.match
        hands = [match.hand]
        if len(match.hands) > 1 and match.hand.phase == "deal":
            hands.append(match.hands[-2])  # the card shows up again after its hand was scored
        hand = next((h for h in hands if h.sensor_sightings(c)), None)
        if hand is None:
            return
        conflict = {"event": "conflict", "hand": hand.number, "card": CODES[c], "seat": event.get("seat"),
                    "source": source, "refused": refused_seq}
        try:
            self.submit(conflict, "referee", actor)
        except Refused:
            pass

    def _deal_without_doubtful_reads(self, event: dict[str, Any], why: str, source: str, actor: str,
                                     refused_seq: int) -> Row | None:
        """A dealing machine's deal refused because a card was read twice (or a card not in the deck was read):
        one of those reads is wrong and nobody can tell which, so every read of that card is taken as not read
        (null) and the deal is entered again; the director is shown the doubtful reads."""
        hands = event.get("hands")
        if not isinstance(hands, list):
            return None
        state = self._need_match()
        deck = state.match.hand.deck_mask
        places: dict[int, list[tuple[str, int, int]]] = {}
        keys = [k for k in ("kitty", "pack", "blind") if isinstance(event.get(k), list)]
        piles = [("hands", i, h) for i, h in enumerate(hands) if isinstance(h, list)]
        piles += [(k, -1, event[k]) for k in keys]
        for key, i, pile in piles:
            for j, x in enumerate(pile):
                try:
                    c = card(x) if x is not None else None
                except (ValueError, TypeError):
                    c = 54
                if c is not None:
                    places.setdefault(c, []).append((key, i, j))
        doubtful = {c: p for c, p in places.items() if len(p) > 1 or c >= 54 or not deck >> c & 1}
        if not doubtful:
            return None
        fixed = json_copy(event)
        for spots in doubtful.values():
            for key, i, j in spots:
                if key == "hands":
                    fixed["hands"][i][j] = None
                else:
                    fixed[key][j] = None
        fixed["doubtful"] = sorted(CODES[c] if c < 54 else "?" for c in doubtful)
        self.observe({"event": "doubtful_reads", "refused": refused_seq, "cards": fixed["doubtful"],
                      "detail": f"the dealing machine's reads do not add up ({why}): those cards are taken as not "
                                "read"}, "referee", actor)
        return self.submit(fixed, source, actor)

    def correct(
        self, kind: str, target: int, who: str, why: str, replacement: dict[str, Any] | None = None
    ) -> Row:
        """The director's undo or replace of event ``target`` (of the current match), with who and why."""
        with self.lock:
            state = self._need_match()
            if not why.strip() or not who.strip():
                raise Refused("a correction needs who makes it and why", status=422)
            old = self.log.get(target)
            if old is None or old.match != state.id:
                raise Refused(f"event {target} is not an event of the current match {state.id}", status=404)
            refused = {r.target for r in self.log.rows(match=state.id) if r.kind == "refused"}
            if target in refused:
                raise Refused(f"event {target} was refused; there is nothing to correct", status=409)
            if kind == "undo" and old.kind not in ("game", "undo", "replace", "ruling"):
                raise Refused(f"event {target} is a {old.kind} row; only table events and corrections are undone",
                              status=409)
            if kind == "replace":
                if old.kind != "game":
                    raise Refused(f"event {target} is a {old.kind} row; only table events are replaced", status=409)
                assert replacement is not None
                if replacement.get("event") not in GAME_EVENTS:
                    raise Refused(f"the replacement's event {replacement.get('event')!r} is not a table event",
                                  status=422)
            body = {"event": kind, "target": target} if kind == "undo" else {"event": kind, "target": target,
                                                                              "with": replacement}
            row = self.log.append(state.id, "director", who, kind, body, why, target)
            rows = list(self.log.rows(match=state.id))
            try:
                new_state = self._replay(state.id, state.header, rows, strict=True)
            except Refused as exc:
                self._log_refusal(row, exc.reason)
                self._notify({"kind": "refused", "seq": row.seq, "match": state.id, "event": body, "why": exc.reason,
                              "actor": who, "source": "director"})
                raise Refused(exc.reason, row.seq) from None
            self.current = new_state
            self._notify({"kind": kind, "seq": row.seq, "match": state.id, "event": body, "actor": who, "why": why})
            return row

    def fix_card(self, target: int, new_card: str, who: str, why: str) -> Row:
        """A misread card fixed: event ``target`` (a play) replaced by the same play with ``new_card``."""
        old = self.log.get(target)
        if old is None or old.kind != "game" or old.event.get("event") != "play":
            raise Refused(f"event {target} is not a play", status=404 if old is None else 409)
        try:
            code = CODES[card(new_card)]
        except ValueError as exc:
            raise Refused(str(exc), status=422) from None
        # The card is now the director's (looking at the card, or the frame): no longer a sensor's read.
        fixed = {k: v for k, v in old.event.items() if k not in ("source", "confidence")}
        return self.correct("replace", target, who, why, dict(fixed, card=code))

    def rule(self, hand: int, seat: int, trick: int, ruling: str, who: str, why: str) -> Row:
        """The director accepts or rejects a renege call (or a suspicion): logged first, then applied by the engine
        (a rejected call is not scored, an accepted suspicion is, a finished hand is scored again) and shown beside
        the call. A misread card is corrected by ``fix_card``, which re-judges."""
        with self.lock:
            state = self._need_match()
            if ruling not in ("accept", "reject"):
                raise Refused(f"ruling {ruling!r} must be 'accept' or 'reject'", status=422)
            if not why.strip() or not who.strip():
                raise Refused("a ruling needs who makes it and why", status=422)
            calls = [c for c in self.calls(state) if (c["hand"], c["seat"], c["trick"]) == (hand, seat, trick)]
            if not calls:
                raise Refused(f"there is no renege call or suspicion on seat {seat} at trick {trick} of hand {hand}",
                              status=404)
            body = {"event": "ruling", "hand": hand, "seat": seat, "trick": trick, "ruling": ruling}
            row = self.log.append(state.id, "director", who, "ruling", body, why)
            try:
                state.match.apply(body)
            except REFUSALS as exc:
                self._log_refusal(row, describe(exc))
                self.current = self._rebuild_match(state.id, [r for r in self.log.rows() if r.match == state.id])
                raise Refused(describe(exc), status=409) from None
            state.rulings.append(dict(body, seq=row.seq, who=who, why=why, applied=True))
            state.seqs.append(row.seq)
            state.events.append(body)
            self._notify({"kind": "ruling", "seq": row.seq, "match": state.id, "event": body, "actor": who,
                          "why": why})
            return row

    def set_device(self, device: str, mode: str, source: str, actor: str, why: str = "") -> Row:
        """A device connected, lost, back or absent: logged, and shown on every page."""
        with self.lock:
            if device not in DEVICES:
                raise Refused(f"device {device!r} must be one of {', '.join(DEVICES)}", status=422)
            if mode not in ("ok", "lost", "none"):
                raise Refused(f"state {mode!r} must be ok, lost or none", status=422)
            match_id = self.current.id if self.current else 0
            row = self.log.append(match_id, source, actor, "status", {"event": "status", "device": device,
                                                                      "state": mode}, why or None)
            self.devices[device] = mode
            self._notify({"kind": "status", "seq": row.seq, "match": match_id, "event": row.event, "actor": actor})
            return row

    def observe(self, observation: dict[str, Any], source: str, actor: str) -> Row:
        """What a device saw that is not a table event (the camera's unsure read): logged, shown to the director."""
        with self.lock:
            match_id = self.current.id if self.current else 0
            row = self.log.append(match_id, source, actor, "observation", observation)
            if self.current is not None:
                self.current.observations.append(dict(observation, seq=row.seq, source=source, time=row.time))
            self._notify({"kind": "observation", "seq": row.seq, "match": match_id, "event": observation,
                          "actor": actor})
            return row

    def frame_of(self, seq: int) -> Path | None:
        if self.frames_dir is None:
            return None
        path = self.frames_dir / f"{seq}.jpg"
        return path if path.exists() else None

    def _notify(self, notice: dict[str, Any]) -> None:
        # The event is on the disk and applied: a listener's fault (a page's feed) must not turn it into an error.
        for listener in list(self.listeners):
            try:
                listener(notice)
            except Exception as exc:  # noqa: BLE001
                print(f"cardref: a live feed failed after event {notice.get('seq')}: {type(exc).__name__}",
                      file=sys.stderr)

    # ---------------------------------------------------------------- views

    def calls(self, state: MatchState | None = None) -> list[dict[str, Any]]:
        """Every renege call and suspicion of the match, with its evidence (the director's)."""
        state = state or self.current
        if state is None:
            return []
        out = []
        for hand in state.match.hands:
            seq_of = self._play_seqs(state, hand)
            deal_seq = self._deal_seq(state, hand)
            for r, proven in [(r, True) for r in hand.reneges] + [(r, False) for r in hand.suspicions]:
                j = r.to_json()
                evidence: list[dict[str, Any]] = []
                failed_at = seq_of.get((r.seat, j["card"])) if j["card"] is not None else None
                if failed_at is not None:
                    evidence.append({"seq": failed_at, "what": f"seat {r.seat} played {j['card']}"})
                if proven and j["proof"] is not None:
                    later = seq_of.get((r.seat, j["proof"]))
                    if later is not None and (failed_at is None or later > failed_at):
                        evidence.append({"seq": later, "what": f"seat {r.seat} later played {j['proof']}"})
                    elif deal_seq is not None:
                        evidence.append({"seq": deal_seq, "what": f"seat {r.seat} held {j['proof']} (the dealer's "
                                                                  "reads, or the cards accounted for)"})
                for e in evidence:
                    if self.frame_of(e["seq"]) is not None:
                        e["frame"] = f"/api/frames/{e['seq']}"
                entry = dict(j, hand=hand.number, proven=proven, established=r.established, evidence=evidence)
                entry["rulings"] = [x for x in state.rulings
                                    if (x["hand"], x["seat"], x["trick"]) == (hand.number, r.seat, r.trick)]
                out.append(entry)
            seqs = self._hand_seqs(state, hand)
            for r in hand.held:  # proven, but resting on reads the hand's cards did not confirm
                j = r.to_json()
                entry = dict(j, hand=hand.number, proven=True, established=True, held=True,
                             evidence=self._read_evidence(state, hand, seqs, hand.rests_on_reads(r)),
                             why="rests on a sensor's read the hand's cards could not confirm: not scored unless "
                                 "the director accepts it")
                entry["rulings"] = [x for x in state.rulings
                                    if (x["hand"], x["seat"], x["trick"]) == (hand.number, r.seat, r.trick)]
                out.append(entry)
            for j in hand.irregularities:  # a call withdrawn because a read it rested on was wrong
                if j.get("kind") != "renege withdrawn":
                    continue
                entry = dict(j, hand=hand.number, proven=j.get("proof") is not None, established=True,
                             withdrawn=True, evidence=self._read_evidence(state, hand, seqs, j.get("reads", [])))
                entry["rulings"] = []
                out.append(entry)
            for j in hand.irregularities:  # a call the director rejected stays in view, marked so
                if j.get("kind") != "renege rejected by the director":
                    continue
                failed_at = seq_of.get((j["seat"], j["card"])) if j.get("card") is not None else None
                evidence = [] if failed_at is None else [{"seq": failed_at, "what": f"seat {j['seat']} played "
                                                                                   f"{j['card']}"}]
                entry = dict(j, hand=hand.number, proven=j.get("proof") is not None, established=True,
                             evidence=evidence, rejected=True)
                entry["rulings"] = [x for x in state.rulings
                                    if (x["hand"], x["seat"], x["trick"]) == (hand.number, j["seat"], j["trick"])]
                out.append(entry)
        return out

    @staticmethod
    def _hand_events(state: MatchState, hand: Hand) -> list[tuple[int, dict[str, Any]]]:
        """The (seq, event) pairs of one hand: effective events are split into hands by the deal events."""
        out: list[list[tuple[int, dict[str, Any]]]] = []
        for seq, ev in zip(state.seqs, state.events, strict=True):
            if ev.get("event") == "deal":
                out.append([])
            if out:
                out[-1].append((seq, ev))
        return out[hand.number - 1] if hand.number - 1 < len(out) else []

    def _hand_seqs(self, state: MatchState, hand: Hand) -> list[int]:
        """The log seq of each of the hand's own events (``Hand.events``, in order: the rulings are the match's)."""
        return [seq for seq, ev in self._hand_events(state, hand) if ev.get("event") != "ruling"]

    def _read_evidence(self, state: MatchState, hand: Hand, seqs: list[int], reads: list[int]) -> list[dict[str, Any]]:
        """The sensor reads named by the engine (indices into ``Hand.events``) as the director's evidence: the
        read, its source and confidence, and its frame where the camera kept one."""
        out = []
        for i in reads:
            if not 0 <= i < len(seqs) or i >= len(hand.events):
                continue
            ev = hand.events[i]
            what = {"play": f"seat {ev.get('seat')} played {ev.get('card')}", "deal": "the dealing machine's deal"}
            item: dict[str, Any] = {"seq": seqs[i], "what": what.get(str(ev.get("event")), str(ev.get("event"))),
                                    "source": ev.get("source"), "confidence": ev.get("confidence")}
            if self.frame_of(seqs[i]) is not None:
                item["frame"] = f"/api/frames/{seqs[i]}"
            out.append(item)
        return out

    def _play_seqs(self, state: MatchState, hand: Hand) -> dict[tuple[int, str], int]:
        out = {}
        for seq, ev in self._hand_events(state, hand):
            if ev.get("event") == "play":
                try:
                    out[(ev["seat"], CODES[card(ev["card"])])] = seq
                except (KeyError, ValueError):
                    continue
        return out

    def _deal_seq(self, state: MatchState, hand: Hand) -> int | None:
        events = self._hand_events(state, hand)
        return events[0][0] if events else None

    @staticmethod
    def face_up(hand: Hand) -> set[str]:
        """The cards of a hand that everyone has seen: those played to its tricks."""
        seen = {CODES[c] for t in hand.tricks for _, c in t.cards}
        if hand.trick is not None:
            seen |= {CODES[c] for _, c in hand.trick.cards}
        return seen

    def _public_calls(self, hand: Hand) -> list[dict[str, Any]]:
        """Proven, established calls only (suspicions are the director's); the proof card only once it is face up
        (a proof from the dealer's reads may still be in the player's hand)."""
        seen = self.face_up(hand)
        out = []
        shown = [(r.to_json(), {}) for r in hand.reneges if r.established]
        # Shown at once as today; a call that a wrong read had made is shown withdrawn, with the reason; a call held
        # for the director at the end is shown as not scored. Neither carries a penalty.
        shown += [(r.to_json(), {"held": True, "why": "not scored: it rests on a read the cards did not confirm; "
                                                      "the director decides"}) for r in hand.held]
        shown += [(dict({k: j.get(k) for k in ("seat", "trick", "card", "led", "proof") if k in j},
                        **({"kind": j["call"]} if j.get("call", "renege") != "renege" else {})),
                   {"withdrawn": True, "why": j.get("why", "a read it rested on was wrong")})
                  for j in hand.irregularities if j.get("kind") == "renege withdrawn"]
        for j, extra in shown:
            if j.get("proof") is not None and j["proof"] not in seen:
                j["proof"] = None
                j["proof_hidden"] = True
            out.append(dict(j, hand=hand.number, **extra))
        return out

    def public_state(self) -> dict[str, Any]:
        """What a spectator may see: scores, the contract, the cards played, the proven calls. No hidden card."""
        with self.lock:
            base: dict[str, Any] = {"devices": dict(self.devices), "seq": self.log.last_seq()}
            state = self.current
            if state is None:
                return dict(base, match=None)
            m = state.match
            view = m.public_view()
            hv = view["hand"]
            hv["reneges"] = self._public_calls(m.hand)
            history = []
            for h in m.hands:
                if not h.is_terminal():
                    continue
                history.append({
                    "number": h.number, "dealer": h.dealer, "declarer": h.declarer, "contract": h.contract,
                    "trump": hv_trump(h), "taken": h.final_taken, "score": h.score, "reneges": self._public_calls(h),
                })
            return dict(base, match=state.id, game=m.game, options=m.options, players=view["players"],
                        scores=view["scores"], winner=view["winner"], hand=hv, history=history,
                        to_deal=m.current_player() == CHANCE, dealer=m.hand.dealer)

    def director_state(self) -> dict[str, Any]:
        """Everything: the hands and every location, each call with its evidence, refusals, corrections, rulings."""
        with self.lock:
            base: dict[str, Any] = {"devices": dict(self.devices), "seq": self.log.last_seq()}
            state = self.current
            if state is None:
                return dict(base, match=None)
            m = state.match
            view = m.full_view()
            hand_events = self._hand_events(state, m.hand)
            return dict(
                base, match=state.id, game=m.game, players=view["players"], scores=view["scores"],
                winner=view["winner"], options=view["options"], hand=view["hand"],
                history=[h.result() for h in m.hands if h.is_terminal()], calls=self.calls(state),
                events=[{"seq": s, "event": e} for s, e in hand_events], refused=state.refused,
                corrections=state.corrections, rulings=state.rulings, legal=safe_legal(m),
                observations=state.observations[-20:],
                to_deal=m.current_player() == CHANCE, dealer=m.hand.dealer,
            )

    def record(self, match_id: int | None = None) -> list[dict[str, Any]]:
        """The table record (CONVENTIONS.md) of a match: its header and its effective events."""
        with self.lock:
            state = self.match_state(match_id)
            return [state.header, *state.events]

    def match_state(self, match_id: int | None = None) -> MatchState:
        with self.lock:
            if match_id is None or (self.current is not None and match_id == self.current.id):
                return self._need_match()
            header = self.log.get(match_id)
            if header is None or header.kind != "match":
                raise Refused(f"there is no match {match_id}", status=404)
            return self._replay(match_id, header.event, list(self.log.rows(match=match_id)))


def json_copy(event: dict[str, Any]) -> dict[str, Any]:
    import json

    copied: dict[str, Any] = json.loads(json.dumps(event))
    return copied


def safe_legal(m: Match) -> list[dict[str, Any]]:
    """The legal events (the director's hints), at most 60; none when the engine cannot list them because the
    events so far leave them undetermined (an ``IllegalEvent``). Any other failure is an engine bug and surfaces."""
    try:
        return m.legal_events()[:60]
    except IllegalEvent:
        return []


def hv_trump(h: Hand) -> str | None:
    return None if h.trump is None else SUITS[h.trump]
