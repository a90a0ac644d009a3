"""A privacy budget and the ledger of what has been released against it.

A data owner sets a budget (E, Δ). Every release spends from it *before* its noise is drawn:
:meth:`BudgetAccountant.spend` checks the release against the budget and raises
:class:`BudgetExceeded` before anything is recorded when it does not fit. The ledger promises one
thing, whichever rule it refuses by (below): **the releases it accepts are together (E, Δ)-DP**
under its neighbouring relation, for the largest budget set in the session.

One neighbouring relation per ledger
------------------------------------
An epsilon means something only under a neighbouring relation, so a ledger has one
(:attr:`BudgetAccountant.relation`, chosen while it is empty): ``"replace"`` (two datasets of the
same size differ in one record; the default, and the relation of every model release of the
product, whose noise uses the public number of records) or ``"add_remove"`` (one dataset has one
record more). A release states the relation its noise was calibrated under and is charged what
it costs under the ledger's (:meth:`BudgetAccountant.charge`):

* calibrated under add/remove, in a replace-one ledger: replacing a record is removing one and
  adding one, so by group privacy for two steps an (ε, δ) release costs (2ε, (1 + e^ε) δ)
  ([DR14]_ Theorem 2.2, group privacy, with the δ term of its proof);
* calibrated under replace-one, in an add/remove ledger: refused. Such a release may use the
  number of records (every model release here does, in its noise scale), which one added record
  changes: no finite ε bounds it under add/remove.

Parallel composition
--------------------
([JLE14]_ Sect. 1.6, "parallel theorem".) A release recorded with a ``partition`` and its
``partition_rule`` reads only the rows that the rule puts in that part of ``dataset``. The parts
that *one* rule makes of one dataset are disjoint, so under add/remove a person's record lies in
exactly one of them: a person is exposed to the releases without a partition plus those of
their own part of each (dataset, rule). Every total is the largest, over the choice of one part
per (dataset, rule), of the composition of those releases (sequentially: the unpartitioned sum
plus the largest part's sum). Parts made by *different* rules are not disjoint (a person is in
one part of each), so their releases add up. Under replace-one a replaced record can move
between parts and change two of them, so a replace-one ledger refuses partitions: release all
parts as one vector with its replace-one sensitivity instead (:mod:`dpcore.primer` does).

The guarantee, when each release is chosen after the last
---------------------------------------------------------
The user chooses each release after seeing the earlier ones, so the rule that accepts a release
must be a *privacy filter*: a condition on the parameters chosen so far that keeps its
guarantee for adaptively chosen parameters ([RRUV16]_; [WRRW23]_). The ledger checks its
condition on the ledger *with* the new release, so every ledger it ends with satisfies it.
:meth:`BudgetAccountant.set_composition` chooses the condition:

* ``"sequential"`` (the default), condition S(Δ): ``Σ ε_i <= E`` and ``Σ δ_i <= Δ``.
  Sequential composition is a valid filter ([RRUV16]_ Sect. 3; [WRRW23]_): (E, Δ)-DP.
* ``"zcdp"``, with a δ' held out of Δ: accept when the ledger satisfies S(Δ - δ'), or
  Z: ``Δ >= δ'``, every release has a zCDP ρ_i (ε_i²/2 for a pure release, [BS16]_
  Proposition 1.4; a Gaussian's from its noise) and ``ρ + 2 sqrt(ρ ln(1/δ')) <= E`` with
  ``ρ = Σ ρ_i``. Z alone is a filter: a budget on Σ ρ_i bounds the Rényi divergence of the
  adaptively composed releases at every order α by α ρ (the Rényi filter of [FZ21]_ at every α
  at once; [WRRW23]_ for zCDP), so such a session is ρ-zCDP, hence (E, δ')-DP ([BS16]_
  Proposition 1.3).

Why "S or Z" costs the *sum* of their δ. Lemma: let A and B be conditions that hold on every
earlier state of a ledger that satisfies them (both sums only grow), and let "accept while A"
be (E, δ_A)-DP and "accept while B" (E, δ_B)-DP for every analyst. Then "accept when A or B
holds" is (E, δ_A + δ_B)-DP. Proof: every final ledger satisfies A or B. Split an output event O
into O_A (the final ledger satisfies A) and O_B (B, not A). A run in O_A accepted only releases
with which A held, and refused only releases with which A failed, so it is also a run of the
A-filter with the same analyst and the same outputs: O_A is an event of the A-filter, and
``P_D[O_A] <= e^E P_D'[O_A] + δ_A``. Likewise for O_B, and the sum gives
``P_D[O] <= e^E P_D'[O] + δ_A + δ_B``. With δ_A = Δ - δ' and δ_B = δ' the session is (E, Δ)-DP.
The rule before issue 33 took S at the whole Δ: its guarantee was (E, Δ + δ'), up to twice the
δ budget, not the (E, δ') its documentation stated. (With pure releases only, S has δ = 0 and
the whole is (E, δ').) With ``Δ < δ'``, Z is off and S(0) accepts pure releases only.

The filter (method and δ') is fixed once a release is recorded: a filter switched after a
release lets some sessions end under one condition and others under the other, which is the
union above with S at the whole Δ. The budget may move: S and Z only grow with (E, Δ), so every
ledger a session ends with satisfies the condition at the largest budget it set, and the
guarantee is that of that budget (raising the budget after seeing releases is a choice made
after them: the guarantee is that of the largest budget the owner would raise it to).

Advanced composition ([KOV15]_ Theorem 3.5) and the RDP and PLD totals assume the ε_i fixed in
advance, so they never refuse here; :func:`dpcore.composition.compose` gives them as "what if"
totals of a declared plan.

What a caller states, and what is checked
-----------------------------------------
* ``rho``: a pure release (δ = 0) counts ε²/2, the bound for every ε-DP mechanism; a smaller
  declared ρ is refused (nothing checkable implies it). With ``noise`` (a
  :class:`dpcore.mechanisms.Mechanism`) the ledger computes ρ from the mechanism's noise and
  sensitivity (:attr:`dpcore.mechanisms.Mechanism.rho`) and checks that its (ε, δ) are the
  ones charged. A bare ρ of a release with δ > 0 is a *precondition* (the release is ρ-zCDP);
  the ledger only refuses one below ``ρ_min(ε, δ)``, the ρ whose conversion ([BS16]_
  Proposition 1.3) gives back ε at δ: a smaller ρ would make the release better than its
  declared (ε, δ), a pair whose two halves disagree.
* ``partition`` and ``partition_rule``: the ledger requires the rule's name, charges different
  rules and datasets in sequence and refuses partitions under replace-one. Preconditions it
  cannot check: the rule puts every record in one part by that record's own values (a column's
  value, or a public function of it), is fixed without looking at the private data as a whole,
  and is the only rule recorded under its name; a release labelled with a part reads only the
  rows the rule puts there.

Modelled on IBM diffprivlib's ``BudgetAccountant`` (``accountant.py``).

References
----------
.. [DR14] Dwork & Roth (2014), *The algorithmic foundations of differential privacy*, Found.
   Trends Theor. Comput. Sci. 9, Theorem 3.16 (basic composition).
.. [JLE14] Ji, Lipton & Elkan (2014), *Differential privacy and machine learning: a survey and
   review*, arXiv:1412.7584, Sect. 1 (privacy budget) and Sect. 1.6 (parallel theorem).
.. [KOV15] Kairouz, Oh & Viswanath (2015), *The composition theorem for differential privacy*,
   ICML, Theorem 3.5.
.. [BS16] Bun & Steinke (2016), *Concentrated differential privacy*, TCC, Propositions 1.3-1.6.
.. [RRUV16] Rogers, Roth, Ullman & Vadhan (2016), *Privacy odometers and filters: pay-as-you-go
   composition*, NeurIPS.
.. [FZ21] Feldman & Zrnic (2021), *Individual privacy accounting via a Rényi filter*, NeurIPS
   (the Rényi filter, Sect. 3).
.. [WRRW23] Whitehouse, Ramdas, Rogers & Wu (2023), *Fully-adaptive composition in differential
   privacy*, ICML (filters for approximate DP and for Rényi DP / zCDP).
"""

