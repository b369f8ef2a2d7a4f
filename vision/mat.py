"""The printable table mat and the camera calibration that it makes possible.

The mat is drawn in *table units* (1 unit = 0.5 mm when printed at the nominal size): four ArUco markers at the
corners give the homography from the camera frame to the mat, and the zones (one in front of each seat, one in the
centre) are rectangles in mat coordinates, so they follow the camera wherever it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

MAT_W = 1200
MAT_H = 800
MARKER = 90  # side of each ArUco marker, table units
MARGIN = 20  # white quiet zone around the marker and from the mat edge
MARKER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left
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
    """The zones of a four-seat mat; seats are clockwise from the bottom edge (the camera's near side)."""
    if n_seats != 4:
        raise ValueError(f"the mat has zones for 4 seats, not {n_seats}")
    cx, cy = MAT_W / 2, MAT_H / 2
    w, h = 230, 230  # a seat zone holds a card at any rotation
    return [
        Zone("seat0", 0, cx - w / 2, MAT_H - 40 - h, cx + w / 2, MAT_H - 40),
        Zone("seat1", 1, 160, cy - h / 2, 160 + w, cy + h / 2),
        Zone("seat2", 2, cx - w / 2, 40, cx + w / 2, 40 + h),
        Zone("seat3", 3, MAT_W - 160 - w, cy - h / 2, MAT_W - 160, cy + h / 2),
        Zone("centre", None, cx - 150, cy - 115, cx + 150, cy + 115),
    ]


def marker_corners_mat() -> dict[int, np.ndarray]:
    """The four corners of each marker in mat coordinates (ArUco order: TL, TR, BR, BL)."""
    s = MARKER
    origins = {
        MARKER_IDS[0]: (MARGIN * 2, MARGIN * 2),
        MARKER_IDS[1]: (MAT_W - MARGIN * 2 - s, MARGIN * 2),
        MARKER_IDS[2]: (MAT_W - MARGIN * 2 - s, MAT_H - MARGIN * 2 - s),
        MARKER_IDS[3]: (MARGIN * 2, MAT_H - MARGIN * 2 - s),
    }
    return {
        i: np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], np.float32) for i, (x, y) in origins.items()
    }


def render_mat(scale: float = 1.0) -> np.ndarray:
    """The mat as a BGR image, ``scale`` pixels per table unit."""
    img = np.zeros((MAT_H, MAT_W, 3), np.uint8)
    img[:] = FELT_BGR
    for z in zones():
        p0 = (int(z.x0), int(z.y0))
        p1 = (int(z.x1), int(z.y1))
        cv2.rectangle(img, p0, p1, ZONE_BGR, 3, cv2.LINE_AA)
        label = "centre" if z.seat is None else f"seat {z.seat}"
        cv2.putText(img, label, (p0[0] + 6, p0[1] + 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, ZONE_BGR, 1, cv2.LINE_AA)
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    for i, quad in marker_corners_mat().items():
        x, y = (int(v) for v in quad[0])
        cv2.rectangle(img, (x - MARGIN, y - MARGIN), (x + MARKER + MARGIN, y + MARKER + MARGIN), (255, 255, 255), -1)
        marker = cv2.aruco.generateImageMarker(dictionary, i, MARKER)
        img[y : y + MARKER, x : x + MARKER] = marker[:, :, None]
    if scale != 1.0:
        img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
    return img


def save_mat(path: str, scale: float = 4.0) -> None:
    """Write the mat as PNG or PDF (by the file's extension); PDF pages are sized for the nominal 0.5 mm unit."""
    img = render_mat(scale)
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


@dataclass
class Calibration:
    """The homographies between the camera frame and the mat."""

    frame_to_mat: np.ndarray
    mat_to_frame: np.ndarray
    marker_frame: dict[int, np.ndarray] = field(default_factory=dict)
    reprojection_px: float = 0.0

    def to_mat(self, pts: np.ndarray) -> np.ndarray:
        p = np.asarray(pts, np.float32).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, self.frame_to_mat).reshape(-1, 2)

    def to_frame(self, pts: np.ndarray) -> np.ndarray:
        p = np.asarray(pts, np.float32).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, self.mat_to_frame).reshape(-1, 2)

    def zone_at(self, frame_xy: tuple[float, float]) -> Zone | None:
        x, y = self.to_mat(np.array([frame_xy]))[0]
        for z in zones():
            if z.contains(float(x), float(y)):
                return z
        return None

    def card_area_px(self) -> float:
        """The area (frame pixels) of a card lying at the centre of the mat."""
        cx, cy = MAT_W / 2, MAT_H / 2
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
    """The mat's markers found in a frame: id -> 4x2 corners (frame pixels)."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = _detector().detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel(), strict=True):
        if int(i) in MARKER_IDS:
            found[int(i)] = c.reshape(4, 2).astype(np.float32)
    return found


def calibrate(frame: np.ndarray, min_markers: int = 3) -> Calibration:
    """Find the mat in a frame and compute the homography; needs at least ``min_markers`` of the four markers."""
    found = find_markers(frame)
    missing = [i for i in MARKER_IDS if i not in found]
    names = {0: "top-left", 1: "top-right", 2: "bottom-right", 3: "bottom-left"}
    if len(found) < min_markers:
        miss = ", ".join(f"{names[i]} (id {i})" for i in missing)
        raise CalibrationError(
            f"mat markers missing: {miss}; found {len(found)} of 4 - is the whole mat in view and uncovered?"
        )
    ref = marker_corners_mat()
    src = np.concatenate([found[i] for i in sorted(found)])
    dst = np.concatenate([ref[i] for i in sorted(found)])
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        raise CalibrationError("the mat markers do not give a valid homography (are they printed flat?)")
    proj = cv2.perspectiveTransform(src.reshape(-1, 1, 2), h).reshape(-1, 2)
    err = float(np.abs(proj - dst).max())
    return Calibration(h, np.linalg.inv(h), found, err)
