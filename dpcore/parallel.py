"""Run the cells of a Monte-Carlo grid one after another, on local cores, or on a Dask cluster.

A *grid* is a list of independent *cells* (for example one lambda of a study: its batched fit and
the noise at every epsilon). :class:`Parallel` maps a function over the cells and returns the
results in the order of the cells, whatever backend runs them:

- ``"sequential"``: a plain loop in this process (the default, :data:`SEQUENTIAL`);
- ``"loky"``: ``n_jobs`` local worker processes through joblib;
- ``"dask"``: joblib's Dask backend on a ``dask.distributed`` cluster, the one at ``scheduler``
  (an address such as ``"tcp://10.0.0.5:8786"``), else the current client, else a local cluster
  of ``n_jobs`` single-threaded worker processes started for the purpose.

Reproducibility does not depend on the backend because no cell draws from a shared generator:
each cell names its own stream, ``dpcore.random.stream(seed, *keys)`` (see :class:`Cell` and
:func:`grid_cells`) or a child of ``dpcore.random.spawn``, so its numbers depend on the seed and
its keys only, never on which worker runs it or in which order. That is NumPy's recommended way
of seeding parallel work ("Parallel random number generation", ``SeedSequence.spawn``). The
BLAS thread count, which moves the last bits of iterative fits, is fixed for every cell too
(``blas_threads``; by default the caller's, so workers compute what this process computes).

joblib, dask and distributed are imported only when a backend needs them: dpcore imports and
runs sequentially without them.

Examples
--------
>>> from dpcore.parallel import SEQUENTIAL, grid_cells, normal_mean
>>> cells = grid_cells(0, [("demo", k) for k in range(3)], size=100)
>>> means = SEQUENTIAL.map(normal_mean, cells)
>>> means == [normal_mean(cell) for cell in cells]
True
"""

from __future__ import annotations

import importlib
import numbers
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
from threadpoolctl import ThreadpoolController, threadpool_info, threadpool_limits

from dpcore.random import Key, stream
from dpcore.simulation import Progress, report
from dpcore.validation import check_int

__all__ = ["BACKENDS", "SEQUENTIAL", "Cell", "Parallel", "current_blas_threads", "grid_cells",
           "local_cluster", "normal_mean", "restore_environ"]

T = TypeVar("T")

#: The backends :class:`Parallel` knows.
BACKENDS = ("sequential", "loky", "dask")
#: How long :class:`Parallel` waits for a Dask scheduler to answer.
CONNECT_TIMEOUT = "10s"

_INSTALL = {
    "loky": "pip install 'joblib>=1.3'",
    "dask": "pip install 'joblib>=1.3' 'dask[distributed]>=2024.1'",
}


@dataclass(frozen=True)
class Cell:
    """One cell of a grid: a seed, the keys naming its random stream, and its parameters.

    Parameters
    ----------
    seed : int
        The study's seed (>= 0).
    keys : tuple of str, int or float
        The stream's name, e.g. ``("importance", lam)``; two cells never share keys.
    params : dict, default={}
        Whatever else the cell function needs (plain, picklable values).
    """

    seed: int
    keys: tuple[Key, ...]
    params: dict[str, Any] = field(default_factory=dict)

    def rng(self) -> np.random.Generator:
        """The cell's own stream, ``dpcore.random.stream(seed, *keys)``."""
        return stream(self.seed, *self.keys)


def grid_cells(seed: int, keys_list: Iterable[Sequence[Key]], **params: Any) -> list[Cell]:
    """One :class:`Cell` per key tuple, all sharing ``seed`` and ``params``.

    Parameters
    ----------
    seed : int
        The study's seed (>= 0).
    keys_list : iterable of tuples of str, int or float
        The names of the cells' streams, e.g. ``[("importance", lam) for lam in lambdas]``.
    **params
        Parameters shared by every cell (stored in each cell's ``params``).

    Returns
    -------
    list of Cell

    Examples
    --------
    >>> cells = grid_cells(7, [("noise", 0.1), ("noise", 1.0)], size=3)
    >>> cells[1].keys, cells[1].params
    (('noise', 1.0), {'size': 3})
    """
    keys = [tuple(k) for k in keys_list]
    if len(set(keys)) != len(keys):
        raise ValueError("keys_list has repeated key tuples; two cells would draw the same "
                         "numbers. Give every cell its own keys (e.g. add its index).")
    cells = [Cell(seed, k, dict(params)) for k in keys]
    for cell in cells[:1]:
        cell.rng()  # validates the seed and the key types once, with dpcore.random's messages
    return cells


