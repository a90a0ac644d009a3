"""Property-based tests (hypothesis) of dpcore's validation, mechanisms and audit statistics.

Random shapes, NaNs, infinities, empty arrays and wrong dtypes must give the one documented
exception type (TypeError for a wrong type, ValueError for a wrong range, DataError for bad
data), never another; valid inputs must give outputs of the documented shape, finite.
Examples are derandomised (``derandomize=True``) so that a failure reproduces.

Outside the fast lane: these fuzz by the hundred, and hypothesis's first example in a process
reads the source of every project module it has loaded for constants (about 6 s a process in a
fresh clone, before its ``.hypothesis/`` cache exists).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dpcore import audit as A
from dpcore.mechanisms import Exponential, Gaussian, L2Laplace, Laplace
from dpcore.validation import (
    DataError,
    check_array,
    check_epsilon,
    check_random_state,
    check_scalar,
    check_unit_box,
)

pytestmark = pytest.mark.slow

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

floats_any = st.floats(allow_nan=True, allow_infinity=True, width=64)
shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5)
arrays_any = hnp.arrays(np.float64, shapes, elements=floats_any)
not_numbers = st.one_of(st.text(max_size=5), st.none(), st.lists(st.integers(), max_size=2),
                        st.just(True), st.just(False), st.dictionaries(st.text(), st.integers(),
                                                                        max_size=1))


@SETTINGS
@given(value=st.one_of(floats_any, st.integers(-10**6, 10**6), not_numbers))
def test_check_scalar_raises_only_documented_types(value):
    try:
        out = check_scalar(value, "x", min_val=0.0)
    except TypeError:
        assert isinstance(value, bool) or not isinstance(value, (int, float))
    except ValueError:
        assert not math.isfinite(float(value)) or float(value) <= 0.0
    else:
        assert math.isfinite(out) and out > 0.0


@SETTINGS
@given(value=st.one_of(floats_any, not_numbers))
def test_check_epsilon_types(value):
    try:
        eps = check_epsilon(value)
    except (TypeError, ValueError) as exc:
        assert type(exc) in (TypeError, ValueError)
    else:
        assert eps > 0.0 and math.isfinite(eps)


@SETTINGS
@given(arr=arrays_any)
def test_check_array_gives_a_finite_2d_array_or_a_data_error(arr):
    try:
        out = check_array(arr, "X")
    except DataError:
        assert arr.ndim != 2 or arr.shape[0] < 1 or not np.all(np.isfinite(arr))
    else:
        assert out.ndim == 2 and out.shape[0] >= 1 and np.all(np.isfinite(out))


@SETTINGS
@given(data=st.one_of(st.lists(st.text(max_size=3), min_size=1, max_size=4),
                      st.lists(st.lists(st.one_of(st.text(max_size=2), st.floats()), min_size=1,
                                        max_size=3), min_size=1, max_size=3)))
def test_check_array_wrong_dtypes_are_data_errors(data):
    try:
        check_array(data, "X", ndim=None, min_rows=0)
    except DataError:
        pass  # the one documented exception for bad data


@SETTINGS
@given(arr=hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=5),
                      elements=st.floats(-2, 2)), clip=st.booleans())
def test_check_unit_box(arr, clip):
    try:
        out = check_unit_box(arr, clip=clip)
    except DataError:
        assert not clip and (arr.min() < 0.0 or arr.max() > 1.0)
    else:
        assert out.min(initial=0.0) >= 0.0 and out.max(initial=0.0) <= 1.0


@SETTINGS
@given(rng=st.one_of(st.none(), st.integers(-5, 2**32), st.text(max_size=3), st.floats()))
def test_check_random_state(rng):
    try:
        gen = check_random_state(rng)
    except TypeError:
        assert not (rng is None or isinstance(rng, int))
    except ValueError:
        assert isinstance(rng, int) and rng < 0
    else:
        assert isinstance(gen, np.random.Generator)


MECHANISMS = [
    lambda e, s: Laplace(e, s),
    lambda e, s: Gaussian(e, 1e-5, s),
    lambda e, s: L2Laplace(e, s, 3),
]


@SETTINGS
@given(which=st.integers(0, 2), eps=st.one_of(floats_any, not_numbers),
       sens=st.one_of(st.floats(-1, 10), not_numbers))
def test_mechanism_parameters_raise_type_or_value_errors(which, eps, sens):
    try:
        MECHANISMS[which](eps, sens)
    except (TypeError, ValueError) as exc:
        assert type(exc) in (TypeError, ValueError)


@SETTINGS
@given(value=hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0,
                                                     max_side=4), elements=floats_any),
       which=st.integers(0, 1))
def test_randomise_keeps_the_shape_or_raises_a_data_error(value, which):
    mech = MECHANISMS[which](1.0, 1.0)
    try:
        out = mech.randomise(value, rng=0)
    except DataError:
        assert not np.all(np.isfinite(value))
    else:
        assert np.shape(out) == value.shape and np.all(np.isfinite(out))


@SETTINGS
@given(value=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=0,
                                                     max_side=4), elements=floats_any))
def test_l2laplace_and_exponential_on_random_shapes(value):
    for mech in (L2Laplace(1.0, 1.0, value.shape[-1] or 1), Exponential(1.0, 1.0)):
        try:
            out = mech.randomise(value, rng=0)
        except DataError:
            pass  # NaN/inf, an empty candidate axis or a dimension mismatch
        else:
            expected = value.shape if isinstance(mech, L2Laplace) else value.shape[:-1]
            assert np.shape(out) == expected


@SETTINGS
@given(k=st.integers(0, 60), n=st.integers(1, 60), alpha=st.floats(0.001, 0.5))
def test_clopper_pearson_upper_is_a_probability_above_the_estimate(k, n, alpha):
    k = min(k, n)
    up = float(A.clopper_pearson_upper(k, n, alpha))
    assert k / n <= up <= 1.0


@SETTINGS
@given(fpr=st.floats(0, 1), fnr=st.floats(0, 1), delta=st.floats(0, 0.5))
def test_epsilon_from_rates_is_non_negative_and_monotone(fpr, fnr, delta):
    eps = float(A.epsilon_from_rates(fpr, fnr, delta))
    assert eps >= 0.0
    assert float(A.epsilon_from_rates(min(1.0, fpr + 0.1), fnr, delta)) <= eps + 1e-12


@SETTINGS
@given(v=st.integers(0, 50), r=st.integers(1, 50))
def test_one_run_epsilon_is_non_negative_and_monotone_in_correct_guesses(v, r):
    v = min(v, r)
    e = A.one_run_epsilon(r, v)
    assert e >= 0.0
    if v < r:
        assert A.one_run_epsilon(r, v + 1) >= e


@pytest.mark.parametrize("bad", [np.array([np.nan] * 30), np.array([])])
def test_audit_scores_bad_arrays(bad):
    with pytest.raises((DataError, ValueError)):
        A.audit_scores(bad, np.zeros(30))
