"""Finding cards in a frame and reading them, with an enrolled deck or in the generic (corner index) mode.

Pipeline: pale, unsaturated pixels (card faces) minus the edges inside them give one region per visible card face
(a card lying on another is cut off by its rim); each region's outline is fitted with four lines -> a quad ->
rectified to a canonical upright card in both 0 and 180 degree orientations. Enrolled mode compares the whole face
and the corner index with the enrolled images by normalised cross-correlation; generic mode reads the corner index
glyph by glyph (``vision.glyphs``), with glyphs of the tuning decks. A read is accepted only when its score and its
margin over the best other label clear thresholds measured on the tuning decks (``vision/thresholds.json``, written
by ``cardref vision tune``).
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from vision import exposure, finder_net, index_net, pips, resample
from vision import glyphs as glyphlib

CW, CH = 120, 170  # canonical rectified card, pixels
FACE_SIZE = (30, 42)
CORNER_BOX = (0.0, 0.0, 0.25, 0.30)  # x0, y0, x1, y1 as fractions of the card: the index
READ_INSET = 1.5  # pixels: reading a slightly inset quad keeps the rim and its shadow out (measured: fewer misreads)
PUSH = 3.5  # pixels a region outline is pushed out: the edges cut away about that much of the card
SHIFT = 4  # pixels of misalignment searched when matching the corner index
FIND_SIDE = 1280  # longest side (pixels) of the image the finder searches; larger frames are shrunk to it
# cards found whole whose median short side (in the finder's picture) is under SMALL_CARD_SIDE pixels are looked for
# again in the picture enlarged until it is FIND_CARD_SIDE: the finder's kernels, Canny's blur and its size limits
# are in pixels, and a webcam's view of a whole table gives cards of 40-55 px. The enlarging stops at
# MAX_FIND_UPSCALE times the frame's own pixels (and so at that many times FIND_SIDE): at twice, a webcam's noise and
# JPEG blocks, enlarged too, cut a pale table's faint card edges apart (poker_table's train_06, 10 and 27 at 800 px:
# 12 / 10 / 9 outlines at 1.6 times with noise, 8 / 6 / 7 at twice; with JPEG 11 / 5 / 6 against 6 / 3 / 5).
# poker_table shrunk to 640 px found / read 169 / 88 -> 214 / 137, at 800 px 192 / 121 -> 208 / 152, as the
# webcam alteration of ``tools.photo_bench`` leaves it 180 / 101 -> 189 / 123 (at full size 221 / 165, unchanged:
# its cards are 85 px in the finder's picture). A card target of 80 or 96 px found fewer at 800 px
SMALL_CARD_SIDE = 64.0
FIND_CARD_SIDE = 88.0
MAX_FIND_UPSCALE = 1.6
# a small frame (at most FIND_SIDE / SMALL_FRAME_UPSCALE on its longer side) in which nothing whole was found is
# looked at again enlarged SMALL_FRAME_UPSCALE times, and the outlines found whole there where the first look found
# nothing are added: a card seen small and obliquely in a webcam's or a small photo's frame comes out of the finder's
# pale views in pieces (a king's picture cuts its pale region apart, the closed mask leaves its colours out), and no
# card found whole gives the size that the second look above enlarges to. boxes_train's 504 x 378 photos seen by a
# camera tilted 30 degrees (``tools.photo_bench --alter tilt30``): a king of spades alone on dark wood, 85 px across
# (IMG_2464), and two more found and read (whole 268 / 251 -> 271 / 254 of 288); 1.6 times found one of the three.
# Every other alteration of the boxes and desk sets: the same or one more, none wrong
SMALL_FRAME_LOOK = True
SMALL_FRAME_UPSCALE = 2.0
# a pale blob is a pile to look for the top card of unless a card found whole lies on it at 0.8 to this many times its
# area (that card and the band round it); an outline far larger holding it is the surface it lies on (a drawn
# scene's mat, outlined whole, explained its pile: scene 500058)
PILE_EXPLAINED = 2.0
EDGE_LEVELS = ((15, 45),)  # Canny thresholds of the edge-region view: sensitive, for a card barely paler than its table
RIM_PLAIN = 0.6  # see rim_contrast: a card's rim band varies by less than 0.4 x 60 Lab lightness levels
RIM_CONTRAST = 12.0  # Lab distance between a card's rim band and the surface around it
FINDER_PATH = finder_net.MODEL_PATH
NET_RIM_CONTRAST = 6.0  # the learned finder's outlines: half the contrast (its own face map is the other evidence)
NET_FACE = 0.5  # the least mean face probability the finder network gives inside an outline it offers
# an outline inside one of the network's whole cards at no more than this share of its area is a part of it (a pip,
# a picture): less than half, for two cards side by side, taken by the network for one, have a card's shape too
NET_PART_SHARE = 0.4
# ... but where the network's card has the size of the cards found whole in the frame (within NET_SAME_SIZE of their
# median area), it is one card, not two taken for one, and an outline inside it up to NET_PART_SHARE_SIZED of it is
# a part: a jack of spades with a cable across it, outlined by the views as its left half (boxes_train IMG_2621)
NET_PART_SHARE_SIZED = 0.6
NET_SAME_SIZE = 1.25
# an outline nothing reads is still reported (an unsure card) when the learned finder sees a whole card there this
# surely (mean face probability inside) and its rim stands out from the table (``NET_RIM_CONTRAST``)
SEEN_FACE = 0.9
NET_NOT_CARD = 0.6  # a hand-drawn view's outline where the network sees less face than this gives way to its cards
# an outline round two of the network's cards, each PAIR_SHARE of its area, overlapping by under PAIR_IOU and
# together PAIR_FILL of it, is a card lying partly on another (``_holds_pair``)
PAIR_SHARE = (0.25, 0.75)
PAIR_IOU = 0.2
PAIR_FILL = 0.75
# how far (Lab a, b: hue and chroma, not lightness, which shadows change) the rim band of the better-seen card of a
# split pair may lie from the colour of the paper of the cards seen whole in the same frame: on poker_table 0-4 for
# pairs of faces, 8.5-17.5 for pairs of backs (blue or red patterns)
PAPER_AB = 7.0
# a region with one card's shape, split as a pair of which neither card shows itself on top, is one card seen larger
# than its neighbours (nearer the camera; the drawn scenes draw each card at 0.88-1.12 of its size): its region
# fills its rectangle (at least ``ONE_CARD_FILL``), has the card's long-to-short ratio (within ``ONE_CARD_RATIO``) and
# at most ``ONE_CARD_AREA`` times the nearest card's area. Measured (fill, ratio to the card's): such lone cards
# split in halves 0.82-0.97, 0.86-1.13 (33 in 200 drawn scenes); real pairs of the drawn scenes fill at most 0.77,
# and the one real pair of the development photos with fill and ratio in range showed its top card (train_18)
# (Tried in session 14 and dropped: taking an ambiguous split for one card when a view had outlined the pair's hull
# whole, at IoU 0.85, to save a lone plastic 3D whose region held its glare too. On poker_table it merged two real
# pairs, train_16's QC and train_18's 3C, each with an outline over both that looked whole.)
ONE_CARD_FILL = 0.8
ONE_CARD_RATIO = 0.12
ONE_CARD_AREA = 1.7
# the card seen whole inside a split region must be one of the pair, at IoU at least ``SPLIT_SAME``: the development
# photos' splits matched theirs at 0.76-0.98; splits fitted at a neighbour's size to a larger card lying on a sliver
# of another matched it at 0.44-0.56 (drawn tuning scenes), and had pushed the card's own exact outline out
SPLIT_SAME = 0.7
# a region that a card seen whole fills to this share is that card, not a pair: a lone ten of spades on a pale table
# (poker_table train_18), its region 1.16 cards' area with the band round it, was split into two pieces of 0.8 of a
# card, one of them matching the card seen whole at IoU 0.73, past SPLIT_SAME; a pair's top card fills at most 0.87 of
# the smallest region taken apart (1.15 cards), and then its card under shows less than a fifth of itself. The card
# seen whole may be outlined loosely (at most NET_SAME_SIZE of a card's area, and then of any shape): a lone ace of
# spades outlined 105 x 126 px with a strip of table, no size reference at that shape, was split so too (train_20)
SPLIT_ONE_SHARE = 0.8
THRESHOLDS_PATH = os.path.join(os.path.dirname(__file__), "thresholds.json")
CROSS_CHECK_P = 0.9  # the corner-index network's probability (both corners) that vetoes an enrolled read


@dataclass
class Quad:
    """A detected card outline: 4x2 frame points, and how much it looks like a whole card (0..1)."""

    pts: np.ndarray
    whole: float
    # other outlines of the same card, seen by another view (the learned finder's, where the hand-drawn one was kept):
    # read when this one reads nothing
    alt: tuple[np.ndarray, ...] = ()
    face: float = 0.0  # the learned finder's mean face probability inside (0: not measured)
    # the learned finder's outlines: how much the rim differs from what lies round it (``rim_contrast``), and
    # whether a side is clearly darker inside than outside (a court's picture with the card's paper round it)
    contrast: float = 0.0
    framed: bool = False


@dataclass
class Read:
    """One card found in a frame. ``code`` is None when unsure; ``label`` is the best guess even then."""

    code: str | None
    label: str
    confidence: float
    margin: float
    quad: np.ndarray
    joker: bool = False
    face_down: bool = False
    whole: float = 1.0

    def to_json(self) -> dict:
        d: dict = {
            "code": self.code,
            "confidence": round(float(self.confidence), 3),
            "margin": round(float(self.margin), 3),
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad],
        }
        if self.code is None:
            d["guess"] = self.label
        if self.joker:
            d["joker"] = True
        if self.face_down:
            d["face_down"] = True
        return d


# ---------------------------------------------------------------- detection


def _grey_below_table(limit: int) -> np.ndarray:
    """Per value V (0-255): how many channel spreads (max - min, from 0) OpenCV's HSV conversion gives a saturation
    under ``limit`` at that value. Its saturation depends on V and the spread alone and grows with the spread, so
    ``S < limit`` is ``spread < table[V]`` (checked on all 2^24 colours); the table is OpenCV's own numbers."""
    v = np.repeat(np.arange(256, dtype=np.uint8), 256)
    low = np.tile(np.arange(256, dtype=np.uint8), 256)
    keep = low <= v
    px = np.stack([v[keep], low[keep], low[keep]], axis=1).reshape(1, -1, 3)
    s = cv2.cvtColor(px, cv2.COLOR_BGR2HSV)[0, :, 1]
    return np.bincount(v[keep][s < limit], minlength=256).astype(np.uint8)


_GREY_BELOW_75 = _grey_below_table(75)


def _mask_and_paleness(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``card_mask`` and ``card_paleness`` of a frame from one split of its channels: the HSV value is the brightest
    channel, the paleness the darkest, and the saturation test a table of their difference (``_grey_below_table``),
    so the frame is neither converted to HSV nor split twice."""
    b, g, r = cv2.split(frame)
    v = cv2.max(cv2.max(b, g), r)
    pale = cv2.min(cv2.min(b, g), r)
    grey = cv2.compare(cv2.subtract(v, pale), cv2.LUT(v, _GREY_BELOW_75), cv2.CMP_LT)  # HSV saturation < 75
    # local brightness reference so a shadowed card still counts and a glare-bleached felt does not
    ref = cv2.blur(v, (61, 61))
    # (OpenCV's saturating arithmetic: where ref < 40, "v > 0" stands for "v > ref - 40", the same where v > 90)
    m = cv2.bitwise_and(grey, cv2.compare(v, 90, cv2.CMP_GT))
    return cv2.bitwise_and(m, cv2.compare(v, cv2.subtract(ref, 40), cv2.CMP_GT)), pale


def card_mask(frame: np.ndarray) -> np.ndarray:
    """Pixels that may be a card face: pale and unsaturated relative to their surroundings."""
    return _mask_and_paleness(frame)[0]


def _vlen(v: np.ndarray) -> np.floating:
    """``np.linalg.norm`` of one float vector, the same value (its own formula, ``sqrt(v . v)``) without its
    argument checks, which cost more than the sum on a hot path."""
    return np.sqrt(v.dot(v))


def _centre(quad: np.ndarray) -> np.ndarray:
    """``quad.mean(axis=0)`` of a quad's four corners, the same values (numpy's mean is this sum divided by the count,
    exact for four) without its overhead, which was most of its cost on a hot path."""
    return quad.sum(axis=0) / 4


def _focal_prior(centre: tuple[float, float]) -> float:
    """The focal length taken where a view does not give it: 1.5 times the half frame, 0.75 of the image's longer
    side (a phone's or a webcam's is about 0.6-0.9 of it)."""
    return 1.5 * max(centre)


def _moved(pts: np.ndarray, h: np.ndarray) -> np.ndarray:
    """The points ``pts`` (any shape holding (x, y) pairs) taken by the homography ``h``, as an (n, 2) float64 array."""
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float64), h).reshape(-1, 2)


def _row_lengths(v: np.ndarray) -> np.ndarray:
    """``np.linalg.norm(v, axis=1)`` of a real array, the same values (its own formula for that case) without its
    argument checks."""
    return np.sqrt((v * v).sum(axis=1))


def _line_intersection(l1: np.ndarray, l2: np.ndarray) -> np.ndarray | None:
    (vx1, vy1, x1, y1), (vx2, vy2, x2, y2) = l1.tolist(), l2.tolist()
    det = vx2 * vy1 - vx1 * vy2  # of [[vx1, -vx2], [vy1, -vy2]], solved by Cramer's rule (a hot path)
    if abs(det) < 1e-6:
        return None
    t = (vx2 * (y2 - y1) - vy2 * (x2 - x1)) / det
    return np.array([x1 + t * vx1, y1 + t * vy1])


def fit_quad(contour: np.ndarray, hull: np.ndarray | None = None) -> np.ndarray | None:
    """Four corners of a rounded rectangle seen in perspective: fit a line to each side and intersect them
    (``hull``: the contour's convex hull, when the caller has it)."""
    hull = cv2.convexHull(contour) if hull is None else hull
    # the smallest-extra-area quad around the hull: its sides extend the card's straight edges past the rounding
    a = cv2.approxPolyN(hull, 4, epsilon_percentage=-1, ensure_convex=True)
    if a is None or a.size != 8:
        return None
    approx = a.reshape(4, 2).astype(np.float32)
    pts = contour.reshape(-1, 2).astype(np.float32)
    # the four sides at once (the outline has a few hundred points: numpy's per-call cost is most of the work)
    d = approx[_NEXT] - approx
    n = np.array([_vlen(v) for v in d], np.float32)
    if (n < 5).any():
        return None
    d /= n[:, None]
    # (each point less each corner, as complex numbers: the same float32 differences as broadcasting over the pairs
    # of coordinates, in a quarter of the time)
    rel = pts.view(np.complex64)[None, :, 0] - approx.view(np.complex64)[:, None, 0]
    rel = rel.view(np.float32).reshape(4, -1, 2)
    along = np.matmul(rel, d[:, :, None])[..., 0]  # (per side the same BLAS product as ``rel[i] @ d[i]``, batched)
    dist = np.abs(rel[..., 0] * d[:, 1:2] - rel[..., 1] * d[:, 0:1])
    # the middle of each side only: the rounded corners would pull the line inward
    sel = (along > 0.15 * n[:, None]) & (along < 0.85 * n[:, None]) & (dist < np.maximum(4.0, 0.015 * n)[:, None])
    lines = []
    for i, k in enumerate(sel.sum(axis=1).tolist()):
        if k < 5:
            lines.append(np.array([d[i, 0], d[i, 1], approx[i, 0], approx[i, 1]]))
        else:
            lines.append(cv2.fitLine(pts[sel[i]], cv2.DIST_L2, 0, 0.01, 0.01).ravel())
    corners = []
    for i in range(4):
        c = _line_intersection(lines[i - 1], lines[i])
        if c is None:
            return None
        corners.append(c)
    quad = np.array(corners, np.float32)
    if np.abs(quad - approx).max() > 0.15 * np.sqrt(cv2.contourArea(approx)) + 3:
        return None
    return quad


def _orient(quad: np.ndarray) -> np.ndarray:
    """Reorder to TL, TR, BR, BL of an upright card: clockwise, first side a short side (the 0/180 ambiguity stays)."""
    q = quad.copy()
    c = q.sum(axis=0) / 4  # (``mean``: the same values, dividing by four is exact)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]  # clockwise in image coordinates (y down)
    s01 = _vlen(q[1] - q[0]) + _vlen(q[3] - q[2])
    s12 = _vlen(q[2] - q[1]) + _vlen(q[0] - q[3])
    if s01 > s12:
        q = q[_NEXT]
    return q


def _triple(a: tuple[float, float, float], b: tuple[float, float, float], c: tuple[float, float, float]) -> float:
    """(a x b) . c of three 3-vectors."""
    (a0, a1, a2), (b0, b1, b2), (c0, c1, c2) = a, b, c
    return (a1 * b2 - a2 * b1) * c0 + (a2 * b0 - a0 * b2) * c1 + (a0 * b1 - a1 * b0) * c2


_NEXT = np.array([1, 2, 3, 0])  # a quad's corners shifted by one: corner i's neighbour (np.roll costs more)
_PREV = np.array([3, 0, 1, 2])  # ... and the other way: its neighbour before it


MAX_TILT = 60.0  # degrees: the most oblique view of the table taken for a card seen obliquely (the spec: ~30)
_COS_TILT = float(np.cos(np.radians(MAX_TILT)))


def plane_aspect(quad: np.ndarray, centre: tuple[float, float], focal: float | None = None) -> float | None:
    """The width / height (side 0-1 over side 1-2) of the rectangle whose perspective image is ``quad`` (TL, TR,
    BR, BL), for a pinhole camera with its principal point at ``centre`` and an unknown focal length (Zhang & He,
    whiteboard scanning, 2007: the focal length follows from the two vanishing points being orthogonal). When the
    view leaves the focal length undefined (a pair of sides parallel in the image: tilted straight towards the
    camera, or seen square-on) ``focal`` is used if given, else None; None too when the solution is not a camera,
    or the rectangle would be seen more than ``MAX_TILT`` off square-on.

    (In plain floats: it runs for every candidate outline, and numpy's per-call cost on 3-vectors was most of it.)"""
    m1, m2, m4, m3 = ((float(p[0]), float(p[1]), 1.0) for p in quad)
    den2 = _triple(m2, m4, m3)
    den3 = _triple(m3, m4, m2)
    if abs(den2) < 1e-9 or abs(den3) < 1e-9:
        return None
    k2 = _triple(m1, m4, m3) / den2
    k3 = _triple(m1, m4, m2) / den3
    n2 = (k2 * m2[0] - m1[0], k2 * m2[1] - m1[1], k2 - 1.0)
    n3 = (k3 * m3[0] - m1[0], k3 * m3[1] - m1[1], k3 - 1.0)
    u0, v0 = float(centre[0]), float(centre[1])
    scale = max(abs(float(v)) for p in quad for v in p)
    f: float | None = None
    if (abs(n2[2]) > 1e-3 and abs(n3[2]) > 1e-3
            and abs(n2[2] * n3[2]) * scale * scale > 1e-6 * abs(n2[0] * n3[0] + n2[1] * n3[1])):
        f2 = -((n2[0] * n3[0] - (n2[0] * n3[2] + n2[2] * n3[0]) * u0 + n2[2] * n3[2] * u0 * u0)
               + (n2[1] * n3[1] - (n2[1] * n3[2] + n2[2] * n3[1]) * v0 + n2[2] * n3[2] * v0 * v0)) / (n2[2] * n3[2])
        f = f2 ** 0.5 if f2 > 0 else None
        # not a camera's (a phone's or webcam's: 0.5-1 of the image's longer side, a zoom up to about 3): near a
        # degenerate view (two sides almost parallel) the vanishing points give any value, which then decides the
        # aspect - a card 55 degrees off came out 1.78 long with f = 0.38 of the image
        if f is not None and not 0.5 * 2 * max(u0, v0) < f < 4 * 2 * max(u0, v0):
            f = None
    if f is None:  # near that limit the vanishing points are too far to give it: the prior, if any
        if focal is None:
            return None
        f = focal
    # the sides' directions in space: the inverse camera matrix applied to the vanishing points
    a2 = ((n2[0] - u0 * n2[2]) / f, (n2[1] - v0 * n2[2]) / f, n2[2])
    a3 = ((n3[0] - u0 * n3[2]) / f, (n3[1] - v0 * n3[2]) / f, n3[2])
    # the table seen more than MAX_TILT off square-on: no camera over a card table looks that flat, while any
    # convex quad (a pair of cards, a patch of table) is the image of a card-shaped rectangle tilted far enough
    normal = (a2[1] * a3[2] - a2[2] * a3[1], a2[2] * a3[0] - a2[0] * a3[2], a2[0] * a3[1] - a2[1] * a3[0])
    if abs(normal[2]) < _COS_TILT * (normal[0] ** 2 + normal[1] ** 2 + normal[2] ** 2) ** 0.5:
        return None
    return ((a2[0] ** 2 + a2[1] ** 2 + a2[2] ** 2) / (a3[0] ** 2 + a3[1] ** 2 + a3[2] ** 2)) ** 0.5


CARD_ASPECT = (1.25, 1.7)  # long / short of a real card's face, undistorted: poker 1.40, bridge 1.56, others between


def _quad_from_contour(c: np.ndarray, min_side: float, centre: tuple[float, float] | None = None,
                       hull: np.ndarray | None = None, focal: float | None = None) -> Quad | None:
    """A card outline from a region's contour, or None. With ``centre`` (the principal point: the middle of the
    whole camera image) a quad whose sides in the image are not card-like may still be a card seen obliquely: its
    aspect is then taken in the table's plane (``plane_aspect``). ``hull``: the contour's convex hull, when the caller
    has it. ``focal``: the camera's focal length in pixels, where ``centre`` is not the middle of the image searched
    (a region of a camera's frame); else ``_focal_prior``."""
    area = cv2.contourArea(c)
    if area < min_side * min_side * 1.3:
        return None
    hull = cv2.convexHull(c) if hull is None else hull
    (_, _), (rw, rh), _ = cv2.minAreaRect(hull)  # (the same rectangle as the contour's, from fewer points)
    short, long = min(rw, rh), max(rw, rh)
    # (seen obliquely, a card's image is longer: up to about 2.8 for a poker card 55 degrees off; its aspect in the
    # table's plane is checked below)
    low, high = (1.05, 2.1) if centre is None else (1.0, 2.8)
    if short < 0.9 * min_side or not low <= long / max(short, 1) < high or area < 0.5 * rw * rh:
        return None
    quad = fit_quad(c, hull)
    if quad is None:
        return None
    quad = _orient(quad)
    short = (_vlen(quad[1] - quad[0]) + _vlen(quad[3] - quad[2])) / 2
    long = (_vlen(quad[2] - quad[1]) + _vlen(quad[0] - quad[3])) / 2
    ratio = None
    if centre is not None:
        # a phone's or webcam's focal length is about 0.6-0.9 of the image's longer side: the prior where the view
        # does not give it. Whatever its sides' ratio in the image, a quad that is no rectangle seen from a camera
        # over the table (one seen more than MAX_TILT off) is no card: a pair of cards' outline can have a card's
        # ratio
        ratio = plane_aspect(quad, centre, focal=focal or _focal_prior(centre))
        if ratio is None:
            return None
    if short >= min_side and not 1.15 < long / short < 1.9 and centre is not None:
        if ratio is not None and ratio > 1:  # the card's long side is the quad's first side: turn it
            quad = quad[_NEXT]
            ratio = 1 / ratio
        if ratio is None or not CARD_ASPECT[0] < 1 / ratio < CARD_ASPECT[1]:
            return None
        short = (_vlen(quad[1] - quad[0]) + _vlen(quad[3] - quad[2])) / 2
    elif short < min_side or not 1.15 < long / short < 1.9:
        return None
    # how much of the outline runs along the quad's sides: a whole card ~1, a pile or a covered card less
    pts = hull.reshape(-1, 2).astype(np.float32)
    # the hull walked in steps of about 2 px (every other one kept), as one array: edge i gives k_i points
    step = np.concatenate((pts[1:], pts[:1])) - pts
    ks = np.maximum(1, (_row_lengths(step) / 2).astype(int))
    idx = np.repeat(np.arange(len(pts)), ks)[::2]  # (only the points kept are computed)
    frac = (np.arange(0, len(idx) * 2 - 1, 2) - (np.cumsum(ks) - ks)[idx]) / ks[idx]
    dense_pts = pts[idx] + step[idx] * frac[:, None].astype(np.float32)
    nxt = quad[_NEXT]
    dirs = (nxt - quad) / np.maximum(_row_lengths(nxt - quad), 1e-6)[:, None]
    rel = (dense_pts.view(np.complex64) - quad.view(np.complex64).T).view(np.float32).reshape(-1, 4, 2)
    dist = np.abs(rel[..., 0] * dirs[None, :, 1] - rel[..., 1] * dirs[None, :, 0]).min(axis=1)
    # (in pixels, or a share of the card when it is seen large: a photographed card is bent a little and its lens
    # bows straight edges by more than 3.5 px over a few hundred)
    agree = np.count_nonzero(dist < max(3.5, 0.012 * short)) / len(dist)  # (the mean of the booleans: the same)
    qa = cv2.contourArea(quad)
    fill = area / qa if qa > 0 else 0.0
    if agree < 0.6 or fill < 0.5:
        return None
    # a region cut out by the dilated edges lost a rim of ~2 px: push the corners back out
    cen = _centre(quad)
    quad = cen + (quad - cen) * (1 + PUSH / (short / 2))
    return Quad(quad.astype(np.float32), float(min(1.0, agree / 0.92)))


def _rim_band(shape: tuple[int, ...], quad: np.ndarray) -> tuple[int, int, np.ndarray] | None:
    """The band 2-7 px inside the quad, where every card face has its plain, pale margin: a mask over the quad's
    bounding box (clipped to an image of ``shape``) and the box's top-left corner, or None when nothing is left."""
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - 1, 0)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    w, h = min(int(x1), shape[1]) - int(x0), min(int(y1), shape[0]) - int(y0)
    if w <= 0 or h <= 0:
        return None
    cen = _centre(quad)
    half = _row_lengths(quad - cen).sum() / 4
    band = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(band, np.round(cen + (quad - cen) * (1 - 2 / half) - [x0, y0]).astype(np.int32), 1)
    cv2.fillConvexPoly(band, np.round(cen + (quad - cen) * (1 - 7 / half) - [x0, y0]).astype(np.int32), 0)
    return int(x0), int(y0), band


