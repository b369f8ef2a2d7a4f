"""Finding cards in a frame (``find_cards``): pale, unsaturated regions (card faces) cut apart by the edges inside
them, pale blobs and closed edge loops; an edge-region view for a card barely paler than its table; the learned finder
network's outlines (``vision.net_outlines``); piles' top cards and pairs of overlapping cards split
(``vision.pairs``); each outline checked by its rim (``vision.regions``) and the views' outlines of one card reduced
to the best."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np

from vision import finder_net, shadowed
from vision.geometry import (
    NEXT_CORNER,
    Quad,
    quad_centre,
    quad_iou,
    vec_len,
)
from vision.net_outlines import NET_NOT_CARD, SEEN_FACE, add_net_cards, finder_network
from vision.pairs import PILE_SIZE_TOLERANCE, cards_from_corners, pile_top, split_unions
from vision.regions import (
    NET_SAME_SIZE,
    RIM_CONTRAST,
    RIM_PLAIN,
    Shapes,
    card_paleness,
    card_sized,
    face_support,
    held_inside,
    mask_and_paleness,
    mean_inside,
    quad_from_contour,
    rim_contrast,
    rim_pale,
    side_contrast,
    size_bonus,
    snap_to_edges,
)

# a pale blob is a pile to look for the top card of unless a card found whole lies on it at 0.8 to this many times its
# area (that card and the band round it); an outline far larger holding it is the surface it lies on (a drawn
# scene's mat, outlined whole, explained its pile: scene 500058)
PILE_EXPLAINED = 2.0
EDGE_LEVELS = ((15, 45),)  # Canny thresholds of the edge-region view: sensitive, for a card barely paler than its table
FINDER_PATH = finder_net.MODEL_PATH


def _edge_region_cards(frame: np.ndarray, gray: np.ndarray, min_side: float, known: list[Quad] | None = None,
                       centre: tuple[float, float] | None = None,
                       unions: list[np.ndarray] | None = None,
                       edge_maps: list[np.ndarray] | None = None,
                       paleness: np.ndarray | None = None,
                       shapes: Shapes | None = None) -> list[tuple[float, Quad]]:
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


# the surface view (``_surface_cards``): the table's own colour, taken as the median of a frame shrunk SURFACE_SHRINK
# times over a window SURFACE_WINDOW_CARDS times a card's side (and a twelfth of the frame's longer side at least;
# SURFACE_WINDOW of it where no card's size is known), and a card any region differing from it by SURFACE_DIFF or
# more in a channel, less strokes under SURFACE_LINE px (a mat's lines, its writing)
SURFACE_VIEW = True
SURFACE_SHRINK = 8
SURFACE_WINDOW = 1 / 6
SURFACE_WINDOW_CARDS = 2.5
SURFACE_DIFF = 45
SURFACE_LINE = 9
SURFACE_SIDE = 1280
SURFACE_FILL = 0.75
SURFACE_PART = 0.9  # (of a partly covered outline's area inside it: that outline a part of this card)
SURFACE_SIZE = 1.6  # (of a card's area, the median of those found whole, when any)


def _surface_cards(frame: np.ndarray, min_side: float, centre: tuple[float, float] | None, known: list[Quad],
                   pale: np.ndarray, card_area: float | None = None
                   ) -> tuple[list[tuple[float, Quad]], dict[int, list[np.ndarray]]]:
    """Card outlines as regions that differ from the table round them, where no other view outlined anything
    (``known``: every outline found; ``card_area``: a card's area, when known, else the median of the whole ones).

    A court whose picture runs to a thin margin is no pale region (its colours are not pale) and its picture's edges
    cut its face into pieces, so the other views find nothing there; lying alone on the mat, touching its lines, it
    still differs from the felt all over (drawn paris' jacks, scenes 500010, 500030, 500039 of the bench). The
    table's colour is the median over a window larger than a card; the mat's lines and writing, thinner than
    ``SURFACE_LINE``, are opened away. A region must fill its outline (``SURFACE_FILL``), be of a card's size
    (``SURFACE_SIZE``) and differ from the table along its rim (``RIM_CONTRAST``)."""
    h, w = frame.shape[:2]
    k = SURFACE_SHRINK
    if min(h, w) < 8 * k:
        return [], {}
    whole = [cv2.contourArea(q.pts) for q in known if q.whole >= 0.9]
    area = card_area if card_area is not None else float(np.median(whole)) if whole else None
    # (the median is the table's where cards cover under half the window: a few cards' sides wide)
    window = max(h, w) * SURFACE_WINDOW if area is None else max(max(h, w) / 12, SURFACE_WINDOW_CARDS * area**0.5)
    # (looked at shrunk a whole number of times to SURFACE_SIDE or less, the quick way to shrink: a card is then still
    # tens of pixels across, and the view costs a few ms)
    f = 1.0 / -(-max(h, w) // SURFACE_SIDE)
    view = frame if f == 1.0 else cv2.resize(frame, (int(w * f), int(h * f)), interpolation=cv2.INTER_AREA)
    vh, vw = view.shape[:2]
    small = cv2.resize(view, (vw // k, vh // k), interpolation=cv2.INTER_AREA)
    table = cv2.medianBlur(small, 2 * max(1, int(window * f / k / 2)) + 1)
    table = cv2.resize(table, (vw, vh), interpolation=cv2.INTER_LINEAR)
    b, g, r = cv2.split(cv2.absdiff(view, table))
    _, m = cv2.threshold(cv2.max(cv2.max(b, g), r), SURFACE_DIFF - 1, 255, cv2.THRESH_BINARY)
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    line = max(3, int(SURFACE_LINE * f) | 1)
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (line, line)))
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out: list[tuple[float, Quad]] = []
    alts: dict[int, list[np.ndarray]] = {}
    for c in contours:
        if len(c) < 4 * min_side * f:
            continue
        c = c if f == 1.0 else np.round(c / f).astype(np.int32)
        q = quad_from_contour(c, min_side, centre)
        # (a card's region fills its outline; touching cards' joint region, card-shaped or not, does not)
        if q is None or cv2.contourArea(c) < SURFACE_FILL * cv2.contourArea(q.pts):
            continue
        if area is not None and not card_sized(q.pts, area, SURFACE_SIZE):
            continue
        met = _met_known(q.pts, known)
        part = met[0] if len(met) == 1 and known[met[0]].whole < 0.9 else None
        if met and (part is None or cv2.intersectConvexConvex(q.pts, known[part].pts)[0]
                    < SURFACE_PART * cv2.contourArea(known[part].pts)):
            continue
        # (the region holds the card's shadow too: its outline is snapped to the face's edges before its rim is
        # judged)
        q = Quad(snap_to_edges(pale, q.pts), q.whole)
        # (by its contrast with the table only: a thin margin inside a printed border line, paris' courts', is no
        # plain band, ``RIM_PLAIN``)
        plain, contrast = rim_contrast(frame, q.pts)
        if contrast < RIM_CONTRAST:
            continue
        if part is not None:
            # (a part of this card was outlined, as partly covered: this outline is read where that one reads
            # nothing, as the other views' outlines are, ``Quad.alt``)
            alts.setdefault(part, []).append(q.pts)
        else:
            out.append((q.whole + max(plain, 0.0) + size_bonus(q.pts), q))
    return out, alts


# a surface view's outline is a card no other view found only where it covers under this share of every outline they
# found (``_surface_cards``): touching cards differ from the table together, and their joint region can be card-shaped
SURFACE_APART = 0.2


def _met_known(quad: np.ndarray, known: list[Quad]) -> list[int]:
    """The ``known`` outlines (their indices) of which ``quad`` covers ``SURFACE_APART`` or more."""
    x0, y0 = quad.min(axis=0)
    x1, y1 = quad.max(axis=0)
    met = []
    for i, k in enumerate(known):
        kx0, ky0 = k.pts.min(axis=0)
        kx1, ky1 = k.pts.max(axis=0)
        if kx1 < x0 or x1 < kx0 or ky1 < y0 or y1 < ky0:
            continue
        if cv2.intersectConvexConvex(quad, k.pts)[0] >= SURFACE_APART * cv2.contourArea(k.pts):
            met.append(i)
    return met


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
    q = quad_from_contour(c, min_side, centre, hull)
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
    return q.whole + plain + size_bonus(q.pts), q


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
    mask, paleness = mask_and_paleness(frame)
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
    shapes = Shapes()  # (their areas and hulls)
    edge_maps: list[np.ndarray] = []
    fitted = np.zeros((0, 4), np.int64)
    # (a card a shadow's edge crosses is in parts, ``vision.shadowed``: the pale regions of no card's shape, looked
    # beyond for paper in shade, and every region of the pale-regions view, which may be joined across the edge)
    pieces: list[np.ndarray] = []
    parts: list[np.ndarray] = []
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
                    unions.append(c)  # (``split_unions`` keeps those of about two cards' area)
                # a region another view already outlined (within 2 px) gives the same card: on an unknown surface
                # every outline is snapped to the card's edges at the end, so it need not be fitted twice
                box = np.array(cv2.boundingRect(c))
                if len(fitted) and bool((np.abs(fitted - box).max(axis=1) <= 2).any()):
                    continue
                fitted = np.vstack([fitted, box])
            if any_surface and src is regions:
                parts.append(c)  # (a shadow's band across a card: its shaded part may have a quad's shape)
            q = quad_from_contour(c, min_side, centre, focal=focal)
            if q is None:
                if any_surface and src is not edge_loops:
                    pieces.append(c)
                continue
            if not grow:  # the blob lost only the dark rim and shadow line (~3 px), not the dilated edges
                cen = quad_centre(q.pts)
                short = vec_len(q.pts[1] - q.pts[0])
                q = Quad((cen + (q.pts - cen) / (1 + 2.0 / (short / 2))).astype(np.float32), q.whole)
            pale = rim_pale(mask, q.pts)
            if pale < 0.6:
                continue
            cands.append((q.whole + pale + size_bonus(q.pts), q))
    if shadowed.SHADE_PIECES and pieces:
        cands += shadowed.shade_pieces(frame, mask, pieces, min_side)
    if shadowed.JOIN_ACROSS_SHADOW and len(parts) > 1:
        cands += shadowed.joined_across_shadow(frame, mask, parts, min_side, centre)
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
    finder = finder_network(FINDER_PATH) if any_surface and learned else None
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
            out = _best_apart(split_unions(out, unions, edge_maps[0] if edge_maps else edges, paleness, frame, shapes,
                                                centre))
            out = cards_from_corners(out, unions, paleness, min_side, centre, shapes)
    if maps is not None:
        out = add_net_cards(out, frame, paleness, min_side, centre, maps)
    if any_surface and SURFACE_VIEW:
        more, alts = _surface_cards(frame, min_side, centre, [q for _, q in out], paleness, card_area)
        out = [(k, replace(q, alt=q.alt + tuple(alts[i])) if i in alts else q) for i, (k, q) in enumerate(out)]
        out += more
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
    """Each side's rim contrast (``side_contrast``)."""
    bands: list[tuple[np.ndarray, np.ndarray]] = []
    rim_contrast(frame, quad, bands=bands)
    return [side_contrast(inside, outside) for inside, outside in bands]


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
    return mean_inside(mask, quad) / 255.0


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
    if face_support(face, w.pts, scale) >= NET_NOT_CARD:
        return False
    return _apart_of_one_size(inner, lambda q: face_support(face, q.pts, scale) >= SEEN_FACE, HOLDS_SEEN)


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
