"""cardref: vision - the camera part of the referee.

``mat`` draws the printable mat and calibrates the camera from its ArUco markers; ``deck`` reads deck folders and
enrolls a card design; ``recognise`` finds and reads cards (``null`` when unsure), with ``glyphs`` and ``pips`` for
the generic mode; ``play`` turns a frame stream into play events. See docs/vision.md; the synthetic scenes and the
benchmark are tools (``tools/synth.py``, ``tools/vision_bench.py``).
"""
