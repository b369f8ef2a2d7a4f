"""Inputs hardened (issue 13): tokens checked and compared in constant time, undo once, a refused post rebuilds
nothing, idle connections closed, HTTPS off loopback."""

import json
import random
import socket
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

from engine.match import Match
from engine.simulate import random_event
from referee.api.auth import load_tokens
from referee.app import create_app
from referee.eventlog import EventLog
from referee.table import Refused, TableSession

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("tokens", [
    {"public": "", "table": "", "director": ""},
    {"public": "p" * 24, "table": "t" * 24, "director": "t" * 24},
    {"public": "p" * 24, "table": "short", "director": "d" * 24},
    {"public": "p" * 24, "table": "t" * 24},
    {"public": "p" * 24, "table": 12345678901234567890, "director": "d" * 24},
    ["p" * 24, "t" * 24, "d" * 24],
])
def test_a_bad_tokens_file_is_refused(tmp_path, tokens):
    from referee.api.auth import TokenFileError

    (tmp_path / "tokens.json").write_text(json.dumps(tokens))
    with pytest.raises(TokenFileError):
        load_tokens(tmp_path)


def test_empty_tokens_never_make_a_tokenless_request_a_directors(tmp_path):
    from referee.api.auth import TokenFileError

    data = tmp_path / "d"
    data.mkdir(mode=0o700)
    (data / "tokens.json").write_text(json.dumps({"public": "", "table": "", "director": ""}))
    with pytest.raises(TokenFileError):
        create_app(data)


def test_role_for_compares_every_token():
    from referee.api.auth import role_for

    tokens = {"public": "p" * 24, "table": "t" * 24, "director": "d" * 24}
    assert role_for(tokens, "d" * 24) == "director" and role_for(tokens, "t" * 24) == "table"
    assert role_for(tokens, "") is None and role_for(tokens, None) is None and role_for(tokens, "d" * 23) is None
    assert role_for(tokens, "\udcff" * 3) is None  # not encodable as given: no crash


def session_with_events(tmp_path, n=12):
    session = TableSession(EventLog(tmp_path / "p" / "events.sqlite"))
    session.create_match("bid_whist", {}, ["Ann", "Bo", "Cy", "Di"], 0, "director", "d")
    mirror = Match("bid_whist", {}, ["Ann", "Bo", "Cy", "Di"])
    rng = random.Random(4)
    rows = []
    for _ in range(n):
        e = random_event(mirror, rng)
        mirror.apply(e)
        rows.append(session.submit(e, "table", "t"))
    return session, rows


def test_an_event_undone_twice_is_refused_and_an_undo_of_the_undo_restores_it(tmp_path):
    session, rows = session_with_events(tmp_path)
    target = rows[-1].seq
    first = session.correct("undo", target, "Dee", "entered twice")
    with pytest.raises(Refused, match=f"already undone \\(by event {first.seq}\\)"):
        session.correct("undo", target, "Dee", "again")
    before = len(session.current.events)
    session.correct("undo", first.seq, "Dee", "it was right")  # restores the event
    assert len(session.current.events) == before + 1 and session.current.seqs[-1] == target
    session.correct("undo", target, "Dee", "wrong after all")  # and it can be undone again
    assert target not in session.current.seqs


