"""The learned finder network's outlines (``vision.finder_net``): each checked by its face map and its rim, turned
and snapped onto the photo's edges, a court's picture frame giving way to its card, and the hand-drawn views'
outlines it does not see as cards giving way to its own."""

from __future__ import annotations

import functools
import os
from dataclasses import replace

import cv2
import numpy as np

from vision import finder_net
from vision.geometry import (
    Quad,
    bounding_box,
    boxes_apart,
    focal_prior,
    oriented,
    plane_aspect,
    quad_iou,
    vec_len,
)
from vision.regions import (
    NET_PART_SHARE,
    card_shaped,
    card_sized,
    face_support,
    overlaps_any,
    part_of_card,
    rim_contrast,
    size_bonus,
    snap_to_edges,
)

NET_RIM_CONTRAST = 6.0  # the learned finder's outlines: half the contrast (its own face map is the other evidence)
NET_FACE = 0.5  # the least mean face probability the finder network gives inside an outline it offers
# an outline nothing reads is still reported (an unsure card) when the learned finder sees a whole card there this
# surely (mean face probability inside) and its rim stands out from the table (``NET_RIM_CONTRAST``)
SEEN_FACE = 0.9
NET_NOT_CARD = 0.6  # a hand-drawn view's outline where the network sees less face than this gives way to its cards
# an outline round two of the network's cards, each PAIR_SHARE of its area, overlapping by under PAIR_IOU and
# together PAIR_FILL of it, is a card lying partly on another (``_holds_pair``)
PAIR_SHARE = (0.25, 0.75)
PAIR_IOU = 0.2
PAIR_FILL = 0.75


