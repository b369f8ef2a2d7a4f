"""The learned card finder: a small convolutional network (``finder_net.onnx``) run with OpenCV's ``cv2.dnn``.

The frame is shrunk to ``NET_SIDE`` pixels on its longer side; the network marks, at half that size, the card faces
and each card's core: its face shrunk by ``CORE_INSET`` of the card's width on every side, less what covers it. Two
cards that touch or overlap have cores apart, so each connected core is one card. ``net_cards`` cuts the cores at a
few levels of probability and turns each into the card's outline (the core's rectangle grown back by the inset);
``vision.recognise`` snaps that outline onto the photo's own edges and checks it.

The network is trained by ``cardref vision train`` (``tools/train_finder.py``: synthetic tables of drawn and
aisleriot designs on real and drawn surfaces, and the training photographs; deterministic seeds); the ONNX file it
writes is what is checked in.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import cv2
import numpy as np

from vision.index_net import load_onnx

MODEL_PATH = os.path.join(os.path.dirname(__file__), "finder_net.onnx")
CORE_INSET = 0.12  # the core's margin inside the face, as a share of the card's width (short side)
NET_SIDE = 352  # pixels: the longer side of the frame as the network sees it (320-384 read alike; see docs/vision.md)
STRIDE = 16  # the network's input sides are multiples of this (four halvings)
# (probability, bleed): a cell belongs to a core at a level when the network gives it at least that probability;
# a core cut there and grown back comes out ``bleed`` times its card's size (see net_cards). The fourth level (session
# 7) parts the cores of a few more overlapping cards: boxes_train found 423 -> 427, read 357 -> 363, the other
# development sets unchanged, about 3 ms; its bleed follows the others' trend (a median over the development cards
# at 352 px came out 0.965, with every level's about 4 % higher than these, which found fewer)
CORE_LEVELS = ((0.5, 1.06), (0.7, 1.015), (0.85, 0.975), (0.95, 0.95))


def to_input(images: np.ndarray) -> np.ndarray:
    """A batch of BGR images (N, H, W, 3) uint8 as the network's input (N, 3, H, W) float32 in [-0.5, 0.5]."""
    return np.ascontiguousarray(images.transpose(0, 3, 1, 2), np.float32) / 255.0 - 0.5


class FinderNet:
    """The finder network loaded from its ONNX file (``cv2.dnn``)."""

    def __init__(self, path: str = MODEL_PATH) -> None:
        self.net = load_onnx(path, "card-finder")
        self.path = path

    def maps(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """(face probability, core probability, scale): maps at half the network's input size, and the frame's
        pixels per map cell."""
        h, w = frame.shape[:2]
        s = NET_SIDE / max(h, w)
        nw, nh = max(1, round(w * s)), max(1, round(h * s))
        small = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_AREA)
        pw, ph = -nw % STRIDE, -nh % STRIDE
        if pw or ph:
            small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
        self.net.setInput(to_input(small[None]))
        out = self.net.forward()[0]
        prob = 1.0 / (1.0 + np.exp(-out[:, : (nh + 1) // 2, : (nw + 1) // 2]))
        return prob[0], prob[1], 2.0 / s


class NetCard(NamedTuple):
    """One card the network marks: its core grown back to the card (a rectangle in the frame's pixels) and how fully
    the core fills its rectangle (a covered card's core is cut: less)."""

    quad: np.ndarray
    fill: float


def net_cards(face: np.ndarray, core: np.ndarray, scale: float, min_side: float) -> list[NetCard]:
    """The cards in the network's maps (``FinderNet.maps``), at each of the ``CORE_LEVELS``: the cores of two cards
    lying close may join at a low level and part at a higher one, so a card may come back more than once (the caller
    keeps the best of overlapping outlines). A core whose grown rectangle is shorter than ``min_side`` (frame pixels)
    or whose shape is no card's core is left out."""
    out: list[NetCard] = []
    for level, bleed in CORE_LEVELS:
        mask = (core >= level).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
        for i in range(1, n):
            if stats[i, cv2.CC_STAT_AREA] < 6:
                continue
            x, y, w, h = (int(v) for v in stats[i, :4])
            comp = (labels[y : y + h, x : x + w] == i).astype(np.uint8)
            cs, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
            c = max(cs, key=cv2.contourArea).astype(np.float32) + np.array([x, y], np.float32)
            # (the contour runs through the border cells' centres, half a cell inside the region's edge, but the
            # network's cores bleed outwards by more, the more at a lower level: the rectangle grown back from the
            # contour comes out ``bleed`` times the card's size, the median over the development photos' cards)
            (cx, cy), (rw, rh), ang = cv2.minAreaRect(c)
            fill = float(stats[i, cv2.CC_STAT_AREA]) / max((rw + 1) * (rh + 1), 1.0)
            # a card's core is a rectangle: 1.53 long for a poker card, 1.74 for a bridge card, more seen obliquely
            if fill < 0.6 or not 1.15 < max(rw, rh) / max(min(rw, rh), 1.0) < 2.6:
                continue
            short = min(rw, rh) / (1 - 2 * CORE_INSET)
            if short * scale < min_side:
                continue
            grow = CORE_INSET * short
            cells = cv2.boxPoints(((cx, cy), ((rw + 2 * grow) / bleed, (rh + 2 * grow) / bleed), ang))
            quad = ((cells + 0.5) * scale - 0.5).astype(np.float32)  # cell centres to frame pixels
            out.append(NetCard(quad, fill))
    return out
