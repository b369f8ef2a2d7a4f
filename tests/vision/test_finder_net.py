"""The learned card finder: its maps, the cards read from them, its training scenes, and what it adds on real
photographs."""

from pathlib import Path

import cv2
import numpy as np
import pytest

PHOTOS = Path(__file__).resolve().parents[3] / "shared" / "photos"


def test_the_shipped_network_gives_maps_at_half_its_input():
    from vision import finder_net

    net = finder_net.FinderNet()
    frame = np.full((480, 640, 3), 90, np.uint8)
    face, core, scale = net.maps(frame)
    # 640 x 480 is seen at NET_SIDE x (3/4 of it); the maps are at half that
    side = finder_net.NET_SIDE
    assert face.shape == core.shape == (round(0.75 * side) // 2, side // 2)
    assert scale == pytest.approx(2 * 640 / side)
    assert 0.0 <= float(face.min()) and float(face.max()) <= 1.0
    assert float(core.max()) < finder_net.CORE_LEVELS[0][0]  # a bare grey table holds no card


def test_a_missing_model_is_named():
    from vision import finder_net

    with pytest.raises(FileNotFoundError, match="cardref vision train"):
        finder_net.FinderNet("/nonexistent/finder_net.onnx")


def _core_map(cards: list[tuple[float, float, float, float]], shape=(100, 140)) -> np.ndarray:
    """A core map (cells) with each card (centre x, y, width, height in cells, upright) as the network marks it at
    its lowest level only: the face shrunk by the inset, and a little larger (that level's bleed)."""
    from vision import finder_net as fn

    (low, bleed), (next_level, _) = fn.CORE_LEVELS[:2]
    core = np.zeros(shape, np.float32)
    for cx, cy, w, h in cards:
        ins = fn.CORE_INSET * w
        cw, ch = (w - 2 * ins) * bleed, (h - 2 * ins) * bleed
        core[int(round(cy - ch / 2)) : int(round(cy + ch / 2)),
             int(round(cx - cw / 2)) : int(round(cx + cw / 2))] = (low + next_level) / 2
    return core


def test_a_core_is_grown_back_to_its_cards_outline():
    from vision import finder_net as fn

    core = _core_map([(50, 45, 30, 42)])
    cards = fn.net_cards(core, core, 4.0, 30.0)
    assert len(cards) == 1
    quad = cards[0].quad
    sides = sorted({round(float(np.linalg.norm(quad[i] - quad[i - 1]))) for i in range(4)})
    # 30 x 42 cells of 4 px: a card 120 x 168 px, within a tenth (snapping then moves each side onto the card's
    # edge, up to a tenth of its width away)
    assert sides[0] == pytest.approx(120, rel=0.1) and sides[-1] == pytest.approx(168, rel=0.1)
    assert np.allclose(quad.mean(axis=0), (50 * 4 + 1.5, 45 * 4 + 1.5), atol=4)
    assert cards[0].fill > 0.9


def test_touching_cards_have_cores_apart_and_small_ones_are_left_out():
    from vision import finder_net as fn

    core = _core_map([(40, 50, 30, 42), (70, 50, 30, 42), (120, 20, 6, 8)])
    cards = fn.net_cards(core, core, 4.0, 30.0)
    assert len(cards) == 2  # the two touching cards; the 24 px one is under min_side
    assert sorted(round(float(c.quad[:, 0].mean()) / 4) for c in cards) == [40, 70]


def _plain_card() -> np.ndarray:
    card = np.full((179, 128, 3), 245, np.uint8)
    cv2.circle(card, (64, 90), 20, (20, 20, 20), -1)
    cv2.putText(card, "A", (6, 30), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 200), 2)
    return card


