"""Uploaded CSV files: read, check, align, split and encode them into a :class:`Scenario`.

Every problem raises :class:`~dpcore.DataError` with a message that says what is wrong and what to
do, so a page only shows the message. Things that are handled rather than refused (dropped
columns, dropped rows, truncated values) are listed in the :class:`UploadReport`.

``read_csv_upload(data, name, *, max_bytes=MAX_UPLOAD_BYTES) -> DataFrame``
    Parse the bytes of one uploaded file: UTF-8 CSV with commas and one header row. Numeric
    columns become numbers; the cells ``""``, ``"?"``, ``"NA"``, ``"N/A"``, ``"NaN"``,
    ``"null"``, ``"None"`` and ``"#N/A"`` are missing values. No other exception escapes it.
``infer_column_types(frame) -> DataFrame``
    One row per column: type (numeric, binary, categorical, constant or empty), number of
    distinct values, missing cells and an example value, for display.
``align_columns(public, private) -> (public, private, notes)``
    Keep the columns both files share (Ji & Elkan Sect. 7), in the public file's order.
``split_by_value(frame, column, value, *, p=0.9, p_other=None, drop=True, rng=None)``
    One file -> (public, private): a fraction ``p`` of the rows with ``column == value`` and
    ``p_other`` (default ``1 - p``) of the others go private, like Ji & Elkan's split by sex.
``split_random(frame, private_fraction=0.5, *, rng=None)``
    One file -> (public, private) at random.
``scenario_from_uploads(public, private, *, target=None, positive=None, drop_missing=False,
max_features=MAX_FEATURES, name="upload", title="Uploaded data") -> (Scenario, UploadReport)``
    Encode as every mechanism expects: one-hot items for text columns with the levels of the
    *public* file, min-max scaling by the *public* range with truncation for numeric columns
    (no bound is read off the private file). The target becomes one 0/1 column: a 0/1 column is
    kept as it is; otherwise its classes become items and the target is ``"column=positive"``
    (``positive`` defaults to the rarest class in the public file; with more than two classes
    this is one class against the rest). The private file must hold both target classes.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dpcore.encoding import Scenario, TabularEncoder, biased_split, item_name
from dpcore.validation import DataError, check_random_state, check_scalar

__all__ = [
    "MAX_CLASSES",
    "MAX_FEATURES",
    "MAX_UPLOAD_BYTES",
    "NA_VALUES",
    "UploadReport",
    "align_columns",
    "infer_column_types",
    "read_csv_upload",
    "scenario_from_uploads",
    "split_by_value",
    "split_random",
]

#: Largest file that :func:`read_csv_upload` accepts (20 MiB, Streamlit's default is 200 MB).
MAX_UPLOAD_BYTES = 20 * 2**20
#: Most encoded columns an upload may give; the pages fit models in that dimension.
MAX_FEATURES = 300
#: Most classes a target may have (beyond that it is probably a continuous column).
MAX_CLASSES = 20
#: Cells read as missing values.
NA_VALUES = frozenset({"", "?", "NA", "N/A", "n/a", "NaN", "nan", "null", "NULL", "None", "#N/A"})
# Share of numeric cells from which a column with a few text cells counts as a broken numeric one.
_NUMERIC_SHARE = 0.8
_SAVE_AS_CSV = "Save the table as CSV (comma-separated, UTF-8) and upload that file."
# A number cell: decimal digits with an optional point, sign and exponent (not inf, not 0x1F).
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_OTHER_SEPARATORS = {";": "semicolons (;)", "\t": "tabs", "|": "vertical bars (|)"}
_SIGNATURES = {
    b"PK\x03\x04": "a ZIP archive or an Excel workbook (.xlsx)",
    b"\xd0\xcf\x11\xe0": "an old Excel workbook (.xls)",
    b"\x1f\x8b": "a gzip-compressed file",
    b"%PDF": "a PDF document",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
}


@dataclass(frozen=True)
class UploadReport:
    """What :func:`scenario_from_uploads` did with the uploaded data.

    Attributes
    ----------
    columns : DataFrame
        One row per shared column: its type in the public file, distinct values, missing
        cells in each file and how it was encoded (or why it was dropped).
    notes : tuple of str
        Every column or row dropped and every value changed, one sentence each.
    """

    columns: pd.DataFrame
    notes: tuple[str, ...]


def read_csv_upload(data: bytes, name: str, *, max_bytes: int = MAX_UPLOAD_BYTES) -> pd.DataFrame:
    """Read the bytes of an uploaded CSV file into a DataFrame.

    Parameters
    ----------
    data : bytes
        Content of the file.
    name : str
        File name, used in messages.
    max_bytes : int, default=MAX_UPLOAD_BYTES
        Upload limit.

    Returns
    -------
    DataFrame
        One column per header name; numeric columns as numbers, the others as text, missing
        cells (see :data:`NA_VALUES`) as NaN.

    Raises
    ------
    DataError
        Whatever the bytes, with a message that says what is wrong and what to do: too large,
        empty, binary, not UTF-8, not comma-separated, malformed quotes or rows, blank or
        duplicate headers, no header row, no data rows, text in a numeric column.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"data must be bytes, got {type(data).__name__}.")
    try:
        return _read_csv(bytes(data), name, max_bytes)
    except DataError:
        raise
    except Exception as exc:  # the contract: only DataError escapes, whatever the bytes
        raise DataError(
            f"{name!r} could not be read as a CSV table ({type(exc).__name__}: {exc}). "
            f"{_SAVE_AS_CSV}"
        ) from exc


