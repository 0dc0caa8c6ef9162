"""Variance sums over all ranges of each width for H_b without inference: the counting kernel of the exact error.

For H_b without inference a range's variance is the sum of the level variances
of its minimal cover, so summing over ranges means counting (range, node)
pairs with the node inside the range and its parent not [QYL13]_.  (With
constrained inference the sums come from :mod:`dpviz.hierarchy.ci_covariance`.)
Everything is at epsilon = 1; :mod:`dpviz.hierarchy.accuracy` scales and averages.

References
----------
.. [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
   Differentially Private Histograms." PVLDB 6(14), 2013.
"""

from __future__ import annotations

import numpy as np

from dpviz.hierarchy.tree import Tree

__all__: list[str] = []


def _contain_sums(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """Per level: F_l = number of (range, node) pairs with the node inside the range, and G_l the same for
    nodes whose parent is inside (0 on the top measured level)."""
    n = tree.n
    top = int(tree.measured_levels[-1])
    F = np.zeros(top + 1)
    G = np.zeros(top + 1)
    for l in range(top + 1):
        a, c = tree.node_bounds(l)
        F[l] = ((a + 1.0) * (n - c + 1.0)).sum()
        if l < top:
            pa, pc = tree.node_bounds(l + 1)
            nchild = np.diff(np.minimum(np.arange(tree.sizes[l + 1] + 1) * tree.branching, tree.sizes[l]))
            G[l] = (nchild * (pa + 1.0) * (n - pc + 1.0)).sum()
    return F, G


def _contain_one(a: int, c: int, n: int, w: np.ndarray) -> np.ndarray:
    """Number of ranges of width ``w`` (starts ``0..n-w``) that contain ``[a, c)``, for each width."""
    return np.maximum(np.minimum(a, n - w) - np.maximum(0, c - w) + 1, 0).astype(float)


def _contain_complete(B: int, K: int, n: int, w: np.ndarray) -> np.ndarray:
    """``sum_{k<K}`` of the ranges of width ``w`` containing ``[k B, (k + 1) B)``, in O(1) per width.

    For ``w >= B`` every such count is ``min(k B, n - w) - max(0, (k + 1) B - w) + 1 > 0``: two clipped
    arithmetic series in ``k``; for ``w < B`` no range contains the node.
    """
    C = n - w                                               # sum_k min(k B, C)
    k1 = np.minimum(K, C // B + 1)
    low = B * k1 * (k1 - 1) / 2.0 + C * (K - k1).astype(float)
    D = w - B                                               # sum_k max(0, k B - D), k >= D // B + 1
    k0 = np.minimum(np.maximum(D // B + 1, 0), K)
    cnt = (K - k0).astype(float)
    high = B * (k0 + K - 1) * cnt / 2.0 - D * cnt
    return np.where(w >= B, low - high + K, 0.0)


def _hb_width_sums(tree: Tree, V: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """Sum over all ranges of width w of the H_b variance (epsilon = 1), for each w, in O(h) per width.

    Level ``l`` serves a range once per cover node: per node inside the range, minus ``nchild`` per parent
    inside it.  All nodes but the last of a level are complete, so their counts are arithmetic series
    (:func:`_contain_complete`); the last node is counted on its own.
    """
    n, b = tree.n, tree.branching
    top = int(tree.measured_levels[-1])
    w = np.asarray(widths, dtype=np.int64)

    def inside(level: int) -> tuple[np.ndarray, np.ndarray]:
        """(ranges containing a non-last node, ranges containing the last node) of ``level``, per width."""
        m, B = tree.sizes[level], b**level
        return _contain_complete(B, m - 1, n, w), _contain_one((m - 1) * B, n, n, w)

    out = np.zeros(w.size)
    for l in range(top + 1):
        body, last = inside(l)
        used = body + last
        if l < top:
            pbody, plast = inside(l + 1)
            used -= b * pbody + (tree.sizes[l] - (tree.sizes[l + 1] - 1) * b) * plast
        out += V[l] * used
    return out
