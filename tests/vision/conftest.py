"""Shared fixtures of the vision tests: the development decks and an enrolled deck (built once per session)."""

from pathlib import Path

import pytest

DECKS = Path(__file__).resolve().parents[3] / "shared" / "decks"


@pytest.fixture(scope="session")
def decks_dir() -> Path:
    if not (DECKS / "tango" / "AS.png").exists():
        pytest.skip("the development decks (../shared/decks) are not here")
    return DECKS


@pytest.fixture(scope="session")
def tango(decks_dir):
    from vision import synth

    return synth.load_deck(str(decks_dir / "tango"))


@pytest.fixture(scope="session")
def tango_deck(decks_dir):
    from vision import deck

    return deck.enroll_dir(str(decks_dir / "tango"))
