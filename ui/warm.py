"""A server that prepares itself: its libraries and router at start, then the class pages in
the background while a core is idle.

``streamlit run app.py`` serves ``app.py``'s :class:`streamlit.App` (Streamlit's own start-up
hook, see ``app.py``), whose :func:`lifespan` runs once when the server starts, before it
answers anyone:

1. it imports the third-party libraries the app uses, by name (:data:`LIBRARIES`,
   :func:`import_libraries`), then the router (:data:`ROUTER`, the first import of the script
   every session runs), and limits BLAS to one thread per call (:func:`limit_blas_threads`: a
   server's parallelism is its sessions);
2. it starts one background thread (:class:`Preparation`) that walks the class pages over the
   server's own WebSocket on localhost, exactly as ``benchmarks/prepare_class.py`` does
   (:func:`ui.protocol.walk`): the four pages' first views first, then every view of each at
   every ε. Each result and figure goes into the store that every session shares
   (:data:`ui.cache.SHARED`), the pages' own code computing it, so a class on a fresh server
   needs no second command.

The walk is a session like any other, on built-in data only: it never presses Publish, spends
no budget and uploads nothing. Before each step it waits while the machine has no idle core
(the rule of :func:`ui.prefetch.busy`) or while this server is computing for someone (its own
CPU, sampled over a tenth of a second; once busy, until it has been idle for 2 s: people's
requests first, :class:`Quiet`), and it stops once every page is walked, when the server
stops, or on the first error (said on the server's console; the pages then compute what people
ask for, as without it).

Settings (environment): ``EXPLORER_PREPARE`` ``0`` turns the walk off (the imports stay), a
comma-separated list of pages walks those only (default: :data:`ui.protocol.CLASS_PAGES`);
``EXPLORER_PREPARE_MAX_LOAD``, the 1-minute load average from which the walk waits (default:
the number of cores); ``EXPLORER_BLAS_THREADS``, BLAS's threads per call (default: 1).
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

import requests
from streamlit import config
from threadpoolctl import threadpool_limits

import ui.prefetch as prefetch
from ui.protocol import CLASS_PAGES, ConnectionLost, ProtocolError, walk

__all__ = ["ENV_BLAS_THREADS", "ENV_MAX_LOAD", "ENV_PAGES", "LIBRARIES", "Preparation", "Quiet",
           "ROUTER", "import_libraries", "lifespan", "limit_blas_threads", "local_url",
           "pages_to_prepare"]

#: The third-party modules that the pages' modules import (as they are imported, or in a
#: function: the release samplers, the composition totals), imported one after the other when
#: the server starts (:func:`import_libraries`). Sessions that start together on a fresh server
#: import the app's modules at once, and a library first imported by several threads at once can
#: hand one of them a partially initialised module (pandas did). The app's own modules are left
#: to the sessions: their import graph has no circle and no module of ``dpcore`` imports from
#: the package's face (``tests/test_layout.py``, which also checks that this list is complete),
#: so threads that import them at once cannot deadlock (``tests/test_import_threads.py``).
LIBRARIES: tuple[str, ...] = (
    "numpy", "pandas", "pyarrow", "pyarrow.compute", "pyarrow.csv",
    "scipy.linalg", "scipy.optimize", "scipy.sparse", "scipy.spatial", "scipy.special",
    "scipy.stats",
    "sklearn.base", "sklearn.datasets", "sklearn.linear_model", "sklearn.svm",
    "sklearn.utils.validation",
    "plotly.colors", "plotly.express", "plotly.graph_objects", "plotly.io", "plotly.offline",
    "plotly.subplots",
    "opendp.combinators", "opendp.domains", "opendp.measurements", "opendp.measures",
    "opendp.metrics", "opendp.mod",
    "dp_accounting.dp_event", "dp_accounting.privacy_accountant",
    "dp_accounting.pld.common", "dp_accounting.pld.privacy_loss_distribution",
    "dp_accounting.rdp.rdp_privacy_accountant",
    "packaging.specifiers", "requests", "threadpoolctl", "websocket",
)
#: The module that ``app.py``'s script imports first (the pages' navigation), imported when the
#: server starts after :data:`LIBRARIES`: most of the app's modules that a page needs come with
#: it, so the first visitor's first render does not pay for them (``docs/performance.md``,
#: "Without the preload"). Sessions need no such import to be safe: the pages' modules import
#: at once without it (``tests/test_import_threads.py``).
ROUTER = "ui.navigation"
#: The environment variable that turns the walk off (``0``) or names its pages.
ENV_PAGES = "EXPLORER_PREPARE"
#: The environment variable that sets the load average from which the walk waits.
ENV_MAX_LOAD = "EXPLORER_PREPARE_MAX_LOAD"
#: The environment variable that sets the server's BLAS threads (default: 1).
ENV_BLAS_THREADS = "EXPLORER_BLAS_THREADS"
#: Seconds between two looks at the load while the walk waits for an idle core.
POLL_SECONDS = 5.0
#: Times the walk starts again in a new session after its WebSocket closed: it holds one
#: connection and reads nothing while it waits for an idle core, so a long wait outlives the
#: server's keep-alive pings and the server drops it (seen while ``prepare_class.py`` kept a
#: server busy for 2 minutes). What it computed before is in the shared store.
RECONNECTS = 3
#: Seconds one step of the walk (one rerun) may take before the walk gives up.
STEP_TIMEOUT = 600.0
#: Before each step, the server's own CPU is sampled over this many seconds...
SAMPLE_SECONDS = 0.1
#: ... and the walk waits while it used this share of a core or more (people's requests)...
SERVER_BUSY_SHARE = 0.25
#: ... then until the server has been idle for this many seconds at a stretch.
QUIET_SECONDS = 2.0
_OFF = {"0", "off", "false", "no"}
_WILDCARD_ADDRESSES = {"", "0.0.0.0", "::"}


class Stopped(Exception):
    """The server is stopping: the walk ends where it is."""


def pages_to_prepare(value: str | None) -> tuple[str, ...]:
    """The pages the walk covers, from ``EXPLORER_PREPARE``'s ``value`` (None: unset).

    Examples
    --------
    >>> pages_to_prepare(None)
    ('importance', 'subset', 'perturbation', 'masking')
    >>> pages_to_prepare("0")
    ()
    >>> pages_to_prepare("masking, importance")
    ('masking', 'importance')
    >>> pages_to_prepare("slides")
    Traceback (most recent call last):
    ...
    ValueError: EXPLORER_PREPARE='slides': give 0 (no preparation), 1 (every class page) or \
