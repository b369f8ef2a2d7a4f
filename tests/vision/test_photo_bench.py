"""The photograph benchmark reads the development sets' own label formats in place, and any labels.json folder."""

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

PHOTOS = Path(__file__).resolve().parents[3] / "shared" / "photos"


def _need(sub: str) -> Path:
    p = PHOTOS / sub
    if not p.exists():
        pytest.skip(f"the development photos ../shared/photos/{sub} are not here")
    return p


def test_label_formats_of_the_shared_sets():
    from tools import photo_bench as pb

    _need("poker_table")
    _need("desk")
    _need("boxes")
    sets = {s.name: s for s in pb.discover(str(PHOTOS))[0]}
    pt = sets["poker_table"]
    assert len(pt.photos) == 22 and sum(len(p.codes) for p in pt.photos) == 244
    assert all(len(c) == 2 and c[0] in "AKQJT98765432" and c[1] in "SHDC" for p in pt.photos for c in p.codes)
    t06 = next(p.codes for p in pt.photos if Path(p.path).name == "train_06.jpg")
    assert "JS" in t06 and "JD" not in t06  # labels corrected by eye (pb.LABEL_CORRECTIONS)
    t18 = next(p.codes for p in pt.photos if Path(p.path).name == "train_18.jpg")
    assert "JS" in t18 and "JC" not in t18
    t13 = next(p.codes for p in pt.photos if Path(p.path).name == "train_13.jpg")
    assert t13.count("AS") == 1 and t13.count("AC") == 1
    q12 = next(p.codes for p in sets["desk_query"].photos if Path(p.path).name == "q12.jpg")
    assert sorted(q12) == ["7S", "AD", "QH"]  # the ace at the photo's edge, added (pb.LABELS_MISSING)
    assert sets["desk_query"].photos[0].codes and len(sets["desk_template"].photos) == 52
    tpl = {Path(p.path).name: p.codes for p in sets["desk_template"].photos}
    assert tpl["clubs_1.jpg"] == ["AC"] and tpl["hearts_10.jpg"] == ["TH"] and tpl["spades_13.jpg"] == ["KS"]
    b2396 = next(p for p in sets["boxes_train"].photos if Path(p.path).stem == "IMG_2396")
    assert b2396.codes == ["T"]  # labelled nine; the photo shows a ten of diamonds (pb.LABEL_CORRECTIONS)
    boxes = sets["boxes_test"]
    assert len(boxes.photos) == 67 and all(p.boxes for p in boxes.photos)
    assert {b[4] for p in boxes.photos for b in p.boxes} <= set("AKQJT9")


def test_a_labels_json_folder_is_scored(tmp_path):
    from tools import photo_bench as pb

    q = _need("desk/query")
    import shutil

    # a folder laid out as the product's users would: images + labels.json (copied to tmp, never into the repo)
    for name in ("q1.jpg", "q10.jpg"):
        shutil.copy(q / name, tmp_path / name)
    (tmp_path / "labels.json").write_text(json.dumps({"q1.jpg": ["QS"], "q10.jpg": ["QH", "7S"]}))
    report = pb.bench(str(tmp_path), max_side=1280)
    (row,) = report["sets"]
    assert row["photos"] == 2 and row["cards"] == 3 and row["wrong"] == 0
    assert 0 <= row["read"] <= row["found"] <= 3 and row["ms"] > 0
    assert "wrong" in pb.format_table(report)


def test_a_photo_opencv_cannot_read_is_left_out_and_named(tmp_path):
    from tools import photo_bench as pb

    q = _need("desk/query")
    import shutil

    # a phone's HEIC among the JPEGs: the run goes on without it, and the report names it
    shutil.copy(q / "q1.jpg", tmp_path / "q1.jpg")
    (tmp_path / "q2.heic").write_bytes(b"\x00\x00\x00\x18ftypheic not an image OpenCV decodes")
    (tmp_path / "labels.json").write_text(json.dumps({"q1.jpg": ["QS"], "q2.heic": ["AS"]}))
    report = pb.bench(str(tmp_path), max_side=1280, with_speed=False)
    (row,) = report["sets"]
    assert row["photos"] == 1 and row["cards"] == 1 and row["unreadable"] == ["q2.heic"]
    assert "q2.heic" in pb.format_table(report)