def _read_csv(data: bytes, name: str, max_bytes: int) -> pd.DataFrame:
    if len(data) > max_bytes:
        raise DataError(
            f"{name!r} is {_size(len(data))}, over the upload limit of {_size(max_bytes)}. "
            "Upload a smaller file: a random sample of the rows, or fewer columns."
        )
    text = _decode(data, name)
    if not text.strip():
        raise DataError(
            f"{name!r} is empty. Upload a CSV file with a header row and at least one data row."
        )
    header, rows, lines = _parse_rows(text, name)
    _check_header(header, name)
    if not rows:
        raise DataError(
            f"{name!r} has a header row but no data rows. Add the records below the header."
        )
    for row, line in zip(rows, lines, strict=True):
        if len(row) != len(header):
            raise DataError(
                f"Line {line} of {name!r} has {len(row)} values but the header has "
                f"{len(header)} columns. Put quotes around values that contain commas, or fix "
                "that line."
            )
    frame = pd.DataFrame(rows, columns=header, dtype="str")
    for col in frame.columns:
        cells = frame[col].str.strip()
        frame[col] = _to_numeric(cells.where(~cells.isin(NA_VALUES)), col, name, lines)
    return frame


def _decode(data: bytes, name: str) -> str:
    for magic, what in _SIGNATURES.items():
        if data.startswith(magic):
            raise DataError(f"{name!r} looks like {what}, not a CSV file. {_SAVE_AS_CSV}")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DataError(
            f"{name!r} is encoded as UTF-16, not UTF-8. Re-save it as 'CSV UTF-8' (Excel: "
            "Save As > CSV UTF-8; LibreOffice: character set 'Unicode (UTF-8)')."
        )
    if b"\x00" in data:
        raise DataError(
            f"{name!r} contains binary data (NUL bytes), so it is not a CSV text file. "
            f"{_SAVE_AS_CSV}"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataError(
            f"{name!r} is not UTF-8 text: byte 0x{data[exc.start]:02X} on line {line} cannot be "
            "decoded (the file is probably in a legacy encoding such as Latin-1 or "
            "Windows-1252). Re-save it as 'CSV UTF-8' (Excel: Save As > CSV UTF-8; "
            "LibreOffice: character set 'Unicode (UTF-8)')."
        ) from None
    sample = text[:65536]
    controls = sum((ch < " " and ch not in "\t\r\n") or ch == "\x7f" for ch in sample)
    if controls > 0.005 * len(sample):
        raise DataError(
            f"{name!r} contains control characters, so it is not a CSV text file. {_SAVE_AS_CSV}"
        )
    return text


def _parse_rows(text: str, name: str) -> tuple[list[str], list[list[str]], list[int]]:
    """Header, non-blank data rows and the file line on which each data row ends."""
    reader = csv.reader(io.StringIO(text, newline=""), skipinitialspace=True, strict=True)
    rows, lines = [], []
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                rows.append(row)
                lines.append(reader.line_num)
    except csv.Error as exc:
        if "end of data" in str(exc):
            start = (lines[-1] if lines else 0) + 1
            raise DataError(
                f"{name!r} ends inside a quoted value that starts on line {start} or later: a "
                "double quote is never closed. Close the quote, or remove the stray quote "
                "character."
            ) from None
        raise DataError(
            f"Line {reader.line_num} of {name!r} is not valid CSV ({exc}). Check the quotes on "
            "that line: a value with commas or line breaks must be enclosed in double quotes."
        ) from None
    if not rows:
        raise DataError(
            f"{name!r} holds no values, only separators or blank cells. Upload a CSV file with "
            "a header row and at least one data row."
        )
    header = [cell.strip() for cell in rows[0]]
    return header, rows[1:], lines[1:]


def _check_header(header: list[str], name: str) -> None:
    found = [sep for sep in _OTHER_SEPARATORS if sep in header[0]] if len(header) == 1 else []
    if found:
        raise DataError(
            f"{name!r} separates its values with {_OTHER_SEPARATORS[found[0]]}, not commas: its "
            f"header reads as one column ({header[0][:60]!r}). Re-save it as CSV with commas as "
            "the separator (and a point as the decimal mark)."
        )
    blank = [str(i + 1) for i, col in enumerate(header) if not col]
    if blank:
        which = f"Column {blank[0]} has" if len(blank) == 1 else f"Columns {', '.join(blank)} have"
        raise DataError(
            f"{which} no name in the header row of {name!r} (a blank header cell). Give every "
            "column a name in the first row, or delete empty columns."
        )
    seen: dict[str, list[int]] = {}
    for i, col in enumerate(header):
        seen.setdefault(col, []).append(i + 1)
    duplicates = {col: pos for col, pos in seen.items() if len(pos) > 1}
    if duplicates:
        listed = "; ".join(
            f"{col!r} (columns {', '.join(map(str, pos))})" for col, pos in duplicates.items()
        )
        raise DataError(
            f"{name!r} has duplicate column names: {listed}. Rename the columns so that every "
            "name is unique."
        )
    numeric = pd.to_numeric(pd.Series(header, dtype="str"), errors="coerce").notna()
    if numeric.mean() > 0.5:
        raise DataError(
            f"The first row of {name!r} holds numbers ({', '.join(header[:3])}, ...), not column "
            "names: the file seems to have no header row. Add a first row with a name for "
            "every column."
        )


def _to_numeric(cells: pd.Series, col: str, name: str, lines: list[int]) -> pd.Series:
    """The column as numbers if every present cell is a finite number, else as text."""
    present = cells.notna()
    if not present.any():
        return cells
    bad = present & ~cells.str.fullmatch(_NUMBER, na=False)
    if not bad.any():
        numbers = pd.to_numeric(cells)
        bad = np.isinf(numbers.astype(float))  # such as 1e999
        if not bad.any():
            return numbers
    if (present & ~bad).sum() >= _NUMERIC_SHARE * present.sum():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError(
            f"Column {col!r} of {name!r} holds numbers except for {int(bad.sum())} cell(s), "
            f"e.g. {cells.iloc[row]!r} on line {lines[row]}. Correct those cells, or empty them "
            "to mark missing values, and upload again."
        )
    return cells


def infer_column_types(frame: pd.DataFrame) -> pd.DataFrame:
    """Type of every column, for display.

    Parameters
    ----------
    frame : DataFrame
        As returned by :func:`read_csv_upload`.

    Returns
    -------
    DataFrame
        Columns ``column``, ``type`` (``"numeric"``, ``"binary"`` (two values),
        ``"categorical"``, ``"constant"`` (one value) or ``"empty"``), ``distinct``,
        ``missing`` and ``example``.
    """
    rows = []
    for col in frame.columns:
        values = frame[col].dropna()
        rows.append(
            {
                "column": col,
                "type": _kind(frame[col]),
                "distinct": int(values.nunique()),
                "missing": int(frame[col].isna().sum()),
                "example": str(values.iloc[0]) if len(values) else "",
            }
        )
    return pd.DataFrame(rows, columns=["column", "type", "distinct", "missing", "example"])


def _kind(values: pd.Series) -> str:
    distinct = values.nunique()
    if distinct == 0:
        return "empty"
    if distinct == 1:
        return "constant"
    if distinct == 2:
        return "binary"
    return "numeric" if pd.api.types.is_numeric_dtype(values) else "categorical"


def align_columns(
    public: pd.DataFrame, private: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Keep the columns that both files share, as Ji & Elkan Sect. 7 prescribe.

    Parameters
    ----------
    public, private : DataFrame

    Returns
    -------
    public, private : DataFrame
        The shared columns, in the public file's order.
    notes : list of str
        The dropped columns, if any.

    Raises
    ------
    DataError
        If the files share no column, or a shared column is numeric in one file and text in
        the other.
    """
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
    mismatched = []
    for col in shared:
        pub, priv = public[col].dropna(), private[col].dropna()
        if len(pub) and len(priv):
            pub_num, priv_num = (pd.api.types.is_numeric_dtype(s) for s in (pub, priv))
            if pub_num != priv_num:
                num_side, text_side, text = (
                    ("public", "private", priv) if pub_num else ("private", "public", pub)
                )
                example = text[pd.to_numeric(text, errors="coerce").isna()].iloc[0]
                mismatched.append(
                    f"{col!r} is numeric in the {num_side} file but text in the {text_side} "
                    f"file (e.g. {example!r})"
                )
    if mismatched:
        raise DataError(
            f"Column types differ between the files: {'; '.join(mismatched)}. Make each column "
            "the same type in both files, or delete it from one of them."
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
    return public.loc[:, shared], private.loc[:, shared], notes


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
    """Split one file into public and private parts by a biased rule, like Ji & Elkan Sect. 5.

    A fraction ``p`` of the rows with ``column == value`` and a fraction ``p_other`` of the
    other rows go to the private part (exact fractions, drawn by a seeded permutation); the
    rest is public. Adult's split is ``split_by_value(adult, "sex", "Male", p=0.9)``.

    Parameters
    ----------
    frame : DataFrame
    column : str
    value : object
        A value of ``column``.
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
    public, private : DataFrame
    """
    if column not in frame.columns:
        raise DataError(
            f"There is no column {column!r} to split by; choose one of {_listing(frame.columns)}."
        )
    p = check_scalar(p, "p", min_val=0.0, max_val=1.0, include_min=True)
    p_other = (
        1.0 - p
        if p_other is None
        else check_scalar(p_other, "p_other", min_val=0.0, max_val=1.0, include_min=True)
    )
    in_group = (frame[column] == value).to_numpy(dtype=bool, na_value=False)
    if not in_group.any():
        values = frame[column].dropna().unique()[:10]
        raise DataError(
            f"No row has {column} == {value!r}. Choose one of its values, e.g. "
            f"{', '.join(map(repr, values))}."
        )
    private = biased_split(in_group, p, p_other, check_random_state(rng))
    if drop:
        frame = frame.drop(columns=column)
    return _parts(frame, private)


def split_random(
    frame: pd.DataFrame, private_fraction: float = 0.5, *, rng: Any = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split one file into public and private parts at random (an unbiased control).

    Parameters
    ----------
    frame : DataFrame
    private_fraction : float, default=0.5
        Exact fraction of the rows (rounded) that goes private.
    rng : None, int or numpy.random.Generator, default=None

    Returns
    -------
    public, private : DataFrame
    """
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
        frame.loc[~private].reset_index(drop=True),
        frame.loc[private].reset_index(drop=True),
    )


def scenario_from_uploads(
    public: pd.DataFrame,
    private: pd.DataFrame,
    *,
    target: str | None = None,
    positive: Any = None,
    drop_missing: bool = False,
    max_features: int = MAX_FEATURES,
    name: str = "upload",
    title: str = "Uploaded data",
) -> tuple[Scenario, UploadReport]:
    """Encode an uploaded public and private file into a :class:`Scenario`.

    Parameters
    ----------
    public, private : DataFrame
        As returned by :func:`read_csv_upload` (or :func:`split_by_value`).
    target : str, default=None
        Column to predict; it must take both classes in the private file.
    positive : object, default=None
        Class of ``target`` encoded as 1. None means 1 for a 0/1 column and otherwise the
        rarest class in the public file (ties: the last in sorted order).
    drop_missing : bool, default=False
        Drop rows with missing values; otherwise missing values raise :class:`DataError`.
    max_features : int, default=MAX_FEATURES
        Most encoded columns allowed.
    name, title : str
        Registry-like key and human title of the scenario.

    Returns
    -------
    scenario : Scenario
    report : UploadReport

    Raises
    ------
    DataError
        No shared column, mismatched column types, missing values (without ``drop_missing``),
        no rows or no feature left, unknown or single-class target, too many encoded columns.
    """
    public, private, notes = align_columns(public, private)
    if target is not None and target not in public.columns:
        raise DataError(
            f"Target {target!r} is not a column of both files; choose one of "
            f"{_listing(public.columns)}."
        )
    dropped = _useless_columns(public, private, target, notes)
    usable = [col for col in public.columns if col not in dropped]
    kept_public, kept_private = _handle_missing(
        public.loc[:, usable], private.loc[:, usable], drop_missing, notes
    )
    categories, binary, target_column = {}, [], None
    if target is not None:
        positive, levels = _target_levels(kept_public[target], kept_private[target], positive)
        if levels is None:
            binary, target_column = [target], target
        else:
            categories[target], target_column = levels, item_name(target, positive)
    encoder = TabularEncoder(categories=categories, binary=binary).fit(kept_public)
    _check_width(encoder, max_features)
    notes.extend(_change_notes(encoder, kept_public, kept_private, target))
    encoded_public, encoded_private = (
        encoder.transform(kept_public),
        encoder.transform(kept_private),
    )
    if target_column is not None:
        _check_two_classes(encoded_private[target_column], target, positive, kept_private[target])
        if len(categories.get(target, ())) > 2:
            notes.append(
                f"Target {target!r} has {len(categories[target])} classes: {positive!r} is "
                "encoded as 1 against all the others."
            )
    description = (
        f"**Uploaded data**: a public file E ({len(kept_public):,} rows) and a private file D "
        f"({len(kept_private):,} rows) sharing {len(usable)} usable columns.\n\n"
        "**Encoding:** text columns as one-hot items with the levels of the public file; "
        "numeric columns min-max scaled by their range in the public file, private values "
        f"truncated to it. {f'Target: *{target_column}*.' if target_column else 'No target.'}"
        "\n\n**Source and licence:** supplied by the user, who is responsible for the right "
        "to use the data."
    )
    scenario = Scenario(
        name=name,
        title=title,
        public=encoded_public,
        private=encoded_private,
        target=target_column,
        description=description,
        groups=encoder.groups_,
        raw_public=kept_public.reset_index(drop=True),
        raw_private=kept_private.reset_index(drop=True),
        kinds=encoder.kinds_,
    )
    table = _report_table(public, private, encoder, dropped, target_column)
    return scenario, UploadReport(table, tuple(notes))


def _useless_columns(
    public: pd.DataFrame, private: pd.DataFrame, target: str | None, notes: list[str]
) -> dict[str, str]:
    """Columns to drop (empty in a file, or constant in the public file) -> the reason."""
    dropped: dict[str, str] = {}
    for col in public.columns:
        if public[col].isna().all() or private[col].isna().all():
            side = "public" if public[col].isna().all() else "private"
            dropped[col] = f"dropped: empty in the {side} file"
        elif col != target and public[col].nunique() == 1:
            dropped[col] = "dropped: constant"
            notes.append(
                f"Dropped constant column {col!r}: every public row has the value "
                f"{public[col].dropna().iloc[0]!r}, so it carries no information and has no "
                "public range to scale by."
            )
    empty = [col for col, why in dropped.items() if why.startswith("dropped: empty")]
    if target in empty:
        raise DataError(f"Target {target!r} has no values in one of the files; choose another.")
    if empty:
        notes.append(f"Dropped {_listing(empty)}: no values at all in one of the files.")
    if not [col for col in public.columns if col not in dropped and col != target]:
        raise DataError(
            "No usable feature column is left (every shared column is empty, constant or the "
            "target). Upload files that share at least one informative column."
        )
    return dropped


def _handle_missing(
    public: pd.DataFrame, private: pd.DataFrame, drop_missing: bool, notes: list[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    counts = pd.DataFrame({"public": public.isna().sum(), "private": private.isna().sum()})
    counts = counts[counts.sum(axis=1) > 0]
    if counts.empty:
        return public, private
    if not drop_missing:
        listed = ", ".join(
            f"{col!r} ({row.public} public, {row.private} private rows)"
            for col, row in counts.iterrows()
        )
        raise DataError(
            f"Missing values in {len(counts)} column(s): {listed}. Drop the rows with "
            "missing values (the drop-rows option), or fill in the empty cells and upload "
            "again."
        )
    kept = []
    for part, frame in (("public", public), ("private", private)):
        complete = frame.dropna()
        if complete.empty:
            raise DataError(
                f"Every row of the {part} file has a missing value, so dropping them leaves "
                "nothing. Fill in the empty cells, or delete the columns with most gaps."
            )
        if len(complete) < len(frame):
            notes.append(
                f"Dropped {len(frame) - len(complete):,} of {len(frame):,} {part} rows with "
                "missing values."
            )
        kept.append(complete)
    return kept[0], kept[1]


def _target_levels(
    public: pd.Series, private: pd.Series, positive: Any
) -> tuple[Any, list[Any] | None]:
    """Positive class and the item levels of the target (None for a 0/1 column)."""
    both = pd.concat([public, private], ignore_index=True)
    values = sorted(both.drop_duplicates().tolist())
    if len(values) > MAX_CLASSES:
        raise DataError(
            f"Target {both.name!r} has {len(values)} distinct values, more than the "
            f"{MAX_CLASSES} classes a target may have. Choose a column with few classes (such "
            "as yes/no), or group its values into classes first."
        )
    if pd.api.types.is_numeric_dtype(both) and set(values) <= {0, 1}:
        if positive not in (None, 1):
            raise DataError(f"Target {both.name!r} is a 0/1 column; its positive class is 1.")
        return 1, None
    if positive is None:
        counts = public.value_counts()
        positive = min(reversed(values), key=lambda value: counts.get(value, 0))
    elif positive not in values:
        raise DataError(
            f"{positive!r} is not a class of target {both.name!r}; choose one of "
            f"{', '.join(map(repr, values))}."
        )
    return positive, values


def _check_two_classes(encoded: pd.Series, target: str, positive: Any, raw: pd.Series) -> None:
    if encoded.nunique() < 2:
        if raw.nunique() == 1:
            what = f"every private row has {target} = {_show(raw.iloc[0])}"
        else:
            what = f"no private row has {target} = {_show(positive)}"
        raise DataError(
            f"Target {target!r} has a single class in the private file ({what}); a classifier "
            "needs both classes. Choose another target (or positive class), or upload a "
            "private file with both classes."
        )


def _show(value: Any) -> str:
    """A cell value as a user wrote it: quoted text, plain numbers (never ``np.int64(1)``)."""
    return repr(value) if isinstance(value, str) else str(value)


def _check_width(encoder: TabularEncoder, max_features: int) -> None:
    width = len(encoder.feature_names_out_)
    if width <= max_features:
        return
    sizes = sorted(encoder.groups_.items(), key=lambda item: -len(item[1]))[:3]
    biggest = ", ".join(f"{col!r} ({len(items)} columns)" for col, items in sizes)
    raise DataError(
        f"The encoded data would have {width} columns, over the limit of {max_features} "
        f"encoded features. The largest: {biggest}. Delete ID-like columns or columns with "
        "many distinct text values, or merge rare categories, and upload again."
    )


def _change_notes(
    encoder: TabularEncoder, public: pd.DataFrame, private: pd.DataFrame, target: str | None
) -> list[str]:
    """Private values that the public encoding cannot represent exactly."""
    notes = []
    for col, kind in encoder.kinds_.items():
        if kind == "scaled":
            low, high = encoder.bounds_[col]
            outside = int(((private[col] < low) | (private[col] > high)).sum())
            if outside:
                notes.append(
                    f"Column {col!r}: {outside:,} private value(s) outside the public range "
                    f"[{low:g}, {high:g}] were truncated to it."
                )
        elif kind == "onehot" and col != target:
            unseen = int((~private[col].isin(encoder.categories_[col])).sum())
            if unseen:
                notes.append(
                    f"Column {col!r}: {unseen:,} private row(s) have a value that the public "
                    "file does not contain; they are encoded as all-zero items."
                )
    return notes


def _report_table(
    public: pd.DataFrame,
    private: pd.DataFrame,
    encoder: TabularEncoder,
    dropped: dict[str, str],
    target_column: str | None,
) -> pd.DataFrame:
    table = infer_column_types(public).set_index("column")
    table = table.rename(columns={"missing": "missing (public)"})
    table["missing (private)"] = private.isna().sum()
    encoded = {}
    for col, kind in encoder.kinds_.items():
        if kind == "scaled":
            low, high = encoder.bounds_[col]
            encoded[col] = f"min-max by public range [{low:g}, {high:g}]"
        elif kind == "binary":
            encoded[col] = "0/1 as is"
        else:
            encoded[col] = f"one-hot, {len(encoder.groups_[col])} items"
        if target_column in encoder.groups_[col]:
            encoded[col] += f"; target {target_column!r}"
    table["encoding"] = pd.Series(encoded | dropped)  # dropped columns say why
    return table.reset_index()


def _listing(columns: Any, shown: int = 8) -> str:
    names = [repr(str(col)) for col in columns]
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def _size(n_bytes: int) -> str:
    return f"{n_bytes / 2**20:.1f} MB" if n_bytes >= 2**20 else f"{n_bytes:,} bytes"
