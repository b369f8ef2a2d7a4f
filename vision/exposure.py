"""A photograph exposed too dark, brightened before its cards are looked for, as a camera's auto exposure would;
one under a coloured light, its cast taken out, as a camera's white balance would.

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

A lamp's colour (a warm bulb, a cold LED) or a camera's white balance gives a photograph a cast: the card's white
paper comes out yellow or blue, and the finder's paleness tests and the reader's red ink with it. The development
photos seen through a warm cast (blue 0.7, green 0.9, red 1.08 of their levels) lost a tenth of their reads
(poker_table 196 -> 172, boxes_train 407 -> 363), through a cold one (blue 1.1, red 0.78) more (poker_table 159).
``cast`` measures it on the brightest thousandth of each channel - on a card table, white card paper - and
``adjusted`` takes it out with the brightening in one table look-up. Only a strong cast is taken out
(``CAST_BELOW``): the development photos come with mild ones (a channel's white at 0.84-1.0 of the brightest's in
nine in ten of them, the desk set's at 0.75-0.82), which the finder and the reader were tuned on and read as well
either way.

One card lit unevenly - a lamp's sharp shadow of an arm or a head across it - is relit by ``even_light``: its paper
brought to one level, so that the ink in the shade reads as the ink in the light (``Recogniser._read_relit``, for a
card the first reading did not name).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.quantiles import percentile

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
    level = _bright_level(cv2.max(cv2.max(b, g), r), BRIGHT_SHARE)
    if level >= DIM_BELOW:
        return 1.0
    return min(MAX_GAIN, TARGET / max(level, 1))


# a cast (``cast``): the brightest thousandth of each channel measured against the brightest channel's
CAST_SHARE = 0.001
# a channel whose white is under this share of the brightest channel's has a cast taken out: the development photos
# (boxes_train, desk, poker_table) seen through a warm or a cold cast read a tenth more cards with it taken out, and
# as before when seen as they are (taking out casts from 0.95 down lost four of boxes_train's cards found, three read)
CAST_BELOW = 0.88
# ... and one under this is no cast of white paper: the frame's brightest thing is coloured (no card in view, a
# coloured lamp in the picture), so nothing in it tells what white looks like
CAST_FLOOR = 0.6
CAST_MIN_LEVEL = 100  # and a frame whose brightest level is under this is too dark to tell (noise, a covered lens)
NO_CAST = (1.0, 1.0, 1.0)


def _bright_level(channel: np.ndarray, share: float) -> int:
    """The level (0-255) that all but the brightest ``share`` of ``channel``'s pixels lie at or under."""
    hist = cv2.calcHist([channel], [0], None, [256], [0, 256]).ravel()
    above = np.cumsum(hist[::-1])
    return 255 - int(np.searchsorted(above, share * channel.size))


def cast(frame: np.ndarray) -> tuple[float, float, float]:
    """The factors (blue, green, red) that take a BGR frame's colour cast out (``NO_CAST`` when it has none to take
    out): each channel's brightest thousandth brought to the brightest channel's, when one lies under ``CAST_BELOW``
    of it (and above ``CAST_FLOOR``)."""
    sample = np.ascontiguousarray(frame[::SAMPLE_STEP, ::SAMPLE_STEP])
    if sample.size == 0 or sample.ndim != 3:
        return NO_CAST
    levels = [_bright_level(np.ascontiguousarray(sample[..., c]), CAST_SHARE) for c in range(3)]
    top = max(levels)
    low = min(levels) / max(top, 1)
    if top < CAST_MIN_LEVEL or not CAST_FLOOR <= low < CAST_BELOW:
        return NO_CAST
    b, g, r = (top / max(v, 1) for v in levels)
    return (b, g, r)


def adjusted(frame: np.ndarray, factor: float = 1.0, colour: tuple[float, float, float] = NO_CAST) -> np.ndarray:
    """A BGR frame (8-bit) with its cast taken out (``colour``: ``cast``'s factors) and brightened by ``factor``,
    in one look-up (saturating at 255); the frame itself when there is nothing to change."""
    if factor == 1.0 and colour == NO_CAST:
        return frame
    if colour == NO_CAST or frame.ndim != 3:
        return brighten(frame, factor)
    levels = np.arange(256, dtype=np.float32)[:, None] * (np.float32(factor) * np.array(colour, np.float32))
    lut = np.clip(levels + 0.5, 0, 255).astype(np.uint8).reshape(1, 256, 3)
    return cv2.LUT(frame, lut)


def brighten(frame: np.ndarray, factor: float) -> np.ndarray:
    """``frame`` (8-bit) with every level multiplied by ``factor`` (saturating at 255); the frame itself at 1.0."""
    if factor == 1.0:
        return frame
    lut = np.clip(np.arange(256, dtype=np.float32) * factor + 0.5, 0, 255).astype(np.uint8)
    return cv2.LUT(frame, lut)


# a card's relighting (``even_light``): the paper's level under the ink is a closing (a max filter, then a min
# filter, of the brightest channel) as wide as this share of the card - wider than an index's strokes and a pip, so
# the ink goes, while a shadow's sharp edge stays where it is (a blurred max filter, as ``vision.pips.ink_map`` has,
# spreads the lit paper a pip's width into the shade, where it reads as ink)
PAPER_KERNEL = 0.18
PAPER_SHARE = 0.3  # a level under this share of the lit paper's is no paper at all (a court's picture, a large pip)
MAX_RELIGHT = 3.0  # paper in a shade darker than a third of the lit paper's level is not brightened further
UNEVEN_BELOW = 0.8  # a card is unevenly lit when a tenth of its paper lies under this share of the lit paper's level


def even_light(card: np.ndarray) -> tuple[np.ndarray, float]:
    """A rectified card (BGR, 8-bit) with its paper brought to one level where a shadow or a gradient darkened part
    of it, and how evenly it was lit: the darkest tenth of its paper's level as a share of its lit paper's (1.0:
    even). Every pixel is multiplied by the lit paper's level over the paper's level under it; where that level is
    no paper's (``PAPER_SHARE``) the pixel is left as it is."""
    h, w = card.shape[:2]
    k = max(3, int(round(PAPER_KERNEL * w)) | 1)
    brightest = cv2.max(cv2.max(card[..., 0], card[..., 1]), card[..., 2])
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    paper = cv2.blur(cv2.morphologyEx(brightest, cv2.MORPH_CLOSE, kernel).astype(np.float32), (5, 5))
    lit = percentile(paper, 90)
    is_paper = paper > PAPER_SHARE * lit
    if lit <= 0 or not is_paper.any():
        return card, 1.0
    evenness = percentile(paper[is_paper], 10) / lit
    factor = np.where(is_paper, np.clip(lit / np.maximum(paper, 1.0), 1.0, MAX_RELIGHT), 1.0).astype(np.float32)
    out = np.clip(card.astype(np.float32) * factor[..., None], 0, 255).astype(np.uint8)
    return out, evenness
