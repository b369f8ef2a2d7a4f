"""Ten-point Pitch with jokers, its point variants, reverse and five-handed (RULINGS.md, "Ten-point Pitch").

Only trumps are played. After trump is named every player puts down its non-trumps face up, is refilled to six
from the pack, the declarer robs the rest, and anyone over six trumps burns down to six. A player with no
cards is out; a player skipped while still holding a trump, or who plays a non-trump, reneges ("holding out").
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from engine.cards import (
    BJ,
    CODES,
    FULL_DECK_MASK,
    JOKER_MASK,
    LJ,
    R2,
    R3,
    RA,
    RJ,
    RK,
    RQ,
    RT,
    SUITS,
    cards_of,
    lowest,
    make,
    rank_of,
    same_colour_suit,
)
from engine.hand import ALL_READS, BID, DECLARE, PLAY, SEAT_NAMES, Hand, IllegalEvent, Renege, Trick

EXCHANGE: Final = "exchange"


def trump_order(trump: int, points: int) -> tuple[list[int], dict[int, int]]:
    """RULINGS.md: the trumps high to low (before ``reverse``) and each card's points, for a point variant.

    A K Q J off-J BJ LJ T 9 8 7 6 5 4 3 2; the 13- and 11-point games add the off-three, the 16-, 15- and
    14-point games every off-card of a point rank, each just below its trump counterpart.
    """
    off = same_colour_suit(trump)
    jokers_score = points not in (5, 8, 11, 14)
    three_scores = points not in (5, 7)
    off_cards: set[int] = set()
    if points in (13, 11):
        off_cards = {R3}
    elif points in (16, 15, 14):
        off_cards = {RA, RT, R3, R2}
    order: list[int] = []
    for r in (RA, RK, RQ, RJ):
        order.append(make(r, trump))
        if r in off_cards:
            order.append(make(r, off))
    order += [make(RJ, off), BJ, LJ]
    for r in range(RT, -1, -1):
        order.append(make(r, trump))
        if r in off_cards:
            order.append(make(r, off))
    value: dict[int, int] = {
        make(RA, trump): 1,
        make(RJ, trump): 1,
        make(RJ, off): 1,
        make(RT, trump): 1,
        make(R2, trump): 1,
    }
    if jokers_score:
        value[BJ] = value[LJ] = 1
    if three_scores:
        value[make(R3, trump)] = 3
    if R3 in off_cards:
        value[make(R3, off)] = 3
    if RA in off_cards:
        value[make(RA, off)] = 1
        value[make(RT, off)] = 1
        if points != 15:
            value[make(R2, off)] = 1
    return order, value


class PitchHand(Hand):
    game = "pitch"
    deck_mask = FULL_DECK_MASK
    EVENTS: ClassVar[dict[str, str]] = {
        **Hand.EVENTS,
        **{"discard": "_apply_discard", "draw": "_apply_draw", "rob": "_apply_rob", "burn": "_apply_burn"},
    }

    def __init__(self, options: dict[str, Any], dealer: int, number: int = 1) -> None:
        self.n_players = options["players"]
        super().__init__(options, dealer, number)
        n = self.n_players
        self.PACK, self.DISCARDED = n, n + 1
        self.high = 0  # standing bid (0: none; 99: moon)
        self.bid_value = 0
        self.moon = False
        self.pack_order: list[int | None] = []
        self.pack_pos = 0
        self.trump_mask = 0
        self.values: dict[int, int] = {}
        self.total_points = options["points"]
        self.called: int | None = None
        self.called_holder: int | None = None
        self.drawn: list[int] = []  # seats that have drawn, in order
        self.robbed = False
        self.out: set[int] = set()
        self.passed_over: dict[int, tuple[int, int, int]] = {}  # seat -> (trick, the seat that played, its card)
        self.closed_out: dict[int, int] = {}  # seat -> the trick gathered without it
        self.points_by_seat = [0] * n
        self.made = False
        self.moon_result: str | None = None

    def location_names(self) -> list[str]:
        return SEAT_NAMES[: self.n_players] + ["pack", "unread discards"]

    def deal_sizes(self) -> list[int]:
        """RULINGS.md: 9 each and 18 held back; five-handed 10 each and a blind of 4."""
        return [9] * 4 + [18] if self.n_players == 4 else [10] * 5 + [4]

    def extra_key(self) -> str:
        return "pack" if self.n_players == 4 else "blind"

    def _after_deal(self, assign: list[list[int | None]]) -> None:
        self.pack_order = list(assign[self.n_players])

    def side_of(self, seat: int) -> int:
        """Four players: the team. Five-handed: 0 for the bidding side (declarer and the called card's
        holder), 1 for the others."""
        if self.n_players == 4:
            return seat % 2
        return 0 if seat in (self.declarer, self.called_holder) else 1

    # ---------------------------------------------------------------- bidding and declaring

    def _to_act(self) -> int:
        if self.phase == BID:
            return (self.dealer + 1 + len(self.bids)) % self.n_players
        if self.phase == PLAY:
            return self.play_turn()
        if self.phase == EXCHANGE:
            step = self._next_step()
            if step is not None:
                return int(step["seat"])
        assert self.declarer is not None
        return self.declarer

    def bid(self, seat: int, bid: Any) -> None:
        """RULINGS.md: one round from the dealer's left, each once: pass or bid higher, 4..points then moon;
        if all pass the dealer takes the bid at 4."""
        self._need(BID, "bid")
        seat = self._check_seat(seat)
        if seat != self._to_act():
            raise IllegalEvent(f"seat {seat} bids out of turn: seat {self._to_act()} is to bid")
        text = str(bid).strip().lower()
        if text == "pass":
            self.bids.append((seat, "pass"))
        else:
            rank = 99 if text == "moon" else (int(text) if text.isdigit() else -1)
            if rank != 99 and not 4 <= rank <= self.total_points:
                raise IllegalEvent(f"bid {text!r} is not a Pitch bid (4..{self.total_points}, moon or pass)")
            if rank <= self.high:
                raise IllegalEvent(f"bid {text!r} does not beat the standing bid")
            self.high = rank
            self.declarer, self.contract = seat, text
            self.bids.append((seat, text))
        if len(self.bids) == self.n_players:
            if self.declarer is None:
                self.declarer, self.contract, self.high = self.dealer, "4", 4
            self.moon = self.high == 99
            self.bid_value = self.total_points if self.moon else self.high
            self.phase = DECLARE

    def _apply_declare(self, event: dict[str, Any]) -> None:
        """RULINGS.md: the declarer names trump (five-handed: and calls a card)."""
        self.trump = self._trump_suit(self._declaration(event))
        self._build_tables()
        if self.n_players == 5:
            call = event.get("call")
            if call is None:
                raise IllegalEvent("five-handed: the declarer must call a card")
            self.called = self._card(call)
            if not self.trump_mask >> self.called & 1:
                raise IllegalEvent(f"the called card {CODES[self.called]} is not a trump")
        self.phase = EXCHANGE

    def _build_tables(self) -> None:
        assert self.trump is not None
        order, self.values = trump_order(self.trump, self.total_points)
        if self.options["reverse"]:
            order.reverse()
        n = len(order)
        power = [-1] * 54
        eff = [c // 13 if c < 52 else self.trump for c in range(54)]
        for i, c in enumerate(order):
            power[c] = 100 + n - i
            eff[c] = self.trump
        self.power, self.eff = power, eff
        self.trump_mask = sum(1 << c for c in order)
        self.suit_masks = [0] * 5
        self.suit_masks[self.trump] = self.trump_mask

    # ---------------------------------------------------------------- discard, refill, rob, burn

    def draw_order(self) -> list[int]:
        """RULINGS.md, refill: in turn from the dealer's left, each player other than the declarer."""
        n = self.n_players
        return [s for s in ((self.dealer + 1 + i) % n for i in range(n)) if s != self.declarer]

    def pack_left(self) -> int:
        k = self.knowledge
        assert k is not None
        return k.count[self.PACK]

    def _known_hand(self, seat: int) -> int | None:
        k = self.knowledge
        assert k is not None
        return k.certain[seat] if k.certain[seat] == k.possible[seat] else None

    def _next_step(self) -> dict[str, Any] | None:
        """With the hands known, the one next exchange event due (None: play may start, or not known)."""
        k = self.knowledge
        assert k is not None
        order = self.draw_order()
        for seat in [(self.dealer + 1 + i) % self.n_players for i in range(self.n_players)]:
            hand = self._known_hand(seat)
            if hand is None:
                return None
            junk = hand & ~self.trump_mask
            if junk:
                return {"event": "discard", "seat": seat, "cards": [CODES[c] for c in cards_of(junk)]}
        for seat in order:
            if seat in self.drawn or (self.drawn and order.index(seat) < order.index(self.drawn[-1])):
                continue
            want = min(max(0, 6 - k.count[seat]), self.pack_left())
            if want:
                cards = self.pack_order[self.pack_pos : self.pack_pos + want]
                return {"event": "draw", "seat": seat, "cards": [None if c is None else CODES[c] for c in cards]}
        if not self.robbed and self.pack_left():
            cards = self.pack_order[self.pack_pos :]
            return {"event": "rob", "seat": self.declarer, "cards": [None if c is None else CODES[c] for c in cards]}
        for seat in range(self.n_players):
            hand = self._known_hand(seat)
            if hand is not None and k.count[seat] > 6:
                burn = sorted(cards_of(hand), key=lambda c: (c in self.values, self.power[c]))[: k.count[seat] - 6]
                return {"event": "burn", "seat": seat, "cards": [CODES[c] for c in burn]}
        return None

    def _legal_setup_events(self) -> list[dict[str, Any]]:
        seat = self._to_act()
        if self.phase == BID:
            out = [{"event": "bid", "seat": seat, "bid": "pass"}]
            out += [
                {"event": "bid", "seat": seat, "bid": str(b)}
                for b in range(max(4, self.high + 1), self.total_points + 1)
            ]
            if self.high < 99:
                out.append({"event": "bid", "seat": seat, "bid": "moon"})
            return out
        if self.phase == DECLARE:
            out = []
            for s in SUITS:
                if self.n_players == 5:
                    order, _ = trump_order(SUITS.index(s), self.total_points)
                    out += [{"event": "declare", "seat": seat, "trump": s, "call": CODES[c]} for c in order]
                else:
                    out.append({"event": "declare", "seat": seat, "trump": s})
            return out
        if self.phase == EXCHANGE:
            step = self._next_step()
            if step is None and not self.robbed and self.pack_left():
                # Hands not read: which cards each seat puts down and draws cannot be told, but the rob is still
                # due, and play cannot start before it (RULINGS.md: the declarer takes the rest of the pack).
                rest = self.pack_order[self.pack_pos :]
                step = {"event": "rob", "seat": self.declarer, "cards": [None if c is None else CODES[c] for c in rest]}
            if step is None:
                leader = self._first_leader_preview()
                return [{"event": "play", "seat": leader, "card": CODES[c]} for c in self._plays_for(leader)]
            if step["event"] == "rob" and self.options["rob_to_partner"] and self.n_players == 4:
                return [step, dict(step, seat=(step["seat"] + 2) % 4)]
            return [step]
        return []

    def _offer_key(self) -> tuple[Any, ...]:
        return (self.game, self.phase, self._to_act(), self.high, self.total_points, self.n_players)

    def _first_leader_preview(self) -> int:
        """RULINGS.md, play: the declarer leads (or, out of cards, the next player to its left who is not)."""
        k = self.knowledge
        assert k is not None and self.declarer is not None
        seat = self.declarer
        for _ in range(self.n_players):
            if k.count[seat] > 0:
                return seat
            seat = (seat + 1) % self.n_players
        return self.declarer

    def _plays_for(self, seat: int) -> list[int]:
        k = self.knowledge
        assert k is not None
        if not self.tricks and self._must_lead_called(seat):
            return [self.called]  # type: ignore[list-item]
        hand = k.certain[seat] if k.exact else k.possible[seat]
        return cards_of(hand & self.trump_mask) or cards_of(hand)

    def _must_lead_called(self, seat: int) -> bool:
        """RULINGS.md, five-handed: a declarer who took the called card from the blind plays alone and must lead
        it. The blind is the pack, so another player may draw the called card from it: that player is then the
        partner, and the declarer has nothing to lead."""
        if self.called is None or seat != self.declarer or self.called not in self.pack_order:
            return False
        k = self.knowledge
        assert k is not None
        return bool(k.certain[seat] >> self.called & 1)

    def _apply_discard(self, event: dict[str, Any]) -> None:
        """RULINGS.md, discard: non-trumps put down face up; a trump thrown away is out of play, scores for
        nobody, and is shown to the director as an irregularity."""
        self._need(EXCHANGE, "discard")
        seat = self._seat(event)
        k = self.knowledge
        assert k is not None
        for x in event["cards"]:
            if x is None:
                k.move(seat, self.DISCARDED, None)
                continue
            c = self._card(x)
            k.leave(seat, c)
            self._note_called(seat, c)
            if self.trump_mask >> c & 1:
                self.irregularities.append({"kind": "trump discarded", "seat": seat, "card": CODES[c]})

    def _take_from_pack(self, seat: int, cards: list[Any], what: str) -> None:
        k = self.knowledge
        assert k is not None
        if len(cards) > self.pack_left():
            raise IllegalEvent(f"{what}: {len(cards)} cards asked, the pack has {self.pack_left()}")
        for x in cards:
            expected = self.pack_order[self.pack_pos] if self.pack_pos < len(self.pack_order) else None
            c = None if x is None else self._card(x)
            if expected is not None and c is not None and c != expected:
                raise IllegalEvent(f"{what}: the pack gives {CODES[expected]} next, not {CODES[c]}")
            c = expected if c is None else c
            self.pack_pos += 1
            k.move(self.PACK, seat, c)
            if c is not None:
                self._note_called(seat, c)

    def _apply_draw(self, event: dict[str, Any]) -> None:
        """RULINGS.md, refill: in turn from the dealer's left each player other than the declarer is dealt,
        once, 6 - k cards (k = the trumps kept); later players get fewer if the pack runs out."""
        self._need(EXCHANGE, "draw")
        seat = self._seat(event)
        order = self.draw_order()
        if seat not in order:
            raise IllegalEvent("the declarer does not draw; it robs the rest of the pack")
        if seat in self.drawn or (self.drawn and order.index(seat) < order.index(self.drawn[-1])):
            raise IllegalEvent(f"seat {seat} draws out of order (draws go from the dealer's left, once each)")
        if self.robbed:
            raise IllegalEvent("the pack was already robbed")
        k = self.knowledge
        assert k is not None
        want = min(max(0, 6 - k.count[seat]), self.pack_left())
        hand = self._known_hand(seat)
        if hand is not None and not hand & ~self.trump_mask and len(event["cards"]) != want:
            self.irregularities.append({"kind": "wrong refill", "seat": seat, "drew": len(event["cards"]), "due": want})
        self._take_from_pack(seat, event["cards"], "draw")
        self.drawn.append(seat)

    def _apply_rob(self, event: dict[str, Any]) -> None:
        """RULINGS.md: the declarer takes the whole rest of the pack (``rob_to_partner``: or hands it unseen
        to the partner)."""
        self._need(EXCHANGE, "rob")
        seat = self._seat(event)
        allowed = {self.declarer}
        if self.options["rob_to_partner"] and self.n_players == 4:
            allowed.add((self.declarer + 2) % 4)  # type: ignore[operator]
        if seat not in allowed:
            raise IllegalEvent(f"seat {seat} may not rob the pack")
        if self.robbed:
            raise IllegalEvent("the pack was already robbed")
        if len(event["cards"]) != self.pack_left():
            raise IllegalEvent(f"the rob takes the whole rest of the pack: {self.pack_left()} cards")
        self._take_from_pack(seat, event["cards"], "rob")
        self.robbed = True

    def _apply_burn(self, event: dict[str, Any]) -> None:
        """RULINGS.md, burn: over six trumps, burn face up down to six, non-point cards first; a burned card
        is out of play and scores for nobody."""
        self._need(EXCHANGE, "burn")
        seat = self._seat(event)
        k = self.knowledge
        assert k is not None
        cards = [self._card(x) for x in event["cards"]]
        if k.count[seat] - len(cards) < 6:
            raise IllegalEvent(f"seat {seat} holds {k.count[seat]} cards: it burns down to six, no further")
        for c in cards:
            k.leave(seat, c)
            self._note_called(seat, c)
        if any(c in self.values for c in cards):
            spare = k.certain[seat] & self.trump_mask & ~sum(1 << c for c in self.values)
            if spare:
                self.irregularities.append(
                    {
                        "kind": "point card burned",
                        "seat": seat,
                        "cards": [CODES[c] for c in cards],
                        "could_burn": CODES[lowest(spare)],
                    }
                )

    def _note_called(self, seat: int, c: int) -> None:
        if c == self.called and self.called_holder is None:
            self.called_holder = seat

    # ---------------------------------------------------------------- play

    def _apply_play(self, event: dict[str, Any]) -> None:
        if self.phase == EXCHANGE:
            self._begin_play()
        super()._apply_play(event)

    def _begin_play(self) -> None:
        if not self.robbed and self.pack_left():
            raise IllegalEvent("play starts before the rest of the pack was robbed")
        k = self.knowledge
        assert k is not None and self.declarer is not None
        for seat in range(self.n_players):
            if k.count[seat] > 6:
                self.irregularities.append({"kind": "over six cards at play", "seat": seat, "cards": k.count[seat]})
        if self.called is not None and self.called_holder is None:
            # RULINGS.md, five-handed: the called card in the blind means the declarer robbed it and plays alone.
            if k.certain[self.declarer] >> self.called & 1 and self._called_was_in_blind():
                self.called_holder = self.declarer
        self.active = [s for s in range(self.n_players) if k.count[s] > 0]
        self.out = {s for s in range(self.n_players) if k.count[s] == 0}
        self.start_play(self._first_leader_preview())
        assert self.trick is not None
        self.trick.led = self.trump  # type: ignore[assignment]
        if not self.active:  # nobody kept a trump: nothing to play
            self.trick = None
            self._end_hand()

    def _called_was_in_blind(self) -> bool:
        return self.called in self.pack_order or self.called_holder == self.declarer

    def _out_of_turn(self, seat: int, on_turn: int, c: int) -> None:
        """CONVENTIONS.md: in Pitch a seat that is skipped is out. RULINGS.md, renege ("holding out"): a player
        skipped while still holding a trump reneges."""
        t = self.trick
        assert t is not None
        s = on_turn
        while s != seat:
            if s in self.active and not t.played >> s & 1:
                self._declare_out(s)
                self.passed_over[s] = (len(self.tricks) + 1, seat, c)
            s = (s + 1) % self.n_players
        self.turn = seat  # the skipped seats are out: the seat that played was, after all, on turn
        self._check_follow(seat, c, self.trump)  # type: ignore[arg-type]

    def _declare_out(self, seat: int) -> None:
        k = self.knowledge
        assert k is not None
        self.active.remove(seat)
        self.out.add(seat)
        trick_no = len(self.tricks) + 1
        held = k.certain[seat] & self.trump_mask
        if held:
            self.reneges.append(
                Renege(
                    seat,
                    trick_no,
                    None,
                    self.trump,  # type: ignore[arg-type]
                    lowest(held),
                    kind="holding out",
                    order=self._call_order(),
                    rests_on=self._now(True),
                )
            )
        elif k.possible[seat] & self.trump_mask and k.count[seat] > 0:
            self.suspicions.append(
                Renege(
                    seat,
                    trick_no,
                    None,
                    self.trump,  # type: ignore[arg-type]
                    kind="holding out",
                    order=self._call_order(),
                    rests_on=self._now(),
                )
            )

    def _check_follow(self, seat: int, c: int, led: int) -> None:
        """RULINGS.md, renege: a player who plays a non-trump reneges. The card played is its own evidence.
        RULINGS.md, holding out: "its ``proof`` is a trump the seat held at that moment when one is known (from the
        deal or a later play), otherwise the non-trump played" (a later play: ``_prove_non_trump``)."""
        if self.trump_mask >> c & 1:
            return
        k = self.knowledge
        assert k is not None
        held = k.certain[seat] & self.trump_mask
        self.reneges.append(
            Renege(
                seat,
                len(self.tricks) + 1,
                c,
                led,
                lowest(held) if held else c,
                kind="non-trump played",
                order=self._call_order(),
                rests_on=self._now(),  # the offence is the play itself, whatever the proof names
            )
        )

    def _prove_non_trump(self, seat: int, c: int) -> None:
        """RULINGS.md, holding out: the proof of a non-trump played is a trump the seat held at that moment when
        one is known "from the deal or a later play": a trump the seat plays later was in its hand then (cards
        never enter a hand during play)."""
        if not self.trump_mask >> c & 1:
            return
        for r in self.reneges:
            if r.seat == seat and r.kind == "non-trump played" and r.proof == r.card:
                r.proof = c

    def _may_play(self, seat: int, c: int) -> bool:
        """Whether ``seat`` may hold ``c`` (with jokers alike, either joker): what Hand.play checks, asked before a
        play's special case changes anything, so that a play Hand.play will refuse changes nothing."""
        k = self.knowledge
        assert k is not None
        may = k.possible[seat]
        return bool(may >> c & 1 or (c >= 52 and not self.options["jokers_distinct"] and may & JOKER_MASK))

    def _plays_after_all(self, seat: int, c: int) -> None:
        """RULINGS.md, "Common to all games" (``renege_correctable``): a renege is established once the offender or
        its partner plays to the next trick; before that the director may let it be put right. A seat passed over
        in this trick that plays after all, before the trick is over, has not held out: it is not out, the call
        is dropped, and the play that passed it over was out of turn (an irregularity, not a renege)."""
        trick_no = len(self.tricks) + 1
        info = self.passed_over.get(seat)
        if info is None or info[0] != trick_no or not self.options["renege_correctable"]:
            return  # the seat is out: Hand.play refuses the card
        if not self._may_play(seat, c):
            return  # Hand.play refuses the card: nothing is put right
        del self.passed_over[seat]
        self.out.discard(seat)
        self.active = sorted(self.active + [seat])
        self.reneges = [r for r in self.reneges if not (r.seat == seat and r.trick == trick_no and r.card is None)]
        self.suspicions = [
            r for r in self.suspicions if not (r.seat == seat and r.trick == trick_no and r.card is None)
        ]
        _, ahead, card_ahead = info
        entry = {"kind": "out of turn", "seat": ahead, "trick": trick_no, "card": CODES[card_ahead], "turn": seat}
        if entry not in self.irregularities:
            self.irregularities.append(entry)
        self.turn = seat

    def _trick_gathered_without_the_rest(self, seat: int, c: int) -> None:
        """RULINGS.md, renege ("holding out"): a player who "stops playing, while still holding a trump". A seat
        that has played to this trick plays again: the trick was gathered without the seats that had not played
        (they stopped playing: out, holding out if they still hold a trump), and the card leads the next trick.
        When that seat is not the one to lead it (the winner, or the next to its left not out), the seats from
        that leader up to it were passed over for the lead: out too, holding out if they hold a trump (Hand.play
        finds them, as for any seat passed over). One lead may so show two hold-outs at once. A seat that cannot
        hold the card changes nothing, and Hand.play refuses it."""
        t = self.trick
        k = self.knowledge
        assert t is not None and k is not None
        if not self._may_play(seat, c):
            return
        missing = [s for s in self.active if not t.played >> s & 1]
        staying = [s for s in self.active if s not in missing and k.count[s] > 0]
        if not missing or seat not in staying:
            return
        for s in missing:
            self._declare_out(s)
            self.closed_out[s] = len(self.tricks) + 1
        self._finish_trick()

    def _late_for_the_last_trick(self, seat: int, cards_in_trick: int) -> bool:
        """``seat`` was put out in the trick just finished: left out when the next trick was led, and nobody has
        followed that lead; or passed over by a later seat, and nobody has led since (a card after a lead could be
        a play to the new trick by a seat that did hold out: that stays refused). With ``renege_correctable =
        false`` nothing is put right: a seat taken to be out stays out."""
        if not self.options["renege_correctable"]:
            return False
        n = len(self.tricks)
        passed = self.passed_over.get(seat)
        if cards_in_trick == 0:
            return passed is not None and passed[0] == n
        return cards_in_trick == 1 and self.closed_out.get(seat) == n

    def _late_to_the_last_trick(self, seat: int, c: int) -> tuple[int, int] | None:
        """``seat`` was taken to have stopped playing in the trick just finished (passed over by a later seat, or
        left out when the next trick was led), but its card comes now, before anyone follows a lead: it was only
        slow, the others played ahead of it ("out of turn" irregularities), it did not hold out. A lead already
        made goes back to its hand, the last trick is opened again for ``seat``'s card, and the hold-out call is
        dropped. Returns that early lead, to be played again once the trick is over."""
        t = self.trick
        k = self.knowledge
        assert t is not None and k is not None
        n = len(self.tricks)
        if not self._may_play(seat, c):
            return None  # Hand.play refuses the card
        lead = t.cards[0] if t.cards else None
        if lead is not None:
            bit = 1 << lead[1]
            k.count[lead[0]] += 1
            k.possible[lead[0]] |= bit
            k.certain[lead[0]] |= bit

        def kept(r: Renege) -> bool:
            if r.seat == seat and r.trick == n and r.card is None:
                return False
            # Every call of the next trick came with its early lead (the lead's own, and seats it passed over for
            # the lead): the lead is played again once the trick is over, and judged again then.
            return not (lead is not None and r.trick > n)

        for s in [s for s, info in self.passed_over.items() if lead is not None and info[0] > n]:
            del self.passed_over[s]
            self.out.discard(s)

        self.reneges = [r for r in self.reneges if kept(r)]
        self.suspicions = [r for r in self.suspicions if kept(r)]
        last = self.tricks.pop()
        self._uncredit_trick(last, self.trick_winner(last))
        self.active = sorted(set(last.active) | {seat})
        self.out.discard(seat)
        self.closed_out.pop(seat, None)
        passed = self.passed_over.pop(seat, None)
        if passed is not None:
            _, ahead, card_ahead = passed
            entry = {"kind": "out of turn", "seat": ahead, "trick": n, "card": CODES[card_ahead], "turn": seat}
            if entry not in self.irregularities:
                self.irregularities.append(entry)
        self.trick = last
        self.turn = seat
        if lead is not None:
            self.irregularities.append(
                {"kind": "out of turn", "seat": lead[0], "trick": n + 1, "card": CODES[lead[1]], "turn": seat}
            )
        return lead

    def play(self, seat: int, c: int) -> None:
        """RULINGS.md, five-handed: the called card's holder is the secret partner, known once it is played;
        a declarer who robbed the called card from the blind must lead it."""
        t = self.trick
        if t is not None and t.played >> seat & 1 and self.phase == PLAY:
            self._trick_gathered_without_the_rest(seat, c)
            t = self.trick
        early = None
        if t is not None and seat in self.out and self._late_for_the_last_trick(seat, len(t.cards)):
            early = self._late_to_the_last_trick(seat, c)
            t = self.trick
        if t is not None and seat in self.out and self.passed_over and not t.played >> seat & 1:
            self._plays_after_all(seat, c)
        proving = bool(self.reneges)
        self._play_checked(seat, c)
        if proving:
            self._prove_non_trump(seat, c)
        if early is not None and self.phase == PLAY:
            self.play(*early)

    def _play_checked(self, seat: int, c: int) -> None:
        if self.called is not None:
            before = (self.called_holder, len(self.irregularities))
            if (
                not self.tricks
                and self.trick is not None
                and not self.trick.cards
                and self._must_lead_called(seat)
                and c != self.called
            ):
                self.irregularities.append(
                    {"kind": "called card not led", "seat": seat, "card": CODES[c], "called": CODES[self.called]}
                )
            self._note_called(seat, c)
            try:
                super().play(seat, c)
            except IllegalEvent:  # a refused play reveals no partner and is no irregularity
                self.called_holder = before[0]
                del self.irregularities[before[1] :]
                raise
        else:
            super().play(seat, c)

    def _resolve_suspicions(self, seat: int, c: int) -> None:
        pass  # a Pitch hold-out is settled by what the seat still holds, not by a later play (it plays no more)

    def trick_winner(self, t: Trick) -> int:
        best_seat, best = t.cards[0][0], -1
        for seat, c in t.cards:
            if self.power[c] > best:
                best_seat, best = seat, self.power[c]
        return best_seat

    def _credit_trick(self, t: Trick, winner: int) -> None:
        """RULINGS.md, points: each scores for the side that captured it, except the 2, which scores for the
        side of the player who played it (``dirty = false``)."""
        assert self.trump is not None
        two = make(R2, self.trump)
        for seat, c in t.cards:
            v = self.values.get(c, 0)
            if not v:
                continue
            if c == two and not self.options["dirty"]:
                self.points_by_seat[seat] += v
            else:
                self.points_by_seat[winner] += v
        self.taken = self.side_points() if self.n_players == 4 else list(self.points_by_seat)

    def _uncredit_trick(self, t: Trick, winner: int) -> None:
        assert self.trump is not None
        two = make(R2, self.trump)
        for seat, c in t.cards:
            v = self.values.get(c, 0)
            if v:
                self.points_by_seat[seat if c == two and not self.options["dirty"] else winner] -= v
        self.taken = self.side_points() if self.n_players == 4 else list(self.points_by_seat)
        self.out -= set(t.active)

    def _finish_trick(self) -> None:
        t = self.trick
        assert t is not None
        winner = self.trick_winner(t)
        self._credit_trick(t, winner)
        t.active = list(self.active)
        self.tricks.append(t)
        k = self.knowledge
        assert k is not None
        for s in list(self.active):
            if k.count[s] == 0:
                self.active.remove(s)
                self.out.add(s)
        if not self.active:
            self.trick = None
            self._end_hand()
            return
        # RULINGS.md: the winner leads the next unless out, and then the next player to its left not out.
        leader = winner
        while leader not in self.active:
            leader = (leader + 1) % self.n_players
        self.trick = Trick(leader, led=self.trump)  # type: ignore[arg-type]
        self.turn = self.play_turn()

    def _hand_over(self) -> bool:
        return not self.active

    ends_on_next_deal = True

    def stop_playing(self) -> None:
        """RULINGS.md, renege ("holding out"): a player who "stops playing, while still holding a trump"; "The hand
        ends when every player is out." Called when the next deal comes while seats still hold cards: every seat
        still in has stopped playing and is out (holding out if it still holds a trump); a trick begun is
        gathered; the hand ends and is scored."""
        self._need(PLAY, "end of play")
        t = self.trick
        if t is not None and t.cards:
            for s in [s for s in self.active if not t.played >> s & 1]:
                self._declare_out(s)
            self._finish_trick()
        if self.phase == PLAY:
            for s in list(self.active):
                self._declare_out(s)
            self.trick = None
            self._end_hand()

    def _prove_from_knowledge(self) -> None:
        """At the end of the hand the cards are accounted for: a hold-out is proven if the seat certainly
        still holds a trump."""
        k = self.knowledge
        assert k is not None
        if self.called is not None and self.called_holder is None:
            # Five-handed: the called card was never shown (its holder held it out): the secret partner is the
            # seat known to hold it, so that the sides are scored right.
            holder = [s for s in range(self.n_players) if k.certain[s] >> self.called & 1]
            if holder:
                self.called_holder = holder[0]
        keep = []
        for s in self.suspicions:
            held = k.certain[s.seat] & self.trump_mask
            if held:
                s.proof = lowest(held)
                s.rests_on.append(ALL_READS)
                self.reneges.append(s)
            elif k.possible[s.seat] & self.trump_mask:
                keep.append(s)
        self.suspicions = keep
        for r in self.reneges:
            # RULINGS.md, holding out: a trump the seat still holds at the end was in its hand when it played the
            # non-trump (cards never enter a hand during play): that trump is the proof.
            if r.kind == "non-trump played" and r.proof == r.card:
                held = k.certain[r.seat] & self.trump_mask
                if held:
                    r.proof = lowest(held)
        self._sort_calls()

    # ---------------------------------------------------------------- scoring

    def side_points(self) -> list[int]:
        pts = [0, 0]
        for seat, p in enumerate(self.points_by_seat):
            pts[self.side_of(seat)] += p
        return pts

    def score_hand(self) -> tuple[list[int], list[int]]:
        """RULINGS.md, score: the bidders, if they took at least the bid in points, score the points taken;
        otherwise they lose the bid; the defenders score their points (``defenders_score_when_set``).
        Renege penalty ("set"): the offending side scores nothing; the bidders are then set, or score at
        least their bid. Moon: made, the score becomes the target (or 0 from below); missed, the game is lost.
        Sides here: 0 = the bidding side, 1 = the defenders; ``taken`` is per team (per player, five-handed)."""
        assert self.declarer is not None
        pts = self.side_points()
        d = self.side_of(self.declarer)
        bid_side, def_side = pts[d], pts[1 - d]
        # RULINGS.md, "Several reneges in one hand": "set" gives one side the whole hand, so the first renege made
        # decides it and the later ones change nothing (whichever side they are on).
        offenders = {self.side_of(self.reneges[0].seat)} if self.reneges else set()
        # Only the defenders offended: "the bidders score at least their bid", so their bid counts as made (a
        # moon too: the offending side must not win the game by its own renege).
        defenders_only = 1 - d in offenders and d not in offenders
        made = (bid_side >= self.bid_value and d not in offenders) or defenders_only
        bid_score = bid_side if made else -self.bid_value
        def_score = def_side
        if 1 - d in offenders:
            def_score = 0
            bid_score = max(bid_score, self.bid_value) if d not in offenders else bid_score
        elif not made and not self.options["defenders_score_when_set"]:
            def_score = 0
        self.made = made
        if self.moon:
            self.moon_result = "made" if made and (bid_side == self.total_points or defenders_only) else "missed"
            if self.moon_result == "missed":
                bid_score = -self.bid_value
        by_side = [0, 0]
        by_side[d], by_side[1 - d] = bid_score, def_score
        if self.n_players == 4:
            return by_side, pts
        return [by_side[self.side_of(s)] for s in range(5)], list(self.points_by_seat)

    def apply_to_totals(self, totals: list[int]) -> list[int]:
        """Five-handed: each player of a side scores that side's result. Moon made: the bidding side's score
        becomes the target if it was 0 or more, or 0 if below."""
        assert self.score is not None and self.declarer is not None
        out = [t + s for t, s in zip(totals, self.score, strict=True)]
        if self.moon and self.moon_result == "made":
            target = self.options["target"]
            for i in range(len(out)):
                member = (i % 2 == self.declarer % 2) if self.n_players == 4 else self.side_of(i) == 0
                if member:
                    out[i] = target if totals[i] >= 0 else 0
            # CONVENTIONS.md: a hand's ``score`` is its change per side: the jump to the target (or to 0).
            self.score = [o - t for o, t in zip(out, totals, strict=True)]
        return out

    def match_winner(self, totals: list[int]) -> int | None:
        """RULINGS.md, game: exactly one side at target or more wins; both: the bidding side if it made its
        bid, else the defenders. A missed moon loses the game at once. Five-handed: per player, the same rule
        between the bidding side's players and the others, then the highest score."""
        assert self.declarer is not None
        target = self.options["target"]
        if self.n_players == 4:
            d = self.declarer % 2
            if self.moon and self.moon_result == "missed":
                return 1 - d
            over = [s for s in (0, 1) if totals[s] >= target]
            if len(over) == 1:
                return over[0]
            if len(over) == 2:
                return d if self.made else 1 - d
            return None
        bidders = [s for s in range(5) if self.side_of(s) == 0]
        others = [s for s in range(5) if s not in bidders]
        if self.moon and self.moon_result == "missed":
            # The highest of the others; between equal totals, the first from the declarer's left (RULINGS.md
            # does not say; this way renumbering the seats never changes the winner, where seat numbers would).
            d = self.declarer
            return max(others, key=lambda s: (totals[s], -((s - d) % 5)))
        over = [s for s in range(5) if totals[s] >= target]
        if not over:
            return None
        if any(s in bidders for s in over) and any(s in others for s in over):
            over = [s for s in over if (s in bidders) == self.made]
        best = max(totals[s] for s in over)
        top = [s for s in over if totals[s] == best]
        if len(top) > 1 and self.declarer in top:
            return self.declarer  # partners tie on the same result: the declarer, who carried the contract
        return top[0] if len(top) == 1 else None


__all__ = ["PitchHand", "trump_order", "rank_of"]
