"""Crash recovery: a real ``cardref serve`` process killed with SIGKILL at random moments while a client posts a
simulated match; after every restart, 0 acknowledged events lost and the state the log replays to.
(``cardref soak --size N`` runs the same at any size.)"""

from tools.service_soak import soak


def test_kill_9_at_random_moments_loses_nothing(tmp_path):
    # kills counted in events posted (3..7 apart) and one at the end: at least 3 whatever the machine's speed
    stats = soak(tmp_path / "data", size=30, game="bid_whist", seed=4, kill_every=(3, 7))
    assert stats["kills"] >= 3
    assert stats["acknowledged"] > 12
    assert stats["lost"] == 0
    assert stats["mismatches"] == 0

