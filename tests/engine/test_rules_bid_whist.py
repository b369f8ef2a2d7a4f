"""RULINGS.md, "Bid Whist": one test (or a few) per rule line and option, each a worked example on a hand-built
deal written out card by card (see bw_helpers.py for TIERED and its tiered play)."""

import pytest
from bw_helpers import (
    TIERED,
    TIERED_KITTY,
    TIERED_PLAY,
    bids,
    deal,
    declare,
    discard,
    plays,
    record,
    replay_events,
    run,
    tiered_setup,
)

from engine.cards import BJ, CLUBS, HEARTS, LJ, SPADES, card
from engine.hand import IllegalEvent, Trick
from engine.record import RecordError, replay

# ---------------------------------------------------------------- worked deals

# Seat 0 holds the top of every suit (A K Q): it wins every trick while all follow.
TOPS = (
    "AS KS QS AH KH QH AD KD QD AC KC QC",
    "JS TS 9S JH TH 9H JD TD 9D JC TC 9C",
    TIERED[2],
    TIERED[3],
    TIERED_KITTY,
)
TOPS_PLAY = (*TIERED_PLAY[:9], "0:AC 1:JC 2:8C 3:5C", "0:KC 1:TC 2:7C 3:4C", "0:QC 1:9C 2:6C 3:3C")

# Jokers in a trump bid (hearts). Seat 3 holds the Big Joker and no heart; seat 1 the Little Joker and 8H 7H.
JOKERS = (
    "AH KH QH JH TH 9H AS KS AD KD AC KC",
    "LJ 8H 7H QS JS TS QD JD TD QC JC TC",
    "6H 5H 4H 9S 8S 7S 9D 8D 7D 9C 8C 7C",
    "BJ 6S 5S 4S 3S 6D 5D 4D 3D 6C 5C 4C",
    "3H 2H 2S 2D 3C 2C",
)
# Seat 0 bids 5 (high), names hearts, discards the kitty. Trick 1: seat 3 must play BJ (its only trump) and
# wins; trick 4: LJ beats QH. Seat 0 wins the 10 other tricks: team 0 = 10 + the discard book = 11, team 1 = 2.
JOKERS_PLAY = (
    "0:AH 1:7H 2:4H 3:BJ",
    "3:6S 0:AS 1:TS 2:7S",
    "0:KH 1:8H 2:5H 3:3S",
    "0:QH 1:LJ 2:6H 3:4S",
    "1:QS 2:8S 3:5S 0:KS",
    "0:JH 1:JS 2:9S 3:6D",
    "0:TH 1:QD 2:7D 3:5D",
    "0:9H 1:JD 2:8D 3:4D",
    "0:AD 1:TD 2:9D 3:3D",
    "0:KD 1:QC 2:9C 3:4C",
    "0:AC 1:JC 2:8C 3:5C",
    "0:KC 1:TC 2:7C 3:6C",
)

# No trump: seat 1 holds LJ instead of JS, seat 2 BJ instead of 8S; JS and 8S are in the kitty.
NT = (
    "AS KS QS AH KH QH AD KD QD JC TC 9C",
    "LJ TS 9S JH TH 9H JD TD 9D AC KC QC",
    "BJ 7S 6S 8H 7H 6H 8D 7D 6D 8C 7C 6C",
    TIERED[3],
    "2S 2H 2D 2C JS 8S",
)
NT_KITTY = NT[4]

# nt_jokers = "dead": the jokers stay in hand. Seat 2 throws BJ on QS at trick 3 (void in spades), seat 1 leads
# LJ at trick 11 (7C then sets clubs; TC wins). Seat 0 wins tricks 1-9 and 11, seat 1 tricks 10 and 12.
DEAD_PLAY = (
    "0:AS 1:TS 2:6S 3:5S",
    "0:KS 1:9S 2:7S 3:4S",
    "0:QS 1:QC 2:BJ 3:3S",
    *TIERED_PLAY[3:9],
    "0:JC 1:AC 2:8C 3:5C",
    "1:LJ 2:7C 3:4C 0:TC",
    "0:9C 1:KC 2:6C 3:3C",
)


def _setup(hands, dealer=3, declarer=0, bid="4", trump="S", direction=None, kitty_discard=None, known=True):
    """``hands`` dealt by ``dealer``; ``declarer`` wins the bidding with ``bid`` (the others pass), declares,
    and discards ``kitty_discard`` (default: the kitty's six cards)."""
    order = [(dealer + 1 + i) % 4 for i in range(4)]
    return [
        deal(dealer, *hands, known=known),
        *bids(*[(s, bid if s == declarer else "pass") for s in order]),
        declare(declarer, trump, direction),
        discard(declarer, (kitty_discard or hands[4]) if known else None),
    ]


def _trick(hand, *pairs):
    """A trick of (seat, code) pairs, the suit led set as the engine sets it (first card with a suit)."""
    t = Trick(pairs[0][0])
    t.cards = [(s, card(c)) for s, c in pairs]
    t.led = next((hand.eff[card(c)] for _, c in pairs if hand.eff[card(c)] < 4), -1)
    return t


def _result(m):
    res = m.result()["hands"]
    assert len(res) == 1
    return res[0]


# ---------------------------------------------------------------- deck and deal


def test_deck_54_cards_deal_12_each_and_6_to_the_kitty():
    """Rule: "Deck: 52 cards + Big Joker (BJ) + Little Joker (LJ). Deal: 12 to each player, 6 face down to the
    kitty." Worked example: the tiered deal (the four 2s and both jokers in the kitty) is accepted: 12 cards
    per seat, 6 in the kitty, each of the 54 cards certainly placed."""
    hand = run([deal(3, *TIERED)]).hand
    k = hand.knowledge
    assert k.count == [12, 12, 12, 12, 6, 0]
    assert k.certain[4] == sum(1 << card(c) for c in TIERED_KITTY.split())
    assert bin(k.certain[0] | k.certain[1] | k.certain[2] | k.certain[3] | k.certain[4]).count("1") == 54


def test_deal_of_the_wrong_shape_or_with_a_card_twice_is_refused():
    """Rule: 12 cards to each player, 6 to the kitty, from one 54-card deck. Worked examples: seat 0 with 11
    cards, a kitty of 5, and a deal with AS twice (in place of 2S) are each refused."""
    ev = deal(3, *TIERED)
    short = dict(ev, hands=[ev["hands"][0][:11], *ev["hands"][1:]])
    with pytest.raises(IllegalEvent, match="seat 0 was dealt 11 cards"):
        run([short])
    with pytest.raises(IllegalEvent, match="'kitty' must have 6 cards"):
        run([dict(ev, kitty=ev["kitty"][:5])])
    with pytest.raises(IllegalEvent, match="AS is dealt twice"):
        run([dict(ev, kitty=["AS", *ev["kitty"][1:]])])


# ---------------------------------------------------------------- bids


def test_bids_are_3_to_7_with_high_low_or_no():
    """Rule: "Bids: a number 3..7 and a kind: high (uptown), low (downtown) or no (no trump)". Worked example
    (tiered deal, dealer 3): "2", "8" and "4 up" are refused; "3 low", "5 no", "7 high" are accepted in turn."""
    m = run([deal(3, *TIERED)])
    for bad in ("2", "8", "4 up", "four"):
        with pytest.raises(IllegalEvent):
            m.apply({"event": "bid", "seat": 0, "bid": bad})
    for e in bids((0, "3 low"), (1, "5 no"), (2, "7 high")):
        m.apply(e)
    assert m.hand.bids == [(0, "3 low"), (1, "5 no"), (2, "7 high")]