some of importance, subset, perturbation, masking, separated by commas.
    """
    if value is None or value.strip().lower() in {"", "1", "on", "true", "yes"}:
        return CLASS_PAGES
    if value.strip().lower() in _OFF:
        return ()
    pages = tuple(page.strip() for page in value.split(",") if page.strip())
    if not pages or any(page not in CLASS_PAGES for page in pages):
        raise ValueError(f"{ENV_PAGES}={value!r}: give 0 (no preparation), 1 (every class page) "
                         f"or some of {', '.join(CLASS_PAGES)}, separated by commas.")
    return pages


def local_url() -> str | None:
    """The running server's address from this process's Streamlit settings, as a client on
    the same machine reaches it (``http://127.0.0.1:8501``); None where a plain local
    connection cannot reach it (a Unix socket, TLS)."""
    address = str(config.get_option("server.address") or "")
    if address.startswith("unix:") or config.get_option("server.sslCertFile"):
        return None
    host = "127.0.0.1" if address in _WILDCARD_ADDRESSES else address
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    base = str(config.get_option("server.baseUrlPath") or "").strip("/")
    return f"http://{host}:{config.get_option('server.port')}" + (f"/{base}" if base else "")


def _max_load() -> float:
    value = os.environ.get(ENV_MAX_LOAD)
    return float(value) if value else float(os.cpu_count() or 1)


def _machine_busy() -> bool:
    """Whether no core is idle: :func:`ui.prefetch.busy` at :data:`ENV_MAX_LOAD` (default: the
    cores)."""
    return prefetch.busy(_max_load())


def _server_busy(seconds: float) -> bool:
    """Whether this server is working for someone: its process used at least
    :data:`SERVER_BUSY_SHARE` of a core over the next ``seconds`` (measured between two steps
    of the walk, so the walk's own work is not counted)."""
    cpu, wall = time.process_time(), time.perf_counter()
    time.sleep(seconds)
    return time.process_time() - cpu >= SERVER_BUSY_SHARE * (time.perf_counter() - wall)


class Quiet:
    """Whether the walk should wait (call it): the machine has no idle core, or this server's
    interpreter is serving people (one Python process runs its sessions about one at a time, so
    a step of the walk would hold their requests back).

    The server is sampled over :data:`SAMPLE_SECONDS` while nobody is about; once it was busy,
    over :data:`QUIET_SECONDS`: a class between two clicks leaves the server idle for a moment,
    and a step of the walk (up to seconds of computing) must not land in that moment.
    """

    def __init__(self) -> None:
        self.window = SAMPLE_SECONDS

    def __call__(self) -> bool:
        busy = _machine_busy() or _server_busy(self.window)
        self.window = QUIET_SECONDS if busy else SAMPLE_SECONDS
        return busy


def _say(text: str) -> None:
    print(text, flush=True)


class Preparation:
    """The walk of the class pages in one background thread, paused while ``busy()``.

    Parameters
    ----------
    url : str
        The server, as a local client reaches it (:func:`local_url`).
    pages : sequence of str
        The pages to walk, first views first (:func:`ui.protocol.walk`).
    busy : callable() -> bool, optional
        Whether the walk should wait before its next step (default: :class:`Quiet`).
    say : callable(str)
        Where the walk says what it did (the server's console).
    walker : callable
        :func:`ui.protocol.walk` (replaceable in tests).

    Attributes
    ----------
    opened : dict
        Seconds each page's first view took, once it is in the shared store.
    seconds : float or None
        The whole walk's seconds, once it is done.
    error : str or None
        Why the walk stopped early, if it did.
    waited : float
        Seconds spent in :meth:`pause` (the idle checks, and waiting while busy).
    """

    def __init__(self, url: str, pages: Sequence[str], *,
                 busy: Callable[[], bool] | None = None, say: Callable[[str], None] = _say,
                 walker: Callable[..., float] = walk) -> None:
        self.url = url
        self.pages = tuple(pages)
        self.busy = busy or Quiet()
        self.say = say
        self.walker = walker
        self.opened: dict[str, float] = {}
        self.seconds: float | None = None
        self.error: str | None = None
        self.waited = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="prepare", daemon=True)

    def start(self) -> Preparation:
        """Start the walk in its thread."""
        self._thread.start()
        return self

    def stop(self, timeout: float | None = None) -> None:
        """Ask the walk to end before its next step, and wait up to ``timeout`` seconds."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def done(self) -> bool:
        """Whether the walk has ended (done, failed or stopped)."""
        return self._thread.ident is not None and not self._thread.is_alive()

    def pause(self) -> None:
        """Before a step: wait while :attr:`busy`; raise :class:`Stopped` once stopping."""
        began = time.perf_counter()
        while not self._stop.is_set() and self.busy():
            self._stop.wait(POLL_SECONDS)
        self.waited += time.perf_counter() - began
        if self._stop.is_set():
            raise Stopped

    def _wait_healthy(self) -> None:
        """Wait until the server answers (it does once the start-up hook has returned)."""
        while True:
            self.pause()
            try:
                if requests.get(f"{self.url}/_stcore/health", timeout=5).ok:
                    return
            except requests.RequestException:
                pass
            self._stop.wait(0.25)

    def _opened(self, page: str, seconds: float) -> None:
        if page not in self.opened:  # a walk started again opens it again, from the store
            self.opened[page] = seconds
            self.say(f"Prepared the first view of {page} ({seconds:.1f} s).")

    def _walk(self) -> float:
        """The walk, started again in a new session (at most :data:`RECONNECTS` times) when
        its connection is lost; the steps already walked are then cache hits."""
        lost = 0
        while True:
            try:
                return self.walker(self.url, self.pages, timeout=STEP_TIMEOUT,
                                   opened=self._opened, pause=self.pause)
            except ConnectionLost as exc:
                lost += 1
                if lost > RECONNECTS:
                    raise
                self.say(f"The preparation's connection was lost ({exc}); it starts again in a "
                         "new session (what it computed is kept).")

    def _run(self) -> None:
        try:
            self._wait_healthy()
            self.seconds = self._walk()
        except Stopped:
            return
        except (ProtocolError, OSError, requests.RequestException) as exc:
            self.error = str(exc)
            self.say(f"Stopped preparing the class pages: {exc}. The pages compute what "
                     "people ask for; `python benchmarks/prepare_class.py` prepares them.")
            return
        self.say(f"Prepared {len(self.pages)} class page(s) in {self.seconds:.0f} s, "
                 f"{self.waited:.0f} s of it in the pauses between steps (checking that the "
                 "server is idle, waiting while it or the machine is busy): every view at every "
                 "ε is in the cache that every session shares.")


def import_libraries() -> None:
    """Import :data:`LIBRARIES` in this thread, before any session could import them at once."""
    for name in LIBRARIES:
        importlib.import_module(name)


def limit_blas_threads(value: str | None) -> int:
    """Limit the BLAS library's threads in this server process to ``value`` (None: 1) and
    return the limit.

    A server's parallelism is its sessions: each runs in a thread of its own, and numpy releases
    the interpreter's lock in its loops. OpenBLAS's default of one thread per core in every call
    then oversubscribes the cores as soon as two sessions compute: on this 2-core machine at
    load 4, the logistic-regression page's first view took 5.0-7.7 s with OpenBLAS's 2 threads
    and 1.5-1.6 s with one (``docs/performance.md``, "A class on one server").
    ``EXPLORER_BLAS_THREADS`` sets another number (a larger machine serving few people).

    Raises
    ------
    ValueError
        If ``value`` is not a whole number of at least 1.
    """
    text = "1" if value is None or not value.strip() else value.strip()
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{ENV_BLAS_THREADS}={value!r}: give a whole number of threads, 1 or "
                         "more.")
    limit = int(text)
    threadpool_limits(limits=limit, user_api="blas")
    return limit


@asynccontextmanager
async def lifespan(_app: object) -> AsyncIterator[None]:
    """The server's start-up and shutdown (``streamlit.App``'s ``lifespan``): the third-party
    libraries and the router imported, then the class pages prepared in the background (module
    docstring)."""
    import_libraries()  # before anyone is served: no two sessions import them at once
    importlib.import_module(ROUTER)  # what every session's script imports first
    try:
        limit_blas_threads(os.environ.get(ENV_BLAS_THREADS))
    except ValueError as exc:
        _say(f"{exc} BLAS keeps its own number of threads.")
    try:
        pages = pages_to_prepare(os.environ.get(ENV_PAGES))
    except ValueError as exc:
        _say(f"{exc} The class pages are not prepared.")
        pages = ()
    url = local_url() if pages else None
    if pages and url is None:
        _say("The class pages are not prepared on a Unix socket or with TLS: run "
             "`python benchmarks/prepare_class.py URL` once the server is up.")
    preparation = Preparation(url, pages).start() if url else None
    try:
        yield
    finally:
        if preparation is not None:
            preparation.stop(timeout=5)
