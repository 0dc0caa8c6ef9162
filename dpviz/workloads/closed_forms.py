"""Closed forms of the implicit range workloads (identity, prefix, all ranges, given intervals).

* the Gram matrix ``W^T W``, whose entry ``(a, b)`` counts the queries that
  contain both bins: ``1`` on the diagonal for the identity, ``n - max(a, b)``
  for prefixes, ``(min(a, b) + 1)(n - max(a, b))`` for all ranges (0-indexed),
  a 2-D dominance count for given intervals;
* the coverage (queries per bin), whose maximum is the L1 sensitivity
  ``||W||_1``: ``1``, ``n`` and ``max_a (a+1)(n-a)`` respectively;
* the product ``W^T W V`` with a block of vectors, in ``O(n)`` per vector
  from two running sums (no ``n x n`` matrix): ``(W^T W v)_a = (n - a) sum_{b<=a} (b+1) v_b
  + (a+1) sum_{b>a} (n - b) v_b`` for all ranges, ``(n - a) sum_{b<=a} v_b + sum_{b>a} (n-b) v_b``
  for prefixes, and ``W^T (W v)`` through prefix sums for given intervals;
* the spectrum.  For ``k = 1..n`` the singular values of ``W`` (square roots
  of the eigenvalues of ``W^T W``) are ``1`` (identity),
  ``1 / (2 sin((2k-1) pi / (2(2n+1))))`` (prefix; ``W^T W`` has a tridiagonal
  inverse ``S^{-1} S^{-T}``) and ``sqrt(n+1) / (2 sin(k pi / (2(n+1))))`` (all
  ranges; ``W^T W = (n+1) T^{-1}`` with ``T = tridiag(-1, 2, -1)``) [LM12]_.
  The eigenvectors of the last two come from
  :func:`scipy.linalg.eigh_tridiagonal` in ``O(n^2)``.

References
----------
.. [LM12] C. Li, G. Miklau. "An Adaptive Mechanism for Accurate Query
   Answering under Differential Privacy." PVLDB 5(6), 2012.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from dpviz.validation import check_elements

__all__: list[str] = []


def _all_range_intervals(n: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """All n(n+1)/2 intervals ``[start, stop)``, widest first, left to right within a width."""
    widths = np.repeat(np.arange(n, 0, -1, dtype=np.int64), np.arange(1, n + 1))
    counts = np.arange(1, n + 1, dtype=np.int64)  # width n has 1 start, width n-1 has 2, ...
    first = np.repeat(np.cumsum(counts) - counts, counts)
    starts = np.arange(widths.size, dtype=np.int64) - first
    return starts, starts + widths


def _range_gram(kind: str, n: int, starts: npt.NDArray[np.int64], stops: npt.NDArray[np.int64]) -> np.ndarray:
    """Dense ``W^T W`` of a range workload (``starts``/``stops`` are read for kind "ranges" only)."""
    if kind == "identity":
        return np.eye(n)
    a = np.arange(n)
    if kind == "prefix":
        return (n - np.maximum.outer(a, a)).astype(float)
    if kind == "all_ranges":
        return ((np.minimum.outer(a, a) + 1.0) * (n - np.maximum.outer(a, a)))
    # G[a, b] (a <= b) = #{queries with start <= a and stop - 1 >= b}: a 2-D dominance count
    C = np.zeros((n, n))
    np.add.at(C, (starts, stops - 1), 1.0)
    C = np.cumsum(C, axis=0)                       # start <= a
    C = np.cumsum(C[:, ::-1], axis=1)[:, ::-1]     # stop - 1 >= b
    upper = np.triu(C)
    return upper + np.triu(C, 1).T


def _range_gram_matmul(kind: str, n: int, V: np.ndarray, starts: npt.NDArray[np.int64],
                       stops: npt.NDArray[np.int64]) -> np.ndarray:
    """``W^T W V`` for an (n, k) block ``V`` of a range workload, in O(n k) (O((n + m) k) for given intervals)."""
    if kind == "identity":
        return V.copy()
    a = np.arange(n, dtype=float)[:, None]
    if kind in ("prefix", "all_ranges"):
        # sum_{b<=a} lo_b v_b and sum_{b>a} (n - b) v_b = (total) - (running sum): two running sums in all;
        # the arithmetic keeps the memory order of V (a Fortran-ordered block sums along its contiguous axis)
        left = np.cumsum((a + 1) * V if kind == "all_ranges" else V, axis=0)
        right = np.cumsum((n - a) * V, axis=0)
        np.subtract(right[-1:], right, out=right)
        left *= n - a
        left += (a + 1) * right if kind == "all_ranges" else right
        return left
    # given intervals [s, e): W V from prefix sums, then W^T y by a difference array and a running sum
    P = np.zeros((n + 1, V.shape[1]))
    np.cumsum(V, axis=0, out=P[1:])
    Y = P[stops] - P[starts]
    D = np.zeros((n + 1, V.shape[1]))
    np.add.at(D, starts, Y)
    np.add.at(D, stops, -Y)
    return np.cumsum(D, axis=0)[:n]


def _range_coverage(kind: str, n: int, starts: npt.NDArray[np.int64], stops: npt.NDArray[np.int64]) -> np.ndarray:
    """Number of queries touching each bin of a range workload (``starts``/``stops`` read for "ranges" only)."""
    a = np.arange(n, dtype=float)
    if kind == "identity":
        return np.ones(n)
    if kind == "prefix":
        return n - a
    if kind == "all_ranges":
        return (a + 1) * (n - a)
    d = np.zeros(n + 1)
    np.add.at(d, starts, 1.0)
    np.add.at(d, stops, -1.0)
    return np.cumsum(d)[:n]


def _all_ranges_singular_values(n: int) -> np.ndarray:
    """Singular values of the all-range workload over n bins, descending."""
    k = np.arange(1, n + 1, dtype=float)
    return np.sqrt(n + 1.0) / (2.0 * np.sin(k * np.pi / (2 * (n + 1))))


def _closed_form_singular_values(kind: str, n: int) -> np.ndarray | None:
    """Singular values (descending) of the workload ``kind`` over n bins, or None without a closed form."""
    k = np.arange(1, n + 1, dtype=float)
    if kind == "identity":
        return np.ones(n)
    if kind == "prefix":
        return 1.0 / (2.0 * np.sin((2 * k - 1) * np.pi / (2 * (2 * n + 1))))
    if kind == "all_ranges":
        return _all_ranges_singular_values(n)
    return None


def _closed_form_eigh(kind: str, n: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Eigenvalues (ascending) and eigenvectors of ``W^T W`` for the kinds with a tridiagonal inverse Gram matrix.

    Returns None for the other kinds (and for n = 1 prefixes or ranges).
    """
    check_elements(float(n) ** 2, "eigenvectors of W^T W (n x n)", n=n)
    if kind == "identity":
        return np.ones(n), np.eye(n)
    if kind in ("prefix", "all_ranges") and n >= 2:
        from scipy.linalg import eigh_tridiagonal

        if kind == "prefix":
            d = np.full(n, 2.0)
            d[0] = 1.0
            mu, Q = eigh_tridiagonal(d, -np.ones(n - 1))
            sigma = 1.0 / mu
        else:
            mu, Q = eigh_tridiagonal(np.full(n, 2.0), -np.ones(n - 1))
            sigma = (n + 1.0) / mu
        order = np.argsort(sigma)
        return sigma[order], Q[:, order]
    return None