def rim_pale(mask: np.ndarray, quad: np.ndarray) -> float:
    """Share of pale pixels in the band 2-7 px inside the quad (``_rim_band``)."""
    rb = _rim_band(mask.shape, quad)
    if rb is None:
        return 0.0
    x0, y0, band = rb
    roi = mask[y0 : y0 + band.shape[0], x0 : x0 + band.shape[1]]
    n = np.count_nonzero(band)
    return float(np.count_nonzero(np.logical_and(roi, band))) / n if n else 0.0


def _band_lab(frame: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The median Lab colour of the band 2-7 px inside the quad (``_rim_band``: a face's plain margin)."""
    rb = _rim_band(frame.shape, quad)
    if rb is None:
        return np.zeros(3, np.float32)
    x0, y0, band = rb
    px = frame[y0 : y0 + band.shape[0], x0 : x0 + band.shape[1]][band > 0]
    if len(px) == 0:
        return np.zeros(3, np.float32)
    # per channel, the middle of a partial sort of the bytes (``np.median`` of them as float32: the same values)
    lab = np.ascontiguousarray(cv2.cvtColor(px.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3).T)
    k = len(px) // 2
    if len(px) % 2:
        return np.partition(lab, k, axis=1)[:, k].astype(np.float32)
    mid = np.partition(lab, [k - 1, k], axis=1)[:, k - 1 : k + 1].astype(np.float32)
    return (mid[:, 0] + mid[:, 1]) / 2


_DEG3, _DEG10, _DEG15 = (float(np.deg2rad(d)) for d in (3, 10, 15))


def _lines_in(edges: np.ndarray, min_len: float) -> list[tuple[float, float]]:
    """Straight edges as (angle in [0, pi), signed offset), near-duplicates merged."""
    segs = cv2.HoughLinesP(edges, 1, np.pi / 180, threshold=int(min_len * 0.6), minLineLength=int(min_len),
                           maxLineGap=4)
    lines: list[tuple[float, float]] = []
    if segs is None:
        return lines
    for x1, y1, x2, y2 in segs.reshape(-1, 4)[:80].tolist():  # (Python ints: the same values, cheaper arithmetic)
        th = float(np.arctan2(y2 - y1, x2 - x1) % np.pi)
        n = (-np.sin(th), np.cos(th))
        off = float(n[0] * x1 + n[1] * y1)
        for a, o in lines:
            da = min(abs(a - th), np.pi - abs(a - th))
            if da < _DEG3 and abs(o - off if abs(a - th) < np.pi / 2 else o + off) < 4:
                break
        else:
            lines.append((th, off))
    return lines


def _meet(l1: tuple[float, float, float], l2: tuple[float, float, float]) -> np.ndarray | None:
    """Where two lines meet, each given as (-sin a, cos a, o) of -sin(a) x + cos(a) y = o; None when they are too
    near parallel."""
    # (solved by Cramer's rule: called for every pair of pairs of lines, each line's sine and cosine taken once)
    (s1, c1, o1), (s2, c2, o2) = l1, l2
    det = s1 * c2 - c1 * s2
    if abs(det) < 0.2:
        return None
    return np.array([(o1 * c2 - c1 * o2) / det, (s1 * o2 - o1 * s2) / det])


_SIDE_T = np.linspace(0.12, 0.88, 24)


def _side_supports(edges_dil: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """Per quad (K, 4, 2): the share of points along its four sides (corners left out) that lie on an edge (0 for a
    quad reaching out of the image)."""
    nxt = quads[:, _NEXT]
    p = np.round((quads[:, :, None, :] + (nxt - quads)[:, :, None, :] * _SIDE_T[None, None, :, None])
                 .reshape(len(quads), -1, 2)).astype(int)
    h, w = edges_dil.shape
    ok = ((p[..., 0] >= 0) & (p[..., 0] < w) & (p[..., 1] >= 0) & (p[..., 1] < h)).all(axis=1)
    on = edges_dil[np.clip(p[..., 1], 0, h - 1), np.clip(p[..., 0], 0, w - 1)] > 0
    return np.where(ok, on.mean(axis=1), 0.0)


def _same_outline(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two quads outline the same card: about the same size, their middles within a tenth of its size."""
    aa = cv2.contourArea(a)
    return 0.8 < aa / max(cv2.contourArea(b), 1.0) < 1.25 and _vlen(a.mean(axis=0) - b.mean(axis=0)) < 0.1 * np.sqrt(aa)


# a pile's top card has the table's card size within this share of its area (``find_cards``)
PILE_SIZE_TOLERANCE = 0.3
# where a pile's best rectangle is smaller than a card, the best of a card's size round it is the top (``pile_top``):
# a court's picture frame, card-shaped and edged all round, can outscore its card's own outline (drawn scene 500014,
# a king of diamonds across a fan of two cards, not found in nine tuning designs)
PILE_TOP_AROUND = True
PILE_AROUND_TOLERANCE = 0.2
PILE_AROUND_SCORE = 0.9


def pile_top(edges_raw: np.ndarray, edges_dil: np.ndarray, contour: np.ndarray, min_side: float,
             known: list[np.ndarray] | None = None, card_area: float | None = None) -> list[np.ndarray]:
    """The top card of a pile: the card-shaped rectangle of straight edges whose four sides are all unbroken
    (a covered card always has a side cut by the card above it); none when no rectangle's sides are. Where that
    rectangle is a card already found whole (one of ``known``), the next best lying apart from it and from them
    comes too: a pale blob that joined a lone card to a pile had its top found in the lone card alone, and the
    pile's top card was lost (drawn scene 500034, across designs).

    With ``card_area`` (the table's card area), where that rectangle is smaller than a card (``PILE_TOP_AROUND``),
    the top is instead the best rectangle round it of the card's size (within ``PILE_AROUND_TOLERANCE``), holding
    its centre and larger than it, none unless its sides score ``PILE_AROUND_SCORE``; the rectangles found apart
    from a known card still come."""
    x, y, w, h = cv2.boundingRect(contour)
    pad = 6
    x0, y0 = max(x - pad, 0), max(y - pad, 0)
    x1, y1 = min(x + w + pad, edges_raw.shape[1]), min(y + h + pad, edges_raw.shape[0])
    roi_mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(roi_mask, [contour - [x0, y0]], -1, 255, -1)
    roi_mask = cv2.dilate(roi_mask, np.ones((7, 7), np.uint8))
    e_raw = cv2.bitwise_and(edges_raw[y0:y1, x0:x1], roi_mask)
    e_dil = edges_dil[y0:y1, x0:x1]
    lines = _lines_in(e_raw, min_side * 0.7)
    if len(lines) < 2:
        return []
    # the pairs of near-parallel lines farther apart than a card's short side, then the pairs of such pairs that
    # cross at near right angles with a card's aspect, each as one array operation (in the order of the nested
    # loops over them: the first of equal scores is kept)
    ang, offs = (np.array(v, np.float64) for v in zip(*lines, strict=True))
    ii, jj = np.triu_indices(len(lines), 1)
    da = np.abs(ang[ii] - ang[jj])
    sep = np.abs(offs[ii] - np.where(da < np.pi / 2, offs[jj], -offs[jj]))
    keep = (np.minimum(da, np.pi - da) < _DEG10) & (sep > min_side)
    pi_, pj, pa, pd = ii[keep], jj[keep], ang[ii[keep]], sep[keep]
    p1s, p2s = np.triu_indices(len(pa), 1)
    da2 = np.abs(pa[p1s] - pa[p2s]) % np.pi
    ratio = np.maximum(pd[p1s], pd[p2s]) / np.minimum(pd[p1s], pd[p2s])
    keep2 = (np.abs(da2 - np.pi / 2) <= _DEG15) & (1.2 < ratio) & (ratio < 1.75)
    quads = []
    forms = [(-np.sin(a), np.cos(a), o) for a, o in lines]
    meets: dict[tuple[int, int], np.ndarray | None] = {}  # (a pair of lines meets in several candidates)

    def meet(i: int, j: int) -> np.ndarray | None:
        if (i, j) not in meets:
            meets[i, j] = _meet(forms[i], forms[j])
        return meets[i, j]

    for p1, p2 in zip(p1s[keep2].tolist(), p2s[keep2].tolist(), strict=True):
        i1, j1, i2, j2 = int(pi_[p1]), int(pj[p1]), int(pi_[p2]), int(pj[p2])
        corners = [meet(i1, i2), meet(i2, j1), meet(j1, j2), meet(j2, i1)]
        if any(c is None for c in corners):
            continue
        quads.append(np.array(corners, np.float32))
    if not quads:
        return []
    # every candidate's side support at once; the first best, as the loop over them kept
    scores = _side_supports(e_dil, np.stack(quads))
    off = np.array([x0, y0], np.float32)
    mine = [k - off for k in known or []]

    def top(among: list[int]) -> list[np.ndarray]:
        """The best of the candidates ``among`` (indices), and where it is a known card the best lying apart."""
        best = quads[among[int(scores[among].argmax())]]
        out = [_orient(best + off)]
        if any(_same_outline(best, k) for k in mine):
            apart = [(float(scores[i]), quads[i]) for i in among
                     if scores[i] >= 0.85 and not _overlaps(quads[i], [best])
                     and not any(_same_outline(quads[i], k) for k in mine)]
            if apart:
                out.append(_orient(max(apart, key=lambda t: t[0])[1] + off))
        return out

    k = int(scores.argmax())
    if scores[k] < 0.85:
        return []
    first = top(list(range(len(quads))))
    least = cv2.contourArea(quads[k])
    if card_area is None or not PILE_TOP_AROUND or least >= (1 - PILE_SIZE_TOLERANCE) * card_area:
        return first
    # (the best is a court's picture frame, card-shaped and edged all round; its card lies round it)
    mid = tuple(map(float, _centre(quads[k])))
    areas = [cv2.contourArea(q) for q in quads]
    around = [i for i, q in enumerate(quads) if abs(areas[i] / card_area - 1) < PILE_AROUND_TOLERANCE
              and areas[i] > least and cv2.pointPolygonTest(q, mid, False) > 0]
    if not around or scores[around].max() < PILE_AROUND_SCORE:
        return first[1:]
    return top(around) + first[1:]


RIM_W, RIM_H, RIM_M = 48, 68, 5  # the card warped small for its rim test: inner size and margin around it, pixels


def _quantile_sorted(v: np.ndarray, q: float) -> float:
    """``np.percentile(v, 100 q)`` (linear) of an already sorted 1-d array."""
    pos = q * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return float(v[lo] + (v[hi] - v[lo]) * (pos - lo))


def _median_sorted(v: np.ndarray) -> np.ndarray:
    """``np.median(v, axis=0)`` of an array already sorted along axis 0."""
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def rim_contrast(frame: np.ndarray, quad: np.ndarray, two_sides: bool = False,
                 bands: list[tuple[np.ndarray, np.ndarray]] | None = None) -> tuple[float, float]:
    """(how plain the card's rim band is, how much it differs from what lies around it), in Lab units.

    Every card face has a plain margin inside its edge, whatever its design; the table around it differs from it in
    brightness or colour (the user's surface is plain, not necessarily dark or green). The quad with a margin round
    it is warped to a small upright card; the band 1-3 px (2-6 % of the width) inside each side and the band
    1-3 px outside it are compared, the corners (rounded on a real card) left out. Plainness: 1 - the spread of
    the inside band's lightness (10-90 %) along a side / 60 (median over the sides); contrast: the Lab distance
    between the two bands' medians, per side, averaged over the sides (a side darker inside counts 0).
    ``two_sides``: plainness of the second plainest side (two sides plain suffice), not the median one. ``bands``, if
    given, receives each side's (inside, outside) median Lab colour (top, bottom, left, right)."""
    w, h, m = RIM_W, RIM_H, RIM_M
    src = np.array([[m, m], [m + w, m], [m + w, m + h], [m, m + h]], np.float32)
    hm = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    small = cv2.warpPerspective(frame, hm, (w + 2 * m, h + 2 * m), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
    # to Lab after the warp: converting a whole frame costs more than all the rest of the search
    img = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    cx0, cx1 = m + int(0.2 * w), m + int(0.8 * w)
    cy0, cy1 = m + int(0.15 * h), m + int(0.85 * h)
    sides = [(img[m + 1 : m + 4, cx0:cx1], img[m - 4 : m - 1, cx0:cx1]),
             (img[m + h - 4 : m + h - 1, cx0:cx1], img[m + h + 1 : m + h + 4, cx0:cx1]),
             (img[cy0:cy1, m + 1 : m + 4], img[cy0:cy1, m - 4 : m - 1]),
             (img[cy0:cy1, m + w - 4 : m + w - 1], img[cy0:cy1, m + w + 1 : m + w + 4])]
    # the spread along each side, not over all four: a large card under a lamp or a window is lit unevenly from
    # one end to the other, while its rim's lightness along one side varies little
    # (per-channel medians and the 10-90 % spread from one sort per band: numpy's median and percentile, whose
    # per-call overhead was most of this function's time)
    spread, meds = [], []
    for a, b in sides:
        sa, sb = np.sort(a.reshape(-1, 3), axis=0), np.sort(b.reshape(-1, 3), axis=0)
        spread.append(_quantile_sorted(sa[:, 0], 0.9) - _quantile_sorted(sa[:, 0], 0.1))
        meds.append((_median_sorted(sa), _median_sorted(sb)))
    if bands is not None:
        bands.extend(meds)
    spread.sort()
    # (``np.median`` of the four, without its overhead; or the second plainest)
    plain = 1.0 - (spread[1] if two_sides else (spread[1] + spread[2]) / 2) / 60.0
    contrast = sum(_side_contrast(ma, mb) for ma, mb in meds) / 4
    return plain, contrast


def _side_contrast(inside: np.ndarray, outside: np.ndarray) -> float:
    """One side's rim contrast from its bands' median Lab colours: their distance, or 0 where the rim is darker."""
    # a card's paper is at least as light as what it lies on (on a pale table only a little lighter): a side darker
    # inside than outside is not a card's edge (a patch of felt beside an arm, a shadow's border)
    return float(_vlen(inside - outside)) if inside[0] >= outside[0] - 3 else 0.0


def _size_bonus(quad: np.ndarray) -> float:
    """A tie-break between outlines of one card that prefers the larger (the whole card over its picture), small
    beside the wholeness and rim scores: 1e-5 per pixel of area, capped at 0.2 (a card photographed at a few hundred
    pixels would otherwise outweigh them)."""
    return min(0.2, 1e-5 * float(cv2.contourArea(quad)))


class _Shapes:
    """The areas and convex hulls of a frame's region outlines, each computed once (by the outline's identity: the
    outlines stay alive in the caller's list): the edge-region view, the pair splitting and the corner cards each
    measured the same unions again."""

    def __init__(self) -> None:
        self._area: dict[int, float] = {}
        self._hull: dict[int, np.ndarray] = {}

    def area(self, c: np.ndarray) -> float:
        a = self._area.get(id(c))
        if a is None:
            a = self._area[id(c)] = cv2.contourArea(c)
        return a

    def hull(self, c: np.ndarray) -> np.ndarray:
        h = self._hull.get(id(c))
        if h is None:
            h = self._hull[id(c)] = cv2.convexHull(c)
        return h

    def know(self, c: np.ndarray, area: float, hull: np.ndarray) -> None:
        self._area[id(c)], self._hull[id(c)] = area, hull


def _edge_region_cards(frame: np.ndarray, gray: np.ndarray, min_side: float, known: list[Quad] | None = None,
                       centre: tuple[float, float] | None = None,
                       unions: list[np.ndarray] | None = None,
                       edge_maps: list[np.ndarray] | None = None,
                       paleness: np.ndarray | None = None,
                       shapes: _Shapes | None = None) -> list[tuple[float, Quad]]:
    """Card outlines as regions enclosed by edges, whatever the colours of card and table.

    The pale-mask views assume a card paler and greyer than the table; on a pale wooden table, or with a photo's
    white balance tinting the card, that fails. Here the image is cut by its Canny edges (at a sensitivity for a
    card barely brighter than its table: the pale views already cut at the usual one) and each enclosed region
    whose outline fits a card-shaped quad is a candidate, kept when the band inside its edge is plain and differs
    from the band outside (``rim_contrast``). Regions where a ``known`` outline (one the pale views found) already
    lies are not fitted again. Regions nearly convex enough to be two overlapping cards are added to ``unions``
    (for ``split_pair``, once the card's size is known), and its (dilated) edge maps to ``edge_maps``.
    ``paleness``: the frame's ``card_paleness``, when the caller has it; ``shapes`` keeps the unions' areas and hulls.
    """
    known_boxes = [(_centre(q.pts), float(cv2.contourArea(q.pts))) for q in known or []]
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    out: list[tuple[float, Quad]] = []
    min_area = min_side * min_side * 1.3
    pale = paleness
    for lo, hi in EDGE_LEVELS:
        e = cv2.dilate(cv2.Canny(blur, lo, hi), np.ones((3, 3), np.uint8))
        if edge_maps is not None:
            edge_maps.append(e)
        contours, _ = cv2.findContours(cv2.bitwise_not(e), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
        # (thousands of specks: the long outlines picked out before the loop)
        long_enough = np.flatnonzero(np.fromiter(map(len, contours), np.int64, len(contours)) >= 4 * min_side)
        for c in (contours[i] for i in long_enough.tolist()):
            area = cv2.contourArea(c)
            if area < min_area:
                continue
            # a card's region is nearly convex (its hull adds the rounded corners' slivers and pips cut into the
            # rim); the regions of wood grain, cloth and clutter are not, and are dropped before the costly fit
            hull = cv2.convexHull(c)
            solid = area / max(cv2.contourArea(hull), 1.0)
            if unions is not None and solid > 0.7 and area > 1.8 * min_area:
                unions.append(c)  # two cards, one on the other, leave a notch in their hull
                if shapes is not None:
                    shapes.know(c, area, hull)
            if solid < 0.75:
                continue
            if _known(c, area, known_boxes, hull):
                continue
            if pale is None:
                pale = card_paleness(frame)
            cand = _rim_checked(frame, pale, c, min_side, centre, hull)
            if cand is not None:
                out.append(cand)
    return out


def _known(c: np.ndarray, area: float, known_boxes: list[tuple[np.ndarray, float]],
           hull: np.ndarray | None = None) -> bool:
    """Whether a region lies where an outline already found lies (about the same centre and area); ``hull``: the
    contour's convex hull, when the caller has it (its rectangle is the contour's, from fewer points)."""
    (cx, cy), _, _ = cv2.minAreaRect(c if hull is None else hull)
    return any(abs(cx - k[0][0]) + abs(cy - k[0][1]) < 0.1 * np.sqrt(k[1]) and 0.8 < area / k[1] < 1.1
               for k in known_boxes)


def _rim_checked(frame: np.ndarray, pale: np.ndarray, c: np.ndarray, min_side: float,
                 centre: tuple[float, float] | None, hull: np.ndarray | None = None) -> tuple[float, Quad] | None:
    """A region's card outline and its score, when the band inside its edge is plain and differs from the band
    outside (``rim_contrast``); else None. ``hull``: the contour's convex hull, when the caller has it."""
    q = _quad_from_contour(c, min_side, centre, hull)
    if q is None:
        return None
    plain, contrast = rim_contrast(frame, q.pts)
    if plain < RIM_PLAIN and contrast >= RIM_CONTRAST:
        # the outline may sit a pixel or two off the face, so that the bands straddle its edge (a card seen
        # obliquely, whose far side is a few pixels across): judged again on the face's own edges
        q = Quad(snap_to_edges(pale, q.pts), q.whole)
        plain, contrast = rim_contrast(frame, q.pts)
    if plain < RIM_PLAIN or contrast < RIM_CONTRAST:
        return None
    return q.whole + plain + _size_bonus(q.pts), q


def card_paleness(frame: np.ndarray) -> np.ndarray:
    """The darkest of a pixel's three colour channels: high only where all three are (a card's white face),
    low on any table that is dark or has a colour of its own (wood, felt, cloth), whatever its brightness."""
    b, g, r = cv2.split(frame)
    return cv2.min(cv2.min(b, g), r)


_SNAP_T = np.linspace(0.15, 0.85, 24, dtype=np.float32)  # where along each side snapping samples it
_SNAP_ROWS = np.arange(4 * len(_SNAP_T))  # (its profiles: one row per side and sample)
_TURN = np.array([1, -1], np.float32)


@functools.cache
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.triu_indices(n, 1)``, kept per n (building it costs more than its use)."""
    return np.triu_indices(n, 1)


def _median1(v: np.ndarray) -> np.floating:
    """``np.median`` of a 1-d array, the same value (the middle of a partial sort; the mean of the middle two in the
    array's type), without its overhead."""
    k = len(v) // 2
    if len(v) % 2:
        return np.partition(v, k)[k]
    p = np.partition(v, [k - 1, k])
    return (p[k - 1] + p[k]) / 2


def _mean1(v: np.ndarray) -> np.floating:
    """``v.mean()`` of a 1-d float32 array, the same value (numpy divides the float32 sum by the count in double
    precision and rounds back) without its overhead."""
    return np.float32(float(v.sum()) / len(v))


# (snapping's fits per side depend on which of its samples are kept, and the same few patterns recur: the parts that
# depend on the samples' positions alone are kept per pattern, the same arrays as computed each time)
@functools.lru_cache(maxsize=4096)
def _snap_kept(kept: bytes) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray], np.ndarray, np.floating, np.ndarray,
                                     float]:
    """For the samples ``kept`` (a boolean mask's bytes) along a side: their positions, the pairs of them (``_pairs``)
    and the pairs' position differences as divisors (the robust fit), and the positions' mean, the positions less
    it and the divisor of the line fit's slope."""
    tt = _SNAP_T[np.frombuffer(kept, bool)]
    iu = _pairs(len(tt))
    dt = tt[iu[1]] - tt[iu[0]]
    tm = tt.mean()
    tc = tt - tm
    return tt, iu, np.where(dt > 1e-6, dt, 1e-6), tm, tc, max(float((tc * tc).sum()), 1e-6)


def snap_to_edges(pale: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The quad with each side moved onto the card face's own edge, to a fraction of a pixel.

    The outlines the views give sit where their regions or edge bands end: a pixel or a few outside or inside the
    face (the dilated edges, a dark rim or shadow line, blur). Along the middle of each side the paleness
    (``card_paleness``) is sampled across the side; the face's edge is the outermost clear drop going outwards.
    A side is moved (offset and a slight turn) only where at least half its samples lie within a pixel of one
    straight line; elsewhere (a side lying over another card, white on white) it stays where it was."""
    q = quad.astype(np.float32)
    cen = q.sum(axis=0) / 4  # (``mean``: the same values)
    short = min(float(_vlen(q[1] - q[0])), float(_vlen(q[2] - q[1])))
    # the outlines err mostly outwards (by up to a tenth of the card's width: an outer edge band, a shadow)
    reach = max(5.0, 0.1 * short)
    offs = np.arange(-reach, max(4.0, 0.06 * short) + 0.01, 0.5, dtype=np.float32)
    ts = _SNAP_T
    # all four sides sampled in one remap: rows = side x position along it, columns = offset across it
    nxt = q[_NEXT]
    along = nxt - q
    dirs = along / np.maximum(_row_lengths(along), 1e-6)[:, None]
    norms = dirs[:, ::-1] * _TURN  # (each direction turned by a right angle: (y, -x))
    norms[((q - cen) * norms).sum(axis=1) < 0] *= -1  # outwards
    base = q[:, None, :] + ts[None, :, None] * along[:, None, :]  # (4, T, 2)
    # (4, T, M) per coordinate: the same sums as one (4, T, M, 2) grid, without broadcasting over pairs
    gx, gy = (base[:, :, None, j] + offs[None, None, :] * norms[:, None, None, j] for j in (0, 1))
    prof = cv2.remap(pale, gx.reshape(4 * len(ts), len(offs)), gy.reshape(4 * len(ts), len(offs)), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    prof = cv2.GaussianBlur(prof, (3, 1), 0)
    der = prof[:, 2:] - prof[:, :-2]  # per 1 px of offset (two steps of 0.5)
    rows = _SNAP_ROWS
    # the outermost clear drop, not the steepest: going outwards a design's own dark lines inside the face (a frame,
    # a border) can drop more steeply than the face's edge onto the table (snapping to them shrank drawn cards and
    # cost enrolled reads); a drop counts when at least half as steep as the steepest on that line
    steep = der.min(axis=1, keepdims=True)
    clear = der <= np.minimum(0.5 * steep, -12.0)
    # (a line with no clear drop gets the last offset, which ``ok_all`` below rejects)
    k = der.shape[1] - 1 - np.argmax(clear[:, ::-1], axis=1)
    drop = -der[rows, k]
    # subpixel: a parabola through the steepest step and its neighbours
    km = np.minimum(np.maximum(k, 1), der.shape[1] - 2)
    a, b, c = (der[rows, km + j] for j in (-1, 0, 1))
    den = a - 2 * b + c
    curved = np.abs(den) > 1e-6
    sub = np.where(curved, 0.5 * (a - c) / np.where(curved, den, 1), 0.0)
    pos_all = (offs[1:-1][km] + 0.5 * np.clip(sub, -1, 1)).reshape(4, len(ts))
    ok_all = ((drop > 12) & (k > 0) & (k < der.shape[1] - 1)).reshape(4, len(ts))  # a clear step, not at an end
    lines = []
    for i in range(4):
        p, d, n = q[i], dirs[i], norms[i]
        pos, ok = pos_all[i], ok_all[i]
        if np.count_nonzero(ok) >= 0.5 * len(ts):
            # the samples that lie on one straight line (within a pixel), found by a robust fit (the median of
            # the pairwise slopes): the outline's side may be turned against the face's edge by a few pixels
            # over its length, which a median offset alone took for disagreement
            tt, iu, dt, *_ = _snap_kept(ok.tobytes())
            yy = pos[ok]
            slope = float(_median1((yy[iu[1]] - yy[iu[0]]) / dt))
            icpt = float(_median1(yy - slope * tt))
            ok = ok & (np.abs(pos - (icpt + slope * ts)) < 1.0)
        if np.count_nonzero(ok) < 0.5 * len(ts):
            lines.append((p, d, n, 0.0, 0.0))
            continue
        # offset along the side as a + b t: the side may turn slightly as well as move
        tt, _, _, tm, tc, tss = _snap_kept(ok.tobytes())
        yy = pos[ok]
        ym = _mean1(yy)
        b1 = float((tc * (yy - ym)).sum() / tss)
        a1 = float(ym) - b1 * float(tm)
        lines.append((p, d, n, a1, b1))
    # each side as a point and direction, the corners as the meets of neighbouring sides
    sides = []
    for p, d, n, a1, b1 in lines:
        length = float(_vlen(q[(len(sides) + 1) % 4] - q[len(sides)]))
        s0 = p + n * a1
        s1 = p + d * length + n * (a1 + b1)
        sides.append((s0, s1))
    # (the four meets as one stack of 2 x 2 systems: numpy's determinant and solver run the same LAPACK routine on
    # each matrix of a stack, so the same numbers as four calls, at a quarter of their overhead)
    s0 = np.array([s[0] for s in sides])
    s1 = np.array([s[1] for s in sides])
    p1, d1 = s0[_PREV], s1[_PREV] - s0[_PREV]  # (corner i: the meet of side i - 1 and side i)
    d2 = s1 - s0
    m = np.empty((4, 2, 2), np.float64)
    m[:, :, 0] = d1
    m[:, :, 1] = -d2
    if (np.abs(np.linalg.det(m)) < 1e-6).any():
        return quad
    t = np.linalg.solve(m, (s0 - p1).astype(np.float64)[:, :, None])[:, 0]
    res = (p1 + t * d1).astype(np.float32)
    if np.abs(res - q).max() > reach + 2:  # a corner that ran away: the sides disagree, keep the outline
        return quad
    return res


def _outline_corners(c: np.ndarray, short: float) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The convex right-angled corners of a region's outline: (corner, direction along one side, along the other),
    each where two long straight runs of the outline meet (a card's rounded corner between them left out)."""
    eps = max(1.5, 0.03 * short)
    poly = cv2.approxPolyDP(c, eps, True).reshape(-1, 2).astype(np.float32)
    pts = c.reshape(-1, 2).astype(np.float32)
    n = len(poly)
    if n < 3:
        return []
    nxt = np.concatenate((poly[1:], poly[:1]))  # (``np.roll`` by one, without its overhead)
    area2 = float(np.sum(poly[:, 0] * nxt[:, 1] - nxt[:, 0] * poly[:, 1]))
    sign = 1.0 if area2 > 0 else -1.0
    segs = [(poly[i], poly[(i + 1) % n]) for i in range(n)]
    seg_len = [_vlen(b - a) for a, b in segs]
    long_ix = [i for i in range(n) if seg_len[i] >= 0.3 * short]
    walk = np.arange(len(pts))  # (the steps along the outline from a corner, either way)
    out = []
    for k, i in enumerate(long_ix):
        j = long_ix[(k + 1) % len(long_ix)]
        between = range(i + 1, j + (n if j <= i else 0))
        gap = sum(float(seg_len[m % n]) for m in between)
        if gap > 0.3 * short:  # a notch or a third side between them, not a rounded corner
            continue
        (a1, b1), (a2, b2) = segs[i], segs[j]
        d1 = (b1 - a1) / seg_len[i]
        d2 = (b2 - a2) / seg_len[j]
        cross = float(d1[0] * d2[1] - d1[1] * d2[0])
        if cross * sign <= 0 or abs(float(d1 @ d2)) > 0.3:  # a concave turn (where cards cross), or not square
            continue
        m = np.array([[d1[0], -d2[0]], [d1[1], -d2[1]]], np.float64)
        t = np.linalg.solve(m, (a2 - a1).astype(np.float64))
        corner = (a1 + t[0] * d1).astype(np.float32)
        # the sides' directions from the outline near the corner only: a run of the polygon may go on along the
        # other card's side, nearly in line with this one
        rel = pts - corner
        k0 = int(_row_lengths(rel).argmin())
        sides = []
        for step, d in ((-1, -d1), (1, d2)):
            idx = (k0 + step * walk) % len(pts)
            rel_idx = rel[idx]
            along = rel_idx @ d
            sel = idx[(along > 0.12 * short) & (along < 0.5 * short)
                      & (np.abs(rel_idx @ np.array([-d[1], d[0]])) < 0.15 * short)]
            if len(sel) < 5:
                break
            vx, vy, px, py = cv2.fitLine(pts[sel], cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
            v = np.array([vx, vy], np.float32)
            sides.append((np.array([px, py], np.float32), v if v @ d > 0 else -v))
        if len(sides) == 2:
            (p1, v1), (p2, v2) = sides
            m = np.array([[v1[0], -v2[0]], [v1[1], -v2[1]]], np.float64)
            if abs(np.linalg.det(m)) > 0.5 and abs(float(v1 @ v2)) < 0.3:
                t = np.linalg.solve(m, (p2 - p1).astype(np.float64))
                corner, d1, d2 = (p1 + t[0] * v1).astype(np.float32), -v1, v2
        out.append((corner, -d1, d2))
    return out


_HIDDEN_T = np.linspace(0.08, 0.92, 40)


def _corner_cards(corners: list[tuple[np.ndarray, np.ndarray, np.ndarray]], short: float, long: float,
                  scales: tuple[float, ...]) -> np.ndarray:
    """The cards (scale, corner, way, 4 points, 2) drawn from each of an outline's right-angled ``corners``
    (``_outline_corners``) at each of ``scales`` times the card's size, two ways: the short side along the corner's
    first direction, or the long one."""
    cs, d1s, d2s = (np.array([k[j] for k in corners], np.float32)[None, :, None, :] for j in range(3))
    lens = np.array([[(short * sc, long * sc), (long * sc, short * sc)] for sc in scales], np.float32)
    l1s, l2s = lens[:, None, :, 0, None], lens[:, None, :, 1, None]  # (scale, 1, way, 1)
    p1 = cs + l1s * d1s
    return np.stack(np.broadcast_arrays(cs, p1, p1 + l2s * d2s, cs + l2s * d2s), axis=-2)


_BITS_IN_BYTE = np.array([bin(i).count("1") for i in range(256)], np.uint8)


def _packed(masks: np.ndarray) -> np.ndarray:
    """Rows of 0/1 ``masks`` (..., P) packed as bits into 64-bit words (..., W), the last one padded with zeros."""
    b = np.packbits(masks, axis=-1)
    out = np.zeros(b.shape[:-1] + (-(-b.shape[-1] // 8) * 8,), np.uint8)
    out[..., : b.shape[-1]] = b
    return out.view(np.uint64)


def _pair_counts(bits: np.ndarray) -> list[list[int]]:
    """[a][b]: how many bits rows a and b of packed masks (``_packed``) have in common (exact integers)."""
    both = bits[:, None, :] & bits[None, :, :]
    if hasattr(np, "bitwise_count"):  # (numpy 2)
        return np.bitwise_count(both).sum(axis=-1, dtype=np.int64).tolist()
    return _BITS_IN_BYTE[both.view(np.uint8)].sum(axis=-1, dtype=np.int64).tolist()


def split_pair(c: np.ndarray, card: tuple[float, float], edges_dil: np.ndarray) -> list[Quad]:
    """Two overlapping cards from the outline of the region they make together, or nothing.

    Every card of a deck has one size (``card``: short and long side in pixels, from the cards found whole): each
    right-angled corner of the outline, with the two directions of its sides, gives a card in two ways (short side
    along one or the other); those lying inside the region are kept, and the two that together cover it are the
    cards. The card on top is the one whose sides show as edges across the other card (the covered card's sides
    are hidden there); it comes back whole, the other with ``whole`` its visible share (< 0.9)."""
    short, long = card
    x, y, w, h = cv2.boundingRect(c)
    pad = int(0.3 * long)
    x0, y0 = max(x - pad, 0), max(y - pad, 0)
    x1, y1 = min(x + w + pad, edges_dil.shape[1]), min(y + h + pad, edges_dil.shape[0])
    # the areas are compared on a grid of about 40 cells across a card: as exact as needed, and the pairs of
    # hypotheses are many
    f = min(1.0, 40.0 / short)
    region = np.zeros((int((y1 - y0) * f) + 1, int((x1 - x0) * f) + 1), np.uint8)
    off = np.array([x0, y0], np.float32)
    cv2.drawContours(region, [np.round((c.reshape(-1, 2) - off) * f).astype(np.int32)], -1, 1, -1)
    n_region = int(region.sum())
    corners = _outline_corners(c, short)
    if len(corners) < 2:
        return []  # two cards show at least two of their corners on the outline
    inner = cv2.erode(region, np.ones((3, 3) if f < 0.6 else (5, 5), np.uint8))
    e_roi = (cv2.resize(edges_dil[y0:y1, x0:x1], (region.shape[1], region.shape[0]), interpolation=cv2.INTER_AREA)
             > 40).astype(np.uint8)
    reg = region.astype(bool)
    # each side's points seen without the other card: off the region's inside (its outline) or on an edge
    seen_alone = (inner == 0) | (e_roi > 0)
    h_roi, w_roi = region.shape
    t_side = np.linspace(0.1, 0.9, 16, dtype=np.float32)[:, None]
    best, best_fit = None, 0.0
    # (the masks' pixels are counted with ``np.count_nonzero``: the same counts as ``.sum()`` in a fraction of its time)
    # the pair is sought at a few sizes around that of the nearest card seen whole, both cards at one size; every
    # hypothesis (size, corner, which side is the short one) is drawn up at once, in the order they are tried
    qs = _corner_cards(corners, short, long, (0.9, 0.95, 1.0, 1.05, 1.1))  # (scale, corner, way, 4, 2)
    polys = np.round((qs - off) * f).astype(np.int32)
    sps = np.round(((qs[..., :, None, :] + (qs[..., _NEXT, :] - qs)[..., :, None, :] * t_side)
                    .reshape(qs.shape[:3] + (-1, 2)) - off) * f).astype(int)
    oks = (sps[..., 0] >= 0) & (sps[..., 0] < w_roi) & (sps[..., 1] >= 0) & (sps[..., 1] < h_roi)
    bases = np.ones(oks.shape, bool)
    bases[oks] = seen_alone[sps[..., 1][oks], sps[..., 0][oks]]
    masks = np.zeros(qs.shape[:3] + region.shape, np.uint8)
    n_hyp = 2 * len(corners)
    for si in range(qs.shape[0]):
        for ci in range(len(corners)):
            for wi in range(2):
                cv2.fillConvexPoly(masks[si, ci, wi], polys[si, ci, wi], 1)
    # every count of pixels the hypotheses' pairs need, from the masks packed as bits: in both of two cards, and in
    # both and the region (the diagonals: in one card, and in it and the region); counting an and-ed mask per pair
    # had been most of this function's time
    all_bits = _packed(masks.reshape(qs.shape[0], n_hyp, -1))
    all_in_region = all_bits & _packed(reg.reshape(1, 1, -1))
    for si in range(qs.shape[0]):
        both_n = _pair_counts(all_bits[si])
        both_r = _pair_counts(all_in_region[si])
        hyps: list[tuple[np.ndarray, np.ndarray, int, np.ndarray, np.ndarray, np.ndarray, int]] = []
        for h in range(n_hyp):
            ci, wi = divmod(h, 2)
            nq = both_n[h][h]
            if nq == 0 or both_r[h][h] < 0.88 * nq:
                continue
            if any(k > 0.6 * (nq + o[2] - k) for o in hyps for k in (both_n[h][o[6]],)):
                continue  # (IoU > 0.6 with one already there)
            hyps.append((qs[si, ci, wi], masks[si, ci, wi].view(bool), nq, sps[si, ci, wi], oks[si, ci, wi],
                         bases[si, ci, wi], h))
        for i in range(len(hyps)):
            qa_, ma_, na_, spa, oka, basea, ha = hyps[i]
            for j in range(i + 1, len(hyps)):
                qb_, mb_, nb_, spb, okb, baseb, hb = hyps[j]
                inter_ab = both_n[ha][hb]
                if inter_ab > 0.5 * (na_ + nb_ - inter_ab):
                    continue  # the same card twice, not two
                # (the pixels of either card in the region: each one's, less those of both)
                inter = float(both_r[ha][ha] + both_r[hb][hb] - both_r[ha][hb])
                fit = inter / (n_region + float(na_ + nb_ - inter_ab) - inter)  # how well the two cards make the region
                if fit <= best_fit:
                    continue
                # and each card's sides are seen: on the region's outline, on an edge, or hidden under the other
                sa_ = basea.copy()
                sa_[oka] |= mb_[spa[oka, 1], spa[oka, 0]]
                sb_ = baseb.copy()
                sb_[okb] |= ma_[spb[okb, 1], spb[okb, 0]]
                fit *= min(np.count_nonzero(sa_) / len(sa_), np.count_nonzero(sb_) / len(sb_))
                if fit > best_fit:
                    best, best_fit = ((qa_, ma_.view(np.uint8)), (qb_, mb_.view(np.uint8))), fit
    if best is None or best_fit < 0.85:
        return []

    def hidden_support(q: np.ndarray, other: np.ndarray) -> float:
        """Share of the points along ``q``'s sides, inside ``other``, that lie on an edge."""
        pts = (q[:, None, :] + (q[_NEXT] - q)[:, None, :] * _HIDDEN_T[None, :, None]).reshape(-1, 2)
        shrunk = _centre(other) + (other - _centre(other)) * 0.9
        p = np.round(pts[_inside(shrunk, pts)]).astype(int)
        ok = (p[:, 0] >= 0) & (p[:, 0] < edges_dil.shape[1]) & (p[:, 1] >= 0) & (p[:, 1] < edges_dil.shape[0])
        p = p[ok]
        return float((edges_dil[p[:, 1], p[:, 0]] > 0).mean()) if len(p) >= 8 else 0.0

    (qa, ma), (qb, mb) = best
    sa, sb = hidden_support(qa, qb), hidden_support(qb, qa)
    top, under, mt, mu = (qa, qb, ma, mb) if sa > sb else (qb, qa, mb, ma)
    seen = float((mu & (1 - mt)).sum()) / max(int(mu.sum()), 1)
    if abs(sa - sb) < 0.15:
        # neither shows itself on top: both cards are there, but which one is whole is not known - unless the region
        # has one card's shape, which makes it one card seen larger than the one whose size was taken
        if _one_card_shaped(c, short, long):
            return []
        seen_t = float((mt & (1 - mu)).sum()) / max(int(mt.sum()), 1)
        return [Quad(_orient(top), min(0.7, seen_t)), Quad(_orient(under), min(0.7, seen))]
    return [Quad(_orient(top), 0.95), Quad(_orient(under), min(0.85, seen))]


def _inside(poly: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Which points lie strictly inside the polygon: ``cv2.pointPolygonTest(poly, pt, False) > 0`` for every point
    at once (OpenCV's crossing count, with its float32 points and double products, so the same answers on the
    outline too)."""
    v = poly.reshape(-1, 2).astype(np.float32)
    v0 = np.roll(v, 1, axis=0)  # each edge from the previous vertex to this one, all edges at once
    p = pts.reshape(-1, 2).astype(np.float32)
    px, py = p[None, :, 0], p[None, :, 1]
    vx, vy, v0x, v0y = v[:, :1], v[:, 1:], v0[:, :1], v0[:, 1:]
    skip = ((v0y <= py) & (vy <= py)) | ((v0y > py) & (vy > py)) | ((v0x < px) & (vx < px))
    on = skip & (py == vy) & ((px == vx) | ((py == v0y) & (((v0x <= px) & (px <= vx)) | ((vx <= px) & (px <= v0x)))))
    dist = ((py - v0y).astype(np.float64) * (vx - v0x).astype(np.float64)
            - (px - v0x).astype(np.float64) * (vy - v0y).astype(np.float64))
    on |= ~skip & (dist == 0)
    count = (~skip & np.where(vy < v0y, dist < 0, dist > 0)).sum(axis=0)
    return (count % 2 == 1) & ~on.any(axis=0)


def _box(q: np.ndarray) -> tuple[float, float, float, float]:
    """A quad's bounding box (x0, y0, x1, y1)."""
    (x0, y0), (x1, y1) = q.min(axis=0).tolist(), q.max(axis=0).tolist()
    return x0, y0, x1, y1


def _apart(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Whether two bounding boxes (``_box``) lie clearly apart: their quads do not overlap (their IoU is 0)."""
    return a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1]


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a, b)
    return float(inter / (cv2.contourArea(a) + cv2.contourArea(b) - inter + 1e-6))


def find_cards(frame: np.ndarray, min_side: float = 30.0, card_area: float | None = None,
               exclude: list[np.ndarray] | None = None, centre: tuple[float, float] | None = None,
               any_surface: bool = True, learned: bool = True, focal: float | None = None) -> list[Quad]:
    """Outlines of the card faces in a frame, each as a quad; partly covered cards come back with ``whole`` < 1.

    ``card_area`` (pixels, e.g. from the mat calibration) lets the top card of a pile be found even when no card
    lies alone; ``exclude`` are polygons (the mat's markers) where no card is looked for; ``centre``, the camera's
    principal point when ``frame`` is its whole image, lets a card seen obliquely be judged by its shape on the table.
    ``any_surface`` adds the edge-region view (``_edge_region_cards``) for cards on an unknown surface; on the mat's
    felt the pale views suffice and the frame is searched in about two thirds of the time without it.
    ``learned`` adds, with ``any_surface``, the learned finder's outlines (``_net_cards``); without it the views are
    all drawn by hand (the finder network's training data are found so, so that it does not learn from itself).
    ``focal``: the camera's focal length in pixels when ``frame`` is a region of its image (``centre`` then lies
    where the image's middle is, perhaps outside the region); it judges the views' outlines seen obliquely (the
    mat's path). Else, and in the steps that run only with ``any_surface``, the prior of ``_focal_prior``.
    """
    # (one paleness map for the edge view, the snapping and the network's cards: it was computed up to three times)
    mask, paleness = _mask_and_paleness(frame)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    raw_edges = cv2.Canny(cv2.GaussianBlur(gray, (3, 3), 0), 40, 100)
    edges = cv2.dilate(raw_edges, np.ones((3, 3), np.uint8))
    regions = cv2.bitwise_and(mask, cv2.bitwise_not(edges))
    regions = cv2.morphologyEx(regions, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # (a closing is the dilation, then an erosion: the dilated mask serves the edge loops too)
    grown = cv2.dilate(mask, np.ones((5, 5), np.uint8))
    blobs = cv2.erode(grown, np.ones((5, 5), np.uint8))
    cands: list[tuple[float, Quad]] = []
    # three views of the same cards: pale regions cut by edges (a card on another), pale blobs (a card alone),
    # and closed edge loops (a card whose face is mostly picture, on top of a pile)
    edge_loops = cv2.bitwise_and(edges, grown)
    unions: list[np.ndarray] = []
    shapes = _Shapes()  # (their areas and hulls)
    edge_maps: list[np.ndarray] = []
    fitted = np.zeros((0, 4), np.int64)
    for src, grow, how in ((regions, True, cv2.RETR_EXTERNAL), (blobs, False, cv2.RETR_EXTERNAL),
                           (edge_loops, True, cv2.RETR_CCOMP)):
        contours, _ = cv2.findContours(src, how, cv2.CHAIN_APPROX_NONE)
        if src is blobs:
            blob_contours = contours
        # (most outlines are specks: the long ones picked out before the loop)
        long_enough = np.flatnonzero(np.fromiter(map(len, contours), np.int64, len(contours)) >= 4 * min_side)
        for c in (contours[i] for i in long_enough.tolist()):
            if any_surface:
                if grow:
                    unions.append(c)  # (``_split_unions`` keeps those of about two cards' area)
                # a region another view already outlined (within 2 px) gives the same card: on an unknown surface
                # every outline is snapped to the card's edges at the end, so it need not be fitted twice
                box = np.array(cv2.boundingRect(c))
                if len(fitted) and bool((np.abs(fitted - box).max(axis=1) <= 2).any()):
                    continue
                fitted = np.vstack([fitted, box])
            q = _quad_from_contour(c, min_side, centre, focal=focal)
            if q is None:
                continue
            if not grow:  # the blob lost only the dark rim and shadow line (~3 px), not the dilated edges
                cen = _centre(q.pts)
                short = _vlen(q.pts[1] - q.pts[0])
                q = Quad((cen + (q.pts - cen) / (1 + 2.0 / (short / 2))).astype(np.float32), q.whole)
            pale = rim_pale(mask, q.pts)
            if pale < 0.6:
                continue
            cands.append((q.whole + pale + _size_bonus(q.pts), q))
    if any_surface:
        cands += _edge_region_cards(frame, gray, min_side, [q for _, q in cands if q.whole >= 0.9], centre, unions,
                                    edge_maps, paleness, shapes)
    # piles: a pale blob bigger than any card found whole, and no whole card explains it
    # (the blob view's outlines: every point kept, with the same areas, hulls and fills as the compressed ones,
    # checked on 272 blobs of the development photos)
    contours = blob_contours
    whole = [q for _, q in cands if q.whole > 0.9]
    if card_area is None and whole:
        card_area = float(np.median([cv2.contourArea(q.pts) for q in whole]))
    known = [q.pts for q in whole]
    for c in contours if card_area else []:
        area = cv2.contourArea(c)
        if area < min_side * min_side * 2.5 or area > 8 * card_area:
            continue  # (a pale table is one huge blob: no pile of a trick's cards is that large)
        hull = cv2.convexHull(c)
        if any(cv2.pointPolygonTest(hull, tuple(map(float, _centre(q.pts))), False) >= 0
               and 0.8 * area < cv2.contourArea(q.pts) < PILE_EXPLAINED * area for q in whole):
            continue
        for quad in pile_top(raw_edges, edges, c, min_side, known, card_area):
            if rim_pale(mask, quad) < 0.6:
                continue
            # (a card of this table's size, not any rectangle)
            if abs(cv2.contourArea(quad) / card_area - 1) < PILE_SIZE_TOLERANCE:
                cands.append((1.5, Quad(quad, 0.95)))
    if exclude:
        cands = [(k, q) for k, q in cands
                 if all(cv2.pointPolygonTest(e.reshape(-1, 1, 2).astype(np.float32),
                                             tuple(map(float, q.pts.mean(axis=0))), True) < -20 for e in exclude)]
    if any_surface:
        # an outline along three or four edges of the frame is the frame itself (a pale table filling the view,
        # 4:3 and so card-shaped), never a card; taken for one it swallowed the cards lying on it as its parts
        cands = [(k, q) for k, q in cands if not _along_border(q.pts, frame.shape[1], frame.shape[0], sides=3)]
    finder = _finder(FINDER_PATH) if any_surface and learned else None
    maps = finder.maps(frame) if finder is not None else None
    cands = _drop_parts_of_cards(cands, frame if any_surface else None, mask if any_surface else None, maps)
    if any_surface:
        cands = _edged_outline_first(frame, cands)
    out = _best_apart(cands, inner_alts=any_surface)
    if any_surface and out:
        out = [(k, Quad(snap_to_edges(paleness, q.pts), q.whole,
                        tuple(snap_to_edges(paleness, a).astype(np.float32) for a in q.alt)))
               for k, q in out]
        if unions:
            # (the sensitive edges: a card's side across another is white on white, shown by a faint line)
            out = _best_apart(_split_unions(out, unions, edge_maps[0] if edge_maps else edges, paleness, frame, shapes,
                                                centre))
            out = _cards_from_corners(out, unions, paleness, min_side, centre, shapes)
    if maps is not None:
        out = _add_net_cards(out, frame, paleness, min_side, centre, maps)
    return [q for _, q in out]


# of two whole outlines of one card, the one lying inside the other ranks first when each of its sides shows an edge
# (rim contrast >= EDGED_MIN, Lab) and the other has a side with under EDGED_SHARE of its weakest: a desk photo's
# three of hearts was outlined with a sliver of the table, its left side along no edge (contrast 1 against the exact
# outline's 122-134), and that outline had ranked first. (10, not 12, since session 15: a lone ace of spades on the pale
# table, poker_table train_20, outlined exactly with a weakest side of 11.2, lost to an outline with a strip of
# table whose two sides lie along no edge at all, 0.0, and was not read)
EDGED_MIN = 10.0
EDGED_SHARE = 0.25


def _side_contrasts(frame: np.ndarray, quad: np.ndarray) -> list[float]:
    """Each side's rim contrast (``_side_contrast``)."""
    bands: list[tuple[np.ndarray, np.ndarray]] = []
    rim_contrast(frame, quad, bands=bands)
    return [_side_contrast(inside, outside) for inside, outside in bands]


def _edged_outline_first(frame: np.ndarray, cands: list[tuple[float, Quad]]) -> list[tuple[float, Quad]]:
    """``cands`` where, of two whole outlines of one card (IoU > 0.5), the one lying inside the other with an edge
    under every side ranks above the other when that one has a side along no edge (``EDGED_MIN``, ``EDGED_SHARE``).
    The views' scores weigh wholeness and the rim's paleness, which a sliver of plain table beside the card does not
    spoil."""
    whole = [i for i, (_, q) in enumerate(cands) if q.whole >= 0.95]
    weakest: dict[int, float] = {}  # (measured only for outlines in such a pair: few)
    out = list(cands)
    for n, i in enumerate(whole):
        for j in whole[n + 1:]:
            lo, hi = (i, j) if out[i][0] < out[j][0] else (j, i)  # (the one ranked lower, the one ranked higher)
            q_lo, q_hi = cands[lo][1], cands[hi][1]
            if (cv2.intersectConvexConvex(q_lo.pts, q_hi.pts)[0] > 0.9 * cv2.contourArea(q_lo.pts)
                    and _edged_inside(frame, q_lo, q_hi, weakest)):
                out[lo] = (out[hi][0] + 1e-3, cands[lo][1])
    return out


def _edged_inside(frame: np.ndarray, q: Quad, w: Quad, weakest: dict[int, float] | None = None) -> bool:
    """Whether ``q``, lying inside the whole outline ``w``, is the card and ``w`` a loose outline of it: both whole
    (0.95), IoU > 0.5, an edge under each of ``q``'s sides (``EDGED_MIN``) and a side of ``w`` along none
    (``EDGED_SHARE`` of ``q``'s weakest). ``weakest``: the outlines' weakest side contrasts measured so far (by id).
    Used by ``_edged_outline_first``, and by ``_drop_parts_of_cards`` since session 14: a lone plastic 6D outlined
    exactly (IoU 0.97) had been dropped as a part of the edge-region view's outline of it and a strip of felt (IoU
    0.73, the exact one 0.79 of its area), which was then read as nothing (scene 500024)."""
    if q.whole < 0.95 or w.whole < 0.95 or _iou(q.pts, w.pts) <= 0.5:
        return False
    seen = {} if weakest is None else weakest

    def side(x: Quad) -> float:
        if id(x) not in seen:
            seen[id(x)] = min(_side_contrasts(frame, x.pts))
        return seen[id(x)]

    return side(q) >= EDGED_MIN and side(w) < EDGED_SHARE * side(q)


def _add_net_cards(out: list[tuple[float, Quad]], frame: np.ndarray, pale: np.ndarray, min_side: float,
                   centre: tuple[float, float] | None,
                   maps: tuple[np.ndarray, np.ndarray, float]) -> list[tuple[float, Quad]]:
    """``out`` (the hand-drawn views' outlines) with the learned finder's cards where those views saw none.

    Where both saw a card the hand-drawn views' outline is kept (on the development photos the network's outlines
    that beat them read fewer cards, and one over two overlapping cards took them for its parts), unless the network
    sees little card face in it (mean face probability under ``NET_NOT_CARD``) and finds a clearly smaller card
    there: an outline round a card and the paper it lies on, or round a folder with cards on it, then gives way to
    the network's cards. An outline lying inside one of the network's whole cards and much smaller
    (``NET_PART_SHARE``) is a part of that card, as ``_drop_parts_of_cards`` rules among the views' own outlines,
    and gives way to it: in a webcam's grey frame the views found only a five of diamonds' middle pip, card-shaped,
    and it kept the card out. ``maps``: the network's face and core maps of ``frame`` (``FinderNet.maps``)."""
    face, core, scale = maps
    support = [_face_support(face, o.pts, scale) for _, o in out]
    sure = [o.pts for (_, o), f in zip(out, support, strict=True) if f >= NET_NOT_CARD]
    added: list[tuple[float, Quad]] = []
    others: list[np.ndarray] = []
    contrast: dict[int, float] = {}  # (the views' outlines' rim contrasts, measured where a frame may lie inside)

    def frames_a_card(q: Quad) -> bool:
        for i, (_, o) in enumerate(out):
            if _lies_as_frame(q, o.pts):
                if i not in contrast:
                    contrast[i] = rim_contrast(frame, o.pts, two_sides=True)[1]
                if contrast[i] >= NET_FRAME_CONTRAST * q.contrast:
                    return True
        return False

    # the size of this frame's cards: the median of the outlines found whole (two at least, so that one outline alone,
    # perhaps the part in question, does not set it)
    whole_areas = [float(cv2.contourArea(o.pts)) for _, o in out if o.whole >= 0.9]
    card_area = float(np.median(whole_areas)) if len(whole_areas) >= 2 else None
    alts: dict[int, list[np.ndarray]] = {}
    nets = _net_cards(frame, pale, min_side, centre, face, core, scale, sure, others, card_area)
    # the network's outline round two of its own cards that overlap (a card lying partly on another, their cores
    # joined at a low level and parted at a higher one) gives way to them: it ranked first as the wholer
    shapes = [(q.pts, float(cv2.contourArea(q.pts)), _box(q.pts)) for _, q in nets]
    nets = [(k, q) for (k, q), me in zip(nets, shapes, strict=True)
            if not _holds_pair(me, [c for c in shapes if c is not me])]
    for k, q in sorted(nets, key=lambda t: -t[0]):
        if frames_a_card(q):
            continue  # (a court's picture, whose face the network saw more surely than the card's: the views' card
            # stays, a doubtful one too)
        if not _overlaps(q.pts, [s for s in sure if not _part_of(s, q.pts, card_area)] + [a.pts for _, a in added]):
            added.append((k, q))
            continue
        # another of the network's outlines of a card it has already given (another level of its cores, or the core
        # grown another way): the card's alternative outline, read when the first reads nothing. The first ranks by
        # its rim's plainness, which a side cut short inside the card can have: a plastic queen of clubs in shade,
        # outlined without its left margin, was unsure (scene 500058) while the outline of the whole card lay ranked
        # below it
        best, j = max(((_iou(a.pts, q.pts), j) for j, (_, a) in enumerate(added)), default=(0.0, -1))
        if not NET_ALT_IOU[0] <= best < NET_ALT_IOU[1]:
            continue
        mine = alts.setdefault(j, [])
        if len(mine) < NET_ALTS and all(_iou(m, q.pts) < NET_ALT_IOU[1] for m in mine):
            mine.append(q.pts)
    for j, pts in alts.items():
        k, a = added[j]
        added[j] = (k, replace(a, alt=a.alt + tuple(pts)))
    if added:
        parts = [i for i, (_, o) in enumerate(out) if any(_part_of(o.pts, a.pts, card_area) for _, a in added)]
        out = [t for i, t in enumerate(out) if i not in parts]
        support = [f for i, f in enumerate(support) if i not in parts]
    if others:
        out = _with_alternatives(out, others, pale, face, scale, min_side, centre)
    # a doubtful outline stays unless a card of the network's, clearly smaller, lies on it (one of about its size
    # is the same card, seen by the network with less confidence: a small card far off in a phone's photo) - but an
    # outline of this frame's card size stays when what the network found on it is no card's size: a piece of a
    # court's picture, which is then dropped as a part of it (a lone plastic JH, face 0.59, gave way to a fifth of
    # itself, scene 500024). An outline of another size stays too when all the network found on it lies partly
    # covered (whole < 0.9): a card on a sheet of paper is a whole card, the pieces of a court's picture are not. The
    # frame's card size is a median, and cards nearer the camera or of a pile's top are larger: lone courts whose
    # picture fills the card (aisleriot's guyenne-classic, 1.6 times that median and face 0.38) gave way to a piece
    # of their picture (whole 0.68) and were not found (scenes 500013, 500020)
    kept = []
    pieces: set[int] = set()
    for (k, o), f in zip(out, support, strict=True):
        on = [j for j, (_, a) in enumerate(added)
              if cv2.contourArea(a.pts) < cv2.contourArea(o.pts) / 1.5 and _overlaps(o.pts, [a.pts])]
        if f < NET_NOT_CARD and on:
            if ((not _card_sized(o.pts, card_area) and any(added[j][1].whole >= 0.9 for j in on))
                    or any(_card_sized(added[j][1].pts, card_area) for j in on)):
                continue
            pieces |= {j for j in on if _part_of(added[j][1].pts, o.pts, card_area)}
        o.face = f
        kept.append((k, o))
    return kept + [a for j, a in enumerate(added) if j not in pieces]


@functools.lru_cache(maxsize=2)
def _finder(path: str) -> finder_net.FinderNet | None:
    # (None only while the network is being made: ``cardref vision train`` finds its training cards without it)
    return finder_net.FinderNet(path) if os.path.exists(path) else None


def _holds_pair(w: tuple[np.ndarray, float, tuple[float, float, float, float]],
                cards: list[tuple[np.ndarray, float, tuple[float, float, float, float]]]) -> bool:
    """Whether outline ``w`` holds two of ``cards`` (each nine tenths inside it, at ``PAIR_SHARE`` of its area) that
    overlap little (IoU under ``PAIR_IOU``) and together fill ``PAIR_FILL`` of it: a card partly on another. Each
    outline comes with its area and bounding box (``_box``), measured once for all the pairs."""
    wq, aw, wb = w
    inner = [(c, a) for c, a, b in cards if not _apart(b, wb) and PAIR_SHARE[0] * aw <= a <= PAIR_SHARE[1] * aw
             and cv2.intersectConvexConvex(c, wq)[0] >= 0.9 * a]
    return any(_iou(a, b) < PAIR_IOU and ka + kb - cv2.intersectConvexConvex(a, b)[0] >= PAIR_FILL * aw
               for i, (a, ka) in enumerate(inner) for b, kb in inner[i + 1:])


def _overlaps(q: np.ndarray, others: list[np.ndarray], share: float = 0.2) -> bool:
    """Whether quad ``q`` covers ``share`` (a fifth) of any of ``others``, or that much of it is covered by one."""
    a = cv2.contourArea(q)
    return any(cv2.intersectConvexConvex(q, o)[0] >= share * min(a, cv2.contourArea(o)) for o in others)


def _with_alternatives(out: list[tuple[float, Quad]], others: list[np.ndarray], pale: np.ndarray, face: np.ndarray,
                       scale: float, min_side: float, centre: tuple[float, float] | None) -> list[tuple[float, Quad]]:
    """``out`` with, for an outline, the network's outline of the same card as its alternative when the two differ
    (IoU 0.5-0.9; the hand-drawn views outline the picture frame of a court whose white margin is thin, the network
    the card). ``others``: the network's cards (unsnapped) that overlap an outline of ``out``. Each is the
    alternative of the one outline it overlaps most, so a card is not read twice, and only if once snapped it still
    has a card's shape and face. (An outline that has since given way to a network's card, as a part of it, is no
    longer in ``out``: what overlapped only it has no outline to be the alternative of.)"""
    alts: dict[int, np.ndarray] = {}
    taken: list[np.ndarray] = []
    boxes = [_box(o.pts) for _, o in out]
    for n in others:
        if any(_iou(n, t) > 0.7 for t in taken):
            continue  # (the same card at another of the network's levels)
        # (outlines whose boxes lie apart overlap it by IoU 0, which the best, taken only from 0.5, never is)
        nb = _box(n)
        best, i = max(((_iou(o.pts, n), i) for i, (_, o) in enumerate(out) if not _apart(boxes[i], nb)),
                      default=(0.0, -1))
        if not 0.5 <= best < 0.9 or i in alts:
            continue
        taken.append(n)
        q = snap_to_edges(pale, _orient(n))
        if (_card_shaped(q, min_side, centre) and _face_support(face, q, scale) >= NET_FACE
                and _iou(out[i][1].pts, q) < 0.9):
            alts[i] = q.astype(np.float32)
    return [(k, Quad(o.pts, o.whole, o.alt + (alts[i],)) if i in alts else o) for i, (k, o) in enumerate(out)]


def _net_cards(frame: np.ndarray, pale: np.ndarray, min_side: float, centre: tuple[float, float] | None,
               face: np.ndarray, core: np.ndarray, scale: float,
               found: list[np.ndarray] | None = None,
               others: list[np.ndarray] | None = None,
               card_area: float | None = None) -> list[tuple[float, Quad]]:
    """Card outlines from the learned finder (``vision.finder_net``): each card's core grown to its outline,
    snapped onto the face's edges, and kept when it has a card's shape, the network sees card face in it
    (``NET_FACE``) and its rim differs from what lies around it (``NET_RIM_CONTRAST``); the rim's plainness (two
    sides) only ranks it. How whole the card is: how fully its core fills the core's rectangle (a covered card's core
    is cut). ``face``, ``core``, ``scale``: the network's maps (``FinderNet.maps``). ``found``: outlines already found;
    a card overlapping one is not fitted, unless it is whole and every outline it overlaps is a part of it
    (``_part_of``: since session 17 not only one, as a brightened webcam frame's five of diamonds showed, its pips
    outlined two to four at a time). An outline of a court's picture frame ranks below the card's own
    (``_frames_give_way``: a plainer rim had ranked the paris courts' frames first)."""
    out = []
    # (an outline whose box lies apart from a card's shares no area with it: the polygons are not intersected)
    found_boxes = [(f, _box(f)) for f in found or []]
    for card in finder_net.net_cards(face, core, scale, min_side):
        box = _box(card.quad)
        over = [f for f, fb in found_boxes if not _apart(box, fb) and _overlaps(card.quad, [f])]
        if over:
            is_whole = card.fill / 0.9 >= 0.9  # (the wholeness given to the outline below)
            # (several parts only while they are small together - pips -, not the two cards of an overlapping pair,
            # each about half of the network's core round both: poker_table's pairs, 221 -> 219 found if allowed)
            parts = is_whole and all(_part_of(o, card.quad, card_area) for o in over)
            if parts and len(over) > 1:
                parts = sum(cv2.contourArea(o) for o in over) <= NET_PART_SHARE * cv2.contourArea(card.quad)
            if not parts:
                if others is not None:
                    others.append(card.quad)  # (an outline of a card already found: perhaps a better one)
                continue
        q = _orient(card.quad)
        if centre is not None and plane_aspect(q, centre, focal=_focal_prior(centre)) is None:
            continue
        if _face_support(face, q, scale) < NET_FACE:
            continue  # (checked again once snapped; most of the network's weak cores stop here, before the snapping)
        if NET_TURN:
            q = _turned_to_edges(pale, q)
        q = snap_to_edges(pale, q)
        if not _card_shaped(q, min_side, centre):
            continue  # (snapped onto something else's edges: a marker's square, a book's corner)
        # the rim's plainness only ranks the network's outlines: a card partly covered (an object, a cable, a fold of
        # cloth across it) has a rim that is not plain everywhere, and the hand-drawn views' check missed those
        band: list[tuple[np.ndarray, np.ndarray]] = []
        plain, contrast = rim_contrast(frame, q, two_sides=True, bands=band)
        support = _face_support(face, q, scale)
        if contrast < NET_RIM_CONTRAST or support < NET_FACE:
            continue
        whole = float(min(1.0, card.fill / 0.9))
        framed = any(inside[0] < outside[0] - NET_FRAME_DARK for inside, outside in band)
        out.append((whole + plain + _size_bonus(q),
                    Quad(q.astype(np.float32), whole, face=support, contrast=contrast, framed=framed)))
    return _frames_give_way(out)


# the network's outline comes from its core map's cells (7 px of a 1280 px frame): a small card's core, turned a few
# degrees, gives a rectangle square to the frame, and snapping turns a side only slightly. The outline is first turned
# to the edges' own direction round it (``_turned_to_edges``): the strongest direction, modulo a right angle, of the
# paleness's gradient in a ring of ``TURN_RING`` of the short side either side of the outline's sides, when it is
# clear (``TURN_PEAK`` of the ring's gradient within a degree of it) and ``TURN_MIN`` to ``TURN_MAX`` degrees off
NET_TURN = True
TURN_RING = 0.2
TURN_PEAK = 0.15
TURN_MAX = 20.0
TURN_MIN = 1.0


def _turned_to_edges(pale: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``q`` turned about its centre to the direction of the edges round it (above), or ``q`` as it is."""
    short = min(float(_vlen(q[1] - q[0])), float(_vlen(q[2] - q[1])))
    ring = TURN_RING * short
    x0, y0 = np.floor(q.min(axis=0) - ring - 2).astype(int)
    x1, y1 = np.ceil(q.max(axis=0) + ring + 2).astype(int)
    h, w = pale.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return q
    patch = pale[y0:y1, x0:x1].astype(np.float32)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
    local = (q - [x0, y0]).astype(np.float32)
    band = np.zeros(patch.shape, np.uint8)
    cv2.polylines(band, [np.round(local).astype(np.int32)], True, 1, thickness=max(3, int(round(2 * ring))))
    mag = np.hypot(gx, gy)[band > 0]
    ang = np.degrees(np.arctan2(gy, gx))[band > 0] % 90.0
    if mag.sum() <= 0:
        return q
    hist = np.bincount(np.floor(ang).astype(int) % 90, weights=mag, minlength=90)
    # (a degree either side: the peak's weight over three bins, round the circle of 90)
    near = hist + np.roll(hist, 1) + np.roll(hist, -1)
    peak = int(np.argmax(near))
    if near[peak] < TURN_PEAK * hist.sum():
        return q
    d = q[1] - q[0]
    own = float(np.degrees(np.arctan2(d[1], d[0])) % 90.0)
    turn = (peak + 0.5 - own + 45.0) % 90.0 - 45.0
    if not TURN_MIN <= abs(turn) <= TURN_MAX:
        return q
    c = q.mean(axis=0)
    r = cv2.getRotationMatrix2D((float(c[0]), float(c[1])), -turn, 1.0)
    return (q @ r[:, :2].T + r[:, 2]).astype(np.float32)


# the network's outlines of one card that differ this much (IoU) are alternatives of each other (``_add_net_cards``);
# at most this many kept per card (each is read only when the card's first outline reads nothing)
NET_ALT_IOU = (0.5, 0.9)
NET_ALTS = 2
# a court's picture frame gives way to the card it is drawn on (``_frames_give_way``): it lies inside the card (8 / 10
# of it) and covers at least a fifth of it; the card stands out from the table at least twice as much; one of its
# sides is darker inside than outside by 20 (L, 0-255), a picture with the paper round it. Measured on the drawn
# paris courts (their margin is thin, their picture a strong rectangle): contrast 70-122 for the card, 11-36 for the
# frame, 43-61 darker inside on the frame's paper side; a card on a white plate outlined a little too large
# (boxes_train IMG_2501) has twice the contrast of its true outline but no side darker inside
NET_FRAME_SHARE = 0.2
NET_FRAME_INSIDE = 0.8
NET_FRAME_CONTRAST = 2.0
NET_FRAME_DARK = 20.0


def _lies_as_frame(q: Quad, card: np.ndarray) -> bool:
    """Whether the learned finder's outline ``q`` lies on the card outlined by ``card`` as a court's picture frame
    would: a side darker inside than out, inside the card and covering a good part of it (``NET_FRAME_*``). It is
    one when the card also stands out more (``_is_frame_of``)."""
    if not q.framed:
        return False
    a, ac = float(cv2.contourArea(q.pts)), float(cv2.contourArea(card))
    if not NET_FRAME_SHARE * ac <= a < 0.95 * ac:
        return False
    return cv2.intersectConvexConvex(q.pts, card.astype(np.float32))[0] > NET_FRAME_INSIDE * a


def _is_frame_of(q: Quad, card: np.ndarray, card_contrast: float) -> bool:
    """Whether ``q`` is a court's picture frame on the card outlined by ``card`` (whose rim contrast is
    ``card_contrast``): it lies as one (``_lies_as_frame``) and the card stands out from what lies round it at least
    ``NET_FRAME_CONTRAST`` times as much."""
    return card_contrast >= NET_FRAME_CONTRAST * q.contrast and _lies_as_frame(q, card)


def _frames_give_way(cands: list[tuple[float, Quad]]) -> list[tuple[float, Quad]]:
    """``cands`` (the network's outlines) where a court's picture frame ranks below the card it is drawn on
    (``_is_frame_of``): a plainer rim had ranked the frames of the paris courts first."""
    out = list(cands)
    # (the larger outlines first, so that a frame inside a frame gives way to the card too)
    for i in sorted(range(len(cands)), key=lambda i: -float(cv2.contourArea(cands[i][1].pts))):
        qi = cands[i][1]
        for j, (_, qj) in enumerate(cands):
            if i != j and out[j][0] >= out[i][0] and _is_frame_of(qj, qi.pts, qi.contrast):
                out[j] = (out[i][0] - 1e-3, qj)
    return out


def _card_shaped(q: np.ndarray, min_side: float, centre: tuple[float, float] | None) -> bool:
    """Whether a quad has a card's shape, as ``_quad_from_contour`` requires of the views' outlines: sides 1.15-1.9
    to 1 in the image, or (seen obliquely, ``centre`` known) a card's ratio on the table; the short side at least
    ``min_side``."""
    a = _vlen(q[1] - q[0]) + _vlen(q[3] - q[2])
    b = _vlen(q[2] - q[1]) + _vlen(q[0] - q[3])
    short, long = min(a, b) / 2, max(a, b) / 2
    if short < min_side:
        return False
    if 1.15 < long / short < 1.9:
        return True
    if centre is None:
        return False
    r = plane_aspect(q, centre, focal=_focal_prior(centre))
    return r is not None and CARD_ASPECT[0] < max(r, 1 / r) < CARD_ASPECT[1]


def _face_support(face: np.ndarray, quad: np.ndarray, scale: float) -> float:
    """The mean face probability the finder network gives inside ``quad`` (frame pixels; ``scale`` frame pixels per
    map cell)."""
    return _mean_inside(face, (quad + 0.5) / scale - 0.5)


def _mean_inside(img: np.ndarray, quad: np.ndarray) -> float:
    """The mean of one-channel ``img`` over the pixels inside ``quad`` (its pixel coordinates; 0 when none are)."""
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 1, [img.shape[1], img.shape[0]])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(m, np.round(quad - [x0, y0]).astype(np.int32), 1)
    return float(cv2.mean(img[y0:y1, x0:x1], mask=m)[0]) if m.any() else 0.0


def _along_border(quad: np.ndarray, w: int, h: int, sides: int = 1, tol: float = 4.0) -> bool:
    """Whether ``sides`` sides of the quad lie along the frame's edges (both ends within ``tol`` pixels of one, or
    past it)."""
    # (on it or beyond it: an outline pushed out to make up for its edges may reach past the frame)
    near = [quad[:, 0] <= tol, quad[:, 0] >= w - 1 - tol, quad[:, 1] <= tol, quad[:, 1] >= h - 1 - tol]
    return sum(bool((n & n[_NEXT]).any()) for n in near) >= sides


# an outline that gives way to a better-scored one it lies inside (``_best_apart``), whole and clearly smaller, is that
# one's alternative, read when it reads nothing: the top card of a trick's pile, its sides white on white against the
# cards below, lost to the outline of the pile's pale blob, which scored as high and read nothing (a six of
# diamonds on a pile of near its own outline, scene 500017, not found in 13 of the 27 tuning designs)
INNER_ALT_IOU = (0.5, 0.9)
INNER_ALT_INSIDE = 0.9  # of the inner outline's area inside the better one
INNER_ALTS = 2


def _best_apart(cands: list[tuple[float, Quad]], inner_alts: bool = False) -> list[tuple[float, Quad]]:
    """The best-scored outlines, each overlapping none better than it by more than half (IoU). With ``inner_alts``,
    an outline given way that is whole and lies inside the better one (``INNER_ALT_*``) is kept as its alternative."""
    out: list[tuple[float, Quad]] = []
    boxes: list[tuple[float, float, float, float]] = []
    alts: dict[int, list[np.ndarray]] = {}
    for k, q in sorted(cands, key=lambda t: -t[0]):
        x0, y0 = q.pts.min(axis=0).tolist()
        x1, y1 = q.pts.max(axis=0).tolist()
        # (outlines whose boxes are apart do not overlap: their IoU, 0, is not computed; without ``inner_alts`` the
        # first better outline overlapping by half decides, and the rest are not measured)
        near = (i for i, (bx0, by0, bx1, by1) in enumerate(boxes) if not (bx1 < x0 or x1 < bx0 or by1 < y0 or y1 < by0))
        keep = inner_alts and q.whole >= 0.9
        over = [(i, _iou(q.pts, out[i][1].pts)) for i in near] if keep else []
        if (all(v < 0.5 for _, v in over) if keep
                else all(_iou(q.pts, out[i][1].pts) < 0.5 for i in near)):
            out.append((k, q))
            boxes.append((x0, y0, x1, y1))
            continue
        if not keep:
            continue
        i, v = max(over, key=lambda t: t[1])
        w = out[i][1]
        mine = alts.setdefault(i, [])
        if (INNER_ALT_IOU[0] <= v < INNER_ALT_IOU[1] and len(mine) < INNER_ALTS
                and cv2.intersectConvexConvex(q.pts, w.pts)[0] >= INNER_ALT_INSIDE * cv2.contourArea(q.pts)
                and cv2.contourArea(q.pts) < cv2.contourArea(w.pts)
                and all(_iou(m, q.pts) < INNER_ALT_IOU[1] for m in mine)):
            mine.append(q.pts)
    return [(k, replace(q, alt=q.alt + tuple(alts[i])) if alts.get(i) else q) for i, (k, q) in enumerate(out)]


# a size reference's long side to its short, at least: a poker card (1.4) seen up to about 25 degrees off, a bridge card
# (1.56) up to about 35; one seen more obliquely only gives no size (fewer pairs split, never a lone card), where at
# 1.15 a marker outlined at 95 x 110 px would still have set one (poker_table found 217 -> 218 at 1.25)
SPLIT_SIZE_RATIO = 1.25


# the table's tilt is measured from the cards seen whole when at least TILT_CARDS of them are (one card's vanishing
# points are a few pixels' guess: its tilt comes out within about 6 degrees of another's, the median of two or more
# is steadier), and used where it is at least TILT_USED (closer to square-on, a card's size differs by under a tenth
# within a card or two of the nearest card seen whole, whose size the pair splitter takes)
TILT_CARDS = 2
TILT_USED = float(np.tan(np.radians(8.0)))


def table_tilt(quads: list[np.ndarray], centre: tuple[float, float]) -> np.ndarray | None:
    """The tilt of the table seen from the outlines ``quads`` of rectangles lying on it: (tx, ty), its normal's
    x and y over its z in the camera's frame, for a pinhole camera with its principal point at ``centre`` and a
    focal length of 1.5 times the half frame (the prior ``plane_aspect`` uses: in the view ``table_view`` turns to,
    the cards' sizes rest on the horizon the vanishing points show, not on the focal length; a wrong one only leaves
    them a little sheared). The median over the quads; None with fewer than ``TILT_CARDS``, or where the table lies
    closer to square-on than ``TILT_USED``."""
    f = _focal_prior(centre)
    if len(quads) < TILT_CARDS or not f > 0:
        return None
    ts = []
    for q in quads:
        h = np.hstack([q.astype(np.float64), np.ones((4, 1))])
        # the vanishing points of the two pairs of opposite sides, then the sides' directions in space
        v1 = np.cross(np.cross(h[0], h[1]), np.cross(h[3], h[2]))
        v2 = np.cross(np.cross(h[1], h[2]), np.cross(h[0], h[3]))
        d1 = ((v1[0] - centre[0] * v1[2]) / f, (v1[1] - centre[1] * v1[2]) / f, v1[2])
        d2 = ((v2[0] - centre[0] * v2[2]) / f, (v2[1] - centre[1] * v2[2]) / f, v2[2])
        n = np.cross(d1, d2)
        if not abs(n[2]) > _COS_TILT * float(np.linalg.norm(n)):
            continue  # (a quad no camera over a table would see: not the table's plane; or a point four times)
        ts.append((n[0] / n[2], n[1] / n[2]))
    if len(ts) < TILT_CARDS:
        return None
    t = np.median(np.array(ts), axis=0)
    return t if float(np.hypot(*t)) >= TILT_USED else None


# the cards seen whole whose size in the view looking straight down on the table is within this factor of their
# median: the others are no cards of this table (in the view every card has one size, up to the camera's
# difference from the one assumed: the drawn scenes' random homographies leave up to a fifth)
VIEW_SIZE_AGREE = 1.3


def table_view(quads: list[np.ndarray], centre: tuple[float, float]
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The homography that takes the image to the view of the same camera turned to look straight down on the table
    (its tilt measured from the outlines ``quads`` of cards lying on it, ``table_tilt``), and the sides (short, long)
    and centres of those cards in that view, where every card on the table has one size and its corners are right
    angles again (as near as the camera is the one assumed: the nearest card's size is still the best guess). None
    where the tilt is not measured, or no card's size there agrees with the others' (``VIEW_SIZE_AGREE``)."""
    tilt = table_tilt(quads, centre)
    if tilt is None:
        return None
    f = _focal_prior(centre)
    n = np.array([tilt[0], tilt[1], 1.0]) / float(np.hypot(np.hypot(*tilt), 1.0))
    axis = np.cross(n, [0.0, 0.0, 1.0])  # (the turn that takes the table's normal onto the camera's axis)
    turn, _ = cv2.Rodrigues(axis / float(np.linalg.norm(axis)) * float(np.arccos(n[2])))
    k = np.array([[f, 0.0, centre[0]], [0.0, f, centre[1]], [0.0, 0.0, 1.0]])
    h = k @ turn @ np.linalg.inv(k)
    seen = _moved(np.array(quads), h).reshape(-1, 4, 2)
    sides = np.sort(np.stack([_row_lengths(seen[:, 1] - seen[:, 0]) + _row_lengths(seen[:, 3] - seen[:, 2]),
                              _row_lengths(seen[:, 2] - seen[:, 1]) + _row_lengths(seen[:, 0] - seen[:, 3])], 1) / 2,
                    axis=1)
    # (not every outline seen whole is a card: a strip of the board's rim, cut by the frame, was one; in the view
    # they stand out by their size)
    areas = sides[:, 0] * sides[:, 1]
    ok = np.isfinite(areas) & (areas > 0)  # (a quad of one point, or one on the horizon, has no size there)
    if ok.any():
        ratio = np.ones_like(areas)
        ratio[ok] = areas[ok] / np.median(areas[ok])
        ok &= np.abs(np.log(ratio)) < np.log(VIEW_SIZE_AGREE)
    if not ok.any():
        return None  # (two outlines of sizes far apart: which is a card is not known, nor then the tilt)
    return h, sides[ok], np.array([_centre(q) for q in seen[ok]]).reshape(-1, 2)


def _split_in_view(c: np.ndarray, card: tuple[float, float], edges_dil: np.ndarray,
                   h: np.ndarray) -> list[Quad]:
    """``split_pair`` of the region ``c`` (in the view ``h`` takes the image to: ``table_view``) on the edges seen
    in that view, its cards' outlines taken back to the image."""
    x, y, w, ht = cv2.boundingRect(np.round(c).astype(np.int32))
    pad = int(0.3 * card[1]) + 2
    if w > 6 * card[1] or ht > 6 * card[1]:
        return []  # (no pair of cards: the far table stretched by the turn)
    shift = np.array([[1.0, 0.0, pad - x], [0.0, 1.0, pad - y], [0.0, 0.0, 1.0]])
    local = cv2.warpPerspective(edges_dil, shift @ h, (w + 2 * pad, ht + 2 * pad), flags=cv2.INTER_NEAREST)
    pair = split_pair(np.round(c + [pad - x, pad - y]).astype(np.int32), card, local)
    back = np.linalg.inv(shift @ h)
    return [replace(q, pts=_orient(_moved(q.pts, back).astype(np.float32))) for q in pair]


def _split_unions(cands: list[tuple[float, Quad]], unions: list[np.ndarray],
                  edges_dil: np.ndarray, pale: np.ndarray, frame: np.ndarray,
                  shapes: _Shapes | None = None,
                  centre: tuple[float, float] | None = None) -> list[tuple[float, Quad]]:
    """``cands`` with the pairs of overlapping cards that ``split_pair`` finds in ``unions`` (regions of about two
    cards' area), and without the outlines that took such a pair for one card. ``shapes``: the unions' areas and
    hulls, kept for the next use. ``centre``: the principal point, when the frame is the camera's whole image: on a
    table seen tilted (``table_view``) a region not split as seen is then tried again in the view looking straight
    down on it, where a far pair is no smaller than a near one."""
    shapes = shapes or _Shapes()
    # (every outline seen whole, for ``SPLIT_ONE_SHARE``: a loose outline of a lone card is no size reference)
    seen_whole = [q.pts for _, q in cands if q.whole >= 0.98]
    sure, sides, centres, view = _sizes_here(cands, centre)
    if not sure:
        return cands  # no card seen whole: its size on this table is not known
    # the colour of the cards' paper here (the band inside the edge of the cards seen whole: white under this light),
    # measured when a pair is first found (most frames have none)
    paper: np.ndarray | None = None
    done: list[tuple[float, float, float]] = []
    areas = sides[:, 0] * sides[:, 1]
    # (on a tilted table a pair far off is smaller than any card seen whole, one near by larger than any: such
    # regions are measured in the view looking straight down)
    lo, hi = (1.15, 2.4) if view is None else (0.4, 4.0)
    lo, hi = lo * float(areas.min()), hi * float(areas.max())

    for c in unions:
        a = shapes.area(c)
        if not lo < a < hi:
            continue  # (most regions: far from two cards' area whatever the card)
        hull = shapes.hull(c)
        (cx, cy), _, _ = cv2.minAreaRect(hull)  # (the same rectangle as the contour's, from fewer points)
        # the size of the card seen whole nearest to it: a photograph's cards differ in size by up to a fifth from
        # one side of the table to the other (the view is never quite square-on)
        short, long = _nearest_size(sides, centres, (cx, cy))
        # the region as seen, then (on a table seen tilted) in the view looking straight down, where a far card is
        # no smaller than a near one: the nearest card's size there. Seen, it is split as it always was; in the
        # view, where it was not (a view a few degrees off keeps the drawn scenes' pairs that were split)
        tries = [(c, a, hull, short, long, False)]
        if view is not None:
            c_v = _moved(c, view[0]).astype(np.float32).reshape(-1, 1, 2)
            (vx, vy), _, _ = cv2.minAreaRect(c_v)
            vs, vl = _nearest_size(view[1], view[2], (vx, vy))
            tries.append((c_v, cv2.contourArea(c_v), cv2.convexHull(c_v), vs, vl, True))
        if any(abs(cx - x) + abs(cy - y) < 0.15 * short and 0.85 < a / b < 1.15 for x, y, b in done):
            continue  # the same pair seen by another view
        x, y, w, h = cv2.boundingRect(c)
        if x <= 1 or y <= 1 or x + w >= edges_dil.shape[1] - 1 or y + h >= edges_dil.shape[0] - 1:
            continue  # cut by the frame's border: not two whole outlines to match
        pair: list[Quad] = []
        counted = False
        for c_t, a_t, hull_t, s_t, l_t, viewed in tries:
            area = s_t * l_t
            if not 1.15 * area < a_t < 2.4 * area or cv2.contourArea(hull_t) > 1.43 * a_t:
                continue
            if not counted:
                done.append((cx, cy, a))
                counted = True
            if any(SPLIT_ONE_SHARE * a_t <= cv2.contourArea(_moved(q, view[0]).astype(np.float32) if viewed
                                                            and view is not None else q)
                   <= NET_SAME_SIZE * area
                   and cv2.pointPolygonTest(c, tuple(map(float, _centre(q))), False) >= 0 for q in seen_whole):
                break  # (one card seen whole, of a card's size, fills it: that card and the band round it, no pair)
            pair = _split_in_view(c_t, (s_t, l_t), edges_dil, view[0]) if viewed and view is not None \
                else split_pair(c, (s_t, l_t), edges_dil)
            if pair:
                break
        area = float(np.mean([cv2.contourArea(p.pts) for p in pair])) if pair and viewed else short * long
        # a card seen whole inside the region must be one of the two, outlined alike (else the region is something
        # else: a photo or a box the size of two cards, with one card on it; or the pair was fitted at another
        # card's size: ``SPLIT_SAME``)
        if not pair or any(cv2.pointPolygonTest(c, tuple(map(float, _centre(q))), False) >= 0
                           and max(_iou(q, p.pts) for p in pair) < SPLIT_SAME for q in sure):
            continue
        # face up: the band inside the edge of the better-seen card is the paper's colour (a pair of backs, blue or
        # red, has the outline of a pair of faces; the covered card's band is partly the other card's)
        if paper is None:
            paper = np.median(np.array([_band_lab(frame, p) for p in sure]), axis=0)
        if min(float(np.linalg.norm((_band_lab(frame, p.pts) - paper)[1:])) for p in pair) > PAPER_AB:
            continue
        # an outline over both cards (the pair taken for one card) gives way to them
        cands = [(k, q) for k, q in cands
                 if not (cv2.contourArea(q.pts) > 1.25 * area and all(
                     cv2.intersectConvexConvex(q.pts, p.pts)[0] > 0.3 * area for p in pair))]
        cands += [(2.5 if p.whole >= 0.9 else 1.2, Quad(snap_to_edges(pale, p.pts), p.whole)) for p in pair]
    return cands


# a region of about one card's area (CORNER_AREA times that of the card seen whole nearest to it) that no outline
# explains and no quad fits - a card whose side runs white on white into another's margin, a wedge of which the region
# took in (poker_table train_14's two of diamonds on a king) - is the card drawn from one of its right-angled corners
# at that size, when that card lies in the region (CORNER_INSIDE of it) and makes most of it (IoU CORNER_FIT; 0.85
# at first, 0.8 since train_12's three of diamonds on a two of hearts fitted at 0.81: poker_table read 163 -> 165,
# boxes_train 386 -> 387, nothing else on the photos)
CORNER_AREA = (0.85, 1.2)
CORNER_INSIDE = 0.9
CORNER_FIT = 0.8


# of three or more size references, those whose area is more than REF_AGREE times off their median are none: a
# card outlined short, the top of a pair of jacks whose lower card hides its bottom (poker_table train_06), had been
# the size the pair splitter took for the pair beside it
REF_AGREE_LEAST = 3
REF_AGREE = 1.4


def _nearest_size(sides: np.ndarray, centres: np.ndarray, at: tuple[float, float]) -> tuple[float, float]:
    """The sides (short, long) of the size reference whose centre lies nearest the point ``at``."""
    short, long = sides[int(_row_lengths(centres - [at[0], at[1]]).argmin())]
    return float(short), float(long)


def _size_references(cands: list[tuple[float, Quad]], agree: bool = True
                     ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The outlines seen whole (0.98) of a card's shape (``SPLIT_SIZE_RATIO``), their sides (short, long) and their
    centres: the card's size here, near each of them. ``agree``: without those far off the others' size
    (``REF_AGREE``; not on a table seen tilted, where the far cards are that much smaller)."""
    sure = [q.pts for _, q in cands if q.whole >= 0.98]
    sides = np.array([sorted((_vlen(p[1] - p[0]) + _vlen(p[3] - p[2]),
                              _vlen(p[2] - p[1]) + _vlen(p[0] - p[3]))) for p in sure])
    sides = sides.reshape(-1, 2) / 2
    # (the card's size is taken from outlines of a card's shape only: a mat's square marker, outlined whole at 85 x 86
    # px beside a lone two of diamonds, made it "two cards" of that size and split it in two, scene 500029)
    shaped = sides[:, 1] > SPLIT_SIZE_RATIO * sides[:, 0]
    sure = [p for p, k in zip(sure, shaped, strict=True) if k]
    refs = sure, sides[shaped], np.array([_centre(p) for p in sure]).reshape(-1, 2)
    return _agreeing(*refs) if agree else refs


def _agreeing(sure: list[np.ndarray], sides: np.ndarray, centres: np.ndarray
              ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The size references (``_size_references``) less those more than ``REF_AGREE`` times off their median area,
    where there are ``REF_AGREE_LEAST`` or more."""
    if len(sure) < REF_AGREE_LEAST:
        return sure, sides, centres
    areas = sides[:, 0] * sides[:, 1]
    near = np.abs(np.log(areas / np.median(areas))) < np.log(REF_AGREE)
    if not near.any():
        return sure, sides, centres  # (half of them at one size and half at another agree on none)
    return [p for p, k in zip(sure, near, strict=True) if k], sides[near], centres[near]


def _sizes_here(cands: list[tuple[float, Quad]], centre: tuple[float, float] | None
                ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray] | None]:
    """The size references among ``cands`` and the view looking straight down on the table (``table_view``; None
    without ``centre`` or where the table is not seen tilted): where there is none, only the references that agree in
    size (``_agreeing``), else all of them (a tilted table's far cards are that much smaller)."""
    sure, sides, centres = _size_references(cands, agree=False)
    view = table_view(sure, centre) if centre is not None else None
    if view is None:
        sure, sides, centres = _agreeing(sure, sides, centres)
    return sure, sides, centres, view


def _cards_from_corners(cands: list[tuple[float, Quad]], unions: list[np.ndarray], pale: np.ndarray,
                        min_side: float, centre: tuple[float, float] | None,
                        shapes: _Shapes | None = None) -> list[tuple[float, Quad]]:
    """``cands`` with the cards drawn from a corner of the regions of about one card's area that nothing explains
    (``CORNER_*``). ``shapes``: the unions' areas and hulls, where already measured."""
    shapes = shapes or _Shapes()
    sure, sides, centres, view = _sizes_here(cands, centre)
    if not len(sides):
        return cands
    added: list[tuple[float, Quad]] = []
    areas = sides[:, 0] * sides[:, 1]
    # (on a table seen tilted, a region no card is drawn from as seen is tried again in the view looking straight
    # down on it, as ``_split_unions`` does)
    lo, hi = (CORNER_AREA if view is None else (0.4, 3.0))
    lo, hi = lo * float(areas.min()), hi * float(areas.max())
    back = np.linalg.inv(view[0]) if view is not None else None

    def drawn(c: np.ndarray, a: float, rect: tuple, short: float, long: float,
              to_image: np.ndarray | None) -> np.ndarray | None:
        """The card drawn from a corner of the region ``c`` (of area ``a``, its rectangle ``rect``) at the size
        ``short`` x ``long``, in the image (``to_image`` takes it there from the view it was drawn in), or None."""
        if not CORNER_AREA[0] * short * long < a < CORNER_AREA[1] * short * long:
            return None
        box = cv2.boxPoints(rect).astype(np.float32)
        if to_image is not None:
            box = _moved(box, to_image).astype(np.float32)
        rb = _box(box)
        if any(not _apart(_box(q.pts), rb) and _iou(q.pts, box) > 0.5 for _, q in cands + added):
            return None  # (explained: most such regions are the cards found)
        x, y, w, h = cv2.boundingRect(c)
        if w > 6 * long or h > 6 * long:
            return None  # (a region running to the horizon of the view looking straight down: no card)
        pad = int(long)
        off = np.array([x - pad, y - pad], np.float32)
        region = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
        cv2.drawContours(region, [(c.reshape(-1, 2) - off).astype(np.int32)], -1, 1, -1)
        n_region = cv2.countNonZero(region)
        best, best_fit = None, CORNER_FIT
        corners = _outline_corners(c, short)
        for q in _corner_cards(corners, short, long, (1.0,)).reshape(-1, 4, 2) if corners else ():
            m = np.zeros_like(region)
            cv2.fillConvexPoly(m, np.round(q - off).astype(np.int32), 1)
            nq, inter = cv2.countNonZero(m), cv2.countNonZero(cv2.bitwise_and(m, region))
            if nq and inter >= CORNER_INSIDE * nq and inter / (nq + n_region - inter) >= best_fit:
                best, best_fit = q, inter / (nq + n_region - inter)
        if best is None:
            return None
        q = snap_to_edges(pale, _orient(best if to_image is None else _moved(best, to_image).astype(np.float32)))
        # (a region partly over a card found: the card drawn would be that card again, or a piece of it; an
        # outline under half a card's size lying in it is a piece of it - train_27's nine of clubs lay over one)
        half = 0.5 * (short * long if to_image is None else cv2.contourArea(q.astype(np.float32)))
        others = [o.pts for _, o in cands + added if cv2.contourArea(o.pts) >= half]
        return q if _card_shaped(q, min_side, centre) and not _overlaps(q, others) else None

    for c in unions:
        a = shapes.area(c)
        if not lo < a < hi:
            continue  # (most regions: far from one card's area whatever the card)
        # (the hull's rectangle is the contour's: checked identical on 4,463 unions of the development photos)
        (cx, cy), _, _ = rect = cv2.minAreaRect(shapes.hull(c))
        short, long = _nearest_size(sides, centres, (cx, cy))
        q = drawn(c, a, rect, short, long, None)
        if q is None and view is not None and back is not None:
            # (then in the view looking straight down, at the nearest card's size there, as ``_split_unions``)
            c_v = np.round(_moved(c, view[0]).astype(np.float32)).astype(np.int32).reshape(-1, 1, 2)
            (vx, vy), _, _ = rect_v = cv2.minAreaRect(cv2.convexHull(c_v))
            vs, vl = _nearest_size(view[1], view[2], (vx, vy))
            q = drawn(c_v, cv2.contourArea(c_v), rect_v, vs, vl, back)
        if q is not None:
            added.append((1.1, Quad(q.astype(np.float32), 0.9)))
    if added:
        cands = [(k, o) for k, o in cands if not any(_part_of(o.pts, a.pts) for _, a in added)]
    return cands + added


def _one_card_shaped(c: np.ndarray, short: float, long: float) -> bool:
    """Whether the region outlined by ``c`` has the shape of one card of sides ``short`` x ``long`` seen larger
    (``ONE_CARD_*``), rather than of two overlapping ones."""
    a = cv2.contourArea(c)
    _, (rw, rh), _ = cv2.minAreaRect(c)
    if min(rw, rh) <= 0 or a > ONE_CARD_AREA * short * long or a < ONE_CARD_FILL * rw * rh:
        return False
    return abs(max(rw, rh) / min(rw, rh) / (long / short) - 1) <= ONE_CARD_RATIO


def _held(w: Quad, whole: list[Quad], lo: float, hi: float) -> list[Quad]:
    """The outlines of ``whole`` (other than ``w``) lying inside ``w`` (nine tenths of them) at more than ``lo`` and
    less than ``hi`` of its area."""
    aw = cv2.contourArea(w.pts)
    return [q for q in whole if q is not w and lo * aw < cv2.contourArea(q.pts) < hi * aw
            and cv2.intersectConvexConvex(q.pts, w.pts)[0] > 0.9 * cv2.contourArea(q.pts)]


def _holds_two_cards(w: Quad, whole: list[Quad]) -> bool:
    """Whether ``w`` holds two of the ``whole`` outlines, each 0.3-0.7 of its area, lying apart (IoU < 0.1) and
    together filling three quarters of it: two cards side by side taken for one."""
    aw = cv2.contourArea(w.pts)
    inner = _held(w, whole, 0.3, 0.7)
    for i, a in enumerate(inner):
        for b in inner[i + 1:]:
            if (_iou(a.pts, b.pts) < 0.1
                    and cv2.contourArea(a.pts) + cv2.contourArea(b.pts) > 0.75 * aw):
                return True
    return False


# an outline holding at least HOLDS_CARDS whole outlines lying apart (IoU < 0.1), each under HOLDS_SHARE of its area,
# of one size (within NET_SAME_SIZE of their median) and each a pale face (PALE_FACE of it pale, ``card_mask``) while
# the outline itself is not, is a surface they lie on, never a card: a blurred scene's green mat (drawn scene 500031)
# was outlined whole, card-shaped at 4:3, and its five cards dropped as its parts. A card's own parts are fewer, of
# other sizes, or not pale inside (a ten's diamonds, outlined one by one in a large photo, are red; the card white)
HOLDS_CARDS = 3
HOLDS_SHARE = 0.3
PALE_FACE = 0.5
# (of one size within this, not ``NET_SAME_SIZE``: a card being played, held above the table, is seen up to half as
# large again as those lying on it. A card's own parts are never pale where the card is not, so the pale test keeps
# them out whatever their sizes. With 1.25, a drawn scene's mat holding a lone 5S, a TD and a lifted QC (1.4 times
# the 5S) was one card, and the top card of the pile on it was lost: scene 500058)
HOLDS_SIZE = 1.6
# a pale outline is a surface when it holds three or more such cards each under this share of its area: poker_table's
# square pale board with its sides cut off by the frame (``tools/photo_bench.py --alter middle``) is card-shaped and
# paler than its cards' rims, and each of its cards, a fiftieth of it, had been dropped as its part
HOLDS_PALE_SHARE = 0.1
# (or two such cards each under a twentieth of it: poker_table train_14 cut to its left half shows its board, cut
# card-shaped by the frame, with two lone cards whole, two pairs and a card cut by the frame's edge)
HOLDS_PALE_TWO = (2, 0.05)


def _pale_inside(mask: np.ndarray, quad: np.ndarray) -> float:
    """The share of ``mask`` (``card_mask``: 0 or 255) pixels inside ``quad``."""
    return _mean_inside(mask, quad) / 255.0


def _apart_of_one_size(inner: list[Quad], seen: Callable[[Quad], bool], least: int,
                       size: float = NET_SAME_SIZE) -> bool:
    """Whether ``least`` or more of ``inner`` lie apart (IoU < 0.1; the wholest first), each one ``seen`` says is a
    card, and of one size (within ``size`` of their median area): the cards on a surface, not a card's parts
    (``_holds_cards``, ``_holds_seen_cards``)."""
    apart: list[Quad] = []
    for q in sorted(inner, key=lambda q: -q.whole):
        if all(_iou(q.pts, a.pts) < 0.1 for a in apart) and seen(q):
            apart.append(q)
    if len(apart) < least:
        return False
    areas = np.array([cv2.contourArea(q.pts) for q in apart])
    med = float(np.median(areas))
    return int(((areas >= med / size) & (areas <= med * size)).sum()) >= least


def _holds_cards(w: Quad, inner: list[Quad], mask: np.ndarray | None) -> bool:
    """Whether ``w`` holds ``HOLDS_CARDS`` or more of the outlines ``inner`` (those lying inside it at under
    ``HOLDS_SHARE`` of its area, ``_held``) lying apart, of one size (``HOLDS_SIZE``), each pale inside (``PALE_FACE``)
    and, where ``w`` is pale too, each under ``HOLDS_PALE_SHARE`` of it (or two, each under ``HOLDS_PALE_TWO``'s
    share): a surface with cards on it, not a card.
    ``mask``: the frame's ``card_mask`` (None: never)."""
    # (``_apart_of_one_size`` asks for its least number of cards itself; the fewest any case here asks for is checked
    # first, before the surface's paleness is measured)
    if mask is None or len(inner) < min(HOLDS_CARDS, HOLDS_PALE_TWO[0]):
        return False

    def card(q: Quad) -> bool:
        return _pale_inside(mask, q.pts) >= PALE_FACE

    if _pale_inside(mask, w.pts) < PALE_FACE:
        return _apart_of_one_size(inner, card, HOLDS_CARDS, HOLDS_SIZE)
    # a pale surface: a pale table with its edges in view, card-shaped in the image (a table of 2 by 3, or a square
    # one with its sides cut off by the frame), holds cards each a small part of it (``HOLDS_PALE_SHARE``), or two each
    # a smaller part (``HOLDS_PALE_TWO``)
    aw = cv2.contourArea(w.pts)
    shares = [(cv2.contourArea(q.pts) / aw, q) for q in inner]
    small = [q for k, q in shares if k <= HOLDS_PALE_SHARE]
    tiny = [q for k, q in shares if k <= HOLDS_PALE_TWO[1]]
    return (_apart_of_one_size(small, card, HOLDS_CARDS, HOLDS_SIZE)
            or _apart_of_one_size(tiny, card, HOLDS_PALE_TWO[0], HOLDS_SIZE))


# an outline where the finder network sees little card face (under NET_NOT_CARD) holding HOLDS_SEEN whole outlines
# (0.95) lying apart, of one size, each under HOLDS_SHARE of its area, that it sees surely (SEEN_FACE), is a surface
# they lie on: a cream folder with cards on it (boxes_train IMG_2579) is as pale as they are (``_holds_cards`` cannot
# tell it), card-shaped, and its two lone jacks were dropped as its parts. Where the network sees a card face surely
# on an outline, it sees one on the pips or the picture inside too: the outlines holding two or more apart of the
# development photos had face 0.8-0.98 but for that folder (0.50) and a pale table's end beside four cards (0.36,
# holding one seen at 0.94 and one at 0.73)
HOLDS_SEEN = 2


def _holds_seen_cards(w: Quad, inner: list[Quad], maps: tuple[np.ndarray, np.ndarray, float] | None) -> bool:
    """Whether ``w`` is a surface holding the outlines ``inner`` (``_held`` at under ``HOLDS_SHARE``), by what the
    finder network sees (``maps``: its ``FinderNet.maps``; None: never): see ``HOLDS_SEEN``."""
    inner = [q for q in inner if q.whole >= 0.95]
    if maps is None or len(inner) < HOLDS_SEEN:
        return False
    face, _, scale = maps
    if _face_support(face, w.pts, scale) >= NET_NOT_CARD:
        return False
    return _apart_of_one_size(inner, lambda q: _face_support(face, q.pts, scale) >= SEEN_FACE, HOLDS_SEEN)


def _card_sized(q: np.ndarray, card_area: float | None) -> bool:
    """Whether outline ``q`` has the size of this frame's cards (``card_area``, the median area of those found whole;
    None: unknown) within ``NET_SAME_SIZE``."""
    if card_area is None or card_area <= 0:
        return False
    return 1 / NET_SAME_SIZE <= cv2.contourArea(q) / card_area <= NET_SAME_SIZE


def _part_of(q: np.ndarray, card: np.ndarray, card_area: float | None = None) -> bool:
    """Whether outline ``q`` lies inside the network's ``card`` (nine tenths of it) at no more than a share of its
    area: ``NET_PART_SHARE``, or ``NET_PART_SHARE_SIZED`` when the card has the size of this frame's cards
    (``card_area``, their median; None: unknown)."""
    a, ac = cv2.contourArea(q), cv2.contourArea(card)
    if a > (NET_PART_SHARE_SIZED if _card_sized(card, card_area) else NET_PART_SHARE) * ac:
        return False
    return cv2.intersectConvexConvex(q.astype(np.float32), card.astype(np.float32))[0] > 0.9 * a


def _drop_parts_of_cards(cands: list[tuple[float, Quad]], frame: np.ndarray | None = None,
                         mask: np.ndarray | None = None,
                         maps: tuple[np.ndarray, np.ndarray, float] | None = None) -> list[tuple[float, Quad]]:
    """Outlines lying inside a whole card and clearly smaller than it are parts of that card (a court's picture
    frame, a group of pips), never another card: cards of one deck have one size, so a card lying on another covers
    it at nearly the same size or sticks out of it. With ``frame`` (on an unknown surface), an outline that is the
    card's own, the larger one a loose outline of it, stays for ``_edged_outline_first`` to rank (``_edged_inside``).
    ``mask``: the frame's ``card_mask``, to tell a surface holding cards (``_holds_cards``); ``maps``: the finder
    network's (``FinderNet.maps``), to tell one by what the network sees (``_holds_seen_cards``)."""
    whole = [q for _, q in cands if q.whole >= 0.9]
    # but an outline that holds two whole cards lying apart, which between them fill it, is those two cards taken
    # for one (two cards side by side have a card's shape): it gives way to them; so does one that holds three or
    # more cards of one size lying apart (the mat or a tray they lie on, outlined whole against the wood round it),
    # or two that the network sees as card faces where it sees none (a pale folder they lie on)
    # (both surface tests ask for the outlines lying inside it, found once; ``maps`` is given only with ``mask``)
    def on_surface(w: Quad) -> bool:
        if mask is None:
            return False
        inner = _held(w, whole, 0.0, HOLDS_SHARE)
        return _holds_cards(w, inner, mask) or _holds_seen_cards(w, inner, maps)

    unions = {id(w) for w in whole if _holds_two_cards(w, whole) or on_surface(w)}
    whole = [w for w in whole if id(w) not in unions]
    cands = [(k, q) for k, q in cands if id(q) not in unions]
    out = []
    for k, q in cands:
        a = cv2.contourArea(q.pts)
        inside = False
        for w in whole:
            aw = cv2.contourArea(w.pts)
            if a < 0.85 * aw:
                inter, _ = cv2.intersectConvexConvex(q.pts, w.pts)
                inside = inter > 0.9 * a and not (frame is not None and _edged_inside(frame, q, w))
                if inside:
                    break
        if not inside:
            out.append((k, q))
    return out


def _warp_to(quad: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, int]:
    """The homography that warps the card under ``quad`` upright onto ``k`` times ``size`` (cw, ch), and ``k``: a card
    seen much larger than ``size`` (a photograph) is warped at an integer multiple of it, to be averaged down."""
    cw, ch = size
    side = float(_vlen(quad[1] - quad[0]) + _vlen(quad[2] - quad[3])) / 2
    k = max(1, min(4, int(side / cw + 0.25)))
    dst = np.array([[0, 0], [k * cw - 1, 0], [k * cw - 1, k * ch - 1], [0, k * ch - 1]], np.float32)
    return cv2.getPerspectiveTransform(quad.astype(np.float32), dst), k


def rectify(frame: np.ndarray, quad: np.ndarray, size: tuple[int, int] = (CW, CH)) -> np.ndarray:
    """The card under ``quad`` (TL, TR, BR, BL) warped to the canonical upright size (or ``size``).

    A card seen much larger than that (a photograph) is warped at an integer multiple of the size and then averaged
    down: warping straight to the small size samples one pixel in several and turns thin strokes into dots."""
    cw, ch = size
    m, k = _warp_to(quad, size)
    out = cv2.warpPerspective(frame, m, (k * cw, k * ch), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out if k == 1 else cv2.resize(out, (cw, ch), interpolation=cv2.INTER_AREA)


def _reading_quad(quad: np.ndarray) -> np.ndarray:
    """``quad`` inset by READ_INSET pixels, the same share of the card however large it is seen (a photograph's rim
    and its blur scale with the card)."""
    cen = _centre(quad)
    half = float(_vlen(quad[1] - quad[0])) / 2
    inset = max(READ_INSET, READ_INSET * half / (CW / 2))
    return cen + (quad - cen) * (1 - inset / max(half, 1.0))


def rectify_for_reading(frame: np.ndarray, quad: np.ndarray, scale: int = 1) -> np.ndarray:
    """``rectify`` of the quad inset by READ_INSET pixels (at ``scale`` times the canonical size)."""
    return rectify(frame, _reading_quad(quad), (CW * scale, CH * scale))


def reading_cut(frame: np.ndarray, quad: np.ndarray, larger: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """The card under ``quad`` rectified for reading, and with ``larger``, where the frame has the pixels (its top side
    at least 1.6 times the canonical width), also at twice the size, the card then averaged down from that cut (else
    None)."""
    if larger and bool(_vlen(quad[1] - quad[0]) >= 1.6 * CW):
        big = rectify_for_reading(frame, quad, 2)
        return cv2.resize(big, (CW, CH), interpolation=cv2.INTER_AREA), big
    return rectify_for_reading(frame, quad), None


def corner_cut(frame: np.ndarray, quad: np.ndarray, corner: int, scale: int = 1) -> np.ndarray:
    """One index corner (0: top-left; 1: bottom-right, turned upright) of the card under ``quad``, as
    ``vision.index_net`` cuts it from ``rectify_for_reading(frame, quad, scale)``, without warping the rest."""
    cw, ch = CW * scale, CH * scale
    m, k = _warp_to(_reading_quad(quad), (cw, ch))
    hc, wc = index_net.corner_size((ch, cw))
    if corner == 1:
        m = np.array([[1, 0, -k * (cw - wc)], [0, 1, -k * (ch - hc)], [0, 0, 1]], np.float64) @ m
    out = cv2.warpPerspective(frame, m, (k * wc, k * hc), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if k > 1:
        out = cv2.resize(out, (wc, hc), interpolation=cv2.INTER_AREA)
    return cv2.rotate(out, cv2.ROTATE_180) if corner == 1 else out


# ---------------------------------------------------------------- features


def _norm(v: np.ndarray) -> np.ndarray:
    v = v.astype(np.float32).ravel()
    v = v - v.mean()
    n = np.linalg.norm(v)
    return v / n if n > 1e-6 else v


def face_feature(card: np.ndarray) -> np.ndarray:
    """Whole face at low resolution, colour kept (hearts vs spades), zero-mean unit-norm."""
    inner = card[4:-4, 4:-4]
    small = cv2.resize(cv2.GaussianBlur(inner, (5, 5), 0), FACE_SIZE, interpolation=cv2.INTER_AREA)
    return _norm(small)


def joker_feature(card: np.ndarray) -> np.ndarray:
    """The face at low resolution as ink on paper, for telling the two jokers apart: the card's own paper made white
    first, then its lightness and the two Lab colour channels, zero-mean unit-norm.

    A deck's two jokers often differ only in the colour of their ink (a red and a black JOKER, red and black
    roundels: the drawn bellot, paris and tango), and a camera's colour cast moves exactly that colour; the face
    feature, taken as it comes, told bellot's apart by a margin of 0.28 in enrollment's 16 camera views, under the
    acceptance margin, so its jokers were never named. With this feature the same test, now 32 views under a cast
    of 15 % per channel (``vision.deck.joker_test``), finds them apart by 0.359 at the least."""
    f = card[4:-4, 4:-4].astype(np.float32)
    paper = np.percentile(f[2:-2, 2:-2].reshape(-1, 3), 90, axis=0)
    f = np.clip(f * (235.0 / np.maximum(paper, 20.0)), 0, 255)
    f = cv2.resize(cv2.GaussianBlur(f, (5, 5), 0), FACE_SIZE, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(f / 255.0, cv2.COLOR_BGR2Lab)
    return _norm(np.dstack([(100 - lab[..., 0]) * 2.55, lab[..., 1] * 1.5, lab[..., 2] * 1.5]))


def _template_vector(tpl: Templates, i: int, use_face: bool) -> np.ndarray:
    """Template ``i`` as ``match`` weighs it against a card: face and corner index at equal weight, or the corner
    alone."""
    if use_face:
        return np.concatenate([np.sqrt(0.5) * tpl.face[i], np.sqrt(0.5) * _unit(tpl.corner[i])])
    return _unit(tpl.corner[i])


def _discriminant(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Where ``x`` lies between ``a`` and ``b`` along their difference: 1 = exactly a, 0 = halfway, < 0 nearer b."""
    d = a - b
    dd = float(d @ d)
    return 2 * float((x - (a + b) / 2) @ d) / dd if dd > 1e-9 else 0.0


def _ink(img: np.ndarray) -> np.ndarray:
    """Two float channels: darkness and redness (the index is black or red ink on a pale card)."""
    f = img.astype(np.float32)
    b, g, r = f[..., 0], f[..., 1], f[..., 2]
    return np.dstack([255 - f.mean(axis=2), np.clip(r - (b + g) / 2, 0, 255) * 1.5])


# where on an upright card the corner templates look for a deck's index: the top-left corner (``CORNER_BOX``), as
# most decks print it, or the whole top strip, for a deck that prints it elsewhere (KDE's oxygen designs: the rank top
# right, the suit top left); enrollment finds which (``vision.deck.index_side``)
INDEX_SIDES = ("left", "top")


def _index_region(card: np.ndarray, side: str, pad: int) -> np.ndarray:
    """The region of ``side`` (``INDEX_SIDES``) the corner templates hold, widened by ``pad`` pixels inward (a
    query, > 0) or narrowed by -``pad`` on its outer edges (a template, < 0); the top strip pads sideways within
    the card."""
    if side not in INDEX_SIDES:
        raise ValueError(f"index side {side!r}: not one of {', '.join(INDEX_SIDES)}")
    bottom = int(CORNER_BOX[3] * CH)
    if side == "top":  # (the strip's right edge is the card's: a query reaches it, a template stops short of it)
        return card[: bottom + pad] if pad >= 0 else card[-pad:bottom, -pad : CW + pad]
    right = int(CORNER_BOX[2] * CW)
    return card[: bottom + pad, : right + pad] if pad >= 0 else card[-pad:bottom, -pad:right]


def corner_query(card: np.ndarray, side: str = "left") -> np.ndarray:
    """The corner region of a detected card, a little larger than the template so small misalignments are searched."""
    return cv2.GaussianBlur(_ink(_index_region(card, side, SHIFT)), (3, 3), 0)


def corner_template(card: np.ndarray, side: str = "left") -> np.ndarray:
    """The corner region of an enrolled card, inset by SHIFT on each side."""
    return cv2.GaussianBlur(_ink(_index_region(card, side, -SHIFT)), (3, 3), 0)


def card_features(card: np.ndarray, side: str = "left") -> tuple[np.ndarray, list[np.ndarray]]:
    """Face features (2, D) and corner queries of a rectified card in both orientations (0 and 180 degrees)."""
    flipped = cv2.rotate(card, cv2.ROTATE_180)
    return (np.stack([face_feature(card), face_feature(flipped)]),
            [corner_query(card, side), corner_query(flipped, side)])


def canonical_card(img: np.ndarray) -> np.ndarray:
    """An enrolled card image (a scan or a file) to the canonical upright size, corners trimmed like a detection."""
    return cv2.resize(img, (CW, CH), interpolation=cv2.INTER_AREA)


# ---------------------------------------------------------------- thresholds


@dataclass
class Thresholds:
    """Acceptance thresholds of one mode: a read is accepted when score >= score and margin >= margin."""

    score: float
    margin: float

    def accept(self, score: float, margin: float) -> bool:
        return score >= self.score and margin >= self.margin


def load_thresholds(path: str = THRESHOLDS_PATH) -> dict[str, Thresholds]:
    """The measured thresholds per mode (``enrolled``, ``generic``); conservative defaults before any tuning."""
    defaults = {"enrolled": Thresholds(0.75, 0.12), "generic": Thresholds(0.8, 0.2)}
    # the generic pip reader's thresholds, per suit it names (``generic_pips_S`` ...): none accepted until tuned
    defaults.update({f"generic_pips_{s}": Thresholds(2.0, 2.0) for s in "SHDC"})
    if not os.path.exists(path):
        return defaults
    with open(path) as f:
        data = json.load(f)
    for mode in ("enrolled", "generic"):
        if mode in data:
            defaults[mode] = Thresholds(float(data[mode]["score"]), float(data[mode]["margin"]))
    for s, th in data.get("generic", {}).get("pips", {}).items():
        defaults[f"generic_pips_{s}"] = Thresholds(float(th["score"]), float(th["margin"]))
    return pair_suit_thresholds(defaults)


# the suits a pip's colour leaves to tell apart: a confusion within a pair can go either way
SUIT_PAIRS = ("SC", "HD")


def pair_suit_thresholds(th: dict[str, Thresholds]) -> dict[str, Thresholds]:
    """The generic pip reader names a suit only past the stricter threshold of its colour pair.

    Tuning measured one direction of a confusion (blurred clubs read as spades: spades need margin 0.43) and none
    the other way, so clubs got 0.1; the first designs nobody had tuned on (aisleriot's anglo and gnomangelo) then
    showed the other direction (an ornate ace of spades read as a club at margins 0.17-0.29). A spade and a club are
    one pair of shapes whichever way the mistake goes, so both need the larger margin (hearts/diamonds likewise)."""
    out = dict(th)
    for pair in SUIT_PAIRS:
        keys = [f"generic_pips_{s}" for s in pair]
        if all(k in out for k in keys):
            strict = Thresholds(max(out[k].score for k in keys), max(out[k].margin for k in keys))
            for k in keys:
                out[k] = strict
    return out


# ---------------------------------------------------------------- recogniser


@dataclass
class Templates:
    """Reference features: labels[i] has face[i] and corner[i] (both (D,)); ``back`` is a label too. ``joker``: the
    big and the little joker's ``joker_feature`` (2, D), which tells them apart, or None (no jokers, or a deck file
    enrolled before it: the templates alone tell them apart)."""

    labels: list[str]
    face: np.ndarray
    corner: np.ndarray
    jokers_distinct: bool = True
    meta: dict = field(default_factory=dict)
    joker: np.ndarray | None = None
    index_trusted: bool = True  # the corner network reads this deck's own cards (``vision.deck.index_test``)
    # the ranks the corner network gave to this deck's cards of another rank at enrollment (a German jack's B read
    # as a K): the enrolled mode never takes the network's word for a card of these ranks (``Recogniser._read``)
    index_misnames: str = ""
    # the suits it gave to this deck's cards of another suit there (None: not measured, a deck file enrolled before
    # that test): the enrolled mode never leaves those suits to the network (``Recogniser._rank_by_templates``)
    index_suit_misnames: str | None = None
    # the top corner whose region the corner templates hold (``INDEX_SIDES``; ``vision.deck.index_side``)
    index_side: str = "left"
    # a club's third notch tells this deck's black number cards apart (``vision.deck.notches_tell_black``)
    notches_tell_black: bool = False

    @functools.cached_property
    def corner_units(self) -> tuple[np.ndarray, np.ndarray]:
        """The corner templates as ``_corner_search`` weighs them, made once per deck: each (N, C h w, channels
        first) with its channels' means removed, at unit length; and which templates are flat (no ink)."""
        t = self.corner.astype(np.float64)
        t = t - t.mean(axis=(1, 2), keepdims=True)
        t = t.transpose(0, 3, 1, 2).reshape(len(t), -1)
        norm = np.linalg.norm(t, axis=1)
        flat = norm < np.finfo(np.float32).eps
        return (t / np.where(flat, 1.0, norm)[:, None]).astype(np.float32), flat


def _window_sums(integral: np.ndarray, h: int, w: int) -> np.ndarray:
    """Per window of h x w (row by row) of the image whose integral image (H + 1, W + 1, C) this is: its sum per
    channel (windows, C)."""
    i = integral
    return (i[h:, w:] - i[:-h, w:] - i[h:, :-w] + i[:-h, :-w]).reshape(-1, i.shape[2])


def _corner_search(queries: list[np.ndarray], tpl: Templates, todo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.matchTemplate``'s normalised correlation (``TM_CCOEFF_NORMED``) of each template in ``todo`` within each
    corner query, best over the small shifts the query allows: (best score (Q, T), its place x, y (Q, T, 2)). All
    templates at once, as one product of the query's shifted windows with the templates: the numerator needs no
    window mean (each template's is removed), the windows' spread comes from integral images. It gives
    ``matchTemplate``'s scores to 1e-6 and its places, in a quarter of the time of one call per template (the
    enrolled mode's reading had spent two thirds of its time there). As in ``matchTemplate``, a flat template (no
    ink) scores 1 everywhere and a flat window 0."""
    units, flat = tpl.corner_units
    h, w = tpl.corner.shape[1:3]
    sel = units[todo]
    scores = np.empty((len(queries), len(todo)), np.float32)
    places = np.zeros((len(queries), len(todo), 2), np.int32)
    for k, q in enumerate(queries):
        py, px = q.shape[0] - h + 1, q.shape[1] - w + 1
        win = sliding_window_view(np.ascontiguousarray(q.transpose(2, 0, 1)), (h, w), axis=(1, 2))
        num = np.ascontiguousarray(win.transpose(1, 2, 0, 3, 4)).reshape(py * px, -1) @ sel.T
        s1, s2 = (_window_sums(i, h, w) for i in cv2.integral2(q, sdepth=cv2.CV_64F)[:2])
        spread = np.sqrt(np.maximum((s2 - s1 ** 2 / (h * w)).sum(axis=1), 0.0))
        corr = np.where(spread[:, None] > 0, num / np.maximum(spread, 1e-12)[:, None], 0.0)
        best = corr.argmax(axis=0)
        scores[k] = corr[best, np.arange(len(todo))]
        places[k, :, 0], places[k, :, 1] = best % px, best // px
    scores[:, flat[todo]] = 1.0
    places[:, flat[todo]] = 0
    return scores, places


def _scores(tpl: Templates, face: np.ndarray, corner: list[np.ndarray], use_face: bool) -> np.ndarray:
    """Per-template score: max over the two orientations of the (face + corner) correlation."""
    return _score_table(tpl, face, corner, use_face)[0].max(axis=0)


def _score_table(tpl: Templates, face: np.ndarray, corner: list[np.ndarray], use_face: bool,
                 shortlist: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Scores (2 orientations, N templates) and the corner match locations (2, N, 2).

    With ``shortlist`` (and faces) only the templates whose face correlates best get the costlier corner search;
    the others keep a score of -1.
    """
    n = len(tpl.labels)
    c = np.full((2, n), -1.0, np.float32)
    loc = np.zeros((2, n, 2), np.int32)
    f = face @ tpl.face.T if use_face else None
    todo = np.arange(n)
    if f is not None and shortlist and n > shortlist:
        todo = np.argsort(-f.max(axis=0))[:shortlist]
    c[:, todo], loc[:, todo] = _corner_search(corner, tpl, todo)
    if f is not None:
        s = 0.5 * f + 0.5 * c
        if shortlist and n > shortlist:
            s[c < -0.5] = -1.0
        return s, loc
    return c, loc


def _unit(v: np.ndarray) -> np.ndarray:
    v = v.ravel().astype(np.float32)
    v = v - v.mean()
    return v / max(float(np.linalg.norm(v)), 1e-6)


def match(tpl: Templates, card: np.ndarray, use_face: bool, same: dict[str, str] | None = None,
          rivals: int = 6, nearest: list[str] | None = None,
          by_rival: dict[str, float] | None = None) -> tuple[str, float, float]:
    """(best label, its score, its margin) for a rectified card; ``nearest``, if given, receives the labels of the
    ``MATCH_NEAREST`` best-matching templates, best first; ``by_rival`` each close rival's discriminant (the margin
    is the smallest of them).

    The margin is a discriminant, not a score difference: for the best template A and each close rival B,
    ``2 (x - (A+B)/2).(A-B) / |A-B|^2`` along the pixels where A and B differ (1 = exactly A, 0 = halfway, < 0 =
    nearer B); the reported margin is the smallest over the rivals. A 5 of spades and a 5 of clubs correlate almost
    equally with either template, yet their difference is decided by the pips, which is what this measures.

    Where the templates hold the jokers' colour features (``Templates.joker``), the two jokers are one class for the
    margin against the other cards, and which joker it is is decided by the same discriminant on ``joker_feature``
    (the ink's colour on paper made white). The templates' own margin between the two jokers counts too, but only
    when it names the same joker: then the larger margin is the joker's. Under a camera's colour cast (each channel
    within 15 %) the templates named the wrong joker at the acceptance margin 6 times in 1,343 drawn camera views
    of 29 designs (aisleriot's and the drawn decks'), the colour in none of its 1,441; where they agree, the
    templates add reads the colour alone leaves unsure (gnomangelo_bitmap 46 -> 50 of 50). (A one-off check, its
    script in the session 13 notes; ``tests/vision/test_jokers.py`` reads both jokers under warm and cool light.)
    """
    same = same or {}
    if tpl.joker is not None:
        same = {**same, "BJ": "joker", "LJ": "joker"}
    face, corner = card_features(card, tpl.index_side)
    table, loc = _score_table(tpl, face, corner, use_face, shortlist=14)
    best_o = table.argmax(axis=0)
    scores = table.max(axis=0)
    order = np.argsort(-scores)
    top = int(order[0])
    label = tpl.labels[top]
    key = same.get(label, label)
    if nearest is not None:
        nearest.extend(tpl.labels[int(i)] for i in order[:MATCH_NEAREST])
    o = int(best_o[top])
    h, w = tpl.corner.shape[1:3]
    x, y = loc[o, top]
    patch = _unit(corner[o][y : y + h, x : x + w])
    wf = np.sqrt(0.5) if use_face else 0.0
    wc = np.sqrt(0.5) if use_face else 1.0
    qv = np.concatenate([wf * face[o], wc * patch])
    a = _template_vector(tpl, top, use_face)
    if not use_face:
        qv = wc * patch
    margin = 1.0
    seen: set[str] = {key}
    for i in order[1:]:
        lab = same.get(tpl.labels[i], tpl.labels[i])
        if lab in seen:
            continue
        seen.add(lab)
        d = _discriminant(qv, a, _template_vector(tpl, i, use_face))
        margin = min(margin, d)
        if by_rival is not None:
            by_rival[lab] = d
        if len(seen) > rivals:
            break
    if tpl.joker is not None and key == "joker":
        by_colour = _discriminant(joker_feature(card if o == 0 else cv2.rotate(card, cv2.ROTATE_180)),
                                  tpl.joker[0], tpl.joker[1])  # > 0: the big joker
        other = _template_vector(tpl, tpl.labels.index("LJ" if label == "BJ" else "BJ"), use_face)
        by_templates = _discriminant(qv, a, other)  # > 0: ``label``
        if (by_colour >= 0) != (label == "BJ"):
            label, by_templates = ("BJ" if by_colour >= 0 else "LJ"), -by_templates
        margin = min(margin, max(abs(by_colour), by_templates))
    return label, float(scores[top]), margin


class EnrolledDeck(Protocol):
    """What reading needs of an enrolled deck (``vision.deck.Deck``, which imports this module): its templates."""

    templates: Templates


# a card's cut for reading (``reading_cut``: the card, its larger cut or None) and the corner network's reading of it,
# made for all of a frame's outlines at once (``Recogniser._first_cuts``)
_FirstCut = tuple[tuple[np.ndarray, np.ndarray | None], index_net.IndexRead]


class Recogniser:
    """Reads the cards in a frame with an enrolled deck (``Deck``) or, given None, in the generic mode."""

    def __init__(self, deck: EnrolledDeck | None = None, thresholds: dict[str, Thresholds] | None = None,
                 templates: Templates | None = None, glyph_templates: glyphlib.GlyphTemplates | None = None,
                 learned_index: bool = True) -> None:
        th = thresholds or load_thresholds()
        self.glyphs: glyphlib.GlyphTemplates | None = None
        if deck is None:
            # generic mode reads the corner index glyph by glyph (``vision.glyphs``); it never names a joker
            self.glyphs = glyph_templates if glyph_templates is not None else glyphlib.GlyphTemplates.load()
            self.templates = Templates([], np.zeros((0, 1), np.float32), np.zeros((0, 1, 1, 2), np.float32),
                                       jokers_distinct=False)
            self.mode = "generic"
        else:
            self.templates = deck.templates
            self.mode = "enrolled"
        self.threshold = th[self.mode]
        self.pip_thresholds = {s: th[f"generic_pips_{s}"] for s in "SHDC"}
        self.use_face = self.mode == "enrolled"
        # generic mode reads the corner index with the learned network when its model is there (and not switched off
        # with ``learned_index=False``, to compare with the glyph reader)
        # (and the enrolled mode with it, where its templates are unsure: ``_read``)
        self.net_thresholds = (index_net.load_thresholds() if learned_index
                               and os.path.exists(index_net.MODEL_PATH) else None)
        # when the jokers look alike, both are one class for the margin: "a joker" can be sure while "which" is not
        self.same = {} if self.templates.jokers_distinct else {"BJ": "joker", "LJ": "joker"}
        # the enrolled mode's reads are checked against the learned corner index (``cross_check``)
        # - unless enrollment found the network misreading the deck's own cards (suit signs of another pattern):
        # then its veto would make a right read unsure, and its fallback read could only be wrong
        self.cross_check = (deck is not None and learned_index and os.path.exists(index_net.MODEL_PATH)
                            and self.templates.index_trusted)
        # where the templates are unsure, the enrolled mode takes what the generic learned reader names (``_read``)
        self.falls_back = self.cross_check and self.net_thresholds is not None

    def read_card(self, card: np.ndarray) -> tuple[str, float, float]:
        """(best label, score, margin) of a rectified card; in generic mode the label may be '?' (nothing read)."""
        label, score, margin, _ = self.read_and_accept(card)
        return label, score, margin

    def read_and_accept(self, card: np.ndarray, big: np.ndarray | None = None) -> tuple[str, float, float, bool]:
        """``read_card`` and whether the read clears this mode's thresholds (in generic mode those of the path that
        read it: the pip reader's per named suit, or the corner-index reader's). ``big``: the card rectified at
        twice the size, when the frame has the pixels (the generic reader reads the corner index from it)."""
        return self._read(card, big)[:4]

    def _read(self, card: np.ndarray, big: np.ndarray | None,
              as_generic: Callable[[], tuple[np.ndarray, np.ndarray | None]] | None = None,
              ir: index_net.IndexRead | None = None) -> tuple[str, float, float, bool, index_net.NetRead | None]:
        """``read_and_accept``, and the learned reader's answer when it was the one that read the card.
        ``as_generic``: the card and its larger cut as the generic mode rectifies them (the enrolled mode's
        fallback reads those, so that it reads what the generic mode reads). ``ir``: the generic mode's corner
        reading of this card, when already made (``_first_cuts``)."""
        if self.glyphs is not None and self.net_thresholds is not None:
            # the learned corner index (``vision.index_net``), the pip count or the other corner as second cue
            n = index_net.read_generic(card, big, ir=ir)
            if n.path != "none":
                return n.label, n.score, n.score, index_net.accepts(n, self.net_thresholds), n
            # the network sees no index in either corner: a design unlike any it was trained on (the held-out
            # ornamental and tango) - the glyph reader, with its own thresholds, rather than nothing
        if self.glyphs is not None:
            g = glyphlib.read_generic(card, self.glyphs, big)
            th = self.pip_thresholds.get(g.label[-1], self.threshold) if g.path == "pips" else self.threshold
            return g.label, g.score, g.margin, th.accept(g.score, g.margin) and g.score > 0, None
        label, score, margin, ok, n = self._read_enrolled(card, big, as_generic)
        if ok and NOTCHED_SPADES_UNSURE and self._club_notched(label, card):
            return label, score, margin, False, None
        return label, score, margin, ok, n

    def _club_notched(self, label: str, card: np.ndarray) -> bool:
        """Whether ``label`` is a spade number card and most of the card's pips show a club's third notch, on a deck
        whose own cards that notch tells apart (``Templates.notches_tell_black``; ``NOTCHED_SPADES_UNSURE``)."""
        if not (self.templates.notches_tell_black and label[1:] == "S" and label[0] in "23456789T"):
            return False
        share = pips.club_notched_share(card)
        return share is not None and share >= CLUB_NOTCHED_SHARE

    def _read_enrolled(self, card: np.ndarray, big: np.ndarray | None,
                       as_generic: Callable[[], tuple[np.ndarray, np.ndarray | None]] | None
                       ) -> tuple[str, float, float, bool, index_net.NetRead | None]:
        """``_read`` with an enrolled deck: its templates, the network's veto, and the readers that speak where the
        templates are unsure."""
        nearest: list[str] = []
        by_rival: dict[str, float] = {}
        label, score, margin = match(self.templates, card, self.use_face, self.same, nearest=nearest,
                                     by_rival=by_rival)
        ok = self.threshold.accept(score, margin)
        vetoed = ok and self.cross_check and self.contradicted(label, card if big is None else big)
        if vetoed:
            ok = False
        agreeable = (not vetoed and score >= AGREE_SCORE and margin >= AGREE_MARGIN and len(label) == 2
                     and label[1] in "SHDC")
        # the templates name the rank past the bar and only a card of another suit comes near: the suit is then
        # the network's to confirm (``_rank_by_templates``)
        ranked = not ok and not vetoed and self.cross_check and self._rank_by_templates(label, score, by_rival)
        # (a vetoed match, neither agreeable nor ranked, stays unsure: ``VETO_LEAVES_UNSURE``)
        if (not ok and self.cross_check and label != "back" and not (vetoed and VETO_LEAVES_UNSURE)
                and (agreeable or self.falls_back or ranked)):
            # (the card as the generic mode cuts it, and its corners' reading: made once for the uses below)
            g_card, g_big = as_generic() if as_generic is not None else (card, big)
            ir = index_net.read_corners(g_card if g_big is None else g_big)
            if ranked and _suit_seen(ir, label[1]):
                # (the veto reads the card as cut for the templates, as ``contradicted`` does; without a generic cut
                # of its own that is the cut just read)
                as_cut = ir if as_generic is None else index_net.read_corners(card if big is None else big)
                if not index_vetoes(label, as_cut):
                    return label, score, margin, True, None
            # two readers that fail in different ways agree: the templates' best match and both corners' learned
            # reading name the same card, each short of its own bar (``AGREE_*``; not where the network, reading
            # the card as cut for the templates, vetoed that match)
            if (agreeable and ir.agree and ir.code == label and min(ir.p_rank, ir.p_suit) >= AGREE_P
                    and ir.suit_share >= AGREE_SHARE and label[0] not in self.templates.index_misnames):
                return label, score, margin, True, None
            if self.falls_back:
                # the templates are unsure (an ace in front of a monitor's glow, a two and a three one pip apart):
                # the generic reader's two cues, by its own thresholds, name the card when it is among the templates'
                # nearest (``MATCH_NEAREST``), so that the enrolled mode reads what the generic mode reads. Not where
                # the network vetoed their match (``VETO_LEAVES_UNSURE``; until session 34 it did, for blurred
                # neoclassical clubs matched as spades: 94.1 -> 95.5 % at 400 reads)
                # (never a rank the network gave this deck's cards of another rank at enrollment: rheinland's
                # German jacks, read as kings at 0.95-0.99 in 2 of 150 scenes, had the king among their nearest;
                # nor a suit it gave this deck's cards of another suit there: KDE's jolly-royal, never tuned on, has
                # clubs the network reads as spades, and a blurred 8C, matched as the 8S below the bar with the 8C
                # second, was named the 8S so, scene 500021)
                n = index_net.read_generic(g_card, g_big, ir=ir)
                if index_net.accepts(n, self.net_thresholds) and n.label in nearest and self._may_name(n.label):
                    return n.label, n.score, n.score, True, n
        return label, score, margin, ok, None

    def _may_name(self, label: str) -> bool:
        """Whether the network may name the card ``label`` for this deck: it gave neither its rank nor its suit to the
        deck's cards of another at enrollment (``vision.deck.index_test``)."""
        return label[0] not in self.templates.index_misnames and self._suit_named_rightly(label)

    def _suit_named_rightly(self, label: str) -> bool:
        """Whether the network named no card of this deck of another suit ``label``'s suit at enrollment
        (``vision.deck.index_test``; unknown for a deck enrolled before the test: then not)."""
        misnamed = self.templates.index_suit_misnames
        return misnamed is not None and label[1] not in misnamed

    def _rank_by_templates(self, label: str, score: float, by_rival: dict[str, float]) -> bool:
        """Whether the templates' best match ``label`` scores ``SUIT_LEFT_SCORE`` and clears the enrolled margin
        against every rival of its own suit, and still prefers it to each rival of another suit by
        ``SUIT_LEFT_MARGIN``: what is left is the suit, which two cues then name (``_read``). Not for a rank the
        network misnamed at enrollment, nor a suit it gave to another suit's cards there
        (``vision.deck.index_test``)."""
        if not _standard_card(label):
            return False
        if not self._may_name(label):
            return False
        same, other = [1.0], [1.0]
        for k, d in by_rival.items():
            (same if _standard_card(k) and k[1] == label[1] else other).append(d)
        return score >= SUIT_LEFT_SCORE and min(same) >= self.threshold.margin and min(other) >= SUIT_LEFT_MARGIN

    def _sure_again(self, ok: bool, margin: float, n: index_net.NetRead | None) -> bool:
        """Whether a second reading of a card (from another outline) names it: past the first reading's thresholds
        and the stricter bar of a second try - ``REREAD_P`` for the learned reader, a margin of
        ``ENROLLED_REREAD_MARGIN`` for the enrolled templates; never for the generic glyph reader."""
        if not ok:
            return False
        if n is not None:
            return min(n.p_rank, n.p_suit) >= REREAD_P
        return self.mode == "enrolled" and margin >= ENROLLED_REREAD_MARGIN

    def _cut(self, frame: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The card under ``quad`` as ``_read`` takes it (``reading_cut``; the larger cut only for the generic
        reader, which reads the corner index from it)."""
        return reading_cut(frame, quad, larger=self.glyphs is not None)

    def _first_cuts(self, frame: np.ndarray, quads: list[Quad]) -> list[_FirstCut] | None:
        """Every outline's card (``_cut``) and the learned corner index's reading of it, from one pass of the network
        for the whole frame (one pass over twenty corners costs two thirds of ten passes over two, with the same
        numbers), for the generic mode's first readings; None in the enrolled mode."""
        if self.glyphs is None or self.net_thresholds is None or not quads:
            return None
        cuts = [self._cut(frame, q.pts) for q in quads]
        irs = index_net.shared().read_corners_batch([card if big is None else big for card, big in cuts])
        return list(zip(cuts, irs, strict=True))

    def _read_outline(self, frame: np.ndarray, quad: np.ndarray, first: _FirstCut | None = None
                      ) -> tuple[str, float, float, bool, index_net.NetRead | None, np.ndarray | None]:
        """``_read`` of the card under ``quad`` (``_cut``), and its larger cut (or None). ``first``: the card's cut and
        corner reading, when ``_first_cuts`` made them."""
        (card, big), ir = first if first is not None else (self._cut(frame, quad), None)
        # (the enrolled mode's fallback reads the card as the generic mode cuts it)
        as_generic = None if self.glyphs is not None else functools.partial(reading_cut, frame, quad, larger=True)
        return (*self._read(card, big, as_generic, ir), big)

    def _reread_enrolled(self, frame: np.ndarray, quad: np.ndarray,
                         first: tuple[str, float] | None = None) -> tuple[str, float, float, bool] | None:
        """The enrolled mode's ``_reread``: the card rectified from each of ``REREAD_OUTLINES`` in turn and matched
        with the templates (a whole-face match: no corner alone can be cut again); the first reading that
        ``_sure_again`` accepts, or None - None too when the outlines' accepted readings name different cards.

        Each outline is another chance for a blurred card to look like its neighbour in the deck: a blurred
        neoclassical 3C read right (margin 0.38) from the outline 5 % larger and as the 3S (margin 0.69) from the one
        5 % smaller (a drawn tuning deck's scene, seed 500001). Outlines a few per cent apart that disagree mean the
        card is not sure, and so does another card matched better than the sure reading, even below the thresholds
        (a blurred neoclassical 5C: the 5S past the bar at score 0.85, margin 0.56; the 5C from another outline at
        0.88, margin 0.27, scene 600013). ``first``: the first outline's (label, score), which counts among them."""
        readings = [self._read_outline(frame, v)[:5] for v in outline_variants(quad)]
        sure = [r for r in readings if self._sure_again(r[3], r[2], r[4])]
        if not sure:
            return None
        label, score, margin, ok, _ = sure[0]
        key = self.same.get(label, label)
        if first is not None:
            readings.append((first[0], first[1], 0.0, False, None))
        if any(self.same.get(r[0], r[0]) != key and (r[3] or r[1] >= score) for r in readings):
            return None
        return label, score, margin, ok

    def _reread(self, frame: np.ndarray, quad: np.ndarray, scale: int,
                first: index_net.NetRead) -> tuple[str, float, float, bool] | None:
        """The learned reader's reading of a card it saw an index on but could not name, its unsure corners cut
        again from outlines a few per cent larger, smaller or shifted (``REREAD_OUTLINES``): the first accepted in
        that order, or None (None too when the accepted readings name different cards).

        An outline found a few per cent off (a rounded corner, a soft or shadowed edge, a card partly covered) cuts
        off one index corner, and a court needs both. Each reading must clear the first's thresholds and, for
        rank and suit alike, ``REREAD_P``."""
        assert self.net_thresholds is not None
        redo = index_net.corners_to_reread(first)
        if not redo:
            return None
        cuts = [{i: corner_cut(frame, v, i, scale) for i in redo} for v in outline_variants(quad)]
        accepted = [n for n, cut in zip(index_net.reread_generic(first, cuts), cuts, strict=True)
                    if index_net.accepts(n, self.net_thresholds)
                    and (n.path not in FIRST_CUT_ONLY or _named_by_first_cut(n, first, cut))]
        if len({n.label for n in accepted}) > 1:
            return None  # (cuts a few per cent apart name different cards: see ``_reread_enrolled``)
        for n in accepted:
            if self._sure_again(True, n.score, n):
                return n.label, n.score, n.score, True
        return None

    def _read_relit(self, frame: np.ndarray, quad: np.ndarray) -> tuple[str, float, float, bool] | None:
        """The reading (``_read``) of a card not named, read again with its paper relit to one level
        (``exposure.even_light``) when a shadow or a gradient lies across it (``UNEVEN_BELOW``): the reading when
        that names the card, else None.

        A shadow's sharp edge across a card (an arm's, a head's, a bottle's under a lamp) leaves one index corner
        and half the pips a shade darker: the pips cut at one ink level come out unequal (no clean layout), the
        network is less sure of the dark corner and an enrolled template matches less. The development photos with
        a sharp shadow band laid over them (``tools/photo_bench.py --alter shadow``) read a third fewer cards.
        Relit, a reading must pass the same thresholds as any first reading; it is tried only for a card unread
        and unevenly lit (relighting an evenly lit card gains nothing: read so, the development photos named 25
        fewer cards and none other)."""
        card, big = self._cut(frame, quad)
        relit, evenness = exposure.even_light(card)
        if evenness >= exposure.UNEVEN_BELOW:
            return None
        relit_big = None if big is None else exposure.even_light(big)[0]

        def as_generic() -> tuple[np.ndarray, np.ndarray | None]:
            g_card, g_big = reading_cut(frame, quad, larger=True)
            return exposure.even_light(g_card)[0], None if g_big is None else exposure.even_light(g_big)[0]

        label, score, margin, ok, n = self._read(relit, relit_big, None if self.glyphs is not None else as_generic)
        if ok:
            return label, score, margin, True
        if n is None or n.path == "none" or not REREAD_OUTLINES or not RELIT_REREAD:
            return None
        # the corners cut again from outlines a few per cent off (``_reread``), now in the relit card: a shadow's
        # edge leaves the outline as loose as the index's ink is pale, and the two together had kept a card unread
        canvas, q = _relit_around(frame, quad)
        return self._reread(canvas, q, 1 if relit_big is None else 2, n)

    def contradicted(self, label: str, card: np.ndarray) -> bool:
        """Whether the learned corner index reads this card, sure in both corners, as another card than ``label``.

        An enrolled deck is compared with whatever lies on the table: a card of another deck (a spare brought in, a
        deck never enrolled) or an unlucky match can look most like the wrong template (the desk deck enrolled, a
        poker_table 4C was named 4S). The two corners agreeing on a different code at >= ``CROSS_CHECK_P`` make the
        read unsure; a card whose index the network does not read surely (a joker, a back, a foreign letter) is left
        to the enrolled match.

        The suit alone vetoes too: the corners naming together (``IndexRead.suit_share``) another suit than the
        label's at >= ``CROSS_CHECK_P``. The templates of a spade and a club differ in a few pixels that blur takes
        away: a drawn tuning deck (neoclassical) had blurred clubs matched as spades past the enrolled thresholds
        at first sight (a 3C in scene 500031 at score 0.92, margin 0.38; a 2C in scene 600119 at 0.96 / 0.55, in
        about 1,000 scenes of the tuning decks), while the network, trained on blurred indices of many designs, named
        the club. Where the two cues disagree this surely the card is unsure: the price, the network's own sure suit
        errors, was 5 of 1,183 right reads on the tuning decks and 4 of 674 on the drawn held-out ones (60 scenes
        each). A ground the network was seen to misname on this deck's own cards at enrollment does not count
        (``index_vetoes``' misnames, ``VETO_NEEDS_TRUSTED_NAMES``)."""
        if not _standard_card(label):
            return False
        ir = index_net.read_corners(card)
        if not VETO_NEEDS_TRUSTED_NAMES:
            return index_vetoes(label, ir)
        return index_vetoes(label, ir, self.templates.index_misnames, self.templates.index_suit_misnames or "")

    def _read_found(self, frame: np.ndarray, q: Quad, first: _FirstCut | None, any_surface: bool
                    ) -> tuple[str, float, float, bool, Quad]:
        """Every reading of one found card in turn, until one names it: its outline, the other views' outlines
        (``q.alt``), the outline extended into a shadow, outlines a few per cent off, the card relit; the last
        reading (label, score, margin, named) and the outline it was read from."""
        label, score, margin, ok, n, big = self._read_outline(frame, q.pts, first)
        nearer = None
        for alt in q.alt if not ok else ():
            # another view's outline of the card: read whole, by the stricter bar of a second reading
            a = self._read_outline(frame, alt)
            if self._sure_again(a[3], a[2], a[4]):
                label, score, margin, ok, n, big = a
                q = Quad(alt, q.whole, face=q.face)
                break
            if a[1] > (score if nearer is None else nearer[0][1]):
                nearer = (a, alt)
        if not ok and nearer is not None:
            # none sure, but the reader came nearer on another outline: the card is read again from that one
            # (a plastic queen of clubs in shade matched 0.64 on an outline without its left margin, 0.76 on the
            # network's outline of the whole card, scene 500058; in the generic mode the corners are cut again
            # from the nearer outline: boxes_train 389 -> 393 read)
            (label, score, margin, ok, n, big), alt = nearer
            q = Quad(alt, q.whole, face=q.face)
        if not ok and any_surface:
            # (the lit part of a card outlined to a shadow's edge: the strips of its paper in the shade added)
            shade = _extended_into_shade(frame, q.pts)
            if shade is not None:
                ext, strips = shade
                lifted, origin = _shade_lifted(frame, ext, strips)
                a = self._read_outline(lifted, ext - origin)
                if self._sure_again(a[3], a[2], a[4]):
                    label, score, margin, ok, n, big = a
                    q = Quad(ext, q.whole, face=q.face)
        if not ok and n is not None and n.path != "none" and REREAD_OUTLINES:
            again = self._reread(frame, q.pts, 1 if big is None else 2, n)
            if again is not None:
                label, score, margin, ok = again
        elif (not ok and self.mode == "enrolled" and label != "back" and score >= ENROLLED_REREAD_FROM
              and REREAD_OUTLINES and not self.threshold.accept(score, margin)):
            # (a match past the thresholds and still not named was vetoed by the network's corner index
            # (``contradicted``): other outlines would only look for a match the network does not veto - an
            # anglo_modern 2C vetoed as the network took it for a spade, then matched as the 2S, scene 900025)
            again = self._reread_enrolled(frame, q.pts, (label, score))
            if again is not None:
                label, score, margin, ok = again
        if not ok and label != "back" and any_surface:
            again = self._read_relit(frame, q.pts)
            if again is not None:
                label, score, margin, ok = again
        return label, score, margin, ok, q

    def _named_as_generic(self, frame: np.ndarray, q: Quad, any_surface: bool
                          ) -> tuple[tuple[str, float, float, bool, Quad] | None, bool]:
        """The enrolled mode's last reading of a card its templates left unsure: the generic mode's whole reading of
        the found outline ``q`` (``_read_found`` of a generic ``Recogniser``), taken when it names a card of the deck
        that is among the templates' nearest (``MATCH_NEAREST``) for the outline it named it from, and never a rank
        or suit the network gave this deck's cards of another at enrollment: (label, score, margin, named, that
        outline) or None; and whether the generic reader saw a card's index there (an unsure card is then kept).

        Templates taken from one photo per card, by another camera under another light, match the cards less well
        than a drawn design's templates match its renders: the boxes deck enrolled from its webcam photos
        (boxes_train cam_image11-34) read boxes_test's whole cards 70 of 79, where the generic mode read 77 (a king
        of clubs its templates put first at 0.64, under the bar, which the generic mode named from its corners cut
        again from outlines a few per cent off). The two readers then agree on the card, and the enrolled mode
        reads the deck at least as well as the generic mode."""
        label, score, _, ok, q = generic_recogniser()._read_found(frame, q, None, any_surface)
        seen = label != "?"
        if not ok or label not in self.templates.labels or not _standard_card(label):
            return None, seen
        if not self._may_name(label):
            return None, seen
        nearest: list[str] = []
        first, t_score, t_margin = match(self.templates, self._cut(frame, q.pts)[0], self.use_face, self.same,
                                         nearest=nearest)
        if label not in nearest:
            return None, seen
        if VETO_LEAVES_UNSURE and first != label and self.threshold.accept(t_score, t_margin):
            # (the templates sure of another card: the two readers disagree, each surely - ``VETO_LEAVES_UNSURE``)
            return None, seen
        return (label, score, score, True, q), seen

    def identify(self, frame: np.ndarray, calibration: object | None = None,
                 roi: tuple[int, int, int, int] | None = None) -> list[Read]:
        """Every card found in the frame (or in ``roi`` = x0, y0, x1, y1 of it), each with its code or None.

        A ``vision.mat.Calibration`` tells the size of a card on this table (to find the top card of a pile when no
        card lies alone) and where the markers are (never cards)."""
        card_area, exclude = None, None
        ox, oy = (roi[0], roi[1]) if roi is not None else (0, 0)
        if calibration is not None:
            from vision import mat as matlib

            assert isinstance(calibration, matlib.Calibration)
            # (a card's size where the region lies: seen at an angle, the mat's far side shows its cards smaller)
            at = None if roi is None else ((roi[0] + roi[2]) / 2, (roi[1] + roi[3]) / 2)
            card_area = calibration.card_area_px(at)
            exclude = [m - np.array([ox, oy], np.float32) for m in calibration.marker_frame.values()]
        # (a camera's frame on its mat, searched in a region: the principal point and the focal length the whole
        # frame gives, in the region's pixels, judge the cards it sees obliquely - a region given without a mat may
        # be a crop of anything)
        camera = None
        if roi is not None and calibration is not None:
            camera = ((frame.shape[1] / 2 - ox, frame.shape[0] / 2 - oy),
                      _focal_prior((frame.shape[1] / 2, frame.shape[0] / 2)))
        if roi is not None:
            frame = frame[roi[1] : roi[3], roi[0] : roi[2]]
        reads = self._identify(frame, card_area, exclude, roi, any_surface=calibration is None, camera=camera)
        for r in reads:
            r.quad = r.quad + np.array([ox, oy], np.float32)
        return reads

    def _identify(self, frame: np.ndarray, card_area: float | None, exclude: list[np.ndarray] | None,
                  roi: tuple[int, int, int, int] | None = None, any_surface: bool = True,
                  camera: tuple[tuple[float, float], float] | None = None) -> list[Read]:
        """``identify`` of ``frame`` (the region ``roi`` of a whole image, or the whole image when None); ``camera``:
        the principal point and the focal length of the whole image, in ``frame``'s pixels, when known."""
        reads = []
        # a photograph is searched at a working size (outlines need no more pixels, and the time grows with them)
        # and read at full size
        s = min(1.0, FIND_SIDE / max(frame.shape[:2]))
        small = _resized(frame, s)
        if any_surface:
            # a photograph taken in a dim room is brightened first, as a camera's auto exposure would: the finder's
            # absolute tests were set on card white near full scale (``vision.exposure``). A table watched over its
            # mat is not: the play detector's frames are measured against their own empty table
            # (and one under a coloured light has its cast taken out, as a camera's white balance would; measured
            # first, as the brightening is measured on the brightest channel, which the cast leaves as it is)
            colour = exposure.cast(small)
            g = exposure.gain(small)
            if g != 1.0 or colour != exposure.NO_CAST:
                brighter = exposure.adjusted(small, g, colour)
                frame = brighter if small is frame else exposure.adjusted(frame, g, colour)
                small = brighter
        # the principal point (for cards seen obliquely) is the middle of a whole camera image, not of a region
        whole_image = roi is None
        quads = _find_scaled(frame, s, card_area, exclude, whole_image, any_surface, small, camera)
        if any_surface and card_area is None:
            # the finder's kernels and limits are in pixels: cards it sees small (a webcam's picture, a table seen
            # whole from far off) are looked for again at a size where they are not (``SMALL_CARD_SIDE``)
            side = _median_short_side(quads, s)
            if side is not None and side < SMALL_CARD_SIDE:
                # (s is the frame's shrink to FIND_SIDE, so s * k stays within MAX_FIND_UPSCALE of both)
                k = min(FIND_CARD_SIDE / side, MAX_FIND_UPSCALE)
                again = _find_scaled(frame, s * k, card_area, exclude, whole_image, any_surface, camera=camera)
                quads = _second_look(quads, again)
            elif side is None and SMALL_FRAME_LOOK and max(frame.shape[:2]) * s * SMALL_FRAME_UPSCALE <= FIND_SIDE:
                # (only added: the first look's partial outlines stay as they were - a second look that replaced
                # them, as the one above may, lost three of boxes_test's cards found as they are photographed)
                again = _find_scaled(frame, s * SMALL_FRAME_UPSCALE, card_area, exclude, whole_image, any_surface,
                                     camera=camera)
                have = [q.pts for q in quads]
                quads = quads + [a for a in again if a.whole > 0.9 and not _overlaps(a.pts, have)]
        if whole_image:
            quads = _upright_in_plane(quads, (frame.shape[1] / 2, frame.shape[0] / 2))
        elif camera is not None:
            quads = _upright_in_plane(quads, *camera)
        first = self._first_cuts(frame, quads)
        for i, q in enumerate(quads):
            found, seen = q, False
            label, score, margin, ok, q = self._read_found(frame, q, first[i] if first else None, any_surface)
            if not ok and label != "back" and self.cross_check and self.falls_back and ENROLLED_READS_GENERIC:
                named, seen = self._named_as_generic(frame, found, any_surface)
                if named is not None:
                    label, score, margin, ok, q = named
            joker = label in ("BJ", "LJ")
            code: str | None = label if ok else None
            if joker and not self.templates.jokers_distinct:
                code = None
            if label == "back":
                if score <= 0.5:
                    continue
                reads.append(Read(None, label, score, margin, q.pts, face_down=ok, whole=q.whole))
                continue
            if (ok or score > FACE_SCORE or (self.glyphs is not None and label != "?") or seen or _seen_card(frame, q)
                    or (not any_surface and q.whole >= 0.95 and _card_sized(q.pts, card_area))):
                # (else it matches no card at all, and no view but the reader's vouches for a card there - but on
                # the mat a pale outline, whole and of the calibrated card's size, is a face: a joker, which the
                # generic mode never names, played where no single change outlined it had gone unseen)
                reads.append(Read(code, label, score, margin, q.pts, joker and (ok or score > 0.6), whole=q.whole))
        return _named_once(reads)


@functools.lru_cache(maxsize=1)
def generic_recogniser() -> Recogniser:
    """The generic mode's reader, made once: the enrolled mode's last reading of a card (``_named_as_generic``) and
    enrollment's checks of a photographed card (``vision.deck``) read with it."""
    return Recogniser(None)


# a card the relit reading does not name has its corners cut again in the relit card (``_read_relit``): boxes_train
# under ``tools/photo_bench.py --alter shadow`` read 321 -> 329 (whole 224 -> 231), as it is 409 -> 410, 0 wrong
RELIT_REREAD = True
# the margin round a card relit with the table about it (``_relit_around``), as a share of its width: more than the
# outlines ``_reread`` cuts the corners from reach beyond the card (``REREAD_OUTLINES``)
RELIT_MARGIN = 0.12


def _relit_around(frame: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The card under ``quad`` (TL, TR, BR, BL) and a margin of the table round it, warped upright at about the
    frame's own resolution (one to two times the canonical size) and relit (``exposure.even_light``), and the card's
    outline in it."""
    side = float(_vlen(quad[1] - quad[0]) + _vlen(quad[2] - quad[3])) / 2
    k = min(2.0, max(1.0, side / CW))
    w, h, m = k * CW, k * CH, RELIT_MARGIN * k * CW
    dst = np.array([[m, m], [m + w, m], [m + w, m + h], [m, m + h]], np.float32)
    warp = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    size = (int(round(w + 2 * m)), int(round(h + 2 * m)))
    canvas = cv2.warpPerspective(frame, warp, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return exposure.even_light(canvas)[0], dst


# A card half in a shadow: the finder outlines its lit part when the shadow's edge, not the card's, closes the outline
# (boxes_train IMG_2475's ace of hearts, its top under a case's shadow, outlined from the shadow's edge down, its
# index outside). ``_extended_into_shade`` looks beyond each side for the same paper in shade - a flat strip of the
# card's own colour at a share of its level (``SHADE_LEVEL``) - that ends at an edge before ``SHADE_REACH`` of the
# outline's longer side, and gives the outline with those strips when it then has a card's shape (``SHADE_ASPECT``).
SHADE_LEVEL = (0.2, 0.85)
SHADE_CHROMA = 0.07  # the strip's colour (each channel's share of their sum) this near the lit paper's (shade lit
# by the sky is bluer than the paper in the sun: 0.05 on IMG_2475)
SHADE_FLAT = 0.08  # the strip's spread along a row, its brighter half's (the 50th to the 90th percentile, over the
# median: the paper's, whatever ink of an index or a pip in the shade takes of the row) under this
SHADE_MIXED = 0.3  # a row whose whole spread (10th to 90th percentile) is over this share is paper and table
SHADE_SIDE = 60  # px: the outline's short side, rectified to look beyond its sides
SHADE_SKIP = 0.04  # of the short side: half-shade at the shadow's edge before the strip starts
SHADE_MIN = 0.06  # of the short side: a strip thinner than this is the outline's own slack
SHADE_REACH = 0.7
SHADE_ASPECT = (1.3, 1.62)


def _extended_into_shade(frame: np.ndarray, quad: np.ndarray
                         ) -> tuple[np.ndarray, list[tuple[np.ndarray, float]]] | None:
    """``quad`` extended over the strips of shaded paper beyond its sides (above), with each strip (its outline in
    the frame, and the factor that brings it to the lit paper's level); None where there are none."""
    q = _orient(np.asarray(quad, np.float32))
    w = float(_vlen(q[1] - q[0]) + _vlen(q[2] - q[3])) / 2
    h = float(_vlen(q[3] - q[0]) + _vlen(q[2] - q[1])) / 2
    if min(w, h) < 20:
        return None
    k = SHADE_SIDE / min(w, h)
    cw, ch = int(round(w * k)), int(round(h * k))
    skip, least = int(round(SHADE_SKIP * SHADE_SIDE)), int(round(SHADE_MIN * SHADE_SIDE))
    pad = int(SHADE_REACH * max(cw, ch))
    dst = np.float32([[pad, pad], [pad + cw, pad], [pad + cw, pad + ch], [pad, pad + ch]])
    m = cv2.getPerspectiveTransform(q, dst)
    canvas = cv2.warpPerspective(frame, m, (cw + 2 * pad, ch + 2 * pad), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    b, g, r = cv2.split(canvas)
    v = cv2.max(cv2.max(b, g), r).astype(np.float32)
    total = cv2.add(cv2.add(b.astype(np.float32), g.astype(np.float32)), r.astype(np.float32)) + 1.0
    chroma = cv2.merge([b.astype(np.float32) / total, g.astype(np.float32) / total, r.astype(np.float32) / total])
    inner = (slice(pad + ch // 10, pad + ch - ch // 10), slice(pad + cw // 10, pad + cw - cw // 10))
    vi = v[inner]
    paper = vi >= np.percentile(vi, 60)
    level = float(np.percentile(vi[paper], 75))
    if level < 60:
        return None
    tint = chroma[inner][paper].mean(axis=0)

    def strip(rows: np.ndarray, crows: np.ndarray) -> tuple[int, float]:
        """Rows of shaded paper from the side outward, and their level (``rows``: v, one row per step out;
        ``crows``: chroma); (0, 0) where there is no such strip ending at an edge within the reach."""
        low, med, hi = np.percentile(rows, (10, 50, 90), axis=1)
        tinted = np.abs(np.median(crows, axis=1) - tint).max(axis=1)
        shaded = ((SHADE_LEVEL[0] * level <= med) & (med <= SHADE_LEVEL[1] * level) & (tinted < SHADE_CHROMA)
                  & (hi - med < SHADE_FLAT * med))
        if not shaded.any():
            return 0, 0.0
        first = int(np.argmax(shaded))
        if first > skip:
            return 0, 0.0
        rest = ~shaded[first:]
        if not rest.any():
            return 0, 0.0  # (no edge before the reach: a pale table in shade, not a card)
        run = first + int(np.argmax(rest))
        # (the last rows may cross the card's own edge, rounded or not quite parallel: paper and table)
        while run > first and hi[run - 1] - low[run - 1] > SHADE_MIXED * med[run - 1]:
            run -= 1
        return run, float(np.median(med[first:run])) if run > first else 0.0

    xs = slice(pad + cw * 15 // 100, pad + cw * 85 // 100)
    ys = slice(pad + ch * 15 // 100, pad + ch * 85 // 100)
    found = [strip(v[pad - 1 :: -1, xs], chroma[pad - 1 :: -1, xs]),
             strip(v[ys, pad + cw :].T, chroma[ys, pad + cw :].transpose(1, 0, 2)),
             strip(v[pad + ch :, xs], chroma[pad + ch :, xs]),
             strip(v[ys, pad - 1 :: -1].T, chroma[ys, pad - 1 :: -1].transpose(1, 0, 2))]
    top, right, bottom, left = (d if d >= least else 0 for d, _ in found)
    if not (top or right or bottom or left):
        return None
    nw, nh = cw + right + left, ch + top + bottom
    if not SHADE_ASPECT[0] <= max(nw, nh) / min(nw, nh) <= SHADE_ASPECT[1]:
        return None
    inv = np.linalg.inv(m)

    def back(pts: list[list[float]]) -> np.ndarray:
        return cv2.perspectiveTransform(np.float32(pts).reshape(-1, 1, 2), inv).reshape(-1, 2).astype(np.float32)

    x0, y0, x1, y1 = pad - left, pad - top, pad + cw + right, pad + ch + bottom
    strips = []
    for d, (_, lv), box in zip((top, right, bottom, left), found, (
            [[x0, y0], [x1, y0], [x1, pad], [x0, pad]], [[pad + cw, y0], [x1, y0], [x1, y1], [pad + cw, y1]],
            [[x0, pad + ch], [x1, pad + ch], [x1, y1], [x0, y1]], [[x0, y0], [pad, y0], [pad, y1], [x0, y1]]),
            strict=True):
        if d:
            strips.append((back(box), level / max(lv, 1.0)))
    return back([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]), strips


def _shade_lifted(frame: np.ndarray, quad: np.ndarray, strips: list[tuple[np.ndarray, float]]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The part of ``frame`` under ``quad`` (the extended outline, with a 2 px margin for the reader's interpolation)
    with each strip of shaded paper (``_extended_into_shade``) brought to the lit paper's level, and that part's
    top-left corner in the frame. The paper there is known flat, so one factor relights it, where a card relit as a
    whole (``exposure.even_light``) leaves paper under a third of the lit level alone as no paper. (Only the card's
    part is copied: a photograph's whole frame is tens of times larger.)"""
    x, y, w, h = cv2.boundingRect(quad.astype(np.float32))
    x0, y0 = max(0, x - 2), max(0, y - 2)
    x1, y1 = min(frame.shape[1], x + w + 2), min(frame.shape[0], y + h + 2)
    out = frame[y0:y1, x0:x1].copy()
    origin = np.float32([x0, y0])
    for poly, factor in strips:
        m = np.zeros(out.shape[:2], np.uint8)
        cv2.fillConvexPoly(m, np.int32(np.round(poly - origin)), 255)
        inside = m > 0
        out[inside] = np.clip(out[inside].astype(np.float32) * factor, 0, 255).astype(np.uint8)
    return out, origin


# a read scoring above this shows a card face where it falls short of the thresholds: an outline found so is kept as
# an unsure card (``Recogniser._identify``), and so is the play detector's outline of a change whose rim does not
# show a face (``vision.play.PlayDetector._outlined``; the felt a card leaves matches none of the held-out decks'
# templates above 0.25)
FACE_SCORE = 0.5


# the enrolled mode names a card its templates match short of the thresholds when the corner network, both corners
# agreeing, names the same card (``Recogniser._read``): the templates' score and margin, the network's smaller
# probability of rank and suit, the corners' joint share of that suit. Measured on every read of 60 scenes of each
# drawn tuning deck and 40 of 21 aisleriot themes (5,083 reads, 212 unsure of a standard card): at 0.6 / 0.0 / 0.6 /
# 0.9, 22 named, all right; these, a step stricter each, name 14 (blurred clubs and spades matched at margins 0.1-0.3,
# courts outlined loosely), none wrong
AGREE_SCORE = 0.75
AGREE_MARGIN = 0.1
AGREE_P = 0.75
AGREE_SHARE = 0.95
# the enrolled mode names a card whose templates clear the enrolled margin against every card of its suit and leave
# only another suit near (blurred clubs and spades, hearts and diamonds: the suit's few pixels blurred away) when the
# corner network's two corners both name that suit (``Recogniser._rank_by_templates``, ``_suit_seen``): the
# templates score at least ``SUIT_LEFT_SCORE`` and still prefer the card to each other suit's by ``SUIT_LEFT_MARGIN``
# (a discriminant), and each corner names the suit at ``SUIT_SEEN_P``. The score's bar is the path's own: a blur that
# takes away the suit's pixels lowers the match with every template, while the margin against the suit's other cards
# stays (a small blurred jack of spades, scene 500015, unsure in 15 designs: score 0.69-0.80, margin 0.3-0.8, its
# corners naming the spade but no rank, so that their joint reading names no suit). Measured on the unsure reads of
# 60 scenes of each of the 27 tuning and training designs (179 of a suited card): session 31's bars (score 0.85,
# corners 0.9 and a joint share of 0.95) named 13, these 38, all right; the first wrong comes at a score of 0.55 and
# a margin of 0.17 against the suit's cards (a blurred KD matched as the JD)
SUIT_LEFT_MARGIN = 0.1
SUIT_SEEN_P = 0.6
SUIT_LEFT_SCORE = 0.68
# other outlines of a card whose index the learned reader saw but could not name: (width, height, shift right,
# shift down) as shares of the outline, in the order they are tried. Each one costs a pass of the network per
# corner cut again; on the development photos these six read 6 % more of the found cards, two more shifts
# (up, down) only a few cards more.
REREAD_OUTLINES: list[tuple[float, float, float, float]] = [
    (1.05, 1.05, 0, 0), (0.95, 0.95, 0, 0), (1.1, 1.1, 0, 0), (0.9, 0.9, 0, 0), (1, 1, 0.05, 0), (1, 1, -0.05, 0)]
# a reading from another outline must be surer than a first reading: trying several cuts of the same corner
# gives an unsure glyph several chances to look like another (a German jack's B read as a K at 0.91-0.92 in the
# held-out rheinland theme; a partly covered eight of spades read as a 6D at 0.66 on the pip path)
REREAD_P = 0.95
# paths a reading from another outline may take only with the index corner as first cut (``_named_by_first_cut``):
# one corner and nothing else to check it, cutting that corner again would only give a blurred index more chances to
# look like another (a motion-blurred neoclassical 5H under a spade, first read 6H at 0.90 by its one corner, then 6H
# at 0.971 on another cut: scene 500012)
FIRST_CUT_ONLY = ("number_one",)

# the enrolled mode reads again only a card its templates came near (cards matched at less, most of them another
# deck's, would only cost time: on the drawn and photographed development sets 36 of the 38 cards that were read
# again had matched at >= 0.7 at first), and takes a reading from another outline only with a clear margin (the
# enrolled threshold's 0.29 let one tango 2C through as the 2S, at 0.31, in 400 reads)
ENROLLED_REREAD_FROM = 0.7
ENROLLED_REREAD_MARGIN = 0.4
# the enrolled mode's fallback to the generic reader (``Recogniser._read``) takes its reading only for a card among
# the templates' nearest few: the two readers then agree that it is one of them (the generic reader's one known wrong
# read, a berlin QC named KC by its foreign letter, would need the enrolled KC among the QC's nearest)
MATCH_NEAREST = 3
# the enrolled mode's last reading of a card its templates left unsure is the generic mode's whole reading of it
# (``Recogniser._named_as_generic``)
ENROLLED_READS_GENERIC = True
# a card the enrolled templates name past their thresholds and the corner network vetoes (sure of another card) is
# left unsure: neither the network's reading nor the generic mode's names it instead. Two readers each sure of a
# different card cannot both be right, and nothing tells which: a drawn design never tuned on (KDE's "standard",
# kdegames-card-data) had its ace of spades, a large ornate spade in the middle, matched as the AS at 0.92 / margin
# 0.70, its small corner spades read by the network as clubs at 0.85-0.89, and the enrolled mode named it the AC
# (scene 500023); the network's side had been taken since session 13 for blurred neoclassical clubs matched as spades
VETO_LEAVES_UNSURE = True


def _named_by_first_cut(n: index_net.NetRead, first: index_net.NetRead, cut: dict[int, np.ndarray]) -> bool:
    """Whether a reading again ``n`` on one of the ``FIRST_CUT_ONLY`` paths still names the card by the first cut of
    its index corner (``cut``: the corners cut again for it), only the other corner cut again: that corner had shown
    no rank and no suit, though not surely enough to be taken as covered, and shows nothing surely now. The index is
    then read as at first, with no second chance to look like another card. (On the development photos the other
    corner, under the covering card, often shows a strip of it and of the table: seven cards read so, all right.)"""
    assert n.index is not None and first.index is not None
    named = [i for i, c in enumerate(n.index.corners) if c.is_index]
    if len(named) != 1 or named[0] in cut:
        return False
    other = first.index.corners[1 - named[0]]
    return other.rank == "-" and other.suit == "-"


# two outlines naming the same card, one lying this much (its share of the smaller's area) on the other, are one card
# read twice (``_named_once``)
SAME_CARD_SHARE = 0.5


def _named_once(reads: list[Read]) -> list[Read]:
    """``reads`` less a card named a second time from another outline lying on it: the same code from two outlines
    that share at least ``SAME_CARD_SHARE`` of the smaller one is one card, kept from its wholest, surest outline.
    An outline round a jack of spades and a stretch of carpet beside it, taken for a card partly under the jack
    (boxes_train cam_image43 with a cool cast), was read JS by the jack's own corner: the jack named twice. (Two
    decks' cards of one code lying one on the other lose the lower one: unsure, never a card named that is not
    there.)"""
    named = sorted((i for i, r in enumerate(reads) if r.code is not None),
                   key=lambda i: (-reads[i].whole, -reads[i].confidence))
    kept: list[int] = []
    drop: set[int] = set()
    for i in named:
        same = [np.asarray(reads[j].quad, np.float32) for j in kept if reads[j].code == reads[i].code]
        if same and _overlaps(np.asarray(reads[i].quad, np.float32), same, SAME_CARD_SHARE):
            drop.add(i)
        else:
            kept.append(i)
    return [r for i, r in enumerate(reads) if i not in drop] if drop else reads


def _standard_card(label: str) -> bool:
    """Whether ``label`` is a standard card's code (a rank and a suit: no joker, back or unread '?')."""
    return len(label) == 2 and label[0] in "A23456789TJQK" and label[1] in "SHDC"


def _suit_seen(ir: index_net.IndexRead, suit: str) -> bool:
    """Whether both corners of the network's reading ``ir`` name ``suit``, each at ``SUIT_SEEN_P``, and the joint
    reading names no other suit (their ranks may be unsure: a blurred 3 is a 2 to it, a blurred J no rank at all,
    and the joint reading then names no suit either)."""
    return all(c.suit == suit and c.p_suit >= SUIT_SEEN_P for c in ir.corners) and ir.suit in (suit, "-")


def index_vetoes(label: str, ir: index_net.IndexRead, ranks: str = "", suits: str = "") -> bool:
    """Whether the corner network's reading ``ir`` of a card contradicts the enrolled read ``label`` (a standard
    card's code): both corners agree on another code, each at >= ``CROSS_CHECK_P``, or the corners together name
    another suit at that share (``Recogniser.contradicted``; enrollment measures it on the deck's own cards,
    ``vision.deck.index_test``). Neither ground counts where the other rank it names is among ``ranks``, or the other
    suit among ``suits``: those the network gave the deck's cards of another at enrollment
    (``VETO_NEEDS_TRUSTED_NAMES``)."""
    if (ir.agree and min(ir.p_rank, ir.p_suit) >= CROSS_CHECK_P and ir.code != label
            and not (ir.rank != label[0] and ir.rank in ranks) and not (ir.suit != label[1] and ir.suit in suits)):
        return True
    # (the suit's share of two corners, neither sure alone, is needed: a veto that asked one corner to be sure
    # (session 13) gave back right reads of designs whose suit signs the network knows poorly, but let a blurred
    # neoclassical 2C through as the 2S, matched again from another outline at margin 0.76, scene 500045)
    return ir.suit not in ("-", label[1]) and ir.suit not in suits and ir.suit_share >= CROSS_CHECK_P


def _seen_card(frame: np.ndarray, q: Quad) -> bool:
    """Whether an outline no reader names anything on is still a card to report (unsure): the learned finder sees
    a whole card's face in it (``SEEN_FACE``), and its rim differs from what lies around it as the finder's own
    outlines must. Cards the finder found that way and the reader could make nothing of - a card under a wire, in a
    wire-mesh basket, half in a shadow, cut by the photo's edge - had been dropped as matching no card at all; the
    rim check keeps out the stacks of chips it also sees as card-like (contrast 0-1, the cards' 11-178)."""
    if q.face < SEEN_FACE or q.whole < 0.9:
        return False
    return rim_contrast(frame, q.pts, two_sides=True)[1] >= NET_RIM_CONTRAST


# an enrolled read of a spade number card whose pips show, CLUB_NOTCHED_SHARE of them or more, the notch between a
# club's leaves is unsure, on a deck whose own cards that notch tells apart (``Recogniser._club_notched``). The
# notches outlast a blur that leaves the templates, the network and the pips' shape all naming the spade: KDE's
# oxygen-air (never tuned on, its suit sign only in the pips) had a blurred 8C matched as the 8S at 0.86, margin 0.34,
# all eight of its pips notched 0.11-0.14 (a club's as drawn: 0.13-0.15; a spade's: none)
NOTCHED_SPADES_UNSURE = True
CLUB_NOTCHED_SHARE = 0.5


# a veto of an enrolled match stands only on what the network reads rightly on the deck's own cards: not where the
# other card it names has a rank, or the other suit it names a suit, that it gave this deck's cards of another rank
# or suit at enrollment (``index_vetoes``, given the deck's misnames). KDE's ancient-egyptians (never tuned on)
# prints its bottom index upright: the network, turning that corner, reads an upside-down heart as a spade, and its
# corners' joint suit vetoed right matches of hearts (5H, TH, KH at 0.91-0.96, margins 0.41-0.79) in 6 of 40
# scenes - while at enrollment it had named spades among that deck's hearts (``index_suit_misnames`` "SH")
VETO_NEEDS_TRUSTED_NAMES = True


# a card seen obliquely can look wider than long (the far half foreshortened): its outline is turned to start with
# the side that is short on the table, by the plane's own aspect (``plane_aspect``, the focal length taken as 1.5 times
# the half frame where the view does not give it, as the finder does: width over height within ``CARD_ASPECT``, a
# card lying across), where two opposite sides differ by ``ORIENT_OBLIQUE`` in the image (a view clearly oblique).
# (desk_query q16, a seven of clubs seen about 60 degrees off, had been cut across, mirrored and squashed)
ORIENT_OBLIQUE = 1.3


def _find_scaled(frame: np.ndarray, s: float, card_area: float | None, exclude: list[np.ndarray] | None,
                 whole_image: bool, any_surface: bool, small: np.ndarray | None = None,
                 camera: tuple[tuple[float, float], float] | None = None) -> list[Quad]:
    """The cards ``find_cards`` outlines in ``frame`` resized by ``s`` (``small``, when the caller has it), in
    ``frame``'s pixels; ``camera``: the whole image's principal point and focal length in ``frame``'s pixels, for a
    region of it."""
    small = _resized(frame, s) if small is None else small
    if s != 1.0:
        card_area = card_area * s * s if card_area else None
        exclude = [e * s for e in exclude] if exclude else None
    centre, focal = None, None
    if whole_image:
        centre = (small.shape[1] / 2, small.shape[0] / 2)
    elif camera is not None:
        centre, focal = (camera[0][0] * s, camera[0][1] * s), camera[1] * s
    quads = find_cards(small, card_area=card_area, exclude=exclude, centre=centre, any_surface=any_surface,
                       focal=focal)
    if s == 1.0:
        return quads
    return [replace(q, pts=(q.pts / s).astype(np.float32), alt=tuple((a / s).astype(np.float32) for a in q.alt))
            for q in quads]


def _resized(frame: np.ndarray, s: float) -> np.ndarray:
    """``frame`` scaled by ``s`` for the finder."""
    if s == 1.0:
        return frame
    # (bilinear sampling at a shrink of two or less: OpenCV's pixel-area averaging takes 10-12 ms of a 1920 x 1080
    # frame there, bilinear 2, and its sharper edges found and read more of the development photos' cards:
    # poker_table 201 / 133 -> 212 / 140; at a larger shrink it would alias)
    if s >= 0.5:
        return cv2.resize(frame, None, fx=s, fy=s, interpolation=cv2.INTER_LINEAR)
    # (a larger shrink, a phone's photo: halvings, then area averaging - the means one area averaging gives, a 4000 x
    # 3000 photo in 43 ms where it took 86; poker_table enlarged to 4800 px found / read 221 / 163 with one area
    # averaging, 224 / 164 so, 221 / 162 with a bilinear last step, 13 ms)
    return resample.shrink(frame, (round(frame.shape[1] * s), round(frame.shape[0] * s)))


def _median_short_side(quads: list[Quad], s: float) -> float | None:
    """The median short side, at the finder's scale ``s``, of the cards found whole (None: none was)."""
    sides = [float(_row_lengths(q.pts[_NEXT] - q.pts).min()) * s for q in quads if q.whole > 0.9]
    return float(np.median(sides)) if sides else None


SAME_CARD_IOU = 0.5


def _second_look(first: list[Quad], again: list[Quad]) -> list[Quad]:
    """The outlines of a second look at a frame, enlarged (``again``), merged with the first look's (``first``).

    Each look splits some cards the other joined, and outlines some cards' pips the other saw whole: an outline of
    the second look that holds two or more cards the first found whole (``_held``: each 0.2-0.7 of it; a pair and
    the gap between them), or is a part of a card the first found whole (``_part_of``), gives way to them (poker_table
    at 640 px: 212 / 135 -> 214 / 137 found / read). The first look's cards where the second found none stay: a pale
    table's faint card edges, spread over more pixels by the enlarging, can fall under the edge tests there. An
    outline both looks found alike (one each, overlapping by ``SAME_CARD_IOU``) gets the first look's as its
    alternative, read if its own is not read surely - only then: with every overlapping outline of the first look as
    an alternative, poker_table shrunk to 800 px gave 24 wrong reads (so, none)."""
    whole_first = [q for q in first if q.whole > 0.9]
    kept = [a for a in again if len(_held(a, whole_first, 0.2, 0.7)) < 2
            and not any(_part_of(a.pts, q.pts) for q in whole_first)]
    out = []
    for a in kept:
        over = [q for q in first if _overlaps(q.pts, [a.pts])]
        same = len(over) == 1 and _iou(over[0].pts, a.pts) >= SAME_CARD_IOU
        if same and sum(_overlaps(over[0].pts, [b.pts]) for b in kept) == 1:
            a = replace(a, alt=a.alt + (over[0].pts,))
        out.append(a)
    return out + [q for q in first if not _overlaps(q.pts, [a.pts for a in out])]


def _upright_in_plane(quads: list[Quad], centre: tuple[float, float], focal: float | None = None) -> list[Quad]:
    """The outlines (and their alternatives) each turned by one corner where the plane's aspect says the side taken as
    short by the image is the long one on the table (``focal``: the camera's, else ``_focal_prior``)."""
    focal = focal or _focal_prior(centre)

    def upright(q: np.ndarray) -> np.ndarray:
        sides = _row_lengths(q[_NEXT] - q)
        if max(sides[0] / sides[2], sides[2] / sides[0], sides[1] / sides[3], sides[3] / sides[1]) < ORIENT_OBLIQUE:
            return q  # (seen nearly square-on: the image's own sides say which is short; the vanishing points, far
            # off, give the plane's aspect no better than the outline's noise - turned by it, 4 cards of the
            # development photos read before went unread)
        a = plane_aspect(q, centre, focal=focal)
        # (turned, a card's shape on the table: ``CARD_ASPECT``; an outline of no card's shape is left as it is)
        return q[_NEXT] if a is not None and CARD_ASPECT[0] <= a <= CARD_ASPECT[1] else q

    return [replace(q, pts=upright(q.pts), alt=tuple(upright(a) for a in q.alt)) for q in quads]


def outline_variants(quad: np.ndarray) -> list[np.ndarray]:
    """``quad`` (TL, TR, BR, BL) resized and shifted by each of ``REREAD_OUTLINES`` in the card's own plane (the
    homography of the unit square to the outline, so a card seen obliquely keeps its perspective)."""
    src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    h = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    out = []
    for sx, sy, dx, dy in REREAD_OUTLINES:
        x0, x1 = 0.5 - sx / 2 + dx, 0.5 + sx / 2 + dx
        y0, y1 = 0.5 - sy / 2 + dy, 0.5 + sy / 2 + dy
        c = np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float32)
        out.append(cv2.perspectiveTransform(c, h)[0])
    return out


def identify_json(rec: Recogniser, frame: np.ndarray) -> dict:
    """The ``identify`` command's answer for one frame."""
    from vision import mat as matlib

    t = time.perf_counter()
    try:
        cal: matlib.Calibration | None = matlib.calibrate(frame)
    except matlib.CalibrationError:
        cal = None  # no mat in view: cards are still found, a lone pile's top card less reliably
    reads = rec.identify(frame, cal)
    ms = (time.perf_counter() - t) * 1000
    return {"cards": [r.to_json() for r in reads], "ms": round(ms, 1), "mode": rec.mode, "mat": cal is not None}
