"""Finding a card that a sharp shadow's edge crosses: the edge cuts its pale region into parts, none of a card's shape,
so no view of ``vision.finder`` outlines it. Two ways back to the card: a part looked beyond for the same paper in
shade (``shade_pieces``), and parts joined across an edge that is a shadow's (``joined_across_shadow``)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import CARD_ASPECT, Quad, bounding_box, boxes_apart, row_lengths
from vision.regions import quad_from_contour, rim_pale, size_bonus
from vision.shade import extended_into_shade

# A card crossed by a shadow's edge along one of its sides: its pale region ends at the edge, and its lit part is no
# card's shape (boxes_train IMG_2475's ace of hearts on dark wood in sunlight, its top under a DVD case's shadow: the
# lit part 152 x 168 px, the card 158 x 223), so no view outlined it. A pale region that is a rectangle of no card's
# shape (it fills ``SHADE_PIECE_FILL`` of its rotated rectangle) is looked beyond for the same paper in shade
# (``shade.extended_into_shade``, the reader's step for an outline closed by a shadow's edge); where that makes it a
# card's shape, the card is a candidate (its rim judged on the lit part, the shaded strip not being pale).
SHADE_PIECES = True
SHADE_PIECE_FILL = 0.85
# the lit part's shape: a card cut across by the edge is at most 1.4 times as long as wide, one cut along its length
# (its lit part at least half its width) at most 3 times; and no card's part is wider than 0.6 of the frame's shorter
# side (a card filling a third of a 4:3 frame is 0.45 of its height). (Long, thin pale regions are many - a sheet's
# margin, a table's edge - and looking beyond them is slow: a canvas reaching 0.7 of their length)
SHADE_PIECE_LONG = 3.0
SHADE_PIECE_SIDE = 0.6


def _fits_frame(quad: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether an outline joined or extended here may be a card: inside the frame (within 2 px), and its shorter
    side at most ``SHADE_PIECE_SIDE`` of the frame's. (A pale table with a shadow across it is pale parts too, and
    their union can have a card's shape: boxes_train IMG_2509 blurred, a table top 343 x 443 px in a 378 x 504 photo,
    which then dropped the king of spades lying on it as a part of itself; that union is also less convex than
    ``SHADOW_SOLID`` asks.)"""
    h, w = shape[:2]
    x0, y0, x1, y1 = bounding_box(quad)
    if x0 < -2 or y0 < -2 or x1 > w + 1 or y1 > h + 1:
        return False
    sides = row_lengths(quad - np.roll(quad, -1, axis=0))
    return float(min(sides[0] + sides[2], sides[1] + sides[3])) / 2 <= SHADE_PIECE_SIDE * min(h, w)


def shade_pieces(frame: np.ndarray, mask: np.ndarray, pieces: list[np.ndarray], min_side: float
                 ) -> list[tuple[float, Quad]]:
    """Card outlines (score, quad) from pale regions (``pieces``, contours in ``frame``; ``mask``: the card mask) of no
    card's shape that a shadow's edge along a side closes (above)."""
    out: list[tuple[float, Quad]] = []
    seen: list[np.ndarray] = []
    for c in pieces:
        area = cv2.contourArea(c)
        if area < min_side * min_side:
            continue
        rect = cv2.minAreaRect(cv2.convexHull(c))
        short, long = sorted(rect[1])
        if (short < 0.9 * min_side or short > SHADE_PIECE_SIDE * min(frame.shape[:2])
                or long > SHADE_PIECE_LONG * short or area < SHADE_PIECE_FILL * short * long):
            continue
        box = cv2.boxPoints(rect).astype(np.float32)
        if any(float(np.abs(box - b).max()) <= 3 for b in seen):
            continue
        seen.append(box)
        shaded = extended_into_shade(frame, box)
        if shaded is None:
            continue
        ext = shaded[0]
        if not _fits_frame(ext, frame.shape):
            continue
        pale = rim_pale(mask, box)
        if pale < 0.6:
            continue
        out.append((0.9 + pale + size_bonus(ext), Quad(ext, 0.9)))
    return out


