"""AppTest: every page runs, and the home page with each built-in scenario and with uploads.

Widgets are found by key. Uploads go through ``FileUploader.set_value`` (Streamlit >= 1.50 can
simulate ``st.file_uploader`` in AppTest); the bad-input corpus is ``tests/data/``.
"""

from __future__ import annotations

import re
import tomllib
from functools import partial
from pathlib import Path

import app_support
import pytest
from app_support import DATA, ROOT, assert_clean
from streamlit.testing.v1 import AppTest

from dpcore import DataError
from dpcore.datasets import list_scenarios, read_csv_upload, scenario_title
from dpcore.datasets.reading import MAX_UPLOAD_BYTES
from dpcore.runs.scenarios import AT_RANDOM, BY_VALUE
from dpcore.studies.home import COLUMNS, D
from dpcore.text import md

# Pages that draw the scenario sidebar (presentation mode hides it).
PAGES = sorted(p for p in (ROOT / "pages").glob("*.py") if "scenario_sidebar()" in p.read_text())
TIMEOUT = 60  # seconds per script run: generous, CI machines have 2 cores
SMALL = "wine"  # a fast built-in scenario to start upload tests from

# Files refused as the private file, whatever the public file is: what they get wrong is the
# file (its encoding, header or CSV syntax), not a value of a record.
UNREADABLE = [
    "binary.csv",
    "blank_header.csv",
    "blank_lines.csv",
    "duplicate_headers.csv",
    "empty.csv",
    "excel_disguised.csv",
    "header_only.csv",
    "latin1.csv",
    "no_header.csv",
    "ragged_rows.csv",
    "semicolon.csv",
    "tab_separated.csv",
    "unclosed_quote.csv",
    "utf16.csv",
]

start = partial(app_support.start, timeout=TIMEOUT)


def upload(at: AppTest, key: str, name: str, content: bytes | None = None) -> None:
    data = (DATA / name).read_bytes() if content is None else content
    at.file_uploader(key=key).set_value((name, data, "text/csv"))


def upload_pair(private: str, public: str = "valid_public.csv", **state: object) -> AppTest:
    """Start on a built-in scenario, switch to two-file upload and upload both files."""
    at = start(builtin_name=SMALL, **state)
    at.radio(key="source").set_value("Upload").run()
    upload(at, "upload_public", public)
    upload(at, "upload_private", private)
    return at.run()


def summary(at: AppTest) -> dict[str, list]:
    """The home page's summary table (records, d, encoded columns, target rate of E and D)."""
    table = next(df.value for df in at.main.dataframe if "records" in df.value.columns)
    return table.to_dict(orient="list")


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.name)
def test_every_page_runs(page: Path):
    at = start()
    try:
        at.switch_page(str(page.relative_to(ROOT)))
    except ValueError:
        pytest.fail(f"{page.name} is not listed in app.py: add one st.Page line for it")
    at.run()
    assert not at.exception, [exc.value for exc in at.exception]


def test_home_starts_on_adult():
    at = start()
    assert_clean(at)
    assert at.title[0].value == "Privacy/utility explorer"
    assert at.header[0].value == scenario_title("adult")
    assert sum(summary(at)["records"]) == 32_561  # Adult's training part, split into E and D


@pytest.mark.parametrize("name", list_scenarios())
def test_home_shows_each_builtin_scenario(name: str):
    at = start(builtin_name=SMALL)
    at.selectbox(key="builtin_name").set_value(name).run()
    assert_clean(at)
    assert at.header[0].value == scenario_title(name)
    table = summary(at)
    assert all(n > 0 for n in table["records"])
    assert len(set(table[D])) == 1 and set(table[D]) == {at.session_state["scenario"].d}
    assert at.session_state["scenario"].name == name
    captions = " ".join(caption.value for caption in at.caption)
    assert "differ most between E and D" in captions  # the chart's caption


def test_builtin_options_change_the_scenario():
    at = start(builtin_name="mvn-shift")
    at.number_input(key="builtin_p").set_value(5).run()
    assert_clean(at)
    assert summary(at)[D] == [5, 5]  # d: x1..x5
    assert summary(at)[COLUMNS] == [6, 6]  # and the target y
    at.selectbox(key="builtin_public").set_value("identical").run()
    assert_clean(at)
    first_id = at.session_state["scenario_id"]
    table = summary(at)
    assert table["records"][0] == table["records"][1]
    at.number_input(key="seed").set_value(7).run()
    assert_clean(at)
    assert at.session_state["scenario_id"] != first_id


