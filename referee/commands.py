"""The engine's sub-commands: ``cardref replay``, ``cardref bench engine``, ``cardref demo``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.record import RecordError, replay


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("replay", help="replay a table record and print the result JSON")
    p.add_argument("record", help="a table record (JSON Lines, CONVENTIONS.md), or - for standard input")
    p.set_defaults(func=cmd_replay)

    p = subparsers.add_parser("bench", help="benchmarks")
    bench = p.add_subparsers(dest="what", metavar="WHAT")
    b = bench.add_parser("engine", help="random full deals per second, beside OpenSpiel's euchre and spades")
    b.add_argument("--seconds", type=float, default=3.0, help="time per measurement (default 3)")
    b.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    b.set_defaults(func=cmd_bench_engine)

    p = subparsers.add_parser("demo", help="a simulated match: dealer rotating, bids, plays, reneges caught")
    p.add_argument("--game", default="bid_whist", choices=["bid_whist", "bid_euchre", "pitch"])
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--web", action="store_true", help="play it through the referee service, live on its pages")
    p.add_argument("--port", type=int, default=8000, help="with --web: the port (default 8000)")
    p.set_defaults(func=cmd_demo)


def cmd_replay(args: argparse.Namespace) -> int:
    from referee.cli import UserError

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


def cmd_bench_engine(args: argparse.Namespace) -> int:
    from referee.bench_engine import run

    return run(args.seconds, as_json=args.json)


def cmd_demo(args: argparse.Namespace) -> int:
    if args.web:
        from referee.web_demo import run as run_web

        return run_web(args.game, args.seed, args.port)
    from referee.terminal_demo import run

    return run(args.game, args.seed)
