"""The dealing machine's firmware, simulated: the protocol of docs/protocol.md on top of hardware/machine.py.

Three threads, as the real firmware has three loops: the receiver (frames in, sessions, acknowledgements,
the emergency stop, which it handles at once instead of queueing), the worker (one command at a time, from a
queue) and the ticker (heartbeats, and busy frames while the worker is in a long command).

What survives a power loss is kept in ``Nvram`` (the machine's FRAM): the unfinished deal, the last fault,
and the cache of recent replies, so a command id that was answered before the power failed is answered again,
not executed again. The session, the queue and the boot id live in RAM and are lost.
"""

from __future__ import annotations

import collections
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Protocol

from dealer_protocol.framing import FrameReader, encode_frame
from dealer_protocol.messages import (
    Ack,
    Busy,
    Capability,
    CardRead,
    Command,
    Fault,
    FaultDetail,
    Heartbeat,
    Hello,
    HelloReply,
    Message,
    MessageError,
    MsgType,
    Notice,
    NoticeMsg,
    Op,
    Reply,
    StateReport,
    parse_args_deal,
    parse_args_deal_file,
    parse_args_load,
    type_of,
)
from dealer_protocol.security import (
    PROTOCOL_VERSION,
    AuthError,
    Opener,
    ReplayError,
    Sealer,
    VersionError,
    derive_session,
    hello_keys,
    new_nonce,
    peek_type,
)
from hardware.channels import ChannelClosed
from hardware.machine import FaultKind, Machine, MechanismFault, Plan, PowerLoss

log = logging.getLogger(__name__)

# The at-most-once window (docs/protocol.md, Commands): the last ID_WINDOW command ids and, for each of them that
# has finished, its reply. One window for both: an id the device still knows is never run again (a reply cache
# smaller than the id memory let a DEAL id sent again after 70 other commands deal again).
ID_WINDOW = 128
REPLY_CACHE = ID_WINDOW
# HELLO nonces answered since the last power-on: a HELLO seen again is a replay (docs/protocol.md, HELLO).
HELLO_MEMORY = 64
# NOTICE frames: a burst, then a steady rate (per second); a flood of forged frames costs at most these.
NOTICE_BURST = 8
NOTICE_RATE = 2.0

KIND_TO_FAULT: dict[FaultKind, Fault] = {
    FaultKind.JAM: Fault.JAM,
    FaultKind.DOUBLE_FEED: Fault.DOUBLE_FEED,
    FaultKind.UNREADABLE: Fault.UNREADABLE,
    FaultKind.DUPLICATE: Fault.DUPLICATE_CARD,
    FaultKind.MISSING: Fault.MISSING_CARD,
    FaultKind.FOREIGN: Fault.FOREIGN_CARD,
    FaultKind.EXTRA: Fault.EXTRA_CARD,
    FaultKind.HOPPER_EMPTY: Fault.HOPPER_EMPTY,
    FaultKind.POCKET_COUNT: Fault.POCKET_COUNT,
    FaultKind.DOOR_OPEN: Fault.DOOR_OPEN,
    FaultKind.POWER_LOST: Fault.POWER_LOST,
    FaultKind.EMERGENCY_STOP: Fault.EMERGENCY_STOP,
}

CAPABILITIES = (
    Capability.SHUFFLE
    | Capability.DEAL_FILE
    | Capability.EMERGENCY_STOP
    | Capability.ENCRYPTED
    | Capability.RESUME
)


class Channel(Protocol):
    """What the firmware needs of its serial port."""

    def read(self, timeout: float) -> bytes: ...

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


@dataclass
class Nvram:
    """Non-volatile memory: what the machine still knows after a power loss."""

    plan: Plan | None = None
    plan_cmd: int = 0
    last_fault: Fault = Fault.OK
    last_fault_cmd: int = 0
    replies: collections.OrderedDict[int, Reply] = field(default_factory=collections.OrderedDict)
    # The commands behind those ids: an id sent again with other contents is a host bug, refused, not answered
    # with another command's reply.
    commands: collections.OrderedDict[int, Command] = field(default_factory=collections.OrderedDict)


