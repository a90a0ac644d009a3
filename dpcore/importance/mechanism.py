"""Differentially private importance weights (Ji & Elkan 2013) and their Monte-Carlo study.

The mechanism ([JE13]_ Algorithm 1) publishes one weight per record of a public set E that makes
weighted means over E estimate means over a private set D:

1. fit the *balanced* regularised logistic regression of "in D" against "in E" ([JE13]_
   footnote 2): ``beta* = argmin -(1/N_E) sum_E log p(x in E) - (1/N_D) sum_D log p(x in D)
   + lam/2 ||beta||^2``;
2. release ``beta = beta* + delta``, ``p(delta) ~ exp(-epsilon N_D lam ||delta|| / sqrt(d))``;
3. weight each public record by ``w(x) = N_E exp(beta.x) / sum_E exp(beta.x)``.

Privacy: neighbouring relation *replace-one* (N_D is public); every component of a private record
lies in [0, 1] (enforced by clipping into [0, 1], a rule fixed by the domain: no refusal that one
record could trigger); then the L2 sensitivity of the exact ``beta*`` is ``sqrt(d) / (N_D lam)``
([JE13]_ Lemma 2), with ``d`` counting the intercept if one is fitted. The solver stops at a
certified objective gap of at most ``g = 2 TOL``, so the released minimiser is within
``sqrt(2 g / lam)`` of the exact one (lam-strong convexity): the sensitivity used is
``sqrt(d) / (N_D lam) + 2 sqrt(2 g / lam)``, and a solve that does not reach ``g`` is refused.
The weights are a function of ``beta`` and public data only, so they inherit epsilon-DP
([JE13]_ Theorem 1), provided E does not depend on D. See ``docs/paper-notes.md``.

References
----------
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn. 93.
.. [CMS11] Chaudhuri, Monteleoni & Sarwate (2011), *Differentially private empirical risk
   minimization*, JMLR 12.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import softmax

from dpcore.accountant import BudgetAccountant
from dpcore.logistic import fit_logistic
from dpcore.mechanisms import L2Laplace
from dpcore.queries import Query
from dpcore.validation import (
    DataError,
    check_array,
    check_epsilon,
    check_scalar,
    check_study_or_release,
    check_unit_box,
    fingerprint,
)

__all__ = [
    "TOL",
    "PULL_SHARE",
    "BalancedFit",
    "AUTO_LOG_WEIGHT_NOISE",
    "PAGE_LOG_WEIGHT_NOISE",
    "ImportanceWeights",
    "auto_lambda",
    "balanced_design",
    "balanced_fit",
    "check_records",
    "default_lambda",
    "expected_noise_norm",
    "noise_scale",
    "release_sensitivity",
    "correcting_epsilon",
    "design_matrices",
    "pulled_to_public",
    "smallest_epsilon",
    "typical_log_weight_noise",
    "weighted_means",
    "with_intercept",
]

#: Objective tolerance of every fit: certified ``J(beta) - min J <= 2 TOL`` (the balanced
#: objective's weights sum to 2; see ``dpcore.logistic.fit_logistic``).
TOL = 1e-10
#: The certified objective gap every fit must reach: ``TOL`` times the total weight 2.
GAP = 2.0 * TOL
MECHANISM = "importance weights (Ji & Elkan Alg. 1)"
#: The neighbouring relation the sensitivity holds under (N_D public), as the ledger keys it.
RELATION = "replace"
NEIGHBOURING = "replace one private record (N_D public)"


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------
def check_records(private, public) -> tuple[np.ndarray, np.ndarray]:
    """Private and public records as float arrays with matching columns; private in [0, 1]^d.

    Private components outside [0, 1] are **clipped** into it: the domain's bound, not read off
    the data, so it costs no privacy, and whether a release happens never depends on one
    record's value.

    Parameters
    ----------
    private, public : DataFrame or array of shape (n, d)
        Encoded records. Two DataFrames are aligned on the private set's column order.

    Returns
    -------
    X_D : ndarray of shape (n_private, d)
    X_E : ndarray of shape (n_public, d)

    Raises
    ------
    DataError
        When the columns differ or their number does not match (public facts), or a value is
        missing or not a finite number (:func:`~dpcore.validation.check_array`).
    """
    if isinstance(private, pd.DataFrame) and isinstance(public, pd.DataFrame):
        if list(private.columns) != list(public.columns):
            missing = set(private.columns) ^ set(public.columns)
            if missing:
                raise DataError(
                    f"private and public have different columns ({sorted(map(str, missing))[:5]}"
                    "); align both to their shared columns first."
                )
            public = public[private.columns]
    X_D = check_unit_box(private, "private", clip=True)
    X_E = check_array(public, "public")
    if X_D.shape[1] != X_E.shape[1]:
        raise DataError(
            f"private has {X_D.shape[1]} columns and public {X_E.shape[1]}; both need the same."
        )
    return X_D, X_E


def with_intercept(X: np.ndarray, fit_intercept: bool) -> np.ndarray:
    """``X`` with a last column of ones when ``fit_intercept`` (the intercept counts in ``d``)."""
    return np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X


def design_matrices(private, public, fit_intercept: bool) -> tuple[np.ndarray, np.ndarray]:
    """Private and public design matrices (:func:`check_records`, private clipped into
    [0, 1]^d), the intercept column appended when fitted (:func:`with_intercept`): the ``x`` of
    every fit and weight of [JE13]_."""
    X_D, X_E = check_records(private, public)
    return with_intercept(X_D, fit_intercept), with_intercept(X_E, fit_intercept)


def query_values(query, private, public) -> tuple[np.ndarray, np.ndarray]:
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


def check_lam(lam) -> float:
    """The regularisation strength: a finite number > 0."""
    return check_scalar(lam, "lam", min_val=0.0)


def _resolve_lam(lam, public, n_private: int, epsilon: float, fit_intercept: bool) -> float:
    """``lam`` of :class:`ImportanceWeights`: ``"auto"`` (:func:`auto_lambda`) or a number > 0."""
    if isinstance(lam, str):
        if lam != "auto":
            raise ValueError(f"lam == {lam!r}; pass lam='auto' (chosen from N_D, d, epsilon and "
                             "the public records by dpcore.importance.auto_lambda) or a number "
                             "> 0, e.g. lam=0.1.")
        return auto_lambda(public, n_private, epsilon, fit_intercept=fit_intercept)
    try:
        return check_lam(lam)
    except (TypeError, ValueError) as err:
        raise type(err)(f"{err} Pass lam='auto' (the default) or a number > 0, e.g. lam=0.1."
                        ) from None


# --------------------------------------------------------------------------------------------
# Sensitivity and noise
# --------------------------------------------------------------------------------------------
def release_sensitivity(d: int, n_private: int, lam: float) -> float:
    """L2 sensitivity of the released ``beta`` under replace-one, solver error included.

    ``sqrt(d) / (N_D lam)`` for the exact minimiser ([JE13]_ Lemma 2, records in [0, 1]^d) plus
    ``2 sqrt(2 GAP / lam)``: each neighbour's solve is certified within ``GAP`` of its minimum, so
    within ``sqrt(2 GAP / lam)`` of its minimiser (lam-strong convexity). The bound uses the
    tolerance, never the gap a solve reached, so it reads nothing from the data.
    """
    lam = check_lam(lam)
    return float(np.sqrt(d) / (n_private * lam) + 2.0 * np.sqrt(2.0 * GAP / lam))


def noise_scale(d: int, n_private: int, lam: float, epsilon: float) -> float:
    """Scale of the L2 Laplace noise on beta: ``release_sensitivity / epsilon``.

    [JE13]_ Algorithm 1 step 2 prints ``sqrt(d) / (N_D lam epsilon)``; the solver term adds
    ``2 sqrt(2 GAP / lam) / epsilon`` (2.5 % on Adult at lam = 0.1).
    """
    return release_sensitivity(d, n_private, lam) / check_epsilon(epsilon)


def expected_noise_norm(d: int, n_private: int, lam: float, epsilon: float) -> float:
    """Mean norm ``d * noise_scale`` of the noise on beta (its norm is Gamma(d, noise_scale))."""
    return d * noise_scale(d, n_private, lam, epsilon)


#: Largest typical noise on a public record's log-weight that the default lambda allows (a factor
#: e^2.5 = 12 on a typical weight); beyond it the weights are mostly noise.
LOG_WEIGHT_NOISE_LIMIT = 2.5


def _public_norms(public, fit_intercept: bool) -> tuple[int, float]:
    """``d`` and ``rms||x||`` of the public records (with the intercept column): the only part of
    :func:`typical_log_weight_noise` that reads data, computed once per rule below."""
    X_E = with_intercept(check_array(public, "public"), fit_intercept)
    return X_E.shape[1], float(np.sqrt(np.mean(np.sum(X_E**2, axis=1))))


def _log_weight_noise(norms: tuple[int, float], n_private: int, lam: float,
                      epsilon: float) -> float:
    d, rms = norms
    return expected_noise_norm(d, n_private, lam, epsilon) * rms / np.sqrt(d)


def typical_log_weight_noise(public, n_private: int, lam: float, epsilon: float, *,
                             fit_intercept: bool = True) -> float:
    """How far the noise moves a typical public record's log-weight, ``E||δ|| rms||x|| / sqrt(d)``.

    The log-weight of record x moves by ``x.δ``; with δ's direction uniform, ``x.δ`` has standard
    deviation ``||δ|| ||x|| / sqrt(d)``. ``rms||x||`` is taken over the *public* records, so this
    reads nothing from the private data (``n_private`` is public under replace-one).
    """
    return _log_weight_noise(_public_norms(public, fit_intercept), n_private, lam, epsilon)


#: Typical log-weight noise of the importance page's default lambda (:func:`default_lambda`):
#: a typical weight moves by a factor of about e^0.5 = 1.6. Fixed on the training tables of
#: ``benchmarks/bench_outside.py`` (a logistic regression trained on E weighted at this lambda,
#: its test accuracy against the majority class at epsilon = 0.5 ... 8, the model's penalty by
#: cross-validation on E): at 2.5 three of the twelve training rows fell below the majority
#: class, at 1.0 one sat on it (fair, random split, epsilon = 8: 0.677 against 0.676), at 0.5
#: every row cleared it by 0.035 or more, and 0.25 gained less than 0.015 more while pulling
#: every query estimate further towards the unweighted public mean. On Adult's page records it
#: also estimates the >50K rate better than 1.0 (``docs/paper-notes.md``). Smaller than
#: :data:`AUTO_LOG_WEIGHT_NOISE`, the library's default.
PAGE_LOG_WEIGHT_NOISE = 0.5


def default_lambda(public, n_private: int, epsilon: float, lambdas, *,
                   limit: float = PAGE_LOG_WEIGHT_NOISE, fit_intercept: bool = True) -> float:
    """The smallest lambda of ``lambdas`` whose :func:`typical_log_weight_noise` is <= ``limit``.

    The importance page's default: :func:`auto_lambda`'s noise-limited rule at
    :data:`PAGE_LOG_WEIGHT_NOISE`, on the page's slider grid. A rule of N_D, d, epsilon and the
    public records only: nothing private. The smaller epsilon * N_D, the larger the lambda, so
    the weights tend to uniform (and a model trained on weighted E to the one on E alone, which
    is free). The largest lambda is returned when none qualifies.
    """
    return _smallest_lambda(_public_norms(public, fit_intercept), n_private, epsilon, lambdas,
                            limit)


#: Typical log-weight noise that ``lam="auto"`` aims at (:func:`auto_lambda`): the noise moves a
#: typical weight by a factor of about e. Chosen on four tables (Adult and three biased
#: scikit-learn tables, ``docs/paper-notes.md``): 2.5 (:data:`LOG_WEIGHT_NOISE_LIMIT`) left the
#: weights of small tables mostly noise and doubled the error on Adult at epsilon = 1; 0.5 added
#: bias on Adult at epsilon = 0.1.
AUTO_LOG_WEIGHT_NOISE = 1.0


def auto_lambda(public, n_private: int, epsilon: float, *,
                limit: float = AUTO_LOG_WEIGHT_NOISE, fit_intercept: bool = True) -> float:
    """``lam="auto"``: the lambda at which :func:`typical_log_weight_noise` equals ``limit``.

    The noise ``delta`` on beta has mean norm ``d release_sensitivity(d, N_D, lam) / epsilon``
    (Algorithm 1 step 2, Lemma 2), and it moves the log-weight of a public record x by ``x.delta``,
    of typical size ``E||delta|| rms||x|| / sqrt(d)``; the estimate's noise variance in [JE13]_
    Theorem 2 is ``alpha^T alpha`` times the same per-coordinate noise variance, so holding this
    size at ``limit`` holds Theorem 2's noise term at ``limit^2 ||alpha||^2 / rms||x||^2``
    whatever N_D, d and epsilon. With ``u = 1 / sqrt(lam)`` the condition
    ``(sqrt(d) rms / epsilon) (sqrt(d) u^2 / N_D + 2 sqrt(2 GAP) u) = limit`` is a quadratic in
    ``u``; without the solver term it reads ``lam = d rms||x|| / (N_D epsilon limit)``.

    A rule of N_D (public under replace-one), d, epsilon and the *public* records' rms norm
    (intercept included): nothing private. Larger lambda only where the noise would swamp the
    weights; the cost is Theorem 3's bias towards the unweighted public mean.

    Parameters
    ----------
    public : DataFrame or array of shape (n_public, d)
        The public records E.
    n_private : int
        N_D, the number of private records.
    epsilon : float
        The budget of the release, > 0.
    limit : float, default=AUTO_LOG_WEIGHT_NOISE
        Typical log-weight noise to aim at, > 0.
    fit_intercept : bool, default=True
        Whether the intercept column counts in ``d`` and the norms.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> E = np.random.default_rng(0).random((400, 3))
    >>> lam = auto_lambda(E, 500, 1.0)
    >>> round(float(typical_log_weight_noise(E, 500, lam, 1.0)), 6), round(lam, 4)
    (1.0, 0.0114)
    """
    d, rms = _public_norms(public, fit_intercept)
    if rms == 0.0:
        raise DataError("every public record is zero, so no lambda changes a weight; pass "
                        "fit_intercept=True or public records with nonzero components.")
    epsilon = check_epsilon(epsilon)
    limit = check_scalar(limit, "limit", min_val=0.0)
    a, b = np.sqrt(d) / n_private, 2.0 * np.sqrt(2.0 * GAP)
    c = limit * epsilon / (np.sqrt(d) * rms)
    u = 2.0 * c / (b + np.sqrt(b * b + 4.0 * a * c))  # the positive root, stable for small a c
    return float(1.0 / u**2)


def _smallest_lambda(norms: tuple[int, float], n_private: int, epsilon: float, lambdas,
                     limit: float) -> float:
    ordered = sorted(float(v) for v in lambdas)
    for lam in ordered:
        if _log_weight_noise(norms, n_private, lam, epsilon) <= limit:
            return lam
    return ordered[-1]


#: Within this share of the truth-to-public-mean gap from the public mean, an estimate counts as
#: pulled to the public mean (:func:`pulled_to_public`).
PULL_SHARE = 0.25


def pulled_to_public(estimate: float, truth: float, public_mean: float, *,
                     share: float = PULL_SHARE) -> bool:
    """Whether ``estimate`` sits near the unweighted public mean rather than the truth: within
    ``share`` of the gap between them, from the public mean.

    That is the bias of a large lambda ([JE13]_ Theorem 3: the weights shrink towards 1, so the
    weighted mean tends to the public mean), not noise. ``truth`` is computed from the private
    data without noise: use this to explain a study, never to shape a release.
    """
    gap = abs(truth - public_mean)
    return gap > 0 and abs(estimate - public_mean) < share * gap


def correcting_epsilon(public, n_private: int, lam: float, epsilons, lambdas, *,
                       factor: float = 50.0,
                       fit_intercept: bool = True) -> tuple[float, float] | None:
    """The smallest epsilon of ``epsilons`` at which :func:`default_lambda` (the page's rule) is
    at most ``lam / factor``, with that lambda; None if there is none.

    What to suggest when the estimates sit at the public mean because lambda must be large to
    keep the noise in check: a larger budget lets the rule pick a lambda ``factor`` times
    smaller, with less bias. A rule of N_D, d and the public records only. The page's rule
    holds the noise low (:data:`PAGE_LOG_WEIGHT_NOISE`), so a λ 20 times smaller still left
    wine's estimate near the public mean; 50 times smaller moves it off (at ε = 5, λ = 0.2).
    """
    norms = _public_norms(public, fit_intercept)
    for eps in sorted(float(v) for v in epsilons):
        rule = _smallest_lambda(norms, n_private, eps, lambdas, PAGE_LOG_WEIGHT_NOISE)
        if rule <= lam / factor:
            return eps, rule
    return None


def smallest_epsilon(public, n_private: int, lam: float, epsilons, *,
                     limit: float = LOG_WEIGHT_NOISE_LIMIT,
                     fit_intercept: bool = True) -> float | None:
    """The smallest epsilon of ``epsilons`` whose typical log-weight noise at ``lam`` is at most
    ``limit``, or None (what to suggest when the noise swamps the signal)."""
    norms = _public_norms(public, fit_intercept)
    for eps in sorted(float(v) for v in epsilons):
        if _log_weight_noise(norms, n_private, lam, eps) <= limit:
            return eps
    return None


def balanced_design(X_D: np.ndarray,
                    X_E: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The balanced logistic regression of [JE13]_ Algorithm 1 step 1 (footnote 2) as one
    weighted problem: the stacked records ``X``, the labels ``y`` (1 for D, 0 for E) and the
    sample weights ``s`` (1/N_D on D, 1/N_E on E, so each set weighs 1)."""
    n_D, n_E = X_D.shape[0], X_E.shape[0]
    X = np.vstack([X_D, X_E])
    y = np.r_[np.ones(n_D), np.zeros(n_E)]
    s = np.r_[np.full(n_D, 1.0 / n_D), np.full(n_E, 1.0 / n_E)]
    return X, y, s


def weighted_means(X_E: np.ndarray, B: np.ndarray, b_E: np.ndarray) -> np.ndarray:
    """The estimate ``(1/N_E) sum_E b(x) w(x)`` of [JE13]_ Algorithm 1 step 3 for every row of
    ``B``, stable in exp.

    Parameters
    ----------
    X_E : ndarray of shape (n_public, d)
        The public design (:func:`design_matrices`).
    B : ndarray of shape (n_coefs, d)
        One coefficient vector ``beta`` per row.
    b_E : ndarray of shape (n_public,)
        The query ``b`` on each public record.

    Returns
    -------
    ndarray of shape (n_coefs,)
    """
    Z = X_E @ B.T
    Z -= Z.max(axis=0)
    np.exp(Z, out=Z)
    return (b_E @ Z) / Z.sum(axis=0)


# --------------------------------------------------------------------------------------------
# Step 1: the balanced fit
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BalancedFit:
    """[JE13]_ Algorithm 1 step 1 on one pair of datasets at one ``lam``: non-private.

    An intermediate of :meth:`ImportanceWeights.fit`, never a release. It remembers what it was
    fitted on (a digest of the design matrices, ``lam``, ``fit_intercept``), so that a
    caller that caches it to move only epsilon cannot pass it to a release on other data or at
    another ``lam`` (which would calibrate the noise to the wrong sensitivity).
    """

    coef: np.ndarray
    lam: float
    gap: float
    fit_intercept: bool
    fingerprint: str

    @property
    def converged(self) -> bool:
        """Whether the certified objective gap reached the tolerance the sensitivity assumes."""
        return self.gap <= GAP


def _fit_step1(X_D: np.ndarray, X_E: np.ndarray, lam: float,
               fit_intercept: bool) -> BalancedFit:
    X, y, s = balanced_design(X_D, X_E)
    with warnings.catch_warnings():  # non-convergence is reported by BalancedFit.converged
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            fit = fit_logistic(X, y, s, lam=lam, tol=TOL)
            coef, gap = fit.coef, fit.gap
        except np.linalg.LinAlgError:  # a Hessian singular in floating point: lam far too small
            coef, gap = np.full(X.shape[1], np.nan), np.inf
    return BalancedFit(coef, lam, gap, fit_intercept, fingerprint(X_D, X_E))


def balanced_fit(private, public, lam: float, *, fit_intercept: bool = True) -> BalancedFit:
    """[JE13]_ Algorithm 1 step 1: ``beta*`` of the balanced regularised logistic regression.

    ``argmin -(1/N_E) sum_E log p(x in E) - (1/N_D) sum_D log p(x in D) + lam/2 ||beta||^2``
    (footnote 2). Non-private (no noise yet): pass it to :meth:`ImportanceWeights.fit` as
    ``step1`` to draw only the noise of step 2 when epsilon moves.

    Returns
    -------
    BalancedFit
    """
    X_D, X_E = design_matrices(private, public, fit_intercept)
    return _fit_step1(X_D, X_E, check_lam(lam), fit_intercept)


# --------------------------------------------------------------------------------------------
# The mechanism
# --------------------------------------------------------------------------------------------
class ImportanceWeights:
    """Epsilon-DP importance weights for a public set ([JE13]_ Algorithm 1).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget, > 0. At 0.1 (the paper's Adult setting, N_D = 20,688) a table of a few
        hundred private records cannot be corrected at any lambda (``docs/paper-notes.md``).
    lam : float or "auto", default="auto"
        Regularisation strength of the balanced logistic regression, > 0. ``"auto"`` takes
        :func:`auto_lambda`: the lambda at which the noise moves a typical public log-weight by
        :data:`AUTO_LOG_WEIGHT_NOISE` (a rule of N_D, d, epsilon and the public records only;
        ``lam_`` holds the value).
    fit_intercept : bool, default=True
        Append a constant component 1 to every record (counted in ``d``, penalised).
    rng : None, int or numpy.random.Generator, default=None
        ``None``: a **release**, whose noise is the paper's L2-Laplace drawn float-safe (a
        Gaussian scale mixture around OpenDP's exact sampler) from fresh OS entropy
        (:meth:`dpcore.mechanisms.L2Laplace.release`). A seed or Generator: a **study**, whose
        noise is the same law drawn by numpy; anyone who knows the seed can rebuild it, so a
        seeded fit cannot spend through an accountant.
    accountant : BudgetAccountant, default=None
        Charged ``epsilon`` before the noise is drawn; a fit that would pass its budget raises
        :class:`~dpcore.accountant.BudgetExceeded` and releases nothing. Only with ``rng=None``.

    Attributes
    ----------
    lam_ : float
        The regularisation used (``lam``, or the value of ``"auto"``).
    beta_ : ndarray of shape (d,)
        The released, noisy coefficients (the intercept last when fitted).
    weights_ : ndarray of shape (n_public,)
        One weight per public record, mean 1.
    sensitivity_ : float
        L2 sensitivity of the released ``beta`` under replace-one,
        :func:`release_sensitivity` (Lemma 2's ``sqrt(d) / (N_D lam)`` plus the solver term).
    noise_scale_ : float
        ``sensitivity_ / epsilon``: the paper's scale (the noise norm of a study is
        Gamma(d, noise_scale_)).
    noise_law_ : str
        ``"release"`` (the L2-Laplace drawn float-safe, its scale covering OpenDP's 2^-60
        grid) or ``"paper"`` (the L2-Laplace of a seeded study, drawn by numpy).
    epsilon_spent_ : float
    n_features_in_ : int
    feature_names_in_ : ndarray of str, present when ``private`` is a DataFrame

    Notes
    -----
    Neighbouring relation: replace-one (N_D public). Data bounds: every private component in
    [0, 1]: :meth:`fit` clips components outside it into [0, 1] (the domain's bound; no value of
    D can refuse a release). E must not depend on D.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> D, E = rng.random((500, 3)), rng.random((400, 3)) ** 2
    >>> iw = ImportanceWeights(epsilon=1.0, lam=0.1, rng=0).fit(D, E)
    >>> iw.weights_.shape, round(float(iw.weights_.mean()), 6)
    ((400,), 1.0)
    """

    def __init__(self, epsilon: float = 1.0, lam: float | str = "auto", *,
                 fit_intercept: bool = True, rng=None,
                 accountant: BudgetAccountant | None = None) -> None:
        self.epsilon = epsilon
        self.lam = lam
        self.fit_intercept = fit_intercept
        self.rng = rng
        self.accountant = accountant

    def fit(self, private, public, *, step1: BalancedFit | None = None,
            dataset: str = "") -> ImportanceWeights:
        """Compute ``beta_`` and ``weights_`` from private records D and public records E.

        Parameters
        ----------
        private, public : DataFrame or array of shape (n, d)
            Encoded records; private components outside [0, 1] are clipped into it.
        step1 : BalancedFit, default=None
            :func:`balanced_fit` of these same records at ``lam_`` (checked), so that a
            caller that moves only epsilon draws only the noise of step 2.
        dataset : str, default=""
            Name of the private dataset for the accountant's ledger.

        Raises
        ------
        DataError
            If the solve did not reach the certified gap the sensitivity assumes (raise lam).
        BudgetExceeded
            If the accountant's budget would be passed; nothing is released.
        """
        epsilon = check_epsilon(self.epsilon)
        check_study_or_release(self.rng, self.accountant)
        X_D, X_E = design_matrices(private, public, self.fit_intercept)
        n_D, d = X_D.shape
        lam = _resolve_lam(self.lam, public, n_D, epsilon, self.fit_intercept)
        if step1 is None:
            step1 = _fit_step1(X_D, X_E, lam, self.fit_intercept)
        elif not isinstance(step1, BalancedFit):
            raise TypeError(f"step1 must be a BalancedFit from balanced_fit(), got "
                            f"{type(step1).__name__}.")
        elif ((step1.lam, step1.fit_intercept) != (lam, self.fit_intercept)
              or step1.fingerprint != fingerprint(X_D, X_E)):
            raise ValueError(
                f"step1 was fitted at lam = {step1.lam:g} (fit_intercept={step1.fit_intercept}) "
                f"or on other records; this release needs lam = {lam:g} "
                f"(fit_intercept={self.fit_intercept}) on these records. Pass "
                "balanced_fit(private, public, lam) of the same records, or no step1."
            )
        if not step1.converged:
            raise DataError(
                f"The balanced logistic regression did not converge at lam = {lam:g} (the "
                f"sensitivity assumes a certified objective gap of at most {GAP:.2g}), so its "
                "noise would be too small. Raise lam (for example to 0.001 or more); nothing was "
                "released."
            )
        mechanism = L2Laplace(epsilon, release_sensitivity(d, n_D, lam), d,
                              neighbouring=NEIGHBOURING)
        if self.accountant is not None:
            self.accountant.spend(epsilon, mechanism=MECHANISM, dataset=dataset or "private D",
                                  note=f"lam = {lam:g}, d = {d}, N_D = {n_D}; noise: "
                                       "L2-Laplace (OpenDP)",
                                  relation=RELATION)
        self.lam_ = lam
        self.sensitivity_ = mechanism.sensitivity
        self.noise_scale_ = mechanism.scale
        self.beta_ = mechanism.draw(step1.coef, rng=self.rng)
        self.noise_law_ = "release" if self.rng is None else "paper"
        self.weights_ = X_E.shape[0] * softmax(X_E @ self.beta_)
        self.epsilon_spent_ = epsilon
        self.n_features_in_ = d - int(self.fit_intercept)
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
