"""Differentially private importance weights (Ji & Elkan 2013) and their Monte-Carlo study.

The mechanism ([JE13]_ Algorithm 1) publishes one weight per record of a public set E that makes
weighted means over E estimate means over a private set D:

1. fit the *balanced* regularised logistic regression of "in D" against "in E" ([JE13]_
   footnote 2): ``beta* = argmin -(1/N_E) sum_E log p(x in E) - (1/N_D) sum_D log p(x in D)
   + lam/2 ||beta||^2``;
2. release ``beta = beta* + delta``, ``p(delta) ~ exp(-epsilon N_D lam ||delta|| / sqrt(d))``;
3. weight each public record by ``w(x) = N_E exp(beta.x) / sum_E exp(beta.x)``.

Privacy: neighbouring relation *replace-one* (N_D is public); every component of a private record
lies in [0, 1] (enforced: refused, or clipped with ``clip=True``); then the L2 sensitivity of
``beta*`` is ``sqrt(d) / (N_D lam)`` ([JE13]_ Lemma 2), with ``d`` counting the intercept if one
is fitted. The weights are a function of ``beta`` and public data only, so they inherit
epsilon-DP ([JE13]_ Theorem 1). See ``docs/paper-notes.md`` for where the paper's text differs.

References
----------
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn. 93.
.. [CMS11] Chaudhuri, Monteleoni & Sarwate (2011), *Differentially private empirical risk
   minimization*, JMLR 12.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit, softmax

from dpcore.logistic import BatchedProblem, fit_logistic, fit_logistic_batched
from dpcore.noise import sample_l2_laplace
from dpcore.queries import Query
from dpcore.validation import (
    DataError,
    check_array,
    check_epsilon,
    check_random_state,
    check_scalar,
    check_unit_box,
)

__all__ = [
    "ImportanceWeights",
    "balanced_fit",
    "BootstrapFits",
    "BootstrapStudy",
    "bootstrap_fits",
    "bootstrap_estimates",
    "monte_carlo",
    "summarise",
    "noise_scale",
    "expected_noise_norm",
    "estimate_gradient",
    "variance_bound",
    "plugin_variance",
    "asymptotic_bias",
    "theory_curves",
    "variance_terms",
    "VarianceTerms",
    "baselines",
    "model_distances",
]

#: Objective tolerance of every fit: certified ``J(beta) - min J <= 2 TOL`` (the balanced
#: objective's weights sum to 2; see ``dpcore.logistic.fit_logistic``).
TOL = 1e-10


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------
def _records(private, public, *, clip: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Private and public records as float arrays with matching columns; private in [0, 1]^d."""
    if isinstance(private, pd.DataFrame) and isinstance(public, pd.DataFrame):
        if list(private.columns) != list(public.columns):
            missing = set(private.columns) ^ set(public.columns)
            if missing:
                raise DataError(
                    f"private and public have different columns ({sorted(map(str, missing))[:5]}"
                    "); align both to their shared columns first."
                )
            public = public[private.columns]
    X_D = check_unit_box(private, "private", clip=clip)
    X_E = check_array(public, "public")
    if X_D.shape[1] != X_E.shape[1]:
        raise DataError(
            f"private has {X_D.shape[1]} columns and public {X_E.shape[1]}; both need the same."
        )
    return X_D, X_E


def _with_intercept(X: np.ndarray, fit_intercept: bool) -> np.ndarray:
    return np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X


