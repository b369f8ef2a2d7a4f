"""A deck drawn from nothing (OpenCV lines, polygons and text): the synthetic camera's cards when no card images
are at hand, so ``cardref demo --web`` runs from a bare clone.

The cards follow the standard layout a club deck has: white stock with a thin border and rounded corners, the
index (rank over suit) in the top-left corner and again upside down in the bottom-right one, the pips of 2-10 in
their usual columns, one large pip for the ace, a framed panel with the rank letter for the court cards, and two
jokers told apart by colour (BJ the coloured one, LJ the black one, as the record format has them). A back with a
lattice completes it. It is a plain design, not a photograph: what the camera reads on it says the pipeline runs,
not how well it reads a real deck (``docs/vision.md`` has the measured numbers).
"""

from __future__ import annotations

import cv2
import numpy as np

W, H = 240, 336  # poker size, 63 x 88 mm at about 3.8 px/mm
RED = (30, 30, 200)  # BGR
BLACK = (20, 20, 20)
SUITS = "SHDC"
RANKS = "A23456789TJQK"

# Pip centres as fractions of the pip field (x: 0 left column, .5 middle, 1 right column; y: 0 top .. 1 bottom);
# the lower half's pips are drawn upside down, as printed decks do.
PIPS: dict[str, list[tuple[float, float]]] = {
    "2": [(.5, 0), (.5, 1)],
    "3": [(.5, 0), (.5, .5), (.5, 1)],
    "4": [(0, 0), (1, 0), (0, 1), (1, 1)],
    "5": [(0, 0), (1, 0), (.5, .5), (0, 1), (1, 1)],
    "6": [(0, 0), (1, 0), (0, .5), (1, .5), (0, 1), (1, 1)],
    "7": [(0, 0), (1, 0), (.5, .25), (0, .5), (1, .5), (0, 1), (1, 1)],
    "8": [(0, 0), (1, 0), (.5, .25), (0, .5), (1, .5), (.5, .75), (0, 1), (1, 1)],
    "9": [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (.5, .5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)],
    "T": [(0, 0), (1, 0), (.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (.5, 5 / 6), (0, 1), (1, 1)],
}


def suit_shape(img: np.ndarray, suit: str, cx: float, cy: float, size: float, flip: bool = False) -> None:
    """Draw the suit's symbol centred at (cx, cy), ``size`` pixels tall, filled in its colour."""
    colour = RED if suit in "HD" else BLACK
    s = size / 2
    sign = -1 if flip else 1

    def pt(dx: float, dy: float) -> tuple[int, int]:
        return int(round(cx + dx * s)), int(round(cy + sign * dy * s))

    def disc(dx: float, dy: float, r: float) -> None:
        cv2.circle(img, pt(dx, dy), max(1, int(round(r * s))), colour, -1, cv2.LINE_AA)

    def poly(points: list[tuple[float, float]]) -> None:
        cv2.fillPoly(img, [np.array([pt(x, y) for x, y in points], np.int32)], colour, cv2.LINE_AA)

    if suit == "D":
        poly([(0, -1), (.72, 0), (0, 1), (-.72, 0)])
    elif suit == "H":
        disc(-.45, -.4, .5)
        disc(.45, -.4, .5)
        poly([(-.93, -.25), (.93, -.25), (0, 1)])
    elif suit == "S":  # a heart upside down on a stem: one pointed mass, unlike the club's three round leaves
        disc(-.45, .35, .5)
        disc(.45, .35, .5)
        poly([(-.93, .2), (.93, .2), (0, -1)])
        poly([(0, .4), (.3, 1), (-.3, 1)])
    else:  # clubs: three round leaves apart from each other, on a thin stem
        disc(0, -.52, .4)
        disc(-.55, .12, .4)
        disc(.55, .12, .4)
        poly([(0, -.1), (.12, .2), (.3, 1), (-.3, 1), (-.12, .2)])


def _index(img: np.ndarray, rank: str, suit: str) -> None:
    """The corner index, top left: the rank (10 written out) over a small suit symbol."""
    colour = RED if suit in "HD" else BLACK
    text = "10" if rank == "T" else rank
    # as large as a club deck prints it: the camera reads the index, and a small club is a spade to it
    scale = 1.05 if len(text) == 2 else 1.45
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, 3)
    x = 28 - tw // 2
    cv2.putText(img, text, (max(5, x), 12 + th), cv2.FONT_HERSHEY_DUPLEX, scale, colour, 3, cv2.LINE_AA)
    suit_shape(img, suit, 28, 12 + th + 26, 34)


