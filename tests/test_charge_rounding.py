"""Charges never round below the epsilon the noise spends.

The accountant records a float epsilon as its shortest decimal (0.1 is 1/10), but a float has a second reading, its
binary value (0.1 is 0.1000000000000000055...), and noise computed in floating point may spend either.  Each test
below compares what the noise spends, computed exactly (rationals) or at 50 digits (mpmath, an independent
implementation of the normal CDF, exp and log), with what is charged:

* ``laplace_scale`` / ``selection_scale``: ``sensitivity / b`` is at most both readings of epsilon, and ``b`` is
  the smallest double that achieves it;
* ``gaussian_sigma`` (analytic, classic, ln2delta): the exact delta at sigma is at most delta, epsilon at its
  smaller reading; ``gaussian_epsilon``: the exact delta at the returned epsilon is at most delta;
* ``level_epsilons``: the levels' exact values sum to at most epsilon (532 of 1,620 settings summed above it,
  by up to 2e-16, before the levels were rounded down);
* ``amplified_epsilon`` and ``subsampled_count``'s charge are at least ``ln(1 + q (e^eps - 1))`` (the float
  ``math.log1p(0.1 * math.expm1(1))`` and its decimal are both below it); ``subsampled_count`` refuses an epsilon
  whose noise scale overflows before it charges.
"""

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpviz.accountant import PrivacyAccountant, lower_reading
from dpviz.composition import amplified_epsilon, subsampled_count
from dpviz.hierarchy import level_epsilons
from dpviz.mechanisms import gaussian_delta, gaussian_epsilon, gaussian_sigma, laplace_scale, selection_scale

mpmath.mp.dps = 50


def _readings(x: float) -> tuple[Fraction, Fraction]:
    return Fraction(repr(float(x))), Fraction(float(x))


def _grid_of_floats(n: int, seed: int) -> np.ndarray:
    """Epsilons a course uses (two decimals, 0.01..10) and random doubles spread over 1e-6..1e6."""
    rng = np.random.default_rng(seed)
    nice = np.round(np.arange(1, 1001) * 0.01, 2)
    wild = np.exp(rng.uniform(math.log(1e-6), math.log(1e6), n))
    return np.concatenate([nice, wild])


@pytest.mark.parametrize("scale_fn", [laplace_scale, lambda d, e: selection_scale(d, e) / 2],
                         ids=["laplace_scale", "selection_scale"])
def test_noise_scales_spend_at_most_both_readings_of_epsilon(scale_fn):
    epsilons = _grid_of_floats(2000, 1)
    moved = 0
    for sens in (1.0, 2.0, 3.0, 0.1, 0.7, 100.0, 12345.678):
        for eps in epsilons:
            b = scale_fn(sens, float(eps))
            sens_hi = max(_readings(sens))
            eps_lo = min(_readings(eps))
            assert sens_hi / Fraction(b) <= eps_lo, (sens, eps, b)
            # and no wider than it must be: the double below b spends more than epsilon, or b is the quotient
            quotient = sens / float(eps)
            if b != quotient:
                moved += 1
                assert sens_hi / Fraction(math.nextafter(b, 0.0)) > eps_lo
    assert moved > 0   # the rounding does something (about half the settings)


def test_a_fraction_epsilon_is_used_exactly():
    for share in (Fraction(1, 3), Fraction(2, 7), Fraction(7, 10), Fraction(1, 10**20)):
        b = laplace_scale(1.0, share)
        assert 1 / Fraction(b) <= share < 1 / Fraction(math.nextafter(b, 0.0))


def _exact_gaussian_delta(sigma: float, sens: Fraction, eps: Fraction) -> mpmath.mpf:
    """The exact delta of the Gaussian mechanism (Balle & Wang 2018, Thm 8), at 50 digits."""
    s, d = mpmath.mpf(sigma), mpmath.mpf(sens.numerator) / sens.denominator
    e = mpmath.mpf(eps.numerator) / eps.denominator
    return mpmath.ncdf(d / (2 * s) - e * s / d) - mpmath.exp(e) * mpmath.ncdf(-d / (2 * s) - e * s / d)


