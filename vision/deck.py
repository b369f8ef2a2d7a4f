"""Deck enrollment: the reference features of one card design, saved as a single ``.npz`` file.

Enrollment checks that the deck is complete (54 cards, or the 24 of a Euchre deck) and that no two cards look the
same, and measures whether the two jokers can be told apart by reading rendered camera views of them (under a colour
cast: jokers often differ only in their ink's colour): if any read of a joker is wrong or its margin is below the
acceptance threshold, the deck is marked ``jokers_distinct = False`` and recognition answers "a joker, unsure which".
It also reads camera views of every card with the learned corner index (``index_test``): a deck whose indices or suit
signs that network misreads is marked ``index_trusted = False`` and read by its own templates alone; the ranks it
gives to the deck's cards of another rank (``index_misnames``) are never named on its word alone, and the suits it
gives to another suit's cards (``index_suit_misnames``) are never left to it.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision import exposure, features, finder, geometry, index_net, partner, pips
from vision import recognise as rc

RANKS = "AKQJT98765432"
SUITS = "SHDC"
ALL_CODES = [r + s for s in SUITS for r in RANKS] + ["BJ", "LJ"]
FULL = ALL_CODES
EUCHRE = [r + s for s in SUITS for r in "AKQJT9"]
FORMAT = "cardref-deck-1"


class DeckError(Exception):
    """A deck folder that cannot be read (the message names the folder or file)."""


IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".webp")
PHOTO_FORMATS_UNREAD = (".heic", ".heif", ".avif", ".dng", ".raw")  # OpenCV's wheels decode none of these


def load_deck(deck_dir: str, need_back: bool = False) -> dict[str, np.ndarray]:
    """Read a deck folder (one ``CODE.png`` per card, optional ``back.png``) into code -> BGR image."""
    if not os.path.isdir(deck_dir):
        raise DeckError(f"deck folder not found: {deck_dir}")
    images: dict[str, np.ndarray] = {}
    for name in sorted(os.listdir(deck_dir)):
        stem, ext = os.path.splitext(name)
        code = canonical_code(stem)
        if ext.lower() not in IMAGE_EXTENSIONS:
            if code is not None and ext.lower() in PHOTO_FORMATS_UNREAD:
                # (a phone's own format: said here, or the card would only show up as "missing")
                raise DeckError(f"{os.path.join(deck_dir, name)}: {ext} photos are not read; save {code} as JPEG or "
                                "PNG (most phones can: 'most compatible' in the camera's settings)")
            continue
        if code is None and stem.lower() != "back":
            continue
        path = os.path.join(deck_dir, name)
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        if img is None:
            raise DeckError(f"unreadable image: {path}")
        images["back" if code is None else code] = img
    if need_back and "back" not in images:
        raise DeckError(f"no back.png in {deck_dir}")
    return images


SUIT_WORDS = {"spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C"}
RANK_WORDS = {"ace": "A", "king": "K", "queen": "Q", "jack": "J", "ten": "T", "1": "A", "11": "J", "12": "Q",
              "13": "K"}


def canonical_code(text: str) -> str | None:
    """``10h`` -> ``TH``, ``hearts_12`` -> ``QH``, ``queen_of_hearts`` -> ``QH``; None when the text is not a card
    code. (Phone photos of a deck are often named by suit word and number: 1 = ace, 11-13 = jack, queen, king.)"""
    words = [w for w in text.strip().lower().replace("-", "_").replace(" ", "_").split("_") if w and w != "of"]
    if len(words) == 2:
        suit = [SUIT_WORDS[w] for w in words if w in SUIT_WORDS]
        rank = [RANK_WORDS.get(w, w.upper() if w.isdigit() and 2 <= int(w) <= 9 else "T" if w == "10" else "")
                for w in words if w not in SUIT_WORDS]
        if len(suit) == 1 and len(rank) == 1 and rank[0]:
            return rank[0] + suit[0]
    t = text.strip().upper()
    if t in ("BJ", "LJ"):
        return t
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) == 2 and t[0] in RANKS and t[1] in SUITS:
        return t
    return None


class EnrollError(Exception):
    """The deck cannot be enrolled (the message names the missing or duplicate cards)."""


@dataclass
class Deck:
    """An enrolled deck: its name, codes, templates and what enrollment found."""

    name: str
    codes: list[str]
    templates: rc.Templates
    report: dict

    @property
    def has_jokers(self) -> bool:
        """Whether the jokers were enrolled; without them a joker in play is read as unsure (a table playing a game
        with jokers says so when it starts)."""
        return "BJ" in self.codes

    def save(self, path: str) -> None:
        t = self.templates
        meta = {"format": FORMAT, "name": self.name, "codes": self.codes, "report": self.report,
                "jokers_distinct": t.jokers_distinct, "index_trusted": t.index_trusted,
                "index_misnames": t.index_misnames, "index_suit_misnames": t.index_suit_misnames,
                "index_rank_pairs": t.index_rank_pairs,
                "index_side": t.index_side, "notches_tell_black": t.notches_tell_black,
                "canonical": [geometry.CW, geometry.CH]}
        with open(path, "wb") as f:
            extra = {} if t.joker is None else {"joker": t.joker.astype(np.float32)}
            if t.partner is not None:
                extra["partner"] = t.partner.astype(np.uint8)
            np.savez_compressed(f, labels=np.array(t.labels), face=t.face.astype(np.float32),
                                corner=t.corner.astype(np.float32), meta=np.array(json.dumps(meta)), **extra)

    @classmethod
    def load(cls, path: str) -> Deck:
        if not os.path.exists(path):
            raise EnrollError(f"deck file not found: {path}")
        try:
            z = np.load(path, allow_pickle=False)
            meta = json.loads(str(z["meta"]))
        except (OSError, ValueError, KeyError) as exc:
            raise EnrollError(f"not a cardref deck file: {path} ({exc})") from exc
        if meta.get("format") != FORMAT or meta.get("canonical") != [geometry.CW, geometry.CH]:
            raise EnrollError(f"deck file {path} was made by another version; enroll the deck again")
        # (a file enrolled before the jokers' colour features has none: its templates alone tell the jokers apart)
        joker = z["joker"] if "joker" in z.files else None
        tpl = rc.Templates([str(x) for x in z["labels"]], z["face"], z["corner"], bool(meta["jokers_distinct"]), meta,
                           joker)
        # (a file enrolled before the corner network's test: trusted, as every deck was then)
        tpl.index_trusted = bool(meta.get("index_trusted", True))
        # (and before its test of misnamed ranks: none known; enrolling again measures them)
        tpl.index_misnames = str(meta.get("index_misnames", ""))
        # (and before its test of suits: none left to the network)
        suits = meta.get("index_suit_misnames")
        tpl.index_suit_misnames = None if suits is None else str(suits)
        # (and before they were kept per rank misnamed: ``index_misnames`` stands for every rank)
        pairs = meta.get("index_rank_pairs")
        tpl.index_rank_pairs = None if pairs is None else {str(k): str(v) for k, v in dict(pairs).items()}
        # (and before the partner test's grey copies: that test is then not asked)
        tpl.partner = z["partner"] if "partner" in z.files else None
        # (and before the index's side was measured: the left, the only one read then)
        side = str(meta.get("index_side", "left"))
        if side not in features.INDEX_SIDES:
            raise EnrollError(f"deck file {path}: index side {side!r} is not one of {', '.join(features.INDEX_SIDES)}")
        tpl.index_side = side
        # (and before the clubs' notches were measured: not known, so never asked)
        tpl.notches_tell_black = bool(meta.get("notches_tell_black", False))
        return cls(meta["name"], meta["codes"], tpl, meta["report"])


# a card's corner "tells its rank" when no template of a card of another rank correlates with it at RANK_BLIND or
# more. The index's corner does for nearly every card (at most 29 % of any of 43 drawn designs' cards fail); the other
# top corner fails for most (54-100 %: the ace to the three have no ink there). KDE's oxygen designs print the rank top
# right (oxygen-white the suit top left): there the left corner fails for 71-94 % of the cards, the right one for
# 0-37 %.
RANK_BLIND = 0.97
# the templates take the whole top strip (``features.INDEX_SIDES``) where the top-left corner fails for at least this
# share of the cards and the top-right one for at most half as many. (The strip rather than the right corner alone: with
# the right corner, oxygen-white's hearts and diamonds, their suit top left, lost their margin - 171 -> 150 right reads
# in 40 of the bench's scenes; with the strip 172, oxygen-air 146 -> 170, oxygen 152 either way)
TOP_STRIP_NEEDS = 0.5


def _rank_blind_share(labels: list[str], corners: np.ndarray) -> float:
    """The share of the cards (jokers and the back left out) whose corner region a template of a card of another
    rank matches at ``RANK_BLIND`` or better (one correlation of the whole regions: their places are the same)."""
    keep = [i for i, c in enumerate(labels) if c in FULL[:52]]
    if len(keep) < 2:
        return 0.0
    v = corners[keep].reshape(len(keep), -1).astype(np.float64)
    v -= v.mean(axis=1, keepdims=True)
    v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)
    corr = v @ v.T
    ranks = np.array([labels[i][0] for i in keep])
    corr[ranks[:, None] == ranks[None, :]] = -1.0
    return float((corr.max(axis=1) >= RANK_BLIND).mean())


def index_side(labels: list[str], left: np.ndarray, right: np.ndarray) -> str:
    """Where the corner templates look for the deck's index (``features.INDEX_SIDES``), from the templates of its
    top-left and its top-right corner (the right one mirrored): the top-left corner, unless it cannot tell most cards'
    ranks apart and the top-right one can (``RANK_BLIND``, ``TOP_STRIP_NEEDS``): then the whole top strip."""
    on_left, on_right = _rank_blind_share(labels, left), _rank_blind_share(labels, right)
    return "top" if on_left >= TOP_STRIP_NEEDS and on_right <= on_left / 2 else "left"


def templates_from_images(images: dict[str, np.ndarray]) -> rc.Templates:
    """The deck's templates: each card's face, and the region of its top where the deck prints its index
    (``index_side``)."""
    labels = list(images)
    cards = [features.canonical_card(img) for img in images.values()]
    # (the top-right corner mirrored: its region is the top-left one's of the mirrored card)
    left, right = (np.stack([features.corner_template(c[:, ::k], "left") for c in cards]) for k in (1, -1))
    side = index_side(labels, left, right)
    corners = left if side == "left" else np.stack([features.corner_template(c, side) for c in cards])
    jokers = {code: features.joker_feature(c) for code, c in zip(labels, cards, strict=True) if code in ("BJ", "LJ")}
    joker = np.stack([jokers["BJ"], jokers["LJ"]]) if len(jokers) == 2 else None
    return rc.Templates(labels, np.stack([features.face_feature(c) for c in cards]), corners, joker=joker,
                        index_side=side, partner=np.stack([partner.grey(c) for c in cards]))


def check_complete(images: dict[str, np.ndarray], where: str) -> list[str]:
    """The deck's codes, or an EnrollError naming what is missing. A deck without its jokers (52 cards) can be
    enrolled: its jokers are then unknown (``Deck.has_jokers`` is false and a joker is never named)."""
    codes = [c for c in images if c != "back"]
    if set(FULL) <= set(codes):
        return FULL
    if set(FULL[:52]) <= set(codes):
        return FULL[:52]
    if set(EUCHRE) <= set(codes) and len(codes) <= 26:
        return EUCHRE
    missing = [c for c in FULL if c not in codes]
    if len(codes) < 40:
        missing = [c for c in EUCHRE if c not in codes] or missing
    raise EnrollError(f"incomplete deck in {where}: missing {', '.join(missing)} (need 52 cards and optionally the "
                      "two jokers, or the 24 from 9 up)")


def _camera_view(img: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The card as an overhead camera might see it: turned, tilted, at table scale, blurred, noisy and compressed;
    returns the frame and the card's corners in it."""
    h, w = img.shape[:2]
    size = rng.uniform(150, 190)  # the card's long side in pixels, as on a 1280 x 720 view of the mat
    scale = size / max(h, w)
    angle = rng.uniform(0, 2 * np.pi)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - [w / 2, h / 2]
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    dst = (corners @ rot.T) * scale + [200, 200]
    dst = (dst + rng.normal(0, 2.5, dst.shape)).astype(np.float32)  # a slight perspective
    m = cv2.getPerspectiveTransform(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), dst)
    table = np.full((400, 400, 3), rng.uniform(40, 90, 3), np.float32)
    frame = cv2.warpPerspective(img.astype(np.float32), m, (400, 400), dst=table, borderMode=cv2.BORDER_TRANSPARENT)
    frame = cv2.GaussianBlur(frame, (0, 0), rng.uniform(0.4, 1.0))
    frame = np.clip(frame * rng.uniform(0.8, 1.1) + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 95))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), dst


