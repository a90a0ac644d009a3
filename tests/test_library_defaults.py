"""Defaults of the release objects on a typical table (issue 23, "a library whose defaults work").

A scikit-learn user calls ``MaskedDataGenerator(epsilon).fit(X, y)`` without reading the paper:
``lam="auto"`` must give a model clearly better than always guessing the majority class, and a
call whose model cannot place a threshold (features all >= 0, no centre) must say what to pass.
``ImportanceWeights().fit(D, E)`` (epsilon = 1, ``lam="auto"``) must beat the unweighted public
mean on a biased public split of a small table.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from dpcore.importance import (
    AUTO_LOG_WEIGHT_NOISE,
    ImportanceWeights,
    balanced_fit,
    typical_log_weight_noise,
)
from dpcore.importance import auto_lambda as iw_auto_lambda
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


@pytest.mark.slow  # fits and masks a whole table at each setting
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


# --------------------------------------------------------------------------------------------
# ImportanceWeights (Ji & Elkan 2013): epsilon = 1 and lam="auto" by default
# --------------------------------------------------------------------------------------------
IW_SEEDS = range(100)  # noise draws only: step 1 is fitted once


def _biased_breast_cancer():
    """Breast cancer in [0, 1] by its ranges, the public part biased towards small radius.

    Returns private and public records and the benign indicator on each (truth about 0.51,
    unweighted public mean about 0.79).
    """
    bc = load_breast_cancer()
    X, y = MinMaxScaler().fit_transform(bc.data), bc.target.astype(float)
    rng = np.random.default_rng(0)
    public = rng.random(len(y)) < np.where(X[:, 0] < np.median(X[:, 0]), 0.7, 0.2)
    return X[~public], X[public], y[~public], y[public]


def test_default_importance_weights_beat_the_public_mean_on_a_biased_table():
    # Gain of a seed = error of the unweighted public mean - error of the weighted estimate. The
    # mean gain must exceed three standard errors of the seeds' spread (about 0.1 % one-sided
    # under a normal law). The rule holds the log-weight noise near AUTO_LOG_WEIGHT_NOISE = s, so
    # the weights' SD should stay near a log-normal's sqrt(e^(s^2) - 1) (1.31), not the 12 of
    # lam = 0.1 at epsilon = 0.1.
    D, E, b_D, b_E = _biased_breast_cancer()
    truth, public_error = b_D.mean(), abs(b_E.mean() - b_D.mean())
    step1 = balanced_fit(D, E, iw_auto_lambda(E, len(D), 1.0))
    fits = [ImportanceWeights(rng=s).fit(D, E, step1=step1) for s in IW_SEEDS]
    gain = public_error - np.array([abs(iw.estimate(b_E) - truth) for iw in fits])
    assert gain.mean() > 3 * gain.std(ddof=1) / np.sqrt(len(gain))
    assert np.mean([iw.weights_.std() for iw in fits]) < np.sqrt(np.expm1(AUTO_LOG_WEIGHT_NOISE**2))


def test_auto_lambda_is_the_documented_rule_and_reads_no_private_data():
    D, E, _, _ = _biased_breast_cancer()
    iw = ImportanceWeights(rng=0).fit(D, E)
    n_D, d = D.shape[0], D.shape[1] + 1  # the intercept counts in d
    assert iw.epsilon == 1.0 and iw.lam_ == iw_auto_lambda(E, n_D, 1.0)
    # The noise moves a typical public log-weight by AUTO_LOG_WEIGHT_NOISE ...
    assert typical_log_weight_noise(E, n_D, iw.lam_, 1.0) == pytest.approx(
        AUTO_LOG_WEIGHT_NOISE, rel=1e-9)
    # ... which, without the solver term (0.1 % here), is lam = d rms||x|| / (N_D eps limit).
    rms = np.sqrt(np.mean(np.sum(E**2, axis=1) + 1.0))
    assert iw.lam_ == pytest.approx(d * rms / (n_D * AUTO_LOG_WEIGHT_NOISE), rel=0.01)
    other_private = np.random.default_rng(1).random(D.shape)  # same N_D, other records
    assert ImportanceWeights(rng=0).fit(other_private, E).lam_ == iw.lam_
    assert ImportanceWeights(lam=0.3, rng=0).fit(D, E).lam_ == 0.3


@pytest.mark.parametrize("lam, error", [
    ("paper", ValueError), (-1.0, ValueError), (None, TypeError)])
def test_a_bad_importance_lambda_says_what_to_pass(lam, error):
    D, E, _, _ = _biased_breast_cancer()
    with pytest.raises(error, match=r"[Pp]ass lam='auto'.* a number > 0, e\.g\. lam=0\.1"):
        ImportanceWeights(lam=lam, rng=0).fit(D, E)
