"""Speed of the privacy audit: runs per second per mechanism, vectorised vs a naive loop.

Run: ``python benchmarks/bench_audit.py [--runs 100000] [--naive 2000]``. Prints a markdown table:
for every audit case, the runs per second of :func:`dpcore.audit.audit` (both datasets, the
threshold search and the Clopper-Pearson bounds included), the runs per second of a naive loop
that calls the same sampler once per run (``sample(1, rng)``, ``--naive`` runs, measured in the
same process), and their ratio. Mechanisms that refit a model use ``min(runs, 20000)`` runs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import timing  # noqa: F401  (puts the repository root on the import path)

from dpcore import audit as A


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--naive", type=int, default=2000)
    parser.add_argument("--epsilon", type=float, default=1.0)
    args = parser.parse_args()
    print("| mechanism | runs | vectorised runs/s | naive loop runs/s | ratio | epsilon_lb |")
    print("|---|---:|---:|---:|---:|---:|")
    for case in A.audit_cases(args.epsilon):
        runs = min(args.runs, 20_000) if case.refits else args.runs
        start = time.perf_counter()
        res = A.audit(case, runs, rng=0)
        fast = runs / (time.perf_counter() - start)
        gen = np.random.default_rng(1)
        naive_runs = min(args.naive, runs)
        start = time.perf_counter()
        for _ in range(naive_runs):
            case.sample(1, gen)
        slow = naive_runs / (time.perf_counter() - start)
        print(f"| {case.name} | {runs:,} | {fast:,.0f} | {slow:,.0f} | {fast / slow:,.0f} | "
              f"{res.epsilon_lb:.3f} |")


if __name__ == "__main__":
    main()