def _query_values(query, private, public) -> tuple[np.ndarray, np.ndarray]:
    """``b(x)`` on every private and public row.

    ``query`` is a :class:`~dpcore.queries.Query` or a column name (both evaluated on DataFrames),
    a callable applied to each of private and public, or a pair ``(private_values,
    public_values)``.
    """
    if isinstance(query, str | Query):
        if not isinstance(private, pd.DataFrame) or not isinstance(public, pd.DataFrame):
            raise TypeError("A Query or column name needs private and public as DataFrames.")
        if isinstance(query, str):
            return private[query].to_numpy(float), public[query].to_numpy(float)
        return query.evaluate(private), query.evaluate(public)
    if callable(query):
        b_D, b_E = query(private), query(public)
    elif isinstance(query, dict):
        b_D, b_E = query["private"], query["public"]
    else:
        b_D, b_E = query
    b_D, b_E = np.asarray(b_D, dtype=float).ravel(), np.asarray(b_E, dtype=float).ravel()
    n_D, n_E = len(private), len(public)
    if b_D.shape[0] != n_D or b_E.shape[0] != n_E:
        raise ValueError(
            f"query gives {b_D.shape[0]} private and {b_E.shape[0]} public values; "
            f"expected {n_D} and {n_E} (one per row)."
        )
    if not (np.all(np.isfinite(b_D)) and np.all(np.isfinite(b_E))):
        raise DataError("query values must be finite numbers.")
    return b_D, b_E


def _check_lam(lam) -> float:
    return check_scalar(lam, "lam", min_val=0.0)


def noise_scale(d: int, n_private: int, lam: float, epsilon: float) -> float:
    """Scale ``sqrt(d) / (N_D lam epsilon)`` of the L2 Laplace noise ([JE13]_ Algorithm 1, 2)."""
    return float(np.sqrt(d) / (n_private * _check_lam(lam) * check_epsilon(epsilon)))


def expected_noise_norm(d: int, n_private: int, lam: float, epsilon: float) -> float:
    """Mean norm ``d * sqrt(d) / (N_D lam epsilon)`` of the noise on beta (Gamma(d, scale) norm)."""
    return d * noise_scale(d, n_private, lam, epsilon)


def _balanced_design(X_D: np.ndarray, X_E: np.ndarray):
    """Stacked records, labels (1 for D) and the balanced weights 1/N_D and 1/N_E."""
    n_D, n_E = X_D.shape[0], X_E.shape[0]
    X = np.vstack([X_D, X_E])
    y = np.r_[np.ones(n_D), np.zeros(n_E)]
    s = np.r_[np.full(n_D, 1.0 / n_D), np.full(n_E, 1.0 / n_E)]
    return X, y, s


def _fit_balanced(X_D: np.ndarray, X_E: np.ndarray, lam: float) -> np.ndarray:
    """The non-private ``beta*`` of [JE13]_ Algorithm 1 step 1."""
    X, y, s = _balanced_design(X_D, X_E)
    return fit_logistic(X, y, s, lam=lam, tol=TOL).coef


def balanced_fit(private, public, lam: float, *, fit_intercept: bool = True,
                 clip: bool = False) -> np.ndarray:
    """[JE13]_ Algorithm 1 step 1: ``beta*`` of the balanced regularised logistic regression.

    Non-private (no noise yet): an intermediate for :meth:`ImportanceWeights.fit`, never a release.
    """
    X_D, X_E = _records(private, public, clip=clip)
    return _fit_balanced(_with_intercept(X_D, fit_intercept), _with_intercept(X_E, fit_intercept),
                         _check_lam(lam))


def _weighted_means(X_E: np.ndarray, B: np.ndarray, b_E: np.ndarray) -> np.ndarray:
    """``(1/N_E) sum_E b(x) w(x)`` for each row of ``B`` (shape (R, d)), stable in exp."""
    Z = X_E @ B.T
    Z -= Z.max(axis=0)
    np.exp(Z, out=Z)
    return (b_E @ Z) / Z.sum(axis=0)


