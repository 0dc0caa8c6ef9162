"""Rényi DP and zCDP, checked against independent computations.

* the Rényi divergences of the Laplace and Gaussian mechanisms against quadrature of their densities;
* Bun & Steinke's conversion against Mironov's, minimised by brute force over a fine grid of orders;
* both conversions against the exact (eps, delta) of the composed Gaussian mechanism (Balle & Wang's delta with
  sigma / sqrt(k)): they must never be below it, and the exact delta at their epsilon must not exceed delta;
* Laplace's Rényi route against the Laplace loss law bracketed on a grid.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from dpviz import composition as C
from dpviz.mechanisms import gaussian_delta, gaussian_epsilon


def _renyi_quad(logp, logq, alpha: float, breaks: list[float], lo: float, hi: float) -> float:
    """D_alpha(P || Q) = ln(int p^alpha q^(1-alpha)) / (alpha - 1), by quadrature on pieces."""
    f = lambda y: math.exp(alpha * logp(y) + (1 - alpha) * logq(y))   # noqa: E731
    pts = [lo, *breaks, hi]
    total = sum(integrate.quad(f, a, b, limit=200)[0] for a, b in zip(pts[:-1], pts[1:], strict=True))
    return math.log(total) / (alpha - 1)


@pytest.mark.parametrize("eps", [0.1, 0.5, 2.0])
@pytest.mark.parametrize("alpha", [1.2, 2.0, 7.5, 40.0])
def test_laplace_rdp_is_the_renyi_divergence_of_the_two_densities(eps, alpha):
    b = 1 / eps
    logp = lambda y: -abs(y) / b - math.log(2 * b)        # noqa: E731
    logq = lambda y: -abs(y - 1) / b - math.log(2 * b)    # noqa: E731
    d = _renyi_quad(logp, logq, alpha, [0.0, 1.0], -80 * b, 80 * b)
    assert float(C.laplace_rdp(alpha, eps)) == pytest.approx(d, rel=1e-7)
    # the other direction (D', D) gives the same value: the pair is symmetric
    assert _renyi_quad(logq, logp, alpha, [0.0, 1.0], -80 * b, 80 * b) == pytest.approx(d, rel=1e-7)
    assert float(C.laplace_rdp(alpha, eps)) <= min(alpha * C.pure_dp_rho(eps), eps) + 1e-12


def test_laplace_rdp_limits_kl_and_infinity():
    eps = 0.7
    b = 1 / eps
    kl = integrate.quad(lambda y: (abs(y - 1) - abs(y)) / b * math.exp(-abs(y) / b) / (2 * b), -80, 0)[0] \
        + integrate.quad(lambda y: (abs(y - 1) - abs(y)) / b * math.exp(-abs(y) / b) / (2 * b), 0, 1)[0] \
        + integrate.quad(lambda y: (abs(y - 1) - abs(y)) / b * math.exp(-abs(y) / b) / (2 * b), 1, 80)[0]
    assert float(C.laplace_rdp(1.0, eps)) == pytest.approx(kl, rel=1e-9)
    assert float(C.laplace_rdp(1.0 + 1e-7, eps)) == pytest.approx(kl, rel=1e-5)      # continuous at 1
    assert float(C.laplace_rdp(np.inf, eps)) == eps and float(C.laplace_rdp(1e6, eps)) == pytest.approx(eps, rel=1e-4)
    assert np.all(np.diff(C.laplace_rdp(C.ORDERS, eps)) >= -1e-12)                   # non-decreasing in alpha


@pytest.mark.parametrize("alpha", [1.5, 3.0, 20.0])
def test_gaussian_rdp_is_the_renyi_divergence_of_two_normals(alpha):
    sigma = 2.5
    logp = lambda y: -y * y / (2 * sigma**2)          # noqa: E731 - constants cancel in the ratio of integrals
    logq = lambda y: -(y - 1) ** 2 / (2 * sigma**2)   # noqa: E731
    norm = math.log(math.sqrt(2 * math.pi) * sigma)
    d = _renyi_quad(lambda y: logp(y) - norm, lambda y: logq(y) - norm, alpha, [0.0, 1.0], -60 * sigma, 60 * sigma)
    assert float(C.gaussian_rdp(alpha, sigma)) == pytest.approx(d, rel=1e-7)
    assert C.gaussian_rho(sigma) == pytest.approx(1 / (2 * sigma**2))


@pytest.mark.parametrize("rho", [1e-4, 0.05, 0.25, 3.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 1e-2])
def test_bun_steinke_is_mironovs_conversion_at_the_best_order(rho, delta):
    alphas = 1 + np.logspace(-6, 6, 200_001)
    brute = float(np.min(alphas * rho + math.log(1 / delta) / (alphas - 1)))
    assert C.zcdp_epsilon(rho, delta) == pytest.approx(brute, rel=1e-6)
    # the tighter conversion, minimised by brute force over the same orders
    cks = float(np.min(alphas * rho + np.log1p(-1 / alphas) - (math.log(delta) + np.log(alphas)) / (alphas - 1)))
    assert C.zcdp_epsilon(rho, delta, "cks") == pytest.approx(max(cks, 0.0), rel=1e-6, abs=1e-12)
    assert C.zcdp_epsilon(rho, delta, "cks") <= C.zcdp_epsilon(rho, delta)


@pytest.mark.parametrize("sigma", [1.0, 5.0, 30.0])
@pytest.mark.parametrize("k", [1, 10, 100, 1000])
@pytest.mark.parametrize("delta", [1e-9, 1e-6, 1e-3])
def test_zcdp_conversions_are_valid_for_the_exact_composed_gaussian(sigma, k, delta):
    """k Gaussian releases are one Gaussian mechanism with sigma / sqrt(k): its exact delta is a check."""
    rho = k * C.gaussian_rho(sigma)
    exact = gaussian_epsilon(sigma / math.sqrt(k), 1.0, delta)
    bs, cks = C.zcdp_epsilon(rho, delta), C.zcdp_epsilon(rho, delta, "cks")
    assert exact <= cks + 1e-9 <= bs + 2e-9
    assert gaussian_delta(sigma / math.sqrt(k), 1.0, bs) <= delta * (1 + 1e-9)
    assert gaussian_delta(sigma / math.sqrt(k), 1.0, cks) <= delta * (1 + 1e-9)
    # the grid of orders gives the same answer as the continuous minimisation, never below it
    grid = C.rdp_epsilon(C.ORDERS, C.gaussian_rdp(C.ORDERS, sigma) * k, delta)
    assert cks - 1e-9 <= grid <= cks * 1.01 + 1e-9


def test_rho_adds_under_composition_and_matches_sigma_over_sqrt_k():
    sigma, k = 7.0, 49
    assert k * C.gaussian_rho(sigma) == pytest.approx(C.gaussian_rho(sigma / math.sqrt(k)))
    assert C.gaussian_rho(sigma / 7.0) == pytest.approx(0.5)


@pytest.mark.parametrize("eps0,k", [(0.1, 100), (0.5, 20), (1.0, 5)])
def test_laplace_renyi_route_is_valid_for_the_exact_laplace_composition(eps0, k):
    lo = C.laplace_loss_distribution(eps0, k, step=1e-3, rounding="down")
    for delta in [1e-8, 1e-5]:
        exact_low = C.loss_epsilon(lo, delta)
        assert exact_low <= C.rdp_epsilon(C.ORDERS, k * C.laplace_rdp(C.ORDERS, eps0), delta) + 1e-9
        assert exact_low <= C.zcdp_epsilon(k * C.pure_dp_rho(eps0), delta) + 1e-9
    # at alpha = inf both conversions give the pure-DP total k eps0: Rényi is never worse than basic composition
    assert C.rdp_epsilon(np.array([np.inf]), np.array([k * eps0]), 1e-6) == pytest.approx(k * eps0)


@pytest.mark.parametrize("call,match", [
    (lambda: C.zcdp_epsilon(-1.0, 1e-5), "rho"),
    (lambda: C.zcdp_epsilon(0.1, 1.5), "delta"),
    (lambda: C.zcdp_epsilon(0.1, 1e-5, "guess"), "conversion"),
    (lambda: C.laplace_rdp(0.5, 1.0), "alpha"),
    (lambda: C.laplace_rdp(np.ones((2, 2)) * 2, 1.0), "alpha"),
    (lambda: C.laplace_rdp([2.0, np.nan], 1.0), "alpha"),
    (lambda: C.rdp_epsilon([1.0, 2.0], [0.1, 0.2], 1e-5), "alpha"),
    (lambda: C.rdp_epsilon([2.0, 3.0], [0.1], 1e-5), "rdp"),
    (lambda: C.rdp_epsilon([2.0, 3.0], [0.1, -0.2], 1e-5), "rdp"),
    (lambda: C.gaussian_rho(0.0), "sigma"),
    (lambda: C.gaussian_rho(1.0, l2_sensitivity=-1.0), "l2_sensitivity"),
    (lambda: C.pure_dp_rho(1e300), "overflows"),
    (lambda: gaussian_epsilon(1.0, 1.0, 0.0), "delta"),
])
def test_bad_input_is_refused_by_name(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
