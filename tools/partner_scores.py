"""The partner test's scores (``vision.partner``) of the enrolled reads of the bench's scenes, with the test off: how
many right reads it would refuse and what it gives the wrong ones. The numbers ``vision.recognise.PARTNER_MIN`` was
chosen by::

    python -m tools.partner_scores --themes fresh --first 503000 --scenes 30      # KDE's designs
    python -m tools.partner_scores DECK_DIR --seeds 503186 503209                 # chosen scenes of one design

Per deck it prints the right reads, those at or below the bar, the lowest scores, and every wrong read's score.

With ``--rescue`` it measures instead what ``vision.recognise.PARTNER_RESCUE_MIN`` was chosen by: every face-up card
of the scenes, at its own outline and at two outlines moved by about 2 % of its width, whose templates' best match
clears the score bar and the margin against every rival but its partner, and falls short of it against the partner.
It prints the partner scores of those matches that name the card (right) and of those that name another (wrong)::

    python -m tools.partner_scores --rescue --themes tune --first 503000 --scenes 40

With ``--overrules`` it counts the matches past the bar (or rescued), on the same cards and outlines, whose veto by
the network's joint suit gives way to the partner test (``vision.recognise.PARTNER_OVERRULES_SUIT``), right and
wrong.

A development aid (the sweep's scenes, ``tools.wrong_sweep``); the product never imports it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from typing import NamedTuple

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


class _Match(NamedTuple):
    """One card's cut and the templates' match of it (``_matches``)."""

    rec: rc.Recogniser
    seed: int
    truth: str  # the card's code
    cut: np.ndarray
    big: np.ndarray  # the cut the network reads (the cut itself where there is no larger one)
    label: str
    score: float
    margin: float
    by_rival: dict[str, float]  # the match's discriminant against each close rival


def _matches(deck_dir: str, seeds: list[int], moves: int = 2) -> Iterator[_Match]:
    """Every face-up card at least half seen of the scenes ``seeds`` of the design in ``deck_dir``, cut at its outline
    and at ``moves`` outlines moved by about 2 % of its width, with the templates' match of each cut."""
    cv2.setNumThreads(1)
    images = synth.load_deck(deck_dir)
    rec = rc.Recogniser(decklib.enroll_dir(deck_dir))
    rng = np.random.default_rng(seeds[0] if seeds else 0)
    for seed in seeds:
        scene = synth.random_scene(images, seed, n_cards=SCENE_CARDS)
        for c in scene.cards:
            if not c.face_up or c.visible < 0.5:
                continue
            q0 = np.asarray(c.quad, np.float32)
            side = float(np.linalg.norm(q0[1] - q0[0]))
            for j in range(1 + moves):
                q = q0 if j == 0 else q0 + rng.normal(0.0, 0.02 * side, q0.shape).astype(np.float32)
                cut, big = rec._cut(scene.image, q)
                by_rival: dict[str, float] = {}
                label, score, margin = rc.match(rec.templates, cut, rec.use_face, rec.same, by_rival=by_rival)
                if rc._standard_card(label):
                    yield _Match(rec, seed, c.code, cut, cut if big is None else big, label, score, margin, by_rival)


def rescue_candidates(deck_dir: str, seeds: list[int], moves: int = 2) -> list[dict]:
    """The matches ``--rescue`` measures (module docstring) in the scenes ``seeds`` of the design in ``deck_dir``:
    one dict each, with the card's code (``truth``), the match's ``label``, ``score``, its discriminant against the
    partner (``mate_margin``), the partner test's ``partner`` score and whether the network vetoes the match."""
    out: list[dict] = []
    for m in _matches(deck_dir, seeds, moves):
        mate = m.rec.short_against_partner_only(m.label, m.score, m.by_rival)
        if mate is None:
            continue
        s = m.rec.partner_score(m.label, m.cut)
        if s is not None:
            out.append({"seed": m.seed, "truth": m.truth, "label": m.label, "score": round(m.score, 3),
                        "mate_margin": round(m.by_rival[mate], 3), "partner": round(s, 3),
                        "vetoed": m.rec.contradicted(m.label, m.big)})
    return out


