"""The reads dump (tools/reads_dump.py) records every read of a photo, and its comparison notices any change."""

import copy
import json
from pathlib import Path

import pytest

PHOTOS = Path(__file__).resolve().parents[3] / "shared" / "photos"


def test_two_dumps_of_the_same_code_are_identical_and_a_moved_corner_is_reported(tmp_path):
    from tools import reads_dump

    if not (PHOTOS / "desk").exists():
        pytest.skip("the development photos ../shared/photos/desk are not here")
    a = reads_dump.dump_reads(str(PHOTOS), ["desk_query"], limit=2)
    b = reads_dump.dump_reads(str(PHOTOS), ["desk_query"], limit=2)
    assert len(a) == 2 and sum(len(v) for v in a.values()) >= 2  # the first desk photos show cards
    assert reads_dump.compare(a, b) == ([], True)

    moved = copy.deepcopy(b)
    path = next(p for p, reads in moved.items() if reads)
    moved[path][0]["quad"][0][0] += 0.5
    diffs, identical = reads_dump.compare(a, moved)
    assert not identical and len(diffs) == 1 and "corners moved 0.50 px" in diffs[0]
    # within the tolerance a sub-pixel move is not a difference, though the dumps are no longer bit-identical
    assert reads_dump.compare(a, moved, tol=1.0) == ([], False)

    renamed = copy.deepcopy(b)
    renamed[path][0]["code"] = "AS" if renamed[path][0]["code"] != "AS" else "KS"
    assert len(reads_dump.compare(a, renamed)[0]) == 1
    dropped = copy.deepcopy(b)
    dropped[path] = dropped[path][1:]
    assert "reads before" in reads_dump.compare(a, dropped)[0][0]


def test_the_command_line_compares_files_and_names_an_unreadable_one(tmp_path, capsys):
    from tools import reads_dump

    before = {"p.jpg": [{"code": "AS", "label": "AS", "confidence": 0.99, "margin": 0.99, "whole": 1.0,
                         "quad": [[0, 0], [10, 0], [10, 14], [0, 14]]}]}
    after = copy.deepcopy(before)
    after["p.jpg"][0]["code"] = None
    (tmp_path / "a.json").write_text(json.dumps(before))
    (tmp_path / "b.json").write_text(json.dumps(after))
    assert reads_dump.main(["compare", str(tmp_path / "a.json"), str(tmp_path / "a.json")]) == 0
    assert reads_dump.main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 1
    assert "AS/AS -> ?/AS" in capsys.readouterr().out
    assert reads_dump.main(["compare", str(tmp_path / "a.json"), str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err


def test_the_enrolled_mode_is_dumped_with_a_deck_and_a_missing_deck_is_named(tmp_path, capsys):
    from tools import reads_dump

    if not (PHOTOS / "boxes" / "train").exists():
        pytest.skip("the development photos ../shared/photos/boxes are not here")
    generic = reads_dump.dump_reads(str(PHOTOS), ["boxes_train"], limit=3)
    enrolled = reads_dump.dump_reads(str(PHOTOS), ["boxes_train"], limit=3, deck="boxes")
    assert enrolled.keys() == generic.keys()
    assert enrolled == reads_dump.dump_reads(str(PHOTOS), ["boxes_train"], limit=3, deck="boxes")
    assert enrolled != generic  # (the enrolled mode's scores are its templates', not the network's)
    assert reads_dump.main(["dump", str(tmp_path / "x.json"), "--photos", str(PHOTOS), "--deck",
                            str(tmp_path / "none.npz")]) == 2
    assert "deck file not found" in capsys.readouterr().err
