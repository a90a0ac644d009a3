"""A privacy budget and the ledger of what has been released against it.

A data owner sets a budget (epsilon, delta). Every release spends from it *before* its noise is
drawn: :meth:`BudgetAccountant.spend` checks the release against what remains and raises
:class:`BudgetExceeded` before anything is recorded when it does not fit. Releases compose
sequentially: k releases that are (epsilon_i, delta_i)-DP together are
(sum epsilon_i, sum delta_i)-DP ([DR14]_ Theorem 3.16; [JLE14]_ Sect. 1).

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

Parallel composition ([JLE14]_ Sect. 1.6, "parallel theorem"): releases recorded with a
``partition`` label touch only the rows of that part of ``dataset``, and parts with different
labels of the same dataset are disjoint. Under add/remove a person's record lies in at most one
part of each dataset, so what they are exposed to is the releases without a partition plus those
of their own part: every total is the largest, over the choice of one part per dataset, of the
composition of those releases (for sequential composition: the unpartitioned sum plus the
largest part's sum). The parts must be fixed by a rule that does not look at the private data as
a whole (e.g. a split column's value, record by record). Under replace-one a replaced record can
move between parts and change two of them, so a replace-one ledger refuses partitions: release
all parts as one vector with its replace-one sensitivity instead (:mod:`dpcore.primer` does).

Refusals under adaptive choice
------------------------------
The user chooses each release's ε after seeing the earlier ones, so the rule that refuses a
release must hold for adaptively chosen ε_i (a *privacy filter*). Two do, and
:meth:`BudgetAccountant.set_composition` chooses between them:

* ``"sequential"`` (the default): refuse when the sum of the ε_i (and of the δ_i) would pass the
  budget; sequential composition holds for adaptively chosen parameters ([RRUV16]_ Sect. 3).
* ``"zcdp"``: refuse when the zCDP total ``ρ + 2 sqrt(ρ ln(1/δ'))`` with ``ρ = Σ ρ_i`` would pass
  the budget (pure ε_i count as ρ_i = ε_i²/2, [BS16]_). It is monotone in ``Σ ρ_i``, so this is a
  budget on ``Σ ρ_i``: the Rényi filter of [FZ21]_ at every order α at once, valid for adaptively
  chosen ρ_i. A release is accepted when either total fits: on every history that stops, one of
  the two guarantees holds, and the privacy loss exceeds the budget with probability at most δ'
  (the zCDP bound needs only that its stopping rule looks at the past).

Advanced composition ([KOV15]_ Theorem 3.5) assumes the ε_i fixed in advance, so it never refuses
here; :func:`dpcore.composition.compose` gives it as a "what if" total of a declared plan.

Parallel composition ([JLE14]_ Sect. 1.6, "parallel theorem"): releases recorded with a
``partition`` label touch only the rows of that part of ``dataset``, and parts with different
labels of the same dataset are disjoint. A person's record lies in at most one part of each
dataset, so what they are exposed to is the releases without a partition plus those of their
own part: every total is the largest, over the choice of one part per dataset, of the
composition of those releases (for sequential composition: the unpartitioned sum plus the
largest part's sum). The parts must be fixed by a rule that does not look at the private data as
a whole (e.g. a split column's value, record by record); under "replace one record" a record that
moves between parts touches two of them, so label both releases with the *same* partition (or
none) unless the relation is "add or remove one record".

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
"""

from __future__ import annotations

import math
import numbers
import threading
from collections.abc import Iterable
from typing import Any

import pandas as pd

from dpcore.composition import COMPOSITIONS, PLAN_DATASET, PlannedRelease, compose_parts
from dpcore.validation import DataError, check_scalar

__all__ = ["BudgetExceeded", "BudgetAccountant", "COMPOSITIONS", "DEFAULT_DELTA_SLACK",
           "FILTERS", "RELATIONS"]

#: Neighbouring relations of a ledger, by key.
RELATIONS = {"replace": "replace one record", "add_remove": "add or remove one record"}
#: The compositions that may refuse releases chosen one after another (module docstring).
FILTERS = ("sequential", "zcdp")

# A release may use the budget exactly: sums of floats such as 0.1 + 0.2 + 0.7 may exceed 1.0 by
# a rounding error, which this relative slack absorbs.
SLACK = 1e-9

LEDGER_COLUMNS = ("mechanism", "dataset", "epsilon", "delta", "relation", "time", "note")
#: The ledger with what composition needs besides: ``partition`` and ``rho`` (see ``records``).
RECORD_COLUMNS = (*LEDGER_COLUMNS, "partition", "rho")
#: delta' of advanced and zCDP composition unless set otherwise.
DEFAULT_DELTA_SLACK = 1e-6
#: Most combinations of parts (one per dataset) a total enumerates.


class BudgetExceeded(DataError):
    """A release would spend more than the remaining privacy budget; nothing was recorded."""


