"""One decision on one screen: a page's release at its settings, with what it buys and costs.

:func:`decide` assembles, for a page's release (:data:`~dpcore.decision.releases.RELEASES`)
at the page's settings:

* the utility its study measured, with its spread (:attr:`Release.utility`);
* the risk: the worst-case belief that a person is in the data after the release, from a prior
  the user sets (:func:`dpcore.planning.posterior_bound`);
* the audit's empirical lower bound on the ε of one step of the release, with its runs and
  confidence (:mod:`dpcore.studies.audit`, built-in pairs: reads no scenario), and which step
  that is, at what ε, and which steps no audit here attacks (:class:`AuditScope`);
* the trade-off curve of the release's steps composed (:func:`dpcore.planning.tradeoff`) beside
  the audited step's claimed curve, with the audit's (FPR, TPR) points and their
  Clopper-Pearson boxes (:func:`tradeoff_table`);
* the budget spent and left in the session's ledger, and what this release would be charged;
* the published deployments to place its ε among (:func:`dpcore.planning.deployments`);
* each setting of the release with the data it was tuned on
  (:func:`~dpcore.decision.tuning.release_tuning`);
* for a masked release, the synthetic-data utility report
  (:func:`~dpcore.decision.synthetic.synthetic_report`).

:func:`decide` does it all from a run config (what ``python -m dpcore report`` calls); the
dashboard's decision page calls it with its scenario and its cached study and audit. Everything is
a seeded study: nothing is released and nothing is spent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

import dpcore.studies as studies
from dpcore.decision.releases import RELEASES, AuditScope, Release, release
from dpcore.decision.synthetic import synthetic_report
from dpcore.decision.tuning import release_tuning
from dpcore.masking.card import task_binning
from dpcore.planning import SHOWN_COLUMNS, deployments, epsilon_rank, posterior_bound
from dpcore.planning.attacker import attacker_table, interval_table
from dpcore.planning.tradeoff import tradeoff
from dpcore.runs import RunConfig, build_scenario
from dpcore.validation import DataError, check_probability

if TYPE_CHECKING:
    from dpcore.studies.base import Study

__all__ = ["AUDIT_CONFIDENCE", "AUDIT_RUNS", "Decision", "audit_numbers", "budget_table",
           "decide", "decision_params", "masked_report", "tradeoff_table"]

#: Runs per dataset and confidence of a decision's audit (a mechanism that refits a model per
#: run is capped by :data:`dpcore.studies.audit.REFIT_RUNS`).
AUDIT_RUNS = 30_000
AUDIT_CONFIDENCE = 0.95


@dataclass(frozen=True)
class Decision:
    """Everything a decision shows, as tables (see the module docstring).

    Attributes
    ----------
    config : RunConfig
        The page's run config (the decision's view forced): it reproduces every number.
    release : Release
    data_title, data_description : str
        The scenario's public title and description.
    epsilon : float
        The ε the release spends.
    utility, risk, audit, budget, deployments : DataFrame
        The utility rows, the risk (one row), the audit's metrics (one row), the budget (one
        row) and the published deployments.
    audit_points, tradeoff : DataFrame
        The audit's (FPR, TPR) points with their Clopper-Pearson boxes, judged against the
        audited step's claimed curve (:func:`dpcore.studies.audit.rate_points`), and the curves
        they are drawn against (:func:`tradeoff_table`).
    audit_scope : AuditScope
        Which step of the release the audit attacks, at what ε, and what it leaves out.
    tuning : DataFrame
        Each setting of the release with the data it was tuned on and what that costs
        (:func:`dpcore.decision.tuning.release_tuning`).
    synthetic : dict of DataFrame or None
        A masked release's utility report.
    takeaway : str
        The page study's two sentences on its numbers.
    """

    config: RunConfig
    release: Release
    data_title: str
    data_description: str
    epsilon: float
    utility: pd.DataFrame
    risk: pd.DataFrame
    audit: pd.DataFrame
    budget: pd.DataFrame
    deployments: pd.DataFrame
    audit_points: pd.DataFrame
    tradeoff: pd.DataFrame
    audit_scope: AuditScope
    tuning: pd.DataFrame
    synthetic: dict[str, pd.DataFrame] | None
    takeaway: str

    def numbers(self) -> dict[str, pd.DataFrame]:
        """Every table by name (what the page shows and the report writes)."""
        tables = {"utility": self.utility, "risk": self.risk, "audit": self.audit,
                  "audit_points": self.audit_points, "tradeoff": self.tradeoff,
                  "audit_scope": self.audit_scope.table(), "tuning": self.tuning,
                  "budget": self.budget,
                  "deployments": self.deployments}
        return {**tables, **(self.synthetic or {})}

    def tradeoff_sentence(self) -> str:
        """The audit's (FPR, TPR) points against the audited step's claimed curve, in words
        (:func:`dpcore.studies.audit.curve_sentence`), and which curve the release's steps
        composed draw when the audit covers one step of several."""
        tables = {"metrics": self.audit, "points": self.audit_points}
        text = studies.study("audit").curve_sentence(tables)
        if self.audit_scope.whole:
            return text
        return (f"{text} The dashed curve composes every step of the release (total ε = "
                f"{self.audit_scope.total:.3g}), each counted as randomised response: what an "
                "attacker can do against the whole release, at most.")

    def sentences(self) -> dict[str, str]:
        """Each headline number with its meaning, in a sentence, by section."""
        r, a, b = self.risk.iloc[0], self.audit.iloc[0], self.budget.iloc[0]
        risk = (f"Whatever else an attacker knows, one release at ε = {self.epsilon:g} can "
                f"raise a {100 * r['prior']:g} % belief that a given person is in the data to "
                f"at most {100 * r['posterior_at_most']:.2f} % (posterior odds at most e^ε "
                "times the prior odds). A membership test that wrongly flags 1 % of the "
                f"people not in the data catches at most {100 * r['tpr_at_1pct']:.1f} % of "
                f"those who are; at 10 % false alarms, at most {100 * r['tpr_at_10pct']:.1f} "
                f"%. By privacy loss distribution, ε at δ = {r['epsilon_delta']:g} is "
                f"{r['epsilon_point']:.4g} (between {r['epsilon_optimistic']:.4g} and "
                f"{r['epsilon_pessimistic']:.4g}) against the claimed {self.epsilon:g} at "
                "δ = 0.")
        audit = (f"{self.audit_scope.sentence()} An attacker with the best test on a hard "
                 f"pair of neighbouring datasets, {int(a['runs_per_dataset']):,} runs each, "
                 f"showed ε ≥ {a['audited_lower_bound']:.2f} at confidence "
                 f"{a['confidence']:g} for {a['mechanism']} claimed at ε = "
                 f"{a['claimed_epsilon']:.3g} (gap claimed − audited {a['gap']:.2f}): "
                 + ("above what correct noise allows: a fault." if a["flagged"] else
                    f"no fault found (correct noise allows at most "
                    f"{a['limit_on_this_pair']:.2f} on this pair; an audit can show a leak, "
                    "never prove privacy)."))
        if b["budget_set"]:
            fits = "fits in" if b["fits"] else "does not fit in"
            budget = (f"The ledger ({b['relation']}) has spent ε = {b['spent']:g} of "
                      f"{b['total']:g} in {int(b['releases'])} release(s), leaving "
                      f"{b['left']:g}; this release would be charged ε = {b['charge']:g} and "
                      f"{fits} what is left.")
        else:
            budget = (f"No session budget was given; this release would be charged ε = "
                      f"{b['charge']:g} under {b['relation']}.")
        smaller, published = epsilon_rank(self.epsilon)
        places = (f"Among {published} published deployments with an ε, {smaller} used a "
                  f"smaller ε and {published - smaller} a larger or equal one; their units "
                  "differ (per person, per user per day, ...), so they are landmarks, not a "
                  "ranking.")
        return {"utility": self.takeaway, "risk": risk, "audit": audit, "budget": budget,
                "deployments": places}


def decision_params(page: str, controls: Mapping[str, Any], seed: int) -> Any:
    """The page's study parameters from its controls, at the view that holds the utility."""
    module = studies.study(release(page).page)
    params = module.Params.from_controls({**module.CONTROLS, **controls}, seed)
    return params.replace(view=release(page).view)


