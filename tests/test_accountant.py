"""The privacy budget: sequential composition, refusal before recording, the ledger."""

import math

import pandas as pd
import pytest

from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.planning import PlannedRelease, compose, gaussian_rho
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
        "relation": "str",
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
    assert led["relation"].tolist() == ["replace one record"] * 2
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


def test_total_refuses_unknown_compositions():
    # (Issue 14 replaced the refusal of "advanced" by the method itself.)
    with pytest.raises(ValueError, match=r"method == 'basic', must be one of \('sequential', "
                                         r"'advanced', 'zcdp', 'rdp', 'pld'\)"):
        BudgetAccountant().total("basic")


def test_total_under_every_method_matches_planning_compose():
    acc = BudgetAccountant()
    for _ in range(200):
        _spend(acc, 0.05)
    # the worked example of tests/test_planning.py: 3.643018 at delta' = 1e-5
    assert acc.total("advanced", 1e-5) == pytest.approx((3.643018, 1e-5), abs=2e-6)
    assert acc.total("zcdp", 1e-5)[0] == pytest.approx(compose([0.05] * 200, None, "zcdp", 1e-5)[0])
    assert acc.total() == pytest.approx((10.0, 0.0)) and acc.spent == acc.total()
    assert acc.composition == ("sequential", 1e-6)


def test_zcdp_needs_rho_for_releases_with_delta():
    acc = BudgetAccountant(10.0, 1e-5)
    acc.spend(1.0, 1e-6, mechanism="Gaussian", dataset="adult")
    with pytest.raises(ValueError, match="zCDP cannot account"):
        acc.total("zcdp")
    acc2 = BudgetAccountant(10.0, 1e-5)
    acc2.spend(1.0, 1e-6, mechanism="Gaussian", dataset="adult", rho=gaussian_rho(1.0, 1e-6))
    assert acc2.total("zcdp")[0] == pytest.approx(1.0)  # one release: the sequential pair
    assert acc2.records["rho"].iloc[0] == pytest.approx(gaussian_rho(1.0, 1e-6))


def test_chosen_filter_refuses_by_its_own_total():
    # Budget epsilon 4, delta 1e-6. 100 releases of 0.05 sum to 5: sequential refuses the 81st.
    # The zCDP filter (delta' = 1e-6): rho = 100 * 0.05^2 / 2 = 0.125, epsilon = 0.125 +
    # 2 sqrt(0.125 ln(1e6)) = 0.125 + 2.628 = 2.753, so all 100 fit.
    seq = BudgetAccountant(4.0, 1e-6)
    for _ in range(80):
        _spend(seq, 0.05)
    with pytest.raises(BudgetExceeded, match="This release needs ε = 0.05"):
        _spend(seq, 0.05)
    zc = BudgetAccountant(4.0, 1e-6)
    zc.set_composition("zcdp", 1e-6)
    for _ in range(100):
        _spend(zc, 0.05)
    assert zc.total("zcdp") == pytest.approx((2.753, 1e-6), abs=1e-3)
    assert zc.spent[0] == pytest.approx(5.0)  # spent stays the sequential sum
    with pytest.raises(BudgetExceeded, match="under zcdp composition to ε = "):
        for _ in range(1000):
            _spend(zc, 0.05)
    assert zc.total("zcdp")[0] <= 4.0 * (1 + 1e-9)
    # Advanced composition assumes the epsilons fixed in advance: it never refuses releases.
    for method in ("advanced", "rdp", "pld"):  # so do the RDP and PLD totals of dp-accounting
        with pytest.raises(ValueError, match="fixed before the first one"):
            zc.set_composition(method, 1e-6)
    assert zc.total("advanced")[0] < zc.total("sequential")[0]  # still a "what if" total
    # With no delta budget for delta', zCDP cannot help: the sequential total decides.
    nodelta = BudgetAccountant(1.0)
    nodelta.set_composition("zcdp", 1e-6)
    for _ in range(20):
        _spend(nodelta, 0.05)
    with pytest.raises(BudgetExceeded):
        _spend(nodelta, 0.05)
    with pytest.raises(ValueError, match="method == 'x'"):
        nodelta.set_composition("x")
    with pytest.raises(ValueError, match="delta_slack"):
        nodelta.set_composition("zcdp", 0.0)


