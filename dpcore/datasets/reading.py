"""Reading one uploaded CSV file: bytes in, a DataFrame or a :class:`~dpcore.DataError` out.

``read_csv_upload(data, name, *, max_bytes=MAX_UPLOAD_BYTES, private=False) -> DataFrame``
    Parse the bytes of one uploaded file: UTF-8 CSV with commas and one header row. Numeric
    columns become numbers; the cells ``""``, ``"?"``, ``"NA"``, ``"N/A"``, ``"NaN"``,
    ``"null"``, ``"None"`` and ``"#N/A"`` are missing values. No other exception escapes it.
    ``private=True`` reads a file that holds private rows: every column stays text.
``type_columns(frame, where="the public file") -> DataFrame``
    Give text columns their numeric type by the rules of :func:`read_csv_upload`: the public
    part of a file read with ``private=True``.
``parse_numbers(values) -> Series``
    Cells as floats by a rule fixed cell by cell (numbers, infinities, else NaN): how a private
    value is read into a column that the public file makes numeric.
``quote_text(text) -> str``
    A cell or a name as a message quotes it: cut short, with its length.
``infer_column_types(frame) -> DataFrame``
    One row per column: type (numeric, binary, categorical, constant or empty), number of
    distinct values, missing cells and an example value, for display.

Files with private rows
-----------------------
Whether a file is accepted, and what it becomes, must not depend on the value of one private
record: two private files that differ in one record (replace-one, the relation the mechanisms'
proofs assume) are both accepted, with the same columns and the same number of rows, or both
refused. So ``private=True`` takes no decision on a cell's value. Every column stays text (the
types come from the public file: :func:`scenario_from_uploads
<dpcore.datasets.uploads.scenario_from_uploads>` reads each private cell into the public
column's type, and a cell that is not a number there is missing, imputed by the public rule and
counted for the data owner), so a text cell such as ``forty`` in a numeric column, or ``inf``,
refuses nothing; and every row of the header's width is a record, even one whose cells are all
blank (``,,,``: all missing), so no record is dropped and ``N_D`` is the number of records
written. A record here is a row of the header's width whose cells are any printable UTF-8 text,
quoted as CSV requires: replacing one such record by another keeps the outcome.

What is still refused is the file rather than a record: not UTF-8, binary or markup, no header,
too many columns, a column name over :data:`MAX_NAME_CHARS` characters, no data rows, and CSV
syntax that does not delimit records (an unclosed quote, a row of another width than the
header). Such bytes are not a list of records at all (an unclosed quote swallows the rows after
it, so "the record that differs" is not even defined), and the data owner, who alone sees the
message, must fix the file before any release is made from it. The size limit is a resource
bound of the app; it is far above any file the pages can work with, so a replaced record does
not meet it in practice.

Speed: a well-formed file is tokenised by pyarrow's CSV reader and its columns are converted by
vectorised pyarrow kernels (no Python loop over cells); the file is parsed again by Python's
:mod:`csv` module only when something is irregular (a row of the wrong width, a quote that is not
a plain quoted field, a bad cell), so every message names the line and value as before.
A 400,000-row, 10-column file reads in about a second (``benchmarks/bench_upload.py``).

A cell of any length is a value like any other (the ``csv`` module's field size limit is raised
to the upload limit, so both parsers read it); a message that quotes a cell or a name cuts it
short (:func:`quote_text`).

Cells are text: a cell such as ``=cmd|' /C calc'!A0`` stays that string (it is never evaluated
here); a page that shows user strings escapes them, and an export that could be opened in a
spreadsheet should prefix such cells with ``'``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Collection

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from dpcore.validation import DataError

__all__ = [
    "MAX_COLUMNS",
    "MAX_NAME_CHARS",
    "MAX_UPLOAD_BYTES",
    "NA_VALUES",
    "MostlyNumbersError",
    "infer_column_types",
    "parse_numbers",
    "quote_text",
    "read_csv_upload",
    "type_columns",
]

#: Largest file that :func:`read_csv_upload` accepts (20 MiB, Streamlit's default is 200 MB).
MAX_UPLOAD_BYTES = 20 * 2**20
#: Most columns a file may have (the pages work with at most 300 encoded features).
MAX_COLUMNS = 1000
#: Longest column name (a header cell) a file may have: names label every table and chart.
MAX_NAME_CHARS = 1000
#: Cells read as missing values.
NA_VALUES = frozenset({"", "?", "NA", "N/A", "n/a", "NaN", "nan", "null", "NULL", "None", "#N/A"})
# Share of numeric cells from which a column with a few text cells counts as a broken numeric one.
_NUMERIC_SHARE = 0.8
_SAVE_AS_CSV = "Save the table as CSV (comma-separated, UTF-8) and upload that file."
_QUOTED_CHARS = 40  # characters of a cell or a name that a message quotes
# A number cell: decimal digits with an optional point, sign and exponent (not inf, not 0x1F).
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_INTEGER = r"^[+-]?\d+$"
_INFINITY = r"(?i)^[+-]?inf(?:inity)?$"
# A plain quoted field: starts a field (no space before the quote) and a separator or line end
# follows it. A file whose quotes are all such fields tokenises the same in pyarrow and in csv.
_QUOTED = re.compile(r'(?<![^,\r\n])"[^"]*(?:""[^"]*)*"(?=[,\r\n]|\Z)')
_OTHER_SEPARATORS = {";": "semicolons (;)", "\t": "tabs", "|": "vertical bars (|)"}
_SIGNATURES = {
    b"PK\x03\x04": "a ZIP archive or an Excel workbook (.xlsx)",
    b"PK\x05\x06": "an empty ZIP archive",
    b"\xd0\xcf\x11\xe0": "an old Excel workbook (.xls)",
    b"\x1f\x8b": "a gzip-compressed file",
    b"7z\xbc\xaf\x27\x1c": "a 7-Zip archive",
    b"Rar!\x1a\x07": "a RAR archive",
    b"\xfd7zXZ\x00": "an xz-compressed file",
    b"%PDF": "a PDF document",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF87a": "a GIF image",
    b"GIF89a": "a GIF image",
    b"II*\x00": "a TIFF image",
    b"MM\x00*": "a TIFF image",
    b"SQLite format 3\x00": "an SQLite database",
}
# JSON: an object ({"...) or an array of values ([{, [[, [", [1, []); not a header such as "[a],b".
_JSON_START = re.compile(r'\{\s*["}]|\[\s*[\[{"\]\d-]')
_MARKUP = ("<!doctype", "<html", "<?xml", "<head", "<body", "<table", "<!--", "<div", "<svg")


class MostlyNumbersError(DataError):
    """A column of numbers with a few text or infinite cells, refused by :func:`read_csv_upload`.

    The person may correct the file, or read those cells as missing values (``as_missing``).

    Attributes
    ----------
    column : str
        The column's name.
    """

    def __init__(self, column: str, message: str) -> None:
        super().__init__(message)
        self.column = column

    def __reduce__(self) -> tuple:
        return type(self), (self.column, str(self))


def read_csv_upload(
    data: bytes,
    name: str,
    *,
    max_bytes: int = MAX_UPLOAD_BYTES,
    private: bool = False,
    as_missing: Collection[str] = (),
) -> pd.DataFrame:
    """Read the bytes of an uploaded CSV file into a DataFrame.

    Parameters
    ----------
    data : bytes
        Content of the file.
    name : str
        File name, used in messages.
    max_bytes : int, default=MAX_UPLOAD_BYTES
        Upload limit; a larger file is refused before it is decoded or parsed.
    private : bool, default=False
        Whether the file holds private rows (the private file, or one file to be split into
        public and private parts). Then no outcome depends on a cell's value (module notes):
        every column is text, and a row of the header's width whose cells are all blank is a
        record with every value missing rather than a blank line.
    as_missing : collection of str, default=()
        Columns whose cells that are not finite numbers are read as missing values when the
        column is otherwise numeric (the person's choice, instead of correcting the file: see
        :class:`MostlyNumbersError`).

    Returns
    -------
    DataFrame
        One column per header name; numeric columns as numbers (int64 when every cell is a
        whole number, else float64; with ``private=True`` every column is text), the others
        as text (stripped of surrounding spaces), missing cells (see :data:`NA_VALUES`) as NaN.
        Text cells are kept as written: a formula-like cell (``=1+1``) is inert text.

    Raises
    ------
    DataError
        Whatever the bytes, with a message that says what is wrong and what to do: too large,
        empty, binary (an image, an archive, a PDF), JSON or HTML rather than CSV, not UTF-8,
        not comma-separated, malformed quotes or rows, blank or duplicate headers, no header row,
        too many columns, no data rows, and (unless ``private`` or ``as_missing`` names the
        column) text or infinite values in a numeric column (:class:`MostlyNumbersError`).
    TypeError
        If ``data`` is not bytes.

    Examples
    --------
    >>> data = b"age,city\\n41,north\\nforty,south\\n,\\n"
    >>> read_csv_upload(data, "d.csv", private=True)["age"].tolist()
    ['41', 'forty', nan]
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"data must be bytes, got {type(data).__name__}.")
    try:
        return _read_csv(bytes(data), name, max_bytes, private, frozenset(as_missing))
    except DataError:
        raise
    except Exception as exc:  # the contract: only DataError escapes, whatever the bytes
        raise DataError(
            f"{name!r} could not be read as a CSV table ({type(exc).__name__}: {exc}). "
            f"{_SAVE_AS_CSV}"
        ) from exc


