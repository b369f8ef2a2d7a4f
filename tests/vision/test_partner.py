"""The partner test (``vision.partner``, ``recognise.PARTNER_CHECK``): an enrolled read stands only where the card
meets its own suit's pieces better than those of the same rank in the other suit of its colour. The wrong reads it
was made for are designs nothing was tuned on, at scenes of the enrolled sweeps at 503000 and 503150."""

import cv2
import numpy as np

from tools import synth
from vision import deck as decklib
from vision import features, geometry, partner, recognise


def test_each_suit_has_one_partner_of_its_colour():
    assert [partner.partner_of(c) for c in ("AS", "TC", "QH", "2D")] == ["AC", "TS", "QD", "2H"]
    assert partner.partner_of("BJ") is None and partner.partner_of("back") is None


def _shifted(card: np.ndarray, scale: float, dx: int, dy: int) -> np.ndarray:
    """``card`` cut as a finder's outline a little off would cut it: scaled about its middle and moved."""
    h, w = card.shape[:2]
    m = np.float32([[scale, 0, (1 - scale) * w / 2 + dx], [0, scale, (1 - scale) * h / 2 + dy]])
    return cv2.warpAffine(card, m, (w, h), borderMode=cv2.BORDER_REPLICATE)


def test_a_card_meets_its_own_suits_pieces_whichever_way_it_lies_and_cut_a_little_off(kde_deck):
    """Every number card and court of KDE's standard deck, blurred, cut a tenth large or short and moved, and turned
    half a turn: it scores above 0.1 for its own suit against its partner, and below -0.1 the other way round."""
    images = synth.load_deck(str(kde_deck("standard")))
    pics = {c: partner.picture(features.canonical_card(img)) for c, img in images.items()}
    for code in (r + s for r in "A23456789TJQK" for s in "SHDC"):
        other = partner.partner_of(code)
        card = cv2.GaussianBlur(features.canonical_card(images[code]), (0, 0), 1.5)
        for scale, dx, dy, turned in ((1.0, 0, 0, False), (1.1, 3, -4, True), (0.92, -4, 5, False)):
            cut = _shifted(card, scale, dx, dy)
            x = partner.picture(cv2.rotate(cut, cv2.ROTATE_180) if turned else cut)
            s = partner.partner_score(x, pics[code], pics[other])
            assert s > 0.1, (code, scale, s)
            assert partner.partner_score(x, pics[other], pics[code]) < -0.1


def _named(deck: decklib.Deck, folder, seed: int, code: str) -> list[str | None]:
    """The codes the recogniser of ``deck`` gives the outlines over the card ``code`` of the bench's scene ``seed``."""
    scene = synth.random_scene(synth.load_deck(str(folder)), seed, n_cards=7)
    truth = next(c for c in scene.cards if c.code == code).quad.astype(np.float32)
    return [r.code for r in recognise.Recogniser(deck).identify(scene.image)
            if geometry.quad_iou(r.quad, truth) > 0.6]


def test_a_blurred_three_of_spades_is_not_named_its_partner(kde_enrolled, monkeypatch):
    """KDE's oxygen-white, scene 503186: a blurred 3S, whole, was matched as the 3C on every outline but one (0.862,
    margin 0.56); its pieces meet the spade's (-0.33 for the club). With the test, the club is refused and the card
    read again, now the 3S; without it, the 3C."""
    folder, deck = kde_enrolled("oxygen-white")
    assert _named(deck, folder, 503186, "3S") == ["3S"]
    monkeypatch.setattr(recognise, "PARTNER_CHECK", False)
    assert _named(deck, folder, 503186, "3S") == ["3C"]


def test_a_dark_ace_of_clubs_is_not_named_the_ace_of_spades(kde_enrolled, monkeypatch):
    """KDE's oxygen (light pips on a dark card), scene 503122: an AC lying upside down matched as the AS (0.887,
    margin 0.54), the corner network seeing no index it knows. Unsure with the test; the AS without."""
    folder, deck = kde_enrolled("oxygen")
    assert _named(deck, folder, 503122, "AC") in ([None], ["AC"])
    monkeypatch.setattr(recognise, "PARTNER_CHECK", False)
    assert _named(deck, folder, 503122, "AC") == ["AS"]


def test_a_card_read_again_from_another_outline_is_judged_on_its_own(kde_enrolled, monkeypatch):
    """KDE's oxygen-white, scene 503209: a QS matched as the QC on its own outline (-0.03 for the club there) and
    named the QC from an outline a few per cent off (0.858, margin 0.45), where the test scores the club 0.004 - a
    hair's breadth. The last word is the test on the outline the card is reported with (its own), whichever reading
    named it: unsure."""
    folder, deck = kde_enrolled("oxygen-white")
    assert _named(deck, folder, 503209, "QS") in ([None], ["QS"])
    monkeypatch.setattr(recognise, "PARTNER_CHECK", False)
    assert _named(deck, folder, 503209, "QS") == ["QC"]


