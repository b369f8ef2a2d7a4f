"""The generic pip reader's per-suit thresholds: a colour pair's confusion counts in both directions."""

import json

from vision import features


def test_a_suit_needs_the_stricter_margin_of_its_colour_pair(tmp_path):
    path = tmp_path / "thresholds.json"
    pips = {"S": {"score": 0.5, "margin": 0.43}, "C": {"score": 0.5, "margin": 0.1},
            "H": {"score": 0.5, "margin": 0.1}, "D": {"score": 0.6, "margin": 0.2}}
    path.write_text(json.dumps({"generic": {"score": 0.75, "margin": 0.57, "pips": pips}}))
    th = features.load_thresholds(str(path))
    assert th["generic_pips_C"] == th["generic_pips_S"] == features.Thresholds(0.5, 0.43)
    assert th["generic_pips_H"] == th["generic_pips_D"] == features.Thresholds(0.6, 0.2)
    # a club read at margin 0.29 (an ornate ace of spades read as a club) is no longer accepted
    assert not th["generic_pips_C"].accept(0.9, 0.29)


def test_the_shipped_thresholds_pair_the_black_suits():
    th = features.load_thresholds()
    assert th["generic_pips_C"] == th["generic_pips_S"]
    assert th["generic_pips_H"] == th["generic_pips_D"]
