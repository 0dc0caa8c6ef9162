"""What constrained inference does to one node: its weights on the noisy counts and its exact variance.

After constrained inference every node's estimate is a fixed linear combination
of all noisy counts (Qardaji et al., Figure 1), and its variance follows from
the tree's structure alone (Propositions 3 and 4):

* **from below**: the best estimate of a node from its own count and its
  descendants, variance ``Z_v`` (the weighted-averaging pass);
* **from above**: the best estimate from its own count and everything outside
  its subtree, variance ``U_v``.  A child ``u`` of ``p`` gets
  ``count(p) - sum of its siblings``, variance ``U_p + sum_siblings Z_s``,
  averaged with its own count: ``1/U_u = 1/V_u + 1/(U_p + sum_s Z_s)``;
* the two parts use disjoint noisy counts, so the least-squares estimate has
  ``1/Var_v = 1/(sum_children Z_c) + 1/U_v`` (leaves: ``Var = U``; an
  unmeasured root: ``Var = sum_children Z_c``).

References
----------
- [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
  Differentially Private Histograms." PVLDB 6(14), 2013.
- [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the Accuracy of
  Differentially Private Histograms Through Consistency." PVLDB 3(1), 2010.
"""

from __future__ import annotations

import numpy as np

from dpviz.hierarchy.accuracy import _inv_eps2
from dpviz.hierarchy.budgets import ALLOCATIONS, _level_variances, check_budget
from dpviz.hierarchy.counts import _child_sum
from dpviz.hierarchy.inference import _ci_2d, _ci_plan
from dpviz.hierarchy.tree import build_tree
from dpviz.validation import check_choice, check_elements, check_int

__all__ = ["node_variances", "inference_weights"]


def node_variances(n: int, branching: int, epsilon: float, *, allocation: str = "uniform",
                   measure_root: bool = True) -> np.ndarray:
    """Exact variance of every node's estimate after constrained inference, from the tree's structure.

    Runs the from-below recursion ``Z`` (weighted averaging) bottom-up and the
    from-above recursion ``U`` top-down (see the module docstring), then
    combines them: ``1/Var_v = 1/(sum_children Z_c) + 1/U_v``.  For complete
    trees with a uniform budget this is Qardaji's Algorithm 1 followed by the
    combination in the proof of Proposition 4; here it holds for any ``n``
    (short last nodes) and any allocation.  No covariance matrix is formed:
    O(number of nodes).

    Parameters
    ----------
    n : int
        Number of leaves, >= 1.
    branching : int
        Branching factor b >= 2.
    epsilon : float
        Total privacy budget, finite and > 0.
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        Budget split over the levels (:func:`~dpviz.hierarchy.level_epsilons`).
    measure_root : bool, default True
        Whether the root is measured.

    Returns
    -------
    numpy.ndarray
        (n_nodes,) variances in the flat node order of :class:`~dpviz.hierarchy.Tree` (leaves first).

    Raises
    ------
    TypeError
        If ``n`` or ``branching`` is not an integer, or ``measure_root`` not a bool.
    ValueError
        If ``n < 1``, ``branching < 2``, ``epsilon`` is not finite and >= ``MIN_EPSILON``, or
        ``allocation`` is not one of ``ALLOCATIONS``.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), Propositions 3 and 4, Algorithm 1.

    Examples
    --------
    >>> from fractions import Fraction
    >>> v = node_variances(8, 2, 1.0, measure_root=False) / (2 * 3**2)  # in units of V_O = 2 (3/epsilon)^2
    >>> [str(Fraction(float(x)).limit_denominator(100)) for x in v[[0, 8, 12, 14]]]  # leaf, levels 1, 2, root
    ['13/21', '10/21', '4/7', '8/7']
    """
    tree = build_tree(n, branching, measure_root=measure_root)
    eps = check_budget(epsilon)
    allocation = check_choice("allocation", allocation, ALLOCATIONS)
    check_elements(float(tree.n_nodes), "tree nodes", n=n)
    V = _level_variances(tree, allocation)
    Z = _ci_plan(tree, allocation).below
    b, h = tree.branching, tree.height
    S = [np.full(tree.n, np.inf)] + [_child_sum(Z[l - 1][None, :], b, tree.sizes[l])[0] for l in range(1, h + 1)]
    out = np.empty(tree.n_nodes)
    U = np.full(1, V[h])  # the root's own count; inf when it is not measured
    for l in range(h, -1, -1):
        if l < h:
            parent = np.arange(tree.sizes[l]) // b
            outside = U[parent] + (S[l + 1][parent] - Z[l])  # count(parent) minus the siblings' sums
            U = 1.0 / (1.0 / V[l] + 1.0 / outside)
        out[tree.offsets[l]: tree.offsets[l + 1]] = 1.0 / (1.0 / S[l] + 1.0 / U)
    return out * _inv_eps2(eps)