def test_sixteen_undos_at_once_undo_once(tmp_path):
    session, rows = session_with_events(tmp_path)
    target = rows[-1].seq
    outcomes = []

    def undo():
        try:
            session.correct("undo", target, "Dee", "twice")
            outcomes.append("ok")
        except Refused:
            outcomes.append("refused")

    threads = [threading.Thread(target=undo) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["ok"] + ["refused"] * 15


def test_a_refused_post_rebuilds_nothing_from_the_log(tmp_path):
    """Issue 13, item 11: each refused post replayed the whole log under the lock (104 ms after 1,000 rows). The
    engine puts a refused event back, so the state stands; the log is not read again."""
    session, _ = session_with_events(tmp_path)
    before = session.director_state()
    reads = []
    real_rows = session.log.rows

    def counting_rows(*args, **kwargs):
        reads.append(args)
        return real_rows(*args, **kwargs)

    session.log.rows = counting_rows
    with pytest.raises(Refused):
        session.submit({"event": "bid", "seat": 0, "bid": "99 high"}, "table", "t")
    assert reads == []
    after = session.director_state()
    assert after["hand"] == before["hand"] and after["refused"][-1]["event"]["bid"] == "99 high"


def test_an_ignored_field_is_not_logged_nor_repeated(tmp_path):
    app = create_app(tmp_path / "d")
    with TestClient(app) as client:
        h = {"Authorization": "Bearer " + app.state.tokens["table"]}
        client.post("/api/matches", json={"game": "pitch"}, headers=h)
        client.post("/api/deal", json={"hands": None}, headers=h)
        r = client.post("/api/setup", json={"event": "draw", "seat": 1, "cards": [], "card": "6C", "joker": "BJ",
                                            "drew": "AS"}, headers=h)
        assert r.status_code == 409 and not any(c in r.json()["error"] for c in ("6C", "BJ", "AS"))
        logged = app.state.session.log.get(r.json()["seq"]).event
        assert logged == {"event": "draw", "seat": 1, "cards": []}


class ServerThread:
    """The service's own uvicorn settings (``referee.http_guard.uvicorn_config``, as ``serve`` uses them), in a
    thread, with a short request deadline."""

    def __init__(self, app, **kwargs):
        from referee.http_guard import uvicorn_config

        self.config = uvicorn_config(app, host="127.0.0.1", log_level="error", **kwargs)
        self.server = uvicorn.Server(self.config)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self):
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


def closed_by_server(sock, within):
    sock.settimeout(within)
    try:
        return sock.recv(100) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_idle_and_slow_connections_are_closed_and_open_ones_capped(tmp_path):
    app = create_app(tmp_path / "d")
    with ServerThread(app, request_timeout=0.5, max_connections=20) as srv:
        idle = socket.create_connection(("127.0.0.1", srv.port))
        slow = socket.create_connection(("127.0.0.1", srv.port))
        slow.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n")  # the head never finished
        assert closed_by_server(idle, 10) and closed_by_server(slow, 10)
        many = [socket.create_connection(("127.0.0.1", srv.port)) for _ in range(30)]
        time.sleep(0.2)
        extra_closed = sum(closed_by_server(s, 0.05) for s in many)
        assert extra_closed >= 10  # those over the cap closed at once, before any timeout
        for s in many:
            s.close()
        # A well-behaved client is served all along.
        r = httpx.get(f"http://127.0.0.1:{srv.port}/api/state",
                      headers={"Authorization": "Bearer " + app.state.tokens["public"]})
        assert r.status_code == 200


def run_serve(tmp_path, *args):
    proc = subprocess.Popen([sys.executable, "-m", "cli.serve", "serve", "--data", str(tmp_path / "d"),
                             "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("listening on "):
            break
    return proc, lines


def stop(proc):
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def test_a_network_address_is_served_over_https_with_a_kept_certificate(tmp_path):
    proc, lines = run_serve(tmp_path, "--host", "0.0.0.0")
    try:
        text = "".join(lines)
        assert lines and lines[-1].startswith("listening on https://"), text + proc.stderr.read()
        assert "0.0.0.0" not in text  # the machine's real addresses, which a tablet can type
        fingerprint = next(line for line in lines if "fingerprint" in line).split("fingerprint is ")[1].strip()
        port = int(lines[-1].rsplit(":", 1)[1])
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        with socket.create_connection(("127.0.0.1", port)) as raw, ctx.wrap_socket(raw) as tls:
            der = tls.getpeercert(binary_form=True)
        import hashlib

        assert ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest()) == fingerprint
        with socket.create_connection(("127.0.0.1", port)) as plain:  # plain HTTP gets no page
            plain.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n\r\n")
            plain.settimeout(5)
            assert not plain.recv(100).startswith(b"HTTP/1.1 200")
    finally:
        stop(proc)
    proc, lines = run_serve(tmp_path, "--host", "0.0.0.0")  # a restart keeps the same certificate
    try:
        assert any(fingerprint in line for line in lines)
    finally:
        stop(proc)


def test_insecure_says_tokens_travel_in_clear(tmp_path):
    proc, lines = run_serve(tmp_path, "--host", "0.0.0.0", "--insecure")
    try:
        text = "".join(lines)
        assert "WARNING" in text and "anyone on this network can read them" in text
        assert lines[-1].startswith("listening on http://") and "0.0.0.0" not in text
    finally:
        stop(proc)
