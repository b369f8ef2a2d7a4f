"""What the pages are drawn from, at the API: the table's entry (public information only), scores explained per
hand (the engine's figures, with names), the proof card kept from the public until the hand ends (state and
WebSocket alike), rulings that can be reversed and undone, the options for the new-match form, errors in words."""

import json
import random

import pytest
from fastapi.testclient import TestClient

from engine.errors import IllegalEvent
from engine.match import Match
from engine.simulate import random_deal
from referee.app import create_app
from referee.entry import entry
from referee.table import HIDDEN_TURN
from tools.demo_terminal import scripted_event
from tools.service_soak import endpoint

PLAYERS = ["Ann", "Bo", "Cy", "Di", "Ed"]


def auth(tokens, role):
    return {"Authorization": "Bearer " + tokens[role]}


@pytest.fixture
def service(tmp_path):
    app = create_app(tmp_path / "data", game="bid_euchre")
    with TestClient(app) as client:
        yield client, app.state.tokens


def public_version(game, event):
    """The same event as a table without the dealing machine enters it: the hidden cards not read (Pitch's
    discards and burns are face up: kept)."""
    kind = event["event"]
    if kind == "deal":
        return {k: (None if k in ("hands", "kitty", "pack", "blind") else v) for k, v in event.items()}
    if kind in ("draw", "rob") or (kind == "discard" and game == "bid_whist"):
        return dict(event, cards=[None] * len(event["cards"]))
    if kind == "exchange":
        return dict(event, card=None)
    if kind == "joker_swap":
        return dict(event, drew=None)
    return event


@pytest.mark.parametrize("game,options,seed", [("bid_whist", {}, 3), ("bid_euchre", {}, 4), ("pitch", {}, 5),
                                               ("pitch", {"players": 5}, 6)])
def test_the_entry_is_the_same_whether_the_referee_knows_the_hands_or_not(game, options, seed):
    """The table page is public: what it is offered must not depend on the hands the referee knows. Two tables
    are played alike, one with the hands read by the dealing machine, one dealt by hand (hidden cards not read);
    at every step where the public state is the same, the entries are equal."""
    n = options.get("players", 4)
    known = Match(game, options, PLAYERS[:n])
    unknown = Match(game, options, PLAYERS[:n])
    rng = random.Random(seed)
    compared = 0
    while not known.is_terminal() and len(known.hands) < 3:
        hand = known.hand
        event = random_deal(hand, rng) if hand.phase == "deal" else scripted_event(hand, rng)[0]
        known.apply(event)
        try:
            unknown.apply(public_version(game, event))
        except IllegalEvent:
            break  # the two tables part (a step only the known hands allow): compared so far
        if same_public(known, unknown):
            assert entry(known) == entry(unknown), (event, known.hand.phase)
            compared += 1
    assert compared > 20


def same_public(a, b):
    """The two tables' public views alike (the kitty shown in trumps aside: a table dealt by hand did not read it)."""
    views = []
    for m in (a, b):
        v = m.public_view()
        v["hand"].pop("kitty", None)
        v["hand"].pop("reneges", None)  # the calls (which the entry does not use) need the hands
        if (m.game, v["hand"]["phase"]) in HIDDEN_TURN:
            v["hand"]["to_act"] = None  # as the referee's public state shows it
        views.append(v)
    return views[0] == views[1]


def play_until(client, tokens, events, stop):
    """Post ``events`` (as the director: hands known) until ``stop(i)``."""
    for i, event in enumerate(events):
        if stop(i):
            return i
        path, body = endpoint(event)
        r = client.post(path, json=body, headers=auth(tokens, "director"))
        assert r.status_code == 200, (event, r.text)
    return len(events)


