"""Hierarchical histograms: b-ary trees of noisy range counts and constrained inference.

A histogram ``x`` of ``n`` leaf bins is covered by a tree with branching
factor ``b``.  Level 0 holds the leaves; level ``l`` holds the nodes that
each cover ``b**l`` consecutive leaves; the root is level ``h`` where ``h`` is
the smallest integer with ``b**h >= n`` (``h = 0`` when ``n = 1``).

**Uneven trees.**  When ``n`` is not a power of ``b`` the leaves are *not*
padded with fake bins: level ``l`` has ``ceil(n / b**l)`` nodes and node
``k`` of level ``l`` covers leaves ``[k b**l, min((k+1) b**l, n))``, so only
the last node of a level may be short (and may have fewer than ``b``
children).  Every leaf still lies in exactly one node per level, so the L1
sensitivity of measuring ``L`` levels with unit weights is exactly ``L``
whatever ``n`` is, and the privacy accounting is exact.

**Measurement.**  Every node of a measured level gets its count plus
independent Laplace noise of scale ``1 / eps_l`` where ``eps_l`` is that
level's share of the budget; nodes of one level cover disjoint leaves
(parallel composition) and the levels compose sequentially, so the release is
``sum_l eps_l = epsilon``-DP (neighbouring histograms differ by adding or
removing one record).  ``measure_root=True`` measures every level (Hay et
al.); ``measure_root=False`` skips the root, as in Qardaji et al. (there
``h = log_b N`` levels below the root each get ``epsilon / h``).  The leaf
level is always measured, so ``n = 1`` measures the single leaf.  The noise
is floating-point and Mironov (CCS 2012) showed that the low-order bits of
float Laplace outputs can reveal the input, so this epsilon is that of the
idealised real-valued mechanism (lecture 07, section 7); trees have no
integer-noise sampler (only :func:`dpviz.mechanisms.laplace` and ``gaussian`` do).

**Allocations** (``eps_l = epsilon * w_l / sum w``, over measured levels):
``"uniform"`` (``w_l = 1``), ``"geometric"`` (``w_l = b**(-l/3)``) and
``"optimal"`` (``w_l = M_l**(1/3)`` with ``M_l`` the number of times level-``l``
nodes are used when every range query is answered from its minimal node cover;
minimising ``sum_l M_l * 2 / eps_l**2`` subject to ``sum_l eps_l = epsilon``
gives exactly this, the variance-optimal allocation for ``H_b`` *without*
constrained inference).  ``"geometric"`` is the same cube-root rule applied to
a *two-dimensional* tree with ``b`` splits per axis, whose box covers use about
``b`` times more nodes on each level down; Cormode et al. derived it (ratio
``2**(1/3)``) for quadtrees.  On a 1-D tree the usage is nearly flat, so it is
a baseline here, not an optimum (see :mod:`dpviz.hierarchy.budgets`).

**Estimators.**  ``Flat`` adds ``Lap(1/epsilon)`` to each leaf; ``H_b`` answers
a range from the noisy counts of its minimal node cover; ``H_b + CI``
(constrained inference, Hay et al. 2010, generalised by Qardaji et al.) runs a
bottom-up inverse-variance weighted average and a top-down mean-consistency
pass, which gives the generalised least-squares estimate of the leaves from
all noisy nodes, for any ``n``, ``b`` and allocation.

Where things are
----------------
``tree.py``
    :class:`Tree` and :func:`build_tree`: levels, node sizes, the flat node order.
``budgets.py``
    :data:`ALLOCATIONS`, :func:`level_usage` (``M_l``), :func:`level_epsilons`, :func:`check_budget` and
    :data:`MIN_EPSILON` (the smallest total budget, below which variances overflow).
``strategy.py``
    :func:`strategy_matrix`, the hierarchy as a sparse strategy matrix.
``counts.py``
    :func:`node_counts`, the true count of every node.
``release.py``
    :class:`TreeRelease`, :func:`measure` (H_b) and :func:`flat_release` (Flat).
``inference.py``
    :func:`constrained_inference` (least-squares leaves and nodes).
``inference_effect.py``
    What inference does to one node: :func:`inference_weights` (its row of the
    linear map, Qardaji's Figure 1) and :func:`node_variances` (exact variances,
    Propositions 3 and 4).
``ranges.py``
    Range answers: :func:`range_answers`, :func:`tree_range_answers`, the
    minimal node cover (:func:`minimal_cover`) and the prefix-sum helpers
    :func:`prefix_range_sums`, :func:`level_prefix_sums`, :func:`cover_sums`.
``accuracy.py``
    Exact 1-D error: :func:`flat_average_range_mse`, :func:`average_range_mse`,
    :func:`range_mse_by_width`, :func:`range_mse_by_query`.
``width_sums.py``
    The H_b kernel behind them: variance sums over all ranges of each width
    by counting (range, cover node) pairs.
``ci_covariance.py``
    The H_b + CI kernel: the least-squares covariance as a tree matrix
    ``V_0 I - sum_v beta_v w_v w_v^T``, giving every range's variance and the
    sums over all ranges of each width in closed form (O(h^2) per range or width).
``qardaji.py``
    Qardaji et al.'s closed forms: :func:`qardaji_level_usage`,
    :func:`qardaji_average_mse`, :func:`asymptotic_optimal_branching`,
    :func:`algorithm1_variances`.
``branching.py``
    Choosing b: :func:`branching_curve`, :func:`optimal_branching`.
``grid.py``
    d-dimensional releases: :class:`GridRelease`, :func:`measure_nd`,
    :func:`box_sums`, :func:`box_answers_nd`.
``grid_accuracy.py``
    Exact d-dimensional error: :func:`average_range_mse_nd`; level usage of box
    covers: :func:`level_usage_nd`.

References
----------
- [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
  Differentially Private Histograms." PVLDB 6(14), 2013.
- [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the Accuracy of
  Differentially Private Histograms Through Consistency." PVLDB 3(1), 2010.
- [CPSSY12] G. Cormode, C. Procopiuc, D. Srivastava, E. Shen, T. Yu.
  "Differentially Private Spatial Decompositions." ICDE 2012.
"""

