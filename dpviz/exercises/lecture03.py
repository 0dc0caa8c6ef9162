"""Exercises of lecture 03 (hierarchical histograms) and the goals of its explorer.

Neighbours are add/remove-one-record, as in every lecture.  Each ``check_*`` computes its expected answer with
:mod:`dpviz.hierarchy` and returns a :class:`~dpviz.exercises.Feedback`; each ``*_goal`` returns a goal for
:meth:`dpviz.widgets.Explorer.add_goal` on a :class:`~dpviz.widgets.HierarchyExplorer`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpviz import hierarchy as H
from dpviz import sensitivity
from dpviz.exercises.checks import check_array as array_feedback  # not dpviz.validation.check_array: never raises
from dpviz.exercises.checks import check_function, check_number
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.registry import Exercise

__all__ = ["check_tree_size", "check_minimal_cover", "check_cover_variance", "check_weighted_average",
           "check_optimal_split", "check_two_level_variance", "best_branching_goal", "crossover_goal",
           "inference_hurts_goal", "EXERCISES"]

#: Exercise 3.1's tree: n = 1000 bins, b = 4, root measured.
TREE_N, TREE_B = 1000, 4
#: Exercises 3.2-3.3: the range [2, 15) of a tree over 16 bins with b = 4, root measured, epsilon = 1.
COVER_N, COVER_B, COVER_RANGE = 16, 4, (2, 15)
#: Exercise 3.5: n = 64, b = 4, root not measured.
SPLIT_N, SPLIT_B = 64, 4


def check_tree_size(answer: Any) -> Feedback:
    """Exercise 3.1: the number of nodes and the L1 sensitivity of H_4 over n = 1000 bins (root measured).

    Parameters
    ----------
    answer : array_like
        ``(number of nodes, L1 sensitivity)``.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_tree_size((1334, 6)))
    True
    """
    tree = H.build_tree(TREE_N, TREE_B)
    expected = (tree.n_nodes, sensitivity.l1(H.strategy_matrix(TREE_N, TREE_B)))
    return array_feedback(
        "3.1 Nodes and sensitivity of a tree", answer, expected,
        explain=f"level l has ceil(1000 / 4^l) nodes ({' + '.join(map(str, tree.sizes))}), the last one short, and "
                "one person sits in exactly one node of each of the 6 measured levels.",
        hint="Count level by level: level l has ceil(n / b^l) nodes, from the leaves (level 0) up to the root "
             "(the first level with a single node). Adding or removing one person changes one node per level.",
        mistakes=[((1365, 6), "1365 nodes pad the domain to 4^5 = 1024 bins; dpviz keeps the last node of each "
                              "level short instead, and the padding bins hold nobody."),
                  ((1334, 1), "One person changes one node per level, and every level is measured: the changes "
                              "add up over the levels."),
                  ((1334, 5), "log_4(1000) is about 5, so the root is level 5: with the leaves (level 0) that "
                              "makes 6 measured levels.")])


def _cover_per_level(n: int, b: int, start: int, stop: int) -> np.ndarray:
    """Number of cover nodes of ``[start, stop)`` on each level, leaves first."""
    cover = H.minimal_cover(H.build_tree(n, b), [start], [stop])
    return np.array([(a[0] - lo[0]) + (hi[0] - c[0]) for lo, a, c, hi in cover], dtype=float)


def check_minimal_cover(answer: Any) -> Feedback:
    """Exercise 3.2: how many nodes of each level the minimal cover of [2, 15) uses (n = 16, b = 4).

    Parameters
    ----------
    answer : array_like
        Nodes per level, leaves first (3 numbers: levels 0, 1 and 2).

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_minimal_cover([5, 2, 0]))
    True
    """
    start, stop = COVER_RANGE
    return array_feedback(
        "3.2 The minimal cover of a range", answer, _cover_per_level(COVER_N, COVER_B, start, stop),
        explain="[2, 15) = leaves 2, 3 + the level-1 nodes [4, 8) and [8, 12) + leaves 12, 13, 14: a node is used "
                "when it lies inside the range and its parent does not.",
        hint="Draw the 16 leaves, the 4 level-1 nodes [0, 4), [4, 8), [8, 12), [12, 16) and the root. Take the "
             "largest nodes that fit inside [2, 15) (bin 15 is not in it), then fill the rest with leaves.",
        mistakes=[([13, 0, 0], "That answers the range from its 13 leaves (the Flat method): the tree lets two "
                               "whole level-1 nodes replace 8 leaves."),
                  ([2, 3, 0], "[2, 15) is half-open: bin 15 is not in it, so the node [12, 16) does not fit."),
                  ([5, 2, 1], "The root covers all 16 bins; the range does not contain it.")])


def check_cover_variance(answer: Any) -> Feedback:
    """Exercise 3.3: the variance of [2, 15) answered from its cover (n = 16, b = 4, root measured, epsilon = 1).

    Parameters
    ----------
    answer : float
        The student's variance (no inference).

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_cover_variance(126))
    True
    """
    start, stop = COVER_RANGE
    expected = float(H.range_mse_by_query(COVER_N, COVER_B, 1.0, [start], [stop], constrained=False)[0])
    return check_number(
        "3.3 The variance of a range without inference", answer, expected,
        explain="3 measured levels get epsilon/3 each, so every node has variance 2 (3/1)^2 = 18, and the 7 cover "
                "nodes add independent noise: 7 x 18.",
        hint="Each measured level gets epsilon / (number of measured levels); a node's noise is Lap(1/eps_l) with "
             "variance 2/eps_l^2; the range sums its cover nodes, whose noises are independent.",
        mistakes=[(14.0, "Each level gets only a share of epsilon (it is split over the 3 measured levels), not "
                         "all of it."),
                  (26.0, "That is the Flat method's variance (13 leaves at epsilon = 1); the tree answers from "
                         "its 7 cover nodes, each with a third of the budget."),
                  (63.0, "Lap(b) has variance 2 b^2, not b^2."),
                  (56.0, "The root is measured here: 3 levels share epsilon, not 2.")])


def check_weighted_average(answer: Any) -> Feedback:
    """Exercise 3.4: the variance of the best combination of a node's count with the sum of its 4 children.

    Parameters
    ----------
    answer : float
        The variance in units of V_O (the variance of one noisy node).

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_weighted_average(0.8))
    True
    """
    below, _ = H.algorithm1_variances(2, 4)
    return check_number(
        "3.4 Weighted averaging", answer, float(below[1]),
        explain="the two estimates are independent with variances 1 and 4 (in V_O); the inverse-variance weighted "
                "average has 1/V = 1/1 + 1/4, so V = 4/5: Qardaji et al.'s (b-1) b^(m-1) / (b^m - 1) at m = 2.",
        hint="The sum of 4 independent children has variance 4 V_O. Two independent unbiased estimates with "
             "variances V1 and V2 combine best with weights proportional to 1/V1 and 1/V2: inverse variances add.",
        mistakes=[(1.25, "That is the plain average of the two estimates, (1 + 4) / 4: weighting them equally "
                         "ignores that the children's sum is 4 times noisier."),
                  (1.0, "Using the node's own count alone ignores the information in its children."),
                  (0.2, "1/V = 1/1 + 1/4 = 5/4: the variance is the inverse of that sum.")])


def check_optimal_split(answer: Any) -> Feedback:
    """Exercise 3.5: the budget of each measured level that minimises the average range variance without inference.

    Tree over n = 64 bins, b = 4, root not measured, epsilon = 1.

    Parameters
    ----------
    answer : array_like
        (3,) budgets of levels 0, 1 and 2, leaves first, summing to 1.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> eps = H.level_epsilons(64, 4, 1.0, allocation="optimal", measure_root=False)[:3]
    >>> bool(check_optimal_split(eps))
    True
    """
    usage = _split_usage()
    expected = H.level_epsilons(SPLIT_N, SPLIT_B, 1.0, allocation="optimal", measure_root=False)[:usage.size]
    return array_feedback(
        "3.5 The optimal budget split", answer, expected,
        explain="minimising sum_l M_l 2/eps_l^2 subject to sum_l eps_l = 1: the Lagrange condition "
                "4 M_l / eps_l^3 = lambda gives eps_l proportional to M_l^(1/3).",
        hint="Write the average variance as sum_l M_l * 2/eps_l^2 (M_l = H.level_usage), add a Lagrange multiplier "
             "for sum_l eps_l = 1 and set the derivative by each eps_l to zero.",
        mistakes=[(np.full(3, 1 / 3), "That is the uniform split; the levels are not used equally often."),
                  (usage / usage.sum(), "Proportional to M_l itself is too steep: the condition "
                                        "4 M_l / eps_l^3 = lambda gives the cube root."),
                  (np.sqrt(usage) / np.sqrt(usage).sum(), "Square roots are the answer to a different problem; "
                                                          "eps_l enters as 1/eps_l^2, which gives the cube root.")],
        digits=3)


def _split_usage() -> np.ndarray:
    """How often each measured level of exercise 3.5's tree is used over all ranges (M_l, leaves first)."""
    tree = H.build_tree(SPLIT_N, SPLIT_B, measure_root=False)
    return H.level_usage(tree)[tree.measured_levels]


