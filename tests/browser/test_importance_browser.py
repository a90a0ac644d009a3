"""The importance-weighting page in a real browser: render, move ε, visit every view, publish.

After every step no ``[data-testid="stException"]`` may be on the page. Screenshots go to
``tests/artifacts/``; the one after the ε move is copied by ``scripts/doc_screenshots.py`` to
``docs/screenshots/importance.png`` for the docs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from browser_support import (
    assert_no_exception,
    epsilon_shown,
    expect,
    for_docs,
    importance_default_lambda,
    metric_value,
    open_view,
    screenshot,
    url_path,
    wait_idle,
)

from dpcore.studies.importance import lambda_axis

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page


pytestmark = pytest.mark.browser

# The first run fits 8 lambdas x 100 bootstrap replicates of Adult: allow 90 s on 2 busy cores.
FIRST_RUN_TIMEOUT = 90_000

EPSILON_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)  # boxes of "Estimates vs ε"
# CSS selectors of drawn Plotly traces: box plots, scatter markers, histogram bars.
BOXES, DOTS, BARS = ".boxlayer path", ".scatterlayer .points path", ".barlayer .bars path"


def expect_plots(panel: Locator, count: int, marks: str) -> None:
    """``count`` Plotly charts are drawn in ``panel``, each showing data (``marks``: a CSS
    selector of the drawn traces, e.g. ``.boxlayer path`` for box plots)."""
    charts = panel.get_by_test_id("stPlotlyChart")
    expect(charts).to_have_count(count)
    for i in range(count):
        expect(charts.nth(i).locator(marks).first).to_be_visible()


def test_importance_page_epsilon_views_and_publish(page: Page, app_url: str):
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Importance weighting").click()
    main = page.get_by_test_id("stMain")
    # A progress bar shows while the first run fits the bootstrap replicates.
    expect(metric_value(page, "Median DP estimate")).to_be_visible(timeout=FIRST_RUN_TIMEOUT)
    wait_idle(page, timeout=FIRST_RUN_TIMEOUT)
    assert url_path(page).endswith("/importance")
    expect(main.get_by_role("heading", name="Importance weighting: publish weights, not data")
           ).to_be_visible()
    # Adult opens at its public rule's λ (E, N_D and the ε shown), as the page computes it.
    epsilon = epsilon_shown(page)
    lam = importance_default_lambda("adult", epsilon)
    expect(main.get_by_text(f"λ = {lam:g}, 100 bootstrap resamples")).to_be_visible()
    expect(main.locator(".gtitle", has_text=f"ε = {epsilon:g}, λ = {lam:g}").first
           ).to_be_visible()
    expect_plots(main, 1, BOXES)  # only the view that is shown is built
    expect(main.locator(".boxlayer path.box")).to_have_count(len(EPSILON_GRID))
    screenshot(page, "importance-default")

    # Move the ε slider two steps up (0.1 → 0.3; λ stays): the fits are reused, the estimates
    # redrawn.
    sd = metric_value(page, "SD over replicates")
    sd_before = sd.inner_text()
    thumb = page.get_by_test_id("stSidebar").get_by_test_id("stSlider").filter(
        has_text="Privacy budget ε").get_by_role("slider")
    expect(thumb).to_have_attribute("aria-valuetext", f"{epsilon:g}")
    thumb.focus()
    thumb.press("ArrowRight")
    thumb.press("ArrowRight")
    expect(thumb).to_have_attribute("aria-valuetext", "0.3")
    # The figure's title names the new ε only once the rerun for 0.3 (not an earlier one for 0.2)
    # drew.
    expect(main.locator(".gtitle", has_text=f"ε = 0.3, λ = {lam:g}")).to_be_visible()
    expect(sd).not_to_have_text(sd_before)
    wait_idle(page)
    expect_plots(main, 1, BOXES)
    expect(main.locator(".boxlayer path.box")).to_have_count(len(EPSILON_GRID))  # 0.3 is in it
    for_docs(screenshot(page, "importance-epsilon"), "importance.png")

    panel = open_view(page, "Estimates vs λ")
    expect_plots(panel, 1, BOXES)
    # The grid's λ and the slider's (a box of its own when the grid lacks it).
    expect(panel.locator(".boxlayer path.box")).to_have_count(len(lambda_axis(lam)))
    screenshot(page, "importance-view-lambda")
    expect_plots(open_view(page, "Bias vs SD"), 1, DOTS)
    screenshot(page, "importance-view-bias-sd")
    panel = open_view(page, "Variance: theory")
    expect_plots(panel, 2, DOTS)
    screenshot(page, "importance-view-variance")
    panel.get_by_test_id("stExpander").get_by_text("Numbers", exact=True).click()
    expect(panel.get_by_test_id("stDataFrame")).to_be_visible()
    assert_no_exception(page)
    panel = open_view(page, "Baselines")
    expect_plots(panel, 1, BOXES)
    expect(panel.get_by_test_id("stDataFrame")).to_be_visible()
    screenshot(page, "importance-view-baselines")

    panel = open_view(page, "Model training")
    label = "Train the models (takes a few seconds)"
    panel.get_by_text(label, exact=True).click()
    expect(panel.get_by_role("switch", name=label)).to_be_checked()
    expect_plots(panel, 2, BOXES)
    wait_idle(page)
    screenshot(page, "importance-view-models")

    # Publish twice with the same settings: two different releases, both in the ledger.
    panel = open_view(page, "Publish")
    publish = panel.get_by_role("button", name="Publish the weights")
    estimate = metric_value(page, "DP estimate of the query from this release")
    publish.click()
    expect(estimate).to_be_visible()
    wait_idle(page)
    first = estimate.inner_text()
    publish.click()
    expect(panel.get_by_text("spent ε = 0.6")).to_have_count(0)  # the bar is in the sidebar
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("spent ε = 0.6 of 1 in 2 releases")).to_be_visible()
    wait_idle(page)
    assert estimate.inner_text() != first
    expect(panel.get_by_test_id("stDownloadButton").filter(
        has_text="Download the release (public rows + weights, CSV)")).to_be_visible()
    expect_plots(panel, 1, BARS)
    screenshot(page, "importance-view-publish")
    # A third press fits; a fourth at ε = 0.3 would pass the budget of 1: the page says so
    # beside the button before any press, and the button is disabled.
    publish.click()
    expect(sidebar.get_by_text("spent ε = 0.9 of 1 in 3 releases")).to_be_visible()
    wait_idle(page)
    expect(main.get_by_test_id("stAlert").filter(has_text="needs ε")).to_be_visible()
    expect(publish).to_be_disabled()
    expect(sidebar.get_by_text("spent ε = 0.9 of 1 in 3 releases")).to_be_visible()
    screenshot(page, "importance-over-budget")

    # The page's own URL works too: a new session starts at the default ε, from cached fits.
    page.goto(f"{app_url}/importance")
    expect(main.get_by_text(f"λ = {lam:g}, 100 bootstrap resamples")).to_be_visible()
    expect(main.locator(".gtitle", has_text=f"ε = {epsilon:g}, λ = {lam:g}").first
           ).to_be_visible()
    wait_idle(page)
    expect_plots(main, 1, BOXES)
