"""Measurements: thresholds from a risk-coverage curve on the tuning decks, accuracy on held-out decks, speed.

``tune`` renders scenes of the tuning decks, reads them (enrolled mode with each deck's own enrollment; generic mode
with glyph templates of the *other* tuning decks, so that every generic read is of an unseen design) and picks
the lowest thresholds with no wrong read, plus a safety gap; it writes ``vision/thresholds.json`` and the generic
glyph templates (``vision/generic_glyphs.npz``). ``bench`` then reads scenes of the held-out decks with those
thresholds and reports, per deck and mode, the share of whole cards accepted and the
wrong reads among the accepted ones.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from tools import synth
from vision import deck as decklib
from vision import features, finder, geometry
from vision import glyphs as glyphlib
from vision import recognise as rc

TUNE_DECKS = ["anglo_modern", "bellot", "neoclassical", "plastic", "simplistic"]
HELD_OUT = ["ornamental", "paris", "tango"]
SAFETY_GAP = 0.1
FIRST_SEED = 500_000  # the accuracy bench's first scene; ``SCENE_CARDS`` cards a scene
SCENE_CARDS = 7


def whole_face_up(card: synth.PlacedCard) -> bool:
    """Whether a scene's card counts among the whole face-up cards the accuracy bench scores against."""
    return card.face_up and card.visible >= 0.97


@dataclass
class Outcome:
    """One read compared with the truth. ``kind``: whole (the card fully visible), partial (covered), junk."""

    deck: str
    mode: str
    kind: str
    truth: str | None
    label: str
    score: float
    margin: float
    accepted: bool
    path: str = ""


# an outline that fits two cards within this much overlap (intersection over union) lies over a pile of both: what
# its face shows is the more visible one's (``truth_of``)
PILE_IOU_TIE = 0.05


def truth_of(scene: synth.Scene, quad: np.ndarray, label: str | None = None) -> tuple[str, str | None]:
    """What a found outline is in the scene's truth: (kind, code) - ``junk`` (no card under it, code None),
    ``whole`` or ``partial`` (by visibility and overlap), the code being ``back`` for a face-down card.

    The card the outline overlaps most, except where it overlaps another within ``PILE_IOU_TIE`` (an outline halfway
    between a card and one lying askew on it): then the more visible of them, whose face is what lies in the outline.
    Scene 500281 of the simplistic deck has an outline over its 8D (whole) and the 2S under it (22 % visible), 0.766
    and 0.771: its read as the 8D had been counted as the 2S named wrongly, and a read naming the 2S there - a card
    hardly in view - would have been counted right.

    ``label``: the read's name for the card. Where it names the card whose face covers the most of the outline
    (``shown_in``), that card is the truth: an outline drawn around two cards lying almost one on the other, the
    lower one showing a strip, fits the lower one best (scene 500439: a QD 21 % visible under a 3H, IoU 0.88 and
    0.79), and the face read inside it is the upper card's - in the enrolled sweeps of 9 of the 21 tuning designs
    and one of KDE's that read had been counted as the QD named the 3H. (The kind, whole or partial, is then that
    card's.)"""
    fits = [(geometry.quad_iou(quad, c.quad.astype(np.float32)), c) for c in scene.cards]
    best_iou = max((iou for iou, _ in fits), default=0.0)
    if best_iou < 0.5:
        return "junk", None
    best_iou, best = max(((iou, c) for iou, c in fits if iou >= best_iou - PILE_IOU_TIE),
                         key=lambda f: (f[1].visible, f[0]))
    if label is not None and _seen_as(best) != label:
        shown = shown_in(scene, quad, [c for iou, c in fits if iou >= 0.5])
        if shown is not None and _seen_as(shown) == label:
            best_iou, best = geometry.quad_iou(quad, shown.quad.astype(np.float32)), shown
    kind = "whole" if best.visible >= 0.97 and best_iou > 0.8 else "partial"
    return kind, _seen_as(best)


def _seen_as(card: synth.PlacedCard) -> str:
    """A placed card's code as a read names it: ``back`` for a face-down card."""
    return card.code if card.face_up else "back"


def shown_in(scene: synth.Scene, quad: np.ndarray, among: list[synth.PlacedCard]) -> synth.PlacedCard | None:
    """Of the cards ``among``, the one whose visible face covers the most of the outline ``quad`` (the cards drawn
    in the scene's order, later on top, as ``synth.render_table`` draws them; the hand over them), or None."""
    counts = _face_counts(scene, quad)
    label_of = {id(c): k + 1 for k, c in enumerate(scene.cards)}
    most = max(among, key=lambda c: counts[label_of[id(c)]], default=None)
    return most if most is not None and counts[label_of[id(most)]] > 0 else None


