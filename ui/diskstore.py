"""The shared store's tier on disk: built-in results that every server process of a class reads.

One Python process serves about one core, so a bigger room runs several ``streamlit run``
processes behind a proxy (``scripts/serve_class.py``, ``docs/class.md``). Each process has its
own :data:`ui.cache.SHARED` in memory; with ``EXPLORER_SHARED_DIR`` set, a result missing there
is looked up in that directory before it is computed, and a computed one is written there, so
a study is computed once for all the processes, not once per process.

Only :data:`ui.cache.SHARED` uses this tier, and only results of built-in scenarios enter that
store (:func:`ui.cache.memo`); a result of an upload never reaches this module. The file names are
the store's keys, SHA-256 digests of a built-in scenario's parameters and a study's settings
(:func:`ui.cache.content_key`): nothing from an upload, not even a hash, names a file. A key of
another form is kept in memory only.

* **Atomic writes**: a value is pickled into a temporary file of the same directory, then
  renamed over its name (``os.replace``): a reader finds the whole file or none.
* **Bounded**: past ``EXPLORER_SHARED_DIR_MB`` (default 2,048 MB) the files read least recently
  are removed (a read touches its file).
* **One computation for all the processes**: the process that computes a key holds an
  exclusive ``fcntl`` lock on the key's lock file; another process that wants the key waits for
  the lock, then reads the file (a single flight across processes, as :data:`ui.cache.SHARED`
  has one across the sessions of a process). A wait longer than :attr:`DiskTier.wait` seconds
  computes the key anyway.
* **Never stale**: the files live in a subdirectory named after the app's source code and the
  Python, NumPy and pandas releases that pickled them (:func:`code_version`), so a store kept
  across a code update is not read by the new code.

A built-in scenario (both its tables) is held by many results: the prepared parts of each page
and each setting. It is written once, under its own key, and the results that hold it refer to
it by that key (``references``: pickle's persistent ids), so a process that reads them holds one
copy of it, as the process that computed them does.

Pickles are code: the directory must be one that only the server's user can write (it is made
with mode 0700). Values that cannot be pickled stay in memory.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import os
import pickle
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from importlib.metadata import version
from pathlib import Path
from typing import Any, BinaryIO

__all__ = ["DIR_ENV", "DiskTier", "MB_ENV", "code_version"]

DIR_ENV = "EXPLORER_SHARED_DIR"
MB_ENV = "EXPLORER_SHARED_DIR_MB"
DEFAULT_MB = 2048
_KEY = re.compile(r"[0-9a-f]{64}")
_SUFFIX = ".pkl"
_SOURCES = ("app.py", "dpcore", "ui", "pages")
_ROOT = Path(__file__).resolve().parents[1]
_REFERENCE = "shared"


def code_version(root: Path = _ROOT) -> str:
    """A digest of the app's Python sources under ``root`` and of the Python, NumPy and pandas
    releases: results pickled by other code are not read."""
    digest = hashlib.sha256(" ".join((sys.version, version("numpy"), version("pandas"))).encode())
    for top in _SOURCES:
        paths = [root / top] if top.endswith(".py") else sorted((root / top).rglob("*.py"))
        for path in paths:
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


class DiskTier:
    """Pickled results in ``directory``, at most ``limit_mb`` of them, shared by processes.

    Parameters
    ----------
    directory : path
        Where the files go (made if missing, mode 0700); the store's files are in a
        subdirectory named ``version``.
    limit_mb : float, default=2048
        The files' total size, MB, past which the least recently read are removed.
    version : str, optional
        The subdirectory; by default :func:`code_version`.
    wait : float, default=600
        Seconds a process waits for another's computation of a key before computing it itself.
    references : (callable, callable), optional
        ``(key_of, value_of)``: ``key_of(obj)`` is the store's key of an object that another
        entry holds (written as a reference to that key) or None; ``value_of(key)`` reads it
        back. By default every object is written out.

    Examples
    --------
    >>> import tempfile
    >>> tier = DiskTier(tempfile.mkdtemp(), version="doc")
    >>> key = "ab" * 32
    >>> tier.load(key)
    (False, None)
    >>> tier.save(key, {"rows": 3})
    True
    >>> tier.load(key)
    (True, {'rows': 3})
    """

    def __init__(self, directory: str | os.PathLike, limit_mb: float = DEFAULT_MB, *,
                 version: str | None = None, wait: float = 600.0,
                 references: tuple[Callable[[object], str | None], Callable[[str], object]]
                 | None = None) -> None:
        self.directory = Path(directory) / (version or code_version())
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.limit_bytes = int(limit_mb * 2**20)
        self.wait = wait
        self.references = references

    @classmethod
    def from_env(cls, **options: Any) -> DiskTier | None:
        """The tier that ``$EXPLORER_SHARED_DIR`` (and ``$EXPLORER_SHARED_DIR_MB``) name, with
        ``options``, or None when it is not set (one process: memory only)."""
        directory = os.environ.get(DIR_ENV)
        if not directory:
            return None
        return cls(directory, float(os.environ.get(MB_ENV) or DEFAULT_MB), **options)

    @staticmethod
    def accepts(key: str) -> bool:
        """Whether ``key`` may name a file: a SHA-256 digest in hexadecimal."""
        return _KEY.fullmatch(key) is not None

    def _path(self, key: str) -> Path:
        if not self.accepts(key):
            raise ValueError(f"not a key of the disk tier: {key[:80]!r}")
        return self.directory / (key + _SUFFIX)

    def has(self, key: str) -> bool:
        """Whether a file holds ``key``."""
        return self.accepts(key) and self._path(key).exists()

    def load(self, key: str) -> tuple[bool, object]:
        """``(True, value)`` when a file holds ``key``, else ``(False, None)``. A file that
        cannot be read back (removed meanwhile, or unreadable) counts as missing."""
        if not self.accepts(key):
            return False, None
        path = self._path(key)
        try:
            with path.open("rb") as file:
                value = self._unpickler(file).load()
        except FileNotFoundError:
            return False, None
        except Exception:  # a file this code cannot read: computed again and rewritten
            with suppress(OSError):
                path.unlink()
            return False, None
        with suppress(OSError):
            os.utime(path)  # read recently: removed last
        return True, value

    def save(self, key: str, value: object) -> bool:
        """Write ``value`` under ``key`` (temporary file, then ``os.replace``); False when it
        cannot be pickled or written (it stays in memory)."""
        if not self.accepts(key):
            return False
        buffer = io.BytesIO()
        try:
            self._pickler(buffer, top=value).dump(value)
        except Exception:  # an object pickle cannot write: kept in memory only
            return False
        data = buffer.getvalue()
        handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            os.replace(temporary, self._path(key))
        except OSError:
            with suppress(OSError):
                os.unlink(temporary)
            return False
        self.trim()
        return True

    def _pickler(self, file: io.BytesIO, *, top: object) -> pickle.Pickler:
        pickler = pickle.Pickler(file, protocol=pickle.HIGHEST_PROTOCOL)
        if self.references is not None:
            key_of = self.references[0]

            def persistent_id(obj: object) -> tuple[str, str] | None:
                key = None if obj is top else key_of(obj)
                return None if key is None else (_REFERENCE, key)

            pickler.persistent_id = persistent_id
        return pickler

    def _unpickler(self, file: BinaryIO) -> pickle.Unpickler:
        unpickler = pickle.Unpickler(file)
        if self.references is not None:
            value_of = self.references[1]

            def persistent_load(reference: tuple[str, str]) -> object:
                kind, key = reference
                if kind != _REFERENCE or not self.accepts(key):
                    raise pickle.UnpicklingError(f"unknown reference {kind!r}")
                return value_of(key)

            unpickler.persistent_load = persistent_load
        return unpickler

    def trim(self) -> None:
        """Remove the least recently read files until the total is within the limit."""
        files = []
        for entry in os.scandir(self.directory):
            if entry.name.endswith(_SUFFIX):
                with suppress(FileNotFoundError):
                    stat = entry.stat()
                    files.append((stat.st_mtime, stat.st_size, entry.path))
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= self.limit_bytes:
                break
            with suppress(FileNotFoundError):
                os.unlink(path)
            total -= size

    @contextmanager
    def flight(self, key: str, *, poll: float = 0.05) -> Iterator[None]:
        """Hold the exclusive lock of ``key`` (its lock file), waiting for another process
        that holds it; after :attr:`wait` seconds, go on without it."""
        with open(self.directory / f"{key}.lock", "a+b") as lock:
            deadline = time.monotonic() + self.wait
            held = False
            while not held:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    held = True
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(poll)
            try:
                yield
            finally:
                if held:
                    fcntl.flock(lock, fcntl.LOCK_UN)
