"""The floating-point attack (issue 21): its statistics, its exact predicates, and the audit.

The predicates must be exact, not statistical: every output numpy's sampler makes from an answer
is reachable from that answer (no false alarm, ever), every output of the release path is
reachable from any answer, and constructed doubles that cannot come out are refused. The
acceptance test runs the whole catalogue at 20,000 runs per dataset (95 % Clopper-Pearson): every
release stays at or below its claimed ε under both attacks, and numpy's sampler is caught.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import audit_float as F
from dpcore.audit import audit_ceiling
from dpcore.mechanisms import Gaussian, L2Laplace, Laplace
from dpcore.random import stream

# --- trailing zero bits ----------------------------------------------------------------------


@pytest.mark.parametrize(("value", "zeros"), [
    (1.0, 52), (-1.0, 52), (2.0**-1000, 52),  # powers of two: significand 2^52
    (3.0, 51), (0.75, 51), (1.0 + 2.0**-52, 0), (1.0 + 2.0**-51, 1),
    (0.1, 1),  # 0x1999999999999A: ends in binary 1010
    (5e-324, 0), (4 * 5e-324, 2),  # subnormals: no hidden bit
    (0.0, 53),
])
def test_trailing_zero_bits_of_known_doubles(value, zeros):
    assert F.trailing_zero_bits(value) == zeros


def test_trailing_zero_bits_keeps_the_shape_and_refuses_nan():
    assert F.trailing_zero_bits(np.ones((3, 2))).shape == (3, 2)
    with pytest.raises(ValueError, match="finite"):
        F.trailing_zero_bits([1.0, np.nan])


# --- numpy's sampler, modelled exactly -------------------------------------------------------


@pytest.mark.parametrize("scale", [1.0, 0.37, 40.0])
def test_the_model_reproduces_numpy_laplace_bit_for_bit(scale):
    """The one test that says whether numpy's sampler is still the one modelled: the C
    library's ``log`` (not ``np.log``, which differs on ~0.3 % of arguments with AVX-512) in
    ``random_laplace``. The tests that rely on the model skip, pointing here, when it fails."""
    wrong = F.model_matches_numpy(scale, 100_000)
    assert wrong == 0, (
        f"{wrong} of 100,000 numpy Laplace draws (scale {scale}) differ from the model in "
        f"dpcore.audit_float._numpy_laplace_output (numpy {np.__version__}): numpy changed its "
        "sampler or its log; update the model to the function numpy's random_laplace calls.")


def test_the_model_uses_the_c_library_log():
    """``_c_log`` is ``math.log`` element by element, on arguments where ``np.log`` may differ."""
    x = stream(4, "float-audit", "log").random(10_000) + 0.5
    assert np.array_equal(F._c_log(x), np.array([math.log(v) for v in x.tolist()]))


@pytest.mark.parametrize("truth", [0.0, 1.0, -5.2, 512.37, 1e-3, 2.0**-40])
@pytest.mark.parametrize("scale", [1.0, 0.37, 40.0])
def test_every_numpy_output_is_reachable_from_its_own_answer(truth, scale, numpy_model):
    """Exact: a single miss would be a false alarm of certainty."""
    gen = stream(0, "float-audit", truth, scale)
    out = truth + gen.laplace(0.0, scale, size=20_000)
    assert F.reachable_numpy_laplace(out, truth, scale).all()


def test_numpy_outputs_of_a_neighbour_are_mostly_unreachable(numpy_model):
    out = 1.0 + stream(1, "float-audit").laplace(0.0, 1.0, size=20_000)
    share = F.reachable_numpy_laplace(out, 0.0, 1.0).mean()
    assert 0.0 < share < 0.5  # about 0.2: the attack's power


def test_hand_checked_numpy_cases(numpy_model):
    # U = 1/2 (k = 2^52) gives noise 0: the answer itself is an output.
    assert F.reachable_numpy_laplace([0.0, 1.0], [0.0, 1.0], 1.0).all()
    # From 1, an output below 1 is 1 + n with n in [-1, -1/2]: exact (Sterbenz), a multiple of
    # 2^-53, so 1/4 + 2^-54 (a double: its ulp is 2^-54) never comes out, at any scale.
    odd = 0.25 + 2.0**-54
    for scale in (1.0, 7.5, 0.01):
        assert not F.reachable_numpy_laplace(odd, 1.0, scale)
    # From 0 at scale 1 the smallest positive noise is about 2^-53 (k = 2^52 + 1): 2^-60 is out.
    assert not F.reachable_numpy_laplace(2.0**-60, 0.0, 1.0)
    assert not F.reachable_numpy_laplace([np.nan, np.inf], 0.0, 1.0).any()


# --- the release's sampler -------------------------------------------------------------------


def test_reachable_release_on_the_boundaries():
    below = math.ldexp(1.0, -8)  # 2^-8: from here on every double is a multiple of 2^-60
    cases = {
        below: True, below + 2.0**-60: True, np.nextafter(below, 0.0): False,  # 2^-8 - 2^-61
        7 * 2.0**-60: True, 3 * 2.0**-61: False, 2.0**-70: False, -(2.0**-60): True,
        0.0: True, 1e300: True, np.inf: False, np.nan: False,
    }
    got = F.reachable_release(list(cases), truth=123.0)
    assert got.tolist() == list(cases.values())


def test_every_release_output_is_reachable_from_any_answer():
    outputs = [Laplace(1.0, 1.0).release(np.zeros(5000)),
               Laplace(1.0, 1e-15).release(np.zeros(5000)),  # outputs far below 2^-8
               Gaussian(1.0, 1e-5, 1.0).release(np.full(2000, 0.1)),
               L2Laplace(1.0, 0.5, 3).release(np.full((1000, 3), 0.3))]
    for out in outputs:
        assert F.reachable_release(out, truth=0.0).all()
        assert F.reachable_release(out, truth=1.0).all()
    tiny = Laplace(1.0, 1e-15).release(np.zeros(5000))
    assert (np.abs(tiny) < 2.0**-8).all() and F.trailing_zero_bits(tiny).mean() > 10


def test_the_release_predicate_has_teeth_on_numpy_outputs():
    """Tiny numpy outputs are off the 2^-60 grid: the predicate does not accept everything."""
    out = stream(2, "float-audit").laplace(0.0, 1e-15, size=5000)
    assert F.reachable_release(out).mean() < 0.01


# --- the catalogue and the audit -------------------------------------------------------------


def test_catalogue_covers_every_release_and_the_broken_rows():
    cases = F.float_cases(1.0)
    assert [c.key for c in cases] == list(F.FLOAT_KEYS)
    assert {c.key for c in cases if c.broken} == set(F.BROKEN_FLOAT_KEYS)
    for case in cases:
        assert case.truth_d.shape == case.truth_dprime.shape
        if case.applicable:
            assert not np.array_equal(case.truth_d, case.truth_dprime), case.key
    assert not F.float_case("exponential").applicable
    with pytest.raises(ValueError, match="Unknown"):
        F.float_cases(1.0, ["nope"])


@pytest.mark.parametrize("key", F.BROKEN_FLOAT_KEYS)
def test_broken_rows_generate_what_their_predicate_accepts(key, numpy_model):
    """The broken rows' predicate models exactly how their outputs are made."""
    case = F.float_case(key, 0.5)
    values = np.broadcast_to(case.truth_d, (5000, case.truth_d.size)).copy()
    out = case.release(values, np.random.default_rng(3))
    assert case.reachable(out, case.truth_d).all()


