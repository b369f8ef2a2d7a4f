"""Generic mode: reading the standard corner index (rank glyph above a suit pip) of a deck that was never enrolled.

For each of the two index corners of a rectified card (top-left, and bottom-right seen rotated by 180 degrees):
the ink of the corner region (darkness and redness against the card's paper) is split into connected components;
the rank is the topmost glyph (a '10' is two side-by-side components), the suit pip the component right below it.
The ink colour (red or black) picks the suit group (hearts/diamonds or spades/clubs). Rank and suit glyphs are
normalised to a fixed size and compared by correlation with glyphs cut the same way from the tuning decks' card
images. A corner's reading is (rank, suit, score, margin), where score is the weaker of the two best correlations
and margin the weaker of the two ``(best - rival) / (1 - rival)`` (the share of the way from the best other class
to a perfect match). A card is read only when both corners give the same code; its score and margin are the
smaller of the two corners'. ``read_generic`` is the generic mode's reader: number cards by their pips
(``vision.pips``) with the corner index as the second cue, courts by the corner index alone. Acceptance thresholds
come from the tuning decks (``cardref vision tune``).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

import cv2
import numpy as np

from vision import pips as pipslib
from vision.quantiles import percentile

RANKS = "AKQJT98765432"
RED_SUITS = "HD"
BLACK_SUITS = "SC"
RANK_SIZE = (12, 16)  # w, h of a normalised rank glyph
SUIT_SIZE = (14, 14)
BOX = (0.33, 0.45)  # the index region: fractions of the card's width and height from its corner
SHARPEN = 0.0  # see _glyph
TRIM = 2  # pixels of the card's rim left out
INK_SHARE = 0.35  # ink threshold as a share of the corner's strongest ink (99th percentile)
CONTRADICTS = 0.3  # a corner whose best other rank beats the pips' rank by this much contradicts it
COURTS = "JQK"
# a pip layout whose outline cuts pips in two (``pips.cut_by_outline``) names no card: the pips are counted on part of
# the card (``read_generic``)
CUT_PIPS_UNSURE = True
PICTURE = 0.04  # share of colourful pixels in the card's middle above which it has a picture (tuning decks:
# number cards <= 0.02, courts of four of the five designs mostly above)
GLYPHS_PATH = os.path.join(os.path.dirname(__file__), "generic_glyphs.npz")


@dataclass
class Index:
    """The two glyphs of one corner: normalised rank and suit images, their aspect ratios, and the ink colour."""

    rank: np.ndarray
    suit: np.ndarray
    rank_aspect: float
    suit_aspect: float
    red: bool


_unit = pipslib.unit


def _glyph(ink: np.ndarray, mask: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    g = np.where(mask, ink, 0).astype(np.float32)
    mx = float(g.max())
    if mx > 0:  # the upper half of the ink's range: a blurred glyph keeps its notches (a club's lobes)
        g = np.clip((g - SHARPEN * mx) / ((1 - SHARPEN) * mx), 0, 1)
    g = cv2.resize(g, size, interpolation=cv2.INTER_AREA)
    return _unit(cv2.GaussianBlur(g, (3, 3), 0))


def ink_components(ink: np.ndarray) -> np.ndarray:
    """The glyphs of an ink map as a binary image, each mark cut at a share of its own darkest ink.

    One threshold for the whole corner (a share of its strongest ink) loses a thin, pale rank glyph printed beside
    a big saturated pip (a red '9' next to a heart in a photo: its strokes are a pixel or two wide, its ink half the
    pip's). Marks are found at a low threshold, and each is then cut at INK_SHARE of its own peak; a mark whose
    peak is weak beside the strongest ink is paper texture or a shadow, not print."""
    top = percentile(ink, 99)
    low = (ink > max(30.0, 0.15 * top)).astype(np.uint8)
    n, lab, stats, _ = pipslib.components(low)
    # each mark's peak ink at once: the largest ink over the pixels of each label
    peak = np.full(n, -np.inf, np.float32)
    np.maximum.at(peak, lab.ravel(), ink.ravel())
    peak[0] = np.inf
    keep = peak >= max(35.0 / INK_SHARE, 0.3 * top)
    return ((ink > INK_SHARE * peak[lab]) & keep[lab]).astype(np.uint8)


@dataclass
class IndexMarks:
    """Where the index glyphs of a corner lie: the corner's ink map and its labelled marks (``ink``, ``redness``,
    ``lab``; the crop starts ``trim`` pixels into the card), the rank's marks and box ``(x0, y0, x1, y1)``, and the
    suit pip's mark (``(x, y, w, h, area, label)``)."""

    ink: np.ndarray
    redness: np.ndarray
    lab: np.ndarray
    trim: int
    rank: list[tuple[int, int, int, int, int, int]]
    rank_box: tuple[int, int, int, int]
    suit: tuple[int, int, int, int, int, int]