def test_bare_number_means_high():
    """Rule: "A bare number means high." Worked example: seat 0 bids "4": the contract is "4 high"; seat 1's
    "4 high" does not beat it (equal), "4 low" does."""
    m = run([deal(3, *TIERED), *bids((0, "4"))])
    assert m.hand.contract == "4 high"
    with pytest.raises(IllegalEvent, match="does not beat"):
        m.apply({"event": "bid", "seat": 1, "bid": "4 high"})
    m.apply({"event": "bid", "seat": 1, "bid": "4 low"})
    assert m.hand.contract == "4 low" and m.hand.declarer == 1


def test_bid_order_default_no_beats_low_beats_high_within_a_number():
    """Rule: "Order: by number, and within a number high < low < no (`bid_order = "no>low>high"`)". Worked
    example: 4 high, 4 low, 4 no, then 5 high all beat the standing bid; after 4 low, "4 high" is refused;
    after 4 no, "4 low" is refused; 5 high (a higher number) beats 4 no."""
    m = run([deal(3, *TIERED), *bids((0, "4 high"), (1, "4 low"))])
    with pytest.raises(IllegalEvent, match="does not beat"):
        m.apply({"event": "bid", "seat": 2, "bid": "4 high"})
    m.apply({"event": "bid", "seat": 2, "bid": "4 no"})
    with pytest.raises(IllegalEvent, match="does not beat"):
        m.apply({"event": "bid", "seat": 3, "bid": "4 low"})
    m.apply({"event": "bid", "seat": 3, "bid": "5 high"})
    hand = m.hand
    assert hand.declarer == 3 and hand.contract == "5 high" and hand.phase == "declare"


def test_bid_order_no_over_high_equal_low():
    """Rule: `bid_order = "no>high=low"`: "a low bid does not beat a high bid of the same number". Worked
    example: after 4 high, "4 low" is refused (and after 4 low, "4 high" is refused); "4 no" beats both."""
    opts = {"bid_order": "no>high=low"}
    m = run([deal(3, *TIERED), *bids((0, "4 high"))], opts)
    with pytest.raises(IllegalEvent, match="does not beat"):
        m.apply({"event": "bid", "seat": 1, "bid": "4 low"})
    m.apply({"event": "bid", "seat": 1, "bid": "4 no"})
    assert m.hand.contract == "4 no"
    m = run([deal(3, *TIERED), *bids((0, "4 low"))], opts)
    with pytest.raises(IllegalEvent, match="does not beat"):
        m.apply({"event": "bid", "seat": 1, "bid": "4 high"})
    m.apply({"event": "bid", "seat": 1, "bid": "5 low"})
    assert m.hand.contract == "5 low"


def test_one_round_of_bidding_from_dealers_left_each_once():
    """Rule: "One round of bidding, starting left of the dealer: each player bids once or passes". Worked
    example: dealer 1 -> seats 2, 3, 0, 1 bid in that order; a bid by seat 3 first is refused; after four
    calls the bidding is over (a fifth bid is refused) and the highest bidder declares."""
    m = run([deal(1, *TIERED)])
    with pytest.raises(IllegalEvent, match="out of turn"):
        m.apply({"event": "bid", "seat": 3, "bid": "3"})
    for e in bids((2, "3"), (3, "pass"), (0, "4 low"), (1, "pass")):
        m.apply(e)
    hand = m.hand
    assert hand.phase == "declare" and hand.declarer == 0 and hand.contract == "4 low"
    with pytest.raises(IllegalEvent, match="bid event in the declare phase"):
        m.apply({"event": "bid", "seat": 2, "bid": "5"})


def test_a_bid_must_beat_the_standing_bid():
    """Rule: "a bid must beat the standing bid". Worked example: seat 0 bids 5 low; seat 1's "5 low" (equal)
    and "4 no" (lower number) are refused; "5 no" is accepted."""
    m = run([deal(3, *TIERED), *bids((0, "5 low"))])
    for bad in ("5 low", "4 no", "3"):
        with pytest.raises(IllegalEvent, match="does not beat"):
            m.apply({"event": "bid", "seat": 1, "bid": bad})
    m.apply({"event": "bid", "seat": 1, "bid": "5 no"})
    assert m.hand.declarer == 1


def test_first_three_pass_dealer_must_bid_at_least_3_high():
    """Rule: "If the first three pass, the dealer must bid (at least 3 high)." Worked example: dealer 0,
    seats 1, 2, 3 pass; the dealer's pass is refused and not offered; "3" makes seat 0 declarer at 3 high."""
    m = run([deal(0, *TIERED), *bids((1, "pass"), (2, "pass"), (3, "pass"))])
    hand = m.hand
    offered = [e["bid"] for e in hand.legal_events()]
    assert "pass" not in offered and offered[0] == "3 high" and len(offered) == 15
    with pytest.raises(IllegalEvent, match="dealer must bid"):
        m.apply({"event": "bid", "seat": 0, "bid": "pass"})
    m.apply({"event": "bid", "seat": 0, "bid": "3"})
    assert hand.declarer == 0 and hand.contract == "3 high" and hand.phase == "declare"


def test_dealer_can_match_false_dealer_must_beat():
    """Rule: `dealer_can_match = false`. Worked example: seat 0 bids 4, seats 1 and 2 pass; the dealer
    (seat 3) may not take it with "4": refused; "4 low" beats it."""
    m = run([deal(3, *TIERED), *bids((0, "4"), (1, "pass"), (2, "pass"))])
    with pytest.raises(IllegalEvent, match="does not beat"):
        m.apply({"event": "bid", "seat": 3, "bid": "4"})
    m.apply({"event": "bid", "seat": 3, "bid": "4 low"})
    assert m.hand.declarer == 3


def test_dealer_can_match_true_dealer_takes_the_bid_by_matching_it():
    """Rule: "`dealer_can_match` ... when true, the dealer may take the standing bid by matching it." Worked
    example: seat 0 bids 4; seat 1 may not match it (only the dealer may): refused; the dealer (seat 3) bids
    "4 high" and becomes declarer at 4 high."""
    opts = {"dealer_can_match": True}
    m = run([deal(3, *TIERED), *bids((0, "4"))], opts)
    with pytest.raises(IllegalEvent, match="does not beat"):
        m.apply({"event": "bid", "seat": 1, "bid": "4"})
    for e in bids((1, "pass"), (2, "pass")):
        m.apply(e)
    assert {"event": "bid", "seat": 3, "bid": "4 high"} in m.hand.legal_events()
    m.apply({"event": "bid", "seat": 3, "bid": "4 high"})
    assert m.hand.declarer == 3 and m.hand.contract == "4 high"


# ---------------------------------------------------------------- declaring and the kitty


