"""True node counts of a tree: sums of consecutive children, level by level."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpviz.hierarchy.tree import Tree, build_tree
from dpviz.validation import check_counts

__all__ = ["node_counts"]

#: Largest odd group whose child sums run as strided column slices; above it a reduction over a
#: contiguous inner axis is faster.
_STRIDED_MAX = 16


def _child_sum(Z: np.ndarray, b: int, m_parent: int) -> np.ndarray:
    """Sum groups of ``b`` consecutive columns of Z (k, m); the last group may be short.

    Never a reduction over a short inner axis (``reshape(k, m // b, b).sum(axis=2)`` is 3-20x slower for
    small b): while the group size is even, neighbouring columns are added pairwise (``Z[:, 0::2] +
    Z[:, 1::2]``, halving the array, so a power-of-two b costs about two passes over Z); an odd rest r
    <= 16 is added as r strided column slices, a larger one by the reduction, which is fast there.
    """
    k, m = Z.shape
    full = m // b
    out = np.empty((k, m_parent))
    head = out[:, :full]
    W, r = Z[:, : full * b], b
    while r % 2 == 0:
        r //= 2
        W = np.add(W[:, 0::2], W[:, 1::2], out=head if r == 1 else None)
    if r > _STRIDED_MAX:
        np.sum(W.reshape(k, full, r), axis=2, out=head)
    elif r > 1:
        np.add(W[:, 0::r], W[:, 1::r], out=head)
        for j in range(2, r):
            head += W[:, j::r]
    if full < m_parent:
        out[:, full] = Z[:, full * b:].sum(axis=1)
    return out


def _spread_add(base: np.ndarray, weights: np.ndarray, gap: np.ndarray, b: int,
                out: np.ndarray | None = None, common: tuple[int, float] = (0, 0.0)) -> np.ndarray:
    """``base + weights * repeat(gap, b)[:, :m]``: each parent's value shared out to its ``b`` children.

    ``base`` is (k, m), ``weights`` (m,) and ``gap`` (k, m_parent) with ``m_parent = ceil(m / b)``; the
    last group may be short.  The transpose of :func:`_child_sum`, in contiguous passes (repeat, scale,
    add; for b = 2 two strided half-writes instead of the repeat).  ``common = (cut, c)`` says that
    ``weights[:cut]`` all equal ``c`` (``cut`` a multiple of b): those parents are scaled before they
    are repeated, which saves a pass and gives the same numbers.  Written into ``out`` (k, m) if given
    (it may be a column slice of a larger array), else into a new array.
    """
    k, m = base.shape
    if out is None:
        out = np.empty((k, m))
    cut, c = common
    if cut:
        g = gap[:, : cut // b] * c
        if b == 2:
            np.add(base[:, 0: cut: 2], g, out=out[:, 0: cut: 2])
            np.add(base[:, 1: cut: 2], g, out=out[:, 1: cut: 2])
        else:
            np.add(base[:, :cut], np.repeat(g, b, axis=1), out=out[:, :cut])
    if cut < m:
        rest, w, g = out[:, cut:], weights[cut:], gap[:, cut // b:]
        if b == 2:
            full = (m - cut) // 2
            np.multiply(g[:, :full], w[0: 2 * full: 2], out=rest[:, 0: 2 * full: 2])
            np.multiply(g[:, :full], w[1: 2 * full: 2], out=rest[:, 1: 2 * full: 2])
            if 2 * full < m - cut:
                np.multiply(g[:, full], w[-1], out=rest[:, -1])
        else:
            np.multiply(np.repeat(g, b, axis=1)[:, : m - cut], w, out=rest)
        rest += base[:, cut:]
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