def joker_test(images: dict[str, np.ndarray], tpl: rc.Templates, trials: int = 16, cast: float = 0.15) -> dict:
    """Read both jokers as a camera would see them, each colour channel's gain within ``cast`` of 1 (a camera's
    colour cast: jokers often differ only in their ink's colour): are they always told apart, with the acceptance
    margin?"""
    th = features.load_thresholds()["enrolled"]
    margins = []
    wrong = 0
    for seed in range(trials):
        rng = np.random.default_rng(10_000 + seed)
        for code in ("BJ", "LJ"):
            frame, quad = _camera_view(images[code], rng)
            frame = np.clip(frame * rng.uniform(1 - cast, 1 + cast, 3), 0, 255).astype(np.uint8)
            card = geometry.rectify_for_reading(frame, geometry.oriented(quad))
            label, _, margin = rc.match(tpl, card, True)
            if label != code:
                wrong += 1
                margin = -abs(margin)
            margins.append(margin)
    distinct = wrong == 0 and min(margins) >= th.margin
    return {"jokers_distinct": distinct, "joker_reads": len(margins), "joker_wrong": wrong,
            "joker_min_margin": round(min(margins), 3), "margin_needed": th.margin}


# the share of the deck's own camera views the corner network may veto before its veto is switched off for the deck:
# 0 of 208 on each of the 37 drawn designs of standard indices (the 8 of ../shared/decks in a development checkout,
# and the aisleriot themes) with the network before session 24, and with the one of session 24 on all but the two
# renderings of tango (below) and on the desk photos enrolled (desk/template); 57-65 of 208 on swiss-xvii (Swiss
# suit signs, which it reads as hearts and sixes), where the veto had left 47 of 180 right enrolled reads unsure.
# 5 % until session 24: the retrained network vetoes 4-5 of 208 views of the held-out tango (its red aces read as
# spades), and its veto then cost tango 24 of 648 right reads in 150 scenes (aisleriot, the drawn tango alike) - with
# any contradiction past 2 views, its templates read it alone
INDEX_VETO_SHARE = 0.01
SUIT_MISNAME_P = 0.5  # (even odds: a corner's suit sign taken for another suit's, not a blurred guess)


