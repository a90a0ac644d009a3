"""Studies of private logistic regression ([CM08]_ Sect. 6, Figs. 1-2), used by the page and CLI.

Simulations, not releases: every noise comes from named streams of the study's seed
(:func:`dpcore.random.stream`), nothing is spent, and the numbers are computed from the data the
study is given (on a private set they are "non-private" study results, never a release).

* :func:`epsilon_curve`: test error of non-private, output and objective perturbation (2011 and
  2008 calibrations) for many epsilons, over folds and random restarts, with the distance of each
  private model to the non-private one and its excess regularised training loss (Figs. 2c-d);
* :func:`learning_curve`: the same against the training size (Figs. 2a-b);
* the same two in stages, for a page that reuses what a slider does not change:
  :func:`epsilon_splits` and :func:`learning_splits` (the data of each split, prepared once),
  :func:`fit_split` (its non-private fit at one lambda) and :func:`split_rows` (the noise draws
  and private fits at some epsilons); the curves are exactly these stages run in a row;
* :func:`summarise`: mean and SD per (method, x);
* :func:`lemma_bounds`: Lemma 3 (output) and Lemma 4 (objective) bounds on the excess loss;
* :func:`lambda_by_cv` (non-private cross-validation, for public or held-out data) and
  :func:`lambda_rule` (a rule of epsilon, n and d that reads no data);
* :func:`scenario_arrays`: a dataset scenario of the app as arrays with its domain norm bound.

References
----------
.. [CM08] Chaudhuri & Monteleoni (2008), *Privacy-preserving logistic regression*, NIPS.
.. [CMS11] Chaudhuri, Monteleoni & Sarwate (2011), *Differentially private empirical risk
   minimization*, JMLR 12.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore.logistic import BatchedProblem
from dpcore.mechanisms import L2Laplace
from dpcore.perturbation.amp import amp_study
from dpcore.perturbation.model import (
    MIN_ROWS,
    TOL,
    Prepared,
    check_rows,
    encode_labels,
    lambda_rule,
    nonprivate_coef,
    objective_coefs,
    prepare,
    private_coefs,
    scaled,
)
from dpcore.perturbation.output import output_sensitivity
from dpcore.random import stream
from dpcore.simulation import Progress, report
from dpcore.validation import DataError, check_array, check_epsilon, check_scalar

__all__ = [
    "LAMBDA_MODES",
    "SYNTHETIC",
    "CURVE_METHODS",
    "BEST_LAMBDAS",
    "CENTRED_LAMBDAS",
    "CENTRED_MIN_ROWS",
    "is_centred",
    "Fitted",
    "PublicPrior",
    "RELEASE_LAMBDAS",
    "ReleaseSimulation",
    "Rotation",
    "ScenarioArrays",
    "best_lambda",
    "fit_best",
    "Split",
    "epsilon_curve",
    "epsilon_splits",
    "fit_split",
    "learning_splits",
    "split_rows",
    "guessing_error",
    "lambda_by_cv",
    "lambda_rule",
    "release_lambda",
    "release_roles",
    "release_simulation",
    "simulated_release",
    "learning_curve",
    "lemma_bounds",
    "public_prior",
    "record_norm_bound",
    "scenario_arrays",
    "summarise",
    "swamped_methods",
]

#: The logistic-regression page's synthetic sources (its label -> the paper's data set of
#: :func:`dpcore.perturbation.synthetic.synthetic`), read by its study and its release.
SYNTHETIC = {"Paper: separable sphere": "separable", "Paper: noisy sphere": "noisy"}
#: How the page sets λ: by the rule of (ε, n, d), by hand, or by cross-validation on public
#: data (its study and its release read the first).
LAMBDA_MODES = ("rule of (ε, n, d)", "set by hand", "CV on public data")

#: Methods of a study: label -> (method, proof) of :func:`~dpcore.perturbation.private_coefs`.
CURVE_METHODS = {
    "non-private": None,
    "output perturbation": ("output", "2011"),
    "objective perturbation": ("objective", "2011"),
    "objective (2008 proof)": ("objective", "2008"),
}

def lemma_bounds(epsilon, *, n: int, d: int, lam: float, delta: float = 0.05) -> pd.DataFrame:
    """Bounds on the excess regularised training loss, holding with probability ``1 - delta``.

    Lemma 3 (output perturbation): ``2 d^2 (1 + lam) log^2(d/delta) / (lam^2 n^2 epsilon^2)``;
    Lemma 4 (objective perturbation, as printed, with ``epsilon`` the noise's epsilon):
    ``8 d^2 log^2(d/delta) / (lam n^2 epsilon^2)`` ([CM08]_ Sect. 3 and 5).

    Returns
    -------
    DataFrame with columns epsilon, "output perturbation", "objective perturbation".
    """
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    delta = check_scalar(delta, "delta", min_val=0.0, max_val=1.0, include_max=False)
    lam = check_scalar(lam, "lam", min_val=0.0)
    log2 = math.log(d / delta) ** 2
    return pd.DataFrame({
        "epsilon": eps,
        "output perturbation": 2 * d**2 * (1 + lam) * log2 / (lam**2 * n**2 * eps**2),
        "objective perturbation": 8 * d**2 * log2 / (lam * n**2 * eps**2),
    })


def _folds(n: int, folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2:
        raise ValueError(f"folds == {folds!r}, must be an int >= 2 (or pass X_test).")
    if n < folds:
        raise DataError(f"Only {n} rows for {folds} folds; use fewer folds.")
    order = stream(seed, "perturbation", "folds", n).permutation(n)
    parts = np.array_split(order, folds)
    return [(np.concatenate(parts[:k] + parts[k + 1:]), parts[k]) for k in range(folds)]


def _splits(X, y, X_test, y_test, folds, seed):
    X = check_array(X, "X")
    y = np.asarray(y)
    if X_test is not None:
        X_test = check_array(X_test, "X_test")
        return [(X, y, X_test, np.asarray(y_test))]
    return [(X[tr], y[tr], X[te], y[te]) for tr, te in _folds(X.shape[0], folds, seed)]


def _loss(prep: Prepared, W: np.ndarray, lam: float) -> np.ndarray:
    """Averaged regularised training loss ``f_lam(w)`` of [CM08]_ Sect. 3, for W (..., d_z)."""
    flat = W.reshape(-1, W.shape[-1])
    M = prep.Z @ flat.T
    y = 2.0 * prep.y01 - 1.0
    loss = np.logaddexp(0.0, -y[:, None] * M).mean(axis=0) + 0.5 * lam * np.sum(flat**2, 1)
    return loss.reshape(W.shape[:-1])


def _evaluate(prep: Prepared, W: np.ndarray, X_test, y_test, classes) -> np.ndarray:
    """Test error of every coefficient vector in W (..., d_z)."""
    coef, intercept = prep.to_model(W)
    flat = coef.reshape(-1, coef.shape[-1])
    margin = flat @ X_test.T + intercept.reshape(-1, 1)
    truth = np.asarray(y_test) == classes[1]
    return np.mean((margin > 0) != truth, axis=-1).reshape(coef.shape[:-1])


@dataclass(frozen=True)
class Split:
    """One train/test split of a study: its training part prepared, its test part checked.

    Attributes
    ----------
    prep : Prepared
        The training part, scaled, clipped and de-duplicated
        (:func:`~dpcore.perturbation.model.prepare`).
    X_test : ndarray of shape (n_test, n_features)
    y_test : ndarray of shape (n_test,)
    key : dict of str to int
        What names the split in the rows and in its noise streams: ``{"fold": k}``, plus
        ``"n"`` (the training size) in a learning curve.
    """

    prep: Prepared
    X_test: np.ndarray
    y_test: np.ndarray
    key: dict[str, int]


@dataclass(frozen=True)
class Fitted:
    """A split's non-private fit at one lambda: what every noise draw there starts from.

    Attributes
    ----------
    split : Split
    lam : float
    coef : ndarray of shape (d_z,)
        The minimiser of the averaged objective, in the scaled space of ``split.prep.Z``.
    loss : float
        Its regularised training loss ``f_lam`` ([CM08]_ Sect. 3).
    error : float
        Its test error on ``split.X_test``.
    """

    split: Split
    lam: float
    coef: np.ndarray
    loss: float
    error: float


def _split(Xtr, ytr, Xte, yte, key: dict[str, int], *, data_norm, fit_intercept,
           classes) -> Split:
    """Prepare one split. ``classes``: the target's two classes (public); None reads them
    from the training part."""
    prep = prepare(Xtr, ytr, data_norm=data_norm, fit_intercept=fit_intercept, classes=classes)
    Xte = check_array(Xte, "X_test")
    if not np.isin(np.asarray(yte), prep.classes).all():
        raise DataError("The test labels include a class not seen in training.")
    return Split(prep, Xte, yte, key)


def fit_split(split: Split, lam: float) -> Fitted:
    """The non-private fit of ``split`` at ``lam``, with its training loss and test error."""
    prep = split.prep
    w_np = nonprivate_coef(prep, lam)
    base = _loss(prep, w_np[None], lam)[0]
    err_np = float(_evaluate(prep, w_np[None], split.X_test, split.y_test, prep.classes)[0])
    return Fitted(split, lam, w_np, base, err_np)


def split_rows(fitted: Fitted, *, epsilons: Sequence[float], restarts: int,
               methods=tuple(CURVE_METHODS), seed: int = 0, excess: bool = True) -> list[dict]:
    """Rows of one split at one lambda: every method at every epsilon, ``restarts`` times.

    Each private method draws its noise for all ``epsilons`` in order from its own stream of
    (``seed``, method, split key), so the rows depend on the whole sequence ``epsilons``, not
    on each epsilon alone; objective perturbation's calibrations (2011 and 2008) solve every
    (calibration, epsilon) pair that shares ``lam + Delta`` in one batch
    (:func:`~dpcore.perturbation.model.objective_coefs`).
    """
    prep, lam, w_np = fitted.split.prep, fitted.lam, fitted.coef
    Xte, yte, key = fitted.split.X_test, fitted.split.y_test, fitted.split.key
    objective = [label for label in methods
                 if CURVE_METHODS[label] is not None and CURVE_METHODS[label][0] == "objective"]
    solved = dict(zip(objective, objective_coefs(
        prep, epsilons=epsilons, lam=lam, restarts=restarts,
        proofs=[CURVE_METHODS[label][1] for label in objective],
        rngs=[stream(seed, "perturbation", label, *key.values()) for label in objective],
        coef_nonprivate=w_np, warn=False), strict=True)) if objective else {}
    rows = []
    for label in methods:
        spec = CURVE_METHODS[label]
        if spec is None:
            for e in epsilons:
                rows.append(dict(method=label, epsilon=e, restart=0, error=fitted.error,
                                 distance=0.0, excess=0.0, **key))
            continue
        method, proof = spec
        if label in solved:
            W = solved[label][0]
        else:
            W, _ = private_coefs(prep, epsilons=epsilons, lam=lam, restarts=restarts,
                                 method=method, proof=proof,
                                 rng=stream(seed, "perturbation", label, *key.values()),
                                 coef_nonprivate=w_np, warn=False)
        err = _evaluate(prep, W, Xte, yte, prep.classes)
        dist = np.linalg.norm(W - w_np, axis=-1)
        loss = _loss(prep, W, lam) - fitted.loss if excess else np.full(W.shape[:-1], np.nan)
        for i, e in enumerate(epsilons):
            for r in range(restarts):
                rows.append(dict(method=label, epsilon=e, restart=r, error=err[i, r],
                                 distance=dist[i, r], excess=loss[i, r], **key))
    return rows


def _lambda_rows(split: Split, *, epsilons, lam, restarts, methods, seed, excess,
                 progress: Progress = None) -> list[dict]:
    """Rows of one split. ``lam`` is one value for every epsilon, or a list with one value per
    epsilon (each epsilon then fitted as if alone, sharing the prepared data)."""
    groups = ([(lam, list(epsilons))] if not isinstance(lam, list)
              else [(lam_e, [e]) for lam_e, e in zip(lam, epsilons, strict=True)])
    rows = []
    for g, (lam_g, eps_g) in enumerate(groups):
        rows += split_rows(fit_split(split, lam_g), epsilons=eps_g, restarts=restarts,
                           methods=methods, seed=seed, excess=excess)
        report(progress, (g + 1) / len(groups))
    return rows


def _check_methods(methods) -> list[str]:
    """A non-empty list of the curve's methods, each a key of :data:`CURVE_METHODS`, all
    unknown ones named at once."""
    methods = list(methods)
    unknown = [m for m in methods if m not in CURVE_METHODS]
    if unknown or not methods:
        raise ValueError(f"methods {unknown or methods} not known; choose from "
                         f"{list(CURVE_METHODS)}.")
    return methods


def epsilon_splits(X, y, *, folds: int = 5, X_test=None, y_test=None,
                   data_norm: float | None = 1.0, fit_intercept: bool = False, seed: int = 0,
                   classes=None) -> list[Split]:
    """The splits of :func:`epsilon_curve`, prepared: all of X against the held-out data, or
    ``folds`` folds of X (seeded). Parameters as there."""
    return [_split(Xtr, ytr, Xte, yte, {"fold": k}, data_norm=data_norm,
                   fit_intercept=fit_intercept, classes=classes)
            for k, (Xtr, ytr, Xte, yte) in enumerate(_splits(X, y, X_test, y_test, folds, seed))]


def learning_splits(X, y, *, sizes: Sequence[int], folds: int = 5, X_test=None, y_test=None,
                    data_norm: float | None = 1.0, fit_intercept: bool = False, seed: int = 0,
                    classes=None) -> list[Split]:
    """The splits of :func:`learning_curve`, prepared: per fold, the first ``size`` rows of its
    (seeded) shuffled training part for each of ``sizes``, so the training sets are nested."""
    sizes = sorted({int(s) for s in sizes})
    out = []
    for k, (Xtr, ytr, Xte, yte) in enumerate(_splits(X, y, X_test, y_test, folds, seed)):
        order = stream(seed, "perturbation", "order", k).permutation(Xtr.shape[0])
        for size in sizes:
            if size > Xtr.shape[0]:
                raise DataError(f"Training size {size} exceeds the {Xtr.shape[0]} training rows "
                                "of a fold.")
            take = order[:size]
            out.append(_split(Xtr[take], ytr[take], Xte, yte, {"fold": k, "n": size},
                              data_norm=data_norm, fit_intercept=fit_intercept, classes=classes))
    return out


def epsilon_curve(X, y, *, epsilons: Sequence[float], lam: float, restarts: int = 20,
                  folds: int = 5, X_test=None, y_test=None, data_norm: float | None = 1.0,
                  fit_intercept: bool = False, methods=tuple(CURVE_METHODS), seed: int = 0,
                  excess: bool = True, progress: Progress = None,
                  classes=None) -> pd.DataFrame:
    """Test error against epsilon for every method, over folds and restarts (Figs. 2c-d).

    Per fold, output perturbation reuses the one non-private fit for every epsilon and restart,
    and objective perturbation fits every (epsilon, restart) pair in one batched solve.

    Parameters
    ----------
    X, y : training data (any two classes); with ``X_test`` None, ``folds``-fold CV over them.
    epsilons : sequence of float
    lam : float or sequence of float
        Regularisation of the averaged objective: one value, or one per epsilon (each epsilon
        is then fitted as in a call of its own, the data prepared once).
    restarts : int, default=20
        Noise draws per (fold, epsilon).
    folds : int, default=5
    X_test, y_test : held-out data, default=None
        If given, one split: train on all of X, test on these.
    data_norm : float or None, default=1.0
        Norm bound of the records (None: domain [0, 1]^d, bound sqrt(d)).
    fit_intercept : bool, default=False
    methods : iterable of str, default=all of :data:`CURVE_METHODS`
    seed : int, default=0
    excess : bool, default=True
        Compute the excess training loss (NaN otherwise; it costs a pass over the training data
        per fit).
    progress : callable, default=None
        Called with the fraction done.
    classes : array-like of shape (2,), default=None
        The target's two classes from public knowledge; None reads them from each fold's
        training labels (a fold with one class is then refused).

    Returns
    -------
    DataFrame
        One row per (method, epsilon, fold, restart): error (test), distance
        (``||w_private - w_nonprivate||`` in the scaled space), excess (``f_lam(w_private) -
        f_lam(w_nonprivate)`` on the training data).
    """
    eps = [check_epsilon(float(e)) for e in epsilons]
    if isinstance(lam, Sequence | np.ndarray):
        lam = [check_scalar(float(v), "lam", min_val=0.0) for v in lam]
        if len(lam) != len(eps):
            raise ValueError(f"lam has {len(lam)} values for {len(eps)} epsilons; give one "
                             "value, or one per epsilon.")
    methods = _check_methods(methods)
    splits = epsilon_splits(X, y, folds=folds, X_test=X_test, y_test=y_test,
                            data_norm=data_norm, fit_intercept=fit_intercept, seed=seed,
                            classes=classes)
    rows = []
    for k, split in enumerate(splits):
        rows += _lambda_rows(split, epsilons=eps, lam=lam, restarts=restarts, methods=methods,
                             seed=seed, excess=excess,
                             progress=lambda f, k=k: report(progress, (k + f) / len(splits)))
    return pd.DataFrame(rows)


def learning_curve(X, y, *, sizes: Sequence[int], epsilon: float, lam: float,
                   restarts: int = 20, folds: int = 5, X_test=None, y_test=None,
                   data_norm: float | None = 1.0, fit_intercept: bool = False,
                   methods=tuple(CURVE_METHODS), seed: int = 0,
                   progress: Progress = None, classes=None) -> pd.DataFrame:
    """Test error against the training size at one epsilon (Figs. 2a-b).

    Each size trains on the first ``size`` rows of every fold's (shuffled) training part, so the
    training sets are nested (:func:`learning_splits`). Columns as :func:`epsilon_curve` plus
    ``n`` (excess is NaN); ``classes`` as there.
    """
    epsilon = check_epsilon(epsilon)
    methods = _check_methods(methods)
    splits = learning_splits(X, y, sizes=sizes, folds=folds, X_test=X_test, y_test=y_test,
                             data_norm=data_norm, fit_intercept=fit_intercept, seed=seed,
                             classes=classes)
    rows = []
    for done, split in enumerate(splits, start=1):
        rows += split_rows(fit_split(split, lam), epsilons=[epsilon], restarts=restarts,
                           methods=methods, seed=seed, excess=False)
        report(progress, done / len(splits))
    return pd.DataFrame(rows)


def summarise(results: pd.DataFrame, by: str = "epsilon",
              value: str = "error") -> pd.DataFrame:
    """Mean, SD (over folds and restarts) and count of ``value`` per (method, ``by``)."""
    out = results.groupby(["method", by], sort=True)[value].agg(["mean", "std", "count"])
    return out.reset_index()


def guessing_error(y) -> float:
    """Test error of always predicting the most frequent class of ``y`` (a reference without
    any model; non-private when ``y`` holds private labels).

    Examples
    --------
    >>> guessing_error([0, 1, 1, 1])
    0.25
    """
    _, counts = np.unique(np.asarray(y), return_counts=True)
    if counts.size == 0:
        raise DataError("guessing_error needs at least one label; got none.")
    return float(1.0 - counts.max() / counts.sum())


def swamped_methods(summary: pd.DataFrame, epsilon: float, guess: float) -> list[str]:
    """Private methods whose mean error at ``epsilon`` cannot be told from guessing.

    A method is swamped when its mean error plus two standard errors (over folds and restarts)
    reaches ``guess``, the error of always predicting the most frequent class: at that ε the
    noise has erased what the model learned, and its result means nothing.

    Parameters
    ----------
    summary : DataFrame
        :func:`summarise` of an :func:`epsilon_curve` (columns method, epsilon, mean, std,
        count).
    epsilon : float
    guess : float
        :func:`guessing_error` of the evaluation labels.
    """
    rows = summary[np.isclose(summary["epsilon"], epsilon) & (summary["method"] != "non-private")]
    upper = rows["mean"] + 2.0 * rows["std"].fillna(0.0) / np.sqrt(rows["count"])
    return rows.loc[upper >= guess, "method"].tolist()


def lambda_by_cv(X, y, lams: Sequence[float], *, folds: int = 5,
                 data_norm: float | None = 1.0, fit_intercept: bool = False,
                 seed: int = 0) -> tuple[float, pd.DataFrame]:
    """Lambda minimising the non-private ``folds``-fold CV error ([CM08]_ Sect. 6).

    Not private: run it on public or held-out data (the paper tunes on a separate holdout set of
    10,000 points), never on the data a release is trained on.

    Returns
    -------
    best : float
    table : DataFrame with columns lam, mean, std
    """
    rows = []
    lams = [check_scalar(lam, "lam", min_val=0.0) for lam in lams]
    splits = [(prepare(Xtr, ytr, data_norm=data_norm, fit_intercept=fit_intercept),
               check_array(Xte, "X"), yte)
              for Xtr, ytr, Xte, yte in _splits(X, y, None, None, folds, seed)]
    for lam in lams:
        errs = [float(_evaluate(prep, nonprivate_coef(prep, lam, tol=1e-10)[None], Xte, yte,
                                prep.classes)[0]) for prep, Xte, yte in splits]
        rows.append({"lam": lam, "mean": np.mean(errs), "std": np.std(errs, ddof=1)})
    table = pd.DataFrame(rows)
    return float(table.loc[table["mean"].idxmin(), "lam"]), table


#: Lambdas :func:`best_lambda` tries: decades from 1e-5 (a near-unpenalised fit) to 1.
BEST_LAMBDAS = (1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0)
#: Certified objective gap of :func:`best_lambda`'s fits: they only rank lambdas.
BEST_TOL = 1e-8


def best_lambda(X, y, *, lams: Sequence[float] = BEST_LAMBDAS, folds: int = 3,
                data_norm: float | None = 1.0, fit_intercept: bool = False, classes=None,
                seed: int = 0) -> float:
    """The non-private model's own best lambda: ``folds``-fold cross-validation on ``(X, y)``.

    The reference a private model is judged against ("how well can a logistic regression do on
    these records?"), never the lambda of a release: on private training rows its answer is a
    non-private number, shown as one. Rows are scaled as the release scales them (``data_norm``,
    ``fit_intercept``), so the same lambda means the same model. A tie goes to the larger lambda.

    The folds are fitted together, each a column of weights on the rows (1 / its size on its
    training rows, 0 on its test rows: its averaged objective) of one batched problem
    (:class:`~dpcore.logistic.BatchedProblem`, the rows de-duplicated once), from the largest
    lambda down, each lambda's iteration starting at the previous one's mean fit.

    Parameters
    ----------
    X, y : training rows (the private training part; never a test part)
    lams : sequence of float, default=BEST_LAMBDAS
        Each fitted to the certified gap :data:`BEST_TOL` (they only rank lambdas).
    folds : int, default=3
    data_norm, fit_intercept, classes : as :func:`epsilon_curve`
    seed : int, default=0
        Seeds the folds.

    Returns
    -------
    float

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((300, 3)); y = (X[:, 0] > 0.5).astype(int)
    >>> best_lambda(X, y, data_norm=None, fit_intercept=True, classes=[0, 1]) <= 1e-3
    True
    """
    lams = [check_scalar(float(lam), "lam", min_val=0.0) for lam in lams]
    Z, y01 = scaled(X, y, data_norm=data_norm, fit_intercept=fit_intercept, classes=classes)[:2]
    parts = _folds(Z.shape[0], folds, seed)
    weights = np.zeros((Z.shape[0], len(parts)))
    for k, (train, _) in enumerate(parts):
        check_rows(train.size)  # each fold trains on at least MIN_ROWS rows
        weights[train, k] = 1.0 / train.size
    problem = BatchedProblem(Z, y01, weights)
    errors = np.zeros(len(lams))
    start = None
    for i in sorted(range(len(lams)), key=lambda i: -lams[i]):  # the largest lambda first
        W = problem.fit(lam=lams[i], tol=BEST_TOL, coef_init=start)
        start = W.mean(axis=0)
        for k, (_, test) in enumerate(parts):
            errors[i] += np.mean((Z[test] @ W[k] > 0) != (y01[test] == 1))
    best = errors.min()
    return float(max(lam for lam, err in zip(lams, errors, strict=True) if err <= best + 1e-12))


def fit_best(split: Split, *, lams: Sequence[float] = BEST_LAMBDAS, seed: int = 0) -> Fitted:
    """The split's non-private fit at its own best lambda (:func:`best_lambda` on the split's
    training part only, so its test part stays unseen)."""
    prep = split.prep
    lam = best_lambda(prep.Z, prep.y01, lams=lams, data_norm=1.0, classes=(0, 1), seed=seed)
    return fit_split(split, lam)


@dataclass(frozen=True)
class PublicPrior:
    """A non-private logistic regression fitted on public data: the centre of a release's
    penalty (``PrivateLogisticRegression(prior=...)``).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        In the units of ``X``.
    intercept_ : ndarray of shape (1,)
    lam_ : float
        Its lambda, chosen by cross-validation on the same public rows (:func:`best_lambda`).
    """

    coef_: np.ndarray
    intercept_: np.ndarray
    lam_: float


def public_prior(X_pub, y_pub, *, data_norm: float | None, fit_intercept: bool, classes=None,
                 lams: Sequence[float] = BEST_LAMBDAS, seed: int = 0) -> PublicPrior:
    """The public model a release is centred on: fitted on ``(X_pub, y_pub)`` alone.

    Rows are scaled as the release scales them (``data_norm``, ``fit_intercept``), so the same
    coefficients mean the same model; its lambda is its own best by ``3``-fold cross-validation
    on the same rows (:func:`best_lambda`, seeded), its fit certified to :data:`BEST_TOL`. Pass
    public data only (the scenario's E, never D or a set derived from D): the release's
    privacy argument needs the centre to be a function of public data
    (:mod:`dpcore.perturbation.amp`).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((200, 2)); y = (X[:, 0] > 0.5).astype(int)
    >>> prior = public_prior(X, y, data_norm=None, fit_intercept=True, classes=[0, 1])
    >>> prior.coef_.shape, bool(prior.coef_[0, 0] > 0)
    ((1, 2), True)
    """
    prep = prepare(X_pub, y_pub, data_norm=data_norm, fit_intercept=fit_intercept,
                   classes=classes)
    lam = best_lambda(prep.Z, prep.y01, lams=lams, data_norm=1.0, classes=(0, 1), seed=seed)
    coef, intercept = prep.to_model(nonprivate_coef(prep, lam, tol=BEST_TOL))
    return PublicPrior(coef.reshape(1, -1), np.atleast_1d(intercept).astype(float), lam)


#: Lambdas :func:`release_lambda` tries (half-decades).
RELEASE_LAMBDAS = (1e-4, 3e-4, 1e-3, 2e-3, 3e-3, 5e-3, 1e-2, 3e-2, 0.1, 0.3)
#: Lambdas of a release centred on a public model: up to 30, where the penalty holds the
#: release within about ``2 d / (30 n epsilon)`` of the public model (no noise can swamp it).
CENTRED_LAMBDAS = RELEASE_LAMBDAS + (1.0, 3.0, 10.0, 30.0)


#: The fewest rows of E that :func:`release_lambda` can split into its three roles for a
#: centred release: each third must leave :data:`MIN_ROWS` training rows to each fold of the
#: prior's 3-fold cross-validation (a third of 15 rows leaves 10). A page releases without a
#: centre below it, and says so.
CENTRED_MIN_ROWS = 3 * (MIN_ROWS + MIN_ROWS // 2)


def is_centred(n_public: int) -> bool:
    """Whether a release is centred on a model of the public set E of ``n_public`` rows: when E
    has :data:`CENTRED_MIN_ROWS` rows (a public fact: E's size); else it is released without a
    centre."""
    return n_public >= CENTRED_MIN_ROWS


def release_roles(size: int, centred: bool, seed: int) -> list[tuple]:
    """Rows of E (``size`` rows) by role in :func:`release_lambda`: per rotation, (the prior's
    rows or None, the simulated private set, the scoring part); seeded."""
    order = stream(seed, "perturbation", "release lambda").permutation(size)
    if not centred:
        cut = int(0.7 * order.size)
        return [(None, order[:cut], order[cut:])]
    if size < CENTRED_MIN_ROWS:
        raise DataError(f"The public set has {size} rows; choosing lambda for a release "
                        f"centred on a public model needs at least {CENTRED_MIN_ROWS} (three parts "
                        "of E, one per role).")
    parts = np.array_split(order, 3)
    return [(parts[k], parts[(k + 1) % 3], parts[(k + 2) % 3]) for k in range(3)]


def release_lambda(X_pub, y_pub, *, n_private: int, epsilon: float, data_norm: float | None,
                   fit_intercept: bool, classes=None, lams: Sequence[float] | None = None,
                   draws: int | None = None, seed: int = 0, method: str = "amp",
                   centred: bool = False) -> tuple[float, pd.DataFrame]:
    """Lambda for a *release* of ``n_private`` records, chosen on public data by simulating it.

    The best lambda depends on the data through ``||w*||`` (how much the penalty costs against
    how much noise it saves), so no rule of (epsilon, n, d) alone serves every table: on Adult
    the best constant of output perturbation's ``lam ~ (d / (n epsilon))^(2/3)`` is near 0.07
    (the rule's, :func:`lambda_rule`), on the paper's synthetic data near 10. This reads the
    *public* set only: for each lambda of ``lams`` (None: :data:`RELEASE_LAMBDAS`, or
    :data:`CENTRED_LAMBDAS` when centred) it fits E's first 70 % (seeded split) with ``draws``
    draws of the release's noise at the scale of ``n_private`` records and scores the other
    30 %; the lambda with the smallest mean error wins. Nothing private is read and nothing is
    spent (``n_private`` is public under replace-one).

    * ``method="amp"`` (the default release): approximate minima perturbation
      (:func:`dpcore.perturbation.amp.amp_coefs`) on E's part, its objective noise
      calibrated for ``n_private`` records and scaled by ``1 / n_private`` as in the
      release's objective, its output noise at the release's size;
    * ``method="output"``: E's part fitted without noise, plus the L2-Laplace at the
      sensitivity of ``n_private`` records, drawn as :meth:`dpcore.mechanisms.L2Laplace.release`
      draws it.

    ``centred=True`` simulates the release centred on a public model
    (``PrivateLogisticRegression(prior=public_prior(E))``) honestly: E is split in three
    (seeded) and each part plays each role once, the prior (:func:`public_prior` on it), the
    private set (the release simulated on it, its penalty centred on that prior) and the
    scoring part; the error of a lambda is its mean over the three rotations, so no prior is
    fitted on the rows it is simulated or scored on. Its grid (:data:`CENTRED_LAMBDAS`) goes up
    to 30, where the release is the public model up to a little noise: at small ``n epsilon``
    the simulation chooses it. The release itself is then centred on the prior fitted on all
    of E (better than the simulation's, fitted on a third: the choice errs towards the records).

    ``draws`` (None: 10 for "amp", 20 for "output") noise draws per lambda, shared out over
    the rotations (``ceil(draws / 3)`` each when centred): AMP's error varies little from draw
    to draw (an SD of 0.003 on Adult at epsilon = 1, against 0.016 for output perturbation)
    and each of its draws is a solve of its own (all of one rotation's lambdas and draws are
    solved in one batch, :func:`~dpcore.perturbation.amp.amp_study`).

    Returns
    -------
    best : float
    table : DataFrame with columns lam, error (mean simulated test error on E's scoring parts)
    """
    # ε and the method are checked before E is fitted; the defaults of ``lams`` and ``draws``
    # (and the checks again) are simulated_release's
    epsilon = check_epsilon(epsilon)
    if method not in ("amp", "output"):
        raise ValueError(f"method == {method!r}, must be 'amp' or 'output' (the releases).")
    simulation = release_simulation(X_pub, y_pub, data_norm=data_norm,
                                    fit_intercept=fit_intercept, classes=classes, seed=seed,
                                    centred=centred)
    return simulated_release(simulation, n_private=n_private, epsilon=epsilon, lams=lams,
                             draws=draws, method=method)


@dataclass(frozen=True)
class Rotation:
    """One turn of :func:`release_lambda`'s simulation on E.

    Attributes
    ----------
    prep : Prepared
        The part of E fitted as the private set.
    prior : ndarray or None
        The centre of the penalty, :func:`public_prior` of the part that plays the public model
        (scaled space of ``prep``); None for a release without a centre.
    X_test, y_test : ndarray
        The scoring part.
    """

    prep: Prepared
    prior: np.ndarray | None
    X_test: np.ndarray
    y_test: np.ndarray


@dataclass(frozen=True)
class ReleaseSimulation:
    """E in :func:`release_lambda`'s roles, prepared (:func:`release_simulation`): what no ε, no
    ``n_private`` and no λ changes, so that a simulation at another ε fits no prior again."""

    rotations: tuple[Rotation, ...]
    seed: int
    centred: bool


def release_simulation(X_pub, y_pub, *, data_norm: float | None, fit_intercept: bool,
                       classes=None, seed: int = 0,
                       centred: bool = False) -> ReleaseSimulation:
    """E split in :func:`release_roles` (seeded), each part that plays the private set prepared
    and, for a release ``centred`` on a public model, its :func:`public_prior` (fitted on the
    part that plays the public model). Parameters as :func:`release_lambda`."""
    X_pub = check_array(X_pub, "X_pub")
    y_pub = np.asarray(y_pub)
    if centred and classes is None:  # every part encoded against E's own two classes
        classes = encode_labels(y_pub)[0]
    rotations = []
    for prior_rows, train, test in release_roles(X_pub.shape[0], centred, seed):
        prep = prepare(X_pub[train], y_pub[train], data_norm=data_norm,
                       fit_intercept=fit_intercept, classes=classes)
        prior = None
        if prior_rows is not None:
            fitted = public_prior(X_pub[prior_rows], y_pub[prior_rows], data_norm=data_norm,
                                  fit_intercept=fit_intercept, classes=classes, seed=seed)
            prior = prep.from_model(fitted.coef_, fitted.intercept_[0])
        rotations.append(Rotation(prep, prior, X_pub[test], y_pub[test]))
    return ReleaseSimulation(tuple(rotations), seed, centred)


def simulated_release(simulation: ReleaseSimulation, *, n_private: int, epsilon: float,
                      lams: Sequence[float] | None = None, draws: int | None = None,
                      method: str = "amp") -> tuple[float, pd.DataFrame]:
    """:func:`release_lambda` on a prepared :class:`ReleaseSimulation` (its seed, its roles):
    the noise of a release of ``n_private`` records at ``epsilon`` for each lambda of ``lams``,
    ``draws`` draws each. Returns as :func:`release_lambda`.

    For "amp", each rotation's draws at every lambda are solved in one batch
    (:func:`~dpcore.perturbation.amp.amp_study`: the noise of ``amp_coefs`` from each lambda's
    stream, each solve to the gap AMP asks for), not one ``amp_coefs`` call per lambda."""
    epsilon = check_epsilon(epsilon)
    if method not in ("amp", "output"):
        raise ValueError(f"method == {method!r}, must be 'amp' or 'output' (the releases).")
    draws = (10 if method == "amp" else 20) if draws is None else draws
    lams = (CENTRED_LAMBDAS if simulation.centred else RELEASE_LAMBDAS) if lams is None else lams
    lams = [check_scalar(v, "lam", min_val=0.0) for v in lams]
    seed, rotations = simulation.seed, simulation.rotations
    errors = np.zeros(len(lams))
    draws = math.ceil(draws / len(rotations))  # per rotation: about ``draws`` per lambda in all
    for r, rotation in enumerate(rotations):
        prep, prior = rotation.prep, rotation.prior
        dz = prep.Z.shape[1]
        gens = [stream(seed, "perturbation", "release lambda",
                       *((lam,) if prior is None else (lam, "centred", r))) for lam in lams]
        if method == "amp":  # every lambda's draws in one batched solve
            solved = amp_study(prep, epsilon=epsilon, lams=lams, draws=draws, tol=TOL,
                               rngs=gens, n_noise=n_private, prior=prior)
        for i, (lam, gen) in enumerate(zip(lams, gens, strict=True)):
            if method == "amp":
                W = solved[i]
            else:
                w0 = nonprivate_coef(prep, lam, tol=1e-10, prior=prior)
                mech = L2Laplace(epsilon, output_sensitivity(n_private, lam, gap=TOL), dz)
                W = mech.randomise(np.broadcast_to(w0, (draws, dz)), law="release", rng=gen)
            errors[i] += float(np.mean(_evaluate(prep, W, rotation.X_test, rotation.y_test,
                                                 prep.classes))) / len(rotations)
    table = pd.DataFrame({"lam": lams, "error": errors})
    return float(table.loc[table["error"].idxmin(), "lam"]), table


def record_norm_bound(groups: dict[str, list[str]], kinds: dict[str, str],
                      columns: Sequence[str]) -> float:
    """L2 bound of an encoded record restricted to ``columns``, from the encoding alone.

    A one-hot or dummy group has at most one item set (norm <= 1); a binary or scaled column is
    in [0, 1]. Adult's 11 one-hot groups give ``sqrt(11)``.
    """
    wanted = set(columns)
    total = 0.0
    for group, cols in groups.items():
        inside = [c for c in cols if c in wanted]
        if not inside:
            continue
        total += 1.0 if kinds.get(group) in ("onehot", "dummy") else float(len(inside))
    return math.sqrt(total) if total > 0 else 1.0


@dataclass(frozen=True)
class ScenarioArrays:
    """A scenario's private set as a classification problem, with its held-out data."""

    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray | None
    y_test: np.ndarray | None
    data_norm: float
    features: list[str]
    #: The target's two classes, read from the public set E (never from D).
    classes: np.ndarray


def scenario_arrays(scenario, *, part: str = "private") -> ScenarioArrays:
    """Predictors and target of a :class:`~dpcore.datasets.Scenario` with a domain norm bound.

    ``part`` is ``"private"`` (D) or ``"public"`` (E). The test arrays are the scenario's test
    part (Adult's) or None. The classes come from the public set: a public target with one class
    is refused (a public fact), a private one is not (whether D has both classes is private).
    """
    if scenario.target is None:
        raise DataError("This scenario has no target column: for an upload, choose one in the "
                        "sidebar's 'Target (column to predict)'; or choose a built-in scenario "
                        "with a 0/1 target.")
    if part not in ("private", "public"):
        raise ValueError(f"part == {part!r}, must be 'private' or 'public'.")
    frame = scenario.private if part == "private" else scenario.public
    cols = scenario.predictors
    if not cols:
        raise DataError("The scenario has no predictor columns besides the target.")
    X = frame[cols].to_numpy(dtype=float)
    y = frame[scenario.target].to_numpy()
    classes, _ = encode_labels(scenario.public[scenario.target].to_numpy())  # public classes
    if scenario.test is not None:
        X_test = scenario.test[cols].to_numpy(dtype=float)
        y_test = scenario.test[scenario.target].to_numpy()
    else:
        X_test = y_test = None
    bound = record_norm_bound(scenario.groups, scenario.kinds, cols)
    return ScenarioArrays(X, y, X_test, y_test, bound, list(cols), classes)

