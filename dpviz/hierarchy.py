"""Hierarchical histograms: b-ary trees of noisy range counts and constrained inference.

A histogram ``x`` of ``n`` leaf bins is covered by a tree with branching
factor ``b``.  Level 0 holds the leaves; level ``l`` holds the nodes that
each cover ``b**l`` consecutive leaves; the root is level ``h`` where ``h`` is
the smallest integer with ``b**h >= n`` (``h = 0`` when ``n = 1``).

**Uneven trees.**  When ``n`` is not a power of ``b`` the leaves are *not*
padded with fake bins: level ``l`` has ``ceil(n / b**l)`` nodes and node
``k`` of level ``l`` covers leaves ``[k b**l, min((k+1) b**l, n))``, so only
the last node of a level may be short (and may have fewer than ``b``
children).  Every leaf still lies in exactly one node per level, so the L1
sensitivity of measuring ``L`` levels with unit weights is exactly ``L``
whatever ``n`` is, and the privacy accounting is exact.

**Measurement.**  Every node of a measured level gets its count plus
independent Laplace noise of scale ``1 / eps_l`` where ``eps_l`` is that
level's share of the budget; nodes of one level cover disjoint leaves
(parallel composition) and the levels compose sequentially, so the release is
``sum_l eps_l = epsilon``-DP.  ``measure_root=True`` measures every level
(Hay et al.); ``measure_root=False`` skips the root, as in Qardaji et al.
(there ``h = log_b N`` levels below the root each get ``epsilon / h``).
The leaf level is always measured, so ``n = 1`` measures the single leaf.

**Allocations** (``eps_l = epsilon * w_l / sum w``, over measured levels):

``"uniform"``
    ``w_l = 1``.
``"geometric"``
    ``w_l = b**(-l/3)``: each level gets ``b**(1/3)`` times the budget of the
    level above it, leaves the most (the cube-root rule of Cormode et al.,
    who use the ratio ``2**(1/3)`` for quadtrees).
``"optimal"``
    ``w_l = M_l**(1/3)`` with ``M_l`` the number of times level-``l`` nodes
    are used when every range query is answered from its minimal node cover.
    Minimising ``sum_l M_l * 2 / eps_l**2`` subject to ``sum_l eps_l = epsilon``
    (Lagrange) gives exactly this, so it is the variance-optimal allocation for
    ``H_b`` *without* constrained inference (with inference it is close to, but
    not exactly, optimal).

**Estimators.**  ``Flat`` adds ``Lap(1/epsilon)`` to each leaf; ``H_b`` answers
a range from the noisy counts of its minimal node cover; ``H_b + CI``
(constrained inference, Hay et al. 2010, generalised by Qardaji et al.) runs a
bottom-up inverse-variance weighted average and a top-down mean-consistency
pass.  With per-node variances the top-down pass splits the parent's
discrepancy among the children in proportion to their from-below variances,
which makes the result the generalised least-squares estimate of the leaves
from all noisy nodes, for any ``n``, ``b`` and allocation.

References
----------
.. [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
   Differentially Private Histograms." PVLDB 6(14), 2013.
.. [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the Accuracy of
   Differentially Private Histograms Through Consistency." PVLDB 3(1), 2010.
.. [CPSSY12] G. Cormode, C. Procopiuc, D. Srivastava, E. Shen, T. Yu.
   "Differentially Private Spatial Decompositions." ICDE 2012.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import scipy.optimize
import scipy.sparse as sp

from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_array,
    check_choice,
    check_counts,
    check_epsilon,
    check_int,
    check_trials,
)

__all__ = ["ALLOCATIONS", "Tree", "build_tree", "level_usage", "level_epsilons", "strategy_matrix"]

ALLOCATIONS = ("uniform", "geometric", "optimal")


# --------------------------------------------------------------------------- the tree
@dataclass(frozen=True)
class Tree:
    """Shape of a b-ary tree over ``n`` leaves (see the module docstring).

    Attributes
    ----------
    n : number of leaves
    branching : branching factor b >= 2
    height : h, the root's level (``b**h >= n > b**(h-1)``; 0 when n = 1)
    sizes : (h+1,) number of nodes per level, ``ceil(n / b**l)``, leaves first
    offsets : (h+2,) start of each level in the flat node order (leaves first,
        left to right within a level)
    measure_root : whether the root level is measured
    """

    n: int
    branching: int
    height: int
    sizes: tuple[int, ...]
    offsets: tuple[int, ...]
    measure_root: bool

    @property
    def n_nodes(self) -> int:
        """Total number of nodes (measured or not)."""
        return self.offsets[-1]

    @property
    def measured_levels(self) -> np.ndarray:
        """Indices of the measured levels (the leaf level always is)."""
        top = self.height if (self.measure_root or self.height == 0) else self.height - 1
        return np.arange(top + 1)

    @property
    def n_measured_levels(self) -> int:
        """Number of measured levels = L1 sensitivity of the unit-weight strategy."""
        return int(self.measured_levels.size)

    @property
    def n_measured_nodes(self) -> int:
        """Number of measured nodes (rows of :func:`strategy_matrix`)."""
        return int(sum(self.sizes[l] for l in self.measured_levels))

    def block(self, level: int) -> int:
        """Number of leaves ``b**level`` under a full node of ``level``."""
        return self.branching ** level

    def node_bounds(self, level: int) -> tuple[np.ndarray, np.ndarray]:
        """Leaf ranges ``[start, stop)`` of the nodes of ``level``."""
        s = self.block(level)
        start = np.arange(self.sizes[level], dtype=np.int64) * s
        return start, np.minimum(start + s, self.n)


@lru_cache(maxsize=256)
def _tree(n: int, b: int, measure_root: bool) -> Tree:
    sizes = [n]
    while sizes[-1] > 1:
        sizes.append(-(-sizes[-1] // b))
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    return Tree(n, b, len(sizes) - 1, tuple(sizes), tuple(int(o) for o in offsets), bool(measure_root))


def build_tree(n: int, branching: int, *, measure_root: bool = True) -> Tree:
    """Describe the b-ary tree over ``n`` leaves (uneven last nodes when n is not a power of b).

    Parameters
    ----------
    n : int
        Number of leaf bins, >= 1.
    branching : int
        Branching factor b, >= 2.
    measure_root : bool, default True
        Whether the root is measured (Hay et al.) or not (Qardaji et al.).

    Returns
    -------
    Tree

    Examples
    --------
    >>> t = build_tree(10, 3)
    >>> t.height, t.sizes, t.n_measured_levels
    (3, (10, 4, 2, 1), 4)
    """
    n = check_int("n", n, minimum=1)
    b = check_int("branching", branching, minimum=2)
    if not isinstance(measure_root, (bool, np.bool_)):
        raise TypeError(f"measure_root must be a bool, got {measure_root!r}")
    return _tree(n, b, bool(measure_root))


# --------------------------------------------------------------------------- budgets
def level_usage(tree: Tree) -> np.ndarray:
    """Exact number of uses ``M_l`` of each level's nodes over all ``n(n+1)/2`` range queries.

    A node ``v = [a, c)`` of a measured level is in the minimal node cover of the
    range ``[i, j)`` iff ``v`` lies inside it and its parent does not (or ``v``
    is on the top measured level).  The number of ranges containing ``v`` is
    ``(a + 1)(n - c + 1)``, hence ``M_l = sum_v (a_v+1)(n-c_v+1) - (a_p+1)(n-c_p+1)``
    ([QYL13]_, proof of Proposition 1, for any n).

    Returns
    -------
    numpy.ndarray
        (h+1,) float counts per level (0 for the unmeasured root).
    """
    n = tree.n
    top = int(tree.measured_levels[-1])
    out = np.zeros(tree.height + 1)
    for l in range(top + 1):
        a, c = tree.node_bounds(l)
        contain = (a + 1.0) * (n - c + 1.0)
        total = contain.sum()
        if l < top:
            pa, pc = tree.node_bounds(l + 1)
            nchild = np.diff(np.minimum(np.arange(tree.sizes[l + 1] + 1) * tree.branching, tree.sizes[l]))
            total -= (nchild * (pa + 1.0) * (n - pc + 1.0)).sum()
        out[l] = total
    return out


def _weights(tree: Tree, allocation: str) -> np.ndarray:
    """Relative budget weights of the levels (0 for unmeasured ones), summing to 1."""
    w = np.zeros(tree.height + 1)
    lv = tree.measured_levels
    if allocation == "uniform":
        w[lv] = 1.0
    elif allocation == "geometric":
        w[lv] = float(tree.branching) ** (-lv / 3.0)
    else:  # optimal
        w[lv] = np.cbrt(level_usage(tree)[lv])
        if not np.all(w[lv] > 0):  # only if a level is never used (cannot happen for n >= 2)
            w[lv] = np.maximum(w[lv], np.finfo(float).tiny)
    return w / w.sum()


def level_epsilons(n: int, branching: int, epsilon: float, *, allocation: str = "uniform",
                   measure_root: bool = True) -> np.ndarray:
    """Budget ``eps_l`` of each level (leaves first); they sum to ``epsilon`` (0 for the unmeasured root).

    ``uniform``: ``epsilon / L`` per measured level; ``geometric``: proportional
    to ``b**(-l/3)`` [CPSSY12]_; ``optimal``: proportional to ``M_l**(1/3)``
    (see the module docstring and :func:`level_usage`) [QYL13]_.

    Examples
    --------
    >>> level_epsilons(8, 2, 1.0, measure_root=False).round(4).tolist()
    [0.3333, 0.3333, 0.3333, 0.0]
    """
    tree = build_tree(n, branching, measure_root=measure_root)
    epsilon = check_epsilon(epsilon)
    allocation = check_choice("allocation", allocation, ALLOCATIONS)
    return epsilon * _weights(tree, allocation)


def _level_variances(tree: Tree, allocation: str) -> np.ndarray:
    """Laplace variance ``2 / eps_l**2`` per level at epsilon = 1 (inf for unmeasured levels)."""
    w = _weights(tree, allocation)
    with np.errstate(divide="ignore"):
        return np.where(w > 0, 2.0 / np.where(w > 0, w, 1.0) ** 2, np.inf)


def strategy_matrix(n: int, branching: int, *, measure_root: bool = True,
                    allocation: str = "uniform") -> sp.csr_array:
    """The hierarchical strategy: one row per measured node, the 0/1 indicator of its leaves times a level weight.

    Rows are ordered level by level from the leaves up, left to right within a
    level (the flat node order of :class:`Tree` without the unmeasured root).
    Under ``uniform`` every weight is 1, so the L1 sensitivity (largest column
    L1 norm) is the number of measured levels ``L`` and the release is
    ``A x + Lap(L / epsilon)``.  Under the other allocations row weights are
    ``eps_l / epsilon`` so the L1 sensitivity is exactly 1 and the release is
    ``A x + Lap(1 / epsilon)``, i.e. a level-``l`` count with ``Lap(1 / eps_l)``
    noise [HRMS10]_ [QYL13]_.

    Parameters
    ----------
    n : int
        Number of leaves, >= 1 (any n: the last node of a level may be short).
    branching : int
        b >= 2.
    measure_root : bool, default True
    allocation : {"uniform", "geometric", "optimal"}

    Returns
    -------
    scipy.sparse.csr_array
        Shape ``(number of measured nodes, n)``.

    Examples
    --------
    >>> A = strategy_matrix(4, 2)
    >>> A.toarray().astype(int).tolist()
    [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 1, 1]]
    """
    tree = build_tree(n, branching, measure_root=measure_root)
    allocation = check_choice("allocation", allocation, ALLOCATIONS)
    w = np.ones(tree.height + 1) if allocation == "uniform" else _weights(tree, allocation)
    leaves = np.arange(tree.n)
    rows, cols, vals = [], [], []
    offset = 0
    for l in tree.measured_levels:
        rows.append(offset + leaves // tree.block(int(l)))
        cols.append(leaves)
        vals.append(np.full(tree.n, w[l]))
        offset += tree.sizes[l]
    A = sp.coo_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                     shape=(offset, tree.n))
    return A.tocsr()