def _read_csv(
    data: bytes, name: str, max_bytes: int, private: bool, as_missing: frozenset[str]
) -> pd.DataFrame:
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
    _check_not_markup(text, name)
    columns = _parse_fast(text, data.removeprefix(b"\xef\xbb\xbf"), private)
    lines: list[int] | None = None
    if columns is None:  # irregular: parse with the csv module, which names the line
        header, rows, lines = _parse_rows(text, name, private)
        _check_header(header, name)
        _check_widths(header, rows, lines, name)
        columns = [pa.array(cells, pa.string()) for cells in zip(*rows, strict=True)]
        if not rows:
            columns = [pa.array([], pa.string()) for _ in header]
    else:
        header = [column[0].as_py().strip() for column in columns]
        _check_header(header, name)
    if not len(columns[0]) - (lines is None):
        raise DataError(
            f"{name!r} has a header row but no data rows. Add the records below the header."
        )

    def line_numbers() -> list[int]:  # file line of every data row, only for messages
        return lines if lines is not None else _parse_rows(text, name)[2]

    return _to_frame(header, columns, lines is None, name, None if private else line_numbers,
                     as_missing)


def _decode(data: bytes, name: str) -> str:
    for magic, what in _SIGNATURES.items():
        if data.startswith(magic):
            raise DataError(f"{name!r} looks like {what}, not a CSV file. {_SAVE_AS_CSV}")
    if data[:4] == b"RIFF" and data[8:12] in (b"WEBP", b"WAVE", b"AVI "):
        raise DataError(
            f"{name!r} looks like a media file (RIFF {data[8:12].decode().strip()}), not a CSV "
            f"file. {_SAVE_AS_CSV}"
        )
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


