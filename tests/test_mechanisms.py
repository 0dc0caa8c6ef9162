import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz import mechanisms as M

Z = 4.5
BAD_EPS = [0, -1.0, float("nan"), float("inf"), -float("inf")]


def test_laplace_shape_and_seed_reproducible():
    a = M.laplace([1.0, 2.0, 3.0], 1.0, 0.5, rng=7, size=4)
    b = M.laplace([1.0, 2.0, 3.0], 1.0, 0.5, rng=7, size=4)
    assert a.shape == (4, 3)
    np.testing.assert_array_equal(a, b)
    assert M.laplace([1.0, 2.0], 1.0, 0.5, rng=7).shape == (2,)
    assert not np.array_equal(a, M.laplace([1.0, 2.0, 3.0], 1.0, 0.5, rng=8, size=4))


def test_laplace_generator_stream_continues():
    g = np.random.default_rng(0)
    x = M.laplace([0.0], 1, 1, rng=g)
    y = M.laplace([0.0], 1, 1, rng=g)
    assert x[0] != y[0]


@pytest.mark.parametrize("sens,eps", [(1.0, 1.0), (2.0, 0.1), (4.0, 3.0)])
def test_laplace_variance_matches_theory_clt(sens, eps):
    k = 200_000
    draws = M.laplace(np.zeros(1), sens, eps, rng=12345, size=k)[:, 0]
    v = M.laplace_variance(sens, eps)
    assert v == pytest.approx(2 * (sens / eps) ** 2)
    # sample variance: SE = sqrt((m4 - v^2)/k) with m4 = 24 b^4 = 6 v^2
    se = math.sqrt(5 / k) * v
    assert abs(draws.var(ddof=1) - v) < Z * se
    assert abs(draws.mean()) < Z * math.sqrt(v / k)


def test_laplace_halfwidth_coverage_and_inverse():
    b_eps = M.epsilon_for_laplace_halfwidth(5.0, 1.0, alpha=0.1)
    assert M.laplace_halfwidth(1.0, b_eps, alpha=0.1) == pytest.approx(5.0)
    k = 100_000
    draws = M.laplace(np.zeros(1), 1.0, b_eps, rng=3, size=k)[:, 0]
    frac = np.mean(np.abs(draws) > 5.0)
    assert abs(frac - 0.1) < Z * math.sqrt(0.1 * 0.9 / k)


def test_laplace_quantile():
    q = M.laplace_quantile([0.05, 0.5, 0.95], 1.0, 1.0)
    np.testing.assert_allclose(q, [-math.log(10), 0.0, math.log(10)])


@pytest.mark.parametrize("eps,delta", [(1.0, 1e-5), (0.5, 1e-6), (3.0, 1e-3)])
def test_gaussian_analytic_calibration_is_tight(eps, delta):
    s = M.gaussian_sigma(1.0, eps, delta)
    assert M.gaussian_delta(s, 1.0, eps) <= delta
    assert M.gaussian_delta(s * 0.999, 1.0, eps) > delta  # smallest sigma
    if eps < 1:
        assert s < M.gaussian_sigma(1.0, eps, delta, "classic")


def test_gaussian_known_value():
    # Balle & Wang (2018): eps = 1, delta = 1e-5, sensitivity 1 gives sigma ~ 3.73
    assert M.gaussian_sigma(1.0, 1.0, 1e-5) == pytest.approx(3.7306, abs=2e-3)
    assert M.gaussian_sigma(1.0, 0.5, 1e-5, "classic") == pytest.approx(math.sqrt(2 * math.log(1.25e5)) / 0.5)


def test_gaussian_classic_refuses_large_epsilon():
    with pytest.raises(ValueError, match="epsilon must be < 1"):
        M.gaussian_sigma(1.0, 1.5, 1e-5, "classic")


def test_gaussian_variance_matches_theory_clt():
    k = 200_000
    draws = M.gaussian(np.zeros(1), 2.0, 0.8, 1e-5, rng=99, size=k)[:, 0]
    v = M.gaussian_variance(2.0, 0.8, 1e-5)
    se = math.sqrt(2 / k) * v  # m4 = 3 sigma^4
    assert abs(draws.var(ddof=1) - v) < Z * se
    assert M.gaussian_halfwidth(2.0, 0.8, 1e-5, alpha=0.05) == pytest.approx(1.959964 * math.sqrt(v), rel=1e-6)


def test_expected_squared_error():
    assert M.expected_squared_error(4, epsilon=0.25, sensitivity=1) == pytest.approx(4 * 2 * 16)
    np.testing.assert_allclose(M.expected_squared_error(3, epsilon=1, sensitivity=2, per_query=True), [8, 8, 8])
    g = M.expected_squared_error(2, epsilon=1, l2_sensitivity=1, delta=1e-5)
    assert g == pytest.approx(2 * M.gaussian_sigma(1, 1, 1e-5) ** 2)
    with pytest.raises(ValueError, match="exactly one"):
        M.expected_squared_error(2, epsilon=1)
    with pytest.raises(ValueError, match="delta"):
        M.expected_squared_error(2, epsilon=1, l2_sensitivity=1)


@pytest.mark.parametrize("eps", BAD_EPS)
def test_bad_epsilon_named(eps):
    with pytest.raises(ValueError, match="epsilon"):
        M.laplace([1.0], 1.0, eps)
    with pytest.raises(ValueError, match="epsilon"):
        M.gaussian([1.0], 1.0, eps, 1e-5)


@pytest.mark.parametrize("delta", [0, -0.1, 1.0, 2.0, float("nan"), float("inf")])
def test_bad_delta_named(delta):
    with pytest.raises(ValueError, match="delta"):
        M.gaussian([1.0], 1.0, 1.0, delta)


