"""The printable table mats and the camera calibration that they make possible.

A mat is drawn in *table units* (1 unit = 0.5 mm when printed at the nominal size): four ArUco markers at the
corners give the homography from the camera frame to the mat, and the zones (one in front of each seat, one in the
centre) are rectangles in mat coordinates, so they follow the camera wherever it is.

There are two mats of the same size: four seats (markers 0-3) and five seats for five-handed Pitch (markers 4-7).
The markers' ids tell which mat the camera sees, so a game can refuse the mat that does not fit it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

MAT_W = 1200
MAT_H = 800
MARKER = 90  # side of each ArUco marker, table units
MARGIN = 20  # white quiet zone around the marker and from the mat edge
MARKER_IDS = (0, 1, 2, 3)  # the four-seat mat's: top-left, top-right, bottom-right, bottom-left
# Each mat has its own four ids (same corners, same order), so the mat in view names itself.
MAT_MARKERS = {4: (0, 1, 2, 3), 5: (4, 5, 6, 7)}
SEAT_COUNTS = tuple(MAT_MARKERS)
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
FELT_BGR = (60, 110, 40)
ZONE_BGR = (120, 170, 100)
DICTIONARY = cv2.aruco.DICT_4X4_50
# A card is about 63 x 88 mm; at 0.5 mm per unit that is 126 x 176 units.
CARD_W = 126
CARD_H = 176


@dataclass(frozen=True)
class Zone:
    """A rectangle on the mat: ``seat`` is the seat in front of it, or None for the centre."""

    name: str
    seat: int | None
    x0: float
    y0: float
    x1: float
    y1: float

    def contains(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1

    @property
    def centre(self) -> tuple[float, float]:
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)


def zones(n_seats: int = 4) -> list[Zone]:
    """The zones of a mat; seats are clockwise from the bottom edge (the camera's near side), the centre last.

    Four seats: one at each edge. Five seats: one at the bottom, one at each end, two along the far edge (the
    places of five people round a long table); every zone keeps clear of the centre, the markers and the others."""
    cx, cy = MAT_W / 2, MAT_H / 2
    w, h = 230, 230  # a seat zone holds a card at any rotation
    if n_seats == 4:
        seats = [(cx, MAT_H - 40 - h / 2), (160 + w / 2, cy), (cx, 40 + h / 2), (MAT_W - 160 - w / 2, cy)]
    elif n_seats == 5:
        seats = [(cx, MAT_H - 40 - h / 2), (150 + w / 2, cy + 45), (365, 40 + h / 2), (MAT_W - 365, 40 + h / 2),
                 (MAT_W - 150 - w / 2, cy + 45)]
    else:
        raise ValueError(f"there are mats for {' and '.join(map(str, SEAT_COUNTS))} seats, not {n_seats}")
    out = [Zone(f"seat{i}", i, x - w / 2, y - h / 2, x + w / 2, y + h / 2) for i, (x, y) in enumerate(seats)]
    return out + [Zone("centre", None, cx - 150, cy - 115, cx + 150, cy + 115)]


def seat_direction(seat: int, n_seats: int = 4) -> float:
    """The direction (degrees, mat coordinates, y down) from the seat's place at the table toward the centre."""
    z = zones(n_seats)[seat]
    x, y = z.centre
    return float(np.degrees(np.arctan2(MAT_H / 2 - y, MAT_W / 2 - x)))


def marker_ids(n_seats: int = 4) -> tuple[int, ...]:
    """The ArUco ids of a mat's markers (top-left, top-right, bottom-right, bottom-left)."""
    if n_seats not in MAT_MARKERS:
        raise ValueError(f"there are mats for {' and '.join(map(str, SEAT_COUNTS))} seats, not {n_seats}")
    return MAT_MARKERS[n_seats]


def marker_corners_mat(n_seats: int = 4) -> dict[int, np.ndarray]:
    """The four corners of each marker of a mat in mat coordinates (ArUco order: TL, TR, BR, BL)."""
    s = MARKER
    ids = marker_ids(n_seats)
    origins = {
        ids[0]: (MARGIN * 2, MARGIN * 2),
        ids[1]: (MAT_W - MARGIN * 2 - s, MARGIN * 2),
        ids[2]: (MAT_W - MARGIN * 2 - s, MAT_H - MARGIN * 2 - s),
        ids[3]: (MARGIN * 2, MAT_H - MARGIN * 2 - s),
    }
    return {
        i: np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], np.float32) for i, (x, y) in origins.items()
    }