def renege_hand(game="bid_whist"):
    """A hand of scripted players in which a renege is proven before the last trick, with its events."""
    for seed in range(1, 400):
        rng = random.Random(seed)
        mirror = Match(game, {}, PLAYERS[:4])
        hand = mirror.hand
        events = [random_deal(hand, rng)]
        mirror.apply(events[0])
        established_at = None
        while not hand.is_terminal():
            event, _ = scripted_event(hand, rng)
            mirror.apply(event)
            events.append(event)
            if established_at is None and any(r.established and r.proof is not None for r in hand.reneges):
                established_at = len(events)
        if established_at is not None and established_at < len(events) - 4:
            return events, hand, established_at
    raise AssertionError("no seed gave a renege established mid-hand")


def test_the_proof_card_reaches_the_public_only_when_the_hand_ends(tmp_path):
    app = create_app(tmp_path / "data", game="bid_whist")
    events, hand, established_at = renege_hand()
    call = next(r for r in hand.reneges if r.proof is not None)
    from engine.cards import CODES
    proof = CODES[call.proof]
    with TestClient(app) as client:
        tokens = app.state.tokens
        client.post("/api/matches", json={"game": "bid_whist", "players": PLAYERS[:4]},
                    headers=auth(tokens, "director"))
        with client.websocket_connect(f"/ws?token={tokens['public']}") as ws:
            json.loads(ws.receive_text())
            play_until(client, tokens, events, lambda i: i == established_at)
            # mid-hand: the call is public (whom, which trick), its proof is not, in the state and on the wire
            public = client.get("/api/state", headers=auth(tokens, "public")).json()
            assert public["hand"]["number"] == 1 and public["hand"]["phase"] == "play"
            alert = next(c for c in public["alerts"] if c["seat"] == call.seat and c["trick"] == call.trick)
            assert alert["proof"] is None and alert["proof_hidden"] and "when the hand ends" in alert["proof_note"]
            assert PLAYERS[call.seat] in alert["words"] and f"trick {call.trick}" in alert["words"]
            table = client.get("/api/state", headers=auth(tokens, "table")).text
            assert f'"proof": "{proof}"' not in table and f'"proof":"{proof}"' not in table
            director = client.get("/api/state", headers=auth(tokens, "director")).json()
            assert any(c["proof"] == proof for c in director["calls"])  # the director sees it at once
            messages = []
            last = public["seq"]
            while True:
                msg = json.loads(ws.receive_text())
                messages.append(msg)
                if msg["type"] == "state" and msg["seq"] == last:
                    break
            assert any(m["type"] == "renege" for m in messages)
            for m in messages:
                for c in [m.get("call")] + ((m.get("state") or {}).get("alerts") or []):
                    if c:
                        assert c["proof"] is None, m["type"]
            # the hand ends: now the proof is shown to all (it was played face up)
            play_until(client, tokens, events[established_at:], lambda i: False)
            public = client.get("/api/state", headers=auth(tokens, "public")).json()
            alerts = [c for c in public["alerts"] if c["seat"] == call.seat and c["trick"] == call.trick]
            assert len(alerts) == 1 and alerts[0]["proof"] == proof
            assert len(public["alerts"]) == len({(c["hand"], c["seat"], c["trick"]) for c in public["alerts"]})


