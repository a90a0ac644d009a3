"""Input checks shared by every mechanism and model.

Each helper converts and returns its argument, or raises an error whose message says what was
expected, what was given and how to fix it (the voice of scikit-learn's ``check_array`` and
``check_scalar``). Bad *data* raises :class:`DataError`; a bad *parameter* raises ``TypeError`` or
``ValueError``.
"""

from __future__ import annotations

import hashlib
import numbers
from typing import Any

import numpy as np

__all__ = [
    "DataError",
    "PrivacyLeakWarning",
    "check_random_state",
    "check_study_or_release",
    "check_scalar",
    "check_int",
    "check_bool",
    "check_str",
    "check_epsilon",
    "check_sensitivity",
    "check_delta",
    "check_probability",
    "check_level",
    "check_choice",
    "check_array",
    "check_unit_box",
    "fingerprint",
]


class DataError(ValueError):
    """Data that a mechanism or page cannot use; the message says what to do about it."""


class PrivacyLeakWarning(RuntimeWarning):
    """A bound or parameter was read off the private data, which leaks information about it."""


RandomState = None | int | np.integer | np.random.Generator | np.random.SeedSequence


def check_random_state(rng: Any = None) -> np.random.Generator:
    """Turn ``None``, an int seed, a ``SeedSequence`` or a ``Generator`` into a ``Generator``.

    The one place where randomness is resolved: public entry points call it once and pass the
    Generator down. ``None`` draws fresh OS entropy; there is no global random state.

    >>> bool(check_random_state(0).integers(10) == check_random_state(0).integers(10))
    True
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (numbers.Integral, np.random.SeedSequence)):
        if isinstance(rng, numbers.Integral) and int(rng) < 0:
            raise ValueError(f"rng == {rng}, a seed must be >= 0.")
        return np.random.default_rng(rng)
    raise TypeError(
        f"rng must be None, an int seed or a numpy.random.Generator, got {type(rng).__name__}. "
        "Pass e.g. rng=0 or rng=numpy.random.default_rng(0)."
    )


def check_study_or_release(rng: Any, accountant: Any) -> None:
    """Refuse a seeded draw that would spend budget: a release has no seed.

    ``rng=None`` means a release (float-safe noise from fresh OS entropy, spent through
    ``accountant`` when one is given); a seed or Generator means a study, whose noise anyone
    with the seed can rebuild, so it must not be charged as a release.

    >>> check_study_or_release(None, object())
    >>> check_study_or_release(0, None)
    """
    if rng is not None and accountant is not None:
        raise ValueError(
            f"rng == {rng!r} with an accountant: a seeded fit is a study, whose noise anyone "
            "with the seed can rebuild, so it cannot be spent as a release. Pass rng=None to "
            "release (fresh OS entropy, float-safe noise), or accountant=None for a study."
        )


def check_scalar(
    value: Any,
    name: str,
    *,
    min_val: float | None = None,
    max_val: float | None = None,
    include_min: bool = False,
    include_max: bool = True,
    advice: str = "",
) -> float:
    """Check that ``value`` is a finite real number in the given range and return it as float.

    ``advice`` (what the number is, or an example to pass) ends every message.

    >>> check_scalar(2, "tol", min_val=0.0)
    2.0
    """
    end = f" {advice}" if advice else ""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a real number, got {type(value).__name__} ({value!r}).{end}"
        )
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} == {value}, must be finite.{end}")
    if min_val is not None and (value < min_val or (value == min_val and not include_min)):
        op = ">=" if include_min else ">"
        raise ValueError(f"{name} == {value:g}, must be {op} {min_val:g}.{end}")
    if max_val is not None and (value > max_val or (value == max_val and not include_max)):
        op = "<=" if include_max else "<"
        raise ValueError(f"{name} == {value:g}, must be {op} {max_val:g}.{end}")
    return value


def check_int(value: Any, name: str, *, min_val: int | None = None, advice: str = "") -> int:
    """An integer (Python's or numpy's, not a bool) ``>= min_val``, returned as an int.

    ``advice`` (what the number is, or an example to pass) ends every message.

    >>> check_int(3, "n_starts", min_val=1)
    3
    """
    end = f" {advice}" if advice else ""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} ({value!r}).{end}")
    if min_val is not None and value < min_val:
        raise ValueError(f"{name} == {value}, must be >= {min_val}.{end}")
    return int(value)


def check_bool(value: Any, name: str) -> bool:
    """``True`` or ``False`` (a numpy bool too), returned as a bool; ``0``, ``1`` or ``"yes"``
    are refused, so that a misplaced argument does not pass as a switch.

    >>> check_bool(True, "fit_intercept")
    True
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__}.")
    return bool(value)


def check_str(value: Any, name: str, *, allow_empty: bool = True, advice: str = "") -> str:
    """A str, not blank unless ``allow_empty``; ``advice`` (what the text is for, with an
    example) ends every message.

    >>> check_str("adult", "dataset", allow_empty=False)
    'adult'
    """
    end = f" {advice}" if advice else ""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} ({value!r}).{end}")
    if not allow_empty and not value.strip():
        raise ValueError(f"{name} is empty.{end}")
    return value


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """A privacy budget: a finite number > 0.

    >>> check_epsilon(1)
    1.0
    """
    return check_scalar(epsilon, name, min_val=0.0,
                        advice=f"A smaller epsilon means more privacy and more noise; pass e.g. "
                               f"{name}=1.0.")


