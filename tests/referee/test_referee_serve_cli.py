"""``cardref serve`` refuses bad options with one clear line (exit 2), never a traceback; ``cardref soak`` too."""

import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def serve(*args, tmp_path):
    return subprocess.run([sys.executable, "-m", "cli.serve", "serve", "--data", str(tmp_path / "d"),
                           *args], capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_bad_options_are_one_clear_line(tmp_path):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    try:
        for args, words in ((["--port", str(port)], "cannot listen"),
                            (["--port", "0", "--camera", "not-a-camera"], "--camera"),
                            (["--port", "0", "--dealer", "/dev/no-such-tty"], "--dealer"),
                            (["--port", "0", "--camera", "0", "--deck", "/no/such/deck"], "--deck"),
                            (["--port", "70000"], "--port"),
                            (["--port", "0", "--players", "Ann,Bo"], "--players")):
            r = serve(*args, tmp_path=tmp_path)
            assert r.returncode == 2, (args, r.stdout, r.stderr)
            assert words in r.stderr and "Traceback" not in r.stderr + r.stdout, (args, r.stderr)
    finally:
        busy.close()


def test_soak_size_must_be_positive():
    r = subprocess.run([sys.executable, "-m", "cli", "soak", "--size", "0"], capture_output=True,
                       text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 2 and "--size" in r.stderr
