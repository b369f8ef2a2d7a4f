"""The learned corner-index reader: a small convolutional network (``index_net.onnx``) run with OpenCV's ``cv2.dnn``.

A rectified upright card (any size, the 120 x 170 canonical one or a multiple) has its standard index in the
top-left corner and again, turned by 180 degrees, in the bottom-right. Each of the two corners is cut
(``corner_input``: the same share of the card at any size), turned colourless and normalised, and classified into a
rank (A, K, Q, J, T, 9 .. 2, or '-' = no index there) and a suit (S, H, D, C, or '-'). The input has no colour:
each pixel is the darkest of its three channels (red, blue, green or black ink on pale paper all come out dark), then
the crop is scaled to zero mean and unit spread, so a suit is named by the shape of its sign and never by its colour
(four-colour decks: blue diamonds, green clubs), and the training recoloured the suits besides.

``read_corners`` reads both corners and says whether they agree. The network is trained by
``cardref vision train`` (``tools/train_index.py``: synthetic camera views of drawn and aisleriot designs and the
development desk photos, deterministic seeds); the ONNX file it writes is what is checked in.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.pips import HEART_NOTCH, NUMBER_RANKS, Pips, SuitModel, components, notched_suit, pip_suit, yellowness
from vision.quantiles import percentile

MODEL_PATH = os.path.join(os.path.dirname(__file__), "index_net.onnx")
RANKS = "AKQJT98765432-"  # '-': no index in this corner (a picture, a joker, a back, the table)
SUITS = "SHDC-"
BOX = (0.34, 0.46)  # the corner cut: fractions of the card's width and height (the index and a little round it)
INPUT_W, INPUT_H = 32, 56  # the network's input, pixels


def corner_size(shape: tuple[int, ...]) -> tuple[int, int]:
    """(rows, columns) of the index corner cut of a card of ``shape`` (rows, columns, ...)."""
    h, w = shape[:2]
    return max(2, int(round(BOX[1] * h))), max(2, int(round(BOX[0] * w)))


def corner_input(card: np.ndarray) -> np.ndarray:
    """The top-left corner of a rectified upright card (BGR, any size) as the network's input: (INPUT_H, INPUT_W)
    float32, colourless (darkest channel), zero mean and unit spread."""
    ch, cw = corner_size(card.shape)
    return _net_input(card[:ch, :cw])


def _net_input(crop: np.ndarray) -> np.ndarray:
    """A corner cut (BGR or grey) as the network's input (``corner_input``)."""
    dark = cv2.min(cv2.min(crop[..., 0], crop[..., 1]), crop[..., 2]) if crop.ndim == 3 else crop
    small = cv2.resize(dark.astype(np.float32), (INPUT_W, INPUT_H), interpolation=cv2.INTER_AREA)
    small -= float(small.mean())
    return small / max(float(small.std()), 8.0)


def both_corners(card: np.ndarray) -> np.ndarray:
    """The network input of both index corners (top-left, then bottom-right turned upright): (2, 1, H, W)."""
    ch, cw = corner_size(card.shape)
    h, w = card.shape[:2]
    # (the bottom-right corner cut first, then turned: the same pixels as cutting the turned card)
    turned = cv2.rotate(card[h - ch :, w - cw :], cv2.ROTATE_180)
    return np.stack([_net_input(card[:ch, :cw]), _net_input(turned)])[:, None]


@dataclass
class CornerRead:
    """One corner's reading: the most likely rank and suit ('-' = no index) and the probability of each."""

    rank: str
    suit: str
    p_rank: float
    p_suit: float
    rank_probs: np.ndarray
    suit_probs: np.ndarray
    width: float = 0.0  # how wide the corner's sharpest edges are, in the network's input pixels (``edge_width``)

    @property
    def is_index(self) -> bool:
        return self.rank != "-" and self.suit != "-"

    @property
    def covered(self) -> bool:
        """Whether the corner surely shows nothing, neither rank nor suit (``COVERED``): a card, a hand or the
        photo's edge lies over it."""
        return self.rank == "-" and self.suit == "-" and min(self.p_rank, self.p_suit) >= COVERED


@dataclass
class IndexRead:
    """Both corners' reading of a card. ``rank``/``suit`` are the joint best reading ('-' when neither corner shows
    an index); ``p_rank``/``p_suit`` the smaller probability of that reading over the corners that show an index;
    ``agree`` whether two corners show an index and read the same; ``corners`` the two corner readings;
    ``suit_share`` the probability of ``suit`` the corners give together (their suit probabilities multiplied and
    normalised over the four suits; 0 when no corner shows an index)."""

    rank: str
    suit: str
    p_rank: float
    p_suit: float
    agree: bool
    corners: list[CornerRead]
    suit_share: float = 0.0

    @property
    def code(self) -> str:
        return self.rank + self.suit

    @property
    def seen(self) -> int:
        """How many corners show an index."""
        return sum(c.is_index for c in self.corners)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def load_onnx(path: str, what: str) -> cv2.dnn.Net:
    """A network checked in as an ONNX file, loaded with ``cv2.dnn``; a missing file is named (``what`` model)."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"{what} model not found: {path} (make it with `cardref vision train`)")
    # OpenCV 5's default engine ran these small networks 20-30 % slower on one core than its classic engine (the
    # corner index 1.28 -> 1.01 ms for two corners, the finder 13.1 -> 8.9 ms a frame), with outputs within 2e-5;
    # the classic engine is OpenCV 4's only one, so both versions give the same numbers
    engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    return cv2.dnn.readNetFromONNX(path) if engine is None else cv2.dnn.readNetFromONNX(path, engine=engine)


class IndexNet:
    """The corner-index network loaded from its ONNX file (``cv2.dnn``; one thread, a few ms per card)."""

    def __init__(self, path: str = MODEL_PATH) -> None:
        self.net = load_onnx(path, "corner-index")
        self.path = path

    def probs(self, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank and suit probabilities (N, 14) and (N, 5) of a batch of inputs (N, 1, H, W)."""
        self.net.setInput(np.ascontiguousarray(batch, np.float32))
        rank_logits, suit_logits = self.net.forward(["rank", "suit"])
        return _softmax(rank_logits.reshape(len(batch), -1)), _softmax(suit_logits.reshape(len(batch), -1))

    def read_corners(self, card: np.ndarray) -> IndexRead:
        """Read both index corners of a rectified upright card (BGR, the canonical size or a multiple of it)."""
        return self.read_corners_batch([card])[0]

    def read_corners_batch(self, cards: list[np.ndarray]) -> list[IndexRead]:
        """``read_corners`` of several cards in one pass of the network (one pass costs little more than one card)."""
        inputs = np.concatenate([both_corners(c) for c in cards])
        pr, ps = self.probs(inputs)
        widths = [edge_width(x) for x in inputs]
        return [_joint(pr[2 * i : 2 * i + 2], ps[2 * i : 2 * i + 2], widths[2 * i : 2 * i + 2])
                for i in range(len(cards))]


def edge_width(inp: np.ndarray) -> float:
    """How many pixels the sharpest edges of a corner's network input (``_net_input``) take to rise from its ink to
    its paper: the spread of its values (3rd to 97th percentile) over its steepest gradients (the 98th percentile of
    the gradient's size). A sharp index edge rises in one or two pixels; a Gaussian blur of sigma s (in the input's
    pixels) makes it about 2.5 s wide. Measured on the input, so the same for a card of any size in the frame: a card
    seen small is as blurred to the reader as a large one out of focus."""
    g = np.ascontiguousarray(inp.reshape(INPUT_H, INPUT_W), np.float32)
    # (Sobel's 3 x 3 kernel weighs the central difference by 4 and spans two pixels: / 8 makes it a slope per pixel)
    mag = cv2.magnitude(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)) / 8
    steep = percentile(mag, 98)
    return (percentile(g, 97) - percentile(g, 3)) / steep if steep > 1e-6 else 0.0


