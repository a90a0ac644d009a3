"""Speed of every page's Publish on Adult: the release path against the same work as a study.

Run: ``python benchmarks/bench_release.py [--repeat 3]``. Prints a markdown table with, for each
page's release at the page's default settings on the built-in Adult scenario: the release's time
(best of ``--repeat``; float-safe OpenDP noise from fresh OS entropy, no accountant), the same
call as a seeded study (numpy noise of the paper's law) measured in the same run, their ratio
(release / study: what the float-safe sampler costs), and whether the release stays within the
2 s a person waits for a Publish (issue 21). The page itself adds its rerun on top (about 0.1 s).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from timing import best_of

from dpcore.datasets import load_scenario
from dpcore.importance import ImportanceWeights, balanced_fit
from dpcore.masking import MaskedDataGenerator, scenario_task
from dpcore.perturbation import PrivateLogisticRegression
from dpcore.perturbation.experiments import lambda_rule, scenario_arrays
from dpcore.primer import candidates, count, release_answers
from dpcore.studies.subset import GRIDS, grid_sizes
from dpcore.subset import prepare_selection, rescale, scenario_arguments, select_subset

TARGET_S = 2.0


def _cases(scenario) -> dict[str, Callable[[object], object]]:
    """Each page's release on Adult, as a function of ``rng`` (None: the release)."""
    raw = scenario.raw_private
    group = "sex" if "sex" in raw else raw.columns[0]
    query = count(group, candidates(scenario, group)[0])
    D, E = scenario.private, scenario.public
    step1 = balanced_fit(D, E, 0.1)
    arrays = scenario_arrays(scenario)
    n, d = arrays.X.shape[0], arrays.X.shape[1] + 1  # d with the intercept
    lam_amp, lam_lr = (lambda_rule(1.0, n, d, m) for m in ("amp", "output"))
    task = scenario_task(scenario)
    initial = (task.X_initial, task.y_initial) if task.X_initial is not None else None
    data = rescale(D, E, **scenario_arguments(scenario))
    sizes = grid_sizes(GRIDS[0], data.n_public)  # the paper's p = 2 grid (all its sizes)
    prepared = prepare_selection(data, "logistic", 0.01)  # cached by the page, as step 1

    return {
        "primer: one count": lambda rng: release_answers(
            query, raw, 1.0, n_records=len(raw), accountant=None, dataset="adult", rng=rng),
        "primer: counts per group": lambda rng: release_answers(
            query, raw, 1.0, n_records=len(raw), group=group,
            groups=candidates(scenario, group), accountant=None, dataset="adult", rng=rng),
        "importance weights (step 1 cached, as the page)": lambda rng: ImportanceWeights(
            0.1, 0.1, rng=rng).fit(D, E, step1=step1),
        "importance weights (with step 1)": lambda rng: ImportanceWeights(
            0.1, 0.1, rng=rng).fit(D, E),
        "private logistic regression (approximate minima perturbation, the default)":
            lambda rng: PrivateLogisticRegression(
                1.0, lam_amp, "amp", data_norm=arrays.data_norm, rng=rng,
                classes=arrays.classes).fit(arrays.X, arrays.y),
        "private logistic regression (output perturbation)": lambda rng: PrivateLogisticRegression(
            1.0, lam_lr, "output", data_norm=arrays.data_norm, rng=rng,
            classes=arrays.classes).fit(arrays.X, arrays.y),
        "masked data (N = 300)": lambda rng: MaskedDataGenerator(
            5.0, 0.5, 300, rng=rng, n_classes=task.n_classes, data_norm=task.data_norm).fit(
            task.X_private, task.y_private, initial=initial),
        "optimal public subset (θ_D and nearest points cached, as the page)":
            lambda rng: select_subset(data, None, (2.4, 0.6, 3.0), sizes, "logistic", rng=rng,
                                      lam=0.01, prepared=prepared),
        "optimal public subset (from scratch)": lambda rng: select_subset(
            data, None, (2.4, 0.6, 3.0), sizes, "logistic", rng=rng, lam=0.01),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    scenario = load_scenario("adult")
    print("| release on Adult | release (s) | same work as a study (s) | ratio | within 2 s |")
    print("|---|---:|---:|---:|:---:|")
    for name, run in _cases(scenario).items():
        release, _ = best_of(lambda run=run: run(None), args.repeat)
        study, _ = best_of(lambda run=run: run(0), args.repeat)
        ok = "yes" if release <= TARGET_S else "**no**"
        print(f"| {name} | {release:.3f} | {study:.3f} | {release / study:.2f} | {ok} |")


if __name__ == "__main__":
    main()
