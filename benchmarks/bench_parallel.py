"""Speed-up of a 10^4-replicate Monte-Carlo grid on 2 local workers against 1, in the same run.

Run: ``python benchmarks/bench_parallel.py [--reps 10000] [--repeat 3] [--no-dask]``. Prints a
markdown table (the README's CLI section copies it).

The grid is the importance-weighting study of Ji & Elkan's Figs 1-2 (:func:`monte_carlo`): the 8
lambdas of the "Estimates vs λ" view x the 7 epsilons of "Estimates vs ε", each with ``--reps``
bootstrap replicates, on the built-in "three-gaussians" scenario. Each lambda is one cell (one
batched solve of every replicate, then the noise at every epsilon from the cell's own streams),
run by :class:`dpcore.parallel.Parallel`:

- 1 worker: the cells one after another in this process, BLAS limited to 1 thread (what each
  loky worker gets), the baseline of the speed-up;
- this process with BLAS on every core (the default sequential path), for reference;
- 2 loky workers (``Parallel("loky", n_jobs=2)``);
- 2 single-threaded Dask workers on a ``LocalCluster`` (joblib's Dask backend), unless
  ``--no-dask``.

Times are the best of ``--repeat`` runs (worker start-up falls in the first run only). Every
backend's numbers are checked to be identical to the baseline's.
"""

from __future__ import annotations

import argparse
import os

from threadpoolctl import threadpool_limits
from timing import best_of

from dpcore.datasets import load_scenario
from dpcore.importance import monte_carlo
from dpcore.parallel import SEQUENTIAL, Parallel
from dpcore.runs.importance import EPSILON_GRID, LAMBDA_GRID

SEED = 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()

    sc = load_scenario("three-gaussians")

    def grid(parallel: Parallel):
        return monte_carlo(sc.private, sc.public, "x1", LAMBDA_GRID, EPSILON_GRID, args.reps,
                           rng=SEED, parallel=parallel)

    def one_thread():
        with threadpool_limits(1):
            return grid(SEQUENTIAL)

    t_one, base = best_of(one_thread, args.repeat)
    rows = [("1 worker (this process, 1 BLAS thread)", t_one, base)]
    rows.append(("this process, BLAS on every core", *best_of(lambda: grid(SEQUENTIAL),
                                                              args.repeat)))
    loky = Parallel("loky", n_jobs=2)
    rows.append(("2 loky workers", *best_of(lambda: grid(loky), args.repeat)))
    if not args.no_dask:
        from dask.distributed import LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster:
            with Parallel("dask", scheduler=cluster.scheduler_address) as dask:
                rows.append(("2 Dask workers (LocalCluster)",
                             *best_of(lambda: grid(dask), args.repeat)))

    for label, _, numbers in rows:
        if not numbers.equals(base):
            raise AssertionError(f"{label}: numbers differ from the 1-worker run")
    cells = len(LAMBDA_GRID) * len(EPSILON_GRID)
    print(f"Grid: {len(LAMBDA_GRID)} lambdas x {len(EPSILON_GRID)} epsilons x {args.reps} "
          f"replicates ({cells * args.reps:,} estimates; one cell per lambda) on "
          f"three-gaussians (N_D={len(sc.private)}, N_E={len(sc.public)}); {os.cpu_count()} "
          f"cores (load average {os.getloadavg()[0]:.1f} at the end: other processes share "
          f"them); best of {args.repeat}. Numbers identical on every backend.\n")
    print("| backend | time (s) | speed-up vs 1 worker |")
    print("|---|---:|---:|")
    for label, seconds, _ in rows:
        print(f"| {label} | {seconds:.2f} | {t_one / seconds:.2f}x |")


if __name__ == "__main__":
    main()
