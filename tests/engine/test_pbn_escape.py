"""The PBN-style export keeps every player's name inside its own tag (issue 13, item 9)."""

import random
import re

from engine.match import Match
from engine.pbn import pbn
from engine.record import match_header
from engine.simulate import random_deal


def test_a_name_cannot_write_a_tag_of_its_own():
    evil = 'Ann"]\n[Result "13'
    match = Match("bid_whist", {}, [evil, "Bo\r\n% x", "Cy\\", "Di\u2028[Score \"9\"]"])
    deal = random_deal(match.hand, random.Random(1))
    match.apply(deal)
    text = pbn(match_header(match), [deal], match)
    tags = [line for line in text.splitlines() if line.startswith("[")]
    # Each tag line is one well-formed tag: a name, then one string token with only escaped quotes inside.
    token = re.compile(r'^\[[A-Za-z]+ "(?:[^"\\]|\\["\\])*"\]$')
    assert all(token.match(t) for t in tags), tags
    assert not any(t.startswith("[Result") for t in tags)
    assert '[North "Ann\\"] [Result \\"13"]' in text
    assert all(line.startswith(("%", "[")) or not line for line in text.splitlines())


def test_tag_value_escapes_backslash_and_quote():
    from engine.pbn import tag_value

    assert tag_value('a"b\\c\nd') == 'a\\"b\\\\c d'
