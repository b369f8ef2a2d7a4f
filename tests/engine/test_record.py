"""`cardref replay`: the result JSON of a good table record; a record that cannot have happened refused with exit 2,
its line number and the reason, never a traceback (CONVENTIONS.md, "Table record" and "Replay result")."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main
from engine.cards import CODES
from engine.match import Match
from engine.record import dumps, match_header
from engine.simulate import random_events

ROOT = Path(__file__).resolve().parents[2]
CARDREF = ROOT / ".venv" / "bin" / "cardref"
# Without the installed command: the same entry point (`python -m cli` works too; this line keeps the old form, a
# UserError class of its own, so the sub-commands' errors would escape as a traceback).
RUN_MAIN = "import sys; from cli.main import main; sys.exit(main(sys.argv[1:]))"


def cardref() -> list[str]:
    return [str(CARDREF)] if CARDREF.exists() else [sys.executable, "-c", RUN_MAIN]

# ------------------------------------------------------------------------------------------- helpers


def run_cli(path: Path) -> tuple[int, str, str]:
    """`cardref replay FILE` as a separate process (the installed command, or the module if not installed)."""
    proc = subprocess.run([*cardref(), "replay", str(path)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def run_main(path: Path, capsys) -> tuple[int, str, str]:
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, lines: list, name: str = "record.jsonl") -> Path:
    """Write a record: dicts as JSON lines, strings as they are (for broken lines)."""
    path = tmp_path / name
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


def header(game: str = "bid_whist", options: dict | None = None, **extra) -> dict:
    h = {"event": "match", "version": 1, "game": game, "options": options or {}, "players": None, "first_dealer": 0}
    h["players"] = ["Ann", "Bo", "Cy", "Di", "Ed"][: (options or {}).get("players", 4)]
    h.update(extra)
    return h


def bw_deal(dealer: int = 0) -> dict:
    """A fixed Bid Whist deal: seat s holds the s-th twelve cards of the deck in its order (S, H, D, C, jokers),
    the kitty the last six (JC..AC, BJ, LJ)."""
    codes = list(CODES)
    return {"event": "deal", "dealer": dealer, "hands": [codes[12 * s : 12 * s + 12] for s in range(4)],
            "kitty": codes[48:]}


def game_record(game: str, options: dict, seed: int, max_hands: int = 2) -> tuple[list[dict], Match]:
    match = Match(game, options)
    events = random_events(match, random.Random(seed), max_hands=max_hands, pass_rate=0.6)
    return [match_header(match), *events], match


# ------------------------------------------------------------------------------------------- good records


@pytest.mark.parametrize(
    ("game", "options"),
    [("bid_whist", {}), ("bid_euchre", {}), ("pitch", {}), ("pitch", {"players": 5, "points": 13})],
)
def test_a_good_record_prints_its_result(tmp_path, capsys, game, options):
    lines, match = game_record(game, options, seed=11)
    path = write(tmp_path, lines)
    expected = json.loads(json.dumps(match.result()))
    assert expected["hands"], "the record plays at least one hand"

    code, out, err = run_cli(path)
    assert (code, err) == (0, "")
    assert json.loads(out) == expected
    assert out.count("\n") == 1, "one JSON object on one line"

    code, out, err = run_main(path, capsys)
    assert (code, err) == (0, "")
    assert json.loads(out) == expected


def test_the_result_has_the_conventions_shape(tmp_path, capsys):
    lines, match = game_record("bid_whist", {}, seed=3, max_hands=3)
    code, out, _ = run_main(write(tmp_path, lines), capsys)
    result = json.loads(out)
    assert code == 0
    assert set(result) == {"game", "hands", "scores", "winner"}
    assert result["game"] == "bid_whist" and len(result["scores"]) == 2
    for number, h in enumerate(result["hands"], start=1):
        keys = {"number", "dealer", "declarer", "contract", "trump", "taken", "reneges", "irregularities", "score"}
        assert keys <= set(h)
        assert h["number"] == number and len(h["taken"]) == 2 and len(h["score"]) == 2
    assert result["scores"] == [sum(h["score"][i] for h in result["hands"]) for i in (0, 1)]


def test_ten_and_lower_case_are_accepted_and_written_canonically(tmp_path, capsys):
    """CONVENTIONS.md, cards: input also accepts `10H` and lower case; output always writes the canonical form.
    Seat 1 holds the AS; it fails to follow spades with `10h`, and the renege's card and proof come out as TH and AS.
    """
    deal = bw_deal(dealer=0)
    deal["hands"] = [[c.lower().replace("t", "10") if c[0] == "T" else c.lower() for c in h] for h in deal["hands"]]
    deal["kitty"] = [c.lower() for c in deal["kitty"]]
    lines = [
        header("bid_whist", {}),
        deal,
        {"event": "bid", "seat": 1, "bid": "pass"},
        {"event": "bid", "seat": 2, "bid": "pass"},
        {"event": "bid", "seat": 3, "bid": "pass"},
        {"event": "bid", "seat": 0, "bid": "3 High"},
        {"event": "declare", "seat": 0, "trump": "s"},
        {"event": "discard", "seat": 0, "cards": ["jc", "qc", "kc", "ac", "bj", "lj"]},
        {"event": "play", "seat": 0, "card": "2s"},
        {"event": "play", "seat": 1, "card": "10h"},  # seat 1 holds the AS: a renege
        {"event": "play", "seat": 2, "card": "2d"},
        {"event": "play", "seat": 3, "card": "2c"},
    ]
    match = Match("bid_whist", {})
    for event in lines[1:]:
        match.apply(event)
    rng = random.Random(0)
    while not match.hands[0].is_terminal():  # the rest of the hand: any legal cards
        hand = match.hand
        event = {"event": "play", "seat": hand.play_turn(), "card": CODES[rng.choice(hand.legal_plays())]}
        match.apply(event)
        lines.append({**event, "card": event["card"].lower()})
    code, out, err = run_main(write(tmp_path, lines), capsys)
    assert (code, err) == (0, ""), err
    result = json.loads(out)
    assert result["hands"][0]["reneges"] == [{"seat": 1, "trick": 1, "card": "TH", "led": "S", "proof": "AS"}]
    assert result["hands"][0]["contract"] == "3 high" and result["hands"][0]["trump"] == "S"
    assert "10" not in json.dumps(result["hands"][0]["reneges"])


def test_lower_case_and_ten_in_a_whole_record_replay_to_the_same_result(tmp_path, capsys):
    lines, match = game_record("pitch", {}, seed=5)

    def sloppy(x):
        if isinstance(x, str) and x in CODES:
            return ("10" + x[1] if x[0] == "T" else x).lower()
        if isinstance(x, list):
            return [sloppy(y) for y in x]
        if isinstance(x, dict):
            return {k: (v if k in ("event", "game") else sloppy(v)) for k, v in x.items()}
        return x

    code, out, err = run_main(write(tmp_path, [lines[0], *[sloppy(e) for e in lines[1:]]]), capsys)
    assert (code, err) == (0, "")
    assert json.loads(out) == json.loads(json.dumps(match.result()))
    assert "10" not in "".join(
        str(r["card"]) + str(r["proof"]) for h in json.loads(out)["hands"] for r in h["reneges"]
    )


# ------------------------------------------------------------------------------------------- CONVENTIONS.md shapes


def test_the_conventions_example_record_is_accepted(tmp_path, capsys):
    """The example of CONVENTIONS.md, "Table record", made consistent: dealer 3, seat 1 bids 4 low, names spades,
    discards 2C..7C and leads AS. The hand is not over, so no hand is in the result yet."""
    seat1 = ["AS", "2C", "3C", "4C", "5C", "6C", "7C", "KH", "QH", "JH", "TH", "9H"]
    kitty = ["BJ", "LJ", "8C", "9C", "TC", "JC"]
    rest = [c for c in CODES if c not in seat1 + kitty]
    hands = [rest[0:12], seat1, rest[12:24], rest[24:36]]
    lines = [
        {"event": "match", "version": 1, "game": "bid_whist", "options": {"target": 7},
         "players": ["Ann", "Bo", "Cy", "Di"], "first_dealer": 3},
        {"event": "deal", "dealer": 3, "hands": hands, "kitty": kitty},
        {"event": "bid", "seat": 0, "bid": "pass"},
        {"event": "bid", "seat": 1, "bid": "4 low"},
        {"event": "bid", "seat": 2, "bid": "pass"},
        {"event": "bid", "seat": 3, "bid": "pass"},
        {"event": "declare", "seat": 1, "trump": "S"},
        {"event": "discard", "seat": 1, "cards": ["2C", "3C", "4C", "5C", "6C", "7C"]},
        {"event": "play", "seat": 1, "card": "AS"},
    ]
    path = write(tmp_path, lines)
    code, out, err = run_main(path, capsys)
    # Cut off mid-hand: the result (no finished hand) and a warning that says so; --strict makes it an exit 1.
    assert code == 0 and "INCOMPLETE: the record stops in the middle of hand 1 (play phase)" in err
    assert "0 finished hand(s)" in err
    assert json.loads(out) == {"game": "bid_whist", "hands": [], "scores": [0, 0], "winner": None}
    assert run_cli(path)[0] == 0
    assert main(["replay", "--strict", str(path)]) == 1
    assert "INCOMPLETE" in capsys.readouterr().err


def shapes_of(lines: list[dict]) -> set[str]:
    out = set()
    for e in lines[1:]:
        kind = e["event"]
        out.add(kind)
        if kind == "bid":
            out.add("bid " + (e["bid"].split()[1] if " " in e["bid"] else e["bid"] if not e["bid"][0].isdigit()
                              else "number"))
        if kind == "declare":
            out.add("declare " + ("null" if e.get("trump") is None else "suit") + (" call" if "call" in e else ""))
        if kind == "deal":
            out.add("deal " + " ".join(sorted(k for k in e if k not in ("event", "dealer", "hands"))))
    return out


def hide(lines: list[dict]) -> list[dict]:
    """The same record as a table without a dealing machine writes it: unread cards as null."""
    out = [lines[0]]
    for e in lines[1:]:
        e = dict(e)
        if e["event"] == "deal":
            e["hands"] = None
            for key in ("kitty", "pack", "blind"):
                if key in e:
                    e[key] = None
        elif e["event"] == "discard" and lines[0]["game"] == "bid_whist":
            e["cards"] = [None] * 6
        elif e["event"] == "joker_swap":
            e["drew"] = None
        elif e["event"] == "exchange":
            e["card"] = None
        elif e["event"] in ("draw", "rob"):
            e["cards"] = [None] * len(e["cards"])
        out.append(e)
    return out


def find_records(game: str, options: dict, wanted: set[str], seeds: int = 400) -> list[list[dict]]:
    """Random records of a game that together show every wanted event shape."""
    found, records = set(), []
    for seed in range(seeds):
        lines, _ = game_record(game, options, seed, max_hands=2)
        new = shapes_of(lines) & wanted - found
        if new:
            found |= new
            records.append(lines)
        if found == wanted:
            return records
    raise AssertionError(f"{game}: no random record shows {sorted(wanted - found)}")


SHAPES = [
    ("bid_whist", {}, {"deal kitty", "bid pass", "bid high", "bid low", "bid no", "declare suit", "declare null",
                       "discard", "joker_swap", "play"}),
    ("bid_euchre", {}, {"deal ", "bid pass", "bid number", "bid single", "bid double", "declare suit",
                        "declare null", "exchange", "fold", "play"}),
    ("pitch", {}, {"deal pack", "bid pass", "bid number", "bid moon", "declare suit", "discard", "draw", "rob",
                   "burn", "play"}),
    ("pitch", {"players": 5}, {"deal blind", "declare suit call", "discard", "draw", "play"}),
]


@pytest.mark.parametrize(("game", "options", "wanted"), SHAPES, ids=[f"{g}{o}" for g, o, _ in SHAPES])
def test_every_event_shape_of_the_conventions_is_accepted(tmp_path, capsys, game, options, wanted):
    """Each event of CONVENTIONS.md's list, with the hands known and with every unread card null."""
    for i, lines in enumerate(find_records(game, options, wanted)):
        for variant, record in (("known", lines), ("null", hide(lines))):
            code, out, err = run_main(write(tmp_path, record, f"{i}-{variant}.jsonl"), capsys)
            assert (code, err) == (0, ""), (variant, err)
            assert json.loads(out)["game"] == game


