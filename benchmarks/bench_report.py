"""A decision report against the study it reads: ``python benchmarks/bench_report.py``.

For each example config of a releasing page (``dpcore/examples/``), times (best of 3, one process)
``dpcore.runs.run(config)`` (the page's study alone: the baseline) and
``dpcore.decision.report_html(dpcore.decision.decide(config))`` (the study again, the audit,
the synthetic-data report for masking, the figures and the HTML), and prints both with their
ratio. Issue 25's target: a report in under 5 s.
"""

from __future__ import annotations

import timing  # noqa: F401  (first: puts the repository root on the import path)
from timing import best_of

from dpcore.decision import decide, report_html
from dpcore.runs import run

EXAMPLES = ("importance-adult", "perturbation-adult", "masking-toy", "subset-mvn-shift")


def main() -> None:
    print("| config | study alone (s) | report (s) | report / study |")
    print("|---|---:|---:|---:|")
    for name in EXAMPLES:
        config = f"{timing.ROOT}/dpcore/examples/{name}.json"
        study, _ = best_of(lambda c=config: run(c))
        report, _ = best_of(lambda c=config: report_html(decide(c)))
        print(f"| {name} | {study:.2f} | {report:.2f} | {report / study:.1f}x |")


if __name__ == "__main__":
    main()