def _two_level_variance(b: int, k: int, epsilon: float) -> float:
    """Exact variance of a k-leaf range after inference in the tree of b leaves and a measured root."""
    return float(H.range_mse_by_query(b, b, epsilon, [0], [k], constrained=True)[0])


def check_two_level_variance(fn: Any) -> Feedback:
    """Exercise 3.6: ``ci_variance(b, k, epsilon)``, a k-leaf range's variance after inference in a 2-level tree.

    The tree has b leaves and a measured root, epsilon split evenly (epsilon/2 per level).  The function is
    compared with dpviz's exact least-squares variance on 20 random inputs; a simulation of 20,000 releases
    checks one case.

    Parameters
    ----------
    fn : callable
        The student's ``ci_variance(b, k, epsilon)``.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_two_level_variance(lambda b, k, e: 8 / e**2 * k * (b + 1 - k) / (b + 1)))
    True
    """
    gen = np.random.default_rng(303)
    bs = gen.integers(2, 17, size=20)
    cases = [(int(b), int(gen.integers(1, b + 1)), float(e)) for b, e in zip(bs, gen.uniform(0.1, 5, 20),
                                                                              strict=True)]
    fb = check_function(
        "3.6 The variance after inference, derived", fn, _two_level_variance, cases,
        explain="the least-squares estimate is y_S + k (r - sum_i y_i) / (b + 1), with variance "
                "V k (b + 1 - k) / (b + 1), V = 2 (2/epsilon)^2.",
        hint="Every node has variance V = 2 (2/epsilon)^2 (epsilon/2 per level). Least squares moves each leaf by "
             "the same share of the discrepancy r - sum_i y_i (the root minus the leaves' sum): find that share "
             "(1/(b + 1)), write the range's estimate as a combination of the noisy counts, and add the squared "
             "coefficients times V. Without inference the range would have variance k V.")
    if not fb.passed:
        return fb
    b, k, eps = 4, 2, 1.0
    release = H.measure(np.zeros(b), b, eps, rng=np.random.default_rng(3), size=20_000)
    dev = release.leaves(constrained=True)[:, :k].sum(axis=1)     # the true counts are 0: these are the errors
    sim, se = float(np.mean(dev ** 2)), float(np.std(dev ** 2) / np.sqrt(dev.size))
    return Feedback(fb.exercise, True, f"{fb.message} Simulated: 20,000 releases at b = {b}, k = {k}, epsilon = "
                    f"{eps:g} give variance {sim:.3f} +- {2 * se:.3f} (two standard errors); your formula gives "
                    f"{float(fn(b, k, eps)):.3f}.")


