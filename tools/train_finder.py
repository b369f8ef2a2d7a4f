"""Train the card-finding network (``vision/finder_net.onnx``) from scratch, reproducibly (part of ``cardref vision
train``).

The network marks, at half its input's resolution, two things per pixel: the card face (any visible part of a card's
face) and the card's core (its face shrunk by ``vision.finder_net.CORE_INSET`` of the card's width on every side,
less what covers it). Cores of cards that touch or overlap stay apart, so each core is one card; the product then
fits the card's outline round it from the face map and the photo's own edges.

Data, all at ``SCENE`` pixels:
- synthetic scenes: one to eight cards of one design (the tuning decks of ``../shared/decks``, the aisleriot training
  themes, the development desk photos' cards) laid out as a table shows them - scattered, in a row, in piles and
  fans, some cut by the frame, some partly covered by objects or cables - on a real surface (the parts of the
  training photos where no card lies: boxes/train, desk/template, the empty poker table) or a drawn one, under
  uneven light, shadow bands, glare, blur, noise and JPEG;
- the training photographs themselves (boxes/train, desk/template): each card the product's finder found whole
  (its outline's box overlapping a labelled box at IoU >= 0.5) is a target; labelled cards it did not find are left
  out of the loss (their boxes are ignored), so the network learns real cards without learning to miss them.

Held out, never trained on: the drawn decks ornamental, paris, tango; boxes/test; poker_table's photos of play
(only its empty-table photo is used, as a surface); desk/query.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from multiprocessing import Pool
from typing import Any

import cv2
import numpy as np

from tools import network_stamp
from tools import train_index as ti
from tools import training_outlines as to
from vision import finder_net as fn

SCENE = (256, 192)  # (width, height) of a training scene
CROP = (160, 128)  # (width, height) of the part of a scene a training step sees
MAT_SURFACES = 40  # empty mats among the surfaces
CARD_SOURCE_W = 128  # card images are kept this wide (a scene's cards are at most ~120 px wide)


# ---------------------------------------------------------------- sources


def _card_images(sources: list[dict]) -> list[list[np.ndarray]]:
    """Each source's card faces (the 52 and any court or joker the deck has; no backs), ``CARD_SOURCE_W`` wide."""
    decks = []
    for s in sources:
        faces = []
        for code, img in sorted(s["images"].items()):
            if code == "back" or img is None or img.size == 0:
                continue
            k = CARD_SOURCE_W / img.shape[1]
            faces.append(cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA))
        if faces:
            decks.append(faces)
    return decks


def _photo_targets(photos_root: str, outlines: to.Outlines) -> list[dict]:
    """The training photographs: image (at most 1920 px), the whole cards the finder found there (quads, from
    ``outlines``: ``tools/training_outlines.py``), and the labelled boxes it did not find (ignored by the loss)."""
    from tools import photo_bench as pb

    out = []
    folder = os.path.join(photos_root, ti.BOXES_TRAIN)
    if os.path.isdir(folder):
        for photo in pb.from_voc(folder, "boxes_train").photos:
            img, scale = pb.load_photo(photo.path, 1920)
            boxes = [(x0 * scale, y0 * scale, x1 * scale, y1 * scale) for x0, y0, x1, y1, _ in photo.boxes or []]
            quads = [q * np.float32(scale) for q in outlines.whole(to.BOXES, os.path.basename(photo.path))]
            found, missed = _match(quads, boxes)
            out.append({"img": img, "quads": found, "ignore": missed})
    tpl = os.path.join(photos_root, "desk", "template")
    if os.path.isdir(tpl):
        for name in to.desk_photos(tpl):
            img, scale = pb.load_photo(os.path.join(tpl, name), 1920)
            quads = [q * np.float32(scale) for q in outlines.whole(to.DESK, name)]
            whole = sorted(quads, key=lambda q: -cv2.contourArea(q))[:1]  # one card per photo: the largest
            out.append({"img": img, "quads": whole, "ignore": []})
    return out


def _match(quads: list[np.ndarray], boxes: list[tuple[float, float, float, float]]
           ) -> tuple[list[np.ndarray], list]:
    """Of the whole cards found in a photo (``quads``), those whose outline's box overlaps a labelled box at
    IoU >= 0.5, and the labelled boxes none overlaps so."""
    from tools import photo_bench as pb

    qboxes = [(float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max())) for q in quads]
    used, missed = set(), []
    for b in boxes:
        iou, i = max(((pb.box_iou(qb, b), i) for i, qb in enumerate(qboxes)), default=(0.0, -1))
        if iou >= 0.5:
            used.add(i)
        else:
            missed.append(b)
    return [quads[i] for i in sorted(used)], missed


