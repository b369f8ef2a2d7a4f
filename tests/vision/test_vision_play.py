import numpy as np
import pytest

from tools import synth
from vision import play, recognise, regions


def _play_trick(tango, tango_deck, light=None):
    """A trick played to the centre, fed to a detector (each frame through ``light`` first, if given); the engine
    tells whose turn it is. The truth, the events and the detector."""
    tricks = [[(0, "7H"), (1, "KH"), (2, "2C"), (3, "AD")]]
    turn = [None]
    det = play.PlayDetector(recognise.Recogniser(tango_deck), turn=lambda: turn[0])
    truth, got = [], []
    for frame, evs in synth.play_video(tango, tricks, seed=4):
        for e in evs:
            truth.append(e)
            if e.kind == "play":
                turn[0] = e.seat
        got += det.feed(frame if light is None else light(frame))
    return truth, got, det


@pytest.fixture(scope="module")
def played(tango, tango_deck):
    """A trick played to the centre, fed to the detector; the engine tells whose turn it is."""
    truth, got, _ = _play_trick(tango, tango_deck)
    return truth, got


def test_cards_played_to_the_centre_are_read_with_the_seat_on_turn(played):
    truth, got = played
    plays = [(e.seat, e.code) for e in got if e.kind == "card_played"]
    want = [(e.seat, e.code) for e in truth if e.kind == "play"]
    # every accepted read is right; an unread card shows up as unsure, never as a wrong card
    assert all(p in want for p in plays)
    assert len(plays) + sum(e.kind == "unsure_card" for e in got) == len(want)
    assert len(plays) >= 3


def test_decision_comes_soon_after_the_card_lies_still(played):
    truth, got = played
    for e in truth:
        if e.kind != "play":
            continue
        hit = [g for g in got if g.kind in ("card_played", "unsure_card") and e.frame <= g.frame]
        assert hit and hit[0].frame - e.frame <= 9  # 300 ms at 30 frames/s


def test_trick_gathered(played):
    truth, got = played
    gathers = [g for g in got if g.kind == "trick_gathered"]
    assert len(gathers) == 1
    assert gathers[0].frame >= [e.frame for e in truth if e.kind == "gather"][0] - 2


def test_camera_lost_and_back(tango_deck):
    det = play.PlayDetector(recognise.Recogniser(tango_deck))
    kinds = []
    for f in [None, None, np.zeros((720, 1280, 3), np.uint8)]:
        kinds += [e.kind for e in det.feed(f)]
    assert kinds == ["camera_lost"]
    rng = np.random.default_rng(0)
    frame = np.clip(synth.table_background(rng, synth.camera_homography(rng, 0.05)), 0, 255).astype(np.uint8)
    assert [e.kind for e in det.feed(frame)] == ["camera_back"]


def test_engine_may_veto_a_read_but_never_rescue(tango, tango_deck):
    tricks = [[(0, "7H")]]
    det = play.PlayDetector(recognise.Recogniser(tango_deck), turn=lambda: 0, check=lambda seat, code: False)
    got = []
    for frame, _ in synth.play_video(tango, tricks, seed=2, fps=15):
        got += det.feed(frame)
    assert not [g for g in got if g.kind == "card_played"]
    unsure = [g for g in got if g.kind == "unsure_card"]
    assert unsure and "cannot hold" in unsure[0].detail


FIVE_TRICK = [(2, "7H"), (3, "KH"), (4, "2C"), (0, "AD"), (1, "9S")]


@pytest.mark.parametrize("to_centre", [False, True])
def test_five_handed_trick_gives_the_right_seats_and_cards(tango, tango_deck, to_centre):
    """Five-handed Pitch on the five-seat mat: cards in front of the seats are attributed by zone alone (no turn
    given), cards played to the centre by the seat on turn."""
    turn = [None]
    det = play.PlayDetector(recognise.Recogniser(tango_deck), seats=5,
                            turn=(lambda: turn[0]) if to_centre else None)
    truth, got = [], []
    for frame, evs in synth.play_video(tango, [FIVE_TRICK], seed=4, seats=5, to_centre=to_centre, fps=15):
        for e in evs:
            truth.append(e)
            if e.kind == "play":
                turn[0] = e.seat
        got += det.feed(frame)
    assert det.calibration is not None and det.calibration.n_seats == 5
    assert [(e.seat, e.code) for e in truth if e.kind == "play"] == FIVE_TRICK
    plays = [(g.seat, g.code) for g in got if g.kind == "card_played"]
    unsure = [g for g in got if g.kind == "unsure_card"]
    # never a wrong card or seat; an unread card is unsure, and still put in front of the right seat
    assert all(p in FIVE_TRICK for p in plays) and len(plays) == len(set(plays))
    assert all(u.seat in [s for s, _ in FIVE_TRICK] for u in unsure)
    assert len(plays) + len(unsure) == 5 and len(plays) >= 4
    assert {s for s, _ in plays} | {u.seat for u in unsure} == {0, 1, 2, 3, 4}
    assert [g.kind for g in got if g.kind == "trick_gathered"] == ["trick_gathered"]


