"""Lectures 06-08: the exercises' references against independent computations, and the explorers' goals headless.

tests/test_exercises.py runs every checker on its reference solution and typical mistakes; here the references
themselves are checked against something else (a simulation, the oracle's hidden counts, another seed), and
each explorer goal is reached by setting the controls as a student would.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import Z

from dpviz import data_aware, svt
from dpviz.exercises import lecture06, lecture07, lecture08
from dpviz.experiments import comparison


def test_uniform_error_reference_matches_a_simulation_of_the_uniform_baseline():
    n, eps, per_cell, k = 64, 0.5, 100.0, 20_000
    x = np.full(n, per_cell)
    est = data_aware.uniform(x, eps, rng=3, size=k)
    sq = np.sum((np.cumsum(est, axis=1) - np.cumsum(x)) ** 2, axis=1)        # ||W x_hat - W x||^2, W = prefixes
    rms = math.sqrt(sq.mean()) / (n * x.sum())
    se = sq.std(ddof=1) / math.sqrt(k) / (2 * math.sqrt(sq.mean())) / (n * x.sum())   # delta method
    assert abs(rms - lecture08._uniform_rms(n, eps, x.sum())) < Z * se


def test_secret_histogram_has_support_k_and_the_attack_sees_only_the_oracle():
    assert svt.support_k(lecture06._SECRET) == 6 == lecture06._SECRET.max()
    oracle = lecture06.secret_oracle()
    assert not hasattr(oracle, "counts") and np.array_equal(svt.ordered_partition(oracle).labels, lecture06._SECRET)


def test_partition_cases_need_the_columns_and_the_tie_break():
    rows_differ = ties = 0
    for (answers,) in lecture06._partition_cases():
        ref = lecture06._reference_partition(answers)
        rows_differ += not np.array_equal(lecture06._rows_only_partition(answers), ref)
        scores = answers.sum(axis=1)
        ties += len(set(scores.tolist())) < ref.max() + 1       # two groups with the same row score
    assert rows_differ >= 3 and ties >= 3


def test_samples_needed_is_where_the_bound_stays_above_one():
    from dpviz.audit import privacy_loss_interval

    n = lecture07._samples_needed()
    for m in (n - 1, n, n + 50, 5000):
        k, kp = math.floor(m / 2 + 0.5), math.floor(m * math.exp(-2) / 2 + 0.5)
        lower = float(privacy_loss_interval(k, m, kp, m, confidence=0.95)[0])
        assert (lower > 1) == (m >= n), (m, lower)


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