def audit_numbers(case: str, epsilon: float, *, runs: int = AUDIT_RUNS,
                  confidence: float = AUDIT_CONFIDENCE, seed: int = 0) -> dict[str, pd.DataFrame]:
    """The audit study of ``case`` claimed at ``epsilon`` (reads no data): its ``metrics`` row,
    its (FPR, TPR) ``points`` and the claim's ``curve`` they are judged against
    (:func:`dpcore.studies.audit.at`; the scores behind its histogram are left out)."""
    audit = studies.study("audit")
    params = audit.Params(case=case, epsilon=float(epsilon), runs=int(runs),
                          confidence=float(confidence), seed=int(seed))
    numbers = audit.compute(None, params)
    return {name: numbers[name] for name in ("metrics", "points", "curve")}


def tradeoff_table(scope: AuditScope, claim: pd.DataFrame) -> pd.DataFrame:
    """The curves a decision draws the audit's points against, on the claim's FPR grid.

    ``claim_tpr`` is the audited step's claimed curve (``claim``, the audit's ``curve`` table:
    the points are judged against it); ``plan_tpr`` the largest TPR any membership test reaches
    against the release's steps composed, each counted as its worst case among ε-DP mechanisms
    (randomised response, [KOV17]_ Theorem 3.2), from their privacy loss distribution
    (:func:`dpcore.planning.tradeoff.tradeoff`, the f-DP view of [DRS22]_). For a pure ε-DP
    step the composed curve lies on or above the step's claimed one (composition only adds
    loss); the points' verdict (``above``) is always against the step's claim.

    References
    ----------
    .. [KOV17] Kairouz, Oh & Viswanath (2017), *The composition theorem for differential
       privacy*, IEEE Trans. Inf. Theory 63, Theorem 3.2.
    .. [DRS22] Dong, Roth & Su (2022), *Gaussian differential privacy*, JRSS B 84(1),
       Definition 2.1.

    Examples
    --------
    >>> from dpcore.releases.base import AuditScope
    >>> scope = AuditScope("laplace", 1.0, "the count", 2.0, (("the sum", 1.0),))
    >>> claim = pd.DataFrame({"fpr": [0.0, 0.01, 1.0], "tpr": [0.0, 0.0272, 1.0]})
    >>> table = tradeoff_table(scope, claim)
    >>> bool((table["plan_tpr"] >= table["claim_tpr"]).all())
    True
    """
    fpr = claim["fpr"].to_numpy(dtype=float)
    return pd.DataFrame({"fpr": fpr, "claim_tpr": claim["tpr"].to_numpy(dtype=float),
                         "plan_tpr": tradeoff(scope.steps, fpr, mechanism="pure")})


