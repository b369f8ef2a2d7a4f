"""Deck folders from KDE's SVG card decks (Debian's ``kdegames-card-data-kf5``): designs nothing was tuned on.

``tools/aisleriot.py`` gives the thirty aisleriot themes, which tuning, training and the held-out sets have all used
by now. KDE's card decks hold designs none of them has seen (an Egyptian court, penguins, dark cards with white ink,
indices in the top right corner, a spade as large as the card), which is what a fresh measurement of "drawn designs
you have not seen" needs. Each deck is one SVG whose cards are elements named ``1_club`` ... ``10_spade``,
``jack_heart``, ``queen_diamond``, ``king_spade``, ``red_joker``, ``black_joker`` and ``back``; ``rsvg-convert``
(Debian's ``librsvg2-bin``) renders each element alone, cut to its extent, and the card is written as one PNG per
code, 240 px wide, its transparent corners laid on white, as in ``../shared/decks/*/``.

    python -m tools.kde_decks OUT_DIR [NAME ...]    # default: the designs of ``FRESH``

The product never imports it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np

from tools import aisleriot

DECKS_DIR = "/usr/share/carddecks"
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "cardref", "kde")
# the decks of standard suits whose designs are not among aisleriot's themes (KDE's dondorf, gm-paris, nicu-ornamental
# and tigullio-international are: the drawn dondorf, paris, ornamental and tigullio); konqi-modern and xskat-french
# draw their cards from shared parts with no element per card, xskat-german has German suits
FRESH = ("ancient-egyptians", "jolly-royal", "nicu-white", "oxygen", "oxygen-air", "oxygen-white", "penguins",
         "standard")
RANKS = {"1": "A", **{str(i): str(i) for i in range(2, 10)}, "10": "T", "jack": "J", "queen": "Q", "king": "K"}
SUITS = {"club": "C", "diamond": "D", "heart": "H", "spade": "S"}
# (CONVENTIONS: BJ is the red or coloured joker, LJ the black one)
OTHERS = {"red_joker": "BJ", "black_joker": "LJ", "back": "back"}
WIDTH = 240


class DeckError(Exception):
    """A deck that cannot be found or rendered; the message names what is missing and how to get it."""


def decks(directory: str = DECKS_DIR) -> list[str]:
    """The deck names installed (their folders' names without ``svg-``)."""
    if not os.path.isdir(directory):
        return []
    return sorted(d.removeprefix("svg-") for d in os.listdir(directory) if d.startswith("svg-"))


def deck_svg(name: str, directory: str = DECKS_DIR) -> str:
    """The SVG(Z) file of deck ``name``."""
    folder = os.path.join(directory, "svg-" + name)
    files = sorted(f for f in os.listdir(folder) if f.endswith((".svgz", ".svg"))) if os.path.isdir(folder) else []
    if not files:
        have = decks(directory)
        if not have:
            raise DeckError(f"no KDE card decks in {directory}: install them with "
                            "`apt-get install kdegames-card-data-kf5`")
        raise DeckError(f"deck {name!r} not found in {directory}; there are: {', '.join(have)}")
    return os.path.join(folder, files[0])


def _render(exe: str, svg: str, element: str, zoom: float, out: str) -> np.ndarray | None:
    """Element ``element`` of ``svg`` rendered alone at ``zoom`` (BGRA, cut to its drawn pixels), or None if the
    deck has no such element."""
    res = subprocess.run([exe, "-i", element, "-z", f"{zoom:.3f}", svg, "-o", out], capture_output=True, check=False)
    if res.returncode != 0 or not os.path.isfile(out):
        return None
    img = cv2.imread(out, cv2.IMREAD_UNCHANGED)
    os.remove(out)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        return None
    ys, xs = np.nonzero(img[..., 3] > 8)
    if len(xs) == 0:
        return None
    return img[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _on_white(img: np.ndarray) -> np.ndarray:
    """A BGRA card laid on white (``aisleriot.on_white``) and resized to ``WIDTH``."""
    h, w = img.shape[:2]
    return cv2.resize(aisleriot.on_white(img), (WIDTH, round(WIDTH * h / w)), interpolation=cv2.INTER_AREA)


def write_deck(name: str, out_dir: str, directory: str = DECKS_DIR) -> list[str]:
    """Render deck ``name`` into ``out_dir`` (one PNG per card code, the jokers and ``back.png`` where the deck has
    them); the files written. Every one of the 52 cards must be there."""
    exe = shutil.which("rsvg-convert")
    if exe is None:
        raise DeckError("rsvg-convert is not installed: `apt-get install librsvg2-bin`")
    path = deck_svg(name, directory)
    os.makedirs(out_dir, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        svg = aisleriot.plain_svg(path, tmp)
        out = os.path.join(tmp, "card.png")
        # (the zoom that draws a card a quarter wider than WIDTH, from the ace of spades at the SVG's own size)
        first = _render(exe, svg, "1_spade", 1.0, out)
        if first is None:
            raise DeckError(f"{path}: no element '1_spade' (a deck drawn from shared parts?)")
        zoom = 1.25 * WIDTH / first.shape[1]
        elements = {f"{r}_{s}": rank + suit for r, rank in RANKS.items() for s, suit in SUITS.items()}
        todo = {**elements, **OTHERS}
        # (each rsvg-convert draws its element on a canvas as large as the page, ~0.4 s: one per core at a time)
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            images = pool.map(lambda el: _render(exe, svg, el, zoom, os.path.join(tmp, f"{el}.png")), todo)
            for (element, code), img in zip(todo.items(), images, strict=True):
                if img is None:
                    if code in elements.values():
                        raise DeckError(f"{path}: no element {element!r} for the card {code}")
                    continue
                p = os.path.join(out_dir, f"{code}.png")
                if not cv2.imwrite(p, _on_white(img)):
                    raise DeckError(f"cannot write {p}")
                written.append(p)
    return written


def cached_deck(name: str, cache: str = CACHE) -> str:
    """The folder of deck ``name`` rendered once into ``cache`` (rendered now if it is not there)."""
    out = os.path.join(cache, name)
    if not os.path.isfile(os.path.join(out, "KS.png")):
        write_deck(name, out)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", help="folder to write one deck folder per design into")
    p.add_argument("names", nargs="*", help=f"deck names (default: {', '.join(FRESH)})")
    a = p.parse_args(argv)
    try:
        for name in a.names or FRESH:
            n = len(write_deck(name, os.path.join(a.out, name)))
            print(f"{name}: {n} images")
    except DeckError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