# --------------------------------------------------------------------------------------------
# The mechanism
# --------------------------------------------------------------------------------------------
class ImportanceWeights:
    """Epsilon-DP importance weights for a public set ([JE13]_ Algorithm 1).

    Parameters
    ----------
    epsilon : float, default=0.1
        Privacy budget, > 0.
    lam : float, default=0.1
        Regularisation strength of the balanced logistic regression, > 0.
    fit_intercept : bool, default=True
        Append a constant component 1 to every record (counted in ``d``, penalised).
    clip : bool, default=False
        Clip private records into [0, 1]^d instead of refusing values outside it.
    rng : None, int or numpy.random.Generator, default=None

    Attributes
    ----------
    beta_ : ndarray of shape (d,)
        The released, noisy coefficients (the intercept last when fitted).
    weights_ : ndarray of shape (n_public,)
        One weight per public record, mean 1.
    sensitivity_ : float
        L2 sensitivity ``sqrt(d) / (N_D lam)`` of ``beta*`` under replace-one.
    noise_scale_ : float
        ``sensitivity_ / epsilon``; the noise norm is Gamma(d, noise_scale_).
    epsilon_spent_ : float
    n_features_in_ : int
    feature_names_in_ : ndarray of str, present when ``private`` is a DataFrame

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> D, E = rng.random((500, 3)), rng.random((400, 3)) ** 2
    >>> iw = ImportanceWeights(epsilon=1.0, lam=0.1, rng=0).fit(D, E)
    >>> iw.weights_.shape, round(float(iw.weights_.mean()), 6)
    ((400,), 1.0)
    """

    def __init__(self, epsilon: float = 0.1, lam: float = 0.1, *, fit_intercept: bool = True,
                 clip: bool = False, rng=None) -> None:
        self.epsilon = epsilon
        self.lam = lam
        self.fit_intercept = fit_intercept
        self.clip = clip
        self.rng = rng

    def fit(self, private, public, *, beta_star=None) -> ImportanceWeights:
        """Compute ``beta_`` and ``weights_`` from private records D and public records E.

        ``beta_star``, if given, must be ``balanced_fit(private, public, lam)`` of these same
        records with the same ``fit_intercept`` and ``clip``: step 1 does not depend on epsilon or
        the seed, so a caller that moves only those reuses it and draws only the noise of step 2.
        """
        epsilon, lam = check_epsilon(self.epsilon), _check_lam(self.lam)
        X_D, X_E = _records(private, public, clip=self.clip)
        X_D = _with_intercept(X_D, self.fit_intercept)
        X_E = _with_intercept(X_E, self.fit_intercept)
        n_D, d = X_D.shape
        if beta_star is None:
            beta_star = _fit_balanced(X_D, X_E, lam)
        beta_star = np.asarray(beta_star, dtype=float)
        if beta_star.shape != (d,):
            raise ValueError(f"beta_star has shape {beta_star.shape}, expected ({d},); pass "
                             "balanced_fit(private, public, lam) of the same records.")
        self.sensitivity_ = float(np.sqrt(d) / (n_D * lam))
        self.noise_scale_ = self.sensitivity_ / epsilon
        delta = sample_l2_laplace(d, self.noise_scale_, rng=check_random_state(self.rng))
        self.beta_ = beta_star + delta
        self.weights_ = X_E.shape[0] * softmax(X_E @ self.beta_)
        self.epsilon_spent_ = epsilon
        self.n_features_in_ = X_D.shape[1] - int(self.fit_intercept)
        if isinstance(private, pd.DataFrame):
            self.feature_names_in_ = np.asarray(private.columns, dtype=str)
        self._public = public if isinstance(public, pd.DataFrame) else None
        return self

    def estimate(self, values) -> float:
        """``(1/N_E) sum_E b(x) w(x)``: ``values`` holds ``b`` on each public row (or a Query)."""
        if not hasattr(self, "weights_"):
            raise RuntimeError("Call fit(private, public) before estimate().")
        if isinstance(values, Query):
            if self._public is None:
                raise TypeError("A Query needs the public set passed to fit as a DataFrame.")
            values = values.evaluate(self._public)
        values = np.asarray(values, dtype=float).ravel()
        if values.shape[0] != self.weights_.shape[0]:
            raise ValueError(
                f"values has {values.shape[0]} entries; pass one per public row "
                f"({self.weights_.shape[0]})."
            )
        return float(np.mean(values * self.weights_))


# --------------------------------------------------------------------------------------------
# Monte Carlo over bootstrap resamples of D ([JE13]_ Sect. 5)
# --------------------------------------------------------------------------------------------
def _seed(rng) -> int:
    """One integer seed from ``rng``; child streams are keyed on it, so results depend on the
    seed and on (lam, epsilon) only, not on what else was computed before."""
    return int(check_random_state(rng).integers(2**63))