# A card a shadow's edge crosses at any angle: the pale-regions view, cut by the frame's edges, gives its lit and
# shaded parts apart (a lamp's band across a card on carpet: three parts, none a card's shape). Two neighbouring
# parts are joined when the edge between them is a shadow's:
# - straight (``SHADOW_STRAIGHT``) and at least ``SHADOW_MIN_LENGTH`` of the smallest card side long;
# - the darker part's level, channel by channel, ``SHADOW_RATIO`` of the lighter's, the channels' ratios alike
#   (``SHADOW_ALIKE``: a shadow dims every colour alike, the sky-lit shade only a little bluer);
# - and the same edge, followed beyond the parts onto the table, dims the table by the same ratio (``SHADOW_TABLE``).
#   That is what tells a shadow from a card's own edge: a white card beside a pale grey table steps alike in every
#   channel too, but along the card's edge only as far as the card goes, while a shadow's edge runs on across the
#   table.
# The parts joined so, closed over the edge lines between them, are outlined as a card when their union has a card's
# shape (``regions.quad_from_contour``).
JOIN_ACROSS_SHADOW = True
SHADOW_GAP = 7  # px: parts this near are neighbours (the dilated edge line between them and the view's opening)
SHADOW_NEAR = 12  # px: the band of each part along the edge whose level is compared
SHADOW_MIN_LENGTH = 0.5
SHADOW_STRAIGHT = 2.0  # px: each part's border along the edge lies this near a line (80th percentile)
SHADOW_RATIO = (0.25, 0.85)
SHADOW_ALIKE = 0.12
SHADOW_TABLE = 0.1
SHADOW_OFF = (4, 12)  # px from the edge's line: where the table is sampled on either side, past a soft edge's ramp
# the table sampled from this many px past the parts' edge, for this share of the smallest card side or this share of
# the edge between the parts, whichever is longer
SHADOW_BEYOND = (6, 0.6)
SHADOW_BEYOND_EDGE = 0.3
SHADOW_PART_MIN = 0.25  # of the smallest card side squared: a smaller part is a speck, not a card's corner
# The union must be a card's shape more strictly than a view's region (``quad_from_contour`` takes covered cards):
# nearly convex, and along the quad's sides. Two overlapping cards under one shadow are joined too - each card's
# lit part to the shade they share - and their union leaves a notch (boxes_train IMG_2622, IMG_2623 under the
# bench's band: 0.82-0.83 of their hulls; IMG_2674's 0.93-0.97 with 0.68-0.73 of its outline along the quad), where
# a card's parts joined fill 0.96-0.99 of theirs (the session's 14 joined cards of the development photos).
SHADOW_SOLID = 0.95
SHADOW_WHOLE = 0.8
# a joined outline ranks below a view's outline of the card at the same rim (the view's is its own edges, the union
# is closed over the edge lines between its parts): boxes_train cam_image10's ten of spades under the photo bench's
# band, found by a view and read at 0.99, was read at 0.83 on its joined outline when that ranked first
SHADOW_SCORE_BELOW = 0.3


def _near_band(a: np.ndarray, b: np.ndarray, reach: int) -> np.ndarray:
    """The pixels of the part mask ``a`` within ``reach`` px of the part mask ``b`` (both the same shape; a square's
    reach)."""
    return cv2.bitwise_and(a, cv2.dilate(b, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)))


def _median_levels(frame: np.ndarray, masks: tuple[np.ndarray, np.ndarray], origin: tuple[int, int]
                   ) -> list[np.ndarray] | None:
    """Per channel, the median of ``frame`` over each of two masks of an ROI at ``origin``; None where one is empty."""
    x0, y0 = origin
    roi = frame[y0 : y0 + masks[0].shape[0], x0 : x0 + masks[0].shape[1]]
    levels = [np.median(roi[m > 0], axis=0) for m in masks if np.count_nonzero(m)]
    return levels if len(levels) == 2 else None


def _is_shadow(ratio: np.ndarray | None) -> bool:
    """Whether a step's per-channel ratio (shade over light) is a shadow's: in ``SHADOW_RATIO``, the channels alike."""
    return (ratio is not None and SHADOW_RATIO[0] <= float(ratio.min()) and float(ratio.max()) <= SHADOW_RATIO[1]
            and float(ratio.max() - ratio.min()) <= SHADOW_ALIKE)