@pytest.mark.parametrize("calibration", ["analytic", "classic", "ln2delta"])
def test_gaussian_sigma_meets_delta_exactly(calibration):
    bad = []
    for d, eps, delta in itertools.product([1.0, 3.0, 0.1, 100.0, 1e4], [0.01, 0.05, 0.1, 0.3, 0.5, 0.7, 0.99, 2.0,
                                                                          5.0], [1e-3, 1e-5, 1e-8, 1e-12]):
        if calibration != "analytic" and eps >= 1:
            continue
        sigma = gaussian_sigma(d, eps, delta, calibration)
        exact = _exact_gaussian_delta(sigma, max(_readings(d)), min(_readings(eps)))
        if exact > delta:
            bad.append((d, eps, delta, float(exact / delta - 1)))
    assert not bad


def test_gaussian_epsilon_meets_delta_exactly():
    for sigma, d, delta in itertools.product([0.5, 1.0, 3.73, 20.0, 300.0], [1.0, 0.3, 7.0], [1e-3, 1e-6, 1e-10]):
        eps = gaussian_epsilon(sigma, d, delta)
        if eps > 0:
            assert _exact_gaussian_delta(sigma, Fraction(d), Fraction(eps)) <= delta
            assert gaussian_delta(sigma, d, eps) <= delta


def test_hierarchy_levels_never_sum_above_epsilon():
    settings = itertools.product([1, 2, 7, 16, 100, 1000, 4096, 10000, 65536], [2, 3, 4, 8, 16],
                                 [0.1, 0.3, 0.5, 0.7, 1.0, 2.0], ["uniform", "geometric", "optimal"], [True, False])
    checked = 0
    for n, b, eps, allocation, root in settings:
        try:
            levels = level_epsilons(n, b, eps, allocation=allocation, measure_root=root)
        except ValueError:   # a one-leaf tree without its root measures nothing
            continue
        checked += 1
        assert sum(Fraction(float(x)) for x in levels) <= min(_readings(eps)), (n, b, eps, allocation, root)
        assert math.isclose(float(levels.sum()), eps, rel_tol=1e-14)
    assert checked >= 1000


def _exact_amplified(eps: float, rate: float) -> mpmath.mpf:
    e, q = (mpmath.mpf(x.numerator) / x.denominator for x in (max(_readings(eps)), max(_readings(rate))))
    return mpmath.log1p(q * mpmath.expm1(e))


@pytest.mark.parametrize("eps, rate", [(1.0, 0.1), (0.5, 0.01), (2.0, 0.3), (1e-5, 0.5), (1e-300, 0.5),
                                       (10.0, 0.999), (0.3, 0.7), (700.0, 1e-3)])
def test_amplified_epsilon_and_its_charge_are_upper_bounds(eps, rate):
    true = _exact_amplified(eps, rate)
    assert amplified_epsilon(eps, rate) >= true
    a = amplified_epsilon(eps, rate)
    assert min(_readings(a)) >= Fraction(str(true))   # both readings: charging the float never under-counts
    if a > 1e-300:   # and a tight bound (the subnormals' shortest decimals are coarse)
        assert a <= float(true) * (1 + 1e-15)
    if eps >= 1e-300:   # the noise of the smallest epsilon overflows: refused below
        acc = PrivacyAccountant(1000.0)
        subsampled_count([1, 0, 1, 1], eps, rate, rng=0, accountant=acc)
        charged = acc.history[-1].epsilon
        exact = mpmath.mpf(charged.numerator) / charged.denominator   # mpmath 1.3 cannot compare a Fraction
        assert exact >= true and float(charged) <= float(true) * (1 + 1e-15)


def test_the_floats_the_issue_named_were_below_the_amplified_epsilon():
    old = math.log1p(0.1 * math.expm1(1.0))
    true = _exact_amplified(1.0, 0.1)
    assert Fraction(repr(old)) < Fraction(str(true)) and Fraction(old) < Fraction(str(true))


def test_subsampled_count_refuses_before_it_charges():
    acc = PrivacyAccountant(1.0)
    with pytest.raises(ValueError, match="epsilon"):
        subsampled_count([1, 0, 1], 1e-310, 0.5, accountant=acc)
    assert acc.history == [] and acc.spent.epsilon == 0


def test_lower_reading_is_the_smaller_of_the_two():
    for x in _grid_of_floats(200, 2):
        assert lower_reading("epsilon", float(x)) == min(_readings(x))


