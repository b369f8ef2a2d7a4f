"""Card-face regions and the tests an outline passes: the card mask and paleness, an outline fitted to a region's
contour, its rim's contrast with the table round it, its sides snapped onto the photo's edges, and which outlines
overlap, hold or are parts of others."""

from __future__ import annotations

import functools

import cv2
import numpy as np

from vision.geometry import (
    CARD_ASPECT,
    NEXT_CORNER,
    PREV_CORNER,
    Quad,
    fit_quad,
    focal_prior,
    oriented,
    plane_aspect,
    quad_centre,
    row_lengths,
    vec_len,
)
from vision.quantiles import median1, median_sorted, quantile_sorted

PUSH = 3.5  # pixels a region outline is pushed out: the edges cut away about that much of the card
RIM_PLAIN = 0.6  # see rim_contrast: a card's rim band varies by less than 0.4 x 60 Lab lightness levels
RIM_CONTRAST = 12.0  # Lab distance between a card's rim band and the surface around it
# an outline inside one of the network's whole cards at no more than this share of its area is a part of it (a pip,
# a picture): less than half, for two cards side by side, taken by the network for one, have a card's shape too
NET_PART_SHARE = 0.4
# ... but where the network's card has the size of the cards found whole in the frame (within NET_SAME_SIZE of their
# median area), it is one card, not two taken for one, and an outline inside it up to NET_PART_SHARE_SIZED of it is
# a part: a jack of spades with a cable across it, outlined by the views as its left half (boxes_train IMG_2621)
NET_PART_SHARE_SIZED = 0.6
NET_SAME_SIZE = 1.25




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


def mask_and_paleness(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
    return mask_and_paleness(frame)[0]


def quad_from_contour(c: np.ndarray, min_side: float, centre: tuple[float, float] | None = None,
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


def band_lab(frame: np.ndarray, quad: np.ndarray) -> np.ndarray:
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


RIM_W, RIM_H, RIM_M = 48, 68, 5  # the card warped small for its rim test: inner size and margin around it, pixels


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
        spread.append(quantile_sorted(sa[:, 0], 0.9) - quantile_sorted(sa[:, 0], 0.1))
        meds.append((median_sorted(sa), median_sorted(sb)))
    if bands is not None:
        bands.extend(meds)
    spread.sort()
    # (``np.median`` of the four, without its overhead; or the second plainest)
    plain = 1.0 - (spread[1] if two_sides else (spread[1] + spread[2]) / 2) / 60.0
    contrast = sum(side_contrast(ma, mb) for ma, mb in meds) / 4
    return plain, contrast


def side_contrast(inside: np.ndarray, outside: np.ndarray) -> float:
    """One side's rim contrast from its bands' median Lab colours: their distance, or 0 where the rim is darker."""
    # a card's paper is at least as light as what it lies on (on a pale table only a little lighter): a side darker
    # inside than outside is not a card's edge (a patch of felt beside an arm, a shadow's border)
    return float(vec_len(inside - outside)) if inside[0] >= outside[0] - 3 else 0.0


def size_bonus(quad: np.ndarray) -> float:
    """A tie-break between outlines of one card that prefers the larger (the whole card over its picture), small
    beside the wholeness and rim scores: 1e-5 per pixel of area, capped at 0.2 (a card photographed at a few hundred
    pixels would otherwise outweigh them)."""
    return min(0.2, 1e-5 * float(cv2.contourArea(quad)))


class Shapes:
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
            slope = float(median1((yy[iu[1]] - yy[iu[0]]) / dt))
            icpt = float(median1(yy - slope * tt))
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


def overlaps_any(q: np.ndarray, others: list[np.ndarray], share: float = 0.2) -> bool:
    """Whether quad ``q`` covers ``share`` (a fifth) of any of ``others``, or that much of it is covered by one."""
    a = cv2.contourArea(q)
    return any(cv2.intersectConvexConvex(q, o)[0] >= share * min(a, cv2.contourArea(o)) for o in others)


def card_shaped(q: np.ndarray, min_side: float, centre: tuple[float, float] | None) -> bool:
    """Whether a quad has a card's shape, as ``quad_from_contour`` requires of the views' outlines: sides 1.15-1.9
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


def face_support(face: np.ndarray, quad: np.ndarray, scale: float) -> float:
    """The mean face probability the finder network gives inside ``quad`` (frame pixels; ``scale`` frame pixels per
    map cell)."""
    return mean_inside(face, (quad + 0.5) / scale - 0.5)


def mean_inside(img: np.ndarray, quad: np.ndarray) -> float:
    """The mean of one-channel ``img`` over the pixels inside ``quad`` (its pixel coordinates; 0 when none are)."""
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 1, [img.shape[1], img.shape[0]])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(m, np.round(quad - [x0, y0]).astype(np.int32), 1)
    return float(cv2.mean(img[y0:y1, x0:x1], mask=m)[0]) if m.any() else 0.0


def held_inside(w: Quad, whole: list[Quad], lo: float, hi: float) -> list[Quad]:
    """The outlines of ``whole`` (other than ``w``) lying inside ``w`` (nine tenths of them) at more than ``lo`` and
    less than ``hi`` of its area."""
    aw = cv2.contourArea(w.pts)
    return [q for q in whole if q is not w and lo * aw < cv2.contourArea(q.pts) < hi * aw
            and cv2.intersectConvexConvex(q.pts, w.pts)[0] > 0.9 * cv2.contourArea(q.pts)]


def card_sized(q: np.ndarray, card_area: float | None, size: float = NET_SAME_SIZE) -> bool:
    """Whether outline ``q`` has the size of this frame's cards (``card_area``, the median area of those found whole;
    None: unknown) within ``size`` (``NET_SAME_SIZE`` unless said)."""
    if card_area is None or card_area <= 0:
        return False
    return 1 / size <= cv2.contourArea(q) / card_area <= size


def part_of_card(q: np.ndarray, card: np.ndarray, card_area: float | None = None) -> bool:
    """Whether outline ``q`` lies inside the network's ``card`` (nine tenths of it) at no more than a share of its
    area: ``NET_PART_SHARE``, or ``NET_PART_SHARE_SIZED`` when the card has the size of this frame's cards
    (``card_area``, their median; None: unknown)."""
    a, ac = cv2.contourArea(q), cv2.contourArea(card)
    if a > (NET_PART_SHARE_SIZED if card_sized(card, card_area) else NET_PART_SHARE) * ac:
        return False
    return cv2.intersectConvexConvex(q.astype(np.float32), card.astype(np.float32))[0] > 0.9 * a
