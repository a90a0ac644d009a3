"""Approximate minima perturbation on Adult: how its rule's constant was chosen, and its errors.

Run: ``python benchmarks/bench_amp.py choose [--draws 40]``, ``... evaluate [--releases 100]``
or ``... page [--releases 50]``. Each prints a markdown table (docs/paper-notes.md and
docs/performance.md copy them).

Data: Adult as the built-in scenario encodes it (one-hot, 111 predictor columns, target
``income=>50K``), ``data_norm = sqrt(12)``, an intercept (d = 112 coefficients).

* ``choose``: the constants of :func:`dpcore.perturbation.lambda_rule`, fixed **on Adult's
  training part only** (its 32,561 rows split 70 % / 30 % at random by the stream
  ``(0, "bench amp", "split")``): for each constant ``c`` of a grid and each epsilon, the
  release is simulated on the 70 % (its own n) ``--draws`` times from a seed (the release's
  law, numpy draws) and scored on the 30 %. AMP and objective perturbation with ``c d / (n
  epsilon)``, output perturbation with ``c (d / (n epsilon))^(2/3)``. The test part is not read.
* ``evaluate``: trained on the whole training part, scored on the test part (16,281 rows):
  the default release (``PrivateLogisticRegression()``: AMP, ``lam="auto"``) through its real
  release function with OpenDP's noise (``--releases`` releases, one batched solve per
  epsilon), output perturbation released at its rule, and objective perturbation as the page
  studies it (2011 calibration, its rule, seeded draws). Mean test error +- its standard error.
* ``page``: the page's Publish on the Adult scenario: trained on the private set D (20,688
  rows), centred on the public model fitted on E
  (:func:`dpcore.perturbation.experiments.public_prior`), lambda chosen by simulating that
  release on E (:func:`dpcore.perturbation.experiments.release_lambda` with ``centred=True``),
  scored on the test part; beside it the uncentred release at E's simulated lambda and at the
  rule.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pandas as pd
from timing import markdown  # first: puts the repository root on the import path

from dpcore.datasets import load_scenario
from dpcore.perturbation import lambda_rule, perturb_output, prepare, private_coefs
from dpcore.perturbation.experiments import public_prior, release_lambda, scenario_arrays
from dpcore.perturbation.model import RULE_AMP, TOL, nonprivate_coef
from dpcore.random import stream

EPSILONS = (0.5, 1.0, 2.0, 4.0)
CONSTANTS = {"amp": (0.03, 0.05, 0.07, 0.1, 0.14, 0.2, 0.3),
             "objective": (0.1, 0.2),
             "output": (0.03, 0.05, 0.07, 0.1, 0.14, 0.2)}
#: The calibration each method is studied with (as the estimator and the page use them).
PROOF = {"amp": "2019", "objective": "2011", "output": "2011"}
DATA_NORM = math.sqrt(12)


def training_part() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Adult's training part (the scenario's D and E together) and its test part."""
    scenario = load_scenario("adult")
    cols = scenario.predictors
    X = np.r_[scenario.private[cols].to_numpy(float), scenario.public[cols].to_numpy(float)]
    y = np.r_[scenario.private[scenario.target].to_numpy(),
              scenario.public[scenario.target].to_numpy()]
    return X, y, scenario.test[cols].to_numpy(float), scenario.test[scenario.target].to_numpy()


def errors(prep, W: np.ndarray, X_test: np.ndarray, y_test: np.ndarray) -> np.ndarray:
    """Test error of every coefficient vector in ``W`` (..., d_z)."""
    coef, intercept = prep.to_model(W)
    flat, icpt = coef.reshape(-1, coef.shape[-1]), intercept.reshape(-1)
    wrong = (X_test @ flat.T + icpt > 0) != (y_test == prep.classes[1])[:, None]
    return wrong.mean(axis=0)


def cell(errs: np.ndarray) -> str:
    return f"{errs.mean():.4f} ± {errs.std(ddof=1) / math.sqrt(errs.size):.4f}"


def rule_lambda(method: str, c: float, epsilon: float, n: int, d: int) -> float:
    ratio = d / (n * epsilon)
    return c * ratio ** (2.0 / 3.0) if method == "output" else c * ratio


