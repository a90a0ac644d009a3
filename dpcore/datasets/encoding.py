"""Encoding of raw tables into the unit box ``[0, 1]^d`` that every mechanism expects.

:class:`TabularEncoder` builds the encoded pair of a :class:`~dpcore.datasets.scenario.Scenario`:
categorical columns become binary items ``"column=value"`` (one-hot, or dummy coding that drops
the first level); numeric columns are scaled by bounds that are fixed in advance or
read off the *public* set only, and values outside the bounds are truncated. The encoder is
fitted on E and applied unchanged to D, so no bound depends on D. :func:`biased_split` draws the
biased public/private splits of Ji & Elkan [JE13]_ Sect. 5.

References
----------
.. [JE13] Z. Ji and C. Elkan, "Differential privacy based on importance weighting", Machine
   Learning 93, 2013.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from dpcore.validation import DataError

__all__ = ["TabularEncoder", "biased_split", "item_name"]


def biased_split(
    in_group: np.ndarray, p: float, p_other: float, rng: np.random.Generator
) -> np.ndarray:
    """Mark rows private: a fraction ``p`` of the rows in a group and ``p_other`` of the rest.

    Exact fractions (rounded to the nearest whole row, halves up) drawn by a random permutation
    within each part, as in [JE13]_ Sect. 5 (90 % of men and 10 % of women private).

    Parameters
    ----------
    in_group : ndarray of bool of shape (n_samples,)
    p, p_other : float
        Private fractions of the rows in and out of the group.
    rng : numpy.random.Generator

    Returns
    -------
    private : ndarray of bool of shape (n_samples,)
    """
    private = np.zeros(len(in_group), dtype=bool)
    for part, fraction in ((in_group, p), (~in_group, p_other)):
        rows = np.flatnonzero(part)
        count = int(np.floor(fraction * len(rows) + 0.5 + 1e-9))  # 1e-9: 1 - 0.9 is not 0.1
        private[rng.permutation(rows)[:count]] = True
    return private


def item_name(column: str, value: object) -> str:
    """Name of the binary item for ``column == value``, e.g. ``"income=>50K"`` or ``"class=3"``."""
    if isinstance(value, float | np.floating) and float(value).is_integer():
        value = int(value)
    return f"{column}={value}"


class TabularEncoder:
    """One-hot items for categorical columns and min-max scaling for numeric ones.

    Parameters
    ----------
    categories : mapping of str to sequence, default=None
        Fixed levels of categorical columns, in the order of their items. Columns not listed here
        that hold text are categorical too, with the sorted levels seen by :meth:`fit`. A value
        outside the levels (or missing) encodes as an all-zero group: the item is absent, as in
        the R package arules.
    bounds : mapping of str to (float, float), default=None
        Fixed domain ``(low, high)`` of numeric columns. Numeric columns not listed here are
        scaled by the range that :meth:`fit` sees, so fit on the public set only.
    binary : iterable of str, default=()
        Columns that already hold 0/1 values; they are kept as single columns.
    drop_first : bool, default=False
        Dummy coding: drop the item of each categorical column's first level (k - 1 items).

    Attributes
    ----------
    categories_ : dict of str to list
        Levels of every categorical column.
    bounds_ : dict of str to (float, float)
        Scaling range of every scaled column.
    groups_ : dict of str to list of str
        Original column -> its encoded columns.
    kinds_ : dict of str to str
        Original column -> ``"onehot"``, ``"dummy"``, ``"binary"`` or ``"scaled"``.
    feature_names_out_ : list of str
        All encoded columns, in the order of the original columns.

    Examples
    --------
    >>> E = pd.DataFrame({"age": [20.0, 60.0], "sex": ["F", "M"]})
    >>> TabularEncoder().fit(E).transform(pd.DataFrame({"age": [40.0, 99.0], "sex": ["M", "X"]}))
       age  sex=F  sex=M
    0  0.5    0.0    1.0
    1  1.0    0.0    0.0
    """

    def __init__(
        self,
        *,
        categories: Mapping[str, Sequence[object]] | None = None,
        bounds: Mapping[str, tuple[float, float]] | None = None,
        binary: Iterable[str] = (),
        drop_first: bool = False,
    ) -> None:
        self.categories = categories
        self.bounds = bounds
        self.binary = binary
        self.drop_first = drop_first

    def fit(self, X: pd.DataFrame) -> TabularEncoder:
        """Learn levels and ranges from ``X``, which must be the public set (or a domain)."""
        categories = dict(self.categories or {})
        bounds = dict(self.bounds or {})
        binary = set(self.binary)
        self.categories_, self.bounds_, self.groups_, self.kinds_ = {}, {}, {}, {}
        for col in X.columns:
            values = X[col]
            if col in binary:
                self.kinds_[col], self.groups_[col] = "binary", [col]
            elif col in categories or not pd.api.types.is_numeric_dtype(values):
                levels = list(categories.get(col, sorted(values.dropna().unique())))
                self.categories_[col] = levels
                items = [item_name(col, v) for v in levels]
                self.kinds_[col] = "dummy" if self.drop_first else "onehot"
                self.groups_[col] = items[1:] if self.drop_first else items
            else:
                low, high = bounds.get(col, (values.min(), values.max()))
                if not high > low:
                    raise DataError(
                        f"Column {col!r} has the single value {float(low):g} in the public set, "
                        "so it cannot be scaled by the public range. Drop the column."
                    )
                self.bounds_[col] = (float(low), float(high))
                self.kinds_[col], self.groups_[col] = "scaled", [col]
        self.feature_names_out_ = [name for items in self.groups_.values() for name in items]
        if len(set(self.feature_names_out_)) < len(self.feature_names_out_):
            clash = pd.Index(self.feature_names_out_)
            raise DataError(
                f"Encoded column names clash: {sorted(set(clash[clash.duplicated()]))}. Rename "
                "the columns whose names contain '=' so that no item name repeats."
            )
        return self

    def scenario_fields(self) -> dict[str, dict]:
        """What a :class:`~dpcore.datasets.scenario.Scenario` keeps of the fitted encoding:
        ``groups``, ``kinds``, ``bounds`` and ``categories`` (copies)."""
        return {
            "groups": {col: list(items) for col, items in self.groups_.items()},
            "kinds": dict(self.kinds_),
            "bounds": dict(self.bounds_),
            "categories": {col: list(levels) for col, levels in self.categories_.items()},
        }

    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        """Encode ``X`` (with the fitted columns) into a float frame with values in [0, 1]."""
        missing = [col for col in self.groups_ if col not in X.columns]
        if missing:
            raise DataError(f"Columns {missing} are missing; the encoder was fitted with them.")
        blocks = []
        for col, kind in self.kinds_.items():
            values = X[col]
            if kind in ("onehot", "dummy"):
                codes = pd.Index(self.categories_[col]).get_indexer(values)
                block = codes[:, None] == np.arange(len(self.categories_[col]))
                blocks.append(block[:, 1:] if kind == "dummy" else block)
                continue
            arr = values.to_numpy(dtype=float, na_value=np.nan)
            if np.isnan(arr).any():
                raise DataError(
                    f"Column {col!r} has missing values; a numeric column needs a value in every "
                    "row. Drop those rows first."
                )
            if kind == "scaled":
                low, high = self.bounds_[col]
                arr = np.clip((arr - low) / (high - low), 0.0, 1.0)
            elif not np.isin(arr, (0.0, 1.0)).all():
                raise DataError(f"Column {col!r} must hold only 0 and 1; it has other values.")
            blocks.append(arr[:, None])
        data = np.hstack(blocks).astype(float) if blocks else np.empty((len(X), 0))
        return pd.DataFrame(data, columns=self.feature_names_out_, index=X.index)
