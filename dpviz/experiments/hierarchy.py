"""Experiments for the hierarchies lecture: simulated range-query error beside the exact analytic error.

Everything here returns dataclasses of numpy arrays (never figures).  The
analytic numbers come from :mod:`dpviz.hierarchy` and :mod:`dpviz.wavelet`;
the simulations draw real releases (Flat, H_b, H_b with constrained
inference, Privelet) and measure their squared error on range queries.

References
----------
.. [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
   Differentially Private Histograms." PVLDB 6(14), 2013.
.. [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the Accuracy of
   Differentially Private Histograms Through Consistency." PVLDB 3(1), 2010.
.. [XWG10] X. Xiao, G. Wang, J. Gehrke. "Differential Privacy via Wavelet
   Transforms." ICDE 2010.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpviz import hierarchy as H
from dpviz import wavelet as W
from dpviz.experiments import check_band
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_choice, check_counts, check_epsilon, check_int, check_widths

__all__ = [
    "METHODS",
    "METHOD_LABELS",
    "coarsen",
    "synthetic_histogram",
    "dataset_histogram",
    "default_widths",
    "WidthCurves",
    "range_error_by_width",
    "CoverNodes",
    "HierarchyRun",
    "hierarchy_explorer_run",
    "BranchingStudy",
    "branching_study",
    "allocation_study",
    "dimension_study",
    "DimensionSimulation",
    "dimension_simulation",
]

#: Method keys understood by :func:`range_error_by_width`.
METHODS = ("flat", "tree", "tree_ci", "wavelet")
METHOD_LABELS = {"flat": "Flat (identity)", "tree": "H_b", "tree_ci": "H_b + constrained inference",
                 "wavelet": "Wavelet (Privelet)"}


# --------------------------------------------------------------------------- data
def coarsen(x, n: int) -> np.ndarray:
    """Aggregate a histogram into ``n`` bins of (nearly) equal width (sums of consecutive cells).

    Bin k holds cells ``[floor(k m / n), floor((k+1) m / n))`` of the m input cells;
    when n divides m every bin has m/n cells.  Counts are preserved (sum unchanged).

    Examples
    --------
    >>> coarsen([1, 2, 3, 4, 5, 6], 3).tolist()
    [3.0, 7.0, 11.0]
    """
    x = check_counts("x", x)
    n = check_int("n", n, minimum=1, maximum=x.size)
    edges = (np.arange(n) * x.size) // n
    return np.add.reduceat(x, edges)


def synthetic_histogram(n: int, *, total: float = 100_000.0, rng: RngLike = 0) -> np.ndarray:
    """A smooth, bumpy synthetic histogram of ``n`` bins (three Gaussian bumps on a floor), integer counts."""
    n = check_int("n", n, minimum=1)
    g = as_generator(rng)
    t = (np.arange(n) + 0.5) / n
    centres, widths, weights = g.uniform(0.1, 0.9, 3), g.uniform(0.02, 0.12, 3), g.uniform(0.5, 2.0, 3)
    dens = 0.15 + sum(w * np.exp(-0.5 * ((t - c) / s) ** 2) for c, s, w in zip(centres, widths, weights))
    return np.round(dens / dens.sum() * total)


def dataset_histogram(name: str, n: int) -> np.ndarray:
    """``"synthetic"`` or a shipped 1-D histogram (``dpviz.datasets``) coarsened to ``n`` bins."""
    if name == "synthetic":
        return synthetic_histogram(n)
    from dpviz import datasets

    return coarsen(datasets.load(name), n)


def default_widths(n: int, count: int = 24) -> np.ndarray:
    """About ``count`` distinct range widths from 1 to n, evenly spaced on a log scale."""
    n = check_int("n", n, minimum=1)
    count = check_int("count", count, minimum=1)
    return np.unique(np.round(np.geomspace(1, n, count)).astype(np.int64))


# --------------------------------------------------------------------------- error vs width
@dataclass(frozen=True)
class WidthCurves:
    """Mean squared error of range queries by width: exact analytic curves and Monte Carlo estimates.

    Attributes
    ----------
    widths : (w,) range widths
    methods : method keys (see :data:`METHODS`)
    analytic : method -> (w,) exact MSE averaged over all ranges of each width
    simulated : method -> (w,) mean over trials of each trial's average squared error
    lower, upper : method -> (w,) percentiles (``band``) of the per-trial average squared error
    stderr : method -> (w,) standard error of ``simulated`` (sample sd over trials / sqrt(trials))
    trials, band, epsilon, branching, allocation, measure_root, n, ranges_per_trial
    """

    widths: np.ndarray
    methods: tuple[str, ...]
    analytic: dict[str, np.ndarray]
    simulated: dict[str, np.ndarray]
    lower: dict[str, np.ndarray]
    upper: dict[str, np.ndarray]
    stderr: dict[str, np.ndarray]
    trials: int
    band: tuple[float, float]
    epsilon: float
    branching: int
    allocation: str
    measure_root: bool
    n: int
    ranges_per_trial: int | None


def _errors_by_width(answer, truth_prefix: np.ndarray, widths: np.ndarray, k: int, n: int,
                     ranges_per_trial: int | None, gen: np.random.Generator) -> np.ndarray:
    """(k, w) per-trial average squared error over ranges of each width (all ranges, or random ones).

    ``answer(i, j)`` returns the (k, q) answers of the ranges ``[i, j)``.  With
    ``ranges_per_trial`` every (trial, width) gets that many starts drawn
    uniformly from ``0..n-w``, all widths in one vectorised call.
    """
    if ranges_per_trial is None:
        out = np.empty((k, widths.size))
        for t, w in enumerate(widths):
            i = np.arange(n - w + 1)
            err = answer(i, i + w) - (truth_prefix[i + w] - truth_prefix[i])
            out[:, t] = np.mean(err * err, axis=1)
        return out
    r = ranges_per_trial
    w = np.repeat(widths, r)                                       # (W r,)
    i = np.floor(gen.random((k, w.size)) * (n - w + 1)).astype(np.int64)
    j = i + w
    err = answer(i, j) - (truth_prefix[j] - truth_prefix[i])
    return np.mean((err * err).reshape(k, widths.size, r), axis=2)


def _leaf_answers(leaves: np.ndarray):
    P = np.zeros((leaves.shape[0], leaves.shape[1] + 1))
    np.cumsum(leaves, axis=1, out=P[:, 1:])
    return lambda i, j: H.prefix_range_sums(P, i, j)


def range_error_by_width(x, branching: int, epsilon: float, widths=None, *, trials: int = 200,
                         methods=("flat", "tree", "tree_ci"), allocation: str = "uniform",
                         measure_root: bool = True, ranges_per_trial: int | None = None,
                         band=(5.0, 95.0), rng: RngLike = None) -> WidthCurves:
    """Simulated vs exact MSE of range queries as a function of the range width.

    Each trial is one epsilon-DP release per method: Flat (``Lap(1/epsilon)``
    per leaf), H_b (noisy node counts, minimal node cover), H_b with
    constrained inference (least-squares leaves) and Privelet.  For each width
    the trial's average squared error over all ranges of that width (or over
    ``ranges_per_trial`` ranges drawn uniformly, which estimates the same mean)
    is recorded; ``simulated`` is its mean over trials and must agree with the
    exact ``analytic`` curve within a few ``stderr`` [QYL13]_ [XWG10]_.

    Parameters
    ----------
    x : array_like
        True histogram (n bins).
    branching, epsilon, allocation, measure_root
        Tree parameters (see :func:`dpviz.hierarchy.measure`).
    widths : array_like of int, optional
        Default :func:`default_widths`.
    trials : int
        Independent releases per method, >= 2.
    methods : sequence of {"flat", "tree", "tree_ci", "wavelet"}
    ranges_per_trial : int, optional
        Random ranges per width and trial (None: all ``n - w + 1``).
    band : (lo, hi)
        Percentiles of the per-trial average squared error.
    rng : seed or Generator

    Returns
    -------
    WidthCurves
    """
    x = check_counts("x", x)
    n = x.size
    epsilon = check_epsilon(epsilon)
    trials = check_int("trials", trials, minimum=2)
    lo, hi = check_band(band)
    methods = tuple(check_choice("methods[]", m, METHODS) for m in methods)
    if ranges_per_trial is not None:
        ranges_per_trial = check_int("ranges_per_trial", ranges_per_trial, minimum=1)
    widths = default_widths(n) if widths is None else check_widths(n, widths)
    tree = H.build_tree(n, branching, measure_root=measure_root)
    gen = as_generator(rng)
    prefix = np.concatenate([[0.0], np.cumsum(x)])
    need_tree = "tree" in methods or "tree_ci" in methods
    release = H.measure(x, branching, epsilon, allocation=allocation, measure_root=measure_root, rng=gen,
                        size=trials) if need_tree else None
    analytic, sim, low, up, se = {}, {}, {}, {}, {}
    for m in methods:
        if m == "flat":
            ans = _leaf_answers(H.flat_release(x, epsilon, rng=gen, size=trials))
            analytic[m] = H.range_mse_by_width(n, None, epsilon, widths, constrained=False)
        elif m == "tree":
            prefixes = H.level_prefix_sums(release)
            ans = lambda i, j: H.cover_sums(release.tree, prefixes, i, j)  # noqa: E731
            analytic[m] = H.range_mse_by_width(n, tree.branching, epsilon, widths, constrained=False,
                                               allocation=allocation, measure_root=measure_root)
        elif m == "tree_ci":
            ans = _leaf_answers(release.leaves(constrained=True))
            analytic[m] = H.range_mse_by_width(n, tree.branching, epsilon, widths, constrained=True,
                                               allocation=allocation, measure_root=measure_root)
        else:
            ans = _leaf_answers(W.privelet_release(x, epsilon, rng=gen, size=trials))
            analytic[m] = W.privelet_range_mse_by_width(n, epsilon, widths)
        per_trial = _errors_by_width(ans, prefix, widths, trials, n, ranges_per_trial, gen)
        sim[m] = per_trial.mean(axis=0)
        low[m], up[m] = np.percentile(per_trial, [lo, hi], axis=0)
        se[m] = per_trial.std(axis=0, ddof=1) / np.sqrt(trials)
    return WidthCurves(widths, methods, analytic, sim, low, up, se, trials, (lo, hi), epsilon, tree.branching,
                       allocation, tree.measure_root, n, ranges_per_trial)


# --------------------------------------------------------------------------- the explorer's computation
@dataclass(frozen=True)
class CoverNodes:
    """The minimal node cover of one range query in one release, before and after constrained inference.

    Attributes
    ----------
    start, stop : the range ``[start, stop)``
    level : (c,) level of each cover node (0 = leaves)
    node_start, node_stop : (c,) leaf range of each cover node
    truth, noisy, consistent : (c,) true count, noisy count, count after constrained inference
    """

    start: int
    stop: int
    level: np.ndarray
    node_start: np.ndarray
    node_stop: np.ndarray
    truth: np.ndarray
    noisy: np.ndarray
    consistent: np.ndarray


@dataclass(frozen=True)
class HierarchyRun:
    """Everything the hierarchy explorer draws (one release, the cover of one range, error curves).

    Attributes
    ----------
    truth : (n,) true histogram
    flat : (n,) one Flat release
    noisy_leaves : (n,) the H_b release's noisy leaves
    ci_leaves : (n,) the same release after constrained inference
    constrained : whether the explorer shows the constrained leaves
    cover : :class:`CoverNodes` of the selected range
    answers : dict method -> answer of the selected range in this release (and "truth")
    curves : :class:`WidthCurves`
    level_epsilons : per-level budgets
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
    tree = release.tree
    levels, s_, e_, idx = [], [], [], []
    cov = H.minimal_cover(tree, [start], [stop])
    for lev, (lo, a, c, hi) in enumerate(cov):
        ks = list(range(int(lo[0]), int(a[0]))) + list(range(int(c[0]), int(hi[0])))
        for k in ks:
            b0, b1 = tree.node_bounds(lev)
            levels.append(lev)
            s_.append(int(b0[k]))
            e_.append(int(b1[k]))
            idx.append(tree.offsets[lev] + k)
    idx = np.array(idx, dtype=int)
    order = np.argsort(np.array(s_), kind="stable")
    pick = lambda v: np.asarray(v)[order]  # noqa: E731
    return CoverNodes(start, stop, pick(levels), pick(s_), pick(e_), release.truth[idx][order],
                      release.noisy[0, idx][order], consistent[idx][order])