# the deck's black number cards measured for ``notches_tell_black``: at least this many of each suit with a clean
# pip layout
NOTCH_CARDS = 6


def notches_tell_black(images: dict[str, np.ndarray]) -> bool:
    """Whether a club's third notch tells this deck's black number cards apart (``pips.club_notched_share``): on its
    own cards as drawn, every pip of every club (2-10) shows it and no pip of any spade does, ``NOTCH_CARDS`` of each
    measured. 30 of the 43 drawn designs' do, KDE's oxygen-air among them; spades with a curled or footed stem show
    it too (plastic, slavic_costumes, atlasnye, jolly-royal), and Swiss and Italian suits have no clubs."""
    shares: dict[str, list[float]] = {"S": [], "C": []}
    for code in (r + s for r in "23456789T" for s in "SC"):
        if code in images:
            v = pips.club_notched_share(features.canonical_card(images[code]))
            if v is not None:
                shares[code[1]].append(v)
    return (min(len(shares["S"]), len(shares["C"])) >= NOTCH_CARDS and max(shares["S"]) == 0.0
            and min(shares["C"]) == 1.0)


def index_test(images: dict[str, np.ndarray], views: int = 4, seed: int = 1) -> dict:
    """Whether the learned corner index reads this deck: each standard card, rectified as it is and from ``views`` - 1
    camera views (``_camera_view``), read by the network and checked as an enrolled read of it would be
    (``recognise.index_vetoes``). A deck whose own cards it contradicts in more than ``INDEX_VETO_SHARE`` of the
    views (suit signs or indices of another pattern) is read by its templates alone: the veto would only make right
    reads unsure there, and the network's reading, offered where the templates are unsure, could only be wrong.
    ``index_misnames``: the ranks the network gave, in any corner of those views, to the deck's cards of another
    rank - the enrolled mode never names a card of those ranks on its word (``Recogniser._read``).
    ``index_suit_misnames``: the suits it gave, at ``SUIT_MISNAME_P`` or more, to the deck's cards of another suit -
    never left to it where the templates name a blurred card's rank (``Recogniser._rank_by_templates``); None when
    the network is not there to measure them."""
    if not os.path.exists(index_net.MODEL_PATH):
        return {"index_trusted": True, "index_views": 0, "index_vetoes": 0, "index_named_as": {}, "index_misnames": "",
                "index_suit_misnames": None, "index_rank_pairs": None}
    rng = np.random.default_rng(seed)
    codes = [c for c in images if len(c) == 2 and c[0] in "A23456789TJQK" and c[1] in SUITS]
    cards, truth = [], []
    for c in codes:
        img = images[c]
        cards.append(cv2.resize(img, (geometry.CW, geometry.CH), interpolation=cv2.INTER_AREA))
        for _ in range(views - 1):
            frame, quad = _camera_view(img, rng)
            cards.append(geometry.rectify_for_reading(frame, quad))
        truth += [c] * views
    net = index_net.shared()
    reads = [r for i in range(0, len(cards), 32) for r in net.read_corners_batch(cards[i : i + 32])]
    vetoed = [f"{c}->{r.code}" for c, r in zip(truth, reads, strict=True) if rc.index_vetoes(c, r)]
    # any corner read as another rank, however unsure: session 23's network read rheinland's German jacks as kings
    # here at 0.68 at most, and in table scenes at 0.95-0.99. Of the 27 tuning designs, with that network berlin
    # ("KJ") and guyenne-classic ("K") list any; with session 24's, guyenne-classic alone ("Q"). Kept per rank of
    # the cards misnamed too (``recognise.Recogniser._rank_read_otherwise``)
    rank_pairs: dict[str, set[str]] = {}
    for c, r in zip(truth, reads, strict=True):
        for cr in r.corners:
            if cr.is_index and cr.rank != c[0]:
                rank_pairs.setdefault(c[0], set()).add(cr.rank)
    misnames = set().union(*rank_pairs.values())
    # (a four-colour deck's signs it takes for another suit's: atlasnye_skat's green spades and yellow diamonds)
    suit_misnames = {cr.suit for c, r in zip(truth, reads, strict=True) for cr in r.corners
                     if cr.suit in SUITS and cr.suit != c[1] and cr.p_suit >= SUIT_MISNAME_P}
    # images named for other cards: cards every view of which it surely reads as one other card of the deck, where
    # two such are each other's (two names swapped) or where these are all it contradicts (a pattern it does not
    # know contradicts it here and there, as swiss-xvii's shields and bells: 65 of its 208 views, 6 cards with every
    # view read as another card and many more with some)
    by_card: dict[str, list[str | None]] = {}
    for c, r in zip(truth, reads, strict=True):
        by_card.setdefault(c, []).append(r.code if rc.index_vetoes(c, r) else None)
    every = {c: v[0] for c, v in by_card.items() if v[0] in codes and v[0] != c and len(set(v)) == 1}
    named_as = {c: d for c, d in every.items() if every.get(d) == c}
    if {c for c, v in by_card.items() if any(v)} == set(every):
        named_as = every
    return {"index_trusted": len(vetoed) <= INDEX_VETO_SHARE * len(reads), "index_views": len(reads),
            "index_vetoes": len(vetoed), "index_vetoed": sorted(set(vetoed))[:8], "index_named_as": named_as,
            "index_misnames": "".join(r for r in RANKS if r in misnames),
            "index_suit_misnames": "".join(x for x in SUITS if x in suit_misnames),
            "index_rank_pairs": {t: "".join(r for r in RANKS if r in v) for t, v in sorted(rank_pairs.items())}}


