"""One d everywhere (issue 34): every page that shows Adult's dimension, and the decision report,
show the same d, with its definition (:mod:`dpcore.datasets.dimension`).

Before, Adult's d read 113 on the home page and in the report (encoded columns, the target's
included), 111 on the logistic regression and masking pages (its predictors) and 114 on the
importance page (with the target's columns and the intercept).
"""

from __future__ import annotations

import html
import re
from functools import partial

import app_support
import pytest
from app_support import captions

from dpcore.datasets import load_scenario
from dpcore.datasets.dimension import Dimension
from dpcore.decision import decide, report_html
from dpcore.studies.home import COLUMNS, D
from dpcore.studies.masking import TASKS

TIMEOUT = 180  # seconds per run: the importance page's first run on Adult fits its replicates
ADULT = load_scenario("adult").dimension
SHOWN = re.compile(r"\bd = ([\d,]+)")

open_page = partial(app_support.open_page, timeout=TIMEOUT, builtin_name="adult")


def shown_d(text: str) -> set[int]:
    """Every "d = N" in ``text``."""
    return {int(value.replace(",", "")) for value in SHOWN.findall(text)}


def page_text(at) -> str:
    """What a page says in words: its markdown (expanders included) and its captions."""
    return " ".join([m.value for m in at.markdown] + [captions(at)])


def test_adult_has_one_d_of_111_features():
    assert ADULT == Dimension(d=111, target_columns=2)
    assert ADULT.text() == ("d = 111 features after encoding (113 encoded columns less the "
                            "target's 2; intercept not counted)")


@pytest.mark.parametrize("page, state", [
    ("pages/home.py", {}),
    ("pages/perturbation.py", {}),
    ("pages/importance.py", {"iw_reps": 20}),
    ("pages/masking.py", {"mk_task": next(k for k, (key, _) in TASKS.items()
                                          if key == "scenario")}),
], ids=lambda value: value if isinstance(value, str) else "")
def test_every_page_shows_adults_d_with_its_definition(page, state):
    at = open_page(page, **state)
    text = page_text(at)
    assert shown_d(text) == {ADULT.d}, (page, text)
    assert ADULT.text() in text
    if page == "pages/home.py":
        summary = at.dataframe[0].value
        assert set(summary[D]) == {ADULT.d} and set(summary[COLUMNS]) == {ADULT.columns}


def test_the_report_shows_the_same_d():
    page = report_html(decide("dpcore/examples/perturbation-adult.json"))
    body = page.split("</head>")[1]  # the report's words, not the plotly.js it embeds
    text = html.unescape(re.sub(r"<[^>]+>", " ", body))
    assert shown_d(text) == {ADULT.d}
    assert ADULT.text() in text
