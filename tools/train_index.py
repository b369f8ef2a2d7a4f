"""``cardref vision train``: train the corner-index network (``vision/index_net.onnx``) from scratch, reproducibly.

Data: corners cut, the way the product cuts them, from synthetic camera views of card designs - the tuning decks of
``../shared/decks`` (the held-out three are left out), a set of Debian's aisleriot themes (rendered with
``tools/aisleriot.py``) and the development desk photos of one card each (``../shared/photos/desk/template``, each card
cut along the outline the product's finder gave it, kept in ``tools/training_outlines.json``). A view puts one card on a
random plain or textured surface under a random homography (any rotation, perspective), at a random size down to a card
55 px wide (``MIN_WIDTH``; ``run``'s ``small_views`` more of each card down to 36 px), lights it (gradient, colour cast,
glare, shadow), blurs it, adds sensor noise and JPEG, then finds it again with a jittered outline (the finder's error)
and rectifies it with ``vision.geometry.rectify_for_reading`` (at twice the size when the product would). Suits are
recoloured at random (the ink's channels permuted, so red ink becomes blue or green, as in four-colour decks). The 'no
index' class: the corners of backs and jokers, the middle of the cards (pictures, pips), bare surface.

Held out, never trained on: the drawn decks ornamental, paris, tango; the aisleriot themes in ``TUNE_THEMES`` (for
choosing the reader's thresholds) and ``HELD_OUT_THEMES`` (for measuring); every photo set but desk/template.

Training: PyTorch on the CPU (the ``train`` extra: ``pip install -e '.[train]'``; not needed to run the product),
fixed seeds, then export to ONNX (opset 13, which ``cv2.dnn`` reads) and a check that ``cv2.dnn`` gives the
same outputs as PyTorch.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from multiprocessing import Pool
from typing import Any, NamedTuple

import cv2
import numpy as np

from tools import network_stamp
from tools import training_outlines as to
from vision import features, geometry
from vision import index_net as ix

TRAIN_DRAWN = ["anglo_modern", "bellot", "neoclassical", "plastic", "simplistic"]
HELD_OUT_DRAWN = ["ornamental", "paris", "tango"]
TRAIN_THEMES = ["anglo", "anglo_poker", "atlasnye", "dondorf", "guyenne-classic", "orell", "gnomangelo", "tigullio",
                "neoclassical_4_color", "anglo_bitmap"]
# themes whose courts or aces carry other letters (French V D R 1, German B D, Russian В Д Т, Italian F D R): their
# number cards are other fonts of the standard digits, and those letters are learned as "no standard rank" (with
# their suit), so that a foreign letter is not read as the English court it most resembles (the first network read
# a German B or D as K at up to 0.88). Per theme, the ranks whose letter is not the English one. Never trained on:
# swiss-xvii (Swiss suits) and tango_nuevo (the held-out tango's sibling).
FOREIGN_LETTERS = {"ancient_french": "JQKA", "atlasnye_skat": "JQ", "slavic_costumes": "JQA", "tarocco": "JQK"}
# court letters painted over the J, Q and K of the trained designs' indices, learned as "no standard rank" too
# (``foreign_court``): the four foreign themes alone did not teach it that a letter it has not seen is no court of
# its own - the held-out rheinland's German jacks (B) were read as kings at 0.95-0.99, both corners, in 5 of 150
# scenes. The letters of other patterns' courts (German B D, French V D R, Italian F R, Dutch H V B, Russian В Д
# drawn alike), and a few more shapes no standard index has; never O or C, too near a Q.
PAINTED_LETTERS = "BDVRFHPW"
PAINTED_VARIANTS = 2  # painted copies of each trained design's courts, each letter drawn at random
TUNE_THEMES = ["gnomangelo_bitmap", "berlin"]  # thresholds are chosen on these (never trained on)
# a card's views are this wide (px) and more, as the camera over a table of the photographs sees them; ``run``'s
# ``small_views`` add that many views of each card from SMALL_WIDTH to MIN_WIDTH (a webcam over a whole table sees
# cards 35-60 px wide). Not in the shipped recipe (none): measured in session 47, ``docs/vision.md`` (*Training*)
MIN_WIDTH = 55
SMALL_WIDTH = 36
HELD_OUT_THEMES = ["anglo_modern_4_color", "rheinland", "lattmann"]  # measured on, never trained or tuned on
THEME_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "cardref", "aisleriot")
CODES = [r + s for s in "SHDC" for r in "A23456789TJQK"]
MIN_READS = 50  # tuning reads a path needs before its threshold is chosen from them
# the lowest threshold. 0.5 (every corner's reading more likely than the rest together) read a third more of the
# development photos' number cards with 0 wrong there and on the tuning themes, but named 6 wrong on the held-out
# drawn and aisleriot designs (spades read as clubs at 0.5-0.9): 0.9
FLOOR = 0.9
# the corners' rank on a number card whose pips were counted to the same rank: more likely than every other rank
# together (the 0.5 that named wrong cards above was a suit's: spades read as clubs)
RANK_FLOOR = 0.5
# a number card whose pips could not be counted is often one too blurred to count them, and then its index is
# blurred too: the one wrong read in every check of this reader came by this path, a motion-blurred 3 of clubs read
# as 2 by both corners at 0.900 (held-out aisleriot rheinland, a network retrained on the same recipe), so its floor
# is higher
CORNERS_FLOOR = 0.97


# ---------------------------------------------------------------- sources


def theme_deck(name: str, cache: str = THEME_CACHE) -> str:
    """A deck folder of an aisleriot theme, rendered once into ``cache``."""
    from tools import aisleriot

    out = os.path.join(cache, name)
    if not os.path.exists(os.path.join(out, "KS.png")):
        aisleriot.write_deck(name, out)
    return out


def photo_deck(folder: str, outlines: to.Outlines) -> dict[str, np.ndarray]:
    """Desk photos of one card each (``suit_N.jpg``), each card cut (large) along its outline in ``outlines``
    (``tools/training_outlines.py``) from the photo as taken: the views add their own light and colour, and so the
    shipped network learned them (before enrollment took a photo's colour cast out)."""
    from vision import deck as decklib

    out = {}
    for name in to.desk_photos(folder):
        card = outlines.card(name)
        if card is None:
            continue  # the photo's card was not found: nothing to learn from it
        img = cv2.imread(os.path.join(folder, name), cv2.IMREAD_COLOR)
        code = decklib.canonical_code(os.path.splitext(name)[0])
        out[code] = features.canonical_card(img) if isinstance(card, str) else geometry.rectify(img, card)
    return out


def load_sources(decks_root: str, photos_root: str | None, themes: list[str], drawn: list[str],
                 foreign: dict[str, str] | None = None, painted: int = 0,
                 outlines: to.Outlines | None = None) -> list[dict]:
    """Card sources: name, code -> image, and the largest card width a view of it may have; ``painted`` copies of
    the designs' courts with other letters painted over (``foreign_court``) after them. ``outlines``: the training
    photos' (default: the corner network's in ``tools/training_outlines.json``)."""
    from vision import deck as decklib

    sources = []
    for d in drawn:
        sources.append({"name": d, "images": decklib.load_deck(os.path.join(decks_root, d)), "max_w": 300})
    for t in themes:
        sources.append({"name": t, "images": decklib.load_deck(theme_deck(t)), "max_w": 300})
    for t, letters in (foreign or {}).items():
        sources.append({"name": t, "images": decklib.load_deck(theme_deck(t)), "max_w": 300, "foreign": letters})
    copies = []
    for i, src in enumerate(sources):
        for k in range(painted):
            rng = np.random.default_rng([i, k, 7])
            images = {c: p for c in CODES if c[0] in "JQK" and c in src["images"]
                      for p in [foreign_court(src["images"][c], rng)] if p is not None}
            if images:
                copies.append({"name": f"{src['name']}_painted{k}", "images": images, "max_w": src["max_w"],
                               "foreign": "JQK"})
    sources += copies
    if photos_root:
        tpl = os.path.join(photos_root, "desk", "template")
        if os.path.isdir(tpl):
            deck = photo_deck(tpl, outlines or to.load(to.INDEX))
            sources.append({"name": "desk_template", "images": deck, "max_w": 140})
    return sources


def foreign_court(card: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    """The court ``card`` with the rank letter of both its corner indices painted over with a letter of
    ``PAINTED_LETTERS`` (one Hershey font, drawn in the index's own ink on its own paper, as tall as the letter it
    replaces); None where the product's glyph cutter (``glyphs.index_marks``) finds no index."""
    from vision import glyphs

    letter = PAINTED_LETTERS[int(rng.integers(len(PAINTED_LETTERS)))]
    font = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
            cv2.FONT_HERSHEY_TRIPLEX][int(rng.integers(4))]
    weight = int(rng.integers(1, 6))
    # the letter at a large size, cut to its ink
    big = np.zeros((140, 140), np.uint8)
    cv2.putText(big, letter, (15, 115), font, 3.2, 255, weight * 2, cv2.LINE_AA)
    ys, xs = np.nonzero(big)
    glyph = big[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    out = card.copy()
    for _ in range(2):
        m = glyphs.index_marks(out)
        if m is None:
            return None
        x0, y0, x1, y1 = (v + m.trim for v in m.rank_box)
        rank_px = np.isin(m.lab, [c[5] for c in m.rank])
        ink_px = out[m.trim : m.trim + m.lab.shape[0], m.trim : m.trim + m.lab.shape[1]][rank_px]
        ink = np.median(ink_px.reshape(-1, 3), axis=0)
        pad = max(1, (y1 - y0) // 8)
        box = out[max(0, y0 - pad) : y1 + pad, max(0, x0 - pad) : x1 + pad]
        px = box.reshape(-1, 3)
        light = px.astype(np.int32).sum(axis=1)
        box[:] = np.median(px[light >= np.percentile(light, 60)], axis=0)  # the paper: the box's lighter part
        h = y1 - y0
        # (as wide as the font has it, within the old letter's width give or take: wider, it would run into the rim)
        w = h * glyph.shape[1] / glyph.shape[0] * rng.uniform(0.85, 1.15)
        w = max(2, int(round(min(max(w, 0.75 * (x1 - x0)), 1.15 * (x1 - x0)))))
        cx = (x0 + x1) / 2
        gx0 = int(round(max(m.trim, cx - w / 2)))
        alpha = cv2.resize(glyph, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255
        region = out[y0 : y0 + h, gx0 : gx0 + w]
        a = alpha[: region.shape[0], : region.shape[1]]
        region[:] = (region * (1 - a) + ink * a).astype(np.uint8)
        out = np.ascontiguousarray(out[::-1, ::-1])  # the other corner, upright
    return out


# ---------------------------------------------------------------- one camera view of one card


def _surface(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A plain or grained table surface, float32 BGR."""
    base = rng.uniform(20, 235, 3).astype(np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    if rng.random() < 0.5:  # grain or cloth texture
        k = int(rng.integers(1, 4))
        tex = cv2.resize(rng.normal(0, 1, (max(2, h // (4 * k)), max(2, w // (4 * k)))).astype(np.float32), (w, h))
        if rng.random() < 0.5:
            tex = cv2.resize(rng.normal(0, 1, (h, 3)).astype(np.float32), (w, h))  # wood-like streaks
        img += tex[..., None] * rng.uniform(3, 25)
    return img


def _recolour(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Permute the colour channels (red ink becomes blue, green... as on four-colour decks); paper stays pale."""
    if rng.random() < 0.5:
        return img
    return np.ascontiguousarray(img[..., rng.permutation(3)])


def camera_view(card: np.ndarray, rng: np.random.Generator, width: float, motion: float = 0.0
                ) -> tuple[np.ndarray, np.ndarray]:
    """The card seen by a camera at about ``width`` pixels wide on a random surface: (image uint8 BGR, quad
    TL TR BR BL of the upright card in the image); ``motion``: the share of views smeared by a card moving under
    the camera (``motion_blur``; 0, the shipped recipe, draws nothing more from ``rng``)."""
    ch, cw = card.shape[:2]
    height = width * ch / cw
    pad = 0.06 * height + 0.035 * 3 * width + 6
    size = int(np.ceil(2 * pad + height))
    ang = rng.uniform(0, 2 * np.pi)
    c, s = np.cos(ang), np.sin(ang)
    rect = np.array([[-width / 2, -height / 2], [width / 2, -height / 2], [width / 2, height / 2],
                     [-width / 2, height / 2]], np.float32)
    quad = rect @ np.array([[c, s], [-s, c]], np.float32) + size / 2
    quad += rng.normal(0, 0.035 * width, quad.shape).astype(np.float32)  # perspective, up to ~30 degrees
    # draw from a source at most twice the target size (warping far down aliases thin strokes)
    k = min(1.0, 2 * width / cw)
    src = card if k == 1.0 else cv2.resize(card, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    sh, sw = src.shape[:2]
    m = cv2.getPerspectiveTransform(np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float32), quad)
    face = cv2.warpPerspective(src.astype(np.float32), m, (size, size), flags=cv2.INTER_LINEAR)
    r = max(1, int(0.06 * sw))  # rounded corners
    shape = np.zeros((sh, sw), np.uint8)
    cv2.rectangle(shape, (r, 0), (sw - r, sh), 255, -1)
    cv2.rectangle(shape, (0, r), (sw, sh - r), 255, -1)
    for x, y in ((r, r), (sw - r, r), (sw - r, sh - r), (r, sh - r)):
        cv2.circle(shape, (x, y), r, 255, -1)
    alpha = cv2.warpPerspective(shape, m, (size, size), flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
    bg = _surface(rng, size, size)
    if rng.random() < 0.5:  # the card's shadow
        off = rng.integers(-4, 5, 2)
        sa = np.roll(alpha, tuple(int(o) for o in off), axis=(0, 1))
        bg *= 1 - 0.4 * rng.random() * cv2.GaussianBlur(sa, (0, 0), 3)[..., None]
    img = bg * (1 - alpha) + face * alpha
    # light: a gradient, a colour cast, perhaps a glare spot (made on a coarse grid and enlarged: smooth anyway)
    g = max(4, size // 8)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32) / g - 0.5
    th = rng.uniform(0, 2 * np.pi)
    light = 1 + rng.uniform(0, 0.5) * (np.cos(th) * xx + np.sin(th) * yy) + rng.uniform(-0.35, 0.1)
    img = img * cv2.resize(light, (size, size))[..., None] * rng.uniform(0.85, 1.15, 3).astype(np.float32)
    if rng.random() < 0.3:
        gx, gy = rng.uniform(-0.4, 0.4, 2)
        sig = rng.uniform(0.05, 0.3)
        glare = rng.uniform(40, 150) * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sig**2))
        img += cv2.resize(glare, (size, size))[..., None]
    blur = rng.uniform(0, 1.6) * max(0.5, width / 150)
    if blur > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    if motion > 0 and rng.random() < motion:
        img = motion_blur(img, rng.uniform(2, MOTION_LENGTH * width), rng.uniform(0, np.pi))
    noise = np.empty(img.shape, np.float32)
    cv2.randn(noise, 0, float(rng.uniform(0, 8)))
    img += noise
    out = np.clip(img, 0, 255).astype(np.uint8)
    q = int(rng.integers(30, 96))
    out = cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])[1], cv2.IMREAD_COLOR)
    return out, quad


# the longest smear of a moving card (``motion_blur``), a share of the card's width: the bench's scenes smear a card
# being played up to 12 px at 1280 x 720, where a card is about 130 px wide
MOTION_LENGTH = 0.09


def motion_blur(img: np.ndarray, length: float, angle: float) -> np.ndarray:
    """``img`` smeared along a line ``length`` pixels long at ``angle`` (radians), as a card moving while the
    shutter is open: its edges across the motion stay sharp, those along it spread (a Gaussian blur spreads all).

    (``tools.synth.camera_effects`` draws the bench scenes' smear with a kernel of its own: whole-pixel lengths, its
    line one pixel longer than asked, and every scene test pins its pixels. This one takes a fractional length, a
    share of the card's width; the network measured in session 53 was trained with it. One kernel for both would
    change either the scenes or that measurement.)"""
    n = int(np.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    c = (n - 1) / 2
    dx, dy = np.cos(angle) * (length - 1) / 2, np.sin(angle) * (length - 1) / 2
    cv2.line(k, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1)
    return cv2.filter2D(img, -1, k / k.sum())


def found_card(img: np.ndarray, quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The card as the product reads it: its outline found with a small error, rectified (at twice the canonical
    size when the product would)."""
    side = float(np.linalg.norm(quad[1] - quad[0]))
    q = quad + rng.normal(0, 0.012 * side + 0.4, quad.shape).astype(np.float32)
    q = q.mean(axis=0) + (q - q.mean(axis=0)) * rng.uniform(0.98, 1.03)
    if side >= 1.6 * geometry.CW:
        return geometry.rectify_for_reading(img, q.astype(np.float32), 2)
    return geometry.rectify_for_reading(img, q.astype(np.float32))


def _stroke(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Now and then the ink made bolder or thinner (a min or max filter a few pixels wide at the source's size): the
    designs differ in the weight of their index fonts (the development photos' deck: thin strokes the drawn and
    aisleriot designs do not have), and the network should read the shape whatever the weight."""
    u = rng.random()
    if u < 0.6:
        return img
    k = max(2, int(round(rng.uniform(0.6, 1.6) * img.shape[1] / 160)))
    kernel = np.ones((k, k), np.uint8)
    return cv2.erode(img, kernel) if u < 0.8 else cv2.dilate(img, kernel)


def _labels(code: str) -> tuple[int, int]:
    return ix.RANKS.index(code[0]), ix.SUITS.index(code[1])


NONE = (len(ix.RANKS) - 1, len(ix.SUITS) - 1)


def samples_of(job: tuple[dict, list[str], int, int] | tuple[dict, list[str], int, int, int]
               | tuple[dict, list[str], int, int, int, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inputs (N, H, W) and labels (rank, suit) of ``views`` camera views of each card of one source (cards
    ``MIN_WIDTH`` px wide and more; the job's sixth item, default 0, the share of them smeared by motion,
    ``camera_view``), and of ``small`` views more (the job's fifth item, default none) of cards
    ``SMALL_WIDTH`` to ``MIN_WIDTH`` px wide."""
    source, codes, views, seed = job[:4]
    small = job[4] if len(job) > 4 else 0
    motion = job[5] if len(job) > 5 else 0.0
    rng = np.random.default_rng(seed)
    cv2.setRNGSeed(seed % (2**31))  # cv2.randn's generator: per job, so a worker's earlier jobs do not change it
    images = source["images"]
    xs: list[np.ndarray] = []
    rs: list[int] = []
    ss: list[int] = []
    max_w = source["max_w"]
    for code in codes:
        if code not in images:
            continue
        is_card = code in CODES
        for v in range(views + small):
            lo, hi = (MIN_WIDTH, max_w) if v < views else (SMALL_WIDTH, min(MIN_WIDTH, max_w))
            width = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
            img, quad = camera_view(_stroke(_recolour(images[code], rng), rng), rng, width, motion)
            card = found_card(img, quad, rng)
            inp = ix.both_corners(card)[:, 0]
            lab = _labels(code) if is_card else NONE
            if is_card and code[0] in source.get("foreign", ""):
                lab = (NONE[0], lab[1])  # a letter that is no standard rank, beside a standard suit sign
            for x in inp:
                xs.append(x)
                rs.append(lab[0])
                ss.append(lab[1])
            if is_card and rng.random() < 0.25:  # the middle of the card: a picture or pips, no index
                h, w = card.shape[:2]
                y0 = int(rng.uniform(0.2, 0.5) * h)
                x0 = int(rng.uniform(0.25, 0.6) * w)
                mid = card[y0:, x0:]
                mid = cv2.resize(mid, (w, h)) if rng.random() < 0.5 else np.pad(
                    mid, ((0, y0), (0, x0), (0, 0)), mode="edge")
                xs.append(ix.corner_input(mid))
                rs.append(NONE[0])
                ss.append(NONE[1])
        if is_card and rng.random() < 0.3:  # bare surface
            surf = np.clip(_surface(rng, 80, 60), 0, 255).astype(np.uint8)
            xs.append(ix.corner_input(surf))
            rs.append(NONE[0])
            ss.append(NONE[1])
    return (np.array(xs, np.float32).reshape(-1, ix.INPUT_H, ix.INPUT_W), np.array(rs, np.int64),
            np.array(ss, np.int64))


# ---------------------------------------------------------------- real photographs (rank only)

IGNORE = -100  # a label the loss skips: the boxes photos name a card's rank, not its suit
BOXES_TRAIN = os.path.join("boxes", "train")  # trained on; boxes/test stays held out for the benchmark


def photo_cards(folder: str, outlines: to.Outlines) -> list[tuple[str, np.ndarray, str]]:
    """(photo path, quad in the photo's pixels, rank) of each labelled card of a Pascal VOC folder that the finder
    found whole (``outlines``, ``tools/training_outlines.py``): an outline whose bounding box overlaps the card's
    labelled box at IoU >= 0.5. The corners the network then learns from are cut as the product cuts them, from
    the outlines the product found."""
    from tools import photo_bench as pb

    out = []
    for photo in pb.from_voc(folder, "boxes_train").photos:  # (that set's label corrections applied)
        if photo.boxes is None:
            continue
        for pts in outlines.whole(to.BOXES, os.path.basename(photo.path)):
            bb = (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))
            iou, i = max(((pb.box_iou(bb, b[:4]), i) for i, b in enumerate(photo.boxes)), default=(0.0, -1))
            if iou >= 0.5:
                out.append((photo.path, pts, photo.boxes[i][4]))
    return out


def photo_view(img: np.ndarray, quad: np.ndarray, rng: np.random.Generator, small: bool = False
               ) -> tuple[np.ndarray, np.ndarray]:
    """Another camera's view of a photographed card: the photo shrunk (not below a card ``MIN_WIDTH`` px wide; with
    ``small``, to one ``SMALL_WIDTH`` to ``MIN_WIDTH`` wide), its light and colours changed, perhaps its channels
    swapped, blurred, noised and saved as JPEG again."""
    side = max(float(np.linalg.norm(quad[1] - quad[0])), 1.0)
    lo, hi = (SMALL_WIDTH, MIN_WIDTH) if small else (MIN_WIDTH, side)
    f = float(np.exp(rng.uniform(np.log(min(1.0, lo / side)), np.log(min(1.0, hi / side)))))
    x0, y0 = np.maximum(np.floor(quad.min(axis=0) - 0.2 * side), 0).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0) + 0.2 * side).astype(int)
    crop = img[y0:y1, x0:x1]
    q = (quad - [x0, y0]) * f
    if f < 1.0:
        crop = cv2.resize(crop, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    out = _recolour(crop, rng).astype(np.float32)
    out = out * rng.uniform(0.7, 1.15) * rng.uniform(0.9, 1.1, 3).astype(np.float32) + rng.uniform(-20, 20)
    return camera_finish(out, rng, 1.2, 6.0, 40), q.astype(np.float32)


def camera_finish(img: np.ndarray, rng: np.random.Generator, blur: float, noise: float, quality: int) -> np.ndarray:
    """A camera's last touches on a float32 BGR image: a Gaussian blur of up to ``blur`` pixels (none under 0.3),
    sensor noise of up to ``noise`` grey levels (OpenCV's generator: seeded per job), and JPEG at a quality from
    ``quality`` to 95; uint8."""
    b = rng.uniform(0, blur)
    if b > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), b)
    sensor = np.empty(img.shape, np.float32)
    cv2.randn(sensor, 0, float(rng.uniform(0, noise)))
    out = np.clip(img + sensor, 0, 255).astype(np.uint8)
    jpeg = [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(quality, 96))]
    return cv2.imdecode(cv2.imencode(".jpg", out, jpeg)[1], cv2.IMREAD_COLOR)


def photo_samples_of(job: tuple[list[tuple[str, np.ndarray, str]], int, int]
                     | tuple[list[tuple[str, np.ndarray, str]], int, int, int]
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inputs and labels (rank, suit ignored) of ``views`` views of each photographed card of a job, and of
    ``small`` views more of it seen small (the job's fourth item, default none: ``photo_view``)."""
    cards, views, seed = job[:3]
    small = job[3] if len(job) > 3 else 0
    rng = np.random.default_rng(seed)
    cv2.setRNGSeed(seed % (2**31))
    xs: list[np.ndarray] = []
    rs: list[int] = []
    from tools import photo_bench as pb

    cache: dict[str, np.ndarray] = {}
    for path, quad, rank in cards:
        if path not in cache:
            cache = {path: pb.load_photo(path, 1920)[0]}  # a job's cards come photo by photo
        for v in range(views + small):
            img, q = photo_view(cache[path], quad, rng, small=v >= views)
            for x in ix.both_corners(found_card(img, q, rng))[:, 0]:
                xs.append(x)
                rs.append(ix.RANKS.index(rank))
    n = len(xs)
    return (np.array(xs, np.float32).reshape(-1, ix.INPUT_H, ix.INPUT_W), np.array(rs, np.int64),
            np.full(n, IGNORE, np.int64))


def make_photo_data(cards: list[tuple[str, np.ndarray, str]], views: int, seed: int, workers: int = 2,
                    small: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``photo_samples_of`` over all the photographed cards, in fixed chunks (deterministic for any worker count)."""
    jobs = [(cards[i : i + 40], views, seed * 100_003 + 7_777 + i, small) for i in range(0, len(cards), 40)]
    if not jobs:
        z = np.zeros((0, ix.INPUT_H, ix.INPUT_W), np.float32)
        return z, np.zeros(0, np.int64), np.zeros(0, np.int64)
    with Pool(workers) as pool:
        out = pool.map(photo_samples_of, jobs)
    return (np.concatenate([o[0] for o in out]), np.concatenate([o[1] for o in out]),
            np.concatenate([o[2] for o in out]))


def make_data(sources: list[dict], views: int, seed: int, workers: int = 2,
              progress: Callable[[str], None] = print, small: int = 0, motion: float = 0.0
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All sources' samples (``small`` views more of each card seen small, ``motion`` the share of views smeared by
    motion: ``samples_of``); each source's jobs seeded from ``seed`` and the source's position (deterministic
    whatever the number of workers)."""
    jobs = []
    for i, src in enumerate(sources):
        extra = [c for c in ("back", "BJ", "LJ") if c in src["images"]]
        for j, chunk in enumerate([CODES[:26], CODES[26:], extra]):
            if not chunk:
                continue
            # backs and jokers: as many views as a suit's cards together, so 'no index' is learned well
            k = 1 if j < 2 else 4
            jobs.append((src, chunk, views * k, seed * 100_003 + i * 10 + j, small * k, motion))
    out = []
    t = time.time()
    with Pool(workers) as pool:
        for k, res in enumerate(pool.imap(samples_of, jobs)):
            out.append(res)
            if k % 6 == 5:
                progress(f"  data {k + 1}/{len(jobs)} jobs, {time.time() - t:.0f} s")
    return (np.concatenate([o[0] for o in out]), np.concatenate([o[1] for o in out]),
            np.concatenate([o[2] for o in out]))


# ---------------------------------------------------------------- the network


def build_model() -> Any:
    import torch
    from torch import nn

    class IndexCNN(nn.Module):
        """Four convolutions and two heads (rank, suit); about 330 k parameters."""

        def __init__(self) -> None:
            super().__init__()

            def conv(i: int, o: int) -> nn.Sequential:
                return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU())

            # one conv per scale keeps training within minutes on two cores (about 5 M multiply-adds a corner)
            self.features = nn.Sequential(conv(1, 16), nn.MaxPool2d(2), conv(16, 32), nn.MaxPool2d(2),
                                          conv(32, 48), nn.MaxPool2d(2), conv(48, 64))
            # 56 x 32 -> 7 x 4 cells of 64: where a sign sits matters, so no global pooling
            self.fc = nn.Sequential(nn.Flatten(), nn.Dropout(0.3), nn.Linear(64 * 7 * 4, 128), nn.ReLU())
            self.rank = nn.Linear(128, len(ix.RANKS))
            self.suit = nn.Linear(128, len(ix.SUITS))

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = self.fc(self.features(x))
            return self.rank(h), self.suit(h)

    return IndexCNN()


def train(x: np.ndarray, yr: np.ndarray, ys: np.ndarray, epochs: int, seed: int,
          progress: Callable[[str], None] = print) -> Any:
    import torch
    from torch import nn

    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    n = len(x)
    bs = 256
    steps = epochs * ((n + bs - 1) // bs)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    lossf = nn.CrossEntropyLoss(label_smoothing=0.02, ignore_index=IGNORE)
    xt, rt, st = torch.from_numpy(x[:, None]), torch.from_numpy(yr), torch.from_numpy(ys)
    g = torch.Generator().manual_seed(seed)
    t = time.time()
    for ep in range(epochs):
        model.train()
        perm = torch.randperm(n, generator=g)
        tot, right_r, right_s = 0.0, 0, 0
        for i in range(0, n, bs):
            idx = perm[i : i + bs]
            xb = xt[idx]
            # light extra jitter per batch: a pixel or two of shift (the finder's error at the crop's scale)
            dx, dy = (int(v) for v in torch.randint(-2, 3, (2,), generator=g))
            xb = torch.roll(xb, shifts=(dy, dx), dims=(2, 3))
            pr, ps = model(xb)
            loss = lossf(pr, rt[idx]) + lossf(ps, st[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(idx)
            right_r += int((pr.argmax(1) == rt[idx]).sum())
            right_s += int((ps.argmax(1) == st[idx]).sum())
        progress(f"  epoch {ep + 1}/{epochs}: loss {tot / n:.4f}, rank {right_r / n:.4f}, suit {right_s / n:.4f}, "
                 f"{time.time() - t:.0f} s")
    model.eval()
    return model


def export(model: Any, path: str) -> None:
    """Write the ONNX file (opset 13, outputs named rank and suit) and check cv2.dnn reads it alike."""
    import torch

    dummy = torch.zeros(2, 1, ix.INPUT_H, ix.INPUT_W)
    torch.onnx.export(model, (dummy,), path, input_names=["corner"], output_names=["rank", "suit"],
                      opset_version=13, dynamic_axes={"corner": {0: "n"}, "rank": {0: "n"}, "suit": {0: "n"}},
                      dynamo=False)
    x = np.random.default_rng(0).normal(0, 1, (5, 1, ix.INPUT_H, ix.INPUT_W)).astype(np.float32)
    with torch.no_grad():
        pr, ps = (t.numpy() for t in model(torch.from_numpy(x)))
    net = ix.IndexNet(path)
    net.net.setInput(x)
    cr, cs = net.net.forward(["rank", "suit"])
    if not (np.allclose(cr, pr, atol=1e-3) and np.allclose(cs, ps, atol=1e-3)):
        raise RuntimeError(f"cv2.dnn disagrees with PyTorch on {path}")


def evaluate(net: ix.IndexNet, x: np.ndarray, yr: np.ndarray, ys: np.ndarray) -> dict:
    """Per-corner accuracy of the exported network on samples (through cv2.dnn)."""
    pr, ps = [], []
    for i in range(0, len(x), 512):
        a, b = net.probs(x[i : i + 512, None])
        pr.append(a)
        ps.append(b)
    r, s = np.concatenate(pr), np.concatenate(ps)
    idx = yr != NONE[0]
    return {"corners": int(len(x)), "rank_acc": round(float((r.argmax(1) == yr).mean()), 4),
            "suit_acc": round(float((s.argmax(1) == ys).mean()), 4),
            "index_rank_acc": round(float((r.argmax(1)[idx] == yr[idx]).mean()), 4),
            "index_suit_acc": round(float((s.argmax(1)[idx] == ys[idx]).mean()), 4)}


def run(decks_root: str, photos_root: str | None, out: str, views: int = 12, epochs: int = 12, seed: int = 1,
        workers: int = 2, progress: Callable[[str], None] = print, threads: int | None = None,
        photo_views: int = 16, outlines: to.Outlines | None = None, small_views: int = 0, motion: float = 0.0
        ) -> dict:
    """The whole training: data, network, ONNX export, measurement on the tuning themes. Returns a report.
    ``small_views``: views of each card (and photographed card) more, seen ``SMALL_WIDTH`` to ``MIN_WIDTH`` px wide.
    ``motion``: the share of the designs' views smeared by a moving card (``camera_view``; 0 in the shipped recipe).
    ``outlines``: the training photos' card outlines (default: the corner network's in
    ``tools/training_outlines.json``)."""
    import torch

    # a shared machine: OpenMP threads that wait for each other's cores run slower than one thread
    torch.set_num_threads(threads or workers)
    t0 = time.time()
    outlines = outlines or to.load(to.INDEX)
    sources = load_sources(decks_root, photos_root, TRAIN_THEMES, TRAIN_DRAWN, FOREIGN_LETTERS, PAINTED_VARIANTS,
                           outlines)
    progress(f"sources: {', '.join(s['name'] for s in sources)}")
    x, yr, ys = make_data(sources, views, seed, workers, progress, small=small_views, motion=motion)
    photo_corners = 0
    boxes = os.path.join(photos_root, BOXES_TRAIN) if photos_root else ""
    if os.path.isdir(boxes):
        cards = photo_cards(boxes, outlines)
        px, pr, ps = make_photo_data(cards, photo_views, seed, workers, small=small_views)
        progress(f"{len(cards)} photographed cards of {boxes} found and labelled: {len(px)} corners")
        x, yr, ys = np.concatenate([x, px]), np.concatenate([yr, pr]), np.concatenate([ys, ps])
        photo_corners = len(px)
    t_data = time.time() - t0
    progress(f"{len(x)} corners in {t_data:.0f} s")
    model = train(x, yr, ys, epochs, seed, progress)
    t_train = time.time() - t0 - t_data
    export(model, out)
    network_stamp.stamp(out, seed)
    tune_sources = load_sources(decks_root, None, TUNE_THEMES, [])
    vx, vr, vs = make_data(tune_sources, 3, seed + 7, workers, progress)
    progress("thresholds on the tuning themes")
    tune_reads = tune_views(tune_sources, max(2, views // 2), seed + 11, out)
    report = {"model": os.path.basename(out), "bytes": os.path.getsize(out), "train_corners": int(len(x)),
              "views": views, "small_views": small_views, **({"motion": motion} if motion else {}),
              "thresholds": choose_net_thresholds(tune_reads),
              "epochs": epochs, "seed": seed, "data_s": round(t_data, 1), "train_s": round(t_train, 1),
              "total_s": round(time.time() - t0, 1), "tune_themes": evaluate(ix.IndexNet(out), vx, vr, vs),
              "photo_corners": photo_corners, "photo_views": photo_views,
              "train_sources": [s["name"] for s in sources] + ([BOXES_TRAIN] if photo_corners else []),
              "made_with": network_stamp.versions()}
    with open(os.path.splitext(out)[0] + ".json", "w") as f:
        json.dump(report, f, indent=1)
    return report


# ---------------------------------------------------------------- the reader's thresholds


def retune(decks_root: str, out: str, views: int = 5, seed: int = 1) -> dict:
    """Choose the thresholds again for the model at ``out`` (the training report beside it is updated)."""
    report_path = os.path.splitext(out)[0] + ".json"
    report = {}
    if os.path.exists(report_path):
        with open(report_path) as f:
            report = json.load(f)
    reads = tune_views(load_sources(decks_root, None, TUNE_THEMES, []), views, seed + 11, out)
    report["thresholds"] = choose_net_thresholds(reads)
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    return report


class TuneRead(NamedTuple):
    """One tuning read of the generic reader: the card's code, what was read, by which path, and the smallest
    probability of the rank and of the suit behind it (0 when the cues disagree)."""

    truth: str
    label: str
    path: str
    p_rank: float
    p_suit: float

    @property
    def score(self) -> float:
        """The weakest probability behind the reading (``index_net.NetRead.score``)."""
        return min(self.p_rank, self.p_suit)


def _tune_read(code: str, r: ix.NetRead) -> TuneRead:
    return TuneRead(code, r.label, r.path, r.p_rank, r.p_suit)


def tune_views(sources: list[dict], views: int, seed: int, net_path: str) -> list[TuneRead]:
    """(truth, label, score, path, p_rank, p_suit) of the generic reader (``index_net.read_generic``) on camera
    views of each card of the sources, each card found and rectified as the product does (big when the product
    reads big)."""
    net = ix.IndexNet(net_path)
    out = []
    for i, src in enumerate(sources):
        rng = np.random.default_rng(seed * 7919 + i)
        cv2.setRNGSeed(seed * 7919 + i)
        for code in CODES:
            if code not in src["images"]:
                continue
            for _ in range(views):
                width = float(np.exp(rng.uniform(np.log(55), np.log(src["max_w"]))))
                img, quad = camera_view(_recolour(src["images"][code], rng), rng, width)
                got = found_card(img, quad, rng)
                big = got if got.shape[1] > geometry.CW else None
                card = got if big is None else cv2.resize(big, (geometry.CW, geometry.CH), interpolation=cv2.INTER_AREA)
                r = ix.read_generic(card, big, net=net)
                out.append(_tune_read(code, r))
                if code[0] in ix.COURTS:
                    # a court with its bottom-right index hidden: the 'court_one' path's reads
                    r = ix.read_generic(_hide_corner(card), None if big is None else _hide_corner(big), net=net)
                    out.append(_tune_read(code, r))
                else:
                    # the same card as if its pips had not been found: the 'corners' path's reads (on rendered
                    # designs the pips nearly always are, which would leave that path untuned); an ace whose field
                    # shows ink only in its middle takes the 'ace' path instead
                    r = ix.read_generic(card, big, pips=False, net=net)
                    out.append(_tune_read(code, r))
                    # and with its bottom-right index hidden (glare, a shadow, a finger, the photo's edge on a real
                    # table): the 'one' path's reads, pips and one corner
                    hidden, hidden_big = _hide_corner(card), None if big is None else _hide_corner(big)
                    out.append(_tune_read(code, ix.read_generic(hidden, hidden_big, net=net)))
                    # and with its bottom-right index hidden and its pips not found (the card lies partly under
                    # another, which hides both): the 'number_one' path's reads, one corner alone
                    out.append(_tune_read(code, ix.read_generic(hidden, hidden_big, pips=False, net=net)))
    return out


def _hide_corner(card: np.ndarray) -> np.ndarray:
    """The card with its bottom-right index corner painted over in the colour of its paper."""
    out = card.copy()
    h, w = out.shape[:2]
    paper = np.median(out.reshape(-1, out.shape[2]), axis=0)
    out[int((1 - ix.BOX[1]) * h) :, int((1 - ix.BOX[0]) * w) :] = paper
    return out


def choose_net_thresholds(reads: list[TuneRead]) -> dict:
    """Per path, the lowest probability with no wrong read on the tuning reads, then its error odds divided by
    four (the safety gap: held-out designs are harder than the tuning ones); at least ``FLOOR``. On the pip paths
    (``two``, ``one``) the suit and the rank get their own: the suit's from the reads whose suit was wrong (floor
    ``FLOOR``: the suit has no other cue), the rank's from the reads whose rank was wrong (floor ``RANK_FLOOR``: the
    pip count has already agreed with it). A path with fewer than ``MIN_READS`` tuning reads keeps the reader's
    untuned default (one corner alone: never accepted)."""
    th: dict = {}

    def cut(wrong: list[float], floor: float) -> float:
        return max(floor, 1 - (1 - max(wrong)) / 4) if wrong else floor

    for path in ("two", "one", "court", "corners", "partial", "court_one", "number_one", "ace"):
        mine = [r for r in reads if r.path == path and r.score > 0]
        total = sum(1 for r in reads if r.path == path)
        entry: dict
        if path in ix.PIP_PATHS:
            wrong_suit = [r.p_suit for r in mine if r.label[1] != r.truth[1]]
            wrong_rank = [r.p_rank for r in mine if r.label[0] != r.truth[0]]
            thr, thr_rank = cut(wrong_suit, FLOOR), cut(wrong_rank, RANK_FLOOR)
            if total < MIN_READS:
                thr = thr_rank = ix.NET_THRESHOLDS[path]
            right = sum(1 for r in mine if r.label == r.truth and r.p_suit >= thr and r.p_rank >= thr_rank)
            entry = {"threshold": round(thr, 6), "rank_threshold": round(thr_rank, 6),
                     "wrong_suit_below": len(wrong_suit), "worst_wrong_suit": round(max(wrong_suit, default=0.0), 6),
                     "wrong_rank_below": len(wrong_rank), "worst_wrong_rank": round(max(wrong_rank, default=0.0), 6)}
        else:
            wrong = [r.score for r in mine if r.label != r.truth]
            # (a court read by one corner has no second cue: the corners' floor)
            floor = CORNERS_FLOOR if path in ("corners", "court_one", "number_one") else FLOOR
            thr = cut(wrong, floor) if total >= MIN_READS else ix.NET_THRESHOLDS[path]
            right = sum(1 for r in mine if r.label == r.truth and r.score >= thr)
            entry = {"threshold": round(thr, 6), "wrong_below": len(wrong),
                     "worst_wrong": round(max(wrong, default=0.0), 6)}
        th[path] = {**entry, "accepted_right": right, "reads": total}
    return th
