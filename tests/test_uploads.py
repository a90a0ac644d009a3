"""Uploads: the bad-input corpus (tests/data/bad), messages, fuzzing, alignment, encoding, splits.

Every bad file gets a DataError whose message names the problem (a table of fragments); files
that are odd but readable (a BOM, mixed line endings, a quoted newline, a formula-like cell) are
read correctly; random bytes, text and frames raise nothing but DataError.
"""

import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dpcore.datasets.reading as reading
from dpcore import DataError
from dpcore.datasets import (
    MAX_FEATURES,
    MAX_UPLOAD_BYTES,
    MostlyNumbersError,
    UploadReport,
    align_columns,
    infer_column_types,
    read_csv_upload,
    scenario_from_uploads,
    split_by_value,
    split_random,
    type_columns,
)
from dpcore.datasets.uploads import split_columns

DATA = Path(__file__).parent / "data"
BAD = DATA / "bad"


def read(name, **kwargs):
    path = DATA / name
    return read_csv_upload(path.read_bytes(), path.name, **kwargs)


@pytest.fixture(scope="module")
def valid():
    """(private, public), the order of every dpcore function."""
    return read("valid_private.csv"), read("valid_public.csv")


# ------------------------------------------------------------------ the bad-input corpus

# file in tests/data/bad -> fragments of the message read_csv_upload gives.
READ_ERRORS = {
    "binary.csv": ["binary data (NUL bytes)", "not a CSV text file", "Save the table as CSV"],
    "blank_header.csv": ["Column 2 has no name", "Give every column a name"],
    "blank_lines.csv": ["'blank_lines.csv' is empty", "header row"],
    "control_chars.csv": ["contains control characters", "not a CSV text file"],
    "duplicate_headers.csv": ["duplicate column names", "'age' (columns 1, 4)", "Rename"],
    "empty.csv": ["'empty.csv' is empty", "at least one data row"],
    "excel_disguised.csv": ["Excel workbook (.xlsx)", "not a CSV file", "Save the table as CSV"],
    "gzip_compressed.csv": ["looks like a gzip-compressed file", "not a CSV file"],
    "header_only.csv": ["header row but no data rows", "Add the records"],
    "html.csv": ["looks like an HTML or XML page", "'<!DOCTYPE html>'", "Download the data"],
    "xml.csv": ["looks like an HTML or XML page", "'<?xml version="],
    "image.csv": ["looks like a PNG image", "not a CSV file"],
    "inf_column.csv": ["Column 'hours'", "3 infinite value(s)", "'inf' on line 2", "finite"],
    "inf_values.csv": ["Column 'hours'", "1 infinite value(s)", "'inf' on line 3"],
    "json.csv": ["looks like JSON", "starts with '[' and ends with ']'", "Convert it to CSV"],
    "json_lines.csv": ["looks like JSON", "starts with '{'"],
    "latin1.csv": ["not UTF-8", "0xFC on line 2", "Re-save it as 'CSV UTF-8'"],
    "many_columns.csv": ["10,000 columns", "more than the 1,000", "Keep the columns you need"],
    "no_header.csv": ["holds numbers (39, 77516, 13, ...)", "no header row", "Add a first row"],
    "only_separators.csv": ["holds no values, only separators or blank cells"],
    "pdf.csv": ["looks like a PDF document"],
    "pipe_separated.csv": ["vertical bars (|)", "not commas", "commas as the separator"],
    "quote_garbage.csv": ["Line 2 of 'quote_garbage.csv' is not valid CSV", "double quotes"],
    "ragged_rows.csv": ["Line 3", "4 values but the header has 3 columns", "quotes"],
    "semicolon.csv": ["semicolons", "not commas", "commas as the separator"],
    "short_row.csv": ["Line 3", "2 values but the header has 3 columns"],
    "tab_separated.csv": ["tabs", "not commas", "commas as the separator"],
    "text_in_numeric.csv": ["Column 'age'", "except for 1 cell(s)", "'forty' on line 8"],
    "unclosed_quote.csv": ["quote is never closed", "line 2"],
    "utf16.csv": ["UTF-16", "Re-save it as 'CSV UTF-8'"],
    "zip_archive.csv": ["looks like a ZIP archive", "not a CSV file"],
}

# file in tests/data/bad -> (role, kwargs, fragments of scenario_from_uploads' message). The file
# reads; the pair fails. Role "private": with valid_public.csv; "public": with
# valid_private.csv; "both": the file as public, and as private without its first row (the
# same rows twice are refused before anything else, see test_upload_derived_public.py).
BUILD_ERRORS = {
    "no_shared_columns.csv": (
        "private",
        {},
        ["share no column names", "differ only in case: 'age' / 'Age'", "same name"],
    ),
    "single_class_public.csv": (
        "public",
        {"target": "income"},
        ["Target 'income' has the single class '<=50K' in the public file", "at least two"],
    ),
    "one_row.csv": ("public", {}, ["public file has a single row", "at least two rows"]),
    "too_many_columns.csv": (
        "both",
        {},
        ["415 columns", f"limit of {MAX_FEATURES}", "'customer_id' (400 columns)", "ID-like"],
    ),
}

# Odd but readable: checked one by one below.
READABLE = {
    "bom.csv",
    "mixed_line_endings.csv",
    "quoted_newline.csv",
    "formula_cell.csv",
    "missing_values.csv",
    "single_class_private.csv",
    "negative_in_unit_domain.csv",
    "one_row.csv",
    "type_mismatch.csv",  # as a private file: text cells in a public numeric column are missing
}


