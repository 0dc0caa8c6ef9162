"""Choosing the branching factor: the exact average range error as a function of b, and its minimum.

References
----------
- [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
  Differentially Private Histograms." PVLDB 6(14), 2013.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpviz.hierarchy.accuracy import average_range_mse
from dpviz.hierarchy.budgets import check_budget
from dpviz.validation import check_elements, check_int, check_work

__all__ = ["branching_curve", "optimal_branching"]


def branching_curve(n: int, epsilon: float, branchings: ArrayLike, *, constrained: bool,
                    allocation: str = "uniform", measure_root: bool = True) -> np.ndarray:
    """Exact average range MSE for each branching factor in ``branchings``.

    Parameters
    ----------
    n : int
        Number of leaves, >= 1.
    epsilon : float
        Total privacy budget, finite and > 0.
    branchings : array_like of int
        Branching factors, each >= 2.
    constrained : bool
        Whether constrained inference is applied.
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        Budget split over the levels.
    measure_root : bool, default True
        Whether the root is measured.

    Returns
    -------
    numpy.ndarray
        Average MSE per branching factor (:func:`~dpviz.hierarchy.average_range_mse`).

    Raises
    ------
    TypeError
        If a branching factor or ``n`` is not an integer.
    ValueError
        If a branching factor is < 2 or another argument is invalid (see
        :func:`~dpviz.hierarchy.average_range_mse`).

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), §3.2.

    Examples
    --------
    >>> branching_curve(8, 1.0, [2, 8], constrained=False, measure_root=False).tolist()
    [33.0, 6.666666666666667]
    """
    bs = [check_int("branchings[]", b, minimum=2) for b in np.atleast_1d(branchings)]
    return np.array([average_range_mse(n, b, epsilon, constrained=constrained, allocation=allocation,
                                       measure_root=measure_root) for b in bs])


def optimal_branching(n: int, epsilon: float, *, constrained: bool, allocation: str = "uniform",
                      measure_root: bool = True, max_branching: int = 64) -> int:
    """The branching factor in ``2..min(n, max_branching)`` with the smallest exact average range MSE.

    epsilon only scales every MSE by ``1/epsilon^2``, so the answer does not
    depend on it (it is validated all the same).  With constrained inference
    each candidate costs O(n h^2) time.  For large n and no inference the optimum
    approaches :func:`~dpviz.hierarchy.asymptotic_optimal_branching` (about 16) [QYL13] §3.2.

    Parameters
    ----------
    n : int
        Number of leaves, >= 2.
    epsilon : float
        Total privacy budget, finite and > 0.
    constrained : bool
        Whether constrained inference is applied.
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        Budget split over the levels.
    measure_root : bool, default True
        Whether the root is measured.
    max_branching : int, default 64
        Largest branching factor tried, >= 2.

    Returns
    -------
    int
        The best branching factor (the smallest one on ties).

    Raises
    ------
    TypeError
        If ``n`` or ``max_branching`` is not an integer.
    ValueError
        If ``n < 2``, ``max_branching < 2``, ``epsilon`` is not finite and > 0, or
        ``allocation`` is unknown.

    Examples
    --------
    >>> optimal_branching(4096, 1.0, constrained=False, measure_root=False)
    16
    """
    n = check_int("n", n, minimum=2)
    check_elements(float(n), "leaf-length arrays", n=n)
    check_budget(epsilon)
    max_b = check_int("max_branching", max_branching, minimum=2)
    bs = np.arange(2, max(2, min(n, max_b)) + 1)
    # measured: n = 1e5 over 63 branchings takes about 2.4 s
    check_work(float(n) * bs.size, 2**23, "cell-level evaluations (n x branchings)", n=n, max_branching=max_b)
    mse = branching_curve(n, 1.0, bs, constrained=constrained, allocation=allocation, measure_root=measure_root)
    return int(bs[int(np.argmin(mse))])
