"""Scores that explain themselves: per hand, what each side bid, took and scored, and why, with names.

Every figure is the engine's (``Hand.taken`` as played, ``final_taken`` after penalties, ``score``); this module
only says in words which rule of RULINGS.md produced it. Public information only: the bids, the declaration, the
tricks (face up), the calls (without their proof card, which has its own rule: see ``TableSession``).
"""

from __future__ import annotations

from typing import Any

from engine.bid_euchre import BidEuchreHand
from engine.bid_whist import BidWhistHand
from engine.cards import BJ, CODES, LJ, R2, R3, RA, RJ, RT, SUITS, make, rank_of, same_colour_suit
from engine.hand import Hand, Renege
from engine.pitch import PitchHand

SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def side_names(players: list[str], n_sides: int) -> list[str]:
    """Teams of partners (seats 0 & 2, 1 & 3) by their names; five-handed Pitch: each player."""
    if n_sides == 2 and len(players) == 4:
        return [f"{players[0]} & {players[2]}", f"{players[1]} & {players[3]}"]
    return list(players)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def call_words(players: list[str], r: Renege | dict[str, Any]) -> str:
    """A call in words, without its proof card: who, at which trick, what was led and played."""
    j = r.to_json() if isinstance(r, Renege) else r
    who = players[j["seat"]]
    if "holding out" in (j.get("call_kind"), j.get("call"), j.get("kind")):
        return f"{who} held out a trump at trick {j['trick']}"
    led = SUIT_WORDS.get(j.get("led") or "", "the suit led")
    return f"{who} did not follow {led} at trick {j['trick']} (played {j.get('card')})"


def explain(hand: Hand, players: list[str]) -> dict[str, Any]:
    """The hand's figures per side with the reasons; ``done``: the hand is scored."""
    n_sides = len(players) if len(players) == 5 else 2
    names = side_names(players, n_sides)
    out: dict[str, Any] = {"number": hand.number, "done": hand.is_terminal(), "dealer": players[hand.dealer],
                           "contract": None, "sides": []}
    if hand.declarer is not None and hand.contract is not None:
        trump = SUIT_WORDS[SUITS[hand.trump]] if hand.trump is not None else None
        text = f"{players[hand.declarer]} bid {hand.contract}"
        if trump:
            text += f", trump {trump}"
        elif hand.direction:
            text += f", no trump {hand.direction}"
        out["contract"] = text
    taken = list(hand.taken)
    if isinstance(hand, PitchHand) and hand.n_players == 5:
        taken = list(hand.points_by_seat)  # five-handed: per player
    final = hand.final_taken if hand.final_taken is not None else taken
    score = hand.score
    sides: list[dict[str, Any]] = []
    for i in range(len(taken)):
        sides.append({"name": names[i] if i < len(names) else str(i), "bid": None, "took": taken[i],
                      "after_penalty": final[i], "scored": None if score is None else score[i], "why": []})
    out["sides"] = sides
    out["calls"] = [call_words(players, r) for r in hand.reneges if r.established]
    if hand.declarer is None:
        return out
    if isinstance(hand, BidWhistHand):
        _bid_whist(hand, players, names, sides)
    elif isinstance(hand, BidEuchreHand):
        _bid_euchre(hand, players, names, sides)
    elif isinstance(hand, PitchHand):
        _pitch(hand, players, names, sides)
    return out