def test_declarer_names_trump_for_high_or_low_bid():
    """Rule: "The winner (declarer) names the trump suit for a high or low bid". Worked example: seat 0 wins
    with 4 low and names hearts: trump H, direction low. A declaration by seat 1, without a suit, or with a
    no-trump direction is refused."""
    m = run([deal(3, *TIERED), *bids((0, "4 low"), (1, "pass"), (2, "pass"), (3, "pass"))])
    with pytest.raises(IllegalEvent, match="declarer is seat 0"):
        m.apply(declare(1, "H"))
    with pytest.raises(IllegalEvent, match="trump must be one of"):
        m.apply(declare(0, None, "low"))
    with pytest.raises(IllegalEvent, match="a low bid plays low"):
        m.apply(declare(0, "H", "high"))
    m.apply(declare(0, "H"))
    hand = m.hand
    assert hand.trump == HEARTS and hand.direction == "low" and hand.result()["trump"] == "H"


def test_declarer_names_direction_for_no_trump_bid():
    """Rule: "... or the direction (high or low) for a no-trump bid." Worked example: seat 0 wins with 4 no;
    naming spades is refused, naming no direction is refused; "low" gives no trump, direction low."""
    m = run([deal(3, *TIERED), *bids((0, "4 no"), (1, "pass"), (2, "pass"), (3, "pass"))])
    with pytest.raises(IllegalEvent, match="names no trump suit"):
        m.apply(declare(0, "S"))
    with pytest.raises(IllegalEvent, match="direction"):
        m.apply(declare(0, None))
    m.apply(declare(0, None, "low"))
    assert m.hand.trump is None and m.hand.direction == "low"


def test_kitty_into_declarers_hand_six_discards_are_first_book():
    """Rule: "The declarer adds it [the kitty] to the hand and discards 6 cards face down; the discards are the
    declarer's side's first book." Worked example: seat 1 (team 1) declares 4 spades on the tiered deal
    (dealer 0): 18 cards in hand, then discards six (not the kitty's: 9H 9D QC 2H 2D 2C) and team 1 has one
    book before any trick; discarding a card it does not hold (AS) or five cards is refused."""
    events = [deal(0, *TIERED), *bids((1, "4"), (2, "pass"), (3, "pass"), (0, "pass")), declare(1, "S")]
    m = run(events)
    hand = m.hand
    k = hand.knowledge
    assert k.count == [12, 18, 12, 12, 0, 0]
    assert k.holds(1, BJ) and k.holds(1, card("2S"))
    with pytest.raises(IllegalEvent, match="cannot hold AS"):
        m.apply(discard(1, "9H 9D QC 2H 2D AS"))  # AS is seat 0's: refused, nothing moved
    with pytest.raises(IllegalEvent, match="discards 6 cards, not 5"):
        m.apply(discard(1, "9D QC 2H 2D 2C"))
    with pytest.raises(IllegalEvent, match="only the declarer"):
        m.apply(discard(0, "AS KS QS AH KH QH"))
    m.apply(discard(1, "9H 9D QC 2H 2D 2C"))  # the refused discards changed nothing
    assert k.count == [12, 12, 12, 12, 0, 6]
    assert hand.taken == [0, 1]
    assert hand.play_turn() == 1  # "The declarer leads to the first book."


def test_declarer_leads_to_the_first_book():
    """Rule: "The declarer leads to the first book." Worked example: seat 2 wins the bidding (dealer 3); after
    the discard seat 2 is on turn; seat 0 (left of the dealer) leading instead is out of turn."""
    events = [
        deal(3, *TIERED),
        *bids((0, "pass"), (1, "pass"), (2, "3"), (3, "pass")),
        declare(2, "D"),
        discard(2, TIERED_KITTY),
    ]
    m = run(events)
    assert m.hand.play_turn() == 2
    m.apply({"event": "play", "seat": 0, "card": "AS"})
    assert m.hand.irregularities == [{"kind": "out of turn", "seat": 0, "trick": 1, "card": "AS", "turn": 2}]


# ---------------------------------------------------------------- play: following, card order


def test_follow_suit_if_able_otherwise_any_card():
    """Rule: "Follow suit if able, otherwise play any card." Worked example (JOKERS deal, hearts trump):
    trick 2 seat 3 leads 6S: seat 0 may play only AS KS; at trick 3 (KH led) seat 3, void in hearts and
    without joker, may play any of its 10 cards."""
    m = run(_setup(JOKERS, bid="5", trump="H") + plays(JOKERS_PLAY[0], "3:6S"))
    assert m.hand.legal_plays() == [card("KS"), card("AS")]
    for e in plays("0:AS 1:TS 2:7S", "0:KH 1:8H 2:5H"):
        m.apply(e)
    assert m.hand.play_turn() == 3 and len(m.hand.legal_plays()) == 10


def test_highest_trump_wins_else_highest_of_suit_led():
    """Rule: "The highest trump wins, or else the highest card of the suit led." Worked example (tiered deal,
    trump spades): trick 10 JC led, AC wins (no trump played); in the renege hand seat 2's 6S ruffs QC at
    trick 12 (`_trick` builds the tricks from the deal's cards)."""
    hand = run(tiered_setup()).hand
    assert hand.trick_winner(_trick(hand, (0, "JC"), (1, "AC"), (2, "8C"), (3, "5C"))) == 1
    assert hand.trick_winner(_trick(hand, (1, "QC"), (2, "6S"), (3, "3C"), (0, "9C"))) == 2
    assert hand.trick_winner(_trick(hand, (1, "QC"), (2, "6H"), (3, "3C"), (0, "9C"))) == 1  # 6H: no trump


def test_card_order_plain_suits_high_and_low():
    """Rule: "Card order in plain suits: high: A K Q J T 9 8 7 6 5 4 3 2; low: A 2 3 4 5 6 7 8 9 T J Q K."
    Worked example: with trump spades (high) each club beats the next in A K..2; with trump spades (low) and
    at no trump low, A 2 3 .. K. Played: 4 low, spades trump, seat 0 leads: AS wins trick 1, then 4S wins KS
    TS 7S 4S, then 3S wins 3S QS 9S 6S."""
    high = "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C".split()
    low = "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC".split()
    for bid, trump, direction, order in (("4", "S", None, high), ("4 low", "S", None, low), ("4 no", None, "low", low)):
        hand = run(tiered_setup(bid=bid, trump=trump, direction=direction)).hand
        for better, worse in zip(order, order[1:], strict=False):
            assert hand.trick_winner(_trick(hand, (0, worse), (1, better))) == 1, (bid, better, worse)
            assert hand.trick_winner(_trick(hand, (0, better), (1, worse))) == 0, (bid, better, worse)
    m = run(tiered_setup(bid="4 low", trump="S") + plays("0:AS 1:JS 2:8S 3:5S", "0:KS 1:TS 2:7S 3:4S"))
    assert m.hand.trick.leader == 3 and m.hand.taken == [2, 1]
    for e in plays("3:3S 0:QS 1:9S 2:6S"):
        m.apply(e)
    assert m.hand.trick.leader == 3 and m.hand.taken == [2, 2]


def test_card_order_trumps_jokers_then_a_then_k_to_2_high_or_2_to_k_low():
    """Rule: "Jokers in trump bids are the two highest trumps (BJ, LJ, then A, then K..2 for high or 2..K for
    low)". Worked example (tiered deal, spades trump): BJ > LJ > AS > KS > .. > 2S at high; BJ > LJ > AS > 2S
    > 3S > .. > KS at low; the lowest trump beats the highest plain card (2S on AH led, high; KS at low)."""
    high = "BJ LJ AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S".split()
    low = "BJ LJ AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS".split()
    for bid, order in (("4", high), ("4 low", low)):
        hand = run(tiered_setup(bid=bid, trump="S")).hand
        for better, worse in zip(order, order[1:], strict=False):
            assert hand.trick_winner(_trick(hand, (0, worse), (1, better))) == 1, (bid, better, worse)
            assert hand.trick_winner(_trick(hand, (0, better), (1, worse))) == 0, (bid, better, worse)
        assert hand.trick_winner(_trick(hand, (0, "AH"), (1, order[-1]))) == 1


