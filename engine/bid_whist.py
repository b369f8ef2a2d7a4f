"""Bid Whist (RULINGS.md, "Bid Whist"; source 000 as the default, 003 for the options)."""

from __future__ import annotations

import functools
from typing import Any, ClassVar, Final

from engine.cards import (
    BJ,
    CODES,
    FULL_DECK_MASK,
    LJ,
    NO_SUIT,
    RA,
    SUIT_MASKS,
    SUITS,
    rank_of,
    suit_of,
)
from engine.hand import BID, DECLARE, PLAY, Hand, IllegalEvent

DISCARD: Final = "discard"
JOKER_SWAP: Final = "joker_swap"

KINDS: Final = ("high", "low", "no")
# The knowledge locations after the four seats.
KITTY: Final = 4
BOOK: Final = 5


def parse_bid(text: str) -> tuple[int, str]:
    """``"4"`` / ``"4 high"`` / ``"4 low"`` / ``"4 no"``: a number 3..7 and a kind; a bare number is high."""
    parts = text.split()
    if not parts or not parts[0].isdigit() or len(parts) > 2 or (len(parts) == 2 and parts[1] not in KINDS):
        raise IllegalEvent(f"bid {text!r} is not a Bid Whist bid (pass, or 3..7 with high, low or no)")
    n = int(parts[0])
    if not 3 <= n <= 7:
        raise IllegalEvent(f"bid {text!r}: the number must be 3..7")
    return n, parts[1] if len(parts) == 2 else "high"


