"""Synthetic table scenes and videos, for tests, the benchmark and the demo.

A scene is the mat (``vision.mat``) seen by a camera (a random homography), with cards from any deck folder placed on
it (rotation, scale, overlap, face up or down), then the nuisances of a real camera: lighting gradient, glare,
shadows, a hand over part of the table, motion blur, noise and JPEG artefacts. Every card comes back with its true
code, its corner points in the frame and how much of it is visible, so the recogniser can be scored.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision import deck as decklib
from vision import mat as matlib

FRAME_W = 1280
FRAME_H = 720
# The deck folder's reader is the product's (enrollment reads the same folders).
RANKS, SUITS, ALL_CODES = decklib.RANKS, decklib.SUITS, decklib.ALL_CODES
DeckError = decklib.DeckError
load_deck = decklib.load_deck
canonical_code = decklib.canonical_code


@dataclass
class CardPose:
    """A card on the mat: centre (mat units), angle (degrees), scale (1 = nominal card width), face up or down."""

    code: str
    x: float
    y: float
    angle: float = 0.0
    scale: float = 1.0
    face_up: bool = True


@dataclass
class PlacedCard:
    """Ground truth of a card in a rendered frame; ``quad`` is TL, TR, BR, BL of the upright face (frame px)."""

    code: str
    quad: np.ndarray
    visible: float
    face_up: bool
    pose: CardPose


@dataclass
class Nuisance:
    """How hard the camera makes it; every field is a maximum drawn from at random per scene."""

    perspective: float = 0.08
    gradient: float = 0.35
    glare: float = 0.5
    shadow: float = 0.4
    hand: float = 0.3
    blur: int = 5
    noise: float = 6.0
    jpeg: tuple[int, int] = (45, 92)
    # degrees the camera is turned off the vertical, on top of the random keystone (``camera_homography``); exact,
    # not a maximum, and drawing no random number, so that a scene or video is otherwise the one without it
    tilt: float = 0.0

    @classmethod
    def none(cls) -> Nuisance:
        return cls(0.0, 0.0, 0.0, 0.0, 0.0, 0, 0.0, (100, 100))


@dataclass
class Scene:
    """A rendered frame and its ground truth."""

    image: np.ndarray
    cards: list[PlacedCard]
    mat_to_frame: np.ndarray
    hand_mask: np.ndarray | None = None
    extra: dict = field(default_factory=dict)


def _rounded_mask(h: int, w: int) -> np.ndarray:
    r = max(2, int(0.06 * w))
    m = np.zeros((h, w), np.uint8)
    cv2.rectangle(m, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return m


def tilted_view(w: int, h: int, degrees: float, focal_share: float) -> np.ndarray:
    """The homography taking a ``w`` x ``h`` picture, taken as seen from straight above, to its view by a camera
    turned ``degrees`` about the frame's horizontal axis (the far side up the frame), its principal point in the
    middle and its focal length ``focal_share`` times the longer side, as far off as makes the whole picture fit the
    same frame."""
    f = focal_share * max(w, h)
    t = -np.radians(degrees)  # (the frame's top half turned away: the far side of the table up the frame)
    turn = np.array([[1, 0, 0], [0, np.cos(t), -np.sin(t)], [0, np.sin(t), np.cos(t)]])
    corners = np.array([[-w / 2, -h / 2, 0], [w / 2, -h / 2, 0], [w / 2, h / 2, 0], [-w / 2, h / 2, 0]]) @ turn.T

    def seen(distance: float) -> np.ndarray:
        z = corners[:, 2] + distance
        return np.stack([f * corners[:, 0] / z + w / 2, f * corners[:, 1] / z + h / 2], axis=1)

    near, far = f, 100.0 * f  # (the nearest distance at which the whole picture fits, by bisection)
    for _ in range(60):
        mid = (near + far) / 2
        pts = seen(mid)
        fits = (corners[:, 2] + mid > 0).all() and pts.min() >= 0 and (pts[:, 0] <= w).all() and (pts[:, 1] <= h).all()
        near, far = (near, mid) if fits else (mid, far)
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    return cv2.getPerspectiveTransform(src, seen(far).astype(np.float32))


TILT_FOCAL = 0.75  # a tilted camera's focal length, times the frame's longer side (a phone's or a webcam's)


def camera_homography(rng: np.random.Generator, perspective: float, tilt: float = 0.0) -> np.ndarray:
    """A random mat -> frame homography: the mat fills most of the frame, tilted and turned a little; ``tilt``
    degrees: then seen by a camera turned that far off the vertical (``tilted_view``)."""
    scale = rng.uniform(0.8, 0.88) * FRAME_H / matlib.MAT_H
    w, h = matlib.MAT_W * scale, matlib.MAT_H * scale
    cx = FRAME_W / 2 + rng.uniform(-40, 40)
    cy = FRAME_H / 2 + rng.uniform(-15, 15)
    src = np.array([[0, 0], [matlib.MAT_W, 0], [matlib.MAT_W, matlib.MAT_H], [0, matlib.MAT_H]], np.float32)
    dst = np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2],
                    [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]])
    # keystone: the far edge (top) narrower, as for a camera looking down at an angle from the near side
    k = rng.uniform(0, perspective) * w
    dst[0, 0] += k
    dst[1, 0] -= k
    dst += rng.uniform(-perspective, perspective, (4, 2)) * np.array([w, h]) * 0.3
    a = np.deg2rad(rng.uniform(-4, 4))
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    dst = (dst - [cx, cy]) @ rot.T + [cx, cy]
    h_mf = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    if tilt:
        # the camera turned, then moved in (or the mat moved) until the mat fills the frame as much as before, as a
        # director sets a camera up: the tilt alone would also shrink the mat
        h_mf = tilted_view(FRAME_W, FRAME_H, tilt, TILT_FOCAL) @ h_mf
        before, after = dst, cv2.perspectiveTransform(src[None], h_mf)[0]
        span_b, span_a = np.ptp(before, axis=0), np.ptp(after, axis=0)
        k = float(min(span_b[1] / span_a[1], (FRAME_W - 2) / span_a[0]))
        mid_b, mid_a = (before.max(0) + before.min(0)) / 2, (after.max(0) + after.min(0)) / 2
        fit = np.array([[k, 0, mid_b[0] - k * mid_a[0]], [0, k, mid_b[1] - k * mid_a[1]], [0, 0, 1]])
        h_mf = fit @ h_mf
    return h_mf


def table_background(rng: np.random.Generator, h_mf: np.ndarray, n_seats: int = 4) -> np.ndarray:
    """The mat (the one for ``n_seats``) seen by the camera, on a wooden table, as float32 BGR."""
    wood = np.array([40, 70, 110], np.float32) * rng.uniform(0.7, 1.3)
    frame = np.empty((FRAME_H, FRAME_W, 3), np.float32)
    frame[:] = wood
    streaks = cv2.resize(rng.normal(0, 12, (FRAME_H // 8, 4)).astype(np.float32), (FRAME_W, FRAME_H))
    frame += streaks[:, :, None]
    mat_img = matlib.render_mat(n_seats=n_seats).astype(np.float32)
    felt = cv2.resize(rng.normal(0, 6, (matlib.MAT_H // 4, matlib.MAT_W // 4)).astype(np.float32),
                      (matlib.MAT_W, matlib.MAT_H))
    felt_mask = (mat_img.sum(axis=2) < 600).astype(np.float32)  # keep the markers' white crisp
    mat_img += (felt * felt_mask)[:, :, None]
    tint = rng.uniform(0.85, 1.15, 3).astype(np.float32)
    mat_img = mat_img * np.where(felt_mask[:, :, None] > 0, tint, 1.0)
    warped = cv2.warpPerspective(mat_img, h_mf, (FRAME_W, FRAME_H), flags=cv2.INTER_LINEAR)
    m = cv2.warpPerspective(np.ones((matlib.MAT_H, matlib.MAT_W), np.float32), h_mf, (FRAME_W, FRAME_H))
    return frame * (1 - m[:, :, None]) + warped * m[:, :, None]


def card_transform(pose: CardPose, img_w: int, img_h: int, h_mf: np.ndarray) -> np.ndarray:
    """Card image pixels -> frame pixels."""
    s = matlib.CARD_W * pose.scale / img_w
    a = np.deg2rad(pose.angle)
    c, si = np.cos(a) * s, np.sin(a) * s
    a3 = np.array([[c, -si, 0.0], [si, c, 0.0], [0.0, 0.0, 1.0]])
    a3[:2, 2] = [pose.x, pose.y] - a3[:2, :2] @ [img_w / 2, img_h / 2]
    return h_mf @ a3


def _warp_into(frame: np.ndarray, src: np.ndarray, m: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Warp ``src`` by ``m`` and paste it over ``frame`` with the warped ``alpha``; returns the full-frame alpha."""
    h, w = src.shape[:2]
    pts = cv2.perspectiveTransform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32), m)[0]
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 2
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, FRAME_W), min(y1, FRAME_H)
    full = np.zeros((FRAME_H, FRAME_W), np.float32)
    if x1 <= x0 or y1 <= y0:
        return full
    t = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ m
    size = (int(x1 - x0), int(y1 - y0))
    ws = cv2.warpPerspective(src, t, size, flags=cv2.INTER_AREA if np.abs(m[:2, :2]).max() < 1 else cv2.INTER_LINEAR)
    wa = cv2.warpPerspective(alpha, t, size, flags=cv2.INTER_LINEAR)
    roi = frame[y0:y1, x0:x1]
    roi[:] = roi * (1 - wa[:, :, None]) + ws.astype(np.float32) * wa[:, :, None]
    full[y0:y1, x0:x1] = wa
    return full