def test_bad_types_and_shapes():
    with pytest.raises(TypeError, match="epsilon"):
        M.laplace([1.0], 1.0, "1")
    with pytest.raises(TypeError, match="epsilon"):
        M.laplace([1.0], 1.0, True)
    with pytest.raises(ValueError, match="sensitivity"):
        M.laplace([1.0], -1.0, 1.0)
    with pytest.raises(ValueError, match="answers"):
        M.laplace([1.0, float("nan")], 1.0, 1.0)
    with pytest.raises(TypeError, match="answers"):
        M.laplace("abc", 1.0, 1.0)
    with pytest.raises(ValueError, match="size"):
        M.laplace([1.0], 1.0, 1.0, size=0)
    with pytest.raises(TypeError, match="size"):
        M.laplace([1.0], 1.0, 1.0, size=2.5)
    with pytest.raises(TypeError, match="rng"):
        M.laplace([1.0], 1.0, 1.0, rng="seed")
    with pytest.raises(ValueError, match="alpha"):
        M.laplace_halfwidth(1.0, 1.0, alpha=1.0)


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.floats(max_value=0.0), st.just(float("nan")), st.just(float("inf")), st.integers(max_value=0)))
def test_fuzz_nonpositive_epsilon_rejected(eps):
    with pytest.raises(ValueError, match="epsilon"):
        M.laplace_scale(1.0, eps)


@settings(max_examples=60, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True).filter(lambda d: not (0 < d < 1)))
def test_fuzz_delta_outside_unit_rejected(delta):
    with pytest.raises(ValueError, match="delta"):
        M.gaussian_sigma(1.0, 1.0, delta)


@settings(max_examples=40, deadline=None)
@given(st.floats(max_value=-1e-300, allow_nan=False, allow_infinity=False))
def test_fuzz_negative_sensitivity_rejected(s):
    with pytest.raises(ValueError, match="sensitivity"):
        M.laplace([0.0], s, 1.0)


def test_overflowing_variances_are_refused_not_inf():
    with pytest.raises(ValueError, match="epsilon"):
        M.laplace_variance(1.0, 1e-300)  # b = 1e300: 2 b^2 would be inf
    with pytest.raises(ValueError, match="l2_sensitivity"):
        M.gaussian_variance(1e300, 1.0, 1e-5)
    with pytest.raises(ValueError, match="epsilon"):
        M.expected_squared_error(3, epsilon=1e-300, sensitivity=1.0)
    with pytest.raises(TypeError, match="per_query"):
        M.expected_squared_error(3, epsilon=1.0, sensitivity=1.0, per_query="no")


def test_sizes_capped_before_allocating():
    with pytest.raises(ValueError, match="size"):
        M.laplace([1.0, 2.0], 1.0, 1.0, size=10**15, rng=0)
    with pytest.raises(ValueError, match="size"):
        M.discrete_gaussian(3.0, size=10**15, rng=0)
    with pytest.raises(TypeError, match="shape"):
        M.standard_laplace(("a", 2), rng=0)
    with pytest.raises(ValueError, match="shape"):
        M.standard_laplace((10**9, 10**9), rng=0)


def test_discrete_gaussian_sigma_refusals_name_the_parameter():
    with pytest.raises(TypeError, match="scalar"):
        M.discrete_gaussian_sigma(1.0, 1.0, 1e-5, scalar="no")
    with pytest.raises(ValueError, match="l2_sensitivity"):
        M.discrete_gaussian_sigma(1e300, 1.0, 1e-5)
    with pytest.raises(ValueError, match="l2_sensitivity"):
        M.discrete_gaussian_sigma(1.0, 1e-300, 1e-7)  # needs sigma ~ 4e6 > 1e5 grid units
    with pytest.raises(ValueError, match="granularity"):
        M.discrete_gaussian_mechanism([0.0], 1.0, 1.0, 1e-5, granularity=1e-300)


# ---------------------------------------------------------------- issue 14: slide 38's Gaussian calibration
def _exact_gaussian_delta(sigma, sens, eps):
    """Balle & Wang (2018), Theorem 8, written out with scipy.stats.norm (not dpviz's gaussian_delta)."""
    from scipy.stats import norm

    a, c = sens / (2 * sigma), eps * sigma / sens
    return norm.cdf(a - c) - np.exp(eps) * norm.cdf(-a - c)


def test_ln2delta_calibration_is_the_slides_sigma_and_is_private_for_epsilon_at_most_one():
    from dpviz.mechanisms import GAUSSIAN_CALIBRATIONS, gaussian_sigma

    assert "ln2delta" in GAUSSIAN_CALIBRATIONS
    for eps in np.linspace(0.01, 1.0, 25):
        for delta in np.logspace(-10, -2, 9):
            for sens in (0.5, 1.0, 7.0):
                s = gaussian_sigma(sens, eps, delta, "ln2delta")
                assert s == pytest.approx(sens * math.sqrt(2 * math.log(2 / delta)) / eps, rel=1e-12)
                assert _exact_gaussian_delta(s, sens, eps) <= delta               # really (eps, delta)-DP
                if eps < 1:
                    assert s > gaussian_sigma(sens, eps, delta, "classic")      # ln 2 > ln 1.25
                assert s >= gaussian_sigma(sens, eps, delta)                    # never below the exact minimum


def test_ln2delta_calibration_refuses_epsilon_above_one_and_unknown_names_are_listed():
    from dpviz.mechanisms import gaussian_sigma

    with pytest.raises(ValueError, match="epsilon must be <= 1 for the ln2delta"):
        gaussian_sigma(1.0, 1.5, 1e-5, "ln2delta")
    with pytest.raises(ValueError, match="ln2delta"):
        gaussian_sigma(1.0, 0.5, 1e-5, "slide38")
