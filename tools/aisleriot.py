"""Deck folders from the aisleriot card themes (Debian's ``gnome-cards-data``): more designs to measure on.

The development decks in ``../shared/decks`` are eight of these themes. The package holds about thirty; the others
are designs that neither the tuning nor anybody's eyes have seen, which is what an honest held-out measurement needs
(the product is judged on decks that are not in that folder). Each theme is one SVG sheet, a 13 x 5 grid: rows
clubs, diamonds, hearts, spades (columns ace, 2 ... 10, jack, queen, king), then the black joker, the red joker and
the back. ``rsvg-convert`` (Debian's ``librsvg2-bin``) renders it; the cells are cut into one PNG per card code,
as in ``../shared/decks/*/`` (the transparent rounded corners on white, like those).
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import tempfile

import cv2
import numpy as np

THEMES_DIR = "/usr/share/aisleriot/cards"
SUIT_ROWS = ("C", "D", "H", "S")
RANK_COLUMNS = "A23456789TJQK"
# the fifth row: black joker, red joker, back (CONVENTIONS: BJ is the red / coloured one, LJ the black one)
LAST_ROW = ("LJ", "BJ", "back")


class ThemeError(Exception):
    """A theme that cannot be found or rendered; the message names what is missing and how to get it."""


def themes(directory: str = THEMES_DIR) -> list[str]:
    """The theme names installed (file names without ``.svgz``/``.svg``)."""
    if not os.path.isdir(directory):
        return []
    return sorted(f.rsplit(".", 1)[0] for f in os.listdir(directory) if f.endswith((".svgz", ".svg")))


def theme_path(name: str, directory: str = THEMES_DIR) -> str:
    """The SVG(Z) file of a theme given by name or path."""
    if os.path.isfile(name):
        return name
    for ext in (".svgz", ".svg"):
        p = os.path.join(directory, name + ext)
        if os.path.isfile(p):
            return p
    have = themes(directory)
    if not have:
        raise ThemeError(f"no aisleriot themes in {directory}: install them with `apt-get install gnome-cards-data`")
    raise ThemeError(f"theme {name!r} not found in {directory}; there are: {', '.join(have)}")


def plain_svg(path: str, folder: str) -> str:
    """The SVG or SVGZ file ``path`` written as plain SVG into ``folder`` (rsvg-convert reads no gzip); its path."""
    svg = os.path.join(folder, "plain.svg")
    opener = gzip.open if path.endswith(".svgz") else open
    with opener(path, "rb") as src, open(svg, "wb") as dst:
        dst.write(src.read())
    return svg


def render_sheet(path: str, width: int = 13 * 240) -> np.ndarray:
    """The theme's whole sheet as a BGRA image ``width`` pixels wide (240 per card, like the development decks)."""
    exe = shutil.which("rsvg-convert")
    if exe is None:
        raise ThemeError("rsvg-convert is not installed: `apt-get install librsvg2-bin`")
    with tempfile.TemporaryDirectory() as tmp:
        svg = plain_svg(path, tmp)
        out = os.path.join(tmp, "sheet.png")
        res = subprocess.run([exe, "-w", str(width), svg, "-o", out], capture_output=True, text=True, check=False)
        if res.returncode != 0 or not os.path.isfile(out):
            raise ThemeError(f"rsvg-convert could not render {path}: {res.stderr.strip()[:200]}")
        sheet = cv2.imread(out, cv2.IMREAD_UNCHANGED)
    if sheet is None or sheet.ndim != 3 or sheet.shape[2] != 4:
        raise ThemeError(f"{path}: the rendered sheet is not an RGBA image")
    return sheet


def on_white(bgra: np.ndarray) -> np.ndarray:
    """A BGRA image's transparency laid on white: BGR uint8."""
    f = bgra.astype(np.float32)
    alpha = f[..., 3:4] / 255.0
    return (f[..., :3] * alpha + 255.0 * (1.0 - alpha) + 0.5).astype(np.uint8)


def cut_sheet(sheet: np.ndarray) -> dict[str, np.ndarray]:
    """One BGR image per card code (and ``back``) from a 13 x 5 BGRA sheet, transparency laid on white."""
    h, w = sheet.shape[:2]
    cw, ch = w / 13, h / 5
    names: dict[tuple[int, int], str] = {}
    for r, suit in enumerate(SUIT_ROWS):
        for c, rank in enumerate(RANK_COLUMNS):
            names[(r, c)] = rank + suit
    for c, name in enumerate(LAST_ROW):
        names[(4, c)] = name
    out = {}
    for (r, c), name in names.items():
        out[name] = on_white(sheet[round(r * ch):round((r + 1) * ch), round(c * cw):round((c + 1) * cw)])
    return out


def write_deck(name: str, out_dir: str, directory: str = THEMES_DIR) -> list[str]:
    """Render theme ``name`` into ``out_dir`` (one PNG per card code, plus ``back.png``); the files written."""
    cards = cut_sheet(render_sheet(theme_path(name, directory)))
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for code, img in sorted(cards.items()):
        p = os.path.join(out_dir, f"{code}.png")
        if not cv2.imwrite(p, img):
            raise ThemeError(f"cannot write {p}")
        written.append(p)
    return written
