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

from dpviz.mechanisms import standard_laplace
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_array,
    check_bool,
    check_choice,
    check_counts,
    check_epsilon,
    check_int,
    check_trials,
    check_widths,
)

__all__ = [
    "ALLOCATIONS",
    "Tree",
    "TreeRelease",
    "build_tree",
    "level_epsilons",
    "strategy_matrix",
    "node_counts",
    "measure",
    "flat_release",
    "constrained_inference",
    "range_answers",
    "tree_range_answers",
    "level_usage",
    "average_range_mse",
    "range_mse_by_width",
    "range_mse_by_query",
    "flat_average_range_mse",
    "qardaji_average_mse",
    "qardaji_level_usage",
    "algorithm1_variances",
    "asymptotic_optimal_branching",
    "optimal_branching",
    "branching_curve",
    "average_range_mse_nd",
    "GridRelease",
    "measure_nd",
    "box_answers_nd",
]

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
    return _tree(n, b, check_bool("measure_root", measure_root))


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


# --------------------------------------------------------------------------- true counts and releases
def _child_sum(Z: np.ndarray, b: int, m_parent: int) -> np.ndarray:
    """Sum groups of ``b`` consecutive columns of Z (k, m); the last group may be short."""
    k, m = Z.shape
    full = m // b
    if full == m_parent:
        return Z.reshape(k, m_parent, b).sum(axis=2)
    out = np.empty((k, m_parent))
    out[:, :full] = Z[:, : full * b].reshape(k, full, b).sum(axis=2)
    out[:, full] = Z[:, full * b:].sum(axis=1)
    return out


def _node_counts_2d(x: np.ndarray, tree: Tree) -> np.ndarray:
    k = x.shape[0]
    out = np.empty((k, tree.n_nodes))
    out[:, : tree.n] = x
    level = x
    for l in range(1, tree.height + 1):
        level = _child_sum(level, tree.branching, tree.sizes[l])
        out[:, tree.offsets[l]: tree.offsets[l + 1]] = level
    return out


def node_counts(x, branching: int) -> np.ndarray:
    """True counts of every node of the b-ary tree over the histogram ``x`` (leaves first).

    Accepts ``x`` of shape (n,) or (k, n) (k histograms); returns (n_nodes,) or (k, n_nodes).

    Examples
    --------
    >>> node_counts([1, 2, 3, 4, 5], 2).astype(int).tolist()
    [1, 2, 3, 4, 5, 3, 7, 5, 10, 5, 15]
    """
    x = check_array("x", x, ndim=(1, 2))
    tree = build_tree(x.shape[-1], branching)
    out = _node_counts_2d(np.atleast_2d(x), tree)
    return out[0] if x.ndim == 1 else out


@dataclass(frozen=True)
class TreeRelease:
    """Noisy counts of all tree nodes (one or many independent releases).

    Attributes
    ----------
    tree : the :class:`Tree`
    allocation : budget allocation name
    epsilon : total privacy budget (the release is epsilon-DP)
    level_epsilons : (h+1,) per-level budgets (0 for the unmeasured root)
    node_variance : (n_nodes,) Laplace variance ``2 / eps_l**2`` of each node (inf if unmeasured)
    truth : (n_nodes,) true node counts
    noisy : (n_nodes,) or (size, n_nodes) noisy node counts (NaN at an unmeasured root)
    """

    tree: Tree
    allocation: str
    epsilon: float
    level_epsilons: np.ndarray
    node_variance: np.ndarray
    truth: np.ndarray
    noisy: np.ndarray

    def leaves(self, *, constrained: bool) -> np.ndarray:
        """Leaf estimates: the noisy leaves, or the constrained-inference (least-squares) leaves."""
        if not check_bool("constrained", constrained):
            return self.noisy[..., : self.tree.n].copy()
        return constrained_inference(self.noisy, self.tree.n, self.tree.branching, allocation=self.allocation,
                                     measure_root=self.tree.measure_root)

    def level(self, values: np.ndarray, level: int) -> np.ndarray:
        """The slice of a node vector (leaves first order) that belongs to ``level``."""
        return values[..., self.tree.offsets[level]: self.tree.offsets[level + 1]]


