"""The README and docs/ are self-contained: every file they point to is in the repository (nothing beside it,
except the development decks, explained where named), and docs/rules.md lists every option the engine takes
with its default."""

import json
import re
from pathlib import Path

from engine.options import SPECS

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_docs_point_only_inside_the_repository():
    checked = 0
    for doc in DOCS:
        text = doc.read_text()
        for line in text.splitlines():
            if "../shared" in line:
                # only the development decks, in the one paragraph that says they are not needed to run anything
                assert doc.name == "vision.md" and "development checkout" in line, (doc.name, line)
        for target in re.findall(r"\]\(([^)#]+)\)", text):  # markdown links
            if "://" not in target:
                assert (doc.parent / target).exists(), (doc.name, target)
                checked += 1
        for path in re.findall(r"`((?:docs|tools|cli|referee|engine|vision|hardware)/[\w./-]+\.(?:md|py))`", text):
            assert (ROOT / path).exists(), (doc.name, path)
            checked += 1
        assert "RULINGS.md" not in text and "CONVENTIONS.md" not in text, doc.name
    assert checked >= 10  # the README's and the guides' links were all looked at


def test_every_engine_option_is_in_the_rules_page_with_its_default():
    rules = (ROOT / "docs" / "rules.md").read_text()
    sections = re.split(r"^## ", rules, flags=re.M)
    titles = {"bid_whist": "Bid Whist", "bid_euchre": "Bid Euchre", "pitch": "Ten-point Pitch"}
    for game, options in SPECS.items():
        section = next(s for s in sections if s.startswith(titles[game]))
        common = next(s for s in sections if s.startswith("For every game"))
        for option in options:
            row = re.search(rf"^\| `{option.name}` \| `([^`]+)` \|", section + common, flags=re.M)
            assert row, (game, option.name)
            assert json.loads(row.group(1)) == option.default, (game, option.name, row.group(1))