def test_jokers_highest_trumps_played_bj_beats_lj_beats_ace():
    """Rule: jokers are "the two highest trumps (BJ, LJ, then A ...)". Worked example (JOKERS deal, hearts
    trump, seat 0 leads AH): seat 1 plays LJ, seat 3 BJ: BJ wins (seat 3 leads trick 2). In the normal play of
    the deal LJ (seat 1) beats QH at trick 4."""
    m = run(_setup(JOKERS, bid="5", trump="H") + plays("0:AH 1:LJ 2:4H 3:BJ"))
    assert m.hand.trick.leader == 3 and m.hand.taken == [1, 1]
    m = run(_setup(JOKERS, bid="5", trump="H") + plays(*JOKERS_PLAY[:4]))
    assert m.hand.trick.leader == 1
    assert [t.leader for t in m.hand.tricks] == [0, 3, 0, 0]


def test_joker_follows_trump_seat_holding_only_a_joker_in_trump_must_play_it():
    """Rule: jokers "belong to the trump suit: ... a joker follows trump". Worked example (JOKERS deal, hearts
    trump): AH led; seat 3 holds BJ and no heart, so its only legal card is BJ. It plays BJ: no renege, no
    suspicion (the trap: BJ is not a heart, yet it follows hearts). The whole hand: 11 books to team 0, 5
    bid made, +5."""
    m = run(_setup(JOKERS, bid="5", trump="H") + plays("0:AH 1:7H 2:4H"))
    assert m.hand.legal_plays() == [BJ]
    for e in plays("3:BJ", *JOKERS_PLAY[1:]):
        m.apply(e)
    res = _result(m)
    assert res["reneges"] == [] and res["irregularities"] == []
    assert m.hands[0].suspicions == []
    assert res["taken"] == [11, 2] and res["score"] == [5, 0]


def test_seat_holding_only_joker_in_trump_that_throws_off_suit_is_a_proven_renege():
    """Rule: "a joker follows trump": not playing it on a trump lead is a failure to follow. Worked example
    (JOKERS deal, hands known): AH led, seat 3 throws 6S while holding BJ: proven renege, proof BJ."""
    m = run(_setup(JOKERS, bid="5", trump="H") + plays("0:AH 1:7H 2:4H 3:6S"))
    assert [r.to_json() for r in m.hand.reneges] == [{"seat": 3, "trick": 1, "card": "6S", "led": "H", "proof": "BJ"}]


def test_joker_led_is_trump_led():
    """Rule: "a joker led is trump led". Worked example: tiered deal, seat 0 declares 4 spades and keeps both
    jokers (discarding 2H 2D 2C QH QD 9C). Seat 0 leads BJ: the suit led is spades; seat 1 must play one of
    9S TS JS; its JH instead is a proven renege (proof 9S)."""
    events = tiered_setup()[:-1] + [discard(0, "2H 2D 2C QH QD 9C")] + plays("0:BJ")
    m = run(events)
    hand = m.hand
    assert hand.trick.led == SPADES
    assert hand.legal_plays() == [card("9S"), card("TS"), card("JS")]
    m.apply({"event": "play", "seat": 1, "card": "JH"})
    assert [r.to_json() for r in hand.reneges] == [{"seat": 1, "trick": 1, "card": "JH", "led": "S", "proof": "9S"}]


def test_joker_played_on_a_plain_suit_lead_while_holding_it_is_a_renege():
    """Rule: jokers "belong to the trump suit", so a joker is not a card of a plain suit. Worked example
    (JOKERS deal): trick 2, seat 3 leads 6S, seat 0 AS; seat 1 plays LJ while holding QS JS TS: proven
    renege, card LJ, led S, proof TS."""
    m = run(_setup(JOKERS, bid="5", trump="H") + plays(JOKERS_PLAY[0], "3:6S 0:AS 1:LJ"))
    assert [r.to_json() for r in m.hand.reneges] == [{"seat": 1, "trick": 2, "card": "LJ", "led": "S", "proof": "TS"}]


def test_jokers_distinct_false_first_joker_played_ranks_high():
    """Rule (`jokers_distinct`, RULINGS.md Pitch, an option of Bid Whist too): "when false, as with a deck whose
    two jokers look alike, the first joker played in a hand ranks as the high one". Worked example (JOKERS
    deal, hearts trump): AH led, seat 1 plays its joker (read LJ), seat 3 its joker (read BJ). Distinct: BJ
    wins (seat 3). Not distinct: seat 1's joker, the first played, is the high one: seat 1 wins."""
    t1 = plays("0:AH 1:LJ 2:4H 3:BJ")
    m = run(_setup(JOKERS, bid="5", trump="H") + t1, {"jokers_distinct": True})
    assert m.hand.trick.leader == 3
    m = run(_setup(JOKERS, bid="5", trump="H") + t1, {"jokers_distinct": False})
    assert m.hand.trick.leader == 1 and m.hand.taken == [1, 1]


def test_jokers_distinct_false_a_joker_read_as_either_code_is_the_seats_joker():
    """Rule: `jokers_distinct = false`: "a deck whose two jokers look alike" -- a joker read as "BJ" or "LJ"
    is whichever joker the seat holds. Worked example (JOKERS deal): AH led, seat 1 (holding LJ) plays a joker
    read "BJ": refused when the jokers are distinct (seat 3 holds BJ), accepted when they are not; it is the
    first joker played, so it wins over seat 3's."""
    t1 = plays("0:AH 1:BJ")
    with pytest.raises(IllegalEvent, match="seat 1 cannot hold BJ"):
        run(_setup(JOKERS, bid="5", trump="H") + t1)
    m = run(_setup(JOKERS, bid="5", trump="H") + t1, {"jokers_distinct": False})
    assert m.hand.trick.cards[1] == (1, LJ) and m.hand.reneges == []
    for e in plays("2:4H 3:BJ"):
        m.apply(e)
    assert m.hand.trick.leader == 1


# ---------------------------------------------------------------- jokers at no trump


