"""Approximate minima perturbation: objective perturbation released safely on floating point.

[IJ19]_ Algorithm 1, with the objective noise of [CMS11]_ Algorithm 2 (pure epsilon-DP, the
L2-Laplace) and output noise that covers the solver's gap:

1. calibrate as objective perturbation (:func:`~dpcore.perturbation.objective_calibration`,
   ``proof="2019"`` by default: [CMS11]_'s proof with the Jacobian term of a rank-one Hessian,
   ``log(1 + c/(n lam))``): ``epsilon = epsilon_noise + jacobian + epsilon_correction``, with
   ``epsilon_correction = AMP_FRACTION * epsilon`` and, where the Jacobian term would take more
   than half of the rest, the extra regularisation ``Delta`` that brings it to half;
2. draw ``b`` with density ``proportional to exp(-epsilon_noise ||b|| / 2)`` through
   :meth:`dpcore.mechanisms.L2Laplace.release` (OpenDP's discrete Gaussian on the 2^-60 grid
   with a Gamma variance; sensitivity 2, so its scale also covers the grid);
3. minimise ``J_b(w) = mu/2 ||w - w0||^2 + (1/n) sum_i log(1 + exp(-y_i w.x_i)) + b.w / n``
   (``mu = lam + Delta``; ``w0 = 0`` unless centred on a public model, below) and *certify*
   the result: :func:`certified_distance` bounds, with the floating-point error of its own
   evaluation, how far ``w`` is from the exact minimiser for *every* real noise vector that
   the drawn ``b`` can stand for (the grid cell of the exact lattice value, and the rounding
   of that value to a double);
4. release ``w`` plus L2-Laplace noise of sensitivity ``2 r`` with ``epsilon_correction``
   (:func:`~dpcore.perturbation.objective.amp_sensitivity`: ``r = sqrt(2 tol / mu)``, the
   distance that a solve of objective gap ``tol`` guarantees), again through OpenDP.

The privacy argument (``docs/privacy.md``, "Approximate minima perturbation"): the exact
minimiser for the *continuous* noise ``b~ = z + u`` (``z`` the lattice value, ``u`` uniform on
its grid cell) has a density, and the change of variables of [CMS11]_ Theorem 9 bounds its
ratio on neighbours by ``exp(epsilon_noise + jacobian)`` because the density of ``b~`` is that of
the lattice law on cells, whose log varies by at most ``epsilon_noise / (2 + sqrt(d) 2^-60)``
per unit of distance between the cells' centres. The released ``w`` is within ``r`` of that
minimiser (step 3), and the output noise turns "within ``r``" into at most
``epsilon_correction`` more ([IJ19]_ Theorem 1's argument with the L2-Laplace, whose
log-density is ``1/scale``-Lipschitz). A solve that cannot be certified is refused: before any
budget is spent for the fit without noise, and after it (nothing released) for the perturbed
one, an event this module makes rare (see the docs for its size and what it costs).

Centred on a public model (``prior``): the penalty ``mu/2 ||w||^2`` becomes ``mu/2 ||w -
w0||^2`` with ``w0`` a model fitted on the public set E alone (in the scaled space of the
records), so that where the noise swamps what ``n`` records say the release falls back on the
public model instead of on ``w = 0`` (the majority class at best). Since ``mu/2 ||w - w0||^2 =
mu/2 ||w||^2 - mu w0.w + mu/2 ||w0||^2``, this is one more linear term, ``-n mu w0`` in the summed
objective, and every step of the proof is unchanged: ``w0`` is a function of public data only,
fixed before D is read, so the regulariser is still data-independent, twice differentiable and
``mu``-strongly convex with Hessian ``mu I``; the map from the noise to the exact minimiser,
``b(w) = -n (mu (w - w0) + grad L(w))``, has the same Jacobian ``n (mu I + Hess L(w))`` (the
rank-one Hessian of the loss added to ``mu I``), and on neighbours ``b_D(w) - b_D'(w)`` is the
difference of one record's gradient, norm <= 2, as before ([CMS11]_ Theorem 9 with the
regulariser ``N(w) = ||w - w0||^2 / 2``, which its proof allows: any data-independent, doubly
differentiable, 1-strongly convex ``N``; equivalently the change of variables ``w' = w - w0``,
under which the loss ``l(y (w' + w0).x)`` is still convex with the same derivatives in the
margin). The certificate uses the centred gradient (``mu (W - w0)``, its subtraction's rounding
added to the bound). E must not be derived from D: a release on such an E is refused before
anything is drawn (:meth:`dpcore.datasets.Scenario.check_publishable`), and a prior fitted
on it would read D.

Neighbouring relation: replace one record (``n`` fixed). Records of norm <= 1 and labels in
{0, 1} (the caller scales, clips and encodes them: :func:`dpcore.perturbation.prepare`).

References
----------
.. [IJ19] Iyengar, Near, Song, Thakkar, Thakurta & Wang (2019), *Towards practical
   differentially private convex optimization*, IEEE S&P, Algorithm 1 and Theorem 1.
.. [CMS11] Chaudhuri, Monteleoni & Sarwate (2011), *Differentially private empirical risk
   minimization*, JMLR 12, Algorithm 2 and Theorem 9.
.. [CKS20] Canonne, Kamath & Steinke (2020), *The discrete Gaussian for differential privacy*,
   NeurIPS.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit

from dpcore.mechanisms import L2Laplace
from dpcore.perturbation.objective import (
    AMP_FRACTION,
    ObjectiveCalibration,
    amp_sensitivity,
    objective_calibration,
)
from dpcore.perturbation.output import REPLACE_ONE, check_certified
from dpcore.perturbation.solver import fit_linear_terms, fit_penalties
from dpcore.release_noise import GRID_EXPONENT, SAMPLER
from dpcore.validation import DataError, check_epsilon, check_random_state, check_scalar

__all__ = ["AMP_NAME", "AMP_UNCERTIFIED", "CENTRED_NOTE", "amp_calibration", "amp_coefs",
           "amp_laws", "amp_study", "certified_distance", "certified_solve", "check_prior"]

#: How the ledger and the pages name the release.
AMP_NAME = "approximate minima perturbation"
#: What the ledger's note adds for a release centred on a public model.
CENTRED_NOTE = "; centred on the public model"
#: Unit roundoff of float64.
_U = 2.0**-53
#: Half the release grid: the most a real number is from its grid point in one coordinate.
_HALF_GRID = math.ldexp(1.0, GRID_EXPONENT - 1)
#: The solver aims this far below the certified bound, so that the certificate's own error
#: terms (orders of magnitude smaller) fit under it.
_AIM = 0.25

AMP_UNCERTIFIED = (
    "The perturbed fit could not be certified to the accuracy its privacy proof needs "
    "(objective gap {tol:g}) with lam = {lam:g} on {n} records. {spent} Raise lam, or release "
    "by output perturbation (method='output')."
)
_SPENT = ("The budget of this release was spent before its noise was drawn, and nothing was "
          "released.")


def _gamma(k: int) -> float:
    """``k u / (1 - k u)``: the relative error bound of a float sum or dot product of ``k``
    terms, in any order ([Hig02]_ Lemma 3.1 and Sect. 3.1)."""
    return k * _U / (1.0 - k * _U)


def certified_distance(Z: np.ndarray, y01: np.ndarray, W: np.ndarray, B: np.ndarray, *,
                       lam: float, n_noise: int | None = None,
                       prior: np.ndarray | None = None) -> np.ndarray:
    """Upper bounds on ``||w_k - w*(b~)||`` for every ``b~`` that the double ``B[k]`` stands for.

    ``w*(b~)`` minimises ``J(w) = lam/2 ||w - w0||^2 + (1/n) sum_i logloss_i(w) + b~.w /
    n_noise`` (``w0 = prior``, or 0; ``n_noise = n`` for a release; a simulation on other
    records passes the release's ``n``), a ``lam``-strongly convex function, so ``||w - w*|| <=
    ||grad J(w)|| / lam``. The gradient is computed in float64, and three things are added to
    its norm, each a bound, not an estimate:

    * the rounding of its evaluation: the margins ``Z w`` (each record's norm is <= 1, so an
      error of at most ``gamma_d ||w||``, passed through the sigmoid's slope 1/4), scipy's
      ``expit`` and the subtraction of the label (at most 5 units of roundoff, absolutely),
      the product ``Z^T q`` (``gamma_n`` times ``|Z|^T |q|``, [Hig02]_), the last sums and,
      with a prior, the subtraction ``w - w0`` (one more unit of roundoff of ``lam |w - w0|``);
    * the noise's own representation: ``B[k]`` is the double nearest an exact lattice value
      ``z`` (OpenDP rounds its exact sum once), at most ``spacing(|B|)`` away in each
      coordinate, and ``b~ = z + u`` with ``u`` in the grid cell, at most ``2^-61`` away;
    * a relative ``1e-6`` for the rounding of the bound's own arithmetic.

    Parameters
    ----------
    Z : ndarray of shape (n, d)
        Records, each of norm <= 1.
    y01 : ndarray of shape (n,)
        Labels in {0, 1}.
    W : ndarray of shape (K, d)
        Solutions, one per noise vector.
    B : ndarray of shape (K, d)
        The noise vectors (the linear terms of the *summed* objective over ``n_noise`` records).
    lam : float
        Strong convexity of the averaged objective.
    n_noise : int, default=None
        The number of records the noise is scaled for; ``n`` when None.
    prior : ndarray of shape (d,), default=None
        The centre ``w0`` of the penalty (a public model, module docstring); None: 0.

    Returns
    -------
    ndarray of shape (K,)

    References
    ----------
    .. [Hig02] Higham (2002), *Accuracy and stability of numerical algorithms*, 2nd ed., SIAM,
       Sect. 3.1 (error of inner products).
    """
    n, d = Z.shape
    n_noise = n if n_noise is None else n_noise
    W = np.atleast_2d(W)
    B = np.atleast_2d(B)
    P = expit(Z @ W.T)  # (n, K)
    Q = P - y01[:, None]
    T1 = (Z.T @ Q) / n  # (d, K)
    T2 = lam * (W if prior is None else W - prior).T
    T3 = B.T / n_noise
    grad = T1 + T2 + T3
    margin = _gamma(d) * np.linalg.norm(W, axis=1)  # per K, bound on every |delta m_i|
    q_err = 0.25 * margin + 5.0 * _U  # bound on every |delta q_i|; ||Z^T dq||/n <= this
    dot_err = _gamma(n + 2) * (np.abs(Z).T @ np.abs(Q)) / n * (1.0 + _gamma(n + 2))
    # the product and the two sums; a prior's subtraction W - w0 adds one rounding to T2
    sum_err = 3.0 * _U * (np.abs(T1) + np.abs(T2) + np.abs(T3))
    if prior is not None:
        sum_err = sum_err + 1.01 * _U * np.abs(T2)
    rounding = q_err + np.linalg.norm(dot_err + sum_err, axis=0)
    cell = np.linalg.norm(np.spacing(np.abs(B)) + _HALF_GRID, axis=1) / n_noise
    return (np.linalg.norm(grad, axis=0) + rounding + cell) / lam * (1.0 + 1e-6)


def amp_calibration(epsilon: float, *, n: int, lam: float,
                    proof: str = "2019") -> ObjectiveCalibration:
    """The calibration of the release: objective perturbation's (``proof`` "2019", the rank-one
    Jacobian term, or "2011", [CMS11]_ Algorithm 2; :func:`~dpcore.perturbation.
    objective_calibration`), with ``AMP_FRACTION`` of ``epsilon`` for the output noise.
    The 2008 calibration, whose proof is incomplete, is refused."""
    if proof == "2008":
        raise ValueError("proof == '2008' cannot be released: its proof omits the Jacobian. Use "
                         "proof='2019' (the default) or '2011'.")
    return objective_calibration(epsilon, n=n, lam=lam, proof=proof, amp_fraction=AMP_FRACTION)


def amp_laws(cal: ObjectiveCalibration, tol: float, dim: int) -> tuple[L2Laplace, L2Laplace]:
    """AMP's two noises at a calibration: the objective's (L2 sensitivity 2, at
    ``cal.epsilon_noise``) and the output's (L2 sensitivity ``2 r``,
    :func:`~dpcore.perturbation.objective.amp_sensitivity` of the certified gap ``tol``, at
    ``cal.epsilon_correction``), both under "replace one record" in ``dim`` coordinates."""
    objective = L2Laplace(cal.epsilon_noise, 2.0, dim, neighbouring=REPLACE_ONE)
    output = L2Laplace(cal.epsilon_correction, amp_sensitivity(tol, cal.lam_total), dim,
                       neighbouring=REPLACE_ONE)
    return objective, output


def _solver_tol(tol: float, lam_total: float) -> float:
    """The gap each solve is asked for: ``||grad|| <= _AIM * lam * radius`` on the averaged
    objective (``radius`` the distance that ``tol`` certifies)."""
    radius = amp_sensitivity(tol, lam_total) / 2.0
    return (_AIM * lam_total * radius) ** 2 / (2.0 * lam_total)


def _linear(B: np.ndarray, *, n: int, n_noise: int, lam_total: float,
            prior: np.ndarray | None) -> np.ndarray:
    """The linear terms (one column per row of ``B``) of the summed objective over ``n``
    records, the penalty's centre included."""
    linear = B.T * (n / n_noise)
    if prior is not None:  # n mu/2 ||w - w0||^2 = n mu/2 ||w||^2 - n mu w0.w + constant
        linear = linear - (n * lam_total) * prior[:, None]
    return linear


