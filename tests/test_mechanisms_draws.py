"""The bare draws of dpviz.mechanisms: numpy's own samplers, called so that every seeded stream is unchanged.

Every release outside dpviz.mechanisms draws its noise and coins through these functions (the architecture test
enforces it).  Moving a draw must not change one bit of any seeded result, so each function is held here to the
numpy Generator call it stands for -- same values, and the generator left in the same state -- and its values
are checked against the distribution's own cdf.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpviz import mechanisms as M
from dpviz.validation import MAX_ELEMENTS, check_shape

SEEDS = (0, 1, 20150826)
SHAPES = (1, 7, (3, 4), (2, 0, 5))
# Kolmogorov-Smirnov: P(sqrt(n) D_n > 1.9495) = 1e-3 asymptotically (Kolmogorov's distribution), so each
# check below fails by chance with probability about 1e-3.
KS_CRITICAL = 1.9495


def _same_stream(draw, raw) -> None:  # type: ignore[no-untyped-def]
    """``draw(g)`` gives ``raw(g)``'s values and leaves a generator where ``raw`` leaves it."""
    for seed in SEEDS:
        g1, g2 = np.random.default_rng(seed), np.random.default_rng(seed)
        a, b = draw(g1), raw(g2)
        assert type(a) is type(b) or isinstance(a, np.ndarray)
        np.testing.assert_array_equal(a, b, strict=isinstance(b, np.ndarray))
        np.testing.assert_array_equal(g1.random(3), g2.random(3))  # the stream continues identically


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("scale", [0.0, 0.37, 1.0, 2.5e6])
def test_scaled_laplace_is_generator_laplace(shape, scale) -> None:
    _same_stream(lambda g: M.scaled_laplace(scale, shape, rng=g), lambda g: g.laplace(0.0, scale, size=shape))


def test_scaled_laplace_without_shape_is_one_float() -> None:
    _same_stream(lambda g: M.scaled_laplace(3.0, rng=g), lambda g: g.laplace(0.0, 3.0))
    assert isinstance(M.scaled_laplace(3.0, rng=0), float)
    # report-noisy-max used numpy's defaults: gen.laplace(size=...) is loc 0, scale 1
    _same_stream(lambda g: M.scaled_laplace(1.0, (4, 5), rng=g), lambda g: g.laplace(size=(4, 5)))


@pytest.mark.parametrize("shape", SHAPES)
def test_gumbel_exponential_uniform_are_the_generator_methods(shape) -> None:
    _same_stream(lambda g: M.standard_gumbel(shape, rng=g), lambda g: g.gumbel(size=shape))
    _same_stream(lambda g: M.standard_exponential(shape, rng=g), lambda g: g.standard_exponential(size=shape))
    _same_stream(lambda g: M.standard_uniform(shape, rng=g), lambda g: g.random(shape))


def test_binomial_heads_is_generator_binomial() -> None:
    _same_stream(lambda g: M.binomial_heads(40, 0.3, 9, rng=g), lambda g: g.binomial(40, 0.3, size=9))
    _same_stream(lambda g: M.binomial_heads(40, 0.3, rng=g), lambda g: np.asarray(g.binomial(40, 0.3)))
    p = np.random.default_rng(5).random((3, 6))
    p[0, 0], p[1, 1] = 0.0, 1.0
    _same_stream(lambda g: M.binomial_heads(7, p, rng=g), lambda g: g.binomial(7, p))
    _same_stream(lambda g: M.binomial_heads(7, p[0], (4, 6), rng=g), lambda g: g.binomial(7, p[0], size=(4, 6)))
    assert M.binomial_heads(5, [0.0, 1.0], rng=0).tolist() == [0, 5]