def test_corpus_is_covered():
    files = {path.name for path in BAD.glob("*.csv")}
    assert len(files) >= 25
    assert files == set(READ_ERRORS) | set(BUILD_ERRORS) | READABLE


@pytest.mark.parametrize("file", sorted(READ_ERRORS))
def test_bad_file_gets_a_data_error_naming_the_problem(file):
    with pytest.raises(DataError) as info:
        read_csv_upload((BAD / file).read_bytes(), file)
    message = str(info.value)
    assert repr(file) in message
    for phrase in READ_ERRORS[file]:
        assert phrase in message
    assert "np." not in message and "Traceback" not in message


@pytest.mark.parametrize("file", sorted(BUILD_ERRORS))
def test_bad_pair_gets_a_data_error_naming_the_problem(file, valid):
    role, kwargs, phrases = BUILD_ERRORS[file]
    frame = read_csv_upload((BAD / file).read_bytes(), file)
    private, public = valid
    pair = {"private": (frame, public), "public": (private, frame),
            "both": (frame.iloc[1:], frame)}[role]
    with pytest.raises(DataError) as info:
        scenario_from_uploads(*pair, **kwargs)
    for phrase in phrases:
        assert phrase in str(info.value)
    assert "np." not in str(info.value)


# Refusals of a cell's value, which a file with private rows never gets (issue 21, sect. 5).
VALUE_ERRORS = {"inf_column.csv", "inf_values.csv", "text_in_numeric.csv"}


@pytest.mark.parametrize("file", sorted(READ_ERRORS))
def test_a_file_with_private_rows_is_refused_for_its_format_only(file):
    data = (BAD / file).read_bytes()
    if file in VALUE_ERRORS:
        frame = read_csv_upload(data, file, private=True)
        assert len(frame) == len(data.decode().strip().splitlines()) - 1  # every record
        assert all(pd.api.types.is_string_dtype(frame[col]) for col in frame.columns)
        return
    with pytest.raises(DataError) as strict:
        read_csv_upload(data, file)
    with pytest.raises(DataError) as private:
        read_csv_upload(data, file, private=True)
    assert str(private.value) == str(strict.value)


