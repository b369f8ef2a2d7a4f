"""The camera joined to the table: a trick with a renege rendered by the synthetic camera, fed frame by frame to the
play detector through ``referee.camera.CameraBridge``; the plays reach the engine from the source ``camera``, the
renege is called with the camera frame as evidence (the director's only), a lost camera shows on the pages."""

import os
import stat
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from referee.app import create_app
from referee.camera import CameraBridge
from tools.bench_alert import renege_hands
from tools.service_soak import endpoint

DECKS = Path(__file__).resolve().parents[3] / "shared" / "decks"


@pytest.fixture(scope="module")
def deck():
    if not (DECKS / "tango" / "AS.png").exists():
        pytest.fail(f"the development decks are not at {DECKS}")
    from tools import synth
    from vision import deck as decklib

    return synth.load_deck(str(DECKS / "tango")), decklib.enroll_dir(str(DECKS / "tango"))


def camera_trick(tmp_path, deck, seed):
    """A fresh table at the renege's trick; the trick rendered (10 frames/s) and fed to the camera."""
    from tools import synth
    from vision import play, recognise

    images, enrolled = deck
    app = create_app(tmp_path / f"data{seed}")
    session = app.state.session
    # The shortest such trick: rendering frames is the slow part of this test.
    before, trick, renege_at = min(renege_hands(12), key=lambda h: len(h[1]))
    session.create_match("bid_whist", {}, ["Ann", "Bo", "Cy", "Di"], 0, "director", "d")
    for event in before:
        session.submit(event, "director", "d")
    bridge = CameraBridge(session, play.PlayDetector(recognise.Recogniser(enrolled)))
    assert bridge.turn() == trick[0][0]
    for frame, _ in synth.play_video(images, [trick], seed=seed, fps=10):
        bridge.feed(frame)
    return app, bridge, trick, renege_at


def test_camera_plays_a_renege_and_keeps_the_frame(tmp_path, deck):
    # The detector may be unsure of a card in a given rendering (it then says so, never guesses): up to three
    # renderings, until it reads the reneging card.
    for seed in (5, 6, 7):
        app, bridge, trick, renege_at = camera_trick(tmp_path, deck, seed)
        session = app.state.session
        rows = {r.seq: r for r in session.log.rows()}
        camera_plays = [(rows[s].event["seat"], rows[s].event["card"]) for s in bridge.plays]
        unsure = [o for o in session.director_state()["observations"] if o["event"] == "unsure_card"]
        # Every card the camera entered is right; a card it could not read is an observation for the director.
        assert all(p in trick for p in camera_plays) and not bridge.refused
        assert len(camera_plays) + len(unsure) >= len(trick)
        if trick[renege_at] in camera_plays:
            break
    else:
        pytest.fail("the camera read the reneging card in none of three renderings")
    tokens = app.state.tokens
    calls = [c for c in session.calls() if c["proven"]]
    assert calls and (calls[0]["seat"], calls[0]["card"]) == trick[renege_at]
    framed = [e for e in calls[0]["evidence"] if "frame" in e]
    assert framed, calls[0]["evidence"]
    path = session.frames_dir / f"{framed[0]['seq']}.jpg"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with TestClient(app) as client:
        r = client.get(framed[0]["frame"], headers={"Authorization": "Bearer " + tokens["director"]})
        assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg" and r.content[:2] == b"\xff\xd8"
        assert client.get(framed[0]["frame"], headers={"Authorization": "Bearer " + tokens["public"]}).status_code \
            == 403
        assert client.get("/api/frames/999999", headers={"Authorization": "Bearer " + tokens["director"]}) \
            .status_code == 404


def test_camera_lost_and_back_and_the_engine_veto(tmp_path, deck):
    from vision import play, recognise

    images, enrolled = deck
    app = create_app(tmp_path / "data", camera="ok")
    session = app.state.session
    bridge = CameraBridge(session, play.PlayDetector(recognise.Recogniser(enrolled)))
    bridge.feed(None)
    assert session.public_state()["devices"]["camera"] == "lost"
    import numpy as np

    frame = (np.random.default_rng(1).integers(0, 255, (360, 640, 3))).astype("uint8")
    bridge.feed(frame)
    assert session.public_state()["devices"]["camera"] == "ok"
    # The engine's veto: with the hands known, a card the seat cannot hold is refused as a read.
    before, trick, _ = renege_hands(1)[0]
    session.create_match("bid_whist", {}, None, 0, "director", "d")
    for event in before:
        path, body = endpoint(event)
        session.submit(event, "director", "d")
    seat = trick[0][0]
    deal = before[0]
    held = set(deal["hands"][seat])
    not_held = next(c for h in deal["hands"] for c in h if c not in held)
    assert bridge.check(seat, trick[0][1]) or trick[0][1] not in held
    assert not bridge.check(seat, not_held)


def five_handed_pitch_trick():
    """Five-handed Pitch dealt and set up by the scripted players up to the first trick: (the events before it, the
    trick they then play). The first seed whose trick has no joker (the synthetic decks have none) and seat 4."""
    import copy
    import random

    from engine.hand import PLAY
    from engine.match import Match
    from engine.simulate import random_deal
    from tools.demo_terminal import scripted_event

    for seed in range(1, 50):
        rng = random.Random(seed)
        mirror = Match("pitch", {"players": 5}, FIVE)
        hand = mirror.hand
        events = [random_deal(hand, rng)]
        mirror.apply(events[0])
        while not (hand.phase == PLAY and hand.trick is not None and not hand.trick.cards):
            event, _ = scripted_event(hand, rng)
            mirror.apply(event)
            events.append(event)
        ahead = copy.deepcopy(mirror)
        trick = []
        while len(trick) < len(ahead.hand.active):
            event, _ = scripted_event(ahead.hand, rng)
            ahead.apply(event)
            trick.append((event["seat"], event["card"]))
        if not any(c in ("BJ", "LJ") for _, c in trick) and 4 in [s for s, _ in trick]:
            return events, trick
    raise AssertionError("no jokerless first trick with seat 4 in 50 seeds")