@pytest.mark.parametrize("draw,cdf", [
    (lambda: M.scaled_laplace(2.0, 100_000, rng=11), stats.laplace(scale=2.0).cdf),
    (lambda: M.standard_gumbel(100_000, rng=12), stats.gumbel_r.cdf),
    (lambda: M.standard_exponential(100_000, rng=13), stats.expon.cdf),
    (lambda: M.standard_uniform(100_000, rng=14), stats.uniform.cdf),
], ids=["laplace", "gumbel", "exponential", "uniform"])
def test_draws_follow_their_distribution(draw, cdf) -> None:  # type: ignore[no-untyped-def]
    """Kolmogorov-Smirnov against scipy's cdf at 10^5 draws, alpha = 1e-3."""
    x = np.sort(draw())
    n = x.size
    f = cdf(x)
    d = max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))
    assert math.sqrt(n) * d < KS_CRITICAL


def test_binomial_heads_mean_and_variance() -> None:
    """Binomial(50, 0.2): mean 10, variance 8; CLT bounds at 4.5 standard errors (sample variance: SE from
    the fourth central moment m4 = n p q (1 + 3 (n - 2) p q) for the binomial)."""
    k, n, p = 200_000, 50, 0.2
    x = M.binomial_heads(n, p, k, rng=15).astype(float)
    v = n * p * (1 - p)
    m4 = n * p * (1 - p) * (1 + 3 * (n - 2) * p * (1 - p))
    assert abs(x.mean() - n * p) < 4.5 * math.sqrt(v / k)
    assert abs(x.var(ddof=1) - v) < 4.5 * math.sqrt((m4 - v * v) / k)
    assert x.min() >= 0 and x.max() <= n


@pytest.mark.parametrize("call,exc,word", [
    (lambda: M.scaled_laplace(-1.0, 3, rng=0), ValueError, "scale"),
    (lambda: M.scaled_laplace(float("nan"), 3, rng=0), ValueError, "scale"),
    (lambda: M.scaled_laplace(float("inf"), 3, rng=0), ValueError, "scale"),
    (lambda: M.scaled_laplace("1", 3, rng=0), TypeError, "scale"),
    (lambda: M.scaled_laplace(1.0, 2.5, rng=0), TypeError, "shape"),
    (lambda: M.scaled_laplace(1.0, (2, -1), rng=0), ValueError, "shape"),
    (lambda: M.scaled_laplace(1.0, (2**20, 2**20), rng=0), ValueError, "shape"),
    (lambda: M.standard_gumbel(True, rng=0), TypeError, "shape"),
    (lambda: M.standard_exponential((3, "a"), rng=0), TypeError, "shape"),
    (lambda: M.standard_uniform(-2, rng=0), ValueError, "shape"),
    (lambda: M.standard_uniform(3, rng=-1), ValueError, "rng"),
    (lambda: M.binomial_heads(-1, 0.5, rng=0), ValueError, "n"),
    (lambda: M.binomial_heads(2.0, 0.5, rng=0), TypeError, "n"),
    (lambda: M.binomial_heads(3, 1.5, rng=0), ValueError, "p"),
    (lambda: M.binomial_heads(3, [0.5, float("nan")], rng=0), ValueError, "p"),
    (lambda: M.binomial_heads(3, "0.5", rng=0), TypeError, "p"),
    (lambda: M.binomial_heads(3, True, rng=0), TypeError, "p"),
    (lambda: M.binomial_heads(3, [0.1, 0.2, 0.3], (2, 2), rng=0), ValueError, "shape"),
    (lambda: M.binomial_heads(3, [0.1, 0.2, 0.3], 1, rng=0), ValueError, "shape"),
])
def test_bad_input_is_refused_by_name(call, exc, word) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc, match=word):
        call()


def test_check_shape() -> None:
    assert check_shape(np.int64(3), "x") == (3,)
    assert check_shape([2, 3], "x") == (2, 3)
    assert check_shape((), "x") == ()
    with pytest.raises(ValueError, match=f"cap is {MAX_ELEMENTS}"):
        check_shape((MAX_ELEMENTS, 2), "x")
    with pytest.raises(TypeError, match="size must be"):
        check_shape("3", "x", name="size")
