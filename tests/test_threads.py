"""The thread bound of :mod:`dpcore.threads`: set in one context, not seen in others, and the
subset study's numbers the same under it."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from dpcore.threads import limit, threads


def test_the_bound_holds_in_its_block_only():
    assert threads(3) == 3
    with limit(2):
        assert threads(3) == 2 and threads(1) == 1
        with limit(1):
            assert threads(3) == 1
        assert threads(3) == 2
    assert threads(3) == 3


def test_another_thread_does_not_see_the_bound():
    seen = []
    with limit(1):
        worker = threading.Thread(target=lambda: seen.append(threads(3)))
        worker.start()
        worker.join()
    assert seen == [3]


@pytest.mark.parametrize("bound", [0, -1, 1.5, True, "2"])
def test_a_bound_that_is_not_a_whole_number_of_threads_is_refused(bound):
    with pytest.raises(ValueError, match="whole number of threads"):
        with limit(bound):
            pass


def test_the_subset_study_gives_the_same_numbers_on_one_thread(monkeypatch):
    from dpcore.datasets import load_scenario
    from dpcore.subset import experiments, prepare_study, rescale, run_study, scenario_arguments
    from dpcore.subset.experiments import REPEAT_THREADS

    started = []
    real = experiments.ThreadPoolExecutor
    monkeypatch.setattr(experiments, "ThreadPoolExecutor",
                        lambda n: started.append(n) or real(n))
    s = load_scenario("mvn-shift", p=2)
    setup = prepare_study(rescale(s.private, s.public, **scenario_arguments(s)))
    kwargs = {"epsilon": (0.8, 0.2, 1.0), "sizes": [10, 60, 110, 160], "repeats": 3, "lei": False,
              "rng": 11}
    free = run_study(setup, **kwargs)
    with limit(1):
        bound = run_study(setup, **kwargs)
    assert started == [min(REPEAT_THREADS, 3), 1]
    np.testing.assert_array_equal(free.dp_curves, bound.dp_curves)
    np.testing.assert_array_equal(free.selected, bound.selected)