def test_adult_compact_encoding():
    at = start()
    d_onehot = summary(at)[D][0]
    at.radio(key="builtin_encoding").set_value("compact").run()
    assert_clean(at)
    assert summary(at)[D][0] < d_onehot


def test_valid_upload_of_two_files():
    at = upload_pair("valid_private.csv")
    at.selectbox(key="upload_target").set_value("income").run()
    assert_clean(at)
    # The private file's name is not in the title (nor in any figure's settings or file name)
    # until its owner ticks the box, as in a link.
    assert at.header[0].value == md("Uploaded data: valid_public.csv + the private file")
    assert "valid_private" not in at.session_state["scenario"].title
    assert summary(at)["records"] == [40, 40]
    scenario = at.session_state["scenario"]
    assert scenario.target is not None and scenario.target.startswith("income")
    notes = " ".join(m.value for m in at.markdown)
    assert md("record_id") in notes  # the column only the private file has is reported dropped
    assert "(the target aside)" in " ".join(c.value for c in at.main.caption)


def test_valid_upload_of_one_file_split_by_a_rule():
    at = start(builtin_name=SMALL, source="Upload", upload_mode="One file, split by a rule")
    upload(at, "upload_single", "valid_single.csv")
    at.run()
    # Split at random until the user chooses a column and a value: none is read off the file.
    assert_clean(at)
    assert at.radio(key="split_rule").value == AT_RANDOM
    assert summary(at)["records"] == [40, 40]
    at.radio(key="split_rule").set_value(BY_VALUE).run()
    assert at.selectbox(key="split_column").value is None
    assert any("Choose the column and the value to split" in i.value for i in at.main.info)
    assert not at.main.header  # no data while the split is half chosen
    at.selectbox(key="split_column").set_value("sex").run()
    assert at.selectbox(key="split_value").value is None
    at.selectbox(key="split_value").set_value("Male").run()
    assert_clean(at)
    assert at.header[0].value == md("Uploaded data: the uploaded file")
    assert "sex" not in at.session_state["scenario"].raw_public.columns
    assert sum(summary(at)["records"]) == 80


def refused(at: AppTest) -> list[str]:
    """The refusals shown in the main area, after checking the sidebar shows the same."""
    assert not at.exception
    main = [err.value for err in at.main.error]
    assert [err.value for err in at.sidebar.error] == main
    assert not at.main.header  # no data that no longer matches the sidebar
    assert any("The pages show nothing until" in info.value for info in at.main.info)
    # What to do about the upload, not the home page's first-visit prompt.
    assert not any("Choose a built-in scenario" in info.value for info in at.main.info)
    return main


@pytest.mark.parametrize("name", UNREADABLE)
def test_unreadable_file_is_refused_in_the_main_area_and_nothing_is_lost(name: str):
    with pytest.raises(DataError) as expected:
        read_csv_upload((DATA / name).read_bytes(), name, private=True)
    at = upload_pair(name)
    assert refused(at) == [md(expected.value)]  # shown as text, not Markdown
    upload(at, "upload_private", "valid_private.csv")  # fix the file: the upload goes through
    at.run()
    assert_clean(at)
    assert at.header[0].value == md("Uploaded data: valid_public.csv + the private file")


@pytest.mark.parametrize(
    "private, public, target, fragment",
    [
        ("no_shared_columns.csv", "valid_public.csv", None, "share no column"),
        ("too_many_columns.csv", "too_many_columns.csv", None, "hold the same 400 rows"),
    ],
)
def test_unusable_pair_shows_a_message(private: str, public: str, target: str, fragment: str):
    at = upload_pair(private, public, upload_target=target)
    (message,) = refused(at)
    assert fragment in message


def test_a_target_constant_in_the_public_file_is_not_offered():
    # dpcore refuses it ("single class"); the sidebar does not offer it (it would be dropped)
    at = upload_pair("valid_private.csv", "single_class_private.csv", upload_target="income")
    assert "income" not in at.selectbox(key="upload_target").options
    assert at.selectbox(key="upload_target").value is None
    assert_clean(at)


