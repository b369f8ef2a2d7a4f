"""The photograph benchmark: how many cards a recogniser finds and reads in real photographs.

A *set* is a folder of images with their labels. Any folder laid out as images plus a ``labels.json`` of
``{"photo.jpg": ["AS", "TD", ...]}`` (the face-up cards of each photo) is a set; the three development sets of
``../shared/photos`` keep their own label formats and are read in place:

- ``poker_table/train``: ``train_labels.csv``, one row per photo (``T1..T5``, ``Pn.1``, ``Pn.2``; ``null`` = face
  down or absent; ranks written ``10``);
- ``desk/query``: ``desk/labels.json``; ``desk/template``: one card per photo, its code in the file name
  (``clubs_1.jpg`` = AC, 11 = J, 12 = Q, 13 = K);
- ``boxes/train``, ``boxes/test``: Pascal VOC ``.xml`` per photo with a box around each whole card and its rank only.

Scoring per set: ``cards`` (labelled face-up cards), ``found``, ``read`` (read right), ``wrong`` (a code named that
is not the truth), ``ms`` (median milliseconds of one full ``identify`` of a photo, resized to at most ``max_side``).
Then the speed target's own measure: a full read of 1920 x 1080 frames cut from the photos that have the pixels,
on one OpenCV thread, beside a fixed OpenCV workload on the same frames in the same run (``speed``).
Where labels are a list of codes without positions, ``found`` is per photo the smaller of the number of outlines
found and of cards labelled, and reads are matched to the labels as multisets (a code named twice when the photo
holds it once: one right, one wrong). With boxes (``boxes``) a labelled card is found when an outline's bounding
box overlaps its box by IoU >= 0.5; a read is right when its rank is the box's, wrong when not. A named read that
meets no box so is matched, after those, to a box of its rank lying half inside its outline, or else to any box
lying nearly all (0.8) inside it: a card partly under another is outlined whole while its box holds only its part
in view. A code named on no labelled card is counted wrong too (``stray``, also shown on its own).

The issue's targets are about *whole* face-up cards, so where the labels tell which cards are whole the same scores
are also given for them alone (``whole``, ``w_found``, ``w_read``): on ``poker_table`` the row of five and each
player's top card (``Pn.2``; ``Pn.1`` lies under it); with boxes, a card whose box meets no other labelled card's box
(``BOX_TOUCH``), does not run to the photo's edge (``BOX_EDGE``), and is not listed in ``NOT_WHOLE`` (the cards the
boxes sets show partly under a book, a glove, a cable or another card, which their labels do not say: judged by eye
on crops of each box, without the recogniser's results). Sets labelled by a list of codes alone say nothing of it
(``-``).
"""

from __future__ import annotations

import csv
import glob
import json
import os
import statistics
import time
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import cv2
import numpy as np

from tools.synth import TILT_FOCAL, tilted_view
from vision.deck import IMAGE_EXTENSIONS as IMAGE_EXT  # (the photos a deck folder is enrolled from, the same formats)
from vision.deck import Deck, enroll_dir

SUIT_WORDS = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}
RANK_NUMBERS = {1: "A", 10: "T", 11: "J", 12: "Q", 13: "K"}
RANK_WORDS = {"ace": "A", "king": "K", "queen": "Q", "jack": "J", "ten": "T", "nine": "9", "eight": "8",
              "seven": "7", "six": "6", "five": "5", "four": "4", "three": "3", "two": "2"}


class BenchError(Exception):
    """A folder or label file that cannot be benchmarked (the message names it)."""


@dataclass
class Photo:
    """One labelled photo: its path, the face-up codes, and for box-labelled sets the boxes (x0, y0, x1, y1, rank)."""

    path: str
    codes: list[str]
    boxes: list[tuple[float, float, float, float, str]] | None = None
    whole: list[bool] | None = None  # per code: lies whole in the photo (None: the labels do not say)


@dataclass
class PhotoSet:
    """A named set of labelled photos."""

    name: str
    photos: list[Photo]
    note: str = ""


@dataclass
class SetResult:
    """The scores of one set."""

    name: str
    photos: int = 0
    cards: int = 0
    found: int = 0
    read: int = 0
    wrong: int = 0
    stray: int = 0
    whole: int | None = None
    w_found: int | None = None
    w_read: int | None = None
    ms: list[float] = field(default_factory=list)
    wrong_examples: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  # photos OpenCV could not decode: left out of every count

    def row(self) -> dict:
        return {"set": self.name, "photos": self.photos, "cards": self.cards, "found": self.found,
                "read": self.read, "wrong": self.wrong, "stray": self.stray,
                "whole": self.whole, "w_found": self.w_found, "w_read": self.w_read, "unreadable": self.unreadable,
                "ms": round(statistics.median(self.ms), 1) if self.ms else None,
                "found_pct": round(100 * self.found / self.cards, 1) if self.cards else None,
                "read_pct": round(100 * self.read / self.cards, 1) if self.cards else None}


# ---------------------------------------------------------------- label formats


def _code(rank: str, suit: str) -> str:
    rank = {"10": "T", "1": "A"}.get(rank, rank)
    return rank.upper() + suit.upper()


def _images_in(folder: str) -> dict[str, str]:
    return {f: os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.lower().endswith(IMAGE_EXT)}