def _joint(pr: np.ndarray, ps: np.ndarray, widths: list[float] | None = None) -> IndexRead:
    """One card's reading from its two corners' rank and suit probabilities (and their inputs' ``edge_width``)."""
    corners = []
    for k, (r, s) in enumerate(zip(pr, ps, strict=True)):
        ri, si = int(r.argmax()), int(s.argmax())
        corners.append(CornerRead(RANKS[ri], SUITS[si], float(r[ri]), float(s[si]), r, s,
                                  0.0 if widths is None else widths[k]))
    shown = [c for c in corners if c.is_index]
    if not shown:
        return IndexRead("-", "-", 0.0, 0.0, False, corners)
    # the joint reading: the product of the corners' probabilities (both corners show the same card)
    # (one corner or two: np.prod of their rows is that row, or the one product of the two)
    jr, js = shown[0].rank_probs[:-1], shown[0].suit_probs[:-1]
    if len(shown) == 2:
        jr, js = jr * shown[1].rank_probs[:-1], js * shown[1].suit_probs[:-1]
    rank, suit = RANKS[int(jr.argmax())], SUITS[int(js.argmax())]
    p_rank = min(float(c.rank_probs[RANKS.index(rank)]) for c in shown)
    p_suit = min(float(c.suit_probs[SUITS.index(suit)]) for c in shown)
    agree = len(shown) == 2 and all(c.rank == rank and c.suit == suit for c in shown)
    total = float(js.sum())
    return IndexRead(rank, suit, p_rank, p_suit, agree, corners, float(js.max()) / total if total > 0 else 0.0)


_SHARED: dict[str, IndexNet] = {}


def shared(path: str = MODEL_PATH) -> IndexNet:
    """One loaded network per model file for the process (loading takes a few ms; the readers share it)."""
    if path not in _SHARED:
        _SHARED[path] = IndexNet(path)
    return _SHARED[path]


def read_corners(card: np.ndarray) -> IndexRead:
    """``IndexNet.read_corners`` with the shipped model."""
    return shared().read_corners(card)


# ---------------------------------------------------------------- the generic reader's decision

COURTS = "JQK"
RED, BLACK = "HD", "SC"
# before tuning: one corner alone names nothing, nor do two corners of a number card without its pips
NET_THRESHOLDS = {"two": 0.99, "one": 1.01, "court": 0.99, "corners": 1.01, "partial": 0.9, "court_one": 1.01,
                  "number_one": 1.01, "ace": 0.9}
# the 'partial' path: a number card with no clean pip layout whose field shows a group of alike pips that fits the
# corners' rank (``_group_fits``): a high card with a shadow or an object across part of it, or two pips run
# together. The group is a second cue, weaker than a count (it bounds the rank from below) but one a blurred low
# card, the case that set the corners' floor (a 3 read as a 2), cannot give: so the corners need only the floor
# of the other paths (``FLOOR`` of tools/train_index.py, 0.9). The tuning views take this path when their pips are
# withheld and a group is still seen (239 reads in the shipped ``index_net.json``, none wrong: its floor). The
# 'court_one' path (a court by one corner, the other showing no index) names nothing until tuned, nor does the
# 'number_one' path (a number card by one corner, the other covered, its pips not counted).
# The 'ace' path: both corners read an ace, no clean pip layout was found, and the field shows ink only in its
# middle (``pips.lone_middle``): an ornate ace of spades, which every real deck has and which the 'corners' path
# (0.97) left unsure on the development photos, scoring 0.88-0.94 (each corner 0.88-0.99; poker_table train_23,
# train_27, desk q3, q15). Its ink must show a colour (not '?'; else the 'corners' path decides), the suit's only
# other check. The field is its second cue as the group is the 'partial' path's: no two or three (whose blurred
# index set the corners' floor) and no court fits it, so the floor of the other paths (0.9), until a training tunes
# it.
ACE_PATH = True
# the paths whose suit no pip checks, only the corners and the ink's colour: a court's picture, an ornate ace's design
PICTURE_PATHS = ("court", "ace")
# a number card named by its two corners alone ('corners') does not show exactly one alike pip-like shape more than
# its rank has pips (``read_pips``' group): aisleriot tarocco's motion-blurred three of clubs, its three pips seen
# alike but in no clean layout, was named the 2C by both corners at 0.97 and 0.97 (scene 500594, generic, found by
# ``python -m tools.wrong_sweep --themes tune --first 500450``) - the blurred index read one rank low that set the
# corners' floor. Only one more: a club's leaves come apart into alike shapes of their own, and paris's right 4C
# and 6C showed 6, 7 and 9 (scenes 500527, 500531, 500584), which any larger group would have left unsure. Not an
# ace: an ornate ace's design holds many alike shapes (3-9 on the development photos)
GROUP_BOUNDS_RANK = True
PARTIAL_MIN = 5
PARTIAL_MISSING = 4
REPORT_PATH = os.path.splitext(MODEL_PATH)[0] + ".json"  # written by the training beside the model: its thresholds


# the paths where the pips were counted: the count checks the rank, so the corners' rank has its own threshold
# (``<path>_rank``), while the suit - which only the corners name - keeps the path's
PIP_PATHS = ("two", "one")


def load_thresholds(path: str = REPORT_PATH) -> dict[str, float]:
    """The reader's probability thresholds per path (and per pip path its rank's, ``two_rank``...), as chosen on the
    tuning themes by ``cardref vision train``."""
    import json

    th = dict(NET_THRESHOLDS)
    if os.path.exists(path):
        with open(path) as f:
            for k, v in json.load(f).get("thresholds", {}).items():
                th[k] = float(v["threshold"])
                if "rank_threshold" in v:
                    th[k + "_rank"] = float(v["rank_threshold"])
    return th


def accepts(read: NetRead, thresholds: dict[str, float]) -> bool:
    """Whether the generic reader names the card: its cues agree, and each probability clears its path's threshold
    (on a pip path the rank's own, the suit the path's; elsewhere both the path's)."""
    if read.score <= 0 or read.path == "none":
        return False
    t = thresholds.get(read.path, 2.0)
    if read.path in PIP_PATHS:
        return read.p_suit >= t and read.p_rank >= thresholds.get(read.path + "_rank", t)
    return read.score >= t


def ink_colour(card: np.ndarray, corner: int = 0) -> str:
    """The colour of the index ink of a rectified card's top-left corner (``corner`` 1: the bottom-right, turned
    upright), against its paper: 'red', 'black' (no hue), 'other' (blue, green...: a four-colour deck) or '?' (too
    little ink to say).

    Each channel of the darkest tenth of the corner is divided by the same channel of its paper (the light half), so
    a colour cast of the light cancels; red ink keeps much more red than green or blue, black ink keeps them alike."""
    h, w = card.shape[:2]
    ch, cw = int(BOX[1] * h), int(BOX[0] * w)
    return corner_colour(card[:ch, :cw] if corner == 0 else cv2.rotate(card[h - ch :, w - cw :], cv2.ROTATE_180))


