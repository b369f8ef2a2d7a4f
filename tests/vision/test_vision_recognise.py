import cv2
import numpy as np
import pytest

from tools import synth
from vision import finder, geometry, index_net, net_outlines, pairs, recognise, regions


def _match(reads, card):
    best = None
    for r in reads:
        iou = geometry.quad_iou(r.quad, card.quad.astype(np.float32))
        if iou > 0.8 and (best is None or iou > best[0]):
            best = (iou, r)
    return None if best is None else best[1]


def test_enrolled_reads_are_right_or_unsure(tango, tango_deck):
    rec = recognise.Recogniser(tango_deck)
    accepted = whole = 0
    for seed in range(4):
        scene = synth.random_scene(tango, seed, n_cards=7)
        reads = rec.identify(scene.image)
        for card in scene.cards:
            r = _match(reads, card)
            if r is not None and r.code is not None:
                accepted += 1
                assert r.code == card.code, (seed, card.code, r)
            if card.visible > 0.99 and card.face_up:
                whole += 1
        for r in reads:  # nothing read where there is no card
            if r.code is not None:
                assert any(geometry.quad_iou(r.quad, c.quad.astype(np.float32)) > 0.5 for c in scene.cards)
    assert accepted >= whole // 2


def test_quad_corners_are_accurate_on_a_clean_scene(tango):
    poses = [synth.CardPose("7D", 500, 400, 25), synth.CardPose("QS", 800, 380, 100)]
    scene = synth.render_table(tango, poses, seed=2, nuisance=synth.Nuisance.none(), hand=False)
    quads = finder.find_cards(scene.image)
    for card in scene.cards:
        q = [q for q in quads if geometry.quad_iou(q.pts, card.quad.astype(np.float32)) > 0.9]
        assert q, card.code
        # same corners up to the 0/180 degree ambiguity
        d0 = np.abs(q[0].pts - card.quad).max()
        d1 = np.abs(np.roll(q[0].pts, 2, axis=0) - card.quad).max()
        assert min(d0, d1) < 4.0


def test_lookalike_jokers_are_never_named_when_not_distinct(tango, tango_deck):
    import copy

    deck = copy.deepcopy(tango_deck)
    deck.templates.jokers_distinct = False
    rec = recognise.Recogniser(deck)
    scene = synth.render_table(tango, [synth.CardPose("BJ", 600, 400, 10)], seed=1, hand=False)
    reads = rec.identify(scene.image)
    assert reads and all(r.code is None for r in reads)
    assert any(r.joker for r in reads)


def test_empty_table_reads_nothing(tango, tango_deck):
    rec = recognise.Recogniser(tango_deck)
    for seed in range(3):
        scene = synth.render_table(tango, [], seed=seed)
        assert all(r.code is None for r in rec.identify(scene.image))


def _card_in_frame(img: np.ndarray, angle: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """A card design laid on a plain green frame, 240 px wide, turned by ``angle``: the frame and the card's quad."""
    import cv2

    h, w = img.shape[:2]
    frame = np.full((700, 900, 3), (40, 110, 40), np.uint8)
    c, s = np.cos(angle), np.sin(angle)
    tl = np.array([300, 150], np.float32)
    quad = np.array([tl, tl + [240 * c, 240 * s], tl + [240 * c - 340 * s, 240 * s + 340 * c],
                     tl + [-340 * s, 340 * c]], np.float32)
    m = cv2.getPerspectiveTransform(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), quad)
    cv2.warpPerspective(img, m, (900, 700), frame, borderMode=cv2.BORDER_TRANSPARENT)
    return frame, quad


def test_corner_cut_is_the_readers_corner_of_the_rectified_card(decks_dir):
    from vision import index_net

    frame, quad = _card_in_frame(synth.load_deck(str(decks_dir / "paris"))["QH"], 0.5)
    for scale in (1, 2):
        inputs = index_net.both_corners(geometry.rectify_for_reading(frame, quad, scale))
        for corner in (0, 1):
            cut = index_net._net_input(geometry.corner_cut(frame, quad, corner, scale))
            assert np.abs(cut - inputs[corner, 0]).mean() < 0.01, (scale, corner)


def test_a_court_whose_outline_cuts_off_a_corner_is_read_from_another_outline(decks_dir):
    import cv2

    rec = recognise.Recogniser(None)
    frame, quad = _card_in_frame(synth.load_deck(str(decks_dir / "anglo_modern"))["KS"])
    short = quad[0] + (quad - quad[0]) * 0.93  # an outline 7 % short on the right and at the bottom
    big = geometry.rectify_for_reading(frame, short, 2)
    label, _, _, ok, first = rec._read(cv2.resize(big, (geometry.CW, geometry.CH)), big)
    assert (label, ok) == ("KS", False) and first is not None  # one corner alone does not name a court
    again = rec._reread(frame, short, 2, first)
    assert again is not None and again[0] == "KS" and again[1] >= recognise.REREAD_P


def test_an_enrolled_card_whose_outline_is_off_is_matched_from_another_outline(tango, tango_deck):
    import cv2

    rec = recognise.Recogniser(tango_deck)
    for code in ("QS", "9S"):
        frame, quad = _card_in_frame(tango[code])
        short = quad[0] + (quad - quad[0]) * 0.94  # 6 % short on the right and at the bottom
        big = geometry.rectify_for_reading(frame, short, 2)
        label, score, _, ok = rec.read_and_accept(cv2.resize(big, (geometry.CW, geometry.CH)), big)
        assert (label, ok) == (code, False) and score >= recognise.ENROLLED_REREAD_FROM
        again = rec._reread_enrolled(frame, short)
        assert again is not None and again[0] == code and again[2] >= recognise.ENROLLED_REREAD_MARGIN
        # and ``identify`` does it: the frame's card is read whatever outline its finder draws
        assert [r.code for r in rec.identify(frame)] == [code]


