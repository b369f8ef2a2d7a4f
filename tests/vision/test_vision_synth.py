import numpy as np

from tools import synth
from vision import mat


def test_scene_ground_truth_matches_the_pixels(tango):
    poses = [synth.CardPose("AS", 400, 400, 30), synth.CardPose("TH", 800, 400, -60)]
    scene = synth.render_table(tango, poses, seed=3, nuisance=synth.Nuisance.none(), hand=False)
    assert scene.image.shape == (synth.FRAME_H, synth.FRAME_W, 3)
    for card in scene.cards:
        assert card.visible > 0.99
        centre = card.quad.mean(axis=0).astype(int)
        # a card face is pale where the felt is green
        b, g, r = scene.image[centre[1] - 3 : centre[1] + 3, centre[0] - 3 : centre[0] + 3].reshape(-1, 3).mean(0)
        assert min(b, g, r) > 80 or card.code == "AS"
        # the quad is where the card was put: its centre maps back to the pose in mat coordinates
        back = np.linalg.inv(scene.mat_to_frame) @ [*card.quad.mean(axis=0), 1]
        assert abs(back[0] / back[2] - card.pose.x) < 3 and abs(back[1] / back[2] - card.pose.y) < 3


def test_overlap_reduces_visibility_and_seed_is_deterministic(tango):
    poses = [synth.CardPose("AS", 600, 400, 0), synth.CardPose("KD", 640, 420, 20)]
    a = synth.render_table(tango, poses, seed=5)
    b = synth.render_table(tango, poses, seed=5)
    assert np.array_equal(a.image, b.image)
    assert a.cards[0].visible < 0.7 and a.cards[1].visible > 0.95


def test_random_scene_keeps_cards_on_the_mat(tango):
    scene = synth.random_scene(tango, seed=11, n_cards=8)
    assert 4 <= len(scene.cards) <= 8
    for card in scene.cards:
        assert 0 <= card.pose.x <= mat.MAT_W and 0 <= card.pose.y <= mat.MAT_H
        assert 0.0 <= card.visible <= 1.0


def test_video_emits_a_play_per_card_and_a_gather(tango):
    tricks = [[(0, "AS"), (1, "KS"), (2, "QS"), (3, "JS")]]
    events = []
    n = 0
    for frame, evs in synth.play_video(tango, tricks, seed=1, fps=8):
        assert frame.shape == (synth.FRAME_H, synth.FRAME_W, 3)
        events += [(n, e.kind, e.seat, e.code) for e in evs]
        n += 1
    assert [e[1] for e in events] == ["play"] * 4 + ["gather"]
    assert [e[3] for e in events[:4]] == ["AS", "KS", "QS", "JS"]
    assert [e[0] for e in events] == sorted(e[0] for e in events)


def test_video_refuses_a_seat_the_table_does_not_have(tango):
    import pytest

    with pytest.raises(ValueError, match="seat 4 is not a seat of a 4-seat table"):
        next(synth.play_video(tango, [[(0, "AS"), (4, "KS")]]))
    with pytest.raises(ValueError, match="seat 5"):
        next(synth.play_video(tango, [[(5, "AS")]], seats=5))
