"""The optimisers' products, by BLAS (fast) or in a fixed order of operations (the same bits on every x86-64 machine).

BLAS libraries pick a kernel for the CPU when they load (OpenBLAS: Haswell, SkylakeX, Zen, Prescott, ...), and
each kernel sums a product in its own order, with or without fused multiply-adds, so the last bits differ from
one machine to another.  An optimiser that takes a few hundred quasi-Newton steps amplifies that difference:
the seeded p-Identity optimum for prefixes at n = 1024 (200 steps) came out 0.2 % apart under OpenBLAS's
Haswell and SkylakeX kernels -- 1e-15 apart after the first step, 1e-12 after 50, 4e-5 after 100 -- so a
lecture's printed table changed with the machine that ran it.

:data:`FIXED_ORDER` computes every product with numpy's own loops (``einsum`` without its BLAS path,
elementwise ufuncs, reductions along a fixed axis), which neither call BLAS nor change with the CPU's vector
extensions: the same numpy gives the same bits on every x86-64 machine.  It costs 2-10x BLAS's time on
the products (measured: ``Theta Theta^T`` for p = 64, n = 1024, 1.8 ms against 0.2 ms).  :data:`BLAS` is
the fast default.  Both invert the small symmetric positive definite matrices of the optimisers their own way
(LAPACK's Cholesky, or Gauss-Jordan elimination with elementwise updates) and solve the tiny triangular
systems of the L-BFGS direction in plain floating point, which is the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__: list[str] = []

_SUBSCRIPTS = {(2, 2): "ij,jk->ik", (2, 1): "ij,j->i", (1, 2): "j,jk->k", (1, 1): "i,i->"}


def _fixed_matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> Any:
    """``a @ b`` (1-D or 2-D operands) by numpy's einsum loops: a fixed order of sums, no BLAS."""
    return np.einsum(_SUBSCRIPTS[(a.ndim, b.ndim)], a, b, out=out)


def _fixed_times_transpose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b.T`` for 2-D ``a``, ``b`` (rows against rows, both contiguous) by einsum."""
    return np.einsum("ik,jk->ij", a, b)


def _fixed_inner(a: np.ndarray, b: np.ndarray) -> float:
    """``sum(a * b)`` over all entries of two arrays of one shape, by einsum."""
    return float(np.einsum("i,i->", a.ravel(), b.ravel()))


def _fixed_spd_inverse(M: np.ndarray) -> np.ndarray:
    """Inverse of a symmetric positive definite matrix by Gauss-Jordan elimination without pivoting.

    Every update is an elementwise ufunc (an outer product, a subtraction), so the order of operations is fixed.
    Pivoting is not needed for a positive definite matrix (every pivot is a Schur complement's diagonal,
    positive); a pivot that is not positive (a matrix that is not numerically positive definite, or NaN) gives
    NaN entries, which the optimiser reads as a failed step.  The result is symmetrised.
    """
    A = np.array(M, dtype=float)
    for k in range(A.shape[0]):
        pivot = A[k, k]
        if not pivot > 0.0:
            return np.full_like(A, np.nan)
        A[k, k] = 1.0
        A[k] /= pivot
        col = A[:, k].copy()
        col[k] = 0.0
        A[:, k] = 0.0
        A[k, k] = 1.0 / pivot
        A -= np.multiply.outer(col, A[k])
    return 0.5 * (A + A.T)


def _blas_spd_inverse(M: np.ndarray) -> np.ndarray:
    """Inverse of a symmetric positive definite matrix from LAPACK's Cholesky factorisation (LU if it fails)."""
    from scipy.linalg import lapack

    chol, info = lapack.dpotrf(M, lower=0)
    if info == 0:
        inv, info = lapack.dpotri(chol, lower=0, overwrite_c=1)
    if info != 0:                                       # not numerically positive definite: LU
        return np.asarray(np.linalg.inv(M))
    inv = np.triu(inv)
    return inv + np.triu(inv, 1).T


def _blas_matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> Any:
    return np.matmul(a, b, out=out)


def _blas_times_transpose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a @ b.T


def _blas_inner(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.vdot(a, b))


def _solve_triangular(R: np.ndarray, b: np.ndarray, *, upper: bool) -> np.ndarray:
    """``R^-1 b`` for a small triangular ``R`` (upper, or lower), by substitution in Python floats."""
    k = b.size
    x = [0.0] * k
    order = range(k - 1, -1, -1) if upper else range(k)
    for i in order:
        total = float(b[i])
        for j in (range(i + 1, k) if upper else range(i)):
            total -= float(R[i, j]) * x[j]
        x[i] = total / float(R[i, i])
    return np.array(x)


@dataclass(frozen=True)
class _Products:
    """The products an optimiser needs: ``matmul(a, b, out)``, ``times_transpose(a, b) = a b^T``,
    ``inner(a, b) = sum(a * b)`` and ``spd_inverse(M)``; :func:`_solve_triangular` serves both."""

    name: str
    matmul: Callable[..., Any]
    times_transpose: Callable[[np.ndarray, np.ndarray], np.ndarray]
    inner: Callable[[np.ndarray, np.ndarray], float]
    spd_inverse: Callable[[np.ndarray], np.ndarray]


#: BLAS and LAPACK: fast; the last bits depend on the BLAS kernel the machine loads.
BLAS = _Products("blas", _blas_matmul, _blas_times_transpose, _blas_inner, _blas_spd_inverse)
#: numpy's own loops in a fixed order: the same bits on every x86-64 machine with the same numpy, 2-10x slower.
FIXED_ORDER = _Products("fixed order", _fixed_matmul, _fixed_times_transpose, _fixed_inner, _fixed_spd_inverse)
