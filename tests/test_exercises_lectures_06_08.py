"""Lectures 06-08: the exercises' references against independent computations, and the explorers' goals headless.

tests/test_exercises.py runs every checker on its reference solution and typical mistakes; here the references
themselves are checked against something else (a closed form, a simulation, the oracle's hidden counts, another
seed), for several students' variants, and each explorer goal is reached by setting the controls as a student would.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import Z
from scipy import stats

from dpviz import data_aware, svt
from dpviz.exercises import lecture06, lecture07, lecture08, variants
from dpviz.exercises.lecture07_bounds import _samples_needed
from dpviz.exercises.registry import find
from dpviz.experiments import comparison

STUDENTS = (None, "ada", "grace", "s1234567", "Émilie du Châtelet", "student")


def test_uniform_error_reference_matches_a_simulation_of_the_uniform_baseline():
    n, eps, per_cell, k = 64, 0.5, 100.0, 20_000
    x = np.full(n, per_cell)
    est = data_aware.uniform(x, eps, rng=3, size=k)
    sq = np.sum((np.cumsum(est, axis=1) - np.cumsum(x)) ** 2, axis=1)        # ||W x_hat - W x||^2, W = prefixes
    rms = math.sqrt(sq.mean()) / (n * x.sum())
    se = sq.std(ddof=1) / math.sqrt(k) / (2 * math.sqrt(sq.mean())) / (n * x.sum())   # delta method
    assert abs(rms - lecture08._uniform_rms(n, eps, x.sum())) < Z * se


@pytest.mark.parametrize("who", STUDENTS)
def test_each_students_secret_histogram_has_support_k_and_the_attack_sees_only_the_oracle(who):
    with variants.as_student(who):
        v = find("6.4").values()
        counts = find("6.4").reference()
        oracle = lecture06.secret_oracle()
    assert counts.size == v.cells and svt.support_k(counts) == v.k == counts.max()
    assert not hasattr(oracle, "counts") and np.array_equal(svt.ordered_partition(oracle).labels, counts)
    assert not np.array_equal(svt.ordered_partition(oracle, grouping="row").labels, counts)   # T^ in (1, 2]
    with variants.as_student(who):                  # the same oracle (the same noisy threshold) on every call
        again = lecture06.secret_oracle().answer_differences(np.arange(v.cells))
    assert np.array_equal(again, oracle.answer_differences(np.arange(v.cells)))


def test_two_students_attack_different_histograms():
    with variants.as_student("ada"):
        a = find("6.4").reference()
    with variants.as_student("grace"):
        b = find("6.4").reference()
    assert a.shape != b.shape or not np.array_equal(a, b)


@pytest.mark.parametrize("who", STUDENTS)
def test_break_even_is_the_closed_form(who):
    """SVT's query noise 2c / ((1 - share) eps) is below m / eps exactly while c < (1 - share) m / 2."""
    v = find("6.1").values(who)
    assert find("6.1").reference(who) == math.ceil((1 - v.threshold_share) * v.queries / 2) - 1


@pytest.mark.parametrize("who", STUDENTS)
def test_four_answers_reference_matches_a_simulation_of_one_noisy_threshold(who):
    v, k = find("6.2").values(who), 400_000
    noisy = v.threshold + np.random.default_rng(62).laplace(scale=1 / v.epsilon1, size=k)
    q = np.asarray(v.answers, dtype=float)
    hit = (noisy > q[0]) & (noisy <= q[1]) & (noisy > q[2]) & (noisy <= q[3])
    p = find("6.2").reference(who)
    assert abs(hit.mean() - p) < Z * math.sqrt(p * (1 - p) / k)


def test_partition_cases_need_the_columns_and_the_tie_break():
    rows_differ = ties = 0
    for (answers,) in lecture06._partition_cases():
        ref = lecture06._reference_partition(answers)
        rows_differ += not np.array_equal(lecture06._rows_only_partition(answers), ref)
        scores = answers.sum(axis=1)
        ties += len(set(scores.tolist())) < ref.max() + 1       # two groups with the same row score
    assert rows_differ >= 3 and ties >= 3


SIDAK = 1 - math.sqrt(0.95)      # each of two independent one-sided bounds may fail with this; both hold with 95 %


