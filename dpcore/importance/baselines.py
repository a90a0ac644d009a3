"""The baselines of [JE13]_ Sect. 5.1 on the same bootstrap resamples as the Monte Carlo.

References
----------
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn. 93.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from dpcore.importance.mechanism import check_records, query_values
from dpcore.mechanisms import Laplace
from dpcore.queries import Query
from dpcore.random import stream, study_seed
from dpcore.simulation import bootstrap_counts
from dpcore.validation import check_epsilon, check_scalar

__all__ = ["baselines", "resampled_rows"]


def resampled_rows(counts: np.ndarray) -> np.ndarray:
    """The rows of D that each bootstrap resample holds, one entry per copy.

    Parameters
    ----------
    counts : ndarray of shape (n_D, n_reps)
        How often each private row is drawn in each resample
        (:func:`dpcore.simulation.bootstrap_counts`; every column sums to n_D).

    Returns
    -------
    ndarray of int of shape (n_reps, n_D)
        Replicate r's row indices, sorted; a row drawn c times appears c times.

    >>> resampled_rows(np.array([[2.0, 0.0], [0.0, 1.0], [1.0, 2.0]])).tolist()
    [[0, 0, 2], [1, 2, 2]]
    """
    n_D, n_reps = counts.shape
    rows = np.repeat(np.tile(np.arange(n_D), n_reps), counts.T.ravel().astype(np.intp))
    return rows.reshape(n_reps, n_D)


def baselines(private, public, query: Query, epsilons: Iterable[float], n_reps: int = 100, *,
              rng=None, binary: Sequence[str] | None = None,
              l1_sensitivity: float | None = None,
              value_range: tuple[float, float] = (0.0, 1.0)) -> pd.DataFrame:
    """Each baseline's estimate over the same bootstrap resamples of D as :func:`monte_carlo`.

    Methods (column ``method``):

    - ``"public mean"``: the unweighted mean of b over E (no privacy cost, biased);
    - ``"truth (non-private)"``: the mean of b over the resample itself, what D would answer;
    - ``"Laplace perturbation (raw)"`` and ``"... (trimmed)"``: records released with
      Lap(l1_sensitivity / epsilon) on every component (replace-one; the default sensitivity is
      the number of components, d, for records in [0, 1]^d; for one-hot data with g groups a change
      of record moves at most 2g components), the query answered by its multilinear extension on
      the noisy or the [0, 1]-trimmed records ([JE13]_ Sect. 5.1). Each record of a resample
      gets its own draw, copies of one private record included: the records of a resample are
      the private dataset of that replicate, regarded as independent ([JE13]_ Sect. 5), and a
      data owner draws noise for every record it releases. On a 0/1 column the raw estimate
      then has SD ``sqrt(2 / N_D) l1_sensitivity / epsilon`` ([JE13]_ Sect. 5.1's 2.34 on
      Adult at epsilon = 0.1); one draw shared by the copies would widen it by about sqrt(2);
    - ``"Laplace mechanism (this query)"``: mean of b over D, each value clipped to
      ``value_range``, plus Lap(width / (N_D epsilon)) (replace-one), interactive: it spends
      epsilon on this one query.

    No bound is read from the private data: ``value_range`` comes from the query (``(0, 1)``
    holds for indicators and for means of encoded columns, which lie in [0, 1]); ``binary`` lists
    the 0/1 columns of the encoding (``Scenario.binary_columns``; when None, the columns whose
    *public* values are all 0 or 1). Every noise is simulated from the study's seed through
    :class:`~dpcore.mechanisms.Laplace`: this is a study, not a release.

    ``query`` must be a :class:`~dpcore.queries.Query` and private/public DataFrames.
    """
    if not isinstance(query, Query):
        raise TypeError("baselines needs a dpcore.queries.Query.")
    epsilons = [check_epsilon(eps) for eps in epsilons]
    X_D, _ = check_records(private, public)
    n_D, d = X_D.shape
    cols = query.columns
    binary = list(binary) if binary is not None else [
        c for c in public.columns if np.isin(public[c].to_numpy(), (0.0, 1.0)).all()
    ]
    l1 = float(d) if l1_sensitivity is None else check_scalar(l1_sensitivity, "l1_sensitivity",
                                                                min_val=0.0)
    low, high = (float(v) for v in value_range)
    if not high > low:
        raise ValueError(f"value_range == {value_range!r}; it needs low < high.")
    b_D, b_E = query_values(query, private, public)
    b_D = np.clip(b_D, low, high)
    seed = study_seed(rng)
    counts = bootstrap_counts(n_D, n_reps, seed)  # (n_D, R), the resamples of monte_carlo
    truth_reps = b_D @ counts / n_D
    sub = private[cols].to_numpy(float)
    frames = [
        pd.DataFrame({"method": "public mean", "epsilon": np.nan, "rep": np.arange(n_reps),
                      "estimate": float(b_E.mean())}),
        pd.DataFrame({"method": "truth (non-private)", "epsilon": np.nan,
                      "rep": np.arange(n_reps), "estimate": truth_reps}),
    ]
    copies = sub[resampled_rows(counts)]  # (R, n_D, k): each replicate's records, copies apart
    for eps in epsilons:
        records = Laplace(eps, l1).randomise(copies,
                                             rng=stream(seed, "baselines", "records", eps))
        raw, trimmed = (
            np.mean(query.relaxed({c: v[..., j] for j, c in enumerate(cols)}, binary), axis=1)
            for v in (records, np.clip(records, 0.0, 1.0))
        )
        lap = Laplace(eps, (high - low) / n_D).randomise(
            truth_reps, rng=stream(seed, "baselines", "query", eps))
        for method, est in (("Laplace perturbation (raw)", raw),
                            ("Laplace perturbation (trimmed)", trimmed),
                            ("Laplace mechanism (this query)", lap)):
            frames.append(pd.DataFrame({"method": method, "epsilon": eps,
                                        "rep": np.arange(n_reps), "estimate": est}))
    out = pd.concat(frames, ignore_index=True)
    out["truth"] = float(b_D.mean())
    return out


