"""The previous O(n^2) exact error-by-width sums (H_b + CI and H_b), kept as the references the tests compare with.

Rows of the leaf covariance are obtained by running constrained inference on the noise covariance of one
leaf at a time (``Sigma e_a = CI(V_0 e_leaf(a))``), accumulated into the prefix covariance ``K``; then
``Var[i, i + w) = K[i+w, i+w] + K[i, i] - 2 K[i, i+w]``.  Independent of the tree-matrix algebra of
:mod:`dpviz.hierarchy.ci_covariance`: only the inference itself is shared.
"""

from __future__ import annotations

import numpy as np

from dpviz.hierarchy.budgets import _level_variances
from dpviz.hierarchy.inference import _ci_2d, _ci_plan
from dpviz.hierarchy.tree import Tree


def _ci_width_sums(tree: Tree, allocation: str) -> np.ndarray:
    """Sum over all ranges of width w = 1..n of the H_b+CI variance at epsilon = 1 (exact, O(n^2) time).

    Rows of the leaf covariance are ``Sigma e_a = CI(V_0 e_leaf(a))`` (the GLS
    estimator applied to the noise covariance of one leaf), processed in blocks;
    ``K[i, j] = Cov(prefix_i, prefix_j)`` is accumulated row by row and
    ``Var[i, i+w) = K[i+w, i+w] + K[i, i] - 2 K[i, i+w]``.
    """
    n = tree.n
    plan = _ci_plan(tree, allocation)
    V0 = _level_variances(tree, allocation)[0]
    diag = np.zeros(n + 1)
    cross = np.zeros(n + 1)          # cross[w] = sum_i K[i, i+w]
    carry = np.zeros(n)              # sum_{a < i} Sigma[a, :]
    block = max(1, min(n, 2_000_000 // tree.n_nodes))
    for a0 in range(0, n, block):
        a1 = min(n, a0 + block)
        Y = np.zeros((a1 - a0, tree.n_nodes))
        Y[np.arange(a1 - a0), np.arange(a0, a1)] = V0
        rows = _ci_2d(Y, tree, plan, nodes=False)       # Sigma[a0:a1, :]
        C = carry + np.cumsum(rows, axis=0)             # rows i = a0+1 .. a1 of sum_{a<i} Sigma[a, :]
        carry = C[-1].copy()
        K = np.zeros((a1 - a0, n + 1))
        np.cumsum(C, axis=1, out=K[:, 1:])              # K[i, j] for i = a0+1 .. a1
        for r in range(a1 - a0):
            i = a0 + 1 + r
            diag[i] = K[r, i]
            cross[1: n - i + 1] += K[r, i + 1:]
    cd = np.concatenate([[0.0], np.cumsum(diag)])
    w = np.arange(1, n + 1)
    # sum_{i=0}^{n-w} (diag[i] + diag[i+w]) - 2 cross[w]
    return (cd[n - w + 1] + (cd[n + 1] - cd[w])) - 2.0 * cross[1:]


def _hb_width_sums(tree: Tree, V: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """Sum over all ranges of width w of the H_b variance (epsilon = 1): every (node, width) pair counted."""
    n = tree.n
    top = int(tree.measured_levels[-1])
    out = np.zeros(widths.size)

    def contain(a: np.ndarray, c: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Number of ranges of width w (start in [0, n-w]) containing [a, c): (nodes, widths)."""
        return np.clip(np.minimum(a[:, None], n - w[None, :]) - np.maximum(0, c[:, None] - w[None, :]) + 1,
                       0, None).astype(float)

    chunk = max(1, 2_000_000 // max(tree.n, 1))
    for s0 in range(0, widths.size, chunk):
        w = widths[s0: s0 + chunk]
        for l in range(top + 1):
            a, c = tree.node_bounds(l)
            used = contain(a, c, w).sum(axis=0)
            if l < top:
                pa, pc = tree.node_bounds(l + 1)
                nchild = np.diff(np.minimum(np.arange(tree.sizes[l + 1] + 1) * tree.branching, tree.sizes[l]))
                used -= nchild @ contain(pa, pc, w)
            out[s0: s0 + chunk] += V[l] * used
    return out
