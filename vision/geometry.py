"""A card's outline in a frame: the ``Quad`` an outline is, four-line fits, the plane a tilted table lies in, and
warping a card upright (``rectify``) or cutting its corners for reading."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision import index_net

CW, CH = 120, 170  # canonical rectified card, pixels
READ_INSET = 1.5  # pixels: reading a slightly inset quad keeps the rim and its shadow out (measured: fewer misreads)


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


def vec_len(v: np.ndarray) -> np.floating:
    """``np.linalg.norm`` of one float vector, the same value (its own formula, ``sqrt(v . v)``) without its
    argument checks, which cost more than the sum on a hot path."""
    return np.sqrt(v.dot(v))


def quad_centre(quad: np.ndarray) -> np.ndarray:
    """``quad.mean(axis=0)`` of a quad's four corners, the same values (numpy's mean is this sum divided by the count,
    exact for four) without its overhead, which was most of its cost on a hot path."""
    return quad.sum(axis=0) / 4


def focal_prior(centre: tuple[float, float]) -> float:
    """The focal length taken where a view does not give it: 1.5 times the half frame, 0.75 of the image's longer
    side (a phone's or a webcam's is about 0.6-0.9 of it)."""
    return 1.5 * max(centre)


def moved_by(pts: np.ndarray, h: np.ndarray) -> np.ndarray:
    """The points ``pts`` (any shape holding (x, y) pairs) taken by the homography ``h``, as an (n, 2) float64 array."""
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float64), h).reshape(-1, 2)


def row_lengths(v: np.ndarray) -> np.ndarray:
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
    d = approx[NEXT_CORNER] - approx
    n = np.array([vec_len(v) for v in d], np.float32)
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


def oriented(quad: np.ndarray) -> np.ndarray:
    """Reorder to TL, TR, BR, BL of an upright card: clockwise, first side a short side (the 0/180 ambiguity stays)."""
    q = quad.copy()
    c = q.sum(axis=0) / 4  # (``mean``: the same values, dividing by four is exact)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]  # clockwise in image coordinates (y down)
    s01 = vec_len(q[1] - q[0]) + vec_len(q[3] - q[2])
    s12 = vec_len(q[2] - q[1]) + vec_len(q[0] - q[3])
    if s01 > s12:
        q = q[NEXT_CORNER]
    return q


def _triple(a: tuple[float, float, float], b: tuple[float, float, float], c: tuple[float, float, float]) -> float:
    """(a x b) . c of three 3-vectors."""
    (a0, a1, a2), (b0, b1, b2), (c0, c1, c2) = a, b, c
    return (a1 * b2 - a2 * b1) * c0 + (a2 * b0 - a0 * b2) * c1 + (a0 * b1 - a1 * b0) * c2


NEXT_CORNER = np.array([1, 2, 3, 0])  # a quad's corners shifted by one: corner i's neighbour (np.roll costs more)
PREV_CORNER = np.array([3, 0, 1, 2])  # ... and the other way: its neighbour before it


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


def inside_poly(poly: np.ndarray, pts: np.ndarray) -> np.ndarray:
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


def bounding_box(q: np.ndarray) -> tuple[float, float, float, float]:
    """A quad's bounding box (x0, y0, x1, y1)."""
    (x0, y0), (x1, y1) = q.min(axis=0).tolist(), q.max(axis=0).tolist()
    return x0, y0, x1, y1


def boxes_apart(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Whether two bounding boxes (``bounding_box``) lie clearly apart: their quads do not overlap (their IoU is 0)."""
    return a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1]


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a, b)
    return float(inter / (cv2.contourArea(a) + cv2.contourArea(b) - inter + 1e-6))


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
    f = focal_prior(centre)
    if len(quads) < TILT_CARDS or not f > 0:
        return None
    ts = []
    # (every quad at once: ``np.cross`` costs its overhead per call, not per vector, and gives the same numbers)
    h = np.concatenate([np.asarray(quads, np.float64), np.ones((len(quads), 4, 1))], axis=2)
    # the vanishing points of the two pairs of opposite sides, then the sides' directions in space
    v1 = np.cross(np.cross(h[:, 0], h[:, 1]), np.cross(h[:, 3], h[:, 2]))
    v2 = np.cross(np.cross(h[:, 1], h[:, 2]), np.cross(h[:, 0], h[:, 3]))
    d1 = np.stack([(v1[:, 0] - centre[0] * v1[:, 2]) / f, (v1[:, 1] - centre[1] * v1[:, 2]) / f, v1[:, 2]], axis=1)
    d2 = np.stack([(v2[:, 0] - centre[0] * v2[:, 2]) / f, (v2[:, 1] - centre[1] * v2[:, 2]) / f, v2[:, 2]], axis=1)
    for n in np.cross(d1, d2):
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
    f = focal_prior(centre)
    n = np.array([tilt[0], tilt[1], 1.0]) / float(np.hypot(np.hypot(*tilt), 1.0))
    axis = np.cross(n, [0.0, 0.0, 1.0])  # (the turn that takes the table's normal onto the camera's axis)
    turn, _ = cv2.Rodrigues(axis / float(np.linalg.norm(axis)) * float(np.arccos(n[2])))
    k = np.array([[f, 0.0, centre[0]], [0.0, f, centre[1]], [0.0, 0.0, 1.0]])
    h = k @ turn @ np.linalg.inv(k)
    seen = moved_by(np.array(quads), h).reshape(-1, 4, 2)
    sides = np.sort(np.stack([row_lengths(seen[:, 1] - seen[:, 0]) + row_lengths(seen[:, 3] - seen[:, 2]),
                              row_lengths(seen[:, 2] - seen[:, 1]) + row_lengths(seen[:, 0] - seen[:, 3])], 1) / 2,
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
    return h, sides[ok], np.array([quad_centre(q) for q in seen[ok]]).reshape(-1, 2)


def _warp_to(quad: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, int]:
    """The homography that warps the card under ``quad`` upright onto ``k`` times ``size`` (cw, ch), and ``k``: a card
    seen much larger than ``size`` (a photograph) is warped at an integer multiple of it, to be averaged down."""
    cw, ch = size
    side = float(vec_len(quad[1] - quad[0]) + vec_len(quad[2] - quad[3])) / 2
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
    cen = quad_centre(quad)
    half = float(vec_len(quad[1] - quad[0])) / 2
    inset = max(READ_INSET, READ_INSET * half / (CW / 2))
    return cen + (quad - cen) * (1 - inset / max(half, 1.0))


def rectify_for_reading(frame: np.ndarray, quad: np.ndarray, scale: int = 1) -> np.ndarray:
    """``rectify`` of the quad inset by READ_INSET pixels (at ``scale`` times the canonical size)."""
    return rectify(frame, _reading_quad(quad), (CW * scale, CH * scale))


def reading_cut(frame: np.ndarray, quad: np.ndarray, larger: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """The card under ``quad`` rectified for reading, and with ``larger``, where the frame has the pixels (its top side
    at least 1.6 times the canonical width), also at twice the size, the card then averaged down from that cut (else
    None)."""
    if larger and bool(vec_len(quad[1] - quad[0]) >= 1.6 * CW):
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