def enroll_images(images: dict[str, np.ndarray], name: str, where: str) -> Deck:
    """Enroll a deck from its card images; raises EnrollError when it is incomplete or has look-alike cards."""
    codes = check_complete(images, where)
    use = {c: images[c] for c in codes}
    if "back" in images:
        use["back"] = images["back"]
    tpl = templates_from_images(use)
    # the same picture twice (a copied file): nearly no pixel differs, where two real cards differ in a pip at least
    size = (geometry.CW, geometry.CH)
    small = {c: cv2.resize(img, size, interpolation=cv2.INTER_AREA).astype(np.int16) for c, img in use.items()}
    dupes = []
    keys = list(small)
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            if {a, b} != {"BJ", "LJ"} and (np.abs(small[a] - small[b]).max(axis=2) > 60).sum() < 8:
                dupes.append(f"{a}={b}")
    if dupes:
        raise EnrollError(f"cards in {where} look identical: {', '.join(dupes)} (wrong file names?)")
    tpl.notches_tell_black = notches_tell_black(use)
    report: dict = {"cards": len(codes), "back": "back" in images, "jokers": "BJ" in codes,
                    "index_side": tpl.index_side, "notches_tell_black": tpl.notches_tell_black}
    if "BJ" in codes:
        report.update(joker_test(use, tpl))
        tpl.jokers_distinct = bool(report["jokers_distinct"])
    report.update(index_test(use))
    if report["index_named_as"]:
        # a template of another card under a card's name would have the enrolled mode name that card wrong, and
        # the network's veto, contradicted by the deck's own cards, would be off (``index_trusted``)
        named = ", ".join(f"the card named {c} reads as the {d}" for c, d in sorted(report["index_named_as"].items()))
        raise EnrollError(f"cards in {where} look like other cards of the deck to the built-in index reader, in every "
                          f"view: {named} (wrong file names? name each image for the card it shows)")
    tpl.index_trusted = bool(report["index_trusted"])
    tpl.index_misnames = str(report["index_misnames"])
    tpl.index_suit_misnames = report["index_suit_misnames"]
    tpl.index_rank_pairs = report["index_rank_pairs"]
    return Deck(name, codes, tpl, report)