def hierarchy_explorer_run(x, branching: int, epsilon: float, *, allocation: str = "uniform",
                           measure_root: bool = True, constrained: bool = True, trials: int = 100,
                           query: tuple[int, int] | None = None, widths=None, ranges_per_trial: int | None = 32,
                           rng: RngLike = None) -> HierarchyRun:
    """What :class:`dpviz.widgets.HierarchyExplorer` shows: one release and the error curves.

    After the ``trials`` simulated releases behind the error curves, one more
    tree release and one Flat release are drawn from the same generator: they
    are "the" release shown, with the node counts on the minimal cover of
    ``query = (start, stop)`` (default the first third of the domain) before
    and after constrained inference [HRMS10]_.
    ``widths`` defaults to 16 log-spaced widths and each (trial, width) uses
    ``ranges_per_trial`` random ranges, which keeps a redraw fast.
    """
    x = check_counts("x", x)
    n = x.size
    gen = as_generator(rng)
    if query is None:
        query = (0, max(1, n // 3))
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


# --------------------------------------------------------------------------- studies for the lecture
@dataclass(frozen=True)
class BranchingStudy:
    """Average range MSE as a function of the branching factor (exact, optionally simulated).

    Attributes
    ----------
    n, epsilon, allocation, measure_root
    branchings : (m,) branching factors
    flat : exact Flat average MSE (scalar)
    tree, tree_ci : (m,) exact average MSE without / with constrained inference
    eq3 : (m,) Qardaji's approximation Eq. (3) (uses epsilon/h per level, root not measured)
    sim_tree, sim_tree_ci, se_tree, se_tree_ci : (m,) Monte Carlo estimates (NaN if not simulated)
    """

    n: int
    epsilon: float
    allocation: str
    measure_root: bool
    branchings: np.ndarray
    flat: float
    tree: np.ndarray
    tree_ci: np.ndarray
    eq3: np.ndarray
    sim_tree: np.ndarray
    sim_tree_ci: np.ndarray
    se_tree: np.ndarray
    se_tree_ci: np.ndarray


def _random_ranges(gen: np.random.Generator, n: int, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Ranges drawn uniformly from all n(n+1)/2 ranges: two distinct cut points of 0..n, sorted."""
    a = gen.integers(0, n + 1, size=shape)
    b = gen.integers(0, n, size=shape)
    b = b + (b >= a)  # uniform over the n values != a
    return np.minimum(a, b), np.maximum(a, b)


def branching_study(x, epsilon: float, branchings, *, allocation: str = "uniform", measure_root: bool = True,
                    trials: int = 0, ranges_per_trial: int = 2000, rng: RngLike = None) -> BranchingStudy:
    """Exact (and, if ``trials > 0``, simulated) average range MSE of H_b and H_b + CI for each b [QYL13]_.

    The simulation draws ``ranges_per_trial`` ranges uniformly from all ranges
    per release, so each trial's mean squared error estimates the average MSE.
    """
    x = check_counts("x", x)
    n = x.size
    epsilon = check_epsilon(epsilon)
    bs = np.array([check_int("branchings[]", b, minimum=2) for b in np.atleast_1d(branchings)])
    trials = check_int("trials", trials, minimum=0)
    gen = as_generator(rng)
    kw = dict(allocation=allocation, measure_root=measure_root)
    tree = H.branching_curve(n, epsilon, bs, constrained=False, **kw)
    ci = H.branching_curve(n, epsilon, bs, constrained=True, **kw)
    eq3 = np.array([H.qardaji_average_mse(n, int(b), epsilon) for b in bs])
    sims = np.full((4, bs.size), np.nan)
    if trials >= 2:
        prefix = np.concatenate([[0.0], np.cumsum(x)])
        for t, b in enumerate(bs):
            rel = H.measure(x, int(b), epsilon, rng=gen, size=trials, **kw)
            i, j = _random_ranges(gen, n, (trials, ranges_per_trial))
            truth = prefix[j] - prefix[i]
            for r, est in enumerate((H.tree_range_answers(rel, i, j),
                                     H.range_answers(rel.leaves(constrained=True), i, j))):
                per_trial = np.mean((est - truth) ** 2, axis=1)
                sims[r, t] = per_trial.mean()
                sims[2 + r, t] = per_trial.std(ddof=1) / np.sqrt(trials)
    return BranchingStudy(n, epsilon, allocation, bool(measure_root), bs, H.flat_average_range_mse(n, epsilon),
                          tree, ci, eq3, sims[0], sims[1], sims[2], sims[3])


def allocation_study(n: int, epsilon: float, branchings, *, measure_root: bool = True) -> dict[str, dict[str, np.ndarray]]:
    """Exact average range MSE for each allocation: ``{allocation: {"tree": (m,), "tree_ci": (m,)}}``."""
    out = {}
    for a in H.ALLOCATIONS:
        out[a] = {"tree": H.branching_curve(n, epsilon, branchings, constrained=False, allocation=a,
                                            measure_root=measure_root),
                  "tree_ci": H.branching_curve(n, epsilon, branchings, constrained=True, allocation=a,
                                               measure_root=measure_root)}
    return out


def dimension_study(ns, dims, epsilon: float, branchings, *, measure_root: bool = True) -> dict[int, dict[str, np.ndarray]]:
    """For each dimension d: Flat and best-b hierarchical average MSE over all boxes of an ``n^d`` grid.

    Returns ``{d: {"n": (k,), "cells": (k,), "flat": (k,), "best_tree": (k,), "best_b": (k,)}}`` [QYL13]_ §5.
    """
    ns = [check_int("ns[]", v, minimum=1) for v in np.atleast_1d(ns)]
    bs = [check_int("branchings[]", b, minimum=2) for b in np.atleast_1d(branchings)]
    out = {}
    for d in np.atleast_1d(dims):
        d = check_int("dims[]", d, minimum=1, maximum=8)
        flat, best, best_b = [], [], []
        for n in ns:
            flat.append(H.average_range_mse_nd(n, d, None, epsilon))
            vals = [H.average_range_mse_nd(n, d, b, epsilon, measure_root=measure_root) for b in bs]
            best.append(min(vals))
            best_b.append(bs[int(np.argmin(vals))])
        out[d] = {"n": np.array(ns), "cells": np.array(ns, dtype=float) ** d, "flat": np.array(flat),
                  "best_tree": np.array(best), "best_b": np.array(best_b)}
    return out


@dataclass(frozen=True)
class DimensionSimulation:
    """Simulated vs exact average MSE over all boxes of an ``n^d`` grid (Flat or H_b, no inference).

    Attributes
    ----------
    n, d, branching (None = Flat), epsilon, measure_root, trials
    exact : exact average MSE (:func:`dpviz.hierarchy.average_range_mse_nd`)
    simulated : mean over trials of each trial's mean squared error over random boxes
    stderr : standard error of ``simulated``
    """

    n: int
    d: int
    branching: int | None
    epsilon: float
    measure_root: bool
    trials: int
    exact: float
    simulated: float
    stderr: float


def dimension_simulation(n: int, d: int, branching: int | None, epsilon: float, *, trials: int = 20,
                         boxes_per_trial: int = 2000, measure_root: bool = True,
                         rng: RngLike = None) -> DimensionSimulation:
    """Release an ``n^d`` grid ``trials`` times (Flat or grid hierarchy) and measure the error on random boxes.

    Each box has independent sides drawn uniformly from all 1-D ranges, i.e.
    uniformly from all boxes, so each trial's mean squared error estimates
    the exact average [QYL13]_ §5.  The grid holds Poisson(5) counts (the
    error does not depend on the data).
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1, maximum=4)
    trials = check_int("trials", trials, minimum=2)
    boxes = check_int("boxes_per_trial", boxes_per_trial, minimum=1)
    gen = as_generator(rng)
    x = gen.poisson(5.0, size=(n,) * d).astype(float)
    rel = H.measure_nd(x, branching, epsilon, measure_root=measure_root, rng=gen, size=trials)
    lo = np.empty((trials, boxes, d), dtype=np.int64)
    hi = np.empty_like(lo)
    for a in range(d):
        lo[..., a], hi[..., a] = _random_ranges(gen, n, (trials, boxes))
    ans = H.box_answers_nd(rel, lo, hi)
    S = np.zeros(tuple(m + 1 for m in x.shape))
    C = x
    for axis in range(d):
        C = np.cumsum(C, axis=axis)
    S[(slice(1, None),) * d] = C
    truth = H.box_sums(S[None], [lo[..., a] for a in range(d)], [hi[..., a] for a in range(d)])
    per_trial = np.mean((ans - truth) ** 2, axis=1)
    exact = H.average_range_mse_nd(n, d, branching, epsilon, measure_root=measure_root)
    return DimensionSimulation(n, d, branching, float(epsilon), bool(measure_root), trials, exact,
                               float(per_trial.mean()), float(per_trial.std(ddof=1) / np.sqrt(trials)))