def _check_not_markup(text: str, name: str) -> None:
    """Refuse JSON and HTML/XML with their own message rather than a CSV-syntax one."""
    start = text.lstrip()[:200]
    end = text.rstrip()[-1:]
    if _JSON_START.match(start) and end in "}]":
        raise DataError(
            f"{name!r} looks like JSON, not a CSV table (it starts with {start[:1]!r} and ends "
            f"with {end!r}). Convert it to CSV (for example pandas.read_json(...).to_csv(), or "
            "a spreadsheet's export) with one header row, and upload that file."
        )
    if start.lower().startswith(_MARKUP):
        raise DataError(
            f"{name!r} looks like an HTML or XML page, not a CSV table (it starts with "
            f"{start[:15]!r}); a web page saved under a .csv name, or a download link that "
            "returned a page, gives this. Download the data itself as CSV and upload that file."
        )


def _parse_fast(text: str, data: bytes, private: bool) -> list[pa.Array] | None:
    """Cells of every row (the header first), one string array per column; None if irregular.

    ``data`` is ``text`` as UTF-8 bytes (the upload without its byte-order mark). Rows of blank
    cells are dropped, except (``private``) those after the header: records with no values.

    Irregular means anything on which pyarrow's tokeniser might differ from :mod:`csv` with
    ``skipinitialspace`` and ``strict`` (a quote that is not a plain quoted field) or which
    needs a line number in its message (a row of the wrong width); the caller then parses
    with :func:`_parse_rows`.
    """
    if '"' in text and '"' in _QUOTED.sub("", text):
        return None
    try:
        header = next(csv.reader(io.StringIO(text, newline=""), strict=True))
    except (csv.Error, StopIteration):
        return None
    if not header or len(header) > MAX_COLUMNS:
        return None
    names = [f"c{i}" for i in range(len(header))]
    try:
        table = pa_csv.read_csv(
            io.BytesIO(data),
            read_options=pa_csv.ReadOptions(column_names=names, block_size=1 << 22),
            parse_options=pa_csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=True),
            convert_options=pa_csv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.string()),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError):
        return None
    columns = [table.column(i).combine_chunks() for i in range(len(names))]
    blank = None
    for column in columns:  # drop rows that hold only blank cells, as _parse_rows does
        empty = pc.equal(pc.utf8_trim_whitespace(column), "")
        blank = empty if blank is None else pc.and_(blank, empty)
    if blank is not None and private:  # keep the blank records after the header
        first = pc.index(blank, False).as_py()  # the header: the first row with a value
        after = np.arange(len(blank)) > (first if first >= 0 else len(blank))
        blank = pc.and_(blank, pa.array(~after))
    if blank is not None and pc.any(blank).as_py():
        columns = [pc.filter(column, pc.invert(blank)) for column in columns]
    if not len(columns[0]):
        return None  # only blank cells: _parse_rows says so
    return columns