def _table_ratio(frame: np.ndarray, point: np.ndarray, along: np.ndarray, normal: np.ndarray, t0: float, t1: float,
                 parts: list[np.ndarray]) -> np.ndarray | None:
    """Per channel, the ratio of ``frame``'s median on the ``normal`` side of the line ``point + t along`` over its
    median on the other side, for t from ``t0`` to ``t1``, off the line by ``SHADOW_OFF``, outside the ``parts``
    (contours); None where too few of those samples lie in the frame off the parts."""
    h, w = frame.shape[:2]
    ts = np.arange(min(t0, t1), max(t0, t1), 1.0, dtype=np.float32)
    offs = np.arange(SHADOW_OFF[0], SHADOW_OFF[1] + 1, 2, dtype=np.float32)
    grid = [np.round((point[None, None, :] + ts[:, None, None] * along[None, None, :]
                      + sign * offs[None, :, None] * normal[None, None, :]).reshape(-1, 2)).astype(np.int64)
            for sign in (1.0, -1.0)]
    both = np.concatenate(grid)
    x0, y0 = both.min(axis=0)
    x1, y1 = both.max(axis=0) + 1
    covered = np.zeros((int(y1 - y0), int(x1 - x0)), np.uint8)
    cv2.drawContours(covered, parts, -1, 255, -1, offset=(-int(x0), -int(y0)))
    sides = []
    for xy in grid:
        keep = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
        keep &= covered[xy[:, 1] - y0, xy[:, 0] - x0] == 0
        if np.count_nonzero(keep) < 0.6 * len(xy):
            return None
        sides.append(np.median(frame[xy[keep, 1], xy[keep, 0]].astype(np.float32), axis=0))
    if float(sides[1].min()) < 20:
        return None
    return sides[0] / sides[1]


