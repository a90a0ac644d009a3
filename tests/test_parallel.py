"""dpcore.parallel: the same numbers in this process, on 2 loky workers and on a Dask cluster.

Every comparison here is exact (``==`` / ``DataFrame.equals``), not a tolerance: each cell draws
from its own named stream and the fits are deterministic, so nothing may depend on the backend.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dpcore
from dpcore import parallel as par
from dpcore.importance import BootstrapStudy, monte_carlo
from dpcore.parallel import (
    SEQUENTIAL,
    Cell,
    Parallel,
    grid_cells,
    normal_mean,
    restore_environ,
)

LAMBDAS = (0.01, 0.1, 1.0)
EPSILONS = (0.1, 1.0)
REPS = 100


@pytest.fixture(scope="module")
def scenario():
    return dpcore.load_scenario("three-gaussians")


@pytest.fixture(scope="module")
def sequential_grid(scenario):
    return monte_carlo(scenario.private, scenario.public, "x1", LAMBDAS, EPSILONS, REPS, rng=5)


@pytest.fixture(scope="module")
def cells():
    return grid_cells(11, [("demo", k) for k in range(12)], size=500)


@pytest.fixture(scope="module")
def cluster():
    """Two single-threaded worker processes, started for this module and closed after it."""
    distributed = pytest.importorskip("distributed")
    saved = dict(os.environ)
    try:
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=":0") as local:
            restore_environ(saved)  # the nannies wrote OPENBLAS_NUM_THREADS=1 etc. into it
            yield local
    finally:
        restore_environ(saved)


def test_local_cluster_leaves_the_environment_as_it_was():
    pytest.importorskip("distributed")
    before = dict(os.environ)
    with par.local_cluster(1):
        assert dict(os.environ) == before


# ------------------------------------------------------------------- cells and validation --

def test_cell_stream_depends_on_seed_and_keys_only():
    a, b = grid_cells(3, [("x", 0.5), ("x", 1)])
    assert a.rng().random() == Cell(3, ("x", 0.5)).rng().random()
    assert a.rng().random() != b.rng().random()
    assert a.rng().random() != Cell(4, ("x", 0.5)).rng().random()


def test_grid_cells_refuses_repeated_keys_and_bad_keys():
    with pytest.raises(ValueError, match="repeated"):
        grid_cells(0, [("a", 1), ("a", 1)])
    with pytest.raises(TypeError, match="key must be"):
        grid_cells(0, [("a", None)])
    with pytest.raises(TypeError, match="seed must be an int"):
        grid_cells(0.5, [("a",)])


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"backend": "threads"}, ValueError, "backend == 'threads'"),
    ({"backend": "loky", "n_jobs": 0}, ValueError, "n_jobs == 0"),
    ({"backend": "loky", "n_jobs": 2.0}, TypeError, "n_jobs must be an int"),
    ({"backend": "loky", "n_jobs": True}, TypeError, "n_jobs must be an int"),
    ({"backend": "loky", "scheduler": "tcp://h:8786"}, ValueError, "needs backend='dask'"),
    ({"backend": "dask", "scheduler": 8786}, TypeError, "address string"),
    ({"blas_threads": 0}, ValueError, "blas_threads == 0"),
    ({"blas_threads": 1.0}, TypeError, "blas_threads must be an int"),
])
def test_parallel_refuses_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        Parallel(**kwargs)


def test_map_refuses_a_non_callable(cells):
    with pytest.raises(TypeError, match="callable"):
        SEQUENTIAL.map("normal_mean", cells)


# --------------------------------------------------------------------------- sequential --

def test_sequential_map_keeps_order_and_reports_progress(cells):
    seen: list[float] = []
    out = SEQUENTIAL.map(normal_mean, cells, progress=seen.append)
    assert out == [normal_mean(cell) for cell in cells]
    assert seen == [(i + 1) / len(cells) for i in range(len(cells))]
    assert SEQUENTIAL.map(normal_mean, [], progress=seen.append) == [] and seen[-1] == 1.0


def test_shared_argument_is_passed_to_every_cell():
    assert SEQUENTIAL.map(pow, [1, 2, 3], shared=2) == [1, 4, 9]


def test_monte_carlo_default_is_the_sequential_path(scenario, sequential_grid):
    again = monte_carlo(scenario.private, scenario.public, "x1", LAMBDAS, EPSILONS, REPS, rng=5,
                        parallel=SEQUENTIAL)
    assert again.equals(sequential_grid)
    # The cells are the lambdas: each one's estimates are the page's (fit, then noise at eps).
    study = BootstrapStudy(scenario.private, scenario.public, REPS, rng=5)
    fits = study.fit_many(LAMBDAS)
    assert [f.lam for f in fits] == list(LAMBDAS)
    assert np.array_equal(fits[1].coefs, study.fit(0.1).coefs)


# -------------------------------------------------------------------------------- loky --

def test_loky_two_workers_give_identical_numbers(scenario, sequential_grid, cells):
    loky = Parallel("loky", n_jobs=2)
    seen: list[float] = []
    assert loky.map(normal_mean, cells, progress=seen.append) == SEQUENTIAL.map(normal_mean,
                                                                                 cells)
    assert seen == sorted(seen) and seen[-1] == 1.0
    grid = monte_carlo(scenario.private, scenario.public, "x1", LAMBDAS, EPSILONS, REPS, rng=5,
                       parallel=loky)
    assert grid.equals(sequential_grid)
    study = BootstrapStudy(scenario.private, scenario.public, REPS, rng=5)
    for a, b in zip(study.fit_many(LAMBDAS, parallel=loky), study.fit_many(LAMBDAS),
                    strict=True):
        assert np.array_equal(a.coefs, b.coefs) and np.array_equal(a.coef_full, b.coef_full)


def test_loky_one_job_runs_in_this_process(cells):
    # n_jobs=1 needs no worker: a function that only exists here (not picklable) still runs.
    assert Parallel("loky", n_jobs=1).map(lambda c: c.keys, cells[:2]) == [c.keys
                                                                            for c in cells[:2]]


@pytest.fixture(scope="module")
def adult_study():
    """Adult's 114 columns: enough for the BLAS thread count to move the fits' last bits."""
    sc = dpcore.load_scenario("adult")
    return BootstrapStudy(sc.private, sc.public, 20, rng=0)


def _same_fits(a, b) -> bool:
    return all(np.array_equal(x.coefs, y.coefs) and np.array_equal(x.coef_full, y.coef_full)
               for x, y in zip(a, b, strict=True))


def test_workers_use_this_process_blas_threads_or_the_given_count(adult_study):
    lams = (0.1, 0.3)
    here = adult_study.fit_many(lams)
    assert _same_fits(adult_study.fit_many(lams, parallel=Parallel("loky", n_jobs=2)), here)
    one = adult_study.fit_many(lams, parallel=Parallel(blas_threads=1))
    assert _same_fits(adult_study.fit_many(lams, parallel=Parallel("loky", n_jobs=2,
                                                                   blas_threads=1)), one)


# -------------------------------------------------------------------------------- dask --

def test_dask_local_cluster_gives_identical_numbers(scenario, sequential_grid, cells, cluster):
    seen: list[float] = []
    with Parallel("dask", scheduler=cluster.scheduler_address) as dask:
        assert dask.map(normal_mean, cells, progress=seen.append) == SEQUENTIAL.map(normal_mean,
                                                                                     cells)
        grid = monte_carlo(scenario.private, scenario.public, "x1", LAMBDAS, EPSILONS, REPS,
                           rng=5, parallel=dask)
    assert grid.equals(sequential_grid)
    assert seen == sorted(seen) and seen[-1] == 1.0
    assert dask._client is None  # closed by the with block


def test_dask_workers_match_this_process_on_adult(adult_study, cluster):
    lams = (0.1, 0.3)
    with Parallel("dask", scheduler=cluster.scheduler_address) as dask:
        assert _same_fits(adult_study.fit_many(lams, parallel=dask), adult_study.fit_many(lams))
    with Parallel("dask", scheduler=cluster.scheduler_address, blas_threads=1) as dask:
        assert _same_fits(adult_study.fit_many(lams, parallel=dask),
                          adult_study.fit_many(lams, parallel=Parallel(blas_threads=1)))


def test_dask_without_scheduler_uses_the_current_client(cells, cluster):
    distributed = pytest.importorskip("distributed")
    with distributed.Client(cluster) as client:
        dask = Parallel("dask")
        assert dask.map(normal_mean, cells[:4]) == SEQUENTIAL.map(normal_mean, cells[:4])
        assert dask._cluster is None  # it used the open client, started nothing
        assert client.status == "running"


def test_dask_without_client_starts_and_closes_a_local_cluster(cells):
    pytest.importorskip("distributed")
    with Parallel("dask", n_jobs=1) as dask:
        assert dask.map(normal_mean, cells[:3]) == SEQUENTIAL.map(normal_mean, cells[:3])
        cluster = dask._cluster
        assert cluster is not None and len(cluster.workers) == 1
    assert dask._cluster is None and cluster.status.name == "closed"


def test_dask_wrong_address_says_how_to_fix(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(par, "CONNECT_TIMEOUT", "1s")
    with pytest.raises(ConnectionError, match="no Dask scheduler answered at 'tcp://127.0.0.1:9'"):
        Parallel("dask", scheduler="tcp://127.0.0.1:9").connect()


def test_dask_missing_says_what_to_install(monkeypatch, cells):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # import now raises ImportError
    with pytest.raises(ImportError, match=r"pip install .*dask\[distributed\]"):
        Parallel("dask").map(normal_mean, cells)


def test_dpcore_imports_and_runs_without_dask():
    # joblib comes with scikit-learn (a dependency of dpcore); dask is optional.
    code = (
        "import sys\n"
        "for name in ('dask', 'distributed'): sys.modules[name] = None\n"
        "import dpcore, dpcore.parallel as p, dpcore.importance, dpcore.cli\n"
        "cells = p.grid_cells(0, [('a', 1), ('a', 2)], size=10)\n"
        "print(p.SEQUENTIAL.map(p.normal_mean, cells) == [p.normal_mean(c) for c in cells])\n"
        "try:\n"
        "    p.Parallel('dask', 2).map(p.normal_mean, cells)\n"
        "except ImportError as err:\n"
        "    print('pip install' in str(err))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120, cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.split() == ["True", "True"]