def measure(x, branching: int, epsilon: float, *, allocation: str = "uniform", measure_root: bool = True,
            rng: RngLike = None, size: int | None = None, accountant=None) -> TreeRelease:
    """Release every measured node count of the b-ary tree over ``x`` with Laplace noise (epsilon-DP).

    Level ``l`` gets budget ``eps_l`` (:func:`level_epsilons`) and each of its
    nodes ``count + Lap(1 / eps_l)``.  The nodes of a level cover disjoint leaves
    (parallel composition) and levels compose sequentially, so the release is
    ``sum_l eps_l = epsilon``-DP [HRMS10]_ [QYL13]_.

    Parameters
    ----------
    x : array_like, shape (n,)
        Non-negative histogram counts.
    branching : int
        b >= 2.
    epsilon : float
        Total budget > 0.
    allocation : {"uniform", "geometric", "optimal"}
    measure_root : bool, default True
    rng : None, int or Generator
    size : int, optional
        Number of independent releases (stacked on a new first axis).
    accountant : PrivacyAccountant, optional
        Charged ``epsilon`` before any noise is drawn.

    Returns
    -------
    TreeRelease

    Examples
    --------
    >>> r = measure([3, 1, 4, 1, 5], 2, 1.0, rng=0, size=10)
    >>> r.noisy.shape, r.tree.n_measured_levels
    ((10, 11), 4)
    """
    x = check_counts("x", x)
    tree = build_tree(x.size, branching, measure_root=measure_root)
    epsilon = check_epsilon(epsilon)
    allocation = check_choice("allocation", allocation, ALLOCATIONS)
    size = check_trials(size)
    gen = as_generator(rng)
    eps_l = epsilon * _weights(tree, allocation)
    scale = np.zeros(tree.n_nodes)
    for l in range(tree.height + 1):
        scale[tree.offsets[l]: tree.offsets[l + 1]] = 1.0 / eps_l[l] if eps_l[l] > 0 else np.nan
    if accountant is not None:
        accountant.spend(epsilon, label=f"hierarchy b={tree.branching} ({allocation}, {tree.n_measured_levels} levels)")
    truth = _node_counts_2d(x[None, :], tree)[0]
    k = 1 if size is None else size
    last = tree.offsets[int(tree.measured_levels[-1]) + 1]
    noise = standard_laplace(rng=gen, shape=(k, last))
    noise *= scale[:last]
    noise += truth[:last]
    if last == tree.n_nodes:
        noisy = noise
    else:
        noisy = np.full((k, tree.n_nodes), np.nan)
        noisy[:, :last] = noise
    with np.errstate(invalid="ignore"):
        var = np.where(np.isnan(scale), np.inf, 2.0 * np.nan_to_num(scale) ** 2)
    return TreeRelease(tree, allocation, epsilon, eps_l, var, truth, noisy[0] if size is None else noisy)


def flat_release(x, epsilon: float, *, rng: RngLike = None, size: int | None = None, accountant=None) -> np.ndarray:
    """The Flat method: every leaf count plus ``Lap(1/epsilon)`` (sensitivity 1), shape (n,) or (size, n).

    Examples
    --------
    >>> flat_release([1, 2, 3], 1.0, rng=0, size=4).shape
    (4, 3)
    """
    x = check_counts("x", x)
    epsilon = check_epsilon(epsilon)
    size = check_trials(size)
    gen = as_generator(rng)
    if accountant is not None:
        accountant.spend(epsilon, label="flat histogram")
    noise = standard_laplace(rng=gen, shape=(1 if size is None else size, x.size))
    noise *= 1.0 / epsilon
    noise += x
    return noise[0] if size is None else noise


# --------------------------------------------------------------------------- constrained inference
@dataclass(frozen=True)
class _CIPlan:
    """Per-node constants of constrained inference (independent of the data and of epsilon)."""

    own: tuple[np.ndarray, ...]     # weight on a node's own measurement in the bottom-up average
    share: tuple[np.ndarray, ...]   # child's share of its parent's discrepancy, Z_child / sum Z_siblings
    below: tuple[np.ndarray, ...]   # from-below variance Z of each node (epsilon = 1)


@lru_cache(maxsize=128)
def _ci_plan(tree: Tree, allocation: str) -> _CIPlan:
    V = _level_variances(tree, allocation)
    b = tree.branching
    below = [np.full(tree.n, V[0])]
    own = [np.ones(tree.n)]
    share = []
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
    return _CIPlan(tuple(own), tuple(share), tuple(below))


def _ci_2d(Y: np.ndarray, tree: Tree, plan: _CIPlan, nodes: bool) -> np.ndarray:
    """Constrained inference on (k, n_nodes) noisy values; returns (k, n) leaves or (k, n_nodes) nodes."""
    b, h = tree.branching, tree.height
    off = tree.offsets
    Z = [Y[:, : tree.n]]
    S = [None]
    for l in range(1, h + 1):
        s = _child_sum(Z[-1], b, tree.sizes[l])
        S.append(s)
        a = plan.own[l]
        if np.any(a):
            Z.append(s + a * (Y[:, off[l]: off[l + 1]] - s))
        else:
            Z.append(s)
    out = np.empty((Y.shape[0], off[-1])) if nodes else None
    F = Z[h]
    if nodes:
        out[:, off[h]: off[h + 1]] = F
    k = Y.shape[0]
    for l in range(h - 1, -1, -1):
        gap = F - S[l + 1]
        m, mp = tree.sizes[l], tree.sizes[l + 1]
        if m == mp * b:  # full groups of b children: broadcast instead of repeating
            F = (Z[l].reshape(k, mp, b) + plan.share[l].reshape(mp, b) * gap[:, :, None]).reshape(k, m)
        else:
            F = Z[l] + plan.share[l] * np.repeat(gap, b, axis=1)[:, :m]
        if nodes:
            out[:, off[l]: off[l + 1]] = F
    return out if nodes else F


