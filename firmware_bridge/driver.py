"""The host driver of the dealing machine: an asyncio core, in the manner of python-chess's ``chess.engine``.

``await Dealer.open(port, key)`` opens any pyserial URL or device path, says HELLO, and keeps the link up:
a supervisor task watches for an unplug (the port fails) or silence (no valid frame, heartbeats included,
for ``Timeouts.silence``), closes the port, and reopens it with exponential backoff, then says HELLO again
and reads the device's state report. Commands in flight survive this: each is retransmitted with the same
id, and the device answers an id it has already executed with the same reply, so nothing is executed twice;
the host resumes from the device's state rather than replaying. A device reset (its boot id changes) is
noticed and counted; the device's non-volatile memory answers for a deal the power cut.

Every wait has a timeout. Every fault reply raises its own exception (firmware_bridge.errors).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from dealer_protocol.cards import parse_card
from dealer_protocol.framing import FrameReader, encode_frame
from dealer_protocol.messages import (
    Ack,
    Busy,
    CardRead,
    Command,
    Fault,
    Heartbeat,
    Hello,
    HelloReply,
    MessageError,
    MsgType,
    Notice,
    NoticeMsg,
    Op,
    Reply,
    StateReport,
    args_deal,
    args_deal_file,
    args_deal_more,
    args_deal_rest,
    args_load,
    decode_message,
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
from firmware_bridge.errors import (
    DealerError,
    DealerTimeout,
    LinkError,
    ProtocolError,
    WrongKeyError,
    fault_error,
)
from firmware_bridge.transport import LinkLost, Transport, transport_for

log = logging.getLogger(__name__)

# A refused frame is worth one warning line, not one per frame: a flood of forged frames wrote 11,803 lines.
WARN_EVERY = 10.0  # seconds between two lines of the same kind; the frames between are counted in the next


class QuietLog:
    """Warnings of one kind at most once per ``every`` seconds, each saying how many were held back since."""

    def __init__(self, every: float = WARN_EVERY) -> None:
        self.every = every
        self._last: dict[str, float] = {}
        self._held: collections.Counter[str] = collections.Counter()

    def warning(self, kind: str, text: str) -> None:
        now = time.monotonic()
        if now - self._last.get(kind, -1e9) < self.every:
            self._held[kind] += 1
            return
        held = self._held.pop(kind, 0)
        self._last[kind] = now
        log.warning("%s%s", text, f" (and {held} more like it in the last {self.every:.0f} s)" if held else "")


@dataclass(frozen=True)
class Timeouts:
    """Every wait of the driver, in seconds."""

    ack: float = 0.3  # a command's first acknowledgement, before it is sent again
    progress: float = 2.0  # between busy/card frames of a running command, before asking again
    hello: float = 0.5  # the HELLO reply and the state report that follows it
    silence: float = 3.5  # no valid frame at all (heartbeats come every second): the link is dead
    command: float = 600.0  # one command from first send to reply, mechanical work included
    connect: float = 30.0  # one (re)connection, backoff included
    backoff_initial: float = 0.05
    backoff_max: float = 2.0

    @classmethod
    def fast(cls) -> Timeouts:
        """For the simulator's fast mode (heartbeat every 0.1 s, busy frames every 0.02 s)."""
        return cls(
            ack=0.02,
            progress=0.06,
            hello=0.15,
            silence=0.8,
            command=60.0,
            connect=20.0,
            backoff_initial=0.01,
            backoff_max=0.2,
        )


@dataclass(frozen=True)
class DeviceInfo:
    """What HELLO told us."""

    version: int
    capabilities: int
    pockets: int
    boot_id: int


@dataclass(frozen=True)
class DealResult:
    """What the pockets hold after a deal command, from the device's own state report."""

    cmd_id: int
    pockets: tuple[tuple[str | None, ...], ...] = field(repr=False)
    state: StateReport = field(repr=False)
    # (pocket, card) as reported card by card, this command only
    reads: tuple[tuple[int, str | None], ...] = field(repr=False)


