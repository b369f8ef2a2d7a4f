"""What a rectified card is compared by: the face and corner-index features of enrolled templates and queries, and the
accept thresholds measured on the tuning decks (``vision/thresholds.json``)."""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import CH, CW

FACE_SIZE = (30, 42)
CORNER_BOX = (0.0, 0.0, 0.25, 0.30)  # x0, y0, x1, y1 as fractions of the card: the index
SHIFT = 4  # pixels of misalignment searched when matching the corner index
THRESHOLDS_PATH = os.path.join(os.path.dirname(__file__), "thresholds.json")




def _norm(v: np.ndarray) -> np.ndarray:
    v = v.astype(np.float32).ravel()
    v = v - v.mean()
    n = np.linalg.norm(v)
    return v / n if n > 1e-6 else v


def face_feature(card: np.ndarray) -> np.ndarray:
    """Whole face at low resolution, colour kept (hearts vs spades), zero-mean unit-norm."""
    return _norm(_blurred_face(card, FACE_SIZE))


def _blurred_face(card: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The card's face within its 4-pixel rim, blurred and shrunk to ``size``: ``face_feature``'s picture (and, at
    twice its size, the one ``aligned_face`` samples its moves from)."""
    return cv2.resize(cv2.GaussianBlur(card[4:-4, 4:-4], (5, 5), 0), size, interpolation=cv2.INTER_AREA)


# the small moves of a card's face ``aligned_face`` chooses among: scales about its centre, shifts of as many pixels
# of the card's width (a canonical card's, ``vision.geometry.CW``), across and down alike
ALIGN_SCALES = (0.97, 1.0, 1.03)
ALIGN_SHIFTS = (-4, -2, 0, 2, 4)


def aligned_face(card: np.ndarray, towards: np.ndarray) -> np.ndarray:
    """``face_feature`` of ``card`` at the move (``ALIGN_SCALES`` x ``ALIGN_SHIFTS`` x ``ALIGN_SHIFTS``) where it
    correlates best with the face feature ``towards`` (a template's). The moves are compared in grey, a third of the
    pixels, and only the chosen one is sampled in colour."""
    fw, fh = FACE_SIZE
    base = _blurred_face(card, (2 * fw, 2 * fh))
    v = moved_faces(base.mean(axis=2, dtype=np.float32), card.shape[1] - 8).reshape(-1, fw * fh)
    v -= v.mean(axis=1, keepdims=True)
    t = towards.reshape(fh * fw, -1).mean(axis=1)
    k = int(np.argmax((v @ (t - t.mean())) / np.maximum(np.linalg.norm(v, axis=1), 1e-6)))
    mx, my = _align_maps(card.shape[1] - 8)
    rows = slice(k * fh, (k + 1) * fh)
    return _norm(cv2.remap(base, mx[rows], my[rows], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))


def moved_faces(base: np.ndarray, inner_width: int) -> np.ndarray:
    """Every move of ``aligned_face`` sampled from ``base`` (a face blurred at twice ``FACE_SIZE``, of a card whose
    face within its rim is ``inner_width`` pixels wide), in one remap: the moves' faces stacked as rows - scale, then
    shift down, then across."""
    mx, my = _align_maps(inner_width)
    return cv2.remap(base, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


@functools.lru_cache(maxsize=4)
def _align_maps(inner_width: int) -> tuple[np.ndarray, np.ndarray]:
    """Where each pixel of each move's face (``moved_faces``; the moves stacked as rows of faces) samples the blurred
    face at twice the feature's size: output pixel u lies at 2u + 0.5 there (the middle of the 2 x 2 it averages),
    scaled by 1 / s about the face's middle and moved back by the shift."""
    fw, fh = FACE_SIZE
    k = 2 * fw / inner_width  # the card's pixels to the blurred face's
    u, w = np.meshgrid(np.arange(fw, dtype=np.float32), np.arange(fh, dtype=np.float32))
    xs, ys = [], []
    for s in ALIGN_SCALES:
        for dy in ALIGN_SHIFTS:
            for dx in ALIGN_SHIFTS:
                xs.append(fw - 0.5 + (2 * u + 0.5 - (fw - 0.5)) / s - k * dx / s)
                ys.append(fh - 0.5 + (2 * w + 0.5 - (fh - 0.5)) / s - k * dy / s)
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys).astype(np.float32)


def joker_feature(card: np.ndarray) -> np.ndarray:
    """The face at low resolution as ink on paper, for telling the two jokers apart: the card's own paper made white
    first, then its lightness and the two Lab colour channels, zero-mean unit-norm.

    A deck's two jokers often differ only in the colour of their ink (a red and a black JOKER, red and black
    roundels: the drawn bellot, paris and tango), and a camera's colour cast moves exactly that colour; the face
    feature, taken as it comes, told bellot's apart by a margin of 0.28 in enrollment's 16 camera views, under the
    acceptance margin, so its jokers were never named. With this feature the same test, now 32 views under a cast
    of 15 % per channel (``vision.deck.joker_test``), finds them apart by 0.359 at the least."""
    f = card[4:-4, 4:-4].astype(np.float32)
    paper = np.percentile(f[2:-2, 2:-2].reshape(-1, 3), 90, axis=0)
    f = np.clip(f * (235.0 / np.maximum(paper, 20.0)), 0, 255)
    f = cv2.resize(cv2.GaussianBlur(f, (5, 5), 0), FACE_SIZE, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(f / 255.0, cv2.COLOR_BGR2Lab)
    return _norm(np.dstack([(100 - lab[..., 0]) * 2.55, lab[..., 1] * 1.5, lab[..., 2] * 1.5]))


def discriminant(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Where ``x`` lies between ``a`` and ``b`` along their difference: 1 = exactly a, 0 = halfway, < 0 nearer b."""
    d = a - b
    dd = float(d @ d)
    return 2 * float((x - (a + b) / 2) @ d) / dd if dd > 1e-9 else 0.0


def _ink(img: np.ndarray) -> np.ndarray:
    """Two float channels: darkness and redness (the index is black or red ink on a pale card)."""
    f = img.astype(np.float32)
    b, g, r = f[..., 0], f[..., 1], f[..., 2]
    return np.dstack([255 - f.mean(axis=2), np.clip(r - (b + g) / 2, 0, 255) * 1.5])


# where on an upright card the corner templates look for a deck's index: the top-left corner (``CORNER_BOX``), as
# most decks print it, or the whole top strip, for a deck that prints it elsewhere (KDE's oxygen designs: the rank top
# right, the suit top left); enrollment finds which (``vision.deck.index_side``)
INDEX_SIDES = ("left", "top")


def _index_region(card: np.ndarray, side: str, pad: int) -> np.ndarray:
    """The region of ``side`` (``INDEX_SIDES``) the corner templates hold, widened by ``pad`` pixels inward (a
    query, > 0) or narrowed by -``pad`` on its outer edges (a template, < 0); the top strip pads sideways within
    the card."""
    if side not in INDEX_SIDES:
        raise ValueError(f"index side {side!r}: not one of {', '.join(INDEX_SIDES)}")
    bottom = int(CORNER_BOX[3] * CH)
    if side == "top":  # (the strip's right edge is the card's: a query reaches it, a template stops short of it)
        return card[: bottom + pad] if pad >= 0 else card[-pad:bottom, -pad : CW + pad]
    right = int(CORNER_BOX[2] * CW)
    return card[: bottom + pad, : right + pad] if pad >= 0 else card[-pad:bottom, -pad:right]


def corner_query(card: np.ndarray, side: str = "left") -> np.ndarray:
    """The corner region of a detected card, a little larger than the template so small misalignments are searched."""
    return cv2.GaussianBlur(_ink(_index_region(card, side, SHIFT)), (3, 3), 0)


def corner_template(card: np.ndarray, side: str = "left") -> np.ndarray:
    """The corner region of an enrolled card, inset by SHIFT on each side."""
    return cv2.GaussianBlur(_ink(_index_region(card, side, -SHIFT)), (3, 3), 0)


def card_features(card: np.ndarray, side: str = "left") -> tuple[np.ndarray, list[np.ndarray]]:
    """Face features (2, D) and corner queries of a rectified card in both orientations (0 and 180 degrees)."""
    flipped = cv2.rotate(card, cv2.ROTATE_180)
    return (np.stack([face_feature(card), face_feature(flipped)]),
            [corner_query(card, side), corner_query(flipped, side)])


def canonical_card(img: np.ndarray, size: tuple[int, int] = (CW, CH)) -> np.ndarray:
    """An enrolled card image (a scan or a file) to the canonical upright size (or ``size``), corners trimmed like a
    detection."""
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA)




@dataclass
class Thresholds:
    """Acceptance thresholds of one mode: a read is accepted when score >= score and margin >= margin."""

    score: float
    margin: float

    def accept(self, score: float, margin: float) -> bool:
        return score >= self.score and margin >= self.margin


def load_thresholds(path: str = THRESHOLDS_PATH) -> dict[str, Thresholds]:
    """The measured thresholds per mode (``enrolled``, ``generic``); conservative defaults before any tuning."""
    defaults = {"enrolled": Thresholds(0.75, 0.12), "generic": Thresholds(0.8, 0.2)}
    # the generic pip reader's thresholds, per suit it names (``generic_pips_S`` ...): none accepted until tuned
    defaults.update({f"generic_pips_{s}": Thresholds(2.0, 2.0) for s in "SHDC"})
    if not os.path.exists(path):
        return defaults
    with open(path) as f:
        data = json.load(f)
    for mode in ("enrolled", "generic"):
        if mode in data:
            defaults[mode] = Thresholds(float(data[mode]["score"]), float(data[mode]["margin"]))
    for s, th in data.get("generic", {}).get("pips", {}).items():
        defaults[f"generic_pips_{s}"] = Thresholds(float(th["score"]), float(th["margin"]))
    return pair_suit_thresholds(defaults)


# the suits a pip's colour leaves to tell apart: a confusion within a pair can go either way
SUIT_PAIRS = ("SC", "HD")


def pair_suit_thresholds(th: dict[str, Thresholds]) -> dict[str, Thresholds]:
    """The generic pip reader names a suit only past the stricter threshold of its colour pair.

    Tuning measured one direction of a confusion (blurred clubs read as spades: spades need margin 0.43) and none
    the other way, so clubs got 0.1; the first designs nobody had tuned on (aisleriot's anglo and gnomangelo) then
    showed the other direction (an ornate ace of spades read as a club at margins 0.17-0.29). A spade and a club are
    one pair of shapes whichever way the mistake goes, so both need the larger margin (hearts/diamonds likewise)."""
    out = dict(th)
    for pair in SUIT_PAIRS:
        keys = [f"generic_pips_{s}" for s in pair]
        if all(k in out for k in keys):
            strict = Thresholds(max(out[k].score for k in keys), max(out[k].margin for k in keys))
            for k in keys:
                out[k] = strict
    return out