def _bid_whist(hand: BidWhistHand, players: list[str], names: list[str], sides: list[dict[str, Any]]) -> None:
    """RULINGS.md, Bid Whist score: the declarer's side needs 6 + bid books (the kitty is a book); made, it
    scores the books over six (``score = bid_only``: the bid); set, it loses the bid and the defenders score their
    books over six if they took seven or more; no trump and a Boston multiply. Renege (``renege_penalty``): per
    established renege ``renege_books`` books go to the other side, or ("hand") all 13."""
    assert hand.declarer is not None
    d = hand.side_of(hand.declarer)
    need = 6 + hand.bid_number
    sides[d]["bid"] = hand.contract
    sides[d]["why"].append(f"bid {hand.contract}: needs {need} books (6 + {hand.bid_number}, the kitty counts)")
    for s in sides:
        s["why"].append(f"took {plural(s['took'], 'book')}")
    for r in hand.reneges:
        if not r.established:
            continue
        off = hand.side_of(r.seat)
        if hand.options["renege_penalty"] == "hand":
            sides[off]["why"].append(f"renege: {call_words(players, r)}: all 13 books go to {names[1 - off]}")
            break
        sides[off]["why"].append(f"renege: {call_words(players, r)}: {hand.options['renege_books']} books "
                                 f"(or all it has) go to {names[1 - off]}")
    if hand.score is None or hand.final_taken is None:
        return
    books = hand.final_taken
    if books != hand.taken:
        for i, s in enumerate(sides):
            s["why"].append(f"after the renege penalty: {plural(books[i], 'book')}")
    if books[d] >= need:
        if hand.options["score"] == "bid_only":
            sides[d]["why"].append(f"made: scores the bid, {hand.bid_number}")
        else:
            sides[d]["why"].append(f"made: {books[d]} books = {books[d] - 6} over six")
        if books[1 - d] >= 7:
            sides[1 - d]["why"].append("the defenders score only when the declarers are set")
    else:
        sides[d]["why"].append(f"set: {books[d]} books, {need} needed: loses the bid, {hand.bid_number}")
        if books[1 - d] >= 7:
            sides[1 - d]["why"].append(f"the declarers were set: {books[1 - d]} books = {books[1 - d] - 6} over six")
    if hand.trump is None and hand.options["nt_multiplier"] != 1:
        for s in sides:
            s["why"].append(f"no trump: times {hand.options['nt_multiplier']}")
    if 13 in books and hand.options["boston_multiplier"] != 1:
        for s in sides:
            s["why"].append(f"a Boston (all 13 books): times {hand.options['boston_multiplier']}")
    for i, s in enumerate(sides):
        s["why"].append(f"scored {signed(hand.score[i])}")


def _bid_euchre(hand: BidEuchreHand, players: list[str], names: list[str], sides: list[dict[str, Any]]) -> None:
    """RULINGS.md, Bid Euchre score: 1 per trick; the bidders short of the bid are set (-6, or -bid); single
    +-12, double +-24; defenders with no trick lose 6; a fold gives the bidders their value. Renege
    (``renege_penalty``): every trick to the other side, or ``renege_points`` more for the other side."""
    assert hand.declarer is not None
    d = hand.side_of(hand.declarer)
    sides[d]["bid"] = hand.contract
    lone = hand.contract in ("single", "double")
    need = 6 if lone else hand.high + 3
    sides[d]["why"].append(f"bid {hand.contract}: needs {plural(need, 'trick')}" + (" (alone)" if lone else ""))
    if hand.folded is not None:
        sides[hand.folded]["why"].append("folded before the first card")
        if hand.score is not None:
            for i, s in enumerate(sides):
                s["why"].append(f"scored {signed(hand.score[i])}")
        return
    for s in sides:
        s["why"].append(f"took {plural(s['took'], 'trick')}")
    for r in hand.reneges:
        if not r.established:
            continue
        off = hand.side_of(r.seat)
        if hand.options["renege_penalty"] == "all_tricks":
            sides[off]["why"].append(f"renege: {call_words(players, r)}: every trick goes to {names[1 - off]}")
            break
        sides[1 - off]["why"].append(f"renege: {call_words(players, r)}: {names[1 - off]} score "
                                     f"{hand.options['renege_points']} more")
    if hand.score is None or hand.final_taken is None:
        return
    tricks = hand.final_taken
    if tricks != hand.taken:
        for i, s in enumerate(sides):
            s["why"].append(f"after the renege penalty: {plural(tricks[i], 'trick')}")
    if tricks[d] >= need:
        sides[d]["why"].append("made")
    else:
        sides[d]["why"].append(f"set: {tricks[d]} of {need}")
    if tricks[1 - d] == 0 and not lone:
        sides[1 - d]["why"].append("no trick: loses 6")
    for i, s in enumerate(sides):
        s["why"].append(f"scored {signed(hand.score[i])}")