def card_in_photo(img: np.ndarray, where: str, code: str | None = None,
                  size: tuple[int, int] = (geometry.CW, geometry.CH)) -> np.ndarray:
    """The one card of an enrollment image, rectified to the canonical size (or ``size``): a card image that is the
    card alone (a scan, a rendered design) or a photo of the card lying alone on any surface (a phone held over a
    table). No card, or more than one, is an EnrollError naming ``where``. ``code``: the card the image is of (its
    outline is then the first the generic reader names it from, ``outline_named``)."""
    img = enrollment_view(img)
    pts = card_outline_in_photo(img, where, code)
    return features.canonical_card(img, size) if pts is None else geometry.rectify(img, pts, size)


def enrollment_view(img: np.ndarray) -> np.ndarray:
    """An enrollment image as its card is found and cut from it (``card_in_photo``)."""
    # (a photo under a coloured light has its cast taken out, and a dim one is brightened, as every photograph read
    # is: the enrolled card looks as the cards read against it will - ``vision.exposure``)
    return exposure.adjusted(img, exposure.gain(img) if ENROLL_GAIN else 1.0, exposure.cast(img))


def card_outline_in_photo(img: np.ndarray, where: str, code: str | None = None) -> np.ndarray | None:
    """The outline ``card_in_photo`` cuts the card along, in an image already seen as enrollment sees it
    (``enrollment_view``); None where the card fills the file, whose pixels are then the card's."""
    try:
        quad = card_quad_in_photo(img, where)
    except EnrollError:
        found = card_named_in_photo(img, code) if code is not None and NAMED_IN_PHOTO else None
        if found is None:
            raise
        quad = found
    if cv2.contourArea(quad.pts) > FILLS_FILE * img.shape[0] * img.shape[1]:  # the file is the card: keep its pixels
        return None
    # (an outline with no alternatives is the one chosen: ``outline_named`` would read it to return it)
    return outline_named(img, quad, code) if code is not None and OUTLINE_NAMED and quad.alt else quad.pts


