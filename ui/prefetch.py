"""Work ahead of the user: the ε values next to the one on screen, computed in the background.

Where a study cannot stage an ε move down to a cheap step (the subset page's Algorithm 2 ranks
and refits every candidate subset at each ε), a move to a value no cache has seen costs
seconds. After such a slow move on built-in data, :func:`ahead` computes the slider's
neighbouring values in one background thread, into the store that every session shares
(:data:`ui.cache.SHARED`), while the person reads the figure: the next step is then a cache
hit. The numbers are the ones the page would compute itself (the same call on the same
prepared part, the same seed). Presentation mode (:mod:`ui.presentation`) queues the slides after
the one on screen through :func:`queue`, the same worker and bounds.

Bounded on purpose, for a class on one server: one worker thread for the whole server process,
at most :data:`MAX_PENDING` values waiting, values the person has moved away from dropped before
they start, uploads never computed ahead (their results live in the session only, see
:mod:`ui.cache`), and nothing computed ahead while the machine has no idle core (its load
average at least its number of cores): then every cycle goes to what people asked for.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from ui.cache import SHARED

__all__ = ["MAX_PENDING", "SLOW_SECONDS", "ahead", "busy", "is_slow", "note_slow", "pending",
           "queue", "wait_for"]

#: A move slower than this (s) makes its neighbours worth computing ahead.
SLOW_SECONDS = 0.25
#: Values being computed ahead or waiting, at most, for the whole server.
MAX_PENDING = 4

_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ahead")
_LOCK = threading.Lock()
_PENDING: dict[str, Future] = {}
_SLOW: set[str] = set()  # studies whose ε move was slow in this server (so worth working ahead)


def note_slow(study: str) -> None:
    """Remember that an ε move of ``study`` was slow: its later moves, cache hits included
    (a value computed ahead), keep the next values coming."""
    with _LOCK:
        _SLOW.add(study)


def is_slow(study: str) -> bool:
    """Whether an ε move of ``study`` was slow in this server (:func:`note_slow`)."""
    with _LOCK:
        return study in _SLOW


def _compute(key: str, compute: Callable[[], object]) -> None:
    try:
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


def queue(jobs: Mapping[str, Callable[[], object]]) -> list[str]:
    """Compute ``jobs`` (the shared store's key: its computation) in the background, in order.

    Nothing is queued on a busy machine (:func:`busy`). Values still waiting from an earlier call
    that are not among ``jobs`` are dropped (the person has moved on); keys already stored or
    queued are skipped, and at most :data:`MAX_PENDING` values wait or run.

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
    if busy():
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
          compute_at: Callable[[float], object]) -> list[float]:
    """Compute the options next to ``value`` (the next larger first) in the background
    (:func:`queue`).

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

    Returns
    -------
    list of float
        The options queued by this call.
    """
    options = list(options)
    if value not in options:
        return []
    i = options.index(value)
    near = {key_of(options[j]): options[j] for j in (i + 1, i - 1) if 0 <= j < len(options)}
    queued = queue({key: (lambda o=option: compute_at(o)) for key, option in near.items()})
    return [near[key] for key in queued]