def test_bad_labels_are_named(tmp_path):
    from tools import photo_bench as pb

    (tmp_path / "labels.json").write_text(json.dumps({"nothere.jpg": ["AS"]}))
    with pytest.raises(pb.BenchError, match="nothere.jpg"):
        pb.discover(str(tmp_path))
    with pytest.raises(pb.BenchError, match="not found"):
        pb.discover(str(tmp_path / "missing"))


def test_speed_is_measured_on_full_hd_frames_beside_a_peer():
    """The speed line: 1920 x 1080 frames cut from photos that have the pixels (none from smaller photos), read in
    full, with the reference OpenCV work on the same frames in the same run."""
    import cv2

    from tools import photo_bench as pb
    from vision import recognise

    _need("poker_table")
    sets = {s.name: s for s in pb.discover(str(PHOTOS))[0]}
    one = pb.PhotoSet("one", sets["poker_table"].photos[:1])
    frames = pb.full_hd_frames([one])
    assert len(frames) == 1 and frames[0].shape == (1080, 1920, 3)
    small = pb.PhotoSet("small", [pb.Photo(sets["boxes_test"].photos[0].path, [])])
    assert pb.full_hd_frames([small]) == []
    cv2.setNumThreads(1)
    sp = pb.speed(recognise.Recogniser(), frames, rounds=1)
    assert sp["frames"] == 1 and sp["size"] == "1920x1080" and sp["median_ms"] > 0 and sp["reference_ms"] > 0
    assert sp["ratio_to_reference"] > 0 and "median" in pb.format_table(
        {"mode": "generic", "deck": None, "max_side": 1920, "sets": [], "missing": [], "wrong_examples": {},
         "speed": sp})


def test_whole_cards_are_scored_apart():
    """The issue's targets count whole face-up cards: a box that meets another card's box or runs to the photo's
    edge is not whole, and the whole cards' found and read are scored on their own."""
    from types import SimpleNamespace

    import numpy as np

    from tools import photo_bench as pb

    boxes = [(10, 10, 60, 80, "A"), (55, 20, 105, 90, "K"), (200, 10, 250, 80, "Q"), (0, 100, 50, 170, "9"),
             (300, 100, 350, 170, "T")]
    assert pb._whole_boxes(boxes, (400, 300)) == [False, False, True, False, True]
    photo = pb.Photo("p.jpg", [b[4] for b in boxes], boxes, pb._whole_boxes(boxes, (400, 300)))

    def read(code, box):
        x0, y0, x1, y1 = box[:4]
        return SimpleNamespace(code=code, quad=np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32))

    res = pb.SetResult("t")
    # the queen found and read, the ten found and not read, the ace read (not whole)
    pb.score_photo(photo, [read("QS", boxes[2]), read(None, boxes[4]), read("AD", boxes[0])], 1.0, res)
    assert (res.cards, res.found, res.read, res.wrong) == (5, 3, 2, 0)
    assert (res.whole, res.w_found, res.w_read) == (2, 2, 1)
    # a list of codes without places (poker_table's players' under-cards are not whole): read only
    listed = pb.Photo("q.jpg", ["AS", "KD", "2C"], whole=[True, False, True])
    res2 = pb.SetResult("l")
    pb.score_photo(listed, [read("KD", boxes[2]), read("2C", boxes[3])], 1.0, res2)
    assert (res2.whole, res2.w_found, res2.w_read, res2.read) == (2, None, 1, 2)
    row = res.row()
    assert "whole" in pb.format_table({"mode": "generic", "deck": None, "max_side": 1920, "sets": [row],
                                       "missing": [], "wrong_examples": {}, "speed": None})