def index_marks(card: np.ndarray) -> IndexMarks | None:
    """The index glyphs' marks in the top-left corner of a rectified upright card (BGR), or None when not found
    clearly (``corner_index`` reads them)."""
    h, w = card.shape[:2]
    trim = max(TRIM, round(TRIM * w / 120))  # the rim is a share of the card, read at whatever size
    crop = card[trim : int(BOX[1] * h), trim : int(BOX[0] * w)].astype(np.float32)
    b, g, r = crop[..., 0], crop[..., 1], crop[..., 2]
    grey = (b + g + r) / 3  # (``crop.mean(axis=2)``: sums of bytes are exact in float32)
    paper = percentile(grey, 80)
    redness = np.clip(r - (g + b) / 2, 0, 255)
    ink = np.maximum(paper - grey, 1.3 * redness)
    if float(ink.max()) < 60:
        return None
    binary = ink_components(ink)
    n, lab, stats, _ = pipslib.components(binary)
    ch, cw = binary.shape
    comps = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < 6 or bh < 4:
            continue
        if x + bw >= cw or y + bh >= ch:  # picture or centre pips running out of the box
            continue
        if (x == 0 or y == 0) and (bw > 3 * bh or bh > 3 * bw or area < 0.3 * bw * bh or area < 0.015 * cw * ch):
            continue  # a piece of the rim or its shadow (a glyph printed close to the edge may touch it)
        if bw > 0.8 * cw or bh > 0.5 * ch:
            continue
        comps.append((int(x), int(y), int(bw), int(bh), int(area), i))
    if len(comps) < 2:
        return None
    comps.sort(key=lambda c: c[1])
    top = comps[0]
    # the rank: the topmost component, plus any component beside it at the same height (the '1' and '0' of a 10)
    rank = [top]
    for c in comps[1:]:
        overlap = min(top[1] + top[3], c[1] + c[3]) - max(top[1], c[1])
        if overlap > 0.6 * min(top[3], c[3]) and c[0] < top[0] + top[2] + 4 and c[0] + c[2] > top[0] - 4:
            rank.append(c)
    rx0 = min(c[0] for c in rank)
    ry0 = min(c[1] for c in rank)
    rx1 = max(c[0] + c[2] for c in rank)
    ry1 = max(c[1] + c[3] for c in rank)
    rest = [c for c in comps if c not in rank and c[1] >= ry1 - 1]
    if not rest:
        return None
    suit = rest[0]
    sx0, sy0, sw, sh, _, _ = suit
    # the pip lies right under the rank, centred under it
    rcx, scx = (rx0 + rx1) / 2, sx0 + sw / 2
    if sy0 - ry1 > 0.8 * (ry1 - ry0) or abs(scx - rcx) > 0.6 * max(rx1 - rx0, sw):
        return None
    if sh < 0.3 * (ry1 - ry0) or sh > 1.3 * (ry1 - ry0):
        return None
    return IndexMarks(ink, redness, lab, trim, rank, (rx0, ry0, rx1, ry1), suit)


