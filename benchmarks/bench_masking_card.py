"""Speed of the masking page's report card on a 10-column, 10,000-row upload, against a baseline
measured in the same run.

Run: ``python benchmarks/bench_masking_card.py [--tables 12]``. Prints a markdown table: the
card's time (best of 3) and the baseline's, and their ratio (card / baseline; below 1 is
faster), with the absolute seconds and the machine's load.

- The data: an upload built in memory (6 numeric columns, 2 categorical, 1 binary and a 0/1
  target; 10,000 private and 2,000 public rows, :func:`dpcore.datasets.scenario_from_uploads`),
  the masking page's task on it (7,000 private records, 3,000 held out) at the page's
  defaults (N = 300 with the public initial set, λ chosen on the public set).
- The card: :func:`dpcore.masking.card.report_card` at its defaults (7 ε x 20 repetitions x
  2 mechanisms, and the private sample): the masked sets grown, the inputs perturbed, and
  every table scored, everything the page's "Report card" view computes after the task.
- The baseline: the same 300 tables scored one at a time the usual way (pandas ``crosstab``
  for every pair's 2-way marginal, ``np.corrcoef``, scikit-learn ``LogisticRegression`` for the
  propensity model and for TSTR, a set of row tuples for the exact matches), timed on
  ``--tables`` of them and scaled to all; it leaves out growing the masked sets at all.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from timing import best_of

from dpcore.datasets import scenario_from_uploads
from dpcore.masking import scenario_task
from dpcore.masking.card import CARD_EPSILONS, REPETITIONS, report_card, task_binning
from dpcore.masking.defaults import default_lambda
from dpcore.masking.marginals import labelled

N, SEED = 300, 0


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 6))
    frame = pd.DataFrame({f"num{j}": z[:, j] * (j + 1) + z[:, 0] for j in range(6)})
    frame["region"] = rng.choice(["north", "south", "east", "west"], size=n)
    frame["sector"] = rng.choice(list("abcdef"), size=n)
    frame["owner"] = rng.choice(["yes", "no"], size=n)
    frame["label"] = (z[:, 0] + z[:, 1] + rng.normal(size=n) > 0.5).astype(int)
    return frame


def _naive_scores(task, X: np.ndarray, y: np.ndarray, pairs: np.ndarray, binning) -> None:
    """One table's five numbers, computed the usual way."""
    cells = pd.DataFrame(binning.codes(np.c_[X, y]))
    private = pd.DataFrame(binning.codes(np.c_[task.X_private, task.y_private]))
    columns = list(cells.columns)
    for i, a in enumerate(columns):
        for b in columns[i + 1:]:
            p = pd.crosstab(private[a], private[b], normalize=True)
            q = pd.crosstab(cells[a], cells[b], normalize=True)
            p.sub(q, fill_value=0.0).abs().to_numpy().sum()
    np.abs(np.corrcoef(X, rowvar=False) - np.corrcoef(task.X_private, rowvar=False))
    both = np.r_[pairs, X]
    both = np.c_[both, both**2]
    both = (both - both.mean(axis=0)) / np.where(both.std(axis=0) > 0, both.std(axis=0), 1.0)
    label = np.r_[np.zeros(len(pairs)), np.ones(len(X))]
    LogisticRegression(max_iter=500).fit(both, label).predict_proba(both)
    LogisticRegression(max_iter=500).fit(X, y).predict(task.X_valid)
    seen = set(map(tuple, private.to_numpy()))
    np.mean([tuple(row) in seen for row in cells.to_numpy()])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=12,
                        help="tables the baseline scores (scaled to all the card's)")
    args = parser.parse_args()
    scenario = scenario_from_uploads(_frame(10_000, 1), _frame(2_000, 2), target="label")[0]
    task = scenario_task(scenario)
    lam = default_lambda(scenario, 5.0)
    initial = (task.X_initial, task.y_initial)
    card_time, _ = best_of(lambda: report_card(task, n=N, lam=lam, initial=initial, seed=SEED))

    rng = np.random.default_rng(SEED)
    binning = labelled(task_binning(task), task.n_classes)
    tables = [(task.X_private[rng.permutation(len(task.y_private))[:N]] + rng.normal(
        scale=0.1, size=(N, task.d)), task.y_private[:N]) for _ in range(args.tables)]
    pairs = task.X_private[rng.permutation(len(task.y_private))[:N]]

    def baseline() -> None:
        for X, y in tables:
            _naive_scores(task, X, y, pairs, binning)

    n_tables = len(CARD_EPSILONS) * REPETITIONS * 2 + REPETITIONS
    base_time = best_of(baseline)[0] * n_tables / args.tables
    load = os.getloadavg()[0]
    print(f"{len(task.y_private):,} private records, d = {task.d} encoded features, "
          f"{len(task.columns)} columns; N = {N}, λ = {lam:g}; load {load:.2f} "
          f"({time.strftime('%Y-%m-%d %H:%M')})\n")
    print("| what | card (s) | baseline (s) | ratio card / baseline |")
    print("|---|---|---|---|")
    print(f"| report card, {n_tables} tables ({len(CARD_EPSILONS)} ε x {REPETITIONS} "
          f"repetitions x 2 mechanisms + the private sample) | {card_time:.2f} | "
          f"{base_time:.2f} (scoring only, {args.tables} tables scaled) | "
          f"{card_time / base_time:.3f} |")


if __name__ == "__main__":
    main()
