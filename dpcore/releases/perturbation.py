"""The perturbation page's release: a private logistic regression model, what a decision reads
about it, and its audit cases.

* :func:`publish`: the release itself, from the user's ε, λ, method and intercept, the public
  model it is centred on (fitted on E alone) and the scenario's private records, spent through
  the session's ledger before any noise is drawn
  (:class:`~dpcore.perturbation.model.PrivateLogisticRegression` with an accountant: the
  L2-Laplace drawn as a Gaussian scale mixture by OpenDP from fresh OS entropy);
  :func:`settings` and :data:`NOISE` say what it is, :func:`evaluation_set` where its error is
  measured and :func:`released_json` is what the data owner hands over;
* :data:`DECISION`: the release as the decision page reads it (its utility from the study's
  numbers, the step the audit attacks, the data a synthetic study builds itself);
* :data:`AUDIT_CASES`: approximate minima perturbation as released ([IKN19]_ Algorithm 1) and
  output perturbation's noise law as released;
* :data:`ONE_RUN`: both releases' one-run audits ([SNJ23]_), one canary per coordinate.

References
----------
.. [IKN19] Iyengar, Near, Song, Thakkar, Thakurta & Wang (2019), *Towards practical
   differentially private convex optimization*, IEEE S&P, Algorithm 1.
.. [SNJ23] Steinke, Nasr & Jagielski (2023), *Privacy auditing with one (1) training run*,
   NeurIPS, Algorithm 1.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from dpcore.accountant import BudgetAccountant
from dpcore.audit.case import AuditCase, capped_note, objective_llr, release_law_case
from dpcore.audit.onerun import LABEL_CANARIES, OneRunCase, label_canaries
from dpcore.audit.pairs import logistic_pair
from dpcore.datasets.scenario import Scenario
from dpcore.mechanisms import L2Laplace
from dpcore.perturbation.amp import amp_calibration, amp_coefs
from dpcore.perturbation.experiments import (
    LAMBDA_MODES,
    SYNTHETIC,
    PublicPrior,
    ScenarioArrays,
)
from dpcore.perturbation.model import TOL, PrivateLogisticRegression, nonprivate_coef, prepare
from dpcore.perturbation.output import output_sensitivity
from dpcore.releases.base import AuditScope, Numbers, Release, utility_row, utility_table

__all__ = ["AUDIT_CASES", "AUDIT_FAULTS", "DECISION", "METHODS", "NOISE", "ONE_RUN",
           "evaluation_set", "publish", "released_json", "settings"]

_RULE = LAMBDA_MODES[0]  # the perturbation study's λ by its rule (the release chooses its own)

#: The releases: method of :class:`~dpcore.perturbation.model.PrivateLogisticRegression` ->
#: the release in words.
METHODS = {"amp": "approximate minima perturbation", "output": "output perturbation"}
#: How each method draws its noise, in words (shown beside the Publish button).
NOISE = {"amp": "L2-Laplace in the objective and on the output (a Gaussian scale mixture)",
         "output": "L2-Laplace at the L2 sensitivity (a Gaussian scale mixture)"}


def publish(scenario: Scenario, arrays: ScenarioArrays, *, epsilon: float, lam: float,
            method: str, intercept: bool, prior: PublicPrior | None,
            accountant: BudgetAccountant) -> PrivateLogisticRegression:
    """Publish a private logistic regression trained on all of the scenario's private records.

    Parameters
    ----------
    scenario : Scenario
        The data (its private set as ``arrays``; its title names it in the ledger).
    arrays : ScenarioArrays
        :func:`~dpcore.perturbation.experiments.scenario_arrays` of the private set D.
    epsilon, lam : float
        The release's ε and λ (the user's choice, or λ chosen on public data).
    method : {"amp", "output"}
        Approximate minima perturbation or output perturbation (:data:`METHODS`).
    intercept : bool
        Whether the model has an intercept.
    prior : PublicPrior or None
        The public model the penalty is centred on
        (:func:`~dpcore.perturbation.experiments.public_prior` of E alone), or None.
    accountant : BudgetAccountant
        The session's ledger, charged before any noise is drawn.

    Returns
    -------
    PrivateLogisticRegression
        The fitted, released model.

    Raises
    ------
    DataError
        When E was derived from D, or over the budget (nothing recorded).
    """
    scenario.check_publishable()
    model = PrivateLogisticRegression(
        epsilon=epsilon, lam=lam, method=method, data_norm=arrays.data_norm,
        fit_intercept=intercept, accountant=accountant, dataset=scenario.title,
        classes=arrays.classes, prior=prior)
    return model.fit(arrays.X, arrays.y)


def settings(epsilon: float, lam: float, method: str, centred: bool) -> str:
    """The release's settings in words, as the ledger's outcome and the page name them."""
    return (f"ε = {epsilon:g}, λ = {lam:.3g}, {METHODS[method]}"
            + (", centred on the public model" if centred else ""))


def evaluation_set(arrays: ScenarioArrays,
                   public: ScenarioArrays) -> tuple[np.ndarray, np.ndarray, str]:
    """Where the released model's error is measured: the held-out test part where the scenario
    has one, else the public set E; with its name in words."""
    if arrays.X_test is not None:
        return arrays.X_test, arrays.y_test, "the held-out test part"
    return public.X, public.y, "the public set E"


def released_json(model: PrivateLogisticRegression, arrays: ScenarioArrays, *, error: float,
                  test_set: str, dataset: str, published: dt.datetime) -> str:
    """The release as handed over: the model (:meth:`~PrivateLogisticRegression.to_dict`) with
    its features, classes, test error and where it was measured, the training size, the data's
    name and when it was published (UTC), as indented JSON."""
    payload = model.to_dict() | {
        "features": list(arrays.features), "classes": [str(c) for c in model.classes_],
        "test_error": error, "test_set": test_set, "n_train": arrays.X.shape[0],
        "dataset": dataset, "published": published.astimezone(dt.UTC).isoformat(),
    }
    return json.dumps(payload, indent=2)


def _utility(numbers: Numbers, params: Any) -> pd.DataFrame:
    # The release is approximate minima perturbation: objective perturbation's noise, a
    # certified solve and 1 % of epsilon as output noise. The study's objective-perturbation
    # curve simulates that law with the 2011 calibration, whose Jacobian term is at most twice
    # the release's: the row is the release's error or a little more.
    m = numbers["metrics"].iloc[0]
    error, sd = m["error objective perturbation"], m["sd objective perturbation"]
    restarts = int(m["restarts"])
    rows = [
        utility_row(
            "test error of the released model", error,
            f"The mean test error of {restarts} simulated fits of objective perturbation at "
            f"ε = {m['epsilon']:g} and the study's λ = {m['lam']:.3g}, the noise the release "
            f"(approximate minima perturbation) draws, measured on held-out records; one "
            f"release varies with a standard deviation of {sd:.3g}."
            + (" (Under the rule, the Publish view chooses its own λ on the public set E.)"
               if m["lambda_mode"] == _RULE else ""), True, sd=sd),
        utility_row(
            "test error without privacy", m["error non-private"],
            "The same model fitted without noise: the floor any private model can reach.", True),
        utility_row(
            "always guessing the majority class", m["guessing_error_nonprivate"],
            "A model that ignores the features: a release no better than this is not worth "
            "its ε.", True),
    ]
    if error >= m["guessing_error_nonprivate"]:
        rows[0]["meaning"] += " It does no better than guessing the majority class."
    return utility_table(rows)


def _scope(params: Any, metrics: pd.Series) -> AuditScope:
    epsilon = float(params.epsilon)
    return AuditScope("amp_release", epsilon,
                      "the whole release: the objective's noise, the certified solve and the "
                      "output noise (approximate minima perturbation, Iyengar et al. 2019 "
                      "Algorithm 1)", epsilon,
                      rest="the solver's error is covered by the output noise's sensitivity")


def _data(params: Any, prepared: Any) -> tuple[str, str] | None:
    if params.source not in SYNTHETIC:
        return None
    return (params.source, "Simulated as in Chaudhuri & Monteleoni (2008) Sect. 6: points "
            "drawn uniformly on the unit sphere in 10 dimensions, labelled by a hyperplane "
            "through the origin ('separable': with a margin of 0.03; 'noisy': with 10 % of the "
            "labels flipped). Both the training and the test records are simulated.")


#: The release as a decision reads it.
DECISION = Release("perturbation", "a logistic regression model (approximate minima "
                   "perturbation, Iyengar et al. 2019 Alg. 1: Chaudhuri & Monteleoni's objective "
                   "perturbation made float-safe)", "Error vs ε", _utility, _scope,
                   data=_data)


def _output_release_case(epsilon: float, *, n: int = 50, d: int = 2,
                         lam: float = 0.1) -> AuditCase:
    X, y, Xp, yp = logistic_pair(n, d, 0)
    w0 = nonprivate_coef(prepare(X, y, data_norm=1.0), lam)
    w1 = nonprivate_coef(prepare(Xp, yp, data_norm=1.0), lam)
    mech = L2Laplace(epsilon, output_sensitivity(n, lam, gap=TOL), w0.size)
    return release_law_case(
        "output_release", "Output perturbation as released (Gaussian scale mixture; also "
        "masking's W′)", epsilon, mech, w0, w1, "replace one record (n fixed)",
        f"n = {n}, d = {d}, lam = {lam:g}; changed record u -> -u, ||u|| = 1",
        "non-private fit once per dataset, the release's noise per run")


def _amp_release_case(epsilon: float, *, n: int = 10, lam: float = 0.001,
                      seed: int = 13, centre: float = 0.5) -> AuditCase:
    """Approximate minima perturbation, the default release of private logistic regression, on
    the 1-D pair of the catalogue's objective-perturbation case (:mod:`dpcore.audit.cases`;
    n lam = 0.01, where the Jacobian matters most), centred as the page releases it: the
    penalty ``mu/2 (w - w0)^2`` around a public model's coefficient ``w0 = centre``
    (``centre=0`` audits the uncentred estimator's default).

    Each run is the release's own function (:func:`dpcore.perturbation.amp.amp_coefs`: the
    objective noise, the certified batched solve, the output noise), its noise drawn by the
    study's twin of the release sampler. The score is the exact log-likelihood ratio of the
    exact minimiser of the perturbed objective at the release's calibration (``"2019"``, the
    rank-one Jacobian term, with its extra regularisation); the output noise moves each run by
    about 1e-5, so the score is that of a test a hair from optimal (any score gives a valid
    lower bound)."""
    gen = np.random.default_rng(seed)
    X = np.zeros((n, 1))
    y = gen.integers(0, 2, n)
    y[:2] = (0, 1)
    X[-1], y[-1] = 1.0, 1
    Xp = X.copy()
    Xp[-1] = 0.0
    p0, p1 = prepare(X, y, data_norm=1.0), prepare(Xp, y, data_norm=1.0)
    cal = amp_calibration(epsilon, n=n, lam=lam)
    n_lam = n * cal.lam_total
    prior = None if centre == 0.0 else np.array([centre])

    def sample(runs, rng):
        outs = [amp_coefs(p, epsilon=epsilon, lam=lam, size=runs, tol=TOL, rng=rng,
                          prior=prior)[0][:, 0] for p in (p0, p1)]
        return tuple(objective_llr(w, p1.Z[:, 0], p1.y01, n_lam, cal.epsilon_noise, centre)
                     - objective_llr(w, p0.Z[:, 0], p0.y01, n_lam, cal.epsilon_noise, centre)
                     for w in outs)

    centred = f", centred on a public model w0 = {centre:g}" if prior is not None else ""
    return AuditCase(
        "amp_release", "Approximate minima perturbation as released (Iyengar et al. 2019 Alg. 1)",
        epsilon, 0.0, "replace one record (n fixed)",
        f"n = {n}, d = 1, n lam = {n * lam:g} (n mu = {n_lam:.3g} after the extra "
        f"regularisation){centred}: changed record x = 1 -> x = 0", 0.5,
        "exact log-likelihood ratio of the exact perturbed minimiser at the output (Jacobian "
        "included)", sample, refits=True,
        covers="the whole release (objective noise, certified solve, output noise), one "
               "batched refit per run",
        noise="objective-perturbation noise",
        note=capped_note("Approximate minima perturbation puts its L2-Laplace noise in the "
                          "objective (and a little on the output), so the output's loss "
                          "includes the solver's Jacobian and no share f caps it", epsilon))


#: The release's audit cases (key -> builder at a claimed ε).
AUDIT_CASES: dict[str, Callable[[float], AuditCase]] = {"amp_release": _amp_release_case,
                                                        "output_release": _output_release_case}
#: Those of :data:`AUDIT_CASES` broken on purpose: none.
AUDIT_FAULTS: tuple[str, ...] = ()


#: The canaries of both releases' one-run audits, and what caps their bound, in words.
_MODEL_NOTE = ("The noise is spread over all m coordinates while a canary moves only its own "
               "by a fraction of the sensitivity, so one run shows little unless m is large "
               "(and the noise's norm grows with m).")


def _output_one_run(epsilon: float, canaries: int, *, lam: float = 0.01,
                    noise_epsilon: float | None = None) -> OneRunCase:
    """Output perturbation as released on the canaries of
    :func:`~dpcore.audit.onerun.label_canaries` (one per coordinate, n = m + 2): one
    non-private fit and one L2-Laplace draw at the release's sensitivity (its Gaussian scale
    mixture, drawn by the seeded study twin); a canary's score is its coefficient.
    ``noise_epsilon``: the ε the noise is calibrated to (default the claimed ε; larger is a
    fault, broken on purpose)."""
    n = canaries + 2
    law = L2Laplace(epsilon if noise_epsilon is None else noise_epsilon,
                    output_sensitivity(n, lam, gap=TOL), canaries)

    def run(included: np.ndarray, rng) -> np.ndarray:
        w = nonprivate_coef(prepare(*label_canaries(included), data_norm=1.0), lam)
        return law.randomise(w, rng=rng, law="release")

    return OneRunCase(
        "output_release", "Output perturbation as released", epsilon, canaries,
        "replace one record (n fixed)", LABEL_CANARIES.format(lam=lam), "output_release", run,
        broken=noise_epsilon not in (None, epsilon), note=_MODEL_NOTE)


def _amp_one_run(epsilon: float, canaries: int, *, lam: float = 0.01,
                 noise_epsilon: float | None = None) -> OneRunCase:
    """Approximate minima perturbation as released ([IKN19]_ Algorithm 1, the release's own
    :func:`~dpcore.perturbation.amp.amp_coefs` with its seeded study law: objective noise,
    certified solve, output noise) on the canaries of
    :func:`~dpcore.audit.onerun.label_canaries`; a canary's score is its coefficient.
    ``noise_epsilon``: the ε the noise is calibrated to (default the claimed ε; larger is a
    fault, broken on purpose)."""
    noise = epsilon if noise_epsilon is None else noise_epsilon

    def run(included: np.ndarray, rng) -> np.ndarray:
        prep = prepare(*label_canaries(included), data_norm=1.0)
        return amp_coefs(prep, epsilon=noise, lam=lam, tol=TOL, rng=rng)[0]

    return OneRunCase(
        "amp_release", "Approximate minima perturbation as released", epsilon, canaries,
        "replace one record (n fixed)", LABEL_CANARIES.format(lam=lam), "amp_release", run,
        broken=noise_epsilon not in (None, epsilon), note=_MODEL_NOTE)


#: The releases' one-run audits (key -> builder at a claimed ε and a number of canaries).
ONE_RUN: dict[str, Callable[..., OneRunCase]] = {"output_release": _output_one_run,
                                                 "amp_release": _amp_one_run}