def _colour_corner(ir: IndexRead) -> int:
    """The corner whose ink speaks for a reading: the bottom-right when it alone shows an index, else the top-left.
    (The other corner, covered, may hold another card's ink: poker_table train_26's jack of diamonds, read by its
    bottom-right corner, took the colour of the club court lying over its top-left one.)"""
    return 1 if [c.is_index for c in ir.corners] == [False, True] else 0


def corner_colour(corner: np.ndarray) -> str:
    """``ink_colour`` of the top-left corner cut itself (BGR).

    The corner of a court holds part of its picture too, often with black lines and red, blue or yellow robes, and
    its darkest pixels may be the picture's rather than the index's (a red queen's index read as black ink). So the
    colour is first taken from the index alone - the ink's blobs that end inside the corner (the picture runs on
    past its edges) and begin in its left half (``_index_ink``) - and, where that says neither red nor black, from
    the darkest pixels of the whole corner."""
    crop = np.ascontiguousarray(corner)
    b, g, r = cv2.split(crop)
    dark = cv2.min(cv2.min(b, g), r)
    lo, hi = percentile(dark, 10), percentile(dark, 60)  # (np.percentile's values, in a quarter of its time)
    if hi - lo < 40:
        return "?"
    # (OpenCV's masked means: the same numbers as numpy's boolean indexing, in a fifth of the time)
    paper = np.array(cv2.mean(crop, mask=(dark >= hi).view(np.uint8))[:3]) + 1.0
    index = _index_ink(dark, (lo + hi) / 2)
    if index is not None:
        # the darker part of the index's blobs (their rims are paper blended in)
        sel = (index & (dark <= percentile(dark[index], 40))).view(np.uint8)
        ink = np.array(cv2.mean(crop, mask=sel)[:3]) / paper
        colour = "red" if _pale_red(ink) else _hue(ink)
        if colour in ("red", "black"):
            return colour
    return _hue(np.array(cv2.mean(crop, mask=(dark <= lo).view(np.uint8))[:3]) / paper)


INDEX_LEFT = 0.5  # an index's blobs begin left of this share of the corner cut's width (``_index_ink``)


def _index_ink(dark: np.ndarray, level: float) -> np.ndarray | None:
    """The pixels of the ink blobs (darker than ``level``) that lie wholly inside the corner cut and begin in its left
    part (``INDEX_LEFT``: every index stands there; a piece of a court's picture cut off by its frame can lie wholly
    inside the corner too, right of the index - poker_table train_10's king of spades' red robe), or None."""
    ink = (dark < level).view(np.uint8)
    n, labels, stats, _ = components(ink)
    h, w = ink.shape
    x, y, bw, bh, area = (stats[:, i] for i in range(5))
    inside = (x + bw < w - 1) & (y + bh < h - 1) & (area >= 0.002 * h * w)
    inside &= x < INDEX_LEFT * w
    inside[0] = False  # (the background)
    if not inside.any():
        return None
    return inside[labels]


def _pale_red(ink: np.ndarray) -> bool:
    """Whether an index's ink (per channel a share of its paper's, B, G, R) is a red too pale for ``_hue``: it takes
    away at least a tenth of the green and the blue, and at most half as much of the red. A washed-out webcam frame
    leaves a red index only 6-25 % darker than its paper (boxes/train cam_image47's jack of hearts: 0.83, 0.75, 0.94),
    under ``_hue``'s bar, and its court's corner then fell back on the picture's grey lines: black, and unsure."""
    db, dg, dr = (1.0 - float(v) for v in ink)
    return min(db, dg) >= 0.1 and dr <= 0.5 * min(db, dg)


def _hue(ink: np.ndarray) -> str:
    """'red', 'black' or 'other' of an ink's colour as a share of its paper's, per channel (B, G, R)."""
    b, g, r = (float(v) for v in ink)
    if r - max(b, g) > 0.2:
        return "red"
    if max(b, g, r) - min(b, g, r) < 0.12:
        return "black"
    return "other"


def colour_allows(colour: str, suit: str) -> bool:
    """Shape names the suit; a colour that says otherwise makes it unsure (red ink is a heart or a diamond, hueless
    ink a spade or a club; blue or green ink may be any suit of a four-colour deck).

    The colour only vetoes. Weighing the network's suit among the two of the ink's colour (dropping the mass it put
    on the other two, when the corners already named a suit of that colour) was tried in session 13: the
    development photos read 6 more cards, but the tuning decks and the aisleriot themes read 4 wrong that the
    thresholds, chosen on the unweighed probabilities, had kept out (a neoclassical AS as AC, an orell 8S as 6D,
    swiss-xvii's 6D and 7D as hearts)."""
    if colour == "red":
        return suit in RED
    if colour == "black":
        return suit in BLACK
    return True


@dataclass
class NetRead:
    """The generic reader's answer: ``label`` (a code, or '?'), ``score`` (the weakest probability behind it, 0 when
    the cues disagree), ``path`` ('two': a number card whose pips and two corners agree; 'one': pips and the one
    corner seen; 'court': a court's two corners; 'court_one': a court's one corner in view, the other showing no
    index; 'number_one': a number card's one corner in view, the other covered, no pips counted; 'corners': a number
    card's two corners where no clean pip layout was found - pips cut by glare or a shadow; 'partial': so, with a
    group of alike pips that fits the rank; 'ace': an ace's two corners and a field with ink only in its middle, an
    ornate ace), the corner reading itself, and the smallest
    probability of the rank and of the suit over the corners that show them (0 when the cues disagree; the suit's
    may be both corners' joint one, ``_suit_probability``)."""

    label: str
    path: str
    index: IndexRead | None
    p_rank: float = 0.0
    p_suit: float = 0.0
    pips: object | None = None  # the ``vision.pips.Pips`` found on the card, or None
    colour: str = "?"  # the index ink's colour (``ink_colour``)
    group: int = 0  # with no pip layout: the most alike pip-like shapes seen, ten or fewer (``vision.pips.read_pips``)
    # with no pip layout and an ace in a corner of the first reading: ink only in the field's middle (``lone_middle``;
    # not asked where neither first corner read an ace, so a reading again that finds one takes the 'corners' path)
    middle: bool = False
    # with no pip layout and one corner in view in the first reading, naming a number card: the suit the field's
    # alike pip-like shapes standing square in it name by their shape (``vision.pips.loose_pips``, ``loose_suit``),
    # '' when none do clearly (a reading again on the 'number_one' path keeps its first cut's index corner)
    shape: str = ""
    every: int = 0  # with no pip layout: the alike pip-like shapes seen at every ink level, however many

    @property
    def score(self) -> float:
        """The weakest probability behind the reading (0 when the cues disagree)."""
        return min(self.p_rank, self.p_suit)


