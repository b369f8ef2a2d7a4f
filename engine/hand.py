"""One hand (deal) of a trick-taking game: the core type every game subclasses.

The interface is the same for every game (as OpenSpiel's): ``current_player()``, ``legal_events()``,
``apply(event)``, ``is_terminal()``, ``result()``; plus ``public_view()`` and ``full_view()``, so hidden
information is separated by construction. Events are the table record's (CONVENTIONS.md) as dicts;
the fast path for simulations is ``legal_plays()`` / ``play(seat, card)`` with int cards.

A referee must accept what the table did, not only what it should have done: a renege or a play out of
turn is recorded and judged, not refused. Only what cannot have happened (a card dealt twice, a play of a
card the seat is known not to hold, an event of the wrong phase) raises ``IllegalEvent``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from engine.cards import BJ, CODES, LJ, NO_SUIT, SUITS, card, codes_of, lowest
from engine.errors import IllegalEvent
from engine.knowledge import Knowledge, KnowledgeError

SEAT_NAMES: Final = ["seat 0", "seat 1", "seat 2", "seat 3", "seat 4"]
CHANCE: Final = -1  # the deal is the table's (or the dealing machine's) move
TERMINAL: Final = -4

# Phases shared by all games; games add their own between DECLARE and PLAY. Final: a compiled build inlines
# them rather than looking each one up by name on every call.
DEAL: Final = "deal"
BID: Final = "bid"
DECLARE: Final = "declare"
PLAY: Final = "play"
DONE: Final = "done"

# Where an event's cards came from (its ``source``): a sensor's read may be wrong; what the table entered is not.
SENSORS: Final = ("camera", "dealer")
# ``Renege.rests_on`` entry for "every read of the hand" (a proof from the cards accounted for at the end).
ALL_READS: Final = -1
# The events that show cards face up, taking them out of play (a Bid Whist discard is face down: its cards, when
# read, were read by the table, and only its own game knows; a face-down card shown nowhere is no sighting).
FACE_UP: Final = ("play", "discard", "burn", "joker_swap")


# Bids and declarations on offer, by ``Hand._offer_key()``: a few hundred entries at most.
_OFFERS: Final[dict[tuple[Any, ...], list[dict[str, Any]]]] = {}

# Every (seat, card) entry of ``Trick.cards``, made once: tuples cannot change, so tricks share them and a play
# allocates nothing for its entry. Typed Any so that a compiled build keeps the tuple as it is (a typed pair
# would be unpacked and packed again, into a new tuple).
_PLAYED: Final[tuple[Any, ...]] = tuple((s, c) for s in range(5) for c in range(54))
# The tables of a hand not yet declared, and the seats of a trick not yet finished: never written, replaced.
_NO_TABLE: Final[list[int]] = []
_NO_SEATS: Final[list[int]] = []
_SEATS: Final = [0, 1, 2, 3, 4]
_SUIT_INDEX: Final = {s: i for i, s in enumerate(SUITS)}


# ---- saving and restoring a hand's state around an event that may be refused (Hand.apply)

_STATE_NAMES: Final[dict[type, tuple[str, ...]]] = {}
_NOT_STATE: Final = frozenset(("options", "events", "__dict__", "__weakref__"))


def _contents(value: Any) -> Any:
    """What is inside a mutable value, copied (one level: the tricks, calls and irregularities in a list are
    not changed by a refused event, only which of them the list holds). None for a value that cannot change."""
    if value is None or isinstance(value, int) or isinstance(value, str):  # most attributes: asked first
        return None
    if isinstance(value, list):
        return value.copy()
    if isinstance(value, dict):
        return value.copy()
    if isinstance(value, set):
        return value.copy()
    if isinstance(value, Knowledge):
        lists = (value.possible, value.certain, value.count)
        return lists, tuple(x.copy() for x in lists), value.exact
    if isinstance(value, Trick):
        return (value.leader, value.cards, value.cards.copy(), value.played, value.led, value.active)
    return None


def _put_back(value: Any, inside: Any) -> None:
    """Undo any change to ``value`` since ``_contents(value)`` returned ``inside``."""
    if inside is None:
        return
    if isinstance(value, list):
        value[:] = inside
    elif isinstance(value, (dict, set)):
        value.clear()
        value.update(inside)
    elif isinstance(value, Knowledge):
        lists, were, value.exact = inside
        for x, was in zip(lists, were, strict=True):
            x[:] = was
        value.possible, value.certain, value.count = lists
    elif isinstance(value, Trick):
        value.leader, cards, cards_were, value.played, value.led, value.active = inside
        cards[:] = cards_were
        value.cards = cards


def _made(r: Renege) -> int:
    return r.order


@dataclass
class Renege:
    """A failure to follow (or, in Pitch, a hold-out), with the proof if there is one."""

    seat: int
    trick: int
    card: int | None  # the card played instead (None: a Pitch hold-out, where no card was played)
    led: int  # the suit that should have been followed
    proof: int | None = None  # a card the seat certainly held of the led suit at that moment
    established: bool = False
    kind: str = "renege"
    # When the renege was made, in the order of play (RULINGS.md, "Several reneges in one hand": penalties apply in
    # the order the reneges were made, never by seat number): trick * 64 + the card's place in the trick * 8 + the
    # call's place among the calls made at that card (a seat passed over before the card that passed it).
    order: int = 0
    # The events of the hand (indices into ``Hand.events``) the call rests on: the play that failed and the event
    # that showed the proof (the deal, a later play; ALL_READS: the accounting at the end). A call resting on a
    # sensor's read is held until the hand's cards are all accounted for (``Hand.settle_reads``).
    rests_on: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seat": self.seat,
            "trick": self.trick,
            "card": None if self.card is None else CODES[self.card],
            "led": SUITS[self.led] if self.led < 4 else None,
            "proof": None if self.proof is None else CODES[self.proof],
        }
        if self.kind != "renege":
            out["kind"] = self.kind
        return out


class Trick:
    """One trick: the cards in the order played, the seats that have played (a bitmask), the suit to follow."""

    __slots__ = ("leader", "cards", "played", "led", "active")

    def __init__(self, leader: int, led: int = -1) -> None:
        self.leader = leader
        self.cards: list[tuple[int, int]] = []  # (seat, card) in the order played
        self.played = 0  # bit s set: seat s has played to this trick
        self.led = led  # the suit to follow; -1 until set (a joker led at no trump sets none)
        # The seats that played to it, as they stood when it was finished (set then: until then one shared
        # empty list, never written; finishing the trick replaces it).
        self.active: list[int] = _NO_SEATS

    def seats(self) -> list[int]:
        return [s for s, _ in self.cards]


class Hand:
    """One deal of one game, from the deal to the score. Subclasses give the game's rules."""

    game: ClassVar[str] = ""
    # The record's event names and the methods that apply them; games add their own.
    EVENTS: ClassVar[dict[str, str]] = {
        "deal": "_apply_deal",
        "bid": "_apply_bid",
        "declare": "_apply_declare",
        "play": "_apply_play",
        "retract": "_apply_retract",
        "conflict": "_apply_conflict",
    }
    # Events whose methods check everything before they change anything, so that a refusal leaves the hand as
    # it was without the copy ``apply`` makes of the state for the others (the refused-event property test holds
    # each game to this list).
    CHECKED_FIRST: ClassVar[frozenset[str]] = frozenset()
    n_players: int = 4
    deck_mask: ClassVar[int] = 0

    def __init__(self, options: dict[str, Any], dealer: int, number: int = 1) -> None:
        self.options = options
        self.dealer = dealer
        self.number = number
        self.phase = DEAL
        self.bids: list[tuple[int, str]] = []
        self.declarer: int | None = None
        self.contract: str | None = None
        self.trump: int | None = None  # suit index, or None at no trump
        self.direction: str | None = None
        self.knowledge: Knowledge | None = None
        self.tricks: list[Trick] = []
        self.trick: Trick | None = None
        self.active: list[int] = _SEATS[: self.n_players]  # seats that play to tricks
        self.first_joker: int | None = None  # with jokers alike, the joker that ranks high (the first played)
        self.turn = 0  # the seat on turn in the current trick (kept up to date by play)
        self.taken = [0, 0]  # tricks (or books) per side as played, before penalties
        self.reneges: list[Renege] = []
        self.suspicions: list[Renege] = []
        self.irregularities: list[dict[str, Any]] = []
        # Reads found at fault (indices into ``events``), and the calls held for the director at the end of the
        # hand because they rest on a sensor's read that the hand's cards could not confirm.
        self.faulty: list[int] = []
        self.held: list[Renege] = []
        self.score: list[int] | None = None
        self.final_taken: list[int] | None = None
        self.events: list[dict[str, Any]] = []
        # Per-declaration tables: the suit a card follows as, and its power in a trick.
        self.eff: list[int] = _NO_TABLE
        self.power: list[int] = _NO_TABLE
        self.suit_masks: list[int] = [0, 0, 0, 0, 0]

    # ---------------------------------------------------------------- the common interface

    def current_player(self) -> int:
        """The seat to act, CHANCE for the deal, TERMINAL when the hand is over."""
        if self.phase == DONE:
            return TERMINAL
        if self.phase == DEAL:
            return CHANCE
        return self._to_act()

    def is_terminal(self) -> bool:
        return self.phase == DONE

    def legal_events(self) -> list[dict[str, Any]]:
        """Every legal event now, in record form (the deal is the table's: see ``random_deal``).

        The bids and declarations on offer depend on a few values only, so they are built once and shared:
        treat the returned events as read-only (copy one before changing it)."""
        if self.phase in (DEAL, DONE):
            return []
        if self.phase == PLAY:
            seat = self._to_act()
            return [{"event": "play", "seat": seat, "card": CODES[c]} for c in self.legal_plays()]
        if self.phase == BID or self.phase == DECLARE:
            key = self._offer_key()
            offers = _OFFERS.get(key)
            if offers is None:
                offers = _OFFERS[key] = self._legal_setup_events()
            return list(offers)
        return self._legal_setup_events()

    def _offer_key(self) -> tuple[Any, ...]:
        """Everything the bids or declarations on offer depend on (the game, the phase, the seat, the standing
        bid, the options that change the ladder)."""
        return (self.game, self.phase, self._to_act(), tuple(self.bids))

    def apply(self, event: dict[str, Any]) -> None:
        """Apply one record event; raises IllegalEvent (naming the reason) if it cannot have happened.

        A refused event changes nothing (CONVENTIONS.md: it cannot have happened). A play in the play phase checks
        everything before it changes anything, so it goes straight through: the hot path pays for no copy; so do
        the game's ``CHECKED_FIRST`` events. Every other event (the deal, bids, declarations, the setup steps, a
        first play that also ends the setup) is rare, and many change several things before they can be refused,
        so the hand's state is saved first and put back on a refusal."""
        if not isinstance(event, dict):
            raise IllegalEvent(f"an event is a JSON object, not {type(event).__name__}")
        kind = event.get("event")
        # The event is in ``events`` while it is applied (a call it makes rests on it: ``Renege.rests_on``), and
        # taken out again if it is refused.
        self.events.append(event)
        if (kind == "play" and self.phase == PLAY) or kind in self.CHECKED_FIRST:
            try:
                self._dispatch(kind, event)
            except IllegalEvent:
                self.events.pop()
                raise
        else:
            saved = self._snapshot()
            try:
                self._dispatch(kind, event)
            except IllegalEvent:
                self._restore(saved)
                self.events.pop()
                raise

    def _dispatch(self, kind: Any, event: dict[str, Any]) -> None:
        """Run the event's method; any refusal comes out as IllegalEvent."""
        try:
            # The common events are called directly (a compiled build calls them natively).
            if kind == "play":
                self._apply_play(event)
            elif kind == "bid":
                self._apply_bid(event)
            elif kind == "declare":
                self._apply_declare(event)
            else:
                name = self.EVENTS.get(kind) if isinstance(kind, str) else None
                if name is None:
                    raise IllegalEvent(f"unknown event {kind!r} for {self.game}")
                getattr(self, name)(event)
        except KnowledgeError as exc:
            raise IllegalEvent(str(exc)) from None
        except (KeyError, TypeError) as err:  # its own name: a compiled build types a name by its first use
            raise IllegalEvent(f"malformed {kind} event: {err}") from None

    def _snapshot(self) -> list[Any]:
        """The hand's state, to put back if the event is refused: the attribute names, then for each attribute
        its value (the object itself, so that lists shared between attributes stay shared) and a copy of what is
        inside it. Every attribute, so a new one is covered without a line here. The options and the event list
        never change on a refusal."""
        names = _STATE_NAMES.get(type(self))
        if names is None:
            # A compiled build lists a native class's attributes in __mypyc_attrs__; plain Python has vars()
            # (read each time: an attribute may be added after __init__).
            found: Any = getattr(type(self), "__mypyc_attrs__", None)
            if found is None:
                names = tuple(n for n in vars(self) if n not in _NOT_STATE)
            else:
                names = _STATE_NAMES[type(self)] = tuple(n for n in found if n not in _NOT_STATE)
        out: list[Any] = [None] * (2 * len(names) + 1)
        out[0] = names
        i = 1
        for name in names:
            value = getattr(self, name)
            out[i] = value
            out[i + 1] = _contents(value)
            i += 2
        return out

    def _restore(self, saved: list[Any]) -> None:
        """Put back a ``_snapshot``: every attribute to the object it held, each object to what it held."""
        i = 1
        for name in saved[0]:
            value = saved[i]
            _put_back(value, saved[i + 1])
            setattr(self, name, value)
            i += 2

    # ---------------------------------------------------------------- views

    def side_of(self, seat: int) -> int:
        return seat % 2

    def public_view(self) -> dict[str, Any]:
        """What anyone at the table may see: no hand, no kitty, no pack, no face-down card."""
        return {
            "game": self.game,
            "number": self.number,
            "dealer": self.dealer,
            "phase": self.phase,
            "to_act": None if self.phase in (DEAL, DONE) else self._to_act(),
            "bids": [{"seat": s, "bid": b} for s, b in self.bids],
            "declarer": self.declarer,
            "contract": self.contract,
            "trump": None if self.trump is None else SUITS[self.trump],
            "direction": self.direction,
            "tricks": [self._trick_json(t) for t in self.tricks],
            "trick": None if self.trick is None else self._trick_json(self.trick),
            "taken": list(self.taken),
            "hand_sizes": None if self.knowledge is None else self.knowledge.count[: self.n_players],
            "reneges": [r.to_json() for r in self.reneges if r.established],
            "score": self.score,
        }

    def full_view(self) -> dict[str, Any]:
        """The director's view: everything known, including hidden cards and suspicions."""
        view = self.public_view()
        k = self.knowledge
        if k is not None:
            view["locations"] = {
                name: {"count": k.count[i], "certain": codes_of(k.certain[i]), "possible": codes_of(k.possible[i])}
                for i, name in enumerate(k.names)
            }
        view["reneges"] = [dict(r.to_json(), established=r.established) for r in self.reneges]
        view["suspicions"] = [r.to_json() for r in self.suspicions]
        view["irregularities"] = list(self.irregularities)
        return view

    def _trick_json(self, t: Trick) -> dict[str, Any]:
        return {"leader": t.leader, "cards": [{"seat": s, "card": CODES[c]} for s, c in t.cards]}

    # ---------------------------------------------------------------- the deal

    def location_names(self) -> list[str]:
        return SEAT_NAMES[: self.n_players]

    def deal_sizes(self) -> list[int]:
        """Cards per location at the deal (seats first, then kitty or pack)."""
        raise NotImplementedError

    def _apply_deal(self, event: dict[str, Any]) -> None:
        self._need(DEAL, "deal")
        if event.get("dealer", self.dealer) != self.dealer:
            raise IllegalEvent(f"the dealer is seat {self.dealer}, not {event.get('dealer')}")
        sizes = self.deal_sizes()
        hands = event.get("hands")
        extra_key = self.extra_key()
        assign: list[list[int | None]] = []
        if hands is None:
            assign = [[None] * n for n in sizes[: self.n_players]]
        else:
            if not isinstance(hands, list) or len(hands) != self.n_players:
                raise IllegalEvent(f"'hands' must list {self.n_players} hands")
            for seat, h in enumerate(hands):
                if h is None:
                    assign.append([None] * sizes[seat])
                    continue
                if len(h) != sizes[seat]:
                    raise IllegalEvent(f"seat {seat} was dealt {len(h)} cards; {self.game} deals {sizes[seat]}")
                assign.append([None if x is None else self._card(x) for x in h])
        if extra_key is not None:
            extra = event.get(extra_key)
            n = sizes[self.n_players]
            if extra is None:
                assign.append([None] * n)
            else:
                if len(extra) != n:
                    raise IllegalEvent(f"'{extra_key}' must have {n} cards, not {len(extra)}")
                assign.append([None if x is None else self._card(x) for x in extra])
        self.deal(assign)

    def deal(self, assign: list[list[int | None]]) -> None:
        """The deal with int cards (None where unknown): the seats' hands, then the kitty or pack if any."""
        if self.phase != DEAL:
            raise IllegalEvent(f"a deal event in the {self.phase} phase")
        names = self.location_names()
        assign = assign + [[] for _ in range(len(names) - len(assign))]
        self.knowledge = Knowledge(assign, self.deck_mask, names)
        self._after_deal(assign)
        self.phase = BID

    # Hooks of the core type that a game may override; each says when the match calls it.

    ends_on_next_deal: ClassVar[bool] = False
    """True when a deal that comes while this hand is still in play ends it (``stop_playing``) before it is dealt
    (Pitch: the players gathered the cards to deal again). False: such a deal is refused by ``apply``."""

    def stop_playing(self) -> None:
        """Hook for ``ends_on_next_deal``: every seat still in stops playing and the hand ends, scored."""
        raise IllegalEvent("a deal comes only after the hand is over")

    def extra_key(self) -> str | None:
        """The deal's key for cards not dealt to a seat (``kitty``, ``pack``, ``blind``)."""
        return None

    def _after_deal(self, assign: list[list[int | None]]) -> None:
        pass

    def _card(self, value: Any) -> int:
        try:
            c = card(value)
        except ValueError as exc:
            raise IllegalEvent(str(exc)) from None
        if not self.deck_mask >> c & 1:
            raise IllegalEvent(f"{CODES[c]} is not in the {self.game} deck")
        return c

    def _need(self, phase: str, what: str) -> None:
        if self.phase != phase:
            raise IllegalEvent(f"a {what} event in the {self.phase} phase")

    def _seat(self, event: dict[str, Any]) -> int:
        return self._check_seat(event["seat"])

    def _check_seat(self, seat: Any) -> int:
        if type(seat) is not int or not 0 <= seat < self.n_players:
            raise IllegalEvent(f"seat {seat!r} is not a seat (0..{self.n_players - 1})")
        return seat

    # ---------------------------------------------------------------- bidding (subclasses give the ladder)

    def _apply_bid(self, event: dict[str, Any]) -> None:
        self.bid(self._seat(event), event["bid"])

    def bid(self, seat: int, bid: Any) -> None:
        """A bid (or ``"pass"``) by ``seat``, in the record's spelling: the typed path of a ``bid`` event."""
        raise NotImplementedError

    def legal_bids(self) -> list[str]:
        """The bids the seat to act may make now (``"pass"`` included where allowed)."""
        if self.phase != BID:
            return []
        return [e["bid"] for e in self.legal_events()]

    def _apply_declare(self, event: dict[str, Any]) -> None:
        raise NotImplementedError

    def _declaration(self, event: dict[str, Any]) -> Any:
        """What every declaration checks first: its phase and that the declarer makes it. Returns the ``trump``
        given (a suit letter, or None for no trump)."""
        self._need(DECLARE, "declare")
        seat = self._seat(event)
        if seat != self.declarer:
            raise IllegalEvent(f"seat {seat} declares, but the declarer is seat {self.declarer}")
        return event.get("trump")

    @staticmethod
    def _trump_suit(trump: Any, context: str = "") -> int:
        """A declared trump suit (``S H D C``, any case) as a suit index."""
        if isinstance(trump, str):
            found = _SUIT_INDEX.get(trump)
            if found is not None:
                return found
        if not isinstance(trump, str) or trump.upper() not in SUITS:
            raise IllegalEvent(f"trump must be one of S H D C{context}, not {trump!r}")
        return SUITS.index(trump.upper())

    @staticmethod
    def _nt_direction(event: dict[str, Any]) -> str:
        """A no-trump declaration's direction."""
        direction = event.get("direction")
        if direction not in ("high", "low"):
            raise IllegalEvent("a no-trump declaration needs direction 'high' or 'low'")
        return str(direction)

    def _legal_setup_events(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _to_act(self) -> int:
        raise NotImplementedError

    # ---------------------------------------------------------------- trick play

    def _build_tables(self) -> None:
        """Each game's per-declaration tables (``eff``, ``power``, ``suit_masks``)."""
        raise NotImplementedError

    def start_play(self, leader: int) -> None:
        self.phase = PLAY
        self.trick = Trick(leader)
        self.turn = self.play_turn()

    def play_turn(self) -> int:
        """The seat whose turn it is in the current trick: the first active seat from the leader not yet played."""
        t = self.trick
        assert t is not None
        n = self.n_players
        played = t.played
        leader = t.leader
        best = leader
        gap = n
        for s in self.active:
            if not played >> s & 1:
                d = s - leader if s >= leader else s - leader + n
                if d < gap:
                    best, gap = s, d
        return best

    def legal_plays(self) -> list[int]:
        """Cards the seat on turn may legally play (its certain cards; all possible ones if unknown)."""
        k = self.knowledge
        t = self.trick
        assert t is not None and k is not None
        seat = self.turn
        hand = k.certain[seat] if k.exact else k.possible[seat]
        if t.led >= 0:
            follow = hand & self.suit_masks[t.led]
            if follow:
                hand = follow
        out = []
        while hand:
            low = hand & -hand
            out.append(low.bit_length() - 1)
            hand ^= low
        return out

    def _apply_play(self, event: dict[str, Any]) -> None:
        self._need(PLAY, "play")
        self.play(self._seat(event), self._card(event["card"]))

    def play(self, seat: int, c: int) -> None:
        """A card played to the current trick: checked against the hand, the turn and the suit led.

        This is the hot path of every simulation, so the common case (the seat on turn, hands known) costs a
        few bit operations; everything unusual goes to a method of its own."""
        t = self.trick
        if t is None or self.phase != PLAY:
            raise IllegalEvent(f"a play event in the {self.phase} phase")
        k = self.knowledge
        assert k is not None
        if c >= 52:
            c = self._resolve_joker(seat, c)
        if t.played >> seat & 1:
            raise IllegalEvent(f"seat {seat} has already played to trick {len(self.tricks) + 1}")
        bit = 1 << c
        if not k.possible[seat] & bit:
            if seat not in self.active:
                raise IllegalEvent(f"seat {seat} sits out this hand")
            raise IllegalEvent(f"seat {seat} cannot hold {CODES[c]}")
        if seat != self.turn:
            if seat not in self.active:
                raise IllegalEvent(f"seat {seat} sits out this hand")
            self._out_of_turn(seat, self.turn, c)
        elif t.led >= 0 and self.eff[c] != t.led:
            self._check_follow(seat, c, t.led)
        if self.suspicions:
            self._resolve_suspicions(seat, c)
        if k.exact:
            # Knowledge.leave, inlined: the common case of every simulation. While the knowledge is exact the
            # possible and certain lists are usually one list (see Knowledge), so one write updates both.
            certain = k.certain
            certain[seat] = certain[seat] ^ bit
            possible = k.possible
            if possible is not certain:
                possible[seat] = possible[seat] ^ bit
            count = k.count
            count[seat] = count[seat] - 1
        else:
            k.leave(seat, c)
        if self.reneges or self.suspicions:
            self._mark_established(seat)
        t.cards.append(_PLAYED[seat * 54 + c])
        t.played |= 1 << seat
        if t.led < 0 and self.eff[c] != NO_SUIT:
            t.led = self.eff[c]
        if len(t.cards) == len(self.active):
            self._finish_trick()
        elif seat == self.turn:
            # Every seat from the leader up to this one has played: the turn moves on to the first active seat
            # after this one (clockwise) that has not played.
            n = self.n_players
            played = t.played
            nxt = -1
            gap = n
            for s in self.active:
                if not played >> s & 1:
                    d = s - seat if s > seat else s - seat + n
                    if d < gap:
                        nxt, gap = s, d
            self.turn = nxt if nxt >= 0 else self.play_turn()

    def _resolve_joker(self, seat: int, c: int) -> int:
        """``jokers_distinct = false`` (RULINGS.md, Pitch; Bid Whist by the same rule): the two jokers cannot be
        told apart, so a joker played is whichever joker the seat may hold, and the first joker played in the
        hand ranks as the high one. A play that will be refused decides nothing."""
        if self.options.get("jokers_distinct", True):
            return c
        k = self.knowledge
        assert k is not None
        other = LJ if c == BJ else BJ
        if not k.possible[seat] >> c & 1 and k.possible[seat] >> other & 1:
            c = other
        t = self.trick
        if t is None or t.played >> seat & 1 or seat not in self.active or not k.possible[seat] >> c & 1:
            return c
        if self.first_joker is None:
            self.first_joker = c
            # "ranks as the high one": the stronger of the two in this hand's order (with Pitch's reverse the
            # Little Joker is the stronger: a first Big Joker then takes its place).
            if self.power[c] < self.power[LJ if c == BJ else BJ]:
                self.power[LJ], self.power[BJ] = self.power[BJ], self.power[LJ]
        return c

    def _rerank_jokers(self) -> None:
        """After a card is taken back: the high joker is again the first joker still played (none: the next)."""
        if self.first_joker is None:
            return
        played = [c for t in (*self.tricks, self.trick) if t is not None for _, c in t.cards]
        first = next((c for c in played if c in (BJ, LJ)), None)
        if first != self.first_joker:
            self._build_tables()  # the jokers as the table ranks them, then the first one played ranks high
            self.first_joker = first
            if first is not None:
                other = LJ if first == BJ else BJ
                if self.power[first] < self.power[other]:
                    self.power[LJ], self.power[BJ] = self.power[BJ], self.power[LJ]

    def _out_of_turn(self, seat: int, on_turn: int, c: int) -> None:
        """RULINGS.md, "Common to all games": a play out of turn is an irregularity, not a renege."""
        self.irregularities.append(
            {"kind": "out of turn", "seat": seat, "trick": len(self.tricks) + 1, "card": CODES[c], "turn": on_turn}
        )

    def _check_follow(self, seat: int, c: int, led: int) -> None:
        """RULINGS.md, "Common to all games": a renege is called only when proven; otherwise a suspicion."""
        if self.eff[c] == led:
            return
        k = self.knowledge
        assert k is not None
        mask = self.suit_masks[led]
        trick_no = len(self.tricks) + 1
        held = k.certain[seat] & mask
        if held:
            self.reneges.append(
                Renege(seat, trick_no, c, led, lowest(held), order=self._call_order(), rests_on=self._now(True))
            )
        elif k.possible[seat] & mask:
            self.suspicions.append(Renege(seat, trick_no, c, led, order=self._call_order(), rests_on=self._now()))

    def _now(self, from_knowledge: bool = False) -> list[int]:
        """``Renege.rests_on`` for a call made by the event being applied (the last in ``events``; the deal, the
        hand's first event, too when the proof comes from what the deal showed)."""
        now = len(self.events) - 1
        return [0, now] if from_knowledge else [now]

    def _call_order(self) -> int:
        """``Renege.order`` for a call made now, at the next card of the current trick (rare: only on a call)."""
        t = self.trick
        base = (len(self.tricks) + 1) * 64 + (0 if t is None else len(t.cards)) * 8
        same = sum(1 for r in self.reneges if base <= r.order < base + 8)
        same += sum(1 for r in self.suspicions if base <= r.order < base + 8)
        return base + min(same, 7)

    def _sort_calls(self) -> None:
        """RULINGS.md, "Several reneges in one hand": in the order the reneges were made (a suspicion proven later
        keeps its place), never by seat number."""
        self.reneges.sort(key=_made)

    def _resolve_suspicions(self, seat: int, c: int) -> None:
        """A later play of the led suit by the same seat proves it held that suit: cards never enter a hand
        during play, so the card was in the hand at the moment of the failure to follow."""
        if not self.suspicions:
            return
        keep = []
        for s in self.suspicions:
            if s.seat == seat and self.eff[c] == s.led:
                s.proof = c
                s.rests_on.append(len(self.events) - 1)  # the later play that shows the suit held
                self.reneges.append(s)
            else:
                keep.append(s)
        self.suspicions = keep

    def _prove_from_knowledge(self) -> None:
        """Suspicions that the knowledge now settles: the seat certainly still holds a card of the suit."""
        if not self.suspicions:
            return
        k = self.knowledge
        assert k is not None
        keep = []
        for s in self.suspicions:
            held = k.certain[s.seat] & self.suit_masks[s.led]
            if held:
                s.proof = lowest(held)
                s.rests_on.append(ALL_READS)
                self.reneges.append(s)
            elif k.possible[s.seat] & self.suit_masks[s.led]:
                keep.append(s)
            # else: the seat certainly held none of the suit at any later time, and has played every card
            # it had since: it was void. The suspicion is cleared.
        self.suspicions = keep
        self._sort_calls()

    def _mark_established(self, seat: int) -> None:
        """RULINGS.md, "Common to all games": a renege is established once the offender or the offender's
        partner plays to the next trick, or the hand ends."""
        trick_no = len(self.tricks) + 1
        side = self.side_of(seat)
        for r in self.reneges:
            if not r.established and r.trick < trick_no and self.side_of(r.seat) == side:
                r.established = True
        for r in self.suspicions:
            if not r.established and r.trick < trick_no and self.side_of(r.seat) == side:
                r.established = True

    def _apply_retract(self, event: dict[str, Any]) -> None:
        """RULINGS.md, "Common to all games" (``renege_correctable``): before a renege is established the
        director may let the player take the card back; the card returns to the hand, the call is dropped."""
        self._need(PLAY, "retract")
        seat = self._seat(event)
        if not self.options["renege_correctable"]:
            raise IllegalEvent("renege_correctable is false: a played card cannot be taken back")
        t = self.trick
        k = self.knowledge
        assert t is not None and k is not None
        if not t.cards and self.tricks and any(s == seat for s, _ in self.tricks[-1].cards):
            # The card completed its trick; nobody has played to the next one yet, so the renege is not
            # established: open the finished trick again (its winner no longer credited).
            last = self.tricks.pop()
            self._uncredit_trick(last, self.trick_winner(last))
            self.active = last.active
            self.trick = t = last
        mine = [i for i, (s, _) in enumerate(t.cards) if s == seat]
        if not mine:
            raise IllegalEvent(f"seat {seat} has no card in the current trick to take back")
        trick_no = len(self.tricks) + 1
        _, c = t.cards.pop(mine[0])
        t.played &= ~(1 << seat)
        self.turn = self.play_turn()
        k.count[seat] += 1
        k.possible[seat] |= 1 << c
        k.certain[seat] |= 1 << c
        t.led = next((self.eff[x] for _, x in t.cards if self.eff[x] != NO_SUIT), -1)
        self.reneges = [r for r in self.reneges if not (r.seat == seat and r.trick == trick_no)]
        self.suspicions = [r for r in self.suspicions if not (r.seat == seat and r.trick == trick_no)]
        self.irregularities.append({"kind": "card taken back", "seat": seat, "trick": trick_no, "card": CODES[c]})
        self._rerank_jokers()

    def rule(self, seat: int, trick: int, ruling: str) -> None:
        """The director's ruling on a call (RULINGS.md, "Common to all games": "A suspicion is shown to the director,
        never scored"; the director decides). ``"reject"``: a renege call (proven or suspected) is set aside and
        not scored, shown as an irregularity. ``"accept"``: a suspicion becomes a renege, scored like a proven one,
        its proof the director's ruling (``proof`` null, ``kind`` "director's ruling"). A finished hand is scored
        again."""
        if ruling not in ("accept", "reject"):
            raise IllegalEvent(f"ruling {ruling!r} must be 'accept' or 'reject'")
        proven = [r for r in self.reneges if (r.seat, r.trick) == (seat, trick)]
        suspected = [r for r in self.suspicions if (r.seat, r.trick) == (seat, trick)]
        held = [r for r in self.held if (r.seat, r.trick) == (seat, trick)]
        if held:
            # A proven call held because it rests on a sensor's read the hand's cards did not confirm: the
            # director's acceptance scores it, a rejection sets it aside.
            self.held = [r for r in self.held if r not in held]
            self.irregularities = [
                i
                for i in self.irregularities
                if i.get("kind") != "renege held for the director" or (i.get("seat"), i.get("trick")) != (seat, trick)
            ]
            if ruling == "accept":
                self.reneges += held
                self._sort_calls()
            else:
                for r in held:
                    self.irregularities.append(dict(r.to_json(), kind="renege rejected by the director"))
            if self.phase == DONE:
                self.score, self.final_taken = self.score_hand()
            return
        ended = [
            i
            for i in self.irregularities
            if i.get("kind") == "suspected renege" and (i.get("seat"), i.get("trick")) == (seat, trick)
        ]
        if not proven and not suspected and not ended:  # (held calls are ruled on above)
            raise IllegalEvent(f"no renege call or suspicion on seat {seat} at trick {trick} of hand {self.number}")
        if ruling == "reject":
            for r in proven + suspected:
                self.irregularities.append(dict(r.to_json(), kind="renege rejected by the director"))
            if ended and not (proven + suspected):
                self.irregularities.append(dict(ended[0], kind="renege rejected by the director"))
            self.reneges = [r for r in self.reneges if r not in proven]
            self.suspicions = [r for r in self.suspicions if r not in suspected]
            self.irregularities = [i for i in self.irregularities if not any(i is e for e in ended)]
        elif not proven:
            if suspected:
                call = suspected[0]
                self.suspicions = [r for r in self.suspicions if r is not call]
            else:
                j = ended[0]
                led = SUITS.index(j["led"]) if j.get("led") else NO_SUIT
                call = Renege(
                    seat,
                    trick,
                    None if j.get("card") is None else card(j["card"]),
                    led,
                    established=True,
                    order=trick * 64 + 63,  # its place in the trick is not kept: after the trick's other calls
                )
                self.irregularities = [i for i in self.irregularities if i is not j]
            call.kind = "director's ruling"
            self.reneges.append(call)
            self._sort_calls()
        if self.phase == DONE:
            self.score, self.final_taken = self.score_hand()

    def _finish_trick(self) -> None:
        t = self.trick
        assert t is not None
        winner = self.trick_winner(t)
        self._credit_trick(t, winner)
        t.active = self.active  # the games that change who plays mid-hand replace this list, never edit it
        self.tricks.append(t)
        if self._hand_over():
            self.trick = None
            self._end_hand()
        else:
            self.trick = Trick(self._next_leader(winner))
            self.turn = self.play_turn()

    def trick_winner(self, t: Trick) -> int:
        """The highest trump wins, or else the highest card of the suit led (RULINGS.md, each game's play)."""
        best_seat, best = t.cards[0][0], -1
        power, eff, led = self.power, self.eff, t.led
        trump = -1 if self.trump is None else self.trump
        for seat, c in t.cards:
            e = eff[c]
            if e == led or e == trump:
                p = power[c]
                if p > best:
                    best_seat, best = seat, p
        return best_seat

    def _credit_trick(self, t: Trick, winner: int) -> None:
        taken = self.taken
        side = self.side_of(winner)
        taken[side] = taken[side] + 1

    def _uncredit_trick(self, t: Trick, winner: int) -> None:
        """Undo ``_credit_trick`` (a finished trick opened again to take a card back)."""
        taken = self.taken
        side = self.side_of(winner)
        taken[side] = taken[side] - 1

    def _next_leader(self, winner: int) -> int:
        return winner

    def _hand_over(self) -> bool:
        k = self.knowledge
        assert k is not None
        count = k.count
        for s in self.active:
            if count[s]:
                return False
        return True

    def _end_hand(self) -> None:
        """The hand ends: every call is established, suspicions are settled as far as the cards allow."""
        self._prove_from_knowledge()
        if len(self.reneges) > 1:  # a suspicion proven later joins the list late: keep the order of play
            self._sort_calls()
        for r in self.reneges:
            r.established = True
        for r in self.suspicions:
            r.established = True
            self.irregularities.append(dict(r.to_json(), kind="suspected renege"))
        if self.reneges:
            self.settle_reads()
        self.score, self.final_taken = self.score_hand()
        self.phase = DONE

    # ---------------------------------------------------------------- sensor reads (docs/engine-api.md)

    def is_sensor(self, index: int) -> bool:
        """Whether event ``index`` of the hand came from a sensor (its ``source``: camera or dealing machine)."""
        if index == ALL_READS:
            return any(e.get("source") in SENSORS for e in self.events)
        return 0 <= index < len(self.events) and self.events[index].get("source") in SENSORS

    def rests_on_reads(self, r: Renege) -> list[int]:
        """The sensor reads a call rests on (indices into ``events``; every sensor read of the hand for a proof
        from the accounting at the end)."""
        out: list[int] = []
        for i in r.rests_on:
            if i == ALL_READS:
                out += [j for j, e in enumerate(self.events) if e.get("source") in SENSORS]
            elif self.is_sensor(i):
                out.append(i)
        return sorted(set(out))

    def accounted(self) -> bool:
        """The hand's cards are all accounted for: no read found at fault, and every card of the deck read where
        it was (dealt by a machine that read it, or seen face up: played, discarded, burned, drawn read). Only then
        are the reads confirmed by each other: a misread card is seen again where it really was."""
        if self.faulty:
            return False
        seen = 0
        for t in self.tricks:
            for _, c in t.cards:
                seen |= 1 << c
        for e in self.events:
            kind = e.get("event")
            if kind == "deal":
                for h in e.get("hands") or []:
                    for x in h or []:
                        seen |= self._bit(x)
                for key in ("kitty", "pack", "blind"):
                    for x in e.get(key) or []:
                        seen |= self._bit(x)
            elif kind == "play" or kind == "exchange":
                seen |= self._bit(e.get("card"))
            elif kind == "joker_swap":
                seen |= self._bit(e.get("joker")) | self._bit(e.get("drew"))
            elif kind in ("discard", "burn", "draw", "rob"):
                for x in e.get("cards") or []:
                    seen |= self._bit(x)
        return seen & self.deck_mask == self.deck_mask

    @staticmethod
    def _bit(x: Any) -> int:
        if x is None:
            return 0
        try:
            return 1 << card(x)
        except ValueError:
            return 0

    def settle_reads(self) -> None:
        """RULINGS.md, "Common to all games" (a renege is scored only when proven), with sensors that may misread:
        at the end of the hand a call resting on a camera's or dealing machine's read is scored only when the
        hand's cards are all accounted for (``accounted``); otherwise it is held for the director (an
        irregularity "renege held for the director", never scored unless the director accepts it). A call
        resting only on what the table entered is scored as before."""
        if self.accounted():
            return
        keep = []
        for r in self.reneges:
            reads = self.rests_on_reads(r)
            if reads and r.kind != "director's ruling":
                self.held.append(r)
                self.irregularities.append(dict(r.to_json(), kind="renege held for the director", reads=reads))
            else:
                keep.append(r)
        self.reneges = keep

    def _apply_conflict(self, event: dict[str, Any]) -> None:
        """A read that contradicts the record (``{"event": "conflict", "card", "seat", "source"}``): the card was
        already seen (played, or put down face up) or the seat cannot hold it, so one of the reads of that card is
        wrong. The reads at fault are the sensor reads that put the card where it is now believed to be (a read the
        table entered is trusted over a sensor's; if the conflicting read is the only sensor read, it is the one
        at fault and nothing else changes). Every call resting on a read at fault is withdrawn: an irregularity
        "renege withdrawn" naming the read. A conflict that no read explains any more (a correction fixed it) is
        kept and changes nothing."""
        c = self._card(event.get("card"))
        suspects = self.sensor_sightings(c)
        if not suspects:
            return
        self.faulty += [i for i in suspects if i not in self.faulty]
        what = {"kind": "misread", "card": CODES[c], "reads": suspects}
        if isinstance(event.get("seat"), int):
            what["seat"] = event["seat"]
        self.irregularities.append(what)
        for calls in (self.reneges, self.suspicions):
            gone = [r for r in calls if set(self.rests_on_reads(r)) & set(suspects)]
            for r in gone:
                calls.remove(r)
                self.irregularities.append(
                    dict(
                        r.to_json(),
                        kind="renege withdrawn",
                        call=r.kind,
                        reads=suspects,
                        why=f"a read of {CODES[c]} was wrong",
                    )
                )

    def sensor_sightings(self, c: int) -> list[int]:
        """The sensor reads (indices into ``events``) that showed card ``c`` face up, taking it out of play: a card
        is seen face up once in a hand, so a second sighting means one of the reads is wrong."""
        return [
            i
            for i, e in enumerate(self.events)
            if e.get("source") in SENSORS and e.get("event") in FACE_UP and self._shows(e, c)
        ]

    def _shows(self, e: dict[str, Any], c: int) -> bool:
        """Whether face-up event ``e`` shows card ``c`` (a play's card, a face-up discard's or burn's cards, a
        joker swapped out)."""
        m = self._bit(e.get("card")) | self._bit(e.get("joker"))
        if e.get("event") != "joker_swap":
            for x in e.get("cards") or []:
                m |= self._bit(x)
        return bool(m >> c & 1)

    def score_hand(self) -> tuple[list[int], list[int]]:
        """(the hand's score change per side, what each side took after penalties)."""
        raise NotImplementedError

    # ---------------------------------------------------------------- results

    def result(self) -> dict[str, Any]:
        """The hand in the replay result's form (CONVENTIONS.md, "Replay result")."""
        return {
            "number": self.number,
            "dealer": self.dealer,
            "declarer": self.declarer,
            "contract": self.contract,
            "trump": None if self.trump is None else SUITS[self.trump],
            "taken": self.final_taken if self.final_taken is not None else list(self.taken),
            "reneges": [r.to_json() for r in self.reneges],
            "irregularities": list(self.irregularities),
            "score": self.score,
        }

    def apply_to_totals(self, totals: list[int]) -> list[int]:
        """The match totals after this hand."""
        assert self.score is not None
        return [t + s for t, s in zip(totals, self.score, strict=True)]

    def match_winner(self, totals: list[int]) -> int | None:
        """The side (player, five-handed) that has won the match after this hand, or None."""
        raise NotImplementedError

    def proven_reneges_by_side(self) -> list[int]:
        out = [0, 0]
        for r in self.reneges:
            out[self.side_of(r.seat)] += 1
        return out
