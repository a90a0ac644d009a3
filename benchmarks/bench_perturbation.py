"""Private logistic regression: speed of a whole epsilon curve, and the default release on Adult.

Run: ``python benchmarks/bench_perturbation.py [--parts speed adult tuned] [--restarts 20]
[--seeds 10] [--save-adult FILE]``. Prints up to three markdown tables (docs/performance.md copies
them).

1. Speed. The separable data of Chaudhuri & Monteleoni Sect. 6 (n = 17,500 training points,
   d = 10, 10,000 test points), lambda = 0.01 (the paper's), 10 epsilons from 0.1 to 10 and 20
   restarts: non-private, output perturbation (one fit reused for every pair), objective
   perturbation 2011 and 2008 (every (epsilon, restart) pair in one batched solve, noise vectors
   stacked as linear terms), with test errors and distances to the non-private fit (the excess
   losses, a page view of their own, are left out). Wall time best of 3, and CPU time. The
   baseline is scikit-learn ``LogisticRegression(C=1/(n lam), fit_intercept=False)`` timed in this
   run (mean of 10 fits), times the number of fits the curve needs (1 + 2 x 200); scikit-learn
   has no linear term, so this is a lower bound on its cost for the same work.
2. Adult (train part -> test part; the arules-style one-hot columns of dpcore.datasets with sex
   kept, 113 columns, every record of norm <= sqrt(12) by construction, data_norm = sqrt(12), no
   intercept: the full one-hot groups already span it). Ours: the library's **default release**,
   ``PrivateLogisticRegression(epsilon, data_norm=sqrt(12), fit_intercept=False,
   classes=(0, 1), rng=seed)`` with its default ``method`` and ``lam="auto"`` (read from the
   class, so this follows the default), mean ± SD of the test error over ``--seeds`` noise draws
   of the release's law; beside it objective perturbation (2011) at its rule, a study that is
   not released, and the non-private fit at its lambda. IBM diffprivlib, which does
   not import beside this project's scikit-learn, is measured on the same matrices by
   ``benchmarks/bench_diffprivlib.py`` (``--save-adult FILE`` writes them); docs/performance.md
   puts the two side by side with both settings named.
3. Adult, tuned against tuned: the default release's lambda chosen on a validation split of the
   training part (80 / 20, the split of ``bench_diffprivlib.py``: never the test part) from
   :data:`TUNING_LAMBDAS`, by the mean validation error over ``--seeds`` draws, then refitted on
   the whole training part and scored on the test part, as ``bench_diffprivlib.py`` tunes
   diffprivlib's C.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from timing import best_of, markdown

from dpcore.datasets.builtin import _adult_encoded, _adult_raw
from dpcore.perturbation import PrivateLogisticRegression
from dpcore.perturbation.amp import amp_coefs
from dpcore.perturbation.experiments import epsilon_curve, lambda_rule, summarise
from dpcore.perturbation.model import TOL, prepare
from dpcore.perturbation.synthetic import synthetic

LAM = 0.01
EPSILONS = np.logspace(-1, 1, 10)
ADULT_EPSILONS = [0.1, 0.5, 1.0, 2.0, 5.0, 10.0]
#: The epsilons and lambdas of the tuned comparison (C = 1/(n lam) spans diffprivlib's grid).
TUNED_EPSILONS = [0.5, 1.0, 2.0]
TUNING_LAMBDAS = (1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1)


def adult_with_sex() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Adult's training and test parts, one-hot (arules items) with sex kept: d = 113."""
    train, test, _ = _adult_encoded("onehot")
    raw_train, raw_test, _ = _adult_raw()
    parts = []
    for enc, raw in ((train, raw_train), (test, raw_test)):
        cols = [c for c in enc.columns if not c.startswith("income")]
        sex = np.c_[(raw["sex"] == "Female").to_numpy(float),
                    (raw["sex"] == "Male").to_numpy(float)]
        parts.append((np.c_[enc[cols].to_numpy(float), sex], enc["income=>50K"].to_numpy()))
    (X, y), (X_test, y_test) = parts
    return X, y, X_test, y_test


def speed(restarts: int) -> pd.DataFrame:
    X, y = synthetic("separable", 17_500, rng=1)
    X_test, y_test = synthetic("separable", 10_000, rng=2)
    def curve():
        return epsilon_curve(X, y, epsilons=EPSILONS, lam=LAM, restarts=restarts,
                             X_test=X_test, y_test=y_test, seed=0, excess=False)

    t_curve, res = best_of(curve)
    cpu0 = time.process_time()
    curve()
    cpu = time.process_time() - cpu0
    n = X.shape[0]
    sk = LogisticRegression(C=1 / (n * LAM), fit_intercept=False, tol=1e-8, max_iter=1000)
    t0 = time.perf_counter()
    for _ in range(10):
        sk.fit(X, y)
    t_sk = (time.perf_counter() - t0) / 10
    fits = 1 + 2 * len(EPSILONS) * restarts
    table = summarise(res).pivot(index="epsilon", columns="method", values="mean")
    print("Mean test error on the separable data (n = 17,500):\n")
    table = table.round(4).reset_index()
    table["epsilon"] = table["epsilon"].map(lambda v: f"{v:.3g}")
    print(markdown(table))
    print()
    return pd.DataFrame([{
        "work": f"epsilon curve: {len(EPSILONS)} epsilons x {restarts} restarts, 4 methods "
                "(n = 17,500, d = 10)",
        "ours (s)": round(t_curve, 3),
        "ours, CPU (s)": round(cpu, 3),
        "scikit-learn (s)": round(t_sk * fits, 3),
        "sklearn fits": fits,
        "ratio": round(t_curve / (t_sk * fits), 4),
        "target": "<= 2 s",
    }])


