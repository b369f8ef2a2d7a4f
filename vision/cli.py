"""The ``cardref vision`` command: mat, enroll, identify, synth, tune, bench, watch."""

from __future__ import annotations

import argparse
import json
import os
import sys

import cv2
import numpy as np


def _user_error(msg: str) -> Exception:
    from referee.cli import UserError

    return UserError(msg)


def cmd_mat(args: argparse.Namespace) -> int:
    from vision import mat

    outs = [args.out]
    if args.out.lower().endswith(".pdf"):
        outs.append(os.path.splitext(args.out)[0] + ".png")
    for path in outs:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise _user_error(f"output folder does not exist: {folder}")
        try:
            mat.save_mat(path, args.scale, args.seats)
        except OSError as exc:
            raise _user_error(f"cannot write {path}: {exc}") from exc
        print(f"wrote {path}")
    return 0


def cmd_enroll(args: argparse.Namespace) -> int:
    from vision import deck, play

    try:
        if args.camera is not None:
            codes = deck.EUCHRE if args.euchre else deck.FULL
            try:
                stream = play.open_stream(args.camera)
            except OSError as exc:
                raise _user_error(str(exc)) from exc
            images = deck.enroll_stream(stream, codes, progress=_progress)
            d = deck.enroll_images(images, os.path.basename(args.out), f"camera {args.camera}")
        elif args.dir is None:
            raise _user_error("give a folder of card images, or --camera SOURCE")
        else:
            d = deck.enroll_dir(args.dir)
        d.save(args.out)
    except deck.EnrollError as exc:
        raise _user_error(str(exc)) from exc
    except OSError as exc:
        raise _user_error(f"cannot write {args.out}: {exc}") from exc
    print(json.dumps({"deck": d.name, "out": args.out, **d.report}))
    if "jokers_distinct" in d.report and not d.report["jokers_distinct"]:
        print("note: the two jokers cannot be told apart reliably; a joker will be read as 'joker, unsure which'",
              file=sys.stderr)
    return 0


def _load_recogniser(deck_path: str | None) -> object:
    from vision import deck, recognise

    try:
        return recognise.Recogniser(deck.Deck.load(deck_path) if deck_path else None)
    except deck.EnrollError as exc:
        raise _user_error(str(exc)) from exc


def cmd_identify(args: argparse.Namespace) -> int:
    from vision import recognise

    rec = _load_recogniser(args.deck)
    assert isinstance(rec, recognise.Recogniser)
    for path in args.images:
        if not os.path.exists(path):
            raise _user_error(f"image not found: {path}")
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        if img is None:
            raise _user_error(f"unreadable image: {path}")
        out = recognise.identify_json(rec, img)
        print(json.dumps({"image": path, **out}))
    return 0


