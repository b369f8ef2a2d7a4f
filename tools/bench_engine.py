"""``cardref bench engine``: random full deals per second, with full legality and renege checking, beside
OpenSpiel's ``euchre`` and ``spades`` measured in the same run (the machines are noisy: compare ratios).

A deal is one hand from the shuffle to the score: a random deal (the engine's ``deal_shuffled``, handed to
``Hand.deal`` as a table's deal would be), random legal bids and declarations, every setup step, and random
legal plays, each applied through the engine's checks (possession, turn, follow suit and the renege proof).
OpenSpiel is driven the same way through its Python API: chance outcomes (its deal, one card at a time) and
random legal actions until the state is terminal. Both drivers pick uniformly with the same one-line
``seq[int(random() * len(seq))]``: ``random.choice`` is interpreted Python that would otherwise cost more than
either engine, and OpenSpiel, taking twice as many actions per deal, would pay for it twice.

Contenders run in interleaved rounds so that a burst of load on the machine hits them all alike, and each
is timed by the CPU time of this process
(``time.process_time``), which other processes on a busy machine disturb far less than the wall clock.
"""

from __future__ import annotations

import json
import platform
import random
import time
from collections.abc import Callable
from typing import Any

import engine.hand
from engine.cards import cards_of
from engine.hand import BID, DONE, PLAY, Hand
from engine.match import hand_class
from engine.options import validate
from engine.shuffle import deal_shuffled

CONTENDERS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("bid_euchre", {}),
    ("bid_whist", {}),
    ("pitch", {}),
    ("pitch", {"players": 5}),
)


def engine_build() -> str:
    """Whether the engine runs compiled (mypyc, from the same source) or as plain Python."""
    return "compiled (mypyc)" if not engine.hand.__file__.endswith(".py") else "pure Python"


def deal_runner(game: str, options: dict[str, Any], seed: int = 1) -> Callable[[], None]:
    """A function that plays one random legal deal of ``game`` through the engine's checks."""
    opts = validate(game, options)
    cls = hand_class(game)
    rng = random.Random(seed)
    rand = rng.random
    probe: Hand = cls(opts, 0)
    deck = cards_of(cls.deck_mask)
    sizes = probe.deal_sizes()
    counter = [0]

    def one_deal() -> None:
        hand = cls(opts, counter[0] % probe.n_players)
        counter[0] += 1
        hand.deal(deal_shuffled(deck, sizes, rng))
        phase = hand.phase
        while phase != DONE:
            if phase == PLAY:
                cards = hand.legal_plays()
                hand.play(hand.turn, cards[int(rand() * len(cards))])
            elif phase == BID:
                bids = hand.legal_bids()
                hand.bid(hand.current_player(), bids[int(rand() * len(bids))])
            else:
                events = hand.legal_events()
                hand.apply(events[int(rand() * len(events))])
            phase = hand.phase
        if hand.reneges or hand.suspicions:
            raise AssertionError(f"{game}: a random legal deal produced a renege call")

    return one_deal


def openspiel_runner(name: str, seed: int = 1) -> Callable[[], None] | None:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    rng = random.Random(seed)
    rand = rng.random

    def one_deal() -> None:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():  # dealing: every outcome equally likely in these games
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rand() * len(outcomes))][0])
            else:
                actions = state.legal_actions()
                state.apply_action(actions[int(rand() * len(actions))])

    return one_deal


def measure(runners: dict[str, Callable[[], None]], seconds: float, rounds: int = 3) -> dict[str, float]:
    """Deals per second of each runner, over ``rounds`` interleaved slices of ``seconds / rounds`` each."""
    done = dict.fromkeys(runners, 0)
    spent = dict.fromkeys(runners, 0.0)
    for runner in runners.values():  # warm up caches and tables
        for _ in range(20):
            runner()
    for _ in range(rounds):
        for name, runner in runners.items():
            start = time.process_time()
            stop = start + seconds / rounds
            n = 0
            now = start
            while now < stop:
                for _ in range(25):
                    runner()
                n += 25
                now = time.process_time()
            done[name] += n
            spent[name] += now - start
    return {name: done[name] / spent[name] for name in runners}


def run(seconds: float = 3.0, as_json: bool = False) -> int:
    runners: dict[str, Callable[[], None]] = {}
    for game, options in CONTENDERS:
        label = game + "".join(f" {k}={v}" for k, v in options.items())
        runners[label] = deal_runner(game, options)
    peers = {}
    for name in ("euchre", "spades"):
        peer = openspiel_runner(name)
        if peer is not None:
            peers["openspiel " + name] = peer
    rates = measure({**runners, **peers}, seconds)
    euchre, spades = rates.get("openspiel euchre"), rates.get("openspiel spades")
    ratios = {}
    if euchre:
        ratios["bid_euchre / openspiel euchre"] = rates["bid_euchre"] / euchre
    if spades:
        ratios["bid_whist / openspiel spades"] = rates["bid_whist"] / spades
    report = {
        "engine": engine_build(),
        "python": platform.python_version(),
        "seconds_each": seconds,
        "deals_per_second": {k: round(v) for k, v in rates.items()},
        "ratios": {k: round(v, 2) for k, v in ratios.items()},
        "targets": {"bid_euchre / openspiel euchre": 2.0, "bid_whist / openspiel spades": 1.0},
    }
    if as_json:
        print(json.dumps(report))
        return 0
    print(f"engine: {report['engine']}, Python {report['python']}, {seconds:g} s of CPU time per contender")
    for name, rate in rates.items():
        print(f"  {name:<28} {rate:>10,.0f} deals/s")
    if not peers:
        print("  (OpenSpiel is not installed: `pip install 'cardref[bench]'` or `make bench` to compare)")
    for name, ratio in ratios.items():
        target = report["targets"][name]
        print(f"  {name:<34} {ratio:5.2f}x  (target {target:g}x: {'met' if ratio >= target else 'NOT met'})")
    return 0
