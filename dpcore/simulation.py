"""The generic Monte-Carlo engine of every study: resamples, noise per epsilon, summaries.

A *study* simulates a mechanism many times to show its bias and variance. It is seeded and
reproducible, spends no budget and is never a release: its noise comes from named streams of one
seed (:func:`dpcore.random.stream`), so a number depends on the seed and on its own settings only,
never on what else was computed first.

The pieces a study is built from:

- :func:`bootstrap_counts`: resample counts of D, keyed on the seed only, so that every lambda,
  epsilon and baseline sees the same resamples;
- :func:`noisy_replicates`: one mechanism's noise added to R non-private fits for each epsilon,
  each epsilon from its own stream (the fits are reused: moving epsilon only draws noise);
- :func:`summarise`: median, bias, SD, variance and MSE per group;
- :data:`Progress`: the callback every long computation takes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd

from dpcore.mechanisms import Mechanism
from dpcore.random import stream

__all__ = ["Progress", "bootstrap_counts", "default_replicates", "noisy_replicates", "report",
           "summarise"]

#: Most (rows x replicates) a study builds by default: a batched solve over them takes a few
#: seconds on two cores, which keeps a first page load on a large upload short.
MAX_CELLS = 5_000_000

#: A callback taking the fraction of the work done, in [0, 1].
Progress = Callable[[float], None] | None


def report(progress: Progress, fraction: float) -> None:
    """Call ``progress(fraction)`` if a callback was given."""
    if progress is not None:
        progress(min(1.0, max(0.0, float(fraction))))


@functools.lru_cache(maxsize=4)
def bootstrap_counts(n: int, n_reps: int, seed: int) -> np.ndarray:
    """Resample counts of shape (n, n_reps): replicate r draws n records with replacement.

    Keyed on the seed only (stream ``"bootstrap"``), so every lam, epsilon and baseline of a study
    sees the same resamples. The array is read-only (it is shared by the cache).

    >>> counts = bootstrap_counts(5, 3, 0)
    >>> counts.shape, counts.sum(axis=0).tolist()
    ((5, 3), [5.0, 5.0, 5.0])
    """
    draws = stream(seed, "bootstrap", n).integers(0, n, size=(n_reps, n))
    draws += np.arange(n_reps)[:, None] * n
    counts = np.bincount(draws.ravel(), minlength=n * n_reps).reshape(n_reps, n).T
    counts = counts.astype(float)
    counts.flags.writeable = False
    return counts


def default_replicates(n_rows: int, options: Sequence[int], *, preferred: int = 100,
                       max_cells: int = MAX_CELLS) -> int:
    """How many replicates a study runs by default on ``n_rows`` records.

    ``preferred`` when ``n_rows * preferred <= max_cells``, else the largest of ``options`` that
    fits (at least the smallest option): with many rows each estimate varies less, so fewer
    replicates show its spread as well, and the first figure comes sooner.

    >>> default_replicates(20_688, (20, 50, 100, 200)), default_replicates(400_000, (20, 50, 100))
    (100, 20)
    """
    ordered = sorted(int(v) for v in options)
    if n_rows * preferred <= max_cells and preferred in ordered:
        return preferred
    fitting = [r for r in ordered if n_rows * r <= max_cells and r <= preferred]
    return fitting[-1] if fitting else ordered[0]


def noisy_replicates(
    fits: np.ndarray,
    epsilons: Iterable[float],
    mechanism: Callable[[float], Mechanism],
    seed: int,
    *keys: str | float,
) -> Iterator[tuple[float, np.ndarray]]:
    """``(epsilon, fits + noise)`` for each epsilon: the mechanism's noise on every replicate.

    Parameters
    ----------
    fits : ndarray of shape (n_reps, ...)
        Non-private values, one per replicate (reused for every epsilon).
    epsilons : iterable of float
    mechanism : callable
        ``mechanism(epsilon)`` builds the :class:`~dpcore.mechanisms.Mechanism` to simulate.
    seed : int
        The study's seed; the noise at each epsilon comes from ``stream(seed, *keys, epsilon)``.
    *keys : str or float
        Names of the stream, e.g. ``("importance", lam)``.
    """
    for eps in epsilons:
        yield eps, mechanism(eps).randomise(fits, rng=stream(seed, *keys, float(eps)))


def summarise(results: pd.DataFrame, by: Sequence[str] = ("lam", "epsilon"), *,
              value: str = "estimate", truth: str = "truth") -> pd.DataFrame:
    """Median, mean, SD, variance, bias and MSE of ``value`` in each group of ``results``."""
    err = results[value] - results[truth]
    g = results.assign(error=err).groupby(list(by), sort=True)
    out = g.agg(median=(value, "median"), mean=(value, "mean"),
                sd=(value, "std"), variance=(value, "var"),
                bias=("error", "mean"), mse=("error", lambda e: float(np.mean(e**2))))
    return out.reset_index()
