"""The rulings settled in RULINGS.md and CONVENTIONS.md (issue 11): one named test each, worked on hand-built deals.

Several reneges in one hand (common part); Pitch: both sides renege in one hand, reverse with jokers alike, the
proof of a non-trump played, one lead that shows two hold-outs; Bid Whist: the seat-order example; five-handed
Pitch: the called card judged after the refill, ``taken`` per player.
"""

from __future__ import annotations

import json
from typing import Any

import bw_helpers as bw
from test_rules_pitch import (
    FIVE,
    FIVE_BLIND,
    FIVE_HANDS,
    JUNK_HANDS,
    JUNK_PACK,
    STD_HANDS,
    STD_PACK,
    bid,
    declare,
    exchange_events,
    new_match,
    play,
    renege_rows,
    setup,
    trumps,
)

from engine.match import Match
from engine.record import replay


def rotate_events(events: list[dict[str, Any]], k: int, n: int = 4) -> list[dict[str, Any]]:
    """The same record with every seat s renumbered (s + k) mod n (the deal's hands moved with their seats)."""
    out = []
    for e in events:
        e = json.loads(json.dumps(e))
        for key in ("seat", "dealer", "first_dealer"):
            if isinstance(e.get(key), int):
                e[key] = (e[key] + k) % n
        if e.get("event") == "deal" and e.get("hands") is not None:
            e["hands"] = [e["hands"][(s - k) % n] for s in range(n)]
        if e.get("event") == "match" and e.get("players"):
            e["players"] = [e["players"][(s - k) % n] for s in range(n)]
        out.append(e)
    return out


# ------------------------------------------------------------------------------------------------ Bid Whist

# Bid Whist, default options, seat 0 bids 3 low and names hearts on the tiered deal (bw_helpers.TIERED).
# Trick 1: spades led, seat 2 (holding 8S 7S 6S) throws the 8H, a trump, and wins. Trick 2: seat 2 leads the 7D;
# seat 3 (holding 5D 4D 3D) throws the 5C, seat 0 (holding AD KD QD) throws the JC; seat 1 follows with the JD.
# The rest of the hand: the first legal card of the seat on turn, every time.
BW_OPENING = ("0:AS 1:JS 2:8H 3:5S", "2:7D 3:5C 0:JC 1:JD")


def _bw_record(rotation: int) -> list[str]:
    events = bw.tiered_setup(bid="3 low", trump="H")
    m = bw.run(events)
    for e in bw.plays(*BW_OPENING):
        m.apply(e)
        events.append(e)
    while not m.hands[0].is_terminal():
        e = {"event": "play", "seat": m.hand.turn, "card": bw.CODES[m.hand.legal_plays()[0]]}
        m.apply(e)
        events.append(e)
    header = bw.header(first_dealer=3)
    return [json.dumps(x) for x in rotate_events([header, *events], rotation)]


def test_bid_whist_several_reneges_penalised_in_the_order_made_not_by_seat_number():
    """RULINGS.md, "Several reneges in one hand": "their penalties are applied one after another at the end of the
    hand, in the order the reneges were made (trick by trick, and within a trick in the order the cards were
    played), never by seat number ... Renumbering the seats (keeping the teams) never changes a result."
    The issue's example: 3 low in hearts; trick 1 seat 2 reneges; trick 2 seat 3 reneges, then seat 0 in the same
    trick. The penalties go team 0, team 1, team 0 (3 books each, all a side has if fewer), worked out here from
    the books as played; the same record with seat s renumbered s + 2 gets the same result."""
    h = replay(_bw_record(0)).hands[0]
    assert [(r.seat, r.trick) for r in h.reneges] == [(2, 1), (3, 2), (0, 2)]
    books = list(h.taken)
    for side in (0, 1, 0):
        moved = min(3, books[side])
        books[side] -= moved
        books[1 - side] += moved
    assert h.final_taken == books
    turned = replay(_bw_record(2)).hands[0]
    assert [(r.seat, r.trick) for r in turned.reneges] == [(0, 1), (1, 2), (2, 2)]
    assert turned.final_taken == h.final_taken and turned.score == h.score


def test_bid_whist_hand_penalty_first_renege_decides():
    """RULINGS.md: "Where a penalty gives one side the whole hand ("hand" ...), the first renege made decides it
    and the later ones change nothing." The example above with ``renege_penalty = "hand"``: the first renege is
    team 0's (seat 2, trick 1): team 1 is credited with all 13 books, whichever way the seats are numbered."""
    for rotation in (0, 2):
        lines = _bw_record(rotation)
        header = json.loads(lines[0])
        header["options"] = {"renege_penalty": "hand"}
        h = replay([json.dumps(header), *lines[1:]]).hands[0]
        assert h.final_taken == [0, 13]


