"""The table's append-only event log: one SQLite file, WAL, ``synchronous=FULL``.

Every event the table produces is written here *before* it is acted on, and the table's state is always what
replaying this log gives (``referee.table``). Nothing is ever updated or deleted: a refusal, a correction or a
director's ruling is one more row. The file holds the dealt hands, so it is the director's: it lives in a
private directory (0700) and the file itself is 0600.

A row: ``seq`` (1, 2, ...: the order of the table), ``time`` (Unix seconds), ``match`` (the match it belongs to),
``source`` (the role or device that produced it: table, director, camera, dealer, system), ``actor`` (who),
``kind`` (see below), ``event`` (the JSON), and for corrections ``why`` and ``target`` (the sequence corrected).

Kinds: ``match`` (a match starts; the record's header), ``game`` (a table record event: deal, bid, play...),
``refused`` (the engine refused the attempt ``target``; ``why`` is its reason: the attempt stays in the log and is
never applied), ``undo`` / ``replace`` (the director's corrections of event ``target``), ``ruling`` (the
director accepts or rejects a renege call), ``status`` (a device lost or back), ``observation`` (what a device saw
that is not a table event: the camera's unsure read, for the director).

Nothing lost, nothing started empty: the last seq written is kept beside the log (``events.sqlite.length``); at
start the log must pass SQLite's integrity check, hold our table only, have a JSON object of a known kind in every
row, and be no shorter than that record; once the table has been used, a missing or empty log is refused too. Each
refusal is one line naming the way back (``backup`` / ``restore`` below: ``cardref backup``, ``cardref serve
--restore``). ``checkpoint`` folds the WAL into the database file (the service calls it on a schedule and at its
stop), so after a clean stop the database file alone is the whole log.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

COLUMNS = ("seq", "time", "match", "source", "actor", "kind", "event", "why", "target")
KINDS = ("match", "game", "refused", "undo", "replace", "ruling", "status", "observation")

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    time REAL NOT NULL,
    match INTEGER NOT NULL,
    source TEXT NOT NULL,
    actor TEXT NOT NULL,
    kind TEXT NOT NULL,
    event TEXT NOT NULL,
    why TEXT,
    target INTEGER
);
"""


@dataclass(frozen=True)
class Row:
    """One row of the log."""

    seq: int
    time: float
    match: int
    source: str
    actor: str
    kind: str
    event: dict[str, Any]
    why: str | None = None
    target: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "time": self.time,
            "match": self.match,
            "source": self.source,
            "actor": self.actor,
            "kind": self.kind,
            "event": self.event,
            "why": self.why,
            "target": self.target,
        }


class DataFolderError(Exception):
    """The data folder cannot be used as it is (a damaged or missing log, a bad tokens file, a folder others can
    read): the service says so in one line, with the way to recover, and does not start."""


class EventLogError(DataFolderError):
    """The log cannot be opened or written (a full disk, a file that is not ours, a damaged log)."""


def recover_hint(data_dir: Path) -> str:
    return (f"restore the last backup with `cardref serve --data {data_dir} --restore BACKUP` "
            f"(backups are made by `cardref backup --data {data_dir} FILE`)")


def private_dir(path: Path) -> Path:
    """``path`` as a folder readable by its owner only: made 0700 if it is new; an existing one that others may
    read or enter is refused with the command that fixes it (it is never changed behind its owner's back)."""
    if path.exists() or path.is_symlink():
        if not path.is_dir():
            raise DataFolderError(f"{path}: is not a folder (the table's data folder must be one)")
        mode = path.stat().st_mode
        if mode & 0o077:
            raise DataFolderError(f"{path}: others may read this folder (mode {stat.S_IMODE(mode):o}) and it would "
                                  f"hold the dealt hands and the tokens: `chmod 700 {path}`, or choose a new "
                                  "folder with --data")
        return path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.mkdir(mode=0o700)
    except OSError as exc:
        raise DataFolderError(f"{path}: cannot be made ({exc.strerror})") from None
    os.chmod(path, stat.S_IRWXU)  # mkdir's mode is cut by the umask; a new folder is ours to set
    return path


def length_file(path: Path) -> Path:
    """Where the log's last written seq is kept, beside it: a log found shorter has lost rows."""
    return path.with_name(path.name + ".length")


MARK = "cardref event log, last seq "
MARK_WIDTH = len(MARK) + 21  # the seq as 20 digits and a newline: every write is the same size, in place


def read_length(path: Path) -> int | None:
    """The last seq recorded beside the log at ``path``; None if none was recorded (a new table)."""
    side = length_file(path)
    if not side.exists():
        return None
    try:
        text = side.read_text(encoding="ascii")
        if not text.startswith(MARK):
            raise ValueError("no mark")
        return int(text[len(MARK):].strip())
    except (OSError, ValueError) as exc:
        raise EventLogError(f"{side}: the log's recorded length cannot be read ({exc}); if {path.name} is known "
                            f"to be whole, remove {side.name}; otherwise {recover_hint(path.parent)}") from None


