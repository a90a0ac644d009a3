"""The server that prepares itself (``ui/warm.py``, ``app.py``'s ``streamlit.App``).

In-process: which pages ``EXPLORER_PREPARE`` names, the local address built from Streamlit's
settings, and the background walk waiting while the machine is busy, stopping when asked and
saying why it stopped (a stand-in walk, no server). Then once against a real
``streamlit run app.py`` (slow lane): the server imports its libraries at start, walks one page by
itself, and a visitor who then opens that page gets its first view from the shared store (no
progress bar: nothing left to compute), where a page it did not walk still computes.
"""

from __future__ import annotations

import ast
import os
import queue
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from processes import output_lines

from benchmarks.timing import stop
from ui import protocol, warm

ROOT = Path(__file__).resolve().parents[1]
#: Seconds the server may take to print what the test waits for (a failure guard only: the
#: test waits for the line, not for a time).
LINE_TIMEOUT = 300


def test_pages_to_prepare_reads_the_setting():
    assert warm.pages_to_prepare(None) == protocol.CLASS_PAGES
    assert warm.pages_to_prepare("1") == protocol.CLASS_PAGES
    assert warm.pages_to_prepare(" off ") == ()
    assert warm.pages_to_prepare("0") == ()
    assert warm.pages_to_prepare("masking,importance") == ("masking", "importance")
    with pytest.raises(ValueError, match="give 0 .* importance, subset"):
        warm.pages_to_prepare("masking,slides")


def test_the_server_imports_the_module_that_every_session_imports_first():
    script = ast.parse((ROOT / "app.py").read_text())
    main = next(node for node in script.body if isinstance(node, ast.If))  # __name__ == ...
    first = next(node for node in main.body if isinstance(node, ast.ImportFrom))
    assert first.module == warm.ROUTER


@pytest.mark.parametrize(("options", "url"), [
    ({"server.address": "0.0.0.0", "server.port": 8501}, "http://127.0.0.1:8501"),
    ({"server.address": None, "server.port": 8502}, "http://127.0.0.1:8502"),
    ({"server.address": "10.0.0.5", "server.port": 80, "server.baseUrlPath": "/class/"},
     "http://10.0.0.5:80/class"),
    ({"server.address": "::1", "server.port": 8501}, "http://[::1]:8501"),
    ({"server.address": "unix:///tmp/explorer.sock"}, None),
    ({"server.address": "127.0.0.1", "server.sslCertFile": "/etc/cert.pem"}, None),
])
def test_local_url_reaches_the_server_from_this_machine(monkeypatch, options, url):
    defaults = {"server.port": 8501, "server.baseUrlPath": "", "server.sslCertFile": None}
    monkeypatch.setattr(warm.config, "get_option", lambda name: {**defaults, **options}[name])
    assert warm.local_url() == url


@pytest.mark.parametrize(("cpu_used", "busy"), [(0.0, False), (0.02, False), (0.03, True),
                                                (0.1, True)])
def test_the_server_is_busy_while_its_process_computes(monkeypatch, cpu_used, busy):
    """Over a 0.1 s sample, a quarter of a core (0.025 s of CPU) or more is somebody's
    request."""
    clock = {"cpu": 10.0, "wall": 100.0}
    monkeypatch.setattr(warm.time, "process_time", lambda: clock["cpu"])
    monkeypatch.setattr(warm.time, "perf_counter", lambda: clock["wall"])

    def sleep(seconds):
        clock["wall"] += seconds
        clock["cpu"] += cpu_used

    monkeypatch.setattr(warm.time, "sleep", sleep)
    assert warm._server_busy(0.1) is busy


def test_once_busy_the_server_must_stay_idle_longer(monkeypatch):
    """Between two clicks of a class the server idles for a moment: after a busy look, the
    walk waits for QUIET_SECONDS of idleness, not a tenth of a second."""
    windows, answers = [], iter([False, True, False, False])
    monkeypatch.setattr(warm, "_machine_busy", lambda: False)
    monkeypatch.setattr(warm, "_server_busy",
                        lambda seconds: windows.append(seconds) or next(answers))
    quiet = warm.Quiet()
    assert [quiet() for _ in range(4)] == [False, True, False, False]
    assert windows == [warm.SAMPLE_SECONDS, warm.SAMPLE_SECONDS, warm.QUIET_SECONDS,
                       warm.SAMPLE_SECONDS]


class _Busy:
    """Says "busy" ``times`` times, then "idle"; counts the looks."""

    def __init__(self, times: int) -> None:
        self.left = times
        self.looks = 0

    def __call__(self) -> bool:
        self.looks += 1
        self.left -= 1
        return self.left >= 0


def _stand_in_walk(log: list[str]):
    """A walk that records its steps: the first view of each page, then one more step."""

    def walker(url, pages, *, timeout, opened, pause):
        for page in pages:
            pause()
            log.append(page)
            opened(page, 0.5)
        pause()
        log.append("every view")
        return 2.0

    return walker


@pytest.fixture
def healthy(monkeypatch):
    """The server answers its health check at once."""
    monkeypatch.setattr(warm.requests, "get", lambda url, timeout: type("R", (), {"ok": True}))
    monkeypatch.setattr(warm, "POLL_SECONDS", 0.01)