def test_a_card_the_hand_drawn_views_outline_badly_is_read_from_the_networks_outline(tango, tango_deck):
    # in scene 500092 the hand-drawn views outline the 6H, lying whole, at IoU 0.58 (a part of the card); the network's
    # outline of it (0.98) is kept beside it and read when the first reads nothing - without it the 6H is not read.
    # (Scene 500006's QD held this until the networks were made by today's training command (finder seed 1), which
    # gives that card no outline of its own: it is unsure. Scene 500011's 6D was a second such card until a region
    # with one card's shape stopped being split as a pair: it is now outlined right at once, and read.)
    rec = recognise.Recogniser(tango_deck)
    for seed, code, by_alternative in ((500092, "6H", True), (500011, "6D", False)):
        scene = synth.random_scene(tango, seed, n_cards=7)
        truth = next(c for c in scene.cards if c.code == code).quad.astype(np.float32)
        if by_alternative:
            q = next(q for q in finder.find_cards(scene.image) if q.alt and geometry.quad_iou(q.alt[0], truth) > 0.9)
            assert geometry.quad_iou(q.pts, truth) < 0.7
        r = _match(rec.identify(scene.image), next(c for c in scene.cards if c.code == code))
        assert r is not None and r.code == code


def _neoclassical_3c(decks_dir, seed, code="3C", design="neoclassical"):
    from vision import deck

    images = synth.load_deck(str(decks_dir / design))
    scene = synth.random_scene(images, seed, n_cards=7)
    card = next(c for c in scene.cards if c.code == code)
    return deck.enroll_dir(str(decks_dir / design)), scene, card


def test_a_match_the_network_vetoes_is_left_unsure_whichever_reader_is_right(decks_dir, monkeypatch):
    """A blurred neoclassical 2C matches the 2S template best (score 0.93); the network's corners surely read a club
    and veto it. From session 13 the generic reader's pips and corners then named the 2C, among the templates'
    nearest. Two readers sure of two cards cannot both be right, and the network is not always the one: KDE's
    standard deck had an ace of spades matched as the AS and its corners read as a club, and was named the AC
    (``tests/vision/test_fresh_designs.py``). Since session 34 the card is unsure (``VETO_LEAVES_UNSURE``). Since
    session 42 the templates' margin taken with the face moved to fit the 2S too (``ALIGNED_MARGIN``) leaves that match
    below the bar, no veto is needed, and the generic fallback names the 2C: the rule is shown with that off."""
    enrolled, scene, card = _neoclassical_3c(decks_dir, 500005, "2C")
    r = _match(recognise.Recogniser(enrolled).identify(scene.image), card)
    assert r is not None and r.code == "2C", r
    monkeypatch.setattr(recognise, "ALIGNED_MARGIN", False)
    r = _match(recognise.Recogniser(enrolled).identify(scene.image), card)
    assert r is not None and r.code is None and r.label == "2S", r
    monkeypatch.setattr(recognise, "VETO_LEAVES_UNSURE", False)
    rec = recognise.Recogniser(enrolled)
    r = _match(rec.identify(scene.image), card)
    assert r is not None and r.code == "2C", r
    rec.falls_back = False
    r = _match(rec.identify(scene.image), card)
    assert r is not None and r.code is None and r.label == "2S", r


def test_outlines_that_name_different_cards_leave_the_card_unsure(decks_dir, monkeypatch):
    """A blurred 3C of a drawn tuning deck: from the outline 5 % larger the templates name it right, from the one 5 %
    smaller the 3S at a margin past the reread's bar. The first sure reading was taken; now their disagreement
    leaves the card unsure (never the 3S). The templates alone (the network's suit check would veto the 3S too, and
    so does the club's notch its pips show, ``NOTCHED_SPADES_UNSURE``: that outline's 3S is unsure on its own; and
    since session 42 the margin taken with the face moved, ``ALIGNED_MARGIN``, leaves the 3C's outline unsure too, so
    the disagreement is shown with that off)."""
    monkeypatch.setattr(recognise, "ALIGNED_MARGIN", False)
    enrolled, scene, card = _neoclassical_3c(decks_dir, 500001)
    rec = recognise.Recogniser(enrolled)
    rec.cross_check = False
    variants = recognise.outline_variants(_match(rec.identify(scene.image), card).quad)
    assert "3S" not in {v[0] for v in (rec._read_outline(scene.image, q)[:4] for q in variants) if v[3]}
    monkeypatch.setattr(recognise, "PARTNER_CHECK", False)  # (the partner test holds this scene too)
    monkeypatch.setattr(recognise, "NOTCHED_SPADES_UNSURE", False)
    r = _match(rec.identify(scene.image), card)
    assert r is not None and r.code in (None, "3C"), r
    variants = [rec._read_outline(scene.image, v)[:4] for v in recognise.outline_variants(r.quad)]
    assert {v[0] for v in variants if v[3]} >= {"3C", "3S"}  # (the case this test is about still arises)


def test_the_networks_sure_suit_vetoes_an_enrolled_match_of_another_suit(decks_dir):
    """The same deck's blurred 3C in another scene matched the 3S past the enrolled thresholds (score 0.92, margin
    0.38) at first sight; the corner network is sure of the club in both corners (not of the rank), and that
    vetoes the spade."""
    enrolled, scene, card = _neoclassical_3c(decks_dir, 500031)
    rec = recognise.Recogniser(enrolled)
    r = _match(rec.identify(scene.image), card)
    assert r is None or r.code in (None, "3C"), r
    img = geometry.rectify_for_reading(scene.image, card.quad.astype(np.float32))
    assert rec.contradicted("3S", img) and not rec.contradicted("3C", img)


def test_a_reread_loses_to_another_card_matched_better(decks_dir):
    """A blurred 5C: one outline matches the 5S past the reread's bar (score 0.85, margin 0.56), another the 5C
    better (0.88) though below the margin. The better match of another card leaves it unsure."""
    enrolled, scene, card = _neoclassical_3c(decks_dir, 600013, "5C")
    rec = recognise.Recogniser(enrolled)
    rec.cross_check = False
    r = _match(rec.identify(scene.image), card)
    assert r is not None and r.code in (None, "5C"), r