def test_float_audit_on_a_small_budget(numpy_model):
    release = F.float_audit(F.float_case("primer_count"), 2000, rng=0)
    broken = F.float_audit(F.float_case("numpy_count"), 2000, rng=0)
    assert release.reachability_lb == 0.0 and not release.flagged
    assert release.reachable_d == release.reachable_dprime == 1.0
    assert broken.reachable_d == 1.0 and broken.reachable_dprime < 0.5
    assert broken.flagged and broken.reachability_lb > 4.0
    assert broken.ceiling == audit_ceiling(2000)
    assert broken.zeros_hist_d.sum() == broken.zeros_hist_dprime.sum() == 2000
    assert set(release.row()) >= {"reachability bound", "granularity bound", "flagged"}


def test_float_audit_of_an_index_and_bad_input():
    res = F.float_audit(F.float_case("exponential"), 2000)
    assert res.runs == 0 and math.isnan(res.reachability_lb) and not res.flagged
    with pytest.raises(TypeError, match="FloatCase"):
        F.float_audit("primer_count")
    with pytest.raises(ValueError, match="runs"):
        F.float_audit(F.float_case("primer_count"), 10)


@pytest.mark.slow
def test_acceptance_every_release_at_or_below_its_claim_and_numpy_caught(numpy_model):
    """Issue 21: >= 20,000 runs per dataset, 95 % Clopper-Pearson, every release mechanism."""
    results = [F.float_audit(case, 20_000, 0.95, rng=0) for case in F.float_cases(1.0)]
    print("\n" + F.markdown_table(results))
    for r in results:
        if not r.case.applicable:
            continue
        assert r.runs >= 20_000
        assert r.reachable_d == 1.0, r.case.key  # exact: D's outputs are reachable from D
        if r.case.broken:
            assert r.flagged and r.reachability_lb > 5.0 * r.case.epsilon, r.case.key
        else:
            assert r.reachability_lb <= r.case.epsilon, r.case.key
            assert r.granularity_lb <= r.case.epsilon, r.case.key
            assert r.reachable_dprime == 1.0 and not r.flagged, r.case.key
