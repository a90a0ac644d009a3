"""Theory of the importance weights: Theorem 2 (variance bound), a plug-in, Theorem 3 (bias).

Every quantity here reads the private data without noise (``beta_0`` is the fit on the whole of
D): non-private references for studying the mechanism, labelled so wherever they are shown.

References
----------
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn. 93.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit, softmax

from dpcore.importance.mechanism import (
    balanced_fit,
    check_lam,
    design_matrices,
    query_values,
    release_sensitivity,
    weighted_means,
)
from dpcore.mechanisms import L2Laplace
from dpcore.validation import check_epsilon

__all__ = [
    "VarianceTerms",
    "asymptotic_bias",
    "estimate_gradient",
    "plugin_variance",
    "theory_curves",
    "variance_bound",
    "variance_terms",
]


def estimate_gradient(public, beta, public_values, *, form: str = "delta") -> np.ndarray:
    """Derivative of the estimate ``sum_E b e^{beta.x} / sum_E e^{beta.x}`` with respect to beta.

    With ``p = softmax(X_E beta)`` it is ``sum_E p (b - b_bar)(x - x_bar)``, computed in
    O(N_E d). ``form="as-printed"`` returns [JE13]_ Theorem 2's alpha, the double sum
    ``sum_ij p_i p_j (b_i - b_j)(x_i - x_j)``, which equals twice the derivative.
    """
    if form not in ("delta", "as-printed"):
        raise ValueError(f"form == {form!r}; choose 'delta' or 'as-printed'.")
    X_E = np.asarray(public, dtype=float)
    b = np.asarray(public_values, dtype=float).ravel()
    p = softmax(X_E @ np.asarray(beta, dtype=float))
    grad = (p * (b - p @ b)) @ (X_E - p @ X_E)
    return 2.0 * grad if form == "as-printed" else grad


@dataclass(frozen=True)
class _Reference:
    """Non-private quantities of the fit on the whole of D at one lam."""

    X_D: np.ndarray
    X_E: np.ndarray
    b_D: np.ndarray
    b_E: np.ndarray
    beta0: np.ndarray
    lam: float


def _reference(private, public, query, lam: float, fit_intercept: bool,
               beta0=None) -> _Reference:
    lam = check_lam(lam)
    b_D, b_E = query_values(query, private, public)
    X_D, X_E = design_matrices(private, public, fit_intercept)
    if beta0 is None:  # Algorithm 1's step 1, as the mechanism fits it
        beta0 = balanced_fit(private, public, lam, fit_intercept=fit_intercept).coef
    return _Reference(X_D, X_E, b_D, b_E, np.asarray(beta0, dtype=float), lam)


def _bias(ref: _Reference) -> float:
    return float(weighted_means(ref.X_E, ref.beta0[None, :], ref.b_E)[0] - ref.b_D.mean())


def _noise_variance(d: int, n_private: int, lam: float, epsilon: float, *,
                    solver: bool = True) -> float:
    """Per-coordinate variance ``(d + 1) scale^2`` of the L2-Laplace noise on beta.

    ``solver=False``: the printed scale ``sqrt(d) / (N_D lam epsilon)`` (Lemma 2's sensitivity),
    so ``d(d+1)/(N_D lam epsilon)^2`` as in [JE13]_ Theorem 2 (Lemma 7's proof).
    ``solver=True``: the scale the mechanism draws, :func:`~dpcore.importance.release_sensitivity`
    (Lemma 2's plus the solver term) over epsilon.
    """
    sensitivity = (release_sensitivity(d, n_private, lam) if solver
                   else np.sqrt(d) / (n_private * check_lam(lam)))
    return L2Laplace(epsilon, sensitivity, d).variance


@dataclass(frozen=True)
class VarianceTerms:
    """What [JE13]_ Theorems 2-3 and the plug-in need at one ``lam``; every epsilon is closed form.

    Computed from the private data without noise (``beta_0`` is the fit on the whole of D): a
    non-private reference for studying the mechanism, never a release.
    """

    lam: float
    d: int
    n_private: int
    alpha2: float  # ||alpha||^2 with the delta-method alpha
    sandwich: float  # alpha^T H^-1 S H^-1 alpha / N_D
    bias: float  # Theorem 3

    def at(self, epsilon: float) -> dict[str, float]:
        """Bounds and prediction of the variance at ``epsilon``.

        Returns
        -------
        dict of str to float
            ``lam``, ``epsilon``, ``bias`` (Theorem 3) and the variance's
            ``bound_printed``: Theorem 2 as printed, ``alpha^T (d/(N_D lam^2) + d(d+1)/(N_D lam
            epsilon)^2) alpha`` with the printed alpha (twice the derivative);
            ``bound_printed_solver``: the same with the noise the mechanism draws (Lemma 2's
            sensitivity plus the solver term, :func:`~dpcore.importance.release_sensitivity`);
            ``bound_delta``: that noise with alpha the derivative of the estimate (the delta
            method; a quarter of ``bound_printed_solver``), the bound the measured variance is
            held to; ``plugin``: the plug-in prediction, with the noise drawn.
        """
        data = self.d / (self.n_private * self.lam**2)
        paper = _noise_variance(self.d, self.n_private, self.lam, epsilon, solver=False)
        drawn = _noise_variance(self.d, self.n_private, self.lam, epsilon)
        bound = (data + drawn) * self.alpha2
        return {"lam": self.lam, "epsilon": float(epsilon), "bound_delta": bound,
                "bound_printed": 4.0 * (data + paper) * self.alpha2,
                "bound_printed_solver": 4.0 * bound,
                "plugin": self.sandwich + drawn * self.alpha2, "bias": self.bias}


def variance_terms(private, public, query, lam: float, *, beta0=None,
                   fit_intercept: bool = True) -> VarianceTerms:
    """Alpha, the plug-in sandwich and Theorem 3's bias at ``lam``.

    ``beta0`` (the non-private fit on the whole of D, e.g. ``BootstrapFits.coef_full``) is fitted
    when not given.
    """
    ref = _reference(private, public, query, lam, fit_intercept, beta0)
    n_D, d = ref.X_D.shape
    alpha = estimate_gradient(ref.X_E, ref.beta0, ref.b_E)
    p_D, p_E = expit(ref.X_D @ ref.beta0), expit(ref.X_E @ ref.beta0)
    H = ((ref.X_D * (p_D * (1 - p_D) / n_D)[:, None]).T @ ref.X_D
         + (ref.X_E * (p_E * (1 - p_E) / ref.X_E.shape[0])[:, None]).T @ ref.X_E
         + ref.lam * np.eye(d))
    S = np.cov(ref.X_D * (1.0 - p_D)[:, None], rowvar=False, bias=True)
    h_alpha = np.linalg.solve(H, alpha)
    return VarianceTerms(ref.lam, d, n_D, float(alpha @ alpha), float(h_alpha @ S @ h_alpha / n_D),
                         _bias(ref))


def theory_curves(private, public, query, lambdas: Iterable[float], epsilons: Iterable[float],
                  *, fit_intercept: bool = True) -> pd.DataFrame:
    """Theorem 2's bound (as printed, with the solver term, delta method), the plug-in
    prediction and Theorem 3's bias on a grid.

    One non-private fit of ``beta_0`` per ``lam``; every epsilon is closed form. Columns ``lam``,
    ``epsilon``, ``bound_delta``, ``bound_printed``, ``bound_printed_solver``, ``plugin``,
    ``bias`` (:meth:`VarianceTerms.at`; all non-private references: they read the private data
    without noise).
    """
    epsilons = [check_epsilon(eps) for eps in epsilons]
    terms = [variance_terms(private, public, query, lam, fit_intercept=fit_intercept)
             for lam in lambdas]
    return pd.DataFrame([t.at(eps) for t in terms for eps in epsilons])


def variance_bound(private, public, query, lam: float, epsilon: float, form: str = "delta", *,
                   fit_intercept: bool = True) -> float:
    """[JE13]_ Theorem 2: ``alpha^T (d/(N_D lam^2) I + d(d+1)/(N_D lam epsilon)^2 I) alpha``.

    ``beta_0`` is estimated by the non-private fit on the whole private set.
    ``form="as-printed"`` is the paper's formula: its alpha (twice the derivative of the
    estimate) and its noise scale ``sqrt(d)/(N_D lam epsilon)``. ``form="delta"`` (default) is
    the bound on what the mechanism releases: alpha the derivative (the delta method,
    ``docs/paper-notes.md``) and the noise it draws, whose scale adds the solver term
    (:func:`~dpcore.importance.release_sensitivity`).
    """
    if form not in ("delta", "as-printed"):
        raise ValueError(f"form == {form!r}; choose 'delta' or 'as-printed'.")
    row = theory_curves(private, public, query, [lam], [epsilon], fit_intercept=fit_intercept)
    return float(row["bound_delta" if form == "delta" else "bound_printed"].iloc[0])


def plugin_variance(private, public, query, lam: float, epsilon: float, *,
                    fit_intercept: bool = True) -> float:
    """A plug-in prediction ``alpha^T (H^-1 S H^-1 / N_D + c I) alpha`` of the variance.

    Beyond the paper: ``H`` is the Hessian of the balanced loss at ``beta_0``, ``S`` the covariance
    over D of the per-record gradients ``x (1 - sigmoid(beta_0.x))`` ([JE13]_ Lemma 5, evaluated
    instead of bounded), ``c = (d+1) scale^2`` the exact variance per coordinate of the noise
    the mechanism draws (Lemma 7's proof; the scale includes the solver term), ``alpha`` the
    delta-method derivative. Non-private reference.
    """
    row = theory_curves(private, public, query, [lam], [epsilon], fit_intercept=fit_intercept)
    return float(row["plugin"].iloc[0])


def asymptotic_bias(private, public, query, lam: float, *, fit_intercept: bool = True) -> float:
    """[JE13]_ Theorem 3: ``sum_E b softmax(beta_0.x) - mean_D b`` (non-private reference)."""
    return _bias(_reference(private, public, query, lam, fit_intercept))