def _child(seed: int, *keys: float) -> np.random.Generator:
    words = [seed] + [int(np.float64(k).view(np.uint64)) for k in keys]
    return np.random.default_rng(words)


@dataclass(frozen=True)
class BootstrapFits:
    """Non-private ``beta*`` for R bootstrap resamples of D at one ``lam`` (a simulation state).

    Everything here is computed from the private data without noise: it exists to study the
    mechanism, never to be released.
    """

    lam: float
    coefs: np.ndarray  # (R, d) beta* of each resample
    coef_full: np.ndarray  # (d,) beta* on the whole of D (the non-private reference beta_0)
    public: np.ndarray  # (N_E, d) public design, intercept included
    n_private: int
    seed: int

    @property
    def d(self) -> int:
        return self.coefs.shape[1]

    @property
    def n_reps(self) -> int:
        return self.coefs.shape[0]


@functools.lru_cache(maxsize=4)
def _bootstrap_counts(n: int, n_reps: int, seed: int) -> np.ndarray:
    """Resample counts of shape (n, R): replicate r draws n records of D with replacement.

    Keyed on the seed only, so every lam (and every baseline) sees the same resamples.
    """
    draws = _child(seed, -1.0).integers(0, n, size=(n_reps, n))
    draws += np.arange(n_reps)[:, None] * n
    counts = np.bincount(draws.ravel(), minlength=n * n_reps).reshape(n_reps, n).T
    counts = counts.astype(float)
    counts.flags.writeable = False  # shared by the cache
    return counts


class BootstrapStudy:
    """``n_reps`` bootstrap resamples of D against E, prepared once and fitted at any ``lam``.

    A simulation of the mechanism ([JE13]_ Sect. 5), not a release: the fits are non-private.
    The resamples depend only on the seed, so fits at different ``lam`` share them; the merged
    design is built once, so a lam slider or grid pays only for the fits.

    Parameters
    ----------
    private, public : DataFrame or array of shape (n, d)
        Encoded records, private ones in [0, 1]^d.
    n_reps : int, default=100
    rng : None, int or numpy.random.Generator, default=None
    fit_intercept, clip : bool
        As in :class:`ImportanceWeights`.
    """

    def __init__(self, private, public, n_reps: int = 100, rng=None, *,
                 fit_intercept: bool = True, clip: bool = False) -> None:
        if isinstance(n_reps, bool) or not isinstance(n_reps, int | np.integer) or n_reps < 1:
            raise ValueError(f"n_reps == {n_reps!r}, must be an integer >= 1.")
        self.n_reps = int(n_reps)
        self.seed = _seed(rng)
        X_D, X_E = _records(private, public, clip=clip)
        X_D, X_E = _with_intercept(X_D, fit_intercept), _with_intercept(X_E, fit_intercept)
        n_D, n_E = X_D.shape[0], X_E.shape[0]
        X, y, s = _balanced_design(X_D, X_E)
        # Column 0 holds the whole of D (beta_0's fit); the others the resamples.
        S = np.empty((n_D + n_E, self.n_reps + 1))
        S[:, 0] = s
        S[:n_D, 1:] = _bootstrap_counts(n_D, self.n_reps, self.seed) / n_D
        S[n_D:, 1:] = 1.0 / n_E
        self.problem = BatchedProblem(X, y, S)
        self.public = X_E
        self.n_private = n_D

    def fit(self, lam: float) -> BootstrapFits:
        """``beta*`` of every resample, and of the whole of D, at ``lam`` (one batched solve)."""
        fitted = self.problem.fit(lam=_check_lam(lam), tol=TOL)
        return BootstrapFits(float(lam), fitted[1:], fitted[0], self.public, self.n_private,
                             self.seed)


