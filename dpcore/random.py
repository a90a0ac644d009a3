"""Named, reproducible random streams for studies (Monte Carlo runs that spend no budget).

A study draws everything from one integer ``seed``. Each part of the computation takes its own
stream, named by *keys* that say what it is for, e.g. ``stream(seed, "baselines", lam)`` and
``stream(seed, "noise", lam, eps)``. The numbers of a stream depend on the seed and its keys only,
not on which other streams were drawn before, in which order, or by how many workers. This is
numpy's ``SeedSequence`` with a ``spawn_key`` built from the keys (NumPy's recommended way of
making independent streams; see "Parallel random number generation" in the NumPy docs).

Releases (what a data owner publishes) do not use this module: they draw from fresh OS entropy.

Key encoding
------------
Every key becomes a group of 32-bit words ``(type tag, number of words, *words)``:

* ``str``: the first 8 bytes of its BLAKE2b digest (UTF-8), as two words;
* ``int`` (>= 0): its value split into 32-bit words, least significant first;
* ``float``: its IEEE-754 float64 bits as two words (``-0.0`` is taken as ``0.0``; NaN refused).

The groups are prefix-free and typed, so two different key tuples never give the same
``spawn_key`` (up to a BLAKE2b collision between strings): ``1``, ``1.0`` and ``"1"`` are three
different streams, and the children of :func:`spawn` never coincide with any :func:`stream`.
"""

from __future__ import annotations

import hashlib
import numbers
import struct
from typing import Any

import numpy as np

from dpcore.validation import check_int

__all__ = ["stream", "spawn", "study_seed"]

Key = str | int | float

_TAG_STR = 1
_TAG_INT = 2
_TAG_FLOAT = 3
_MASK32 = 0xFFFF_FFFF


def _int_words(value: int) -> list[int]:
    words = []
    while True:
        words.append(value & _MASK32)
        value >>= 32
        if value == 0:
            return words


def _key_words(key: Any) -> list[int]:
    """The prefix-free group of 32-bit words ``(tag, length, *words)`` for one key."""
    if isinstance(key, str):
        digest = hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest()
        words = list(struct.unpack("<2I", digest))
        tag = _TAG_STR
    elif isinstance(key, bool) or isinstance(key, np.bool_):
        raise TypeError(
            f"a key must be a str, an int >= 0 or a float, got bool ({key!r}). "
            "Pass int(flag) or a string such as 'with-flag' instead."
        )
    elif isinstance(key, numbers.Integral):
        key = int(key)
        if key < 0:
            raise ValueError(
                f"key == {key}, an integer key must be >= 0. Use a string key for negative "
                "numbers, e.g. str(key)."
            )
        words = _int_words(key)
        tag = _TAG_INT
    elif isinstance(key, numbers.Real):
        key = float(key)
        if np.isnan(key):
            raise ValueError("key == nan, a float key must not be NaN.")
        if key == 0.0:
            key = 0.0  # -0.0 == 0.0, so both name the same stream
        words = list(struct.unpack("<2I", struct.pack("<d", key)))
        tag = _TAG_FLOAT
    else:
        raise TypeError(
            f"a key must be a str, an int >= 0 or a float, got {type(key).__name__} ({key!r})."
        )
    return [tag, len(words), *words]


def _sequence(seed: Any, keys: tuple[Any, ...]) -> np.random.SeedSequence:
    seed = check_int(seed, "seed", min_val=0, advice="Pass e.g. seed=0, or turn a Generator "
                     "into a seed first with dpcore.random.study_seed(rng).")
    spawn_key = tuple(w for key in keys for w in _key_words(key))
    return np.random.SeedSequence(entropy=seed, spawn_key=spawn_key)


def stream(seed: int, *keys: Key) -> np.random.Generator:
    """A Generator whose numbers depend only on ``seed`` and the named ``keys``.

    Parameters
    ----------
    seed : int
        The study's seed, >= 0 (see :func:`study_seed` to get one from a Generator).
    *keys : str, int (>= 0) or float
        What the stream is for, e.g. ``"noise", lam, eps``. Order and type matter.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> a = stream(7, "noise", 0.1, 2.0).standard_normal(3)
    >>> b = stream(7, "noise", 0.1, 2.0).standard_normal(3)
    >>> bool((a == b).all())
    True
    >>> bool(stream(7, "noise", 1).random() == stream(7, "noise", 1.0).random())
    False
    """
    return np.random.default_rng(_sequence(seed, keys))


def spawn(seed: int, n: int, *keys: Key) -> list[np.random.Generator]:
    """``n`` independent Generators spawned from the stream named by ``seed`` and ``keys``.

    Child ``i`` is the same whatever ``n`` is (as long as ``n > i``), so a grid split over any
    number of workers, each taking the children of its cells, draws the same numbers.

    Parameters
    ----------
    seed : int
        The study's seed, >= 0.
    n : int
        Number of Generators, >= 0.
    *keys : str, int (>= 0) or float
        Names of the parent stream, as in :func:`stream`.

    Returns
    -------
    list of numpy.random.Generator

    Examples
    --------
    >>> first = spawn(3, 2, "grid")[1].random()
    >>> bool(first == spawn(3, 5, "grid")[1].random())
    True
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"n must be an int, got {type(n).__name__} ({n!r}).")
    if n < 0:
        raise ValueError(f"n == {n}, must be >= 0.")
    return [np.random.default_rng(child) for child in _sequence(seed, keys).spawn(int(n))]


def study_seed(rng: Any = None) -> int:
    """Turn what a caller passed as ``rng`` into one integer seed for :func:`stream`.

    Parameters
    ----------
    rng : None, int, numpy.random.Generator or numpy.random.SeedSequence, default=None
        An int (>= 0) is returned as it is; a Generator draws ``integers(2**63)`` (and advances);
        a SeedSequence gives its first two 32-bit state words as one 64-bit int; ``None`` draws
        fresh OS entropy (an unrepeatable study: report the returned seed to repeat it).

    Returns
    -------
    int
        A seed >= 0.

    Examples
    --------
    >>> study_seed(12)
    12
    >>> study_seed(np.random.default_rng(0)) == study_seed(np.random.default_rng(0))
    True
    """
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(2**63))
    if rng is None:
        rng = np.random.SeedSequence()
    if isinstance(rng, np.random.SeedSequence):
        lo, hi = (int(w) for w in rng.generate_state(2, np.uint32))
        return (hi << 32) | lo
    if isinstance(rng, bool) or not isinstance(rng, numbers.Integral):
        raise TypeError(
            f"rng must be None, an int seed, a numpy.random.Generator or a SeedSequence, got "
            f"{type(rng).__name__} ({rng!r}). Pass e.g. rng=0."
        )
    if rng < 0:
        raise ValueError(f"rng == {rng}, a seed must be >= 0.")
    return int(rng)
