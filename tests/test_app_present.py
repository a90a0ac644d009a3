"""AppTest of presentation mode: the toggle, every preset, next/previous and the selector.

Each preset is a run of built-in data whose result goes to the shared store, so the presets are
computed once per test process (about 35 s on two cores in all) and every later AppTest reuses
them.
"""

from __future__ import annotations

import html
import json
import time
import uuid

import app_support
import pytest
from app_support import assert_clean, captions, chart_specs, rerun
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue
from streamlit.testing.v1 import AppTest

import ui.presentation
from dpcore.figures import figures
from dpcore.runs import run
from dpcore.text import md
from ui import prefetch
from ui.cache import content_key
from ui.presentation import (
    PRESETS,
    available,
    compute_ahead,
    figure_title,
    is_computed,
    pick_figure,
    result,
)

TIMEOUT = 120  # seconds per run: a preset's first run computes its study (Wang Fig. 6: ~16 s)
KEYS = [preset.key for preset in PRESETS]


def present(**state: object) -> AppTest:
    """Start the app with the sidebar toggle just switched on (as its callback leaves it)."""
    at = app_support.start(timeout=TIMEOUT, presentation=True, _presentation_target="on",
                           **state)
    assert_clean(at)
    return at


def slide(at: AppTest) -> str:
    """The key of the preset shown."""
    return at.selectbox(key="present_choice").value


def takeaway(at: AppTest) -> str:
    """The takeaway's markdown: the paragraph after "Paper: …"."""
    texts = [m.value for m in at.markdown]
    return texts[texts.index(next(t for t in texts if t.startswith("Paper: "))) + 1]


def test_every_preset_has_its_page_run():
    offered, missing = available()
    assert not missing, [p.key for p in missing]
    # in the navigation's order: each page's slides are declared on its registry line
    assert [p.page for p in offered] == ["importance", "importance", "subset", "subset",
                                         "perturbation", "masking", "masking"]


def test_the_toggle_is_in_the_sidebar_and_opens_and_leaves_presentation_mode():
    at = app_support.start(timeout=TIMEOUT, builtin_name="three-gaussians")  # a light home
    toggle = at.sidebar.toggle(key="presentation")
    assert toggle.label == "Presentation mode" and toggle.value is False
    at = present(builtin_name="three-gaussians")
    assert at.title[0].value == PRESETS[0].title
    assert at.markdown[0].value.startswith("<style>") and "stSidebar" in at.markdown[0].value
    at.button(key="present_leave").click()
    rerun(at)
    assert at.title[0].value == "Privacy/utility explorer"  # back home: no return page known
    assert not [b for b in at.button if b.key == "present_next"]


@pytest.mark.parametrize("preset", PRESETS, ids=KEYS)
def test_each_preset_renders_its_figure_and_computed_takeaway(preset):
    at = present(present_choice=preset.key)
    assert slide(at) == preset.key
    assert at.title[0].value == preset.title
    assert f"{KEYS.index(preset.key) + 1} / {len(PRESETS)}" in [m.value for m in at.markdown]
    computed = result(preset)  # the shared store's run: what the page showed
    assert takeaway(at) == md(computed.takeaway())
    specs = chart_specs(at)
    expected = pick_figure(figures(computed), preset)
    assert set(expected) <= set(figures(computed)) and set(preset.figure) == set(expected), (
        "the preset names a figure its run does not make")
    assert len(specs) == len(expected)
    assert all(f"present_{preset.key}_" in key for key in specs)
    assert all(html.escape(preset.paper) in spec for spec in specs.values())  # in the title
    assert "not a release" in captions(at)
    assert not at.get("progress")  # emptied once computed


def test_the_takeaway_follows_the_numbers_not_a_text():
    # Two presets of the same page with other controls: other numbers, other sentences.
    first, second = result(PRESETS[0]), result(PRESETS[1])
    assert first.takeaway() != second.takeaway()
    assert f"{0.1:g}" in first.takeaway()