def from_labels_json(folder: str, labels_path: str | None = None) -> PhotoSet:
    """A folder of images and ``labels.json`` (``{"photo.jpg": ["AS", ...]}``); photos without labels are left out."""
    labels_path = labels_path or os.path.join(folder, "labels.json")
    try:
        with open(labels_path) as f:
            labels = json.load(f)
    except (OSError, ValueError) as exc:
        raise BenchError(f"cannot read labels {labels_path}: {exc}") from exc
    if not isinstance(labels, dict):
        raise BenchError(f"{labels_path}: expected an object of photo name -> list of card codes")
    photos = []
    for name, codes in sorted(labels.items()):
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            raise BenchError(f"{labels_path}: photo {name} is not in {folder}")
        if not isinstance(codes, list) or not all(isinstance(c, str) and len(c) == 2 for c in codes):
            raise BenchError(f"{labels_path}: {name}: expected a list of two-letter card codes")
        photos.append(Photo(path, [c.upper() for c in codes]))
    return PhotoSet(os.path.basename(os.path.normpath(folder)), photos)


# Labels of the development sets found wrong by eye, each with what the photo shows; applied when the set is read and
# listed in the bench's output, so a reader's right answer is not counted wrong and the correction stays visible.
LABEL_CORRECTIONS = {
    # the left player's top card is the jack of spades (black J and spade signs in both corners, spade pips on the
    # picture); the CSV says JD. Nothing else in that photo is a JS.
    ("poker_table", "Train_06", "P4.2"): ("JD", "JS"),
    # the right player's covered card is the jack of spades (black J, a spade in the corner and on the picture: a
    # pointed leaf on a stem, no trefoil); the CSV says JC. Nothing else in that photo is a JS.
    ("poker_table", "Train_18", "P1.1"): ("JC", "JS"),
    # the left player's covered card, under the five of hearts, is the ace of spades (a black A over a pointed spade
    # sign with its stem, and the ornate ace's scroll beside it); the CSV says AC, which is the row's fifth card.
    # Nothing else in that photo is an AS.
    ("poker_table", "Train_13", "P4.1"): ("AC", "AS"),
    # one card alone on a carpet: "10" in both corners and ten diamond pips; the XML says nine
    ("boxes_train", "IMG_2396", "0"): ("9", "T"),
}
# Face-up cards in a photo that its labels leave out, each with what the photo shows; added when the set is read and
# listed in the bench's output like the corrections
LABELS_MISSING = {
    # at the photo's right edge, beside the microphone, an ace of diamonds lies cut off by the frame, a cable across
    # it: a red A over a diamond in its top-left corner and the ace's big middle diamond (the labels list the two
    # cards on the laptop)
    ("desk_query", "q12.jpg"): ["AD"],
}

# The boxes sets' cards that lie apart from every other labelled card and inside the frame but partly under something
# (what, for each): not whole, so out of the whole cards' scores. The boxes are named "photo#n", n their place in the
# photo's XML from 0. Judged by eye (session 30) on a crop of each box with a margin, blind to what the recogniser
# found; the cards themselves stay in the set's other scores.
NOT_WHOLE: dict[str, dict[str, str]] = {
    "boxes_test": {
        "IMG_2530#0": "a black handle", "IMG_2532#0": "a cribbage board", "IMG_2539#0": "a newspaper",
        "IMG_2540#0": "a book", "IMG_2544#0": "a rug", "IMG_2550#0": "a book", "IMG_2551#0": "a book",
        "IMG_2554#0": "a book", "IMG_2555#0": "a book", "IMG_2557#0": "a cut-out parrot",
        "IMG_2580#2": "a remote control", "IMG_2583#1": "a game case", "IMG_2583#3": "a game case",
        "IMG_2585#0": "a game case", "IMG_2585#1": "a game case", "IMG_2592#3": "the king of clubs",
        "IMG_2634#1": "the jack of spades", "IMG_2647#1": "the ten of diamonds",
    },
    "boxes_train": {
        "IMG_2450#0": "a cable", "IMG_2471#0": "a lamp's black stand", "IMG_2472#0": "a lamp's black stand",
        "IMG_2501#0": "a can", "IMG_2503#0": "a knife", "IMG_2505#0": "a book", "IMG_2512#0": "a furry toy",
        "IMG_2514#0": "a wire mesh",
        "IMG_2515#0": "an orange toy", "IMG_2516#0": "a glittery bag", "IMG_2518#0": "a picture book",
        "IMG_2519#0": "a blue toy", "IMG_2520#0": "a book", "IMG_2523#0": "a book", "IMG_2527#0": "a sheet of paper",
        "IMG_2529#0": "a piece of cloth", "IMG_2535#0": "a book", "IMG_2536#0": "a book", "IMG_2537#0": "a candle",
        "IMG_2538#0": "a newspaper", "IMG_2542#0": "a rug", "IMG_2543#0": "a rug", "IMG_2545#0": "a black cloth",
        "IMG_2546#0": "a black glove", "IMG_2548#0": "a book", "IMG_2549#0": "a CD case", "IMG_2552#0": "a book",
        "IMG_2553#0": "a sheet of paper", "IMG_2556#0": "a box", "IMG_2565#2": "a white cloth",
        "IMG_2584#3": "a game case", "IMG_2586#1": "a game case", "IMG_2586#2": "a game case",
        "IMG_2588#1": "a game case", "IMG_2589#0": "a cable", "IMG_2589#1": "a cable", "IMG_2589#3": "a cable",
        "IMG_2621#0": "a cable", "IMG_2667#0": "the ten of diamonds",
    },
}


