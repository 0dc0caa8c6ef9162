"""The explorer goals of lectures 03 and 05: reached exactly when the student's controls get there, headless."""

from __future__ import annotations

import numpy as np
import pytest

from dpviz import hierarchy as H
from dpviz import sums
from dpviz.exercises import lecture03, lecture05
from dpviz.widgets import HierarchyExplorer, SumQueryExplorer


@pytest.fixture()
def hierarchy():
    return HierarchyExplorer(seed=0, constrained=False, trials=20)


def test_best_branching_goal_is_reached_at_the_exact_optimum_only(hierarchy):
    hierarchy.add_goal(*lecture03.best_branching_goal(1024))
    best = H.optimal_branching(1024, 1.0, constrained=False, measure_root=True)
    assert best == 11   # brute force over b = 2..64 (tests/test_hierarchy.py checks optimal_branching itself)
    for b in (2, 10, 12, 16):
        hierarchy.controls["branching"].value = b
        assert hierarchy.goals_reached == [False], b
    hierarchy.controls["branching"].value = best
    assert hierarchy.goals_reached == [True] and "b = 11" in hierarchy.goals.value


def test_best_branching_goal_holds_only_at_its_settings(hierarchy):
    hierarchy.add_goal(*lecture03.best_branching_goal(1024))
    hierarchy.controls["measure_root"].value = False      # another tree: b = 11 is not its optimum
    hierarchy.controls["branching"].value = 11
    assert hierarchy.goals_reached == [False]


def test_crossover_goal_follows_the_curve_shown(hierarchy):
    hierarchy.add_goal(*lecture03.crossover_goal())
    w = np.arange(1, 1025)
    flat = H.range_mse_by_width(1024, None, 1.0, w, constrained=False)
    cross = int(w[np.argmax(H.range_mse_by_width(1024, 16, 1.0, w, constrained=False) < flat)])
    assert cross == 501
    hierarchy.controls["range"].value = (0.0, 0.2)          # width 205: far from 501
    assert hierarchy.goals_reached == [False]
    hierarchy.controls["range"].value = (0.0, 0.49)         # width 502
    assert hierarchy.goals_reached == [True] and "501" in hierarchy.goals.value


def test_crossover_goal_with_inference_and_without_a_crossover(hierarchy):
    text, test = lecture03.crossover_goal()
    hierarchy.controls["branching"].value = 2                # H_2 without inference beats Flat only at n
    hierarchy.controls["range"].value = (0.0, 1.0)
    assert test(hierarchy.result, hierarchy.values) is None
    hierarchy.controls["constrained"].value = True           # with inference: from width 239
    hierarchy.controls["range"].value = (0.0, 0.23)
    assert "239" in test(hierarchy.result, hierarchy.values)


def test_inference_hurts_goal_matches_the_answers(hierarchy):
    text, test = lecture03.inference_hurts_goal()
    seen = {True: 0, False: 0}
    for seed in range(12):
        hierarchy.controls["seed"].value = seed
        a = hierarchy.result.answers
        worse = abs(a["tree_ci"] - a["truth"]) > abs(a["tree"] - a["truth"])
        assert bool(test(hierarchy.result, hierarchy.values)) is worse
        seen[worse] += 1
    assert seen[True] and seen[False]      # both happen within a few seeds: the goal is reachable


@pytest.fixture(scope="module")
def sums_explorer():
    return SumQueryExplorer(seed=0, algorithm="identity", trials=10)


def test_best_ratio_goal_needs_the_oracle_and_the_best_ratio(sums_explorer):
    e = sums_explorer
    options = list(e.controls["ratio"].options)
    text, test = lecture05.best_ratio_goal(e.problem, options)
    mse = {p: sums.expected_squared_error(e.problem, "identity", sums.oracle_threshold(e.problem, p), 1.0).mean()
           for p in options}
    good = {p for p, m in mse.items() if m <= 1.02 * min(mse.values())}
    assert good == {0.999, 0.9995}
    e.controls["ratio"].value = 0.999
    assert test(e.result, e.values) is None                 # SVT threshold: the goal is about the oracle
    e.controls["threshold"].value = "oracle"
    for p in options:
        e.controls["ratio"].value = p
        assert bool(test(e.result, e.values)) is (p in good), p


def test_best_ratio_goal_for_one_algorithm(sums_explorer):
    e = sums_explorer
    text, test = lecture05.best_ratio_goal(e.problem, e.controls["ratio"].options, algorithm="workload")
    assert "Workload" in text
    e.controls["threshold"].value = "oracle"
    e.controls["ratio"].value = 0.995
    e.controls["algorithm"].value = "identity"
    assert test(e.result, e.values) is None
    e.controls["algorithm"].value = "workload"
    assert "p = 0.995" in test(e.result, e.values)
    e.controls["ratio"].value = 0.999
    assert test(e.result, e.values) is None
