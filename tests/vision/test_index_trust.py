"""Enrollment measures whether the learned corner index reads the deck (``vision.deck.index_test``): a deck whose suit
signs are of another pattern (aisleriot's swiss-xvii: shields, roses, bells and acorns standing for the four suits) is
read by its own templates alone, where the network's veto had left most of its right reads unsure."""

import copy
import json

import numpy as np
import pytest

from tools import synth
from vision import deck as decklib
from vision import geometry, recognise

CODES = ["3S", "5D", "2S", "4D", "6S", "QH"]


@pytest.fixture(scope="module")
def swiss(aisleriot_deck):
    return synth.load_deck(str(aisleriot_deck("swiss-xvii")))


def _named(deck: decklib.Deck, images: dict[str, np.ndarray]) -> tuple[set[str], set[str]]:
    """The cards of one scene named right, and those named wrong."""
    poses = [synth.CardPose(c, 250 + 170 * i, 300 + 60 * (i % 2), 20 * i - 40) for i, c in enumerate(CODES)]
    scene = synth.render_table(images, poses, seed=0, hand=False)
    reads = recognise.Recogniser(deck).identify(scene.image)
    right, wrong = set(), set()
    for card in scene.cards:
        for r in reads:
            if r.code and geometry.quad_iou(r.quad, card.quad.astype(np.float32)) > 0.8:
                (right if r.code == card.code else wrong).add(card.code)
    return right, wrong