def test_reject_then_accept_and_undo_a_ruling(tmp_path):
    app = create_app(tmp_path / "data", game="bid_whist")
    events, hand, _ = renege_hand()
    call = next(r for r in hand.reneges if r.proof is not None)
    key = {"hand": 1, "seat": call.seat, "trick": call.trick}
    with TestClient(app) as client:
        tokens = app.state.tokens
        d = auth(tokens, "director")
        client.post("/api/matches", json={"game": "bid_whist", "players": PLAYERS[:4]}, headers=d)
        play_until(client, tokens, events, lambda i: False)
        scored = client.get("/api/state", headers=d).json()["scores"]
        # a missing reason, in words
        r = client.post("/api/rulings", json=dict(key, ruling="reject", who="Dee", why=""), headers=d)
        assert r.status_code == 422 and r.json()["error"] == "give a reason (why): it is empty"
        r = client.post("/api/rulings", json=dict(key, ruling="reject", who="Dee", why="misdeal"), headers=d)
        assert r.status_code == 200, r.text
        st = r.json()["state"]
        c = next(x for x in st["calls"] if (x["seat"], x["trick"]) == (call.seat, call.trick))
        assert c.get("rejected") and c["decided"]["ruling"] == "reject"
        assert st["scores"] != scored  # the renege is no longer scored
        reject_seq = c["decided"]["seq"]
        assert any(x["kind"] == "ruling" and x["seq"] == reject_seq and x["active"] for x in st["corrections"])
        r = client.post("/api/rulings", json=dict(key, ruling="reject", who="Dee", why="again"), headers=d)
        assert r.status_code == 409 and "already rejected" in r.json()["error"]
        # accept after reject: a later ruling overrules the earlier
        r = client.post("/api/rulings", json=dict(key, ruling="accept", who="Dee", why="on reflection"), headers=d)
        assert r.status_code == 200, r.text
        st = r.json()["state"]
        c = next(x for x in st["calls"] if (x["seat"], x["trick"]) == (call.seat, call.trick))
        assert not c.get("rejected") and c["proof"] is not None and c["decided"]["ruling"] == "accept"
        assert st["scores"] == scored
        # undo the accept: the reject stands again; undo the reject: the call as the engine found it
        r = client.post("/api/corrections/undo", json={"target": c["decided"]["seq"], "who": "Dee", "why": "oops"},
                        headers=d)
        assert r.status_code == 200, r.text
        c = next(x for x in r.json()["state"]["calls"] if (x["seat"], x["trick"]) == (call.seat, call.trick))
        assert c.get("rejected")
        r = client.post("/api/corrections/undo", json={"target": reject_seq, "who": "Dee", "why": "oops"}, headers=d)
        st = r.json()["state"]
        c = next(x for x in st["calls"] if (x["seat"], x["trick"]) == (call.seat, call.trick))
        assert not c.get("rejected") and c["decided"] is None and st["scores"] == scored
        # the finished hand's events stay in the director's view
        assert st["hand_events"][0]["done"] and len(st["hand_events"][0]["events"]) == len(events)


def test_fix_a_card_of_a_finished_hand(tmp_path):
    """Dealt by hand (hands unknown), the kitty's discards never seen: a play of the finished hand is fixed to one
    of them, and the hand is judged and scored again."""
    app = create_app(tmp_path / "data", game="bid_whist")
    rng = random.Random(8)
    mirror = Match("bid_whist", {}, PLAYERS[:4])
    events = [random_deal(mirror.hand, rng)]
    mirror.apply(events[0])
    first = mirror.hand
    while not first.is_terminal():
        event = scripted_event(first, rng)[0]
        mirror.apply(event)
        events.append(event)
    with TestClient(app) as client:
        tokens = app.state.tokens
        d = auth(tokens, "director")
        client.post("/api/matches", json={"game": "bid_whist", "players": PLAYERS[:4]}, headers=d)
        seqs = []
        for event in events:
            if event["event"] == "deal":
                event = dict(event, hands=None, kitty=None)
            if event["event"] == "discard":
                unseen = [c for c in event["cards"] if c not in ("BJ", "LJ")]
                event = dict(event, cards=[None] * len(event["cards"]))
            path, body = endpoint(event)
            r = client.post(path, json=body, headers=d)
            assert r.status_code == 200, (event, r.text)
            seqs.append(r.json()["seq"])
        st = client.get("/api/state", headers=d).json()
        assert st["hand"]["number"] == 2 and st["hand_events"][0]["done"]
        last_play = st["hand_events"][0]["events"][-1]
        assert last_play["event"]["event"] == "play"
        # the last trick's last card: any card never seen is possible for it (same suit as it: no new suspicion)
        old = last_play["event"]["card"]
        same_suit = [c for c in unseen if c[1] == old[1]] or unseen
        r = client.post("/api/corrections/fix_card", json={"target": last_play["seq"], "card": same_suit[0],
                                                           "who": "Dee", "why": "misread"}, headers=d)
        assert r.status_code == 200, r.text
        st = r.json()["state"]
        fixed = st["hand_events"][0]["events"][-1]
        assert fixed["seq"] == last_play["seq"] and fixed["event"]["card"] == same_suit[0]
        assert st["history"][0]["explained"]["done"]


