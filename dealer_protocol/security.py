"""Authentication and secrecy of the dealer link.

Every frame carries a 16-byte HMAC-SHA256 tag (truncated, as RFC 2104 allows) over its header and payload.
The pairing key (32 random bytes set when host and machine are paired) only signs the two HELLO frames; each
connection then derives its own keys from it and two fresh nonces (host's and device's) and the device's boot
id, one MAC key and one cipher key per direction. So a frame recorded in an earlier session fails the tag,
a frame replayed within a session fails the sequence check (each sender's ``seq`` strictly increases), and a
frame reflected back to its sender fails because the directions have different keys.

Card identities are secret (the deal order is what a cheat wants), so session payloads are also encrypted:
HMAC-SHA256 in counter mode as a keystream (a PRF in CTR mode; the nonce is the frame's unique ``seq``),
encrypt-then-MAC. Only the standard library is used.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
import struct
from dataclasses import dataclass
from pathlib import Path

PROTOCOL_VERSION = 2  # 2: the frame CRC has a final XOR (framing.py); 1 had none
TAG_LEN = 16
NONCE_LEN = 16
KEY_LEN = 32
HEADER = struct.Struct(">BBI")  # version, type, seq


class AuthError(ValueError):
    """A frame whose tag does not verify: forged, corrupted past the CRC, or from another session."""


class ReplayError(ValueError):
    """A frame whose sequence number is not above the last one accepted: a replay or a stale frame."""


class VersionError(ValueError):
    """A frame of a protocol version this side does not speak."""


def new_key() -> bytes:
    """A fresh random pairing key."""
    return os.urandom(KEY_LEN)


def new_nonce() -> bytes:
    """A fresh random nonce for HELLO."""
    return os.urandom(NONCE_LEN)


def load_key(path: str | os.PathLike[str], *, create: bool = False) -> bytes:
    """Read a pairing key (64 hex digits) from ``path``; with ``create``, make one (mode 0600) if missing."""
    p = Path(path)
    if not p.exists():
        if not create:
            raise FileNotFoundError(f"no pairing key at {p} (run `cardref dealer sim` or pair first)")
        p.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(new_key().hex() + "\n")
    mode = p.stat().st_mode
    if mode & 0o077:
        # Whoever can read the key can pose as this host to the machine, or as the machine to the host.
        raise PermissionError(f"pairing key file {p} may be read by others (mode {stat.S_IMODE(mode):o}): "
                              f"`chmod 600 {p}`, and pair again if others did read it")
    text = p.read_text().strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        raise ValueError(f"pairing key file {p} does not hold hex digits") from None
    if len(key) != KEY_LEN:
        raise ValueError(f"pairing key file {p} holds {len(key)} bytes, expected {KEY_LEN}")
    return key


def _prf(key: bytes, *parts: bytes) -> bytes:
    return hmac.new(key, b"".join(parts), hashlib.sha256).digest()


@dataclass(frozen=True)
class DirectionKeys:
    """The keys of one direction of one session."""

    mac: bytes
    enc: bytes | None  # None: HELLO frames, signed but not encrypted


@dataclass(frozen=True)
class SessionKeys:
    """Both directions' keys of one session."""

    host_to_device: DirectionKeys
    device_to_host: DirectionKeys


def hello_keys(pair_key: bytes) -> DirectionKeys:
    """Keys of the HELLO exchange: signed with a key derived from the pairing key, not encrypted."""
    return DirectionKeys(mac=_prf(pair_key, b"cardref hello mac"), enc=None)


def derive_session(pair_key: bytes, host_nonce: bytes, device_nonce: bytes, boot_id: int) -> SessionKeys:
    """Derive the session's keys; both sides compute the same from the HELLO exchange."""
    master = _prf(pair_key, b"cardref session", host_nonce, device_nonce, boot_id.to_bytes(4, "big"))

    def direction(label: bytes) -> DirectionKeys:
        return DirectionKeys(mac=_prf(master, label, b" mac"), enc=_prf(master, label, b" enc"))

    return SessionKeys(host_to_device=direction(b"h2d"), device_to_host=direction(b"d2h"))


def _keystream(key: bytes, seq: int, length: int) -> bytes:
    blocks = []
    for counter in range((length + 31) // 32):
        blocks.append(_prf(key, seq.to_bytes(4, "big"), counter.to_bytes(4, "big")))
    return b"".join(blocks)[:length]


def _xor(data: bytes, stream: bytes) -> bytes:
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(data), "big")


class Sealer:
    """Signs (and in a session encrypts) the frames one side sends; numbers them from 1."""

    def __init__(self, keys: DirectionKeys) -> None:
        self.keys = keys
        self.seq = 0

    def seal(self, msg_type: int, payload: bytes, *, seq: int | None = None, version: int = PROTOCOL_VERSION) -> bytes:
        """The frame body: header, (encrypted) payload, tag. ``version`` other than this side's is only for the
        host's probe of a device with old firmware."""
        if seq is None:
            self.seq += 1
            seq = self.seq
        header = HEADER.pack(version, msg_type, seq)
        if self.keys.enc is not None and payload:
            payload = _xor(payload, _keystream(self.keys.enc, seq, len(payload)))
        signed = header + payload
        return signed + hmac.new(self.keys.mac, signed, hashlib.sha256).digest()[:TAG_LEN]


class Opener:
    """Checks (and decrypts) the frames one side receives; refuses a forged, replayed or foreign frame."""

    def __init__(self, keys: DirectionKeys, *, check_replay: bool = True) -> None:
        self.keys = keys
        self.last_seq = 0
        self.check_replay = check_replay

    def open(self, body: bytes) -> tuple[int, int, bytes]:
        """Return (type, seq, payload) of a good frame body."""
        if len(body) < HEADER.size + TAG_LEN:
            raise AuthError(f"frame of {len(body)} bytes is shorter than header and tag")
        signed, tag = body[:-TAG_LEN], body[-TAG_LEN:]
        version, msg_type, seq = HEADER.unpack_from(signed)
        expected = hmac.new(self.keys.mac, signed, hashlib.sha256).digest()[:TAG_LEN]
        if not hmac.compare_digest(tag, expected):
            if version != PROTOCOL_VERSION:
                raise VersionError(f"protocol version {version}, this side speaks {PROTOCOL_VERSION}")
            raise AuthError(f"bad tag on a frame of type {msg_type:#04x}, seq {seq}")
        if self.check_replay:
            if seq <= self.last_seq:
                raise ReplayError(f"seq {seq} is not above the last accepted {self.last_seq}")
            self.last_seq = seq
        payload = signed[HEADER.size :]
        if self.keys.enc is not None and payload:
            payload = _xor(payload, _keystream(self.keys.enc, seq, len(payload)))
        return msg_type, seq, payload


def peek_type(body: bytes) -> int | None:
    """The message type of a frame body, before it is verified (to pick the right keys)."""
    if len(body) < HEADER.size:
        return None
    return body[1]
