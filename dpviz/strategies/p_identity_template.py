"""HDMM's p-Identity strategies [MMHM18]_, optimised on the exact error with structured Gram products.

**Strategy.**  ``A = [I; Theta] D``: the identity (one query per cell) plus ``p`` free queries ``Theta``
(p x n), each column rescaled by ``D = diag(1/s)`` so that every column has norm 1 -- L1 norm with
``s = 1 + 1^T Theta`` and ``Theta >= 0`` (Laplace, epsilon-DP), L2 norm with
``s = (1 + 1^T (Theta o Theta))^(1/2)`` (Gaussian, any sign).  So ``||A|| = 1`` by construction and the
total squared error per unit noise variance is ``f(Theta) = tr(W^T W (A^T A)^{-1})``.

**Exact error in O(n p^2).**  ``A^T A = D (I + Theta^T Theta) D``; by Woodbury, with
``C = S G S`` (``G = W^T W``, ``S = diag(s)``) and ``R = (I_p + Theta Theta^T)^{-1}``,
``f = tr(C) - <R K, Theta>`` with ``K = Theta C``.  ``K`` needs ``G`` only through the products
``G V`` of :meth:`dpviz.workloads.Workload.gram_matmul` -- O(n) per column for prefixes and all ranges,
never an ``n x n`` matrix -- so one evaluation costs four ``p x p x n`` products where HDMM's costs
``O(n^2 p)`` with a dense ``G``.  The gradient (derived for this module, checked against finite
differences in the tests) is ``-2 R (K - P R Theta)`` at fixed ``s`` (``P = K Theta^T``) plus the chain
rule through ``s``: ``df/ds_j = 2 (s_j G_jj - (Theta o R K)^T 1 / s_j)``.

**Optimiser.**  Projected L-BFGS (:mod:`dpviz.strategies.projected_lbfgs`) from a seeded random
``Theta`` (entries uniform on ``[0, 6/p)``, so the initial column sums are about 3), as HDMM uses
L-BFGS-B from a random start.  Entries are kept in ``[0, 50]`` (L1) or ``[-50, 50]`` (L2): the Woodbury
form subtracts terms of size ``s_j^2``, so an unbounded entry (a column measured almost only by one
extra query, worth no more than the identity) would let round-off, not the error, steer the search;
the optimised strategies found without the bound never come near it (largest entries below 3 on all
ranges and prefixes at n = 1024).  The identity (``Theta = 0``) is in the family; the returned strategy
is the identity unless the optimum found is better by more than the round-off (1e-8 relative), so it
never loses to Identity.

References
----------
.. [MMHM18] R. McKenna, G. Miklau, M. Hay, A. Machanavajjhala. "Optimizing Error of High-Dimensional
   Statistical Queries Under Differential Privacy." PVLDB 11(10), 2018 (p-Identity strategies, Sec. 5).
"""

from __future__ import annotations

import contextlib
import functools
import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from dpviz.rng import RngLike, as_generator
from dpviz.strategies.gram import _checked_gram, _Factors, _gram_rows, _is_sparse, _semiseparable
from dpviz.strategies.projected_lbfgs import _minimize
from dpviz.strategies.reproducible_products import BLAS, FIXED_ORDER, _Products
from dpviz.validation import check_bool, check_choice, check_elements, check_int, check_matrix, check_positive
from dpviz.workloads import Workload, from_matrix

__all__ = ["p_identity", "default_p"]

#: Largest number of optimiser iterations :func:`p_identity` accepts (a bound on run time).
MAX_ITER = 100_000
#: Iterations over which the optimiser's progress is judged against ``tol`` (one iteration alone is noisy).
WINDOW = 10
#: Largest magnitude of an entry of ``Theta`` (keeps the O(n p^2) error formula accurate to ~1e-9).
THETA_MAX = 50.0