# ------------------------------------------------------------------------------------------------ Pitch


def test_pitch_both_sides_renege_bidders_first_are_set_defenders_score():
    """RULINGS.md, "Several reneges in one hand": with "set" the first renege made decides. JUNK deal, seat 1 keeps
    the 5S and seat 2 the 3S. Seat 2 (a bidder) plays its 3S in trick 1, seat 1 (a defender) its 5S in trick 2:
    the bidders reneged first, so they are set (-4) and the defenders score the 3 points they took
    (``defenders_score_when_set``); the defenders' later renege changes nothing. Before the ruling the defenders
    got 0 whichever side reneged first."""
    m = setup(JUNK_HANDS, JUNK_PACK, keep={1: ["5S"], 2: ["3S"]})
    play(m, "0:AH 1:KH 2:3S 3:JH", "0:9H 1:5S 2:QH 3:LJ", "2:BJ 3:TH 0:7H 1:JD", "1:6H 2:8H 3:4H 0:2H", "2:5H", "2:3H")
    h = m.hands[0]
    assert [(r.seat, r.trick, r.kind) for r in h.reneges] == [(2, 1, "non-trump played"), (1, 2, "non-trump played")]
    assert h.taken == [7, 3]
    assert h.score == [-4, 3]


def test_pitch_both_sides_renege_defenders_first_bidders_score_at_least_the_bid():
    """The same deal the other way round: seat 1 (a defender) plays its 5S in trick 1, seat 2 (a bidder) its 3S in
    trick 2. The defenders reneged first: they score nothing and the bidders score at least their bid (they took
    6 of bid 4: 6). Before the ruling the bidders were set (-4)."""
    m = setup(JUNK_HANDS, JUNK_PACK, keep={1: ["5S"], 2: ["3S"]})
    play(m, "0:AH 1:5S 2:QH 3:JH", "0:9H 1:KH 2:3S 3:LJ", "1:JD 2:BJ 3:TH 0:7H", "1:6H 2:8H 3:4H 0:2H", "2:5H", "2:3H")
    h = m.hands[0]
    assert [(r.seat, r.trick) for r in h.reneges] == [(1, 1), (2, 2)]
    assert h.taken == [6, 4]
    assert h.score == [6, 0]


def test_pitch_both_sides_hold_out_first_decides():
    """Holding out by both sides: seat 2 (a bidder) is passed over in trick 1 holding trumps, then seat 1 (a
    defender) plays its kept 5S in trick 4. The bidders' hold-out came first: set, -4; the defenders score 3."""
    m = setup(JUNK_HANDS, JUNK_PACK, keep={1: ["5S"]})
    play(m, "0:AH 1:KH 3:JH", "0:9H 1:JD 3:LJ", "1:6H 3:TH 0:7H", "3:4H 0:2H 1:5S")
    h = m.hands[0]
    assert h.is_terminal()
    assert [(r.seat, r.trick, r.kind) for r in h.reneges] == [(2, 1, "holding out"), (1, 4, "non-trump played")]
    assert h.score == [-4, 3]


def test_pitch_non_trump_proof_is_the_trump_a_later_play_shows():
    """RULINGS.md, holding out: "for a renege by playing a non-trump, the offence is the play itself; its ``proof``
    is a trump the seat held at that moment when one is known (from the deal or a later play), otherwise the
    non-trump played" (CONVENTIONS.md ``proof``). Hands unknown: seat 1 plays its kept 5S in trick 1 (proof: the
    5S, nothing else known yet); its KH in trick 2 shows a trump it held then: the proof becomes the KH. Hands
    known: the deal shows its trumps at once (the 6H, its lowest)."""
    for known, first_proof in ((False, "5S"), (True, "6H")):
        m = setup(JUNK_HANDS, JUNK_PACK, keep={1: ["5S"]}, known=known)
        h = m.hand
        play(m, "0:AH 1:5S 2:QH 3:JH")
        assert [r["proof"] for r in renege_rows(h)] == [first_proof]
        play(m, "0:9H 1:KH 2:BJ 3:LJ")
        assert [r["proof"] for r in renege_rows(h)] == ["6H" if known else "KH"]


