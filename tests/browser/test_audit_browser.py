"""The privacy-audit page in a real browser: one mechanism, then the table of every mechanism.

After every step no ``[data-testid="stException"]`` may be on the page. The screenshot goes to
``tests/artifacts/audit.png`` and is copied by ``scripts/doc_screenshots.py`` to
``docs/screenshots/audit.png`` for docs/pages.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from browser_support import assert_no_exception, expect, for_docs, screenshot, wait_idle

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


def test_audit_page_one_mechanism_and_the_table(page: Page):
    main = page.get_by_test_id("stMain")
    wait_idle(page)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Privacy audit").click()
    expect(main.get_by_role("heading", name="Privacy audit", exact=True)).to_be_visible()
    lower = main.get_by_test_id("stMetric").filter(has_text="Audited lower bound")
    expect(lower).to_be_visible()
    wait_idle(page)
    expect(main.get_by_test_id("stMetric").filter(has_text="Gap (claimed − audited)")
           ).to_be_visible()
    charts = main.get_by_test_id("stPlotlyChart")
    expect(charts).to_have_count(2)
    expect(charts.first.get_by_text("runs on D′")).to_be_visible()
    expect(charts.nth(1).get_by_text("claim's curve: Laplace at ε = 1")).to_be_visible()
    main.get_by_role("button", name="Audit every mechanism").click()
    expect(charts).to_have_count(3)
    wait_idle(page)
    expect(main.get_by_test_id("stDataFrame")).to_be_visible()
    expect(charts.nth(2).get_by_text("claimed ε", exact=True)).to_be_visible()
    path = screenshot(page, "audit")
    for_docs(path, "audit.png")
    assert_no_exception(page)


def test_a_bug_above_the_claims_curve(page: Page):
    main = page.get_by_test_id("stMain")
    wait_idle(page)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Privacy audit").click()
    expect(main.get_by_role("heading", name="Privacy audit", exact=True)).to_be_visible()
    wait_idle(page)
    main.get_by_test_id("stSelectbox").filter(has_text="Mechanism").click()
    page.get_by_role("option", name="⚠ Broken on purpose: Laplace with its noise scale halved"
                     ).click()
    wait_idle(page)
    charts = main.get_by_test_id("stPlotlyChart")
    expect(charts.nth(1).get_by_text("audit's point significantly above the curve: a bug")
           ).to_be_visible()
    expect(main.get_by_text("Bug: the test").first).to_be_visible()
    charts.nth(1).scroll_into_view_if_needed()
    screenshot(page, "audit_bug")
    assert_no_exception(page)
