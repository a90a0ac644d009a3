"""The timing every benchmark shares: the best of several runs of a callable."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def best_of(fn: Callable[[], T], repeat: int = 3) -> tuple[float, T]:
    """``(fastest wall time in seconds, result of the last run)`` over ``repeat`` runs."""
    best, out = float("inf"), None
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out
