"""Uploads: every bad file in tests/data gets a DataError that names the problem; fuzzing."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpcore import DataError
from dpcore.datasets import (
    MAX_FEATURES,
    align_columns,
    infer_column_types,
    read_csv_upload,
    scenario_from_uploads,
    split_by_value,
    split_random,
)

DATA = Path(__file__).parent / "data"


def read(name, **kwargs):
    return read_csv_upload((DATA / name).read_bytes(), name, **kwargs)


@pytest.fixture(scope="module")
def valid():
    return read("valid_public.csv"), read("valid_private.csv")


# ------------------------------------------------------------------ the bad-input corpus

READ_ERRORS = [
    ("empty.csv", {}, ["is empty", "header row"]),
    ("blank_lines.csv", {}, ["is empty"]),
    ("binary.csv", {}, ["binary data", "not a CSV", "Save the table as CSV"]),
    ("excel_disguised.csv", {}, ["Excel workbook", "not a CSV file", "Save the table as CSV"]),
    ("utf16.csv", {}, ["UTF-16", "Re-save it as 'CSV UTF-8'"]),
    ("latin1.csv", {}, ["not UTF-8", "0xFC on line 2", "Re-save it as 'CSV UTF-8'"]),
    ("semicolon.csv", {}, ["semicolons", "not commas", "commas as the separator"]),
    ("tab_separated.csv", {}, ["tabs", "not commas", "commas as the separator"]),
    ("duplicate_headers.csv", {}, ["duplicate column names", "'age' (columns 1, 4)", "Rename"]),
    ("blank_header.csv", {}, ["Column 2", "has no name", "Give every column a name"]),
    ("no_header.csv", {}, ["no header row", "Add a first row"]),
    ("header_only.csv", {}, ["header row but no data rows", "Add the records"]),
    ("ragged_rows.csv", {}, ["Line 3", "4 values but the header has 3 columns", "quotes"]),
    ("unclosed_quote.csv", {}, ["quote is never closed", "line 2"]),
    ("text_in_numeric.csv", {}, ["Column 'age'", "'forty' on line 8", "Correct those cells"]),
    ("oversized.csv", {"max_bytes": 512}, ["over the upload limit of 512 bytes", "smaller file"]),
]


@pytest.mark.parametrize(
    ("file", "kwargs", "phrases"), READ_ERRORS, ids=[c[0] for c in READ_ERRORS]
)
def test_bad_file_gets_a_data_error_naming_the_problem(file, kwargs, phrases):
    with pytest.raises(DataError) as info:
        read(file, **kwargs)
    message = str(info.value)
    assert file in message or "Line" in message
    for phrase in phrases:
        assert phrase in message


BUILD_ERRORS = [
    (
        "missing_values.csv",
        "valid_private.csv",
        {},
        ["Missing values in 2 column(s)", "'age' (2 public, 0 private rows)", "Drop the rows"],
    ),
    (
        "no_shared_columns.csv",
        "valid_private.csv",
        {},
        ["share no column names", "differ only in case: 'Age' / 'age'", "same name"],
    ),
    (
        "valid_public.csv",
        "type_mismatch.csv",
        {},
        ["'age' is numeric in the public file but text in the private file", "same type"],
    ),
    (
        "valid_public.csv",
        "single_class_private.csv",
        {"target": "income"},
        ["single class in the private file", "income = '<=50K'", "both classes"],
    ),
    (
        "too_many_columns.csv",
        "too_many_columns.csv",
        {},
        ["415 columns", f"limit of {MAX_FEATURES}", "'customer_id' (400 columns)", "ID-like"],
    ),
]


@pytest.mark.parametrize(
    ("public", "private", "kwargs", "phrases"), BUILD_ERRORS, ids=[c[0] for c in BUILD_ERRORS]
)
def test_bad_pair_gets_a_data_error_naming_the_problem(public, private, kwargs, phrases):
    with pytest.raises(DataError) as info:
        scenario_from_uploads(read(public), read(private), **kwargs)
    for phrase in phrases:
        assert phrase in str(info.value)


def test_corpus_is_covered():
    tested = {c[0] for c in READ_ERRORS} | {c[i] for c in BUILD_ERRORS for i in (0, 1)}
    files = {path.name for path in DATA.glob("*.csv")}
    assert files - tested == {"valid_single.csv", "constant_column.csv"}


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
    tokens = [",", ",", "\n", "\r\n", '"', ";", "\t", " ", "a", "b", "1", "2.5", "-", "e", "?"]
    tokens += ["NA", "inf", "é", '""', "x,y\n"]
    for size in rng.integers(1, 120, size=150):
        _check_read("".join(rng.choice(tokens, size=size)).encode())


@pytest.mark.parametrize("seed", range(4))
def test_fuzz_random_tables_raise_only_data_error(seed):
    rng = np.random.default_rng(300 + seed)
    names = ["a", "b", "c", "d", "e", "a", "", " ", "1", "x y", "é"]
    cells = ["1", "2.5", "-3", "1e5", "1e999", "inf", "NA", "?", "", " ", "a", "b c", '"q,u"']
    cells += ["é", "nan", "0x1", "True", "7"]
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


def test_non_bytes_is_a_type_error():
    with pytest.raises(TypeError, match="bytes"):
        read_csv_upload("a,b\n1,2\n", "x.csv")


# ------------------------------------------------------------------ reading valid files


def test_read_valid_file_types_and_missing_tokens():
    frame = read_csv_upload(b"\xef\xbb\xbfa, b ,c\n1, x,?\n2.5,y,NA\n\n3,x ,7\n", "bom.csv")
    assert list(frame.columns) == ["a", "b", "c"]
    assert frame["a"].tolist() == [1.0, 2.5, 3.0] and frame["b"].tolist() == ["x", "y", "x"]
    assert frame["c"].isna().tolist() == [True, True, False]
    quoted = read_csv_upload(b'city,n\n"Paris, France",1\n"New\nYork",2\n', "q.csv")
    assert quoted["city"].tolist() == ["Paris, France", "New\nYork"]


def test_infer_column_types(valid):
    public, _ = valid
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
    public, private = valid
    scenario, report = scenario_from_uploads(public, private, target="income", positive=">50K")
    assert scenario.target == "income=>50K" and scenario.d == 15
    assert scenario.groups["income"] == ["income=<=50K", "income=>50K"]
    assert list(scenario.private.columns) == list(scenario.public.columns)
    for frame in (scenario.public, scenario.private):
        assert frame.to_numpy().min() >= 0.0 and frame.to_numpy().max() <= 1.0
    assert scenario.public["age"].min() == 0.0 and scenario.public["age"].max() == 1.0
    assert scenario.private["income=>50K"].mean() == pytest.approx(25 / 40)
    assert "record_id" not in scenario.raw_private.columns
    assert any("'record_id' (only in the private file)" in note for note in report.notes)
    row = report.columns.set_index("column").loc["income"]
    assert "target 'income=>50K'" in row["encoding"]
    assert "licence" in scenario.description


def test_default_positive_is_the_rarest_public_class(valid):
    public, private = valid
    scenario, _ = scenario_from_uploads(public, private, target="income")
    assert scenario.target == "income=>50K"  # 14 of 40 public rows
    scenario, report = scenario_from_uploads(public, private, target="region")
    assert scenario.target.startswith("region=")
    assert any("classes" in note and "against all the others" in note for note in report.notes)


def test_zero_one_target_stays_one_column(valid):
    public, private = (frame.assign(y=(frame["income"] == ">50K").astype(int)) for frame in valid)
    public, private = public.drop(columns="income"), private.drop(columns="income")
    scenario, _ = scenario_from_uploads(public, private, target="y")
    assert (
        scenario.target == "y" and scenario.groups["y"] == ["y"] and scenario.kinds["y"] == "binary"
    )
    with pytest.raises(DataError, match="positive class is 1"):
        scenario_from_uploads(public, private, target="y", positive=0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"target": "salary"}, "not a column of both files; choose one of 'age'"),
        ({"target": "income", "positive": "rich"}, "'rich' is not a class of target 'income'"),
        ({"target": "age"}, "more than the 20 classes"),
        ({"max_features": 10}, "15 columns, over the limit of 10"),
    ],
)
def test_target_and_width_errors(valid, kwargs, match):
    with pytest.raises(DataError, match=match):
        scenario_from_uploads(*valid, **kwargs)


def test_constant_column_is_dropped_and_reported(valid):
    scenario, report = scenario_from_uploads(read("constant_column.csv"), valid[1], target="income")
    assert "married" not in scenario.groups
    assert any("constant column 'married'" in note for note in report.notes)
    assert report.columns.set_index("column").loc["married", "encoding"] == "dropped: constant"


def test_drop_missing_drops_rows_and_says_so(valid):
    scenario, report = scenario_from_uploads(
        read("missing_values.csv"), valid[1], target="income", drop_missing=True
    )
    assert len(scenario.public) == 37
    assert "Dropped 3 of 40 public rows with missing values." in report.notes


def test_missing_everywhere_leaves_nothing(valid):
    public = valid[0].astype({"age": float})
    public.loc[::2, "age"] = np.nan
    public.loc[1::2, "region"] = np.nan
    with pytest.raises(DataError, match="Every row of the public file has a missing value"):
        scenario_from_uploads(public, valid[1], drop_missing=True)


def test_private_values_outside_the_public_encoding_are_reported(valid):
    public, private = valid
    private = private.assign(age=private["age"] + 30, region="Atlantis")
    scenario, report = scenario_from_uploads(public, private, target="income")
    assert scenario.private["age"].max() == 1.0
    assert any("outside the public range [18, 79] were truncated" in note for note in report.notes)
    assert (scenario.private[scenario.groups["region"]].sum(axis=1) == 0).all()
    assert any("encoded as all-zero items" in note for note in report.notes)


def test_empty_and_useless_columns(valid):
    public, private = valid
    scenario, report = scenario_from_uploads(public.assign(note=np.nan), private.assign(note="x"))
    assert "note" not in scenario.groups and any("'note'" in note for note in report.notes)
    with pytest.raises(DataError, match="No usable feature column"):
        scenario_from_uploads(public[["income"]], private[["income"]], target="income")


def test_align_columns_keeps_shared_columns_in_public_order():
    public = pd.DataFrame({"b": [1, 2], "a": ["x", "y"], "only_public": [0, 1]})
    private = pd.DataFrame({"a": ["y", "z"], "b": [3, 4], "only_private": [5, 6]})
    pub, priv, notes = align_columns(public, private)
    assert list(pub.columns) == list(priv.columns) == ["b", "a"]
    assert len(notes) == 2 and "'only_public'" in notes[0] and "'only_private'" in notes[1]


# ------------------------------------------------------------------ one file split by a rule


def test_split_by_value_like_ji_and_elkan():
    frame = read("valid_single.csv")
    assert (frame["sex"] == "Male").sum() == 45
    public, private = split_by_value(frame, "sex", "Male", p=0.9, rng=0)
    assert len(private) == 41 + 4  # 0.9 * 45 = 40.5 and 0.1 * 35 = 3.5, rounded half up
    assert len(public) + len(private) == len(frame) and "sex" not in public.columns
    again, _ = split_by_value(frame, "sex", "Male", p=0.9, rng=0)
    pd.testing.assert_frame_equal(public, again)
    kept, _ = split_by_value(frame, "sex", "Male", p=1.0, p_other=0.0, drop=False, rng=0)
    assert (kept["sex"] == "Female").all()
    scenario, _ = scenario_from_uploads(public, private, target="income", positive=">50K")
    assert scenario.target == "income=>50K" and scenario.d == 15


def test_split_random():
    frame = read("valid_single.csv")
    public, private = split_random(frame, 0.25, rng=1)
    assert len(private) == 20 and len(public) == 60
    assert not public.index.duplicated().any()


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda f: split_by_value(f, "gender", "Male"), DataError, "no column 'gender'"),
        (lambda f: split_by_value(f, "sex", "male"), DataError, "No row has sex == 'male'"),
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