def risk_table(prior: float, epsilon: float, scope: AuditScope) -> pd.DataFrame:
    """The release's risk (one row): the belief a ``prior`` can rise to (``posterior_at_most``),
    what a membership attacker can do at 1 % and 10 % false alarms (``tpr_at_1pct``,
    ``tpr_at_10pct``: the trade-off curve of the release's steps composed, each counted as its
    worst case among ε-DP mechanisms, randomised response; :func:`dpcore.planning.attacker.
    attacker_table`) and the steps' ε by privacy loss distribution at ``epsilon_delta``
    (``epsilon_optimistic``, ``epsilon_point``, ``epsilon_pessimistic``:
    :func:`dpcore.planning.attacker.interval_table`)."""
    steps = scope.steps
    attacker = attacker_table(steps, mechanism="pure")
    interval = interval_table(steps, mechanism="pure").iloc[0]
    return pd.DataFrame([{
        "prior": prior, "epsilon": epsilon,
        "posterior_at_most": float(posterior_bound(prior, epsilon)),
        "tpr_at_1pct": float(attacker["tpr"].iloc[0]),
        "tpr_at_10pct": float(attacker["tpr"].iloc[1]),
        "epsilon_optimistic": float(interval["optimistic"]),
        "epsilon_point": float(interval["point"]),
        "epsilon_pessimistic": float(interval["pessimistic"]),
        "epsilon_delta": float(interval["delta"])}])


def budget_table(accountant: Any, epsilon: float) -> pd.DataFrame:
    """The ledger's budget, spent and left, and this release's charge (one row).

    ``accountant`` is a :class:`dpcore.accountant.BudgetAccountant` or None (no session: the
    charge is ε under the replace-one relation).
    """
    if accountant is None:
        return pd.DataFrame([{"budget_set": False, "relation": "replace one record",
                              "total": float("nan"), "spent": 0.0, "left": float("nan"),
                              "releases": 0, "charge": float(epsilon), "fits": True}])
    total, _ = accountant.budget
    spent, _ = accountant.spent
    left, _ = accountant.remaining
    charge, _ = accountant.charge(float(epsilon))
    return pd.DataFrame([{"budget_set": True, "relation": accountant.relation_text,
                          "total": float(total), "spent": float(spent), "left": float(left),
                          "releases": len(accountant), "charge": float(charge),
                          "fits": bool(charge <= left + 1e-12)}])


