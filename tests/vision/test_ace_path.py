"""The generic reader's ace path (``index_net``, 'ace'; ``pips.lone_middle``): an ornate ace, whose design is no
clean pip layout, named by both corners and its field's ink lying only in its middle."""

from collections import Counter

import cv2
import pytest

from vision import geometry, index_net, pips


@pytest.mark.parametrize("ace_path", [True, False])
def test_an_ornate_ace_of_spades_is_named_by_its_corners_and_its_lone_design(ace_path, monkeypatch, poker_photo,
                                                                             desk_photo):
    """Every real deck's ace of spades is ornate (a large design, the maker's ribbon and lettering), which the pip
    reader finds no layout in: the 'corners' path (0.97) left it unsure on the development photos, both corners
    reading it at 0.88-0.99. With the ace path (0.9, the field's ink only in its middle) these three are named, and
    nothing in the three photos is named wrong either way."""
    from vision.recognise import Recogniser

    monkeypatch.setattr(index_net, "ACE_PATH", ace_path)
    rec = Recogniser()
    named = 0
    for img, truth in (poker_photo("train_23.jpg", 1920), desk_photo("q3.jpg", 1920), desk_photo("q15.jpg", 1920)):
        got = Counter(r.code for r in rec.identify(img) if r.code)
        assert not got - truth
        named += got["AS"]
    assert named == (3 if ace_path else 0)


def _deck_card(decks_dir, deck: str, code: str):
    path = decks_dir / deck / f"{code}.png"
    return cv2.resize(cv2.imread(str(path), cv2.IMREAD_COLOR), (geometry.CW, geometry.CH), interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("deck", ["anglo_modern", "bellot", "neoclassical", "plastic", "simplistic", "paris"])
def test_only_an_aces_field_lies_in_the_middle(deck, decks_dir):
    """The drawn designs' cards, straight: each ace's field lies in its middle; no two to ten's (pips near the
    field's top and bottom) and no court's (a picture from top to bottom) does."""
    for suit in "SHDC":
        assert pips.lone_middle(_deck_card(decks_dir, deck, "A" + suit)), deck + " A" + suit
        for rank in "23456789TJQK":
            assert not pips.lone_middle(_deck_card(decks_dir, deck, rank + suit)), deck + " " + rank + suit


def test_two_corners_on_an_ace_name_it_at_the_floor_only_with_the_field_of_an_ace():
    """Both corners read the ace of spades at 0.93 (train_23's), no pip layout: with an ace's field the 'ace' path
    names it (0.9); without, the 'corners' path does not (0.97: a blurred three read as a two by both corners at 0.90
    set it). A blurred black ace needs the suit at ``BLURRED_BLACK_COURT_P``, as a court does, and the ink must show
    a colour."""
    import numpy as np

    def read(p: float, middle: bool, width: float = 2.0, colour: str = "black"):
        ranks = np.full((2, len(index_net.RANKS)), (1 - p) / (len(index_net.RANKS) - 1), np.float32)
        ranks[:, index_net.RANKS.index("A")] = p
        suits = np.full((2, len(index_net.SUITS)), (1 - p) / (len(index_net.SUITS) - 1), np.float32)
        suits[:, index_net.SUITS.index("S")] = p
        return index_net._decide(index_net._joint(ranks, suits, [width, width]), None, colour, 3, middle)

    th = index_net.load_thresholds()
    ace = read(0.93, True)
    assert ace.path == "ace" and ace.label == "AS" and index_net.accepts(ace, th)
    assert read(0.93, False).path == "corners" and not index_net.accepts(read(0.93, False), th)
    assert not index_net.accepts(read(0.88, True), th)
    blurred = read(0.93, True, width=index_net.BLURRED_WIDTH + 0.5)
    assert blurred.path == "ace" and not index_net.accepts(blurred, th)
    # ink too faint for a colour: the suit has no other check (boxes_train IMG_2434 blurred, an AS read AD), and the
    # corners decide as before the ace path (boxes_train cam_image18's ace of spades, named there at 0.976)
    assert read(0.93, True, colour="?").path == "corners" and not index_net.accepts(read(0.93, True, colour="?"), th)
    assert index_net.accepts(read(0.98, True, colour="?"), th)
    assert index_net.accepts(read(0.93, True, colour="other"), th)  # a four-colour deck's ink may be any suit