def test_nt_jokers_swap_big_joker_holder_first_drew_unseen():
    """Rule: `nt_jokers = "swap"`: "after the declarer's discard, each other player holding a joker puts it
    into the kitty book and draws one of the discards at random, unseen (the Big Joker's holder first)".
    Worked example (NT deal: seat 2 holds BJ, seat 1 LJ; seat 0 bids 4 no, high, discards 2S 2H 2D 2C JS 8S):
    seat 2 is to act; LJ's swap first is refused; seat 2 swaps BJ and draws 8S; seat 1 swaps LJ and draws
    unseen (null). The jokers are out of every hand, play starts with the declarer; the hands are then the
    tiered ones (seat 1 plays JS, its draw): 10 books, +4."""
    events = _setup(NT, bid="4 no", trump=None, direction="high")
    m = run(events)
    hand = m.hand
    assert hand.phase == "joker_swap" and hand.current_player() == 2
    assert {e["joker"] for e in hand.legal_events()} == {"BJ"}
    with pytest.raises(IllegalEvent, match="no swap of LJ is due"):
        m.apply({"event": "joker_swap", "seat": 1, "joker": "LJ", "drew": None})
    with pytest.raises(IllegalEvent, match="declarer does not swap"):
        m.apply({"event": "joker_swap", "seat": 0, "joker": "BJ", "drew": None})
    m.apply({"event": "joker_swap", "seat": 2, "joker": "BJ", "drew": "8S"})
    assert hand.current_player() == 1
    m.apply({"event": "joker_swap", "seat": 1, "joker": "LJ", "drew": None})
    assert hand.phase == "play" and hand.play_turn() == 0
    k = hand.knowledge
    assert not any(k.may_hold(s, j) for s in range(4) for j in (BJ, LJ))
    assert k.holds(2, card("8S")) and k.may_hold(1, card("JS")) and k.count[:4] == [12, 12, 12, 12]
    for e in plays(*TIERED_PLAY):
        m.apply(e)
    res = _result(m)
    assert res["trump"] is None and res["contract"] == "4 no"
    assert res["taken"] == [10, 3] and res["score"] == [4, 0] and res["reneges"] == []


def test_nt_jokers_swap_refused_swap_changes_nothing():
    """Rule: the swapping player "draws one of the discards"; a swap that cannot have happened is refused and
    leaves the hand as it was (a live referee goes on after a refused misread). Worked example (NT deal):
    seat 2 swapping BJ but "drawing" AS (not a discard), and seat 1 swapping BJ (it holds LJ), are refused;
    the correct swaps then go through."""
    m = run(_setup(NT, bid="4 no", trump=None, direction="high"))
    hand = m.hand
    before = (list(hand.knowledge.count), list(hand.knowledge.possible), list(hand.swaps_left))
    with pytest.raises(IllegalEvent, match="AS is not one of the discards"):
        m.apply({"event": "joker_swap", "seat": 2, "joker": "BJ", "drew": "AS"})
    with pytest.raises(IllegalEvent, match="seat 1 cannot hold BJ"):
        m.apply({"event": "joker_swap", "seat": 1, "joker": "BJ", "drew": None})
    assert (list(hand.knowledge.count), list(hand.knowledge.possible), list(hand.swaps_left)) == before
    m.apply({"event": "joker_swap", "seat": 2, "joker": "BJ", "drew": "8S"})
    m.apply({"event": "joker_swap", "seat": 1, "joker": "LJ", "drew": "JS"})
    assert hand.phase == "play" and hand.knowledge.count[:4] == [12, 12, 12, 12]


def test_nt_jokers_swap_skipped_is_an_irregularity_and_the_joker_is_dead():
    """Rule: `nt_jokers = "swap"`: each other player holding a joker swaps it. Ambiguity resolved: if the table
    starts play without a due swap (hands known, so the referee knows it was due), the play is accepted and
    the director sees a "joker not swapped" irregularity; the joker left in hand belongs to no suit and never
    wins. Worked example (NT deal): seat 2 swaps BJ, seat 1 forgets LJ; seat 0 leads AS, seat 1 plays TS."""
    m = run(_setup(NT, bid="4 no", trump=None, direction="high"))
    m.apply({"event": "joker_swap", "seat": 2, "joker": "BJ", "drew": "8S"})
    for e in plays("0:AS 1:TS"):
        m.apply(e)
    hand = m.hand
    assert hand.irregularities == [{"kind": "joker not swapped", "seat": 1, "card": "LJ"}]
    assert hand.knowledge.holds(1, LJ) and hand.eff[LJ] == 4 and hand.power[LJ] == -1


def test_nt_jokers_swap_with_hands_unknown_first_play_ends_the_swaps():
    """Rule: `nt_jokers = "swap"` with the hands dealt by hand (`"hands": null`): the table records who swapped
    ("drew": null, unseen); the first play ends the swaps. Worked example: same hand, swaps by seats 2 and 1,
    then the tiered play: +4, no renege, no suspicion left."""
    events = _setup(NT, bid="4 no", trump=None, direction="high", known=False)
    events += [
        {"event": "joker_swap", "seat": 2, "joker": "BJ", "drew": None},
        {"event": "joker_swap", "seat": 1, "joker": "LJ", "drew": None},
    ]
    m = replay_events(events + plays(*TIERED_PLAY))
    res = _result(m)
    assert res["taken"] == [10, 3] and res["score"] == [4, 0]
    assert res["reneges"] == [] and res["irregularities"] == []


def test_nt_jokers_dead_joker_kept_played_when_void_is_not_a_renege_and_never_wins():
    """Rule: `nt_jokers = "dead"`: "jokers stay in hand. A joker kept at no trump belongs to no suit, never wins
    a book, and may be played only by a player who cannot follow suit". Worked example (NT deal, 4 no high,
    no swap): trick 3 QS led, seat 1 (void) throws QC, seat 2 (void in spades) throws BJ: no renege (the
    trap), and QS wins. Team 0: 10 tricks + discard book = 11 -> +5."""
    events = _setup(NT, bid="4 no", trump=None, direction="high")
    m = run(events + plays(*DEAD_PLAY[:2], "0:QS 1:QC"), {"nt_jokers": "dead"})
    hand = m.hand
    assert hand.phase == "play"  # no swap phase
    assert BJ in hand.legal_plays()  # void in spades: any card, the joker included
    for e in plays("2:BJ 3:3S"):
        m.apply(e)
    assert hand.reneges == [] and hand.suspicions == []
    assert hand.trick.leader == 0  # QS won; the joker never wins
    for e in plays(*DEAD_PLAY[3:]):
        m.apply(e)
    res = _result(m)
    assert res["reneges"] == [] and res["irregularities"] == []
    assert res["taken"] == [11, 2] and res["score"] == [5, 0]


def test_nt_jokers_dead_joker_not_legal_while_holding_the_suit_led():
    """Rule: a dead joker "may be played only by a player who cannot follow suit". Worked example (NT deal,
    dead): AS led; seat 1 holds LJ TS 9S: its legal cards are 9S TS only."""
    m = run(_setup(NT, bid="4 no", trump=None, direction="high") + plays("0:AS"), {"nt_jokers": "dead"})
    assert m.hand.legal_plays() == [card("9S"), card("TS")]


def test_nt_jokers_dead_joker_led_next_card_sets_the_suit():
    """Rule: "if a joker is led, the next card played sets the suit to follow." Worked example (NT deal, dead):
    trick 11, seat 1 leads LJ: no suit yet, seat 2 may play any card it holds; it plays 7C: clubs to follow; seat 3
    must play 3C or 4C; seat 0's TC wins (the joker never wins)."""
    m = run(
        _setup(NT, bid="4 no", trump=None, direction="high") + plays(*DEAD_PLAY[:10], "1:LJ"), {"nt_jokers": "dead"}
    )
    hand = m.hand
    assert hand.trick.led == -1
    assert hand.legal_plays() == [card("6C"), card("7C")]  # its whole hand: no suit to follow yet
    m.apply({"event": "play", "seat": 2, "card": "7C"})
    assert hand.trick.led == CLUBS
    assert hand.legal_plays() == [card("3C"), card("4C")]
    for e in plays("3:4C 0:TC"):
        m.apply(e)
    assert hand.tricks[-1].led == CLUBS and hand.trick.leader == 0