def _parse_rows(
    text: str, name: str, private: bool = False
) -> tuple[list[str], list[list[str]], list[int]]:
    """Header, non-blank data rows and the file line on which each data row ends.

    With ``private``, a data row of the header's width is kept even when its cells are blank:
    it is a record with no values (as in :func:`_parse_fast`).
    """
    # The csv module refuses a field over 131,072 characters by default, which pyarrow's reader
    # does not: raised to the upload limit, so that a long cell refuses no file on either path.
    # A process-wide setting, only ever raised (the same value from every thread).
    if csv.field_size_limit() < MAX_UPLOAD_BYTES:
        csv.field_size_limit(MAX_UPLOAD_BYTES)
    reader = csv.reader(io.StringIO(text, newline=""), skipinitialspace=True, strict=True)
    rows, lines = [], []
    try:
        for row in reader:
            record = private and bool(rows) and len(row) == len(rows[0])
            if record or any(cell.strip() for cell in row):
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


def _check_widths(header: list[str], rows: list[list[str]], lines: list[int], name: str) -> None:
    """Refuse a row with more or fewer values than the header, naming its line."""
    for row, line in zip(rows, lines, strict=True):
        if len(row) != len(header):
            raise DataError(
                f"Line {line} of {name!r} has {len(row)} values but the header has "
                f"{len(header)} columns. Put quotes around values that contain commas, or fix "
                "that line."
            )


