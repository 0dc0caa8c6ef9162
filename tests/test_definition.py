"""Lecture 00's core: randomized response, neighbouring relations, privacy loss, group privacy, the adversary.

Each closed form is compared with something independent: brute force over outputs, sets or neighbours,
scipy's densities, numerical integration, Dwork & Roth's two-coin protocol, or a simulation within a CLT tolerance.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, special, stats

from dpviz import definition as Df
from dpviz import mechanisms as M
from dpviz.experiments.definition import (
    group_audit,
    post_processing_losses,
    posterior_check,
    posterior_curves,
    privacy_loss_view,
    survey_experiment,
)

Z = 4.5
LN3 = math.log(3.0)


# --------------------------------------------------------------------------- randomized response
def test_the_two_coin_protocol_is_randomized_response_at_ln3():
    """The two-coin protocol (Dwork & Roth, Sec. 3.2), coin by coin: heads -> the truth; tails -> a second coin."""
    gen = np.random.default_rng(1)
    k = 200_000
    first, second = gen.random(k) < 0.5, gen.random(k) < 0.5
    for answer in (0, 1):
        report = np.where(first, answer, second.astype(int))
        truthful = np.mean(report == answer)
        assert abs(truthful - 0.75) < Z * math.sqrt(0.75 * 0.25 / k)
    assert M.randomized_response_epsilon(0.75) == pytest.approx(LN3)
    assert M.randomized_response_probability(LN3) == pytest.approx(0.75)


@pytest.mark.parametrize("eps", [0.1, LN3, 3.0])
def test_randomized_response_reports_the_truth_with_probability_p(eps):
    k = 200_000
    p = M.randomized_response_probability(eps)
    assert p == pytest.approx(math.exp(eps) / (1 + math.exp(eps)))
    for answer in (0, 1):
        reports = M.randomized_response(answer, eps, rng=7 + answer, size=k)
        assert reports.shape == (k,) and set(np.unique(reports)) <= {0, 1}
        assert abs(np.mean(reports == answer) - p) < Z * math.sqrt(p * (1 - p) / k)
        np.testing.assert_allclose(M.randomized_response_pmf(answer, eps)[answer], p)


@pytest.mark.parametrize("eps", [0.05, 1.0, 5.0])
def test_randomized_response_epsilon_is_the_largest_log_ratio(eps):
    yes, no = M.randomized_response_pmf(1, eps), M.randomized_response_pmf(0, eps)
    assert max(abs(math.log(a / b)) for a, b in zip(yes, no, strict=True)) == pytest.approx(eps)
    assert Df.tight_epsilon(yes, no) == pytest.approx(eps)
    assert M.randomized_response_epsilon(M.randomized_response_probability(eps)) == pytest.approx(eps)
    assert M.randomized_response_epsilon(1 - M.randomized_response_probability(eps)) == pytest.approx(eps)


def test_survey_estimate_is_unbiased_with_the_closed_form_variance():
    s = survey_experiment(800, 200, 0.7, 6000, rng=5)
    v = M.randomized_response_variance(800, 0.7)
    p = M.randomized_response_probability(0.7)
    assert v == pytest.approx(p * (1 - p) / (800 * (2 * p - 1) ** 2))
    assert v == pytest.approx(math.exp(0.7) / (800 * math.expm1(0.7) ** 2))
    assert abs(s.estimates.mean() - 0.25) < Z * math.sqrt(v / s.trials)
    # the estimate is a scaled binomial sum, nearly normal: the sample variance has s.e. ~ v sqrt(2 / (T - 1))
    assert abs(s.simulated_variance - v) < Z * v * math.sqrt(2 / (s.trials - 1))
    # the raw fraction of "yes" reports is biased towards 1/2
    assert abs(s.raw_fractions.mean() - s.raw_expectation) < Z * math.sqrt(p * (1 - p) / (800 * s.trials))
    assert s.raw_expectation == pytest.approx(0.25 * p + 0.75 * (1 - p))


def test_randomized_response_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="answers"):
        M.randomized_response([0, 2], 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        M.randomized_response([0, 1], 40.0)     # the flip probability is below 2^-53
    with pytest.raises(ValueError, match="reports"):
        M.randomized_response_estimate([0.5, 1], 1.0)
    with pytest.raises(ValueError, match="probability"):
        M.randomized_response_epsilon(1.0)
    with pytest.raises(ValueError, match="answer"):
        M.randomized_response_pmf(2, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        M.randomized_response_variance(10, 1e-300)


# --------------------------------------------------------------------------- neighbours and sensitivity
def _brute_sensitivity(W: np.ndarray, relation: str) -> float:
    x = np.full(W.shape[1], 3.0)      # every cell non-empty: every move is possible
    return max(np.abs(W @ (y - x)).sum() for y in Df.histogram_neighbours(x, relation))


@pytest.mark.parametrize("seed", range(5))
def test_l1_sensitivity_is_the_largest_change_over_all_neighbours(seed):
    gen = np.random.default_rng(seed)
    W = gen.integers(-2, 3, size=(4, 5)).astype(float)
    for relation in Df.RELATIONS:
        assert Df.l1_sensitivity(W, relation) == pytest.approx(_brute_sensitivity(W, relation))
    assert Df.l1_sensitivity(W, "add/remove") == pytest.approx(M.l1(W))
    assert Df.l1_sensitivity(W, "replace-one") <= 2 * Df.l1_sensitivity(W, "add/remove") + 1e-12


def test_histogram_neighbours_are_one_person_apart():
    x = np.array([2.0, 0.0, 1.0])
    add_remove = Df.histogram_neighbours(x, "add/remove")
    assert len(add_remove) == 3 + 2          # add to any cell, remove from the two non-empty ones
    assert np.all(np.abs(add_remove - x).sum(axis=1) == 1)
    replace = Df.histogram_neighbours(x, "replace-one")
    assert len(replace) == 2 * 2            # from each non-empty cell to each of the 2 other cells
    assert np.all(replace.sum(axis=1) == x.sum()) and np.all(np.abs(replace - x).sum(axis=1) == 2)
    assert Df.l1_sensitivity(np.eye(6), "replace-one") == 2.0 and Df.l1_sensitivity(np.eye(1), "replace-one") == 0.0


# --------------------------------------------------------------------------- the privacy loss
def test_laplace_and_gaussian_losses_are_scipys_log_density_ratios():
    o = np.linspace(-20, 25, 301)
    b = M.laplace_scale(1.0, 0.7)
    np.testing.assert_allclose(Df.laplace_privacy_loss(o, 3.0, 4.0, 1.0, 0.7),
                               stats.laplace.logpdf(o, 3.0, b) - stats.laplace.logpdf(o, 4.0, b), atol=1e-12)
    np.testing.assert_allclose(Df.gaussian_privacy_loss(o, 3.0, 5.0, 2.5),
                               stats.norm.logpdf(o, 3.0, 2.5) - stats.norm.logpdf(o, 5.0, 2.5), atol=1e-10)


@pytest.mark.parametrize("k", [1, 2, 5])
def test_laplace_loss_reaches_exactly_group_epsilon(k):
    o = np.linspace(-30, 40, 1401)
    loss = Df.laplace_privacy_loss(o, 5.0, 5.0 + k, 1.0, 0.4)
    bound = Df.group_privacy(0.4, k)[0]
    assert bound == pytest.approx(0.4 * k)
    assert np.max(np.abs(loss)) == pytest.approx(bound)
    assert np.all(np.abs(loss) <= bound + 1e-12)


def test_tight_epsilon_over_points_is_the_worst_set():
    """Brute force over all 2^6 events: no set of outputs has a larger log-ratio than the worst single output."""
    gen = np.random.default_rng(3)
    for _ in range(20):
        p, q = gen.dirichlet(np.ones(6)), gen.dirichlet(np.ones(6))
        worst = 0.0
        for mask in itertools.product([0, 1], repeat=6):
            m = np.array(mask, bool)
            if m.any():
                worst = max(worst, abs(math.log(p[m].sum() / q[m].sum())))
        assert Df.tight_epsilon(p, q) == pytest.approx(worst)


def test_privacy_loss_of_impossible_outputs():
    loss = Df.privacy_loss([0.5, 0.5, 0.0, 0.0], [0.5, 0.0, 0.5, 0.0])
    assert loss[0] == 0 and loss[1] == np.inf and loss[2] == -np.inf and np.isnan(loss[3])
    assert Df.tight_epsilon([0.5, 0.5, 0.0], [0.5, 0.0, 0.5]) == np.inf
    with pytest.raises(ValueError, match="sum to 1"):
        Df.tight_epsilon([0.5, 0.4], [0.5, 0.5])


# --------------------------------------------------------------------------- group privacy
def test_group_delta_is_the_chain_of_neighbours():
    """Chaining (eps, delta) k times gives delta * sum_i e^{i eps}, below the k e^{(k-1) eps} delta of some texts."""
    for eps, k, delta in [(0.1, 2, 1e-6), (0.5, 5, 1e-5), (1.0, 10, 1e-8)]:
        e_k, d_k = Df.group_privacy(eps, k, delta)
        chained = delta * sum(math.exp(i * eps) for i in range(k))
        assert e_k == pytest.approx(k * eps) and d_k == pytest.approx(chained, rel=1e-12)
        assert d_k <= k * math.exp((k - 1) * eps) * delta
    with pytest.raises(ValueError, match="vacuous"):     # a delta of 1 promises nothing: refused, not capped
        Df.group_privacy(5.0, 30, 0.01)


def test_the_auditor_finds_a_groups_loss_near_k_epsilon():
    g = group_audit(0.25, [1, 2, 4], samples=200_000, rng=4)
    np.testing.assert_allclose(g.exact, [0.25, 0.5, 1.0])
    assert np.all(g.lower <= g.exact + 1e-9)          # a lower bound, 95 % confidence each: seeded
    assert np.all(g.lower >= 0.8 * g.exact)


# --------------------------------------------------------------------------- the adversary
@pytest.mark.parametrize("prior", [0.01, 0.3, 0.9])
@pytest.mark.parametrize("eps", [0.2, LN3, 4.0])
def test_posterior_bounds_are_attained_by_randomized_response_and_respected_by_laplace(prior, eps):
    low, high = Df.posterior_bounds(prior, eps)
    yes, no = M.randomized_response_pmf(1, eps), M.randomized_response_pmf(0, eps)
    after = Df.posterior(prior, yes, no)                 # after a "no" report, then after a "yes" report
    assert after[1] == pytest.approx(float(high)) and after[0] == pytest.approx(float(low))
    # Bayes by hand: prior odds times the likelihood ratio e^eps
    odds = prior / (1 - prior) * math.exp(eps)
    assert float(high) == pytest.approx(odds / (1 + odds))
    o = np.linspace(-40, 40, 2001)
    b = M.laplace_scale(1.0, eps)
    post = Df.posterior(prior, stats.laplace.pdf(o, 0.0, b), stats.laplace.pdf(o, 1.0, b))
    assert np.all(post <= high + 1e-12) and np.all(post >= low - 1e-12)


def test_posterior_check_simulation_matches_bayes():
    c = posterior_check(0.1, LN3, 200_000, rng=9)
    assert c.exact_yes == pytest.approx(0.25) and c.bound_high == pytest.approx(0.25)
    assert abs(c.simulated_yes - c.exact_yes) < Z * math.sqrt(c.exact_yes * (1 - c.exact_yes) / c.reported_yes)
    n_no = c.people - c.reported_yes
    assert abs(c.simulated_no - c.exact_no) < Z * math.sqrt(c.exact_no * (1 - c.exact_no) / n_no)
    curves = posterior_curves([0.5, 1.0], [0.2, 0.5])
    np.testing.assert_allclose(curves.high[1], special.expit(special.logit([0.2, 0.5]) + 1.0))


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_total_variation_closed_forms_against_integration_and_the_bound(eps):
    b = M.laplace_scale(1.0, eps)
    tv_lap = integrate.quad(lambda o: abs(stats.laplace.pdf(o, 0, b) - stats.laplace.pdf(o, 1, b)) / 2,
                            -60 * b, 60 * b, points=[0.0, 1.0], limit=200)[0]
    assert Df.laplace_total_variation(1.0, 1.0, eps) == pytest.approx(tv_lap, abs=1e-7)
    s = M.gaussian_sigma(1.0, eps, 1e-5)
    tv_gau = integrate.quad(lambda o: abs(stats.norm.pdf(o, 0, s) - stats.norm.pdf(o, 1, s)) / 2,
                            -40 * s, 40 * s, points=[0.5], limit=200)[0]
    assert Df.gaussian_total_variation(1.0, s) == pytest.approx(tv_gau, abs=1e-7)
    p = M.randomized_response_probability(eps)
    tv_rr = Df.total_variation(M.randomized_response_pmf(1, eps), M.randomized_response_pmf(0, eps))
    assert tv_rr == pytest.approx(2 * p - 1) == pytest.approx(Df.advantage_bound(eps))
    assert Df.laplace_total_variation(1.0, 1.0, eps) < Df.advantage_bound(eps)


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_power_bound_is_attained_by_randomized_response_and_respected_by_laplace_tests(eps):
    p = M.randomized_response_probability(eps)
    # the test "say D when the report is yes" has false-positive rate 1 - p and power p
    assert float(Df.power_bound(1 - p, eps)) == pytest.approx(p)
    b = M.laplace_scale(1.0, eps)
    t = np.linspace(-10, 10, 401)              # Neyman-Pearson tests of a Laplace count: say D when output < t
    alpha, power = stats.laplace.cdf(t, 1.0, b), stats.laplace.cdf(t, 0.0, b)
    assert np.all(power <= Df.power_bound(alpha, eps) + 1e-12)
    assert np.max(power - alpha) == pytest.approx(Df.laplace_total_variation(1.0, 1.0, eps), abs=1e-3)
    # (eps, delta): the advantage bound is where the two lines of the power bound meet
    a = (1 - 1e-3) / (math.exp(eps) + 1)
    assert float(Df.power_bound(a, eps, 1e-3)) - a == pytest.approx(Df.advantage_bound(eps, 1e-3))


# --------------------------------------------------------------------------- the explorer's data
@pytest.mark.parametrize("mechanism", ["randomized response", "Laplace", "Gaussian"])
@pytest.mark.parametrize("group", [1, 3])
def test_loss_view_simulation_agrees_with_the_exact_bins(mechanism, group):
    v = privacy_loss_view(mechanism, 0.8, group=group, samples=200_000, rng=11)
    ok = np.isfinite(v.simulated_loss)
    assert ok.sum() >= min(3, v.bin_centres.size)
    z = (v.simulated_loss[ok] - v.exact_bin_loss[ok]) / v.stderr[ok]
    assert np.max(np.abs(z)) < Z
    assert v.bound == pytest.approx(0.8 * group)
    if mechanism == "Gaussian":
        assert v.max_abs_loss > v.bound and v.tail_probability > 0
        se = math.sqrt(v.tail_probability * (1 - v.tail_probability) / v.samples)
        assert abs(v.simulated_tail_probability - v.tail_probability) < Z * se
    else:
        assert v.max_abs_loss == pytest.approx(v.bound) and v.tail_probability == 0
        assert np.all(np.abs(v.exact_bin_loss) <= v.bound + 1e-9)


def test_post_processing_never_raises_the_loss():
    pp = post_processing_losses(1.0, 3, top=10, samples=200_000, rng=2)
    assert pp.rounded_epsilon == pytest.approx(1.0) and pp.rounded_epsilon <= 1.0 + 1e-9
    half = 0.5 * math.exp(-0.5)        # P(Lap(1) > 1/2): the threshold halfway between the counts
    assert pp.threshold_epsilon == pytest.approx(math.log((1 - half) / half))
    assert pp.threshold_epsilon < 1.0
    se = np.sqrt(pp.pmf * (1 - pp.pmf) / pp.samples)
    assert np.all(np.abs(pp.simulated - pp.pmf) < Z * se + 1e-12)