def point_name(hand: PitchHand, c: int) -> str:
    """A Pitch point card by its name in RULINGS.md (high, low, jack, off-jack, jokers, ten, three...)."""
    assert hand.trump is not None
    if c == BJ:
        return "big joker"
    if c == LJ:
        return "little joker"
    trump, off = hand.trump, same_colour_suit(hand.trump)
    names = {make(RA, trump): "high (ace)", make(R2, trump): "low (two)", make(RJ, trump): "jack",
             make(RJ, off): "off-jack", make(RT, trump): "ten", make(R3, trump): "three",
             make(RA, off): "off-ace", make(RT, off): "off-ten", make(R3, off): "off-three",
             make(R2, off): "off-two"}
    return names.get(c, f"{CODES[c]} (rank {rank_of(c)})")


def pitch_points(hand: PitchHand) -> list[list[tuple[str, str, int]]]:
    """Per player, the point cards it won (name, card, points): each to the trick's winner, the two to the
    player who played it (``dirty = false``). RULINGS.md, Pitch "points"."""
    out: list[list[tuple[str, str, int]]] = [[] for _ in range(hand.n_players)]
    if hand.trump is None:
        return out
    two = make(R2, hand.trump)
    for t in hand.tricks:
        if not t.cards:
            continue
        winner = hand.trick_winner(t)
        for seat, c in t.cards:
            v = hand.values.get(c, 0)
            if v:
                to = seat if c == two and not hand.options["dirty"] else winner
                out[to].append((point_name(hand, c), CODES[c], v))
    return out


def _pitch(hand: PitchHand, players: list[str], names: list[str], sides: list[dict[str, Any]]) -> None:
    """RULINGS.md, Pitch score: the bidders, if they took at least the bid in points, score the points taken,
    else lose the bid; the defenders score their points (``defenders_score_when_set``). Renege ("set"): the
    offending side scores nothing, and the bidders then score at least their bid. Moon: made, the score jumps to
    the target."""
    assert hand.declarer is not None
    won = pitch_points(hand)
    four = hand.n_players == 4
    for i, s in enumerate(sides):
        members = [i, i + 2] if four else [i]
        cards = [x for m in members for x in won[m]]
        if cards:
            s["why"].append("points: " + ", ".join(f"{name} {card}: {v}" for name, card, v in cards) +
                            f" = {sum(v for _, _, v in cards)}")
        else:
            s["why"].append("no point taken")
    d = hand.side_of(hand.declarer)
    bidders = [i for i in range(len(sides)) if (i % 2 == hand.declarer % 2 if four else hand.side_of(i) == 0)]
    for i in bidders:
        sides[i]["bid"] = hand.contract
        sides[i]["why"].insert(0, f"bid {hand.contract}" + (" (the moon: every point)" if hand.moon else ""))
    for r in hand.reneges:
        if r.established:
            off = hand.side_of(r.seat)
            for i in range(len(sides)):
                if (i if four else hand.side_of(i)) == off:
                    sides[i]["why"].append(f"renege: {call_words(players, r)}: scores nothing this hand")
    if hand.score is None:
        return
    for i, s in enumerate(sides):
        side = (i if four else hand.side_of(i))
        if side == d:
            s["why"].append("made" if hand.made else f"set: loses the bid, {hand.bid_value}")
            if hand.moon and hand.moon_result:
                s["why"].append(f"moon {hand.moon_result}")
        elif not hand.made and not hand.options["defenders_score_when_set"] and not hand.reneges:
            s["why"].append("the bidders were set: the defenders score nothing (defenders_score_when_set)")
        s["why"].append(f"scored {signed(hand.score[i])}")