def test_a_match_the_network_vetoed_is_not_looked_for_again(decks_dir, monkeypatch):
    """An anglo_modern 2D lying whole (scene 900011) matched right (0.91 / 0.48) and vetoed: the network reads a two of
    spades in both corners, the second surely (0.95 / 0.94). Other outlines are not searched for a match the network
    does not veto: the two cues disagree, and the card is unsure. Looked for again, the outlines a few per cent off
    match the 2D and the network does not veto it there, and it would be named. (The rule was made for an
    anglo_modern 2C, scene 900025, vetoed as session 23's network took its club for a spade, then matched as the 2S
    from an outline 5 % larger, which the network did not veto. The networks made by today's training command read
    that club right, and no outline of it matches the 2S even under that old reading: the case is this 2D's. Since
    session 42 the outlines a few per cent off do not name it either, their margins taken with the face moved too,
    ``ALIGNED_MARGIN``: the case is shown with that off.)"""
    enrolled, scene, card = _neoclassical_3c(decks_dir, 900011, "2D", "anglo_modern")
    r = _match(recognise.Recogniser(enrolled).identify(scene.image), card)
    assert r is not None and r.code is None and r.label == "2D", r
    monkeypatch.setattr(recognise, "ALIGNED_MARGIN", False)
    rec = recognise.Recogniser(enrolled)
    r = _match(rec.identify(scene.image), card)
    assert r is not None and r.code is None and r.label == "2D", r
    # (the case this test is about still arises: the network vetoes the match on the outline read, and the outlines
    # a few per cent off would name the card)
    cut, big = rec._cut(scene.image, r.quad)
    assert rec.threshold.accept(r.confidence, r.margin) and rec.contradicted("2D", cut if big is None else big)
    again = rec._reread_enrolled(scene.image, r.quad, (r.label, r.confidence))
    assert again is not None and again[0] == "2D", again


def _best_outline(decks_dir, design: str, seed: int, code: str) -> float:
    """How well the finder outlines ``code`` in a drawn scene of ``design``: the best IoU of its outlines with the
    card's true one (the frame's centre given, as ``identify`` gives it)."""
    scene = synth.random_scene(synth.load_deck(str(decks_dir / design)), seed, n_cards=7)
    truth = next(c for c in scene.cards if c.code == code).quad.astype(np.float32)
    return max(geometry.quad_iou(q.pts, truth) for q in finder.find_cards(scene.image, centre=(640, 360)))


def test_a_courts_picture_frame_gives_way_to_the_card(decks_dir):
    # the paris courts' margin is thin and their picture a strong rectangle: the network marks both the card and its
    # picture, and the picture's rim, plainer, had ranked first (paris scene 500073's KS outlined at IoU 0.70 and a
    # bellot KD, scene 500003, at 0.82 so). The card stands out from the felt twice as much and the frame has the
    # card's paper round it: the card wins (0.93, 0.98). (Paris scenes 500003's KD and 500017's QH held this until
    # the networks were made by today's training command, which no longer rank their frames first: in 160 paris and
    # 80 bellot scenes these two were the only cards whose outline the rule changed.)
    for design, seed, code in (("paris", 500073, "KS"), ("bellot", 500003, "KD")):
        best = _best_outline(decks_dir, design, seed, code)
        assert best > 0.85, (design, seed, code, best)


def test_a_card_seen_larger_than_its_neighbours_is_not_split_as_a_pair(decks_dir):
    # plastic cards alone on the felt, drawn larger than the cards nearest them (the scenes draw each card at 0.88-1.12
    # of its size, as a card nearer the camera is seen): the pair splitter, at the neighbour's size, covered each
    # with two overlapping "halves" of which neither showed itself on top, and the card was lost (IoU 0.5-0.7). A
    # region with one card's shape and no card on top is that one card
    for seed, code in ((500001, "9S"), (500003, "6C"), (500021, "2S")):
        best = _best_outline(decks_dir, "plastic", seed, code)
        assert best > 0.9, (seed, code, best)


def test_a_pair_split_must_match_the_card_seen_whole_in_it(decks_dir):
    # a large plastic 6D lying on a sliver of an 8S: the views outline the 6D exactly, and the pair splitter, at the
    # size of a smaller neighbour, fitted a "pair" whose top card matched that outline at IoU 0.54. Taken for the pair,
    # the exact outline gave way to it and the 6D was lost; a split must match the card seen whole inside it (0.7)
    best = _best_outline(decks_dir, "plastic", 500017, "6D")
    assert best > 0.9, best


def test_a_courts_picture_frame_does_not_push_out_the_card_the_views_found(decks_dir):
    # a neoclassical queen of clubs alone on the felt: the hand-drawn views outline it exactly, but the network sees
    # little card face in it (0.42: its picture is dark and busy) and marks its picture as a card, smaller and lying
    # on it - the sign of an outline round a card and the paper it lies on, so the card had given way to its picture
    # (IoU 0.41). The picture has the card's paper round it and the card stands out 18 times as much: it stays
    best = _best_outline(decks_dir, "neoclassical", 500007, "QC")
    assert best > 0.9, best


def test_a_card_sized_outline_does_not_give_way_to_a_piece_of_its_picture(decks_dir):
    # a plastic jack of hearts alone on the felt: the views outline it exactly, the network sees little card face in
    # it (0.59) and marks a fifth of it, in its picture, as a card lying on it - taken for an outline round a card and
    # its paper, the jack gave way to that piece (IoU 0.18). The jack has the size of the frame's other cards, the
    # piece no card's size: the jack stays, and the piece, a part of it, goes
    scene = synth.random_scene(synth.load_deck(str(decks_dir / "plastic")), 500024, n_cards=7)
    truth = next(c for c in scene.cards if c.code == "JH").quad.astype(np.float32)
    quads = finder.find_cards(scene.image, centre=(640, 360))
    assert max(geometry.quad_iou(q.pts, truth) for q in quads) > 0.9
    inside = [q for q in quads if cv2.intersectConvexConvex(q.pts, truth)[0] > 0.9 * cv2.contourArea(q.pts)
              and cv2.contourArea(q.pts) < 0.5 * cv2.contourArea(truth)]
    assert not inside, [q.pts.tolist() for q in inside]