def _check_header(header: list[str], name: str) -> None:
    """Refuse a header that reads as one column split by another separator, has too many
    columns, or column names that are too long, blank or repeated."""
    found = [sep for sep in _OTHER_SEPARATORS if sep in header[0]] if len(header) == 1 else []
    if found:
        raise DataError(
            f"{name!r} separates its values with {_OTHER_SEPARATORS[found[0]]}, not commas: its "
            f"header reads as one column ({header[0][:60]!r}). Re-save it as CSV with commas as "
            "the separator (and a point as the decimal mark)."
        )
    if len(header) > MAX_COLUMNS:
        raise DataError(
            f"{name!r} has {len(header):,} columns, more than the {MAX_COLUMNS:,} an upload may "
            "have (the pages work with at most a few hundred encoded features). Keep the "
            "columns you need and upload again."
        )
    long = [(i + 1, col) for i, col in enumerate(header) if len(col) > MAX_NAME_CHARS]
    if long:
        position, col = long[0]
        raise DataError(
            f"Column {position}'s name in the header row of {name!r}, {quote_text(col)}, is "
            f"longer than the {MAX_NAME_CHARS:,} characters a column name may have (names "
            "label every table and chart). Shorten it, or check that the first row is the "
            "header."
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


def _to_frame(
    header: list[str],
    columns: list[pa.Array],
    skip_first: bool,
    name: str,
    line_numbers: Callable[[], list[int]] | None,
    as_missing: frozenset[str] = frozenset(),
) -> pd.DataFrame:
    """The frame of the cells; text columns only when ``line_numbers`` is None (private)."""
    na_values = pa.array(sorted(NA_VALUES), pa.string())
    data = {}
    for col, cells in zip(header, columns, strict=True):
        cells = pc.utf8_trim_whitespace(cells[1:] if skip_first else cells)
        missing = pc.is_in(cells, value_set=na_values)
        cells = pc.if_else(missing, pa.scalar(None, pa.string()), cells)
        if line_numbers is None:
            data[col] = pd.Series(pd.array(cells, dtype="str"))
        else:
            data[col] = _to_numeric(cells, col, repr(name), _on_line(line_numbers),
                                    lenient=col in as_missing)
    return pd.DataFrame(data, columns=header)


def _on_line(line_numbers: Callable[[], list[int]]) -> Callable[[int], str]:
    return lambda row: f" on line {line_numbers()[row]}"


def type_columns(
    frame: pd.DataFrame, where: str = "the public file", *, as_missing: Collection[str] = ()
) -> pd.DataFrame:
    """Give text columns their numeric type by the rules of :func:`read_csv_upload`.

    For the public part of a file read with ``private=True`` (a file split into public and
    private parts): its types, like everything that shapes the encoding, come from public rows
    only. A frame that :func:`read_csv_upload` typed is returned unchanged.

    Parameters
    ----------
    frame : DataFrame
        Public rows; text columns hold cells as written (missing cells NaN).
    where : str, default="the public file"
        What the frame is, in messages ("Column 'age' of the public file holds ...").
    as_missing : collection of str, default=()
        As in :func:`read_csv_upload`.

    Returns
    -------
    DataFrame
        A text column whose every present cell is a finite number becomes numeric (int64 or
        float64, as :func:`read_csv_upload` reads it); the other columns are unchanged.

    Raises
    ------
    DataError
        A column that holds numbers except for a few text or infinite cells, as
        :func:`read_csv_upload` refuses it (the message has no line number).

    Examples
    --------
    >>> frame = pd.DataFrame({"age": ["41", "30"], "city": ["north", "7"]})
    >>> type_columns(frame).dtypes.astype(str).tolist()
    ['int64', 'str']
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    out = {}
    for col in frame.columns:
        values = frame[col]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            out[col] = values
            continue
        typed = _to_numeric(_text_cells(values), str(col), where, lambda row: "",
                            lenient=str(col) in as_missing)
        numeric = pd.api.types.is_numeric_dtype(typed)
        out[col] = pd.Series(typed.to_numpy(), index=frame.index) if numeric else values
    return pd.DataFrame(out, index=frame.index, columns=frame.columns)


def parse_numbers(values: pd.Series) -> pd.Series:
    """Cells as floats by a rule fixed cell by cell, without looking at the other cells.

    How a private value is read into a column that the public file makes numeric: a number
    as :func:`read_csv_upload` writes it (``41``, ``-2.5``, ``1e3``) is that number (``1e999``
    overflows to ``inf``); ``inf``, ``-Infinity`` and the like are infinite (the encoding clips
    them to the public range); any other cell (``forty``, ``0x1F``, a missing cell) is NaN.

    Parameters
    ----------
    values : Series
        Text cells, or numbers (returned as floats; booleans as 0 and 1).

    Returns
    -------
    Series of float
        Same index.

    Examples
    --------
    >>> parse_numbers(pd.Series(["41", " 2.5", "forty", "-inf", None])).tolist()
    [41.0, 2.5, nan, -inf, nan]
    """
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return values.astype(float)
    cells = pc.utf8_trim_whitespace(_text_cells(values))
    number = pc.fill_null(pc.match_substring_regex(cells, f"^{_NUMBER}$"), False)
    infinite = pc.fill_null(pc.match_substring_regex(cells, _INFINITY), False)
    numbers = pc.if_else(number, cells, None)
    try:
        parsed = pc.cast(numbers, pa.float64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:  # such as 1e999, which pandas reads as inf
        parsed = pd.to_numeric(
            pd.Series(numbers.to_numpy(zero_copy_only=False)), errors="coerce"
        ).to_numpy(dtype=float, na_value=np.nan)
    negative = pc.fill_null(pc.starts_with(cells, "-"), False).to_numpy(zero_copy_only=False)
    inf = np.where(negative, -np.inf, np.inf)
    out = np.where(infinite.to_numpy(zero_copy_only=False), inf, parsed)
    return pd.Series(out, index=values.index, dtype=float)


def _text_cells(values: pd.Series) -> pa.Array:
    """A column's cells as a pyarrow string array (missing cells null, others as text)."""
    cells = values.to_numpy(dtype=object, na_value=None)
    try:  # text cells (as read_csv_upload gives them): no Python loop
        return pa.array(cells, pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # other objects: as text
        return pa.array([None if c is None else str(c) for c in cells], pa.string())


def _to_numeric(
    cells: pa.Array, col: str, where: str, line: Callable[[int], str], *, lenient: bool = False
) -> pd.Series:
    """The column as numbers if every present cell is a finite number, else as text.

    ``where`` names the data in messages (a quoted file name); ``line(row)`` is " on line N"
    for the row's file line, or "" where lines are not known. A column of at least
    ``_NUMERIC_SHARE`` numbers with other cells is refused (:class:`MostlyNumbersError`), or
    with ``lenient`` read as numbers, the other cells missing.
    """
    present = pc.is_valid(cells)
    n_present = pc.sum(present).as_py() or 0
    text = pd.Series(pd.array(cells, dtype="str"))
    if not n_present:
        return text
    number = pc.fill_null(pc.match_substring_regex(cells, f"^{_NUMBER}$"), False)
    n_number = pc.sum(number).as_py() or 0
    infinite = pc.fill_null(pc.match_substring_regex(cells, _INFINITY), False)
    if n_number == n_present:
        values = _cast(cells, n_present == len(cells))
        overflow = np.isinf(values.to_numpy(dtype=float))  # such as 1e999
        if not overflow.any():
            return values
        infinite = pa.array(overflow)
    n_infinite = pc.sum(infinite).as_py() or 0
    if lenient and n_number >= _NUMERIC_SHARE * n_present:
        numbers = pc.if_else(number, cells, pa.scalar(None, pa.string()))
        values = _cast(numbers, False).to_numpy(dtype=float)
        return pd.Series(np.where(np.isfinite(values), values, np.nan))
    bad = pc.and_(present, pc.invert(number)) if not n_infinite else infinite
    if n_infinite and n_number + n_infinite >= _NUMERIC_SHARE * n_present:
        row = int(np.flatnonzero(np.asarray(bad))[0])
        raise MostlyNumbersError(
            col,
            f"Column {col!r} of {where} holds {n_infinite} infinite value(s), e.g. "
            f"{quote_text(cells[row].as_py())}{line(row)}: only finite numbers can be "
            "used. Replace them by a finite value (such as the column's largest meaningful "
            "value), or empty those cells to mark missing values, and upload again."
        )
    if n_number >= _NUMERIC_SHARE * n_present:
        bad = pc.and_(present, pc.invert(number))
        row = int(np.flatnonzero(np.asarray(bad))[0])
        raise MostlyNumbersError(
            col,
            f"Column {col!r} of {where} holds numbers except for {n_present - n_number} "
            f"cell(s), e.g. {quote_text(cells[row].as_py())}{line(row)}. Correct those "
            "cells, or empty them to mark missing values, and upload again."
        )
    return text


def _cast(cells: pa.Array, complete: bool) -> pd.Series:
    """Number cells (checked by the caller) as int64 when whole and complete, else float64."""
    if complete and pc.all(pc.match_substring_regex(cells, _INTEGER)).as_py():
        try:
            return pd.Series(pc.cast(cells, pa.int64()).to_numpy())
        except pa.ArrowInvalid:  # a sign or more than 19 digits: pandas decides, as before
            try:
                return pd.to_numeric(pd.Series(cells.to_numpy(zero_copy_only=False)))
            except (ValueError, OverflowError):  # thousands of digits: read as floats below
                pass
    try:
        values = pc.cast(cells, pa.float64())
    except pa.ArrowInvalid:
        return pd.to_numeric(pd.Series(cells.to_numpy(zero_copy_only=False)), errors="coerce")
    return pd.Series(values.to_numpy(zero_copy_only=False), dtype=float)


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
                "example": _shortened(str(values.iloc[0])) if len(values) else "",
            }
        )
    return pd.DataFrame(rows, columns=["column", "type", "distinct", "missing", "example"])


def _shortened(text: str) -> str:
    return text if len(text) <= _QUOTED_CHARS else text[:_QUOTED_CHARS] + "…"


def _kind(values: pd.Series) -> str:
    distinct = values.nunique()
    if distinct == 0:
        return "empty"
    if distinct == 1:
        return "constant"
    if distinct == 2:
        return "binary"
    return "numeric" if pd.api.types.is_numeric_dtype(values) else "categorical"


def quote_text(text: object, shown: int = _QUOTED_CHARS) -> str:
    """A cell or a name as a message quotes it: ``repr``, cut after ``shown`` characters with
    its length said, so that a cell of two million characters makes a short message.

    >>> quote_text("forty"), quote_text("x" * 100, shown=5)
    ("'forty'", "'xxxxx…' (100 characters)")
    """
    text = str(text)
    if len(text) <= shown:
        return repr(text)
    return f"{text[:shown] + '…'!r} ({len(text):,} characters)"


def _size(n_bytes: int) -> str:
    return f"{n_bytes / 2**20:.1f} MB" if n_bytes >= 2**20 else f"{n_bytes:,} bytes"
