"""Exercises of lecture 03 (hierarchical histograms); the goals of its explorers are re-exported from
:mod:`dpviz.exercises.lecture03_goals`.

Neighbours are add/remove-one-record, as in every lecture.  Each ``check_*`` reads the student's values
(:func:`~dpviz.exercises.variants.values`), computes its expected answer with :mod:`dpviz.hierarchy` and returns a
:class:`~dpviz.exercises.Feedback`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpviz import hierarchy as H
from dpviz import sensitivity
from dpviz.exercises.checks import check_array as array_feedback  # not dpviz.validation.check_array: never raises
from dpviz.exercises.checks import check_function, check_number
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.lecture03_goals import best_branching_goal, crossover_goal, inference_hurts_goal
from dpviz.exercises.registry import Exercise, hints, words
from dpviz.exercises.variants import Values, start, values

__all__ = ["start", "values", "check_tree_size", "check_minimal_cover", "check_cover_variance",
           "check_weighted_average", "check_optimal_split", "check_two_level_variance", "best_branching_goal",
           "crossover_goal", "inference_hurts_goal", "EXERCISES"]

#: A typical mistake: (wrong answer, a word its hint contains, the hint).
_Mistake = tuple[Any, str, str]


def check_tree_size(answer: Any) -> Feedback:
    """Exercise 3.1: the number of nodes and the L1 sensitivity of H_b over n bins, root measured (n, b: your values).

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
    v = values("3.1")
    tree = H.build_tree(v.bins, v.branching)
    expected = (tree.n_nodes, sensitivity.l1(H.strategy_matrix(v.bins, v.branching)))
    return array_feedback(
        "3.1 Nodes and sensitivity of a tree", answer, expected,
        explain=f"level l has ceil({v.bins} / {v.branching}^l) nodes ({' + '.join(map(str, tree.sizes))}), the last "
                f"one short, and one person sits in exactly one node of each of the {len(tree.sizes)} measured levels.",
        hint="Count level by level: level l has ceil(n / b^l) nodes, from the leaves (level 0) up to the root "
             "(the first level with a single node). Adding or removing one person changes one node per level.",
        mistakes=hints(_tree_mistakes(v)))


def _tree_mistakes(v: Values) -> list[_Mistake]:
    tree = H.build_tree(v.bins, v.branching)
    levels, b = len(tree.sizes), v.branching
    padded = (b ** levels - 1) // (b - 1)
    return [((padded, levels), "pad", f"{padded} nodes pad the domain to {b}^{levels - 1} = {b ** (levels - 1)} bins; "
                                      "dpviz keeps the last node of each level short instead, and the padding bins "
                                      "hold nobody."),
            ((tree.n_nodes, 1), "every level", "One person changes one node per level, and every level is measured: "
                                               "the changes add up over the levels."),
            ((tree.n_nodes, levels - 1), "measured levels",
             f"log_{b}({v.bins}) is about {np.log(v.bins) / np.log(b):.2f}, so the root is level {levels - 1}: with "
             f"the leaves (level 0) that makes {levels} measured levels.")]


def _cover_nodes(n: int, b: int, start: int, stop: int) -> list[tuple[int, int, int]]:
    """The minimal cover of ``[start, stop)`` as (level, first bin, stop bin) of each node, leaves first."""
    out = []
    for level, (lo, a, c, hi) in enumerate(H.minimal_cover(H.build_tree(n, b), [start], [stop])):
        width = b ** level
        for k in [*range(int(lo[0]), int(a[0])), *range(int(c[0]), int(hi[0]))]:
            out.append((level, k * width, min((k + 1) * width, n)))
    return out


def _cover_per_level(n: int, b: int, start: int, stop: int) -> np.ndarray:
    """Number of cover nodes of ``[start, stop)`` on each level, leaves first."""
    levels = len(H.build_tree(n, b).sizes)
    return np.bincount([lv for lv, _, _ in _cover_nodes(n, b, start, stop)], minlength=levels).astype(float)


