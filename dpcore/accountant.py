"""A privacy budget and the ledger of what has been released against it.

A data owner sets a budget (epsilon, delta). Every release spends from it *before* its noise is
drawn: :meth:`BudgetAccountant.spend` checks the release against what remains and raises
:class:`BudgetExceeded` before anything is recorded when it does not fit. Releases compose
sequentially: k releases that are (epsilon_i, delta_i)-DP together are
(sum epsilon_i, sum delta_i)-DP ([DR14]_ Theorem 3.16; [JLE14]_ Sect. 1). Sequential composition
is the default and always valid; :meth:`BudgetAccountant.set_composition` chooses a tighter total
instead (advanced composition, [KOV15]_ Theorem 3.5, or zero-concentrated DP, [BS16]_), computed
by :func:`dpcore.planning.compose`, and releases are then refused by that total.

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
"""

from __future__ import annotations

import math
import numbers
import threading
from collections.abc import Iterable
from typing import Any

import pandas as pd

from dpcore.planning import COMPOSITIONS, PLAN_DATASET, PlannedRelease, compose_parts
from dpcore.validation import DataError, check_scalar

__all__ = ["BudgetExceeded", "BudgetAccountant", "COMPOSITIONS", "DEFAULT_DELTA_SLACK"]

# A release may use the budget exactly: sums of floats such as 0.1 + 0.2 + 0.7 may exceed 1.0 by
# a rounding error, which this relative slack absorbs.
SLACK = 1e-9

LEDGER_COLUMNS = ("mechanism", "dataset", "epsilon", "delta", "time", "note")
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

    Attributes
    ----------
    budget : tuple of (float, float)
        The budget (epsilon, delta).
    spent : tuple of (float, float)
        What the recorded releases compose to.
    remaining : tuple of (float, float)
        ``budget - spent``, never below 0.
    ledger : pandas.DataFrame
        One row per release: mechanism, dataset, epsilon, delta, time (UTC), note.

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
    ['mechanism', 'dataset', 'epsilon', 'delta', 'time', 'note']
    """

    def __init__(self, epsilon: float | None = None, delta: float = 0.0) -> None:
        self._epsilon = _check_budget_epsilon(epsilon)
        self._delta = _check_budget_delta(delta)
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
        """The (epsilon, delta) that the recorded releases compose to.

        Parameters
        ----------
        method : {"sequential", "advanced", "zcdp"}, default="sequential"
            Sequential composition sums the epsilons and the deltas ([DR14]_ Theorem 3.16);
            ``"advanced"`` and ``"zcdp"`` are the tighter totals of
            :func:`dpcore.planning.compose` (their assumptions:
            :data:`dpcore.planning.COMPOSITION_ASSUMPTIONS`). Releases on disjoint parts
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
        """Choose the composition whose total refuses releases from now on.

        A release is refused when neither this method's total nor the sequential total of the
        ledger with the release fits the budget (both are valid guarantees). Advanced and zCDP
        totals carry δ' in their δ, so they help only with a δ budget of at least δ'.

        Parameters
        ----------
        method : {"sequential", "advanced", "zcdp"}, default="sequential"
        delta_slack : float, default=1e-6
            δ' in (0, 1) of advanced and zcdp.
        """
        if method not in COMPOSITIONS:
            raise ValueError(f"method == {method!r}, must be one of {COMPOSITIONS}.")
        slack = check_scalar(delta_slack, "delta_slack", min_val=0.0, max_val=1.0,
                             include_max=False)
        with self._lock:
            self._method, self._slack = method, slack

    def preview(self, planned: Iterable[PlannedRelease], method: str | None = None,
                delta_slack: float | None = None) -> tuple[float, float]:
        """The total the ledger and ``planned`` releases would compose to; nothing is spent.

        Parameters
        ----------
        planned : iterable of dpcore.planning.PlannedRelease
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
        >>> from dpcore.planning import PlannedRelease
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
                "time": "datetime64[us, UTC]",
                "note": "str",
            }
        )

    # ---- checks and spending -----------------------------------------------------------------

    def check(self, epsilon: float, delta: float = 0.0, *, dataset: str = "",
              partition: str | None = None, rho: float | None = None) -> None:
        """Raise :class:`BudgetExceeded` if a release of (epsilon, delta) does not fit.

        Records nothing. Arguments as in :meth:`spend`.
        """
        epsilon, delta = _check_release(epsilon, delta)
        partition, rho = _check_partition(partition), _check_rho(rho)
        self._check(epsilon, delta, dataset, partition, rho)

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
    ) -> None:
        """Record one release of (epsilon, delta), or raise before recording anything.

        Call it *before* drawing the release's noise.

        Parameters
        ----------
        epsilon : float
            The release's epsilon, >= 0.
        delta : float, default=0.0
            The release's delta, in [0, 1).
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
            :func:`dpcore.planning.gaussian_rho`); lets zCDP account for δ > 0.

        Raises
        ------
        BudgetExceeded
            If the release does not fit in the remaining budget; the message gives the numbers.
        """
        epsilon, delta = _check_release(epsilon, delta)
        mechanism = _check_label(mechanism, "mechanism")
        dataset = _check_label(dataset, "dataset")
        note = _check_label(note, "note", allow_empty=True)
        partition, rho = _check_partition(partition), _check_rho(rho)
        with self._lock:
            self._check(epsilon, delta, dataset, partition, rho)
            self._records.append(
                {
                    "mechanism": mechanism,
                    "dataset": dataset,
                    "epsilon": epsilon,
                    "delta": delta,
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
