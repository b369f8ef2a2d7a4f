import cv2
import numpy as np
import pytest

from tools import synth
from vision import mat


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


def _mat_frame(seed, n_seats, perspective=0.08):
    rng = np.random.default_rng(seed)
    h = synth.camera_homography(rng, perspective)
    return np.clip(synth.table_background(rng, h, n_seats), 0, 255).astype(np.uint8), h


@pytest.mark.parametrize("seed", [1, 7, 12])
def test_five_seat_mat_calibrates_through_perspective_and_attributes_every_seat(seed):
    frame, h = _mat_frame(seed, 5)
    cal = mat.calibrate(frame, n_seats=5)
    assert cal.n_seats == 5 and sorted(cal.marker_frame) == [4, 5, 6, 7]
    pts = np.array([[100, 100], [600, 400], [1100, 700]], np.float32)
    want = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), h).reshape(-1, 2)
    assert np.abs(cal.to_frame(pts) - want).max() < 2.0
    # the centre and the inner corners of each zone, seen through the camera, land in that zone and no other
    for z in mat.zones(5):
        inner = [z.centre, (z.x0 + 15, z.y0 + 15), (z.x1 - 15, z.y0 + 15), (z.x1 - 15, z.y1 - 15),
                 (z.x0 + 15, z.y1 - 15)]
        for p in cv2.perspectiveTransform(np.array([inner], np.float32), h)[0]:
            got = cal.zone_at((float(p[0]), float(p[1])))
            assert got is not None and (got.name, got.seat) == (z.name, z.seat)
    assert sorted(z.seat for z in mat.zones(5) if z.seat is not None) == [0, 1, 2, 3, 4]


def test_five_seat_zones_are_apart_from_each_other_and_the_markers():
    zs = mat.zones(5)
    for i, a in enumerate(zs):
        assert 0 <= a.x0 < a.x1 <= mat.MAT_W and 0 <= a.y0 < a.y1 <= mat.MAT_H
        for b in zs[i + 1 :]:
            assert a.x1 <= b.x0 or b.x1 <= a.x0 or a.y1 <= b.y0 or b.y1 <= a.y0, (a.name, b.name)
        for quad in mat.marker_corners_mat(5).values():
            x0, y0 = quad.min(axis=0) - mat.MARGIN
            x1, y1 = quad.max(axis=0) + mat.MARGIN
            assert a.x1 <= x0 or x1 <= a.x0 or a.y1 <= y0 or y1 <= a.y0, a.name
    # seats run clockwise (on the picture, y down) from the bottom edge: the angle from "down" grows with the seat
    ang = [(np.degrees(np.arctan2(z.centre[1] - mat.MAT_H / 2, z.centre[0] - mat.MAT_W / 2)) - 90) % 360
           for z in zs[:5]]
    assert ang == sorted(ang) and ang[0] == 0 and all(40 < b - a < 100 for a, b in zip(ang, ang[1:], strict=False))
    # a seat's hand moves toward the centre: seat 0 (bottom edge) reaches up the mat
    assert abs(mat.seat_direction(0, 5) - -90) < 1


def test_mismatched_mat_is_named_in_the_error():
    four, _ = _mat_frame(3, 4)
    five, _ = _mat_frame(3, 5)
    with pytest.raises(mat.MatMismatch, match="four-seat mat .markers 0-3. but this game has five players.*--seats 5"):
        mat.calibrate(four, n_seats=5)
    with pytest.raises(mat.MatMismatch, match="five-seat mat .markers 4-7. but this game has four players"):
        mat.calibrate(five, n_seats=4)
    # with no game to match, either mat is taken for what it is
    assert mat.calibrate(four).n_seats == 4 and mat.calibrate(five).n_seats == 5
    # half of each mat in view: two markers of each, not enough of either, and no mix of the two
    both = np.concatenate([four[:, :640], five[:, 640:]], axis=1)
    assert sorted(mat.find_markers(both)) == [0, 3, 5, 6]
    with pytest.raises(mat.CalibrationError, match="markers missing"):
        mat.calibrate(both)


def test_missing_five_seat_markers_are_named():
    frame, _ = _mat_frame(4, 5, 0.05)
    cal = mat.calibrate(frame)
    for i in (4, 5):
        q = cal.marker_frame[i]
        x0, y0 = q.min(axis=0).astype(int) - 15
        x1, y1 = q.max(axis=0).astype(int) + 15
        frame[max(y0, 0) : y1, max(x0, 0) : x1] = (40, 90, 40)
    with pytest.raises(mat.CalibrationError, match="five-seat mat markers missing: top-left .id 4.*top-right .id 5"):
        mat.calibrate(frame, n_seats=5)


def test_five_seat_mat_files(tmp_path):
    mat.save_mat(str(tmp_path / "m5.png"), 1.0, n_seats=5)
    img = cv2.imread(str(tmp_path / "m5.png"))
    assert sorted(mat.find_markers(img)) == [4, 5, 6, 7]
    with pytest.raises(ValueError, match="not 6"):
        mat.zones(6)


def test_a_cards_size_is_taken_where_it_lies_on_a_mat_seen_at_an_angle():
    """A camera 30 degrees off the vertical sees a card at the far seat smaller, and one at the near seat larger,
    than one at the mat's centre; without a place, the centre's size as before."""
    rng = np.random.default_rng(3)
    h_mf = synth.camera_homography(rng, 0.0, tilt=30)
    cal = mat.Calibration(np.linalg.inv(h_mf), h_mf)
    zones = {z.seat: z.centre for z in mat.zones(4)}
    centre = cal.card_area_px()
    assert cal.card_area_px(tuple(cal.to_frame(np.array([zones[None]]))[0])) == pytest.approx(centre, rel=1e-4)
    far = cal.card_area_px(tuple(cal.to_frame(np.array([zones[2]]))[0]))
    near = cal.card_area_px(tuple(cal.to_frame(np.array([zones[0]]))[0]))
    assert far < 0.85 * centre and near > 1.2 * centre
    # a place on the mat's rim or beyond it counts as the nearest place a whole card can lie
    corner = cal.to_frame(np.array([[0.0, 0.0], [mat.CARD_W / 2, mat.CARD_H / 2]]))
    beyond = tuple(corner[0] - [20.0, 20.0])
    assert cal.card_area_px(beyond) == pytest.approx(cal.card_area_px(tuple(corner[1])), rel=1e-4)
    assert cal.card_area_px(beyond) < far
