"""Match options: the names and values of RULINGS.md, validated (CONVENTIONS.md "Games and options").

Every option lives in the match's options and is written into every record, so a record always
re-scores the same way. An unknown name or a value out of range is an error naming the allowed values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import OptionError


@dataclass(frozen=True)
class Option:
    name: str
    default: Any
    choices: tuple[Any, ...] | None = None  # the allowed values, or None for an int range
    low: int | None = None
    high: int | None = None

    def allowed(self) -> str:
        if self.choices is not None:
            return ", ".join(_show(c) for c in self.choices)
        return f"an integer from {self.low} to {self.high}"

    def check(self, value: Any) -> Any:
        if self.choices is not None:
            # bool is an int in Python: compare types too, so `1` is not taken for `true`.
            for choice in self.choices:
                if value == choice and type(value) is type(choice):
                    return value
            raise OptionError(f"option {self.name!r} = {_show(value)} is not allowed; allowed: {self.allowed()}")
        if type(value) is not int or not (self.low <= value <= self.high):  # type: ignore[operator]
            raise OptionError(f"option {self.name!r} = {_show(value)} is not allowed; allowed: {self.allowed()}")
        return value


    def from_text(self, text: str) -> Any:
        """The value written as text (a command line's ``target=32``, ``reverse=true``), checked."""
        t = text.strip()
        if self.choices is None:
            try:
                return self.check(int(t))
            except ValueError:
                raise OptionError(f"option {self.name!r} = {t!r} is not allowed; allowed: {self.allowed()}") from None
        words = t.lower()
        for choice in self.choices:
            if words == _show(choice).strip('"').lower():
                return choice
            if isinstance(choice, bool) and words in (TRUE_WORDS if choice else FALSE_WORDS):
                return choice
        raise OptionError(f"option {self.name!r} = {t!r} is not allowed; allowed: {self.allowed()}")


def from_texts(game: str, given: Mapping[str, str]) -> dict[str, Any]:
    """Options written as text (``{"target": "32"}``) read by their kind; unknown names and bad values are
    OptionErrors naming the allowed ones. Only the options given are returned (``validate`` adds the defaults)."""
    if game not in SPECS:
        raise OptionError(f"unknown game {game!r}; allowed: {', '.join(SPECS)}")
    specs = {o.name: o for o in SPECS[game]}
    out: dict[str, Any] = {}
    for name, text in given.items():
        if name not in specs:
            raise OptionError(f"{game} has no option {name!r}; its options: {', '.join(sorted(specs))}")
        out[name] = specs[name].from_text(text)
    return out


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


BOOL = (False, True)
TRUE_WORDS: tuple[str, ...] = ("true", "yes", "on", "1")
FALSE_WORDS: tuple[str, ...] = ("false", "no", "off", "0")

COMMON = (Option("renege_correctable", True, BOOL),)

BID_WHIST = COMMON + (
    Option("bid_order", "no>low>high", ("no>low>high", "no>high=low")),
    Option("dealer_can_match", False, BOOL),
    Option("kitty_shown_in_trumps", True, BOOL),
    Option("nt_jokers", "swap", ("swap", "dead")),
    Option("score", "books", ("books", "bid_only")),
    Option("nt_multiplier", 1, low=1, high=4),
    Option("boston_multiplier", 1, low=1, high=4),
    Option("target", 7, low=1, high=100),
    Option("renege_penalty", "books", ("books", "hand")),
    Option("renege_books", 3, low=1, high=13),
    Option("jokers_distinct", True, BOOL),
)

BID_EUCHRE = COMMON + (
    Option("set_penalty", "six", ("six", "bid")),
    Option("target", 52, low=1, high=500),
    Option("renege_penalty", "all_tricks", ("all_tricks", "points")),
    Option("renege_points", 2, low=1, high=52),
)

PITCH = COMMON + (
    Option("points", 10, (5, 7, 8, 10, 11, 13, 14, 15, 16)),
    Option("reverse", False, BOOL),
    Option("players", 4, (4, 5)),
    Option("jokers_distinct", True, BOOL),
    Option("rob_to_partner", False, BOOL),
    Option("dirty", False, BOOL),
    Option("defenders_score_when_set", True, BOOL),
    Option("target", 52, low=1, high=500),
    Option("renege_penalty", "set", ("set",)),
)

SPECS: dict[str, tuple[Option, ...]] = {"bid_whist": BID_WHIST, "bid_euchre": BID_EUCHRE, "pitch": PITCH}


def validate(game: str, given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The full option set of ``game``: defaults overridden by ``given``, every value checked."""
    if game not in SPECS:
        raise OptionError(f"unknown game {game!r}; allowed: {', '.join(SPECS)}")
    specs = {o.name: o for o in SPECS[game]}
    given = dict(given or {})
    for name in given:
        if name not in specs:
            raise OptionError(f"{game} has no option {name!r}; its options: {', '.join(sorted(specs))}")
    return {name: (spec.check(given[name]) if name in given else spec.default) for name, spec in specs.items()}