def read_generic(card: np.ndarray, index_card: np.ndarray | None = None, pips: object | None = None,
                 net: IndexNet | None = None, ir: IndexRead | None = None) -> NetRead:
    """Read a rectified card without an enrolled deck from two independent cues.

    Number cards (a clean pip layout, ``vision.pips``): the pip count gives the rank, and the learned corner index
    must read that rank and a suit, in every corner that shows an index. Courts (no pip layout): both corners must
    show an index and read the same J, Q or K and suit, or one corner alone by a stricter threshold when the other
    shows no index at all (covered); a number card whose pip layout was not found likewise, by
    its own (stricter) threshold. The ink's colour must not contradict the suit's shape. The
    score is the smallest probability of the reading over the corners (a suit both corners name, where the ink names
    its pair, by their joint probability: ``_suit_probability``); the thresholds (``NET_THRESHOLDS``, chosen on
    the tuning themes) decide per path. ``index_card``: the card rectified at twice the size, when the frame has
    the pixels; ``pips``: the ``vision.pips.Pips`` of the card (found here when not given; False: read as if no pip
    layout had been found); ``ir``: the network's reading of its corners, when already made for a batch of cards
    (``IndexNet.read_corners_batch``)."""
    from vision import pips as pipslib

    ic = card if index_card is None else index_card
    if ir is None:
        ir = (net or shared()).read_corners(ic)
    if ir.seen == 0:
        return NetRead("?", "none", ir)
    # (the pips' glyphs too: their shape is a third look at the suit, ``pips_refuse``)
    p, group, every = (pips, 0, 0) if pips is not None else pipslib.read_pips(card)
    # (asked only of a card an ace may be: it costs a cut of the card's ink)
    middle = (not isinstance(p, pipslib.Pips) and any(c.rank == "A" for c in ir.corners)
              and pipslib.lone_middle(card))
    # (asked only where ``_decide`` weighs it: a number card named by its one corner in view, with no pip layout)
    shape = (loose_suit(pipslib.loose_pips(card)) if LOOSE_SHAPE and not isinstance(p, pipslib.Pips)
             and ir.seen == 1 and ir.rank in pipslib.NUMBER_RANKS else "")
    return _decide(ir, p, ink_colour(ic, _colour_corner(ir)), group, middle, shape, every)


SETTLED = 0.97  # a corner read at least this surely (rank and suit) is not cut again by ``reread_generic``
COVERED = 0.9  # a lone unsure corner that shows no index at least this surely is covered, not cut off


def read_cuts(cuts: list[np.ndarray], net: IndexNet | None = None) -> list[tuple[str, float, str, float]]:
    """The network's best rank and suit, with their probabilities, of each corner cut in ``cuts`` (BGR, upright),
    in one pass."""
    pr, ps = (net or shared()).probs(np.stack([_net_input(c) for c in cuts])[:, None])
    kr, ks = pr.argmax(axis=1), ps.argmax(axis=1)
    return [(RANKS[a], float(pr[i, a]), SUITS[b], float(ps[i, b])) for i, (a, b) in enumerate(zip(kr, ks, strict=True))]


def corners_to_reread(first: NetRead) -> list[int]:
    """The corners (0: top-left, 1: bottom-right) worth cutting again after ``first`` named nothing: those not
    read surely (both, when both were and still disagree). No corner when the one unsure corner surely shows no index:
    another card or a hand lies on it, and no outline uncovers it (on the development photos none of 27 such cards
    was read from another outline)."""
    assert first.index is not None
    corners = first.index.corners
    unsure = [i for i, c in enumerate(corners) if not (c.is_index and min(c.p_rank, c.p_suit) >= SETTLED)]
    if len(unsure) == 1 and corners[unsure[0]].covered:
        return []
    return unsure or [0, 1]


def reread_generic(first: NetRead, cuts: list[dict[int, np.ndarray]], net: IndexNet | None = None) -> list[NetRead]:
    """``read_generic`` of a card again, after its first reading ``first`` named nothing, with some of its index
    corners cut anew by other outlines: ``cuts`` holds per outline the new corner cuts (BGR; 0: top-left, 1: the
    bottom-right turned upright); a corner not cut again keeps its first reading, and the pips are those found the
    first time (an outline a few per cent off cuts off an index corner, not the pips in the middle). One pass of the
    network reads them all."""
    net = net or shared()
    assert first.index is not None
    pr, ps = net.probs(np.stack([_net_input(c) for cut in cuts for c in cut.values()])[:, None])
    out, j = [], 0
    pips = first.pips if first.pips is not None else False
    for cut in cuts:
        rank_probs = [c.rank_probs for c in first.index.corners]
        suit_probs = [c.suit_probs for c in first.index.corners]
        for i in cut:
            rank_probs[i], suit_probs[i] = pr[j], ps[j]
            j += 1
        # (the blur is the card's, measured on the first cut: a cut from an outline a few per cent larger takes in
        # the card's edge and the table, whose steeper edges make a blurred index look sharp - KDE standard's
        # blurred JS of scene 500057, 3.7 on its first cut, 2.9 on the larger one)
        ir = _joint(np.stack(rank_probs), np.stack(suit_probs), [c.width for c in first.index.corners])
        # the colour of the corner that speaks for this reading: cut anew, or as first measured, or not known
        k = _colour_corner(ir)
        if k in cut:
            colour = corner_colour(cut[k])
        elif _colour_corner(first.index) == k:
            colour = first.colour
        else:
            colour = "?"
        out.append(NetRead("?", "none", ir) if ir.seen == 0 else _decide(ir, pips, colour, first.group, first.middle,
                                                                       first.shape, first.every))
    return out


