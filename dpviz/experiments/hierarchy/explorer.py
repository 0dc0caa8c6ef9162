"""What the hierarchy explorer widget shows: one release, the minimal cover of one range, the error curves.

References
----------
- [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the Accuracy of
  Differentially Private Histograms Through Consistency." PVLDB 3(1), 2010.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpviz import hierarchy as H
from dpviz.experiments.hierarchy.data import default_widths
from dpviz.experiments.hierarchy.widths import WidthCurves, range_error_by_width
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_bool, check_counts, check_int

__all__ = ["CoverNodes", "HierarchyRun", "hierarchy_explorer_run"]


@dataclass(frozen=True)
class CoverNodes:
    """The minimal node cover of one range query in one release, before and after constrained inference.

    Parameters
    ----------
    start, stop : int
        The range ``[start, stop)``.
    level : numpy.ndarray
        (c,) level of each cover node (0 = leaves), nodes sorted by their first leaf.
    node_start, node_stop : numpy.ndarray
        (c,) leaf range ``[node_start, node_stop)`` of each cover node.
    truth, noisy, consistent : numpy.ndarray
        (c,) true count, noisy count and count after constrained inference of each cover node.
    """

    start: int
    stop: int
    level: np.ndarray
    node_start: np.ndarray
    node_stop: np.ndarray
    truth: np.ndarray
    noisy: np.ndarray
    consistent: np.ndarray

    @property
    def noisy_error(self) -> np.ndarray:
        """(c,) error of each cover node's noisy count, ``noisy - truth`` (the Laplace noise itself)."""
        return self.noisy - self.truth

    @property
    def consistent_error(self) -> np.ndarray:
        """(c,) error of each cover node after constrained inference, ``consistent - truth``."""
        return self.consistent - self.truth

    @property
    def correction(self) -> np.ndarray:
        """(c,) what constrained inference changed at each cover node, ``consistent - noisy``."""
        return self.consistent - self.noisy


@dataclass(frozen=True)
class HierarchyRun:
    """Everything the hierarchy explorer draws (one release, the cover of one range, error curves).

    Parameters
    ----------
    truth : numpy.ndarray
        (n,) true histogram.
    flat : numpy.ndarray
        (n,) one Flat release.
    noisy_leaves : numpy.ndarray
        (n,) the H_b release's noisy leaves.
    ci_leaves : numpy.ndarray
        (n,) the same release after constrained inference.
    constrained : bool
        Whether the explorer shows the constrained leaves.
    cover : CoverNodes
        The minimal cover of the selected range.
    answers : dict of str to float
        Method -> answer of the selected range in this release (and ``"truth"``).
    curves : WidthCurves
        Exact and simulated error by range width.
    level_epsilons : numpy.ndarray
        Per-level budgets of the tree release.
    """

    truth: np.ndarray
    flat: np.ndarray
    noisy_leaves: np.ndarray
    ci_leaves: np.ndarray
    constrained: bool
    cover: CoverNodes
    answers: dict[str, float]
    curves: WidthCurves
    level_epsilons: np.ndarray


def _cover_nodes(release: H.TreeRelease, consistent: np.ndarray, start: int, stop: int) -> CoverNodes:
    """The cover nodes of ``[start, stop)`` in the first release, sorted by their first leaf."""
    tree = release.tree
    levels: list[int] = []
    s_: list[int] = []
    e_: list[int] = []
    idx_list: list[int] = []
    cov = H.minimal_cover(tree, [start], [stop])
    for lev, (lo, a, c, hi) in enumerate(cov):
        ks = list(range(int(lo[0]), int(a[0]))) + list(range(int(c[0]), int(hi[0])))
        for k in ks:
            b0, b1 = tree.node_bounds(lev)
            levels.append(lev)
            s_.append(int(b0[k]))
            e_.append(int(b1[k]))
            idx_list.append(tree.offsets[lev] + k)
    idx = np.array(idx_list, dtype=int)
    order = np.argsort(np.array(s_), kind="stable")

    def pick(v: list[int]) -> np.ndarray:
        return np.asarray(v)[order]

    return CoverNodes(start, stop, pick(levels), pick(s_), pick(e_), release.truth[idx][order],
                      release.noisy[0, idx][order], consistent[idx][order])


