"""The Laplace and Gaussian mechanisms answering one query many times, and how many answers a
budget pays for.

The studies here draw many noisy answers from seeded streams (:func:`dpcore.random.stream`),
one vectorised call per mechanism: they show what a release would look like, spend no budget and
are not releases. The true answer they are centred on is **non-private**, and so is everything in
a column whose name says ``nonprivate``.

References
----------
.. [JLE14] Ji, Lipton & Elkan (2014), *Differential privacy and machine learning: a survey and
   review*, arXiv:1412.7584, Sect. 1.3 (the Laplacian mechanism and its Gaussian variation) and
   Sect. 1.6 (sequential composition).
.. [DR14] Dwork & Roth (2014), *The algorithmic foundations of differential privacy*, Found.
   Trends Theor. Comput. Sci. 9, Theorem 3.6 (Laplace), Theorem 3.16 (sequential composition)
   and Theorem A.1 (classic Gaussian calibration).
.. [BW18] Balle & Wang (2018), *Improving the Gaussian mechanism for differential privacy*,
   ICML, Theorem 8 and Algorithm 1 (analytic Gaussian calibration).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import pandas as pd

from dpcore.mechanisms import Gaussian, Laplace
from dpcore.primer.queries import RELATIONS
from dpcore.random import stream
from dpcore.validation import check_choice, check_probability, check_scalar

__all__ = [
    "MECHANISMS",
    "MAX_DRAWS",
    "check_draws",
    "build_mechanisms",
    "answer_study",
    "answers_in_budget",
    "budget_table",
]

#: The noise-adding mechanisms of the study, by key, with a name for people.
MECHANISMS = {
    "laplace": "Laplace",
    "gaussian_analytic": "Gaussian (analytic)",
    "gaussian_classic": "Gaussian (classic)",
}

#: Draws per study at most (one vectorised call draws them all).
MAX_DRAWS = 1_000_000


def check_draws(n_draws: Any) -> int:
    """``n_draws`` as an int in ``[1, MAX_DRAWS]``, or a TypeError/ValueError that says so."""
    if isinstance(n_draws, bool) or not isinstance(n_draws, numbers.Integral):
        raise TypeError(f"n_draws must be an int, got {type(n_draws).__name__} ({n_draws!r}).")
    if not 1 <= n_draws <= MAX_DRAWS:
        raise ValueError(f"n_draws == {n_draws}, must be in [1, {MAX_DRAWS}].")
    return int(n_draws)


def build_mechanisms(sens: float, epsilon: float, delta: float,
                     relation: str = "replace") -> dict[str, Laplace | Gaussian | str]:
    """The study's mechanisms by key (:data:`MECHANISMS`); a refused one maps to the reason.

    The classic Gaussian calibration is proven for epsilon < 1 only ([DR14]_ Theorem A.1), so at
    epsilon >= 1 its entry is the message of :class:`dpcore.mechanisms.Gaussian`.
    """
    text = RELATIONS[check_choice(relation, "relation", tuple(RELATIONS))]
    out: dict[str, Laplace | Gaussian | str] = {
        "laplace": Laplace(epsilon, sens, neighbouring=text),
        "gaussian_analytic": Gaussian(epsilon, delta, sens, "analytic", neighbouring=text),
    }
    try:
        out["gaussian_classic"] = Gaussian(epsilon, delta, sens, "classic", neighbouring=text)
    except ValueError as exc:
        out["gaussian_classic"] = str(exc)
    return out


def answer_study(truth: float, sens: float, epsilon: float, delta: float, *, n_draws: int,
                 seed: int, level: float = 0.95,
                 relation: str = "replace") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Many noisy answers of the Laplace and Gaussian mechanisms around ``truth``.

    Each mechanism draws all ``n_draws`` answers in one call from its own stream
    ``stream(seed, "primer", key)``, so its draws do not depend on the other mechanisms (and
    the same seed at another epsilon rescales the same standard draws).

    Parameters
    ----------
    truth : float
        The query's true answer (**non-private**).
    sens : float
        Its sensitivity (L1 = L2 for one number).
    epsilon, delta : float
        Privacy parameters; delta is used by the Gaussian mechanisms only.
    n_draws : int
    seed : int
    level : float, default=0.95
        Probability of the interval ``truth ± half_width``.
    relation : {"replace", "add_remove"}, default="replace"

    Returns
    -------
    draws : DataFrame
        Columns mechanism (key), draw, answer.
    summary : DataFrame
        One row per mechanism of :data:`MECHANISMS`: mechanism, name, available, note, epsilon,
        delta, sensitivity, scale, noise_sd (theory), half_width (``tail_bound(level)``),
        level, measured_sd, coverage (share of draws within ``± half_width``),
        truth_nonprivate, interval_low_nonprivate, interval_high_nonprivate.
    """
    truth = check_scalar(truth, "truth")
    n_draws = check_draws(n_draws)
    level = check_probability(level, "level", "the probability of the interval (e.g. 0.95).")
    mechs = build_mechanisms(sens, epsilon, delta, relation)
    draws, rows = [], []
    for key, name in MECHANISMS.items():
        mech = mechs[key]
        row: dict[str, Any] = {"mechanism": key, "name": name, "epsilon": float(epsilon),
                               "delta": 0.0 if key == "laplace" else float(delta),
                               "sensitivity": float(sens), "level": level,
                               "truth_nonprivate": truth}
        if isinstance(mech, str):
            rows.append(row | {"available": False, "note": mech})
            continue
        answers = mech.randomise(np.full(n_draws, truth), rng=stream(seed, "primer", key))
        half = mech.tail_bound(level)
        draws.append(pd.DataFrame({"mechanism": key, "draw": np.arange(n_draws),
                                   "answer": answers}))
        rows.append(row | {
            "available": True, "note": "", "scale": mech.scale,
            "noise_sd": math.sqrt(mech.variance), "half_width": half,
            "measured_sd": float(np.std(answers, ddof=1)) if n_draws > 1 else math.nan,
            "coverage": float(np.mean(np.abs(answers - truth) <= half)),
            "interval_low_nonprivate": truth - half, "interval_high_nonprivate": truth + half,
        })
    columns = ["mechanism", "name", "available", "note", "epsilon", "delta", "sensitivity",
               "scale", "noise_sd", "half_width", "level", "measured_sd", "coverage",
               "truth_nonprivate", "interval_low_nonprivate", "interval_high_nonprivate"]
    summary = pd.DataFrame(rows).reindex(columns=columns)
    return pd.concat(draws, ignore_index=True), summary