def _surfaces(photos: list[dict], photos_root: str) -> list[np.ndarray]:
    """Real surfaces with no card on them: each training photo with its cards and labelled boxes painted over (by
    inpainting at a small size) and the empty poker table."""
    out = []
    for p in photos:
        img = p["img"]
        k = 320 / max(img.shape[:2])
        small = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        mask = np.zeros(small.shape[:2], np.uint8)
        for q in p["quads"]:
            cv2.fillConvexPoly(mask, (q * k).astype(np.int32), 255)
        for x0, y0, x1, y1 in p["ignore"]:
            cv2.rectangle(mask, (int(x0 * k), int(y0 * k)), (int(x1 * k) + 1, int(y1 * k) + 1), 255, -1)
        mask = cv2.dilate(mask, np.ones((7, 7), np.uint8))
        if mask.mean() > 0.6 * 255:
            continue  # mostly card: too little surface left to learn from
        out.append(cv2.inpaint(small, mask, 5, cv2.INPAINT_TELEA))
    from tools import synth

    for seed in range(MAT_SURFACES):  # the mat, as the camera sees it (with its markers, which are no cards)
        rng = np.random.default_rng(seed)
        mat = synth.table_background(rng, synth.camera_homography(rng, 0.08), 4 + seed % 2)
        out.append(cv2.resize(mat, None, fx=0.4, fy=0.4, interpolation=cv2.INTER_AREA))
    empty = os.path.join(photos_root, "poker_table", "image_setup", "ultimate_test.jpg")
    if os.path.exists(empty):
        img = cv2.imread(empty)
        if img is not None:
            k = 480 / max(img.shape[:2])
            out.append(cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA))
    return out


# ---------------------------------------------------------------- one scene


def _background(rng: np.random.Generator, surfaces: list[np.ndarray]) -> np.ndarray:
    """A table surface at the scene's size, float32: a real one (a random part, flipped, recoloured) or drawn."""
    w, h = SCENE
    if surfaces and rng.random() < 0.65:
        s = surfaces[int(rng.integers(len(surfaces)))]
        sh, sw = s.shape[:2]
        f = rng.uniform(0.35, 1.0)
        cw, ch = max(8, int(sw * f)), max(6, int(sw * f * h / w))
        ch = min(ch, sh)
        x0, y0 = int(rng.integers(0, sw - cw + 1)), int(rng.integers(0, sh - ch + 1))
        crop = cv2.resize(s[y0 : y0 + ch, x0 : x0 + cw], (w, h), interpolation=cv2.INTER_LINEAR)
        if rng.random() < 0.5:
            crop = crop[:, ::-1]
        img = crop.astype(np.float32)
        img = img * rng.uniform(0.7, 1.2) * rng.uniform(0.85, 1.15, 3).astype(np.float32) + rng.uniform(-25, 25)
        return img
    return ti._surface(rng, h, w)


def _rounded(sw: int, sh: int) -> np.ndarray:
    r = max(1, int(0.06 * sw))
    shape = np.zeros((sh, sw), np.uint8)
    cv2.rectangle(shape, (r, 0), (sw - r, sh), 255, -1)
    cv2.rectangle(shape, (0, r), (sw, sh - r), 255, -1)
    for x, y in ((r, r), (sw - r, r), (sw - r, sh - r), (r, sh - r)):
        cv2.circle(shape, (x, y), r, 255, -1)
    return shape


