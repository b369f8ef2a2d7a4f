"""The finder's surface view (``finder._surface_cards``): a card is any region that differs from the table round it,
looked for where no other view outlined anything - a court whose picture runs to a thin margin, lying alone on the
mat and touching its lines."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from tools import synth, vision_bench
from vision import deck as decklib
from vision import finder, geometry, recognise

PHOTOS = Path(__file__).resolve().parents[3] / "shared" / "photos"

# the held-out paris' jacks of clubs not found at all before the view, alone on the felt (500010's was outlined in part
# only, by the network's outline judged partly covered: the view's outline is that one's alternative, read by the
# enrolled mode below)
PARIS_JACKS = (500030, 500039)


def _best_iou(quads: list[np.ndarray], truth: np.ndarray) -> float:
    return max((geometry.quad_iou(q, truth) for q in quads), default=0.0)


@pytest.mark.parametrize("seed", PARIS_JACKS)
def test_a_picture_card_alone_on_the_mat_is_outlined(decks_dir, monkeypatch, seed):
    """Each jack is outlined by the generic reader (IoU > 0.9) with the view, and by nothing as well without it."""
    scene = synth.random_scene(synth.load_deck(str(decks_dir / "paris")), seed, n_cards=vision_bench.SCENE_CARDS)
    truth = next(c for c in scene.cards if c.code == "JC").quad.astype(np.float32)
    rec = recognise.generic_recogniser()
    assert _best_iou([r.quad for r in rec.identify(scene.image)], truth) > 0.9
    monkeypatch.setattr(finder, "SURFACE_VIEW", False)
    assert _best_iou([r.quad for r in rec.identify(scene.image)], truth) < 0.9


def test_the_enrolled_deck_reads_the_jacks_outlined_so(decks_dir, monkeypatch):
    """paris enrolled reads the three jacks from the view's outlines, 500010's as the alternative of the part of it
    the network outlined; none without the view."""
    folder = decks_dir / "paris"
    rec = recognise.Recogniser(decklib.enroll_dir(str(folder)))
    images = synth.load_deck(str(folder))

    def named() -> list[list[str | None]]:
        out = []
        for seed in (500010, *PARIS_JACKS):
            scene = synth.random_scene(images, seed, n_cards=vision_bench.SCENE_CARDS)
            truth = next(c for c in scene.cards if c.code == "JC").quad.astype(np.float32)
            out.append([r.code for r in rec.identify(scene.image) if geometry.quad_iou(r.quad, truth) > 0.9])
        return out

    assert named() == [["JC"]] * 3
    monkeypatch.setattr(finder, "SURFACE_VIEW", False)
    assert named() == [[]] * 3


def test_touching_cards_are_not_one_region(monkeypatch):
    """boxes_train IMG_2578: a queen of clubs and a king of spades touching on dark wood differ from the table
    together, and their joint region fitted a card-shaped quad across both (and the table between) that pushed both
    aside; the view now adds nothing where other outlines lie, and only regions that fill their outline."""
    path = PHOTOS / "boxes" / "train" / "IMG_2578.JPG"
    if not path.exists():
        pytest.skip("the development photos ../shared/photos/boxes are not here")
    img = cv2.imread(str(path))
    on = [q.pts for q in finder.find_cards(img)]
    monkeypatch.setattr(finder, "SURFACE_VIEW", False)
    off = [q.pts for q in finder.find_cards(img)]
    assert len(on) == len(off) == 3
    assert all(np.abs(a - b).max() < 0.5 for a, b in zip(on, off, strict=True))


def test_a_region_must_fill_its_outline_and_be_a_cards_size():
    """A lone pale card on a dark table is found by the view alone (no other outline given); a region that fills
    under ``SURFACE_FILL`` of its quad (an L of two cards) or is far from the cards' size found elsewhere is not."""
    frame = np.full((480, 640, 3), (40, 90, 40), np.uint8)
    card = np.array([[200, 120], [270, 120], [270, 220], [200, 220]], np.int32)
    cv2.fillConvexPoly(frame, card, (235, 235, 235))
    pale = finder.card_paleness(frame)
    found, alts = finder._surface_cards(frame, 30.0, (320.0, 240.0), [], pale)
    assert alts == {} and len(found) == 1 and geometry.quad_iou(found[0][1].pts, card.astype(np.float32)) > 0.9
    small = geometry.Quad(np.array([[10, 10], [40, 10], [40, 55], [10, 55]], np.float32), 1.0)
    found, _ = finder._surface_cards(frame, 30.0, (320.0, 240.0), [], pale, card_area=0.2 * 70 * 100)
    assert found == []
    assert finder._met_known(card.astype(np.float32), [small]) == []
    ell = np.full((480, 640, 3), (40, 90, 40), np.uint8)
    cv2.fillConvexPoly(ell, np.array([[100, 100], [170, 100], [170, 200], [100, 200]], np.int32), (235, 235, 235))
    cv2.fillConvexPoly(ell, np.array([[170, 150], [270, 150], [270, 200], [170, 200]], np.int32), (235, 235, 235))
    found, _ = finder._surface_cards(ell, 30.0, (320.0, 240.0), [], finder.card_paleness(ell))
    assert found == []