def test_nt_jokers_dead_both_jokers_first_the_first_suited_card_sets_the_suit():
    """Rule: "if a joker is led, the next card played sets the suit to follow" -- read as: the next card of a
    suit (a second joker, having no suit, sets none). Worked example (NT deal, dead): seat 2 keeps BJ (throws
    6C at trick 3); trick 11 seat 1 leads LJ, seat 2 plays BJ: still no suit; seat 3's 4C sets clubs, seat 0
    must follow (9C or TC) and TC wins. Team 0: 11 books, +5."""
    tricks = (
        *DEAD_PLAY[:2],
        "0:QS 1:QC 2:6C 3:3S",
        *DEAD_PLAY[3:9],
        "0:JC 1:AC 2:8C 3:5C",
        "1:LJ 2:BJ",
    )
    m = run(_setup(NT, bid="4 no", trump=None, direction="high") + plays(*tricks), {"nt_jokers": "dead"})
    hand = m.hand
    assert hand.trick.led == -1
    m.apply({"event": "play", "seat": 3, "card": "4C"})
    assert hand.trick.led == CLUBS and hand.legal_plays() == [card("9C"), card("TC")]
    for e in plays("0:TC", "0:9C 1:KC 2:7C 3:3C"):
        m.apply(e)
    res = _result(m)
    assert res["reneges"] == [] and res["taken"] == [11, 2] and res["score"] == [5, 0]
    assert m.hands[0].tricks[10].cards[3] == (0, card("TC")) and m.hands[0].tricks[11].leader == 0


def test_nt_jokers_dead_joker_played_while_holding_the_suit_is_a_proven_renege():
    """Rule: a dead joker may be played "only by a player who cannot follow suit" -- playing it while holding
    the suit led is a renege (the trap the other way round). Worked example (hands known): AS led, seat 1
    throws LJ holding TS 9S: proven, proof 9S. Team 0 takes 10 books, the penalty moves 3: 13-0; 4 no made
    with 13 books: +7."""
    tricks = (
        "0:AS 1:LJ 2:6S 3:5S",
        "0:KS 1:9S 2:7S 3:4S",
        "0:QS 1:TS 2:BJ 3:3S",
        *TIERED_PLAY[3:],
    )
    m = run(_setup(NT, bid="4 no", trump=None, direction="high") + plays(*tricks), {"nt_jokers": "dead"})
    res = _result(m)
    assert res["reneges"] == [{"seat": 1, "trick": 1, "card": "LJ", "led": "S", "proof": "9S"}]
    assert res["taken"] == [13, 0] and res["score"] == [7, 0]


# ---------------------------------------------------------------- score


def test_score_books_made_scores_books_over_six():
    """Rule: "Score (`score = "books"`): the declarer's side needs 6 + bid books. Made: + (books - 6)." Worked
    example (tiered hand, bid 3, 10 books incl. the discard book): +4 (not +3); 13 books in all."""
    res = _result(run(tiered_setup(bid="3") + plays(*TIERED_PLAY)))
    assert res["contract"] == "3 high" and res["taken"] == [10, 3] and sum(res["taken"]) == 13
    assert res["score"] == [4, 0]


def test_score_books_made_exactly():
    """Rule: "the declarer's side needs 6 + bid books". Worked example: bid 4, 10 books: made exactly, +4."""
    assert _result(run(tiered_setup(bid="4") + plays(*TIERED_PLAY)))["score"] == [4, 0]


def test_score_failed_minus_bid_opponents_under_seven_score_nothing():
    """Rule: "Failed: - bid, and the opponents score + (their books - 6) if they took 7 or more." Worked
    example: bid 5 on the tiered hand: 10 books < 11: -5; the opponents' 3 books score nothing."""
    res = _result(run(tiered_setup(bid="5") + plays(*TIERED_PLAY)))
    assert res["taken"] == [10, 3] and res["score"] == [-5, 0]


def _team1_fails():
    """Tiered deal dealt by seat 0; seat 1 bids 3 (clubs), wins its three clubs, then seat 0 wins the rest:
    team 1 = 3 + the discard book = 4, team 0 = 9."""
    return [
        deal(0, *TIERED),
        *bids((1, "3"), (2, "pass"), (3, "pass"), (0, "pass")),
        declare(1, "C"),
        discard(1, TIERED_KITTY),
    ] + plays(
        "1:AC 2:8C 3:5C 0:JC",
        "1:KC 2:7C 3:4C 0:TC",
        "1:QC 2:6C 3:3C 0:9C",
        "1:JS 2:8S 3:5S 0:AS",
        "0:KS 1:TS 2:7S 3:4S",
        "0:QS 1:9S 2:6S 3:3S",
        *TIERED_PLAY[3:9],
    )


def test_score_failed_opponents_with_seven_or_more_score_books_over_six():
    """Rule: "Failed: - bid, and the opponents score + (their books - 6) if they took 7 or more." Worked
    example: seat 1 bids 3 and takes 4 books; team 0 took 9: team 1 -3, team 0 +3."""
    res = _result(run(_team1_fails()))
    assert res["declarer"] == 1 and res["taken"] == [9, 4] and res["score"] == [3, -3]


def test_score_bid_only_made_scores_the_bid():
    """Rule: "`score = "bid_only"`: made scores + bid." Worked example: bid 3, 10 books: +3 (books would
    give +4); failing is scored as with "books" (seat 1's failed 3: -3, opponents +3)."""
    res = _result(run(tiered_setup(bid="3") + plays(*TIERED_PLAY), {"score": "bid_only"}))
    assert res["score"] == [3, 0]
    res = _result(run(_team1_fails(), {"score": "bid_only"}))
    assert res["score"] == [3, -3]


def test_nt_multiplier_multiplies_every_score_of_a_no_trump_hand():
    """Rule: "`nt_multiplier = 1` (Parlett: 2) multiplies every score of a no-trump hand." Worked example (NT
    deal, swaps, tiered play, 10 books): 4 no: +4, with 2: +8; 5 no fails: -5, with 2: -10; a trump hand
    (4 spades, +4) is not multiplied."""

    def nt(bid, opts):
        events = _setup(NT, bid=bid, trump=None, direction="high")
        events += [
            {"event": "joker_swap", "seat": 2, "joker": "BJ", "drew": "8S"},
            {"event": "joker_swap", "seat": 1, "joker": "LJ", "drew": "JS"},
        ]
        return _result(run(events + plays(*TIERED_PLAY), opts))["score"]

    assert nt("4 no", {}) == [4, 0]
    assert nt("4 no", {"nt_multiplier": 2}) == [8, 0]
    assert nt("5 no", {"nt_multiplier": 2}) == [-10, 0]
    assert _result(run(tiered_setup() + plays(*TIERED_PLAY), {"nt_multiplier": 2}))["score"] == [4, 0]


