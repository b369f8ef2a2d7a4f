"""The event log and the table session: durable, private, append-only; the state is the replay of the log."""

import json
import os
import random
import sqlite3
import stat

import pytest

from engine.match import Match
from engine.record import replay
from engine.simulate import random_event
from referee.eventlog import EventLog
from referee.table import Refused, TableSession
from tools.demo_terminal import scripted_event


def play_match(session, game="bid_whist", seed=1, limit=400, scripted=True):
    """Post a simulated match (scripted players who now and then renege); returns the local mirror."""
    session.create_match(game, {}, ["Ann", "Bo", "Cy", "Di"], 0, "director", "d")
    mirror = Match(game, {}, ["Ann", "Bo", "Cy", "Di"])
    rng = random.Random(seed)
    for _ in range(limit):
        if mirror.is_terminal():
            break
        hand = mirror.hand
        if scripted and hand.current_player() >= 0:
            event, _ = scripted_event(hand, rng)
        else:
            event = random_event(mirror, rng)
        mirror.apply(event)
        session.submit(event, "table", "t")
    return mirror


@pytest.fixture
def logpath(tmp_path):
    return tmp_path / "private" / "events.sqlite"


def test_log_is_wal_full_sync_private_and_durable(logpath):
    log = EventLog(logpath)
    assert log.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert log.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    rows = [log.append(1, "table", "t", "game", {"event": "bid", "seat": i, "bid": "pass"}) for i in range(3)]
    assert [r.seq for r in rows] == [1, 2, 3]
    # Another connection (another process after a crash) sees every row without a checkpoint or a close.
    other = sqlite3.connect(logpath)
    assert [json.loads(e) for (e,) in other.execute("SELECT event FROM events ORDER BY seq")] == [r.event for r in rows]
    other.close()
    assert stat.S_IMODE(os.stat(logpath).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(logpath.parent).st_mode) == 0o700
    for side in ("-wal", "-shm"):
        path = str(logpath) + side
        if os.path.exists(path):
            assert stat.S_IMODE(os.stat(path).st_mode) & 0o077 == 0
    log.close()
    again = EventLog(logpath)
    assert [r.event for r in again.rows()] == [r.event for r in rows]
    assert again.last_seq() == 3


def test_rebuild_gives_the_same_state(logpath):
    session = TableSession(EventLog(logpath))
    mirror = play_match(session, seed=3)
    before = session.director_state()
    fresh = TableSession(EventLog(logpath))
    assert fresh.director_state() == before
    assert fresh.record() == session.record()
    assert replay([json.dumps(e) for e in fresh.record()]).result() == mirror.result()
    assert before["scores"] == mirror.scores


def test_refused_event_is_logged_and_changes_nothing(logpath):
    session = TableSession(EventLog(logpath))
    play_match(session, seed=5, limit=30)
    before = session.director_state()
    with pytest.raises(Refused) as info:
        session.submit({"event": "bid", "seat": 0, "bid": "99 high"}, "table", "t")
    assert info.value.seq == before["seq"] + 1
    rows = list(session.log.rows(after=before["seq"]))
    assert [r.kind for r in rows] == ["game", "refused"]
    assert rows[1].target == rows[0].seq and rows[1].why
    after = session.director_state()
    assert after["hand"] == before["hand"] and after["scores"] == before["scores"]
    assert after["refused"][-1]["seq"] == rows[0].seq
    assert TableSession(EventLog(logpath)).director_state()["hand"] == before["hand"]


def test_malformed_events_are_refusals_not_crashes(logpath):
    session = TableSession(EventLog(logpath))
    play_match(session, seed=2, limit=10)
    for bad in ({"event": "play"}, {"event": "play", "seat": "x", "card": 3}, {"event": "deal", "hands": 7},
                {"event": "bid", "seat": 99, "bid": None}, {"event": "declare", "seat": [], "trump": {}}):
        with pytest.raises(Refused):
            session.submit(bad, "table", "t")
    with pytest.raises(Refused):
        session.submit({"event": "teleport"}, "table", "t")


def test_undo_replace_and_undo_of_undo(logpath):
    session = TableSession(EventLog(logpath))
    play_match(session, game="bid_euchre", seed=4, limit=20)
    record = session.record()
    last = session.current.seqs[-1]
    undo = session.correct("undo", last, "Dee", "entered twice")
    assert session.record() == record[:-1]
    session.correct("undo", undo.seq, "Dee", "it was right after all")
    assert session.record() == record
    # Every correction is a row with who and why; nothing was deleted.
    kinds = [(r.kind, r.actor, r.why, r.target) for r in session.log.rows() if r.kind == "undo"]
    assert kinds == [("undo", "Dee", "entered twice", last), ("undo", "Dee", "it was right after all", undo.seq)]
    assert TableSession(EventLog(logpath)).record() == record
    with pytest.raises(Refused):
        session.correct("undo", last, "", "no name")
    with pytest.raises(Refused):
        session.correct("undo", 10**6, "Dee", "no such event")