def test_next_previous_and_the_selector_move_one_slide():
    at = present()
    assert slide(at) == KEYS[0] and at.button(key="present_previous").disabled
    at.button(key="present_next").click()
    rerun(at)
    assert slide(at) == KEYS[1] and at.title[0].value == PRESETS[1].title
    assert "2 / 7" in [m.value for m in at.markdown]
    at.button(key="present_previous").click()
    rerun(at)
    assert slide(at) == KEYS[0] and at.title[0].value == PRESETS[0].title
    at.selectbox(key="present_choice").set_value(KEYS[-1])
    rerun(at)
    assert at.title[0].value == PRESETS[-1].title and at.button(key="present_next").disabled
    assert not at.button(key="present_previous").disabled


def test_presets_of_a_page_without_run_are_not_offered_and_are_named(monkeypatch):
    monkeypatch.setattr(ui.presentation, "_has_run", lambda page: page != "subset")
    at = present()
    options = at.selectbox(key="present_choice").options
    assert len(options) == 5 and not any("Wang" in o for o in options)
    assert "5 / 5" not in [m.value for m in at.markdown] and "1 / 5" in [
        m.value for m in at.markdown]
    note = captions(at)
    assert "Not offered yet" in note and "Wang et al" in note and "(subset)" in note


def chart_titles(at: AppTest) -> list[str]:
    """The titles of the page's charts (their settings line included), as plain text."""
    return [html.unescape(json.loads(spec)["layout"]["title"]["text"])
            for spec in chart_specs(at).values()]


def own_titles(preset) -> list[str]:
    """The titles of the figures on the slide of ``preset``, as the page writes them."""
    return [f"{figure_title(preset, name)} ({preset.paper})" for name in preset.figure]


def test_every_slide_shows_its_own_figure_never_another_slides():
    # issue 35: each step of the deck, Next by Next, shows the figures titled for its own slide,
    # and none titled for another slide (all the slides' titles differ).
    everyone = [title for preset in PRESETS for title in own_titles(preset)]
    assert len(set(everyone)) == len(everyone)
    at = present()
    for i, preset in enumerate(PRESETS):
        assert slide(at) == preset.key and at.title[0].value == preset.title
        titles = chart_titles(at)
        assert len(titles) == len(preset.figure)
        for title, own in zip(titles, own_titles(preset), strict=True):
            assert title.startswith(own), (title, own)
            assert not [other for other in everyone if other != own and other in title]
        if i < len(PRESETS) - 1:
            at.button(key="present_next").click()
            rerun(at)


def settle() -> None:
    """Wait until nothing is being computed ahead or waiting to be (without taking it off)."""
    while prefetch.pending():
        time.sleep(0.05)


def test_the_next_slide_is_computed_ahead_and_next_is_a_cache_hit(monkeypatch):
    # issue 35: while slide k is shown, slide k + 1 computes in the background (a core idle),
    # into the shared store; pressing Next then runs nothing.
    monkeypatch.setattr(prefetch, "idle_core", lambda: True)
    salt = uuid.uuid4().hex  # keys unique to this test: nothing of the deck computed before
    monkeypatch.setattr(ui.presentation, "_key", lambda preset: content_key(
        "presentation preset", salt, preset.config().to_json()))
    ran: list[str] = []

    def counted(config, progress=None):
        ran.append(config.to_json())
        return run(config, progress=progress)

    monkeypatch.setattr(ui.presentation, "run", counted)
    shown, following = PRESETS[-2], PRESETS[-1]  # the data-masking slides: quick studies
    at = present(present_choice=shown.key)
    assert slide(at) == shown.key and ran[0] == shown.config().to_json()  # then, maybe, ahead
    settle()
    assert is_computed(following)
    assert ran == [shown.config().to_json(), following.config().to_json()]
    at.button(key="present_next").click()
    rerun(at)
    assert slide(at) == following.key and len(ran) == 2  # a cache hit: no run
    assert [t.split(" (")[0] for t in chart_titles(at)] == [
        figure_title(following, name) for name in following.figure]
    # on the last slide nothing is left to compute ahead
    assert compute_ahead(PRESETS, len(PRESETS) - 1) == []


def test_nothing_is_computed_ahead_on_a_busy_machine(monkeypatch):
    monkeypatch.setattr(prefetch, "idle_core", lambda: False)
    salt = uuid.uuid4().hex
    monkeypatch.setattr(ui.presentation, "_key", lambda preset: content_key(
        "presentation preset", salt, preset.config().to_json()))
    assert compute_ahead(PRESETS, 0) == [] and not prefetch.pending()