def test_a_100_mb_file_is_refused_by_size_before_parsing(monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("a file over the limit must not be decoded or parsed")

    monkeypatch.setattr(reading, "_decode", never)
    monkeypatch.setattr(reading, "_parse_fast", never)
    row = b"41,Masters,40,yes,North,>50K\n"
    data = b"age,education,hours,married,region,income\n" + row * (100 * 2**20 // len(row) + 1)
    assert len(data) > 100 * 2**20 > MAX_UPLOAD_BYTES
    with pytest.raises(DataError, match=r"'big\.csv' is 100\.0 MB, over the upload limit of 20"):
        read_csv_upload(data, "big.csv")


def test_bom_mixed_line_endings_and_quoted_newline_are_read_correctly():
    bom = read_csv_upload((BAD / "bom.csv").read_bytes(), "bom.csv")
    assert list(bom.columns)[0] == "age" and bom["age"].tolist() == [41, 30]
    mixed = read_csv_upload((BAD / "mixed_line_endings.csv").read_bytes(), "m.csv")
    assert mixed["age"].tolist() == [41, 30, 52]
    assert mixed["income"].tolist() == [">50K", "<=50K", ">50K"]
    quoted = read_csv_upload((BAD / "quoted_newline.csv").read_bytes(), "q.csv")
    assert quoted["name"].tolist() == ["Smith, Ann", "Lee, Bo"]
    assert quoted["note"].tolist() == ["first line\nsecond line", "plain"]
    assert quoted["age"].tolist() == [41, 30]


def test_brackets_in_a_csv_are_not_json():
    frame = read_csv_upload(b"[a],b\n1,[x]\n", "brackets.csv")
    assert list(frame.columns) == ["[a]", "b"] and frame["b"].tolist() == ["[x]"]


def test_formula_like_cells_stay_inert_text():
    frame = read_csv_upload((BAD / "formula_cell.csv").read_bytes(), "formula_cell.csv")
    assert frame["comment"].tolist() == ["=cmd|' /C calc'!A0", "=1+1", "@SUM(A1:A2)"]
    assert frame["age"].tolist() == [41, 30, 52]


def test_missing_values_are_imputed_not_refused(valid):
    private, _ = valid
    scenario, report = scenario_from_uploads(private, read("bad/missing_values.csv"))
    assert len(scenario.public) == 40 and len(scenario.private) == 40
    assert "Column 'age': 2 missing public value(s) imputed by the public median 53.5." in (
        report.notes
    )
    assert "Column 'region': 1 missing public value(s) encoded as all-zero items." in report.notes
    dropped, report = scenario_from_uploads(
        private, read("bad/missing_values.csv"), public_missing="drop"
    )
    assert len(dropped.public) == 37 and len(dropped.private) == 40
    assert "Dropped 3 of 40 public rows with missing values." in report.notes


def test_single_class_private_target_is_accepted_with_a_non_private_note(valid):
    _, public = valid
    private = read("bad/single_class_private.csv")
    scenario, report = scenario_from_uploads(private, public, target="income", positive=">50K")
    assert (scenario.private["income=>50K"] == 0).all() and len(scenario.private) == 40
    (note,) = report.private_notes
    assert note.startswith("Non-private") and "single class of the target" in note
    assert "income=>50K = 0" in note


def test_negative_values_in_a_unit_domain_are_clipped():
    private = read("bad/negative_in_unit_domain.csv")
    scenario, report = scenario_from_uploads(private, read("unit_domain_public.csv"))
    assert scenario.private["share"].tolist() == [0.0, 0.5, 0.0, 0.75]
    assert report.private_notes == (
        "Non-private (computed from the private file without noise; do not publish): column "
        "'share': 2 private value(s) outside the public range [0, 1] clipped to it.",
    )


def test_one_private_row_is_a_valid_private_file(valid):
    _, public = valid
    scenario, _ = scenario_from_uploads(read("bad/one_row.csv"), public, target="income")
    assert len(scenario.private) == 1 and scenario.d == 13  # 15 encoded columns less the target's 2


# ------------------------------------------------------------------ inf beside a valid file


def test_private_inf_and_text_cells_are_read_into_the_public_types(valid):
    _, public = valid
    text = (DATA / "valid_private.csv").read_text().splitlines()
    # Every age "inf": a public file like this is refused (no finite range to scale by) ...
    rows = [text[0]] + [",".join(["inf", *line.split(",")[1:]]) for line in text[1:]]
    data = ("\n".join(rows) + "\n").encode()
    with pytest.raises(DataError, match=r"Column 'age' of 'p\.csv' holds 40 infinite value"):
        read_csv_upload(data, "p.csv")
    # ... but a private file is read as text, and its cells into the public type: inf is a
    # number above the public range (clipped), a word is missing (imputed by the public median).
    scenario, report = scenario_from_uploads(read_csv_upload(data, "p.csv", private=True), public)
    assert (scenario.private["age"] == 1.0).all() and len(scenario.private) == 40
    assert any("40 private value(s) too large to be a number (beyond ±1.8e308, such as a cell "
               "of hundreds of digits) or written as infinite, read as infinite and clipped to "
               "the public range" in n for n in report.private_notes)
    assert not any("outside the public range" in n for n in report.private_notes)  # said once
    (reading,) = report.private_reading
    assert reading.startswith("Non-private") and "40 private values too large" in reading
    private = pd.DataFrame({"age": ["inf", "-inf", "old"], "income": [">50K", "<=50K", ">50K"]})
    scenario, report = scenario_from_uploads(private, public)
    assert scenario.private["age"].tolist()[:2] == [1.0, 0.0]
    assert scenario.raw_private["age"].tolist()[2] == public["age"].median()
    assert any("1 private value(s) that are not numbers" in n for n in report.private_notes)


def test_a_private_column_of_another_type_is_read_into_the_public_one(valid):
    private, public = valid
    mismatch = read("bad/type_mismatch.csv")  # 'age' holds old/young in the private file
    scenario, report = scenario_from_uploads(mismatch, public)
    reference, _ = scenario_from_uploads(private, public)
    assert scenario.features == reference.features and len(scenario.private) == 40
    assert (scenario.raw_private["age"] == public["age"].median()).all()
    (note,) = [n for n in report.private_notes if "'age'" in n]
    assert note.startswith("Non-private") and "40 private value(s) that are not numbers" in note
    # A public text column: private numbers are compared as they are written.
    codes = public.assign(code=np.resize(["7", "12", "x"], len(public)))
    typed = private.assign(code=np.resize([7, 12.0, 3.5], len(private)))
    scenario, report = scenario_from_uploads(typed, codes)
    items = scenario.groups["code"]
    assert scenario.private[items].sum(axis=1).tolist()[:3] == [1.0, 1.0, 0.0]


def test_infinite_numbers_in_frames(valid):
    private, public = valid
    private = private.assign(age=private["age"].astype(float))
    private.loc[0, "age"], private.loc[1, "age"] = np.inf, -np.inf
    scenario, report = scenario_from_uploads(private, public)
    assert scenario.private.loc[0, "age"] == 1.0 and scenario.private.loc[1, "age"] == 0.0
    assert any("2 private value(s) too large to be a number" in n for n in report.private_notes)
    with pytest.raises(DataError, match="'age' of the public file holds infinite values"):
        scenario_from_uploads(private, private)


# ------------------------------------------------------------ files with no value, giant cells

HEADER = (DATA / "valid_public.csv").read_text().splitlines()[0]  # age,...,income
GIANT = "1" + "0" * 2_000_000  # a number of two million digits
SHORT = 1_000  # characters: any message about a giant cell is far shorter than the cell


def csv_bytes(*rows):
    return ("\n".join([HEADER, *rows]) + "\n").encode()


def test_a_private_file_of_rows_with_no_value_is_read_and_the_owner_told(valid):
    """Issue 33, section 4: a header and 50 empty rows is 50 records whose every value is
    filled in by the public rules; the owner is told, and nothing else changes."""
    _, public = valid
    for cells in (",,,,,", "NA,?,,null,N/A,#N/A"):
        private = read_csv_upload(csv_bytes(*[cells] * 50), "d.csv", private=True)
        scenario, report = scenario_from_uploads(private, public, target="income")
        reference, _ = scenario_from_uploads(read("valid_private.csv", private=True), public,
                                             target="income")
        assert len(scenario.private) == 50 and scenario.d == reference.d  # N_D and d
        assert scenario.private.drop_duplicates().shape[0] == 1  # every row encoded alike
        (reading,) = report.private_reading
        assert reading.startswith("Non-private") and "read as 50 rows, every value missing" in (
            reading)
    rows = (DATA / "valid_public.csv").read_text().splitlines()[1:3]
    some = read_csv_upload(csv_bytes(*rows, ",,,,,", ",,,,,"), "d.csv", private=True)
    _, report = scenario_from_uploads(some, public)
    assert report.private_reading == (
        "Non-private (computed from the private file without noise; do not publish): 2 of the "
        "private file's 4 rows were read with every value missing (blank cells, or markers such "
        "as NA): each is still a record, its values filled in by the fixed public rules.",)
    _, report = scenario_from_uploads(read("valid_private.csv", private=True), public)
    assert report.private_reading == ()  # an ordinary file: nothing to say


def test_a_giant_number_in_a_private_file_is_read_as_infinite_and_the_owner_told(valid):
    _, public = valid
    private = read_csv_upload(csv_bytes(f"{GIANT},HS-grad,40,no,South,>50K",
                                        f"-{GIANT},HS-grad,40,no,South,>50K",
                                        "30,HS-grad,40,no,South,>50K"), "d.csv", private=True)
    scenario, report = scenario_from_uploads(private, public, target="income")
    assert scenario.private["age"].tolist() == [1.0, 0.0, (30 - 18) / (79 - 18)]  # clipped
    (reading,) = report.private_reading
    assert "2 private values too large to be a number" in reading and "in 'age'" in reading
    assert all(len(note) < SHORT for note in report.private_notes + report.private_reading)


def test_a_giant_number_in_a_public_file_is_refused_in_a_short_message():
    among = [f"{20 + i},HS-grad,40,no,South,>50K" for i in range(9)]
    for rows in ([f"{GIANT},HS-grad,40,no,South,>50K"], [*among, f"{GIANT},x,1,no,S,y"]):
        with pytest.raises(MostlyNumbersError) as info:
            read_csv_upload(csv_bytes(*rows), "e.csv")
        message = str(info.value)
        assert "holds 1 infinite value(s), e.g. '1000" in message
        assert "…' (2,000,001 characters)" in message and len(message) < SHORT
        assert "set_int_max_str_digits" not in message


def test_a_long_cell_reads_on_both_parsers():
    # A quoted field sends the file to the csv module, whose default field limit (131,072
    # characters) would refuse the file on one long private cell; pyarrow's reader would not.
    long = "x" * 200_000
    for quoted in (False, True):
        first = '"HS-grad, or more"' if quoted else "HS-grad"
        data = csv_bytes(f"30,{first},40,no,South,>50K", f"31,{long},40,no,South,>50K")
        frame = read_csv_upload(data, "d.csv", private=True)
        assert frame["education"].tolist()[1] == long
        public = read_csv_upload(csv_bytes(f"30,{long},40,no,South,>50K",
                                           f"31,{first},40,no,South,>50K"), "e.csv")
        assert len(infer_column_types(public)["example"].iloc[1]) == 41  # shortened for display


def test_a_giant_column_name_is_refused_in_a_short_message():
    name = "h" * 100_000
    data = f"age,{name}\n1,2\n3,4\n".encode()
    for private in (False, True):
        with pytest.raises(DataError) as info:
            read_csv_upload(data, "d.csv", private=private)
        message = str(info.value)
        assert "Column 2's name in the header row of 'd.csv'" in message
        assert "(100,000 characters), is longer than the 1,000 characters" in message
        assert len(message) < SHORT
    assert list(read_csv_upload(f"age,{'h' * 1000}\n1,2\n".encode(), "d.csv")) == [
        "age", "h" * 1000]  # at the limit: read


def test_a_public_text_value_too_long_to_name_an_item_is_refused(valid):
    private, _ = valid
    rows = [f"{20 + i},{['HS-grad', 'Masters', 'x' * 2_000_000][i % 3]},40,no,South,>50K"
            for i in range(6)]
    public = read_csv_upload(csv_bytes(*rows), "e.csv")
    with pytest.raises(DataError) as info:
        scenario_from_uploads(private, public)
    message = str(info.value)
    assert message.startswith("Column 'education' of the public file holds the value 'xxx")
    assert "(2,000,000 characters)" in message and "Leave the column out" in message
    assert len(message) < SHORT
    scenario, _ = scenario_from_uploads(private, public, exclude=["education"])  # as it says
    assert not any(name.startswith("education") for name in scenario.public.columns)


def test_a_public_file_with_no_value_is_refused(valid):
    private, _ = valid
    public = pd.DataFrame({"age": [np.nan] * 3, "education": [None] * 3})
    with pytest.raises(DataError, match="Every value of the public file is missing"):
        scenario_from_uploads(private, public)


def test_quote_text_cuts_a_long_value_and_says_its_length():
    assert reading.quote_text("forty") == "'forty'"
    assert reading.quote_text("x" * 41) == "'" + "x" * 40 + "…' (41 characters)"
    assert reading.quote_text(12) == "'12'"


# ------------------------------------------------------------------ fuzzing


def _check_read(data):
    try:
        frame = read_csv_upload(data, "fuzz.csv")
    except DataError as exc:
        assert str(exc)
        return
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0
    assert frame.columns.is_unique and all(isinstance(col, str) and col for col in frame.columns)


@pytest.mark.parametrize("seed", range(4))
def test_fuzz_random_bytes_raise_only_data_error(seed):
    rng = np.random.default_rng(seed)
    for size in rng.integers(0, 600, size=100):
        _check_read(rng.integers(0, 256, size=size, dtype=np.uint8).tobytes())


@pytest.mark.parametrize("seed", range(4))
def test_fuzz_csv_like_text_raises_only_data_error(seed):
    rng = np.random.default_rng(100 + seed)
    tokens = [",", ",", "\n", "\r\n", "\r", '"', ";", "\t", " ", "a", "b", "1", "2.5", "-", "e"]
    tokens += ["?", "NA", "inf", "é", '""', "x,y\n", "{", "}", "<html>", "\ufeff"]
    for size in rng.integers(1, 120, size=150):
        _check_read("".join(rng.choice(tokens, size=size)).encode())


@pytest.mark.parametrize("seed", range(4))
def test_fuzz_random_tables_raise_only_data_error(seed):
    rng = np.random.default_rng(300 + seed)
    names = ["a", "b", "c", "d", "e", "a", "", " ", "1", "x y", "é", '"q"']
    cells = ["1", "2.5", "-3", "1e5", "1e999", "inf", "-Infinity", "NA", "?", "", " ", "a"]
    cells += ["b c", '"q,u"', "é", "nan", "0x1", "True", "7", "+4", "99999999999999999999"]
    cells += ['"line\nbreak"', '" spaced"', "=1+1"]
    for _ in range(100):
        n_cols, n_rows = rng.integers(1, 6), rng.integers(0, 8)
        lines = [rng.choice(names, size=n_cols, replace=False)]
        lines += [rng.choice(cells, size=n_cols + (rng.random() < 0.05)) for _ in range(n_rows)]
        _check_read("\n".join(",".join(line) for line in lines).encode())


@pytest.mark.parametrize("seed", range(4))
def test_fuzz_mutated_valid_file_raises_only_data_error(seed):
    rng = np.random.default_rng(200 + seed)
    original = np.frombuffer((DATA / "valid_public.csv").read_bytes(), dtype=np.uint8)
    for _ in range(100):
        data = original.copy()
        where = rng.integers(0, len(data), size=rng.integers(1, 6))
        data[where] = rng.choice(np.frombuffer(b',"\n;x0\xff ', dtype=np.uint8), size=len(where))
        _check_read(data[: rng.integers(1, len(data) + 1)].tobytes())


def _random_column(rng, n):
    kind = rng.integers(0, 10)
    if kind == 0:
        return rng.normal(size=n)
    if kind == 1:
        return rng.integers(0, 3, size=n)  # 0/1/2: a 0/1 target in some frames
    if kind == 2:
        return rng.choice(["x", "y", "z"], size=n).astype(object)
    if kind == 3:
        return pd.Series([np.nan] * n, dtype="str")  # empty, as read_csv_upload gives
    if kind == 4:
        values = rng.normal(size=n)
        values[rng.random(n) < 0.3] = rng.choice([np.nan, np.inf, -np.inf])
        return values
    if kind == 5:
        return rng.choice(["1", "inf", "a", None], size=n).astype(object)
    if kind == 6:
        return np.full(n, 7.0)  # constant
    if kind == 7:
        return rng.random(n) < 0.5  # bool
    if kind == 8:
        return rng.choice([0.0, 1.0, np.nan], size=n)  # a 0/1 column with gaps
    return pd.Series(rng.choice(["p", "q", None], size=n), dtype="str")


def _random_frame(rng):
    n_rows = int(rng.choice([0, 1, 2, 3, 5, 8, 12], p=[0.04, 0.06, 0.15, 0.15, 0.2, 0.2, 0.2]))
    n_cols = int(rng.choice([0, 1, 2, 3, 4, 5], p=[0.03, 0.07, 0.2, 0.2, 0.25, 0.25]))
    names = list(rng.choice(["a", "b", "c", "d", "t", 0], size=n_cols, replace=False))
    return pd.DataFrame({name: _random_column(rng, n_rows) for name in names})


@pytest.mark.parametrize("seed", range(4))
def test_fuzz_bad_frames_give_only_data_error_from_scenario_from_uploads(seed):
    rng = np.random.default_rng(400 + seed)
    built = 0
    for _ in range(150):
        private, public = _random_frame(rng), _random_frame(rng)
        columns = list(public.columns) + ["missing"]
        target = None if rng.random() < 0.4 else columns[int(rng.integers(len(columns)))]
        positive = [None, 1, "x", 0.0, "p"][int(rng.integers(5))]
        try:
            scenario, report = scenario_from_uploads(
                private, public, target=target, positive=positive
            )
        except DataError as exc:
            assert str(exc) and "np." not in str(exc)
            continue
        built += 1
        assert len(scenario.private) == len(private)  # N_D: every private row
        assert isinstance(report, UploadReport)
    assert built > 0  # the fuzzing reaches the encoder, not only the first check


@pytest.mark.parametrize("seed", range(3))
def test_fuzz_mutated_private_frames_keep_the_domain_and_are_never_refused(seed, valid):
    # Private values of any kind in a valid pair: the encoding (d, columns) never moves, N_D
    # stays the number of private rows, and nothing is refused (types come from E).
    private, public = valid
    reference, _ = scenario_from_uploads(private, public, target="income")
    rng = np.random.default_rng(500 + seed)
    junk = [np.nan, None, np.inf, -np.inf, -1e300, 1e300, 0, 1, "x", "", "inf", ">50K", True]
    built = 0
    for _ in range(60):
        mutated = private.astype(object)
        for _ in range(int(rng.integers(1, 6))):
            row, col = int(rng.integers(len(mutated))), str(rng.choice(mutated.columns))
            mutated.loc[row, col] = junk[int(rng.integers(len(junk)))]
        if rng.random() < 0.3:
            mutated[str(rng.choice(mutated.columns))] = np.nan  # a column left empty
        mutated = mutated.infer_objects()
        scenario, _ = scenario_from_uploads(mutated, public, target="income")
        assert scenario.features == reference.features and scenario.d == reference.d
        assert len(scenario.private) == len(private)
        pd.testing.assert_frame_equal(scenario.public, reference.public)
        built += 1
    assert built == 60


def test_wrong_argument_types():
    with pytest.raises(TypeError, match="data must be bytes, got str"):
        read_csv_upload("a,b\n1,2\n", "x.csv")
    frame = pd.DataFrame({"a": [1, 2]})
    with pytest.raises(TypeError, match=r"private must be a pandas DataFrame .* got list"):
        scenario_from_uploads([1, 2], frame)
    with pytest.raises(TypeError, match=r"public must be a pandas DataFrame .* got ndarray"):
        align_columns(frame, np.zeros(2))
    with pytest.raises(TypeError, match="frame must be a pandas DataFrame, got dict"):
        split_random({"a": [1]})
    with pytest.raises(ValueError, match="public_missing must be one of .* got 'keep'"):
        scenario_from_uploads(frame, frame, public_missing="keep")


# ------------------------------------------------------------------ reading valid files


def test_read_valid_file_types_and_missing_tokens():
    frame = read_csv_upload(b"\xef\xbb\xbfa, b ,c\n1, x,?\n2.5,y,NA\n\n3,x ,7\n", "bom.csv")
    assert list(frame.columns) == ["a", "b", "c"]
    assert frame["a"].tolist() == [1.0, 2.5, 3.0] and frame["b"].tolist() == ["x", "y", "x"]
    assert frame["c"].isna().tolist() == [True, True, False]
    quoted = read_csv_upload(b'city,n\n"Paris, France",1\n"New\nYork",2\n', "q.csv")
    assert quoted["city"].tolist() == ["Paris, France", "New\nYork"]
    spaced = read_csv_upload(b'city,n\n "Paris, France",+1\n,\nRome,  2\n', "s.csv")
    assert spaced["city"].tolist() == ["Paris, France", "Rome"] and spaced["n"].tolist() == [1, 2]


def test_fast_and_careful_parsers_agree():
    # The same table with and without an irregular quote (which sends it to the csv module).
    plain = b"a,b,c\n1,x,2.5\n-3,y,\n4,x z,1e3\n,,\n"
    fast = read_csv_upload(plain, "fast.csv")
    careful = read_csv_upload(plain.replace(b"x z", b'x z"'), "careful.csv")
    assert careful["b"].tolist()[2] == 'x z"'
    pd.testing.assert_frame_equal(fast.drop(columns="b"), careful.drop(columns="b"))
    assert fast.dtypes.astype(str).tolist() == ["int64", "str", "float64"]


def test_infer_column_types(valid):
    _, public = valid
    table = infer_column_types(read("constant_column.csv")).set_index("column")
    assert table["type"].to_dict() == {
        "age": "numeric",
        "education": "categorical",
        "hours": "numeric",
        "married": "constant",
        "region": "categorical",
        "income": "binary",
    }
    missing = infer_column_types(read("missing_values.csv")).set_index("column")["missing"]
    assert missing.to_dict() == {
        "age": 2,
        "education": 0,
        "hours": 0,
        "married": 0,
        "region": 1,
        "income": 0,
    }
    assert infer_column_types(public)["distinct"].iloc[1] == 5
    empty = pd.DataFrame({"e": pd.Series([np.nan, np.nan], dtype="str")})
    assert infer_column_types(empty)["type"].tolist() == ["empty"]


# ------------------------------------------------------------------ aligning and building


def test_valid_pair_builds_a_scenario(valid):
    private, public = valid
    scenario, report = scenario_from_uploads(private, public, target="income", positive=">50K")
    assert scenario.target == "income=>50K" and scenario.d == 13  # 15 encoded, target's 2 out
    assert scenario.groups["income"] == ["income=<=50K", "income=>50K"]
    assert list(scenario.private.columns) == list(scenario.public.columns)
    for frame in (scenario.public, scenario.private):
        assert frame.to_numpy().min() >= 0.0 and frame.to_numpy().max() <= 1.0
    assert scenario.public["age"].min() == 0.0 and scenario.public["age"].max() == 1.0
    assert scenario.bounds == {"age": (18.0, 79.0), "hours": (10.0, 68.0)}  # E's ranges
    assert scenario.categories["income"] == ["<=50K", ">50K"]
    assert scenario.private["income=>50K"].mean() == pytest.approx(25 / 40)
    assert len(scenario.private) == 40 and len(scenario.public) == 40
    assert "record_id" not in scenario.raw_private.columns
    assert any("'record_id' (only in the private file)" in note for note in report.notes)
    row = report.columns.set_index("column").loc["income"]
    assert "target 'income=>50K'" in row["encoding"]
    assert row["missing in D (non-private)"] == 0
    assert report.private_notes == ()
    assert "licence" in scenario.description


def test_arguments_are_private_then_public(valid):
    private, public = valid
    scenario, _ = scenario_from_uploads(private.assign(age=private["age"] + 100), public)
    assert (scenario.private["age"] == 1.0).all()  # clipped to E's range: E is the 2nd argument
    assert scenario.public["age"].min() == 0.0 and scenario.public["age"].max() == 1.0


def test_default_positive_is_the_rarest_public_class(valid):
    scenario, _ = scenario_from_uploads(*valid, target="income")
    assert scenario.target == "income=>50K"  # 14 of 40 public rows
    scenario, report = scenario_from_uploads(*valid, target="region")
    assert scenario.target.startswith("region=")
    assert any("4 classes in the public file" in n and "against all" in n for n in report.notes)


def test_zero_one_target_stays_one_column(valid):
    private, public = (frame.assign(y=(frame["income"] == ">50K").astype(int)) for frame in valid)
    private, public = private.drop(columns="income"), public.drop(columns="income")
    scenario, _ = scenario_from_uploads(private, public, target="y")
    assert scenario.target == "y" and scenario.groups["y"] == ["y"]
    assert scenario.kinds["y"] == "binary"
    with pytest.raises(DataError, match="is a 0/1 column; its positive class is 1, not 0"):
        scenario_from_uploads(private, public, target="y", positive=0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"target": "salary"}, "not a column of both files; choose one of 'age'"),
        (
            {"target": "income", "positive": "rich"},
            "'rich' is not a class of target 'income' in the public file; choose one of "
            "'<=50K', '>50K'",
        ),
        ({"target": "age"}, "more than the 20 classes"),
        ({"max_features": 10}, "15 columns, over the limit of 10"),
    ],
)
def test_target_and_width_errors(valid, kwargs, match):
    with pytest.raises(DataError, match=match):
        scenario_from_uploads(*valid, **kwargs)