FIVE = ["Ann", "Bo", "Cy", "Di", "Ed"]


def test_camera_plays_five_handed_pitch_on_the_five_seat_mat_and_refuses_the_four_seat_mat(tmp_path, deck):
    import numpy as np

    from tools import synth
    from vision import play, recognise

    images, enrolled = deck
    app = create_app(tmp_path / "data", camera="ok")
    session = app.state.session
    events, trick = five_handed_pitch_trick()
    bridge = CameraBridge(session, play.PlayDetector(recognise.Recogniser(enrolled)))
    assert bridge.seats() is None  # no match yet: whichever mat is in view
    session.create_match("pitch", {"players": 5}, FIVE, 0, "director", "d")
    for event in events:
        session.submit(event, "director", "d")
    assert bridge.seats() == 5 and bridge.turn() == trick[0][0]

    # The four-seat mat at a five-handed game: the camera is lost, the reason (the other mat) logged and shown.
    rng = np.random.default_rng(3)
    four = np.clip(synth.table_background(rng, synth.camera_homography(rng, 0.05), 4), 0, 255).astype(np.uint8)
    for _ in range(16):
        bridge.feed(four)
    assert session.public_state()["devices"]["camera"] == "lost"
    why = [r.why for r in session.log.rows() if r.kind == "status"][-1]
    assert "four-seat mat" in why and "five players" in why and "--seats 5" in why

    # The five-seat mat: the camera is back and enters the trick's plays, each with the right seat.
    for frame, _ in synth.play_video(images, [trick], seed=5, fps=10, seats=5):
        bridge.feed(frame)
    assert session.public_state()["devices"]["camera"] == "ok"
    rows = {r.seq: r for r in session.log.rows()}
    camera_plays = [(rows[s].event["seat"], rows[s].event["card"]) for s in bridge.plays]
    unsure = [o for o in session.director_state()["observations"] if o["event"] == "unsure_card"]
    assert all(p in trick for p in camera_plays) and not bridge.refused
    assert len(camera_plays) + len(unsure) >= len(trick) and len(camera_plays) >= len(trick) - 1


def test_reads_over_the_wrong_mat_go_to_the_director_not_the_engine(tmp_path):
    from vision.play import Event

    class Idle:  # the bridge sets the detector's callbacks; this test hands it the events itself
        pass

    app = create_app(tmp_path / "data", camera="ok")
    session = app.state.session
    events, trick = five_handed_pitch_trick()
    session.create_match("pitch", {"players": 5}, FIVE, 0, "director", "d")
    for event in events:
        session.submit(event, "director", "d")
    bridge = CameraBridge(session, Idle())
    seat, code = trick[0]
    bridge.handle(Event("mat_mismatch", 15, detail="the mat in view is the four-seat mat"), None)
    bridge.handle(Event("camera_back", 16), None)  # a camera back over the wrong mat is still lost
    assert session.public_state()["devices"]["camera"] == "lost"
    bridge.handle(Event("card_played", 40, seat, code), None)
    assert bridge.plays == [] and session.current.match.hand.trick.cards == []
    obs = session.director_state()["observations"]
    assert obs[-1]["seat"] == seat and code in obs[-1]["detail"] and "four-seat mat" in obs[-1]["detail"]
    bridge.handle(Event("mat_found", 45, detail="the 5-seat mat is in view"), None)
    assert session.public_state()["devices"]["camera"] == "ok"
    bridge.handle(Event("card_played", 60, seat, code), None)
    assert len(bridge.plays) == 1


@pytest.mark.parametrize("game, told", [("bid_whist", True), ("pitch", True), ("bid_euchre", False)])
def test_a_game_with_jokers_says_at_its_start_when_the_camera_cannot_read_them(tmp_path, game, told):
    """Issue 10: a deck enrolled without its jokers (or the generic mode) reads a joker as unsure; a match of a game
    played with jokers says so to the director when it starts (Bid Euchre has no jokers: nothing to say)."""
    from referee.camera import JOKER_NOTE
    from vision import play, recognise

    app = create_app(tmp_path / "data")
    session = app.state.session
    CameraBridge(session, play.PlayDetector(recognise.Recogniser(None)), reads_jokers=False)
    session.create_match(game, {}, ["Ann", "Bo", "Cy", "Di"], 0, "director", "d")
    notes = [o for o in session.director_state()["observations"] if o["event"] == "camera_note"]
    assert (notes == [] if not told else notes[0]["detail"] == JOKER_NOTE)
    assert all(o["event"] != "camera_note" for o in session.public_state().get("observations", []))


def test_a_deck_with_its_jokers_says_nothing(tmp_path, deck):
    from vision import play, recognise

    app = create_app(tmp_path / "data")
    session = app.state.session
    _, enrolled = deck
    assert enrolled.has_jokers
    CameraBridge(session, play.PlayDetector(recognise.Recogniser(enrolled)), reads_jokers=enrolled.has_jokers)
    session.create_match("bid_whist", {}, ["Ann", "Bo", "Cy", "Di"], 0, "director", "d")
    assert not [o for o in session.director_state()["observations"] if o["event"] == "camera_note"]