def from_poker_csv(folder: str) -> PhotoSet:
    """``poker_table/train``: the course project's CSV (rows name photos ``Train_NN``, files are ``train_NN.jpg``),
    with ``LABEL_CORRECTIONS`` applied."""
    path = os.path.join(folder, "train_labels.csv")
    files = {os.path.splitext(f)[0].lower(): p for f, p in _images_in(folder).items()}
    photos = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            img = files.get(row["Image"].lower())
            if img is None:
                continue  # the CSV lists photos of the original set that are not kept here
            codes, whole = [], []
            for key, val in row.items():
                fix = LABEL_CORRECTIONS.get(("poker_table", row["Image"], key))
                if fix is not None and val == fix[0]:
                    val = fix[1]
                if key[0] in "TP" and key != "Image" and val and val != "null":
                    codes.append(_code(val[:-1], val[-1]))
                    whole.append(not key.endswith(".1"))  # Pn.1 lies under Pn.2
            photos.append(Photo(img, codes, whole=whole))
    return PhotoSet("poker_table", photos, "row of five + two overlapping cards per player; covered cards count")


def from_template_names(folder: str) -> PhotoSet:
    """``desk/template``: one card per photo, named ``suit_N.jpg``."""
    photos = []
    for f, p in _images_in(folder).items():
        stem = os.path.splitext(f)[0]
        suit, _, num = stem.partition("_")
        if suit.lower() not in SUIT_WORDS or not num.isdigit():
            continue
        n = int(num)
        photos.append(Photo(p, [RANK_NUMBERS.get(n, str(n)) + SUIT_WORDS[suit.lower()]]))
    return PhotoSet("desk_template", photos, "one card per photo")


def from_voc(folder: str, name: str) -> PhotoSet:
    """Pascal VOC ``.xml`` per photo: boxes with a rank word (``nine`` ... ``ace``), no suit; ``LABEL_CORRECTIONS``
    and ``NOT_WHOLE`` of the set ``name`` applied (a box named by its position in the file, from 0)."""
    photos = []
    images = {os.path.splitext(f)[0]: p for f, p in _images_in(folder).items()}
    for xml in sorted(glob.glob(os.path.join(folder, "*.xml"))):
        stem = os.path.splitext(os.path.basename(xml))[0]
        if stem not in images:
            continue
        root = ET.parse(xml).getroot()
        size = (float(root.findtext("size/width") or 0), float(root.findtext("size/height") or 0))
        boxes = []
        for obj in root.iter("object"):
            rank = RANK_WORDS.get((obj.findtext("name") or "").strip().lower())
            bb = obj.find("bndbox")
            if rank is None or bb is None:
                continue
            x0, y0, x1, y1 = (float(bb.findtext(k) or 0) for k in ("xmin", "ymin", "xmax", "ymax"))
            fix = LABEL_CORRECTIONS.get((name, stem, str(len(boxes))))
            if fix is not None and rank == fix[0]:
                rank = fix[1]
            boxes.append((x0, y0, x1, y1, rank))
        covered = NOT_WHOLE.get(name, {})
        whole = [w and f"{stem}#{i}" not in covered for i, w in enumerate(_whole_boxes(boxes, size))]
        photos.append(Photo(images[stem], [b[4] for b in boxes], boxes, whole))
    return PhotoSet(name, photos, "rank only (no suit); found by box IoU >= 0.5")


BOX_TOUCH = 0.01  # boxes meeting over more than this share of the smaller one: cards that touch or overlap
BOX_EDGE = 2.0  # px: a box this close to the photo's edge may be a card the frame cuts


def _whole_boxes(boxes: list[tuple[float, float, float, float, str]], size: tuple[float, float]) -> list[bool]:
    """Per box: the card lies apart from every other labelled card and inside the frame (``size``: width, height;
    0 when the file does not say, and then only the overlap is checked)."""

    def area(b: tuple[float, ...]) -> float:
        return (b[2] - b[0]) * (b[3] - b[1])

    out = []
    for i, a in enumerate(boxes):
        apart = all(_box_meet(a, b) <= BOX_TOUCH * min(area(a), area(b)) for j, b in enumerate(boxes) if j != i)
        inside = a[0] > BOX_EDGE and a[1] > BOX_EDGE and (
            size[0] <= 0 or (a[2] < size[0] - BOX_EDGE and a[3] < size[1] - BOX_EDGE))
        out.append(apart and inside)
    return out


