"""Measure, observe, remeasure: combine several releases of one query into one answer.

A user spends a little ε on a query, looks at the answer and its error, and spends more on the
*same* query if the error is too wide ([NKW24]_). Every release is charged to the ledger before
its noise is drawn; what this module does with them afterwards reads only the released answers
and their public noise scales, so it is post-processing and costs nothing more ([DR14]_
Proposition 2.1).

Two combinations of k releases ``x_i = θ + noise_i`` of one true answer θ:

:func:`combine`
    Inverse-variance weighting, ``Σ x_i / v_i / Σ 1 / v_i`` with variance ``1 / Σ 1 / v_i``:
    the best linear unbiased estimate of θ (Gauss-Markov, [Ait35]_). For Gaussian releases
    it is also the maximum-likelihood estimate and Gaussian, so its interval is ``z`` times
    its standard deviation; for Laplace releases the interval is the exact quantile of a
    weighted sum of Laplace variables. Both come from
    :func:`dpcore.primer.intervals.noise_half_width` of the weighted scales ``w_i b_i``, the
    one implementation of a linear combination's half-width that the derived statistics use
    too.
:func:`pitman_laplace`
    For Laplace releases, the best *equivariant* estimate (smallest mean squared error among
    all estimates that shift with the data, linear or not: Pitman's estimator, [Pit39]_;
    [LC98]_ Sect. 3.1): the mean of the flat-prior posterior of θ, whose likelihood
    ``Π exp(-|x_i - θ| / b_i)`` is piecewise exponential, so that the mean and the quantiles
    are exact in closed form. Its interval (the posterior's 2.5 % and 97.5 % quantiles) has
    exact 95 % coverage given the releases' configuration ([Fis34]_; the flat prior of a
    location parameter gives frequentist intervals). Inverse-variance weighting is equivariant,
    so the Pitman estimate's variance is never larger; it is equal for two releases of one
    scale (both give their midpoint) and smaller otherwise (docs/privacy.md gives the gains).

What splitting a budget costs (:func:`variance_ratio`): a Laplace release's variance is
``2 (Δ/ε)²``, so k releases at ``ε f_i`` (``Σ f_i = 1``) combined have ``1 / Σ f_i²`` times the
variance of one release at ε: two halves lose a factor 2. A Gaussian release's variance is
``Δ² / (2ρ)`` under zCDP ([BS16]_ Proposition 1.6) and inverse variances add, so releases at
``ρ f_i`` combined have exactly the variance of one release at ρ: remeasuring is free.

References
----------
.. [NKW24] Nanayakkara, Kim, Wu, Sarvghad, Mahyar, Miklau & Hullman (2024),
   *Measure-Observe-Remeasure: an interactive paradigm for differentially-private exploratory
   analysis*, IEEE Symposium on Security and Privacy.
.. [DR14] Dwork & Roth (2014), *The algorithmic foundations of differential privacy*,
   Proposition 2.1 (post-processing), Theorem 3.6 (Laplace mechanism).
.. [BS16] Bun & Steinke (2016), *Concentrated differential privacy*, TCC, Proposition 1.6
   (the Gaussian mechanism is Δ²/(2σ²)-zCDP) and Lemma 2.3 (composition adds ρ).
.. [Ait35] Aitken (1935), *On least squares and linear combination of observations*, Proc. R.
   Soc. Edinburgh 55, 42-48.
.. [Pit39] Pitman (1939), *The estimation of the location and scale parameters of a continuous
   population of any given form*, Biometrika 30, 391-421.
.. [LC98] Lehmann & Casella (1998), *Theory of point estimation*, 2nd ed., Springer,
   Sect. 3.1 (equivariant estimation of location; the Pitman estimator).
.. [Fis34] Fisher (1934), *Two new properties of mathematical likelihood*, Proc. R. Soc. A
   144, 285-307 (inference on a location conditional on the configuration).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from dpcore.primer.intervals import LAWS, noise_half_width
from dpcore.validation import check_choice, check_level

__all__ = ["Combined", "combine", "combine_releases", "noise_variance", "pitman_laplace",
           "variance_ratio"]


def _positive(values: Any, name: str) -> np.ndarray:
    """``values`` as a float array of finite numbers > 0, or a ValueError that says so."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0 or not np.all(np.isfinite(arr) & (arr > 0)):
        raise ValueError(f"{name} must be finite numbers > 0 (noise scales or variances of "
                         f"the releases), got {values!r}.")
    return arr