def render_mat(scale: float = 1.0, n_seats: int = 4) -> np.ndarray:
    """The mat for ``n_seats`` as a BGR image, ``scale`` pixels per table unit."""
    img = np.zeros((MAT_H, MAT_W, 3), np.uint8)
    img[:] = FELT_BGR
    # the seat count in words, for the people at the table (the camera goes by the markers)
    title = f"cardref mat - {n_seats} seats"
    size = cv2.getTextSize(title, cv2.FONT_HERSHEY_SIMPLEX, 0.6, 1)[0]
    cv2.putText(img, title, ((MAT_W - size[0]) // 2, MAT_H - 14), cv2.FONT_HERSHEY_SIMPLEX, 0.6, ZONE_BGR, 1,
                cv2.LINE_AA)
    for z in zones(n_seats):
        p0 = (int(z.x0), int(z.y0))
        p1 = (int(z.x1), int(z.y1))
        cv2.rectangle(img, p0, p1, ZONE_BGR, 3, cv2.LINE_AA)
        label = "centre" if z.seat is None else f"seat {z.seat}"
        cv2.putText(img, label, (p0[0] + 6, p0[1] + 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, ZONE_BGR, 1, cv2.LINE_AA)
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    for i, quad in marker_corners_mat(n_seats).items():
        x, y = (int(v) for v in quad[0])
        cv2.rectangle(img, (x - MARGIN, y - MARGIN), (x + MARKER + MARGIN, y + MARKER + MARGIN), (255, 255, 255), -1)
        marker = cv2.aruco.generateImageMarker(dictionary, i, MARKER)
        img[y : y + MARKER, x : x + MARKER] = marker[:, :, None]
    if scale != 1.0:
        img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
    return img


def save_mat(path: str, scale: float = 4.0, n_seats: int = 4) -> None:
    """Write a mat as PNG or PDF (by the file's extension); PDF pages are sized for the nominal 0.5 mm unit."""
    img = render_mat(scale, n_seats)
    if path.lower().endswith(".pdf"):
        from PIL import Image

        rgb = Image.fromarray(cv2.cvtColor(img, cv2.COLOR_BGR2RGB))
        # 0.5 mm per unit -> dpi = pixels per inch at the nominal size.
        dpi = scale / 0.5 * 25.4
        rgb.save(path, "PDF", resolution=dpi)
    elif not cv2.imwrite(path, img):
        raise OSError(f"cannot write {path}")


class CalibrationError(Exception):
    """The markers cannot be found (the message names the missing ones)."""


class MatMismatch(CalibrationError):
    """The mat in view is not the one the game needs (the message names both); ``found`` is the mat's seat count."""

    def __init__(self, message: str, found: int, wanted: int) -> None:
        super().__init__(message)
        self.found = found
        self.wanted = wanted


def _words(n: int) -> str:
    return {4: "four", 5: "five"}.get(n, str(n))


@dataclass
class Calibration:
    """The homographies between the camera frame and the mat, and which mat it is (``n_seats``)."""

    frame_to_mat: np.ndarray
    mat_to_frame: np.ndarray
    marker_frame: dict[int, np.ndarray] = field(default_factory=dict)
    reprojection_px: float = 0.0
    n_seats: int = 4

    def to_mat(self, pts: np.ndarray) -> np.ndarray:
        p = np.asarray(pts, np.float32).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, self.frame_to_mat).reshape(-1, 2)

    def to_frame(self, pts: np.ndarray) -> np.ndarray:
        p = np.asarray(pts, np.float32).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, self.mat_to_frame).reshape(-1, 2)

    def zone_at(self, frame_xy: tuple[float, float]) -> Zone | None:
        x, y = self.to_mat(np.array([frame_xy]))[0]
        for z in zones(self.n_seats):
            if z.contains(float(x), float(y)):
                return z
        return None

    def card_area_px(self, at: tuple[float, float] | None = None) -> float:
        """The area (frame pixels) of a card lying at the centre of the mat, or where the frame shows the mat at
        ``at`` (frame pixels; held to the mat). A camera seeing the mat at an angle sees a card on the far side
        smaller than one on the near side: at 30 degrees off the vertical (a focal length of 0.75 of the frame's
        width) the near seat's card has 1.25-1.43 times the area of the centre's and the far seat's 0.72-0.81, past
        the tolerances the play detector had set round the centre's card."""
        cx, cy = MAT_W / 2, MAT_H / 2
        if at is not None:
            mx, my = self.to_mat(np.array([at], np.float32))[0]
            cx = float(np.clip(mx, CARD_W / 2, MAT_W - CARD_W / 2))
            cy = float(np.clip(my, CARD_H / 2, MAT_H - CARD_H / 2))
        r = np.array([[cx - CARD_W / 2, cy - CARD_H / 2], [cx + CARD_W / 2, cy - CARD_H / 2],
                      [cx + CARD_W / 2, cy + CARD_H / 2], [cx - CARD_W / 2, cy + CARD_H / 2]], np.float32)
        return float(cv2.contourArea(self.to_frame(r)))

    def moved(self, other: Calibration, tol_px: float = 6.0) -> float:
        """How far (pixels, worst marker corner) the mat moved between two calibrations; 0 if within ``tol_px``."""
        worst = 0.0
        for i, q in self.marker_frame.items():
            if i in other.marker_frame:
                worst = max(worst, float(np.abs(q - other.marker_frame[i]).max()))
        return worst if worst > tol_px else 0.0