def hierarchy_explorer_run(x: ArrayLike, branching: int, epsilon: float, *, allocation: str = "uniform",
                           measure_root: bool = True, constrained: bool = True, trials: int = 100,
                           query: tuple[int, int] | None = None, widths: ArrayLike | None = None,
                           ranges_per_trial: int | None = 32, rng: RngLike = None) -> HierarchyRun:
    """What :class:`dpviz.widgets.HierarchyExplorer` shows: one release and the error curves.

    After the ``trials`` simulated releases behind the error curves, one more
    tree release and one Flat release are drawn from the same generator: they
    are "the" release shown, with the node counts on the minimal cover of
    ``query = (start, stop)`` (default the first third of the domain) before
    and after constrained inference [HRMS10].
    ``widths`` defaults to 16 log-spaced widths and each (trial, width) uses
    ``ranges_per_trial`` random ranges, which keeps a redraw fast.

    Parameters
    ----------
    x : array_like
        True histogram (n bins).
    branching : int
        Branching factor b >= 2.
    epsilon : float
        Privacy budget of every release, finite and > 0.
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        Budget split over the tree's levels.
    measure_root : bool, default True
        Whether the tree's root is measured.
    constrained : bool, default True
        Whether the explorer shows the leaves after constrained inference (stored, not used here).
    trials : int, default 100
        Releases behind the error curves, >= 2.
    query : (start, stop), optional
        The range whose cover is shown; default ``(0, max(1, n // 3))``.
    widths : array_like of int, optional
        Widths of the error curves; default 16 log-spaced widths.
    ranges_per_trial : int or None, default 32
        Random ranges per width and trial (None: all ranges).
    rng : None, int, SeedSequence or Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    HierarchyRun
        The shown release, its cover of ``query``, the answers and the error curves.

    Raises
    ------
    TypeError
        If ``x`` is not numeric, the query bounds are not integers or ``constrained`` not a bool.
    ValueError
        If ``x`` is not a 1-D array of non-negative counts, the query is not a pair, is empty or
        outside ``[0, n]``, or another argument is invalid (see :func:`range_error_by_width`).

    References
    ----------
    Hay et al., PVLDB 2010 ([HRMS10]).

    Examples
    --------
    >>> run = hierarchy_explorer_run([3, 1, 4, 1, 5, 9, 2, 6], 2, 1.0, trials=5, rng=0)
    >>> run.answers["truth"], run.level_epsilons.size
    (4.0, 4)
    """
    x = check_counts("x", x)
    n = x.size
    constrained = check_bool("constrained", constrained)
    gen = as_generator(rng)
    if query is None:
        query = (0, max(1, n // 3))
    if not isinstance(query, (tuple, list)) or len(query) != 2:
        raise ValueError(f"query must be a (start, stop) pair, got {query!r:.60}")
    start, stop = (check_int("query start", query[0], minimum=0, maximum=n - 1),
                   check_int("query stop", query[1], minimum=1, maximum=n))
    if stop <= start:
        raise ValueError(f"query must satisfy start < stop, got ({start}, {stop})")
    if widths is None:
        widths = default_widths(n, 16)
    curves = range_error_by_width(x, branching, epsilon, widths, trials=trials, allocation=allocation,
                                  measure_root=measure_root, ranges_per_trial=ranges_per_trial, rng=gen)
    one = H.measure(x, branching, epsilon, allocation=allocation, measure_root=measure_root, rng=gen, size=1)
    nodes = H.constrained_inference(one.noisy, n, branching, allocation=allocation, measure_root=measure_root,
                                    nodes=True)[0]
    flat = H.flat_release(x, epsilon, rng=gen)
    ci_leaves = nodes[:n]
    i, j = np.array([start]), np.array([stop])
    answers = {"truth": float(x[start:stop].sum()), "flat": float(flat[start:stop].sum()),
               "tree": float(H.tree_range_answers(one, i, j)[0, 0]), "tree_ci": float(ci_leaves[start:stop].sum())}
    return HierarchyRun(x, flat, one.noisy[0, :n].copy(), ci_leaves, bool(constrained),
                        _cover_nodes(one, nodes, start, stop), answers, curves, one.level_epsilons)