def corner_index(card: np.ndarray) -> Index | None:
    """The index glyphs in the top-left corner of a rectified upright card (BGR), or None when not found clearly."""
    m = index_marks(card)
    if m is None:
        return None
    ink, lab = m.ink, m.lab
    rx0, ry0, rx1, ry1 = m.rank_box
    sx0, sy0, sw, sh, _, si = m.suit
    is_rank = np.zeros(int(lab.max()) + 1, bool)
    is_rank[[c[5] for c in m.rank]] = True
    rmask = is_rank[lab]
    smask = lab == si
    glyph_px = rmask | smask
    red_share = float((m.redness[glyph_px] > 40).mean())
    if 0.25 < red_share < 0.75:  # neither clearly red nor clearly black
        return None
    rank_img = _glyph(ink[ry0:ry1, rx0:rx1], rmask[ry0:ry1, rx0:rx1], RANK_SIZE)
    suit_img = _glyph(ink[sy0 : sy0 + sh, sx0 : sx0 + sw], smask[sy0 : sy0 + sh, sx0 : sx0 + sw], SUIT_SIZE)
    return Index(rank_img, suit_img, (rx1 - rx0) / (ry1 - ry0), sw / sh, red_share >= 0.75)


@dataclass
class GlyphTemplates:
    """Reference glyphs: rank images (N, D) with their rank letters, suit images (M, D) with their suit letters."""

    rank: np.ndarray
    rank_label: list[str]
    rank_aspect: np.ndarray
    suit: np.ndarray
    suit_label: list[str]
    suit_aspect: np.ndarray
    decks: list[str]
    pip_suits: pipslib.SuitModel | None = None

    def save(self, path: str) -> None:
        extra = {}
        if self.pip_suits is not None:
            extra = {"pip_w": self.pip_suits.w, "pip_mid": self.pip_suits.mid, "pip_half": self.pip_suits.half}
        with open(path, "wb") as f:
            np.savez_compressed(f, rank=self.rank.astype(np.float16), rank_label=np.array(self.rank_label),
                                rank_aspect=self.rank_aspect, suit=self.suit.astype(np.float16),
                                suit_label=np.array(self.suit_label), suit_aspect=self.suit_aspect,
                                decks=np.array(self.decks), **extra)

    @staticmethod
    def load(path: str = GLYPHS_PATH) -> GlyphTemplates:
        z = np.load(path)
        model = _suit_model(z)
        return GlyphTemplates(z["rank"].astype(np.float32), [str(x) for x in z["rank_label"]], z["rank_aspect"],
                              z["suit"].astype(np.float32), [str(x) for x in z["suit_label"]], z["suit_aspect"],
                              [str(x) for x in z["decks"]], model)


def _suit_model(z: np.lib.npyio.NpzFile) -> pipslib.SuitModel | None:
    return pipslib.SuitModel(z["pip_w"], z["pip_mid"], z["pip_half"]) if "pip_w" in z else None


@functools.lru_cache(maxsize=4)
def pip_suit_model(path: str = GLYPHS_PATH) -> pipslib.SuitModel | None:
    """The pips' suit discriminants of the shipped glyph templates, alone (an npz member is read only when asked
    for: the enrolled mode's fallback and the learned reader use these without the glyphs)."""
    with np.load(path) as z:
        return _suit_model(z)


def build_templates(decks: dict[str, list[tuple[str, np.ndarray]]]) -> GlyphTemplates:
    """Glyph templates from card images (deck name -> [(code, rectified card image)]), both corners of each."""
    ranks, rl, ra, suits, sl, sa = [], [], [], [], [], []
    pip_sets: list[tuple[str, pipslib.Pips]] = []
    for images in decks.values():
        for code, img in images:
            if len(code) != 2 or code[0] not in RANKS or code[1] not in "SHDC":
                continue
            if code[0] in pipslib.COUNT_OF_RANK:
                p = pipslib.find_pips(img)
                if p is not None and pipslib.RANK_OF_COUNT[p.count] == code[0] and p.red == (code[1] in RED_SUITS):
                    pip_sets.append((code[1], p))
            for card in (img, cv2.rotate(img, cv2.ROTATE_180)):
                ix = corner_index(card)
                if ix is None or ix.red != (code[1] in RED_SUITS):
                    continue
                ranks.append(ix.rank)
                rl.append(code[0])
                ra.append(ix.rank_aspect)
                suits.append(ix.suit)
                sl.append(code[1])
                sa.append(ix.suit_aspect)
    return GlyphTemplates(np.stack(ranks), rl, np.array(ra, np.float32), np.stack(suits), sl,
                          np.array(sa, np.float32), sorted(decks), pipslib.train_suits(pip_sets))


