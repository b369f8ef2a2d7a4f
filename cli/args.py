"""Argument types shared by the commands: each names the option and what it takes when the value is wrong."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def probability(name: str) -> Callable[[str], float]:
    """A probability 0..1 for option ``name``."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number within 0..1, got {text!r}") from None
        if not 0.0 <= value <= 1.0:
            raise argparse.ArgumentTypeError(f"{name} must be within 0..1, got {text}")
        return value

    return parse


def positive(name: str, *, zero: bool = False) -> Callable[[str], int]:
    """A whole number, 1 or more (0 or more with ``zero``), for option ``name``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got {text!r}") from None
        if value < (0 if zero else 1):
            raise argparse.ArgumentTypeError(
                f"{name} must be {'0 or more' if zero else '1 or more'}, got {text}"
            )
        return value

    return parse


def scale(text: str) -> float:
    """``--scale``: a share of the real timings, in (0, 10]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--scale must be a number, got {text!r}") from None
    if not 0.0 < value <= 10.0:
        raise argparse.ArgumentTypeError(f"--scale must be within (0, 10], got {text}")
    return value
