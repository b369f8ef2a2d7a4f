"""A match: hands dealt in turn until a side wins (RULINGS.md, "The deal passes to the left after each hand")."""

from __future__ import annotations

from typing import Any

from engine.cards import codes_of
from engine.hand import CHANCE, PLAY, TERMINAL, Hand, IllegalEvent
from engine.options import OptionError, validate


def hand_class(game: str) -> type[Hand]:
    import importlib

    module, name = GAMES[game]
    cls: type[Hand] = getattr(importlib.import_module(module), name)
    return cls


GAMES = {
    "bid_whist": ("engine.bid_whist", "BidWhistHand"),
    "bid_euchre": ("engine.bid_euchre", "BidEuchreHand"),
    "pitch": ("engine.pitch", "PitchHand"),
}


def deck_for(game: str) -> list[str]:
    """The codes of the deck ``game`` is played with (RULINGS.md: 54 cards, or Bid Euchre's 24 from the 9 up);
    the dealing machine is loaded with it. ValueError names an unknown game."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
    return codes_of(hand_class(game).deck_mask)


def deal_pattern(game: str, players: int = 4) -> tuple[int, ...]:
    """Cards per pocket of the dealing machine for ``game``'s deal: the game's own ``deal_sizes`` with pockets
    0..3 the seats and pocket 4 the kitty (or a fifth seat). A pack the game keeps back for later (Pitch's refill
    and rob) stays in the machine, to be dealt with ``deal_more`` / ``deal_rest``, so it takes no pocket."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
    try:
        options = validate(game, {"players": players} if players != 4 else None)
    except OptionError:
        raise ValueError(
            f"no deal pattern for {game!r} with {players} players (pitch takes 4 or 5, the others 4)") from None
    hand = hand_class(game)(options, 0, 1)
    sizes = hand.deal_sizes()
    seats = sizes[:players]
    kitty = sizes[players] if len(sizes) > players and hand.extra_key() == "kitty" else 0
    pockets = seats + [kitty] if players == 4 else seats
    return tuple(pockets)


