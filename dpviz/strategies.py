"""Strategies for the matrix mechanism: which queries to measure with noise.

Every function returns a strategy matrix ``A`` (p x n; scipy.sparse CSR for
the structured ones, dense for the eigen-design) to be used with
:mod:`dpviz.matrix_mechanism`.  Fixed strategies ignore the workload
(identity, hierarchies, wavelets); optimised ones adapt to it (GreedyH, the
eigen-design).  All optimisers here work on the Gram matrix ``W^T W``, which is
all the matrix mechanism's error depends on, so a weighted workload such as
``W_s diag(v)`` (Gram ``diag(v) W_s^T W_s diag(v)``) is handled like any other.

References
----------
.. [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
   Linear Counting Queries Under Differential Privacy." PODS 2010.
.. [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the Accuracy of
   Differentially Private Histograms Through Consistency." PVLDB 3(1), 2010.
.. [XWG10] X. Xiao, G. Wang, J. Gehrke. "Differential Privacy via Wavelet
   Transforms." ICDE 2010.
.. [LHMW14] C. Li, M. Hay, G. Miklau, Y. Wang. "A Data- and Workload-Aware
   Algorithm for Range Queries Under Differential Privacy." PVLDB 7(5), 2014
   (GreedyH, Section 4).
.. [LM12] C. Li, G. Miklau. "An Adaptive Mechanism for Accurate Query Answering
   under Differential Privacy." PVLDB 5(6), 2012 (eigen-design).
.. [Mik12] G. Miklau. DIMACS workshop slides, 2012 (the rescaled wavelet Y'').
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpviz import hierarchy
from dpviz import wavelet as _haar
from dpviz.validation import check_choice, check_int, check_matrix
from dpviz.workloads import Workload

__all__ = [
    "identity",
    "workload",
    "hierarchical",
    "wavelet",
    "rescaled_wavelet",
    "greedy_h",
    "eigen_design",
    "build",
    "STRATEGIES",
    "LABELS",
]

#: Names accepted by :func:`build`.
STRATEGIES = ("identity", "workload", "hierarchical_2", "hierarchical_4", "hierarchical_16", "wavelet",
              "rescaled_wavelet", "greedy_h", "eigen_design")
#: Display names.
LABELS = {
    "identity": "Identity",
    "workload": "Workload (A = W)",
    "hierarchical_2": "H_2",
    "hierarchical_4": "H_4",
    "hierarchical_16": "H_16",
    "wavelet": "Haar wavelet Y",
    "rescaled_wavelet": "Rescaled wavelet Y''",
    "greedy_h": "GreedyH",
    "eigen_design": "Eigen-design",
}


def identity(n: int) -> sp.csr_array:
    """The identity strategy: measure every cell once (``||A||_1 = 1``).

    Examples
    --------
    >>> identity(3).toarray().tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    n = check_int("n", n, minimum=1)
    return sp.identity(n, format="csr", dtype=float).tocsr()


def workload(W) -> np.ndarray | sp.csr_array | Workload:
    """The workload as its own strategy (``A = W``; never worse than the plain Laplace mechanism [LHRMM10]_).

    Returns the explicit matrix when it is small enough, otherwise the implicit
    :class:`~dpviz.workloads.Workload` itself (which the matrix mechanism accepts as ``A``).
    """
    if isinstance(W, Workload):
        try:
            return W.matrix(max_nnz=2_000_000)
        except ValueError:
            return W
    return check_matrix("W", W)


def hierarchical(n: int, branching: int = 2, *, measure_root: bool = True,
                 allocation: str = "uniform") -> sp.csr_array:
    """The b-ary hierarchical strategy H_b [HRMS10]_: one row per tree node (leaves first).

    Wraps :func:`dpviz.hierarchy.strategy_matrix` (same tree, same row order),
    so its least-squares error equals the constrained-inference error of
    :func:`dpviz.hierarchy.average_range_mse`.  ``||A||_1`` = number of levels (uniform).

    Examples
    --------
    >>> hierarchical(4, 2).shape
    (7, 4)
    """
    return hierarchy.strategy_matrix(n, branching, measure_root=measure_root, allocation=allocation)