def test_nt_multiplier_also_multiplies_the_opponents_score_of_a_failed_no_trump():
    """Rule: `nt_multiplier` "multiplies every score of a no-trump hand" -- the defenders' too. Worked example
    (NT deal dealt by 0, jokers dead): seat 1 bids 3 no (high), wins its three clubs and the discard book (4);
    team 0 takes the other 9. -3 / +3, with `nt_multiplier = 2`: -6 / +6."""
    events = [
        deal(0, *NT),
        *bids((1, "3 no"), (2, "pass"), (3, "pass"), (0, "pass")),
        declare(1, None, "high"),
        discard(1, NT_KITTY),
    ] + plays(
        "1:AC 2:8C 3:5C 0:JC",
        "1:KC 2:7C 3:4C 0:TC",
        "1:QC 2:6C 3:3C 0:9C",
        "1:TS 2:7S 3:5S 0:AS",
        "0:KS 1:9S 2:6S 3:4S",
        "0:QS 1:LJ 2:BJ 3:3S",
        *TIERED_PLAY[3:9],
    )
    res = _result(run(events, {"nt_jokers": "dead"}))
    assert res["taken"] == [9, 4] and res["score"] == [3, -3]
    res = _result(run(events, {"nt_jokers": "dead", "nt_multiplier": 2}))
    assert res["score"] == [6, -6]


def test_boston_multiplier_multiplies_a_hand_with_all_13_books():
    """Rule: "`boston_multiplier = 1` multiplies the score of a hand in which one side took all 13 books."
    Worked example (TOPS deal: seat 0 holds A K Q of every suit, bids 4 spades): all 13 books: +7, with 2:
    +14; the tiered hand (10 books) with 2 stays +4."""
    events = _setup(TOPS) + plays(*TOPS_PLAY)
    res = _result(run(events, {"target": 50}))
    assert res["taken"] == [13, 0] and res["score"] == [7, 0]
    assert _result(run(events, {"boston_multiplier": 2, "target": 50}))["score"] == [14, 0]
    assert _result(run(tiered_setup() + plays(*TIERED_PLAY), {"boston_multiplier": 2}))["score"] == [4, 0]


# ---------------------------------------------------------------- game


def test_game_target_plus_seven_wins():
    """Rule: "Game: `target = 7`. At the end of a hand a team at +target or more wins". Worked example: TOPS
    hand, team 0 +7: team 0 wins at once; no further event is accepted. With target 8 play goes on."""
    m = replay_events(_setup(TOPS) + plays(*TOPS_PLAY))
    assert m.scores == [7, 0] and m.winner == 0 and m.is_terminal()
    assert m.result()["winner"] == 0
    with pytest.raises(IllegalEvent, match="match is over"):
        m.apply(deal(0, *TOPS))
    m = run(_setup(TOPS) + plays(*TOPS_PLAY), {"target": 8})
    assert m.winner is None and m.hand.dealer == 0 and m.hand.phase == "deal"


def test_game_target_minus_seven_loses():
    """Rule: "a team at -target or less loses". Worked example (TOPS deal dealt by seat 0): seat 1 bids 7
    (spades) and takes only the discard book; team 0 takes 12: team 1 -7 (loses), team 0 +6 (below 7): team 0
    wins the match because team 1 lost."""
    events = [
        deal(0, *TOPS),
        *bids((1, "7"), (2, "pass"), (3, "pass"), (0, "pass")),
        declare(1, "S"),
        discard(1, TIERED_KITTY),
    ] + plays("1:JS 2:8S 3:5S 0:AS", "0:KS 1:TS 2:7S 3:4S", "0:QS 1:9S 2:6S 3:3S", *TOPS_PLAY[3:])
    m = replay_events(events)
    res = m.result()
    assert res["hands"][0]["taken"] == [12, 1] and res["hands"][0]["score"] == [6, -7]
    assert res["scores"] == [6, -7] and res["winner"] == 0


def test_game_goes_on_below_target_and_target_option():
    """Rule: `target`. Worked example: the tiered hand (+4) leaves the match open at target 7 (next dealer
    0), and wins it at target 4."""
    m = run(tiered_setup() + plays(*TIERED_PLAY))
    assert m.winner is None and m.scores == [4, 0] and m.hand.dealer == 0
    m = run(tiered_setup() + plays(*TIERED_PLAY), {"target": 4})
    assert m.winner == 0


# ---------------------------------------------------------------- renege penalty

# Tiered deal, spades trump, seat 0 bids 4. Seat 2 reneges twice: 6C on AS (trick 1, holding 8S 7S 6S) and
# 6D on AH (trick 4, holding 8H 7H 6H). At trick 9 (void in diamonds) it discards 6H; at trick 12 it ruffs
# QC with 6S. Seat 0 wins tricks 1-9, seat 1 tricks 10-11, seat 2 trick 12: team 0 = 11, team 1 = 2.
TWO_RENEGES = (
    "0:AS 1:JS 2:6C 3:5S",
    "0:KS 1:TS 2:8S 3:4S",
    "0:QS 1:9S 2:7S 3:3S",
    "0:AH 1:JH 2:6D 3:5H",
    "0:KH 1:TH 2:8H 3:4H",
    "0:QH 1:9H 2:7H 3:3H",
    "0:AD 1:JD 2:8D 3:5D",
    "0:KD 1:TD 2:7D 3:4D",
    "0:QD 1:9D 2:6H 3:3D",
    "0:JC 1:AC 2:8C 3:5C",
    "1:KC 2:7C 3:4C 0:TC",
    "1:QC 2:6S 3:3C 0:9C",
)
ONE_RENEGE = (TWO_RENEGES[0], *TWO_RENEGES[1:3], *TIERED_PLAY[3:10], *TWO_RENEGES[10:])


def test_renege_penalty_books_three_books_per_established_renege():
    """Rule: "Renege penalty (`renege_penalty = "books"`, `renege_books = 3`): for each established renege the
    offending side hands 3 books ... to the other side, then the hand is scored." Worked example: two proven
    reneges by seat 2 (tricks 1 and 4): team 0's 11 books become 5, team 1's 2 become 8. Seat 0's 4 fails:
    -4; team 1 with 8 books scores +2."""
    res = _result(run(tiered_setup() + plays(*TWO_RENEGES)))
    assert res["reneges"] == [
        {"seat": 2, "trick": 1, "card": "6C", "led": "S", "proof": "6S"},
        {"seat": 2, "trick": 4, "card": "6D", "led": "H", "proof": "6H"},
    ]
    assert res["taken"] == [5, 8] and res["score"] == [-4, 2]


def test_renege_penalty_one_renege_three_books_and_renege_books_option():
    """Rule: `renege_books = 3` per renege (the number is an option). Worked example: one renege by seat 2
    (trick 1): 11 - 2 becomes 8 - 5: 4 fails, -4. With `renege_books = 1`: 10 - 3: 4 made, +4."""
    res = _result(run(tiered_setup() + plays(*ONE_RENEGE)))
    assert res["taken"] == [8, 5] and res["score"] == [-4, 0]
    res = _result(run(tiered_setup() + plays(*ONE_RENEGE), {"renege_books": 1}))
    assert res["taken"] == [10, 3] and res["score"] == [4, 0]


