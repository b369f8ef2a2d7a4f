"""A plain install (``pip install .``, no test extra) runs the product and ``cardref demo --web``: the product's and
the demo's code imports nothing that only the test extra installs. Checked in a fresh interpreter whose imports of
the test extra's packages fail, as they would where they are not installed. (The whole check, a scratch virtualenv
with ``pip install .`` and the demo run in it, is the manual check of docs/real-table.md's last section: it takes
minutes to download and install.)"""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEST_ONLY = ("httpx", "pytest", "_pytest", "playwright", "hypothesis", "schemathesis", "ruff", "mypy", "importlinter",
             "pytest_timeout", "xdist", "execnet")

SCRIPT = textwrap.dedent("""
    import importlib.abc, sys
    BLOCKED = set(sys.argv[1].split(","))

    class NotInstalled(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r} (only the test extra installs it)", name=name)
            return None

    sys.meta_path.insert(0, NotInstalled())
    for name in BLOCKED:
        assert name not in sys.modules, name

    import tempfile
    from pathlib import Path

    import uvicorn

    from cli.main import build_parser
    from referee.app import create_app
    from tools import demo_web, drawn_deck, http_client  # noqa: F401 (the demo's whole import tree)
    from tools.commands import register  # noqa: F401

    parser = build_parser()                      # every product command and every tool's
    parser.parse_args(["demo", "--web", "--game", "pitch"])
    app = create_app(Path(tempfile.mkdtemp()) / "data")
    config = uvicorn.Config(app, ws="websockets-sansio")
    config.load()                                # the live pages' WebSocket protocol is importable
    camera, note = demo_web.start_camera(app.state.session)   # the drawn deck, enrolled for the synthetic camera
    assert "drawn" in note, note
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
    print("ok", loaded)
""")


def test_the_product_and_the_demo_import_nothing_from_the_test_extra():
    r = subprocess.run([sys.executable, "-c", SCRIPT, ",".join(TEST_ONLY)], capture_output=True, text=True,
                       timeout=240, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == "ok []"


def test_the_blocker_blocks():
    """The check above can fail: an import of a test-only package under the same blocker is an error."""
    script = SCRIPT.replace("import tempfile", "import httpx\nimport tempfile")
    r = subprocess.run([sys.executable, "-c", script, ",".join(TEST_ONLY)], capture_output=True, text=True,
                       timeout=120, cwd=ROOT)
    assert r.returncode != 0 and "only the test extra installs it" in r.stderr
