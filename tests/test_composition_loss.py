"""The privacy-loss view of composition, checked against numerical integration, brute force and the papers' formulas.

* one Laplace release: its loss law against quadrature of the two densities (delta(eps) = int (p - e^eps q)_+);
* k releases: the grid bracket holds the exact delta (k = 2 by quadrature over the first loss) and a simulation;
* the FFT convolution against direct convolution; E[e^-L] = 1 and the mean k(eps + e^-eps - 1) bracketed;
* optimal composition against Kairouz, Oh & Viswanath's closed form (ICML 2015, Thm 3.3) and advanced composition;
* the crossover of advanced and basic composition against brute force.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, special

from dpviz import composition as C

Z = 4.5


def _laplace_delta_quad(eps0: float, eps: float) -> float:
    """delta(eps) of one Laplace count (scale 1/eps0, D: 0, D': 1) by quadrature of (p - e^eps q)_+."""
    b = 1.0 / eps0
    p = lambda y: math.exp(-abs(y) / b) / (2 * b)          # noqa: E731
    q = lambda y: math.exp(-abs(y - 1) / b) / (2 * b)      # noqa: E731
    f = lambda y: max(p(y) - math.exp(eps) * q(y), 0.0)    # noqa: E731
    return sum(integrate.quad(f, lo, hi, limit=200)[0] for lo, hi in [(-60 * b, 0), (0, 1), (1, 60 * b)])


def _delta_general(eps0: float, t: float) -> float:
    """E[(1 - e^(t - L))_+] for one Laplace loss, any real t (quadrature over the loss law's atoms and density)."""
    f = lambda l: max(0.0, -math.expm1(t - l))             # noqa: E731
    atoms = 0.5 * f(eps0) + 0.5 * math.exp(-eps0) * f(-eps0)
    dens = integrate.quad(lambda l: 0.25 * math.exp((l - eps0) / 2) * f(l), -eps0, eps0, limit=200)[0]
    return atoms + dens


@pytest.mark.parametrize("eps0", [0.1, 0.7, 2.0])
def test_one_laplace_release_delta_matches_quadrature_and_closed_form(eps0):
    up = C.laplace_loss_distribution(eps0, 1, step=1e-4)
    lo = C.laplace_loss_distribution(eps0, 1, step=1e-4, rounding="down")
    for eps in [0.0, 0.3 * eps0, 0.9 * eps0]:
        exact = _laplace_delta_quad(eps0, eps)
        assert exact == pytest.approx(-math.expm1((eps - eps0) / 2), abs=1e-9)   # known closed form
        assert exact == pytest.approx(_delta_general(eps0, eps), abs=1e-9)
        assert C.loss_delta(lo, eps) - 1e-12 <= exact <= C.loss_delta(up, eps) + 1e-12
        # the grid moves each loss by at most one step h:
        # delta(eps + h) <= delta_low(eps) and delta_up(eps) <= delta(eps - h)
        assert C.loss_delta(up, eps) <= _delta_general(eps0, eps - 1e-4) + 1e-9
        assert C.loss_delta(lo, eps) >= _delta_general(eps0, eps + 1e-4) - 1e-9


def test_two_releases_bracket_the_quadrature_of_the_composed_delta():
    eps0 = 0.5
    up = C.laplace_loss_distribution(eps0, 2, step=1e-3)
    lo = C.laplace_loss_distribution(eps0, 2, step=1e-3, rounding="down")
    for eps in [0.0, 0.4, 0.8]:
        # delta_2(eps) = E_{L1}[ E[(1 - e^(eps - L1 - L2))_+] ]: condition on the first loss
        def g(l1: float, eps: float = eps) -> float:
            return _delta_general(eps0, eps - l1)

        exact = (0.5 * g(eps0) + 0.5 * math.exp(-eps0) * g(-eps0)
                 + integrate.quad(lambda l, g=g: 0.25 * math.exp((l - eps0) / 2) * g(l), -eps0, eps0, limit=100)[0])
        assert C.loss_delta(lo, eps) - 1e-10 <= exact <= C.loss_delta(up, eps) + 1e-10
        assert C.loss_delta(up, eps) - C.loss_delta(lo, eps) < 5e-3


def test_fft_convolution_equals_direct_convolution():
    one = C.laplace_loss_distribution(0.3, 1, step=0.01)
    three = C.laplace_loss_distribution(0.3, 3, step=0.01)
    direct = np.convolve(np.convolve(one.probs, one.probs), one.probs)
    grid = np.round((three.losses - three.losses[0]) / 0.01).astype(int)
    np.testing.assert_allclose(three.probs, direct[grid], atol=1e-15)
    assert three.losses[0] == pytest.approx(3 * one.losses[0]) and three.losses[-1] == pytest.approx(0.9)


@pytest.mark.parametrize("eps0,k", [(0.1, 1), (0.1, 50), (1.0, 10)])
def test_grid_law_is_a_privacy_loss_law_and_brackets_the_mean(eps0, k):
    up = C.laplace_loss_distribution(eps0, k, step=1e-3)
    lo = C.laplace_loss_distribution(eps0, k, step=1e-3, rounding="down")
    assert up.probs.sum() == pytest.approx(1.0, abs=1e-12) and lo.probs.sum() == pytest.approx(1.0, abs=1e-12)
    # E_D[e^-L] = E_D[q/p] = 1; rounding losses up lowers it, down raises it
    assert np.dot(up.probs, np.exp(-up.losses)) <= 1 + 1e-12 <= np.dot(lo.probs, np.exp(-lo.losses)) + 2e-12
    kl = k * (eps0 + math.exp(-eps0) - 1)
    assert lo.mean <= kl + 1e-12 <= up.mean + 2e-12 and up.mean - lo.mean <= k * 1e-3 + 1e-12
    assert kl == pytest.approx(k * float(C.laplace_rdp(1.0, eps0)))
    # the largest total loss is k eps0, with probability 2^-k (every release at its top atom)
    # (rounded down, the top grid point holds the atoms only: the density below eps0 goes one step lower)
    # (FFT roundoff is ~1e-16 per point: the atom is checked where 2^-k is well above it)
    assert lo.losses[-1] == pytest.approx(k * eps0)
    if 0.5**k > 1e-12:
        assert lo.probs[-1] == pytest.approx(0.5**k, rel=1e-3)


def test_simulated_total_loss_agrees_with_the_grid_law():
    eps0, k, n = 0.2, 30, 200_000
    sim = C.laplace_loss_samples(eps0, k, n, rng=11)
    up = C.laplace_loss_distribution(eps0, k, step=1e-3)
    lo = C.laplace_loss_distribution(eps0, k, step=1e-3, rounding="down")
    for t in [-1.0, 0.0, 0.5, 1.5, 2.5]:
        p_sim = float(np.mean(sim > t))
        se = math.sqrt(max(p_sim * (1 - p_sim), 1e-12) / n)
        assert C.loss_tail(lo, t) - Z * se <= p_sim <= C.loss_tail(up, t) + Z * se
    for eps in [0.5, 1.5]:
        d_sim = np.maximum(0.0, -np.expm1(eps - sim))
        se = d_sim.std(ddof=1) / math.sqrt(n)
        assert C.loss_delta(lo, eps) - Z * se <= d_sim.mean() <= C.loss_delta(up, eps) + Z * se
    assert np.all(np.abs(sim) <= k * eps0 + 1e-12)


def test_laplace_loss_is_the_log_density_ratio():
    y = np.array([-5.0, -0.2, 0.0, 0.3, 0.5, 1.0, 7.0])
    eps = 0.8
    b = 1 / eps
    ratio = (-np.abs(y) / b) - (-np.abs(y - 1) / b)
    np.testing.assert_allclose(C.laplace_loss(y, eps), ratio, atol=1e-15)


def test_loss_epsilon_inverts_loss_delta_exactly():
    d = C.laplace_loss_distribution(0.2, 40, step=1e-3)
    for delta in [1e-9, 1e-6, 1e-3, 0.05]:
        eps = C.loss_epsilon(d, delta)
        assert C.loss_delta(d, eps) == pytest.approx(delta, rel=1e-9)
        assert C.loss_delta(d, eps * (1 - 1e-6)) > delta
    assert C.loss_epsilon(d, 0.0) == pytest.approx(40 * 0.2)
    rr = C.LossDistribution(np.array([-1.0, 1.0]), np.array([1 / (1 + math.e), math.e / (1 + math.e)]))
    assert C.loss_epsilon(rr, 0.2) == pytest.approx(1 + math.log(1 - 0.2 * (1 + math.exp(-1))))


def _kov_delta(eps0: float, k: int, i: int) -> float:
    """Kairouz, Oh & Viswanath (ICML 2015) Thm 3.3: delta_i at eps_i = (k - 2i) eps0."""
    return sum(math.comb(k, l) * (math.exp((k - l) * eps0) - math.exp((k - 2 * i + l) * eps0))
               for l in range(i)) / (1 + math.exp(eps0)) ** k


@pytest.mark.parametrize("eps0,k", [(0.1, 20), (0.5, 9), (1.0, 4)])
def test_optimal_composition_matches_the_papers_closed_form(eps0, k):
    for i in range(1, k // 2):
        delta_i = _kov_delta(eps0, k, i)
        assert C.optimal_composition(eps0, k, delta_i) == pytest.approx((k - 2 * i) * eps0, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("eps0", [0.01, 0.1, 0.5])
@pytest.mark.parametrize("k", [1, 10, 100, 1000])
@pytest.mark.parametrize("dp", [1e-9, 1e-5])
def test_optimal_is_below_advanced_and_basic_and_laplace_is_below_optimal(eps0, k, dp):
    opt = C.optimal_composition(eps0, k, dp)
    assert opt <= C.advanced_composition(eps0, k, dp)[0] + 1e-12
    assert opt <= C.basic_composition(eps0, k)[0] + 1e-12
    if k <= 100:   # the Laplace mechanism is one eps0-DP mechanism: its exact value cannot exceed the optimum
        lo = C.laplace_loss_distribution(eps0, k, step=min(1e-3, eps0 / 20), rounding="down")
        assert C.loss_epsilon(lo, dp) <= opt + 1e-9


def test_advanced_crossover_against_brute_force():
    for eps, dp in [(0.1, 1e-6), (0.05, 1e-9), (0.5, 1e-3), (0.69, 1e-6)]:
        k_star = C.advanced_crossover(eps, dp)
        brute = next(k for k in range(1, 10**6)
                     if C.advanced_composition(eps, k, dp)[0] < C.basic_composition(eps, k)[0])
        assert k_star == brute
    assert C.advanced_crossover(math.log(2) + 1e-9, 1e-6) is None and C.advanced_crossover(3.0, 0.1) is None


def test_group_privacy_against_the_chain_of_neighbours():
    eps, g, delta = 0.3, 4, 1e-6
    e, d = C.group_privacy(eps, g, delta)
    chain = sum(math.exp(i * eps) for i in range(g)) * delta   # P0 <= e^eps P1 + delta <= ... along the chain
    assert e == pytest.approx(g * eps) and d == pytest.approx(chain, rel=1e-12)
    # the Laplace count: D and D + g records are g apart; the largest log density ratio is g * eps
    b = 1 / eps
    y = np.linspace(-50, 50, 20_001)
    assert np.max((np.abs(y - g) - np.abs(y)) / b) == pytest.approx(g * eps)


@pytest.mark.parametrize("call,match", [
    (lambda: C.laplace_loss_distribution(0.1, 3, step=0.0), "step"),
    (lambda: C.laplace_loss_distribution(0.1, 3, rounding="sideways"), "rounding"),
    (lambda: C.laplace_loss_distribution(0.1, 3, step=0.5), "step"),
    (lambda: C.laplace_loss_distribution(1.0, 10**6, step=1e-3), "step or lower k"),
    (lambda: C.laplace_loss_distribution(0.1, 0), "k"),
    (lambda: C.laplace_loss_samples(0.1, 3, 0), "samples"),
    (lambda: C.loss_delta("law", 0.1), "dist"),
    (lambda: C.loss_epsilon(C.LossDistribution(np.array([0.0]), np.array([0.5])), 0.1), "delta"),
    (lambda: C.LossDistribution(np.array([1.0, 0.0]), np.array([0.5, 0.5])), "increasing"),
    (lambda: C.LossDistribution(np.array([0.0, 1.0]), np.array([0.9, 0.9])), "probs"),
    (lambda: C.optimal_composition(0.1, 10**8, 1e-6), "k"),
    (lambda: C.optimal_composition(0.1, 10, 1.5), "delta_prime"),
    (lambda: C.advanced_crossover(0.1, 0.0), "delta_prime"),
    (lambda: C.group_privacy(0.1, 0), "group_size"),
    (lambda: C.group_privacy(5.0, 20, delta=1e-3), "vacuous"),
])
def test_bad_input_is_refused_by_name(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_special_is_the_scipy_we_think():   # the KOV closed form uses math.comb; special.comb agrees
    assert special.comb(20, 7, exact=True) == math.comb(20, 7)


@pytest.mark.parametrize("eps0", [1e-4, 0.01, 0.1, 0.49, 0.51, 1.0, 3.0])
def test_loss_moments_against_quadrature_and_the_grid(eps0):
    mean, var = C.laplace_loss_moments(eps0)
    second = (0.5 * eps0**2 + 0.5 * math.exp(-eps0) * eps0**2
              + integrate.quad(lambda l: l * l * 0.25 * math.exp((l - eps0) / 2), -eps0, eps0,
                               epsabs=0, epsrel=1e-13)[0])
    assert mean == pytest.approx(float(C.laplace_rdp(1.0, eps0)), rel=1e-9)
    assert var == pytest.approx(second - mean**2, rel=1e-9)
    if eps0 >= 0.01:   # on the grid the losses move by at most one step h: the variance by O(h)
        h = eps0 / 200
        for rounding in ("up", "down"):
            d = C.laplace_loss_distribution(eps0, 1, step=h, rounding=rounding)
            grid_var = float(np.dot(d.probs, d.losses**2) - d.mean**2)
            assert abs(grid_var - var) <= 4 * h * eps0 + h * h


def test_loss_variance_adds_over_releases_in_simulation():
    eps0, k, n = 0.5, 20, 200_000
    sim = C.laplace_loss_samples(eps0, k, n, rng=4)
    var = k * C.laplace_loss_moments(eps0)[1]
    # standard error of a sample variance: sqrt((mu4 - var^2) / n), with mu4 <= 3 var^2 + k * (2 eps0)^4 (bounded terms)
    se = math.sqrt((3 * var**2 + k * (2 * eps0) ** 4) / n)
    assert abs(sim.var(ddof=1) - var) < Z * se
