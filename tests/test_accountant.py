"""The privacy budget: its filters, refusal before recording, the ledger, what it checks."""

import math

import pandas as pd
import pytest

from dpcore.accountant import BudgetAccountant, BudgetExceeded, rho_floor
from dpcore.composition import zcdp_epsilon
from dpcore.mechanisms import Gaussian, Laplace
from dpcore.planning import PlannedRelease, compare_compositions, compose, gaussian_rho
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
    acc.spend(0.5, mechanism="Laplace", dataset="upload", partition="men", partition_rule="sex")
    acc.spend(0.3, mechanism="Laplace", dataset="upload", partition="women", partition_rule="sex")
    acc.spend(0.3, mechanism="Laplace", dataset="upload", partition="women", partition_rule="sex")
    # a person is in one part: 0.2 + max(0.5, 0.3 + 0.3) = 0.8
    assert acc.spent == pytest.approx((0.8, 0.0))
    # men: 1.0, fits
    acc.spend(0.3, mechanism="Laplace", dataset="upload", partition="men", partition_rule="sex")
    with pytest.raises(BudgetExceeded, match="on part 'women' of 'upload'"):
        acc.spend(0.5, mechanism="Laplace", dataset="upload", partition="women",
                  partition_rule="sex")
    # another dataset may hold the same people: its releases add up with the worst part
    acc.set_budget(2.0)
    acc.spend(0.4, mechanism="Laplace", dataset="adult", partition="a", partition_rule="r")
    assert acc.spent == pytest.approx((1.4, 0.0))
    parts = acc.records["partition"]
    assert parts.isna().tolist() == [True] + [False] * 5  # None: all rows
    assert parts.iloc[1:].tolist() == ["men", "women", "women", "men", "a"]
    assert list(acc.ledger.columns) == ["mechanism", "dataset", "epsilon", "delta", "relation",
                                        "time", "note"]


def test_check_on_a_part_and_invalid_part_or_rho():
    acc = BudgetAccountant(1.0, relation="add_remove")
    acc.spend(0.8, mechanism="Laplace", dataset="upload", partition="men", partition_rule="sex")
    # another part: fits, nothing recorded
    acc.check(0.8, dataset="upload", partition="women", partition_rule="sex")
    with pytest.raises(BudgetExceeded, match="on part 'men' of 'upload'"):
        acc.check(0.3, dataset="upload", partition="men", partition_rule="sex")
    with pytest.raises(BudgetExceeded):
        acc.check(0.3)  # all rows: adds to the worst part
    assert len(acc) == 1
    with pytest.raises(ValueError, match="partition is empty"):
        acc.spend(0.1, mechanism="L", dataset="upload", partition=" ", partition_rule="sex")
    with pytest.raises(TypeError, match="partition must be a str"):
        acc.spend(0.1, mechanism="L", dataset="upload", partition=1, partition_rule="sex")
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


def test_zcdp_filter_holds_delta_prime_out_of_the_delta_budget():
    # Budget (1, 2e-6) under the zCDP filter with delta' = 1e-6. The zCDP total of a ledger is
    # (E, delta')-DP; the sequential total (E, sum of delta_i). A session that may end under
    # either is (E, delta_seq + delta')-DP (module docstring), so the sequential total may use
    # only 2e-6 - 1e-6. The rule before issue 33 let it use all 2e-6: an analyst who branches
    # on the outputs between the two (below) was then (1, 3e-6)-DP, above the budget.
    acc = BudgetAccountant(1.0, 2e-6)
    acc.set_composition("zcdp", 1e-6)
    acc.spend(0.5, 1e-6, mechanism="(eps, delta) release", dataset="d")  # no rho: sequential
    with pytest.raises(BudgetExceeded, match=r"may use δ = 1e-06 of it"):
        acc.spend(0.3, 1e-6, mechanism="(eps, delta) release", dataset="d")  # old rule: accepted
    assert acc.spent == (0.5, 1e-6)
    # The other branch: many small pure releases, past ε = 1 sequentially, within it by zCDP.
    other = BudgetAccountant(1.0, 2e-6)
    other.set_composition("zcdp", 1e-6)
    for _ in range(150):  # rho = 150 x 0.01² / 2 = 0.0075: 0.0075 + 2 sqrt(0.0075 ln 1e6)
        other.spend(0.01, mechanism="Laplace", dataset="d")
    assert other.spent[0] == pytest.approx(1.5)
    assert other.total("zcdp") == pytest.approx((0.6513, 1e-6), abs=1e-4)
    # Under the sequential filter alone the whole δ budget is the sequential one's.
    seq = BudgetAccountant(1.0, 2e-6)
    seq.spend(0.5, 1e-6, mechanism="(eps, delta) release", dataset="d")
    seq.spend(0.3, 1e-6, mechanism="(eps, delta) release", dataset="d")
    assert seq.spent == pytest.approx((0.8, 2e-6))
    # With a δ budget below δ', zCDP is off and the sequential part has δ = 0: pure only.
    small = BudgetAccountant(1.0, 5e-7)
    small.set_composition("zcdp", 1e-6)
    with pytest.raises(BudgetExceeded, match=r"needs δ′ = 1e-06, more than the δ budget"):
        small.check(0.1, 1e-7)
    small.spend(0.1, mechanism="Laplace", dataset="d")


