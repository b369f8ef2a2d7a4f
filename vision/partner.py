"""The enrolled mode's check of a suit against its partner: a card the templates name is compared, piece by piece,
with the same rank in the other suit of its colour (spades with clubs, hearts with diamonds), the card's picture
first moved to fit each template, and then each piece where the two templates differ allowed a few pixels more.

Why a second look at all: the templates' match (``vision.recognise.match``) weighs the whole face at 30 x 42 pixels
and the corner index, each at one alignment. A card outlined a tenth short, or blurred, or a design whose aces and
courts differ only in a small pip, can then fit the wrong suit of its rank by a margin past the bar. Sessions 53-54
found eight such reads at scenes never used for tuning (KDE's oxygen and oxygen-white, aisleriot's tango_nuevo and
KDE's ancient-egyptians: AC as AS, QS as QC, 6C as 6S, 3S as 3C, JD as JH, a JD as QH), and splitting the match
into its face and its corner did not help: both leaned the wrong way. What tells them apart is where the two suits
differ - the pips, the index's suit, a court's emblem - looked at where they are on this card, not where a misplaced
outline puts them. So this test takes the pieces (``CELL`` pixels square at ``SIZE``) where the two templates differ
most, lets each find its place within ``SEARCH`` pixels of the card's picture once that picture is aligned to each
template (a scale and a shift, ``SCALES``), and asks how much of the card each template's pieces leave unexplained,
with one gain for all of them (a washed-out card's pips are fainter than its template's). One number comes out
(``partner_score``): 1 where only the named suit explains the card, -1 where only the partner does, 0 where both
fit alike.

Chosen on cuts of 1,276 right reads of ten designs (30 scenes each at 503000-503029, the test off), the eight
wrong reads, and the enrolled reads of the development photos (``/work/notes/s55/evalvar.py`` and ``evalphoto.py``
in a development checkout; the picture scaled by its spread or by its paper, its rim kept or cut, squared
differences or one gain, the light taken out or not): the eight score -0.10 to -0.72, none of the 1,276 right reads
below -0.1 (``vision.recognise.PARTNER_MIN``; the lowest -0.04), and of the photos' right reads 2 of 523 (the boxes
deck, enrolled from its photos) and 3 of 221 (the desk deck over its own and the poker table's photos). A read the
test refuses is left unsure, never turned into the partner: the director decides
(``vision.recognise.PARTNER_CHECK``)."""

from __future__ import annotations

import cv2
import numpy as np

SIZE = (60, 85)  # the pictures compared: half the canonical card (``vision.geometry.CW``, ``CH``)
CELL = 10  # a piece's side, pixels of ``SIZE``
STRIDE = 5  # pieces are taken on this grid
PIECES = 16  # how many of the pieces where the two templates differ most are compared
SEARCH = 4  # pixels each piece may move beyond the picture's alignment
ALIGN_BORDER = 8  # the aligned template's core leaves this many pixels each side for the shift
SCALES = (0.9, 0.95, 1.0, 1.05, 1.1)  # the picture's scales tried about its middle (a tenth short outline fits)
PARTNER = {"S": "C", "C": "S", "H": "D", "D": "H"}
# the light taken out of a picture: its blur at this many pixels of ``SIZE`` (a pip is 8-12 across). Without it a
# deck enrolled from photographs had 46 of its 523 right reads of the boxes photos refused (its templates' photos
# were lit unlike the photos read, and the two templates unlike each other); at 3 and 4 pixels 2, at 6 pixels 11
LIGHT_SIGMA = 4.0


def grey(card: np.ndarray) -> np.ndarray:
    """A rectified card (BGR, or grey) shrunk to ``SIZE`` in grey (uint8): what a deck file keeps of each card for
    this test, so that a file outlives a change in how ``picture`` is made of it."""
    g = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY) if card.ndim == 3 else card
    return cv2.resize(g, SIZE, interpolation=cv2.INTER_AREA)


def picture(card: np.ndarray) -> np.ndarray:
    """A rectified card (BGR, or ``grey``'s) as the test compares it: darkness at ``SIZE``, a little blurred, less its
    own blur at ``LIGHT_SIGMA`` (the light across the card: a lamp's fall-off, a shadow's edge, which differ from one
    photograph to the next), with zero mean and unit spread (the camera's exposure taken out)."""
    g = cv2.GaussianBlur(255.0 - grey(card).astype(np.float32), (0, 0), 1.0)
    g = g - cv2.GaussianBlur(g, (0, 0), LIGHT_SIGMA)
    return ((g - g.mean()) / max(float(g.std()), 1e-3)).astype(np.float32)


def partner_of(label: str) -> str | None:
    """The same rank in the other suit of ``label``'s colour, or None for a card without one (a joker, the back)."""
    if len(label) != 2 or label[1] not in PARTNER:
        return None
    return label[0] + PARTNER[label[1]]