def noise_variance(law: str, scale: Any) -> np.ndarray:
    """The variance of the noise of scale ``scale``: ``2 b²`` for a Laplace of scale b,
    ``σ²`` for a Gaussian of standard deviation σ.

    >>> float(noise_variance("laplace", 2.0)), float(noise_variance("gaussian", 2.0))
    (8.0, 4.0)
    """
    law = check_choice(law, "law", LAWS)
    scale = _positive(scale, "scale")
    return 2.0 * scale**2 if law == "laplace" else scale**2


@dataclass(frozen=True)
class Combined:
    """Releases combined by inverse-variance weighting (:func:`combine`).

    Attributes
    ----------
    estimate : ndarray of shape (...)
        The combined answer, one per row of the answers.
    variance : ndarray
        Its variance, ``1 / Σ 1 / v_i``.
    weights : ndarray of shape (..., k)
        The weight of each release, summing to 1.
    """

    estimate: np.ndarray
    variance: np.ndarray
    weights: np.ndarray


def combine(answers: Any, variances: Any) -> Combined:
    """Combine k releases of one answer by inverse-variance weighting ([Ait35]_).

    Parameters
    ----------
    answers : array-like of shape (..., k)
        The released answers, the releases along the last axis (e.g. one row per part of a
        per-group release, or per simulation).
    variances : array-like broadcastable to ``answers``
        The noise variance of each release (:func:`noise_variance`), > 0.

    Returns
    -------
    Combined
        The estimate ``Σ w_i x_i`` with ``w_i ∝ 1 / v_i``, its variance ``1 / Σ 1 / v_i`` and
        the weights.

    Examples
    --------
    >>> out = combine([10.0, 13.0], [4.0, 2.0])
    >>> float(out.estimate), float(out.variance)
    (12.0, 1.3333333333333333)
    """
    answers = np.asarray(answers, dtype=float)
    if answers.ndim == 0 or answers.shape[-1] == 0 or not np.all(np.isfinite(answers)):
        raise ValueError(f"answers must be finite numbers, the releases along the last axis, "
                         f"got {answers!r}.")
    precision = np.broadcast_to(1.0 / _positive(variances, "variances"), answers.shape)
    total = precision.sum(axis=-1)
    weights = precision / total[..., None]
    return Combined((weights * answers).sum(axis=-1), 1.0 / total, weights)


def _log_exp_integral(rate: np.ndarray, width: np.ndarray) -> np.ndarray:
    """``log ∫_0^w exp(s u) du`` elementwise, stable for every s (-inf where w = 0)."""
    a = rate * width
    with np.errstate(divide="ignore"):
        log_width = np.log(width)
    return log_width + np.where(a > 0, a + np.log(special.exprel(-np.abs(a))),
                                np.log(special.exprel(-np.abs(a))))


def _exp_mean(rate: np.ndarray, width: np.ndarray) -> np.ndarray:
    """The mean of the density ∝ ``exp(s u)`` on ``[0, w]``: ``w (1 / (1 - e^-a) - 1 / a)``
    with ``a = s w`` (``w / 2`` near ``a = 0``)."""
    a = rate * width
    small = np.abs(a) < 1e-4
    safe = np.where(small, 1.0, a)
    share = np.where(small, 0.5 + a / 12.0, 1.0 / -np.expm1(-safe) - 1.0 / safe)
    return width * share


def _inner_quantile(q: np.ndarray, rate: np.ndarray, width: np.ndarray) -> np.ndarray:
    """The ``u`` in ``[0, w]`` below which a share ``q`` of the density ∝ ``exp(s u)`` lies."""
    a = rate * width
    small = np.abs(a) < 1e-12
    safe = np.where(small, 1.0, rate)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        rising = width + np.log(q + (1.0 - q) * np.exp(-np.abs(a))) / safe
        falling = np.log1p(q * np.expm1(-np.abs(a))) / safe
    return np.where(small, q * width, np.where(a > 0, rising, falling))


