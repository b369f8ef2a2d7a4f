"""Reading the cards in a frame, with an enrolled deck or in the generic mode (``Recogniser.identify``).

The cards are found by ``vision.finder`` (outlines: ``vision.geometry.Quad``) and each is rectified upright, read in
both its 0 and 180 degree orientations (``vision.geometry``). The enrolled mode compares the whole face and the corner
index with the deck's templates (``vision.features``, ``vision.deck``) by normalised cross-correlation; the generic
mode reads the corner index with the learned corner network (``vision.index_net``), the pip count or the other corner
as its second cue, and falls back to the glyph reader (``vision.glyphs``) where the network sees no index. A read is
accepted only when its score and its margin clear thresholds measured on the tuning decks (``vision/thresholds.json``,
``vision/index_net.json``); the rules that look again (other outlines of the card, the card relit or in shade:
``vision.shade``) or that leave a read unsure (the network's veto of an enrolled read, suits the deck's own cards
showed the network misnames) are each described where they act. Anything not accepted is reported unsure, with its
best guess.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from vision import exposure, index_net, partner, pips, resample, threads
from vision import glyphs as glyphlib
from vision.features import (
    Thresholds,
    aligned_face,
    card_features,
    discriminant,
    joker_feature,
    load_thresholds,
)
from vision.finder import find_cards
from vision.geometry import (
    CARD_ASPECT,
    NEXT_CORNER,
    Quad,
    corner_cut,
    focal_prior,
    plane_aspect,
    quad_iou,
    reading_cut,
    row_lengths,
)
from vision.net_outlines import NET_RIM_CONTRAST, SEEN_FACE
from vision.regions import card_sized, held_inside, overlaps_any, part_of_card, rim_contrast
from vision.shade import extended_into_shade, relit_around, shade_lifted

FIND_SIDE = 1280  # longest side (pixels) of the image the finder searches; larger frames are shrunk to it
# cards found whole whose median short side (in the finder's picture) is under SMALL_CARD_SIDE pixels are looked for
# again in the picture enlarged until it is FIND_CARD_SIDE: the finder's kernels, Canny's blur and its size limits
# are in pixels, and a webcam's view of a whole table gives cards of 40-55 px. The enlarging stops at
# MAX_FIND_UPSCALE times the frame's own pixels (and so at that many times FIND_SIDE): at twice, a webcam's noise and
# JPEG blocks, enlarged too, cut a pale table's faint card edges apart (poker_table's train_06, 10 and 27 at 800 px:
# 12 / 10 / 9 outlines at 1.6 times with noise, 8 / 6 / 7 at twice; with JPEG 11 / 5 / 6 against 6 / 3 / 5).
# poker_table shrunk to 640 px found / read 169 / 88 -> 214 / 137, at 800 px 192 / 121 -> 208 / 152, as the
# webcam alteration of ``tools.photo_bench`` leaves it 180 / 101 -> 189 / 123 (at full size 221 / 165, unchanged:
# its cards are 85 px in the finder's picture). A card target of 80 or 96 px found fewer at 800 px. The bar was 64 px
# until session 43: cards of 64-73 px, looked for once, had the pairs of a pale table found as one card or not at
# all (poker_table at 960 px 209 / 169 found / read, at 1040 214 / 176; looked for again, 225 / 196 and 228 / 198).
# It is now where the second look enlarges by MIN_FIND_UPSCALE at least: a smaller enlargement sees what the first
# look saw, and what it changes is noise (a bar of 80 px took train_10 under a warm cast, its cards at 79.7 px, 1.1
# times: two cards fewer; boxes_test's photos 111 -> 109 found)
FIND_CARD_SIDE = 88.0
MIN_FIND_UPSCALE = 1.2
SMALL_CARD_SIDE = FIND_CARD_SIDE / MIN_FIND_UPSCALE
MAX_FIND_UPSCALE = 1.6
# a small frame (at most FIND_SIDE / SMALL_FRAME_UPSCALE on its longer side) in which nothing whole was found is
# looked at again enlarged SMALL_FRAME_UPSCALE times, and the outlines found whole there where the first look found
# nothing are added: a card seen small and obliquely in a webcam's or a small photo's frame comes out of the finder's
# pale views in pieces (a king's picture cuts its pale region apart, the closed mask leaves its colours out), and no
# card found whole gives the size that the second look above enlarges to. boxes_train's 504 x 378 photos seen by a
# camera tilted 30 degrees (``tools.photo_bench --alter tilt30``): a king of spades alone on dark wood, 85 px across
# (IMG_2464), and two more found and read (whole 268 / 251 -> 271 / 254 of 288); 1.6 times found one of the three.
# Every other alteration of the boxes and desk sets: the same or one more, none wrong
SMALL_FRAME_LOOK = True
SMALL_FRAME_UPSCALE = 2.0
CROSS_CHECK_P = 0.9  # the corner-index network's probability (both corners) that vetoes an enrolled read


@dataclass
class Read:
    """One card found in a frame. ``code`` is None when unsure; ``label`` is the best guess even then."""

    code: str | None
    label: str
    confidence: float
    margin: float
    quad: np.ndarray
    joker: bool = False
    face_down: bool = False
    whole: float = 1.0

    def to_json(self) -> dict:
        d: dict = {
            "code": self.code,
            "confidence": round(float(self.confidence), 3),
            "margin": round(float(self.margin), 3),
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad],
        }
        if self.code is None:
            d["guess"] = self.label
        if self.joker:
            d["joker"] = True
        if self.face_down:
            d["face_down"] = True
        return d


def _template_vector(tpl: Templates, i: int, use_face: bool) -> np.ndarray:
    """Template ``i`` as ``match`` weighs it against a card: face and corner index at equal weight, or the corner
    alone."""
    if use_face:
        return np.concatenate([np.sqrt(0.5) * tpl.face[i], np.sqrt(0.5) * _unit(tpl.corner[i])])
    return _unit(tpl.corner[i])




@dataclass
class Templates:
    """Reference features: labels[i] has face[i] and corner[i] (both (D,)); ``back`` is a label too. ``joker``: the
    big and the little joker's ``joker_feature`` (2, D), which tells them apart, or None (no jokers, or a deck file
    enrolled before it: the templates alone tell them apart)."""

    labels: list[str]
    face: np.ndarray
    corner: np.ndarray
    jokers_distinct: bool = True
    meta: dict = field(default_factory=dict)
    joker: np.ndarray | None = None
    index_trusted: bool = True  # the corner network reads this deck's own cards (``vision.deck.index_test``)
    # the ranks the corner network gave to this deck's cards of another rank at enrollment (a German jack's B read
    # as a K): the enrolled mode never takes the network's word for a card of these ranks (``Recogniser._read``)
    index_misnames: str = ""
    # the suits it gave to this deck's cards of another suit there (None: not measured, a deck file enrolled before
    # that test): the enrolled mode never leaves those suits to the network (``Recogniser._rank_by_templates``)
    index_suit_misnames: str | None = None
    # the top corner whose region the corner templates hold (``INDEX_SIDES``; ``vision.deck.index_side``)
    index_side: str = "left"
    # a club's third notch tells this deck's black number cards apart (``vision.deck.notches_tell_black``)
    notches_tell_black: bool = False
    # per rank of the deck's cards, the ranks the network gave them at enrollment; None: not measured, a deck file
    # enrolled before (``Recogniser._rank_read_otherwise`` then excuses every rank of ``index_misnames``)
    index_rank_pairs: dict[str, str] | None = None
    # each card in grey at the partner test's size (``vision.partner.grey``; (N, h, w) uint8), or None: a deck file
    # enrolled before that test, which then asks none (``Recogniser._partner_fits_better``)
    partner: np.ndarray | None = None

    @functools.cached_property
    def partner_pairs(self) -> dict[str, tuple[np.ndarray, np.ndarray, tuple[tuple[int, int], ...]]]:
        """Per card with a partner among the templates (``vision.partner.partner_of``): its picture, its partner's
        (``vision.partner.picture`` of ``partner``) and the pieces where the two differ (``vision.partner.pieces``),
        made once; empty for a deck file without the grey copies."""
        if self.partner is None:
            return {}
        pics = {lab: partner.picture(g) for lab, g in zip(self.labels, self.partner, strict=True)}
        pairs = {}
        for lab, a in pics.items():
            other = partner.partner_of(lab)
            if other in pics:
                pairs[lab] = (a, pics[other], partner.pieces(a, pics[other]))
        return pairs

    @functools.cached_property
    def corner_units(self) -> tuple[np.ndarray, np.ndarray]:
        """The corner templates as ``_corner_search`` weighs them, made once per deck: each (N, C h w, channels
        first) with its channels' means removed, at unit length; and which templates are flat (no ink)."""
        t = self.corner.astype(np.float64)
        t = t - t.mean(axis=(1, 2), keepdims=True)
        t = t.transpose(0, 3, 1, 2).reshape(len(t), -1)
        norm = np.linalg.norm(t, axis=1)
        flat = norm < np.finfo(np.float32).eps
        return (t / np.where(flat, 1.0, norm)[:, None]).astype(np.float32), flat


def _window_sums(integral: np.ndarray, h: int, w: int) -> np.ndarray:
    """Per window of h x w (row by row) of the image whose integral image (H + 1, W + 1, C) this is: its sum per
    channel (windows, C)."""
    i = integral
    return (i[h:, w:] - i[:-h, w:] - i[h:, :-w] + i[:-h, :-w]).reshape(-1, i.shape[2])


