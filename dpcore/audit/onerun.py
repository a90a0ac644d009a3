"""The one-run audit of a release ([SNJ23]_): m canaries in one run, a bound from right guesses.

A :class:`OneRunCase` is one release's hook: its ``run`` takes which of its ``m`` canaries are
in (``S_i = +1``, each by a fair coin) and draws **one** output through the release's noise
law (the seeded study twin of its sampler), reduced to a score per canary, centred by a rule
fixed before the run (positive: in, negative: out, its size the attacker's confidence).
:func:`one_run` draws the coins, runs the release once and lets the attacker guess on the
``k`` canaries with the largest ``|score|`` (in when the score is positive), abstaining on
the rest, with ``k = max(2, m // 5)`` fixed before the run (no choice among several ``k``, so
no multiple testing). The guesses depend on the output only, as [SNJ23]_ Algorithm 1
allows, so for a release that is epsilon-DP in each canary the number of right guesses is
dominated by ``Binomial(k, e^eps / (1 + e^eps))`` (Theorem 3.1), and
:func:`~dpcore.audit.statistics.one_run_epsilon` turns it into a bound that exceeds the true
epsilon with probability at most ``1 - confidence``.

The releases' hooks live beside their many-run cases (``ONE_RUN`` of each module of
:mod:`dpcore.releases`), and the catalogue lists them (:mod:`dpcore.releases.catalogue`).

References
----------
.. [SNJ23] Steinke, Nasr & Jagielski (2023), *Privacy auditing with one (1) training run*,
   NeurIPS, Algorithm 1 and Theorem 3.1 (pure epsilon-DP).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from dpcore.audit.statistics import one_run_epsilon
from dpcore.validation import check_random_state

__all__ = ["LABEL_CANARIES", "OneRunCase", "OneRunOutcome", "default_guesses", "label_canaries",
           "one_run"]


@dataclass(frozen=True)
class OneRunCase:
    """One release's one-run audit: its canaries and its one run.

    Attributes
    ----------
    key : str
        Short identifier.
    name : str
        The release as the product names it.
    epsilon : float
        The ε the release claims.
    canaries : int
        ``m``: canary slots in the run.
    neighbouring : str
        The relation under which flipping one canary is a neighbouring change.
    design : str
        Where the canaries sit and what "out" means, in words.
    audited : str
        The key of the many-run case of the same release (:mod:`dpcore.releases.catalogue`),
        whose bound the page shows beside this one.
    run : callable
        ``run(included, rng) -> scores``: one output of the release on the canaries
        ``included`` (bool, shape ``(m,)``), one centred score per canary (positive: guess
        in, negative: out; ``|score|``: how sure).
    broken : bool
        A deliberate fault ("broken on purpose"): its noise is calibrated to a larger ε than
        it claims.
    note : str
        What caps this design's bound below the claim for a correct release, in words ("" when
        nothing but the canaries does).
    """

    key: str
    name: str
    epsilon: float
    canaries: int
    neighbouring: str
    design: str
    audited: str
    run: Callable[[np.ndarray, np.random.Generator], np.ndarray] = field(repr=False,
                                                                        compare=False)
    broken: bool = False
    note: str = ""


@dataclass(frozen=True)
class OneRunOutcome:
    """Outcome of :func:`one_run` for one case.

    Attributes
    ----------
    key, name, audited : str
        The case's (:class:`OneRunCase`).
    epsilon, epsilon_lb, confidence : float
        The claim, the bound (:func:`~dpcore.audit.statistics.one_run_epsilon`) and its
        confidence.
    canaries, guesses, correct : int
        ``m``, ``k`` and the right guesses.
    most : float
        The bound had every guess been right: the most this run can show.
    seconds : float
        Wall time of the run (a measurement: it varies with the machine and its load).
    broken : bool
    note : str
    """

    key: str
    name: str
    audited: str
    epsilon: float
    epsilon_lb: float
    confidence: float
    canaries: int
    guesses: int
    correct: int
    most: float
    seconds: float
    broken: bool = False
    note: str = ""

    @property
    def above_claim(self) -> bool:
        """The bound refutes the claim at this confidence."""
        return self.epsilon_lb > self.epsilon


#: The design of :func:`label_canaries` in words (a case's ``design``), at a model's λ.
LABEL_CANARIES = ("canary i is the record e_i labelled 1 when in, 0 when out (its label "
                  "flipped), one per coordinate, with two records at the origin; λ = {lam:g}")


def label_canaries(included: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The training set of a model's one-run audit (as [SNJ23]_ Sect. 6 plants one canary per
    coordinate): canary ``i`` is the record ``e_i`` (norm 1) labelled 1 when in and 0 when out
    (its label flipped: a replace-one change), plus two records at the origin labelled 0 and 1,
    so that both classes occur whatever the coins. Its coefficient ``w_i`` is positive when in
    and negative when out (by symmetry), the score of canary ``i``.

    Returns
    -------
    X : ndarray of shape (m + 2, m)
    y : ndarray of shape (m + 2,)
    """
    m = included.size
    X = np.vstack([np.eye(m), np.zeros((2, m))])
    return X, np.r_[included.astype(int), 0, 1]


def default_guesses(canaries: int) -> int:
    """``k = max(2, m // 5)``: the attacker guesses on a fifth of the canaries, fixed in
    advance (a bound from one ``k``, so no correction for choosing among several)."""
    return max(2, int(canaries) // 5)


def one_run(case: OneRunCase, *, confidence: float = 0.95, rng=None) -> OneRunOutcome:
    """Audit ``case`` in one run ([SNJ23]_ Algorithm 1; module docstring).

    Parameters
    ----------
    case : OneRunCase
    confidence : float, default=0.95
        A correctly calibrated release's bound exceeds its ε with probability at most
        ``1 - confidence``.
    rng : None, int or numpy.random.Generator
        Seeds the coins and the noise (a study: no private data, no budget spent).

    Returns
    -------
    OneRunOutcome

    Examples
    --------
    >>> from dpcore.mechanisms import Laplace
    >>> law = Laplace(1.0, 1.0)
    >>> case = OneRunCase("cells", "one Laplace count per canary", 1.0, 200, "add or remove",
    ...                   "canary i alone in cell i", "laplace",
    ...                   lambda s, rng: law.randomise(s.astype(float), rng=rng))
    >>> out = one_run(case, rng=0)
    >>> (out.guesses, out.epsilon_lb <= 1.0)
    (40, True)
    """
    if not isinstance(case, OneRunCase):
        raise TypeError(f"case must be a OneRunCase, got {type(case).__name__}.")
    m = int(case.canaries)
    k = default_guesses(m)
    if k > m:
        raise ValueError(f"canaries == {m}: the one-run audit needs at least 2 canaries.")
    gen = check_random_state(rng)
    included = gen.random(m) < 0.5
    start = time.perf_counter()
    scores = np.asarray(case.run(included, gen), dtype=float)
    seconds = time.perf_counter() - start
    if scores.shape != (m,):
        raise ValueError(f"{case.key}: run returned scores of shape {scores.shape}, expected "
                         f"({m},): one per canary.")
    guessed = np.argsort(-np.abs(scores), kind="stable")[:k]
    correct = int(np.sum((scores[guessed] > 0) == included[guessed]))
    return OneRunOutcome(case.key, case.name, case.audited, float(case.epsilon),
                         one_run_epsilon(k, correct, confidence=confidence), confidence, m, k,
                         correct, one_run_epsilon(k, k, confidence=confidence), seconds,
                         case.broken, case.note)