def _class_scores(q: np.ndarray, aspect: float, tpl: np.ndarray, tpl_aspect: np.ndarray, labels: list[str],
                  allowed: str) -> dict[str, float]:
    """The best correlation per class, aspect-ratio mismatch penalised."""
    # einsum, not ``@``: a multithreaded BLAS spinning on a shared 2-core machine made this 6x slower (measured)
    s = np.einsum("ij,j->i", tpl, q) - 0.5 * np.abs(np.log(np.maximum(tpl_aspect, 1e-3) / max(aspect, 1e-3)))
    best: dict[str, float] = {}
    for lab, idx in _label_index(labels).items():
        if lab in allowed:
            best[lab] = float(s[idx].max())
    return best


_INDEX_CACHE: dict[int, tuple[list[str], dict[str, np.ndarray]]] = {}


def _label_index(labels: list[str]) -> dict[str, np.ndarray]:
    """The template rows of each class (cached per label list: the per-read loop over thousands of templates was
    most of a read's time)."""
    hit = _INDEX_CACHE.get(id(labels))
    if hit is None or hit[0] is not labels:
        arr = np.array(labels)
        hit = (labels, {str(lab): np.flatnonzero(arr == lab) for lab in sorted(set(labels))})
        _INDEX_CACHE[id(labels)] = hit
    return hit[1]


def _classify(q: np.ndarray, aspect: float, tpl: np.ndarray, tpl_aspect: np.ndarray, labels: list[str],
              allowed: str) -> tuple[str, float, float]:
    """(best class, its score, margin) by the best correlation per class, aspect-ratio mismatch penalised."""
    best = _class_scores(q, aspect, tpl, tpl_aspect, labels, allowed)
    if len(best) < 2:
        return "?", 0.0, 0.0
    order = sorted(best.items(), key=lambda kv: -kv[1])
    (a, sa), (_, sb) = order[0], order[1]
    return a, sa, (sa - sb) / max(1.0 - sb, 1e-6)


def read_corner(ix: Index, tpl: GlyphTemplates, ranks: str = RANKS) -> tuple[str, float, float]:
    """(code, score, margin) of one corner's index, its rank one of ``ranks``."""
    rank, rs, rm = _classify(ix.rank, ix.rank_aspect, tpl.rank, tpl.rank_aspect, tpl.rank_label, ranks)
    suit, ss, sm = _classify(ix.suit, ix.suit_aspect, tpl.suit, tpl.suit_aspect, tpl.suit_label,
                             RED_SUITS if ix.red else BLACK_SUITS)
    return rank + suit, min(rs, ss), min(rm, sm)


def read_card(card: np.ndarray, tpl: GlyphTemplates, ranks: str = RANKS) -> tuple[str, float, float]:
    """(code, score, margin) of a rectified card from both index corners; score 0 when they disagree or one is
    not found (the code is then the better corner's guess, or '?')."""
    reads = []
    for img in (card, cv2.rotate(card, cv2.ROTATE_180)):
        ix = corner_index(img)
        if ix is not None:
            reads.append(read_corner(ix, tpl, ranks))
    if not reads:
        return "?", 0.0, 0.0
    reads.sort(key=lambda r: -r[1])
    if len(reads) < 2 or reads[0][0] != reads[1][0]:
        return reads[0][0], 0.0, 0.0
    return reads[0][0], min(r[1] for r in reads), min(r[2] for r in reads)


@dataclass
class GenericRead:
    """A generic-mode reading: ``path`` is 'pips' (number card: pip count + pip suit, the index not contradicting)
    or 'index' (both corner indices agreeing); ``label`` may be '?'; score 0 means no reading to accept."""

    label: str
    score: float
    margin: float
    path: str
    pips: pipslib.Pips | None = None  # the pips counted, on the 'pips' path
    ranked: bool = False  # a corner found reads the pips' count as its best rank ('pips' path)


@dataclass
class Corner:
    """One index corner's reading: per-rank scores, the suit and its margin, the ink colour."""

    ranks: dict[str, float]
    suit: str
    suit_margin: float
    red: bool

    def against(self, rank: str) -> float:
        """How strongly this corner says the rank is not ``rank``: ``(best - s) / (1 - s)`` with s the score of
        ``rank`` and best the best other rank's (<= 0 when ``rank`` is its best reading)."""
        s = self.ranks.get(rank, -1.0)
        other = max((v for r, v in self.ranks.items() if r != rank), default=-1.0)
        return (other - s) / max(1.0 - s, 1e-6)


