"""The device's protocol state machine, driven frame by frame by a hand-made host over a socket pair."""

import collections
import select
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_protocol.framing import FrameReader, encode_frame
from dealer_protocol.messages import (
    Ack,
    Busy,
    CardRead,
    Command,
    Fault,
    Hello,
    HelloReply,
    MsgType,
    Notice,
    NoticeMsg,
    Op,
    Reply,
    StateReport,
    args_deal,
    args_load,
    decode_message,
)
from dealer_protocol.security import (
    PROTOCOL_VERSION,
    Opener,
    Sealer,
    derive_session,
    hello_keys,
    new_key,
    new_nonce,
)
from engine.match import deck_for
from hardware.machine import Timing
from hardware.sim import SimulatedDealer


class RawHost:
    """Speaks the protocol by hand, to see exactly what the device sends."""

    def __init__(self, sim, key):
        self.sock = sim.host_socket
        self.key = key
        self.reader = FrameReader()
        self.frames = []

    def raw_send(self, body):
        self.sock.sendall(encode_frame(body))

    def hello(self):
        nonce = new_nonce()
        hello = Hello(PROTOCOL_VERSION, nonce).encode()
        self.raw_send(Sealer(hello_keys(self.key)).seal(MsgType.HELLO, hello, seq=0))
        body = self._next_body(2.0)
        while body[1] != MsgType.HELLO_REPLY:  # frames of the previous session still in the pipe
            body = self._next_body(2.0)
        _, _, payload = Opener(hello_keys(self.key), check_replay=False).open(body)
        reply = HelloReply.decode(payload)
        assert reply.host_nonce == nonce
        keys = derive_session(self.key, nonce, reply.device_nonce, reply.boot_id)
        self.sealer, self.opener = Sealer(keys.host_to_device), Opener(keys.device_to_host)
        self.hello_opener = Opener(hello_keys(self.key), check_replay=False)
        return reply

    def send(self, cmd):
        body = self.sealer.seal(MsgType.COMMAND, cmd.encode())
        self.raw_send(body)
        return body

    def _next_body(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            bodies = self._pending_bodies()
            if bodies:
                return bodies
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no frame from the device")
            ready, _, _ = select.select([self.sock], [], [], left)
            if ready:
                self._bodies = getattr(self, "_bodies", []) + self.reader.feed(self.sock.recv(4096))

    def _pending_bodies(self):
        bodies = getattr(self, "_bodies", [])
        if bodies:
            return bodies.pop(0)
        return None

    def recv(self, timeout=2.0):
        body = self._next_body(timeout)
        if body[2:6] == b"\0\0\0\0":
            t, _, payload = self.hello_opener.open(body)
        else:
            t, _, payload = self.opener.open(body)
        return decode_message(t, payload)

    def until(self, predicate, timeout=5.0):
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            msg = self.recv(max(0.01, deadline - time.monotonic()))
            seen.append(msg)
            if predicate(msg):
                return msg, seen


@pytest.fixture
def rig():
    key = new_key()
    sim = SimulatedDealer(key, seed=3, fast=True, link="socket").start()
    host = RawHost(sim, key)
    yield sim, host
    sim.close()


def is_reply(cmd_id):
    return lambda m: isinstance(m, Reply) and m.cmd_id == cmd_id


@pytest.mark.timeout(30)
def test_hello_then_full_state_report(rig):
    sim, host = rig
    reply = host.hello()
    assert reply.version == PROTOCOL_VERSION and reply.pockets == 5 and reply.boot_id == sim.device.boot_id
    state = host.recv()
    assert isinstance(state, StateReport) and state.hopper == 54 and state.pockets == ((),) * 5


@pytest.mark.timeout(30)
def test_a_repeated_id_is_answered_again_and_never_executed_twice(rig):
    sim, host = rig
    host.hello()
    host.send(Command(1, Op.LOAD, args_load(deck_for("bid_whist"))))
    host.until(is_reply(1))
    deal = Command(2, Op.DEAL, args_deal((1, 1, 1, 1, 0)))
    host.send(deal)
    ack, _ = host.until(lambda m: isinstance(m, Ack))
    assert ack.cmd_id == 2
    first, seen = host.until(is_reply(2))
    cards = [m for m in seen if isinstance(m, CardRead)]
    assert first.status is Fault.OK and len(cards) == 4
    host.send(deal)  # the same id again, as after a lost reply
    again, seen = host.until(is_reply(2))
    assert again == first
    assert not any(isinstance(m, CardRead) for m in seen)
    assert sum(len(p) for p in sim.machine.pockets) == 4 and len(sim.machine.hopper) == 50


@pytest.mark.timeout(30)
def test_a_commands_ack_comes_before_any_card_it_deals_even_when_the_ack_is_slow(rig, monkeypatch):
    """The real firmware's one loop acknowledges a command before its mechanism loop starts it. The simulator's
    receiver thread sent the Ack after letting the worker take the command, and on a loaded machine a card read came
    first (CI, 2026-12-03). Here every Ack is held up 0.2 s as it is sent, as a slow receiver thread would be."""
    sim, host = rig
    send = sim.device._send

    def slow_ack(msg):
        if isinstance(msg, Ack):
            time.sleep(0.2)
        send(msg)

    monkeypatch.setattr(sim.device, "_send", slow_ack)
    host.hello()
    host.send(Command(1, Op.LOAD, args_load(deck_for("bid_whist"))))
    host.until(is_reply(1))
    host.send(Command(2, Op.DEAL, args_deal((1, 1, 1, 1, 0))))
    _, seen = host.until(is_reply(2))
    mine = [m for m in seen if isinstance(m, (Ack, CardRead)) and m.cmd_id == 2]
    assert isinstance(mine[0], Ack) and sum(isinstance(m, CardRead) for m in mine) == 4, mine


@pytest.mark.timeout(30)
def test_exactly_one_reply_per_command_and_busy_while_working(rig):
    sim, host = rig
    sim.machine.timing = Timing().scaled(0.02)  # slow enough for busy frames
    host.hello()
    host.send(Command(1, Op.LOAD, args_load([])))
    host.until(is_reply(1))
    host.send(Command(2, Op.DEAL, args_deal((6, 6, 6, 6, 0))))
    _, seen = host.until(is_reply(2), timeout=15)
    assert any(isinstance(m, Busy) and m.cmd_id == 2 for m in seen)
    # Nothing else comes for command 2: only heartbeats.
    end = time.monotonic() + 0.5
    while time.monotonic() < end:
        try:
            msg = host.recv(0.2)
        except TimeoutError:
            continue
        assert not (isinstance(msg, Reply) and msg.cmd_id == 2)


@pytest.mark.timeout(30)
def test_emergency_stop_jumps_the_queue(rig):
    sim, host = rig
    sim.machine.timing = Timing().scaled(0.05)
    host.hello()
    host.send(Command(1, Op.LOAD, args_load([])))
    host.until(is_reply(1), timeout=15)
    host.send(Command(2, Op.DEAL, args_deal((12, 12, 12, 12, 6))))
    host.send(Command(3, Op.SHUFFLE))  # queued behind the deal
    host.until(lambda m: isinstance(m, CardRead))
    host.send(Command(4, Op.STOP))
    replies = {}
    end = time.monotonic() + 10
    while len(replies) < 3 and time.monotonic() < end:
        msg = host.recv(5)
        if isinstance(msg, Reply):
            replies[msg.cmd_id] = msg.status
    assert replies == {4: Fault.OK, 3: Fault.CANCELLED, 2: Fault.EMERGENCY_STOP}
    assert 0 < sum(len(p) for p in sim.machine.pockets) < 54
    # The stopped deal is kept: resume finishes it, with nothing lost or dealt twice.
    host.send(Command(5, Op.RESUME))
    done, _ = host.until(is_reply(5), timeout=20)
    assert done.status is Fault.OK
    assert [len(p) for p in done.state.pockets] == [12, 12, 12, 12, 6]


@pytest.mark.timeout(30)
def test_forged_and_replayed_frames_are_refused_and_reported(rig):
    sim, host = rig
    host.hello()
    body = host.send(Command(1, Op.LOAD, args_load([])))
    host.until(is_reply(1))
    host.raw_send(body)  # replayed byte for byte
    notice, _ = host.until(lambda m: isinstance(m, NoticeMsg))
    assert notice.code is Notice.REPLAYED
    forged = bytearray(host.sealer.seal(MsgType.COMMAND, Command(2, Op.DEAL_REST, b"\x00").encode()))
    forged[-1] ^= 0xFF  # a wrong tag (the CRC is computed afterwards, so the frame arrives intact)
    host.raw_send(bytes(forged))
    notice, _ = host.until(lambda m: isinstance(m, NoticeMsg))
    assert notice.code is Notice.AUTH_FAILED
    assert sum(len(p) for p in sim.machine.pockets) == 0  # nothing was executed


@pytest.mark.timeout(30)
def test_frames_of_an_old_session_are_refused(rig):
    sim, host = rig
    host.hello()
    old_sealer = host.sealer
    host.hello()  # a new session, as after a reconnect
    host.raw_send(old_sealer.seal(MsgType.COMMAND, Command(9, Op.DEAL_REST, b"\x00").encode()))
    notice, _ = host.until(lambda m: isinstance(m, NoticeMsg))
    assert notice.code is Notice.AUTH_FAILED
    assert sum(len(p) for p in sim.machine.pockets) == 0


@pytest.mark.timeout(30)
def test_without_a_session_the_device_says_so(rig):
    sim, host = rig
    key = new_key()
    keys = derive_session(key, new_nonce(), new_nonce(), 1)
    host.raw_send(Sealer(keys.host_to_device).seal(MsgType.COMMAND, Command(1, Op.PING).encode()))
    host.hello_opener = Opener(hello_keys(host.key), check_replay=False)
    notice = host.recv()
    assert isinstance(notice, NoticeMsg) and notice.code is Notice.NO_SESSION


@pytest.mark.timeout(30)
def test_deal_before_load_and_bad_arguments_are_refused(rig):
    sim, host = rig
    host.hello()
    host.send(Command(1, Op.DEAL, args_deal((12, 12, 12, 12, 6))))
    reply, _ = host.until(is_reply(1))
    assert reply.status is Fault.NOT_LOADED
    host.send(Command(2, Op.LOAD, args_load(deck_for("bid_euchre"))))
    reply, _ = host.until(is_reply(2))
    assert reply.status is Fault.EXTRA_CARD and len(reply.detail.extra) == 30  # a full deck is not euchre's
    host.send(Command(3, Op.LOAD, args_load([])))
    host.until(is_reply(3))
    host.send(Command(4, Op.DEAL, args_deal((60, 0, 0, 0, 0))))
    reply, _ = host.until(is_reply(4))
    assert reply.status is Fault.BAD_COMMAND
    host.send(Command(5, Op.DEAL_MORE, bytes([9, 1])))
    reply, _ = host.until(is_reply(5))
    assert reply.status is Fault.BAD_COMMAND


@pytest.mark.timeout(30)
def test_a_hello_of_another_version_is_refused(rig):
    sim, host = rig
    hello = Hello(PROTOCOL_VERSION + 1, new_nonce()).encode()
    body = bytearray(Sealer(hello_keys(host.key)).seal(MsgType.HELLO, hello, seq=0))
    host.raw_send(bytes(body))
    host.hello_opener = Opener(hello_keys(host.key), check_replay=False)
    notice = host.recv()
    assert isinstance(notice, NoticeMsg) and notice.code is Notice.MALFORMED
    assert sim.device.session is None


@pytest.mark.timeout(30)
def test_ids_are_remembered_across_a_power_loss(rig):
    sim, host = rig
    host.hello()
    host.send(Command(1, Op.LOAD, args_load([])))
    host.until(is_reply(1))
    host.send(Command(2, Op.DEAL, args_deal((1, 1, 1, 1, 0))))
    done, _ = host.until(is_reply(2))
    sim.machine.timing = Timing().scaled(0.05)
    host.send(Command(3, Op.DEAL, args_deal((5, 5, 5, 5, 0))))
    host.until(lambda m: isinstance(m, CardRead) and m.cmd_id == 3 and m.index == 4)
    boot = sim.device.boot_id
    sim.device.power_cycle()
    deadline = time.monotonic() + 5
    while sim.device.boot_id == boot and time.monotonic() < deadline:
        time.sleep(0.01)
    dealt = sum(len(p) for p in sim.machine.pockets)
    assert 4 + 5 <= dealt < 24
    reply = host.hello()
    assert reply.boot_id != boot
    for cmd_id, status in ((2, Fault.OK), (3, Fault.POWER_LOST), (3, Fault.POWER_LOST)):
        host.send(Command(cmd_id, Op.DEAL, args_deal((1, 1, 1, 1, 0) if cmd_id == 2 else (5, 5, 5, 5, 0))))
        again, seen = host.until(is_reply(cmd_id))
        assert again.status is status and not any(isinstance(m, CardRead) for m in seen)
    assert sum(len(p) for p in sim.machine.pockets) == dealt  # nothing executed again
    assert again.state.plan_cmd == 3 and sum(again.state.plan_remaining) == 24 - dealt


@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 3)), min_size=1, max_size=6))
@pytest.mark.timeout(120)
def test_any_mix_of_repeats_executes_each_id_once(plan):
    key = new_key()
    with SimulatedDealer(key, seed=1, fast=True, link="socket") as sim:
        host = RawHost(sim, key)
        host.hello()
        host.send(Command(100, Op.LOAD, args_load([])))
        host.until(is_reply(100))
        sent = []
        for i, (cards, repeats) in enumerate(plan):
            cmd = Command(i + 1, Op.DEAL_MORE, bytes([i % 5, cards]))
            for _ in range(repeats):
                host.send(cmd)  # sent again at once, before or after its reply
            sent.append(cards)
        replies = {}
        reads = collections.Counter()
        deadline = time.monotonic() + 20
        while (len(replies) < len(plan) or sum(reads.values()) < sum(sent)) and time.monotonic() < deadline:
            msg = host.recv(5)
            if isinstance(msg, Reply):
                replies.setdefault(msg.cmd_id, msg)
            elif isinstance(msg, CardRead):
                reads[msg.cmd_id] += 1
        assert all(replies[i + 1].status is Fault.OK for i in range(len(plan)))
        assert [reads[i + 1] for i in range(len(plan))] == sent
        assert sum(len(p) for p in sim.machine.pockets) == sum(sent)