def test_a_covered_card_read_whole_is_matched_to_the_box_of_its_part_in_view():
    """boxes/train IMG_2618: a king of hearts lies under a ten, and only its bottom strip is boxed. Read with its
    whole outline, it overlaps that box by less than IoU 0.5; the box lies inside the outline, so the read is the
    king's (right), not a code on no labelled card. A code whose outline holds no box stays stray, and a box of
    another rank inside it makes it wrong."""
    from types import SimpleNamespace

    import numpy as np

    from tools import photo_bench as pb

    def quad(x0, y0, x1, y1):
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)

    boxes = [(20, 20, 120, 160, "T"), (20, 160, 120, 190, "K")]
    photo = pb.Photo("p.jpg", ["T", "K"], boxes, [True, False])
    res = pb.SetResult("t")
    pb.score_photo(photo, [SimpleNamespace(code="TH", quad=quad(20, 20, 120, 160)),
                           SimpleNamespace(code="KH", quad=quad(20, 50, 120, 190)),
                           SimpleNamespace(code="2C", quad=quad(300, 50, 400, 190))], 1.0, res)
    assert (res.found, res.read, res.wrong, res.stray) == (2, 2, 1, 1)
    res = pb.SetResult("t")
    alone = pb.Photo("q.jpg", ["K"], boxes[1:], [False])
    pb.score_photo(alone, [SimpleNamespace(code="QH", quad=quad(20, 50, 120, 190))], 1.0, res)
    assert (res.found, res.read, res.wrong, res.stray) == (1, 0, 1, 0)
    # IMG_2650: an outline over a jack and the queen half under it, named QH: the queen's box, half inside it
    pair = pb.Photo("r.jpg", ["J", "Q"], [(180, 200, 280, 415, "J"), (265, 195, 355, 410, "Q")], [False, False])
    res = pb.SetResult("t")
    pb.score_photo(pair, [SimpleNamespace(code="QH", quad=quad(155, 192, 356, 426))], 1.0, res)
    assert (res.found, res.read, res.wrong, res.stray) == (1, 1, 0, 0)
    # the same outline overlapping the jack's box by IoU 0.5 or more (with a cool cast): still the queen's, whose box
    # lies half inside it, not a QH on the jack
    res = pb.SetResult("t")
    pb.score_photo(pair, [SimpleNamespace(code="QH", quad=quad(177, 193, 356, 429))], 1.0, res)
    assert (res.found, res.read, res.wrong, res.stray) == (1, 1, 0, 0)
    # a king under an ace, only its left strip in view and boxed, read with its whole outline that overlaps the ace's
    # box more (IoU 0.52 against 0.34): the king's read, and the ace's own outline then takes the ace's box
    under = pb.Photo("s.jpg", ["A", "K"], [(48, 155, 143, 290, "A"), (4, 164, 52, 293, "K")], [False, False])
    res = pb.SetResult("t")
    pb.score_photo(under, [SimpleNamespace(code="KD", quad=quad(0, 153, 126, 298)),
                           SimpleNamespace(code="AD", quad=quad(42, 166, 130, 280))], 1.0, res)
    assert (res.found, res.read, res.wrong, res.stray) == (2, 2, 0, 0)
    # a misread is still one: a KD whose outline holds no K box
    res = pb.SetResult("t")
    pb.score_photo(under, [SimpleNamespace(code="KD", quad=quad(42, 166, 130, 280))], 1.0, res)
    assert (res.found, res.read, res.wrong) == (1, 0, 1)


def test_whole_cards_of_the_shared_sets():
    from tools import photo_bench as pb

    _need("poker_table")
    _need("boxes")
    sets = {s.name: s for s in pb.discover(str(PHOTOS))[0]}
    # the row of five and each player's top card; each player's under-card is not whole
    assert sum(sum(p.whole) for p in sets["poker_table"].photos) == 177
    assert all(p.whole is not None and len(p.whole) == len(p.codes) for p in sets["boxes_test"].photos)
    assert 0 < sum(sum(p.whole) for p in sets["boxes_test"].photos) < 143


