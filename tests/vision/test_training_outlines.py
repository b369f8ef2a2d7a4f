"""The training photos' card outlines are read from a checked-in file, not found again by a finder that changes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from tools import train_finder, train_index
from tools import training_outlines as to
from vision import deck as decklib
from vision import geometry

PHOTOS = Path(__file__).resolve().parents[3] / "shared" / "photos"
BOXES = PHOTOS / "boxes" / "train"
DESK = PHOTOS / "desk" / "template"


def _need(folder: Path) -> None:
    if not folder.is_dir():
        pytest.skip(f"the development photos are not at {folder}")


def test_the_file_holds_every_training_photo_and_the_cards_the_shipped_network_learned():
    """Every boxes/train and desk/template photo has its outlines in the file; labelled as the training labels them,
    they give the 297 photographed cards (9,504 corners at 16 views) and the 52 desk cards the shipped corner
    network was trained on (``vision/index_net.json``: 53,543 corners in all)."""
    _need(BOXES)
    _need(DESK)
    outlines = to.load(to.INDEX)
    assert sorted(outlines.data[to.BOXES]) == sorted(p for p in os.listdir(BOXES) if p.lower().endswith(".jpg"))
    assert sorted(outlines.data[to.DESK]) == to.desk_photos(str(DESK)) and len(to.desk_photos(str(DESK))) == 52
    cards = train_index.photo_cards(str(BOXES), outlines)
    assert len(cards) * 16 * 2 == json.loads(Path(train_index.ix.__file__).with_suffix(".json").read_text())[
        "photo_corners"]
    assert {rank for _, _, rank in cards} == {"9", "T", "J", "Q", "K", "A"}
    deck = train_index.photo_deck(str(DESK), outlines)
    assert len(deck) == 52 and all(img.shape[:2] == (geometry.CH, geometry.CW) for img in deck.values())


def test_the_finder_network_learns_from_the_outlines_of_its_own_training():
    """The finder's section holds the outlines the tree of 35ca41e found, which trained the shipped finder network:
    388 targets in the 348 photos and 191 labelled boxes the loss skips (39 boxes/train cards more than the corner
    network's outlines give), and a desk deck whose 3H and 4H are cut otherwise than the corner network's."""
    _need(BOXES)
    _need(DESK)
    finder, index = to.load(to.FINDER), to.load(to.INDEX)
    targets = train_finder._photo_targets(str(PHOTOS), finder)
    assert len(targets) == 348
    assert sum(len(t["quads"]) for t in targets) == 388 and sum(len(t["ignore"]) for t in targets) == 191
    assert sum(len(t["quads"]) for t in train_finder._photo_targets(str(PHOTOS), index)) == 349
    ours, theirs = train_index.photo_deck(str(DESK), finder), train_index.photo_deck(str(DESK), index)
    assert sorted(ours) == sorted(theirs)
    assert sorted(code for code in ours if not np.array_equal(ours[code], theirs[code])) == ["3H", "4H"]


def test_a_photo_the_file_does_not_hold_is_named_with_the_way_to_refresh():
    outlines = to.Outlines({to.BOXES: {}, to.DESK: {}}, "outlines.json", to.FINDER)
    with pytest.raises(to.OutlinesError, match=r"no finder outlines for boxes/train/IMG_1\.JPG.*--refresh-outlines"):
        outlines.whole(to.BOXES, "IMG_1.JPG")
    with pytest.raises(to.OutlinesError, match=r"desk/template/hearts_1\.jpg"):
        outlines.card("hearts_1.jpg")


def test_a_file_without_a_networks_section_is_named(tmp_path):
    path = tmp_path / "outlines.json"
    path.write_text(json.dumps({to.INDEX: {to.BOXES: {}, to.DESK: {}}}))
    assert to.load(to.INDEX, str(path)).network == to.INDEX
    with pytest.raises(to.OutlinesError, match=r"outlines\.json holds no outlines for the finder network.*--refresh"):
        to.load(to.FINDER, str(path))


def test_refreshed_outlines_are_what_the_finder_and_enrollment_find_now(tmp_path):
    """``--refresh-outlines`` on a photos folder: each photo's outlines as the finder's hand-drawn views find them
    today, and the desk card's as enrollment cuts it, for both networks; the file written is the one training
    reads."""
    _need(BOXES)
    _need(DESK)
    root = tmp_path / "photos"
    (root / "boxes" / "train").mkdir(parents=True)
    (root / "desk" / "template").mkdir(parents=True)
    # (three cards found whole - the king of hearts on concrete by the surface view since session 57: the summary
    # counts outlines, not photos)
    box = "IMG_2565.JPG"
    for name in (box, box.replace(".JPG", ".xml")):
        shutil.copy(BOXES / name, root / "boxes" / "train" / name)
    desk = "hearts_5.jpg"
    shutil.copy(DESK / desk, root / "desk" / "template" / desk)
    path = tmp_path / "outlines.json"
    summary = to.refresh(str(root), str(path))
    assert summary == {"boxes_photos": 1, "boxes_outlines": 3, "desk_photos": 1, "desk_cards": 1}
    outlines = to.load(to.INDEX, str(path))
    assert outlines.data == to.load(to.FINDER, str(path)).data  # (both networks' sections alike)
    img = cv2.imread(str(BOXES / box))
    assert [q.tolist() for q in outlines.whole(to.BOXES, box)] == [q.tolist() for q in to.whole_cards(img)]
    photo = decklib.enrollment_view(cv2.imread(str(DESK / desk)))
    assert np.array_equal(outlines.card(desk), decklib.card_outline_in_photo(photo, desk))
    # and the training reads it: the finder's targets from the same outlines, scaled to the photo as it loads
    targets = train_finder._photo_targets(str(root), outlines)
    # (four cards labelled there: the three found whole are targets, the loss skips the other one's box)
    assert len(targets) == 2 and len(targets[0]["quads"]) == 3 and len(targets[0]["ignore"]) == 1
