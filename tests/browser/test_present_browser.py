"""Presentation mode in a real browser: the sidebar toggle, full-screen slides, the keyboard.

From the home page the sidebar's "Presentation mode" toggle opens ``/present``: no sidebar, no
toolbar, the first preset (Ji & Elkan Fig. 1) with its figure and takeaway. → and Page Down go to
the next slide, ← back, Escape leaves to the page the presenter came from. A direct link to
``/present`` opens it too. Screenshots of two slides go to ``tests/artifacts/present-*.png``.

After every step no ``[data-testid="stException"]`` may be on the page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from browser_support import assert_no_exception, expect, screenshot, url_path, wait_idle

from ui.presentation import PRESETS

if TYPE_CHECKING:
    from playwright.sync_api import Page


pytestmark = pytest.mark.browser

# A slide's first run computes its study: Wang Fig. 6 takes 3 s alone, and over 60 s were seen
# when the other xdist worker, its server and its browser kept both cores busy.
SLIDE_TIMEOUT = 180_000


def expect_slide(page: Page, index: int) -> None:
    """Wait until slide ``index`` (0-based) is shown with its figure, and the app is idle."""
    main = page.get_by_test_id("stMain")
    preset = PRESETS[index]
    expect(main.get_by_role("heading", name=preset.title, exact=True)).to_be_visible(
        timeout=SLIDE_TIMEOUT)
    expect(main.get_by_text(f"{index + 1} / {len(PRESETS)}", exact=True)).to_be_visible()
    # This slide's figures, titled with its paper (not the last slide's, still on screen while
    # this one computes), and nothing left over from the last slide.
    charts = main.get_by_test_id("stPlotlyChart")
    expect(charts).to_have_count(len(preset.figure), timeout=SLIDE_TIMEOUT)
    for i in range(len(preset.figure)):
        expect(charts.nth(i).locator(".gtitle")).to_contain_text(preset.paper,
                                                                 timeout=SLIDE_TIMEOUT)
    expect(main.locator('[data-stale="true"]')).to_have_count(0, timeout=SLIDE_TIMEOUT)
    wait_idle(page, timeout=SLIDE_TIMEOUT)
    expect(main.locator(".st-key-present_takeaway")).to_contain_text(".")
    assert_no_exception(page)


def test_toggle_slides_and_keyboard(page: Page):
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Privacy/utility explorer")).to_be_visible(
        timeout=SLIDE_TIMEOUT)
    wait_idle(page, timeout=SLIDE_TIMEOUT)
    toggle = page.get_by_test_id("stSidebar").get_by_text("Presentation mode", exact=True)
    expect(toggle).to_be_visible()
    screenshot(page, "present-toggle")
    toggle.click()
    expect_slide(page, 0)
    assert url_path(page).endswith("/present")
    # The controls are hidden: no sidebar, no toolbar (the header stays, transparent, for
    # Streamlit's "Running..." sign).
    expect(page.get_by_test_id("stSidebar")).to_be_hidden()
    expect(page.get_by_test_id("stToolbar")).to_be_hidden()
    expect(page.get_by_test_id("stMainMenu")).to_be_hidden()
    # Larger type than a page's: the takeaway's paragraphs are set at 1.75rem (28 px).
    size = main.locator(".st-key-present_takeaway p").first.evaluate(
        "e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 24, size
    screenshot(page, "present-ji-elkan-1")

    main.click(position={"x": 5, "y": 5})  # focus the page, not a widget
    page.keyboard.press("ArrowRight")
    expect_slide(page, 1)
    page.keyboard.press("PageDown")
    expect_slide(page, 2)
    page.keyboard.press("ArrowLeft")
    expect_slide(page, 1)
    page.keyboard.press("PageUp")
    expect_slide(page, 0)

    # Jump with the selector to the last slide: Wang Fig. 6.
    main.get_by_test_id("stSelectbox").click()
    page.get_by_role("option", name=f"{len(PRESETS)}. {PRESETS[-1].paper}", exact=False).click()
    expect_slide(page, len(PRESETS) - 1)
    screenshot(page, "present-wang-6")

    main.click(position={"x": 5, "y": 5})
    page.keyboard.press("Escape")
    expect(main.get_by_role("heading", name="Privacy/utility explorer")).to_be_visible(
        timeout=SLIDE_TIMEOUT)
    expect(page.get_by_test_id("stSidebar")).to_be_visible()
    assert_no_exception(page)


# The smallest type shown on a slide, and where: every visible text node of the main area,
# figures included (plotly's SVG text), by its computed font size.
SMALLEST_TEXT = """main => {
  let smallest = [Infinity, ""];
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = walker.currentNode.textContent.trim(), el = walker.currentNode.parentElement;
    if (!text || !el) continue;
    const box = el.getBoundingClientRect(), style = getComputedStyle(el);
    if (!box.width || !box.height || style.visibility === "hidden") continue;
    const size = parseFloat(style.fontSize);
    if (size < smallest[0]) smallest = [size, text.slice(0, 60)];
  }
  return smallest;
}"""
MIN_SLIDE_TEXT_PX = 11  # issue 24: a room reads every text of a slide


def test_direct_link_and_every_slide(page: Page, app_url: str):
    page.set_viewport_size({"width": 1440, "height": 1000})  # a projector's laptop
    page.goto(f"{app_url}/present")
    main = page.get_by_test_id("stMain")
    for index in range(len(PRESETS)):
        if index:
            page.get_by_role("button", name="Next").click()
        expect_slide(page, index)
        screenshot(page, f"present-{PRESETS[index].key}")
        size, text = main.evaluate(SMALLEST_TEXT)
        assert size >= MIN_SLIDE_TEXT_PX, (PRESETS[index].key, size, text)
    expect(page.get_by_role("button", name="Next")).to_be_disabled()


# The routes that crashed (in by the navigation or a link, out by Escape or the button); in by
# the sidebar's switch and out by Escape is test_toggle_slides_and_keyboard.
@pytest.mark.parametrize("enter, leave", [
    ("navigation", "Escape"), ("navigation", "button"),
    ("link", "Escape"), ("link", "button"),
])
def test_every_route_into_and_out_of_presentation_mode(page: Page, app_url: str, enter: str,
                                                       leave: str):
    """Issue 24: leaving presentation mode crashed when it was entered from the navigation or
    a link (``'Page' object has no attribute 'default'``). Every way in, every way out: no
    error element, and the page returned to is shown."""
    main = page.get_by_test_id("stMain")
    home = main.get_by_role("heading", name="Privacy/utility explorer")
    if enter == "link":
        page.goto(f"{app_url}/present")
    else:
        page.goto(app_url)
        expect(home).to_be_visible(timeout=SLIDE_TIMEOUT)
        wait_idle(page, timeout=SLIDE_TIMEOUT)
        sidebar = page.get_by_test_id("stSidebar")
        if enter == "navigation":
            # Under load (two xdist workers, their servers and browsers) the link once stayed
            # not yet clickable for the default 60 s: wait for it as for a slide.
            link = sidebar.get_by_test_id("stSidebarNav").get_by_text("Present", exact=True)
            expect(link).to_be_visible(timeout=SLIDE_TIMEOUT)
            link.click(timeout=SLIDE_TIMEOUT)
        else:
            sidebar.get_by_text("Presentation mode", exact=True).click()
    expect_slide(page, 0)
    if leave == "Escape":
        main.click(position={"x": 5, "y": 5})  # focus the page, not a widget
        page.keyboard.press("Escape")
    else:
        page.get_by_role("button", name="Leave presentation").click()
    expect(home).to_be_visible(timeout=SLIDE_TIMEOUT)
    expect(page.get_by_test_id("stSidebar")).to_be_visible()
    wait_idle(page, timeout=SLIDE_TIMEOUT)
    assert not url_path(page).endswith("/present")
    assert_no_exception(page)
