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


class EventLogError(Exception):
    """The log cannot be opened or written (a full disk, a file that is not ours)."""


def private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) readable by the owner only; tighten it if it exists."""
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, stat.S_IRWXU)
    return path


class EventLog:
    """The append-only log of one table (every match it plays)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        private_dir(self.path.parent)
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
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise EventLogError(f"{self.path}: not an event log ({exc})") from None
        finally:
            os.umask(old_umask)
        for suffix in ("-wal", "-shm"):
            side = Path(str(self.path) + suffix)
            if side.exists():
                os.chmod(side, 0o600)

    def close(self) -> None:
        self.db.close()

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