def lies_on(scene: synth.Scene, quad: np.ndarray) -> tuple[str | None, float]:
    """The card whose visible face covers the most of the outline ``quad`` (its code as a read names it: ``back``
    face down), and the share of the outline it covers (None, 0.0: no card's face under it): an outline of part of a
    card - half of it, split from it as if it were a pair - matches no card's outline, yet what lies in it is that
    card's face."""
    counts = _face_counts(scene, quad)
    k = int(counts[1:].argmax()) if len(counts) > 1 else -1
    if k < 0 or counts[k + 1] == 0:
        return None, 0.0
    return _seen_as(scene.cards[k]), float(counts[k + 1]) / max(int(counts.sum()), 1)


def _face_counts(scene: synth.Scene, quad: np.ndarray) -> np.ndarray:
    """Pixels of the outline ``quad``: [0] on no card's visible face (the table, the hand), [k + 1] on card k's."""
    h, w = scene.image.shape[:2]
    cards = np.zeros((h, w), np.uint8)
    for k, c in enumerate(scene.cards):
        cv2.fillConvexPoly(cards, np.round(c.quad).astype(np.int32), k + 1)
    if scene.hand_mask is not None and scene.hand_mask.shape == cards.shape:
        cards[scene.hand_mask > 0] = 0
    inside = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(inside, np.round(quad).astype(np.int32), 1)
    return np.bincount(cards[inside > 0], minlength=len(scene.cards) + 1)


def score_scene(scene: synth.Scene, reads: list[rc.Read], deck: str, mode: str) -> tuple[list[Outcome], int]:
    """Outcomes of the reads of one scene, and how many whole face-up cards it had."""
    out = []
    whole = sum(1 for c in scene.cards if whole_face_up(c))
    for r in reads:
        kind, truth = truth_of(scene, r.quad, r.label)
        out.append(Outcome(deck, mode, kind, truth, r.label, r.confidence, r.margin, r.code is not None))
    return out, whole


def run_scenes(deck_dir: str, seeds: range, recognisers: dict[str, rc.Recogniser],
               progress: Callable[[str], None] | None = None,
               ms: dict[str, list[float]] | None = None,
               whole_codes: list[str] | None = None) -> tuple[list[Outcome], int]:
    """Outcomes of every read of the scenes of ``seeds``, per recogniser, and the number of whole face-up cards;
    ``ms`` collects each mode's milliseconds per ``identify`` of a frame, ``whole_codes`` the whole cards' codes."""
    images = synth.load_deck(deck_dir)
    name = os.path.basename(os.path.normpath(deck_dir))
    outcomes: list[Outcome] = []
    whole = 0
    for k, seed in enumerate(seeds):
        scene = synth.random_scene(images, seed, n_cards=SCENE_CARDS)
        for mode, rec in recognisers.items():
            t = time.perf_counter()
            reads = rec.identify(scene.image)
            if ms is not None:
                ms.setdefault(mode, []).append((time.perf_counter() - t) * 1000)
            o, w = score_scene(scene, reads, name, mode)
            outcomes += o
        if whole_codes is not None:
            whole_codes += [c.code for c in scene.cards if whole_face_up(c)]
        whole += w
        if progress and k % 20 == 19:
            progress(f"{name}: {k + 1}/{len(seeds)} scenes")
    return outcomes, whole


def choose_thresholds(outcomes: list[Outcome], whole: int) -> tuple[features.Thresholds, list[dict]]:
    """The lowest (score, margin) with no wrong read on the tuning reads, then the margin raised by a safety gap."""
    reads = [o for o in outcomes if o.label not in ("back",)]
    score = np.array([o.score for o in reads])
    margin = np.array([o.margin for o in reads])
    right = np.array([o.truth == o.label for o in reads])
    best: tuple[float, float, float] | None = None
    for ts in [round(0.5 + 0.05 * i, 2) for i in range(10)]:
        for tm in [round(0.01 * i, 2) for i in range(100)]:
            acc = (score >= ts) & (margin >= tm)
            if (acc & ~right).any():
                continue
            cov = float((acc & right).sum()) / max(whole, 1)
            if best is None or cov > best[0] + 1e-9:
                best = (cov, float(ts), float(tm))
            break  # a higher margin only lowers the coverage at this score threshold
    assert best is not None
    ts, tm = best[1], min(best[2] + SAFETY_GAP, 0.95)
    curve = []
    for t in np.arange(0.0, 1.0, 0.05):
        acc = (score >= ts) & (margin >= t)
        n = int(acc.sum())
        curve.append({"margin": round(float(t), 2), "coverage": round(float((acc & right).sum()) / max(whole, 1), 4),
                      "risk": round(float((acc & ~right).sum()) / max(n, 1), 5), "accepted": n})
    return features.Thresholds(round(ts, 3), round(tm, 3)), curve