def test_a_cards_exact_outline_is_not_dropped_as_a_part_of_a_loose_one(decks_dir):
    # a plastic six of diamonds alone on the felt: the views outline it exactly (IoU 0.97), the edge-region view with
    # a strip of felt (0.73). The exact outline, 0.79 of the loose one's area, was dropped as a part of it (a court's
    # frame, a group of pips) before the loose one's side along no edge could rank it lower, and the card was lost
    assert _best_outline(decks_dir, "plastic", 500024, "6D") > 0.9


def test_the_mat_holding_cards_is_no_card(decks_dir):
    # a blurred scene (500031): the green mat, outlined whole against the wood, card-shaped at 4:3, had its five cards
    # dropped as its parts, and the network's looser outlines stood in for them (IoU 0.63-0.87: a plastic AS, a 4C
    # not read). A surface holding three or more pale cards of one size lying apart is not a card
    for code in ("3H", "5C", "3C", "AS", "4C"):
        assert _best_outline(decks_dir, "plastic", 500031, code) > 0.95, code


def test_a_card_the_templates_and_the_network_both_name_is_read(decks_dir, monkeypatch):
    """A blurred anglo_modern 4C matches its template at 0.96 but by a margin of 0.28, short of the 0.29 needed; both
    network corners read the 4C (0.95 / 0.85, the suit's share 0.99), short of the veto's or the generic reader's bar.
    Two readers that fail in different ways agreeing name it (``AGREE_*``); the card stayed unsure before. (Since
    session 42 the margin taken with the face moved too, ``ALIGNED_MARGIN``, is below ``AGREE_MARGIN``, and the card
    is named by the generic fallback instead: the agreement is shown with that off.)"""
    enrolled, scene, card = _neoclassical_3c(decks_dir, 500036, "4C", "anglo_modern")
    r = _match(recognise.Recogniser(enrolled).identify(scene.image), card)
    assert r is not None and r.code == "4C", r
    monkeypatch.setattr(recognise, "ALIGNED_MARGIN", False)
    rec = recognise.Recogniser(enrolled)
    r = _match(rec.identify(scene.image), card)
    assert r is not None and r.code == "4C" and r.margin < rec.threshold.margin, r
    rec.cross_check = False  # (no network: the templates alone)
    r = _match(rec.identify(scene.image), card)
    assert r is not None and r.code is None and r.label == "4C", r


def test_a_square_marker_does_not_set_the_size_of_the_cards_to_split(aisleriot_deck):
    # aisleriot's dondorf, scene 500029: a lone two of diamonds (outlined whole at 0.87) lies near a mat marker the
    # views outline whole at 85 x 86 px. Taken as the size of a card there, the two of diamonds' region was "two
    # cards" and was split in two (IoU 0.57 and 0.58). Only outlines of a card's shape tell the card's size
    scene = synth.random_scene(synth.load_deck(str(aisleriot_deck("dondorf"))), 500029, n_cards=7)
    truth = next(c for c in scene.cards if c.code == "2D").quad.astype(np.float32)
    quads = finder.find_cards(scene.image, centre=(640, 360))
    assert max(geometry.quad_iou(q.pts, truth) for q in quads) > 0.9


@pytest.mark.parametrize("theme,seed,code,not_code,enrolled", [("anglo_poker", 500107, "2H", "2D", False),
                                                                 ("dondorf", 500094, "AS", "AC", True)])
def test_a_blurred_suit_sign_is_not_named_where_the_pips_show_the_other_suit(aisleriot_deck, theme, seed, code,
                                                                             not_code, enrolled):
    """The bench's drawn scenes: a pale two of hearts read as a diamond by its one corner in view (0.93), a blurred
    ace of spades read as a club by both corners together (0.96); the pips show the heart and the spade
    (``index_net.pips_refuse``): neither card is named wrong, in the generic mode nor (the ace) in the enrolled
    one, whose fallback is the generic reader."""
    from vision import deck as decklib

    folder = str(aisleriot_deck(theme))
    scene = synth.random_scene(synth.load_deck(folder), seed, n_cards=7)
    truth = next(c for c in scene.cards if c.code == code).quad.astype(np.float32)
    for rec in [recognise.Recogniser()] + ([recognise.Recogniser(decklib.enroll_dir(folder))] if enrolled else []):
        r = next(r for r in rec.identify(scene.image) if geometry.quad_iou(r.quad, truth) > 0.5)
        assert r.code in (None, code), (rec.mode, r)  # (``not_code`` before)


def _read_whole(images: dict, seed: int, code: str, deck: object | None) -> recognise.Read:
    """The read of the whole card ``code`` of the bench's scene ``seed`` of a design (``images``), by the recogniser
    of ``deck`` (None: the generic mode)."""
    scene = synth.random_scene(images, seed, n_cards=7)
    truth = next(c for c in scene.cards if c.code == code).quad.astype(np.float32)
    return next(r for r in recognise.Recogniser(deck).identify(scene.image) if geometry.quad_iou(r.quad, truth) > 0.8)


