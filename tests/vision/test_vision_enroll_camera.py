import cv2
import numpy as np
import pytest

from cli.main import main
from tools import synth
from vision import deck, geometry, recognise


def _frames(tango, codes, n=5):
    empty = synth.render_table(tango, [], seed=3, nuisance=synth.Nuisance.none(), hand=False).image
    for code in codes:
        yield empty
        card = synth.render_table(tango, [synth.CardPose(code, 600, 400, 12)], seed=3,
                                  nuisance=synth.Nuisance.none(), hand=False).image
        for _ in range(n):
            yield card
    yield empty


def test_cards_are_taken_one_at_a_time(tango, tango_deck):
    codes = ["AS", "KH", "7D"]
    msgs = []
    images = deck.enroll_stream(_frames(tango, codes), codes, progress=msgs.append)
    assert list(images) == codes
    assert msgs[0] == "lay AS on the mat (1/3)" and "took 7D (3/3); take it away" in msgs
    for code, img in images.items():
        label, _, _ = recognise.match(tango_deck.templates, cv2.resize(img, (geometry.CW, geometry.CH)), True)
        assert label == code


def test_cards_taken_under_a_warm_lamp_have_the_cast_taken_out(tango, tango_deck):
    """The same table under a warm lamp (blue 0.6, green 0.82 of their levels): each card is looked for and taken with
    the light's cast out of the frame, as the play detector takes it out of the frames it reads against these
    templates - its paper comes out grey, not yellow, and it is cut along its own outline. Looked for in the raw
    frame, this design's kings and tens were found by the finder network alone: short of whole (with session 39's
    networks the stream ended at the KH) or cut along a wrong outline (with the networks before, the KH so cut
    matched the JH best)."""
    codes = ["AS", "KH", "TD"]

    def warm(frames):
        for f in frames:
            yield np.clip(f * np.array([0.6, 0.82, 1.0], np.float32), 0, 255).astype(np.uint8)

    images = deck.enroll_stream(warm(_frames(tango, codes)), codes, progress=lambda m: None)
    assert list(images) == codes
    for code, img in images.items():
        b, g, r = (float(np.percentile(img[..., c], 90)) for c in range(3))
        assert b > 0.9 * r and g > 0.9 * r, (code, b, g, r)
        label, _, _ = recognise.match(tango_deck.templates, cv2.resize(img, (geometry.CW, geometry.CH)), True)
        assert label == code


def test_stream_that_ends_early_names_the_next_card(tango):
    with pytest.raises(deck.EnrollError, match="after 1 of 2 cards .next: KH"):
        deck.enroll_stream(_frames(tango, ["AS"]), ["AS", "KH"], progress=lambda m: None)


def test_watch_a_folder_of_frames(tmp_path, tango, tango_deck, capsys):
    d = tango_deck
    d.save(str(tmp_path / "t.npz"))
    frames = tmp_path / "frames"
    frames.mkdir()
    for i, f in enumerate(_frames(tango, ["AS"], n=9)):
        cv2.imwrite(str(frames / f"f{i:03d}.png"), f)
    assert main(["vision", "watch", str(frames), "--deck", str(tmp_path / "t.npz")]) == 0
    out = capsys.readouterr().out
    assert '"kind": "card_played"' in out and '"code": "AS"' in out
    assert main(["vision", "watch", str(tmp_path / "nope.mp4"), "--deck", str(tmp_path / "t.npz")]) == 2
