"""A figure's HTML export opens in Chromium, and a shareable link reopens a page (issue 12).

The importance page is opened through a link (Wine, λ = 0.3, ε = 2); the address bar then holds
every control. The "HTML" button under its first figure downloads the figure (built on the
click), which is opened from disk (``file://``) in a new tab: the plot and its title with the
settings are drawn offline. Screenshots: ``tests/artifacts/export-link.png`` (the page) and
``tests/artifacts/export-figure-html.png`` (the downloaded file).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from browser_support import ARTIFACTS, assert_no_exception, expect, screenshot, wait_idle

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

pytestmark = pytest.mark.browser

FIRST_RUN_TIMEOUT = 120_000
LINK = "importance?builtin_name=wine&iw_lambda=0.3&iw_epsilon=2.0&iw_seed=4"


def test_figure_html_export_opens_in_chromium(browser_context: BrowserContext, app_url: str):
    page: Page = browser_context.new_page()
    try:
        page.goto(f"{app_url}/{LINK}")
        main = page.get_by_test_id("stMain")
        expect(main.get_by_test_id("stPlotlyChart").first).to_be_visible(
            timeout=FIRST_RUN_TIMEOUT)
        wait_idle(page, timeout=FIRST_RUN_TIMEOUT)
        # The link's values are on the sliders, and the URL now holds every control.
        sliders = page.get_by_test_id("stSidebar").get_by_test_id("stSlider")
        for label, value in (("Regularisation λ", "0.3"), ("Privacy budget ε", "2")):
            thumb = sliders.filter(has_text=label).get_by_role("slider")
            expect(thumb).to_have_attribute("aria-valuetext", value)
        expect(page).to_have_url(re.compile(r"iw_lambda=0\.3.*iw_reps=\d+"))
        expect(page).to_have_url(re.compile(r"[?&]iw_seed=4(&|$)"))
        screenshot(page, "export-link")

        button = main.get_by_test_id("stDownloadButton").filter(has_text="HTML").first
        expect(button).to_be_visible()
        with page.expect_download(timeout=60_000) as info:
            button.get_by_role("button").click()
        download = info.value
        assert download.suggested_filename.endswith(".html")
        saved = ARTIFACTS / "export-figure.html"
        download.save_as(saved)
        assert_no_exception(page)
    finally:
        page.close()

    exported = browser_context.new_page()
    try:
        exported.goto(saved.as_uri())
        expect(exported.locator(".plotly-graph-div .main-svg").first).to_be_visible()
        title = exported.locator(".gtitle")
        expect(title).to_contain_text("DP estimates vs ε")
        expect(title).to_contain_text("λ = 0.3")  # the settings of the run, in the figure
        assert "DP estimates vs ε" in exported.title()
        expect(exported.locator(".plotly .boxlayer .trace").first).to_be_attached()
        exported.screenshot(path=ARTIFACTS / "export-figure-html.png")
    finally:
        exported.close()
