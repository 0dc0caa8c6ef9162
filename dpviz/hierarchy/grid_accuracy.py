"""Exact average error of box queries on a d-dimensional grid: Flat against a grid hierarchy, and level usage.

References
----------
- [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
  Differentially Private Histograms." PVLDB 6(14), 2013.
"""

from __future__ import annotations

import numpy as np

from dpviz.hierarchy.accuracy import _inv_eps2
from dpviz.hierarchy.budgets import check_budget
from dpviz.hierarchy.tree import build_tree
from dpviz.hierarchy.width_sums import _contain_sums
from dpviz.validation import check_bool, check_elements, check_int

__all__ = ["average_range_mse_nd", "level_usage_nd"]


def average_range_mse_nd(n: int, d: int, branching: int | None, epsilon: float, *,
                         measure_root: bool = True) -> float:
    """Exact average MSE over all axis-aligned range queries of an ``n^d`` grid (Flat or H_b, uniform budget).

    Flat: each of the ``N = n^d`` cells gets ``Lap(1/epsilon)``; a box of
    ``prod_k |r_k|`` cells has that many times ``V_u``, and the ranges of the
    d axes are independent under the uniform choice of a box, so the average
    is ``((n+2)/3)^d V_u``.
    H_b: the tree splits every axis into b at each level (``b^d`` children);
    a level-l node (product of level-l intervals) is in the minimal cover of
    a box iff it lies inside and its parent does not.  The expected number of
    such nodes is ``E[f_l]^d - E[g_l]^d`` with ``f_l`` (``g_l``) the 1-D number of
    level-l intervals inside a range (with parent inside), so the average MSE is
    ``sum_l V_l (E[f_l]^d - E[g_l]^d)``, ``V_l = 2 L^2/epsilon^2`` for L measured levels
    (no constrained inference) [QYL13] §5.

    Parameters
    ----------
    n : int
        Cells per axis, >= 1.
    d : int
        Number of dimensions, 1..8.
    branching : int or None
        Branching factor b >= 2 along every axis, or None for Flat.
    epsilon : float
        Total privacy budget, finite and > 0.
    measure_root : bool, default True
        Whether the root is measured.

    Returns
    -------
    float
        The average MSE over all ``(n(n+1)/2)^d`` boxes.

    Raises
    ------
    TypeError
        If ``n``, ``d`` or ``branching`` is not an integer, or ``measure_root`` not a bool.
    ValueError
        If ``n < 1``, ``d`` is outside 1..8, ``branching < 2`` or ``epsilon`` is not finite and > 0.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), §5.

    Examples
    --------
    >>> round(average_range_mse_nd(4, 2, None, 1.0), 6)  # ((4+2)/3)^2 * 2
    8.0
    """
    n = check_int("n", n, minimum=1)
    measure_root = check_bool("measure_root", measure_root)
    d = check_int("d", d, minimum=1, maximum=8)
    eps = check_budget(epsilon)
    if branching is None:
        return ((n + 2) / 3) ** d * 2.0 * _inv_eps2(eps)
    tree = build_tree(n, branching, measure_root=measure_root)
    F, G = _contain_sums(tree)
    nq = n * (n + 1) / 2
    L = tree.n_measured_levels
    return float(((F / nq) ** d - (G / nq) ** d).sum() * 2.0 * L**2 * _inv_eps2(eps))


def level_usage_nd(n: int, d: int, branching: int, *, measure_root: bool = True) -> np.ndarray:
    """Exact number of uses of each level's nodes by the minimal covers of all boxes of an ``n^d`` grid.

    The d-dimensional analogue of :func:`~dpviz.hierarchy.level_usage`.  A
    level-l node is a product of d level-l intervals and lies inside a box iff
    each interval lies inside the box's side on its axis, so the number of
    (box, node inside) pairs is ``F_l^d`` with ``F_l`` the 1-D count, and of
    (box, node whose parent is inside) pairs ``G_l^d``; the usage is
    ``F_l^d - G_l^d`` (for ``d = 1``, exactly ``level_usage``).  Divided by the
    ``(n(n+1)/2)^d`` boxes it is the expected number of level-l nodes a random
    box needs.  In 1-D it is nearly the same on every level; in d dimensions it
    grows by about ``b^(d-1)`` per level down, which is what drives the
    cube-root budget rules (``eps_l`` proportional to the usage to the 1/3,
    :func:`~dpviz.hierarchy.level_epsilons`).

    Parameters
    ----------
    n : int
        Cells per axis, >= 1.
    d : int
        Number of dimensions, 1..8.
    branching : int
        Branching factor b >= 2 along every axis (``b^d`` children per node).
    measure_root : bool, default True
        Whether the root is measured (an unmeasured root is used 0 times).

    Returns
    -------
    numpy.ndarray
        (h+1,) float usage per level, leaves first.

    Raises
    ------
    TypeError
        If ``n``, ``d`` or ``branching`` is not an integer, or ``measure_root`` not a bool.
    ValueError
        If ``n < 1``, ``d`` is outside 1..8 or ``branching < 2``.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), Proposition 1 and §5.

    Examples
    --------
    >>> level_usage_nd(4, 1, 2).tolist()  # 1-D: the same as level_usage
    [8.0, 4.0, 1.0]
    >>> level_usage_nd(4, 2, 2).tolist()  # 4 x 4 grid, 2 x 2 children per node, over all 100 boxes
    [256.0, 32.0, 1.0]
    """
    measure_root = check_bool("measure_root", measure_root)
    d = check_int("d", d, minimum=1, maximum=8)
    check_elements(float(check_int("n", n, minimum=1)), "node bounds per level", n=n)
    tree = build_tree(n, branching, measure_root=measure_root)
    F, G = _contain_sums(tree)
    out = np.zeros(tree.height + 1)
    out[: F.size] = F**d - G**d
    return out
