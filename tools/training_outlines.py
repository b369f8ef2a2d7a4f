"""The outlines of the cards in the training photographs, found once and kept in ``training_outlines.json``.

Both networks learn from the development photos ``boxes/train`` and ``desk/template`` (``tools/train_index.py``,
``tools/train_finder.py``), cut where the product's finder outlines their cards. The finder keeps changing, and a
retrain that asked it again learned from other cards: in session 35 it found one boxes/train card more than when
the shipped corner network was trained (298 against 297), so ``cardref vision train`` no longer made that network's
data. The outlines are therefore read from this file; ``cardref vision train --refresh-outlines`` finds them again
with today's finder and rewrites it (a new training set, to be measured as one).

The file holds one section per network (``INDEX``, ``FINDER``): the outlines as the tree that trained its checked-in
file found them. In each, per photo of ``boxes/train`` and of ``desk/template``, in the photo's own pixels: the
outlines the finder's hand-drawn views find whole (``whole``, from ``whole_cards``); for a desk photo also the outline
its card is cut along (``card``: four points, ``"file"`` where the card fills the file and is kept as it is, or null
where no card was found). A refresh writes today's outlines to both sections.

- ``index``: as the tree of ``f58fe17``^ found them (session 24).
- ``finder``: as the tree of ``35ca41e`` found them, which trained the finder network. Its hand-drawn views found 40
  boxes/train cards the later tree does not (and missed one it finds) and cut two desk cards (3H, 4H) otherwise.
  Only the outlines that training used are kept: in a boxes/train photo those that match a labelled box, in a desk
  photo the largest.
"""

from __future__ import annotations

import json
import os
from typing import Any

import cv2
import numpy as np

PATH = os.path.join(os.path.dirname(__file__), "training_outlines.json")
INDEX = "index"
FINDER = "finder"
NETWORKS = (INDEX, FINDER)
BOXES = "boxes/train"
DESK = "desk/template"


class OutlinesError(Exception):
    """The outlines file does not hold a training photo: it names the photo and what to do."""


def whole_cards(img: np.ndarray) -> list[np.ndarray]:
    """The quads (in ``img``'s pixels) of the cards the finder's hand-drawn views find whole in a photo, searched at
    the product's working size: training data is found without the finder network, so that it does not learn from
    itself. (Shrunk by area averaging, as when the checked-in networks were trained.)"""
    from vision import finder
    from vision import recognise as rc

    s = min(1.0, rc.FIND_SIDE / max(img.shape[:2]))
    small = img if s == 1.0 else cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    qs = finder.find_cards(small, centre=(small.shape[1] / 2, small.shape[0] / 2), learned=False)
    return [q.pts / s for q in qs if q.whole >= 0.9]


def _points(q: Any) -> list[list[float]]:
    # (each coordinate as the float32 the finder gave, written exactly: the corners cut from them are the same pixels)
    return np.asarray(q, np.float32).astype(np.float64).tolist()


def _quad(v: Any) -> np.ndarray:
    return np.asarray(v, np.float32).reshape(4, 2)


class Outlines:
    """One network's training photo outlines (``load``), looked up by set and file name."""

    def __init__(self, data: dict, where: str = PATH, network: str = INDEX) -> None:
        self.data = data
        self.where = where
        self.network = network

    def _entry(self, part: str, name: str) -> Any:
        try:
            return self.data[part][name]
        except KeyError:
            raise OutlinesError(f"{self.where} holds no {self.network} outlines for {part}/{name}: a photo added "
                                "since it was written; run 'cardref vision train --refresh-outlines' to find them "
                                "all again") from None

    def whole(self, part: str, name: str) -> list[np.ndarray]:
        """The outlines found whole in the photo ``name`` of ``part`` (``BOXES`` or ``DESK``), its own pixels."""
        return [_quad(q) for q in self._entry(part, name)["whole"]]

    def card(self, name: str) -> np.ndarray | str | None:
        """The outline enrollment rectified in the desk template photo ``name``: a quad, "file", or None."""
        v = self._entry(DESK, name)["card"]
        return v if v is None or isinstance(v, str) else _quad(v)


def desk_photos(folder: str) -> list[str]:
    """The names of a desk/template folder's card photos (``suit_N.jpg``; files named for no card are not trained
    on), in order."""
    from vision import deck as decklib

    return [n for n in sorted(os.listdir(folder)) if decklib.canonical_code(os.path.splitext(n)[0]) is not None]


def load(network: str, path: str = PATH) -> Outlines:
    """The outlines ``network`` (``INDEX`` or ``FINDER``) is trained on, from the outlines file."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if network not in data:
        raise OutlinesError(f"{path} holds no outlines for the {network} network; run 'cardref vision train "
                            "--refresh-outlines' to find them all again")
    return Outlines(data[network], path, network)


def find_all(photos_root: str) -> dict:
    """The outlines of every training photo, found by this tree's finder (what ``--refresh-outlines`` writes)."""
    from tools import photo_bench as pb
    from vision import deck as decklib

    out: dict = {BOXES: {}, DESK: {}}
    boxes = os.path.join(photos_root, *BOXES.split("/"))
    if os.path.isdir(boxes):
        for photo in pb.from_voc(boxes, "boxes_train").photos:
            img, scale = pb.load_photo(photo.path, 1920)
            out[BOXES][os.path.basename(photo.path)] = {"whole": [_points(q / scale) for q in whole_cards(img)]}
    tpl = os.path.join(photos_root, *DESK.split("/"))
    if os.path.isdir(tpl):
        for name in desk_photos(tpl):
            photo = cv2.imread(os.path.join(tpl, name), cv2.IMREAD_COLOR)
            if photo is None:
                raise OutlinesError(f"unreadable image: {os.path.join(tpl, name)}")
            img, scale = pb.shrunk(photo, 1920)
            entry: dict = {"whole": [_points(q / scale) for q in whole_cards(img)], "card": None}
            # (the outline ``card_in_photo`` rectifies, in the photo's own pixels; as the training has always called
            # it, with the file's name and no card code, so that it takes the finder's first outline)
            try:
                pts = decklib.card_outline_in_photo(decklib.enrollment_view(photo), name)
                entry["card"] = "file" if pts is None else _points(pts)
            except decklib.EnrollError:
                pass
            out[DESK][name] = entry
    return out


def refresh(photos_root: str, path: str = PATH) -> dict:
    """Find every training photo's outlines again and write them to ``path``, the same for both networks; a
    summary."""
    data = find_all(photos_root)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({n: data for n in NETWORKS}, f, indent=None, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    return {"boxes_photos": len(data[BOXES]), "boxes_outlines": sum(len(e["whole"]) for e in data[BOXES].values()),
            "desk_photos": len(data[DESK]), "desk_cards": sum(e["card"] is not None for e in data[DESK].values())}