def test_numeric_classes_are_shown_as_plain_numbers(valid):
    private, public = valid
    public = public.assign(grade=np.resize([1.0, 2.0, 3.0], len(public)))
    private = private.assign(grade=np.resize([1.0, 4.0], len(private)))
    with pytest.raises(DataError, match=r"5 is not a class .* choose one of 1, 2, 3\.$") as info:
        scenario_from_uploads(private, public, target="grade", positive=np.float64(5.0))
    assert "np.float64" not in str(info.value)
    scenario, report = scenario_from_uploads(private, public, target="grade", positive=2)
    assert scenario.target == "grade=2"
    assert any(
        "target 'grade'" in n and "not the positive class 2" in n for n in report.private_notes
    )


def test_constant_column_is_dropped_and_reported(valid):
    scenario, report = scenario_from_uploads(valid[0], read("constant_column.csv"))
    assert "married" not in scenario.groups
    assert any("constant column 'married'" in note and "'yes'" in note for note in report.notes)
    encoding = report.columns.set_index("column").loc["married", "encoding"]
    assert encoding == "dropped: constant in the public file"


def test_empty_and_useless_columns(valid):
    private, public = valid
    scenario, report = scenario_from_uploads(private.assign(note="x"), public.assign(note=np.nan))
    assert "note" not in scenario.groups
    assert any("Dropped 'note': no values at all in the public file" in n for n in report.notes)
    # Empty in the private file only: kept (the public file decides), every value imputed.
    scenario, report = scenario_from_uploads(private.assign(hours=np.nan), public)
    assert scenario.kinds["hours"] == "scaled" and len(scenario.private) == 40
    assert any("'hours': 40 missing private value(s)" in n for n in report.private_notes)
    with pytest.raises(DataError, match="No usable feature column"):
        scenario_from_uploads(private[["income"]], public[["income"]], target="income")
    with pytest.raises(DataError, match="Target 'income' has no values in the public file"):
        scenario_from_uploads(private, public.assign(income=np.nan), target="income")
    with pytest.raises(DataError, match="The private file has no rows"):
        scenario_from_uploads(private.iloc[:0], public)
    with pytest.raises(DataError, match="public file has duplicate column names: 'age'"):
        scenario_from_uploads(private, pd.concat([public, public[["age"]]], axis=1))