def tune(decks_root: str, scenes: int, progress: Callable[[str], None] = print, generic_scenes: int = 150) -> dict:
    """Measure the risk-coverage curves on the tuning decks and write the thresholds and generic templates
    (``scenes`` per deck for the enrolled mode, ``generic_scenes`` for the generic reader)."""
    dirs = {d: os.path.join(decks_root, d) for d in TUNE_DECKS}
    for d in dirs.values():
        if not os.path.isdir(d):
            raise decklib.EnrollError(f"tuning deck not found: {d}")
    enrolled_out: list[Outcome] = []
    whole_total = 0
    loose = {"enrolled": features.Thresholds(2.0, 2.0), "generic": features.Thresholds(2.0, 2.0)}
    for i, (name, d) in enumerate(dirs.items()):
        progress(f"tuning on {name}")
        deck = decklib.enroll_dir(d)
        en_rec = rc.Recogniser(deck, loose)
        outs, whole = run_scenes(d, range(100_000 + i * 10_000, 100_000 + i * 10_000 + scenes),
                                 {"enrolled": en_rec}, progress)
        enrolled_out += outs
        whole_total += whole
    th_e, curve_e = choose_thresholds(enrolled_out, whole_total)
    result = {
        "tuned_on": TUNE_DECKS, "scenes_per_deck": scenes, "whole_cards": whole_total,
        "safety_gap": SAFETY_GAP,
        "enrolled": {"score": th_e.score, "margin": th_e.margin, "curve": curve_e},
    }
    with open(features.THRESHOLDS_PATH, "w") as f:
        json.dump(result, f, indent=1)
    result["generic"] = tune_generic(decks_root, generic_scenes, progress)
    return result


def glyph_samples(deck_dir: str, seeds: range) -> list[tuple[str, str, np.ndarray]]:
    """(truth, kind, rectified card) of every card found in scenes of a deck, as ``score_scene`` labels them."""
    images = synth.load_deck(deck_dir)
    out = []
    for seed in seeds:
        scene = synth.random_scene(images, seed, n_cards=7)
        for q in finder.find_cards(scene.image):
            kind, truth = truth_of(scene, q.pts)
            out.append((truth or "junk", kind, geometry.rectify_for_reading(scene.image, q.pts)))
    return out


def _glyph_sources(deck_dir: str, samples: list[tuple[str, str, np.ndarray]]) -> list[tuple[str, np.ndarray]]:
    """A deck's glyph template sources: its card images, and the whole face-up cards read in its scenes."""
    images = synth.load_deck(deck_dir)
    clean = [(c, features.canonical_card(img)) for c, img in images.items() if c in decklib.FULL]
    return clean + [(t, card) for t, k, card in samples if k == "whole" and len(t) == 2 and t not in ("BJ", "LJ")]


