"""The mechanism primer in a real browser: the default count on Adult, a mean with public
bounds, the refused private bounds, the exponential choice.

After every step no ``[data-testid="stException"]`` may be on the page. Screenshots go to
``tests/artifacts/`` (look at them); the default page is copied by ``scripts/doc_screenshots.py`` to
``docs/screenshots/primer.png`` for the docs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from browser_support import expect, for_docs, metric_value, screenshot, url_path, wait_idle

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

BARS = ".barlayer .point"


def test_primer_page(page: Page, app_url: str):
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Mechanism primer").click()
    main = page.get_by_test_id("stMain")
    expect(metric_value(page, "Laplace: 95 % of answers within")).to_have_text("±29.96")
    wait_idle(page)
    assert url_path(page).endswith("/primer")
    expect(main.get_by_role("heading", name="Mechanism primer: how noise hides one person")
           ).to_be_visible()
    expect(metric_value(page, "True answer (non-private)")).to_have_text("6,100")
    expect(metric_value(page, "Sensitivity")).to_have_text("1")
    charts = main.get_by_test_id("stPlotlyChart")
    expect(charts).to_have_count(2)
    expect(charts.first.locator(BARS).first).to_be_attached()
    expect(page.get_by_text("more privacy ← → more accuracy")).to_have_count(2)
    for_docs(screenshot(page, "primer"), "primer.png")

    # A mean of age: the bounds open at the public set's range, the sensitivity follows.
    main.get_by_test_id("stRadio").filter(has_text="Query").get_by_text("A mean").click()
    wait_idle(page)
    expect(main.get_by_text("The bounds opened at the public set's range [17, 90]")
           ).to_be_visible()
    expect(metric_value(page, "Sensitivity")).to_have_text("0.003529")
    screenshot(page, "primer-mean")

    # Bounds from the private data: refused, with the reason, where the eye is.
    main.get_by_role("button", name="Use the private data's range").click()
    expect(main.get_by_test_id("stAlert").filter(has_text="never taken from the private data")
           ).to_be_visible()
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
    expect(metric_value(page, "Sensitivity")).to_have_text("0.003529")  # bounds unchanged
    screenshot(page, "primer-private-bounds-refused")

    # The exponential mechanism and the budget, further down.
    heading = main.get_by_role("heading", name="4. Choosing among candidates")
    heading.scroll_into_view_if_needed()
    expect(charts.nth(1).locator(BARS).first).to_be_attached()
    expect(metric_value(page, "Laplace answers")).to_have_text("10")
    screenshot(page, "primer-exponential-and-budget")

    # Step 7: a derived statistic with its interval and the interval's measured coverage.
    heading = main.get_by_role("heading", name="7. Derived statistics with honest error bars")
    heading.scroll_into_view_if_needed()
    expect(metric_value(page, "Laplace: one simulated answer")).to_be_visible()
    expect(main.get_by_text("simulated releases the interval held the true value").first
           ).to_be_visible()
    screenshot(page, "primer-derived")

    # A published answer shows its interval (low_95, high_95) beside it.
    main.get_by_role("button", name="Publish the answer").click()
    caption = main.get_by_text("each answer's 95 % interval for the noise")
    expect(caption).to_be_visible()
    wait_idle(page)
    caption.scroll_into_view_if_needed()
    screenshot(page, "primer-published-interval")
