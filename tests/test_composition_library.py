"""Rényi DP and privacy-loss-distribution totals (issue 25, section 1): ``compose`` asks Google's
``dp-accounting`` for them, and each equals the library run directly on the same events."""

import math

import pytest
from dp_accounting import dp_event
from dp_accounting.pld import common, pld_privacy_accountant
from dp_accounting.pld import privacy_loss_distribution as pld
from dp_accounting.rdp import rdp_privacy_accountant

from dpcore.accountant import BudgetAccountant
from dpcore.composition import PLD_DISCRETISATION, compose
from dpcore.planning import PlannedRelease, compare_compositions

SLACK = 1e-6


def test_laplace_releases_match_dp_accounting_and_beat_the_closed_forms():
    """The issue's plan: 100 Laplace releases at ε = 0.05, δ' = 1e-6 (PLD 2.19, RDP 2.34,
    sequential 5)."""
    eps, names = [0.05] * 100, ["Laplace: count"] * 100
    direct_pld = pld_privacy_accountant.PLDAccountant()
    direct_pld.compose(dp_event.LaplaceDpEvent(noise_multiplier=20.0), 100)
    direct_rdp = rdp_privacy_accountant.RdpAccountant()
    direct_rdp.compose(dp_event.LaplaceDpEvent(noise_multiplier=20.0), 100)
    got_pld = compose(eps, method="pld", delta_slack=SLACK, mechanisms=names)
    got_rdp = compose(eps, method="rdp", delta_slack=SLACK, mechanisms=names)
    assert got_pld == (pytest.approx(direct_pld.get_epsilon(SLACK), rel=1e-9), SLACK)
    assert got_rdp == (pytest.approx(direct_rdp.get_epsilon(SLACK), rel=1e-9), SLACK)
    assert round(got_pld[0], 2) == 2.19 and round(got_rdp[0], 2) == 2.34
    closed = [compose(eps, method=m, delta_slack=SLACK)[0] for m in ("advanced", "zcdp")]
    assert got_pld[0] < got_rdp[0] < min(closed) < 5.0


def test_another_pure_release_counts_as_randomised_response_its_worst_case():
    eps = [0.05] * 100
    worst = pld.from_randomized_response(2.0 / (math.exp(0.05) + 1.0), 2,
                                         value_discretization_interval=PLD_DISCRETISATION)
    total, delta = compose(eps, method="pld", delta_slack=SLACK)  # no mechanism named
    assert total == pytest.approx(worst.self_compose(100).get_epsilon_for_delta(SLACK),
                                  rel=1e-9)
    laplace = compose(eps, method="pld", delta_slack=SLACK, mechanisms=["Laplace"] * 100)[0]
    assert laplace <= total < 5.0  # the Laplace's own curve is at least as tight
    one = pld.from_randomized_response(2.0 / (math.exp(1.0) + 1.0), 2)
    assert one.get_epsilon_for_delta(0.0) == pytest.approx(1.0, abs=1e-3)  # RR at ε is ε-DP


def test_gaussian_releases_use_their_sigma_and_approximate_pairs_their_worst_case():
    rho = 0.02  # σ/Δ = 5
    got = compose([0.9] * 10, [1e-6] * 10, method="pld", delta_slack=SLACK, rhos=[rho] * 10)
    direct = pld.from_gaussian_mechanism(5.0, value_discretization_interval=PLD_DISCRETISATION)
    assert got == (pytest.approx(direct.self_compose(10).get_epsilon_for_delta(SLACK),
                                 rel=1e-9), SLACK)  # the Gaussians' own δ_i are in their curve
    rdp = rdp_privacy_accountant.RdpAccountant()
    rdp.compose(dp_event.GaussianDpEvent(noise_multiplier=5.0), 10)
    assert compose([0.9] * 10, [1e-6] * 10, method="rdp", delta_slack=SLACK,
                   rhos=[rho] * 10)[0] == pytest.approx(rdp.get_epsilon(SLACK), rel=1e-9)
    # an (ε, δ) pair with no σ: its worst case under PLD (δ added), refused under RDP
    pair = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(0.5, 1e-7),
                                       value_discretization_interval=PLD_DISCRETISATION)
    total, delta = compose([0.5] * 4, [1e-7] * 4, method="pld", delta_slack=SLACK)
    assert delta == pytest.approx(4e-7 + SLACK)
    assert total == pytest.approx(pair.self_compose(4).get_epsilon_for_delta(delta), rel=1e-9)
    with pytest.raises(ValueError, match="method='pld'"):
        compose([0.5], [1e-7], method="rdp", delta_slack=SLACK)


def test_no_slack_gives_the_sequential_total_and_a_larger_bound_is_never_returned():
    assert compose([0.05] * 100, method="pld") == (pytest.approx(5.0), 0.0)
    for method in ("rdp", "pld"):  # one release: never more than its own ε
        for name in ("Laplace", None):
            assert compose([1.0], method=method, delta_slack=SLACK, mechanisms=[name])[0] <= 1.0


def test_the_ledger_and_the_what_if_table_total_by_dp_accounting_too():
    accountant = BudgetAccountant(epsilon=10.0)
    for _ in range(20):
        accountant.spend(0.05, mechanism="Laplace: count", dataset="adult")
    want = compose([0.05] * 20, method="pld", delta_slack=SLACK, mechanisms=["Laplace"] * 20)
    assert accountant.total("pld", SLACK) == want
    table = compare_compositions([PlannedRelease("Laplace", 0.05, count=80)], SLACK,
                                 ledger=accountant.records).set_index("method")
    assert list(table.index) == ["sequential", "advanced", "zcdp", "rdp", "pld"]
    assert table.at["pld", "epsilon"] == pytest.approx(compose(
        [0.05] * 100, method="pld", delta_slack=SLACK, mechanisms=["Laplace"] * 100)[0])
    assert all(table["assumptions"].str.len() > 0)


def test_the_continuous_laplace_curve_fits_the_release_grids_and_the_worst_case_bounds_them():
    """A "Laplace" record counts by the continuous Laplace's curve. The releases draw OpenDP's
    discrete Laplace on a 2^-60 grid, so a sensitivity spans astronomically many grid steps:
    already at 1,000 steps the discrete curve is within the PLD's discretisation of the
    continuous one. A coarse grid (one step per Δ: the exact discrete Laplace of counts) is
    larger, and the worst case that counts every other pure record (randomised response)
    bounds it: those records are never under-counted."""
    eps, k, delta = 0.05, 100, 1e-6
    ours = compose([eps] * k, method="pld", delta_slack=delta, mechanisms=["Laplace"] * k)[0]

    def discrete(steps: int) -> float:
        one = pld.from_discrete_laplace_mechanism(
            eps / steps, sensitivity=steps, value_discretization_interval=PLD_DISCRETISATION)
        return one.self_compose(k).get_epsilon_for_delta(delta)

    assert abs(discrete(1000) - ours) < 10 * PLD_DISCRETISATION
    coarse = discrete(1)
    worst = compose([eps] * k, method="pld", delta_slack=delta,
                    mechanisms=["Wang et al. counts"] * k)[0]
    assert ours < coarse < worst
