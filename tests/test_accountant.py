"""The privacy budget: sequential composition, refusal before recording, the ledger."""

import math

import pandas as pd
import pytest

from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.validation import DataError


def _spend(acc, eps, delta=0.0, **kw):
    acc.spend(eps, delta, mechanism=kw.get("mechanism", "Laplace"), dataset="adult")


def test_sequential_composition_worked_example():
    # Three releases (0.1, 0), (0.25, 1e-6), (0.4, 2e-6) compose to (0.75, 3e-6).
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    _spend(acc, 0.1)
    _spend(acc, 0.25, 1e-6)
    _spend(acc, 0.4, 2e-6)
    assert len(acc) == 3
    assert acc.spent == pytest.approx((0.75, 3e-6), rel=1e-12)
    assert acc.total() == acc.spent == acc.total("sequential")
    assert acc.remaining == pytest.approx((0.25, 7e-6), rel=1e-12)
    assert acc.budget == (1.0, 1e-5)
    assert all(isinstance(v, float) for v in (*acc.spent, *acc.remaining, *acc.budget))


def test_spending_exactly_the_budget_is_allowed():
    # 0.1 + 0.2 + 0.7 = 1.0000000000000002 in floats: the relative slack of 1e-9 absorbs it.
    acc = BudgetAccountant(epsilon=1.0)
    for eps in (0.1, 0.2, 0.7):
        _spend(acc, eps)
    assert acc.remaining[0] == 0.0
    with pytest.raises(BudgetExceeded):
        _spend(acc, 1e-6)  # 1e-6 relative is far above the slack


def test_refusal_records_nothing_and_says_what_to_do():
    acc = BudgetAccountant(epsilon=1.0)
    for eps in (0.3, 0.3, 0.2):
        _spend(acc, eps)
    before_spent, before_ledger = acc.spent, acc.ledger
    msg = (
        r"This release needs ε = 0.5, but 0.2 of the budget ε = 1 remains "
        r"\(0.8 spent in 3 releases\). Raise the budget, or lower ε."
    )
    with pytest.raises(BudgetExceeded, match=msg):
        _spend(acc, 0.5)
    with pytest.raises(BudgetExceeded, match=msg):
        acc.check(0.5)
    assert acc.spent == before_spent and len(acc) == 3
    pd.testing.assert_frame_equal(acc.ledger, before_ledger)
    acc.check(0.2)  # fits: no error, nothing recorded
    assert len(acc) == 3
    assert issubclass(BudgetExceeded, DataError) and issubclass(BudgetExceeded, ValueError)


def test_delta_budget():
    acc = BudgetAccountant(epsilon=10.0, delta=1e-6)
    _spend(acc, 1.0, 6e-7)
    with pytest.raises(BudgetExceeded, match=r"needs δ = 5e-07, but 4e-07 of the budget δ = 1e-06"):
        _spend(acc, 1.0, 5e-7)
    assert acc.spent == (1.0, 6e-7)
    pure = BudgetAccountant(epsilon=1.0)
    with pytest.raises(BudgetExceeded, match="pure ε-DP mechanism"):
        pure.check(0.1, 1e-9)
    _spend(pure, 0.1)  # delta 0 fits a delta budget of 0


def test_unlimited_budget():
    acc = BudgetAccountant()
    assert acc.budget == (math.inf, 0.0)
    for _ in range(5):
        _spend(acc, 1e6)
    assert acc.spent == (5e6, 0.0) and acc.remaining == (math.inf, 0.0)
    assert BudgetAccountant(epsilon=math.inf).budget[0] == math.inf
    assert bool(BudgetAccountant())  # truthy even with no releases
    assert "BudgetAccountant(epsilon=None" in repr(acc)


def test_ledger_columns_dtypes_and_content():
    expected = {
        "mechanism": "str",
        "dataset": "str",
        "epsilon": "float64",
        "delta": "float64",
        "time": "datetime64[us, UTC]",
        "note": "str",
    }
    empty = BudgetAccountant(1.0).ledger
    assert list(empty.columns) == list(expected) and len(empty) == 0
    assert {c: str(t) for c, t in empty.dtypes.items()} == expected
    acc = BudgetAccountant(1.0, 1e-5)
    start = pd.Timestamp.now(tz="UTC")
    acc.spend(0.5, 1e-6, mechanism="Gaussian", dataset="adult", note="mean")
    acc.spend(0.25, mechanism="Laplace", dataset="uploaded")
    led = acc.ledger
    assert {c: str(t) for c, t in led.dtypes.items()} == expected
    assert led["mechanism"].tolist() == ["Gaussian", "Laplace"]
    assert led["dataset"].tolist() == ["adult", "uploaded"]
    assert led["epsilon"].tolist() == [0.5, 0.25] and led["delta"].tolist() == [1e-6, 0.0]
    assert led["note"].tolist() == ["mean", ""]
    assert (led["time"] >= start).all() and str(led["time"].dt.tz) == "UTC"
    led.loc[0, "epsilon"] = 99.0  # a copy: editing it does not change the accountant
    assert acc.spent[0] == 0.75


def test_set_budget():
    acc = BudgetAccountant(1.0)
    _spend(acc, 0.6)
    with pytest.raises(ValueError, match=r"below what is already spent \(ε = 0.6"):
        acc.set_budget(0.5)
    assert acc.budget == (1.0, 0.0)
    acc.set_budget(0.6)  # exactly the amount spent is allowed
    assert acc.remaining == (0.0, 0.0)
    acc.set_budget(None, 1e-6)
    assert acc.budget == (math.inf, 1e-6)
    _spend(acc, 5.0, 1e-7)
    with pytest.raises(ValueError, match="below what is already spent"):
        acc.set_budget(100.0, 0.0)


def test_total_refuses_other_compositions():
    with pytest.raises(ValueError, match="advanced, zcdp and parallel"):
        BudgetAccountant().total("advanced")


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: BudgetAccountant(-1.0), ValueError, "epsilon == -1"),
        (lambda: BudgetAccountant("1"), TypeError, "number or None"),
        (lambda: BudgetAccountant(True), TypeError, "number or None"),
        (lambda: BudgetAccountant(float("nan")), ValueError, "finite"),
        (lambda: BudgetAccountant(1.0, 1.5), ValueError, "delta == 1.5"),
        (lambda: BudgetAccountant(1.0, -1e-9), ValueError, "delta"),
        (lambda: BudgetAccountant().check(-0.1), ValueError, "epsilon == -0.1"),
        (lambda: BudgetAccountant().check(float("inf")), ValueError, "finite"),
        (lambda: BudgetAccountant().check(0.1, 1.0), ValueError, "delta == 1, must be < 1"),
        (lambda: BudgetAccountant().check(None), TypeError, "real number"),
        (lambda: BudgetAccountant().spend(0.1, mechanism="", dataset="a"), ValueError, "empty"),
        (lambda: BudgetAccountant().spend(0.1, mechanism="L", dataset=3), TypeError, "dataset"),
        (
            lambda: BudgetAccountant().spend(0.1, mechanism="L", dataset="a", note=None),
            TypeError,
            "note must be a str",
        ),
    ],
)
def test_invalid_inputs(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_spend_requires_labels():
    with pytest.raises(TypeError, match="mechanism"):
        BudgetAccountant().spend(0.1, dataset="adult")  # type: ignore[call-arg]
