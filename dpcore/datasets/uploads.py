"""Uploaded tables: align, split and encode them into a :class:`Scenario`.

Every problem raises :class:`~dpcore.DataError` with a message that says what is wrong and what to
do, so a page only shows the message. Things that are handled rather than refused (dropped
columns, imputed or clipped values) are listed in the :class:`UploadReport`.

One argument order everywhere: ``(private, public)``.

``align_columns(private, public) -> (private, public, notes)``
    Keep the columns both files share (Ji & Elkan Sect. 7), in the public file's order.
``split_columns(frame, *, max_values=MAX_SPLIT_VALUES, drop=True) -> list of str``
    Columns with few distinct values: the ones a split by value can use.
``split_by_value(frame, column, value, *, p=0.9, p_other=None, drop=True, rng=None)``
    One file -> (private, public): a fraction ``p`` of the rows with ``column == value`` and
    ``p_other`` (default ``1 - p``) of the others go private, like Ji & Elkan's split by sex.
``split_random(frame, private_fraction=0.5, *, rng=None) -> (private, public)``
    One file -> (private, public) at random.
``scenario_from_uploads(private, public, *, target=None, positive=None, exclude=(),
categorical=(), public_missing="impute", max_features=MAX_FEATURES, name="upload",
title="Uploaded data") -> (Scenario, UploadReport)``
    Encode as every mechanism expects, with the columns ``exclude`` left out and the numeric
    columns ``categorical`` read as categories (:mod:`dpcore.datasets.columns` suggests both
    from the public file).

The private file never shapes the release
-----------------------------------------
Everything that fixes the encoded domain, and so the sensitivity of every mechanism, is read from
the public file and the user's choices only: which columns are used (shared names, minus the
columns the user leaves out and columns that are empty or constant *in the public file*), their
types (numeric or text, as in the public file, or categories where the user says so), the
one-hot levels, the scaling ranges, the target's classes and the positive class, and hence
``d``. Private values are then mapped by rules fixed in advance, value by value:

- a private cell is read into its column's public type (the private file is best read with
  ``read_csv_upload(..., private=True)``, which leaves every column as text): in a numeric
  column, a cell that is not a number (``forty``) is missing, by
  :func:`~dpcore.datasets.reading.parse_numbers`; in a text column, a cell is compared as written;
- a numeric value outside the public range ``[min, max]`` is clipped to it (``inf`` too);
- a text value that the public file does not contain encodes as an all-zero group of items;
- a target value that is not one of the public classes is "not the positive class": 0;
- a missing numeric value is imputed by the *public* median of its column; a missing text value
  encodes as an all-zero group (like an unseen value); a missing target as 0;
- no private row is ever dropped, so ``N_D`` is the number of private rows uploaded, and a
  column that happens to be empty in the private file is kept (every value imputed).

Two private files that differ in one row (replace-one) therefore give the same columns, the same
``d`` and the same ``N_D``, and their encodings differ in that row only, which is the
neighbouring relation the mechanisms' proofs assume ([JE13]_ Sect. 3). Public rows with missing
values are imputed by the same rule (``public_missing="impute"``) or dropped (``"drop"``): they
are public. The counts of changed private values are given to the data owner in
:attr:`UploadReport.private_notes`, each labelled non-private (computed from D without noise;
never to be published), and what was read from a private file that looks wrong (rows whose every
value is missing, values too large to be numbers) in :attr:`UploadReport.private_reading`: the
owner already holds the file, and the notes change nothing that is encoded or released. A private
target with a single class is not refused (it is a fact of D; a note warns), but a public target
with a single class is, since the classes come from E. No check of the private file refuses an
upload, with one exception, below.

The public file must not be the private one
-------------------------------------------
Every release assumes that E was obtained without looking at D ([JE13]_ Theorem 1); the pages
that publish the public rows with their weights would otherwise publish private records. The
built-in options that break this (E = D, a bootstrap of D) are refused at Publish by
:meth:`Scenario.check_publishable`. An upload is checked here:

- **Refused**: the two files hold the same rows, as a multiset, in the columns they share, read
  in the public types (the same file uploaded twice, or a re-ordered or re-saved copy).
- **Warned** (:attr:`UploadReport.private_warnings`, non-private, for the data owner): at least
  :data:`OVERLAP_WARNING` (10 %) of the public rows appear in the private file beyond what
  independent samples would share by chance.

Why the refusal may look at D. For a fixed public file E it fires on one private dataset only,
D = E (as a multiset of rows), so on every pair of neighbours that both differ from E the outcome
is the same (accepted), and the mechanisms' guarantees hold as before. The pairs it separates, E
and its neighbours, start from an input that breaks the contract of every release (E obtained
without looking at D): with E = D the owner has declared the private data public, and the pages
that publish E's rows with their weights would publish D verbatim. Refusing there replaces a
total disclosure by at most one bit, "D = E". That bit goes to the data owner, who uploaded both
files and so knows it: the message lives in the owner's session only, never in a link, config or
release; the world sees only that nothing was published, as it does whenever an owner does not
publish. In correct use (E independent of D) the refusal never fires, since independent samples
of real data are not equal row for row; it stops one mistake, the same file uploaded twice.

Why the overlap only warns. A partial overlap does depend on single records: a neighbour that
replaces one shared row moves the count by one, so a refusal at a threshold would turn on one
private record, which is the failure of section 5 of issue 21 again. A warning to the data owner,
labelled non-private like the other notes, tells the one person who can fix E without making the
app's behaviour depend on D. The threshold is 10 % of E: independent samples over continuous
columns share almost no exact rows, while an E made from D (a sample, an extract, a bootstrap, a
mix) shares a large part; rows that repeat within E itself (columns with few values) measure what
independent samples share by chance, and only the excess over that estimate counts, so a public
file of a few categorical columns does not set it off. 10 % is about three standard errors above
the chance excess of small files (independent files of 80 and 60 rows over 432 possible rows
share 11 % of E against 6 % expected), and at or below what an E derived from D shares (all of
it for a copy, sample, extract or bootstrap of D; 10 % for a public file with one row in ten
copied from D).

References
----------
.. [JE13] Z. Ji and C. Elkan, "Differential privacy based on importance weighting", Machine
   Learning 93, 2013.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dpcore.datasets.columns import MAX_CLASSES, as_categories, target_classes
from dpcore.datasets.encoding import TabularEncoder, biased_split, item_name
from dpcore.datasets.leaks import Leak, target_leaks
from dpcore.datasets.reading import (
    MAX_NAME_CHARS,
    infer_column_types,
    parse_numbers,
    quote_text,
    type_columns,
)
from dpcore.datasets.scenario import Scenario
from dpcore.text import md, plain_value
from dpcore.validation import DataError, check_random_state, check_scalar

__all__ = [
    "MAX_CLASSES",
    "MAX_FEATURES",
    "MAX_SPLIT_VALUES",
    "OVERLAP_WARNING",
    "PUBLIC_MISSING",
    "UploadReport",
    "TARGET_NAMES",
    "align_columns",
    "likely_target",
    "scenario_from_uploads",
    "split_by_value",
    "split_columns",
    "split_random",
]

#: Most encoded columns an upload may give; the pages fit models in that dimension.
MAX_FEATURES = 300
#: Most distinct values of a column offered as a split column by :func:`split_columns`.
MAX_SPLIT_VALUES = 20
#: What :func:`scenario_from_uploads` does with public rows that have missing values.
PUBLIC_MISSING = ("impute", "drop")
#: Share of the public rows found in the private file, beyond chance, from which the data owner
#: is warned that E looks derived from D (module notes).
OVERLAP_WARNING = 0.1
_NON_PRIVATE = "Non-private (computed from the private file without noise; do not publish): "
# A cell that parse_numbers reads as infinite: a number beyond the float range, or "inf".
_TOO_LARGE = ("too large to be a number (beyond ±1.8e308, such as a cell of hundreds of digits) "
              "or written as infinite")


@dataclass(frozen=True)
class UploadReport:
    """What :func:`scenario_from_uploads` did with the uploaded data.

    Attributes
    ----------
    columns : DataFrame
        One row per shared column: its type in the public file, distinct values and missing
        cells in the public file, missing cells in the private file (a non-private count, in
        the column ``"missing in D (non-private)"``) and how it was encoded (or why dropped).
    notes : tuple of str
        Facts of the public file and of the column names: dropped columns, dropped or imputed
        public values, the positive class. Safe to show to anyone.
    private_notes : tuple of str
        Counts computed from the private file (private values imputed, clipped or encoded as
        all-zero items; cells that are not numbers; a single target class in D). Each starts
        with "Non-private"; for the data owner only, never to be published.
    private_warnings : tuple of str
        What the data owner must act on before publishing: the public file shares many rows
        with the private one (module notes). Non-private like ``private_notes``; a page shows
        them in its main area.
    private_reading : tuple of str
        What was read from the private file when the file itself looks wrong: rows whose
        every value is missing, values too large to be numbers. Non-private like
        ``private_notes``, for the data owner, who holds the file; they change nothing that is
        encoded or released (``d``, ``N_D``, the values are as the fixed rules make them).
    leaks : tuple of Leak
        The used columns that alone predict the target on the public file
        (:func:`~dpcore.datasets.leaks.target_leaks`, public rows only), best first.
    """

    columns: pd.DataFrame
    notes: tuple[str, ...]
    private_notes: tuple[str, ...] = ()
    private_warnings: tuple[str, ...] = ()
    private_reading: tuple[str, ...] = ()
    leaks: tuple[Leak, ...] = ()


def align_columns(
    private: pd.DataFrame, public: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Keep the columns that both files share, as Ji & Elkan Sect. 7 prescribe.

    Parameters
    ----------
    private, public : DataFrame
        The private file D and the public file E (in this order, as everywhere in dpcore).

    Returns
    -------
    private, public : DataFrame
        The shared columns, in the public file's order.
    notes : list of str
        The dropped columns, if any.

    Raises
    ------
    TypeError
        If either argument is not a DataFrame.
    DataError
        If either file has no column, or the files share no column name.

    Notes
    -----
    Only names are compared: a shared column takes its type from the public file, and
    :func:`scenario_from_uploads` reads the private cells into it by a fixed rule. Refusing
    a column that is numeric in one file and text in the other would turn on private values
    (one text cell makes a private column text).
    """
    _check_frames(private, public)
    for part, frame in (("private", private), ("public", public)):
        if frame.shape[1] == 0:
            raise DataError(
                f"The {part} data has no columns (a split that removes the only column leaves "
                "none). Upload a file with the columns to study."
            )
    in_private = set(private.columns)
    shared = [col for col in public.columns if col in in_private]
    if not shared:
        lower = {str(col).lower(): col for col in private.columns}
        near = [
            f"{col!r} / {lower[str(col).lower()]!r}"
            for col in public.columns
            if str(col).lower() in lower
        ]
        hint = f" These differ only in case: {', '.join(near)}." if near else ""
        raise DataError(
            "The public and private files share no column names (public: "
            f"{_listing(public.columns)}; private: {_listing(private.columns)}).{hint} Columns "
            "are matched by exact name: give the same feature the same name in both files."
        )
    notes = [
        f"Dropped {_listing(cols)} (only in the {side} file): only columns that both files "
        "share can be used."
        for side, cols in (
            ("public", [c for c in public.columns if c not in in_private]),
            ("private", [c for c in private.columns if c not in set(shared)]),
        )
        if cols
    ]
    return private.loc[:, shared], public.loc[:, shared], notes


