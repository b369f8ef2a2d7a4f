import numpy as np

from vision import bench, recognise


def _o(truth, label, score, margin):
    return bench.Outcome("d", "enrolled", "whole", truth, label, score, margin, False)


def test_thresholds_exclude_every_wrong_read_with_a_gap():
    outs = [_o("AS", "AS", s, m) for s, m in zip(np.linspace(0.85, 0.99, 50), np.linspace(0.9, 0.2, 50), strict=True)]
    outs += [_o("5S", "5C", 0.93, 0.31), _o("7D", "8D", 0.6, 0.8)]
    th, curve = bench.choose_thresholds(outs, whole=52)
    for o in outs:
        if o.truth != o.label:
            assert not th.accept(o.score, o.margin)
    assert th.margin >= 0.32 + bench.SAFETY_GAP - 1e-9
    risks = [c["risk"] for c in curve]
    assert risks[0] > 0 and risks[-1] == 0


def test_margin_is_one_on_the_template_itself(tango, tango_deck):
    import cv2

    images = tango
    card = recognise.canonical_card(images["5S"])
    label, score, margin = recognise.match(tango_deck.templates, card, True)
    assert label == "5S" and score > 0.99 and margin > 0.95
    label, _, margin = recognise.match(tango_deck.templates, cv2.rotate(card, cv2.ROTATE_180), True)
    assert label == "5S" and margin > 0.9