def choose(draws: int) -> pd.DataFrame:
    X, y, _, _ = training_part()
    order = stream(0, "bench amp", "split").permutation(X.shape[0])
    cut = int(0.7 * order.size)
    fit, valid = order[:cut], order[cut:]
    prep = prepare(X[fit], y[fit], data_norm=DATA_NORM, fit_intercept=True, classes=[0, 1])
    n, d = prep.Z.shape
    rows = []
    for method, constants in CONSTANTS.items():
        for c in constants:
            row = {"method": method, "constant": c}
            for eps in EPSILONS:
                W, _ = private_coefs(prep, epsilons=[eps], lam=rule_lambda(method, c, eps, n, d),
                                     restarts=draws, method=method, proof=PROOF[method],
                                     rng=stream(0, "bench amp", method, c, eps))
                row[f"ε = {eps:g}"] = cell(errors(prep, W[0], X[valid], y[valid]))
            rows.append(row)
            print(row, flush=True)
    return pd.DataFrame(rows)


def evaluate(releases: int) -> pd.DataFrame:
    X, y, X_test, y_test = training_part()
    prep = prepare(X, y, data_norm=DATA_NORM, fit_intercept=True, classes=[0, 1])
    n, d = prep.Z.shape
    rows = []
    for eps in EPSILONS:
        for label, method, rng in (("AMP, the default release", "amp", None),
                                   ("output perturbation, released at its rule", "output", None),
                                   ("objective perturbation (study, 2011, its rule)",
                                    "objective", stream(0, "bench amp", "evaluate", eps))):
            lam = lambda_rule(eps, n, d, method)
            start = time.perf_counter()
            if method == "output":  # the release function, one certified fit reused
                w0 = nonprivate_coef(prep, lam, strict=True)
                W = perturb_output(np.broadcast_to(w0, (releases, d)), n=n, lam=lam,
                                   epsilon=eps, gap=TOL)
            else:
                W = private_coefs(prep, epsilons=[eps], lam=lam, restarts=releases,
                                  method=method, proof=PROOF[method], rng=rng,
                                  strict=rng is None)[0][0]
            errs = errors(prep, W, X_test, y_test)
            rows.append({"ε": eps, "method": label, "λ": f"{lam:.3g}", "test error": cell(errs),
                         "draws": releases, "seconds": f"{time.perf_counter() - start:.1f}"})
            print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def page(releases: int) -> pd.DataFrame:
    scenario = load_scenario("adult")
    private, public = scenario_arrays(scenario), scenario_arrays(scenario, part="public")
    prep = prepare(private.X, private.y, data_norm=private.data_norm, fit_intercept=True,
                   classes=private.classes)
    n, d = prep.Z.shape
    fitted = public_prior(public.X, public.y, data_norm=private.data_norm, fit_intercept=True,
                          classes=private.classes)
    prior = prep.from_model(fitted.coef_, fitted.intercept_[0])
    rows = []
    for eps in EPSILONS:
        centred, _ = release_lambda(public.X, public.y, n_private=n, epsilon=eps,
                                    data_norm=private.data_norm, fit_intercept=True,
                                    classes=private.classes, centred=True)
        lam, _ = release_lambda(public.X, public.y, n_private=n, epsilon=eps,
                                data_norm=private.data_norm, fit_intercept=True,
                                classes=private.classes)
        for label, lam_used, centre in (
                ("centred on E's model, λ simulated on E (the page's)", centred, prior),
                ("uncentred, λ simulated on E", lam, None),
                ("uncentred, λ by the rule", lambda_rule(eps, n, d, "amp"), None)):
            W = private_coefs(prep, epsilons=[eps], lam=lam_used, restarts=releases,
                              method="amp", proof="2019", strict=True, prior=centre)[0][0]
            rows.append({"ε": eps, "λ": label, "value": f"{lam_used:.3g}",
                         "test error": cell(errors(prep, W, private.X_test, private.y_test)),
                         "releases": releases})
            print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", choices=("choose", "evaluate", "page"))
    parser.add_argument("--draws", type=int, default=40)
    parser.add_argument("--releases", type=int, default=100)
    args = parser.parse_args()
    print(f"RULE_AMP = {RULE_AMP}")
    table = {"choose": lambda: choose(args.draws), "evaluate": lambda: evaluate(args.releases),
             "page": lambda: page(args.releases)}[args.task]()
    print(markdown(table))


if __name__ == "__main__":
    main()