def joined_across_shadow(frame: np.ndarray, mask: np.ndarray, parts: list[np.ndarray], min_side: float,
                         centre: tuple[float, float] | None = None) -> list[tuple[float, Quad]]:
    """Card outlines (score, quad) from regions of the pale-regions view (``parts``, contours in ``frame``, disjoint;
    ``mask``: the card mask) joined across a shadow's edge (above); ``centre`` as for ``quad_from_contour``."""
    # (no part larger than the largest card ``_fits_frame`` allows: a table's region is left out before its pairs)
    largest = SHADE_PIECE_SIDE ** 2 * CARD_ASPECT[1] * min(frame.shape[:2]) ** 2
    parts = [c for c in parts if SHADOW_PART_MIN * min_side * min_side <= cv2.contourArea(c) <= largest]
    if len(parts) < 2:
        return []
    rects = np.array([cv2.boundingRect(c) for c in parts], np.int64)
    # the parts (disjoint regions of one view) drawn once, each by its number from 1: a pair's masks are cut from it
    labels = np.zeros(frame.shape[:2], np.uint16)
    for k, c in enumerate(parts):
        cv2.drawContours(labels, [c], -1, k + 1, -1)
    g = SHADOW_GAP
    parent = list(range(len(parts)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # (each part's box, and that box grown by the gap: neighbours are parts whose boxes lie within the gap)
    boxes = [(float(x), float(y), float(x + w), float(y + h)) for x, y, w, h in rects.tolist()]
    grown = [(x0 - g, y0 - g, x1 + g, y1 + g) for x0, y0, x1, y1 in boxes]
    joined = False
    for i in range(len(parts)):
        for j in range(i + 1, len(parts)):
            if boxes_apart(grown[i], boxes[j]):
                continue
            if root(i) != root(j) and _shadow_between(frame, labels, parts, i, j, rects, min_side):
                parent[root(i)] = root(j)
                joined = True
    if not joined:
        return []
    groups: dict[int, list[int]] = {}
    for i in range(len(parts)):
        groups.setdefault(root(i), []).append(i)
    out: list[tuple[float, Quad]] = []
    for members in groups.values():
        if len(members) < 2:
            continue
        x0 = int(rects[members, 0].min()) - g
        y0 = int(rects[members, 1].min()) - g
        x1 = int((rects[members, 0] + rects[members, 2]).max()) + g
        y1 = int((rects[members, 1] + rects[members, 3]).max()) + g
        union = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.drawContours(union, [parts[m] for m in members], -1, 255, -1, offset=(-x0, -y0))
        union = cv2.morphologyEx(union, cv2.MORPH_CLOSE, np.ones((2 * g + 1, 2 * g + 1), np.uint8),
                                 borderType=cv2.BORDER_CONSTANT, borderValue=0)
        contours, _ = cv2.findContours(union, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        if not contours:
            continue
        c = max(contours, key=cv2.contourArea) + np.array([x0, y0], np.int32)
        q = quad_from_contour(c, min_side, centre)
        if q is None or q.whole < SHADOW_WHOLE or not _fits_frame(q.pts, frame.shape):
            continue
        if cv2.contourArea(c) < SHADOW_SOLID * cv2.contourArea(cv2.convexHull(c)):
            continue
        pale = rim_pale(mask, q.pts)
        if pale < 0.6:
            continue
        out.append((q.whole + pale + size_bonus(q.pts) - SHADOW_SCORE_BELOW, q))
    return out


def _shadow_between(frame: np.ndarray, labels: np.ndarray, parts: list[np.ndarray], i: int, j: int,
                    rects: np.ndarray, min_side: float) -> bool:
    """Whether the edge between the neighbouring parts ``i`` and ``j`` of ``parts`` (contours, drawn in ``labels``
    by their number from 1; ``rects``: their bounding rectangles) is a shadow's (``JOIN_ACROSS_SHADOW``)."""
    a, b, ra, rb = parts[i], parts[j], rects[i], rects[j]
    reach = max(SHADOW_NEAR, SHADOW_GAP) + 1
    # (all that is measured lies where each part's rectangle, grown by the reach, meets the other's)
    x0 = max(0, int(max(ra[0], rb[0])) - reach)
    y0 = max(0, int(max(ra[1], rb[1])) - reach)
    x1 = min(frame.shape[1], int(min(ra[0] + ra[2], rb[0] + rb[2])) + reach)
    y1 = min(frame.shape[0], int(min(ra[1] + ra[3], rb[1] + rb[3])) + reach)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return False
    roi = labels[y0:y1, x0:x1]
    ma = cv2.compare(roi, i + 1, cv2.CMP_EQ)
    mb = cv2.compare(roi, j + 1, cv2.CMP_EQ)
    # the edge: the points of each part's outline within the gap of the other
    k = 2 * SHADOW_GAP + 1
    edge = []
    for c, other in ((a, mb), (b, ma)):
        p = c.reshape(-1, 2) - np.array([x0, y0])
        p = p[(p[:, 0] >= 0) & (p[:, 0] < ma.shape[1]) & (p[:, 1] >= 0) & (p[:, 1] < ma.shape[0])]
        edge.append(p[cv2.dilate(other, np.ones((k, k), np.uint8))[p[:, 1], p[:, 0]] > 0])
    pts = np.concatenate(edge).astype(np.float32) + np.float32([x0, y0])
    if len(pts) < 2 * SHADOW_MIN_LENGTH * min_side or min(len(e) for e in edge) < 3:
        return False
    vx, vy, px, py = cv2.fitLine(pts, cv2.DIST_L2, 0, 0.01, 0.01).ravel()
    along = np.float32([vx, vy])
    normal = np.float32([-vy, vx])
    point = np.float32([px, py])
    rel = pts - point
    # (each part's border straight along the line, the ends where it turns along the card's sides left out)
    side = rel @ normal
    split = len(edge[0])
    if any(float(np.percentile(np.abs(d - np.median(d)), 80)) > SHADOW_STRAIGHT
           for d in (side[:split], side[split:])):
        return False
    t = rel @ along
    t0, t1 = float(t.min()), float(t.max())
    if t1 - t0 < SHADOW_MIN_LENGTH * min_side:
        return False
    # the parts' levels along the edge: which is the shade, and by how much
    near_a, near_b = _near_band(ma, mb, SHADOW_NEAR), _near_band(mb, ma, SHADOW_NEAR)
    levels = _median_levels(frame, (near_a, near_b), (x0, y0))
    # (a level under 20 is black, no light to take a share of: b's, and a's where it is the lighter)
    if levels is None or float(levels[1].min()) < 20:
        return False
    level_a, level_b = levels
    dark_a = float((level_a / level_b).mean()) < 1
    if not dark_a and float(level_a.min()) < 20:
        return False
    ratio = level_a / level_b if dark_a else level_b / level_a
    if not _is_shadow(ratio):
        return False
    # the shade's side of the line: the darker part's
    dark_centre = np.argwhere((near_a if dark_a else near_b) > 0)[:, ::-1].mean(axis=0) + np.float32([x0, y0])
    if float((dark_centre - point) @ normal) < 0:
        normal = -normal
    start, length = SHADOW_BEYOND[0], max(SHADOW_BEYOND[1] * min_side, SHADOW_BEYOND_EDGE * (t1 - t0))
    for lo, hi in ((t1 + start, t1 + start + length), (t0 - start, t0 - start - length)):
        table = _table_ratio(frame, point, along, normal, lo, hi, [a, b])
        if table is not None and _is_shadow(table) and float(np.abs(table - ratio).max()) <= SHADOW_TABLE:
            return True
    return False