def answers_in_budget(total_epsilon: float, epsilon: float, total_delta: float = 0.0,
                      delta: float = 0.0) -> int:
    """How many (epsilon, delta) answers fit in (total_epsilon, total_delta), sequentially.

    k answers cost ``(k epsilon, k delta)`` ([JLE14]_ Sect. 1.6; [DR14]_ Theorem 3.16), so
    ``k = min(floor(total_epsilon / epsilon), floor(total_delta / delta))`` (the delta term only
    when ``delta > 0``). A relative slack of 1e-9 absorbs rounding (0.3 / 0.1 gives 3), as the
    accountant does.

    >>> answers_in_budget(1.0, 0.1), answers_in_budget(0.3, 0.1)
    (10, 3)
    >>> answers_in_budget(1.0, 0.1, total_delta=1e-5, delta=1e-6)
    10
    >>> answers_in_budget(1.0, 0.1, total_delta=1e-5, delta=4e-6)
    2
    """
    total_epsilon = check_scalar(total_epsilon, "total_epsilon", min_val=0.0, include_min=True)
    epsilon = check_scalar(epsilon, "epsilon", min_val=0.0)
    total_delta = check_scalar(total_delta, "total_delta", min_val=0.0, include_min=True,
                               max_val=1.0)
    delta = check_scalar(delta, "delta", min_val=0.0, include_min=True, max_val=1.0)
    k = math.floor(total_epsilon / epsilon * (1.0 + 1e-9))
    if delta > 0.0:
        k = min(k, math.floor(total_delta / delta * (1.0 + 1e-9)))
    return int(k)


def budget_table(summary: pd.DataFrame, total_epsilon: float, total_delta: float,
                 selection_epsilon: float | None = None) -> pd.DataFrame:
    """Answers of each available mechanism that fit in the total budget (sequentially).

    Returns a DataFrame with columns mechanism, name, epsilon, delta, total_epsilon,
    total_delta, answers, spent_epsilon, spent_delta.
    """
    rows = []
    items = [(r.mechanism, r.name, r.epsilon, r.delta)
             for r in summary.itertuples() if r.available]
    if selection_epsilon is not None:
        items.append(("exponential", "Exponential (a choice)", float(selection_epsilon), 0.0))
    for key, name, eps, delta in items:
        k = answers_in_budget(total_epsilon, eps, total_delta, delta)
        rows.append({"mechanism": key, "name": name, "epsilon": eps, "delta": delta,
                     "total_epsilon": float(total_epsilon), "total_delta": float(total_delta),
                     "answers": k, "spent_epsilon": k * eps, "spent_delta": k * delta})
    return pd.DataFrame(rows, columns=["mechanism", "name", "epsilon", "delta", "total_epsilon",
                                       "total_delta", "answers", "spent_epsilon",
                                       "spent_delta"])