def test_a_suit_the_enrolled_mode_takes_from_the_network_is_unsure_where_the_pips_show_the_other(aisleriot_deck,
                                                                                                   monkeypatch):
    """aisleriot dondorf enrolled, 150 of the bench's scenes (session 40): its small ace and three of spades (scenes
    500132 and 500138) matched best as the AC and the 3C, with only the other suit near; the templates then leave the
    suit to the network (``_rank_by_templates``), whose two corners read the club. The pips show the spade: unsure
    (``_pips_deny``)."""
    from vision import deck as decklib

    folder = str(aisleriot_deck("dondorf"))
    images, deck = synth.load_deck(folder), decklib.enroll_dir(folder)

    def read(seed: int, code: str) -> str | None:
        return _read_whole(images, seed, code, deck).code

    assert read(500132, "AS") is None and read(500138, "3S") is None
    monkeypatch.setattr(recognise, "_pips_deny", lambda card, label, yellow=True: False)
    # (since session 42 both are left unsure by the margin taken with the face moved, ``ALIGNED_MARGIN``, as well)
    assert read(500132, "AS") is None and read(500138, "3S") is None
    monkeypatch.setattr(recognise, "PARTNER_CHECK", False)  # (the partner test holds this scene too)
    monkeypatch.setattr(recognise, "ALIGNED_MARGIN", False)
    # (the 3S, its pips plain and a spade's shape, is refused by session 41's plain-club rule too: set aside)
    monkeypatch.setattr(recognise, "PLAIN_CLUBS_UNSURE", False)
    # (since session 57 scene 500132's own ace of clubs, named too, leaves both unsure: ``NAMED_TWICE_UNSURE``)
    assert (read(500132, "AS"), read(500138, "3S")) == (None, "3C")
    monkeypatch.setattr(recognise, "NAMED_TWICE_UNSURE", False)
    assert read(500132, "AS") == "AC"


def test_a_club_matched_surely_whose_pips_show_a_spade_without_a_clubs_leaves_is_unsure(aisleriot_deck, monkeypatch):
    """aisleriot dondorf enrolled, scenes 500150-299 (session 41): its small 3S (scene 500276) matched surely as the
    3C (0.858, margin 0.336), both network corners on the club, nothing blurred. Dondorf's clubs show the notch
    between their leaves on every pip and its spades on none (``notches_tell_black``); this card's pips show it on
    none and their shape names the spade: unsure (``PLAIN_CLUBS_UNSURE``, ``_club_plain``)."""
    from vision import deck as decklib

    folder = str(aisleriot_deck("dondorf"))
    images, deck = synth.load_deck(folder), decklib.enroll_dir(folder)
    assert deck.templates.notches_tell_black
    first = _read_whole(images, 500276, "3S", deck)
    assert (first.code, first.label) == (None, "3C")
    monkeypatch.setattr(recognise, "PLAIN_CLUBS_UNSURE", False)
    # (since session 42 the margin taken with the face moved, ``ALIGNED_MARGIN``, leaves it unsure as well)
    assert _read_whole(images, 500276, "3S", deck).code is None
    monkeypatch.setattr(recognise, "PARTNER_CHECK", False)  # (the partner test holds this scene too)
    monkeypatch.setattr(recognise, "ALIGNED_MARGIN", False)
    # (since session 57 the scene's own three of clubs, named too, leaves both unsure: ``NAMED_TWICE_UNSURE``)
    assert _read_whole(images, 500276, "3S", deck).code is None
    monkeypatch.setattr(recognise, "NAMED_TWICE_UNSURE", False)
    assert _read_whole(images, 500276, "3S", deck).code == "3C"


def test_the_networks_other_outline_of_a_card_is_its_alternative_and_the_nearer_match_is_read_again(decks_dir,
                                                                                                   monkeypatch):
    """A plastic jack of clubs lying whole (scene 500070): the network's best-ranked outline of it (IoU 0.79) leaves
    out part of the card, and the enrolled templates are unsure on it (0.81, margin 0.41). The network's outline of
    the whole card (0.84), ranked below it, is its alternative; the templates come nearer on that one (0.83, still
    unsure), and reading it again from outlines a few per cent off names the card. Without the alternative the card is
    unsure. (The hand-drawn views outline this card whole themselves, so the network's outlines are looked at alone
    here; and since session 31 the network's outlines are turned to the card's edges before they are snapped, which
    makes its first outline of this card the better one (0.83): the alternatives are shown as they are with that turn
    off. Scene 500058's plastic queen of clubs in shade held this until the networks were made by today's training
    command: their first outline of that card is already its good one, 0.85, with the turn off.)"""
    enrolled, scene, card = _neoclassical_3c(decks_dir, 500070, "JC", "plastic")
    truth = card.quad.astype(np.float32)
    h, w = scene.image.shape[:2]
    _, pale = regions.mask_and_paleness(scene.image)
    maps = net_outlines.finder_network(finder.FINDER_PATH).maps(scene.image)

    def network_outline() -> geometry.Quad:
        nets = net_outlines.add_net_cards([], scene.image, pale, 30.0, (w / 2, h / 2), maps)
        return next(q for _, q in nets if geometry.quad_iou(q.pts, truth) > 0.5)

    turned = network_outline()
    rec = recognise.Recogniser(enrolled)
    with monkeypatch.context() as m:
        m.setattr(net_outlines, "NET_TURN", False)
        q = network_outline()
        assert geometry.quad_iou(q.pts, truth) < 0.8
        assert any(geometry.quad_iou(a, truth) > geometry.quad_iou(q.pts, truth) for a in q.alt)
        assert geometry.quad_iou(turned.pts, truth) > geometry.quad_iou(q.pts, truth)
        # the network's outline read: unsure on its own, named from its alternative, the nearer match read again
        assert not rec._read_outline(scene.image, q.pts)[3]
        assert not any(rec._read_outline(scene.image, a)[3] for a in q.alt)
        label, _, _, named, _ = rec._read_found(scene.image, q, None, True)
        assert (label, named) == ("JC", True)
        alone = geometry.Quad(q.pts, q.whole, face=q.face)
        assert not rec._read_found(scene.image, alone, None, True)[3]
        quads = finder.find_cards(scene.image, centre=(w / 2, h / 2))  # (as ``identify`` searches a whole frame)
        assert max(geometry.quad_iou(q.pts, truth) for q in quads) > 0.9
        r = next(r for r in rec.identify(scene.image) if geometry.quad_iou(r.quad, truth) > 0.5)
        assert r.code == "JC", r
    r = next(r for r in rec.identify(scene.image) if geometry.quad_iou(r.quad, truth) > 0.5)
    assert r.code == "JC", r


@pytest.fixture(scope="module")
def guyenne(aisleriot_deck):
    """aisleriot's guyenne-classic: its card images and the deck enrolled from them."""
    from vision import deck as decklib

    folder = str(aisleriot_deck("guyenne-classic"))
    return synth.load_deck(folder), decklib.enroll_dir(folder)


