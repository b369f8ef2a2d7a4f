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
    p = commands.add("replay", help="replay a table record and print the result JSON (exit 2: it cannot have "
                                    "happened); a record that stops in the middle of a hand is reported on stderr")
    p.add_argument("record", help="a table record (JSON Lines, docs/record-format.md), or - for standard input")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when the record stops in the middle of a hand (a copy taken during play, a crash)")
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