def test_filter_is_fixed_once_a_release_is_recorded():
    acc = BudgetAccountant(1.0, 1e-5)
    acc.set_composition("zcdp", 1e-6)  # while empty: any filter
    acc.set_composition("sequential")
    acc.spend(0.1, mechanism="Laplace", dataset="d")
    with pytest.raises(ValueError, match="its filter cannot change"):
        acc.set_composition("zcdp", 1e-6)
    acc.set_composition("sequential", 1e-5)  # the same filter (sequential ignores delta')
    zc = BudgetAccountant(1.0, 1e-5)
    zc.set_composition("zcdp", 1e-6)
    zc.spend(0.1, mechanism="Laplace", dataset="d")
    with pytest.raises(ValueError, match=r"under the zcdp filter \(δ′ = 1e-06\)"):
        zc.set_composition("zcdp", 1e-5)
    assert zc.composition == ("zcdp", 1e-6)


def test_set_budget_keeps_what_the_filter_accepted():
    # 100 releases of 0.05 under the zCDP filter: sequential 5, zCDP 2.753 (delta' = 1e-6).
    acc = BudgetAccountant(4.0, 1e-6)
    acc.set_composition("zcdp", 1e-6)
    for _ in range(100):
        _spend(acc, 0.05)
    acc.set_budget(3.0, 1e-6)  # still holds the zCDP total (the sequential one is 5)
    with pytest.raises(ValueError, match=r"below what is already spent .*zcdp total ε = 2.75"):
        acc.set_budget(2.5, 1e-6)
    with pytest.raises(ValueError, match="below what is already spent"):
        acc.set_budget(3.0, 0.0)  # no room for delta': only the sequential total counts
    assert acc.budget == (3.0, 1e-6)


