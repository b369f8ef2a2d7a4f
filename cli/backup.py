"""``cardref backup``: a copy of a table's event log that a restore can use, made safely while the table runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from cli.errors import UserError
from cli.serve import default_data_dir

if TYPE_CHECKING:
    from cli.main import Commands


def register(commands: Commands) -> None:
    p = commands.add("backup", help="copy a table's event log to a new file (restore it with serve --restore)")
    p.add_argument("out", type=Path, help="the backup file to write (must not exist; made readable by you only)")
    p.add_argument("--data", metavar="DIR", type=Path, default=None,
                   help=f"the table's data folder (default {default_data_dir()})")
    p.set_defaults(func=cmd_backup)


def cmd_backup(args: argparse.Namespace) -> int:
    from referee.eventlog import DataFolderError, backup

    data = args.data or default_data_dir()
    try:
        last = backup(data, args.out)
    except DataFolderError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"{args.out}: cannot be written ({exc.strerror})") from None
    print(f"cardref backup: {args.out}: the event log of {data}, rows up to {last}; restore it with "
          f"`cardref serve --data {data} --restore {args.out}`")
    return 0
