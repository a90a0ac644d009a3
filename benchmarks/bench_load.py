"""A class on one server: N simulated users against ``streamlit run app.py``, without browsers.

Run: ``python benchmarks/bench_load.py --users N --seconds S [--uploads SHARE] [--json FILE]``
(``--help`` for the schedule's settings).

The benchmark starts its own ``streamlit run app.py`` on a free port of 127.0.0.1 (headless,
no file watcher, one BLAS thread, as the test suite's servers), waits for ``/_stcore/health``,
then plays N users with Locust (run as a library, headless): each user is a WebSocket that
speaks Streamlit's protocol (:mod:`ui.protocol`), arriving within ``--ramp`` seconds. A user
opens one page with an ε slider, views and a Publish button (the pages of :data:`PAGES`, in
turn), then acts on a think-time schedule (``--think`` seconds between actions, uniform,
seeded per user): moves the ε slider one step (``epsilon_move``), picks another view
(``view_switch``), or opens the Publish view and presses Publish (``publish``; where ε is more
than the session's budget has left, 1 at first, the user first raises the budget in the sidebar
to its largest value, 100: ``budget_change``). Each action is timed from the rerun request to
the ``script_finished`` that ends it; ``first_render`` is the page's first run.

With ``--uploads SHARE``, that share of the users open the importance page on a link that chooses
an upload (one file, split at random) and upload a 20,000-row CSV generated in memory whose
column name carries a random marker of the user's own (``upload``: from the upload request to
the end of the rerun that reads the file). Every message every user receives is checked for the
markers: a user that receives another's marker is a *crossed session*; an uploading user that
never receives its own is an error (its upload did not reach the page). The server's output is
kept in memory and checked for the markers too.

The server imports the app's modules when it starts and prepares the class pages by itself in
the background while it is idle (``ui/warm.py``; ``EXPLORER_PREPARE=0`` in the environment turns
the preparation off). With ``--warm``, one visit to the home page comes first (untimed), as on a
server that has served one visitor (the teacher, checking it works); without it the users
arrive at a server that has served nobody. With ``--walk``, the teacher prepares
the class instead (untimed, before the users arrive): opens each page of :data:`PAGES`, shows
each of its views (Publish too, unpressed) and moves its ε slider across every value in each,
so that the cache every session shares holds those results and their figures
(``docs/class.md``).

After ``--seconds`` the users finish the action in progress and leave; every user stops after
``--max-actions`` actions, and an action that waits longer than ``--timeout`` is an error, so a
run is bounded in users, actions and time. Locust's statistics give p50/p95/p99 per action kind
(Locust keeps response times to two significant digits); ``psutil`` gives the server's resident
memory (the server process and its children) and its CPU time during the load.

With ``--url URL``, the users play against a server already running there instead (e.g. the
proxy of ``scripts/serve_class.py``, several processes); ``--server-pid PID`` (the launcher's)
names the process tree measured for CPU and memory (none: not measured). Its output is not
seen here: keep the launcher's output to check it for the uploads' markers (``LOAD`` and 12
hexadecimal digits).

The benchmark prints a table, writes JSON with ``--json`` and exits with status 1 on an error or a
crossed session, never because of a time.
"""

from __future__ import annotations

# isort: off
import locust  # first: gevent patches the standard library before anything else imports it
# isort: on
import argparse
import itertools
import json
import os
import random
import socket
import subprocess
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import gevent
import psutil
import requests
from bench_upload import make_upload_csv
from locust.env import Environment
from locust.exception import StopUser
from locust.stats import StatsEntry
from timing import stop

from dpcore.runs.scenarios import AT_RANDOM, ONE_FILE, UPLOAD
from ui.protocol import (
    CLASS_PAGES,
    EPSILON_LABEL,
    PUBLISH_VIEW,
    VIEW_LABEL,
    MarkerBoard,
    ProtocolError,
    Run,
    StreamlitClient,
    StreamlitVersionError,
    Widget,
    check_streamlit,
    walk,
)

