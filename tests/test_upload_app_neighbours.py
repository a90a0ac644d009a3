"""AppTest: neighbouring private uploads behave alike in the app (issue 21, sections 3 and 5).

Whether the app accepts an upload, and what it builds (columns, d, N_D, the target's classes),
is itself an output: two private files that differ in one record must both be accepted with the
same domain. Each test uploads a private file and its neighbour through the sidebar, as a user
does, and compares what the app made of them. The uploaded scenario's file list names the
private file but carries no digest of it.
"""

from __future__ import annotations

import hashlib
import json
from functools import partial

import app_support
import pytest
from app_support import DATA, assert_clean
from streamlit.testing.v1 import AppTest

from dpcore.datasets import split_by_value
from dpcore.datasets.reading import read_csv_upload
from dpcore.runs.scenarios import BY_VALUE
from dpcore.studies.home import D
from dpcore.text import md
from ui.sidebar import UPLOAD_SEED

TIMEOUT = 60
SMALL = "wine"  # a fast built-in scenario to start from
ROW = 5  # the replaced private record (0-based data row)

start = partial(app_support.start, timeout=TIMEOUT)
PUBLIC = (DATA / "valid_public.csv").read_bytes()
BASE = (DATA / "valid_private.csv").read_text().splitlines()


def replace(lines: list[str], column: str, value: str, row: int = ROW) -> list[str]:
    header = lines[0].split(",")
    cells = lines[row + 1].split(",")
    cells[header.index(column)] = value
    return [*lines[: row + 1], ",".join(cells), *lines[row + 2 :]]


