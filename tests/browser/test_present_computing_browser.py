"""Presentation mode while a slide computes, and leaving it, in a real browser (issue 35).

This module has its own server (the ``app_url`` fixture is per module), so its slides are not yet
computed: moving to a slide not computed ahead computes its study (only the slides after the one
shown are computed ahead, so going back to a slide never shown is such a move). From the moment
the new slide's title is on screen until its figure is, a watcher in the page records every state
of the DOM: no chart titled with another slide's figure may be under the new title, and, on a
slide that computes, a progress bar with a "computing" note must take the figure's place. The
whole deck is watched the same way, Next by Next (its slides computed or not) and back, Previous by
Previous (every slide computed: a slide's figures are drawn while the previous ones are gone).

Leaving presentation mode returns to the page the presenter came from (here the primer, entered
from the navigation), with the link it had.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlparse

import pytest
from browser_support import assert_no_exception, expect, screenshot, url_path, wait_idle
from test_present_browser import SLIDE_TIMEOUT, expect_slide

from dpcore.runs.scenarios import unused_keys
from ui.presentation import PRESETS, Preset, figure_title

if TYPE_CHECKING:
    from playwright.sync_api import Page


pytestmark = pytest.mark.browser

# Records, for every DOM change while the new slide's title is shown, the other slides' chart
# titles under it, and whether the "computing" note and its progress bar are there.
WATCH = """([title, old]) => {
  const main = document.querySelector('[data-testid="stMain"]');
  if (window.__watcher) window.__watcher.disconnect();
  const seen = window.__slide = {stale: [], placeholder: false};
  const check = () => {
    const heading = main.querySelector("h1");
    if (!heading || heading.textContent.trim() !== title) return;
    for (const t of main.querySelectorAll('[data-testid="stPlotlyChart"] .gtitle')) {
      if (old.some(o => t.textContent.includes(o))) seen.stale.push(t.textContent);
    }
    const note = [...main.querySelectorAll('[data-testid="stAlert"]')].some(
      a => a.textContent.includes("Computing this slide's study"));
    if (note && main.querySelector('[data-testid="stProgress"]')) seen.placeholder = true;
  };
  window.__watcher = new MutationObserver(check);
  window.__watcher.observe(document.body, {subtree: true, childList: true, characterData: true,
                                           attributes: true});
  check();
}"""


def titles(preset: Preset) -> list[str]:
    """The titles of the charts on the slide of ``preset``."""
    return [f"{figure_title(preset, name)} ({preset.paper})" for name in preset.figure]


def watch(page: Page, index: int) -> None:
    """Record the DOM while slide ``index`` is shown: another slide's chart under its title
    (``window.__slide.stale``), the "computing" placeholder (``window.__slide.placeholder``)."""
    others = [t for i, preset in enumerate(PRESETS) if i != index for t in titles(preset)]
    page.evaluate(WATCH, [PRESETS[index].title, others])


def test_a_computing_slide_shows_progress_never_the_previous_figure(page: Page, app_url: str):
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.goto(f"{app_url}/present")
    expect_slide(page, 0)
    # To the last slide by the selector, then back: the slide before the last is computed by
    # neither (only the slides after the one shown are computed ahead).
    last = len(PRESETS) - 1
    page.locator(".st-key-present_choice").click()
    page.get_by_role("option", name=f"{last + 1}. {PRESETS[last].paper}").click()
    expect_slide(page, last)
    watch(page, last - 1)
    page.get_by_role("button", name="Previous").click()
    main = page.get_by_test_id("stMain")
    # Wait for the placeholder as the watcher saw it (it may be gone before a poll would be).
    page.wait_for_function("window.__slide.placeholder", timeout=SLIDE_TIMEOUT)
    if main.get_by_test_id("stProgress").count():  # still computing: look at it
        screenshot(page, "present-computing")
    expect_slide(page, last - 1)
    seen = page.evaluate("window.__slide")
    assert seen["stale"] == [], seen["stale"]  # another slide's figure under the new title
    assert_no_exception(page)


def test_no_slide_of_the_deck_shows_another_slides_figure(page: Page, app_url: str):
    # Next through the deck (slides computing, or computed before or ahead), then Previous back
    # to the first (every slide computed: its figures are drawn, not computed).
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.goto(f"{app_url}/present")
    expect_slide(page, 0)
    last = len(PRESETS) - 1
    for index, button in [*((i, "Next") for i in range(1, last + 1)),
                          *((i, "Previous") for i in range(last - 1, -1, -1))]:
        watch(page, index)
        page.get_by_role("button", name=button).click()
        expect_slide(page, index)
        seen = page.evaluate("window.__slide")
        assert seen["stale"] == [], (button, PRESETS[index].key, seen["stale"])


def test_leaving_returns_to_the_page_entered_from(page: Page, app_url: str):
    main = page.get_by_test_id("stMain")
    primer = main.get_by_role("heading", name="Mechanism primer: how noise hides one person")
    page.goto(f"{app_url}/primer")
    expect(primer).to_be_visible(timeout=SLIDE_TIMEOUT)
    wait_idle(page, timeout=SLIDE_TIMEOUT)
    link = page.url
    nav = page.get_by_test_id("stSidebar").get_by_test_id("stSidebarNav")
    entry = nav.get_by_text("Present", exact=True)
    expect(entry).to_be_visible(timeout=SLIDE_TIMEOUT)
    entry.click(timeout=SLIDE_TIMEOUT)
    expect(main.get_by_role("heading", name=PRESETS[0].title, exact=True)).to_be_visible(
        timeout=SLIDE_TIMEOUT)
    wait_idle(page, timeout=SLIDE_TIMEOUT)
    page.get_by_role("button", name="Leave presentation").click()
    expect(primer).to_be_visible(timeout=SLIDE_TIMEOUT)
    wait_idle(page, timeout=SLIDE_TIMEOUT)
    assert url_path(page).endswith("/primer")
    # The scenario's link parameters as before (the primer's own, "pr_", may follow its
    # defaults), and none that the scenario does not use.
    before, after = (parse_qs(urlparse(url).query) for url in (link, page.url))
    assert {k for k in after if not k.startswith("pr_")} == {
        k for k in before if not k.startswith("pr_")}
    spec = {k: v[0] for k, v in after.items() if k in ("source", "builtin_name")}
    assert spec and not set(after) & unused_keys(spec), after
    assert_no_exception(page)