def wavelet(n: int) -> sp.csr_array:
    """Privelet's Haar wavelet strategy Y [XWG10]_ (``||Y||_1 = 1 + log2 N``); wraps :func:`dpviz.wavelet.haar_matrix`."""
    return _haar.haar_matrix(n)


def rescaled_wavelet(n: int) -> sp.csr_array:
    """The slides' better-scaled wavelet Y'': same ``A^T A`` as the Haar matrix Y, smaller sensitivity [Mik12]_.

    The total and the coarsest difference rows of Y, ``1_L + 1_R`` and
    ``1_L - 1_R`` (L, R the two halves of the padded domain), have the same
    norm, so rotating them by 45 degrees into ``sqrt(2) 1_L`` and ``sqrt(2) 1_R``
    keeps ``A^T A`` -- hence the error of every query up to the sensitivity --
    while each cell now meets ``sqrt(2)`` instead of ``1 + 1`` in those rows:
    ``||Y''||_1 = log2 N - 1 + sqrt(2)`` instead of ``1 + log2 N`` (``1 + sqrt(2)``
    vs 3 at n = 4), so every error drops by the factor
    ``((log2 N - 1 + sqrt(2)) / (1 + log2 N))^2``.

    Examples
    --------
    >>> A = rescaled_wavelet(4).toarray()
    >>> round(float(abs(A).sum(axis=0).max()), 6)   # 1 + sqrt(2)
    2.414214
    """
    n = check_int("n", n, minimum=1)
    N = _haar.padded_size(n)
    Y = _haar.haar_matrix(N).tolil()
    if N >= 2:
        h = N // 2
        top = np.zeros((2, N))
        top[0, :h] = np.sqrt(2.0)
        top[1, h:] = np.sqrt(2.0)
        Y[0, :] = top[0]
        Y[1, :] = top[1]
    A = sp.csr_array(Y)[:, :n].tocsr()
    A.eliminate_zeros()
    keep = np.flatnonzero(np.diff(A.indptr) > 0)
    return A[keep].tocsr()


def _gram(W, gram: bool) -> np.ndarray:
    if isinstance(W, Workload):
        return W.gram()
    M = check_matrix("W", W)
    if gram:
        G = M.toarray() if sp.issparse(M) else M
        if G.shape[0] != G.shape[1]:
            raise ValueError(f"a Gram matrix W^T W must be square, got shape {G.shape}")
        if not np.allclose(G, G.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.abs(G).max()))):
            raise ValueError("a Gram matrix W^T W must be symmetric")
        return np.asarray(G, dtype=float)
    if sp.issparse(M):
        return np.asarray((M.T @ M).toarray())
    return M.T @ M


def _argmin_p(S: np.ndarray, q: np.ndarray, k: np.ndarray, d: float) -> np.ndarray:
    """Per node, the p in [0, 0.999] minimising ``(S - c_d(p) q) / (1-p)^2``, ``c_d(p) = d p^2 / ((1-p)^2 + d p^2 k)``."""
    def f(P):
        c = d * P**2 / ((1 - P) ** 2 + d * P**2 * k[:, None])
        return (S[:, None] - c * q[:, None]) / (1 - P) ** 2

    grid = np.linspace(0.0, 0.999, 1000)
    p0 = grid[np.argmin(f(np.broadcast_to(grid, (S.size, grid.size))), axis=1)]
    fine = np.clip(p0[:, None] + np.linspace(-1e-3, 1e-3, 201)[None, :], 0.0, 0.999)
    return fine[np.arange(S.size), np.argmin(f(fine), axis=1)]