def masked_report(prepared: Any, epsilon: float) -> dict[str, pd.DataFrame]:
    """The synthetic-data utility report of the masking study's masked set at ``epsilon``:
    masked against the private records, both tested on the task's validation set."""
    task = prepared.task
    gen = prepared.at_epsilon(float(epsilon)).gen
    names = list(task.feature_names) or None
    return synthetic_report(gen.masked_X_, gen.masked_y_, task.X_private, task.y_private,
                            task.X_valid, task.y_valid, feature_names=names,
                            binning=task_binning(task))


def _study(module: Study, scenario: Any, params: Any) -> tuple[Any, dict]:
    """The study's prepared part and its numbers at ``params``, computed here."""
    prepared = module.prepare(scenario, params)
    return prepared, module.at(prepared, params)


def _audit(case: str, epsilon: float, seed: int) -> dict[str, pd.DataFrame]:
    return audit_numbers(case, epsilon, seed=seed)


def decide(config: RunConfig | Mapping[str, Any] | str, *,
           files: Mapping[str, bytes] | None = None, prior: float = 0.01,
           accountant: Any = None, scenario: Any = None,
           study: Callable[[Study, Any, Any], tuple[Any, dict]] = _study,
           audit: Callable[[str, float, int], dict[str, pd.DataFrame]] = _audit) -> Decision:
    """The decision on a page's release at the settings of its run config.

    Parameters
    ----------
    config : RunConfig, mapping or path
        A page's run config (its "Export this run", or a file), for a page of
        :data:`~dpcore.decision.releases.RELEASES`.
    files : mapping of role to bytes, optional
        The uploads of an upload config (as :func:`dpcore.runs.run` takes them).
    prior : float, default=0.01
        The attacker's prior belief that a given person is in the data.
    accountant : BudgetAccountant, optional
        The session's ledger (None: no budget given).
    scenario : Scenario, optional
        The scenario the config describes, when the caller holds it already (the dashboard);
        else it is built from the config and ``files``.
    study : callable, optional
        ``study(module, scenario, params) -> (prepared, numbers)``: how the page's study is
        computed (the dashboard passes its cached stages); default: computed here.
    audit : callable, optional
        ``audit(case, epsilon, seed) -> tables`` of :func:`audit_numbers` (the dashboard
        passes a cache shared by every session).

    Raises
    ------
    DataError
        When the config's page has no release, or the config cannot be used.
    """
    if not isinstance(config, RunConfig):
        config = (RunConfig.from_dict(config) if isinstance(config, Mapping)
                  else RunConfig.load(config))
    if config.page not in RELEASES:
        raise DataError(f"A report is about a release: the config's page {config.page!r} "
                        f"makes none. Export the run of one of {sorted(RELEASES)}.")
    prior = check_probability(prior, "prior", "the belief before the release, e.g. 0.01.")
    rel, module = release(config.page), studies.study(config.page)
    params = decision_params(config.page, config.controls, config.seed)
    config = RunConfig(config.page, config.scenario, {**config.controls, **params.controls()},
                       config.seed)
    data = None
    if rel.reads_scenario(params):
        data = scenario if scenario is not None else build_scenario(config.scenario, files)
    prepared, numbers = study(module, data, params)
    title, description = rel.data(params, prepared) or (data.title, data.description)
    metrics = numbers["metrics"].iloc[0]
    epsilon = rel.epsilon(metrics)
    scope = rel.audit(params, metrics)
    risk = risk_table(prior, epsilon, scope)
    synthetic = masked_report(prepared, epsilon) if config.page == "masking" else None
    audited = audit(scope.case, scope.epsilon, params.seed)
    return Decision(
        config=config, release=rel, data_title=title, data_description=description,
        epsilon=epsilon, utility=rel.utility(numbers, params), risk=risk,
        audit=audited["metrics"], audit_points=audited["points"],
        tradeoff=tradeoff_table(scope, audited["curve"]),
        budget=budget_table(accountant, epsilon),
        deployments=deployments().loc[:, list(SHOWN_COLUMNS)], audit_scope=scope,
        tuning=release_tuning(config.page, params),
        synthetic=synthetic,
        takeaway=module.takeaway(numbers, params))
