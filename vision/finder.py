"""Finding cards in a frame: pale, unsaturated regions (card faces) cut apart by the edges inside them, an edge-region
view and a threshold view for a card barely paler than its table, the learned finder network's outlines, piles' top
cards, pairs of overlapping cards split, and the outlines checked by their rims (``find_cards``)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np

from vision import finder_net
from vision.geometry import (
    CARD_ASPECT,
    NEXT_CORNER,
    PREV_CORNER,
    Quad,
    bounding_box,
    boxes_apart,
    fit_quad,
    focal_prior,
    inside_poly,
    moved_by,
    oriented,
    plane_aspect,
    quad_centre,
    quad_iou,
    row_lengths,
    table_view,
    vec_len,
)

PUSH = 3.5  # pixels a region outline is pushed out: the edges cut away about that much of the card
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


def _quad_from_contour(c: np.ndarray, min_side: float, centre: tuple[float, float] | None = None,
                       hull: np.ndarray | None = None, focal: float | None = None) -> Quad | None:
    """A card outline from a region's contour, or None. With ``centre`` (the principal point: the middle of the
    whole camera image) a quad whose sides in the image are not card-like may still be a card seen obliquely: its
    aspect is then taken in the table's plane (``plane_aspect``). ``hull``: the contour's convex hull, when the caller
    has it. ``focal``: the camera's focal length in pixels, where ``centre`` is not the middle of the image searched
    (a region of a camera's frame); else ``focal_prior``."""
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
    quad = oriented(quad)
    short = (vec_len(quad[1] - quad[0]) + vec_len(quad[3] - quad[2])) / 2
    long = (vec_len(quad[2] - quad[1]) + vec_len(quad[0] - quad[3])) / 2
    ratio = None
    if centre is not None:
        # a phone's or webcam's focal length is about 0.6-0.9 of the image's longer side: the prior where the view
        # does not give it. Whatever its sides' ratio in the image, a quad that is no rectangle seen from a camera
        # over the table (one seen more than MAX_TILT off) is no card: a pair of cards' outline can have a card's
        # ratio
        ratio = plane_aspect(quad, centre, focal=focal or focal_prior(centre))
        if ratio is None:
            return None
    if short >= min_side and not 1.15 < long / short < 1.9 and centre is not None:
        if ratio is not None and ratio > 1:  # the card's long side is the quad's first side: turn it
            quad = quad[NEXT_CORNER]
            ratio = 1 / ratio
        if ratio is None or not CARD_ASPECT[0] < 1 / ratio < CARD_ASPECT[1]:
            return None
        short = (vec_len(quad[1] - quad[0]) + vec_len(quad[3] - quad[2])) / 2
    elif short < min_side or not 1.15 < long / short < 1.9:
        return None
    # how much of the outline runs along the quad's sides: a whole card ~1, a pile or a covered card less
    pts = hull.reshape(-1, 2).astype(np.float32)
    # the hull walked in steps of about 2 px (every other one kept), as one array: edge i gives k_i points
    step = np.concatenate((pts[1:], pts[:1])) - pts
    ks = np.maximum(1, (row_lengths(step) / 2).astype(int))
    idx = np.repeat(np.arange(len(pts)), ks)[::2]  # (only the points kept are computed)
    frac = (np.arange(0, len(idx) * 2 - 1, 2) - (np.cumsum(ks) - ks)[idx]) / ks[idx]
    dense_pts = pts[idx] + step[idx] * frac[:, None].astype(np.float32)
    nxt = quad[NEXT_CORNER]
    dirs = (nxt - quad) / np.maximum(row_lengths(nxt - quad), 1e-6)[:, None]
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
    cen = quad_centre(quad)
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
    cen = quad_centre(quad)
    half = row_lengths(quad - cen).sum() / 4
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
    nxt = quads[:, NEXT_CORNER]
    p = np.round((quads[:, :, None, :] + (nxt - quads)[:, :, None, :] * _SIDE_T[None, None, :, None])
                 .reshape(len(quads), -1, 2)).astype(int)
    h, w = edges_dil.shape
    ok = ((p[..., 0] >= 0) & (p[..., 0] < w) & (p[..., 1] >= 0) & (p[..., 1] < h)).all(axis=1)
    on = edges_dil[np.clip(p[..., 1], 0, h - 1), np.clip(p[..., 0], 0, w - 1)] > 0
    return np.where(ok, on.mean(axis=1), 0.0)


def _same_outline(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two quads outline the same card: about the same size, their middles within a tenth of its size."""
    aa = cv2.contourArea(a)
    return (0.8 < aa / max(cv2.contourArea(b), 1.0) < 1.25
            and vec_len(a.mean(axis=0) - b.mean(axis=0)) < 0.1 * np.sqrt(aa))


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
        out = [oriented(best + off)]
        if any(_same_outline(best, k) for k in mine):
            apart = [(float(scores[i]), quads[i]) for i in among
                     if scores[i] >= 0.85 and not overlaps_any(quads[i], [best])
                     and not any(_same_outline(quads[i], k) for k in mine)]
            if apart:
                out.append(oriented(max(apart, key=lambda t: t[0])[1] + off))
        return out

    k = int(scores.argmax())
    if scores[k] < 0.85:
        return []
    first = top(list(range(len(quads))))
    least = cv2.contourArea(quads[k])
    if card_area is None or not PILE_TOP_AROUND or least >= (1 - PILE_SIZE_TOLERANCE) * card_area:
        return first
    # (the best is a court's picture frame, card-shaped and edged all round; its card lies round it)
    mid = tuple(map(float, quad_centre(quads[k])))
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
    return float(vec_len(inside - outside)) if inside[0] >= outside[0] - 3 else 0.0


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
    known_boxes = [(quad_centre(q.pts), float(cv2.contourArea(q.pts))) for q in known or []]
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
    short = min(float(vec_len(q[1] - q[0])), float(vec_len(q[2] - q[1])))
    # the outlines err mostly outwards (by up to a tenth of the card's width: an outer edge band, a shadow)
    reach = max(5.0, 0.1 * short)
    offs = np.arange(-reach, max(4.0, 0.06 * short) + 0.01, 0.5, dtype=np.float32)
    ts = _SNAP_T
    # all four sides sampled in one remap: rows = side x position along it, columns = offset across it
    nxt = q[NEXT_CORNER]
    along = nxt - q
    dirs = along / np.maximum(row_lengths(along), 1e-6)[:, None]
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
        length = float(vec_len(q[(len(sides) + 1) % 4] - q[len(sides)]))
        s0 = p + n * a1
        s1 = p + d * length + n * (a1 + b1)
        sides.append((s0, s1))
    # (the four meets as one stack of 2 x 2 systems: numpy's determinant and solver run the same LAPACK routine on
    # each matrix of a stack, so the same numbers as four calls, at a quarter of their overhead)
    s0 = np.array([s[0] for s in sides])
    s1 = np.array([s[1] for s in sides])
    p1, d1 = s0[PREV_CORNER], s1[PREV_CORNER] - s0[PREV_CORNER]  # (corner i: the meet of side i - 1 and side i)
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
    seg_len = [vec_len(b - a) for a, b in segs]
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
        k0 = int(row_lengths(rel).argmin())
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
    sps = np.round(((qs[..., :, None, :] + (qs[..., NEXT_CORNER, :] - qs)[..., :, None, :] * t_side)
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
        pts = (q[:, None, :] + (q[NEXT_CORNER] - q)[:, None, :] * _HIDDEN_T[None, :, None]).reshape(-1, 2)
        shrunk = quad_centre(other) + (other - quad_centre(other)) * 0.9
        p = np.round(pts[inside_poly(shrunk, pts)]).astype(int)
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
        return [Quad(oriented(top), min(0.7, seen_t)), Quad(oriented(under), min(0.7, seen))]
    return [Quad(oriented(top), 0.95), Quad(oriented(under), min(0.85, seen))]


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
    mat's path). Else, and in the steps that run only with ``any_surface``, the prior of ``focal_prior``.
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
                cen = quad_centre(q.pts)
                short = vec_len(q.pts[1] - q.pts[0])
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
        if any(cv2.pointPolygonTest(hull, tuple(map(float, quad_centre(q.pts))), False) >= 0
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
    if q.whole < 0.95 or w.whole < 0.95 or quad_iou(q.pts, w.pts) <= 0.5:
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
    shapes = [(q.pts, float(cv2.contourArea(q.pts)), bounding_box(q.pts)) for _, q in nets]
    nets = [(k, q) for (k, q), me in zip(nets, shapes, strict=True)
            if not _holds_pair(me, [c for c in shapes if c is not me])]
    for k, q in sorted(nets, key=lambda t: -t[0]):
        if frames_a_card(q):
            continue  # (a court's picture, whose face the network saw more surely than the card's: the views' card
            # stays, a doubtful one too)
        if not overlaps_any(q.pts, [s for s in sure if not part_of_card(s, q.pts, card_area)]
                            + [a.pts for _, a in added]):
            added.append((k, q))
            continue
        # another of the network's outlines of a card it has already given (another level of its cores, or the core
        # grown another way): the card's alternative outline, read when the first reads nothing. The first ranks by
        # its rim's plainness, which a side cut short inside the card can have: a plastic queen of clubs in shade,
        # outlined without its left margin, was unsure (scene 500058) while the outline of the whole card lay ranked
        # below it
        best, j = max(((quad_iou(a.pts, q.pts), j) for j, (_, a) in enumerate(added)), default=(0.0, -1))
        if not NET_ALT_IOU[0] <= best < NET_ALT_IOU[1]:
            continue
        mine = alts.setdefault(j, [])
        if len(mine) < NET_ALTS and all(quad_iou(m, q.pts) < NET_ALT_IOU[1] for m in mine):
            mine.append(q.pts)
    for j, pts in alts.items():
        k, a = added[j]
        added[j] = (k, replace(a, alt=a.alt + tuple(pts)))
    if added:
        parts = [i for i, (_, o) in enumerate(out) if any(part_of_card(o.pts, a.pts, card_area) for _, a in added)]
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
              if cv2.contourArea(a.pts) < cv2.contourArea(o.pts) / 1.5 and overlaps_any(o.pts, [a.pts])]
        if f < NET_NOT_CARD and on:
            if ((not card_sized(o.pts, card_area) and any(added[j][1].whole >= 0.9 for j in on))
                    or any(card_sized(added[j][1].pts, card_area) for j in on)):
                continue
            pieces |= {j for j in on if part_of_card(added[j][1].pts, o.pts, card_area)}
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
    outline comes with its area and bounding box (``bounding_box``), measured once for all the pairs."""
    wq, aw, wb = w
    inner = [(c, a) for c, a, b in cards if not boxes_apart(b, wb) and PAIR_SHARE[0] * aw <= a <= PAIR_SHARE[1] * aw
             and cv2.intersectConvexConvex(c, wq)[0] >= 0.9 * a]
    return any(quad_iou(a, b) < PAIR_IOU and ka + kb - cv2.intersectConvexConvex(a, b)[0] >= PAIR_FILL * aw
               for i, (a, ka) in enumerate(inner) for b, kb in inner[i + 1:])


def overlaps_any(q: np.ndarray, others: list[np.ndarray], share: float = 0.2) -> bool:
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
    boxes = [bounding_box(o.pts) for _, o in out]
    for n in others:
        if any(quad_iou(n, t) > 0.7 for t in taken):
            continue  # (the same card at another of the network's levels)
        # (outlines whose boxes lie apart overlap it by IoU 0, which the best, taken only from 0.5, never is)
        nb = bounding_box(n)
        best, i = max(((quad_iou(o.pts, n), i) for i, (_, o) in enumerate(out) if not boxes_apart(boxes[i], nb)),
                      default=(0.0, -1))
        if not 0.5 <= best < 0.9 or i in alts:
            continue
        taken.append(n)
        q = snap_to_edges(pale, oriented(n))
        if (_card_shaped(q, min_side, centre) and _face_support(face, q, scale) >= NET_FACE
                and quad_iou(out[i][1].pts, q) < 0.9):
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
    (``part_of_card``: since session 17 not only one, as a brightened webcam frame's five of diamonds showed, its pips
    outlined two to four at a time). An outline of a court's picture frame ranks below the card's own
    (``_frames_give_way``: a plainer rim had ranked the paris courts' frames first)."""
    out = []
    # (an outline whose box lies apart from a card's shares no area with it: the polygons are not intersected)
    found_boxes = [(f, bounding_box(f)) for f in found or []]
    for card in finder_net.net_cards(face, core, scale, min_side):
        box = bounding_box(card.quad)
        over = [f for f, fb in found_boxes if not boxes_apart(box, fb) and overlaps_any(card.quad, [f])]
        if over:
            is_whole = card.fill / 0.9 >= 0.9  # (the wholeness given to the outline below)
            # (several parts only while they are small together - pips -, not the two cards of an overlapping pair,
            # each about half of the network's core round both: poker_table's pairs, 221 -> 219 found if allowed)
            parts = is_whole and all(part_of_card(o, card.quad, card_area) for o in over)
            if parts and len(over) > 1:
                parts = sum(cv2.contourArea(o) for o in over) <= NET_PART_SHARE * cv2.contourArea(card.quad)
            if not parts:
                if others is not None:
                    others.append(card.quad)  # (an outline of a card already found: perhaps a better one)
                continue
        q = oriented(card.quad)
        if centre is not None and plane_aspect(q, centre, focal=focal_prior(centre)) is None:
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
    short = min(float(vec_len(q[1] - q[0])), float(vec_len(q[2] - q[1])))
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
    a = vec_len(q[1] - q[0]) + vec_len(q[3] - q[2])
    b = vec_len(q[2] - q[1]) + vec_len(q[0] - q[3])
    short, long = min(a, b) / 2, max(a, b) / 2
    if short < min_side:
        return False
    if 1.15 < long / short < 1.9:
        return True
    if centre is None:
        return False
    r = plane_aspect(q, centre, focal=focal_prior(centre))
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
    return sum(bool((n & n[NEXT_CORNER]).any()) for n in near) >= sides


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
        over = [(i, quad_iou(q.pts, out[i][1].pts)) for i in near] if keep else []
        if (all(v < 0.5 for _, v in over) if keep
                else all(quad_iou(q.pts, out[i][1].pts) < 0.5 for i in near)):
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
                and all(quad_iou(m, q.pts) < INNER_ALT_IOU[1] for m in mine)):
            mine.append(q.pts)
    return [(k, replace(q, alt=q.alt + tuple(alts[i])) if alts.get(i) else q) for i, (k, q) in enumerate(out)]


# a size reference's long side to its short, at least: a poker card (1.4) seen up to about 25 degrees off, a bridge card
# (1.56) up to about 35; one seen more obliquely only gives no size (fewer pairs split, never a lone card), where at
# 1.15 a marker outlined at 95 x 110 px would still have set one (poker_table found 217 -> 218 at 1.25)
SPLIT_SIZE_RATIO = 1.25


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
    return [replace(q, pts=oriented(moved_by(q.pts, back).astype(np.float32))) for q in pair]


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
            c_v = moved_by(c, view[0]).astype(np.float32).reshape(-1, 1, 2)
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
            if any(SPLIT_ONE_SHARE * a_t <= cv2.contourArea(moved_by(q, view[0]).astype(np.float32) if viewed
                                                            and view is not None else q)
                   <= NET_SAME_SIZE * area
                   and cv2.pointPolygonTest(c, tuple(map(float, quad_centre(q))), False) >= 0 for q in seen_whole):
                break  # (one card seen whole, of a card's size, fills it: that card and the band round it, no pair)
            pair = _split_in_view(c_t, (s_t, l_t), edges_dil, view[0]) if viewed and view is not None \
                else split_pair(c, (s_t, l_t), edges_dil)
            if pair:
                break
        area = float(np.mean([cv2.contourArea(p.pts) for p in pair])) if pair and viewed else short * long
        # a card seen whole inside the region must be one of the two, outlined alike (else the region is something
        # else: a photo or a box the size of two cards, with one card on it; or the pair was fitted at another
        # card's size: ``SPLIT_SAME``)
        if not pair or any(cv2.pointPolygonTest(c, tuple(map(float, quad_centre(q))), False) >= 0
                           and max(quad_iou(q, p.pts) for p in pair) < SPLIT_SAME for q in sure):
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
    short, long = sides[int(row_lengths(centres - [at[0], at[1]]).argmin())]
    return float(short), float(long)


def _size_references(cands: list[tuple[float, Quad]], agree: bool = True
                     ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The outlines seen whole (0.98) of a card's shape (``SPLIT_SIZE_RATIO``), their sides (short, long) and their
    centres: the card's size here, near each of them. ``agree``: without those far off the others' size
    (``REF_AGREE``; not on a table seen tilted, where the far cards are that much smaller)."""
    sure = [q.pts for _, q in cands if q.whole >= 0.98]
    sides = np.array([sorted((vec_len(p[1] - p[0]) + vec_len(p[3] - p[2]),
                              vec_len(p[2] - p[1]) + vec_len(p[0] - p[3]))) for p in sure])
    sides = sides.reshape(-1, 2) / 2
    # (the card's size is taken from outlines of a card's shape only: a mat's square marker, outlined whole at 85 x 86
    # px beside a lone two of diamonds, made it "two cards" of that size and split it in two, scene 500029)
    shaped = sides[:, 1] > SPLIT_SIZE_RATIO * sides[:, 0]
    sure = [p for p, k in zip(sure, shaped, strict=True) if k]
    refs = sure, sides[shaped], np.array([quad_centre(p) for p in sure]).reshape(-1, 2)
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
            box = moved_by(box, to_image).astype(np.float32)
        rb = bounding_box(box)
        if any(not boxes_apart(bounding_box(q.pts), rb) and quad_iou(q.pts, box) > 0.5 for _, q in cands + added):
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
        q = snap_to_edges(pale, oriented(best if to_image is None else moved_by(best, to_image).astype(np.float32)))
        # (a region partly over a card found: the card drawn would be that card again, or a piece of it; an
        # outline under half a card's size lying in it is a piece of it - train_27's nine of clubs lay over one)
        half = 0.5 * (short * long if to_image is None else cv2.contourArea(q.astype(np.float32)))
        others = [o.pts for _, o in cands + added if cv2.contourArea(o.pts) >= half]
        return q if _card_shaped(q, min_side, centre) and not overlaps_any(q, others) else None

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
            c_v = np.round(moved_by(c, view[0]).astype(np.float32)).astype(np.int32).reshape(-1, 1, 2)
            (vx, vy), _, _ = rect_v = cv2.minAreaRect(cv2.convexHull(c_v))
            vs, vl = _nearest_size(view[1], view[2], (vx, vy))
            q = drawn(c_v, cv2.contourArea(c_v), rect_v, vs, vl, back)
        if q is not None:
            added.append((1.1, Quad(q.astype(np.float32), 0.9)))
    if added:
        cands = [(k, o) for k, o in cands if not any(part_of_card(o.pts, a.pts) for _, a in added)]
    return cands + added


def _one_card_shaped(c: np.ndarray, short: float, long: float) -> bool:
    """Whether the region outlined by ``c`` has the shape of one card of sides ``short`` x ``long`` seen larger
    (``ONE_CARD_*``), rather than of two overlapping ones."""
    a = cv2.contourArea(c)
    _, (rw, rh), _ = cv2.minAreaRect(c)
    if min(rw, rh) <= 0 or a > ONE_CARD_AREA * short * long or a < ONE_CARD_FILL * rw * rh:
        return False
    return abs(max(rw, rh) / min(rw, rh) / (long / short) - 1) <= ONE_CARD_RATIO


def held_inside(w: Quad, whole: list[Quad], lo: float, hi: float) -> list[Quad]:
    """The outlines of ``whole`` (other than ``w``) lying inside ``w`` (nine tenths of them) at more than ``lo`` and
    less than ``hi`` of its area."""
    aw = cv2.contourArea(w.pts)
    return [q for q in whole if q is not w and lo * aw < cv2.contourArea(q.pts) < hi * aw
            and cv2.intersectConvexConvex(q.pts, w.pts)[0] > 0.9 * cv2.contourArea(q.pts)]


def _holds_two_cards(w: Quad, whole: list[Quad]) -> bool:
    """Whether ``w`` holds two of the ``whole`` outlines, each 0.3-0.7 of its area, lying apart (IoU < 0.1) and
    together filling three quarters of it: two cards side by side taken for one."""
    aw = cv2.contourArea(w.pts)
    inner = held_inside(w, whole, 0.3, 0.7)
    for i, a in enumerate(inner):
        for b in inner[i + 1:]:
            if (quad_iou(a.pts, b.pts) < 0.1
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
        if all(quad_iou(q.pts, a.pts) < 0.1 for a in apart) and seen(q):
            apart.append(q)
    if len(apart) < least:
        return False
    areas = np.array([cv2.contourArea(q.pts) for q in apart])
    med = float(np.median(areas))
    return int(((areas >= med / size) & (areas <= med * size)).sum()) >= least


def _holds_cards(w: Quad, inner: list[Quad], mask: np.ndarray | None) -> bool:
    """Whether ``w`` holds ``HOLDS_CARDS`` or more of the outlines ``inner`` (those lying inside it at under
    ``HOLDS_SHARE`` of its area, ``held_inside``) lying apart, of one size (``HOLDS_SIZE``), each pale inside
    (``PALE_FACE``) and, where ``w`` is pale too, each under ``HOLDS_PALE_SHARE`` of it (or two, each under
    ``HOLDS_PALE_TWO``'s share): a surface with cards on it, not a card.
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
    """Whether ``w`` is a surface holding the outlines ``inner`` (``held_inside`` at under ``HOLDS_SHARE``), by what the
    finder network sees (``maps``: its ``FinderNet.maps``; None: never): see ``HOLDS_SEEN``."""
    inner = [q for q in inner if q.whole >= 0.95]
    if maps is None or len(inner) < HOLDS_SEEN:
        return False
    face, _, scale = maps
    if _face_support(face, w.pts, scale) >= NET_NOT_CARD:
        return False
    return _apart_of_one_size(inner, lambda q: _face_support(face, q.pts, scale) >= SEEN_FACE, HOLDS_SEEN)


def card_sized(q: np.ndarray, card_area: float | None) -> bool:
    """Whether outline ``q`` has the size of this frame's cards (``card_area``, the median area of those found whole;
    None: unknown) within ``NET_SAME_SIZE``."""
    if card_area is None or card_area <= 0:
        return False
    return 1 / NET_SAME_SIZE <= cv2.contourArea(q) / card_area <= NET_SAME_SIZE


def part_of_card(q: np.ndarray, card: np.ndarray, card_area: float | None = None) -> bool:
    """Whether outline ``q`` lies inside the network's ``card`` (nine tenths of it) at no more than a share of its
    area: ``NET_PART_SHARE``, or ``NET_PART_SHARE_SIZED`` when the card has the size of this frame's cards
    (``card_area``, their median; None: unknown)."""
    a, ac = cv2.contourArea(q), cv2.contourArea(card)
    if a > (NET_PART_SHARE_SIZED if card_sized(card, card_area) else NET_PART_SHARE) * ac:
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
        inner = held_inside(w, whole, 0.0, HOLDS_SHARE)
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
