"""``cardref replay``: a table record replayed to its result (CONVENTIONS.md)."""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cli.errors import UserError
from engine.record import RecordError, replay

if TYPE_CHECKING:
    from cli.main import Commands


def register(commands: Commands) -> None:
    p = commands.add("replay", help="replay a table record and print the result JSON (exit 2: it cannot have "
                                    "happened); a record that stops in the middle of a hand is reported on stderr")
    p.add_argument("record", help="a table record (JSON Lines, docs/record-format.md), or - for standard input")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when the record stops in the middle of a hand (a copy taken during play, a crash)")
    p.set_defaults(func=cmd_replay)


MAX_RECORD_BYTES = 64 * 1024 * 1024  # far above any match (a long one is well under a megabyte)


def read_record(name: str) -> list[str]:
    """The record's lines, read with a bound; a path must be a regular file (a FIFO with no writer, a device or
    a folder would block or never end)."""
    if name == "-":
        data = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
    else:
        path = Path(name)
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            raise UserError(f"{name}: no such file") from None
        except OSError as exc:
            raise UserError(f"{name}: cannot be read ({exc.strerror})") from None
        if not stat.S_ISREG(mode):
            raise UserError(f"{name}: not a regular file (a record is a file of JSON lines)")
        try:
            # O_NONBLOCK: had the path become a FIFO since the check, opening it would not wait for a writer.
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    raise UserError(f"{name}: not a regular file (a record is a file of JSON lines)")
                data = f.read(MAX_RECORD_BYTES + 1)
        except OSError as exc:
            raise UserError(f"{name}: cannot be read ({exc.strerror})") from None
    if len(data) > MAX_RECORD_BYTES:
        raise UserError(f"{name}: larger than {MAX_RECORD_BYTES // (1024 * 1024)} MB; not a table record")
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise UserError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def cmd_replay(args: argparse.Namespace) -> int:
    lines = read_record(args.record)
    try:
        match = replay(lines)
    except RecordError as exc:
        raise UserError(f"{args.record}: {exc}") from None
    print(json.dumps(match.result()))
    hand = match.hand
    finished = sum(1 for h in match.hands if h.is_terminal())
    if not match.is_terminal() and hand.phase != "deal":
        # A record cut off mid-hand (a crash, a copy taken during play) is still a true record of what happened so
        # far, so its result is printed as usual; the warning says that the hand in play is not in it.
        print(f"cardref replay: {args.record}: INCOMPLETE: the record stops in the middle of hand {hand.number} "
              f"({hand.phase} phase); the result covers the {finished} finished hand(s) only",
              file=sys.stderr)
        return 1 if args.strict else 0
    return 0