def tune_generic(decks_root: str, scenes: int, progress: Callable[[str], None] = print) -> dict:
    """Generic mode: glyph templates and thresholds. Every tuning read uses templates of the *other* four tuning
    decks only (leave one design out), so the thresholds are measured on designs the reader has not seen; the
    shipped templates (``vision/generic_glyphs.npz``) are then built from all five. Updates ``thresholds.json``."""
    dirs = {d: os.path.join(decks_root, d) for d in TUNE_DECKS}
    for d in dirs.values():
        if not os.path.isdir(d):
            raise decklib.EnrollError(f"tuning deck not found: {d}")
    samples = {}
    for name, d in dirs.items():
        progress(f"generic: rendering {name}")
        samples[name] = glyph_samples(d, range(100_000, 100_000 + scenes))
    sources = {name: _glyph_sources(dirs[name], samples[name]) for name in dirs}
    outs: list[Outcome] = []
    whole = 0
    for name in dirs:
        tpl = glyphlib.build_templates({o: sources[o] for o in dirs if o != name})
        for truth, kind, card in samples[name]:
            g = glyphlib.read_generic(card, tpl)
            outs.append(Outcome(name, "generic", kind, truth, g.label, g.score, g.margin, False, g.path))
        whole += sum(1 for _, k, _ in samples[name] if k == "whole")
    # the corner-index reader, and the pip reader per suit it names: a blurred club's pips look like a spade's,
    # never the other way round, so each named suit gets the margin its own wrong reads call for
    th, curve = choose_thresholds([o for o in outs if o.path != "pips"], whole)
    pips: dict = {}
    for s in "SHDC":
        mine = [o for o in outs if o.path == "pips" and o.label.endswith(s) and o.score > 0]
        th_s, curve_s = choose_thresholds(mine, whole)
        pips[s] = {"score": th_s.score, "margin": th_s.margin, "reads": len(mine), "curve": curve_s}
    glyphlib.build_templates(sources).save(glyphlib.GLYPHS_PATH)
    data: dict = {}
    if os.path.exists(features.THRESHOLDS_PATH):
        with open(features.THRESHOLDS_PATH) as f:
            data = json.load(f)
    data["generic"] = {"score": th.score, "margin": th.margin, "reader": "glyphs+pips", "scenes_per_deck": scenes,
                       "whole_cards": whole, "curve": curve, "pips": pips}
    with open(features.THRESHOLDS_PATH, "w") as f:
        json.dump(data, f, indent=1)
    return data["generic"]


def _group(code: str | None) -> str:
    if code and len(code) == 2 and code[0] in "A23456789T":
        return "numbers"
    if code and len(code) == 2 and code[0] in "JQK":
        return "courts"
    return "other"


def summarise(outcomes: list[Outcome], whole: int, whole_codes: list[str] | None = None) -> dict:
    """Reads, accepted, wrong among accepted, share of the whole cards accepted (and right); with the codes of the
    whole cards, the same split into number cards (A-10) and courts (J, Q, K)."""
    acc = [o for o in outcomes if o.accepted]
    wrong = [o for o in acc if o.truth != o.label]
    whole_right = sum(1 for o in acc if o.kind == "whole" and o.truth == o.label)
    out: dict = {"whole_cards": whole, "reads": len(outcomes), "accepted": len(acc),
                 "accepted_share_of_whole": round(whole_right / max(whole, 1), 4), "wrong_accepted": len(wrong),
                 "wrong_examples": [f"{o.truth}->{o.label} ({o.kind})" for o in wrong[:5]]}
    if whole_codes is not None:
        for g in ("numbers", "courts"):
            n = sum(1 for c in whole_codes if _group(c) == g)
            mine = [o for o in acc if _group(o.truth) == g]
            right = sum(1 for o in mine if o.kind == "whole" and o.truth == o.label)
            out[g] = {"whole_cards": n, "accepted": len(mine), "accepted_share_of_whole": round(right / max(n, 1), 4),
                      "wrong_accepted": sum(1 for o in mine if o.truth != o.label)}
    return out


def accuracy(decks_root: str, reads: int, decks: list[str] | None = None,
             progress: Callable[[str], None] = print, modes: tuple[str, ...] = ("enrolled", "generic")) -> dict:
    """Held-out accuracy per deck and mode; renders scenes until about ``reads`` reads per deck of the first
    mode. Each mode also reports its milliseconds per full-frame ``identify`` (median, on this machine)."""
    report = {}
    for name in decks or HELD_OUT:
        d = os.path.join(decks_root, name)
        if not os.path.isdir(d):
            raise decklib.EnrollError(f"deck not found: {d}")
        deck = decklib.enroll_dir(d) if "enrolled" in modes else None
        recs = {m: rc.Recogniser(deck if m == "enrolled" else None) for m in modes}
        outs: list[Outcome] = []
        whole = 0
        whole_codes: list[str] = []
        ms: dict[str, list[float]] = {}
        seed = FIRST_SEED
        while sum(1 for o in outs if o.mode == modes[0]) < reads:
            o, w = run_scenes(d, range(seed, seed + 20), recs, ms=ms, whole_codes=whole_codes)
            outs += o
            whole += w
            seed += 20
            progress(f"{name}: {sum(1 for x in outs if x.mode == modes[0])} reads")
        report[name] = {"jokers_distinct": deck.report.get("jokers_distinct") if deck else None}
        for mode in recs:
            report[name][mode] = summarise([o for o in outs if o.mode == mode], whole, whole_codes)
            report[name][mode]["identify_ms_median"] = round(float(np.median(ms[mode])), 1)
    return report


