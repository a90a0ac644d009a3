"""Hard pairs: neighbouring datasets on which a mechanism's outputs lie far apart.

What an audit can see is limited by its pair: if the noiseless outputs on D and D' are a
fraction ``f`` of the sensitivity apart, even a perfect test shows at most about ``f epsilon``
for Laplace, L2-Laplace or discrete Laplace noise (a privacy loss linear in the distance).
:func:`hill_climb_pair` searches the domain for a pair with a large ``f``;
:func:`importance_pair` and :func:`logistic_pair` are the built-in synthetic pairs of the
importance weights and of logistic regression, shared by the likelihood audits
(:mod:`dpcore.audit.cases`) and the floating-point attacks (:mod:`dpcore.audit_float`).

References
----------
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn.
   93, Algorithm 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from dpcore.importance import balanced_fit

__all__ = ["IMPORTANCE_CORNERS", "hill_climb_pair", "importance_pair", "logistic_pair"]


def hill_climb_pair(distance: Callable[[np.ndarray, np.ndarray], float], dim: int, *,
                    low: float = 0.0, high: float = 1.0,
                    steps: tuple[float, ...] = (0.5, 0.25, 0.125),
                    max_corners: int = 16) -> tuple[np.ndarray, np.ndarray, float]:
    """Search the box ``[low, high]^dim`` for the changed record of a hard replace-one pair.

    Starts from the best pair of domain corners (at most ``max_corners`` corners, all pairs)
    and then moves one coordinate of either record by ``+-step`` while ``distance(x, x')``
    (the distance between the two noiseless outputs) grows, for each step in ``steps``.

    Returns
    -------
    x, x_prime : ndarray of shape (dim,)
    distance : float
    """
    corners = np.array(np.meshgrid(*[[low, high]] * dim, indexing="ij")).reshape(dim, -1).T
    corners = corners[:max_corners]
    best = (corners[0], corners[-1], distance(corners[0], corners[-1]))
    for i in range(len(corners)):
        for j in range(i + 1, len(corners)):
            dist = distance(corners[i], corners[j])
            if dist > best[2]:
                best = (corners[i], corners[j], dist)
    x, xp, dist = best[0].copy(), best[1].copy(), best[2]
    for step in steps:
        improved = True
        while improved:
            improved = False
            for which in (0, 1):
                for j in range(dim):
                    for sign in (-1.0, 1.0):
                        cand = (x if which == 0 else xp).copy()
                        cand[j] = np.clip(cand[j] + sign * step, low, high)
                        new = distance(cand, xp) if which == 0 else distance(x, cand)
                        if new > dist + 1e-12:
                            dist, improved = new, True
                            if which == 0:
                                x = cand
                            else:
                                xp = cand
    return x, xp, float(dist)


#: Corners for the records D and E share in the importance-weighting pair: the best of all
#: 8 x 8 corner combinations at N_D = 50, d = 3, lam = 0.01 (searched once with
#: :func:`hill_climb_pair` on the changed record; f = 0.64, against 0.11 for uniform records).
IMPORTANCE_CORNERS = ((0.0, 1.0, 1.0), (1.0, 1.0, 1.0))


def importance_pair(n_private: int, d: int, lam: float,
                    seed: int) -> tuple[np.ndarray, np.ndarray, float, np.ndarray, np.ndarray]:
    """A hill-climbed replace-one pair for [JE13]_ Algorithm 1 step 1 (built-in, synthetic).

    The N_D - 1 unchanged private records sit at one domain corner, the public records at
    another (:data:`IMPORTANCE_CORNERS` for d = 3, otherwise seeded uniform records); the
    changed record is searched by :func:`hill_climb_pair`.

    Parameters
    ----------
    n_private : int
        N_D, the number of private records.
    d : int
        Features per record.
    lam : float
        Regularisation of the step-1 fit.
    seed : int
        Seeds the uniform records when ``d != 3``.

    Returns
    -------
    beta_d, beta_dprime : ndarray of shape (d + 1,)
        The step-1 coefficients on D and on D'.
    distance : float
        Their L2 distance.
    x, x_prime : ndarray of shape (d,)
        The changed record in D and in D'.
    """
    if d == 3:
        common = np.tile(IMPORTANCE_CORNERS[0], (n_private - 1, 1))
        public = np.tile(IMPORTANCE_CORNERS[1], (n_private, 1))
    else:
        gen = np.random.default_rng(seed)
        common = gen.random((n_private - 1, d))
        public = gen.random((n_private, d)) ** 2

    def coef(x):
        return balanced_fit(np.vstack([common, x]), public, lam).coef

    cache: dict[tuple, np.ndarray] = {}

    def cached(x):
        key = tuple(np.round(x, 12))
        if key not in cache:
            cache[key] = coef(x)
        return cache[key]

    x, xp, dist = hill_climb_pair(lambda a, b: float(np.linalg.norm(cached(a) - cached(b))), d)
    return cached(x), cached(xp), dist, x, xp


def logistic_pair(n: int, d: int,
                  seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A replace-one pair ``(X, y, X_prime, y_prime)`` for logistic regression in the unit
    ball, 0/1 labels.

    The n - 1 shared records sit at the origin (alternating labels: they add curvature but no
    gradient), the changed record is ``(u, 1)`` in D and ``(-u, 1)`` in D' with ``||u|| = 1``:
    its gradient at margin 0 changes by ``2 * 0.5 ||u||``, so the minimisers are close to half
    the sensitivity ``2 / (n lam)`` apart when ``n lam`` is not small (f = 0.48 at n lam = 5).
    ``seed`` is unused (the pair is deterministic) and kept for a uniform signature.
    """
    del seed
    X = np.zeros((n, d))
    y = np.arange(n) % 2
    u = np.ones(d) / math.sqrt(d)
    X[-1], y[-1] = u, 1
    Xp, yp = X.copy(), y.copy()
    Xp[-1] = -u
    return X, y, Xp, yp