def test_pitch_non_trump_proof_from_the_cards_accounted_for_at_the_end():
    """The same, when the seat never plays a trump again: it plays the 5S and is then passed over for good; at the
    end its unseen cards can only be KH JD 6H: the proof is the lowest of them, the 6H."""
    m = setup(JUNK_HANDS, JUNK_PACK, keep={1: ["5S"]}, known=False)
    play(m, "0:AH 1:5S 2:QH 3:JH", "0:9H 2:BJ 3:LJ", "2:8H 3:TH 0:7H", "3:4H 0:2H 2:5H", "2:3H")
    h = m.hands[0]
    assert h.is_terminal()
    assert [(r["seat"], r["trick"], r["kind"], r["proof"]) for r in renege_rows(h)] == [
        (1, 1, "non-trump played", "6H"),
        (1, 2, "holding out", "6H"),
    ]


def _issue_lines() -> list[str]:
    """The issue's shape of record: trick 2 is gathered without seat 3, and its winner, seat 2, is also passed over
    for the next lead: seat 0, the next seat still in, leads trick 3 with a second card after its 9H."""
    m = new_match(STD_HANDS, STD_PACK)
    events: list[dict[str, Any]] = [{"event": "deal", "dealer": 3, "hands": STD_HANDS, "pack": STD_PACK}]
    events += [{"event": "bid", "seat": s, "bid": "4" if s == 0 else "pass"} for s in (0, 1, 2, 3)]
    events.append({"event": "declare", "seat": 0, "trump": "H"})
    events += exchange_events(STD_HANDS, STD_PACK, "H", 0, 3)
    for trick in ("0:AH 1:KH 2:QH 3:JH", "0:9H 1:6H 2:BJ", "0:7H 1:JD", "1:3H 0:2H"):
        for token in trick.split():
            seat, code = token.split(":")
            events.append({"event": "play", "seat": int(seat), "card": code})
    del m
    header = {"event": "match", "version": 1, "game": "pitch", "options": {}, "players": ["A", "B", "C", "D"],
              "first_dealer": 3}
    return [json.dumps(e) for e in [header, *events]]


def test_pitch_one_lead_shows_two_hold_outs():
    """RULINGS.md, holding out: "a player who is skipped, or stops playing, while still holding a trump". Trick 2
    is 0:9H 1:6H 2:BJ and then seat 0 plays again, the 7H: the trick was gathered without seat 3 (holding LJ TH
    4H), and its winner, seat 2 (holding 8H 5H), was passed over for the lead. Both held out; such a record was
    refused before ("seat 0 has already played to trick 2"). Seat 3's hold-out came first (a defender): the
    bidders (bid 4, 4 points: AH JH BJ and the 2H) score at least their bid, the defenders nothing."""
    m = replay(_issue_lines())
    h = m.hands[0]
    assert h.is_terminal()
    assert renege_rows(h) == [
        {"seat": 3, "trick": 2, "card": None, "led": "H", "proof": "4H", "kind": "holding out"},
        {"seat": 2, "trick": 3, "card": None, "led": "H", "proof": "5H", "kind": "holding out"},
    ]
    assert h.taken == [4, 4]
    assert h.score == [4, 0]


def test_pitch_passed_over_for_the_lead_comes_back_in_the_same_trick():
    """``renege_correctable``: the winner passed over for the lead (seat 2 above) that then plays to that trick
    is not out: the lead was out of turn, and only seat 3's hold-out stands."""
    lines = _issue_lines()[:-3]  # up to 0:7H, the lead of trick 3
    m = replay(lines)
    assert [(r.seat, r.trick) for r in m.hand.reneges] == [(3, 2), (2, 3)]
    m.apply({"event": "play", "seat": 2, "card": "8H"})
    h = m.hand
    assert [(r.seat, r.trick) for r in h.reneges] == [(3, 2)]
    assert h.irregularities == [{"kind": "out of turn", "seat": 0, "trick": 3, "card": "7H", "turn": 2}]


