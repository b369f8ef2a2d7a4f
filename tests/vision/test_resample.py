"""``vision.resample.shrink``: halvings, then one last step."""

import cv2
import numpy as np
import pytest

from vision import resample


def _picture(w: int, h: int) -> np.ndarray:
    rng = np.random.default_rng(7)
    img = cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), (0, 0), 1.0)
    img[h // 4 : h // 2, w // 3 : w // 2] = 250
    return img


@pytest.mark.parametrize(("src", "dst"), [((4000, 3000), (1280, 960)), ((1281, 853), (352, 235)),
                                          ((505, 378), (100, 75)), ((640, 360), (639, 359))])
def test_the_picture_comes_out_at_the_size_asked(src, dst):
    for halve_from in (2.0, 4.0):
        assert resample.shrink(_picture(*src), dst, halve_from).shape == (dst[1], dst[0], 3)


def test_a_picture_already_at_the_size_is_given_back_as_it_is():
    img = _picture(320, 180)
    assert resample.shrink(img, (320, 180)) is img


def test_halvings_then_area_averaging_are_one_area_averaging_where_the_halvings_come_out_even():
    img = _picture(2048, 1536)
    want = cv2.resize(img, (256, 192), interpolation=cv2.INTER_AREA).astype(int)
    assert int(np.abs(resample.shrink(img, (256, 192)).astype(int) - want).max()) <= 1
