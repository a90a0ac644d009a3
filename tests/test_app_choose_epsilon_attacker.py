"""AppTest of the "Choose epsilon" page's "ε as risk" view: what an attacker can do at 1 % and
10 % false alarms, and ε as an interval by privacy loss distributions."""

from __future__ import annotations

from functools import partial

import app_support
from app_support import metrics, rerun

from dpcore.composition import pld_interval
from dpcore.planning.tradeoff import tradeoff

PAGE = "pages/choose_epsilon.py"
TIMEOUT = 240

open_page = partial(app_support.open_page, PAGE, timeout=TIMEOUT, builtin_name="wine")
show_view = partial(app_support.show_view, key="ce_view")


def expected(epsilon: float) -> dict[str, str]:
    """The attacker's metrics at ``epsilon``, from the library."""
    shown = {}
    for fpr in (0.01, 0.1):
        laplace = float(tradeoff([epsilon], [fpr])[0])
        pure = float(tradeoff([epsilon], [fpr], mechanism="pure")[0])
        shown[f"Caught at {100 * fpr:g} % false alarms"] = (
            f"at most {100 * laplace:.1f} %", f"any ε-DP release: {100 * pure:.1f} %")
    return shown


def test_attacker_at_one_and_ten_percent_false_alarms_follows_the_slider():
    at = show_view(open_page(), "ε as risk")
    for epsilon in (1.0, 0.3):
        if epsilon != 1.0:
            at.select_slider(key="ce_epsilon").set_value(epsilon)
            rerun(at)
        shown = {m.label: (m.value, m.delta) for m in at.metric}
        for label, value in expected(epsilon).items():
            assert shown[label] == value


def test_epsilon_as_an_interval_beside_its_point_value():
    at = show_view(open_page(), "ε as risk")
    got = pld_interval([1.0], delta_slack=1e-6, mechanisms=["Laplace"])
    label = "ε by privacy loss distribution (δ = 1e-06)"
    assert metrics(at)[label] == f"{got.point:.4g}"
    (delta,) = [m.delta for m in at.metric if m.label == label]
    assert delta == f"between {got.optimistic:.4g} and {got.pessimistic:.4g}"
    assert got.optimistic <= got.point <= got.pessimistic
