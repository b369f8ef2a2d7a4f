"""What the table may enter now, built from public information only (the table page draws its buttons from it).

The table page is public: everyone at the table sees the tablet, and the public role receives the same view. So
nothing here may come from what only the referee knows (the hands read by the dealing machine, the kitty, the
pack, a face-down discard): the offers are computed from the phase, the bids and declaration, the seat on turn,
the counts of cards, and the cards played face up. In particular the cards offered for a play are, for every
seat alike, the game's deck minus the cards already played face up in this hand (``legal``: it may still be in
some hand, as far as anyone at the table knows); the cards that follow the suit led are marked (``follows``), a
hint computed from the declaration and the trick on the table. A card that the referee knows the seat cannot
hold is refused by the engine when it is tapped (the refusal names only the card the table tapped). A seat may
always play off suit: a renege must be enterable, or the referee could not call it.
"""

from __future__ import annotations

from typing import Any

from engine.bid_euchre import BidEuchreHand
from engine.bid_whist import BidWhistHand
from engine.cards import CODES
from engine.hand import BID, DEAL, DECLARE, DONE, PLAY, Hand
from engine.match import Match
from engine.pitch import PitchHand

SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def _action(label: str, path: str, body: dict[str, Any] | None, kind: str, **extra: Any) -> dict[str, Any]:
    return {"label": label, "path": path, "body": body, "kind": kind, **extra}


def _team_name(players: list[str], side: int) -> str:
    return f"{players[side]} & {players[side + 2]}"


def cards_on_offer(hand: Hand) -> list[dict[str, Any]]:
    """Every card of the game's deck, each ``legal`` unless it was already played face up in this hand, and
    ``follows`` when it follows the suit led (or, in Pitch, is a trump): public information only."""
    seen = set()
    for t in hand.tricks:
        seen |= {c for _, c in t.cards}
    led = -1
    if hand.trick is not None:
        seen |= {c for _, c in hand.trick.cards}
        led = hand.trick.led if hand.trick.cards else -1
    eff = hand.eff  # the suit each card follows as: made from the declaration alone
    if isinstance(hand, PitchHand) and hand.trump is not None:
        led = hand.trump  # RULINGS.md, Pitch: only trumps are played
    out = []
    for c in range(len(CODES)):
        if not hand.deck_mask >> c & 1:
            continue
        follows = led >= 0 and bool(eff) and eff[c] == led
        out.append({"card": CODES[c], "legal": c not in seen, "follows": follows})
    return out


def entry(match: Match, machine_deals: bool = False, machine_hand: bool = False) -> dict[str, Any]:
    """The table's offers now: the seat on turn, one-tap actions (deal, bids, declarations, the game's setup
    events), and the cards to tap for a play (``cards``, or None when no play can come now). ``machine_deals``:
    a dealing machine is joined and not lost (its buttons are offered); ``machine_hand``: and it dealt this hand
    (Pitch's refills and rob can come from it: the pack is in its hopper)."""
    hand = match.hand
    players = match.players
    out: dict[str, Any] = {"seat": None, "actions": [], "cards": None, "picks": [], "phase": hand.phase}
    if match.winner is not None or hand.phase == DONE:
        return out
    if hand.phase == DEAL:
        dealer = players[hand.dealer]
        if machine_deals:
            out["actions"].append(_action("Deal with the machine", "/api/deal/machine", None, "deal"))
        out["actions"].append(_action(f"{dealer} dealt by hand", "/api/deal", {"hands": None}, "deal"))
        return out
    seat = hand._to_act() if hand.phase in (BID, DECLARE, PLAY) else None
    out["seat"] = seat
    if hand.phase == BID:
        for b in hand.legal_bids():
            out["actions"].append(_action(b, "/api/bid", {"seat": seat, "bid": b}, "bid"))
        return out
    if hand.phase == DECLARE:
        for e in hand.legal_events():
            if e.get("event") != "declare":
                continue
            body = {k: v for k, v in e.items() if k != "event"}
            label = SUIT_WORDS[e["trump"]] if e.get("trump") else f"no trump, {e.get('direction')}"
            if e.get("call"):
                out["actions"].append(_action(label, "/api/declare", body, "declare", call=e["call"],
                                              trump=e["trump"]))
            else:
                out["actions"].append(_action(label, "/api/declare", body, "declare"))
        return out
    # The setup steps between the declaration and the play, and the play itself.
    if isinstance(hand, BidWhistHand):
        _bid_whist(hand, players, out)
    elif isinstance(hand, BidEuchreHand):
        _bid_euchre(hand, players, out)
    elif isinstance(hand, PitchHand):
        _pitch(hand, players, machine_hand, out)
    if hand.phase == PLAY or out["cards"] is not None:
        if out["seat"] is None and hand.phase == PLAY:
            out["seat"] = hand._to_act()
        out["cards"] = cards_on_offer(hand)
    return out