def test_align_columns_keeps_shared_columns_in_public_order():
    public = pd.DataFrame({"b": [1, 2], "a": ["x", "y"], "only_public": [0, 1]})
    private = pd.DataFrame({"a": ["y", "z"], "b": [3, 4], "only_private": [5, 6]})
    priv, pub, notes = align_columns(private, public)
    assert list(pub.columns) == list(priv.columns) == ["b", "a"]
    assert priv["b"].tolist() == [3, 4] and pub["b"].tolist() == [1, 2]  # (private, public)
    assert len(notes) == 2 and "'only_public'" in notes[0] and "'only_private'" in notes[1]
    with pytest.raises(DataError, match="The public data has no columns") as info:
        align_columns(private, public.iloc[:, :0])
    assert "(public: ; private: " not in str(info.value)


# ------------------------------------------------------------------ one file split by a rule


def test_split_by_value_like_ji_and_elkan():
    frame = read("valid_single.csv")
    assert (frame["sex"] == "Male").sum() == 45
    private, public = split_by_value(frame, "sex", "Male", p=0.9, rng=0)
    assert len(private) == 41 + 4  # 0.9 * 45 = 40.5 and 0.1 * 35 = 3.5, rounded half up
    assert len(public) + len(private) == len(frame) and "sex" not in public.columns
    again, _ = split_by_value(frame, "sex", "Male", p=0.9, rng=0)
    pd.testing.assert_frame_equal(private, again)
    kept, _ = split_by_value(frame, "sex", "Male", p=1.0, p_other=0.0, drop=False, rng=0)
    assert (kept["sex"] == "Male").all() and len(kept) == 45  # private = the chosen group
    scenario, _ = scenario_from_uploads(private, public, target="income", positive=">50K")
    assert scenario.target == "income=>50K" and scenario.d == 13  # 15 encoded, target's 2 out
    assert len(scenario.private) == 45