def test_renege_penalty_books_all_it_has_if_fewer():
    """Rule: the offending side hands 3 books "(all it has, if fewer)". Worked example (JOKERS deal, hearts
    trump, seat 0 bids 5): trick 2, 6S led, seat 1 throws TD holding QS JS TS (proof TS). Team 1 takes only 2
    books (BJ's trick 1, LJ's trick 4) and hands both: 13 - 0. Seat 0 makes 5 with 13 books: +7."""
    tricks = (
        "0:AH 1:7H 2:4H 3:BJ",
        "3:6S 0:AS 1:TD 2:7S",
        "0:KH 1:8H 2:5H 3:3S",
        "0:QH 1:LJ 2:6H 3:4S",
        "1:QS 2:8S 3:5S 0:KS",
        "0:JH 1:JS 2:9S 3:6D",
        "0:TH 1:TS 2:7D 3:5D",
        "0:9H 1:QD 2:8D 3:4D",
        "0:AD 1:JD 2:9D 3:3D",
        *JOKERS_PLAY[9:],
    )
    m = run(_setup(JOKERS, bid="5", trump="H") + plays(*tricks))
    assert m.hands[0].taken == [11, 2]
    res = _result(m)
    assert res["reneges"] == [{"seat": 1, "trick": 2, "card": "TD", "led": "S", "proof": "TS"}]
    assert res["taken"] == [13, 0] and res["score"] == [7, 0]


def test_renege_penalty_books_then_boston_counts_books_after_penalty():
    """Rules: the penalty books are handed over, "then the hand is scored"; `boston_multiplier` "multiplies the
    score of a hand in which one side took all 13 books". Ambiguity resolved: the books handed over count, so
    a side credited with all 13 books after the penalty has a Boston (the score is computed from the books
    after penalties, as CONVENTIONS.md's `taken`). Worked example: the JOKERS renege hand (13 - 0 after the
    penalty) with `boston_multiplier = 2`: +14."""
    tricks = (
        "0:AH 1:7H 2:4H 3:BJ",
        "3:6S 0:AS 1:TD 2:7S",
        "0:KH 1:8H 2:5H 3:3S",
        "0:QH 1:LJ 2:6H 3:4S",
        "1:QS 2:8S 3:5S 0:KS",
        "0:JH 1:JS 2:9S 3:6D",
        "0:TH 1:TS 2:7D 3:5D",
        "0:9H 1:QD 2:8D 3:4D",
        "0:AD 1:JD 2:9D 3:3D",
        *JOKERS_PLAY[9:],
    )
    res = _result(run(_setup(JOKERS, bid="5", trump="H") + plays(*tricks), {"boston_multiplier": 2, "target": 50}))
    assert res["taken"] == [13, 0] and res["score"] == [14, 0]


def test_renege_by_declarer_after_unread_discard_needs_a_later_play_as_proof():
    """Rule: proof "from the dealer's reads, or from a later play of that suit". The declarer's discard is
    face down: unread, the referee no longer knows which six of its 18 cards it kept. Worked example (tiered
    deal dealt by 0, hands known; seat 1 bids 3 clubs, discards six unread cards -- in fact the kitty): trick
    5, KS led, seat 1 throws 9H holding TS 9S: only a suspicion; at trick 6 it plays 9S: proven (proof 9S).
    Team 1's 4 books become 1, team 0's 9 become 12: seat 1 fails, -3; team 0 +6. With the discard read, the
    same renege is proven at once from the deal."""
    tricks = (
        "1:AC 2:8C 3:5C 0:JC",
        "1:KC 2:7C 3:4C 0:TC",
        "1:QC 2:6C 3:3C 0:9C",
        "1:JS 2:8S 3:5S 0:AS",
        "0:KS 1:9H 2:7S 3:4S",
        "0:QS 1:9S 2:6S 3:3S",
        "0:AH 1:JH 2:8H 3:5H",
        "0:KH 1:TH 2:7H 3:4H",
        "0:QH 1:TS 2:6H 3:3H",
        "0:AD 1:JD 2:8D 3:5D",
        "0:KD 1:TD 2:7D 3:4D",
        "0:QD 1:9D 2:6D 3:3D",
    )
    setup = [deal(0, *TIERED), *bids((1, "3"), (2, "pass"), (3, "pass"), (0, "pass")), declare(1, "C")]
    m = run([*setup, discard(1, None), *plays(*tricks[:5])])
    hand = m.hand
    assert hand.reneges == []
    assert hand.full_view()["suspicions"] == [{"seat": 1, "trick": 5, "card": "9H", "led": "S", "proof": None}]
    for e in plays(*tricks[5:]):
        m.apply(e)
    res = _result(m)
    assert res["reneges"] == [{"seat": 1, "trick": 5, "card": "9H", "led": "S", "proof": "9S"}]
    assert res["taken"] == [12, 1] and res["score"] == [6, -3]
    m = run([*setup, discard(1, TIERED_KITTY), *plays(*tricks[:5])])
    assert [r.to_json() for r in m.hand.reneges] == [{"seat": 1, "trick": 5, "card": "9H", "led": "S", "proof": "9S"}]


def test_renege_penalty_hand_other_side_credited_all_13_books():
    """Rule: "`renege_penalty = "hand"`: the other side is credited with all 13 books." Worked example: one
    renege by seat 2: team 1 is credited 13, team 0 none. Seat 0's 4 fails: -4; team 1: 13 - 6 = +7."""
    res = _result(run(tiered_setup() + plays(*ONE_RENEGE), {"renege_penalty": "hand", "target": 50}))
    assert res["taken"] == [0, 13] and res["score"] == [-4, 7]


def test_renege_penalty_needs_proof_record_replay_same_result():
    """Rule: the penalty is applied "only when the renege is proven"; every option is in the record, so the
    record re-scores the same way. Worked example: the two-renege hand as JSONL, replayed: same result."""
    lines = record(tiered_setup() + plays(*TWO_RENEGES))
    first = replay(lines).result()
    again = replay(lines).result()
    assert first == again and first["scores"] == [-4, 2]


def test_record_refuses_a_play_the_seat_cannot_hold():
    """CONVENTIONS.md: "a play of a card the seat is known not to hold" is refused with its line number.
    Worked example (tiered deal, hands known): seat 1 plays AS at trick 1 (seat 0 holds it): line 10."""
    with pytest.raises(RecordError) as info:
        replay(record(tiered_setup() + plays("0:KS 1:AS")))
    assert info.value.line == 10 and "cannot hold AS" in info.value.reason


def test_kitty_shown_to_all_in_trump_bids_never_in_no_trump():
    """RULINGS.md, Bid Whist: "Kitty: shown to all in trump bids (`kitty_shown_in_trumps = true`), never in no
    trump." The public view shows the kitty once trump is named; not before, not at no trump, not when the option
    is false."""
    import random

    from engine.match import Match
    from engine.simulate import random_deal

    for options, declaration, shown in (
        ({}, {"trump": "S"}, True),
        ({"kitty_shown_in_trumps": False}, {"trump": "S"}, False),
        ({}, {"trump": None, "direction": "high"}, False),
    ):
        m = Match("bid_whist", options, None, 3)
        deal = random_deal(m.hand, random.Random(4))
        m.apply(deal)
        bid = "4 no" if declaration["trump"] is None else "4 high"
        m.apply({"event": "bid", "seat": 0, "bid": bid})
        for seat in (1, 2, 3):
            m.apply({"event": "bid", "seat": seat, "bid": "pass"})
        assert "kitty" not in m.public_view()["hand"]
        m.apply(dict({"event": "declare", "seat": 0}, **declaration))
        view = m.public_view()["hand"]
        assert (view.get("kitty") == deal["kitty"]) is shown
        assert shown or "kitty" not in view
