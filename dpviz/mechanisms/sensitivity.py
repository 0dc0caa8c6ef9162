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

import math
from typing import Any

import numpy as np

from dpviz.validation import check_matrix
from dpviz.validation.arrays import is_sparse

__all__ = ["l1", "l2"]


def _column_norms(W: Any, order: int, name: str = "W") -> np.ndarray:
    """The L1 (``order=1``) or L2 (``order=2``) norm of every column of the checked matrix ``W``.

    Computed on ``W`` divided by a power of two near its largest entry (exact, so the norms are the same bit
    for bit), so that squares of entries above 1e154 do not overflow; a norm beyond the doubles is refused.
    """
    mat: Any = check_matrix(name, W)
    top = float(abs(mat).max()) if mat.shape[0] * mat.shape[1] else 0.0
    scale = math.ldexp(1.0, math.frexp(top)[1] - 1) if top > 0 else 1.0
    if is_sparse(mat):
        mat = mat / scale
        if order == 1:
            norms = np.asarray(abs(mat).sum(axis=0)).ravel()
        else:
            norms = np.sqrt(np.asarray(mat.multiply(mat).sum(axis=0)).ravel())
    else:
        norms = np.linalg.norm(mat / scale, ord=order, axis=0)
    with np.errstate(over="ignore"):
        norms = norms * scale
    if not np.all(np.isfinite(norms)):
        raise ValueError(f"{name}'s L{order} sensitivity (its largest column norm) overflows the doubles: its "
                         f"entries, up to {top:.3g}, are too large")
    return norms


def l1(W: Any, name: str = "W") -> float:
    """L1 sensitivity ``||W||_1 = max_j sum_i |W_ij|`` (largest column L1 norm) [LHRMM10].

    This is the sensitivity the Laplace mechanism is calibrated with.

    Parameters
    ----------
    W : array_like or scipy.sparse matrix
        The query matrix (2-D, finite), dense or sparse.
    name : str, default "W"
        The caller's name for ``W`` (e.g. ``"A"`` for a strategy), used in error messages.

    Returns
    -------
    float
        The largest L1 norm of a column of ``W``.

    Raises
    ------
    ValueError
        If ``W`` is not 2-D, is empty, holds NaN/inf, or its sensitivity overflows the doubles.
    TypeError
        If ``W`` does not hold numbers.

    Examples
    --------
    >>> l1([[1, 0], [1, 1]])
    2.0
    """
    return float(_column_norms(W, 1, name).max())


def l2(W: Any, name: str = "W") -> float:
    """L2 sensitivity ``max_j sqrt(sum_i W_ij^2)`` (largest column L2 norm), for the Gaussian mechanism.

    Parameters
    ----------
    W : array_like or scipy.sparse matrix
        The query matrix (2-D, finite), dense or sparse.
    name : str, default "W"
        The caller's name for ``W`` (e.g. ``"A"`` for a strategy), used in error messages.

    Returns
    -------
    float
        The largest L2 norm of a column of ``W``.

    Raises
    ------
    ValueError
        If ``W`` is not 2-D, is empty, holds NaN/inf, or its sensitivity overflows the doubles.
    TypeError
        If ``W`` does not hold numbers.

    Examples
    --------
    >>> round(l2([[1, 0], [1, 1]]), 6)
    1.414214
    """
    return float(_column_norms(W, 2, name).max())
