"""Redraw time a person feels: slider key press to redrawn figure, in Chromium, against the floor.

Run: ``python benchmarks/bench_browser.py [--moves 9] [--fresh] [--only NAME] [--out FILE]`` or
``python benchmarks/bench_browser.py --upload 400000``.

Two ``streamlit run`` servers start on free ports (``benchmarks/floor_page.py``, the *floor*: one
slider and one box plot of 8 x 100 points; and ``app.py``), and Debian's Chromium is driven through
Playwright. For every target (the floor and each page's slider in :data:`TARGETS`) the benchmark
focuses the slider's thumb in the sidebar and presses ArrowRight and ArrowLeft alternately (two
warm-up moves, then ``--moves`` measured ones). The targets are interleaved move by move, so that a
busy machine slows all of them alike. With ``--fresh`` there is no warm-up and only ArrowRight, so
that every move goes to a value no cache has seen, until the slider's end; each page then opens
with its slider at the first value (a link parameter), so that the moves cross the whole slider.
A target may also be a number input (the subset page's simulation seed): its "+" and "-" buttons
are clicked instead of the arrow keys.
One move is timed *in the page*, from the ``keydown`` (or click) event to the first moment at which

- the target's change detector (by default: the data of the visible Plotly charts in the main
  area, hashed) differs from its value before the key press, and
- no ``stStatusWidget`` ("Running...") is shown, i.e. the rerun is over.

The page's WebSocket is wrapped (an init script) to time when the rerun request leaves, when the
server's messages arrive and how many bytes they carry, which splits a move into *request*
(key press to rerun request: the slider's debounce), *server* (request to last message: the
script run and the transfer) and *draw* (last message to redrawn figure). The servers run without
a file watcher, so that edits made during a run do not reload modules mid-measurement.

The benchmark prints times and ratios to the floor's median and never asserts a time. A markdown
table goes to stdout and, with ``--out``, to a file.

``--upload ROWS`` instead writes a seeded CSV of ROWS rows and 10 columns (numeric and
categorical) to a temporary directory, splits it into a public and a private file by a biased
rule (or, with ``--upload-mode one``, uploads the single file and keeps the app's default split),
uploads it on the home page and times the upload's processing and the first render of the
importance page on it (its first figure drawn, then the end of the rerun), printing progress
every few seconds. The issue's case is 400000 rows (about 16 MB), target <= 20 s.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

import numpy as np
from timing import stop

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

ROOT = Path(__file__).resolve().parents[1]
FLOOR_SCRIPT = "benchmarks/floor_page.py"
APP_SCRIPT = "app.py"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1400, "height": 1000}
STARTUP_TIMEOUT = 90.0
SETTLE = 0.3  # seconds of quiet after a rerun before the next key press
POLL_MS = 5  # how often the page checks whether the figure was redrawn

# -- change detectors: JavaScript functions (no arguments) returning a string that must change
# when the figure is redrawn, or null while there is nothing to compare yet. --------------------

PLOTLY_DATA = """() => {
    // Hash of the data, shapes and annotations of every visible Plotly chart in the main area
    // (a move along a prepared curve may change only the marked value, a shape). A chart's
    // `data` is a new object whenever Streamlit sends a new figure, so each figure is hashed
    // once (WeakMap keyed by its data).
    const cache = window.__benchHashes || (window.__benchHashes = new WeakMap());
    const hash = (el) => {
        const data = el.data;
        let h = cache.get(data);
        if (h === undefined) {
            const layout = el.layout || {};
            const text = JSON.stringify([data, layout.shapes, layout.annotations]);
            h = 2166136261;  // FNV-1a, 32 bits
            for (let i = 0; i < text.length; i++) {
                h = Math.imul(h ^ text.charCodeAt(i), 16777619);
            }
            h = (h >>> 0).toString(16) + ":" + text.length;
            cache.set(data, h);
        }
        return h;
    };
    const charts = [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
        .filter((el) => el.offsetParent !== null);
    if (charts.length === 0 || charts.some((el) => !el.data)) return null;
    return charts.map(hash).join("|");
}"""


def text_detector(test_id: str) -> str:
    """A change detector on the text of the main area's elements with ``data-testid=test_id``
    (for example ``"stCaptionContainer"`` for a caption that names the slider's value)."""
    return f"""() => {{
        const els = [...document.querySelectorAll('[data-testid="stMain"] [data-testid="{test_id}"]')];
        return els.length ? els.map((el) => el.innerText).join("|") : null;
    }}"""  # noqa: E501


# -- targets: one line per page slider -----------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One slider to move and the redraw to wait for.

    Attributes
    ----------
    name : str
        Short name, used by ``--only`` and in the table.
    path : str
        URL path of the page, e.g. ``"/importance"``.
    slider : str
        The slider's label in the sidebar (a substring is enough).
    detector : str
        JavaScript change detector (see :data:`PLOTLY_DATA`, :func:`text_detector`).
    script : str
        The script ``streamlit run`` serves, relative to the repository root.
    first_load_timeout : float
        Seconds allowed for the page's first render (a cold cache computes everything).
    move_timeout : float
        Seconds allowed for one move.
    start : str
        The link parameter that puts the slider at its first value (``--fresh`` opens the page
        with it).
    query : str
        Link parameters the page always opens with (a view, for example).
    sidebar : bool
        Whether the slider is in the sidebar (else in the main area).
    number : bool
        The control is a number input (``slider`` is its label), moved by its step buttons:
        ArrowRight clicks "+", ArrowLeft "-" (the clock starts at the pointer press).
    """

    name: str
    path: str
    slider: str
    detector: str = PLOTLY_DATA
    script: str = APP_SCRIPT
    first_load_timeout: float = 240.0
    move_timeout: float = 90.0
    start: str = ""
    query: str = ""
    sidebar: bool = True
    number: bool = False


FLOOR = Target("floor", "/", "Floor value", script=FLOOR_SCRIPT, first_load_timeout=60.0,
               start="floor_value=0.01")
TARGETS: list[Target] = [
    Target("importance ε", "/importance", "Privacy budget ε", start="iw_epsilon=0.01"),
    Target("importance λ", "/importance", "Regularisation λ", start="iw_lambda=0.001"),
    # -- more pages: one line each (slider = the label of the page's main slider in the sidebar,
    # see the page's file; start = its widget key at the slider's first value). A page that
    # app.py does not list yet is reported and skipped.
    Target("perturbation ε", "/perturbation", "Privacy budget ε", first_load_timeout=300.0,
           start="lr_epsilon=0.01"),
    Target("masking ε", "/masking", "Privacy budget ε", first_load_timeout=300.0,
           start="mk_epsilon=0.1"),
    Target("subset ε", "/subset", "Privacy budget ε", first_load_timeout=300.0,
           start="sub_epsilon=0.01"),
    # issue 35: a new simulation seed reruns Algorithm 2's repeats (from seed 1000 on, values
    # that no other target or prefetch has computed)
    Target("subset seed", "/subset", "Simulation seed", first_load_timeout=300.0,
           start="sub_seed=1000", number=True),
    # issue 25: the decision view (its prior slider redraws the risk) and the planner of
    # several statistics (the Gaussian statistics' δ redraws both figures)
    Target("decision prior", "/decide", "Prior belief that a given person is in the data",
           detector=text_detector("stMetricValue"), sidebar=False),
    Target("planner δ", "/choose_epsilon", "Total δ of the Gaussian statistics",
           query="ce_view=Several+statistics", sidebar=False),
]

# -- in-page instrumentation ----------------------------------------------------------------------

INIT_SCRIPT = """(() => {
    const bench = (window.__bench = { keyT: null, before: null, log: [] });
    const start = () => {
        if (bench.keyT === null) bench.keyT = performance.now();
    };
    document.addEventListener("keydown", start, true);
    document.addEventListener("pointerdown", start, true);  // a number input's step buttons
    const size = (d) => d == null ? 0 : (d.byteLength ?? d.size ?? d.length ?? 0);
    const Native = window.WebSocket;
    class TimedWebSocket extends Native {
        constructor(...args) {
            super(...args);
            this.addEventListener("message",
                (e) => bench.log.push(["in", performance.now(), size(e.data)]));
        }
        send(data) {
            bench.log.push(["out", performance.now(), size(data)]);
            return super.send(data);
        }
    }
    window.WebSocket = TimedWebSocket;
})();"""

IDLE = """() => !document.querySelector('[data-testid="stStatusWidget"]')
    && !document.querySelector('[data-testid="stMain"] [data-testid="stProgress"]')"""

REDRAWN = """() => {
    if (document.querySelector('[data-testid="stException"]')) return "exception";
    if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
    const now = window.__benchSig();
    if (now === null || now === window.__bench.before) return false;
    return performance.now();
}"""

ARM = """() => {
    const b = window.__bench;
    b.before = window.__benchSig();
    b.keyT = null;
    b.log = [];
    return b.before;
}"""

CHARTS = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
    .map((el) => el.offsetParent !== null)"""


@dataclass
class Move:
    """One timed move (milliseconds, page clock) and what the WebSocket carried."""

    total: float
    request: float | None
    first_message: float | None
    server: float | None
    draw: float | None
    kb_in: float
    messages_in: int
    largest_kb: float
    value: str


@dataclass
class Result:
    target: Target
    first_load: float | None = None
    first_kb: float = 0.0  # received over the WebSocket during the first render
    first_largest_kb: float = 0.0
    moves: list[Move] = field(default_factory=list)
    values: set[str] = field(default_factory=set)
    charts: tuple[int, int] = (0, 0)  # (visible, in the DOM)
    error: str | None = None
    note: str | None = None
    done: bool = False

    def median(self) -> float:
        return statistics.median(m.total for m in self.moves) / 1000

    def worst(self) -> float:
        return max(m.total for m in self.moves) / 1000


# -- servers --------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(script: str, log: Path) -> Iterator[str]:
    """``streamlit run script`` from the repository root on a free port; yields its URL."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    command = [
        sys.executable, "-m", "streamlit", "run", script,
        "--server.port", str(port),
        "--server.address", "127.0.0.1",
        "--server.headless", "true",
        "--browser.gatherUsageStats", "false",
        # Measure the code as it was at start-up: edits made meanwhile (other people working in
        # the checkout) must not reload modules in the middle of a run.
        "--server.fileWatcherType", "none",
    ]  # fmt: skip
    env = {**os.environ, "EXPLORER_PREPARE": "0"}  # cold is cold: no self-preparation
    with log.open("w") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{script}: streamlit exited with {proc.returncode}:\n"
                                   f"{log.read_text()}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{script}: not healthy after {STARTUP_TIMEOUT:.0f} s")
            time.sleep(0.25)
        yield url
    finally:
        stop(proc)


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


def new_tab(browser: Browser) -> Page:
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(INIT_SCRIPT)
    context.set_default_timeout(30_000)
    return context.new_page()


# -- slider moves ---------------------------------------------------------------------------------


def _thumb(page: Page, target: Target):
    """The slider's thumb, or a number input's field."""
    area = page.get_by_test_id("stSidebar" if target.sidebar else "stMain")
    if target.number:
        return area.get_by_test_id("stNumberInput").filter(has_text=target.slider).get_by_role(
            "spinbutton")
    return area.get_by_test_id("stSlider").filter(has_text=target.slider).get_by_role("slider")


def _step(page: Page, target: Target, key: str) -> str:
    """Click a number input's "+" (ArrowRight) or "-" (ArrowLeft); returns its value before.
    Raises :class:`EndOfSlider` at its bound."""
    area = page.get_by_test_id("stSidebar" if target.sidebar else "stMain")
    box = area.get_by_test_id("stNumberInput").filter(has_text=target.slider)
    button = box.get_by_test_id("stNumberInputStepUp" if key == "ArrowRight"
                                else "stNumberInputStepDown")
    value = box.get_by_role("spinbutton").input_value()
    if button.is_disabled():
        raise EndOfSlider(f"the number input is at its bound ({value})")
    if page.evaluate(ARM) is None:
        raise RuntimeError("nothing to compare: the change detector found no figure")
    button.click()
    return value


def wait_idle(page: Page, timeout: float) -> None:
    page.wait_for_function(IDLE, timeout=timeout * 1000, polling=50)


def open_target(page: Page, url: str, target: Target, query: str = "") -> float:
    """Load the target's page (with the link parameters ``query``) and wait for its first
    render; returns seconds taken."""
    t0 = time.perf_counter()
    query = "&".join(q for q in (target.query, query) if q)
    page.goto(url + target.path + (f"?{query}" if query else ""))
    page.evaluate(f"() => {{ window.__benchSig = {target.detector}; }}")
    page.wait_for_function(
        "() => window.__benchSig() !== null", timeout=target.first_load_timeout * 1000, polling=50
    )
    wait_idle(page, target.first_load_timeout)
    elapsed = time.perf_counter() - t0
    if not urlparse(page.url).path.rstrip("/").endswith(target.path.rstrip("/")):
        raise RuntimeError(f"{target.path} is not a page of the app (sent to {page.url})")
    if page.get_by_test_id("stException").count():
        raise RuntimeError("the page shows an exception after its first render")
    _thumb(page, target).wait_for(state="visible", timeout=10_000)
    return elapsed


class EndOfSlider(Exception):
    """The slider cannot move further in the requested direction."""


def move(page: Page, target: Target, key: str) -> Move:
    """Press ``key`` on the target's slider and time the redraw."""
    wait_idle(page, target.move_timeout)
    time.sleep(SETTLE)
    page.bring_to_front()
    thumb = _thumb(page, target)
    if target.number:
        _step(page, target, key)
        return _timed(page, target, lambda: thumb.input_value())
    now, low, high = (thumb.get_attribute(a) for a in
                      ("aria-valuenow", "aria-valuemin", "aria-valuemax"))
    end = high if key == "ArrowRight" else low
    if now is not None and end is not None and float(now) == float(end):
        raise EndOfSlider(f"the slider is at its end ({thumb.get_attribute('aria-valuetext')})")
    thumb.focus()
    if page.evaluate(ARM) is None:
        raise RuntimeError("nothing to compare: the change detector found no figure")
    text = thumb.get_attribute("aria-valuetext")
    thumb.press(key)
    if now is None:  # a select slider without aria-valuenow: at its end its text does not move
        for _ in range(30):
            if thumb.get_attribute("aria-valuetext") != text:
                break
            time.sleep(0.1)
        else:
            raise EndOfSlider(f"the slider is at its end ({text})")
    return _timed(page, target, lambda: thumb.get_attribute("aria-valuetext") or "?")


def _timed(page: Page, target: Target, value: Callable[[], str]) -> Move:
    """Wait for the redraw that the key press or click just started, and time it."""
    done = page.wait_for_function(
        REDRAWN, timeout=target.move_timeout * 1000, polling=POLL_MS
    ).json_value()
    if done == "exception":
        raise RuntimeError("the page shows an exception after a move")
    bench = page.evaluate("() => window.__bench")
    key_t, log = bench["keyT"], bench["log"]
    sent = [t for kind, t, _ in log if kind == "out" and t >= key_t]
    received = [(t, n) for kind, t, n in log if kind == "in" and t <= done]
    last_in = received[-1][0] if received else None
    first_in = next((t for t, _ in received if sent and t >= sent[0]), None)
    return Move(
        total=done - key_t,
        request=sent[0] - key_t if sent else None,
        first_message=first_in - sent[0] if sent and first_in is not None else None,
        server=last_in - sent[0] if sent and last_in is not None else None,
        draw=done - last_in if last_in is not None else None,
        kb_in=sum(n for _, n in received) / 1024,
        messages_in=len(received),
        largest_kb=max((n for _, n in received), default=0) / 1024,
        value=value(),
    )


def run_moves(browser: Browser, urls: dict[str, str], targets: list[Target], moves: int,
              warmup: int, fresh: bool = False) -> list[Result]:
    """Open every target in its own tab, then move each slider in turn.

    ``fresh``: always ArrowRight (every move goes to a value not shown before in this server,
    so no cache helps) until the slider's end; else ArrowRight and ArrowLeft alternately.
    """
    results = [Result(t) for t in targets]
    pages: list[Page | None] = []
    for result in results:
        t = result.target
        page = new_tab(browser)
        try:
            if t.script == APP_SCRIPT:
                # A fresh server shows file-based navigation on a direct link until someone has
                # opened "/" (issue 8); open "/" first so every target runs under app.py.
                page.goto(urls[t.script])
                wait_idle(page, t.first_load_timeout)
            result.first_load = open_target(page, urls[t.script], t,
                                            t.start if fresh else "")
            sizes = [n for kind, _, n in page.evaluate("() => window.__bench.log") if kind == "in"]
            result.first_kb, result.first_largest_kb = sum(sizes) / 1024, max(sizes) / 1024
            print(f"  {t.name}: first render in {result.first_load:.1f} s", flush=True)
            pages.append(page)
        except Exception as exc:  # report and go on with the other targets
            result.error = f"first load: {_short(exc)}"
            print(f"  {t.name}: {result.error}", flush=True)
            page.context.close()
            pages.append(None)
    for i in range(warmup + moves):
        key = "ArrowRight" if fresh or i % 2 == 0 else "ArrowLeft"
        for result, page in zip(results, pages, strict=True):
            if page is None or result.error or result.done:
                continue
            try:
                m = move(page, result.target, key)
            except EndOfSlider as exc:
                result.note = f"{len(result.moves)} moves: {exc}"
                result.done = True
                continue
            except Exception as exc:
                result.error = f"move {i + 1}: {_short(exc)}"
                print(f"  {result.target.name}: {result.error}", flush=True)
                continue
            result.values.add(m.value)
            if i >= warmup:
                result.moves.append(m)
        label = "warm-up" if i < warmup else f"move {i - warmup + 1}/{moves}"
        print(f"  {label}: " + ", ".join(
            f"{r.target.name} {r.moves[-1].total:.0f} ms" for r in results
            if r.moves and i >= warmup and not r.error), flush=True)
    for result, page in zip(results, pages, strict=True):
        if page is not None:
            with contextlib.suppress(Exception):
                shown = page.evaluate(CHARTS)
                result.charts = (sum(shown), len(shown))
            page.context.close()
    return results


def _short(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__


def _med(values: list[float | None]) -> str:
    present = [v for v in values if v is not None]
    return f"{statistics.median(present):.0f}" if present else "-"


def table(results: list[Result], moves: int, warmup: int, fresh: bool) -> str:
    floor = next((r for r in results if r.target is FLOOR and r.moves), None)
    base = floor.median() if floor else None
    how = ("ArrowRight only, every move to a value not shown before, until the slider's end"
           if fresh else f"after {warmup} warm-up moves, ArrowRight/ArrowLeft alternately")
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        f"Key press to redrawn figure in Chromium, up to {moves} moves per slider ({how}), "
        "targets interleaved move by move; the floor is benchmarks/floor_page.py. "
        f"{os.cpu_count()} CPUs, load average at the end {load} (1 / 5 / 15 min).",
        "",
        "| page: slider | values | median (s) | worst (s) | median / floor | first render (s) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in results:
        name = f"{r.target.name}: {r.target.slider}"
        first = f"{r.first_load:.1f}" if r.first_load is not None else "-"
        if not r.moves:
            lines.append(f"| {name} | - | failed: {r.error} | | | {first} |")
            continue
        ratio = f"{r.median() / base:.2f}x" if base else "-"
        values = " / ".join(sorted(r.values, key=_as_number))
        note = "".join(f" ({n})" for n in (r.error, r.note) if n)
        lines.append(f"| {name} | {values} | {r.median():.2f}{note} | {r.worst():.2f} | "
                     f"{ratio} | {first} |")
    lines += [
        "",
        "Where a move's time goes (medians, ms): *request* = key press to the rerun request "
        "leaving the page; *1st msg* = request to the server's first message; *server* = request "
        "to the last message (script run and transfer); *draw* = last message to the redrawn "
        "figure. KB and messages received per move over the WebSocket (Streamlit replaces an "
        "element it sent before by a reference, so repeated figures cost little); the first "
        "render's KB and largest message show the full figures' size. Charts: Plotly charts "
        "visible / in the page.",
        "",
        "| page: slider | request | 1st msg | server | draw | KB / move | largest msg (KB) | "
        "msgs | first render KB (largest) | charts |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        if not r.moves:
            continue
        ms = r.moves
        lines.append(
            f"| {r.target.name} | {_med([m.request for m in ms])} | "
            f"{_med([m.first_message for m in ms])} | "
            f"{_med([m.server for m in ms])} | {_med([m.draw for m in ms])} | "
            f"{statistics.median(m.kb_in for m in ms):.1f} | "
            f"{statistics.median(m.largest_kb for m in ms):.1f} | "
            f"{statistics.median(m.messages_in for m in ms):.0f} | "
            f"{r.first_kb:.0f} ({r.first_largest_kb:.0f}) | "
            f"{r.charts[0]} / {r.charts[1]} |"
        )
    return "\n".join(lines)


def _as_number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return float("inf")


# -- upload ---------------------------------------------------------------------------------------

REGIONS = ("north", "south", "east", "west", "centre")
EDUCATION = ("none", "primary", "secondary", "vocational", "bachelor", "master", "doctorate",
             "other")


def write_upload(rows: int, folder: Path, *, rng: int = 0) -> tuple[Path, Path, Path]:
    """A seeded CSV of ``rows`` rows and 10 columns, and its split into public and private files.

    The private file takes 70% of the southern and western rows and 30% of the others, so the
    two files differ the way the importance weights are meant to correct.

    Returns
    -------
    whole, public, private : Path
        The CSV with every row, and the two halves of the split (``rows`` rows between them).
    """
    import pandas as pd

    gen = np.random.default_rng(rng)
    region = gen.choice(REGIONS, rows)
    age = gen.integers(18, 91, rows)
    education = gen.choice(EDUCATION, rows)
    hours = np.clip(gen.normal(38, 10, rows).round(), 1, 99).astype(int)
    income = np.round(np.exp(gen.normal(10 + 0.01 * (age - 40), 0.6, rows)), 2)
    frame = pd.DataFrame({
        "age": age,
        "sex": gen.choice(("F", "M"), rows),
        "region": region,
        "education": education,
        "hours": hours,
        "income": income,
        "score": np.round(gen.normal(0, 1, rows), 4),
        "height": np.round(gen.normal(170, 9, rows), 1),
        "smoker": gen.choice(("yes", "no"), rows, p=(0.2, 0.8)),
        "label": (gen.random(rows) < 1 / (1 + np.exp(-(income - 25000) / 10000))).astype(int),
    })
    private = gen.random(rows) < np.where(np.isin(region, ("south", "west")), 0.7, 0.3)
    paths = folder / "upload.csv", folder / "upload_public.csv", folder / "upload_private.csv"
    frame.to_csv(paths[0], index=False)
    frame[~private].to_csv(paths[1], index=False)
    frame[private].to_csv(paths[2], index=False)
    return paths


def _wait_with_progress(page: Page, done: Callable[[], bool], what: str, timeout: float,
                        every: float = 5.0) -> float:
    """Poll ``done`` until true, printing the elapsed time and any progress text."""
    t0 = time.perf_counter()
    last = t0
    while not done():
        now = time.perf_counter()
        if now - t0 > timeout:
            raise TimeoutError(f"{what}: not done after {timeout:.0f} s")
        if page.get_by_test_id("stException").count():
            raise RuntimeError(f"{what}: the page shows an exception")
        if now - last >= every:
            last = now
            main = page.get_by_test_id("stMain")
            texts = (main.get_by_test_id("stProgress").all_inner_texts()
                     + main.get_by_test_id("stAlert").all_inner_texts())
            note = f" ({'; '.join(t.strip() for t in texts if t.strip())})" if texts else ""
            print(f"  {what}: {now - t0:.0f} s{note}", flush=True)
        page.wait_for_timeout(100)
    return time.perf_counter() - t0


def run_upload(browser: Browser, url: str, rows: int, mode: str, timeout: float) -> str:
    """Upload a generated CSV on the home page, open the importance page, time both."""
    shot = ROOT / "tests" / "artifacts" / "bench-upload.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-upload-") as tmp:
        t0 = time.perf_counter()
        whole, public, private = write_upload(rows, Path(tmp))
        sent = [whole] if mode == "one" else [public, private]
        sizes = ", ".join(f"{p.name} {p.stat().st_size / 2**20:.1f} MB" for p in sent)
        print(f"  wrote {rows:,} rows in {time.perf_counter() - t0:.1f} s: {sizes}", flush=True)
        page = new_tab(browser)
        try:
            steps = _upload_steps(page, url, whole if mode == "one" else (public, private),
                                  timeout)
        except Exception:
            page.screenshot(path=shot.with_name("bench-upload-failed.png"), full_page=True)
            raise
        page.screenshot(path=shot)
        page.context.close()
    lines = [
        f"Upload of {rows:,} rows x 10 columns ({sizes}), then the importance page's first "
        f"render, in Chromium; {os.cpu_count()} CPUs, load average at the end "
        + " / ".join(f"{x:.1f}" for x in os.getloadavg()) + ".",
        "",
        "| step | seconds |",
        "|---|---:|",
    ]
    lines += [f"| {step} | {seconds:.1f} |" for step, seconds in steps.items()]
    lines += ["", f"Screenshot: {shot.relative_to(ROOT)}. Issue 8's target: files chosen to "
              "first figure <= 20 s."]
    return "\n".join(lines)


def _upload_steps(page: Page, url: str, files: Path | tuple[Path, Path],
                  timeout: float) -> dict[str, float]:
    page.goto(url)
    wait_idle(page, 240)
    sidebar = page.get_by_test_id("stSidebar")
    main = page.get_by_test_id("stMain")
    sidebar.get_by_text("Upload", exact=True).click()
    uploaders = sidebar.get_by_test_id("stFileUploader")
    uploaders.first.wait_for(state="visible")
    if isinstance(files, Path):
        sidebar.get_by_text("One file, split by a rule", exact=True).click()
        wait_idle(page, 60)
        inputs = {"CSV to split": files}
    else:
        inputs = {"Public CSV": files[0], "Private CSV": files[1]}
    wait_idle(page, 60)
    t_files = time.perf_counter()
    for label, path in inputs.items():
        uploaders.filter(has_text=label).locator("input[type=file]").set_input_files(path)

    def home_done() -> bool:
        return (main.get_by_role("heading").filter(has_text="Uploaded data").count() > 0
                and page.evaluate(IDLE))

    _wait_with_progress(page, home_done, "upload on the home page", timeout)
    home = time.perf_counter() - t_files
    print(f"  home page shows the upload after {home:.1f} s", flush=True)
    t_nav = time.perf_counter()
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Importance weighting").click()
    page.wait_for_url("**/importance")
    drawn = main.locator(".js-plotly-plot g.trace")
    first = _wait_with_progress(page, lambda: drawn.count() > 0,
                                "importance page, first figure", timeout)
    t_first = time.perf_counter()
    print(f"  importance page: first figure after {first:.1f} s", flush=True)
    _wait_with_progress(page, lambda: page.evaluate(IDLE), "importance page, rerun", timeout)
    if page.get_by_test_id("stException").count():
        raise RuntimeError("the importance page shows an exception")
    return {
        "files chosen to the home page showing the upload": home,
        "Importance weighting clicked to its first figure drawn": first,
        "Importance weighting clicked to its rerun over": time.perf_counter() - t_nav,
        "**files chosen to the importance page's first figure**": t_first - t_files,
    }


# -- main -----------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=9, help="measured moves per slider")
    parser.add_argument("--warmup", type=int, default=2, help="unmeasured moves first")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="measure only this target (repeatable; the floor always runs); "
                        "names: " + ", ".join(t.name for t in TARGETS))
    parser.add_argument("--fresh", action="store_true",
                        help="no warm-up, ArrowRight only: every move to a value not shown before")
    parser.add_argument("--out", type=Path, help="also write the markdown table to this file")
    parser.add_argument("--upload", type=int, metavar="ROWS",
                        help="time an upload of ROWS rows and the importance page's first render")
    parser.add_argument("--upload-mode", choices=("two", "one"), default="two",
                        help="two files (public, private) or one file split by the app")
    parser.add_argument("--upload-timeout", type=float, default=900.0)
    args = parser.parse_args()

    targets = TARGETS
    if args.only:
        unknown = set(args.only) - {t.name for t in TARGETS}
        if unknown:
            parser.error(f"unknown target(s) {sorted(unknown)}; choose from "
                         f"{[t.name for t in TARGETS]}")
        targets = [t for t in TARGETS if t.name in args.only]

    logs = Path(tempfile.mkdtemp(prefix="bench-browser-"))  # kept: the servers' logs
    print(f"Server logs in {logs}", flush=True)
    with contextlib.ExitStack() as stack:
        if args.upload:
            url = stack.enter_context(streamlit_server(APP_SCRIPT, logs / "app.log"))
            browser = stack.enter_context(chromium())
            print(f"Uploading {args.upload:,} rows to {url}", flush=True)
            text = run_upload(browser, url, args.upload, args.upload_mode, args.upload_timeout)
        else:
            scripts = {FLOOR_SCRIPT} | {t.script for t in targets}
            urls = {s: stack.enter_context(streamlit_server(s, logs / f"{Path(s).stem}.log"))
                    for s in sorted(scripts)}
            browser = stack.enter_context(chromium())
            print("Servers: " + ", ".join(f"{s} at {u}" for s, u in urls.items()), flush=True)
            warmup = 0 if args.fresh else args.warmup
            results = run_moves(browser, urls, [FLOOR, *targets], args.moves, warmup, args.fresh)
            text = table(results, args.moves, warmup, args.fresh)
    print()
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
