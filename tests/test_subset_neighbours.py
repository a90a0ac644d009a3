"""The neighbour lists behind Algorithm 2's candidates give the reference nearest points.

:func:`~dpcore.subset.weights.nearest_in_prefixes` (lists computed once per D and E) must find,
for every prefix of any ranking, the same public point as
:func:`~dpcore.subset.weights.nearest_public` on the ranked points, tie rule included.
"""

import numpy as np
import pandas as pd
import pytest

from dpcore.subset import prepare_selection, rescale, select_subset, weights
from dpcore.subset import selection as selection_module
from dpcore.subset.experiments import prepare_study, run_study
from dpcore.subset.weights import (
    TIE_TOL,
    nearest_in_prefixes,
    nearest_public,
    neighbour_lists,
)


def assert_same_as_reference(D, E, order, sizes, k, method):
    lists = neighbour_lists(D, E, k, method=method)
    index, sqdist = nearest_in_prefixes(lists, order, sizes)
    ref_index, ref_sqdist = nearest_public(D, E[order], sizes, method=method)
    np.testing.assert_array_equal(index, ref_index)
    # The same sums of squares in another order: equal up to rounding, far below TIE_TOL.
    np.testing.assert_allclose(sqdist, ref_sqdist, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(lists.nearest, nearest_public(D, E, method=method)[0][:, 0])


@pytest.mark.parametrize("method", ["tree", "matrix"])
@pytest.mark.parametrize("q", [3, 12])
@pytest.mark.parametrize("k", [1, 3, 16, 500])
def test_fast_path_equals_reference_on_grids_full_of_ties(method, q, k):
    """Points on a coarse grid: most private points lie at the same distance from several
    public ones (duplicates included), so the tie rule decides; small k leaves most rows and
    small prefixes to the exact computation, k >= m lists all of E."""
    rng = np.random.default_rng(q * 100 + k)
    D = rng.integers(0, 3, (400, q)).astype(float)
    E = rng.integers(0, 3, (150, q)).astype(float)
    E[140:] = E[:10]  # duplicated public points tie exactly
    for _ in range(3):
        order = rng.permutation(E.shape[0])
        sizes = np.unique(np.r_[1, 2, 3, rng.integers(4, 150, 5), 150])
        assert_same_as_reference(D, E, order, sizes, k, method)


@pytest.mark.parametrize("method", ["tree", "matrix"])
@pytest.mark.parametrize("k", [2, 8, 64])
def test_fast_path_equals_reference_on_continuous_data(method, k):
    rng = np.random.default_rng(k)
    D, E = rng.standard_normal((600, 4)), rng.standard_normal((300, 4)) * [0.5, 1, 1, 2]
    order = rng.permutation(300)
    assert_same_as_reference(D, E, order, [1, 10, 11, 60, 200, 300], k, "tree")
    assert_same_as_reference(D, E, order, [5, 300], k, method)


@pytest.mark.parametrize("k", [2, 5])
def test_near_ties_that_are_not_clear_cut_are_computed_exactly(k):
    """Squared distances 1, 1 + 0.6 TOL, 1 + 1.3 TOL, 1 + 1.9 TOL: ties chain across more
    than TIE_TOL, where grouping could depend on rounding; such rows take the exact path, and
    so follow the reference's rule in every order."""
    step = np.sqrt(1.0 + np.array([0.0, 0.6, 1.3, 1.9]) * TIE_TOL)
    E = np.r_[step[:, None] * [[1.0, 0.0]], [[3.0, 0.0]]]
    D = np.array([[0.0, 0.0], [2.9, 0.0]])
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert_same_as_reference(D, E, rng.permutation(5), [1, 2, 3, 4, 5], k, "matrix")


def test_order_must_be_a_permutation_of_the_public_points():
    lists = neighbour_lists(np.zeros((3, 2)), np.eye(2))
    with pytest.raises(ValueError, match="permutation"):
        nearest_in_prefixes(lists, [0, 0], [1, 2])
    with pytest.raises(ValueError, match="k =="):
        neighbour_lists(np.zeros((3, 2)), np.eye(2), 0)


@pytest.fixture(scope="module")
def one_hot():
    """Logistic data with one-hot columns (many exact ties) and a continuous one."""
    rng = np.random.default_rng(5)

    def table(n, shift):
        cat = rng.integers(0, 4, n)
        frame = np.c_[np.eye(4)[cat], np.round(rng.random(n) * 100) / 100 + shift]
        label = (rng.random(n) < 1 / (1 + np.exp(-(cat - 1.5)))).astype(float)
        return pd.DataFrame(np.c_[frame, label], columns=["a", "b", "c", "d", "x", "y"])

    return rescale(table(900, 0.0), table(400, 0.2), target="y")


def test_study_and_release_are_unchanged_by_the_fast_path(one_hot, monkeypatch):
    """Every number of a study (DP and non-private curves, distances, selections), and a
    release's selected subset at a fixed seed, equal those of the reference nearest points."""
    sizes = [10, 40, 90, 150]
    setup = prepare_study(one_hot, lam=0.05)
    fast = run_study(setup, epsilon=(0.8, 0.2, 1.0), sizes=sizes, repeats=3, rng=7, lei=False)
    chosen = select_subset(one_hot, None, (1.0, 1.0, 1.0), sizes, lam=0.05, rng=3,
                           prepared=setup.prepared)

    def reference(lists, order, prefix_sizes, distinct=False):
        points = lists.private if distinct else lists.private[lists.inverse]
        return nearest_public(points, lists.public[order], prefix_sizes)

    monkeypatch.setattr(selection_module, "nearest_in_prefixes", reference)
    slow = run_study(setup, epsilon=(0.8, 0.2, 1.0), sizes=sizes, repeats=3, rng=7, lei=False)
    for name in ("dp_curves", "hybrid_curves", "selected"):  # same nearest points: same counts
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name))
    # d(D, E') of eq. (5): the same distances, their sums of squares rounded in another order.
    np.testing.assert_allclose(fast.distance, slow.distance, rtol=1e-12)
    again = select_subset(one_hot, None, (1.0, 1.0, 1.0), sizes, lam=0.05, rng=3,
                          prepared=prepare_selection(one_hot, "logistic", 0.05))
    assert (again.size, again.index) == (chosen.size, chosen.index)
    np.testing.assert_array_equal(again.weights, chosen.weights)