def constrained_inference(noisy, n: int, branching: int, *, allocation: str = "uniform",
                          measure_root: bool = True, nodes: bool = False) -> np.ndarray:
    """Constrained inference [HRMS10]_ generalised to any b, any n and per-level budgets [QYL13]_.

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
        Noisy node counts in the flat order of :class:`Tree` (leaves first); the
        value of an unmeasured root is ignored.
    n, branching, allocation, measure_root
        The tree and budget split the release was made with (only the ratios of
        the level variances matter, so epsilon is not needed).
    nodes : bool, default False
        Return the consistent estimates of all nodes instead of the leaves.

    Returns
    -------
    numpy.ndarray
        (n,) / (k, n) leaf estimates, or (n_nodes,) / (k, n_nodes) node estimates.

    Examples
    --------
    >>> r = measure([3, 1, 4, 1], 2, 1.0, rng=0)
    >>> est = constrained_inference(r.noisy, 4, 2, nodes=True)
    >>> bool(np.isclose(est[:4].sum(), est[-1]))
    True
    """
    tree = build_tree(n, branching, measure_root=measure_root)
    allocation = check_choice("allocation", allocation, ALLOCATIONS)
    Y = check_array("noisy", noisy, ndim=(1, 2), finite=False)
    if Y.shape[-1] != tree.n_nodes:
        raise ValueError(f"noisy must have n_nodes={tree.n_nodes} entries on its last axis for n={n}, "
                         f"b={branching}, got shape {Y.shape}")
    last = tree.offsets[int(tree.measured_levels[-1]) + 1]
    if not np.all(np.isfinite(Y[..., :last])):
        raise ValueError("noisy must be finite at every measured node")
    out = _ci_2d(np.atleast_2d(Y), tree, _ci_plan(tree, allocation), nodes)
    return out[0] if Y.ndim == 1 else out


# --------------------------------------------------------------------------- range answers
def _check_ranges(n: int, starts, stops) -> tuple[np.ndarray, np.ndarray]:
    i = np.asarray(starts)
    j = np.asarray(stops)
    if not (np.issubdtype(i.dtype, np.integer) and np.issubdtype(j.dtype, np.integer)):
        raise TypeError(f"starts and stops must be integer arrays, got dtypes {i.dtype} and {j.dtype}")
    i, j = np.broadcast_arrays(i, j)
    if i.ndim not in (1, 2):
        raise ValueError(f"starts and stops must be 1-D (or 2-D, one row per release), got shape {i.shape}")
    bad = (i < 0) | (j > n) | (j <= i)
    if np.any(bad):
        t = int(np.flatnonzero(bad)[0])
        raise ValueError(f"ranges must satisfy 0 <= start < stop <= n={n}; got [{i[t]}, {j[t]}) at index {t}")
    return i.astype(np.int64), j.astype(np.int64)