def write_length(path: Path, last_seq: int) -> None:
    side = length_file(path)
    fd = os.open(side, os.O_CREAT | os.O_WRONLY, 0o600)
    try:
        os.pwrite(fd, f"{MARK}{last_seq:020d}\n".encode("ascii"), 0)
        os.fsync(fd)
    finally:
        os.close(fd)


def check_database(db: sqlite3.Connection, where: Path) -> int:
    """A log that is whole: SQLite's integrity check passes, the table is ours, every row's event is a JSON
    object of a known kind. Returns the last seq. EventLogError naming what is wrong otherwise."""
    hint = recover_hint(where.parent)
    try:
        problems = [r[0] for r in db.execute("PRAGMA integrity_check").fetchall()]
        if problems != ["ok"]:
            first = (problems[0] or "").splitlines()[0] if problems else "no answer"
            raise EventLogError(f"{where}: the event log is damaged ({first}); {hint}")
        columns = [r[1] for r in db.execute("PRAGMA table_info(events)").fetchall()]
        if columns != list(COLUMNS):
            raise EventLogError(f"{where}: not a cardref event log (its table 'events' has columns "
                                f"{columns or 'none'}); {hint}")
        for seq, kind, event in db.execute("SELECT seq, kind, event FROM events ORDER BY seq"):
            try:
                parsed = json.loads(event) if isinstance(event, str) else None
            except (ValueError, RecursionError):
                parsed = None
            if not isinstance(parsed, dict) or kind not in KINDS:
                raise EventLogError(f"{where}: row {seq} of the event log is damaged (its event is not one the "
                                    f"referee wrote); {hint}")
        found = db.execute("SELECT MAX(seq) FROM events").fetchone()
    except sqlite3.DatabaseError as exc:
        raise EventLogError(f"{where}: the event log is damaged ({exc}); {hint}") from None
    return int(found[0] or 0)