def pitman_laplace(answers: Any, scales: Any, level: float = 0.95) -> dict[str, np.ndarray]:
    """The best equivariant combination of Laplace releases and its exact interval.

    Releases ``x_i = θ + b_i L_i`` (standard Laplace ``L_i``) have likelihood
    ``Π exp(-|x_i - θ| / b_i)``: exponential in θ between consecutive sorted releases. The
    Pitman estimate ([Pit39]_; [LC98]_ Sect. 3.1) is the mean of this likelihood normalised
    over θ, the estimate of least mean squared error among all that shift with the data; the
    interval is its ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles, which cover θ with
    probability ``level`` exactly ([Fis34]_; tested by simulation). Both are computed in
    closed form, segment by segment, for every row at once.

    Parameters
    ----------
    answers : array-like of shape (..., k)
        The released answers, the releases along the last axis.
    scales : array-like broadcastable to ``answers``
        Each release's Laplace scale ``b_i = Δ / ε_i``, > 0.
    level : float, default=0.95

    Returns
    -------
    dict of str to ndarray of shape (...)
        ``estimate``, ``low`` and ``high``.

    Examples
    --------
    >>> out = pitman_laplace([5.0], [1.0])  # one release: itself, ± ln 20
    >>> float(out["estimate"]), round(float(out["high"] - 5.0), 4)
    (5.0, 2.9957)
    >>> round(float(pitman_laplace([4.0, 6.0], [1.0, 1.0])["estimate"]), 12)  # the midpoint
    5.0
    """
    x = np.asarray(answers, dtype=float)
    if x.ndim == 0 or x.shape[-1] == 0 or not np.all(np.isfinite(x)):
        raise ValueError(f"answers must be finite numbers, the releases along the last axis, "
                         f"got {answers!r}.")
    level = check_level(level)
    b = np.broadcast_to(_positive(scales, "scales"), x.shape)
    order = np.argsort(x, axis=-1)
    xs = np.take_along_axis(x, order, axis=-1)
    ws = np.take_along_axis(1.0 / b, order, axis=-1)
    total = ws.sum(axis=-1, keepdims=True)
    # log-likelihood at each sorted release, and the slope and width of each inner segment
    ell = -(ws[..., None, :] * np.abs(xs[..., None, :] - xs[..., :, None])).sum(axis=-1)
    rate = total - 2.0 * np.cumsum(ws, axis=-1)[..., :-1]
    width = np.diff(xs, axis=-1)
    log_mass = np.concatenate([ell[..., :1] - np.log(total),
                               ell[..., :-1] + _log_exp_integral(rate, width),
                               ell[..., -1:] - np.log(total)], axis=-1)
    mass = np.exp(log_mass - log_mass.max(axis=-1, keepdims=True))
    mass /= mass.sum(axis=-1, keepdims=True)
    means = np.concatenate([xs[..., :1] - 1.0 / total, xs[..., :-1] + _exp_mean(rate, width),
                            xs[..., -1:] + 1.0 / total], axis=-1)
    out = {"estimate": (mass * means).sum(axis=-1)}
    cum = np.cumsum(mass, axis=-1)
    k = x.shape[-1]
    for name, p in (("low", (1.0 - level) / 2.0), ("high", (1.0 + level) / 2.0)):
        seg = np.minimum((cum < p).sum(axis=-1, keepdims=True), k)
        below = np.take_along_axis(np.concatenate([np.zeros_like(cum[..., :1]), cum], -1),
                                   seg, axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.clip((p - below) / np.take_along_axis(mass, seg, axis=-1), 0.0, 1.0)
        inner = np.clip(seg - 1, 0, max(k - 2, 0))
        if k > 1:
            start = np.take_along_axis(xs, inner, axis=-1)
            u = _inner_quantile(share, np.take_along_axis(rate, inner, axis=-1),
                                np.take_along_axis(width, inner, axis=-1))
            middle = start + u
        else:
            middle = xs[..., :1]
        with np.errstate(divide="ignore"):
            left = xs[..., :1] + np.log(share) / total
            right = xs[..., -1:] - np.log1p(-share) / total
        value = np.where(seg == 0, left, np.where(seg == k, right, middle))
        out[name] = value[..., 0]
    return out


def variance_ratio(fractions: Any, law: str) -> float:
    """The variance of releases at shares ``f_i`` of one budget, combined by inverse-variance
    weighting, over that of one release at the whole budget.

    A Laplace release at ``ε f_i`` has variance ``2 Δ² / (ε f_i)²``: the ratio is
    ``1 / Σ f_i²`` (two halves: 2). A Gaussian release at ``ρ f_i`` (zCDP, [BS16]_
    Proposition 1.6) has variance ``Δ² / (2 ρ f_i)``: the ratio is ``1 / Σ f_i``, 1 when the
    shares sum to 1.

    Parameters
    ----------
    fractions : array-like of shape (k,)
        Each release's share of the budget (ε for the Laplace, ρ for the Gaussian), > 0; they
        need not sum to 1 (the ratio is then against one release at the shares' sum).
    law : {"laplace", "gaussian"}

    Returns
    -------
    float

    Examples
    --------
    >>> variance_ratio([0.5, 0.5], "laplace"), variance_ratio([0.5, 0.5], "gaussian")
    (2.0, 1.0)
    """
    law = check_choice(law, "law", LAWS)
    f = _positive(fractions, "fractions").ravel()
    f = f / f.sum()
    return float(1.0 / np.sum(f**2) if law == "laplace" else 1.0 / np.sum(f))


def combine_releases(releases: list[pd.DataFrame], *, law: str = "laplace",
                     level: float = 0.95) -> pd.DataFrame:
    """Every release of one query combined, part by part: what the primer shows after a
    remeasure.

    Parameters
    ----------
    releases : list of DataFrame
        The releases of one query, oldest first, each with columns ``part``, ``answer`` and
        ``scale`` (the noise's Laplace scale or Gaussian σ) and the same parts in the same
        order (:func:`dpcore.primer.release.release_answers`).
    law : {"laplace", "gaussian"}, default="laplace"
    level : float, default=0.95

    Returns
    -------
    DataFrame
        One row per part: ``part``, ``releases`` (k), ``estimate`` and ``half_width`` (inverse-
        variance weighting, :func:`combine`, its exact interval ``estimate ± half_width``:
        :func:`dpcore.primer.intervals.noise_half_width` of the weighted scales ``w_i b_i``),
        ``best``, ``best_low`` and ``best_high`` (the Pitman combination and its interval,
        :func:`pitman_laplace`, for the Laplace; inverse-variance weighting again for the
        Gaussian, which is its Pitman estimate), ``first_half_width`` (the first release's),
        ``single_half_width`` (one release whose inverse scale is the sum of theirs: at the
        summed ε for the Laplace, at the summed ρ for the Gaussian) and ``variance_ratio``
        (:func:`variance_ratio`: the combination's variance over that release's).

    Examples
    --------
    >>> one = pd.DataFrame({"part": ["all"], "answer": [100.0], "scale": [10.0]})
    >>> two = pd.DataFrame({"part": ["all"], "answer": [104.0], "scale": [10.0]})
    >>> out = combine_releases([one, two]).iloc[0]
    >>> float(out["estimate"]), round(float(out["half_width"]), 1), float(out["variance_ratio"])
    (102.0, 20.6, 2.0)
    """
    law, level = check_choice(law, "law", LAWS), check_level(level)
    if not releases:
        raise ValueError("releases is empty: publish the query once before combining.")
    parts = list(releases[0]["part"])
    if any(list(r["part"]) != parts for r in releases):
        raise ValueError("The releases do not have the same parts: combine only releases of "
                         "one query with one grouping.")
    answers = np.stack([r["answer"].to_numpy(float) for r in releases], axis=-1)
    scales = np.stack([r["scale"].to_numpy(float) for r in releases], axis=-1)
    ivw = combine(answers, noise_variance(law, scales))
    widths = noise_half_width(ivw.weights * scales, level, law=law)
    if law == "laplace":
        best = pitman_laplace(answers, scales, level)
    else:
        best = {"estimate": ivw.estimate, "low": ivw.estimate - widths,
                "high": ivw.estimate + widths}
    # the budget's shares: inverse scales ε_i/Δ for the Laplace, inverse variances 2ρ_i/Δ² for
    # the Gaussian; one release at their sum has the inverse scale (variance) of their sum
    shares = 1.0 / scales if law == "laplace" else 1.0 / scales**2
    single = (1.0 / shares.sum(axis=-1) if law == "laplace"
              else 1.0 / np.sqrt(shares.sum(axis=-1)))
    return pd.DataFrame({
        "part": parts, "releases": len(releases), "estimate": ivw.estimate,
        "half_width": widths, "best": best["estimate"], "best_low": best["low"],
        "best_high": best["high"],
        "first_half_width": noise_half_width(scales[:, :1], level, law=law),
        "single_half_width": noise_half_width(single[:, None], level, law=law),
        "variance_ratio": [variance_ratio(row, law) for row in shares]})
