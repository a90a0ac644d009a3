"""Which data each choice was tuned on (issue 37 item 5, :mod:`dpcore.decision.tuning`): every
choice of the choose-ε page's views and of each release the decision page weighs, a choice
tuned on D without noise refused with what to do, a DP selection on D charged."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from dpcore.decision import RELEASES, decision_params
from dpcore.decision.tuning import (
    STATUSES,
    TUNED_ON,
    TUNING_COLUMNS,
    _row,
    choose_epsilon_tuning,
    refusal,
    release_tuning,
)
from dpcore.perturbation.experiments import LAMBDA_MODES
from dpcore.studies.choose_epsilon import DATA_TARGETS, TARGETS, VIEWS, Params
from dpcore.validation import DataError


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("route", ["private", "public"])
def test_an_answer_studied_on_d_is_refused_and_every_other_is_free(target, route):
    table = choose_epsilon_tuning(Params(target=target, route=route))
    assert list(table.columns) == TUNING_COLUMNS
    assert set(table["tuned_on"]) <= set(TUNED_ON) and set(table["status"]) <= set(STATUSES)
    on_d = target in DATA_TARGETS and route == "private"
    answer = table.iloc[0]
    assert answer["choice"].startswith("ε") and (answer["status"] == "refused") == on_d
    assert (answer["tuned_on"] == "private data") == on_d
    message = refusal(table)
    assert (message is not None) == on_d
    if on_d:
        assert "public stand-in" in message and "DP pilot release" in message
    # nothing else on the page reads D
    assert (table.iloc[1:]["tuned_on"] != "private data").all()


@pytest.mark.parametrize("view", [v for v in VIEWS if v != "target"])
def test_the_other_views_read_only_your_inputs(view):
    table = choose_epsilon_tuning(Params(view=view))
    assert set(table["tuned_on"]) == {"your inputs"} and refusal(table) is None


def test_an_unknown_view_is_refused():
    with pytest.raises(DataError, match="Unknown view"):
        choose_epsilon_tuning(SimpleNamespace(view="nowhere"))


@pytest.mark.parametrize("page", sorted(RELEASES))
def test_every_release_setting_is_free_but_the_subsets_charged_selection(page):
    table = release_tuning(page, decision_params(page, {}, 0))
    assert table.iloc[0]["choice"] == "ε of the release" and refusal(table) is None
    charged = table[table["status"] == "charged"]
    assert charged["choice"].tolist() == (["the subset size"] if page == "subset" else [])
    assert (table.loc[table["status"] == "free", "tuned_on"] != "private data").all()


@pytest.mark.parametrize("mode, tuned_on", list(zip(LAMBDA_MODES,
                                                     ["your inputs", "your inputs", "public set"],
                                                     strict=True)))
def test_the_perturbation_lambda_follows_its_mode(mode, tuned_on):
    params = decision_params("perturbation", {"lr_lambda_mode": mode}, 0)
    table = release_tuning("perturbation", params).set_index("choice")
    assert table.loc["λ", "tuned_on"] == tuned_on


def test_a_free_choice_on_private_data_cannot_be_written():
    with pytest.raises(ValueError, match="charged or refused"):
        _row("λ", 0.1, "private data", "cross-validated on D")
    with pytest.raises(ValueError, match="Unknown tuning"):
        _row("λ", 0.1, "the internet", "")
    with pytest.raises(DataError, match="No release"):
        release_tuning("primer", Params())