def check_minimal_cover(answer: Any) -> Feedback:
    """Exercise 3.2: how many nodes of each level the minimal cover of [start, stop) uses (n = 16, b = 4).

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
    v = values("3.2")
    nodes = _cover_nodes(16, 4, v.start, v.stop)
    leaves = [s for lv, s, _ in nodes if lv == 0]
    blocks = [f"[{s}, {e})" for lv, s, e in nodes if lv == 1]
    return array_feedback(
        "3.2 The minimal cover of a range", answer, _cover_per_level(16, 4, v.start, v.stop),
        explain=f"[{v.start}, {v.stop}) = the level-1 node{'s' * (len(blocks) > 1)} {', '.join(blocks)} + the leaves "
                f"{', '.join(map(str, leaves))}: a node is used when it lies inside the range and its parent does not.",
        hint=f"Draw the 16 leaves, the 4 level-1 nodes [0, 4), [4, 8), [8, 12), [12, 16) and the root. Take the "
             f"largest nodes that fit inside [{v.start}, {v.stop}) (bin {v.stop} is not in it), then fill the rest "
             "with leaves.",
        mistakes=hints(_cover_mistakes(v)))


def _cover_mistakes(v: Values) -> list[_Mistake]:
    width = v.stop - v.start
    right = _cover_per_level(16, 4, v.start, v.stop)
    return [([width, 0, 0], "Flat", f"That answers the range from its {width} leaves (the Flat method): the tree lets "
                                    "a whole level-1 node replace 4 leaves."),
            (_cover_per_level(16, 4, v.start, v.stop + 1), "half-open",
             f"[{v.start}, {v.stop}) is half-open: bin {v.stop} is not in it."),
            (right + [0, 0, 1], "root", "The root covers all 16 bins; the range does not contain it.")]


def check_cover_variance(answer: Any) -> Feedback:
    """Exercise 3.3: the variance of [start, stop) answered from its cover (n = 16, b = 4, root measured, epsilon).

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
    v = values("3.3")
    expected = float(H.range_mse_by_query(16, 4, v.epsilon, [v.start], [v.stop], constrained=False)[0])
    k = int(_cover_per_level(16, 4, v.start, v.stop).sum())
    node = 2 * (3 / v.epsilon) ** 2
    return check_number(
        "3.3 The variance of a range without inference", answer, expected,
        explain=f"3 measured levels get epsilon/3 each, so every node has variance 2 (3/{v.epsilon:g})^2 = "
                f"{node:g}, and the {k} cover nodes add independent noise: {k} x {node:g}.",
        hint="Find the range's cover first. Each measured level gets epsilon / (number of measured levels); a node's "
             "noise is Lap(1/eps_l) with variance 2/eps_l^2; the range sums its cover nodes, whose noises are "
             "independent.",
        mistakes=hints(_variance_mistakes(v)))


def _variance_mistakes(v: Values) -> list[_Mistake]:
    k = _cover_per_level(16, 4, v.start, v.stop).sum()
    e, width = v.epsilon, v.stop - v.start
    return [(k * 2 / e**2, "share", "Each level gets only a share of epsilon (it is split over the 3 measured levels), "
                                    "not all of it."),
            (width * 2 / e**2, "Flat", f"That is the Flat method's variance ({width} leaves at the whole budget); the "
                                       f"tree answers from its {k:.0f} cover nodes, each with a third of the budget."),
            (k * (3 / e) ** 2, "2 b^2", "Lap(b) has variance 2 b^2, not b^2."),
            (k * 2 * (2 / e) ** 2, "3 levels", "The root is measured here: 3 levels share epsilon, not 2.")]


def check_weighted_average(answer: Any) -> Feedback:
    """Exercise 3.4: the best combination of a node's count with the sum of its b children's, at two level budgets.

    Parameters
    ----------
    answer : float
        The variance of the best unbiased combination.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_weighted_average(21.5))
    True
    """
    v = values("3.4")
    own, kids = _two_estimates(v)
    return check_number(
        "3.4 Weighted averaging across levels", answer, 1 / (1 / own + 1 / kids),
        explain=f"the node's own count has variance 2/{v.eps_node:g}^2 = {own:.4g}, the sum of its {v.branching} "
                f"children {v.branching} x 2/{v.eps_children:g}^2 = {kids:.4g}; the inverse-variance weighted average "
                f"has 1/V = 1/{own:.4g} + 1/{kids:.4g}.",
        hint="Find each estimate's variance first: the node's count (its level's budget) and the sum of its b "
             "children (b independent counts at the children's level budget). Two independent unbiased estimates "
             "combine best with weights proportional to their inverse variances: inverse variances add.",
        mistakes=hints(_average_mistakes(v)), digits=3)


def _two_estimates(v: Values) -> tuple[float, float]:
    """The variances of a node's own noisy count and of the sum of its children's noisy counts."""
    return 2 / v.eps_node**2, v.branching * 2 / v.eps_children**2


def _average_mistakes(v: Values) -> list[_Mistake]:
    own, kids = _two_estimates(v)
    b = v.branching
    return [(own, "alone", "Using the node's own count alone ignores the information in its children."),
            ((own + kids) / 4, "plain average", "That is the plain average of the two estimates: weighting them "
                                                "equally ignores that one is noisier than the other."),
            (1 / own + 1 / kids, "inverse", "1/V = 1/V1 + 1/V2: the variance is the inverse of that sum."),
            (1 / (1 / own + 1 / (kids / b)), "one child", f"The sum of {b} independent children has {b} times one "
                                                          "child's variance."),
            *[(1 / (1 / own + v.eps_node**2 / (2 * b)), "own level", "The children are measured at their own "
                                                                     "level's budget, not at the node's.")
              ] * (v.eps_node != v.eps_children)]


