"""The `cardref` command: one entry point, one sub-command per part of the product.

Each part registers its own sub-commands (``register(commands)``) so the parts stay independent: ``replay``,
``serve``, ``dealer ...``, ``vision ...``. Tools (benchmarks, soaks, demos) are not part of the product: they add
their commands through the ``cardref.tools`` entry points, which this module finds by name at run time and never
imports itself; a plain install ships them, and without them their commands are simply not offered.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from importlib import metadata

from cli.errors import UserError

# The product's parts; each module exposes ``register(commands: Commands) -> None``.
COMMAND_MODULES: tuple[str, ...] = ("cli.replay", "cli.serve", "cli.backup", "cli.dealer", "cli.vision")
TOOLS_GROUP = "cardref.tools"

# Sub-command groups shared by the product and the tools (``cardref dealer soak`` is a tool's).
GROUPS: dict[str, str] = {
    "dealer": "the dealing machine: simulate, deal, soak, benchmark",
    "vision": "the camera: mat, deck enrollment, card recognition, play detection",
    "bench": "benchmarks",
}


class Commands:
    """Where each part adds its sub-commands: at the top (``add``) or under a shared group (``group``)."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.top = parser.add_subparsers(dest="command", metavar="COMMAND")
        self._groups: dict[str, argparse._SubParsersAction] = {}

    def add(self, name: str, **kwargs: object) -> argparse.ArgumentParser:
        """A top-level sub-command."""
        parser: argparse.ArgumentParser = self.top.add_parser(name, **kwargs)  # type: ignore[arg-type]
        return parser

    def group(self, name: str) -> argparse._SubParsersAction:
        """The sub-commands of group ``name`` (one of ``GROUPS``), made on first use."""
        if name not in self._groups:
            parent = self.top.add_parser(name, help=GROUPS[name])
            self._groups[name] = parent.add_subparsers(dest=f"{name}_command", metavar="SUBCOMMAND")
            parent.set_defaults(func=lambda _args, p=parent: (p.print_help(), 2)[1])
        return self._groups[name]


def _tool_registrars() -> list[Callable[[Commands], None]]:
    found = []
    for entry in sorted(metadata.entry_points(group=TOOLS_GROUP), key=lambda e: e.name):
        try:
            found.append(entry.load())
        except ModuleNotFoundError:  # a tool whose optional dependency is not installed offers nothing
            continue
    return found


def build_parser(modules: Sequence[str] = COMMAND_MODULES, tools: bool = True) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardref", description="An automatic referee for a real card table.")
    parser.add_argument("--version", action="version", version=f"cardref {_version()}")
    commands = Commands(parser)
    for name in modules:
        importlib.import_module(name).register(commands)
    if tools:
        for register in _tool_registrars():
            register(commands)
    return parser


def _version() -> str:
    try:
        return metadata.version("cardref")
    except metadata.PackageNotFoundError:
        return "(not installed)"


def main(argv: Sequence[str] | None = None, modules: Sequence[str] = COMMAND_MODULES, tools: bool = True) -> int:
    """Run one command; ``modules``: the parts whose commands are offered (all of them by default); ``tools``:
    offer the installed tools' commands too."""
    parser = build_parser(modules, tools)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        # One line, whatever the message holds (a database's own error text may span several).
        print("cardref: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