def test_pitch_reverse_with_jokers_alike_the_first_joker_played_ranks_high():
    """RULINGS.md, reverse: "the whole order of the trumps is turned upside down ... the Little Joker beats the Big
    Joker"; ``jokers_distinct = false``: "the first joker played in a hand ranks as the high one". Trick 1
    0:AH 1:JD 2:BJ 3:LJ (in reverse the AH and JD are weaker than both jokers): with distinct jokers the LJ
    wins (seat 3 leads next); with jokers alike the first one played, seat 2's, ranks high and wins. Before the
    ruling, reverse with jokers alike gave the trick to the second joker."""
    for distinct, winner in ((True, 3), (False, 2)):
        m = setup(STD_HANDS, STD_PACK, options={"reverse": True, "jokers_distinct": distinct})
        play(m, "0:AH 1:JD 2:BJ 3:LJ")
        assert m.hand.trick.leader == winner


def test_pitch_reverse_off_card_ranks_just_above_its_counterpart():
    """RULINGS.md, reverse: "each off-card ranks just above its trump counterpart" (16 points: the off-ace, off-ten,
    off-three and off-two are trumps), and "the two is the strongest"; points stay with the same cards."""
    m = Match("pitch", {"points": 16, "reverse": True}, first_dealer=3)
    m.apply({"event": "deal", "dealer": 3, "hands": STD_HANDS, "pack": STD_PACK})
    bid(m, (0, "4"), (1, "pass"), (2, "pass"), (3, "pass"))
    declare(m, 0, "H")
    h = m.hand
    order = sorted((c for c in range(54) if h.power[c] > 0), key=lambda c: -h.power[c])
    names = [bw.CODES[c] for c in order]
    assert names[:4] == ["2D", "2H", "3D", "3H"] and names[-4:] == ["QH", "KH", "AD", "AH"]
    assert names.index("TD") == names.index("TH") - 1
    assert h.values[bw.card("AH")] == 1


def test_five_handed_called_card_judged_after_the_refill():
    """RULINGS.md, five-handed: "Whether the called card is in the blind is judged when the refill is over:
    whoever then holds the called card is the partner, even a player who drew it in the refill; only if it is
    still among the blind's cards when the declarer robs does the declarer play alone against four, and lead it."
    Seat 0 calls the 5H (in the blind). Seat 1 draws it in the refill: seat 1 is the partner at once (hands
    known), nothing to lead. Without draws the declarer robs it: alone, and it must lead it."""
    m = new_match(FIVE_HANDS, FIVE_BLIND, dealer=4, options=FIVE)
    bid(m, (0, "5"), (1, "pass"), (2, "pass"), (3, "pass"), (4, "pass"))
    declare(m, 0, "H", "5H")
    for seat in range(5):
        m.apply({"event": "discard", "seat": seat, "cards": [c for c in FIVE_HANDS[seat] if c not in trumps("H")]})
    m.apply({"event": "draw", "seat": 1, "cards": FIVE_BLIND})
    m.apply({"event": "discard", "seat": 1, "cards": ["3D", "2D"]})
    play(m, "0:AH")
    h = m.hand
    assert h.called_holder == 1 and h.irregularities == []
    m2 = new_match(FIVE_HANDS, FIVE_BLIND, dealer=4, options=FIVE)
    bid(m2, (0, "5"), (1, "pass"), (2, "pass"), (3, "pass"), (4, "pass"))
    declare(m2, 0, "H", "5H")
    for seat in range(5):
        m2.apply({"event": "discard", "seat": seat, "cards": [c for c in FIVE_HANDS[seat] if c not in trumps("H")]})
    m2.apply({"event": "rob", "seat": 0, "cards": FIVE_BLIND})
    assert [sorted(e["cards"]) for e in m2.legal_events()] == [["2D", "3D"]]
    m2.apply({"event": "discard", "seat": 0, "cards": ["3D", "2D"]})
    assert [e["card"] for e in m2.legal_events()] == ["5H"]
    assert m2.hand.called_holder == 0


def test_five_handed_taken_is_per_player():
    """CONVENTIONS.md: "``taken`` ... in five-handed Pitch it is per player (the points each player captured), like
    ``score``." The secret-partner hand of test_rules_pitch: seat 0 captured AH JD JH BJ LJ TH (6), seat 3 the
    3H... as the engine's per-seat account; the five entries add up to the points in play."""
    from test_rules_pitch import five_setup

    m = five_setup("TH")
    play(m, "0:AH 1:QH 2:JD 3:TH 4:8H", "0:KH 1:JH 2:BJ 3:LJ 4:7H", "0:3H 2:2H 3:9H 4:6H", "0:5H", "0:4H")
    row = m.result()["hands"][0]
    assert len(row["taken"]) == 5 and len(row["score"]) == 5
    assert row["taken"] == m.hands[0].points_by_seat
    assert sum(row["taken"]) == 10
