"""The matrix mechanism: answer a strategy ``A`` with noise, rebuild the workload ``W`` by least squares.

Given a workload ``W`` (m x n) and a strategy ``A`` (p x n) [LHRMM10]_:

1. measure ``y = A x + (||A||_1 / epsilon) b`` with ``b`` iid Laplace(1)
   (or, for (epsilon, delta)-DP, Gaussian noise calibrated to the L2
   sensitivity ``||A||_2``, the largest column L2 norm);
2. estimate ``x_hat = (A^T A)^+ A^T y``, the ordinary least-squares estimate
   (unbiased, and the minimum-variance linear unbiased estimate);
3. answer ``W x_hat``.

Steps 2-3 are post-processing, so the release is exactly as private as step 1.
The error does not depend on the data: for a query ``w`` in the row space of
``A``, ``E[(w x_hat - w x)^2] = v * w (A^T A)^+ w^T`` where ``v`` is the
noise variance per measurement (``2 ||A||_1^2 / epsilon^2`` for Laplace), and
the total error is ``v * trace(W (A^T A)^+ W^T) = v * trace(W^T W (A^T A)^+)``.

**Speed.**  Strategies made of intervals (identity, hierarchies, GreedyH) or of
a few constant pieces (Haar wavelets) become very sparse in the *prefix basis*
``p = S x`` (``S`` the lower-triangular matrix of ones): a row that is constant
on ``[i, j)`` becomes ``p_{j-1} - p_{i-1}``.  With ``A~ = A S^{-1}`` the normal
matrix ``N = A~^T A~`` is sparse even when ``A^T A`` is dense (the root of a
tree touches every cell), so it is factorised once with ``scipy.sparse.linalg.splu``
and every least-squares solve -- one right-hand side per trial -- is a sparse
triangular solve.  ``N^{-1} = S (A^T A)^{-1} S^T`` is also the covariance of
the noisy prefix sums, which is what range workloads need: the total variance
of all ranges is ``(n+1) tr(N^{-1}) - 1^T N^{-1} 1`` (every range is a
difference of two prefixes; ``W^T W = S^T ((n+1) I - 1 1^T) S`` in the
extended prefix basis) and of all prefixes ``tr(N^{-1})``, so the n^2-row
all-range workload is never formed.  Dense strategies (eigen-designs) use a
dense Cholesky factor, or an eigendecomposition when ``A`` is rank-deficient.

**Lower bound** [LM12]_: for every strategy, the total error under
epsilon-DP is at least ``(2/epsilon^2)(1/n)(sum of the singular values of W)^2``
(and with Gaussian noise ``sigma(1)^2 (1/n)(sum of the singular values)^2``, where
``sigma(1)`` is the noise scale for L2 sensitivity 1; the slides use ``sigma(1)^2
= 2 ln(2/delta)/epsilon^2``).

References
----------
.. [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
   Linear Counting Queries Under Differential Privacy." PODS 2010.
.. [LM12] C. Li, G. Miklau. "An Adaptive Mechanism for Accurate Query Answering
   under Differential Privacy." PVLDB 5(6), 2012 (singular value bound, Thm 3).
.. [Mik12] G. Miklau. "Differentially-Private Batch Query Answering: Exploiting
   the Workload vs. Exploiting the Data." DIMACS workshop slides, 2012.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.optimize import lsq_linear
from scipy.sparse.linalg import splu

from dpviz import mechanisms
from dpviz import sensitivity as _sens
from dpviz.rng import RngLike
from dpviz.validation import (
    check_array,
    check_bool,
    check_choice,
    check_counts,
    check_delta,
    check_epsilon,
    check_matrix,
    check_trials,
)
from dpviz.workloads import Workload, as_workload

__all__ = [
    "LeastSquares",
    "MatrixMechanismRelease",
    "noise_variance",
    "expected_error",
    "direct_laplace_error",
    "query_weights",
    "svd_lower_bound",
    "reconstruct",
    "run",
]

#: Largest n handled with dense n x n algebra.
DENSE_MAX = 4096
_BLOCK = 512


def _diff_matrix(n: int) -> sp.csr_array:
    """``S^{-1}``: ones on the diagonal, -1 just below (so ``(A S^{-1})[:, k] = A[:, k] - A[:, k+1]``)."""
    return sp.diags_array([np.ones(n), -np.ones(n - 1)], offsets=[0, -1], shape=(n, n), format="csr")


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


class LeastSquares:
    """Least-squares reconstruction for a strategy ``A``, factorised once and reused.

    ``LeastSquares(A)`` accepts a dense array, a scipy.sparse matrix or a
    :class:`dpviz.workloads.Workload` (to use a workload as its own strategy).
    Sparse strategies are factorised in the prefix basis (see the module
    docstring), dense ones by Cholesky, rank-deficient ones by an
    eigendecomposition (pseudo-inverse), in which case only workloads in the
    row space of ``A`` can be answered (:meth:`check_answerable`).

    Attributes
    ----------
    n : number of cells (columns of A)
    n_rows : number of measurements (rows of A)
    l1, l2 : L1 and L2 sensitivity of A (largest column norms)
    rank : rank of A (``n`` unless rank-deficient)
    method : "sparse-prefix", "cholesky" or "eigh"

    Examples
    --------
    >>> ls = LeastSquares([[1, 1], [1, 0], [0, 1]])
    >>> ls.estimate([3.0, 1.0, 2.0]).round(6).tolist()
    [1.0, 2.0]
    """

    def __init__(self, A) -> None:
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
        A = check_matrix("A", A)
        if not sp.issparse(A) and np.count_nonzero(A) <= 0.3 * A.size:
            A = sp.csr_array(A)
        self.n_rows, self.n = (int(d) for d in A.shape)
        self.l1, self.l2 = _sens.l1(A), _sens.l2(A)
        zero = np.flatnonzero(np.asarray(abs(A).sum(axis=0)).ravel() == 0)
        if zero.size and self.n > DENSE_MAX:
            raise ValueError(f"A measures no cell {int(zero[0])} (column of zeros): it cannot answer any query "
                             "on that cell")
        if sp.issparse(A):
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
        n = self.n
        self._At = sp.csr_array(self._A @ _diff_matrix(n))
        N = sp.csc_array(self._At.T @ self._At)
        if N.nnz > 0.2 * n * n and n <= DENSE_MAX:
            return False
        try:  # N is symmetric positive definite if A has full column rank: L D L^T, no pivoting
            lu = splu(N, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
        except RuntimeError:  # exactly singular
            return False
        probe = np.random.default_rng(12345).standard_normal(n)  # private fixed probe, not DP noise
        back = lu.solve(np.asarray(N @ probe))
        if not np.all(np.isfinite(back)) or np.linalg.norm(back - probe) > 1e-6 * np.linalg.norm(probe):
            return False
        self._lu = lu
        self._symmetric = bool(np.array_equal(lu.perm_r, lu.perm_c)) and bool(np.all(lu.U.diagonal() > 0))
        self._Z = None
        self.method = "sparse-prefix"
        self.rank = n
        return True

    def _dense_init(self, N: np.ndarray) -> None:
        n = self.n
        N = np.asarray(N, dtype=float)
        try:
            c, low = sla.cho_factor(N, lower=True, check_finite=False)
            d = np.diag(c) ** 2
            if d.min() > 1e-10 * d.max():
                self._chol = (c, low)
                self.method = "cholesky"
                self.rank = n
                return
        except np.linalg.LinAlgError:
            pass
        w, V = np.linalg.eigh(N)
        tol = max(w.max(), 0.0) * max(n, self.n_rows) * np.finfo(float).eps * 10
        keep = w > tol
        self.rank = int(keep.sum())
        if self.rank == 0:
            raise ValueError("A is all zeros: it measures nothing")
        self._V, self._w = V[:, keep], w[keep]
        self._null = V[:, ~keep] if self.rank < n else None
        self.method = "eigh"

    # ------------------------------------------------------------------ linear algebra
    def solve(self, C) -> np.ndarray:
        """``(A^T A)^+ C`` for C of shape (n,) or (n, r)."""
        C = np.asarray(C, dtype=float)
        if self.method == "sparse-prefix":
            return _s_inv(self._lu.solve(_s_inv_t(C)))
        if self.method == "cholesky":
            # a Fortran-ordered right-hand side avoids a very slow internal copy in cho_solve
            return sla.cho_solve(self._chol, np.asfortranarray(C), check_finite=False)
        return self._V @ ((self._V.T @ C) / (self._w if C.ndim == 1 else self._w[:, None]))

    def measure(self, x) -> np.ndarray:
        """True strategy answers ``A x`` for x of shape (n,) or (k, n)."""
        if self._op is not None:
            return self._op.answer(x)
        return np.asarray(self._A @ np.asarray(x, dtype=float).T).T

    def estimate(self, y) -> np.ndarray:
        """Least-squares estimate ``x_hat = (A^T A)^+ A^T y`` for y of shape (p,) or (k, p) (one solve for all k).

        Raises
        ------
        ValueError
            If the last axis of ``y`` is not the number of rows of A.
        """
        y = check_array("y", y, ndim=(1, 2))
        if y.shape[-1] != self.n_rows:
            raise ValueError(f"y must have {self.n_rows} entries (rows of A) on its last axis, got shape {y.shape}")
        if self.method == "sparse-prefix":
            if self.n <= 256 and self.n * self.n_rows <= 1_000_000:
                # small problems: SuperLU's per-right-hand-side overhead dominates, so apply the
                # reconstruction matrix (A^T A)^{-1} A^T, built once by the same factorisation
                if getattr(self, "_R", None) is None:
                    self._R = _s_inv(self._lu.solve(np.asarray(self._At.T.toarray())))
                return (self._R @ y.T).T
            rhs = np.asarray(self._At.T @ y.T)
            return _s_inv(self._lu.solve(rhs)).T
        if self._op is not None:
            return self.solve(self._op.rmatvec(y).T).T
        if self.n * self.n_rows <= 16_000_000:
            # dense: apply the reconstruction matrix R = (A^T A)^+ A^T, computed once (one matrix product per call)
            if getattr(self, "_R", None) is None:
                At = self._A.T.toarray() if sp.issparse(self._A) else self._A.T
                self._R = self.solve(np.asarray(At))
            return y @ self._R.T
        return self.solve(np.asarray(self._A.T @ y.T)).T

    def prefix_covariance(self) -> np.ndarray:
        """Dense ``K = S (A^T A)^+ S^T`` (n x n): covariance of the estimated prefix sums per unit noise variance."""
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
        """Entries of ``N^{-1}`` on the filled pattern of ``N = L D L^T`` (Takahashi's recurrences).

        Column ``j`` of the result maps row ``i >= j`` (permuted order) to
        ``(N^{-1})_{ij}``.  Going from the last column to the first,
        ``Z_{P,j} = -Z_{P,P} L_{P,j}`` and ``Z_{jj} = 1/d_j - L_{P,j}^T Z_{P,j}``
        with ``P`` the below-diagonal pattern of column j of L; every ``Z_{P,P}``
        entry lies in the filled pattern.  Cost ``sum_j |P_j|^2``: linear in n for trees.
        """
        if getattr(self, "_Z", None) is not None:
            return self._Z
        L = sp.csc_array(self._lu.L)
        d = self._lu.U.diagonal()
        indptr, indices, data = L.indptr, L.indices, L.data
        n = self.n
        Z: list = [None] * n
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
            col = dict(zip(rows.tolist(), zj.tolist()))
            col[j] = 1.0 / d[j] - float(vals @ zj)
            Z[j] = col
        self._Z = Z
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
        tr = sub = 0.0
        last = 0.0
        for b0 in range(0, n, _BLOCK):
            cols = np.arange(b0, min(b0 + _BLOCK, n))
            E = np.zeros((n, cols.size))
            E[cols, np.arange(cols.size)] = 1.0
            X = self._lu.solve(E)
            tr += X[cols, np.arange(cols.size)].sum()
            ok = cols + 1 < n
            sub += X[cols[ok] + 1, np.arange(cols.size)[ok]].sum()
            if cols[-1] == n - 1:
                last = float(X[n - 1, cols.size - 1])
        return float(tr), float(sub), last, ones

    # ------------------------------------------------------------------ variances
    def check_answerable(self, W) -> Workload:
        """Return ``W`` as a Workload after checking its shape and that it lies in the row space of A.

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
                res, tot = float((out**2).sum()), float(Wm.multiply(Wm).sum() if sp.issparse(Wm) else (Wm**2).sum())
            else:
                G = W.gram()
                res, tot = float(np.sum(self._null * (G @ self._null))), float(np.trace(G))
            if res > 1e-9 * tot:
                raise ValueError(f"A (rank {self.rank} < n={self.n}) cannot answer W: W is not in the row space "
                                 f"of A (squared norm outside it {res:.3g} of {tot:.3g})")
        return W

    def variances(self, W, *, per_query: bool = False) -> float | np.ndarray:
        """Unit-noise variances ``diag(W (A^T A)^+ W^T)`` (per query) or their sum ``tr(W^T W (A^T A)^+)``."""
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
        Wd = Wm.toarray() if sp.issparse(Wm) else Wm
        return np.sum(Wd * self.solve(Wd.T).T, axis=1)


def _as_ls(A) -> LeastSquares:
    return A if isinstance(A, LeastSquares) else LeastSquares(A)


def noise_variance(A, epsilon: float, *, delta: float | None = None, calibration: str = "analytic") -> float:
    """Variance of the noise added to each strategy answer.

    Laplace (``delta=None``): ``2 (||A||_1 / epsilon)^2``.  Gaussian:
    ``sigma^2`` with ``sigma = dpviz.mechanisms.gaussian_sigma(||A||_2, epsilon, delta, calibration)``.
    """
    ls = _as_ls(A)
    epsilon = check_epsilon(epsilon)
    if delta is None:
        return 2.0 * (ls.l1 / epsilon) ** 2
    delta = check_delta(delta)
    return mechanisms.gaussian_sigma(ls.l2, epsilon, delta, calibration) ** 2


def expected_error(W, A, epsilon: float, *, per_query: bool = False, delta: float | None = None,
                   calibration: str = "analytic") -> float | np.ndarray:
    """Exact expected squared error of the matrix mechanism with strategy ``A`` on workload ``W``.

    Per query: ``(2/epsilon^2) ||A||_1^2 w (A^T A)^+ w^T``; total:
    ``(2/epsilon^2) ||A||_1^2 trace(W (A^T A)^+ W^T)`` [LHRMM10]_ (Prop. 4; the
    slides' ``TotalError_A(W)``).  With ``delta`` the Gaussian variance
    ``sigma(||A||_2)^2`` replaces ``2 ||A||_1^2 / epsilon^2``.  It does not
    depend on the data.

    Parameters
    ----------
    W : Workload, array or sparse matrix (m x n)
        Implicit range workloads (e.g. :func:`dpviz.workloads.all_ranges`) are
        never expanded into their n^2 rows for the total.
    A : array, sparse matrix, Workload or LeastSquares (p x n)
    epsilon : float > 0
    per_query : bool, default False
        Return the (m,) vector of per-query errors instead of the total.
    delta : float in (0, 1), optional
        Use the Gaussian mechanism ((epsilon, delta)-DP).
    calibration : {"analytic", "classic"}
        Gaussian calibration (see :func:`dpviz.mechanisms.gaussian_sigma`).

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    ValueError
        Shape mismatch, epsilon <= 0, or A cannot answer W.

    Examples
    --------
    >>> from dpviz import workloads
    >>> float(expected_error(workloads.all_ranges(4), np.eye(4), 1.0))  # sum over ranges of 2 (j - i + 1)
    40.0
    """
    ls = _as_ls(A)
    var = noise_variance(ls, epsilon, delta=delta, calibration=calibration)
    v = ls.variances(W, per_query=per_query)
    return var * v if per_query else float(var * v)


def query_weights(w, A) -> np.ndarray:
    """Weights ``c = w (A^T A)^+ A^T`` of the least-squares estimate ``c . y`` of the query ``w x`` from ``y = A x + noise``.

    Examples
    --------
    >>> from dpviz import strategies
    >>> (21 * query_weights([0, 1, 1, 0], strategies.hierarchical(4, 2))).round(6).tolist()
    [-9.0, 12.0, 12.0, -9.0, 3.0, 3.0, 6.0]
    """
    ls = _as_ls(A)
    w = check_array("w", w, ndim=1)
    if w.size != ls.n:
        raise ValueError(f"w must have n={ls.n} entries (columns of A), got {w.size}")
    ls.check_answerable(w[None, :])
    return ls.estimate(np.eye(ls.n_rows)) @ w


def direct_laplace_error(W, epsilon: float, *, per_query: bool = False) -> float | np.ndarray:
    """Error of the plain Laplace mechanism on W (no strategy): ``2 (||W||_1 / epsilon)^2`` per query [Mik12]_.

    Examples
    --------
    >>> from dpviz import workloads
    >>> direct_laplace_error(workloads.all_ranges(4), 1.0)   # 10 queries x 72
    720.0
    """
    W = as_workload(W, name="W")
    per = 2.0 * (W.l1() / check_epsilon(epsilon)) ** 2
    return np.full(W.n_queries, per) if check_bool("per_query", per_query) else float(per * W.n_queries)


def svd_lower_bound(W, epsilon: float, *, delta: float | None = None, calibration: str = "analytic") -> float:
    """Singular-value lower bound on the total error of any matrix-mechanism strategy [LM12]_.

    epsilon-DP: ``(2/epsilon^2) (1/n) (lambda_1 + ... + lambda_n)^2`` with
    ``lambda_i`` the singular values of ``W``; it holds because ``||A||_1 >=
    ||A||_2`` and, for L2 sensitivity, ``||A||_2^2 tr(W^T W (A^T A)^{-1}) >=
    (1/n)(sum lambda_i)^2`` for every A (tight over all A in the L2 case).
    (epsilon, delta)-DP: ``sigma(1)^2 (1/n) (sum lambda_i)^2``, ``sigma(1)`` the
    Gaussian scale for L2 sensitivity 1 (the slides' form ``2 ln(2/delta) / epsilon^2``
    corresponds to ``sigma(1)^2 = 2 ln(2/delta)/epsilon^2``).

    Examples
    --------
    >>> from dpviz import workloads
    >>> round(svd_lower_bound(workloads.identity(4), 1.0), 6)   # Identity is optimal for W = I
    8.0
    """
    W = as_workload(W, name="W")
    epsilon = check_epsilon(epsilon)
    s = float(np.sum(W.singular_values()))
    if delta is None:
        unit = 2.0 / epsilon**2
    else:
        unit = mechanisms.gaussian_sigma(1.0, epsilon, check_delta(delta), calibration) ** 2
    return unit * s * s / W.n


@dataclass(frozen=True)
class MatrixMechanismRelease:
    """One or ``size`` releases of the matrix mechanism.

    Attributes
    ----------
    answers : (m,) or (k, m) workload estimates ``W x_hat``
    estimate : (n,) or (k, n) least-squares (or non-negative) estimate ``x_hat``
    measurements : (p,) or (k, p) noisy strategy answers ``y``
    truth : (m,) true workload answers ``W x``
    noise_variance : variance of the noise on each measurement
    mechanism : "laplace" or "gaussian"
    """

    answers: np.ndarray
    estimate: np.ndarray
    measurements: np.ndarray
    truth: np.ndarray
    noise_variance: float
    mechanism: str


def reconstruct(A, y, *, nonnegative: bool = False) -> np.ndarray:
    """Least-squares estimate ``x_hat`` from noisy strategy answers ``y`` of shape (p,) or (k, p).

    ``nonnegative=False``: ``(A^T A)^+ A^T y`` (A factorised once, all k trials
    solved together).  ``nonnegative=True``: ``argmin_{x >= 0} ||A x - y||_2``
    per trial with ``scipy.optimize.lsq_linear`` (iterative, much slower, and
    biased, so :func:`expected_error` no longer applies; meant for n up to a few
    hundred).
    """
    ls = _as_ls(A)
    if not check_bool("nonnegative", nonnegative):
        return ls.estimate(y)
    y = check_array("y", y, ndim=(1, 2))
    if y.shape[-1] != ls.n_rows:
        raise ValueError(f"y must have {ls.n_rows} entries (rows of A) on its last axis, got shape {y.shape}")
    Am = ls._op.matrix() if ls._op is not None else ls._A
    sparse = sp.issparse(Am)
    Y = np.atleast_2d(y)
    out = np.empty((Y.shape[0], ls.n))
    for t, yt in enumerate(Y):
        res = lsq_linear(Am, yt, bounds=(0.0, np.inf), method="trf" if sparse else "bvls",
                         lsmr_tol="auto" if sparse else None, tol=1e-10)
        out[t] = res.x
    return out[0] if y.ndim == 1 else out


def run(W, A, x, epsilon: float, *, rng: RngLike = None, size: int | None = None, delta: float | None = None,
        calibration: str = "analytic", nonnegative: bool = False, accountant=None) -> MatrixMechanismRelease:
    """Run the matrix mechanism: ``y = A x + noise``, ``x_hat`` by least squares, answers ``W x_hat``.

    epsilon-DP with Laplace noise of scale ``||A||_1 / epsilon`` [LHRMM10]_, or
    (epsilon, delta)-DP with Gaussian noise calibrated to ``||A||_2`` when
    ``delta`` is given.  The reconstruction is post-processing.  An optional
    ``accountant`` is charged ``(epsilon, delta)`` before noise is drawn.

    Parameters
    ----------
    W : Workload or matrix (m x n)
    A : matrix, Workload or LeastSquares (p x n) -- the strategy
    x : (n,) histogram of non-negative counts
    epsilon : float > 0
    rng : None, int or Generator
    size : int, optional
        Number of independent releases, stacked on a new first axis.
    delta : float, optional
        Gaussian mechanism for (epsilon, delta)-DP.
    calibration : {"analytic", "classic"}
    nonnegative : bool, default False
        Non-negative least squares instead of least squares (see :func:`reconstruct`).
    accountant : PrivacyAccountant, optional

    Returns
    -------
    MatrixMechanismRelease

    Examples
    --------
    >>> from dpviz import workloads
    >>> r = run(workloads.all_ranges(4), np.eye(4), [10, 23, 16, 3], 1.0, rng=0, size=3)
    >>> r.answers.shape, r.truth.astype(int).tolist()[:3]
    ((3, 10), [52, 49, 42])
    """
    ls = _as_ls(A)
    epsilon = check_epsilon(epsilon)
    check_choice("calibration", calibration, ("analytic", "classic"))
    size = check_trials(size)
    x = check_counts("x", x)
    if x.size != ls.n:
        raise ValueError(f"x must have n={ls.n} entries (columns of A), got {x.size}")
    W = ls.check_answerable(W)
    if delta is not None:
        delta = check_delta(delta)
    truth_a = ls.measure(x)
    var = noise_variance(ls, epsilon, delta=delta, calibration=calibration)
    if accountant is not None:
        accountant.spend(epsilon, delta=0.0 if delta is None else delta,
                         label=f"matrix mechanism ({ls.n_rows} strategy queries)")
    if delta is None:
        y = mechanisms.laplace(truth_a, ls.l1, epsilon, rng=rng, size=size)
    else:
        y = mechanisms.gaussian(truth_a, ls.l2, epsilon, delta, rng=rng, size=size, calibration=calibration)
    x_hat = reconstruct(ls, y, nonnegative=nonnegative)
    return MatrixMechanismRelease(answers=W.answer(x_hat), estimate=x_hat, measurements=y, truth=W.answer(x),
                                  noise_variance=var, mechanism="laplace" if delta is None else "gaussian")