# enrollment takes a photographed card's first outline that the generic reader names it from (``outline_named``)
OUTLINE_NAMED = True


def outline_named(img: np.ndarray, quad: geometry.Quad, code: str) -> np.ndarray:
    """Of the finder's outline of a photographed card and its alternatives (``quad``), the first from which the
    generic reader names the card ``code`` (the card the photo is of); the first where it names it from none.

    The finder's first outline can take in a strip of the table beside the card: a ten of spades on pale wood grain
    (boxes_train cam_image31) was outlined with a wedge of the grain along one side, and its template held the
    grain; against it the deck's own ten of spades matched the ten of clubs' template best (boxes_test IMG_2461,
    2571, 2592, cam_image5). The generic reader read that outline unsure and named the card from the alternative,
    the card's own outline."""
    reader = rc.generic_recogniser()
    for pts in (quad.pts, *quad.alt):
        label, _, _, ok, _, _ = reader._read_outline(img, pts)
        if ok and label == code:
            return pts
    return quad.pts


# a photographed card enrollment's own search does not find is taken where the generic reader names it alone
# (``card_named_in_photo``)
NAMED_IN_PHOTO = True
# enrollment brightens a dim photo as the reading does (``card_in_photo``)
ENROLL_GAIN = True


def card_named_in_photo(img: np.ndarray, code: str) -> geometry.Quad | None:
    """The outline of the card ``code`` in an enrollment photo, where the generic reader's whole reading of the photo
    (``Recogniser.identify``) names that card and no other; else None.

    Enrollment's own search (``card_quad_in_photo``) is the finder alone, at the photo's size. The generic reading
    also brightens a dim photo, looks again at small cards enlarged, and reads the outlines it is not sure of
    from the other views' outlines: the boxes deck's photos dimmed, blurred or crossed by a shadow's edge
    (``tools/photo_bench.py``'s ``--alter dim``, ``blur``, ``shadow``) had the king of spades, the jack of spades
    and the ten of spades refused as "no card found", each of them named by the generic reader."""
    reads = rc.generic_recogniser().identify(img)
    named = [r for r in reads if r.code == code]
    if len(named) != 1 or any(r.code is not None and r.code != code for r in reads):
        return None
    return geometry.Quad(np.asarray(named[0].quad, np.float32), named[0].whole)


