"""The masking report card: the k-marginal score and the exact-match share against hand-computed
tables (dpcore.masking.marginals), the correlation difference and pMSE on trivial cases
(dpcore.masking.utility), the card's study on the toy (dpcore.masking.card), its figure, and the
decision report's masked-data numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore.decision import synthetic_report
from dpcore.figures.masking_card import card_figure
from dpcore.masking import k_marginal_score, toy_task
from dpcore.masking.card import (
    CARD_METHODS,
    METRICS,
    REFERENCE,
    report_card,
    summarise,
    task_binning,
)
from dpcore.masking.marginals import (
    Binning,
    Column,
    columns_of,
    exact_match_share,
    exact_match_shares,
    k_marginal_scores,
    labelled,
    pair_distances,
)
from dpcore.masking.utility import (
    correlation_differences,
    correlation_gaps,
    correlations,
    propensity_mse,
)
from dpcore.studies import masking as study
from dpcore.validation import DataError

SQUARE = pd.DataFrame({"x": [0, 0, 1, 1], "y": [0, 1, 0, 1]})


def test_k_marginal_of_identical_tables_is_1000_and_of_disjoint_ones_0():
    assert k_marginal_score(SQUARE, SQUARE) == 1000.0
    assert k_marginal_score(SQUARE, pd.concat([SQUARE] * 3).iloc[::-1]) == 1000.0  # same law
    apart = pd.DataFrame({"x": [2, 3], "y": [5, 5]})  # no value of either column is shared
    assert k_marginal_score(SQUARE, apart) == 0.0


def test_k_marginal_against_hand_computed_tables():
    # One pair: the square's four cells have 1/4 each; all masked mass on (0, 0):
    # |1 - 1/4| + 3 * 1/4 = 1.5, score (2 - 1.5) * 500 = 250.
    assert k_marginal_score(SQUARE, pd.DataFrame({"x": [0, 0], "y": [0, 0]})) == 250.0
    # Three columns, pairs (a, b), (a, c), (b, c):
    # original (0,0,1), (1,0,1); masked (0,0,1), (1,1,1).
    # (a, b): {00, 10} vs {00, 11}: |1/2 - 1/2| + 1/2 + 1/2 = 1;  (a, c): equal: 0;
    # (b, c): {01: 1} vs {01: 1/2, 11: 1/2}: 1/2 + 1/2 = 1.  Mean 2/3, score 4/3 * 500.
    original = pd.DataFrame({"a": [0, 1], "b": [0, 0], "c": [1, 1]})
    masked = pd.DataFrame({"a": [0, 1], "b": [0, 1], "c": [1, 1]})
    assert k_marginal_score(original, masked) == pytest.approx(2000.0 / 3.0, abs=1e-9)
    distances = pair_distances(np.array([[0, 0, 1], [1, 0, 1]]),
                               np.array([[0, 0, 1], [1, 1, 1]]), [2, 2, 2])
    assert distances.tolist() == [1.0, 0.0, 1.0]


def test_k_marginal_scores_a_batch_as_it_scores_each_table():
    rng = np.random.default_rng(0)
    original = rng.integers(0, 3, size=(50, 4))
    batch = rng.integers(0, 3, size=(2, 3, 20, 4))
    scores = k_marginal_scores(original, batch, [3, 3, 3, 3])
    assert scores.shape == (2, 3)
    for index in np.ndindex(2, 3):
        assert scores[index] == k_marginal_score(original, batch[index],
                                                 binning=Binning(tuple(
                                                     Column(f"c{j}", "category", (j,), levels=3)
                                                     for j in range(4))))


def test_numeric_columns_bin_into_ten_and_mismatched_tables_are_refused():
    # 11 distinct values over [0, 10]: 10 bins of width 1, the top value in the last bin.
    original = pd.DataFrame({"v": np.arange(11.0), "w": np.zeros(11)})
    shifted = pd.DataFrame({"v": np.arange(11.0) + 0.5, "w": np.zeros(11)})  # range [0, 10.5]
    assert k_marginal_score(original, original) == 1000.0
    assert k_marginal_score(original, shifted) < 1000.0
    with pytest.raises(DataError, match="same columns"):
        k_marginal_score(SQUARE, SQUARE.rename(columns={"y": "z"}))
    with pytest.raises(DataError, match="two columns"):
        k_marginal_score(SQUARE[["x"]], SQUARE[["x"]])


def test_columns_decode_the_encoding():
    onehot = Column("g", "onehot", (0, 1, 2))
    dummy = Column("h", "dummy", (0, 1))
    scaled = Column("s", "scaled", (0,), 0.0, 1.0, levels=4)
    assert onehot.codes(np.array([[0.2, 0.7, 0.1], [1.0, 0.0, 0.0]])).tolist() == [1, 0]
    assert dummy.codes(np.array([[0.3, 0.4], [0.1, 0.6], [0.9, 0.2]])).tolist() == [0, 2, 1]
    assert scaled.codes(np.array([[-3.0], [0.3], [0.99], [7.0]])).tolist() == [0, 1, 3, 3]
    assert (onehot.size, dummy.size, scaled.size) == (3, 3, 4)
    with pytest.raises(ValueError, match="kind"):
        Column("g", "ordinal", (0,))
    with pytest.raises(ValueError, match="no features"):
        Column("g", "binary", ())
    columns = columns_of({"g": ["g=a", "g=b"], "k": ["k"], "t": ["t=1"]},
                         {"g": "onehot", "k": "scaled", "t": "onehot"}, ["k", "g=a", "g=b"])
    assert [(c.name, c.kind, c.index) for c in columns] == [("g", "onehot", (1, 2)),
                                                           ("k", "scaled", (0,))]
    with_label = labelled(Binning(columns, offset=np.zeros(3)), 2)
    assert with_label.sizes.tolist() == [2, 10, 2]
    assert with_label.codes(np.array([[0.55, 0.0, 1.0, 1.0]])).tolist() == [[1, 5, 1]]


def test_exact_match_share_against_hand_computed_tables():
    original = pd.DataFrame({"x": [0, 1], "y": [1, 1]})
    masked = pd.DataFrame({"x": [0, 1, 1, 0, 0], "y": [1, 1, 0, 0, 1]})  # rows 1, 2, 5 match
    assert exact_match_share(original, masked) == pytest.approx(3 / 5)
    assert exact_match_share(original, original) == 1.0
    assert exact_match_share(original, pd.DataFrame({"x": [2], "y": [0]})) == 0.0
    batch = np.array([[[0, 1], [2, 2]], [[1, 1], [0, 1]]])
    assert exact_match_shares(np.array([[0, 1], [1, 1]]), batch).tolist() == [0.5, 1.0]
    # 70 binary columns: 2^70 cells, more than one integer holds (the rows are numbered).
    wide = np.zeros((2, 70), dtype=int)
    wide[1, 69] = 1
    assert exact_match_shares(wide[:1], np.stack([wide, wide[::-1]])).tolist() == [0.5, 0.5]


def test_correlation_difference_and_pmse_are_perfect_for_identical_tables():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3)) @ np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 0.3], [0, 0, 1]])
    assert correlation_differences(X, X) == pytest.approx(0.0, abs=1e-12)
    assert correlation_differences(X, np.stack([X, X])).shape == (2,)
    # Flip the sign of one feature: its two correlations change sign, the third stays.
    flipped = X * [1.0, 1.0, -1.0]
    corr = np.corrcoef(X, rowvar=False)
    expected = 2.0 * (abs(corr[0, 2]) + abs(corr[1, 2])) / 3.0
    assert float(correlation_differences(X, flipped)) == pytest.approx(expected, rel=1e-9)
    assert float(propensity_mse(X, X)) == pytest.approx(0.0, abs=1e-12)
    # Sets the model separates: p near 0 and 1, pMSE near c (1 - c) = 0.25.
    assert float(propensity_mse(X, X + 50.0)) == pytest.approx(0.25, abs=0.01)
    # Same mean, three times the spread: the squares see it.
    wide = rng.normal(size=(300, 3)) * 3.0
    assert float(propensity_mse(rng.normal(size=(300, 3)), wide)) > 0.05


def test_correlation_gaps_from_the_reference_equal_the_differences_bit_for_bit():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(50, 3))
    masked = rng.normal(size=(2, 4, 30, 3))  # leading axes: ε, repetitions
    assert np.array_equal(correlation_gaps(correlations(X), masked),
                          correlation_differences(X, masked))


def test_summarise_gives_the_middle_95_percent():
    values = np.arange(41.0)  # quantiles 0.025 and 0.975 of 0..40 are 1 and 39
    assert summarise(values) == pytest.approx({"mean": 20.0, "low": 1.0, "high": 39.0})


def test_report_card_on_the_toy_is_seeded_complete_and_perfect_for_the_private_sample():
    task = toy_task()  # 100 private records: the private sample is all of them
    seen = []
    kwargs = {"n": 150, "lam": 0.5, "epsilons": (1.0, 50.0), "repetitions": 3, "seed": 4}
    card = report_card(task, **kwargs, progress=lambda f, text: seen.append(f))
    assert seen[-1] == 1.0 and seen == sorted(seen)
    assert len(card) == len(METRICS) * (1 + 2 * len(CARD_METHODS))
    assert set(card["method"]) == {*CARD_METHODS, REFERENCE}
    reference = card[card["method"] == REFERENCE].set_index("metric")["mean"]
    assert reference["k_marginal"] == 1000.0
    assert reference["exact_match_share"] == 1.0
    assert reference["correlation_difference"] == pytest.approx(0.0, abs=1e-12)
    assert reference["pmse"] == pytest.approx(0.0, abs=1e-12)
    assert (card["low"] <= card["mean"] + 1e-12).all() and (card["mean"] <= card["high"]
                                                             + 1e-12).all()
    pd.testing.assert_frame_equal(card, report_card(task, **kwargs))  # seeded
    # Input perturbation at ε = 50 keeps records near their cells; at ε = 1 the noise (norm
    # ~ 2 d / ε times the domain bound) scatters them: its k-marginal score rises with ε.
    k = card[(card["metric"] == "k_marginal") & (card["method"] == "input perturbation")]
    assert k.sort_values("epsilon")["mean"].is_monotonic_increasing


def test_report_card_refuses_tables_too_small():
    with pytest.raises(DataError, match="at least 2 records"):
        report_card(toy_task(), n=1, lam=0.5, repetitions=2)
    with pytest.raises(DataError, match="at least 2"):
        report_card(toy_task(), n=50, lam=0.5, repetitions=1)


def test_task_binning_uses_the_public_columns():
    toy = task_binning(toy_task())
    assert [c.name for c in toy.columns] == ["x1", "x2"]
    assert (toy.columns[0].low, toy.columns[0].high) == (-2.5, 3.0)


def test_the_card_view_computes_the_card_and_draws_five_panels():
    params = study.Params(view=study.CARD, n=150)
    numbers = study.compute(None, params)
    card = numbers["report_card_nonprivate"]
    assert set(card["metric"]) == set(METRICS) and card["repetitions"].eq(20).all()
    fig = card_figure(card, epsilon=5.0, majority=0.4)
    titles = [a.text for a in fig.layout.annotations]
    assert len(titles) == len(METRICS)
    names = {trace.name for trace in fig.data if trace.showlegend is not False}
    assert {*CARD_METHODS, REFERENCE} <= names
    assert any(name.startswith("majority class") for name in names)


def test_the_decision_report_scores_k_marginal_and_exact_matches():
    rng = np.random.default_rng(2)
    X = rng.uniform(size=(300, 3))
    y = (X[:, 0] > 0.5).astype(int)
    same = synthetic_report(X, y, X, y, X, y)["synthetic_summary"].iloc[0]
    assert same["k_marginal_nonprivate"] == 1000.0
    assert same["exact_match_share_nonprivate"] == 1.0
    flipped = synthetic_report(1.0 - X, 1 - y, X, y, X, y)["synthetic_summary"].iloc[0]
    assert flipped["k_marginal_nonprivate"] < 1000.0
    binning = Binning(tuple(Column(f"x{j}", "binary", (j,)) for j in range(3)))
    # Every shifted record bins to (1, 1, 1) (each feature cut at 0.5): with its label, a real
    # record only when y = 1 (a real (1, 1, 1) has y = 1, and the 300 real records hold one).
    apart = synthetic_report(X + 5.0, y, X, y, X, y, binning=binning)["synthetic_summary"]
    assert (X > 0.5).all(axis=1).any()
    assert apart["exact_match_share_nonprivate"].iloc[0] == pytest.approx(np.mean(y == 1))
