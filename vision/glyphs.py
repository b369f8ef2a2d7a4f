"""Generic mode: reading the standard corner index (rank glyph above a suit pip) of a deck that was never enrolled.

For each of the two index corners of a rectified card (top-left, and bottom-right seen rotated by 180 degrees):
the ink of the corner region (darkness and redness against the card's paper) is split into connected components;
the rank is the topmost glyph (a '10' is two side-by-side components), the suit pip the component right below it.
The ink colour (red or black) picks the suit group (hearts/diamonds or spades/clubs). Rank and suit glyphs are
normalised to a fixed size and compared by correlation with glyphs cut the same way from the tuning decks' card
images. A corner's reading is (rank, suit, score, margin), where score is the weaker of the two best correlations
and margin the weaker of the two ``(best - rival) / (1 - rival)`` (the share of the way from the best other class
to a perfect match). A card is read only when both corners give the same code; its score and margin are the
smaller of the two corners'. Acceptance thresholds come from the tuning decks (``cardref vision tune``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import cv2
import numpy as np

RANKS = "AKQJT98765432"
RED_SUITS = "HD"
BLACK_SUITS = "SC"
RANK_SIZE = (12, 16)  # w, h of a normalised rank glyph
SUIT_SIZE = (14, 14)
BOX = (0.33, 0.45)  # the index region: fractions of the card's width and height from its corner
SHARPEN = 0.0  # see _glyph
TRIM = 2  # pixels of the card's rim left out
GLYPHS_PATH = os.path.join(os.path.dirname(__file__), "generic_glyphs.npz")


@dataclass
class Index:
    """The two glyphs of one corner: normalised rank and suit images, their aspect ratios, and the ink colour."""

    rank: np.ndarray
    suit: np.ndarray
    rank_aspect: float
    suit_aspect: float
    red: bool


def _unit(v: np.ndarray) -> np.ndarray:
    v = v.astype(np.float32).ravel()
    v = v - v.mean()
    return v / max(float(np.linalg.norm(v)), 1e-6)


def _glyph(ink: np.ndarray, mask: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    g = np.where(mask, ink, 0).astype(np.float32)
    mx = float(g.max())
    if mx > 0:  # the upper half of the ink's range: a blurred glyph keeps its notches (a club's lobes)
        g = np.clip((g - SHARPEN * mx) / ((1 - SHARPEN) * mx), 0, 1)
    g = cv2.resize(g, size, interpolation=cv2.INTER_AREA)
    return _unit(cv2.GaussianBlur(g, (3, 3), 0))


def corner_index(card: np.ndarray) -> Index | None:
    """The index glyphs in the top-left corner of a rectified upright card (BGR), or None when not found clearly."""
    h, w = card.shape[:2]
    crop = card[TRIM : int(BOX[1] * h), TRIM : int(BOX[0] * w)].astype(np.float32)
    b, g, r = crop[..., 0], crop[..., 1], crop[..., 2]
    grey = crop.mean(axis=2)
    paper = float(np.percentile(grey, 80))
    redness = np.clip(r - (g + b) / 2, 0, 255)
    ink = np.maximum(paper - grey, 1.3 * redness)
    if float(ink.max()) < 60:
        return None
    thr = max(35.0, 0.35 * float(np.percentile(ink, 99)))
    binary = (ink > thr).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    ch, cw = binary.shape
    comps = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < 6 or bh < 4:
            continue
        if x == 0 or y == 0 or x + bw >= cw or y + bh >= ch:  # rim, shadow or picture running out of the box
            continue
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
    sx0, sy0, sw, sh, _, si = suit
    # the pip lies right under the rank, centred under it
    rcx, scx = (rx0 + rx1) / 2, sx0 + sw / 2
    if sy0 - ry1 > 0.8 * (ry1 - ry0) or abs(scx - rcx) > 0.6 * max(rx1 - rx0, sw):
        return None
    if sh < 0.3 * (ry1 - ry0) or sh > 1.3 * (ry1 - ry0):
        return None
    rmask = np.isin(lab, [c[5] for c in rank])
    smask = lab == si
    glyph_px = rmask | smask
    red_share = float((redness[glyph_px] > 40).mean())
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

    def save(self, path: str) -> None:
        with open(path, "wb") as f:
            np.savez_compressed(f, rank=self.rank.astype(np.float16), rank_label=np.array(self.rank_label),
                                rank_aspect=self.rank_aspect, suit=self.suit.astype(np.float16),
                                suit_label=np.array(self.suit_label), suit_aspect=self.suit_aspect,
                                decks=np.array(self.decks))

    @staticmethod
    def load(path: str = GLYPHS_PATH) -> GlyphTemplates:
        z = np.load(path)
        return GlyphTemplates(z["rank"].astype(np.float32), [str(x) for x in z["rank_label"]], z["rank_aspect"],
                              z["suit"].astype(np.float32), [str(x) for x in z["suit_label"]], z["suit_aspect"],
                              [str(x) for x in z["decks"]])


def build_templates(decks: dict[str, list[tuple[str, np.ndarray]]]) -> GlyphTemplates:
    """Glyph templates from card images (deck name -> [(code, rectified card image)]), both corners of each."""
    ranks, rl, ra, suits, sl, sa = [], [], [], [], [], []
    for images in decks.values():
        for code, img in images:
            if len(code) != 2 or code[0] not in RANKS or code[1] not in "SHDC":
                continue
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
                          np.array(sa, np.float32), sorted(decks))


def _classify(q: np.ndarray, aspect: float, tpl: np.ndarray, tpl_aspect: np.ndarray, labels: list[str],
              allowed: str) -> tuple[str, float, float]:
    """(best class, its score, margin) by the best correlation per class, aspect-ratio mismatch penalised."""
    s = tpl @ q - 0.5 * np.abs(np.log(np.maximum(tpl_aspect, 1e-3) / max(aspect, 1e-3)))
    best: dict[str, float] = {}
    for lab, v in zip(labels, s, strict=True):
        if lab in allowed and v > best.get(lab, -9.0):
            best[lab] = float(v)
    if len(best) < 2:
        return "?", 0.0, 0.0
    order = sorted(best.items(), key=lambda kv: -kv[1])
    (a, sa), (_, sb) = order[0], order[1]
    return a, sa, (sa - sb) / max(1.0 - sb, 1e-6)


def read_corner(ix: Index, tpl: GlyphTemplates) -> tuple[str, float, float]:
    """(code, score, margin) of one corner's index."""
    rank, rs, rm = _classify(ix.rank, ix.rank_aspect, tpl.rank, tpl.rank_aspect, tpl.rank_label, RANKS)
    suit, ss, sm = _classify(ix.suit, ix.suit_aspect, tpl.suit, tpl.suit_aspect, tpl.suit_label,
                             RED_SUITS if ix.red else BLACK_SUITS)
    return rank + suit, min(rs, ss), min(rm, sm)


def read_card(card: np.ndarray, tpl: GlyphTemplates) -> tuple[str, float, float]:
    """(code, score, margin) of a rectified card from both index corners; score 0 when they disagree or one is
    not found (the code is then the better corner's guess, or '?')."""
    reads = []
    for img in (card, cv2.rotate(card, cv2.ROTATE_180)):
        ix = corner_index(img)
        if ix is not None:
            reads.append(read_corner(ix, tpl))
    if not reads:
        return "?", 0.0, 0.0
    reads.sort(key=lambda r: -r[1])
    if len(reads) < 2 or reads[0][0] != reads[1][0]:
        return reads[0][0], 0.0, 0.0
    return reads[0][0], min(r[1] for r in reads), min(r[2] for r in reads)