def test_the_walk_waits_for_an_idle_core_then_covers_every_page(healthy):
    steps: list[str] = []
    said: list[str] = []
    busy = _Busy(times=3)
    preparation = warm.Preparation("http://127.0.0.1:9", ["masking", "subset"], busy=busy,
                                   say=said.append, walker=_stand_in_walk(steps)).start()
    preparation._thread.join()
    assert busy.looks == 3 + 4  # 3 busy looks, then one per step (health, 2 pages, the rest)
    assert steps == ["masking", "subset", "every view"]
    assert preparation.opened == {"masking": 0.5, "subset": 0.5}
    assert preparation.seconds == 2.0 and preparation.error is None
    assert said[:2] == ["Prepared the first view of masking (0.5 s).",
                        "Prepared the first view of subset (0.5 s)."]
    assert said[-1].startswith("Prepared 2 class page(s) in 2 s")
    assert preparation.done()


def test_a_busy_machine_holds_the_walk_until_the_server_stops(healthy):
    steps: list[str] = []
    busy = _Busy(times=10**9)
    preparation = warm.Preparation("http://127.0.0.1:9", ["masking"], busy=busy,
                                   say=steps.append, walker=_stand_in_walk(steps)).start()
    while busy.looks < 3:  # it is waiting
        threading.Event().wait(0.01)
    preparation.stop()
    assert preparation.done()
    assert steps == [] and preparation.seconds is None and preparation.error is None


@pytest.mark.parametrize("error, restarts", [
    # a page's exception: the same walk would meet it again
    (protocol.ProtocolError("the page shows an exception: ValueError 'x'"), 0),
    # a socket dropped again and again: started again a few times, then given up
    (protocol.ConnectionLost("the WebSocket failed: ConnectionResetError(104)"), None),
])
def test_an_error_stops_the_walk_and_says_what_to_do(healthy, error, restarts):
    said: list[str] = []

    def failing(url, pages, **kwargs):
        raise error

    preparation = warm.Preparation("http://127.0.0.1:9", ["masking"], busy=lambda: False,
                                   say=said.append, walker=failing).start()
    preparation._thread.join()
    assert preparation.error == str(error)
    assert sum("starts again" in line for line in said) == (
        warm.RECONNECTS if restarts is None else restarts)
    assert "Stopped preparing the class pages" in said[-1]
    assert "benchmarks/prepare_class.py" in said[-1]


# -- against a real server -------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_line(lines: queue.Queue, text: str, seen: list[str]) -> None:
    while True:
        try:
            line = lines.get(timeout=LINE_TIMEOUT)
        except queue.Empty:
            pytest.fail(f"the server did not print {text!r}:\n{''.join(seen)}")
        if line is None:
            pytest.fail(f"the server exited before printing {text!r}:\n{''.join(seen)}")
        seen.append(line)
        if text in line:
            return


def _study_bars(run: protocol.Run) -> list[str]:
    """The progress bars a run drew other than the sidebar's ledger ("spent ε = ..."): a
    study's, drawn only while it computes (``ui.study.prepared``)."""
    return [text for kind, text in run.elements
            if kind == "progress" and not text.startswith(("spent ε", "total ε"))]


@pytest.mark.slow
def test_a_fresh_server_prepares_a_page_by_itself():
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", warm.ENV_PAGES: "masking",
           warm.ENV_MAX_LOAD: "1000"}  # here: walk whatever the other jobs on the machine do
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
               "--server.address", "127.0.0.1", "--server.headless", "true",
               "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    seen: list[str] = []
    lines, reader = output_lines(process)
    try:
        _wait_for_line(lines, "Prepared the first view of masking", seen)
        client = protocol.StreamlitClient(url, protocol.MarkerBoard(), timeout=LINE_TIMEOUT)
        client.connect()
        try:
            prepared = client.open_page("masking")
            assert _study_bars(prepared) == [], "".join(seen)
            assert client.find("slider", protocol.EPSILON_LABEL)  # the page itself is drawn
            cold = client.open_page("importance")  # not walked: computed for this visitor
            assert _study_bars(cold) != []
        finally:
            client.close()
        _wait_for_line(lines, "Prepared 1 class page(s)", seen)
    finally:
        stop(process, timeout=20)
        reader.join()  # the output ends with the server
        process.stdout.close()


@pytest.mark.parametrize("value, threads", [(None, 1), ("", 1), (" 2 ", 2)])
def test_the_server_limits_blas_threads(value, threads):
    import numpy  # noqa: F401  (loads the BLAS library that threadpoolctl limits)
    from threadpoolctl import threadpool_info, threadpool_limits

    with threadpool_limits():  # restores this process's limits on leaving
        assert warm.limit_blas_threads(value) == threads
        blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
        assert blas and all(pool["num_threads"] == threads for pool in blas)


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_a_bad_blas_thread_setting_says_what_to_give(value):
    with pytest.raises(ValueError, match="whole number of threads"):
        warm.limit_blas_threads(value)


def test_a_lost_connection_starts_the_walk_again_in_a_new_session(healthy):
    # a long wait for an idle core outlives the server's keep-alive: it drops the walk's socket
    said: list[str] = []
    steps: list[str] = []
    calls = {"n": 0}
    walk_once = _stand_in_walk(steps)

    def flaky(url, pages, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            kwargs["opened"](pages[0], 0.5)
            raise protocol.ConnectionLost("the WebSocket failed: BrokenPipeError(32)")
        return walk_once(url, pages, **kwargs)

    preparation = warm.Preparation("http://127.0.0.1:9", ["masking", "subset"],
                                   busy=lambda: False, say=said.append, walker=flaky).start()
    preparation._thread.join()
    assert calls["n"] == 2 and preparation.error is None and preparation.seconds == 2.0
    assert steps == ["masking", "subset", "every view"]
    assert sum("Prepared the first view of masking" in line for line in said) == 1
    assert any("starts again in a new session" in line for line in said)