# a card whose outline covers more than this share of its image is the image itself (a scan, a rendered design)
FILLS_FILE = 0.85
# how many of a folder's number cards ``looks_like_photos`` looks at (number cards: a court's picture frame is
# card-shaped and could be taken for a card lying in the image)
PHOTO_SAMPLE = 5


def card_quad_in_photo(img: np.ndarray, where: str) -> geometry.Quad:
    """The finder's outline of the one card in an enrollment image (``card_in_photo``), with its alternatives, in
    the image's pixels.

    The image is searched with a plain dark border round it, so a card that fills its file is found like one lying
    on a table. Outlines inside another card (a court's frame, a pip panel) are parts of it. No card, or more than
    one, is an EnrollError naming ``where``."""
    h, w = img.shape[:2]
    s = min(1.0, rc.FIND_SIDE / max(h, w))
    small = img if s == 1.0 else cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    pad = max(8, int(0.06 * max(small.shape[:2])))
    framed = cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(40, 40, 40))
    # a card photographed to be enrolled fills a good part of the photo: smaller outlines are other things
    centre = (pad + small.shape[1] / 2, pad + small.shape[0] / 2)
    quads = [q for q in finder.find_cards(framed, min_side=0.1 * max(small.shape[:2]), centre=centre) if q.whole > 0.8]
    quads.sort(key=lambda q: -cv2.contourArea(q.pts))
    cards: list[geometry.Quad] = []
    for q in quads:
        cen = tuple(map(float, q.pts.mean(axis=0)))
        if cards and cv2.contourArea(q.pts) < 0.4 * cv2.contourArea(cards[0].pts):
            continue  # far smaller than the card in the photo: another object, not a second card of this deck
        if not any(cv2.pointPolygonTest(c.pts.reshape(-1, 1, 2), cen, False) >= 0 for c in cards):
            cards.append(q)
    if not cards:
        raise EnrollError(f"no card found in {where}: photograph one card alone, face up, all of it in view and "
                          "evenly lit (no shadow across it), on a plain surface that differs from the card")
    if len(cards) > 1:
        raise EnrollError(f"{len(cards)} cards found in {where}: photograph one card at a time")
    q = cards[0]
    return dataclasses.replace(q, pts=((q.pts - pad) / s).astype(np.float32),
                               alt=tuple(((a - pad) / s).astype(np.float32) for a in q.alt))