def draw_card(code: str) -> np.ndarray:
    """One card's face (``"TH"``, ``"BJ"``...) as a BGR image of W x H pixels on white."""
    img = np.full((H, W, 3), 255, np.uint8)
    cv2.rectangle(img, (3, 3), (W - 4, H - 4), (150, 150, 150), 1, cv2.LINE_AA)
    if code in ("BJ", "LJ"):
        colour = RED if code == "BJ" else BLACK
        for i, ch in enumerate("JOKER"):
            cv2.putText(img, ch, (12, 34 + 26 * i), cv2.FONT_HERSHEY_DUPLEX, 0.8, colour, 2, cv2.LINE_AA)
        star = [(W / 2 + r * np.sin(a), H / 2 - r * np.cos(a))
                for k in range(10) for a, r in [(k * np.pi / 5, 70 if k % 2 == 0 else 28)]]
        cv2.fillPoly(img, [np.array(star, np.int32)], colour, cv2.LINE_AA)
        cv2.putText(img, "BIG" if code == "BJ" else "LITTLE", (W // 2 - (28 if code == "BJ" else 50), H - 40),
                    cv2.FONT_HERSHEY_DUPLEX, 0.9, colour, 2, cv2.LINE_AA)
        return img
    rank, suit = code[0], code[1]
    _index(img, rank, suit)
    upper = img.copy()
    turned = cv2.rotate(upper, cv2.ROTATE_180)
    corner = (slice(H - 110, H - 4), slice(W - 60, W - 4))
    img[corner] = np.minimum(img[corner], turned[corner])
    left, right, top, bottom = 84, W - 84, 62, H - 62
    if rank == "A":
        suit_shape(img, suit, W / 2, H / 2, 110)
    elif rank in PIPS:
        for fx, fy in PIPS[rank]:
            suit_shape(img, suit, left + fx * (right - left), top + fy * (bottom - top), 40, flip=fy > .5)
    else:  # court cards: a framed panel with the rank letter and the suit
        colour = RED if suit in "HD" else BLACK
        cv2.rectangle(img, (56, 48), (W - 56, H - 48), colour, 2, cv2.LINE_AA)
        cv2.putText(img, rank, (W // 2 - 30, H // 2 + 10), cv2.FONT_HERSHEY_TRIPLEX, 2.6, colour, 4, cv2.LINE_AA)
        suit_shape(img, suit, W / 2, H / 2 + 60, 40)
        suit_shape(img, suit, W / 2, H / 2 - 80, 40, flip=True)
    return img


def draw_back() -> np.ndarray:
    """The back: a blue lattice inside a white margin."""
    img = np.full((H, W, 3), 255, np.uint8)
    cv2.rectangle(img, (14, 14), (W - 15, H - 15), (140, 60, 20), -1)
    for k in range(-H, W + H, 18):
        cv2.line(img, (k, 14), (k + H, H + 14), (220, 170, 120), 2, cv2.LINE_AA)
        cv2.line(img, (k, 14), (k - H, H + 14), (220, 170, 120), 2, cv2.LINE_AA)
    img[:14, :] = 255
    img[-14:, :] = 255
    img[:, :14] = 255
    img[:, -14:] = 255
    return img


def drawn_deck(jokers: bool = True) -> dict[str, np.ndarray]:
    """The whole deck, code -> BGR image (52 cards, the two jokers, and ``back``)."""
    deck = {r + s: draw_card(r + s) for s in SUITS for r in RANKS}
    if jokers:
        deck["BJ"] = draw_card("BJ")
        deck["LJ"] = draw_card("LJ")
    deck["back"] = draw_back()
    return deck
