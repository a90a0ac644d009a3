"""Grey-box probe of approximate minima perturbation's output step ([IKN19]_ Algorithm 1, steps
3-4): the certified solve and the output noise whose sensitivity ``2 r`` is the solver's term.

The release minimises the perturbed objective to a certified gap ``tol``, so its solution lies
within ``r = sqrt(2 tol / mu)`` of the exact minimiser for its noise
(:func:`~dpcore.perturbation.amp.certified_solve`), and adds L2-Laplace noise of sensitivity
``2 r`` (:func:`~dpcore.perturbation.objective.amp_sensitivity`). Its privacy argument couples
the objective's noise on the two datasets so that they have the same exact minimiser ``w``
(the change of variables of [CMS11]_ Theorem 9, whose cost the objective's noise pays and
:func:`~dpcore.releases.sensitivity.models.amp_probe` checks): on that coupling the two
approximate minimisers, each within ``r`` of ``w``, are at most ``2 r`` apart.

So each run draws ``w`` from the pair's seed (the same on both datasets), takes as the
objective's noise the vector ``b_D(w) = -grad(n J_D)(w)`` that makes ``w`` the exact minimiser
on its dataset, runs the release's certified solve from the release's start (the fit without
noise, certified first: the release refuses before spending when it is not) and adds the
output noise from the seed; the value is the released vector, the declared sensitivity ``2 r``
of the release's own tolerance :data:`~dpcore.perturbation.model.TOL`, the flow the
calibration. A solve that cannot be certified is a refusal (the release raises), so a
certificate that holds on one dataset and not on the other is a branch; the number of the
solver's iterations is not compared (the solver's term covers it). Each random pair is run
with :data:`REUSE` seeds (points ``w``), its fit without noise computed once
(:class:`~dpcore.audit.sensitivity.Recent`), and a dataset's seeds are solved in one batch as
the release solves many releases at once (:attr:`~dpcore.audit.sensitivity.Probe.batch`; two
solves of one objective agree within their certified ``2 r``). The pairs are output perturbation's
(:func:`~dpcore.releases.sensitivity.models.output_probe`: ``u`` against ``-u``, a flipped
label, one that empties a class, a record far outside the unit ball).

Broken on purpose (:func:`amp_output_probe` with ``solve_tol``): a solve certified to a gap
looser than the one the output noise is calibrated to.

References
----------
.. [IKN19] Iyengar, Near, Song, Thakkar, Thakurta & Wang (2019), *Towards practical
   differentially private convex optimization*, IEEE S&P, Algorithm 1 and Theorem 1.
.. [CMS11] Chaudhuri, Monteleoni & Sarwate (2011), *Differentially private empirical risk
   minimization*, JMLR 12, Theorem 9.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from dpcore.audit.sensitivity import Recent, Run
from dpcore.logistic import logistic_gradient
from dpcore.perturbation.amp import AMP_UNCERTIFIED, amp_calibration, amp_laws, certified_solve
from dpcore.perturbation.model import TOL, prepare
from dpcore.perturbation.objective import amp_sensitivity
from dpcore.perturbation.output import UNCERTIFIED
from dpcore.releases.sensitivity.models import EPSILON, OUTPUT, SPREAD, LogisticData, output_probe
from dpcore.validation import DataError

__all__ = ["REUSE", "amp_output_probe"]

#: Seeds (points ``w``) each random pair is run with.
REUSE = 10


def amp_output_probe(name: str, *, solve_tol: float = TOL):
    """The probe of approximate minima perturbation's certified solve and output noise (see the
    module's docstring).

    Parameters
    ----------
    name : str
    solve_tol : float, default=TOL
        The gap the solve is certified to; the output noise is calibrated to ``TOL`` whatever
        it is (a ``solve_tol`` above ``TOL`` is the variant broken on purpose).

    Returns
    -------
    Probe
    """
    lam = OUTPUT["lam"]
    pairs = output_probe(name)

    def start(data: LogisticData):
        X, y = data
        scaled = prepare(X, y, data_norm=1.0, fit_intercept=True, classes=(0, 1))
        cal = amp_calibration(EPSILON, n=scaled.n, lam=lam)
        fit, ok = certified_solve(scaled.Z, scaled.y01, scaled.problem,
                                  np.zeros((1, scaled.Z.shape[1])), lam_total=cal.lam_total,
                                  n_noise=scaled.n, tol=solve_tol, coef_init=None, prior=None)
        return scaled, cal, fit[0], bool(ok.all())

    recent = Recent(start)

    def runs(data: LogisticData, seeds: Sequence[int]) -> list[Run | tuple[str, str]]:
        """The release's steps 3-4 on ``data`` for every seed, solved in one batch."""
        scaled, cal, fit, ok = recent(data)
        n, mu = scaled.n, cal.lam_total
        if not ok:
            refused = ("refused", UNCERTIFIED.format(tol=solve_tol, lam=mu, n=n))
            return [refused for _ in seeds]
        gens = [np.random.default_rng(seed) for seed in seeds]
        points = SPREAD * np.array([gen.normal(size=scaled.Z.shape[1]) for gen in gens])
        noise = -np.array([logistic_gradient(w, scaled.Z, scaled.y01, lam=n * mu)
                           for w in points])
        solved, certified = certified_solve(scaled.Z, scaled.y01, scaled.problem, noise,
                                            lam_total=mu, n_noise=n, tol=solve_tol,
                                            coef_init=fit, prior=None)
        _, output = amp_laws(cal, TOL, solved.shape[1])  # the release's own output law
        declared = output.sensitivity
        refused = ("refused", AMP_UNCERTIFIED.format(tol=solve_tol, lam=mu, n=n,
                                                     spent="Nothing was released."))
        return [Run(np.asarray(output.draw(row, rng=gen), dtype=float), declared,
                    flow=(mu, cal.epsilon_correction), terms=n,
                    slack=amp_sensitivity(solve_tol, mu)) if good else refused
                for row, good, gen in zip(solved, certified, gens, strict=True)]

    def run(data: LogisticData, seed: int) -> Run:
        outcome = runs(data, [seed])[0]
        if not isinstance(outcome, Run):
            raise DataError(outcome[1])
        return outcome

    def batch(datasets: Sequence[LogisticData],
              seeds: Sequence[int]) -> list[Run | tuple[str, str]]:
        """:func:`runs` on each dataset with its seeds (a dataset's seeds solved together)."""
        outcomes: list = [None] * len(datasets)
        groups: list[tuple[LogisticData, list[int]]] = []
        for i, data in enumerate(datasets):
            held = next((rows for d, rows in groups if d is data), None)
            if held is None:
                groups.append((data, [i]))
            else:
                held.append(i)
        for data, rows in groups:
            for i, outcome in zip(rows, runs(data, [seeds[i] for i in rows]), strict=True):
                outcomes[i] = outcome
        return outcomes

    return dataclasses.replace(pairs, run=run, batch=batch, reuse=REUSE, star=1)