def greedy_h(W, branching: int = 2, *, gram: bool = False) -> sp.csr_array:
    """GreedyH [LHMW14]_: a b-ary tree of intervals whose node weights are chosen greedily for the workload.

    **Strategy.**  The nodes of the b-ary tree of :func:`dpviz.hierarchy.build_tree`
    (leaves, then coarser levels), each an interval indicator times a weight;
    every leaf-to-root path has weights summing to 1, so ``||A||_1 = 1``.

    **Objective.**  The total squared error ``tr(W^T W (A^T A)^{-1})`` (times
    ``2/epsilon^2``).  It is minimised greedily bottom-up: for a node ``v`` over
    the interval ``I`` whose child subtrees are already fixed (each with
    unit path sums), the node gets weight ``p`` and its subtrees are scaled by
    ``1 - p``.  With ``M_c = (A_c^T A_c)^{-1}`` of the children, ``u = blockdiag(M_c) 1``,
    ``k = 1^T u`` and ``G_I`` the ``I x I`` block of ``W^T W``, Sherman-Morrison gives
    the subtree's exact local error
    ``f(p) = (sum_c err_c - c(p) u^T G_I u) / (1-p)^2``, ``c(p) = p^2 / ((1-p)^2 + p^2 k)``,
    and ``u`` is updated as ``u (1 - c k) / (1-p)^2``.  ``p`` is chosen on a
    grid of [0, 0.999] refined to 1e-6 by minimising a *surrogate* of ``f``
    in which the cross terms between sibling subtrees (``q - sum_c q_c``) and
    ``c(p)`` are discounted by the depth decay ``d = b^(-(h-l)/2)`` at level
    ``l`` of ``h`` (after Li et al.: nodes higher up will absorb part of those
    terms); the error carried upward is then the exact ``f`` of the chosen
    ``p``, so the root's local error is the exact total error.  Only ``u`` and
    the errors are carried, never ``M``.  ``p = 0`` everywhere is the identity,
    which the surrogate search includes, though the greedy choice is not
    guaranteed to beat Identity on every workload.

    **Cost.**  ``O(n^2 b / (b-1))`` time for the quadratic forms ``u^T G_I u``
    (one pass over the diagonal blocks of every level) plus ``O(n * 1200)`` for
    the grid, ``O(n^2)`` memory for the dense Gram matrix.

    Parameters
    ----------
    W : Workload, array or sparse matrix
        The workload ``W`` (m x n), or its Gram matrix ``W^T W`` (n x n) when
        ``gram=True`` -- e.g. ``diag(v) W_s^T W_s diag(v)`` for a weighted
        prefix-sum workload ``W_s diag(v)``.
    branching : int, default 2
        b >= 2.
    gram : bool, default False
        Whether ``W`` is already the Gram matrix.

    Returns
    -------
    scipy.sparse.csr_array
        Rows = nodes with non-zero weight, leaves first.

    Examples
    --------
    >>> from dpviz import workloads
    >>> A = greedy_h(workloads.all_ranges(8))
    >>> round(float(abs(A).sum(axis=0).max()), 12)
    1.0
    """
    G = _gram(W, gram)
    b = check_int("branching", branching, minimum=2)
    n = G.shape[0]
    tree = hierarchy.build_tree(n, b)
    u = np.ones(n)
    err = np.diag(G).astype(float).copy()
    kk = np.ones(n)
    ps: list[np.ndarray] = []
    for l in range(1, tree.height + 1):
        m_child = tree.sizes[l - 1]
        first = np.minimum(np.arange(tree.sizes[l] + 1) * b, m_child)
        nchild = np.diff(first)
        S = np.add.reduceat(err, first[:-1])
        kc = np.add.reduceat(kk, first[:-1])
        lo, hi = tree.node_bounds(l)
        Gu = [G[a:c, a:c] @ u[a:c] for a, c in zip(lo, hi)]
        q = np.array([u[a:c] @ g for a, c, g in zip(lo, hi, Gu)])
        # diagonal-block part of q (sum over children of u_c^T G_cc u_c), for the discount of cross terms
        cl, ch = tree.node_bounds(l - 1)
        q_child = np.add.reduceat(np.array([u[a:c] @ G[a:c, a:c] @ u[a:c] for a, c in zip(cl, ch)]), first[:-1])
        d = float(b) ** (-(tree.height - l) / 2.0)
        p = _argmin_p(S, q_child + d * (q - q_child), kc, d)
        single = nchild == 1
        p[single] = 0.0
        c = p**2 / ((1 - p) ** 2 + p**2 * kc)
        err = (S - c * q) / (1 - p) ** 2  # exact local error of the chosen weights
        factor = (1 - c * kc) / (1 - p) ** 2
        u *= np.repeat(factor, hi - lo)
        kk = kc * factor
        ps.append(p)
    # weights top-down: node weight = p * prod(1 - p_ancestors); leaves take what is left
    weights = [None] * (tree.height + 1)
    scale = np.ones(1)
    for l in range(tree.height, 0, -1):
        p = ps[l - 1]
        weights[l] = scale * p
        child_scale = scale * (1 - p)
        first = np.minimum(np.arange(tree.sizes[l] + 1) * b, tree.sizes[l - 1])
        scale = np.repeat(child_scale, np.diff(first))
    weights[0] = scale
    rows, cols, vals = [], [], []
    r = 0
    cells = np.arange(n)
    for l in range(tree.height + 1):
        w = weights[l]
        node = cells // tree.block(l)
        keep_nodes = np.flatnonzero(w > 0)
        new_index = -np.ones(w.size, dtype=np.int64)
        new_index[keep_nodes] = r + np.arange(keep_nodes.size)
        on = w[node] > 0
        rows.append(new_index[node[on]])
        cols.append(cells[on])
        vals.append(w[node[on]])
        r += keep_nodes.size
    A = sp.coo_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r, n))
    return A.tocsr()


