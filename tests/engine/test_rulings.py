"""The director's ruling on a call (record event ``ruling``): RULINGS.md, "Common to all games": "A suspicion is
shown to the director, never scored" — the director decides. Rejecting a proven call removes its penalty; accepting
a suspicion scores it like a proven renege; a finished hand is scored again and the match totals follow."""

import pytest
from bw_helpers import plays, record, run, tiered_setup
from test_rules_common import RENEGE_REST, RENEGE_T1

from engine.record import RecordError, replay


def test_reject_a_proven_renege_removes_its_penalty_and_rescores_the_hand():
    """Hands known: seat 2 throws 6C on AS holding 6S (proven). Scored with the penalty: [-4, 0] (8 - 5 books).
    The director rejects the call after the hand: no penalty, 11 - 2 books, 4 high made with 11: +5; the totals
    follow, and the call is kept as an irregularity, never deleted."""
    m = run(tiered_setup() + plays(RENEGE_T1, *RENEGE_REST))
    hand = m.hands[0]
    assert hand.score == [-4, 0] and m.scores == [-4, 0]
    m.apply({"event": "ruling", "hand": 1, "seat": 2, "trick": 1, "ruling": "reject"})
    assert hand.reneges == []
    assert hand.final_taken == [11, 2] and hand.score == [5, 0] and m.scores == [5, 0]
    assert [i["kind"] for i in hand.irregularities] == ["renege rejected by the director"]
    assert hand.irregularities[0]["proof"] == "6S"


def test_accept_a_suspicion_scores_it_as_a_renege():
    """Hands unknown: seat 2 throws 6C on AS: a suspicion only. The director accepts it at once: a renege of kind
    "director's ruling" with no proof card, scored at the end like a proven one ([-4, 0], as with hands known)."""
    m = run(tiered_setup(known=False) + plays(RENEGE_T1))
    hand = m.hand
    assert hand.reneges == [] and len(hand.suspicions) == 1
    m.apply({"event": "ruling", "hand": 1, "seat": 2, "trick": 1, "ruling": "accept"})
    assert hand.suspicions == [] and [(r.seat, r.trick, r.proof, r.kind) for r in hand.reneges] == [
        (2, 1, None, "director's ruling")
    ]
    for e in plays(*RENEGE_REST):
        m.apply(e)
    res = m.result()["hands"][0]
    assert res["score"] == [-4, 0] and res["taken"] == [8, 5]
    assert res["reneges"] == [{"seat": 2, "trick": 1, "card": "6C", "led": "S", "proof": None,
                               "kind": "director's ruling"}]


def test_a_ruling_on_no_call_is_refused_and_the_record_replays_with_rulings():
    """The ruling is an event of the table record: the record with it replays to the same result; a ruling on a
    call that does not exist, on a hand that does not exist, or that is neither accept nor reject is refused with
    its line number."""
    events = tiered_setup() + plays(RENEGE_T1, *RENEGE_REST)
    m = run(events)
    ruling = {"event": "ruling", "hand": 1, "seat": 2, "trick": 1, "ruling": "reject"}
    m.apply(ruling)
    assert replay(record(events + [ruling])).result() == m.result()
    for bad in (dict(ruling, seat=1), dict(ruling, hand=9), dict(ruling, ruling="maybe")):
        with pytest.raises(RecordError) as info:
            replay(record(events + [bad]))
        assert info.value.line == len(events) + 2
