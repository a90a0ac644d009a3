"""Coverage of the derived statistics' intervals: the tables of ``docs/intervals.md``.

Run: ``python benchmarks/bench_intervals.py [--runs 10000] [--seed 0] [--epsilon 1]
[--write docs/intervals.md]``. Prints a markdown table
(:func:`dpcore.primer.coverage.coverage_table`: every derived statistic, both relations,
Laplace and Gaussian, n = 10 to 10,000, ``--runs`` seeded releases per cell, vectorised) and the
seconds it took. With ``--write`` it replaces the
table between the markers ``<!-- coverage -->`` and ``<!-- /coverage -->`` of that file.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

import timing  # noqa: F401  (puts the repository root on the import path)

from dpcore.primer.coverage import coverage_markdown, coverage_table

START, END = "<!-- coverage -->", "<!-- /coverage -->"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--delta", type=float, default=1e-6)
    parser.add_argument("--write", type=Path, default=None,
                        help="a markdown file whose coverage table to replace")
    args = parser.parse_args()
    start = time.perf_counter()
    table = coverage_table(runs=args.runs, seed=args.seed, epsilon=args.epsilon,
                           delta=args.delta)
    seconds = time.perf_counter() - start
    text = (f"ε = {args.epsilon:g} for the whole statistic (Gaussian: δ = {args.delta:g}), "
            f"{args.runs:,} seeded runs per cell (seed {args.seed}; binomial standard error "
            f"{100 * table['se'].iloc[0]:.2f} points), {seconds:.0f} s on this machine.\n\n"
            + coverage_markdown(table))
    print(text)
    if args.write is not None:
        doc = args.write.read_text(encoding="utf-8")
        if START not in doc or END not in doc:
            raise SystemExit(f"{args.write} has no {START} ... {END} markers.")
        pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
        args.write.write_text(pattern.sub(lambda _: f"{START}\n{text}{END}", doc),
                              encoding="utf-8")


if __name__ == "__main__":
    main()
