"""Sensitivity of linear queries given as a matrix.

For a query matrix ``W`` (one row per query, one column per histogram cell),
adding or removing one individual changes one cell of the histogram by one,
so the answers ``W x`` change by one column of ``W``.  The L1 (L2) sensitivity
is therefore the largest L1 (L2) norm of a column.

References
----------
.. [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
   Linear Counting Queries Under Differential Privacy." PODS 2010, Prop. 2.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpviz.validation import check_matrix

__all__ = ["l1", "l2"]


def _column_norms(W, order: int) -> np.ndarray:
    W = check_matrix("W", W)
    if sp.issparse(W):
        if order == 1:
            return np.asarray(abs(W).sum(axis=0)).ravel()
        return np.sqrt(np.asarray(W.multiply(W).sum(axis=0)).ravel())
    return np.linalg.norm(W, ord=order, axis=0)


def l1(W) -> float:
    """L1 sensitivity ``||W||_1 = max_j sum_i |W_ij|`` (largest column L1 norm) [LHRMM10]_.

    Works for dense arrays and scipy.sparse matrices.

    Examples
    --------
    >>> l1([[1, 0], [1, 1]])
    2.0
    """
    return float(_column_norms(W, 1).max())


def l2(W) -> float:
    """L2 sensitivity ``max_j sqrt(sum_i W_ij^2)`` (largest column L2 norm), for the Gaussian mechanism.

    Examples
    --------
    >>> round(l2([[1, 0], [1, 1]]), 6)
    1.414214
    """
    return float(_column_norms(W, 2).max())