ROOT = Path(__file__).resolve().parents[1]
#: The pages users open, in turn (:data:`ui.protocol.CLASS_PAGES`).
PAGES = CLASS_PAGES
#: The page an uploading user opens: its query builder lists the upload's columns.
UPLOAD_PAGE = "importance"
UPLOAD_QUERY = urlencode({"source": UPLOAD, "upload_mode": ONE_FILE, "split_rule": AT_RANDOM})
UPLOAD_ROWS = 20_000
UPLOAD_LABEL = "CSV to split"
BUDGET_LABEL = "Total ε for this session"
BUDGET_MAX = 100.0  # the sidebar's largest total ε
#: Action kinds, in the order of the report, and the weights of the think-time schedule.
KINDS = ("first_render", "upload", "epsilon_move", "view_switch", "publish", "budget_change")
WEIGHTS = {"epsilon_move": 6, "view_switch": 2, "publish": 1}
STARTUP_TIMEOUT = 90.0
LOG_LINES = 2000  # the server's last lines kept in memory (never written to disk)
LOG_TAIL = 60  # of which shown after an error
MB = 1024 * 1024


@dataclass
class Settings:
    """One run's settings, shared by its users.

    Attributes
    ----------
    base_url : str
        The server (``http://127.0.0.1:PORT``).
    uploads : list of (str, bytes)
        The marker and the CSV of each uploading user (the first ones), made before the load
        starts (making one holds the process, hence every user, for a moment).
    users : int
        Users in the run; user i arrives ``ramp * i / users`` seconds after the first.
    ramp : float
        Seconds over which the users arrive.
    think : tuple of float
        Seconds between two actions of a user, at least and at most.
    max_actions : int
        Actions of one user, first render included, at most.
    timeout : float
        Seconds an action may wait for its end.
    seed : int
        Seeds every user's schedule (user i: ``seed``, ``i``).
    board : MarkerBoard
        The uploads' markers.
    counter : iterator of int
        Hands out the users' indices.
    clients : list of StreamlitClient
        Every user's client, for the crossed-session check.
    """

    base_url: str
    users: int
    ramp: float
    uploads: list[tuple[str, bytes]]
    think: tuple[float, float]
    max_actions: int
    timeout: float
    seed: int
    board: MarkerBoard
    counter: Iterator[int] = field(default_factory=itertools.count)
    clients: list[StreamlitClient] = field(default_factory=list)


