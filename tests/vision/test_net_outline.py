"""The learned finder's outline is turned to the edges round it before it is snapped
(``net_outlines._turned_to_edges``): its core map's cells are 7 px of a 1280 px frame, and a small card's core, turned a
few degrees, gave a rectangle square to the frame that snapping could not turn far enough (a lone king in a lamp's glare
on the mat, not found in five drawn designs, scene 500003, with the first networks)."""

import cv2
import numpy as np
import pytest

from vision import finder, geometry, net_outlines, regions
from vision import recognise as rc


def _table_with_card(angle: float, size: tuple[int, int] = (82, 128)) -> tuple[np.ndarray, np.ndarray]:
    """A green table with a white card turned ``angle`` degrees (a dark frame drawn inside it, as a court's), and
    the card's corners."""
    frame = np.full((400, 400, 3), (40, 110, 40), np.uint8)
    box = cv2.boxPoints(((200.0, 200.0), (float(size[0]), float(size[1])), angle)).astype(np.float32)
    cv2.fillConvexPoly(frame, np.round(box).astype(np.int32), (245, 245, 245), lineType=cv2.LINE_AA)
    inner = cv2.boxPoints(((200.0, 200.0), (size[0] * 0.7, size[1] * 0.75), angle))
    cv2.polylines(frame, [np.round(inner).astype(np.int32)], True, (60, 40, 160), 2, lineType=cv2.LINE_AA)
    return cv2.GaussianBlur(frame, (3, 3), 0), box


def _angle(q: np.ndarray) -> float:
    d = q[1] - q[0]
    return float(np.degrees(np.arctan2(d[1], d[0])) % 90.0)


def _square(size: tuple[int, int] = (82, 128)) -> np.ndarray:
    return cv2.boxPoints(((200.0, 200.0), (float(size[0]), float(size[1])), 0.0)).astype(np.float32)


@pytest.mark.parametrize("angle", [-14.0, -6.0, 4.0, 12.0])
def test_an_outline_square_to_the_frame_is_turned_to_the_cards_edges(angle):
    frame, card = _table_with_card(angle)
    _, pale = regions.mask_and_paleness(frame)
    turned = net_outlines._turned_to_edges(pale, _square())
    assert abs((_angle(turned) - _angle(card) + 45) % 90 - 45) < 1.0
    # then snapping puts it on the card
    assert geometry.quad_iou(regions.snap_to_edges(pale, turned), card) > 0.95
    if abs(angle) >= 10:
        # (snapping alone turns a side a little)
        assert geometry.quad_iou(regions.snap_to_edges(pale, _square()), card) < 0.9


def test_an_outline_already_on_the_edges_stays_as_it_is():
    frame, card = _table_with_card(0.0)
    _, pale = regions.mask_and_paleness(frame)
    assert np.array_equal(net_outlines._turned_to_edges(pale, card), card)


def test_no_turn_beyond_a_few_degrees_nor_on_no_edges():
    frame, _ = _table_with_card(35.0)  # (a core that far off is no square rectangle: its own angle stands)
    _, pale = regions.mask_and_paleness(frame)
    assert np.array_equal(net_outlines._turned_to_edges(pale, _square()), _square())
    flat = np.full((400, 400), 0.2, np.float32)
    assert np.array_equal(net_outlines._turned_to_edges(flat, _square()), _square())


def test_a_lone_king_in_a_lamps_glare_is_found_and_read(decks_dir, monkeypatch):
    """The plastic design's scene 500003, enrolled: its king of diamonds lies alone in the lamp's glare, turned 13
    degrees. Its outline turned to the edges, it is found and read; without the turn, not found. (With the networks
    checked in now, corner index seed 2 and finder seed 1, the anglo_modern king of that scene, the first case, is
    found without the turn too, and left unread; of the eight drawn designs only the plastic king is still not found
    without it.)"""
    from tools import synth
    from tools.vision_bench import SCENE_CARDS
    from vision import deck as decklib

    images = synth.load_deck(str(decks_dir / "plastic"))
    scene = synth.random_scene(images, 500003, n_cards=SCENE_CARDS)
    king = next(c for c in scene.cards if c.code == "KD").quad.astype(np.float32)
    rec = rc.Recogniser(decklib.enroll_images(images, "plastic", "plastic"))

    def read_there() -> list[str | None]:
        return [r.code for r in rec.identify(scene.image) if geometry.quad_iou(r.quad, king) > 0.8]

    assert read_there() == ["KD"]
    monkeypatch.setattr(net_outlines, "NET_TURN", False)
    assert read_there() == []


