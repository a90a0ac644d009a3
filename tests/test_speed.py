"""Speed as a ratio against scikit-learn measured in the same run (never a bare time).

The full benchmark is ``benchmarks/bench_importance.py`` (about 130-200x here); this guard uses 5
scikit-learn fits, extrapolated to 100, and fails only on a regression of 4x or more.
"""

import time

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from dpcore.datasets import load_scenario
from dpcore.importance import BootstrapStudy
from dpcore.logistic import logistic_objective

pytestmark = pytest.mark.slow  # timings against scikit-learn: outside the edit-test loop

SKLEARN_FITS, REPS, LAM = 5, 100, 0.1


def test_batched_bootstrap_fits_beat_sequential_sklearn_by_30x():
    sc = load_scenario("adult")
    study = BootstrapStudy(sc.private, sc.public, REPS, rng=0)
    ours = np.inf
    for _ in range(3):  # the fastest of three: a busy neighbour (another test worker) slows one
        start = time.perf_counter()
        coefs = study.problem.fit(lam=LAM, tol=1e-10)
        ours = min(ours, time.perf_counter() - start)

    X, y, S = study.problem.design.X, study.problem.y, study.problem.S
    start = time.perf_counter()
    for r in range(1, SKLEARN_FITS + 1):
        sk = LogisticRegression(C=1 / LAM, fit_intercept=False, tol=1e-8, max_iter=10_000)
        sk.fit(X, y, sample_weight=S[:, r])
        # Same objective; ours is certified within 1e-10 x total weight (2) of the optimum.
        assert logistic_objective(coefs[r], X, y, S[:, r], lam=LAM) <= (
            logistic_objective(sk.coef_[0], X, y, S[:, r], lam=LAM) + 2e-10)
    sklearn = (time.perf_counter() - start) * (REPS + 1) / SKLEARN_FITS
    assert sklearn / ours > 30, f"ours {ours:.3f} s, sklearn {sklearn:.3f} s"
    assert np.isfinite(coefs).all()