class ClassUser(locust.User):
    """A student: opens a page, then moves ε, switches views and publishes, with pauses."""

    settings: Settings  # set by :func:`run_load` before the users start

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        settings = self.settings
        self.index = next(settings.counter)
        self.rng = random.Random(f"{settings.seed}-{self.index}")
        self.uploads = self.index < len(settings.uploads)
        self.page = UPLOAD_PAGE if self.uploads else PAGES[self.index % len(PAGES)]
        self.where = f"{self.page} (upload)" if self.uploads else self.page  # in the report
        marker = settings.uploads[self.index][0] if self.uploads else None
        self.client = StreamlitClient(settings.base_url, settings.board, marker=marker,
                                      timeout=settings.timeout)
        settings.clients.append(self.client)
        self.done = 0

    def wait_time(self) -> float:
        """The think time before the next action (seeded per user)."""
        return self.rng.uniform(*self.settings.think)

    @locust.task
    def act(self) -> None:
        """The user's next action: the page's first render (and upload), then one at random."""
        if self.done >= self.settings.max_actions:
            raise StopUser()
        if self.done == 0:
            gevent.sleep(self.settings.ramp * self.index / self.settings.users)
            self._timed("first_render", self._open)
            if self.uploads:
                self._timed("upload", self._upload)
            return
        kind = self.rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]
        getattr(self, f"_{kind}")()

    def on_stop(self) -> None:
        """Leave: close the WebSocket."""
        self.client.close()

    def _open(self) -> Run:
        self.client.connect()
        return self.client.open_page(self.page, UPLOAD_QUERY if self.uploads else "")

    def _upload(self) -> Run:
        data = self.settings.uploads[self.index][1]
        run = self.client.upload(self.client.find("file_uploader", UPLOAD_LABEL), "mine.csv", data)
        if not self.client.own_marker_seen:
            raise ProtocolError("the page never showed the uploaded file's columns")
        return run

    def _epsilon_move(self) -> None:
        slider = self.client.find("slider", EPSILON_LABEL)
        self._timed("epsilon_move", lambda: self.client.choose(slider, [self._step(slider)]))

    def _view_switch(self) -> None:
        views = self.client.find("button_group", VIEW_LABEL)
        current = self.client.value(views) or []
        others = [v for v in views.options if v != PUBLISH_VIEW and v not in current]
        self._timed("view_switch", lambda: self.client.choose(views, [self.rng.choice(others)]))

    def _publish(self) -> None:
        views = self.client.find("button_group", VIEW_LABEL)
        if self.client.value(views) != [PUBLISH_VIEW]:
            self._timed("view_switch", lambda: self.client.choose(views, [PUBLISH_VIEW]))
        button = self.client.drawn("button", PUBLISH_VIEW)
        budget = self.client.find("number_input", BUDGET_LABEL)
        if button is not None and button.element.disabled and \
                self.client.value(budget) < BUDGET_MAX:
            # ε is over what is left of the session's budget (1 at first): raise the budget
            self._timed("budget_change", lambda: self.client.enter(budget, BUDGET_MAX))
            button = self.client.drawn("button", PUBLISH_VIEW)
        if button is None or button.element.disabled:
            # The page refuses to publish (its warning says why) or the budget is spent: a
            # person cannot press, and moves ε instead.
            self._epsilon_move()
            return
        self._timed("publish", lambda: self.client.press(button))

    def _step(self, slider: Widget) -> str:
        """The ε one step left or right of the slider's value (inwards at either end)."""
        options = slider.options
        now = options.index((self.client.value(slider) or [options[0]])[0])
        step = self.rng.choice((-1, 1))
        if not 0 <= now + step < len(options):
            step = -step
        return options[now + step]

    def _timed(self, kind: str, action: Callable[[], Run]) -> None:
        """Run one action and report it to Locust; after a failure the user leaves."""
        self.done += 1
        start = time.perf_counter()
        try:
            run = action()
        except (ProtocolError, OSError, requests.RequestException) as exc:
            self.environment.events.request.fire(
                request_type=self.where, name=kind, response_time=1000 * (
                    time.perf_counter() - start), response_length=0, exception=exc)
            raise StopUser() from exc
        self.environment.events.request.fire(
            request_type=self.where, name=kind, response_time=1000 * run.seconds,
            response_length=run.nbytes, exception=None)


def marked_csv(marker: str, seed: int) -> bytes:
    """A 20,000-row upload (:func:`bench_upload.make_upload_csv`) whose ``region`` column is
    renamed ``region<marker>``, in memory."""
    data = make_upload_csv(UPLOAD_ROWS, seed=seed)
    header, _, rows = data.partition(b"\n")
    return header.replace(b"region", f"region{marker}".encode()) + b"\n" + rows


# -- the server -------------------------------------------------------------------------------