@pytest.mark.parametrize("k", [1, 16, 200])
def test_the_complete_groups_members_are_those_of_the_lists(k):
    rng = np.random.default_rng(8)
    D, E = rng.integers(0, 3, (300, 4)).astype(float), rng.integers(0, 3, (120, 4)).astype(float)
    lists = neighbour_lists(D, E, k, method="matrix")
    members, group_starts = lists.complete_members
    ends = np.r_[lists.starts[1:], lists.members.size]
    flat = lists.members.ravel()
    expected = [flat[a:b] for a, b in zip(lists.starts[lists.complete],
                                          ends[lists.complete], strict=True)]
    got = np.split(members, group_starts[1:]) if group_starts.size else []
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)


def test_the_blocks_computed_in_threads_give_the_lists_of_one_thread(monkeypatch):
    # issue 35: the matrix method's distance blocks run on LIST_THREADS threads; many small
    # blocks here, finished in any order: the lists are those of one thread, to the bit.
    rng = np.random.default_rng(7)
    D = rng.integers(0, 4, (900, 10)).astype(float)
    E = rng.integers(0, 4, (200, 10)).astype(float)
    monkeypatch.setattr(weights, "BLOCK_ELEMENTS", 200 * 37)  # 37 rows a block: 25 blocks
    threaded = neighbour_lists(D, E, 16, method="matrix")
    monkeypatch.setattr(weights, "LIST_THREADS", 1)
    alone = neighbour_lists(D, E, 16, method="matrix")
    for name in ("members", "starts", "slots", "complete", "group_sqdist", "nearest"):
        np.testing.assert_array_equal(getattr(threaded, name), getattr(alone, name))
    order = rng.permutation(E.shape[0])
    assert_same_as_reference(D, E, order, [1, 5, 40, 200], 16, "matrix")
