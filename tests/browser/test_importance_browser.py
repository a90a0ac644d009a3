"""The importance-weighting page in a real browser: render, move ε, visit every tab.

After every step no ``[data-testid="stException"]`` may be on the page. Screenshots go to
``tests/artifacts/``; the one after the ε move is copied to ``docs/screenshots/importance.png``
for the README.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

expect = pytest.importorskip(
    "playwright.sync_api", reason="Python Playwright is missing: pip install playwright"
).expect

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
SCREENSHOT = ROOT / "docs" / "screenshots" / "importance.png"
# The first run fits 9 lambdas x 100 bootstrap replicates of Adult: allow 90 s on 2 busy cores.
FIRST_RUN_TIMEOUT = 90_000
expect.set_options(timeout=60_000)

TABS = ("Estimates vs λ", "Estimates vs ε", "Bias vs SD", "Variance: theory", "Baselines",
        "Model training", "Publish once")


def assert_no_exception(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)


def wait_idle(page: Page, timeout: float | None = None) -> None:
    """Wait until the rerun is over: no "Running…" status, no progress bar, no exception."""
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=timeout)
    expect(page.get_by_test_id("stMain").get_by_test_id("stProgress")).to_have_count(0)
    assert_no_exception(page)


def screenshot(page: Page, name: str) -> Path:
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=path, full_page=True)
    return path


def metric_value(page: Page, label: str) -> Locator:
    metric = page.get_by_test_id("stMetric").filter(has_text=label)
    return metric.get_by_test_id("stMetricValue")


def open_tab(page: Page, name: str) -> Locator:
    """Click the tab called ``name`` and return its (now visible) panel."""
    tab = page.get_by_role("tab", name=name, exact=True)
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true")
    panel = page.get_by_role("tabpanel").filter(visible=True)
    expect(panel).to_have_count(1)
    assert_no_exception(page)
    return panel


def expect_plots(panel: Locator, count: int) -> None:
    """``count`` Plotly charts are drawn in ``panel``, each with its plotting area."""
    charts = panel.get_by_test_id("stPlotlyChart")
    expect(charts).to_have_count(count)
    for i in range(count):
        expect(charts.nth(i).locator(".js-plotly-plot .plot").first).to_be_visible()


def test_importance_page_epsilon_and_tabs(page: Page):
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Importance weighting").click()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Importance weighting: publish weights, not data")
           ).to_be_visible()
    expect(metric_value(page, "Median DP estimate")).to_be_visible(timeout=FIRST_RUN_TIMEOUT)
    wait_idle(page, timeout=FIRST_RUN_TIMEOUT)
    assert "/importance" in page.url
    panel = open_tab(page, TABS[0])
    expect_plots(panel, 1)
    screenshot(page, "importance-default")

    # Move the ε slider two steps up (0.1 → 0.3): the fits are reused, the estimates redrawn.
    sd = metric_value(page, "SD over replicates")
    sd_before = sd.inner_text()
    slider = page.get_by_test_id("stSidebar").get_by_test_id("stSlider").filter(
        has_text="Privacy budget ε")
    thumb = slider.get_by_role("slider")
    expect(thumb).to_have_attribute("aria-valuetext", "0.1")
    thumb.focus()
    thumb.press("ArrowRight")
    thumb.press("ArrowRight")
    expect(thumb).to_have_attribute("aria-valuetext", "0.3")
    expect(sd).not_to_have_text(sd_before)
    wait_idle(page)
    expect(main.get_by_text("ε = 0.3, λ = 0.1")).to_be_visible()
    expect_plots(open_tab(page, TABS[0]), 1)
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(screenshot(page, "importance-epsilon"), SCREENSHOT)

    expect_plots(open_tab(page, "Estimates vs ε"), 1)
    screenshot(page, "importance-tab-epsilon")
    expect_plots(open_tab(page, "Bias vs SD"), 1)
    screenshot(page, "importance-tab-bias-sd")
    expect_plots(open_tab(page, "Variance: theory"), 2)
    screenshot(page, "importance-tab-variance")
    panel = open_tab(page, "Baselines")
    expect_plots(panel, 1)
    expect(panel.get_by_test_id("stDataFrame")).to_be_visible()
    screenshot(page, "importance-tab-baselines")

    panel = open_tab(page, "Model training")
    toggle = panel.get_by_test_id("stCheckbox").filter(
        has_text="Train the models (takes a few seconds)")
    toggle.click()
    expect(toggle.get_by_role("checkbox")).to_be_checked()
    expect_plots(panel, 2)
    wait_idle(page)
    expect_plots(open_tab(page, "Model training"), 2)
    screenshot(page, "importance-tab-models")

    panel = open_tab(page, "Publish once")
    expect(panel.get_by_test_id("stDownloadButton")).to_contain_text(
        "Download the release (public rows + weights, CSV)")
    expect_plots(panel, 1)
    expect(panel.get_by_test_id("stDataFrame")).to_be_visible()
    assert_no_exception(page)
    screenshot(page, "importance-tab-publish")
