"""Dense factorisations of a normal matrix ``N = A^T A``: a Cholesky factor when it is well conditioned, else an
eigendecomposition that gives the pseudo-inverse of a rank-deficient strategy."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as sla

from dpviz.validation import check_matrix

__all__ = ["check_strategy"]


def check_strategy(A: Any) -> Any:
    """Check a strategy matrix ``A`` (dense or sparse) whose normal matrix ``A^T A`` fits in double precision.

    Parameters
    ----------
    A : array_like or scipy.sparse matrix
        The strategy, 2-D and finite.

    Returns
    -------
    numpy.ndarray or scipy.sparse.csc_array
        ``A`` as :func:`dpviz.validation.check_matrix` returns it.

    Raises
    ------
    ValueError
        As :func:`~dpviz.validation.check_matrix`, or if ``rows x max|A|^2`` overflows (``A^T A`` would hold inf:
        the matrix mechanism's error does not depend on the scale of ``A``, so scale it down).
    TypeError
        If ``A`` does not hold numbers.

    Examples
    --------
    >>> check_strategy([[1.0, 0.0], [1.0, 1.0]]).shape
    (2, 2)
    """
    mat: Any = check_matrix("A", A)
    top = float(abs(mat).max()) if mat.shape[0] * mat.shape[1] else 0.0
    with np.errstate(over="ignore"):
        overflows = not np.isfinite(top * top * mat.shape[0])
    if overflows:
        raise ValueError(f"A's entries (up to {top:.3g}) are so large that A^T A overflows the doubles; scale A down "
                         "(the matrix mechanism's error does not depend on the scale of the strategy)")
    return mat


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
