"""The parameter checks of dpcore.validation: what each accepts, and what its refusal says."""

import math

import numpy as np
import pytest

from dpcore.validation import (
    check_bool,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_level,
    check_scalar,
    check_sensitivity,
    check_str,
)


@pytest.mark.parametrize(("value", "expected"), [
    (3, 3), (np.int64(0), 0), (np.uint8(7), 7),
])
def test_check_int_returns_an_int(value, expected):
    out = check_int(value, "n", min_val=0)
    assert out == expected and type(out) is int


@pytest.mark.parametrize(("value", "error", "match"), [
    (2.0, TypeError, r"^n must be an int, got float \(2\.0\)\. n counts the draws\.$"),
    (True, TypeError, r"^n must be an int, got bool \(True\)\."),
    ("3", TypeError, r"got str \('3'\)"),
    (None, TypeError, "got NoneType"),
    (0, ValueError, r"^n == 0, must be >= 1\. n counts the draws\.$"),
    (np.int32(-4), ValueError, r"^n == -4, must be >= 1\."),
])
def test_check_int_refuses_with_what_to_pass(value, error, match):
    with pytest.raises(error, match=match):
        check_int(value, "n", min_val=1, advice="n counts the draws.")


def test_check_int_without_bound_or_advice():
    assert check_int(-5, "offset") == -5
    with pytest.raises(TypeError, match=r"^offset must be an int, got float \(0\.5\)\.$"):
        check_int(0.5, "offset")


@pytest.mark.parametrize("value", [True, False, np.bool_(True), np.bool_(False)])
def test_check_bool_returns_a_bool(value):
    out = check_bool(value, "fit_intercept")
    assert out == bool(value) and type(out) is bool


@pytest.mark.parametrize(("value", "kind"), [(1, "int"), (0.0, "float"), ("yes", "str"),
                                             (None, "NoneType")])
def test_check_bool_refuses_anything_else(value, kind):
    with pytest.raises(TypeError, match=rf"^fit_intercept must be True or False, got {kind}\.$"):
        check_bool(value, "fit_intercept")


def test_check_str_accepts_text_and_blank_only_when_allowed():
    assert check_str("adult", "dataset", allow_empty=False) == "adult"
    assert check_str("", "note") == ""
    with pytest.raises(ValueError, match=r"^dataset is empty\. Name it\.$"):
        check_str("  ", "dataset", allow_empty=False, advice="Name it.")
    with pytest.raises(TypeError, match=r"^dataset must be a str, got int \(3\)\. Name it\.$"):
        check_str(3, "dataset", advice="Name it.")


def test_check_epsilon_says_what_epsilon_does():
    assert check_epsilon(2) == 2.0
    with pytest.raises(ValueError, match=r"^epsilon == 0, must be > 0\. A smaller epsilon means "
                                         r"more privacy and more noise; pass e\.g\. epsilon=1\.0"):
        check_epsilon(0.0)
    with pytest.raises(ValueError, match=r"^epsilon3 == -1, .* pass e\.g\. epsilon3=1\.0\.$"):
        check_epsilon(-1, "epsilon3")
    with pytest.raises(ValueError, match="must be finite"):
        check_epsilon(math.inf)
    with pytest.raises(TypeError, match="must be a real number"):
        check_epsilon("1")


def test_check_sensitivity():
    assert check_sensitivity(np.float32(0.5)) == 0.5
    with pytest.raises(ValueError, match=r"^sensitivity == 0, must be > 0\. It is the largest "
                                         r"change .* release it without a mechanism\.$"):
        check_sensitivity(0)
    with pytest.raises(TypeError, match="sensitivity must be a real number"):
        check_sensitivity(None)


@pytest.mark.parametrize("delta", [1e-12, 1e-6, 0.5, np.nextafter(1.0, 0.0)])
def test_check_delta_accepts_the_open_unit_interval(delta):
    assert check_delta(delta) == delta


@pytest.mark.parametrize(("delta", "match"), [
    (0.0, r"^delta == 0, must be in \(0, 1\): the probability that the epsilon guarantee "
          r"fails, in practice much smaller than 1/n_records \(e\.g\. delta=1e-6\)\. For "
          r"delta = 0 use a pure epsilon-DP mechanism \(Laplace\)\.$"),
    (1.0, r"^delta == 1, must be in \(0, 1\): the probability"),
    (math.nan, "must be finite"),
])
def test_check_delta_refuses_with_what_to_pass(delta, match):
    with pytest.raises(ValueError, match=match):
        check_delta(delta)


def test_check_level():
    assert check_level(0.95) == 0.95
    for level in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match=r"^level == .*, must be in \(0, 1\): the "
                                             r"probability that the noise stays within the "
                                             r"error bound.*\(e\.g\. level=0\.95\)\.$"):
            check_level(level)
    with pytest.raises(ValueError, match=r"^q == 1, .*\(e\.g\. q=0\.95\)\.$"):
        check_level(1, "q")


def test_check_scalar_and_check_choice_end_with_the_advice():
    assert check_scalar(0.0, "tol", min_val=0.0, include_min=True, advice="Try 1e-6.") == 0.0
    with pytest.raises(ValueError, match=r"^tol == -1, must be >= 0\. Try 1e-6\.$"):
        check_scalar(-1, "tol", min_val=0.0, include_min=True, advice="Try 1e-6.")
    with pytest.raises(ValueError, match=r"^tol == 2, must be <= 1\.$"):
        check_scalar(2, "tol", max_val=1.0)
    assert check_choice("zcdp", "method", ("sequential", "zcdp"), advice="See docs.") == "zcdp"
    with pytest.raises(ValueError, match=r"^method == 'rdp', must be one of \('sequential', "
                                         r"'zcdp'\)\. See docs\.$"):
        check_choice("rdp", "method", ("sequential", "zcdp"), advice="See docs.")
    with pytest.raises(TypeError, match=r"^method must be a str, one of .*, got int \(1\)\. "
                                        r"See docs\.$"):
        check_choice(1, "method", ("sequential", "zcdp"), advice="See docs.")
