"""The development aid that sorts a drawn scene's unread whole cards by why they were missed."""

import numpy as np

from tools import drawn_misses, synth
from vision import geometry, recognise


def test_each_whole_card_missed_is_sorted_by_why(tango):
    poses = [synth.CardPose("7D", 400, 360, 10), synth.CardPose("QS", 700, 360, 80), synth.CardPose("4H", 1000, 360, 0)]
    scene = synth.render_table(tango, poses, seed=2, nuisance=synth.Nuisance.none(), hand=False)
    seven, queen, four = (c.quad.astype(np.float32) for c in scene.cards)
    loose = seven.copy()
    loose[1:3, 0] += 0.6 * (loose[1:3, 0] - loose[0:1, 0].repeat(2))  # stretched sideways
    assert 0.5 < geometry.quad_iou(loose, seven) <= 0.8
    reads = [recognise.Read(None, "QS", 0.7, 0.1, queen), recognise.Read("4D", "4D", 0.9, 0.5, four),
             recognise.Read(None, "7D", 0.4, 0.0, loose)]
    why = {m.code: m.why for m in drawn_misses.misses_of_scene(scene, reads, 2)}
    assert why == {"7D": "loose outline", "QS": "unsure", "4H": "wrong"}
    right = [recognise.Read(c.code, c.code, 0.95, 0.6, c.quad.astype(np.float32)) for c in scene.cards]
    assert drawn_misses.misses_of_scene(scene, right, 2) == []
    assert {m.why for m in drawn_misses.misses_of_scene(scene, [], 2)} == {"not found"}