def certified_solve(Z: np.ndarray, y01: np.ndarray, problem, B: np.ndarray, *,
                    lam_total: float, n_noise: int, tol: float, coef_init: np.ndarray | None,
                    prior: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Step 3 of the release (module docstring): minimise the perturbed objectives, one per row
    of ``B``, and certify each solution ([IJ19]_ Algorithm 1, the approximate minimiser).

    Parameters
    ----------
    Z, y01 : ndarray
        The records (norm <= 1) and their 0/1 labels.
    problem : dpcore.logistic.BatchedProblem
        Their batched solver (:func:`dpcore.perturbation.prepare`).
    B : ndarray of shape (K, d)
        The objective's noise vectors (linear terms of the summed objective over ``n_noise``
        records).
    lam_total : float
        ``mu``, the strong convexity of the averaged objective.
    n_noise : int
        The number of records the noise is scaled for.
    tol : float
        The certified objective gap: each solve must lie within ``r = sqrt(2 tol / mu)`` of
        its exact minimiser (:func:`certified_distance`).
    coef_init : ndarray of shape (d,) or None
        Where the solver starts (the fit without noise; None: from 0).
    prior : ndarray of shape (d,) or None
        The centre of the penalty (:func:`check_prior`).

    Returns
    -------
    W : ndarray of shape (K, d)
        The approximate minimisers.
    certified : ndarray of bool of shape (K,)
        Whether each is certified within ``r`` (a release refuses otherwise).
    """
    n = Z.shape[0]
    radius = amp_sensitivity(tol, lam_total) / 2.0
    solver_tol = _solver_tol(tol, lam_total)
    linear = _linear(B, n=n, n_noise=n_noise, lam_total=lam_total, prior=prior)
    fits = fit_linear_terms(problem, lam=n * lam_total, linear=linear, tol=solver_tol,
                            coef_init=coef_init)
    distance = certified_distance(Z, y01, fits.coef, B, lam=lam_total, n_noise=n_noise,
                                  prior=prior)
    return fits.coef, distance <= radius


def check_prior(prior, dim: int) -> np.ndarray | None:
    """``prior`` as the centre of the penalty: None, or ``dim`` finite numbers (scaled space)."""
    if prior is None:
        return None
    arr = np.asarray(prior, dtype=float)
    if arr.shape != (dim,) or not np.all(np.isfinite(arr)):
        raise ValueError(f"prior must be {dim} finite coefficients in the scaled space of the "
                         f"records (got shape {arr.shape}); fit it on the public set E "
                         "(dpcore.perturbation.experiments.public_prior), or pass None.")
    return arr


def amp_coefs(prep, *, epsilon: float, lam: float, size: int | tuple[int, ...] = (),
              tol: float, proof: str = "2019", rng=None, n_noise: int | None = None,
              strict: bool | None = None, accountant=None,
              dataset: str = "", mechanism: str = f"private logistic regression ({AMP_NAME})",
              note: str = "", prior=None) -> tuple[np.ndarray, ObjectiveCalibration]:
    """Coefficients released by approximate minima perturbation (module docstring).

    Parameters
    ----------
    prep : dpcore.perturbation.model.Prepared
        The training set as the mechanism sees it (records of norm <= 1).
    epsilon : float
        The whole budget of one release, > 0 (pure epsilon-DP).
    lam : float
        Regularisation of the averaged objective, > 0 (``Delta`` may be added, module doc).
    size : int or tuple of int, default=()
        Leading shape: that many independent releases, solved in one batch (each row its own
        noise, its own certificate; a benchmark's or an audit's many releases).
    tol : float
        Certified objective gap: the released solve lies within ``r = sqrt(2 tol / mu)`` of the
        exact minimiser, and the output noise has sensitivity ``2 r``.
    proof : {"2019", "2011"}, default="2019"
        Calibration of the objective's noise (:func:`amp_calibration`).
    rng : None, int or numpy.random.Generator, default=None
        None: a release (both noises float-safe through OpenDP, fresh OS entropy); a seed: a
        study of the same law (numpy draws), which refuses only with ``strict=True``.
    n_noise : int, default=None
        Number of records the noise is calibrated for: ``prep.n`` (a release). A simulation on
        public records passes the private ``n`` (the noise of that release, applied to a fit
        on other records).
    strict : bool, default=None
        Refuse a solve that cannot be certified (raise :class:`~dpcore.DataError`); None: only
        for a release (``rng=None``). The estimator passes True, so a seeded fit refuses what
        its release would.
    accountant : dpcore.accountant.BudgetAccountant, default=None
        Spent before any noise is drawn (release only).
    dataset, mechanism, note : str
        Recorded in the ledger.
    prior : array-like of shape (d,), default=None
        Centre ``w0`` of the penalty ``mu/2 ||w - w0||^2``, in the scaled space of ``prep.Z``:
        a model fitted on public data only (module docstring; the ledger's note says "centred
        on the public model"). None: ``w0 = 0``, the penalty of [CMS11]_.

    Returns
    -------
    W : ndarray of shape (*size, d)
        In the scaled space of ``prep.Z``.
    calibration : ObjectiveCalibration

    Raises
    ------
    DataError
        A release whose fit without noise cannot be certified (before spending), or whose
        perturbed fit cannot be (after spending; nothing is released).
    """
    epsilon = check_epsilon(epsilon)
    lam = check_scalar(lam, "lam", min_val=0.0)
    tol = check_scalar(tol, "tol", min_val=0.0)
    size = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
    count = math.prod(size)
    release = rng is None
    strict = release if strict is None else bool(strict)
    if not release and accountant is not None:
        raise ValueError("A seeded AMP fit is a study and cannot spend budget; pass rng=None "
                         "to release.")
    n, dz = prep.Z.shape
    prior = check_prior(prior, dz)
    n_noise = n if n_noise is None else int(n_noise)
    cal = amp_calibration(epsilon, n=n_noise, lam=lam, proof=proof)
    lam_total = cal.lam_total
    # the fit without noise first: a start for every solve, and a release's one refusal
    # before anything is spent (it reads D only through floating point)
    start, ok = certified_solve(prep.Z, prep.y01, prep.problem, np.zeros((1, dz)),
                                lam_total=lam_total, n_noise=n_noise, tol=tol, coef_init=None,
                                prior=prior)
    if strict:
        check_certified(bool(ok.all()), tol=tol, lam=lam_total, n=n)
    if accountant is not None:
        accountant.spend(epsilon * count, 0.0, mechanism=mechanism, dataset=dataset,
                         note=(note or f"n={n}, lam={lam:g}")
                         + (CENTRED_NOTE if prior is not None else "")
                         + f"; noise: L2-Laplace in the objective and on the output ({SAMPLER})",
                         relation="replace")
    gen = None if release else check_random_state(rng)
    objective, correction = amp_laws(cal, tol, dz)
    B = objective.draw(np.zeros((count, dz)), rng=gen)
    W, ok = certified_solve(prep.Z, prep.y01, prep.problem, B, lam_total=lam_total,
                            n_noise=n_noise, tol=tol, coef_init=start[0], prior=prior)
    if strict and not ok.all():
        raise DataError(AMP_UNCERTIFIED.format(
            tol=tol, lam=lam_total, n=n,
            spent=_SPENT if accountant is not None else "Nothing was released."))
    W = correction.draw(W, rng=gen)
    return W.reshape(*size, dz), cal


def amp_study(prep, *, epsilon: float, lams, draws: int, tol: float, rngs, n_noise: int,
              proof: str = "2019", prior=None) -> np.ndarray:
    """Seeded studies of :func:`amp_coefs` at many lambdas, solved in one batch.

    For each ``lams[i]``: ``draws`` releases of the same law as ``amp_coefs(prep,
    epsilon=epsilon, lam=lams[i], size=draws, tol=tol, rng=rngs[i], n_noise=n_noise,
    proof=proof, prior=prior)``, with the same noise: the same calibration, and both noises
    drawn from ``rngs[i]`` in the same order (the objective's, then the output's), so each
    differs from that call's only by where its solve stopped within the gap both ask for
    (each perturbed objective solved to the certified gap :func:`amp_coefs` asks of its
    solver). The solves of every lambda share one batch
    (:func:`~dpcore.perturbation.solver.fit_penalties`: one product with the records per
    step for all of them) instead of one batch per lambda, each after its own fit without
    noise (the shared Hessian of a lambda's draws taken, as there, near its fit without noise).
    A study, not a release: nothing is spent, no solve is refused (as ``amp_coefs``
    with a seed and ``strict`` off), and there is no release path (every noise is numpy's).

    Parameters
    ----------
    prep : dpcore.perturbation.model.Prepared
    epsilon : float
    lams : sequence of float
        Regularisations of the averaged objective, > 0 (``Delta`` added where the
        calibration needs it, as in :func:`amp_coefs`).
    draws : int
        Releases per lambda.
    tol : float
        Certified objective gap (:func:`amp_coefs`).
    rngs : sequence of numpy.random.Generator or int
        One stream per lambda (required: a study).
    n_noise : int
        Number of records the noise is calibrated for (the release's ``n``).
    proof : {"2019", "2011"}, default="2019"
    prior : array-like of shape (d,), default=None

    Returns
    -------
    ndarray of shape (len(lams), draws, d)
        In the scaled space of ``prep.Z``.
    """
    epsilon = check_epsilon(epsilon)
    tol = check_scalar(tol, "tol", min_val=0.0)
    lams = [check_scalar(float(v), "lam", min_val=0.0) for v in lams]
    if len(rngs) != len(lams) or any(rng is None for rng in rngs):
        raise ValueError(f"rngs must hold one seed or Generator per lambda ({len(lams)}): a "
                         "study is seeded. To release, call amp_coefs with rng=None.")
    draws = int(draws)
    n, dz = prep.Z.shape
    prior = check_prior(prior, dz)
    n_noise = int(n_noise)
    totals, linear, centres, corrections = [], [], [], []
    for lam, rng in zip(lams, rngs, strict=True):
        cal = amp_calibration(epsilon, n=n_noise, lam=lam, proof=proof)
        gen = check_random_state(rng)
        objective, correction = amp_laws(cal, tol, dz)
        B = objective.randomise(np.zeros((draws, dz)), rng=gen)
        corrections.append(correction.randomise(np.zeros((draws, dz)), rng=gen))
        totals.append(cal.lam_total)
        linear.append(_linear(B, n=n, n_noise=n_noise, lam_total=cal.lam_total, prior=prior))
        centres.append(_linear(np.zeros((1, dz)), n=n, n_noise=n_noise,
                               lam_total=cal.lam_total, prior=prior)[:, 0])
    fits = fit_penalties(prep.problem, lams=n * np.array(totals),
                         groups=np.repeat(np.arange(len(lams)), draws),
                         linear=np.concatenate(linear, axis=1),
                         tol=[_solver_tol(tol, total) for total in totals],
                         centres=np.stack(centres, axis=1))
    return fits.coef.reshape(len(lams), draws, dz) + np.stack(corrections)