def _one_sided_bound(k, n, k_prime, n_prime, alpha_each):
    """ln(p_lo / p'_hi) from one-sided Clopper-Pearson bounds that each fail with probability alpha_each, taken
    straight from scipy's Beta quantiles (not from dpviz.audit)."""
    k, k_prime = np.asarray(k, dtype=float), np.asarray(k_prime, dtype=float)
    p_lo = np.where(k > 0, stats.beta.ppf(alpha_each, np.maximum(k, 1), n - k + 1), 0.0)
    q_hi = np.where(k_prime < n_prime, stats.beta.ppf(1 - alpha_each, k_prime + 1, np.maximum(n_prime - k_prime, 1)),
                    1.0)
    with np.errstate(divide="ignore"):
        return np.log(p_lo) - np.log(q_hi)


def _miss_probability(n, p, p_prime, alpha_each):
    """Exact probability that ln(p_lo / p'_hi) > ln(p / p'), i.e. that p_lo > p or p'_hi < p' (binomial sums; the
    two samples of n are independent)."""
    k = np.arange(n + 1)
    lo_miss = stats.binom.pmf(k, n, p)[(k > 0) & (stats.beta.ppf(alpha_each, np.maximum(k, 1), n - k + 1) > p)].sum()
    hi = np.where(k < n, stats.beta.ppf(1 - alpha_each, k + 1, np.maximum(n - k, 1)), 1.0)
    hi_miss = stats.binom.pmf(k, n, p_prime)[hi < p_prime].sum()
    return 1 - (1 - lo_miss) * (1 - hi_miss)


@pytest.mark.parametrize("n, p, p_prime", [(10_000, 0.5, 0.18), (87, 0.5, 0.5 * math.exp(-2)),
                                           (113, 0.5, 0.5 * math.exp(-2))])
def test_the_bounds_the_checkers_accept_hold_with_95_percent_and_the_one_they_reject_does_not(n, p, p_prime):
    # Bonferroni (the ends of two-sided 95 % intervals), Sidak, and privacy_loss_interval's lower end (97.5 % each)
    for alpha_each in (0.025, SIDAK, 0.0125):
        assert _miss_probability(n, p, p_prime, alpha_each) <= 0.05, alpha_each
    if n == 10_000:      # one-sided bounds at 95 % each: the bound on epsilon misses far more often than 5 %
        assert _miss_probability(n, p, p_prime, 0.05) > 0.09


@pytest.mark.parametrize("who", STUDENTS)
def test_bound_from_counts_accepts_every_valid_95_percent_bound(who):
    with variants.as_student(who):
        k, k_prime = find("7.3").values().hits
        counts = (k, 10_000, k_prime, 10_000)
        for alpha_each in (0.025, SIDAK, 0.0125):
            answer = float(_one_sided_bound(*counts, alpha_each))
            assert lecture07.check_bound_from_counts(answer).passed, (alpha_each, answer)
        fb = lecture07.check_bound_from_counts(float(_one_sided_bound(*counts, 0.05)))
        assert not fb.passed and "90 %" in fb.hint and "Bonferroni" in fb.hint
        assert "Bonferroni" in lecture07.check_bound_from_counts(float(_one_sided_bound(*counts, 0.025))).message


def _stable_n(alpha_each, true_epsilon=2.0):
    """Smallest n from which the bound stays above 1 up to 10,000, counts at their rounded expectations."""
    n = np.arange(1, 10_001)
    k, k_prime = np.floor(n / 2 + 0.5), np.floor(n * math.exp(-true_epsilon) / 2 + 0.5)
    above = _one_sided_bound(k, n, k_prime, n, alpha_each) > 1
    return int(n[np.flatnonzero(~above).max() + 1])


@pytest.mark.parametrize("who", STUDENTS)
def test_samples_needed_accepts_the_valid_bounds_and_rejects_two_95_percent_one_sided_bounds(who):
    e = find("7.4").values(who).true_epsilon
    assert _stable_n(0.025, e) == _stable_n(SIDAK, e) == _samples_needed(e) == find("7.4").reference(who)
    with variants.as_student(who):
        for alpha_each in (0.025, 0.0125):
            assert lecture07.check_samples_needed(_stable_n(alpha_each, e)).passed, alpha_each
        fb = lecture07.check_samples_needed(_stable_n(0.05, e))
    assert _stable_n(0.05, e) < _stable_n(0.025, e) and not fb.passed and "90 %" in fb.hint