def test_split_random():
    frame = read("valid_single.csv")
    private, public = split_random(frame, 0.25, rng=1)
    assert len(private) == 20 and len(public) == 60
    assert not public.index.duplicated().any()


def test_split_columns_offers_columns_with_few_values():
    frame = read("valid_single.csv")
    assert split_columns(frame) == ["sex", "education", "married", "region", "income"]
    assert split_columns(frame, max_values=2) == ["sex", "married", "income"]
    assert split_columns(frame[["sex"]]) == []  # splitting by the only column leaves nothing
    assert split_columns(frame[["sex"]], drop=False) == ["sex"]
    with pytest.raises(ValueError, match="max_values == 1, must be >= 2"):
        split_columns(frame, max_values=1)
    with pytest.raises(TypeError, match="max_values must be an int, got float"):
        split_columns(frame, max_values=2.5)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda f: split_by_value(f, "gender", "Male"), DataError, "no column 'gender'"),
        (lambda f: split_by_value(f, "sex", "male"), DataError, "No row has sex == 'male'"),
        (
            lambda f: split_by_value(f, "age", np.float64(0.0)),
            DataError,
            r"No row has age == 0\. Choose one of its values, e\.g\. 70, 34,",
        ),
        (
            lambda f: split_by_value(f[["sex"]], "sex", "Male"),
            DataError,
            "Splitting by 'sex', the only column of the file, leaves nothing",
        ),
        (lambda f: split_by_value(f, "sex", "Male", p=1.5), ValueError, "p == 1.5"),
        (
            lambda f: split_by_value(f, "sex", "Male", p=0.0, p_other=0.0),
            DataError,
            "private part empty",
        ),
        (lambda f: split_random(f, 0.0), ValueError, "private_fraction == 0"),
        (lambda f: split_random(f, 1.0), DataError, "public part empty"),
    ],
)
def test_split_errors(call, error, match):
    with pytest.raises(error, match=match):
        call(read("valid_single.csv"))


