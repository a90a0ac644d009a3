"""Bad values in a shareable link (issue 21, section 6): a note, the control's default, never a
traceback.

For every page, every query parameter its link mirrors is set to each bad value in turn (``-1``,
``0``, ``nan``, ``1e9`` and a word), all of a page's parameters at once in one new session per
value (the scenario stays the small built-in ``wine``). Then, for every parameter:

* no exception on the page;
* a value the link could not use is named in a note in the main area (``st.warning``, its text
  escaped), and the control holds its default or a value its widget offers;
* a value the link did use is one the control takes: its widget (where drawn) shows that very
  value, so Streamlit did not silently reset it to another.

A value that is read off the data (a column, a category) is checked when its widget is drawn;
:func:`test_query_builder_values_are_checked_against_the_data` draws every condition of the query
builder to check those too. The remaining tests check the domains themselves.
"""

from __future__ import annotations

import math
from functools import cache

import app_support
import pytest
from streamlit.testing.v1 import AppTest

import ui.export
import ui.registry
import ui.runconfig
import ui.widgets
from dpcore.domains import (
    EPSILONS,
    SEED,
    Between,
    FromData,
    NotFromLink,
    OneOf,
    check,
)
from dpcore.queries import MAX_CONDITIONS, MEAN
from dpcore.runs import PAGES as RUN_PAGES
from dpcore.runs import page_module, scenarios
from dpcore.text import md
from ui import links

TIMEOUT = 180
PAGES = list(ui.runconfig.PREFIXES)
BAD = ("-1", "0", "nan", "1e9", "abc")
#: Kept valid so that every session runs on the small built-in scenario.
FIXED = {"builtin_name": "wine"}
_KINDS = ("select_slider", "slider", "number_input", "radio", "selectbox", "toggle", "checkbox",
          "button_group")


