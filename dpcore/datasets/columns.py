"""How an uploaded table's columns are used: the choices a person makes, read off public rows.

``columns_to_leave_out(frame) -> {column: reason}``
    Columns best left out of a model by default: dates, and columns with one value per row (an
    ID or a row number). One-hot items of every date or ID describe single records, predict
    nothing in new data, and easily exceed the encoder's width limit.
``target_classes(values) -> (classes, positive)``
    A target's classes in the public file, and the class encoded as 1 unless the person picks
    another.
``as_categories(values) -> Series``
    A column read as categories instead of numbers (a code such as a region number), cell by
    cell.

Call each on public rows only (or, for :func:`as_categories`, cell by cell on any rows): what
they return shapes the encoding, hence ``d`` and every release's sensitivity, which must not
depend on the private data.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from dpcore.datasets.reading import parse_numbers
from dpcore.text import plain_value
from dpcore.validation import DataError

__all__ = ["MAX_CLASSES", "MIN_ID_ROWS", "as_categories", "columns_to_leave_out",
           "target_classes"]

#: Most classes a target may have in the public file.
MAX_CLASSES = 20
#: Fewest present values for a column of distinct values to count as one value per row: in a
#: handful of rows, distinct values are common and say nothing.
MIN_ID_ROWS = 20
#: Share of a text column's present cells that must look like dates for it to be left out.
DATE_SHARE = 0.9
DATE_REASON = "dates: one category per day, which describes records rather than predicts"
ID_REASON = "one value per row (an ID or a row number): it names records and predicts nothing"
_TIME = r"(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
_DATE = re.compile(
    rf"(?:\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}|\d{{1,2}}[-/.]\d{{1,2}}[-/.]\d{{2,4}}){_TIME}"
)
_ID_NAME = re.compile(r"(?i:id|index|row|key|unnamed: ?\d+|.*[ _.-]id|id[ _.-].*)|.*[a-z]ID")


def columns_to_leave_out(frame: pd.DataFrame) -> dict[str, str]:
    """Columns of ``frame`` best left out of a model by default, each with the reason.

    - **Dates**: a text column of which at least :data:`DATE_SHARE` of the present cells look
      like dates (``2012-01-31``, ``31/01/2012``, with or without a time).
    - **One value per row**: at least :data:`MIN_ID_ROWS` present values, all different, in a
      text column, or in a column of whole numbers that run without a gap (row numbers) or
      whose name says it is an ID (``id``, ``customer_id``, ``customerID``, ``Unnamed: 0``). A
      column of measurements (fractional numbers) is never left out: their values are often all
      different.

    Parameters
    ----------
    frame : DataFrame
        Public rows, typed as :func:`~dpcore.datasets.read_csv_upload` or
        :func:`~dpcore.datasets.type_columns` type them.

    Returns
    -------
    dict of str to str
        Column name -> reason, in the frame's column order.

    Examples
    --------
    >>> frame = pd.DataFrame({"id": range(30), "day": ["2012-01-%02d" % (i + 1) for i in range(30)],
    ...                       "temp": np.linspace(0, 1, 30), "rain": [0, 1] * 15})
    >>> list(columns_to_leave_out(frame))
    ['id', 'day']
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    reasons = {}
    for col in frame.columns:
        values = frame[col].dropna()
        numeric = pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values)
        if not numeric and len(values) and _date_share(values) >= DATE_SHARE:
            reasons[str(col)] = DATE_REASON
        elif len(values) >= MIN_ID_ROWS and values.is_unique and (
                not numeric or _whole_run_or_named(values, str(col))):
            reasons[str(col)] = ID_REASON
    return reasons


def _date_share(values: pd.Series) -> float:
    cells = values.astype(str).str.strip()
    return float(cells.str.fullmatch(_DATE.pattern).mean())


def _whole_run_or_named(values: pd.Series, name: str) -> bool:
    """Whole numbers that run without a gap, or that a name says are an ID."""
    if pd.api.types.is_bool_dtype(values):
        return False
    numbers = values.to_numpy(dtype=float)
    if not np.all(np.isfinite(numbers)) or not np.all(numbers == np.round(numbers)):
        return False
    return bool(numbers.max() - numbers.min() + 1 == len(numbers)) or bool(
        _ID_NAME.fullmatch(name.strip()))


def target_classes(values: pd.Series) -> tuple[list[Any] | None, Any]:
    """A target's classes in the public file, and the class encoded as 1 by default.

    Parameters
    ----------
    values : Series
        The target column of the public file.

    Returns
    -------
    classes : list or None
        The distinct present values, sorted; None for a 0/1 column (encoded as it is).
    positive : object
        1 for a 0/1 column; otherwise the rarest class (ties: the last in sorted order), so a
        rare outcome, the one usually of interest, is the one a model predicts.

    Raises
    ------
    DataError
        More than :data:`MAX_CLASSES` classes.

    Examples
    --------
    >>> target_classes(pd.Series(["setosa", "virginica", "setosa", "versicolor", "virginica"]))
    (['setosa', 'versicolor', 'virginica'], 'versicolor')
    >>> target_classes(pd.Series([0, 1, 1]))
    (None, 1)
    """
    present = values.dropna()
    classes = sorted(present.drop_duplicates().tolist())
    if len(classes) > MAX_CLASSES:
        raise DataError(
            f"Target {values.name!r} has {len(classes)} distinct values in the public file, "
            f"more than the {MAX_CLASSES} classes a target may have. Choose a column with few "
            "classes (such as yes/no), or group its values into classes first."
        )
    if pd.api.types.is_numeric_dtype(present) and set(classes) <= {0, 1}:
        return None, 1
    counts = present.value_counts()
    return classes, min(reversed(classes), key=lambda value: counts.get(value, 0))


def as_categories(values: pd.Series) -> pd.Series:
    """Cells as category labels, each read alone: a number as it is usually written (``5``,
    ``2.5``), whether stored as a number or as text that reads as one (``"5.0"`` is ``"5"``);
    other text as written; a missing cell missing.

    Cell by cell, so a private cell's label never depends on any other cell, and a number
    written ``5`` in one file and ``5.0`` in the other is the same category.

    Examples
    --------
    >>> as_categories(pd.Series([3, 4.0, 2.5, None])).tolist()
    ['3', '4', '2.5', nan]
    >>> as_categories(pd.Series(["5.0", "north", None])).tolist()
    ['5', 'north', nan]
    """
    numbers = parse_numbers(values)
    finite = np.isfinite(numbers.to_numpy())
    labels = values.astype(object).where(~finite, numbers.map(plain_value))
    return labels.astype("str")