# ------------------------------------------------------------------------------------------- explorer goals
def best_branching_goal(n: int = 1024, *, constrained: bool = False, measure_root: bool = True,
                        allocation: str = "uniform") -> tuple[str, Any]:
    """A HierarchyExplorer goal: slide b to the branching factor with the smallest average error over all ranges.

    Parameters
    ----------
    n : int, default 1024
        The domain size at which the goal holds (the explorer's ``n`` control must show it).
    constrained : bool, default False
        Whether the error is that of H_b with constrained inference.
    measure_root : bool, default True
        Whether the root is measured (the explorer's control must agree).
    allocation : str, default "uniform"
        The budget split (the explorer's control must agree).

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)`` for :meth:`dpviz.widgets.Explorer.add_goal`.

    Examples
    --------
    >>> text, test = best_branching_goal(256)
    >>> test(None, {"n": 256, "branching": 16, "measure_root": True, "allocation": "uniform"})
    'b = 16: the smallest exact average MSE over all ranges of n = 256 bins (H_b)'
    """
    best = H.optimal_branching(n, 1.0, constrained=constrained, allocation=allocation, measure_root=measure_root)
    method = "H_b + CI" if constrained else "H_b"

    def test(result: Any, values: dict[str, Any]) -> str | None:
        same = (values["n"] == n and values["measure_root"] == measure_root and values["allocation"] == allocation)
        if same and values["branching"] == best:
            return f"b = {best}: the smallest exact average MSE over all ranges of n = {n} bins ({method})"
        return None

    root = "root measured" if measure_root else "root not measured"
    return (f"at n = {n} ({root}, {allocation} budget), find the branching factor b whose {method} error, "
            "averaged over all ranges, is smallest"), test