def test_a_big_pip_design_held_out_keeps_its_clubs(aisleriot_deck, monkeypatch):
    """aisleriot's tango_nuevo (held out: one big pip fills the card, its index a big letter the network does not
    read), scene 503270: a 6C cut low matched as the 6S (0.863, margin 0.39). Its pieces meet the club's (-0.79 for
    the spade): not the 6S."""
    folder = aisleriot_deck("tango_nuevo")
    deck = decklib.enroll_dir(str(folder))
    assert _named(deck, folder, 503270, "6C") in ([None], ["6C"])
    monkeypatch.setattr(recognise, "PARTNER_CHECK", False)
    assert _named(deck, folder, 503270, "6C") == ["6S"]


def test_the_pictures_are_kept_in_the_deck_file_and_an_older_file_asks_no_test(kde_enrolled, tmp_path):
    """The deck file keeps each card in grey at the test's size (``partner.grey``: the pictures are made of it when
    read, so a file outlives a change in how); a file from before the test loads without them, and its reads are not
    tested (the templates' verdict stands as it did)."""
    folder, deck = kde_enrolled("standard")
    path = str(tmp_path / "standard.npz")
    deck.save(path)
    loaded = decklib.Deck.load(path)
    assert loaded.templates.partner is not None
    np.testing.assert_array_equal(loaded.templates.partner, deck.templates.partner)
    with np.load(path) as z:
        files = {k: z[k] for k in z.files if k != "partner"}
    np.savez_compressed(path, **files)
    older = decklib.Deck.load(path)
    assert older.templates.partner is None
    club = features.canonical_card(synth.load_deck(str(folder))["7C"])
    assert recognise.Recogniser(loaded)._partner_fits_better("7S", club)
    assert not recognise.Recogniser(older)._partner_fits_better("7S", club)


def test_the_scores_tool_gives_a_wrong_reads_score_and_counts_the_right_ones_below_the_bar(kde_deck, capsys):
    """``tools.partner_scores`` (how ``PARTNER_MIN`` was chosen) reads a scene with the test off: oxygen-white's
    blurred 3S of scene 503186, named the 3C, scores well below the bar; the scene's right reads do not."""
    from tools import partner_scores

    assert partner_scores.main([str(kde_deck("oxygen-white")), "--seeds", "503186"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "scene 503186: 3S named 3C" in x)
    assert float(line.rsplit(" ", 1)[1]) < recognise.PARTNER_MIN
    assert "at or below the bar 0" in out


def test_the_tool_measures_the_rescue(decks_dir, capsys):
    """``tools.partner_scores --rescue`` (how ``PARTNER_RESCUE_MIN`` was chosen): neoclassical's 3C of scene 503015,
    matched as the 3S short of the margin against the 3C alone at its outline and at two outlines moved, scores well
    under the bar each time, and the report says none of its wrong candidates reaches it."""
    from tools import partner_scores

    assert partner_scores.main(["--rescue", str(decks_dir / "neoclassical"), "--seeds", "503015"]) == 0
    out = capsys.readouterr().out
    lines = [x for x in out.splitlines() if "scene 503015: 3C matched as 3S" in x]
    assert len(lines) == 3
    assert all(float(x.split("partner score ")[1].split(",")[0]) < 0 for x in lines)
    assert "wrong 3, highest partner score -0.441, at or above the bar 0" in out


def _cut_match(rec: recognise.Recogniser, folder, seed: int, code: str):
    """The card ``code`` of the bench's scene ``seed`` cut at its own outline, and the templates' match of it:
    (cut, label, score, margin against each rival)."""
    scene = synth.random_scene(synth.load_deck(str(folder)), seed, n_cards=7)
    quad = next(c for c in scene.cards if c.code == code).quad.astype(np.float32)
    cut = rec._cut(scene.image, quad)[0]
    by_rival: dict[str, float] = {}
    label, score, _ = recognise.match(rec.templates, cut, rec.use_face, rec.same, by_rival=by_rival)
    return cut, label, score, by_rival


def test_a_match_short_only_against_its_partner_is_named_by_the_test(decks_dir, monkeypatch):
    """The tuning design simplistic, scene 500032: a blurred 8S matched at 0.90 with a margin of 0.03 against the 8C
    and past the bar against every other card; the partner test gives the spade 0.5 (``PARTNER_RESCUE_MIN`` 0.3):
    read the 8S. Without the rescue, unsure."""
    folder = decks_dir / "simplistic"
    deck = decklib.enroll_dir(str(folder))
    assert _named(deck, folder, 500032, "8S") == ["8S"]
    monkeypatch.setattr(recognise, "PARTNER_RESCUE", False)
    assert _named(deck, folder, 500032, "8S") == [None]


def test_the_rescue_does_not_name_the_partner(decks_dir, monkeypatch):
    """neoclassical, scene 503015: a blurred 3C matched as the 3S at 0.93, a margin of 0.06 against the 3C alone -
    the kind of match the rescue is asked of - scores -0.44 by the partner test: not rescued. It would be at a bar
    below its score, which is what the bar holds."""
    rec = recognise.Recogniser(decklib.enroll_dir(str(decks_dir / "neoclassical")))
    cut, label, score, by_rival = _cut_match(rec, decks_dir / "neoclassical", 503015, "3C")
    assert label == "3S" and 0.0 <= by_rival["3C"] < rec.threshold.margin
    assert not rec._partner_rescues(label, score, by_rival, cut)
    monkeypatch.setattr(recognise, "PARTNER_RESCUE_MIN", -1.0)
    assert rec._partner_rescues(label, score, by_rival, cut)