def discover(root: str) -> tuple[list[PhotoSet], list[str]]:
    """The sets under ``root``, and a reason for each known set that is missing (for the caller to print)."""
    if not os.path.isdir(root):
        raise BenchError(f"photo folder not found: {root}")
    sets: list[PhotoSet] = []
    missing: list[str] = []
    if os.path.exists(os.path.join(root, "labels.json")) and not os.path.isdir(os.path.join(root, "query")):
        return [from_labels_json(root)], missing
    known = False
    pt = os.path.join(root, "poker_table", "train")
    if os.path.exists(os.path.join(pt, "train_labels.csv")):
        sets.append(from_poker_csv(pt))
        known = True
    desk = os.path.join(root, "desk")
    if os.path.exists(os.path.join(desk, "labels.json")) and os.path.isdir(os.path.join(desk, "query")):
        s = from_labels_json(os.path.join(desk, "query"), os.path.join(desk, "labels.json"))
        s.name = "desk_query"
        for photo in s.photos:
            photo.codes += LABELS_MISSING.get((s.name, os.path.basename(photo.path)), [])
        sets.append(s)
        known = True
    if os.path.isdir(os.path.join(desk, "template")):
        sets.append(from_template_names(os.path.join(desk, "template")))
    for part in ("train", "test"):
        folder = os.path.join(root, "boxes", part)
        if os.path.isdir(folder):
            sets.append(from_voc(folder, f"boxes_{part}"))
            known = True
    for sub in sorted(os.listdir(root)):
        d = os.path.join(root, sub)
        if sub not in ("poker_table", "desk", "boxes") and os.path.exists(os.path.join(d, "labels.json")):
            sets.append(from_labels_json(d))
            known = True
    for name, what in (("poker_table", "poker_table/train/train_labels.csv"), ("desk", "desk/labels.json"),
                       ("boxes", "boxes/train, boxes/test")):
        if not os.path.exists(os.path.join(root, name)):
            missing.append(f"{name}: not in {root} (needs {what})")
    if not known and not sets:
        raise BenchError(f"no labelled photos in {root}: expected images plus labels.json, or the development sets")
    return sets, missing


# ---------------------------------------------------------------- scoring


def load_photo(path: str, max_side: int) -> tuple[np.ndarray, float]:
    """The photo, shrunk so its longer side is at most ``max_side``, and the factor it was shrunk by."""
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        raise BenchError(f"unreadable image: {path}")
    return shrunk(img, max_side)


def shrunk(img: np.ndarray, max_side: int) -> tuple[np.ndarray, float]:
    """``img`` shrunk (by area) so its longer side is at most ``max_side``, and the factor it was shrunk by."""
    s = min(1.0, max_side / max(img.shape[:2]))
    if s < 1.0:
        img = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    return img, s


def _box_meet(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """The area two boxes (x0, y0, x1, y1, ...) share."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _box_inside(box: tuple[float, float, float, float], quad: np.ndarray) -> float:
    """The share of ``box`` (x0, y0, x1, y1) that lies inside the convex ``quad``."""
    x0, y0, x1, y1 = box
    area = (x1 - x0) * (y1 - y0)
    if area <= 0:
        return 0.0
    rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    inter, _ = cv2.intersectConvexConvex(rect, np.asarray(quad, np.float32))
    return float(inter) / area


def box_iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    inter = _box_meet(a, b)
    ua = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / ua if ua > 0 else 0.0


def score_photo(photo: Photo, reads: list, scale: float, res: SetResult) -> None:
    """Add one photo's reads (``vision.recognise.Read``) to ``res``."""
    res.photos += 1
    res.cards += len(photo.codes)
    if photo.whole is not None:
        res.whole = (res.whole or 0) + sum(photo.whole)
        res.w_read = res.w_read or 0
        if photo.boxes is not None:
            res.w_found = res.w_found or 0
    if photo.boxes is not None:
        boxes = [(x0 * scale, y0 * scale, x1 * scale, y1 * scale) for x0, y0, x1, y1, _ in photo.boxes]
        used: set[int] = set()

        def count(code: str | None, i: int) -> None:
            used.add(i)
            res.found += 1
            whole = photo.whole is not None and photo.whole[i]
            if whole:
                res.w_found += 1
            if code is None:
                return
            if code[0] == photo.boxes[i][4]:
                res.read += 1
                if whole:
                    res.w_read += 1
            else:
                res.wrong += 1
                res.wrong_examples.append(f"{os.path.basename(photo.path)}: {code} on a {photo.boxes[i][4]}")

        def inside_shares(quad: np.ndarray) -> list[tuple[float, int]]:
            """(share inside ``quad``, index) of each box not yet taken."""
            return [(_box_inside(b, quad), i) for i, b in enumerate(boxes) if i not in used]

        def own_boxes(code: str, share: list[tuple[float, int]]) -> list[tuple[float, int]]:
            """Those of ``share`` of the rank of ``code`` lying half inside: a covered card's part in view."""
            return [(v, i) for v, i in share if v >= 0.5 and photo.boxes[i][4] == code[0]]

        left = []
        for r in sorted(reads, key=lambda r: r.code is None):
            q = np.asarray(r.quad)
            bb = (float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max()))
            best = max(((box_iou(bb, b), i) for i, b in enumerate(boxes) if i not in used), default=(0.0, -1))
            if best[0] >= 0.5 and r.code is not None and photo.boxes[best[1]][4] != r.code[0]:
                # a covered card read with its whole outline can overlap the box of the card on it more than its own
                # box, which holds only its part in view: a box of its rank lying half inside the outline is its own
                mine = own_boxes(r.code, inside_shares(q))
                if mine:
                    best = (best[0], max(mine)[1])
            if best[0] >= 0.5:
                count(r.code, best[1])
            elif r.code is not None:
                left.append(r)
        for r in left:
            # a card partly under another is read with its whole outline, while its box holds only the part in
            # view: it is a box of its rank lying half inside the outline, or else any box lying (nearly) all inside
            share = inside_shares(np.asarray(r.quad))
            inside = own_boxes(r.code, share) or [(v, i) for v, i in share if v >= 0.8]
            if inside:
                count(r.code, max(inside)[1])
            else:
                res.wrong += 1
                res.stray += 1
                res.wrong_examples.append(f"{os.path.basename(photo.path)}: {r.code} on no labelled card")
        return
    res.found += min(len(reads), len(photo.codes))
    truth = Counter(photo.codes)
    named = Counter(r.code for r in reads if r.code is not None)
    right = truth & named
    res.read += sum(right.values())
    if photo.whole is not None:
        # a list without places: a whole card counts as read when its code was named (found is not known per card)
        whole_codes = Counter(c for c, w in zip(photo.codes, photo.whole, strict=True) if w)
        res.w_read += sum((whole_codes & named).values())
    bad = named - right
    res.wrong += sum(bad.values())
    for code in bad.elements():
        res.wrong_examples.append(f"{os.path.basename(photo.path)}: {code} (truth {' '.join(photo.codes)})")