#: Column names that usually hold what a table is about (compared in lower case).
TARGET_NAMES = ("target", "label", "class", "y", "outcome", "response", "income", "diagnosis",
                "churn", "default", "survived", "status", "result")


def likely_target(frame: pd.DataFrame) -> str | None:
    """The column a table most likely predicts: a column of exactly two values, one named like a
    target (:data:`TARGET_NAMES`) first, else the last such column; None when no column has
    two values.

    Call it on public rows only: it pre-selects the upload's target, which shapes what the
    pages compute and publish.

    Examples
    --------
    >>> frame = pd.DataFrame({"sex": ["F", "M", "M"], "age": [20, 31, 47],
    ...                       "diagnosis": ["B", "M", "B"]})
    >>> likely_target(frame)
    'diagnosis'
    >>> likely_target(frame[["age"]]) is None
    True
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    counts = frame.nunique(dropna=True)
    binary = [str(col) for col in frame.columns if counts[col] == 2]
    named = [col for col in binary if col.lower() in TARGET_NAMES]
    return (named or binary or [None])[0 if named else -1]


def split_columns(
    frame: pd.DataFrame, *, max_values: int = MAX_SPLIT_VALUES, drop: bool = True
) -> list[str]:
    """Columns that :func:`split_by_value` can split by: few distinct values.

    Parameters
    ----------
    frame : DataFrame
    max_values : int, default=MAX_SPLIT_VALUES
        Most distinct (non-missing) values a split column may have; it needs at least two.
    drop : bool, default=True
        Whether the split removes its column (as :func:`split_by_value` does by default): then a
        one-column file offers none, since splitting by it would leave no column.

    Returns
    -------
    list of str
        In the frame's column order.

    Examples
    --------
    >>> frame = pd.DataFrame({"sex": ["F", "M", "M"], "age": [20, 31, 47], "y": [0, 1, 1]})
    >>> split_columns(frame, max_values=2)
    ['sex', 'y']
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    if isinstance(max_values, bool) or not isinstance(max_values, int | np.integer):
        raise TypeError(f"max_values must be an int, got {type(max_values).__name__}.")
    check_scalar(max_values, "max_values", min_val=2, include_min=True)
    if drop and frame.shape[1] < 2:
        return []
    counts = frame.nunique(dropna=True)
    return [str(col) for col in frame.columns if 2 <= counts[col] <= max_values]