def normal_mean(cell: Cell) -> float:
    """A demonstration cell: the mean of ``cell.params["size"]`` standard normals from its stream.

    Used by the tests and the docs to show that results do not depend on the backend.
    """
    return float(cell.rng().standard_normal(int(cell.params.get("size", 1000))).mean())


def current_blas_threads() -> int:
    """The number of threads this process's BLAS uses now (1 if threadpoolctl sees none)."""
    return max([int(lib["num_threads"]) for lib in threadpool_info()
                if lib.get("user_api") == "blas"], default=1)


class _Limited:
    """``func`` run in a worker whose BLAS uses exactly ``threads`` threads (picklable).

    The count is process-wide and is left set: workers are dedicated processes, and several
    cells running side by side in one worker must not each set and restore it (OpenBLAS does
    not take a count raised from another thread than the one that lowered it). In the caller's
    own process :meth:`Parallel.map` sets the count around the whole map instead, so cells of
    an in-process cluster find it set already.
    """

    def __init__(self, func: Callable[..., Any], threads: int) -> None:
        self.func, self.threads = func, threads

    def __call__(self, *args: Any) -> Any:
        if current_blas_threads() != self.threads:
            ThreadpoolController().limit(limits=self.threads, user_api="blas")
            if current_blas_threads() != self.threads:
                raise RuntimeError(
                    f"this worker's BLAS could not be set to {self.threads} threads (it uses "
                    f"{current_blas_threads()}), so its numbers could differ from the other "
                    f"workers'. Start the workers with OPENBLAS_NUM_THREADS={self.threads} "
                    f"(and OMP_NUM_THREADS, MKL_NUM_THREADS), or pass blas_threads=1."
                )
        return self.func(*args)


def _check_n_jobs(n_jobs: Any) -> int:
    """The number of workers: an int >= 1, or -1 for every core (joblib's convention, which
    :func:`~dpcore.validation.check_int`'s single lower bound cannot state)."""
    n_jobs = check_int(n_jobs, "n_jobs",
                       advice="Pass e.g. n_jobs=2, or n_jobs=-1 for every core.")
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs == {n_jobs}, must be >= 1 (or -1 for every core).")
    return n_jobs


def _require(module: str, backend: str):
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ImportError(
            f"backend={backend!r} needs the package {module.split('.')[0]!r}, which is not "
            f"installed. Install it with: {_INSTALL[backend]} (or use backend='sequential')."
        ) from err


