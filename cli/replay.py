"""``cardref replay``: a table record replayed to its result (CONVENTIONS.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cli.errors import UserError
from engine.record import RecordError, replay

if TYPE_CHECKING:
    from cli.main import Commands


def register(commands: Commands) -> None:
    p = commands.add("replay", help="replay a table record and print the result JSON")
    p.add_argument("record", help="a table record (JSON Lines, CONVENTIONS.md), or - for standard input")
    p.set_defaults(func=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    if args.record == "-":
        lines = sys.stdin.read().splitlines()
    else:
        path = Path(args.record)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            raise UserError(f"{args.record}: no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"{args.record}: cannot be read ({exc})") from None
    try:
        match = replay(lines)
    except RecordError as exc:
        raise UserError(f"{args.record}: {exc}") from None
    print(json.dumps(match.result()))
    return 0