from __future__ import annotations

import math
import numbers
import threading
from collections.abc import Iterable
from typing import Any

import pandas as pd

from dpcore.composition import (
    COMPOSITIONS,
    PLAN_DATASET,
    PlannedRelease,
    compose_parts,
    rho_parts,
    zcdp_epsilon,
)
from dpcore.mechanisms import Mechanism
from dpcore.validation import DataError, check_choice, check_scalar, check_str

__all__ = ["BudgetExceeded", "BudgetAccountant", "COMPOSITIONS", "DEFAULT_DELTA_SLACK",
           "FILTERS", "RELATIONS", "rho_floor"]

#: Neighbouring relations of a ledger, by key.
RELATIONS = {"replace": "replace one record", "add_remove": "add or remove one record"}
#: The compositions that may refuse releases chosen one after another (module docstring).
FILTERS = ("sequential", "zcdp")

# A release may use the budget exactly: sums of floats such as 0.1 + 0.2 + 0.7 may exceed 1.0 by
# a rounding error, which this relative slack absorbs.
SLACK = 1e-9

LEDGER_COLUMNS = ("mechanism", "dataset", "epsilon", "delta", "relation", "time", "note")
#: The ledger with what composition needs besides: ``partition``, ``partition_rule`` and
#: ``rho`` (see ``records``).
RECORD_COLUMNS = (*LEDGER_COLUMNS, "partition", "partition_rule", "rho")
#: delta' of advanced and zCDP composition unless set otherwise.
DEFAULT_DELTA_SLACK = 1e-6


