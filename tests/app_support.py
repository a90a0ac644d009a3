"""Helpers shared by the AppTest tests (``tests/test_app_*.py``): start the app, open a page,
rerun it with the standard checks, and read what a page shows.

A test module binds the page-specific arguments once, e.g.::

    open_page = partial(app_support.open_page, PAGE, timeout=TIMEOUT, builtin_name="wine")
    show_view = partial(app_support.show_view, key="ce_view")

Keywords bound by ``partial`` are defaults: ``open_page(builtin_name="adult")`` overrides them.
"""

from __future__ import annotations

import functools
import gc
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from streamlit.components.v2 import manifest_scanner
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"

# Every new AppTest scans the metadata of every installed package for custom components (0.35 s
# in a small virtual environment, 0.8 s in a full system Python), and the app has none: the scan
# runs once per test process instead of once per test.
if not hasattr(manifest_scanner.scan_component_manifests, "cache_info"):
    manifest_scanner.scan_component_manifests = functools.cache(
        manifest_scanner.scan_component_manifests)


@pytest.fixture
def no_cyclic_gc():
    """Cyclic garbage collection off for one test. AppTest drops its mock runtime, and with it
    the MediaFileManager that holds the deferred downloads (a callable per button), at the end
    of every run; they sit in reference cycles that the collector may free at any moment, so a
    test that looks a download up after the run (through ``gc.get_objects``) needs it off."""
    enabled = gc.isenabled()
    gc.disable()
    yield
    if enabled:
        gc.enable()


def start(*, timeout: float, **state: object) -> AppTest:
    """Run the app once, with ``state`` put in ``st.session_state`` first."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def assert_clean(at: AppTest, *, allow_errors: bool = False) -> None:
    """No exception, and (unless ``allow_errors``) no ``st.error`` on the page."""
    assert not at.exception, [exc.value for exc in at.exception]
    if not allow_errors:
        assert not at.error, [err.value for err in at.error]


def rerun(at: AppTest, *, allow_errors: bool = False) -> AppTest:
    """Run the script again and check it with :func:`assert_clean`."""
    at.run()
    assert_clean(at, allow_errors=allow_errors)
    return at


def open_page(page: str, *, timeout: float, allow_errors: bool = False,
              **state: object) -> AppTest:
    """Start the app with ``state``, switch to ``page`` (``"pages/x.py"``) and run it clean."""
    at = start(timeout=timeout, **state)
    at.switch_page(page)
    return rerun(at, allow_errors=allow_errors)


def show_view(at: AppTest, view: str, *, key: str) -> AppTest:
    """Pick ``view`` in the page's view chooser (a button group with widget key ``key``): its
    key, or the label the page shows, as a person picks it."""
    from dpcore import studies

    params = [p for p in (studies.study(name).Params for name in studies.names())
              if p.VIEW_LABELS and p.key("view") == key]
    at.button_group(key=key).set_value(params[0].view_key(view))
    return rerun(at)


def metrics(at: AppTest) -> dict[str, str]:
    """The page's ``st.metric`` values by label."""
    return {m.label: m.value for m in at.metric}


def chart_ids(at: AppTest) -> list[str]:
    """The element ids of the page's plotly charts, in page order."""
    return [c.proto.id for c in at.get("plotly_chart")]


def chart_specs(at: AppTest) -> dict[str, str]:
    """The page's plotly charts: element id -> figure spec (JSON)."""
    return {c.proto.id: c.proto.spec for c in at.get("plotly_chart")}


def changed_charts(at: AppTest, widget: Any, value: object) -> list[str]:
    """Set ``widget`` to ``value``, rerun, and return the ids of the charts whose spec changed."""
    before = chart_specs(at)
    widget.set_value(value)
    after = chart_specs(rerun(at))
    return [k for k in before if before[k] != after.get(k)]


def captions(at: AppTest) -> str:
    """All captions of the page, joined by spaces."""
    return " ".join(c.value for c in at.caption)


def marked_files(n_public: int = 150, n_private: int = 120) -> tuple[bytes, bytes, list[str]]:
    """A public and a private CSV, and the private markers (a text and a number in every private
    row) that no export may contain; the public file has a formula-like cell (``=1+2``)."""
    rng = np.random.default_rng(7)

    def rows(n: int, private: bool) -> list[str]:
        out = []
        for i in range(n):
            age = int(rng.integers(18, 80))
            city = ["north", "south", "east"][int(rng.integers(3))]
            income = int(rng.integers(2))
            note = f"PRIVMARK{i:04d}" if private else ["alpha", "beta", "=1+2"][i % 3]
            score = f"{3.1234567 + i * 1e-6:.7f}" if private else f"{int(rng.integers(0, 9))}.5"
            out.append(f"{age},{city},{income},{note},{score}")
        return out

    header = "age,city,income,note,score"
    public = "\n".join([header, *rows(n_public, False)]).encode()
    private_rows = rows(n_private, True)
    markers = [r.split(",")[3] for r in private_rows] + [r.split(",")[4] for r in private_rows]
    return public, "\n".join([header, *private_rows]).encode(), markers


def upload_marked(public: bytes, private: bytes, *, timeout: float) -> AppTest:
    """The app with :func:`marked_files` uploaded as two files, target ``income``, and a budget
    large enough for every page's default release."""
    from dpcore import BudgetAccountant

    at = start(timeout=timeout, builtin_name="wine", source="Upload",
               _budget_accountant=BudgetAccountant(epsilon=100.0), budget_epsilon=100.0)
    at.file_uploader(key="upload_public").set_value(("public.csv", public, "text/csv"))
    at.file_uploader(key="upload_private").set_value(("private.csv", private, "text/csv"))
    rerun(at)
    at.selectbox(key="upload_target").set_value("income")
    return rerun(at)