def timing(decks_root: str, frames: int = 60, design: str | None = None) -> dict:
    """Milliseconds per 1280x720 frame on one core: the per-frame play detector, and a full identify, with the deck
    folder ``design`` (default: the last held-out one)."""
    from vision import play

    cv2.setNumThreads(1)
    d = os.path.join(decks_root, design or HELD_OUT[-1])
    images = synth.load_deck(d)
    deck = decklib.enroll_dir(d)
    rec = rc.Recogniser(deck)
    scenes = [synth.random_scene(images, 900 + i, n_cards=7).image for i in range(10)]
    ident = []
    for img in scenes:
        t = time.perf_counter()
        rec.identify(img)
        ident.append((time.perf_counter() - t) * 1000)
    # reading one found card (rectify + read + accept), per mode: what the play detector pays per card
    generic = rc.Recogniser(None)
    per_read: dict[str, list[float]] = {"enrolled": [], "generic": []}
    ident_generic = []
    for img in scenes:
        t = time.perf_counter()
        generic.identify(img)
        ident_generic.append((time.perf_counter() - t) * 1000)
        for q in finder.find_cards(img):
            for mode, r in (("enrolled", rec), ("generic", generic)):
                t = time.perf_counter()
                r.read_and_accept(geometry.rectify_for_reading(img, q.pts))
                per_read[mode].append((time.perf_counter() - t) * 1000)
    tricks = [[(s, c) for s, c in zip(range(4), ["AS", "KH", "7D", "TC"], strict=True)]]
    video = [f for f, _ in synth.play_video(images, tricks, seed=3)][:frames]
    det = play.PlayDetector(rec, analyse=False)
    per_frame = []
    for f in video:
        t = time.perf_counter()
        det.feed(f)
        per_frame.append((time.perf_counter() - t) * 1000)
    return {"per_frame_ms_median": round(float(np.median(per_frame)), 2),
            "per_frame_ms_p95": round(float(np.percentile(per_frame, 95)), 2),
            "identify_ms_median": round(float(np.median(ident)), 1),
            "identify_ms_max": round(float(np.max(ident)), 1),
            "identify_generic_ms_median": round(float(np.median(ident_generic)), 1),
            "read_ms_median": {m: round(float(np.median(v)), 2) for m, v in per_read.items()},
            "read_ms_p95": {m: round(float(np.percentile(v, 95)), 2) for m, v in per_read.items()}}