class Parallel:
    """Map a function over the cells of a grid, in order, on the chosen backend.

    Parameters
    ----------
    backend : {"sequential", "loky", "dask"}, default="sequential"
        Where the cells run: this process, ``n_jobs`` local processes (joblib's loky), or a Dask
        cluster through joblib's Dask backend.
    n_jobs : int, default=1
        Local workers for ``"loky"`` (-1: every core), and the size of the local cluster that
        ``"dask"`` starts when there is neither ``scheduler`` nor a current client.
    scheduler : str, default=None
        Address of a running Dask scheduler (``"tcp://host:8786"``); only with ``"dask"``.
    blas_threads : int, default=None
        BLAS threads of every cell. None: as many as the calling process uses (workers are set to
        the same number), so the numbers equal those computed in this process, bit for bit. An
        int sets every cell to it, in this process too: ``1`` is the fastest with several
        workers, and its numbers are the same for any backend and number of workers.

    Notes
    -----
    ``func`` must be a top-level (picklable) function and each cell must carry its own stream
    (:class:`Cell`), so the results are the same for every backend and number of workers. The
    BLAS thread count is fixed too, because it changes how a matrix product's sums are split and
    so the last bits of an iterative solver's fits (about 1e-7 on Adult's 114 columns): with the
    same count and the same numpy build, every backend computes the same floating-point numbers.
    A ``"dask"`` instance keeps its client (and any cluster it started) until :meth:`close`; use
    it as a context manager.

    Examples
    --------
    >>> Parallel("loky", n_jobs=2)
    Parallel(backend='loky', n_jobs=2, scheduler=None)
    """

    def __init__(self, backend: str = "sequential", n_jobs: int = 1,
                 scheduler: str | None = None, *, blas_threads: int | None = None) -> None:
        if not isinstance(backend, str) or backend not in BACKENDS:
            raise ValueError(f"backend == {backend!r}, must be one of {BACKENDS}.")
        if scheduler is not None:
            if not isinstance(scheduler, str) or not scheduler:
                raise TypeError(f"scheduler must be an address string such as "
                                f"'tcp://host:8786', got {scheduler!r}.")
            if backend != "dask":
                raise ValueError(f"scheduler={scheduler!r} needs backend='dask', got "
                                 f"backend={backend!r}.")
        self.backend = backend
        self.n_jobs = _check_n_jobs(n_jobs)
        if blas_threads is not None:
            if isinstance(blas_threads, bool) or not isinstance(blas_threads, numbers.Integral):
                raise TypeError(f"blas_threads must be an int or None, got "
                                f"{type(blas_threads).__name__} ({blas_threads!r}).")
            if blas_threads < 1:
                raise ValueError(f"blas_threads == {blas_threads}, must be >= 1 (or None: as "
                                 "many as this process uses).")
            blas_threads = int(blas_threads)
        self.blas_threads = blas_threads
        self.scheduler = scheduler
        self._client = None
        self._cluster = None

    def __repr__(self) -> str:
        extra = "" if self.blas_threads is None else f", blas_threads={self.blas_threads}"
        return (f"Parallel(backend={self.backend!r}, n_jobs={self.n_jobs}, "
                f"scheduler={self.scheduler!r}{extra})")

    def __enter__(self) -> Parallel:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __getstate__(self) -> dict:  # a client does not travel: a copy reconnects on demand
        return {**self.__dict__, "_client": None, "_cluster": None}

    def close(self) -> None:
        """Close the Dask client and the local cluster this instance started (if any)."""
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()

    def map(self, func: Callable[..., T], cells: Sequence[Any], *,
            progress: Progress = None, shared: Any = None) -> list[T]:
        """``[func(cell) for cell in cells]``, computed on the backend, in the order of ``cells``.

        Parameters
        ----------
        func : callable
            A top-level function of one cell (of the cell and ``shared`` when that is given).
        cells : sequence
            The cells; each must carry its own random stream (see :class:`Cell`).
        progress : callable taking the fraction done, default=None
            Called after each finished cell (in order) with the fraction of cells done.
        shared : object, default=None
            Data every cell reads (for example a study's resample weights): when given, each
            cell runs as ``func(cell, shared)`` and ``shared`` travels once per worker rather
            than once per cell (Dask scatters it; loky memory-maps its large arrays).

        Returns
        -------
        list
            One result per cell.
        """
        if not callable(func):
            raise TypeError(f"func must be callable, got {type(func).__name__}.")
        cells = list(cells)
        if not cells:
            report(progress, 1.0)
            return []
        extra = () if shared is None else (shared,)
        local = self.backend == "sequential" or (self.backend == "loky" and self.n_jobs == 1)
        here = current_blas_threads()
        threads = here if self.blas_threads is None else self.blas_threads
        if not local:  # every worker runs its cells at the same BLAS thread count
            func = _Limited(func, threads)
        out: list[T] = []
        with ExitStack() as stack:
            if threads != here:  # set (and restored) in this thread, for the whole map
                stack.enter_context(threadpool_limits(limits=threads, user_api="blas"))
            if local:
                results = (func(cell, *extra) for cell in cells)
            elif self.backend == "loky":
                results = self._joblib(func, cells, extra, backend="loky", n_jobs=self.n_jobs)
            else:
                results = self._dask(func, cells, extra)
            for result in results:
                out.append(result)
                report(progress, len(out) / len(cells))
        return out

    def _joblib(self, func, cells, extra, **config) -> Iterator:
        joblib = _require("joblib", self.backend)
        with joblib.parallel_config(**config):
            yield from joblib.Parallel(return_as="generator")(
                joblib.delayed(func)(cell, *extra) for cell in cells)

    def _dask(self, func, cells, extra) -> Iterator:
        _require("joblib", "dask")
        client = self._connect()
        # Scattered once: every task then names the data by its future (no resending).
        extra = tuple(client.scatter(item, broadcast=True, hash=False) for item in extra)
        yield from self._joblib(func, cells, extra, backend="dask", n_jobs=-1, client=client)

    def connect(self) -> None:
        """Open the Dask client now (a wrong address fails here, before any work is done).

        Nothing to do for the other backends; :meth:`map` connects on first use anyway.

        Raises
        ------
        ConnectionError
            When no scheduler answers at ``scheduler``.
        ImportError
            When dask.distributed is not installed.
        """
        if self.backend == "dask":
            self._connect()

    def _connect(self):
        """The Dask client: to ``scheduler``, else the current one, else a new local cluster."""
        if self._client is not None:
            return self._client
        distributed = _require("dask.distributed", "dask")
        if self.scheduler is not None:
            try:
                self._client = distributed.Client(self.scheduler, timeout=CONNECT_TIMEOUT)
            except OSError as err:
                raise ConnectionError(
                    f"no Dask scheduler answered at {self.scheduler!r} ({err}). Start one with "
                    "`dask scheduler` (and workers with `dask worker ADDRESS`), or check the "
                    "address."
                ) from err
            return self._client
        try:
            return distributed.get_client()  # a client the caller opened
        except ValueError:
            pass
        self._cluster = local_cluster(self.n_jobs if self.n_jobs > 0 else None)
        self._client = distributed.Client(self._cluster)
        return self._client