@pytest.mark.timeout(30)
def test_an_id_reused_for_another_command_is_refused(rig):
    sim, host = rig
    host.hello()
    host.send(Command(1, Op.LOAD, args_load([])))
    host.until(is_reply(1))
    host.send(Command(1, Op.DEAL_REST, b"\x00"))  # same id, other command
    reply, _ = host.until(is_reply(1))
    assert reply.status is Fault.BAD_COMMAND and "already used" in reply.detail.reason
    assert sum(len(p) for p in sim.machine.pockets) == 0
    host.send(Command(1, Op.LOAD, args_load([])))  # the original is still answered as before
    reply, _ = host.until(is_reply(1))
    assert reply.status is Fault.OK


@pytest.mark.timeout(60)
def test_a_deal_id_sent_again_after_70_other_commands_does_not_deal_again(rig):
    """Issue 13, item 6: the device knew the id among its last 128 commands, but its reply cache held 64: the
    DEAL ran again. One window now for ids and replies."""
    sim, host = rig
    host.hello()
    host.send(Command(1, Op.LOAD, args_load(deck_for("bid_whist"))))
    host.until(is_reply(1))
    deal = Command(2, Op.DEAL, args_deal((1, 1, 1, 1, 0)))
    host.send(deal)
    first, _ = host.until(is_reply(2))
    assert first.status is Fault.OK
    for i in range(3, 73):
        host.send(Command(i, Op.PING))
        host.until(is_reply(i))
    host.send(deal)
    again, seen = host.until(is_reply(2))
    assert again == first and not any(isinstance(m, CardRead) for m in seen)
    assert sum(len(p) for p in sim.machine.pockets) == 4


