"""Work ahead of the user: the values next to the one on screen, computed in the background.

Where a study cannot stage a move down to a cheap step (the subset page's Algorithm 2 ranks
and refits every candidate subset at each ε and each simulation seed), a move to a value no
cache has seen costs a fraction of a second to seconds. After such a slow move on built-in
data, :func:`ahead` computes the neighbouring values of the control (:func:`ui.study.numbers`
chooses it: the seed when it was just moved, else the ε slider; only the next value in the
direction of the last move when there was one) in one background thread, into the store that
every session shares (:data:`ui.cache.SHARED`), while the person reads the figure: the next
step is then a cache hit. The numbers are the ones the page would compute itself (the same
call on the same prepared part, the same seed). Presentation mode (:mod:`ui.presentation`)
queues the slides after the one on screen through :func:`queue`, the same worker and bounds.

Bounded on purpose, for a class on one server: one worker thread for the whole server process,
at most :data:`MAX_PENDING` values waiting, values the person has moved away from dropped before
they start, uploads never computed ahead (their results live in the session only, see
:mod:`ui.cache`), each value on one core (:data:`BACKGROUND_THREADS`), and nothing new computed
ahead while someone waits for a computation in this server (:func:`serving`) or while the
machine has had less than :data:`IDLE_CORES` of a core idle over the last second
(:func:`idle_core`): then every cycle goes to what people asked for.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager

from dpcore.threads import limit
from ui.cache import SHARED

__all__ = ["BACKGROUND_THREADS", "IDLE_CORES", "IDLE_WINDOW", "MAX_PENDING", "SLOW_SECONDS",
           "IdleMeter", "ahead", "busy", "idle_core", "is_slow", "note_slow", "pending", "queue",
           "serving", "serving_now", "wait_for"]

#: A move slower than this (s) makes its neighbours worth computing ahead.
SLOW_SECONDS = 0.25
#: Values being computed ahead or waiting, at most, for the whole server.
MAX_PENDING = 4
#: Work is computed ahead only while at least this much of a core has been idle over the last
#: :data:`IDLE_WINDOW` seconds (:func:`idle_core`).
IDLE_CORES = 0.5
IDLE_WINDOW = 1.0
#: Threads that a value computed ahead may use in its study's own pools
#: (:mod:`dpcore.threads`): one, so that work nobody waits for leaves a core to the moves that
#: people make meanwhile (the same numbers, as every pool's tasks draw from their own streams).
BACKGROUND_THREADS = 1

_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ahead")
_LOCK = threading.Lock()
_PENDING: dict[str, Future] = {}
_SLOW: set[str] = set()  # studies whose move was slow in this server (so worth working ahead)


def note_slow(study: str) -> None:
    """Remember that a move of ``study`` was slow: its later moves, cache hits included
    (a value computed ahead), keep the next values coming."""
    with _LOCK:
        _SLOW.add(study)


def is_slow(study: str) -> bool:
    """Whether a move of ``study`` was slow in this server (:func:`note_slow`)."""
    with _LOCK:
        return study in _SLOW


def _compute(key: str, compute: Callable[[], object]) -> None:
    try:
        with limit(BACKGROUND_THREADS):  # a core stays free for the people being served
            SHARED.get(key, compute)
    except Exception:  # the page computes it again and says what went wrong
        pass
    finally:
        with _LOCK:
            _PENDING.pop(key, None)


def pending() -> list[str]:
    """The keys being computed ahead or waiting, oldest first."""
    with _LOCK:
        return list(_PENDING)


def wait_for(key: str) -> None:
    """Before the page computes ``key`` itself: wait for it if it is being computed ahead, and
    take it off the queue if it is only waiting (the page is quicker computing it at once)."""
    with _LOCK:
        job = _PENDING.get(key)
        if job is not None and job.cancel():
            del _PENDING[key]
            return
    if job is not None:
        job.result()


def busy(max_load: float | None = None) -> bool:
    """Whether the machine has no idle core: its 1-minute load average is at least ``max_load``
    (None: its number of cores); False where the load cannot be read."""
    try:
        return os.getloadavg()[0] >= (max_load if max_load is not None
                                      else os.cpu_count() or 1)
    except OSError:
        return False


class IdleMeter:
    """The machine's idle CPU, in cores, over the last :data:`IDLE_WINDOW` seconds or more
    (since the sample before), from ``/proc/stat``: it follows a burst of work within a
    second, where the 1-minute load average lags for a minute and counts, on a machine that
    also runs the browser, its short bursts as a busy core.

    Thread safe. :meth:`cores` is None until a window has passed, and where ``/proc/stat``
    cannot be read.
    """

    def __init__(self, path: str = "/proc/stat") -> None:
        self.path = path
        self._lock = threading.Lock()
        self._last: tuple[float, float, float] | None = None  # (time, idle, total) in ticks
        self._cores: float | None = None

    def _read(self) -> tuple[float, float] | None:
        try:
            with open(self.path, encoding="ascii") as stat:
                fields = [float(v) for v in stat.readline().split()[1:9]]
        except (OSError, ValueError):
            return None
        if len(fields) < 5:
            return None
        return fields[3] + fields[4], sum(fields)  # idle + iowait; user .. steal

    def cores(self) -> float | None:
        """Idle cores over the last window (the one measured most recently)."""
        now = time.monotonic()
        with self._lock:
            if self._last is not None and now - self._last[0] < IDLE_WINDOW:
                return self._cores
            sample = self._read()
            if sample is None:
                return None
            if self._last is not None and sample[1] > self._last[2]:
                idle = (sample[0] - self._last[1]) / (sample[1] - self._last[2])
                self._cores = idle * (os.cpu_count() or 1)
            self._last = (now, *sample)
            return self._cores


_IDLE = IdleMeter()


_SERVING = 0  # computations that people wait for, running in this server now (under _LOCK)


@contextmanager
def serving() -> Iterator[None]:
    """Around a computation that a person waits for (:mod:`ui.study` wraps every ``prepare``
    and ``at`` it computes): while one runs, nothing new is computed ahead (:func:`queue`).

    With a class on the server someone is almost always waiting, and every cycle goes to them;
    one person's pauses, between their own moves, leave room for the next value.
    """
    global _SERVING
    with _LOCK:
        _SERVING += 1
    try:
        yield
    finally:
        with _LOCK:
            _SERVING -= 1


def serving_now() -> int:
    """How many computations that people wait for run in this server now (:func:`serving`)."""
    with _LOCK:
        return _SERVING


def idle_core() -> bool:
    """Whether the machine has had at least :data:`IDLE_CORES` of a core idle over the last
    window (:class:`IdleMeter`); before the first window, where ``/proc/stat`` cannot be read,
    whether it is not :func:`busy`."""
    cores = _IDLE.cores()
    return not busy() if cores is None else cores >= IDLE_CORES


def queue(jobs: Mapping[str, Callable[[], object]]) -> list[str]:
    """Compute ``jobs`` (the shared store's key: its computation) in the background, in order.

    Nothing is queued while someone waits for a computation in this server (:func:`serving`)
    or while the machine has no idle core (:func:`idle_core`). Values still waiting from an
    earlier call that are not among ``jobs`` are dropped (the person has moved on); keys already
    stored or queued are skipped, and at most :data:`MAX_PENDING` values wait or run.

    Parameters
    ----------
    jobs : mapping of str to callable() -> object
        The shared store's key of each result, and what computes it (the page's own call).
        Built-in data only: the results go to :data:`ui.cache.SHARED`.

    Returns
    -------
    list of str
        The keys queued by this call.
    """
    if serving_now() or not idle_core():
        return []
    queued = []
    with _LOCK:
        for key in [k for k in _PENDING if k not in jobs]:
            if _PENDING[key].cancel():
                del _PENDING[key]
        for key, compute in jobs.items():
            if key in _PENDING or SHARED.in_memory(key) or len(_PENDING) >= MAX_PENDING:
                continue
            _PENDING[key] = _EXECUTOR.submit(_compute, key, compute)
            queued.append(key)
    return queued


def ahead(value: float, options: Sequence[float], key_of: Callable[[float], str],
          compute_at: Callable[[float], object], *, direction: int = 0) -> list[float]:
    """Compute the options next to ``value`` (the next larger first) in the background
    (:func:`queue`); only the next one in ``direction`` when the person is moving one way.

    Values still waiting from an earlier call that are not next to ``value`` are dropped: the
    person has moved on.

    Parameters
    ----------
    value : float
        The slider's value on screen.
    options : sequence of float
        The slider's options, in order.
    key_of : callable(option) -> str
        The shared store's key of the result at an option.
    compute_at : callable(option) -> object
        Computes the result at an option (the page's own call).
    direction : {0, 1, -1}, default=0
        The way the person last moved the control: 1 (up) or -1 (down) computes only the next
        option that way (half the work in the background: a value just left is rarely asked
        for again); 0 (not known) both neighbours.

    Returns
    -------
    list of float
        The options queued by this call.
    """
    options = list(options)
    if value not in options:
        return []
    i = options.index(value)
    steps = (i + 1, i - 1) if direction == 0 else (i + (1 if direction > 0 else -1),)
    near = {key_of(options[j]): options[j] for j in steps if 0 <= j < len(options)}
    queued = queue({key: (lambda o=option: compute_at(o)) for key, option in near.items()})
    return [near[key] for key in queued]