def local_cluster(n_workers: int | None = None):
    """A ``dask.distributed.LocalCluster`` of single-threaded worker processes for grids.

    Dask starts its workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which makes glibc map and
    unmap every large temporary array: the importance grid ran about 1.4x slower in such workers
    than in a plain process (measured on the 10^4-replicate grid of
    ``benchmarks/bench_parallel.py``). The workers started here keep glibc's default; Dask's
    other worker settings stay. The scheduler's HTTP server takes a free port (Dask's default,
    8787, may be taken by another cluster). Dask's nannies write the workers' settings
    (``OPENBLAS_NUM_THREADS=1``, ...) into this process's ``os.environ`` before spawning them;
    the environment is restored afterwards, so that processes started later (an exported
    script, a browser) do not inherit them.

    Parameters
    ----------
    n_workers : int, default=None
        Worker processes (None: Dask's choice from the number of cores).
    """
    import dask  # optional (the `dask` extra): imported only when a cluster is started

    distributed = _require("dask.distributed", "dask")
    environ = {key: value
               for key, value in dask.config.get("distributed.nanny.pre-spawn-environ").items()
               if key != "MALLOC_TRIM_THRESHOLD_"}
    saved = dict(os.environ)
    try:
        with dask.config.set({"distributed.nanny.pre-spawn-environ": environ}):
            return distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                            processes=True, dashboard_address=":0")
    finally:
        restore_environ(saved)


def restore_environ(saved: dict[str, str]) -> None:
    """Put ``os.environ`` back to ``saved`` (what a Dask nanny changed in this process)."""
    for key in set(os.environ) - set(saved):
        del os.environ[key]
    for key, value in saved.items():
        if os.environ.get(key) != value:
            os.environ[key] = value


#: The default: every cell in this process, one after another.
SEQUENTIAL = Parallel()