def _decide(ir: IndexRead, p: object, colour: str, group: int = 0, middle: bool = False, shape: str = "",
            every: int = 0) -> NetRead:
    """``read_generic``'s decision from the corners' reading ``ir``, the pips ``p`` (a ``vision.pips.Pips`` or not),
    the index ink's colour and, with no pip layout, the largest group of alike pip-like shapes (``group``, ten or
    fewer; ``every``: seen at every ink level, however many), whether the field's ink lies only in its middle
    (``middle``, an ace's field) and the suit those shapes name by their shape (``shape``, ``loose_suit``)."""
    from vision import pips as pipslib

    shown = [c for c in ir.corners if c.is_index]
    same = all(c.rank == ir.rank and c.suit == ir.suit for c in shown)
    ok = same and colour_allows(colour, ir.suit)
    if isinstance(p, pipslib.Pips):
        rank = pipslib.RANK_OF_COUNT[p.count]
        ok = ok and ir.rank == rank and not (p.red and ir.suit not in RED)
        if ir.seen == 1 and colour not in ("red", "black"):
            # one corner names the suit, and the ink's colour does not back it (blue or green ink, or too little to
            # tell): then the other corner must show no index at all (glare, a shadow, the photo's edge). A rank
            # there whose suit the network cannot name is an index it does not know: a Swiss deck's seven of
            # shields, its one readable corner taken for a heart at 0.96 (aisleriot swiss-xvii, in 150 reads)
            ok = ok and all(c.rank == "-" for c in ir.corners if not c.is_index)
        if ir.seen == 1 and any(c.covered for c in ir.corners if not c.is_index):
            ok = ok and ir.p_rank >= COVERED_PIPS_RANK_P  # (``COVERED_PIPS_RANK_P``)
        ok = ok and not pips_refuse(p, ir.suit, ir.seen == 1) and not _blurred_black_refuse(p, ir.suit, blurred(ir))
        return NetRead(rank + ir.suit, "two" if ir.seen == 2 else "one", ir, ir.p_rank if ok else 0.0,
                       _suit_probability(ir, colour, p) if ok else 0.0, p, colour)
    if ir.seen == 1 and (ir.rank in COURTS or ir.rank in pipslib.COUNT_OF_RANK):
        # one index in view, no pip layout: the other corner must be covered (``CornerRead.covered``); the corner
        # alone then names the card, by a threshold of its own per path (its tuning reads are in ``index_net.json``).
        # A court ('court_one'): on the development photos the courts read surely in one corner, the other covered,
        # were the largest group of whole cards left unsure. A suit read in the other corner without a rank is a
        # letter the network does not know as J, Q or K, and such a letter in the one corner can look like one:
        # aisleriot rheinland's jack (German B) read as a king at 0.99 by one corner, '-H' by the other (twice in
        # 150 reads when only a blank rank was required there).
        # A number card ('number_one'): it lies partly under another (a player's two cards, a trick's pile), its pips
        # hidden with its other corner. On poker_table the cards found and left unsure were mostly such cards, 42 of
        # them read right by that one corner at 0.9 or more and none wrong. (The alike pip-like shapes in its outline
        # are not counted against the rank: they are mostly the pips of the card lying on it - train_13's covered ace
        # of spades holds four of the five of hearts'; only those standing square in it may speak against the suit,
        # ``LOOSE_SHAPE``)
        ok = ok and all(c.covered for c in ir.corners if not c.is_index)
        if ir.rank in pipslib.NUMBER_RANKS and shape and shape != ir.suit and (shape in RED) == (ir.suit in RED):
            ok = False  # (``LOOSE_SHAPE``)
        if ir.rank in COURTS and max(group, every if COURT_ONE_GROUP_UNCAPPED else 0) >= COURT_ONE_GROUP:
            ok = False  # (``COURT_ONE_GROUP``)
        # (``middle`` kept for a reading again, which may find the other corner's index)
        return NetRead(ir.code, "court_one" if ir.rank in COURTS else "number_one", ir, ir.p_rank if ok else 0.0,
                       ir.p_suit if ok else 0.0, None, colour, group, middle, shape, every)
    # no pip layout: a court, or a number card whose pips were not found, is named only by both corners agreeing
    # (the other corner is then the second cue; a number card has its own threshold, since its pips could have
    # been counted and were not)
    ok = ok and ir.agree
    # (an ace's ink must show a colour, its suit's only other check: boxes_train IMG_2434's ornate ace of spades
    # under the bench's blur, its ink too faint for a colour, was read as the AD by both corners at 0.92 and 0.89;
    # such an ace is left to the 'corners' path, as before the 'ace' path - cam_image18's is named there at 0.976)
    path = ("court" if ir.rank in COURTS else "partial" if _group_fits(ir.rank, group)
            else "ace" if ACE_PATH and middle and ir.rank == "A" and colour != "?" else "corners")
    if _blurred_black_picture_refuse(path, ir.suit, ir.p_suit, blurred(ir)):
        ok = False  # (``BLURRED_BLACK_COURT_P``: an ace's design, like a court's picture, has no pips to check)
    if GROUP_BOUNDS_RANK and path == "corners" and ir.rank in NUMBER_RANKS:
        ok = ok and group != pipslib.COUNT_OF_RANK[ir.rank] + 1  # (``GROUP_BOUNDS_RANK``)
    p_suit = _suit_probability(ir, colour) if path in PICTURE_PATHS else ir.p_suit
    return NetRead(ir.code, path, ir, ir.p_rank if ok else 0.0, p_suit if ok else 0.0, None, colour, group, middle,
                   shape, every)


# a number card read by its pips and one corner ('one') whose other corner surely shows nothing (``CornerRead.covered``:
# a hand or another card lies over it) is named only when that corner gives the rank at least this surely: whatever
# hides the corner may hide pips too, so the count is no second look at the rank. The path's own rank bar (0.5,
# ``two_rank``/``one_rank`` in ``index_net.json``) holds where the other corner shows an index it cannot read (glare,
# a shadow). Aisleriot lattmann's six of spades, its top third under a hand and outlined to the hand's edge, showed
# four pips in a clean four's layout, and its one corner read a 4 at 0.51: it was named the 4S (scene 501116,
# ``python -m tools.wrong_sweep --themes held --first 501050``). Measured (a session script): the development photos'
# accepted reads on this path give the rank at 0.95 or more; of those of 40 scenes of each tuning design (57), one
# with a covered corner gave it under 0.9. Cost over the tuning sweep of scenes 500450-599: 3 of 11,324 right reads
# (bellot's 4S, slavic_costumes' 6S, simplistic's 6H, each partly covered, its corner's rank 0.6-0.8)
COVERED_PIPS_RANK_P = 0.9


def count_unbacked(n: NetRead) -> bool:
    """Whether ``n`` is a number card named from its pip layout by one corner in view that gives its rank under
    ``COVERED_PIPS_RANK_P``: the pips then carry the rank, which they cannot where part of the card is hidden (a
    corner covered, ``_decide``; or the card outlined partly covered, which the caller knows from the finder)."""
    from vision import pips as pipslib

    return (n.path == "one" and isinstance(n.pips, pipslib.Pips) and n.index is not None
            and n.index.p_rank < COVERED_PIPS_RANK_P)


# a court named by its one corner in view ('court_one') whose field shows this many alike pip-like shapes or more
# (``vision.pips.read_pips``'s group) is unsure: it is more likely a number card from seven up, its outline off the
# card so that its other corner looked covered. KDE's jolly-royal ten of hearts half under a hand, outlined a fifth too
# tall, was named the KH at 0.972 by the corner the outline cut through its "10" (scene 500941 of
# ``python -m tools.wrong_sweep --themes fresh --first 500900``); its field showed 8 hearts. The courts this path reads
# right mostly show groups of 6 at most: on the development photos (a session script), and in 60 scenes of each tuning
# and KDE design (51 reads). Cost over the tuning sweep of scenes 500450-599: 1 of 11,325 right reads (anglo_bitmap's
# queen of hearts, whose picture holds 7 alike hearts). At 8 that one would be kept, but a ten or a nine with two of
# its pips hidden shows 7 or 8. (A court read by both corners may show more - up to 9 on the photos, a picture's
# ornaments - and keeps its two looks at the index)
COURT_ONE_GROUP = 7
# ... or more than ten at every ink level ``read_pips`` cut (``NetRead.every``), which the rank's bound counts as none:
# the pips of more than one card, an outline that took in a pile. KDE's jolly-royal nine of spades on a trick's pile,
# the pile outlined whole (its envelope 1.6 cards' area, a hand across it), was named the KH at 0.974 by the corner
# where the king's index showed (scene 502898, ``python -m tools.wrong_sweep --themes fresh --first 502850``); its
# field held 11 alike shapes at each of the three levels (the nine's spades, two of the 4C's clubs). At one level
# is not enough: boxes_train IMG_2616's queen of clubs, lying whole, shows 13 in her patterned gown at one level and
# 1 at the others
COURT_ONE_GROUP_UNCAPPED = True
# how clearly a card's pips must name, by their shape, the other suit of their colour to refuse the corners' suit
# (``pips_refuse``)
PIP_SHAPE_BAR = 0.3
# A number card named by its one corner ('number_one') is refused when the alike pip-like shapes in its field that
# stand square in it (``vision.pips.loose_pips``, ``pips.LOOSE_MIRROR``: no layout, so perhaps its own pips, perhaps
# those of a card lying square over it) are of its suit's colour and name the other suit of the pair by their shape
# (``loose_suit``). Its one corner is the only look at the suit sign, and a blur can turn a spade into a club:
# aisleriot neoclassical_4_color's 3S on top of a pile, its outline a fifth of its width off (its far corner, on the
# card's own paper, taken as covered; its pips off the middle, so not counted), was named the 3C at 0.97 (scene
# 500488, generic, found by ``python -m tools.wrong_sweep --themes tune --first 500450``); its two pips named the
# spade by a margin of 1.55. A card of the other suit of the same colour lying square over it can refuse a right
# reading: a loss, never a wrong read
LOOSE_SHAPE = True