def test_a_bare_bid_number_is_high_in_bid_whist(tmp_path, capsys):
    lines = [header(), bw_deal(), {"event": "bid", "seat": 1, "bid": "4"}, {"event": "bid", "seat": 2, "bid": "pass"},
             {"event": "bid", "seat": 3, "bid": "4 low"}, {"event": "bid", "seat": 0, "bid": "pass"}]
    code, _, err = run_main(write(tmp_path, lines), capsys)
    assert code == 0 and "INCOMPLETE" in err
    lines[4] = {"event": "bid", "seat": 3, "bid": "4 high"}  # "4" is "4 high": a second 4 high does not beat it
    code, _, err = run_main(write(tmp_path, lines), capsys)
    assert code == 2 and "line 5:" in err and "does not beat the standing bid" in err


def test_standard_input(tmp_path):
    lines, match = game_record("bid_euchre", {}, seed=2)
    proc = subprocess.run([*cardref(), "replay", "-"], input=dumps(lines), capture_output=True, text=True, cwd=ROOT,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == json.loads(json.dumps(match.result()))


# ------------------------------------------------------------------------------------------- refusals


def deal_and_bids() -> list:
    return [header(), bw_deal(), {"event": "bid", "seat": 1, "bid": "pass"}, {"event": "bid", "seat": 2, "bid": "pass"},
            {"event": "bid", "seat": 3, "bid": "pass"}, {"event": "bid", "seat": 0, "bid": "3 high"},
            {"event": "declare", "seat": 0, "trump": "S"},
            {"event": "discard", "seat": 0, "cards": ["JC", "QC", "KC", "AC", "BJ", "LJ"]}]


def swap_dealt_twice() -> list:
    lines = deal_and_bids()[:2]
    deal = json.loads(json.dumps(lines[1]))
    deal["hands"][1][0] = "2S"  # seat 0 holds 2S too
    return [lines[0], deal]


def bad_card_code() -> list:
    lines = deal_and_bids()[:2]
    deal = json.loads(json.dumps(lines[1]))
    deal["hands"][2][3] = "1X"
    return [lines[0], deal]


REFUSALS = {
    # name: (lines, the line refused, words of the reason)
    "invalid JSON": ([header(), '{"event": "deal", "dealer": 0,'], 2, ["not valid JSON"]),
    "not an object": ([header(), "[1, 2]"], 2, ["JSON object", "'event'"]),
    "first line not a match": ([bw_deal(), header()], 1, ["starts with a 'match' event"]),
    "unknown game": ([header("spades")], 1, ["unknown game 'spades'", "bid_whist", "bid_euchre", "pitch"]),
    "unknown option": ([header("bid_whist", {"trumps": 3})], 1, ["no option 'trumps'", "nt_jokers", "target"]),
    "option out of range": ([header("bid_whist", {"target": 0})], 1, ["'target'", "from 1 to 100"]),
    "option not allowed": ([header("bid_whist", {"nt_jokers": "keep"})], 1, ["'nt_jokers'", '"swap"', '"dead"']),
    "pitch points not allowed": ([header("pitch", {"points": 12})], 1, ["'points'", "12", "5, 7, 8, 10, 11, 13"]),
    "option of the wrong type": ([header("bid_whist", {"jokers_distinct": 1})], 1, ["'jokers_distinct'", "true"]),
    "a card dealt twice": (swap_dealt_twice(), 2, ["2S", "dealt twice"]),
    "not a card": (bad_card_code(), 2, ["'1X' is not a card"]),
    "a card not in the deck": ([header("bid_euchre"), {"event": "deal", "dealer": 0, "hands": [
        ["2S", "9S", "TS", "JS", "QS", "KS"], None, None, None]}], 2, ["2S", "not in the bid_euchre deck"]),
    "a play of a card the seat cannot hold": (
        [*deal_and_bids(), {"event": "play", "seat": 0, "card": "2H"}], 9, ["seat 0 cannot hold 2H"]),
    "a play of a card already played": (
        [*deal_and_bids(), {"event": "play", "seat": 0, "card": "KS"}, {"event": "play", "seat": 1, "card": "AS"},
         {"event": "play", "seat": 2, "card": "2D"}, {"event": "play", "seat": 3, "card": "2C"},
         {"event": "play", "seat": 1, "card": "AS"}], 13, ["seat 1 cannot hold AS"]),
    "a card already played, the hands not read": (
        [header("bid_euchre"), {"event": "deal", "dealer": 0, "hands": None}, {"event": "bid", "seat": 1, "bid": "3"},
         {"event": "bid", "seat": 2, "bid": "pass"}, {"event": "bid", "seat": 3, "bid": "pass"},
         {"event": "bid", "seat": 0, "bid": "pass"}, {"event": "declare", "seat": 1, "trump": "H"},
         {"event": "play", "seat": 1, "card": "AS"}, {"event": "play", "seat": 2, "card": "as"}], 9,
        ["seat 2 cannot hold AS"]),
    "a card in a hand and in the kitty": (
        [header(), {"event": "deal", "dealer": 0, "hands": [["AS"] + [None] * 11, None, None, None],
                    "kitty": ["AS", None, None, None, None, None]}], 2, ["AS is dealt twice"]),
    "a bid below the standing bid": (
        [header(), bw_deal(), {"event": "bid", "seat": 1, "bid": "5 low"}, {"event": "bid", "seat": 2, "bid": "4 no"}],
        4, ["'4 no'", "does not beat the standing bid"]),
    "an equal bid in Bid Euchre": (
        [header("bid_euchre"), {"event": "deal", "dealer": 0, "hands": None}, {"event": "bid", "seat": 1, "bid": "4"},
         {"event": "bid", "seat": 2, "bid": "4"}], 4, ["does not beat the standing bid"]),
    "a play in the bidding": (
        [header(), bw_deal(), {"event": "play", "seat": 1, "card": "AS"}], 3, ["play event in the bid phase"]),
    "a bid before the deal": (
        [header(), {"event": "bid", "seat": 1, "bid": "pass"}], 2, ["bid event in the deal phase"]),
    "a second deal": ([header(), bw_deal(), bw_deal()], 3, ["deal event in the bid phase"]),
    "a discard in the bidding": (
        [header(), bw_deal(), {"event": "discard", "seat": 1, "cards": ["2S"] * 6}], 3,
        ["discard event in the bid phase"]),
    "a seat out of range": ([header(), bw_deal(), {"event": "bid", "seat": 7, "bid": "pass"}], 3,
                            ["seat 7 is not a seat", "0..3"]),
    "a negative seat": (
        [*deal_and_bids(), {"event": "play", "seat": -1, "card": "AS"}], 9, ["seat -1 is not a seat"]),
    "a seat that is not a number": ([header(), bw_deal(), {"event": "bid", "seat": "1", "bid": "pass"}], 3,
                                    ["'1' is not a seat"]),
    "a seat out of range in five-handed pitch": (
        [header("pitch", {"players": 5}), {"event": "deal", "dealer": 0, "hands": None, "blind": None},
         {"event": "bid", "seat": 5, "bid": "pass"}], 3, ["seat 5 is not a seat", "0..4"]),
    "an unknown event": ([header(), bw_deal(), {"event": "shuffle"}], 3, ["unknown event 'shuffle'"]),
    "a bid out of turn": ([header(), bw_deal(), {"event": "bid", "seat": 2, "bid": "pass"}], 3, ["out of turn"]),
    "not a Bid Whist bid": ([header(), bw_deal(), {"event": "bid", "seat": 1, "bid": "9 high"}], 3, ["'9 high'"]),
    "a deal of the wrong size": (
        [header(), {"event": "deal", "dealer": 0, "hands": [["AS"], None, None, None], "kitty": None}], 2,
        ["seat 0 was dealt 1 cards", "12"]),
    "a dealer other than the match's": ([header(), bw_deal(dealer=2)], 2, ["the dealer is seat 0"]),
    "the version": ([header(version=2)], 1, ["version 2"]),
    "options not an object": ([header(options=None) | {"options": "AS"}], 1, ["'options' must be a JSON object"]),
    "players not a list": ([header() | {"players": 5}], 1, ["'players' must be a list of names"]),
    "a game that is not a name": ([header() | {"game": {"a": 1}}], 1, ["'game' must be a game name"]),
    "too few players named": ([header() | {"players": ["Ann", "Bo", "Cy"]}], 1, ["4 players, 3 named"]),
    "a first dealer out of range": ([header(first_dealer=4)], 1, ["first_dealer 4 is not a seat"]),
    "an empty record": ([], 1, ["empty"]),
}


@pytest.mark.parametrize("name", list(REFUSALS))
def test_an_impossible_record_is_refused(tmp_path, capsys, name):
    lines, line_no, words = REFUSALS[name]
    path = write(tmp_path, lines)
    for code, out, err in (run_cli(path), run_main(path, capsys)):
        assert code == 2, (name, out, err)
        assert out == ""
        assert "Traceback" not in err
        assert err.startswith("cardref: ") and err.count("\n") == 1, err
        assert f"line {line_no}: " in err, err
        for word in words:
            assert word in err, (word, err)


def test_a_missing_file_is_refused_without_traceback(tmp_path, capsys):
    code, out, err = run_main(tmp_path / "nope.jsonl", capsys)
    assert code == 2 and out == "" and "no such file" in err and "Traceback" not in err


def test_python_dash_m_refuses_without_traceback_too(tmp_path):
    path = write(tmp_path, [bw_deal()])
    proc = subprocess.run([sys.executable, "-m", "cli", "replay", str(path)], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "line 1: a record starts with a 'match' event" in proc.stderr
