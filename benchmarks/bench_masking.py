"""Speed of masked data generation (Pham et al. Algorithm 1), against baselines in the same run.

Run: ``python benchmarks/bench_masking.py [--naive-samples 40] [--sklearn-fits 95]``. Prints a
markdown table: the project's time (best of 3), the baseline's time measured in this run, and
their ratio (project / baseline; below 1 is faster).

``--walk``: instead, the page's ε slider walked as ``bench_browser.py --fresh`` walks it (the
study of the data-masking page at its defaults, the toy: the first view at ε = 0.1, then each
next slider value in turn), one line of CPU seconds: the first view (``prepare`` and ``at``) and
each move's ``at``. Run it on two checkouts alternately to compare them (issue 35).

- 1,000 masked samples in d = 25 (3 classes, 1,000 private records, eps = 1, lam = 0.5): the
  whole of ``MaskedDataGenerator.fit`` (step-1 fit, noise, 1,000 greedy samples, refit), against
  (a) the same greedy search written as a plain loop over candidates and single gradient steps
  (timed on ``--naive-samples`` samples and scaled to 1,000), and (b) one scikit-learn
  multinomial ``LogisticRegression`` fit of the same data (a unit of work everybody knows).
- The Fig. 5 grid on the toy data (9 epsilons x 50 draws x 4 methods, N = 100, lam = 0.5):
  ``accuracy_vs_epsilon``, against the scikit-learn fits the grid needs (50 non-private, 450 on
  masked sets, 450 on perturbed inputs; ``--sklearn-fits`` of them timed and scaled to 950), which
  excludes generating the masked sets at all.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from sklearn.linear_model import LogisticRegression
from timing import best_of

from dpcore.masking import (
    MaskedDataGenerator,
    accuracy_vs_epsilon,
    masking_objective,
    summed_gradient,
    toy_task,
)
from dpcore.masking.greedy import ARMIJO
from dpcore.studies import masking as study

LAM, SEED = 0.5, 0


def _blobs(n: int, d: int, C: int, rng: np.random.Generator):
    centres = rng.normal(size=(C, d))
    centres *= 0.5 / np.linalg.norm(centres, axis=1, keepdims=True)
    y = np.arange(n) % C
    return centres[y] + 0.1 * rng.standard_normal((n, d)), y


def _naive_greedy(W, G, n_add, C, rng, n_starts=8, max_iter=10):
    """The same search as ``greedy_masked_samples``, one candidate and one step at a time."""
    d = W.shape[1]
    warm = np.zeros(d)
    out = []
    for _ in range(n_add):
        best = (np.inf, None, None)
        for c in range(C):
            for s in range(n_starts):
                if s == 0:
                    x = warm.copy()
                elif s == 1:
                    x = np.zeros(d)
                else:
                    u = rng.standard_normal(d)
                    x = u / np.linalg.norm(u) * rng.random() ** (1 / d)
                f, g = masking_objective(x, c, W, G)
                t = 0.5 / max(np.linalg.norm(g), 1e-12)
                for _ in range(max_iter):
                    x_try = x - t * g
                    nrm = np.linalg.norm(x_try)
                    if nrm > 1:
                        x_try /= nrm
                    f_try, g_try = masking_objective(x_try, c, W, G)
                    if f_try <= f - ARMIJO * np.sum((x_try - x) ** 2) / t:
                        x, f, g, t = x_try, f_try, g_try, 2 * t
                    else:
                        t *= 0.5
                if f < best[0]:
                    best = (f, x, c)
        _, x, c = best
        G = G + summed_gradient(W, x[None], np.array([c]), n_total=0, lam=LAM)
        out.append(x)
        warm = x
    return np.array(out)


def walk() -> None:
    """Print the CPU seconds of the masking page's first view at ε = 0.1 and of each move."""
    first, *moves = study.DOMAINS["mk_epsilon"].options
    params = study.Params(epsilon=first)
    start = time.process_time()
    ready = study.prepare(None, params)
    study.at(ready, params)
    times = [time.process_time() - start]
    for epsilon in moves:
        start = time.process_time()
        study.at(ready, params.replace(epsilon=epsilon))
        times.append(time.process_time() - start)
    print(f"first view {times[0]:.3f} s; moves to ε = "
          + ", ".join(f"{e:g}: {t:.3f}" for e, t in zip(moves, times[1:], strict=True))
          + f" s; median move {statistics.median(times[1:]):.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--naive-samples", type=int, default=40)
    parser.add_argument("--sklearn-fits", type=int, default=95)
    parser.add_argument("--walk", action="store_true",
                        help="time the page's ε walk instead (first view, then every move)")
    args = parser.parse_args()
    if args.walk:
        walk()
        return
    rows = []

    # 1. 1,000 masked samples in d = 25.
    rng = np.random.default_rng(SEED)
    X, y = _blobs(1000, 25, 3, rng)
    t_ours, gen = best_of(lambda: MaskedDataGenerator(1.0, LAM, 1000, rng=SEED, n_classes=3)
                        .fit(X, y))
    W = gen.noisy_coef_
    G0 = 1000 * LAM * W
    k = args.naive_samples
    t_naive, _ = best_of(lambda: _naive_greedy(W, G0, k, 3, np.random.default_rng(1)), repeat=1)
    t_naive *= 1000 / k
    t_sk, _ = best_of(lambda: LogisticRegression(C=1 / (LAM * 1000), fit_intercept=False)
                    .fit(X, y))
    rows.append(("1,000 masked samples, d = 25, C = 3 (whole Algorithm 1)", t_ours,
                 f"plain loop over candidates and steps (x{1000 // k} of {k} samples)", t_naive))
    rows.append(("", t_ours, "one scikit-learn multinomial LogisticRegression fit", t_sk))
    print(f"1,000 samples: gradient norm at w' {gen.gradient_norm_:.2g}, "
          f"||refit - w'|| {gen.refit_distance_:.2g}\n")

    # 2. The Fig. 5 grid on the toy data.
    task = toy_task()
    t_grid, frame = best_of(lambda: accuracy_vs_epsilon(task, n_samples=100, n_draws=50,
                                                      lam=LAM, seed=SEED))
    pool = task.X_pool / task.data_norm
    fits = args.sklearn_fits
    draws = np.random.default_rng(2)

    def sklearn_fits():
        for _ in range(fits):
            idx = draws.choice(pool.shape[0], 100, replace=False)
            LogisticRegression(C=1 / (LAM * 100), fit_intercept=False).fit(pool[idx],
                                                                         task.y_pool[idx])

    t_fits, _ = best_of(sklearn_fits, repeat=1)
    t_fits *= 950 / fits
    rows.append(("Fig. 5 grid, toy: 9 eps x 50 draws x 4 methods, N = 100", t_grid,
                 f"950 scikit-learn fits the grid needs, no generation (x{950 / fits:.0f} of "
                 f"{fits})", t_fits))

    print("| task | ours (s) | baseline | baseline (s) | ratio |")
    print("|---|---|---|---|---|")
    for task_name, t1, base, t2 in rows:
        print(f"| {task_name} | {t1:.3f} | {base} | {t2:.3f} | {t1 / t2:.2f} |")
    masked = frame[frame["method"] == "masked generation"]["mean"].to_numpy()
    print(f"\nFig. 5 masked-generation accuracy, eps 0.1 -> 50: {masked.round(3).tolist()}")


if __name__ == "__main__":
    main()
