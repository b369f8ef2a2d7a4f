"""Cards lying on each other: a pile's top card, a region of two overlapping cards split into both, and cards rebuilt
from the corners seen of them, at the size of the cards seen whole nearby."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.geometry import (
    NEXT_CORNER,
    Quad,
    bounding_box,
    boxes_apart,
    inside_poly,
    moved_by,
    oriented,
    quad_centre,
    quad_iou,
    row_lengths,
    table_view,
    vec_len,
)
from vision.regions import NET_SAME_SIZE, Shapes, band_lab, card_shaped, overlaps_any, part_of_card, snap_to_edges

# how far (Lab a, b: hue and chroma, not lightness, which shadows change) the rim band of the better-seen card of a
# split pair may lie from the colour of the paper of the cards seen whole in the same frame: on poker_table 0-4 for
# pairs of faces, 8.5-17.5 for pairs of backs (blue or red patterns)
PAPER_AB = 7.0
PAPER_SNAPPED = True  # (the band judged on the snapped outlines, ``split_unions``)
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


def split_unions(cands: list[tuple[float, Quad]], unions: list[np.ndarray],
                  edges_dil: np.ndarray, pale: np.ndarray, frame: np.ndarray,
                  shapes: Shapes | None = None,
                  centre: tuple[float, float] | None = None) -> list[tuple[float, Quad]]:
    """``cands`` with the pairs of overlapping cards that ``split_pair`` finds in ``unions`` (regions of about two
    cards' area), and without the outlines that took such a pair for one card. ``shapes``: the unions' areas and
    hulls, kept for the next use. ``centre``: the principal point, when the frame is the camera's whole image: on a
    table seen tilted (``table_view``) a region not split as seen is then tried again in the view looking straight
    down on it, where a far pair is no smaller than a near one."""
    shapes = shapes or Shapes()
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
            paper = np.median(np.array([band_lab(frame, p) for p in sure]), axis=0)
        # (judged on the outlines snapped to the cards' edges, as they are given: split at the card's size, an outline
        # a few pixels off lays its band across the edge, on the table - poker_table train_18's ace of spades on a king,
        # its band 9 off the paper's colour as split and 2 off snapped, was not found)
        snapped = [snap_to_edges(pale, p.pts) for p in pair]
        judged = snapped if PAPER_SNAPPED else [p.pts for p in pair]
        if min(float(np.linalg.norm((band_lab(frame, q) - paper)[1:])) for q in judged) > PAPER_AB:
            continue
        # an outline over both cards (the pair taken for one card) gives way to them
        cands = [(k, q) for k, q in cands
                 if not (cv2.contourArea(q.pts) > 1.25 * area and all(
                     cv2.intersectConvexConvex(q.pts, p.pts)[0] > 0.3 * area for p in pair))]
        cands += [(2.5 if p.whole >= 0.9 else 1.2, Quad(q, p.whole)) for p, q in zip(pair, snapped, strict=True)]
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


def cards_from_corners(cands: list[tuple[float, Quad]], unions: list[np.ndarray], pale: np.ndarray,
                        min_side: float, centre: tuple[float, float] | None,
                        shapes: Shapes | None = None) -> list[tuple[float, Quad]]:
    """``cands`` with the cards drawn from a corner of the regions of about one card's area that nothing explains
    (``CORNER_*``). ``shapes``: the unions' areas and hulls, where already measured."""
    shapes = shapes or Shapes()
    sure, sides, centres, view = _sizes_here(cands, centre)
    if not len(sides):
        return cands
    added: list[tuple[float, Quad]] = []
    areas = sides[:, 0] * sides[:, 1]
    # (on a table seen tilted, a region no card is drawn from as seen is tried again in the view looking straight
    # down on it, as ``split_unions`` does)
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
        return q if card_shaped(q, min_side, centre) and not overlaps_any(q, others) else None

    for c in unions:
        a = shapes.area(c)
        if not lo < a < hi:
            continue  # (most regions: far from one card's area whatever the card)
        # (the hull's rectangle is the contour's: checked identical on 4,463 unions of the development photos)
        (cx, cy), _, _ = rect = cv2.minAreaRect(shapes.hull(c))
        short, long = _nearest_size(sides, centres, (cx, cy))
        q = drawn(c, a, rect, short, long, None)
        if q is None and view is not None and back is not None:
            # (then in the view looking straight down, at the nearest card's size there, as ``split_unions``)
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