def composed(at: AppTest, act) -> list:
    """The deltas of the run ``act`` starts, as the browser receives them in the worst case.

    Streamlit's queue merges a delta into the one of the same path still waiting to be sent
    (an ``add_block`` is never merged away); a server under load may send a whole run at once,
    so every merge happens: the run's messages, put through a queue flushed once at the end.
    """
    sent: list = []
    ForwardMsgQueue.on_before_enqueue_msg(sent.append)
    try:
        act()
        rerun(at)
    finally:
        ForwardMsgQueue.on_before_enqueue_msg(None)
    queue = ForwardMsgQueue()
    for msg in sent:
        queue.enqueue(msg)
    return [msg for msg in queue.flush() if msg.HasField("delta")]


def browser_errors(messages: list) -> list[tuple]:
    """The deltas that the browser would refuse: an element or block whose parent this run
    turned into an element or dropped (Streamlit's "Cannot set a node at a delta path").

    A block of another type than the one at its path drops the children there; an element
    drops everything under its path. A parent this run did not write is taken as a block."""
    kind: dict[tuple, str] = {}  # path -> block type, or "" for an element
    gone: set[tuple] = set()
    refused = []
    for msg in messages:
        path = tuple(msg.metadata.delta_path)
        parent = path[:-1]
        if parent in gone or kind.get(parent, "block") == "":
            refused.append(path)
            continue
        block = msg.delta.add_block.WhichOneof("type") if msg.delta.HasField(
            "add_block") else ""
        if kind.get(path) != block or not block:
            under = {p for p in kind if p[:len(path)] == path and p != path}
            gone |= under
            for p in under:
                del kind[p]
        kind[path] = block
        gone.discard(path)
    return refused


def test_no_browser_can_keep_the_previous_slides_figure_under_the_new_title():
    # issue 35 (failures seen in Chromium under load, Previous onto a computed slide). In the
    # browser, a block that arrives at a path holding a block of the same type keeps that
    # block's children, and a keyed chart it then replaces stays on screen until the run ends
    # (Streamlit 1.67's frontend). Even with every delta of the run merged, the body's slot
    # must first get a block of another type (dropping the old figures), before the title, and
    # no delta may reach the browser before the block that holds it.
    at = present(present_choice=KEYS[1])
    body = [(tuple(m.metadata.delta_path), m.delta.add_block) for m in composed(
        at, lambda: None) if m.delta.add_block.id.endswith("present_body")]
    assert len(body) == 1
    path, shown = body[0]
    for act in (at.button(key="present_previous").click,  # onto a slide computed before
                at.button(key="present_next").click):
        messages = composed(at, act)
        assert is_computed(PRESETS[KEYS.index(slide(at))])
        assert browser_errors(messages) == []
        at_body = [i for i, m in enumerate(messages) if tuple(m.metadata.delta_path) == path]
        first = messages[at_body[0]].delta
        assert first.WhichOneof("type") == "add_block"
        assert first.add_block.WhichOneof("type") != shown.WhichOneof("type")
        title = next(i for i, m in enumerate(messages)
                     if m.delta.new_element.heading.body == at.title[0].value)
        assert at_body[0] < title
        last = messages[at_body[-1]].delta.add_block
        assert last.id.endswith("present_body")
        assert last.WhichOneof("type") == shown.WhichOneof("type")


def test_a_slide_to_compute_reaches_the_browser_whole():
    # The same, onto a slide that computes (its bar moves in the note's slot): every delta of
    # the run, merged as under load, lands in a block that exists.
    salt = uuid.uuid4().hex
    at = present(present_choice=KEYS[-2])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(prefetch, "idle_core", lambda: False)  # nothing computed ahead
        patch.setattr(ui.presentation, "_key", lambda preset: content_key(
            "presentation preset", salt, preset.config().to_json()))
        assert not is_computed(PRESETS[-1])
        messages = composed(at, at.button(key="present_next").click)
    assert slide(at) == KEYS[-1]
    assert any(m.delta.new_element.HasField("progress") for m in messages)
    assert browser_errors(messages) == []
