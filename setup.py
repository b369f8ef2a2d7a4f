"""Build hook: with CARDREF_COMPILE=1 the engine's rule modules are compiled by mypyc from the same typed source
(as black and mypy ship themselves). Without it, everything installs as plain Python: that is what the tests
run, so an edited rule is never shadowed by a stale compiled module."""

import os

from setuptools import setup

ext_modules = []
if os.environ.get("CARDREF_COMPILE") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(
        [
            "engine/errors.py",
            "engine/cards.py",
            "engine/knowledge.py",
            "engine/hand.py",
            "engine/bid_whist.py",
            "engine/bid_euchre.py",
            "engine/pitch.py",
            "engine/options.py",
            "engine/match.py",
            "engine/shuffle.py",
        ],
        opt_level="3",
    )

setup(ext_modules=ext_modules)
