"""Generic mode, number cards: count the pips in the card's central field and tell their suit.

A number card (ace to ten) of a standard-index deck has as many pips as its rank, all of one shape and size, laid out
mirror-symmetrically about the card's long axis. That holds across designs, so the count is read without any
template: the ink components of the central field (corner indices left out) are grouped by size and shape; a card
is a *pip card* only when one group explains all of the field's sizeable ink, is mirror-symmetric, and its count is
1-10 (a single pip must sit in the centre). Pictures (courts, jokers, an ornate ace) leave components of many sizes
or asymmetric layouts and are no pip card, so the reader says nothing about them.

The suit: the pips' colour (red or black: many pips to vote with), then their shape by correlation with pip glyphs
of the tuning decks (heart against diamond, spade against club), averaged over the pips. ``vision.glyphs`` reads the
corner index; the generic reader accepts a pip card only when the index does not contradict it.
"""

from __future__ import annotations

import functools
import statistics
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from vision.quantiles import percentile

PIP_SIZE = (16, 16)  # w, h of a normalised pip glyph
FIELD_X = (0.16, 0.84)  # the central field (pip centres) as fractions of the card's width and height
FIELD_Y = (0.07, 0.93)
MIDDLE = 0.06  # pips within this share of the card's height from its middle row have no known orientation
RANK_OF_COUNT = {1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "T"}
NUMBER_RANKS = "23456789T"  # the ranks whose pips a card shows laid out (an ace's one pip may be a free design)


@dataclass
class Pips:
    """The pips found on a card: their count, colour, normalised glyphs (N, D; N x 0 when read without them,
    ``read_pips``), which of them lie off the card's middle row (``upright``: those pips are turned so that they
    stand upright whichever way the card lies), and how regular their sizes are (0..1)."""

    count: int
    red: bool
    glyphs: np.ndarray
    upright: np.ndarray
    regularity: float
    symmetry: float
    hueless: bool = False  # the pips' ink has no hue: black or grey (``_hueless``)
    notches: tuple[float, ...] = ()  # a lone pip's (an ace's) notches, ``_notches``; () for more pips
    club_notched: float = 0.0  # the share of the pips showing a club's third notch (``CLUB_NOTCH``), black pips only
    ink: tuple[float, ...] = ()  # the pips' ink per channel (B, G, R), a share of its paper's (``ink_share``)
    # the upper half's pips and the lower half's, as ``_glyphs`` turns them, match better each turned again: the
    # pips all stand one way on the card (``one_way``), so which way is up is not known
    one_way: bool = False


def unit(v: np.ndarray) -> np.ndarray:
    """``v`` flattened, zero-mean and of unit length: a glyph ready for correlation by dot product."""
    v = v.astype(np.float32).ravel()
    v = v - v.mean()
    return v / max(float(np.linalg.norm(v)), 1e-6)


