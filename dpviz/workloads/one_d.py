"""Constructors of one-dimensional workloads: identity, prefixes, ranges, any matrix.

:func:`prefix` query ``k`` is ``[0, k+1)``; :func:`all_ranges` lists the
``n(n+1)/2`` ranges widest first, left to right within a width, as in the
slides of [Mik12]_.

References
----------
.. [Mik12] G. Miklau. "Differentially-Private Batch Query Answering: Exploiting
   the Workload vs. Exploiting the Data." DIMACS workshop slides, 2012.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_elements, check_int, check_matrix
from dpviz.workloads.workload import Workload, _is_sparse

__all__ = ["identity", "prefix", "all_ranges", "ranges", "random_ranges", "width_ranges", "from_matrix",
           "as_workload"]


def identity(n: int) -> Workload:
    """The n single-bin counts ``x_0, ..., x_{n-1}`` (``W = I``).

    Parameters
    ----------
    n : int
        Number of bins, >= 1.

    Returns
    -------
    Workload
        Implicit workload of kind "identity".

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n`` < 1.

    Examples
    --------
    >>> identity(3).answer([4, 5, 6]).tolist()
    [4.0, 5.0, 6.0]
    """
    n = check_int("n", n, minimum=1)
    return Workload("identity", n, "identity", domain_shape=(n,))


def prefix(n: int) -> Workload:
    """The n prefix (cumulative) counts ``x_0 + x_1 + x_k``, k = 0, 1, n-1 (a CDF).

    Parameters
    ----------
    n : int
        Number of bins, >= 1.

    Returns
    -------
    Workload
        Implicit workload of kind "prefix".

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n`` < 1.

    Examples
    --------
    >>> prefix(4).answer([10, 23, 16, 3]).tolist()
    [10.0, 33.0, 49.0, 52.0]
    """
    n = check_int("n", n, minimum=1)
    return Workload("prefix", n, "prefix", domain_shape=(n,))


def all_ranges(n: int) -> Workload:
    """All ``n(n+1)/2`` range queries ``x_i + x_(i+1) + x_j``, widest first, held implicitly [Mik12].

    Parameters
    ----------
    n : int
        Number of bins, >= 1.

    Returns
    -------
    Workload
        Implicit workload of kind "all_ranges".

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n`` < 1.

    Examples
    --------
    >>> W = all_ranges(4)
    >>> W.answer([10, 23, 16, 3]).astype(int).tolist()   # the slides' true answers
    [52, 49, 42, 33, 39, 19, 10, 23, 16, 3]
    >>> W.l1()
    6.0
    """
    n = check_int("n", n, minimum=1)
    return Workload("all ranges", n, "all_ranges", domain_shape=(n,))


def ranges(n: int, starts: npt.ArrayLike, stops: npt.ArrayLike, *, name: str = "ranges") -> Workload:
    """User-given range queries ``[starts[i], stops[i])`` over n bins (0 <= start < stop <= n).

    Parameters
    ----------
    n : int
        Number of bins, >= 1.
    starts, stops : array_like of int
        Non-empty 1-D integer arrays of the same shape: query ``i`` is ``[starts[i], stops[i])``.
    name : str, default "ranges"
        Label of the workload.

    Returns
    -------
    Workload
        Workload of kind "ranges".

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n`` < 1, the arrays are empty, not 1-D integer, of different shapes,
        or an interval is empty or leaves ``[0, n]``.

    Examples
    --------
    >>> ranges(4, [0, 1], [2, 4]).answer([1, 2, 3, 4]).tolist()
    [3.0, 9.0]
    """
    n = check_int("n", n, minimum=1)
    s = np.asarray(starts)
    e = np.asarray(stops)
    for label, v in (("starts", s), ("stops", e)):
        if v.ndim != 1 or v.size == 0 or not np.issubdtype(v.dtype, np.integer):
            raise ValueError(f"{label} must be a non-empty 1-D integer array, got {v!r}")
    if s.shape != e.shape:
        raise ValueError(f"starts and stops must have the same shape, got {s.shape} and {e.shape}")
    if s.min() < 0 or e.max() > n or np.any(e <= s):
        raise ValueError(f"starts and stops must give ranges with 0 <= start < stop <= n={n}")
    return Workload(name, n, "ranges", starts=s.astype(np.int64), stops=e.astype(np.int64), domain_shape=(n,))


def random_ranges(n: int, k: int, *, rng: RngLike = None) -> Workload:
    """k range queries drawn uniformly (with replacement) from the n(n+1)/2 ranges; seeded by ``rng``.

    Parameters
    ----------
    n : int
        Number of bins, >= 1.
    k : int
        Number of queries, >= 1.
    rng : None, int, SeedSequence or Generator
        Randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    Workload
        Workload of kind "ranges".

    Raises
    ------
    TypeError
        If ``n`` or ``k`` is not an integer.
    ValueError
        If ``n`` or ``k`` is < 1.

    Examples
    --------
    >>> random_ranges(16, 5, rng=0).n_queries
    5
    """
    n = check_int("n", n, minimum=1)
    k = check_int("k", k, minimum=1)
    check_elements(n, "bins", n=n)
    check_elements(2.0 * k, "range endpoints", k=k)
    idx = as_generator(rng).integers(0, n * (n + 1) // 2, size=k)
    s, e = _range_interval(n, idx)
    return ranges(n, s, e, name=f"{k} random ranges")


def _range_interval(n: int, idx: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The intervals number ``idx`` in the order of ``_all_range_intervals(n)``, without listing all n(n+1)/2.

    Group g (0-based) holds the g + 1 ranges of width n - g and starts at index g (g + 1) / 2, so g is the
    largest integer with g (g + 1) / 2 <= idx (exact integer arithmetic after a float first guess; n is at
    most 2**27 here, so every product fits in int64).
    """
    idx = np.asarray(idx, dtype=np.int64)
    g = ((np.sqrt(8.0 * idx + 1.0) - 1.0) // 2.0).astype(np.int64)
    g = np.where(g * (g + 1) // 2 > idx, g - 1, g)
    g = np.where((g + 1) * (g + 2) // 2 <= idx, g + 1, g)
    s = idx - g * (g + 1) // 2
    return s, s + (n - g)


def width_ranges(n: int, w: int) -> Workload:
    """The ``n - w + 1`` ranges of width ``w`` (a sliding window), left to right.

    Parameters
    ----------
    n : int
        Number of bins, >= 1.
    w : int
        Width of every range, in ``[1, n]``.

    Returns
    -------
    Workload
        Workload of kind "ranges".

    Raises
    ------
    TypeError
        If ``n`` or ``w`` is not an integer.
    ValueError
        If ``n`` < 1 or ``w`` is outside ``[1, n]``.

    Examples
    --------
    >>> width_ranges(4, 2).answer([1, 2, 3, 4]).tolist()
    [3.0, 5.0, 7.0]
    """
    n = check_int("n", n, minimum=1)
    w = check_int("w", w, minimum=1, maximum=n)
    check_elements(float(n - w + 1), "ranges", n=n, w=w)
    s = np.arange(n - w + 1, dtype=np.int64)
    return ranges(n, s, s + w, name=f"width-{w} ranges")


def from_matrix(W: npt.ArrayLike | sp.sparray | sp.spmatrix, *, name: str = "custom") -> Workload:
    """Wrap any query matrix ``W`` (rows = queries, columns = bins; dense or scipy.sparse).

    Parameters
    ----------
    W : array_like or scipy.sparse matrix
        The 2-D query matrix.
    name : str, default "custom"
        Label of the workload.

    Returns
    -------
    Workload
        Workload of kind "matrix" (sparse input is stored as CSR).

    Raises
    ------
    TypeError, ValueError
        If ``W`` is not a finite 2-D matrix (see :func:`dpviz.validation.check_matrix`).

    Examples
    --------
    >>> from_matrix([[1, 1, 0], [0, 1, 1]]).l1()
    2.0
    """
    M: Any = check_matrix("W", W)
    M = sp.csr_array(M) if _is_sparse(M) else M
    return Workload(name, int(M.shape[1]), "matrix", explicit=M, domain_shape=(int(M.shape[1]),))


def as_workload(W: Workload | npt.ArrayLike | sp.sparray | sp.spmatrix, name: str = "custom") -> Workload:
    """Return ``W`` if it is a :class:`Workload`, else wrap a dense or sparse matrix with :func:`from_matrix`.

    Parameters
    ----------
    W : Workload, array_like or scipy.sparse matrix
        The workload or its matrix.
    name : str, default "custom"
        Label used when a matrix is wrapped.

    Returns
    -------
    Workload
        ``W`` itself or its wrapper.

    Examples
    --------
    >>> as_workload([[1, 0], [1, 1]], name="W").shape
    (2, 2)
    """
    if isinstance(W, Workload):
        return W
    return from_matrix(W, name=name)