class Match:
    """The match state: its hands, the running scores, the winner. Same interface as a hand."""

    def __init__(
        self,
        game: str,
        options: dict[str, Any] | None = None,
        players: list[str] | None = None,
        first_dealer: int = 0,
    ) -> None:
        self.game = game
        self.options = validate(game, options)
        self.hand_cls = hand_class(game)
        self.n_players = self.options.get("players", 4)
        self.players = players or [f"Player {i + 1}" for i in range(self.n_players)]
        if len(self.players) != self.n_players:
            raise IllegalEvent(f"{game} is played by {self.n_players} players, {len(self.players)} named")
        if type(first_dealer) is not int or not 0 <= first_dealer < self.n_players:
            raise IllegalEvent(f"first_dealer {first_dealer!r} is not a seat")
        self.first_dealer = first_dealer
        self.hands: list[Hand] = []
        n_sides = self.n_players if self.n_players == 5 else 2
        self.scores = [0] * n_sides
        self.winner: int | None = None
        self._new_hand(first_dealer)

    def _new_hand(self, dealer: int) -> None:
        self.hands.append(self.hand_cls(self.options, dealer, len(self.hands) + 1))

    @property
    def hand(self) -> Hand:
        return self.hands[-1]

    def current_player(self) -> int:
        return TERMINAL if self.winner is not None else self.hand.current_player()

    def is_terminal(self) -> bool:
        return self.winner is not None

    def is_chance(self) -> bool:
        return self.current_player() == CHANCE

    def legal_events(self) -> list[dict[str, Any]]:
        return [] if self.winner is not None else self.hand.legal_events()

    def apply(self, event: dict[str, Any]) -> None:
        if isinstance(event, dict) and event.get("event") == "ruling":
            self.rule(event.get("hand"), event.get("seat"), event.get("trick"), event.get("ruling"))
            return
        if isinstance(event, dict) and event.get("event") == "conflict" and event.get("hand") is not None:
            self.conflict(event)
            return
        if self.winner is not None:
            raise IllegalEvent(f"the match is over: side {self.winner} has won")
        hand = self.hand
        if isinstance(event, dict) and event.get("event") == "deal" and hand.phase == PLAY:
            if hand.ends_on_next_deal:
                # Pitch: the next deal while seats still hold cards (they were gathered to deal again): those
                # seats stopped playing (RULINGS.md, "holding out"); the hand ends and is scored first. A deal
                # that cannot have happened (wrong dealer, a card twice...) is refused before it ends anything.
                self.hand_cls(self.options, (hand.dealer + 1) % self.n_players, len(self.hands) + 1).apply(event)
                hand.stop_playing()
                self._hand_done(hand)
                # is_terminal(), not self.winner: the type checker still holds self.winner to None from the test
                # above, and a compiled build would check that (and fail) on reading it here.
                if self.is_terminal():
                    # That hand decided the match: the deal is accepted as its end (it is what ended it) and
                    # deals nothing. Refusing it would leave the live match over and its record (without the
                    # refused line) not over.
                    return
                hand = self.hand
        hand.apply(event)
        if hand.is_terminal():
            self._hand_done(hand)

    def play(self, seat: int, card: int) -> None:
        """The fast path of ``apply`` for a play (int card)."""
        hand = self.hand
        hand.play(seat, card)
        if hand.is_terminal():
            self._hand_done(hand)

    def rule(self, number: Any, seat: Any, trick: Any, ruling: Any) -> None:
        """The director's ruling on a call of hand ``number`` (record event ``{"event": "ruling", "hand", "seat",
        "trick", "ruling": "accept" | "reject"}``). A finished hand is scored again and the totals and the winner
        follow from the hands as now scored."""
        if type(number) is not int or not 1 <= number <= len(self.hands):
            raise IllegalEvent(f"there is no hand {number!r} in this match")
        if type(seat) is not int or type(trick) is not int:
            raise IllegalEvent("a ruling names the seat and the trick of the call (integers)")
        if ruling not in ("accept", "reject"):
            raise IllegalEvent(f"ruling {ruling!r} must be 'accept' or 'reject'")
        hand = self.hands[number - 1]
        hand.rule(seat, trick, ruling)
        if hand.is_terminal():
            self._rescore()

    def conflict(self, event: dict[str, Any]) -> None:
        """A read of a finished hand found contradicted (``{"event": "conflict", "hand": n, "card", ...}``: the card
        shows up again after that hand ended, docs/engine-api.md "Sensor reads"). The hand withdraws the calls
        resting on the read at fault and holds the others resting on sensor reads (its cards no longer add up);
        it is scored again and the totals and the winner follow, as after a ruling. Allowed after the match is
        over too: a match decided by a misread is not decided."""
        number = event.get("hand")
        if type(number) is not int or not 1 <= number <= len(self.hands):
            raise IllegalEvent(f"there is no hand {number!r} in this match")
        hand = self.hands[number - 1]
        hand.apply(event)
        if hand.is_terminal():
            hand.settle_reads()
            hand.score, hand.final_taken = hand.score_hand()
            self._rescore()

    def _rescore(self) -> None:
        """The totals and the winner from the finished hands as now scored."""
        totals = [0] * len(self.scores)
        winner = None
        finished = [h for h in self.hands if h.is_terminal()]
        for h in finished:
            totals = h.apply_to_totals(totals)
            winner = h.match_winner(totals)
        self.scores = totals
        if winner is not None and not self.hand.is_terminal() and self.hand.phase == "deal":
            self.hands.pop()  # the match is now decided: the next hand, not yet dealt, is not played
        elif winner is None and self.winner is not None:
            self._new_hand((finished[-1].dealer + 1) % self.n_players)  # no longer decided: play goes on
        self.winner = winner

    def _hand_done(self, hand: Hand) -> None:
        assert hand.score is not None
        self.scores = hand.apply_to_totals(self.scores)
        self.winner = hand.match_winner(self.scores)
        if self.winner is None:
            self._new_hand((hand.dealer + 1) % self.n_players)

    def result(self) -> dict[str, Any]:
        """The replay result (CONVENTIONS.md): the finished hands, the totals and the winner."""
        return {
            "game": self.game,
            "hands": [h.result() for h in self.hands if h.is_terminal()],
            "scores": list(self.scores),
            "winner": self.winner,
        }

    def public_view(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "scores": list(self.scores),
            "winner": self.winner,
            "hand": self.hand.public_view(),
        }

    def full_view(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "scores": list(self.scores),
            "winner": self.winner,
            "options": self.options,
            "hand": self.hand.full_view(),
        }