@pytest.mark.parametrize("seed,code", [(500013, "QS"), (500020, "QC")])
def test_a_lone_court_whose_picture_fills_the_card_is_found(guyenne, seed, code):
    # aisleriot's guyenne-classic: the courts' pictures fill the card up to a thin white margin, so the finder network
    # sees little card face in them (0.3-0.4) and finds a piece of the picture (whole 0.68). The views' outline of the
    # card, edged on every side, is larger than the median of the frame's cards (1.3-1.6 times, nearer the camera) and
    # had given way to that piece: the court was not found at all. A piece partly covered is no card lying on it
    images, enrolled = guyenne
    scene = synth.random_scene(images, seed, n_cards=7)
    truth = next(c for c in scene.cards if c.code == code).quad.astype(np.float32)
    quads = finder.find_cards(scene.image, centre=(640, 360))
    assert max(geometry.quad_iou(q.pts, truth) for q in quads) > 0.9
    rec = recognise.Recogniser(enrolled)
    r = next(r for r in rec.identify(scene.image) if geometry.quad_iou(r.quad, truth) > 0.5)
    assert r.code == code, r


def test_a_piles_top_card_is_found_when_its_pale_blob_joins_a_lone_card(decks_dir):
    """Drawn scene 500034 (the bench's own): a jack of clubs lies on a fan of two cards, and the pale blob of the pile
    runs into a lone seven of hearts. The pile's best rectangle of unbroken edges was the seven, already found whole,
    and the jack was lost - in every design the scene was drawn in (plastic, bellot, dondorf and others). The next best
    rectangle apart from the cards already found is weighed too: the jack is found and read."""
    images = synth.load_deck(str(decks_dir / "plastic"))
    scene = synth.random_scene(images, 500034, n_cards=7)
    jc = next(c for c in scene.cards if c.code == "JC")
    quads = finder.find_cards(scene.image, centre=(640, 360))
    assert any(geometry.quad_iou(q.pts, jc.quad.astype(np.float32)) > 0.9 for q in quads)
    r = _match(recognise.Recogniser().identify(scene.image), jc)
    assert r is not None and r.code == "JC", r


def test_a_piles_top_card_is_found_on_a_mat_that_holds_a_card_being_played(decks_dir):
    """Drawn scene 500058 (the bench's own): a queen of spades tops a pile of three cards on the mat, and a queen of
    clubs, held above the table as it is played, is seen 1.4 times as large as the lone five of spades. The mat,
    outlined whole against the wood and card-shaped, held three pale cards but not "of one size", so it stood as a
    card, and being whole and lying on the pile it explained the pile: the pile's top was never looked for. Cards a
    half larger still count as the mat's cards (``HOLDS_SIZE``), and an outline over twice the pile's area
    (``PILE_EXPLAINED``) is no card of it: the queen of spades is found and read."""
    images = synth.load_deck(str(decks_dir / "plastic"))
    scene = synth.random_scene(images, 500058, n_cards=7)
    qs = next(c for c in scene.cards if c.code == "QS")
    quads = finder.find_cards(scene.image, centre=(640, 360))
    assert any(geometry.quad_iou(q.pts, qs.quad.astype(np.float32)) > 0.9 for q in quads)
    assert not any(cv2.contourArea(q.pts) > 10 * cv2.contourArea(qs.quad.astype(np.float32)) for q in quads)
    r = _match(recognise.Recogniser().identify(scene.image), qs)
    assert r is not None and r.code == "QS", r


def test_a_piles_top_card_lost_to_the_piles_outline_is_read_as_its_alternative(aisleriot_deck, monkeypatch):
    """Drawn scene 500017 (the bench's own): a six of diamonds tops a pile of cards lying nearly as it does. Its exact
    outline scored as high as the pile's pale blob round it, which it lies inside, and gave way to it; the blob read
    nothing, and the six was not found in 13 of the 27 tuning designs. The outline given way is now the blob's
    alternative (``INNER_ALT_*``), read when the blob reads nothing: the six is read; without, it is not."""
    images = synth.load_deck(str(aisleriot_deck("berlin")))
    scene = synth.random_scene(images, 500017, n_cards=7)
    six = next(c for c in scene.cards if c.code == "6D")
    r = _match(recognise.Recogniser().identify(scene.image), six)
    assert r is not None and r.code == "6D", r
    monkeypatch.setattr(finder, "INNER_ALTS", 0)
    r = _match(recognise.Recogniser().identify(scene.image), six)
    assert r is None or r.code is None, r


def test_a_piles_top_court_is_found_by_its_own_outline_not_its_pictures(aisleriot_deck, monkeypatch):
    """Drawn scene 500014 (the bench's own): a king of diamonds lies across a fan of two cards. The pile's best
    rectangle of unbroken edges was the king's picture frame, card-shaped but too small to be a card, and the king
    was not found (dondorf, berlin, bellot and six other tuning designs). Where the best is smaller than a card, the
    best of a card's size round it is the top (``PILE_TOP_AROUND``): the king is found and read."""
    images = synth.load_deck(str(aisleriot_deck("dondorf")))
    scene = synth.random_scene(images, 500014, n_cards=7)
    king = next(c for c in scene.cards if c.code == "KD")
    r = _match(recognise.Recogniser().identify(scene.image), king)
    assert r is not None and r.code == "KD", r
    monkeypatch.setattr(pairs, "PILE_TOP_AROUND", False)
    assert _match(recognise.Recogniser().identify(scene.image), king) is None


