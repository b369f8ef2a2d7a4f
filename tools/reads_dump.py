"""Every read of a photo folder dumped to JSON, and two dumps compared.

A change meant only to make the recogniser faster (or tidier) must find and read exactly what it did before: dump
the reads with the code before and after the change, then compare. Each read keeps its code, guess, confidence,
margin, wholeness and four corners; the comparison reports every photo whose reads differ (a read missing or added,
another code or guess, a score that moved, a corner that moved by more than ``tol`` pixels) and whether the two
dumps are bit-identical.

    python -m tools.reads_dump dump OUT.json [--photos ../shared/photos] [--only poker_table,desk_query] [--deck D]
    python -m tools.reads_dump compare BEFORE.json AFTER.json [--tol 0.25]

The folder is read as the photo bench reads it (``tools.photo_bench.discover``: the development sets, or images
plus ``labels.json``), each photo resized to at most ``max_side`` pixels, one OpenCV thread, in the generic mode or
with a deck enrolled (``--deck``: a change must keep both modes' reads).
"""

from __future__ import annotations

import argparse
import json
import sys

import cv2
import numpy as np

from tools import photo_bench as pb
from vision.deck import DeckError, EnrollError

DEV_SETS = ("poker_table", "desk_query", "desk_template", "boxes_train")  # never boxes_test: it stays held out


def dump_reads(root: str, only: list[str] | None = None, max_side: int = 1920, limit: int | None = None,
               deck: str | None = None) -> dict:
    """``{photo path: [read, ...]}`` for every photo of the chosen sets (at most ``limit`` per set), in the generic
    mode, or with ``deck`` enrolled (a deck file, or ``boxes``: ``tools.photo_bench.load_deck``)."""
    from vision import recognise

    cv2.setNumThreads(1)
    rec = recognise.Recogniser(pb.load_deck(root, deck) if deck else None)
    sets, _ = pb.discover(root)
    out: dict[str, list[dict]] = {}
    for s in sets:
        if only is not None and s.name not in only:
            continue
        for photo in s.photos[:limit]:
            img, _ = pb.load_photo(photo.path, max_side)
            out[photo.path] = [{"code": r.code, "label": r.label, "confidence": float(r.confidence),
                                "margin": float(r.margin), "whole": float(r.whole),
                                "quad": np.asarray(r.quad, np.float64).tolist()} for r in rec.identify(img)]
    return out


def compare(before: dict, after: dict, tol: float = 0.25) -> tuple[list[str], bool]:
    """(the differences, one line each; whether the dumps are bit-identical). Reads are matched within a photo by
    their nearest corners."""
    diffs: list[str] = []
    identical = before == after
    for path in sorted(set(before) | set(after)):
        if path not in before or path not in after:
            diffs.append(f"{path}: only in {'after' if path not in before else 'before'}")
            continue
        ra, rb = before[path], after[path]
        if len(ra) != len(rb):
            diffs.append(f"{path}: {len(ra)} reads before, {len(rb)} after")
            continue
        free = list(range(len(rb)))
        for a in ra:
            qa = np.array(a["quad"])
            j = min(free, key=lambda k: float(np.abs(np.array(rb[k]["quad"]) - qa).max()))
            free.remove(j)
            b = rb[j]
            moved = float(np.abs(np.array(b["quad"]) - qa).max())
            if (moved > tol or a["code"] != b["code"] or a["label"] != b["label"]
                    or abs(a["confidence"] - b["confidence"]) > 1e-6 or abs(a["margin"] - b["margin"]) > 1e-6):
                diffs.append(f"{path}: {a['code'] or '?'}/{a['label']} -> {b['code'] or '?'}/{b['label']}, "
                             f"confidence {a['confidence']:.3f} -> {b['confidence']:.3f}, corners moved {moved:.2f} px")
    return diffs, identical


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.reads_dump", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="read every photo and write the reads as JSON")
    d.add_argument("out")
    d.add_argument("--photos", default="../shared/photos")
    d.add_argument("--only", default=",".join(DEV_SETS), help="comma-separated set names")
    d.add_argument("--max-side", type=int, default=1920)
    d.add_argument("--deck", help="an enrolled deck file, or 'boxes' (the boxes sets' deck, enrolled from its photos): "
                   "the enrolled mode's reads (default: the generic mode's)")
    c = sub.add_parser("compare", help="compare two dumps")
    c.add_argument("before")
    c.add_argument("after")
    c.add_argument("--tol", type=float, default=0.25, help="pixels a corner may move")
    args = ap.parse_args(argv)
    if args.cmd == "dump":
        try:
            reads = dump_reads(args.photos, args.only.split(","), args.max_side, deck=args.deck)
        except (pb.BenchError, DeckError, EnrollError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        with open(args.out, "w") as f:
            json.dump(reads, f)
        print(f"{len(reads)} photos, {sum(len(v) for v in reads.values())} reads -> {args.out}")
        return 0
    dumps = []
    for path in (args.before, args.after):
        try:
            with open(path) as f:
                dumps.append(json.load(f))
        except (OSError, ValueError) as exc:
            print(f"error: cannot read dump {path}: {exc}", file=sys.stderr)
            return 2
    diffs, identical = compare(dumps[0], dumps[1], args.tol)
    for line in diffs:
        print(line)
    n = sum(len(v) for v in dumps[0].values())
    print(f"{len(dumps[0])} photos, {n} reads before: {len(diffs)} differ; bit-identical: {identical}")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
