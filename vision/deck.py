"""Deck enrollment: the reference features of one card design, saved as a single ``.npz`` file.

Enrollment checks that the deck is complete (54 cards, or the 24 of a Euchre deck) and that no two cards look the
same, and measures whether the two jokers can be told apart by reading rendered scenes of them: if any read of a
joker is wrong or its margin is below the acceptance threshold, the deck is marked ``jokers_distinct = False`` and
recognition answers "a joker, unsure which".
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision import recognise as rc
from vision import synth

FULL = synth.ALL_CODES
EUCHRE = [r + s for s in synth.SUITS for r in "AKQJT9"]
FORMAT = "cardref-deck-1"


class EnrollError(Exception):
    """The deck cannot be enrolled (the message names the missing or duplicate cards)."""


@dataclass
class Deck:
    """An enrolled deck: its name, codes, templates and what enrollment found."""

    name: str
    codes: list[str]
    templates: rc.Templates
    report: dict

    def save(self, path: str) -> None:
        t = self.templates
        meta = {"format": FORMAT, "name": self.name, "codes": self.codes, "report": self.report,
                "jokers_distinct": t.jokers_distinct, "canonical": [rc.CW, rc.CH]}
        with open(path, "wb") as f:
            np.savez_compressed(f, labels=np.array(t.labels), face=t.face.astype(np.float32),
                                corner=t.corner.astype(np.float32), meta=np.array(json.dumps(meta)))

    @classmethod
    def load(cls, path: str) -> Deck:
        if not os.path.exists(path):
            raise EnrollError(f"deck file not found: {path}")
        try:
            z = np.load(path, allow_pickle=False)
            meta = json.loads(str(z["meta"]))
        except (OSError, ValueError, KeyError) as exc:
            raise EnrollError(f"not a cardref deck file: {path} ({exc})") from exc
        if meta.get("format") != FORMAT or meta.get("canonical") != [rc.CW, rc.CH]:
            raise EnrollError(f"deck file {path} was made by another version; enroll the deck again")
        tpl = rc.Templates([str(x) for x in z["labels"]], z["face"], z["corner"], bool(meta["jokers_distinct"]), meta)
        return cls(meta["name"], meta["codes"], tpl, meta["report"])


def templates_from_images(images: dict[str, np.ndarray]) -> rc.Templates:
    labels, faces, corners = [], [], []
    for code, img in images.items():
        card = rc.canonical_card(img)
        labels.append(code)
        faces.append(rc.face_feature(card))
        corners.append(rc.corner_template(card))
    return rc.Templates(labels, np.stack(faces), np.stack(corners))


def check_complete(images: dict[str, np.ndarray], where: str) -> list[str]:
    """The deck's codes, or an EnrollError naming what is missing."""
    codes = [c for c in images if c != "back"]
    if set(FULL) <= set(codes):
        return FULL
    if set(EUCHRE) <= set(codes) and len(codes) <= 26:
        return EUCHRE
    missing = [c for c in FULL if c not in codes]
    if len(codes) < 40:
        missing = [c for c in EUCHRE if c not in codes] or missing
    raise EnrollError(f"incomplete deck in {where}: missing {', '.join(missing)} (need 54 cards, or the 24 from 9 up)")


def joker_test(images: dict[str, np.ndarray], tpl: rc.Templates, trials: int = 8) -> dict:
    """Render both jokers in scenes and read them: are they always told apart, with the acceptance margin?"""
    th = rc.load_thresholds()["enrolled"]
    margins = []
    wrong = 0
    for seed in range(trials):
        poses = [synth.CardPose("BJ", 420, 400, seed * 53.0), synth.CardPose("LJ", 780, 400, seed * 71.0 + 20)]
        scene = synth.render_table(images, poses, seed=10_000 + seed, hand=False)
        for truth in scene.cards:
            card = rc.rectify_for_reading(scene.image, rc._orient(truth.quad))
            label, _, margin = rc.match(tpl, card, True)
            if label != truth.code:
                wrong += 1
                margin = -abs(margin)
            margins.append(margin)
    distinct = wrong == 0 and min(margins) >= th.margin
    return {"jokers_distinct": distinct, "joker_reads": len(margins), "joker_wrong": wrong,
            "joker_min_margin": round(min(margins), 3), "margin_needed": th.margin}


