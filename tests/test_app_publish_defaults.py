"""A page's default ε publishes within the default session budget (issue 34, item 7): on the
Publish view, a page default above what is left becomes the largest ε within it, with a note;
an ε the user chose stays, and the Publish panel says why it is refused."""

from __future__ import annotations

import app_support
import pytest
from app_support import rerun

from dpcore.masking.experiments import FIG5_EPSILONS
from dpcore.studies.subset import SLIDER_EPSILONS
from ui.budget import DEFAULT_BUDGET

pytestmark = pytest.mark.slow
TIMEOUT = 300
SUBSET = {"builtin_name": "mvn-shift", "sub_grid": "Coarse: 13 sizes over all of E", "sub_reps": 2}
# page, ε key, the page's default ε, its options, the view key, the button key, extra state
PAGES = [
    ("pages/masking.py", "mk_epsilon", 5.0, FIG5_EPSILONS, "mk_view", "publish_masking", {}),
    ("pages/subset.py", "sub_epsilon", 3.0, SLIDER_EPSILONS, "sub_view", "publish_subset",
     SUBSET),
]


@pytest.mark.parametrize(("page", "key", "default", "options", "view", "button", "state"), PAGES)
def test_the_first_publish_at_the_page_default_fits_the_default_budget(
        page, key, default, options, view, button, state):
    assert default > DEFAULT_BUDGET  # what the test is about
    at = app_support.open_page(page, timeout=TIMEOUT, **state)
    assert at.session_state[key] == default  # the study views keep the page's default
    at.button_group(key=view).set_value("publish")
    rerun(at)
    fitted = max(e for e in options if e <= DEFAULT_BUDGET)
    assert at.session_state[key] == fitted
    assert any("remaining budget" in i.value and f"{default:g}" in i.value for i in at.info)
    assert not at.button(key=button).disabled
    at.button(key=button).click()
    rerun(at)
    ledger = at.session_state["_budget_accountant"].ledger
    assert abs(ledger["epsilon"].sum() - fitted) < 1e-9


def test_an_epsilon_the_user_chose_is_not_changed():
    at = app_support.open_page("pages/masking.py", timeout=TIMEOUT)
    at.select_slider(key="mk_epsilon").set_value(2.0)
    rerun(at)
    at.button_group(key="mk_view").set_value("publish")
    rerun(at)
    assert at.session_state["mk_epsilon"] == 2.0
    assert at.button(key="publish_masking").disabled
    assert any("needs ε" in w.value for w in at.warning)
