"""A deck folder of photographed card faces: the desk deck's phone photos of one card each (``desk/template`` of the
development photos), each card found and cut along its outline as enrollment cuts it, rectified at twice the
canonical size. Drawn scenes and play videos made of it carry a real deck's print, light and phone blur, so the
play detector, measured otherwise on drawn designs only, can be measured on photographed faces:

    python -m tools.photo_deck DECKS/desk_photo [--photos ../shared/photos]
    cardref vision bench --decks DECKS --only desk_photo --skip-accuracy --latency-tricks 3

(The desk deck's photos are training data of the corner network: its reads are not a measure of unseen designs;
the play detector's events on them are what this is for.)
"""

from __future__ import annotations

import argparse
import os
import sys

import cv2

from tools import training_outlines as to
from vision import deck as decklib
from vision import geometry

SIZE = (2 * geometry.CW, 2 * geometry.CH)


class PhotoDeckError(Exception):
    """The development photos are not where they were looked for."""


def build(photos_root: str, out: str, limit: int | None = None) -> list[str]:
    """Write ``CODE.png`` into ``out`` for each desk photo (at most ``limit``) whose one card is found; the codes
    written. A photo whose card is not found is an ``EnrollError`` naming it, as enrollment would say."""
    folder = os.path.join(photos_root, "desk", "template")
    if not os.path.isdir(folder):
        raise PhotoDeckError(f"the desk deck's photos are not in {folder}")
    os.makedirs(out, exist_ok=True)
    written = []
    for name in to.desk_photos(folder)[:limit]:
        path = os.path.join(folder, name)
        code = decklib.canonical_code(os.path.splitext(name)[0])
        img = decklib.cv_imread(path)
        if img is None:
            raise decklib.EnrollError(f"{path}: not an image OpenCV can read")
        cv2.imwrite(os.path.join(out, code + ".png"), decklib.card_in_photo(img, path, code, SIZE))
        written.append(code)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.photo_deck", description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="the deck folder to write (one CODE.png per card)")
    ap.add_argument("--photos", default="../shared/photos", help="the development photos (default ../shared/photos)")
    args = ap.parse_args(argv)
    try:
        codes = build(args.photos, args.out)
    except (PhotoDeckError, decklib.EnrollError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{len(codes)} cards in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
