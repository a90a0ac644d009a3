"""Bad input and extreme settings on every page of app.py: never a traceback (AppTest).

* Every file of the bad-input corpus (``tests/data/bad/``, plus an upload one byte over the size
  limit made in memory) is uploaded as the private file beside a valid public file, on every
  page: no exception, a specific message each (an ``st.error`` or ``st.warning`` whose text is
  not empty), and afterwards a valid upload makes the page work again.
* Every slider, select slider and number input of every page is set to its smallest value and
  then to its largest (all of a page's controls at once, on a small built-in scenario): no
  exception.

The list of pages is read from the router (``app.py`` and ``ui/navigation.py``), so pages
added later are covered. The figures (files
tried, tracebacks seen) are printed by the run.
"""

from __future__ import annotations

from pathlib import Path

import app_support  # noqa: F401  (one component scan per process)
import pytest
from streamlit.runtime.state.common import TESTING_KEY
from streamlit.testing.v1 import AppTest

from dpcore.datasets import MAX_UPLOAD_BYTES
from ui import registry

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
BAD = sorted((DATA / "bad").iterdir())
PAGES = [page.path for page in registry.PAGES]
#: Pages that draw the scenario sidebar (presentation mode hides it and takes no upload).
DATA_PAGES = [p for p in PAGES if "scenario_sidebar()" in (ROOT / p).read_text()]
TIMEOUT = 180
SMALL = "wine"
#: Where a page's result means nothing at an extreme, and the words of the message that says so:
#: noise that swamps the signal at the smallest epsilon (importance, logistic regression,
#: masking, subset, an error target of almost 0), and an audit whose runs cannot reach the
#: largest claim.
MEANINGLESS = {
    ("importance", "smallest"): "mostly noise",
    ("perturbation", "smallest"): "mean nothing",
    ("masking", "smallest"): "could not reach",
    ("subset", "smallest"): "would buy nothing",
    ("audit", "largest"): "means nothing",
    ("choose_epsilon", "smallest"): "No ε up to",
    ("primer", "smallest"): "mean nothing",
}  # a small built-in scenario, so that a page at its largest settings stays quick


def _oversized() -> bytes:
    header = b"age,education,hours,married,region,income\n"
    row = b"40,HS-grad,40,yes,West,<=50K\n"
    return header + row * ((MAX_UPLOAD_BYTES + 1) // len(row) + 1)


def app(**state) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    return at


def messages(at: AppTest) -> list[str]:
    return [m.value for m in (*at.error, *at.warning)]


def test_pages_are_read_from_app_py():
    assert "pages/home.py" in PAGES and "pages/audit.py" in PAGES and len(PAGES) >= 6


@pytest.mark.parametrize("page", DATA_PAGES)
def test_every_bad_file_on_every_page_gives_a_message_not_a_traceback(page):
    # The private file's name in the title tells which file the scenario was built from.
    at = app(builtin_name=SMALL, private_name_shared=True)
    at.switch_page(page)
    at.run()
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload_public").set_value(
        ("public.csv", (DATA / "valid_public.csv").read_bytes(), "text/csv"))
    tracebacks, silent, accepted = [], [], []
    cases = [(p.name, p.read_bytes()) for p in BAD] + [("oversized.csv", _oversized())]
    for name, data in cases:
        at.file_uploader(key="upload_private").set_value((name, data, "text/csv"))
        at.run()
        if at.exception:
            tracebacks.append(name)
            continue
        # Either the upload went through (the scenario is built from this very file; a tricky
        # but readable file is accepted, with notes) or it is refused in the main area.
        scenario = at.session_state["scenario"]
        if scenario is not None and scenario.title == f"Uploaded data: public.csv + {name}":
            accepted.append(name)
        elif not any(m.value.strip() for m in at.main.error):
            silent.append(name)
    # The app is still usable: a valid private file brings the page back.
    at.file_uploader(key="upload_private").set_value(
        ("private.csv", (DATA / "valid_private.csv").read_bytes(), "text/csv"))
    at.run()
    print(f"\nrobustness {page}: {len(cases)} bad files tried, {len(tracebacks)} tracebacks, "
          f"{len(accepted)} accepted as readable, {len(silent)} refused without a message in the "
          "main area")
    assert not tracebacks, tracebacks
    assert not silent, silent
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["scenario"] is not None


def _controls(at: AppTest):
    for slider in at.slider:
        yield slider, slider.min, slider.max
    for slider in at.select_slider:
        yield slider, slider.options[0], slider.options[-1]
    for box in at.number_input:
        if box.min is not None:
            yield box, box.min, box.max  # an unbounded box has no largest value: left as it is


def _set(widget, value) -> None:
    """Set a widget; a select slider by its *shown* option (its values may be anything)."""
    if type(widget).__name__ == "SelectSlider":
        # AppTest sends a select slider's formatted option; with an identity format function
        # for this widget, the shown option string itself is that formatted option.
        widget.root.session_state[TESTING_KEY][widget.id] = str
    widget.set_value(value)


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("end", ["smallest", "largest"])
def test_every_control_at_its_extremes(page, end):
    at = app(builtin_name=SMALL)
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    controls = [(w, lo if end == "smallest" else hi) for w, lo, hi in _controls(at)
                if getattr(w, "key", None) not in ("seed", "budget_total")]
    controls = [(w, v) for w, v in controls if v is not None]
    for widget, value in controls:
        _set(widget, value)
    at.run()
    said = messages(at)
    print(f"\nextremes {page} ({end}): {len(controls)} controls set, "
          f"{len(at.exception)} tracebacks, {len(said)} messages")
    assert not at.exception, [e.value for e in at.exception]
    name = Path(page).stem
    if (name, end) in MEANINGLESS:
        assert any(MEANINGLESS[name, end] in m for m in said), (name, end, said)
