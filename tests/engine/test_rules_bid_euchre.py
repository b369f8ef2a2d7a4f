"""RULINGS.md, "Bid Euchre": one test (or a few) per rule line or option, each a worked example on a hand-built deal.

Deals are written out card by card (four 6-card hands, the whole 24-card deck). Plays are ``"seat:CARD"`` tokens,
one string per trick, so every example shows who played what, in order. The dealer is seat 3 unless a test says
otherwise, so seat 0 is "under the gun". Team 0 = seats 0 and 2, team 1 = seats 1 and 3.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.cards import CODES, EUCHRE_DECK_MASK, card
from engine.hand import IllegalEvent
from engine.match import Match

# ------------------------------------------------------------------------------------------------ helpers


def hands_of(*hands: str) -> list[list[str]]:
    """Four 6-card hands, checked to be the whole 24-card Bid Euchre deck, each card once."""
    out = [h.split() for h in hands]
    assert [len(h) for h in out] == [6, 6, 6, 6], "a Bid Euchre deal is 6 cards to each of 4 players"
    everything = sorted(card(c) for h in out for c in h)
    assert everything == sorted(c for c in range(54) if EUCHRE_DECK_MASK >> c & 1), "the 24-card deck, each once"
    return out


def shift(hands: list[list[str]], k: int) -> list[list[str]]:
    """The same deal, every hand moved k seats clockwise (seat s's hand goes to seat s + k)."""
    out: list[list[str]] = [[] for _ in range(4)]
    for s, h in enumerate(hands):
        out[(s + k) % 4] = h
    return out


def shift_plays(tricks: list[str], k: int) -> list[str]:
    return [" ".join(f"{(int(t.split(':')[0]) + k) % 4}:{t.split(':')[1]}" for t in trick.split()) for trick in tricks]


def new_match(hands: list[list[str]] | None, dealer: int = 3, options: dict[str, Any] | None = None) -> Match:
    m = Match("bid_euchre", options or {}, first_dealer=dealer)
    m.apply({"event": "deal", "dealer": dealer, "hands": hands})
    return m


def bid(m: Match, *pairs: tuple[int, str]) -> None:
    for s, b in pairs:
        m.apply({"event": "bid", "seat": s, "bid": b})


def declare(m: Match, seat: int, trump: str | None, direction: str | None = None) -> None:
    event: dict[str, Any] = {"event": "declare", "seat": seat, "trump": trump}
    if direction is not None:
        event["direction"] = direction
    m.apply(event)


def play(m: Match, *tricks: str) -> None:
    for trick in tricks:
        for token in trick.split():
            seat, code = token.split(":")
            m.apply({"event": "play", "seat": int(seat), "card": code})


def start(hands: list[list[str]] | None, contract: str, trump: str | None, direction: str | None = None,
          declarer: int = 0, options: dict[str, Any] | None = None) -> Match:
    """Dealer 3; seat 0 under the gun bids 3 (or the contract if it is the declarer); the declarer bids the
    contract; the others pass."""
    m = new_match(hands, 3, options)
    for s in range(4):
        if s == declarer:
            bid(m, (s, contract))
        elif s == 0:
            bid(m, (0, "3"))
        else:
            bid(m, (s, "pass"))
    declare(m, declarer, trump, direction)
    return m


# A deal for the left bower: trump hearts, seat 1 holds the JD (the left bower) and no other diamond, no heart.
LEFT = hands_of(
    "AH KH QH TH 9H AS",
    "JD 9C TC QC KC AC",
    "JH 9D TD QD KD AD",
    "9S TS JS QS KS JC",
)
# Trump hearts, 0 leads AH; seat 1 (holding only the left bower as trump) plays 9C: a renege.
LEFT_RENEGE = [
    "0:AH 1:9C 2:JH 3:9S",
    "2:9D 3:JC 0:AS 1:JD",
    "1:AC 2:TD 3:TS 0:9H",
    "0:KH 1:TC 2:QD 3:JS",
    "0:QH 1:QC 2:KD 3:QS",
    "0:TH 1:KC 2:AD 3:KS",
]
# Same deal; diamonds are led while seat 1 holds the JD and no other diamond: it plays a club, no renege.
LEFT_NO_RENEGE = [
    "0:AS 1:9C 2:JH 3:9S",
    "2:9D 3:JC 0:9H 1:TC",
    "0:AH 1:JD 2:TD 3:TS",
    "1:AC 2:QD 3:JS 0:KH",
    "0:QH 1:QC 2:KD 3:QS",
    "0:TH 1:KC 2:AD 3:KS",
]


# ------------------------------------------------------------------------------------------------ deck and deal


def test_deck_24_cards_9_to_A_deal_6_each_no_kitty():
    """RULINGS.md: "Deck: 24 cards, 9 T J Q K A of each suit. Deal: 6 to each player; no kitty." """
    assert [CODES[c] for c in range(52) if EUCHRE_DECK_MASK >> c & 1] == [
        f"{r}{s}" for s in "SHDC" for r in "9TJQKA"
    ]
    m = new_match(LEFT)
    assert m.hand.knowledge.count[:4] == [6, 6, 6, 6]
    assert m.hand.phase == "bid"
    # An 8 is not in the deck; 7 cards to a seat is not the deal.
    bad = [list(h) for h in LEFT]
    bad[0][5] = "8S"
    with pytest.raises(IllegalEvent):
        new_match(bad)
    with pytest.raises(IllegalEvent):
        new_match([LEFT[0] + ["8C"], LEFT[1], LEFT[2], LEFT[3]])
    # Hands dealt by hand (unknown) are fine too.
    assert new_match(None).hand.knowledge.count[:4] == [6, 6, 6, 6]


# ------------------------------------------------------------------------------------------------ bidding


def test_under_the_gun_must_bid_at_least_3_no_pass():
    """RULINGS.md: "That first player is 'under the gun' and must bid at least 3: no pass." Dealer 3: seat 0
    speaks first and may not pass; its legal bids are 3 and up."""
    m = new_match(LEFT)
    assert m.current_player() == 0
    assert "pass" not in [e["bid"] for e in m.legal_events()]
    assert [e["bid"] for e in m.legal_events()] == ["3", "4", "5", "6", "single", "double"]
    with pytest.raises(IllegalEvent):
        bid(m, (0, "pass"))
    with pytest.raises(IllegalEvent):
        bid(m, (0, "2"))
    bid(m, (0, "3"), (1, "pass"), (2, "pass"), (3, "pass"))
    assert (m.hand.declarer, m.hand.contract) == (0, "3")


def test_under_the_gun_is_left_of_dealer_each_hand():
    """RULINGS.md: "one round starting left of the dealer". Dealer 1: seat 2 is under the gun."""
    m = new_match(LEFT, dealer=1)
    assert m.current_player() == 2
    with pytest.raises(IllegalEvent):
        bid(m, (0, "3"))  # not seat 0's turn
    with pytest.raises(IllegalEvent):
        bid(m, (2, "pass"))
    bid(m, (2, "4"), (3, "pass"), (0, "5"), (1, "pass"))
    assert (m.hand.declarer, m.hand.contract) == (0, "5")


def test_ladder_3_4_5_6_single_double():
    """RULINGS.md: "Each later player passes or bids higher. Ladder: 3 < 4 < 5 < 6 < single < double." """
    m = new_match(LEFT)
    bid(m, (0, "5"))
    for low in ("3", "4", "5"):
        with pytest.raises(IllegalEvent):
            bid(m, (1, low))
    bid(m, (1, "6"))
    with pytest.raises(IllegalEvent):
        bid(m, (2, "6"))
    bid(m, (2, "single"))
    assert [e["bid"] for e in m.legal_events()] == ["pass", "double"]
    with pytest.raises(IllegalEvent):
        bid(m, (3, "single"))
    bid(m, (3, "double"))
    assert (m.hand.declarer, m.hand.contract) == (3, "double")
    assert m.hand.phase == "declare"


def test_declare_trump_suit_or_no_trump_only_with_4_5_6():
    """RULINGS.md: "The declarer names a trump suit, or, with a bid of 4, 5 or 6, no-trump high or no-trump low.
    Single and double name a trump suit." """
    for contract in ("3", "single", "double"):
        m = new_match(LEFT)
        bid(m, (0, contract), (1, "pass"), (2, "pass"), (3, "pass"))
        with pytest.raises(IllegalEvent):
            declare(m, 0, None, "high")
        with pytest.raises(IllegalEvent):
            declare(m, 0, None, "low")
        assert not [e for e in m.legal_events() if e["trump"] is None]
        declare(m, 0, "S")
        assert m.hand.trump == 0
    for contract in ("4", "5", "6"):
        for direction in ("high", "low"):
            m = new_match(LEFT)
            bid(m, (0, contract), (1, "pass"), (2, "pass"), (3, "pass"))
            with pytest.raises(IllegalEvent):
                declare(m, 0, None)  # no trump needs a direction
            declare(m, 0, None, direction)
            assert (m.hand.trump, m.hand.direction, m.hand.phase) == (None, direction, "play")
    m = new_match(LEFT)
    bid(m, (0, "3"), (1, "pass"), (2, "pass"), (3, "pass"))
    with pytest.raises(IllegalEvent):
        declare(m, 1, "S")  # only the declarer names trump


# ------------------------------------------------------------------------------------------------ card order

# Trump spades: right bower JS, left bower JC.
ORDER = hands_of(
    "9S AH KH QH JH TH",
    "JS AS 9H AD KD JD",
    "JC QS TD 9D AC KC",
    "KS TS QD QC TC 9C",
)


@pytest.mark.parametrize(
    "trick, winner",
    [
        ("0:9S 1:JS 2:JC 3:KS", 1),  # the right bower beats the left bower and the K
        ("0:9S 1:AS 2:JC 3:TS", 2),  # the left bower beats the A
        ("0:9S 1:AS 2:QS 3:KS", 1),  # A > K > Q
    ],
)
def test_trump_order_right_bower_left_bower_A_K_Q_T_9(trick, winner):
    """RULINGS.md: "Trump order: right bower (J of trump), left bower (the other J of the same colour),
    A K Q T 9." Trump spades: JS, then JC, then AS KS QS TS 9S (the whole order is checked on the engine's
    card powers as well)."""
    m = start(ORDER, "3", "S")
    play(m, trick)
    assert m.hand.trick.leader == winner
    assert m.hand.taken[winner % 2] == 1 and m.hand.taken[1 - winner % 2] == 0
    h = m.hand
    ranked = sorted((c for c in range(52) if EUCHRE_DECK_MASK >> c & 1 and h.eff[c] == 0),
                    key=lambda c: -h.power[c])
    assert [CODES[c] for c in ranked] == ["JS", "JC", "AS", "KS", "QS", "TS", "9S"]


# Plain suits and no trump. Dealer 3; hearts and clubs are spread so that one trick compares three ranks.
PLAIN = hands_of(
    "AH 9H AS 9S AC 9C",
    "KH TH KS TS KC TC",
    "QH JH QS JS QC JC",
    "AD KD QD JD TD 9D",
)


@pytest.mark.parametrize(
    "contract, trump, direction, declarer, trick, winner",
    [
        # Trump spades: hearts are a plain suit, JH is not a bower: A K Q J T 9.
        ("3", "S", None, 0, "0:9H 1:TH 2:JH 3:9D", 2),
        ("3", "S", None, 0, "0:AH 1:KH 2:QH 3:9D", 0),
        ("3", "S", None, 0, "0:9H 1:KH 2:QH 3:AD", 1),  # an off-suit A does not win
        # No-trump high (declarer 1 => seat 0 leads): A K Q J T 9 in every suit, no bowers.
        ("4", None, "high", 1, "0:9H 1:TH 2:JH 3:9D", 2),
        ("4", None, "high", 1, "0:AH 1:KH 2:QH 3:9D", 0),
        ("4", None, "high", 1, "0:9C 1:KC 2:JC 3:AD", 1),
        # No-trump low (declarer 3 => seat 0 leads): 9 T J Q K A, the 9 highest.
        ("4", None, "low", 3, "0:9H 1:TH 2:JH 3:9D", 0),
        ("4", None, "low", 3, "0:AH 1:KH 2:QH 3:9D", 2),
        ("4", None, "low", 3, "0:AC 1:TC 2:JC 3:AD", 1),
    ],
)
def test_plain_suits_and_no_trump_orders(contract, trump, direction, declarer, trick, winner):
    """RULINGS.md: "Plain suits: A K Q J T 9. No-trump high: A K Q J T 9 in every suit. No-trump low:
    9 T J Q K A (the 9 is highest)." """
    m = start(PLAIN, contract, trump, direction, declarer=declarer)
    assert m.hand.trick.leader == 0
    play(m, trick)
    assert m.hand.trick.leader == winner
    assert m.hand.taken[winner % 2] == 1 and m.hand.taken[1 - winner % 2] == 0


# ------------------------------------------------------------------------------------------------ the left bower


def test_left_bower_is_a_trump_when_trump_is_led_must_be_played():
    """RULINGS.md: "The left bower is a trump for every purpose, following suit included." Trump hearts, the AH
    led: seat 1's only trump is the JD (the left bower), so it is its only legal play; it plays 9C instead, a
    proven renege with the JD as proof, established when its side plays to trick 2."""
    m = start(LEFT, "3", "H")
    play(m, "0:AH")
    assert [CODES[c] for c in m.hand.legal_plays()] == ["JD"]
    play(m, "1:9C")
    h = m.hand
    assert [r.to_json() for r in h.reneges] == [{"seat": 1, "trick": 1, "card": "9C", "led": "H", "proof": "JD"}]
    assert not h.reneges[0].established
    play(m, "2:JH 3:9S", "2:9D 3:JC")
    assert h.reneges[0].established


def test_left_bower_led_is_trump_led():
    """RULINGS.md: the left bower is a trump "for every purpose, following suit included": led, it leads trump.
    Trump hearts, seat 0 leads the JD: seat 1 must play its JH (its only trump), not a diamond; seats 2 and 3,
    without a trump, play what they like (diamonds were not led). Seat 1 plays the AD: a proven renege (JH)."""
    hands = hands_of(
        "JD AH KH QH TH 9H",
        "JH AD KD QD TD 9D",
        "AS KS QS JS TS 9S",
        "AC KC QC JC TC 9C",
    )
    m = start(hands, "3", "H")
    play(m, "0:JD")
    h = m.hand
    assert h.trick.led == 1  # hearts
    assert [CODES[c] for c in h.legal_plays()] == ["JH"]
    play(m, "1:AD 2:9S 3:9C")
    assert [r.to_json() for r in h.reneges] == [{"seat": 1, "trick": 1, "card": "AD", "led": "H", "proof": "JH"}]
    assert h.suspicions == [] and h.trick.leader == 0


def test_left_bower_renege_scored_all_tricks():
    """RULINGS.md, renege penalty ``all_tricks``: "the other side is credited with every trick of the hand, and
    the hand is scored from that". The left-bower renege above (seat 1, team 1): tricks as played 5-1 become
    6-0; the bidders (3) score 6 and the defenders, with no trick, lose 6."""
    m = start(LEFT, "3", "H")
    play(m, *LEFT_RENEGE)
    h = m.hands[0]
    assert h.taken == [5, 1]
    assert h.final_taken == [6, 0]
    assert h.score == [6, -6]
    assert m.scores == [6, -6]
    assert m.result()["hands"][0]["reneges"] == [
        {"seat": 1, "trick": 1, "card": "9C", "led": "H", "proof": "JD"}
    ]


@pytest.mark.parametrize("points, score", [(2, [7, 1]), (3, [8, 1])])
def test_renege_penalty_points(points, score):
    """RULINGS.md: "``renege_penalty = "points"`` with ``renege_points = 2``: the other side scores 2 more
    instead." The same left-bower renege: tricks stay 5-1, the bidders score 5 + the penalty."""
    m = start(LEFT, "3", "H", options={"renege_penalty": "points", "renege_points": points})
    play(m, *LEFT_RENEGE)
    assert m.hands[0].final_taken == [5, 1]
    assert m.hands[0].score == score


def test_renege_penalty_points_for_each_renege():
    """RULINGS.md: "``renege_penalty = "points"`` with ``renege_points = 2``: the other side scores 2 more", and
    "Common to all games": the referee applies "an established renege's penalty". Ambiguity resolved: each
    established renege is penalised (as Bid Whist says "for each established renege"). Seat 1 reneges in trick 1
    (9C on the AH, holding the JD) and seat 3 in trick 3 (JS on the AC, holding the JC): team 0 scores its 5
    tricks + 2 + 2."""
    m = start(LEFT, "3", "H", options={"renege_penalty": "points"})
    play(m, "0:AH 1:9C 2:JH 3:9S", "2:9D 3:TS 0:AS 1:JD", "1:AC 2:TD 3:JS 0:9H", "0:KH 1:TC 2:QD 3:JC",
         "0:QH 1:QC 2:KD 3:QS", "0:TH 1:KC 2:AD 3:KS")
    h = m.hands[0]
    assert [(r.seat, r.trick, CODES[r.card], CODES[r.proof]) for r in h.reneges] == [
        (1, 1, "9C", "JD"), (3, 3, "JS", "JC")
    ]
    assert h.final_taken == [5, 1]
    assert h.score == [9, 1]


def test_left_bower_held_is_not_its_printed_suit_no_renege():
    """RULINGS.md: the left bower is a trump "for every purpose, following suit included": it is not a card of
    its printed suit. Trump hearts; diamonds are led while seat 1 holds the JD and no other diamond: seat 1 may
    play anything (here TC) and that is NOT a renege. Later the JD, led to by the AH, wins over it (trump)."""
    m = start(LEFT, "3", "H")
    play(m, LEFT_NO_RENEGE[0], "2:9D 3:JC 0:9H")
    assert sorted(CODES[c] for c in m.hand.legal_plays()) == sorted(["JD", "TC", "QC", "KC", "AC"])
    play(m, "1:TC")
    assert m.hand.reneges == [] and m.hand.suspicions == []
    play(m, "0:AH")
    assert [CODES[c] for c in m.hand.legal_plays()] == ["JD"]
    play(m, "1:JD 2:TD 3:TS")
    assert m.hand.trick.leader == 1  # the left bower beat the AH
    play(m, *LEFT_NO_RENEGE[3:])
    h = m.hands[0]
    assert h.reneges == [] and h.irregularities == []
    assert h.final_taken == [5, 1] and h.score == [5, 1]


def test_left_bower_hands_unknown_play_off_printed_suit_is_only_a_suspicion_then_cleared():
    """RULINGS.md, "Common to all games": a renege is scored only when proven. Hands unknown (dealt by hand):
    seat 1 plays TC to a diamond lead: it might have held a diamond, so a suspicion; its later JD is a heart
    (trump) for every purpose and proves nothing about diamonds. At the end every card is accounted for and seat 1
    never showed a diamond: the suspicion is cleared, nothing is scored or reported."""
    m = start(None, "3", "H")
    play(m, LEFT_NO_RENEGE[0], "2:9D 3:JC 0:9H 1:TC")
    h = m.hand
    assert h.reneges == [] and (1, 2, "TC") in [(s.seat, s.trick, CODES[s.card]) for s in h.suspicions]
    play(m, *LEFT_NO_RENEGE[2:])
    assert h.reneges == [] and h.suspicions == [] and h.irregularities == []
    assert h.score == [5, 1]


def test_left_bower_hands_unknown_trump_led_proven_by_later_left_bower():
    """RULINGS.md, "Common to all games": proven "from a later play of that suit by the same player"; the left
    bower is a trump "for every purpose". Hands unknown: trump (AH) led, seat 1 plays 9C: a suspicion; in trick 2
    it plays the JD, a trump, so it held a trump in trick 1: a proven renege, proof JD, scored (6-0, [6, -6])."""
    m = start(None, "3", "H")
    play(m, LEFT_RENEGE[0])
    h = m.hand
    assert h.reneges == [] and [(s.seat, CODES[s.card]) for s in h.suspicions] == [(1, "9C"), (3, "9S")]
    play(m, LEFT_RENEGE[1])
    assert [r.to_json() for r in h.reneges] == [{"seat": 1, "trick": 1, "card": "9C", "led": "H", "proof": "JD"}]
    play(m, *LEFT_RENEGE[2:])
    # Seat 3 never showed a heart: its suspicions are cleared when every card is accounted for.
    assert [r.to_json() for r in h.reneges] == [{"seat": 1, "trick": 1, "card": "9C", "led": "H", "proof": "JD"}]
    assert h.suspicions == [] and h.irregularities == []
    assert h.score == [6, -6]


def test_hands_unknown_renege_proven_by_a_later_trump_left_bower_follows_trump():
    """RULINGS.md, "Common to all games" in Bid Euchre: hands unknown, trump spades. Trick 1: spades led, seat 3
    plays the QC: a suspicion. Trick 2: spades led again, seat 3 plays the KS (proof: it held a spade in
    trick 1, a proven renege, established since seat 3 played on), and seat 0 plays the JC, the left bower:
    a trump, so it follows spades (no suspicion) and wins over the AS."""
    m = start(None, "3", "S")
    play(m, "0:9S 1:JS 2:QS 3:QC")
    h = m.hand
    assert h.reneges == [] and [(s.seat, CODES[s.card]) for s in h.suspicions] == [(3, "QC")]
    assert h.trick.leader == 1
    play(m, "1:AS 2:TS 3:KS 0:JC")
    assert [(r.to_json(), r.established) for r in h.reneges] == [
        ({"seat": 3, "trick": 1, "card": "QC", "led": "S", "proof": "KS"}, True)
    ]
    assert h.suspicions == []
    assert h.trick.leader == 0


# ------------------------------------------------------------------------------------------------ single, double


SINGLE = hands_of(
    "JH JD AH KH QH 9S",
    "AS KS QS TS 9C TC",
    "AD KD QD TD 9D TH",
    "JS JC AC KC QC 9H",
)


def test_single_exchange_face_down_partner_sits_out():
    """RULINGS.md: "Single: the declarer passes one card face down to the partner, who passes one back before
    looking at it; the partner then sits out, and the declarer plays alone." Seat 0 passes 9S, seat 2 passes TH;
    seat 2 then sits out (a play by it is impossible), tricks have three cards, the declarer leads."""
    m = start(SINGLE, "single", "H")
    h = m.hand
    assert h.phase == "exchange" and m.current_player() == 0
    with pytest.raises(IllegalEvent):
        m.apply({"event": "exchange", "seat": 2, "card": "TH"})  # the declarer passes first
    m.apply({"event": "exchange", "seat": 0, "card": "9S"})
    assert m.current_player() == 2
    m.apply({"event": "exchange", "seat": 2, "card": "TH"})
    assert h.phase == "play" and h.active == [0, 1, 3] and h.trick.leader == 0
    assert h.knowledge.holds(0, card("TH")) and h.knowledge.holds(2, card("9S"))
    play(m, "0:JH 1:9C")
    with pytest.raises(IllegalEvent):
        play(m, "2:9S")
    play(m, "3:9H")
    assert len(h.tricks) == 1 and h.trick.leader == 0
    play(m, "0:JD 1:TC 3:QC", "0:AH 1:AS 3:AC", "0:KH 1:KS 3:KC", "0:QH 1:QS 3:JC", "0:TH 1:TS 3:JS")
    assert h.taken == [6, 0]
    assert h.score == [12, -12]


def test_single_exchange_unread_card_is_null():
    """CONVENTIONS.md: "Where a card is not known (face down, not read), it stands as null". RULINGS.md single:
    the exchange is face down. With the cards unread, the declarer's and the partner's hands are no longer known
    exactly (see the next test for a renege in that state)."""
    m = start(SINGLE, "single", "H")
    m.apply({"event": "exchange", "seat": 0, "card": None})
    m.apply({"event": "exchange", "seat": 2, "card": None})
    h = m.hand
    assert h.phase == "play" and h.active == [0, 1, 3]
    assert h.knowledge.count[:4] == [6, 6, 6, 6]
    # (In fact seat 0 passed the 9S and got the TH.) Nobody read them: the cards are no longer certain.
    assert not h.knowledge.holds(0, card("JH")) and h.knowledge.may_hold(0, card("TH"))
    assert h.knowledge.may_hold(2, card("9S")) and not h.knowledge.holds(2, card("AD"))
    play(m, "0:JH 1:9C 3:9H", "0:JD 1:TC 3:QC", "0:AH 1:AS 3:AC", "0:KH 1:KS 3:KC", "0:QH 1:QS 3:JC",
         "0:TH 1:TS 3:JS")
    assert h.taken == [6, 0]
    assert h.score == [12, -12]
    assert h.reneges == [] and h.irregularities == []


def test_single_unread_exchange_declarer_renege_suspected_then_proven():
    """RULINGS.md single (face-down exchange) and "Common to all games" (proof "from a later play of that suit by
    the same player"). Hands known, the exchange unread (null): in fact seat 0 passed the QH and got the TD.
    Trick 2: spades led, the declarer trumps with the KH while it still holds the 9S: the referee cannot be sure
    which cards the declarer kept, so only a suspicion; in trick 3 it plays the 9S: proven (proof 9S). Renege
    penalty ``all_tricks``: the defenders are credited with all six tricks, the single fails: -12, +6."""
    m = start(SINGLE, "single", "H")
    m.apply({"event": "exchange", "seat": 0, "card": None})
    m.apply({"event": "exchange", "seat": 2, "card": None})
    play(m, "0:TD 1:9C 3:9H")  # seat 3 trumps the diamond: it wins
    h = m.hand
    assert h.trick.leader == 3
    play(m, "3:JS 0:KH 1:AS")
    assert h.reneges == [] and [(s.seat, s.trick, CODES[s.card]) for s in h.suspicions] == [(0, 2, "KH")]
    play(m, "0:9S 1:TS 3:QC")
    assert [r.to_json() for r in h.reneges] == [{"seat": 0, "trick": 2, "card": "KH", "led": "S", "proof": "9S"}]
    play(m, "1:KS 3:KC 0:JH", "0:JD 1:QS 3:AC", "0:AH 1:TC 3:JC")
    h = m.hands[0]
    assert h.taken == [4, 2]
    assert h.final_taken == [0, 6]
    assert h.score == [-12, 6]


def test_single_fewer_than_six_tricks_minus_12_defenders_score_their_tricks():
    """RULINGS.md: "Single: all 6 tricks scores +12 and the defenders lose 12; fewer scores -12 and the
    defenders score their tricks." The declarer keeps the 9S (passes the QH) and loses the last trick: -12, +1."""
    m = start(SINGLE, "single", "H")
    m.apply({"event": "exchange", "seat": 0, "card": "QH"})
    m.apply({"event": "exchange", "seat": 2, "card": "TD"})
    play(m, "0:JH 1:9C 3:9H", "0:JD 1:TC 3:QC", "0:AH 1:AS 3:AC", "0:KH 1:KS 3:KC", "0:TD 1:QS 3:JC",
         "0:9S 1:TS 3:JS")
    h = m.hands[0]
    # Trick 5: diamonds led, nobody else has one: seat 0 wins. Trick 6: JS over TS and 9S: seat 3.
    assert h.taken == [5, 1]
    assert h.score == [-12, 1]


def test_double_alone_no_exchange_plus_minus_24():
    """RULINGS.md: "Double: alone, no exchange." and "Double: the same with 24". Seat 0 plays alone from the
    first card (no exchange event), seat 2 sits out; all six tricks: +24 and -24."""
    m = start(SINGLE, "double", "H")
    h = m.hand
    assert h.phase == "play" and h.active == [0, 1, 3] and h.trick.leader == 0
    with pytest.raises(IllegalEvent):
        m.apply({"event": "exchange", "seat": 0, "card": "9S"})
    play(m, "0:JH 1:9C 3:9H", "0:JD 1:TC 3:QC", "0:AH 1:AS 3:AC", "0:KH 1:KS 3:KC", "0:QH 1:QS 3:JC")
    play(m, "0:9S 1:TS 3:JS")
    assert h.taken == [5, 1] and h.score == [-24, 1]


def test_double_all_six_tricks_24():
    """RULINGS.md: "Double: the same with 24": all six tricks +24, the defenders -24."""
    hands = hands_of(
        "JH JD AH KH QH TH",
        "AS KS QS TS 9C TC",
        "AD KD QD TD 9D 9S",
        "JS JC AC KC QC 9H",
    )
    m = start(hands, "double", "H")
    play(m, "0:JH 1:9C 3:9H", "0:JD 1:TC 3:QC", "0:AH 1:AS 3:AC", "0:KH 1:KS 3:KC", "0:QH 1:QS 3:JC",
         "0:TH 1:TS 3:JS")
    assert m.hands[0].taken == [6, 0] and m.hands[0].score == [24, -24]


# ------------------------------------------------------------------------------------------------ who leads


@pytest.mark.parametrize(
    "contract, trump, direction, leader",
    [("4", "S", None, 1), ("4", None, "high", 0), ("4", None, "low", 2)],
)
def test_who_leads_declarer_nt_high_right_nt_low_left(contract, trump, direction, leader):
    """RULINGS.md: "Who leads: the declarer, except no-trump high (the player to the declarer's right leads) and
    no-trump low (the player to the declarer's left leads)." Declarer seat 1: its right is seat 0, its left seat 2.
    A lead by anyone else is an "out of turn" irregularity, not a renege."""
    m = start(PLAIN, contract, trump, direction, declarer=1)
    assert m.hand.trick.leader == leader and m.current_player() == leader
    wrong = 3
    m.apply({"event": "play", "seat": wrong, "card": "AD"})
    assert [i["kind"] for i in m.hand.irregularities] == ["out of turn"]
    assert m.hand.irregularities[0]["turn"] == leader
    assert m.hand.reneges == []


# ------------------------------------------------------------------------------------------------ fold


@pytest.mark.parametrize("contract, value", [("4", 6), ("6", 6), ("double", 24)])
def test_fold_defenders_bidders_score_6_12_24(contract, value):
    """RULINGS.md: "Fold: after trump is named, in a trump hand (never in no trump), the defending side may fold:
    no play; the bidders score 6 (single 12, double 24) and the folding side scores nothing." """
    m = start(PLAIN, contract, "S", declarer=1)
    assert {"event": "fold", "team": 0} in m.legal_events()
    with pytest.raises(IllegalEvent):
        m.apply({"event": "fold", "team": 1})  # the bidding side may not fold
    m.apply({"event": "fold", "team": 0})
    h = m.hands[0]
    assert h.is_terminal() and h.tricks == []
    assert h.score == [0, value]
    assert m.scores == [0, value]
    assert len(m.hands) == 2 and m.hand.dealer == 0  # the deal passes to the left


def test_fold_single_12():
    """RULINGS.md fold: "the bidders score 6 (single 12, ...)". After the single's exchange the defenders fold."""
    m = start(SINGLE, "single", "H")
    m.apply({"event": "exchange", "seat": 0, "card": "9S"})
    m.apply({"event": "exchange", "seat": 2, "card": "TH"})
    m.apply({"event": "fold", "team": 1})
    assert m.hands[0].score == [12, 0]


def test_fold_single_before_the_exchange():
    """RULINGS.md fold: "after trump is named ... the defending side may fold: no play". Ambiguity resolved: the
    single's exchange is not play, so the defenders may fold as soon as trump is named, before the exchange
    (a director would not make them wait for it). Bidders 12, folders nothing."""
    m = start(SINGLE, "single", "H")
    assert {"event": "fold", "team": 1} in m.legal_events()
    m.apply({"event": "fold", "team": 1})
    assert m.hands[0].score == [12, 0]


@pytest.mark.parametrize("direction", ["high", "low"])
def test_fold_never_in_no_trump(direction):
    """RULINGS.md: "in a trump hand (never in no trump)"."""
    m = start(PLAIN, "4", None, direction, declarer=1)
    assert not [e for e in m.legal_events() if e["event"] == "fold"]
    with pytest.raises(IllegalEvent):
        m.apply({"event": "fold", "team": 0})


def test_fold_only_before_play():
    """RULINGS.md: the fold means "no play": once the first card is played it is too late."""
    m = start(PLAIN, "4", "S", declarer=1)
    play(m, "1:KS")
    with pytest.raises(IllegalEvent):
        m.apply({"event": "fold", "team": 0})


# ------------------------------------------------------------------------------------------------ score

# Trump spades, declarer seat 0. The play gives the declarer's side 4 tricks, the defenders 2.
SCORE = hands_of(
    "JS JC AS KS 9H 9D",
    "QS AH KH QH AD KD",
    "TS 9S TH JH AC KC",
    "QD JD TD QC TC 9C",
)
SCORE_PLAY = [
    "0:JS 1:QS 2:9S 3:9C",  # 0
    "0:JC 1:AH 2:TS 3:TC",  # 0 (seat 1 void of spades after QS)
    "0:AS 1:KH 2:AC 3:QC",  # 0
    "0:KS 1:QH 2:KC 3:QD",  # 0
    "0:9H 1:AD 2:TH 3:TD",  # 2 (hearts led: TH > 9H; AD is off-suit)
    "2:JH 3:JD 0:9D 1:KD",  # 2 (JH, hearts led, no trump left)
]


def test_score_one_per_trick():
    """RULINGS.md: "Score: each side scores 1 per trick it takes." and "A defending side that takes no trick
    loses 6 instead." Bid 3: the declarer takes tricks 1-4, its partner (seat 2) tricks 5-6: 6-0, [6, -6]."""
    m = start(SCORE, "3", "S")
    play(m, *SCORE_PLAY)
    h = m.hands[0]
    assert h.taken == [6, 0]
    assert h.score == [6, -6]


SCORE2_PLAY = [
    "0:JS 1:QS 2:9S 3:9C",  # 0
    "0:JC 1:AH 2:TS 3:TC",  # 0
    "0:AS 1:KH 2:AC 3:QC",  # 0
    "0:9H 1:QH 2:TH 3:TD",  # 1 (QH)
    "1:AD 2:KC 3:QD 0:9D",  # 1 (AD)
    "1:KD 2:JH 3:JD 0:KS",  # 0 (KS trumps)
]


@pytest.mark.parametrize(
    "contract, options, score",
    [
        ("3", {}, [4, 2]),
        ("4", {}, [4, 2]),
        ("5", {}, [-6, 2]),
        ("6", {}, [-6, 2]),
        ("5", {"set_penalty": "bid"}, [-5, 2]),
        ("6", {"set_penalty": "bid"}, [-6, 2]),
    ],
)
def test_score_made_or_set_minus_6_or_minus_bid_and_nothing_else(contract, options, score):
    """RULINGS.md: "each side scores 1 per trick it takes ... A bidding side that took fewer tricks than its bid
    is set: -6 (``set_penalty = "six"``; or ``"bid"``: minus the bid), and nothing else". Bidders take 4, the
    defenders 2 (and score them either way)."""
    m = start(SCORE, contract, "S", options=options)
    play(m, *SCORE2_PLAY)
    h = m.hands[0]
    assert h.taken == [4, 2]
    assert h.score == score


@pytest.mark.parametrize("options, score", [({}, [6, -6]), ({"set_penalty": "bid"}, [6, -4])])
def test_set_with_no_trick_is_minus_6_and_nothing_else(options, score):
    """RULINGS.md: a set bidding side scores "-6 ... and nothing else, with no trick or none": it does not also lose
    6 for taking no trick. Seat 1 (team 1) bids 4 in spades over seat 0's 3 and takes no trick: -6 (or -4 with
    ``set_penalty = "bid"``); team 0 scores its 6 tricks."""
    m = start(SCORE, "4", "S", declarer=1, options=options)
    play(m, "1:QS 2:9S 3:9C 0:JS", "0:JC 1:AH 2:TS 3:TC", "0:AS 1:KH 2:AC 3:QC", "0:KS 1:QH 2:KC 3:QD",
         "0:9H 1:AD 2:TH 3:TD", "2:JH 3:JD 0:9D 1:KD")
    h = m.hands[0]
    assert h.taken == [6, 0]
    assert h.score == score


def test_defenders_with_no_trick_lose_6():
    """RULINGS.md: "A defending side that takes no trick loses 6 instead." Bid 4, 6-0: +6 and -6."""
    m = start(SCORE, "4", "S")
    play(m, *SCORE_PLAY)
    assert m.hands[0].score == [6, -6]


# ------------------------------------------------------------------------------------------------ game


def test_game_target_52_tie_plays_on():
    """RULINGS.md: "Game: ``target = 52``. At the end of a hand, if a side has target or more and the scores are
    not tied, the higher side wins; tied, play goes on until one side leads at the end of a hand." With
    ``target = 6``: hand 1 (dealer 3) team 0 bids 3 and takes 4-2: [4, 2]; hand 2 (dealer 0) the same deal
    moved one seat, team 1 bids 3 and takes 4-2: [6, 6], tied at the target: play goes on; hand 3 (dealer 1)
    seat 2 bids, team 1 folds: [12, 6], team 0 wins."""
    assert Match("bid_euchre").options["target"] == 52
    m = Match("bid_euchre", {"target": 6}, first_dealer=3)
    m.apply({"event": "deal", "dealer": 3, "hands": SCORE})
    bid(m, (0, "3"), (1, "pass"), (2, "pass"), (3, "pass"))
    declare(m, 0, "S")
    play(m, *SCORE2_PLAY)
    assert m.scores == [4, 2] and m.winner is None
    m.apply({"event": "deal", "dealer": 0, "hands": shift(SCORE, 1)})
    bid(m, (1, "3"), (2, "pass"), (3, "pass"), (0, "pass"))
    declare(m, 1, "S")
    play(m, *shift_plays(SCORE2_PLAY, 1))
    assert m.hands[1].score == [2, 4]
    assert m.scores == [6, 6] and m.winner is None and not m.is_terminal()
    m.apply({"event": "deal", "dealer": 1, "hands": SCORE})
    bid(m, (2, "3"), (3, "pass"), (0, "pass"), (1, "pass"))
    declare(m, 2, "S")
    m.apply({"event": "fold", "team": 1})
    assert m.scores == [12, 6] and m.winner == 0 and m.is_terminal()


def test_game_higher_side_wins_when_over_target():
    """RULINGS.md game: the side at target or more wins only if it is the higher side. target 6: hand 1 the
    bidders (team 0) take 6-0: [6, -6]: team 0 wins."""
    m = Match("bid_euchre", {"target": 6}, first_dealer=3)
    m.apply({"event": "deal", "dealer": 3, "hands": SCORE})
    bid(m, (0, "3"), (1, "pass"), (2, "pass"), (3, "pass"))
    declare(m, 0, "S")
    play(m, *SCORE_PLAY)
    assert m.scores == [6, -6] and m.winner == 0
    assert m.result()["winner"] == 0
