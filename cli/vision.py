"""``cardref vision``: the printable mat, deck enrollment, card reading and play detection (the measuring and
generating commands are tools: ``tools/vision_commands.py``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

import cv2

from cli.errors import UserError

if TYPE_CHECKING:
    from cli.main import Commands


def _user_error(msg: str) -> Exception:
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
            # (without --photos the folder is looked at: photographs of cards on a surface are found and rectified)
            d = deck.enroll_dir(args.dir, photos=True if args.photos else None)
        d.save(args.out)
    except deck.EnrollError as exc:
        raise _user_error(str(exc)) from exc
    except OSError as exc:
        raise _user_error(f"cannot write {args.out}: {exc}") from exc
    print(json.dumps({"deck": d.name, "out": args.out, **d.report}))
    if d.report.get("photos") and not args.photos:
        print("note: these are photographs (a card lying on a surface in each): each card was found and rectified, "
              "as with --photos", file=sys.stderr)
    if not d.has_jokers:
        print("note: no jokers enrolled; a joker will be read as unsure (a game with jokers says so at its start)",
              file=sys.stderr)
    if "jokers_distinct" in d.report and not d.report["jokers_distinct"]:
        print("note: the two jokers cannot be told apart reliably; a joker will be read as 'joker, unsure which'",
              file=sys.stderr)
    if d.report.get("index_side", "left") != "left":
        print("note: these cards have no index in their top-left corner; they are matched along the whole top of the "
              "card", file=sys.stderr)
    if not d.report.get("index_trusted", True):
        print(f"note: the built-in index reader misread {d.report['index_vetoes']} of {d.report['index_views']} views "
              "of these cards (indices or suit signs of another pattern); this deck is read by its own pictures "
              "alone", file=sys.stderr)
    elif d.report.get("index_misnames"):
        print(f"note: the built-in index reader took some of these cards for another rank (it read "
              f"{', '.join(d.report['index_misnames'])}); cards of those ranks are named by their own pictures alone",
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


def register(commands: Commands) -> None:
    """Add ``cardref vision mat|enroll|identify|watch``."""
    sub = commands.group("vision")
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
    e.add_argument("--photos", action="store_true", help="DIR holds photographs, one card alone on any surface "
                   "in each (named by code, or suit_N: spades_1 = AS ... spades_13 = KS): find and rectify it; a "
                   "photo with no card or more than one is refused. Without jokers, a joker is read as unsure. "
                   "Without --photos a folder of photographs is recognised as one (most of its first number cards "
                   "lie on a surface)")
    e.set_defaults(func=cmd_enroll)

    i = sub.add_parser("identify", help="find and read the cards in images; one JSON line per image")
    i.add_argument("--deck", help="an enrolled deck file; without it the generic mode reads the corner index")
    i.add_argument("images", nargs="+")
    i.set_defaults(func=cmd_identify)

    w = sub.add_parser("watch", help="play detection on a camera, video file or folder of frames; JSON events")
    w.add_argument("source", help="camera index (0), video file, or folder of frames")
    w.add_argument("--deck", help="enrolled deck file; without it the generic mode")
    w.add_argument("--first-seat", type=int, choices=range(5), help="seat that plays first to the centre; the "
                   "next cards count clockwise (the referee service asks the engine instead)")
    w.add_argument("--seats", type=int, choices=(4, 5), help="the game's number of players: the mat in view must be "
                   "that mat (a mat_mismatch event says when not); default: whichever mat is in view")
    w.set_defaults(func=cmd_watch)