def _core(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a[ALIGN_BORDER:-ALIGN_BORDER, ALIGN_BORDER:-ALIGN_BORDER])


def aligned(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The picture ``x`` moved (a scale of ``SCALES`` about its middle, then a shift of up to ``ALIGN_BORDER``
    pixels) to fit the template picture ``a`` best (normalised correlation of ``a``'s core)."""
    h, w = a.shape
    core = _core(a)
    best, move = -2.0, None
    for s in SCALES:
        m = np.float32([[s, 0, (1 - s) * w / 2], [0, s, (1 - s) * h / 2]])
        xs = cv2.warpAffine(x, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
        _, v, _, (dx, dy) = cv2.minMaxLoc(cv2.matchTemplate(xs, core, cv2.TM_CCOEFF_NORMED))
        if v > best:
            best, move = v, m.copy()
            move[0, 2] += ALIGN_BORDER - dx
            move[1, 2] += ALIGN_BORDER - dy
    return cv2.warpAffine(x, move, (w, h), borderMode=cv2.BORDER_REPLICATE)


def upright(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``x`` the way up it fits the template pictures ``a`` or ``b`` best (a card lies either way up; its picture
    turned half a turn is the other). Judged on both templates, so that the score of a pair does not hang on which
    of the two is asked first; and at the picture's own scale: the two ways differ far more than a tenth's scale."""
    turned = np.ascontiguousarray(x[::-1, ::-1])
    fits = [max(cv2.minMaxLoc(cv2.matchTemplate(v, _core(t), cv2.TM_CCOEFF_NORMED))[1] for t in (a, b))
            for v in (x, turned)]
    return x if fits[0] >= fits[1] else turned


def pieces(a: np.ndarray, b: np.ndarray) -> tuple[tuple[int, int], ...]:
    """The top-left corners of the ``PIECES`` pieces (``CELL`` square, on the ``STRIDE`` grid) where two template
    pictures differ most (a template pair's pieces are the same for every card: ``vision.recognise.Templates`` keeps
    them per pair)."""
    energy = cv2.boxFilter((a - b) ** 2, -1, (CELL, CELL), normalize=False, anchor=(0, 0),
                           borderType=cv2.BORDER_CONSTANT)
    h, w = a.shape
    spots = [(float(energy[y, x]), y, x)
             for y in range(0, h - CELL + 1, STRIDE) for x in range(0, w - CELL + 1, STRIDE)]
    spots.sort(reverse=True)
    return tuple((y, x) for _, y, x in spots[:PIECES])


def _unmet(padded: np.ndarray, t: np.ndarray, pieces: tuple[tuple[int, int], ...]) -> float:
    """How much of the card's picture (``padded`` by ``SEARCH``, aligned to ``t``) the template picture ``t``'s
    ``pieces`` leave unexplained: each piece placed where the picture runs most nearly parallel to it within
    ``SEARCH`` pixels, then one gain (at least 0) for all the pieces together, fitted by least squares - the squared
    residual. One gain, not one per piece: a washed-out card's pips are fainter than its template's (a gain below
    1), and a piece of ink the picture lacks must still count against the template."""
    span = CELL + 2 * SEARCH
    xt = tt = xx = 0.0
    for y, x0 in pieces:
        tp = t[y:y + CELL, x0:x0 + CELL]
        win = padded[y:y + span, x0:x0 + span]
        dx = dy = SEARCH
        if float(np.abs(tp).max()) > 1e-6:
            _, _, _, (dx, dy) = cv2.minMaxLoc(cv2.matchTemplate(win, tp, cv2.TM_CCORR_NORMED))
        w = win[dy:dy + CELL, dx:dx + CELL]
        xt += float((w * tp).sum())
        tt += float((tp * tp).sum())
        xx += float((w * w).sum())
    return xx - xt * xt / tt if xt > 0 and tt > 1e-12 else xx


def partner_score(x: np.ndarray, a: np.ndarray, b: np.ndarray,
                  where: tuple[tuple[int, int], ...] | None = None) -> float:
    """How much better the card's picture ``x`` (``picture``) meets template picture ``a`` than ``b`` where the two
    differ: over their ``pieces`` (``where``, when already made), (b's unexplained - a's) / (their sum), each
    measured on the picture aligned to that template (``aligned``, ``_unmet``). 1: only a explains the pieces; -1:
    only b; 0: alike. ``x`` is taken the way up it fits them best (``upright``)."""
    x = upright(x, a, b)
    where = pieces(a, b) if where is None else where
    un_a, un_b = (_unmet(cv2.copyMakeBorder(aligned(x, t), SEARCH, SEARCH, SEARCH, SEARCH, cv2.BORDER_REPLICATE), t,
                         where) for t in (a, b))
    total = un_a + un_b
    return (un_b - un_a) / total if total > 1e-12 else 0.0