def test_detector_reports_the_mat_that_does_not_fit_the_game(tango_deck):
    def background(n_seats):
        rng = np.random.default_rng(9)
        return np.clip(synth.table_background(rng, synth.camera_homography(rng, 0.05), n_seats), 0, 255).astype(
            np.uint8)

    game = [5]
    det = play.PlayDetector(recognise.Recogniser(tango_deck), seats=lambda: game[0])
    four, five = background(4), background(5)
    events = [e for _ in range(31) for e in det.feed(four)]
    # said once, not every time the mat is looked for; the wrong mat's zones are not used
    assert [e.kind for e in events] == ["mat_mismatch"]
    assert "four-seat mat" in events[0].detail and "five players" in events[0].detail
    assert det.calibration is None
    events = [e for _ in range(15) for e in det.feed(five)]
    assert [e.kind for e in events] == ["mat_found"] and det.calibration.n_seats == 5
    # the game changes to four players: the five-seat mat no longer fits
    game[0] = 4
    events = [e for _ in range(15) for e in det.feed(five)]
    assert [e.kind for e in events] == ["mat_mismatch"] and "five-seat mat" in events[0].detail


def test_a_court_card_landing_on_a_pile_is_read_on_the_outline_of_the_change(decks_dir):
    """Paris's KD (its picture runs to the edge: no pale margin for the finder) laid on two cards in the centre: the
    picture alone gives no outline of it; the change since the last still table does."""
    from vision import deck

    paris = synth.load_deck(str(decks_dir / "paris"))
    rec = recognise.Recogniser(deck.enroll_dir(str(decks_dir / "paris")))
    below = [synth.CardPose("2H", 590, 410, 200), synth.CardPose("8S", 615, 395, 65)]
    top = synth.CardPose("KD", 600, 400, 105)
    nz = synth.Nuisance(perspective=0.06, glare=0.3, shadow=0.3, blur=0, noise=3.0, jpeg=(70, 92))
    before = synth.render_table(paris, below, seed=8, nuisance=nz, hand=False)
    after = synth.render_table(paris, below + [top], seed=8, nuisance=nz, hand=False)
    assert not [r for r in rec.identify(after.image) if r.code == "KD"]  # the finder alone misses it
    for outline in (True, False):
        det = play.PlayDetector(rec, turn=lambda: 2, change_outline=outline)
        got = [e for f in [before.image] * 8 + [after.image] * 8 for e in det.feed(f)]
        kd = [e for e in got if e.kind == "card_played" and e.code == "KD"]
        if outline:
            assert [(e.seat, e.code) for e in kd] == [(2, "KD")]
            corners = np.array(kd[0].corners)
            truth = after.cards[-1].quad
            # the outline is the card's, to a few pixels (either way up)
            assert min(np.abs(corners - truth).max(), np.abs(corners - np.roll(truth, 2, axis=0)).max()) < 6
        else:
            assert not kd


def _counting(det):
    """Counts the detector's full reads of the region (``identify``) and records every outline read alone."""
    calls = {"identify": 0, "outlines": []}
    identify, quad_read = det.recogniser.identify, det._quad_read

    def counted_identify(*a, **k):
        calls["identify"] += 1
        return identify(*a, **k)

    def recorded_quad_read(frame, quad):
        calls["outlines"].append(quad.copy())
        return quad_read(frame, quad)

    det.recogniser.identify = counted_identify
    det._quad_read = recorded_quad_read
    return calls


