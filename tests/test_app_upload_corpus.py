"""AppTest: every bad upload gets a message in the main area (issue 33, section 4).

A corpus of malformed files (empty, a header only, rows with no value, a number of two million
digits, a text cell of two million characters, a column name of 100,000 characters, binary bytes,
another encoding, columns that do not match the other file, duplicate names, one column, ragged
rows, only the target, ...) is uploaded through the app in each role: as the private file beside
a valid public one, as the public file beside a valid private one, and as one file split into
both. Every upload must end in a refusal or a note in the main area that names what was found,
never in a traceback and never in silence; the message quotes the file name escaped (the files
are named like Markdown), stays short however long the cell it quotes, and the page's link holds
nothing of a file with private rows.
"""

from __future__ import annotations

import hashlib
from functools import partial

import app_support
import pytest
from app_support import DATA
from streamlit.testing.v1 import AppTest

from dpcore.text import md

TIMEOUT = 60
SHORT = 2_000  # characters: a message about a giant cell is far shorter than the cell

HEADER = b"age,education,hours,married,region,income\n"  # the columns of valid_public.csv
ROWS = b"".join(
    b"%d,%s,%d,%s,%s,%s\n" % (20 + i % 50, (b"HS-grad", b"Masters", b"Bachelors")[i % 3],
                              30 + i % 20, (b"yes", b"no")[i % 2], (b"North", b"South")[i % 2],
                              (b"<=50K", b">50K")[i % 4 == 0])
    for i in range(40))
GIANT = b"1" + b"0" * 2_000_000  # a number of two million digits
LONG = b"x" * 2_000_000  # a text cell of two million characters
CORPUS: dict[str, bytes] = {
    "empty": b"",
    "header_only": HEADER,
    "no_value": HEADER + b",,,,,\n" * 50,
    "no_value_markers": HEADER + b"NA,?,,null,N/A,#N/A\n" * 50,
    "giant_number": HEADER + GIANT + b",HS-grad,40,no,South,>50K\n",
    "giant_number_among_rows": HEADER + ROWS + GIANT + b",HS-grad,40,no,South,>50K\n",
    "giant_text": HEADER + b"30," + LONG + b",40,no,South,>50K\n" + ROWS,
    "giant_text_in_numbers": HEADER + ROWS + LONG + b",HS-grad,40,no,South,>50K\n",
    "giant_name": b"age," + b"h" * 100_000 + b"\n"
                  + b"".join(b"%d,%d\n" % (20 + i, i % 3) for i in range(40)),
    "binary": (DATA / "binary.csv").read_bytes(),
    "latin1": (DATA / "latin1.csv").read_bytes(),
    "utf16": (DATA / "utf16.csv").read_bytes(),
    "control_chars": (DATA / "bad" / "control_chars.csv").read_bytes(),
    "json": (DATA / "bad" / "json.csv").read_bytes(),
    "no_shared_columns": (DATA / "no_shared_columns.csv").read_bytes(),
    "other_columns": b"age,colour,height\n" + b"".join(
        b"%d,%s,%d\n" % (20 + i, (b"red", b"blue")[i % 2], 150 + i) for i in range(40)),
    "duplicate_names": (DATA / "duplicate_headers.csv").read_bytes(),
    "single_column": b"age\n" + b"".join(b"%d\n" % (20 + i) for i in range(40)),
    "ragged_rows": (DATA / "ragged_rows.csv").read_bytes(),
    "semicolons": (DATA / "semicolon.csv").read_bytes(),
    "unclosed_quote": (DATA / "unclosed_quote.csv").read_bytes(),
    "only_the_target": b"income\n" + b"".join((b"<=50K\n", b">50K\n")[i % 2] for i in range(40)),
    "one_row": HEADER + b"41,HS-grad,40,no,South,>50K\n",
    "infinite_values": (DATA / "bad" / "inf_values.csv").read_bytes(),
}

