"""The generic reader (``vision.glyphs``): rank and suit glyphs of the corner index, no enrollment."""

import cv2
import numpy as np

from tools import synth
from vision import features, geometry, glyphs, recognise


def test_corner_index_finds_rank_and_suit_with_their_colour(tango):
    for code in ("5S", "QH", "7C", "2D"):
        ix = glyphs.corner_index(features.canonical_card(tango[code]))
        assert ix is not None
        assert ix.red == (code[1] in "HD")
        assert ix.rank.shape == (glyphs.RANK_SIZE[0] * glyphs.RANK_SIZE[1],)


def test_a_blank_card_reads_nothing(tuning_templates):
    blank = np.full((geometry.CH, geometry.CW, 3), 235, np.uint8)
    assert glyphs.corner_index(blank) is None
    assert glyphs.read_card(blank, tuning_templates)[1] == 0.0


def test_unseen_design_reads_right_in_both_orientations(tango, tuning_templates):
    # templates from three other designs only; clean images of an unseen deck read right when confident
    right = wrong = 0
    for code in ("AS", "KH", "9C", "5D", "3S", "8H"):
        card = features.canonical_card(tango[code])
        for img in (card, cv2.rotate(card, cv2.ROTATE_180)):
            label, score, margin = glyphs.read_card(img, tuning_templates)
            if margin >= 0.3 and score >= 0.5:
                right += label == code
                wrong += label != code
    assert wrong == 0 and right >= 6


def test_corners_that_disagree_give_no_read(tango, tuning_templates):
    # top half of one card, bottom half of another: the two index corners disagree -> score 0
    a = features.canonical_card(tango["AS"])
    b = features.canonical_card(tango["KH"])
    mixed = np.vstack([a[: geometry.CH // 2], b[geometry.CH // 2 :]])
    assert glyphs.read_card(mixed, tuning_templates)[1] == 0.0


def test_generic_recogniser_never_reads_wrong_on_a_scene(tango):
    rec = recognise.Recogniser(None)
    assert rec.mode == "generic"
    for seed in (3, 4):
        scene = synth.random_scene(tango, seed, n_cards=6)
        for r in rec.identify(scene.image):
            if r.code is None:
                continue
            truth = [c.code for c in scene.cards if geometry.quad_iou(r.quad, c.quad.astype(np.float32)) > 0.5]
            assert truth and truth[0] == r.code
            assert not r.joker


def test_shipped_generic_templates_and_thresholds_belong_together():
    import json

    with open(features.THRESHOLDS_PATH) as f:
        data = json.load(f)
    assert data["generic"]["reader"] == "glyphs+pips"
    assert set(data["generic"]["pips"]) == set("SHDC")
    tpl = glyphs.GlyphTemplates.load()
    assert set(tpl.decks) == {"anglo_modern", "bellot", "neoclassical", "plastic", "simplistic"}
    assert set(tpl.rank_label) == set(glyphs.RANKS) and set(tpl.suit_label) == set("SHDC")
