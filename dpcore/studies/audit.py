"""The privacy-audit page's study: an empirical lower bound on one mechanism's ε.

The page's numbers for a set of controls: one row of headline metrics (claimed ε, audited lower
bound, the pair's share f of the sensitivity, runs per dataset, the test's error rates) and the
held-out scores behind its histogram. :func:`prepare` runs :func:`dpcore.audit.audit` (the
threshold test of [JUO20]_ Algorithm 2 on the hypothesis-testing view of DP, [KOV15]_ Theorem
2.1) on the chosen case; :func:`at` turns its result into tables.

Every control feeds the audit, ε included: the case's mechanism is calibrated to the claimed ε
and its noise is drawn at that scale from the seed's one stream, which also splits the runs and
picks the plotted scores, so an audit at another ε is another audit (``Params.CHEAP`` is empty).

An audit runs the mechanism on built-in synthetic pairs of neighbouring datasets: it reads no
scenario, no private data, and spends no budget (a seeded study).

References
----------
.. [KOV15] Kairouz, Oh & Viswanath (2015), *The composition theorem for differential privacy*,
   ICML, Theorem 2.1.
.. [KOV17] Kairouz, Oh & Viswanath (2017), *The composition theorem for differential privacy*,
   IEEE Trans. Inf. Theory 63, Theorem 3.2 (randomised response is the worst ε-DP mechanism).
.. [JUO20] Jagielski, Ullman & Oprea (2020), *Auditing differentially private machine learning:
   how private is private SGD?*, NeurIPS, Algorithm 2.
.. [SNJ23] Steinke, Nasr & Jagielski (2023), *Privacy auditing with one (1) training run*,
   NeurIPS, Algorithm 1.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

import dpcore.audit as A
from dpcore.audit.statistics import point_against_curve
from dpcore.domains import EPSILONS, SEED, OneOf
from dpcore.planning.tradeoff import dp_tradeoff, tradeoff
from dpcore.releases.catalogue import CASE_KEYS, audit_case, one_run_case
from dpcore.simulation import Progress
from dpcore.studies.base import StudyParams
from dpcore.validation import DataError

__all__ = ["CANARIES", "CONFIDENCES", "CONTROLS", "DOMAINS", "FLOAT_RUNS",
           "REFIT_RUNS", "RUNS", "SEED_KEY", "SENSITIVITY_PAIRS", "VIEW_LABELS", "ClaimCurve",
           "Params", "at",
           "case_label", "claim_curve", "compute", "curve_sentence",
           "one_run", "one_run_table", "prepare", "rate_points", "reach_sentence", "runs_for",
           "summary_table", "takeaway", "threat_models", "verdict"]

REFIT_RUNS = 20_000  # mechanisms that refit a model per run: at most this many runs
#: The options of the page's sliders: runs per dataset, confidence, the one-run audit's
#: canaries and the floating-point attacks' runs per dataset.
RUNS = (1000, 3000, 10_000, 30_000, 100_000)
CONFIDENCES = (0.9, 0.95, 0.99)
CANARIES = (50, 100, 200, 500)
FLOAT_RUNS = (2000, 5000, 20_000, 50_000)


@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """The privacy-audit page's parameters (widget keys ``au_<field>``).

    Parameters
    ----------
    case : str
        The mechanism audited (one of :data:`dpcore.audit.CASE_KEYS`).
    epsilon : float
        The ε the mechanism claims (its noise is calibrated to it).
    runs : int
        Runs per dataset (at most :data:`REFIT_RUNS` for a mechanism that refits a model).
    confidence : float
        The audited bound is below the true ε with at least this probability.
    seed : int
        The audit's seed (``au_seed``).
    """

    PREFIX = "au_"
    CHEAP = ()  # ε sets the noise the audit draws: nothing is left for `at` to vary

    case: str = CASE_KEYS[0]
    epsilon: float = 1.0
    runs: int = 10_000
    confidence: float = 0.95


#: Neighbouring pairs per release offered for the grey-box sensitivity check.
SENSITIVITY_PAIRS = (100, 1_000, 10_000)
#: The page's controls (widget keys of pages/audit.py) with their defaults.
CONTROLS: dict[str, Any] = Params.defaults()
SEED_KEY = Params.seed_key()
#: The page has one view: none to choose.
VIEW_LABELS: dict[str, str] = {}
#: The values each control can take, as the page draws it (:mod:`dpcore.domains`), with
#: the page's one-run audit's canaries.
DOMAINS = {
    "au_case": OneOf(CASE_KEYS), "au_epsilon": OneOf(EPSILONS), "au_runs": OneOf(RUNS),
    "au_confidence": OneOf(CONFIDENCES), "au_canaries": OneOf(CANARIES),
    "au_float_runs": OneOf(FLOAT_RUNS), "au_sens_pairs": OneOf(SENSITIVITY_PAIRS),
    SEED_KEY: SEED,
}


def runs_for(case: A.AuditCase, runs: int) -> int:
    """Runs per dataset for ``case``: ``runs``, at most :data:`REFIT_RUNS` for a refit."""
    return min(int(runs), REFIT_RUNS) if case.refits else int(runs)


def case_label(key: str) -> str:
    """The mechanism ``key`` as the page lists it (a deliberate fault says so first)."""
    case = audit_case(key, 1.0)
    return ("⚠ Broken on purpose: " if case.broken else "") + case.name


def prepare(scenario: Any, params: Params, *, progress: Progress = None,
            parallel: Any = None) -> A.AuditResult:
    """Audit ``params.case`` claimed at ``params.epsilon``: :func:`dpcore.audit.audit` with
    :func:`runs_for` runs per dataset, seeded by ``params.seed``.

    Parameters
    ----------
    scenario : ignored
        The audit uses built-in pairs of datasets, never the scenario.
    params : Params
    progress, parallel : ignored
        One vectorised batch in this process: batching the runs for a progress bar would draw
        them in another order, so the page, a run and an exported script would disagree.

    Raises
    ------
    DataError
        When ``params.case`` names no mechanism.
    """
    del scenario, progress, parallel
    if params.case not in CASE_KEYS:
        raise DataError(f"Unknown mechanism {params.case!r}; expected one of "
                        f"{list(CASE_KEYS)}.")
    case = audit_case(params.case, params.epsilon)
    result = A.audit(case, runs_for(case, params.runs), confidence=params.confidence,
                     rng=params.seed)
    # A record of the audit: the case's sampler (a closure) is dropped, so the cached part holds
    # plain data that a shared store can copy.
    return dataclasses.replace(result, case=dataclasses.replace(case, sample=None))

#: False-positive rates at which the claim's curve is drawn: a linear grid and the small rates.
CURVE_FPR = np.unique(np.concatenate([np.linspace(0.0, 1.0, 201), np.geomspace(1e-4, 1e-2, 21)]))


@dataclass(frozen=True)
class ClaimCurve:
    """The curve a case's claim puts on every test's TPR, and in words which curve it is
    (:func:`claim_curve`). Called with FPRs, it returns the largest TPR the claim allows."""

    epsilon: float
    delta: float
    #: ``"laplace"`` (one Laplace-noised number), ``"pure"`` (any epsilon-DP mechanism) or
    #: ``"approximate"`` (any (epsilon, delta)-DP mechanism).
    kind: str
    name: str
    why: str

    def __call__(self, fpr: Any) -> np.ndarray:
        if self.kind == "approximate":
            return dp_tradeoff(self.epsilon, fpr, delta=self.delta)
        return tradeoff([self.epsilon], fpr, mechanism=self.kind)


def claim_curve(case: A.AuditCase) -> ClaimCurve:
    """The trade-off curve of ``case``'s claim (the f-DP view, :func:`dpcore.planning.tradeoff`).

    One Laplace-noised number (Laplace noise, scored by the output itself): the Laplace
    mechanism's own curve at the claimed epsilon, from its privacy loss distribution. Any other
    pure epsilon-DP case: randomised response at epsilon, the worst case of every epsilon-DP
    mechanism ([KOV17]_ Theorem 3.2), so a bound on this one too, looser than its own curve
    (not computed here: it depends on the noise and the pair). A case with delta > 0: the curve
    of (epsilon, delta)-DP (:func:`dpcore.planning.dp_tradeoff`).
    """
    eps, delta = float(case.epsilon), float(case.delta)
    if delta > 0.0:
        return ClaimCurve(eps, delta, "approximate", f"(ε, δ)-DP at ε = {eps:g}, δ = {delta:g}",
                          "Every (ε, δ)-DP mechanism obeys this curve; the mechanism's own "
                          f"curve ({case.noise}) is tighter, so a point near it is no fault.")
    if case.noise == "Laplace noise" and case.statistic == "the output":
        return ClaimCurve(eps, 0.0, "laplace", f"Laplace at ε = {eps:g}",
                          "The Laplace mechanism's own curve at the claimed ε, from its privacy "
                          "loss distribution: the best any attacker can do on one Laplace "
                          "release.")
    return ClaimCurve(eps, 0.0, "pure", f"randomised response at ε = {eps:g}",
                      f"The curve of randomised response, the worst case of every ε-DP "
                      f"mechanism, bounds this one too; its own curve ({case.noise}) depends "
                      "on the noise and the pair and is not computed here, so this curve is "
                      "looser and a point well below it is no sign of slack.")


def rate_points(result: A.AuditResult, curve: ClaimCurve) -> pd.DataFrame:
    """The held-out test's (FPR, TPR) points with their Clopper-Pearson boxes, against
    ``curve`` (:func:`dpcore.audit.point_against_curve`).

    Two tests on the held-out half (``runs - runs // 2`` runs per dataset), fixed on the other
    half: "D′ when the score is beyond the threshold", and its mirror "D when it is not",
    which swaps the roles of the datasets (FPR = the first test's FNR, TPR = 1 - its FPR); the
    claim bounds both, as neighbouring is symmetric. Each point is judged at level
    ``1 - (1 - confidence) / 2`` so that both boxes hold together at ``confidence``; a point
    ``above`` the curve refutes the claim.
    """
    n = result.runs - result.runs // 2
    fp, fn = int(round(result.fpr * n)), int(round(result.fnr * n))
    level = 1.0 - (1.0 - result.confidence) / 2.0
    rows = []
    for test, false_pos, true_pos in (("D′ when beyond the threshold", fp, n - fn),
                                      ("D when not beyond (mirror)", fn, n - fp)):
        point = point_against_curve(false_pos, n, true_pos, n, curve, confidence=level)
        rows.append({"test": test, **dataclasses.asdict(point)})
    return pd.DataFrame(rows)


def at(prepared: A.AuditResult, params: Params) -> dict[str, pd.DataFrame]:
    """The page's numbers: ``metrics`` (one row) and ``scores`` (the held-out scores on D and
    D′ behind the histogram, which clips them to their 0.2 %-99.8 % quantiles).

    ``metrics`` holds the claim (``claimed_epsilon``, ``delta``), the bound
    (``audited_lower_bound`` at ``confidence``), ``runs_per_dataset``, the pair's share ``f``
    of the sensitivity and what correct noise allows on it (``limit_on_this_pair``), the
    largest bound those runs can show (``ceiling``, :func:`dpcore.audit.audit_ceiling`), what
    they can expect to show on correct noise where its trade-off function is known (``reach``,
    :func:`dpcore.audit.audit_reach`: the Gaussian's; NaN for the others), the held-out test
    (``threshold``, ``fpr``, ``fnr`` and their upper bounds), the verdict (``above_claim``,
    ``flagged``), the ``statistic`` scored, and the noise law in words (``noise``, ``linear``:
    its loss is linear in the distance, ``limit_note``: what limits the loss on this pair),
    the ``gap`` (claimed minus audited), the claim's ``curve`` and ``curve_note``
    (:func:`claim_curve`) and ``bug`` (a point of ``points`` above it).

    ``points`` are the test's (FPR, TPR) points against the claim's curve (:func:`rate_points`)
    and ``curve`` is that curve at :data:`CURVE_FPR` (columns ``fpr``, ``tpr``).
    """
    del params
    result, case = prepared, prepared.case
    curve = claim_curve(case)
    points = rate_points(result, curve)
    metrics = pd.DataFrame([{
        "mechanism": case.name, "broken_on_purpose": bool(case.broken),
        "claimed_epsilon": float(case.epsilon), "delta": float(case.delta),
        "audited_lower_bound": float(result.epsilon_lb), "confidence": float(result.confidence),
        "runs_per_dataset": int(result.runs), "f": float(case.fraction),
        "limit_on_this_pair": float(case.pair_limit),
        "ceiling": float(A.audit_ceiling(result.runs, result.confidence, case.delta)),
        "threshold": float(result.threshold), "fpr": float(result.fpr), "fnr": float(result.fnr),
        "fpr_upper": float(result.fpr_upper), "fnr_upper": float(result.fnr_upper),
        "above_claim": bool(result.above_claim), "flagged": bool(result.flagged),
        "statistic": case.statistic, "noise": case.noise, "linear": bool(case.linear),
        "limit_note": case.limit_note, "reach": _reach(case, result),
        "gap": float(case.epsilon) - float(result.epsilon_lb), "curve": curve.name,
        "curve_note": curve.why, "bug": bool(points["above"].any()),
    }])
    s0, s1 = np.asarray(result.scores_d), np.asarray(result.scores_dprime)
    scores = pd.DataFrame({"dataset": ["D"] * s0.size + ["D′"] * s1.size,
                           "score": np.concatenate([s0, s1])})
    return {"metrics": metrics, "scores": scores, "points": points,
            "curve": pd.DataFrame({"fpr": CURVE_FPR, "tpr": curve(CURVE_FPR)})}


def _reach(case: A.AuditCase, result: A.AuditResult) -> float:
    """:func:`dpcore.audit.audit_reach` of the case's runs, NaN without a trade-off function."""
    if case.tradeoff is None:
        return float("nan")
    return A.audit_reach(case.tradeoff, result.runs, result.confidence, case.delta)


def compute(scenario: Any, params: Params, *, progress: Progress = None,
            parallel: Any = None) -> dict[str, pd.DataFrame]:
    """The page's numbers: :func:`at` of :func:`prepare`.

    Examples
    --------
    >>> numbers = compute(None, Params(runs=1000))
    >>> float(numbers["metrics"].loc[0, "audited_lower_bound"]) <= 1.0
    True
    """
    return at(prepare(scenario, params, progress=progress, parallel=parallel), params)


def curve_sentence(numbers: Mapping[str, pd.DataFrame]) -> str:
    """The audit's (FPR, TPR) points against the claim's curve, in words (``numbers`` of
    :func:`at`): the first point above the curve as a bug, or that none is."""
    m, points = numbers["metrics"].iloc[0], numbers["points"]
    above = points[points["above"]]
    if len(above):
        p = above.iloc[0]
        return (f"Bug: the test \"{p['test']}\" has a true-positive rate of at least "
                f"{p['tpr_low']:.3f} at a false-positive rate of at most {p['fpr_high']:.3f}, "
                f"where the claim ({m['curve']}) allows at most {p['allowed']:.3f} "
                f"(confidence {m['confidence']:g} for both points together). The claim does "
                "not hold.")
    return (f"Both points lie within what the claim allows (lower TPR under the curve at the "
            f"upper FPR, confidence {m['confidence']:g} for both together): the audit found no "
            "bug; it cannot prove the claim.")


def summary_table(metrics: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """The table of every mechanism: the ``metrics`` rows of several audits (:func:`at`), one
    row each, with the columns the page shows (named in words)."""
    table = pd.concat(list(metrics), ignore_index=True)
    table.columns = table.columns.str.replace("_", " ")
    return table[["mechanism", "broken on purpose", "claimed epsilon", "audited lower bound",
                  "gap", "confidence", "runs per dataset", "f", "limit on this pair", "flagged"]]


def one_run(key: str, params: Params, canaries: int) -> A.OneRunOutcome:
    """The one-run audit ([SNJ23]_ Algorithm 1, :func:`dpcore.audit.one_run`) of the release
    ``key`` (one of :data:`~dpcore.releases.catalogue.ONE_RUN_KEYS`) claimed at
    ``params.epsilon`` with ``canaries`` canaries, at ``params.confidence`` and seeded by
    ``params.seed``: a study (seeded, built-in canaries), not a release."""
    return A.one_run(one_run_case(key, params.epsilon, canaries),
                     confidence=params.confidence, rng=params.seed)


def one_run_table(outcomes: Iterable[A.OneRunOutcome],
                  many: Mapping[str, A.AuditResult]) -> pd.DataFrame:
    """Each release's one-run audit beside the many-run audit of the same release, one row
    each: the claim, both bounds, their gaps to it, and the cost of each (runs of the
    mechanism, and the measured seconds: they vary with the machine and its load).

    Parameters
    ----------
    outcomes : iterable of OneRunOutcome
        :func:`one_run` of each release.
    many : mapping
        The many-run audit (:func:`prepare`) of each outcome's ``audited`` case, at the same
        ε, confidence and seed.

    Returns
    -------
    DataFrame
        Columns ``release``, ``claimed epsilon``, ``many-run bound``, ``one-run bound``,
        their gaps to the claim (``many-run gap``, ``one-run gap``), ``right guesses``,
        ``most one run can show`` (every guess right), the costs (``many-run runs``,
        ``one-run runs``, ``many-run seconds``, ``one-run seconds``), ``canaries``,
        ``above the claim`` (either bound) and ``note`` (what caps the one-run design).
    """
    rows = []
    for one in outcomes:
        m = many[one.audited]
        rows.append({
            "release": one.name, "claimed epsilon": one.epsilon,
            "many-run bound": float(m.epsilon_lb), "one-run bound": one.epsilon_lb,
            "many-run gap": one.epsilon - m.epsilon_lb,
            "one-run gap": one.epsilon - one.epsilon_lb,
            "right guesses": f"{one.correct} / {one.guesses}",
            "most one run can show": one.most, "many-run runs": 2 * int(m.runs),
            "one-run runs": 1, "many-run seconds": float(m.seconds),
            "one-run seconds": one.seconds, "canaries": one.canaries,
            "above the claim": bool(one.above_claim or m.above_claim),
            "note": one.note})
    return pd.DataFrame(rows)


def _span(runs: pd.Series) -> str:
    """"1,000 to 20,000 runs" (or "20,000 runs each" when every row ran as often)."""
    low, high = int(runs.min()), int(runs.max())
    return f"{low:,} runs each" if low == high else f"{low:,} to {high:,} runs"


def threat_models(table: pd.DataFrame) -> str:
    """What each threat model showed on these releases, in words with the numbers of
    :func:`one_run_table`: the many-run audits' bounds and cost, the one-run audits' bounds,
    what one run could show at most with every guess right, and its cost."""
    claim = float(table["claimed epsilon"].iloc[0])
    best_many = table.loc[table["many-run bound"].idxmax()]
    best_one = table.loc[table["one-run bound"].idxmax()]
    canaries, most = int(table["canaries"].iloc[0]), float(table["most one run can show"].max())
    many = (
        f"**Many runs** (two fixed neighbouring datasets, the output seen each time): the "
        f"strongest attacker DP guards against, tight at its pair. Here its bounds reach "
        f"{table['many-run bound'].min():.2f} to {best_many['many-run bound']:.2f} "
        f"(claimed {claim:g}), at {_span(table['many-run runs'])} of the mechanism "
        f"({table['many-run seconds'].sum():.2f} s in all); where each run trains a model, "
        "that many trainings.")
    if best_one["one-run bound"] > 0.0:
        shown = (f"its bounds reach at most {best_one['one-run bound']:.2f} "
                 f"({best_one['release']}, {best_one['right guesses']} right)")
    else:
        shown = "no release's right guesses refute even ε = 0"
    one = (
        f"**One run** ({canaries:,} canaries, each in or out by a coin, one output): one run "
        f"of each mechanism ({table['one-run seconds'].sum():.2f} s in all), as cheap as a "
        f"real deployment; {shown}. With every guess right it could show at most "
        f"{most:.2f}: "
        + ("the claim is within its reach at this many canaries, but a release that spreads "
           "its noise over many coordinates while each canary moves only its own shows far "
           "less (each row's note says what caps it)." if most > claim else
           f"less than the claim {claim:g}, so at this many canaries one run cannot refute "
           "it whatever the noise; more canaries raise that ceiling."))
    return f"{many}\n\n{one}"


def reach_sentence(m: Mapping[str, Any]) -> str:
    """What the runs can show on correct noise (``reach`` of a ``metrics`` row of :func:`at`),
    in words; "" when it is unknown (NaN)."""
    reach = float(m["reach"])
    if not np.isfinite(reach):
        return ""
    runs = f"With {int(m['runs_per_dataset']):,} runs per dataset"
    if reach <= 0.0:
        return (f"{runs}, even a test that knew the best threshold would typically show nothing "
                f"(ε ≥ 0) on correctly calibrated {m['noise']} at this ε and δ: the audit cannot "
                "see it at these runs. Raise the runs or ε.")
    return (f"{runs}, a test that knew the best threshold would typically show ε ≥ {reach:.2f} "
            f"on correctly calibrated {m['noise']} at this ε and δ: a bound near that is all "
            "these runs can show.")


def verdict(m: Mapping[str, Any]) -> str:
    """The page's verdict on one audit (a ``metrics`` row of :func:`at`), worded for its noise.

    A flagged audit says which limit the outputs broke: the claim, or, for a loss linear in the
    distance, the pair's limit f × ε of its noise; an audit that is not says that the noise is
    at least this strong, what limits the loss on this pair (``limit_note``) and, where it is
    known, what these runs can show (:func:`reach_sentence`).
    """
    lb, claim, conf = m["audited_lower_bound"], m["claimed_epsilon"], m["confidence"]
    if m["flagged"] and m["above_claim"]:
        return (f"The outputs on the two datasets are easier to tell apart than ε = {claim:g} "
                f"allows: the audit shows ε ≥ {lb:.2f} (confidence {conf:g}). The noise is too "
                "weak.")
    if m["flagged"]:
        return (f"The outputs on the two datasets are easier to tell apart than correctly "
                f"calibrated {m['noise']} allows on this pair: the audit shows ε ≥ {lb:.2f} "
                f"(confidence {conf:g}), and on this pair, a share f = {m['f']:.2f} of the "
                f"sensitivity apart, such noise loses at most f × ε = "
                f"{m['limit_on_this_pair']:.2f}. The noise is too weak.")
    text = (f"The noise is at least this strong: on this pair no test did better than ε = "
            f"{lb:.2f} (claimed {claim:g}, confidence {conf:g}). {m['limit_note']}")
    reach = reach_sentence(m)
    return f"{text} {reach}" if reach else text


def takeaway(numbers: Mapping[str, pd.DataFrame], params: Params) -> str:
    """Two sentences on the audited bound against the claim, from the numbers, worded for the
    mechanism's noise (its share f of the sensitivity where the loss is linear in it, what the
    runs can show where that is known)."""
    m = numbers["metrics"].iloc[0]
    runs = int(m["runs_per_dataset"])
    first = (f"{m['mechanism']} claims ε = {m['claimed_epsilon']:g}; {runs:,} "
             f"runs on each dataset of its hard pair show ε ≥ {m['audited_lower_bound']:.2f} "
             f"at confidence {m['confidence']:g}.")
    limit = (f"the {m['limit_on_this_pair']:.2f} that correctly calibrated {m['noise']} allows "
             "on this pair")
    if m["flagged"]:
        second = f"That is above {limit}: the audit caught a fault, the noise is too weak."
    elif m["linear"]:
        second = (f"That stays below {limit} (a share f = {m['f']:.2f} of the sensitivity), so "
                  "the audit found no fault (it cannot prove privacy).")
    elif np.isfinite(m["reach"]):
        second = (f"That stays below {limit}, where these runs typically show about "
                  f"{m['reach']:.2f}, so the audit found no fault (it cannot prove privacy).")
    else:
        second = (f"That stays below {limit}, so the audit found no fault (it cannot prove "
                  "privacy).")
    return f"{first} {second}"