def looks_like_photos(images: dict[str, np.ndarray]) -> bool:
    """Whether a deck folder's images are photographs of cards lying on a surface rather than the cards alone: in
    most of its first number cards (``PHOTO_SAMPLE``) a card is found that does not fill the image. (One is not
    enough: in an image of a card alone the finder may outline a panel of its design, as in two of the first five of
    aisleriot's tango_nuevo; a photograph shows a card on its surface in all of them.)"""
    sample = [c for c in sorted(images) if c[:1] in "23456789T" and len(c) == 2][:PHOTO_SAMPLE]
    small = 0
    for code in sample:
        img = images[code]
        try:
            pts = card_quad_in_photo(img, code).pts
        except EnrollError:
            continue  # (decides nothing: a design the finder does not outline is enrolled as it is)
        small += cv2.contourArea(pts) <= FILLS_FILE * img.shape[0] * img.shape[1]
    return small > len(sample) / 2


def enroll_dir(deck_dir: str, photos: bool | None = None) -> Deck:
    """Enroll a deck folder: one image per card, named by its code (``AS.png``) or by suit and number
    (``spades_1.jpg``). With ``photos``, each image is a photograph of the card alone on a surface (or the card
    alone): the card is found and rectified first (``card_in_photo``). ``None``: photographs if the folder looks
    like them (``looks_like_photos``): a user who photographed a deck and left out ``--photos`` had every template
    made of a whole photo, and the deck read almost nothing. The report says which (``photos``)."""
    try:
        images = load_deck(deck_dir)
    except DeckError as exc:
        raise EnrollError(str(exc)) from exc
    if photos is None:
        photos = looks_like_photos(images)
    if photos:
        names = {canonical_code(os.path.splitext(n)[0]) or "back": n for n in sorted(os.listdir(deck_dir))
                 if os.path.splitext(n)[0].lower() == "back" or canonical_code(os.path.splitext(n)[0])}
        images = {c: card_in_photo(img, os.path.join(deck_dir, names.get(c, c)), c) for c, img in images.items()}
    deck = enroll_images(images, os.path.basename(os.path.normpath(deck_dir)), deck_dir)
    deck.report["photos"] = photos
    return deck


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
        # The light's cast is taken out before the card is looked for, as the recogniser and the play detector take
        # it out before they look: under a warm lamp a card's paper is as yellow as the mat's glare, and looked for in
        # the raw frame a court was found by the finder network alone, short of whole (or cut along a wrong outline).
        even = exposure.adjusted(frame, 1.0, exposure.cast(frame))
        quads = [q for q in finder.find_cards(even) if q.whole > 0.9]
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
            # (cut from the frame with the cast out: the play detector reads its frames against these, cast out too)
            images[codes[k]] = geometry.rectify(even, q)
            progress(f"took {codes[k]} ({k + 1}/{len(codes)}); take it away")
            k += 1
            count, last_quad, need_empty = 0, None, True
            if k == len(codes):
                break
    if k < len(codes):
        raise EnrollError(f"the camera stream ended after {k} of {len(codes)} cards (next: {codes[k]})")
    return images
