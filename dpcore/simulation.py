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

__all__ = ["Progress", "bootstrap_counts", "noisy_replicates", "report", "summarise"]

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