def test_too_many_encoded_columns_shows_a_message():
    wide = (DATA / "too_many_columns.csv").read_bytes()
    at = start(builtin_name=SMALL, source="Upload")
    upload(at, "upload_public", "wide_public.csv", wide)
    upload(at, "upload_private", "wide_private.csv", wide.rsplit(b"\n", 2)[0] + b"\n")
    at.run()
    # Its ID column (one value per row) is left out by default, so the files are accepted...
    assert at.multiselect(key="upload_exclude").value == ["customer_id"]
    assert_clean(at)
    at.multiselect(key="upload_exclude").set_value([])  # ...and refused with it, in place
    (message,) = refused(at.run())
    assert "over the limit" in message


@pytest.mark.parametrize("private", ["single_class_private.csv", "missing_values.csv",
                                     "text_in_numeric.csv", "type_mismatch.csv"])
def test_private_file_facts_do_not_refuse_an_upload(private: str):
    # One class in the private file, missing private values, a word in a numeric column, a
    # column of words where the public file has numbers: facts of the private data. The
    # encoding comes from the public file, private cells are read into it by a fixed rule, and
    # the data owner is told, labelled non-private.
    at = upload_pair(private, upload_target="income")
    assert_clean(at)
    assert summary(at)["records"][1] == len(read_csv_upload((DATA / private).read_bytes(), "x",
                                                            private=True))  # N_D: every row
    assert summary(at)[COLUMNS] == [15, 15]  # as for valid_private.csv
    # d: every encoded column but the target's 2 items (income is text: one-hot)
    assert summary(at)[D] == [at.session_state["scenario"].d] * 2 == [13, 13]
    assert any("non-private" in m.value for m in at.markdown)


def test_dropping_public_rows_with_missing_values():
    at = upload_pair("valid_private.csv", public="missing_values.csv")
    assert_clean(at)
    imputed = summary(at)["records"][0]
    at.checkbox(key="upload_drop_missing").check().run()
    assert_clean(at)
    assert summary(at)["records"][0] < imputed


def test_two_problems_are_shown_at_once():
    at = upload_pair("latin1.csv", public="empty.csv")
    assert len(refused(at)) == 2


def test_user_strings_are_escaped_not_rendered_as_markdown():
    header = b"**bold** _x_,income\n"
    rows = b"".join(b"%d,%d\n" % (i % 17, i % 2) for i in range(30))  # not a row number
    other = b"".join(b"%d,%d\n" % (i % 17, i % 3 == 0) for i in range(30, 60))
    at = start(builtin_name=SMALL, source="Upload")
    upload(at, "upload_public", "**public**.csv", header + rows)
    upload(at, "upload_private", "private.csv", header + other)
    at.run()
    assert_clean(at)
    assert at.main.header[0].value == md("Uploaded data: **public**.csv + the private file")
    at.selectbox(key="upload_target").set_value(None).run()  # 'income' was pre-selected
    captions = " ".join(c.value for c in at.main.caption)
    assert "features whose averages differ most" in captions  # no target to set aside
    assert "target aside" not in captions
    at.switch_page("pages/importance.py").run()
    assert_clean(at)
    # Without a target the default query thresholds the numeric column at its public median:
    # its name is shown.
    (query,) = [h.value for h in at.main.subheader if h.value.startswith("Query")]
    assert "**bold**" not in query and md("**bold** _x_") in query


def test_a_refusal_quoting_a_file_name_shows_it_as_text():
    # An empty file named like Markdown: the refusal quotes the name, escaped (not bold).
    at = start(builtin_name=SMALL, source="Upload")
    upload(at, "upload_public", "valid_public.csv", (DATA / "valid_public.csv").read_bytes())
    upload(at, "upload_private", "**bold** _x_.csv", b"")
    at.run()
    (message,) = refused(at)
    assert md("'**bold** _x_.csv'") in message and "'**bold**" not in message


def test_sidebar_choice_survives_page_switches():
    at = start(builtin_name=SMALL)
    at.selectbox(key="builtin_public").set_value("bootstrap").run()
    chosen = at.session_state["scenario_id"]
    for page in [*PAGES, ROOT / "pages" / "home.py"]:
        at.switch_page(str(page.relative_to(ROOT))).run()
        assert not at.exception, (page.name, [exc.value for exc in at.exception])
        assert at.selectbox(key="builtin_public").value == "bootstrap"
        assert at.session_state["scenario_id"] == chosen
    assert at.header[0].value == scenario_title(SMALL)