def _gather(P: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``P[:, idx]`` for shared 1-D indices, or row-wise ``P[t, idx[t]]`` for (k, q) indices."""
    if idx.ndim == 1:
        return P[:, idx]
    return P.ravel()[idx + (np.arange(P.shape[0]) * P.shape[1])[:, None]]


def _check_per_trial(i: np.ndarray, k: int, ndim: int) -> None:
    if i.ndim == 2 and (ndim != 2 or i.shape[0] != k):
        raise ValueError(f"2-D starts/stops need one row per release ({k} releases), got shape {i.shape}")


def range_answers(leaves, starts, stops) -> np.ndarray:
    """Answers ``sum(leaves[..., i:j])`` of the ranges ``[starts, stops)`` via prefix sums.

    ``starts``/``stops`` of shape (q,) apply to every release (result (..., q));
    with leaves of shape (k, n) they may also be (k, q), one set of ranges per release.

    Examples
    --------
    >>> range_answers([1.0, 2.0, 3.0], [0, 1], [3, 2]).tolist()
    [6.0, 2.0]
    """
    L = check_array("leaves", leaves, ndim=(1, 2))
    i, j = _check_ranges(L.shape[-1], starts, stops)
    L2 = np.atleast_2d(L)
    _check_per_trial(i, L2.shape[0], L.ndim)
    P = np.zeros((L2.shape[0], L2.shape[1] + 1))
    np.cumsum(L2, axis=1, out=P[:, 1:])
    out = _gather(P, j) - _gather(P, i)
    return out[0] if L.ndim == 1 else out


def _cover(tree: Tree, i: np.ndarray, j: np.ndarray) -> list[tuple[np.ndarray, ...]]:
    """Per measured level: index intervals [lo, a) and [c, hi) of the minimal node cover of [i, j).

    Level-l nodes inside the range are ``lo = ceil(i / b^l) <= k < hi`` (``hi = floor(j / b^l)``, or
    all nodes of the level when ``j = n``); those whose parent is inside too are removed.
    """
    top = int(tree.measured_levels[-1])
    b, n = tree.branching, tree.n
    dt = np.int32 if n < 2**30 else np.int64
    i = i.astype(dt, copy=False)
    j = j.astype(dt, copy=False)
    at_end = None
    inside = []
    for l in range(top + 1):
        s = tree.block(l)
        lo = (i + (s - 1)) // s
        hi = j // s
        if n % s:  # the last node is short: it is inside whenever j = n
            if at_end is None:
                at_end = j >= n
            hi[at_end] = tree.sizes[l]
        np.maximum(hi, lo, out=hi)
        inside.append((lo, hi))
    out = []
    for l in range(top + 1):
        lo, hi = inside[l]
        if l == top:
            out.append((lo, hi, hi, hi))
            continue
        plo, phi = inside[l + 1]
        has_parent = phi > plo
        a = np.where(has_parent, plo * b, hi)
        c = np.where(has_parent, np.minimum(phi * b, tree.sizes[l]), hi)
        out.append((lo, a, c, hi))
    return out


def tree_range_answers(release: TreeRelease, starts, stops) -> np.ndarray:
    """H_b answers: the sum of the noisy counts of each range's minimal node cover (no inference).

    Among the measured nodes, the cover uses a node iff it lies inside the
    range and its parent does not (or the parent is not measured) [QYL13]_.
    Shape ``(q,)`` or ``(size, q)``; ranges of shape (q,) or, for a release of
    ``size`` trials, (size, q) (one set of ranges per release).
    """
    tree = release.tree
    i, j = _check_ranges(tree.n, starts, stops)
    Y = np.atleast_2d(release.noisy)
    _check_per_trial(i, Y.shape[0], release.noisy.ndim)
    total = _cover_sums(tree, _level_prefix(release), i, j)
    return total[0] if release.noisy.ndim == 1 else total


def _level_prefix(release: TreeRelease) -> list[np.ndarray]:
    """Prefix sums (k, m_l + 1) of the noisy counts of each measured level."""
    Y = np.atleast_2d(release.noisy)
    out = []
    for l in release.tree.measured_levels:
        P = np.zeros((Y.shape[0], release.tree.sizes[l] + 1))
        np.cumsum(release.level(Y, int(l)), axis=1, out=P[:, 1:])
        out.append(P)
    return out


def _cover_sums(tree: Tree, prefix: list[np.ndarray], i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """(k, q) sums of the level prefix sums over the minimal covers of the ranges [i, j)."""
    total = np.zeros((prefix[0].shape[0], i.shape[-1]))
    for P, (lo, a, c, hi) in zip(prefix, _cover(tree, i, j)):
        total += _gather(P, a) - _gather(P, lo) + _gather(P, hi) - _gather(P, c)
    return total


def _cover_counts(tree: Tree, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """(levels, q) number of nodes of each level in the minimal cover of each range."""
    return np.array([(a - lo) + (hi - c) for lo, a, c, hi in _cover(tree, i, j)], dtype=float)


# --------------------------------------------------------------------------- exact analytic error
def _inv_eps2(epsilon: float) -> float:
    """``1 / epsilon^2`` (inf, without a warning, if it overflows for a tiny epsilon)."""
    with np.errstate(over="ignore", divide="ignore"):
        return float(np.float64(1.0) / np.float64(epsilon) ** 2)


def _check_common(n, branching, epsilon, allocation, measure_root) -> tuple[Tree | None, float, str]:
    n = check_int("n", n, minimum=1)
    epsilon = check_epsilon(epsilon)
    allocation = check_choice("allocation", allocation, ALLOCATIONS)
    if branching is None:
        return None, epsilon, allocation
    return build_tree(n, branching, measure_root=measure_root), epsilon, allocation


def flat_average_range_mse(n: int, epsilon: float) -> float:
    """Flat method: average MSE over all range queries ``(n + 2)/3 * V_u``, ``V_u = 2/epsilon^2`` [QYL13]_ §3.1.

    The average length of the ``n(n+1)/2`` ranges is ``sum_j j(n-j+1) / (n(n+1)/2) = (n+2)/3``
    and a range of length ``j`` has variance ``j V_u``.

    Examples
    --------
    >>> flat_average_range_mse(1024, 1.0)
    684.0
    """
    n = check_int("n", n, minimum=1)
    return (n + 2) / 3 * 2.0 * _inv_eps2(check_epsilon(epsilon))


def _contain_sums(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """Per level: F_l = number of (range, node) pairs with the node inside the range, and G_l the
    same for nodes whose parent is inside (0 on the top measured level)."""
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


def _hb_width_sums(tree: Tree, V: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """Sum over all ranges of width w of the H_b variance (epsilon = 1), for each w."""
    n = tree.n
    top = int(tree.measured_levels[-1])
    out = np.zeros(widths.size)

    def contain(a, c, w):  # number of ranges of width w (start in [0, n-w]) containing [a, c)
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


@lru_cache(maxsize=64)
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


def range_mse_by_width(n: int, branching: int | None, epsilon: float, widths=None, *, constrained: bool,
                       allocation: str = "uniform", measure_root: bool = True) -> np.ndarray:
    """Exact MSE averaged over all ranges of each width (computed, not simulated).

    ``branching=None`` is Flat (``w * 2/epsilon^2``).  ``constrained=False``: the
    H_b answer sums the noisy counts of the minimal cover, so its variance is
    ``sum_l V_l * (number of level-l cover nodes)``, counted exactly per width
    from which nodes (and parents) each range contains [QYL13]_ Prop. 1.
    ``constrained=True``: the variance ``q^T Sigma q`` of the least-squares
    leaves, summed over ranges through prefix covariances (O(n^2) time).

    Parameters
    ----------
    n : int
    branching : int or None
    epsilon : float
    widths : array_like of int, optional
        Range widths in [1, n] (default all).
    constrained : bool
    allocation, measure_root
        As in :func:`measure`.

    Returns
    -------
    numpy.ndarray
        MSE per width.

    Examples
    --------
    >>> range_mse_by_width(8, 2, 1.0, [1, 8], constrained=False, measure_root=False).tolist()
    [18.0, 36.0]
    """
    tree, epsilon, allocation = _check_common(n, branching, epsilon, allocation, measure_root)
    constrained = check_bool("constrained", constrained)
    w = check_widths(n, widths)
    if tree is None:
        return w * 2.0 * _inv_eps2(epsilon)
    count = (n - w + 1).astype(float)
    if constrained:
        return _ci_width_sums(tree, allocation)[w - 1] / count * _inv_eps2(epsilon)
    V = _level_variances(tree, allocation)
    return _hb_width_sums(tree, V, w) / count * _inv_eps2(epsilon)


def average_range_mse(n: int, branching: int | None, epsilon: float, *, constrained: bool,
                      allocation: str = "uniform", measure_root: bool = True) -> float:
    """Exact MSE averaged over all ``n(n+1)/2`` range queries for Flat, H_b or H_b with constrained inference.

    * ``branching=None``: Flat, ``(n+2)/3 * V_u`` with ``V_u = 2/epsilon^2``.
    * ``constrained=False``: ``sum_l M_l * 2/eps_l^2 / (n(n+1)/2)`` with ``M_l``
      the exact level usage (:func:`level_usage`); for ``n = b^h``, root not
      measured and uniform budgets this is Qardaji's Proposition 1.
    * ``constrained=True``: average of ``q^T Sigma q`` for the GLS leaf
      covariance ``Sigma`` (exact, O(n^2) time, O(n) memory per block).

    Parameters
    ----------
    n : int
        Number of leaves, >= 1.
    branching : int or None
        b >= 2, or None for Flat.
    epsilon : float
        Total budget > 0.
    constrained : bool
        Whether constrained inference is applied (ignored for Flat).
    allocation : {"uniform", "geometric", "optimal"}
    measure_root : bool, default True

    Returns
    -------
    float

    References
    ----------
    [QYL13]_ Prop. 1, §3.3; [HRMS10]_.

    Examples
    --------
    >>> average_range_mse(8, 2, 1.0, constrained=False, measure_root=False)  # 66 node uses / 36 ranges * 18
    33.0
    """
    tree, epsilon, allocation = _check_common(n, branching, epsilon, allocation, measure_root)
    constrained = check_bool("constrained", constrained)
    if tree is None:
        return flat_average_range_mse(n, epsilon)
    nq = n * (n + 1) / 2
    if constrained:
        return float(_ci_width_sums(tree, allocation).sum() / nq * _inv_eps2(epsilon))
    V = _level_variances(tree, allocation)
    lv = tree.measured_levels
    return float((V[lv] * level_usage(tree)[lv]).sum() / nq * _inv_eps2(epsilon))


def range_mse_by_query(n: int, branching: int | None, epsilon: float, starts, stops, *, constrained: bool,
                       allocation: str = "uniform", measure_root: bool = True) -> np.ndarray:
    """Exact MSE of individual range queries ``[starts, stops)`` (Flat, H_b or H_b + CI).

    Examples
    --------
    >>> V_O = 2 * 3**2  # N = 8, b = 2, root not measured: each of 3 levels gets epsilon/3
    >>> v = range_mse_by_query(8, 2, 1.0, [0], [3], constrained=True, measure_root=False)
    >>> round(float(v[0]) / V_O * 441, 6)
    399.0
    """
    tree, epsilon, allocation = _check_common(n, branching, epsilon, allocation, measure_root)
    constrained = check_bool("constrained", constrained)
    i, j = _check_ranges(n, starts, stops)
    if tree is None:
        return (j - i) * 2.0 * _inv_eps2(epsilon)
    if not constrained:
        V = _level_variances(tree, allocation)
        return V[: tree.measured_levels[-1] + 1] @ _cover_counts(tree, i, j) * _inv_eps2(epsilon)
    leaves = np.unique(np.concatenate([np.arange(a, c) for a, c in zip(i, j)]))
    V0 = _level_variances(tree, allocation)[0]
    out = np.zeros(i.size)
    plan = _ci_plan(tree, allocation)
    block = max(1, 2_000_000 // tree.n_nodes)
    for s0 in range(0, leaves.size, block):
        rows_idx = leaves[s0: s0 + block]
        Y = np.zeros((rows_idx.size, tree.n_nodes))
        Y[np.arange(rows_idx.size), rows_idx] = V0
        rows = _ci_2d(Y, tree, plan, nodes=False)
        P = np.zeros((rows.shape[0], n + 1))
        np.cumsum(rows, axis=1, out=P[:, 1:])
        for t, (a, c) in enumerate(zip(i, j)):
            sel = (rows_idx >= a) & (rows_idx < c)
            out[t] += (P[sel, c] - P[sel, a]).sum()
    return out * _inv_eps2(epsilon)


# --------------------------------------------------------------------------- Qardaji's closed forms
def qardaji_level_usage(N: int, branching: int) -> np.ndarray:
    """Qardaji's Eq. (2): ``M(l) = (b-1)(N^2/2 - N(b+1) b^(l-1)/3 + N)`` for levels l = 1..h (leaves = 1).

    Requires ``N = b^h``.  It counts the root as answering the full-domain
    query, so at the top level it is ``b`` less than the exact count with an
    unmeasured root (:func:`level_usage`).
    """
    h = _exact_height(N, branching)
    b = branching
    l = np.arange(1, h + 1)
    return (b - 1) * (N**2 / 2 - N * (b + 1) * b ** (l - 1.0) / 3 + N)


def _exact_height(N: int, branching: int) -> int:
    N = check_int("N", N, minimum=2)
    b = check_int("branching", branching, minimum=2)
    h = round(math.log(N, b))
    if b**h != N:
        raise ValueError(f"N must be a power of branching={b} for Qardaji's closed form, got N={N}")
    return h


def qardaji_average_mse(N: float, branching: int, epsilon: float, *, exact: bool = False) -> float:
    """Qardaji's average MSE of H_b (root not measured, epsilon/h per level, no inference).

    ``exact=False``: Eq. (3), ``((b-1) h^3 - 2(b+1) h^2 / 3) V_u`` with
    ``h = log_b N`` (real h allowed) and ``V_u = 2/epsilon^2``.
    ``exact=True``: Proposition 1 with Eq. (2),
    ``sum_l M(l) h^2 V_u / (N(N+1)/2)`` (needs ``N = b^h``).

    Examples
    --------
    >>> round(qardaji_average_mse(2**10, 2, 1.0) / 2, 4)  # h^3 - 2 h^2, Eq. (4)
    800.0
    """
    b = check_int("branching", branching, minimum=2)
    eps = check_epsilon(epsilon)
    Vu = 2.0 * _inv_eps2(eps)
    if exact:
        h = _exact_height(int(N), b)
        M = qardaji_level_usage(int(N), b)
        return float(M.sum() * h**2 * Vu / (N * (N + 1) / 2))
    N = float(N)
    if not N > 1:
        raise ValueError(f"N must be > 1, got {N}")
    h = math.log(N, b)
    return ((b - 1) * h**3 - 2 * (b + 1) * h**2 / 3) * Vu


def asymptotic_optimal_branching() -> float:
    """The b minimising ``(b - 1) (log_b N)^3`` for large N: root of ``ln b = 3 (b - 1) / b`` (about 16.8) [QYL13]_."""
    return float(scipy.optimize.brentq(lambda b: math.log(b) - 3 * (b - 1) / b, 2.0, 100.0, xtol=1e-12))


def algorithm1_variances(h: int, branching: int, vo=None) -> tuple[np.ndarray, np.ndarray]:
    """Qardaji's Algorithm 1: per-level variances from below (after weighted averaging) and from above.

    ``V_below[1] = V_O[1]``, ``V_below[i] = b V_O[i] V_below[i-1] / (V_O[i] + b V_below[i-1])``;
    ``V_above[h] = V_O[h]``,
    ``V_above[i] = V_O[i] (V_above[i+1] + (b-1) V_below[i]) / (V_O[i] + V_above[i+1] + (b-1) V_below[i])``.
    Levels are 1 (leaves) .. h (children of the unmeasured root).  With
    ``vo=None`` every ``V_O = 1`` (uniform budget, variances in units of V_O).

    Examples
    --------
    >>> below, above = algorithm1_variances(4, 2)
    >>> [round(float(v), 6) for v in below]  # 1, 2/3, 4/7, 8/15
    [1.0, 0.666667, 0.571429, 0.533333]
    """
    h = check_int("h", h, minimum=1)
    b = check_int("branching", branching, minimum=2)
    VO = np.ones(h) if vo is None else check_array("vo", vo, ndim=1)
    if VO.size != h or np.any(VO <= 0):
        raise ValueError(f"vo must hold h={h} positive variances, got {VO}")
    below = np.empty(h)
    above = np.empty(h)
    below[0] = VO[0]
    for i in range(1, h):
        below[i] = b * VO[i] * below[i - 1] / (VO[i] + b * below[i - 1])
    above[h - 1] = VO[h - 1]
    for i in range(h - 2, -1, -1):
        s = above[i + 1] + (b - 1) * below[i]
        above[i] = VO[i] * s / (VO[i] + s)
    return below, above


def branching_curve(n: int, epsilon: float, branchings, *, constrained: bool, allocation: str = "uniform",
                    measure_root: bool = True) -> np.ndarray:
    """Exact average range MSE for each branching factor in ``branchings``."""
    bs = [check_int("branchings[]", b, minimum=2) for b in np.atleast_1d(branchings)]
    return np.array([average_range_mse(n, b, epsilon, constrained=constrained, allocation=allocation,
                                       measure_root=measure_root) for b in bs])


def optimal_branching(n: int, epsilon: float, *, constrained: bool, allocation: str = "uniform",
                      measure_root: bool = True, max_branching: int = 64) -> int:
    """The branching factor in ``2..min(n, max_branching)`` with the smallest exact average range MSE.

    epsilon only scales every MSE by ``1/epsilon^2``, so the answer does not
    depend on it (it is validated all the same).  With constrained inference
    each candidate costs O(n^2) time.  For large n and no inference the optimum
    approaches :func:`asymptotic_optimal_branching` (about 16) [QYL13]_ §3.2.

    Examples
    --------
    >>> optimal_branching(4096, 1.0, constrained=False, measure_root=False)
    16
    """
    n = check_int("n", n, minimum=2)
    check_epsilon(epsilon)
    max_b = check_int("max_branching", max_branching, minimum=2)
    bs = np.arange(2, max(2, min(n, max_b)) + 1)
    mse = branching_curve(n, 1.0, bs, constrained=constrained, allocation=allocation, measure_root=measure_root)
    return int(bs[int(np.argmin(mse))])


# --------------------------------------------------------------------------- d dimensions
def average_range_mse_nd(n: int, d: int, branching: int | None, epsilon: float, *,
                         measure_root: bool = True) -> float:
    """Exact average MSE over all axis-aligned range queries of an ``n^d`` grid (Flat or H_b, uniform budget).

    Flat: each of the ``N = n^d`` cells gets ``Lap(1/epsilon)``; a box of
    ``prod_k |r_k|`` cells has that many times ``V_u``, and the ranges of the
    d axes are independent under the uniform choice of a box, so the average
    is ``((n+2)/3)^d V_u``.
    H_b: the tree splits every axis into b at each level (``b^d`` children);
    a level-l node (product of level-l intervals) is in the minimal cover of
    a box iff it lies inside and its parent does not.  The expected number of
    such nodes is ``E[f_l]^d - E[g_l]^d`` with ``f_l`` (``g_l``) the 1-D number of
    level-l intervals inside a range (with parent inside), so the average MSE is
    ``sum_l V_l (E[f_l]^d - E[g_l]^d)``, ``V_l = 2 L^2/epsilon^2`` for L measured levels
    (no constrained inference) [QYL13]_ §5.

    Examples
    --------
    >>> round(average_range_mse_nd(4, 2, None, 1.0), 6)  # ((4+2)/3)^2 * 2
    8.0
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1, maximum=8)
    eps = check_epsilon(epsilon)
    if branching is None:
        return ((n + 2) / 3) ** d * 2.0 * _inv_eps2(eps)
    tree = build_tree(n, branching, measure_root=measure_root)
    F, G = _contain_sums(tree)
    nq = n * (n + 1) / 2
    L = tree.n_measured_levels
    return float(((F / nq) ** d - (G / nq) ** d).sum() * 2.0 * L**2 * _inv_eps2(eps))


