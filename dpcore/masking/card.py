"""The masking page's report card: how a masked table compares with the private one, across ε.

For each ε of :data:`CARD_EPSILONS` and each of :data:`REPETITIONS` repetitions, the two
mechanisms of the page publish a table of ``N`` records:

* *masked generation* ([PGY]_ Algorithm 1): the masked set the page's generator grows from the
  private set (its initial set included);
* *input perturbation* ([PGY]_ Algorithm 2): ``N`` private records drawn without replacement
  (all of them when there are fewer), each with its own noise (labels unperturbed), so both
  tables have the same size.

Each table is scored against the private set by five numbers: the 2-way k-marginal score
(:func:`dpcore.masking.marginals.k_marginal_score`, over the table's binned columns and its
label), the correlation difference and the propensity pMSE (:mod:`dpcore.masking.utility`,
against ``N`` other private records drawn per repetition, so the masked share is one half when
the private set has ``N`` records), the accuracy on the held-out records of a model trained on
the table (train on masked, test on real: TSTR) and the share of its records that equal a
private record in every binned column and the label. A third row, *private sample*, scores ``N``
private records drawn without noise the same way: what a table of ``N`` records reaches without
any privacy (the yardstick the curves approach as ε grows).

What does not depend on ε is computed once: the private table's cells, correlations and
propensity samples, the draws of each repetition and the non-private reference. Every
repetition draws from its own named stream (:func:`dpcore.random.stream`), the same at every
ε, so the curves vary smoothly with ε. A seeded study: nothing is released, no budget is
spent, and every number reads the private data without noise (non-private).

References
----------
.. [PGY] Pham, Ghosh & Yegneswaran, *Data masking with privacy guarantees*, Algorithms 1-2.
.. [SDNist] NIST CRC, *SDNist v2: Deidentified data report* (k-marginal, unique exact matches).
.. [SRS18] Snoke, Raab, Nowok, Dibben & Slavkovic (2018), *General and specific utility measures
   for synthetic data*, JRSS A 181(3).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from dpcore.masking.experiments import MaskingTask, generator
from dpcore.masking.generator import design_records, fit_generators, input_perturbation
from dpcore.masking.marginals import (
    Binning,
    Column,
    exact_match_shares,
    k_marginal_scores,
    labelled,
)
from dpcore.masking.model import fit_logistic_model, predict_labels
from dpcore.masking.utility import correlation_gaps, correlations, propensity_mse
from dpcore.random import stream
from dpcore.validation import DataError

__all__ = ["CARD_EPSILONS", "CARD_METHODS", "LEVEL", "METRICS", "REFERENCE", "REPETITIONS",
           "report_card", "summarise", "task_binning"]

#: The ε of the card's curves (from the page's slider).
CARD_EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0)
#: Repetitions per ε.
REPETITIONS = 20
#: The two mechanisms, side by side.
CARD_METHODS = ("masked generation", "input perturbation")
#: The non-private reference: ``N`` private records, no noise.
REFERENCE = "private sample"
#: The card's numbers: key -> (label, which way is better).
METRICS = {
    "k_marginal": ("2-way k-marginal score (0-1000)", "higher"),
    "correlation_difference": ("mean |correlation difference|", "lower"),
    "pmse": ("pMSE, logistic on x and x² (0-0.25)", "lower"),
    "tstr_accuracy": ("train on masked, test on real: accuracy", "higher"),
    "exact_match_share": ("share of records matching a private one", "lower"),
}
#: The bands hold the middle ``LEVEL`` of the repetitions.
LEVEL = 0.95


def task_binning(task: MaskingTask) -> Binning:
    """How the card bins ``task``'s records: its :attr:`~MaskingTask.columns` (in recipient
    units, so the public centring is undone first), or each feature binned over the public
    ``[-data_norm, data_norm]``."""
    if task.columns:
        return Binning(task.columns, offset=task.offset)
    bound = float(task.data_norm)
    return Binning(tuple(Column(name, "scaled", (j,), -bound, bound)
                         for j, name in enumerate(task.feature_names or
                                                  [f"x{j + 1}" for j in range(task.d)])))


def summarise(values: np.ndarray, *, level: float = LEVEL) -> dict[str, float]:
    """Mean and the middle ``level`` of one number's repetitions (``low``, ``high``).

    >>> {key: round(value, 9) for key, value in summarise(np.arange(21.0)).items()}
    {'mean': 10.0, 'low': 0.5, 'high': 19.5}
    """
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return {"mean": float(np.mean(values)), "low": float(low), "high": float(high)}


class _Scorer:
    """Scores tables of ``N`` records against the private set: what ε does not change, kept."""

    def __init__(self, task: MaskingTask, lam: float, pairs: np.ndarray) -> None:
        self.task, self.lam = task, lam
        self.binning = labelled(task_binning(task), task.n_classes)
        self.cells = self.codes(task.X_private, task.y_private)
        self.sizes = self.binning.sizes
        self.correlations = correlations(task.X_private)
        self.pairs = task.X_private[pairs]  # (R, N, d): the propensity model's private side
        self.X_valid = task.design(task.X_valid)

    def codes(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The binned table of records ``X`` with their labels ``y`` as its last column."""
        return self.binning.codes(np.concatenate([X, np.asarray(y)[..., None]], axis=-1))

    def score(self, X: np.ndarray, y: np.ndarray, accuracy: np.ndarray
              ) -> dict[str, np.ndarray]:
        """The five numbers of tables ``(X, y)`` (shape (..., R, N, d)), TSTR given."""
        cells = self.codes(X, y)
        return {"k_marginal": k_marginal_scores(self.cells, cells, self.sizes),
                "correlation_difference": correlation_gaps(self.correlations, X),
                "pmse": propensity_mse(self.pairs, X),
                "tstr_accuracy": accuracy,
                "exact_match_share": exact_match_shares(self.cells, cells)}

    def accuracy(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """TSTR: the page's model (its λ, intercept and public prior) fitted on each table,
        its accuracy on the held-out records."""
        task = self.task
        design = design_records(X, task.data_norm, intercept=task.intercept, project=False)[0]
        fit = fit_logistic_model(design, y, lam=self.lam, n_classes=task.n_classes,
                                 coef_prior=task.prior, max_iter=200)
        return np.mean(predict_labels(fit.coef, self.X_valid) == task.y_valid, axis=-1)


def report_card(task: MaskingTask, *, n: int, lam: float,
                initial: tuple[np.ndarray, np.ndarray] | None = None, bounded: bool = True,
                epsilons: Sequence[float] = CARD_EPSILONS, repetitions: int = REPETITIONS,
                seed: int = 0, progress: Callable[[float, str], None] | None = None
                ) -> pd.DataFrame:
    """The report card's curves: each metric of :data:`METRICS` for both mechanisms at every
    ε, and for the private sample (a seeded study; non-private numbers).

    Parameters
    ----------
    task : MaskingTask
    n : int
        ``N``: records of each published table (the masked set's size, its initial set
        included); the input-perturbed table and the private sample hold at most the private
        set's records.
    lam : float
        The page's λ (the generator's and the TSTR model's).
    initial : (X, y) or None, default=None
        The masked set's initial set (public or fake records), or None.
    bounded : bool, default=True
        Keep invented records in the data domain.
    epsilons : sequence of float, default=CARD_EPSILONS
    repetitions : int, default=REPETITIONS
    seed : int, default=0
    progress : callable(fraction, message), default=None

    Returns
    -------
    DataFrame
        Columns ``metric, method, epsilon, mean, low, high, repetitions``: one row per metric,
        method and ε (``epsilon`` NaN for the private sample, which has no ε); ``low`` and
        ``high`` hold the middle :data:`LEVEL` of the repetitions.
    """
    def report(fraction: float, message: str) -> None:
        if progress is not None:
            progress(fraction, message)

    private, labels = task.X_private, task.y_private
    n, R = int(n), int(repetitions)
    m = min(n, len(labels))  # the private sample's and the input-perturbed table's records
    if m < 2:
        raise DataError(f"The report card needs tables of at least 2 records; N = {n} and the "
                        f"private set has {len(labels)}.")
    if R < 2:
        raise DataError(f"repetitions == {R}; the bands need at least 2.")
    eps = [float(e) for e in epsilons]

    def draw(name: str) -> np.ndarray:  # m private records per repetition, no replacement
        return np.stack([stream(seed, "masking card", name, r).permutation(len(labels))[:m]
                         for r in range(R)])

    samples = draw("sample")
    scorer = _Scorer(task, lam, draw("propensity"))
    report(0.02, "the private sample")
    scores = {REFERENCE: scorer.score(private[samples], labels[samples],
                                      scorer.accuracy(private[samples], labels[samples]))}

    def step(j: int, total: int) -> None:
        if j % 10 == 0:
            report(0.05 + 0.65 * j / max(total, 1), f"masked generation: record {j} of {total}")

    gens = fit_generators([generator(task, e, lam, n, bounded=bounded,
                                     rng=stream(seed, "masking card", "generator", r))
                           for e in eps for r in range(R)], private, labels, initial=initial,
                          callback=step)
    masked = np.stack([g.masked_X_ for g in gens]).reshape(len(eps), R, n, task.d)
    masked_y = np.stack([g.masked_y_ for g in gens]).reshape(len(eps), R, n)
    tstr = np.array([np.mean(g.predict(task.X_valid) == task.y_valid)
                     for g in gens]).reshape(len(eps), R)
    report(0.72, "scoring masked generation")
    scores["masked generation"] = scorer.score(masked, masked_y, tstr)
    perturbed = []
    for i, e in enumerate(eps):
        report(0.8 + 0.2 * i / len(eps), f"input perturbation at ε = {e:g}")
        perturbed.append(np.stack([
            input_perturbation(private[samples[r]], e, data_norm=task.data_norm,
                               rng=stream(seed, "masking card", "input", r))
            for r in range(R)]))
    perturbed = np.stack(perturbed)
    perturbed_y = np.broadcast_to(labels[samples], perturbed.shape[:-1])
    scores["input perturbation"] = scorer.score(perturbed, perturbed_y,
                                                scorer.accuracy(perturbed, perturbed_y))
    report(1.0, "done")
    rows = []
    for method, values in scores.items():
        for metric, table in values.items():
            at = [(np.nan, table)] if method == REFERENCE else zip(eps, table, strict=True)
            for e, reps in at:
                rows.append({"metric": metric, "method": method, "epsilon": e,
                             **summarise(reps), "repetitions": R})
    return pd.DataFrame(rows)