@pytest.mark.parametrize("name, code", [("IMG_2616.JPG", "QC"), ("IMG_2611.JPG", "TH")])
def test_a_picture_frame_or_two_cards_do_not_stand_for_a_piles_top(name, code):
    """boxes_train photos where a pile's best rectangle is of no card's size and a rectangle of about the table's
    card size near it is not the top card either. IMG_2616: the best is a small rectangle in a queen of clubs'
    picture, and round it the picture's frame (0.70 of the median card, scoring 1.0); taken within 0.3 of the card
    size, it stood for the queen, unsure. IMG_2611: the best is larger than a card (two cards), and the best
    card-sized rectangle anywhere in the pile was a loose outline of its ten of hearts, which stood for the ten. Only a
    rectangle round a smaller best, within a fifth of the card size (``PILE_AROUND_TOLERANCE``) and scoring
    ``PILE_AROUND_SCORE``, is taken: both cards are read, as before the rule."""
    from pathlib import Path

    from tools import photo_bench as pb

    path = Path(__file__).resolve().parents[3] / "shared" / "photos" / "boxes" / "train" / name
    if not path.exists():
        pytest.skip("the development photos ../shared/photos/boxes are not here")
    img, _ = pb.load_photo(str(path), 1920)
    assert code in [r.code for r in recognise.Recogniser().identify(img)]


def test_the_cards_on_a_pale_table_cut_to_a_cards_shape_by_the_frame_are_found(poker_photo):
    """poker_table train_10 cut to its middle 900 of 1920 columns: the pale board, its top and bottom edges in view and
    its sides cut by the frame's, is card-shaped, and paler than its cards' rims: it was outlined as one card and its
    thirteen cards dropped as that card's parts - nothing was found. A pale outline holding three or more cards of one
    size, each under a tenth of it (``HOLDS_PALE_SHARE``), is a surface: the cards are found and read."""
    img, codes = poker_photo("train_10.jpg", 1920)
    crop = np.ascontiguousarray(img[:, 500:1400])
    reads = recognise.Recogniser(None).identify(crop)
    named = [r.code for r in reads if r.code is not None]
    assert len(named) >= 6, named
    assert all(codes[c] >= named.count(c) for c in named), named
    assert not any(cv2.contourArea(np.asarray(r.quad, np.float32)) > 0.2 * crop.shape[0] * crop.shape[1] for r in reads)


def test_a_pale_table_cut_to_a_cards_shape_holding_two_lone_cards_is_no_card(poker_photo):
    """poker_table train_14 cut to its left 1000 columns: the board, cut card-shaped by the frame, holds two lone
    cards whole (4S, AD), two pairs and a card cut by the frame's edge. Two whole cards each under a twentieth of a
    pale outline make it a surface (``HOLDS_PALE_TWO``): the cards are found, not dropped as its parts."""
    img, codes = poker_photo("train_14.jpg", 1920)
    crop = np.ascontiguousarray(img[:, :1000])
    reads = recognise.Recogniser(None).identify(crop)
    named = [r.code for r in reads if r.code is not None]
    assert {"4S", "AD"} <= set(named), named
    assert all(codes[c] >= named.count(c) for c in named), named


def test_the_batched_corner_search_gives_match_templates_scores_and_places():
    """``_corner_search`` stands in for one ``cv2.matchTemplate`` (TM_CCOEFF_NORMED) per template: the same best
    score (to 1e-5) and place for every template, on ink-like queries, a flat template (1 everywhere, as OpenCV gives)
    and a flat query (0)."""
    rng = np.random.default_rng(7)
    h, w = 47, 26
    corners = rng.uniform(0, 255, (6, h, w, 2)).astype(np.float32)
    corners = np.stack([cv2.GaussianBlur(c, (5, 5), 0) for c in corners])
    corners[3] = 0.0  # a corner without ink
    tpl = recognise.Templates([f"T{i}" for i in range(6)], np.zeros((6, 4), np.float32), corners)
    queries = [cv2.GaussianBlur(rng.uniform(0, 255, (h + 8, w + 8, 2)).astype(np.float32), (3, 3), 0)
               for _ in range(3)]
    queries[1][2:2 + h, 5:5 + w] = corners[4] * 0.8 + 10  # template 4, fainter, shifted (5, 2)
    queries.append(np.full((h + 8, w + 8, 2), 30.0, np.float32))
    todo = np.array([5, 0, 3, 4])
    scores, places = recognise._corner_search(queries, tpl, todo)
    for k, q in enumerate(queries):
        for j, i in enumerate(todo):
            _, best, _, at = cv2.minMaxLoc(cv2.matchTemplate(q, corners[i], cv2.TM_CCOEFF_NORMED))
            assert abs(scores[k, j] - best) < 1e-5, (k, i)
            if best > 0:
                assert tuple(places[k, j]) == at, (k, i)
    assert tuple(places[1, 3]) == (5, 2) and scores[1, 3] > 0.999


def test_a_card_named_by_one_corner_is_read_again_only_with_that_corner_as_first_cut():
    """``number_one`` (one index in view, the other corner covered) may be read again from another outline only when
    the index corner is not cut again: the other corner, unsure at first that it shows nothing, is cut again and
    now surely shows nothing. Cutting the index itself again would give a blurred index more looks."""

    def corner(rank: str, suit: str, p: float) -> index_net.CornerRead:
        return index_net.CornerRead(rank, suit, p, p, np.zeros(14), np.zeros(5))

    def reading(a: index_net.CornerRead, b: index_net.CornerRead) -> index_net.NetRead:
        return index_net.NetRead("6S", "number_one", index_net.IndexRead("6", "S", 0.98, 0.98, False, [a, b]))

    index = corner("6", "S", 0.98)
    blank = np.zeros((10, 10, 3), np.uint8)
    again = reading(index, corner("-", "-", 0.95))
    assert recognise._named_by_first_cut(again, reading(index, corner("-", "-", 0.7)), {1: blank})
    # the index corner cut again: a new look at the index, refused
    assert not recognise._named_by_first_cut(again, reading(index, corner("-", "-", 0.7)), {0: blank, 1: blank})
    # the other corner had shown a suit sign at first: a corner of a card, not a covered one
    assert not recognise._named_by_first_cut(again, reading(index, corner("-", "S", 0.7)), {1: blank})


def test_a_covered_card_whose_other_corner_shows_a_strip_of_table_is_read_again(poker_photo):
    """poker_table train_10: the three of clubs lies under another card, its one index in view read 3C at 0.985; its
    other corner, under the covering card's edge, showed no index but not surely enough to be taken as covered.
    Cut again from a slightly other outline it surely shows nothing, and the index as first cut names the card."""
    img, codes = poker_photo("train_10.jpg", 1920)
    reads = recognise.Recogniser(None).identify(img)
    named = [r.code for r in reads if r.code is not None]
    assert "3C" in named
    assert all(codes[c] >= named.count(c) for c in named), named


