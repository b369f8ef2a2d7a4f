"""The ``cardref dealer`` commands, run through the product's real entry point."""

import json
import re
import subprocess
import sys
import time

import pytest

from cli.main import main
from dealer_protocol.security import load_key
from engine.match import deck_for
from hardware.sim import SimulatedDealer


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "dealer.key"
    load_key(path, create=True)
    return path


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("game", "players", "shown"), [("bid_whist", 4, 5), ("bid_euchre", 4, 4), ("pitch", 5, 5)]
)
def test_dealer_deal_prints_each_pocket(key_file, capsys, game, players, shown):
    with SimulatedDealer(load_key(key_file), seed=1, fast=True, deck=deck_for(game)) as sim:
        argv = ["dealer", "deal", "--port", sim.path, "--game", game, "--key-file", str(key_file)]
        assert main([*argv, "--players", str(players)]) == 0
    lines = capsys.readouterr().out.splitlines()
    pockets = [line for line in lines if "held in the machine" not in line]
    assert len(pockets) == shown
    cards = [c for line in pockets for c in line.split(":", 1)[1].split()]
    assert len(cards) == len(set(cards)) and set(cards) <= set(deck_for(game))
    if game == "pitch":
        assert "blind    ( 4): held in the machine" in lines


@pytest.mark.timeout(60)
def test_dealer_deal_errors_are_one_line(key_file, tmp_path, capsys):
    assert (
        main(
            [
                "dealer",
                "deal",
                "--port",
                "/dev/nonexistent-tty",
                "--game",
                "pitch",
                "--key-file",
                str(key_file),
                "--timeout",
                "0.3",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert err.startswith("cardref: --port /dev/nonexistent-tty:") and "\n" not in err
    assert (
        main(["dealer", "deal", "--port", "x", "--game", "pitch", "--key-file", str(tmp_path / "none")]) == 2
    )
    assert "--key-file: no pairing key at" in capsys.readouterr().err
    assert (
        main(
            [
                "dealer",
                "deal",
                "--port",
                "x",
                "--game",
                "bid_whist",
                "--players",
                "5",
                "--key-file",
                str(key_file),
            ]
        )
        == 2
    )
    assert "--players: no deal pattern for 'bid_whist' with 5 players" in capsys.readouterr().err
    with SimulatedDealer(load_key(key_file), seed=1, fast=True) as sim:  # a whist deck, asked for euchre
        assert (
            main(["dealer", "deal", "--port", sim.path, "--game", "bid_euchre", "--key-file", str(key_file)])
            == 2
        )
    err = capsys.readouterr().err
    assert "extra_card during LOAD" in err and "extra: " in err


def test_soak_options_are_checked(capsys):
    with pytest.raises(SystemExit):
        main(["dealer", "soak", "--drop", "1.5"])
    assert "--drop must be within 0..1, got 1.5" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["dealer", "soak", "--deals", "0"])
    assert "--deals must be 1 or more" in capsys.readouterr().err


@pytest.mark.timeout(120)
def test_dealer_soak_ends_with_one_json_line(capsys):
    argv = ["dealer", "soak", "--deals", "6", "--unplug-every", "3", "--seed", "7", "--game", "bid_euchre"]
    assert main(argv) == 0
    out = capsys.readouterr()
    result = json.loads(out.out.strip().splitlines()[-1])
    assert result["deals_completed"] == 6 and result["cards_lost"] == 0 and result["cards_duplicated"] == 0
    assert list(result)[:4] == ["deals_completed", "faults_reported", "cards_lost", "cards_duplicated"]
    assert "soak: 6/6 deals" in out.err


@pytest.mark.timeout(60)
def test_dealer_sim_prints_a_device_path_a_host_can_deal_on(key_file, tmp_path):
    link = tmp_path / "ttyDEALER"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cli",
            "dealer",
            "sim",
            "--fast",
            "--key-file",
            str(key_file),
            "--link",
            str(link),
            "--seconds",
            "20",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        path = proc.stdout.readline().strip()
        assert path == str(link)
        deadline = time.monotonic() + 10
        while not link.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "cli",
                "dealer",
                "deal",
                "--port",
                path,
                "--game",
                "bid_whist",
                "--key-file",
                str(key_file),
            ],
            capture_output=True,
            text=True,
            timeout=40,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[-1].startswith("kitty    ( 6): ")
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.timeout(60)
def test_dealer_deal_a_board_from_a_table_record(key_file, tmp_path, capsys):
    deck = deck_for("bid_whist")
    hands = [deck[i * 12 : (i + 1) * 12] for i in range(4)]
    record = tmp_path / "board.jsonl"
    record.write_text(
        json.dumps({"event": "match", "version": 1, "game": "bid_whist"})
        + "\n"
        + json.dumps({"event": "deal", "dealer": 0, "hands": hands, "kitty": deck[48:]})
        + "\n"
    )
    with SimulatedDealer(load_key(key_file), seed=1, fast=True) as sim:
        argv = ["dealer", "deal", "--port", sim.path, "--game", "bid_whist", "--key-file", str(key_file)]
        assert main([*argv, "--board", str(record)]) == 0
        lines = capsys.readouterr().out.splitlines()
        for seat in range(4):
            assert sorted(lines[seat].split(":", 1)[1].split()) == sorted(hands[seat])
        assert sorted(lines[4].split(":", 1)[1].split()) == sorted(deck[48:])
        bad = tmp_path / "bad.jsonl"
        bad.write_text(
            json.dumps({"event": "deal", "hands": [hands[0], hands[0], hands[2], hands[3]]}) + "\n"
        )
        assert main([*argv, "--board", str(bad)]) == 2
        err = capsys.readouterr().err
        assert f"--board {bad}:1: the board must name each card of the bid_whist deck once (twice: " in err
        assert main([*argv, "--board", str(tmp_path / "absent.jsonl")]) == 2
        assert "No such file" in capsys.readouterr().err


@pytest.mark.timeout(60)
def test_after_a_fault_the_operator_resumes_from_the_command_line(key_file, capsys):
    from hardware.machine import FaultKind

    with SimulatedDealer(load_key(key_file), seed=1, fast=True) as sim:
        common = ["--port", sim.path, "--key-file", str(key_file)]
        sim.machine.inject(FaultKind.JAM)
        assert main(["dealer", "deal", "--game", "bid_whist", *common]) == 2
        assert "jam during DEAL" in capsys.readouterr().err
        assert main(["dealer", "deal", "--game", "bid_whist", *common]) == 2
        assert "fault_pending" in capsys.readouterr().err
        assert main(["dealer", "status", *common]) == 0
        assert "last fault: jam, an interrupted deal owes 54 cards" in capsys.readouterr().err
        assert main(["dealer", "resume", *common]) == 0
        out = capsys.readouterr().out.splitlines()
        assert [line[:13] for line in out] == [
            "seat 0   (12)",
            "seat 1   (12)",
            "seat 2   (12)",
            "seat 3   (12)",
            "pocket 4 ( 6)",
        ]
        assert main(["dealer", "abort", *common]) == 0


@pytest.mark.timeout(60)
def test_dealer_deal_shows_its_progress_and_a_euchre_deck_check_says_what_to_take_out(key_file, capsys):
    """A real deal takes half a minute: each step says what it is doing and the deal counts its cards (on stderr,
    a line per quarter when it is not a terminal), before the pockets are printed."""
    with SimulatedDealer(load_key(key_file), seed=1, fast=True, deck=deck_for("bid_whist")) as sim:
        assert main(["dealer", "deal", "--port", sim.path, "--game", "bid_whist", "--key-file", str(key_file)]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    steps = [line.split("...")[0] for line in lines if "..." in line]
    assert steps[0] == "checking the deck (54 cards)" and "shuffling" in steps
    assert steps[-1] == "dealing 54 cards" and lines[-2] == "dealing 54 cards... 54/54"
    assert [line for line in lines if line.startswith("dealing")] == [
        f"dealing 54 cards... {n}/54" for n in (0, 14, 27, 41, 54)]
    assert len(out.split()) > 54 and not re.search(r"\b(?:[2-9TJQKA][SHDC]|BJ|LJ)\b", err)  # no card named
    with SimulatedDealer(load_key(key_file), seed=1, fast=True) as sim:  # a whole deck, asked for euchre
        assert main(["dealer", "deal", "--port", sim.path, "--game", "bid_euchre", "--key-file", str(key_file)]) == 2
    assert "take out the 2-8s and the jokers" in capsys.readouterr().err
