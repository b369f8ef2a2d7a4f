"""What a club director meets first: `cardref serve` with the match's options and five-handed Pitch, `--lan` with
its QR codes, the join links of the console, a page opened without its token, matches numbered from 1, plays
stored in canonical codes, and a failed deck check that names its cards."""

import json
import os
import re
import ssl
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from cli.errors import UserError
from cli.serve import lan_address
from dealer_protocol.cards import full_deck
from engine.match import deck_for
from firmware_bridge.driver import Timeouts
from firmware_bridge.simple import SimpleDealer
from hardware.sim import SimulatedDealer
from referee.app import create_app
from referee.dealer import DealerBridge

ROOT = Path(__file__).resolve().parents[2]


def auth(tokens, role):
    return {"Authorization": "Bearer " + tokens[role]}


def serve(tmp_path, *args, timeout=60):
    return subprocess.run([sys.executable, "-m", "cli.serve", "serve", "--data", str(tmp_path / "d"), "--port", "0",
                           *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT)


class Served:
    """`cardref serve ...` running until the test ends; its printed lines up to 'listening on'."""

    def __init__(self, tmp_path, *args):
        self.proc = subprocess.Popen([sys.executable, "-m", "cli.serve", "serve", "--data", str(tmp_path / "d"),
                                      "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, cwd=ROOT)
        self.lines = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"serve stopped: {self.proc.stderr.read()}")
            self.lines.append(line.rstrip("\n"))
            if line.startswith("listening on "):
                self.url = line.split()[-1]
                return
        raise AssertionError("serve did not start")

    def text(self):
        return "\n".join(self.lines)

    def token(self, page):
        return re.search(rf"/{page}\?token=(\S+)", self.text()).group(1)

    def close(self):
        self.proc.terminate()
        self.proc.wait(10)
        self.proc.stdout.close()
        self.proc.stderr.close()


def test_options_and_five_handed_pitch_from_the_command_line(tmp_path):
    s = Served(tmp_path, "--game", "pitch", "--players", "Ann,Bo,Cy,Di,Ed", "--option", "target=32",
               "--option", "reverse=yes", "--option", "points=13", "--option", "dirty=true")
    try:
        assert "match 1 started: Ann, Bo, Cy, Di, Ed" in s.text()
        req = urllib.request.Request(s.url + "/api/state", headers={"Authorization": "Bearer " + s.token("table")})
        state = json.loads(urllib.request.urlopen(req, timeout=10).read())
        assert state["players"] == ["Ann", "Bo", "Cy", "Di", "Ed"] and state["match_number"] == 1
        opts = state["options"]
        assert (opts["players"], opts["target"], opts["reverse"], opts["points"], opts["dirty"]) == (5, 32, True, 13,
                                                                                                       True)
    finally:
        s.close()


@pytest.mark.parametrize("args,words", [
    (["--players", "A,B,C,D", "--option", "target"], "write it NAME=VALUE"),
    (["--players", "A,B,C,D", "--option", "target=abc"], "'target' = 'abc' is not allowed; allowed: an integer"),
    (["--players", "A,B,C,D", "--option", "colour=red"], "bid_whist has no option 'colour'; its options:"),
    (["--players", "A,B,C,D", "--option", "nt_jokers=maybe"], 'allowed: "swap", "dead"'),
    (["--players", "A,B,C,D", "--option", "target=9", "--option", "target=8"], "given twice"),
    (["--option", "target=9"], "give --players too"),
    (["--players", "A,B,C,D,E"], "played by 4 players, 5 named"),
    (["--game", "pitch", "--players", "A,B,C,D,E", "--option", "players=4"], "played by 4 players, 5 named"),
])
def test_bad_match_options_are_one_clear_line(tmp_path, args, words):
    r = serve(tmp_path, *args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert words in r.stderr and "Traceback" not in r.stderr + r.stdout, r.stderr


def test_lan_prints_reachable_links_and_a_qr_code_per_page(tmp_path):
    try:
        address = lan_address()
    except UserError as exc:  # a machine with no network at all: the refusal says what to do
        assert "Wi-Fi" in str(exc)
        r = serve(tmp_path, "--lan")
        assert r.returncode == 2 and "--lan" in r.stderr
        return
    assert not address.startswith("127.")
    s = Served(tmp_path, "--lan")
    try:
        # --lan serves the club's network over HTTPS with the table's own certificate (issue 13); urllib checks it
        # against that certificate, which names the address.
        assert s.url.startswith(f"https://{address}:")
        tls = ssl.create_default_context(cafile=str(tmp_path / "d" / "tls" / "cert.pem"))
        for page in ("table", "scoreboard", "director"):
            assert f"{s.url}/{page}?token=" in s.text()
        assert s.text().count("\u2580") > 30 and s.text().count("\u2588") > 100  # three QR codes in block characters
        # the links work from the network address, and the join links of the console are the same ones
        director = s.token("director")
        req = urllib.request.Request(s.url + "/api/join", headers={"Authorization": "Bearer " + director})
        join = json.loads(urllib.request.urlopen(req, timeout=10, context=tls).read())
        assert join["base_url"] == s.url and join["tls_fingerprint"] in s.text()
        assert {p["url"] for p in join["pages"]} == {f"{s.url}/table?token={s.token('table')}",
                                                     f"{s.url}/scoreboard?token={s.token('scoreboard')}",
                                                     f"{s.url}/director?token={director}"}
    finally:
        s.close()


def test_join_links_are_the_directors_and_pages_without_a_token_explain(tmp_path):
    app = create_app(tmp_path / "data")
    tokens = app.state.tokens
    with TestClient(app) as client:
        for role in ("public", "table"):
            assert client.get("/api/join", headers=auth(tokens, role)).status_code == 403
        join = client.get("/api/join", headers=auth(tokens, "director")).json()
        pages = {p["page"]: p for p in join["pages"]}
        assert pages["table"]["url"].endswith(f"/table?token={tokens['table']}")
        assert pages["scoreboard"]["url"].endswith(f"/scoreboard?token={tokens['public']}")
        assert pages["director"]["url"].endswith(f"/director?token={tokens['director']}")
        assert all(p["qr_svg"].lstrip().startswith("<svg") for p in pages.values())
        for path in ("/", "/table", "/scoreboard", "/director", "/table?token=not-a-token"):
            r = client.get(path)
            assert r.status_code == 401 and "how to join this table" in r.text, path
            assert not any(t in r.text for t in tokens.values())
        r = client.get(f"/table?token={tokens['table']}")
        assert r.status_code == 200 and "how to join" not in r.text


def test_matches_are_numbered_from_one_and_plays_are_stored_canonical(tmp_path):
    app = create_app(tmp_path / "data")
    tokens = app.state.tokens
    session = app.state.session
    # Device status rows come first (as when serve starts), so the first match's log row is not row 1.
    session.set_device("dealer", "none", "system", "serve", "no machine")
    session.set_device("camera", "none", "system", "serve", "no camera")
    with TestClient(app) as client:
        r = client.post("/api/matches", json={"game": "bid_euchre", "players": ["A", "B", "C", "D"]},
                        headers=auth(tokens, "director"))
        state = r.json()["state"]
        assert state["match"] == 3 and state["match_number"] == 1
        assert client.get("/api/state", headers=auth(tokens, "public")).json()["match_number"] == 1
        r = client.post("/api/matches", json={"game": "bid_euchre"}, headers=auth(tokens, "table"))
        assert r.status_code == 409 and "match 1 is still being played" in r.json()["error"]
        hands = [["9S", "TS", "JS", "QS", "KS", "AS"], ["9H", "10H", "JH", "QH", "KH", "AH"],
                 ["9D", "TD", "JD", "QD", "KD", "AD"], ["9C", "TC", "JC", "QC", "KC", "AC"]]
        assert client.post("/api/deal", json={"hands": hands}, headers=auth(tokens, "director")).status_code == 200
        for seat, bid in ((1, "3"), (2, "pass"), (3, "pass"), (0, "pass")):
            r = client.post("/api/bid", json={"seat": seat, "bid": bid}, headers=auth(tokens, "table"))
            assert r.status_code == 200, r.text
        assert client.post("/api/declare", json={"seat": 1, "trump": "H"},
                           headers=auth(tokens, "table")).status_code == 200
        r = client.post("/api/play", json={"seat": 1, "card": "10h"}, headers=auth(tokens, "table"))
        assert r.status_code == 200, r.text
        record = client.get("/api/export/record", headers=auth(tokens, "director")).text
        assert "10H" not in record and '"card": "TH"' in record and '"9H", "TH", "JH"' in record
        assert client.post("/api/matches", json={"game": "pitch"}, headers=auth(tokens, "director")).status_code == 200
        listed = client.get("/api/matches", headers=auth(tokens, "director")).json()
        numbers = [(m["number"], m["game"]) for m in listed]
        assert numbers == [(1, "bid_euchre"), (2, "pitch")]


@pytest.mark.parametrize("game,deck,words", [
    ("bid_whist", [c for c in deck_for("bid_whist") if c not in ("2C", "QH")], ["missing: ", "QH", "2C"]),
    ("bid_euchre", full_deck(), ["take out the 2-8s and the jokers"]),
])
def test_a_failed_deck_check_names_its_cards_to_the_table(tmp_path, game, deck, words):
    key = os.urandom(32)
    app = create_app(tmp_path / "data", game=game)
    tokens = app.state.tokens
    with SimulatedDealer(key, seed=3, fast=True, deck=deck) as sim, \
            SimpleDealer.open(sim.path, key, timeouts=Timeouts.fast()) as machine, TestClient(app) as client:
        app.state.dealer_bridge = DealerBridge(app.state.session, machine)
        app.state.session.set_device("dealer", "ok", "system", "test", "joined")
        client.post("/api/matches", json={"game": game}, headers=auth(tokens, "director"))
        r = client.post("/api/deal/machine", headers=auth(tokens, "table"))
        error = r.json()["error"]
        assert r.status_code == 409 and error.startswith("the deck check failed"), error
        assert all(w in error for w in words) and "a card" not in error, error
        # the deck is wrong, not the machine: it stays joined, and nothing was dealt
        state = client.get("/api/state", headers=auth(tokens, "public")).json()
        assert state["devices"]["dealer"] == "ok" and state["hand"]["phase"] == "deal"


def test_version():
    r = subprocess.run([sys.executable, "-m", "cli", "--version"], capture_output=True, text=True, timeout=60,
                       cwd=ROOT)
    from importlib import metadata

    assert r.returncode == 0 and r.stdout.strip() == f"cardref {metadata.version('cardref')}"


def test_serve_takes_the_deck_file_that_vision_enroll_writes(tmp_path):
    """docs/real-table.md: `cardref vision enroll --out club-deck.npz`, then `cardref serve --deck club-deck.npz`."""
    from referee.camera import open_camera
    from tools.drawn_deck import drawn_deck
    from vision import deck as decklib

    enrolled = decklib.enroll_images(drawn_deck(), "club", "test")
    enrolled.save(str(tmp_path / "club-deck.npz"))
    app = create_app(tmp_path / "data")
    bridge = open_camera(app.state.session, "0", str(tmp_path / "club-deck.npz"))
    assert bridge.detector.recogniser.mode == "enrolled"
    assert {"AS", "TH", "BJ", "LJ"} <= set(bridge.detector.recogniser.templates.labels)
