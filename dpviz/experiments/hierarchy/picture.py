"""A small tree drawn node by node: its levels, one query's minimal cover, one release before and after inference.

References
----------
- [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the Accuracy of
  Differentially Private Histograms Through Consistency." PVLDB 3(1), 2010.
- [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
  Differentially Private Histograms." PVLDB 6(14), 2013.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpviz import hierarchy as H
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_counts, check_int

__all__ = ["MAX_PICTURE_LEAVES", "TreePicture", "tree_picture"]

#: The largest number of leaves a tree picture draws (beyond it the node labels no longer fit).
MAX_PICTURE_LEAVES = 64


@dataclass(frozen=True)
class TreePicture:
    """Every node of one small tree release, in the flat node order of :class:`dpviz.hierarchy.Tree`.

    Parameters
    ----------
    tree : dpviz.hierarchy.Tree
        The tree (levels, branching factor, whether the root is measured).
    epsilon : float
        Total budget of the release.
    level_epsilons : numpy.ndarray
        (h+1,) budget of each level (0 for an unmeasured root).
    level : numpy.ndarray
        (n_nodes,) level of each node (0 = leaves).
    node_start, node_stop : numpy.ndarray
        (n_nodes,) leaf range ``[node_start, node_stop)`` of each node.
    truth, noisy, consistent : numpy.ndarray
        (n_nodes,) true count, noisy count (NaN at an unmeasured root) and the count after constrained inference.
    node_variance : numpy.ndarray
        (n_nodes,) variance of each node's Laplace noise (inf at an unmeasured root).
    start, stop : int
        The query ``[start, stop)`` whose minimal cover is marked.
    in_cover : numpy.ndarray
        (n_nodes,) whether each node belongs to the query's minimal cover.
    """

    tree: H.Tree
    epsilon: float
    level_epsilons: np.ndarray
    level: np.ndarray
    node_start: np.ndarray
    node_stop: np.ndarray
    truth: np.ndarray
    noisy: np.ndarray
    consistent: np.ndarray
    node_variance: np.ndarray
    start: int
    stop: int
    in_cover: np.ndarray

    @property
    def cover_answer(self) -> float:
        """The query answered from its cover's noisy counts (H_b without inference)."""
        return float(self.noisy[self.in_cover].sum())

    @property
    def consistent_answer(self) -> float:
        """The query answered after constrained inference (from the consistent cover nodes, = their leaves)."""
        return float(self.consistent[self.in_cover].sum())


def tree_picture(x: ArrayLike, branching: int, epsilon: float, query: tuple[int, int], *,
                 allocation: str = "uniform", measure_root: bool = True, rng: RngLike = None) -> TreePicture:
    """One release of a small tree, every node's true, noisy and consistent count, and one query's cover.

    The release is :func:`dpviz.hierarchy.measure` (epsilon-DP, add/remove-one neighbours) followed by
    :func:`dpviz.hierarchy.constrained_inference` (post-processing, no extra privacy cost) [HRMS10] [QYL13].

    Parameters
    ----------
    x : array_like
        True histogram, 1 to :data:`MAX_PICTURE_LEAVES` bins.
    branching : int
        Branching factor b >= 2.
    epsilon : float
        Total budget of the release, finite and > 0.
    query : (start, stop)
        The range ``[start, stop)`` whose minimal cover is marked, ``0 <= start < stop <= n``.
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        Budget split over the levels.
    measure_root : bool, default True
        Whether the root is measured.
    rng : None, int, SeedSequence or Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    TreePicture
        The tree's nodes with their counts and the cover of ``query``.

    Raises
    ------
    TypeError
        If ``x`` is not numeric or the query bounds are not integers.
    ValueError
        If ``x`` is not a 1-D array of non-negative counts or has more than :data:`MAX_PICTURE_LEAVES` bins,
        the query is not a non-empty range inside ``[0, n]``, or another argument is invalid
        (see :func:`dpviz.hierarchy.measure`).

    References
    ----------
    Hay et al., PVLDB 2010 ([HRMS10]); Qardaji, Yang, Li, PVLDB 2013 ([QYL13]).

    Examples
    --------
    >>> pic = tree_picture([3, 0, 0, 1, 5, 2, 0, 0], 2, 1.0, (1, 6), rng=0)
    >>> pic.tree.sizes, [int(k) for k in np.flatnonzero(pic.in_cover)]
    ((8, 4, 2, 1), [1, 9, 10])
    """
    x = check_counts("x", x)
    n = x.size
    if n > MAX_PICTURE_LEAVES:
        raise ValueError(f"x must have at most {MAX_PICTURE_LEAVES} bins for a tree picture, got {n}")
    if not isinstance(query, (tuple, list)) or len(query) != 2:
        raise ValueError(f"query must be a (start, stop) pair, got {query!r:.60}")
    start = check_int(f"query start (x has n={n} cells)", query[0], minimum=0, maximum=n - 1)
    stop = check_int(f"query stop (x has n={n} cells)", query[1], minimum=1, maximum=n)
    if stop <= start:
        raise ValueError(f"query must satisfy start < stop, got ({start}, {stop})")
    release = H.measure(x, branching, epsilon, allocation=allocation, measure_root=measure_root,
                        rng=as_generator(rng))
    tree = release.tree
    consistent = H.constrained_inference(release.noisy, n, tree.branching, allocation=release.allocation,
                                         measure_root=tree.measure_root, nodes=True)
    level = np.concatenate([np.full(size, lv) for lv, size in enumerate(tree.sizes)])
    bounds = [tree.node_bounds(lv) for lv in range(tree.height + 1)]
    node_start = np.concatenate([s for s, _ in bounds])
    node_stop = np.concatenate([e for _, e in bounds])
    in_cover = np.zeros(tree.n_nodes, dtype=bool)
    for lv, (lo, a, c, hi) in enumerate(H.minimal_cover(tree, [start], [stop])):
        first = tree.offsets[lv]
        in_cover[first + int(lo[0]): first + int(a[0])] = True
        in_cover[first + int(c[0]): first + int(hi[0])] = True
    return TreePicture(tree, release.epsilon, release.level_epsilons, level, node_start, node_stop, release.truth,
                       release.noisy, consistent, release.node_variance, start, stop, in_cover)