# --------------------------------------------------------------------------- d-dimensional releases
@dataclass(frozen=True)
class GridRelease:
    """Noisy counts of a d-dimensional grid hierarchy (or of the grid cells alone, for Flat).

    Attributes
    ----------
    tree : the 1-D :class:`Tree` used along every axis (None for Flat)
    d : number of dimensions
    epsilon : total budget (the release is epsilon-DP)
    levels : tuple of arrays, level l of shape ``(k,) + (m_l,) * d`` (measured levels only; Flat: the cells)
    level_variance : (L,) Laplace variance of each level's nodes
    """

    tree: Tree | None
    d: int
    epsilon: float
    levels: tuple[np.ndarray, ...]
    level_variance: np.ndarray


def _group_sum_axis(A: np.ndarray, b: int, m_parent: int, axis: int) -> np.ndarray:
    moved = np.moveaxis(A, axis, -1)
    shape = moved.shape
    out = _child_sum(moved.reshape(-1, shape[-1]), b, m_parent).reshape(shape[:-1] + (m_parent,))
    return np.moveaxis(out, -1, axis)


def measure_nd(x, branching: int | None, epsilon: float, *, measure_root: bool = True, rng: RngLike = None,
               size: int | None = None, accountant=None) -> GridRelease:
    """Release a d-dimensional histogram by the Flat method (``branching=None``) or a grid hierarchy.

    The hierarchy splits every axis of the ``n^d`` grid into b at each level
    (``b^d`` children per node; short last nodes when n is not a power of b);
    every measured level gets ``epsilon / L`` (uniform), so each node count
    gets ``Lap(L / epsilon)``, where L is the number of measured levels: one
    person is in one node per level, so the release is epsilon-DP [QYL13]_ §5.

    Parameters
    ----------
    x : array_like, shape (n,) * d
        Non-negative counts on a cubic grid (d >= 1).
    branching : int or None
    epsilon : float
    measure_root : bool, default True
    rng, size, accountant
        As in :func:`measure`.

    Returns
    -------
    GridRelease
        Level arrays always carry a trial axis first (size 1 when ``size`` is None).

    Examples
    --------
    >>> r = measure_nd(np.ones((4, 4)), 2, 1.0, rng=0, size=3)
    >>> [a.shape for a in r.levels]
    [(3, 4, 4), (3, 2, 2), (3, 1, 1)]
    """
    x = check_counts("x", x, ndim=None)
    d = x.ndim
    if d < 1 or len(set(x.shape)) != 1:
        raise ValueError(f"x must be a cubic grid (n,) * d with d >= 1, got shape {x.shape}")
    n = x.shape[0]
    epsilon = check_epsilon(epsilon)
    size = check_trials(size)
    k = 1 if size is None else size
    gen = as_generator(rng)
    if branching is None:
        tree, counts = None, [x]
    else:
        tree = build_tree(n, branching, measure_root=measure_root)
        counts = [x]
        for l in range(1, int(tree.measured_levels[-1]) + 1):
            c = counts[-1]
            for axis in range(d):
                c = _group_sum_axis(c, tree.branching, tree.sizes[l], axis)
            counts.append(c)
    L = len(counts)
    if accountant is not None:
        accountant.spend(epsilon, label=f"grid {'flat' if tree is None else f'hierarchy b={tree.branching}'}, d={d}")
    scale = L / epsilon
    levels = []
    for c in counts:
        noise = standard_laplace(rng=gen, shape=(k, c.size)).reshape((k,) + c.shape)
        noise *= scale
        noise += c
        levels.append(noise)
    return GridRelease(tree, d, epsilon, tuple(levels), np.full(L, 2.0 * scale**2))


