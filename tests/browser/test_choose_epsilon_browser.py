"""The "Choose epsilon" page in a real browser: a target answered, the risk and composition
views, the ε slider's risk caption.

After every step no ``[data-testid="stException"]`` may be on the page. Screenshots go to
``tests/artifacts/``; the importance-weights Monte-Carlo answer is copied by
``scripts/doc_screenshots.py`` to ``docs/screenshots/choose-epsilon.png`` for the docs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from browser_support import (
    expect,
    for_docs,
    metric_value,
    open_view,
    screenshot,
    url_path,
    wait_idle,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

# The Monte-Carlo target on Adult fits 100 bootstrap replicates first: allow 2 minutes.
STUDY_TIMEOUT = 120_000
LINES = ".scatterlayer .trace"


def test_choose_epsilon_page(page: Page, app_url: str):
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Choose epsilon").click()
    main = page.get_by_test_id("stMain")
    expect(metric_value(page, "Smallest ε")).to_have_text("0.3", timeout=STUDY_TIMEOUT)
    wait_idle(page, timeout=STUDY_TIMEOUT)
    assert url_path(page).endswith("/choose_epsilon")
    expect(main.get_by_role("heading", name="Choose epsilon")).to_be_visible()
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("at ε = 1, a 1 % prior can rise to at most 2.7 %")).to_be_visible()
    expect(sidebar.get_by_text("more privacy ← → more accuracy")).to_be_visible()
    charts = main.get_by_test_id("stPlotlyChart")
    expect(charts).to_have_count(1)
    expect(charts.first.locator(LINES).first).to_be_attached()
    screenshot(page, "choose-epsilon-laplace")

    # The slider's risk caption follows ε (1 -> 2).
    thumb = sidebar.get_by_test_id("stSlider").filter(has_text="Privacy budget ε").get_by_role(
        "slider")
    thumb.focus()
    thumb.press("ArrowRight")
    expect(thumb).to_have_attribute("aria-valuetext", "2")
    expect(sidebar.get_by_text("at ε = 2, a 1 % prior can rise to at most 6.9 %")).to_be_visible()
    wait_idle(page)

    # Importance weights by Monte Carlo on Adult: the answer, its interval and the runs.
    main.get_by_test_id("stSelectbox").filter(has_text="What must one release achieve?").click()
    page.get_by_role("option", name="Importance weights: Monte Carlo").click()
    expect(metric_value(page, "Runs per ε")).to_have_text("100", timeout=STUDY_TIMEOUT)
    wait_idle(page, timeout=STUDY_TIMEOUT)
    expect(metric_value(page, "90 % interval")).to_be_visible()
    expect(main.get_by_text("non-private").first).to_be_visible()
    expect(charts).to_have_count(1)
    expect(charts.first.locator(".scatterlayer .points path").first).to_be_visible()
    for_docs(screenshot(page, "choose-epsilon-importance"), "choose-epsilon.png")

    panel = open_view(page, "ε as risk")
    expect(metric_value(page, "Prior")).to_have_text("1 %")
    # the risk curves, and the chosen ε among published deployments (issue 25)
    expect(panel.get_by_test_id("stPlotlyChart")).to_have_count(2)
    expect(panel.get_by_text("Where this ε sits among published deployments")).to_be_visible()
    deployments = panel.get_by_test_id("stPlotlyChart").nth(1)
    expect(deployments.locator(".annotation-text")).to_contain_text("chosen ε = 2")  # the slider
    screenshot(page, "choose-epsilon-risk")

    panel = open_view(page, "Composition")
    expect(metric_value(page, "sequential")).to_have_text("ε = 7.1")
    expect(metric_value(page, "privacy loss distribution")).to_have_text("ε = 2.54")  # tightest
    expect(panel.get_by_test_id("stPlotlyChart")).to_have_count(2)
    expect(panel.get_by_test_id("stDataFrame").first).to_be_visible()
    screenshot(page, "choose-epsilon-composition")

    # The sidebar's composition select box changes the budget bar's total.
    sidebar.get_by_test_id("stSelectbox").filter(has_text="Composition of releases").click()
    page.get_by_role("option", name="zCDP filter (pure and Gaussian releases): + δ′").click()
    expect(sidebar.get_by_text("a Rényi filter, Feldman & Zrnic 2021")).to_be_visible()
    wait_idle(page)
