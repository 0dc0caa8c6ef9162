"""GreedyH [LHMW14]_: a tree of intervals whose node weights are chosen greedily for the workload.

References
----------
.. [LHMW14] C. Li, M. Hay, G. Miklau, Y. Wang. "A Data- and Workload-Aware
   Algorithm for Range Queries Under Differential Privacy." PVLDB 7(5), 2014
   (GreedyH, Section 4).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from dpviz import hierarchy
from dpviz.strategies.gram import _gram
from dpviz.validation import check_int

__all__ = ["greedy_h"]


#: The coarse grid of weights searched first, with its squares and those of 1 - p (the same for every call).
_GRID = np.linspace(0.0, 0.999, 1000)
_GRID_P2, _GRID_Q2 = _GRID**2, (1 - _GRID) ** 2
#: Offsets of the fine search around the best coarse weight.
_FINE = np.linspace(-1e-3, 1e-3, 201)


def _argmin_p(S: np.ndarray, q: np.ndarray, k: np.ndarray, d: float) -> np.ndarray:
    """Per node, the p in [0, 0.999] minimising ``(S - c_d(p) q) / (1-p)^2``.

    Here ``c_d(p) = d p^2 / ((1-p)^2 + d p^2 k)``.
    """
    def f(P2: np.ndarray, Q2: np.ndarray) -> np.ndarray:
        """The objective at weights with squares ``P2`` and ``(1-p)^2 = Q2`` (the grid's are computed once)."""
        dP2 = d * P2
        c = dP2 / (Q2 + dP2 * k[:, None])
        return (S[:, None] - c * q[:, None]) / Q2

    p0 = _GRID[np.argmin(f(_GRID_P2, _GRID_Q2), axis=1)]
    fine = np.clip(p0[:, None] + _FINE[None, :], 0.0, 0.999)
    return fine[np.arange(S.size), np.argmin(f(fine**2, (1 - fine) ** 2), axis=1)]


def _block_forms(G: np.ndarray, u: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``u_I^T G_II u_I`` for each block ``I = [lo, hi)`` of consecutive cells (all as long as the first but
    the last, which may be shorter).  Blocks of up to 64 cells are gathered into one (blocks, s, s) array (one
    call instead of one per block: the tree's lower levels have many small blocks); larger ones are few."""
    s = int(hi[0] - lo[0]) if lo.size else 0
    full = int(np.count_nonzero(hi - lo == s))
    if s > 64 or full < 2:
        return np.array([u[a:c] @ (G[a:c, a:c] @ u[a:c]) for a, c in zip(lo, hi, strict=True)])
    idx = lo[:full, None] + np.arange(s)[None, :]
    ub = u[idx]
    out = np.einsum("mi,mij,mj->m", ub, G[idx[:, :, None], idx[:, None, :]], ub, optimize=False)
    rest = [u[a:c] @ (G[a:c, a:c] @ u[a:c]) for a, c in zip(lo[full:], hi[full:], strict=True)]
    return np.concatenate([out, rest]) if rest else out


def greedy_h(W: Any, branching: int = 2, *, gram: bool = False) -> sp.csr_array:
    """GreedyH [LHMW14]: a b-ary tree of intervals whose node weights are chosen greedily for the workload.

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

    Raises
    ------
    TypeError
        If ``branching`` is not an integer.
    ValueError
        If ``branching`` < 2, or ``W`` is not a finite matrix (square and symmetric when ``gram=True``).

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
        q = _block_forms(G, u, lo, hi)
        # diagonal-block part of q (sum over children of u_c^T G_cc u_c), for the discount of cross terms
        cl, ch = tree.node_bounds(l - 1)
        q_child = np.add.reduceat(_block_forms(G, u, cl, ch), first[:-1])
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
    weights: list[np.ndarray] = [np.ones(0)] * (tree.height + 1)
    scale = np.ones(1)
    for l in range(tree.height, 0, -1):
        p = ps[l - 1]
        weights[l] = scale * p
        child_scale = scale * (1 - p)
        first = np.minimum(np.arange(tree.sizes[l] + 1) * b, tree.sizes[l - 1])
        scale = np.repeat(child_scale, np.diff(first))
    weights[0] = scale
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
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
