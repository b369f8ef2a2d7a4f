"""Properties of random legal games of every game and variant (hypothesis draws the seeds).

The test keeps its own account of where every card really is (``Truth``), from the full record, so the engine's
knowledge, renege calls and public views are checked against the real deal and not against themselves. Which
cards follow which suit, and which are Pitch trumps and points, are written out again here from RULINGS.md.
"""

from __future__ import annotations

import json
import os
import random
import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.cards import BJ, CODES, LJ, R2, R3, RA, RJ, RT, card, make, same_colour_suit, suit_of
from engine.hand import PLAY, IllegalEvent
from engine.match import Match
from engine.record import dumps, match_header, replay
from engine.simulate import random_deal, random_event, random_events

CONFIGS = [
    ("bid_whist", {}),
    ("bid_whist", {"bid_order": "no>high=low"}),
    ("bid_whist", {"nt_jokers": "swap"}),
    ("bid_whist", {"nt_jokers": "dead"}),
    ("bid_whist", {"jokers_distinct": False}),
    ("bid_euchre", {}),
    ("bid_euchre", {"set_penalty": "bid"}),
    *[("pitch", {"points": p}) for p in (5, 7, 8, 10, 11, 13, 14, 15, 16)],
    ("pitch", {"reverse": True}),
    ("pitch", {"dirty": True}),
    ("pitch", {"players": 5}),
    ("pitch", {"jokers_distinct": False}),
    ("pitch", {"rob_to_partner": True}),
]
IDS = [g + "".join(f"-{k}={v}" for k, v in o.items()) for g, o in CONFIGS]
PITCH_CONFIGS = [c for c in CONFIGS if c[0] == "pitch"]
PITCH_IDS = [i for i, c in zip(IDS, CONFIGS, strict=True) if c[0] == "pitch"]
TRICK_CONFIGS = [c for c in CONFIGS if c[0] != "pitch"]
TRICK_IDS = [i for i, c in zip(IDS, CONFIGS, strict=True) if c[0] != "pitch"]

