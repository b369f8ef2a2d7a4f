"""A photograph exposed too dark is brightened before its cards are looked for (``vision.exposure``)."""

from collections import Counter

import numpy as np
import pytest

from vision import exposure


def _table(card_white: int, table: int = 60) -> np.ndarray:
    frame = np.full((480, 640, 3), table, np.uint8)
    frame[100:260, 200:320] = card_white  # a card, far more than a thousandth of the frame
    return frame


def test_a_frame_exposed_as_usual_is_left_as_it_is():
    frame = _table(240)
    assert exposure.gain(frame) == 1.0
    assert exposure.brighten(frame, 1.0) is frame


def test_a_dim_frame_is_brought_up_until_its_card_white_reaches_the_target():
    frame = _table(110, table=30)
    g = exposure.gain(frame)
    assert g == pytest.approx(exposure.TARGET / 110)
    out = exposure.brighten(frame, g)
    assert abs(int(out[150, 250, 0]) - exposure.TARGET) <= 1
    assert int(out[0, 0, 0]) == round(30 * g)  # every level by the same factor: the contrast is the scene's


def test_a_frame_nearly_black_gets_no_more_than_the_greatest_gain():
    assert exposure.gain(_table(20, table=5)) == exposure.MAX_GAIN
    assert exposure.gain(np.zeros((0, 0, 3), np.uint8)) == 1.0


def test_brightening_saturates_instead_of_wrapping():
    frame = np.array([[[200, 100, 0]]], np.uint8)
    assert exposure.brighten(frame, 2.0).tolist() == [[[255, 200, 0]]]


@pytest.mark.parametrize("name", ["train_10.jpg", "train_13.jpg"])
def test_a_pale_table_photographed_in_a_dim_room_is_read_as_in_a_bright_one(name, poker_photo):
    """poker_table's photo with every level scaled to 0.45 (a dim room, or an exposure set for something brighter):
    before, no card of either photo was read (the finder's absolute tests lost them); brightened first, as many are
    read as from the photo itself, none wrong."""
    from vision.recognise import Recogniser

    img, truth = poker_photo(name, 1920)
    dim = (img.astype(np.float32) * 0.45 + 0.5).astype(np.uint8)
    rec = Recogniser()
    bright = Counter(r.code for r in rec.identify(img) if r.code)
    dark = Counter(r.code for r in rec.identify(dim) if r.code)
    assert not dark - truth
    assert sum((dark & truth).values()) >= sum((bright & truth).values()) - 1 >= 6


def test_a_dark_frame_with_no_card_gives_none_once_brightened():
    """The greatest gain makes a dark table's noise three times louder: still no card is found in it."""
    import cv2

    from vision.recognise import Recogniser

    rng = np.random.default_rng(1)
    frame = cv2.GaussianBlur(np.clip(rng.normal(40, 8, (720, 1280, 3)), 0, 255).astype(np.uint8), (0, 0), 2)
    assert exposure.gain(frame) == exposure.MAX_GAIN
    assert Recogniser().identify(frame) == []
