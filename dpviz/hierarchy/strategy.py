"""The hierarchical strategy as a sparse matrix: one row per measured node of the tree.

References
----------
- [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the Accuracy of
  Differentially Private Histograms Through Consistency." PVLDB 3(1), 2010.
- [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
  Differentially Private Histograms." PVLDB 6(14), 2013.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpviz.hierarchy.budgets import ALLOCATIONS, _weights
from dpviz.hierarchy.tree import build_tree
from dpviz.validation import check_choice, check_elements

__all__ = ["strategy_matrix"]


def strategy_matrix(n: int, branching: int, *, measure_root: bool = True,
                    allocation: str = "uniform") -> sp.csr_array:
    """The hierarchical strategy: one row per measured node, the 0/1 indicator of its leaves times a level weight.

    Rows are ordered level by level from the leaves up, left to right within a
    level (the flat node order of :class:`Tree` without the unmeasured root).
    Under ``uniform`` every weight is 1, so the L1 sensitivity (largest column
    L1 norm) is the number of measured levels ``L`` and the release is
    ``A x + Lap(L / epsilon)``.  Under the other allocations row weights are
    ``eps_l / epsilon`` so the L1 sensitivity is exactly 1 and the release is
    ``A x + Lap(1 / epsilon)``, i.e. a level-``l`` count with ``Lap(1 / eps_l)``
    noise [HRMS10] [QYL13].

    Parameters
    ----------
    n : int
        Number of leaves, >= 1 (any n: the last node of a level may be short).
    branching : int
        Branching factor b >= 2.
    measure_root : bool, default True
        Whether the root gets a row.
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        Budget split over the levels, which sets the row weights.

    Returns
    -------
    scipy.sparse.csr_array
        Shape ``(number of measured nodes, n)``.

    Raises
    ------
    TypeError
        If ``n`` or ``branching`` is not an integer, or ``measure_root`` not a bool.
    ValueError
        If ``n < 1``, ``branching < 2`` or ``allocation`` is unknown.

    References
    ----------
    Hay et al., PVLDB 2010 ([HRMS10]); Qardaji, Yang, Li, PVLDB 2013 ([QYL13]).

    Examples
    --------
    >>> A = strategy_matrix(4, 2)
    >>> A.toarray().astype(int).tolist()
    [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 1, 1]]
    """
    tree = build_tree(n, branching, measure_root=measure_root)
    allocation = check_choice("allocation", allocation, ALLOCATIONS)
    check_elements(float(tree.n) * tree.n_measured_levels, "nonzeros of the strategy matrix", n=n)
    w = np.ones(tree.height + 1) if allocation == "uniform" else _weights(tree, allocation)
    leaves = np.arange(tree.n)
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    offset = 0
    for l in tree.measured_levels:
        rows.append(offset + leaves // tree.block(int(l)))
        cols.append(leaves)
        vals.append(np.full(tree.n, w[l]))
        offset += tree.sizes[l]
    A = sp.coo_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                     shape=(offset, tree.n))
    return A.tocsr()
