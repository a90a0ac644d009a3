"""Noise samplers: scalar Laplace, Gaussian, and the L2 ("high-dimensional") Laplace.

Every sampler takes ``rng`` (``None``, a seed or a ``numpy.random.Generator``) and a ``size``
that becomes the leading batch shape, so one call draws the noise for every replicate.

References
----------
.. [CM08] Chaudhuri & Monteleoni (2008), *Privacy-preserving logistic regression*, NIPS.
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn. 93.
"""

from __future__ import annotations

import numbers

import numpy as np

from dpcore.validation import check_random_state, check_scalar

__all__ = ["sample_laplace", "sample_gaussian", "sample_l2_laplace", "l2_laplace_scale"]

Size = None | int | tuple[int, ...]


def _shape(size: Size) -> tuple[int, ...]:
    if size is None:
        return ()
    if isinstance(size, numbers.Integral):
        size = (int(size),)
    shape = tuple(int(s) for s in size)
    if any(s < 0 for s in shape):
        raise ValueError(f"size == {size}, every dimension must be >= 0.")
    return shape


def sample_laplace(scale: float, size: Size = None, rng=None) -> float | np.ndarray:
    """Draw i.i.d. Laplace(0, ``scale``) noise, density ``exp(-|x| / scale) / (2 scale)``.

    The Laplace mechanism adds this with ``scale = sensitivity / epsilon`` (L1 sensitivity).
    """
    scale = check_scalar(scale, "scale", min_val=0.0)
    out = check_random_state(rng).laplace(0.0, scale, size=_shape(size))
    return float(out) if size is None else out


def sample_gaussian(sigma: float, size: Size = None, rng=None) -> float | np.ndarray:
    """Draw i.i.d. Normal(0, ``sigma**2``) noise."""
    sigma = check_scalar(sigma, "sigma", min_val=0.0)
    out = check_random_state(rng).normal(0.0, sigma, size=_shape(size))
    return float(out) if size is None else out


def sample_l2_laplace(dim: int, scale: float, size: Size = None, rng=None) -> np.ndarray:
    """Draw vectors in R^dim with density proportional to ``exp(-||x||_2 / scale)``.

    The norm is drawn from Gamma(shape=dim, scale=scale) and the direction uniformly on the unit
    sphere (a normalised standard Gaussian vector): in polar coordinates the density
    ``exp(-r/scale) r^(dim-1)`` is exactly that Gamma law ([CM08]_ Algorithm 1 step 2;
    [JE13]_ Algorithm 1 step 2). Hence ``E||x|| = dim * scale`` and each coordinate has variance
    ``dim * (dim + 1) * scale**2 / dim = (dim + 1) * scale**2`` ([JE13]_ Lemma 7, proof).

    Parameters
    ----------
    dim : int
        Dimension of each vector, >= 1.
    scale : float
        ``sensitivity / epsilon`` for an L2 sensitivity; > 0.
    size : int or tuple of int, default=None
        Leading batch shape; the result has shape ``(*size, dim)``.
    rng : None, int or numpy.random.Generator, default=None

    Examples
    --------
    >>> sample_l2_laplace(3, 0.5, size=4, rng=0).shape
    (4, 3)
    """
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or dim < 1:
        raise ValueError(f"dim == {dim!r}, must be an integer >= 1.")
    scale = check_scalar(scale, "scale", min_val=0.0)
    gen = check_random_state(rng)
    shape = _shape(size)
    direction = gen.standard_normal((*shape, int(dim)))
    norms = np.linalg.norm(direction, axis=-1, keepdims=True)
    # A zero Gaussian vector has probability zero; guard anyway so no NaN can appear.
    direction /= np.where(norms > 0, norms, 1.0)
    radius = gen.gamma(shape=float(dim), scale=scale, size=(*shape, 1))
    return radius * direction


def l2_laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Scale of the L2 Laplace noise that gives epsilon-DP for an L2 sensitivity."""
    sensitivity = check_scalar(sensitivity, "sensitivity", min_val=0.0)
    epsilon = check_scalar(epsilon, "epsilon", min_val=0.0)
    return sensitivity / epsilon