def ink_map(card: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ink (darkness against the local paper, or redness) and redness of a rectified card, float32."""
    f = card.astype(np.float32)
    # (the channels' mean: sums of bytes are exact in float32, so the same values as ``f.mean(axis=2)``, in a tenth
    # of its time)
    grey = cv2.transform(f, _SUM_BGR).reshape(f.shape[:2]) / 3
    # the paper's local brightness: a max filter wider than a pip removes the ink, the blur smooths the result;
    # glare and shadow gradients then cancel out
    paper = cv2.blur(cv2.dilate(grey, np.ones((21, 21), np.uint8)), (15, 15))
    # r - (g + b) / 2, from the channels at once: every partial sum is a multiple of 0.5 under 1000, exact in float32
    # in any order, so the same values as that expression on the three strided channels
    redness = np.maximum(cv2.transform(f, _RED_LESS_REST).reshape(f.shape[:2]), 0)
    return np.maximum(paper - grey, 1.3 * redness), redness  # (redness at most 255: ``np.clip``'s bound never acts)


_SUM_BGR = np.ones((1, 3), np.float32)
_RED_LESS_REST = np.array([[-0.5, -0.5, 1.0]], np.float32)


def components(binary: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats(binary, connectivity=8)``: the same count, labels, stats and centroids.

    (Grana's block-based scan numbers the components in the order of OpenCV's default 8-way one, Spaghetti: checked
    identical on 22,000 images, the pip fields of the development photos and random ones. On a card's field it takes
    half the time.)"""
    return cv2.connectedComponentsWithStatsWithAlgorithm(binary, 8, cv2.CV_32S, cv2.CCL_GRANA)


# the ink levels the pips are cut at, as shares of the field's darkest ink: first ``INK_LEVEL``; when no clean layout
# shows there, ``INK_RETRY`` both, and a count only when they do not disagree. Real light fades some pips and joins
# others: glare across part of a card leaves its pips there a third paler, cut smaller than their neighbours (one
# layout of unequal pips: not clean), found at the lower level; pips that blur and a low resolution join at 0.45
# part at the higher (the development photos' cards read: poker_table 138 -> 141, boxes_train 363 -> 368)
INK_LEVEL = 0.45
INK_RETRY = (0.3, 0.65)


def _field(w: int, h: int) -> tuple[int, int, int, int]:
    """The central field's bounds (x0, x1, y0, y1) in pixels of a ``w`` x ``h`` rectified card."""
    return int(FIELD_X[0] * w), int(FIELD_X[1] * w), int(FIELD_Y[0] * h), int(FIELD_Y[1] * h)


def find_pips(card: np.ndarray, level: float = INK_LEVEL, retry: tuple[float, ...] = INK_RETRY) -> Pips | None:
    """The pips of a rectified upright (or upside-down) card, or None when its field is not a clean pip layout: at
    ``level`` of the field's darkest ink, or else at every ``retry`` level that shows one, all counting alike."""
    return read_pips(card, level, retry)[0]


def read_pips(card: np.ndarray, level: float = INK_LEVEL, retry: tuple[float, ...] = INK_RETRY
              ) -> tuple[Pips | None, int, int]:
    """``find_pips``, and where it finds no clean layout, how many alike pip-like shapes the field shows at most at
    the levels it cut, counting only groups of ten or fewer (0: none, more than ten, or a clean layout found): a
    lower bound on a number card's rank that a shadow, an object over part of the card or two pips run together do
    not raise; and how many the field shows at every level, whatever their number (more than ten at every level: the
    pips of more than one card; a court's patterned gown shows more than ten at one level, few at the others). The
    groups come from the same cuts as the layout, at no extra cost."""
    cuts = _cuts(card, (level, *retry))
    first = next(cuts, None)
    if first is None:
        return None, 0, 0
    if first[1] is not None:
        return first[1], 0, 0
    groups = [len(first[0][0])]
    found = []
    for group, p in cuts:
        groups.append(len(group[0]))
        if p is not None:
            found.append(p)
    if len({p.count for p in found}) == 1:
        return found[0], 0, 0
    # (none found, or the levels count differently: no clean layout)
    return None, max((k for k in groups if k <= 10), default=0), min(groups)


_Group = tuple[list, list, np.ndarray, int]  # ``_group``'s answer


# ink cut by the outline (``cut_by_outline``): a component at least CUT_AREA of the card's area that reaches the rim
# (``_inside_rim``) at one of the card's ends (its short sides), its centre in CUT_END_MIDDLE of it (clear of the
# index corners) and no longer along it than CUT_SPAN of it (a pip's fragment, not a strip of table taken in by an
# outline a little loose). Only the ends: some designs draw an index's big suit sign on the long sides' rim half way
# down (the held-out ornamental's and tango's reach 0.45 and 0.35 of the height), and a column of pips cut off along
# a long side leaves a layout off the card's middle, which ``_pips_of`` does not count anyway
CUT_AREA = 0.0004
CUT_END_MIDDLE = (0.17, 0.83)
CUT_SPAN = 0.3


def cut_by_outline(card: np.ndarray, level: float = INK_LEVEL) -> bool:
    """Whether the outline ``card`` was rectified from cuts through ink that goes on past one of its ends: a
    pip-sized piece of ink, cut at ``level`` of the field's darkest ink, reaches the rim in the middle of the top or
    the bottom side. A card's own outline has a white margin that no pip reaches; an outline drawn to the edge of a
    hand or a card lying over it, where the finder took that edge for the card's, cuts the pips there in two, and the
    pips left in it make a clean layout of a smaller count (KDE oxygen-white's nine of spades, its bottom row under a
    hand, laid out as a seven: named the 7S by the glyph reader, scene 502690)."""
    h, w = card.shape[:2]
    field = _field_ink(card)
    if field is None:
        return False
    ink, _, top = field
    binary = np.logical_and(ink > _ink_bar(level, top), _inside_rim(h, w)).view(np.uint8)
    _, _, stats, _ = components(binary)
    ry = int(RIM * h)
    e0, e1 = CUT_END_MIDDLE
    for x, y, bw, bh, area in stats[1:].tolist():
        if (area >= CUT_AREA * w * h and e0 * w < x + bw / 2 < e1 * w and bw <= CUT_SPAN * w
                and (y <= ry or y + bh >= h - ry)):
            return True
    return False


def _cuts(card: np.ndarray, levels: tuple[float, ...]) -> Iterator[tuple[_Group, Pips | None]]:
    """The card's ink cut at each of ``levels`` (shares of the field's darkest ink), as asked for: each cut's
    ``_group`` and the clean pip layout it gives, or None. Nothing where the field has no ink to speak of."""
    for group, ink, redness in _field_cuts(card, levels):
        yield group, _pips_of(group, ink, redness, card)


def _field_cuts(card: np.ndarray, levels: tuple[float, ...]) -> Iterator[tuple[_Group, np.ndarray, np.ndarray]]:
    """The card's ink cut at each of ``levels`` of the field's darkest ink, as asked for: each cut's ``_group``, with
    the ink and redness maps (``ink_map``). Nothing where the field has no ink to speak of."""
    field = _field_ink(card)
    if field is None:
        return
    ink, redness, top = field
    for k in levels:
        yield _group(ink, _ink_bar(k, top)), ink, redness


def _field_ink(card: np.ndarray) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The card's ink and redness maps (``ink_map``) and its field's darkest ink (the 99.5th percentile), or None
    where the field has no ink to speak of: what ``_field_cuts`` and ``cut_by_outline`` cut at their levels."""
    h, w = card.shape[:2]
    ink, redness = ink_map(card)
    fx0, fx1, fy0, fy1 = _field(w, h)
    top = percentile(ink[fy0:fy1, fx0:fx1], 99.5)
    return None if top < 50 else (ink, redness, top)


def _ink_bar(level: float, top: float) -> float:
    """The ink value a cut at ``level`` of the field's darkest ink ``top`` keeps above."""
    return max(30.0, level * top)


RIM = 0.03  # the share of each side of a card whose ink is never cut (``_inside_rim``)


@functools.lru_cache(maxsize=16)
def _inside_rim(h: int, w: int) -> np.ndarray:
    """Where a ``h`` x ``w`` card's ink may be cut: all but its rim (3 % of each side). (Built as the rim was cleared
    from each cut, one slice after another, so the same pixels; kept per card size.)"""
    m = np.ones((h, w), bool)
    m[: int(RIM * h)] = False
    m[-int(RIM * h):] = False
    m[:, : int(RIM * w)] = False
    m[:, -int(RIM * w):] = False
    return m


def _group(ink: np.ndarray, thr: float) -> tuple[list, list, np.ndarray, int]:
    """The ink cut at ``thr``: its largest group of alike pip-like components centred in the field (each component
    a tuple x, y, w, h, area, label, cx, cy; empty when none), every sizeable component in the field, the label map
    and the number of labels."""
    h, w = ink.shape[:2]
    fx0, fx1, fy0, fy1 = _field(w, h)
    binary = np.logical_and(ink > thr, _inside_rim(h, w)).view(np.uint8)
    n, lab, stats, cents = components(binary)
    min_area = 0.0008 * w * h
    # the sizeable components centred in the field, picked out at once (most components are specks)
    keep = np.flatnonzero((stats[1:, cv2.CC_STAT_AREA] >= min_area) & (cents[1:, 0] >= fx0) & (cents[1:, 0] <= fx1)
                          & (cents[1:, 1] >= fy0) & (cents[1:, 1] <= fy1)) + 1
    # (as Python numbers, row by row: the same values as converting each one, in a fraction of the time)
    comps = [(*st, i, cx, cy) for st, i, (cx, cy) in zip(stats[keep].tolist(), keep.tolist(), cents[keep].tolist(),
                                                         strict=True)]

    def pip_like(c: tuple) -> bool:
        x, y, bw, bh, area = c[:5]
        return 0.55 < bh / bw < 1.8 and area > 0.4 * bw * bh and bw < 0.6 * w and bh < 0.45 * h

    cands = [c for c in comps if pip_like(c)]
    best: list = []
    if cands:
        # every seed's group at once: member c of seed s when their areas, widths and heights are alike
        a = np.array([c[:5] for c in cands], np.float64)
        ra = a[None, :, 4] / a[:, None, 4]
        rw = a[None, :, 2] / a[:, None, 2]
        rh = a[None, :, 3] / a[:, None, 3]
        member = (0.6 < ra) & (ra < 1.67) & (0.75 < rw) & (rw < 1.33) & (0.75 < rh) & (rh < 1.33)
        sizes = member.sum(axis=1)
        first = member.argmax(axis=1)
        b_len, b_first = 0, -1
        for k in range(len(cands)):
            n_k = int(sizes[k])
            if n_k == 0:
                continue
            if n_k > b_len or (n_k == b_len and b_len and cands[first[k]][4] > cands[b_first][4]):
                b_len, b_first, b_seed = n_k, int(first[k]), k
        if b_len:
            best = [c for c, m in zip(cands, member[b_seed], strict=True) if m]
    return best, comps, lab, n


def _pips_of(group: tuple[list, list, np.ndarray, int], ink: np.ndarray, redness: np.ndarray,
             card: np.ndarray) -> Pips | None:
    """``find_pips`` at one ink level, from that level's ``_group`` (``card``: the card itself, for the pips'
    hue)."""
    h, w = ink.shape[:2]
    best, comps, lab, n = group
    if not best or len(best) > 10:
        return None
    ref_area = float(statistics.median([c[4] for c in best]))
    ids = {c[5] for c in best}
    # every other sizeable ink in the field (a picture, text, a merged pair of pips) makes the layout unclear
    stray = sum(c[4] for c in comps if c[5] not in ids and c[4] > 0.25 * ref_area)
    if stray > 0:
        return None
    count = len(best)
    pw = float(statistics.median([c[2] for c in best]))
    if count > 1 and (pw > 0.3 * w or pw < 0.05 * w):
        return None
    # mirror symmetry about the long axis: each pip has a partner (or is its own, in the middle column). The axis
    # and the centre are the layout's own (the middle of its extreme pips: a lone pip's own centre), within 8 % of
    # the card's: an outline a few pixels off (a shadow taken in, a side cut by glare) or a card seen obliquely
    # moves the whole layout off the rectified card's centre, which is no reason to doubt the count
    pts = np.array([[c[6], c[7]] for c in best])
    mid = (pts.min(axis=0) + pts.max(axis=0)) / 2
    if abs(mid[0] - (w - 1) / 2) > 0.08 * w or abs(mid[1] - (h - 1) / 2) > 0.08 * h:
        return None
    mir = pts.copy()
    mir[:, 0] = 2 * mid[0] - mir[:, 0]
    d = np.sqrt(((mir[:, None, :] - pts[None, :, :]) ** 2).sum(-1)).min(axis=1)
    sym = float(d.max()) / pw
    if sym > 0.5:
        return None
    # and a two-way layout is the same turned by 180 degrees (a 7 has one pip without a partner): a card partly
    # covered, or with a pip lost in glare, shows a lopsided layout, not a smaller count
    rot = (2 * mid - pts)[:, None, :]
    unmatched = int((np.sqrt(((rot - pts[None, :, :]) ** 2).sum(-1)).min(axis=1) > 0.5 * pw).sum())
    if unmatched > (1 if count == 7 else 0):
        return None
    # the pips' colour before their glyphs: a layout neither clearly red nor clearly black is none, its glyphs unused
    px, red = _colour(best, lab, n, redness)
    if red is None:
        return None
    upright, glyphs = _glyphs(best, lab, ink)
    if SIDEWAYS_PIPS and count > 1 and sideways(glyphs) > SIDEWAYS:
        return None
    notches = ()
    if count == 1:
        x, y, bw, bh, _, i = best[0][:6]
        notches = _notches((lab[y : y + bh, x : x + bw] == i).view(np.uint8))
    club_notched = 0.0 if red else _club_notched(best, lab)
    share = ink_share(card, px, ink)
    return Pips(count, red, glyphs, upright, _regularity(best), sym, _hueless(share), notches, club_notched, share,
                one_way(glyphs, upright, pts[:, 1] > (h - 1) / 2))


# how much more the pips are alike turned top to bottom than left to right (the mean over them of each one's
# correlation with itself so mirrored, less that with itself mirrored left to right) for them to lie on their sides
# (``sideways``). Upright, the sharp number cards of the 37 aisleriot, drawn and KDE designs (1,098 layouts found, on
# 34 of them) measured at most 0.10 (diamonds, alike either way: about 0), the other suits' -0.2 to -1.4; half a ten
# of hearts, outlined across its middle, 0.72
SIDEWAYS = 0.3
SIDEWAYS_PIPS = True


def sideways(glyphs: np.ndarray) -> float:
    """How much a card's pips (unit glyphs, ``_glyphs``) lie on their sides rather than stand: the mean of their
    top-to-bottom mirror's correlation less their left-to-right mirror's. A heart, a spade and a club are mirrored
    left to right by their upright axis; lying on their sides, top to bottom instead (a diamond both ways: about 0).

    A card's pips stand along its long side, upright or upside down, never across it: a layout of pips on their
    sides is the pips of a card outlined across another's - half a card. The half of a ten is card-shaped and holds
    five pips in a five's layout: dondorf's ten of hearts, its outline split across its middle as a pair of cards
    (seen by a camera tilted 20 degrees, the table's view a size off), had its half named the 5H at 0.983 by the glyph
    reader (``python -m tools.wrong_sweep --themes tune --tilt 20 --first 500450``, scene 500580)."""
    g = glyphs.reshape(-1, PIP_SIZE[1], PIP_SIZE[0])
    # (a mirror only moves a unit glyph's values, so the mirrored glyph is a unit glyph too: a dot product each)
    return float(((g * g[:, ::-1]).sum(axis=(1, 2)) - (g * g[:, :, ::-1]).sum(axis=(1, 2))).mean())


# how much better the upper half's pips match the lower half's turned again than as ``_glyphs`` turned them (the mean
# correlation of their unit glyphs) for the card's pips to stand one way (``one_way``)
ONE_WAY_MARGIN = 0.04
ONE_WAY = True  # (``pip_suit`` judges one-way pips by the discriminant of unknown orientation)


def one_way(glyphs: np.ndarray, upright: np.ndarray, lower: np.ndarray) -> bool:
    """Whether a card's pips stand one way (all pointing the same way on the card), not two ways as a standard
    deck's do (the lower half's turned about): ``_glyphs`` turns the lower half's pips (``lower``, of those off the
    middle row, ``upright``) to stand upright, and on a one-way card that leaves them upside down against the upper
    half's, so that the two halves match better with one of them turned again, by ``ONE_WAY_MARGIN``. Such a card's
    way up is not known from its pips: KDE's oxygen-white (never tuned on) draws every pip standing the same way, and
    a five of clubs cut upside down showed five upside-down clubs, a spade's outline to the suit discriminant (by
    0.52) and to the glyph reader's corner templates alike - named the 5S at 0.989 (generic, a camera tilted 20
    degrees: ``python -m tools.wrong_sweep --themes fresh --tilt 20 --first 500450``, scene 500570). A diamond,
    the same turned about, matches alike both ways: never one way."""
    up, lo = glyphs[upright & ~lower], glyphs[upright & lower]
    if not len(up) or not len(lo):
        return False
    turned = np.array([_turned(g) for g in lo])
    return float((up @ turned.T).mean() - (up @ lo.T).mean()) >= ONE_WAY_MARGIN


def _colour(best: list, lab: np.ndarray, n: int, redness: np.ndarray) -> tuple[np.ndarray, bool | None]:
    """The pixels of the pips ``best`` (``_group``'s components in the label map ``lab`` of ``n`` labels) and
    whether they are red: True, False, or None when they are neither clearly red nor clearly black."""
    is_pip = np.zeros(n, bool)
    is_pip[[c[5] for c in best]] = True
    px = is_pip[lab]
    red_share = float((redness[px] > 40).mean())
    return px, None if 0.2 < red_share < 0.6 else red_share >= 0.6


def _regularity(best: list) -> float:
    """How alike the pips ``best`` are in area: 1 less their areas' spread over their mean."""
    areas = np.array([c[4] for c in best], np.float32)
    return float(1 - areas.std() / areas.mean())


def _glyphs(best: list, lab: np.ndarray, ink: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pips ``best`` (``_group``'s components in the label map ``lab`` of the ink map ``ink``): which of them lie
    off the card's middle row (``Pips.upright``) and their normalised glyphs, turned to stand upright."""
    h = ink.shape[0]
    # a two-way card's pips point away from the middle row: the pips off it (``upright``) are turned to stand
    # upright whichever way round the card lies; the middle row's pips stay ambiguous
    upright = [abs(c[7] - (h - 1) / 2) > MIDDLE * h for c in best]
    glyphs = []
    for c, off in zip(best, upright, strict=True):
        x, y, bw, bh, _, i = c[:6]
        s = max(bw, bh)
        cx, cy = x + bw / 2, y + bh / 2
        x0, y0 = int(round(cx - s / 2)), int(round(cy - s / 2))
        rows, cols = slice(max(y0, 0), y0 + s), slice(max(x0, 0), x0 + s)
        g = np.where(lab[rows, cols] == i, ink[rows, cols], 0)
        if y0 < 0 or x0 < 0:  # (a pip at the card's top or left: the box padded there, as the other sides are cut)
            g = np.pad(g, ((max(-y0, 0), 0), (max(-x0, 0), 0)))
        g = cv2.resize(g.astype(np.float32), PIP_SIZE, interpolation=cv2.INTER_AREA)
        if off and c[7] > (h - 1) / 2:  # (the lower half's pips turned)
            g = g[::-1, ::-1]
        glyphs.append(unit(cv2.GaussianBlur(np.ascontiguousarray(g), (3, 3), 0)))
    return np.array(upright), np.stack(glyphs)


CLUB_NOTCH = 0.06  # a club's third notch (between its leaves) at least this deep; a spade's is a speck (<= 0.03)
HEART_NOTCH = 0.1  # a heart's notch at least this deep; a diamond's sides dip at most 0.06


def notched_suit(p: Pips) -> str:
    """The suit an ace's one pip shows by its notches within its colour's pair (``Pips.notches``; '' for more pips):
    a club's leaves or a spade's plain shoulders, a heart's cleft or a diamond's none. Set on the clean aces of three
    aisleriot designs (spades' third notch 0.025, clubs' 0.14-0.20; hearts' deepest 0.13-0.17, diamonds' 0.04-0.06)."""
    if p.count != 1:
        return ""
    n = p.notches
    if p.red:
        return "H" if n and n[0] >= HEART_NOTCH else "D"
    return "C" if len(n) >= 3 and n[2] >= CLUB_NOTCH else "S"


def club_notched_share(card: np.ndarray) -> float | None:
    """The share of a number card's pips that show a club's third notch (``CLUB_NOTCH`` or deeper, ``_notches``), or
    None where no clean pip layout is found: the pips of the first ink level, of ``find_pips``'s, whose cut gives
    one (so that a level at which pips run into the index, a layout ``find_pips`` itself refuses, is not measured).
    The notches between a club's leaves outlast a blur that makes its pips' whole shape a spade's to the suit
    discriminants (``pip_suit``): KDE's oxygen-air's blurred eight of clubs, matched as the spade, shows them on all
    eight pips (0.11-0.14)."""
    for group, layout in _cuts(card, (INK_LEVEL, *INK_RETRY)):
        if layout is None:
            continue
        best, _, lab, _ = group
        return _club_notched(best, lab)
    return None


def _club_notched(best: list, lab: np.ndarray) -> float:
    """The share of the pips ``best`` (``_group``'s components in the label map ``lab``) that show a club's third
    notch."""
    deep = 0
    for x, y, bw, bh, _, i in (c[:6] for c in best):
        n = _notches((lab[y : y + bh, x : x + bw] == i).view(np.uint8))
        deep += len(n) >= 3 and n[2] >= CLUB_NOTCH
    return deep / len(best)


def _notches(mask: np.ndarray) -> tuple[float, ...]:
    """The depths of a pip's notches - where its outline leaves its convex hull (``cv2.convexityDefects``) - as
    shares of its larger side, deepest first: a spade has two (either side of its stem), a club two more between
    its leaves, a heart one at the top, a diamond none; the same whichever way the pip is turned."""
    contours, _ = cv2.findContours(np.ascontiguousarray(mask), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return ()
    c = max(contours, key=cv2.contourArea)
    if len(c) < 4:
        return ()
    hull = cv2.convexHull(c, returnPoints=False)
    try:
        d = cv2.convexityDefects(c, hull)
    except cv2.error:  # (a hull out of order on a tiny, jagged outline)
        return ()
    if d is None:
        return ()
    size = float(max(mask.shape))
    return tuple(sorted((float(v) / 256 / size for v in d.reshape(-1, 4)[:, 3]), reverse=True))


HUELESS = 0.12  # the largest spread between the channels of a hueless ink, each a share of its paper's


def ink_share(card: np.ndarray, pips: np.ndarray, ink: np.ndarray) -> tuple[float, float, float]:
    """The pips' ink (the mask ``pips``) per channel (B, G, R) as a share of the paper's (where the card shows almost
    no ink, ``ink`` under 10): a light's colour cast cancels against the paper."""
    ink_bgr = np.array(cv2.mean(card, mask=pips.view(np.uint8))[:3])
    paper = np.array(cv2.mean(card, mask=(ink < 10).view(np.uint8))[:3]) + 1.0
    b, g, r = (float(v) for v in ink_bgr / paper)
    return b, g, r


def yellowness(p: Pips) -> float:
    """How far the pips' ink (``Pips.ink``) leans from red toward yellow: 0 for a red that takes the green and the blue
    alike, 1 for a yellow that keeps the green as it keeps the red ((green - blue) / (red - the lesser of them), each a
    share of the paper's); 0 when not measured or when the red is not the ink's largest share. Measured (a session
    script): red pips on the development photos 0.15 at most, on the drawn and aisleriot designs 0.13 at most; a
    four-colour deck's orange or yellow diamonds and a Swiss deck's bells 0.70-0.93."""
    if len(p.ink) != 3:
        return 0.0
    b, g, r = p.ink
    if r <= max(b, g):
        return 0.0
    return (g - b) / (r - min(b, g))


def _hueless(share: tuple[float, float, float]) -> bool:
    """Whether the pips' ink (``ink_share``) is black or grey: its channels all within ``HUELESS`` of one another -
    as ``index_net``'s index ink. A red, blue or green pip keeps one channel much more than another."""
    return max(share) - min(share) < HUELESS


# an ace's field: every sizeable ink component of the field (``_group``, cut at ``INK_LEVEL``) lies inside this box
# (shares of the card's width and height) and the largest covers ``ACE_DESIGN`` of the card at least. A two or a
# three has pips near the field's top and bottom (their tops at 0.1-0.2 of the height), every higher card too, and
# a court's picture runs from about 0.1 to 0.9: none of them fits. An ornate ace (a real deck's ace of spades, with
# its maker's ribbon and lettering) spans 0.12-0.85 of the width and 0.21-0.74 of the height on the development
# photos. Measured (a session script): of the cards the generic mode reads on poker_table, desk and boxes_train,
# 65 of 79 aces fit and none of 586 others; of the drawn decks' straight renders the aces of six designs fit, and
# else only ornamental's heart courts and two decks' jokers (whose corners never read an ace)
ACE_BOX_X = (0.1, 0.9)
ACE_BOX_Y = (0.2, 0.8)
ACE_DESIGN = 0.01


def lone_middle(card: np.ndarray) -> bool:
    """Whether a rectified card's field shows ink only in its middle, as an ace's does (``ACE_BOX_X``, ``ACE_BOX_Y``,
    ``ACE_DESIGN``): the second cue of the generic reader's ace path (``index_net``, 'ace'), where an ornate ace's
    design is no clean pip layout."""
    h, w = card.shape[:2]
    cut = next(_field_cuts(card, (INK_LEVEL,)), None)
    comps = cut[0][1] if cut is not None else []
    if not comps:
        return False
    x0, y0 = min(c[0] for c in comps), min(c[1] for c in comps)
    x1, y1 = max(c[0] + c[2] for c in comps), max(c[1] + c[3] for c in comps)
    return (ACE_BOX_X[0] * w <= x0 and x1 <= ACE_BOX_X[1] * w and ACE_BOX_Y[0] * h <= y0 and y1 <= ACE_BOX_Y[1] * h
            and max(c[4] for c in comps) >= ACE_DESIGN * w * h)


# a loose pip (``loose_pips``) is the card's own when its glyph is this mirror-symmetric about the card's long axis
# (the correlation of the glyph with itself flipped left to right; every suit's pip is symmetric so): a pip of a card
# lying over it at an angle, or cut by that card's edge, or a piece of its picture, is not. Of the pips in the clean
# layouts the generic mode read on poker_table, 95 % measured 0.914 or more (median 0.984); the pips of the cards
# lying on four covered cards there, 0.83 at most but one (a nine of spades lying square on a 4C: 0.986)
LOOSE_MIRROR = 0.9


def loose_pips(card: np.ndarray) -> Pips | None:
    """The field's largest group of alike pip-like shapes (``_group``, cut at ``INK_LEVEL``) that stand square on the
    card (``LOOSE_MIRROR``), two or more, as pips in no layout (``Pips``; ``count`` how many, symmetry and notches
    not measured), or None when there are fewer or their colour is neither clearly red nor clearly black: the pips of
    a card whose layout could not be counted (an outline off the card, a card partly covered), whose shape may still
    name a suit."""
    cut = next(_field_cuts(card, (INK_LEVEL,)), None)
    if cut is None:
        return None
    (best, _, lab, n), ink, redness = cut
    if len(best) < 2:
        return None
    upright, glyphs = _glyphs(best, lab, ink)
    flipped = glyphs.reshape(-1, PIP_SIZE[1], PIP_SIZE[0])[:, :, ::-1].reshape(len(best), -1)
    square = (glyphs * flipped).sum(axis=1) >= LOOSE_MIRROR  # (unit glyphs: the sum is their correlation)
    if square.sum() < 2:
        return None
    best = [c for c, k in zip(best, square, strict=True) if k]
    px, red = _colour(best, lab, n, redness)
    if red is None:
        return None
    share = ink_share(card, px, ink)
    return Pips(len(best), red, glyphs[square], upright[square], _regularity(best), float("nan"), _hueless(share),
                ink=share)


def colourful(card: np.ndarray) -> float:
    """Share of the card's middle (60 % x 60 %) in saturated colours other than red: a court's or joker's
    picture has them, a number card's pips are red or black."""
    h, w = card.shape[:2]
    hsv = cv2.cvtColor(card[int(0.2 * h) : int(0.8 * h), int(0.2 * w) : int(0.8 * w)], cv2.COLOR_BGR2HSV)
    # hue 15-150, saturation > 90, value > 60 (OpenCV's bytes), counted in one pass
    return cv2.countNonZero(cv2.inRange(hsv, (15, 91, 61), (150, 255, 255))) / (hsv.shape[0] * hsv.shape[1])


COUNT_OF_RANK = {r: c for c, r in RANK_OF_COUNT.items()}
SUIT_PAIRS = ("SC", "HD")  # the suits a pip's colour leaves: black, red
LDA_RIDGE = 0.01


@dataclass
class SuitModel:
    """Linear discriminants (Fisher) on pip glyphs, per colour k (0 black: spade + / club -, 1 red: heart + /
    diamond -): ``w[k, 0]`` for upright pips, ``w[k, 1]`` for pips of unknown orientation (trained on both ways);
    ``mid`` and ``half`` put the two class means at +1 and -1."""

    w: np.ndarray
    mid: np.ndarray
    half: np.ndarray


def _turned(g: np.ndarray) -> np.ndarray:
    return np.rot90(g.reshape(PIP_SIZE[1], PIP_SIZE[0]), 2).ravel()


def _fisher(xa: list[np.ndarray], xb: list[np.ndarray]) -> tuple[np.ndarray, float, float]:
    a, b = np.array(xa), np.array(xb)
    ma, mb = a.mean(0), b.mean(0)
    sw = np.cov((a - ma).T) + np.cov((b - mb).T)
    w = np.linalg.solve(sw + LDA_RIDGE * np.eye(len(ma)), ma - mb)
    pa, pb = float(ma @ w), float(mb @ w)
    return w, (pa + pb) / 2, (pa - pb) / 2


def train_suits(samples: list[tuple[str, Pips]]) -> SuitModel | None:
    """The suit discriminants from pips of known suit (the unknown-orientation one counts each pip both ways)."""
    ws, mids, halves = [], [], []
    for a, b in SUIT_PAIRS:
        up = {s: [g for t, p in samples if t == s for g, u in zip(p.glyphs, p.upright, strict=True) if u]
              for s in (a, b)}
        both = {s: [v for t, p in samples if t == s for g in p.glyphs for v in (g, _turned(g))] for s in (a, b)}
        if min(len(up[a]), len(up[b]), len(both[a]), len(both[b])) < 10:
            return None
        rows = [_fisher(up[a], up[b]), _fisher(both[a], both[b])]
        ws.append([r[0] for r in rows])
        mids.append([r[1] for r in rows])
        halves.append([r[2] for r in rows])
    return SuitModel(np.array(ws, np.float32), np.array(mids, np.float32), np.array(halves, np.float32))


def pip_suit(p: Pips, model: SuitModel) -> tuple[str, float]:
    """(suit, margin) of a card's pips: the mean discriminant over the upright pips (over all of them, taken
    either way round, when none is upright - an ace - or when they stand one way, ``one_way``), +-1 at the tuning
    decks' class means; the margin is its distance from the boundary (0 = undecided)."""
    k = 1 if p.red else 0
    # (pips that stand one way, ``one_way``, are of unknown orientation, as an ace's is)
    j = 0 if p.upright.any() and not (ONE_WAY and p.one_way) else 1
    g = p.glyphs[p.upright] if j == 0 else p.glyphs
    m = (float((g @ model.w[k, j]).mean()) - float(model.mid[k, j])) / float(model.half[k, j])
    a, b = SUIT_PAIRS[k]
    return (a if m > 0 else b), abs(m)