def _shadow(frame: np.ndarray, alpha: np.ndarray, offset: tuple[int, int], strength: float, blur: float,
            within: tuple[int, int, int, int]) -> None:
    """Darken the frame under ``alpha`` moved by ``offset`` and softened; only the bounding box is worked on.
    ``within`` (x0, y0, x1, y1): where all of ``alpha`` that is not 0 lies (only there is it searched)."""
    bx, by, bx1, by1 = within
    ys, xs = np.nonzero(alpha[by:by1, bx:bx1] > 0.01)
    if len(xs) == 0:
        return
    xs, ys = xs + bx, ys + by
    m = int(3 * blur) + 2 + max(abs(offset[0]), abs(offset[1]))
    x0, y0 = max(xs.min() - m, 0), max(ys.min() - m, 0)
    x1, y1 = min(xs.max() + m + 1, alpha.shape[1]), min(ys.max() + m + 1, alpha.shape[0])
    sh = np.roll(alpha[y0:y1, x0:x1], offset, axis=(0, 1))
    sh = cv2.GaussianBlur(sh, (0, 0), blur)
    frame[y0:y1, x0:x1] *= (1 - strength * sh)[:, :, None]


def draw_cards(frame: np.ndarray, poses: list[CardPose], deck: dict[str, np.ndarray], h_mf: np.ndarray,
               labels: np.ndarray | None = None, first_label: int = 1) -> list[tuple[np.ndarray, np.ndarray]]:
    """Paint cards (in order, later on top) with a soft drop shadow; returns each card's (transform, alpha)."""
    out = []
    for k, pose in enumerate(poses):
        img = deck[pose.code] if pose.face_up else deck["back"]
        h, w = img.shape[:2]
        m = card_transform(pose, w, h, h_mf)
        alpha = _rounded_mask(h, w).astype(np.float32) / 255
        # a real card's cut edge reads as a thin darker line, even where it lies on another white card
        rim = alpha - cv2.erode(alpha, np.ones((5, 5), np.uint8))
        img = (img.astype(np.float32) * (1 - 0.3 * rim[:, :, None])).astype(np.uint8)
        # the edge shadow makes a white card visible even on a pale table, as in real life
        shadow_alpha = np.zeros((FRAME_H, FRAME_W), np.float32)
        pts = cv2.perspectiveTransform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32), m)[0]
        cv2.fillConvexPoly(shadow_alpha, pts.astype(np.int32), 1.0, cv2.LINE_AA)
        # the polygon's anti-aliased rim reaches at most a pixel past its corners
        x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 3
        _shadow(frame, shadow_alpha, (3, 2), 0.35, 2.5, (max(x0, 0), max(y0, 0), x1, y1))
        a = _warp_into(frame, img, m, alpha)
        if labels is not None:
            labels[a > 0.5] = first_label + k
        out.append((m, a))
    return out


