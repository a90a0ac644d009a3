"""A page's first view as the first visitor of a fresh server sees it, in checkouts compared.

Run: ``python benchmarks/first_view.py [--page perturbation] [--checkout DIR ...] [--pairs 3]``.

Each measurement is a fresh Python process started in a checkout (``--checkout``, default this
one; give several to compare them, e.g. the commit before a change exported with ``git archive``):
it first does what a server does when it starts (``app.py``'s start-up hook,
:func:`ui.warm.lifespan`, without the class preparation), then opens the page by AppTest as a
link does (``app.py`` routing to ``pages/<page>.py``), with one BLAS thread as the server has
(:func:`ui.warm.limit_blas_threads`), and prints the process's CPU time and the wall time of
that first run (the page's imports of the app's own modules included, as its first visitor
pays them), and the metrics the page shows (so that the checkouts
can be seen to show the same numbers). The checkouts take turns ``--pairs`` times (interleaved,
so that other work on the machine falls on all of them alike); the table gives each run and the
median CPU time against the first checkout's.

``--view VIEW`` opens the page on that view (its ``<prefix>_view`` key: ``lr_view`` on the
logistic-regression page, e.g. ``--view Publish``); ``--epsilon E`` (repeatable) then moves the
page's ε slider to each E in turn after the first view, and measures each move's run apart (CPU
and wall), as a class's ε moves on a server where the first view is already held.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from timing import ROOT

#: The widget keys' prefix of each page that ``--view`` and ``--epsilon`` know.
PREFIXES = {"perturbation": "lr"}


def _timed(at) -> tuple[float, float]:
    """CPU and wall time of one run of ``at``; a page that raises ends the measurement."""
    cpu, wall = time.process_time(), time.perf_counter()
    at.run()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if at.exception:
        raise SystemExit(f"the page raised: {[e.value for e in at.exception]}")
    return cpu, wall


def child(page: str, view: str | None = None, epsilons: tuple[float, ...] = ()) -> None:
    """In a fresh process whose working directory is a checkout: the measurement itself."""
    sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "tests")]
    import app_support  # noqa: F401  (the custom-component scan once, as the tests have it)
    from streamlit.testing.v1 import AppTest
    from threadpoolctl import threadpool_limits

    from ui.warm import ENV_PAGES, lifespan

    async def start() -> None:  # the server's start-up, before anyone is served
        async with lifespan(None):
            pass

    os.environ[ENV_PAGES] = "0"  # no class preparation: the page alone is measured
    asyncio.run(start())
    threadpool_limits(1)
    at = AppTest.from_file(os.path.join(os.getcwd(), "app.py"), default_timeout=900)
    at.switch_page(f"pages/{page}.py")
    if view:  # a view's key or its label, read as a link reads it (a checkout's own domain)
        from dpcore.domains import check
        from dpcore.studies import study

        key = f"{PREFIXES[page]}_view"
        at.session_state[key] = check(study(page).DOMAINS, key, view)
    cpu, wall = _timed(at)
    moves = []
    for epsilon in epsilons:
        at.select_slider(key=f"{PREFIXES[page]}_epsilon").set_value(epsilon)
        moves.append(_timed(at))
    print(json.dumps({"cpu": cpu, "wall": wall, "moves": moves,
                      "metrics": {m.label: m.value for m in at.metric}}))


def measure(checkout: Path, page: str, view: str | None, epsilons: list[float]) -> dict:
    """One fresh process in ``checkout`` (this file run as its child)."""
    command = [sys.executable, __file__, "--child", page, *(["--view", view] if view else [])]
    for epsilon in epsilons:
        command += ["--epsilon", str(epsilon)]
    out = subprocess.run(command, cwd=checkout, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", default="perturbation")
    parser.add_argument("--checkout", type=Path, action="append")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--view", help="open the page on this view (e.g. Publish)")
    parser.add_argument("--epsilon", type=float, action="append", default=[],
                        help="after the first view, move ε here (repeatable: moves in turn)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.view, tuple(args.epsilon))
        return
    checkouts = [c.resolve() for c in args.checkout or [ROOT]]
    runs: dict[Path, list[dict]] = {c: [] for c in checkouts}
    print(f"load at the start: {os.getloadavg()[0]:.1f}")
    for _ in range(args.pairs):
        for checkout in checkouts:
            runs[checkout].append(measure(checkout, args.page, args.view, args.epsilon))
    print(f"load at the end: {os.getloadavg()[0]:.1f}\n")
    print("| checkout | CPU (s), each run | wall (s), each run | median CPU / first's |")
    print("|---|---|---|---:|")
    base = statistics.median(r["cpu"] for r in runs[checkouts[0]])
    for checkout, done in runs.items():
        cpu = statistics.median(r["cpu"] for r in done)
        cpus = ", ".join(f"{r['cpu']:.2f}" for r in done)
        walls = ", ".join(f"{r['wall']:.2f}" for r in done)
        print(f"| {checkout} | {cpus} | {walls} | {cpu / base:.2f} |")
    if args.epsilon:
        print(f"\nε moves ({', '.join(map(str, args.epsilon))}), CPU (s) of each move:\n")
        print("| checkout | CPU (s), each run's moves | median move | median / first's |")
        print("|---|---|---:|---:|")
        first = statistics.median(m[0] for r in runs[checkouts[0]] for m in r["moves"])
        for checkout, done in runs.items():
            moves = [m[0] for r in done for m in r["moves"]]
            each = "; ".join(", ".join(f"{m[0]:.2f}" for m in r["moves"]) for r in done)
            median = statistics.median(moves)
            print(f"| {checkout} | {each} | {median:.2f} | {median / first:.2f} |")
    shown = {json.dumps(r["metrics"], sort_keys=True) for done in runs.values() for r in done}
    print(f"\nmetrics shown: {'the same in every run' if len(shown) == 1 else 'DIFFERENT'}: "
          f"{next(iter(shown)) if len(shown) == 1 else sorted(shown)}")


if __name__ == "__main__":
    main()