class BudgetExceeded(DataError):
    """A release would spend more than the remaining privacy budget; nothing was recorded."""


def rho_floor(epsilon: float, delta: float) -> float:
    """The smallest ρ a release declared (epsilon, delta)-DP may state: the ρ whose zCDP
    conversion ``ρ + 2 sqrt(ρ ln(1/δ))`` ([BS16]_ Proposition 1.3) gives back ``epsilon``.

    A smaller ρ would make the release (ε', δ)-DP with ε' < ε: its declared pair and its ρ
    disagree. A Gaussian calibrated to (ε, δ) (analytic, or OpenDP's release σ) lies above it.

    >>> round(rho_floor(1.0, 1e-6), 5)  # ε²/2 = 0.5 for a pure release at ε = 1
    0.01747
    """
    log_term = math.log(1.0 / delta)
    return (math.sqrt(log_term + epsilon) - math.sqrt(log_term)) ** 2


def _check_budget(epsilon: Any, delta: Any) -> tuple[float, float]:
    """A ledger's budget: epsilon >= 0, where None or infinity means unlimited (which no
    general check allows), and delta in [0, 1]."""
    if epsilon is None:
        epsilon = math.inf
    elif isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(
            f"epsilon must be a number or None (unlimited), got {type(epsilon).__name__} "
            f"({epsilon!r})."
        )
    elif float(epsilon) == math.inf:
        epsilon = math.inf
    else:
        epsilon = check_scalar(epsilon, "epsilon", min_val=0.0, include_min=True)
    return epsilon, check_scalar(delta, "delta", min_val=0.0, max_val=1.0, include_min=True)


def _check_release(epsilon: Any, delta: Any) -> tuple[float, float]:
    """The (epsilon, delta) a release charges: epsilon >= 0 and delta in [0, 1)."""
    epsilon = check_scalar(epsilon, "epsilon", min_val=0.0, include_min=True)
    delta = check_scalar(
        delta, "delta", min_val=0.0, max_val=1.0, include_min=True, include_max=False
    )
    return epsilon, delta


#: Said when a label of the ledger is not a str or is blank.
_LABEL = ("Name it so the ledger says what was released (e.g. mechanism='Laplace', "
          "dataset='adult', partition='sex = F', partition_rule='sex').")
#: Said when a relation is not one of :data:`RELATIONS`.
_RELATION = "; ".join(f"{key!r}: {text}" for key, text in RELATIONS.items()) + "."


def _check_partition(partition: Any, rule: Any) -> tuple[str | None, str | None]:
    """The part a release reads and the rule that made it (both None for all rows): a
    partition needs its rule and a rule its partition (module docstring)."""
    if partition is None:
        if rule is not None:
            raise ValueError(
                f"partition_rule == {rule!r} without a partition; pass the part the release "
                "reads (e.g. partition='sex = F', partition_rule='sex'), or neither."
            )
        return None, None
    partition = check_str(partition, "partition", allow_empty=False, advice=_LABEL)
    if rule is None:
        raise ValueError(
            f"partition == {partition!r} needs its partition_rule: the name of the rule that "
            "made the parts (e.g. partition_rule='sex' for partition='sex = F'). Parts of one "
            "rule are disjoint and compose in parallel; parts of different rules may hold the "
            "same person and are charged in sequence."
        )
    return partition, check_str(rule, "partition_rule", allow_empty=False, advice=_LABEL)


def _release_rho(epsilon: float, delta: float, rho: float | None,
                 noise: Mechanism | None) -> float | None:
    """The ρ the ledger counts for a release of (epsilon, delta) under its own relation:
    None for a pure release (counted as ε²/2), the mechanism's with ``noise``, else the
    declared ρ once checked (module docstring)."""
    if noise is not None:
        if rho is not None:
            raise ValueError("Pass rho or noise, not both: with noise the ledger computes ρ "
                             "from the mechanism.")
        if not isinstance(noise, Mechanism):
            raise TypeError(f"noise must be a dpcore.mechanisms.Mechanism, got "
                            f"{type(noise).__name__}.")
        if (noise.epsilon, noise.delta) != (epsilon, delta):
            raise ValueError(
                f"noise is calibrated to (ε = {noise.epsilon:g}, δ = {noise.delta:g}), but the "
                f"release is charged (ε = {epsilon:g}, δ = {delta:g}); charge what its noise "
                "gives."
            )
        return None if delta == 0.0 else noise.rho
    if delta == 0.0:
        pure = epsilon * epsilon / 2.0
        if rho is not None and rho < pure * (1.0 - SLACK):
            raise ValueError(
                f"rho == {rho:g} is below ε²/2 = {pure:g} of a pure ε = {epsilon:g} release. "
                "The ledger counts a pure release as ε²/2, the zCDP bound that holds for every "
                "ε-DP mechanism (Bun & Steinke 2016, Prop. 1.4); a smaller ρ cannot be checked. "
                "Leave rho out, or for a Gaussian release pass its δ > 0 and noise=<Gaussian>."
            )
        return None
    if rho is not None:
        floor = rho_floor(epsilon, delta)
        if rho < floor * (1.0 - SLACK):
            raise ValueError(
                f"rho == {rho:g} is below {floor:g}, the ρ whose zCDP guarantee converts to "
                f"the declared (ε = {epsilon:g}, δ = {delta:g}) (Bun & Steinke 2016, Prop. "
                "1.3): with it the release would be more private than declared. Pass the "
                "mechanism as noise=... so that the ledger computes ρ, declare the (ε, δ) "
                "this ρ gives, or leave rho out."
            )
    return rho


