"""The Gram matrix ``W^T W`` the strategy optimisers work on (the matrix mechanism's error depends only on it)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from dpviz.validation import check_bool, check_elements, check_matrix
from dpviz.workloads import Workload

__all__: list[str] = []

# ``(alpha, c, beta, e)`` of a semiseparable Gram matrix (see :func:`_semiseparable`).
_Factors = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _is_sparse(M: Any) -> bool:
    """``scipy.sparse.issparse`` as a plain bool (its type guard would hide the dense branch from mypy)."""
    return bool(sp.issparse(M))


def _checked_gram(M: Any) -> np.ndarray:
    """A matrix given as ``W^T W``, dense: square, symmetric, positive semi-definite, within the allocation cap."""
    check_elements(float(M.shape[0]) * M.shape[1], "dense Gram matrix (n x n)", shape=M.shape)
    G = np.asarray(M.toarray() if _is_sparse(M) else M, dtype=float)
    if G.shape[0] != G.shape[1]:
        raise ValueError(f"a Gram matrix W^T W must be square, got shape {G.shape}")
    scale = max(1.0, float(np.abs(G).max())) if G.size else 1.0
    if not np.allclose(G, G.T, rtol=1e-10, atol=1e-12 * scale):
        raise ValueError("a Gram matrix W^T W must be symmetric")
    if G.size:
        # lowest eigenvalue >= -tol  <=>  G + tol I has a Cholesky factor (a fraction of eigvalsh's cost); the
        # eigenvalue itself is only computed for the message
        tol = 1e-10 * scale
        try:
            np.linalg.cholesky(G + tol * np.eye(G.shape[0]))
        except np.linalg.LinAlgError:
            lowest = float(np.linalg.eigvalsh(G)[0])
            raise ValueError(f"a Gram matrix W^T W must be positive semi-definite, got an eigenvalue {lowest:.3g} "
                             "< 0") from None
    return G


def _gram(W: Any, gram: bool) -> np.ndarray:
    """Dense ``W^T W`` of a workload or matrix, or ``W`` itself checked to be a Gram matrix when ``gram``."""
    gram = check_bool("gram", gram)
    if isinstance(W, Workload):
        if gram:
            raise TypeError("gram=True takes the matrix W^T W itself, not a Workload (pass the Workload with "
                            "gram=False)")
        return W.gram()
    M: Any = check_matrix("W", W)
    if gram:
        return _checked_gram(M)
    check_elements(float(M.shape[1]) ** 2, "dense Gram matrix W^T W (n x n)", n=M.shape[1])
    if _is_sparse(M):
        return np.asarray((M.T @ M).toarray())
    return M.T @ M


def _semiseparable(W: Any) -> _Factors | None:
    """``(alpha, c, beta, e)`` with ``(W^T W)[a, b] = alpha_a c_b`` (b <= a), ``beta_a e_b`` (b > a), or None.

    Prefixes (``n - max(a, b)``) and all ranges (``(min(a, b) + 1) (n - max(a, b))``) have such a Gram
    matrix, so ``V W^T W`` for a block of rows ``V`` is two running sums along the rows (:func:`_gram_rows`).
    None for every other workload.
    """
    if not isinstance(W, Workload) or W.kind not in ("prefix", "all_ranges"):
        return None
    a = np.arange(W.n, dtype=float)
    if W.kind == "prefix":
        return W.n - a, np.ones(W.n), np.ones(W.n), W.n - a
    return W.n - a, a + 1.0, a + 1.0, W.n - a


def _gram_rows(factors: _Factors, V: np.ndarray, s: np.ndarray, out: np.ndarray, work: np.ndarray) -> np.ndarray:
    """``((V diag(s)) G) diag(s)`` into ``out`` for a (k, n) row block ``V`` and the Gram matrix G of ``factors``.

    ``G`` as in :func:`_semiseparable`: ``(V G)[:, a] = alpha_a sum_{b <= a} c_b V[:, b] + beta_a sum_{b > a}
    e_b V[:, b]``, two running sums along contiguous rows; ``work`` is a (k, n) buffer.  O(k n).
    """
    alpha, c, beta, e = factors
    np.multiply(V, s * c, out=out)
    np.multiply(V, s * e, out=work)
    np.cumsum(out, axis=1, out=out)
    np.cumsum(work, axis=1, out=work)
    total = work[:, -1:].copy()
    np.subtract(total, work, out=work)       # sum over b > a
    out *= s * alpha
    work *= s * beta
    out += work
    return out