def check_sensitivity(sensitivity: Any, name: str = "sensitivity") -> float:
    """A mechanism's sensitivity: a finite number > 0, the largest change of the released value
    between neighbouring datasets.

    >>> check_sensitivity(0.5)
    0.5
    """
    return check_scalar(sensitivity, name, min_val=0.0,
                        advice="It is the largest change of the released value between "
                               "neighbouring datasets. A value that cannot change needs no noise; "
                               "release it without a mechanism.")


def check_probability(value: Any, name: str, meaning: str) -> float:
    """A probability strictly between 0 and 1; ``meaning`` (what it is, with an example) ends
    the message when it is not.

    >>> check_probability(0.95, "level", "the share of releases that meet the target.")
    0.95
    """
    value = check_scalar(value, name)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} == {value:g}, must be in (0, 1): {meaning}")
    return value


def check_delta(delta: Any, name: str = "delta") -> float:
    """A mechanism's delta: the probability that its epsilon guarantee fails, in (0, 1).

    >>> check_delta(1e-6)
    1e-06
    """
    return check_probability(
        delta, name, "the probability that the epsilon guarantee fails, in practice much "
        f"smaller than 1/n_records (e.g. {name}=1e-6). For {name} = 0 use a pure epsilon-DP "
        "mechanism (Laplace)."
    )


def check_level(level: Any, name: str = "level") -> float:
    """The level of an error bound: the probability, strictly between 0 and 1, that a release's
    noise stays within it.

    >>> check_level(0.95)
    0.95
    """
    return check_probability(
        level, name, "the probability that the noise stays within the error bound, i.e. the "
        f"share of releases that meet it (e.g. {name}=0.95)."
    )


def check_choice(value: Any, name: str, choices: tuple[str, ...], *, advice: str = "") -> str:
    """One of the strings ``choices`` (e.g. a method or loss named by the caller); ``advice``
    (what the choices mean) ends every message.

    >>> check_choice("sum", "loss", ("sum", "mean"))
    'sum'
    """
    end = f" {advice}" if advice else ""
    if not isinstance(value, str):
        raise TypeError(
            f"{name} must be a str, one of {choices}, got {type(value).__name__} ({value!r}).{end}"
        )
    if value not in choices:
        raise ValueError(f"{name} == {value!r}, must be one of {choices}.{end}")
    return value


def check_array(X: Any, name: str = "X", *, ndim: int | None = 2, min_rows: int = 1,
                fix: str = "Drop or impute missing values before use.") -> np.ndarray:
    """Convert to a finite float array with ``ndim`` dimensions and at least ``min_rows`` rows.

    ``ndim=None`` accepts any shape (and ``min_rows`` then counts the leading axis, if any);
    ``fix`` is the advice given when the array holds NaN or infinite values. A message names no
    value of ``X`` (it may be private): numpy's own, which quotes the value it could not
    convert, is not passed on.
    """
    if hasattr(X, "to_numpy"):
        X = X.to_numpy()
    try:
        arr = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        raise DataError(
            f"{name} must be numeric; it holds values that are not numbers. "
            "Encode categorical columns first (dpcore.datasets does this)."
        ) from None
    if ndim is not None and arr.ndim != ndim:
        hint = " Reshape your data with X.reshape(-1, 1) for one feature." if arr.ndim == 1 else ""
        raise DataError(f"Expected {ndim}D array for {name}, got {arr.ndim}D array instead.{hint}")
    if (arr.shape[0] if arr.ndim else 1) < min_rows:
        raise DataError(f"{name} has {arr.shape[0]} rows; at least {min_rows} are needed.")
    if not np.all(np.isfinite(arr)):
        raise DataError(f"{name} contains NaN or infinite values. {fix}")
    return arr


def check_unit_box(X: Any, name: str = "X", *, clip: bool = False) -> np.ndarray:
    """Check that every record lies in ``[0, 1]^d``, the domain the privacy proofs assume.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    name : str, default="X"
        How the array is called in messages.
    clip : bool, default=False
        Clip out-of-range values to [0, 1] instead of refusing them. Clipping is data-independent
        (the bound is the domain's, not read off the data), so it costs no privacy; pass
        ``clip=True`` for private data, whose refusal would depend on one record.

    The message of a refusal names no value of ``X`` (it may be private).
    """
    arr = check_array(X, name)
    if arr.min(initial=0.0) < 0.0 or arr.max(initial=0.0) > 1.0:
        if clip:
            return np.clip(arr, 0.0, 1.0)
        raise DataError(
            f"{name} has values outside [0, 1]; the privacy guarantee assumes every component "
            "in [0, 1]. Encode the data with dpcore.datasets (one-hot and min-max by the public "
            "range) or pass clip=True."
        )
    return arr


def fingerprint(*arrays: np.ndarray) -> str:
    """A digest of ``arrays`` (their shapes and bytes), kept in memory to check that a part
    computed once (a fit, nearest points) is used with the data it was computed on; never
    written to a link, a config or a file name.

    >>> fingerprint(np.zeros(2)) == fingerprint(np.zeros(2)) != fingerprint(np.zeros(3))
    True
    """
    digest = hashlib.blake2b(digest_size=16)
    for X in arrays:
        digest.update(np.asarray(np.shape(X), dtype=np.int64).tobytes())
        digest.update(np.ascontiguousarray(X).data)  # read in place: no copy of the bytes
    return digest.hexdigest()