def test_svt_noise_scales_split_spends_at_most_epsilon():
    from dpviz.svt import svt_noise_scales

    for eps, share, c in itertools.product([0.1, 0.3, 0.7, 1.0, 1.1, 2.9], [0.1, 0.3, 0.5, 0.7], [1, 2, 3]):
        b1, b2 = svt_noise_scales(eps, c, threshold_share=share)
        spent = 1 / Fraction(b1) + 2 * c / Fraction(b2)   # threshold noise Lap(Delta/eps1), queries Lap(2c Delta/eps2)
        assert spent <= min(_readings(eps)), (eps, share, c)


def test_mwem_stages_spend_at_most_what_is_charged(monkeypatch):
    """Every scale MWEM computes is recorded; the epsilons they spend add up to at most the ledger's total."""
    import dpviz.data_aware.mwem_algorithm as mwem_module
    from dpviz.data_aware import mwem

    spent: list[Fraction] = []
    real_laplace, real_selection = mwem_module.laplace_scale, mwem_module.selection_scale

    def laplace_recorded(sens, eps, **kw):
        b = real_laplace(sens, eps, **kw)
        spent.append(Fraction(sens) / Fraction(b))
        return b

    def selection_recorded(sens, eps, **kw):
        s = real_selection(sens, eps, **kw)
        spent.append(2 * Fraction(sens) / Fraction(s) * ROUNDS)   # one scale, used in every round
        return s

    monkeypatch.setattr(mwem_module, "laplace_scale", laplace_recorded)
    monkeypatch.setattr(mwem_module, "selection_scale", selection_recorded)
    ROUNDS = 7
    for eps in (0.1, 0.3, 0.7, 1.0, 2.9):
        spent.clear()
        acc = PrivacyAccountant(eps)
        mwem([5, 0, 9, 3, 1, 0, 4, 8], ([0, 2, 4], [5, 8, 8]), eps, rounds=ROUNDS, selection_share=0.3, rng=0,
             accountant=acc)
        assert len(spent) == 1 + ROUNDS + 1   # the total, T measurements, the selection scale
        charged = sum((row.epsilon for row in acc.history), Fraction(0))
        assert sum(spent) <= charged <= Fraction(repr(eps))


def test_charging_the_returned_amplified_epsilon_never_under_counts():
    """The ledger records a float's shortest decimal: amplified_epsilon's value must be an upper bound read so."""
    for eps, rate in itertools.product([0.01 * i for i in range(1, 101)], [0.05, 0.1, 0.3, 0.5, 0.7]):
        acc = PrivacyAccountant(10.0)
        acc.spend(amplified_epsilon(eps, rate))
        assert acc.history[-1].epsilon >= Fraction(str(_exact_amplified(eps, rate))), (eps, rate)


def test_matrix_sensitivities_are_rounded_up():
    from dpviz.mechanisms import l1, l2

    rng = np.random.default_rng(3)
    for _ in range(200):
        W = np.round(rng.random((rng.integers(2, 9), 3)), rng.integers(1, 4))
        exact_l1 = max(sum(Fraction(float(abs(v))) for v in W[:, j]) for j in range(W.shape[1]))
        exact_l2_sq = max(sum(Fraction(float(v)) ** 2 for v in W[:, j]) for j in range(W.shape[1]))
        assert Fraction(l1(W)) >= exact_l1 and Fraction(l2(W)) ** 2 >= exact_l2_sq
        assert l1(W) <= float(exact_l1) * (1 + 1e-15)
    assert l1([[0.1], [0.7]]) == 0.8 > 0.1 + 0.7


def test_svt_query_sensitivity_is_not_rounded_down():
    from dpviz.svt import svt_noise_scales

    for sens, c in itertools.product([0.7, 0.1, 0.3, 1.1], [1, 3, 7]):
        _, b2 = svt_noise_scales(1.0, c, sensitivity=sens)
        assert 2 * c * max(_readings(sens)) / Fraction(b2) <= Fraction(1, 2)


def test_a_scale_that_rounds_past_the_largest_double_is_refused():
    with pytest.raises(ValueError, match="epsilon"):
        laplace_scale(1.7976931348623158e307, 0.1)


def test_float_at_most_and_at_least_hold_for_both_readings():
    from dpviz.accountant import float_at_least, float_at_most

    rng = np.random.default_rng(5)
    for _ in range(2000):
        x = Fraction(int(rng.integers(1, 10**6)), int(rng.integers(1, 10**6)))
        assert max(_readings(float_at_most(x))) <= x <= min(_readings(float_at_least(x)))