def eigen_design(W, *, gram: bool = False, norm: str = "l2", max_iter: int = 2000,
                 tol: float = 1e-3) -> np.ndarray:
    """Eigen-design [LM12]_: measure the eigenvectors of ``W^T W``, each scaled optimally.

    **Strategy.**  ``A = diag(lambda) Q^T`` where ``W^T W = Q diag(sigma) Q^T``.
    Then ``tr(W^T W (A^T A)^{-1}) = sum_i sigma_i / lambda_i^2``.

    **Objective.**  Minimise ``||A||^2 sum_i sigma_i / lambda_i^2`` over
    ``lambda >= 0`` with ``||A||`` the L2 sensitivity ``max_j (sum_i lambda_i^2 Q_ji^2)^(1/2)``
    (``norm="l2"``, the Gaussian mechanism, as in [LM12]_) or the L1
    sensitivity ``max_j sum_i lambda_i |Q_ji|`` (``norm="l1"``, Laplace).  Both
    are convex; they are solved through their concave duals over the
    probability simplex ``nu`` on the cells: ``max_nu (sum_i sqrt(sigma_i rho_i))^2``
    with ``rho = (Q o Q)^T nu`` (L2), and ``max_nu (sum_i (sigma_i rho_i^2)^(1/3))^3``
    with ``rho = |Q|^T nu`` (L1), by over-relaxed multiplicative (fixed-point) updates
    ``nu <- nu * grad^kappa`` (kappa = 8, halved when the dual value drops); each dual point gives the primal scaling ``lambda_i^2 = sqrt(sigma_i / rho_i)``
    (L2) or ``lambda_i = (sigma_i / rho_i)^(1/3)`` (L1) and iterations stop
    when the primal error is within ``1 + tol`` of the dual value (a certified
    optimality gap).  At uniform ``nu`` the dual value is the SVD lower bound
    ``(1/n)(sum sqrt(sigma_i))^2`` (L2).

    **Cost.**  One dense eigendecomposition ``O(n^3)`` (``O(n^2)`` for the prefix
    and all-range workloads, whose inverse Gram matrices are tridiagonal) plus ``O(n rank(W))`` per
    iteration; ``O(n^2)`` memory.  Rows for zero eigenvalues are dropped (the
    strategy then answers exactly the row space of ``W``).

    Parameters
    ----------
    W : Workload, array or sparse matrix (or its Gram matrix with ``gram=True``)
    gram : bool, default False
    norm : {"l2", "l1"}, default "l2"
        Sensitivity the scaling is optimised for (Laplace or Gaussian mechanism).
    max_iter : int
    tol : float
        Relative optimality gap at which to stop.

    Returns
    -------
    numpy.ndarray
        Dense (rank(W) x n) strategy.

    Examples
    --------
    >>> from dpviz import workloads
    >>> eigen_design(workloads.identity(3)).shape
    (3, 3)
    """
    check_choice("norm", norm, ("l1", "l2"))
    max_iter = check_int("max_iter", max_iter, minimum=1)
    if not (isinstance(tol, (int, float)) and tol > 0):
        raise ValueError(f"tol must be a number > 0, got {tol!r}")
    if isinstance(W, Workload):
        sigma, Q = W.eigh()   # O(n^2) for prefixes and all ranges (tridiagonal inverse Gram)
    else:
        sigma, Q = np.linalg.eigh(_gram(W, gram))
    keep = sigma > 1e-12 * max(float(sigma.max()), 0.0)
    if not keep.any():
        raise ValueError("W is all zeros: nothing to design a strategy for")
    sigma, Q = sigma[keep], Q[:, keep]
    n = Q.shape[0]
    C = Q * Q if norm == "l2" else np.abs(Q)
    deg = 2.0 if norm == "l2" else 3.0

    def primal(rho):
        if norm == "l2":
            lam = np.sqrt(np.sqrt(sigma / rho))
            sens2 = float((C @ lam**2).max())
        else:
            lam = np.cbrt(sigma / rho)
            sens2 = float((C @ lam).max()) ** 2
        return sens2 * float(np.sum(sigma / lam**2)), lam

    nu = np.full(n, 1.0 / n)
    best, best_lam = np.inf, None
    dual = 0.0
    kappa = 8.0  # over-relaxed multiplicative step nu <- nu * grad^kappa; halved whenever the dual value drops
    for _ in range(max_iter):
        rho = np.maximum(C.T @ nu, 1e-300)
        if norm == "l2":
            H = float(np.sum(np.sqrt(sigma * rho)))
            grad = C @ (0.5 * np.sqrt(sigma / rho))
        else:
            H = float(np.sum(np.cbrt(sigma * rho**2)))
            grad = C @ ((2.0 / 3.0) * np.cbrt(sigma / rho))
        if H**deg < dual:
            kappa = max(1.0, kappa / 2)
        dual = max(dual, H**deg)
        val, lam = primal(rho)
        if val < best:
            best, best_lam = val, lam
        if best <= dual * (1 + tol):
            break
        nu = nu * (grad / grad.max()) ** kappa
        nu /= nu.sum()
    A = best_lam[:, None] * Q.T
    return A / (np.abs(A).sum(axis=0).max() if norm == "l1" else np.sqrt((A * A).sum(axis=0).max()))