def loose_suit(p: Pips | None) -> str:
    """The suit pips in no layout (``vision.pips.loose_pips``) name by their shape, at least ``PIP_SHAPE_BAR``
    clearly (``pips.pip_suit``, within the pair of their colour: pips not red, a four-colour deck's blue or green too,
    are judged as spade or club); '' when there are none or the shape is unclear."""
    model = _pip_suits()
    if p is None or model is None:
        return ""
    named, margin = pip_suit(p, model)
    return named if margin >= PIP_SHAPE_BAR else ""


# A card whose index corners' edges are this wide or wider (``edge_width``, the mean over the corners that show an
# index; a sharp index measures 2-3) is blurred: a blur that smudges a club's leaves into a spade's shoulders (or a
# spade's into a club's) smudges both corners' sign alike and the pips' outline too, and then the network names the
# other black suit by both corners at 0.90-0.98. Over the generic mode's accepted reads of 150 of the bench's scenes
# of KDE's designs (never tuned on, ``tools/kde_decks.py``) four black cards were named wrong so, at widths 3.4-3.9:
# jolly-royal's 4C as 4S (scene 500108), standard's JS as JC twice (500057, 500070) and its AS as AC (500106). The
# tuning designs' right reads of black courts had a mean width of 3.0 at the median, 3.5 at the 90th percentile.
BLURRED_WIDTH = 3.25
# a blurred black court is named by its two corners only at this probability of its suit or more (the court path's
# own threshold is 0.9), and on another outline only at ``recognise.BLURRED_BLACK_REREAD_P``: the two jacks of
# spades above were named clubs at 0.90 and 0.92, and scene 500057's at 0.936 on the finder's second outline of it.
# Cost, over the tuning designs' accepted reads at 150 scenes each (10,851 right): 50 of their 1,168 black courts
# (the readings of those read on their first outline; the sweeps measure the whole: ``docs/vision.md``); KDE's, 3 of
# 106. Since session 53 0.97: standard's blurred JS (widths 3.6 and 3.5) was named the JC at 0.967 by both corners
# on its first outline (scene 503774, ``python -m tools.wrong_sweep --themes fresh --first 503750``). Over the
# accepted blurred black picture reads of scenes 500450-599 (a session script) the band 0.95-0.97 held 45 right reads
# of the tuning designs (of 873 black picture reads), 3 of the held-out designs' and 2 of KDE's; from 503750 KDE's
# band held that wrong read and 1 right one. The designs nothing was trained on are the measure: there the band is
# not sure
BLURRED_BLACK_COURT_P = 0.97
# a blurred spade number card whose pips show a club's leaves on this share of them or more is unsure
# (``_blurred_black_refuse``): since session 50 one pip in ten, any of them (0.5 before). KDE's jolly-royal's blurred
# clubs named spades with one of their four or eight pips notched (0.12-0.25: scenes 501739, 501855, 502419 and 502770
# of ``python -m tools.wrong_sweep --themes fresh``, at 0.908-0.97); blurred, its spades showed none in 37 of 38 right
# reads. Cost measured on the tuning designs first (a session script logging every accepted blurred black number
# card, scenes 500450-599): of their right blurred spades (number cards) 7 of about 110 show a notched pip
# (slavic_costumes 4, atlasnye 3: designs that draw notched spades)
BLURRED_CLUB_NOTCHED = 0.1


def blurred(ir: IndexRead) -> bool:
    """Whether the corners that show an index are blurred (``BLURRED_WIDTH``)."""
    return _blurred_widths([c.width for c in ir.corners if c.is_index])


def _blurred_widths(widths: list[float]) -> bool:
    """Whether corners of these edge widths (``edge_width``) are blurred: their mean is ``BLURRED_WIDTH`` or more."""
    return bool(widths) and sum(widths) / len(widths) >= BLURRED_WIDTH


def _blurred_black_picture_refuse(path: str, suit: str, p_suit: float, is_blurred: bool) -> bool:
    """Whether a blurred black card read by its picture paths (a court, an ornate ace: no pips to check the suit)
    is unsure: its suit short of ``BLURRED_BLACK_COURT_P``."""
    return path in PICTURE_PATHS and suit in BLACK and is_blurred and p_suit < BLURRED_BLACK_COURT_P


def blurred_as_cut(n: NetRead, read_cut: Callable[[], IndexRead]) -> bool:
    """Whether the blurred-black rules refuse the reading ``n`` of a card relit (``recognise.Recogniser._read_relit``)
    once its blur is judged on the card as cut (``read_cut``: the network's reading of it before relighting, asked
    only for a black card whose relit corners measured sharp). Relighting evens the paper out; it takes no blur away,
    yet it moves the edges that ``edge_width`` measures: KDE's standard jack of spades (never tuned on), blurred at
    widths 3.3-3.4 as cut and refused as the JC at 0.70 (``BLURRED_BLACK_COURT_P``), measured 3.25 relit and was
    named the JC at 0.909 (scene 501771 of the generic sweep at 501650)."""
    if n.label[1:] not in BLACK or n.index is None or blurred(n.index) or not blurred(read_cut()):
        return False
    if n.path in PICTURE_PATHS:
        return _blurred_black_picture_refuse(n.path, n.label[1:], n.p_suit, True)
    return isinstance(n.pips, Pips) and _blurred_black_refuse(n.pips, n.index.suit, True)


def _blurred_black_refuse(p: Pips, suit: str, is_blurred: bool) -> bool:
    """Whether a blurred black number card's pips keep a club's cue that the named ``suit`` denies (named by the
    corners, or by the glyph reader: ``glyph_pips_refuse``; ``is_blurred``: the card is, ``BLURRED_WIDTH``): then it
    is unsure. The notches between a club's leaves outlast a blur that makes a club's outline a spade's (to the
    corners and to ``pips.pip_suit``): blurred as the bench blurs, the tuning designs' clubs showed them on half
    their pips or more in 157 of 187 number cards, their spades in none (a session script: the deck images resized
    to the canonical card, Gaussian blur of sigma 2.5).

    - A spade number card whose pips show a club's leaves on ``BLURRED_CLUB_NOTCHED`` of them or more (KDE's
      jolly-royal's 4C, named the 4S at 0.95: three of its four pips). Sharp, some designs draw spades with such
      notches (plastic, slavic_costumes, atlasnye, jolly-royal): the rule is for blurred cards only, where a spade's
      fine notches are gone. Cost over the tuning designs' reads at 150 scenes: 6 of 10,851 at a share of 0.5; at
      one pip in ten since session 50, ``BLURRED_CLUB_NOTCHED``.
    - An ace of clubs whose pip shows a spade's plain shoulders (``pips.notched_suit``; KDE standard's ornate AS,
      named the AC at 0.83, its pip's outline a club's to the discriminant). Cost over those reads: none."""
    if suit not in BLACK or not is_blurred:
        return False
    if suit == "S":
        return p.count > 1 and p.club_notched >= BLURRED_CLUB_NOTCHED
    return p.count == 1 and notched_suit(p) == "S"


