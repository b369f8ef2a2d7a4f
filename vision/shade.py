"""A card seen in shade: relit with the table round it, and an outline closed by a shadow's edge extended over the
card's paper in the shade."""

from __future__ import annotations

import cv2
import numpy as np

from vision import exposure
from vision.geometry import CH, CW, oriented, vec_len
from vision.quantiles import percentile, row_median, row_percentiles

# the margin round a card relit with the table about it (``relit_around``), as a share of its width: more than the
# outlines ``_reread`` cuts the corners from reach beyond the card (``REREAD_OUTLINES``)
RELIT_MARGIN = 0.12


def relit_around(frame: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The card under ``quad`` (TL, TR, BR, BL) and a margin of the table round it, warped upright at about the
    frame's own resolution (one to two times the canonical size) and relit (``exposure.even_light``), and the card's
    outline in it."""
    side = float(vec_len(quad[1] - quad[0]) + vec_len(quad[2] - quad[3])) / 2
    k = min(2.0, max(1.0, side / CW))
    w, h, m = k * CW, k * CH, RELIT_MARGIN * k * CW
    dst = np.array([[m, m], [m + w, m], [m + w, m + h], [m, m + h]], np.float32)
    warp = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    size = (int(round(w + 2 * m)), int(round(h + 2 * m)))
    canvas = cv2.warpPerspective(frame, warp, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return exposure.even_light(canvas)[0], dst


# A card half in a shadow: the finder outlines its lit part when the shadow's edge, not the card's, closes the outline
# (boxes_train IMG_2475's ace of hearts, its top under a case's shadow, outlined from the shadow's edge down, its
# index outside). ``extended_into_shade`` looks beyond each side for the same paper in shade - a flat strip of the
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


def extended_into_shade(frame: np.ndarray, quad: np.ndarray
                         ) -> tuple[np.ndarray, list[tuple[np.ndarray, float]]] | None:
    """``quad`` extended over the strips of shaded paper beyond its sides (above), with each strip (its outline in
    the frame, and the factor that brings it to the lit paper's level); None where there are none."""
    q = oriented(np.asarray(quad, np.float32))
    w = float(vec_len(q[1] - q[0]) + vec_len(q[2] - q[3])) / 2
    h = float(vec_len(q[3] - q[0]) + vec_len(q[2] - q[1])) / 2
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
    paper = vi >= percentile(vi, 60)
    level = percentile(vi[paper], 75)
    if level < 60:
        return None
    tint = chroma[inner][paper].mean(axis=0)

    def strip(rows: np.ndarray, crows: np.ndarray) -> tuple[int, float]:
        """Rows of shaded paper from the side outward, and their level (``rows``: v, one row per step out;
        ``crows``: chroma); (0, 0) where there is no such strip ending at an edge within the reach."""
        low, med, hi = row_percentiles(rows, (10, 50, 90))
        tinted = np.abs(row_median(crows) - tint).max(axis=1)
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


def shade_lifted(frame: np.ndarray, quad: np.ndarray, strips: list[tuple[np.ndarray, float]]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The part of ``frame`` under ``quad`` (the extended outline, with a 2 px margin for the reader's interpolation)
    with each strip of shaded paper (``extended_into_shade``) brought to the lit paper's level, and that part's
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