def default_p(n: int, norm: str = "l1") -> int:
    """Number of extra queries: HDMM's ``n/16`` capped at 128 for L1; ``n/6`` capped at 192 for L2.

    The cost of a step grows as ``p^2 n``.  Under L2 the family needs more queries: on all ranges at
    n = 1024 the error is 19 % above the published convex optimum at p = 64, 4.8 % at p = 128 and 1.6 % at
    p = 170 (the default); under L1, p = n/16 already matches HDMM (see the benchmarks).

    Parameters
    ----------
    n : int
        Domain size, >= 1.
    norm : {"l1", "l2"}, default "l1"
        The sensitivity the strategy is built for.

    Returns
    -------
    int
        ``max(1, min(n // 16, 128))`` for L1, ``max(1, min(n // 6, 192))`` for L2.

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n`` < 1 or ``norm`` is not "l1" or "l2".

    Examples
    --------
    >>> default_p(1024), default_p(4096), default_p(8), default_p(1024, "l2")
    (64, 128, 1, 170)
    """
    n = check_int("n", n, minimum=1)
    check_choice("norm", norm, ("l1", "l2"))
    return max(1, min(n // 16, 128)) if norm == "l1" else max(1, min(n // 6, 192))


def _column_sq_norms(M: Any) -> np.ndarray:
    """Squared L2 norm of every column of a dense or sparse matrix: the diagonal of ``M^T M``."""
    if _is_sparse(M):
        S: Any = sp.csr_array(M)
        return np.asarray(S.multiply(S).sum(axis=0)).astype(float).ravel()
    return np.einsum("ij,ij->j", M, M)


def _domain_size(W: Any, gram: bool) -> int:
    """The domain size n of ``W`` (a Workload, a query matrix, or a Gram matrix when ``gram``), read before any work."""
    if isinstance(W, Workload):
        return W.n
    shape = getattr(W, "shape", None)
    if not (isinstance(shape, tuple) and len(shape) == 2):
        checked: Any = check_matrix("W", W)     # lists and the like are small; the check also names bad input
        shape = checked.shape
    return int(shape[1])


def _gram_operator(W: Any, gram: bool, products: _Products = BLAS) -> tuple[int, Any, np.ndarray]:
    """``(n, apply, diag)``: the domain size, ``V -> W^T W V`` for (n, k) blocks and the diagonal of ``W^T W``.

    Range workloads apply ``W^T W`` by running sums and a sparse matrix by scipy's loops, in a fixed order
    either way; a dense matrix (or a given Gram matrix) goes through ``products``.
    """
    if isinstance(W, Workload):
        if gram:
            raise TypeError("gram=True takes the matrix W^T W itself, not a Workload (pass the Workload with "
                            "gram=False)")
        if W.kind != "matrix":
            return W.n, W.gram_matmul, W.coverage()
        M: Any = W.explicit
    else:
        M = check_matrix("W", W)
        if gram:
            G = _checked_gram(M)
            return G.shape[0], lambda V: products.matmul(G, V), np.diag(G).copy()
        top = float(abs(M).max()) if M.shape[0] * M.shape[1] else 0.0
        if math.isfinite(top) and top > 0.0:
            M = M / top                      # W^T W of 1e200-sized entries overflows; the optimum ignores the scale
    if _is_sparse(M):
        Wk = from_matrix(M, name="W")
        return Wk.n, Wk.gram_matmul, _column_sq_norms(M)
    Md = np.asarray(M, dtype=float)
    MdT = np.ascontiguousarray(Md.T) if products is FIXED_ORDER else Md.T   # einsum's loops run faster on rows
    return Md.shape[1], lambda V: products.matmul(MdT, products.matmul(Md, V)), _column_sq_norms(Md)


def _unit_scaled(apply: Any, diag: np.ndarray) -> tuple[Any, np.ndarray]:
    """``W^T W`` divided by its largest diagonal entry: the optimum ignores W's scale, the floats do not."""
    top = float(diag.max()) if diag.size else 0.0
    if not (math.isfinite(top) and top > 0.0):
        return apply, diag

    def scaled(V: np.ndarray) -> np.ndarray:
        return np.asarray(apply(V)) / top

    return scaled, diag / top


def _one_blas_thread() -> Any:
    """A context in which BLAS runs on one thread (threadpoolctl), or a no-op where threadpoolctl is missing.

    The optimiser's products are small (4-30 million multiply-adds) and many (five per step): a second
    BLAS thread saved little on an idle 2-core machine and cost 5-40x when other processes used the
    cores (measured: all ranges, n = 1024, 0.53 s on one thread against 3-25 s on two under a load of 7),
    because every threaded product waits for both threads to be scheduled.  One thread also makes the
    seeded optimum independent of the number of cores (threads change the order of BLAS's sums, and
    200 steps from the same start amplify the rounding to ~0.1 % of the error).
    """
    controller = _blas_controller()
    if controller is None:                                  # pragma: no cover - threadpoolctl is a dependency
        return contextlib.nullcontext()
    return controller.limit(limits=1, user_api="blas")


@functools.lru_cache(maxsize=1)
def _blas_controller() -> Any:
    """threadpoolctl's view of the loaded thread pools, found once: finding them reads ``/proc/self/maps``,
    about 1.5 ms per call, which was a fifth of an n = 16 optimisation."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:                                     # pragma: no cover - threadpoolctl is a dependency
        return None
    return ThreadpoolController()


def _objective(apply: Any, diag: np.ndarray, n: int, p: int, norm: str, *,
               factors: _Factors | None = None, products: _Products = BLAS) -> Any:
    """``x -> (f, grad)`` for ``x = Theta`` flattened (p x n, row-major): the exact unit-noise total error.

    ``Theta`` is used as a row-major (p, n) array.  With ``factors`` (:func:`~dpviz.strategies.gram._semiseparable`,
    already divided by the scale of ``diag``) ``Theta C`` is two running sums along its contiguous rows, else
    ``apply`` (``V -> W^T W V``) is called on the Fortran-ordered (n, p) block ``Theta^T``.  ``R`` comes from a
    Cholesky factorisation of ``I + Theta Theta^T`` (symmetric positive definite), or from Gauss-Jordan
    elimination with ``FIXED_ORDER`` products, and the (p, n) temporaries are reused from call to call; the
    gradient returned is a new array.
    """
    K, RK, work = np.empty((p, n)), np.empty((p, n)), np.empty((p, n))
    rows = np.arange(p)

    def fg(x: np.ndarray) -> tuple[float, np.ndarray]:
        T = x.reshape(p, n)
        s = 1.0 + T.sum(axis=0) if norm == "l1" else np.sqrt(1.0 + np.einsum("ij,ij->j", T, T))
        if factors is not None:
            _gram_rows(factors, T, s, K, work)              # Theta S G S = Theta C
        else:
            np.multiply(apply((T * s).T).T, s, out=K)
        M = products.times_transpose(T, T)
        M[rows, rows] += 1.0
        R = products.spd_inverse(M)
        products.matmul(R, K, out=RK)
        f = products.inner(diag, s * s) - products.inner(RK, T)
        RPR = products.matmul(products.matmul(R, products.times_transpose(K, T)), R)
        RPR *= 2.0
        grad = products.matmul(RPR, T)                      # 2 R P R Theta
        np.multiply(RK, 2.0, out=RK)
        grad -= RK                                          # df/dTheta at fixed s: -2 R (K - P R Theta)
        np.multiply(T, RK, out=work)
        gs = 2.0 * s * diag - work.sum(axis=0) / s          # chain rule through s
        if norm == "l1":
            grad += gs
        else:
            np.multiply(T, gs / s, out=work)
            grad += work
        return f, grad.ravel()

    return fg


def p_identity(W: Any, *, norm: str = "l1", p: int | None = None, max_iter: int = 200, tol: float = 1e-5,
               rng: RngLike = None, gram: bool = False, reproducible: bool = False) -> Any:
    """A p-Identity strategy [MMHM18] optimised for workload ``W`` on its exact total error.

    See the module docstring for the strategy, the O(n p^2) error and its gradient, and the optimiser.

    Parameters
    ----------
    W : Workload, array or sparse matrix
        The workload (m x n), or its Gram matrix ``W^T W`` when ``gram=True``.  Range workloads
        (prefix, all ranges, given intervals) are never expanded: only ``W^T W V`` is computed.
    norm : {"l1", "l2"}, default "l1"
        Sensitivity the strategy is normalised for: "l1" (Laplace, epsilon-DP; ``Theta >= 0``) or
        "l2" (Gaussian; ``Theta`` of any sign).
    p : int, optional
        Number of extra queries, in ``[1, n]``; default :func:`default_p`.
    max_iter : int, default 200
        Most optimiser iterations, in ``[1, MAX_ITER]``.
    tol : float, default 1e-5
        Stop when the last :data:`WINDOW` iterations lowered the error by less than this fraction per
        iteration on average, > 0.  At the default the L2 optimisations of all ranges and prefixes at
        n = 1024 stop after 110 and 134 iterations, 1.9e-4 and 2.8e-4 above the error 200 iterations reach
        (in 55-65 % of the time); the L1 ones still gain over 5e-5 per iteration at 200.
    rng : None, int, SeedSequence or Generator
        Randomness of the starting point (see :func:`dpviz.rng.as_generator`).
    gram : bool, default False
        Whether ``W`` is already the Gram matrix.
    reproducible : bool, default False
        Whether to compute every product in a fixed order of operations with numpy's own loops instead of
        BLAS (:mod:`dpviz.strategies.reproducible_products`), so that a seeded optimum has the same bits on
        every x86-64 machine with the same numpy (an ARM build may fuse multiply-adds in those loops).  With
        BLAS the last bits depend on the kernel the machine loads, and the optimiser's steps amplify them:
        about 0.2 % of the error after 200 steps at n = 1024.  Costs about 2-3x the time at p = 64 (more at
        larger p).

    Returns
    -------
    numpy.ndarray or scipy.sparse.csr_array
        The strategy (n + p' rows, n columns; p' <= p, all-zero rows dropped), every column of norm 1 in
        ``norm``: a CSR array when at most 30 % of its entries are non-zero, else dense.

    Raises
    ------
    ValueError
        If ``norm`` is not "l1" or "l2", ``p`` is outside ``[1, n]``, ``max_iter`` outside ``[1, MAX_ITER]``,
        ``tol`` <= 0, ``W`` is not a finite matrix (square and symmetric when ``gram=True``), or the
        parameters would exceed :data:`~dpviz.validation.MAX_ELEMENTS` array elements.
    TypeError
        If ``p`` or ``max_iter`` is not an integer, ``tol`` is not a real number, ``gram`` or ``reproducible``
        is not a bool or ``rng`` is not a seed or Generator.

    References
    ----------
    McKenna, Miklau, Hay, Machanavajjhala, PVLDB 2018 ([MMHM18]).

    Examples
    --------
    >>> from dpviz import workloads, matrix_mechanism as mm
    >>> W = workloads.all_ranges(64)
    >>> A = p_identity(W, rng=0)
    >>> bool(np.isclose(abs(A).sum(axis=0).max(), 1.0))      # L1 sensitivity 1 by construction
    True
    >>> bool(mm.expected_error(W, A, 1.0) < mm.expected_error(W, np.eye(64), 1.0))
    True
    >>> B = p_identity(W, rng=0, reproducible=True)           # the same bits on every x86-64 machine
    >>> bool(mm.expected_error(W, B, 1.0) < mm.expected_error(W, np.eye(64), 1.0))
    True
    """
    gram = check_bool("gram", gram)
    products = FIXED_ORDER if check_bool("reproducible", reproducible) else BLAS
    check_choice("norm", norm, ("l1", "l2"))
    max_iter = check_int("max_iter", max_iter, minimum=1, maximum=MAX_ITER)
    tol = check_positive("tol", tol)
    gen = as_generator(rng)
    n_req = _domain_size(W, gram)
    p = default_p(n_req, norm) if p is None else check_int("p", p, minimum=1, maximum=n_req)
    check_elements(float(n_req) * p * 12, "p-Identity optimiser arrays", n=n_req, p=p)
    n, apply, raw = _gram_operator(W, gram, products)
    apply, diag = _unit_scaled(apply, raw)
    x0 = gen.random(n * p) * (6.0 / p)
    if norm == "l2":
        x0 *= gen.choice([-1.0, 1.0], size=n * p)
    factors = _semiseparable(W)
    if factors is not None:                                # scaled as _unit_scaled scales W^T W
        top = float(raw.max())
        factors = (factors[0] / top, factors[1], factors[2] / top, factors[3])
    fg = _objective(apply, diag, n, p, norm, factors=factors, products=products)
    with _one_blas_thread():
        best = _minimize(fg, x0, lower=0.0 if norm == "l1" else -THETA_MAX, upper=THETA_MAX, max_iter=max_iter,
                         tol=tol, window=WINDOW, products=products)
    X = best.x.reshape(p, n).T
    if not best.value < float(diag.sum()) * (1.0 - 1e-8):  # not better than the identity (Theta = 0), or NaN
        X = np.zeros((n, 0))
    X = X[:, np.any(X != 0.0, axis=0)]
    s = 1.0 + X.sum(axis=1) if norm == "l1" else np.sqrt(1.0 + (X * X).sum(axis=1))
    A = sp.vstack([sp.eye_array(n), sp.csr_array(X.T)], format="csr") @ sp.diags_array(1.0 / s)
    return sp.csr_array(A) if A.nnz <= 0.3 * A.shape[0] * A.shape[1] else A.toarray()