def test_training_scenes_mark_each_card_and_keep_touching_cores_apart():
    from tools import train_finder as tf

    rng = np.random.default_rng(3)
    w, h = tf.SCENE
    img = np.full((h, w, 3), 60.0, np.float32)
    owner = np.zeros((h, w), np.int32)
    cores: list[np.ndarray] = []
    # two cards 60 px wide side by side, the second over the first by a tenth of its width
    tf._paint_cards(rng, img, owner, cores, [_plain_card()], 2, 60.0, [(100.0, 96.0, 0.0), (154.0, 96.0, 0.0)])
    y = tf._targets(owner, cores)
    face, core = y[0], y[1]
    assert face.shape == (h // 2, w // 2)
    assert not (core & (1 - face)).any()  # a core lies inside a face
    assert cv2.connectedComponents(face)[0] - 1 == 1  # the faces touch: one region
    assert cv2.connectedComponents(core)[0] - 1 == 2  # the cores do not: one per card


def test_training_scenes_are_deterministic_and_consistent():
    from tools import train_finder as tf

    decks = [[_plain_card()]]
    # (numpy's generator and OpenCV's, whose sensor noise it draws: each job of ``make_data`` seeds both)
    cv2.setRNGSeed(7)
    a = tf.synthetic_scene(np.random.default_rng(7), decks, [])
    cv2.setRNGSeed(7)
    b = tf.synthetic_scene(np.random.default_rng(7), decks, [])
    assert all(np.array_equal(p, q) for p, q in zip(a, b, strict=True))
    for seed in range(20):
        img, y, ign = tf.synthetic_scene(np.random.default_rng(seed), decks, [])
        assert img.shape == (tf.SCENE[1], tf.SCENE[0], 3) and img.dtype == np.uint8
        assert y.shape == (2, tf.SCENE[1] // 2, tf.SCENE[0] // 2)
        assert not (y[1] & (1 - y[0])).any()
        assert not ign.any()  # a drawn scene is all known


def _boxes(name: str) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    import xml.etree.ElementTree as ET

    folder = PHOTOS / "boxes" / "train"
    if not (folder / f"{name}.JPG").exists():
        pytest.skip(f"the development photos are not at {folder}")
    img = cv2.imread(str(folder / f"{name}.JPG"))
    boxes = []
    for o in ET.parse(folder / f"{name}.xml").getroot().iter("bndbox"):
        boxes.append(tuple(float(o.find(k).text) for k in ("xmin", "ymin", "xmax", "ymax")))
    return img, boxes


def _found(quads, boxes) -> int:
    from tools.photo_bench import box_iou

    n = 0
    for b in boxes:
        if any(box_iou((float(q.pts[:, 0].min()), float(q.pts[:, 1].min()), float(q.pts[:, 0].max()),
                        float(q.pts[:, 1].max())), b) >= 0.5 for q in quads):
            n += 1
    return n


@pytest.mark.parametrize("name,least", [("IMG_2579", 4), ("IMG_2471", 1)])
def test_the_network_finds_cards_the_hand_drawn_views_miss(name, least):
    """Four cards on a pale cardboard folder (white on cream: the views drawn by hand outline the folder, not the
    cards; the network sees no card face on the folder and a sure one on the two lone jacks, which the views had
    outlined and dropped as the folder's parts: all four are found now), and a nine of clubs half in the shadow of
    a lamp. (Training photos, but these cards were left out of the finder's loss: its hand-drawn views had missed
    them.)"""
    from vision import finder

    img, boxes = _boxes(name)
    centre = (img.shape[1] / 2, img.shape[0] / 2)
    without = _found(finder.find_cards(img, centre=centre, learned=False), boxes)
    with_net = _found(finder.find_cards(img, centre=centre), boxes)
    assert without < least <= with_net


def test_without_its_model_the_finder_runs_on_its_hand_drawn_views(monkeypatch):
    """Only while the network is being made from scratch is its file missing; the finder then finds what its
    hand-drawn views find (``learned=False``), without error. boxes/train IMG_2404: a card on carpet that only the
    network finds."""
    from vision import finder

    img, _ = _boxes("IMG_2404")
    centre = (img.shape[1] / 2, img.shape[0] / 2)
    hand = [q.pts.tolist() for q in finder.find_cards(img, centre=centre, learned=False)]
    assert len(finder.find_cards(img, centre=centre)) == len(hand) + 1
    monkeypatch.setattr(finder, "FINDER_PATH", "/nonexistent/finder_net.onnx")
    assert [q.pts.tolist() for q in finder.find_cards(img, centre=centre)] == hand
