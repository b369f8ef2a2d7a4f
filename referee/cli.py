"""The `cardref` command: one entry point, one sub-command per part of the product.

Each part registers its own sub-commands (``register(subparsers)``) so the parts stay independent:
the engine's ``replay`` and ``bench``, the dealing machine's ``dealer``, the camera's ``vision``,
the service's ``serve`` and ``demo``. A module that is not there yet is simply not offered.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Modules that expose ``register(subparsers) -> None``; each adds parsers whose default ``func``
# takes the parsed namespace and returns the exit code.
COMMAND_MODULES: tuple[str, ...] = (
    "referee.commands",
    "referee.service_cli",
    "firmware_bridge.cli",
    "vision.cli",
)


class UserError(Exception):
    """An error caused by the user's input: printed as one clear line, never as a traceback."""


def build_parser(modules: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardref", description="An automatic referee for a real card table.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # that part of the product is not built yet
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None, modules: Sequence[str] = COMMAND_MODULES) -> int:
    """Run one command; ``modules``: the parts whose commands are offered (all of them by default)."""
    parser = build_parser(modules)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"cardref: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    # `python -m referee.cli`: run the main of the imported module, whose UserError is the one the sub-commands
    # raise (this __main__ module has a class of its own, so their errors would escape as a traceback).
    from referee.cli import main as _main

    sys.exit(_main())