def bootstrap_fits(private, public, lam: float, n_reps: int = 100, rng=None, *,
                   fit_intercept: bool = True, clip: bool = False) -> BootstrapFits:
    """Fit ``beta*`` on ``n_reps`` bootstrap resamples of D in one batched solve."""
    study = BootstrapStudy(private, public, n_reps, rng, fit_intercept=fit_intercept, clip=clip)
    return study.fit(lam)


def bootstrap_estimates(fits: BootstrapFits, public_values, epsilon: float | None) -> np.ndarray:
    """Estimates ``(1/N_E) sum_E b w`` of every replicate after Algorithm 1 step 2's noise.

    ``epsilon=None`` gives the noiseless estimates (``beta*`` itself). The noise is drawn from a
    stream keyed on (seed, lam, epsilon), so moving epsilon reuses the fits and only draws noise.
    """
    b_E = np.asarray(public_values, dtype=float).ravel()
    if epsilon is None:
        return _weighted_means(fits.public, fits.coefs, b_E)
    scale = noise_scale(fits.d, fits.n_private, fits.lam, epsilon)
    delta = sample_l2_laplace(fits.d, scale, size=fits.n_reps,
                              rng=_child(fits.seed, fits.lam, epsilon))
    return _weighted_means(fits.public, fits.coefs + delta, b_E)


def monte_carlo(private, public, query, lambdas: Iterable[float], epsilons: Iterable[float],
                n_reps: int = 100, rng=None, progress: Callable[[float], None] | None = None, *,
                fit_intercept: bool = True) -> pd.DataFrame:
    """Estimates over ``n_reps`` bootstrap resamples of D for a grid of ``lam`` and ``epsilon``.

    One batched solve per ``lam``; every ``epsilon`` reuses it and only draws noise.

    Parameters
    ----------
    private, public : DataFrame or array of shape (n, d)
        Encoded records, private ones in [0, 1]^d.
    query : Query, column name, callable, or pair (private_values, public_values)
        The query ``b``; see ``_query_values``.
    lambdas, epsilons : iterables of float
    n_reps : int, default=100
    rng : None, int or numpy.random.Generator, default=None
    progress : callable taking the fraction done, default=None

    Returns
    -------
    DataFrame with one row per (lam, epsilon, rep) and columns ``lam``, ``epsilon``, ``rep``,
    ``estimate``, plus ``truth`` (the non-private mean of b over D) and ``public_mean``.
    """
    lambdas = [_check_lam(lam) for lam in lambdas]
    epsilons = [check_epsilon(eps) for eps in epsilons]
    b_D, b_E = _query_values(query, private, public)
    study = BootstrapStudy(private, public, n_reps, rng, fit_intercept=fit_intercept)
    frames = []
    for i, lam in enumerate(lambdas):
        fits = study.fit(lam)
        for eps in epsilons:
            frames.append(pd.DataFrame({
                "lam": lam, "epsilon": eps, "rep": np.arange(n_reps),
                "estimate": bootstrap_estimates(fits, b_E, eps),
            }))
        if progress is not None:
            progress((i + 1) / len(lambdas))
    out = pd.concat(frames, ignore_index=True)
    out["truth"] = float(b_D.mean())
    out["public_mean"] = float(b_E.mean())
    return out


def summarise(results: pd.DataFrame, by: Sequence[str] = ("lam", "epsilon")) -> pd.DataFrame:
    """Median, bias, SD, variance and MSE of the estimates in each group of ``results``."""
    err = results["estimate"] - results["truth"]
    g = results.assign(error=err).groupby(list(by), sort=True)
    out = g.agg(median=("estimate", "median"), mean=("estimate", "mean"),
                sd=("estimate", "std"), variance=("estimate", "var"),
                bias=("error", "mean"), mse=("error", lambda e: float(np.mean(e**2))))
    return out.reset_index()


