"""``cardref demo --web`` end to end: the machine deals on a pty, the synthetic camera reads every trick, and every
renege the table calls is one the scripted players really made (a misread card must never become an accusation)."""

import re

import pytest

from tools import demo_web as web_demo

NAMES = web_demo.PLAYERS[:4]


@pytest.mark.skipif(not (web_demo.DECKS / "tango").is_dir(), reason="no development decks")
def test_a_demo_hand_calls_only_the_reneges_the_players_made(monkeypatch, capsys):
    made: set[tuple[int, int, str]] = set()
    scripted = web_demo.scripted_event

    def watched(hand, rng):
        event, reneged = scripted(hand, rng)
        if reneged:
            made.add((hand.number, event["seat"], event["card"]))
        return event, reneged

    monkeypatch.setattr(web_demo, "scripted_event", watched)
    assert web_demo.run(port=0, pace=0.0, linger=0.0, max_hands=1) == 0
    out = capsys.readouterr().out
    assert "camera: synthetic" in out  # the camera path ran (the development decks are here)
    calls = {(int(h), NAMES.index(who), card)
             for who, h, card in re.findall(r"RENEGE called on (\w+) at trick \d+ of hand (\d+): played (\w+)", out)}
    assert calls, out  # seed 7's first hand has reneges: the test must see the table call them
    assert calls <= made, f"called but never made: {calls - made}"
    assert re.search(r"The camera read (\d+) plays", out)