def _layout(rng: np.random.Generator, n: int, width: float) -> list[tuple[float, float, float]]:
    """Centres and angles of ``n`` cards ``width`` wide: scattered, a row, a pile or a fan (some off the frame)."""
    w, h = SCENE
    mode = rng.choice(["scatter", "row", "pile", "fan"], p=[0.45, 0.25, 0.15, 0.15])
    out = []
    if mode == "scatter":
        for _ in range(n):
            out.append((rng.uniform(-0.1, 1.1) * w, rng.uniform(-0.1, 1.1) * h, rng.uniform(0, 2 * np.pi)))
    else:
        x, y = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
        ang = rng.uniform(0, 2 * np.pi)
        if mode == "row":
            gap = width * rng.uniform(0.95, 1.5)
            step = np.array([np.cos(ang), np.sin(ang)]) * gap
            for i in range(n):
                out.append((x + step[0] * i, y + step[1] * i, ang + rng.normal(0, 0.05)))
        elif mode == "pile":
            for _ in range(n):
                out.append((x + rng.normal(0, 0.3 * width), y + rng.normal(0, 0.3 * width), rng.uniform(0, 2 * np.pi)))
        else:
            spread = rng.uniform(0.1, 0.3)
            for i in range(n):
                a = ang + spread * (i - n / 2)
                out.append((x + np.sin(a) * 0.7 * width, y - np.cos(a) * 0.7 * width, a))
    return out


def _card_quad(cx: float, cy: float, ang: float, width: float, height: float,
               rng: np.random.Generator) -> np.ndarray:
    c, s = np.cos(ang), np.sin(ang)
    rect = np.array([[-width / 2, -height / 2], [width / 2, -height / 2], [width / 2, height / 2],
                     [-width / 2, height / 2]], np.float32)
    quad = rect @ np.array([[c, s], [-s, c]], np.float32) + np.array([cx, cy], np.float32)
    return quad + rng.normal(0, 0.03 * width, quad.shape).astype(np.float32)  # perspective, up to ~30 degrees


def _occluders(rng: np.random.Generator, img: np.ndarray, owner: np.ndarray, surfaces: list[np.ndarray]) -> None:
    """Objects over the table: cables, blobs (a hand, a box, a glass), in place."""
    w, h = SCENE
    for _ in range(int(rng.integers(1, 4))):
        colour = rng.uniform(0, 255, 3)
        m = np.zeros((h, w), np.uint8)
        kind = rng.random()
        if kind < 0.4:  # a cable: a thick curve
            pts = np.cumsum(rng.normal(0, 30, (6, 2)), axis=0) + rng.uniform(0, 1, 2) * [w, h]
            cv2.polylines(m, [pts.astype(np.int32)], False, 255, int(rng.integers(2, 7)))
        else:
            cx, cy = rng.uniform(0, 1, 2) * [w, h]
            pts = np.array([[cx + r * np.cos(a), cy + r * np.sin(a)]
                            for a, r in zip(np.sort(rng.uniform(0, 2 * np.pi, 7)), rng.uniform(10, 60, 7),
                                            strict=True)])
            cv2.fillPoly(m, [pts.astype(np.int32)], 255)
        sel = m > 0
        if surfaces and rng.random() < 0.4:  # textured, like a real object
            img[sel] = _background(rng, surfaces)[sel]
        else:
            img[sel] = colour + rng.normal(0, 6, (int(sel.sum()), 3))
        owner[sel] = 0