def _drop_from_meta(path: str, key: str) -> None:
    """Rewrite a deck file as a version before ``key`` was measured would have written it."""
    with np.load(path) as z:
        files = {k: z[k] for k in z.files}
    meta = json.loads(str(files["meta"]))
    del meta[key]
    files["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(path, **files)


def test_a_deck_of_foreign_suit_signs_is_read_by_its_templates_alone(swiss):
    deck = decklib.enroll_images(swiss, "swiss-xvii", "swiss-xvii")
    assert deck.report["index_trusted"] is False
    assert deck.report["index_vetoes"] > decklib.INDEX_VETO_SHARE * deck.report["index_views"]
    assert not recognise.Recogniser(deck).cross_check
    right, wrong = _named(deck, swiss)
    assert not wrong and len(right) >= 5, (right, wrong)
    # the same templates under the network's veto, as every deck was read before enrollment measured the network on
    # its cards (none of its ranks or suits known to be misnamed, ``VETO_NEEDS_TRUSTED_NAMES``): most of them unsure
    vetoed = copy.deepcopy(deck)
    vetoed.templates.index_trusted = True
    vetoed.templates.index_misnames, vetoed.templates.index_suit_misnames = "", ""
    right_vetoed, wrong_vetoed = _named(vetoed, swiss)
    assert not wrong_vetoed and len(right_vetoed) <= 3, right_vetoed


def test_a_standard_deck_keeps_the_network_check(decks_dir, tmp_path):
    images = synth.load_deck(str(decks_dir / "plastic"))
    deck = decklib.enroll_images(images, "plastic", "plastic")
    assert deck.report["index_trusted"] is True and deck.report["index_vetoes"] == 0
    assert recognise.Recogniser(deck).cross_check
    # kept in the deck file; a file enrolled before the test loads as trusted, as every deck was then
    deck.templates.index_trusted = False
    path = str(tmp_path / "plastic.npz")
    deck.save(path)
    assert decklib.Deck.load(path).templates.index_trusted is False
    _drop_from_meta(path, "index_trusted")
    assert decklib.Deck.load(path).templates.index_trusted is True


def test_the_network_never_names_a_rank_it_gave_the_decks_other_cards(decks_dir, monkeypatch):
    """Enrollment lists the ranks the corner network gave to the deck's cards of another rank (``index_misnames``;
    the drawn tango's odd indices: some read as aces, kings, queens), and the enrolled mode never takes the
    network's word for a card of those ranks. (Why: aisleriot's rheinland, a German pattern, had its jacks' B read
    as kings by the network of session 23, and in the bench's scenes 500067 and 500100 the enrolled mode's fallback
    to the generic reader named two jacks kings; its enrollment listed "K". The network retrained with foreign
    letters no longer misreads them, so the rule is shown here on a card the fallback reads.) The drawn simplistic's
    two of spades in scene 500000 is named by the fallback; listed as misnamed, the two is left unsure. (Its
    templates name it the 2C past their bar, which the network vetoes; since session 34 such a card is left unsure
    whatever the network reads, ``VETO_LEAVES_UNSURE``, so the rule is shown with that switched off; and since session
    42 its templates' margin taken with the face moved to fit the 2C, ``ALIGNED_MARGIN``, is under the bar, and
    another outline's match names the 2S: switched off too.)"""
    monkeypatch.setattr(recognise, "VETO_LEAVES_UNSURE", False)
    monkeypatch.setattr(recognise, "ALIGNED_MARGIN", False)
    tango = synth.load_deck(str(decks_dir / "tango"))
    misnames = decklib.enroll_images(tango, "tango", "tango").templates.index_misnames
    assert misnames and set(misnames) <= set(decklib.RANKS)
    images = synth.load_deck(str(decks_dir / "simplistic"))
    deck = decklib.enroll_images(images, "simplistic", "simplistic")
    assert deck.templates.index_misnames == ""
    scene = synth.random_scene(images, 500000, n_cards=7)
    truth = next(c for c in scene.cards if c.code == "2S").quad.astype(np.float32)

    def read(d: decklib.Deck) -> recognise.Read:
        return next(r for r in recognise.Recogniser(d).identify(scene.image) if geometry.quad_iou(r.quad, truth) > 0.5)

    assert read(deck).code == "2S"
    listed = copy.deepcopy(deck)
    listed.templates.index_misnames = "2"
    assert read(listed).code is None  # (the templates alone: unsure, their best match the 2C)
    listed.templates.index_misnames = "JQK"  # another rank listed: the two is named as before
    assert read(listed).code == "2S"


def test_the_misnamed_ranks_are_kept_in_the_deck_file(decks_dir, tmp_path):
    images = synth.load_deck(str(decks_dir / "plastic"))
    deck = decklib.enroll_images(images, "plastic", "plastic")
    assert deck.report["index_misnames"] == ""  # the network read every corner of a standard deck as its own rank
    deck.templates.index_misnames = "JK"
    path = str(tmp_path / "plastic.npz")
    deck.save(path)
    assert decklib.Deck.load(path).templates.index_misnames == "JK"
    # a file enrolled before the measurement: none known (enrolling again measures them)
    _drop_from_meta(path, "index_misnames")
    assert decklib.Deck.load(path).templates.index_misnames == ""


@pytest.fixture(scope="module")
def berlin(aisleriot_deck):
    return synth.load_deck(str(aisleriot_deck("berlin")))


def test_a_blurred_club_is_named_by_its_templates_rank_and_the_networks_suit(berlin, monkeypatch):
    """A motion-blurred five of clubs (aisleriot's berlin, scene 500033): its templates name it past the enrolled bar
    (0.90) against every other club (the nearest, the 4C, at a margin of 0.69) and the spades' five comes near (0.25:
    the clubs' few pixels blurred away); both corners of the network name a club, sure of the suit (0.93, 0.94),
    though they take the blurred 5 for a 4. The suit is left to the network (``Recogniser._rank_by_templates``);
    without that, or with clubs listed as a suit the network gave to another suit's cards at enrollment, the card is
    unsure. (Scene 500021's three of clubs was the case with the networks before session 39's.) Since session 56
    the partner test names it (short of the margin against the 5S alone, ``PARTNER_RESCUE``), and this path does
    not: both corners read one other rank, the 4, so the templates' rank alone is not enough
    (``RANKED_RANK_DISAGREED``). Both set aside below to show the path."""
    deck = decklib.enroll_images(berlin, "berlin", "berlin")
    assert deck.templates.index_suit_misnames == ""
    scene = synth.random_scene(berlin, 500033, n_cards=7)
    truth = next(c for c in scene.cards if c.code == "5C").quad.astype(np.float32)

    def read(d: decklib.Deck) -> str | None:
        return next(r for r in recognise.Recogniser(d).identify(scene.image)
                    if geometry.quad_iou(r.quad, truth) > 0.8).code

    assert read(deck) == "5C"
    monkeypatch.setattr(recognise, "PARTNER_RESCUE", False)
    assert read(deck) is None
    monkeypatch.setattr(recognise, "RANKED_RANK_DISAGREED", False)
    assert read(deck) == "5C"
    listed = copy.deepcopy(deck)
    listed.templates.index_suit_misnames = "C"
    assert read(listed) is None
    listed.templates.index_suit_misnames = None  # (a deck file enrolled before the suits were measured)
    assert read(listed) is None
    monkeypatch.setattr(recognise, "SUIT_SEEN_P", 1.01)
    assert read(deck) is None


def test_a_small_blurred_jack_is_named_by_its_templates_and_the_suit_both_corners_see(berlin, monkeypatch):
    """A small motion-blurred jack of spades (berlin, scene 500015; unsure in 15 of the 27 tuning designs before
    session 32): the blur lowers its match with every template (0.78, under the enrolled 0.85) while the margin
    against every other card stays wide; the network's corners see the spade but no rank. Named since the path's own
    bars (``SUIT_LEFT_SCORE`` 0.68, ``SUIT_SEEN_P`` 0.6); unsure at session 31's (0.85, 0.9)."""
    deck = decklib.enroll_images(berlin, "berlin", "berlin")
    scene = synth.random_scene(berlin, 500015, n_cards=7)
    truth = next(c for c in scene.cards if c.code == "JS").quad.astype(np.float32)

    def read() -> str | None:
        return next(r for r in recognise.Recogniser(deck).identify(scene.image)
                    if geometry.quad_iou(r.quad, truth) > 0.8).code

    assert read() == "JS"
    monkeypatch.setattr(recognise, "SUIT_LEFT_SCORE", 0.85)
    monkeypatch.setattr(recognise, "SUIT_SEEN_P", 0.9)
    assert read() is None


def test_enrollment_lists_the_suits_the_network_gives_other_suits_cards(aisleriot_deck, decks_dir, tmp_path):
    """A skat deck of four colours (aisleriot's atlasnye_skat: green spades, yellow diamonds) has signs the network
    takes for another suit's in enrollment's camera views; a standard deck none. Kept in the deck file; a file
    enrolled before loads as not measured (None: no suit is left to the network)."""
    skat = synth.load_deck(str(aisleriot_deck("atlasnye_skat")))
    listed = decklib.enroll_images(skat, "atlasnye_skat", "atlasnye_skat").templates.index_suit_misnames
    assert listed and set(listed) <= set(decklib.SUITS)
    deck = decklib.enroll_images(synth.load_deck(str(decks_dir / "plastic")), "plastic", "plastic")
    assert deck.templates.index_suit_misnames == ""
    deck.templates.index_suit_misnames = "SD"
    path = str(tmp_path / "plastic.npz")
    deck.save(path)
    assert decklib.Deck.load(path).templates.index_suit_misnames == "SD"
    _drop_from_meta(path, "index_suit_misnames")
    assert decklib.Deck.load(path).templates.index_suit_misnames is None


def test_the_ranks_misnamed_per_rank_are_kept_in_the_deck_file(decks_dir, tmp_path):
    """``index_rank_pairs``: per rank of the deck's cards, the ranks the network gave them at enrollment. Both corners
    surely on such a rank excuse the templates' rank only where the network gave it to that rank's cards
    (``Recogniser._rank_read_otherwise``); a file from before the pairs were kept loads without them (None), and then
    every rank of ``index_misnames`` excuses it."""
    from vision import index_net

    images = synth.load_deck(str(decks_dir / "tango"))
    deck = decklib.enroll_images(images, "tango", "tango")
    pairs = deck.templates.index_rank_pairs
    assert pairs
    given, named = next(iter(pairs.items()))
    other = next(x for x in decklib.RANKS if x not in (given, named[0]) and named[0] not in pairs.get(x, ""))
    corner = index_net.CornerRead(named[0], "S", 0.95, 0.95, np.zeros(0), np.zeros(0))
    both = index_net.IndexRead(named[0], "S", 0.95, 0.95, True, [corner, corner])
    rec = recognise.Recogniser(deck)
    assert not rec._rank_read_otherwise(given + "S", both) and rec._rank_read_otherwise(other + "S", both)
    path = str(tmp_path / "tango.npz")
    deck.save(path)
    assert decklib.Deck.load(path).templates.index_rank_pairs == pairs
    _drop_from_meta(path, "index_rank_pairs")
    old = decklib.Deck.load(path)
    assert old.templates.index_rank_pairs is None
    assert not recognise.Recogniser(old)._rank_read_otherwise(other + "S", both)