def latency(decks_root: str, tricks_per_video: int = 2, decks: list[str] | None = None, seats: int = 4,
            progress: Callable[[str], None] | None = None, light: float = 1.0, scale: float = 1.0,
            tilt: float = 0.0) -> dict:
    """Play detection on synthetic videos of the held-out decks: events found, wrong, and the delay from the frame
    where the card lies still (the hand gone) to the frame of the decision, at 30 frames/s.

    Per deck two videos of ``tricks_per_video`` tricks of ``seats`` cards (on that mat): one played to the centre
    (the seat from the turn), one to the seat zones. ``not_read`` lists every card not read right (unsure, missed,
    wrong) with the frames, to look at with ``synth.play_video`` and the same seed. ``light`` below 1: every frame's
    levels multiplied by it, with sensor noise (a dim room), before the detector gets it (and its clock starts).
    ``scale``: every 1280 x 720 frame resized by it first (1.5: a 1080p camera; 0.8: 1024 x 576), also before the
    clock starts. ``tilt``: the camera turned that many degrees off the vertical (``synth.Nuisance.tilt``)."""
    from vision import play

    cv2.setNumThreads(1)
    result: dict = {}
    delays: list[float] = []
    real: list[float] = []
    compute: list[float] = []
    all_frames: list[float] = []
    not_read: list[dict] = []
    totals = {"plays": 0, "read": 0, "unsure": 0, "missed": 0, "wrong": 0, "gathers": 0, "gathers_seen": 0,
              "false_events": 0}
    for k, name in enumerate(decks or HELD_OUT):
        d = os.path.join(decks_root, name)
        images = synth.load_deck(d)
        rec = rc.Recogniser(decklib.enroll_dir(d))
        rng = np.random.default_rng(k)
        noise = np.random.default_rng(1000 + k)
        stats = dict.fromkeys(totals, 0)
        for to_centre in (True, False):
            codes = list(rng.permutation([c for c in synth.ALL_CODES if c in images]))
            # a video uses each card once; more tricks than a deck holds take a new shuffle per deckful
            while len(codes) < tricks_per_video * seats:
                codes += list(rng.permutation([c for c in synth.ALL_CODES if c in images]))
            tricks = [[(s, str(codes[t * seats + s])) for s in range(seats)] for t in range(tricks_per_video)]
            turn: list[int | None] = [None]
            det = play.PlayDetector(rec, turn=lambda turn=turn: turn[0], seats=seats)
            truth: list[synth.VideoEvent] = []
            got: list[play.Event] = []
            spent: list[float] = []
            for frame, evs in synth.play_video(images, tricks, seed=100 + k, to_centre=to_centre, seats=seats,
                                                 tilt=tilt):
                truth += evs
                for e in evs:
                    if e.kind == "play":
                        turn[0] = e.seat
                if scale != 1.0:
                    frame = cv2.resize(frame, None, fx=scale, fy=scale,
                                       interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
                if light != 1.0:
                    frame = np.clip(frame * light + noise.normal(0, 2, frame.shape), 0, 255).astype(np.uint8)
                t = time.perf_counter()
                out = det.feed(frame)
                ms = (time.perf_counter() - t) * 1000
                spent.append(ms)
                if out:
                    compute.append(ms)
                got += out
            used: set[int] = set()
            for e in truth:
                if e.kind == "gather":
                    stats["gathers"] += 1
                    hit = [i for i, g in enumerate(got) if g.kind == "trick_gathered" and e.frame - 5 <= g.frame
                           <= e.frame + 30 and i not in used]
                    if hit:
                        stats["gathers_seen"] += 1
                        used.add(hit[0])
                    continue
                stats["plays"] += 1
                hit = [i for i, g in enumerate(got) if g.kind in ("card_played", "unsure_card")
                       and e.frame - 5 <= g.frame <= e.frame + 45 and i not in used]
                where = {"deck": name, "seed": 100 + k, "to_centre": to_centre, "frame": e.frame, "seat": e.seat,
                         "code": e.code}
                if not hit:
                    stats["missed"] += 1
                    not_read.append(dict(where, outcome="missed"))
                    continue
                g = got[hit[0]]
                used.add(hit[0])
                if g.kind == "unsure_card":
                    stats["unsure"] += 1
                    not_read.append(dict(where, outcome="unsure", at=g.frame, detail=g.detail))
                elif g.code == e.code and g.seat == e.seat:
                    stats["read"] += 1
                    delays.append((g.frame - e.frame) * 1000 / 30)
                    # as if every frame's work ran one after the other on one core, none of it overlapping
                    real.append(delays[-1] + sum(spent[e.frame : g.frame + 1]))
                else:
                    stats["wrong"] += 1
                    not_read.append(dict(where, outcome="wrong", at=g.frame, got=[g.seat, g.code]))
            all_frames.extend(spent)
            stats["false_events"] += sum(1 for i, g in enumerate(got) if i not in used
                                         and g.kind in ("card_played", "unsure_card", "trick_gathered"))
            if progress:
                progress(f"latency: {name} {'centre' if to_centre else 'zones'}: {stats}")
        result[name] = stats
        for key in totals:
            totals[key] += stats[key]

    def ms(values: list[float], q: float | None) -> float | None:
        if not values:
            return None
        return round(float(np.max(values) if q is None else np.percentile(values, q)), 1)

    result["total"] = totals
    result["seats"] = seats
    result["tricks_per_video"] = tricks_per_video
    result["tilt"] = tilt
    result["every_frame_ms_median"] = round(float(np.median(all_frames)), 2)
    result["every_frame_ms_p99"] = round(float(np.percentile(all_frames, 99)), 1)
    for label, values in (("decision_delay_ms", delays), ("decision_delay_plus_compute_ms", real)):
        result[f"{label}_median"] = ms(values, 50)
        result[f"{label}_p95"] = ms(values, 95)
        result[f"{label}_max"] = ms(values, None)
    result["decisions_over_300ms"] = sum(1 for x in real if x > 300)
    result["deciding_frame_compute_ms_median"] = round(float(np.median(compute)), 1) if compute else None
    result["not_read"] = not_read
    return result
