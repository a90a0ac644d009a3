"""The home page's study (:mod:`dpcore.studies.home`) and figure (:mod:`dpcore.figures.home`):
a study without controls or seed, E's and D's summaries and feature means."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest

from dpcore.datasets import load_scenario
from dpcore.figures import figures
from dpcore.figures.home import TITLES, mean_difference_figure
from dpcore.figures.home import figures as home_figures
from dpcore.runs import RunConfig, run
from dpcore.studies import home
from dpcore.studies.home import COLUMNS, PRIVATE_LABEL, PUBLIC_LABEL, TOP_FEATURES, D, Params


@pytest.fixture(scope="module")
def wine():
    return load_scenario("wine")


@pytest.fixture(scope="module")
def numbers(wine):
    return home.compute(wine, Params())


def test_params_have_no_controls_and_no_seed_key():
    assert home.CONTROLS == {} and home.DOMAINS == {}
    assert home.SEED_KEY is None and Params.seed_key() is None
    params = Params.from_controls({"au_epsilon": 2.0, "other": 1}, seed=3)
    assert params == Params(seed=3) and params.controls() == {}
    assert Params.from_controls(params.controls(), params.seed) == params


def test_compute_is_at_of_prepare(wine, numbers):
    again = home.at(home.prepare(wine, Params()), Params())
    assert list(again) == list(numbers) == ["summary", "feature_means"]
    for name, table in numbers.items():
        pd.testing.assert_frame_equal(again[name], table)


def test_a_run_of_the_page_config_is_the_study(wine, numbers):
    result = run(RunConfig("home", {"builtin_name": "wine"}, {}, 0))
    assert result.params == Params()
    for name, table in numbers.items():
        pd.testing.assert_frame_equal(result.numbers[name], table)
    assert result.takeaway() == home.takeaway(numbers, Params())
    assert list(figures(result)) == ["feature_means"]


def test_summary_counts_both_sets_and_the_target_rate(wine, numbers):
    summary = numbers["summary"].set_index("set")
    assert list(summary.index) == [PUBLIC_LABEL, PRIVATE_LABEL]
    assert "non-private" in PRIVATE_LABEL  # D read without noise is never called a release
    assert list(summary["records"]) == [len(wine.public), len(wine.private)]
    assert list(summary[D]) == [wine.d, wine.d] == [13, 13]  # d: features, the target aside
    assert list(summary[COLUMNS]) == [16, 16]  # and the target's 3 one-hot columns
    assert summary["target rate"].tolist() == [wine.public[wine.target].mean(),
                                              wine.private[wine.target].mean()]


def test_no_target_no_target_rate(wine):
    numbers = home.compute(dataclasses.replace(wine, target=None), Params())
    assert "target rate" not in numbers["summary"]
    assert wine.target in set(numbers["feature_means"]["feature"])  # now a plain feature
    text = home.takeaway(numbers, Params())
    assert "target" not in text and text.endswith(".")


def test_feature_means_are_largest_difference_first(wine, numbers):
    means = numbers["feature_means"]
    assert sorted(means["feature"]) == sorted(wine.predictors)
    assert wine.target not in set(means["feature"])
    row = means.set_index("feature").loc[wine.predictors[0]]
    assert row[PUBLIC_LABEL] == wine.public[wine.predictors[0]].mean()
    assert row[PRIVATE_LABEL] == wine.private[wine.predictors[0]].mean()
    assert np.array_equal(means["difference E - D"], means[PUBLIC_LABEL] - means[PRIVATE_LABEL])
    gaps = means["difference E - D"].abs().to_numpy()
    assert (np.diff(gaps) <= 0).all()


def test_takeaway_quotes_the_numbers(numbers):
    text = home.takeaway(numbers, Params())
    summary = numbers["summary"].set_index("set")
    top = numbers["feature_means"].iloc[0]
    assert f"{int(summary.loc[PUBLIC_LABEL, 'records']):,} records" in text
    assert f"{summary.loc[PRIVATE_LABEL, 'target rate']:.1%}" in text
    assert top["feature"] in text
    assert {f"{top[PUBLIC_LABEL]:.3f}", f"{top[PRIVATE_LABEL]:.3f}"} <= set(
        re.findall(r"\d+\.\d+", text))
    assert text.count(". ") == 1 and text.endswith(".")


def test_figure_shows_the_top_features_titled(numbers):
    (name, fig), = home_figures(numbers, Params()).items()
    assert name == "feature_means"
    assert fig.layout.title.text == TITLES["feature_means"]
    shown = numbers["feature_means"].head(TOP_FEATURES)
    assert [trace.name for trace in fig.data] == [PUBLIC_LABEL, PRIVATE_LABEL]
    assert list(fig.data[0].y) == list(shown["feature"])
    assert np.array_equal(fig.data[1].x, shown[PRIVATE_LABEL])


def test_figure_escapes_feature_names():
    means = pd.DataFrame({"feature": ["<b>x</b>"], PUBLIC_LABEL: [0.5], PRIVATE_LABEL: [0.2],
                          "difference E - D": [0.3]})
    fig = mean_difference_figure(means)
    assert fig.data[0].y == ("&lt;b&gt;x&lt;/b&gt;",)