def cmd_synth(args: argparse.Namespace) -> int:
    from vision import synth

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


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``cardref vision ...``."""
    p = subparsers.add_parser("vision", help="the camera: mat, deck enrollment, card recognition, play detection")
    sub = p.add_subparsers(dest="vision_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])

    m = sub.add_parser("mat", help="write the printable table mat (PDF and PNG, or PNG)")
    m.add_argument("--out", required=True, help="mat.pdf (a PNG is written next to it) or mat.png")
    m.add_argument("--scale", type=float, default=4.0, help="pixels per table unit (0.5 mm), default 4")
    m.add_argument("--seats", type=int, choices=(4, 5), default=4, help="the mat for 4 players (default) or 5 "
                   "(five-handed Pitch); each has its own marker ids, so the camera knows which one it sees")
    m.set_defaults(func=cmd_mat)

    e = sub.add_parser("enroll", help="enroll a deck from a folder of card images named by code")
    e.add_argument("dir", nargs="?", help="folder with one image per card, named by code (AS.png, TH.png, BJ.png)")
    e.add_argument("--out", required=True, help="deck file to write (.npz)")
    e.add_argument("--camera", help="enroll from a camera (index), video file or folder of frames instead, "
                   "one card at a time on the mat, in the order AS KS ... 2S, AH ... 2C, BJ, LJ")
    e.add_argument("--euchre", action="store_true", help="with --camera: the 24 cards from 9 up only")
    e.set_defaults(func=cmd_enroll)

    i = sub.add_parser("identify", help="find and read the cards in images; one JSON line per image")
    i.add_argument("--deck", help="an enrolled deck file; without it the generic mode reads the corner index")
    i.add_argument("images", nargs="+")
    i.set_defaults(func=cmd_identify)

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

    w = sub.add_parser("watch", help="play detection on a camera, video file or folder of frames; JSON events")
    w.add_argument("source", help="camera index (0), video file, or folder of frames")
    w.add_argument("--deck", help="enrolled deck file; without it the generic mode")
    w.add_argument("--first-seat", type=int, choices=range(5), help="seat that plays first to the centre; the "
                   "next cards count clockwise (the referee service asks the engine instead)")
    w.add_argument("--seats", type=int, choices=(4, 5), help="the game's number of players: the mat in view must be "
                   "that mat (a mat_mismatch event says when not); default: whichever mat is in view")
    w.set_defaults(func=cmd_watch)

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
    b.add_argument("--only", help="comma-separated deck names instead of the held-out set")
    b.add_argument("--generic-only", action="store_true", help="accuracy of the generic mode only (--reads then "
                   "counts generic reads)")
    b.add_argument("--skip-accuracy", action="store_true")
    b.add_argument("--skip-speed", action="store_true", help="accuracy only: no timing, no play videos")
    b.add_argument("--json", help="also write the report to this file")
    b.add_argument("--latency-tricks", type=int, default=2, help="tricks per play video (2 videos per held-out deck, "
                   "default 2)")
    b.add_argument("--latency-seats", type=int, choices=(4, 5), default=4, help="players in the play videos (5: "
                   "five-handed, on the five-seat mat)")
    b.set_defaults(func=cmd_bench)


DEFAULT_DECKS = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "shared", "decks"))


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def cmd_watch(args: argparse.Namespace) -> int:
    from vision import play, recognise

    if args.first_seat is not None and args.first_seat >= (args.seats or 4):
        raise _user_error(f"--first-seat {args.first_seat}: a {args.seats or 4}-seat table has seats 0-"
                          f"{(args.seats or 4) - 1}")
    rec = _load_recogniser(args.deck)
    assert isinstance(rec, recognise.Recogniser)
    try:
        stream = play.open_stream(args.source)
    except OSError as exc:
        raise _user_error(str(exc)) from exc
    # without the engine, the seat on turn for cards played to the centre is a simple clockwise count
    turn: list[int | None] = [args.first_seat]
    det = play.PlayDetector(rec, turn=lambda: turn[0], seats=args.seats)
    for frame in stream:  # type: ignore[attr-defined]
        for e in det.feed(frame):
            print(json.dumps(e.to_json()), flush=True)
            if e.kind in ("card_played", "unsure_card") and turn[0] is not None:
                # the seat count: the game's, else that of the mat in view
                n = args.seats or (det.calibration.n_seats if det.calibration is not None else 4)
                turn[0] = (turn[0] + 1) % n
            elif e.kind == "trick_gathered":
                turn[0] = None  # the trick's winner leads: only the engine knows
    return 0


def cmd_theme(args: argparse.Namespace) -> int:
    from vision import aisleriot

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
    from vision import bench, deck

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
    from vision import bench, deck

    cv2.setNumThreads(1)
    report: dict = {}
    try:
        if not args.skip_accuracy:
            only = args.only.split(",") if args.only else None
            modes = ("generic",) if args.generic_only else ("enrolled", "generic")
            report["accuracy"] = bench.accuracy(args.decks, args.reads, only, _progress, modes)
        if not args.skip_speed:
            report["timing"] = bench.timing(args.decks)
            report["latency"] = bench.latency(args.decks, args.latency_tricks, seats=args.latency_seats,
                                              progress=_progress)
    except (deck.EnrollError, OSError) as exc:
        raise _user_error(str(exc)) from exc
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    return 0
