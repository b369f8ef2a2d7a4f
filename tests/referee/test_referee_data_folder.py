"""A damaged data folder stops ``cardref serve`` with one clear line and the way to recover, never a traceback and
never a table started empty (issue 13, items 2 and 3); the log is checkpointed, backed up and restored."""

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import uvicorn

from cli.main import main as cardref
from engine.match import Match
from engine.simulate import random_event
from referee.app import create_app
from referee.eventlog import EventLog

ROOT = Path(__file__).resolve().parents[2]


class Served(Exception):
    """uvicorn was about to serve: the folder was accepted."""


@pytest.fixture
def no_serving(monkeypatch):
    def refuse(self, sockets=None):
        raise Served()
    monkeypatch.setattr(uvicorn.Server, "run", refuse)


def serve_line(data, capsys, *extra):
    """``cardref serve`` on ``data``: (exit code, stderr) if it refused; Served if it would have served."""
    code = cardref(["serve", "--data", str(data), "--port", "0", *extra], modules=("cli.serve",), tools=False)
    err = capsys.readouterr().err
    return code, err


def played_table(folder, rows=40, close=True):
    """A table that has played: tokens, a match, some events. ``close``: a clean stop (the log checkpointed)."""
    app = create_app(folder)
    session = app.state.session
    session.create_match("bid_whist", {}, ["Ann", "Bo", "Cy", "Di"], 0, "director", "d")
    mirror = Match("bid_whist", {}, ["Ann", "Bo", "Cy", "Di"])
    rng = random.Random(3)
    while session.log.last_seq() < rows:
        e = random_event(mirror, rng)
        mirror.apply(e)
        session.submit(e, "table", "t")
    if close:
        session.log.close()
    return session


def wal_only(tmp_path):
    """A folder as a power cut leaves it: the last rows only in the -wal (copied before any checkpoint)."""
    src = tmp_path / "live"
    session = played_table(src, rows=30)
    log = EventLog(src / "events.sqlite")  # opened again: the rows below go only to the -wal
    for _ in range(30):
        log.append(1, "table", "t", "status", {"event": "status", "device": "camera", "state": "none"})
    dst = tmp_path / "d"
    shutil.copytree(src, dst)
    log.close()
    del session
    os.chmod(dst, 0o700)
    return dst


def flip(path, offset, count=16):
    with open(path, "r+b") as f:
        f.seek(offset)
        data = bytearray(f.read(count))
        f.seek(offset)
        f.write(bytes(b ^ 0xFF for b in data))


def sql(path, statement, args=()):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(statement, args)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def length_file(db):
    return db.with_name(db.name + ".length")