def crossover_goal(tolerance: float = 0.25) -> tuple[str, Any]:
    """A HierarchyExplorer goal: select a range whose width is where the tree starts to beat Flat.

    The tree's curve is H_b + CI when the explorer shows constrained inference, H_b otherwise; the crossover is
    the smallest width whose exact MSE is below Flat's (:func:`dpviz.hierarchy.range_mse_by_width`).

    Parameters
    ----------
    tolerance : float, default 0.25
        Relative tolerance on the selected range's width.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = crossover_goal()
    >>> class Cover:
    ...     start, stop = 0, 157
    >>> class Run:
    ...     cover = Cover()
    >>> vals = {"n": 1024, "branching": 16, "allocation": "uniform", "measure_root": True, "constrained": True}
    >>> test(Run(), vals)
    'width 157: H_16 + CI beats Flat from width 157 on'
    """
    cache: dict[tuple[Any, ...], int | None] = {}

    def crossing(n: int, b: int, allocation: str, root: bool, constrained: bool) -> int | None:
        key = (n, b, allocation, root, constrained)
        if key not in cache:
            w = np.arange(1, n + 1)
            flat = H.range_mse_by_width(n, None, 1.0, w, constrained=False)
            tree = H.range_mse_by_width(n, b, 1.0, w, constrained=constrained, allocation=allocation,
                                        measure_root=root)
            wins = np.flatnonzero(tree < flat)
            cache[key] = int(w[wins[0]]) if wins.size and wins[0] < n - 1 else None
        return cache[key]

    def test(result: Any, values: dict[str, Any]) -> str | None:
        ci = bool(values["constrained"])
        cross = crossing(values["n"], values["branching"], values["allocation"], values["measure_root"], ci)
        width = result.cover.stop - result.cover.start
        if cross is not None and abs(width - cross) <= tolerance * cross:
            method = f"H_{values['branching']}" + (" + CI" if ci else "")
            return f"width {width}: {method} beats Flat from width {cross} on"
        return None

    return ("select a range whose width is where the tree's exact error curve drops below Flat's (within "
            f"{tolerance:.0%})"), test


def inference_hurts_goal() -> tuple[str, Any]:
    """A HierarchyExplorer goal: find a release in which constrained inference makes the selected range worse.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = inference_hurts_goal()
    >>> class Run:
    ...     answers = {"truth": 10.0, "tree": 11.0, "tree_ci": 13.0}
    >>> test(Run(), {"seed": 4})
    'seed 4: error +1.0 from the cover, +3.0 after inference'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        a = result.answers
        before, after = a["tree"] - a["truth"], a["tree_ci"] - a["truth"]
        if abs(after) > abs(before):
            return f"seed {values['seed']}: error {before:+.1f} from the cover, {after:+.1f} after inference"
        return None

    return "find a seed for which constrained inference makes the selected range's answer worse", test


EXERCISES = (
    Exercise("3.1", "Nodes and sensitivity of a tree", check_tree_size, (1334, 6),
             (((1365, 6), "pad"), ((1334, 1), "every level"), ((1334, 5), "6 measured levels")), "easy"),
    Exercise("3.2", "The minimal cover of a range", check_minimal_cover, [5, 2, 0],
             (([13, 0, 0], "Flat"), ([2, 3, 0], "half-open"), ([5, 2, 1], "root")), "easy"),
    Exercise("3.3", "The variance of a range without inference", check_cover_variance, 126.0,
             ((14.0, "share"), (26.0, "Flat"), (63.0, "2 b^2"), (56.0, "3 levels")), "medium"),
    Exercise("3.4", "Weighted averaging", check_weighted_average, 0.8,
             ((1.25, "plain average"), (1.0, "alone"), (0.2, "inverse")), "medium"),
    Exercise("3.5", "The optimal budget split", check_optimal_split,
             H.level_epsilons(SPLIT_N, SPLIT_B, 1.0, allocation="optimal", measure_root=False)[:3],
             ((np.full(3, 1 / 3), "uniform"), (_split_usage() / _split_usage().sum(), "cube root"),
              (np.sqrt(_split_usage()) / np.sqrt(_split_usage()).sum(), "cube root")), "medium", digits=3),
    Exercise("3.6", "The variance after inference, derived", check_two_level_variance,
             lambda b, k, e: 2 * (2 / e) ** 2 * k * (b + 1 - k) / (b + 1),
             ((lambda b, k, e: 2 * (2 / e) ** 2 * k, "without inference"),
              (lambda b, k, e: 2 * (1 / e) ** 2 * k * (b + 1 - k) / (b + 1), "epsilon/2"),
              (lambda b, k, e: 2 * (2 / e) ** 2 * k * (b - k) / b, "1/(b + 1)")), "hard"),
)
