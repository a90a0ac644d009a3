"""The privacy-audit page's study (:mod:`dpcore.studies.audit`) and figures
(:mod:`dpcore.figures.audit`): one mechanism's audit, its tables, the table of every mechanism
and the one-run audit."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from dpcore import DataError
from dpcore import audit as A
from dpcore.figures import figures
from dpcore.figures.audit import TITLES, context, summary_figure, tradeoff_figure
from dpcore.figures.audit import figures as audit_figures
from dpcore.figures.common import COLORS
from dpcore.planning.tradeoff import dp_tradeoff, tradeoff
from dpcore.releases.catalogue import BROKEN_KEYS, CASE_KEYS, audit_case
from dpcore.runs import RunConfig, run
from dpcore.studies import audit
from dpcore.studies.audit import REFIT_RUNS, Params

SMALL = Params(runs=1000, seed=3)  # a fast audit of the default mechanism (Laplace)


@pytest.fixture(scope="module")
def small():
    return audit.prepare(None, SMALL)


def numbers_in(text: str) -> set[str]:
    return set(re.findall(r"\d[\d,]*(?:\.\d+)?", text))


def test_controls_are_the_page_contract():
    assert audit.CONTROLS == {"au_case": "laplace", "au_epsilon": 1.0, "au_runs": 10_000,
                              "au_confidence": 0.95}
    assert audit.SEED_KEY == "au_seed" and audit.SEED_KEY in audit.DOMAINS
    for key, default in audit.CONTROLS.items():
        assert audit.DOMAINS[key].problem(default) is None


def test_params_round_trip_through_controls():
    params = Params.from_controls({"au_case": "gaussian", "au_epsilon": "0.5", "au_runs": 3000.0,
                                   "iw_epsilon": 9.0}, seed=4)
    assert params == Params(case="gaussian", epsilon=0.5, runs=3000, seed=4)
    assert isinstance(params.runs, int) and isinstance(params.epsilon, float)
    assert Params.from_controls(params.controls(), params.seed) == params


def test_every_control_feeds_the_audit():
    # ε sets the noise the audit draws, so it is part of what prepare reads (nothing is cheap).
    assert Params.CHEAP == ()
    keys = {Params().replace(**change).prepare_key()
            for change in ({}, {"epsilon": 2.0}, {"confidence": 0.9}, {"runs": 1000},
                           {"case": "gaussian"}, {"seed": 1})}
    assert len(keys) == 6


def test_compute_is_at_of_prepare(small):
    computed = audit.compute(None, SMALL)
    staged = audit.at(small, SMALL)
    assert list(computed) == list(staged) == ["metrics", "scores", "points", "curve"]
    for name, table in computed.items():
        pd.testing.assert_frame_equal(staged[name], table)


def test_another_epsilon_is_another_audit(small):
    other = SMALL.replace(epsilon=0.3)
    fresh = audit.compute(None, other)
    staged = audit.at(audit.prepare(None, other), other)
    for name, table in fresh.items():
        pd.testing.assert_frame_equal(staged[name], table)
    assert fresh["metrics"].loc[0, "claimed_epsilon"] == 0.3
    assert not fresh["scores"].equals(audit.at(small, SMALL)["scores"])


def test_a_run_of_the_page_config_is_the_study():
    config = RunConfig("audit", {"builtin_name": "wine"},
                       {"au_case": "gaussian", "au_epsilon": 2.0, "au_runs": 1000,
                        "au_confidence": 0.9}, 6)
    result = run(config)
    params = Params(case="gaussian", epsilon=2.0, runs=1000, confidence=0.9, seed=6)
    assert result.params == params
    for name, table in audit.compute(None, params).items():
        pd.testing.assert_frame_equal(result.numbers[name], table)
    assert list(figures(result)) == ["distributions", "tradeoff"]


def test_metrics_row_is_the_audit(small):
    m = audit.at(small, SMALL)["metrics"].iloc[0]
    case = small.case
    assert m["mechanism"] == case.name == "Laplace" and not m["broken_on_purpose"]
    assert m["claimed_epsilon"] == 1.0 and m["delta"] == 0.0 and m["confidence"] == 0.95
    assert m["audited_lower_bound"] == small.epsilon_lb <= 1.0
    assert m["runs_per_dataset"] == 1000
    assert m["f"] == 1.0 and m["limit_on_this_pair"] == case.pair_limit == 1.0
    assert m["ceiling"] == A.audit_ceiling(1000, 0.95)
    assert (m["threshold"], m["fpr_upper"], m["fnr_upper"]) == (
        small.threshold, small.fpr_upper, small.fnr_upper)
    assert not m["flagged"] and not m["above_claim"]
    assert m["statistic"] == "the output"
    assert m["noise"] == case.noise == "Laplace noise" and m["linear"]
    assert m["limit_note"] == case.limit_note
    assert np.isnan(m["reach"])  # no trade-off function stated for Laplace


def test_scores_are_the_plotted_held_out_scores(small):
    scores = audit.at(small, SMALL)["scores"]
    assert list(scores["dataset"].unique()) == ["D", "D′"]
    assert np.array_equal(scores.loc[scores["dataset"] == "D", "score"], small.scores_d)
    assert np.array_equal(scores.loc[scores["dataset"] == "D′", "score"], small.scores_dprime)


def test_refitting_mechanisms_run_at_most_refit_runs():
    case = audit_case("objective2011", 1.0)
    assert case.refits and audit.runs_for(case, 100_000) == REFIT_RUNS
    assert audit.runs_for(case, 1000) == 1000
    assert audit.runs_for(audit_case("laplace", 1.0), 100_000) == 100_000


def test_a_fault_is_flagged():
    params = Params(case="laplace_halved", runs=10_000)
    m = audit.compute(None, params)["metrics"].iloc[0]
    assert m["broken_on_purpose"] and m["flagged"] and m["audited_lower_bound"] > 1.0
    text = audit.takeaway({"metrics": m.to_frame().T}, params)
    assert "caught a fault" in text


def test_an_unknown_mechanism_is_refused():
    with pytest.raises(DataError, match="Unknown mechanism 'nope'"):
        audit.prepare(None, Params(case="nope"))


def test_takeaway_quotes_the_numbers(small):
    numbers = audit.at(small, SMALL)
    m = numbers["metrics"].iloc[0]
    text = audit.takeaway(numbers, SMALL)
    assert {f"{m['audited_lower_bound']:.2f}", f"{m['limit_on_this_pair']:.2f}", "1,000"} <= (
        numbers_in(text))
    assert text.count(". ") == 1 and text.endswith(".") and "found no fault" in text
    other = SMALL.replace(epsilon=0.3)
    assert audit.takeaway(audit.compute(None, other), other) != text  # nothing canned


def test_case_labels_name_the_faults():
    for key in CASE_KEYS:
        label = audit.case_label(key)
        assert label.startswith("⚠ Broken on purpose: ") == (key in BROKEN_KEYS)
        assert label.endswith(audit_case(key).name)


def test_summary_table_has_one_row_per_audit(small):
    halved = SMALL.replace(case="laplace_halved")
    rows = [audit.at(small, SMALL)["metrics"], audit.compute(None, halved)["metrics"]]
    table = audit.summary_table(rows)
    assert list(table.columns) == ["mechanism", "broken on purpose", "claimed epsilon",
                                   "audited lower bound", "gap", "confidence",
                                   "runs per dataset", "f",
                                   "limit on this pair", "flagged"]
    assert table["broken on purpose"].dtype == bool
    assert list(table["broken on purpose"]) == [False, True]
    assert table.loc[0, "audited lower bound"] == rows[0].loc[0, "audited_lower_bound"]
    fig = summary_figure(table)
    assert list(fig.data[0].x) == [1.0, 1.0]  # claimed
    flagged = table["flagged"].tolist()
    assert list(fig.data[1].marker.color) == [COLORS["output"] if f else COLORS["dp"]
                                              for f in flagged]


def test_one_run_audit_guesses_a_fifth_of_the_canaries():
    one = audit.one_run("primer_count_groups", SMALL, 50)
    assert one.canaries == 50 and one.guesses == 10 and one.epsilon == 1.0
    assert audit.one_run("primer_count_groups", SMALL, 10).guesses == 2
    assert one.correct == audit.one_run("primer_count_groups", SMALL, 50).correct  # seeded


def test_histogram_figure_is_titled_with_its_settings(small):
    numbers = audit.at(small, SMALL)
    fig = audit_figures(numbers, SMALL)["distributions"]
    assert TITLES["distributions"] in fig.layout.title.text
    assert context(numbers) == ("Laplace; ε = 1; 1,000 runs per dataset (half shown after "
                                "choosing the threshold on the other half)")
    d, dprime = fig.data[:2]
    assert (d.name, dprime.name) == ("runs on D", "runs on D′")
    scores = numbers["scores"]["score"]
    lo, hi = np.quantile(scores, [0.002, 0.998])
    assert np.array_equal(d.x, np.clip(small.scores_d, lo, hi))
    assert fig.layout.xaxis.title.text == "score: the output"


# ---------------------------------------------------------------------------- per mechanism
#: The page's defaults for the Gaussian (README / docs/pages.md: ε = 1, 10^4 runs, 95 %, seed 0).
GAUSSIAN = Params(case="gaussian")


@pytest.fixture(scope="module")
def gaussian():
    return audit.compute(None, GAUSSIAN)


def test_the_gaussian_has_a_nonzero_bound_at_the_page_defaults(gaussian):
    # Issue 23: the page read 0.00 here (threshold 9.1, far in the tail). The reach of 10^4
    # runs on correct Gaussian noise is 0.31 and the held-out bound's SD about 0.08
    # (tests/test_audit.py), so a well-placed test reads well above 0 and below the claim.
    m = gaussian["metrics"].iloc[0]
    assert (GAUSSIAN.epsilon, GAUSSIAN.runs, GAUSSIAN.confidence, GAUSSIAN.seed) == (
        1.0, 10_000, 0.95, 0)
    assert 0.0 < m["audited_lower_bound"] < m["claimed_epsilon"]
    assert m["reach"] == pytest.approx(
        A.audit_reach(audit_case("gaussian").tradeoff, 10_000, 0.95, 1e-5))
    assert not m["linear"] and m["noise"] == "Gaussian noise"
    # the chosen test sits where both held-out rates have counts, not in the far tail
    n_test = 5000
    assert min(m["fpr"], 1 - m["fpr"]) * n_test >= 30 and min(m["fnr"], 1 - m["fnr"]) * n_test >= 30


def test_the_gaussian_verdict_says_what_its_runs_can_show(gaussian):
    m = gaussian["metrics"].iloc[0]
    text = audit.verdict(m)
    assert "Laplace" not in text and "Gaussian noise" in text
    assert f"ε = {m['audited_lower_bound']:.2f}" in text
    assert f"would typically show ε ≥ {m['reach']:.2f}" in text and "10,000 runs" in text
    assert m["limit_note"] in text
    takeaway = audit.takeaway(gaussian, GAUSSIAN)
    assert "Laplace" not in takeaway and f"typically show about {m['reach']:.2f}" in takeaway


def test_a_gaussian_the_runs_cannot_see_is_said_plainly():
    # ε = 0.1 with 1,000 runs: the reach is 0 (the noise SD is 31 times the pair's distance),
    # so the verdict says that these runs cannot see it instead of a bare 0.00.
    params = Params(case="gaussian", epsilon=0.1, runs=1000)
    m = audit.compute(None, params)["metrics"].iloc[0]
    assert m["reach"] == 0.0
    assert "cannot see it at these runs" in audit.verdict(m)
    assert audit.reach_sentence(m) in audit.verdict(m)


@pytest.mark.parametrize("key, noise", [
    ("laplace", "Laplace noise"), ("counts_release", "discrete Laplace noise"),
    ("output_release", "L2-Laplace noise drawn as a Gaussian scale mixture"),
    ("input", "L2-Laplace noise"),
    ("exponential", "exponential-mechanism noise"),
    ("selection_exponential", "exponential-mechanism noise")])
def test_the_verdict_names_each_mechanisms_noise(key, noise):
    params = Params(case=key, runs=1000, seed=3)
    numbers = audit.compute(None, params)
    m = numbers["metrics"].iloc[0]
    text = audit.verdict(m)
    assert not m["flagged"] and m["noise"] == noise and m["limit_note"] in text
    assert f"correctly calibrated {noise}" in audit.takeaway(numbers, params)
    assert audit.reach_sentence(m) == ""  # no trade-off function stated
    if "Laplace" in noise:
        assert f"f × ε = {m['limit_on_this_pair']:.2f}" in text
    else:
        assert "Laplace" not in text and "f × ε" not in text


def test_a_flagged_verdict_names_the_noise_and_the_pairs_limit():
    # Importance weights with noise halved (f = 0.64, true loss on the pair 2 f ε = 1.28) at
    # 10^4 runs, seed 0: the bound (0.88) is above the pair's limit f ε but not above the claim,
    # and the verdict says which limit it broke, for L2-Laplace noise.
    params = Params(case="importance_halved", runs=10_000)
    m = audit.compute(None, params)["metrics"].iloc[0]
    text = audit.verdict(m)
    assert m["flagged"] and not m["above_claim"]
    assert text.startswith("The outputs on the two datasets are easier to tell apart than "
                           "correctly calibrated L2-Laplace noise allows on this pair")
    assert f"f × ε = {m['limit_on_this_pair']:.2f}" in text and text.endswith("too weak.")
    halved = audit.compute(None, Params(case="laplace_halved", runs=10_000))["metrics"].iloc[0]
    assert halved["above_claim"] and "than ε = 1 allows" in audit.verdict(halved)


def test_epsilon_delta_curve_is_randomised_response_at_delta_0_and_rises_with_delta():
    fpr = np.linspace(0.0, 1.0, 101)
    randomised_response = np.minimum(1.0, np.minimum(np.e * fpr, 1.0 - (1.0 - fpr) / np.e))
    np.testing.assert_allclose(dp_tradeoff(1.0, fpr, delta=0.0), randomised_response,
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(tradeoff([1.0], fpr, mechanism="pure", method="exact"),
                               randomised_response, rtol=0, atol=1e-12)
    with_delta = dp_tradeoff(1.0, fpr, delta=0.01)
    assert with_delta[0] == 0.01 and np.all(np.diff(with_delta) >= 0)
    assert np.all(with_delta >= dp_tradeoff(1.0, fpr))


@pytest.mark.parametrize(("key", "kind"), [("laplace", "laplace"), ("laplace_halved", "laplace"),
                                           ("exponential", "pure"), ("counts", "pure"),
                                           ("gaussian", "approximate")])
def test_claim_curve_is_laplace_for_one_laplace_number_else_a_worst_case(key, kind):
    case = audit_case(key, 0.5)
    curve = audit.claim_curve(case)
    assert curve.kind == kind and curve.epsilon == 0.5 and curve.delta == case.delta
    fpr = np.array([0.01, 0.1, 0.5])
    expected = (dp_tradeoff(0.5, fpr, delta=case.delta) if kind == "approximate"
                else tradeoff([0.5], fpr, mechanism=kind))
    np.testing.assert_array_equal(curve(fpr), expected)
    assert ("randomised response" in curve.name) == (kind == "pure")


def test_rate_points_are_the_held_out_test_and_its_mirror(small):
    points = audit.rate_points(small, audit.claim_curve(small.case))
    n = SMALL.runs - SMALL.runs // 2
    test, mirror = points.iloc[0], points.iloc[1]
    assert test["fpr"] == pytest.approx(small.fpr) and test["tpr"] == pytest.approx(1 - small.fnr)
    assert mirror["fpr"] == pytest.approx(small.fnr) and mirror["tpr"] == pytest.approx(
        1 - small.fpr)
    level = 1 - (1 - SMALL.confidence) / 2
    got = A.point_against_curve(int(round(small.fpr * n)), n, int(round((1 - small.fnr) * n)),
                                n, audit.claim_curve(small.case), confidence=level)
    assert test["tpr_low"] == got.tpr_low and test["fpr_high"] == got.fpr_high
    assert not points["above"].any()


@pytest.mark.parametrize("key", ["laplace_halved", "norm_from_data", "selection_as-printed"])
def test_broken_cases_lie_above_the_claims_curve(key):
    numbers = audit.compute(None, Params(case=key, runs=10_000))
    m = numbers["metrics"].iloc[0]
    assert m["bug"] and numbers["points"]["above"].any() and m["gap"] < 0
    assert audit.curve_sentence(numbers).startswith("Bug: the test")
    fig = tradeoff_figure(numbers["curve"], numbers["points"], m["curve"])
    bug = [t for t in fig.data if t.name and "a bug" in t.name]
    assert len(bug) == 1 and bug[0].marker.symbol == "x"


def test_correct_laplace_is_within_its_curve_and_the_gap_is_claim_minus_bound(small):
    numbers = audit.at(small, SMALL)
    m = numbers["metrics"].iloc[0]
    assert not m["bug"] and m["gap"] == 1.0 - small.epsilon_lb
    assert "found no bug" in audit.curve_sentence(numbers)
    curve = numbers["curve"]
    assert np.all(np.diff(curve["tpr"]) >= 0) and np.all(curve["tpr"] >= curve["fpr"])
    assert curve.loc[curve["fpr"] == 0.01, "tpr"].iloc[0] <= np.e * 0.01 + 1e-9
    fig = audit_figures(numbers, SMALL)["tradeoff"]
    assert TITLES["tradeoff"] in fig.layout.title.text
    assert len(fig.layout.shapes) == 2  # one Clopper-Pearson box per point


def test_one_run_table_beside_the_many_run_audit_of_each_release():
    outcomes = [audit.one_run(key, SMALL, 50) for key in ("primer_count_groups", "subset_counts")]
    many = {o.audited: audit.prepare(None, SMALL.replace(case=o.audited)) for o in outcomes}
    table = audit.one_run_table(outcomes, many)
    assert list(table["release"]) == [o.name for o in outcomes]
    assert list(table["many-run bound"]) == [many[o.audited].epsilon_lb for o in outcomes]
    assert list(table["one-run bound"]) == [o.epsilon_lb for o in outcomes]
    assert (table["many-run runs"] == 2 * SMALL.runs).all() and (table["one-run runs"] == 1).all()
    assert (table["many-run seconds"] > 0).all() and (table["one-run seconds"] > 0).all()
    assert (table["one-run gap"] == table["claimed epsilon"] - table["one-run bound"]).all()
    assert (table["many-run gap"] == table["claimed epsilon"] - table["many-run bound"]).all()
    assert list(table["right guesses"]) == [f"{o.correct} / 10" for o in outcomes]
    assert not table["above the claim"].any()
    text = audit.threat_models(table)
    assert f"{table['many-run bound'].max():.2f}" in text and "2,000 runs each" in text
    assert f"at most {A.one_run_epsilon(10, 10):.2f}" in text  # every guess right
    assert "50 canaries" in text