def _hand_alpha(rng: np.random.Generator, centre: tuple[float, float], angle: float, size: float) -> np.ndarray:
    a = np.zeros((FRAME_H, FRAME_W), np.uint8)
    cx, cy = centre
    # an arm reaching in from outside, a palm, four fingers and a thumb
    d = np.array([np.cos(np.deg2rad(angle)), np.sin(np.deg2rad(angle))])
    n = np.array([-d[1], d[0]])
    arm_end = np.array([cx, cy]) - d * size * 6
    cv2.line(a, (int(cx), int(cy)), (int(arm_end[0]), int(arm_end[1])), 255, int(size * 0.9), cv2.LINE_AA)
    cv2.ellipse(a, (int(cx), int(cy)), (int(size * 0.6), int(size * 0.5)), angle, 0, 360, 255, -1, cv2.LINE_AA)
    for i in range(4):
        base = np.array([cx, cy]) + d * size * 0.4 + n * size * (i - 1.5) * 0.25
        tip = base + d * size * rng.uniform(0.6, 0.9)
        cv2.line(a, tuple(base.astype(int)), tuple(tip.astype(int)), 255, max(2, int(size * 0.2)), cv2.LINE_AA)
    thumb = np.array([cx, cy]) + n * size * 0.6
    cv2.line(a, (int(cx), int(cy)), tuple((thumb + d * size * 0.3).astype(int)), 255, int(size * 0.22), cv2.LINE_AA)
    return a.astype(np.float32) / 255