def test_a_card_laid_alone_on_a_pile_is_voted_on_its_outline_without_reading_the_region_again(decks_dir):
    """The whole change is one card: every ballot reads that one outline (the same one each time) and the finder is
    not run over the pile and the watched cards (it made the decision late: three full reads of a big region)."""
    from vision import deck

    tango = synth.load_deck(str(decks_dir / "tango"))
    rec = recognise.Recogniser(deck.enroll_dir(str(decks_dir / "tango")))
    below = [synth.CardPose("2H", 590, 410, 200), synth.CardPose("8S", 615, 395, 65)]
    top = synth.CardPose("QC", 600, 400, 105)
    nz = synth.Nuisance(perspective=0.06, glare=0.3, shadow=0.3, blur=0, noise=3.0, jpeg=(70, 92))
    before = [synth.render_table(tango, below, seed=8, nuisance=nz, hand=False).image] * 8
    after = [synth.render_table(tango, below + [top], seed=8, nuisance=nz, hand=False).image] * 8
    det = play.PlayDetector(rec, turn=lambda: 1)
    got = [e for f in before for e in det.feed(f)]
    calls = _counting(det)
    got += [e for f in after for e in det.feed(f)]
    assert [(e.kind, e.seat, e.code) for e in got] == [("card_played", 1, "QC")]
    assert calls["identify"] == 0
    outlines = calls["outlines"]
    assert len(outlines) == det.votes and all(np.array_equal(q, outlines[0]) for q in outlines)


def test_two_cards_laid_at_once_are_both_read_by_the_whole_region(tango, tango_deck):
    """A change that one outline does not explain (here two cards far apart) is read by the recogniser over the whole
    region on every ballot, and both cards are reported."""
    cards = [synth.CardPose("7H", 420, 360, 10), synth.CardPose("KS", 860, 380, 100)]
    nz = synth.Nuisance(perspective=0.06, glare=0.3, shadow=0.3, blur=0, noise=3.0, jpeg=(70, 92))
    before = [synth.render_table(tango, [], seed=8, nuisance=nz, hand=False).image] * 8
    after = [synth.render_table(tango, cards, seed=8, nuisance=nz, hand=False).image] * 8
    det = play.PlayDetector(recognise.Recogniser(tango_deck), turn=lambda: 0)
    got = [e for f in before for e in det.feed(f)]
    calls = _counting(det)
    got += [e for f in after for e in det.feed(f)]
    assert sorted(e.code for e in got if e.kind == "card_played") == ["7H", "KS"]
    assert not [e for e in got if e.kind == "unsure_card"]
    assert calls["identify"] == det.votes


def test_a_trick_played_in_a_dim_room_is_read_as_in_a_bright_one(tango, tango_deck):
    """The same trick as ``played``, its frames at 0.45 of their levels (a dim room, sensor noise): the detector
    brightens by the exposure it measured on the first picture, and reads the plays it reads in the bright video."""
    rng = np.random.default_rng(3)

    def dim(frame):
        return np.clip(frame * 0.45 + rng.normal(0, 2, frame.shape), 0, 255).astype(np.uint8)

    truth, got, det = _play_trick(tango, tango_deck, dim)
    assert det._gain is not None and det._gain > 1.5
    plays = [(e.seat, e.code) for e in got if e.kind == "card_played"]
    assert plays == [(e.seat, e.code) for e in truth if e.kind == "play"]
    assert [e.kind for e in got if e.kind in ("unsure_card", "camera_moved", "mat_missing")] == []


def test_a_trick_played_under_a_warm_lamp_is_read_as_under_a_white_one(tango, tango_deck):
    """The same trick as ``played`` under a warm lamp (blue at 0.6 of its level, green 0.82): the detector measures
    the cast on its first picture, takes it out of every frame it reads (``vision.exposure.cast``), and reads the
    plays it reads under white light."""
    def warm(frame):
        return np.clip(frame * np.array([0.6, 0.82, 1.0], np.float32), 0, 255).astype(np.uint8)

    truth, got, det = _play_trick(tango, tango_deck, warm)
    assert det._cast[0] > 1.5 and det._cast[2] == pytest.approx(1.0)
    plays = [(e.seat, e.code) for e in got if e.kind == "card_played"]
    assert plays == [(e.seat, e.code) for e in truth if e.kind == "play"]
    assert [e.kind for e in got if e.kind in ("unsure_card", "camera_moved", "mat_missing")] == []


