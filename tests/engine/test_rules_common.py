"""RULINGS.md, "Common to all games": one test (or a few) per rule, each a worked example on a hand-built
Bid Whist deal (bw_helpers.TIERED and variants, written out card by card)."""

import pytest
from bw_helpers import (
    TIERED,
    TIERED_PLAY,
    deal,
    plays,
    record,
    renege_list,
    replay_events,
    run,
    tiered_setup,
)

from engine.cards import card
from engine.hand import IllegalEvent
from engine.record import RecordError, replay

# Trick 1 with a renege by seat 2: spades led, seat 2 throws 6C while holding 8S 7S 6S.
RENEGE_T1 = "0:AS 1:JS 2:6C 3:5S"
# The rest of that hand (trump spades). Seat 2 follows spades in tricks 2-3 (establishing the renege),
# and at trick 12, void in clubs, ruffs QC with its last spade 6S.
RENEGE_REST = (
    "0:KS 1:TS 2:8S 3:4S",
    "0:QS 1:9S 2:7S 3:3S",
    *TIERED_PLAY[3:10],
    "1:KC 2:7C 3:4C 0:TC",
    "1:QC 2:6S 3:3C 0:9C",
)


# ---------------------------------------------------------------- seats, teams, the deal, the lead


def test_seats_clockwise_partners_opposite_team0_is_seats_0_and_2():
    """Rule: "Seats are numbered 0..n-1 clockwise ... team 0 = seats 0 and 2, team 1 = seats 1 and 3".
    Worked example: in the tiered deal seat 0 wins tricks 1-9 and seat 1 tricks 10-12; at trick 12 of the
    renege hand seat 2 ruffs: its book counts for team 0, seat 0's partner."""
    hand = run(tiered_setup()).hand
    assert [hand.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    with pytest.raises(IllegalEvent, match="seat 4 is not a seat"):
        run([deal(3, *TIERED), {"event": "bid", "seat": 4, "bid": "pass"}])
    m = run(tiered_setup() + plays(RENEGE_T1, *RENEGE_REST[:-1]))
    assert m.hand.taken == [10, 2]  # discard book + 9 tricks for team 0; 2 for team 1
    m.apply({"event": "play", "seat": 1, "card": "QC"})
    m.apply({"event": "play", "seat": 2, "card": "6S"})
    m.apply({"event": "play", "seat": 3, "card": "3C"})
    m.apply({"event": "play", "seat": 0, "card": "9C"})
    hand = m.hands[0]
    assert hand.tricks[-1].cards[1] == (2, card("6S"))
    assert hand.taken == [11, 2]  # seat 2's ruff is team 0's book


def test_left_of_dealer_is_dealer_plus_one_and_bids_first():
    """Rule: '"Left of the dealer" is seat (dealer + 1) mod n'. Worked example: dealer 3 -> seat 0 bids first;
    a bid by seat 1 first is refused (it is not its turn)."""
    m = run([deal(3, *TIERED)])
    assert m.hand.current_player() == 0
    with pytest.raises(IllegalEvent, match="out of turn"):
        m.apply({"event": "bid", "seat": 1, "bid": "4"})
    m = run([deal(1, *TIERED)])
    assert m.hand.current_player() == 2


def _tiered_hand_events(dealer: int) -> list[dict]:
    """One whole hand of the tiered deal dealt by ``dealer``: seat 0 bids 4 (high, spades) and makes +4."""
    return tiered_setup(dealer=dealer) + plays(*TIERED_PLAY)


def test_deal_passes_to_the_left_after_each_hand():
    """Rule: "The deal passes to the left after each hand". Worked example: first dealer 2; five hands of the
    tiered deal (seat 0 bids 4 and takes 10 books each time: +4). Dealers are 2, 3, 0, 1, 2; a deal by the
    old dealer is refused; totals add up hand by hand."""
    m = run([], {"target": 100}, first_dealer=2)
    for dealer in (2, 3, 0, 1, 2):
        assert m.hand.dealer == dealer
        if dealer == 3:
            with pytest.raises(IllegalEvent, match="the dealer is seat 3, not 2"):
                m.apply(deal(2, *TIERED))
        for e in _tiered_hand_events(dealer):
            m.apply(e)
    assert [h.dealer for h in m.hands] == [2, 3, 0, 1, 2, 3]
    assert m.scores == [20, 0]
    assert [h["score"] for h in m.result()["hands"]] == [[4, 0]] * 5


def test_winner_of_a_trick_leads_the_next():
    """Rule: "Play goes clockwise; the winner of a trick leads the next". Worked example (tiered deal): seat 0
    wins tricks 1-9 and leads each next one; seat 1 wins trick 10 with AC and leads 11 and 12; a lead to
    trick 11 by seat 0 would be out of turn."""
    m = run(tiered_setup() + plays(*TIERED_PLAY[:10]))
    hand = m.hand
    assert [t.leader for t in hand.tricks] == [0] * 10
    assert hand.trick.leader == 1 and hand.play_turn() == 1
    m.apply({"event": "play", "seat": 1, "card": "KC"})
    assert hand.play_turn() == 2  # clockwise: 1, 2, 3, 0
    m = run(tiered_setup() + plays(*TIERED_PLAY))
    assert [t.leader for t in m.hands[0].tricks] == [0] * 10 + [1, 1]
    assert m.hands[0].result()["taken"] == [10, 3]


# ---------------------------------------------------------------- renege: when established


def _renege_seat1_trick1() -> list[dict]:
    """Tiered deal, trump spades: trick 1 AS led, seat 1 (holding JS TS 9S) throws QC; seat 0 wins."""
    return tiered_setup() + plays("0:AS 1:QC 2:8S 3:5S")


def test_renege_not_established_until_offender_or_partner_plays_to_next_trick():
    """Rule: a renege "is established once the offender or the offender's partner plays to the next trick".
    Worked example: seat 1 reneges at trick 1 (QC on AS, holding JS TS 9S). Trick 1 is over and seat 0 (an
    opponent) leads trick 2: still not established. Seat 1 plays to trick 2: established."""
    m = run(_renege_seat1_trick1())
    hand = m.hand
    assert len(hand.reneges) == 1 and hand.reneges[0].established is False
    assert hand.public_view()["reneges"] == []  # not yet established: the public view shows none
    m.apply({"event": "play", "seat": 0, "card": "KS"})
    assert hand.reneges[0].established is False  # an opponent's play does not establish it
    m.apply({"event": "play", "seat": 1, "card": "JS"})
    assert hand.reneges[0].established is True
    assert hand.public_view()["reneges"] == [{"seat": 1, "trick": 1, "card": "QC", "led": "S", "proof": "9S"}]


def test_renege_established_when_partner_plays_to_next_trick():
    """Rule: established once "the offender's partner plays to the next trick". Worked example: seat 2
    reneges at trick 1 (6C on AS, holding 8S 7S 6S); seat 0, its partner, wins and leads trick 2: that lead
    establishes it before seat 2 has played again."""
    m = run(tiered_setup() + plays(RENEGE_T1))
    hand = m.hand
    assert hand.reneges[0].established is False
    m.apply({"event": "play", "seat": 0, "card": "KS"})
    assert hand.reneges[0].established is True
    assert hand.reneges[0].seat == 2


def test_renege_established_at_hand_end_and_scored():
    """Rule: established once ... "or the hand ends". Worked example: the renege hand played out (trump
    spades, seat 0 bids 4): every call is established when the hand ends and the result lists it."""
    m = run(tiered_setup() + plays(RENEGE_T1, *RENEGE_REST))
    hand = m.hands[0]
    assert hand.is_terminal()
    assert all(r.established for r in hand.reneges)
    assert renege_list(hand) == [{"seat": 2, "trick": 1, "card": "6C", "led": "S", "proof": "6S"}]


# ---------------------------------------------------------------- renege_correctable


def test_renege_correctable_true_card_taken_back_before_established_no_penalty():
    """Rule: "before that, the director may let the player take the card back and play a legal one, with no
    penalty (`renege_correctable = true`)". Worked example: seat 2 throws 6C on AS (holding spades); the
    director lets it take 6C back (a `retract` event); seat 2 plays 8S. The hand is then the plain tiered
    hand: no renege, team 0 10 books, +4, and a "card taken back" irregularity for the director."""
    events = tiered_setup() + plays("0:AS 1:JS 2:6C")
    events += [{"event": "retract", "seat": 2}]
    events += plays("2:8S 3:5S", *TIERED_PLAY[1:])
    m = replay_events(events)
    hand = m.hands[0]
    assert hand.reneges == [] and hand.suspicions == []
    assert hand.result() == {
        "number": 1,
        "dealer": 3,
        "declarer": 0,
        "contract": "4 high",
        "trump": "S",
        "taken": [10, 3],
        "reneges": [],
        "irregularities": [{"kind": "card taken back", "seat": 2, "trick": 1, "card": "6C"}],
        "score": [4, 0],
    }


def test_renege_correctable_card_back_in_hand_and_renege_dropped():
    """Rule: `renege_correctable`: the card goes back to the hand (it may be played later). Worked example:
    seat 2's 6C is taken back at trick 1 and played in its place at trick 12 (the plain tiered hand)."""
    m = run(tiered_setup() + plays("0:AS 1:JS 2:6C"))
    hand = m.hand
    assert len(hand.reneges) == 1
    m.apply({"event": "retract", "seat": 2})
    assert hand.reneges == []
    assert hand.knowledge.holds(2, card("6C"))
    assert hand.play_turn() == 2 and hand.trick.cards == [(0, card("AS")), (1, card("JS"))]
    assert hand.legal_plays() == [card("6S"), card("7S"), card("8S")]


def test_renege_correctable_false_refuses_the_retract_and_the_renege_is_scored():
    """Rule: `renege_correctable = false`: no card is taken back. Worked example: the same retract is refused
    (the record names its line: header 1, deal 2, bids 3-6, declare 7, discard 8, plays 9-11, retract 12);
    played out, the renege costs team 0 three books (11 -> 8): seat 0's 4 high fails, -4."""
    events = tiered_setup() + plays("0:AS 1:JS 2:6C") + [{"event": "retract", "seat": 2}]
    with pytest.raises(RecordError) as info:
        replay(record(events, {"renege_correctable": False}))
    assert info.value.line == 12 and "renege_correctable is false" in info.value.reason
    m = replay_events(tiered_setup() + plays(RENEGE_T1, *RENEGE_REST), {"renege_correctable": False})
    res = m.result()["hands"][0]
    assert res["reneges"] == [{"seat": 2, "trick": 1, "card": "6C", "led": "S", "proof": "6S"}]
    assert res["taken"] == [8, 5] and res["score"] == [-4, 0]


def test_renege_correctable_after_trick_complete_but_before_established():
    """Rule: the card may be taken back "before" the renege is established, i.e. until the offender or its
    partner plays to the next trick -- not only while the trick is still open. Worked example (tiered deal),
    trick 1: seat 0 AS, seat 1 JS, seat 2 8S, seat 3 (holding 5S 4S 3S) throws 3C, the last card: the trick
    is complete (seat 0 wins) and nobody has played to trick 2. The director lets seat 3 take 3C back:
    trick 1 is open again, seat 3 plays 5S, and the hand is the plain tiered hand (+4, no renege)."""
    m = run(tiered_setup() + plays("0:AS 1:JS 2:8S 3:3C"))
    hand = m.hand
    assert len(hand.tricks) == 1 and hand.reneges[0].established is False
    m.apply({"event": "retract", "seat": 3})
    assert len(hand.tricks) == 0 and hand.taken == [1, 0]  # the discard book only
    assert hand.play_turn() == 3
    for e in plays("3:5S", *TIERED_PLAY[1:]):
        m.apply(e)
    res = m.result()["hands"][0]
    assert res["reneges"] == [] and res["score"] == [4, 0] and res["taken"] == [10, 3]
    assert res["irregularities"] == [{"kind": "card taken back", "seat": 3, "trick": 1, "card": "3C"}]


def test_renege_correctable_after_an_opponent_led_to_the_next_trick():
    """Rule: not established until "the offender or the offender's partner plays to the next trick": an
    opponent's lead does not establish it. Ambiguity resolved: the opponent's lead was made to a trick whose
    leader may change, so the director first has that card taken back (a `retract` by the opponent), then the
    offender's. Worked example: seat 3 throws 3C on AS at trick 1; seat 0 leads KS to trick 2; seat 3 alone
    cannot take back (its card is not in the open trick); after seat 0 takes KS back, seat 3 takes back 3C,
    plays 5S, and the hand is the plain tiered hand (+4) with two "card taken back" irregularities."""
    m = run(tiered_setup() + plays("0:AS 1:JS 2:8S 3:3C", "0:KS"))
    assert m.hand.reneges[0].established is False
    with pytest.raises(IllegalEvent, match="no card in the current trick"):
        m.apply({"event": "retract", "seat": 3})
    m.apply({"event": "retract", "seat": 0})
    m.apply({"event": "retract", "seat": 3})
    for e in plays("3:5S", *TIERED_PLAY[1:]):
        m.apply(e)
    res = m.result()["hands"][0]
    assert res["reneges"] == [] and res["taken"] == [10, 3] and res["score"] == [4, 0]
    assert res["irregularities"] == [
        {"kind": "card taken back", "seat": 0, "trick": 2, "card": "KS"},
        {"kind": "card taken back", "seat": 3, "trick": 1, "card": "3C"},
    ]


def test_renege_correctable_refused_once_established():
    """Rule: the card may be taken back only "before" the renege is established. Worked example: seat 3
    throws 3C on AS at trick 1; seat 0 leads trick 2 and seat 1 (seat 3's partner) plays: established, so
    seat 3 can no longer take 3C back."""
    m = run(tiered_setup() + plays("0:AS 1:JS 2:8S 3:3C", "0:KS 1:TS"))
    assert m.hand.reneges[0].established is True
    with pytest.raises(IllegalEvent):
        m.apply({"event": "retract", "seat": 3})


# ---------------------------------------------------------------- proven vs suspected


def test_proven_renege_hands_known_proof_from_the_deal_scores_the_penalty():
    """Rule: the referee applies an established renege's penalty only when "proven: the player is known to
    have held a card of the suit led at that moment (from the dealer's reads ...)". Worked example (hands
    known, trump spades, seat 0 bids 4): trick 1 seat 2 throws 6C on AS while dealt 8S 7S 6S: proven at once,
    proof 6S. Played out, team 0 takes 11 books (9 tricks, trick 12 ruffed by seat 2, the discard book);
    the penalty hands 3 to team 1: 8 - 5. 4 high needs 10: failed, -4; team 1's 5 books score nothing."""
    m = run(tiered_setup() + plays(RENEGE_T1))
    assert m.hand.reneges[0].proof == card("6S") and m.hand.suspicions == []
    for e in plays(*RENEGE_REST):
        m.apply(e)
    res = m.result()
    assert res["hands"][0]["reneges"] == [{"seat": 2, "trick": 1, "card": "6C", "led": "S", "proof": "6S"}]
    assert res["hands"][0]["taken"] == [8, 5]
    assert res["hands"][0]["score"] == [-4, 0]
    assert res["hands"][0]["irregularities"] == []
    assert res["scores"] == [-4, 0]


def test_hands_unknown_renege_proven_by_later_play_of_the_suit():
    """Rule: proven "from a later play of that suit by the same player". Worked example: the same hand
    recorded with `"hands": null` and the discards unread. Trick 1, seat 2 throws 6C on AS: only a suspicion
    (the referee cannot know its hand). Trick 2, seat 2 plays 8S: it held a spade at trick 1 (cards never
    enter a hand during play), so the renege is proven with proof 8S and scored as with known hands."""
    m = run(tiered_setup(known=False) + plays(RENEGE_T1))
    hand = m.hand
    assert hand.reneges == []
    assert [(s.seat, s.trick, s.card, s.led) for s in hand.suspicions] == [(2, 1, card("6C"), 0)]
    assert hand.full_view()["suspicions"] == [{"seat": 2, "trick": 1, "card": "6C", "led": "S", "proof": None}]
    m.apply({"event": "play", "seat": 0, "card": "KS"})
    m.apply({"event": "play", "seat": 1, "card": "TS"})
    assert hand.reneges == []
    m.apply({"event": "play", "seat": 2, "card": "8S"})
    assert hand.suspicions == []
    assert [r.to_json() for r in hand.reneges] == [{"seat": 2, "trick": 1, "card": "6C", "led": "S", "proof": "8S"}]
    for e in plays("3:4S", *RENEGE_REST[1:]):
        m.apply(e)
    res = m.result()["hands"][0]
    assert res["reneges"] == [{"seat": 2, "trick": 1, "card": "6C", "led": "S", "proof": "8S"}]
    assert res["taken"] == [8, 5] and res["score"] == [-4, 0]


def test_hands_unknown_suspicion_is_shown_to_director_never_scored():
    """Rule: "A suspicion is shown to the director, never scored." Worked example (`"hands": null`): at trick
    12 of the renege hand seat 2 plays 6S on QC. The referee cannot see that 6S is its last card: it is a
    suspicion (director's full view), not a renege (public view, no penalty). When the hand ends every card
    of seat 2 has been seen and none was a club after trick 11: the cards accounted for clear it -- no
    renege, no "suspected renege" line. Only trick 1's proven renege is scored (-4 as above).
    (A suspicion left unsettled at the end would be listed as an irregularity "suspected renege"; with every
    play read, a complete Bid Whist hand always settles it one way or the other.)"""
    m = run(tiered_setup(known=False) + plays(RENEGE_T1, *RENEGE_REST[:-1]) + plays("1:QC 2:6S"))
    hand = m.hand
    assert [(s.seat, s.trick, s.led) for s in hand.suspicions] == [(2, 12, 3)]
    assert hand.full_view()["suspicions"] == [{"seat": 2, "trick": 12, "card": "6S", "led": "C", "proof": None}]
    assert [r["trick"] for r in hand.public_view()["reneges"]] == [1]
    for e in plays("3:3C 0:9C"):
        m.apply(e)
    res = m.result()["hands"][0]
    assert res["reneges"] == [{"seat": 2, "trick": 1, "card": "6C", "led": "S", "proof": "8S"}]
    assert res["irregularities"] == []
    assert res["taken"] == [8, 5] and res["score"] == [-4, 0]


def test_hands_unknown_unproven_suspicion_mid_hand_has_no_effect_on_taken():
    """Rule: a suspicion is "never scored". Worked example (`"hands": null`): seat 3 throws 3C on AS at trick 1
    (it held 5S 4S 3S, which the referee cannot see). Until seat 3 shows a spade it is only in the director's
    suspicions: the public view lists no renege, the books are as played. Seat 3's 5S at trick 2 proves it."""
    m = run(tiered_setup(known=False) + plays("0:AS 1:JS 2:8S 3:3C", "0:KS 1:TS 2:7S"))
    hand = m.hand
    assert hand.reneges == [] and hand.public_view()["reneges"] == []
    assert hand.full_view()["suspicions"] == [{"seat": 3, "trick": 1, "card": "3C", "led": "S", "proof": None}]
    assert hand.taken == [2, 0]
    m.apply({"event": "play", "seat": 3, "card": "5S"})  # now it is proven: seat 3 held a spade at trick 1
    assert [r.to_json() for r in hand.reneges] == [{"seat": 3, "trick": 1, "card": "3C", "led": "S", "proof": "5S"}]


# ---------------------------------------------------------------- out of turn


def test_out_of_turn_play_is_an_irregularity_not_a_renege():
    """Rule: "A play by a seat that is not on turn is an irregularity ("out of turn") for the director; it is
    not scored as a renege." Worked example (tiered deal, hands known): at trick 2 seat 0 leads KS and seat 2
    plays 6H before seat 1 -- out of turn, and not following spades though it holds 7S 6S: an irregularity
    only, no renege and no suspicion."""
    m = run(tiered_setup() + plays(*TIERED_PLAY[:1], "0:KS 2:6H"))
    hand = m.hand
    assert hand.reneges == [] and hand.suspicions == []
    assert hand.irregularities == [{"kind": "out of turn", "seat": 2, "trick": 2, "card": "6H", "turn": 1}]
    assert hand.play_turn() == 1


def test_out_of_turn_play_whole_hand_scores_normally():
    """Rule: out of turn is "an irregularity ... not scored as a renege". Worked example: the tiered hand
    with trick 2 played 0:KS, 2:7S (out of turn, before seat 1), 1:TS, 3:4S. The hand scores as usual
    (10 books, +4); the result lists the irregularity and no renege."""
    tricks = list(TIERED_PLAY)
    tricks[1] = "0:KS 2:7S 1:TS 3:4S"
    m = replay_events(tiered_setup() + plays(*tricks))
    res = m.result()["hands"][0]
    assert res["reneges"] == []
    assert res["irregularities"] == [{"kind": "out of turn", "seat": 2, "trick": 2, "card": "7S", "turn": 1}]
    assert res["taken"] == [10, 3] and res["score"] == [4, 0]


def test_out_of_turn_lead_is_not_a_renege_by_the_seat_on_turn():
    """Rule: out of turn is not a renege. Worked example: trick 11 should be led by seat 1 (it won trick 10);
    seat 0 leads TC instead. Seat 1 then plays KC: clubs -- no renege for anyone."""
    m = run(tiered_setup() + plays(*TIERED_PLAY[:10], "0:TC"))
    hand = m.hand
    assert hand.irregularities == [{"kind": "out of turn", "seat": 0, "trick": 11, "card": "TC", "turn": 1}]
    m.apply({"event": "play", "seat": 1, "card": "KC"})
    assert hand.reneges == [] and hand.suspicions == []
