"""Why the whole cards of drawn scenes go unread: each one missed, sorted into not found, outlined loosely, or found
and left unsure, with its scene seed (a development aid; the bench counts, this says where to look).

    python -m tools.drawn_misses ../shared/decks/plastic --mode enrolled --scenes 40 [--sheet /tmp/plastic.png]

The scenes are the bench's own (``synth.random_scene`` from ``vision_bench.FIRST_SEED``, ``SCENE_CARDS`` cards
each), so a seed printed here is the scene the bench scored.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass

import cv2
import numpy as np

from tools import synth
from tools.vision_bench import FIRST_SEED, SCENE_CARDS, whole_face_up
from vision import deck as decklib
from vision import geometry
from vision import recognise as rc


@dataclass
class Miss:
    """A whole face-up card of a scene not read right: why, and the outline that came nearest."""

    seed: int
    code: str
    why: str  # "not found", "loose outline", "unsure", "wrong"
    iou: float
    label: str
    confidence: float
    margin: float
    quad: np.ndarray


def misses_of_scene(scene: synth.Scene, reads: list[rc.Read], seed: int) -> list[Miss]:
    """Each whole face-up card of ``scene`` that ``reads`` did not name right, with the reason."""
    out = []
    for card in scene.cards:
        if not whole_face_up(card):
            continue
        truth_quad = card.quad.astype(np.float32)
        best, best_iou = None, 0.0
        for r in reads:
            iou = geometry.quad_iou(r.quad, truth_quad)
            if iou > best_iou:
                best, best_iou = r, iou
        if best is not None and best_iou > 0.8 and best.code == card.code:
            continue
        if best is None or best_iou < 0.5:
            why = "not found"
        elif best_iou <= 0.8:
            why = "loose outline"
        elif best.code is None:
            why = "unsure"
        else:
            why = "wrong"
        out.append(Miss(seed, card.code, why, round(best_iou, 3), best.label if best else "",
                        round(float(best.confidence), 3) if best else 0.0,
                        round(float(best.margin), 3) if best else 0.0,
                        best.quad if best is not None else truth_quad))
    return out


def _tile(scene: synth.Scene, m: Miss, size: int = 240) -> np.ndarray:
    """The scene round the missed card, its true outline green and the nearest read's red."""
    img = scene.image.copy()
    truth = next(c for c in scene.cards if c.code == m.code).quad.astype(np.int32)
    cv2.polylines(img, [truth], True, (0, 200, 0), 2)
    if m.why != "not found":
        cv2.polylines(img, [m.quad.astype(np.int32)], True, (0, 0, 255), 2)
    x0, y0 = truth.min(axis=0) - 30
    x1, y1 = truth.max(axis=0) + 30
    h, w = img.shape[:2]
    crop = img[max(0, y0):min(h, y1), max(0, x0):min(w, x1)]
    s = size / max(crop.shape[:2])
    crop = cv2.resize(crop, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    tile = np.zeros((size + 18, size, 3), np.uint8)
    tile[:crop.shape[0], :crop.shape[1]] = crop
    cv2.putText(tile, f"{m.seed} {m.code} {m.why[:9]} {m.label}", (2, size + 13), cv2.FONT_HERSHEY_SIMPLEX, 0.38,
                (255, 255, 255), 1)
    return tile


def main(argv: list[str] | None = None) -> int:
    """Print each missed whole card and the count per reason; optionally a contact sheet of them."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("deck", help="a drawn deck's folder (52 card images and jokers)")
    ap.add_argument("--mode", choices=("enrolled", "generic"), default="enrolled")
    ap.add_argument("--scenes", type=int, default=40)
    ap.add_argument("--first-seed", type=int, default=FIRST_SEED)
    ap.add_argument("--sheet", help="write a contact sheet of the misses (PNG) here")
    a = ap.parse_args(argv)
    images = synth.load_deck(a.deck)
    rec = rc.Recogniser(decklib.enroll_dir(a.deck) if a.mode == "enrolled" else None)
    misses: list[Miss] = []
    tiles: list[np.ndarray] = []
    whole = 0
    for seed in range(a.first_seed, a.first_seed + a.scenes):
        scene = synth.random_scene(images, seed, n_cards=SCENE_CARDS)
        whole += sum(1 for c in scene.cards if whole_face_up(c))
        mine = misses_of_scene(scene, rec.identify(scene.image), seed)
        for m in mine:
            print(f"{m.seed} {m.code:3} {m.why:13} iou {m.iou:.2f}  guess {m.label:4} "
                  f"conf {m.confidence:.2f} margin {m.margin:.2f}")
            if a.sheet:
                tiles.append(_tile(scene, m))
        misses += mine
    name = os.path.basename(os.path.normpath(a.deck))
    counts = {w: sum(1 for m in misses if m.why == w) for w in ("not found", "loose outline", "unsure", "wrong")}
    print(f"{name} {a.mode}: {whole} whole cards, {whole - len(misses)} read right; missed {counts}")
    if a.sheet and tiles:
        cols = 6
        rows = [np.hstack(tiles[i:i + cols] + [np.zeros_like(tiles[0])] * (cols - len(tiles[i:i + cols])))
                for i in range(0, len(tiles), cols)]
        cv2.imwrite(a.sheet, np.vstack(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
