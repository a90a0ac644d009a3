"""The command line: recompute a page's numbers and figures from an exported run config.

``python -m dpcore run CONFIG.json --out DIR`` reads a run config (what a page's "Export this
run" gives, or one of the example configs ``dpcore/examples/*.json`` that ``python -m dpcore
pages`` lists), recomputes the page's numbers through
:func:`dpcore.runs.run` (a seeded study: the same config gives the same numbers, on any backend
and any number of workers), and writes into ``DIR``:

- ``config.json``: the config that ran (the page's defaults filled in by the page module);
- ``<table>.csv``: every table of numbers, each headed by one comment line that labels it a
  study (seeded, reproducible), not a release (read it with ``pandas.read_csv(path,
  skiprows=1)``), and all of them in ``numbers.json``;
- ``takeaway.txt``: the two-sentence summary computed from the numbers;
- ``figures/<name>.html`` (standalone, plotly.js inlined; :mod:`dpcore.figures`), and
  ``figures/<name>.png`` through kaleido when a Chromium is found.

Monte-Carlo grids run where ``--backend`` says: ``sequential`` (default), ``loky`` (``--workers``
local processes) or ``dask`` (a Dask cluster at ``--scheduler tcp://host:8786``, or a local one),
each cell with ``--blas-threads`` BLAS threads (default: this process's count, so the numbers
are the page's bit for bit; see :class:`dpcore.parallel.Parallel`).

``python -m dpcore report CONFIG.json --out FILE.html`` writes the decision report of a page's
release at the config's settings (:mod:`dpcore.decision`): one self-contained HTML file (figures
inline, opens offline, prints cleanly), and with ``--pdf`` a PDF beside it through Chromium
where one is installed.

Errors in what the user gave (config, files, options) print one line and exit with status 2.

A run is a study: its noise comes from the config's seed, so anyone who holds the config can draw
it again and subtract it. Its tables are labelled so (:data:`dpcore.runs.STUDY_LABEL`); a release
is made only by a page's Publish button, with fresh randomness.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

import dpcore.studies as studies
from dpcore._version import __version__
from dpcore.accountant import BudgetAccountant
from dpcore.decision import decide, report_html, report_pdf
from dpcore.figures import figures
from dpcore.figures import files as figure_files
from dpcore.parallel import Parallel
from dpcore.runs import PAGES, STUDY_LABEL, RunConfig, file_roles, run
from dpcore.validation import DataError

__all__ = ["main"]

PROG = "python -m dpcore"
#: The example run configs, one per page, shipped inside the package (``pip install .`` too).
EXAMPLES = Path(__file__).resolve().parent / "examples"


class UsageError(Exception):
    """Something the user gave cannot be used; the message says what and how to fix it."""


# ------------------------------------------------------------------------------- helpers --

def _shown(path: Path) -> str:
    """``path`` relative to the working folder where it lies below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _stem(name: str) -> str:
    """A safe file name from a table or figure name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(name)).strip("._") or "table"


def _parse_files(items: Sequence[str]) -> dict[str, bytes]:
    """``ROLE=PATH`` arguments as ``{role: bytes}``."""
    files: dict[str, bytes] = {}
    for item in items:
        role, sep, path = item.partition("=")
        if not sep or not role or not path:
            raise UsageError(f"--file expects ROLE=PATH (e.g. --file private=private.csv), got "
                             f"{item!r}.")
        if role in files:
            raise UsageError(f"--file gives the role {role!r} twice; give each role once.")
        try:
            files[role] = Path(path).read_bytes()
        except OSError as err:
            raise UsageError(f"cannot read the {role} file {path!r}: {err.strerror}.") from err
    return files


def _parse_sets(items: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` control overrides; VALUE is read as JSON, else kept as text."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--set expects KEY=VALUE (e.g. --set iw_epsilon=1.0), got {item!r}.")
        try:
            out[key] = json.loads(text)
        except json.JSONDecodeError:
            out[key] = text
    return out


def _parallel(args: argparse.Namespace):
    backend = args.backend or ("dask" if args.scheduler else "sequential")
    if args.scheduler and backend != "dask":
        raise UsageError(f"--scheduler needs --backend dask, got --backend {backend}.")
    workers = args.workers
    if backend == "sequential":
        if workers not in (None, 1):
            raise UsageError("--workers needs --backend loky or dask (the sequential backend "
                             "runs in this process).")
        workers = 1
    try:
        return Parallel(backend, n_jobs=-1 if workers is None else workers,
                        scheduler=args.scheduler, blas_threads=args.blas_threads)
    except (TypeError, ValueError) as err:
        raise UsageError(str(err)) from err


class _Bar:
    """A tqdm progress bar on stderr, fed with fractions done (never moving backwards)."""

    def __init__(self, label: str, enabled: bool) -> None:
        self.bar = None
        if enabled:
            self.bar = tqdm(total=100, desc=label, unit="%", file=sys.stderr, leave=True,
                            bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]")

    def __call__(self, fraction: float) -> None:
        if self.bar is not None:
            value = round(100 * min(1.0, max(0.0, float(fraction))))
            if value > self.bar.n:
                self.bar.update(value - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _write_numbers(result, out: Path) -> list[Path]:
    """Every table as ``<table>.csv`` under a first line that labels it a study, and all of them
    in ``numbers.json``."""
    written = []
    for name, table in result.numbers.items():
        path = out / f"{_stem(name)}.csv"
        with path.open("w", encoding="utf-8", newline="") as file:
            file.write(f"# {STUDY_LABEL}\n")
            table.to_csv(file, index=False)
        written.append(path)
    (out / "numbers.json").write_text(result.to_json() + "\n", encoding="utf-8")
    return written




def _write_pngs(figs: dict[str, Any], folder: Path, browser: str) -> list[Path]:
    """Every figure as a PNG through one kaleido (Chromium) session."""
    import kaleido  # optional (the `png` extra): imported only when PNGs are written

    jobs, paths = [], []
    for name, fig in figs.items():
        path = folder / f"{_stem(name)}.png"
        height = int(fig.layout.height or 450)
        opts = {"format": "png", "width": figure_files.PNG_WIDTH, "height": height, "scale": 2}
        jobs.append({"fig": figure_files.for_export(fig), "path": path, "opts": opts})
        paths.append(path)
    kaleido.write_fig_from_object_sync(jobs, kopts={"path": browser, "mathjax": False})
    return paths


# ------------------------------------------------------------------------------ commands --

def _cmd_run(args: argparse.Namespace, say: Callable[[str], None]) -> int:
    config = RunConfig.load(args.config)
    if args.seed is not None or args.set:
        if args.seed is not None and args.seed < 0:
            raise UsageError(f"--seed must be >= 0, got {args.seed}.")
        config = RunConfig.from_dict({**config.to_dict(),
                                      "controls": {**config.controls, **_parse_sets(args.set)},
                                      "seed": config.seed if args.seed is None else args.seed})
    files = _parse_files(args.file)
    roles = file_roles(config.scenario)
    if files and not roles:
        raise UsageError("this config uses a built-in scenario: it reads no files, so drop "
                         "--file.")
    unknown = sorted(set(files) - set(roles))
    if unknown:
        raise UsageError(f"--file gives the role(s) {', '.join(unknown)}, but this config's "
                         f"uploads are {', '.join(roles)}; pass --file ROLE=PATH for those.")
    parallel = _parallel(args)
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"cannot create the output folder {str(out)!r}: {err.strerror}.") from err
    bar = _Bar(f"{config.page} ({parallel.backend})", enabled=not args.quiet)
    try:
        with parallel:
            parallel.connect()
            result = run(config, files=files, progress=bar, parallel=parallel)
    finally:
        bar.close()
    full = RunConfig(config.page, config.scenario, result.controls, config.seed)
    (out / "config.json").write_text(full.to_json() + "\n", encoding="utf-8")
    tables = _write_numbers(result, out)
    takeaway = result.takeaway()
    (out / "takeaway.txt").write_text(takeaway + "\n", encoding="utf-8")
    say(f"{_count(len(tables), 'table')} of numbers: {', '.join(p.name for p in tables)} "
        "and numbers.json; a study (seeded, reproducible), not a release")
    if args.no_figures:
        say("figures skipped (--no-figures).")
    else:
        figs = figures(result)
        if figs:
            folder = out / "figures"
            folder.mkdir(exist_ok=True)
            for name, fig in figs.items():
                (folder / f"{_stem(name)}.html").write_bytes(figure_files.figure_html(fig))
            say(f"{_count(len(figs), 'figure')} as HTML in {folder}")
            browser = None if args.no_png else figure_files.chromium_path()
            if args.no_png:
                say("PNG skipped (--no-png).")
            elif not figure_files.kaleido_installed():
                say(f"PNG skipped: {figure_files.PNG_NEEDS_KALEIDO}")
            elif browser is None:
                say("PNG skipped: no Chromium found (looked at $BROWSER_PATH, /usr/bin/chromium "
                    "and chromium/google-chrome on PATH); install Debian's `chromium` or set "
                    "BROWSER_PATH.")
            else:
                try:
                    pngs = _write_pngs(figs, folder, browser)
                except Exception as err:  # Chromium and kaleido fail in many ways
                    print(f"{PROG}: warning: PNG export through {browser} failed "
                          f"({type(err).__name__}: {err}); the HTML figures are written.",
                          file=sys.stderr, flush=True)
                else:
                    say(f"{_count(len(pngs), 'figure')} as PNG in {folder}")
        else:
            say("this page has no figures for these controls.")
    say(f"takeaway: {takeaway}")
    say(f"written to {out}")
    return 0


def _cmd_report(args: argparse.Namespace, say: Callable[[str], None]) -> int:
    config = RunConfig.load(args.config)
    files = _parse_files(args.file)
    if not 0.0 < args.prior < 1.0:
        raise UsageError(f"--prior must be between 0 and 1 (e.g. 0.01), got {args.prior}.")
    out = Path(args.out)
    if out.suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"--out must name an .html file, got {args.out!r}.")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"cannot create the folder of {str(out)!r}: {err.strerror}.") from err
    accountant = None
    if args.budget is not None:
        try:
            accountant = BudgetAccountant(epsilon=args.budget)
        except ValueError as err:
            raise UsageError(f"--budget: {err}") from err
    decision = decide(config, files=files, prior=args.prior, accountant=accountant)
    out.write_text(report_html(decision), encoding="utf-8")
    say(f"report on {decision.release.name} at ε = {decision.epsilon:g} written to {out} (a "
        "study, not a release; no private record in it)")
    if args.pdf:
        pdf = report_pdf(out.read_text(encoding="utf-8"), out.with_suffix(".pdf"))
        say(f"PDF written to {pdf}" if pdf else "PDF skipped: no Chromium found (install "
            "Debian's `chromium` or set BROWSER_PATH).")
    return 0


def _cmd_pages(args: argparse.Namespace, say: Callable[[str], None]) -> int:
    examples = sorted(EXAMPLES.glob("*.json"))
    by_page: dict[str, list[Path]] = {}
    for path in examples:
        try:
            page = json.loads(path.read_text(encoding="utf-8")).get("page")
        except (OSError, ValueError, AttributeError):
            continue
        by_page.setdefault(page, []).append(path)
    for page in PAGES:
        state = f"{len(studies.study(page).CONTROLS)} controls"
        found = ", ".join(_shown(p) for p in by_page.get(page, [])) or "no example config"
        say(f"{page:<15} {state:<18} {found}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Recompute the privacy/utility explorer's numbers and figures without the "
                    "dashboard, from an exported run config. Runs are seeded studies: the same "
                    "config gives the same numbers on every backend.",
        epilog=f"Example: {PROG} run dpcore/examples/importance-adult.json --out out/importance "
               f"(`{PROG} pages` lists every example config where it is installed)",
    )
    parser.add_argument("--version", action="version", version=f"dpcore {__version__}")
    parser.add_argument("--traceback", action="store_true",
                        help="show the full traceback of a refused value (for bug reports)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = sub.add_parser(
        "run", help="recompute a page's numbers and figures from a run config",
        description="Recompute a page's numbers from CONFIG (a page's 'Export this run' JSON) "
                    "and write them as CSV and JSON, with the figures as HTML (and PNG where "
                    "Chromium is found), into --out.")
    run.add_argument("config", metavar="CONFIG.json", help="the run config")
    run.add_argument("--out", required=True, metavar="DIR", help="output folder (created)")
    run.add_argument("--file", action="append", default=[], metavar="ROLE=PATH",
                     help="an uploaded file of an upload config (role public, private or "
                          "single); a public file's SHA-256 must match the config's (a "
                          "private file is named only). Repeat per file.")
    run.add_argument("--backend", choices=("sequential", "loky", "dask"), default=None,
                     help="where Monte-Carlo grids run: this process (default), local "
                          "processes (loky) or a Dask cluster (dask)")
    run.add_argument("--workers", type=int, default=None, metavar="N",
                     help="local workers for loky, or for a local Dask cluster (default: all "
                          "cores)")
    run.add_argument("--scheduler", default=None, metavar="ADDRESS",
                     help="a Dask scheduler, e.g. tcp://10.0.0.5:8786 (implies --backend dask)")
    run.add_argument("--blas-threads", type=int, default=None, metavar="N",
                     help="BLAS threads of every grid cell (default: as many as this process "
                          "uses, so the numbers equal the page's bit for bit; 1 is fastest with "
                          "several workers, and its numbers are the same on every backend but "
                          "may differ from the page's in the last digits)")
    run.add_argument("--seed", type=int, default=None, help="override the config's study seed")
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="override one control (VALUE read as JSON), e.g. --set iw_reps=200")
    run.add_argument("--no-figures", action="store_true", help="write numbers only")
    run.add_argument("--no-png", action="store_true", help="write HTML figures only")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    run.set_defaults(handler=_cmd_run)

    report = sub.add_parser(
        "report", help="write the decision report of a page's release as one HTML file",
        description="Recompute a page's study from CONFIG and write the decision report of "
                    "its release: utility with its spread, risk at a prior, the audit's lower "
                    "bound, the deployments, the settings and the config (HTML, opens "
                    "offline).")
    report.add_argument("config", metavar="CONFIG.json", help="the run config of a page that "
                                                              "releases")
    report.add_argument("--out", required=True, metavar="FILE.html", help="the report to write")
    report.add_argument("--file", action="append", default=[], metavar="ROLE=PATH",
                        help="an uploaded file of an upload config, as for `run`")
    report.add_argument("--prior", type=float, default=0.01,
                        help="the attacker's prior belief that a person is in the data "
                             "(default 0.01)")
    report.add_argument("--budget", type=float, default=None, metavar="EPSILON",
                        help="the session budget ε the report weighs the release against "
                             "(default: none)")
    report.add_argument("--pdf", action="store_true",
                        help="also print the report to PDF through Chromium")
    report.set_defaults(handler=_cmd_report)

    pages = sub.add_parser("pages", help="list the pages a run can recompute and their example "
                                         "configs",
                           description="List the pages, their controls and the example configs "
                                       "shipped in the package (dpcore/examples/).")
    pages.set_defaults(handler=_cmd_pages)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 done, 2 unusable input, 1 failure)."""
    parser = _parser()
    args = parser.parse_args(argv)

    def say(text: str) -> None:
        print(text, flush=True)

    def fail(text: str, status: int) -> int:
        print(f"{PROG}: error: {text}", file=sys.stderr, flush=True)
        return status

    try:
        return args.handler(args, say)
    except (UsageError, DataError) as err:
        return fail(str(err), 2)
    except (ValueError, TypeError) as err:  # a control's value that the page refuses
        if args.traceback:
            raise
        return fail(f"{err} (add --traceback for where it was raised)", 2)
    except ImportError as err:  # a backend whose package is missing
        return fail(str(err), 2)
    except ConnectionError as err:  # no Dask scheduler at the address
        return fail(str(err), 2)
    except KeyboardInterrupt:
        return fail("interrupted.", 130)
