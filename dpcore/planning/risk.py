"""Epsilon as risk: how far one release can move an attacker's belief about a person.

References
----------
.. [KOV15] Kairouz, Oh & Viswanath (2015), *The composition theorem for differential privacy*,
   ICML (JMLR W&CP 37), Theorem 2.1 and Corollary 2.3 (every (epsilon, delta)-DP pair is a
   post-processing of the canonical four-output mechanism).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from dpcore.validation import check_scalar

__all__ = ["posterior_bound", "posterior_curves"]


def posterior_bound(prior: Any, epsilon: Any, delta: float = 0.0) -> float | np.ndarray:
    """Worst-case posterior probability that a person is in the data after one release.

    An attacker believes with probability ``prior`` that a given person's record is in the data
    (or that an attribute of theirs takes a value: any pair of neighbouring datasets). After an
    epsilon-DP release, whatever the output, the posterior *odds* are at most ``e^epsilon``
    times the prior odds, so the posterior is at most

    ``b = e^eps p / (e^eps p + 1 - p)``.

    For (epsilon, delta)-DP the function returns ``b + delta (1 - b)``, an upper bound on the
    posterior *expected over releases* when the person is in the data. Derivation: every
    (epsilon, delta)-DP pair of output distributions is a post-processing of the canonical
    four-output mechanism ([KOV15]_ Theorem 2.1, Corollary 2.3), which with probability delta
    reveals the truth (posterior 1) and otherwise answers randomised response (posterior at most
    ``b``). The posterior after a post-processed output is the conditional mean of the canonical
    posteriors, and ``g(pi) = pi (pi - b)_+`` is convex, so by Jensen
    ``E_in[(posterior - b)_+] = E_mix[g(posterior)] / p <= delta (1 - b)``, hence
    ``E_in[max(posterior, b)] <= b + delta (1 - b)``. Unlike the pure case this does not hold
    for every output: with probability up to delta a release can reveal the record outright.

    Parameters
    ----------
    prior : float or array-like
        Prior probability, in [0, 1].
    epsilon : float or array-like
        The release's epsilon, >= 0 (broadcast against ``prior``).
    delta : float, default=0.0
        The release's delta, in [0, 1).

    Returns
    -------
    float or ndarray
        The bound, in [prior, 1].

    Examples
    --------
    >>> round(posterior_bound(0.01, 1.0), 4)  # a 1 % prior rises to at most 2.67 %
    0.0267
    >>> round(posterior_bound(0.5, np.log(3)), 4)  # odds 1 -> 3
    0.75
    """
    p = np.asarray(prior, dtype=float)
    eps = np.asarray(epsilon, dtype=float)
    if not np.all(np.isfinite(p)) or np.any((p < 0.0) | (p > 1.0)):
        raise ValueError(f"prior == {prior!r}, must be in [0, 1].")
    if not np.all(np.isfinite(eps)) or np.any(eps < 0.0):
        raise ValueError(f"epsilon == {epsilon!r}, must be finite and >= 0.")
    delta = check_scalar(delta, "delta", min_val=0.0, max_val=1.0, include_min=True,
                         include_max=False)
    # b = p / (p + e^-eps (1 - p)): no overflow for large eps; p = 0 stays 0.
    denom = p + np.exp(-eps) * (1.0 - p)
    b = np.divide(p, denom, out=np.zeros(np.broadcast(p, denom).shape), where=p > 0.0)
    out = b + delta * (1.0 - b)
    return float(out) if out.ndim == 0 else out


def posterior_curves(priors: Sequence[float], epsilons: Sequence[float],
                     delta: float = 0.0) -> pd.DataFrame:
    """:func:`posterior_bound` on a grid, in long form: columns prior, epsilon, delta, posterior.

    >>> posterior_curves([0.01, 0.5], [1.0]).shape
    (2, 4)
    """
    rows = [pd.DataFrame({"prior": np.asarray(priors, dtype=float), "epsilon": float(eps),
                          "delta": float(delta),
                          "posterior": posterior_bound(np.asarray(priors, dtype=float), eps,
                                                       delta)})
            for eps in epsilons]
    return pd.concat(rows, ignore_index=True)
