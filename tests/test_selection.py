"""Private selection (lecture 09): exact probabilities against brute force, quadrature, closed forms and simulation;
privacy losses over neighbouring score vectors; the utility guarantee; bad input refused by name.

Independent references used here: the textbook softmax written out, all m! orders of permute-and-flip enumerated,
the difference of two Laplace variables in closed form, scipy's adaptive quadrature, and simulation of each
algorithm as published.  Simulation tolerances are chi-square quantiles at level 1e-6 (multinomial counts), or
5 standard errors, never tuned to pass.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpviz import selection as S
from dpviz.accountant import BudgetExceededError, PrivacyAccountant
from dpviz.mechanisms import selection_scale

RNG = np.random.default_rng(20260901)
SCORES = [RNG.normal(0.0, sd, m).round(1) for m, sd in [(1, 1.0), (2, 1.0), (3, 3.0), (4, 10.0), (5, 0.5),
                                                          (6, 4.0)]]
MECHS = list(S.MECHANISMS)


def brute_force_permute_and_flip(u: np.ndarray, scale: float) -> np.ndarray:
    """P(r) by enumerating every order of the candidates: the walk stops at the first head."""
    p = np.exp((u - u.max()) / scale)
    out = np.zeros(u.size)
    for order in itertools.permutations(range(u.size)):
        reach = 1.0
        for r in order:
            out[r] += reach * p[r]
            reach *= 1.0 - p[r]
    return out / math.factorial(u.size)


def textbook_softmax(u: np.ndarray, epsilon: float, delta: float) -> np.ndarray:
    w = np.exp(epsilon * (u - u.max()) / (2 * delta))
    return w / w.sum()


# --------------------------------------------------------------------------- calibration
def test_selection_scale_is_2_delta_over_epsilon_and_half_for_monotone() -> None:
    assert selection_scale(3.0, 0.5) == 12.0
    assert selection_scale(3.0, 0.5, monotone=True) == 6.0


# --------------------------------------------------------------------------- exact probabilities
@pytest.mark.parametrize("u", SCORES, ids=lambda u: f"m{u.size}")
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 4.0])
def test_exponential_mechanism_is_the_textbook_softmax(u: np.ndarray, epsilon: float) -> None:
    np.testing.assert_allclose(S.exponential_probabilities(u, epsilon, 2.0), textbook_softmax(u, epsilon, 2.0),
                               rtol=1e-12, atol=0)
    np.testing.assert_allclose(S.exponential_probabilities(u, epsilon, 2.0, monotone=True),
                               textbook_softmax(u, 2 * epsilon, 2.0), rtol=1e-12, atol=0)


@pytest.mark.parametrize("u", SCORES, ids=lambda u: f"m{u.size}")
@pytest.mark.parametrize("epsilon,monotone", [(0.2, False), (1.0, True), (5.0, False)])
def test_permute_and_flip_closed_form_equals_enumerating_every_order(u: np.ndarray, epsilon: float,
                                                                    monotone: bool) -> None:
    exact = S.permute_and_flip_probabilities(u, epsilon, monotone=monotone)
    brute = brute_force_permute_and_flip(u, selection_scale(1.0, epsilon, monotone=monotone))
    np.testing.assert_allclose(exact, brute, rtol=1e-11, atol=1e-15)
    assert exact.sum() == pytest.approx(1.0, abs=1e-13)


@pytest.mark.parametrize("noise", S.NOISES)
@pytest.mark.parametrize("u", SCORES[1:5], ids=lambda u: f"m{u.size}")
def test_noisy_max_probabilities_equal_scipy_quadrature_of_the_integral(noise: str, u: np.ndarray) -> None:
    for epsilon in (0.3, 3.0):
        fast = S.noisy_max_probabilities(u, epsilon, noise)
        reference = S.noisy_max_integral(u, epsilon, noise)
        np.testing.assert_allclose(fast, reference, rtol=1e-10, atol=1e-14)


def test_gumbel_noise_gives_the_exponential_mechanism_and_exponential_noise_permute_and_flip() -> None:
    u = np.array([5.0, 4.0, 4.0, 1.0, -2.0])
    for eps in (0.1, 1.0, 10.0):
        np.testing.assert_allclose(S.noisy_max_integral(u, eps, "gumbel"), textbook_softmax(u, eps, 1.0),
                                   rtol=1e-10)
        np.testing.assert_allclose(S.noisy_max_integral(u, eps, "exponential"),
                                   brute_force_permute_and_flip(u, selection_scale(1.0, eps)), rtol=1e-10)


@pytest.mark.parametrize("d", [0.0, 0.3, 1.0, 4.0, 30.0])
def test_two_candidates_with_laplace_noise_match_the_difference_of_two_laplace_variables(d: float) -> None:
    # r = 1 wins when Z1 - Z0 > d (scale b); for a difference of two Laplace(b) variables and x >= 0:
    # P(Z1 - Z0 > x) = exp(-x / b) (2 + x / b) / 4
    b = selection_scale(1.0, 0.7)
    p = S.noisy_max_probabilities([d, 0.0], 0.7, "laplace")
    assert p[1] == pytest.approx(math.exp(-d / b) * (2 + d / b) / 4, rel=1e-12)


def test_tiny_probabilities_keep_their_relative_accuracy_in_logarithms() -> None:
    u = np.array([0.0, -300.0, -301.0])       # 150 and 150.5 scales below the best at epsilon = 1
    log_p = S.noisy_max_log_probabilities(u, 1.0, "laplace")
    ref = np.log(S.noisy_max_integral(u, 1.0, "laplace"))
    np.testing.assert_allclose(log_p, ref, rtol=1e-10)
    assert log_p[1] < -140 and np.isfinite(log_p).all()


# --------------------------------------------------------------------------- simulation
def _chi2_ok(picks: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    counts = np.bincount(picks, minlength=p.size)
    keep = p * picks.size >= 5                     # lump tiny cells (the chi-square needs expected counts >= 5)
    obs = np.append(counts[keep], counts[~keep].sum())
    exp = np.append(p[keep], p[~keep].sum()) * picks.size
    obs, exp = obs[exp > 0], exp[exp > 0]
    stat = float(((obs - exp) ** 2 / exp).sum())
    return stat, float(stats.chi2.ppf(1 - 1e-6, max(obs.size - 1, 1)))


@pytest.mark.parametrize("mechanism", MECHS)
@pytest.mark.parametrize("monotone", [False, True])
def test_each_algorithm_draws_its_exact_probabilities(mechanism: str, monotone: bool) -> None:
    u = np.array([10.0, 9.0, 9.0, 7.0, 3.0, 0.0])
    p = S.selection_probabilities(u, 0.8, mechanism, monotone=monotone)
    picks = S.select(u, 0.8, mechanism, monotone=monotone, rng=11, size=200_000)
    stat, limit = _chi2_ok(np.asarray(picks), p)
    assert stat < limit, (mechanism, stat, limit)


def test_report_noisy_max_with_gumbel_noise_is_the_exponential_mechanism_and_with_exponential_noise_pf() -> None:
    u = np.array([4.0, 3.5, 2.0, 2.0, -1.0])
    em = S.exponential_probabilities(u, 1.5)
    stat, limit = _chi2_ok(np.asarray(S.noisy_max_select(u, 1.5, "gumbel", rng=3, size=200_000)), em)
    assert stat < limit
    pf = S.permute_and_flip_probabilities(u, 1.5)
    stat, limit = _chi2_ok(np.asarray(S.noisy_max_select(u, 1.5, "exponential", rng=4, size=200_000)), pf)
    assert stat < limit
    np.testing.assert_allclose(S.noisy_max_probabilities(u, 1.5, "gumbel"), em, rtol=1e-14)


def test_seeded_runs_repeat_and_one_release_is_an_int() -> None:
    for mech in MECHS:
        a = S.select([1.0, 2.0, 3.0], 1.0, mech, rng=5, size=50)
        b = S.select([1.0, 2.0, 3.0], 1.0, mech, rng=5, size=50)
        assert np.array_equal(a, b)
        one = S.select([1.0, 2.0, 3.0], 1.0, mech, rng=5)
        assert isinstance(one, int) and 0 <= one < 3


def test_huge_scores_do_not_swallow_the_noise() -> None:
    # two tied scores of 1e17 with noise of scale 2e-3: u + s Z would round to u and always pick the first
    picks = S.noisy_max_select([1e17, 1e17], 1000.0, "laplace", rng=0, size=20_000)
    assert abs(np.mean(picks) - 0.5) < 5 * math.sqrt(0.25 / 20_000)


# --------------------------------------------------------------------------- privacy
@pytest.mark.parametrize("mechanism", MECHS)
@pytest.mark.parametrize("u", SCORES[1:], ids=lambda u: f"m{u.size}")
def test_exact_loss_over_neighbours_is_at_most_epsilon(mechanism: str, u: np.ndarray) -> None:
    for eps in (0.5, 2.0):
        assert S.selection_privacy_loss(u, eps, mechanism) <= eps * (1 + 1e-9)
        assert S.selection_privacy_loss(u, eps, mechanism, monotone=True, relation="monotone") <= eps * (1 + 1e-9)
        # random neighbours inside the box (not only corners), in both directions
        for _ in range(5):
            other = u + RNG.uniform(-1, 1, u.size)
            lp, lq = (S.selection_log_probabilities(v, eps, mechanism) for v in (u, other))
            assert np.max(np.abs(lp - lq)) <= eps * (1 + 1e-9)


def test_the_exponential_mechanism_loss_approaches_epsilon_at_a_corner() -> None:
    # candidate 0 down by 1, the nine others up by 1: ln ratio = 2/s + ln(Z'/Z) -> epsilon as the others dominate
    u = np.array([0.0] + [5.0] * 9)
    loss = S.selection_privacy_loss(u, 1.0)
    assert 0.99 < loss <= 1.0


def test_without_the_factor_two_scores_moving_apart_leak_more_than_epsilon() -> None:
    u = np.zeros(5)
    assert S.selection_privacy_loss(u, 1.0, "exponential", monotone=True) > 1.5
    assert S.selection_privacy_loss(u, 1.0, "rnm-laplace", monotone=True) > 1.5
    assert S.selection_privacy_loss(u, 1.0, "permute-and-flip", monotone=True) > 1.5
    # ... while for monotone neighbours (counts, add/remove-one) the halved noise is enough ([DR14] Claim 3.9)
    assert S.selection_privacy_loss(u, 1.0, "rnm-laplace", monotone=True, relation="monotone") <= 1.0


def test_neighbouring_scores_lists_every_corner() -> None:
    assert S.neighbouring_scores([0.0, 0.0, 0.0]).shape == (8, 3)
    mono = S.neighbouring_scores([0.0, 0.0, 0.0], 2.0, "monotone")
    assert mono.shape == (14, 3) and set(np.unique(mono)) == {-2.0, 0.0, 2.0}
    assert all((row >= 0).all() or (row <= 0).all() for row in mono)


# --------------------------------------------------------------------------- utility
def test_utility_guarantee_holds_exactly_and_bounds_the_expected_shortfall() -> None:
    for _ in range(30):
        m = int(RNG.integers(2, 40))
        u = RNG.normal(0, RNG.choice([1.0, 10.0, 100.0]), m)
        eps = float(RNG.choice([0.05, 0.5, 5.0]))
        p = S.exponential_probabilities(u, eps)
        for t in (0.0, 1.0, 3.0):
            gap = S.exponential_utility_gap(eps, m, t)
            assert S.shortfall_probability(u, p, gap) <= math.exp(-t) + 1e-12
        assert u.max() - S.expected_score(u, p) <= S.exponential_utility_gap(eps, m, 1.0) + 1e-9


def test_permute_and_flip_never_scores_below_the_exponential_mechanism() -> None:
    for _ in range(200):
        m = int(RNG.integers(2, 30))
        u = RNG.normal(0, RNG.choice([1.0, 10.0]), m).round(int(RNG.integers(0, 2)))
        eps = float(RNG.choice([0.05, 0.3, 1.0, 5.0]))
        mono = bool(RNG.integers(0, 2))
        em = S.expected_score(u, S.exponential_probabilities(u, eps, monotone=mono))
        pf = S.expected_score(u, S.permute_and_flip_probabilities(u, eps, monotone=mono))
        assert pf >= em - 1e-9 * max(1.0, abs(em))


# --------------------------------------------------------------------------- accounting and bad input
def test_every_sampler_charges_size_times_epsilon_or_nothing() -> None:
    acc = PrivacyAccountant(1.0)
    S.select([1.0, 2.0], 0.1, "rnm-laplace", size=3, accountant=acc, rng=0)
    assert acc.spent.epsilon == pytest.approx(0.3)
    with pytest.raises(BudgetExceededError):
        S.select([1.0, 2.0], 0.1, "permute-and-flip", size=8, accountant=acc, rng=0)
    assert acc.spent.epsilon == pytest.approx(0.3)


@pytest.mark.parametrize("call,name", [
    (lambda: S.exponential_probabilities([], 1.0), "scores"),
    (lambda: S.exponential_probabilities([[1.0, 2.0]], 1.0), "scores"),
    (lambda: S.exponential_probabilities([1.0, np.nan], 1.0), "scores"),
    (lambda: S.exponential_probabilities([1.0, 2.0], 0.0), "epsilon"),
    (lambda: S.exponential_probabilities([1.0, 2.0], 1.0, sensitivity=0.0), "sensitivity"),
    (lambda: S.exponential_probabilities([1.0, 2.0], 1.0, monotone="yes"), "monotone"),
    (lambda: S.noisy_max_select([1.0, 2.0], 1.0, "cauchy"), "noise"),
    (lambda: S.select([1.0, 2.0], 1.0, "em"), "mechanism"),
    (lambda: S.select([1.0, 2.0], 1.0, size=0), "size"),
    (lambda: S.permute_and_flip_select([1.0, 2.0], 1.0, size=10**12), "size"),
    (lambda: S.exponential_utility_gap(1.0, 0, 1.0), "candidates"),
    (lambda: S.exponential_utility_gap(1.0, 3, -1.0), "t"),
    (lambda: S.neighbouring_scores(np.zeros(13)), "scores"),
    (lambda: S.selection_privacy_loss([1.0, 2.0], 1.0, relation="replace"), "relation"),
    (lambda: S.expected_score([1.0, 2.0], [0.5, 0.6]), "probabilities"),
    (lambda: S.shortfall_probability([1.0, 2.0], [0.5, 0.5], -1.0), "gap"),
])
def test_bad_input_is_refused_by_name(call, name: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises((ValueError, TypeError), match=rf"\b{name}\b"):
        call()


def test_a_log_probability_rounded_above_zero_gives_probability_one_not_more() -> None:
    from dpviz.selection.scores import _from_logs

    assert float(np.exp(2.2e-16)) > 1.0                      # what np.exp alone gave (numpy 1.26: entries 1 + 2e-16)
    p = _from_logs(np.array([2.2e-16, -40.0]))
    assert p[0] == 1.0 and 0.0 < p[1] < 1e-17


@pytest.mark.parametrize("fn", [S.exponential_probabilities, S.permute_and_flip_probabilities])
def test_probabilities_stay_in_the_unit_interval_for_a_dominant_candidate(fn) -> None:
    for gap in (30.0, 300.0, 3000.0):
        p = fn([0.0, -gap, -2 * gap], 5.0)
        assert np.all((p >= 0.0) & (p <= 1.0)) and abs(p.sum() - 1.0) < 1e-12, p