def glyph_pips_refuse(label: str, p: Pips | None, ir: IndexRead) -> bool:
    """Whether the blurred-black rules (``_blurred_black_refuse``) refuse a number card the glyph reader named from
    its pips ``p`` (``vision.glyphs.read_generic``) where the network saw no index in the corners ``ir``; the blur is
    then judged on all corners' edges (``BLURRED_WIDTH``), there being no index to judge it on. KDE's jolly-royal
    (never tuned on) writes its ten's "10" in a face the network does not take for an index: its blurred TC (corners
    4.0-4.1 wide, five of its ten pips showing a club's leaves) was named the TS at 0.909 by the glyph reader, its
    pips' discriminant and its corner templates both taking the smudged clubs for spades (generic sweep at 501800,
    scene 501832). Over the glyph reader's accepted black pip reads of the tuning, held-out and KDE sweeps at 500450
    (150 scenes each; a session script) there was one other, a right one: tango's 4S, none of its pips notched."""
    return p is not None and _blurred_black_refuse(p, label[1:], _blurred_widths([c.width for c in ir.corners]))


# the share of a corner's suit probability that, given to the other suit of a colour's pair by both corners, denies a
# suit the glyph reader named where the network saw no index (``corners_lean_from``)
LEAN_FROM = 0.1


def corners_lean_from(ir: IndexRead, suit: str) -> bool:
    """Whether both corners, though they show no index the network knows, give the other suit of ``suit``'s colour
    pair at least ``LEAN_FROM`` and more than ``suit``: then a suit the glyph reader named there (a design unlike
    any the network was trained on, ``vision.glyphs``) is unsure. The glyph reader's pips and corner templates are
    one kind of look at a suit sign, and a blur that makes a club's pips a spade's to one makes them a spade's to the
    others: the held-out tango's blurred, partly covered 3C was named the 3S (scene 500097, 0.96) while both corners
    gave the club 0.23-0.29 and the spade 0.03. Over the glyph reader's accepted reads of 150 scenes of the held-out
    drawn designs and KDE's (546 right, most of ornamental and nicu-white) no other read was so denied."""
    ij = _pair_indices(suit)
    if ij is None:
        return False
    i, j = ij
    return all(c.suit_probs[j] >= LEAN_FROM and c.suit_probs[j] > c.suit_probs[i] for c in ir.corners)


def _pair_indices(suit: str) -> tuple[int, int] | None:
    """The indices in ``SUITS`` of ``suit`` and of the other suit of its colour pair; None for no single suit."""
    pair = BLACK if suit in BLACK else RED if suit in RED else ""
    if len(suit) != 1 or not pair:
        return None
    return SUITS.index(suit), SUITS.index(pair.replace(suit, ""))


def corner_names_other_of_pair(ir: IndexRead, suit: str, p: float) -> bool:
    """Whether a corner of ``ir`` gives the other suit of ``suit``'s colour pair at least ``p`` (index or not) while
    none gives ``suit`` half: one corner's sign of the pair's other suit against the suit named
    (``recognise.REREAD_OTHER_SUIT_P``)."""
    ij = _pair_indices(suit)
    if ij is None or not ir.corners:
        return False
    i, j = ij
    return (max(c.suit_probs[j] for c in ir.corners) >= p
            and max(c.suit_probs[i] for c in ir.corners) < 0.5)


# a corner that shows a suit sign and no rank, each at least this surely, shows a letter the network does not know
# (``letter_unknown``)
LETTER_P = 0.9


def letter_unknown(ir: IndexRead) -> bool:
    """Whether both corners of ``ir`` show a suit sign and, beside it, surely no rank the network knows
    (``LETTER_P``): a court's letter of another language. A court the glyph reader names there is unsure: its
    templates, made from the tuning designs' J, Q and K, take another letter for the nearest of them -
    ancient_french's blurred jack of spades, its letter a French V, was named the KS (scene 500156 of the generic
    sweep of scenes 500150-299, 0.75) while both network corners saw the spade at 0.96-0.98 and no rank at
    0.97-0.98. Of the glyph reader's accepted reads of the held-out designs (ornamental, tango, paris) and KDE's, none
    was refused (1,091 over scenes 500000-299, 184 of them courts).
    One corner is not enough: KDE's jolly-royal has a right JH so read (scene 500025: one corner no rank at 0.91 and
    the heart at 0.93, the other 0.88 and 0.67)."""
    return all(c.rank == "-" and c.suit != "-" and min(c.p_rank, c.p_suit) >= LETTER_P for c in ir.corners)


COLOURED_ACE_NOTCH = True


def pips_refuse(p: Pips, suit: str, one_corner: bool = False) -> bool:
    """Whether a number card's pips say that ``suit``, the corners' reading, is not the card's: then it is unsure.
    The pips' shape is judged by the suit discriminants of ``vision.pips`` (spade against club, heart against
    diamond, ``pips.pip_suit``; the pair by the pips' colour).

    The two corners are two looks at one small suit sign, and a blur that smudges one smudges the other alike; the
    pips are a third look, at signs many times larger. On the bench's drawn scenes of the tuning designs (150
    scenes each) the reader named, past its thresholds, blurred aces of spades as clubs (aisleriot dondorf twice,
    anglo once; each corner 0.7-0.9 on the club, 0.95 jointly) and a pale two of hearts as the two of diamonds by its
    one corner in view (scene 500107 of anglo_poker, neoclassical and neoclassical_4_color), where the pips showed
    the spade and the heart; and on the blurred development photos (``tools/photo_bench.py --alter blur``) an ornate
    ace of spades, its ink too faint for a colour, as the ace of diamonds (boxes/train cam_image41: the boxes labels
    name ranks only, so the bench counted it right).

    - Pips that are not red under a red suit: a four-colour deck's blue or green diamonds or hearts, but never
      black or grey ones (``Pips.hueless``: unsure). Asking the index ink's colour instead (``ink_colour`` 'other')
      cost 12 of the tuning views' 589 right pip-path readings: recoloured diamonds and hearts whose small index
      had too little ink to name a colour ('?'); by the pips' hue, none (``cardref vision train --tune-only``
      chose the shipped thresholds again, every count as shipped).
    - Pips that name the other suit of their colour's pair by ``PIP_SHAPE_BAR`` or more: unsure. Over the accepted
      readings of the pip paths on the true outlines of those scenes of five designs (1,519 number cards, 142 aces)
      and on the development photos (about 300 each plain, blurred and as a webcam's), the pips named the other suit
      of no right number card by more than 0.12 (a webcam-altered nine). An ace's one big pip is drawn most freely:
      10 of the 142 aces were on the other side, by up to 0.78 (anglo's ornate spade), and the rule alone cost
      anglo, anglo_bitmap and gnomangelo 7 right aces in 150 scenes each. So an ace's pip must say it twice: its
      notches (``pips.notched_suit``: a club's leaves, a heart's cleft) must name the same other suit - which left
      those 7 aces read and still refused the three wrong ones (their discriminant 0.50-2.1 on the spade, no
      leaves).
    - An ace whose one pip is of another hue (a four-colour deck's) under the diamond: a diamond's outline has no
      notch (``pips.notched_suit``: its sides dip 0.04-0.06), and a pip notched ``HEART_NOTCH`` deep or more is
      a spade, a heart or a club. aisleriot atlasnye_skat prints its spades green: a blurred ace of spades, its pip
      notched 0.22 and 0.18 either side of its stem, was named the ace of diamonds by both corners at 0.90 and 0.94
      (scene 500459, generic).
    - ``one_corner``: the suit was read by one corner in view (the 'one' path); then a red ace's pip naming the other
      red suit by its shape refuses it without its notch (``LONE_RED_ACE``).
    - Pips that lean from red to yellow (``YELLOW_PIPS``) under a heart: hearts are red, or blue or green in a
      four-colour deck, never yellow or orange (``YELLOW_HEARTS_UNSURE``)."""
    if YELLOW_HEARTS_UNSURE and suit == "H" and yellowness(p) >= YELLOW_PIPS:
        return True
    model = _pip_suits()
    if model is None or p.glyphs.shape[1] == 0:
        return False
    if suit not in (RED if p.red else BLACK):
        notched = p.count == 1 and bool(p.notches) and p.notches[0] >= HEART_NOTCH
        return p.hueless or (COLOURED_ACE_NOTCH and suit == "D" and notched)
    named, margin = pip_suit(p, model)
    if named == suit or margin < PIP_SHAPE_BAR:
        return False
    return p.count > 1 or notched_suit(p) == named or (LONE_RED_ACE and one_corner and p.red)


