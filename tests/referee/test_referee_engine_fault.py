"""Refusals are only the engine's IllegalEvent: an engine bug is reported as a fault of the referee (HTTP 500
naming it), never recorded as a ruling that the event could not have happened, and the table still starts."""

import pytest
from fastapi.testclient import TestClient

from engine.errors import CardError, IllegalEvent, KnowledgeError, OptionError
from engine.match import Match
from referee.app import create_app

NAMES = ["Ann", "Bo", "Cy", "Di"]


def auth(tokens, role):
    return {"Authorization": "Bearer " + tokens[role]}


@pytest.fixture
def table(tmp_path):
    app = create_app(tmp_path / "data", game="bid_euchre")
    with TestClient(app, raise_server_exceptions=False) as client:
        d = auth(app.state.tokens, "director")
        assert client.post("/api/matches", json={"players": NAMES}, headers=d).status_code == 200
        yield client, app, d


def test_every_engine_refusal_is_an_illegal_event():
    assert all(issubclass(e, IllegalEvent) for e in (CardError, KnowledgeError, OptionError))


def test_a_refused_event_is_still_a_409_refusal(table):
    client, _, d = table
    r = client.post("/api/bid", json={"seat": 3, "bid": "4"}, headers=d)  # not seat 3's turn
    assert r.status_code == 409 and "engine fault" not in r.json()["error"]


def test_an_engine_bug_is_a_fault_not_a_refusal(table, monkeypatch, tmp_path):
    client, app, d = table

    def broken(self, event):
        raise AttributeError("'NoneType' object has no attribute 'trick'")

    monkeypatch.setattr(Match, "apply", broken)
    r = client.post("/api/deal", json={"hands": None}, headers=d)
    assert r.status_code == 500
    assert r.json()["error"].startswith("engine fault (AttributeError")
    monkeypatch.undo()
    log = client.get("/api/log", headers=d).json()
    faulted = [row for row in log if row["kind"] == "refused"]
    assert len(faulted) == 1 and "engine fault" in faulted[0]["why"] and "bug" in faulted[0]["why"]
    # the table goes on, and a restart on the same log starts (the faulted event is kept, marked unjudged)
    assert client.post("/api/deal", json={"hands": None}, headers=d).status_code == 200
    again = create_app(tmp_path / "data", game="bid_euchre")
    assert again.state.session.current.match.hand.phase != "deal"


def test_a_view_does_not_hide_an_engine_bug_in_legal_events(table, monkeypatch):
    client, _, d = table

    def broken(self):
        raise KeyError("seat")

    monkeypatch.setattr(Match, "legal_events", broken)
    r = client.get("/api/state", headers=d)
    assert r.status_code == 500 and "KeyError" in r.json()["error"]
