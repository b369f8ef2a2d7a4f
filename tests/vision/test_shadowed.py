"""A card a sharp shadow's edge crosses (``vision.shadowed``): its parts are joined across the edge only when the edge
is a shadow's, one that runs on across the table dimming it alike."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import geometry, shadowed

PHOTOS = Path(__file__).resolve().parents[3] / "shared" / "photos"
CARD = np.float32([[150, 90], [290, 120], [250, 310], [110, 280]])  # (a card 143 x 194 px, turned 12 degrees)


def _scene(shadow_on_table: bool) -> tuple[np.ndarray, list[np.ndarray]]:
    """A white card on a grey table, its lower part at half the light (below the line y = 0.3 x + 125, a third of the
    way down): under a shadow that runs on across the table, or (``shadow_on_table`` False) painted grey on the card
    alone. And the card's two parts as the pale-regions view gives them, the edge line between them cut out (5 px)."""
    rng = np.random.default_rng(1)
    h, w = 420, 420
    table = np.full((h, w, 3), (96, 104, 110), np.float32) + rng.normal(0, 4, (h, w, 3)).astype(np.float32)
    card = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(card, CARD.astype(np.int32), 255)
    frame = np.where(card[..., None] > 0, np.float32(238), table)
    yy, xx = np.mgrid[0:h, 0:w]
    shade = yy > 0.3 * xx + 125
    region = shade if shadow_on_table else shade & (card > 0)
    frame[region] *= 0.5
    frame = np.clip(frame, 0, 255).astype(np.uint8)
    line = np.abs(yy - (0.3 * xx + 125)) <= 2.5
    parts = []
    for side in (shade, ~shade):
        m = ((card > 0) & side & ~line).astype(np.uint8) * 255
        contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        parts.append(max(contours, key=cv2.contourArea))
    return frame, parts


def test_a_cards_parts_are_joined_across_a_shadows_edge_that_runs_on_across_the_table():
    frame, parts = _scene(shadow_on_table=True)
    mask = np.full(frame.shape[:2], 255, np.uint8)
    found = shadowed.joined_across_shadow(frame, mask, parts, 30.0)
    assert len(found) == 1
    assert geometry.quad_iou(found[0][1].pts, CARD) > 0.9


def test_a_grey_part_whose_edge_stops_at_the_card_is_not_a_shadow():
    """The same card with its lower part grey but the table lit alike on both sides of that edge's line (a card
    beside a grey strip of the table would look so): the parts step alike in every channel, by half, yet the edge
    does not run on across the table, so they are not joined."""
    frame, parts = _scene(shadow_on_table=False)
    mask = np.full(frame.shape[:2], 255, np.uint8)
    assert shadowed.joined_across_shadow(frame, mask, parts, 30.0) == []


def test_a_coloured_step_is_not_a_shadow():
    """A shadow dims every channel alike: the lower part made blue (its red and green at a third, its blue at 0.8)
    is no shadow, though the table beyond is dimmed the same way."""
    frame, parts = _scene(shadow_on_table=True)
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    shade = yy > 0.3 * xx + 125
    lit = np.where(shade[..., None], frame.astype(np.float32) * 2, frame.astype(np.float32))
    blue = np.where(shade[..., None], lit * np.float32([0.8, 0.33, 0.33]), lit)
    frame = np.clip(blue, 0, 255).astype(np.uint8)
    assert shadowed.joined_across_shadow(frame, np.full((h, w), 255, np.uint8), parts, 30.0) == []


def test_an_ace_under_a_lamps_band_on_carpet_is_found_and_read(monkeypatch):
    """boxes_train IMG_2390 under the photo bench's shadow band (``--alter shadow``): the band's edges cross the ace
    of diamonds on a carpet, cutting its pale region into three parts, none a card's shape. Joined across the two
    edges, which run on across the carpet, the ace is outlined and read; without the join it is not found."""
    from tools import photo_bench as pb
    from vision.recognise import Recogniser

    path = PHOTOS / "boxes" / "train" / "IMG_2390.JPG"
    if not path.exists():
        pytest.skip("the development photos ../shared/photos/boxes are not here")
    img, _ = pb.load_photo(str(path), 1920)
    img, _ = pb.altered(img, "shadow", path.name)
    assert [r.code for r in Recogniser().identify(img)] == ["AD"]
    monkeypatch.setattr(shadowed, "JOIN_ACROSS_SHADOW", False)
    assert Recogniser().identify(img) == []


def _boxes_photo(name: str, alter: str) -> np.ndarray:
    from tools import photo_bench as pb

    path = PHOTOS / "boxes" / "train" / name
    if not path.exists():
        pytest.skip("the development photos ../shared/photos/boxes are not here")
    img, _ = pb.load_photo(str(path), 1920)
    return pb.altered(img, alter, name)[0]


def test_two_overlapping_cards_under_one_shadow_are_not_joined_into_one(monkeypatch):
    """boxes_train IMG_2623 under the bench's band: an ace of spades lies over a jack of diamonds, the band across
    both. Each card's lit part joins the shade they share, and the union of the two has a card's shape with a notch
    (0.82 of its hull): it is not a card (``SHADOW_SOLID``), and the jack is read as without the join. Taken, the
    union outlined the pair and the jack went unread."""
    from vision.recognise import Recogniser

    img = _boxes_photo("IMG_2623.JPG", "shadow")
    assert "JD" in [r.code for r in Recogniser().identify(img)]
    monkeypatch.setattr(shadowed, "SHADOW_SOLID", 0.0)
    assert "JD" not in [r.code for r in Recogniser().identify(img)]


def test_an_outline_joined_or_extended_must_lie_in_the_frame_and_be_no_wider_than_a_card_can_be():
    """``_fits_frame``: inside the frame (within 2 px) and its shorter side at most 0.6 of the frame's (a table top
    with a shadow across it is pale parts that can join to a card's shape)."""
    shape = (504, 378, 3)
    card = np.float32([[100, 100], [240, 100], [240, 300], [100, 300]])
    assert shadowed._fits_frame(card, shape)
    assert not shadowed._fits_frame(card - [110, 0], shape)  # (a third of it off the frame's left)
    table = np.float32([[10, 60], [360, 60], [360, 500], [10, 500]])
    assert not shadowed._fits_frame(table, shape)  # (350 px wide, 0.6 of 378 is 227)