def inference_weights(n: int, branching: int, level: int, index: int, *, allocation: str = "uniform",
                      measure_root: bool = True) -> np.ndarray:
    """Coefficients of all noisy counts in one node's estimate after constrained inference.

    Constrained inference is the linear map ``y -> C y`` (the weighted
    least-squares projection onto consistent trees).  This returns one row of
    ``C``: the estimate of node ``(level, index)`` is ``weights @ noisy``.
    ``C`` is self-adjoint in the inverse-variance inner product
    (``C[v, j] / V_j = C[j, v] / V_v``), so the row is read off a single run of
    inference on the indicator of the node's leaves, instead of one run per
    unit vector: ``C[v, j] = (V_leaf / V_j) (C 1_leaves(v))[j]``.  An
    unmeasured root gets weight 0.  Budget-free: only the ratios of the level
    variances matter.

    Parameters
    ----------
    n : int
        Number of leaves, >= 1.
    branching : int
        Branching factor b >= 2.
    level : int
        The node's level, 0 (leaves) .. height.
    index : int
        The node's position within its level, 0 .. (nodes on that level) - 1.
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        Budget split over the levels.
    measure_root : bool, default True
        Whether the root is measured.

    Returns
    -------
    numpy.ndarray
        (n_nodes,) weights in the flat node order of :class:`~dpviz.hierarchy.Tree` (leaves first).

    Raises
    ------
    TypeError
        If ``n``, ``branching``, ``level`` or ``index`` is not an integer, or ``measure_root`` not a bool.
    ValueError
        If ``n < 1``, ``branching < 2``, ``level`` or ``index`` is out of range, or ``allocation`` is not one of
        ``ALLOCATIONS``.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), Figure 1; Hay et al., PVLDB 2010 ([HRMS10]).

    Examples
    --------
    >>> from fractions import Fraction
    >>> w = inference_weights(8, 2, 0, 0, measure_root=False)  # the first leaf, n7 in the paper's Figure 1
    >>> [str(Fraction(float(w[k])).limit_denominator(100)) for k in (0, 8, 12, 9, 2, 1)]
    ['13/21', '5/21', '1/7', '-2/21', '-1/21', '-8/21']
    """
    tree = build_tree(n, branching, measure_root=measure_root)
    allocation = check_choice("allocation", allocation, ALLOCATIONS)
    level = check_int("level", level, minimum=0, maximum=tree.height)
    index = check_int("index", index, minimum=0, maximum=tree.sizes[level] - 1)
    check_elements(float(tree.n_nodes), "tree nodes", n=n)
    block = tree.block(level)
    y = np.zeros((1, tree.n_nodes))
    y[0, index * block: min((index + 1) * block, tree.n)] = 1.0
    Cy = _ci_2d(y, tree, _ci_plan(tree, allocation), True)[0]
    V = np.repeat(_level_variances(tree, allocation), tree.sizes)
    return np.where(np.isfinite(V), Cy * (V[0] / np.where(np.isfinite(V), V, 1.0)), 0.0)
