"""The grey-box sensitivity check (issue 37 item 1): every release's computation before its
noise, on neighbouring pairs with the noise held identical, against its declared sensitivity.

Every real release must come back ``ok`` and every variant broken on purpose must be caught,
at a size that fits the fast lane and at 10^4 pairs in the slow lane. The seeds are fixed; the
one tolerance is the rounding allowance of floating point
(:func:`dpcore.audit.sensitivity.rounding_allowance`, derived from Higham's bound on
summation), tested here against a distance that is exact.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import dpcore.audit
from dpcore.audit.sensitivity import (
    VERIFY_EVERY,
    Probe,
    Run,
    check_probe,
    random_pairs,
    rounding_allowance,
)
from dpcore.perturbation.amp import amp_calibration
from dpcore.perturbation.model import TOL
from dpcore.perturbation.objective import amp_sensitivity
from dpcore.perturbation.output import output_sensitivity
from dpcore.releases.sensitivity.checks import PROBES, check_sensitivity, release_names
from dpcore.releases.sensitivity.models import EPSILON, OUTPUT

NAMES = release_names()
REAL = [name for name in NAMES if not name.endswith("(broken)")]
BROKEN = [name for name in NAMES if name.endswith("(broken)")]
KEYS = {"declared", "measured", "pairs", "branches_differ", "ok"}
# Fast lane: every pair at the bounds (at most 8 per probe) and as many random ones.
FAST_PAIRS = 16


def test_the_audit_face_names_the_contract_entry_points():
    assert dpcore.audit.release_names() == NAMES
    assert dpcore.audit.check_sensitivity is check_sensitivity
    assert all(len(PROBES[name].bounds()) <= FAST_PAIRS // 2 for name in NAMES)


def test_every_release_and_the_three_kinds_of_fault_are_listed():
    assert len(REAL) >= 11 and len(set(NAMES)) == len(NAMES)
    for fault in ("halved", "sensitivity 0", "read from the data"):
        assert any(fault in name for name in BROKEN), fault
    assert any(name.startswith("importance") for name in REAL)
    assert any("output perturbation" in name for name in REAL)
    assert any(name.startswith("optimal subset") for name in REAL)
    assert any(name.startswith("masking") for name in REAL)
    assert any("approximate minima perturbation" in name for name in REAL)
    # every noisy step: AMP's output noise (the solver's term) and the subset's criteria too
    assert any("certified solve and output noise" in name for name in REAL)
    assert any(name.startswith("optimal subset: selection criteria") for name in REAL)
    assert any("solve looser" in name for name in BROKEN)


@pytest.mark.parametrize("name", REAL)
def test_every_release_runs_pairs_at_the_data_bounds_first(name):
    """The largest record, a flipped label, a group or class emptied, a record far outside the
    domain: at least three such pairs per probe, each a pair of two different datasets."""
    bounds = PROBES[name].bounds()
    assert len(bounds) >= 3
    assert all(first is not second for first, second in bounds)


def test_the_solver_terms_are_declared():
    """Output perturbation declares 2/(n lam) plus the solver's term 2 sqrt(2 TOL / lam); AMP's
    output noise declares 2 r = 2 sqrt(2 TOL / mu), its solver's term alone."""
    n, lam = OUTPUT["n"], OUTPUT["lam"]
    output = check_sensitivity("logistic regression: output perturbation (replace one record)",
                               pairs=4)
    assert output["declared"] == pytest.approx(output_sensitivity(n, lam, gap=TOL), rel=1e-12)
    assert output["declared"] > 2.0 / (n * lam)
    amp = check_sensitivity("logistic regression: approximate minima perturbation, the "
                            "certified solve and output noise (replace one record)", pairs=4)
    mu = amp_calibration(EPSILON, n=n, lam=lam).lam_total
    assert amp["declared"] == pytest.approx(amp_sensitivity(TOL, mu), rel=1e-12)
    assert 0.0 < amp["measured"] <= amp["declared"]


@pytest.mark.parametrize("name", NAMES)
def test_each_release_is_ok_and_each_broken_variant_is_caught(name):
    result = check_sensitivity(name, pairs=FAST_PAIRS, seed=0)
    assert KEYS <= set(result) and result["pairs"] == FAST_PAIRS
    assert result["ok"] is (name in REAL)
    if name in REAL:
        assert result["branches_differ"] == 0 and result["measured"] > 0.0
        assert result["measured"] <= result["declared"] * (1.0 + 1e-12)
    else:
        assert result["branches_differ"] > 0 or result["measured"] > result["declared"]


@pytest.mark.parametrize("name", ["primer: sum (replace one record)",
                                  "primer: sum per group (replace one record)",
                                  "primer: count per group (replace one record)",
                                  "optimal subset: ranking counts, step 2 (replace one private "
                                  "record)",
                                  "optimal subset: candidates' counts, step 4 (replace one "
                                  "private record)"])
def test_the_pairs_at_the_bounds_reach_the_declared_sensitivity(name):
    """The largest record against the smallest (a record moving between groups at the bound, or
    from one public point to another) reaches the sensitivity: a sensitivity halved or worse is
    caught on these releases."""
    result = check_sensitivity(name, pairs=FAST_PAIRS)
    assert result["measured"] == pytest.approx(result["declared"], rel=1e-12)


