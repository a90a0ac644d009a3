"""The synthetic data of [CM08]_ Sect. 6: points uniform on the unit sphere in 10 dimensions.

* ``sphere_data(n, margin=0.03)``: labelled by a separator through the origin, with no mass
  within ``margin`` of it (separable);
* ``sphere_data(n, margin=0.0, flip=0.2, flip_margin=0.1)``: the non-separable variant, labels
  flipped with probability 0.2 inside the band ``|u.x| <= 0.1``.

Every record has norm exactly 1, so ``data_norm=1`` is the domain's bound.

References
----------
.. [CM08] Chaudhuri & Monteleoni (2008), *Privacy-preserving logistic regression*, NIPS, Sect. 6.
"""

from __future__ import annotations

import math

import numpy as np

from dpcore.validation import check_random_state, check_scalar

__all__ = ["SCENARIOS", "separator", "sphere_data", "synthetic"]

#: The paper's two simulations, as keyword arguments of :func:`sphere_data`.
SCENARIOS = {
    "separable": {"margin": 0.03, "flip": 0.0},
    "noisy": {"margin": 0.0, "flip": 0.2, "flip_margin": 0.1},
}


def separator(d: int) -> np.ndarray:
    """The generating separator's unit normal: ``(1, ..., 1) / sqrt(d)``."""
    return np.full(d, 1.0 / math.sqrt(d))


def sphere_data(n: int, d: int = 10, *, margin: float = 0.03, flip: float = 0.0,
                flip_margin: float = 0.1, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n`` labelled points uniform on the unit sphere of R^d ([CM08]_ Sect. 6).

    Parameters
    ----------
    n : int
        Number of points, >= 1.
    d : int, default=10
    margin : float, default=0.03
        No point lies within this distance of the separator (rejection sampling), in [0, 1).
    flip : float, default=0.0
        Probability of flipping the label of a point within ``flip_margin`` of the separator.
    flip_margin : float, default=0.1
    rng : None, int or numpy.random.Generator, default=None

    Returns
    -------
    X : ndarray of shape (n, d)
        Unit-norm rows.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.

    Examples
    --------
    >>> X, y = sphere_data(5, rng=0)
    >>> X.shape, sorted(set(y.tolist())) <= [-1, 1]
    ((5, 10), True)
    """
    for value, name in ((n, "n"), (d, "d")):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be an int, got {type(value).__name__}.")
        if value < 1:
            raise ValueError(f"{name} == {value}, must be >= 1.")
    margin = check_scalar(margin, "margin", min_val=0.0, include_min=True, max_val=1.0,
                          include_max=False)
    flip = check_scalar(flip, "flip", min_val=0.0, include_min=True, max_val=1.0)
    flip_margin = check_scalar(flip_margin, "flip_margin", min_val=0.0, include_min=True)
    rng = check_random_state(rng)
    u = separator(d)
    parts, have = [], 0
    while have < n:  # rejection sampling of the margin band, in vectorised batches
        G = rng.standard_normal((2 * (n - have) + 16, d))
        G /= np.linalg.norm(G, axis=1)[:, None]
        G = G[np.abs(G @ u) >= margin]
        parts.append(G)
        have += G.shape[0]
    X = np.concatenate(parts)[:n]
    proj = X @ u
    y = np.where(proj >= 0.0, 1, -1)
    if flip > 0.0:
        flipped = (np.abs(proj) <= flip_margin) & (rng.random(n) < flip)
        y[flipped] = -y[flipped]
    return X, y


def synthetic(name: str, n: int, d: int = 10, *, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """One of :data:`SCENARIOS` ("separable" or "noisy") with ``n`` points."""
    if name not in SCENARIOS:
        raise ValueError(f"name == {name!r}, must be one of {tuple(SCENARIOS)}.")
    return sphere_data(n, d, rng=rng, **SCENARIOS[name])
