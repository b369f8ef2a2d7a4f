"""The simulation tools the benchmark drives the engine with: the compiled shuffle and deal, and the
benchmark's own random-deal driver (every random legal deal of every game must end without a renege call)."""

import random

import pytest

from engine.cards import EUCHRE_DECK_MASK, FULL_DECK_MASK, cards_of
from engine.shuffle import deal_shuffled, shuffle
from tools.bench_engine import CONTENDERS, deal_runner


@pytest.mark.parametrize("mask,sizes", [(EUCHRE_DECK_MASK, [6, 6, 6, 6]), (FULL_DECK_MASK, [12, 12, 12, 12, 6])])
def test_deal_shuffled_cuts_a_permutation_of_the_deck_and_leaves_the_deck_alone(mask, sizes):
    deck = cards_of(mask)
    before = list(deck)
    piles = deal_shuffled(deck, sizes, random.Random(7))
    assert deck == before
    assert [len(p) for p in piles] == sizes
    assert sorted(c for p in piles for c in p) == deck


def test_deal_shuffled_deals_what_shuffle_then_cutting_deals_for_the_same_seed():
    deck = cards_of(EUCHRE_DECK_MASK)
    for seed in range(20):
        cards = list(deck)
        shuffle(cards, random.Random(seed))
        assert deal_shuffled(deck, [6, 6, 6, 6], random.Random(seed)) == [cards[i : i + 6] for i in (0, 6, 12, 18)]


def test_deal_shuffled_puts_each_card_everywhere_about_equally_often():
    deck = cards_of(EUCHRE_DECK_MASK)
    rng = random.Random(3)
    first = [0] * 54
    n = 24_000
    for _ in range(n):
        first[deal_shuffled(deck, [24], rng)[0][0]] += 1
    # each of the 24 cards is dealt first 1000 times on average; 5 standard deviations (~156) either side
    assert all(abs(first[c] - n / 24) < 160 for c in deck)


@pytest.mark.parametrize("game,options", CONTENDERS)
def test_the_benchmark_driver_plays_random_legal_deals_to_the_end_without_a_renege_call(game, options):
    one_deal = deal_runner(game, options, seed=11)
    for _ in range(200):
        one_deal()  # raises AssertionError if a random legal deal produced a renege call