def _box_sums(P: np.ndarray, lo: list[np.ndarray], hi: list[np.ndarray]) -> np.ndarray:
    """Sums over boxes prod_k [lo_k, hi_k) from a summed-area table P of shape (k,) + (m+1,) * d."""
    d = len(lo)
    k = P.shape[0]
    rows = np.arange(k)[:, None]
    total = 0.0
    for corner in range(2**d):
        idx = [hi[a] if (corner >> a) & 1 else lo[a] for a in range(d)]
        sign = -1.0 if (d - bin(corner).count("1")) % 2 else 1.0
        total = total + sign * P[(rows, *idx)]
    return total


def box_answers_nd(release: GridRelease, starts, stops) -> np.ndarray:
    """Answers of boxes ``prod_a [starts[..., a], stops[..., a])`` from a d-dimensional release, shape (k, q).

    Flat sums the noisy cells; the hierarchy sums, per level, the noisy nodes
    inside the box minus those whose parent is inside (the minimal cover), each
    through a summed-area table.  ``starts``/``stops`` have shape (q, d) or (k, q, d).
    """
    d = release.d
    n = release.levels[0].shape[1]
    i = np.asarray(starts)
    j = np.asarray(stops)
    if i.shape != j.shape or i.shape[-1] != d or i.ndim not in (2, 3):
        raise ValueError(f"starts and stops must have shape (q, {d}) or (k, q, {d}), got {i.shape} and {j.shape}")
    cols = [_check_ranges(n, i[..., a].reshape(-1), j[..., a].reshape(-1)) for a in range(d)]
    cols = [(s.reshape(i.shape[:-1]), e.reshape(i.shape[:-1])) for s, e in cols]
    k = release.levels[0].shape[0]
    if i.ndim == 3 and i.shape[0] != k:
        raise ValueError(f"3-D starts/stops need one row per release ({k}), got shape {i.shape}")
    tables = []
    for A in release.levels:
        P = np.zeros((k,) + tuple(m + 1 for m in A.shape[1:]))
        inner = (slice(None),) + (slice(1, None),) * d
        C = A
        for axis in range(1, d + 1):
            C = np.cumsum(C, axis=axis)
        P[inner] = C
        tables.append(P)
    if release.tree is None:
        return _box_sums(tables[0], [c[0] for c in cols], [c[1] for c in cols]) * np.ones((k, 1))
    covers = [_cover(release.tree, s, e) for s, e in cols]      # per axis: per level (lo, a, c, hi)
    total = 0.0
    for l, P in enumerate(tables):
        lo = [covers[a][l][0] for a in range(d)]
        hi = [covers[a][l][3] for a in range(d)]
        ra = [covers[a][l][1] for a in range(d)]
        rc = [covers[a][l][2] for a in range(d)]
        total = total + _box_sums(P, lo, hi) - _box_sums(P, ra, rc)
    return total * np.ones((k, 1))