def _distractors(rng: np.random.Generator, img: np.ndarray, width: float) -> None:
    """White things on the table that are no cards, in place: a mat's marker (a white square round a black one
    with a pattern), a sheet of paper with lines of text, a chip. The network must learn them as table."""
    w, h = SCENE
    for _ in range(int(rng.integers(1, 4))):
        kind = rng.random()
        cx, cy = rng.uniform(0, 1, 2) * [w, h]
        ang = rng.uniform(0, 180)
        paper = rng.uniform(190, 255)
        if kind < 0.45:  # an ArUco-like marker in its white quiet zone
            side = width * rng.uniform(0.5, 1.2)
            cells = int(rng.integers(4, 7)) + 2
            tile = np.full((cells + 2, cells + 2), paper, np.float32)
            tile[1:-1, 1:-1] = 20
            tile[2:-2, 2:-2] = np.where(rng.random((cells - 2, cells - 2)) < 0.5, paper, 20)
            k = max(1, int(side / (cells + 2)))
            patch = np.repeat(np.repeat(tile, k, 0), k, 1)
        elif kind < 0.8:  # a sheet of paper with text, larger than a card
            pw = width * rng.uniform(1.5, 4.0)
            ph = pw * rng.choice([1.29, 1.41, 0.71, 1.0])
            patch = np.full((max(4, int(ph)), max(4, int(pw))), paper, np.float32)
            step = max(3, int(rng.uniform(0.04, 0.1) * pw))
            for y in range(step, patch.shape[0] - step, step):
                x1 = int(patch.shape[1] * rng.uniform(0.5, 0.9))
                patch[y : y + max(1, step // 3), step:x1] -= rng.uniform(60, 180)
        else:  # a chip: a disc with a ring
            r = int(width * rng.uniform(0.2, 0.45)) + 2
            patch = np.zeros((2 * r + 1, 2 * r + 1), np.float32)
            cv2.circle(patch, (r, r), r, float(paper), -1)
            cv2.circle(patch, (r, r), max(1, int(0.7 * r)), float(rng.uniform(0, 200)), max(1, r // 5))
        ph, pw = patch.shape
        m = cv2.getRotationMatrix2D((pw / 2, ph / 2), ang, 1.0)
        m[:, 2] += [cx - pw / 2, cy - ph / 2]
        warped = cv2.warpAffine(patch, m, (w, h), flags=cv2.INTER_LINEAR)
        alpha = cv2.warpAffine(np.ones_like(patch), m, (w, h), flags=cv2.INTER_LINEAR)
        if kind >= 0.8:
            alpha = cv2.warpAffine((patch > 0).astype(np.float32), m, (w, h), flags=cv2.INTER_LINEAR)
        tint = rng.uniform(0.9, 1.05, 3).astype(np.float32)
        img[:] = img * (1 - alpha[..., None]) + warped[..., None] * tint * alpha[..., None]


def _light(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    w, h = SCENE
    yy, xx = np.mgrid[0:24, 0:32].astype(np.float32)
    yy, xx = yy / 24 - 0.5, xx / 32 - 0.5
    th = rng.uniform(0, 2 * np.pi)
    light = 1 + rng.uniform(0, 0.6) * (np.cos(th) * xx + np.sin(th) * yy) + rng.uniform(-0.4, 0.1)
    if rng.random() < 0.35:  # a shadow band (an arm, a lamp's stand) across cards and table alike
        a = rng.uniform(0, np.pi)
        d = np.cos(a) * xx + np.sin(a) * yy - rng.uniform(-0.3, 0.3)
        light *= 1 - rng.uniform(0.3, 0.6) * (np.abs(d) < rng.uniform(0.05, 0.25))
    light = cv2.GaussianBlur(cv2.resize(light, (w, h)), (0, 0), rng.uniform(1, 6))
    img = img * light[..., None] * rng.uniform(0.85, 1.15, 3).astype(np.float32)
    if rng.random() < 0.25:
        gx, gy = rng.uniform(-0.4, 0.4, 2)
        sig = rng.uniform(0.05, 0.25)
        glare = rng.uniform(40, 160) * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sig**2))
        img += cv2.resize(glare, (w, h))[..., None]
    return img


def _finish(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    return ti.camera_finish(img, rng, 1.5, 8.0, 35)


def _paint_cards(rng: np.random.Generator, img: np.ndarray, owner: np.ndarray, cores: list[np.ndarray],
                 faces: list[np.ndarray], n: int, width: float | None = None,
                 places: list[tuple[float, float, float]] | None = None) -> None:
    """Lay ``n`` cards of one design on the scene, in place: ``owner`` gets each card's number where it shows,
    ``cores`` each card's shrunk face (before covering). ``width`` (pixels) and ``places`` (centre x, y, angle of
    each card) are drawn at random unless given."""
    w, h = SCENE
    if width is None:
        width = float(np.exp(rng.uniform(np.log(14), np.log(120))))
    aspect = faces[0].shape[0] / faces[0].shape[1]
    for cx, cy, ang in places if places is not None else _layout(rng, n, width):
        face = faces[int(rng.integers(len(faces)))]
        face = ti._recolour(face, rng)
        quad = _card_quad(cx, cy, ang, width, width * aspect, rng)
        k = min(1.0, 2 * width / face.shape[1])
        src = face if k == 1.0 else cv2.resize(face, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        sh, sw = src.shape[:2]
        m = cv2.getPerspectiveTransform(np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float32), quad)
        warped = cv2.warpPerspective(src.astype(np.float32), m, (w, h), flags=cv2.INTER_LINEAR)
        alpha = cv2.warpPerspective(_rounded(sw, sh), m, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32) / 255
        if rng.random() < 0.6:  # its shadow on what lies below
            off = rng.integers(-3, 4, 2)
            sa = np.roll(alpha, tuple(int(o) for o in off), axis=(0, 1))
            img *= (1 - 0.45 * rng.random() * cv2.GaussianBlur(sa, (0, 0), 2))[..., None]
        img[:] = img * (1 - alpha[..., None]) + warped * alpha[..., None]
        ins = fn.CORE_INSET * sw
        inner = np.array([[ins, ins], [sw - ins, ins], [sw - ins, sh - ins], [ins, sh - ins]], np.float32)
        core = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(core, cv2.perspectiveTransform(inner[None], m)[0].round().astype(np.int32), 1)
        cores.append(core)
        owner[alpha > 0.5] = len(cores)


def _targets(owner: np.ndarray, cores: list[np.ndarray]) -> np.ndarray:
    """(2, h/2, w/2) uint8: face and core, 0/1, at the network's output resolution."""
    face = (owner > 0).astype(np.float32)
    core = np.zeros_like(face)
    for i, c in enumerate(cores):
        core[(owner == i + 1) & (c > 0)] = 1
    w, h = SCENE
    half = (w // 2, h // 2)
    return np.stack([cv2.resize(face, half, interpolation=cv2.INTER_AREA) > 0.5,
                     cv2.resize(core, half, interpolation=cv2.INTER_AREA) > 0.5]).astype(np.uint8)


def synthetic_scene(rng: np.random.Generator, decks: list[list[np.ndarray]], surfaces: list[np.ndarray]
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(image uint8 BGR, targets (2, h/2, w/2), ignore mask (h/2, w/2)) of one synthetic table."""
    w, h = SCENE
    img = _background(rng, surfaces)
    owner = np.zeros((h, w), np.int32)
    cores: list[np.ndarray] = []
    n = int(rng.choice([0, 1, 2, 3, 4, 5, 6, 8], p=[0.04, 0.22, 0.16, 0.14, 0.14, 0.12, 0.1, 0.08]))
    width = float(np.exp(rng.uniform(np.log(14), np.log(120))))
    if rng.random() < 0.3:
        _distractors(rng, img, width)
    if n:
        _paint_cards(rng, img, owner, cores, decks[int(rng.integers(len(decks)))], n, width)
    if rng.random() < 0.35:
        _occluders(rng, img, owner, surfaces)
    img = _finish(rng, _light(rng, img))
    return img, _targets(owner, cores), np.zeros((h // 2, w // 2), np.uint8)


def photo_scene(rng: np.random.Generator, photo: dict, decks: list[list[np.ndarray]]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A training photograph (a random part, at a random scale, relit) as a scene: its found cards are targets, its
    unfound labelled cards ignored; now and then a synthetic card or two laid on it."""
    w, h = SCENE
    src = photo["img"]
    sh, sw = src.shape[:2]
    f = rng.uniform(0.55, 1.0)
    cw = min(sw, int(sh * w / h)) * f
    ch = cw * h / w
    x0, y0 = rng.uniform(0, sw - cw), rng.uniform(0, sh - ch)
    k = w / cw
    a = np.array([[k, 0, -x0 * k], [0, k, -y0 * k]], np.float32)
    img = cv2.warpAffine(src, a, (w, h), flags=cv2.INTER_AREA).astype(np.float32)
    owner = np.zeros((h, w), np.int32)
    cores: list[np.ndarray] = []
    for q in photo["quads"]:
        qq = q * k - [x0 * k, y0 * k]
        face = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(face, qq.round().astype(np.int32), 1)
        short = (np.linalg.norm(qq[1] - qq[0]) + np.linalg.norm(qq[2] - qq[3])) / 2
        nxt, prv = np.roll(qq, -1, axis=0), np.roll(qq, 1, axis=0)
        u = (nxt - qq) / np.linalg.norm(nxt - qq, axis=1, keepdims=True)
        v = (prv - qq) / np.linalg.norm(prv - qq, axis=1, keepdims=True)
        inner = qq + (u + v) * fn.CORE_INSET * short
        core = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(core, inner.round().astype(np.int32), 1)
        cores.append(core)
        owner[face > 0] = len(cores)
    ignore = np.zeros((h, w), np.uint8)
    for bx0, by0, bx1, by1 in photo["ignore"]:
        cv2.rectangle(ignore, (int((bx0 - x0) * k), int((by0 - y0) * k)),
                      (int((bx1 - x0) * k) + 1, int((by1 - y0) * k) + 1), 1, -1)
    if rng.random() < 0.3:
        before = owner.copy()
        _paint_cards(rng, img, owner, cores, decks[int(rng.integers(len(decks)))], int(rng.integers(1, 3)))
        ignore[owner != before] = 0  # a laid card covers what was ignored
    img = _finish(rng, _light(rng, img) if rng.random() < 0.5 else img)
    half = (w // 2, h // 2)
    ign = cv2.resize(ignore.astype(np.float32), half, interpolation=cv2.INTER_AREA) > 0
    return img, _targets(owner, cores), ign.astype(np.uint8)


# ---------------------------------------------------------------- data, training, export

_WORK: dict[str, Any] = {}


def _init(decks: list[list[np.ndarray]], surfaces: list[np.ndarray], photos: list[dict]) -> None:
    _WORK.update(decks=decks, surfaces=surfaces, photos=photos)


def _make(job: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    start, count, seed = job
    rng = np.random.default_rng(seed)
    cv2.setRNGSeed(seed % (2**31))
    xs, ys, ms = [], [], []
    photos = _WORK["photos"]
    for i in range(count):
        if photos and (start + i) % 4 == 0:
            img, y, m = photo_scene(rng, photos[int(rng.integers(len(photos)))], _WORK["decks"])
        else:
            img, y, m = synthetic_scene(rng, _WORK["decks"], _WORK["surfaces"])
        xs.append(img)
        ys.append(y)
        ms.append(m)
    return np.stack(xs), np.stack(ys), np.stack(ms)


def make_data(decks: list[list[np.ndarray]], surfaces: list[np.ndarray], photos: list[dict], scenes: int, seed: int,
              workers: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``scenes`` scenes (a quarter of them from the photographs), made in ``workers`` processes, deterministic."""
    chunk = 200
    jobs = [(s, min(chunk, scenes - s), seed * 100003 + s) for s in range(0, scenes, chunk)]
    with Pool(workers, initializer=_init, initargs=(decks, surfaces, photos)) as pool:
        parts = pool.map(_make, jobs)
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]))


def build_model() -> Any:
    import torch
    from torch import nn

    def conv(i: int, o: int, stride: int = 1, k: int = 3) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(i, o, k, stride=stride, padding=k // 2, bias=False), nn.BatchNorm2d(o),
                             nn.ReLU())

    class FinderNet(nn.Module):
        """A small U-Net: input at full size, encoder to 1/16, decoder back to 1/2 (face, core logits); about 180 M
        multiply-adds for a 320 x 224 input (one frame, about 10 ms in cv2.dnn on one core)."""

        def __init__(self) -> None:
            super().__init__()
            self.e1 = conv(3, 12, 2)
            self.e2 = nn.Sequential(nn.MaxPool2d(2), conv(12, 24), conv(24, 24))
            self.e3 = nn.Sequential(nn.MaxPool2d(2), conv(24, 40), conv(40, 40))
            self.e4 = nn.Sequential(nn.MaxPool2d(2), conv(40, 64), conv(64, 64))
            self.up = nn.Upsample(scale_factor=2, mode="nearest")
            self.d3 = conv(64 + 40, 32)
            self.d2 = conv(32 + 24, 24)
            # the last step's 1 x 1 convolution of the upsampled and the skipped maps, as a sum of one of each: the
            # same function, but the coarse map's part is computed before upsampling (a concatenation at this size
            # was a quarter of cv2.dnn's time)
            self.d1_coarse = nn.Conv2d(24, 16, 1, bias=False)
            self.d1_fine = nn.Conv2d(12, 16, 1, bias=False)
            self.d1 = nn.Sequential(nn.BatchNorm2d(16), nn.ReLU())
            self.head = nn.Conv2d(16, 2, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            a = self.e1(x)
            b = self.e2(a)
            c = self.e3(b)
            d = self.e4(c)
            c = self.d3(torch.cat([self.up(d), c], 1))
            b = self.d2(torch.cat([self.up(c), b], 1))
            a = self.d1(self.up(self.d1_coarse(b)) + self.d1_fine(a))
            return self.head(a)

    return FinderNet()


def train(x: np.ndarray, y: np.ndarray, ign: np.ndarray, steps: int, seed: int,
          progress: Callable[[str], None] = print) -> Any:
    import torch
    from torch import nn

    torch.manual_seed(seed)
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=4e-3, total_steps=steps)
    lossf = nn.BCEWithLogitsLoss(reduction="none")
    g = torch.Generator().manual_seed(seed)
    n, bs = len(x), 24
    t = time.time()
    tot = 0.0
    for step in range(steps):
        idx = torch.randint(0, n, (bs,), generator=g).numpy()
        # a part of each scene (the same for the batch) at even offsets, so that the targets' cells stay aligned:
        # a third of the pixels, three times the steps in the same time
        ox, oy = (2 * int(v) for v in torch.randint(0, 1000, (2,), generator=g))
        ox, oy = ox % (SCENE[0] - CROP[0] + 2), oy % (SCENE[1] - CROP[1] + 2)
        cy, cx = slice(oy // 2, (oy + CROP[1]) // 2), slice(ox // 2, (ox + CROP[0]) // 2)
        xb = torch.from_numpy(fn.to_input(x[idx, oy : oy + CROP[1], ox : ox + CROP[0]]))
        yb = torch.from_numpy(y[idx][:, :, cy, cx].astype(np.float32))
        wb = torch.from_numpy(1.0 - ign[idx][:, cy, cx].astype(np.float32))[:, None]
        if step % 2:
            xb, yb, wb = xb.flip(3), yb.flip(3), wb.flip(3)
        if step % 4 >= 2:
            xb, yb, wb = xb.flip(2), yb.flip(2), wb.flip(2)
        out = model(xb)
        loss = (lossf(out, yb) * wb).sum() / (wb.sum() * 2 + 1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        tot += float(loss.detach())
        if (step + 1) % 100 == 0:
            progress(f"  step {step + 1}/{steps}: loss {tot / 100:.4f}, {time.time() - t:.0f} s")
            tot = 0.0
    model.eval()
    return model


def export(model: Any, path: str) -> None:
    """Write the ONNX file (opset 13, input ``image``, output ``maps``) and check that cv2.dnn reads it alike."""
    import torch

    dummy = torch.zeros(1, 3, 192, 256)
    torch.onnx.export(model, (dummy,), path, input_names=["image"], output_names=["maps"], opset_version=13,
                      dynamic_axes={"image": {2: "h", 3: "w"}, "maps": {2: "h2", 3: "w2"}}, dynamo=False)
    x = np.random.default_rng(0).normal(0, 1, (1, 3, 96, 160)).astype(np.float32)
    with torch.no_grad():
        ref = model(torch.from_numpy(x)).numpy()
    from vision.index_net import load_onnx  # (the engine the product runs it with)

    net = load_onnx(path, "card-finder")
    net.setInput(x)
    got = net.forward()
    if not np.allclose(got, ref, atol=1e-3):
        raise RuntimeError(f"cv2.dnn disagrees with PyTorch on {path}")


def run(decks_root: str, photos_root: str | None, out: str, scenes: int = 6000, steps: int = 3000, seed: int = 1,
        workers: int = 2, progress: Callable[[str], None] = print, outlines: to.Outlines | None = None) -> dict:
    """Make the data, train, export to ``out``; returns a summary. ``outlines``: the training photos' card outlines
    (default: the finder network's in ``tools/training_outlines.json``)."""
    import torch

    torch.set_num_threads(workers)
    t = time.time()
    outlines = outlines or to.load(to.FINDER)
    sources = ti.load_sources(decks_root, photos_root, ti.TRAIN_THEMES, ti.TRAIN_DRAWN, outlines=outlines)
    decks = _card_images(sources)
    photos = _photo_targets(photos_root, outlines) if photos_root else []
    surfaces = _surfaces(photos, photos_root) if photos_root else []
    progress(f"sources: {len(decks)} designs, {len(photos)} photos, {len(surfaces)} surfaces "
             f"({time.time() - t:.0f} s)")
    x, y, ign = make_data(decks, surfaces, photos, scenes, seed, workers)
    progress(f"data: {len(x)} scenes ({time.time() - t:.0f} s)")
    model = train(x, y, ign, steps, seed, progress)
    export(model, out)
    network_stamp.stamp(out, seed)
    progress(f"wrote {out} ({time.time() - t:.0f} s)")
    return {"scenes": len(x), "steps": steps, "seconds": round(time.time() - t)}
