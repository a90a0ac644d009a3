"""The one-run audit of every release (Steinke, Nasr & Jagielski 2023): the engine
(:func:`dpcore.audit.one_run`) and each release's hook (``ONE_RUN`` of its module, listed by
:data:`dpcore.releases.catalogue.ONE_RUN_KEYS`).

Theory the tests lean on: for a release that is ε-DP in each canary, the bound exceeds ε with
probability at most ``1 - confidence`` (Theorem 3.1 of the paper), so one seeded run stays at or
below the claim except on a 5 % event, and over many seeds the share of runs above it is a
binomial count with p <= 0.05. A fault is caught for certain when the noise is negligible
beside each canary's signal: every guess is then right, and the bound is
``one_run_epsilon(k, k)``, above the claim once ``k`` is large enough (20 guesses: 1.82 > 1).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpcore.audit import OneRunCase, one_run, one_run_epsilon
from dpcore.audit.onerun import default_guesses, label_canaries
from dpcore.releases.catalogue import ONE_RUN_KEYS, audit_case, one_run_case

EPSILON = 1.0
#: 100 canaries, 20 guesses: enough for every guess right to refute ε = 1 (1.82 > 1).
CANARIES = 100
#: Noise calibrated to a million times the claim: beside each canary's signal (1/2 a count, a
#: coefficient of about 0.2 against a sensitivity of about 2), its scale is about 1e-5 of the
#: signal, so a wrong guess has a probability below exp(-1e4): every guess is right.
NEGLIGIBLE = 1e6 * EPSILON
#: The releases whose canaries each move an output of their own (all but the mean's one number).
PER_CANARY = [k for k in ONE_RUN_KEYS if k != "primer_mean"]


def test_every_release_has_a_one_run_audit_beside_a_many_run_case():
    assert set(PER_CANARY) | {"primer_mean"} == set(ONE_RUN_KEYS)
    for key in ONE_RUN_KEYS:
        case = one_run_case(key, EPSILON, CANARIES)
        assert case.key == key and case.canaries == CANARIES and not case.broken
        assert audit_case(case.audited, EPSILON).epsilon == EPSILON  # a case of the catalogue
    with pytest.raises(ValueError, match="Unknown one-run audit"):
        one_run_case("nope")


@pytest.mark.parametrize("key", ONE_RUN_KEYS)
def test_a_correct_release_stays_at_or_below_its_claim(key):
    out = one_run(one_run_case(key, EPSILON, CANARIES), rng=11)
    assert out.guesses == 20 and 0 <= out.correct <= 20
    assert out.epsilon_lb == one_run_epsilon(20, out.correct)
    assert out.epsilon_lb <= EPSILON and not out.above_claim
    assert out.most == one_run_epsilon(20, 20)
    assert out.seconds >= 0.0
    assert one_run(one_run_case(key, EPSILON, CANARIES), rng=11).correct == out.correct  # seeded


@pytest.mark.parametrize("key", PER_CANARY)
def test_a_release_with_negligible_noise_is_caught(key):
    case = one_run_case(key, EPSILON, CANARIES, noise_epsilon=NEGLIGIBLE)
    out = one_run(case, rng=11)
    assert case.broken
    assert out.correct == out.guesses == 20
    assert out.epsilon_lb == one_run_epsilon(20, 20) > 1.8 and out.above_claim


def test_one_number_cannot_be_audited_per_canary_whatever_its_noise():
    case = one_run_case("primer_mean", EPSILON, CANARIES, noise_epsilon=NEGLIGIBLE)
    included = np.random.default_rng(0).random(CANARIES) < 0.5
    scores = case.run(included, np.random.default_rng(1))
    assert np.all(scores == scores[0])  # one answer for every canary: all "in" or all "out"
    assert "one bit" in case.note


def test_counts_per_group_with_their_noise_halved_are_caught():
    # Each canary alone in its group: a Laplace count of scale 1/(2 ε) moves by 1, so the odds
    # of a right guess given the count are at least e^(2 ε) : 1 beyond the midpoint's 1/2, and
    # among the 1,000 surest guesses the share right is about e^2 / (1 + e^2) = 0.88, 13 SDs
    # above the 0.75 at which the bound passes ε = 1.
    case = one_run_case("primer_count_groups", EPSILON, 5000, noise_epsilon=2 * EPSILON)
    out = one_run(case, rng=5)
    assert out.guesses == 1000 and out.above_claim


def test_a_correct_release_passes_its_claim_at_most_as_often_as_the_confidence_allows():
    seeds = 400
    case = one_run_case("primer_count_groups", EPSILON, 200)
    above = sum(one_run(case, rng=seed).above_claim for seed in range(seeds))
    assert above <= stats.binom.ppf(0.999, seeds, 0.05)


def test_the_attacker_guesses_on_its_surest_canaries_only():
    scores = np.array([3.0, -2.0, 0.1, -0.2, 1.0, -5.0, 0.0, 0.3, -0.4, 0.2])

    def run(included, rng):
        return np.where(included, 1.0, -1.0) * np.abs(scores)

    out = one_run(OneRunCase("toy", "toy", 1.0, 10, "any", "toy", "laplace", run), rng=0)
    assert out.guesses == default_guesses(10) == 2 and out.correct == 2

    def wrong(included, rng):
        return np.where(included, -1.0, 1.0) * np.abs(scores)

    assert one_run(OneRunCase("toy", "toy", 1.0, 10, "any", "toy", "laplace", wrong),
                   rng=0).correct == 0
    with pytest.raises(ValueError, match="shape"):
        one_run(OneRunCase("toy", "toy", 1.0, 10, "any", "toy", "laplace",
                           lambda s, rng: np.zeros(3)), rng=0)
    with pytest.raises(ValueError, match="at least 2 canaries"):
        one_run(OneRunCase("toy", "toy", 1.0, 1, "any", "toy", "laplace",
                           lambda s, rng: np.zeros(1)), rng=0)
    with pytest.raises(TypeError, match="OneRunCase"):
        one_run("toy")


def test_model_canaries_are_flipped_labels_with_both_classes_present():
    X, y = label_canaries(np.array([True, False, True]))
    assert X.shape == (5, 3) and np.allclose(np.linalg.norm(X[:3], axis=1), 1.0)
    assert y.tolist() == [1, 0, 1, 0, 1]