def _corner_search(queries: list[np.ndarray], tpl: Templates, todo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.matchTemplate``'s normalised correlation (``TM_CCOEFF_NORMED``) of each template in ``todo`` within each
    corner query, best over the small shifts the query allows: (best score (Q, T), its place x, y (Q, T, 2)). All
    templates at once, as one product of the query's shifted windows with the templates: the numerator needs no
    window mean (each template's is removed), the windows' spread comes from integral images. It gives
    ``matchTemplate``'s scores to 1e-6 and its places, in a quarter of the time of one call per template (the
    enrolled mode's reading had spent two thirds of its time there). As in ``matchTemplate``, a flat template (no
    ink) scores 1 everywhere and a flat window 0."""
    units, flat = tpl.corner_units
    h, w = tpl.corner.shape[1:3]
    sel = units[todo]
    scores = np.empty((len(queries), len(todo)), np.float32)
    places = np.zeros((len(queries), len(todo), 2), np.int32)
    for k, q in enumerate(queries):
        py, px = q.shape[0] - h + 1, q.shape[1] - w + 1
        win = sliding_window_view(np.ascontiguousarray(q.transpose(2, 0, 1)), (h, w), axis=(1, 2))
        num = np.ascontiguousarray(win.transpose(1, 2, 0, 3, 4)).reshape(py * px, -1) @ sel.T
        s1, s2 = (_window_sums(i, h, w) for i in cv2.integral2(q, sdepth=cv2.CV_64F)[:2])
        spread = np.sqrt(np.maximum((s2 - s1 ** 2 / (h * w)).sum(axis=1), 0.0))
        corr = np.where(spread[:, None] > 0, num / np.maximum(spread, 1e-12)[:, None], 0.0)
        best = corr.argmax(axis=0)
        scores[k] = corr[best, np.arange(len(todo))]
        places[k, :, 0], places[k, :, 1] = best % px, best // px
    scores[:, flat[todo]] = 1.0
    places[:, flat[todo]] = 0
    return scores, places


def _scores(tpl: Templates, face: np.ndarray, corner: list[np.ndarray], use_face: bool) -> np.ndarray:
    """Per-template score: max over the two orientations of the (face + corner) correlation."""
    return _score_table(tpl, face, corner, use_face)[0].max(axis=0)


def _score_table(tpl: Templates, face: np.ndarray, corner: list[np.ndarray], use_face: bool,
                 shortlist: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Scores (2 orientations, N templates) and the corner match locations (2, N, 2).

    With ``shortlist`` (and faces) only the templates whose face correlates best get the costlier corner search;
    the others keep a score of -1.
    """
    n = len(tpl.labels)
    c = np.full((2, n), -1.0, np.float32)
    loc = np.zeros((2, n, 2), np.int32)
    f = face @ tpl.face.T if use_face else None
    todo = np.arange(n)
    if f is not None and shortlist and n > shortlist:
        todo = np.argsort(-f.max(axis=0))[:shortlist]
    c[:, todo], loc[:, todo] = _corner_search(corner, tpl, todo)
    if f is not None:
        s = 0.5 * f + 0.5 * c
        if shortlist and n > shortlist:
            s[c < -0.5] = -1.0
        return s, loc
    return c, loc


def _unit(v: np.ndarray) -> np.ndarray:
    v = v.ravel().astype(np.float32)
    v = v - v.mean()
    return v / max(float(np.linalg.norm(v)), 1e-6)


def match(tpl: Templates, card: np.ndarray, use_face: bool, same: dict[str, str] | None = None,
          rivals: int = 6, nearest: list[str] | None = None,
          by_rival: dict[str, float] | None = None) -> tuple[str, float, float]:
    """(best label, its score, its margin) for a rectified card; ``nearest``, if given, receives the labels of the
    ``MATCH_NEAREST`` best-matching templates, best first; ``by_rival`` each close rival's discriminant (the margin
    is the smallest of them; where ``ALIGNED_MARGIN`` asks, each is the smaller of the discriminants of the face as
    cut and moved to fit the best template).

    The margin is a discriminant, not a score difference: for the best template A and each close rival B,
    ``2 (x - (A+B)/2).(A-B) / |A-B|^2`` along the pixels where A and B differ (1 = exactly A, 0 = halfway, < 0 =
    nearer B); the reported margin is the smallest over the rivals. A 5 of spades and a 5 of clubs correlate almost
    equally with either template, yet their difference is decided by the pips, which is what this measures.

    Where the templates hold the jokers' colour features (``Templates.joker``), the two jokers are one class for the
    margin against the other cards, and which joker it is is decided by the same discriminant on ``joker_feature``
    (the ink's colour on paper made white). The templates' own margin between the two jokers counts too, but only
    when it names the same joker: then the larger margin is the joker's. Under a camera's colour cast (each channel
    within 15 %) the templates named the wrong joker at the acceptance margin 6 times in 1,343 drawn camera views
    of 29 designs (aisleriot's and the drawn decks'), the colour in none of its 1,441; where they agree, the
    templates add reads the colour alone leaves unsure (gnomangelo_bitmap 46 -> 50 of 50). (A one-off check, its
    script in the session 13 notes; ``tests/vision/test_jokers.py`` reads both jokers under warm and cool light.)
    """
    same = same or {}
    if tpl.joker is not None:
        same = {**same, "BJ": "joker", "LJ": "joker"}
    face, corner = card_features(card, tpl.index_side)
    table, loc = _score_table(tpl, face, corner, use_face, shortlist=14)
    best_o = table.argmax(axis=0)
    scores = table.max(axis=0)
    order = np.argsort(-scores)
    top = int(order[0])
    label = tpl.labels[top]
    key = same.get(label, label)
    if nearest is not None:
        nearest.extend(tpl.labels[int(i)] for i in order[:MATCH_NEAREST])
    o = int(best_o[top])
    h, w = tpl.corner.shape[1:3]
    x, y = loc[o, top]
    patch = _unit(corner[o][y : y + h, x : x + w])
    wf = np.sqrt(0.5) if use_face else 0.0
    wc = np.sqrt(0.5) if use_face else 1.0
    qv = np.concatenate([wf * face[o], wc * patch])
    a = _template_vector(tpl, top, use_face)
    if not use_face:
        qv = wc * patch
    margin = 1.0
    seen: set[str] = {key}
    rival: dict[str, np.ndarray] = {}
    for i in order[1:]:
        lab = same.get(tpl.labels[i], tpl.labels[i])
        if lab in seen:
            continue
        seen.add(lab)
        rival[lab] = _template_vector(tpl, i, use_face)
        d = discriminant(qv, a, rival[lab])
        margin = min(margin, d)
        if by_rival is not None:
            by_rival[lab] = d
        if len(seen) > rivals:
            break
    if ALIGNED_MARGIN and use_face and scores[top] >= ALIGN_FROM and margin >= ALIGN_MARGIN_FROM:
        # the face moved to where it fits the named template best (``ALIGNED_MARGIN``)
        moved = np.concatenate([wf * aligned_face(card if o == 0 else cv2.rotate(card, cv2.ROTATE_180),
                                                  tpl.face[top]), qv[len(face[o]):]])
        for lab, b in rival.items():
            d = discriminant(moved, a, b)
            margin = min(margin, d)
            if by_rival is not None:
                by_rival[lab] = min(by_rival[lab], d)
    if tpl.joker is not None and key == "joker":
        by_colour = discriminant(joker_feature(card if o == 0 else cv2.rotate(card, cv2.ROTATE_180)),
                                  tpl.joker[0], tpl.joker[1])  # > 0: the big joker
        other = _template_vector(tpl, tpl.labels.index("LJ" if label == "BJ" else "BJ"), use_face)
        by_templates = discriminant(qv, a, other)  # > 0: ``label``
        if (by_colour >= 0) != (label == "BJ"):
            label, by_templates = ("BJ" if by_colour >= 0 else "LJ"), -by_templates
        margin = min(margin, max(abs(by_colour), by_templates))
    return label, float(scores[top]), margin


class EnrolledDeck(Protocol):
    """What reading needs of an enrolled deck (``vision.deck.Deck``, which imports this module): its templates."""

    templates: Templates


# a card's cut for reading (``reading_cut``: the card, its larger cut or None) and the corner network's reading of it,
# made for all of a frame's outlines at once (``Recogniser._first_cuts``)
_FirstCut = tuple[tuple[np.ndarray, np.ndarray | None], index_net.IndexRead]


class Recogniser:
    """Reads the cards in a frame with an enrolled deck (``Deck``) or, given None, in the generic mode."""

    def __init__(self, deck: EnrolledDeck | None = None, thresholds: dict[str, Thresholds] | None = None,
                 templates: Templates | None = None, glyph_templates: glyphlib.GlyphTemplates | None = None,
                 learned_index: bool = True) -> None:
        threads.one_blas_thread()  # (``vision.threads``: the readers' products are small, a BLAS pool only spins)
        th = thresholds or load_thresholds()
        self.glyphs: glyphlib.GlyphTemplates | None = None
        if deck is None:
            # generic mode reads the corner index glyph by glyph (``vision.glyphs``); it never names a joker
            self.glyphs = glyph_templates if glyph_templates is not None else glyphlib.GlyphTemplates.load()
            self.templates = Templates([], np.zeros((0, 1), np.float32), np.zeros((0, 1, 1, 2), np.float32),
                                       jokers_distinct=False)
            self.mode = "generic"
        else:
            self.templates = deck.templates
            self.mode = "enrolled"
        self.threshold = th[self.mode]
        # the partner test's scores by (label, card as cut): a card read first from its own outline is not tested
        # again at the last word on it (``_identify``), nor by the rescue and the veto that ask of the same cut; a
        # pure function's cache, so shared use is harmless
        self._partner_memo: dict[tuple[str, tuple[int, ...], int], float | None] = {}
        self.pip_thresholds = {s: th[f"generic_pips_{s}"] for s in "SHDC"}
        self.use_face = self.mode == "enrolled"
        # generic mode reads the corner index with the learned network when its model is there (and not switched off
        # with ``learned_index=False``, to compare with the glyph reader)
        # (and the enrolled mode with it, where its templates are unsure: ``_read``)
        self.net_thresholds = (index_net.load_thresholds() if learned_index
                               and os.path.exists(index_net.MODEL_PATH) else None)
        # when the jokers look alike, both are one class for the margin: "a joker" can be sure while "which" is not
        self.same = {} if self.templates.jokers_distinct else {"BJ": "joker", "LJ": "joker"}
        # the enrolled mode's reads are checked against the learned corner index (``cross_check``)
        # - unless enrollment found the network misreading the deck's own cards (suit signs of another pattern):
        # then its veto would make a right read unsure, and its fallback read could only be wrong
        self.cross_check = (deck is not None and learned_index and os.path.exists(index_net.MODEL_PATH)
                            and self.templates.index_trusted)
        # where the templates are unsure, the enrolled mode takes what the generic learned reader names (``_read``)
        self.falls_back = self.cross_check and self.net_thresholds is not None

    def read_card(self, card: np.ndarray) -> tuple[str, float, float]:
        """(best label, score, margin) of a rectified card; in generic mode the label may be '?' (nothing read)."""
        label, score, margin, _ = self.read_and_accept(card)
        return label, score, margin

    def read_and_accept(self, card: np.ndarray, big: np.ndarray | None = None) -> tuple[str, float, float, bool]:
        """``read_card`` and whether the read clears this mode's thresholds (in generic mode those of the path that
        read it: the pip reader's per named suit, or the corner-index reader's). ``big``: the card rectified at
        twice the size, when the frame has the pixels (the generic reader reads the corner index from it)."""
        return self._read(card, big)[:4]

    def _read(self, card: np.ndarray, big: np.ndarray | None,
              as_generic: Callable[[], tuple[np.ndarray, np.ndarray | None]] | None = None,
              ir: index_net.IndexRead | None = None, whole: float = 1.0
              ) -> tuple[str, float, float, bool, index_net.NetRead | None]:
        """``read_and_accept``, and the learned reader's answer when it was the one that read the card.
        ``as_generic``: the card and its larger cut as the generic mode rectifies them (the enrolled mode's
        fallback reads those, so that it reads what the generic mode reads). ``ir``: the generic mode's corner
        reading of this card, when already made (``_first_cuts``). ``whole``: the finder's wholeness of the outline
        (``Quad.whole``; under ``PARTLY_COVERED`` a pip count names no number card its corner does not read:
        ``_count_covered``, ``glyphs.GenericRead.ranked``)."""
        n = None
        if self.glyphs is not None and self.net_thresholds is not None:
            # the learned corner index (``vision.index_net``), the pip count or the other corner as second cue
            n = index_net.read_generic(card, big, ir=ir)
            if n.path != "none":
                ok = index_net.accepts(n, self.net_thresholds) and not _count_covered(n, whole)
                return n.label, n.score, n.score, ok, n
            # the network sees no index in either corner: a design unlike any it was trained on (the held-out
            # ornamental and tango) - the glyph reader, with its own thresholds, rather than nothing
        if self.glyphs is not None:
            g = glyphlib.read_generic(card, self.glyphs, big)
            th = self.pip_thresholds.get(g.label[-1], self.threshold) if g.path == "pips" else self.threshold
            ok = th.accept(g.score, g.margin) and g.score > 0
            if ok and g.path == "pips" and whole < PARTLY_COVERED and COVERED_OUTLINE_COUNT:
                ok = g.ranked  # (``PARTLY_COVERED``: a corner must read the count itself)
            if ok and n is not None and n.index is not None:
                # the network leans to the other suit of the pair (``index_net.corners_lean_from``), or sees beside
                # the suit a letter it does not know where a court was named (``index_net.letter_unknown``), or
                # the card is blurred and its pips keep a club's cue against a spade (``index_net.glyph_pips_refuse``)
                ok = not (index_net.corners_lean_from(n.index, g.label[1:])
                          or (g.label[0] in "JQK" and index_net.letter_unknown(n.index))
                          or (GLYPH_BLURRED_BLACK and index_net.glyph_pips_refuse(g.label, g.pips, n.index)))
            return g.label, g.score, g.margin, ok, None
        label, score, margin, ok, n = self._read_enrolled(card, big, as_generic)
        if ok and self._pips_deny_match(label, card, n):
            return label, score, margin, False, None
        if ok and PARTNER_CHECK and self._partner_fits_better(label, card):
            # (refused here, the card's other outlines are read in turn: ``_read_found``)
            return label, score, margin, False, None
        return label, score, margin, ok, n

    def _pips_deny_match(self, label: str, card: np.ndarray, n: index_net.NetRead | None) -> bool:
        """Whether the pips of ``card`` deny the suit of the enrolled read ``label`` (``n``: the generic reader's
        answer where it made the read, which asked the pips itself): a spade whose pips show a club's leaves
        (``_club_notched``), a club whose pips show none and a spade's shape (``_club_plain``), an ace matched by the
        templates whose pip denies its suit by shape and notches (``ENROLLED_ACE_PIP_UNSURE``), a red number card
        matched by the templates whose red pips name the other red suit by shape (``ENROLLED_RED_PIPS_UNSURE``)."""
        if NOTCHED_SPADES_UNSURE and self._club_notched(label, card):
            return True
        if PLAIN_CLUBS_UNSURE and self._club_plain(label, card):
            return True
        if n is not None or not _standard_card(label):
            return False
        if ENROLLED_RED_PIPS_UNSURE and label[1] in "HD" and label[0] in pips.NUMBER_RANKS:
            return _pips_deny(card, label, yellow=False)
        return ENROLLED_ACE_PIP_UNSURE and label[0] == "A" and _pips_deny(card, label)

    def partner_score(self, label: str, card: np.ndarray) -> float | None:
        """The partner test's score (``vision.partner.partner_score``) of the card ``card`` (as cut) read as
        ``label``, against the same rank in the other suit of its colour; None where the deck file has no grey
        copies or ``label`` no partner among the templates."""
        pair = self.templates.partner_pairs.get(label)
        return None if pair is None else partner.partner_score(partner.picture(card), *pair)

    def _partner_fits_better(self, label: str, card: np.ndarray) -> bool:
        """Whether the enrolled read ``label`` fails the partner test: compared piece by piece with the same rank in
        the other suit of its colour, the card meets the partner's pieces as well as or better than its own
        (``partner_score`` at most ``PARTNER_MIN``). Not asked where there is no score."""
        score = self._partner_score_once(label, card)
        return score is not None and score <= PARTNER_MIN

    def _partner_score_once(self, label: str, card: np.ndarray) -> float | None:
        """``partner_score``, remembered by (label, cut): the last word in ``_identify`` and the rescue of a match
        short of its margin against the partner alone (``_partner_rescues``) ask again what ``_read`` asked."""
        if label not in self.templates.partner_pairs:
            return None
        key = (label, card.shape, hash(card.tobytes()))
        if key not in self._partner_memo:
            if len(self._partner_memo) > 256:
                self._partner_memo.clear()
            self._partner_memo[key] = self.partner_score(label, card)
        return self._partner_memo[key]

    def _partner_rescues(self, label: str, score: float, by_rival: dict[str, float], card: np.ndarray) -> bool:
        """Whether the templates' best match ``label``, past the score bar and past the margin against every rival but
        its partner (the same rank in the other suit of its colour), is named by the partner test instead of that
        margin (``PARTNER_RESCUE``): the templates lean to ``label`` (a discriminant of 0 or more) and the test gives
        it ``PARTNER_RESCUE_MIN`` or more."""
        if not (PARTNER_RESCUE and PARTNER_CHECK):
            return False
        mate = self.short_against_partner_only(label, score, by_rival)
        if mate is None or by_rival[mate] < 0.0:
            return False
        s = self._partner_score_once(label, card)
        return s is not None and s >= PARTNER_RESCUE_MIN

    def short_against_partner_only(self, label: str, score: float, by_rival: dict[str, float]) -> str | None:
        """The partner of the templates' best match ``label`` (``match``'s score and discriminants against each rival)
        where the match clears the score bar and the margin against every rival but that partner, and falls short of
        the margin against it; else None. The matches the partner rescue is asked of (``_partner_rescues``, which
        also asks the templates to lean to ``label``) and ``tools.partner_scores --rescue`` measures."""
        mate = partner.partner_of(label) if _standard_card(label) else None
        if mate is None or score < self.threshold.score or by_rival.get(mate, 1.0) >= self.threshold.margin:
            return None
        if any(d < self.threshold.margin for k, d in by_rival.items() if k != mate):
            return None
        return mate

    def _club_notched(self, label: str, card: np.ndarray) -> bool:
        """Whether ``label`` is a spade number card and most of the card's pips show a club's third notch, on a deck
        whose own cards that notch tells apart (``Templates.notches_tell_black``; ``NOTCHED_SPADES_UNSURE``)."""
        if not (self.templates.notches_tell_black and label[1:] == "S" and label[0] in pips.NUMBER_RANKS):
            return False
        share = pips.club_notched_share(card)
        return share is not None and share >= CLUB_NOTCHED_SHARE

    def _club_plain(self, label: str, card: np.ndarray) -> bool:
        """Whether ``label`` is a club number card whose pips show no club's third notch and by their shape name the
        spade (``index_net.pips_refuse``), on a deck whose own cards that notch tells apart
        (``Templates.notches_tell_black``; ``PLAIN_CLUBS_UNSURE``): ``_club_notched``'s mirror."""
        if not (self.templates.notches_tell_black and label[1:] == "C" and label[0] in pips.NUMBER_RANKS):
            return False
        p = pips.read_pips(card)[0]
        return isinstance(p, pips.Pips) and p.club_notched == 0.0 and index_net.pips_refuse(p, "C")

    def _read_enrolled(self, card: np.ndarray, big: np.ndarray | None,
                       as_generic: Callable[[], tuple[np.ndarray, np.ndarray | None]] | None
                       ) -> tuple[str, float, float, bool, index_net.NetRead | None]:
        """``_read`` with an enrolled deck: its templates, the network's veto, and the readers that speak where the
        templates are unsure."""
        nearest: list[str] = []
        by_rival: dict[str, float] = {}
        label, score, margin = match(self.templates, card, self.use_face, self.same, nearest=nearest,
                                     by_rival=by_rival)
        ok = self.threshold.accept(score, margin) or self._partner_rescues(label, score, by_rival, card)
        vetoed = ok and self.cross_check and self.contradicted(label, card if big is None else big)
        if vetoed:
            ok = False
        agreeable = (not vetoed and score >= AGREE_SCORE and margin >= AGREE_MARGIN and len(label) == 2
                     and label[1] in "SHDC")
        # the templates name the rank past the bar and only a card of another suit comes near: the suit is then
        # the network's to confirm (``_rank_by_templates``)
        ranked = not ok and not vetoed and self.cross_check and self._rank_by_templates(label, score, by_rival)
        # (a vetoed match, neither agreeable nor ranked, stays unsure: ``VETO_LEAVES_UNSURE``)
        if (not ok and self.cross_check and label != "back" and not (vetoed and VETO_LEAVES_UNSURE)
                and (agreeable or self.falls_back or ranked)):
            # (the card as the generic mode cuts it, and its corners' reading: made once for the uses below)
            g_card, g_big = as_generic() if as_generic is not None else (card, big)
            ir = index_net.read_corners(g_card if g_big is None else g_big)
            if ranked and _suit_seen(ir, label[1]):
                # (the veto reads the card as cut for the templates, as ``contradicted`` does; without a generic cut
                # of its own that is the cut just read)
                as_cut = ir if as_generic is None else index_net.read_corners(card if big is None else big)
                if (not index_vetoes(label, as_cut) and not _pips_deny(g_card, label)
                        and not self._rank_read_otherwise(
                            label, as_cut, 0.0 if RANKED_RANK_DISAGREED else CROSS_CHECK_P)):
                    return label, score, margin, True, None
            # two readers that fail in different ways agree: the templates' best match and both corners' learned
            # reading name the same card, each short of its own bar (``AGREE_*``; not where the network, reading
            # the card as cut for the templates, vetoed that match)
            if (agreeable and ir.agree and ir.code == label and min(ir.p_rank, ir.p_suit) >= AGREE_P
                    and ir.suit_share >= AGREE_SHARE and label[0] not in self.templates.index_misnames):
                return label, score, margin, True, None
            if self.falls_back:
                # the templates are unsure (an ace in front of a monitor's glow, a two and a three one pip apart):
                # the generic reader's two cues, by its own thresholds, name the card when it is among the templates'
                # nearest (``MATCH_NEAREST``), so that the enrolled mode reads what the generic mode reads. Not where
                # the network vetoed their match (``VETO_LEAVES_UNSURE``; until session 34 it did, for blurred
                # neoclassical clubs matched as spades: 94.1 -> 95.5 % at 400 reads)
                # (never a rank the network gave this deck's cards of another rank at enrollment: rheinland's
                # German jacks, read as kings at 0.95-0.99 in 2 of 150 scenes, had the king among their nearest;
                # nor a suit it gave this deck's cards of another suit there: KDE's jolly-royal, never tuned on, has
                # clubs the network reads as spades, and a blurred 8C, matched as the 8S below the bar with the 8C
                # second, was named the 8S so, scene 500021)
                n = index_net.read_generic(g_card, g_big, ir=ir)
                if index_net.accepts(n, self.net_thresholds) and n.label in nearest and self._may_name(n.label):
                    return n.label, n.score, n.score, True, n
        return label, score, margin, ok, None

    def _may_name(self, label: str) -> bool:
        """Whether the network may name the card ``label`` for this deck: it gave neither its rank nor its suit to the
        deck's cards of another at enrollment (``vision.deck.index_test``)."""
        return label[0] not in self.templates.index_misnames and self._suit_named_rightly(label)

    def _suit_named_rightly(self, label: str) -> bool:
        """Whether the network named no card of this deck of another suit ``label``'s suit at enrollment
        (``vision.deck.index_test``; unknown for a deck enrolled before the test: then not)."""
        misnamed = self.templates.index_suit_misnames
        return misnamed is not None and label[1] not in misnamed

    def _rank_by_templates(self, label: str, score: float, by_rival: dict[str, float]) -> bool:
        """Whether the templates' best match ``label`` scores ``SUIT_LEFT_SCORE`` and clears the enrolled margin
        against every rival of its own suit, and still prefers it to each rival of another suit by
        ``SUIT_LEFT_MARGIN``: what is left is the suit, which two cues then name (``_read``). Not for a rank the
        network misnamed at enrollment, nor a suit it gave to another suit's cards there
        (``vision.deck.index_test``)."""
        if not _standard_card(label):
            return False
        if not self._may_name(label):
            return False
        same, other = [1.0], [1.0]
        for k, d in by_rival.items():
            (same if _standard_card(k) and k[1] == label[1] else other).append(d)
        return score >= SUIT_LEFT_SCORE and min(same) >= self.threshold.margin and min(other) >= SUIT_LEFT_MARGIN

    def _rank_read_otherwise(self, label: str, ir: index_net.IndexRead, sure: float = CROSS_CHECK_P) -> bool:
        """Whether both corners of the network's reading ``ir`` name one other rank than ``label``'s, one of them at
        ``sure`` or more, where the network gave that rank to none of the deck's cards of ``label``'s rank at
        enrollment (``Templates.index_rank_pairs``; without them, ``index_misnames``): the templates' rank, short of
        their bar, is then not left standing (``RANKED_RANK_UNREAD``; ``sure`` 0 where the templates' rank alone
        would name the card, ``RANKED_RANK_DISAGREED``)."""
        if not RANKED_RANK_UNREAD or len(ir.corners) < 2 or not all(c.is_index for c in ir.corners):
            return False
        ranks = {c.rank for c in ir.corners}
        if len(ranks) != 1 or label[0] in ranks or max(c.p_rank for c in ir.corners) < sure:
            return False
        pairs = self.templates.index_rank_pairs
        excused = self.templates.index_misnames if pairs is None else pairs.get(label[0], "")
        return not ranks <= set(excused)

    def _rival_reading(self, score: float, margin: float, named_margin: float) -> bool:
        """Whether a reading of another card from another outline, short of the thresholds, still makes a card read
        again not sure (``REREAD_RIVALS``): a match the enrolled mode would read again itself
        (``ENROLLED_REREAD_FROM``) that stands out from the deck's other cards by as much as the reading that names
        it (``named_margin``)."""
        return REREAD_RIVALS and score >= ENROLLED_REREAD_FROM and margin >= named_margin

    def _sure_again(self, ok: bool, margin: float, n: index_net.NetRead | None) -> bool:
        """Whether a second reading of a card (from another outline) names it: past the first reading's thresholds
        and the stricter bar of a second try - ``REREAD_P`` for the learned reader, a margin of
        ``ENROLLED_REREAD_MARGIN`` for the enrolled templates; never for the generic glyph reader."""
        if not ok:
            return False
        if n is not None:
            return min(n.p_rank, n.p_suit) >= REREAD_P
        return self.mode == "enrolled" and margin >= ENROLLED_REREAD_MARGIN

    def _cut(self, frame: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The card under ``quad`` as ``_read`` takes it (``reading_cut``; the larger cut only for the generic
        reader, which reads the corner index from it)."""
        return reading_cut(frame, quad, larger=self.glyphs is not None)

    def _first_cuts(self, frame: np.ndarray, quads: list[Quad]) -> list[_FirstCut] | None:
        """Every outline's card (``_cut``) and the learned corner index's reading of it, from one pass of the network
        for the whole frame (one pass over twenty corners costs two thirds of ten passes over two, with the same
        numbers), for the generic mode's first readings; None in the enrolled mode."""
        if self.glyphs is None or self.net_thresholds is None or not quads:
            return None
        cuts = [self._cut(frame, q.pts) for q in quads]
        irs = index_net.shared().read_corners_batch([card if big is None else big for card, big in cuts])
        return list(zip(cuts, irs, strict=True))

    def _read_outline(self, frame: np.ndarray, quad: np.ndarray, first: _FirstCut | None = None, whole: float = 1.0
                      ) -> tuple[str, float, float, bool, index_net.NetRead | None, np.ndarray | None]:
        """``_read`` of the card under ``quad`` (``_cut``), and its larger cut (or None). ``first``: the card's cut and
        corner reading, when ``_first_cuts`` made them; ``whole``: the card's wholeness (``_read``)."""
        (card, big), ir = first if first is not None else (self._cut(frame, quad), None)
        # (the enrolled mode's fallback reads the card as the generic mode cuts it)
        as_generic = None if self.glyphs is not None else functools.partial(reading_cut, frame, quad, larger=True)
        label, score, margin, ok, n = self._read(card, big, as_generic, ir, whole)
        if ok and n is not None and _one_corner_off(n, card, whole) and not _steady_corner(
                frame, quad, n, 1 if big is None else 2):
            ok = False  # (``ONE_CORNER_CUT``)
        return label, score, margin, ok, n, big

    def _reread_enrolled(self, frame: np.ndarray, quad: np.ndarray,
                         first: tuple[str, float] | None = None) -> tuple[str, float, float, bool] | None:
        """The enrolled mode's ``_reread``: the card rectified from each of ``REREAD_OUTLINES`` in turn and matched
        with the templates (a whole-face match: no corner alone can be cut again); the first reading that
        ``_sure_again`` accepts, or None - None too when the outlines' accepted readings name different cards.

        Each outline is another chance for a blurred card to look like its neighbour in the deck: a blurred
        neoclassical 3C read right (margin 0.38) from the outline 5 % larger and as the 3S (margin 0.69) from the one
        5 % smaller (a drawn tuning deck's scene, seed 500001). Outlines a few per cent apart that disagree mean the
        card is not sure, and so does another card matched better than the sure reading, even below the thresholds
        (a blurred neoclassical 5C: the 5S past the bar at score 0.85, margin 0.56; the 5C from another outline at
        0.88, margin 0.27, scene 600013). ``first``: the first outline's (label, score), which counts among them."""
        variants = outline_variants(quad)
        readings = [self._read_outline(frame, v)[:5] for v in variants]
        sure = [i for i, r in enumerate(readings) if self._sure_again(r[3], r[2], r[4])]
        if not sure:
            return None
        label, score, margin, ok, n = readings[sure[0]]
        others = [r[4] for i, r in enumerate(readings) if i != sure[0] and r[4] is not None]
        if (self._other_suit_seen(frame, variants[sure[0]], label) or self._letter_doubted(frame, quad, n, others)
                or self._first_rank_otherwise(frame, quad, label, n)):
            return None
        key = self.same.get(label, label)
        if first is not None:
            readings.append((first[0], first[1], 0.0, False, None))
        if any(self.same.get(r[0], r[0]) != key and (r[3] or r[1] >= score or self._rival_reading(r[1], r[2], margin))
               for r in readings):
            return None
        if REREAD_MAJORITY:
            near = [self.same.get(r[0], r[0]) == key for r in readings if r[1] >= ENROLLED_REREAD_FROM]
            if near.count(False) > near.count(True):
                return None
        return label, score, margin, ok

    def _letter_doubted(self, frame: np.ndarray, quad: np.ndarray, n: index_net.NetRead | None,
                        others: list[index_net.NetRead]) -> bool:
        """Whether a court the generic fallback named from another outline (``n``; None: the templates named it) is
        one the generic mode's ``_reread`` refuses by the first outline's corners (``_letter_seen_first``), those
        corners cut as the generic mode cuts them, or by the fallback's readings from the other outlines
        (``others``, ``_letter_seen_again``): the fallback is there so that the enrolled mode reads what the
        generic mode reads, and no more. aisleriot rheinland's half-covered jack of diamonds (a German B), which
        the generic mode leaves unsure so (scene 501340), was named the KD at 0.970 by the fallback from another
        outline (enrolled sweep at 501200, ``python -m tools.wrong_sweep --themes held --mode enrolled``)."""
        if n is None or n.index is None or n.label[:1] not in index_net.COURTS:
            return False
        if _letter_seen_again(n, others):
            return True
        card, big = reading_cut(frame, quad, larger=True)
        first = index_net.NetRead("?", "none", index_net.read_corners(card if big is None else big))
        return _letter_seen_first(n, first)

    def _first_rank_otherwise(self, frame: np.ndarray, quad: np.ndarray, label: str,
                              n: index_net.NetRead | None) -> bool:
        """Whether the templates' ``label``, named from another outline than ``quad`` (``n``: the generic reader's
        answer where it named it), stands against the network's reading of the card under ``quad``, the first outline:
        both corners on one other rank, one surely, that it never gave this rank's cards at enrollment
        (``_rank_read_otherwise``; ``RANK_READ_OTHERWISE_VETOES``)."""
        if not (RANK_READ_OTHERWISE_VETOES and n is None and self.cross_check and _standard_card(label)):
            return False
        card, big = self._cut(frame, quad)
        return self._rank_read_otherwise(label, index_net.read_corners(card if big is None else big))

    def _other_suit_seen(self, frame: np.ndarray, quad: np.ndarray, label: str) -> bool:
        """Whether a corner of the card under ``quad`` names the other suit of ``label``'s colour pair to the
        network at ``REREAD_OTHER_SUIT_P`` while none names ``label``'s suit (``index_net.corner_names_other_of_pair``):
        a card the templates named only from another outline is then unsure. Even on a ground the network misnamed
        at enrollment (which ``contradicted`` leaves to the templates): the first outline's match was short of the
        thresholds already, and two templates that differ only in their small suit signs (KDE oxygen-white's kings,
        one picture for all four) are a few pixels apart."""
        if not (self.cross_check and _standard_card(label)):
            return False
        card, big = self._cut(frame, quad)
        return index_net.corner_names_other_of_pair(index_net.read_corners(card if big is None else big), label[1],
                                                    REREAD_OTHER_SUIT_P)

    def _reread(self, frame: np.ndarray, quad: np.ndarray, scale: int,
                first: index_net.NetRead, whole: float = 1.0, blurred_cut: Callable[[], bool] | None = None
                ) -> tuple[str, float, float, bool] | None:
        """The learned reader's reading of a card it saw an index on but could not name, its unsure corners cut
        again from outlines a few per cent larger, smaller or shifted (``REREAD_OUTLINES``): the first accepted in
        that order, or None (None too when the accepted readings name different cards). ``whole``: the card's
        wholeness (``_read``); ``blurred_cut``: whether the card was blurred as cut, before relighting, asked only of
        a black court named again (``_read_relit``, ``_blurred_black_court``).

        An outline found a few per cent off (a rounded corner, a soft or shadowed edge, a card partly covered) cuts
        off one index corner, and a court needs both. Each reading must clear the first's thresholds and, for
        rank and suit alike, ``REREAD_P``."""
        assert self.net_thresholds is not None
        redo = index_net.corners_to_reread(first)
        if not redo:
            return None
        cuts = [{i: corner_cut(frame, v, i, scale) for i in redo} for v in outline_variants(quad)]
        readings = index_net.reread_generic(first, cuts)
        accepted = [n for n, cut in zip(readings, cuts, strict=True)
                    if index_net.accepts(n, self.net_thresholds)
                    and (n.path not in FIRST_CUT_ONLY or _named_by_first_cut(n, first, cut))
                    and not _blurred_black_court(n, blurred_cut) and not _letter_seen_first(n, first)
                    and not _letter_seen_again(n, readings) and not _count_covered(n, whole)]
        if len({n.label for n in accepted}) > 1:
            return None  # (cuts a few per cent apart name different cards: see ``_reread_enrolled``)
        for n in accepted:
            if self._sure_again(True, n.score, n):
                return n.label, n.score, n.score, True
        return None

    def _read_relit(self, frame: np.ndarray, quad: np.ndarray, whole: float = 1.0
                    ) -> tuple[str, float, float, bool] | None:
        """The reading (``_read``) of a card not named, read again with its paper relit to one level
        (``exposure.even_light``) when a shadow or a gradient lies across it (``UNEVEN_BELOW``): the reading when
        that names the card, else None (``whole``: the card's wholeness, ``_read``).

        A shadow's sharp edge across a card (an arm's, a head's, a bottle's under a lamp) leaves one index corner
        and half the pips a shade darker: the pips cut at one ink level come out unequal (no clean layout), the
        network is less sure of the dark corner and an enrolled template matches less. The development photos with
        a sharp shadow band laid over them (``tools/photo_bench.py --alter shadow``) read a third fewer cards.
        Relit, a reading must pass the same thresholds as any first reading; it is tried only for a card unread
        and unevenly lit (relighting an evenly lit card gains nothing: read so, the development photos named 25
        fewer cards and none other)."""
        card, big = self._cut(frame, quad)
        relit, evenness = exposure.even_light(card)
        if evenness >= exposure.UNEVEN_BELOW:
            return None
        relit_big = None if big is None else exposure.even_light(big)[0]

        def as_generic() -> tuple[np.ndarray, np.ndarray | None]:
            g_card, g_big = reading_cut(frame, quad, larger=True)
            return exposure.even_light(g_card)[0], None if g_big is None else exposure.even_light(g_big)[0]

        label, score, margin, ok, n = self._read(relit, relit_big, None if self.glyphs is not None else as_generic,
                                                 whole=whole)
        # (the network's reading of the card as cut, before relighting: made only where a blurred-black rule asks)
        cut_read = functools.cache(lambda: index_net.read_corners(card if big is None else big))
        if ok and n is not None and index_net.blurred_as_cut(n, cut_read):
            return None  # (the card's blur is judged as cut: ``index_net.blurred_as_cut``)
        if ok:
            return label, score, margin, True
        if n is None or n.path == "none" or not REREAD_OUTLINES or not RELIT_REREAD:
            return None
        # the corners cut again from outlines a few per cent off (``_reread``), now in the relit card: a shadow's
        # edge leaves the outline as loose as the index's ink is pale, and the two together had kept a card unread
        canvas, q = relit_around(frame, quad)
        # (its blur judged as cut too, as ``blurred_as_cut`` judges the relit reading: relighting moves the edges
        # ``edge_width`` measures and takes no blur away)
        return self._reread(canvas, q, 1 if relit_big is None else 2, n, whole,
                            lambda: index_net.blurred(cut_read()))

    def contradicted(self, label: str, card: np.ndarray) -> bool:
        """Whether the learned corner index reads this card, sure in both corners, as another card than ``label``.

        An enrolled deck is compared with whatever lies on the table: a card of another deck (a spare brought in, a
        deck never enrolled) or an unlucky match can look most like the wrong template (the desk deck enrolled, a
        poker_table 4C was named 4S). The two corners agreeing on a different code at >= ``CROSS_CHECK_P`` make the
        read unsure; a card whose index the network does not read surely (a joker, a back, a foreign letter) is left
        to the enrolled match.

        The suit alone vetoes too: the corners naming together (``IndexRead.suit_share``) another suit than the
        label's at >= ``CROSS_CHECK_P``. The templates of a spade and a club differ in a few pixels that blur takes
        away: a drawn tuning deck (neoclassical) had blurred clubs matched as spades past the enrolled thresholds
        at first sight (a 3C in scene 500031 at score 0.92, margin 0.38; a 2C in scene 600119 at 0.96 / 0.55, in
        about 1,000 scenes of the tuning decks), while the network, trained on blurred indices of many designs, named
        the club. Where the two cues disagree this surely the card is unsure: the price, the network's own sure suit
        errors, was 5 of 1,183 right reads on the tuning decks and 4 of 674 on the drawn held-out ones (60 scenes
        each). A ground the network was seen to misname on this deck's own cards at enrollment does not count
        (``index_vetoes``' misnames, ``VETO_NEEDS_TRUSTED_NAMES``)."""
        if not _standard_card(label):
            return False
        ir = index_net.read_corners(card)
        if not VETO_NEEDS_TRUSTED_NAMES:
            return index_vetoes(label, ir)
        ranks, suits = self.templates.index_misnames, self.templates.index_suit_misnames or ""
        if not index_vetoes(label, ir, ranks, suits):
            return False
        if INK_KEEPS_COLOUR and _ink_keeps_colour(label, ir, card, ranks):
            return False
        return not self._partner_keeps_suit(label, ir, card, ranks)

    def _partner_keeps_suit(self, label: str, ir: index_net.IndexRead, card: np.ndarray, ranks: str = "") -> bool:
        """Whether a veto that rests only on the corners' joint suit, naming the partner's suit (the other suit of
        ``label``'s colour), gives way to the partner test (``PARTNER_OVERRULES_SUIT``): the deck's own two templates,
        compared where they differ, give ``label`` ``PARTNER_RESCUE_MIN`` or more. Not where both corners agree
        surely on another code (``_code_vetoes``)."""
        mate = partner.partner_of(label)
        if not (PARTNER_OVERRULES_SUIT and PARTNER_CHECK) or mate is None or ir.suit != mate[1]:
            return False
        if _code_vetoes(label, ir, ranks):
            return False
        s = self._partner_score_once(label, card)
        return s is not None and s >= PARTNER_RESCUE_MIN

    def _read_found(self, frame: np.ndarray, q: Quad, first: _FirstCut | None, any_surface: bool
                    ) -> tuple[str, float, float, bool, Quad]:
        """Every reading of one found card in turn, until one names it: its outline, the other views' outlines
        (``q.alt``), the outline extended into a shadow, outlines a few per cent off, the card relit; the last
        reading (label, score, margin, named) and the outline it was read from."""
        label, score, margin, ok, n, big = self._read_outline(frame, q.pts, first, q.whole)
        counted = _counted_ranks(n)
        nearer = None
        own: list[tuple[Quad, str, float, float, index_net.NetRead | None, np.ndarray | None]] = []
        for alt in q.alt if not ok else ():
            # another view's outline of the card: read whole, by the stricter bar of a second reading
            a = self._read_outline(frame, alt, whole=q.whole)
            counted |= _counted_ranks(a[4])
            if self._sure_again(a[3], a[2], a[4]):
                label, score, margin, ok, n, big = a
                q = Quad(alt, q.whole, face=q.face)
                break
            if a[1] > (score if nearer is None else nearer[0][1]):
                nearer = (a, alt)
        if not ok and nearer is not None:
            # none sure, but the reader came nearer on another outline: the card is read again from that one
            # (a plastic queen of clubs in shade matched 0.64 on an outline without its left margin, 0.76 on the
            # network's outline of the whole card, scene 500058; in the generic mode the corners are cut again
            # from the nearer outline: boxes_train 389 -> 393 read). Its own verdict is not taken (``ok`` stays
            # False): a second reading names a card only past ``_sure_again``'s stricter bar, which it missed in the
            # loop above (taken, KDE jolly-royal's blurred ace of clubs, scene 500116, enrolled, unsure on its first
            # outline at 0.79, was named the AS from its alternative at 0.887, margin 0.30)
            own = [(q, label, score, margin, n, big)] if REREAD_OWN_OUTLINE else []
            (label, score, margin, _, n, big), alt = nearer
            q = Quad(alt, q.whole, face=q.face)
        if not ok and any_surface:
            # (the lit part of a card outlined to a shadow's edge: the strips of its paper in the shade added)
            shade = extended_into_shade(frame, q.pts)
            if shade is not None:
                ext, strips = shade
                lifted, origin = shade_lifted(frame, ext, strips)
                a = self._read_outline(lifted, ext - origin, whole=q.whole)
                counted |= _counted_ranks(a[4])
                if self._sure_again(a[3], a[2], a[4]):
                    label, score, margin, ok, n, big = a
                    q = Quad(ext, q.whole, face=q.face)
        # (from the nearer outline first, then from the card's own: ``REREAD_OWN_OUTLINE``)
        tries = [] if ok else [(q, label, score, margin, n, big), *own]
        for q_try, label_try, score_try, margin_try, n_try, big_try in tries:
            again = None
            if n_try is not None and n_try.path != "none" and REREAD_OUTLINES:
                again = self._reread(frame, q_try.pts, 1 if big_try is None else 2, n_try, q_try.whole)
            elif (self.mode == "enrolled" and label_try != "back" and score_try >= ENROLLED_REREAD_FROM
                  and REREAD_OUTLINES and not self.threshold.accept(score_try, margin_try)):
                # (a match past the thresholds and still not named was vetoed by the network's corner index
                # (``contradicted``): other outlines would only look for a match the network does not veto - an
                # anglo_modern 2C vetoed as the network took it for a spade, then matched as the 2S, scene 900025)
                again = self._reread_enrolled(frame, q_try.pts, (label_try, score_try))
            if again is not None:
                label, score, margin, ok = again
                q = q_try
                break
        if not ok and label != "back" and any_surface:
            again = self._read_relit(frame, q.pts, q.whole)
            if again is not None:
                label, score, margin, ok = again
        if ok and COUNT_ON_ANY_OUTLINE and _standard_card(label) and counted - {label[0]}:
            ok = False  # (``COUNT_ON_ANY_OUTLINE``)
        return label, score, margin, ok, q

    def _named_as_generic(self, frame: np.ndarray, q: Quad, any_surface: bool
                          ) -> tuple[tuple[str, float, float, bool, Quad] | None, bool]:
        """The enrolled mode's last reading of a card its templates left unsure: the generic mode's whole reading of
        the found outline ``q`` (``_read_found`` of a generic ``Recogniser``), taken when it names a card of the deck
        that is among the templates' nearest (``MATCH_NEAREST``) for the outline it named it from, and never a rank
        or suit the network gave this deck's cards of another at enrollment: (label, score, margin, named, that
        outline) or None; and whether the generic reader saw a card's index there (an unsure card is then kept).

        Templates taken from one photo per card, by another camera under another light, match the cards less well
        than a drawn design's templates match its renders: the boxes deck enrolled from its webcam photos
        (boxes_train cam_image11-34) read boxes_test's whole cards 70 of 79, where the generic mode read 77 (a king
        of clubs its templates put first at 0.64, under the bar, which the generic mode named from its corners cut
        again from outlines a few per cent off). The two readers then agree on the card, and the enrolled mode
        reads the deck at least as well as the generic mode. (Those were the networks before session 39; with
        today's, both modes read 75 of the 79, and this names a card of boxes_test only under the bench's shadow
        band or blur: IMG_2554's JC among them, ``tests/vision/test_boxes_deck.py``.)"""
        label, score, _, ok, q = generic_recogniser()._read_found(frame, q, None, any_surface)
        seen = label != "?"
        if not ok or label not in self.templates.labels or not _standard_card(label):
            return None, seen
        if not self._may_name(label):
            return None, seen
        nearest: list[str] = []
        first, t_score, t_margin = match(self.templates, self._cut(frame, q.pts)[0], self.use_face, self.same,
                                         nearest=nearest)
        if label not in nearest:
            return None, seen
        if VETO_LEAVES_UNSURE and first != label and self.threshold.accept(t_score, t_margin):
            # (the templates sure of another card: the two readers disagree, each surely - ``VETO_LEAVES_UNSURE``)
            return None, seen
        return (label, score, score, True, q), seen

    def identify(self, frame: np.ndarray, calibration: object | None = None,
                 roi: tuple[int, int, int, int] | None = None) -> list[Read]:
        """Every card found in the frame (or in ``roi`` = x0, y0, x1, y1 of it), each with its code or None.

        A ``vision.mat.Calibration`` tells the size of a card on this table (to find the top card of a pile when no
        card lies alone) and where the markers are (never cards)."""
        card_area, exclude = None, None
        ox, oy = (roi[0], roi[1]) if roi is not None else (0, 0)
        if calibration is not None:
            from vision import mat as matlib

            assert isinstance(calibration, matlib.Calibration)
            # (a card's size where the region lies: seen at an angle, the mat's far side shows its cards smaller)
            at = None if roi is None else ((roi[0] + roi[2]) / 2, (roi[1] + roi[3]) / 2)
            card_area = calibration.card_area_px(at)
            exclude = [m - np.array([ox, oy], np.float32) for m in calibration.marker_frame.values()]
        # (a camera's frame on its mat, searched in a region: the principal point and the focal length the whole
        # frame gives, in the region's pixels, judge the cards it sees obliquely - a region given without a mat may
        # be a crop of anything)
        camera = None
        if roi is not None and calibration is not None:
            camera = ((frame.shape[1] / 2 - ox, frame.shape[0] / 2 - oy),
                      focal_prior((frame.shape[1] / 2, frame.shape[0] / 2)))
        if roi is not None:
            frame = frame[roi[1] : roi[3], roi[0] : roi[2]]
        reads = self._identify(frame, card_area, exclude, roi, any_surface=calibration is None, camera=camera)
        for r in reads:
            r.quad = r.quad + np.array([ox, oy], np.float32)
        return reads

    def _identify(self, frame: np.ndarray, card_area: float | None, exclude: list[np.ndarray] | None,
                  roi: tuple[int, int, int, int] | None = None, any_surface: bool = True,
                  camera: tuple[tuple[float, float], float] | None = None) -> list[Read]:
        """``identify`` of ``frame`` (the region ``roi`` of a whole image, or the whole image when None); ``camera``:
        the principal point and the focal length of the whole image, in ``frame``'s pixels, when known."""
        reads = []
        # a photograph is searched at a working size (outlines need no more pixels, and the time grows with them)
        # and read at full size
        s = min(1.0, FIND_SIDE / max(frame.shape[:2]))
        small = _resized(frame, s)
        if any_surface:
            # a photograph taken in a dim room is brightened first, as a camera's auto exposure would: the finder's
            # absolute tests were set on card white near full scale (``vision.exposure``). A table watched over its
            # mat is not: the play detector's frames are measured against their own empty table
            # (and one under a coloured light has its cast taken out, as a camera's white balance would; measured
            # first, as the brightening is measured on the brightest channel, which the cast leaves as it is)
            colour = exposure.cast(small)
            g = exposure.gain(small)
            if g != 1.0 or colour != exposure.NO_CAST:
                brighter = exposure.adjusted(small, g, colour)
                frame = brighter if small is frame else exposure.adjusted(frame, g, colour)
                small = brighter
        # the principal point (for cards seen obliquely) is the middle of a whole camera image, not of a region
        whole_image = roi is None
        quads = _find_scaled(frame, s, card_area, exclude, whole_image, any_surface, small, camera)
        if any_surface and card_area is None:
            # the finder's kernels and limits are in pixels: cards it sees small (a webcam's picture, a table seen
            # whole from far off) are looked for again at a size where they are not (``SMALL_CARD_SIDE``)
            side = _median_short_side(quads, s)
            if side is not None and side < SMALL_CARD_SIDE:
                # (s is the frame's shrink to FIND_SIDE, so s * k stays within MAX_FIND_UPSCALE of both)
                k = min(FIND_CARD_SIDE / side, MAX_FIND_UPSCALE)
                again = _find_scaled(frame, s * k, card_area, exclude, whole_image, any_surface, camera=camera)
                quads = _second_look(quads, again)
            elif side is None and SMALL_FRAME_LOOK and max(frame.shape[:2]) * s * SMALL_FRAME_UPSCALE <= FIND_SIDE:
                # (only added: the first look's partial outlines stay as they were - a second look that replaced
                # them, as the one above may, lost three of boxes_test's cards found as they are photographed)
                again = _find_scaled(frame, s * SMALL_FRAME_UPSCALE, card_area, exclude, whole_image, any_surface,
                                     camera=camera)
                have = [q.pts for q in quads]
                quads = quads + [a for a in again if a.whole > 0.9 and not overlaps_any(a.pts, have)]
        if whole_image:
            quads = _upright_in_plane(quads, (frame.shape[1] / 2, frame.shape[0] / 2))
        elif camera is not None:
            quads = _upright_in_plane(quads, *camera)
        first = self._first_cuts(frame, quads)
        for i, q in enumerate(quads):
            found, seen = q, False
            label, score, margin, ok, q = self._read_found(frame, q, first[i] if first else None, any_surface)
            if not ok and label != "back" and self.cross_check and self.falls_back and ENROLLED_READS_GENERIC:
                named, seen = self._named_as_generic(frame, found, any_surface)
                if named is not None:
                    label, score, margin, ok, q = named
            if ok and PARTNER_CHECK and label in self.templates.partner_pairs and self._partner_fits_better(
                    label, self._cut(frame, q.pts)[0]):
                ok = False  # (the last word on the card as outlined, whichever reading named it: ``PARTNER_CHECK``)
            joker = label in ("BJ", "LJ")
            code: str | None = label if ok else None
            if joker and not self.templates.jokers_distinct:
                code = None
            if label == "back":
                if score <= 0.5:
                    continue
                reads.append(Read(None, label, score, margin, q.pts, face_down=ok, whole=q.whole))
                continue
            if (ok or score > FACE_SCORE or (self.glyphs is not None and label != "?") or seen or _seen_card(frame, q)
                    or (not any_surface and q.whole >= 0.95 and card_sized(q.pts, card_area))):
                # (else it matches no card at all, and no view but the reader's vouches for a card there - but on
                # the mat a pale outline, whole and of the calibrated card's size, is a face: a joker, which the
                # generic mode never names, played where no single change outlined it had gone unseen)
                reads.append(Read(code, label, score, margin, q.pts, joker and (ok or score > 0.6), whole=q.whole))
        return _read_two_ways(_named_once(reads))


@functools.lru_cache(maxsize=1)
def generic_recogniser() -> Recogniser:
    """The generic mode's reader, made once: the enrolled mode's last reading of a card (``_named_as_generic``) and
    enrollment's checks of a photographed card (``vision.deck``) read with it."""
    return Recogniser(None)


# a card the relit reading does not name has its corners cut again in the relit card (``_read_relit``): boxes_train
# under ``tools/photo_bench.py --alter shadow`` read 321 -> 329 (whole 224 -> 231), as it is 409 -> 410, 0 wrong
RELIT_REREAD = True


# a read scoring above this shows a card face where it falls short of the thresholds: an outline found so is kept as
# an unsure card (``Recogniser._identify``), and so is the play detector's outline of a change whose rim does not
# show a face (``vision.play.PlayDetector._outlined``; the felt a card leaves matches none of the held-out decks'
# templates above 0.25)
FACE_SCORE = 0.5


# the enrolled mode names a card its templates match short of the thresholds when the corner network, both corners
# agreeing, names the same card (``Recogniser._read``): the templates' score and margin, the network's smaller
# probability of rank and suit, the corners' joint share of that suit. Measured on every read of 60 scenes of each
# drawn tuning deck and 40 of 21 aisleriot themes (5,083 reads, 212 unsure of a standard card): at 0.6 / 0.0 / 0.6 /
# 0.9, 22 named, all right; these, a step stricter each, name 14 (blurred clubs and spades matched at margins 0.1-0.3,
# courts outlined loosely), none wrong
AGREE_SCORE = 0.75
AGREE_MARGIN = 0.1
AGREE_P = 0.75
AGREE_SHARE = 0.95
# the enrolled mode names a card whose templates clear the enrolled margin against every card of its suit and leave
# only another suit near (blurred clubs and spades, hearts and diamonds: the suit's few pixels blurred away) when the
# corner network's two corners both name that suit (``Recogniser._rank_by_templates``, ``_suit_seen``): the
# templates score at least ``SUIT_LEFT_SCORE`` and still prefer the card to each other suit's by ``SUIT_LEFT_MARGIN``
# (a discriminant), and each corner names the suit at ``SUIT_SEEN_P``. The score's bar is the path's own: a blur that
# takes away the suit's pixels lowers the match with every template, while the margin against the suit's other cards
# stays (a small blurred jack of spades, scene 500015, unsure in 15 designs: score 0.69-0.80, margin 0.3-0.8, its
# corners naming the spade but no rank, so that their joint reading names no suit). Measured on the unsure reads of
# 60 scenes of each of the 27 tuning and training designs (179 of a suited card): session 31's bars (score 0.85,
# corners 0.9 and a joint share of 0.95) named 13, these 38, all right; the first wrong comes at a score of 0.55 and
# a margin of 0.17 against the suit's cards (a blurred KD matched as the JD)
SUIT_LEFT_MARGIN = 0.1
SUIT_SEEN_P = 0.6
SUIT_LEFT_SCORE = 0.68
# other outlines of a card whose index the learned reader saw but could not name: (width, height, shift right,
# shift down) as shares of the outline, in the order they are tried. Each one costs a pass of the network per
# corner cut again; on the development photos these six read 6 % more of the found cards, two more shifts
# (up, down) only a few cards more.
REREAD_OUTLINES: list[tuple[float, float, float, float]] = [
    (1.05, 1.05, 0, 0), (0.95, 0.95, 0, 0), (1.1, 1.1, 0, 0), (0.9, 0.9, 0, 0), (1, 1, 0.05, 0), (1, 1, -0.05, 0)]
# a reading from another outline must be surer than a first reading: trying several cuts of the same corner
# gives an unsure glyph several chances to look like another (a German jack's B read as a K at 0.91-0.92 in the
# held-out rheinland theme; a partly covered eight of spades read as a 6D at 0.66 on the pip path)
REREAD_P = 0.95
# paths a reading from another outline may take only with the index corner as first cut (``_named_by_first_cut``):
# one corner and nothing else to check it, cutting that corner again would only give a blurred index more chances to
# look like another (a motion-blurred neoclassical 5H under a spade, first read 6H at 0.90 by its one corner, then 6H
# at 0.971 on another cut: scene 500012)
FIRST_CUT_ONLY = ("number_one",)


def _blurred_black_court(n: index_net.NetRead, blurred_cut: Callable[[], bool] | None = None) -> bool:
    """Whether a reading from another outline names a black court (or, since session 43, an ornate black ace by the
    'ace' path: its design has no pips to check the suit either) of a blurred card (``index_net.blurred``, measured
    on the first cut) short of ``BLURRED_BLACK_REREAD_P``: such a reading does not name the card. Each outline is
    another chance for a smudged club to look like a spade (or the reverse), and the network is about as sure of the
    wrong suit on one as on another: KDE standard's blurred jack of spades (scene 500057), left unsure on its first
    outline (the club at 0.92 by one corner, under ``index_net.BLURRED_BLACK_COURT_P``), was named the JC at 0.955
    and 0.963 from other outlines. ``blurred_cut``: whether the card was blurred as cut before it was relit
    (``_reread``; asked last, as it costs a pass of the network): scene 503774's JS of the same deck, refused on its
    first outline at 0.967 and from other outlines at 0.970, was named the JC at 0.974 from another outline of the
    card relit, where its corners measured sharp."""
    if not (n.path in index_net.PICTURE_PATHS and n.label[1:] in index_net.BLACK and n.p_suit < BLURRED_BLACK_REREAD_P):
        return False
    return index_net.blurred(n.index) or (blurred_cut is not None and blurred_cut())


def _letter_seen_first(n: index_net.NetRead, first: index_net.NetRead) -> bool:
    """Whether a reading from another outline names a court whose first cut showed, in a corner, a suit read at
    least ``LETTER_SUIT_P`` and no rank: that corner was not cut off (its suit was there), and what stood beside the
    suit is a letter the network does not know as J, Q or K - the sign by which the 'court_one' path refuses a
    court (``index_net._decide``). Cutting it again cannot uncover a rank; it only gives the unknown letter more
    chances to look like one: aisleriot rheinland's blurred jack of diamonds (a German B, scene 500728, generic),
    first read 'K' at 0.68 by one corner and '-' beside a diamond at 0.955 by the other, was named the KD at 0.951
    from the fourth of six other outlines (the other five 0.60-0.82). On the development photos no court read from
    another outline had shown such a corner (42 cards read so, a session script). Nor, for a court named by one corner
    alone, had that corner shown its suit surely and the rank doubtfully in the first cut (``LETTER_DOUBTED_P``)."""
    assert first.index is not None and n.index is not None
    if n.label[:1] not in index_net.COURTS:
        return False
    if LETTER_SEEN_FIRST and any(_suit_without_letter(c) for c in first.index.corners):
        return True
    # a court named by one corner alone ('court_one'): that corner's first cut (``LETTER_DOUBTED_P``); by both
    # ('court'), since session 51: both corners' first cuts (``LETTER_DOUBTED_BOTH``)
    named = [i for i, c in enumerate(n.index.corners) if c.is_index]
    if not (n.path == "court_one" and len(named) == 1 or LETTER_DOUBTED_BOTH and n.path == "court" and named):
        return False
    was = [first.index.corners[i] for i in named]
    return all(w.p_suit >= LETTER_SUIT_P and not (w.rank == n.label[0] and w.p_rank >= LETTER_DOUBTED_P) for w in was)


def _letter_seen_again(n: index_net.NetRead, readings: list[index_net.NetRead]) -> bool:
    """Whether a court named from another outline by one corner alone ('court_one') had that corner, on another
    outline's cut, show its suit at least ``LETTER_SUIT_P`` and no rank: the letter beside the suit is one the network
    does not know as J, Q or K (``_letter_seen_first``'s sign, seen on any cut). Aisleriot lattmann draws the German
    letters K, D and B: its queen of diamonds, half covered, first read 'K' at 0.75 beside a diamond at 0.86 by its one
    corner in view (short of ``LETTER_SUIT_P``), showed '-' beside a diamond at 0.93-0.99 on three other cuts and was
    named the KD at 0.981 from a fourth (scene 502931, ``python -m tools.wrong_sweep --themes held --first
    502850``)."""
    if not LETTER_SEEN_AGAIN or n.path != "court_one" or n.index is None:
        return False
    named = [i for i, c in enumerate(n.index.corners) if c.is_index]
    return len(named) == 1 and any(r.index is not None and _suit_without_letter(r.index.corners[named[0]])
                                   for r in readings)


def _suit_without_letter(c: index_net.CornerRead) -> bool:
    """Whether corner ``c`` shows a suit, at least ``LETTER_SUIT_P``, and no rank beside it: a letter the network does
    not know as J, Q or K (``_letter_seen_first``, ``_letter_seen_again``)."""
    return c.rank == "-" and c.suit != "-" and c.p_suit >= LETTER_SUIT_P


LETTER_SEEN_FIRST = True
LETTER_SUIT_P = 0.9
# a court named from another outline by one corner alone ('court_one') whose first cut of that corner showed its suit
# surely (``LETTER_SUIT_P``) and that rank under this: the corner was in view, its letter doubtful, and cutting it
# again only gives the letter more chances to look like J, Q or K - aisleriot rheinland's jack of diamonds (a German
# B) half covered, first read 'K' at 0.65 beside a diamond at 0.98, was named the KD at 0.970 from the fifth of six
# other outlines (scene 501340, ``python -m tools.wrong_sweep --themes held --first 501200``). The development photos'
# courts named so had read that rank at 0.908-0.998 in the first cut (14 cards, a session script). Cost over the
# tuning sweep of scenes 500450-599: 2 of 11,324 right reads (atlasnye_skat's KS, first cut 0.52; anglo_modern's JD,
# 0.79)
LETTER_DOUBTED_P = 0.8
# ... and a court named from another outline by both corners ('court') whose first cut showed, in each, its suit
# surely and that rank under ``LETTER_DOUBTED_P``: both indices were in view and both letters doubtful. Aisleriot
# rheinland's jack of hearts (a German B), first read 'K' at 0.61 and 0.64 beside hearts at 0.99, was named the KH at
# 0.972 from the fourth of six other outlines (the others 0.36-0.89; scene 502971, ``python -m tools.wrong_sweep
# --themes held --first 502850``); so were the jacks of 502257 and 502532. Right courts first read that doubtfully
# look the same to the network (simplistic's KH at 0.66 and 0.59): with ``LETTER_SEEN_AGAIN``, the tuning sweep of
# scenes 500450-599 lost 6 of 11,306 right reads (about 4 to this rule), the held-out designs 2 of 2,262, KDE's 1 of
# 1,797, and the development photos boxes_test IMG_2636's queen of diamonds - a trade kept for the wrong reads
LETTER_DOUBTED_BOTH = True
# a court named from another outline by one corner is not sure where another cut of that corner shows a suit and no
# rank (``_letter_seen_again``; its cost is counted with ``LETTER_DOUBTED_BOTH``'s: 2 of the tuning sweep's 6)
LETTER_SEEN_AGAIN = True


# the suit probability a blurred black court needs on another outline (``_blurred_black_court``): over the 0.963 of
# the wrong jack above; boxes/train cam_image43's blurred JC (under a cool cast, ``photo_bench --alter cool``), 0.93
# on its first outline, is named at 0.974 on another. Without it (no blurred black court named from another
# outline) the development photos blurred by ``tools/photo_bench.py --alter blur`` read 351 of boxes_train's cards
# and 95 of boxes_test's; with it, 353 and 96 (before any rule on blurred black courts: 359 and 98). Since session
# 53 0.98, above the first outline's bar (``index_net.BLURRED_BLACK_COURT_P``, 0.97 since then): KDE standard's
# blurred JS of scene 503774, refused on its first outline at 0.967, was named the JC at 0.970 from another. The
# price on the development photos: boxes_train cam_image43's JC as photographed, named at 0.971 from another outline
# before, is unsure
BLURRED_BLACK_REREAD_P = 0.98

# the enrolled mode reads again only a card its templates came near (cards matched at less, most of them another
# deck's, would only cost time: on the drawn and photographed development sets 36 of the 38 cards that were read
# again had matched at >= 0.7 at first), and takes a reading from another outline only with a clear margin (the
# enrolled threshold's 0.29 let one tango 2C through as the 2S, at 0.31, in 400 reads)
ENROLLED_REREAD_FROM = 0.7
ENROLLED_REREAD_MARGIN = 0.4
# a card the enrolled templates name only from another outline is unsure where a corner of that cut gives the other
# suit of its colour pair this much to the network and none gives its own suit half (``_other_suit_seen``): KDE's
# oxygen-white (never tuned on) draws one king for all four suits, and a KS whose first outline matched the KC short
# of the margin (0.18) was named the KC from three more at margins 0.40-0.41, one corner reading a spade at 0.85
# (scene 501008 of the enrolled sweep of scenes 500900-1049).
# Cost (a session script logging every card the enrolled mode named from another outline, with that cut's corners):
# 2 of 407 right - of the held-out and KDE designs at scenes 500900-1049, swiss-xvii's 2D (a bell read as a heart at
# 0.96) and jolly-royal's KC (its clubs are spades to the network); of the tuning designs at 500450-599, none of 100.
# Also jolly-royal's blurred 4C of scene 500108 (``tests/vision/test_fresh_designs.py``). Neither deck's clubs were
# read as spades at enrollment (oxygen-white's spade misnames were of a 6H, jolly-royal's of diamonds), so the
# enrollment's misnames cannot tell the right cases from the wrong one
REREAD_OTHER_SUIT_P = 0.8

# another outline's match of another card near the bar, standing out from the deck's other cards by as much as the
# reading that names a card read again, makes that card not sure (``Recogniser._rival_reading``): KDE's oxygen (never
# tuned on) had a blurred 2C matched as the 2S at 0.84, margin 0.37 (unsure), then named the 2S from an outline 5 %
# off (0.879, margin 0.685) while another outline matched the 2C at 0.823, margin 0.783 (scene 500225 of the enrolled
# sweep of scenes 500150-299). Rivals by the thresholds' margin alone (0.29) cost 28 right reads of KDE's designs in
# those scenes (jolly-royal 13: a 6S at 0.72, margin 0.42, beside the 6C named at 0.88, margin 0.64); by the named
# reading's margin, 4 of KDE's there (oxygen's blurred twos and threes of clubs, the spade matched at 0.72-0.76 on
# another outline)
REREAD_RIVALS = True
# and a card read again is not sure where more of the outlines' matches past ``ENROLLED_REREAD_FROM`` (the first
# outline's among them) name other cards than name it (``Recogniser._reread_enrolled``): KDE's oxygen-white (never
# tuned on) had a blurred jack of spades, its silhouette picture alike in every court, matched as the QC at 0.86
# (margin -0.01 against the JC) on the network's outline of it, then named the JC from one outline 5 % off (0.923,
# margin 0.44) while four of the seven matches past 0.7 named the QC and two the JC (scene 502721 of the enrolled sweep
# at 502700, once two of the network's outlines became a card's alternatives, ``net_outlines.VIEW_ALTS``)
REREAD_MAJORITY = True

# a card read again from the nearer of its alternative outlines (``Recogniser._read_found``) and not named there is
# read again from its own outline too: since two of the network's outlines may be a view's alternatives
# (``net_outlines.VIEW_ALTS``) and the first look's ride along with a second look's, an alternative that came nearer
# took the card's rereading away from its own outline, whose variants had named it: poker_table train_13's five of
# hearts under the bench's webcam change (0.95 from its own outline; unsure from the alternative's)
REREAD_OWN_OUTLINE = True
# a card named by one reading is unsure where a clean pip layout of two or more pips, counted on any outline of it
# that was read (``_read_found``: its own, the other views', the one extended into a shade), gives another rank:
# every look at one card must agree. Aisleriot bellot's eight of hearts (a tuning design), a corner of it under
# another card, showed a clean layout of eight on its own outline, refused there as its corners read a ten; on the
# nearer of the other views' outlines no layout was found, and read again from it the corners named the TH at 0.953
# by the 'partial' path (its eight alike pips fit a ten; scene 505005, ``python -m tools.wrong_sweep --themes tune
# --first 505000``, seeds never swept before)
COUNT_ON_ANY_OUTLINE = True

# the enrolled mode's fallback to the generic reader (``Recogniser._read``) takes its reading only for a card among
# the templates' nearest few: the two readers then agree that it is one of them (the generic reader's one known wrong
# read, a berlin QC named KC by its foreign letter, would need the enrolled KC among the QC's nearest)
MATCH_NEAREST = 3
# an enrolled match's margin is also taken with the card's face moved (3 % larger or smaller, 2-4 px either way) to
# where it fits the named template best, and the smaller of the two counts. The face feature is 30 x 42 pixels, and
# the finder's outline of a blurred card is a few pixels off: the discriminant between two templates that differ in a
# pip's shape (KDE oxygen's light-on-dark 2C and 2S) swung from -3 to +2.4 over moves of 4 px, and the card's outline
# as found put a 2C at +0.67 towards the 2S (scene 500316, named so at 0.92); moved to fit the 2S best, +0.11.
# Only for a match some path may take (``ALIGN_FROM``: ``SUIT_LEFT_SCORE``, the lowest score any path takes;
# ``ALIGN_MARGIN_FROM``: ``AGREE_MARGIN`` and ``SUIT_LEFT_MARGIN``, the lowest margin any path takes - below it, a
# margin made smaller changes no path's answer, though the margin a read reports is then the face's as cut while
# one above it may come out smaller). Enrollment's joker test (``vision.deck.joker_test``) matches so too
ALIGNED_MARGIN = True
ALIGN_FROM = SUIT_LEFT_SCORE
ALIGN_MARGIN_FROM = min(AGREE_MARGIN, SUIT_LEFT_MARGIN)
# the enrolled mode's last reading of a card its templates left unsure is the generic mode's whole reading of it
# (``Recogniser._named_as_generic``)
ENROLLED_READS_GENERIC = True
# a card the enrolled templates name past their thresholds and the corner network vetoes (sure of another card) is
# left unsure: neither the network's reading nor the generic mode's names it instead. Two readers each sure of a
# different card cannot both be right, and nothing tells which: a drawn design never tuned on (KDE's "standard",
# kdegames-card-data) had its ace of spades, a large ornate spade in the middle, matched as the AS at 0.92 / margin
# 0.70, its small corner spades read by the network as clubs at 0.85-0.89, and the enrolled mode named it the AC
# (scene 500023); the network's side had been taken since session 13 for blurred neoclassical clubs matched as spades
VETO_LEAVES_UNSURE = True


def _named_by_first_cut(n: index_net.NetRead, first: index_net.NetRead, cut: dict[int, np.ndarray]) -> bool:
    """Whether a reading again ``n`` on one of the ``FIRST_CUT_ONLY`` paths still names the card by the first cut of
    its index corner (``cut``: the corners cut again for it), only the other corner cut again: that corner had shown
    no rank and no suit, though not surely enough to be taken as covered, and shows nothing surely now. The index is
    then read as at first, with no second chance to look like another card. (On the development photos the other
    corner, under the covering card, often shows a strip of it and of the table: seven cards read so, all right.)"""
    assert n.index is not None and first.index is not None
    named = [i for i, c in enumerate(n.index.corners) if c.is_index]
    if len(named) != 1 or named[0] in cut:
        return False
    other = first.index.corners[1 - named[0]]
    return other.rank == "-" and other.suit == "-"


# two outlines naming the same card, one lying this much (its share of the smaller's area) on the other, are one card
# read twice (``_named_once``)
SAME_CARD_SHARE = 0.5
# a card named on two outlines that are not one card (``SAME_CARD_SHARE``) is named on neither: a table plays one deck,
# which holds each card once, so one of the two reads is wrong and nothing tells which. Aisleriot lattmann's queen of
# diamonds (held out), its German "D" read as a king by both corners at 0.86 and named the KD at 0.963 from outlines a
# few per cent off, lay beside the KD itself, named at 0.989 (scene 504879, ``python -m tools.wrong_sweep --themes
# held --first 504800``). Two decks' cards of one code in one frame are both left unsure: never a card named that is
# not there
NAMED_TWICE_UNSURE = True


def _counted_ranks(n: index_net.NetRead | None) -> set[str]:
    """The rank that the clean pip layout of the generic reading ``n`` counts (two pips or more), as a set: empty
    where no layout was found or the card was not read by the network (``COUNT_ON_ANY_OUTLINE``)."""
    p = n.pips if n is not None else None
    if isinstance(p, pips.Pips) and p.count >= 2:
        return {pips.RANK_OF_COUNT[p.count]}
    return set()


def _named_once(reads: list[Read]) -> list[Read]:
    """``reads`` less a card named a second time from another outline lying on it: the same code from two outlines
    that share at least ``SAME_CARD_SHARE`` of the smaller one is one card, kept from its wholest, surest outline.
    An outline round a jack of spades and a stretch of carpet beside it, taken for a card partly under the jack
    (boxes_train cam_image43 with a cool cast), was read JS by the jack's own corner: the jack named twice. (Two
    decks' cards of one code lying one on the other lose the lower one: unsure, never a card named that is not
    there.) A code still named on two outlines apart is then named on neither (``NAMED_TWICE_UNSURE``)."""
    named = sorted((i for i, r in enumerate(reads) if r.code is not None),
                   key=lambda i: (-reads[i].whole, -reads[i].confidence))
    kept: list[int] = []
    drop: set[int] = set()
    for i in named:
        same = [np.asarray(reads[j].quad, np.float32) for j in kept if reads[j].code == reads[i].code]
        if same and overlaps_any(np.asarray(reads[i].quad, np.float32), same, SAME_CARD_SHARE):
            drop.add(i)
        else:
            kept.append(i)
    codes = [reads[i].code for i in kept] if NAMED_TWICE_UNSURE else []
    twice = {c for c in codes if c is not None and _standard_card(c) and codes.count(c) > 1}
    if not drop and not twice:
        return reads
    return [replace(r, code=None) if r.code in twice else r for i, r in enumerate(reads) if i not in drop]


# an outline lying this much inside another (its share of its own area) is a part of the same card: the two naming
# different cards read one card two ways (``_read_two_ways``)
INSIDE_SHARE = 0.9
# a card read two ways is named neither way: aisleriot ancient_french's eight of spades (a tuning design), its top and
# left under an arm, was named the 8S from its outline and the 6S from an outline of its lower part (six of its pips
# in view, one corner, the other taken for covered; scene 505216, ``python -m tools.wrong_sweep --themes tune --mode
# enrolled --first 505100``, seeds never swept before)
READ_TWO_WAYS_UNSURE = True


def _read_two_ways(reads: list[Read]) -> list[Read]:
    """``reads`` with each pair of named outlines of which one lies ``INSIDE_SHARE`` or more inside the other (one
    card) and that name different cards left unsure, their guesses kept (``READ_TWO_WAYS_UNSURE``)."""
    named = [i for i, r in enumerate(reads) if r.code is not None] if READ_TWO_WAYS_UNSURE else []
    quads = {i: np.asarray(reads[i].quad, np.float32) for i in named}
    doubt: set[int] = set()
    for n, i in enumerate(named):
        for j in named[n + 1:]:
            if reads[j].code != reads[i].code and overlaps_any(quads[i], [quads[j]], INSIDE_SHARE):
                doubt |= {i, j}
    return [replace(r, code=None) if i in doubt else r for i, r in enumerate(reads)] if doubt else reads


def _standard_card(label: str) -> bool:
    """Whether ``label`` is a standard card's code (a rank and a suit: no joker, back or unread '?')."""
    return len(label) == 2 and label[0] in "A23456789TJQK" and label[1] in "SHDC"


def _suit_seen(ir: index_net.IndexRead, suit: str) -> bool:
    """Whether both corners of the network's reading ``ir`` name ``suit``, each at ``SUIT_SEEN_P``, and the joint
    reading names no other suit (their ranks may be unsure: a blurred 3 is a 2 to it, a blurred J no rank at all,
    and the joint reading then names no suit either)."""
    return all(c.suit == suit and c.p_suit >= SUIT_SEEN_P for c in ir.corners) and ir.suit in (suit, "-")


def _pips_deny(card: np.ndarray, label: str, yellow: bool = True) -> bool:
    """Whether a number card's pips, found on ``card`` (``pips.read_pips``), say by their shape that ``label``'s suit
    is not the card's (``index_net.pips_refuse``): the suit the enrolled mode takes from the network's corners where
    its templates leave only the suit in doubt (``Recogniser._rank_by_templates``) is then unsure. The pips are a
    third look at the suit, at signs many times larger than the corners': aisleriot dondorf's small aces and threes of
    spades, their corner spades read as clubs by both corners (0.72-0.81) and matched best as the AC and the 3C, were
    named so (scenes 500132 and 500138 of the enrolled sweep at 150 scenes), while their pips named the spade (the
    discriminant at 0.54-0.55, the ace's pip without a club's leaves). ``yellow``: asked of pips leaning to yellow
    too (``index_net.YELLOW_PIPS``; not by ``ENROLLED_RED_PIPS_UNSURE``)."""
    p = pips.read_pips(card)[0]
    return (isinstance(p, pips.Pips) and (yellow or pips.yellowness(p) < index_net.YELLOW_PIPS)
            and index_net.pips_refuse(p, label[1:]))


def index_vetoes(label: str, ir: index_net.IndexRead, ranks: str = "", suits: str = "") -> bool:
    """Whether the corner network's reading ``ir`` of a card contradicts the enrolled read ``label`` (a standard
    card's code): both corners agree on another code, each at >= ``CROSS_CHECK_P``, or the corners together name
    another suit at that share (``Recogniser.contradicted``; enrollment measures it on the deck's own cards,
    ``vision.deck.index_test``). Neither ground counts where the other rank it names is among ``ranks``, or the other
    suit among ``suits``: those the network gave the deck's cards of another at enrollment
    (``VETO_NEEDS_TRUSTED_NAMES``)."""
    if _code_vetoes(label, ir, ranks) and not (ir.suit != label[1] and ir.suit in suits):
        return True
    # (the suit's share of two corners, neither sure alone, is needed: a veto that asked one corner to be sure
    # (session 13) gave back right reads of designs whose suit signs the network knows poorly, but let a blurred
    # neoclassical 2C through as the 2S, matched again from another outline at margin 0.76, scene 500045)
    return ir.suit not in ("-", label[1]) and ir.suit not in suits and ir.suit_share >= CROSS_CHECK_P


def _code_vetoes(label: str, ir: index_net.IndexRead, ranks: str = "") -> bool:
    """``index_vetoes``' first ground before the suits it sets aside: both corners agree on another code, each at
    ``CROSS_CHECK_P``, its rank, where it differs, not among ``ranks``."""
    return (ir.agree and min(ir.p_rank, ir.p_suit) >= CROSS_CHECK_P and ir.code != label
            and not (ir.rank != label[0] and ir.rank in ranks))


def _rank_vetoes(label: str, ir: index_net.IndexRead, ranks: str = "") -> bool:
    """Whether ``index_vetoes``' first ground holds by the rank: the agreed code has another rank than ``label``'s,
    one the network gave none of the deck's cards of another rank at enrollment (``ranks``)."""
    return _code_vetoes(label, ir, ranks) and ir.rank != label[0]


def _ink_keeps_colour(label: str, ir: index_net.IndexRead, card: np.ndarray, ranks: str = "") -> bool:
    """Whether the network's veto of the enrolled read ``label`` rests only on a suit of the other colour that the
    card's own ink denies (``INK_KEEPS_COLOUR``): the network, which sees no colour, names a black suit for a card
    the templates (which see shape and colour) name red, or a red suit for one they name black, while the ink of both
    index corners is of ``label``'s colour (``index_net.ink_colour``: red, or black - a four-colour deck's blue or
    green ink keeps the veto: ``index_net.colour_allows`` lets it be any suit). Not where the corners agree surely on
    another rank (``_rank_vetoes``)."""
    if ir.suit not in index_net.RED + index_net.BLACK or _rank_vetoes(label, ir, ranks):
        return False
    return all(index_net.colour_allows(ink, label[1]) and not index_net.colour_allows(ink, ir.suit)
               for ink in (index_net.ink_colour(card, k) for k in (0, 1)))


def _seen_card(frame: np.ndarray, q: Quad) -> bool:
    """Whether an outline no reader names anything on is still a card to report (unsure): the learned finder sees
    a whole card's face in it (``SEEN_FACE``), and its rim differs from what lies around it as the finder's own
    outlines must. Cards the finder found that way and the reader could make nothing of - a card under a wire, in a
    wire-mesh basket, half in a shadow, cut by the photo's edge - had been dropped as matching no card at all; the
    rim check keeps out the stacks of chips it also sees as card-like (contrast 0-1, the cards' 11-178)."""
    if q.face < SEEN_FACE or q.whole < 0.9:
        return False
    return rim_contrast(frame, q.pts, two_sides=True)[1] >= NET_RIM_CONTRAST


# on an outline the finder found partly covered (``Quad.whole`` under PARTLY_COVERED: the card under another or a
# hand) the pips in view are a lower bound on the rank: a number card named by the network's one corner and its pips
# needs the corner to give the rank at ``index_net.COVERED_PIPS_RANK_P``, as beside a covered corner
# (``index_net.count_unbacked``). KDE oxygen-white's seven of diamonds, a hand across its middle rows (whole 0.71),
# showed a clean four's layout, and the network read a 4 at 0.57 into the pip near its top-left corner (oxygen-white
# prints its index top-right): named the 4D (scene 502683). The glyph reader's pip path needs a corner whose best
# rank is the count (``glyphs.GenericRead.ranked``; not only none that contradicts it): KDE penguins' four of
# diamonds, a hand over its top half (whole 0.86), showed two diamonds laid out as a two, and its corner's "4" did not
# contradict the two by enough - named the 2D at 0.991 (scene 503572). (Refused outright there, such reads cost the
# held-out tango 12 of its 52 right reads at scenes 500450-599: cards under another, all their pips in view)
PARTLY_COVERED = 0.9
COVERED_OUTLINE_COUNT = True


# a card named by one corner, its other corner taken as covered ('number_one', 'court_one'), on an outline the finder
# found whole that cuts ink in two at one of its ends (``pips.cut_by_outline``), is named only if that corner, cut
# again from the outlines a few per cent off (``REREAD_OUTLINES``), reads the same rank and suit at STEADY_P in
# STEADY_SHARE of them (``_steady_corner``). Such an outline may be off the card, its "covered" corner the card's own
# paper and its index cut off-centre: aisleriot rheinland's two of clubs, outlined a little narrow and shifted, both
# pips cut by the outline's ends, had its near "2" read as a 3 at 0.981 and was named the 3C (scene 502630); cut
# again, that corner read the 3 at 0.47-0.77 or an ace. Or another card lies over it and the outline cuts that card's
# ink: poker_table's cards under a player's top card (train_16's 8H and AC, train_17's 7S, train_22's TD, train_25's
# 2C, read so at 0.97-0.99) read the same rank at 0.81-1.0 from every outline
ONE_CORNER_CUT = True
STEADY_P = 0.9
STEADY_SHARE = 0.5


def _one_corner_off(n: index_net.NetRead, card: np.ndarray, whole: float) -> bool:
    """Whether the network's one-corner reading ``n`` of ``card`` stands on an outline that may be off the card
    (``ONE_CORNER_CUT``)."""
    return (ONE_CORNER_CUT and n.path in ("number_one", "court_one") and whole >= PARTLY_COVERED
            and pips.cut_by_outline(card))


def _steady_corner(frame: np.ndarray, quad: np.ndarray, n: index_net.NetRead, scale: int) -> bool:
    """Whether the index corner of the one-corner reading ``n`` of the card under ``quad``, cut again from each of
    ``REREAD_OUTLINES`` (at ``scale``), reads ``n``'s rank and suit at ``STEADY_P`` in ``STEADY_SHARE`` of them."""
    assert n.index is not None
    corner = next(i for i, c in enumerate(n.index.corners) if c.is_index)
    reads = index_net.read_cuts([corner_cut(frame, v, corner, scale) for v in outline_variants(quad)])
    steady = sum(r == n.label[0] and pr >= STEADY_P and s == n.label[1] for r, pr, s, _ in reads)
    return steady >= STEADY_SHARE * len(reads)


def _count_covered(n: index_net.NetRead, whole: float) -> bool:
    """Whether the network's reading ``n`` of a card whose outline has wholeness ``whole`` names a number card by a
    pip count the hidden part may have cut short (``PARTLY_COVERED``, ``index_net.count_unbacked``)."""
    return COVERED_OUTLINE_COUNT and whole < PARTLY_COVERED and index_net.count_unbacked(n)


# the generic mode's glyph reader (where the network sees no index) is held to the blurred-black rules too
# (``index_net.glyph_pips_refuse``): a blurred spade number card whose pips show a club's leaves on half of them is
# unsure (KDE jolly-royal's TC of scene 501832, named the TS at 0.909 by the glyph reader)
GLYPH_BLURRED_BLACK = True

# an enrolled read of a spade number card whose pips show, CLUB_NOTCHED_SHARE of them or more, the notch between a
# club's leaves is unsure, on a deck whose own cards that notch tells apart (``Recogniser._club_notched``). The
# notches outlast a blur that leaves the templates, the network and the pips' shape all naming the spade: KDE's
# oxygen-air (never tuned on, its suit sign only in the pips) had a blurred 8C matched as the 8S at 0.86, margin 0.34,
# all eight of its pips notched 0.11-0.14 (a club's as drawn: 0.13-0.15; a spade's: none)
NOTCHED_SPADES_UNSURE = True
CLUB_NOTCHED_SHARE = 0.5

# and its mirror: an enrolled read of a club number card none of whose pips shows that notch, and whose pips' shape
# names the spade (``index_net.pips_refuse``), is unsure on such a deck (``Recogniser._club_plain``). aisleriot
# dondorf's small 3S (scene 500276 of the enrolled sweep of scenes 500150-299) was matched surely as the 3C (0.858,
# margin 0.336), both network corners on the club (0.66, 0.87: not blurred by ``index_net.BLURRED_WIDTH``), while
# none of its pips showed a club's leaves and their discriminant named the spade (0.56). Its cost, enrolled sweeps of
# 150 scenes: none of the tuning designs' right reads (scenes 500000-299), nor the held-out ones' (500000-149); of
# KDE's, two blurred clubs of oxygen-air whose leaves the blur took and whose pips' shape names the spade by
# 1.13-1.18 (the 3C of scene 500031, the 9C of 500117: 626 -> 624 right)
PLAIN_CLUBS_UNSURE = True

# an ace the enrolled templates name is unsure where its one big pip denies the suit twice, by its shape and by its
# notches (``_pips_deny``: ``index_net.pips_refuse``, the generic reader's check): KDE's jolly-royal (never tuned on)
# had an AC matched surely as the AS (0.834, margin 0.59; scene 500245 of the enrolled sweep of scenes 500150-299), its
# network corners agreeing (AS, suit 0.92 and 0.69), while its pip showed a club's leaves and the discriminant named
# the club by 1.02. Aces only: asked of every number card, the check also refused that scene's right 5C (jolly-royal
# draws its spades notched, and its pips' shape is no sure cue)
ENROLLED_ACE_PIP_UNSURE = True
# and a red number card the templates name is unsure where its pips name the other red suit by their shape
# (``index_net.pips_refuse``, ``PIP_SHAPE_BAR``; ``Recogniser._pips_deny_match``): KDE's oxygen-white (never tuned
# on) had a 3D lying partly under another card, neither corner index in view, matched as the 3H (0.855, margin 0.60
# against the 3D) while its three pips named the diamond by 0.85 (scene 502744 of the enrolled sweep at 502700,
# ``python -m tools.wrong_sweep --themes fresh --mode enrolled --first 502700``). The red pair only (some decks draw a
# spade's pip notched like a club's: jolly-royal, above), and red pips only: pips leaning to yellow
# (``index_net.YELLOW_PIPS``) are a Swiss deck's bells, whose shape the pip model, made on hearts and diamonds, names
# the heart - asked of them, the rule refused aisleriot swiss-xvii's right sevens of bells 11 times in the held-out
# sweep at 502400 (602 -> 591 right). Its time: the pips of every red number card the templates name (about 0.6 ms a
# card; plastic's drawn scenes, enrolled, 76.7 against 74.6 ms a frame, median, measured alternately)
ENROLLED_RED_PIPS_UNSURE = True
# and no enrolled read stands whose card its partner - the same rank in the other suit of its colour - explains
# about as well as its own template, compared piece by piece where the two differ (``vision.partner``;
# ``Recogniser._partner_fits_better``): the one cue of sessions 40-55 not made for one case. Eight wrong reads of
# designs never tuned on (scenes 503109, 503110, 503122, 503184, 503186, 503209, 503270, 503282 of the enrolled
# sweeps at 503000 and 503150: black aces and courts, a blurred 3S, a JD; each matched past the bar) score -0.10 to
# -0.72; none of 1,276 right reads of ten designs at 503000-503029 scores below ``PARTNER_MIN``, and 5 of 744 right
# reads of the development photos with their decks enrolled from photographs do. Asked of each card the
# templates name from an outline (``_read``: refused, the card's other outlines are read in turn) and at the last
# word on a card, on the outline it is reported with, whichever reading named it (``_identify``)
PARTNER_CHECK = True
PARTNER_MIN = -0.1
# ... and a match past the score bar and past the margin against every rival but its partner is named where the test
# gives it ``PARTNER_RESCUE_MIN`` or more (``Recogniser._partner_rescues``; the network's veto and the pips still
# ask). Chosen on the tuning designs (``tools.partner_scores --rescue``): their matches short of the margin against
# the partner alone, at the cards' outlines and outlines moved by 2 %, scenes 503000-503039
PARTNER_RESCUE = True
PARTNER_RESCUE_MIN = 0.3
# ... and the network's veto by the partner's suit, resting only on its corners' joint suit, gives way where the test
# gives the match that same bar or more (``Recogniser._partner_keeps_suit``): for a suit of the same colour the test
# is the deck's own cue, the network's joint suit a generic one
PARTNER_OVERRULES_SUIT = True


# a veto of an enrolled match stands only on what the network reads rightly on the deck's own cards: not where the
# other card it names has a rank, or the other suit it names a suit, that it gave this deck's cards of another rank
# or suit at enrollment (``index_vetoes``, given the deck's misnames). KDE's ancient-egyptians (never tuned on)
# prints its bottom index upright: the network, turning that corner, reads an upside-down heart as a spade, and its
# corners' joint suit vetoed right matches of hearts (5H, TH, KH at 0.91-0.96, margins 0.41-0.79) in 6 of 40
# scenes - while at enrollment it had named spades among that deck's hearts (``index_suit_misnames`` "SH")
VETO_NEEDS_TRUSTED_NAMES = True
# the templates' rank, below their bar and left standing by ``_rank_by_templates``, is not where both corners of the
# network read one other rank, one of them surely, unless the network gave that rank to the deck's cards of this rank
# at enrollment (``Recogniser._rank_read_otherwise``, ``Templates.index_rank_pairs``). KDE's ancient-egyptians: a
# blurred 9D matched as the 8D at 0.78 (margin 0.44), its corners reading the 9 at 0.59 and 0.98, had been named the
# 8D (scene 500389); at enrollment the network had read none of its eights as a nine (its sixes, 4 of 104 corners)
RANKED_RANK_UNREAD = True
# ... and where the templates short of their bar name the rank and the network only the suit (``_rank_by_templates``),
# both corners naming one other rank, however unsure, leave the card unsure: two cues that disagree on the rank. The
# boxes deck enrolled from its photos named two 7Ds of the poker table's deck (another deck, big pips) the TD, matched
# at 0.74 (margins 0.43 and 0.54) while both corners read the 7 at 0.63-0.84 (``tools/photo_bench.py --deck boxes``,
# train_06 and train_27, found in session 56; with every earlier session's code as well)
RANKED_RANK_DISAGREED = True
# ... nor does a match named only from another outline (``_reread_enrolled``), its first outline's match short of the
# bar, stand where the first outline's corners so read (``Recogniser._first_rank_otherwise``). The veto's own test
# (``contradicted``) asks both corners at ``CROSS_CHECK_P`` and sets aside every rank the network misnamed on the deck
# at enrollment, which left KDE ancient-egyptians' nine of diamonds, under a hand, matched as the 8D from an outline
# 10 % smaller (0.715, margin 0.55; first outline 0.794, margin 0.43) while the first outline's corners read the 9
# (0.96 and 0.79, the diamond at 0.93 and 0.99): the network had read the deck's sixes as nines, never its eights
# (scene 502111 of the enrolled sweep at 502100). (Asked of every match past the bar too, in ``contradicted``, it cost
# lattmann 3 of its 659 right reads at 501950: blurred threes whose corners read a 2, one surely)
RANK_READ_OTHERWISE_VETOES = True
# a veto by a suit of the other colour does not stand against the ink of both index corners (``_ink_keeps_colour``)
INK_KEEPS_COLOUR = True


# a card seen obliquely can look wider than long (the far half foreshortened): its outline is turned to start with
# the side that is short on the table, by the plane's own aspect (``plane_aspect``, the focal length taken as 1.5 times
# the half frame where the view does not give it, as the finder does: width over height within ``CARD_ASPECT``, a
# card lying across), where two opposite sides differ by ``ORIENT_OBLIQUE`` in the image (a view clearly oblique).
# (desk_query q16, a seven of clubs seen about 60 degrees off, had been cut across, mirrored and squashed)
ORIENT_OBLIQUE = 1.3


def _find_scaled(frame: np.ndarray, s: float, card_area: float | None, exclude: list[np.ndarray] | None,
                 whole_image: bool, any_surface: bool, small: np.ndarray | None = None,
                 camera: tuple[tuple[float, float], float] | None = None) -> list[Quad]:
    """The cards ``find_cards`` outlines in ``frame`` resized by ``s`` (``small``, when the caller has it), in
    ``frame``'s pixels; ``camera``: the whole image's principal point and focal length in ``frame``'s pixels, for a
    region of it."""
    small = _resized(frame, s) if small is None else small
    if s != 1.0:
        card_area = card_area * s * s if card_area else None
        exclude = [e * s for e in exclude] if exclude else None
    centre, focal = None, None
    if whole_image:
        centre = (small.shape[1] / 2, small.shape[0] / 2)
    elif camera is not None:
        centre, focal = (camera[0][0] * s, camera[0][1] * s), camera[1] * s
    quads = find_cards(small, card_area=card_area, exclude=exclude, centre=centre, any_surface=any_surface,
                       focal=focal)
    if s == 1.0:
        return quads
    return [replace(q, pts=(q.pts / s).astype(np.float32), alt=tuple((a / s).astype(np.float32) for a in q.alt))
            for q in quads]


def _resized(frame: np.ndarray, s: float) -> np.ndarray:
    """``frame`` scaled by ``s`` for the finder."""
    if s == 1.0:
        return frame
    # (bilinear sampling at a shrink of two or less: OpenCV's pixel-area averaging takes 10-12 ms of a 1920 x 1080
    # frame there, bilinear 2, and its sharper edges found and read more of the development photos' cards:
    # poker_table 201 / 133 -> 212 / 140; at a larger shrink it would alias)
    if s >= 0.5:
        return cv2.resize(frame, None, fx=s, fy=s, interpolation=cv2.INTER_LINEAR)
    # (a larger shrink, a phone's photo: halvings, then area averaging - the means one area averaging gives, a 4000 x
    # 3000 photo in 43 ms where it took 86; poker_table enlarged to 4800 px found / read 221 / 163 with one area
    # averaging, 224 / 164 so, 221 / 162 with a bilinear last step, 13 ms)
    return resample.shrink(frame, (round(frame.shape[1] * s), round(frame.shape[0] * s)))


def _median_short_side(quads: list[Quad], s: float) -> float | None:
    """The median short side, at the finder's scale ``s``, of the cards found whole (None: none was)."""
    sides = [float(row_lengths(q.pts[NEXT_CORNER] - q.pts).min()) * s for q in quads if q.whole > 0.9]
    return float(np.median(sides)) if sides else None


SAME_CARD_IOU = 0.5


def _second_look(first: list[Quad], again: list[Quad]) -> list[Quad]:
    """The outlines of a second look at a frame, enlarged (``again``), merged with the first look's (``first``).

    Each look splits some cards the other joined, and outlines some cards' pips the other saw whole: an outline of the
    second look that holds two or more cards the first found whole (``held_inside``: each 0.2-0.7 of it; a pair and the
    gap between them), or is a part of a card the first found whole (``part_of_card``), gives way to them (poker_table
    at 640 px: 212 / 135 -> 214 / 137 found / read). The first look's cards where the second found none stay: a pale
    table's faint card edges, spread over more pixels by the enlarging, can fall under the edge tests there. An outline
    both looks found alike (one each, overlapping by ``SAME_CARD_IOU``) gets the first look's as its
    alternative, read if its own is not read surely - only then: with every overlapping outline of the first look as
    an alternative, poker_table shrunk to 800 px gave 24 wrong reads (so, none)."""
    whole_first = [q for q in first if q.whole > 0.9]
    kept = [a for a in again if len(held_inside(a, whole_first, 0.2, 0.7)) < 2
            and not any(part_of_card(a.pts, q.pts) for q in whole_first)]
    out = []
    for a in kept:
        over = [q for q in first if overlaps_any(q.pts, [a.pts])]
        same = len(over) == 1 and quad_iou(over[0].pts, a.pts) >= SAME_CARD_IOU
        if same and sum(overlaps_any(over[0].pts, [b.pts]) for b in kept) == 1:
            a = replace(a, alt=a.alt + (over[0].pts,) + over[0].alt)
        out.append(a)
    return out + [q for q in first if not overlaps_any(q.pts, [a.pts for a in out])]


def _upright_in_plane(quads: list[Quad], centre: tuple[float, float], focal: float | None = None) -> list[Quad]:
    """The outlines (and their alternatives) each turned by one corner where the plane's aspect says the side taken as
    short by the image is the long one on the table (``focal``: the camera's, else ``focal_prior``)."""
    focal = focal or focal_prior(centre)

    def upright(q: np.ndarray) -> np.ndarray:
        sides = row_lengths(q[NEXT_CORNER] - q)
        if max(sides[0] / sides[2], sides[2] / sides[0], sides[1] / sides[3], sides[3] / sides[1]) < ORIENT_OBLIQUE:
            return q  # (seen nearly square-on: the image's own sides say which is short; the vanishing points, far
            # off, give the plane's aspect no better than the outline's noise - turned by it, 4 cards of the
            # development photos read before went unread)
        a = plane_aspect(q, centre, focal=focal)
        # (turned, a card's shape on the table: ``CARD_ASPECT``; an outline of no card's shape is left as it is)
        return q[NEXT_CORNER] if a is not None and CARD_ASPECT[0] <= a <= CARD_ASPECT[1] else q

    return [replace(q, pts=upright(q.pts), alt=tuple(upright(a) for a in q.alt)) for q in quads]


def outline_variants(quad: np.ndarray) -> list[np.ndarray]:
    """``quad`` (TL, TR, BR, BL) resized and shifted by each of ``REREAD_OUTLINES`` in the card's own plane (the
    homography of the unit square to the outline, so a card seen obliquely keeps its perspective)."""
    src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    h = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    out = []
    for sx, sy, dx, dy in REREAD_OUTLINES:
        x0, x1 = 0.5 - sx / 2 + dx, 0.5 + sx / 2 + dx
        y0, y1 = 0.5 - sy / 2 + dy, 0.5 + sy / 2 + dy
        c = np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float32)
        out.append(cv2.perspectiveTransform(c, h)[0])
    return out


def identify_json(rec: Recogniser, frame: np.ndarray) -> dict:
    """The ``identify`` command's answer for one frame."""
    from vision import mat as matlib

    t = time.perf_counter()
    try:
        cal: matlib.Calibration | None = matlib.calibrate(frame)
    except matlib.CalibrationError:
        cal = None  # no mat in view: cards are still found, a lone pile's top card less reliably
    reads = rec.identify(frame, cal)
    ms = (time.perf_counter() - t) * 1000
    return {"cards": [r.to_json() for r in reads], "ms": round(ms, 1), "mode": rec.mode, "mat": cal is not None}