def _small_card_on_carpet(angle: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A small card (60 x 82 px, the size of a card in a 504 px phone photo) turned ``angle`` degrees on a rough grey
    carpet (a grain of single pixels, strong), softened as a phone's picture is, and the card's corners."""
    rng = np.random.default_rng(seed)
    frame = np.clip(120 + rng.normal(0, 50, (400, 400)), 0, 255).astype(np.uint8)
    frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    box = cv2.boxPoints(((200.0, 200.0), (60.0, 82.0), angle)).astype(np.float32)
    cv2.fillConvexPoly(frame, np.round(box).astype(np.int32), (235, 235, 235), lineType=cv2.LINE_AA)
    return cv2.GaussianBlur(frame, (0, 0), 1.2), box


@pytest.mark.parametrize("seed", [1, 2, 4, 5])
def test_a_small_card_on_carpet_is_turned_by_its_strong_edges_where_all_edges_leave_it_square(seed):
    """boxes_train IMG_2566's jack of clubs: 60 px wide on grey carpet, turned 9 degrees. The carpet's grain spreads the
    ring's edge directions so that no peak stands out (``TURN_PEAK``) and the outline stays square to the frame; its
    rim weighed by the gradients' squares turns it (``TURN_STRONG_ALT``: the alternative outline)."""
    frame, card = _small_card_on_carpet(9.0, seed)
    _, pale = regions.mask_and_paleness(frame)
    square = _square((60, 82))
    assert np.array_equal(net_outlines._turned_to_edges(pale, square), square)
    strong = net_outlines._turned_to_edges(pale, square, strong=True)
    assert abs((_angle(strong) - _angle(card) + 45) % 90 - 45) <= 2.0
    assert geometry.quad_iou(regions.snap_to_edges(pale, strong), card) > 0.85


def test_a_small_turned_card_on_carpet_photographed_is_read_from_its_turned_outline(monkeypatch):
    """The photo itself (boxes/train IMG_2566): the jack of clubs is read from the outline turned by its strong edges,
    taken from the first look at the photo into the second look's (enlarged) alternatives; without it, since session
    57, from the view of what differs from the table (``finder._surface_cards``); without both, unsure."""
    from tests.vision.conftest import PHOTOS

    path = PHOTOS / "boxes" / "train" / "IMG_2566.JPG"
    if not path.exists():
        pytest.skip(f"the development photo {path} is not here")
    img = cv2.imread(str(path))
    box = np.float32([[173, 278], [250, 278], [250, 374], [173, 374]])  # the labelled box (IMG_2566.xml)
    rec = rc.Recogniser(None)

    def read_there() -> list[str | None]:
        return [r.code for r in rec.identify(img) if geometry.quad_iou(r.quad, box) > 0.5]

    assert read_there() == ["JC"]
    monkeypatch.setattr(net_outlines, "TURN_STRONG_ALT", False)
    assert read_there() == ["JC"]
    monkeypatch.setattr(finder, "SURFACE_VIEW", False)
    assert read_there() == [None]


def test_a_card_outlined_askew_is_read_from_the_networks_closer_outline(monkeypatch):
    """boxes/train IMG_2579: a jack of clubs on a cream folder, its lower edge faint. The hand-drawn views outline it
    askew; the network's loosest outline (its core at the lowest level) runs 46 px into the folder below, and its
    core at 0.7 lies on the card. With two of the network's outlines as the views' alternatives (``VIEW_ALTS``) the
    card is read from the closer one; with one, unsure."""
    from tests.vision.conftest import PHOTOS

    path = PHOTOS / "boxes" / "train" / "IMG_2579.JPG"
    if not path.exists():
        pytest.skip(f"the development photo {path} is not here")
    img = cv2.imread(str(path))
    box = np.float32([[206, 273], [291, 273], [291, 386], [206, 386]])  # the labelled box (IMG_2579.xml)

    def read_there() -> list[str | None]:
        return [r.code for r in rc.Recogniser(None).identify(img) if geometry.quad_iou(r.quad, box) > 0.5]

    assert read_there() == ["JC"]
    monkeypatch.setattr(net_outlines, "VIEW_ALTS", 1)
    assert read_there() == [None]