# Examples per configuration and property: 20 configurations, so about 200 games per property in a normal run.
# A longer search: CARDREF_PROPERTY_EXAMPLES=500 pytest tests/engine/test_properties.py
EXAMPLES = int(os.environ.get("CARDREF_PROPERTY_EXAMPLES", "10"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
seeds = st.integers(min_value=0, max_value=2**32 - 1)
pass_rates = st.sampled_from([None, 0.5, 0.85])  # None: uniform over legal events (contracts mostly high)
max_hands = st.integers(min_value=1, max_value=3)

# ------------------------------------------------------------------------------------------- rules, written again


def pitch_trumps(trump: int, points: int) -> set[int]:
    """RULINGS.md, Pitch: the trump suit, the off-jack, both jokers; 11/13 add the off-three, 14/15/16 every
    off-card of a point rank (A, T, 3, 2)."""
    off = same_colour_suit(trump)
    out = {make(r, trump) for r in range(13)} | {make(RJ, off), BJ, LJ}
    if points in (11, 13):
        out.add(make(R3, off))
    if points in (14, 15, 16):
        out |= {make(r, off) for r in (RA, RT, R3, R2)}
    return out


def pitch_values(trump: int, points: int) -> dict[int, int]:
    """RULINGS.md and the README's English text: A J off-J BJ LJ T 2 one each, the 3 three; the variants."""
    off = same_colour_suit(trump)
    v = {make(RA, trump): 1, make(RJ, trump): 1, make(RJ, off): 1, make(RT, trump): 1, make(R2, trump): 1}
    if points not in (5, 8, 11, 14):
        v[BJ] = v[LJ] = 1
    if points not in (5, 7):
        v[make(R3, trump)] = 3
    if points in (11, 13, 14, 15, 16):
        v[make(R3, off)] = 3
    if points in (14, 15, 16):
        v[make(RA, off)] = v[make(RT, off)] = 1
    if points in (14, 16):
        v[make(R2, off)] = 1
    assert sum(v.values()) == points
    return v


def suit_as_played(hand, c: int) -> int | None:
    """The suit a card follows as: Bid Whist jokers are trumps (no suit at no trump); the Bid Euchre left bower
    is a trump; a Pitch card is a trump or (non-trump) its printed suit."""
    trump = hand.trump
    if hand.game == "bid_whist":
        return trump if c in (BJ, LJ) else suit_of(c)
    if hand.game == "bid_euchre":
        if trump is not None and c == make(RJ, same_colour_suit(trump)):
            return trump
        return suit_of(c)
    return trump if c in pitch_trumps(trump, hand.options["points"]) else suit_of(c)


def led_suit(hand, cards: list[tuple[int, int]]) -> int | None:
    """The suit to follow: the first card that has one (a joker led at no trump sets none)."""
    if hand.game == "pitch":
        return hand.trump
    for _, c in cards:
        s = suit_as_played(hand, c)
        if s is not None:
            return s
    return None


def bits(m: int) -> set[int]:
    return {c for c in range(54) if m >> c & 1}


# ------------------------------------------------------------------------------------------- the real deal


class Truth:
    """Where each card really is, from the full record: seats, kitty, pack (in order), the face-down book."""

    def __init__(self) -> None:
        self.hands: list[set[int]] = []
        self.kitty: set[int] = set()
        self.pack: list[int] = []
        self.book: set[int] = set()
        self.seen: set[int] = set()  # played, discarded face up, burned, jokers swapped out
        self.shown: set[int] = set()  # Bid Whist: a kitty shown to all in a trump bid (kitty_shown_in_trumps)

    def hidden(self) -> set[int]:
        return set().union(*self.hands, self.kitty, self.pack, self.book) - self.shown

    def _leave(self, seat: int, c: int) -> None:
        assert c in self.hands[seat], f"seat {seat} does not hold {CODES[c]}"
        self.hands[seat].remove(c)

    def apply(self, hand, event: dict) -> None:
        """``hand``: the engine's hand the event applies to, before it is applied."""
        kind = event["event"]
        seat = event.get("seat")
        if kind == "deal":
            self.hands = [{card(x) for x in h} for h in event["hands"]]
            self.kitty = {card(x) for x in event.get("kitty") or []}
            self.pack = [card(x) for x in (event.get("pack") or event.get("blind") or [])]
            self.book, self.seen, self.shown = set(), set(), set()
        elif kind == "declare" and hand.game == "bid_whist":
            if event.get("trump") is not None and hand.options["kitty_shown_in_trumps"]:
                self.shown |= self.kitty
            self.hands[seat] |= self.kitty
            self.kitty = set()
        elif kind == "discard":
            for x in event["cards"]:
                c = card(x)
                self._leave(seat, c)
                (self.book if hand.game == "bid_whist" else self.seen).add(c)
        elif kind == "joker_swap":
            j, d = card(event["joker"]), card(event["drew"])
            self._leave(seat, j)
            self.seen.add(j)
            self.book.remove(d)
            self.hands[seat].add(d)
        elif kind == "exchange":
            c = card(event["card"])
            to = hand.partner if seat == hand.declarer else hand.declarer
            self._leave(seat, c)
            self.hands[to].add(c)
        elif kind in ("draw", "rob"):
            n = len(event["cards"])
            got, self.pack = self.pack[:n], self.pack[n:]
            assert [CODES[c] for c in got] == [CODES[card(x)] for x in event["cards"]]
            self.hands[seat] |= set(got)
        elif kind == "burn":
            for x in event["cards"]:
                self._leave(seat, card(x))
                self.seen.add(card(x))
        elif kind == "play":
            c = card(event["card"])
            if c not in self.hands[seat] and c in (BJ, LJ) and not hand.options.get("jokers_distinct", True):
                c = LJ if c == BJ else BJ
            self._leave(seat, c)
            self.seen.add(c)
        total = len(self.seen) + sum(len(h) for h in self.hands) + len(self.kitty) + len(self.pack) + len(self.book)
        assert total == hand.deck_mask.bit_count()


ALL_HIDDEN = (frozenset(range(5)), True, True)


def blank(game: str, event: dict, hide=ALL_HIDDEN) -> dict:
    """The same event as a table without a dealing machine records it: hidden cards as null. ``hide`` =
    (the seats whose dealt hands are not read, whether the kitty / pack / blind is not read, whether the
    face-down moves are not read: a Bid Whist discard, a joker swap's draw, an exchange, a Pitch draw or rob)."""
    seats, extra, facedown = hide
    e = dict(event)
    kind = e["event"]
    if kind == "deal":
        if len(seats) >= len(e["hands"]):
            e["hands"] = None
        elif seats:
            e["hands"] = [None if s in seats else h for s, h in enumerate(e["hands"])]
        for key in ("kitty", "pack", "blind"):
            if key in e and extra:
                e[key] = None
    elif not facedown:
        pass
    elif kind == "discard" and game == "bid_whist":
        e["cards"] = [None] * len(e["cards"])
    elif kind == "joker_swap":
        e["drew"] = None
    elif kind == "exchange":
        e["card"] = None
    elif kind in ("draw", "rob"):
        e["cards"] = [None] * len(e["cards"])
    return e


hides = st.tuples(st.frozensets(st.integers(min_value=0, max_value=4)), st.booleans(), st.booleans())


# ------------------------------------------------------------------------------------------- checks


def check_knowledge(hand, truth: Truth, known: bool) -> None:
    """Cards are conserved: the knowledge's locations plus the cards seen hold every card of the deck once,
    and the knowledge is sound (each real card is possible where it is; certain cards are really there)."""
    k = hand.knowledge
    if k is None:
        return
    deck = hand.deck_mask
    seen = 0
    for c in truth.seen:
        seen |= 1 << c
    union = 0
    certain_union = 0
    for loc in range(len(k.names)):
        p, c, n = k.possible[loc], k.certain[loc], k.count[loc]
        assert c & ~p == 0, f"{k.names[loc]}: certain cards that are not possible"
        assert certain_union & c == 0, f"{k.names[loc]}: a card certain in two places"
        certain_union |= c
        assert c.bit_count() <= n <= p.bit_count(), f"{k.names[loc]}: {n} cards, {c.bit_count()}..{p.bit_count()}"
        union |= p
    assert union & seen == 0, "a card seen is still possible in a location"
    assert union | seen == deck, "a card of the deck is nowhere"
    assert sum(k.count) + len(truth.seen) == deck.bit_count()
    real = {f"seat {s}": h for s, h in enumerate(truth.hands)}
    real.update({"kitty": truth.kitty, "discard book": truth.book, "pack": set(truth.pack), "unread discards": set()})
    for loc, name in enumerate(k.names):
        there = real[name]
        m = 0
        for c in there:
            m |= 1 << c
        assert k.count[loc] == len(there), f"{name}: counted {k.count[loc]}, really {len(there)}"
        assert m & ~k.possible[loc] == 0, f"{name}: really holds {[CODES[c] for c in there]} not all possible"
        assert k.certain[loc] & ~m == 0, f"{name}: certain of cards it does not hold"
        if known:
            assert k.certain[loc] == m == k.possible[loc], f"{name}: the hands are known, so is {name}"


def check_tricks(hand, starts: dict, legal: bool) -> None:
    """One card per active seat in every trick (Pitch: per seat still holding cards)."""
    for i, t in enumerate(hand.tricks, start=1):
        seats = [s for s, _ in t.cards]
        assert len(seats) == len(set(seats)), f"trick {i}: a seat played twice"
        if hand.game == "pitch":
            expected = {s for s, h in enumerate(starts[(hand.number, i)]) if h}
        elif hand.game == "bid_euchre" and hand.contract in ("single", "double"):
            expected = {s for s in range(4) if s != hand.partner}
        else:
            expected = set(range(4))
        if legal:
            assert set(seats) == expected, f"trick {i}: seats {sorted(seats)}, active {sorted(expected)}"
            # and every card follows suit when the seat could (the rules written again, on the real hands)
            for j, (seat, c) in enumerate(t.cards):
                led = led_suit(hand, t.cards[:j])
                held = starts[(hand.number, i)][seat]
                if led is not None and any(suit_as_played(hand, x) == led for x in held):
                    assert suit_as_played(hand, c) == led, f"trick {i}: seat {seat} played {CODES[c]}, held {held}"
        else:
            assert set(seats) <= expected


CARD_TEXT = re.compile(r'"((?:10|[2-9TJQKA])[SHDC]|[BL]J)"', re.IGNORECASE)


def card_strings(text: str) -> set[int]:
    """Every card code written as a JSON string (a key or a value) in a JSON text, in any accepted form."""
    return {card(m) for m in CARD_TEXT.findall(text)}


def check_public(match: Match, hand, truth: Truth) -> None:
    """A public view never shows a card that is in a seat's hand, the kitty, the pack or face down."""
    hidden = truth.hidden()
    views = [match.public_view()] if hand is match.hand else [match.public_view(), hand.public_view()]
    for view in views:
        shown = card_strings(json.dumps(view))
        leak = shown & hidden
        assert not leak, f"public view shows hidden {[CODES[c] for c in leak]}: {view}"


def check_renege_real(hand, r, starts: dict) -> None:
    """A renege call is real: its proof is a card of the suit led that the seat really held then (Pitch: a trump
    really held when skipped; a non-trump played really is one)."""
    assert r.proof is not None, f"renege without proof: {r}"
    held = starts[(hand.number, r.trick)][r.seat]
    trick = hand.tricks[r.trick - 1] if r.trick <= len(hand.tricks) else hand.trick
    led = led_suit(hand, trick.cards)
    assert r.led == led, f"{r}: the suit led was {led}"
    if r.kind == "non-trump played":
        assert r.card is not None and suit_as_played(hand, r.card) != hand.trump, f"{r}: played a trump"
        assert r.proof == r.card or (r.proof in held and suit_as_played(hand, r.proof) == hand.trump), r
    elif r.kind == "holding out":
        assert r.card is None
        assert r.proof in held and suit_as_played(hand, r.proof) == hand.trump, f"{r}: held {held}"
        assert r.seat not in {s for s, _ in trick.cards}, f"{r}: the seat did play to that trick"
    else:
        assert r.kind == "renege"
        assert r.card is not None and suit_as_played(hand, r.card) != led, f"{r}: the card follows suit"
        assert (r.seat, r.card) in trick.cards
        assert r.proof in held, f"{r}: seat {r.seat} did not hold {CODES[r.proof]} (held {sorted(held)})"
        assert suit_as_played(hand, r.proof) == led, f"{r}: the proof is not of the suit led"


class Run:
    """The events replayed through a fresh match, step by step, with the real deal kept beside it."""

    def __init__(self, config, events: list[dict], blanked=False, each_step=None) -> None:
        """``blanked``: False (every card read), True (nothing hidden is read) or a ``hide`` of ``blank``."""
        game, options = config
        self.match = Match(game, options)
        self.truth = Truth()
        self.starts: dict[tuple[int, int], list[set[int]]] = {}  # (hand, trick) -> the real hands at its start
        self.hands = []
        for event in events:
            hand = self.match.hand
            if event["event"] == "play":
                key = (hand.number, len(hand.tricks) + 1)
                self.starts.setdefault(key, [set(h) for h in self.truth.hands])
            self.truth.apply(hand, event)
            if blanked:
                event = blank(game, event, ALL_HIDDEN if blanked is True else blanked)
            self.match.apply(event)
            if not self.hands or self.hands[-1] is not hand:
                self.hands.append(hand)
            if each_step is not None:
                each_step(self, hand)


def legal_game(config, seed: int, pass_rate, n_hands: int) -> list[dict]:
    game, options = config
    return random_events(Match(game, options), random.Random(seed), max_hands=n_hands, pass_rate=pass_rate)


# ------------------------------------------------------------------------------------------- legal games


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@SETTINGS
@given(seed=seeds, pass_rate=pass_rates, n_hands=max_hands)
def test_cards_are_conserved(config, seed, pass_rate, n_hands):
    events = legal_game(config, seed, pass_rate, n_hands)

    def step(run, hand):
        check_knowledge(hand, run.truth, known=True)
        check_tricks(hand, run.starts, legal=True)

    run = Run(config, events, each_step=step)
    assert run.hands and all(h.is_terminal() for h in run.hands)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@SETTINGS
@given(seed=seeds, pass_rate=pass_rates, n_hands=max_hands, hide=hides)
def test_cards_are_conserved_with_hands_unknown(config, seed, pass_rate, n_hands, hide):
    """Nothing hidden read, and some hands read (the knowledge then deduces the others as far as it soundly can)."""
    events = legal_game(config, seed, pass_rate, n_hands)

    def step(run, hand):
        check_knowledge(hand, run.truth, known=False)
        check_tricks(hand, run.starts, legal=True)

    Run(config, events, blanked=True, each_step=step)
    Run(config, events, blanked=hide, each_step=step)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@SETTINGS
@given(seed=seeds, pass_rate=pass_rates, n_hands=max_hands, hide=hides)
def test_a_legal_game_has_no_renege_and_no_suspicion(config, seed, pass_rate, n_hands, hide):
    events = legal_game(config, seed, pass_rate, n_hands)
    for blanked in (False, True, hide):
        run = Run(config, events, blanked=blanked)
        for hand in run.hands:
            assert hand.reneges == [], f"blanked={blanked}: {hand.reneges}"
            assert hand.suspicions == [], f"blanked={blanked}: {hand.suspicions}"
            if blanked:
                kinds = {i["kind"] for i in hand.irregularities}
                assert "suspected renege" not in kinds and "out of turn" not in kinds, hand.irregularities
            else:
                assert hand.irregularities == [], hand.irregularities


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@SETTINGS
@given(seed=seeds, pass_rate=pass_rates, n_hands=max_hands)
def test_hidden_hands_change_no_score_of_a_legal_game(config, seed, pass_rate, n_hands):
    events = legal_game(config, seed, pass_rate, n_hands)
    known = Run(config, events).match
    unknown = Run(config, events, blanked=True).match
    assert unknown.scores == known.scores
    assert unknown.winner == known.winner
    for a, b in zip(known.hands, unknown.hands, strict=True):
        assert (a.score, a.final_taken, a.declarer, a.contract) == (b.score, b.final_taken, b.declarer, b.contract)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@SETTINGS
@given(seed=seeds, pass_rate=pass_rates, n_hands=max_hands)
def test_a_record_replays_to_the_same_result(config, seed, pass_rate, n_hands):
    game, options = config
    match = Match(game, options)
    events = random_events(match, random.Random(seed), max_hands=n_hands, pass_rate=pass_rate)
    text = dumps([match_header(match), *events])
    again = replay(text.splitlines())
    assert again.result() == match.result()
    assert json.dumps(again.result()) == json.dumps(match.result())
    # and once more from a fresh match fed the parsed record (nothing shared with the first run)
    assert replay(dumps([match_header(again), *events]).splitlines()).result() == match.result()


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@SETTINGS
@given(seed=seeds, pass_rate=pass_rates, n_hands=max_hands)
def test_public_views_never_show_a_hidden_card(config, seed, pass_rate, n_hands):
    events = legal_game(config, seed, pass_rate, n_hands)
    for blanked in (False, True):
        Run(config, events, blanked=blanked, each_step=lambda run, hand: check_public(run.match, hand, run.truth))


@pytest.mark.parametrize("config", PITCH_CONFIGS, ids=PITCH_IDS)
@SETTINGS
@given(seed=seeds, pass_rate=pass_rates, n_hands=max_hands)
def test_pitch_points_are_conserved(config, seed, pass_rate, n_hands):
    """Every point of the variant is taken by someone, or was burned or thrown away (out of play)."""
    events = legal_game(config, seed, pass_rate, n_hands)
    run = Run(config, events)
    for hand in run.hands:
        values = pitch_values(hand.trump, hand.options["points"])
        played = {c for t in hand.tricks for _, c in t.cards}
        hand_events = [e for e in hand.events if e["event"] in ("burn", "discard")]
        out_of_play = {card(x) for e in hand_events for x in e["cards"]}
        assert not played & out_of_play
        lost = sum(values.get(c, 0) for c in out_of_play)
        assert sum(hand.points_by_seat) + lost == hand.options["points"], (hand.points_by_seat, lost)


# ------------------------------------------------------------------------------------------- injected reneges


def drive(config, seed: int, pass_rate, at: int, how: str):
    """A random game with one renege injected at the first chance from the ``at``-th play on; returns the events
    and (hand number, trick, seat, card) of the renege, or None when the game gave no chance.

    ``how``: "follow" (Bid Whist, Bid Euchre: a seat holding the led suit plays another suit), "skip" (Pitch: the
    seat after the one on turn plays, so a seat holding a trump is skipped), "keep" (Pitch: a seat keeps one
    non-trump through the discard and later plays it)."""
    game, options = config
    rng = random.Random(seed)
    match = Match(game, options)
    truth = Truth()
    events: list[dict] = []
    plays = 0
    injected = None
    kept: tuple[int, int] | None = None
    while not match.is_terminal() and len(match.hands) <= 3:
        hand = match.hand
        event = None
        play_due = hand.phase == PLAY
        if hand.current_player() == -1:
            event = random_deal(hand, rng)
        elif how == "keep" and hand.phase == "exchange" and (kept is not None or _first_discard(hand)):
            event, kept = _pitch_exchange_keeping(hand, truth, rng, kept)
            if event is None:  # the kept card was the seat's only non-trump: go on with the next step
                event, kept = _pitch_exchange_keeping(hand, truth, rng, kept)
            play_due = event is None
        if play_due:
            if hand.phase == PLAY:
                seat = hand.play_turn()
            else:  # Pitch: the first play ends the exchange
                seat = _pitch_first_leader(hand, truth)
            trick_no = len(hand.tricks) + 1
            mine = truth.hands[seat]
            cards = hand.trick.cards if hand.phase == PLAY else []
            led = led_suit(hand, cards) if cards or hand.game == "pitch" else None
            if injected is None and plays >= at and how == "follow" and led is not None:
                off = sorted(c for c in mine if suit_as_played(hand, c) != led)
                if off and any(suit_as_played(hand, c) == led for c in mine):
                    c = rng.choice(off)
                    event = {"event": "play", "seat": seat, "card": CODES[c]}
                    injected = (hand.number, trick_no, seat, c)
            elif injected is None and plays >= at and how == "skip" and hand.phase == PLAY:
                played = {s for s, _ in cards}
                later = [(seat + i) % hand.n_players for i in range(1, hand.n_players)]
                nxt = next((s for s in later if s in hand.active and s not in played), None)
                if nxt is not None and any(suit_as_played(hand, c) == hand.trump for c in mine):
                    c = rng.choice(sorted(truth.hands[nxt]))
                    event = {"event": "play", "seat": nxt, "card": CODES[c]}
                    injected = (hand.number, trick_no, seat, None)
            elif injected is None and how == "keep" and kept is not None and kept[0] == seat:
                if plays >= at or not any(suit_as_played(hand, c) == hand.trump for c in mine):
                    event = {"event": "play", "seat": seat, "card": CODES[kept[1]]}
                    injected = (hand.number, trick_no, seat, kept[1])
            if event is None:
                follow = [c for c in sorted(mine) if suit_as_played(hand, c) == led] if led is not None else []
                event = {"event": "play", "seat": seat, "card": CODES[rng.choice(follow or sorted(mine))]}
            plays += 1
        if event is None:
            event = random_event(match, rng, pass_rate)
        truth.apply(hand, event)
        match.apply(event)
        events.append(event)
        if hand.is_terminal() and kept is not None and injected is None:
            return events, None  # cannot happen: the seat holds the kept card until it plays it
        if injected is not None and hand.is_terminal() and hand.number == injected[0]:
            break
    return events, injected


def _first_discard(hand) -> bool:
    events = hand.legal_events()
    return len(events) == 1 and events[0]["event"] == "discard"


def _pitch_first_leader(hand, truth: Truth) -> int:
    seat = hand.declarer
    for _ in range(hand.n_players):
        if truth.hands[seat]:
            return seat
        seat = (seat + 1) % hand.n_players
    return hand.declarer


def _pitch_exchange_keeping(hand, truth: Truth, rng: random.Random, kept):
    """Pitch's discard, refill, rob and burn (RULINGS.md) as the engine's legal events give them, except that
    one seat keeps one non-trump: ``kept`` = (seat, card, hand number). Returns (event, kept); event None when
    play is due."""
    trumps = pitch_trumps(hand.trump, hand.options["points"])
    values = pitch_values(hand.trump, hand.options["points"])
    n = hand.n_players
    if kept is None:
        step = hand.legal_events()[0]
        cards = [card(x) for x in step["cards"]]
        c = rng.choice(cards)
        rest = [x for x in cards if x != c]
        kept = (step["seat"], c, hand.number)
        return ({"event": "discard", "seat": step["seat"], "cards": [CODES[x] for x in rest]} if rest else None), kept
    seat_k, card_k, _ = kept
    for seat in [(hand.dealer + 1 + i) % n for i in range(n)]:
        junk = sorted(c for c in truth.hands[seat] if c not in trumps and (seat, c) != (seat_k, card_k))
        if junk:
            return {"event": "discard", "seat": seat, "cards": [CODES[c] for c in junk]}, kept
    order = hand.draw_order()
    for seat in order:
        if seat in hand.drawn or (hand.drawn and order.index(seat) < order.index(hand.drawn[-1])):
            continue
        want = min(max(0, 6 - len(truth.hands[seat])), len(truth.pack))
        if want:
            return {"event": "draw", "seat": seat, "cards": [CODES[c] for c in truth.pack[:want]]}, kept
    if not hand.robbed and truth.pack:
        return {"event": "rob", "seat": hand.declarer, "cards": [CODES[c] for c in truth.pack]}, kept
    for seat in range(n):
        h = truth.hands[seat]
        if len(h) > 6:
            spare = sorted((c for c in h if (seat, c) != (seat_k, card_k)), key=lambda c: (c in values, c))
            return {"event": "burn", "seat": seat, "cards": [CODES[c] for c in spare[: len(h) - 6]]}, kept
    return None, kept


INJECT = [(c, "follow") for c in TRICK_CONFIGS] + [(c, h) for c in PITCH_CONFIGS for h in ("skip", "keep")]
INJECT_IDS = [f"{i}-follow" for i in TRICK_IDS] + [f"{i}-{h}" for i in PITCH_IDS for h in ("skip", "keep")]


@pytest.mark.parametrize(("config", "how"), INJECT, ids=INJECT_IDS)
@SETTINGS
@given(seed=seeds, pass_rate=pass_rates, at=st.integers(min_value=0, max_value=30), hide=hides)
def test_an_injected_renege_is_caught_and_never_invented(config, how, seed, pass_rate, at, hide):
    events, injected = drive(config, seed, pass_rate, at, how)
    if injected is None:
        events, injected = drive(config, seed, pass_rate, 0, how)
    assume(injected is not None)
    number, trick_no, seat, c = injected

    # hands known: exactly the injected renege is called, proven, for that seat and trick
    run = Run(config, events, each_step=lambda run, hand: check_knowledge(hand, run.truth, known=True))
    hand = run.hands[number - 1]
    assert hand.is_terminal()
    assert [(r.seat, r.trick) for r in hand.reneges] == [(seat, trick_no)], (injected, hand.reneges, hand.suspicions)
    r = hand.reneges[0]
    assert r.card == c and r.established
    check_renege_real(hand, r, run.starts)
    kind = {"follow": "renege", "skip": "holding out", "keep": "non-trump played"}[how]
    assert r.kind == kind
    for other in run.hands:
        if other is not hand:
            assert other.reneges == [] and other.suspicions == []

    # the same record replays to the same result
    text = dumps([match_header(run.match), *events])
    assert replay(text.splitlines()).result() == run.match.result()

    # hands unknown (none read, or some): every renege called is real; the other hands stay clean
    for blanked in (True, hide):
        check_blind(config, events, blanked, injected)


def check_blind(config, events, blanked, injected):
    number, trick_no, seat, _ = injected
    blind = Run(config, events, blanked=blanked, each_step=lambda run, hand: check_knowledge(hand, run.truth, False))
    for h in blind.hands:
        for r in h.reneges:
            check_renege_real(h, r, blind.starts)
            assert (h.number, r.seat, r.trick) == (number, seat, trick_no)
        if h.number != number:
            assert h.reneges == [] and h.suspicions == []
        for s in h.suspicions:
            assert (h.number, s.seat, s.trick) == (number, seat, trick_no), s


# ------------------------------------------------------------------------------------------- many reneges


def chaos_game(config, seed: int, pass_rate, rate: float, retract: float = 0.0) -> list[dict]:
    """A random game in which, at each play, with chance ``rate``, the seat on turn plays any card it holds
    (Bid Whist, Bid Euchre), or the seat after it plays instead, skipping it (Pitch). In Bid Whist and Bid Euchre,
    with chance ``rate / 3``, once the suit is led, another seat that has not played plays any card out of turn.
    With chance ``retract``, a card played on turn is taken back at once (RULINGS.md, ``renege_correctable``)."""
    game, options = config
    rng = random.Random(seed)
    match = Match(game, options)
    truth = Truth()
    events: list[dict] = []
    while not match.is_terminal() and len(match.hands) <= 2:
        hand = match.hand
        event = None
        if hand.phase == PLAY and game != "pitch" and rng.random() < rate / 3:
            turn = hand.play_turn()
            played = {s for s, _ in hand.trick.cards}
            others = [s for s in hand.active if s != turn and s not in played]
            if others and led_suit(hand, hand.trick.cards) is not None:
                seat = rng.choice(others)
                event = {"event": "play", "seat": seat, "card": CODES[rng.choice(sorted(truth.hands[seat]))]}
        if event is None and hand.phase == PLAY and rng.random() < rate:
            seat = hand.play_turn()
            if game == "pitch":
                n = hand.n_players
                played = {s for s, _ in hand.trick.cards}
                later = [(seat + i) % n for i in range(1, n)]
                seat = next((s for s in later if s in hand.active and s not in played), None)
            if seat is not None:
                event = {"event": "play", "seat": seat, "card": CODES[rng.choice(sorted(truth.hands[seat]))]}
        if event is None:
            event = random_event(match, rng, pass_rate)
        on_turn = event["event"] == "play" and hand.phase == PLAY and event["seat"] == hand.play_turn()
        truth.apply(hand, event)
        match.apply(event)
        events.append(event)
        if on_turn and not hand.is_terminal() and rng.random() < retract:
            back = {"event": "retract", "seat": event["seat"]}
            truth.hands[event["seat"]].add(card(event["card"]))
            truth.seen.discard(card(event["card"]))
            match.apply(back)
            events.append(back)
    return events


def real_reneges(hand, starts: dict) -> set[tuple[int, int]]:
    """(seat, trick) of every real renege of a finished hand, from the real hands: a failure to follow by a seat
    that held the suit led; in Pitch a seat skipped while it held cards (all trumps here)."""
    out = set()
    gone: set[int] = set()
    for i, t in enumerate(hand.tricks, start=1):
        held = starts[(hand.number, i)]
        seats = {s for s, _ in t.cards}
        if hand.game == "pitch":
            for s in range(hand.n_players):
                if held[s] and s not in seats and s not in gone:
                    out.add((s, i))
                    gone.add(s)
            for s, c in t.cards:
                if suit_as_played(hand, c) != hand.trump:
                    out.add((s, i))
            continue
        for j, (s, c) in enumerate(t.cards):
            before = {x for x, _ in t.cards[:j]}
            turn = next(x for x in ((t.leader + k) % 4 for k in range(4)) if x in hand.active and x not in before)
            if s != turn:
                continue  # RULINGS.md: a play out of turn is an irregularity for the director, not a renege
            led = led_suit(hand, t.cards[:j])
            if led is not None and suit_as_played(hand, c) != led:
                if any(suit_as_played(hand, x) == led for x in held[s]):
                    out.add((s, i))
    return out


def off_turn_plays(hand) -> list[tuple[int, int]]:
    out = []
    for i, t in enumerate(hand.tricks, start=1):
        for j, (s, _) in enumerate(t.cards):
            before = {x for x, _ in t.cards[:j]}
            turn = next(x for x in ((t.leader + k) % 4 for k in range(4)) if x in hand.active and x not in before)
            if s != turn:
                out.append((s, i))
    return out


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@SETTINGS
@given(seed=seeds, pass_rate=pass_rates, rate=st.sampled_from([0.05, 0.2, 0.5]), hide=hides)
def test_the_reneges_called_are_exactly_the_real_ones(config, seed, pass_rate, rate, hide):
    """Many reneges in a game: at the end of each hand the proven reneges are exactly the real ones, each with a
    real proof, and nothing is left as a suspicion. With the hands not read, a Bid Whist or Bid Euchre renege is
    proven by the seat's later play of the suit, so the same holds. A Pitch hold-out with the hands not read is
    proven by the cards accounted for at the end; but when two or more seats end the hand holding unread cards,
    no single card can be named as the proof of either, and the engine (which calls a renege only with a proof
    card) leaves it as a suspicion for the director: then the suspicions are exactly the real hold-outs not
    called."""
    events = chaos_game(config, seed, pass_rate, rate)
    for blanked in (False, True, hide):
        run = Run(config, events, blanked=blanked)
        for hand in run.hands:
            if not hand.is_terminal():
                continue
            real = real_reneges(hand, run.starts)
            for r in hand.reneges:
                check_renege_real(hand, r, run.starts)
                assert r.established
            called = [(r.seat, r.trick) for r in hand.reneges]
            assert len(called) == len(set(called))
            left = [(r.seat, r.trick) for r in hand.suspicions]
            if hand.game == "pitch" and blanked is not False and left:
                holding = [s for s in range(hand.n_players) if hand.knowledge.count[s]]
                assert len(holding) >= 2, (blanked, hand.reneges, hand.suspicions)
                assert set(called) | set(left) == real and not set(called) & set(left)
                kinds = [(i["seat"], i["trick"]) for i in hand.irregularities if i["kind"] == "suspected renege"]
                assert sorted(kinds) == sorted(left), "an unproven hold-out is shown to the director"
                continue
            assert sorted(called) == sorted(real), (blanked, hand.reneges, hand.suspicions)
            assert left == [], (blanked, hand.suspicions)
            if hand.game != "pitch":
                out_of_turn = sorted((i["seat"], i["trick"]) for i in hand.irregularities if i["kind"] == "out of turn")
                assert out_of_turn == sorted(off_turn_plays(hand)), hand.irregularities


# ------------------------------------------------------------------------------------------- jokers that look alike

ALIKE = [c for c in CONFIGS if c[1].get("jokers_distinct") is False]
ALIKE_IDS = [i for i, c in zip(IDS, CONFIGS, strict=True) if c[1].get("jokers_distinct") is False]


def swap_jokers(x):
    if isinstance(x, str):
        return {"BJ": "LJ", "LJ": "BJ"}.get(x, x)
    if isinstance(x, list):
        return [swap_jokers(y) for y in x]
    if isinstance(x, dict):
        return {k: swap_jokers(v) for k, v in x.items()}
    return x


@pytest.mark.parametrize("config", ALIKE, ids=ALIKE_IDS)
@SETTINGS
@given(seed=seeds, pass_rate=pass_rates, n_hands=max_hands, flips=st.integers(min_value=0, max_value=2**30))
def test_jokers_that_look_alike_may_be_written_either_way(config, seed, pass_rate, n_hands, flips):
    """``jokers_distinct = false``: the record's BJ / LJ labels are arbitrary. Swapping them throughout, or in any
    joker play or joker swap, replays to the same result (up to the jokers' names)."""
    game, options = config
    match = Match(game, options)
    events = random_events(match, random.Random(seed), max_hands=n_hands, pass_rate=pass_rate)
    head = match_header(match)

    def alike(result) -> str:
        return json.dumps(result).replace('"LJ"', '"BJ"')

    expected = alike(match.result())
    everywhere = [swap_jokers(e) for e in events]
    assert alike(replay(dumps([head, *everywhere]).splitlines()).result()) == expected
    rng = random.Random(flips)
    some = [
        swap_jokers(e) if e["event"] in ("play", "joker_swap") and rng.random() < 0.5 else e for e in events
    ]
    assert alike(replay(dumps([head, *some]).splitlines()).result()) == expected


# ------------------------------------------------------------------------------------------- cards taken back


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@SETTINGS
@given(seed=seeds, pass_rate=pass_rates, rate=st.sampled_from([0.0, 0.2]), retract=st.sampled_from([0.1, 0.3]))
def test_a_card_taken_back_leaves_no_trace_but_the_irregularity(config, seed, pass_rate, rate, retract):
    """RULINGS.md, ``renege_correctable``: a card played and taken back at once (a renege or not, the last card of
    a trick too) changes nothing: the record without the pair replays to the same result, but for the "card taken
    back" irregularities; the reneges called are still exactly the real ones."""
    events = chaos_game(config, seed, pass_rate, rate, retract)
    pairs = [i for i, e in enumerate(events) if e["event"] == "retract"]
    drop = set(pairs) | {i - 1 for i in pairs}
    assert all(events[i - 1]["event"] == "play" and events[i - 1]["seat"] == events[i]["seat"] for i in pairs)
    plain = [e for i, e in enumerate(events) if i not in drop]

    def without_taken_back(result):
        for h in result["hands"]:
            h["irregularities"] = [x for x in h["irregularities"] if x["kind"] != "card taken back"]
        return result

    game, options = config
    head = match_header(Match(game, options))
    taken_back = replay(dumps([head, *events]).splitlines())
    again = replay(dumps([head, *plain]).splitlines())
    assert without_taken_back(taken_back.result()) == without_taken_back(again.result())
    backs = sum(1 for h in taken_back.hands for x in h.irregularities if x["kind"] == "card taken back")
    assert backs == len(pairs)
    for blanked in (False, True):
        run = Run(config, plain, blanked=blanked)
        for hand in run.hands:
            for r in hand.reneges:
                check_renege_real(hand, r, run.starts)


# ------------------------------------------------------------------------------------------- the match


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@SETTINGS
@given(seed=seeds, pass_rate=pass_rates)
def test_the_deal_passes_left_and_the_totals_add_up(config, seed, pass_rate):
    """RULINGS.md: the deal passes to the left after each hand; the match totals are the sums of the hands'
    scores (but a Pitch moon made, which sets the bidding side's total)."""
    game, options = config
    match = Match(game, options, first_dealer=seed % match_players(config))
    random_events(match, random.Random(seed), max_hands=4, pass_rate=pass_rate)
    n = match.n_players
    totals = [0] * len(match.scores)
    for i, hand in enumerate(match.hands):
        assert hand.number == i + 1 and hand.dealer == (match.first_dealer + i) % n
        if not hand.is_terminal():
            assert hand is match.hand and i == len(match.hands) - 1
            continue
        if game == "pitch" and hand.contract == "moon" and hand.moon_result == "made":
            totals = hand.apply_to_totals(totals)
        else:
            totals = [t + s for t, s in zip(totals, hand.score, strict=True)]
    assert totals == match.scores
    assert (match.winner is not None) == match.is_terminal()


def match_players(config) -> int:
    return config[1].get("players", 4)


# ------------------------------------------------------------------------------------------- refused events


def state_of(match: Match) -> str:
    """Everything a match holds, as text: its totals, and every attribute of its current hand (the knowledge,
    the tricks, the calls, the phase...), so that any change shows."""

    def attributes(o) -> dict:
        # A build compiled by mypyc has no instance __dict__: its classes list their attributes instead.
        names = getattr(type(o), "__mypyc_attrs__", None)
        if names is not None:
            return {k: getattr(o, k, None) for k in names if not k.startswith("__")}
        if hasattr(o, "__slots__"):
            return {s: getattr(o, s, None) for s in o.__slots__}
        return vars(o)

    def plain(o):
        if isinstance(o, set | frozenset):
            return sorted(o)
        if hasattr(o, "__slots__") or hasattr(o, "__dict__") or hasattr(type(o), "__mypyc_attrs__"):
            return attributes(o)
        return repr(o)

    hand = match.hand
    fields = {k: v for k, v in attributes(hand).items() if k not in ("options", "events") and not k.startswith("_")}
    head = {"scores": match.scores, "winner": match.winner, "hands": len(match.hands), "events": len(hand.events)}
    return json.dumps([head, fields], default=plain, sort_keys=True)


def near_miss(rng: random.Random, match: Match, truth: Truth) -> dict:
    """An event that may well be refused: a random kind, seat and cards, often close to a legal one."""
    hand = match.hand
    n = hand.n_players
    legal = hand.legal_events() if hand.phase not in ("deal", "done") else []
    if legal and rng.random() < 0.5:
        e = dict(rng.choice(legal))
        field = rng.choice([k for k in e if k != "event"] or ["event"])
        choices = {
            "seat": [rng.randrange(n), n, -1],
            "card": [rng.choice(CODES), "ZZ", None],
            "cards": [[rng.choice(CODES) for _ in range(rng.randrange(1, 7))], [None] * rng.randrange(1, 7)],
            "bid": ["pass", "3", "4 no", "7 high", "single", "moon", "99"],
            "trump": ["S", "H", None, "X"],
            "joker": ["BJ", "LJ", "AS"],
            "drew": [rng.choice(CODES), None],
            "team": [0, 1, 2],
        }.get(field, [None])
        e[field] = rng.choice(choices)
        return e
    kind = rng.choice(["deal", "bid", "declare", "discard", "joker_swap", "exchange", "fold", "draw", "rob", "burn",
                       "play", "play", "play", "retract"])
    seat = rng.randrange(n + 1)
    held = sorted(truth.hands[seat]) if truth.hands and seat < n and truth.hands[seat] else list(range(54))
    return {
        "deal": {"event": "deal", "dealer": rng.randrange(n), "hands": None},
        "bid": {"event": "bid", "seat": seat, "bid": rng.choice(["pass", "4", "5 low", "double", "moon"])},
        "declare": {"event": "declare", "seat": seat, "trump": rng.choice("SHDC")},
        "discard": {"event": "discard", "seat": seat, "cards": [CODES[rng.choice(held)] for _ in range(2)]},
        "joker_swap": {"event": "joker_swap", "seat": seat, "joker": rng.choice(["BJ", "LJ"]), "drew": None},
        "exchange": {"event": "exchange", "seat": seat, "card": CODES[rng.choice(held)]},
        "fold": {"event": "fold", "team": rng.randrange(2)},
        "draw": {"event": "draw", "seat": seat, "cards": [rng.choice(CODES)]},
        "rob": {"event": "rob", "seat": seat, "cards": [None] * rng.randrange(1, 4)},
        "burn": {"event": "burn", "seat": seat, "cards": [CODES[rng.choice(held)]]},
        "play": {"event": "play", "seat": seat, "card": CODES[rng.choice(held + list(range(54)))]},
        "retract": {"event": "retract", "seat": seat},
    }[kind]


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@SETTINGS
@given(seed=seeds, pass_rate=pass_rates)
def test_a_refused_event_changes_nothing(config, seed, pass_rate):
    """CONVENTIONS.md: a record that cannot have happened is refused. A refused event (IllegalEvent) must leave
    the match exactly as it was, so that the table can go on with the right event and a live match stays equal
    to the replay of its record."""
    game, options = config
    rng = random.Random(seed)
    match = Match(game, options)
    truth: Truth | None = Truth()
    events: list[dict] = []
    while not match.is_terminal() and len(match.hands) <= 2:
        attempt = near_miss(rng, match, truth or Truth())
        before = state_of(match)
        try:
            match.apply(attempt)
        except IllegalEvent:
            assert state_of(match) == before, f"refused {attempt} changed the match"
        else:  # accepted (an irregularity, or a legal event after all): it is part of the record now
            events.append(attempt)
            truth = None  # the test no longer follows the real cards
            if match.is_terminal():
                break
        try:
            event = random_event(match, rng, pass_rate)
        except IndexError:
            break  # after an accepted irregular event the engine may offer nothing: the game stops here
        if truth is not None:
            truth.apply(match.hand, event)
        try:
            match.apply(event)
        except IllegalEvent:
            break  # the same: what the engine offered after an irregular event is refused; stop here
        events.append(event)
    assert replay(dumps([match_header(match), *events]).splitlines()).result() == match.result()


# ------------------------------------------------------------------------------------------- renumbering the seats


def renumber(event: dict, k: int, n: int) -> dict:
    """The same event with every seat s renumbered (s + k) mod n: the deal's hands move with their seats."""
    e = json.loads(json.dumps(event))
    for key in ("seat", "dealer", "first_dealer"):
        if isinstance(e.get(key), int):
            e[key] = (e[key] + k) % n
    if e.get("event") == "deal" and e.get("hands") is not None:
        e["hands"] = [e["hands"][(s - k) % n] for s in range(n)]
    if e.get("event") == "match":
        e["players"] = [e["players"][(s - k) % n] for s in range(n)]
    return e


def renumber_result(result: dict, k: int, n: int) -> dict:
    """A replay result with every seat s renumbered (s + k) mod n; sides stay (k keeps the teams), except in
    five-handed Pitch, whose scores, ``taken`` and winner are per player."""
    out = json.loads(json.dumps(result))

    def seat(x):
        return x if x is None else (x + k) % n

    def per_player(xs):
        return xs if xs is None or n != 5 else [xs[(s - k) % n] for s in range(n)]

    for h in out["hands"]:
        h["dealer"], h["declarer"] = seat(h["dealer"]), seat(h["declarer"])
        for r in h["reneges"]:
            r["seat"] = seat(r["seat"])
        for i in h["irregularities"]:
            for key in ("seat", "turn"):
                if isinstance(i.get(key), int):
                    i[key] = seat(i[key])
        h["taken"], h["score"] = per_player(h["taken"]), per_player(h["score"])
    out["scores"] = per_player(out["scores"])
    if n == 5 and out["winner"] is not None:
        out["winner"] = seat(out["winner"])
    return out


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@SETTINGS
@given(seed=seeds, pass_rate=pass_rates, rate=st.sampled_from([0.05, 0.2, 0.5]), hide=hides,
       turn=st.integers(min_value=1, max_value=4))
def test_renumbering_the_seats_never_changes_a_result(config, seed, pass_rate, rate, hide, turn):
    """RULINGS.md, "Several reneges in one hand": "Renumbering the seats (keeping the teams) never changes a result."
    A random game with many reneges (and, in Bid Whist and Bid Euchre, plays out of turn), hands read or not; the
    same record with every seat s renumbered: four players s + 2 (the only renumbering that keeps both the teams
    and the clockwise order: any other changes who sits left of whom, so it is another game); five-handed Pitch,
    whose sides are made afresh each hand, any turn s + k. The result, renumbered back, is the same."""
    events = chaos_game(config, seed, pass_rate, rate)
    n = match_players(config)
    k = 2 if n == 4 else turn
    game, options = config
    header = match_header(Match(game, options))
    for blanked in (False, hide):
        record = [header, *(e if blanked is False else blank(game, e, hide) for e in events)]
        first = replay(dumps(record).splitlines()).result()
        turned = replay(dumps([renumber(e, k, n) for e in record]).splitlines()).result()
        assert renumber_result(first, k, n) == turned