def _check_budget_epsilon(epsilon: Any) -> float:
    if epsilon is None:
        return math.inf
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(
            f"epsilon must be a number or None (unlimited), got {type(epsilon).__name__} "
            f"({epsilon!r})."
        )
    if float(epsilon) == math.inf:
        return math.inf
    return check_scalar(epsilon, "epsilon", min_val=0.0, include_min=True)


def _check_budget_delta(delta: Any) -> float:
    return check_scalar(delta, "delta", min_val=0.0, max_val=1.0, include_min=True)


def _check_release(epsilon: Any, delta: Any) -> tuple[float, float]:
    epsilon = check_scalar(epsilon, "epsilon", min_val=0.0, include_min=True)
    delta = check_scalar(
        delta, "delta", min_val=0.0, max_val=1.0, include_min=True, include_max=False
    )
    return epsilon, delta


def _check_label(value: Any, name: str, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} ({value!r}).")
    if not allow_empty and not value.strip():
        raise ValueError(
            f"{name} is empty; name it so the ledger says what was released "
            f"(e.g. {name}='Laplace' or {name}='adult')."
        )
    return value


def _check_partition(partition: Any) -> str | None:
    if partition is None:
        return None
    return _check_label(partition, "partition")


def _check_rho(rho: Any) -> float | None:
    if rho is None:
        return None
    return check_scalar(rho, "rho", min_val=0.0, include_min=True)


def _check_relation(relation: Any, name: str = "relation") -> str:
    if not isinstance(relation, str) or relation not in RELATIONS:
        raise ValueError(
            f"{name} == {relation!r}, must be one of {tuple(RELATIONS)} "
            f"({', '.join(RELATIONS.values())})."
        )
    return relation


def _fits(spent: float, extra: float, budget: float) -> bool:
    return math.isinf(budget) or spent + extra <= budget * (1.0 + SLACK)


def _releases(n: int) -> str:
    return f"{n} release" if n == 1 else f"{n} releases"


