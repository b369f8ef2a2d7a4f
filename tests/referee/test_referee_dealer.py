"""The dealing machine joined to the table: the simulated machine on a real pseudo-terminal deals through
``POST /api/deal/machine``; the hands reach the director only; a failed machine leaves the table dealing by hand."""

import os

import pytest
from fastapi.testclient import TestClient

from engine.match import deck_for
from firmware_bridge.driver import Timeouts
from firmware_bridge.simple import SimpleDealer
from hardware.sim import SimulatedDealer
from referee.app import create_app
from referee.dealer import DealerBridge


@pytest.fixture
def key():
    return os.urandom(32)


def auth(tokens, role):
    return {"Authorization": "Bearer " + tokens[role]}


@pytest.mark.parametrize("game", ["bid_whist", "bid_euchre", "pitch"])
def test_the_machine_deals_and_the_director_alone_sees_the_hands(tmp_path, key, game):
    app = create_app(tmp_path / "data", game=game)
    tokens = app.state.tokens
    with SimulatedDealer(key, seed=3, fast=True, deck=deck_for(game)) as sim, \
            SimpleDealer.open(sim.path, key, timeouts=Timeouts.fast()) as machine, TestClient(app) as client:
        assert client.post("/api/deal/machine", headers=auth(tokens, "table")).status_code == 409  # no match yet
        client.post("/api/matches", json={"game": game}, headers=auth(tokens, "director"))
        r = client.post("/api/deal/machine", headers=auth(tokens, "table"))
        assert r.status_code == 409 and "no dealing machine" in r.json()["error"]
        app.state.dealer_bridge = DealerBridge(app.state.session, machine)
        r = client.post("/api/deal/machine", headers=auth(tokens, "table"))
        assert r.status_code == 200, r.text
        assert r.json()["state"]["hand"]["phase"] == "bid"
        assert "locations" not in r.json()["state"]["hand"]
        deal = app.state.session.record()[-1]
        assert deal["event"] == "deal"
        dealt = [c for h in deal["hands"] for c in h if c is not None] + [c for c in deal.get("kitty") or [] if c]
        assert len(dealt) == len(set(dealt)) >= 20 and set(dealt) <= set(deck_for(game))
        director = client.get("/api/state", headers=auth(tokens, "director")).json()
        certain = {c for name, loc in director["hand"]["locations"].items() for c in loc["certain"]}
        assert set(dealt) <= certain
        public = client.get("/api/state", headers=auth(tokens, "public")).text
        assert not any(f'"{c}"' in public for c in dealt)
        assert client.post("/api/deal/machine", headers=auth(tokens, "table")).status_code == 409  # not to deal


def test_a_failed_machine_leaves_the_table_dealing_by_hand(tmp_path, key):
    app = create_app(tmp_path / "data", dealer="ok")
    tokens = app.state.tokens
    with SimulatedDealer(key, seed=4, fast=True, deck=deck_for("bid_whist")) as sim, TestClient(app) as client:
        machine = SimpleDealer.open(sim.path, key, timeouts=Timeouts.fast())
        app.state.dealer_bridge = DealerBridge(app.state.session, machine)
        client.post("/api/matches", json={"game": "bid_whist"}, headers=auth(tokens, "director"))
        machine.close()  # the cable pulled
        r = client.post("/api/deal/machine", headers=auth(tokens, "table"))
        assert r.status_code == 503 and "deal by hand" in r.json()["error"]
        assert client.get("/api/state", headers=auth(tokens, "public")).json()["devices"]["dealer"] == "lost"
        r = client.post("/api/deal", json={"hands": None, "kitty": None}, headers=auth(tokens, "table"))
        assert r.status_code == 200 and r.json()["state"]["hand"]["phase"] == "bid"