def test_the_random_seed_can_be_cleared_back_to_the_scenarios_own_split():
    at = start(builtin_name=SMALL)
    own = at.session_state["scenario_id"]
    at.number_input(key="seed").set_value(5).run()
    assert at.session_state["scenario_id"] != own
    at.number_input(key="seed").set_value(None).run()
    assert_clean(at)
    assert at.number_input(key="seed").value is None
    assert at.session_state["scenario_id"] == own  # the scenario's own split is back
    at.switch_page("pages/importance.py").run()
    at.switch_page("pages/home.py").run()
    assert at.number_input(key="seed").value is None and at.session_state["scenario_id"] == own


@pytest.mark.parametrize("name, kind", [("json.csv", "JSON"), ("json_lines.csv", "JSON"),
                                        ("html.csv", "HTML")])
def test_json_and_html_files_are_named_as_such_in_the_main_area(name, kind):
    at = upload_pair("valid_private.csv", public="valid_public.csv")
    upload(at, "upload_private", name, (DATA / "bad" / name).read_bytes())
    at.run()
    (message,) = refused(at)
    assert f"looks like {kind}" in message or f"looks like an {kind}" in message


def test_the_upload_limit_is_stated_beside_the_uploader():
    at = start(builtin_name=SMALL, source="Upload")
    limit = MAX_UPLOAD_BYTES // 2**20
    assert any(f"CSV files up to {limit} MB each" in c.value for c in at.sidebar.caption)
    # Streamlit's own uploader refuses a larger file before the app sees it, with the same limit.
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == limit


def test_a_refused_change_shows_no_stale_data_and_is_undone_by_a_good_one():
    at = start(builtin_name=SMALL, source="Upload", upload_mode="One file, split by a rule")
    upload(at, "upload_single", "valid_single.csv")
    at.run()
    at.radio(key="split_rule").set_value(BY_VALUE).run()
    # Only columns with few distinct values are offered to split by (not age or hours).
    assert at.selectbox(key="split_column").options == ["(choose a column)", "sex", "education",
                                                        "married", "region", "income"]
    at.selectbox(key="split_column").set_value("sex").run()
    at.selectbox(key="split_value").set_value("Male").run()
    at.selectbox(key="upload_target").set_value("income").run()
    assert_clean(at)
    title = at.header[0].value
    at.selectbox(key="upload_target").set_value("age").run()  # 30-odd values: refused
    (message,) = refused(at)  # said in the main area, and the old split is not shown
    assert re.search(r"Target 'age' has \d\d distinct values", message)
    # Another page (where the uploaders start empty) keeps the files and the refused option:
    # it shows no data and says why.
    at.switch_page("pages/importance.py").run()
    assert not at.exception and not at.get("plotly_chart") and not at.main.metric
    assert any("Target 'age'" in e.value for e in at.main.error)
    # Nothing is lost and nothing is uploaded again: the option is changed back in place.
    at.selectbox(key="upload_target").set_value("income").run()
    assert not at.exception and at.get("plotly_chart") and not at.main.error
    at.switch_page("pages/home.py").run()
    assert_clean(at)
    assert at.header[0].value == title


def test_a_file_with_no_column_to_split_by_is_split_at_random_and_by_value_says_why():
    # Like statsmodels' star98: every column continuous, so no value to split by.
    at = start(builtin_name=SMALL, source="Upload", upload_mode="One file, split by a rule")
    rows = b"".join(b"%.2f,%.1f\n" % (i * 0.37, (i * 7919) % 101 * 1.3) for i in range(60))
    upload(at, "upload_single", "continuous.csv", b"x,y\n" + rows)
    at.run()
    assert_clean(at)  # the default split, at random, works on any file
    assert summary(at)["records"] == [30, 30]
    at.radio(key="split_rule").set_value(BY_VALUE).run()
    (message,) = refused(at)
    assert "No column of the file has few enough distinct values" in message
    assert AT_RANDOM in message
    at.radio(key="split_rule").set_value(AT_RANDOM).run()  # changed back in place
    assert_clean(at)
    assert summary(at)["records"] == [30, 30]