# --------------------------------------------------------------------------------------------
# Theory: Theorem 2 (variance bound), a plug-in prediction, Theorem 3 (bias)
# --------------------------------------------------------------------------------------------
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
    lam = _check_lam(lam)
    b_D, b_E = _query_values(query, private, public)
    X_D, X_E = _records(private, public)
    X_D, X_E = _with_intercept(X_D, fit_intercept), _with_intercept(X_E, fit_intercept)
    beta0 = _fit_balanced(X_D, X_E, lam) if beta0 is None else np.asarray(beta0, dtype=float)
    return _Reference(X_D, X_E, b_D, b_E, beta0, lam)


def _bias(ref: _Reference) -> float:
    return float(_weighted_means(ref.X_E, ref.beta0[None, :], ref.b_E)[0] - ref.b_D.mean())


def _noise_variance(d: int, n_private: int, lam: float, epsilon: float) -> float:
    """Per-coordinate variance ``d(d+1)/(N_D lam epsilon)^2`` of the noise ([JE13]_ Lemma 7)."""
    return (d + 1) * noise_scale(d, n_private, lam, epsilon) ** 2


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
        """Bounds and prediction of the variance at ``epsilon``."""
        c = _noise_variance(self.d, self.n_private, self.lam, epsilon)
        bound = (self.d / (self.n_private * self.lam**2) + c) * self.alpha2
        return {"lam": self.lam, "epsilon": float(epsilon), "bound_delta": bound,
                "bound_printed": 4.0 * bound, "plugin": self.sandwich + c * self.alpha2,
                "bias": self.bias}


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
    """Theorem 2's bound (both forms), the plug-in prediction and Theorem 3's bias on a grid.

    One non-private fit of ``beta_0`` per ``lam``; every epsilon is closed form. Columns ``lam``,
    ``epsilon``, ``bound_delta``, ``bound_printed``, ``plugin``, ``bias`` (all non-private
    references: they read the private data without noise).
    """
    epsilons = [check_epsilon(eps) for eps in epsilons]
    terms = [variance_terms(private, public, query, lam, fit_intercept=fit_intercept)
             for lam in lambdas]
    return pd.DataFrame([t.at(eps) for t in terms for eps in epsilons])


def variance_bound(private, public, query, lam: float, epsilon: float, form: str = "delta", *,
                   fit_intercept: bool = True) -> float:
    """[JE13]_ Theorem 2: ``alpha^T (d/(N_D lam^2) I + d(d+1)/(N_D lam epsilon)^2 I) alpha``.

    ``beta_0`` is estimated by the non-private fit on the whole private set. ``form="delta"`` uses
    the derivative of the estimate for alpha (the delta method); ``form="as-printed"`` uses the
    paper's alpha, twice that derivative, so that bound is 4x larger (``docs/paper-notes.md``).
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
    instead of bounded), ``c = d(d+1)/(N_D lam epsilon)^2`` the exact noise variance per
    coordinate (Lemma 7's proof), ``alpha`` the delta-method derivative. Non-private reference.
    """
    row = theory_curves(private, public, query, [lam], [epsilon], fit_intercept=fit_intercept)
    return float(row["plugin"].iloc[0])


def asymptotic_bias(private, public, query, lam: float, *, fit_intercept: bool = True) -> float:
    """[JE13]_ Theorem 3: ``sum_E b softmax(beta_0.x) - mean_D b`` (non-private reference)."""
    return _bias(_reference(private, public, query, lam, fit_intercept))