def test_a_veto_stands_only_on_ranks_and_suits_the_network_reads_rightly_on_the_deck():
    """``index_vetoes`` given the deck's misnames: the other card the corners agree on, or the other suit they name
    together, is set aside where enrollment found the network giving that rank or suit to the deck's cards of
    another (``Recogniser.contradicted`` passes them, ``VETO_NEEDS_TRUSTED_NAMES``)."""

    def corners_read(code: str, share: float = 0.99) -> index_net.IndexRead:
        probs = np.zeros(len(index_net.RANKS), np.float32), np.zeros(len(index_net.SUITS), np.float32)
        c = index_net.CornerRead(code[0], code[1], 0.99, 0.99, *probs)
        return index_net.IndexRead(code[0], code[1], 0.99, 0.99, True, [c, c], share)

    for ranks, suits, read, misnamed in (("", "", "6H", False), ("6", "", "6H", True), ("9", "", "6H", False),
                                         ("", "S", "9S", True), ("", "D", "9S", False), ("6", "S", "6D", False)):
        ir = corners_read(read)
        assert recognise.index_vetoes("9H", ir)
        assert recognise.index_vetoes("9H", ir, ranks, suits) is not misnamed, (ranks, suits, read)


def test_a_suit_the_glyph_reader_names_against_the_networks_leaning_is_unsure(tango, monkeypatch):
    """The held-out tango's index is one the network does not know (it sees no index in either corner), and the
    glyph reader reads such a card. Its blurred, partly covered three of clubs (scene 500097 of the bench's, generic
    mode) looked a spade to its pips and to both corners' templates and was named the 3S at 0.96, while both the
    network's corners gave the club 0.23-0.29 and the spade 0.03: unsure (``index_net.corners_lean_from``)."""
    scene = synth.random_scene(tango, 500097, n_cards=7)
    truth = next(c for c in scene.cards if c.code == "3C").quad.astype(np.float32)

    def read() -> recognise.Read:
        best = max(recognise.Recogniser(None).identify(scene.image), key=lambda r: geometry.quad_iou(r.quad, truth))
        assert geometry.quad_iou(best.quad, truth) > 0.7  # (found: its outline is the part that shows, IoU 0.78)
        return best

    first = read()
    assert (first.code, first.label) == (None, "3S")
    monkeypatch.setattr(index_net, "LEAN_FROM", 2.0)
    assert read().code == "3S"


def test_a_court_the_glyph_reader_names_beside_a_letter_the_network_does_not_know_is_unsure(aisleriot_deck,
                                                                                          monkeypatch):
    """aisleriot ancient_french, generic mode, scene 500156 (session 41): its blurred jack of spades, lettered V, shows
    the network the spade at 0.96-0.98 and no rank at 0.97-0.98 in both corners, so the network names nothing and the
    glyph reader reads it - its templates took the V for a K (KS, 0.75). A court named beside a letter the network
    does not know is unsure (``index_net.letter_unknown``)."""
    images = synth.load_deck(str(aisleriot_deck("ancient_french")))
    first = _read_whole(images, 500156, "JS", None)
    assert (first.code, first.label) == (None, "KS")
    monkeypatch.setattr(index_net, "LETTER_P", 2.0)
    assert _read_whole(images, 500156, "JS", None).code == "KS"


def test_a_letter_the_network_does_not_know_is_a_sure_suit_beside_a_sure_blank():
    """``letter_unknown``: both corners showing a suit and no rank, each at ``LETTER_P`` or more; a corner
    showing nothing at all (covered), or a suit unsure, is no letter."""

    def ir(*corners):  # each corner: (rank, p_rank, suit, p_suit)
        cs = [index_net.CornerRead(r, s, pr, ps, np.zeros(14), np.zeros(5)) for r, pr, s, ps in corners]
        return index_net.IndexRead("-", "-", 0.0, 0.0, False, cs)

    assert index_net.letter_unknown(ir(("-", 0.98, "S", 0.96), ("-", 0.97, "S", 0.98)))
    assert not index_net.letter_unknown(ir(("-", 0.98, "S", 0.96), ("-", 0.99, "-", 0.99)))
    assert not index_net.letter_unknown(ir(("-", 0.98, "-", 0.96), ("-", 0.97, "-", 0.98)))
    assert not index_net.letter_unknown(ir(("-", 0.98, "S", 0.6), ("-", 0.6, "S", 0.98)))


def test_the_networks_leaning_denies_only_the_other_suit_of_the_pair():
    """``corners_lean_from``: both corners must give the other suit of the named suit's pair ``LEAN_FROM`` or more and
    more than the named one; a leaning to a suit of the other colour, or by one corner, denies nothing."""

    def ir(*suits):  # each corner's S H D C '-' probabilities; no index seen
        corners = [index_net.CornerRead("-", "-", 0.6, s[4], np.zeros(14), np.array(s, np.float32)) for s in suits]
        return index_net.IndexRead("-", "-", 0.0, 0.0, False, corners)

    lean_club = ir((0.03, 0.01, 0.03, 0.29, 0.64), (0.04, 0.01, 0.01, 0.23, 0.71))
    assert index_net.corners_lean_from(lean_club, "S")
    assert not index_net.corners_lean_from(lean_club, "C")
    assert not index_net.corners_lean_from(lean_club, "H")  # (a club says nothing of a heart against a diamond)
    one_corner = ir((0.03, 0.01, 0.03, 0.29, 0.64), (0.2, 0.01, 0.01, 0.05, 0.73))
    assert not index_net.corners_lean_from(one_corner, "S")
    faint = ir((0.01, 0.01, 0.01, 0.05, 0.92), (0.01, 0.01, 0.01, 0.06, 0.91))
    assert not index_net.corners_lean_from(faint, "S")
