"""Byte framing of the dealer link: CRC-16/GENIBUS, then COBS, then a 0x00 delimiter.

COBS (the ``cobs`` package) removes every zero from the frame so 0x00 can only mean "end of frame": after
lost, flipped or duplicated bytes the reader throws away what it has and starts clean at the next zero.
The CRC (the ``crc`` package with the catalogue's CRC-16/GENIBUS: poly 0x1021, init 0xFFFF, no reflection, final
XOR 0xFFFF, check value 0xD64E) catches line noise cheaply, before any cryptography runs.

Why the final XOR (protocol version 2): version 1 used CRC-16/CCITT-FALSE, the same CRC without it. When the body's
last byte equals the high byte of the register before it, that CRC ends in 0x00 and the register's low byte: lose
the COBS code byte standing for that 0x00 and the rest decodes as the body without its last byte, followed by that
body's own CRC, a valid frame of the wrong body (about one body in 200). The final XOR breaks that pattern.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Iterator

from cobs import cobs
from crc import Calculator, Configuration

# CRC-16/GENIBUS (also EPC, DARC, I-CODE in the CRC catalogue); the firmware's crc16_frame() in wire.c.
GENIBUS = Configuration(width=16, polynomial=0x1021, init_value=0xFFFF, final_xor_value=0xFFFF,
                        reverse_input=False, reverse_output=False)
MAX_FRAME = 1024  # longest decoded frame we accept; a longer run of non-zero bytes is noise

# One calculator per thread: the ``crc`` package's optimized Calculator keeps working state on the object, and
# threads sharing one got wrong checksums (2,898 in 80,000 with 4 threads: the simulated device's receiver, worker
# and ticker, and a host in the same process).
_CRC = threading.local()


def _calculator() -> Calculator:
    calc: Calculator | None = getattr(_CRC, "calc", None)
    if calc is None:
        calc = _CRC.calc = Calculator(GENIBUS, optimized=True)
    return calc


class FrameError(ValueError):
    """A frame that arrived damaged (bad COBS, bad CRC, too short or too long)."""


class OldFramingError(FrameError):
    """A frame whose check is protocol version 1's CRC (no final XOR): a device running firmware older than this
    host, which is told apart from line noise so the host can say so instead of timing out."""

    def __init__(self, message: str, body: bytes) -> None:
        super().__init__(message)
        self.body = body


def crc16(data: bytes) -> int:
    """CRC-16/GENIBUS of ``data`` (the frame check of protocol version 2)."""
    return int(_calculator().checksum(data))


def _check(body: bytes, version: int) -> int:
    # Version 1's CRC is this one without the final XOR, so it is the same register XORed back.
    return crc16(body) ^ (0xFFFF if version == 1 else 0)


def encode_frame(body: bytes, *, version: int = 2) -> bytes:
    """Wrap ``body`` for the wire: COBS(body + CRC big-endian) + 0x00. ``version=1`` frames it as protocol version 1
    did (the host's one probe for a device with old firmware, and the tests' stand-in for such a device)."""
    if len(body) > MAX_FRAME - 2:
        raise ValueError(f"frame body of {len(body)} bytes exceeds {MAX_FRAME - 2}")
    return cobs.encode(body + _check(body, version).to_bytes(2, "big")) + b"\x00"


def decode_frame(encoded: bytes, *, version: int = 2) -> bytes:
    """Undo ``encode_frame`` for one frame without its delimiter; FrameError if damaged, OldFramingError if it is a
    whole frame of protocol version 1 (and ``version`` is 2)."""
    try:
        raw = cobs.decode(encoded)
    except cobs.DecodeError as exc:
        raise FrameError(f"bad COBS encoding: {exc}") from None
    if len(raw) < 3:
        raise FrameError(f"frame of {len(raw)} bytes is too short")
    body, check = raw[:-2], int.from_bytes(raw[-2:], "big")
    crc = _check(body, version)
    if crc != check:
        if version == 2 and crc ^ 0xFFFF == check:
            raise OldFramingError("frame checked with protocol version 1's CRC (no final XOR)", body)
        raise FrameError("CRC mismatch")
    return body


class FrameReader:
    """Splits a byte stream into frame bodies, dropping damaged frames and resynchronising at each 0x00."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False
        self.frames_ok = 0
        self.frames_bad = 0
        self.old_bodies: collections.deque[bytes] = collections.deque(maxlen=4)  # the last frames of version 1

    def feed(self, data: bytes) -> list[bytes]:
        """Return the body of every good frame completed by ``data``; keep the unfinished tail."""
        bodies: list[bytes] = []
        for pos in _zero_positions(data):
            bodies.extend(self._finish(data, pos))
        self._append(data[data.rfind(b"\x00") + 1 :])
        return bodies

    def _finish(self, data: bytes, pos: tuple[int, int]) -> Iterator[bytes]:
        start, end = pos
        self._append(data[start:end])
        encoded, overflow = bytes(self._buf), self._overflow
        self._buf.clear()
        self._overflow = False
        if not encoded and not overflow:
            return  # an empty frame: a doubled delimiter, harmless
        if overflow:
            self.frames_bad += 1
            return
        try:
            body = decode_frame(encoded)
        except FrameError as exc:
            self.frames_bad += 1
            if isinstance(exc, OldFramingError):
                self.old_bodies.append(exc.body)
            return
        self.frames_ok += 1
        yield body

    def _append(self, data: bytes) -> None:
        if self._overflow:
            return
        self._buf += data
        if len(self._buf) > MAX_FRAME * 2:
            self._buf.clear()
            self._overflow = True


def _zero_positions(data: bytes) -> Iterator[tuple[int, int]]:
    start = 0
    while True:
        end = data.find(b"\x00", start)
        if end < 0:
            return
        yield start, end
        start = end + 1
