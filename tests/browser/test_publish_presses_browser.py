"""Publish presses in a real browser, quick ones and ones made while the page runs (issue 33,
section 5): every press the app receives is a release in the ledger or a message.

The presses made are counted where they leave the browser (the WebSocket messages that carry
them), and by the page itself (under the button, "Your presses of this button (n)", from its
``on_click`` record). The test waits until the page lists as many presses as the browser sent (a
press lost in the app would keep it waiting, and fail), then checks that the releases in the
ledger and the presses listed as not released add up to them. No press waits for the page to go
idle: the quick ones go as soon as the page lists the one before, and the others are followed at
once by a switch to another view, which cuts short (or joins) the run that carries the press, so
that the page never reads the button in it.

Not tested, because no app can see it: two presses that reach the server while it is busy,
before it starts the run for the first, are merged by Streamlit into one request (its buttons
send no count; measured: 1 merge in 8 triple presses 80 ms apart). The page lists every press
it received, so the user sees how many arrived.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

import pytest
from browser_support import (
    assert_no_exception,
    epsilon_shown,
    expect,
    importance_default_lambda,
    open_view,
    screenshot,
    wait_idle,
)

from dpcore.datasets import load_scenario

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page


pytestmark = pytest.mark.browser

FIRST_RUN_TIMEOUT = 90_000  # the importance page's first run on 2 busy cores
PRESS = b"publish_importance"  # in the message that carries a press (the button's widget id)


def ledger_count(page: Page) -> int:
    """The number of releases the sidebar's budget bar counts ("... in n releases")."""
    bar = page.get_by_test_id("stSidebar").get_by_text(re.compile(r"spent ε = .* in \d+ releases?"))
    return int(re.search(r"in (\d+) releases?", bar.inner_text()).group(1))


def expect_presses(page: Page, made: int) -> None:
    """Wait until the page lists ``made`` presses, then check that each is a release in the
    ledger or a press listed as not released."""
    main = page.get_by_test_id("stMain")
    expander = main.get_by_test_id("stExpander").filter(has_text="Your presses of this button")
    expect(expander.get_by_text(re.compile(r"Your presses of this button \(\d+\)"))).to_have_text(
        f"Your presses of this button ({made})")
    wait_idle(page)
    expander.get_by_text("Your presses of this button").click()
    lines = expander.get_by_role("listitem")
    expect(lines).to_have_count(made)
    refused = lines.filter(has_text="not released").count()
    assert ledger_count(page) + refused == made
    expander.get_by_text("Your presses of this button").click()  # closed again


class Presses:
    """The presses the browser sends to the server, counted from the page's WebSocket frames
    (the message that carries a press names the button's widget id)."""

    def __init__(self, page: Page) -> None:
        self.page, self.sent = page, 0
        page.on("websocket", lambda ws: ws.on("framesent", self._count))

    def _count(self, frame: str | bytes) -> None:
        self.sent += PRESS in (frame if isinstance(frame, bytes) else frame.encode())

    def press(self, button: Locator) -> None:
        """Click ``button`` until the browser sends the press (not waiting for the page: the
        next press may come while it runs). A click that the browser handles while it redraws
        the button sends nothing, and two clicks handled before it sends are one message: the
        app never hears of those, so the click is repeated (at most three times) only while no
        press has been sent."""
        before = self.sent
        for _ in range(3):
            button.click()
            try:
                self._wait_sent(before)
                return
            except TimeoutError:
                continue
        raise AssertionError("three clicks on Publish sent no press to the server")

    def _wait_sent(self, before: int, seconds: float = 10.0) -> None:
        deadline = time.monotonic() + seconds
        while self.sent == before:  # Playwright delivers the frame events while it waits
            if time.monotonic() > deadline:
                raise TimeoutError
            self.page.wait_for_timeout(20)


def test_quick_presses_and_presses_during_a_run_are_each_a_release_or_a_message(
        page: Page, app_url: str):
    presses = Presses(page)
    page.goto(f"{app_url}/importance")
    sidebar, main = page.get_by_test_id("stSidebar"), page.get_by_test_id("stMain")
    sidebar.get_by_test_id("stSelectbox").filter(has_text="Scenario").click()
    page.get_by_role("option", name=load_scenario("wine").title, exact=True).click()
    # The page opens wine at its public rule's λ (E, N_D and the ε shown).
    lam = importance_default_lambda("wine", epsilon_shown(page))
    expect(main.get_by_text(f"λ = {lam:g}, 100 bootstrap resamples")).to_be_visible(
        timeout=FIRST_RUN_TIMEOUT)
    wait_idle(page, timeout=FIRST_RUN_TIMEOUT)
    panel = open_view(page, "Publish", shows="the only output on this page that leaves")
    publish = panel.get_by_role("button", name="Publish the weights")

    label = main.get_by_test_id("stExpander").get_by_text(
        re.compile(r"Your presses of this button \(\d+\)"))

    # Quick presses: each goes as soon as the page lists the one before (its on_click ran),
    # while the page is still drawing the run that serves it.
    for _ in range(3):
        presses.press(publish)
        expect(label).to_have_text(f"Your presses of this button ({presses.sent})")
    expect_presses(page, presses.sent)
    screenshot(page, "publish-quick-presses")

    # Presses followed at once by a switch to another view: the run that carries the press is
    # cut short, or merged with the switch, and then the Publish view and its button are not
    # drawn. Before this fix such a press was lost without a word (1 in 5 such triple presses
    # measured); now it is released all the same, and listed once the view is back.
    for _ in range(3):
        presses.press(publish)
        open_view(page, "Estimates vs ε")
        open_view(page, "Publish", shows="the only output on this page that leaves")
        expect(label).to_have_text(f"Your presses of this button ({presses.sent})")
    expect_presses(page, presses.sent)
    assert_no_exception(page)
    screenshot(page, "publish-presses-during-a-run")