def overruled_vetoes(deck_dir: str, seeds: list[int], moves: int = 2) -> list[dict]:
    """``--overrules``: the matches of ``_matches`` past the bar (or rescued) whose veto by the network gives way to
    the partner test (``recognise.PARTNER_OVERRULES_SUIT``): one dict each (``truth``, ``label``, ``partner``)."""
    out: list[dict] = []
    was = rc.PARTNER_OVERRULES_SUIT
    try:
        for m in _matches(deck_dir, seeds, moves):
            rec = m.rec
            if not (rec.threshold.accept(m.score, m.margin)
                    or rec._partner_rescues(m.label, m.score, m.by_rival, m.cut)):
                continue
            rc.PARTNER_OVERRULES_SUIT = False
            before = rec.contradicted(m.label, m.big)
            rc.PARTNER_OVERRULES_SUIT = True
            if before and not rec.contradicted(m.label, m.big):
                out.append({"seed": m.seed, "truth": m.truth, "label": m.label,
                            "partner": round(float(rec._partner_score_once(m.label, m.big) or 0.0), 3)})
    finally:
        rc.PARTNER_OVERRULES_SUIT = was
    return out


def _print_overrules(decks: list[str], seeds: list[int]) -> None:
    """``--overrules``' report: per deck and in all, the vetoes lifted of right and of wrong matches."""
    right = wrong = 0
    for d in decks:
        rows = overruled_vetoes(d, seeds)
        r = sum(x["truth"] == x["label"] for x in rows)
        right, wrong = right + r, wrong + len(rows) - r
        print(f"{os.path.basename(os.path.normpath(d)):24s} vetoes lifted: of right matches {r}, of wrong "
              f"{len(rows) - r}", flush=True)
        for x in rows:
            print(f"    scene {x['seed']}: {x['truth']} matched as {x['label']}, partner score {x['partner']:.3f}",
                  flush=True)
    print(f"total: vetoes lifted of right matches {right}, of wrong matches {wrong}")


def _print_rescue(decks: list[str], seeds: list[int]) -> None:
    """``--rescue``'s report: per deck and in all, the right and wrong candidates and their partner scores."""
    right: list[float] = []
    wrong: list[dict] = []
    for d in decks:
        rows = rescue_candidates(d, seeds)
        r = [x["partner"] for x in rows if x["truth"] == x["label"]]
        w = [x for x in rows if x["truth"] != x["label"]]
        right += r
        wrong += w
        print(f"{os.path.basename(os.path.normpath(d)):24s} right {len(r):4d} (at or above "
              f"{rc.PARTNER_RESCUE_MIN}: {sum(x >= rc.PARTNER_RESCUE_MIN for x in r)})  wrong {len(w)}", flush=True)
        for x in w:
            print(f"    scene {x['seed']}: {x['truth']} matched as {x['label']} ({x['score']:.3f}, against the partner "
                  f"{x['mate_margin']:.3f}), partner score {x['partner']:.3f}, vetoed {x['vetoed']}", flush=True)
    top = max((x["partner"] for x in wrong), default=None)
    print(f"total: right {len(right)}, at or above the bar {sum(x >= rc.PARTNER_RESCUE_MIN for x in right)}; "
          f"wrong {len(wrong)}, highest partner score {top}, at or above the bar "
          f"{sum(x['partner'] >= rc.PARTNER_RESCUE_MIN for x in wrong)}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("decks", nargs="*", help="deck folders (card images named by code)")
    p.add_argument("--themes", choices=["tune", "held", "fresh"], help="a deck set, as ``tools.wrong_sweep``'s")
    p.add_argument("--first", type=int, default=503000)
    p.add_argument("--scenes", type=int, default=30)
    p.add_argument("--seeds", type=int, nargs="*", help="these scenes instead of --first / --scenes")
    p.add_argument("--rescue", action="store_true", help="the matches the partner rescue would name (see above)")
    p.add_argument("--overrules", action="store_true", help="the vetoes the partner test lifts (see above)")
    a = p.parse_args(argv)
    decks = chosen_decks(a.decks, a.themes)
    if decks is None:
        return 2
    seeds = a.seeds or list(range(a.first, a.first + a.scenes))
    if a.rescue:
        _print_rescue(decks, seeds)
        return 0
    if a.overrules:
        _print_overrules(decks, seeds)
        return 0
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
