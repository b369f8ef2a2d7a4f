"""A wide look for wrong reads: every accepted read of many drawn scenes checked against the card under it.

The accuracy bench scores about 40 scenes per design; a wrong read one scene in a hundred slips past it. This sweep
reads ``--scenes`` of the bench's own scenes (``synth.random_scene`` from ``vision_bench.FIRST_SEED``) of each deck
folder, in one mode, on every core, and lists each accepted read that names another card than the one under it
(whole, partly covered, or a part of it outlined alone) or a card where none lies, with its scene seed, so that
``tools.drawn_misses`` or a debugger can look at it.

    python -m tools.wrong_sweep ~/.cache/cardref/aisleriot/anglo ../shared/decks/plastic --scenes 150 --mode generic
    python -m tools.wrong_sweep --themes tune --scenes 150 --mode enrolled     # the themes and decks the networks
    python -m tools.wrong_sweep --themes held --scenes 150 --mode enrolled     # were tuned / trained on, or held out
    python -m tools.wrong_sweep --themes fresh --scenes 40 --mode enrolled     # KDE's designs (tools/kde_decks.py)
    python -m tools.wrong_sweep --themes fresh --first 500150 --scenes 150     # scenes past the first 150
    python -m tools.wrong_sweep --themes fresh --tilt 20                       # the camera 20 degrees off vertical

Per deck it prints the accepted reads that were right and each wrong one; ``--json`` writes them all. A development
aid (a few minutes per deck and mode at 150 scenes on one core); the product never imports it.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor

import cv2
import numpy as np

from tools import kde_decks, synth
from tools.train_index import HELD_OUT_DRAWN, HELD_OUT_THEMES, THEME_CACHE, TRAIN_DRAWN, theme_deck
from tools.vision_bench import FIRST_SEED, SCENE_CARDS, lies_on, truth_of
from tools.vision_commands import DEFAULT_DECKS
from vision import deck as decklib
from vision import recognise as rc

# held out from everything but measuring: the networks' held-out themes and two more foreign-pattern checks (the
# aisleriot themes the held sweep reads), and the held-out drawn designs (read from their own folders; their
# aisleriot renderings are kept out of the tuning set too)
HELD_AISLERIOT = [*HELD_OUT_THEMES, "tango_nuevo", "swiss-xvii"]
HELD_THEMES = [*HELD_AISLERIOT, *HELD_OUT_DRAWN]


def deck_set(which: str, themes_root: str = THEME_CACHE, decks_root: str = DEFAULT_DECKS) -> list[str]:
    """The deck folders of ``tune`` (every theme and drawn deck not held out), ``held``, or ``fresh`` (KDE's decks
    of designs nothing was tuned on, ``tools.kde_decks.FRESH``, rendered once into its cache)."""
    if which == "fresh":
        return [kde_decks.cached_deck(name) for name in kde_decks.FRESH]
    if which == "held":
        # (named, not listed from the cache: the tuning themes are in it once the network is trained, the held-out
        # ones only once something renders them - listing it had left them out of the held sweeps unsaid; ``main``
        # renders the missing ones)
        return ([os.path.join(themes_root, t) for t in HELD_AISLERIOT]
                + [os.path.join(decks_root, d) for d in HELD_OUT_DRAWN])
    themes = sorted(os.listdir(themes_root)) if os.path.isdir(themes_root) else []
    return ([os.path.join(themes_root, t) for t in themes if t not in HELD_THEMES]
            + [os.path.join(decks_root, d) for d in TRAIN_DRAWN])


# an outline that matches no card (``vision_bench.truth_of``: junk) with at least this share of it on one card's
# visible face is part of that card (``vision_bench.lies_on``)
PART_SHARE = 0.7


def judge(scene: synth.Scene, reads: list[rc.Read], seed: int) -> tuple[int, int, list[dict]]:
    """(right, junk, wrong) of one scene's accepted reads: a read is right when it names the card under it (a whole
    or partly covered one, ``vision_bench.truth_of``), or the card its outline lies on (``PART_SHARE`` of it) where
    its outline matches none (part of a card, kind ``part``); wrong otherwise. Junk (an outline that matches no card
    and lies on none) counts among the wrong too, its truth ``none``: an accepted read there names a card that is
    not on the table. (Session 49's sweeps counted a read of half a card as junk, apart: dondorf's half ten of
    hearts named the 5H at 0.983 was not among their wrong reads.)"""
    right, junk, wrong = 0, 0, []
    for r in reads:
        if r.code is None:
            continue
        quad = np.asarray(r.quad, np.float32)
        kind, truth = truth_of(scene, quad, r.code)
        if truth is None:
            code, share = lies_on(scene, quad)
            if code is not None and share >= PART_SHARE:
                kind, truth = "part", code
            else:
                junk += 1
                truth = "none"
        if truth == r.code:
            right += 1
        else:
            wrong.append({"seed": seed, "truth": truth, "label": r.code, "kind": kind,
                          "confidence": round(float(r.confidence), 3)})
    return right, junk, wrong


def chosen_decks(folders: list[str], themes: str | None) -> list[str] | None:
    """The deck folders named and those of the set ``themes`` (``deck_set``; the held-out aisleriot themes rendered
    once into the cache, where missing), or None, said on stderr, where none is named or a folder is missing."""
    decks = list(folders) + (deck_set(themes) if themes else [])
    if themes == "held":
        for t in HELD_AISLERIOT:
            theme_deck(t)
    missing = [d for d in decks if not os.path.isdir(d)]
    if not decks or missing:
        print(f"no such deck folder: {', '.join(missing)}" if missing else "name deck folders or --themes",
              file=sys.stderr)
        return None
    return decks


def sweep_deck(deck_dir: str, scenes: int, mode: str, first: int = FIRST_SEED, tilt: float = 0.0) -> dict:
    """``{"deck", "first", "right", "wrong": [{seed, truth, label, confidence, kind}], "junk"}`` for one deck and mode,
    over ``scenes`` scenes from the seed ``first``; ``tilt``: the camera turned that many degrees off the vertical
    (``synth.Nuisance.tilt``; the scenes are otherwise the untilted ones)."""
    cv2.setNumThreads(1)
    images = synth.load_deck(deck_dir)
    rec = rc.Recogniser(decklib.enroll_dir(deck_dir) if mode == "enrolled" else None)
    right, junk, wrong = 0, 0, []
    nuisance = synth.Nuisance(tilt=tilt) if tilt else None
    for seed in range(first, first + scenes):
        scene = synth.random_scene(images, seed, n_cards=SCENE_CARDS, nuisance=nuisance)
        r, j, w = judge(scene, rec.identify(scene.image), seed)
        right, junk, wrong = right + r, junk + j, wrong + w
    return {"deck": os.path.basename(os.path.normpath(deck_dir)), "dir": deck_dir, "mode": mode, "scenes": scenes,
            "first": first, "tilt": tilt, "right": right, "wrong": wrong, "junk": junk}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("decks", nargs="*", help="deck folders (card images named by code)")
    p.add_argument("--themes", choices=["tune", "held", "fresh"],
                   help="the tuning/training or held-out deck set, or KDE's designs nothing was tuned on")
    p.add_argument("--scenes", type=int, default=150)
    p.add_argument("--first", type=int, default=FIRST_SEED,
                   help=f"the first scene's seed (default {FIRST_SEED}: the bench's; later ones look further)")
    p.add_argument("--mode", choices=["generic", "enrolled"], default="generic")
    p.add_argument("--tilt", type=float, default=0.0,
                   help="the camera turned this many degrees off the vertical (default 0: the bench's scenes)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--json", help="write every deck's result here")
    a = p.parse_args(argv)
    decks = chosen_decks(a.decks, a.themes)
    if decks is None:
        return 2
    results = []
    # (workers started afresh, not forked: a fork of this process, whose OpenCV thread pool may hold its lock at
    # that moment, hung in ``cv2.setNumThreads`` under pytest's worker - seen once in a CI run, 15 minutes still)
    with ProcessPoolExecutor(max_workers=a.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        for res in pool.map(sweep_deck, decks, [a.scenes] * len(decks), [a.mode] * len(decks),
                            [a.first] * len(decks), [a.tilt] * len(decks)):
            results.append(res)
            print(f"{res['deck']:24s} {a.mode:8s} right {res['right']:4d}  wrong {len(res['wrong'])}"
                  f"  junk {res['junk']}", flush=True)
            for w in res["wrong"]:
                print(f"    scene {w['seed']}: {w['truth']} named {w['label']} ({w['kind']}, {w['confidence']})",
                      flush=True)
    print(f"total: right {sum(r['right'] for r in results)}, wrong {sum(len(r['wrong']) for r in results)}, "
          f"junk {sum(r['junk'] for r in results)}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
