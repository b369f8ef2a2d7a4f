"""Pitch with the dealing machine: the simulated machine on a real pseudo-terminal deals the hand, then each seat's
refill (``deal_more``) and the declarer's rob (``deal_rest``) through ``POST /api/pitch/refill`` and ``/rob``; the
``draw`` and ``rob`` events carry the cards the machine read, which reach the director only."""

import os

import pytest
from fastapi.testclient import TestClient

from engine.match import deck_for
from firmware_bridge.driver import Timeouts
from firmware_bridge.simple import SimpleDealer
from hardware.sim import SimulatedDealer
from referee.app import create_app
from referee.dealer import DealerBridge, pitch_refill_due


@pytest.fixture
def key():
    return os.urandom(32)


def auth(tokens, role):
    return {"Authorization": "Bearer " + tokens[role]}


def to_exchange(client, app, tokens, machine=True):
    """Deal (machine or by hand), everyone passes (the dealer takes it at 4), trump spades, the discards."""
    client.post("/api/matches", json={"game": "pitch"}, headers=auth(tokens, "director"))
    offered = [a["path"] for a in client.get("/api/entry", headers=auth(tokens, "table")).json()["actions"]]
    assert ("/api/deal/machine" in offered) == (app.state.dealer_bridge is not None)  # the table page's buttons
    if machine:
        r = client.post("/api/deal/machine", headers=auth(tokens, "table"))
    else:
        r = client.post("/api/deal", json={"hands": None, "pack": None}, headers=auth(tokens, "table"))
    assert r.status_code == 200, r.text
    match = app.state.session.current.match
    for _ in range(4):
        seat = match.hand.current_player()
        assert client.post("/api/bid", json={"seat": seat, "bid": "pass"},
                           headers=auth(tokens, "table")).status_code == 200
    assert match.hand.phase == "declare"
    r = client.post("/api/declare", json={"seat": match.hand.declarer, "trump": "S"}, headers=auth(tokens, "table"))
    assert r.status_code == 200, r.text
    if machine:
        for _ in range(4):
            step = match.legal_events()[0]
            assert step["event"] == "discard", step
            r = client.post("/api/setup", json=step, headers=auth(tokens, "table"))
            assert r.status_code == 200, r.text
    return match.hand


@pytest.mark.timeout(90)
def test_the_machine_deals_the_refills_and_the_rob(tmp_path, key):
    app = create_app(tmp_path / "data", game="pitch")
    tokens = app.state.tokens
    table = auth(tokens, "table")
    with SimulatedDealer(key, seed=5, fast=True, deck=deck_for("pitch")) as sim, \
            SimpleDealer.open(sim.path, key, timeouts=Timeouts.fast()) as machine, TestClient(app) as client:
        app.state.dealer_bridge = DealerBridge(app.state.session, machine)
        hand = to_exchange(client, app, tokens)
        dealt = [c for h in app.state.session.record()[-1 - 4 - 1 - 4]["hands"] for c in h]  # the deal event
        assert len(dealt) == 36 and None not in dealt
        order = hand.draw_order()
        assert machine.status().hopper == 18
        # the table page offers the machine's refill and rob (the hand is the machine's), and by hand
        offers = client.get("/api/entry", headers=table).json()["actions"]
        assert {"path": "/api/pitch/refill", "body": {"seat": order[0]}} in [
            {"path": a["path"], "body": a["body"]} for a in offers]
        assert any(a["path"] == "/api/pitch/rob" and a["body"] == {"seat": hand.declarer} for a in offers)
        public_ws = client.websocket_connect(f"/ws?token={tokens['public']}")
        public_ws.__enter__()

        # the rob waits for the refills; a draw the declarer asks is refused before the machine moves a card
        r = client.post("/api/pitch/rob", json={}, headers=table)
        assert r.status_code == 409 and f"seat {order[0]} has not had its refill" in r.json()["error"]
        r = client.post("/api/pitch/refill", json={"seat": hand.declarer}, headers=table)
        assert r.status_code == 409 and "declarer does not draw" in r.json()["error"]
        r = client.post("/api/pitch/refill", json={"seat": order[0], "count": 19}, headers=table)
        assert r.status_code == 422 and "count" in r.json()["error"]
        assert machine.status().hopper == 18  # nothing dealt by the refused steps

        drawn = []
        for seat in order:
            due = pitch_refill_due(hand, seat)
            before = machine.status().hopper
            r = client.post("/api/pitch/refill", json={"seat": seat}, headers=table)
            assert r.status_code == 200, r.text
            event = app.state.session.record()[-1]
            assert event["event"] == "draw" and event["seat"] == seat and len(event["cards"]) == due
            assert None not in event["cards"]
            assert machine.status().hopper == before - due
            assert not any(f'"{c}"' in r.text for c in event["cards"])  # the table's answer: the public view
            public = client.get("/api/state", headers=auth(tokens, "public")).text
            assert not any(f'"{c}"' in public for c in event["cards"])
            drawn += event["cards"]
        r = client.post("/api/pitch/refill", json={"seat": order[0]}, headers=table)
        assert r.status_code == 409 and "out of order" in r.json()["error"]  # once each

        left = hand.pack_left()
        r = client.post("/api/pitch/rob", json={}, headers=table)
        assert r.status_code == 200, r.text
        event = app.state.session.record()[-1]
        assert event["event"] == "rob" and event["seat"] == hand.declarer and len(event["cards"]) == left
        assert machine.status().hopper == 0
        robbed = event["cards"]
        assert not any(f'"{c}"' in client.get("/api/state", headers=auth(tokens, "public")).text for c in robbed)
        # every card of the deck went to exactly one place, as the machine read it
        assert sorted(dealt + drawn + robbed) == sorted(deck_for("pitch"))
        r = client.post("/api/pitch/rob", json={}, headers=table)
        assert r.status_code == 409
        # the public WebSocket: the draws and the rob, none of their cards
        seen = []
        for _ in range(200):
            seen.append(public_ws.receive_text())
            if '"rob"' in seen[-1]:
                break
        public_ws.__exit__(None, None, None)
        text = "".join(seen)
        assert '"draw"' in text and '"rob"' in text
        assert not any(f'"{c}"' in text for c in drawn + robbed)

        # the director sees the cards where they went
        director = client.get("/api/state", headers=auth(tokens, "director")).json()
        certain = {c for loc in director["hand"]["locations"].values() for c in loc["certain"]}
        assert set(drawn + robbed) <= certain


