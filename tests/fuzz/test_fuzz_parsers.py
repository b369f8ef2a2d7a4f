"""Fuzz targets for the two parsers that read bytes from outside: the table record (``engine.record``) and the
dealer link's frame decoder (``dealer_protocol.framing``). Each input either parses or is refused with the parser's
own error; nothing else may come out (no RecursionError, no ValueError of a huge integer, no IndexError...), and a
frame reader never holds more than its bound.

``make test`` runs a few hundred examples each (a few seconds); to search longer:
``CARDREF_FUZZ_EXAMPLES=200000 .venv/bin/python -m pytest -q tests/fuzz``.
"""

import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer_protocol.framing import MAX_FRAME, FrameError, FrameReader, decode_frame, encode_frame
from engine.record import RecordError, parse_lines, replay

EXAMPLES = int(os.environ.get("CARDREF_FUZZ_EXAMPLES", "200"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))

# JSON-ish text: real events bent out of shape, deep nesting, huge numbers, stray bytes.
EVENT_NAMES = ["match", "deal", "bid", "declare", "discard", "play", "draw", "rob", "burn", "fold", "joker_swap",
               "exchange", "retract", "ruling", "x"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.floats(allow_nan=True)
    | st.text(max_size=8) | st.sampled_from(["AS", "10H", "BJ", "LJ", "ZZ", "", "pass", "4 low", "moon"]),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=6), inner, max_size=6),
    max_leaves=10,
)
events = st.fixed_dictionaries({"event": st.sampled_from(EVENT_NAMES)},
                               optional={"seat": json_values, "card": json_values, "cards": json_values,
                                         "hands": json_values, "bid": json_values, "trump": json_values,
                                         "game": st.sampled_from(["bid_whist", "pitch", "bid_euchre", "go"]),
                                         "version": st.sampled_from([1, 2, "1"]), "options": json_values,
                                         "players": json_values, "dealer": json_values})
lines = st.one_of(
    events.map(json.dumps),
    st.text(max_size=60),
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
    st.integers(4000, 6000).map(lambda n: '{"event": "bid", "seat": ' + "7" * n + "}"),
    st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
)


@FUZZ
@given(st.lists(lines, max_size=6), st.booleans())
def test_the_record_parser_refuses_or_replays(record, with_header):
    if with_header:
        record = ['{"event": "match", "version": 1, "game": "bid_whist"}', *record]
    try:
        parse_lines(record)
        replay(record)
    except RecordError as exc:
        assert exc.line >= 1 and str(exc)


@FUZZ
@given(st.binary(max_size=2 * MAX_FRAME + 50))
def test_the_frame_decoder_refuses_or_decodes(data):
    try:
        body = decode_frame(data)
    except FrameError:
        return
    assert encode_frame(body)[:-1] == data or len(body) >= 1


@FUZZ
@given(st.lists(st.one_of(st.binary(max_size=300), st.builds(lambda b: encode_frame(b), st.binary(min_size=1,
                                                                                            max_size=200))),
                max_size=12))
def test_the_frame_reader_keeps_good_frames_and_a_bounded_buffer(chunks):
    reader = FrameReader()
    for chunk in chunks:
        for body in reader.feed(chunk):
            assert isinstance(body, bytes) and 1 <= len(body) <= MAX_FRAME
        assert len(reader._buf) <= MAX_FRAME * 2
    # After any noise, a delimiter then a good frame is read whole.
    assert reader.feed(b"\x00" + encode_frame(b"ok")) == [b"ok"]
