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
    scale = math.ldexp(1.0, math.frexp(float(np.abs(values).max()))[1] - 1)   # a power of two: exact division
    squares = sum((Fraction(float(v) / scale) ** 2 for v in values), Fraction(0))
    f = math.sqrt(float(squares))
    while Fraction(f) ** 2 < squares:
        f = math.nextafter(f, math.inf)
    return f * scale


def _largest_norm_rounded_up(W: Any, order: int, name: str = "W") -> float:
    """The largest column norm of ``W``, rounded up: never below the exact value.

    numpy's float sums can round a column's norm down by an ulp or two, and noise calibrated to a sensitivity
    below the true one spends (a little) more than it claims.  The float norms pick the candidate columns (within
    ``_TIE`` of the largest); their nonzero entries, sorted, tell identical columns apart, and the norms of up to
    ``_MAX_EXACT_COLUMNS`` distinct candidates are computed exactly in rational arithmetic.  Integer columns need
    no check for the L1 norm (their float sums are exact below 2**52); with more distinct candidates the largest
    float norm is raised by the float sum's error bound (one ulp per term).
    """
    mat: Any = check_matrix(name, W)
    norms = _column_norms(mat, order, name)
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
        The largest L1 norm of a column of ``W``, rounded up to a double.

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
    >>> l1([[0.1], [0.7]])      # 0.1 + 0.7 is 0.7999999999999999 in floating point: rounded up
    0.8
    """
    return _largest_norm_rounded_up(W, 1, name)


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
        The largest L2 norm of a column of ``W``, rounded up to a double.

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
    return _largest_norm_rounded_up(W, 2, name)
