"""A direct link to a page on a freshly started server behaves like the app's navigation (issue 8).

Streamlit finds the ``pages/`` directory next to ``app.py`` and, until some session has run
``app.py`` (whose ``st.navigation`` switches that off for the whole server), serves a link such as
``/importance`` by running ``pages/importance.py`` on its own: file names in the sidebar, the narrow
layout, no page config. This module gets its own server (``app_url`` is module-scoped) and opens
``/importance`` before anyone has opened ``/``; then ``/`` and ``/importance`` again.

After every step no ``[data-testid="stException"]`` may be on the page. The screenshot of the
first visit goes to ``tests/artifacts/direct-link.png``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from browser_support import assert_no_exception, expect, screenshot, url_path, wait_idle

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page


pytestmark = pytest.mark.browser

# The first run on a fresh server fits the bootstrap replicates of Adult: allow 120 s on 2 cores.
FIRST_RUN_TIMEOUT = 120_000
# The titles app.py gives its pages; Streamlit's file-based navigation would show file names.
NAV_TITLES = ("Home", "Importance weighting")
FILE_NAMES = ("app", "home", "importance")
# The viewport is 1400 px wide (conftest). The centred layout caps the main block at 736 px
# (Streamlit's 46rem); the wide one fills what the sidebar leaves, over 1000 px.
CENTRED_MAX_WIDTH = 736


def assert_app_navigation(page: Page, current: str) -> None:
    """The sidebar shows app.py's navigation (titles, not file names), ``current`` selected,
    and the wide layout that app.py configures."""
    nav = page.get_by_test_id("stSidebarNav")
    for title in NAV_TITLES:
        expect(nav.get_by_role("link", name=title, exact=True)).to_be_visible()
    for name in FILE_NAMES:
        expect(nav.get_by_role("link", name=name, exact=True)).to_have_count(0)
    expect(nav.get_by_role("link", name=current, exact=True)).to_have_attribute(
        "aria-current", "page")
    block = page.get_by_test_id("stMainBlockContainer")
    expect(block).to_be_visible()
    width = block.bounding_box()["width"]
    assert width > CENTRED_MAX_WIDTH + 100, (
        f"main block is {width:.0f} px wide: the centred layout, not app.py's wide one")
    assert_no_exception(page)


@pytest.fixture
def fresh_tab(browser_context: BrowserContext, app_url: str):
    """A new tab that has not opened anything yet (unlike the ``page`` fixture, which opens
    ``/`` and would hide the bug)."""
    tab = browser_context.new_page()
    yield tab
    tab.close()


def test_direct_link_on_a_fresh_server(fresh_tab: Page, app_url: str):
    page = fresh_tab
    page.goto(f"{app_url}/importance")
    main = page.get_by_test_id("stMain")
    expect(main.get_by_test_id("stPlotlyChart").first).to_be_visible(timeout=FIRST_RUN_TIMEOUT)
    wait_idle(page, timeout=FIRST_RUN_TIMEOUT)
    screenshot(page, "direct-link")
    assert url_path(page).endswith("/importance")
    assert_app_navigation(page, "Importance weighting")

    page.goto(app_url)
    expect(main.get_by_test_id("stPlotlyChart").first).to_be_visible()
    wait_idle(page)
    assert_app_navigation(page, "Home")

    page.goto(f"{app_url}/importance")
    expect(main.get_by_test_id("stPlotlyChart").first).to_be_visible()
    wait_idle(page)
    assert_app_navigation(page, "Importance weighting")
    screenshot(page, "direct-link-again")