def test_the_cards_judged_partly_covered_are_boxes_the_labels_took_for_whole():
    """``NOT_WHOLE`` names boxes that exist, each of which the labels' geometry alone counted whole (apart from other
    cards, inside the frame); without it they would be scored as whole cards."""
    from tools import photo_bench as pb

    _need("boxes")
    sets = {s.name: s for s in pb.discover(str(PHOTOS))[0]}
    for name, covered in pb.NOT_WHOLE.items():
        by_key = {}
        for photo in sets[name].photos:
            stem = os.path.splitext(os.path.basename(photo.path))[0]
            root = ET.parse(os.path.splitext(photo.path)[0] + ".xml").getroot()
            size = (float(root.findtext("size/width") or 0), float(root.findtext("size/height") or 0))
            for i, geometric in enumerate(pb._whole_boxes(photo.boxes, size)):
                by_key[f"{stem}#{i}"] = (geometric, photo.whole[i])
        assert set(covered) <= set(by_key), f"{name}: {sorted(set(covered) - set(by_key))}"
        assert all(by_key[k] == (True, False) for k in covered)
        assert sum(w for _, w in by_key.values()) == {"boxes_test": 79, "boxes_train": 288}[name]


def test_every_alteration_changes_a_photo_alike_each_time_and_the_webcam_shrinks_it():
    import numpy as np

    from tools import photo_bench as pb

    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (120, 1600, 3), dtype=np.uint8)
    for name in pb.ALTERATIONS:
        a, k = pb.altered(img, name, "x.jpg")
        b, _ = pb.altered(img, name, "x.jpg")
        assert a.dtype == np.uint8 and np.array_equal(a, b), name  # (the noise is the photo's own, not the run's)
        assert not np.array_equal(a, img[: a.shape[0], : a.shape[1]]), name
        assert k == (pb.WEBCAM_SIDE / 1600 if name == "webcam" else 1.0), name
    dim, _ = pb.altered(img, "dim-clean", "x.jpg")
    assert dim.max() <= round(255 * 0.45)


def test_the_shadow_alteration_darkens_a_sharp_band_and_leaves_the_rest():
    import numpy as np

    from tools import photo_bench as pb

    img = np.full((600, 800, 3), 200, np.uint8)
    out, _ = pb.altered(img, "shadow", "x.jpg")
    levels = out[..., 0].astype(int)
    shade = levels < 190
    assert 0.1 < shade.mean() < 0.6  # (a band a quarter of the shorter side wide, through the middle)
    assert int(levels.min()) in range(88, 122)  # the light 0.45-0.6 of the rest inside it
    assert (levels == 200).mean() > 0.4
    assert ((levels > 125) & (levels < 195)).mean() < 0.01  # a sharp edge: hardly a pixel between


def test_a_tilted_cameras_view_fits_the_frame_and_its_outlines_map_back(decks_dir):
    """``--alter tilt20``: the photo seen by a camera turned 20 degrees, the whole photo in the frame (its far side
    shorter), and a card read there maps back onto the card in the photo."""
    import cv2
    import numpy as np

    from tools import photo_bench as pb
    from tools import synth
    from vision import geometry, recognise

    w, h = 1280, 960
    assert np.allclose(pb.tilt_homography(w, h, 0.0), np.eye(3), atol=1e-6)
    tilt = pb.tilt_homography(w, h, 20.0)
    frame_corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    seen = cv2.perspectiveTransform(frame_corners[None], tilt)[0]
    assert seen.min() >= -0.5 and seen[:, 0].max() <= w + 0.5 and seen[:, 1].max() <= h + 0.5
    assert seen[1, 0] - seen[0, 0] < seen[2, 0] - seen[3, 0]  # the far side is the shorter
    assert min(seen.min(), w - seen[:, 0].max(), h - seen[:, 1].max()) < 1.0  # as near as the frame allows

    card = synth.load_deck(str(decks_dir / "plastic"))["7S"]
    photo = np.full((h, w, 3), (40, 110, 50), np.uint8)  # green felt
    quad = np.float32([[560, 330], [760, 350], [740, 640], [540, 620]])
    src = np.float32([[0, 0], [card.shape[1], 0], [card.shape[1], card.shape[0]], [0, card.shape[0]]])
    cv2.warpPerspective(card[..., :3], cv2.getPerspectiveTransform(src, quad), (w, h), photo,
                        borderMode=cv2.BORDER_TRANSPARENT)
    view = cv2.warpPerspective(photo, tilt, (w, h), borderMode=cv2.BORDER_REPLICATE)
    reads = recognise.Recogniser(None).identify(view)
    assert len(reads) == 1 and reads[0].code == "7S"
    back = cv2.perspectiveTransform(np.asarray(reads[0].quad, np.float32)[None], np.linalg.inv(tilt))[0]
    assert geometry.quad_iou(back, quad) > 0.85