def add_net_cards(out: list[tuple[float, Quad]], frame: np.ndarray, pale: np.ndarray, min_side: float,
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
    support = [face_support(face, o.pts, scale) for _, o in out]
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
def finder_network(path: str) -> finder_net.FinderNet | None:
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


def _with_alternatives(out: list[tuple[float, Quad]], others: list[np.ndarray], pale: np.ndarray, face: np.ndarray,
                       scale: float, min_side: float, centre: tuple[float, float] | None) -> list[tuple[float, Quad]]:
    """``out`` with, for an outline, the network's outline of the same card as its alternative when the two differ
    (IoU 0.5-0.9; the hand-drawn views outline the picture frame of a court whose white margin is thin, the network
    the card). ``others``: the network's cards (unsnapped) that overlap an outline of ``out``. Each is the
    alternative of the one outline it overlaps most, so a card is not read twice, and only if once snapped it still
    has a card's shape and face; ``VIEW_ALTS`` of them at most per outline. (An outline that has since given way to
    a network's card, as a part of it, is no longer in ``out``: what overlapped only it has no outline to be the
    alternative of.)"""
    alts: dict[int, list[np.ndarray]] = {}
    taken: list[np.ndarray] = []
    boxes = [bounding_box(o.pts) for _, o in out]
    for n in others:
        # (the same card at another of the network's levels; with one alternative only, any outline of it above
        # 0.7, as before ``VIEW_ALTS``)
        if any(quad_iou(n, t) > (NET_ALT_IOU[1] if VIEW_ALTS > 1 else 0.7) for t in taken):
            continue
        # (outlines whose boxes lie apart overlap it by IoU 0, which the best, taken only from 0.5, never is)
        nb = bounding_box(n)
        best, i = max(((quad_iou(o.pts, n), i) for i, (_, o) in enumerate(out) if not boxes_apart(boxes[i], nb)),
                      default=(0.0, -1))
        if not 0.5 <= best < 0.9:
            continue
        mine = alts.setdefault(i, [])
        if len(mine) >= VIEW_ALTS:
            continue
        taken.append(n)
        q = snap_to_edges(pale, oriented(n))
        if (card_shaped(q, min_side, centre) and face_support(face, q, scale) >= NET_FACE
                and quad_iou(out[i][1].pts, q) < 0.9 and all(quad_iou(m, q) < NET_ALT_IOU[1] for m in mine)):
            mine.append(q.astype(np.float32))
    return [(k, Quad(o.pts, o.whole, o.alt + tuple(alts[i])) if alts.get(i) else o) for i, (k, o) in enumerate(out)]


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
        if face_support(face, q, scale) < NET_FACE:
            continue  # (checked again once snapped; most of the network's weak cores stop here, before the snapping)
        alt: tuple[np.ndarray, ...] = ()
        if NET_TURN:
            turned, strong = _edge_turns(pale, q)
            if turned is q and strong is not q and TURN_STRONG_ALT:
                a = snap_to_edges(pale, strong)
                alt = (a.astype(np.float32),) if card_shaped(a, min_side, centre) else ()
            q = turned
        q = snap_to_edges(pale, q)
        if not card_shaped(q, min_side, centre):
            continue  # (snapped onto something else's edges: a marker's square, a book's corner)
        # the rim's plainness only ranks the network's outlines: a card partly covered (an object, a cable, a fold of
        # cloth across it) has a rim that is not plain everywhere, and the hand-drawn views' check missed those
        band: list[tuple[np.ndarray, np.ndarray]] = []
        plain, contrast = rim_contrast(frame, q, two_sides=True, bands=band)
        support = face_support(face, q, scale)
        if contrast < NET_RIM_CONTRAST or support < NET_FACE:
            continue
        whole = float(min(1.0, card.fill / 0.9))
        framed = any(inside[0] < outside[0] - NET_FRAME_DARK for inside, outside in band)
        out.append((whole + plain + size_bonus(q),
                    Quad(q.astype(np.float32), whole, alt=alt, face=support, contrast=contrast, framed=framed)))
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
# a small card in a small photo (a 504 px phone picture, its cards 60 px wide): the edges' directions, from 3 x 3
# gradients of a soft image, spread over several degrees, and a rough table's texture (carpet) adds a floor in every
# direction, so the peak is short of ``TURN_PEAK`` and the outline stays square to the frame. The outline turned by
# the strong edges only (each gradient weighted by its square: the card's rim outweighs the texture) is then the
# card's alternative outline, read only when the first reads nothing (turning every outline so moved 53 of the
# development photos' reads, losing as many as it gained). boxes_train IMG_2566's jack of clubs on grey carpet,
# turned 9 degrees: peak share 0.134 by the gradients, 0.177 by their squares; unsure at 0.49, then read at 0.98. The
# strong edges' peak needs only ``TURN_STRONG_PEAK`` of their weight (an alternative outline is read by the stricter
# bar of a second reading): IMG_2507's dim king of hearts, turned 8 degrees, peak share 0.12, read at 0.97
TURN_STRONG_ALT = True
TURN_STRONG_PEAK = 0.1


def _turned_to_edges(pale: np.ndarray, q: np.ndarray, strong: bool = False) -> np.ndarray:
    """``q`` turned about its centre to the direction of the edges round it (above), or ``q`` itself. ``strong``: each
    gradient weighted by its square, not its size (``TURN_STRONG_ALT``)."""
    return _edge_turns(pale, q)[strong]


def _edge_turns(pale: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``_turned_to_edges`` of ``q`` by the gradients' sizes and by their squares, from one measure of the ring's
    gradients (``_net_cards`` asks for the second where the first leaves ``q`` as it is)."""
    short = min(float(vec_len(q[1] - q[0])), float(vec_len(q[2] - q[1])))
    ring = TURN_RING * short
    x0, y0 = np.floor(q.min(axis=0) - ring - 2).astype(int)
    x1, y1 = np.ceil(q.max(axis=0) + ring + 2).astype(int)
    h, w = pale.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return q, q
    patch = pale[y0:y1, x0:x1].astype(np.float32)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
    local = (q - [x0, y0]).astype(np.float32)
    band = np.zeros(patch.shape, np.uint8)
    cv2.polylines(band, [np.round(local).astype(np.int32)], True, 1, thickness=max(3, int(round(2 * ring))))
    inside = band > 0
    size = np.hypot(gx, gy)[inside]
    if size.sum() <= 0:
        return q, q
    bins = np.floor(np.degrees(np.arctan2(gy, gx))[inside] % 90.0).astype(int) % 90
    return (_turned_by(q, np.bincount(bins, weights=size, minlength=90), TURN_PEAK),
            _turned_by(q, np.bincount(bins, weights=(gx * gx + gy * gy)[inside], minlength=90), TURN_STRONG_PEAK))


def _turned_by(q: np.ndarray, hist: np.ndarray, peak_share: float) -> np.ndarray:
    """``q`` turned to the peak of ``hist`` (the ring's gradient weight per degree, modulo a right angle) when it holds
    ``peak_share`` of the weight and lies ``TURN_MIN`` to ``TURN_MAX`` degrees off; else ``q`` itself."""
    # (a degree either side: the peak's weight over three bins, round the circle of 90)
    near = hist + np.roll(hist, 1) + np.roll(hist, -1)
    peak = int(np.argmax(near))
    if near[peak] < peak_share * hist.sum():
        return q
    d = q[1] - q[0]
    own = float(np.degrees(np.arctan2(d[1], d[0])) % 90.0)
    turn = (peak + 0.5 - own + 45.0) % 90.0 - 45.0
    if not TURN_MIN <= abs(turn) <= TURN_MAX:
        return q
    c = q.mean(axis=0)
    r = cv2.getRotationMatrix2D((float(c[0]), float(c[1])), -turn, 1.0)
    return (q @ r[:, :2].T + r[:, 2]).astype(np.float32)


# the network's outlines of one card that differ this much (IoU) are alternatives of each other (``add_net_cards``);
# at most this many kept per card (each is read only when the card's first outline reads nothing)
NET_ALT_IOU = (0.5, 0.9)
NET_ALTS = 2
# and at most this many of the network's outlines are alternatives of a hand-drawn view's outline
# (``_with_alternatives``), each differing from the others as above. One alone was the network's loosest outline of
# the card (its core at the lowest level, grown into the paper round it): boxes_train IMG_2579's jack of clubs on a
# cream folder, outlined askew by the views and 46 px too long by that one, was unsure at 0.88, while the network's
# core at 0.7 lay on the card (read at 0.97). The development photos, generic: boxes_train 399 -> 402 read, boxes_test
# (held out) whole 75 -> 76 of 79; enrolled (the boxes deck) boxes_train 413 -> 417, boxes_test whole 75 -> 76
VIEW_ALTS = 2
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