def test_parallel_composition_over_disjoint_parts():
    acc = BudgetAccountant(1.0, relation="add_remove")
    acc.spend(0.2, mechanism="Laplace", dataset="upload")  # all rows
    acc.spend(0.5, mechanism="Laplace", dataset="upload", partition="men")
    acc.spend(0.3, mechanism="Laplace", dataset="upload", partition="women")
    acc.spend(0.3, mechanism="Laplace", dataset="upload", partition="women")
    # a person is in one part: 0.2 + max(0.5, 0.3 + 0.3) = 0.8
    assert acc.spent == pytest.approx((0.8, 0.0))
    acc.spend(0.3, mechanism="Laplace", dataset="upload", partition="men")  # men: 1.0, fits
    with pytest.raises(BudgetExceeded, match="on part 'women' of 'upload'"):
        acc.spend(0.5, mechanism="Laplace", dataset="upload", partition="women")
    # another dataset may hold the same people: its releases add up with the worst part
    acc.set_budget(2.0)
    acc.spend(0.4, mechanism="Laplace", dataset="adult", partition="a")
    assert acc.spent == pytest.approx((1.4, 0.0))
    parts = acc.records["partition"]
    assert parts.isna().tolist() == [True] + [False] * 5  # None: all rows
    assert parts.iloc[1:].tolist() == ["men", "women", "women", "men", "a"]
    assert list(acc.ledger.columns) == ["mechanism", "dataset", "epsilon", "delta", "relation",
                                        "time", "note"]


def test_check_on_a_part_and_invalid_part_or_rho():
    acc = BudgetAccountant(1.0, relation="add_remove")
    acc.spend(0.8, mechanism="Laplace", dataset="upload", partition="men")
    acc.check(0.8, dataset="upload", partition="women")  # another part: fits, nothing recorded
    with pytest.raises(BudgetExceeded, match="on part 'men' of 'upload'"):
        acc.check(0.3, dataset="upload", partition="men")
    with pytest.raises(BudgetExceeded):
        acc.check(0.3)  # all rows: adds to the worst part
    assert len(acc) == 1
    with pytest.raises(ValueError, match="partition is empty"):
        acc.spend(0.1, mechanism="L", dataset="upload", partition=" ")
    with pytest.raises(TypeError, match="partition must be a str"):
        acc.spend(0.1, mechanism="L", dataset="upload", partition=1)
    with pytest.raises(ValueError, match="rho == -1"):
        acc.spend(0.1, mechanism="L", dataset="upload", rho=-1.0)
    assert len(acc) == 1


def test_preview_spends_nothing():
    acc = BudgetAccountant(1.0, 1e-5)
    _spend(acc, 0.3)
    planned = [PlannedRelease("Laplace", 0.1, count=4),
               PlannedRelease("Gaussian", 0.5, 1e-6, 2, gaussian_rho(0.5, 1e-6))]
    assert acc.preview(planned) == pytest.approx((1.7, 2e-6))
    assert acc.preview(planned, "zcdp", 1e-6) == pytest.approx(
        compose([0.3] + [0.1] * 4 + [0.5] * 2, [0.0] * 5 + [1e-6] * 2, "zcdp", 1e-6,
                rhos=[None] * 5 + [gaussian_rho(0.5, 1e-6)] * 2))
    assert len(acc) == 1 and acc.spent == (0.3, 0.0)


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


def test_one_relation_per_ledger_and_group_privacy_charges():
    acc = BudgetAccountant(2.0, 1e-5)
    assert acc.relation == "replace" and acc.relation_text == "replace one record"
    # An add/remove release in a replace-one ledger costs (2 eps, (1 + e^eps) delta).
    assert acc.charge(0.3, relation="add_remove") == (0.6, 0.0)
    eps, delta = acc.charge(0.5, 1e-6, relation="add_remove")
    assert eps == 1.0 and delta == pytest.approx((1 + math.exp(0.5)) * 1e-6)
    acc.spend(0.3, mechanism="Laplace", dataset="d", relation="add_remove")
    led = acc.ledger
    assert led["epsilon"].tolist() == [0.6] and led["relation"].tolist() == [
        "add or remove one record"]
    assert "charged by group privacy" in led["note"].iloc[0]
    with pytest.raises(BudgetExceeded):
        acc.spend(0.75, mechanism="Laplace", dataset="d", relation="add_remove")  # 0.6 + 1.5
    # Parallel composition is refused under replace-one.
    with pytest.raises(ValueError, match="only under 'add or remove one record'"):
        acc.spend(0.1, mechanism="L", dataset="d", partition="a")
    # The relation is fixed once something is released.
    with pytest.raises(ValueError, match="cannot change"):
        acc.set_relation("add_remove")
    acc.set_relation("replace")  # the same one: allowed
    # A replace-one release has no finite cost in an add/remove ledger.
    ar = BudgetAccountant(1.0, relation="add_remove")
    with pytest.raises(DataError, match="no finite cost"):
        ar.spend(0.1, mechanism="model", dataset="d", relation="replace")
    assert len(ar) == 0
    ar.spend(0.1, mechanism="count", dataset="d")  # calibrated under the ledger's relation
    assert ar.spent == (0.1, 0.0)
    empty = BudgetAccountant()
    empty.set_relation("add_remove")
    assert empty.relation == "add_remove"
    with pytest.raises(ValueError, match="relation == 'both'"):
        BudgetAccountant(relation="both")
