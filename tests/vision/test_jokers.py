"""Telling the big joker from the little one in the enrolled mode: decks whose jokers differ only in their ink's colour
(the drawn bellot: a red and a black JOKER), under a camera's colour cast."""

import numpy as np
import pytest

from tools import synth
from vision import deck as decklib
from vision import features, geometry, recognise


@pytest.fixture(scope="module")
def bellot(decks_dir):
    return synth.load_deck(str(decks_dir / "bellot"))


@pytest.fixture(scope="module")
def bellot_deck(bellot):
    return decklib.enroll_images(bellot, "bellot", "bellot")


def test_jokers_differing_only_in_ink_colour_are_distinct(bellot_deck):
    """bellot's jokers differ by the colour of the word JOKER; the templates alone told them apart by a margin of 0.28
    in the enrollment's camera views, under the acceptance margin, so neither was ever named."""
    report = bellot_deck.report
    assert report["jokers_distinct"] is True
    assert report["joker_wrong"] == 0 and report["joker_min_margin"] >= report["margin_needed"]
    assert bellot_deck.templates.joker is not None


@pytest.mark.parametrize("gains", [(1.0, 1.0, 1.0), (0.88, 1.0, 1.12), (1.12, 1.0, 0.88)],
                         ids=["plain", "warm light", "cool light"])
@pytest.mark.parametrize("code", ["BJ", "LJ"])
def test_each_joker_is_named_under_a_colour_cast(bellot, bellot_deck, code, gains):
    rec = recognise.Recogniser(bellot_deck)
    scene = synth.render_table(bellot, [synth.CardPose(code, 640, 360, 35), synth.CardPose("7S", 900, 380, -20)],
                               seed=3, hand=False)
    # (the frame is BGR: a warm light raises red and lowers blue)
    frame = np.clip(scene.image * np.array(gains[::-1]), 0, 255).astype(np.uint8)
    reads = rec.identify(frame)
    truth = scene.cards[0].quad.astype(np.float32)
    mine = [r for r in reads if geometry.quad_iou(r.quad, truth) > 0.8]
    assert mine and mine[0].code == code, [(r.code, r.label, round(r.margin, 2)) for r in reads]


def test_jokers_that_are_the_same_picture_stay_unsure(bellot):
    images = dict(bellot)
    images["LJ"] = images["BJ"].copy()
    d = decklib.enroll_images(images, "twins", "twins")
    assert d.report["jokers_distinct"] is False
    rec = recognise.Recogniser(d)
    scene = synth.render_table(images, [synth.CardPose("BJ", 640, 360, 10)], seed=1, hand=False)
    reads = rec.identify(scene.image)
    assert reads and all(r.code is None for r in reads) and any(r.joker for r in reads)


def test_a_deck_file_keeps_the_jokers_colour_and_an_older_file_still_loads(bellot, bellot_deck, tmp_path):
    path = str(tmp_path / "bellot.npz")
    bellot_deck.save(path)
    back = decklib.Deck.load(path)
    assert np.allclose(back.templates.joker, bellot_deck.templates.joker)
    # a file enrolled before the jokers' colour features: the templates alone decide, as they did then
    with np.load(path) as z:
        old = {k: z[k] for k in z.files if k != "joker"}
    np.savez_compressed(path, **old)
    older = decklib.Deck.load(path)
    assert older.templates.joker is None
    label, _, _ = recognise.match(older.templates, features.canonical_card(bellot["LJ"]), True)
    assert label == "LJ"