def test_fix_card_rejudges_and_a_correction_that_breaks_the_record_is_refused(logpath):
    session = TableSession(EventLog(logpath))
    # Hands unknown (dealt by hand): a misread card can be fixed to any card the seat may hold.
    session.create_match("bid_euchre", {}, None, 0, "director", "d")
    mirror = Match("bid_euchre", {})
    rng = random.Random(8)
    while mirror.hand.phase != "play" or len(mirror.hand.tricks) < 1:
        event = random_event(mirror, rng)
        if event["event"] == "deal":
            event = dict(event, hands=None)
        mirror.apply(event)
        session.submit(event, "table", "t")
    plays = [(s, e) for s, e in zip(session.current.seqs, session.current.events, strict=True)
             if e["event"] == "play"]
    seq, first = plays[0]
    others = [e["card"] for _, e in plays[1:]]
    # Fixed to a card played later: the later play could no longer have happened, so the fix is refused.
    before = session.record()
    with pytest.raises(Refused) as info:
        session.fix_card(seq, others[0], "Dee", "camera misread")
    assert "would no longer apply" in info.value.reason
    assert session.record() == before
    assert list(session.log.rows())[-1].kind == "refused"
    free = next(c for c in ("9S", "9H", "9D", "9C", "TS", "TH", "TD", "TC", "JS", "JH")
                if c not in others and c != first["card"])
    session.fix_card(seq, free, "Dee", "camera misread")
    assert session.record()[session.record().index(dict(first, card=free))] == dict(first, card=free)
    assert TableSession(EventLog(logpath)).record() == session.record()


def test_power_cut_between_append_and_judgement(logpath):
    """A row appended but never judged (the power went): judged at the restart, refusal logged if it must be."""
    session = TableSession(EventLog(logpath))
    play_match(session, seed=6, limit=12)
    state = session.current
    good = state.match.legal_events()[0]
    log = session.log
    log.append(state.id, "table", "t", "game", good)
    bad = log.append(state.id, "table", "t", "game", {"event": "bid", "seat": 0, "bid": "nonsense"})
    fresh = TableSession(EventLog(logpath))
    assert fresh.record()[-1] == good
    refusal = list(fresh.log.rows())[-1]
    assert refusal.kind == "refused" and refusal.target == bad.seq
    # A third start does not judge it again.
    TableSession(EventLog(logpath))
    assert sum(1 for r in fresh.log.rows() if r.kind == "refused") == 1


def test_public_state_never_shows_a_hidden_card(logpath):
    session = TableSession(EventLog(logpath))
    play_match(session, seed=11, limit=35)
    public = json.dumps(session.public_state())
    hidden = session.director_state()["hand"]["locations"]
    played = {c["card"] for t in session.public_state()["hand"]["tricks"] for c in t["cards"]}
    shown = set(session.public_state()["hand"].get("kitty") or [])  # RULINGS.md: kitty shown in trump bids
    for name, loc in hidden.items():
        for c in loc["certain"]:
            if c not in played and c not in shown:
                assert f'"{c}"' not in public, (name, c)


def test_rulings_are_recorded_beside_the_call(logpath):
    session = TableSession(EventLog(logpath))
    for seed in range(1, 40):
        session = TableSession(EventLog(logpath.parent / f"s{seed}.sqlite"))
        play_match(session, seed=seed, limit=300)
        if session.calls():
            break
    call = session.calls()[0]
    session.rule(call["hand"], call["seat"], call["trick"], "accept", "Dee", "saw it")
    assert session.calls()[0]["rulings"][0]["who"] == "Dee"
    with pytest.raises(Refused):
        session.rule(call["hand"], (call["seat"] + 1) % 4, 99, "accept", "Dee", "no such call")


def test_views_survive_an_engine_that_cannot_list_its_legal_events(logpath):
    """Found by the soak: Bid Whist at no trump with unknown hands, after the discard, the engine's legal_events()
    asserted (joker swap phase). The director's view must be served, the event kept."""
    session = TableSession(EventLog(logpath))
    session.create_match("bid_whist", {}, None, 0, "director", "d")
    events = [{"event": "deal", "dealer": 0, "hands": None, "kitty": None},
              {"event": "bid", "seat": 1, "bid": "pass"}, {"event": "bid", "seat": 2, "bid": "pass"},
              {"event": "bid", "seat": 3, "bid": "pass"}, {"event": "bid", "seat": 0, "bid": "4 no"},
              {"event": "declare", "seat": 0, "trump": None, "direction": "high"},
              {"event": "discard", "seat": 0, "cards": [None] * 6}]
    for event in events:
        session.submit(event, "table", "t")
    view = session.director_state()
    # The engine now lists what may come next there: a possible joker swap by another seat, or the declarer's lead.
    assert view["hand"]["phase"] == session.current.match.hand.phase == "joker_swap"
    kinds = {e["event"] for e in view["legal"]}
    assert kinds == {"joker_swap", "play"} and all(e["seat"] != 0 for e in view["legal"] if e["event"] == "joker_swap")
    assert session.record()[1:] == events