@dataclass
class Server:
    """The server under load: its address, the processes measured, its output's last lines and
    a memory sampler.

    Attributes
    ----------
    base_url : str
    process : subprocess.Popen or None
        The ``streamlit run`` this benchmark started (None for a server it was given: ``--url``).
    pids : list of int
        The processes whose trees are measured (the started one's, or ``--server-pid``'s).
    """

    base_url: str
    process: subprocess.Popen | None = None
    pids: list[int] = field(default_factory=list)
    log: deque[str] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    rss_peak: float = 0.0

    def alive(self) -> bool:
        """Whether the server runs: the started process, or every measured one."""
        if self.process is not None:
            return self.process.poll() is None
        return all(psutil.pid_exists(pid) for pid in self.pids)

    def _total(self, measure: Callable[[psutil.Process], float]) -> float:
        """``measure`` summed over the measured processes and their children (0 once they
        exited)."""
        tree = []
        for pid in self.pids:
            with suppress(psutil.NoSuchProcess):
                main = psutil.Process(pid)
                tree += [main, *main.children(recursive=True)]
        total = 0.0
        for process in tree:
            with suppress(psutil.NoSuchProcess):  # a child that has just exited
                total += measure(process)
        return total

    def rss_mb(self) -> float:
        """Resident memory of the process trees, MB."""
        return self._total(lambda p: p.memory_info().rss) / MB

    def cpu_s(self) -> float:
        """CPU seconds of the process trees (user and system)."""
        return self._total(lambda p: sum(p.cpu_times()[:2]))

    def sample(self) -> None:
        """Follow the peak of resident memory, once a second (a greenlet)."""
        while self.pids and self.alive():
            self.rss_peak = max(self.rss_peak, self.rss_mb())
            gevent.sleep(1.0)

    def read_output(self) -> None:
        """Keep the started server's output in memory (a greenlet)."""
        for line in self.process.stdout:
            self.log.append(line.decode(errors="replace"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_healthy(server: Server) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if not server.alive():
            raise RuntimeError("the server exited:\n" + "".join(server.log))
        try:
            if requests.get(f"{server.base_url}/_stcore/health", timeout=2).ok:
                return
        except requests.RequestException:
            pass
        gevent.sleep(0.25)
    raise RuntimeError(f"streamlit was not healthy after {STARTUP_TIMEOUT:.0f} s")


@contextmanager
def streamlit_server() -> Iterator[Server]:
    """``streamlit run app.py`` on a free port of 127.0.0.1, stopped on exit."""
    port = _free_port()
    command = [
        sys.executable, "-m", "streamlit", "run", "app.py",
        "--server.port", str(port),
        "--server.address", "127.0.0.1",
        "--server.headless", "true",
        "--browser.gatherUsageStats", "false",
        "--server.fileWatcherType", "none",
    ]  # fmt: skip
    env = dict(os.environ)  # the server limits its BLAS threads itself (ui.warm)
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
    server = Server(f"http://127.0.0.1:{port}", process, [process.pid])
    readers = [gevent.spawn(server.read_output), gevent.spawn(server.sample)]
    try:
        _wait_healthy(server)
        yield server
    finally:
        stop(process)
        gevent.joinall(readers, timeout=5)


@contextmanager
def running_server(url: str, pids: list[int]) -> Iterator[Server]:
    """A server started by someone else (``scripts/serve_class.py``) at ``url``, measured
    through the process trees of ``pids``; its output is not seen here."""
    server = Server(url.rstrip("/"), pids=pids)
    sampler = gevent.spawn(server.sample)
    try:
        _wait_healthy(server)
        yield server
    finally:
        sampler.kill()


# -- the load and its report ------------------------------------------------------------------


def warm_up(server: Server, timeout: float) -> None:
    """One visit to the home page, untimed: the app's modules are imported."""
    client = StreamlitClient(server.base_url, MarkerBoard(), timeout=timeout)
    client.connect()
    try:
        client.open_page("")
    finally:
        client.close()


def run_load(server: Server, args: argparse.Namespace) -> dict:
    """Play ``args.users`` users against ``server`` for ``args.seconds``; the report."""
    board = MarkerBoard()
    markers = [board.new() for _ in range(round(args.uploads * args.users))]
    uploads = [(marker, marked_csv(marker, seed=i)) for i, marker in enumerate(markers)]
    settings = Settings(server.base_url, args.users, args.ramp, uploads=uploads, board=board,
                        think=(args.think_min, args.think_max), max_actions=args.max_actions,
                        timeout=args.timeout, seed=args.seed)
    ClassUser.settings = settings
    ClassUser.host = server.base_url
    env = Environment(user_classes=[ClassUser], stop_timeout=args.timeout, catch_exceptions=True)
    user_errors: Counter[str] = Counter()
    env.events.user_error.add_listener(
        lambda user_instance, exception, tb: user_errors.update([repr(exception)]))
    runner = env.create_local_runner()
    rss_start, cpu_start, own_cpu = server.rss_mb(), server.cpu_s(), time.process_time()
    began = time.perf_counter()
    # Every user at once (a user that leaves early is not replaced); each waits for its own
    # arrival time (:meth:`ClassUser.act`).
    runner.start(args.users, spawn_rate=args.users)
    gevent.sleep(args.seconds)
    rss_loaded = server.rss_mb()  # every session still open
    runner.quit()  # the users finish the action in progress and leave
    alive = server.alive()
    cpu = server.cpu_s() - cpu_start if alive and server.pids else None
    wall = time.perf_counter() - began
    report = summary(env, settings, args)
    actions = report["actions"]
    problems = _problems(server, settings, user_errors)
    report.update(
        errors=report["errors"] + sum(problems.values()),
        error_messages={**report["error_messages"], **problems},
        server_alive=alive,
        url=server.base_url if server.process is None else None,
        processes_measured=len(server.pids),
        server_log_checked=server.process is not None,
        wall_s=round(wall, 1),
        server_cpu_s=round(cpu, 1) if cpu is not None else None,
        server_cpu_s_per_action=round(cpu / actions, 3) if cpu is not None and actions else None,
        load_cpu_s=round(time.process_time() - own_cpu, 1),
        rss_start_mb=round(rss_start, 1),
        rss_mb=round(rss_loaded, 1),
        rss_peak_mb=round(max(server.rss_peak, rss_loaded), 1),
        rss_per_session_mb=round((rss_loaded - rss_start) / args.users, 1),
    )
    return report


def _problems(server: Server, settings: Settings, user_errors: Counter[str]) -> dict[str, int]:
    """Errors outside the timed actions: the users' own (Locust's ``user_error``), a dead
    server, an upload's marker in the server's output."""
    problems = dict(user_errors)
    if not server.alive():
        problems["the server exited"] = 1
    if settings.board.found("".join(server.log).encode()):
        problems["an upload's marker in the server's output"] = 1
    return problems


def _entry_stats(entry: StatsEntry) -> dict:
    def seconds(q: float) -> float | None:
        return round(entry.get_response_time_percentile(q) / 1000, 3) if entry.num_requests \
            else None

    return {"count": entry.num_requests, "failures": entry.num_failures,
            "p50_s": seconds(0.50), "p95_s": seconds(0.95), "p99_s": seconds(0.99),
            "max_s": round(entry.max_response_time / 1000, 3) if entry.num_requests else None}


def _by_kind(env: Environment) -> dict[str, StatsEntry]:
    """Locust's entries (one per page and kind) merged per kind."""
    merged = {kind: StatsEntry(env.stats, kind, "all pages") for kind in KINDS}
    for (name, _page), entry in env.stats.entries.items():
        merged[name].extend(entry)
    return merged


def summary(env: Environment, settings: Settings, args: argparse.Namespace) -> dict:
    """The report's latencies, counts and checks (without the server's resources)."""
    by_kind = {kind: _entry_stats(entry) for kind, entry in _by_kind(env).items()}
    by_page: dict[str, dict] = {}
    for (name, page), entry in sorted(env.stats.entries.items()):
        by_page.setdefault(page, {})[name] = _entry_stats(entry)
    errors = Counter({f"{e.method} {e.name}: {e.error}": e.occurrences
                      for e in env.stats.errors.values()})
    uploaders = [c for c in settings.clients if c.marker is not None]
    report = {
        "users": args.users, "seconds": args.seconds, "uploads_share": args.uploads,
        "uploaders": len(uploaders), "pages": list(PAGES), "seed": args.seed,
        "think_s": [args.think_min, args.think_max], "warm": args.warm, "walk": args.walk,
        "actions": env.stats.total.num_requests, "errors": env.stats.total.num_failures,
        "error_messages": dict(errors),
        "crossed_sessions": sum(bool(c.crossed) for c in settings.clients),
        "uploads_seen_by_their_user": sum(c.own_marker_seen for c in uploaders),
    }
    for kind, stats in by_kind.items():
        for q in ("p50", "p95", "p99"):
            report[f"{q}_{kind}_s"] = stats[f"{q}_s"]
    report["by_action"] = by_kind
    report["by_page"] = by_page
    return report


def table(report: dict) -> str:
    """The report as a markdown table, with a line of totals under it."""
    lines = ["| action | count | failures | p50 (s) | p95 (s) | p99 (s) | max (s) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for kind, s in report["by_action"].items():
        if s["count"]:
            lines.append(f"| {kind} | {s['count']} | {s['failures']} | {s['p50_s']:.2f} | "
                         f"{s['p95_s']:.2f} | {s['p99_s']:.2f} | {s['max_s']:.2f} |")
    lines.append("")
    lines.append(
        f"{report['users']} users ({report['uploaders']} uploading), {report['seconds']} s: "
        f"{report['actions']} actions, {report['errors']} errors, "
        f"{report['crossed_sessions']} crossed sessions; server CPU "
        f"{report['server_cpu_s']} s ({report['server_cpu_s_per_action']} s per action), "
        f"resident memory {report['rss_start_mb']} MB at start, {report['rss_mb']} MB loaded "
        f"(peak {report['rss_peak_mb']} MB, {report['rss_per_session_mb']} MB per session)")
    for message, count in report["error_messages"].items():
        lines.append(f"- error x{count}: {message}")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, required=True, help="simulated users")
    parser.add_argument("--seconds", type=float, required=True,
                        help="how long users keep acting (then they finish and leave)")
    parser.add_argument("--uploads", type=float, default=0.0,
                        help="share of the users that upload a 20,000-row CSV (0 to 1)")
    parser.add_argument("--json", type=Path, help="write the report here")
    parser.add_argument("--warm", action="store_true",
                        help="visit the home page once before the users arrive (untimed)")
    parser.add_argument("--walk", action="store_true",
                        help="the teacher's preparation first (untimed): every page's views, "
                             "and its ε slider across every value")
    parser.add_argument("--ramp", type=float, default=3.0,
                        help="seconds over which the users arrive")
    parser.add_argument("--think-min", type=float, default=2.0)
    parser.add_argument("--think-max", type=float, default=6.0)
    parser.add_argument("--max-actions", type=int, default=200, help="per user")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds an action may wait for its end (longer: an error)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--url",
                        help="play against this running server (e.g. scripts/serve_class.py's "
                             "proxy) instead of starting one")
    parser.add_argument("--server-pid", type=int, action="append", default=[],
                        help="with --url: a process whose tree is the server, measured for CPU "
                             "and memory (serve_class.py prints its own; repeatable)")
    args = parser.parse_args(argv)
    if args.server_pid and not args.url:
        parser.error("--server-pid goes with --url")
    if args.users < 1 or args.seconds <= 0 or not 0 <= args.uploads <= 1:
        parser.error("--users >= 1, --seconds > 0 and 0 <= --uploads <= 1")
    if not 0 < args.think_min <= args.think_max:
        parser.error("0 < --think-min <= --think-max")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        check_streamlit()  # before a server starts: the users speak its protocol
    except StreamlitVersionError as exc:
        print(exc, file=sys.stderr)
        return 1
    serving = running_server(args.url, args.server_pid) if args.url else streamlit_server()
    with serving as server:
        if args.warm:
            warm_up(server, args.timeout)
        walked = walk(server.base_url, PAGES, timeout=args.timeout) if args.walk else None
        report = run_load(server, args)
        report["walk_s"] = walked
    print(table(report))
    if report["errors"]:
        print("The server's last lines:\n" + "".join(list(server.log)[-LOG_TAIL:]), file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    return 1 if report["errors"] or report["crossed_sessions"] else 0


if __name__ == "__main__":
    sys.exit(main())