_DETECTOR: cv2.aruco.ArucoDetector | None = None


def _detector() -> cv2.aruco.ArucoDetector:
    global _DETECTOR
    if _DETECTOR is None:
        _DETECTOR = cv2.aruco.ArucoDetector(
            cv2.aruco.getPredefinedDictionary(DICTIONARY), cv2.aruco.DetectorParameters()
        )
    return _DETECTOR


def find_markers(frame: np.ndarray) -> dict[int, np.ndarray]:
    """The markers of any mat found in a frame: id -> 4x2 corners (frame pixels)."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = _detector().detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    known = {i for ids_ in MAT_MARKERS.values() for i in ids_}
    for c, i in zip(corners, ids.ravel(), strict=True):
        if int(i) in known:
            found[int(i)] = c.reshape(4, 2).astype(np.float32)
    return found


def calibrate(frame: np.ndarray, min_markers: int = 3, n_seats: int | None = None) -> Calibration:
    """Find a mat in a frame and compute the homography; needs at least ``min_markers`` of its four markers.

    The markers' ids say which mat it is. With ``n_seats`` (the game's players) a mat for another seat count raises
    ``MatMismatch`` naming both; without it, whichever mat is in view is taken."""
    found = find_markers(frame)
    per_mat = {n: {i: found[i] for i in ids if i in found} for n, ids in MAT_MARKERS.items()}
    complete = [n for n, f in per_mat.items() if len(f) >= min_markers]
    if len(complete) > 1:
        raise CalibrationError(f"markers of the {' and the '.join(_words(n) + '-seat' for n in complete)} mats are "
                               "all in view: keep one mat on the table")
    if n_seats is not None and n_seats not in MAT_MARKERS:
        raise CalibrationError(f"no mat has {n_seats} seats (there are mats for "
                               f"{' and '.join(map(str, SEAT_COUNTS))})")
    if complete and n_seats is not None and complete[0] != n_seats:
        seen = complete[0]
        raise MatMismatch(
            f"the mat in view is the {_words(seen)}-seat mat (markers {MAT_MARKERS[seen][0]}-{MAT_MARKERS[seen][-1]})"
            f" but this game has {_words(n_seats)} players: lay the {_words(n_seats)}-seat mat "
            f"(cardref vision mat --seats {n_seats})", seen, n_seats)
    if not complete:
        # name the missing markers of the mat the game wants, or of the mat most of whose markers are in view
        want = n_seats if n_seats is not None else max(per_mat, key=lambda n: (len(per_mat[n]), -n))
        ids = MAT_MARKERS[want]
        miss = ", ".join(f"{CORNER_NAMES[k]} (id {i})" for k, i in enumerate(ids) if i not in found)
        raise CalibrationError(
            f"{_words(want)}-seat mat markers missing: {miss}; found {len(per_mat[want])} of 4 - is the whole mat in "
            "view and uncovered?"
        )
    mat_seats = complete[0]
    mine = per_mat[mat_seats]
    ref = marker_corners_mat(mat_seats)
    src = np.concatenate([mine[i] for i in sorted(mine)])
    dst = np.concatenate([ref[i] for i in sorted(mine)])
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        raise CalibrationError("the mat markers do not give a valid homography (are they printed flat?)")
    proj = cv2.perspectiveTransform(src.reshape(-1, 1, 2), h).reshape(-1, 2)
    err = float(np.abs(proj - dst).max())
    return Calibration(h, np.linalg.inv(h), mine, err, mat_seats)