def test_the_middle_of_a_photo_is_its_middle_columns_and_maps_back():
    import numpy as np

    from tools import photo_bench as pb

    img = np.arange(40 * 100 * 3, dtype=np.uint8).reshape(40, 100, 3)
    view, back = pb.seen_otherwise(img, "middle")
    x0 = round(pb.MIDDLE[0] * 100)
    assert view.shape == (40, round(pb.MIDDLE[1] * 100) - x0, 3) and (view == img[:, x0:x0 + view.shape[1]]).all()
    assert np.allclose(back @ np.array([3.0, 5.0, 1.0]), [3.0 + x0, 5.0, 1.0])


def test_a_close_up_frames_each_whole_card_alone_filling_a_third_of_a_webcams_frame():
    """``--alter closeup``: the issue's lone card seen from above by a webcam, filling about a third of its frame. A
    window of the frame's shape round each whole card, its box a third of the window (moved inside the photo at its
    edge), scaled to 640 x 480; the other boxes the window cuts are kept, not whole, and a sliver of one is left out."""
    import numpy as np

    from tools import photo_bench as pb

    img = np.zeros((600, 900, 3), np.uint8)
    boxes = [(100, 100, 200, 240, "A"), (205, 100, 305, 240, "K"), (840, 500, 890, 590, "Q")]
    photo = pb.Photo("p.jpg", ["A", "K", "Q"], boxes, [True, False, True])
    frames = list(pb.closeups(img, photo))
    assert len(frames) == 2 and all(f.shape == (480, 640, 3) for f, _ in frames)
    (_, ace), (_, queen) = frames
    assert ace.whole == [True, False] and [b[4] for b in ace.boxes] == ["A", "K"]  # (the king cut by the window)
    x0, y0, x1, y1, _ = ace.boxes[0]
    assert abs((x1 - x0) * (y1 - y0) / (640 * 480) - 1 / 3) < 0.01
    assert abs((x0 + x1) / 2 - 320) < 2 and abs((y0 + y1) / 2 - 240) < 2  # (in the middle: room on every side)
    qx0, qy0, qx1, qy1, _ = queen.boxes[0]
    # (near the photo's corner: the window moved inside the photo, the queen right of its middle and still whole)
    assert queen.whole == [True] and 0 <= qx0 and qx1 <= 640 and 0 <= qy0 and qy1 <= 480 and qx0 > 320
    # a photo too small for the window: the window is the whole photo's height, and the card fills more of it
    small = pb.Photo("s.jpg", ["A"], [(10, 10, 110, 150, "A")], [True])
    (_, s), = pb.closeups(np.zeros((160, 400, 3), np.uint8), small)
    x0, y0, x1, y1, _ = s.boxes[0]
    assert (x1 - x0) * (y1 - y0) / (640 * 480) > 0.4


def test_each_of_four_aces_framed_alone_close_up_is_read():
    """boxes_test cam_image8, a webcam's photo of the four aces on dark wood: each, framed alone by ``--alter
    closeup`` (its neighbours cut by the frame's edges), is read, and nothing is named wrongly."""
    from tools import photo_bench as pb
    from vision import recognise

    _need("boxes")
    test = next(s for s in pb.discover(str(PHOTOS))[0] if s.name == "boxes_test")
    photo = next(p for p in test.photos if os.path.basename(p.path) == "cam_image8.jpg")
    img, scale = pb.load_photo(photo.path, 1920)
    rec = recognise.Recogniser()
    res = pb.SetResult("closeup")
    named = []
    for frame, close in pb.closeups(img, photo, scale):
        reads = rec.identify(frame)
        named += [r.code for r in reads if r.code]
        pb.score_photo(close, reads, 1.0, res)
    assert (res.whole, res.w_found, res.w_read, res.wrong) == (4, 4, 4, 0)
    assert {"AH", "AD", "AS", "AC"} <= set(named)
