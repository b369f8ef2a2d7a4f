"""Shared fixtures of the vision tests: the development decks and an enrolled deck (built once per session)."""

from collections.abc import Callable
from pathlib import Path

import pytest

DECKS = Path(__file__).resolve().parents[3] / "shared" / "decks"
PHOTOS = Path(__file__).resolve().parents[3] / "shared" / "photos"


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
    from vision import features, glyphs

    src = {}
    for name in ("anglo_modern", "plastic", "simplistic"):
        images = synth.load_deck(str(decks_dir / name))
        src[name] = [(c, features.canonical_card(img)) for c, img in images.items() if c not in ("back",)]
    return glyphs.build_templates(src)


@pytest.fixture(scope="session")
def poker_photo():
    """``poker_photo(name, side)``: a development poker_table photo shrunk to ``side`` px and its labelled codes (a
    ``Counter``); the test is skipped where the development photos are not here."""
    from collections import Counter

    from tools import photo_bench as pb

    folder = PHOTOS / "poker_table" / "train"
    if not folder.is_dir():
        pytest.skip("the development photos ../shared/photos/poker_table are not here")
    photos = {Path(p.path).name: p for p in pb.from_poker_csv(str(folder)).photos}

    def load(name: str, side: int):
        img, _ = pb.load_photo(str(folder / name), side)
        return img, Counter(photos[name].codes)

    return load


@pytest.fixture(scope="session")
def desk_photo():
    """``desk_photo(name, side)``: a development desk/query photo shrunk to ``side`` px and its labelled codes (a
    ``Counter``); the test is skipped where the development photos are not here."""
    import json
    from collections import Counter

    from tools import photo_bench as pb

    folder = PHOTOS / "desk"
    if not (folder / "labels.json").exists():
        pytest.skip("the development photos ../shared/photos/desk are not here")
    labels = json.loads((folder / "labels.json").read_text())

    def load(name: str, side: int):
        img, _ = pb.load_photo(str(folder / "query" / name), side)
        return img, Counter(labels[name])

    return load


def _rendered(tmp_path_factory, kind: str, have: Callable[[], list[str]], write: Callable[[str, str], object],
              needs: str) -> Callable[[str], Path]:
    """``deck(name)``: the folder ``write(name, folder)`` renders, made once per test run and shared by pytest-xdist's
    workers (a KDE deck takes ~25 s of rsvg-convert: each worker rendering its own copy cost the suite minutes); the
    test is skipped where ``name`` is not among ``have()`` or rsvg-convert is not installed (``needs``: the Debian
    packages to name)."""
    import fcntl
    import os
    import shutil

    base = tmp_path_factory.getbasetemp()
    # (under xdist each worker's basetemp is a folder of the run's one basetemp, which pytest clears as it does any)
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    made: dict[str, Path] = {}

    def deck(name: str) -> Path:
        if name not in made:
            if shutil.which("rsvg-convert") is None or name not in have():
                pytest.skip(f"needs Debian's librsvg2-bin and {needs} (the {name} {kind})")
            root = shared / f"rendered-{kind}"
            root.mkdir(exist_ok=True)
            out = root / name
            with open(root / f"{name}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                # (written whole under the lock, then renamed: a worker that waited finds it finished or absent)
                if not out.is_dir():
                    part = root / f"{name}.part"
                    shutil.rmtree(part, ignore_errors=True)
                    write(name, str(part))
                    part.rename(out)
            made[name] = out
        return made[name]

    return deck


@pytest.fixture(scope="session")
def aisleriot_deck(tmp_path_factory):
    """``aisleriot_deck(name)``: the folder of Debian's aisleriot theme ``name`` rendered to one PNG per card, made
    once per session; the test is skipped where the theme or its renderer (librsvg2-bin, gnome-cards-data) is not
    installed."""
    from tools import aisleriot

    return _rendered(tmp_path_factory, "theme", aisleriot.themes, aisleriot.write_deck, "gnome-cards-data")


@pytest.fixture(scope="session")
def kde_deck(tmp_path_factory):
    """``kde_deck(name)``: the folder of KDE's card deck ``name`` (``tools.kde_decks``: designs nothing was tuned on)
    rendered to one PNG per card, made once per session; the test is skipped where the deck or its renderer
    (librsvg2-bin, kdegames-card-data-kf5) is not installed."""
    from tools import kde_decks

    return _rendered(tmp_path_factory, "deck", kde_decks.decks, kde_decks.write_deck, "kdegames-card-data-kf5")


@pytest.fixture(scope="session")
def kde_enrolled(kde_deck):
    """``kde_enrolled(name)``: KDE's deck ``name`` as ``kde_deck`` renders it and that folder enrolled, enrolled once
    per worker (~4 s each); each call gives its own copy, so a test may change its deck."""
    import copy

    from vision import deck as decklib

    enrolled: dict[str, object] = {}

    def get(name: str) -> tuple[Path, object]:
        folder = kde_deck(name)
        if name not in enrolled:
            enrolled[name] = decklib.enroll_dir(str(folder))
        return folder, copy.deepcopy(enrolled[name])

    return get
