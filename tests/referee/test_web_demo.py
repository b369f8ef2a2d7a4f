"""``cardref demo --web`` end to end: the machine deals on a pty, the synthetic camera reads every trick, and every
renege the table calls is one the scripted players really made (a misread card must never become an accusation)."""

import re

from tools import demo_web as web_demo

NAMES = web_demo.PLAYERS[:4]


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
    assert "camera: synthetic" in out and "tools/drawn_deck.py" in out  # the camera path ran, and says on what
    calls = {(int(h), NAMES.index(who), card)
             for who, h, card in re.findall(r"RENEGE called on (\w+) at trick \d+ of hand (\d+): played (\w+)", out)}
    assert calls, out  # seed 7's first hand has reneges: the test must see the table call them
    assert calls <= made, f"called but never made: {calls - made}"
    assert re.search(r"The camera read (\d+) plays", out)


def test_the_demo_plays_its_three_hands_and_stops(capsys):
    """`make demo` plays three hands, as the README says (the match's target is out of their reach), then stops at
    once. Without the camera: its path is the test above; here the tablet enters the plays."""
    assert web_demo.run(port=0, pace=0.0, camera=False) == 0
    out = capsys.readouterr().out
    assert [int(n) for n in re.findall(r"hand (\d+) over", out)] == [1, 2, 3]
    assert "Done: 3 hands played; the service stops." in out and "stay up" not in out
    assert "camera: none; plays entered on the tablet" in out
