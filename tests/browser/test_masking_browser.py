"""The data-masking page in a real browser: the scatter plots, an ε move, every view, publish.

After every step no ``[data-testid="stException"]`` may be on the page. Screenshots go to
``tests/artifacts/``; the default scatter plots and the report card are copied by
``scripts/doc_screenshots.py`` to ``docs/screenshots/masking.png`` and ``masking-card.png``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from browser_support import (
    assert_no_exception,
    expect,
    for_docs,
    metric_value,
    open_view,
    screenshot,
    step_slider,
    wait_idle,
)

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page


pytestmark = pytest.mark.browser

FIRST_RUN_TIMEOUT = 90_000  # the sidebar loads Adult first; the page then masks the toy data
DOTS, HEAT = ".scatterlayer .points path", ".heatmaplayer image"


def expect_charts(panel: Locator, count: int, marks: str = DOTS) -> None:
    charts = panel.get_by_test_id("stPlotlyChart")
    expect(charts).to_have_count(count)
    for i in range(count):
        expect(charts.nth(i).locator(marks).first).to_be_visible()


def test_masking_page_scatter_views_and_publish(page: Page):
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Data masking").click()
    main = page.get_by_test_id("stMain")
    expect(metric_value(page, "‖refit − w′‖")).to_be_visible(timeout=FIRST_RUN_TIMEOUT)
    wait_idle(page, timeout=FIRST_RUN_TIMEOUT)
    expect(main.get_by_role("heading", name="Data masking: publish look-alike records, not "
                                            "the records")).to_be_visible()
    expect_charts(main, 3)  # one chart per panel: original, initial set, final masked set
    charts = main.get_by_test_id("stPlotlyChart")
    for i in range(3):
        expect(charts.nth(i).locator(HEAT)).to_have_count(1)  # each panel's decision regions
    expect(charts.nth(0).get_by_text("Original private records (non-private)")).to_be_visible()
    expect(charts.nth(2).get_by_text("Final masked set (DP, ε = 5)")).to_be_visible()
    for_docs(screenshot(page, "masking-scatter"), "masking.png")

    # One step up the ε slider (5 -> 10) redraws the final panel only: the original and initial
    # panels keep their plot (the same DOM node), since their figures do not depend on ε.
    kept = "els => els.map(el => el.querySelector('.js-plotly-plot'))"
    before = charts.evaluate_all(f"els => (window.__panels = ({kept})(els)).length")
    assert before == 3
    thumb = page.get_by_test_id("stSidebar").get_by_test_id("stSlider").filter(
        has_text="Privacy budget ε").get_by_role("slider")
    expect(thumb).to_have_attribute("aria-valuetext", "5")
    thumb.focus()
    thumb.press("ArrowRight")
    expect(thumb).to_have_attribute("aria-valuetext", "10")
    expect(charts.nth(2).get_by_text("Final masked set (DP, ε = 10)")).to_be_visible()
    wait_idle(page)
    expect(charts).to_have_count(3)  # a run in flight may still hold the old panel beside it
    same = charts.evaluate_all(f"els => ({kept})(els).map((el, i) => el === window.__panels[i])")
    assert same == [True, True, False]

    # The input-perturbed records (Algorithm 2, same ε) join the original panel, hollow.
    main.get_by_text("Show input-perturbed records for contrast", exact=True).click()
    wait_idle(page)
    expect(charts.nth(0).get_by_text("hollow: input perturbation, ε = 10")).to_be_visible()
    screenshot(page, "masking-input-perturbation")
    main.get_by_text("Show input-perturbed records for contrast", exact=True).click()
    wait_idle(page)

    main.get_by_text("Masked set alone, as a recipient sees it", exact=True).click()
    wait_idle(page)
    expect(main.get_by_test_id("stPlotlyChart").get_by_text("non-private")).to_have_count(0)
    expect_charts(main, 1)
    screenshot(page, "masking-recipient")

    panel = open_view(page, "Greedy animation")
    expect_charts(panel, 1)
    panel.get_by_test_id("stPlotlyChart").get_by_text("▶ Play").click()
    assert_no_exception(page)
    screenshot(page, "masking-animation")

    panel = open_view(page, "Accuracy vs ε")
    expect_charts(panel, 2)
    screenshot(page, "masking-accuracy")

    # The report card (issue 38): one figure of five panels, bands and curves over ε.
    panel = open_view(page, "Report card", shows="Report card: the published table",
                      timeout=FIRST_RUN_TIMEOUT)
    expect_charts(panel, 1)
    expect(panel.get_by_text("majority class (non-private)").first).to_be_visible()
    for_docs(screenshot(page, "masking-card"), "masking-card.png")

    page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").filter(
        has_text="Experiment").click()
    page.get_by_role("option", name="Digits 0, 1, 3: 3 masked by 6 (Fig. 3)").click()
    wait_idle(page, timeout=FIRST_RUN_TIMEOUT)
    panel = open_view(page, "Digit images")
    expect_charts(panel, 4, HEAT)
    screenshot(page, "masking-digits")

    # Publish at ε = 0.5 (the session budget is 1): one release in the ledger, a CSV offered.
    for value in ("5", "2", "1", "0.5"):  # one step at a time
        step_slider(page, thumb, "ArrowLeft", value, timeout=FIRST_RUN_TIMEOUT)
    panel = open_view(page, "Publish")
    panel.get_by_role("button", name="Publish the masked dataset").click()
    expect(panel.get_by_test_id("stDownloadButton").filter(
        has_text="Download the masked dataset (CSV)")).to_be_visible(timeout=FIRST_RUN_TIMEOUT)
    expect(page.get_by_test_id("stSidebar").get_by_text("spent ε = 0.5 of 1 in 1 release")
           ).to_be_visible()
    wait_idle(page)
    screenshot(page, "masking-publish")