@pytest.mark.parametrize("switch", [60, 120])
def test_a_lamp_switched_on_in_the_middle_of_a_trick_shows_no_card_twice_and_none_new(tango, tango_deck, switch):
    """The room's light doubles while cards lie on the table (frame 60: as the second card is played; 120: between
    the second and the third): the whole picture changes and is read again, but the cards already there are the
    ones already seen (the detector's tracks), so every card is reported once, by the seat that played it."""
    frames = [0]

    def lamp(frame: np.ndarray) -> np.ndarray:
        frames[0] += 1
        return frame if frames[0] >= switch else (frame * 0.5).astype(np.uint8)

    truth, got, _ = _play_trick(tango, tango_deck, lamp)
    reported = [(e.seat, e.code) for e in got if e.kind in ("card_played", "unsure_card")]
    assert reported == [(e.seat, e.code) for e in truth if e.kind == "play"]


def test_a_lamp_switched_on_over_a_still_table_changes_the_gain_not_the_cards(tango_deck):
    """The light measured again on a still, unchanged table: brighter now, the gain goes back to 1 and the table as
    it is becomes the picture compared with, so no card is seen in the change of light."""
    rng = np.random.default_rng(0)
    table = np.clip(synth.table_background(rng, synth.camera_homography(rng, 0.05)), 0, 255).astype(np.uint8)
    dim = (table * 0.5).astype(np.uint8)
    det = play.PlayDetector(recognise.Recogniser(tango_deck), recheck_every=5)
    events = []
    for f in [dim] * 12 + [table] * 30:
        events += det.feed(f)
    assert det._gain == pytest.approx(1.0)
    assert [e.kind for e in events if e.kind in ("card_played", "unsure_card")] == []


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (640, 360), (160, 90)])
def test_the_small_copy_is_the_area_mean_of_a_frame_that_halves_to_it(size):
    """``play.shrink`` halves before it averages (faster); where the frame halves exactly to ``SMALL`` (a 16:9
    camera at 1280, 1920 or 640), the picture is the one area averaging gives, to a level."""
    import cv2

    rng = np.random.default_rng(3)
    w, h = size
    frame = cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), (0, 0), 1.0)
    frame[h // 4 : h // 2, w // 3 : w // 2] = 250  # a card's sharp white edge
    want = cv2.resize(frame, play.SMALL, interpolation=cv2.INTER_AREA).astype(int)
    assert int(np.abs(play.shrink(frame).astype(int) - want).max()) <= 1


@pytest.mark.parametrize("size", [(1366, 768), (1024, 576), (800, 600)])
def test_the_small_copy_of_any_other_frame_is_its_mean_where_the_picture_is_smooth(size):
    """At other sizes the halvings sample a little off the pixel grid: a card's edge lands a fraction of a small
    pixel elsewhere, the same in every frame (what the detector compares), and a smooth picture is unchanged."""
    import cv2

    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    frame = np.repeat((60 + 120 * xx / w + 40 * yy / h)[..., None], 3, axis=2)
    frame[h // 4 : h // 2, w // 3 : w // 2] = 250
    frame = cv2.GaussianBlur(frame, (0, 0), w / 60).astype(np.uint8)  # edges as soft as a pixel of the small copy
    want = cv2.resize(frame, play.SMALL, interpolation=cv2.INTER_AREA).astype(int)
    assert int(np.abs(play.shrink(frame).astype(int) - want).max()) <= 2


@pytest.mark.parametrize("design", ["plastic", "bellot"])
@pytest.mark.parametrize("to_centre", [True, False])
def test_a_joker_played_to_a_generic_camera_is_an_unsure_card_at_its_seat(decks_dir, design, to_centre):
    """The generic mode never names a joker: a joker played is an unsure card, by the seat that played it, for the
    director to name (Bid Whist plays with both jokers). Each of these 16 joker plays had gone unseen: the reader saw
    no index on it, and an outline nothing reads was dropped."""
    images = synth.load_deck(str(decks_dir / design))
    tricks = [[(0, "7H"), (1, "BJ"), (2, "2C"), (3, "LJ")], [(0, "LJ"), (1, "9S"), (2, "BJ"), (3, "3D")]]
    for seed, trick in zip((4, 5), tricks, strict=True):
        turn: list[int | None] = [None]
        det = play.PlayDetector(recognise.Recogniser(None), turn=lambda t=turn: t[0])
        got = []
        for frame, evs in synth.play_video(images, [trick], seed=seed, to_centre=to_centre):
            for e in evs:
                if e.kind == "play":
                    turn[0] = e.seat
            got += det.feed(frame)
        # every play once, in order, by its seat: the jokers unsure, nothing else (a camera blurring the table
        # while a hand came in had played the joker and the nine of spades again, unsure, at their seats: bellot,
        # seed 5, the seats' zones)
        plays = [(g.kind, g.seat, g.code) for g in got if g.kind in ("card_played", "unsure_card")]
        assert plays == [("unsure_card", seat, None) if code in ("BJ", "LJ") else ("card_played", seat, code)
                         for seat, code in trick], (seed, plays)
        assert all("no index read" in g.detail for g in got if g.kind == "unsure_card")


def _zones_trick_tilted(tango, tango_deck, tilt, seed):
    """A trick played to the seats' zones, the camera turned ``tilt`` degrees off the vertical (the far seat, 2, up
    the frame): the truth and the events."""
    tricks = [[(0, "7H"), (1, "KH"), (2, "TH"), (3, "AD")]]
    det = play.PlayDetector(recognise.Recogniser(tango_deck))
    truth, got = [], []
    for frame, evs in synth.play_video(tango, tricks, seed=seed, to_centre=False, tilt=tilt):
        truth += evs
        got += det.feed(frame)
    return truth, got


@pytest.mark.parametrize("seed", [4, 7])
def test_a_card_at_the_far_seat_of_a_camera_tilted_30_degrees_is_played(tango, tango_deck, seed):
    """Seen 30 degrees off the vertical, a card lying across the far seat's zone is foreshortened to about twice as
    long as wide in the frame, and a fifth smaller than one at the mat's centre: the change's outline was judged by
    its shape in the frame and the centre's card size, and the card by the finder with no principal point, and the
    play was missed. Every play is now seen, at the seat that made it, and none is wrong."""
    truth, got = _zones_trick_tilted(tango, tango_deck, 30, seed)
    want = [(e.seat, e.code) for e in truth if e.kind == "play"]
    plays = [(g.seat, g.code) for g in got if g.kind == "card_played"]
    unsure = [g.seat for g in got if g.kind == "unsure_card"]
    assert all(p in want for p in plays)
    assert sorted([s for s, _ in plays] + unsure) == [0, 1, 2, 3]
    assert (2, "TH") in plays


def test_a_face_outlined_with_its_shadow_is_an_unsure_card_and_felt_is_none(tango, tango_deck):
    """The change's outline of a card laid can take in a sliver of its shadow, so that its rim is not pale: where no
    view outlined the card, a face still matched well there (above ``recognise.FACE_SCORE``) is an unsure card for the
    director, where it had been no card at all and the play was missed (a paris ace of clubs laid on the pile,
    outlined so and matched at 0.81). An outline a fifth too large, and one on the bare felt, show no face."""
    det = play.PlayDetector(recognise.Recogniser(tango_deck))
    after, last = None, None
    for i, (frame, evs) in enumerate(synth.play_video(tango, [[(0, "7H"), (1, "KH")]], seed=4, to_centre=False)):
        det.feed(frame)
        last = frame
        after = i if any(e.kind == "play" and e.code == "KH" for e in evs) else after
        if after is not None and i > after + 15:
            break
    [card] = [t.quad for t in det._tracks if t.label == "7H"]
    middle = card.mean(axis=0)

    def grown(k):
        return (middle + (card - middle) * k).astype(np.float32)

    def pale(q):
        return regions.rim_pale(regions.card_mask(last), q)

    assert det._quad_read(last, grown(1.0)).code == "7H"
    assert pale(grown(1.12)) < 0.6
    assert det._quad_read(last, grown(1.12)) is None  # (the lone card's shortcut asks a pale rim or a sure read)
    shadowed = det._quad_read(last, grown(1.12), face_by_score=True)
    assert shadowed is not None and shadowed.code is None and shadowed.label == "7H"
    assert shadowed.confidence > recognise.FACE_SCORE
    assert det._quad_read(last, grown(1.2), face_by_score=True) is None
    assert det._quad_read(last, card + np.array([-250, 0], np.float32), face_by_score=True) is None
    # on a ballot: added where the picture's reads have nothing, never over a card a view outlined and read
    det._new_quad = grown(1.12)
    assert [(r.label, r.code) for r in det._outlined([], last)] == [("7H", None)]
    seen = det._quad_read(last, card)
    assert det._outlined([seen], last) == [seen]