# --------------------------------------------------------------------------------------------
# Baselines ([JE13]_ Sect. 5.1)
# --------------------------------------------------------------------------------------------
def baselines(private, public, query: Query, epsilons: Iterable[float], n_reps: int = 100,
              rng=None, *, binary: Sequence[str] | None = None,
              l1_sensitivity: float | None = None) -> pd.DataFrame:
    """Each baseline's estimate over the same bootstrap resamples of D as :func:`monte_carlo`.

    Methods (column ``method``):

    - ``"public mean"``: the unweighted mean of b over E (no privacy cost, biased);
    - ``"truth (non-private)"``: the mean of b over the resample itself, what D would answer;
    - ``"Laplace perturbation (raw)"`` and ``"... (trimmed)"``: records released with
      Lap(l1_sensitivity / epsilon) on every component (replace-one; the default sensitivity is
      the number of components, d, for records in [0, 1]^d; for one-hot data with g groups a change
      of record moves at most 2g components), the query answered by its multilinear extension on
      the noisy or the [0, 1]-trimmed records ([JE13]_ Sect. 5.1);
    - ``"Laplace mechanism (this query)"``: mean of b over D plus Lap(range(b) / (N_D epsilon)),
      interactive: it spends epsilon on this one query.

    ``query`` must be a :class:`~dpcore.queries.Query` and private/public DataFrames.
    """
    if not isinstance(query, Query):
        raise TypeError("baselines needs a dpcore.queries.Query.")
    epsilons = [check_epsilon(eps) for eps in epsilons]
    X_D, _ = _records(private, public)
    n_D, d = X_D.shape
    cols = query.columns
    binary = list(binary) if binary is not None else [
        c for c in private.columns
        if np.isin(private[c].to_numpy(), (0.0, 1.0)).all()
    ]
    l1 = float(d) if l1_sensitivity is None else check_scalar(l1_sensitivity, "l1_sensitivity",
                                                                min_val=0.0)
    b_D, b_E = _query_values(query, private, public)
    b_range = max(1.0, float(np.ptp(np.r_[b_D, b_E])))
    seed = _seed(rng)
    counts = _bootstrap_counts(n_D, n_reps, seed)  # (n_D, R), the resamples of monte_carlo
    truth_reps = b_D @ counts / n_D
    sub = private[cols].to_numpy(float)
    frames = [
        pd.DataFrame({"method": "public mean", "epsilon": np.nan, "rep": np.arange(n_reps),
                      "estimate": float(b_E.mean())}),
        pd.DataFrame({"method": "truth (non-private)", "epsilon": np.nan,
                      "rep": np.arange(n_reps), "estimate": truth_reps}),
    ]
    for eps in epsilons:
        gen = _child(seed, -2.0, eps)
        noisy = sub[None] + gen.laplace(0.0, l1 / eps, size=(n_reps, *sub.shape))  # (R, n_D, k)
        weights = counts.T / n_D  # (R, n_D): each replicate's resample
        raw, trimmed = (
            np.sum(weights * query.relaxed({c: v[..., j] for j, c in enumerate(cols)}, binary),
                   axis=1)
            for v in (noisy, np.clip(noisy, 0.0, 1.0))
        )
        lap = truth_reps + gen.laplace(0.0, b_range / (n_D * eps), size=n_reps)
        for method, est in (("Laplace perturbation (raw)", raw),
                            ("Laplace perturbation (trimmed)", trimmed),
                            ("Laplace mechanism (this query)", lap)):
            frames.append(pd.DataFrame({"method": method, "epsilon": eps,
                                        "rep": np.arange(n_reps), "estimate": est}))
    out = pd.concat(frames, ignore_index=True)
    out["truth"] = float(b_D.mean())
    return out


# --------------------------------------------------------------------------------------------
# Model queries ([JE13]_ Sect. 5.2 and Fig. 3)
# --------------------------------------------------------------------------------------------
def _svm_coef(X: np.ndarray, y: np.ndarray, weights: np.ndarray, Lambda: float) -> np.ndarray:
    """Linear SVM minimising ``Lambda/2 ||w||^2 + (1/n) sum_i weights_i hinge_i``."""
    from sklearn.svm import LinearSVC

    model = LinearSVC(C=1.0 / (X.shape[0] * Lambda), loss="hinge", fit_intercept=False,
                      dual=True, tol=1e-6, max_iter=20_000)
    model.fit(X, y, sample_weight=weights)
    return model.coef_[0]