TOO_LARGE = "too large to be a number"
NO_FEATURE = "No usable feature column is left"
# (file, role) -> a fragment of the main area's message: a refusal, a warning or a note of
# "How your files were read". Roles: "private" (beside valid_public.csv), "public" (beside
# valid_private.csv), "single" (split at random into E and D).
EXPECTED: dict[str, dict[str, str]] = {
    "empty": dict.fromkeys(("private", "public", "single"), "is empty"),
    "header_only": dict.fromkeys(("private", "public", "single"), "header row but no data rows"),
    "no_value": {"private": "read as 50 rows, every value missing",
                 "public": "header row but no data rows",  # blank lines, in a public file
                 "single": "Every value of the public file is missing"},
    "no_value_markers": {"private": "read as 50 rows, every value missing",
                         "public": "Every value of the public file is missing",
                         "single": "Every value of the public file is missing"},
    "giant_number": {"private": f"1 private value {TOO_LARGE}",
                     "public": "(2,000,001 characters) on line 2",
                     "single": "The split leaves the public part empty"},
    "giant_number_among_rows": {"private": f"1 private value {TOO_LARGE}",
                                "public": "(2,000,001 characters) on line 42",
                                "single": "(2,000,001 characters)"},
    "giant_text": {"private": "1 private row(s) missing or with a value that the public file "
                              "does not contain",
                   "public": "(2,000,000 characters): its values name the one-hot items",
                   "single": "1 private row(s) missing or with a value that the public file "
                             "does not contain"},
    "giant_text_in_numbers": {"private": "1 private value(s) that are not numbers",
                              "public": "(2,000,000 characters) on line 42",
                              "single": "(2,000,000 characters). Correct those cells"},
    "giant_name": dict.fromkeys(("private", "public", "single"),
                                "(100,000 characters), is longer than the 1,000 characters"),
    "binary": dict.fromkeys(("private", "public", "single"), "contains binary data"),
    "latin1": dict.fromkeys(("private", "public", "single"), "is not UTF-8 text"),
    "utf16": dict.fromkeys(("private", "public", "single"), "is encoded as UTF-16"),
    "control_chars": dict.fromkeys(("private", "public", "single"), "control characters"),
    "json": dict.fromkeys(("private", "public", "single"), "looks like JSON"),
    "no_shared_columns": {"private": "share no column names", "public": "share no column names",
                          "single": "The public file has a single row"},
    "other_columns": {"private": "Dropped 'colour', 'height' (only in the private file)",
                      "public": "Every shared column is left out ('age')",
                      "single": "private value(s) outside the public range"},
    "duplicate_names": dict.fromkeys(("private", "public", "single"), "duplicate column names"),
    "single_column": {"private": "(only in the public file)",
                      "public": "Every shared column is left out ('age')",
                      "single": "private value(s) outside the public range"},
    "ragged_rows": dict.fromkeys(("private", "public", "single"),
                                 "has 4 values but the header has 3 columns"),
    "semicolons": dict.fromkeys(("private", "public", "single"), "not commas"),
    "unclosed_quote": dict.fromkeys(("private", "public", "single"), "never closed"),
    "only_the_target": dict.fromkeys(("private", "public", "single"), NO_FEATURE),
    "one_row": {"private": "the private file holds a single class of the target",
                "public": "The public file has a single row",
                "single": "The split leaves the public part empty"},
    "infinite_values": {"private": f"1 private value {TOO_LARGE}",
                        "public": "holds 1 infinite value(s), e.g. 'inf' on line 3",
                        "single": "holds 1 infinite value(s), e.g. 'inf'"},
}
CASES = [(name, role) for name in CORPUS for role in ("private", "public", "single")]

start = partial(app_support.start, timeout=TIMEOUT, builtin_name="wine", source="Upload")


def file_name(name: str) -> str:
    """The corpus file's upload name, written like Markdown: shown raw it would be italic."""
    return f"_{name}_.csv"


def upload(name: str, role: str) -> AppTest:
    """The app on Home with the corpus file ``name`` uploaded in ``role``."""
    data = CORPUS[name]
    if role == "single":
        at = start(upload_mode="One file, split by a rule")
        at.file_uploader(key="upload_single").set_value((file_name(name), data, "text/csv"))
        return at.run()
    other, key = (("valid_public.csv", "upload_public") if role == "private"
                  else ("valid_private.csv", "upload_private"))
    at = start()
    at.file_uploader(key=key).set_value((other, (DATA / other).read_bytes(), "text/csv"))
    at.file_uploader(key=f"upload_{role}").set_value((file_name(name), data, "text/csv"))
    return at.run()


def main_messages(at: AppTest) -> list[str]:
    """What the main area says about the files: refusals, warnings, and the notes of "How your
    files were read" (as rendered: escaped Markdown)."""
    said = [e.value for e in at.main.error] + [w.value for w in at.main.warning]
    for expander in at.main.expander:
        if expander.label == "How your files were read":
            said += [m.value for m in expander.markdown]
    return said


def test_the_corpus_is_covered():
    assert set(EXPECTED) == set(CORPUS) and all(len(roles) == 3 for roles in EXPECTED.values())


@pytest.mark.parametrize("name, role", CASES, ids=[f"{n}-{r}" for n, r in CASES])
def test_every_upload_gets_a_message_in_the_main_area(name: str, role: str):
    at = upload(name, role)
    assert not at.exception, [exc.value for exc in at.exception]  # never a traceback
    said = main_messages(at)
    fragment = md(EXPECTED[name][role])
    assert any(fragment in message for message in said), said  # never silence
    assert all(len(message) < SHORT for message in said), [len(m) for m in said]
    # Every text of the main area quotes the file name escaped, never as Markdown.
    texts = said + [h.value for h in at.main.header] + [m.value for m in at.main.markdown]
    assert not any(file_name(name) in text for text in texts)
    if not at.main.error:  # accepted: the public file named as uploaded; the private one
        # (or the one file split in two) only as such, unless its owner opts in (issue 34)
        title = at.main.header[0].value
        if role == "public":
            assert md(file_name(name)) in title
        else:
            assert md(file_name(name)) not in title
            assert ("the private file" if role == "private" else "the uploaded file") in title
    # The page's link names the files and holds nothing of a file with private rows.
    params = {key: at.query_params[key] for key in at.query_params}
    link = " ".join(" ".join(v) if isinstance(v, list) else str(v) for v in params.values())
    assert len(link) < SHORT
    if role in ("private", "single"):
        digest = hashlib.sha256(CORPUS[name]).hexdigest()
        assert digest[:8] not in link
