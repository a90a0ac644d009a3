"""Neighbouring private uploads give the same encoded domain: d, columns and N_D (issue 7, sect. 1;
issue 21, sect. 5).

Replace-one neighbours: a private file and the same file with one row replaced by a row that has
a target class the public file lacks, a missing value, a value outside the public range, a text
value the public file lacks, a word or an infinity in a numeric column, a number in a text
column, only blank cells, or that leaves a column empty or the target with a single class.
Everything that shapes a release must be identical for the two (the mechanisms' sensitivity is
computed on that domain), both must be accepted (whether an upload is refused is an output
too), and the two encodings must differ in the replaced row only. The private file is read as
the app reads it, with ``read_csv_upload(..., private=True)``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpcore.datasets import read_csv_upload, scenario_from_uploads

DATA = Path(__file__).parent / "data"
ROW = 5  # the replaced private row (0-based data row; file line ROW + 2)


def lines(name: str) -> list[str]:
    return (DATA / name).read_text().splitlines()


def read_private(private_lines: list[str]):
    return read_csv_upload(("\n".join(private_lines) + "\n").encode(), "p.csv", private=True)


def build(private_lines: list[str], **kwargs):
    """Read both files as bytes, like the app, and encode them."""
    private = read_private(private_lines)
    public = read_csv_upload((DATA / "valid_public.csv").read_bytes(), "valid_public.csv")
    return scenario_from_uploads(private, public, **kwargs)


def replace(private_lines: list[str], column: str, value: str, row: int = ROW) -> list[str]:
    header = private_lines[0].split(",")
    cells = private_lines[row + 1].split(",")
    cells[header.index(column)] = value
    return [*private_lines[: row + 1], ",".join(cells), *private_lines[row + 2 :]]


def blank_column_except(private_lines: list[str], column: str, keep: int) -> list[str]:
    out = private_lines
    for row in range(len(private_lines) - 1):
        if row != keep:
            out = replace(out, column, "", row)
    return out


def assert_same_domain(a, b, changed_rows: set[int]) -> None:
    (sa, ra), (sb, rb) = a, b
    assert sa.d == sb.d
    assert sa.features == sb.features
    assert sa.groups == sb.groups and sa.kinds == sb.kinds and sa.target == sb.target
    assert sa.bounds == sb.bounds and sa.categories == sb.categories
    assert len(sa.private) == len(sb.private)  # N_D: no private row dropped
    pd.testing.assert_frame_equal(sa.public, sb.public)  # E's encoding does not depend on D
    assert list(ra.columns["column"]) == list(rb.columns["column"])
    assert list(ra.columns["encoding"]) == list(rb.columns["encoding"])
    assert ra.notes == rb.notes  # public facts only
    differ = ~np.isclose(sa.private.to_numpy(), sb.private.to_numpy()).all(axis=1)
    assert set(np.flatnonzero(differ)) <= changed_rows
    for frame in (sa.private, sb.private):
        values = frame.to_numpy()
        assert values.min() >= 0.0 and values.max() <= 1.0


BASE = lines("valid_private.csv")
PUBLIC = read_csv_upload((DATA / "valid_public.csv").read_bytes(), "valid_public.csv")

NEIGHBOURS = {
    "new target class": ("income", "unknown"),
    "missing target": ("income", ""),
    "missing number": ("age", ""),
    "missing text": ("region", "NA"),
    "number above the public range": ("age", "500"),
    "number below the public range": ("hours", "-5"),
    "new category": ("region", "Atlantis"),
    "word in a number column": ("age", "forty"),
    "infinity in a number column": ("hours", "-inf"),
    "number in a text column": ("region", "7"),
    "number as a text target's class": ("income", "50000"),
}


@pytest.mark.parametrize("target", [None, "income", "region"])
@pytest.mark.parametrize("case", list(NEIGHBOURS))
def test_replace_one_keeps_the_domain(case, target):
    column, value = NEIGHBOURS[case]
    kwargs = {"target": target}
    original = build(BASE, **kwargs)
    neighbour = build(replace(BASE, column, value), **kwargs)
    assert len(original[0].private) == len(BASE) - 1  # every uploaded row
    assert_same_domain(original, neighbour, {ROW})
    assert neighbour[1].private_notes  # the owner is told, labelled non-private
    assert all(note.startswith("Non-private") for note in neighbour[1].private_notes)


@pytest.mark.parametrize("target", [None, "income"])
def test_a_record_of_blank_cells_is_a_record(target):
    blank = [*BASE[: ROW + 1], "," * (len(BASE[0].split(",")) - 1), *BASE[ROW + 2 :]]
    assert len(read_private(blank)) == len(BASE) - 1  # not dropped as a blank line
    original, neighbour = build(BASE, target=target), build(blank, target=target)
    assert_same_domain(original, neighbour, {ROW})
    assert neighbour[0].raw_private.loc[ROW, "age"] == PUBLIC["age"].median()


def test_single_class_and_two_class_private_targets_are_both_accepted_alike():
    # Every private income <=50K but row ROW; its neighbour flips that label: one class left.
    two = [BASE[0]] + [row.replace(">50K", "<=50K") for row in BASE[1:]]
    two = replace(two, "income", ">50K")
    one = replace(two, "income", "<=50K")
    assert read_private(one)["income"].nunique() == 1
    for positive in (None, ">50K", "<=50K"):
        pair = build(two, target="income", positive=positive)
        single = build(one, target="income", positive=positive)
        assert_same_domain(pair, single, {ROW})
        assert single[0].categories["income"] == ["<=50K", ">50K"]  # the public classes
        assert any("single class of the target" in n for n in single[1].private_notes)


def test_a_word_in_a_number_column_is_imputed_by_the_public_rule_and_counted():
    scenario, report = build(replace(BASE, "age", "forty"), target="income")
    assert scenario.raw_private.loc[ROW, "age"] == PUBLIC["age"].median()
    (note,) = [n for n in report.private_notes if "'age'" in n]
    assert note.startswith("Non-private")
    assert "1 private value(s) that are not numbers" in note and "public median" in note
    column = report.columns.set_index("column").loc["age"]
    assert column["missing in D (non-private)"] == 1
    scenario, _ = build(replace(BASE, "hours", "inf"))
    assert scenario.private.loc[ROW, "hours"] == 1.0  # a number above the public range


def test_replaced_row_is_mapped_by_the_fixed_rules():
    scenario, _ = build(replace(BASE, "income", "unknown"), target="income", positive=">50K")
    assert scenario.private.loc[ROW, scenario.groups["income"]].tolist() == [0.0, 0.0]
    scenario, _ = build(replace(BASE, "age", "500"))
    assert scenario.private.loc[ROW, "age"] == 1.0  # clipped to the public maximum 79
    scenario, _ = build(replace(BASE, "hours", "-5"))
    assert scenario.private.loc[ROW, "hours"] == 0.0  # clipped to the public minimum 10
    scenario, _ = build(replace(BASE, "age", ""))
    low, high, median = PUBLIC["age"].min(), PUBLIC["age"].max(), PUBLIC["age"].median()
    assert scenario.private.loc[ROW, "age"] == pytest.approx((median - low) / (high - low))
    assert scenario.raw_private.loc[ROW, "age"] == median
    scenario, _ = build(replace(BASE, "region", "Atlantis"))
    assert scenario.private.loc[ROW, scenario.groups["region"]].sum() == 0.0


def test_a_column_left_empty_in_the_private_file_is_kept():
    # D has one value of 'hours' (row ROW); its neighbour replaces that row by one without it,
    # so 'hours' is empty in the neighbour: read as an empty text column, still encoded.
    one_value = blank_column_except(BASE, "hours", keep=ROW)
    empty = replace(one_value, "hours", "")
    original, neighbour = build(one_value, target="income"), build(empty, target="income")
    assert neighbour[0].kinds["hours"] == "scaled"
    assert_same_domain(original, neighbour, {ROW})
    median = PUBLIC["hours"].median()
    assert (neighbour[0].raw_private["hours"] == median).all()


def test_zero_one_target_with_an_unseen_value():
    def with_y(frame_lines: list[str]) -> list[str]:
        header, *rows = frame_lines
        out = [header.replace("income", "y")]
        out += [row.replace(">50K", "1").replace("<=50K", "0") for row in rows]
        return out

    public = PUBLIC.assign(y=(PUBLIC["income"] == ">50K").astype(int)).drop(columns="income")
    base = with_y(BASE)
    for value in ("2", "", "-1", "yes", "inf"):
        pair = []
        for private_lines in (base, replace(base, "y", value)):
            pair.append(scenario_from_uploads(read_private(private_lines), public, target="y"))
        assert_same_domain(*pair, {ROW})
        assert pair[1][0].private.loc[ROW, "y"] == 0.0  # not the positive class
        assert pair[1][0].kinds["y"] == "binary"


def test_missing_values_everywhere_drop_no_private_row():
    rng = np.random.default_rng(0)
    holes = BASE
    for row in rng.choice(len(BASE) - 1, size=15, replace=False):
        holes = replace(holes, str(rng.choice(["age", "region", "income"])), "", int(row))
    scenario, report = build(holes, target="income")
    assert len(scenario.private) == len(BASE) - 1
    assert not scenario.private.isna().any().any()
    assert sum("missing" in note for note in report.private_notes) >= 2