@pytest.mark.timeout(60)
def test_a_replayed_hello_does_not_end_the_session_in_use(rig):
    """Issue 13, item 8: one replayed old HELLO every 0.5 s kept the machine unusable (each began a session the
    replayer cannot use and ended the host's). A HELLO seen before is refused; the host's session goes on."""
    sim, host = rig
    nonce = new_nonce()
    old_hello = Sealer(hello_keys(host.key)).seal(MsgType.HELLO, Hello(PROTOCOL_VERSION, nonce).encode(), seq=0)
    host.raw_send(old_hello)  # the HELLO an eavesdropper recorded, answered once
    while host._next_body(2.0)[1] != MsgType.HELLO_REPLY:
        pass
    host.hello()
    host.until(lambda m: isinstance(m, StateReport))  # sent after the device counted the session
    sessions = sim.device.counters["sessions"]
    for i in range(1, 6):
        host.raw_send(old_hello)  # replayed, between the host's commands
        host.send(Command(i, Op.PING))
        reply, _ = host.until(lambda m, i=i: isinstance(m, Reply) and m.cmd_id == i)
        assert reply.status is Fault.OK
    assert sim.device.counters["sessions"] == sessions
    assert sim.device.counters["hellos_replayed"] == 5


@pytest.mark.timeout(60)
def test_a_flood_of_forged_frames_costs_few_notices(rig):
    """Issue 13, item 8: each forged frame cost a NOTICE on the link; now a burst, then a bounded rate."""
    sim, host = rig
    host.hello()
    forged = bytearray(host.sealer.seal(MsgType.COMMAND, Command(2, Op.PING).encode()))
    forged[-1] ^= 0xFF
    for _ in range(300):
        host.raw_send(bytes(forged))
    host.send(Command(1, Op.PING))
    _, seen = host.until(is_reply(1))
    notices = [m for m in seen if isinstance(m, NoticeMsg)]
    assert sim.device.counters["notice_auth_failed"] == 300
    assert len(notices) <= 20 and sim.device.counters["notices_held_back"] >= 280
