"""``cardref demo`` in the terminal: a simulated match with four scripted players who now and then renege.

The dealer rotates, each hand is bid, declared and played through the engine, every renege the engine proves
is shown with its proof, and the match ends with the replay result (CONVENTIONS.md) of its own record, so
the demo also shows that the record replays to the same result.
"""

from __future__ import annotations

import json
import random
from typing import Any

from engine.cards import CODES, SUITS
from engine.hand import CHANCE, PLAY, Hand
from engine.match import Match
from engine.record import dumps, match_header, replay
from engine.simulate import random_deal

PLAYERS = ["Ann", "Bo", "Cy", "Di", "Ed"]
SYMBOL = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
RENEGE_RATE = 0.04  # how often a scripted player who could follow chooses not to
MAX_HANDS = 40


def show(code: str | None) -> str:
    if code is None:
        return "??"
    if code in ("BJ", "LJ"):
        return code
    return code[0] + SYMBOL[code[1]]


def scripted_event(hand: Hand, rng: random.Random) -> tuple[dict[str, Any], bool]:
    """A scripted player's event: a random legal one, or now and then a renege. Returns (event, reneged)."""
    if hand.phase == PLAY and hand.trick is not None:
        seat = hand.turn
        legal = hand.legal_plays()
        k = hand.knowledge
        assert k is not None
        held = k.certain[seat]
        others = [c for c in range(54) if held >> c & 1 and c not in legal]
        if hand.game == "pitch":
            nxt = (seat + 1) % hand.n_players
            if hand.trick.cards and rng.random() < RENEGE_RATE and nxt in hand.active and nxt != seat:
                nxt_cards = [c for c in range(54) if k.certain[nxt] >> c & 1]
                if nxt_cards and not hand.trick.played >> nxt & 1:
                    # The next player plays at once: the seat on turn is skipped while holding a trump.
                    return {"event": "play", "seat": nxt, "card": CODES[rng.choice(nxt_cards)]}, True
        elif others and hand.trick.cards and rng.random() < RENEGE_RATE:
            return {"event": "play", "seat": seat, "card": CODES[rng.choice(others)]}, True
        return {"event": "play", "seat": seat, "card": CODES[rng.choice(legal)]}, False
    events = hand.legal_events()
    if hand.phase == "bid":
        passes = [e for e in events if e["bid"] == "pass"]
        bids = [e for e in events if e["bid"] != "pass"]
        if passes and (not bids or rng.random() < 0.6):
            return passes[0], False
        return bids[0] if rng.random() < 0.7 else rng.choice(bids), False
    return rng.choice(events), False


def run(game: str = "bid_whist", seed: int = 7) -> int:
    rng = random.Random(seed)
    options: dict[str, Any] = {}
    match = Match(game, options, PLAYERS[:4], first_dealer=rng.randrange(4))
    names = match.players
    record = [match_header(match)]
    print(f"cardref demo: a simulated {game.replace('_', ' ')} match, seed {seed}")
    print(f"Seats: {', '.join(f'{i} {n}' for i, n in enumerate(names))}; teams 0 = seats 0 and 2, 1 = seats 1 and 3\n")
    shown_hand = 0
    while not match.is_terminal() and len(match.hands) <= MAX_HANDS:
        hand = match.hand
        if hand.current_player() == CHANCE:
            if len(match.hands) == MAX_HANDS and shown_hand == MAX_HANDS:
                break
            event = random_deal(hand, rng)
            print(f"Hand {hand.number}: {names[hand.dealer]} deals (the dealing machine reads every card).")
            shown_hand = hand.number
            reneged = False
        else:
            event, reneged = scripted_event(hand, rng)
        tricks_before = len(hand.tricks)
        calls_before = len(hand.reneges)
        match.apply(event)
        record.append(event)
        kind = event["event"]
        if kind == "bid":
            print(f"  {names[event['seat']]} bids {event['bid']}")
        elif kind == "declare":
            trump = event.get("trump")
            what = f"trump {SYMBOL[trump]}" if trump else f"no trump, {event.get('direction')}"
            print(f"  {names[event['seat']]} declares {what}" + (f", calls {event['call']}" if "call" in event else ""))
        elif kind == "fold":
            print(f"  team {event['team']} folds")
        elif kind == "play" and reneged:
            print(f"  ! {names[event['seat']]} plays {show(event['card'])} (a deliberate slip)")
        if len(hand.tricks) > tricks_before:
            t = hand.tricks[-1]
            cards = "  ".join(f"{names[s]} {show(CODES[c])}" for s, c in t.cards)
            print(f"  trick {len(hand.tricks):>2}: {cards}")
        for r in hand.reneges[calls_before:]:
            j = r.to_json()
            why = "skipped while holding" if j.get("kind") == "holding out" else "did not follow, holding"
            led = SUITS[r.led] if r.led < 4 else "-"
            print(
                f"  >>> RENEGE called on {names[r.seat]} at trick {r.trick}: {why} {show(j['proof'])} "
                f"({SYMBOL.get(led, led)} led)"
            )
        if hand.is_terminal():
            res = hand.result()
            print(f"  hand over: taken {res['taken']}, score {res['score']}; totals {match.scores}\n")
    result = match.result()
    again = replay(dumps(record).splitlines()).result()
    print("Winner:", "none yet" if match.winner is None else f"team {match.winner}")
    print("The record replays to the same result:", again == result)
    print(json.dumps(result))
    return 0