def damage(kind, d, tmp_path):
    """Make the data folder ``d`` (a table that has played) damaged in one way."""
    db = d / "events.sqlite"
    if kind == "log truncated to half":
        os.truncate(db, db.stat().st_size // 2)
    elif kind == "log empty (0 bytes)":
        os.truncate(db, 0)
    elif kind == "log missing":
        db.unlink()
    elif kind == "log header overwritten":
        flip(db, 0, 16)
    elif kind == "a table page flipped":
        flip(db, 4096 + 200, 600)
    elif kind == "the last page flipped":
        flip(db, db.stat().st_size - 3000, 2000)
    elif kind == "log is a folder":
        db.unlink()
        db.mkdir()
    elif kind == "log is /dev/null":
        db.unlink()
        db.symlink_to("/dev/null")
    elif kind == "foreign schema (other columns)":
        db.unlink()
        sql(db, "CREATE TABLE events (id INTEGER PRIMARY KEY, payload TEXT)")
    elif kind == "foreign database (other tables)":
        db.unlink()
        sql(db, "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    elif kind == "events table dropped":
        sql(db, "DROP TABLE events")
    elif kind == "a row's event is not JSON":
        sql(db, "UPDATE events SET event = '{\"event\": \"bid\", ' WHERE seq = 5")
    elif kind == "a row's event is a JSON list":
        sql(db, "UPDATE events SET event = '[1, 2]' WHERE seq = 5")
    elif kind == "a row of an unknown kind":
        sql(db, "UPDATE events SET kind = 'mystery' WHERE seq = 5")
    elif kind == "a row's event nested 100,000 deep":
        sql(db, "UPDATE events SET event = ? WHERE seq = 5", ("[" * 100000 + "]" * 100000,))
    elif kind == "unknown game in the match row":
        sql(db, "UPDATE events SET event = ? WHERE seq = 1", (json.dumps({"event": "match", "game": "poker"}),))
    elif kind == "a status row without its device":
        sql(db, "INSERT INTO events (time, match, source, actor, kind, event) VALUES (0, 1, 's', 's', 'status', "
                "'{\"event\": \"status\"}')")
        length_file(db).unlink(missing_ok=True)
    elif kind == "rows deleted (an old copy put back)":
        sql(db, "DELETE FROM events WHERE seq > 10")
    elif kind == "recorded length unreadable":
        length_file(db).write_text("garbage")
        os.chmod(length_file(db), 0o600)
    elif kind == "tokens.json not JSON":
        (d / "tokens.json").write_text("{not json")
    elif kind == "tokens.json not UTF-8":
        (d / "tokens.json").write_bytes(b"\xff\xfe\x00garbage")
    elif kind == "tokens.json missing a role":
        t = json.loads((d / "tokens.json").read_text())
        del t["director"]
        (d / "tokens.json").write_text(json.dumps(t))
    elif kind == "tokens.json with empty tokens":
        (d / "tokens.json").write_text(json.dumps({"public": "", "table": "", "director": ""}))
    elif kind == "tokens.json with two roles one token":
        t = json.loads((d / "tokens.json").read_text())
        t["table"] = t["director"]
        (d / "tokens.json").write_text(json.dumps(t))
    elif kind == "tokens.json a folder":
        (d / "tokens.json").unlink()
        (d / "tokens.json").mkdir()
    elif kind == "data folder is a file":
        shutil.rmtree(d)
        d.write_text("not a folder")
    elif kind == "data folder readable by others":
        os.chmod(d, 0o755)
    else:
        raise AssertionError(kind)


KINDS = ["log truncated to half", "log empty (0 bytes)", "log missing", "log header overwritten",
         "a table page flipped", "the last page flipped", "log is a folder", "log is /dev/null",
         "foreign schema (other columns)", "foreign database (other tables)", "events table dropped",
         "a row's event is not JSON", "a row's event is a JSON list", "a row of an unknown kind",
         "a row's event nested 100,000 deep", "unknown game in the match row", "a status row without its device",
         "rows deleted (an old copy put back)", "recorded length unreadable", "tokens.json not JSON",
         "tokens.json not UTF-8", "tokens.json missing a role", "tokens.json with empty tokens",
         "tokens.json with two roles one token", "tokens.json a folder", "data folder is a file",
         "data folder readable by others"]


@pytest.fixture(scope="module")
def healthy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("healthy") / "d"
    played_table(folder)
    return folder


@pytest.mark.parametrize("kind", KINDS)
def test_a_damaged_folder_is_one_clear_line(kind, healthy, tmp_path, capsys, no_serving):
    d = tmp_path / "d"
    shutil.copytree(healthy, d)
    os.chmod(d, 0o700)
    damage(kind, d, tmp_path)
    code, err = serve_line(d, capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, (kind, err)
    assert lines[0].startswith("cardref: "), err


WAL_KINDS = ["-wal deleted", "-wal truncated", "-wal bytes flipped"]


@pytest.mark.parametrize("kind", WAL_KINDS)
def test_rows_lost_with_the_wal_are_refused_with_the_way_to_recover(kind, tmp_path, capsys, no_serving):
    d = wal_only(tmp_path)
    wal = d / "events.sqlite-wal"
    assert wal.stat().st_size > 0
    if kind == "-wal deleted":
        wal.unlink()
    elif kind == "-wal truncated":
        os.truncate(wal, wal.stat().st_size // 2)
    else:
        flip(wal, wal.stat().st_size // 2, 64)
    code, err = serve_line(d, capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "--restore" in err and "cardref backup" in err, err


def test_a_power_cut_folder_whole_starts(tmp_path, capsys, no_serving):
    d = wal_only(tmp_path)
    with pytest.raises(Served):
        serve_line(d, capsys)


def test_backup_and_restore(tmp_path, capsys, no_serving):
    d = tmp_path / "d"
    played_table(d)
    rows = sqlite3.connect(d / "events.sqlite").execute("SELECT COUNT(*) FROM events").fetchone()[0]
    out = tmp_path / "backup.sqlite"
    assert cardref(["backup", "--data", str(d), str(out)], modules=("cli.backup",), tools=False) == 0
    assert (out.stat().st_mode & 0o077) == 0
    assert "restore" in capsys.readouterr().out
    # A second backup to the same file is refused, the first kept.
    assert cardref(["backup", "--data", str(d), str(out)], modules=("cli.backup",), tools=False) == 2
    capsys.readouterr()
    os.truncate(d / "events.sqlite", 0)
    code, err = serve_line(d, capsys)
    assert code == 2 and "--restore" in err
    # A damaged backup changes nothing.
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"SQLite format 3\0" + b"\x01" * 5000)
    code, err = serve_line(d, capsys, "--restore", str(bad))
    assert code == 2 and len(err.strip().splitlines()) == 1
    with pytest.raises(Served):
        serve_line(d, capsys, "--restore", str(out))
    again = sqlite3.connect(d / "events.sqlite").execute("SELECT COUNT(*) FROM events").fetchone()[0]
    assert again == rows
    assert any(p.name.startswith("damaged-") for p in d.iterdir())  # the old log moved aside, not deleted


def test_a_new_folder_is_made_private_and_an_existing_private_one_left_alone(tmp_path, capsys, no_serving):
    d = tmp_path / "new" / "d"
    with pytest.raises(Served):
        serve_line(d, capsys)
    assert (d.stat().st_mode & 0o777) == 0o700
    with pytest.raises(Served):
        serve_line(d, capsys)
    os.chmod(d, 0o750)
    code, err = serve_line(d, capsys)
    assert code == 2 and f"chmod 700 {d}" in err
    assert (d.stat().st_mode & 0o777) == 0o750  # told, not changed


def test_after_a_clean_stop_the_database_file_alone_is_the_whole_log(tmp_path):
    """The service stopped by SIGTERM (as systemd or Ctrl-C stops it): a copy of events.sqlite without its -wal
    holds every row (it was 4 KB with every row in a 1.4 MB -wal)."""
    d = tmp_path / "d"
    proc = subprocess.Popen([sys.executable, "-m", "cli.serve", "serve", "--data", str(d), "--port", "0",
                             "--players", "Ann,Bo,Cy,Di"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)
    try:
        url = None
        for line in proc.stdout:
            if line.startswith("listening on "):
                url = line.split()[-1]
                break
        assert url, proc.stderr.read()
        tokens = json.loads((d / "tokens.json").read_text())
        import httpx

        h = {"Authorization": "Bearer " + tokens["director"]}
        for seat, bid in ((1, "4 low"), (2, "pass"), (3, "pass"), (0, "pass")):
            if seat == 1:
                assert httpx.post(url + "/api/deal", json={"hands": None}, headers=h).status_code == 200
            assert httpx.post(url + "/api/bid", json={"seat": seat, "bid": bid}, headers=h).status_code == 200
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # uvicorn stops gracefully, then raises the signal it caught again: the exit is by SIGTERM, after the stop.
    assert proc.returncode in (0, -signal.SIGTERM), proc.stderr.read()
    copy = tmp_path / "copy.sqlite"
    shutil.copy(d / "events.sqlite", copy)
    count = sqlite3.connect(copy).execute("SELECT COUNT(*) FROM events").fetchone()[0]
    live = EventLog(d / "events.sqlite", established=True)
    assert count == live.last_seq() >= 6
    live.close()
