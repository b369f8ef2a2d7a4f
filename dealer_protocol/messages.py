"""Typed messages of the dealer protocol (docs/protocol.md) and their payload encodings.

Numbers are big-endian. A card is one byte (dealer_protocol.cards). Every ``decode`` raises
``MessageError`` naming the message and what is wrong, never an IndexError from a short payload.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from dealer_protocol.cards import byte_to_card, bytes_to_cards, card_to_byte, cards_to_bytes

N_POCKETS = 5
NO_POCKET = 0xFF


class MessageError(ValueError):
    """A payload that does not decode as the message its type says."""


class MsgType(IntEnum):
    """The frame's type byte."""

    HELLO = 0x01
    HELLO_REPLY = 0x02
    COMMAND = 0x10
    ACK = 0x11
    BUSY = 0x12
    CARD = 0x13
    REPLY = 0x14
    STATE = 0x15
    HEARTBEAT = 0x16
    NOTICE = 0x17


class Op(IntEnum):
    """Command opcodes."""

    PING = 0x00
    STATUS = 0x01
    LOAD = 0x02
    SHUFFLE = 0x03
    DEAL = 0x04
    DEAL_MORE = 0x05
    DEAL_REST = 0x06
    DEAL_FILE = 0x07
    RESUME = 0x08
    ABORT = 0x09
    STOP = 0x0F


class Fault(IntEnum):
    """Reply status: 0 is success, 0x01..0x1F mechanism and deck faults, 0x20.. refusals."""

    OK = 0x00
    JAM = 0x01
    DOUBLE_FEED = 0x02
    UNREADABLE = 0x03
    DUPLICATE_CARD = 0x04
    MISSING_CARD = 0x05
    FOREIGN_CARD = 0x06
    EXTRA_CARD = 0x07
    HOPPER_EMPTY = 0x08
    POCKET_COUNT = 0x09
    DOOR_OPEN = 0x0A
    POWER_LOST = 0x0B
    EMERGENCY_STOP = 0x0C
    BAD_COMMAND = 0x20
    NOT_LOADED = 0x21
    FAULT_PENDING = 0x22
    NOTHING_TO_RESUME = 0x23
    CANCELLED = 0x24


FAULT_MESSAGES: dict[Fault, str] = {
    Fault.OK: "done",
    Fault.JAM: "card jammed in the feed; clear the feed path, then resume",
    Fault.DOUBLE_FEED: "two cards fed at once; they went back to the hopper; resume",
    Fault.UNREADABLE: "a card could not be read; it is in the reject tray: "
    "put it back in the hopper, then resume",
    Fault.DUPLICATE_CARD: "a card already dealt from this deck was read again; it is in the reject tray: "
    "remove it, then resume",
    Fault.MISSING_CARD: "cards of the deck are missing",
    Fault.FOREIGN_CARD: "a card from another deck was read; it is in the reject tray: remove it, then resume",
    Fault.EXTRA_CARD: "the deck holds cards the game does not use",
    Fault.HOPPER_EMPTY: "the hopper ran out before the deal was complete: "
    "put the missing cards in, then resume",
    Fault.POCKET_COUNT: "a pocket's count sensor disagrees with the cards sent to it; "
    "the card is in the reject tray: put it back in the hopper, then resume",
    Fault.DOOR_OPEN: "the door was opened; the mechanism stopped: close it, then resume",
    Fault.POWER_LOST: "power was lost during the deal; "
    "the deal stopped where the machine's memory says: resume",
    Fault.EMERGENCY_STOP: "emergency stop: the mechanism stopped; resume or abort",
    Fault.BAD_COMMAND: "the command's arguments are wrong",
    Fault.NOT_LOADED: "no verified deck in the hopper: load and verify the deck first",
    Fault.FAULT_PENDING: "a deal was interrupted by a fault: resume or abort it first",
    Fault.NOTHING_TO_RESUME: "no interrupted deal to resume",
    Fault.CANCELLED: "cancelled by an emergency stop before it started",
}


class Capability(IntEnum):
    """Bits of HELLO_REPLY's capability word."""

    SHUFFLE = 0x01
    DEAL_FILE = 0x02
    EMERGENCY_STOP = 0x04
    ENCRYPTED = 0x08
    RESUME = 0x10


class Notice(IntEnum):
    """Codes of the device's NOTICE frame: a frame it refused."""

    AUTH_FAILED = 0x01
    REPLAYED = 0x02
    MALFORMED = 0x03
    NO_SESSION = 0x04


