"""The partner test's scores (``vision.partner``) of the enrolled reads of the bench's scenes, with the test off: how
many right reads it would refuse and what it gives the wrong ones. The numbers ``vision.recognise.PARTNER_MIN`` was
chosen by::

    python -m tools.partner_scores --themes fresh --first 503000 --scenes 30      # KDE's designs
    python -m tools.partner_scores DECK_DIR --seeds 503186 503209                 # chosen scenes of one design

Per deck it prints the right reads, those at or below the bar, the lowest scores, and every wrong read's score. A
development aid (the sweep's scenes, ``tools.wrong_sweep``); the product never imports it.
"""

from __future__ import annotations

import argparse
import os
import sys

import cv2
import numpy as np

from tools import synth
from tools.vision_bench import SCENE_CARDS, truth_of
from tools.wrong_sweep import chosen_decks
from vision import deck as decklib
from vision import recognise as rc


def deck_scores(deck_dir: str, seeds: list[int]) -> dict:
    """``{"deck", "right": [score, ...], "wrong": [(seed, truth, named, score), ...]}``: the partner score of each
    enrolled read (the test off) of the scenes ``seeds`` of the design in ``deck_dir`` that names a card with a
    partner, taken on the outline the read is reported with, as the recogniser's last word takes it."""
    cv2.setNumThreads(1)
    images = synth.load_deck(deck_dir)
    rec = rc.Recogniser(decklib.enroll_dir(deck_dir))
    right: list[float] = []
    wrong: list[tuple[int, str, str, float]] = []
    was = rc.PARTNER_CHECK
    rc.PARTNER_CHECK = False
    try:
        for seed in seeds:
            scene = synth.random_scene(images, seed, n_cards=SCENE_CARDS)
            for r in rec.identify(scene.image):
                if r.code is None:
                    continue
                s = rec.partner_score(r.code, rec._cut(scene.image, np.asarray(r.quad, np.float32))[0])
                if s is None:
                    continue
                truth = truth_of(scene, np.asarray(r.quad, np.float32), r.label)[1]
                if truth == r.code:
                    right.append(s)
                elif truth is not None:
                    wrong.append((seed, truth, r.code, s))
    finally:
        rc.PARTNER_CHECK = was
    return {"deck": os.path.basename(os.path.normpath(deck_dir)), "right": right, "wrong": wrong}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("decks", nargs="*", help="deck folders (card images named by code)")
    p.add_argument("--themes", choices=["tune", "held", "fresh"], help="a deck set, as ``tools.wrong_sweep``'s")
    p.add_argument("--first", type=int, default=503000)
    p.add_argument("--scenes", type=int, default=30)
    p.add_argument("--seeds", type=int, nargs="*", help="these scenes instead of --first / --scenes")
    a = p.parse_args(argv)
    decks = chosen_decks(a.decks, a.themes)
    if decks is None:
        return 2
    seeds = a.seeds or list(range(a.first, a.first + a.scenes))
    total, below = 0, 0
    for d in decks:
        res = deck_scores(d, seeds)
        low = sorted(res["right"])[:3]
        n_below = sum(s <= rc.PARTNER_MIN for s in res["right"])
        total, below = total + len(res["right"]), below + n_below
        print(f"{res['deck']:24s} right {len(res['right']):4d}  at or below {rc.PARTNER_MIN}: {n_below}"
              f"  lowest {', '.join(f'{s:.3f}' for s in low)}", flush=True)
        for seed, truth, named, s in res["wrong"]:
            print(f"    scene {seed}: {truth} named {named}, partner score {s:.3f}", flush=True)
    print(f"total: right {total}, at or below the bar {below}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
