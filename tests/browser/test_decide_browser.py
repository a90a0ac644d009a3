"""Issue 25 in a real browser: the decision view, the "Several statistics" planner, and the
exported report opened from disk with the network cut.

Screenshots go to ``tests/artifacts/`` (decide-importance, decide-masking, decide-report,
choose-epsilon-statistics); the first is copied by ``scripts/doc_screenshots.py`` to
``docs/screenshots/decide.png``.
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
    wait_idle,
)

from dpcore.composition import COMPOSITION_NAMES

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

# ms: Adult's importance weights and the masking study computed cold, with both cores busy
STUDY_TIMEOUT = 180_000


def _open(page: Page, name: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=name).click()
    wait_idle(page, timeout=STUDY_TIMEOUT)


def test_decision_view_and_its_report_offline(page: Page, app_url: str, tmp_path: Path):
    _open(page, "Decide and report")
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Decide and report")).to_be_visible()
    expect(metric_value(page, "Audited ε ≥")).to_be_visible(timeout=STUDY_TIMEOUT)
    expect(metric_value(page, "Belief after it, from 1 %")).to_have_text("1.1 %")
    charts = main.get_by_test_id("stPlotlyChart")
    expect(charts).to_have_count(4)  # utility, audit, trade-off curve, deployments
    expect(main.get_by_text("landmarks, not a ranking").first).to_be_visible()
    for_docs(screenshot(page, "decide-importance"), "decide.png")

    with page.expect_download(timeout=STUDY_TIMEOUT) as caught:
        main.get_by_role("button", name="Export report (HTML)").click()
    report = tmp_path / "report.html"
    caught.value.save_as(report)

    offline = page.context.new_page()
    requests: list[str] = []
    offline.route("**/*", lambda route: (requests.append(route.request.url),
                                          route.continue_() if route.request.url.startswith(
                                              "file:") else route.abort()))
    offline.goto(report.as_uri())
    expect(offline.get_by_role("heading", name="What the release buys")).to_be_visible()
    expect(offline.locator(".plotly .main-svg").first).to_be_visible()
    assert offline.locator(".js-plotly-plot").count() == 4
    assert all(url.startswith("file:") for url in requests), requests  # nothing fetched
    screenshot(offline, "decide-report")
    offline.close()

    page.bring_to_front()  # the report's tab had the focus: a background tab's list stays shut
    wait_idle(page, timeout=STUDY_TIMEOUT)
    choice = main.get_by_test_id("stSelectbox").filter(has_text="Which release?")
    option = page.get_by_role("option").filter(has_text="Data masking")
    for _ in range(3):  # a click that lands while the select box is re-rendered is lost
        choice.click()
        try:
            expect(option).to_be_visible(timeout=10_000)
            break
        except AssertionError:
            continue
    option.click()
    expect(metric_value(page, "pMSE, main-effects logistic (non-private)")).to_be_visible(
        timeout=STUDY_TIMEOUT)
    wait_idle(page, timeout=STUDY_TIMEOUT)
    expect(charts).to_have_count(6)
    screenshot(page, "decide-masking")


def test_several_statistics_planner(page: Page, app_url: str):
    _open(page, "Choose epsilon")
    panel = open_view(page, "Several statistics", shows="List what you will release")
    expect(metric_value(page, "sequential")).to_have_text("ε = 1.49")
    expect(metric_value(page, COMPOSITION_NAMES["pld"])).to_have_text("ε = 1.44")
    expect(panel.get_by_test_id("stPlotlyChart")).to_have_count(2)
    screenshot(page, "choose-epsilon-statistics")