@dataclass
class _Pending:
    cmd: Command
    queue: asyncio.Queue[object] = field(default_factory=asyncio.Queue)
    reads: dict[int, tuple[int, str | None]] = field(default_factory=dict)


_LINK_DOWN = object()
_IDLE = object()  # a heartbeat says the device is idle: an acknowledged command's reply was lost
_CLOSED = object()  # the driver is being closed


class Dealer:
    """The asyncio driver. Make one with ``await Dealer.open(...)``; ``await dealer.close()`` at the end."""

    def __init__(self, transport: Transport, pair_key: bytes, *, timeouts: Timeouts | None = None) -> None:
        self.transport = transport
        self.pair_key = pair_key
        self.timeouts = timeouts or Timeouts()
        self.info: DeviceInfo | None = None
        self.state: StateReport | None = None
        self.stats: collections.Counter[str] = collections.Counter()
        self._quiet = QuietLog()
        self._hello_keys = hello_keys(pair_key)
        self._sealer: Sealer | None = None
        self._opener: Opener | None = None
        self._reader = FrameReader()
        self._pending: dict[int, _Pending] = {}
        self._next_id = random.getrandbits(31) + 1  # ids of another host process do not collide
        self._card_listeners: list[Callable[[int, int, str | None], None]] = []
        self._busy_listeners: list[Callable[[int, int, int], None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._up = asyncio.Event()
        self._down = asyncio.Event()
        self._hello_waiter: tuple[bytes, asyncio.Future[HelloReply]] | None = None
        self._state_event = asyncio.Event()
        self._last_rx = 0.0
        self._generation = 0
        self._reader_thread: threading.Thread | None = None
        self._supervisor: asyncio.Task[None] | None = None
        self._closing = False
        self._closed = asyncio.Event()

    # Opening and closing

    @classmethod
    async def open(
        cls, port: str | Transport, pair_key: bytes, *, timeouts: Timeouts | None = None
    ) -> Dealer:
        """Open ``port`` (a pyserial URL or device path, or a Transport), connect, read the state."""
        transport = transport_for(port) if isinstance(port, str) else port
        dealer = cls(transport, pair_key, timeouts=timeouts)
        await dealer._start()
        return dealer

    async def _start(self) -> None:
        self._loop = asyncio.get_running_loop()
        try:
            await self._connect(self._loop.time() + self.timeouts.connect)
        except BaseException:
            self._stop_reader()
            self.transport.close()
            raise
        self._supervisor = asyncio.create_task(self._supervise(), name="dealer-supervisor")

    async def close(self) -> None:
        """Stop the supervisor and close the port."""
        self._closing = True
        self._closed.set()
        for pend in self._pending.values():
            pend.queue.put_nowait(_CLOSED)
        if self._supervisor is not None:
            self._supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._supervisor
        self._stop_reader()
        self.transport.close()

    async def __aenter__(self) -> Dealer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def on_card(self, listener: Callable[[int, int, str | None], None]) -> None:
        """Call ``listener(cmd_id, pocket, card)`` for each card read, as it is reported (once per card)."""
        self._card_listeners.append(listener)

    def on_busy(self, listener: Callable[[int, int, int], None]) -> None:
        """Call ``listener(cmd_id, done, total)`` for each progress report of a long command (the deck check, the
        shuffle, a deal: the machine sends one a few times a second), so a program can show how far it is."""
        self._busy_listeners.append(listener)

    # The link

    def _start_reader(self) -> None:
        self._generation += 1
        generation, loop, transport = self._generation, self._loop, self.transport
        assert loop is not None

        def run() -> None:
            while generation == self._generation:
                try:
                    data = transport.read(0.05)
                except LinkLost as exc:
                    if generation == self._generation:
                        loop.call_soon_threadsafe(self._link_lost, generation, str(exc))
                    return
                if data and generation == self._generation:
                    try:
                        loop.call_soon_threadsafe(self._on_bytes, generation, data)
                    except RuntimeError:  # the loop is closed: the driver is gone
                        return

        self._reader_thread = threading.Thread(target=run, name="dealer-reader", daemon=True)
        self._reader_thread.start()

    def _stop_reader(self) -> None:
        self._generation += 1
        thread, self._reader_thread = self._reader_thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=1.0)  # the reader wakes every 50 ms, so this is short

    def _link_lost(self, generation: int, why: str) -> None:
        if generation != self._generation:
            return
        log.warning("dealing machine link lost: %s", why)
        self._mark_down()

    def _mark_down(self) -> None:
        if self._up.is_set() or not self._down.is_set():
            self.stats["link_down"] += 1
        self._up.clear()
        self._down.set()
        self._sealer = self._opener = None
        for pend in self._pending.values():
            pend.queue.put_nowait(_LINK_DOWN)

    async def _connect(self, deadline: float) -> None:
        loop = asyncio.get_running_loop()
        backoff = self.timeouts.backoff_initial
        last_error = "no attempt"
        first = True  # (the probe for old firmware is made on this call's first attempt only)
        while True:
            if loop.time() >= deadline:
                raise LinkError(f"cannot reach the dealing machine on {self.transport.name}: {last_error}")
            try:
                await asyncio.to_thread(self.transport.open)
                self._reader = FrameReader()
                self._down.clear()
                self._start_reader()
                await self._handshake(deadline, probe_old=first)
                return
            except LinkLost as exc:
                last_error = str(exc)
            except DealerTimeout as exc:
                last_error = str(exc)
            except BaseException:
                self._up.clear()
                self._sealer = self._opener = None
                raise
            self._up.clear()
            self._sealer = self._opener = None
            self._stop_reader()
            self.transport.close()
            self.stats["connect_retries"] += 1
            await asyncio.sleep(min(backoff, max(0.0, deadline - loop.time())) * random.uniform(0.8, 1.2))
            backoff = min(backoff * 2, self.timeouts.backoff_max)
            first = False

    async def _handshake(self, deadline: float, *, probe_old: bool = False) -> None:
        loop = asyncio.get_running_loop()
        reply: HelloReply | None = None
        bad_tags = self.stats["refused_auth"]
        for _ in range(5):
            nonce = new_nonce()
            future: asyncio.Future[HelloReply] = loop.create_future()
            self._hello_waiter = (nonce, future)
            hello = Hello(PROTOCOL_VERSION, nonce).encode()
            self._write(Sealer(self._hello_keys).seal(MsgType.HELLO, hello, seq=0))
            wait = min(self.timeouts.hello, max(0.001, deadline - loop.time()))
            try:
                reply = await asyncio.wait_for(future, wait)
                break
            except TimeoutError:
                self.stats["hello_retries"] += 1
            finally:
                self._hello_waiter = None
            if self._down.is_set():
                raise LinkLost("link lost during HELLO")
        if reply is None:
            if self.stats["refused_auth"] > bad_tags:
                # The machine answered (its "authentication failed" notices came back), but under a key this host
                # does not hold: the pairing key is wrong, which no retry mends.
                raise WrongKeyError(f"the dealing machine on {self.transport.name} answers, but its pairing key is "
                                    "not this host's: give the machine's key (--dealer-key), or pair them again")
            # Once per connection attempt, not on every retry: an old machine answers the first probe, and each
            # probe costs a HELLO window.
            if probe_old and await self._answers_old_protocol():
                raise ProtocolError(f"the dealing machine on {self.transport.name} runs firmware of protocol version "
                                    f"1, older than this referee's ({PROTOCOL_VERSION}): flash the firmware that "
                                    "comes with this version (hardware/README.md, 'Pairing and flashing')")
            raise DealerTimeout(f"no HELLO reply from {self.transport.name}")
        if reply.version != PROTOCOL_VERSION:
            raise ProtocolError(f"device speaks protocol {reply.version}, this driver {PROTOCOL_VERSION}")
        keys = derive_session(self.pair_key, nonce, reply.device_nonce, reply.boot_id)
        self._state_event.clear()
        self._sealer, self._opener = Sealer(keys.host_to_device), Opener(keys.device_to_host)
        if self.info is not None:
            self.stats["reconnects"] += 1
        if self.info is not None and self.info.boot_id != reply.boot_id:
            self.stats["device_resets"] += 1
            log.warning("dealing machine was reset (boot id changed); resuming from its state report")
        self.info = DeviceInfo(reply.version, reply.capabilities, reply.pockets, reply.boot_id)
        self._last_rx = loop.time()
        self._up.set()
        self.stats["sessions"] += 1
        try:
            await asyncio.wait_for(self._state_event.wait(), self.timeouts.hello)
        except TimeoutError:
            # The unsolicited state report was lost on the wire: ask for it.
            await self._call(Op.STATUS, connecting=True)

    async def _supervise(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._closing:
            try:
                await asyncio.wait_for(self._down.wait(), self.timeouts.silence / 4)
            except TimeoutError:
                if loop.time() - self._last_rx > self.timeouts.silence:
                    log.warning("dealing machine silent for %.1f s; reconnecting", self.timeouts.silence)
                    self.stats["silences"] += 1
                    self._mark_down()
                continue
            self._stop_reader()
            self.transport.close()
            try:
                await self._connect(loop.time() + self.timeouts.connect)
            except DealerError as exc:
                log.warning("dealing machine: reconnect failed (%s); trying again", exc)
                self._down.set()
                await asyncio.sleep(self.timeouts.backoff_max)
            except Exception:
                log.exception("dealing machine: reconnect failed unexpectedly; trying again")
                self._down.set()
                await asyncio.sleep(self.timeouts.backoff_max)

    async def _answers_old_protocol(self) -> bool:
        """Whether the silent device speaks protocol version 1 (a frame CRC without a final XOR), which drops this
        host's frames as line noise: one HELLO framed and numbered as version 1 did, and whether a HELLO_REPLY signed
        with this host's pairing key comes back in version 1's framing. Only after every HELLO went unanswered, so a
        current device never sees it."""
        probe = Sealer(self._hello_keys).seal(MsgType.HELLO, Hello(1, new_nonce()).encode(), seq=0, version=1)
        self._reader.old_bodies.clear()
        try:
            self.transport.write(encode_frame(probe, version=1))
        except LinkLost:
            return False
        opener = Opener(self._hello_keys, check_replay=False)
        loop = asyncio.get_running_loop()
        until = loop.time() + self.timeouts.hello
        while True:
            old = self._reader.old_bodies
            while old:  # (each version-1 frame checked once, as it comes)
                try:
                    msg_type, _seq, _payload = opener.open(old.popleft())
                except AuthError:
                    continue
                if msg_type == MsgType.HELLO_REPLY:  # (not the probe itself, echoed by a loopback)
                    return True
            if loop.time() >= until or self._down.is_set():
                return False
            await asyncio.sleep(0.01)

    def _write(self, body: bytes) -> None:
        try:
            self.transport.write(encode_frame(body))
        except LinkLost as exc:
            self._link_lost(self._generation, str(exc))

    # Frames in

    def _on_bytes(self, generation: int, data: bytes) -> None:
        if generation != self._generation:
            return
        for body in self._reader.feed(data):
            self._on_frame(body)
        self.stats["frames_bad"] = self._reader.frames_bad

    def _on_frame(self, body: bytes) -> None:
        kind = peek_type(body)
        try:
            if kind in (MsgType.HELLO_REPLY, MsgType.NOTICE) and body[2:6] == b"\0\0\0\0":
                msg_type, _seq, payload = Opener(self._hello_keys, check_replay=False).open(body)
            elif self._opener is not None:
                msg_type, _seq, payload = self._opener.open(body)
            else:
                return  # no session yet: a stale frame of an earlier one
            msg = decode_message(msg_type, payload)
        except ReplayError:
            self.stats["refused_replayed"] += 1
            self._quiet.warning("replayed", "dealing machine link: refused a replayed frame")
            return
        except (AuthError, VersionError):
            self.stats["refused_auth"] += 1
            self._quiet.warning("auth", "dealing machine link: refused a frame with a bad tag")
            return
        except MessageError as exc:
            self.stats["refused_malformed"] += 1
            self._quiet.warning("malformed", f"dealing machine link: malformed frame: {exc}")
            return
        assert self._loop is not None
        self._last_rx = self._loop.time()
        self._dispatch(msg)

    def _dispatch(self, msg: object) -> None:
        if isinstance(msg, HelloReply):
            waiter = self._hello_waiter
            if waiter is not None and msg.host_nonce == waiter[0] and not waiter[1].done():
                waiter[1].set_result(msg)
            else:
                self.stats["refused_stale_hello"] += 1
        elif isinstance(msg, StateReport):
            self.state = msg
            self._state_event.set()
        elif isinstance(msg, NoticeMsg):
            self.stats[f"notice_{msg.code.name.lower()}"] += 1
            self._quiet.warning(f"notice {msg.code.name}",
                                f"dealing machine refused a frame: {msg.code.name.lower()}")
            if msg.code is Notice.NO_SESSION and self._up.is_set():
                self._mark_down()
        elif isinstance(msg, Heartbeat):
            self.stats["heartbeats"] += 1
            if msg.busy_cmd == 0:
                for waiting in self._pending.values():
                    waiting.queue.put_nowait(_IDLE)
        elif isinstance(msg, Ack | Busy | CardRead | Reply):
            pend = self._pending.get(msg.cmd_id)
            if pend is None:
                self.stats["frames_for_no_command"] += 1
                return
            if isinstance(msg, CardRead) and msg.index not in pend.reads:
                pend.reads[msg.index] = (msg.pocket, msg.card)
                for listener in self._card_listeners:
                    listener(msg.cmd_id, msg.pocket, msg.card)
            if isinstance(msg, Busy):
                for progress in self._busy_listeners:
                    progress(msg.cmd_id, msg.done, msg.total)
            pend.queue.put_nowait(msg)

    # Commands

    def _new_id(self) -> int:
        self._next_id = (self._next_id % 0xFFFFFFFF) + 1
        return self._next_id

    async def _wait_up(self, deadline: float) -> None:
        loop = asyncio.get_running_loop()
        if self._closing:
            raise LinkError("the driver is closed")
        if self._up.is_set():
            return
        up = asyncio.ensure_future(self._up.wait())
        closed = asyncio.ensure_future(self._closed.wait())
        try:
            await asyncio.wait(
                {up, closed}, timeout=max(0.0, deadline - loop.time()), return_when="FIRST_COMPLETED"
            )
        finally:
            up.cancel()
            closed.cancel()
        if self._closing:
            raise LinkError("the driver was closed while a command waited for the link")
        if not self._up.is_set():
            raise DealerTimeout(f"the dealing machine on {self.transport.name} did not come back")

    async def _call(
        self,
        op: Op,
        args: bytes = b"",
        *,
        connecting: bool = False,
        timeout: float | None = None,
        reads: dict[int, tuple[int, str | None]] | None = None,
    ) -> Reply:
        loop = asyncio.get_running_loop()
        cmd = Command(self._new_id(), op, args)
        pend = _Pending(cmd, reads=reads if reads is not None else {})
        self._pending[cmd.cmd_id] = pend
        deadline = loop.time() + (timeout or self.timeouts.command)
        sends = 0
        acked = False
        quiet = 0  # sends in a row that brought no answer at all
        wait = self.timeouts.ack
        try:
            while True:
                if not connecting:
                    await self._wait_up(deadline)
                elif self._sealer is None:
                    raise LinkLost("link lost while connecting")
                assert self._sealer is not None
                self._write(self._sealer.seal(MsgType.COMMAND, cmd.encode()))
                sends += 1
                if sends > 1:
                    self.stats["retransmits"] += 1
                while True:
                    remaining = deadline - loop.time()
                    if remaining <= 0:
                        raise DealerTimeout(f"no reply to {op.name} {cmd.cmd_id} within its time limit")
                    try:
                        event = await asyncio.wait_for(pend.queue.get(), min(wait, remaining))
                    except TimeoutError:
                        # Nothing heard: the command or its answer was lost. Ask again with the same id; a
                        # repeated id is answered at once (ack, busy or the cached reply), so wait briefly.
                        quiet += 1
                        wait = min(self.timeouts.ack * 1.25**quiet, self.timeouts.progress)
                        break
                    if event is _CLOSED:
                        raise LinkError(f"the driver was closed while {op.name} {cmd.cmd_id} waited")
                    if event is _LINK_DOWN:
                        if connecting:
                            raise LinkLost("link lost while connecting")
                        quiet, wait = 0, self.timeouts.ack
                        break
                    if event is _IDLE:
                        if acked:
                            wait = self.timeouts.ack
                            break  # the device finished, and its reply never arrived: ask again now
                        continue
                    if isinstance(event, Reply):
                        return self._finish(op, event)
                    acked, quiet = True, 0
                    wait = self.timeouts.progress  # acknowledged: now the mechanism's pace sets the wait
        finally:
            del self._pending[cmd.cmd_id]

    def _finish(self, op: Op, reply: Reply) -> Reply:
        if reply.state is not None:
            self.state = reply.state
        if reply.status is not Fault.OK:
            self.stats[f"fault_{reply.status.name.lower()}"] += 1
            raise fault_error(reply, op.name)
        return reply

    async def _deal_call(self, op: Op, args: bytes) -> DealResult:
        reads: dict[int, tuple[int, str | None]] = {}
        reply = await self._call(op, args, reads=reads)
        assert reply.state is not None
        in_order = tuple(reads[i] for i in sorted(reads))
        return DealResult(reply.cmd_id, reply.state.pockets, reply.state, in_order)

    # The commands

    async def ping(self) -> None:
        """A round trip with no mechanical work."""
        await self._call(Op.PING)

    async def status(self) -> StateReport:
        """The device's full state report."""
        reply = await self._call(Op.STATUS)
        assert reply.state is not None
        return reply.state

    async def load(self, expected: list[str]) -> int:
        """Load the deck in the hopper and verify it card by card against ``expected`` (empty: count only).

        Returns the number of cards read; a DeckError names what is missing, extra, duplicate or foreign.
        """
        reply = await self._call(Op.LOAD, args_load([parse_card(c) for c in expected]))
        return reply.detail.count

    async def shuffle(self) -> None:
        """Shuffle the hopper."""
        await self._call(Op.SHUFFLE)

    async def deal(self, counts: tuple[int, ...] | list[int]) -> DealResult:
        """Deal ``counts[p]`` cards to pocket ``p``."""
        if any(not 0 <= c <= 255 for c in counts):
            raise ValueError(f"pocket counts must be within 0..255: {list(counts)}")
        return await self._deal_call(Op.DEAL, args_deal(counts))

    async def deal_more(self, pocket: int, count: int) -> DealResult:
        """Deal ``count`` more cards to ``pocket`` (Pitch refill)."""
        return await self._deal_call(Op.DEAL_MORE, args_deal_more(pocket, count))

    async def deal_rest(self, pocket: int) -> DealResult:
        """Deal every card left in the hopper to ``pocket`` (Pitch rob)."""
        return await self._deal_call(Op.DEAL_REST, args_deal_rest(pocket))

    async def deal_file(self, assignments: list[tuple[str, int]]) -> DealResult:
        """Deal each named card to its named pocket (the same board at many tables)."""
        pairs = [(parse_card(c), p) for c, p in assignments]
        return await self._deal_call(Op.DEAL_FILE, args_deal_file(pairs))

    async def resume(self) -> DealResult:
        """Continue the deal a fault interrupted (after the operator has fixed the cause)."""
        return await self._deal_call(Op.RESUME, b"")

    async def abort(self) -> StateReport:
        """Give up the interrupted deal; the cards dealt so far stay in their pockets."""
        reply = await self._call(Op.ABORT)
        assert reply.state is not None
        return reply.state

    async def stop(self) -> None:
        """Emergency stop: jumps the device's queue; the running deal ends with EmergencyStopError."""
        await self._call(Op.STOP, timeout=max(2.0, self.timeouts.progress * 3))