def model_distances(private, public, target: str, lam: float, epsilons: Iterable[float],
                    n_reps: int = 20, rng=None, *, Lambda: float = 0.1,
                    exclude: Sequence[str] = (), progress: Callable[[float], None] | None = None,
                    fit_intercept: bool = True) -> pd.DataFrame:
    """Distance between linear models trained on weighted E and on D ([JE13]_ Fig. 3).

    For each bootstrap resample and epsilon, the importance weights of Algorithm 1 weight E; a
    linear SVM (hinge loss) and a logistic regression, both with penalty ``Lambda/2 ||w||^2`` and
    an appended constant feature, are trained on weighted E to predict ``target`` from the other
    columns (minus ``exclude``, for example the other items of the target's one-hot group), and
    compared by Euclidean distance with the same model trained on D (non-private reference).

    Two references sit beside them: ``"no noise"`` (weights from ``beta*``, bootstrap only) and
    ``"output perturbation"``: the SVM trained on D plus L2 Laplace noise of scale
    ``2 R / (N_D Lambda epsilon)`` with ``R = sqrt(d)`` the largest record norm in [0, 1]^d
    ([CMS11]_ Algorithm 1, replace-one; SVM only, as in the paper).

    Returns a DataFrame with columns ``model``, ``method``, ``epsilon``, ``rep``, ``distance``.
    """
    epsilons = [check_epsilon(eps) for eps in epsilons]
    Lambda = check_scalar(Lambda, "Lambda", min_val=0.0)
    if not isinstance(private, pd.DataFrame) or target not in private.columns:
        raise DataError(f"target {target!r} must be a column of the private DataFrame.")
    features = [c for c in private.columns if c != target and c not in set(exclude)]
    F_D = _with_intercept(check_unit_box(private[features], "private"), True)
    F_E = _with_intercept(check_array(public[features], "public"), True)
    y_D, y_E = private[target].to_numpy(float), public[target].to_numpy(float)
    if len(np.unique(y_D)) < 2 or len(np.unique(y_E)) < 2:
        raise DataError(f"target {target!r} needs both classes in the private and public sets.")
    n_D = F_D.shape[0]
    study = BootstrapStudy(private, public, n_reps, rng, fit_intercept=fit_intercept)
    fits, seed = study.fit(lam), study.seed
    ref = {
        "linear SVM": _svm_coef(F_D, y_D, np.ones(n_D), Lambda),
        "logistic regression": fit_logistic(F_D, y_D, np.full(n_D, 1.0 / n_D), lam=Lambda,
                                            tol=TOL).coef,
    }
    rows: list[dict] = []
    settings = [("no noise", None)] + [("importance weights", eps) for eps in epsilons]
    for k, (method, eps) in enumerate(settings):
        if eps is None:
            B = fits.coefs
        else:
            scale = noise_scale(fits.d, fits.n_private, fits.lam, eps)
            B = fits.coefs + sample_l2_laplace(fits.d, scale, size=fits.n_reps,
                                               rng=_child(fits.seed, fits.lam, eps))
        W = softmax(fits.public @ B.T, axis=0)  # (N_E, R), columns sum to 1
        logreg = fit_logistic_batched(F_E, y_E, W, lam=Lambda, coef_init=ref["logistic regression"],
                                      tol=TOL)
        for r in range(fits.n_reps):
            svm = _svm_coef(F_E, y_E, W[:, r] * F_E.shape[0], Lambda)
            for model, coef in (("linear SVM", svm), ("logistic regression", logreg[r])):
                rows.append({"model": model, "method": method, "epsilon": eps, "rep": r,
                             "distance": float(np.linalg.norm(coef - ref[model]))})
        if progress is not None:
            progress((k + 1) / (len(settings) + 1))
    d_svm = F_D.shape[1]
    for eps in epsilons:
        noise = sample_l2_laplace(d_svm, 2.0 * np.sqrt(d_svm) / (n_D * Lambda * eps),
                                  size=fits.n_reps, rng=_child(seed, -3.0, eps))
        rows += [{"model": "linear SVM", "method": "output perturbation", "epsilon": eps, "rep": r,
                  "distance": float(np.linalg.norm(noise[r]))} for r in range(fits.n_reps)]
    if progress is not None:
        progress(1.0)
    out = pd.DataFrame(rows)
    out.attrs["reference_norm"] = {m: float(np.linalg.norm(c)) for m, c in ref.items()}
    return out