@dataclass
class DeviceTiming:
    """Protocol timings of the firmware (seconds)."""

    heartbeat: float = 1.0
    busy: float = 0.25


class _Session:
    def __init__(self, sealer: Sealer, opener: Opener) -> None:
        self.sealer, self.opener = sealer, opener


class Device:
    """The simulated firmware. ``start(channel)`` runs it; ``stop()`` ends it."""

    def __init__(self, machine: Machine, pair_key: bytes, *, timing: DeviceTiming | None = None) -> None:
        self.machine = machine
        self.pair_key = pair_key
        self.timing = timing or DeviceTiming()
        self.nvram = Nvram()
        self._hello = hello_keys(pair_key)
        self._tx_lock = threading.Lock()
        self._cond = threading.Condition()
        self._running = False
        self._threads: list[threading.Thread] = []
        self.channel: Channel | None = None
        self.counters: collections.Counter[str] = collections.Counter()
        self._boot()

    # RAM, lost at every boot

    def _boot(self) -> None:
        self.boot_id = int.from_bytes(os.urandom(4), "big") or 1
        self.booted_at = time.monotonic()
        self.session: _Session | None = None
        self.queue: collections.deque[Command] = collections.deque()
        self.current: Command | None = None
        self.progress = (0, 0)
        self.reader = FrameReader()
        self.machine.stop_event.clear()
        self.hello_nonces: collections.OrderedDict[bytes, None] = collections.OrderedDict()
        self._notice_tokens = float(NOTICE_BURST)
        self._notice_at = time.monotonic()

    def power_cycle(self) -> None:
        """Cut the power: in the middle of a deal it strikes before the next card, else at once."""
        with self._cond:
            busy = self.current is not None
        if busy:
            self.machine.inject(FaultKind.POWER_LOST)
        else:
            self._lose_power()

    def _lose_power(self) -> None:
        with self._cond, self._tx_lock:
            if self.nvram.plan is not None:
                self.nvram.last_fault = Fault.POWER_LOST
                self.nvram.last_fault_cmd = self.nvram.plan_cmd
                self._cache(Reply(self.nvram.plan_cmd, Fault.POWER_LOST, FaultDetail(), self.state()))
            self.counters["power_lost"] += 1
            self._boot()
            self._cond.notify_all()

    # Running

    def start(self, channel: Channel) -> None:
        """Start the firmware's loops on ``channel``."""
        self.channel = channel
        self._running = True
        for name, target in (("rx", self._rx_loop), ("worker", self._work_loop), ("ticker", self._tick_loop)):
            t = threading.Thread(target=target, name=f"dealer-{name}", daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self) -> None:
        """Stop the loops (the channel stays open; its owner closes it)."""
        self._running = False
        self.machine.stop_event.set()
        with self._cond:
            self._cond.notify_all()
        for t in self._threads:
            t.join(timeout=5)
        self._threads = []

    def _rx_loop(self) -> None:
        assert self.channel is not None
        while self._running:
            try:
                data = self.channel.read(0.05)
            except ChannelClosed:
                return
            if not data:
                continue
            for body in self.reader.feed(data):
                try:
                    self._on_frame(body)
                except ChannelClosed:
                    return
                except Exception:  # a bug in one frame's handling must not kill the firmware
                    log.exception("dealer firmware: frame handling failed")

    def _tick_loop(self) -> None:
        last_hb = last_busy = 0.0
        while self._running:
            time.sleep(min(self.timing.busy, self.timing.heartbeat) / 4)
            now = time.monotonic()
            with self._cond:
                current, progress = self.current, self.progress
            try:
                if current is not None and now - last_busy >= self.timing.busy:
                    last_busy = now
                    self._send(Busy(current.cmd_id, *progress))
                if now - last_hb >= self.timing.heartbeat:
                    last_hb = now
                    uptime = int((now - self.booted_at) * 1000)
                    self._send(Heartbeat(uptime, current.cmd_id if current else 0))
            except ChannelClosed:
                return

    # Frames in

    def _on_frame(self, body: bytes) -> None:
        if peek_type(body) == MsgType.HELLO:
            self._on_hello(body)
            return
        session = self.session
        if session is None:
            self._notice(Notice.NO_SESSION)
            return
        try:
            msg_type, _seq, payload = session.opener.open(body)
        except ReplayError:
            self._notice(Notice.REPLAYED)
            return
        except (AuthError, VersionError):
            self._notice(Notice.AUTH_FAILED)
            return
        if msg_type != MsgType.COMMAND:
            self._notice(Notice.MALFORMED)
            return
        try:
            cmd = Command.decode(payload)
        except MessageError:
            self._notice(Notice.MALFORMED)
            return
        self._on_command(cmd)

    def _on_hello(self, body: bytes) -> None:
        try:
            _t, _s, payload = Opener(self._hello, check_replay=False).open(body)
            hello = Hello.decode(payload)
        except (AuthError, VersionError, MessageError):
            self._notice(Notice.AUTH_FAILED)
            return
        if hello.version != PROTOCOL_VERSION:
            self._notice(Notice.MALFORMED)
            return
        if hello.host_nonce in self.hello_nonces:
            # A HELLO answered before, sent again: a replay (a real host makes a new nonce for every HELLO). It
            # must not end the session in use: a replayed HELLO every 0.5 s kept the machine unusable.
            self.counters["hellos_replayed"] += 1
            self._notice(Notice.REPLAYED)
            return
        self.hello_nonces[hello.host_nonce] = None
        while len(self.hello_nonces) > HELLO_MEMORY:
            self.hello_nonces.popitem(last=False)
        device_nonce = new_nonce()
        keys = derive_session(self.pair_key, hello.host_nonce, device_nonce, self.boot_id)
        reply = HelloReply(
            PROTOCOL_VERSION,
            CAPABILITIES,
            self.machine.n_pockets,
            self.boot_id,
            hello.host_nonce,
            device_nonce,
        )
        with self._tx_lock:
            self.session = _Session(Sealer(keys.device_to_host), Opener(keys.host_to_device))
            self._write(Sealer(self._hello).seal(MsgType.HELLO_REPLY, reply.encode(), seq=0))
        self.counters["sessions"] += 1
        self._send(self.state())

    def _on_command(self, cmd: Command) -> None:
        with self._cond:
            known = self.nvram.commands.get(cmd.cmd_id)
            cached = self.nvram.replies.get(cmd.cmd_id)
            if known is not None and known != cmd:
                self.counters["ids_reused"] += 1
                why = f"command id {cmd.cmd_id} was already used for another command"
                cached = Reply(cmd.cmd_id, Fault.BAD_COMMAND, FaultDetail(reason=why), None)
            elif cached is not None:
                self.counters["replies_repeated"] += 1
            elif cmd.op is Op.STOP:
                cached = self._emergency_stop(cmd)
            elif (self.current is not None and self.current.cmd_id == cmd.cmd_id) or any(
                q.cmd_id == cmd.cmd_id for q in self.queue
            ):
                self.counters["acks_repeated"] += 1
            else:
                self._remember(cmd)
                self.queue.append(cmd)
                self._cond.notify_all()
            # (answered before the lock is let go: the worker needs it to take the command, so the Ack goes out
            # before any card the command deals, as the real firmware's one loop acknowledges a command before its
            # mechanism loop starts it. Sent after, a loaded machine's receiver thread lost the race and a card read
            # came before its command's Ack)
            self._send(cached if cached is not None else Ack(cmd.cmd_id, min(len(self.queue), 255)))

    def _remember(self, cmd: Command) -> None:
        self.nvram.commands[cmd.cmd_id] = cmd
        while len(self.nvram.commands) > ID_WINDOW:
            old_id, _ = self.nvram.commands.popitem(last=False)
            # The id leaves the window with its reply: the two memories always agree on what is known.
            self.nvram.replies.pop(old_id, None)

    def _emergency_stop(self, cmd: Command) -> Reply:
        # Called with the lock held: the stop jumps the queue and cancels what waits in it.
        self._remember(cmd)
        cancelled = list(self.queue)
        self.queue.clear()
        if self.current is not None:
            self.machine.stop_event.set()
        for q in cancelled:
            self._cache(Reply(q.cmd_id, Fault.CANCELLED, FaultDetail(), None))
        reply = Reply(cmd.cmd_id, Fault.OK, FaultDetail(count=len(cancelled)), None)
        self._cache(reply)
        self.counters["emergency_stops"] += 1
        for q in cancelled:
            self._send(self.nvram.replies[q.cmd_id])
        return reply

    # Frames out

    def _write(self, frame_body: bytes) -> None:
        assert self.channel is not None
        self.channel.write(encode_frame(frame_body))

    def _send(self, msg: Message) -> None:
        with self._tx_lock:
            session = self.session
            if session is None:
                return
            self._write(session.sealer.seal(type_of(msg), msg.encode()))

    def _notice(self, code: Notice) -> None:
        self.counters[f"notice_{code.name.lower()}"] += 1
        now = time.monotonic()
        self._notice_tokens = min(NOTICE_BURST, self._notice_tokens + (now - self._notice_at) * NOTICE_RATE)
        self._notice_at = now
        if self._notice_tokens < 1:
            # Counted, not sent: a flood of forged frames must not become a flood of answers on the link.
            self.counters["notices_held_back"] += 1
            return
        self._notice_tokens -= 1
        msg = NoticeMsg(code, self.counters[f"notice_{code.name.lower()}"])
        if code is Notice.NO_SESSION or self.session is None:
            # No session keys to sign with: the notice is signed with the HELLO key (it tells no secret).
            with self._tx_lock:
                self._write(Sealer(self._hello).seal(MsgType.NOTICE, msg.encode(), seq=0))
        else:
            self._send(msg)

    def _cache(self, reply: Reply) -> None:
        self.nvram.replies[reply.cmd_id] = reply
        while len(self.nvram.replies) > REPLY_CACHE:
            self.nvram.replies.popitem(last=False)

    # The worker

    def _work_loop(self) -> None:
        while self._running:
            with self._cond:
                while self._running and not self.queue:
                    self._cond.wait(0.1)
                if not self._running:
                    return
                cmd = self.queue.popleft()
                self.current = cmd
                self.progress = (0, 0)
                boot = self.boot_id
            try:
                reply = self._execute(cmd)
            except PowerLoss:
                self._lose_power()
                continue
            except MessageError as exc:
                log.info("dealer firmware: command %d refused: %s", cmd.cmd_id, exc)
                reply = Reply(cmd.cmd_id, Fault.BAD_COMMAND, FaultDetail(reason=str(exc)), self.state())
            with self._cond:
                if self.boot_id != boot:
                    continue
                self.current = None
                self.machine.stop_event.clear()
                self._cache(reply)
            try:
                self._send(reply)
            except ChannelClosed:
                return

    def state(self) -> StateReport:
        """The full state report."""
        m = self.machine
        with m.lock:
            plan = self.nvram.plan
            return StateReport(
                boot_id=self.boot_id,
                hopper=min(len(m.hopper), 255),
                door_open=m.door_open,
                deck_verified=m.expected is not None,
                last_fault=self.nvram.last_fault,
                last_fault_cmd=self.nvram.last_fault_cmd,
                plan_cmd=self.nvram.plan_cmd if plan else 0,
                plan_remaining=tuple(plan.remaining) if plan else (),
                pockets=tuple(tuple(c.face for c in p) for p in m.pockets),
                reject=tuple(None if c.back != "cardref-blue" else c.face for c in m.reject),
            )

    def _reply(
        self, cmd: Command, status: Fault = Fault.OK, detail: FaultDetail | None = None, *, state: bool = True
    ) -> Reply:
        if status is not Fault.OK and status < Fault.BAD_COMMAND:
            self.nvram.last_fault, self.nvram.last_fault_cmd = status, cmd.cmd_id
        # Deal, status and fault replies carry the whole state; a clean LOAD or SHUFFLE has nothing to add
        # (a short reply also gets through a noisy line more often).
        with_state = state or status is not Fault.OK
        return Reply(cmd.cmd_id, status, detail or FaultDetail(), self.state() if with_state else None)

    def _execute(self, cmd: Command) -> Reply:
        op, m = cmd.op, self.machine
        if op is Op.PING:
            return Reply(cmd.cmd_id, Fault.OK)
        if op is Op.STATUS:
            return self._reply(cmd)
        if op is Op.ABORT:
            self.nvram.plan = None
            return self._reply(cmd)
        if op is Op.RESUME:
            if self.nvram.plan is None:
                return self._reply(cmd, Fault.NOTHING_TO_RESUME)
            m.operator_resumes()
            return self._run(cmd, self.nvram.plan)
        if self.nvram.plan is not None:
            return self._reply(cmd, Fault.FAULT_PENDING)
        if op is Op.LOAD:
            expected = parse_args_load(cmd.args)
            m.operator_loads()
            check = m.verify(expected, lambda done, total: self._progress(done, total))
            worst = check.worst()
            detail = FaultDetail(
                count=check.count,
                missing=tuple(check.missing),
                extra=tuple(check.extra),
                duplicate=tuple(check.duplicate),
                foreign=tuple(check.foreign),
            )
            return self._reply(cmd, KIND_TO_FAULT[worst] if worst else Fault.OK, detail, state=False)
        if m.expected is None:
            return self._reply(cmd, Fault.NOT_LOADED)
        if op is Op.SHUFFLE:
            self._progress(0, len(m.hopper))
            m.shuffle()
            return self._reply(cmd, state=False)
        plan = self._plan(cmd)
        if isinstance(plan, Reply):
            return plan
        return self._run(cmd, plan)

    def _plan(self, cmd: Command) -> Plan | Reply:
        m, n = self.machine, self.machine.n_pockets
        hopper = len(m.hopper)

        def bad(why: str) -> Reply:
            log.info("dealer firmware: command %d refused: %s", cmd.cmd_id, why)
            return self._reply(cmd, Fault.BAD_COMMAND, FaultDetail(reason=why))

        if cmd.op is Op.DEAL:
            counts = parse_args_deal(cmd.args)
            if len(counts) > n:
                return bad(f"{len(counts)} pockets named, the machine has {n}")
            remaining = list(counts) + [0] * (n - len(counts))
            plan = Plan(remaining)
        elif cmd.op in (Op.DEAL_MORE, Op.DEAL_REST):
            if len(cmd.args) != (2 if cmd.op is Op.DEAL_MORE else 1):
                return bad("wrong argument length")
            pocket = cmd.args[0]
            if pocket >= n:
                return bad(f"pocket {pocket} does not exist")
            remaining = [0] * n
            remaining[pocket] = cmd.args[1] if cmd.op is Op.DEAL_MORE else hopper
            plan = Plan(remaining)
        elif cmd.op is Op.DEAL_FILE:
            pairs = parse_args_deal_file(cmd.args)
            faces = [c for c, _ in pairs]
            if None in faces or len(set(faces)) != len(faces):
                return bad("a deal file names each card once")
            if any(p >= n for _, p in pairs):
                return bad("a deal file names a pocket the machine does not have")
            remaining = [0] * n
            for _, p in pairs:
                remaining[p] += 1
            plan = Plan(remaining, file_map={c: p for c, p in pairs if c is not None})
        else:
            return bad(f"opcode {cmd.op.name} is not a deal")
        if plan.total() > hopper:
            return bad(f"the deal needs {plan.total()} cards, the hopper holds {hopper}")
        return plan

    def _progress(self, done: int, total: int) -> None:
        with self._cond:
            self.progress = (done, total)

    def _run(self, cmd: Command, plan: Plan) -> Reply:
        self.nvram.plan, self.nvram.plan_cmd = plan, cmd.cmd_id
        total = plan.total()
        index = 0
        while plan.total() > 0:
            try:
                pocket, card = self.machine.deal_one(plan)
            except MechanismFault as fault:
                detail = FaultDetail(
                    pocket=fault.pocket,
                    card=fault.card,
                    count=fault.count,
                    missing=tuple(fault.cards) if fault.kind is FaultKind.MISSING else (),
                )
                log.info("dealer firmware: command %d stopped: %s", cmd.cmd_id, fault.kind.value)
                return self._reply(cmd, KIND_TO_FAULT[fault.kind], detail)
            self._send(CardRead(cmd.cmd_id, index, pocket, card.face))
            index += 1
            self._progress(total - plan.total(), total)
        self.nvram.plan = None
        return self._reply(cmd)