def _corners(card: np.ndarray, tpl: GlyphTemplates) -> list[Corner]:
    """The reading of each index corner found (top-left, then bottom-right)."""
    out = []
    for img in (card, cv2.rotate(card, cv2.ROTATE_180)):
        ix = corner_index(img)
        if ix is None:
            continue
        ranks = _class_scores(ix.rank, ix.rank_aspect, tpl.rank, tpl.rank_aspect, tpl.rank_label, RANKS)
        suit, _, sm = _classify(ix.suit, ix.suit_aspect, tpl.suit, tpl.suit_aspect, tpl.suit_label,
                                RED_SUITS if ix.red else BLACK_SUITS)
        out.append(Corner(ranks, suit, sm, ix.red))
    return out


def read_generic(card: np.ndarray, tpl: GlyphTemplates, index_card: np.ndarray | None = None) -> GenericRead:
    """Read a rectified card without an enrolled deck.

    A card whose central field is a clean pip layout (``vision.pips``) is a number card: its rank is the pip count,
    its suit the pips' colour and shape. The corner index is the second, independent cue: a corner that is found
    must have the pips' colour and not clearly prefer another rank (``Corner.against`` < CONTRADICTS), and a lone
    pip (an ace) needs a corner whose best rank is 'A' (a court's letter or emblem can look like one centred pip).
    The suit needs both cues: at least one corner found and every corner found reading the pips' suit (a blurred
    club's pips alone can look like a spade's, and a heart's like a diamond's). Score = the pips' size regularity,
    margin = the smaller of the pips' suit discriminant's distance from its boundary and the corners' suit
    margins; and no pip may be cut in two by the outline (``pips.cut_by_outline``: the card goes on past it).
    ``ranked`` says whether a corner found reads the count as its best rank (the caller asks it of a card the finder
    found partly covered, whose count may be short).
    Any other card is read from its two corner indices alone (``read_card``), which must agree,
    and only a court (J, Q, K) is named that way: a number card without a clean pip layout is not named.

    ``index_card`` is the same card rectified at a multiple of the canonical size, when the camera saw it that
    large: the corner index's strokes are a pixel or two wide at the canonical size (a red '9' then falls under the
    ink threshold set by the big pip beside it) and are read from it; the pips are read at the canonical size."""
    ic = card if index_card is None else index_card
    p = pipslib.find_pips(card) if tpl.pip_suits is not None else None
    if p is None or tpl.pip_suits is None:
        # a court's picture is colourful (blue, yellow, green), a number card's ink never is: then its index can
        # only be J, Q or K (a joker's picture is colourful too: the tuning reads include jokers)
        picture = pipslib.colourful(card) > PICTURE
        label, score, margin = read_card(ic, tpl, COURTS if picture else RANKS)
        if label[0] not in COURTS:  # a number card is named only from its pips, the index being the second cue
            score, margin = 0.0, 0.0
        return GenericRead(label, score, margin, "index")
    rank = pipslib.RANK_OF_COUNT[p.count]
    suit, margin = pipslib.pip_suit(p, tpl.pip_suits)
    corners = _corners(ic, tpl)
    ok = all(c.red == p.red and c.against(rank) < CONTRADICTS for c in corners)
    if rank == "A" and not any(c.against(rank) <= 0 for c in corners):
        ok = False
    # the suit from two cues as well: every corner found reads the pips' suit, and the margin is the weaker one
    if not (corners and all(c.suit == suit for c in corners)):
        ok = False
    else:
        margin = min(margin, min(c.suit_margin for c in corners))
    if ok and CUT_PIPS_UNSURE and pipslib.cut_by_outline(card):
        ok = False  # (the outline cuts pips in two: the card goes on past it, and its count is only a lower bound)
    ranked = any(c.against(rank) <= 0 for c in corners)
    return GenericRead(rank + suit, p.regularity if ok else 0.0, margin if ok else 0.0, "pips", p, ranked)
