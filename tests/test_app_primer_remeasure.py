"""AppTest of measure, observe, remeasure on the mechanism primer (issue 38 section 2): a
Publish and Remeasure presses of one query combine into one answer whose interval narrows with
each press, and the ledger shows every spend."""

from __future__ import annotations

import math
from functools import partial

import app_support
import pytest
from app_support import metrics, rerun

from dpcore.primer.intervals import noise_half_width
from dpcore.primer.remeasure import combine, noise_variance

pytestmark = pytest.mark.slow

open_page = partial(app_support.open_page, "pages/primer.py", timeout=120)
LEDGER = "_budget_accountant"


def _ledger_text(at) -> str:
    (panel,) = [e for e in at.sidebar.expander if e.label == "Ledger of releases"]
    return panel.markdown[0].value


def _half_width(text: str) -> float:
    return float(text.removeprefix("±").replace(",", ""))


def _ivw_half_width(scales: list[float]) -> float:
    """The exact half-width of the inverse-variance combination of Laplace releases."""
    weights = combine([0.0] * len(scales), noise_variance("laplace", scales)).weights
    return float(noise_half_width(weights * scales))


def test_remeasures_combine_into_a_narrower_interval_and_the_ledger_shows_each_spend():
    at = open_page()
    at.button(key="publish_primer").click()
    rerun(at)
    eps = at.session_state["pr_epsilon"]
    scale = 1.0 / eps  # a count: sensitivity 1
    first = scale * math.log(20.0)  # one release's ±b ln 20
    # one release: its interval once, in the release table (test_app_primer checks its
    # numbers); here only the way to remeasure
    assert [d for d in at.dataframe if "low_95" in d.value.columns]
    assert not any("interval" in label for label in metrics(at))
    assert "One release of this query so far" in app_support.captions(at)
    assert "Combined answer (2 releases)" not in metrics(at)
    assert at.select_slider(key="pr_remeasure_epsilon").value == eps

    at.select_slider(key="pr_remeasure_epsilon").set_value(0.2)
    rerun(at)
    at.button(key="publish_primer_remeasure").click()
    rerun(at)
    two = metrics(at)
    at.button(key="publish_primer_remeasure").click()
    rerun(at)
    three = metrics(at)

    ledger = at.session_state[LEDGER].ledger
    assert list(ledger["epsilon"]) == pytest.approx([eps, 0.2, 0.2])
    lines = _ledger_text(at).splitlines()  # the sidebar's ledger: one line per spend
    assert len(lines) == 3 and lines[0].endswith(f"**ε = {eps:g}**")
    assert all(line.endswith("**ε = 0.2**") for line in lines[1:])
    (measures,) = at.session_state["_pr_measures"].values()
    answers = [float(m.value["answer"].iloc[0]) for m in measures]
    scales = [scale, 5.0, 5.0]
    # the combined answer is the inverse-variance weighting of the three releases, shown
    expected = combine(answers, noise_variance("laplace", scales)).estimate
    assert three["Combined answer (3 releases)"] == f"{float(expected):,.0f}"
    # each press narrows the interval: the exact combined ones
    assert _half_width(two["Combined 95 % interval"]) == pytest.approx(
        _ivw_half_width(scales[:2]), rel=1e-3)
    assert _half_width(three["Combined 95 % interval"]) == pytest.approx(
        _ivw_half_width(scales), rel=1e-3)
    assert first > _half_width(two["Combined 95 % interval"]) > \
        _half_width(three["Combined 95 % interval"])
    text = app_support.captions(at)
    assert "spends nothing more (post-processing)" in text
    assert "two halves lose a factor 2" in text
    assert not at.exception


def test_a_remeasure_over_budget_is_refused_before_any_noise():
    at = open_page()
    at.button(key="publish_primer").click()
    rerun(at)
    at.select_slider(key="pr_remeasure_epsilon").set_value(10.0)  # above the budget of 1
    rerun(at)
    assert at.button(key="publish_primer_remeasure").disabled
    assert len(at.session_state[LEDGER]) == 1
    assert len(next(iter(at.session_state["_pr_measures"].values()))) == 1
    assert "Combined answer (2 releases)" not in metrics(at)


def test_per_group_remeasure_combines_each_group_and_counts_parts_in_parallel():
    at = open_page(builtin_name="wine")
    at.radio(key="budget_relation").set_value("add_remove")
    rerun(at)
    at.toggle(key="pr_by_group").set_value(True)
    rerun(at)
    at.button(key="publish_primer").click()
    rerun(at)
    at.button(key="publish_primer_remeasure").click()
    rerun(at)
    eps = at.session_state["pr_epsilon"]
    acc = at.session_state[LEDGER]
    (measures,) = at.session_state["_pr_measures"].values()
    parts = list(measures[0].value["part"])
    assert len(acc) == 2 * len(parts) and acc.records["partition"].notna().all()
    assert acc.total("sequential")[0] == pytest.approx(2 * eps)  # each press: ε once
    (combined,) = [d.value for d in at.dataframe if "combined answer" in d.value.columns]
    assert list(combined["part"]) == parts
    widths = [_half_width(w) for w in combined["95 % interval"]]
    assert widths == pytest.approx([_ivw_half_width([1 / eps] * 2)] * len(parts), rel=1e-3)
