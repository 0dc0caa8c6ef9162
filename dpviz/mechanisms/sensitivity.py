"""Sensitivity of linear queries given as a matrix.

For a query matrix ``W`` (one row per query, one column per histogram cell),
adding or removing one individual changes one cell of the histogram by one,
so the answers ``W x`` change by one column of ``W``.  The L1 (L2) sensitivity
is therefore the largest L1 (L2) norm of a column.

References
----------
- [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
  Linear Counting Queries Under Differential Privacy." PODS 2010, Prop. 2.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpviz.validation import check_matrix
from dpviz.validation.arrays import is_sparse

__all__ = ["l1", "l2"]


def _column_norms(W: Any, order: int) -> np.ndarray:
    """The L1 (``order=1``) or L2 (``order=2``) norm of every column of the checked matrix ``W``."""
    mat: Any = check_matrix("W", W)
    if is_sparse(mat):
        if order == 1:
            return np.asarray(abs(mat).sum(axis=0)).ravel()
        return np.sqrt(np.asarray(mat.multiply(mat).sum(axis=0)).ravel())
    return np.linalg.norm(mat, ord=order, axis=0)


def l1(W: Any) -> float:
    """L1 sensitivity ``||W||_1 = max_j sum_i |W_ij|`` (largest column L1 norm) [LHRMM10].

    This is the sensitivity the Laplace mechanism is calibrated with.

    Parameters
    ----------
    W : array_like or scipy.sparse matrix
        The query matrix (2-D, finite), dense or sparse.

    Returns
    -------
    float
        The largest L1 norm of a column of ``W``.

    Raises
    ------
    ValueError
        If ``W`` is not 2-D, is empty or holds NaN/inf.
    TypeError
        If ``W`` does not hold numbers.

    Examples
    --------
    >>> l1([[1, 0], [1, 1]])
    2.0
    """
    return float(_column_norms(W, 1).max())


def l2(W: Any) -> float:
    """L2 sensitivity ``max_j sqrt(sum_i W_ij^2)`` (largest column L2 norm), for the Gaussian mechanism.

    Parameters
    ----------
    W : array_like or scipy.sparse matrix
        The query matrix (2-D, finite), dense or sparse.

    Returns
    -------
    float
        The largest L2 norm of a column of ``W``.

    Raises
    ------
    ValueError
        If ``W`` is not 2-D, is empty or holds NaN/inf.
    TypeError
        If ``W`` does not hold numbers.

    Examples
    --------
    >>> round(l2([[1, 0], [1, 1]]), 6)
    1.414214
    """
    return float(_column_norms(W, 2).max())
