"""A photograph exposed too dark, brightened before its cards are looked for, as a camera's auto exposure would.

The finder's tests are absolute in places (a card face is brighter than 90, Canny's gradient thresholds, the rim's
contrast in Lab levels): they were set on photographs whose card white sits near full scale. In a dim room, or
where a camera's exposure is set for something brighter, the same scene arrives with every level scaled down, and
those tests lose cards that are plainly there: the development photos with every level scaled to 0.45 and sensor
noise added lost a third of poker_table's cards (found / read 221 / 165 -> 151 / 106) and boxes_train's reads fell
393 -> 366; brightened by the frame's own brightest levels first, 220 / 161 and 442 found / 383 read
(``docs/vision.md``, *Photographs*, session 17).

Only a frame whose brightest thousandth is dimmer than ``DIM_BELOW`` is changed, so a frame exposed as a camera
normally exposes a table with cards on it is read exactly as before. ``Recogniser.identify`` measures each photograph
(no mat); the play detector measures its camera on the table, and again when the table is still.
"""

from __future__ import annotations

import cv2
import numpy as np

# the brightest channel's level that the brightest thousandth of a frame's pixels reach: a white card face, the
# brightest thing on most card tables (poker_table 247-255, boxes_test 229-255; phone photos in a dim room, desk
# query, down to 145)
BRIGHT_SHARE = 0.001
DIM_BELOW = 200  # a frame whose brightest thousandth is dimmer than this is brightened...
TARGET = 235  # ... so that it reaches this (not full scale: a card's white must not clip into its neighbours)
MAX_GAIN = 3.0  # at most (a frame darker still is mostly noise, which a gain would not make cards of)
SAMPLE_STEP = 4  # every fourth pixel of every fourth row measures the frame (its brightest levels, not its detail)


def gain(frame: np.ndarray) -> float:
    """The factor a BGR frame's levels are multiplied by before finding (1.0: exposed well enough, left as it is)."""
    sample = frame[::SAMPLE_STEP, ::SAMPLE_STEP]
    if sample.size == 0:
        return 1.0
    b, g, r = cv2.split(np.ascontiguousarray(sample))
    v = cv2.max(cv2.max(b, g), r)
    hist = cv2.calcHist([v], [0], None, [256], [0, 256]).ravel()
    # the level below which all but the brightest thousandth lie
    above = np.cumsum(hist[::-1])
    level = 255 - int(np.searchsorted(above, BRIGHT_SHARE * v.size))
    if level >= DIM_BELOW:
        return 1.0
    return min(MAX_GAIN, TARGET / max(level, 1))


def brighten(frame: np.ndarray, factor: float) -> np.ndarray:
    """``frame`` (8-bit) with every level multiplied by ``factor`` (saturating at 255); the frame itself at 1.0."""
    if factor == 1.0:
        return frame
    lut = np.clip(np.arange(256, dtype=np.float32) * factor + 0.5, 0, 255).astype(np.uint8)
    return cv2.LUT(frame, lut)
