"""RULINGS.md, "Common to all games": "before that [the renege is established], the director may let the player
take the card back and play a legal one, with no penalty (`renege_correctable = true`)" — in every game, also
when the offending card was the last of its trick."""

import pytest

from engine.cards import card
from engine.hand import IllegalEvent
from engine.match import Match


def euchre_hand_after_bidding():
    m = Match("bid_euchre", {}, None, 3)
    hands = [
        ["AS", "KS", "QS", "9H", "TH", "QH"],  # seat 0
        ["JS", "9C", "AD", "KD", "QD", "JD"],  # seat 1
        ["TS", "AH", "KH", "JH", "9D", "TD"],  # seat 2
        ["AC", "KC", "QC", "JC", "TC", "9S"],  # seat 3: one spade
    ]
    m.apply({"event": "deal", "dealer": 3, "hands": hands})
    m.apply({"event": "bid", "seat": 0, "bid": "3"})
    for seat in (1, 2, 3):
        m.apply({"event": "bid", "seat": seat, "bid": "pass"})
    m.apply({"event": "declare", "seat": 0, "trump": "H"})
    return m


def test_bid_euchre_renege_by_the_last_player_of_a_trick_can_be_taken_back():
    """Seat 3, the last card of trick 1, holds 9S and plays AC on a spade lead: the trick completes at once. Before
    anyone plays to trick 2 the director lets seat 3 take it back and follow; no renege, no penalty."""
    m = euchre_hand_after_bidding()
    hand = m.hand
    for seat, c in ((0, "AS"), (1, "JS"), (2, "TS"), (3, "AC")):
        m.apply({"event": "play", "seat": seat, "card": c})
    assert len(hand.tricks) == 1 and [(r.seat, r.proof) for r in hand.reneges] == [(3, card("9S"))]
    m.apply({"event": "retract", "seat": 3})
    assert hand.reneges == [] and len(hand.tricks) == 0 and hand.taken == [0, 0]
    m.apply({"event": "play", "seat": 3, "card": "9S"})
    assert len(hand.tricks) == 1 and hand.reneges == [] and hand.taken == [1, 0]
    assert [i["kind"] for i in hand.irregularities] == ["card taken back"]


def test_bid_euchre_retract_refused_once_the_renege_is_established():
    """Seat 1 reneges in trick 1 and then plays to trick 2: established. Once trick 3 has begun its card of trick 1
    can no longer be taken back, and the renege stands."""
    m = euchre_hand_after_bidding()
    for seat, c in ((0, "AS"), (1, "AD"), (2, "TS"), (3, "9S")):
        m.apply({"event": "play", "seat": seat, "card": c})
    for seat, c in ((0, "KS"), (1, "JS"), (2, "9D"), (3, "KC")):
        m.apply({"event": "play", "seat": seat, "card": c})
    assert m.hand.reneges[0].established and m.hand.reneges[0].trick == 1
    m.apply({"event": "play", "seat": 0, "card": "QS"})  # seat 0 won trick 2 and leads trick 3
    with pytest.raises(IllegalEvent, match="no card in the current trick"):
        m.apply({"event": "retract", "seat": 1})
    assert [(r.seat, r.trick) for r in m.hand.reneges] == [(1, 1)]
