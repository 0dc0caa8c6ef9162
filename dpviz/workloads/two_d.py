"""Two-dimensional workloads over a small ``n1 x n2`` table: rectangles and marginals.

The table is flattened row-major (cell ``(i, j)`` is column ``i * n2 + j``) and
the workloads are stored as sparse matrices (kind "matrix"); all rectangles keep
``kron2d = (n1, n2)`` so their spectrum has a closed form (``W = W1 kron W2``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_elements, check_int
from dpviz.workloads.closed_forms import _all_range_intervals
from dpviz.workloads.workload import Workload

__all__ = ["all_ranges_2d", "random_ranges_2d", "marginals_2d"]


def _check_shape2d(shape: Any) -> tuple[int, int]:
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise ValueError(f"shape must be a pair (n1, n2), got {shape!r}")
    n1 = check_int("shape[0]", shape[0], minimum=1, maximum=64)
    n2 = check_int("shape[1]", shape[1], minimum=1, maximum=64)
    return n1, n2


def _rectangles(n1: int, n2: int, s1: npt.NDArray[np.int64], e1: npt.NDArray[np.int64],
                s2: npt.NDArray[np.int64], e2: npt.NDArray[np.int64]) -> sp.csr_array:
    m = len(s1)
    rows, cols = [], []
    for q in range(m):
        ii, jj = np.meshgrid(np.arange(s1[q], e1[q]), np.arange(s2[q], e2[q]), indexing="ij")
        c = (ii * n2 + jj).ravel()
        rows.append(np.full(c.size, q))
        cols.append(c)
    r = np.concatenate(rows)
    c = np.concatenate(cols)
    return sp.csr_array((np.ones(c.size), (r, c)), shape=(m, n1 * n2))


def all_ranges_2d(shape: tuple[int, int]) -> Workload:
    """All axis-aligned rectangles of an ``n1 x n2`` table (flattened row-major); ``W^T W = G1 kron G2``.

    Parameters
    ----------
    shape : tuple of int
        ``(n1, n2)``, each in ``[1, 64]``.

    Returns
    -------
    Workload
        Sparse workload with ``n1(n1+1)/2 * n2(n2+1)/2`` queries.

    Raises
    ------
    TypeError
        If a side is not an integer.
    ValueError
        If ``shape`` is not a pair or a side is outside ``[1, 64]``.

    Examples
    --------
    >>> all_ranges_2d((2, 3)).n_queries   # 3 row intervals x 6 column intervals
    18
    """
    n1, n2 = _check_shape2d(shape)
    s1, e1 = _all_range_intervals(n1)
    s2, e2 = _all_range_intervals(n2)
    i1, i2 = np.meshgrid(np.arange(s1.size), np.arange(s2.size), indexing="ij")
    j1, j2 = i1.ravel(), i2.ravel()
    M = _rectangles(n1, n2, s1[j1], e1[j1], s2[j2], e2[j2])
    return Workload(f"all 2-D ranges {n1}x{n2}", n1 * n2, "matrix", explicit=M, domain_shape=(n1, n2),
                    kron2d=(n1, n2))


def random_ranges_2d(shape: tuple[int, int], k: int, *, rng: RngLike = None) -> Workload:
    """k rectangles of an ``n1 x n2`` table, each side an interval drawn uniformly; seeded by ``rng``.

    Parameters
    ----------
    shape : tuple of int
        ``(n1, n2)``, each in ``[1, 64]``.
    k : int
        Number of rectangles, >= 1.
    rng : None, int, SeedSequence or Generator
        Randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    Workload
        Sparse workload with k queries.

    Raises
    ------
    TypeError
        If a side or ``k`` is not an integer.
    ValueError
        If ``shape`` is not a pair, a side is outside ``[1, 64]`` or ``k`` < 1.

    Examples
    --------
    >>> random_ranges_2d((4, 4), 3, rng=0).shape
    (3, 16)
    """
    n1, n2 = _check_shape2d(shape)
    k = check_int("k", k, minimum=1)
    check_elements(float(k) * n1 * n2, "rectangle entries (k x n1 x n2 at most)", k=k, shape=(n1, n2))
    g = as_generator(rng)
    s1, e1 = _all_range_intervals(n1)
    s2, e2 = _all_range_intervals(n2)
    i1 = g.integers(0, s1.size, size=k)
    i2 = g.integers(0, s2.size, size=k)
    M = _rectangles(n1, n2, s1[i1], e1[i1], s2[i2], e2[i2])
    return Workload(f"{k} random 2-D ranges {n1}x{n2}", n1 * n2, "matrix", explicit=M, domain_shape=(n1, n2))


def marginals_2d(shape: tuple[int, int]) -> Workload:
    """The two one-way marginals of an ``n1 x n2`` table: n1 row sums then n2 column sums (rank n1 + n2 - 1).

    Parameters
    ----------
    shape : tuple of int
        ``(n1, n2)``, each in ``[1, 64]``.

    Returns
    -------
    Workload
        Sparse workload with ``n1 + n2`` queries.

    Raises
    ------
    TypeError
        If a side is not an integer.
    ValueError
        If ``shape`` is not a pair or a side is outside ``[1, 64]``.

    Examples
    --------
    >>> marginals_2d((2, 2)).answer([1, 2, 3, 4]).tolist()
    [3.0, 7.0, 4.0, 6.0]
    """
    n1, n2 = _check_shape2d(shape)
    cells = np.arange(n1 * n2)
    rows = np.concatenate([cells // n2, n1 + cells % n2])
    M = sp.csr_array((np.ones(2 * cells.size), (rows, np.concatenate([cells, cells]))), shape=(n1 + n2, n1 * n2))
    return Workload(f"marginals {n1}x{n2}", n1 * n2, "matrix", explicit=M, domain_shape=(n1, n2),
                    marginals=((0,), (1,)))
