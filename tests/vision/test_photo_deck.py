"""Play detection watched over a real deck's photographed faces (tools/photo_deck.py), not only drawn designs."""

from pathlib import Path

import pytest

PHOTOS = Path(__file__).resolve().parents[3] / "shared" / "photos"


def test_a_photographed_deck_is_built_and_its_plays_are_read(tmp_path):
    from tools import photo_deck, vision_bench

    if not (PHOTOS / "desk" / "template").exists():
        pytest.skip("the development photos ../shared/photos/desk are not here")
    codes = photo_deck.build(str(PHOTOS), str(tmp_path / "desk_photo"))
    assert len(codes) == 52 and len(list((tmp_path / "desk_photo").glob("*.png"))) == 52
    # one trick to the centre and one to the seats, the deck enrolled from the same faces
    got = vision_bench.latency(str(tmp_path), 1, decks=["desk_photo"])["total"]
    assert got["plays"] == 8 and got["read"] == 8, got
    assert got["wrong"] == 0 and got["false_events"] == 0 and got["gathers_seen"] == got["gathers"], got


def test_missing_photos_are_named(tmp_path, capsys):
    from tools import photo_deck

    assert photo_deck.main([str(tmp_path / "out"), "--photos", str(tmp_path / "none")]) == 2
    assert "desk deck's photos are not in" in capsys.readouterr().err