class _Reader:
    def __init__(self, data: bytes, what: str) -> None:
        self.data, self.pos, self.what = data, 0, what

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise MessageError(f"{self.what}: payload ends at byte {len(self.data)}, needed {self.pos + n}")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def u8(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        return int.from_bytes(self.take(2), "big")

    def u32(self) -> int:
        return int.from_bytes(self.take(4), "big")

    def cards(self) -> list[str | None]:
        raw = self.take(self.u8())
        try:
            return bytes_to_cards(raw)
        except ValueError as exc:
            raise MessageError(f"{self.what}: {exc}") from None

    def rest(self) -> bytes:
        out = self.data[self.pos :]
        self.pos = len(self.data)
        return out

    def end(self) -> None:
        if self.pos != len(self.data):
            raise MessageError(f"{self.what}: {len(self.data) - self.pos} bytes left over")


def _cards(cards: list[str | None]) -> bytes:
    if len(cards) > 255:
        raise ValueError(f"{len(cards)} cards do not fit a card list (255 at most)")
    return bytes([len(cards)]) + cards_to_bytes(cards)


@dataclass(frozen=True)
class Hello:
    """Host -> device: open a session."""

    version: int
    host_nonce: bytes

    def encode(self) -> bytes:
        return bytes([self.version]) + self.host_nonce

    @classmethod
    def decode(cls, data: bytes) -> Hello:
        r = _Reader(data, "HELLO")
        return cls(r.u8(), r.take(16))


@dataclass(frozen=True)
class HelloReply:
    """Device -> host: the session is open; who the device is."""

    version: int
    capabilities: int
    pockets: int
    boot_id: int
    host_nonce: bytes
    device_nonce: bytes

    def encode(self) -> bytes:
        return (
            struct.pack(">BHBI", self.version, self.capabilities, self.pockets, self.boot_id)
            + self.host_nonce
            + self.device_nonce
        )

    @classmethod
    def decode(cls, data: bytes) -> HelloReply:
        r = _Reader(data, "HELLO_REPLY")
        out = cls(r.u8(), r.u16(), r.u8(), r.u32(), r.take(16), r.take(16))
        r.end()
        return out


@dataclass(frozen=True)
class Command:
    """Host -> device: one command, named by an id the device never executes twice."""

    cmd_id: int
    op: Op
    args: bytes = b""

    def encode(self) -> bytes:
        return struct.pack(">IB", self.cmd_id, self.op) + self.args

    @classmethod
    def decode(cls, data: bytes) -> Command:
        r = _Reader(data, "COMMAND")
        cmd_id, op = r.u32(), r.u8()
        try:
            return cls(cmd_id, Op(op), r.rest())
        except ValueError:
            raise MessageError(f"COMMAND {cmd_id}: unknown opcode {op:#04x}") from None


@dataclass(frozen=True)
class Ack:
    """Device -> host: the command arrived and is queued (``queued`` commands ahead of it)."""

    cmd_id: int
    queued: int

    def encode(self) -> bytes:
        return struct.pack(">IB", self.cmd_id, self.queued)

    @classmethod
    def decode(cls, data: bytes) -> Ack:
        r = _Reader(data, "ACK")
        out = cls(r.u32(), r.u8())
        r.end()
        return out


@dataclass(frozen=True)
class Busy:
    """Device -> host: still working on the command; ``done`` of ``total`` cards."""

    cmd_id: int
    done: int
    total: int

    def encode(self) -> bytes:
        return struct.pack(">IHH", self.cmd_id, self.done, self.total)

    @classmethod
    def decode(cls, data: bytes) -> Busy:
        r = _Reader(data, "BUSY")
        out = cls(r.u32(), r.u16(), r.u16())
        r.end()
        return out


@dataclass(frozen=True)
class CardRead:
    """Device -> host: a card read and the pocket it went to (``index`` counts from 0 per command)."""

    cmd_id: int
    index: int
    pocket: int
    card: str | None = field(repr=False)

    def encode(self) -> bytes:
        return struct.pack(">IHB", self.cmd_id, self.index, self.pocket) + cards_to_bytes([self.card])

    @classmethod
    def decode(cls, data: bytes) -> CardRead:
        r = _Reader(data, "CARD")
        cmd_id, index, pocket, raw = r.u32(), r.u16(), r.u8(), r.take(1)
        r.end()
        try:
            return cls(cmd_id, index, pocket, bytes_to_cards(raw)[0])
        except ValueError as exc:
            raise MessageError(f"CARD: {exc}") from None


@dataclass(frozen=True)
class StateReport:
    """The device's whole state: sent after every HELLO, and in every reply to a deck or deal command."""

    boot_id: int
    hopper: int
    door_open: bool
    deck_verified: bool
    last_fault: Fault
    last_fault_cmd: int
    plan_cmd: int  # the command whose deal is unfinished (0: none)
    plan_remaining: tuple[int, ...]  # cards still due per pocket (a deal file counts per pocket too)
    # Card identities stay out of repr(): a message printed in a log or a traceback shows no hand.
    pockets: tuple[tuple[str | None, ...], ...] = field(repr=False)
    reject: tuple[str | None, ...] = field(default=(), repr=False)

    def encode(self) -> bytes:
        out = struct.pack(
            ">IBBBHII",
            self.boot_id,
            self.hopper,
            int(self.door_open),
            int(self.deck_verified),
            self.last_fault,
            self.last_fault_cmd,
            self.plan_cmd,
        )
        out += bytes([len(self.plan_remaining), *self.plan_remaining])
        out += bytes([len(self.pockets)]) + b"".join(_cards(list(p)) for p in self.pockets)
        return out + _cards(list(self.reject))

    @classmethod
    def decode(cls, data: bytes) -> StateReport:
        return cls.read(_Reader(data, "STATE"), whole=True)

    @classmethod
    def read(cls, r: _Reader, *, whole: bool = False) -> StateReport:
        boot_id, hopper, door, verified = r.u32(), r.u8(), r.u8(), r.u8()
        fault_raw, fault_cmd, plan_cmd = r.u16(), r.u32(), r.u32()
        remaining = tuple(r.take(r.u8()))
        pockets = tuple(tuple(r.cards()) for _ in range(r.u8()))
        reject = tuple(r.cards())
        if whole:
            r.end()
        try:
            fault = Fault(fault_raw)
        except ValueError:
            raise MessageError(f"{r.what}: unknown fault code {fault_raw:#06x}") from None
        return cls(
            boot_id,
            hopper,
            bool(door),
            bool(verified),
            fault,
            fault_cmd,
            plan_cmd,
            remaining,
            pockets,
            reject,
        )


@dataclass(frozen=True)
class FaultDetail:
    """What a fault concerns: a pocket, a card, and for a deck check the four lists of findings."""

    pocket: int | None = None
    card: str | None = field(default=None, repr=False)
    missing: tuple[str | None, ...] = ()
    extra: tuple[str | None, ...] = ()
    duplicate: tuple[str | None, ...] = ()
    foreign: tuple[str | None, ...] = ()
    count: int = 0  # cards read (LOAD) or sensed (POCKET_COUNT)
    reason: str = ""  # why a command was refused (ASCII, never a card identity)

    def encode(self) -> bytes:
        out = bytes([NO_POCKET if self.pocket is None else self.pocket]) + cards_to_bytes([self.card])
        out += self.count.to_bytes(2, "big")
        for lst in (self.missing, self.extra, self.duplicate, self.foreign):
            out += _cards(list(lst))
        reason = self.reason.encode("ascii", "replace")[:255]
        return out + bytes([len(reason)]) + reason

    @classmethod
    def read(cls, r: _Reader) -> FaultDetail:
        pocket = r.u8()
        try:
            card = bytes_to_cards(r.take(1))[0]
        except ValueError as exc:
            raise MessageError(f"{r.what}: {exc}") from None
        count = r.u16()
        missing, extra, duplicate, foreign = (tuple(r.cards()) for _ in range(4))
        reason = r.take(r.u8()).decode("ascii", "replace")
        return cls(
            pocket=None if pocket == NO_POCKET else pocket,
            card=card,
            missing=missing,
            extra=extra,
            duplicate=duplicate,
            foreign=foreign,
            count=count,
            reason=reason,
        )


@dataclass(frozen=True)
class Reply:
    """Device -> host: the one final answer to a command."""

    cmd_id: int
    status: Fault
    detail: FaultDetail = field(default_factory=FaultDetail)
    state: StateReport | None = None

    def encode(self) -> bytes:
        out = struct.pack(">IH", self.cmd_id, self.status) + self.detail.encode()
        return out + (self.state.encode() if self.state is not None else b"")

    @classmethod
    def decode(cls, data: bytes) -> Reply:
        r = _Reader(data, "REPLY")
        cmd_id, status_raw = r.u32(), r.u16()
        try:
            status = Fault(status_raw)
        except ValueError:
            raise MessageError(f"REPLY {cmd_id}: unknown status {status_raw:#06x}") from None
        detail = FaultDetail.read(r)
        state = StateReport.read(r, whole=True) if r.pos < len(r.data) else None
        return cls(cmd_id, status, detail, state)


@dataclass(frozen=True)
class Heartbeat:
    """Device -> host: alive; ``busy_cmd`` is the command it is executing (0: idle)."""

    uptime_ms: int
    busy_cmd: int

    def encode(self) -> bytes:
        return struct.pack(">II", self.uptime_ms & 0xFFFFFFFF, self.busy_cmd)

    @classmethod
    def decode(cls, data: bytes) -> Heartbeat:
        r = _Reader(data, "HEARTBEAT")
        out = cls(r.u32(), r.u32())
        r.end()
        return out


@dataclass(frozen=True)
class NoticeMsg:
    """Device -> host: the device refused a frame (``count``: how many of that kind since boot)."""

    code: Notice
    count: int

    def encode(self) -> bytes:
        return struct.pack(">BI", self.code, self.count)

    @classmethod
    def decode(cls, data: bytes) -> NoticeMsg:
        r = _Reader(data, "NOTICE")
        code, count = r.u8(), r.u32()
        r.end()
        try:
            return cls(Notice(code), count)
        except ValueError:
            raise MessageError(f"NOTICE: unknown code {code:#04x}") from None


Message = Hello | HelloReply | Command | Ack | Busy | CardRead | Reply | StateReport | Heartbeat | NoticeMsg

_DECODERS: dict[MsgType, Any] = {
    MsgType.HELLO: Hello,
    MsgType.HELLO_REPLY: HelloReply,
    MsgType.COMMAND: Command,
    MsgType.ACK: Ack,
    MsgType.BUSY: Busy,
    MsgType.CARD: CardRead,
    MsgType.REPLY: Reply,
    MsgType.STATE: StateReport,
    MsgType.HEARTBEAT: Heartbeat,
    MsgType.NOTICE: NoticeMsg,
}
_TYPES: dict[type, MsgType] = {cls: t for t, cls in _DECODERS.items()}


def type_of(msg: Message) -> MsgType:
    """The type byte a message is sent with."""
    return _TYPES[type(msg)]


def decode_message(msg_type: int, payload: bytes) -> Message:
    """Decode a payload by its frame type."""
    try:
        cls = _DECODERS[MsgType(msg_type)]
    except ValueError:
        raise MessageError(f"unknown message type {msg_type:#04x}") from None
    return cls.decode(payload)


# Command arguments


def args_load(expected: list[str]) -> bytes:
    """LOAD: the deck the hopper should hold, as a 64-bit set of card bytes (bit i = card byte i)."""
    bits = 0
    for code in expected:
        bits |= 1 << card_to_byte(code)
    return bits.to_bytes(8, "big")


def args_deal(counts: tuple[int, ...] | list[int]) -> bytes:
    """DEAL: cards per pocket."""
    return bytes([len(counts), *counts])


def args_deal_more(pocket: int, count: int) -> bytes:
    """DEAL_MORE: ``count`` more cards to ``pocket``."""
    return bytes([pocket, count])


def args_deal_rest(pocket: int) -> bytes:
    """DEAL_REST: every card left in the hopper to ``pocket``."""
    return bytes([pocket])


def args_deal_file(assignments: list[tuple[str, int]]) -> bytes:
    """DEAL_FILE: each named card to its named pocket."""
    if len(assignments) > 255:
        raise ValueError("a deal file names at most 255 cards")
    return bytes([len(assignments)]) + b"".join(cards_to_bytes([c]) + bytes([p]) for c, p in assignments)


def parse_args_load(args: bytes) -> list[str]:
    """Inverse of ``args_load`` (cards in byte order)."""
    r = _Reader(args, "LOAD")
    bits = int.from_bytes(r.take(8), "big")
    r.end()
    if bits >> 54:
        raise MessageError("LOAD: the deck set names card bytes above 53")
    return [c for i in range(54) if bits >> i & 1 and (c := byte_to_card(i)) is not None]


def parse_args_deal(args: bytes) -> tuple[int, ...]:
    """Inverse of ``args_deal``."""
    r = _Reader(args, "DEAL")
    counts = tuple(r.take(r.u8()))
    r.end()
    return counts


def parse_args_deal_file(args: bytes) -> list[tuple[str | None, int]]:
    """Inverse of ``args_deal_file``."""
    r = _Reader(args, "DEAL_FILE")
    out = []
    for _ in range(r.u8()):
        card = r.take(1)
        try:
            code = bytes_to_cards(card)[0]
        except ValueError as exc:
            raise MessageError(f"DEAL_FILE: {exc}") from None
        out.append((code, r.u8()))
    r.end()
    return out