class BidWhistHand(Hand):
    game = "bid_whist"
    deck_mask = FULL_DECK_MASK
    EVENTS: ClassVar[dict[str, str]] = {
        **Hand.EVENTS,
        **{"discard": "_apply_discard", "joker_swap": "_apply_joker_swap"},
    }

    def __init__(self, options: dict[str, Any], dealer: int, number: int = 1) -> None:
        super().__init__(options, dealer, number)
        self.bid_kind: str | None = None
        self.bid_number = 0
        self.kitty: list[int | None] = []  # the kitty as dealt (shown to all in trump bids, by option)
        self.high_bid: tuple[int, int] | None = None  # rank of the standing bid
        self.swaps_left: list[int] | None = None  # jokers still to be swapped, when the hands are known

    def _after_deal(self, assign: list[list[int | None]]) -> None:
        self.kitty = assign[KITTY]

    def public_view(self) -> dict[str, Any]:
        """RULINGS.md, kitty: "shown to all in trump bids (``kitty_shown_in_trumps = true``), never in no trump":
        once trump is named, the public view shows the kitty the declarer took (a card not read shows as null)."""
        view = super().public_view()
        if self.trump is not None and self.options["kitty_shown_in_trumps"]:
            view["kitty"] = [None if c is None else CODES[c] for c in self.kitty]
        return view

    def location_names(self) -> list[str]:
        return ["seat 0", "seat 1", "seat 2", "seat 3", "kitty", "discard book"]

    def deal_sizes(self) -> list[int]:
        return [12, 12, 12, 12, 6]

    def extra_key(self) -> str:
        return "kitty"

    # ---------------------------------------------------------------- bidding

    def bid_rank(self, n: int, kind: str) -> tuple[int, int]:
        """RULINGS.md: by number, and within a number high < low < no (``bid_order``)."""
        if self.options["bid_order"] == "no>low>high":
            return n, KINDS.index(kind)
        return n, 1 if kind == "no" else 0

    def _to_act(self) -> int:
        if self.phase == BID:
            return (self.dealer + 1 + len(self.bids)) % 4
        if self.phase == PLAY:
            return self.play_turn()
        if self.phase == JOKER_SWAP and self.swaps_left:
            return self._joker_holder(self.swaps_left[0])
        assert self.declarer is not None
        return self.declarer

    def bid(self, seat: int, bid: Any) -> None:
        """RULINGS.md: one round from the dealer's left; a bid must beat the standing bid; if the first three
        pass the dealer must bid; ``dealer_can_match`` lets the dealer take the standing bid by matching it."""
        self._need(BID, "bid")
        seat = self._check_seat(seat)
        if seat != self._to_act():
            raise IllegalEvent(f"seat {seat} bids out of turn: seat {self._to_act()} is to bid")
        text = str(bid).strip().lower()
        dealer_turn = len(self.bids) == 3
        if text == "pass":
            if dealer_turn and self.high_bid is None:
                raise IllegalEvent("the first three passed: the dealer must bid")
            self.bids.append((seat, "pass"))
        else:
            n, kind = parse_bid(text)
            rank = self.bid_rank(n, kind)
            if self.high_bid is not None:
                matching = dealer_turn and self.options["dealer_can_match"]
                if rank < self.high_bid or (rank == self.high_bid and not matching):
                    raise IllegalEvent(f"bid {text!r} does not beat the standing bid")
            self.high_bid = rank
            self.declarer, self.bid_number, self.bid_kind = seat, n, kind
            self.contract = f"{n} {kind}"
            self.bids.append((seat, self.contract))
        if len(self.bids) == 4:
            self.phase = DECLARE

    def _legal_setup_events(self) -> list[dict[str, Any]]:
        seat = self._to_act()
        if self.phase == BID:
            out = (
                []
                if (len(self.bids) == 3 and self.high_bid is None)
                else [{"event": "bid", "seat": seat, "bid": "pass"}]
            )
            matching = len(self.bids) == 3 and self.options["dealer_can_match"]
            for n in range(3, 8):
                for kind in KINDS:
                    rank = self.bid_rank(n, kind)
                    if self.high_bid is None or rank > self.high_bid or (matching and rank == self.high_bid):
                        out.append({"event": "bid", "seat": seat, "bid": f"{n} {kind}"})
            return out
        if self.phase == DECLARE:
            if self.bid_kind == "no":
                return [{"event": "declare", "seat": seat, "trump": None, "direction": d} for d in ("high", "low")]
            return [{"event": "declare", "seat": seat, "trump": s} for s in SUITS]
        if self.phase == DISCARD:
            return [
                {
                    "event": "discard",
                    "seat": seat,
                    "cards": [None if c is None else CODES[c] for c in self._discard_choice()],
                }
            ]
        if self.phase == JOKER_SWAP:
            k = self.knowledge
            assert k is not None
            if not self.swaps_left:
                # Who holds the jokers is not known (hands not read): any other seat that may hold one may swap it,
                # drawing an unread discard, or the declarer's first lead ends the swaps.
                swaps = [
                    {"event": "joker_swap", "seat": s, "joker": CODES[j], "drew": None}
                    for j in (BJ, LJ)
                    for s in range(4)
                    if s != self.declarer and k.possible[s] >> j & 1
                ]
                leads = k.possible[self.declarer]  # type: ignore[index]
                return swaps + [
                    {"event": "play", "seat": self.declarer, "card": CODES[c]} for c in range(54) if leads >> c & 1
                ]
            joker = self.swaps_left[0]
            holder = self._joker_holder(joker)
            book = k.certain[BOOK]
            drew: list[str | None] = [CODES[c] for c in range(54) if book >> c & 1] or [None]
            return [{"event": "joker_swap", "seat": holder, "joker": CODES[joker], "drew": d} for d in drew]
        return []

    def _offer_key(self) -> tuple[Any, ...]:
        o = self.options
        return (
            self.game,
            self.phase,
            self._to_act(),
            self.high_bid,
            len(self.bids),
            self.bid_kind,
            o["bid_order"],
            o["dealer_can_match"],
        )

    def _discard_choice(self) -> list[int | None]:
        """A legal discard for simulations: the six lowest-numbered cards the declarer certainly holds."""
        k = self.knowledge
        assert k is not None and self.declarer is not None
        hand = k.certain[self.declarer]
        out: list[int | None] = []
        for c in range(54):
            if hand >> c & 1 and len(out) < 6:
                out.append(c)
        return out + [None] * (6 - len(out))

    # ---------------------------------------------------------------- declaring, kitty, jokers

    def _apply_declare(self, event: dict[str, Any]) -> None:
        """RULINGS.md: the declarer names trump for a high or low bid, or the direction for a no-trump bid."""
        trump = self._declaration(event)
        if self.bid_kind == "no":
            if trump is not None:
                raise IllegalEvent("a no-trump bid names no trump suit")
            self.direction = self._nt_direction(event)
        else:
            suit = self._trump_suit(trump, f" for a {self.bid_kind} bid")
            if event.get("direction", self.bid_kind) != self.bid_kind:
                raise IllegalEvent(f"a {self.bid_kind} bid plays {self.bid_kind}")
            self.trump = suit
            self.direction = self.bid_kind
        self._build_tables()
        k = self.knowledge
        assert k is not None and self.declarer is not None
        k.merge(KITTY, self.declarer)  # the declarer takes the kitty into hand
        self.phase = DISCARD

    def _build_tables(self) -> None:
        eff, power, masks = _tables(self.trump, self.direction == "low")
        self.eff, self.power, self.suit_masks = eff, list(power), masks

    def _apply_discard(self, event: dict[str, Any]) -> None:
        """RULINGS.md: the declarer discards 6 cards face down; they are the declarer's side's first book."""
        self._need(DISCARD, "discard")
        seat = self._seat(event)
        if seat != self.declarer:
            raise IllegalEvent(f"only the declarer (seat {self.declarer}) discards")
        cards = event["cards"]
        if len(cards) != 6:
            raise IllegalEvent(f"the declarer discards 6 cards, not {len(cards)}")
        k = self.knowledge
        assert k is not None
        parsed = [None if x is None else self._card(x) for x in cards]
        if len({c for c in parsed if c is not None}) != len([c for c in parsed if c is not None]):
            raise IllegalEvent("a card is discarded twice")
        for c in parsed:  # a refused discard must leave the hand as it was: check every card first
            if c is not None and not k.possible[seat] >> c & 1:
                raise IllegalEvent(f"seat {seat} cannot hold {CODES[c]}")
        for c in parsed:
            k.move(seat, BOOK, c)
        self.taken[self.side_of(seat)] += 1
        if self.trump is None and self.options["nt_jokers"] == "swap":
            self.phase = JOKER_SWAP
            self._plan_swaps()
            if self.swaps_left == []:
                self.start_play(seat)
        else:
            self.start_play(seat)

    def _plan_swaps(self) -> None:
        """With the hands known, the swaps due are known: each other player holding a joker, Big Joker first."""
        k = self.knowledge
        assert k is not None
        due = []
        for j in (BJ, LJ):
            holders = [s for s in range(4) if k.possible[s] >> j & 1]
            if holders == [self.declarer] or not holders:
                continue
            if len(holders) > 1 or not k.certain[holders[0]] >> j & 1:
                self.swaps_left = None  # not known: the table says who swaps
                return
            due.append(j)
        self.swaps_left = due

    def _joker_holder(self, joker: int) -> int:
        k = self.knowledge
        assert k is not None
        return next(s for s in range(4) if k.certain[s] >> joker & 1)

    def _apply_joker_swap(self, event: dict[str, Any]) -> None:
        """RULINGS.md, jokers at no trump (``nt_jokers = "swap"``): each other player holding a joker puts it into
        the kitty book and draws one of the discards at random, unseen (the Big Joker's holder first)."""
        self._need(JOKER_SWAP, "joker_swap")
        seat = self._seat(event)
        if seat == self.declarer:
            raise IllegalEvent("the declarer does not swap jokers")
        joker = self._card(event["joker"])
        if joker not in (BJ, LJ):
            raise IllegalEvent(f"{CODES[joker]} is not a joker")
        k = self.knowledge
        assert k is not None
        if not self.options["jokers_distinct"]:
            # The two jokers look alike: the joker swapped is whichever the seat holds, and "the Big Joker's
            # holder first" cannot be told, so the swaps due may come in either order.
            other = LJ if joker == BJ else BJ
            if not k.possible[seat] >> joker & 1 and k.possible[seat] >> other & 1:
                joker = other
        due = self.swaps_left
        if due is not None and (joker not in due[: 2 if not self.options["jokers_distinct"] else 1]):
            raise IllegalEvent(f"no swap of {CODES[joker]} is due now")
        drew = event.get("drew")
        drawn = None if drew is None else self._card(drew)
        # A refused swap must leave the hand as it was: check the joker and the card drawn before any change.
        if not k.possible[seat] >> joker & 1:
            raise IllegalEvent(f"seat {seat} cannot hold {CODES[joker]}")
        if drawn is not None and not k.possible[BOOK] >> drawn & 1:
            raise IllegalEvent(f"{CODES[drawn]} is not one of the discards")
        if self.swaps_left is not None:
            self.swaps_left.remove(joker)
        k.leave(seat, joker)
        k.move(BOOK, seat, drawn)
        if self.swaps_left == []:
            self.start_play(self.declarer)  # type: ignore[arg-type]

    def _apply_play(self, event: dict[str, Any]) -> None:
        if self.phase != JOKER_SWAP:
            super()._apply_play(event)
            return
        # With unknown hands, the first play ends the swaps. RULINGS.md, nt_jokers = "swap": with the hands known
        # the referee knows which swaps were due; a joker left in a hand is for the director (the table did it:
        # recorded, not refused). A refused first play leaves the hand as it was: Hand.apply puts it back.
        for j in self.swaps_left or []:
            self.irregularities.append({"kind": "joker not swapped", "seat": self._joker_holder(j), "card": CODES[j]})
        self.swaps_left = [] if self.swaps_left is not None else None
        self.start_play(self.declarer)  # type: ignore[arg-type]
        super()._apply_play(event)

    # ---------------------------------------------------------------- scoring

    def score_hand(self) -> tuple[list[int], list[int]]:
        """RULINGS.md, score: the declarer's side needs 6 + bid books (kitty included). Renege penalty
        (``renege_penalty``): per established renege the offending side hands ``renege_books`` books (all it
        has, if fewer) to the other side, or ("hand") the other side is credited with all 13 books."""
        books = list(self.taken)
        for r in self.reneges:
            off = self.side_of(r.seat)
            if self.options["renege_penalty"] == "hand":
                books[off], books[1 - off] = 0, 13
                break
            moved = min(self.options["renege_books"], books[off])
            books[off] -= moved
            books[1 - off] += moved
        assert self.declarer is not None
        d = self.side_of(self.declarer)
        bid = self.bid_number
        score = [0, 0]
        if books[d] >= 6 + bid:
            score[d] = bid if self.options["score"] == "bid_only" else books[d] - 6
        else:
            score[d] = -bid
            if books[1 - d] >= 7:
                score[1 - d] = books[1 - d] - 6
        mult = 1
        if self.trump is None:
            mult *= self.options["nt_multiplier"]
        if 13 in books:
            mult *= self.options["boston_multiplier"]
        return [s * mult for s in score], books

    def match_winner(self, totals: list[int]) -> int | None:
        """RULINGS.md, game: a team at +target or more wins; a team at -target or less loses."""
        target = self.options["target"]
        for side in (0, 1):
            if totals[side] >= target:
                return side
        for side in (0, 1):
            if totals[side] <= -target:
                return 1 - side
        return None


@functools.cache
def _tables(trump: int | None, low: bool) -> tuple[list[int], list[int], list[int]]:
    """RULINGS.md, card order: plain suits high A K..2, low A 2..K; jokers are the two highest trumps
    (and belong to the trump suit); at no trump a joker belongs to no suit and never wins.
    Returns (the suit each card follows as, each card's power in a trick, each suit's cards)."""
    eff, power = [], []
    for c in range(54):
        if c in (BJ, LJ):
            if trump is None:
                eff.append(NO_SUIT)
                power.append(-1)
            else:
                eff.append(trump)
                power.append(100 + (15 if c == BJ else 14))
            continue
        r, s = rank_of(c), suit_of(c)
        value = (13 if r == RA else 12 - r) if low else r
        eff.append(s)
        power.append(value + (100 if s == trump else 0))
    masks = [SUIT_MASKS[s] for s in range(4)] + [(1 << BJ) | (1 << LJ)]
    if trump is not None:
        masks[trump] |= masks[NO_SUIT]
        masks[NO_SUIT] = 0
    return eff, power, masks
