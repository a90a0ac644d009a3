"""The home page in a real browser: render, switch scenario, upload good and bad CSV files.

After every step no ``[data-testid="stException"]`` may be on the page. Screenshots go to
``tests/artifacts/``; the one of the home page is copied to ``docs/screenshots/home.png`` for the
README.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

import pytest
from browser_support import ROOT, SCREENSHOTS, assert_no_exception, expect, screenshot

if TYPE_CHECKING:
    from playwright.sync_api import Page


pytestmark = pytest.mark.browser

DATA = ROOT / "tests" / "data"
SCREENSHOT = SCREENSHOTS / "home.png"


def wait_for_header(page: Page, text: str) -> None:
    """Wait until the page's scenario header reads ``text`` and the app is idle."""
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name=text, exact=True)).to_be_visible()
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
    assert_no_exception(page)


def choose(page: Page, label: str, option: str) -> None:
    """Pick ``option`` in the sidebar select box labelled ``label``."""
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_test_id("stSelectbox").filter(has_text=label).click()
    page.get_by_role("option", name=option, exact=True).click()


def test_home_scenarios_and_uploads(page: Page):
    wait_for_header(page, "UCI Adult: 90 % of men private (Ji & Elkan)")
    expect(page.get_by_test_id("stPlotlyChart")).to_be_visible()
    expect(page.locator(".js-plotly-plot .bars path").first).to_be_visible()
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(screenshot(page, "home"), SCREENSHOT)

    choose(page, "Scenario", "Wine cultivars (scikit-learn)")
    wait_for_header(page, "Wine cultivars (scikit-learn)")
    screenshot(page, "home-wine")

    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("Upload", exact=True).click()
    inputs = sidebar.locator('input[type="file"]')
    expect(inputs).to_have_count(2)
    inputs.nth(0).set_input_files(DATA / "valid_public.csv")
    inputs.nth(1).set_input_files(DATA / "valid_private.csv")
    wait_for_header(page, "Uploaded data: valid_public.csv + valid_private.csv")
    expect(page.get_by_text("Dropped 'record_id'")).to_be_visible()
    choose(page, "Target (column to predict)", "income")
    expect(page.get_by_text("how often the target")).to_contain_text("income=>50K")
    assert_no_exception(page)
    screenshot(page, "home-upload")

    inputs.nth(1).set_input_files(DATA / "empty.csv")
    alert = sidebar.get_by_test_id("stAlert")
    expect(alert).to_contain_text("'empty.csv' is empty.")
    wait_for_header(page, "Uploaded data: valid_public.csv + valid_private.csv")  # kept
    screenshot(page, "home-upload-error")
