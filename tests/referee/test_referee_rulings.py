"""The director's rulings change the score (issue 5: the director "accepts or rejects a call"): a rejected renege
call is not scored, the ruling is an event of the log and of the table record, and a restart rebuilds the same."""

import json

from test_referee_eventlog import play_match

from engine.record import replay
from referee.eventlog import EventLog
from referee.table import Refused, TableSession


def first_hand_with_a_call(tmp_path):
    for seed in range(1, 60):
        path = tmp_path / f"s{seed}" / "events.sqlite"
        session = TableSession(EventLog(path))
        play_match(session, seed=seed, limit=90)
        calls = [c for c in session.calls() if c["proven"] and c["hand"] == 1]
        if calls and session.current.match.hands[0].is_terminal():
            return path, session, calls[0]
    raise AssertionError("no simulated match with a proven renege in a finished first hand")


def test_a_rejected_call_is_not_scored_and_survives_a_restart(tmp_path):
    path, session, call = first_hand_with_a_call(tmp_path)
    hand = session.current.match.hands[0]
    before = list(hand.score)
    session.rule(1, call["seat"], call["trick"], "reject", "Dee", "the card was picked up by mistake")
    after = list(session.current.match.hands[0].score)
    rejected = [c for c in session.calls() if c.get("rejected")]
    assert [(c["seat"], c["trick"]) for c in rejected] == [(call["seat"], call["trick"])]
    assert rejected[0]["rulings"][0]["who"] == "Dee"
    assert not any((c["seat"], c["trick"], c["hand"]) == (call["seat"], call["trick"], 1) and not c.get("rejected")
                   for c in session.calls())
    # the record carries the ruling and replays to the same result; a restart rebuilds the same state
    record = session.record()
    assert any(e.get("event") == "ruling" for e in record)
    result = replay([json.dumps(e) for e in record]).result()
    assert result == session.current.match.result()
    assert result["hands"][0]["score"] == after
    again = TableSession(EventLog(path))
    assert again.current.match.result() == result
    # a penalty was removed, so the offending side's score did not go down
    off = call["seat"] % 2
    assert after[off] >= before[off]


def test_a_ruling_on_no_call_is_refused_and_changes_nothing(tmp_path):
    path, session, call = first_hand_with_a_call(tmp_path)
    result = session.current.match.result()
    try:
        session.rule(1, (call["seat"] + 1) % 4, 99, "reject", "Dee", "no such call")
    except Refused:
        pass
    else:
        raise AssertionError("a ruling on no call was accepted")
    assert session.current.match.result() == result