def _bid_whist(hand: BidWhistHand, players: list[str], out: dict[str, Any]) -> None:
    """RULINGS.md, kitty: the declarer puts down six cards face down (the table does not read them);
    nt_jokers = swap: at no trump a joker's holder swaps it for a card drawn unseen from the discards; the
    declarer's first lead ends the swaps."""
    declarer = hand.declarer
    assert declarer is not None
    if hand.phase == "discard":
        n = hand.deal_sizes()[4]
        out["seat"] = declarer
        out["actions"].append(_action(f"{players[declarer]} puts down {n} cards face down", "/api/setup",
                                      {"event": "discard", "seat": declarer, "cards": [None] * n}, "setup"))
    elif hand.phase == "joker_swap":
        out["seat"] = declarer
        for j, name in (("BJ", "big joker"), ("LJ", "little joker")):
            for s in range(4):
                if s != declarer:
                    out["actions"].append(_action(f"{players[s]} swaps the {name}", "/api/setup",
                                                  {"event": "joker_swap", "seat": s, "joker": j, "drew": None},
                                                  "setup"))
        out["cards"] = []  # the declarer's lead ends the swaps


def _bid_euchre(hand: BidEuchreHand, players: list[str], out: dict[str, Any]) -> None:
    """RULINGS.md, single: the declarer and the partner each pass one card face down; fold: the defenders may
    fold after trump is named in a trump hand, before the first card."""
    if hand.phase == "exchange":
        seat = hand._to_act()
        to = hand.partner if seat == hand.declarer else hand.declarer
        assert to is not None
        out["seat"] = seat
        out["actions"].append(_action(f"{players[seat]} passes a card face down to {players[to]}", "/api/setup",
                                      {"event": "exchange", "seat": seat, "card": None}, "setup"))
    if hand.fold_open():
        assert hand.declarer is not None
        team = 1 - hand.side_of(hand.declarer)
        out["actions"].append(_action(f"{_team_name(players, team)} fold", "/api/setup",
                                      {"event": "fold", "team": team}, "setup"))


def _pitch(hand: PitchHand, players: list[str], machine: bool, out: dict[str, Any]) -> None:
    """RULINGS.md, Pitch: each player puts down its non-trumps face up; in turn from the dealer's left every
    player but the declarer is refilled to six (once); the declarer robs the rest of the pack; anyone over six
    trumps burns face up down to six; the declarer leads."""
    if hand.phase != "exchange":
        return
    k = hand.knowledge
    assert k is not None and hand.declarer is not None
    n = hand.n_players
    counts = k.count[:n]
    trump = hand.trump
    assert trump is not None
    non_trumps = [CODES[c] for c in range(len(CODES)) if hand.deck_mask >> c & 1 and hand.eff[c] != trump]
    trumps = [CODES[c] for c in range(len(CODES)) if hand.deck_mask >> c & 1 and hand.eff[c] == trump]
    if not hand.drawn and not hand.robbed:
        out["picks"].append({"label": "puts down (face up)", "path": "/api/setup", "event": "discard",
                             "cards": non_trumps, "seats": list(range(n))})
    order = hand.draw_order()
    pack = k.count[hand.PACK]
    if not hand.robbed:
        for s in order:
            if s in hand.drawn or (hand.drawn and order.index(s) < order.index(hand.drawn[-1])):
                continue
            want = min(max(0, 6 - counts[s]), pack)
            if machine:
                out["actions"].append(_action(f"Refill {players[s]} from the machine", "/api/pitch/refill",
                                              {"seat": s}, "setup"))
            out["actions"].append(_action(f"{players[s]} drew {want} (by hand)", "/api/pitch/refill",
                                          {"seat": s, "cards": [None] * want}, "setup"))
        robbers = [hand.declarer]
        if hand.options["rob_to_partner"] and n == 4:
            robbers.append((hand.declarer + 2) % 4)
        for s in robbers:
            if machine:
                out["actions"].append(_action(f"{players[s]} robs the pack from the machine", "/api/pitch/rob",
                                              {"seat": s}, "setup"))
            out["actions"].append(_action(f"{players[s]} robs the pack ({pack} cards, by hand)", "/api/pitch/rob",
                                          {"seat": s, "cards": [None] * pack}, "setup"))
    over = [s for s in range(n) if counts[s] > 6]
    if over:
        out["picks"].append({"label": "burns (face up)", "path": "/api/setup", "event": "burn", "cards": trumps,
                             "seats": over})
    out["seat"] = hand.declarer
    out["cards"] = []  # the declarer's lead ends the exchange


__all__ = ["entry", "cards_on_offer"]
