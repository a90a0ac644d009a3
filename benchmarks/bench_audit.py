"""Speed of the privacy audit: runs per second per mechanism, vectorised vs a naive loop.

Run: ``python benchmarks/bench_audit.py [--runs 100000] [--naive 2000]``. Prints a markdown table:
for every audit case, the runs per second of :func:`dpcore.audit.audit` (both datasets, the
threshold search and the Clopper-Pearson bounds included), the runs per second of a naive loop
that calls the same sampler once per run (``sample(1, rng)``, ``--naive`` runs, measured in the
same process), and their ratio. Mechanisms that refit a model use ``min(runs, 20000)`` runs.

``python benchmarks/bench_audit.py --float [--float-runs 20000] [--seed 0]`` instead prints the
floating-point attacks' table of ``docs/float-audit.md`` (:mod:`dpcore.audit_float`: every
release mechanism through its release path, and numpy's sampler broken on purpose), with the
seconds each row took and the total.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import timing  # noqa: F401  (puts the repository root on the import path)

from dpcore import audit as A
from dpcore import audit_float as F
from dpcore.releases.catalogue import audit_cases


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--naive", type=int, default=2000)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--float", action="store_true",
                        help="the floating-point attacks instead (docs/float-audit.md)")
    parser.add_argument("--float-runs", type=int, default=F.FLOAT_RUNS)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.float:
        F.main(["--runs", str(args.float_runs), "--epsilon", str(args.epsilon),
                "--seed", str(args.seed)])
        return
    print("| mechanism | runs | vectorised runs/s | naive loop runs/s | ratio | epsilon_lb |")
    print("|---|---:|---:|---:|---:|---:|")
    for case in audit_cases(args.epsilon):
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
