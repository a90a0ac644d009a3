"""Defaults of the release objects on a typical table (issue 23, "a library whose defaults work").

A scikit-learn user calls ``MaskedDataGenerator(epsilon).fit(X, y)`` without reading the paper:
``lam="auto"`` must give a model clearly better than always guessing the majority class, and a
call whose model cannot place a threshold (features all >= 0, no centre) must say what to pass.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from dpcore.masking import MaskedDataGenerator, NoInterceptWarning, auto_lambda

SEEDS = range(5)


def _split(scaler):
    bc = load_breast_cancer()
    Xtr, Xte, ytr, yte = train_test_split(bc.data, bc.target, test_size=0.3, random_state=0,
                                          stratify=bc.target)
    scaler.fit(Xtr)  # stands in for scaling by public ranges / statistics
    return scaler.transform(Xtr), scaler.transform(np.clip(Xte, Xtr.min(0), Xtr.max(0))), ytr, yte


def _advantage(Xtr, Xte, ytr, yte, epsilon, **kw):
    """Mean accuracy over the seeds minus the majority rate, and its standard error."""
    acc = np.array([np.mean(MaskedDataGenerator(epsilon, rng=s, n_classes=2, **kw)
                            .fit(Xtr, ytr).predict(Xte) == yte) for s in SEEDS])
    majority = np.bincount(yte).max() / len(yte)
    return acc.mean() - majority, acc.std(ddof=1) / np.sqrt(len(acc))


@pytest.mark.parametrize("scaler, epsilon, center", [
    (StandardScaler(), 1.0, None),   # standardised: the default centre (the origin) fits
    (MinMaxScaler(), 5.0, 0.5),      # [0, 1] by known ranges: centre at the domain's midpoint
])
def test_default_masked_model_beats_the_majority_class(scaler, epsilon, center):
    # The advantage must exceed three standard errors of the seeds' spread (about 0.1 % one-sided
    # under a normal law).
    Xtr, Xte, ytr, yte = _split(scaler)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoInterceptWarning)
        gain, se = _advantage(Xtr, Xte, ytr, yte, epsilon, center=center)
    assert gain > 3 * se
    assert gain > 0


def test_auto_lambda_reads_only_n_d_and_epsilon():
    Xtr, _, ytr, _ = _split(StandardScaler())
    gen = MaskedDataGenerator(1.0, rng=0, n_classes=2, n_samples=20).fit(Xtr, ytr)
    n, d = Xtr.shape
    assert gen.lam_ == auto_lambda(1.0, n, d) == pytest.approx(0.5 * (d / n) ** (2 / 3))
    assert auto_lambda(1.0, 10, 10_000) == 0.5 and auto_lambda(1e6, 10**9, 1) == 1e-4


def test_uncentred_positive_features_get_a_message_saying_what_to_pass():
    Xtr, _, ytr, _ = _split(MinMaxScaler())
    with pytest.warns(NoInterceptWarning, match=r"Pass center=.*center=0\.5"):
        MaskedDataGenerator(1.0, rng=0, n_classes=2, n_samples=20).fit(Xtr, ytr)


def test_one_hot_columns_carry_their_own_intercept_and_raise_no_warning():
    rng = np.random.default_rng(0)
    X = np.eye(3)[rng.integers(0, 3, 200)]  # one group of one-hot columns: rows sum to 1
    y = (X[:, 0] == 1).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoInterceptWarning)
        MaskedDataGenerator(1.0, rng=0, n_classes=2, n_samples=20).fit(X, y)


def test_center_is_used_in_original_units():
    Xtr, _, ytr, _ = _split(MinMaxScaler())
    gen = MaskedDataGenerator(5.0, rng=1, n_classes=2, center=0.5, n_samples=30).fit(Xtr, ytr)
    assert np.all(np.linalg.norm(gen.masked_X_ - 0.5, axis=1) <= gen.data_norm + 1e-9)
    assert np.array_equal(gen.center_, np.full(Xtr.shape[1], 0.5))


@pytest.mark.parametrize("kw, match", [
    ({"lam": "paper"}, r"pass lam='auto'"),
    ({"center": [0.5, 0.5]}, r"one public value per feature, e\.g\. center=0\.5"),
])
def test_bad_calls_say_what_to_pass(kw, match):
    Xtr, _, ytr, _ = _split(MinMaxScaler())
    with pytest.raises(ValueError, match=match):
        MaskedDataGenerator(1.0, rng=0, n_classes=2, **kw).fit(Xtr, ytr)
