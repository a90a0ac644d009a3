"""Regenerate the screenshots in ``docs/screenshots/`` from the real-browser tests.

``python scripts/doc_screenshots.py`` runs the browser tests that take the docs' pictures with
``EXPLORER_DOC_SCREENSHOTS=1``, which makes them copy their screenshots from
``tests/artifacts/`` into ``docs/screenshots/``. A plain ``python -m pytest`` never writes there,
so a test run leaves the checkout clean. ``docs/screenshots/load.png`` comes from
``python benchmarks/plot_load.py`` instead. Extra arguments go to pytest (``-k home``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The browser modules whose tests copy a screenshot for the docs (``for_docs``).
MODULES = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "tests" / "browser").glob(
    "test_*_browser.py") if "for_docs(" in path.read_text(encoding="utf-8"))


def main(argv: list[str]) -> int:
    """Run the screenshot tests; return pytest's exit status."""
    env = {**os.environ, "EXPLORER_DOC_SCREENSHOTS": "1"}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "browser",
               *MODULES, *argv]
    print("EXPLORER_DOC_SCREENSHOTS=1", " ".join(command[1:]), flush=True)
    return subprocess.call(command, cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
