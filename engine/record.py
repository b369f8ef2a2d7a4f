"""The table record, version 1 (CONVENTIONS.md "Table record"): JSON Lines, one event per line.

Reading a record replays it through the engine; a record that cannot have happened is refused with
its line number and the reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from engine.hand import IllegalEvent
from engine.knowledge import KnowledgeError
from engine.match import Match
from engine.options import OptionError

VERSION = 1


class RecordError(ValueError):
    """A record line that cannot be read or cannot have happened."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def match_header(match: Match) -> dict[str, Any]:
    return {
        "event": "match",
        "version": VERSION,
        "game": match.game,
        "options": match.options,
        "players": match.players,
        "first_dealer": match.first_dealer,
    }


def parse_lines(lines: Iterable[str]) -> list[tuple[int, dict[str, Any]]]:
    """The events of a record with their line numbers (blank lines skipped)."""
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(number, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
        except RecursionError:
            raise RecordError(number, "JSON nested too deeply to be a table event") from None
        except ValueError as exc:  # an integer past Python's digit limit (int_max_str_digits), say
            raise RecordError(number, f"not a table event ({exc})") from None
        if not isinstance(event, dict) or not isinstance(event.get("event"), str):
            raise RecordError(number, "each line must be a JSON object with an 'event' name")
        out.append((number, event))
    return out


def start_match(number: int, header: dict[str, Any]) -> Match:
    if header.get("event") != "match":
        raise RecordError(number, "a record starts with a 'match' event")
    if header.get("version") != VERSION:
        raise RecordError(number, f"record version {header.get('version')!r} is not supported (this is version 1)")
    game, options, players = header.get("game", ""), header.get("options") or {}, header.get("players")
    if not isinstance(game, str):
        raise RecordError(number, f"'game' must be a game name, not {game!r}")
    if not isinstance(options, dict):
        raise RecordError(number, f"'options' must be a JSON object of option names and values, not {options!r}")
    if players is not None and not (isinstance(players, list) and all(isinstance(p, str) for p in players)):
        raise RecordError(number, f"'players' must be a list of names, not {players!r}")
    try:
        return Match(game, options, players, header.get("first_dealer", 0))
    except (OptionError, IllegalEvent) as exc:
        raise RecordError(number, str(exc)) from None


def replay(lines: Iterable[str]) -> Match:
    """Replay a whole record; raises RecordError naming the first line that cannot have happened."""
    events = parse_lines(lines)
    if not events:
        raise RecordError(1, "the record is empty")
    match = start_match(*events[0])
    for number, event in events[1:]:
        try:
            match.apply(event)
        except (IllegalEvent, KnowledgeError) as exc:
            raise RecordError(number, str(exc)) from None
    return match


def dumps(events: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(e, separators=(", ", ": ")) + "\n" for e in events)
