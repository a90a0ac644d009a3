"""How many threads a computation's own pools may use where it runs.

Some studies split their work over a few threads of their own (the subset study's repeats,
the perturbation study's ε values, the neighbour lists): their numpy and BLAS work releases
the interpreter's lock, so one person's move uses both cores of a small server. Work done in
the background, while nobody waits for it (a server computing the next slider value ahead),
should leave a core to the people it serves: :func:`limit` caps those pools in one context
(a thread, or a task), and :func:`threads` is what a pool asks for. The numbers do not depend
on it: every pool's tasks draw from their own streams and are collected in order.

Examples
--------
>>> from dpcore.threads import limit, threads
>>> threads(3)
3
>>> with limit(1):
...     threads(3)
1
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["limit", "threads"]

_LIMIT: ContextVar[int | None] = ContextVar("dpcore_thread_limit", default=None)


def threads(wanted: int) -> int:
    """The threads a pool of ``wanted`` may start here: ``wanted`` capped by :func:`limit`'s
    bound in this context, at least 1."""
    bound = _LIMIT.get()
    return max(1, int(wanted) if bound is None else min(int(wanted), bound))


@contextmanager
def limit(bound: int) -> Iterator[None]:
    """Within the block, in this context only, pools start at most ``bound`` threads.

    Parameters
    ----------
    bound : int
        At least 1.

    Raises
    ------
    ValueError
        If ``bound`` is not an integer of at least 1.
    """
    if isinstance(bound, bool) or not isinstance(bound, int) or bound < 1:
        raise ValueError(f"bound == {bound!r}: give a whole number of threads, 1 or more.")
    token = _LIMIT.set(bound)
    try:
        yield
    finally:
        _LIMIT.reset(token)