def split_by_value(
    frame: pd.DataFrame,
    column: str,
    value: Any,
    *,
    p: float = 0.9,
    p_other: float | None = None,
    drop: bool = True,
    rng: Any = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split one file into private and public parts by a biased rule, like Ji & Elkan Sect. 5.

    A fraction ``p`` of the rows with ``column == value`` and a fraction ``p_other`` of the
    other rows go to the private part (exact fractions, drawn by a seeded permutation); the
    rest is public. Adult's split is ``split_by_value(adult, "sex", "Male", p=0.9)``.

    Parameters
    ----------
    frame : DataFrame
    column : str
        One of :func:`split_columns` (any column works; those are the sensible ones).
    value : object
        A value of ``column``. A number matches the cells that read as that number, and a
        text such as ``"1"`` the numbers it reads as, so a value saved in a config or a link
        finds its rows whether the file was read with its types or as text.
    p : float, default=0.9
        Private fraction of the rows with ``column == value``.
    p_other : float, default=None
        Private fraction of the other rows; None means ``1 - p``.
    drop : bool, default=True
        Remove ``column`` after the split, as Ji & Elkan remove sex, so that no single column
        tells the two parts apart.
    rng : None, int or numpy.random.Generator, default=None

    Returns
    -------
    private, public : DataFrame
        In this order, as everywhere in dpcore.

    Raises
    ------
    DataError
        No such column or value, ``column`` is the only column and ``drop`` is True, or a part
        would be empty.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    if column not in frame.columns:
        raise DataError(
            f"There is no column {column!r} to split by; choose one of {_listing(frame.columns)}."
        )
    if drop and frame.shape[1] == 1:
        raise DataError(
            f"Splitting by {column!r}, the only column of the file, leaves nothing: the split "
            "removes its column, so no column would be left to study. Upload a file with more "
            "columns, or split at random instead."
        )
    p = check_scalar(p, "p", min_val=0.0, max_val=1.0, include_min=True)
    p_other = (
        1.0 - p
        if p_other is None
        else check_scalar(p_other, "p_other", min_val=0.0, max_val=1.0, include_min=True)
    )
    in_group = _rows_equal(frame[column], value)
    if not in_group.any():
        values = frame[column].dropna().unique()[:10]
        raise DataError(
            f"No row has {column} == {_show(value)}. Choose one of its values, e.g. "
            f"{', '.join(map(_show, values))}."
        )
    private = biased_split(in_group, p, p_other, check_random_state(rng))
    if drop:
        frame = frame.drop(columns=column)
    return _parts(frame, private)


def _rows_equal(values: pd.Series, value: Any) -> np.ndarray:
    """Rows whose cell equals ``value``; across text and numbers, equal as numbers."""
    same = (values == value).to_numpy(dtype=bool, na_value=False)
    text_value, text_column = isinstance(value, str), not pd.api.types.is_numeric_dtype(values)
    if same.any() or text_value == text_column or isinstance(value, bool | np.bool_):
        return same
    number = parse_numbers(pd.Series([value], dtype=object)).iloc[0]
    if np.isnan(number):
        return same
    return (parse_numbers(values) == number).to_numpy(dtype=bool)


def split_random(
    frame: pd.DataFrame, private_fraction: float = 0.5, *, rng: Any = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split one file into private and public parts at random (an unbiased control).

    Parameters
    ----------
    frame : DataFrame
    private_fraction : float, default=0.5
        Exact fraction of the rows (rounded) that goes private.
    rng : None, int or numpy.random.Generator, default=None

    Returns
    -------
    private, public : DataFrame
        In this order, as everywhere in dpcore.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    fraction = check_scalar(private_fraction, "private_fraction", min_val=0.0, max_val=1.0)
    everyone = np.ones(len(frame), dtype=bool)
    return _parts(frame, biased_split(everyone, fraction, 0.0, check_random_state(rng)))


def _parts(frame: pd.DataFrame, private: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    for part, rows in (("public", ~private), ("private", private)):
        if not rows.any():
            raise DataError(
                f"The split leaves the {part} part empty. Choose fractions that give both parts "
                "some rows."
            )
    return (
        frame.loc[private].reset_index(drop=True),
        frame.loc[~private].reset_index(drop=True),
    )


def scenario_from_uploads(
    private: pd.DataFrame,
    public: pd.DataFrame,
    *,
    target: str | None = None,
    positive: Any = None,
    exclude: Sequence[str] = (),
    categorical: Sequence[str] = (),
    public_missing: str = "impute",
    max_features: int = MAX_FEATURES,
    name: str = "upload",
    title: str = "Uploaded data",
) -> tuple[Scenario, UploadReport]:
    """Encode an uploaded private and public file into a :class:`Scenario`.

    Everything that shapes the encoding comes from the public file and these arguments; private
    values are mapped into it by fixed rules and no private row is dropped (see the module
    notes): replacing one private row changes one encoded row and nothing else.

    Parameters
    ----------
    private, public : DataFrame
        D and E, in this order, as returned by :func:`read_csv_upload` (the private file with
        ``private=True``) or by a split. Text columns of ``public`` that hold numbers are
        typed by :func:`~dpcore.datasets.reading.type_columns`; ``private`` cells are read into
        the public types (module notes), whatever their own type.
    target : str, default=None
        Column to predict; it must take at least two classes in the public file.
    positive : object, default=None
        Class of ``target`` encoded as 1. None means 1 for a 0/1 column and otherwise the
        rarest class in the public file (ties: the last in sorted order). With more than two
        classes this is one class against the rest.
    exclude : sequence of str, default=()
        Shared columns to leave out (an ID, a date, a column that leaks the target);
        :func:`~dpcore.datasets.columns_to_leave_out` suggests them from the public file.
    categorical : sequence of str, default=()
        Columns to read as categories (one-hot items of the public file's values, such as a
        region code) instead of numbers scaled by their public range; a text column is one
        already.
    public_missing : {"impute", "drop"}, default="impute"
        Public rows with missing values: impute them by the rule used for private values
        (public median, all-zero items, target 0), or drop them. Private rows are never dropped.
    max_features : int, default=MAX_FEATURES
        Most encoded columns allowed.
    name, title : str
        Registry-like key and human title of the scenario.

    Returns
    -------
    scenario : Scenario
        ``private`` has exactly one encoded row per uploaded private row.
    report : UploadReport

    Raises
    ------
    TypeError
        If ``private`` or ``public`` is not a DataFrame.
    ValueError
        If ``public_missing`` is not one of :data:`PUBLIC_MISSING`.
    DataError
        No rows, no shared column, a column in ``exclude`` or ``categorical`` that the files
        do not share, the target left out, a public column of numbers with a few text or
        infinite cells, a public file with no value or with a text value over
        :data:`~dpcore.datasets.reading.MAX_NAME_CHARS` characters, the same rows in both files,
        no feature left, unknown target, a target
        with one or more than :data:`MAX_CLASSES` classes in the public file, an unknown
        positive class, too many encoded columns. Each is decided by the public file and the
        arguments, except "the same rows in both files" (module notes).
    """
    _check_frames(private, public)
    if public_missing not in PUBLIC_MISSING:
        raise ValueError(f"public_missing must be one of {PUBLIC_MISSING}, got {public_missing!r}.")
    for part, frame in (("private", private), ("public", public)):
        if len(frame) == 0:
            raise DataError(f"The {part} file has no rows. Upload a file with data rows.")
    if len(public) == 1:
        raise DataError(
            "The public file has a single row, so every column is constant in it; the "
            "encoding (columns, categories, ranges, the target's classes) is read from the "
            "public file, which needs at least two rows, and more give better ranges. Upload "
            "a larger public file."
        )
    empty_rows = int(private.isna().all(axis=1).sum())  # rows of the file with no value at all
    private, public, notes = align_columns(private, public)
    exclude = _chosen_columns("left out", exclude, public.columns)
    categorical = _chosen_columns("read as categories", categorical, public.columns)
    if target is not None and target not in public.columns:
        raise DataError(
            f"Target {target!r} is not a column of both files; choose one of "
            f"{_listing(public.columns)}."
        )
    if target in exclude:
        raise DataError(f"The target {target!r} is among the columns left out; use it, or "
                        "choose another target.")
    if exclude:
        kept = [col for col in public.columns if col not in exclude]
        if not kept:
            raise DataError(f"Every shared column is left out ({_listing(exclude)}); use at "
                            "least one.")
        public, private = public.loc[:, kept], private.loc[:, kept]
        notes.append(f"Left out by choice: {_listing(exclude)}.")
    public = type_columns(public)
    categorical = [col for col in categorical if col not in exclude]
    if categorical:  # cell by cell, in both files alike (as_categories)
        public = public.assign(**{col: as_categories(public[col]) for col in categorical})
        private = private.assign(**{col: as_categories(private[col]) for col in categorical})
        notes.append(f"Read as categories by choice: {_listing(categorical)}.")
    _check_public_finite(public)
    _check_public_values(public)
    private, not_numbers = _read_into_public_types(private, public)
    private_warnings = _check_not_derived(private, public)
    aligned_public, aligned_private = public, private
    if public_missing == "drop":
        public = _drop_incomplete(public, notes)
    dropped = _useless_columns(public, target, notes)
    usable = [col for col in public.columns if col not in dropped]
    public, private = public.loc[:, usable], private.loc[:, usable]

    numeric = [c for c in usable if c != target and pd.api.types.is_numeric_dtype(public[c])]
    medians = {col: float(public[col].median()) for col in numeric}
    categories, binary, target_column, levels = {}, [], None, None
    if target is not None:
        positive, levels = _target_levels(public[target], positive)
        if levels is None:
            binary, target_column = [target], target
        else:
            categories[target], target_column = levels, item_name(target, positive)
    private_notes = _private_notes(
        private, public, numeric, medians, target, positive, levels, not_numbers
    )
    reading = _private_reading(private, numeric, empty_rows)
    notes.extend(_public_imputation_notes(public, numeric, medians, target))
    conformed_public = _conform(public, numeric, medians, binary)
    conformed_private = _conform(private, numeric, medians, binary)
    bounds = {col: (conformed_public[col].min(), conformed_public[col].max()) for col in numeric}
    encoder = TabularEncoder(categories=categories, bounds=bounds, binary=binary)
    encoder.fit(conformed_public)
    _check_width(encoder, max_features)
    encoded_public = encoder.transform(conformed_public)
    encoded_private = encoder.transform(conformed_private)
    if target_column is not None:
        if len(categories.get(target, ())) > 2:
            notes.append(
                f"Target {target!r} has {len(categories[target])} classes in the public file: "
                f"{_show(positive)} is encoded as 1 against all the others."
            )
        if encoded_private[target_column].nunique() < 2:
            value = int(encoded_private[target_column].iloc[0])
            private_notes.append(
                f"{_NON_PRIVATE}every private row has {target_column} = {value}: the private "
                "file holds a single class of the target, so a model of the target learns "
                "little from it (this is not refused, since it is a fact of the private data)."
            )
    raw_public = _impute_raw(public, numeric, medians)
    raw_private = _impute_raw(private, numeric, medians)
    description = (
        f"**Uploaded data**: a public file E ({_rows(len(public))}) and a private file D "
        f"({_rows(len(private))}) sharing {len(usable)} usable "
        f"column{'s' if len(usable) != 1 else ''}.\n\n"
        "**Encoding (from the public file only):** text columns as one-hot items with the "
        "levels of the public file (other values: all-zero items); numeric columns min-max "
        "scaled by their range in the public file, private values clipped to it; missing "
        "numbers imputed by the public median, missing text as all-zero items; no private row "
        f"dropped. {f'Target: *{md(target_column)}*.' if target_column else 'No target.'}"
        "\n\n**Source and licence:** supplied by the user, who is responsible for the right "
        "to use the data."
    )
    scenario = Scenario(
        name=name,
        title=title,
        public=encoded_public.reset_index(drop=True),
        private=encoded_private.reset_index(drop=True),
        target=target_column,
        description=description,
        **encoder.scenario_fields(),
        raw_public=raw_public,
        raw_private=raw_private,
    )
    table = _report_table(aligned_public, aligned_private, encoder, dropped, target_column)
    leaks = () if target_column is None else tuple(target_leaks(
        public, target, encoded_public[target_column].to_numpy()))  # public rows only
    report = UploadReport(table, tuple(notes), tuple(private_notes), private_warnings,
                          tuple(reading), leaks)
    return scenario, report


def _check_frames(private: Any, public: Any) -> None:
    """Refuse anything but two data frames (private first), or a frame with a column name
    given twice."""
    for part, frame in (("private", private), ("public", public)):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(
                f"{part} must be a pandas DataFrame (as read_csv_upload returns), got "
                f"{type(frame).__name__}. The order is (private, public)."
            )
        if not frame.columns.is_unique:
            twice = frame.columns[frame.columns.duplicated()].unique()
            raise DataError(
                f"The {part} file has duplicate column names: {_listing(twice)}. Rename the "
                "columns so that every name is unique."
            )


def _check_public_finite(public: pd.DataFrame) -> None:
    """Refuse a numeric public column with infinite values: the encoding scales by the public
    range, which must be finite."""
    for col in public.columns:
        if pd.api.types.is_numeric_dtype(public[col]) and not pd.api.types.is_bool_dtype(
            public[col]
        ):
            values = public[col].to_numpy(dtype=float, na_value=np.nan)
            if np.isinf(values).any():
                raise DataError(
                    f"Column {col!r} of the public file holds infinite values, so it has no "
                    "finite range to scale by. Replace them by finite values or empty those "
                    "cells, and upload again."
                )


def _check_public_values(public: pd.DataFrame) -> None:
    """Refuse a public file with no value at all, or with a text value too long to name an
    item of the encoding (the public file's values name the one-hot items)."""
    if not public.notna().to_numpy().any():
        raise DataError(
            f"Every value of the public file is missing ({_rows(len(public))} of blank cells or "
            "markers such as NA, in the columns used), so there is nothing to read the encoding "
            "from (columns, categories, ranges). Upload a public file with values, or use "
            "columns that have some."
        )
    for col in public.columns:
        if pd.api.types.is_numeric_dtype(public[col]):
            continue
        lengths = public[col].dropna().astype(str).str.len()
        if len(lengths) and lengths.max() > MAX_NAME_CHARS:
            value = public[col].dropna().astype(str).iloc[int(np.argmax(lengths.to_numpy()))]
            raise DataError(
                f"Column {col!r} of the public file holds the value {quote_text(value)}: its "
                "values name the one-hot items of the encoding, "
                f"which label tables and charts, so they may have at most {MAX_NAME_CHARS:,} "
                "characters. Leave the column out, or shorten those values."
            )


def _read_into_public_types(
    private: pd.DataFrame, public: pd.DataFrame
) -> tuple[pd.DataFrame, dict[str, int]]:
    """Private cells in the public columns' types, cell by cell; and, per numeric column, how
    many present private cells are not numbers (now missing: a non-private count)."""
    out, not_numbers = {}, {}
    for col in public.columns:
        values = private[col]
        if pd.api.types.is_numeric_dtype(public[col]):
            numbers = parse_numbers(values)
            count = int((numbers.isna() & values.notna()).sum())
            if count:
                not_numbers[col] = count
            out[col] = numbers
        else:
            if pd.api.types.infer_dtype(values, skipna=True) not in ("string", "empty"):
                values = values.map(_as_text)  # numbers (a frame not read as text): as text
            text = isinstance(public[col].dtype, pd.StringDtype)  # as read_csv_upload gives
            out[col] = values.astype(public[col].dtype if text else object)
    return pd.DataFrame(out, index=private.index, columns=public.columns), not_numbers


def _as_text(value: Any) -> Any:
    """A private cell for a text column: text as written, a number as it is usually written
    (``5``, ``2.5``), a missing cell missing."""
    if isinstance(value, str) or not pd.api.types.is_scalar(value) or pd.isna(value):
        return value
    return plain_value(value)


def _check_not_derived(private: pd.DataFrame, public: pd.DataFrame) -> tuple[str, ...]:
    """Refuse a public file with the same rows as the private one; warn of a large overlap.

    Both frames hold the shared columns in the public types. Returns the owner's warnings.
    """
    codes = _row_codes(public, private)
    keys = pd.util.hash_pandas_object(codes, index=False).to_numpy()
    public_keys, private_keys = keys[: len(public)], keys[len(public) :]
    if len(public) == len(private):
        code_e, code_d = codes.to_numpy()[: len(public)], codes.to_numpy()[len(public) :]
        sort_e, sort_d = (code[np.lexsort(code.T[::-1])] for code in (code_e, code_d))
        if np.array_equal(sort_e, sort_d):  # the same multiset of rows, exactly
            raise DataError(
                f"The public and private files hold the same {len(public):,} rows (in the "
                f"{public.shape[1]} column(s) they share): the public set E would be the private "
                "data itself, so every release on this pair would publish the private records, "
                "and the privacy guarantee assumes that E was obtained without looking at D. "
                "Upload a public file collected independently of the private one (another "
                "sample, an older survey), or choose a built-in scenario."
            )
    in_private = np.isin(public_keys, private_keys)
    found, shared = int(in_private.sum()), float(in_private.mean())
    chance = _chance_overlap(public_keys, len(private_keys))
    if shared - chance < OVERLAP_WARNING:
        return ()
    by_chance = (
        f" (independent samples would share about {chance:.0%}, judging by how often rows "
        "repeat within the public file)"
        if chance >= 0.005
        else ""
    )
    return (
        f"{_NON_PRIVATE}{found:,} of the {len(public_keys):,} public rows ({shared:.0%}) "
        f"appear exactly, in every shared column, in the private file{by_chance}. The public "
        "set must not be derived from the private one (a copy, sample or extract of it, or a "
        "file that mixes in private rows): every release assumes that E was obtained without "
        "looking at D, and releases on this pair would leak those rows (the importance and "
        "subset pages publish the public rows with their weights). Upload a public file "
        "collected independently of the private one before you publish.",
    )


def _row_codes(public: pd.DataFrame, private: pd.DataFrame) -> pd.DataFrame:
    """The rows of E, then of D, as integer codes: equal values (numbers as floats, text as
    written) get equal codes in a column, missing values -1."""
    codes = {}
    for col in public.columns:
        if pd.api.types.is_numeric_dtype(public[col]):
            kind, missing, zero = float, np.nan, 0.0  # + 0.0: -0.0 and 0.0 alike
        else:
            kind, missing, zero = object, None, None
        parts = [frame[col].to_numpy(dtype=kind, na_value=missing) for frame in (public, private)]
        both = np.concatenate(parts) if zero is None else np.concatenate(parts) + zero
        codes[col] = pd.factorize(both, use_na_sentinel=True)[0]
    return pd.DataFrame(codes, columns=public.columns)


def _chance_overlap(public_keys: np.ndarray, n_private: int) -> float:
    """Share of public rows that an independent private sample of ``n_private`` rows would
    contain by chance, estimated from the public file alone.

    A public row that repeats elsewhere in E is one that the other ``n_E - 1`` rows, a sample
    of the same population, happen to contain (a leave-one-out estimate, in the spirit of
    Good-Turing coverage). So ``r``, the share of public rows that repeat within E, estimates
    the chance for ``n_E - 1`` draws; for ``n_D`` draws it is about
    ``1 - (1 - r) ** (n_D / (n_E - 1))``. Continuous columns give ``r`` close to 0; a few
    categorical columns, close to 1.
    """
    repeats = float(pd.Series(public_keys).duplicated(keep=False).mean())
    if repeats >= 1.0:
        return 1.0
    return 1.0 - (1.0 - repeats) ** (n_private / max(len(public_keys) - 1, 1))


def _drop_incomplete(public: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    complete = public.dropna()
    if complete.empty:
        raise DataError(
            "Every row of the public file has a missing value, so dropping them leaves "
            "nothing. Impute them instead (public_missing='impute'), fill in the empty cells, "
            "or delete the columns with most gaps."
        )
    if len(complete) < len(public):
        notes.append(
            f"Dropped {len(public) - len(complete):,} of {len(public):,} public rows with "
            "missing values."
        )
    return complete


def _useless_columns(public: pd.DataFrame, target: str | None, notes: list[str]) -> dict[str, str]:
    """Columns to drop, decided by the public file only (empty or constant) -> the reason."""
    dropped: dict[str, str] = {}
    for col in public.columns:
        values = public[col].dropna()
        if col == target:
            if values.nunique() < 2:
                what = (
                    "no values" if values.empty
                    else f"the single class {_show(values.iloc[0])}"
                )  # fmt: skip
                raise DataError(
                    f"Target {target!r} has {what} in the public file; the target's classes "
                    "are taken from the public file, so it needs at least two. Choose another "
                    "target, or upload a public file with at least two of its classes."
                )
        elif values.empty:
            dropped[col] = "dropped: empty in the public file"
        elif values.nunique() == 1:
            dropped[col] = "dropped: constant in the public file"
            notes.append(
                f"Dropped constant column {col!r}: every public row has the value "
                f"{_show(values.iloc[0])}, so it carries no information and has no public "
                "range to scale by."
            )
    empty = [col for col, why in dropped.items() if "empty" in why]
    if empty:
        notes.append(
            f"Dropped {_listing(empty)}: no values at all in the public file (the encoding is "
            "read from the public file only)."
        )
    if not [col for col in public.columns if col not in dropped and col != target]:
        raise DataError(
            "No usable feature column is left (every shared column is left out, empty or "
            "constant in the public file, or is the target). Use a column left out, or upload "
            "files that share at least one informative column."
        )
    return dropped


def _chosen_columns(what: str, columns: Sequence[str], shared: pd.Index) -> list[str]:
    """The columns a person chose (``exclude`` or ``categorical``), checked against the shared
    columns."""
    if isinstance(columns, str):
        raise TypeError(f"The columns {what} must be a list of column names, not the string "
                        f"{columns!r}; write [{columns!r}].")
    chosen = list(dict.fromkeys(columns))
    unknown = [col for col in chosen if col not in shared]
    if unknown:
        raise DataError(f"The columns {what} must be columns of both files: {_listing(unknown)} "
                        f"is not; choose among {_listing(shared)}.")
    return chosen


def _target_levels(public: pd.Series, positive: Any) -> tuple[Any, list[Any] | None]:
    """Positive class and the item levels of the target (None for a 0/1 column): public only."""
    values, default = target_classes(public)
    if values is None:
        if positive is not None and not _same(positive, 1):
            raise DataError(
                f"Target {public.name!r} is a 0/1 column; its positive class is 1, not "
                f"{_show(positive)}."
            )
        return 1, None
    if positive is None:
        positive = default
    elif not any(_same(positive, value) for value in values):
        raise DataError(
            f"{_show(positive)} is not a class of target {public.name!r} in the public file; "
            f"choose one of {', '.join(map(_show, values))}."
        )
    else:
        positive = next(value for value in values if _same(positive, value))
    return positive, values


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _conform(
    frame: pd.DataFrame, numeric: list[str], medians: dict[str, float], binary: list[str]
) -> pd.DataFrame:
    """Map a frame onto the public encoding's types by the fixed rules (module notes)."""
    out = {}
    for col in frame.columns:
        values = frame[col]
        if col in numeric:
            values = pd.to_numeric(values, errors="coerce").astype(float)
            values = values.fillna(medians[col])  # +-inf stay: the encoder clips them
        elif col in binary:  # the 0/1 target: 1 is positive, anything else (or missing) is 0
            number = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float, na_value=0.0)
            values = pd.Series((number == 1.0).astype(float), index=frame.index)
        out[col] = values
    return pd.DataFrame(out, index=frame.index)


def _impute_raw(frame: pd.DataFrame, numeric: list[str], medians: dict[str, float]) -> pd.DataFrame:
    """Raw rows with missing numbers imputed by the public median (text stays as written)."""
    frame = frame.reset_index(drop=True).copy()
    for col in numeric:
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype(float).fillna(medians[col])
    return frame


def _public_imputation_notes(
    public: pd.DataFrame, numeric: list[str], medians: dict[str, float], target: str | None
) -> list[str]:
    notes = []
    for col in public.columns:
        count = int(public[col].isna().sum())
        if not count:
            continue
        if col in numeric:
            rule = f"imputed by the public median {_show(medians[col])}"
        elif col == target:
            rule = "encoded as not the positive class (0)"
        else:
            rule = "encoded as all-zero items"
        notes.append(f"Column {col!r}: {count:,} missing public value(s) {rule}.")
    return notes


def _private_notes(
    private: pd.DataFrame,
    public: pd.DataFrame,
    numeric: list[str],
    medians: dict[str, float],
    target: str | None,
    positive: Any,
    levels: list[Any] | None,
    not_numbers: dict[str, int],
) -> list[str]:
    """How many private values the fixed rules changed: for the data owner, non-private."""
    notes = []
    for col in private.columns:
        values = private[col]
        missing = int(values.isna().sum())
        if col in numeric:
            number = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
            low, high = public[col].min(), public[col].max()
            infinite = int(np.isinf(number).sum())
            outside = int(((number < low) | (number > high)).sum()) - infinite
            text = not_numbers.get(col, 0)
            missing -= text
            if text:
                notes.append(
                    f"{_NON_PRIVATE}column {col!r}: {text:,} private value(s) that are not "
                    "numbers (the column is numeric in the public file) treated as missing and "
                    f"imputed by the public median {_show(medians[col])}."
                )
            if missing:
                notes.append(
                    f"{_NON_PRIVATE}column {col!r}: {missing:,} missing private value(s) "
                    f"imputed by the public median {_show(medians[col])}."
                )
            if outside:
                notes.append(
                    f"{_NON_PRIVATE}column {col!r}: {outside:,} private value(s) outside the "
                    f"public range [{_show(low)}, {_show(high)}] clipped to it."
                )
            if infinite:
                notes.append(
                    f"{_NON_PRIVATE}column {col!r}: {infinite:,} private value(s) {_TOO_LARGE}, "
                    f"read as infinite and clipped to the public range [{_show(low)}, "
                    f"{_show(high)}]."
                )
            continue
        known = public[col].dropna().unique() if levels is None or col != target else levels
        unseen = int((~values.isin(known) & values.notna()).sum())
        if col == target:
            if missing or unseen:
                notes.append(
                    f"{_NON_PRIVATE}target {col!r}: {missing + unseen:,} private row(s) with a "
                    "missing value or a class that the public file does not have (or text "
                    f"where its classes are numbers), encoded as not the positive class "
                    f"{_show(positive)} (0)."
                )
        elif missing or unseen:
            notes.append(
                f"{_NON_PRIVATE}column {col!r}: {missing + unseen:,} private row(s) missing or "
                "with a value that the public file does not contain, encoded as all-zero items."
            )
    return notes


def _private_reading(private: pd.DataFrame, numeric: list[str], empty_rows: int) -> list[str]:
    """What was read from the private file when the file itself looks wrong (rows with no
    value, values too large to be numbers): for the data owner, non-private."""
    notes = []
    n_rows = len(private)
    if empty_rows == n_rows:
        notes.append(
            f"{_NON_PRIVATE}the private file was read as {_rows(n_rows)}, every value missing "
            "(blank cells, or markers such as NA). Each row is still a record (N_D = "
            f"{n_rows:,}), its values filled in by the fixed public rules (the public median, "
            "all-zero items). Check that this is the file you meant to upload."
        )
    elif empty_rows:
        notes.append(
            f"{_NON_PRIVATE}{empty_rows:,} of the private file's {_rows(n_rows)} were read with "
            "every value missing (blank cells, or markers such as NA): each is still a record, "
            "its values filled in by the fixed public rules."
        )
    infinite = {col: int(np.isinf(private[col].to_numpy(dtype=float, na_value=np.nan)).sum())
                for col in numeric}
    columns = [col for col, count in infinite.items() if count]
    if columns:
        total = sum(infinite.values())
        notes.append(
            f"{_NON_PRIVATE}{total:,} private value{'s' if total != 1 else ''} {_TOO_LARGE}, "
            f"in {_listing(columns)}: read as infinite and clipped to the column's public range, "
            "like any value beyond it."
        )
    return notes


def _rows(n: int) -> str:
    return f"{n:,} row{'s' if n != 1 else ''}"


def _show(value: Any) -> str:
    """A cell value as a user wrote it: quoted text (cut short, :func:`quote_text`), plain
    numbers (never ``np.float64(0.0)``)."""
    if isinstance(value, str):
        return quote_text(value)
    return plain_value(value, "{:g}".format)


def _check_width(encoder: TabularEncoder, max_features: int) -> None:
    """Refuse an encoding wider than ``max_features`` columns, naming its widest columns."""
    width = len(encoder.feature_names_out_)
    if width <= max_features:
        return
    sizes = sorted(encoder.groups_.items(), key=lambda item: -len(item[1]))[:3]
    biggest = ", ".join(f"{col!r} ({len(items)} columns)" for col, items in sizes)
    raise DataError(
        f"The encoded data would have {width} columns, over the limit of {max_features} "
        f"encoded features. The largest: {biggest}. Leave out ID-like or date columns or "
        "columns with many distinct text values, or merge rare categories."
    )


def _report_table(
    public: pd.DataFrame,
    private: pd.DataFrame,
    encoder: TabularEncoder,
    dropped: dict[str, str],
    target_column: str | None,
) -> pd.DataFrame:
    table = infer_column_types(public).set_index("column")
    table = table.rename(columns={"missing": "missing (public)"})
    table["missing in D (non-private)"] = private.isna().sum()
    encoded = {}
    for col, kind in encoder.kinds_.items():
        if kind == "scaled":
            low, high = encoder.bounds_[col]
            encoded[col] = f"min-max by public range [{_show(low)}, {_show(high)}]"
        elif kind == "binary":
            encoded[col] = "0/1 as is"
        else:
            encoded[col] = f"one-hot, {len(encoder.groups_[col])} items"
        if target_column in encoder.groups_[col]:
            encoded[col] += f"; target {target_column!r}"
    table["encoding"] = pd.Series(encoded | dropped)  # dropped columns say why
    return table.reset_index()


def _listing(columns: Any, shown: int = 8) -> str:
    names = [quote_text(col) for col in columns]
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
