"""Play detection on a frame stream: a card landing, the hand gone, a voted read, the seat, a trick gathered.

Per frame the detector only shrinks the frame to 160x90 grey and differences it with the previous frame (is
anything moving?) and, once still, with the last still image of the table (did anything change?). Only when a
change has settled does it run the recogniser, on a few consecutive still frames, and vote. Everything heavy happens
a handful of times per card, so the per-frame work stays around a millisecond.

What the engine knows can veto a read (``check``), never rescue an unsure one. The game's seat count (``seats``)
picks the mat: a mat for another seat count is reported (``mat_mismatch``) and not used, so no card is put in front
of a seat from the wrong mat's zones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision import exposure, geometry, regions, resample
from vision import mat as matlib
from vision import recognise as rc

SMALL = (160, 90)


def shrink(frame: np.ndarray) -> np.ndarray:
    """``frame`` at ``SMALL``, each pixel the mean of those it covers (``resample.shrink``: halvings, then an area
    averaging by two to four). Where the frame halves exactly to ``SMALL`` (1280 x 720, 1920 x 1080) the picture is
    one area averaging's, to a level; elsewhere a sharp edge lands a fraction of a small pixel apart, alike in every
    frame. Every frame pays it: 0.52 against 1.68 ms at 1280 x 720, 1.17 against 5.04 at 1366 x 768; the held-out
    decks' play videos (``cardref vision bench --skip-accuracy``) 2.37 -> 1.09 ms a frame, the same reads."""
    return resample.shrink(frame, SMALL, halve_from=4.0)


@dataclass
class Event:
    """``kind``: card_played, unsure_card, trick_gathered, camera_lost, camera_back, camera_moved, mat_missing,
    mat_mismatch (the mat in view is for another seat count; ``detail`` names both), mat_found (the right mat is in
    view again after a mismatch)."""

    kind: str
    frame: int
    seat: int | None = None
    code: str | None = None
    confidence: float | None = None
    corners: list[list[float]] | None = None
    detail: str = ""

    def to_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v not in (None, "")}


@dataclass(eq=False)
class _Track:
    quad: np.ndarray
    code: str | None
    seat: int | None
    in_centre: bool
    label: str = ""


