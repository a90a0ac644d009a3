"""Named reproducible streams: same seed and keys give the same numbers, anything else differs."""

import numpy as np
import pytest

from dpcore.random import spawn, stream, study_seed

N = 10_000


def _draws(gen, n=8):
    return gen.integers(0, 2**63, size=n)


def test_same_seed_and_keys_give_the_same_numbers():
    a = _draws(stream(11, "noise", 0.5, 3))
    b = _draws(stream(11, "noise", 0.5, 3))
    np.testing.assert_array_equal(a, b)
    # Drawing other streams in between changes nothing.
    _draws(stream(11, "baselines", 0.5))
    np.testing.assert_array_equal(a, _draws(stream(11, "noise", 0.5, 3)))


@pytest.mark.parametrize(
    "keys",
    [
        ("noise", 0.5, 4),  # other int
        ("noise", 0.5, 3.0),  # float instead of int
        ("noise", 0.5, "3"),  # str instead of int
        ("noise", 0.25, 3),  # other float
        (0.5, "noise", 3),  # other order
        ("noise", 0.5),  # prefix
        ("noise", 0.5, 3, 0),  # longer
        ("Noise", 0.5, 3),  # other str
        (),
    ],
)
def test_other_keys_give_other_numbers(keys):
    # 8 draws from 2**63 values coincide by chance with probability 2**-504: a collision would
    # mean the key encoding collides.
    ref = _draws(stream(11, "noise", 0.5, 3))
    assert not np.array_equal(ref, _draws(stream(11, *keys)))


def test_seed_matters_and_types_are_tagged():
    assert not np.array_equal(_draws(stream(1, "a")), _draws(stream(2, "a")))
    values = [_draws(stream(5, key)) for key in (1, 1.0, "1", 2**32 + 1, 0, 0.0, "")]
    assert len({v.tobytes() for v in values}) == len(values)
    # Equal floats name the same stream; numpy scalars are their Python values.
    np.testing.assert_array_equal(_draws(stream(5, -0.0)), _draws(stream(5, 0.0)))
    np.testing.assert_array_equal(_draws(stream(5, np.float64(0.1))), _draws(stream(5, 0.1)))
    np.testing.assert_array_equal(_draws(stream(5, np.int64(7))), _draws(stream(5, 7)))


def test_spawn_is_reproducible_and_independent_of_the_worker_count():
    few = [_draws(g) for g in spawn(3, 2, "grid", 0.1)]
    many = [_draws(g) for g in spawn(3, 6, "grid", 0.1)]
    np.testing.assert_array_equal(few[0], many[0])
    np.testing.assert_array_equal(few[1], many[1])
    # Children differ from each other and from every plain stream of the same keys.
    assert len({m.tobytes() for m in many}) == 6
    parent = _draws(stream(3, "grid", 0.1))
    assert all(not np.array_equal(parent, m) for m in many)
    assert spawn(3, 0, "grid") == []


def test_spawned_streams_are_uncorrelated():
    # For independent N(0, 1) samples the sample correlation has SD 1/sqrt(N); 5 SD bound.
    x = np.stack([g.standard_normal(N) for g in spawn(9, 4, "x")])
    r = np.corrcoef(x)[np.triu_indices(4, k=1)]
    assert np.all(np.abs(r) < 5 / np.sqrt(N))


def test_study_seed():
    assert study_seed(12) == 12
    assert study_seed(np.int64(12)) == 12
    g1, g2 = np.random.default_rng(4), np.random.default_rng(4)
    s = study_seed(g1)
    assert s == study_seed(g2) and 0 <= s < 2**63
    assert study_seed(g1) != s  # the Generator advanced
    ss = np.random.SeedSequence(123)
    assert study_seed(ss) == study_seed(np.random.SeedSequence(123)) < 2**64
    fresh = {study_seed() for _ in range(3)}
    assert len(fresh) == 3 and all(isinstance(v, int) and v >= 0 for v in fresh)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: stream(-1, "a"), ValueError, "seed == -1"),
        (lambda: stream(1.5, "a"), TypeError, "seed must be an int"),
        (lambda: stream(True, "a"), TypeError, "seed must be an int"),
        (lambda: stream(np.random.default_rng(0), "a"), TypeError, "study_seed"),
        (lambda: stream(0, True), TypeError, "got bool"),
        (lambda: stream(0, -3), ValueError, "must be >= 0"),
        (lambda: stream(0, float("nan")), ValueError, "NaN"),
        (lambda: stream(0, None), TypeError, "got NoneType"),
        (lambda: stream(0, (1, 2)), TypeError, "got tuple"),
        (lambda: spawn(0, -1), ValueError, "n == -1"),
        (lambda: spawn(0, 2.0), TypeError, "n must be an int"),
        (lambda: study_seed(-5), ValueError, "must be >= 0"),
        (lambda: study_seed("7"), TypeError, "rng must be None"),
        (lambda: study_seed(1.0), TypeError, "rng must be None"),
    ],
)
def test_invalid_inputs(call, error, match):
    with pytest.raises(error, match=match):
        call()
