"""Helpers shared by the real-browser tests: Playwright's ``expect``, paths, checks, screenshots."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

expect = pytest.importorskip(
    "playwright.sync_api", reason="Python Playwright is missing: pip install playwright"
).expect
# Every expect() waits up to a minute: the first run loads Adult, and CI has 2 busy cores.
expect.set_options(timeout=60_000)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
SCREENSHOTS = ROOT / "docs" / "screenshots"


def assert_no_exception(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)


def screenshot(page: Page, name: str) -> Path:
    """A full-page screenshot in ``tests/artifacts/`` (look at it before resolving a page)."""
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=path, full_page=True)
    return path