@dataclass
class PlayDetector:
    """Feed frames, get events. ``turn()`` names the seat on turn (for cards played to the centre);
    ``check(seat, code)`` may refuse a read that the engine knows to be impossible; ``seats`` is the game's number
    of players (a number, or a callable asked as the game changes; None = take whichever mat is in view)."""

    recogniser: rc.Recogniser
    turn: Callable[[], int | None] | None = None
    check: Callable[[int | None, str], bool] | None = None
    seats: int | Callable[[], int | None] | None = None
    still_frames: int = 3
    votes: int = 3
    max_ballots: int = 6
    motion_px: int = 6
    change_px: int = 25
    recheck_every: int = 90
    analyse: bool = True
    debug: bool = False
    calibration: matlib.Calibration | None = None
    frame_no: int = -1
    _prev: np.ndarray | None = None
    _background: np.ndarray | None = None
    _still: int = 0
    _ballots: list[list[rc.Read]] = field(default_factory=list)
    _tracks: list[_Track] = field(default_factory=list)
    _lost: bool = False
    _roi: tuple[int, int, int, int] | None = None
    _since_check: int = 0
    _mismatch: str = ""
    _still_full: np.ndarray | None = None  # the full frame of the last still table (a reference, not a copy)
    _ballot_frames: list[np.ndarray] = field(default_factory=list)
    _new_quad: np.ndarray | None = None  # the outline of the change being read, once found
    _lone: rc.Read | None = None  # the read of that outline on the first ballot when it is the whole change
    change_outline: bool = True
    # the camera's exposure, as ``vision.exposure`` measures it on the first picture of the table and again whenever
    # the table is still and unchanged: every frame is brightened by it before anything is compared or read
    _gain: float | None = None
    _cast: tuple[float, float, float] = exposure.NO_CAST  # (and the light's colour cast taken out, measured with it)

    def feed(self, frame: np.ndarray | None) -> list[Event]:
        """One frame in (None when the camera gave nothing), the events it completes out."""
        self.frame_no += 1
        events: list[Event] = []
        if frame is None or frame.size == 0:
            if not self._lost:
                self._lost = True
                events.append(Event("camera_lost", self.frame_no, detail="no frame from the camera"))
            return events
        small = cv2.cvtColor(shrink(frame), cv2.COLOR_BGR2GRAY)
        if float(small.std()) < 3.0:  # a black or covered lens: nothing to see
            if not self._lost:
                self._lost = True
                events.append(Event("camera_lost", self.frame_no, detail="the picture is blank or covered"))
            return events
        if self._lost:
            self._lost = False
            events.append(Event("camera_back", self.frame_no))
        if self._gain is None:
            self._gain, self._cast = exposure.gain(frame), exposure.cast(frame)
        raw, raw_small, gain, colour = frame, small, self._gain, self._cast
        # a dim room: the recogniser's tests, and the change thresholds below, were set on card white near full scale
        # (the held-out decks' play videos at 0.45 of their levels: 41 of 48 plays read, 7 unsure). The small copy is
        # brightened every frame; the whole frame (2 ms) once, and only where it is looked at
        small = exposure.brighten(small, gain)
        lit: list[np.ndarray] = []

        def full() -> np.ndarray:
            if not lit:
                lit.append(exposure.adjusted(raw, gain, colour))
            return lit[0]

        if self.frame_no % 15 == 0:
            want = self.wanted_seats()
            if self.calibration is not None and want is not None and self.calibration.n_seats != want:
                self.calibration = None  # the game changed to another seat count: its mat must be found anew
            if self.calibration is None:
                events += self._calibrate(full(), first=True)
        prev, self._prev = self._prev, small
        if prev is None:
            self._background = small
            self._still_full = full()
            return events
        moving = int(np.count_nonzero(cv2.absdiff(small, prev) > 14)) > self.motion_px
        if moving:
            self._still = 0
            self._clear_ballots()
            return events
        self._still += 1
        if self._still < self.still_frames:
            return events
        assert self._background is not None
        changed_small = cv2.absdiff(small, self._background) > 22
        changed = int(np.count_nonzero(changed_small))
        if changed <= self.change_px and not self._ballots:
            self._since_check += 1
            if self.calibration is not None and self._since_check >= self.recheck_every:
                self._since_check = 0
                events += self._calibrate(full(), first=False)
                self._measure_light(raw, raw_small)
            return events
        frame = full()  # (the frame itself where the gain is 1)
        if not self.analyse:
            self._background = small
            return events
        if not self._ballots:
            self._roi = self._changed_roi(changed_small, frame.shape)
            self._lone = None
            if self.change_outline:
                self._new_quad = self._change_quad(frame)
                if self._new_quad is not None and self._explains(changed_small, self._new_quad, frame.shape):
                    self._lone = self._quad_read(frame, self._new_quad)
        ballot = self._ballot(frame)
        self._ballots.append(ballot)
        self._ballot_frames.append(frame)
        if self.debug:
            print(self.frame_no, [(r.label, r.code, round(r.margin, 2), round(r.whole, 2)) for r in self._ballots[-1]])
        if len(self._ballots) < self.votes:
            return events
        decided = self._decide(frame, changed_small)
        if decided is None:
            return events
        events += decided
        self._clear_ballots()
        self._background = small
        self._still_full = frame
        return events

    def _measure_light(self, raw: np.ndarray, raw_small: np.ndarray) -> None:
        """Measure the exposure again on a still, unchanged table (``raw``: the camera's frame, ``raw_small``: its
        small grey copy, neither brightened): where the light changed by a tenth or more (a lamp switched on), or its
        colour cast by a tenth (a warm lamp), the new gain and cast replace the old, and the table as it is now
        becomes the picture later frames are compared with, so that the change of light is not taken for a card."""
        assert self._gain is not None
        g, c = exposure.gain(raw), exposure.cast(raw)
        if abs(g - self._gain) < 0.1 * self._gain and max(abs(a - b) for a, b in zip(c, self._cast, strict=True)) < 0.1:
            return
        self._gain, self._cast = g, c
        self._background = self._prev = exposure.brighten(raw_small, g)
        self._still_full = exposure.adjusted(raw, g, c)

    def wanted_seats(self) -> int | None:
        """The game's seat count, if known."""
        return self.seats() if callable(self.seats) else self.seats

    def _calibrate(self, frame: np.ndarray, first: bool) -> list[Event]:
        try:
            cal = matlib.calibrate(frame, n_seats=self.wanted_seats())
        except matlib.MatMismatch as exc:
            self.calibration = None
            if str(exc) == self._mismatch:
                return []  # said once; the table is asked to change the mat, not told again every half second
            self._mismatch = str(exc)
            return [Event("mat_mismatch", self.frame_no, detail=str(exc))]
        except matlib.CalibrationError as exc:
            if first and self.frame_no == 0:
                return [Event("mat_missing", self.frame_no, detail=str(exc))]
            if not first:
                return [Event("camera_moved", self.frame_no, detail=f"the mat is no longer found: {exc}")]
            return []
        if self.calibration is not None:
            moved = self.calibration.moved(cal)
            if moved:
                self.calibration = cal
                return [Event("camera_moved", self.frame_no, detail=f"the mat moved {moved:.0f} px; recalibrated")]
            return []
        self.calibration = cal
        if self._mismatch:
            self._mismatch = ""
            return [Event("mat_found", self.frame_no, detail=f"the {cal.n_seats}-seat mat is in view")]
        return []

    def _seat_of(self, quad: np.ndarray) -> tuple[int | None, bool]:
        centre = quad.mean(axis=0)
        zone = self.calibration.zone_at((float(centre[0]), float(centre[1]))) if self.calibration else None
        if zone is not None and zone.seat is not None:
            return zone.seat, False
        return (self.turn() if self.turn else None), True

    def _changed_roi(self, changed_small: np.ndarray, shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
        """The part of the frame worth reading: where the table changed, grown by a card's length each way, plus
        the cards already tracked (to see them go)."""
        ys, xs = np.nonzero(changed_small)
        if len(xs) == 0:
            return None
        h, w = shape[:2]
        sx, sy = w / SMALL[0], h / SMALL[1]
        at = ((xs.min() + xs.max() + 1) * sx / 2, (ys.min() + ys.max() + 1) * sy / 2)
        pad = 1.1 * np.sqrt(self.calibration.card_area_px(at)) if self.calibration else 160
        x0, x1 = xs.min() * sx - pad, (xs.max() + 1) * sx + pad
        y0, y1 = ys.min() * sy - pad, (ys.max() + 1) * sy + pad
        for t in self._tracks:
            x0, y0 = min(x0, t.quad[:, 0].min() - 10), min(y0, t.quad[:, 1].min() - 10)
            x1, y1 = max(x1, t.quad[:, 0].max() + 10), max(y1, t.quad[:, 1].max() + 10)
        return (int(max(x0, 0)), int(max(y0, 0)), int(min(x1, w)), int(min(y1, h)))

    def _change_quad(self, frame: np.ndarray) -> np.ndarray | None:
        """The outline of the one card that changed since the last still table, or None (no such single card).

        Full-resolution difference with the last still frame inside the region of interest: a card laid on the felt
        or on other cards changes its whole outline (its cut edge reads even on a white card below). Its area must
        be one card's on this table (the calibration), and the outline a card's rectangle."""
        if self._still_full is None or self._roi is None or self.calibration is None:
            return None
        if self._still_full.shape != frame.shape:
            return None
        x0, y0, x1, y1 = self._roi
        b, g, r = cv2.split(cv2.absdiff(frame[y0:y1, x0:x1], self._still_full[y0:y1, x0:x1]))
        diff = cv2.max(cv2.max(b, g), r)  # the largest change of any colour (numpy's max over axis 2 is slow)
        # above the sensor noise and the soft drop shadow of a card on the felt; specks dropped. A card laid on a
        # white card changes in pieces (its print, its cut edge): the outline is the hull of all of them
        _, labels, stats, centres = cv2.connectedComponentsWithStats((diff > 45).astype(np.uint8), connectivity=8)
        keep = np.nonzero(stats[1:, cv2.CC_STAT_AREA] >= 30)[0] + 1
        if len(keep) == 0:
            return None
        # pieces farther from the biggest one than a card's diagonal are not of this card (noise at other edges)
        main = keep[np.argmax(stats[keep, cv2.CC_STAT_AREA])]
        # (a card's area where it landed: a camera seeing the mat at an angle sees the far seat's cards smaller)
        area = self.calibration.card_area_px((float(centres[main][0]) + x0, float(centres[main][1]) + y0))
        keep = keep[np.linalg.norm(centres[keep] - centres[main], axis=1) < 1.45 * np.sqrt(area)]
        chosen = np.zeros(len(stats), np.uint8)
        chosen[keep] = 255
        pts = cv2.findNonZero(chosen[labels])
        hull = cv2.convexHull(pts).reshape(-1, 2).astype(np.float32) + np.array([x0, y0], np.float32)
        if not 0.75 < cv2.contourArea(hull) / area < 1.3:
            return None
        # a card is a rectangle on the mat: the smallest rectangle round the change, fitted in mat coordinates
        # (the rounded corners lie inside it), then seen through the camera again
        rect = cv2.minAreaRect(self.calibration.to_mat(hull))
        quad = geometry.oriented(self.calibration.to_frame(cv2.boxPoints(rect)).astype(np.float32))
        # its shape judged on the mat, where a card is a card's rectangle: in the frame of a camera that sees the
        # mat at an angle, the far seat's card lying across is foreshortened to twice as long as wide (30 degrees)
        long, short = max(rect[1]), min(rect[1])
        if not 1.15 < long / max(short, 1.0) < 1.9 or not 0.75 < cv2.contourArea(quad) / area < 1.3:
            return None
        # the changed region must fill the card's rectangle, not be some other shape of about that area
        if cv2.contourArea(hull) < 0.9 * cv2.contourArea(quad):
            return None
        return quad

    def _ballot(self, frame: np.ndarray) -> list[rc.Read]:
        """This still frame's reads for the vote.

        When the whole change is one card's outline showing a face (``_lone``), nothing else on the table changed:
        the ballot is that outline read on this frame, and the finder is not run over the region (a pile and the
        cards watched cost it tens of milliseconds a frame, three frames a decision). Otherwise, or as soon as the
        outline no longer reads as a face, the recogniser reads the whole region on every ballot's frame."""
        if self._lone is not None and self._new_quad is not None:
            read = self._lone if not self._ballots else self._quad_read(frame, self._new_quad)
            if read is not None:
                return [read]
            # the outline stopped reading as a face: vote as without the shortcut, earlier frames read again
            self._lone = None
            self._ballots = [self._full_ballot(f) for f in self._ballot_frames]
        return self._full_ballot(frame)

    def _full_ballot(self, frame: np.ndarray) -> list[rc.Read]:
        ballot = self.recogniser.identify(frame, self.calibration, self._roi)
        if self.change_outline:
            # the card that just landed is read on the outline of what changed, not on an outline found in the
            # picture alone (on a pile, that one may take in a corner of the card below); one outline per
            # decision, read on every ballot's frame, so that the votes are of the same thing
            if self._new_quad is None:
                self._new_quad = self._change_quad(frame)
                if self._new_quad is not None:
                    self._ballots = [self._outlined(b, f) for b, f in zip(self._ballots, self._ballot_frames,
                                                                           strict=True)]
            ballot = self._outlined(ballot, frame)
        return ballot

    def _explains(self, changed_small: np.ndarray, quad: np.ndarray, shape: tuple[int, ...]) -> bool:
        """Whether every cell of the small change lies on the outline (grown by two cells for its shadow and the
        shrinking): then one card was laid and nothing else on the table moved, came or went."""
        sx, sy = SMALL[0] / shape[1], SMALL[1] / shape[0]
        poly = np.zeros(changed_small.shape, np.uint8)
        cv2.fillConvexPoly(poly, np.round(quad * np.array([sx, sy], np.float32)).astype(np.int32), 1)
        poly = cv2.dilate(poly, np.ones((5, 5), np.uint8))
        return int(np.count_nonzero(changed_small & (poly == 0))) == 0

    def _clear_ballots(self) -> None:
        self._ballots.clear()
        self._ballot_frames.clear()
        self._new_quad = None
        self._lone = None

    def _outlined(self, ballot: list[rc.Read], frame: np.ndarray) -> list[rc.Read]:
        """A ballot with the reads of the changed card replaced by its read on the change's outline.

        Where that outline shows no face by its rim or a sure read, but matches a face above ``rc.FACE_SCORE`` (its
        outline took in a sliver of the card's shadow), its unsure read is added only when the picture's own reads
        have nothing there: a paris ace of clubs laid on the pile, outlined so and found by no view, had been no
        card at all and its play missed; where a view did outline the card, its read stands (two cards read right
        there had turned unsure)."""
        if self._new_quad is None:
            return ballot
        read, shown = self._face_read(frame, self._new_quad)
        if read is None or (not shown and any(geometry.quad_iou(r.quad, read.quad) >= 0.5 for r in ballot)):
            return ballot
        return [r for r in ballot if geometry.quad_iou(r.quad, read.quad) < 0.5] + [read]

    def _quad_read(self, frame: np.ndarray, quad: np.ndarray, face_by_score: bool = False) -> rc.Read | None:
        """The card under ``quad`` read as the recogniser reads the cards it finds; None when it shows no card face
        (a card taken away leaves felt) or no face is read.

        A face shows by its pale margin; a face card whose picture runs nearly to the edge (paris's court cards)
        may lack one, and then only a read that passes the thresholds shows that a card lies there - or, with
        ``face_by_score``, a match above ``rc.FACE_SCORE``."""
        read, shown = self._face_read(frame, quad)
        return read if shown or face_by_score else None

    def _face_read(self, frame: np.ndarray, quad: np.ndarray) -> tuple[rc.Read | None, bool]:
        """``_quad_read`` with ``face_by_score``, and whether the face shows by its rim or a sure read (else only
        by a match above ``rc.FACE_SCORE``): the card is read once for both uses."""
        x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - 2, 0)
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 3
        pale = regions.rim_pale(regions.card_mask(frame[y0:y1, x0:x1]), quad - np.array([x0, y0], np.float32)) >= 0.6
        rec = self.recogniser
        label, score, margin = rec.read_card(geometry.rectify_for_reading(frame, quad))
        if label == "back":
            return None, False  # a face-down card: left to the reads of the whole picture
        if label == "?":
            # the generic reader saw no index on it: a face laid there (its pale margin) is a card the camera cannot
            # name - a joker, which the generic mode never names, or a design unlike any it knows - and is played
            # unsure (returning nothing here, a joker played at a Bid Whist table had gone unseen)
            return (rc.Read(None, label, 0.0, 0.0, quad, whole=1.0) if pale else None), pale
        joker = label in ("BJ", "LJ")
        ok = rec.threshold.accept(score, margin)
        if not pale and not ok and not score > rc.FACE_SCORE:
            return None, False
        code = label if ok and not (joker and not rec.templates.jokers_distinct) else None
        return rc.Read(code, label, score, margin, quad, joker and (ok or score > 0.6), whole=1.0), pale or ok

    def _covered_by_card(self, mask: np.ndarray, quad: np.ndarray) -> float:
        poly = np.zeros(mask.shape, np.uint8)
        cv2.fillConvexPoly(poly, quad.astype(np.int32), 1)
        n = int(poly.sum())
        return float(np.count_nonzero(mask[poly > 0])) / n if n else 0.0

    def _decide(self, frame: np.ndarray, changed_small: np.ndarray) -> list[Event] | None:
        """Events from the ballots, or None to wait for another still frame (a card seen only once so far)."""
        events: list[Event] = []
        h, w = frame.shape[:2]
        changed = cv2.resize(cv2.dilate(changed_small.astype(np.uint8), np.ones((3, 3), np.uint8)), (w, h),
                             interpolation=cv2.INTER_NEAREST)
        # cluster the reads of all ballots by outline: one cluster per card on the table
        clusters: list[list[rc.Read]] = []
        for ballot in self._ballots:
            for r in ballot:
                if r.face_down:
                    continue
                for cl in clusters:
                    if geometry.quad_iou(cl[0].quad, r.quad) > 0.8:
                        cl.append(r)
                        break
                else:
                    clusters.append([r])
        # a card is gone when the table shows where it lay; one merely covered by a newer card is still there
        unseen = [t for t in self._tracks if not any(geometry.quad_iou(t.quad, cl[0].quad) > 0.7 for cl in clusters)]
        gone: list[_Track] = []
        if unseen and self._lone is None:  # with a lone card laid, nothing else changed: nothing went
            card_px = np.zeros((h, w), np.uint8)
            x0, y0, x1, y1 = self._roi if self._roi is not None else (0, 0, w, h)
            card_px[y0:y1, x0:x1] = regions.card_mask(frame[y0:y1, x0:x1])
            gone = [t for t in unseen if self._covered_by_card(card_px, t.quad) < 0.35]
        new = []
        for cl in clusters:
            r = cl[-1]
            # the same outline with the same best guess is a card already known; a different guess on the same spot
            # is a new card laid squarely on it
            on_track = [t for t in self._tracks if geometry.quad_iou(t.quad, r.quad) > 0.7]
            if any(t.label == r.label for t in on_track):
                continue
            if on_track and all(x.code is None for x in cl) and not (
                    self._new_quad is not None and geometry.quad_iou(self._new_quad, r.quad) > 0.7):
                # an unsure guess on a known card's spot, where no single card's change was outlined, is that card
                # seen worse, not a new one: the camera shaken or refocusing blurs the whole table, and an unread
                # joker (label '?') and a nine of spades were guessed AH and TS on blurred frames and played twice,
                # unsure, at seats that had played (a generic camera, drawn bellot, seed 5). A card laid squarely on
                # another changes that card's outline, which is then outlined
                continue
            if self._covered_by_card(changed, r.quad) < 0.5:
                continue  # not where the table changed: an old card seen anew (e.g. uncovered), not a play
            new.append(cl)
        if any(len(cl) < 2 for cl in new) and len(self._ballots) < self.max_ballots:
            return None
        if self._tracks and len(gone) == len(self._tracks):
            events.append(Event("trick_gathered", self.frame_no, detail=f"{len(gone)} cards left the table"))
        self._tracks = [t for t in self._tracks if t not in gone]
        for cl in new:
            r = max(cl, key=lambda x: x.whole)
            codes = [x.code for x in cl]
            seat, centre = self._seat_of(r.quad)
            corners = [[round(float(x), 1), round(float(y), 1)] for x, y in r.quad]
            code = codes[0] if len(cl) >= 2 and all(c == codes[0] for c in codes) else None
            if code is not None and self.check is not None and not self.check(seat, code):
                events.append(Event("unsure_card", self.frame_no, seat, None, r.confidence, corners,
                                    f"read {code} but the game says seat {seat} cannot hold it"))
            elif code is not None:
                events.append(Event("card_played", self.frame_no, seat, code, r.confidence, corners))
            elif r.whole > 0.9 or r.joker:
                events.append(Event("unsure_card", self.frame_no, seat, None, r.confidence, corners,
                                    _unsure_why(r, cl)))
            else:
                continue  # a covered edge of a card below: not a new card
            self._tracks.append(_Track(r.quad, code, seat, centre, r.label))
        return events


def _unsure_why(r: rc.Read, cluster: list[rc.Read]) -> str:
    """What the director is told of a new card left unsure, read as ``cluster`` on the ballots' frames (``r`` the
    one reported)."""
    if r.joker:
        return "a joker, unsure which"
    if all(x.label == "?" for x in cluster):
        return "no index read on this face (a joker, or a design the camera does not know)"
    return f"reads {[str(x.label) for x in cluster]}"


def open_stream(source: str) -> object:
    """A camera index ("0"), a video file or a folder of frames, as an iterator of BGR frames (None = no frame)."""
    import os

    if os.path.isdir(source):
        names = sorted(n for n in os.listdir(source) if n.lower().endswith((".png", ".jpg", ".jpeg", ".bmp")))
        return (cv2.imread(os.path.join(source, n), cv2.IMREAD_COLOR) for n in names)
    cap = cv2.VideoCapture(int(source) if source.isdigit() else source)
    if not cap.isOpened():
        raise OSError(f"cannot open the video source {source!r}")

    def frames() -> object:
        misses = 0
        while True:
            ok, f = cap.read()
            if not ok:
                misses += 1
                if not source.isdigit() or misses > 30:
                    return
                yield None
                continue
            misses = 0
            yield f

    return frames()