def test_the_check_is_reproducible():
    name = "importance weights: beta (replace one private record)"
    pairs = len(PROBES[name].bounds()) + 4
    first, again = (check_sensitivity(name, pairs=pairs, seed=3) for _ in range(2))
    assert first == again
    other = check_sensitivity(name, pairs=pairs, seed=4)
    assert (other["declared"], other["ok"]) == (first["declared"], first["ok"])


def _probe(run, name="toy") -> Probe:
    pair = (np.array([0.0]), np.array([1.0]))
    return Probe(name, "L1", "replace one record", run, lambda: [pair],
                 lambda gen: (np.array([gen.random()]), np.array([gen.random()])))


def test_a_refusal_that_one_record_triggers_is_a_branch():
    def run(x, seed):
        if x[0] > 0.5:
            raise ValueError("refused: too large")
        return Run(x.copy(), 1.0)

    result = check_probe(_probe(run), pairs=50, seed=1)
    assert result["branches_differ"] > 0 and not result["ok"]


def test_a_probe_that_only_refuses_is_not_ok():
    def run(x, seed):
        raise ValueError("always refused")

    result = check_probe(_probe(run), pairs=5)
    assert math.isnan(result["declared"]) and result["branches_differ"] == 0
    assert not result["ok"]


def test_a_sensitivity_read_from_the_data_is_a_branch():
    result = check_probe(_probe(lambda x, seed: Run(x.copy(), 1.0 + x[0])), pairs=3)
    assert result["branches_differ"] == 3 and not result["ok"]


def test_the_rounding_allowance_accepts_rounding_and_nothing_more():
    """Summing n values in [0, 1] twice, one of them changed from 0 to 1, with identical noise:
    the computed distance is 1 up to rounding, inside the allowance; 1 + 1e-6 is outside it."""
    gen = np.random.default_rng(0)
    values = gen.random(1000)
    noise = 1e3 * gen.laplace()
    first, second = values.copy(), values.copy()
    first[-1], second[-1] = 0.0, 1.0
    a = Run(np.array([first.sum() + noise]), 1.0, terms=1000, magnitude=first.sum())
    b = Run(np.array([second.sum() + noise]), 1.0, terms=1000, magnitude=second.sum())
    allowance = rounding_allowance(a, b, "L1")
    assert abs(abs(a.value[0] - b.value[0]) - 1.0) <= allowance < 1e-6


def _batched(run, batch) -> Probe:
    return dataclasses.replace(_probe(run), batch=batch)


def test_a_batch_that_agrees_with_the_release_changes_nothing():
    name = "primer: sum per group (replace one record)"
    pairs = 2 * VERIFY_EVERY + 3
    batched = check_probe(PROBES[name], pairs=pairs, seed=2)
    alone = check_probe(dataclasses.replace(PROBES[name], batch=None), pairs=pairs, seed=2)
    assert batched["batch_differs"] == 0 and batched["ok"] and alone["ok"]
    assert (batched["declared"], batched["branches_differ"]) == (alone["declared"], 0)
    assert batched["measured"] == pytest.approx(alone["measured"], rel=1e-12)


def test_a_batch_that_disagrees_with_the_release_is_caught():
    """A batch that drops a record's contribution: the verified runs expose it, though every
    pair it runs alone passes."""
    def run(x, seed):
        return Run(x.copy(), 1.0)

    def batch(datasets, seeds):
        return [Run(0.5 * x, 1.0) for x in datasets]

    result = check_probe(_batched(run, batch), pairs=VERIFY_EVERY + 2, seed=0)
    assert result["batch_differs"] > 0 and not result["ok"]
    refusing = check_probe(_batched(run, lambda d, s: [("refused", "no")] * len(d)),
                           pairs=VERIFY_EVERY + 2)
    assert refusing["batch_differs"] > 0 and not refusing["ok"]


def test_a_star_runs_its_dataset_once_with_one_seed():
    calls = []

    def run(x, seed):
        calls.append((x.tobytes(), seed))
        return Run(x.copy(), 1.0)

    random_pair, random_star = random_pairs(lambda gen: gen.random(3),
                                            lambda gen, x: np.r_[x[:-1], gen.random()])
    probe = Probe("star", "L1", "replace one record", run, lambda: [], random_pair,
                  random_star=random_star, star=5)
    result = check_probe(probe, pairs=10)
    assert result["ok"] and result["pairs"] == 10
    assert len(calls) == len(set(calls)) == 2 * (1 + 5)  # two stars of a dataset and 5 others
    assert len({seed for _, seed in calls}) == 2


def test_the_criteria_are_checked_in_the_largest_utility_change():
    """Step 5: the exponential mechanism's utilities, each of sensitivity S (L-infinity)."""
    result = check_sensitivity("optimal subset: selection criteria, step 5 (replace one "
                               "private record)", pairs=FAST_PAIRS)
    assert result["norm"] == "Linf" and result["ok"]
    assert 0.0 < result["measured"] < result["declared"]


def test_unknown_names_and_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="release_names"):
        check_sensitivity("no such release", pairs=1)
    with pytest.raises(ValueError, match="pairs"):
        check_sensitivity(REAL[0], pairs=0)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_name_at_ten_thousand_pairs(name):
    result = check_sensitivity(name, pairs=10_000, seed=0)
    assert result["pairs"] == 10_000 and result["ok"] is (name in REAL)
