"""Strategies that ignore the workload's weights: identity, the workload itself, hierarchies H_b.

References
----------
- [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
  Linear Counting Queries Under Differential Privacy." PODS 2010.
- [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the Accuracy of
  Differentially Private Histograms Through Consistency." PVLDB 3(1), 2010.
"""

from __future__ import annotations

from typing import Any

import numpy.typing as npt
import scipy.sparse as sp

from dpviz import hierarchy
from dpviz.validation import check_elements, check_int, check_matrix
from dpviz.workloads import Workload

__all__ = ["identity", "workload", "hierarchical"]


def identity(n: int) -> sp.csr_matrix:
    """The identity strategy: measure every cell once (``||A||_1 = 1``).

    Parameters
    ----------
    n : int
        Number of cells, >= 1.

    Returns
    -------
    scipy.sparse.csr_matrix
        The (n, n) identity.

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n`` < 1.

    Examples
    --------
    >>> identity(3).toarray().tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    n = check_int("n", n, minimum=1)
    check_elements(n, "identity matrix entries", n=n)
    return sp.identity(n, format="csr", dtype=float).tocsr()


def workload(W: Workload | npt.ArrayLike | sp.sparray | sp.spmatrix) -> Any:
    """The workload as its own strategy (``A = W``; never worse than the plain Laplace mechanism [LHRMM10]).

    Parameters
    ----------
    W : Workload, array_like or scipy.sparse matrix
        The workload.

    Returns
    -------
    numpy.ndarray, scipy.sparse.csr_array or Workload
        The explicit matrix when it has at most two million non-zeros, otherwise the implicit
        :class:`~dpviz.workloads.Workload` itself (which the matrix mechanism accepts as ``A``).

    Raises
    ------
    TypeError, ValueError
        If a matrix ``W`` is not a finite 2-D matrix (see :func:`dpviz.validation.check_matrix`).

    Examples
    --------
    >>> from dpviz import workloads
    >>> workload(workloads.prefix(3)).toarray().astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    """
    if isinstance(W, Workload):
        try:
            return W.matrix(max_nnz=2_000_000)
        except ValueError:
            return W
    return check_matrix("W", W)


def hierarchical(n: int, branching: int = 2, *, measure_root: bool = True,
                 allocation: str = "uniform") -> sp.csr_array:
    """The b-ary hierarchical strategy H_b [HRMS10]: one row per tree node (leaves first).

    Wraps :func:`dpviz.hierarchy.strategy_matrix` (same tree, same row order),
    so its least-squares error equals the constrained-inference error of
    :func:`dpviz.hierarchy.average_range_mse`.  ``||A||_1`` = number of levels (uniform).

    Parameters
    ----------
    n : int
        Number of cells (leaves), >= 1.
    branching : int, default 2
        Branching factor b >= 2.
    measure_root : bool, default True
        Whether the root (the total) is measured.
    allocation : str, default "uniform"
        How the budget is split over levels (see :func:`dpviz.hierarchy.strategy_matrix`).

    Returns
    -------
    scipy.sparse.csr_array
        One row per measured node, leaves first.

    Raises
    ------
    TypeError
        If ``n`` or ``branching`` is not an integer, or ``measure_root`` is not a bool.
    ValueError
        If ``n`` < 1, ``branching`` < 2, ``allocation`` is unknown, or the matrix would hold more than
        :data:`dpviz.validation.MAX_ELEMENTS` entries (about ``n`` per level).

    Examples
    --------
    >>> hierarchical(4, 2).shape
    (7, 4)
    """
    n = check_int("n", n, minimum=1)
    b = check_int("branching", branching, minimum=2)
    levels, width = 1, n
    while width > 1:  # ceil(log_b n) + 1 levels, each holding n nonzeros
        width, levels = -(-width // b), levels + 1
    check_elements(float(n) * levels, "strategy matrix entries", n=n, branching=b)
    return hierarchy.strategy_matrix(n, branching, measure_root=measure_root, allocation=allocation)

