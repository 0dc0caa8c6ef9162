"""Issue 31 item 7: each family of bad input the fuzzer found, fixed where it arises.

Either the answer is now right (checked against an independent reference: mpmath at high precision, exact
rational arithmetic, a closed form or a brute-force sum) or the input is refused up front with a message that
names the parameter.  tests/test_bad_input.py runs the fuzzer's families over the whole API; these pin the
named cases of the issue and one representative of every family.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import dpviz.validation as V  # its new checks fail (AttributeError) on the parent commit, as they should
from dpviz import (
    audit,
    composition,
    experiments,
    hierarchy,
    matrix_mechanism,
    mechanisms,
    selection,
    sums,
    svt,
    wavelet,
    workloads,
)
from dpviz.data_aware import Partition
from dpviz.experiments.comparison import run_comparison, scaled_error
from dpviz.experiments.composition import composition_experiment
from dpviz.experiments.laplace import laplace_experiment
from dpviz.experiments.subsampling import subsampling_tails
from dpviz.strategies import marginals_error

mpmath.mp.dps = 60


# --------------------------------------------------------------------------- tiny probabilities, extreme floats
def _upper_normal_quantile(tail: mpmath.mpf) -> mpmath.mpf:
    """z with P(N(0,1) > z) = tail, at 60 digits (independent of scipy), solved in logarithms."""
    log_t = mpmath.log(tail)
    return mpmath.findroot(lambda z: mpmath.log(mpmath.erfc(z / mpmath.sqrt(2)) / 2) - log_t,
                           mpmath.sqrt(-2 * log_t))


@pytest.mark.parametrize("alpha", [0.05, 1e-20, 1e-300, 5e-324])
def test_gaussian_halfwidth_at_tiny_alpha_matches_mpmath(alpha: float) -> None:
    sigma = mechanisms.gaussian_sigma(1.0, 1.0, 1e-5)
    expected = sigma * float(_upper_normal_quantile(mpmath.mpf(alpha) / 2))   # the float alpha, exactly
    assert mechanisms.gaussian_halfwidth(1.0, 1.0, 1e-5, alpha=alpha) == pytest.approx(expected, rel=1e-12)


def test_the_issue_s_gaussian_halfwidth_is_138_28() -> None:
    assert round(mechanisms.gaussian_halfwidth(1.0, 1.0, 1e-5, alpha=1e-300), 2) == 138.28   # was inf


def test_laplace_halfwidth_at_a_subnormal_alpha_is_b_ln_1_over_alpha() -> None:
    expected = 2.0 * float(-mpmath.log(mpmath.mpf(5e-324)))   # b = 1 / 0.5
    assert mechanisms.laplace_halfwidth(1.0, 0.5, alpha=5e-324) == pytest.approx(expected, rel=1e-14)


def test_a_laplace_scale_whose_noise_overflows_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="sensitivity=1e[+]308.*above 1e[+]305"):
        mechanisms.laplace([0.0], 1e308, 1.0, rng=0)   # drew inf before
    with pytest.raises(ValueError, match="halfwidth=5e-324 is too small"):
        mechanisms.epsilon_for_laplace_halfwidth(5e-324, 1.0)


def test_a_subnormal_positive_parameter_is_refused_by_name() -> None:
    for name, call in [("epsilon", lambda: mechanisms.laplace_scale(1.0, 5e-324)),
                       ("l2_sensitivity", lambda: mechanisms.gaussian_sigma(5e-324, 1.0, 1e-5)),
                       ("sensitivity", lambda: selection.exponential_log_probabilities([1.0, 0.0], 1.0, 5e-324))]:
        with pytest.raises(ValueError, match=rf"{name}=5e-324 is too small"):
            call()
    assert V.check_positive("scale", 2.2250738585072014e-308) > 0   # the smallest normal double is fine


def test_advanced_composition_with_a_subnormal_delta_prime_matches_mpmath() -> None:
    eps, k, dp = 0.01, 10_000, 5e-324
    ln = -mpmath.log(mpmath.mpf(dp))          # 744.44..., where 1/dp overflows to inf
    expected = float(mpmath.sqrt(2 * k * ln) * eps + k * eps * mpmath.expm1(eps))
    assert composition.advanced_composition(eps, k, dp)[0] == pytest.approx(expected, rel=1e-13)
    assert composition.advanced_crossover(0.1, dp) == int(mpmath.floor(2 * ln / (2 - mpmath.exp(0.1)) ** 2)) + 1


def test_clopper_pearson_near_confidence_one_matches_mpmath() -> None:
    k, n, conf = 500, 1000, 1 - 2**-53
    tail = mpmath.mpf(2**-54)                 # (1 - confidence) / 2, exactly
    upper = mpmath.findroot(lambda p: mpmath.log(mpmath.betainc(k + 1, n - k, p, 1, regularized=True))
                            - mpmath.log(tail), (0.6, 0.7), solver="anderson")
    lower = mpmath.findroot(lambda p: mpmath.log(mpmath.betainc(k, n - k + 1, 0, p, regularized=True))
                            - mpmath.log(tail), (0.3, 0.4), solver="anderson")
    lo, hi = audit.clopper_pearson(k, n, conf)
    assert float(hi) == pytest.approx(float(upper), rel=1e-9)   # was 1.0: 1 - tail rounded to 1
    assert float(lo) == pytest.approx(float(lower), rel=1e-9)
    assert np.isfinite(audit.privacy_loss_interval(k, n, 200, n, confidence=conf)).all()


def _laplace_loss_variance(eps: float) -> mpmath.mpf:
    """Variance of one Laplace release's privacy loss from its law: atoms +eps (1/2), -eps (e^-eps / 2) and the
    density e^((l - eps)/2) / 4 on (-eps, eps), integrated by mpmath."""
    e = mpmath.mpf(eps)
    dens = lambda lo: mpmath.exp((lo - e) / 2) / 4  # noqa: E731
    m1 = e / 2 - e * mpmath.exp(-e) / 2 + mpmath.quad(lambda lo: lo * dens(lo), [-e, 0, e])
    m2 = e**2 / 2 + e**2 * mpmath.exp(-e) / 2 + mpmath.quad(lambda lo: lo**2 * dens(lo), [-e, 0, e])
    return m2 - m1**2


@pytest.mark.parametrize("eps", [0.1, 5.0, 25.0, 1000.0])
def test_laplace_loss_variance_matches_its_law(eps: float) -> None:
    assert composition.laplace_loss_moments(eps)[1] == pytest.approx(float(_laplace_loss_variance(eps)), rel=1e-10)


def test_laplace_loss_variance_at_a_huge_epsilon_is_its_limit_three() -> None:
    assert composition.laplace_loss_moments(1e308) == (1e308, 3.0)   # was (1e308, nan)
    with pytest.raises(ValueError, match="epsilon=1e[+]308 times k=4 overflows"):
        composition.laplace_loss_samples(1e308, 4, 10, rng=0)


def test_far_tail_log_ratio_of_subsampling_matches_mpmath() -> None:
    eps, rate, m = 1.0, 0.2, 3

    def tail(count: int, t: float) -> mpmath.mpf:   # sum_j Binom(j; count, rate) P(j + Lap(1/eps) > t), t > count
        return sum(mpmath.binomial(count, j) * mpmath.mpf(rate) ** j * (1 - mpmath.mpf(rate)) ** (count - j)
                   * mpmath.exp(-(mpmath.mpf(t) - j) * eps) / 2 for j in range(count + 1))

    expected = float(mpmath.log(tail(m + 1, 1e4) / tail(m, 1e4)))   # its tails underflow in doubles
    r = subsampling_tails(eps, rate, m, [1e4, 1e308], samples=100, rng=0)
    assert r.exact == pytest.approx([expected, expected], rel=1e-12)   # were nan (0/0)


def test_event_probability_with_a_narrow_threshold_noise_is_its_limit() -> None:
    # answers 0 (must be below) and 1 (above), threshold 1/2, query noise Lap(1): the limit of a noise-free threshold
    b = mpmath.mpf(1)
    below = 1 - mpmath.exp(-mpmath.mpf(0.5) / b) / 2           # P(0 + Lap(1) <= 1/2)
    above = 1 - mpmath.exp(-mpmath.mpf(0.5) / b) / 2           # P(1 + Lap(1) > 1/2)
    expected = float(mpmath.log(below * above))
    for eps_threshold in (1e6, 1e10, 1e100, 1e308):            # were -inf from 1e6 on
        got = svt.event_probability([0.0, 1.0], [0, 1], 0.5, eps_threshold, 1.0, log=True)
        assert got == pytest.approx(expected, rel=1e-5)


def test_isotonic_of_huge_answers_does_not_overflow() -> None:
    assert sums.isotonic([1e308, 1e308]).tolist() == [1e308, 1e308]      # was [inf, inf]
    assert sums.isotonic([1e308, -1e308]).tolist() == [0.0, 0.0]


def _pava(values: list[Fraction]) -> list[Fraction]:
    """Exact isotonic regression (pool adjacent violators) in rational arithmetic."""
    blocks: list[list[Fraction]] = []   # [mean, weight]
    for v in values:
        blocks.append([v, Fraction(1)])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            (m2, w2), (m1, w1) = blocks.pop(), blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2])
    return [m for m, w in blocks for _ in range(int(w))]


def test_isotonic_matches_exact_pava_at_every_scale() -> None:
    gen = np.random.default_rng(0)
    for scale in (1.0, 2.0**-900, 2.0**900, 2.0**1000):
        row = gen.integers(-50, 50, 12).astype(float)
        exact = _pava([Fraction(int(v)) for v in row])
        assert sums.isotonic(row * scale).tolist() == pytest.approx([float(v) * scale for v in exact], rel=1e-15)


def test_sensitivities_of_huge_matrices() -> None:
    W = np.full((4, 3), 1e200)
    assert mechanisms.sensitivity.l1(W) == pytest.approx(4e200, rel=1e-15)
    assert mechanisms.sensitivity.l2(W) == pytest.approx(2e200, rel=1e-15)   # was inf: 1e400 under the root
    with pytest.raises(ValueError, match="W's L1 sensitivity .* overflows"):
        mechanisms.sensitivity.l1(np.full((2, 2), 1e308))
    with pytest.raises(ValueError, match=r"A's entries \(up to 1e\+200\) are so large that A\^T A overflows"):
        matrix_mechanism.expected_error(np.eye(2), np.full((2, 2), 1e200), 1.0)   # LinAlgError before


def test_experiments_with_huge_truths_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="truth must hold numbers of magnitude at most 1e[+]100"):
        laplace_experiment([1e308, 1e308], 1.0, 1.0, 100, rng=0)   # was variance inf next to mse 0
    with pytest.raises(ValueError, match="scores must hold numbers of magnitude"):
        selection.exponential_probabilities([1e308, 0.0], 1.0)


def test_selection_privacy_loss_refuses_log_probabilities_below_the_doubles() -> None:
    assert selection.selection_privacy_loss([3.0, 2.0, 0.0], 1e3) == pytest.approx(1e3)
    with pytest.raises(ValueError, match="epsilon=1e[+]308.*underflows"):
        selection.selection_privacy_loss([3.0, 2.0, 0.0], 1e308)   # was inf


# --------------------------------------------------------------------------- negative or indefinite covariances
def test_range_variance_by_width_refuses_an_indefinite_covariance() -> None:
    for cov in (-np.eye(3), np.array([[1.0, 2.0], [2.0, 1.0]])):
        with pytest.raises(ValueError, match="cov must be positive semidefinite"):
            wavelet.range_variance_by_width(cov, [1])   # gave negative variances
    with pytest.raises(ValueError, match="cov must be symmetric"):
        V.check_covariance("cov", [[1.0, 0.5], [0.0, 1.0]])


def test_range_variance_by_width_matches_brute_force_on_a_covariance() -> None:
    B = np.random.default_rng(1).normal(size=(6, 6))
    cov = B @ B.T
    expected = [np.mean([cov[i:i + w, i:i + w].sum() for i in range(6 - w + 1)]) for w in (1, 2, 4, 6)]
    assert wavelet.range_variance_by_width(cov, [1, 2, 4, 6]) == pytest.approx(expected, rel=1e-12)


def test_negative_bin_weights_are_refused() -> None:
    with pytest.raises(ValueError, match="weights must be >= 0"):
        sums.truncate_weights([1.0, -5.0], 4.0)
    with pytest.raises(ValueError, match="weights must be >= 0"):
        sums.weighted_workload(np.eye(2), [1.0, -1.0])


# --------------------------------------------------------------------------- all-zero or empty data
def test_scaled_error_of_an_all_zero_histogram_is_refused() -> None:
    W = workloads.prefix(4)
    with pytest.raises(ValueError, match="x must have a positive total"):
        scaled_error([1.0, 1, 1, 1], [0.0, 0, 0, 0], W)   # was inf
    assert float(scaled_error([1.0, 1, 1, 1], [2.0, 0, 2, 0], W)) == pytest.approx(math.sqrt(2) / 16)


def test_bmi_refuses_the_tables_its_checker_refuses() -> None:
    table = composition.BMI_TABLE
    with pytest.raises(ValueError, match="table must be a non-empty"):
        composition.bmi(table[:0])
    zero = table.copy()
    zero["height_in"][0] = 0.0
    with pytest.raises(ValueError, match="table\\['height_in'\\] must be finite, > 0"):
        composition.bmi(zero)   # gave BMI inf


def test_marginal_weights_that_measure_nothing_are_refused() -> None:
    with pytest.raises(ValueError, match="theta must give at least one marginal a positive weight"):
        marginals_error(workloads.marginals((2, 2), 1), [0.0, 0.0, 0.0, 0.0])   # was inf


# --------------------------------------------------------------------------- integers, lengths, shapes, types
def test_fractional_starts_are_refused_not_truncated() -> None:
    with pytest.raises(ValueError, match="starts must hold whole numbers, got 0.5"):
        Partition(np.array([0.5]), 4)   # was truncated to [0]
    assert Partition(np.array([0.0, 2.0]), 4).starts.tolist() == [0, 2]
    assert V.check_int_array("k", [3, 4.0]).dtype == np.int64


def test_ints_beyond_64_bits_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="n must be an integer of magnitude below 2[*][*]63"):
        hierarchy.build_tree(2**64, 2)   # OverflowError before
    assert V.check_int("n", 2**62) == 2**62


def test_a_single_weight_is_not_broadcast_over_every_bin() -> None:
    p = sums.prepare([1, 1000, 1001, 2500], [1000, 3000], sums.uniform_bins(1000, 3000))
    with pytest.raises(ValueError, match="weights must have one entry per bin"):
        sums.prefix_gram(p, weights=[1.0])   # was broadcast
    assert sums.prefix_gram(p, weights=np.ones(p.n)).tolist() == sums.prefix_gram(p).tolist()


def test_one_start_is_not_broadcast_over_many_stops() -> None:
    with pytest.raises(ValueError, match="starts and stops must have the same shape"):
        hierarchy.range_answers([1.0, 2, 3, 4], [0], [2, 4])   # answered [3, 10] before


def test_lists_refuse_a_0_d_array_and_strings() -> None:
    with pytest.raises(TypeError, match="epsilons must be a list"):
        run_comparison(["Identity"], ["uniform"], np.array(0.5), n=16)
    with pytest.raises(TypeError, match="epsilons must be a list"):
        V.check_sequence("epsilons", "0.5")


def test_bool_str_and_object_arrays_are_refused_where_numbers_are_expected() -> None:
    for bad, what in [([True, False], "booleans"), (np.array(["1", "2"]), "dtype <U1"),
                      (np.array([1.0, "2"], dtype=object), "got '2' of type str")]:
        with pytest.raises(TypeError, match=f"x must hold numbers, .*{what}"):
            hierarchy.node_counts(bad, 2)
    assert V.check_array("answers", [True, False], allow_bool=True).tolist() == [1.0, 0.0]
    assert mechanisms.randomized_response_estimate([True, True, False, True], math.log(3)) == pytest.approx(1.0)


def test_objects_of_the_wrong_type_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match="tree must be of type Tree"):
        hierarchy.level_usage("tree")   # AttributeError before
    with pytest.raises(TypeError, match="release must be of type TreeRelease"):
        hierarchy.tree_range_answers(3, [0], [1])


# --------------------------------------------------------------------------- callables
def test_a_predicate_event_needs_a_callable_and_truth_values() -> None:
    with pytest.raises(TypeError, match="predicate must be callable"):
        audit.PredicateEvent(3)   # accepted before
    nan_event = audit.PredicateEvent(lambda y: np.full(len(y), np.nan), "nan")
    with pytest.raises(ValueError, match="must return True/False .* got .*nan"):
        audit.event_hits(nan_event, [1.0, 2.0])   # NaN counted as a hit before


def test_the_auditor_refuses_a_mechanism_that_returns_nan() -> None:
    mech = lambda x, rng, size: np.full(size, np.nan)  # noqa: E731
    with pytest.raises(ValueError, match="mechanism returned NaN or inf"):
        audit.epsilon_lower_bound(mech, 0.0, 1.0, samples=1000, rng=0)   # accepted before
    with pytest.raises(ValueError, match="mechanism=.* must return 10 releases"):
        experiments.run_trials(lambda rng, size: np.zeros((size - 1, 2)), [0.0, 0.0], 10, rng=0)


def test_neighbour_pairs_are_checked() -> None:
    with pytest.raises(ValueError, match="d and d_prime must differ by one record"):
        audit.NeighbourPair(np.array([3.0, 1.0]), np.array([3.0, 5.0]), "histogram", "not neighbours")
    with pytest.raises(ValueError, match=r"cell=2 is not a cell of counts \(length 1\)"):
        audit.histogram_pair([5.0], cell=2)


# --------------------------------------------------------------------------- shares and derived budgets
def test_a_share_too_small_is_named() -> None:
    with pytest.raises(ValueError, match="share=1e-300"):
        composition.bmi_expected_error(1.0, "sequential", share=1e-300)
    with pytest.raises(ValueError, match="threshold_share [*] epsilon=5e-324 is too small"):
        svt.svt_noise_scales(1.0, threshold_share=5e-324)
    with pytest.raises(ValueError, match="selection_share=5e-324"):
        from dpviz.data_aware import mwem
        mwem(np.arange(8.0), workloads.prefix(8), 1.0, selection_share=5e-324, rng=0)   # charged nothing
    try:
        with V.blame(rho=0.1):
            raise ValueError("epsilon must be > 0")
    except ValueError as err:
        assert str(err) == "rho=0.1: epsilon must be > 0"


# --------------------------------------------------------------------------- run time
@pytest.mark.parametrize("call,name", [
    (lambda: composition_experiment(1.0, 10**7, rng=0), "trials"),
    (lambda: hierarchy.optimal_branching(10**7, 1.0, constrained=True), "n"),
    (lambda: sums.release(sums.prepare([1, 2], [2], sums.uniform_bins(1, 2)), 1.0, size=10**7), "size"),
    (lambda: hierarchy.measure(np.ones(5), 2, 1.0, size=10**7), "size"),
])
def test_calls_that_would_run_for_minutes_are_refused_at_once(call: object, name: str) -> None:
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=rf"{name}=.*more than the .* one call may take"):
        call()  # type: ignore[operator]
    assert time.perf_counter() - t0 < 2.0
    assert V.check_work(10, 10, "units", n=10) == 10