def _open(page: str, params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(str(app_support.ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page(f"pages/{page}.py")
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


@cache
def mirrored(page: str) -> tuple[str, ...]:
    """The query parameters that the page's link holds, as a session on wine writes them."""
    at = app_support.open_page(f"pages/{page}.py", timeout=TIMEOUT, allow_errors=True,
                               **FIXED)
    return tuple(key for key in at.query_params if key not in FIXED)


def _widget(at: AppTest, key: str):
    for kind in _KINDS:
        try:
            return getattr(at, kind)(key=key)
        except KeyError:
            continue
    return None


def _default(key: str):
    return links.known_defaults().get(key)


def _notes(at: AppTest) -> str:
    return " ".join(w.value for w in at.main.warning)


def _named(notes: str, key: str) -> bool:
    return f"for {md(key)} was ignored" in notes or f"for {md(key)} is not among" in notes


def _shows(at: AppTest, key: str, value) -> bool:
    """Whether the control ``key`` holds ``value``, and its widget (where drawn) shows it."""
    if key not in at.session_state or at.session_state[key] != value:
        return False
    widget = _widget(at, key)
    if widget is None:
        return True
    shown = widget.value
    return shown == value or shown == [value]


def _valid(at: AppTest, key: str) -> bool:
    """Whether the control holds its default or a value its widget or its domain accepts."""
    if key not in at.session_state:
        return True  # never set: the page's default
    value = at.session_state[key]
    if value == _default(key):
        return True
    if _widget(at, key) is not None:
        return _shows(at, key, value)
    try:
        check(links.known_domains(), key, value)
    except ValueError:
        return False
    return True


def _check_page(at: AppTest, keys, bad: str) -> list[str]:
    """Every failure of the rules above for the parameters ``keys`` set to ``bad``."""
    assert not at.exception, [e.value for e in at.exception]
    notes, failures = _notes(at), []
    for key in keys:
        if _named(notes, key):
            if not _valid(at, key):
                failures.append(f"{key}: noted, but holds {at.session_state[key]!r}")
            continue
        default = _default(key)
        if bad in ("abc", "nan") and isinstance(default, int | float):  # bool included
            failures.append(f"{key}: a word for a number or a switch, and no note")
            continue
        try:
            value = check(links.known_domains(), key,
                          links.fit_value(links.decode(bad), default, text=bad))
        except ValueError:
            failures.append(f"{key}: {bad!r} cannot be its value, and no note")
            continue
        if not _shows(at, key, value):
            shown = at.session_state[key] if key in at.session_state else "(unset)"
            failures.append(f"{key}: {bad!r} replaced by {shown!r} without a note")
    return failures


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("page", PAGES)
def test_every_link_parameter_with_a_bad_value(page, bad):
    keys = mirrored(page)
    assert keys, page
    at = _open(page, {**dict.fromkeys(keys, bad), **FIXED})
    failures = _check_page(at, keys, bad)
    assert not failures, failures
    # The note quotes the value as text (escaped) and says what the control must be.
    if bad == "-1" and "seed" in keys:
        assert (f"The link's value {md(bad)} for seed was ignored: "
                f"{md('seed == -1, must be >= 0')}.") in _notes(at)


@pytest.mark.parametrize("bad", ["abc", "-1"])
@pytest.mark.parametrize("kind", ["conditions", "mean"])
def test_query_builder_values_are_checked_against_the_data(kind, bad):
    """The query builder's columns, comparisons and values, drawn (three conditions, or the mean
    of a column), each set to a value that is not among the data's choices."""
    prefix = "iw_q"
    if kind == "conditions":
        keys = [f"{prefix}_{part}_{i}" for i in range(MAX_CONDITIONS)
                for part in ("col", "op", "value")]
        params = {f"{prefix}_n": str(MAX_CONDITIONS), **dict.fromkeys(keys, bad)}
    else:
        keys = [f"{prefix}_mean_column"]
        params = {f"{prefix}_kind": MEAN, keys[0]: bad}
    at = _open("importance", {**params, **FIXED})
    failures = _check_page(at, keys, bad)
    assert not failures, failures
    notes = _notes(at)
    drawn = [key for key in keys if _widget(at, key) is not None]
    assert drawn, "the query builder drew none of the controls"
    for key in drawn:  # wine's columns are named, and its category levels are numbers
        if not (key.startswith(f"{prefix}_value_") and bad == "-1"):
            assert _named(notes, key), (key, notes)


def test_a_value_off_the_slider_gets_a_note_and_the_default():
    """The traceback of issue 21: ``?iw_epsilon=-1`` (and 0, or an ε between the slider's
    steps) on the importance page, which reads ε before it draws the slider."""
    for text in ("-1", "0", "0.15"):
        at = _open("importance", {"iw_epsilon": text, **FIXED})
        assert not at.exception, (text, [e.value for e in at.exception])
        assert at.session_state["iw_epsilon"] == 0.1
        assert at.select_slider(key="iw_epsilon").value == 0.1
        (note,) = [w.value for w in at.main.warning if "iw\\_epsilon" in w.value]
        assert f"The link's value {md(text)} for iw\\_epsilon was ignored" in note
        assert md("must be one of 0.01, 0.02, 0.03, …, 10") in note


def test_a_note_escapes_the_value_and_shortens_it():
    text = "**bold** <b>x</b> " + "y" * 100
    at = _open("importance", {"iw_view": text, **FIXED})
    assert not at.exception
    (note,) = [w.value for w in at.main.warning if "iw\\_view" in w.value]
    assert "**bold**" not in note and "<b>" not in note
    assert md("**bold** <b>x</b> ") in note and "y" * 100 not in note
    assert at.session_state["iw_view"] == page_module("importance").VIEWS[0]


# ------------------------------------------------------------------------------- domains --

@pytest.mark.parametrize("page", RUN_PAGES)
def test_every_control_has_a_domain_that_takes_its_default(page):
    """Each page's controls: a domain for every control that is not a switch, and the default
    inside it (a control the link cannot set excepted)."""
    module = page_module(page)
    domains = module.DOMAINS if hasattr(module, "DOMAINS") else {}
    for key, default in module.CONTROLS.items():
        if isinstance(default, bool):
            continue
        assert key in domains, f"{page}: {key} has no domain"
        if not isinstance(domains[key], NotFromLink):
            check(domains, key, default)
    if module.SEED_KEY:
        assert domains[module.SEED_KEY] == SEED


def test_the_sidebar_keys_have_domains():
    domains = links.known_domains()
    for key, default in scenarios.CONTROLS.items():
        if isinstance(default, bool):
            continue
        assert key in domains, key
        check(domains, key, default)


def test_the_widgets_offer_the_domains_options():
    assert ui.widgets.EPSILONS is EPSILONS
    assert SEED.low == 0 and SEED.high == 2**31 - 1


@pytest.mark.parametrize(("domain", "good", "bad", "message"), [
    (OneOf(EPSILONS), [0.01, 10.0], [0.15, -1, 0, 1e9, "abc", True],
     "must be one of 0.01, 0.02, 0.03, …, 10"),
    (OneOf(("a", "b")), ["a"], ["c", 1, None], "must be one of 'a', 'b'"),
    (OneOf((None, "==")), [None, "=="], ["<>"], "must be one of '=='"),
    (OneOf((0.0, 1e-6)), [0.0], [False, 1e-5], "must be one of 0, 1e-06"),
    (Between(1, 100, integer=True), [1, 100, 7.0], [0, 101, 2.5, math.nan, math.inf, "1", None,
                                                      True], "must be"),
    (Between(optional=True), [None, -1e9, 0.0], [math.nan, "x"], "must be a"),
    (FromData(), [None, "north", -1, 2.5, True], [math.nan, [1], {"a": 1}], "must be"),
])
def test_domains(domain, good, bad, message):
    for value in good:
        assert domain.problem(value) is None, value
    for value in bad:
        found = domain.problem(value)
        assert found is not None and found.startswith(message), (value, found)


def test_check_converts_and_says_what_is_wrong():
    domains = {"n": Between(1, 10, integer=True), "plan": NotFromLink("read-only")}
    assert check(domains, "n", 3.0) == 3 and isinstance(check(domains, "n", 3.0), int)
    assert check(domains, "other", "anything") == "anything"
    with pytest.raises(ValueError, match=r"^n == 0, must be >= 1$"):
        check(domains, "n", 0)
    with pytest.raises(ValueError, match="a link cannot set it"):
        check(domains, "plan", {})


def test_the_plan_table_is_left_out_of_links():
    """A data editor's state cannot be set (Streamlit keeps it read-only): the plan table is not
    in the link, and an older link that holds it at its default opens without a note."""
    assert "ce_plan" not in mirrored("choose_epsilon")
    default = links.encode(page_module("choose_epsilon").CONTROLS["ce_plan"])
    at = _open("choose_epsilon", {"ce_plan": default, "ce_view": "composition", **FIXED})
    app_support.assert_clean(at)
    assert not [w.value for w in at.main.warning if "ce\\_plan" in w.value]
    at = _open("choose_epsilon", {"ce_plan": '{"edited_rows": {"0": {"epsilon": 5}}}',
                                  "ce_view": "composition", **FIXED})
    app_support.assert_clean(at)
    assert [w.value for w in at.main.warning if "ce\\_plan" in w.value]
