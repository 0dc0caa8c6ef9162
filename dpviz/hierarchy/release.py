"""One-dimensional releases: noisy node counts of a tree (``H_b``) and the Flat method.

Level ``l`` gets budget ``eps_l`` and each of its nodes ``count + Lap(1 / eps_l)``;
nodes of one level cover disjoint leaves (parallel composition) and the levels
compose sequentially, so the release is ``sum_l eps_l = epsilon``-DP for
neighbouring histograms that differ by adding or removing one record.

References
----------
- [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the Accuracy of
  Differentially Private Histograms Through Consistency." PVLDB 3(1), 2010.
- [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
  Differentially Private Histograms." PVLDB 6(14), 2013.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant.charging import charge
from dpviz.hierarchy.budgets import ALLOCATIONS, _level_shares, check_budget
from dpviz.hierarchy.counts import _node_counts_2d
from dpviz.hierarchy.inference import constrained_inference
from dpviz.hierarchy.tree import Tree, build_tree
from dpviz.mechanisms import laplace_scale, laplace_variance, standard_laplace
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_bool,
    check_choice,
    check_counts,
    check_elements,
    check_int,
    check_trials,
    check_work,
)

if TYPE_CHECKING:
    from dpviz.accountant import PrivacyAccountant

__all__ = ["TreeRelease", "measure", "flat_release"]


@dataclass(frozen=True)
class TreeRelease:
    """Noisy counts of all tree nodes (one or many independent releases), as returned by :func:`measure`.

    Parameters
    ----------
    tree : Tree
        The tree the counts belong to.
    allocation : str
        Budget allocation name (one of :data:`~dpviz.hierarchy.ALLOCATIONS`).
    epsilon : float
        Total privacy budget (the release is epsilon-DP).
    level_epsilons : numpy.ndarray
        (h+1,) per-level budgets (0 for the unmeasured root).
    node_variance : numpy.ndarray
        (n_nodes,) Laplace variance ``2 / eps_l**2`` of each node (inf if unmeasured).
    truth : numpy.ndarray
        (n_nodes,) true node counts.
    noisy : numpy.ndarray
        (n_nodes,) or (size, n_nodes) noisy node counts (NaN at an unmeasured root).

    Examples
    --------
    >>> r = measure([3, 1, 4, 1], 2, 1.0, rng=0)
    >>> r.level_epsilons.round(4).tolist(), r.leaves(constrained=False).shape
    ([0.3333, 0.3333, 0.3333], (4,))
    """

    tree: Tree
    allocation: str
    epsilon: float
    level_epsilons: np.ndarray
    node_variance: np.ndarray
    truth: np.ndarray
    noisy: np.ndarray

    def leaves(self, *, constrained: bool) -> np.ndarray:
        """Leaf estimates: the noisy leaves, or the constrained-inference (least-squares) leaves.

        Parameters
        ----------
        constrained : bool
            Apply constrained inference (:func:`~dpviz.hierarchy.constrained_inference`) first.

        Returns
        -------
        numpy.ndarray
            (n,) or (size, n) leaf estimates (a copy).

        Raises
        ------
        TypeError
            If ``constrained`` is not a bool.
        """
        if not check_bool("constrained", constrained):
            return self.noisy[..., : self.tree.n].copy()
        return constrained_inference(self.noisy, self.tree.n, self.tree.branching, allocation=self.allocation,
                                     measure_root=self.tree.measure_root)

    def level(self, values: np.ndarray, level: int) -> np.ndarray:
        """The slice of a node vector (leaves first order) that belongs to ``level``.

        Parameters
        ----------
        values : numpy.ndarray
            (..., n_nodes) values in the flat node order, e.g. :attr:`noisy`.
        level : int
            Level index (0 = leaves).

        Returns
        -------
        numpy.ndarray
            A view of the (..., sizes[level]) entries of that level.

        Raises
        ------
        TypeError
            If ``level`` is not an integer.
        ValueError
            If ``level`` is outside ``[0, height]`` or ``values`` has no ``n_nodes`` last axis.
        """
        level = check_int("level", level, minimum=0, maximum=self.tree.height)
        if np.shape(values)[-1:] != (self.tree.n_nodes,):
            raise ValueError(f"values must have n_nodes={self.tree.n_nodes} entries on its last axis, "
                             f"got shape {np.shape(values)}")
        return values[..., self.tree.offsets[level]: self.tree.offsets[level + 1]]


def measure(x: ArrayLike, branching: int, epsilon: float, *, allocation: str = "uniform", measure_root: bool = True,
            rng: RngLike = None, size: int | None = None,
            accountant: PrivacyAccountant | None = None) -> TreeRelease:
    """Release every measured node count of the b-ary tree over ``x`` with Laplace noise (epsilon-DP).

    Level ``l`` gets budget ``eps_l`` (:func:`~dpviz.hierarchy.level_epsilons`) and each of its
    nodes ``count + Lap(1 / eps_l)``.  The nodes of a level cover disjoint leaves
    (parallel composition) and levels compose sequentially, so the release is
    ``sum_l eps_l = epsilon``-DP [HRMS10] [QYL13].

    Parameters
    ----------
    x : array_like, shape (n,)
        Non-negative histogram counts.
    branching : int
        Branching factor b >= 2.
    epsilon : float
        Total budget, finite and > 0.
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        How ``epsilon`` is split over the measured levels.
    measure_root : bool, default True
        Whether the root is measured.
    rng : None, int, SeedSequence or Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent releases (stacked on a new first axis).
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` (``epsilon`` when ``size`` is None: k independent releases compose
        sequentially) after every input is checked and before any noise is drawn.

    Returns
    -------
    TreeRelease
        The noisy and true node counts with the per-level budgets and variances.

    Raises
    ------
    TypeError
        If ``x`` is not numeric, ``branching``/``size`` not integers, ``measure_root`` not a bool or
        ``accountant`` not a PrivacyAccountant.
    ValueError
        If ``x`` is not a 1-D array of finite non-negative counts, ``branching < 2``,
        ``epsilon`` is not finite and > 0 (or so small that a Laplace scale overflows), ``allocation`` is
        unknown, ``size < 1``, or ``size * n_nodes`` exceeds :data:`~dpviz.validation.MAX_ELEMENTS`.
    BudgetExceededError
        If ``accountant`` cannot afford ``size * epsilon`` (nothing is drawn or recorded then).

    References
    ----------
    Hay et al., PVLDB 2010 ([HRMS10]); Qardaji, Yang, Li, PVLDB 2013 ([QYL13]).

    Examples
    --------
    >>> r = measure([3, 1, 4, 1, 5], 2, 1.0, rng=0, size=10)
    >>> r.noisy.shape, r.tree.n_measured_levels
    ((10, 11), 4)
    """
    x = check_counts("x", x)
    tree = build_tree(x.size, branching, measure_root=measure_root)
    epsilon = check_budget(epsilon)
    allocation = check_choice("allocation", allocation, ALLOCATIONS)
    size = check_trials(size)
    k = 1 if size is None else size
    check_elements(float(k) * tree.n_nodes, "noisy node counts", size=size, n=x.size)
    # measured: 1.5e7 noisy node counts take about 1.3 s; a lecture's largest run (200 x 65,536 leaves) ~2**25
    check_work(float(k) * tree.n_nodes, 2**25, "noisy node counts (size x nodes)", size=size, n=x.size)
    gen = as_generator(rng)
    eps_l = _level_shares(tree, allocation, epsilon)
    scale = np.full(tree.n_nodes, np.nan)   # Laplace scale 1 / eps_l of each node (NaN: not measured)
    var = np.full(tree.n_nodes, np.inf)     # its variance 2 / eps_l**2 (inf: not measured)
    for l in range(tree.height + 1):
        if eps_l[l] > 0:
            scale[tree.offsets[l]: tree.offsets[l + 1]] = laplace_scale(1.0, eps_l[l])
            var[tree.offsets[l]: tree.offsets[l + 1]] = laplace_variance(1.0, eps_l[l])
    charge(accountant, epsilon, size=size,
           label=f"hierarchy b={tree.branching} ({allocation}, {tree.n_measured_levels} levels)")
    truth = _node_counts_2d(x[None, :], tree)[0]
    last = tree.offsets[int(tree.measured_levels[-1]) + 1]
    noise = standard_laplace(rng=gen, shape=(k, last))
    noise *= scale[:last]
    noise += truth[:last]
    if last == tree.n_nodes:
        noisy = noise
    else:
        noisy = np.full((k, tree.n_nodes), np.nan)
        noisy[:, :last] = noise
    return TreeRelease(tree, allocation, epsilon, eps_l, var, truth, noisy[0] if size is None else noisy)


def flat_release(x: ArrayLike, epsilon: float, *, rng: RngLike = None, size: int | None = None,
                 accountant: PrivacyAccountant | None = None) -> np.ndarray:
    """The Flat method: every leaf count plus ``Lap(1/epsilon)`` (sensitivity 1), shape (n,) or (size, n).

    Adding or removing one record changes one leaf by 1, so the release is epsilon-DP.

    Parameters
    ----------
    x : array_like, shape (n,)
        Non-negative histogram counts.
    epsilon : float
        Privacy budget, finite and > 0.
    rng : None, int, SeedSequence or Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent releases (stacked on a new first axis).
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` (``epsilon`` when ``size`` is None) after every input is checked and
        before any noise is drawn.

    Returns
    -------
    numpy.ndarray
        (n,) noisy leaves, or (size, n).

    Raises
    ------
    TypeError
        If ``x`` is not numeric, ``size`` not an integer or ``accountant`` not a PrivacyAccountant.
    ValueError
        If ``x`` is not a 1-D array of finite non-negative counts, ``epsilon`` is
        not finite and > 0 (or its Laplace scale overflows), ``size < 1``, or ``size * n`` exceeds
        :data:`~dpviz.validation.MAX_ELEMENTS`.
    BudgetExceededError
        If ``accountant`` cannot afford ``size * epsilon`` (nothing is drawn or recorded then).

    Examples
    --------
    >>> flat_release([1, 2, 3], 1.0, rng=0, size=4).shape
    (4, 3)
    """
    x = check_counts("x", x)
    epsilon = check_budget(epsilon)
    size = check_trials(size)
    check_elements(float(1 if size is None else size) * x.size, "noisy leaves", size=size, n=x.size)
    gen = as_generator(rng)
    scale = laplace_scale(1.0, epsilon)
    charge(accountant, epsilon, size=size, label="flat histogram")
    noise = standard_laplace(rng=gen, shape=(1 if size is None else size, x.size))
    noise *= scale
    noise += x
    return noise[0] if size is None else noise