def adult(seeds: int) -> pd.DataFrame:
    X, y, X_test, y_test = adult_with_sex()
    n, d = X.shape
    norm = math.sqrt(12.0)
    assert np.linalg.norm(X, axis=1).max() <= norm + 1e-12
    default = PrivateLogisticRegression()
    rows = []
    for eps in ADULT_EPSILONS:
        errors, lams = [], set()
        for seed in range(seeds):
            model = PrivateLogisticRegression(epsilon=eps, data_norm=norm, fit_intercept=False,
                                              classes=(0, 1), rng=seed).fit(X, y)
            errors.append(1.0 - model.score(X_test, y_test))
            lams.add(round(model.lam_resolved_, 12))
        lam = lambda_rule(eps, n, d)
        res = epsilon_curve(X, y, epsilons=[eps], lam=lam, restarts=seeds, X_test=X_test,
                            y_test=y_test, data_norm=norm,
                            methods=["non-private", "objective perturbation"], seed=0)
        s = summarise(res).set_index("method")
        release = PrivateLogisticRegression(epsilon=eps, data_norm=norm, fit_intercept=False,
                                            classes=(0, 1))
        t_fit, _ = best_of(lambda release=release: release.fit(X, y))
        rows.append({
            "epsilon": eps,
            f"default release ({default.method}), lambda": ", ".join(f"{v:.2g}" for v in lams),
            "default release: test error (mean ± SD)":
                f"{np.mean(errors):.4f} ± {np.std(errors, ddof=1):.4f}",
            "objective perturbation (2011, a study), lambda rule": f"{lam:.2g}",
            "objective: test error (mean ± SD)": f"{s.loc['objective perturbation', 'mean']:.4f}"
                                                 f" ± {s.loc['objective perturbation', 'std']:.4f}",
            "non-private, objective's lambda": round(s.loc["non-private", "mean"], 4),
            "one release fit (s)": round(t_fit, 3),
        })
    sk = LogisticRegression(C=1.0, max_iter=5000)
    t_sk, _ = best_of(lambda: sk.fit(X, y))
    print(f"scikit-learn LogisticRegression(C=1) on the same data (non-private): test error "
          f"{1 - sk.score(X_test, y_test):.4f}, fit {t_sk:.3f} s.\n")
    return pd.DataFrame(rows)


def _errors(X, y, X_test, y_test, *, epsilon: float, lam: float, seeds: int,
            seed: int = 0) -> np.ndarray:
    """Test errors of ``seeds`` draws of the default release's law at ``lam``: approximate minima
    perturbation (what ``PrivateLogisticRegression(lam=lam, rng=seed)`` fits), the draws solved
    in one batch (:func:`dpcore.perturbation.amp.amp_coefs` with ``size=seeds``)."""
    norm = math.sqrt(12.0)
    prep = prepare(X, y, data_norm=norm, fit_intercept=False, classes=(0, 1))
    W, _ = amp_coefs(prep, epsilon=epsilon, lam=lam, size=seeds, tol=TOL, rng=seed, strict=True)
    Z_test = prepare(X_test, y_test, data_norm=norm, fit_intercept=False, classes=(0, 1)).Z
    return np.mean((Z_test @ W.T > 0) != (y_test[:, None] == 1), axis=0)


def tuned(seeds: int) -> pd.DataFrame:
    """The default release with lambda tuned on a validation split of the training part."""
    X, y, X_test, y_test = adult_with_sex()
    order = np.random.default_rng(0).permutation(X.shape[0])  # bench_diffprivlib.py's split
    cut = int(0.8 * X.shape[0])
    fit, valid = order[:cut], order[cut:]
    rows = []
    for eps in TUNED_EPSILONS:
        scores = {lam: _errors(X[fit], y[fit], X[valid], y[valid], epsilon=eps, lam=lam,
                               seeds=seeds).mean() for lam in TUNING_LAMBDAS}
        best = min(scores, key=scores.get)
        test = _errors(X, y, X_test, y_test, epsilon=eps, lam=best, seeds=seeds, seed=1)
        rows.append({"epsilon": eps, "lambda tuned on validation": best,
                     "validation error": round(scores[best], 4),
                     "test error (mean ± SD)": f"{test.mean():.4f} ± {test.std(ddof=1):.4f}"})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--restarts", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--parts", nargs="*", choices=("speed", "adult", "tuned"),
                        default=["speed", "adult", "tuned"], help="which tables to print")
    parser.add_argument("--save-adult", metavar="FILE",
                        help="write the Adult matrices (X, y, X_test, y_test) to FILE (.npz) for "
                             "benchmarks/bench_diffprivlib.py, and stop")
    args = parser.parse_args()
    if args.save_adult:
        X, y, X_test, y_test = adult_with_sex()
        np.savez_compressed(args.save_adult, X=X, y=y, X_test=X_test, y_test=y_test)
        return
    warnings.simplefilter("error")
    parts = {"speed": lambda: speed(args.restarts), "adult": lambda: adult(args.seeds),
             "tuned": lambda: tuned(args.seeds)}
    for name in args.parts:
        print(markdown(parts[name]()))
        print()


if __name__ == "__main__":
    main()
