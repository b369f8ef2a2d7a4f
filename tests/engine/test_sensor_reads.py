"""Misreads expected, not trusted (issue 11, docs/engine-api.md "Sensor reads"): a call resting on a camera's or a
dealing machine's read is scored only when the hand's cards are all accounted for, a read found wrong withdraws
the calls resting on it, and what the table entered is scored as before. Worked on the tiered Bid Whist deal
(bw_helpers.TIERED: trump spades, seat 0 bids 4 and leads)."""

from __future__ import annotations

from typing import Any

from bw_helpers import TIERED_PLAY, plays, run, tiered_setup

# The hand of test_rules_common's renege: trick 1 seat 2 throws the 6C on the AS holding 8S 7S 6S.
RENEGE_T1 = "0:AS 1:JS 2:6C 3:5S"
RENEGE_REST = (
    "0:KS 1:TS 2:8S 3:4S",
    "0:QS 1:9S 2:7S 3:3S",
    *TIERED_PLAY[3:10],
    "1:KC 2:7C 3:4C 0:TC",
    "1:QC 2:6S 3:3C 0:9C",
)


def read_by(events: list[dict[str, Any]], source: str) -> list[dict[str, Any]]:
    """The same events as a sensor reported them (plays from the camera, the deal from the dealing machine)."""
    out = []
    for e in events:
        if (e["event"] == "play" and source == "camera") or (e["event"] == "deal" and source == "dealer"):
            e = dict(e, source=source, confidence=0.99)
        out.append(e)
    return out


def sensed(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return read_by(read_by(events, "camera"), "dealer")


def test_a_renege_entered_by_the_table_is_scored_as_before():
    """RULINGS.md: a proven renege is scored. Every event entered by the table (no ``source``): the renege of
    trick 1 is scored at the end, as it always was."""
    hand = run(tiered_setup() + plays(RENEGE_T1, *RENEGE_REST)).hands[0]
    assert [(r.seat, r.trick) for r in hand.reneges] == [(2, 1)] and hand.held == []
    assert hand.score == [-4, 0]


def test_a_renege_resting_on_reads_is_scored_when_every_card_is_accounted_for():
    """The same hand read by the dealing machine (every card of the deal) and the camera (every play): the call
    rests on the camera's read of the 6C and the machine's read of seat 2's spades; at the end every card was read
    where it was and no read was contradicted: the hand's cards are all accounted for, and the renege is scored."""
    hand = run(sensed(tiered_setup() + plays(RENEGE_T1, *RENEGE_REST))).hands[0]
    r = hand.reneges[0]
    assert hand.rests_on_reads(r) == [0, 9]  # the deal, and the play of the 6C (event 9 of the hand)
    assert hand.accounted() and hand.held == []
    assert hand.score == [-4, 0]


def test_the_issues_misread_a_card_played_twice_withdraws_the_call():
    """The issue's example: seat 2 follows trick 1 with the 6S; the camera reads the 6C, which seat 2 also holds:
    with the hands known that is a "proven" renege at once, and it is shown. Later seat 2 plays the 6C (the table
    enters it after the camera's read is vetoed, the engine believing the 6C gone: refused); the referee records
    the contradiction as a ``conflict``: the camera's read of the 6C is at fault, the call is withdrawn (an
    irregularity naming the read), and the hand's cards no longer add up."""
    events = sensed(tiered_setup() + plays(RENEGE_T1))
    m = run(events)
    hand = m.hand
    assert [(r.seat, r.trick) for r in hand.reneges] == [(2, 1)]
    m.apply({"event": "conflict", "seat": 2, "card": "6C", "source": "table"})
    assert hand.reneges == [] and hand.faulty == [9]
    kinds = [(i["kind"], i.get("reads")) for i in hand.irregularities]
    assert ("misread", [9]) in kinds and ("renege withdrawn", [9]) in kinds
    assert not hand.accounted()


def test_a_corrected_read_leaves_the_conflict_without_effect():
    """The director looks at the frame and fixes the read (the play becomes the 6S it was): the record replays
    with the conflict still in it, but no read shows the 6C any more: nothing is withdrawn, nothing is called,
    the hand is the plain tiered hand (+4 to team 0)."""
    fixed = plays("0:AS 1:JS 2:6S 3:5S")
    events = sensed(tiered_setup() + fixed) + [{"event": "conflict", "seat": 2, "card": "6C", "source": "table"}]
    rest = plays("0:KS 1:TS 2:7S 3:4S", "0:QS 1:9S 2:8S 3:3S", *TIERED_PLAY[3:])
    hand = run(events + read_by(rest, "camera")).hands[0]
    assert hand.reneges == [] and hand.faulty == [] and hand.irregularities == []
    assert hand.score == [4, 0]


def test_hands_unknown_a_renege_on_camera_reads_is_held_for_the_director():
    """Hands dealt by hand (not read), plays read by the camera: the renege is proven by seat 2's later spade
    play, two camera reads. The declarer's six discards are face down and never read: the hand's cards are not
    all accounted for (a misread card could hide among them), so the call is held for the director, not scored;
    the director accepts it and it is scored."""
    events = tiered_setup(known=False) + read_by(plays(RENEGE_T1, *RENEGE_REST), "camera")
    m = run(events)
    hand = m.hands[0]
    assert hand.reneges == [] and [(r.seat, r.trick) for r in hand.held] == [(2, 1)]
    held = [i for i in hand.irregularities if i["kind"] == "renege held for the director"]
    assert [(i["seat"], i["trick"], i["reads"]) for i in held] == [(2, 1, [9, 13])]
    assert hand.result()["reneges"] == []
    unscored = hand.score
    m.apply({"event": "ruling", "hand": 1, "seat": 2, "trick": 1, "ruling": "accept"})
    assert [(r.seat, r.trick) for r in hand.reneges] == [(2, 1)] and hand.held == []
    assert hand.score != unscored and hand.score == [-4, 0]


def test_hands_unknown_a_renege_entered_by_the_table_is_not_held():
    """The same with every play entered by the table: nothing rests on a sensor, the renege is scored."""
    hand = run(tiered_setup(known=False) + plays(RENEGE_T1, *RENEGE_REST)).hands[0]
    assert [(r.seat, r.trick) for r in hand.reneges] == [(2, 1)] and hand.held == []


def test_a_conflict_after_the_hand_is_scored_withdraws_and_rescores():
    """A read found wrong only after its hand was scored (in Pitch a card can show up again after the hand ended,
    when the referee had taken the hand for over): ``{"event": "conflict", "hand": 1, ...}`` withdraws the calls
    resting on the read at fault, holds the others resting on sensor reads, and the hand and the match totals are
    scored again."""
    m = run(sensed(tiered_setup() + plays(RENEGE_T1, *RENEGE_REST)))
    assert m.scores == [-4, 0] and m.hand.phase == "deal"
    m.apply({"event": "conflict", "hand": 1, "seat": 2, "card": "6C", "source": "table"})
    hand = m.hands[0]
    assert hand.reneges == [] and hand.held == [] and hand.faulty == [9]
    assert [i["kind"] for i in hand.irregularities] == ["misread", "renege withdrawn"]
    # scored again as read, without the penalty: team 0 took 11 books as read (seat 2's 6S ruffed trick 12)
    assert hand.final_taken == [11, 2] and hand.score == [5, 0] and m.scores == [5, 0]
