"""The Gram matrix ``W^T W`` the strategy optimisers work on (the matrix mechanism's error depends only on it)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from dpviz.validation import check_bool, check_matrix
from dpviz.workloads import Workload

__all__: list[str] = []


def _is_sparse(M: Any) -> bool:
    """``scipy.sparse.issparse`` as a plain bool (its type guard would hide the dense branch from mypy)."""
    return bool(sp.issparse(M))


def _gram(W: Any, gram: bool) -> np.ndarray:
    """Dense ``W^T W`` of a workload or matrix, or ``W`` itself checked square and symmetric when ``gram``."""
    gram = check_bool("gram", gram)
    if isinstance(W, Workload):
        return W.gram()
    M: Any = check_matrix("W", W)
    if gram:
        G: Any = M.toarray() if _is_sparse(M) else M
        if G.shape[0] != G.shape[1]:
            raise ValueError(f"a Gram matrix W^T W must be square, got shape {G.shape}")
        if not np.allclose(G, G.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.abs(G).max()))):
            raise ValueError("a Gram matrix W^T W must be symmetric")
        return np.asarray(G, dtype=float)
    if _is_sparse(M):
        return np.asarray((M.T @ M).toarray())
    return M.T @ M