@pytest.mark.parametrize("game,options,seed", [("bid_whist", {}, 2), ("bid_euchre", {}, 2), ("pitch", {}, 3),
                                               ("pitch", {"players": 5}, 4)])
def test_scores_explained_are_the_engines_figures_with_names(game, options, seed):
    from referee.explain import explain, pitch_points

    n = options.get("players", 4)
    m = Match(game, options, PLAYERS[:n])
    rng = random.Random(seed)
    while not m.is_terminal() and len(m.hands) < 6:
        hand = m.hand
        m.apply(random_deal(hand, rng) if hand.phase == "deal" else scripted_event(hand, rng)[0])
    done = [h for h in m.hands if h.is_terminal()]
    assert done
    for h in done:
        x = explain(h, m.players)
        assert [s["scored"] for s in x["sides"]] == h.score
        assert all(s["why"] and s["why"][-1] == f"scored {'+' if v > 0 else ''}{v}"
                   for s, v in zip(x["sides"], h.score, strict=True))
        text = json.dumps(x)
        assert "seat " not in text
        if n == 4:
            assert x["sides"][0]["name"] == f"{PLAYERS[0]} & {PLAYERS[2]}"
        if game == "pitch" and h.folded is None if hasattr(h, "folded") else game == "pitch":
            won = pitch_points(h)
            per_seat = [sum(v for _, _, v in w) for w in won]
            assert per_seat == h.points_by_seat  # every point card named, to the seat the engine credited
        if h.reneges:
            assert "renege" in text


def test_options_for_the_form_and_the_served_game(service):
    client, tokens = service
    r = client.get("/api/options", headers=auth(tokens, "public"))
    assert r.status_code == 200
    info = r.json()
    assert info["game"] == "bid_euchre"
    from engine.options import SPECS
    for game, specs in SPECS.items():
        assert [o["name"] for o in info["games"][game]] == [o.name for o in specs]
        assert [o["default"] for o in info["games"][game]] == [o.default for o in specs]
    pitch = {o["name"]: o for o in info["games"]["pitch"]}
    assert pitch["players"]["choices"] == [4, 5] and pitch["target"]["type"] == "int"
    # a match from the form's fields: five-handed Pitch, its names, a target
    r = client.post("/api/matches", json={"game": "pitch", "options": {"players": 5, "target": 32},
                                          "players": PLAYERS}, headers=auth(tokens, "table"))
    assert r.status_code == 200, r.text
    st = r.json()["state"]
    assert st["options"]["target"] == 32 and st["players"] == PLAYERS and st["sides"] == PLAYERS
    # the default game is the served one
    r = client.post("/api/matches", json={}, headers=auth(tokens, "director"))
    assert r.json()["state"]["game"] == "bid_euchre"


def test_entry_offers_only_what_fits_the_table(service):
    client, tokens = service
    t = auth(tokens, "table")
    client.post("/api/matches", json={"players": PLAYERS[:4]}, headers=t)
    e = client.get("/api/entry", headers=t).json()
    assert [a["path"] for a in e["actions"]] == ["/api/deal"]  # no machine at this table: no machine button
    assert client.get("/api/entry", headers=auth(tokens, "public")).status_code == 403
    client.post("/api/deal", json={"hands": None}, headers=t)
    e = client.get("/api/entry", headers=t).json()
    assert {a["kind"] for a in e["actions"]} == {"bid"} and e["cards"] is None
    assert [a["body"]["bid"] for a in e["actions"]] == ["3", "4", "5", "6", "single", "double"]
    assert not any("pitch" in a["path"] for a in e["actions"])
