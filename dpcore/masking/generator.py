"""Masked data generation ([PGY]_ Algorithm 1) and input perturbation ([PGY]_ Algorithm 2).

Privacy statements
------------------
Both mechanisms assume every record has ``||x|| <= data_norm``, a bound the caller takes from the
domain or from public information (never from the private data). Records are divided by
``data_norm`` and any record still outside the unit ball is scaled back onto it (a projection
that does not depend on the data, so it costs no privacy), so the paper's ``||x_i|| <= 1`` holds.

* :class:`MaskedDataGenerator`: neighbours replace one record ``(x, y)`` (``n`` fixed; feature
  *and* label may differ). Step 1 fits the regularised logistic model of
  :mod:`dpcore.masking.model`, optionally with an intercept (a constant column appended to every
  scaled record, the whole divided so that it stays in the unit ball:
  :func:`design_records`; penalised like the other weights) and a penalty centred at a public
  model ``W_E`` (``lam/2 ||W - W_E||^2``; ``W_E`` depends on public data only, so it is the same
  on both neighbours, and the objective stays ``lam``-strongly convex: the argument of [CM08]_
  Corollary 2 goes through unchanged); step 2 releases ``W' = W + eta`` through
  :func:`dpcore.perturbation.perturb_output` with L2 sensitivity
  ``2 L / (n lam) + 2 sqrt(2 GAP_TOL / lam)`` ([CM08]_ Corollary 2 plus the solver term for a fit
  certified to the public gap :data:`GAP_TOL`; a fit that cannot certify it is refused, so the
  noise scale never depends on the data),
  where ``L`` is the Lipschitz constant of the per-record loss in the parameter for records of
  norm <= 1: ``L = 1`` for the binary model (``|sigmoid(z) - y| <= 1``) and ``L = sqrt(2)`` for
  the C-class softmax in the flattened ``W`` (the per-record gradient ``(p - e_y) x^T`` has
  Frobenius norm ``||p - e_y|| ||x||`` and ``||p - e_y||^2 = (1 - p_y)^2 + sum_{c != y} p_c^2
  <= 2 (1 - p_y)^2 <= 2``). For the binary model this is the paper's density
  ``exp(-lam N epsilon ||eta|| / 2)``; a release (``rng=None``) draws that law float-safe, as
  a Gaussian scale mixture around OpenDP's exact sampler
  (:meth:`dpcore.mechanisms.L2Laplace.release`). Step 3 (the greedy masked set) uses only
  ``W'``, the public
  initial set and fresh randomness, so it is post-processing: the released set is epsilon-DP
  whether or not its gradient reaches zero (the paper's Proposition 1 assumes it does; it need
  not).
* :func:`input_perturbation`: neighbours replace one record's *features*; each record gets
  ``eta`` with density proportional to ``exp(-epsilon ||eta|| / 2)`` (L2 sensitivity 2 for
  records in the unit ball). Labels are published unperturbed, so the guarantee covers the
  features only: a change of one record's label is not protected.

References
----------
.. [PGY] Pham, Ghosh & Yegneswaran, *Data masking with privacy guarantees*, Algorithms 1-2,
   Propositions 1 and 3.
.. [CM08] Chaudhuri & Monteleoni (2008), *Privacy-preserving logistic regression*, NIPS.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from dpcore.masking.greedy import greedy_masked_batches, greedy_masked_samples
from dpcore.masking.model import (
    check_labels,
    fit_logistic_model,
    n_logits,
    predict_labels,
    probabilities,
    targets,
)
from dpcore.mechanisms import L2Laplace
from dpcore.perturbation import check_certified, output_sensitivity, perturb_output
from dpcore.validation import (
    DataError,
    PrivacyLeakWarning,
    check_array,
    check_epsilon,
    check_int,
    check_random_state,
    check_scalar,
    check_study_or_release,
)

__all__ = ["AUTO_LAMBDA", "GAP_TOL", "INTERCEPT_SCALING", "MaskedDataGenerator",
           "NoInterceptWarning", "auto_lambda", "design_records", "fit_generators",
           "input_perturbation", "intercept_value", "lipschitz_constant", "records_from_design",
           "scale_records", "summed_gradient"]

#: What the generator's release is called in the ledger.
MECHANISM = "masked data generation (Pham et al. Alg. 1)"
#: Public bound on the certified objective gap of step 1's fit (averaged objective). The
#: sensitivity's solver term ``2 sqrt(2 GAP_TOL / lam)`` uses it, a constant rather than the gap
#: the solver reached on the private data (4e-5 at lam = 0.5); the solver aims at 1e-12.
GAP_TOL = 1e-10
#: Constant of :func:`auto_lambda` (``lam="auto"``). Chosen on two tables (scikit-learn's breast
#: cancer and wine, class 0 against the rest; 70/30 split ``random_state=0``; features min-max
#: scaled with ``center=0.5`` or standardised; ``data_norm=1``; epsilon 0.5, 1, 5): the best
#: ``lam`` of the grid 0.003-0.3 (seeds 0-2) lies between 0.05 and 4 times
#: ``(d / (n epsilon))^(2/3)``, and with 0.5 the mean accuracy (seeds 0-4) is within 0.042 of
#: the grid's best in all 12 cells. It was chosen with these tables in view; the project's Adult
#: (one-hot, no centre) is the check on other data.
AUTO_LAMBDA = 0.5
#: Range ``lam="auto"`` is clipped to: the cap is the paper's own lambda (Fig. 5), the floor
#: keeps the noise on ``W'`` (scale ``2 / (n lam epsilon)``) finite for huge ``n``.
AUTO_LAMBDA_MIN, AUTO_LAMBDA_MAX = 1e-4, 0.5
#: The intercept's constant column, appended to a scaled record (norm <= 1) before the whole is
#: divided by ``sqrt(1 + INTERCEPT_SCALING^2)``: the design record stays in the unit ball (so
#: the sensitivity is unchanged) and the features keep ``1 / sqrt(1.25) = 0.894`` of their
#: length. A constant of the design, not fitted to any data.
INTERCEPT_SCALING = 0.5


def lipschitz_constant(n_classes: int) -> float:
    """Lipschitz constant of the per-record loss in the (flattened) parameter, ``||x|| <= 1``.

    1 for two classes (one sigmoid row), ``sqrt(2)`` for the C-class softmax (module docstring).

    >>> lipschitz_constant(2), round(lipschitz_constant(3), 4)
    (1.0, 1.4142)
    """
    return 1.0 if n_classes == 2 else math.sqrt(2.0)


class NoInterceptWarning(UserWarning):
    """The records lie in one orthant around ``center`` and the model has no intercept."""


def auto_lambda(epsilon: float, n: int, d: int) -> float:
    """``lam="auto"``: :data:`AUTO_LAMBDA` ``* (d / (n epsilon))^(2/3)``, clipped to [1e-4, 0.5].

    It reads only the budget, the number of private records ``n`` (public under replace-one
    neighbours) and the number of features ``d``, so it spends nothing. Output perturbation's
    excess loss has a noise term of order ``(d / (lam n epsilon))^2`` ([CM08]_ Lemma 3) and a
    penalty term of order ``lam``; they balance at ``lam ~ (d / (n epsilon))^(2/3)``. See
    :data:`AUTO_LAMBDA` for how the constant was chosen.

    Examples
    --------
    >>> round(auto_lambda(1.0, 1000, 10), 4)
    0.0232
    """
    epsilon = check_epsilon(epsilon)
    n = check_int(n, "n", min_val=1)
    d = check_int(d, "d", min_val=1)
    lam = AUTO_LAMBDA * (d / (n * epsilon)) ** (2.0 / 3.0)
    return float(min(max(lam, AUTO_LAMBDA_MIN), AUTO_LAMBDA_MAX))


def scale_records(X, data_norm: float = 1.0) -> tuple[np.ndarray, int]:
    """Divide records by the domain bound ``data_norm`` and project any outlier onto the ball.

    Parameters
    ----------
    X : array-like of shape (..., n_samples, n_features)
    data_norm : float, default=1.0
        Bound on ``||x||`` from the domain or public information (never the private data).

    Returns
    -------
    X_scaled : ndarray, same shape, every row of norm <= 1
    n_clipped : int
        Rows that were outside the bound (scaled onto it).

    Examples
    --------
    >>> Xs, k = scale_records([[3.0, 4.0], [0.3, 0.4]], data_norm=1.0)
    >>> Xs.tolist(), k
    ([[0.6, 0.8], [0.3, 0.4]], 1)
    """
    data_norm = check_scalar(data_norm, "data_norm", min_val=0.0)
    X = np.asarray(X, dtype=float) / data_norm
    norm = np.sqrt(np.sum(X * X, axis=-1, keepdims=True))
    outside = norm > 1.0
    X = np.where(outside, X / np.where(outside, norm, 1.0), X)
    return X, int(outside.sum())


def intercept_value() -> float:
    """The intercept column's value in a design record (:func:`design_records`).

    >>> round(intercept_value(), 4)
    0.4472
    """
    return INTERCEPT_SCALING / math.sqrt(1.0 + INTERCEPT_SCALING**2)


def design_records(X, data_norm: float = 1.0, *, intercept: bool = False,
                   project: bool = True) -> tuple[np.ndarray, int]:
    """The model's records: :func:`scale_records`, then, with ``intercept``, the constant
    column :data:`INTERCEPT_SCALING` appended and the whole divided by
    ``sqrt(1 + INTERCEPT_SCALING^2)``, so every design record still has norm <= 1.

    ``project=False`` only divides by ``data_norm`` (records a study fits as they are, e.g.
    input-perturbed ones, or the public initial set); ``n_clipped`` is then 0.

    Returns
    -------
    X_design : ndarray of shape (..., n_samples, n_features + intercept)
    n_clipped : int

    Examples
    --------
    >>> Xd, _ = design_records([[0.0, 2.0]], data_norm=2.0, intercept=True)
    >>> Xd.round(4).tolist(), round(float(np.linalg.norm(Xd)), 4)
    ([[0.0, 0.8944, 0.4472]], 1.0)
    """
    if project:
        Xs, clipped = scale_records(X, data_norm)
    else:
        Xs = np.asarray(X, dtype=float) / check_scalar(data_norm, "data_norm", min_val=0.0)
        clipped = 0
    return (_append_intercept(Xs) if intercept else Xs), clipped


def _append_intercept(Xs: np.ndarray) -> np.ndarray:
    c = INTERCEPT_SCALING
    ones = np.full(Xs.shape[:-1] + (1,), c)
    return np.concatenate([Xs, ones], axis=-1) / math.sqrt(1.0 + c * c)


def records_from_design(X_design, data_norm: float = 1.0, *, intercept: bool = False
                        ) -> np.ndarray:
    """Design records back to the caller's units (the inverse of :func:`design_records` on
    records inside the bound): the intercept column dropped, the scaling undone."""
    X = np.asarray(X_design, dtype=float)
    if intercept:
        X = X[..., :-1] * math.sqrt(1.0 + INTERCEPT_SCALING**2)
    return X * float(data_norm)


def summed_gradient(coef, X, y, *, n_total: int, lam: float, coef_prior=None) -> np.ndarray:
    """``sum_i r_i x_i^T + n_total lam (W' - W_0)`` of eq. (4) for a set ``(X, y)``, batched.

    Parameters
    ----------
    coef : ndarray of shape (..., K, n_features)
    X : ndarray of shape (..., m, n_features)
    y : ndarray of shape (..., m)
    n_total : int
        ``N``, the size the masked set will have.
    lam : float
    coef_prior : ndarray of shape (..., K, n_features), default=None
        Centre ``W_0`` of the penalty (0, the paper's, when None).
    """
    coef = np.asarray(coef, dtype=float)
    X = np.asarray(X, dtype=float)
    r = probabilities(X @ np.swapaxes(coef, -1, -2)) - targets(np.asarray(y), coef.shape[-2])
    centre = 0.0 if coef_prior is None else np.asarray(coef_prior, dtype=float)
    return np.swapaxes(r, -1, -2) @ X + n_total * lam * (coef - centre)


def input_perturbation(X, epsilon: float, rng=None, accountant=None, *, data_norm: float = 1.0,
                       dataset: str = "private data") -> np.ndarray:
    """Input perturbation ([PGY]_ Algorithm 2): ``x' = x + eta`` for every record.

    ``eta`` has density proportional to ``exp(-epsilon ||eta|| / (2 data_norm))`` (the paper's
    ``exp(-epsilon ||eta|| / 2)`` in units where ``||x|| <= 1``), drawn by
    :class:`dpcore.mechanisms.L2Laplace` with L2 sensitivity ``2 data_norm`` (two records in the
    ball differ by at most its diameter). Records outside the ball are first projected onto it.

    Neighbouring relation: replace one record's features. **Labels are not perturbed**: publish
    them next to ``x'`` and the guarantee covers the features only, not the labels.

    Parameters
    ----------
    X : array-like of shape (..., n_samples, n_features)
        Leading axes are independent draws (a study); each row gets its own noise.
    epsilon : float
        Privacy budget, > 0.
    rng : None, int or numpy.random.Generator, default=None
        None: a release (the paper's law drawn float-safe from fresh OS entropy,
        :meth:`dpcore.mechanisms.L2Laplace.release`); a seed or Generator: a study (the same
        law drawn by numpy).
    accountant : dpcore.accountant.BudgetAccountant, default=None
        If given, ``epsilon`` is spent through it before any noise is drawn (``rng=None``
        only).
    data_norm : float, default=1.0
        Bound on every record's norm, from the domain (never from the private data).
    dataset : str, default="private data"
        Name recorded in the ledger.

    Returns
    -------
    ndarray, same shape as ``X``, in the units of ``X``.

    Examples
    --------
    >>> input_perturbation([[0.1, 0.2], [0.3, -0.1]], 1.0, rng=0).shape
    (2, 2)
    """
    epsilon = check_epsilon(epsilon)
    check_study_or_release(rng, accountant)
    X = check_array(X, "X", ndim=None, min_rows=0, fix="Drop or impute them first.")
    if X.ndim < 2:
        raise DataError(f"Expected X of shape (n_samples, n_features), got shape {X.shape}. "
                        "Reshape your data with X.reshape(-1, 1) for one feature.")
    Xs, _ = scale_records(X, data_norm)
    mech = L2Laplace(epsilon=epsilon, sensitivity=2.0, dim=Xs.shape[-1],
                     neighbouring="replace one record's features (labels not protected)")
    if accountant is not None:
        accountant.spend(epsilon, 0.0, mechanism="input perturbation (Pham et al. Alg. 2)",
                         dataset=dataset, note="features only; labels published unperturbed",
                         relation="replace")
    return mech.draw(Xs, rng=rng) * data_norm


class _Search(NamedTuple):
    """A generator's greedy search, as :meth:`MaskedDataGenerator._start` leaves it: the noisy
    classifier ``W`` (K, p), the summed gradient ``G0`` of the initial set, the samples to add,
    the Generator, the search's settings (keywords of
    :func:`~dpcore.masking.greedy_masked_samples`) and what step 4 reads."""

    W: np.ndarray
    G0: np.ndarray
    n_add: int
    rng: np.random.Generator
    settings: dict
    context: tuple


class MaskedDataGenerator:
    """Masked Data Generation ([PGY]_ Algorithm 1), binary and C-class.

    Step 1 fits L2-regularised logistic regression (softmax for ``C > 2``) on the private data;
    step 2 adds L2-Laplace noise to it (output perturbation, see the module docstring for the
    sensitivity); step 3 grows the masked set ``S`` from the public ``initial`` set (or from
    empty) by adding, one at a time, the sample that minimises eq. (4), the squared norm of the
    summed gradient of the regularised objective of ``S`` plus the sample at the noisy classifier
    ``W'``, until ``|S| = n_samples``. Each new sample is found by projected backtracking
    gradient descent (eq. (5), corrected) from ``n_starts`` starts for every label; the label is
    the one whose best candidate gives the smallest eq. (4) (see :mod:`dpcore.masking.greedy`).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget of the release, > 0.
    lam : float or "auto", default="auto"
        Regularisation of the averaged objective ([PGY]_ eq. (1)), > 0. ``"auto"`` chooses it
        from ``epsilon``, ``n`` and ``d`` alone (:func:`auto_lambda`; ``lam_`` holds the value).
        The paper's 0.5 suits its toy data; on a table of hundreds of records it leaves a model
        little better than always guessing the majority class.
    n_samples : int or None, default=None
        Size ``N`` of the final masked set, including the initial set; None uses the private
        data's size.
    rng : None, int or numpy.random.Generator, default=None
        None: a release (float-safe noise for ``W'``, fresh OS entropy for everything); a seed or
        Generator: a study (the paper's L2-Laplace, reproducible).
    accountant : dpcore.accountant.BudgetAccountant, default=None
        If given, ``epsilon`` is spent through it before the noise is drawn (``rng=None``
        only).
    data_norm : float, default=1.0
        Bound on ``||x - center||`` from the domain or public information. Records are centred,
        divided by it and projected onto the unit ball if still outside (a projection that
        reads no data); masked samples are returned in the original units. With the default,
        standardised records or records in ``[0, 1]^d`` centred at 0.5 keep their direction
        from the centre and lose their length.
    center : float, array-like of shape (n_features,) or None, default=None
        Public point the records are measured from: without ``fit_intercept`` the model's
        decision boundary passes through it. Take it from the domain or public data, never from the
        private data: e.g. 0.5 for features min-max scaled by their known ranges, or the mean
        of a public sample. None: the origin (records already centred, e.g. standardised). When
        every feature of every record is >= 0 (or every one <= 0), ``center`` is None and there
        is no intercept, a
        :class:`NoInterceptWarning` says so: a boundary through the origin cannot put a
        threshold between such records, and the model may guess the majority class (one-hot
        columns, whose groups sum to 1, carry an intercept of their own and are let through). (The
        check reads the private data; it is a message to the data holder and changes nothing
        that is released.)
    fit_intercept : bool, default=False
        Append the intercept column (:func:`design_records`) to every record, the masked
        samples included (their constant column is fixed, the search runs over the features).
        False is the paper's model.
    coef_prior : array-like of shape (K, n_features + fit_intercept) or None, default=None
        Centre ``W_E`` of the penalty ``lam/2 ||W - W_E||^2``, for design records: a model
        fitted on *public* data only (e.g. :func:`dpcore.masking.prior.public_model`), never on
        the private data. The sensitivity is unchanged (module docstring); with a large ``lam``
        the release falls back to ``W_E``. None: the paper's penalty ``lam/2 ||W||^2``. The
        masked set is grown for, and refitted with, the same penalty, so a recipient refits it
        with ``W_E`` too (public).
    n_classes : int or None, default=None
        Number of classes ``C`` (labels are codes ``0 .. C-1``). None reads it off the labels
        (``max + 1``), which reveals the private label set: a :class:`PrivacyLeakWarning`.
    n_starts : int, default=8
        Starting points per label for each new sample.
    max_iter : int, default=10
        Backtracking gradient steps per new sample.
    bounded : bool, default=True
        Keep masked samples in the record domain (norm <= ``data_norm``); False searches all of
        ``R^d`` as the paper does (it then tends to return a few huge outliers).
    dataset : str, default="private data"
        Name recorded in the ledger.
    progress : callable(fraction), default=None
        Called as the masked set grows (for a progress bar).

    Attributes
    ----------
    masked_X_ : ndarray of shape (n_samples, n_features)
        The masked set: the initial set first, then the generated samples in order of addition.
    masked_y_ : ndarray of shape (n_samples,)
    n_initial_ : int
        Rows of ``masked_X_`` that came from the initial set.
    lam_ : float
        The regularisation used (``lam``, or the value of ``"auto"``).
    center_ : ndarray of shape (n_features,)
        The centre used (zeros when ``center`` is None).
    noisy_coef_ : ndarray of shape (K, n_features + fit_intercept)
        ``W'`` for design records (:func:`design_records`; ``K = 1`` binary, ``C`` otherwise).
    coef_ : ndarray of shape (K, n_features + fit_intercept)
        The non-private step-1 fit (never release it).
    refit_coef_ : ndarray of shape (K, n_features + fit_intercept)
        Regularised fit on the masked set (what a recipient would train), with the same penalty.
    gradient_norm_ : float
        ``||grad J_S(W')||``, the gradient of the averaged objective of the masked set at ``W'``
        (eq. (4) divided by ``N``).
    refit_distance_ : float
        ``||refit_coef_ - noisy_coef_||``; strong convexity guarantees it is at most
        ``distance_bound_ = (gradient_norm_ + ||grad J_S(refit_coef_)||) / lam`` (the second
        term is the refit's own solver error, about 1e-6 / lam).
    gradient_trace_ : ndarray of shape (n_generated + 1,)
        ``||grad J_S(W')||`` before the first and after every generated sample.
    sensitivity_ : float
        L2 sensitivity used for the noise.
    n_clipped_ : int
        Private records that were outside ``data_norm`` and were projected onto it.

    References
    ----------
    .. [PGY] Pham, Ghosh & Yegneswaran, *Data masking with privacy guarantees*, Algorithm 1.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2)) * 0.3
    >>> y = (X[:, 0] > 0).astype(int)
    >>> gen = MaskedDataGenerator(5.0, 0.5, 40, rng=1, n_classes=2).fit(X, y)
    >>> gen.masked_X_.shape, bool(gen.refit_distance_ <= gen.distance_bound_)
    ((40, 2), True)

    Features in ``[0, 1]`` (scaled by their known ranges) with the default ``lam="auto"``:

    >>> U = rng.random((300, 3))
    >>> z = (U[:, 0] + U[:, 1] > 1.0).astype(int)
    >>> gen = MaskedDataGenerator(5.0, rng=2, n_classes=2, center=0.5).fit(U, z)
    >>> round(gen.lam_, 4), bool(np.mean(gen.predict(U) == z) > 0.8)
    (0.0079, True)
    """

    def __init__(self, epsilon: float = 1.0, lam: float | str = "auto",
                 n_samples: int | None = None, rng=None, accountant=None, *,
                 data_norm: float = 1.0, center=None, fit_intercept: bool = False,
                 coef_prior=None, n_classes: int | None = None,
                 n_starts: int = 8, max_iter: int = 10, bounded: bool = True,
                 dataset: str = "private data", progress=None) -> None:
        self.epsilon = epsilon
        self.lam = lam
        self.center = center
        self.fit_intercept = fit_intercept
        self.coef_prior = coef_prior
        self.n_samples = n_samples
        self.rng = rng
        self.accountant = accountant
        self.data_norm = data_norm
        self.n_classes = n_classes
        self.n_starts = n_starts
        self.max_iter = max_iter
        self.bounded = bounded
        self.dataset = dataset
        self.progress = progress

    def fit(self, X, y, initial=None) -> MaskedDataGenerator:
        """Run Algorithm 1 on the private ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
            Private records.
        y : array-like of shape (n,)
            Private label codes ``0 .. C-1`` (``C = n_classes``); a code outside that range is
            clipped to the nearest one (0 or C-1), a rule fixed by the public ``n_classes``, so
            that no private label can refuse the release.
        initial : tuple (X0, y0) or None, default=None
            The public or fake initial masked set (the paper's "initially masked" samples); it
            must not be derived from the private data. Published as part of the masked set.

        Returns
        -------
        self
        """
        search = self._start(X, y, initial)
        res = greedy_masked_samples(search.W[None], search.G0[None], search.n_add,
                                    rng=search.rng, callback=None if self.progress is None else
                                    lambda j, total: self.progress(j / max(total, 1)),
                                    **search.settings)
        return self._finish(search, res)

    def _start(self, X, y, initial, fits: dict | None = None) -> _Search:
        """Steps 1-2 of :meth:`fit` (checks, the fit, ``W'``) and the greedy search's start.

        ``fits``: step 1's design records and fits by everything they read (a deterministic
        function of them), for generators fitted on the same data (:func:`fit_generators`)."""
        epsilon = check_epsilon(self.epsilon)
        data_norm = check_scalar(self.data_norm, "data_norm", min_val=0.0)
        n_starts = check_int(self.n_starts, "n_starts", min_val=1)
        max_iter = check_int(self.max_iter, "max_iter", min_val=0)
        X = check_array(X, "X")
        n, d = X.shape
        lam = _resolve_lam(self.lam, epsilon, n, d)
        center = _check_center(self.center, d)
        intercept = bool(self.fit_intercept)
        if self.center is None and not intercept:
            _warn_one_orthant(X)
        if self.n_classes is None:
            warnings.warn(
                "n_classes was read off the private labels (max + 1), which reveals the label "
                "set; pass n_classes from the domain instead.", PrivacyLeakWarning, stacklevel=3)
            n_classes = int(np.max(check_labels(y, 10**9, clip=True))) + 1
            n_classes = max(n_classes, 2)
        else:
            n_classes = check_int(self.n_classes, "n_classes", min_val=2)
        y = check_labels(y, n_classes, clip=True)  # a code outside 0 .. C-1: the nearest one
        if y.shape != (n,):
            raise DataError(f"y has shape {y.shape}, expected ({n},) to match X.")
        if initial is None:
            X0, y0 = np.empty((0, d)), np.empty(0, dtype=np.intp)
        else:
            X0 = check_array(initial[0], "initial X", min_rows=0)
            y0 = check_labels(initial[1], n_classes, "initial y")
            if X0.shape[1] != d or y0.shape != (X0.shape[0],):
                raise DataError(f"initial must be (X0, y0) with X0 of shape (m, {d}) and y0 of "
                                f"shape (m,); got {X0.shape} and {y0.shape}.")
        N = n if self.n_samples is None else check_int(self.n_samples, "n_samples", min_val=1)
        if N < X0.shape[0]:
            raise ValueError(f"n_samples == {N} is smaller than the initial set ({X0.shape[0]} "
                             "rows); n_samples is the size of the final masked set.")
        check_study_or_release(self.rng, self.accountant)
        # W' takes its noise from perturb_output (float-safe for a release); the greedy search
        # of step 3 is post-processing and uses its own Generator.
        rng = check_random_state(self.rng)
        K, p = n_logits(n_classes), d + intercept
        prior = _check_prior(self.coef_prior, K, p)
        fits = {} if fits is None else fits
        read = (lam, n_classes, intercept, data_norm, center.tobytes(),
                None if prior is None else prior.tobytes())
        if read not in fits:
            Xs, clipped = design_records(X - center, data_norm, intercept=intercept)
            fits[read] = clipped, fit_logistic_model(Xs, y, lam=lam, n_classes=n_classes,
                                                     coef_prior=prior)
        self.n_clipped_, fit = fits[read]
        L = lipschitz_constant(n_classes)
        check_certified(float(fit.gap) <= GAP_TOL, tol=GAP_TOL, lam=lam, n=n)  # before spending
        self.sensitivity_ = output_sensitivity(n, lam, 1.0, L, GAP_TOL)
        noisy = perturb_output(fit.coef.ravel(), n=n, lam=lam, epsilon=epsilon, lipschitz=L,
                               gap=GAP_TOL, rng=None if self.rng is None else rng,
                               accountant=self.accountant,
                               dataset=self.dataset, mechanism=MECHANISM)
        W = noisy.reshape(K, p)
        if K > 1:  # drop the noise along the softmax's null direction (post-processing): the
            W = W - W.mean(axis=0)  # fit's row mean is the prior's (the loss ignores it)
            if prior is not None:
                W = W + prior.mean(axis=0)
        X0s, _ = design_records(X0 - center, data_norm, intercept=intercept, project=False)
        G0 = summed_gradient(W, X0s, y0, n_total=N, lam=lam, coef_prior=prior)
        settings = {"n_classes": n_classes, "n_starts": n_starts, "max_iter": max_iter,
                    "radius": 1.0 if self.bounded else np.inf,
                    "fixed": intercept_value() if intercept else None}
        return _Search(W, G0, N - X0.shape[0], rng, settings,
                       (X0, y0, X0s, center, data_norm, intercept, lam, prior, N, fit))

    def _finish(self, search: _Search, res) -> MaskedDataGenerator:
        """Step 4 of :meth:`fit`: the masked set of the greedy search ``res`` (one row) and
        its refit."""
        X0, y0, X0s, center, data_norm, intercept, lam, prior, N, fit = search.context
        n_classes, W = search.settings["n_classes"], search.W
        masked = np.concatenate([X0s, res.X[0]])
        self.masked_y_ = np.concatenate([y0, res.y[0]])
        self.masked_X_ = np.concatenate([
            X0, records_from_design(res.X[0], data_norm, intercept=intercept) + center])
        self.lam_, self.center_ = lam, center
        self.n_initial_ = X0.shape[0]
        self.n_classes_ = n_classes
        self.coef_ = fit.coef
        self.noisy_coef_ = W
        self.gradient_trace_ = res.trace[0] / N
        self.gradient_norm_ = float(np.sqrt(np.sum(res.G**2))) / N
        refit = fit_logistic_model(masked, self.masked_y_, lam=lam, n_classes=n_classes,
                                   coef_prior=prior)
        self.refit_coef_ = refit.coef
        self.refit_distance_ = float(np.sqrt(np.sum((refit.coef - W) ** 2)))
        # J_S is lam-strongly convex: ||argmin J_S - W'|| <= ||grad J_S(W')|| / lam, and the
        # refit itself is within ||grad J_S(refit)|| / lam of argmin J_S.
        self.distance_bound_ = (self.gradient_norm_ + float(refit.grad_norm)) / lam
        return self

    def predict(self, X, which: str = "refit") -> np.ndarray:
        """Labels from the refitted (``"refit"``), noisy (``"noisy"``) or non-private
        (``"private"``) classifier, for records in the original units."""
        coef = {"refit": "refit_coef_", "noisy": "noisy_coef_", "private": "coef_"}
        if which not in coef:
            raise ValueError(f"which == {which!r}, must be one of {sorted(coef)}.")
        Xs, _ = design_records(np.asarray(X, dtype=float) - self.center_, float(self.data_norm),
                               intercept=bool(self.fit_intercept))
        return predict_labels(getattr(self, coef[which]), Xs)


def fit_generators(generators: Sequence[MaskedDataGenerator], X, y, initial=None, *,
                   callback: Callable[[int, int], None] | None = None
                   ) -> list[MaskedDataGenerator]:
    """:meth:`MaskedDataGenerator.fit` of several seeded generators on the same data, their
    greedy searches in one loop (:func:`~dpcore.masking.greedy_masked_batches`).

    Each generator ends in the state its own ``fit(X, y, initial)`` gives it, to the bit (steps
    1-2 and 4 run per generator, in order, step 1's fit once for the generators that read the
    same λ, centre, bound, intercept and prior: a deterministic function of them; the search of
    each draws from its own Generator, in the same order), but the searches' steps run
    together: for small records one step of all of them costs little more than one step of one,
    which is what makes a study at several ε (the masking page's slider) cheap. The generators
    share the arrays of a shared fit (``coef_``): read-only. For studies only: a release is one
    generator's :meth:`~MaskedDataGenerator.fit`.

    Parameters
    ----------
    generators : sequence of MaskedDataGenerator
        Seeded (``rng`` not None, no accountant), with the same search settings (classes,
        starts, iterations, domain and intercept); ε, λ and N may differ.
    X, y, initial
        As for :meth:`MaskedDataGenerator.fit`.
    callback : callable(step, steps), default=None
        Called after each step of the searches (a progress bar's).

    Returns
    -------
    list of MaskedDataGenerator
        The generators, fitted.
    """
    if any(gen.rng is None or gen.accountant is not None for gen in generators):
        raise ValueError("fit_generators runs seeded studies only (every rng given, no "
                         "accountant); a release is one generator's fit().")
    fits: dict = {}  # step 1 is the same for generators that differ only in ε or N
    searches = [gen._start(X, y, initial, fits) for gen in generators]
    if any(search.settings != searches[0].settings for search in searches[1:]):
        raise ValueError("fit_generators needs generators with the same search settings "
                         "(n_classes, n_starts, max_iter, bounded, fit_intercept).")
    results = greedy_masked_batches(
        [(search.W[None], search.G0[None], search.n_add, search.rng) for search in searches],
        callback=callback, **searches[0].settings) if searches else []
    return [gen._finish(search, res)
            for gen, search, res in zip(generators, searches, results, strict=True)]


def _resolve_lam(lam, epsilon: float, n: int, d: int) -> float:
    """``lam`` of :class:`MaskedDataGenerator`: ``"auto"`` (:func:`auto_lambda`) or a number > 0."""
    if isinstance(lam, str):
        if lam != "auto":
            raise ValueError(f"lam == {lam!r}; pass lam='auto' (chosen from n, d and epsilon by "
                             "dpcore.masking.auto_lambda) or a number > 0, e.g. lam=0.05.")
        return auto_lambda(epsilon, n, d)
    return check_scalar(lam, "lam", min_val=0.0)


def _check_prior(coef_prior, K: int, p: int) -> np.ndarray | None:
    """``coef_prior`` as a finite (K, p) matrix, or None."""
    if coef_prior is None:
        return None
    W0 = np.asarray(coef_prior, dtype=float)
    if W0.shape != (K, p) or not np.all(np.isfinite(W0)):
        raise ValueError(f"coef_prior has shape {W0.shape}, expected a finite ({K}, {p}) matrix: "
                         "one row per logit, one column per feature (and the intercept's, with "
                         "fit_intercept=True), fitted on public data only.")
    return W0


def _check_center(center, d: int) -> np.ndarray:
    """``center`` as a finite vector of length ``d`` (zeros for None)."""
    if center is None:
        return np.zeros(d)
    c = np.asarray(center, dtype=float)
    if c.ndim == 0:
        c = np.full(d, float(c))
    if c.shape != (d,) or not np.all(np.isfinite(c)):
        raise ValueError(f"center has shape {c.shape}, expected a finite number or a vector of "
                         f"length {d} (one public value per feature, e.g. center=0.5 for "
                         "features scaled into [0, 1]).")
    return c


def _warn_one_orthant(X: np.ndarray) -> None:
    """Warn the data holder when all records lie in one orthant around the origin and no
    combination of the columns is constant (one-hot groups, which sum to 1, carry an intercept
    of their own: a least-squares fit of the constant 1 on them leaves no residual)."""
    if not np.any(X != 0) or not (np.all(X >= 0) or np.all(X <= 0)):
        return
    ones = np.ones(X.shape[0])
    fit = np.linalg.lstsq(X, ones, rcond=None)[0]
    if np.mean((X @ fit - ones) ** 2) > 1e-8:
        warnings.warn(
            "Every feature of every record has the same sign, and the model has no intercept: "
            "its decision boundary passes through the origin, so it may predict one class for "
            "every record. Pass center= public values in the middle of the data, e.g. "
            "center=0.5 for features scaled into [0, 1] by their known ranges, or the mean of a "
            "public sample (never a statistic of the private data).",
            NoInterceptWarning, stacklevel=4)