def draw_hand(frame: np.ndarray, rng: np.random.Generator, centre: tuple[float, float], angle: float,
              size: float, labels: np.ndarray | None = None) -> np.ndarray:
    """Paint a hand and arm (with its shadow) reaching to ``centre`` from direction ``angle`` (degrees)."""
    alpha = _hand_alpha(rng, centre, angle, size)
    ys, xs = np.nonzero(alpha)
    box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1) if len(xs) else None
    if box is not None:
        _shadow(frame, alpha, (int(size * 0.25), int(size * 0.15)), 0.45, size * 0.15, box)
    skin = np.array([120, 150, 200], np.float32) * rng.uniform(0.45, 1.15)
    shade = cv2.GaussianBlur(rng.normal(1, 0.08, (FRAME_H // 16, FRAME_W // 16)).astype(np.float32), (0, 0), 1)
    shade = cv2.resize(shade, (FRAME_W, FRAME_H))
    if box is not None:
        # blended only where the hand is: elsewhere its alpha is 0 and the frame would come back unchanged
        x0, y0, x1, y1 = box
        a3, f = alpha[y0:y1, x0:x1, None], frame[y0:y1, x0:x1]
        f[:] = f * (1 - a3) + (skin[None, None, :] * shade[y0:y1, x0:x1, None]) * a3
    if labels is not None:
        labels[alpha > 0.5] = 255
    return alpha


@dataclass
class Lighting:
    """Fixed per scene or video: a gradient, a glare spot and a soft shadow, all multiplicative or additive maps."""

    gain: np.ndarray
    add: np.ndarray
    _planes: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def random(cls, rng: np.random.Generator, nz: Nuisance) -> Lighting:
        yy, xx = np.mgrid[0:FRAME_H, 0:FRAME_W].astype(np.float32)
        th = rng.uniform(0, 2 * np.pi)
        g = (np.cos(th) * (xx / FRAME_W - 0.5) + np.sin(th) * (yy / FRAME_H - 0.5)) * 2
        gain = 1 + rng.uniform(0, nz.gradient) * g * 0.5 + rng.uniform(-0.15, 0.1) * (nz.gradient > 0)
        add = np.zeros((FRAME_H, FRAME_W), np.float32)
        if rng.random() < nz.glare:
            gx, gy = rng.uniform(0.1, 0.9) * FRAME_W, rng.uniform(0.1, 0.9) * FRAME_H
            sig = rng.uniform(30, 120)
            add += rng.uniform(60, 160) * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sig**2))
        if rng.random() < nz.shadow:
            sx, sy = rng.uniform(0.1, 0.9) * FRAME_W, rng.uniform(0.1, 0.9) * FRAME_H
            sig = rng.uniform(80, 250)
            gain *= 1 - rng.uniform(0.2, 0.5) * np.exp(-((xx - sx) ** 2 + (yy - sy) ** 2) / (2 * sig**2))
        return cls(gain.astype(np.float32), add)

    def planes(self, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """The gain and the added light as one plane per channel of a frame of ``shape``: made once per video,
        because broadcasting the maps over the channels again at every frame was a tenth of a video's rendering."""
        if self._planes is None or self._planes[0].shape != shape:
            n = shape[2] if len(shape) == 3 else 1
            self._planes = (cv2.merge([self.gain] * n), cv2.merge([self.add] * n))
        return self._planes


_NOISE: list[np.ndarray] = []


def _noise(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Unit Gaussian sensor noise; drawn from a small bank shifted at random because drawing it fresh is slow."""
    tiled = (2 * shape[0], 2 * shape[1], *shape[2:])
    if not _NOISE or _NOISE[0].shape != tiled:
        bank = np.random.default_rng(12345)
        _NOISE[:] = [np.tile(bank.standard_normal(shape, dtype=np.float32), (2, 2, *[1] * (len(shape) - 2)))
                     for _ in range(3)]
    n = _NOISE[int(rng.integers(len(_NOISE)))]
    dy, dx = int(rng.integers(shape[0])), int(rng.integers(shape[1]))
    # the bank is kept tiled two by two, so that a shift (np.roll's, wrapping around) is a view, not a copy
    return n[shape[0] - dy:2 * shape[0] - dy, shape[1] - dx:2 * shape[1] - dx]


def camera_effects(frame: np.ndarray, rng: np.random.Generator, nz: Nuisance, light: Lighting | None,
                   motion: tuple[float, float] | None = None) -> np.ndarray:
    """Lighting, blur, noise and JPEG: float32 BGR in, uint8 BGR out."""
    f = frame
    if light is not None:
        gain, add = light.planes(f.shape)
        f = cv2.add(cv2.multiply(f, gain), add)
    if motion is not None or nz.blur > 1:
        length = rng.integers(1, max(2, nz.blur + 1)) if motion is None else min(int(np.hypot(*motion)), 12)
        if length > 1:
            ang = rng.uniform(0, np.pi) if motion is None else np.arctan2(motion[1], motion[0])
            k = np.zeros((length * 2 + 1, length * 2 + 1), np.float32)
            dx, dy = np.cos(ang) * length / 2, np.sin(ang) * length / 2
            cv2.line(k, (int(length - dx), int(length - dy)), (int(length + dx), int(length + dy)), 1.0, 1)
            f = cv2.filter2D(f, -1, k / k.sum())
    if nz.noise > 0:
        noise = _noise(rng, f.shape) * rng.uniform(0, nz.noise)
        f = np.add(f, noise, out=noise)
    out = np.clip(f, 0, 255, out=f if f is not frame else None).astype(np.uint8)
    q = int(rng.integers(nz.jpeg[0], nz.jpeg[1] + 1))
    if q < 100:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def render_table(deck: dict[str, np.ndarray], poses: list[CardPose], seed: int = 0,
                 nuisance: Nuisance | None = None, hand: bool | None = None, n_seats: int = 4) -> Scene:
    """Render one frame: the mat (for ``n_seats``), the cards (later on top), perhaps a hand, then the camera's
    nuisances."""
    rng = np.random.default_rng(seed)
    nz = nuisance if nuisance is not None else Nuisance()
    h_mf = camera_homography(rng, nz.perspective, nz.tilt)
    frame = table_background(rng, h_mf, n_seats)
    labels = np.zeros((FRAME_H, FRAME_W), np.uint8)
    drawn = draw_cards(frame, poses, deck, h_mf, labels)
    hand_mask = None
    if hand if hand is not None else rng.random() < nz.hand:
        c = h_mf @ [rng.uniform(100, matlib.MAT_W - 100), rng.uniform(100, matlib.MAT_H - 100), 1]
        hand_mask = draw_hand(frame, rng, (c[0] / c[2], c[1] / c[2]), rng.uniform(0, 360), rng.uniform(50, 80), labels)
    light = Lighting.random(rng, nz)
    image = camera_effects(frame, rng, nz, light)
    cards = []
    for k, (pose, (m, a)) in enumerate(zip(poses, drawn, strict=True)):
        img = deck[pose.code] if pose.face_up else deck["back"]
        h, w = img.shape[:2]
        quad = cv2.perspectiveTransform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32), m)[0]
        total = float((a > 0.5).sum())
        vis = float((labels == k + 1).sum()) / total if total else 0.0
        cards.append(PlacedCard(pose.code, quad, vis, pose.face_up, pose))
    return Scene(image, cards, h_mf, hand_mask)


def random_layout(rng: np.random.Generator, codes: list[str], n_cards: int, pile: bool,
                  face_down: float = 0.0) -> list[CardPose]:
    """Cards scattered on the mat without overlap, and perhaps a trick pile of 2-4 overlapping cards in the centre."""
    chosen = [str(c) for c in rng.choice(codes, size=min(n_cards, len(codes)), replace=False)]
    poses: list[CardPose] = []
    placed: list[tuple[float, float]] = []
    n_pile = int(rng.integers(2, 5)) if pile and len(chosen) >= 2 else 0
    cx, cy = matlib.MAT_W / 2, matlib.MAT_H / 2
    for i in range(n_pile):
        poses.append(CardPose(chosen[i], cx + rng.uniform(-45, 45), cy + rng.uniform(-35, 35),
                              rng.uniform(0, 360), rng.uniform(0.9, 1.1)))
    if n_pile:
        placed.append((cx, cy))
    for code in chosen[n_pile:]:
        for _ in range(60):
            x = rng.uniform(240, matlib.MAT_W - 240)
            y = rng.uniform(150, matlib.MAT_H - 150)
            if all(np.hypot(x - px, y - py) > 250 for px, py in placed):
                placed.append((x, y))
                poses.append(CardPose(code, x, y, rng.uniform(0, 360), rng.uniform(0.88, 1.12),
                                      face_up=rng.random() >= face_down))
                break
    return poses


def random_scene(deck: dict[str, np.ndarray], seed: int, n_cards: int = 6, pile: bool = True,
                 nuisance: Nuisance | None = None, n_seats: int = 4) -> Scene:
    """A random scene: scattered cards and maybe a trick pile, with random nuisances, on the mat for ``n_seats``."""
    rng = np.random.default_rng(seed + 7_919)
    codes = [c for c in deck if c != "back"]
    poses = random_layout(rng, codes, n_cards, pile and rng.random() < 0.5,
                          face_down=0.1 if "back" in deck else 0.0)
    return render_table(deck, poses, seed, nuisance, n_seats=n_seats)


# ---------------------------------------------------------------- video of hands being played


@dataclass
class VideoEvent:
    """Ground truth of a video: ``kind`` is ``play`` (seat, code, frame the card lies still) or ``gather``."""

    kind: str
    frame: int
    seat: int | None = None
    code: str | None = None


def play_video(deck: dict[str, np.ndarray], tricks: list[list[tuple[int, str]]], seed: int = 0,
               nuisance: Nuisance | None = None, to_centre: bool = True, fps: int = 30, seats: int = 4,
               tilt: float = 0.0) -> Iterator[tuple[np.ndarray, list[VideoEvent]]]:
    """Yield (frame, events that happen at this frame) for tricks played one card at a time, on the mat for
    ``seats`` players.

    Each trick is a list of (seat, code). A hand carries each card in from the seat's side, lets go, leaves; when
    ``to_centre`` the cards form a pile in the centre, else each lies in its seat's zone. After each trick a hand
    sweeps the cards off the mat toward a seat (trick gathered). ``tilt``: the camera turned that many degrees off
    the vertical (``Nuisance.tilt``), the video otherwise the same.
    """
    bad = [s for trick in tricks for s, _ in trick if not 0 <= s < seats]
    if bad:
        raise ValueError(f"seat {bad[0]} is not a seat of a {seats}-seat table")
    # the direction (mat coordinates, degrees) in which a seat's hand moves toward the centre
    approach = {s: matlib.seat_direction(s, seats) for s in range(seats)}
    rng = np.random.default_rng(seed)
    nz = nuisance if nuisance is not None else Nuisance(perspective=0.06, glare=0.3, shadow=0.3, blur=0, noise=3.0,
                                                       jpeg=(70, 92))
    h_mf = camera_homography(rng, nz.perspective, tilt or nz.tilt)
    light = Lighting.random(rng, nz)
    base = table_background(rng, h_mf, seats)
    zones = {z.seat: z for z in matlib.zones(seats)}
    frame_no = 0

    def to_frame(x: float, y: float) -> tuple[float, float]:
        p = h_mf @ [x, y, 1]
        return (p[0] / p[2], p[1] / p[2])

    def emit(still: np.ndarray, moving: list[CardPose], hand_at: tuple[float, float] | None, hand_dir: float,
             motion: tuple[float, float] | None) -> np.ndarray:
        f = still.copy()
        if moving:
            draw_cards(f, moving, deck, h_mf)
        if hand_at is not None:
            draw_hand(f, np.random.default_rng(7), to_frame(*hand_at), hand_dir, 70)
        return camera_effects(f, rng, nz, light, motion)

    for _ in range(int(fps * 0.5)):
        yield emit(base, [], None, 0, None), []
        frame_no += 1
    for trick in tricks:
        on_table: list[CardPose] = []
        still = base.copy()
        for seat, code in trick:
            z = zones[None] if to_centre else zones[seat]
            tx, ty = z.centre
            tx += rng.uniform(-40, 40)
            ty += rng.uniform(-30, 30)
            ang = rng.uniform(0, 360)
            d = np.deg2rad(approach[seat])
            sx, sy = tx - np.cos(d) * 700, ty - np.sin(d) * 700
            n_move = int(fps * rng.uniform(0.4, 0.6))
            for i in range(n_move):
                t = (i + 1) / n_move
                e = 1 - (1 - t) ** 2
                x, y = sx + (tx - sx) * e, sy + (ty - sy) * e
                speed = 700 * 2 * (1 - t) / n_move * 0.6
                pose = CardPose(code, x, y, ang - 30 * (1 - e))
                yield emit(still, [pose], (x - np.cos(d) * 40, y - np.sin(d) * 40), approach[seat],
                           (np.cos(d) * speed, np.sin(d) * speed)), []
                frame_no += 1
            pose = CardPose(code, tx, ty, ang)
            on_table.append(pose)
            still = base.copy()
            draw_cards(still, on_table, deck, h_mf)
            n_leave = int(fps * rng.uniform(0.2, 0.35))
            for i in range(n_leave):
                t = (i + 1) / n_leave
                hx = tx - np.cos(d) * (40 + 700 * t * t)
                hy = ty - np.sin(d) * (40 + 700 * t * t)
                yield emit(still, [], (hx, hy), approach[seat], None), []
                frame_no += 1
            events = [VideoEvent("play", frame_no, seat, code)]
            for _ in range(int(fps * rng.uniform(0.8, 1.2))):
                yield emit(still, [], None, 0, None), events
                events = []
                frame_no += 1
        # a hand sweeps the trick off toward a random seat
        winner = int(rng.integers(0, seats))
        away = approach[winner] + 180  # from the centre toward the winner
        d = np.deg2rad(away)
        n_sweep = int(fps * 0.5)
        for i in range(n_sweep):
            t = (i + 1) / n_sweep
            moved = [CardPose(p.code, p.x + np.cos(d) * 800 * t * t, p.y + np.sin(d) * 800 * t * t, p.angle)
                     for p in on_table]
            c = np.mean([[p.x, p.y] for p in moved], axis=0)
            yield emit(base, moved, (c[0] - np.cos(d) * 30, c[1] - np.sin(d) * 30), away + 180, None), []
            frame_no += 1
        events = [VideoEvent("gather", frame_no)]
        for _ in range(int(fps * 0.8)):
            yield emit(base, [], None, 0, None), events
            events = []
            frame_no += 1