def enroll_images(images: dict[str, np.ndarray], name: str, where: str) -> Deck:
    """Enroll a deck from its card images; raises EnrollError when it is incomplete or has look-alike cards."""
    codes = check_complete(images, where)
    use = {c: images[c] for c in codes}
    if "back" in images:
        use["back"] = images["back"]
    tpl = templates_from_images(use)
    # the same picture twice (a copied file): nearly no pixel differs, where two real cards differ in a pip at least
    size = (rc.CW, rc.CH)
    small = {c: cv2.resize(img, size, interpolation=cv2.INTER_AREA).astype(np.int16) for c, img in use.items()}
    dupes = []
    keys = list(small)
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            if {a, b} != {"BJ", "LJ"} and (np.abs(small[a] - small[b]).max(axis=2) > 60).sum() < 8:
                dupes.append(f"{a}={b}")
    if dupes:
        raise EnrollError(f"cards in {where} look identical: {', '.join(dupes)} (wrong file names?)")
    report: dict = {"cards": len(codes), "back": "back" in images}
    if "BJ" in codes:
        report.update(joker_test(use, tpl))
        tpl.jokers_distinct = bool(report["jokers_distinct"])
    return Deck(name, codes, tpl, report)


def enroll_dir(deck_dir: str) -> Deck:
    """Enroll a deck folder (one image per card, named by its code)."""
    try:
        images = synth.load_deck(deck_dir)
    except synth.DeckError as exc:
        raise EnrollError(str(exc)) from exc
    return enroll_images(images, os.path.basename(os.path.normpath(deck_dir)), deck_dir)


# ---------------------------------------------------------------- helpers


def cv_imread(path: str) -> np.ndarray | None:
    """cv2.imread that never raises."""
    try:
        return cv2.imread(path, cv2.IMREAD_COLOR)
    except cv2.error:
        return None


def enroll_stream(frames: object, codes: list[str], progress: Callable[[str], None] = print,
                  still: int = 4) -> dict[str, np.ndarray]:
    """Enrollment from the camera: the cards are laid on the mat one at a time, in the order of ``codes``.

    A card is taken when exactly one whole card has lain still for ``still`` frames; the next card is expected
    only after the table has been seen empty again, so one card is never taken twice.
    """
    images: dict[str, np.ndarray] = {}
    k = 0
    count = 0
    last_quad: np.ndarray | None = None
    need_empty = False
    progress(f"lay {codes[0]} on the mat (1/{len(codes)})")
    for frame in frames:  # type: ignore[attr-defined]
        if frame is None:
            continue
        quads = [q for q in rc.find_cards(frame) if q.whole > 0.9]
        if need_empty:
            if not quads:
                need_empty = False
                if k < len(codes):
                    progress(f"lay {codes[k]} on the mat ({k + 1}/{len(codes)})")
            continue
        if len(quads) != 1:
            count, last_quad = 0, None
            continue
        q = quads[0].pts
        if last_quad is not None and np.abs(q - last_quad).max() < 3:
            count += 1
        else:
            count = 1
        last_quad = q
        if count >= still:
            images[codes[k]] = rc.rectify(frame, q)
            progress(f"took {codes[k]} ({k + 1}/{len(codes)}); take it away")
            k += 1
            count, last_quad, need_empty = 0, None, True
            if k == len(codes):
                break
    if k < len(codes):
        raise EnrollError(f"the camera stream ended after {k} of {len(codes)} cards (next: {codes[k]})")
    return images
