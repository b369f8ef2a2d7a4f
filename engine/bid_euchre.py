"""Bid Euchre, 24 cards (RULINGS.md, "Bid Euchre"; source 001)."""

from __future__ import annotations

from typing import Any, ClassVar, Final

from engine.cards import (
    CODES,
    EUCHRE_DECK_MASK,
    RJ,
    SUIT_MASKS,
    SUITS,
    make,
    rank_of,
    same_colour_suit,
    suit_of,
)
from engine.hand import BID, DECLARE, PLAY, Hand, IllegalEvent

EXCHANGE: Final = "exchange"
LADDER: Final = ("3", "4", "5", "6", "single", "double")  # RULINGS.md: 3 < 4 < 5 < 6 < single < double
# After the first bid: pass, or any bid above the standing one (by the index of the next bid up).
_BIDS_ON_OFFER: Final = tuple(("pass",) + LADDER[i:] for i in range(len(LADDER) + 1))
# Each bid's place on the ladder, pass -1: one look-up for a bid in the usual spelling.
_RANK: Final[dict[str, int]] = {"pass": -1, **{b: i for i, b in enumerate(LADDER)}}


class BidEuchreHand(Hand):
    game = "bid_euchre"
    deck_mask = EUCHRE_DECK_MASK
    EVENTS: ClassVar[dict[str, str]] = {**Hand.EVENTS, **{"exchange": "_apply_exchange", "fold": "_apply_fold"}}
    # Each of these checks the whole event before it changes anything (Hand.apply needs no copy of the state).
    CHECKED_FIRST: ClassVar[frozenset[str]] = frozenset(("deal", "bid", "declare", "exchange", "fold"))

    def __init__(self, options: dict[str, Any], dealer: int, number: int = 1) -> None:
        super().__init__(options, dealer, number)
        self.high = -1  # index of the standing bid in LADDER
        self.exchanged: list[int] = []  # seats that have passed their exchange card
        self.folded: int | None = None
        self.leader: int | None = None

    def deal_sizes(self) -> list[int]:
        return [6, 6, 6, 6]

    @property
    def partner(self) -> int:
        assert self.declarer is not None
        return (self.declarer + 2) % 4

    def _to_act(self) -> int:
        if self.phase == BID:
            return (self.dealer + 1 + len(self.bids)) % 4
        if self.phase == PLAY:
            return self.play_turn()
        if self.phase == EXCHANGE and self.exchanged:
            return self.partner
        assert self.declarer is not None
        return self.declarer

    # ---------------------------------------------------------------- bidding

    def bid(self, seat: int, bid: Any) -> None:
        """RULINGS.md: one round from the dealer's left; that player is under the gun and must bid at least 3
        (no pass); each later player passes or bids higher on the ladder 3 < 4 < 5 < 6 < single < double."""
        self._need(BID, "bid")
        seat = self._check_seat(seat)
        if seat != self._to_act():
            raise IllegalEvent(f"seat {seat} bids out of turn: seat {self._to_act()} is to bid")
        rank = _RANK.get(bid, -2) if isinstance(bid, str) else -2  # the usual spelling needs no clean-up
        if rank == -2:
            text = str(bid).strip().lower()
            rank = _RANK.get(text, -2)
            if rank == -2:
                raise IllegalEvent(f"bid {text!r} is not a Bid Euchre bid ({', '.join(LADDER)} or pass)")
        text = LADDER[rank] if rank >= 0 else "pass"
        if rank < 0:
            if not self.bids:
                raise IllegalEvent("the player under the gun must bid at least 3")
            self.bids.append((seat, "pass"))
        else:
            if rank <= self.high:
                raise IllegalEvent(f"bid {text!r} does not beat the standing bid {LADDER[self.high]!r}")
            self.high = rank
            self.declarer, self.contract = seat, text
            self.bids.append((seat, text))
        if len(self.bids) == 4:
            self.phase = DECLARE

    def legal_bids(self) -> list[str]:
        if self.phase != BID:
            return []
        return list(_BIDS_ON_OFFER[self.high + 1] if self.bids else LADDER[self.high + 1 :])

    def _legal_setup_events(self) -> list[dict[str, Any]]:
        seat = self._to_act()
        if self.phase == BID:
            out = [{"event": "bid", "seat": seat, "bid": "pass"}] if self.bids else []
            return out + [{"event": "bid", "seat": seat, "bid": b} for b in LADDER[self.high + 1 :]]
        if self.phase == DECLARE:
            out = [{"event": "declare", "seat": seat, "trump": s} for s in SUITS]
            if self.contract in ("4", "5", "6"):
                out += [{"event": "declare", "seat": seat, "trump": None, "direction": d} for d in ("high", "low")]
            return out
        if self.phase == EXCHANGE:
            k = self.knowledge
            assert k is not None
            hand = k.certain[seat]
            return [{"event": "exchange", "seat": seat, "card": CODES[c]} for c in range(54) if hand >> c & 1] or [
                {"event": "exchange", "seat": seat, "card": None}
            ]
        return []

    def _offer_key(self) -> tuple[Any, ...]:
        return (self.game, self.phase, self._to_act(), self.high, len(self.bids) > 0, self.contract)

    def legal_events(self) -> list[dict[str, Any]]:
        out = super().legal_events()
        if self.fold_open():
            out.append({"event": "fold", "team": 1 - self.side_of(self.declarer)})  # type: ignore[arg-type]
        return out

    # ---------------------------------------------------------------- declaring, exchange, fold

    def _apply_declare(self, event: dict[str, Any]) -> None:
        """RULINGS.md: a trump suit, or with a bid of 4, 5 or 6 no-trump high or low; single and double name
        a trump suit."""
        trump = self._declaration(event)
        if trump is None:
            if self.contract not in ("4", "5", "6"):
                raise IllegalEvent(f"no trump needs a bid of 4, 5 or 6, not {self.contract!r}")
            self.direction = self._nt_direction(event)
        else:
            self.trump = self._trump_suit(trump)
        self._build_tables()
        if self.contract == "single":
            self.phase = EXCHANGE
        else:
            if self.contract == "double":
                self.active = [s for s in range(4) if s != self.partner]
            self._begin_play()

    def _build_tables(self) -> None:
        low = self.direction == "low"
        key = (4 if self.trump is None else self.trump) * 2 + low
        tables = _TABLES.get(key)
        if tables is None:
            tables = _TABLES[key] = _tables(self.trump, low)
        self.eff, self.power, self.suit_masks = tables

    def _apply_exchange(self, event: dict[str, Any]) -> None:
        """RULINGS.md, single: the declarer passes one card face down to the partner, who passes one back
        before looking at it; the partner then sits out."""
        self._need(EXCHANGE, "exchange")
        seat = self._seat(event)
        expected = self.partner if self.exchanged else self.declarer
        if seat != expected:
            raise IllegalEvent(f"seat {expected} passes the exchange card now, not seat {seat}")
        c = event.get("card")
        k = self.knowledge
        assert k is not None
        to = self.partner if seat == self.declarer else self.declarer
        assert to is not None
        k.move(seat, to, None if c is None else self._card(c))
        self.exchanged.append(seat)
        if len(self.exchanged) == 2:
            self.active = [s for s in range(4) if s != self.partner]
            self._begin_play()

    def _begin_play(self) -> None:
        """RULINGS.md, who leads: the declarer, except no-trump high (declarer's right) and low (left)."""
        assert self.declarer is not None
        if self.trump is None:
            leader = (self.declarer + (3 if self.direction == "high" else 1)) % 4
        else:
            leader = self.declarer
        self.start_play(leader)

    def fold_open(self) -> bool:
        """RULINGS.md, fold: after trump is named, in a trump hand, before play, the defenders may fold. A single's
        exchange is not play: the defenders may fold before it as well as after it."""
        if self.trump is None:
            return False
        if self.phase == EXCHANGE:
            return True
        return self.phase == PLAY and not self.tricks and not (self.trick and self.trick.cards)

    def _apply_fold(self, event: dict[str, Any]) -> None:
        if not self.fold_open():
            raise IllegalEvent("a fold is allowed only after trump is named in a trump hand, before the first card")
        team = event["team"]
        assert self.declarer is not None
        if team != 1 - self.side_of(self.declarer):
            raise IllegalEvent(f"only the defending side (team {1 - self.side_of(self.declarer)}) may fold")
        self.folded = team
        self.irregularities = list(self.irregularities)
        self.trick = None
        self._end_hand()

    # ---------------------------------------------------------------- scoring

    def score_hand(self) -> tuple[list[int], list[int]]:
        """RULINGS.md, score: 1 per trick; defenders with no trick lose 6; bidders short of the bid are set
        (-6, or -bid with ``set_penalty = "bid"``) and nothing else; single +-12, double +-24. Renege penalty
        (``renege_penalty``): the other side is credited with every trick, or scores ``renege_points`` more."""
        assert self.declarer is not None
        d = self.side_of(self.declarer)
        lone = self.contract in ("single", "double")
        value = 12 if self.contract == "single" else 24 if self.contract == "double" else 6
        score = [0, 0]
        if self.folded is not None:
            score[d] = value
            return score, [0, 0]
        tricks = list(self.taken)
        extra = [0, 0]
        if self.reneges:
            if self.options["renege_penalty"] == "all_tricks":
                off = self.side_of(self.reneges[0].seat)  # the first renege: every trick goes to the other side
                tricks[off], tricks[1 - off] = 0, 6
            else:
                for r in self.reneges:  # each established renege: the other side scores renege_points more
                    extra[1 - self.side_of(r.seat)] += self.options["renege_points"]
        need = 6 if lone else self.high + 3  # LADDER[high] is "3".."6" for the numbered bids
        if lone:
            if tricks[d] == 6:
                score[d], score[1 - d] = value, -value
            else:
                score[d], score[1 - d] = -value, tricks[1 - d]
        elif tricks[d] < need:
            score[d] = -6 if self.options["set_penalty"] == "six" else -need
            score[1 - d] = tricks[1 - d] if tricks[1 - d] else -6
        else:
            score[d] = tricks[d]
            score[1 - d] = tricks[1 - d] if tricks[1 - d] else -6
        return [score[0] + extra[0], score[1] + extra[1]], tricks

    def match_winner(self, totals: list[int]) -> int | None:
        """RULINGS.md, game: at the end of a hand, a side at target or more wins if the scores are not tied,
        the higher side; tied, play goes on."""
        if max(totals) >= self.options["target"] and totals[0] != totals[1]:
            return 0 if totals[0] > totals[1] else 1
        return None