# a red ace read by its one corner in view and its pip (the 'one' path, ``pips_refuse``'s ``one_corner``) is unsure
# where the pip's shape names the other red suit by ``PIP_SHAPE_BAR`` or more, whatever its notch says. An ace's pip
# is asked to name the other suit twice, by shape and notch, since an ace's one pip is drawn most freely; that holds
# where two corners read the suit. With one corner in view, that corner is the only look at the small sign, and a
# blur that smudges a heart's cleft below ``pips.HEART_NOTCH`` smudges the corner's heart too: aisleriot
# anglo_modern_4_color's blurred ace of hearts (held out), outlined square across its slight turn so that its far
# corner cut through the card's edge, was named the AD at 0.953 by its one corner while its pip named the heart by
# 0.62 and its cleft measured 0.091 (scene 502479 of the held-out sweep at 502400, ``python -m tools.wrong_sweep
# --themes held --first 502400``). Only the red pair: the black aces' big pip is where designs draw their ornate
# spade (a right one-corner AC of neoclassical's tuning scenes had its pip named the spade by 2.26)
LONE_RED_ACE = True
# a number card named a heart whose pips lean from red to yellow (``YELLOW_PIPS``) is unsure (``pips_refuse``):
# aisleriot swiss-xvii's seven of bells (held out), its index printed red, was named 7H by both corners at 0.91 and
# 0.92 (scene 504153 of the held-out sweep at 504050, ``python -m tools.wrong_sweep --themes held --first 504050``);
# the bells lean 0.7-0.9 to yellow, red pips 0.15 at most. A four-colour deck's orange or yellow pips are diamonds
YELLOW_HEARTS_UNSURE = True


def _pip_suits() -> SuitModel | None:
    """The shipped pip suit discriminants (loaded once: ``glyphs.pip_suit_model``)."""
    from vision import glyphs

    return glyphs.pip_suit_model()


# two corners that name one suit, each at least this surely, with the ink's colour naming the pair, name it by their
# joint probability within the pair (``_suit_probability``)
JOINT_SUIT_FLOOR = 0.6
# the joint probability is for the red pair only: a blur smudges both corners' sign alike, and to the network (and
# to the pips' discriminants) a smudged club can look like a spade. KDE's jolly-royal and standard decks (never tuned
# on, ``tools/kde_decks.py``) had, in 40 of the bench's scenes each, a blurred 7C and 8C named the 7S and 8S and an
# ace of spades named the AC, each corner 0.72-0.90 on the wrong suit and the joint 0.98-0.99 (generic mode). With
# spades and clubs named by the corners' own probability: those three unsure, KDE's eight designs 502 -> 492 right
# reads, and the development photos as they are the same but boxes_train 410 -> 408; blurred
# (``tools.photo_bench --alter blur``) boxes_train 366 -> 357, boxes_test 100 -> 96. No heart or diamond was named
# wrong so, and the red pair's joint reads 8 more of boxes_train's blurred cards
JOINT_BLACK_SUIT = False
# a card whose pips lean this far or further from red toward yellow (``pips.yellowness``) has no joint probability
# within the red pair, whatever its index's ink: aisleriot swiss-xvii's nine of bells (scene 500914 of the held-out
# sweep, ``python -m tools.wrong_sweep --themes held --first 500900``), its index printed red, its nine yellow bells
# counted as red pips, each corner naming a heart at 0.77: the joint made that 0.91, and the card was named 9H. Its
# bells measure 0.77; red pips at most 0.15 on the development photos and 0.13 on the drawn designs; a four-colour
# deck's orange diamonds 0.70-0.93 (their index sometimes taken for red ink: then they lose the joint, not a read)
YELLOW_PIPS = 0.4


def _suit_probability(ir: IndexRead, colour: str, pips: Pips | None = None) -> float:
    """The probability of the suit behind a reading of two corners that name the same card (the ``two``, ``court``
    and ``ace`` paths): the smaller of the corners' own or, if larger, the corners' joint one within the pair the
    ink's colour names - when the ink is red or black and each corner gives the suit at least ``JOINT_SUIT_FLOOR``.
    The joint probability is the smallest of: each corner's probability of that pair among the four suits (hearts +
    diamonds, or spades + clubs: the network's own sureness that the sign is one of the two), and the two corners'
    product for the suit against the other of the pair, normalised.

    A blurred index keeps its rank and smudges its suit sign: on the development photos blurred as a softer camera
    would (``tools/photo_bench.py --alter blur``) the courts and pip cards left unsure were mostly read right by
    both corners, rank at 0.96-0.99 and suit at 0.5-0.9 in each, the rest of it on the other suit of the pair. Two
    corners are two looks at the sign (of a red one only: ``JOINT_BLACK_SUIT``). The pair must come from the shape
    as well as the colour: a Swiss deck's seven (aisleriot swiss-xvii, a suit sign the network never saw) was read
    as a heart by both corners at 0.80 and 0.87, the rest on the spade, and its red ink would have settled that
    doubt the wrong way; and without a colour the corners can be wrong together across the pairs (boxes_train
    IMG_2434 blurred: an ace of spades, its ink too pale to name a colour from one outline, read AD by both corners
    at 0.92 and 0.89). Nor does red ink name the pair where the card's pips (``pips``, when found) are not red but
    orange or yellow (``YELLOW_PIPS``): a suit of some other pattern whose index is printed red."""
    if ir.seen != 2 or colour not in ("red", "black") or ir.p_suit < JOINT_SUIT_FLOOR:
        return ir.p_suit
    if colour == "red" and pips is not None and yellowness(pips) >= YELLOW_PIPS:
        return ir.p_suit
    pair = RED if colour == "red" else BLACK
    if ir.suit not in pair or (pair == BLACK and not JOINT_BLACK_SUIT):
        return ir.p_suit
    i, j = SUITS.index(ir.suit), SUITS.index(pair[1] if ir.suit == pair[0] else pair[0])
    a, b = (c.suit_probs for c in ir.corners)
    # (each corner's sureness of the pair among the four suits: where there is a sign at all is the rank's to say)
    pair_sure = min(float((q[i] + q[j]) / q[:4].sum()) for q in (a, b))
    mine, other = float(a[i] * b[i]), float(a[j] * b[j])  # (each corner gives the suit >= the floor: mine > 0)
    within = mine / (mine + other)
    return max(ir.p_suit, min(pair_sure, within))


def _group_fits(rank: str, group: int) -> bool:
    """Whether ``group`` alike pip-like shapes fit a number card of ``rank`` whose layout was not clean: no more
    than its pips, and at most ``PARTIAL_MISSING`` fewer (hidden, or run together), at least ``PARTIAL_MIN``."""
    from vision import pips as pipslib

    count = pipslib.COUNT_OF_RANK.get(rank, 0)
    return max(PARTIAL_MIN, count - PARTIAL_MISSING) <= group <= count