def test_a_column_of_numbers_with_a_few_words_is_refused_or_read_with_them_missing():
    """Issue 24: a public column of numbers with a stray word is refused with the column's name
    (the app offers to read those cells as missing); ``as_missing`` reads them so, in a file
    and in the public part of a split file."""
    data = b"age,city\n41,a\n30,b\nforty,c\n22,d\n33,e\n1e999,f\n"
    with pytest.raises(MostlyNumbersError, match="holds numbers except for 1 cell") as caught:
        read_csv_upload(data, "p.csv")
    assert caught.value.column == "age" and isinstance(caught.value, DataError)
    again = pickle.loads(pickle.dumps(caught.value))  # crosses processes intact
    assert (again.column, str(again)) == ("age", str(caught.value))
    frame = read_csv_upload(data, "p.csv", as_missing=["age"])
    assert frame["age"].dtype == float  # the word and the overflowing 1e999 are missing
    assert frame["age"].dropna().tolist() == [41.0, 30.0, 22.0, 33.0]
    assert frame["age"].isna().tolist() == [False, False, True, False, False, True]
    with pytest.raises(MostlyNumbersError):  # the choice is per column
        read_csv_upload(data, "p.csv", as_missing=["city"])
    part = pd.DataFrame({"age": ["1", "2", "x", "4", "5"], "city": list("abcde")})
    with pytest.raises(MostlyNumbersError):
        type_columns(part)
    typed = type_columns(part, as_missing={"age"})
    assert typed["age"].isna().sum() == 1 and typed["age"].sum() == 12
    # a mostly-text column stays text, whatever the choice
    words = pd.DataFrame({"city": ["a", "b", "1", "c", "d"]})
    assert type_columns(words, as_missing={"city"})["city"].tolist() == ["a", "b", "1", "c", "d"]


def test_the_description_counts_usable_columns_in_words():
    private, public = read("bad/negative_in_unit_domain.csv"), read("unit_domain_public.csv")
    scenario, _ = scenario_from_uploads(private, public)
    assert "sharing 3 usable columns." in scenario.description
    one, _ = scenario_from_uploads(private[["share"]], public[["share"]])
    assert "sharing 1 usable column." in one.description


def test_a_model_page_says_where_to_set_a_missing_target(valid):
    from dpcore.perturbation.experiments import scenario_arrays

    scenario, _ = scenario_from_uploads(*valid)  # no target chosen
    with pytest.raises(DataError, match=r"sidebar's 'Target \(column to predict\)'"):
        scenario_arrays(scenario)