def _noisy(img: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    return np.clip(img.astype(np.float32) + rng.normal(0, sigma, img.shape), 0, 255).astype(np.uint8)


def _levels(img: np.ndarray, bgr: tuple[float, float, float], add: float = 0.0) -> np.ndarray:
    return np.clip(img.astype(np.float32) * np.float32(bgr) + add, 0, 255).astype(np.uint8)


def _half_saturation(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    hsv[..., 1] //= 2
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)


def _webcam(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    k = min(1.0, WEBCAM_SIDE / max(img.shape[:2]))
    small = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", _noisy(small, 4, rng), [cv2.IMWRITE_JPEG_QUALITY, 50])
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def _cast_shadow(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A sharp-edged shadow band, as a lamp casts of an arm or a bottle: a quarter of the photo's shorter side wide,
    through a random point of its middle half at a random angle, the light in it 0.45-0.6 of the rest, its edges
    softened by about a pixel (at 1000 px)."""
    h, w = img.shape[:2]
    px, py = rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h
    a = rng.uniform(0, np.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.abs(np.float32(np.cos(a)) * (xx - px) + np.float32(np.sin(a)) * (yy - py))
    band = (d < 0.125 * min(h, w)).astype(np.float32)
    band = cv2.GaussianBlur(band, (0, 0), max(0.5, max(h, w) / 1000))
    light = 1 - np.float32(rng.uniform(0.4, 0.55)) * band
    return np.clip(img.astype(np.float32) * light[..., None], 0, 255).astype(np.uint8)


WEBCAM_SIDE = 800
# camera-like changes of a whole photo (``--alter``), to see which differences of other cameras and lights the
# recogniser is fragile to (docs/vision.md, *Photographs*, session 17); the noise is seeded by the photo's name
ALTERATIONS: dict[str, Callable[[np.ndarray, np.random.Generator], np.ndarray]] = {
    "dim": lambda img, rng: _noisy(_levels(img, (0.45, 0.45, 0.45)), 3, rng),
    "dim-clean": lambda img, rng: _levels(img, (0.45, 0.45, 0.45)),
    "warm": lambda img, rng: _levels(img, (0.7, 0.9, 1.08)),
    "cool": lambda img, rng: _levels(img, (1.1, 1.0, 0.78)),
    "half-saturation": _half_saturation,
    "over-exposed": lambda img, rng: _levels(img, (1.35, 1.35, 1.35), 10),
    "blur": lambda img, rng: cv2.GaussianBlur(img, (0, 0), 1.5),
    "webcam": _webcam,
    "shadow": _cast_shadow,
}


# camera tilts (``--alter tilt20`` ...): the photo, taken as the table seen from straight above, seen again by a camera
# turned that many degrees about the frame's horizontal axis (the far side of the table up the frame), its principal
# point in the middle and its focal length ``TILT_FOCAL`` times the frame's longer side (a phone's or a webcam's), as
# far off as makes the whole photo fit the same frame; outside the photo the frame repeats its border. The outlines
# read are mapped back onto the photo before they are scored. (The photos that are not taken from straight above are
# then seen further off than the tilt.)
TILTS = {"tilt20": 20.0, "tilt30": 30.0}
# a frame that cuts off the photo's sides (``--alter middle``): its middle columns only, as a camera set nearer or
# narrower would see the table, which is then cut card-shaped by the frame's edges; the cards outside count as missed
MIDDLE = (0.26, 0.73)


def tilt_homography(w: int, h: int, degrees: float) -> np.ndarray:
    """The homography taking a ``w`` x ``h`` photo to its view by the tilted camera of ``TILTS``."""
    return tilted_view(w, h, degrees, TILT_FOCAL)


GEOMETRIC = sorted(TILTS) + ["middle"]

# a lone card seen close by a webcam from above (``--alter closeup``), the issue's own example of a card filling about a
# third of the frame: each whole card of a set with boxes is cut out with the table round it - a window of the frame's
# shape, ``CLOSEUP_SHARE`` of whose area its box covers (more where the photo is too small for that window), moved
# inside the photo where the card lies near its edge - scaled to ``CLOSEUP_FRAME`` and saved as JPEG at
# ``CLOSEUP_JPEG``. Each window is scored as a photo of its own, where only that card is whole (the other cards' boxes
# are cut by the window's edges).
CLOSEUP_FRAME = (640, 480)
CLOSEUP_SHARE = 1 / 3
CLOSEUP_JPEG = 80
CLOSEUP = "closeup"


def closeups(img: np.ndarray, photo: Photo, scale: float = 1.0) -> Iterator[tuple[np.ndarray, Photo]]:
    """The ``--alter closeup`` frames of ``photo`` (``img``, shrunk by ``scale`` from the labels' pixels): one per
    whole card, with the photo's boxes in the frame's pixels (those the frame cuts to a sliver left out)."""
    if photo.boxes is None or photo.whole is None:
        return
    h, w = img.shape[:2]
    fw, fh = CLOSEUP_FRAME
    boxes = [(x0 * scale, y0 * scale, x1 * scale, y1 * scale, r) for x0, y0, x1, y1, r in photo.boxes]
    for i, (x0, y0, x1, y1, _) in enumerate(boxes):
        if not photo.whole[i]:
            continue
        ww = ((x1 - x0) * (y1 - y0) / CLOSEUP_SHARE * fw / fh) ** 0.5
        k = min(1.0, w / ww, h / (ww * fh / fw))
        ww, hh = ww * k, ww * k * fh / fw
        wx0 = round(min(max(0.0, (x0 + x1 - ww) / 2), w - ww))
        wy0 = round(min(max(0.0, (y0 + y1 - hh) / 2), h - hh))
        crop = img[wy0 : wy0 + round(hh), wx0 : wx0 + round(ww)]
        f = fw / crop.shape[1]
        frame = cv2.resize(crop, CLOSEUP_FRAME, interpolation=cv2.INTER_CUBIC)
        frame = cv2.imdecode(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, CLOSEUP_JPEG])[1],
                             cv2.IMREAD_COLOR)
        seen, whole = [], []
        for j, (a0, b0, a1, b1, r) in enumerate(boxes):
            c = (max(0.0, (a0 - wx0) * f), max(0.0, (b0 - wy0) * f), min(fw, (a1 - wx0) * f), min(fh, (b1 - wy0) * f))
            if j == i or (c[2] - c[0] >= 0.1 * fw and c[3] - c[1] >= 0.1 * fh):
                seen.append((*c, r))
                whole.append(j == i)
        yield frame, Photo(photo.path, [b[4] for b in seen], seen, whole)


def seen_otherwise(img: np.ndarray, alter: str) -> tuple[np.ndarray, np.ndarray]:
    """``img`` seen by another camera (one of ``GEOMETRIC``: a tilt of ``TILTS``, or the ``MIDDLE`` columns), and
    the homography that takes points of that view back onto ``img``."""
    h, w = img.shape[:2]
    if alter == "middle":
        x0, x1 = (round(v * w) for v in MIDDLE)
        return np.ascontiguousarray(img[:, x0:x1]), np.array([[1, 0, x0], [0, 1, 0], [0, 0, 1]], np.float64)
    tilt = tilt_homography(w, h, TILTS[alter])
    view = cv2.warpPerspective(img, tilt, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return view, np.linalg.inv(tilt)


def altered(img: np.ndarray, alter: str, name: str) -> tuple[np.ndarray, float]:
    """``img`` changed by the alteration ``alter`` (``ALTERATIONS``; its noise seeded by the photo's ``name``) and
    the factor it was shrunk by (the webcam's smaller picture)."""
    import zlib

    out = ALTERATIONS[alter](img, np.random.default_rng(zlib.crc32(name.encode())))
    return out, out.shape[1] / img.shape[1]


def _views(img: np.ndarray, photo: Photo, scale: float, alter: str | None
           ) -> Iterator[tuple[np.ndarray, Photo, float, np.ndarray | None]]:
    """What ``run_set`` reads of one photo (``img``, shrunk by ``scale``) changed by ``alter``: each frame, the photo
    its reads are scored against, the scale of that photo's labels in the frame, and the homography taking the frame's
    points back onto the photo (None: the same points). One frame, or with ``CLOSEUP`` one per whole card."""
    if alter == CLOSEUP:
        for frame, close in closeups(img, photo, scale):
            yield frame, close, 1.0, None
        return
    back = None
    if alter in GEOMETRIC:
        img, back = seen_otherwise(img, alter)
    elif alter is not None:
        img, k = altered(img, alter, os.path.basename(photo.path))
        scale *= k
    yield img, photo, scale, back


def run_set(rec: object, photo_set: PhotoSet, max_side: int = 1920,
            progress: Callable[[str], None] | None = None, alter: str | None = None) -> SetResult:
    """Identify every photo of a set with ``rec`` (a ``vision.recognise.Recogniser``) and score it (each photo
    changed by ``alter`` first, one of ``ALTERATIONS``, ``GEOMETRIC`` or ``CLOSEUP``: ``_views``)."""
    res = SetResult(photo_set.name)
    for photo in photo_set.photos:
        try:
            img, scale = load_photo(photo.path, max_side)
        except BenchError:
            # (one photo in a format OpenCV does not decode - a phone's HEIC - must not stop a run over hundreds: it
            # is left out of the counts and named in the report)
            res.unreadable.append(os.path.basename(photo.path))
            continue
        for frame, scored, k, back in _views(img, photo, scale, alter):
            t = time.perf_counter()
            reads = rec.identify(frame)  # type: ignore[attr-defined]
            res.ms.append((time.perf_counter() - t) * 1000)
            if back is not None:
                for r in reads:
                    r.quad = cv2.perspectiveTransform(np.asarray(r.quad, np.float32)[None], back)[0]
            score_photo(scored, reads, k, res)
    if progress:
        progress(f"{photo_set.name}: {res.row()}")
    return res


FULL_HD = (1920, 1080)


def full_hd_frames(sets: list[PhotoSet], limit: int = 40) -> list[np.ndarray]:
    """1920 x 1080 frames cut from the sets' photos that have the pixels: each photo scaled to 1920 px wide and its
    middle 1080 rows kept (the issue's speed target is a full read of a photograph of that size)."""
    frames = []
    for s in sets:
        for photo in s.photos:
            img = cv2.imread(photo.path, cv2.IMREAD_COLOR)
            if img is None or img.shape[1] < FULL_HD[0] or img.shape[0] * FULL_HD[0] < FULL_HD[1] * img.shape[1]:
                continue
            f = FULL_HD[0] / img.shape[1]
            img = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            y0 = (img.shape[0] - FULL_HD[1]) // 2
            frames.append(np.ascontiguousarray(img[y0 : y0 + FULL_HD[1]]))
            if len(frames) >= limit:
                return frames
    return frames


def reference_work(frame: np.ndarray) -> None:
    """A fixed OpenCV workload on one frame (colour conversions, a blur, edges): the peer every read is compared
    with in the same run, so a busy machine shows as a slower peer rather than as a slower reader."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
    cv2.Canny(cv2.GaussianBlur(gray, (5, 5), 0), 40, 100)


def speed(rec: object, frames: list[np.ndarray], rounds: int = 2) -> dict:
    """Median and 90th-percentile ms of one full ``identify`` of each frame (one OpenCV thread), beside the median
    ms of ``reference_work`` on the same frames measured alternately in the same run, and their ratio."""
    if not frames:
        return {"frames": 0}
    rec.identify(frames[0])  # type: ignore[attr-defined]  # (loads the network)
    ms, ref = [], []
    for _ in range(rounds):
        for f in frames:
            t = time.perf_counter()
            reference_work(f)
            ref.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            rec.identify(f)  # type: ignore[attr-defined]
            ms.append((time.perf_counter() - t) * 1000)
    med, peer = statistics.median(ms), statistics.median(ref)
    return {"frames": len(frames), "size": f"{FULL_HD[0]}x{FULL_HD[1]}", "median_ms": round(med, 1),
            "p90_ms": round(float(np.percentile(ms, 90)), 1), "reference_ms": round(peer, 2),
            "ratio_to_reference": round(med / peer, 1)}


# the boxes sets' own deck (a euchre deck, nine to ace), photographed one card at a time by a webcam over dark wood
# among boxes_train's photos: the card each shows, its suit read by eye (the labels give the rank only). With
# ``--deck boxes`` the bench enrolls it from these photos, as a user would from one photo per card, and reads with it
# (boxes_test is then read with a deck enrolled from photos it does not hold)
BOXES_DECK = {
    "cam_image11.jpg": "9D", "cam_image12.jpg": "KD", "cam_image13.jpg": "JD", "cam_image14.jpg": "JS",
    "cam_image15.jpg": "AC", "cam_image16.jpg": "AD", "cam_image17.jpg": "AH", "cam_image18.jpg": "AS",
    "cam_image19.jpg": "JH", "cam_image20.jpg": "QC", "cam_image21.jpg": "QS", "cam_image22.jpg": "QH",
    "cam_image23.jpg": "QD", "cam_image24.jpg": "KC", "cam_image25.jpg": "KH", "cam_image26.jpg": "KS",
    "cam_image27.jpg": "JC", "cam_image28.jpg": "TC", "cam_image29.jpg": "TD", "cam_image30.jpg": "TH",
    "cam_image31.jpg": "TS", "cam_image32.jpg": "9H", "cam_image33.jpg": "9C", "cam_image34.jpg": "9S",
}


def boxes_deck_folder(root: str, out: str) -> str:
    """A deck folder ``out`` of links to the boxes deck's photos under ``root`` (``../shared/photos``), each named
    by its card's code (``BOXES_DECK``), for ``vision.deck.enroll_dir``; a BenchError when they are not there."""
    folder = os.path.join(root, "boxes", "train")
    missing = [n for n in BOXES_DECK if not os.path.exists(os.path.join(folder, n))]
    if missing:
        raise BenchError(f"the boxes deck's photos are not in {folder} (missing {', '.join(missing[:3])})")
    os.makedirs(out, exist_ok=True)
    for name, code in BOXES_DECK.items():
        link = os.path.join(out, code + os.path.splitext(name)[1])
        if not os.path.exists(link):
            os.symlink(os.path.abspath(os.path.join(folder, name)), link)
    return out


def load_deck(root: str, deck_path: str) -> Deck:
    """The enrolled deck ``deck_path`` (a deck file), or with ``boxes`` the boxes deck enrolled from its photos
    under ``root`` (``BOXES_DECK``)."""
    import tempfile

    if deck_path != "boxes":
        return Deck.load(deck_path)
    with tempfile.TemporaryDirectory() as tmp:
        return enroll_dir(boxes_deck_folder(root, os.path.join(tmp, "boxes")), photos=True)


def iter_sets(root: str, only: list[str] | None = None) -> Iterator[PhotoSet]:
    sets, _ = discover(root)
    for s in sets:
        if only is None or s.name in only:
            yield s


def bench(root: str, deck_path: str | None = None, only: list[str] | None = None, max_side: int = 1920,
          progress: Callable[[str], None] | None = None, with_speed: bool = True, alter: str | None = None) -> dict:
    """Every set under ``root`` read by the generic recogniser (or the enrolled ``deck_path``): a report dict."""
    from vision import recognise

    cv2.setNumThreads(1)  # one core: the speed target is per core
    rec = recognise.Recogniser(load_deck(root, deck_path) if deck_path else None)
    sets, missing = discover(root)
    rows = []
    wrong = {}
    for s in sets:
        if only is not None and s.name not in only:
            continue
        if alter == CLOSEUP and not any(p.boxes is not None and p.whole for p in s.photos):
            missing.append(f"{s.name}: no boxes round its cards, so no close-up of them (--alter {CLOSEUP})")
            continue
        r = run_set(rec, s, max_side, progress, alter)
        rows.append({**r.row(), "note": s.note})
        if r.wrong_examples:
            wrong[s.name] = r.wrong_examples[:20]
    chosen = [s for s in sets if only is None or s.name in only]
    return {"mode": rec.mode, "deck": deck_path, "max_side": max_side, "alter": alter, "sets": rows, "missing": missing,
            "wrong_examples": wrong, "speed": speed(rec, full_hd_frames(chosen)) if with_speed else None}


def format_table(report: dict) -> str:
    """The report as a plain-text table."""
    lines = [f"mode: {report['mode']}" + (f" (deck {report['deck']})" if report["deck"] else "")
             + f", photos resized to at most {report['max_side']} px"
             + (f", each changed first: {report['alter']}" if report.get("alter") else "")]
    lines.append(f"{'set':<16}{'photos':>7}{'cards':>7}{'found':>7}{'read':>7}{'wrong':>7}{'ms':>9}"
                 f"{'whole':>7}{'found':>7}{'read':>7}")
    for r in report["sets"]:
        w = "".join(f"{'-' if r.get(k) is None else r[k]:>7}" for k in ("whole", "w_found", "w_read"))
        lines.append(f"{r['set']:<16}{r['photos']:>7}{r['cards']:>7}{r['found']:>7}{r['read']:>7}{r['wrong']:>7}"
                     f"{r['ms'] if r['ms'] is not None else '-':>9}{w}")
    lines.append("(the last three: the cards lying whole, where the labels tell - see tools/photo_bench.py)")
    for m in report["missing"]:
        lines.append(f"skipped {m}")
    for r in report["sets"]:
        if r.get("unreadable"):
            lines.append(f"left out of {r['set']}, not an image OpenCV reads (JPEG, PNG, TIFF, WebP, BMP): "
                         + ", ".join(r["unreadable"]))
    shown = {r["set"] for r in report["sets"]}
    for (name, photo, slot), (was, now) in LABEL_CORRECTIONS.items():
        if name in shown:
            lines.append(f"label corrected in {name}: {photo} {slot} {was} -> {now} (see tools/photo_bench.py)")
    for (name, photo), codes in LABELS_MISSING.items():
        if name in shown:
            lines.append(f"label added in {name}: {photo} {' '.join(codes)} (see tools/photo_bench.py)")
    for name, covered in NOT_WHOLE.items():
        if name in shown:
            lines.append(f"not whole in {name}: {len(covered)} cards partly under something, which its labels do not "
                         "say (NOT_WHOLE in tools/photo_bench.py)")
    for name, ex in report["wrong_examples"].items():
        lines.append(f"wrong in {name}: " + "; ".join(ex))
    sp = report.get("speed")
    if sp and sp.get("frames"):
        lines.append(f"full read of a {sp['size']} photo (one thread, {sp['frames']} frames cut from these photos): "
                     f"median {sp['median_ms']} ms, p90 {sp['p90_ms']} ms; {sp['ratio_to_reference']}x the "
                     f"reference OpenCV work on the same frames ({sp['reference_ms']} ms)")
    elif sp is not None:
        lines.append("full read at 1920x1080: no photo here has the pixels")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m tools.photo_bench DIR [--deck DECK.npz] [--only a,b] [--max-side N] [--json OUT] [--alter A]``."""
    import argparse
    import sys

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("photos", help="a folder of labelled photos (labels.json) or ../shared/photos")
    p.add_argument("--deck", help="an enrolled deck file (default: generic mode); 'boxes': the boxes sets' deck, "
                   "enrolled from its photos of one card each in boxes/train")
    p.add_argument("--only", help="comma-separated set names")
    p.add_argument("--max-side", type=int, default=1920)
    p.add_argument("--json", help="also write the report here")
    p.add_argument("--alter", choices=sorted(ALTERATIONS) + GEOMETRIC + [CLOSEUP],
                   help="change every photo first, as another camera or light would, see it from a camera tilted so "
                   "many degrees, keep its middle columns, or (closeup) frame each whole card alone as a webcam close "
                   "above it would (no speed line then)")
    a = p.parse_args(argv)
    try:
        report = bench(a.photos, a.deck, a.only.split(",") if a.only else None, a.max_side,
                       lambda m: print(m, file=sys.stderr, flush=True), a.alter is None, a.alter)
    except BenchError as exc:
        print(f"cardref: {exc}", file=sys.stderr)
        return 2
    print(format_table(report))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
