"""Least-squares reconstruction for a strategy ``A``, factorised once and reused.

Sparse strategies are factorised in the prefix basis (see
:mod:`dpviz.matrix_mechanism.prefix_basis`); the total variance of all ranges
is ``(n+1) tr(N^{-1}) - 1^T N^{-1} 1`` (every range is a difference of two
prefixes; ``W^T W = S^T ((n+1) I - 1 1^T) S`` in the extended prefix basis) and
of all prefixes ``tr(N^{-1})``, so the n^2-row all-range workload is never
formed.  Dense strategies (eigen-designs), and sparse ones of at most 64 cells
whose ``A^T A`` has a well-conditioned Cholesky factor, use a dense Cholesky
factor; rank-deficient dense ones an eigendecomposition.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.linalg as sla
import scipy.sparse as sp

from dpviz.matrix_mechanism.dense_factor import _cholesky, _pseudo_inverse, check_strategy
from dpviz.matrix_mechanism.prefix_basis import (
    _BLOCK,
    _blocked_prefix_stats,
    _diff_matrix,
    _prefix_factor,
    _s_inv,
    _s_inv_t,
    _selected_inverse,
)
from dpviz.mechanisms import sensitivity as _sens
from dpviz.validation import MAX_MAGNITUDE, check_array, check_bool, is_sparse  # a plain bool
from dpviz.workloads import Workload, as_workload

__all__ = ["LeastSquares", "DENSE_MAX"]

#: Largest n handled with dense n x n algebra.
DENSE_MAX = 4096

#: Sparse strategies with at most this many cells (and entries) are factorised by a dense Cholesky factor when it is
#: well conditioned: at that size scipy.sparse's per-call overhead (about 1 ms per factorisation at n = 16) exceeds
#: the dense algebra.  Otherwise (e.g. weights spanning 1e7) they take the sparse path, which stays exact there.
_SMALL_N, _SMALL_SIZE = 64, 64 * 1024


class LeastSquares:
    """Least-squares reconstruction for a strategy ``A``, factorised once and reused.

    ``LeastSquares(A)`` accepts a dense array, a scipy.sparse matrix or a
    :class:`dpviz.workloads.Workload` (to use a workload as its own strategy).
    Sparse strategies are factorised in the prefix basis (see the module
    docstring), dense ones and small well-conditioned ones (n <= 64, at most 65,536 entries) by
    Cholesky, rank-deficient ones by an eigendecomposition (pseudo-inverse), in which case only workloads in the
    row space of ``A`` can be answered (:meth:`check_answerable`).

    Parameters
    ----------
    A : array_like, scipy.sparse matrix or Workload
        The strategy (p x n).

    Attributes
    ----------
    n : int
        Number of cells (columns of A).
    n_rows : int
        Number of measurements (rows of A).
    l1, l2 : float
        L1 and L2 sensitivity of A (largest column norms).
    rank : int
        Rank of A (``n`` unless rank-deficient).
    method : str
        "sparse-prefix", "cholesky" or "eigh".

    Raises
    ------
    ValueError
        If A is all zeros, not a finite 2-D matrix, too large for dense algebra
        (n > ``DENSE_MAX``) when it needs it, or measures no cell of a large domain.

    Examples
    --------
    >>> ls = LeastSquares([[1, 1], [1, 0], [0, 1]])
    >>> ls.estimate([3.0, 1.0, 2.0]).round(6).tolist()
    [1.0, 2.0]
    """

    n: int
    n_rows: int
    l1: float
    l2: float
    rank: int
    method: str
    _A: Any
    _At: Any
    _lu: Any
    _symmetric: bool
    _Z: list[dict[int, float]] | None
    _R: np.ndarray  # reconstruction matrix, built on first use
    _chol: tuple[np.ndarray, bool]
    _V: np.ndarray
    _w: np.ndarray

    def __init__(self, A: Any) -> None:
        self._op: Workload | None = None
        self._null: np.ndarray | None = None
        if isinstance(A, Workload):
            self._op = A
            self.n, self.n_rows = A.n, A.n_queries
            self.l1, self.l2 = A.l1(), A.l2()
            if A.n > DENSE_MAX:
                raise ValueError(f"a Workload used as strategy must have n <= {DENSE_MAX}, got n={A.n}")
            self._dense_init(A.gram())
            return
        A = check_strategy(A)  # dense or sparse, A^T A finite: typed Any below
        small = A.shape[1] <= _SMALL_N and A.shape[0] * A.shape[1] <= _SMALL_SIZE
        if small and is_sparse(A):
            if self._small_cholesky(np.asarray(A.toarray(), dtype=float)):
                return
        elif not small and not is_sparse(A) and np.count_nonzero(A) <= 0.3 * A.size:
            A = sp.csr_array(A)
        self.n_rows, self.n = int(A.shape[0]), int(A.shape[1])
        self.l1, self.l2 = _sens.l1(A, "A"), _sens.l2(A, "A")
        zero = np.flatnonzero(np.asarray(abs(A).sum(axis=0)).ravel() == 0)
        if zero.size and self.n > DENSE_MAX:
            raise ValueError(f"A measures no cell {int(zero[0])} (column of zeros): it cannot answer any query "
                             "on that cell")
        if is_sparse(A):
            self._A = sp.csr_array(A)
            if zero.size == 0 and self._sparse_init():
                return
            if self.n > DENSE_MAX:
                raise ValueError(f"A (n={self.n}) is rank-deficient or too ill-conditioned for least squares; "
                                 f"pseudo-inverses are only supported for n <= {DENSE_MAX}")
            self._dense_init(np.asarray((self._A.T @ self._A).toarray()))
            return
        if self.n > DENSE_MAX:
            raise ValueError(f"dense A must have n <= {DENSE_MAX} columns, got {self.n}; pass a sparse matrix")
        self._A = A
        self._dense_init(A.T @ A)

    # ------------------------------------------------------------------ factorisations
    def _sparse_init(self) -> bool:
        factor = _prefix_factor(self._A, DENSE_MAX)
        if factor is None:
            return False
        self._At, self._lu, self._symmetric = factor
        self._Z = None
        self.method, self.rank = "sparse-prefix", self.n
        return True

    def _small_cholesky(self, D: np.ndarray) -> bool:
        """Factorise the small dense strategy ``D`` by a Cholesky factor of ``D^T D``; False, with nothing set,
        when the factor does not exist or its pivots span more than 1e10 (the sparse path is exact there)."""
        chol = _cholesky(D.T @ D)
        if chol is None:
            return False
        self.n_rows, self.n = int(D.shape[0]), int(D.shape[1])
        self.l1, self.l2 = _sens.l1(D, "A"), _sens.l2(D, "A")
        self._A, self._chol, self.method, self.rank = D, chol, "cholesky", self.n
        return True

    def _dense_init(self, N: np.ndarray) -> None:
        N = np.asarray(N, dtype=float)
        chol = _cholesky(N)
        if chol is not None:
            self._chol, self.method, self.rank = chol, "cholesky", self.n
            return
        self._V, self._w, self._null = _pseudo_inverse(N, self.n_rows)
        self.method, self.rank = "eigh", int(self._w.size)

    # ------------------------------------------------------------------ linear algebra
    def solve(self, C: npt.ArrayLike) -> np.ndarray:
        """Apply the (pseudo-)inverse normal matrix: ``(A^T A)^+ C``.

        Parameters
        ----------
        C : array_like
            Shape (n,) or (n, r).

        Returns
        -------
        numpy.ndarray
            Same shape as ``C``.

        Raises
        ------
        ValueError, TypeError
            If ``C`` is not a finite 1-D or 2-D array of numbers with n rows.
        """
        C = check_array("C", C, ndim=(1, 2), max_abs=MAX_MAGNITUDE)
        if C.shape[0] != self.n:
            raise ValueError(f"C must have n={self.n} rows (the columns of A), got shape {C.shape}")
        if self.method == "sparse-prefix":
            return _s_inv(self._lu.solve(_s_inv_t(C)))
        if self.method == "cholesky":
            # a Fortran-ordered right-hand side avoids a very slow internal copy in cho_solve
            return sla.cho_solve(self._chol, np.asfortranarray(C), check_finite=False)
        return self._V @ ((self._V.T @ C) / (self._w if C.ndim == 1 else self._w[:, None]))

    def measure(self, x: npt.ArrayLike) -> np.ndarray:
        """True strategy answers ``A x``.

        Parameters
        ----------
        x : array_like
            Histogram of shape (n,), or (k, n) for one per trial.

        Returns
        -------
        numpy.ndarray
            Shape (p,) or (k, p).
        """
        if self._op is not None:
            return self._op.answer(x)
        return np.asarray(self._A @ np.asarray(x, dtype=float).T).T

    def estimate(self, y: npt.ArrayLike, *, keep: bool = True) -> np.ndarray:
        """Least-squares estimate ``x_hat = (A^T A)^+ A^T y`` (one solve for all trials).

        For a small strategy (sparse: n <= 256 and n p <= 1e6; dense: n p <= 1.6e7; not a Workload) the
        reconstruction matrix ``R = (A^T A)^+ A^T`` is built on the first call and kept, so that later calls
        are one matrix product; ``keep=False`` solves for these answers only (for a strategy used once, where
        building ``R`` would cost ``p`` solves).  The two differ by rounding.

        Parameters
        ----------
        y : array_like
            Noisy strategy answers, shape (p,) or (k, p).
        keep : bool, default True
            Build (or use) the kept reconstruction matrix.

        Returns
        -------
        numpy.ndarray
            Shape (n,) or (k, n).

        Raises
        ------
        ValueError
            If ``y`` is not finite, not 1-D or 2-D, or its last axis is not the number of rows of A.
        TypeError
            If ``keep`` is not a bool.

        Examples
        --------
        >>> ls = LeastSquares(np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]))
        >>> ls.estimate(np.array([3.0, 1.0, 2.0]), keep=False).round(12).tolist()
        [1.0, 2.0]
        """
        keep = check_bool("keep", keep)
        y = check_array("y", y, ndim=(1, 2), max_abs=MAX_MAGNITUDE)  # a least-squares solve sums their squares
        if y.shape[-1] != self.n_rows:
            raise ValueError(f"y must have {self.n_rows} entries (rows of A) on its last axis, got shape {y.shape}")
        if self.method == "sparse-prefix":
            if keep and self.n <= 256 and self.n * self.n_rows <= 1_000_000:
                # small problems: SuperLU's per-right-hand-side overhead dominates, so apply the
                # reconstruction matrix (A^T A)^{-1} A^T, built once by the same factorisation
                if getattr(self, "_R", None) is None:
                    self._R = _s_inv(self._lu.solve(np.asarray(self._At.T.toarray())))
                return (self._R @ y.T).T
            rhs = np.asarray(self._At.T @ y.T)
            return _s_inv(self._lu.solve(rhs)).T
        if self._op is not None:
            return self.solve(self._op.rmatvec(y).T).T
        if keep and self.n * self.n_rows <= 16_000_000:
            # dense: apply the reconstruction matrix R = (A^T A)^+ A^T, computed once (one matrix product per call)
            if getattr(self, "_R", None) is None:
                At = self._A.T.toarray() if is_sparse(self._A) else self._A.T
                self._R = self.solve(np.asarray(At))
            return y @ self._R.T
        return self.solve(np.asarray(self._A.T @ y.T)).T

    def prefix_covariance(self) -> np.ndarray:
        """Covariance of the estimated prefix sums per unit noise variance, ``K = S (A^T A)^+ S^T``.

        Returns
        -------
        numpy.ndarray
            Dense (n, n) matrix.
        """
        n = self.n
        if self.method == "sparse-prefix":
            K = np.empty((n, n))
            for b0 in range(0, n, _BLOCK):
                E = np.zeros((n, min(_BLOCK, n - b0)))
                E[np.arange(b0, b0 + E.shape[1]), np.arange(E.shape[1])] = 1.0
                K[:, b0: b0 + E.shape[1]] = self._lu.solve(E)
            return K
        M = self.solve(np.eye(n))
        return np.cumsum(np.cumsum(M, axis=0), axis=1)

    def _selected_inverse(self) -> list[dict[int, float]]:
        """Entries of ``N^{-1}`` on the filled pattern of ``N`` (see :func:`._selected_inverse`), cached."""
        Z = getattr(self, "_Z", None)
        if Z is None:
            Z = self._Z = _selected_inverse(self._lu, self.n)
        return Z

    def _prefix_stats(self) -> tuple[float, float, float, float]:
        """(tr K, sum of the sub-diagonal of K, K[n-1, n-1], 1^T K 1) without forming K when sparse."""
        n = self.n
        if self.method != "sparse-prefix":
            K = self.prefix_covariance()
            return float(np.trace(K)), float(np.trace(K, -1)), float(K[-1, -1]), float(K.sum())
        ones = float(self._lu.solve(np.ones(n)).sum())
        Z = None
        if self._symmetric:
            try:
                Z = self._selected_inverse()
            except KeyError:  # SuperLU's stored L lacks part of the filled pattern: use blocked solves
                self._symmetric = False  # from now on, without trying the recurrence again
        if Z is not None:
            p = self._lu.perm_c
            diag = np.array([Z[q][q] for q in p])
            sub = 0.0
            for k in range(n - 1):
                a, b = sorted((int(p[k]), int(p[k + 1])))
                v = Z[a].get(b)
                if v is None:
                    break
                sub += v
            else:
                return float(diag.sum()), sub, float(diag[-1]), ones
        tr, sub, last = _blocked_prefix_stats(self._lu, n)
        return tr, sub, last, ones

    # ------------------------------------------------------------------ variances
    def check_answerable(self, W: Any) -> Workload:
        """Return ``W`` as a Workload after checking its shape and that it lies in the row space of A.

        Parameters
        ----------
        W : Workload, array_like or scipy.sparse matrix
            The workload (m x n).

        Returns
        -------
        Workload
            ``W``, wrapped by :func:`dpviz.workloads.as_workload` if it was a matrix.

        Raises
        ------
        ValueError
            If ``W`` has a different number of columns than A, or (rank-deficient
            A) part of ``W`` lies outside the row space of A, so ``W x`` cannot
            be estimated from ``A x`` at all.
        """
        W = as_workload(W, name="W")
        if W.n != self.n:
            raise ValueError(f"W has {W.n} columns but A has {self.n}: workload and strategy must cover the same "
                             "cells")
        if self._null is not None:
            if W.kind == "matrix":
                Wm = W.explicit
                out = np.asarray(Wm @ self._null)
                res, tot = float((out**2).sum()), float(Wm.multiply(Wm).sum() if is_sparse(Wm) else (Wm**2).sum())
            else:
                G = W.gram()
                res, tot = float(np.sum(self._null * (G @ self._null))), float(np.trace(G))
            if res > 1e-9 * tot:
                raise ValueError(f"A (rank {self.rank} < n={self.n}) cannot answer W: W is not in the row space "
                                 f"of A (squared norm outside it {res:.3g} of {tot:.3g})")
        return W

    def variances(self, W: Any, *, per_query: bool = False) -> Any:
        """Unit-noise variances ``diag(W (A^T A)^+ W^T)`` (per query) or their sum ``tr(W^T W (A^T A)^+)``.

        Parameters
        ----------
        W : Workload, array_like or scipy.sparse matrix
            The workload (m x n); implicit range workloads are never expanded for the total.
        per_query : bool, default False
            Return the (m,) per-query variances instead of their sum.

        Returns
        -------
        float or numpy.ndarray
            The total, or the (m,) per-query variances, for noise of variance 1 per measurement.

        Raises
        ------
        ValueError
            If A cannot answer W (see :meth:`check_answerable`).
        TypeError
            If ``per_query`` is not a bool.
        """
        W = self.check_answerable(W)
        n = self.n
        if not check_bool("per_query", per_query):
            if W.kind in ("identity", "prefix", "all_ranges") and self.method == "sparse-prefix":
                tr, sub, last, ones = self._prefix_stats()
                if W.kind == "prefix":
                    return tr
                if W.kind == "all_ranges":
                    return (n + 1) * tr - ones
                return 2 * tr - last - 2 * sub
            if self.method != "sparse-prefix" and (W.kind != "matrix" or W.n_queries > n):
                return float(np.sum(W.gram() * self.solve(np.eye(n))))
            return float(np.sum(self.variances(W, per_query=True)))
        if W.kind != "matrix" and W.n_queries > n:
            K = np.zeros((n + 1, n + 1))
            K[1:, 1:] = self.prefix_covariance()
            s, e = W.intervals()
            return K[e, e] + K[s, s] - 2.0 * K[s, e]
        Wm = W.matrix()
        if self.method == "sparse-prefix":
            Wt = sp.csr_array(sp.csr_array(Wm) @ _diff_matrix(n))
            out = np.empty(Wt.shape[0])
            for r0 in range(0, Wt.shape[0], _BLOCK):
                blk = Wt[r0: r0 + _BLOCK]
                X = self._lu.solve(np.asarray(blk.T.toarray()))
                out[r0: r0 + blk.shape[0]] = np.asarray(blk.multiply(X.T).sum(axis=1)).ravel()
            return out
        Wd = Wm.toarray() if is_sparse(Wm) else Wm
        return np.sum(Wd * self.solve(Wd.T).T, axis=1)


def _as_ls(A: Any) -> LeastSquares:
    return A if isinstance(A, LeastSquares) else LeastSquares(A)