class BudgetAccountant:
    """A privacy budget (epsilon, delta), spent release by release under sequential composition.

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
        The budget (epsilon, delta).
    spent : tuple of (float, float)
        What the recorded releases compose to.
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
        self._epsilon = _check_budget_epsilon(epsilon)
        self._delta = _check_budget_delta(delta)
        self._relation = _check_relation(relation)
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
        relation = _check_relation(relation)
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
        relation = self._relation if relation is None else _check_relation(relation)
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
        """Choose the privacy filter that refuses releases from now on (module docstring).

        A release is refused when neither this method's total nor the sequential total of the
        ledger with the release fits the budget (both are valid filters). The zCDP total
        carries δ' in its δ, so it helps only with a δ budget of at least δ'.

        Parameters
        ----------
        method : {"sequential", "zcdp"}, default="sequential"
            Advanced composition is refused here: it assumes the ε_i fixed in advance, while
            a session chooses them one after another. Use it in :meth:`total` or
            :meth:`preview` as a "what if".
        delta_slack : float, default=1e-6
            δ' in (0, 1) of zcdp.
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
            self._method, self._slack = method, slack

    def preview(self, planned: Iterable[PlannedRelease], method: str | None = None,
                delta_slack: float | None = None) -> tuple[float, float]:
        """The total the ledger and ``planned`` releases would compose to; nothing is spent.

        Parameters
        ----------
        planned : iterable of dpcore.composition.PlannedRelease
            Future releases (each ``count`` times), on the whole data or, when their
            ``partition`` is set, on that part of the planned data only (parts compose in
            parallel with each other).
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
                  "partition": r.partition, "epsilon": r.epsilon, "delta": r.delta,
                  "rho": r.rho} for r in planned for _ in range(r.count)]
        if method not in COMPOSITIONS:
            raise ValueError(f"method == {method!r}, must be one of {COMPOSITIONS}.")
        return compose_parts([*self._records, *extra], method, slack)

    @property
    def records(self) -> pd.DataFrame:
        """The ledger with ``partition`` (None: the whole dataset) and ``rho`` (None: from ε)."""
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
              partition: str | None = None, rho: float | None = None,
              relation: str | None = None) -> None:
        """Raise :class:`BudgetExceeded` if a release of (epsilon, delta) does not fit.

        Records nothing. Arguments as in :meth:`spend`.
        """
        partition, rho = _check_partition(partition), _check_rho(rho)
        _, epsilon, delta, rho = self._charged(epsilon, delta, relation, rho)
        self._check_partition_allowed(partition)
        self._check(epsilon, delta, dataset, partition, rho)

    def _charged(self, epsilon: float, delta: float, relation: str | None,
                 rho: float | None) -> tuple[str, float, float, float | None]:
        """The release's relation and its (epsilon, delta, rho) as this ledger counts them: a
        ρ of the calibration does not hold under another relation, so it is dropped there."""
        own = self._relation if relation is None else _check_relation(relation)
        epsilon, delta = self.charge(epsilon, delta, relation=own)
        return own, epsilon, delta, rho if own == self._relation else None

    def _check_partition_allowed(self, partition: str | None) -> None:
        if partition is not None and self._relation != "add_remove":
            raise ValueError(
                "Releases on disjoint parts compose in parallel only under 'add or remove one "
                "record': under this ledger's 'replace one record' a replaced record can move "
                "from one part to another and change two answers. Release the parts as one "
                "vector with its replace-one sensitivity, or count this session under 'add or "
                "remove one record'."
            )

    def _check(self, epsilon: float, delta: float, dataset: str = "",
               partition: str | None = None, rho: float | None = None) -> None:
        if self._method != "sequential" or partition is not None:
            self._check_composed(epsilon, delta, dataset, partition, rho)
            return
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
        if problems:
            raise BudgetExceeded(" ".join(problems))

    def _check_composed(self, epsilon: float, delta: float, dataset: str,
                        partition: str | None, rho: float | None) -> None:
        """The check under the chosen composition, or for a release on one part."""
        new = {"dataset": dataset, "partition": partition, "epsilon": epsilon, "delta": delta,
               "rho": rho}
        records = [*self._records, new]
        totals = {"sequential": compose_parts(records, "sequential", self._slack)}
        problem = ""
        if self._method != "sequential":
            try:
                totals[self._method] = compose_parts(records, self._method, self._slack)
            except ValueError as exc:
                problem = f" ({self._method} cannot account for the ledger: {exc})"
        budget = (self._epsilon, self._delta)
        if any(_fits(e, 0.0, budget[0]) and _fits(d, 0.0, budget[1])
               for e, d in totals.values()):
            return
        eps_m, delta_m = totals.get(self._method, totals["sequential"])
        where = f" on part {partition!r} of {dataset!r}" if partition is not None else ""
        raise BudgetExceeded(
            f"This release{where} (ε = {epsilon:g}, δ = {delta:g}) would bring the total under "
            f"{self._method} composition to ε = {eps_m:g}, δ = {delta_m:g}, above the budget "
            f"ε = {self._epsilon:g}, δ = {self._delta:g}{problem}. Raise the budget, or lower "
            "ε or δ."
        )

    def spend(
        self,
        epsilon: float,
        delta: float = 0.0,
        *,
        mechanism: str,
        dataset: str,
        note: str = "",
        partition: str | None = None,
        rho: float | None = None,
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
            The part of ``dataset`` whose rows alone the release reads; releases on different
            parts of one dataset compose in parallel (see the module's notes). None: all rows.
        rho : float or None, default=None
            The release's zCDP ρ when it is not ε²/2 of a pure release (a Gaussian release:
            :func:`dpcore.composition.gaussian_rho`); lets zCDP account for δ > 0.
        relation : {"replace", "add_remove"} or None, default=None
            The neighbouring relation the release was calibrated under; None: the ledger's.

        Raises
        ------
        BudgetExceeded
            If the release does not fit in the remaining budget; the message gives the numbers.
        DataError
            If the release cannot be charged under the ledger's relation (:meth:`charge`).
        ValueError
            For a ``partition`` in a replace-one ledger (module docstring).
        """
        mechanism = _check_label(mechanism, "mechanism")
        dataset = _check_label(dataset, "dataset")
        note = _check_label(note, "note", allow_empty=True)
        partition, rho = _check_partition(partition), _check_rho(rho)
        own, charged_eps, delta, rho = self._charged(epsilon, delta, relation, rho)
        if own != self._relation:
            note = (f"{note}; " if note else "") + (
                f"calibrated at ε = {epsilon:g} under {RELATIONS[own]}, charged by group "
                "privacy")
        epsilon = charged_eps
        self._check_partition_allowed(partition)
        with self._lock:
            self._check(epsilon, delta, dataset, partition, rho)
            self._records.append(
                {
                    "mechanism": mechanism,
                    "dataset": dataset,
                    "epsilon": epsilon,
                    "delta": delta,
                    "relation": RELATIONS[own],
                    "time": pd.Timestamp.now(tz="UTC"),
                    "note": note,
                    "partition": partition,
                    "rho": rho,
                }
            )

    def set_budget(self, epsilon: float | None, delta: float = 0.0) -> None:
        """Change the budget; refuses one below what has already been spent.

        Parameters
        ----------
        epsilon : float or None
            The new total epsilon (None = unlimited).
        delta : float, default=0.0
            The new total delta.
        """
        new_eps = _check_budget_epsilon(epsilon)
        new_delta = _check_budget_delta(delta)
        with self._lock:
            spent_eps, spent_delta = self.spent
            if not _fits(spent_eps, 0.0, new_eps) or not _fits(spent_delta, 0.0, new_delta):
                raise ValueError(
                    f"The budget (ε = {new_eps:g}, δ = {new_delta:g}) is below what is already "
                    f"spent (ε = {spent_eps:g}, δ = {spent_delta:g} in {_releases(len(self))}); "
                    "a release cannot be taken back. Choose a budget of at least the amount "
                    "spent."
                )
            self._epsilon, self._delta = new_eps, new_delta