@pytest.mark.parametrize("who", STUDENTS)
def test_mwem_rounds_reference_is_the_accountants_split_solved_for_t(who):
    """sqrt(2) / eps_m <= s with eps_m = 0.95 epsilon / (2 T) (5 % on the total, the rest over T rounds, half each):
    T = floor(0.95 epsilon s / (2 sqrt 2)); one round more breaks the bound."""
    v = find("8.1").values(who)
    t = math.floor(0.95 * v.epsilon * v.sd_max / (2 * math.sqrt(2)))
    assert find("8.1").reference(who) == t >= 1
    assert math.sqrt(2) * 2 * (t + 1) / (0.95 * v.epsilon) > v.sd_max >= math.sqrt(2) * 2 * t / (0.95 * v.epsilon)


@pytest.mark.parametrize("who", STUDENTS)
def test_mwem_first_choice_reference_is_the_exponential_mechanism_by_hand(who):
    v = find("8.4").values(who)
    x = np.asarray(v.x, dtype=float)
    score = np.abs(np.cumsum(np.full(8, x.sum() / 8)) - np.cumsum(x))
    assert np.sum(score == score.max()) == 1                          # one worst prefix in every variant
    weights = np.exp(v.epsilon / v.rounds / 2 * score / 2)
    assert math.isclose(find("8.4").reference(who), weights.max() / weights.sum(), rel_tol=1e-9)


def test_dawa_ranking_does_not_depend_on_the_seed():
    W = comparison.make_workload("prefix", 256)
    ratios = []
    for shape in comparison.SHAPES:
        x = comparison.make_histogram(shape, 256, scale=10_000, rng=5)
        err = [comparison.run_algorithm(a, x, W, 0.01, trials=20, rng=9).scaled_errors.mean()
               for a in ("DAWA", "Identity")]
        ratios.append(err[0] / err[1])
    assert np.array_equal(np.argsort(ratios), np.argsort(lecture08._dawa_over_identity()))


def test_gptt_explorer_goals_are_reached_by_moving_the_controls():
    from dpviz.widgets import GPTTAttackExplorer

    e = GPTTAttackExplorer(dataset="MEDCOST", epsilon=1.0, calibrate=True, seed=0)
    e.add_goal(*lecture06.majority_vote_goal())
    e.add_goal(*lecture06.dp_ceiling_goal())
    assert e.goals_reached == [False, False]
    e.controls["query_share"].value = 0.5
    assert e.goals_reached == [False, False]                 # one copy per query: the noise hides the order
    e.controls["copies"].value = 10_001
    assert e.goals_reached == [True, False]
    e.controls["copies"].value = 1
    e.controls["query_share"].value = 0.0
    e.controls["epsilon"].value = 0.01
    assert e.goals_reached == [True, True] and "Goal reached" in e.goals.value


def test_audit_explorer_goals_are_reached_by_moving_the_controls():
    from dpviz.widgets import AuditExplorer

    e = AuditExplorer(mechanism="gptt", samples=100_000)
    e.add_goal(*lecture07.power_goal())
    e.add_goal(*lecture07.catch_goal())
    assert e.goals_reached == [False, False]                 # GPTT is caught, but it is not the goal's mechanism
    e.controls["samples"].value = 1_000
    e.controls["mechanism"].value = "laplace"
    assert e.goals_reached == [False, False]                 # too few samples for a bound above 0.9
    e.controls["samples"].value = 20_000
    e.controls["mechanism"].value = "laplace_undernoised"
    assert e.goals_reached == [True, True]


@pytest.mark.parametrize("first, second", [(0.01, 1.0)])
def test_comparison_explorer_goals_are_reached_by_moving_the_controls(first, second):
    from dpviz.widgets import AlgorithmComparisonExplorer

    e = AlgorithmComparisonExplorer(dataset="NETTRACE", epsilon=0.01, seed=0)
    e.add_goal(*lecture08.uniform_wins_goal())
    e.add_goal(*lecture08.winner_changes_goal())
    assert e.goals_reached == [False, False]
    e.controls["dataset"].value = "uniform"
    e.controls["epsilon"].value = first
    assert e.goals_reached == [True, False]                  # Uniform wins, and no workload-aware winner yet
    e.controls["show_Uniform"].value = False                 # a partial comparison proves nothing
    e.controls["epsilon"].value = second
    assert e.goals_reached == [True, False]
    e.controls["show_Uniform"].value = True
    assert e.goals_reached == [True, True]