def build(name: str, W: Workload, *, mechanism: str = "laplace",
          cache: dict | None = None) -> np.ndarray | sp.csr_array | Workload:
    """Strategy by menu name (one of :data:`STRATEGIES`) for workload ``W``.

    ``mechanism`` ("laplace" or "gaussian") selects the sensitivity the
    eigen-design is optimised for (L1 or L2).  Results are stored in ``cache``
    (a dict keyed by ``(name, W.key, mechanism)``: the workload's queries, not its name) when given, so an
    optimiser runs once per workload and domain size.
    """
    check_choice("strategy", name, STRATEGIES)
    check_choice("mechanism", mechanism, ("laplace", "gaussian"))
    if not isinstance(W, Workload):
        raise TypeError(f"W must be a dpviz.workloads.Workload, got {type(W).__name__}")
    key = (name, W.key, mechanism)
    if cache is not None and key in cache:
        return cache[key]
    n = W.n
    if name == "identity":
        A = identity(n)
    elif name == "workload":
        A = workload(W)
    elif name.startswith("hierarchical_"):
        A = hierarchical(n, int(name.split("_")[1]))
    elif name == "wavelet":
        A = wavelet(n)
    elif name == "rescaled_wavelet":
        A = rescaled_wavelet(n)
    elif name == "greedy_h":
        A = greedy_h(W)
    else:
        A = eigen_design(W, norm="l1" if mechanism == "laplace" else "l2")
    if cache is not None:
        cache[key] = A
    return A
