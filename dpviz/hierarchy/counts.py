"""True node counts of a tree: sums of consecutive children, level by level."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpviz.hierarchy.tree import Tree, build_tree
from dpviz.validation import check_counts

__all__ = ["node_counts"]


def _child_sum(Z: np.ndarray, b: int, m_parent: int) -> np.ndarray:
    """Sum groups of ``b`` consecutive columns of Z (k, m); the last group may be short.

    For b <= 16 the groups are added as b strided column slices, 3-20x faster than
    ``reshape(k, m // b, b).sum(axis=2)`` (a reduction over a short inner axis);
    for larger b the reduction wins.
    """
    k, m = Z.shape
    full = m // b
    out = np.empty((k, m_parent))
    if b <= 16:
        head = out[:, :full]
        np.copyto(head, Z[:, 0: full * b: b])
        for j in range(1, b):
            head += Z[:, j: full * b: b]
    else:
        out[:, :full] = Z[:, : full * b].reshape(k, full, b).sum(axis=2)
    if full < m_parent:
        out[:, full] = Z[:, full * b:].sum(axis=1)
    return out


def _node_counts_2d(x: np.ndarray, tree: Tree) -> np.ndarray:
    """(k, n_nodes) true counts of every node for the (k, n) histograms ``x`` (leaves first)."""
    k = x.shape[0]
    out = np.empty((k, tree.n_nodes))
    out[:, : tree.n] = x
    level = x
    for l in range(1, tree.height + 1):
        level = _child_sum(level, tree.branching, tree.sizes[l])
        out[:, tree.offsets[l]: tree.offsets[l + 1]] = level
    return out


def node_counts(x: ArrayLike, branching: int) -> np.ndarray:
    """True counts of every node of the b-ary tree over the histogram ``x`` (leaves first).

    Parameters
    ----------
    x : array_like, shape (n,) or (k, n)
        One histogram, or k histograms over the same n bins.
    branching : int
        Branching factor b >= 2.

    Returns
    -------
    numpy.ndarray
        (n_nodes,) or (k, n_nodes) counts in the flat node order of :class:`~dpviz.hierarchy.Tree`.

    Raises
    ------
    TypeError
        If ``x`` is not numeric or ``branching`` is not an integer.
    ValueError
        If ``x`` is empty, not 1-D or 2-D, or holds a negative or non-finite count, or ``branching < 2``.

    Examples
    --------
    >>> node_counts([1, 2, 3, 4, 5], 2).astype(int).tolist()
    [1, 2, 3, 4, 5, 3, 7, 5, 10, 5, 15]
    """
    x = check_counts("x", x, ndim=(1, 2))
    tree = build_tree(x.shape[-1], branching)
    out = _node_counts_2d(np.atleast_2d(x), tree)
    return out[0] if x.ndim == 1 else out
