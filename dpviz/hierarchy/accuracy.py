"""Exact (computed, not simulated) mean squared error of range queries: Flat, H_b and H_b + CI.

Every error is a variance: the releases are unbiased.  Flat adds ``Lap(1/epsilon)``
(variance ``V_u = 2/epsilon^2``) to each leaf; H_b sums the noisy nodes of the
minimal cover, each with its level's Laplace variance; H_b + CI reads the
range off the generalised least-squares leaves, whose covariance is the tree
matrix of :mod:`dpviz.hierarchy.ci_covariance` (O(h^2) per range or per width,
never an n x n matrix).  All variances are computed at epsilon = 1 and scaled by ``1/epsilon^2``.

References
----------
- [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
  Differentially Private Histograms." PVLDB 6(14), 2013.
- [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the Accuracy of
  Differentially Private Histograms Through Consistency." PVLDB 3(1), 2010.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpviz.hierarchy.budgets import ALLOCATIONS, _level_variances, check_budget, level_usage
from dpviz.hierarchy.ci_covariance import _ci_range_variances, _ci_variance_sums
from dpviz.hierarchy.ranges import _check_ranges, _cover_counts
from dpviz.hierarchy.tree import Tree, build_tree
from dpviz.hierarchy.width_sums import _hb_width_sums
from dpviz.mechanisms import laplace_variance
from dpviz.validation import check_bool, check_choice, check_elements, check_int, check_widths

__all__ = [
    "flat_average_range_mse",
    "range_mse_by_width",
    "average_range_mse",
    "range_mse_by_query",
]


def _inv_eps2(epsilon: float) -> float:
    """``1 / epsilon^2``: half the unit Laplace variance, the factor by which an error at epsilon = 1 scales.

    Taken from :func:`dpviz.mechanisms.laplace_variance` (the one calibration), so ``2 * _inv_eps2(eps)``
    is the variance ``V_u`` of one Laplace count at sensitivity 1.
    """
    return laplace_variance(1.0, epsilon) / 2.0


def _check_common(n: int, branching: int | None, epsilon: float, allocation: str,
                  measure_root: bool) -> tuple[Tree | None, float, str]:
    """Validate the arguments shared by the exact-error functions; the tree is None for Flat."""
    n = check_int("n", n, minimum=1)
    check_elements(float(n), "leaf-length arrays", n=n)
    epsilon = check_budget(epsilon)
    allocation = check_choice("allocation", allocation, ALLOCATIONS)
    if branching is None:
        return None, epsilon, allocation
    check_elements(float(check_int("branching", branching, minimum=2)), "children per node", branching=branching)
    return build_tree(n, branching, measure_root=measure_root), epsilon, allocation


def flat_average_range_mse(n: int, epsilon: float) -> float:
    """Flat method: average MSE over all range queries ``(n + 2)/3 * V_u``, ``V_u = 2/epsilon^2`` [QYL13] §3.1.

    The average length of the ``n(n+1)/2`` ranges is ``sum_j j(n-j+1) / (n(n+1)/2) = (n+2)/3``
    and a range of length ``j`` has variance ``j V_u``.

    Parameters
    ----------
    n : int
        Number of leaves, >= 1.
    epsilon : float
        Privacy budget, finite and > 0.

    Returns
    -------
    float
        The average MSE.

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n < 1`` or ``epsilon`` is not finite and >= :data:`~dpviz.hierarchy.MIN_EPSILON`.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), §3.1.

    Examples
    --------
    >>> flat_average_range_mse(1024, 1.0)
    684.0
    """
    n = check_int("n", n, minimum=1)
    return (n + 2) / 3 * 2.0 * _inv_eps2(check_budget(epsilon))


def range_mse_by_width(n: int, branching: int | None, epsilon: float, widths: ArrayLike | None = None, *,
                       constrained: bool,
                       allocation: str = "uniform", measure_root: bool = True) -> np.ndarray:
    """Exact MSE averaged over all ranges of each width (computed, not simulated).

    ``branching=None`` is Flat (``w * 2/epsilon^2``).  ``constrained=False``: the
    H_b answer sums the noisy counts of the minimal cover, so its variance is
    ``sum_l V_l * (number of level-l cover nodes)``, counted exactly per width
    from which nodes (and parents) each range contains [QYL13] Prop. 1.
    ``constrained=True``: the variance ``q^T Sigma q`` of the least-squares
    leaves, summed over the ranges of each width in closed form from the tree-matrix form of ``Sigma``
    (O(h^2) per width, e.g. all 65,536 widths of n = 65536 in 0.02-0.2 s).

    Parameters
    ----------
    n : int
        Number of leaves, >= 1.
    branching : int or None
        Branching factor b >= 2, or None for Flat.
    epsilon : float
        Total privacy budget, finite and > 0.
    widths : array_like of int, optional
        Range widths in [1, n] (default all).
    constrained : bool
        Whether constrained inference is applied (ignored for Flat).
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        Budget split over the levels (ignored for Flat).
    measure_root : bool, default True
        Whether the root is measured (ignored for Flat).

    Returns
    -------
    numpy.ndarray
        MSE per width.

    Raises
    ------
    TypeError
        If ``n``, ``branching`` or ``widths`` are not integers, or ``constrained``/``measure_root``
        not a bool.
    ValueError
        If ``n < 1``, ``branching < 2``, ``epsilon`` is not finite and >= :data:`~dpviz.hierarchy.MIN_EPSILON`,
        ``allocation`` is unknown, a width is outside ``[1, n]``, or
        ``n`` or ``branching`` exceeds :data:`~dpviz.validation.MAX_ELEMENTS`.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), Proposition 1; Hay et al., PVLDB 2010 ([HRMS10]).

    Examples
    --------
    >>> range_mse_by_width(8, 2, 1.0, [1, 8], constrained=False, measure_root=False).tolist()
    [18.0, 36.0]
    """
    tree, epsilon, allocation = _check_common(n, branching, epsilon, allocation, measure_root)
    constrained = check_bool("constrained", constrained)
    w = check_widths(n, widths)
    if tree is None:
        return w * 2.0 * _inv_eps2(epsilon)
    count = (n - w + 1).astype(float)
    if constrained:
        return _ci_variance_sums(tree, allocation, w) / count * _inv_eps2(epsilon)
    V = _level_variances(tree, allocation)
    return _hb_width_sums(tree, V, w) / count * _inv_eps2(epsilon)


def average_range_mse(n: int, branching: int | None, epsilon: float, *, constrained: bool,
                      allocation: str = "uniform", measure_root: bool = True) -> float:
    """Exact MSE averaged over all ``n(n+1)/2`` range queries for Flat, H_b or H_b with constrained inference.

    * ``branching=None``: Flat, ``(n+2)/3 * V_u`` with ``V_u = 2/epsilon^2``.
    * ``constrained=False``: ``sum_l M_l * 2/eps_l^2 / (n(n+1)/2)`` with ``M_l``
      the exact level usage (:func:`level_usage`); for ``n = b^h``, root not
      measured and uniform budgets this is Qardaji's Proposition 1.
    * ``constrained=True``: average of ``q^T Sigma q`` for the GLS leaf
      covariance ``Sigma`` (exact, O(n h^2) time from its tree-matrix form).

    Parameters
    ----------
    n : int
        Number of leaves, >= 1.
    branching : int or None
        b >= 2, or None for Flat.
    epsilon : float
        Total budget > 0.
    constrained : bool
        Whether constrained inference is applied (ignored for Flat).
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        Budget split over the levels (ignored for Flat).
    measure_root : bool, default True
        Whether the root is measured (ignored for Flat).

    Returns
    -------
    float
        The average MSE.

    Raises
    ------
    TypeError
        If ``n`` or ``branching`` is not an integer, or ``constrained``/``measure_root`` not a bool.
    ValueError
        If ``n < 1``, ``branching < 2``, ``epsilon`` is not finite and >= :data:`~dpviz.hierarchy.MIN_EPSILON`,
        ``allocation`` is unknown, or
        ``n`` or ``branching`` exceeds :data:`~dpviz.validation.MAX_ELEMENTS`.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), Proposition 1 and §3.3; Hay et al., PVLDB 2010 ([HRMS10]).

    Examples
    --------
    >>> average_range_mse(8, 2, 1.0, constrained=False, measure_root=False)  # 66 node uses / 36 ranges * 18
    33.0
    """
    tree, epsilon, allocation = _check_common(n, branching, epsilon, allocation, measure_root)
    constrained = check_bool("constrained", constrained)
    if tree is None:
        return flat_average_range_mse(n, epsilon)
    nq = n * (n + 1) / 2
    if constrained:
        total = _ci_variance_sums(tree, allocation, np.arange(1, n + 1)).sum()
        return float(total / nq * _inv_eps2(epsilon))
    V = _level_variances(tree, allocation)
    lv = tree.measured_levels
    return float((V[lv] * level_usage(tree)[lv]).sum() / nq * _inv_eps2(epsilon))


def range_mse_by_query(n: int, branching: int | None, epsilon: float, starts: ArrayLike, stops: ArrayLike, *,
                       constrained: bool,
                       allocation: str = "uniform", measure_root: bool = True) -> np.ndarray:
    """Exact MSE of individual range queries ``[starts, stops)`` (Flat, H_b or H_b + CI).

    Flat: ``(stop - start) V_u``; H_b: the level variances of the minimal cover's
    nodes; H_b + CI: ``q^T Sigma q`` for the least-squares leaf covariance
    ``Sigma``, whose rows are computed for the leaves the ranges touch.

    Parameters
    ----------
    n : int
        Number of leaves, >= 1.
    branching : int or None
        Branching factor b >= 2, or None for Flat.
    epsilon : float
        Total privacy budget, finite and > 0.
    starts, stops : array_like of int
        Range bounds ``0 <= start < stop <= n``, shape (q,).
    constrained : bool
        Whether constrained inference is applied (ignored for Flat).
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        Budget split over the levels (ignored for Flat).
    measure_root : bool, default True
        Whether the root is measured (ignored for Flat).

    Returns
    -------
    numpy.ndarray
        (q,) MSE of each range.

    Raises
    ------
    TypeError
        If ``n``, ``branching`` or the bounds are not integers, or ``constrained``/``measure_root``
        not a bool.
    ValueError
        If ``n < 1``, ``branching < 2``, ``epsilon`` is not finite and >= :data:`~dpviz.hierarchy.MIN_EPSILON`,
        ``allocation`` is unknown, a range is empty or out of ``[0, n]``, or
        ``n`` or ``branching`` exceeds :data:`~dpviz.validation.MAX_ELEMENTS`.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]): the example below is its 8-leaf, b = 2 tree (ratio 399/441).

    Examples
    --------
    >>> V_O = 2 * 3**2  # N = 8, b = 2, root not measured: each of 3 levels gets epsilon/3
    >>> v = range_mse_by_query(8, 2, 1.0, [0], [3], constrained=True, measure_root=False)
    >>> round(float(v[0]) / V_O * 441, 6)
    399.0
    """
    tree, epsilon, allocation = _check_common(n, branching, epsilon, allocation, measure_root)
    constrained = check_bool("constrained", constrained)
    i, j = _check_ranges(n, starts, stops)
    if tree is None:
        return (j - i) * 2.0 * _inv_eps2(epsilon)
    if not constrained:
        V = _level_variances(tree, allocation)
        return V[: tree.measured_levels[-1] + 1] @ _cover_counts(tree, i, j) * _inv_eps2(epsilon)
    return _ci_range_variances(tree, allocation, i, j) * _inv_eps2(epsilon)