def test_a_declared_rho_is_checked_or_computed_from_the_noise():
    # The attack of issue 33: 100 releases at ε = 0.5 declared with ρ = 1e-9 under the zCDP
    # filter at ε = 1 all passed. A pure release counts ε²/2 = 0.125, whatever it declares.
    acc = BudgetAccountant(1.0, 1e-6)
    acc.set_composition("zcdp", 1e-6)
    with pytest.raises(ValueError, match=r"rho == 1e-09 is below ε²/2 = 0.125"):
        acc.spend(0.5, mechanism="Laplace", dataset="d", rho=1e-9)
    assert len(acc) == 0
    accepted = 0
    with pytest.raises(BudgetExceeded):
        for _ in range(100):
            acc.spend(0.5, mechanism="Laplace", dataset="d", rho=0.2)  # above ε²/2: counts 0.125
            accepted += 1
    assert accepted == 2 and acc.records["rho"].isna().all()  # 0.5 + 0.5 = 1: sequential
    # With δ > 0, a ρ below what (ε, δ) allow is refused; the floor converts back to ε.
    floor = rho_floor(0.5, 1e-6)
    assert zcdp_epsilon(floor, 1e-6) == pytest.approx(0.5, rel=1e-12)
    gauss = BudgetAccountant(10.0, 1e-4)
    with pytest.raises(ValueError, match=r"rho == 1e-09 is below 0.00"):
        gauss.spend(0.5, 1e-6, mechanism="Gaussian", dataset="d", rho=1e-9)
    gauss.spend(0.5, 1e-6, mechanism="Gaussian", dataset="d", rho=floor)
    # With noise= the ledger takes ρ from the mechanism's noise and sensitivity.
    mech = Gaussian(0.5, 1e-6, 2.0)
    gauss.spend(0.5, 1e-6, mechanism="Gaussian", dataset="d", noise=mech)
    assert gauss.records["rho"].iloc[-1] == mech.rho == pytest.approx(2.0**2 / (2 * mech.sigma**2))
    gauss.spend(0.5, mechanism="Laplace", dataset="d", noise=Laplace(0.5, 1.0))
    assert math.isnan(gauss.records["rho"].iloc[-1])  # pure: ε²/2
    with pytest.raises(ValueError, match=r"noise is calibrated to \(ε = 0.5, δ = 1e-06\)"):
        gauss.spend(0.4, 1e-6, mechanism="Gaussian", dataset="d", noise=mech)
    with pytest.raises(ValueError, match="rho or noise, not both"):
        gauss.spend(0.5, 1e-6, mechanism="Gaussian", dataset="d", noise=mech, rho=0.1)
    with pytest.raises(TypeError, match="noise must be a dpcore.mechanisms.Mechanism"):
        gauss.check(0.5, 1e-6, noise="Gaussian")
    assert len(gauss) == 3


@pytest.mark.parametrize("calibration", ["analytic", "classic"])
def test_gaussian_rho_bounds_the_rho_of_both_noise_paths(calibration):
    # Mechanism.rho is what a ledger counts for a Gaussian: it must bound the ρ of the study's
    # noise (Δ²/(2σ²)) and of the release's (OpenDP's own privacy map at release_sigma).
    from dpcore import release_noise

    for epsilon, delta, sensitivity in [(0.1, 1e-9, 1.0), (0.5, 1e-6, 3.0), (0.9, 1e-3, 0.01)]:
        mech = Gaussian(epsilon, delta, sensitivity, calibration)
        assert mech.rho >= sensitivity**2 / (2.0 * mech.sigma**2) * (1 - 1e-12)
        for size in (1, 100):
            sigma = mech.release_sigma(size)
            assert release_noise._gaussian(size, sigma).map(sensitivity) < mech.rho


def test_partitions_of_different_rules_add_up():
    # Issue 33: two parts of the same data made by different rules were counted as disjoint
    # (1.0) although a woman under 30 is in both (2.0).
    acc = BudgetAccountant(2.0, relation="add_remove")
    acc.spend(1.0, mechanism="Laplace", dataset="d", partition="sex = F", partition_rule="sex")
    acc.spend(1.0, mechanism="Laplace", dataset="d", partition="age < 30", partition_rule="age")
    assert acc.spent == (2.0, 0.0)
    # Another part of the rule "sex": a man under 30 sees 1 + 1.
    acc.spend(1.0, mechanism="Laplace", dataset="d", partition="sex = M", partition_rule="sex")
    assert acc.spent == (2.0, 0.0)
    acc.check(0.5, dataset="d", partition="age >= 30", partition_rule="age")  # 1 + 0.5 fits
    with pytest.raises(BudgetExceeded, match="on part 'age < 30' of 'd'"):
        acc.check(0.5, dataset="d", partition="age < 30", partition_rule="age")  # 1 + 1.5
    assert acc.records["partition_rule"].tolist() == ["sex", "age", "sex"]
    # The "what if" table and preview read the rules too.
    table = compare_compositions([], ledger=acc.records).set_index("method")
    assert table.loc["sequential", "epsilon"] == 2.0
    assert acc.preview([PlannedRelease("Laplace", 0.5)]) == (2.5, 0.0)
    with pytest.raises(ValueError, match="needs its partition_rule"):
        acc.check(0.1, dataset="d", partition="sex = F")
    with pytest.raises(ValueError, match="without a partition"):
        acc.check(0.1, dataset="d", partition_rule="sex")
    with pytest.raises(TypeError, match="partition_rule must be a str"):
        acc.check(0.1, dataset="d", partition="sex = F", partition_rule=3)