def as_bytes(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def upload_private(private: bytes, target: str | None = "income") -> AppTest:
    """Upload valid_public.csv and ``private`` in two-file mode, with ``target`` chosen."""
    at = start(builtin_name=SMALL, source="Upload", upload_target=target)
    at.file_uploader(key="upload_public").set_value(("public.csv", PUBLIC, "text/csv"))
    at.file_uploader(key="upload_private").set_value(("private.csv", private, "text/csv"))
    at.run()
    assert_clean(at)
    return at


def domain(at: AppTest) -> dict:
    """What the app built: everything that must not depend on one private record."""
    scenario = at.session_state["scenario"]
    summary = next(df.value for df in at.main.dataframe if "records" in df.value.columns)
    return {
        "features": scenario.features,
        "d": scenario.d,
        "n_private": len(scenario.private),
        "summary d": summary[D].tolist(),
        "summary records": summary["records"].tolist(),
        "target": scenario.target,
        "categories": scenario.categories,
        "bounds": scenario.bounds,
        "public": scenario.public.to_numpy().tolist(),
    }


def owner_notes(at: AppTest) -> str:
    """The main area's Markdown, where the home page lists the owner's non-private notes."""
    return " ".join(m.value for m in at.main.markdown)


@pytest.mark.parametrize(
    "column, value",
    [("age", "forty"), ("hours", "inf"), ("age", "1e999"), ("region", "7")],
    ids=["word-in-a-number-column", "infinity", "overflow", "number-in-a-text-column"],
)
def test_a_private_cell_of_the_wrong_type_refuses_nothing(column: str, value: str):
    original = upload_private(as_bytes(BASE))
    neighbour = upload_private(as_bytes(replace(BASE, column, value)))
    assert domain(original) == domain(neighbour)
    assert domain(neighbour)["n_private"] == len(BASE) - 1
    if value == "forty":  # the owner is told, labelled non-private
        assert md("1 private value(s) that are not numbers") in owner_notes(neighbour)


def test_a_private_target_with_a_single_class_and_its_neighbour_behave_alike():
    two = [BASE[0]] + [row.replace(">50K", "<=50K") for row in BASE[1:]]
    two = replace(two, "income", ">50K")  # one row of the positive class
    one = replace(two, "income", "<=50K")  # its neighbour: a single class
    pair, single = upload_private(as_bytes(two)), upload_private(as_bytes(one))
    assert domain(pair) == domain(single)
    assert domain(single)["categories"]["income"] == ["<=50K", ">50K"]  # from the public file
    assert md("single class of the target") in owner_notes(single)
    assert md("single class of the target") not in owner_notes(pair)
    # Both can be studied on the pages that fit a model of the target.
    for at in (pair, single):
        at.switch_page("pages/importance.py").run()
        assert not at.exception, [e.value for e in at.exception]
    # And both publish a private model: the classes come from the public file (issue 21, 5).
    for at in (pair, single):
        at.session_state["lr_view"] = "publish"
        at.switch_page("pages/perturbation.py").run()
        assert not at.exception, [e.value for e in at.exception]
        at.button(key="publish_perturbation").click().run()
        assert not at.exception and not at.main.error, [e.value for e in at.main.error]
        assert len(at.session_state["_budget_accountant"]) == 1


def test_a_record_of_blank_cells_is_kept():
    width = len(BASE[0].split(","))
    blank = [*BASE[: ROW + 1], "," * (width - 1), *BASE[ROW + 2 :]]
    assert domain(upload_private(as_bytes(BASE))) == domain(upload_private(as_bytes(blank)))


def test_neighbours_in_a_file_split_by_a_rule_behave_alike():
    # A row that the split (by sex, seeded as the app seeds it) puts in D gets a word in 'age'.
    lines = (DATA / "valid_single.csv").read_text().splitlines()
    frame = read_csv_upload(as_bytes(lines), "single.csv", private=True)
    private, _ = split_by_value(frame.assign(rid=range(len(frame))), "sex", "Male", p=0.9,
                                rng=UPLOAD_SEED)
    row = int(private["rid"].iloc[0])
    built = []
    for version in (lines, replace(lines, "age", "forty", row)):
        at = start(builtin_name=SMALL, source="Upload", upload_mode="One file, split by a rule",
                   split_rule=BY_VALUE, split_column="sex", split_value="Male",
                   upload_target="income")
        at.file_uploader(key="upload_single").set_value(("single.csv", as_bytes(version),
                                                         "text/csv"))
        at.run()
        assert_clean(at)
        built.append(domain(at))
    assert built[0] == built[1]


def test_a_word_in_the_public_part_of_a_split_is_refused_as_a_public_fact():
    lines = (DATA / "valid_single.csv").read_text().splitlines()
    frame = read_csv_upload(as_bytes(lines), "single.csv", private=True)
    _, public = split_by_value(frame.assign(rid=range(len(frame))), "sex", "Male", p=0.9,
                               rng=UPLOAD_SEED)
    row = int(public["rid"].iloc[0])
    at = start(builtin_name=SMALL, source="Upload", upload_mode="One file, split by a rule",
               split_rule=BY_VALUE, split_column="sex", split_value="Male")
    at.file_uploader(key="upload_single").set_value(
        ("single.csv", as_bytes(replace(lines, "age", "forty", row)), "text/csv"))
    at.run()
    (message,) = [e.value for e in at.main.error]
    assert md("Column 'age' of the public part of 'single.csv' holds numbers except for 1") in (
        message)


def test_a_numeric_split_value_from_a_link_finds_its_rows():
    # The file is read as text: a link's split_value=1 (a number) is the option "1".
    rows = [f"{20 + i % 50},{i % 2},{['a', 'b', 'c'][i % 3]}" for i in range(80)]
    data = as_bytes(["age,member,city", *rows])
    at = start(builtin_name=SMALL, source="Upload", upload_mode="One file, split by a rule",
               split_rule=BY_VALUE, split_column="member", split_value=1)
    at.file_uploader(key="upload_single").set_value(("single.csv", data, "text/csv"))
    at.run()
    assert_clean(at)
    assert at.selectbox(key="split_value").value == "1"
    assert len(at.session_state["scenario"].private) == 36 + 4  # 0.9 of 40 and 0.1 of 40


def test_the_file_list_carries_no_digest_of_a_private_file():
    private = as_bytes(BASE)
    at = upload_private(private)
    files = at.session_state["upload_files"]
    assert files == [
        {"role": "public", "name": "public.csv", "sha256": hashlib.sha256(PUBLIC).hexdigest()},
        {"role": "private", "name": "private.csv", "sha256": None},
    ]
    digest = hashlib.sha256(private).hexdigest()
    assert digest not in json.dumps({k: at.query_params[k] for k in at.query_params})
    single = start(builtin_name=SMALL, source="Upload", upload_mode="One file, split by a rule")
    single.file_uploader(key="upload_single").set_value(
        ("single.csv", (DATA / "valid_single.csv").read_bytes(), "text/csv"))
    single.run()
    assert single.session_state["upload_files"] == [
        {"role": "single", "name": "single.csv", "sha256": None}]
