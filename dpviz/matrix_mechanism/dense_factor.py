"""Dense factorisations of a normal matrix ``N = A^T A``: a Cholesky factor when it is well conditioned, else an
eigendecomposition that gives the pseudo-inverse of a rank-deficient strategy."""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

__all__: list[str] = []


def _cholesky(N: np.ndarray) -> tuple[np.ndarray, bool] | None:
    """``scipy.linalg.cho_factor(N)`` (lower), or None when it fails or its squared pivots span more than 1e10
    (then the factor would lose the small directions of ``N``).

    Raises ``ValueError`` if ``N`` (``A^T A``) overflowed: A's entries were too large."""
    if not np.all(np.isfinite(N)):
        raise ValueError("A's entries are so large that A^T A overflows the doubles; scale A down (the matrix "
                         "mechanism's error does not depend on the scale of the strategy)")
    try:
        c, low = sla.cho_factor(N, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return None
    d = np.diag(c) ** 2
    return (c, low) if d.min() > 1e-10 * d.max() else None


def _pseudo_inverse(N: np.ndarray, n_rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(V, w, null)``: the eigenvectors and eigenvalues of ``N`` above ``10 eps max(n, n_rows) max(w)`` (so that
    ``N^+ = V diag(1/w) V^T``) and the eigenvectors of the null space (None if there is none).

    Raises ``ValueError`` if ``N`` is zero (the strategy measures nothing)."""
    n = N.shape[0]
    w, V = np.linalg.eigh(N)
    tol = max(w.max(), 0.0) * max(n, n_rows) * np.finfo(float).eps * 10
    keep = w > tol
    if not keep.any():
        raise ValueError("A is all zeros: it measures nothing")
    return V[:, keep], w[keep], (V[:, ~keep] if not keep.all() else None)
