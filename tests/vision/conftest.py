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
    from tools import synth

    return synth.load_deck(str(decks_dir / "tango"))


@pytest.fixture(scope="session")
def tango_deck(decks_dir):
    from vision import deck

    return deck.enroll_dir(str(decks_dir / "tango"))


@pytest.fixture(scope="session")
def tuning_templates(decks_dir):
    """Generic-mode templates from three tuning designs only (the tests read other designs with them)."""
    from tools import synth
    from vision import glyphs, recognise

    src = {}
    for name in ("anglo_modern", "plastic", "simplistic"):
        images = synth.load_deck(str(decks_dir / name))
        src[name] = [(c, recognise.canonical_card(img)) for c, img in images.items() if c not in ("back",)]
    return glyphs.build_templates(src)
