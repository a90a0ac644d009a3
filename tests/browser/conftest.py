"""Real-browser fixtures: ``streamlit run app.py`` on a free port, and Debian's Chromium.

Modelled on Streamlit's own ``e2e_playwright/conftest.py``: one server per test module, polled on
``/_stcore/health``; one headless Chromium per module, one fresh page per test.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from benchmarks.timing import stop

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
STARTUP_TIMEOUT = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"streamlit exited with {proc.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.25)
    pytest.fail(f"streamlit was not healthy after {STARTUP_TIMEOUT:.0f} s:\n{log.read_text()}")


@pytest.fixture(scope="module")
def app_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """URL of ``streamlit run app.py``, started from the repository root on a free port."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    from browser_support import server_log

    log = server_log(request.module.__name__)
    command = [
        sys.executable, "-m", "streamlit", "run", "app.py",
        "--server.port", str(port),
        "--server.address", "127.0.0.1",
        "--server.headless", "true",
        "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    # The server's own preparation of the class pages (ui/warm.py) would compete with the tests
    # for the cores and fill caches the tests expect cold; tests/test_warm.py tests it.
    env = {**os.environ, "EXPLORER_PREPARE": "0"}
    with log.open("w") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_healthy(url, proc, log)
        yield url
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    """A headless Chromium context with its own throw-away profile directory.

    Playwright refuses ``--user-data-dir`` in ``args``; the profile is passed as
    ``user_data_dir`` to ``launch_persistent_context`` instead.
    """
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium")
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Python Playwright is missing: pip install playwright"
    )
    from browser_support import CHROMIUM_ARGS

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            # Streamlit scrolls inside its own container, so a screenshot shows the viewport
            # only: make it tall enough for the home page's summary and chart.
            viewport={"width": 1440, "height": 1900},
        )
        context.set_default_timeout(60_000)  # modules may run two at once (xdist)
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser_context: BrowserContext, app_url: str) -> Iterator[Page]:
    """A fresh tab on the app's home page."""
    tab = browser_context.new_page()
    tab.goto(app_url)
    yield tab
    tab.close()
