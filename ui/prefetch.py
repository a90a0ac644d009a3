"""Work ahead of the user: the ε values next to the one on screen, computed in the background.

Where a study cannot stage an ε move exactly (the subset page's Algorithm 2 ranks and refits
everything at each ε; the logistic regression's λ rule moves every fit), a move to a value no
cache has seen costs seconds. After such a slow move on built-in data, :func:`ahead` computes
the slider's neighbouring values in one background thread, into the store that every session
shares (:data:`ui.cache.SHARED`), while the person reads the figure: the next step is then a
cache hit. The numbers are the ones the page would compute itself (the same call, the same
seed). Uploads are never computed ahead (their results live in the session only), and the work
is bounded: one thread for the whole server, at most :data:`MAX_PENDING` values waiting.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from ui.cache import SHARED

__all__ = ["MAX_PENDING", "SLOW_SECONDS", "ahead", "wait_for"]

#: A move slower than this (s) makes its neighbours worth computing ahead.
SLOW_SECONDS = 0.25
#: Values computed ahead or waiting, at most, for the whole server.
MAX_PENDING = 4

_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ahead")
_LOCK = threading.Lock()
_PENDING: dict[str, Future] = {}


def _compute(key: str, compute: Callable[[], object]) -> None:
    try:
        SHARED.get(key, compute)
    except Exception:  # the page computes it again, and says what went wrong
        pass
    finally:
        with _LOCK:
            _PENDING.pop(key, None)


def wait_for(key: str) -> None:
    """Wait until the value under ``key`` is computed, if it is being computed ahead."""
    with _LOCK:
        pending = _PENDING.get(key)
    if pending is not None:
        pending.result()


def ahead(value: float, options: Sequence[float], key_of: Callable[[float], str],
          compute_at: Callable[[float], object]) -> None:
    """Compute the options next to ``value`` (the next larger first) in the background.

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
    """
    if value not in options:
        return
    i = list(options).index(value)
    for j in (i + 1, i - 1):
        if not 0 <= j < len(options):
            continue
        key = key_of(options[j])
        with _LOCK:
            if key in _PENDING or key in SHARED or len(_PENDING) >= MAX_PENDING:
                continue
            option = options[j]
            _PENDING[key] = _EXECUTOR.submit(_compute, key, lambda o=option: compute_at(o))
