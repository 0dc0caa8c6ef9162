"""How the privacy budget is split over the levels of a tree, and the resulting Laplace variances.

``eps_l = epsilon * w_l / sum w`` over the measured levels:

``"uniform"``
    ``w_l = 1``.
``"geometric"``
    ``w_l = b**(-l/3)``: each level gets ``b**(1/3)`` times the budget of the
    level above it, leaves the most.
``"optimal"``
    ``w_l = M_l**(1/3)`` with ``M_l`` the number of times level-``l`` nodes are
    used by the minimal node covers of all range queries (:func:`level_usage`);
    it minimises the average range variance of ``H_b`` without inference [QYL13]_.

Where the cube roots come from
------------------------------
Without inference a query's variance is ``sum_l u_l * 2 / eps_l**2`` where
``u_l`` is the number of level-``l`` nodes it uses.  Minimising this (or its
average over queries, with ``u_l`` the average usage) subject to
``sum_l eps_l = epsilon`` with a Lagrange multiplier gives
``-4 u_l / eps_l**3 + lambda = 0``, i.e. ``eps_l`` proportional to ``u_l**(1/3)``.

* ``"optimal"`` uses the exact average usage of a 1-D tree, ``M_l``.
* Cormode et al. [CPSSY12]_ applied the same argument to a **2-D quadtree**
  (2 splits per axis, fanout 4), where a query's boundary crosses about
  ``2**(h-i)`` level-``i`` nodes (leaves ``i = 0``): ``u_i`` proportional to
  ``2**(h-i)``, hence their geometric budget
  ``eps_i = 2**((h-i)/3) * epsilon * (2**(1/3) - 1) / (2**((h+1)/3) - 1)``,
  ratio ``2**(1/3)`` per level.  With ``b`` splits per axis in ``d``
  dimensions the usage grows by about ``b**(d-1)`` per level down
  (:func:`~dpviz.hierarchy.level_usage_nd`), so the rule becomes a ratio
  ``b**((d-1)/3)``; ``"geometric"`` is its ``d = 2`` case, ``b**(1/3)``
  (for ``b = 2`` and the root measured it gives exactly Cormode's numbers).
* On the **1-D** trees of this package a range's cover uses at most
  ``2(b-1)`` nodes per level, and on average about as many on every level
  (``M_l`` changes little from level to level except near the top), so the
  cube-root argument gives an almost **uniform** split.  ``"geometric"``
  over-spends on the leaves here: it is kept as a named baseline (Qardaji et
  al. list Cormode et al.'s geometric allocation among the schemes they
  compare), not as an optimum.

Every allocation sums to ``epsilon`` exactly (up to rounding): the levels
compose sequentially and the nodes of one level in parallel.

References
----------
.. [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
   Differentially Private Histograms." PVLDB 6(14), 2013.
.. [CPSSY12] G. Cormode, C. Procopiuc, D. Srivastava, E. Shen, T. Yu.
   "Differentially Private Spatial Decompositions." ICDE 2012.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dpviz.accountant import float_at_most, lower_reading
from dpviz.hierarchy.tree import Tree, build_tree
from dpviz.validation import check_choice, check_epsilon, check_instance

__all__ = ["ALLOCATIONS", "MIN_EPSILON", "check_budget", "level_usage", "level_epsilons"]

#: Names of the budget allocations over the levels (see the module docstring).
ALLOCATIONS = ("uniform", "geometric", "optimal")

#: Smallest total budget the hierarchy functions accept.  Below it the Laplace variances ``2 L^2 / epsilon^2``,
#: summed over up to millions of nodes, overflow float64 (epsilon = 1e-300 gave inf and NaN).
MIN_EPSILON = 1e-100


def check_budget(epsilon: object, name: str = "epsilon") -> float:
    """Check a hierarchy's total budget: finite, > 0 and >= :data:`MIN_EPSILON` (smaller ones overflow).

    Parameters
    ----------
    epsilon : object
        The value to check.
    name : str, default "epsilon"
        The parameter's name, used in the error message.

    Returns
    -------
    float
        ``epsilon`` as a Python float.

    Raises
    ------
    TypeError
        If ``epsilon`` is not a real number.
    ValueError
        If ``epsilon`` is NaN, infinite, <= 0 or below :data:`MIN_EPSILON`.

    Examples
    --------
    >>> check_budget(0.5)
    0.5
    >>> check_budget(1e-300)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be >= 1e-100 (MIN_EPSILON), got 1e-300: ...
    """
    eps = check_epsilon(epsilon, name)
    if eps < MIN_EPSILON:
        raise ValueError(f"{name} must be >= {MIN_EPSILON:g} (MIN_EPSILON), got {eps!r}: the Laplace variances "
                         "2 L^2 / epsilon^2 would overflow to inf")
    return eps


def level_usage(tree: Tree) -> np.ndarray:
    """Exact number of uses ``M_l`` of each level's nodes over all ``n(n+1)/2`` range queries.

    A node ``v = [a, c)`` of a measured level is in the minimal node cover of the
    range ``[i, j)`` iff ``v`` lies inside it and its parent does not (or ``v``
    is on the top measured level).  The number of ranges containing ``v`` is
    ``(a + 1)(n - c + 1)``, hence ``M_l = sum_v (a_v+1)(n-c_v+1) - (a_p+1)(n-c_p+1)``
    ([QYL13], proof of Proposition 1, for any n).

    Parameters
    ----------
    tree : Tree
        The tree (from :func:`~dpviz.hierarchy.build_tree`).

    Returns
    -------
    numpy.ndarray
        (h+1,) float counts per level (0 for the unmeasured root).

    Raises
    ------
    TypeError
        If ``tree`` is not a :class:`Tree`.

    References
    ----------
    W. Qardaji, W. Yang, N. Li, "Understanding Hierarchical Methods for
    Differentially Private Histograms", PVLDB 2013 ([QYL13]), Proposition 1.

    Examples
    --------
    >>> level_usage(build_tree(4, 2)).tolist()  # node uses over the 10 ranges of 4 leaves
    [8.0, 4.0, 1.0]
    """
    check_instance("tree", tree, Tree, "build one with build_tree(n, branching)")
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


def _level_shares(tree: Tree, allocation: str, epsilon: float) -> np.ndarray:
    """``epsilon * weights`` per level, each rounded down so that the levels never spend more than ``epsilon``.

    ``epsilon * w_l`` in floating point can round up: in 419 of 1,080 (n, b, epsilon, allocation, root)
    settings the levels' exact values summed above epsilon (by at most 2e-16).  Level l gets the largest double
    not above its exact share ``epsilon * w_l / sum(w)`` (epsilon at its smaller reading, see
    :func:`dpviz.accountant.lower_reading`), so the exact values sum to at most what the ledger charges.
    """
    w = _weights(tree, allocation)
    eps_l = epsilon * w
    total = lower_reading("epsilon", epsilon)
    w_sum = sum((Fraction(float(v)) for v in w), Fraction(0))
    for l in np.flatnonzero(w > 0):
        share = total * Fraction(float(w[l])) / w_sum
        if Fraction(float(eps_l[l])) > share:
            eps_l[l] = float_at_most(share)
    return eps_l


def level_epsilons(n: int, branching: int, epsilon: float, *, allocation: str = "uniform",
                   measure_root: bool = True) -> np.ndarray:
    """Budget ``eps_l`` of each level (leaves first); they sum to ``epsilon`` (0 for the unmeasured root).

    Each ``eps_l`` is rounded down to a double (never up), so the levels' exact values sum to at most
    ``epsilon``: the noise never spends more than the accountant is charged.

    ``uniform``: ``epsilon / L`` per measured level; ``geometric``: proportional
    to ``b**(-l/3)`` (the cube-root rule for a 2-D tree with ``b`` splits per
    axis, Cormode et al.'s quadtree rule when ``b = 2``; not optimal on a 1-D
    tree) [CPSSY12]; ``optimal``: proportional to ``M_l**(1/3)`` (see the
    module docstring and :func:`level_usage`) [QYL13].

    Parameters
    ----------
    n : int
        Number of leaves, >= 1.
    branching : int
        Branching factor b >= 2.
    epsilon : float
        Total privacy budget, finite and > 0.
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        How the budget is split over the measured levels.
    measure_root : bool, default True
        Whether the root level is measured (and so gets a share).

    Returns
    -------
    numpy.ndarray
        (h+1,) per-level budgets, leaves first.

    Raises
    ------
    TypeError
        If ``n`` or ``branching`` is not an integer, or ``measure_root`` not a bool.
    ValueError
        If ``n < 1``, ``branching < 2``, ``epsilon`` is not finite and >= :data:`MIN_EPSILON`, or
        ``allocation`` is not one of :data:`ALLOCATIONS`.

    References
    ----------
    Cormode et al., "Differentially Private Spatial Decompositions", ICDE 2012
    ([CPSSY12]); Qardaji, Yang, Li, PVLDB 2013 ([QYL13]).

    Examples
    --------
    >>> level_epsilons(8, 2, 1.0, measure_root=False).round(4).tolist()
    [0.3333, 0.3333, 0.3333, 0.0]
    """
    tree = build_tree(n, branching, measure_root=measure_root)
    epsilon = check_budget(epsilon)
    allocation = check_choice("allocation", allocation, ALLOCATIONS)
    return _level_shares(tree, allocation, epsilon)


def _level_variances(tree: Tree, allocation: str) -> np.ndarray:
    """Laplace variance ``2 / eps_l**2`` per level at epsilon = 1 (inf for unmeasured levels).

    Kept as ``2 / w**2`` rather than ``laplace_variance(1, w)`` (``2 (1/w)**2``):
    the two differ in the last bit and these variances weight constrained
    inference, whose outputs must stay bit-identical.
    """
    w = _weights(tree, allocation)
    with np.errstate(divide="ignore"):
        return np.where(w > 0, 2.0 / np.where(w > 0, w, 1.0) ** 2, np.inf)
