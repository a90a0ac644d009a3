"""Step 1's distinct public points (:func:`dpcore.rows.distinct_rows`: found by hashing the
rows, verified exactly) equal those of sorting them (:func:`numpy.unique`): the same points in
order of first appearance, the same first rows and counts; a hash collision falls back to
sorting."""

import numpy as np
import pandas as pd
import pytest

from dpcore import rows as rows_module
from dpcore.rows import distinct_rows
from dpcore.subset.rescale import rescale


def _distinct_rows(X):
    """The distinct rows, their first rows and counts, as Step 1 reads them."""
    first, inverse = distinct_rows(X)
    return X[first], first, np.bincount(inverse)


def sorted_distinct(X):
    _, first, counts = np.unique(X, axis=0, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    return X[first[order]], first[order], counts[order]


def one_hot_with_repeats(seed):
    rng = np.random.default_rng(seed)
    cat = rng.integers(0, 5, 400)
    X = np.c_[np.eye(5)[cat], np.round(rng.random(400), 1), rng.integers(0, 2, 400)]
    X[::7, -2] = -0.0  # signed zeros are equal values
    X[1::7, -2] = 0.0
    return X


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hashed_distinct_rows_equal_sorted_ones(seed):
    X = one_hot_with_repeats(seed)
    for got, expected in zip(_distinct_rows(X), sorted_distinct(X), strict=True):
        np.testing.assert_array_equal(got, expected)


def test_a_hash_collision_falls_back_to_sorting(monkeypatch):
    X = one_hot_with_repeats(3)
    monkeypatch.setattr(rows_module.pd, "factorize",
                        lambda values: (np.zeros(len(values), dtype=np.int64), None))
    for got, expected in zip(_distinct_rows(X), sorted_distinct(X), strict=True):
        np.testing.assert_array_equal(got, expected)


def test_rescaled_public_points_are_distinct_and_counted():
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"a": rng.integers(0, 3, 300), "b": rng.integers(0, 2, 300)})
    data = rescale(frame, frame)
    assert np.unique(data.public, axis=0).shape[0] == data.public.shape[0]
    assert data.multiplicity.sum() == 300