def check_optimal_split(answer: Any) -> Feedback:
    """Exercise 3.5: the level budgets that minimise the average variance of the n prefix sums, without inference.

    A tree over n bins with branching factor b (your values), root not measured, epsilon = 1.

    Parameters
    ----------
    answer : array_like
        The budget of each measured level, leaves first, summing to 1.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_optimal_split([0.346, 0.346, 0.308]))
    True
    """
    v = values("3.5")
    uses = _prefix_usage(v.bins, v.branching)
    return array_feedback(
        "3.5 The optimal budget split for prefix sums", answer, uses ** (1 / 3) / np.sum(uses ** (1 / 3)),
        explain=f"the covers of the {v.bins} prefix sums use the measured levels {', '.join(f'{u:.0f}' for u in uses)} "
                "times (leaves first); minimising sum_l P_l 2/eps_l^2 subject to sum_l eps_l = 1, the Lagrange "
                "condition 4 P_l / eps_l^3 = lambda gives eps_l proportional to P_l^(1/3).",
        hint="Count how many nodes of each measured level the minimal covers of all the prefix sums [0, c), "
             "c = 1 ... n, use (H.minimal_cover takes arrays of starts and stops). Then minimise sum_l P_l 2/eps_l^2 "
             "subject to sum_l eps_l = 1 with a Lagrange multiplier, as §10 does for all ranges.",
        mistakes=hints(_split_mistakes(v)), digits=3)


def _prefix_usage(n: int, b: int) -> np.ndarray:
    """P_l: how many level-l nodes the minimal covers of the n prefix sums use together (root not measured)."""
    cover = H.minimal_cover(H.build_tree(n, b, measure_root=False), np.zeros(n, dtype=int), np.arange(1, n + 1))
    return np.array([np.sum((a - lo) + (hi - c)) for lo, a, c, hi in cover], dtype=float)


def _split_mistakes(v: Values) -> list[_Mistake]:
    uses = _prefix_usage(v.bins, v.branching)
    tree = H.build_tree(v.bins, v.branching, measure_root=False)
    ranges = H.level_usage(tree)[tree.measured_levels]
    return [(np.full(uses.size, 1 / uses.size), "uniform", "That is the uniform split; the prefix sums do not use "
                                                           "every level equally often."),
            (ranges ** (1 / 3) / np.sum(ranges ** (1 / 3)), "all ranges",
             "That is §10's split for all ranges (H.level_usage counts every range); a prefix sum starts at bin 0: "
             "count the nodes of the prefix sums' covers only."),
            (uses / uses.sum(), "cube root", "Proportional to P_l itself is too steep: the condition "
                                             "4 P_l / eps_l^3 = lambda gives the cube root."),
            (np.sqrt(uses) / np.sum(np.sqrt(uses)), "cube root", "Square roots answer a different problem; eps_l "
                                                                 "enters as 1/eps_l^2, which gives the cube root.")]


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


EXERCISES = (
    Exercise("3.1", "Nodes and sensitivity of a tree", check_tree_size,
             lambda v: (H.build_tree(v.bins, v.branching).n_nodes, len(H.build_tree(v.bins, v.branching).sizes)),
             lambda v: words(_tree_mistakes(v)), "easy", kind="plug-in",
             parameters={"bins": (1000, 500, 700, 900, 1500, 2000, 3000), "branching": (4, 3, 5, 6, 8)}),
    Exercise("3.2", "The minimal cover of a range", check_minimal_cover,
             lambda v: _cover_per_level(16, 4, v.start, v.stop), lambda v: words(_cover_mistakes(v)), "easy",
             kind="plug-in", parameters={"start": (2, 1, 3, 5), "stop": (15, 12, 13, 14)}),
    Exercise("3.3", "The variance of a range without inference", check_cover_variance,
             lambda v: _cover_per_level(16, 4, v.start, v.stop).sum() * 2 * (3 / v.epsilon) ** 2,
             lambda v: words(_variance_mistakes(v)), "medium", kind="combine",
             parameters={"start": (2, 1, 3, 5), "stop": (15, 12, 13, 14), "epsilon": (1.0, 0.5, 2.0, 1.5, 0.75)}),
    Exercise("3.4", "Weighted averaging across levels", check_weighted_average,
             lambda v: 2 / (v.eps_node**2 + v.eps_children**2 / v.branching), lambda v: words(_average_mistakes(v)),
             "medium", digits=3, kind="combine",
             parameters={"branching": (4, 5, 6, 8, 12, 16), "eps_node": (0.25, 0.3, 0.35, 0.4),
                         "eps_children": (0.35, 0.3)}),
    Exercise("3.5", "The optimal budget split for prefix sums", check_optimal_split,
             lambda v: _prefix_usage(v.bins, v.branching) ** (1 / 3)
             / np.sum(_prefix_usage(v.bins, v.branching) ** (1 / 3)),
             lambda v: words(_split_mistakes(v)), "medium", digits=3, kind="combine",
             parameters={"bins": (48, 40, 60, 72, 80, 100), "branching": (4, 5, 6)}),
    Exercise("3.6", "The variance after inference, derived", check_two_level_variance,
             lambda v: lambda b, k, e: 2 * (2 / e) ** 2 * k * (b + 1 - k) / (b + 1),
             lambda v: ((lambda b, k, e: 2 * (2 / e) ** 2 * k, "without inference"),
                        (lambda b, k, e: 2 * (1 / e) ** 2 * k * (b + 1 - k) / (b + 1), "epsilon/2"),
                        (lambda b, k, e: 2 * (2 / e) ** 2 * k * (b - k) / b, "1/(b + 1)")), "hard", kind="derive"),
)
