"""The aisleriot theme importer: the 13 x 5 sheet cut into one image per card code, transparency on white."""

import shutil

import numpy as np
import pytest

from tools import aisleriot


def _sheet(cw: int = 20, ch: int = 30) -> np.ndarray:
    """A sheet whose every cell has its own colour (row, column, 99) and a transparent top-left pixel."""
    sheet = np.zeros((5 * ch, 13 * cw, 4), np.uint8)
    for r in range(5):
        for c in range(13):
            sheet[r * ch:(r + 1) * ch, c * cw:(c + 1) * cw] = (r * 40, c * 15, 99, 255)
            sheet[r * ch, c * cw, 3] = 0
    return sheet


def test_cells_are_named_by_code_in_the_sheet_order():
    cards = aisleriot.cut_sheet(_sheet())
    assert len(cards) == 55  # 52 + two jokers + the back
    assert tuple(cards["AC"][5, 5]) == (0, 0, 99)
    assert tuple(cards["KC"][5, 5]) == (0, 12 * 15, 99)
    assert tuple(cards["TD"][5, 5]) == (40, 9 * 15, 99)
    assert tuple(cards["2H"][5, 5]) == (80, 15, 99)
    assert tuple(cards["QS"][5, 5]) == (120, 11 * 15, 99)
    # the last row: black joker (LJ), red joker (BJ), back
    assert tuple(cards["LJ"][5, 5]) == (160, 0, 99)
    assert tuple(cards["BJ"][5, 5]) == (160, 15, 99)
    assert tuple(cards["back"][5, 5]) == (160, 30, 99)


def test_transparent_corners_become_white():
    cards = aisleriot.cut_sheet(_sheet())
    assert tuple(cards["5S"][0, 0]) == (255, 255, 255)


def test_unknown_theme_names_the_installed_ones(tmp_path):
    (tmp_path / "plain.svgz").write_bytes(b"")
    with pytest.raises(aisleriot.ThemeError, match="there are: plain"):
        aisleriot.theme_path("nosuch", str(tmp_path))
    with pytest.raises(aisleriot.ThemeError, match="gnome-cards-data"):
        aisleriot.theme_path("nosuch", str(tmp_path / "empty"))


@pytest.mark.skipif(shutil.which("rsvg-convert") is None or not aisleriot.themes(),
                    reason="needs Debian's librsvg2-bin and gnome-cards-data")
def test_an_installed_theme_gives_a_whole_deck(tmp_path):
    written = aisleriot.write_deck("anglo", str(tmp_path / "anglo"))
    assert len(written) == 55