def _fits(spent: float, extra: float, budget: float) -> bool:
    return math.isinf(budget) or spent + extra <= budget * (1.0 + SLACK)


def _releases(n: int) -> str:
    return f"{n} release" if n == 1 else f"{n} releases"


class BudgetAccountant:
    """A privacy budget (epsilon, delta), spent release by release through a privacy filter.

    Parameters
    ----------
    epsilon : float or None, default=None
        The total epsilon, >= 0; ``None`` (or ``inf``) means unlimited.
    delta : float, default=0.0
        The total delta, in [0, 1]; 0 allows only pure epsilon-DP releases.
    relation : {"replace", "add_remove"}, default="replace"
        The neighbouring relation every epsilon of this ledger is counted under (module
        docstring).

    Attributes
    ----------
    budget : tuple of (float, float)
        The budget (epsilon, delta): what the accepted releases are together (module
        docstring, "The guarantee").
    spent : tuple of (float, float)
        What the recorded releases compose to sequentially.
    remaining : tuple of (float, float)
        ``budget - spent``, never below 0.
    ledger : pandas.DataFrame
        One row per release: mechanism, dataset, epsilon and delta (as charged under the
        ledger's relation), relation (the one the release was calibrated under), time (UTC),
        note.
    relation : str
        The ledger's neighbouring relation (a key of :data:`RELATIONS`).

    Notes
    -----
    ``len(accountant)`` is the number of releases; an accountant is always truthy, also when
    nothing has been spent, so ``if accountant:`` tests for presence, not for spending.

    Examples
    --------
    >>> acc = BudgetAccountant(epsilon=1.0)
    >>> acc.spend(0.3, mechanism="Laplace", dataset="adult", note="mean age")
    >>> acc.spend(0.5, mechanism="Laplace", dataset="adult")
    >>> acc.spent, len(acc)
    ((0.8, 0.0), 2)
    >>> acc.spend(0.5, mechanism="Laplace", dataset="adult")
    Traceback (most recent call last):
    ...
    dpcore.accountant.BudgetExceeded: This release needs ε = 0.5, but 0.2 of the budget ε = 1 \
remains (0.8 spent in 2 releases). Raise the budget, or lower ε.
    >>> list(acc.ledger.columns)
    ['mechanism', 'dataset', 'epsilon', 'delta', 'relation', 'time', 'note']
    >>> acc.charge(0.1, relation="add_remove")  # group privacy in a replace-one ledger
    (0.2, 0.0)
    """

    def __init__(self, epsilon: float | None = None, delta: float = 0.0, *,
                 relation: str = "replace") -> None:
        self._epsilon, self._delta = _check_budget(epsilon, delta)
        self._relation = check_choice(relation, "relation", tuple(RELATIONS), advice=_RELATION)
        self._records: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._method = "sequential"
        self._slack = DEFAULT_DELTA_SLACK

    # ---- state -------------------------------------------------------------------------------

    @property
    def budget(self) -> tuple[float, float]:
        return self._epsilon, self._delta

    @property
    def spent(self) -> tuple[float, float]:
        return self.total("sequential")

    @property
    def relation(self) -> str:
        return self._relation

    @property
    def relation_text(self) -> str:
        """The ledger's relation in words, e.g. "replace one record"."""
        return RELATIONS[self._relation]

    def set_relation(self, relation: str) -> None:
        """Choose the ledger's neighbouring relation; only while nothing has been released.

        Raises
        ------
        ValueError
            For an unknown relation, or once a release is recorded (its ε was counted under the
            old relation).
        """
        relation = check_choice(relation, "relation", tuple(RELATIONS), advice=_RELATION)
        with self._lock:
            if self._records and relation != self._relation:
                raise ValueError(
                    f"This ledger already counts {_releases(len(self._records))} under "
                    f"'{self.relation_text}'; its relation cannot change. Start a new session "
                    "to count under another relation."
                )
            self._relation = relation

    def charge(self, epsilon: float, delta: float = 0.0, *,
               relation: str | None = None) -> tuple[float, float]:
        """What a release of (epsilon, delta) calibrated under ``relation`` costs in this ledger.

        Parameters
        ----------
        epsilon, delta : float
            The release's guarantee under its own relation.
        relation : {"replace", "add_remove"} or None, default=None
            The relation its noise was calibrated under; None: the ledger's own.

        Returns
        -------
        tuple of (float, float)
            ``(epsilon, delta)`` under the same relation; ``(2 epsilon, (1 + e^epsilon) delta)``
            for an add/remove release in a replace-one ledger (module docstring).

        Raises
        ------
        DataError
            For a replace-one release in an add/remove ledger: it has no finite cost there.
        """
        epsilon, delta = _check_release(epsilon, delta)
        relation = self._relation if relation is None else check_choice(
            relation, "relation", tuple(RELATIONS), advice=_RELATION)
        if relation == self._relation:
            return epsilon, delta
        if relation == "add_remove":  # replace = remove + add: group privacy of size 2
            return 2.0 * epsilon, min(1.0, (1.0 + math.exp(epsilon)) * delta)
        raise DataError(
            "This release is calibrated under 'replace one record': its noise uses the number "
            "of records, which one added or removed record changes, so it has no finite cost "
            "under this session's relation 'add or remove one record'. Choose 'replace one "
            "record' for the session's budget (possible while nothing is released), or start a "
            "new session."
        )

    @property
    def remaining(self) -> tuple[float, float]:
        eps, delta = self.spent
        return max(self._epsilon - eps, 0.0), max(self._delta - delta, 0.0)

    def __len__(self) -> int:
        return len(self._records)

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        eps = "None" if math.isinf(self._epsilon) else repr(self._epsilon)
        spent_eps, spent_delta = self.spent
        return (
            f"BudgetAccountant(epsilon={eps}, delta={self._delta!r}) with "
            f"{_releases(len(self))} spending epsilon={spent_eps:g}, delta={spent_delta:g}"
        )

    def total(self, method: str = "sequential",
              delta_slack: float | None = None) -> tuple[float, float]:
        """The (epsilon, delta) that the recorded releases compose to, under the ledger's relation.

        Parameters
        ----------
        method : {"sequential", "advanced", "zcdp", "rdp", "pld"}, default="sequential"
            Sequential composition sums the epsilons and the deltas ([DR14]_ Theorem 3.16);
            ``"advanced"``, ``"zcdp"``, ``"rdp"`` and ``"pld"`` are the tighter totals of
            :func:`dpcore.composition.compose` (their assumptions:
            :data:`dpcore.composition.COMPOSITION_ASSUMPTIONS`). Releases on disjoint parts
            compose in parallel under every method (see the module's notes).
        delta_slack : float, default=None
            δ' of advanced and zcdp; None takes the one set by :meth:`set_composition`.

        Returns
        -------
        tuple of (float, float)

        Raises
        ------
        ValueError
            For ``"zcdp"`` when a release with δ > 0 was recorded without its ρ.
        """
        if method not in COMPOSITIONS:
            raise ValueError(f"method == {method!r}, must be one of {COMPOSITIONS}.")
        slack = self._slack if delta_slack is None else float(delta_slack)
        return compose_parts(self._records, method, slack)

    @property
    def composition(self) -> tuple[str, float]:
        """The method that refuses releases and its δ': ``("sequential", 1e-6)`` by default."""
        return self._method, self._slack

    def set_composition(self, method: str = "sequential",
                        delta_slack: float = DEFAULT_DELTA_SLACK) -> None:
        """Choose the privacy filter that refuses releases; only while nothing is released.

        ``"zcdp"`` accepts a release when the ledger with it fits the sequential budget
        (E, Δ - δ'), or when its zCDP total fits (E, δ') (module docstring, "The guarantee").
        The zCDP total carries δ' in its δ, so it helps only with a δ budget of at least δ'.

        Parameters
        ----------
        method : {"sequential", "zcdp"}, default="sequential"
            Advanced composition is refused here: it assumes the ε_i fixed in advance, while
            a session chooses them one after another. Use it in :meth:`total` or
            :meth:`preview` as a "what if".
        delta_slack : float, default=1e-6
            δ' in (0, 1) of zcdp, held out of the δ budget.

        Raises
        ------
        ValueError
            For another method, or for a change of filter once a release is recorded (a filter
            switched after releases would make the guarantee the sum of both filters' δ).
        """
        if method in ("advanced", "rdp", "pld"):
            raise ValueError(
                f"{method!r} composition is computed for releases fixed before the first one "
                "(a declared plan); a session chooses them one after another, so it cannot "
                "refuse releases. Choose 'zcdp' (a filter valid for adaptive choices) or "
                f"'sequential', and read the {method} total as a 'what if' from total()."
            )
        if method not in FILTERS:
            raise ValueError(f"method == {method!r}, must be one of {FILTERS}.")
        slack = check_scalar(delta_slack, "delta_slack", min_val=0.0, max_val=1.0,
                             include_max=False)
        with self._lock:
            if self._records and self._filter(method, slack) != self._filter():
                raise ValueError(
                    f"This ledger already counts {_releases(len(self._records))} under the "
                    f"{self._filter_text()}; its filter cannot change. A filter switched after "
                    "releases lets some sessions end under one rule and others under the other, "
                    "and the guarantee becomes the sum of both rules' δ. Start a new session to "
                    "use another filter."
                )
            self._method, self._slack = method, slack

    def _filter(self, method: str | None = None,
                slack: float | None = None) -> tuple[str, float | None]:
        """The filter as it decides: sequential ignores δ'."""
        method = self._method if method is None else method
        slack = self._slack if slack is None else slack
        return method, slack if method == "zcdp" else None

    def _filter_text(self) -> str:
        if self._method == "zcdp":
            return f"zcdp filter (δ′ = {self._slack:g})"
        return "sequential filter"

    def preview(self, planned: Iterable[PlannedRelease], method: str | None = None,
                delta_slack: float | None = None) -> tuple[float, float]:
        """The total the ledger and ``planned`` releases would compose to; nothing is spent.

        Parameters
        ----------
        planned : iterable of dpcore.composition.PlannedRelease
            Future releases (each ``count`` times), on the whole data or, when their
            ``partition`` is set, on that part of the planned data only (parts of one
            ``partition_rule`` compose in parallel with each other).
        method : str, default=None
            None: the chosen composition (:attr:`composition`).
        delta_slack : float, default=None
            None: the chosen δ'.

        Returns
        -------
        tuple of (float, float)

        Examples
        --------
        >>> from dpcore.composition import PlannedRelease
        >>> acc = BudgetAccountant(epsilon=1.0)
        >>> acc.spend(0.3, mechanism="Laplace", dataset="adult")
        >>> acc.preview([PlannedRelease("Laplace", 0.1, count=4)])
        (0.7, 0.0)
        >>> len(acc)
        1
        """
        method = self._method if method is None else method
        slack = self._slack if delta_slack is None else float(delta_slack)
        extra = [{"dataset": PLAN_DATASET if r.partition is not None else "",
                  "partition": r.partition, "partition_rule": r.partition_rule,
                  "epsilon": r.epsilon, "delta": r.delta, "rho": r.rho}
                 for r in planned for _ in range(r.count)]
        if method not in COMPOSITIONS:
            raise ValueError(f"method == {method!r}, must be one of {COMPOSITIONS}.")
        return compose_parts([*self._records, *extra], method, slack)

    @property
    def records(self) -> pd.DataFrame:
        """The ledger with ``partition`` and ``partition_rule`` (None: the whole dataset) and
        ``rho`` (None: ε²/2 of a pure release, or none known)."""
        frame = pd.DataFrame(self._records, columns=list(RECORD_COLUMNS))
        return frame.astype({"epsilon": "float64", "delta": "float64", "rho": "float64"})

    @property
    def ledger(self) -> pd.DataFrame:
        """One row per recorded release, oldest first (a copy)."""
        frame = pd.DataFrame(self._records, columns=list(LEDGER_COLUMNS))
        return frame.astype(
            {
                "mechanism": "str",
                "dataset": "str",
                "epsilon": "float64",
                "delta": "float64",
                "relation": "str",
                "time": "datetime64[us, UTC]",
                "note": "str",
            }
        )

    # ---- checks and spending -----------------------------------------------------------------

    def check(self, epsilon: float, delta: float = 0.0, *, dataset: str = "",
              partition: str | None = None, partition_rule: str | None = None,
              rho: float | None = None, noise: Mechanism | None = None,
              relation: str | None = None) -> None:
        """Raise :class:`BudgetExceeded` if a release of (epsilon, delta) does not fit.

        Records nothing. Arguments, and the preconditions on them, as in :meth:`spend`.
        """
        record, _ = self._record(epsilon, delta, dataset, partition, partition_rule, rho, noise,
                                 relation)
        self._check(record)

    def _record(self, epsilon: float, delta: float, dataset: str, partition: str | None,
                partition_rule: str | None, rho: float | None, noise: Mechanism | None,
                relation: str | None) -> tuple[dict[str, Any], str]:
        """The release as the ledger counts it, checked (without time and labels), and its
        relation. A ρ of the calibration does not hold under another relation: dropped there."""
        self._check_partition_allowed(partition)
        partition, partition_rule = _check_partition(partition, partition_rule)
        own = self._relation if relation is None else check_choice(
            relation, "relation", tuple(RELATIONS), advice=_RELATION)
        epsilon, delta = _check_release(epsilon, delta)
        if rho is not None:
            rho = check_scalar(rho, "rho", min_val=0.0, include_min=True)
        rho = _release_rho(epsilon, delta, rho, noise)
        charged_eps, charged_delta = self.charge(epsilon, delta, relation=own)
        record = {"dataset": dataset, "partition": partition, "partition_rule": partition_rule,
                  "epsilon": charged_eps, "delta": charged_delta,
                  "rho": rho if own == self._relation else None, "calibrated": epsilon}
        return record, own

    def _check_partition_allowed(self, partition: str | None) -> None:
        """Refuse a partition (parallel composition) unless this ledger counts add/remove."""
        if partition is not None and self._relation != "add_remove":
            raise ValueError(
                "Releases on disjoint parts compose in parallel only under 'add or remove one "
                "record': under this ledger's 'replace one record' a replaced record can move "
                "from one part to another and change two answers. Release the parts as one "
                "vector with its replace-one sensitivity, or count this session under 'add or "
                "remove one record'."
            )

    def _sequential_delta(self, delta: float) -> float:
        """The δ budget of releases counted sequentially: all of it, or what the zCDP filter's
        δ' leaves (module docstring)."""
        return delta if self._method == "sequential" else max(delta - self._slack, 0.0)

    def _zcdp_total(self, records: list[dict[str, Any]],
                    budget_delta: float) -> tuple[float | None, str]:
        """ε of the zCDP total of ``records`` at δ' (None when the zCDP filter is off or cannot
        account for them), and why not."""
        if self._method != "zcdp":
            return None, ""
        if not _fits(self._slack, 0.0, budget_delta):
            return None, (f"the zCDP total needs δ′ = {self._slack:g}, more than the δ budget "
                          f"δ = {budget_delta:g}")
        try:
            rho = rho_parts(records)
        except ValueError as exc:
            return None, f"zcdp cannot account for the ledger: {exc}"
        return zcdp_epsilon(rho, self._slack), ""

    def _fits_filter(self, records: list[dict[str, Any]],
                     budget: tuple[float, float]) -> bool:
        """Whether the ledger ``records`` satisfies the filter at ``budget``."""
        eps_b, delta_b = budget
        seq_eps, seq_delta = compose_parts(records, "sequential", 0.0)
        if _fits(seq_eps, 0.0, eps_b) and _fits(seq_delta, 0.0, self._sequential_delta(delta_b)):
            return True
        eps_z, _ = self._zcdp_total(records, delta_b)
        return eps_z is not None and _fits(eps_z, 0.0, eps_b)

    def _check(self, new: dict[str, Any]) -> None:
        records = [*self._records, new]
        if self._fits_filter(records, self.budget):
            return
        if (self._method == "sequential" and new["partition"] is None
                and not any(r["partition"] is not None for r in self._records)):
            problems = self._sequential_problems(new["epsilon"], new["delta"])
            if problems:
                raise BudgetExceeded(" ".join(problems))
        epsilon, delta, partition = new["epsilon"], new["delta"], new["partition"]
        where = (f" on part {partition!r} of {new['dataset']!r}" if partition is not None
                 else "")
        seq_eps, seq_delta = compose_parts(records, "sequential", 0.0)
        budget = f"the budget ε = {self._epsilon:g}, δ = {self._delta:g}"
        if self._method == "sequential":
            raise BudgetExceeded(
                f"This release{where} (ε = {epsilon:g}, δ = {delta:g}) would bring the total "
                f"under sequential composition to ε = {seq_eps:g}, δ = {seq_delta:g}, above "
                f"{budget}. Raise the budget, or lower ε or δ."
            )
        eps_z, why = self._zcdp_total(records, self._delta)
        zcdp = (f"the total under zcdp composition to ε = {eps_z:g} (δ′ = {self._slack:g})"
                if eps_z is not None else f"no zcdp total ({why})")
        raise BudgetExceeded(
            f"This release{where} (ε = {epsilon:g}, δ = {delta:g}) would bring {zcdp} and the "
            f"sequential total to ε = {seq_eps:g}, δ = {seq_delta:g}; {budget} holds neither "
            f"(the sequential total may use δ = {self._sequential_delta(self._delta):g} of it, "
            "the rest is held for the zcdp total). Raise the budget, or lower ε or δ."
        )

    def _sequential_problems(self, epsilon: float, delta: float) -> list[str]:
        """What a release of (epsilon, delta) lacks under the sequential filter, in words."""
        spent_eps, spent_delta = self.spent
        n = _releases(len(self))
        problems = []
        if not _fits(spent_eps, epsilon, self._epsilon):
            left = max(self._epsilon - spent_eps, 0.0)
            problems.append(
                f"This release needs ε = {epsilon:g}, but {left:g} of the budget "
                f"ε = {self._epsilon:g} remains ({spent_eps:g} spent in {n}). "
                "Raise the budget, or lower ε."
            )
        if not _fits(spent_delta, delta, self._delta):
            left = max(self._delta - spent_delta, 0.0)
            hint = (
                " or use a pure ε-DP mechanism (δ = 0, e.g. Laplace)" if self._delta == 0.0 else ""
            )
            problems.append(
                f"This release needs δ = {delta:g}, but {left:g} of the budget "
                f"δ = {self._delta:g} remains ({spent_delta:g} spent in {n}). "
                f"Raise the budget, or lower δ{hint}."
            )
        return problems

    def spend(
        self,
        epsilon: float,
        delta: float = 0.0,
        *,
        mechanism: str,
        dataset: str,
        note: str = "",
        partition: str | None = None,
        partition_rule: str | None = None,
        rho: float | None = None,
        noise: Mechanism | None = None,
        relation: str | None = None,
    ) -> None:
        """Record one release of (epsilon, delta), or raise before recording anything.

        Call it *before* drawing the release's noise. The ledger records what the release costs
        under its own relation (:meth:`charge`).

        Parameters
        ----------
        epsilon : float
            The release's epsilon under ``relation``, >= 0.
        delta : float, default=0.0
            The release's delta under ``relation``, in [0, 1).
        mechanism : str
            What was released and how (e.g. "Laplace" or "DP importance weights").
        dataset : str
            Which private data it was computed from.
        note : str, default=""
            Free text for the ledger.
        partition : str or None, default=None
            The part of ``dataset`` whose rows alone the release reads (add/remove ledgers
            only); None: all rows. Parts of one ``partition_rule`` compose in parallel.
            Preconditions the ledger cannot check: the release reads only the rows that the
            rule puts in this part, and the rule puts every record in exactly one part by the
            record's own values, fixed without looking at the private data as a whole.
        partition_rule : str or None, default=None
            Required with ``partition``: the name of the rule that made the parts (e.g. the
            split column, "sex"). Releases on parts of different rules, or of different
            datasets, are charged in sequence (a person lies in one part of each rule).
            Precondition: one name, one rule (two rules never share a name).
        rho : float or None, default=None
            The release's zCDP ρ when it has δ > 0 (e.g. a Gaussian release:
            :func:`dpcore.composition.gaussian_rho`); lets the zCDP filter count it. A pure
            release (δ = 0) always counts ε²/2: a smaller ``rho`` is refused. Precondition the
            ledger cannot check: the release is ρ-zCDP. It refuses only a ρ below
            :func:`rho_floor` ``(epsilon, delta)``, which would contradict the declared
            (ε, δ). Prefer ``noise``.
        noise : dpcore.mechanisms.Mechanism or None, default=None
            The mechanism that draws the release's noise; its (epsilon, delta) must be the
            ones charged, and the ledger takes ρ from its noise and sensitivity
            (:attr:`dpcore.mechanisms.Mechanism.rho`) instead of trusting ``rho``.
        relation : {"replace", "add_remove"} or None, default=None
            The neighbouring relation the release was calibrated under; None: the ledger's.

        Raises
        ------
        BudgetExceeded
            If the release does not fit in the remaining budget; the message gives the numbers.
        DataError
            If the release cannot be charged under the ledger's relation (:meth:`charge`).
        ValueError
            For a ``partition`` in a replace-one ledger or without its rule (module docstring),
            or a ``rho`` below what the release's (ε, δ) allow.
        """
        mechanism = check_str(mechanism, "mechanism", allow_empty=False, advice=_LABEL)
        dataset = check_str(dataset, "dataset", allow_empty=False, advice=_LABEL)
        note = check_str(note, "note", advice=_LABEL)
        record, own = self._record(epsilon, delta, dataset, partition, partition_rule, rho,
                                   noise, relation)
        calibrated = record.pop("calibrated")
        if own != self._relation:
            note = (f"{note}; " if note else "") + (
                f"calibrated at ε = {calibrated:g} under {RELATIONS[own]}, charged by group "
                "privacy")
        with self._lock:
            self._check(record)
            self._records.append(
                {
                    "mechanism": mechanism,
                    **record,
                    "relation": RELATIONS[own],
                    "time": pd.Timestamp.now(tz="UTC"),
                    "note": note,
                }
            )

    def set_budget(self, epsilon: float | None, delta: float = 0.0) -> None:
        """Change the budget; refuses one that the releases already made do not fit.

        The guarantee is that of the largest budget set (module docstring).

        Parameters
        ----------
        epsilon : float or None
            The new total epsilon (None = unlimited).
        delta : float, default=0.0
            The new total delta.
        """
        new_eps, new_delta = _check_budget(epsilon, delta)
        with self._lock:
            if not self._fits_filter(self._records, (new_eps, new_delta)):
                spent_eps, spent_delta = self.spent
                eps_z, _ = self._zcdp_total(self._records, new_delta)
                zcdp = f"; zcdp total ε = {eps_z:g}" if eps_z is not None else ""
                raise ValueError(
                    f"The budget (ε = {new_eps:g}, δ = {new_delta:g}) is below what is already "
                    f"spent (ε = {spent_eps:g}, δ = {spent_delta:g} in "
                    f"{_releases(len(self))}{zcdp}); a release cannot be taken back. Choose a "
                    "budget of at least the amount spent."
                )
            self._epsilon, self._delta = new_eps, new_delta
