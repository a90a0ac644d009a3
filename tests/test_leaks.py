"""Columns that give the target away, found on public rows (dpcore.datasets.leaks)."""

import numpy as np
import pandas as pd
import pytest

from dpcore.datasets import scenario_from_uploads, target_leaks
from dpcore.datasets.leaks import MIN_LEAK_ROWS, one_column_accuracy


def affairs_frame(n: int, seed: int) -> pd.DataFrame:
    """A table whose target is the rule ``affairs > 0``, beside columns unrelated to it."""
    rng = np.random.default_rng(seed)
    affairs = rng.choice([0, 0, 0, 1, 2, 7], n)
    return pd.DataFrame({
        "age": rng.integers(18, 70, n),
        "affairs": affairs,
        "job": rng.choice(["a", "b", "c"], n),
        "code": [f"x{i}" for i in range(n)],  # one value per row
        "had_affair": np.where(affairs > 0, "yes", "no"),
    })


def test_a_threshold_rule_is_found_either_side():
    x = pd.Series([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    assert one_column_accuracy(x, np.array([0, 0, 0, 1, 1, 1])) == 1.0
    assert one_column_accuracy(x, np.array([1, 1, 1, 0, 0, 0])) == 1.0
    # no threshold between equal values: the best cuts after 2 (5 of 6 right)
    x = pd.Series([1.0, 2.0, 2.0, 3.0, 3.0, 3.0])
    assert one_column_accuracy(x, np.array([0, 0, 1, 1, 1, 1])) == pytest.approx(5 / 6)


def test_a_text_column_counts_only_other_rows_with_its_value():
    y = np.array([0, 1, 0, 1, 0, 1])
    # one value per row: every row is guessed by the majority of all (a tie: class 1)
    assert one_column_accuracy(pd.Series(list("abcdef")), y) == pytest.approx(3 / 6)
    assert one_column_accuracy(pd.Series(list("ababab")), y) == 1.0
    assert one_column_accuracy(pd.Series(["a", None, "a", None, "a", None]), y) == 1.0


def test_the_rule_that_made_the_target_is_flagged_and_nothing_else():
    public = affairs_frame(300, seed=1)
    y = (public["had_affair"] == "yes").to_numpy(dtype=int)
    leaks = target_leaks(public, "had_affair", y)
    assert [leak.column for leak in leaks] == ["affairs"]
    assert leaks[0].accuracy == 1.0
    assert leaks[0].majority == pytest.approx(max(y.mean(), 1 - y.mean()))


def test_noise_below_the_threshold_is_not_flagged():
    public = affairs_frame(400, seed=2)
    y = (public["affairs"] > 0).to_numpy(dtype=int)
    y[:40] = 1 - y[:40]  # 10 % of the rows disagree with the rule: at most 90 % + 2 % by chance
    assert target_leaks(public, "had_affair", y) == []


def test_few_rows_or_one_class_say_nothing():
    public = affairs_frame(MIN_LEAK_ROWS - 1, seed=3)
    assert target_leaks(public, "had_affair", (public["affairs"] > 0).to_numpy()) == []
    public = affairs_frame(100, seed=3)
    assert target_leaks(public, "had_affair", np.zeros(100)) == []


def test_bad_arguments_say_what_to_do():
    public = affairs_frame(50, seed=4)
    with pytest.raises(ValueError, match="not a column"):
        target_leaks(public, "nope")
    with pytest.raises(ValueError, match="pass one per row"):
        target_leaks(public, "had_affair", np.zeros(3))
    with pytest.raises(ValueError, match="accuracy must be"):
        target_leaks(public, "had_affair", np.zeros(50), accuracy=0.4)


def test_an_upload_reports_the_leak_from_its_public_file_only():
    public, private = affairs_frame(200, seed=5), affairs_frame(150, seed=6)
    _, report = scenario_from_uploads(private, public, target="had_affair", positive="yes")
    assert [leak.column for leak in report.leaks] == ["affairs"]
    # the private rows do not matter: a private file with the rule broken reports the same
    broken = private.assign(had_affair="yes")
    _, again = scenario_from_uploads(broken, public, target="had_affair", positive="yes")
    assert again.leaks == report.leaks
    _, left_out = scenario_from_uploads(private, public, target="had_affair", positive="yes",
                                        exclude=["affairs"])
    assert left_out.leaks == ()
