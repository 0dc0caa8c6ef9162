"""Closed-form spectra of the implicit range workloads (identity, prefix, all ranges).

For ``k = 1..n`` the singular values of ``W`` (square roots of the eigenvalues
of ``W^T W``) are ``1`` (identity), ``1 / (2 sin((2k-1) pi / (2(2n+1))))``
(prefix; ``W^T W`` has a tridiagonal inverse ``S^{-1} S^{-T}``) and
``sqrt(n+1) / (2 sin(k pi / (2(n+1))))`` (all ranges; ``W^T W = (n+1) T^{-1}``
with ``T = tridiag(-1, 2, -1)``) [LM12]_.  The eigenvectors of the last two come
from :func:`scipy.linalg.eigh_tridiagonal` in ``O(n^2)``.

References
----------
.. [LM12] C. Li, G. Miklau. "An Adaptive Mechanism for Accurate Query
   Answering under Differential Privacy." PVLDB 5(6), 2012.
"""

from __future__ import annotations

import numpy as np

__all__: list[str] = []


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
