"""Sparse least squares in the prefix basis ``p = S x`` (``S`` the lower-triangular matrix of ones).

Strategies made of intervals (identity, hierarchies, GreedyH) or of a few
constant pieces (Haar wavelets) become very sparse in the prefix basis: a row
that is constant on ``[i, j)`` becomes ``p_{j-1} - p_{i-1}``.  With
``A~ = A S^{-1}`` the normal matrix ``N = A~^T A~`` is sparse even when
``A^T A`` is dense (the root of a tree touches every cell), so it is factorised
once with ``scipy.sparse.linalg.splu`` and every least-squares solve is a
sparse triangular solve.  ``N^{-1} = S (A^T A)^{-1} S^T`` is also the
covariance of the noisy prefix sums, which is what range workloads need.

This module holds the basis change, the factorisation of ``N``, and the two ways to read entries of
``N^{-1}`` without forming it: Takahashi's selected inverse and blocked solves.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

__all__: list[str] = []

#: Columns per blocked solve.
_BLOCK = 512


def _diff_matrix(n: int) -> sp.csr_array:
    """``S^{-1}``: ones on the diagonal, -1 just below (so ``(A S^{-1})[:, k] = A[:, k] - A[:, k+1]``)."""
    return sp.diags_array([np.ones(n), -np.ones(n - 1)], offsets=[0, -1], shape=(n, n), format="csr")


def _prefix_factor(A: sp.csr_array, dense_max: int) -> tuple[sp.csr_array, Any, bool] | None:
    """``(A~, splu(N), symmetric)`` for a sparse strategy ``A`` with n columns, or None when ``N`` is too dense
    to gain from sparsity (more than 20 % filled, n <= ``dense_max``), singular or too ill-conditioned (a fixed
    probe does not come back to 1e-6).  ``symmetric``: the factor is ``L D L^T`` with positive pivots, so
    :func:`_selected_inverse` applies."""
    n = A.shape[1]
    At = sp.csr_array(A @ _diff_matrix(n))
    N = sp.csc_array(At.T @ At)
    if N.nnz > 0.2 * n * n and n <= dense_max:
        return None
    try:  # N is symmetric positive definite if A has full column rank: L D L^T, no pivoting
        lu = splu(N, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
    except RuntimeError:  # exactly singular
        return None
    probe = np.random.default_rng(12345).standard_normal(n)  # private fixed probe, not DP noise
    back = lu.solve(np.asarray(N @ probe))
    if not np.all(np.isfinite(back)) or np.linalg.norm(back - probe) > 1e-6 * np.linalg.norm(probe):
        return None
    symmetric = bool(np.array_equal(lu.perm_r, lu.perm_c)) and bool(np.all(lu.U.diagonal() > 0))
    return At, lu, symmetric


def _s_inv_t(C: np.ndarray) -> np.ndarray:
    """``S^{-T} C`` along axis 0: ``C[k] - C[k+1]``."""
    out = C.copy()
    out[:-1] -= C[1:]
    return out


def _s_inv(V: np.ndarray) -> np.ndarray:
    """``S^{-1} V`` along axis 0: ``V[k] - V[k-1]``."""
    out = V.copy()
    out[1:] -= V[:-1]
    return out


def _selected_inverse(lu: Any, n: int) -> list[dict[int, float]]:
    """Entries of ``N^{-1}`` on the filled pattern of ``N = L D L^T`` (Takahashi's recurrences).

    Column ``j`` of the result maps row ``i >= j`` (permuted order) to
    ``(N^{-1})_{ij}``.  Going from the last column to the first,
    ``Z_{P,j} = -Z_{P,P} L_{P,j}`` and ``Z_{jj} = 1/d_j - L_{P,j}^T Z_{P,j}``
    with ``P`` the below-diagonal pattern of column j of L; every ``Z_{P,P}``
    entry lies in the filled pattern.  Cost ``sum_j |P_j|^2``: linear in n for trees.
    Raises KeyError when SuperLU's stored L lacks part of the filled pattern.
    """
    L = sp.csc_array(lu.L)
    d = lu.U.diagonal()
    indptr, indices, data = L.indptr, L.indices, L.data
    Z: list[dict[int, float]] = [{} for _ in range(n)]
    for j in range(n - 1, -1, -1):
        rows = indices[indptr[j]: indptr[j + 1]]
        vals = data[indptr[j]: indptr[j + 1]]
        below = rows != j
        rows, vals = rows[below], vals[below]
        c = rows.size
        if c == 0:
            Z[j] = {j: 1.0 / d[j]}
            continue
        Zs = np.empty((c, c))
        for a in range(c):
            ra = int(rows[a])
            za = Z[ra]
            Zs[a, a] = za[ra]
            for b in range(a + 1, c):
                rb = int(rows[b])
                Zs[a, b] = Zs[b, a] = za[rb] if rb > ra else Z[rb][ra]
        zj = -(Zs @ vals)
        col = dict(zip(rows.tolist(), zj.tolist(), strict=True))
        col[j] = 1.0 / d[j] - float(vals @ zj)
        Z[j] = col
    return Z


def _blocked_prefix_stats(lu: Any, n: int) -> tuple[float, float, float]:
    """(tr N^{-1}, sum of its sub-diagonal, its last diagonal entry) by blocked solves of ``_BLOCK`` columns."""
    tr = sub = 0.0
    last = 0.0
    for b0 in range(0, n, _BLOCK):
        cols = np.arange(b0, min(b0 + _BLOCK, n))
        E = np.zeros((n, cols.size))
        E[cols, np.arange(cols.size)] = 1.0
        X = lu.solve(E)
        tr += X[cols, np.arange(cols.size)].sum()
        ok = cols + 1 < n
        sub += X[cols[ok] + 1, np.arange(cols.size)[ok]].sum()
        if cols[-1] == n - 1:
            last = float(X[n - 1, cols.size - 1])
    return float(tr), float(sub), last