# The tables of each declaration, by ``(trump or 4) * 2 + low``: made once, shared by every hand (never
# written: Bid Euchre has no jokers to re-rank).
_TABLES: dict[int, tuple[list[int], list[int], list[int]]] = {}


def _tables(trump: int | None, low: bool) -> tuple[list[int], list[int], list[int]]:
    """RULINGS.md: trump order right bower, left bower, A K Q T 9, the left bower a trump for every
    purpose; plain suits A K Q J T 9; no-trump low 9 T J Q K A.
    Returns (the suit each card follows as, each card's power in a trick, each suit's cards)."""
    eff, power = [0] * 54, [-1] * 54
    for c in range(52):
        if not EUCHRE_DECK_MASK >> c & 1:
            continue
        r, s = rank_of(c), suit_of(c)
        eff[c] = s
        power[c] = 12 - r if low else r
    masks = list(SUIT_MASKS) + [0]
    if trump is not None:
        right, left = make(RJ, trump), make(RJ, same_colour_suit(trump))
        for c in range(52):
            if EUCHRE_DECK_MASK >> c & 1 and eff[c] == trump:
                power[c] += 100
        power[right], power[left] = 121, 120
        eff[left] = trump
        masks[trump] |= 1 << left
        masks[same_colour_suit(trump)] &= ~(1 << left)
    return eff, power, [m & EUCHRE_DECK_MASK for m in masks]
