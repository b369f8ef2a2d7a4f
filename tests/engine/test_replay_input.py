"""``cardref replay`` on hostile input: one clear line and exit 2, never a traceback or a hang (issue 13, item 4)."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main as cardref

ROOT = Path(__file__).resolve().parents[2]


def replay(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "cli", "replay", *args], input=stdin, capture_output=True,
                          text=True, timeout=60, cwd=ROOT)


@pytest.mark.parametrize("line,words", [
    ("[" * 200000 + "]" * 200000, "nested too deeply"),
    ('{"event": "match", "version": 1, "game": "pitch", "first_dealer": ' + "9" * 5000 + "}", "not a table event"),
    ('{"event": "match", "x": ' + "[" * 100000 + "]" * 100000 + "}", "nested too deeply"),
])
def test_hostile_json_is_one_clear_line(tmp_path, line, words, capsys, monkeypatch):
    path = tmp_path / "r.jsonl"
    path.write_text(line + "\n")
    assert cardref(["replay", str(path)], modules=("cli.replay",), tools=False) == 2
    err = capsys.readouterr().err
    assert words in err and "line 1" in err and len(err.strip().splitlines()) == 1
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((line + "\n").encode())))
    assert cardref(["replay", "-"], modules=("cli.replay",), tools=False) == 2
    assert words in capsys.readouterr().err


def test_a_whole_process_prints_no_traceback(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text("[" * 200000 + "]" * 200000 + "\n")
    r = replay(str(path))
    assert r.returncode == 2 and "Traceback" not in r.stderr and "nested too deeply" in r.stderr


def test_a_fifo_with_no_writer_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "record.fifo"
    os.mkfifo(fifo)
    r = replay(str(fifo))  # timeout=60: the old reader blocked forever
    assert r.returncode == 2 and "not a regular file" in r.stderr


def test_a_folder_and_a_device_are_refused(tmp_path, capsys):
    for path in (str(tmp_path), "/dev/zero"):
        assert cardref(["replay", path], modules=("cli.replay",), tools=False) == 2
        assert "not a regular file" in capsys.readouterr().err