def test_refill_without_the_machine_or_dealt_by_hand_takes_the_tablets_cards(tmp_path, key):
    app = create_app(tmp_path / "data", game="pitch")
    tokens = app.state.tokens
    table = auth(tokens, "table")
    with TestClient(app) as client:
        r = client.post("/api/pitch/refill", json={"seat": 1}, headers=table)
        assert r.status_code == 409 and "no dealing machine" in r.json()["error"]
        hand = to_exchange(client, app, tokens, machine=False)
        seat = hand.draw_order()[0]
        r = client.post("/api/pitch/refill", json={"seat": seat}, headers=table)
        assert r.status_code == 409 and "post the refill's cards" in r.json()["error"]
        r = client.post("/api/pitch/refill", json={"seat": seat, "cards": [None] * 3, "count": 2}, headers=table)
        assert r.status_code == 422 and "count" in r.json()["error"]
        r = client.post("/api/pitch/refill", json={"seat": 9}, headers=table)
        assert r.status_code == 422 and "seat" in r.json()["error"]
        r = client.post("/api/pitch/refill", json={"seat": seat, "cards": [None] * 3}, headers=table)
        assert r.status_code == 200, r.text
        assert app.state.session.record()[-1] == {"event": "draw", "seat": seat, "cards": [None] * 3}
        r = client.post("/api/pitch/rob", json={"cards": ["XX"]}, headers=table)
        assert r.status_code in (409, 422) and r.status_code != 500


def test_a_machine_dealt_hand_whose_machine_is_gone(tmp_path, key):
    """Dealt by the machine, which then faults: 503 and the dealer lost; the table posts the cards by hand."""
    app = create_app(tmp_path / "data", game="pitch")
    tokens = app.state.tokens
    table = auth(tokens, "table")
    with SimulatedDealer(key, seed=6, fast=True, deck=deck_for("pitch")) as sim, TestClient(app) as client:
        machine = SimpleDealer.open(sim.path, key, timeouts=Timeouts.fast())
        app.state.dealer_bridge = DealerBridge(app.state.session, machine)
        hand = to_exchange(client, app, tokens)
        machine.close()  # the cable pulled
        seat = hand.draw_order()[0]
        due = pitch_refill_due(hand, seat)
        r = client.post("/api/pitch/refill", json={"seat": seat}, headers=table)
        assert r.status_code == 503 and "post them with cards" in r.json()["error"]
        assert client.get("/api/state", headers=auth(tokens, "public")).json()["devices"]["dealer"] == "lost"
        r = client.post("/api/pitch/refill", json={"seat": seat}, headers=table)
        assert r.status_code == 409 and "dealing machine is lost" in r.json()["error"]
        r = client.post("/api/pitch/refill", json={"seat": seat, "cards": [None] * due}, headers=table)
        assert r.status_code == 200, r.text


def test_not_pitch(tmp_path, key):
    app = create_app(tmp_path / "data", game="bid_whist")
    tokens = app.state.tokens
    with SimulatedDealer(key, seed=7, fast=True, deck=deck_for("bid_whist")) as sim, \
            SimpleDealer.open(sim.path, key, timeouts=Timeouts.fast()) as machine, TestClient(app) as client:
        app.state.dealer_bridge = DealerBridge(app.state.session, machine)
        client.post("/api/matches", json={"game": "bid_whist"}, headers=auth(tokens, "director"))
        r = client.post("/api/pitch/rob", json={}, headers=auth(tokens, "table"))
        assert r.status_code == 409 and "Pitch's" in r.json()["error"]