class EventLog:
    """The append-only log of one table (every match it plays).

    ``established``: the table has been used (its tokens exist): a missing or empty log is then a lost one,
    refused, and never started afresh. The last seq written is kept beside the log (``events.sqlite.length``),
    so a log found shorter (its ``-wal`` deleted, an old copy put back) is refused too."""

    def __init__(self, path: Path | str, established: bool = False) -> None:
        self.path = Path(path)
        private_dir(self.path.parent)
        hint = recover_hint(self.path.parent)
        recorded = read_length(self.path)
        if self.path.exists() and not self.path.is_file():
            raise EventLogError(f"{self.path}: is not a file (the event log must be one); {hint}")
        if established or recorded is not None:
            if not self.path.exists():
                raise EventLogError(f"{self.path}: the event log is missing, but this table has played; {hint}")
            if self.path.stat().st_size == 0:
                raise EventLogError(f"{self.path}: the event log is empty, but this table has played; {hint}")
        # Created 0600 before SQLite opens it, so the hands are never readable by others, not even for a moment.
        fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
        os.close(fd)
        os.chmod(self.path, 0o600)
        old_umask = os.umask(0o077)  # the -wal and -shm files SQLite creates beside it are private too
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            # FULL: each commit is on the disk (the WAL fsynced) before append() returns: a power cut loses nothing
            # that was acknowledged.
            self.db.execute("PRAGMA synchronous=FULL")
            tables = {name for (name,) in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables - {"events"} or (not tables and (established or recorded is not None)):
                # Another program's database, or ours with its table gone: never made into a new, empty log.
                self.db.close()
                raise EventLogError(f"{self.path}: not a cardref event log (its tables: "
                                    f"{', '.join(sorted(tables)) or 'none'}); {hint}")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise EventLogError(f"{self.path}: not an event log ({exc}); {hint}") from None
        finally:
            os.umask(old_umask)
        try:
            last = check_database(self.db, self.path)
        except EventLogError:
            self.db.close()
            raise
        if recorded is not None and last < recorded:
            self.db.close()
            raise EventLogError(f"{self.path}: the event log ends at row {last} but row {recorded} was written: "
                                f"rows are lost (a deleted or damaged -wal, or an old copy); {hint}")
        for suffix in ("-wal", "-shm"):
            side = Path(str(self.path) + suffix)
            if side.exists():
                os.chmod(side, 0o600)
        # The recorded length is written after each append (no fsync: the row itself is on the disk first, so the
        # record can lag behind the log, never run ahead of it) and fsynced at each checkpoint.
        self._length_fd = os.open(length_file(self.path), os.O_CREAT | os.O_WRONLY, 0o600)
        self._note_length(last)
        self.checkpoint()

    def _note_length(self, last_seq: int) -> None:
        os.pwrite(self._length_fd, f"{MARK}{last_seq:020d}\n".encode("ascii"), 0)

    def checkpoint(self) -> None:
        """Fold the WAL into the database file, so that the file alone holds every row (a backup of it is
        whole), and put the recorded length on the disk. Called on a schedule by the service and at its stop."""
        try:
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            raise EventLogError(f"the event log could not be checkpointed: {exc}") from None
        os.fsync(self._length_fd)

    def close(self) -> None:
        """Checkpoint and close: after a clean stop the database file alone is the whole log."""
        try:
            self.checkpoint()
        finally:
            self.db.close()
            os.close(self._length_fd)

    def append(
        self,
        match: int,
        source: str,
        actor: str,
        kind: str,
        event: dict[str, Any],
        why: str | None = None,
        target: int | None = None,
    ) -> Row:
        """Write one row and return it once it is on the disk."""
        if kind not in KINDS:
            raise ValueError(f"unknown row kind {kind!r}")
        now = time.time()
        text = json.dumps(event, separators=(",", ":"))
        try:
            cur = self.db.execute(
                "INSERT INTO events (time, match, source, actor, kind, event, why, target) VALUES (?,?,?,?,?,?,?,?)",
                (now, match, source, actor, kind, text, why, target),
            )
        except sqlite3.Error as exc:
            raise EventLogError(f"the event log could not be written: {exc}") from None
        seq = cur.lastrowid
        assert seq is not None
        self._note_length(seq)
        return Row(seq, now, match, source, actor, kind, json.loads(text), why, target)

    def rows(self, after: int = 0, match: int | None = None) -> Iterator[Row]:
        """The rows in order (those after ``after``; of one match if given)."""
        if match is None:
            cur = self.db.execute("SELECT * FROM events WHERE seq > ? ORDER BY seq", (after,))
        else:
            cur = self.db.execute("SELECT * FROM events WHERE seq > ? AND match = ? ORDER BY seq", (after, match))
        for seq, t, m, source, actor, kind, event, why, target in cur:
            yield Row(seq, t, m, source, actor, kind, json.loads(event), why, target)

    def get(self, seq: int) -> Row | None:
        cur = self.db.execute("SELECT * FROM events WHERE seq = ?", (seq,))
        found = cur.fetchone()
        if found is None:
            return None
        s, t, m, source, actor, kind, event, why, target = found
        return Row(s, t, m, source, actor, kind, json.loads(event), why, target)

    def last_seq(self) -> int:
        found = self.db.execute("SELECT MAX(seq) FROM events").fetchone()
        return int(found[0] or 0)

    def matches(self) -> list[int]:
        return [m for (m,) in self.db.execute("SELECT DISTINCT match FROM events ORDER BY match")]


def _open_readonly(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise EventLogError(f"{path}: no such file")
    try:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise EventLogError(f"{path}: cannot be opened ({exc})") from None


def backup(data_dir: Path, out: Path) -> int:
    """Copy the table's log to ``out`` (a new file, 0600), consistent even while the service writes: SQLite's
    online backup, then the copy checked as a restore would check it. Returns the copy's last seq."""
    source = data_dir / "events.sqlite"
    if out.exists() or out.is_symlink():
        raise EventLogError(f"{out}: already exists; a backup is written to a new file")
    db = _open_readonly(source)
    try:
        check_database(db, source)
        fd = os.open(out, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)  # the hands: private from the first byte
        os.close(fd)
        target = sqlite3.connect(out, isolation_level=None)
        try:
            db.backup(target)
            target.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            return check_database(target, out)
        finally:
            target.close()
    except sqlite3.Error as exc:
        raise EventLogError(f"{source}: the backup failed ({exc})") from None
    finally:
        db.close()


def restore(data_dir: Path, copy: Path) -> tuple[int, Path | None]:
    """Put the backup ``copy`` in place of the table's log. The copy is checked first (a damaged backup changes
    nothing); the log that was there, with its -wal and -shm, is moved aside into ``damaged-<time>/``, never
    deleted. Returns the restored log's last seq and where the old files went."""
    db = _open_readonly(copy)
    try:
        last = check_database(db, copy)
        private_dir(data_dir)
        target = data_dir / "events.sqlite"
        aside: Path | None = None
        old = [p for p in (target, Path(f"{target}-wal"), Path(f"{target}-shm"), length_file(target))
               if p.exists() or p.is_symlink()]
        if old:
            aside = data_dir / time.strftime("damaged-%Y%m%dT%H%M%S", time.gmtime())
            aside.mkdir(mode=0o700)
            for p in old:
                p.rename(aside / p.name)
        fd = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)
        dest = sqlite3.connect(target, isolation_level=None)
        try:
            db.backup(dest)
        finally:
            dest.close()
    except sqlite3.Error as exc:
        raise EventLogError(f"{copy}: cannot be restored ({exc})") from None
    finally:
        db.close()
    write_length(target, last)
    return last, aside
