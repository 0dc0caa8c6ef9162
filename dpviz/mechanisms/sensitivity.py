"""Sensitivity of linear queries given as a matrix.

For a query matrix ``W`` (one row per query, one column per histogram cell),
adding or removing one individual changes one cell of the histogram by one,
so the answers ``W x`` change by one column of ``W``.  The L1 (L2) sensitivity
is therefore the largest L1 (L2) norm of a column, returned rounded up (never down) to a double.

References
----------
- [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
  Linear Counting Queries Under Differential Privacy." PODS 2010, Prop. 2.
"""

from __future__ import annotations

import math
from fractions import Fraction
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


#: Columns whose float norm is within this relative distance of the largest may hold the exact maximum.
_TIE = 1e-12
#: At most this many distinct candidate columns get their norm in rational arithmetic; beyond, a bound is used.
_MAX_EXACT_COLUMNS = 8


def _exact_norm_up(values: np.ndarray, order: int) -> float:
    """The smallest double at or above the exact L1 or L2 norm of ``values`` (rational arithmetic)."""
    if values.size <= 1:
        return float(np.abs(values).sum())           # one term: exact
    if order == 1:
        exact = sum((Fraction(float(v)) for v in np.abs(values)), Fraction(0))
        f = float(exact)
        while Fraction(f) < exact:
            f = math.nextafter(f, math.inf)
        return f
    squares = sum((Fraction(float(v)) ** 2 for v in values), Fraction(0))
    f = math.sqrt(float(squares))
    while Fraction(f) ** 2 < squares:
        f = math.nextafter(f, math.inf)
    return f


def _largest_norm_rounded_up(W: Any, order: int) -> float:
    """The largest column norm of ``W``, rounded up: never below the exact value.

    numpy's float sums can round a column's norm down by an ulp or two, and noise calibrated to a sensitivity
    below the true one spends (a little) more than it claims.  The float norms pick the candidate columns (within
    ``_TIE`` of the largest); their nonzero entries, sorted, tell identical columns apart, and the norms of up to
    ``_MAX_EXACT_COLUMNS`` distinct candidates are computed exactly in rational arithmetic.  Integer columns need
    no check for the L1 norm (their float sums are exact below 2**52); with more distinct candidates the largest
    float norm is raised by the float sum's error bound (one ulp per term).
    """
    mat: Any = check_matrix("W", W)
    norms = _column_norms(mat, order)
    top = float(norms.max())
    csc = mat.tocsc() if is_sparse(mat) else None
    data = csc.data if csc is not None else np.asarray(mat)
    if np.all(data == np.rint(data)) and float(np.abs(data).sum()) < 2.0**52:   # integer entries: exact sums
        if order == 1:
            return top
        j = int(np.argmax(norms))
        col = csc.data[csc.indptr[j]:csc.indptr[j + 1]] if csc is not None else data[:, j]
        return _exact_norm_up(np.asarray(col, dtype=float), 2)
    cols = np.flatnonzero(norms >= top * (1 - _TIE))
    nonzeros = np.diff(csc.indptr)[cols] if csc is not None else np.count_nonzero(data[:, cols], axis=0)
    single = cols[nonzeros <= 1]                         # one term: its norm is |W_ij| exactly
    if single.size:
        one = np.abs(csc[:, single].toarray() if csc is not None else data[:, single]).max()
        top = max(top, float(one))
    cols = cols[nonzeros > 1]
    bound = float(top * (1 + (mat.shape[0] + 2) * np.finfo(float).eps))
    if cols.size > 4 * _MAX_EXACT_COLUMNS:
        return bound                                     # many near-ties: the float sum's error bound
    distinct: dict[bytes, np.ndarray] = {}
    for j in cols:
        col = csc.data[csc.indptr[j]:csc.indptr[j + 1]] if csc is not None else data[:, j]
        nz = np.sort(np.abs(np.asarray(col, dtype=float)))
        nz = nz[nz != 0]
        distinct.setdefault(nz.tobytes(), nz)
        if len(distinct) > _MAX_EXACT_COLUMNS:
            return bound
    return max([top] + [_exact_norm_up(nz, order) for nz in distinct.values()])


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
        The largest L1 norm of a column of ``W``, rounded up to a double.

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
    >>> l1([[0.1], [0.7]])      # 0.1 + 0.7 is 0.7999999999999999 in floating point: rounded up
    0.8
    """
    return _largest_norm_rounded_up(W, 1)


def l2(W: Any) -> float:
    """L2 sensitivity ``max_j sqrt(sum_i W_ij^2)`` (largest column L2 norm), for the Gaussian mechanism.

    Parameters
    ----------
    W : array_like or scipy.sparse matrix
        The query matrix (2-D, finite), dense or sparse.

    Returns
    -------
    float
        The largest L2 norm of a column of ``W``, rounded up to a double.

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
    return _largest_norm_rounded_up(W, 2)
