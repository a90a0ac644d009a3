"""Helpers shared by the real-browser tests: Playwright's ``expect``, paths, checks, screenshots."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

import pytest

from dpcore.datasets import load_scenario
from dpcore.domains import LAMBDAS
from dpcore.importance import default_lambda

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

expect = pytest.importorskip(
    "playwright.sync_api", reason="Python Playwright is missing: pip install playwright"
).expect
# Every expect() waits up to a minute: the first run loads Adult, and CI has 2 busy cores.
expect.set_options(timeout=60_000)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
#: The docs' screenshots: written only by ``python scripts/doc_screenshots.py`` (a plain test run
#: leaves the checkout as it found it).
SCREENSHOTS = ROOT / "docs" / "screenshots"
#: Set by ``scripts/doc_screenshots.py``: copy the tests' screenshots into the docs.
DOC_SCREENSHOTS_ENV = "EXPLORER_DOC_SCREENSHOTS"
#: Debian's Chromium and the flags every browser test starts it with (this machine's network
#: is closed: no background networking, QUIC, component updates or sync).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def assert_no_exception(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)


def url_path(page: Page) -> str:
    """The page's URL path, without the query string that mirrors its controls (ui.links)."""
    return urlparse(page.url).path.rstrip("/")


def screenshot(page: Page, name: str) -> Path:
    """A full-page screenshot in ``tests/artifacts/`` (look at it before resolving a page)."""
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=path, full_page=True)
    return path


def for_docs(path: Path, name: str) -> None:
    """Copy the screenshot at ``path`` to ``docs/screenshots/NAME`` when the docs' command asks
    for it (``python scripts/doc_screenshots.py``); otherwise leave the checkout untouched."""
    if os.environ.get(DOC_SCREENSHOTS_ENV) == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, SCREENSHOTS / name)


def wait_idle(page: Page, timeout: float | None = None) -> None:
    """Wait until the rerun is over: no "Running…" status, no progress bar, no exception."""
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=timeout)
    expect(page.get_by_test_id("stMain").get_by_test_id("stProgress")).to_have_count(0)
    assert_no_exception(page)


def metric_value(page: Page, label: str) -> Locator:
    """The value of the ``st.metric`` labelled ``label``."""
    metric = page.get_by_test_id("stMetric").filter(has_text=label)
    return metric.get_by_test_id("stMetricValue")


def open_view(page: Page, name: str, *, shows: str | None = None,
              timeout: float | None = None) -> Locator:
    """Pick the view ``name`` in the page's segmented control (its options are radios) and return
    the main area once the rerun that builds it is over; ``shows``: a text of the new view to
    wait for, so that the last view's content cannot pass for it."""
    main = page.get_by_test_id("stMain")
    choice = main.get_by_test_id("stButtonGroup").get_by_role("radio", name=name, exact=True)
    choice.click()
    expect(choice).to_have_attribute("aria-checked", "true")
    if shows is not None:
        expect(main.get_by_text(shows).first).to_be_visible(timeout=timeout)
    wait_idle(page, timeout=timeout)
    return main


def step_slider(page: Page, thumb: Locator, key: str, expected: str, *,
                timeout: float | None = None) -> None:
    """Move a slider one step with ``key`` ("ArrowLeft"/"ArrowRight") until it shows ``expected``,
    then wait for the rerun. A key press that reaches the thumb while Streamlit is still
    re-rendering it after the previous rerun is occasionally dropped (about one in ten moves of
    a page whose study takes a second, seen on 2 busy cores; the user simply presses again):
    the press is repeated, at most four times, only while the slider has not moved, each time
    once the page is idle (three presses within 15 s were all dropped once, with two test
    modules on the two cores)."""
    before = thumb.get_attribute("aria-valuetext")
    for _ in range(4):
        thumb.focus()
        thumb.press(key)
        try:
            expect(thumb).not_to_have_attribute("aria-valuetext", before, timeout=5_000)
            break
        except AssertionError:
            wait_idle(page, timeout=timeout)
    expect(thumb).to_have_attribute("aria-valuetext", expected)
    wait_idle(page, timeout=timeout)


def epsilon_shown(page: Page) -> float:
    """The ε that the sidebar's "Privacy budget ε" slider shows (once it is drawn)."""
    thumb = page.get_by_test_id("stSidebar").get_by_test_id("stSlider").filter(
        has_text="Privacy budget ε").get_by_role("slider")
    expect(thumb).to_be_visible()
    return float(thumb.get_attribute("aria-valuetext"))


def importance_default_lambda(name: str, epsilon: float) -> float:
    """The λ that the importance page opens at on the built-in scenario ``name`` at
    ``epsilon``: the page's own public rule (:func:`dpcore.importance.default_lambda` of E, N_D
    and ε, on the λ slider's grid), computed here as the page computes it."""
    scenario = load_scenario(name)
    return default_lambda(scenario.public, len(scenario.private), epsilon, LAMBDAS)


def server_log(module: str) -> Path:
    """The log of the server that ``app_url`` starts for the test module named ``module`` (one
    per module: modules may run at once, on different pytest-xdist workers)."""
    return ARTIFACTS / f"streamlit-{module.rsplit('.', 1)[-1]}.log"
