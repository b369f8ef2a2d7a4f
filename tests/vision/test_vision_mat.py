import cv2
import numpy as np
import pytest

from vision import mat, synth


def test_calibration_recovers_the_camera_homography():
    rng = np.random.default_rng(2)
    h = synth.camera_homography(rng, 0.08)
    frame = np.clip(synth.table_background(rng, h), 0, 255).astype(np.uint8)
    cal = mat.calibrate(frame)
    pts = np.array([[100, 100], [600, 400], [1100, 700]], np.float32)
    got = cal.to_frame(pts)
    want = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), h).reshape(-1, 2)
    assert np.abs(got - want).max() < 2.0
    seat0 = [z for z in mat.zones() if z.seat == 0][0]
    assert cal.zone_at(tuple(cal.to_frame(np.array([seat0.centre]))[0])).seat == 0


def test_missing_markers_are_named():
    rng = np.random.default_rng(4)
    h = synth.camera_homography(rng, 0.05)
    frame = np.clip(synth.table_background(rng, h), 0, 255).astype(np.uint8)
    cal = mat.calibrate(frame)
    for i in (0, 1):
        q = cal.marker_frame[i]
        x0, y0 = q.min(axis=0).astype(int) - 15
        x1, y1 = q.max(axis=0).astype(int) + 15
        frame[max(y0, 0) : y1, max(x0, 0) : x1] = (40, 90, 40)
    with pytest.raises(mat.CalibrationError, match="top-left .id 0.*top-right .id 1"):
        mat.calibrate(frame)


def test_camera_move_is_measured():
    rng = np.random.default_rng(6)
    h = synth.camera_homography(rng, 0.05)
    frame = np.clip(synth.table_background(rng, h), 0, 255).astype(np.uint8)
    a = mat.calibrate(frame)
    shifted = np.roll(frame, 20, axis=1)
    b = mat.calibrate(shifted)
    assert a.moved(a) == 0.0
    assert 15 < a.moved(b) < 25


def test_mat_files(tmp_path):
    mat.save_mat(str(tmp_path / "m.png"), 1.0)
    mat.save_mat(str(tmp_path / "m.pdf"), 1.0)
    assert (tmp_path / "m.pdf").read_bytes().startswith(b"%PDF")
    img = cv2.imread(str(tmp_path / "m.png"))
    assert len(mat.find_markers(img)) == 4
