"""Composition: what several releases cost together, under each composition theorem.

The rules the :class:`~dpcore.accountant.BudgetAccountant` keeps its ledger by, and the "what if"
totals of :mod:`dpcore.planning`: :func:`compose` under sequential, advanced
(Kairouz-Oh-Viswanath), zero-concentrated DP, Rényi DP or privacy-loss-distribution (PLD)
composition (the last two by Google's ``dp-accounting``), :func:`compose_parts` in parallel
over the disjoint parts of a dataset, :func:`gaussian_rho` for a Gaussian release's zCDP
parameter and :func:`composition_growth` for k identical releases; a plan's composed privacy
loss distribution (:func:`plan_pld`) and its total as an interval (:func:`pld_interval`). Imports
nothing above the mechanisms and the checks, so that the accountant and planning can both build
on it.

References
----------
.. [DR14] Dwork & Roth (2014), *The algorithmic foundations of differential privacy*, Found.
   Trends Theor. Comput. Sci. 9, Theorem 3.16 (basic composition), Theorem 3.20 (advanced).
.. [DRV10] Dwork, Rothblum & Vadhan (2010), *Boosting and differential privacy*, FOCS,
   Theorem III.3.
.. [KOV15] Kairouz, Oh & Viswanath (2015), *The composition theorem for differential privacy*,
   ICML (JMLR W&CP 37), Theorem 3.5 (heterogeneous composition).
.. [BS16] Bun & Steinke (2016), *Concentrated differential privacy: simplifications, extensions,
   and lower bounds*, TCC, Proposition 1.3 (zCDP to (epsilon, delta)), Proposition 1.4 (pure
   epsilon-DP is epsilon^2/2-zCDP), Proposition 1.6 (Gaussian), Lemma 2.3 (composition).
.. [Mir17] Mironov (2017), *Rényi differential privacy*, CSF, Proposition 1 (composition) and
   Proposition 3 (conversion to (epsilon, delta)), as implemented by ``dp_accounting.rdp``.
.. [KJH20] Koskela, Jälkö & Honkela (2020), *Computing tight differential privacy guarantees
   using FFT*, AISTATS; Meiser & Mohammadi (2018); Sommer, Meiser & Mohammadi (2019): privacy
   loss distributions, as implemented by ``dp_accounting.pld`` (pessimistic discretisation).
.. [MM18] Meiser & Mohammadi (2018), *Tight on budget? Tight bounds for r-fold approximate
   differential privacy*, ACM CCS: privacy buckets (each loss rounded to a grid, up or down).
.. [DGK22] Doroshenko, Ghazi, Kamath, Kumar & Manurangsi (2022), *Connect the dots: tighter
   discrete approximations of privacy loss distributions*, PoPETs 2022(4), Algorithm 1, as
   implemented by ``dp_accounting.pld`` (its default for Laplace and Gaussian releases).
.. [KOV17] Kairouz, Oh & Viswanath (2017), *The composition theorem for differential privacy*,
   IEEE Trans. Inf. Theory 63, Theorem 3.2: randomised response is the worst case of every
   pure epsilon-DP mechanism.
.. [JLE14] Ji, Lipton & Elkan (2014), *Differential privacy and machine learning: a survey and
   review*, arXiv:1412.7584, Sect. 1.6 (sequential and parallel theorems).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dpcore.mechanisms import Gaussian
from dpcore.validation import check_choice, check_scalar

__all__ = [
    "ACCOUNTING_LIBRARY",
    "CLOSED_FORMS",
    "COMPOSITIONS",
    "COMPOSITION_ASSUMPTIONS",
    "COMPOSITION_NAMES",
    "MAX_PART_CHOICES",
    "PLAN_DATASET",
    "PLD_DISCRETISATION",
    "PLD_ESTIMATES",
    "EpsilonInterval",
    "PlannedRelease",
    "compose",
    "compose_parts",
    "composition_growth",
    "gaussian_rho",
    "plan_pld",
    "pld_interval",
    "pld_interval_parts",
    "rho_parts",
    "zcdp_epsilon",
]

COMPOSITIONS = ("sequential", "advanced", "zcdp", "rdp", "pld")
#: Methods computed by ``dp-accounting`` (:func:`compose`), and the others.
ACCOUNTING_LIBRARY = ("rdp", "pld")
CLOSED_FORMS = ("sequential", "advanced", "zcdp")
#: Discretisation of the privacy loss in PLD accounting (``dp-accounting``'s default).
PLD_DISCRETISATION = 1e-4
#: How a privacy loss distribution is put on the grid of losses (:func:`plan_pld`):
#: connect-the-dots, ``dp-accounting``'s default for Laplace and Gaussian releases (pessimistic
#: rounding for the others; the totals of :func:`compose`), or privacy buckets with every loss
#: rounded up (pessimistic) or down (optimistic) (:func:`pld_interval`).
PLD_ESTIMATES = ("connect-the-dots", "pessimistic", "optimistic")

#: Each composition method as a page names it (the codes above are the configs' and tables').
COMPOSITION_NAMES = {"sequential": "sequential", "advanced": "advanced", "zcdp": "zCDP",
                     "rdp": "Rényi DP", "pld": "privacy loss distribution"}
#: What each composition method assumes, in one line each (shown beside every total).
COMPOSITION_ASSUMPTIONS = {
    "sequential": "Any releases, chosen adaptively: the ε and the δ add up (Dwork & Roth, "
                  "Thm 3.16). Always valid.",
    "advanced": "Any (ε_i, δ_i)-DP releases whose ε_i are fixed in advance (a declared plan); "
                "the total ε grows like √(Σε_i²) instead of Σε_i, at the price of an extra δ′ "
                "(Kairouz, Oh & Viswanath 2015, Thm 3.5). Pays off for many small-ε releases. "
                "A 'what if' only: it never refuses a session's releases, whose ε are chosen "
                "one after another.",
    "zcdp": "Pure ε-DP releases count as ρ = ε²/2, Gaussian ones as ρ = Δ²/(2σ²); the ρ add "
            "up and convert to (ρ + 2√(ρ ln(1/δ′)), δ′) (Bun & Steinke 2016, Props 1.3-1.6, "
            "Lemma 2.3). Needs each Gaussian release's σ, not only its (ε, δ). Also valid when "
            "each ε is chosen after the last release (a Rényi filter, Feldman & Zrnic 2021).",
    "rdp": "Rényi DP (Mironov 2017), computed by Google's dp-accounting: a Laplace release by "
           "the Laplace's Rényi curve, any other pure ε-DP release as its worst case "
           "(randomised response at ε), a Gaussian release by its σ; the curves add up and "
           "convert to (ε, δ′). Needs each Gaussian release's σ. A 'what if' for a declared "
           "plan: it never refuses a session's releases.",
    "pld": "Privacy loss distributions (dp-accounting, pessimistic discretisation): the "
           "tightest total for a declared plan. A Laplace release by its own loss distribution, "
           "any other pure ε-DP release as randomised response at ε (the worst case, Kairouz, "
           "Oh & Viswanath), an (ε, δ) release without σ as the worst (ε, δ) pair, a Gaussian "
           "by its σ. A 'what if' only: this project relies on no PLD filter for releases "
           "chosen one after another.",
}

#: The dataset name of planned releases restricted to a part (a row's ``partition``).
PLAN_DATASET = "(planned)"
#: Most combinations of parts that parallel composition enumerates.
MAX_PART_CHOICES = 100_000


def gaussian_rho(epsilon: float, delta: float, *, calibration: str = "analytic",
                 sensitivity: float = 1.0, sigma: float | None = None) -> float:
    """zCDP parameter ``ρ = Δ² / (2σ²)`` of a Gaussian release ([BS16]_ Proposition 1.6).

    ``σ`` is the mechanism's (:class:`~dpcore.mechanisms.Gaussian` at (epsilon, delta,
    sensitivity, calibration)) unless given; ρ does not depend on Δ once σ is calibrated to it.

    >>> round(gaussian_rho(1.0, 1e-5), 5)
    0.03593
    """
    if sigma is None:
        sigma = Gaussian(epsilon, delta, sensitivity, calibration).sigma
    sigma = check_scalar(sigma, "sigma", min_val=0.0)
    sensitivity = check_scalar(sensitivity, "sensitivity", min_val=0.0)
    return sensitivity**2 / (2.0 * sigma**2)


def _as_array(values: Any, name: str, n: int | None = None) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    if arr.ndim != 1 or (n is not None and arr.size != n):
        raise ValueError(f"{name} must be a 1-D sequence"
                         + (f" of length {n}" if n is not None else "") + f", got {values!r}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {values!r}.")
    return arr


def compose(epsilons: Any, deltas: Any = None, method: str = "sequential",
            delta_slack: float = 0.0, *, rhos: Any = None,
            mechanisms: Any = None) -> tuple[float, float]:
    """Total (epsilon, delta) of k releases under a composition theorem.

    ``"sequential"``: ``(Σ ε_i, Σ δ_i)`` ([DR14]_ Theorem 3.16; [JLE14]_ Sect. 1.6), valid for
    any adaptively chosen releases.

    ``"advanced"``: for any ``δ' = delta_slack`` in (0, 1), k adaptively chosen
    (ε_i, δ_i)-DP releases are (ε', Σ δ_i + δ')-DP with

    ``ε' = Σ (e^ε_i - 1) ε_i / (e^ε_i + 1) + sqrt(2 ln(1/δ') Σ ε_i²)``

    ([KOV15]_ Theorem 3.5, third term; its δ is ``1 - (1-δ')Π(1-δ_i) <= Σ δ_i + δ'``, and the
    first term is [DRV10]_'s ``kε(e^ε - 1)`` sharpened by ``1/(e^ε + 1)``). When ``Σ ε_i`` is
    not larger, the sequential pair is returned instead (it needs no δ'): the minimum of KOV's
    statement.

    ``"zcdp"``: every release gets a ρ: ``rhos[i]`` if given (a Gaussian release:
    :func:`gaussian_rho`), else ``ε_i²/2`` for a pure release (δ_i = 0, [BS16]_ Proposition
    1.4); a release with δ_i > 0 and no ρ is refused (an (ε, δ) pair alone does not determine a
    ρ). The ρ add up ([BS16]_ Lemma 2.3) and ``ρ`` converts to
    ``(ρ + 2 sqrt(ρ ln(1/δ')), δ')`` ([BS16]_ Proposition 1.3); the δ_i of releases with a ρ
    are not added (zCDP accounts for them). The sequential pair is returned when its ε is not
    larger (both pairs are valid guarantees).

    ``"rdp"`` and ``"pld"``: Rényi DP ([Mir17]_) and privacy loss distribution ([KJH20]_)
    accounting by Google's ``dp-accounting``, at δ' (pld: at ``Σ δ_i + δ'``). Each release is
    the tightest event its record determines: a release with a ρ is a Gaussian of noise
    multiplier ``σ/Δ = 1/sqrt(2ρ)``; a pure release (δ_i = 0) whose mechanism is Laplace
    (``mechanisms[i]`` starting with "Laplace") is the Laplace mechanism of scale ``Δ/ε_i``;
    any other pure release is counted as its worst case, binary randomised response at ε_i
    ([KOV17]_); an (ε_i, δ_i) release with δ_i > 0 and no ρ is the worst (ε_i, δ_i) pair under
    pld and refused under rdp (as under zcdp). The sequential pair is returned when its ε is
    not larger. Both assume the releases fixed in advance (a declared plan).

    With ``delta_slack = 0`` advanced, zcdp, rdp and pld give the sequential total.

    Parameters
    ----------
    epsilons : sequence of float
        ε_i >= 0 of each release.
    deltas : sequence of float, default=None (all 0)
        δ_i in [0, 1).
    method : {"sequential", "advanced", "zcdp", "rdp", "pld"}, default="sequential"
    delta_slack : float, default=0.0
        δ' in [0, 1) of advanced, zcdp, rdp and pld.
    rhos : sequence of (float or None), default=None
        zCDP parameter of each release (None: from a pure ε_i).
    mechanisms : sequence of (str or None), default=None
        Each release's mechanism, read by rdp and pld only (a Laplace release is counted by the
        Laplace's own curve, any other as the worst case for its ε).

    Returns
    -------
    tuple of (float, float)

    Examples
    --------
    >>> compose([0.1, 0.2], [1e-6, 0.0])
    (0.30000000000000004, 1e-06)
    >>> eps, delta = compose([0.1] * 100, method="advanced", delta_slack=1e-6)
    >>> round(eps, 3), delta  # sequential: 10
    (5.756, 1e-06)
    >>> eps, delta = compose([0.1] * 100, method="zcdp", delta_slack=1e-6)
    >>> round(eps, 3), delta
    (5.757, 1e-06)
    >>> eps, delta = compose([0.05] * 100, method="pld", delta_slack=1e-6,
    ...                      mechanisms=["Laplace"] * 100)
    >>> round(eps, 2), delta  # rdp: 2.34, sequential: 5
    (2.19, 1e-06)
    """
    method = check_choice(method, "method", COMPOSITIONS)
    delta_slack = check_scalar(delta_slack, "delta_slack", min_val=0.0, max_val=1.0,
                               include_min=True, include_max=False)
    eps, dels = _check_plan(epsilons, deltas)
    n = eps.size
    seq = (math.fsum(eps), min(1.0, math.fsum(dels)))
    if method == "sequential" or n == 0 or delta_slack == 0.0:
        return seq
    log_term = math.log(1.0 / delta_slack)
    if method == "advanced":
        ex = np.expm1(eps)
        first = math.fsum(ex * eps / (ex + 2.0))  # (e^x - 1) x / (e^x + 1)
        total = first + math.sqrt(2.0 * log_term * math.fsum(eps**2))
        if seq[0] <= total:
            return seq
        return total, min(1.0, seq[1] + delta_slack)
    given = _rhos(rhos, n)
    if method in ACCOUNTING_LIBRARY:
        key, delta = _library_plan(eps, dels, given, mechanisms, method, delta_slack)
        total = _rdp_epsilon(key, delta) if method == "rdp" else _pld_epsilon(key, delta)
        return seq if seq[0] <= total else (total, delta)
    rho = []
    for i, (e, d, r) in enumerate(zip(eps, dels, given, strict=True)):
        if r is None:
            if d > 0.0:
                raise _needs_noise(i, e, d, "zCDP", "advanced")
            rho.append(e * e / 2.0)
        else:
            rho.append(r)
    total_rho = math.fsum(rho)
    eps_z = zcdp_epsilon(total_rho, delta_slack)
    if seq[0] <= eps_z:
        return seq
    return eps_z, delta_slack


def _check_plan(epsilons: Any, deltas: Any) -> tuple[np.ndarray, np.ndarray]:
    """A plan's ε_i >= 0 and δ_i in [0, 1) (all 0 when ``deltas`` is None), as arrays."""
    eps = _as_array(epsilons, "epsilons")
    dels = np.zeros(eps.size) if deltas is None else _as_array(deltas, "deltas", eps.size)
    if np.any(eps < 0.0):
        raise ValueError(f"epsilons must be >= 0, got {epsilons!r}.")
    if np.any((dels < 0.0) | (dels >= 1.0)):
        raise ValueError(f"deltas must be in [0, 1), got {deltas!r}.")
    return eps, dels


def _rhos(rhos: Any, n: int) -> list[float | None]:
    """Each release's ρ, checked (None where none is given: NaN counts as none)."""
    given = [None] * n if rhos is None else list(rhos)
    if len(given) != n:
        raise ValueError(f"rhos must have one entry per release ({n}), got {len(given)}.")
    return [None if r is None or (isinstance(r, float) and math.isnan(r))
            else check_scalar(r, f"rhos[{i}]", min_val=0.0, include_min=True)
            for i, r in enumerate(given)]


def _needs_noise(i: int, e: float, d: float, method: str, instead: str) -> ValueError:
    """The refusal of an (ε, δ) release with δ > 0 and no ρ by a method that needs its noise."""
    return ValueError(
        f"Release {i + 1} is (ε = {e:g}, δ = {d:g})-DP: {method} cannot account for an (ε, δ) "
        "pair with δ > 0 without the mechanism's ρ (a Gaussian release with noise σ and L2 "
        "sensitivity Δ has ρ = Δ²/(2σ²): pass it in rhos, e.g. "
        f"dpcore.planning.gaussian_rho(ε, δ)), or use method='{instead}'."
    )


def _events(eps: np.ndarray, dels: np.ndarray, rhos: list[float | None], names: list,
            method: str) -> dict[tuple[str, float, float], int]:
    """Each release as the tightest event its record determines, counted (see :func:`compose`):
    ``("gaussian", σ/Δ, 0)``, ``("laplace", ε, 0)``, ``("pure", ε, 0)`` or ``("pair", ε, δ)``."""
    events: dict[tuple[str, float, float], int] = {}
    for i, (e, d, rho, name) in enumerate(zip(eps, dels, rhos, names, strict=True)):
        if rho is not None:
            if rho == 0.0:
                continue
            key = ("gaussian", 1.0 / math.sqrt(2.0 * rho), 0.0)
        elif d > 0.0:
            if method == "rdp":
                raise _needs_noise(i, e, d, "Rényi DP", "pld")
            key = ("pair", float(e), float(d))
        elif e == 0.0:
            continue
        elif str(name or "").lower().startswith("laplace"):
            key = ("laplace", float(e), 0.0)
        else:
            key = ("pure", float(e), 0.0)
        events[key] = events.get(key, 0) + 1
    return events


def _flip(epsilon: float) -> float:
    """``noise_parameter`` of binary randomised response at ``epsilon`` in ``dp-accounting``
    (with that probability the answer is a uniform draw): ``2 / (e^ε + 1)``."""
    return 2.0 / (math.exp(epsilon) + 1.0)


#: An event of :func:`_events` and how many times it is composed.
Counted = tuple[tuple[str, float, float], int]


@functools.lru_cache(maxsize=256)
def _rdp_epsilon(events: tuple[Counted, ...], delta: float) -> float:
    """ε at ``delta`` of the composed events by ``dp-accounting``'s RDP accountant (cached:
    a page's reruns ask for the same plan). ``dp-accounting`` is imported here, not at the top:
    it takes 1.7 s, which the accountant and every page's cold start would pay."""
    from dp_accounting import dp_event, privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant

    # Every event's parameter already holds the ledger's relation (its ε, or σ/Δ with Δ under
    # that relation), so the library's relation is only the one under which it accepts all
    # three events: randomised response is defined for replace-one neighbours.
    accountant = rdp_privacy_accountant.RdpAccountant(
        neighboring_relation=privacy_accountant.NeighboringRelation.REPLACE_ONE)
    for (kind, value, _), count in events:
        if kind == "gaussian":
            event: Any = dp_event.GaussianDpEvent(noise_multiplier=value)
        elif kind == "laplace":
            event = dp_event.LaplaceDpEvent(noise_multiplier=1.0 / value)
        else:
            event = dp_event.RandomizedResponseDpEvent(noise_parameter=_flip(value),
                                                       num_buckets=2)
        accountant.compose(event, count)
    return float(accountant.get_epsilon(delta)) if events else 0.0


def _library_plan(eps: np.ndarray, dels: np.ndarray, rhos: list[float | None],
                  mechanisms: Any, method: str,
                  delta_slack: float) -> tuple[tuple[Counted, ...], float]:
    """The plan as counted events for ``dp-accounting`` (:func:`_events`) and the δ its total
    is read at: δ' under rdp; under pld, δ' plus the δ_i of the (ε, δ) pairs, which are their
    loss distributions' mass at infinity."""
    n = eps.size
    names = [None] * n if mechanisms is None else list(mechanisms)
    if len(names) != n:
        raise ValueError(f"mechanisms must have one entry per release ({n}), got "
                         f"{len(names)}.")
    key = tuple(sorted(_events(eps, dels, rhos, names, method).items()))
    pairs = math.fsum(d * count for (kind, _, d), count in key if kind == "pair")
    return key, min(1.0, pairs + delta_slack)


@functools.lru_cache(maxsize=256)
def _pld_epsilon(events: tuple[Counted, ...], delta: float) -> float:
    """ε at ``delta`` of the composed events' privacy loss distributions (``dp-accounting``,
    connect-the-dots, :data:`PLD_DISCRETISATION`; cached)."""
    total = _composed_pld(events, PLD_DISCRETISATION, "connect-the-dots")
    return float(total.get_epsilon_for_delta(delta)) if total is not None else 0.0


def _one_pld(kind: str, value: float, pair_delta: float, step: float, estimate: str) -> Any:
    """One event's privacy loss distribution on the grid of step ``step`` (see
    :data:`PLD_ESTIMATES`). ``dp-accounting`` is imported here, not at the top (1.7 s)."""
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld

    dots, up = estimate == "connect-the-dots", estimate != "optimistic"
    if kind == "gaussian":
        return pld.from_gaussian_mechanism(value, pessimistic_estimate=up,
                                           value_discretization_interval=step,
                                           use_connect_dots=dots)
    if kind == "laplace":
        return pld.from_laplace_mechanism(1.0 / value, pessimistic_estimate=up,
                                          value_discretization_interval=step,
                                          use_connect_dots=dots)
    if kind == "pure":
        return pld.from_randomized_response(_flip(value), 2, pessimistic_estimate=up,
                                            value_discretization_interval=step)
    if up:
        return pld.from_privacy_parameters(common.DifferentialPrivacyParameters(value, pair_delta),
                                           value_discretization_interval=step)
    # dp-accounting rounds the worst (ε, δ) pair's losses ±ε up only; the same law rounded down
    masses = {math.floor(value / step): (1.0 - pair_delta) / (1.0 + math.exp(-value))}
    low = math.floor(-value / step)
    masses[low] = masses.get(low, 0.0) + (1.0 - pair_delta) / (1.0 + math.exp(value))
    return pld.PrivacyLossDistribution.create_from_rounded_probability(
        masses, pair_delta, step, pessimistic_estimate=False)


def _composed_pld(events: tuple[Counted, ...], step: float, estimate: str) -> Any:
    """The privacy loss distribution of the composed events (None when there is none)."""
    total = None
    for (kind, value, pair_delta), count in events:
        one = _one_pld(kind, value, pair_delta, step, estimate)
        many = one.self_compose(count) if count > 1 else one
        total = many if total is None else total.compose(many)
    return total


def plan_pld(epsilons: Any, deltas: Any = None, *, rhos: Any = None, mechanisms: Any = None,
             discretisation: float = PLD_DISCRETISATION,
             estimate: str = "connect-the-dots") -> Any:
    """The privacy loss distribution of a plan of releases, composed by ``dp-accounting``.

    Each release is the event :func:`compose` counts it as under ``method="pld"`` (a Laplace
    release by its own loss distribution, any other pure release as randomised response at its
    ε, a release with a ρ as a Gaussian, an (ε, δ) pair as the worst pair; [KJH20]_), and the
    distributions are composed by convolution on a grid of step ``discretisation``.

    Parameters
    ----------
    epsilons, deltas, rhos, mechanisms
        As in :func:`compose`.
    discretisation : float, default=PLD_DISCRETISATION
        Step of the grid of privacy losses, in (0, 1].
    estimate : {"connect-the-dots", "pessimistic", "optimistic"}, default="connect-the-dots"
        How each loss distribution is put on the grid (:data:`PLD_ESTIMATES`).

    Returns
    -------
    dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution or None
        None when no release costs anything (every ε_i, δ_i and ρ_i is 0).
    """
    eps, dels = _check_plan(epsilons, deltas)
    step = check_scalar(discretisation, "discretisation", min_val=0.0, max_val=1.0)
    estimate = check_choice(estimate, "estimate", PLD_ESTIMATES)
    key, _ = _library_plan(eps, dels, _rhos(rhos, eps.size), mechanisms, "pld", 0.0)
    return _composed_pld(key, step, estimate)


@dataclass(frozen=True)
class EpsilonInterval:
    """A plan's PLD total at ``delta`` as an interval (:func:`pld_interval`)."""

    optimistic: float
    point: float
    pessimistic: float
    delta: float
    discretisation: float


def pld_interval(epsilons: Any, deltas: Any = None, delta_slack: float = 1e-6, *,
                 rhos: Any = None, mechanisms: Any = None,
                 discretisation: float = PLD_DISCRETISATION) -> EpsilonInterval:
    """ε of a plan at δ by privacy loss distributions, as an interval around the point value.

    The plan's loss distribution (:func:`plan_pld`) read at ``δ = Σ δ_i of the (ε, δ) pairs +
    delta_slack`` (the δ of :func:`compose`), discretised three ways on the grid of step
    ``discretisation`` = Δ:

    * ``point``: connect-the-dots ([DGK22]_ Algorithm 1; ``dp-accounting``'s default where it
      has it, Laplace and Gaussian releases): pessimistic, so an upper bound on the ε of exact
      accounting, and the total :func:`compose` reports under ``method="pld"`` (before it takes
      the sequential total when that is smaller);
    * ``pessimistic``: privacy buckets ([MM18]_), every privacy loss rounded up to the grid: an
      upper bound;
    * ``optimistic``: every loss rounded down: a lower bound on the ε of exact accounting of the
      same events (``dp-accounting``'s self-composition moves at most 1e-15 of mass to infinity
      even then; negligible at δ >> 1e-15).

    So the exact ε lies in ``[optimistic, point]``. Width: rounding moves each release's loss by
    less than Δ, so for k releases the composed pessimistic loss exceeds the optimistic one by
    at most kΔ outcome by outcome; as ``δ(ε) = E[(1 - e^(ε - L))_+]`` (plus the mass at
    infinity) grows with L, ``pessimistic - optimistic <= k Δ``: the interval shrinks linearly
    with Δ.

    Parameters
    ----------
    epsilons, deltas, rhos, mechanisms
        As in :func:`compose`.
    delta_slack : float, default=1e-6
        δ' in (0, 1).
    discretisation : float, default=PLD_DISCRETISATION
        Δ, in (0, 1].

    Returns
    -------
    EpsilonInterval

    Examples
    --------
    >>> got = pld_interval([0.05] * 100, mechanisms=["Laplace"] * 100)
    >>> round(got.optimistic, 4), round(got.point, 4), round(got.pessimistic, 4)
    (2.1932, 2.1933, 2.1934)
    """
    delta_slack = check_scalar(delta_slack, "delta_slack", min_val=0.0, max_val=1.0,
                               include_max=False)
    eps, dels = _check_plan(epsilons, deltas)
    step = check_scalar(discretisation, "discretisation", min_val=0.0, max_val=1.0)
    key, delta = _library_plan(eps, dels, _rhos(rhos, eps.size), mechanisms, "pld",
                               delta_slack)
    totals = dict(zip(PLD_ESTIMATES, _interval_epsilons(key, step, delta), strict=True))
    return EpsilonInterval(totals["optimistic"], totals["connect-the-dots"],
                           totals["pessimistic"], delta, step)


@functools.lru_cache(maxsize=256)
def _interval_epsilons(events: tuple[Counted, ...], step: float,
                       delta: float) -> tuple[float, ...]:
    """ε at ``delta`` of the composed events under each of :data:`PLD_ESTIMATES` (cached, as
    :func:`_pld_epsilon`: a page's plan is read again at every rerun)."""
    totals = []
    for estimate in PLD_ESTIMATES:
        total = _composed_pld(events, step, estimate)
        totals.append(float(total.get_epsilon_for_delta(delta)) if total is not None else 0.0)
    return tuple(totals)


def composition_growth(epsilon: float, delta: float = 0.0, *, counts: Sequence[int] = (),
                       delta_slack: float = 1e-6, rho: float | None = None,
                       methods: Sequence[str] = CLOSED_FORMS) -> pd.DataFrame:
    """Total epsilon of ``k`` identical releases for each ``k`` in ``counts``, per method.

    Returns a DataFrame with columns method, count, epsilon, delta (zcdp and rdp rows are
    omitted when a release with delta > 0 has no ``rho``). ``methods`` defaults to the closed
    forms: a curve of 40 counts by ``dp-accounting`` takes seconds (pure releases count as
    their worst case there, randomised response).

    >>> composition_growth(0.1, counts=[1, 100]).pivot(index="count", columns="method",
    ...     values="epsilon").round(2).to_dict("list")
    {'advanced': [0.1, 5.76], 'sequential': [0.1, 10.0], 'zcdp': [0.1, 5.76]}
    >>> composition_growth(0.1, counts=[100], methods=["rdp", "pld"])["epsilon"].round(2).tolist()
    [5.07, 4.78]
    """
    counts = list(counts) or [int(v) for v in np.unique(np.geomspace(1, 1000, 40).round())]
    rows = []
    for method in methods:
        check_choice(method, "method", COMPOSITIONS)
        for k in counts:
            try:
                e, d = compose([epsilon] * k, [delta] * k, method, delta_slack, rhos=[rho] * k)
            except ValueError:
                break
            rows.append({"method": method, "count": int(k), "epsilon": e, "delta": d})
    return pd.DataFrame(rows, columns=["method", "count", "epsilon", "delta"])


@dataclass(frozen=True)
class PlannedRelease:
    """A planned release, repeated ``count`` times: a row of the "what if" table."""

    mechanism: str
    epsilon: float
    delta: float = 0.0
    count: int = 1
    rho: float | None = None
    partition: str | None = None
    #: The rule that made ``partition`` (None: the plan's one rule; parts of different rules
    #: are not disjoint, :func:`compose_parts`).
    partition_rule: str | None = None


def _part_choices(records: list[dict[str, Any]]) -> Iterable[list[dict[str, Any]]]:
    """The releases one person is exposed to, for every choice of one part per partition.

    A partition is a ``(dataset, partition_rule)`` pair: the parts made by one rule of one
    dataset are disjoint, so a person lies in exactly one of them; parts made by different rules
    (or of different datasets) may hold the same person, so each rule gets its own choice.
    """
    parts: dict[tuple[str, Any], list[str]] = {}
    for r in records:
        if r.get("partition") is not None:
            names = parts.setdefault((r["dataset"], r.get("partition_rule")), [])
            if r["partition"] not in names:
                names.append(r["partition"])
    if not parts:
        yield list(records)
        return
    count = math.prod(len(v) for v in parts.values())
    if count > MAX_PART_CHOICES:
        raise ValueError(f"{count} combinations of parts are too many to enumerate; record "
                         "releases on fewer parts.")
    keys = list(parts)
    for choice in itertools.product(*parts.values()):
        mine = dict(zip(keys, choice, strict=True))
        yield [r for r in records if r.get("partition") is None
               or mine.get((r["dataset"], r.get("partition_rule"))) == r["partition"]]


def compose_parts(records: list[dict[str, Any]], method: str,
                  delta_slack: float) -> tuple[float, float]:
    """Compose releases under ``method``, in parallel over the parts of each partition.

    Parallel composition ([JLE14]_ Sect. 1.6): a release recorded with a ``partition`` reads
    only that part of its ``dataset``'s rows, and the parts that one ``partition_rule`` makes of
    one dataset are disjoint. A person lies in one part of each (dataset, rule), so the total is
    the largest, over one choice of part per (dataset, rule), of the composition of the releases
    without a part plus those of the chosen parts (``method`` as in :func:`compose`). Parts of
    different rules are not disjoint (a person is in one part of each): their releases add up.

    Parameters
    ----------
    records : list of dict
        Each with ``dataset``, ``partition`` (None: every row), ``epsilon``, ``delta`` and
        optionally ``partition_rule`` (None: the one unnamed rule of its dataset, e.g. a plan's),
        ``rho`` and ``mechanism``.
    method : {"sequential", "advanced", "zcdp", "rdp", "pld"}
    delta_slack : float
        δ' of the methods other than sequential (ignored by sequential).

    Examples
    --------
    >>> parts = [{"dataset": "D", "partition": p, "epsilon": 1.0, "delta": 0.0}
    ...          for p in ("north", "south", "east")]
    >>> compose_parts(parts, "sequential", 0.0)  # three regions: one person sees one release
    (1.0, 0.0)
    >>> compose_parts([*parts, {"dataset": "D", "partition": None, "epsilon": 0.5,
    ...                         "delta": 0.0}], "sequential", 0.0)
    (1.5, 0.0)
    >>> compose_parts([{"dataset": "D", "partition": "F", "partition_rule": "sex",
    ...                 "epsilon": 1.0, "delta": 0.0},
    ...                {"dataset": "D", "partition": "under 30", "partition_rule": "age",
    ...                 "epsilon": 1.0, "delta": 0.0}], "sequential", 0.0)  # two rules
    (2.0, 0.0)
    """
    best = (0.0, 0.0)
    for chosen in _part_choices(records):
        total = compose([r["epsilon"] for r in chosen], [r["delta"] for r in chosen], method,
                        delta_slack if method != "sequential" else 0.0,
                        rhos=[r.get("rho") for r in chosen],
                        mechanisms=[r.get("mechanism") for r in chosen])
        best = (max(best[0], total[0]), max(best[1], total[1]))
    return best


def pld_interval_parts(records: list[dict[str, Any]], delta_slack: float) -> EpsilonInterval:
    """:func:`pld_interval` of releases composed in parallel over the parts of each partition
    (records and parts as in :func:`compose_parts`).

    The exposure of one person is the releases of one choice of parts; the plan's ε is the
    largest over choices. For each choice the exact ε lies in ``[optimistic, point]``
    (:func:`pld_interval`), so the largest lies between the largest optimistic and the largest
    point value: each field of the result is its largest over the choices (``delta`` too).

    Raises
    ------
    ValueError
        For an empty plan, or as :func:`pld_interval` does.

    Examples
    --------
    >>> parts = [{"dataset": "D", "partition": p, "epsilon": 1.0, "delta": 0.0,
    ...           "mechanism": "Laplace"} for p in ("north", "south")]
    >>> got = pld_interval_parts(parts, 1e-6)  # one region's release: its own interval
    >>> got == pld_interval([1.0], delta_slack=1e-6, mechanisms=["Laplace"])
    True
    """
    if not records:
        raise ValueError("The plan has no release: add one to see its ε as an interval.")
    got = [pld_interval([r["epsilon"] for r in chosen], [r["delta"] for r in chosen],
                        delta_slack, rhos=[r.get("rho") for r in chosen],
                        mechanisms=[r.get("mechanism") for r in chosen])
           for chosen in _part_choices(records)]
    return EpsilonInterval(max(g.optimistic for g in got), max(g.point for g in got),
                           max(g.pessimistic for g in got), max(g.delta for g in got),
                           got[0].discretisation)


def rho_parts(records: list[dict[str, Any]]) -> float:
    """The largest zCDP ``ρ = Σ ρ_i`` one person is exposed to (parts as in
    :func:`compose_parts`): ``rho`` where a record has one, else ``ε²/2`` of a pure release
    ([BS16]_ Proposition 1.4).

    Raises
    ------
    ValueError
        For a release with δ > 0 and no ρ (zCDP cannot account for it).

    Examples
    --------
    >>> rho_parts([{"dataset": "D", "partition": None, "epsilon": 0.5, "delta": 0.0},
    ...            {"dataset": "D", "partition": None, "epsilon": 1.0, "delta": 1e-6,
    ...             "rho": 0.03}])
    0.155
    """
    best = 0.0
    for chosen in _part_choices(records):
        rho = []
        for i, r in enumerate(chosen):
            given = r.get("rho")
            if given is not None and not (isinstance(given, float) and math.isnan(given)):
                rho.append(float(given))
            elif r["delta"] > 0.0:
                raise _needs_noise(i, r["epsilon"], r["delta"], "zCDP", "sequential")
            else:
                rho.append(r["epsilon"] ** 2 / 2.0)
        best = max(best, math.fsum(rho))
    return best


def zcdp_epsilon(rho: float, delta_slack: float) -> float:
    """ε of a ρ-zCDP total at ``δ' = delta_slack``: ``ρ + 2 sqrt(ρ ln(1/δ'))`` ([BS16]_
    Proposition 1.3).

    >>> round(zcdp_epsilon(0.125, 1e-6), 3)
    2.753
    """
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta_slack))
