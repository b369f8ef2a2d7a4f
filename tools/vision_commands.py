"""The vision tools' commands: ``cardref vision synth|tune|theme|bench``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

import cv2
import numpy as np

from cli.args import probability
from cli.errors import UserError

if TYPE_CHECKING:
    from cli.main import Commands

# Each network's training seed: the one the checked-in file was trained with (`cardref vision train` with these
# defaults makes the checked-in files bit for bit; `--check` says whether it still does: docs/vision.md, *The learned
# corner index*).
INDEX_SEED = 2
FINDER_SEED = 1
DEFAULT_DECKS = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "shared", "decks"))


def _user_error(msg: str) -> Exception:
    return UserError(msg)


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def cmd_synth(args: argparse.Namespace) -> int:
    from tools import synth

    try:
        images = synth.load_deck(args.deck)
    except synth.DeckError as exc:
        raise _user_error(str(exc)) from exc
    os.makedirs(args.out, exist_ok=True)
    if args.video:
        rng = np.random.default_rng(args.seed)
        codes = [c for c in synth.ALL_CODES if c in images]
        n = args.seats
        if n * args.tricks > len(codes):
            raise _user_error(f"{args.tricks} tricks of {n} cards need {n * args.tricks} cards; the deck has "
                              f"{len(codes)}")
        order = [str(c) for c in rng.permutation(codes)][: n * args.tricks]
        tricks = [[(s, order[t * n + s]) for s in range(n)] for t in range(args.tricks)]
        truth = []
        writer = None
        path = os.path.join(args.out, "play.mp4")
        for i, (frame, events) in enumerate(synth.play_video(images, tricks, seed=args.seed, seats=n,
                                                             to_centre=not args.zones)):
            if args.frames:
                cv2.imwrite(os.path.join(args.out, f"frame{i:05d}.jpg"), frame)
            else:
                if writer is None:
                    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"mp4v"), 30, frame.shape[1::-1])
                writer.write(frame)
            truth += [e.__dict__ for e in events]
        if writer is not None:
            writer.release()
        with open(os.path.join(args.out, "truth.jsonl"), "w") as f:
            for e in truth:
                f.write(json.dumps(e) + "\n")
        print(f"wrote {args.out}: {len(truth)} events")
        return 0
    with open(os.path.join(args.out, "truth.jsonl"), "w") as f:
        for i in range(args.count):
            scene = synth.random_scene(images, args.seed + i, n_cards=args.cards, n_seats=args.seats)
            name = f"scene{args.seed + i:05d}.jpg"
            cv2.imwrite(os.path.join(args.out, name), scene.image)
            cards = [{"code": c.code if c.face_up else None, "visible": round(c.visible, 3),
                      "corners": c.quad.round(1).tolist()} for c in scene.cards]
            f.write(json.dumps({"image": name, "cards": cards}) + "\n")
    print(f"wrote {args.count} scenes to {args.out}")
    return 0


def cmd_theme(args: argparse.Namespace) -> int:
    from tools import aisleriot

    if args.name is None:
        names = aisleriot.themes()
        if not names:
            raise _user_error(f"no aisleriot themes in {aisleriot.THEMES_DIR}: `apt-get install gnome-cards-data`")
        print("\n".join(names))
        return 0
    if not args.out:
        raise _user_error("give --out DIR, the deck folder to write")
    try:
        written = aisleriot.write_deck(args.name, args.out)
    except aisleriot.ThemeError as exc:
        raise _user_error(str(exc)) from exc
    print(f"{len(written)} images in {args.out}")
    return 0


def cmd_tune(args: argparse.Namespace) -> int:
    from tools import vision_bench as bench
    from vision import deck

    try:
        if args.generic_only:
            res = {"generic": bench.tune_generic(args.decks, args.generic_size, _progress)}
        else:
            res = bench.tune(args.decks, args.size, _progress, args.generic_size)
    except (deck.EnrollError, OSError) as exc:
        raise _user_error(str(exc)) from exc
    print(json.dumps({k: ({kk: vv for kk, vv in v.items() if kk != "curve"} if isinstance(v, dict) else v)
                      for k, v in res.items()}))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from tools import vision_bench as bench
    from vision import deck

    cv2.setNumThreads(1)
    if args.photos:
        return _bench_photos(args)
    report: dict = {}
    only = args.only.split(",") if args.only else None
    try:
        if not args.skip_accuracy:
            modes = ("generic",) if args.generic_only else ("enrolled", "generic")
            report["accuracy"] = bench.accuracy(args.decks, args.reads, only, _progress, modes)
        if not args.skip_speed:
            # (the chosen designs, as for accuracy: the timing with the last of them, as with the held-out set)
            report["timing"] = bench.timing(args.decks, design=only[-1] if only else None)
            report["latency"] = bench.latency(args.decks, args.latency_tricks, decks=only, seats=args.latency_seats,
                                              progress=_progress, light=args.latency_light,
                                              scale=args.latency_scale, tilt=args.latency_tilt)
    except (deck.DeckError, deck.EnrollError, OSError) as exc:
        raise _user_error(str(exc)) from exc
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    return 0


def _bench_photos(args: argparse.Namespace) -> int:
    """``cardref vision bench --photos DIR``: found / read / wrong / ms per set of labelled photographs."""
    from tools import photo_bench
    from vision import deck

    try:
        report = photo_bench.bench(args.photos, args.deck, args.only.split(",") if args.only else None,
                                   args.max_side, _progress, not args.skip_speed)
    except (photo_bench.BenchError, deck.DeckError, deck.EnrollError) as exc:
        raise _user_error(str(exc)) from exc
    print(photo_bench.format_table(report))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


def register_vision(commands: Commands) -> None:
    """Add ``cardref vision synth|tune|theme|bench``."""
    sub = commands.group("vision")
    s = sub.add_parser("synth", help="render synthetic table scenes (or a played hand as video) with ground truth")
    s.add_argument("--deck", required=True, help="a deck folder (one PNG per card)")
    s.add_argument("--out", required=True, help="output folder")
    s.add_argument("--count", type=int, default=10)
    s.add_argument("--cards", type=int, default=6)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--video", action="store_true", help="render tricks being played instead of still scenes")
    s.add_argument("--frames", action="store_true", help="with --video: write a folder of JPEG frames, not MP4")
    s.add_argument("--tricks", type=int, default=2)
    s.add_argument("--seats", type=int, choices=(4, 5), default=4, help="the mat (and with --video the players) for "
                   "4 or 5 seats")
    s.add_argument("--zones", action="store_true", help="with --video: each card lies in its seat's zone, not in "
                   "the centre")
    s.set_defaults(func=cmd_synth)

    t = sub.add_parser("tune", help="measure risk-coverage on the tuning decks; write thresholds + generic templates")
    t.add_argument("--decks", default=DEFAULT_DECKS, help=f"folder of deck folders (default {DEFAULT_DECKS})")
    t.add_argument("--size", type=int, default=60, help="scenes per tuning deck (default 60)")
    t.add_argument("--generic-size", type=int, default=150, help="scenes per tuning deck for the generic reader "
                   "(default 150)")
    t.add_argument("--generic-only", action="store_true", help="only the generic (corner glyph) reader")
    t.set_defaults(func=cmd_tune)

    th = sub.add_parser("theme", help="render an aisleriot card theme (Debian gnome-cards-data) into a deck folder, "
                        "for measuring on designs nobody tuned on")
    th.add_argument("name", nargs="?", help="theme name (or .svgz path); without it, list the installed themes")
    th.add_argument("--out", help="deck folder to write (one PNG per card code)")
    th.set_defaults(func=cmd_theme)

    b = sub.add_parser("bench", help="accuracy on held-out decks and time per 1280x720 frame (one core)")
    b.add_argument("--decks", default=DEFAULT_DECKS, help=f"folder of deck folders (default {DEFAULT_DECKS})")
    b.add_argument("--reads", type=int, default=700, help="enrolled-mode reads per held-out deck (default 700)")
    b.add_argument("--only", help="comma-separated deck names instead of the held-out set (with --photos: set names)")
    b.add_argument("--generic-only", action="store_true", help="accuracy of the generic mode only (--reads then "
                   "counts generic reads)")
    b.add_argument("--skip-accuracy", action="store_true")
    b.add_argument("--skip-speed", action="store_true", help="accuracy only: no timing, no play videos")
    b.add_argument("--json", help="also write the report to this file")
    b.add_argument("--latency-tricks", type=int, default=2, help="tricks per play video (2 videos per held-out deck, "
                   "default 2)")
    b.add_argument("--latency-seats", type=int, choices=(4, 5), default=4, help="players in the play videos (5: "
                   "five-handed, on the five-seat mat)")
    b.add_argument("--latency-light", type=float, default=1.0, help="the play videos' levels multiplied by this, "
                   "with sensor noise (0.45: a dim room)")
    b.add_argument("--latency-scale", type=float, default=1.0, help="the play videos' 1280 x 720 frames resized by "
                   "this first (1.5: a 1080p camera)")
    b.add_argument("--latency-tilt", type=float, default=0.0, help="the play videos' camera turned this many degrees "
                   "off the vertical (the far side of the mat up the frame), on top of their slight random keystone")
    b.add_argument("--photos", metavar="DIR", help="instead: real photographs, a folder of images + labels.json "
                   "(or ../shared/photos with its three sets); prints cards, found, read, wrong, ms per set")
    b.add_argument("--deck", help="with --photos: read with this enrolled deck (default: the generic mode)")
    b.add_argument("--max-side", type=int, default=1920, help="with --photos: shrink photos to this longest side")
    b.set_defaults(func=cmd_bench)
    register_train(commands)


def cmd_train(args: argparse.Namespace) -> int:
    """``cardref vision train``: the corner-index network (``tools/train_index.py``) and the card-finding network
    (``tools/train_finder.py``) from scratch. ``--tune-only`` reads with the model as it is (OpenCV) and needs no
    training libraries."""
    try:
        if not args.tune_only:
            import onnx  # noqa: F401
            import torch  # noqa: F401
    except ImportError as exc:
        raise _user_error(f"training needs PyTorch and onnx, the 'train' extra: pip install -e '.[train]' "
                          f"({exc})") from exc
    from tools import train_index, training_outlines

    photos = args.photos if os.path.isdir(args.photos) else None
    report: dict = {}
    if args.check:
        if args.refresh_outlines or args.tune_only:
            raise _user_error("--check trains from the checked-in outlines into a temporary folder: it takes neither "
                              "--refresh-outlines nor --tune-only")
        return _check_training(args, photos)
    try:
        if args.refresh_outlines:
            if photos is None:
                raise _user_error(f"--refresh-outlines needs the development photos: {args.photos} is not a folder")
            report["outlines"] = training_outlines.refresh(photos)
            _progress(f"outlines found again: {report['outlines']} -> {training_outlines.PATH}")
        if args.tune_only:
            report = train_index.retune(args.decks, args.out, max(2, args.views // 2), args.index_seed)
            print(json.dumps(report["thresholds"], indent=1))
            return 0
    except _training_errors() as exc:
        raise _user_error(str(exc)) from exc
    report.update(_train_networks(args, photos, args.out, args.finder_out))
    print(json.dumps(report, indent=1))
    return 0


def _training_errors() -> tuple[type[Exception], ...]:
    """What training raises for bad input (a deck, a theme, the outlines file, a file): told to the user."""
    from tools import aisleriot, training_outlines
    from vision import deck

    return (deck.DeckError, aisleriot.ThemeError, training_outlines.OutlinesError, OSError)


def _train_networks(args: argparse.Namespace, photos: str | None, index_out: str, finder_out: str) -> dict:
    """Train the networks ``--only`` names (both by default) into ``index_out`` and ``finder_out``; their reports,
    by network."""
    from tools import train_finder, train_index

    report: dict = {}
    try:
        if args.only in (None, "index"):
            report["index"] = train_index.run(args.decks, photos, index_out, args.views, args.epochs,
                                              args.index_seed, args.workers, _progress, args.threads, args.photo_views,
                                              small_views=args.small_views, motion=args.motion)
        if args.only in (None, "finder"):
            report["finder"] = train_finder.run(args.decks, photos, finder_out, args.scenes, args.steps,
                                                args.finder_seed, args.workers, _progress)
    except _training_errors() as exc:
        raise _user_error(str(exc)) from exc
    return report


def _check_training(args: argparse.Namespace, photos: str | None) -> int:
    """``cardref vision train --check``: train the networks ``--only`` names (both by default) with the other options
    as given into a temporary folder, and say whether each is the one at ``--out`` / ``--finder-out`` (the checked-in
    files by default), bit for bit. Exit status 1 when one differs."""
    import tempfile

    from tools import network_stamp

    shipped = {"index": args.out, "finder": args.finder_out}
    for name, path in shipped.items():
        if args.only in (None, name) and not os.path.exists(path):  # (said before the minutes of training)
            raise _user_error(f"no {name} network to compare with at {path}")
    all_same = True
    with tempfile.TemporaryDirectory() as tmp:
        made = {"index": os.path.join(tmp, "index_net.onnx"), "finder": os.path.join(tmp, "finder_net.onnx")}
        for name in _train_networks(args, photos, made["index"], made["finder"]):
            if network_stamp.same_network(made[name], shipped[name]):
                print(f"{name}: the same network as {shipped[name]}, bit for bit")
                continue
            all_same = False
            theirs = network_stamp.read(shipped[name]).get(network_stamp.MADE_WITH, "not said (made before stamps)")
            print(f"{name}: NOT the network at {shipped[name]}\n  it was made with: {theirs}\n"
                  f"  this machine has:  {network_stamp.versions()}")
    return 0 if all_same else 1


def register_train(commands: Commands) -> None:
    """Add ``cardref vision train``."""
    from vision import finder_net, index_net

    sub = commands.group("vision")
    t = sub.add_parser("train", help="train the corner-index and card-finding networks (needs the 'train' extra: "
                       "PyTorch, onnx) and write vision/index_net.onnx and vision/finder_net.onnx")
    t.add_argument("--only", choices=("index", "finder"), help="train only this network (default: both, the "
                   "index first)")
    t.add_argument("--decks", default=DEFAULT_DECKS, help=f"folder of deck folders (default {DEFAULT_DECKS})")
    t.add_argument("--photos", default=os.path.join(os.path.dirname(DEFAULT_DECKS), "photos"),
                   help="the development photos (desk/template is trained on; default ../shared/photos)")
    t.add_argument("--out", default=index_net.MODEL_PATH, help="the ONNX file to write (default: the shipped one, "
                   f"{index_net.MODEL_PATH})")
    t.add_argument("--finder-out", default=finder_net.MODEL_PATH, help="the finder's ONNX file to write (default: "
                   f"the shipped one, {finder_net.MODEL_PATH})")
    t.add_argument("--scenes", type=int, default=8000, help="the finder's training scenes (default 8000)")
    t.add_argument("--steps", type=int, default=4000, help="the finder's training steps (default 4000)")
    t.add_argument("--views", type=int, default=12, help="camera views of each card of each design (default 12)")
    t.add_argument("--photo-views", type=int, default=16, help="views of each card found in the boxes/train photos "
                   "(rank only; default 16)")
    t.add_argument("--small-views", type=int, default=0, help="views of each card more, the card 36-55 px wide as a "
                   "webcam over a whole table sees it (default 0: the checked-in recipe; docs/vision.md, Training)")
    t.add_argument("--motion", type=probability("--motion"), default=0.0, help="the share of the designs' views "
                   "smeared by a card moving under the camera (default 0: the checked-in recipe; docs/vision.md, "
                   "Training)")
    t.add_argument("--epochs", type=int, default=12)
    # (another seed makes another network of the same recipe, to be measured as one)
    t.add_argument("--index-seed", type=int, default=INDEX_SEED, help="the corner network's seed (default "
                   f"{INDEX_SEED}: the one the checked-in file was trained with)")
    t.add_argument("--finder-seed", type=int, default=FINDER_SEED, help="the finder network's seed (default "
                   f"{FINDER_SEED}: the one the checked-in file was trained with)")
    t.add_argument("--workers", type=int, default=2, help="processes making data, threads training (default 2)")
    t.add_argument("--tune-only", action="store_true", help="only choose the reader's thresholds again, for the "
                   "model at --out, on the tuning themes")
    t.add_argument("--threads", type=int, default=2, help="PyTorch threads (default 2: what made the checked-in "
                   "model)")
    t.add_argument("--refresh-outlines", action="store_true", help="find the training photos' cards again with "
                   "today's finder and rewrite tools/training_outlines.json first (by default training reads the "
                   "outlines the shipped networks were trained on)")
    t.add_argument("--check", action="store_true", help="train into a temporary folder instead and say whether the "
                   "networks made are the checked-in ones, bit for bit (about 20 min for both on 2 cores; exit "
                   "status 1 when one differs)")
    t.set_defaults(func=cmd_train)
