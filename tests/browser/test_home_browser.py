"""The home page in a real browser: render, switch scenario, upload good and bad CSV files.

After every step no ``[data-testid="stException"]`` may be on the page. Screenshots go to
``tests/artifacts/``; the one of the home page is copied by ``scripts/doc_screenshots.py`` to
``docs/screenshots/home.png`` for the docs.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from browser_support import (
    ROOT,
    assert_no_exception,
    epsilon_shown,
    expect,
    for_docs,
    importance_default_lambda,
    screenshot,
)

from dpcore.datasets import load_scenario

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Locator, Page


pytestmark = pytest.mark.browser

DATA = ROOT / "tests" / "data"
PAIR = "Uploaded data: valid_public.csv + the private file"
#: How long an upload may show no sign at all (its result, or the file in its uploader) before
#: the file is given again.
NO_SIGN = 20_000


def wait_for_header(page: Page, text: str) -> None:
    """Wait until the page's scenario header reads ``text`` and the app is idle."""
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name=text, exact=True)).to_be_visible()
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
    assert_no_exception(page)


def choose(page: Page, label: str, option: str) -> None:
    """Pick ``option`` in the sidebar select box labelled ``label``."""
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_test_id("stSelectbox").filter(has_text=label).click()
    page.get_by_role("option", name=option, exact=True).click()


def upload(page: Page, slot: int, path: Path, produced: Locator) -> None:
    """Give the sidebar's file uploader number ``slot`` the file ``path``, and wait for
    ``produced``: what the app shows only once it has read the file (not a time). At a load of
    45 the app took long enough that the second of two uploads looked lost. The file is given
    again only if the app shows no sign of having received it: neither ``produced`` nor the
    file in its uploader after :data:`NO_SIGN`; with the file there, the app is reading it, and
    the wait goes on."""
    uploader = page.get_by_test_id("stSidebar").get_by_test_id("stFileUploader").nth(slot)
    chip = uploader.get_by_test_id("stFileChip").filter(has_text=path.name)
    for _ in range(3):
        uploader.locator('input[type="file"]').set_input_files(path)
        try:
            expect(produced).to_be_visible(timeout=NO_SIGN)
            return
        except AssertionError:
            if chip.count() and not chip.get_by_test_id("stFileChipIconError").count():
                expect(produced).to_be_visible()  # received: the app is still reading it
                return
    raise AssertionError(f"{path.name} was given three times and the app never showed it")


def uploaded_pair(main: Locator) -> Locator:
    """The scenario header that only the read pair of valid files produces."""
    return main.get_by_role("heading", name=PAIR, exact=True)


def test_home_scenarios_and_uploads(page: Page, tmp_path: Path):
    wait_for_header(page, "UCI Adult: 90 % of men private (Ji & Elkan)")
    expect(page.get_by_test_id("stPlotlyChart")).to_be_visible()
    expect(page.locator(".js-plotly-plot .bars path").first).to_be_visible()
    for_docs(screenshot(page, "home"), "home.png")

    choose(page, "Scenario", "Wine cultivars (scikit-learn)")
    wait_for_header(page, "Wine cultivars (scikit-learn)")
    screenshot(page, "home-wine")

    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("Upload", exact=True).click()
    inputs = sidebar.locator('input[type="file"]')
    expect(inputs).to_have_count(2)
    main = page.get_by_test_id("stMain")
    # Until the files are in, the main area says so and shows no other scenario's data.
    expect(main.get_by_test_id("stAlert").filter(has_text="Upload your data in the sidebar")
           ).to_be_visible()
    expect(main.get_by_role("heading", name="Wine cultivars (scikit-learn)")).to_have_count(0)
    # A file over the limit never reaches the app (Streamlit's uploader refuses it with a red
    # icon): the main area keeps saying what the limit is and shows no data.
    oversized = tmp_path / "oversized.csv"
    row = b"1234567,7654321\n"
    oversized.write_bytes(b"a,b\n" + row * (21 * 2**20 // len(row)))
    inputs.nth(0).set_input_files(oversized)
    expect(sidebar.get_by_test_id("stFileUploader").first).to_contain_text("oversized.csv")
    expect(main.get_by_test_id("stAlert").filter(has_text="CSV files up to 20 MB each")
           ).to_be_visible()
    expect(main.get_by_role("heading", name="Wine cultivars (scikit-learn)")).to_have_count(0)
    screenshot(page, "home-upload-oversized")
    # Each upload waits for what reading it produces: the main area names the file read so far,
    # then the pair's header.
    read_so_far = main.get_by_test_id("stAlert").filter(has_text="Read so far")
    upload(page, 0, DATA / "valid_public.csv", read_so_far.filter(has_text="valid_public.csv"))
    upload(page, 1, DATA / "valid_private.csv", uploaded_pair(main))
    wait_for_header(page, PAIR)
    expect(page.get_by_text("Dropped 'record_id'")).to_be_visible()
    choose(page, "Target (column to predict)", "income")
    expect(page.get_by_text("how often the target")).to_contain_text("I(income == >50K)")
    assert_no_exception(page)
    screenshot(page, "home-upload")

    # A refused file is said where the eye is (the main area), and no stale data is shown.
    upload(page, 1, DATA / "empty.csv",
           main.get_by_test_id("stAlert").filter(has_text="'empty.csv' is empty."))
    expect(sidebar.get_by_test_id("stAlert")).to_contain_text("'empty.csv' is empty.")
    expect(main.get_by_text("The pages show nothing until")).to_be_visible()
    expect(uploaded_pair(main)).to_have_count(0)
    assert_no_exception(page)
    screenshot(page, "home-upload-error")
    # Nothing is lost: the good file again brings the upload back.
    upload(page, 1, DATA / "valid_private.csv", uploaded_pair(main))
    wait_for_header(page, PAIR)

    # The importance page on that upload: the query is written in the data's own units.
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Importance weighting").click()
    expect(main.get_by_role("heading", name="Query: I(income == >50K)")).to_be_visible(
        timeout=90_000)
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
    assert_no_exception(page)
    column = sidebar.get_by_test_id("stSelectbox").filter(has_text="Column 1")
    column.click()
    page.keyboard.type("age")
    page.keyboard.press("Enter")
    expect(column.get_by_role("combobox")).to_have_value("age")
    expect(main.get_by_role("heading", name=re.compile(r"Query: I\(age > \d"))).to_be_visible()
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
    assert_no_exception(page)
    screenshot(page, "importance-upload-raw-units")


def test_small_data_default_on_the_importance_page(page: Page, app_url: str):
    # The page opens a scenario at its public rule's λ (E, N_D and the ε shown): on the small
    # wine table a larger λ than on Adult at the same ε, so the weights are not noise.
    page.goto(f"{app_url}/importance")
    wine = load_scenario("wine")
    choose(page, "Scenario", wine.title)
    main = page.get_by_test_id("stMain")
    epsilon = epsilon_shown(page)
    lam = importance_default_lambda("wine", epsilon)
    assert lam > importance_default_lambda("adult", epsilon)
    expect(main.get_by_text(f"λ = {lam:g}, 100 bootstrap resamples")).to_be_visible(
        timeout=90_000)
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
    expect(main.locator(".boxlayer path").first).to_be_visible()
    expect(main.get_by_text("the weights are mostly noise")).to_have_count(0)
    assert_no_exception(page)
    screenshot(page, "importance-small-data-default")
