"""IBM diffprivlib's LogisticRegression on the Adult matrices of bench_perturbation.py: at its
default C and with C tuned on a validation split of the training part (never on the test part).

diffprivlib 0.6.6 does not import beside the scikit-learn this project installs, so it runs in
an environment of its own, on matrices that ``bench_perturbation.py`` saves::

    python benchmarks/bench_perturbation.py --save-adult /tmp/adult.npz   # this project's env
    python -m venv /tmp/dpl && /tmp/dpl/bin/pip install diffprivlib==0.6.6 "scikit-learn<1.6"
    /tmp/dpl/bin/python benchmarks/bench_diffprivlib.py /tmp/adult.npz [--seeds 20]

Settings, as ``bench_perturbation.py`` runs ours: Adult's training part (32,561 rows, one-hot
arules items with sex kept, 113 columns, every record of norm <= sqrt(12)), ``data_norm =
sqrt(12)``, scored on Adult's test part (16,281 rows); diffprivlib's own defaults otherwise
(``fit_intercept=True``). Its noise is numpy's floating-point Laplace/Gaussian sampling, which is
not float-safe (Mironov 2012); this project's release noise is (docs/privacy.md).

* **default**: ``C = 1`` (diffprivlib's default), mean ± SD of the test error over ``--seeds``.
* **tuned on validation**: for each ε, the training part is split 80 / 20 (seeded), every C of
  :data:`CS` is scored on the 20 % by the mean over ``--seeds`` fits on the 80 %, and the best
  C is refitted on the whole training part and scored on the test part. Tuning reads the
  private training data without noise, as tuning the other side's λ would: a like-for-like
  setting, not a private one.
"""

from __future__ import annotations

import argparse
import math
import warnings

import numpy as np
from diffprivlib.models import LogisticRegression

EPSILONS = (0.5, 1.0, 2.0)
CS = (1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1.0)
NORM = math.sqrt(12.0)


def errors(X, y, X_test, y_test, *, epsilon: float, C: float, seeds: int) -> np.ndarray:
    """Test error of ``seeds`` diffprivlib fits (random_state 0, 1, ...)."""
    out = []
    for seed in range(seeds):
        model = LogisticRegression(epsilon=epsilon, data_norm=NORM, C=C, random_state=seed,
                                   max_iter=1000)
        model.fit(X, y)
        out.append(1.0 - model.score(X_test, y_test))
    return np.array(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("matrices", help="the .npz that bench_perturbation.py --save-adult wrote")
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # diffprivlib's PrivacyLeakWarning-free path still warns
    data = np.load(args.matrices)
    X, y, X_test, y_test = data["X"], data["y"], data["X_test"], data["y_test"]
    order = np.random.default_rng(0).permutation(X.shape[0])
    cut = int(0.8 * X.shape[0])
    fit, valid = order[:cut], order[cut:]
    print("| ε | diffprivlib default C = 1 (mean ± SD) | C tuned on validation | "
          "tuned: test error (mean ± SD) | validation error at the chosen C |")
    print("|---|---|---|---|---|")
    for epsilon in EPSILONS:
        default = errors(X, y, X_test, y_test, epsilon=epsilon, C=1.0, seeds=args.seeds)
        scores = {C: errors(X[fit], y[fit], X[valid], y[valid], epsilon=epsilon, C=C,
                            seeds=args.seeds).mean() for C in CS}
        best = min(scores, key=scores.get)
        tuned = errors(X, y, X_test, y_test, epsilon=epsilon, C=best, seeds=args.seeds)
        print(f"| {epsilon:g} | {default.mean():.4f} ± {default.std(ddof=1):.4f} | {best:g} | "
              f"{tuned.mean():.4f} ± {tuned.std(ddof=1):.4f} | {scores[best]:.4f} |")


if __name__ == "__main__":
    main()
