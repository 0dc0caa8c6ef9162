"""Constrained inference: the least-squares leaves (and nodes) consistent with all noisy node counts.

A bottom-up inverse-variance weighted average followed by a top-down
mean-consistency pass [HRMS10]_, generalised to any branching factor, any
``n`` (short last nodes) and per-level budgets [QYL13]_.  With per-node
variances the top-down pass splits the parent's discrepancy among the children
in proportion to their from-below variances, which makes the result the
generalised least-squares estimate of the leaves from all noisy nodes.

References
----------
.. [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the Accuracy of
   Differentially Private Histograms Through Consistency." PVLDB 3(1), 2010.
.. [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
   Differentially Private Histograms." PVLDB 6(14), 2013.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from dpviz.hierarchy.budgets import ALLOCATIONS, _level_variances
from dpviz.hierarchy.counts import _child_sum, _spread_add
from dpviz.hierarchy.tree import Tree, build_tree
from dpviz.validation import MAX_MAGNITUDE, check_array, check_bool, check_choice

__all__ = ["constrained_inference"]


@dataclass(frozen=True)
class _CIPlan:
    """Per-node constants of constrained inference (independent of the data and of epsilon)."""

    own: tuple[np.ndarray, ...]     # weight on a node's own measurement in the bottom-up average
    share: tuple[np.ndarray, ...]   # child's share of its parent's discrepancy, Z_child / sum Z_siblings
    below: tuple[np.ndarray, ...]   # from-below variance Z of each node (epsilon = 1)
    #: (cut, c): share[l][:cut] all equal c, cut a multiple of b.  Nodes of a level whose subtrees are
    #: complete have the same variances, so this holds for all but the groups at the ragged right edge,
    #: and the top-down pass scales those parents before repeating them
    common: tuple[tuple[int, float], ...] = ()
    measured: tuple[bool, ...] = ()   # whether level l was measured (own[l] is not all 0)


@lru_cache(maxsize=128)
def _ci_plan(tree: Tree, allocation: str) -> _CIPlan:
    """The (cached) per-node constants of constrained inference for a tree and an allocation."""
    V = _level_variances(tree, allocation)
    b = tree.branching
    below = [np.full(tree.n, V[0])]
    own = [np.ones(tree.n)]
    share: list[np.ndarray] = []
    for l in range(1, tree.height + 1):
        S = _child_sum(below[-1][None, :], b, tree.sizes[l])[0]
        if np.isfinite(V[l]):
            own.append(S / (V[l] + S))
            below.append(V[l] * S / (V[l] + S))
        else:
            own.append(np.zeros(tree.sizes[l]))
            below.append(S)
        share.append(below[l - 1] / np.repeat(S, b)[: tree.sizes[l - 1]])
    share.append(np.zeros(1))
    common = []
    for l in range(tree.height):
        differs = np.flatnonzero(share[l] != share[l][0])
        cut = (int(differs[0]) if differs.size else tree.sizes[l]) // b * b
        common.append((cut, float(share[l][0])))
    return _CIPlan(tuple(own), tuple(share), tuple(below), tuple(common), tuple(bool(np.any(a)) for a in own))


#: Trials are processed in blocks of about this many node values, so the intermediate arrays of one
#: block stay in cache and are reused by the allocator instead of being page-faulted afresh.
_BLOCK_VALUES = 1 << 19


def _ci_block(Y: np.ndarray, tree: Tree, plan: _CIPlan, out: np.ndarray, nodes: bool) -> None:
    """Constrained inference of the (k, n_nodes) block ``Y`` into ``out``: (k, n) leaves or (k, n_nodes) nodes."""
    b, h = tree.branching, tree.height
    off = tree.offsets
    Z = [Y[:, : tree.n]]
    S = [Y[:, :0]]  # S[l] = sums of the children of level l (level 0 has none: a placeholder)
    for l in range(1, h + 1):
        s = _child_sum(Z[-1], b, tree.sizes[l])
        S.append(s)
        if plan.measured[l]:
            z = Y[:, off[l]: off[l + 1]] - s
            z *= plan.own[l]
            z += s   # s + a (y - s), as written in the docstring of constrained_inference
            Z.append(z)
        else:
            Z.append(s)
    if h == 0:   # n = 1: the leaf is the root
        out[:] = Z[0]
        return
    F = Z[h]
    if nodes:
        out[:, off[h]: off[h + 1]] = F
    for l in range(h - 1, -1, -1):
        if nodes:   # F is stored in out: the parents' discrepancy goes to a new array
            gap = F - S[l + 1]
        else:       # in place: F is not read again (for an unmeasured root F is S[h] itself: 0 either way)
            gap = F
            gap -= S[l + 1]
        F = _spread_add(Z[l], plan.share[l], gap, b, out=out[:, off[l]: off[l + 1]] if nodes or l == 0 else None,
                        common=plan.common[l])


def _ci_2d(Y: np.ndarray, tree: Tree, plan: _CIPlan, nodes: bool) -> np.ndarray:
    """Constrained inference on (k, n_nodes) noisy values; returns (k, n) leaves or (k, n_nodes) nodes."""
    k = Y.shape[0]
    out = np.empty((k, tree.n_nodes if nodes else tree.n))
    blocks = max(1, -(-k * tree.n_nodes // _BLOCK_VALUES))
    rows = max(1, -(-k // blocks))
    for r in range(0, k, rows):
        _ci_block(Y[r: r + rows], tree, plan, out[r: r + rows], nodes)
    return out


def constrained_inference(noisy: ArrayLike, n: int, branching: int, *, allocation: str = "uniform",
                          measure_root: bool = True, nodes: bool = False) -> np.ndarray:
    """Constrained inference [HRMS10] generalised to any b, any n and per-level budgets [QYL13].

    Bottom-up (weighted averaging): a node's from-below estimate is
    ``z_v = (Z_S y_v + V_l S_v) / (V_l + Z_S)`` where ``S_v`` is the sum of its
    children's ``z``, ``Z_S`` the variance of that sum and ``V_l`` the node's
    noise variance; its variance is ``V_l Z_S / (V_l + Z_S)`` (an unmeasured
    root just takes ``S_v``).  For uniform budgets and complete trees this is
    Qardaji's ``z = (b^i - b^(i-1))/(b^i - 1) n[v] + (b^(i-1) - 1)/(b^i - 1) sum z``.
    Top-down (mean consistency): ``x_u = z_u + (Z_u / sum_siblings Z) (x_parent - sum_siblings z)``;
    with equal sibling variances this is Qardaji's equal split ``1/b``.
    The result is the generalised least-squares estimate of the leaves from
    all noisy nodes (weights = inverse variances).  O(n) per release, vectorised.

    Parameters
    ----------
    noisy : array_like, shape (n_nodes,) or (k, n_nodes)
        Noisy node counts in the flat order of :class:`~dpviz.hierarchy.Tree`
        (leaves first); the value of an unmeasured root is ignored.
    n : int
        Number of leaves the release was made over.
    branching : int
        Branching factor b >= 2 of the release.
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        Budget split of the release (only the ratios of the level variances
        matter, so epsilon is not needed).
    measure_root : bool, default True
        Whether the release measured the root.
    nodes : bool, default False
        Return the consistent estimates of all nodes instead of the leaves.

    Returns
    -------
    numpy.ndarray
        (n,) / (k, n) leaf estimates, or (n_nodes,) / (k, n_nodes) node estimates.

    Raises
    ------
    TypeError
        If ``noisy`` is not numeric, ``n``/``branching`` are not integers or
        ``measure_root``/``nodes`` are not bools.
    ValueError
        If ``noisy`` is not 1-D or 2-D with ``n_nodes`` entries on its last axis,
        is not finite at a measured node, or ``n``, ``branching`` or ``allocation``
        is invalid.

    References
    ----------
    Hay et al., PVLDB 2010 ([HRMS10]); Qardaji, Yang, Li, PVLDB 2013 ([QYL13]).

    Examples
    --------
    >>> from dpviz.hierarchy import measure
    >>> r = measure([3, 1, 4, 1], 2, 1.0, rng=0)
    >>> est = constrained_inference(r.noisy, 4, 2, nodes=True)
    >>> bool(np.isclose(est[:4].sum(), est[-1]))
    True
    """
    tree = build_tree(n, branching, measure_root=measure_root)
    allocation = check_choice("allocation", allocation, ALLOCATIONS)
    nodes = check_bool("nodes", nodes)
    Y = check_array("noisy", noisy, ndim=(1, 2), finite=False, max_abs=MAX_MAGNITUDE)
    if Y.shape[-1] != tree.n_nodes:
        raise ValueError(f"noisy must have n_nodes={tree.n_nodes} entries on its last axis for n={n}, "
                         f"branching={branching}, got shape {Y.shape}")
    last = tree.offsets[int(tree.measured_levels[-1]) + 1]
    if not np.all(np.isfinite(Y[..., :last])):
        raise ValueError("noisy must be finite at every measured node")
    out = _ci_2d(np.atleast_2d(Y), tree, _ci_plan(tree, allocation), nodes)
    return out[0] if Y.ndim == 1 else out
