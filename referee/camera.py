"""The camera joined to the table: frames in, plays out (``vision.play.PlayDetector`` -> ``TableSession``).

Each card the detector reads becomes a ``play`` event from the source ``camera``; the frame that showed it is kept
as evidence (``<seq>.jpg`` in the private frames directory, the director's only). An unsure read never reaches the
engine as a guess: it is logged as an observation for the director, who enters the card. What the engine knows tells
the detector whose turn it is and vetoes a read the seat cannot hold (the detector then says unsure). A lost camera
(no frame, a covered lens) sets the camera's status to lost, shown on every page; the table enters plays on its page
until it is back.

The mat must fit the game: the detector asks the table how many players the match has (``seats``), and a mat for
another seat count (the four-seat mat at five-handed Pitch) sets the camera's status to lost with the reason (lay
the other mat); the camera enters no play until the right mat is in view, its reads go to the director instead.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from typing import Any

from engine.cards import card
from engine.hand import PLAY
from referee.devices import CameraEvent, PlayDetector
from referee.table import Refused, TableSession


class CameraBridge:
    """Feeds a detector and turns its events into the table's."""

    def __init__(self, session: TableSession, detector: PlayDetector) -> None:
        self.session = session
        self.detector = detector
        detector.turn = self.turn
        detector.check = self.check
        detector.seats = self.seats
        self.plays: list[int] = []  # seqs of the plays the camera entered
        self.refused: list[int] = []
        self.wrong_mat = ""  # why the mat in view does not fit the game, while it does not

    def seats(self) -> int | None:
        """The current match's number of players (which mat the camera must see); None before any match."""
        state = self.session.current
        return None if state is None else int(state.match.n_players)

    def turn(self) -> int | None:
        """The seat on turn (a card played to the centre is the seat on turn's)."""
        state = self.session.current
        if state is None or state.match.is_terminal():
            return None
        hand = state.match.hand
        return hand.turn if hand.phase == PLAY and hand.trick is not None else None

    def check(self, seat: int | None, code: str) -> bool:
        """False when the engine knows the seat cannot hold the card (a misread, surely)."""
        state = self.session.current
        if state is None or seat is None:
            return True
        k = state.match.hand.knowledge
        if k is None or not 0 <= seat < state.match.n_players:
            return True
        return bool(k.possible[seat] >> card(code) & 1)

    def feed(self, frame: Any) -> list[dict[str, Any]]:
        """One frame; returns the detector's events (as JSON) after acting on them."""
        out = []
        for event in self.detector.feed(frame):
            out.append(event.to_json())
            self.handle(event, frame)
        return out

    def handle(self, event: CameraEvent, frame: Any) -> None:
        kind = event.kind
        if kind == "card_played" and self.wrong_mat:
            # the table enters plays by hand while the camera is "lost": a read goes to the director, not the engine
            self.session.observe({"event": "unsure_card", "seat": event.seat, "frame": event.frame,
                                  "detail": f"read {event.code}, not entered: {self.wrong_mat}"}, "camera", "camera")
        elif kind == "card_played" and event.seat is not None and event.code is not None:
            try:
                # The read carries its source and confidence (docs/engine-api.md, sensor reads): a call resting on it
                # stays revisable until the hand's cards are all accounted for.
                play: dict[str, Any] = {"event": "play", "seat": event.seat, "card": event.code, "source": "camera"}
                if getattr(event, "confidence", None) is not None:
                    play["confidence"] = round(float(event.confidence), 3)
                row = self.session.submit(play, "camera", "camera")
                self.plays.append(row.seq)
                seq = row.seq
            except Refused as exc:
                # Logged as a refused attempt; the director sees it with the frame and enters the right card.
                self.refused.append(exc.seq or 0)
                seq = exc.seq or 0
            self.keep_frame(seq, frame)
        elif kind == "unsure_card":
            self.session.observe({"event": "unsure_card", "seat": event.seat, "frame": event.frame,
                                  "detail": event.detail}, "camera", "camera")
        elif kind == "mat_mismatch":
            self.wrong_mat = event.detail
            self.session.set_device("camera", "lost", "camera", "camera", event.detail)
        elif kind == "mat_found" and self.wrong_mat:
            self.wrong_mat = ""
            self.session.set_device("camera", "ok", "camera", "camera", event.detail)
        elif kind in ("camera_lost", "camera_back"):
            # a camera back over the wrong mat is still of no use to the table
            back = kind == "camera_back" and not self.wrong_mat
            self.session.set_device("camera", "ok" if back else "lost", "camera", "camera",
                                    event.detail or self.wrong_mat)

    def keep_frame(self, seq: int, frame: Any) -> None:
        frames = self.session.frames_dir
        if frames is None or frame is None or not seq:
            return
        import cv2

        frames.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = frames / f"{seq}.jpg"
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if ok:
            fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(data.tobytes())

    def run(self, frames: Iterable[Any], stop: threading.Event) -> None:
        """Feed a stream until it ends or ``stop`` is set (a camera thread)."""
        for frame in frames:
            if stop.is_set():
                return
            self.feed(frame)
        self.session.set_device("camera", "lost", "camera", "camera", "the video stream ended")


def open_camera(session: TableSession, source: str, deck_dir: str | None) -> CameraBridge:
    """A bridge for a camera index, a video file or a folder of frames, reading with an enrolled deck (or the
    recogniser's generic mode)."""
    from vision import deck as decklib
    from vision import play, recognise

    enrolled = decklib.enroll_dir(deck_dir) if deck_dir else None
    return CameraBridge(session, play.PlayDetector(recognise.Recogniser(enrolled)))
