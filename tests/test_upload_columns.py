"""Column choices of an upload (dpcore.datasets.columns and scenario_from_uploads' exclude,
categorical and positive): read off the public file, applied to both files alike."""

import numpy as np
import pandas as pd
import pytest

from dpcore import DataError
from dpcore.datasets import (
    MAX_FEATURES,
    as_categories,
    columns_to_leave_out,
    scenario_from_uploads,
    target_classes,
)
from dpcore.datasets.columns import DATE_REASON, ID_REASON, MIN_ID_ROWS

WEATHER = ("drizzle", "fog", "rain", "snow", "sun")


def weather(n: int, *, start: int = 0, seed: int = 0) -> pd.DataFrame:
    """A table shaped like seattle-weather: a date per row, a row ID, measurements, a region
    code and a five-class target."""
    rng = np.random.default_rng(seed)
    days = pd.date_range("2012-01-01", periods=n + start).strftime("%Y-%m-%d")[start:]
    return pd.DataFrame({
        "date": list(days),
        "record_id": np.arange(start, start + n) + 1000,
        "precipitation": rng.gamma(1.0, 3.0, n).round(1),
        "temp_max": rng.normal(15, 7, n).round(1),
        "region": rng.integers(1, 5, n),
        "weather": rng.choice(WEATHER, n, p=[0.05, 0.1, 0.4, 0.05, 0.4]),
    })


def test_dates_and_ids_are_suggested_from_the_columns_alone():
    table = weather(800)
    assert columns_to_leave_out(table) == {"date": DATE_REASON, "record_id": ID_REASON}
    # Measurements are often all different, yet they are never an ID.
    unique = table.assign(temp_max=np.linspace(-5, 35, len(table)))
    assert "temp_max" not in columns_to_leave_out(unique)
    # Whole numbers all different but with gaps and no ID name: a count, kept.
    counts = table.rename(columns={"record_id": "visits"})
    assert columns_to_leave_out(counts.assign(visits=np.arange(len(table)) * 7)) == {
        "date": DATE_REASON}
    # ...named like an ID: left out.
    named = table.rename(columns={"record_id": "customerID"}).assign(
        customerID=np.arange(len(table)) * 7)
    assert "customerID" in columns_to_leave_out(named)
    # Text with one value per row (names) is left out; in a handful of rows it is not.
    names = table.assign(name=[f"person {i}" for i in range(len(table))])
    assert columns_to_leave_out(names)["name"] == ID_REASON
    assert "name" not in columns_to_leave_out(names.head(MIN_ID_ROWS - 1))
    # Other date spellings, with a time, are dates too; a column of a few dates among words is not.
    other = pd.DataFrame({"when": ["31/01/2012 10:30", "1/2/2012", "2012-02-03T08:00:00Z"] * 3,
                          "mixed": ["2012-01-01", "soon", "later"] * 3})
    assert columns_to_leave_out(other) == {"when": DATE_REASON}


def test_a_dated_table_is_refused_whole_but_accepted_with_the_suggested_columns_left_out():
    public, private = weather(700), weather(300, start=700, seed=1)
    with pytest.raises(DataError, match="over the limit") as refused:
        scenario_from_uploads(private, public, target="weather")
    assert "Leave out ID-like or date columns" in str(refused.value)
    left_out = list(columns_to_leave_out(public))
    scenario, report = scenario_from_uploads(private, public, target="weather", exclude=left_out)
    assert scenario.d < MAX_FEATURES
    assert not any(name.startswith(("date", "record_id")) for name in scenario.features)
    assert any("Left out by choice: 'date', 'record_id'" in note for note in report.notes)
    assert len(scenario.private) == 300  # no private row dropped


def test_the_positive_class_is_chosen_among_the_public_classes():
    public, private = weather(600), weather(300, start=600, seed=1)
    classes, default = target_classes(public["weather"])
    assert classes == sorted(WEATHER)
    counts = public["weather"].value_counts()
    assert counts[default] == counts.min()  # the rarest by default
    exclude = ["date", "record_id"]
    for positive in ("rain", "sun"):
        scenario, _ = scenario_from_uploads(private, public, target="weather",
                                            positive=positive, exclude=exclude)
        assert scenario.target == f"weather={positive}"
        expected = (private["weather"] == positive).to_numpy()
        np.testing.assert_array_equal(scenario.private[scenario.target].to_numpy(), expected)
    with pytest.raises(DataError, match="not a class of target 'weather'"):
        scenario_from_uploads(private, public, target="weather", positive="hail", exclude=exclude)


def test_a_code_read_as_categories_gets_one_item_per_public_value():
    public, private = weather(600), weather(300, start=600, seed=1)
    exclude = ["date", "record_id"]
    scaled, _ = scenario_from_uploads(private, public, target="weather", exclude=exclude)
    assert "region" in scaled.features
    private_text = private.astype({"region": float}).astype({"region": str})  # '3.0'
    coded, report = scenario_from_uploads(private_text, public, target="weather",
                                          exclude=exclude, categorical=["region"])
    items = [f"region={value}" for value in range(1, 5)]
    assert [name for name in coded.features if name.startswith("region")] == items
    assert scaled.d + 3 == coded.d  # one scaled column became four items
    # The private '3.0' is the public 3: every private row has exactly one region item.
    np.testing.assert_array_equal(coded.private[items].sum(axis=1).to_numpy(), 1.0)
    np.testing.assert_array_equal(coded.private["region=3"].to_numpy(),
                                  (private["region"] == 3).to_numpy())
    assert any("Read as categories by choice: 'region'" in note for note in report.notes)


def test_each_private_label_is_read_alone():
    cells = pd.Series(["5.0", "5", "north", None, "2.50"])
    assert as_categories(cells).tolist() == ["5", "5", "north", np.nan, "2.5"]
    for i in range(len(cells)):  # changing one cell changes that cell's label only
        changed = cells.copy()
        changed.iloc[i] = "7"
        same = as_categories(changed).drop(index=i).tolist()
        assert same == as_categories(cells).drop(index=i).tolist()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"exclude": ["nope"]}, "columns left out must be columns of both files: 'nope'"),
    ({"categorical": ["nope"]}, "read as categories must be columns of both files"),
    ({"exclude": ["weather"], "target": "weather"}, "target 'weather' is among the columns left"),
    ({"exclude": ["date", "record_id", "precipitation", "temp_max", "region", "weather"]},
     "Every shared column is left out"),
])
def test_column_choices_that_cannot_be_applied_say_what_to_do(kwargs, message):
    public, private = weather(60), weather(40, start=60, seed=1)
    with pytest.raises(DataError, match=message):
        scenario_from_uploads(private, public, **kwargs)


def test_a_string_is_not_taken_for_a_list_of_columns():
    public, private = weather(60), weather(40, start=60, seed=1)
    with pytest.raises(TypeError, match=r"write \['date'\]"):
        scenario_from_uploads(private, public, exclude="date")