from __future__ import annotations

from dpviz.hierarchy.accuracy import average_range_mse, flat_average_range_mse, range_mse_by_query, range_mse_by_width
from dpviz.hierarchy.branching import branching_curve, optimal_branching
from dpviz.hierarchy.budgets import ALLOCATIONS, MIN_EPSILON, check_budget, level_epsilons, level_usage
from dpviz.hierarchy.counts import node_counts
from dpviz.hierarchy.grid import GridRelease, box_answers_nd, box_sums, measure_nd
from dpviz.hierarchy.grid_accuracy import average_range_mse_nd, level_usage_nd
from dpviz.hierarchy.inference import constrained_inference
from dpviz.hierarchy.inference_effect import inference_weights, node_variances
from dpviz.hierarchy.qardaji import (
    algorithm1_variances,
    asymptotic_optimal_branching,
    qardaji_average_mse,
    qardaji_level_usage,
)
from dpviz.hierarchy.ranges import (
    cover_sums,
    level_prefix_sums,
    minimal_cover,
    prefix_range_sums,
    range_answers,
    tree_range_answers,
)
from dpviz.hierarchy.release import TreeRelease, flat_release, measure
from dpviz.hierarchy.strategy import strategy_matrix
from dpviz.hierarchy.tree import Tree, build_tree

__all__ = [
    "ALLOCATIONS",
    "Tree",
    "TreeRelease",
    "build_tree",
    "level_epsilons",
    "strategy_matrix",
    "node_counts",
    "measure",
    "flat_release",
    "constrained_inference",
    "inference_weights",
    "node_variances",
    "range_answers",
    "tree_range_answers",
    "level_usage",
    "average_range_mse",
    "range_mse_by_width",
    "range_mse_by_query",
    "flat_average_range_mse",
    "qardaji_average_mse",
    "qardaji_level_usage",
    "algorithm1_variances",
    "asymptotic_optimal_branching",
    "optimal_branching",
    "branching_curve",
    "average_range_mse_nd",
    "level_usage_nd",
    "GridRelease",
    "measure_nd",
    "box_answers_nd",
    # public seams for dpviz.experiments (fast answers from precomputed prefix sums, the cover itself)
    "prefix_range_sums",
    "minimal_cover",
    "level_prefix_sums",
    "cover_sums",
    "box_sums",
    # the budget check every hierarchy function applies (issue 13: no inf/NaN for a tiny epsilon)
    "MIN_EPSILON",
    "check_budget",
]
