"""A PBN-style text export of a match: one block of tags per hand, the auction, the play trick by trick, and every
revoke (renege) marked, both as a ``[Revoke]`` tag and as a ``{REVOKE ...}`` comment after the card.

PBN is made for bridge; this keeps its shape (tags in square brackets, seats N E S W for seats 0..3 clockwise, a
``Deal`` tag ``"N:spades.hearts.diamonds.clubs ..."``) and adds what these games have: jokers (``[Jokers]``), the
kitty or pack (``[Kitty]`` / ``[Pack]``), contracts as the table bid them. Five-handed Pitch names seats 0..4.
The table record (JSON Lines) stays the exact record; this is for people and for tools that read PBN-like text.
"""

from __future__ import annotations

from typing import Any

from engine.cards import CODES, SUITS, card
from engine.hand import Hand
from engine.match import Match

DIRECTIONS = "NESW"


def tag_value(text: object) -> str:
    """A tag's value as PBN writes it (PBN 2.1, section 3.3: a string token): a backslash and a quote are escaped
    with a backslash; a line break or any other control character, which a string token may not hold, becomes a
    space. So a player named ``Ann"]`` + newline + ``[Result "13`` stays inside its own tag."""
    out = []
    for ch in str(text):
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ord(ch) < 32 or 127 <= ord(ch) < 160 or ch in "\u2028\u2029":
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def comment_text(text: object) -> str:
    """Text for a ``%`` comment line: on one line (a line break would start a line of its own, a tag perhaps)."""
    return "".join(" " if ord(ch) < 32 or 127 <= ord(ch) < 160 or ch in "\u2028\u2029" else ch for ch in str(text))


def seat_name(seat: int | None, n_players: int) -> str:
    if seat is None:
        return "-"
    return DIRECTIONS[seat] if n_players == 4 else str(seat)


def pbn_hand(cards: list[str | None] | None) -> str:
    """One hand as ``spades.hearts.diamonds.clubs`` (ranks high first); jokers and unknown cards left out."""
    if cards is None:
        return "-"
    order = "AKQJT98765432"
    by_suit: dict[str, list[str]] = {s: [] for s in SUITS}
    for c in cards:
        if c is None:
            continue
        code = CODES[card(c)]
        if code[1] in by_suit and code not in ("BJ", "LJ"):
            by_suit[code[1]].append(code[0])
    return ".".join("".join(sorted(by_suit[s], key=order.index)) for s in SUITS)


def split_hands(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    out: list[list[dict[str, Any]]] = []
    for ev in events:
        if ev.get("event") == "deal":
            out.append([])
        if out:
            out[-1].append(ev)
    return out


def pbn(header: dict[str, Any], events: list[dict[str, Any]], match: Match, date: str = "") -> str:
    """The match as PBN-style text (``match`` is the state those events replay to)."""
    n = match.n_players
    lines = [comment_text(f"% cardref PBN-style export of a {header['game']} match; seats: "
                          + ", ".join(f"{seat_name(i, n)} = {p}" for i, p in enumerate(header["players"])))]
    lines.append(comment_text(f"% options: {', '.join(f'{k}={v}' for k, v in sorted(match.options.items()))}"))
    for hand, hand_events in zip(match.hands, split_hands(events), strict=False):
        lines.append("")
        lines += hand_block(header, hand, hand_events, date)
    lines.append("")
    lines.append(f'[TotalScore "{" ".join(str(s) for s in match.scores)}"]')
    lines.append(f'[Winner "{"-" if match.winner is None else match.winner}"]')
    return "\n".join(lines) + "\n"


def hand_block(header: dict[str, Any], hand: Hand, events: list[dict[str, Any]], date: str) -> list[str]:
    n = hand.n_players
    players = header["players"]
    out = [f'[Event "cardref {header["game"]}"]', '[Site "cardref table"]', f'[Date "{tag_value(date or "?")}"]',
           f'[Board "{hand.number}"]']
    if n == 4:
        out += [f'[{d} "{tag_value(players[i])}"]' for i, d in enumerate(["North", "East", "South", "West"])]
    out.append(f'[Dealer "{seat_name(hand.dealer, n)}"]')
    deal = events[0] if events and events[0].get("event") == "deal" else {}
    hands = deal.get("hands")
    if hands is not None and n == 4:
        first = seat_name(0, n)
        out.append(f'[Deal "{first}:{" ".join(pbn_hand(h) for h in hands)}"]')
        jokers = [f"{seat_name(s, n)}:{c}" for s, h in enumerate(hands) if h for c in h if c in ("BJ", "LJ")]
        if jokers:
            out.append(f'[Jokers "{" ".join(jokers)}"]')
    else:
        out.append('[Deal "?"]')
    key = hand.extra_key()
    if key is not None and deal.get(key) is not None:
        out.append(f'[{key.capitalize()} "{" ".join(c or "?" for c in deal[key])}"]')
    out.append(f'[Declarer "{seat_name(hand.declarer, n)}"]')
    trump = "" if hand.trump is None else f" {SUITS[hand.trump]}"
    direction = f" {hand.direction}" if hand.direction and hand.trump is None else ""  # at no trump
    out.append(f'[Contract "{hand.contract or "-"}{trump}{direction}"]')
    if hand.is_terminal() and hand.declarer is not None and hand.final_taken is not None:
        out.append(f'[Result "{hand.final_taken[hand.side_of(hand.declarer)]}"]')
        out.append(f'[Score "{" ".join(str(s) for s in hand.score or [])}"]')
    revokes = {(r.seat, r.trick): r for r in hand.reneges}
    for r in hand.reneges:
        j = r.to_json()
        out.append(f'[Revoke "{seat_name(r.seat, n)} trick {r.trick} played {j["card"] or "-"} '
                   f'led {j["led"] or "-"} proof {j["proof"] or "-"}"]')
    for r in hand.suspicions:
        j = r.to_json()
        out.append(f'% unproven suspicion (not scored): {seat_name(r.seat, n)} trick {r.trick} played {j["card"]}')
    for irr in hand.irregularities:
        out.append(comment_text(f"% irregularity: {irr.get('kind')}: "
                                + ", ".join(f"{k}={v}" for k, v in irr.items() if k != "kind")))
    if hand.bids:
        out.append(f'[Auction "{seat_name(hand.bids[0][0], n)}"]')
        out.append(" ".join(b.replace(" ", "-") for _, b in hand.bids))
    tricks = list(hand.tricks) + ([hand.trick] if hand.trick is not None and hand.trick.cards else [])
    if tricks:
        out.append(f'[Play "{seat_name(tricks[0].leader, n)}"]')
        for number, t in enumerate(tricks, start=1):
            cells = []
            for seat, c in t.cards:
                cell = f"{seat_name(seat, n)}:{CODES[c]}"
                revoke = revokes.get((seat, number))
                if revoke is not None and revoke.card == c:
                    j = revoke.to_json()
                    cell += f" {{REVOKE: {j['led']} led, {seat_name(seat, n)} held {j['proof']}}}"
                cells.append(cell)
            out.append(f"{number:>2}. " + "  ".join(cells))
        holdouts = [r for r in hand.reneges if r.card is None]
        for r in holdouts:
            out.append(f"{{REVOKE: {seat_name(r.seat, n)} skipped at trick {r.trick} while holding "
                       f"{r.to_json()['proof']}}}")
    return out
