"""The tools' top-level commands: ``cardref demo``, ``cardref bench engine``, ``cardref soak``, ``cardref trust``."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from cli.errors import UserError
from engine.match import GAMES

if TYPE_CHECKING:
    from cli.main import Commands


def register(commands: Commands) -> None:
    """Add ``cardref demo``, ``cardref bench engine`` and ``cardref soak``."""
    b = commands.group("bench").add_parser(
        "engine", help="random full deals per second, beside OpenSpiel's euchre and spades")
    b.add_argument("--seconds", type=float, default=3.0, help="time per measurement (default 3)")
    b.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    b.set_defaults(func=cmd_bench_engine)

    p = commands.add("demo", help="a simulated match: dealer rotating, bids, plays, reneges caught")
    p.add_argument("--game", default="bid_whist", choices=tuple(GAMES))
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--web", action="store_true", help="play it through the referee service, live on its pages")
    p.add_argument("--port", type=int, default=8000, help="with --web: the port (default 8000)")
    p.set_defaults(func=cmd_demo)

    s = commands.add("soak", help="crash recovery: kill -9 the service at random moments during simulated hands, "
                                  "restart, check that no event was lost")
    s.add_argument("--size", type=int, default=2000, help="events to post in all (default 2000)")
    s.add_argument("--game", default="bid_whist", choices=tuple(GAMES))
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--data", metavar="DIR", type=Path, default=None,
                   help="where to keep the log (default: a temporary directory)")
    s.set_defaults(func=cmd_soak)

    t = commands.add("trust", help="simulated hands through the table service with reneges and sensor misreads "
                                   "injected: are the penalties still only the real ones?")
    t.add_argument("--hands", type=int, default=1000, help="hands to simulate (default 1000)")
    t.add_argument("--misread-rate", type=float, default=1 / 200, metavar="R",
                   help="the chance that a sensor misreads a card (default 0.005: one in 200)")
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--game", default=None, choices=tuple(GAMES), help="one game (default: every game and option)")
    known = t.add_mutually_exclusive_group()
    known.add_argument("--hands-known", dest="known", action="store_true", default=True,
                       help="a dealing machine reads every card dealt (the default)")
    known.add_argument("--hands-unknown", dest="known", action="store_false",
                       help="dealt by hand: only the camera's reads of the plays")
    t.set_defaults(func=cmd_trust)


def cmd_bench_engine(args: argparse.Namespace) -> int:
    from tools.bench_engine import run

    return run(args.seconds, as_json=args.json)


def cmd_demo(args: argparse.Namespace) -> int:
    if args.web:
        from tools.demo_web import run as run_web

        return run_web(args.game, args.seed, args.port)
    from tools.demo_terminal import run

    return run(args.game, args.seed)


def cmd_soak(args: argparse.Namespace) -> int:
    from tools.service_soak import soak

    if args.size < 1:
        raise UserError("--size must be at least 1")
    with tempfile.TemporaryDirectory(prefix="cardref-soak-") as tmp:
        data = args.data or Path(tmp) / "data"
        result = soak(data, size=args.size, game=args.game, seed=args.seed, progress=sys.stderr)
    print(json.dumps(result))
    return 0 if result["lost"] == 0 and result["mismatches"] == 0 else 1


def cmd_trust(args: argparse.Namespace) -> int:
    from tools.trust import run

    if args.hands < 1:
        raise UserError("--hands must be at least 1")
    if not 0 <= args.misread_rate < 1:
        raise UserError("--misread-rate must be at least 0 and below 1 (a chance per read)")
    result = run(args.hands, args.misread_rate, args.seed, args.game, args.known, progress=sys.stderr)
    print(json.dumps(result))
    return 0 if result["false_penalties"] == 0 else 1
