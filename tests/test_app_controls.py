"""Every control a page shows does something (issue 24): moved to another value, it changes a
figure, a number or a text of the main area; a control that would change nothing is not shown.

Each page opens on a small built-in scenario in its first view; every keyed widget of the page's
own controls (its key prefix, in the sidebar or the main area) is then moved in turn, once, and
what the main area shows is compared before and after. The view chooser is left alone (it
changes the view)."""

from __future__ import annotations

import json
from typing import Any

import app_support
import pytest
from app_support import rerun
from streamlit.testing.v1 import AppTest

from ui.registry import PAGES

pytestmark = pytest.mark.slow
TIMEOUT = 300
SMALL = {"builtin_name": "breast-cancer"}  # a fast scenario with a binary target
#: The pages whose study has controls, by script.
STUDY_PAGES = {entry.path: entry.prefix for entry in PAGES if entry.prefix}
STUDIES = {entry.path: entry.study for entry in PAGES if entry.prefix}
#: Settings of a computation behind a button: moving one changes what the next press computes
#: (the audit page's tests press each button), not what is drawn before it.
BEHIND_A_BUTTON = {"au_float_runs": "au_float_run", "au_canaries": "au_one_run",
                   "au_broken": "au_run_all", "au_sens_pairs": "au_sens_run"}
KINDS = ("select_slider", "slider", "radio", "toggle", "checkbox", "number_input", "selectbox")


def shown(at: AppTest) -> str:
    """What the main area shows: figures, numbers and texts, as one string."""
    parts: list[Any] = [c.proto.spec for c in at.main.get("plotly_chart")]
    parts += [(m.label, m.value) for m in at.main.metric]
    parts += [e.value for kind in ("markdown", "caption", "info", "warning", "dataframe",
                                   "subheader") for e in getattr(at.main, kind)]
    return json.dumps(parts, default=str)


def controls(at: AppTest, prefix: str) -> list[Any]:
    """The page's own keyed widgets (sidebar or main area), except the view chooser."""
    found = []
    for kind in KINDS:
        for widget in getattr(at, kind):
            key = widget.key or ""
            if (key.startswith(prefix) and not key.endswith("_view")
                    and key not in BEHIND_A_BUTTON):
                found.append(widget)
    return found


def move(widget: Any, domains: dict[str, Any]) -> None:
    """Set ``widget`` to a value other than its current one (a neighbour on a slider), the
    options of a radio or a select slider being read from the study's ``domains``."""
    kind = type(widget).__name__
    if kind in ("Toggle", "Checkbox"):
        widget.set_value(not widget.value)
    elif kind == "NumberInput":
        widget.set_value((widget.value or 0) + 1)
    elif kind == "Slider":
        widget.set_value(widget.max if widget.value != widget.max else widget.min)
    elif kind == "Selectbox" and not getattr(domains.get(widget.key), "options", None):
        widget.select_index(1 if widget.index == 0 else 0)  # options read off the data
    else:  # AppTest keeps the options as shown (formatted): the study's domain has the values
        shown_options = list(widget.options)
        candidates = getattr(domains.get(widget.key), "options", None) or [
            convert(text) for text in shown_options for convert in (int, float, str)
            if _converts(convert, text)]  # a select slider of numbers read off the data
        values = [v for v in candidates
                  if _shows(widget, v) in shown_options and v != widget.value]
        assert values, f"no other value of {widget.key} among {shown_options}"
        widget.set_value(_neighbour(widget, values) if kind == "SelectSlider" else values[0])


def _converts(convert: Any, text: str) -> bool:
    try:
        convert(text)
    except ValueError:
        return False
    return True


def _shows(widget: Any, value: Any) -> str | None:
    try:
        return widget.format_func(value)
    except (TypeError, ValueError):
        return None


def _neighbour(widget: Any, values: list[Any]) -> Any:
    """The value next to the current one on a select slider (the one above, or below at the
    top)."""
    options = list(widget.options)
    index = options.index(_shows(widget, widget.value))
    for step in (1, -1):
        if 0 <= index + step < len(options):
            return next(v for v in values if _shows(widget, v) == options[index + step])
    raise AssertionError(f"{widget.key} has one option")


@pytest.mark.parametrize("page", sorted(STUDY_PAGES))
def test_every_control_shown_changes_what_is_drawn(page: str):
    at = app_support.open_page(page, timeout=TIMEOUT, **SMALL)
    prefix = STUDY_PAGES[page]
    domains = STUDIES[page].DOMAINS
    keys = [w.key for w in controls(at, prefix)
            if type(w).__name__ != "Selectbox" or len(w.options) > 1]
    assert keys, f"{page} shows no control of its own"
    idle = []
    for key in keys:
        widget = next((w for w in controls(at, prefix) if w.key == key), None)
        if widget is None:  # hidden by an earlier move: it would change nothing now
            continue
        before = shown(at)
        move(widget, domains)
        if shown(rerun(at, allow_errors=True)) == before:
            idle.append(key)
    assert not idle, f"{page}: moving {idle} changed nothing on the page"
    buttons = {b.key for b in at.button}
    for setting, button in BEHIND_A_BUTTON.items():
        if setting.startswith(prefix):  # each left-alone setting sits beside its button
            assert button in buttons and any(w.key == setting for kind in KINDS
                                             for w in getattr(at, kind)), setting
