"""Benchmark: how fast each target of the "Choose epsilon" page is answered on built-in data.

For every target type it times (best of ``--repeat``) the answer as the page computes it, given
what the page caches (the bootstrap fits, the variance terms, a study's curve), the one-off study
that fills that cache, and a baseline measured in the same run:

* closed forms (Laplace, Gaussian): a naive Monte-Carlo search (10^5 noise draws at each of 200
  epsilons on a log grid, the smallest epsilon whose share within the error reaches the level);
* importance weights, Monte Carlo: the same fits read on a dense grid of 61 epsilons (no
  bisection);
* importance weights, Theorem 2: the dense-grid Monte-Carlo answer (what one would do without
  the closed form);
* logistic regression and the optimal subset: answering without the cached curve (the study run
  again for the target).

Prints a markdown table (ratio = baseline / answer). Run: ``python benchmarks/bench_planning.py``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
from timing import best_of

from dpcore.datasets import load_scenario
from dpcore.importance import BootstrapStudy, variance_terms
from dpcore.mechanisms import Gaussian, Laplace
from dpcore.perturbation.experiments import scenario_arrays
from dpcore.planning import (
    COARSE_GRID,
    epsilon_for_gaussian,
    epsilon_for_importance_theory,
    epsilon_for_laplace,
    epsilon_from_curve,
    importance_errors,
    logistic_errors,
    search_epsilon,
    subset_errors,
)
from dpcore.queries import indicator
from dpcore.subset import rescale, scenario_arguments


def naive_noise_search(mech: Callable[[float], object], error: float, level: float) -> float:
    rng = np.random.default_rng(0)
    for eps in np.geomspace(0.01, 100, 200):
        noise = mech(float(eps)).randomise(np.zeros(100_000), rng=rng)
        if np.mean(np.abs(noise) <= error) >= level:
            return float(eps)
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--restarts", type=int, default=3, help="logistic regression restarts")
    args = parser.parse_args()
    rows = []

    def row(target, data, answer_s, study_s, baseline, base_s, result):
        rows.append((target, data, answer_s, study_s, baseline, base_s, result))

    # closed forms
    t, eps = best_of(lambda: epsilon_for_laplace(1.0, 10.0, 0.95), args.repeat)
    tb, naive = best_of(lambda: naive_noise_search(lambda e: Laplace(e, 1.0), 10.0, 0.95), 1)
    row("count ±10 at 95 %, Laplace", "none (closed form)", t, 0.0,
        "MC search, 200 ε × 10^5 draws", tb, f"ε = {eps:.4g} (naive {naive:.3g})")
    t, eps = best_of(lambda: epsilon_for_gaussian(1.0, 10.0, 0.95, delta=1e-6), args.repeat)
    tb, naive = best_of(lambda: naive_noise_search(lambda e: Gaussian(e, 1e-6, 1.0), 10.0,
                                                   0.95), 1)
    row("count ±10 at 95 %, Gaussian δ = 1e-6", "none (closed form)", t, 0.0,
        "MC search, 200 ε × 10^5 draws", tb, f"ε = {eps:.4g} (naive {naive:.3g})")

    # importance weights on Adult
    sc = load_scenario("adult")
    q = indicator((sc.target, "==", 1))
    b_D, b_E = q.evaluate(sc.private), q.evaluate(sc.public)
    truth = float(b_D.mean())
    t_fit, fits = best_of(lambda: BootstrapStudy(sc.private, sc.public, 100, rng=0).fit(0.1), 1)

    def mc():
        return search_epsilon(lambda e: importance_errors(fits, b_E, truth, e), 0.05,
                              statistic=0.95, rng=0)

    dense = np.geomspace(0.01, 10, 61)

    def mc_dense():
        return epsilon_from_curve(dense, importance_errors(fits, b_E, truth, dense), 0.05,
                                  statistic=0.95, rng=0)

    t, ans = best_of(mc, args.repeat)
    tb, base = best_of(mc_dense, 1)
    row("importance weights ±0.05 at 95 %, Monte Carlo", "Adult, λ = 0.1, 100 reps", t, t_fit,
        "dense grid, 61 ε", tb,
        f"ε = {ans.epsilon:.3g} [{ans.low:.3g}, {ans.high:.3g}], {len(ans.curve)} ε "
        f"(dense: {base.epsilon:.3g})")
    t_terms, terms = best_of(lambda: variance_terms(sc.private, sc.public, q, 0.1,
                                                    beta0=fits.coef_full), 1)
    t, ans = best_of(lambda: epsilon_for_importance_theory(terms, 0.05, kind="plugin"),
                     args.repeat)
    row("importance weights ±0.05 at 95 %, Theorem 2 plug-in", "Adult, λ = 0.1", t, t_terms,
        "dense-grid Monte Carlo", tb,
        f"ε = {ans.epsilon:.3g}" if ans.met else "not reachable")

    # logistic regression on Adult (train part -> test part)
    arrays = scenario_arrays(sc)
    public = scenario_arrays(sc, part="public")

    def lr_curve():  # the default release, at the λ it picks on E
        return logistic_errors(arrays.X, arrays.y, COARSE_GRID, X_test=arrays.X_test,
                               y_test=arrays.y_test, restarts=args.restarts,
                               data_norm=arrays.data_norm, X_pub=public.X, y_pub=public.y,
                               classes=public.classes, seed=0)

    t_curve, values = best_of(lr_curve, 1)
    t, ans = best_of(lambda: epsilon_from_curve(COARSE_GRID, values, 0.17, rng=0), args.repeat)
    row("logistic regression, test error ≤ 0.17", f"Adult, {args.restarts} restarts", t,
        t_curve, "curve run again", t_curve + t,
        f"ε = {ans.epsilon:.3g} [{ans.low:.3g}, {ans.high:.3g}]")

    # optimal subset on the paper's simulation
    mvn = load_scenario("mvn-shift")
    data = rescale(mvn.private, mvn.public, **scenario_arguments(mvn))
    sizes = np.array([10, 30, 100, 300, 600, 1000, 1500, 2000, 3000, 4000, 6000, 8000,
                      data.n_public])

    def sub_curve():
        return subset_errors(data, COARSE_GRID, sizes=sizes, repeats=2, seed=0)

    t_curve, values = best_of(sub_curve, 1)
    t, ans = best_of(lambda: epsilon_from_curve(COARSE_GRID, values, 2.0, rng=0), args.repeat)
    row("optimal subset, prediction error ≤ 2", "mvn-shift, 2 repeats", t, t_curve,
        "curve run again", t_curve + t,
        f"ε = {ans.epsilon:.3g} [{ans.low:.3g}, {ans.high:.3g}]" if ans.met else
        f"not reachable (best {ans.achieved:.3g})")

    print("| target | data | answer (s) | one-off study, cached (s) | baseline | baseline (s) "
          "| ratio | result |")
    print("|---|---|---:|---:|---|---:|---:|---|")
    for target, data_name, a, s, base_name, b, result in rows:
        print(f"| {target} | {data_name} | {a:.4f} | {s:.2f} | {base_name} | {b:.3f} | "
              f"{b / a:,.0f}× | {result} |")


if __name__ == "__main__":
    main()
