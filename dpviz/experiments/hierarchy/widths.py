"""Error of range queries as a function of the range width: simulated releases beside the exact curves.

References
----------
- [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
  Differentially Private Histograms." PVLDB 6(14), 2013.
- [XWG10] X. Xiao, G. Wang, J. Gehrke. "Differential Privacy via Wavelet
  Transforms." ICDE 2010.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpviz import hierarchy as H
from dpviz import wavelet as W
from dpviz.experiments import check_band
from dpviz.experiments.hierarchy.data import default_widths
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_choice, check_counts, check_elements, check_int, check_widths

__all__ = ["METHODS", "METHOD_LABELS", "WidthCurves", "range_error_by_width"]

#: Method keys understood by :func:`range_error_by_width`.
METHODS = ("flat", "tree", "tree_ci", "wavelet")
#: Legend label of each method.
METHOD_LABELS = {"flat": "Flat (identity)", "tree": "H_b", "tree_ci": "H_b + constrained inference",
                 "wavelet": "Wavelet (Privelet)"}

#: ``answer(starts, stops)`` -> (k, q) answers of k releases.
Answer = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class WidthCurves:
    """Mean squared error of range queries by width: exact analytic curves and Monte Carlo estimates.

    Parameters
    ----------
    widths : numpy.ndarray
        (w,) range widths.
    methods : tuple of str
        Method keys (see :data:`METHODS`).
    analytic : dict of str to numpy.ndarray
        Method -> (w,) exact MSE averaged over all ranges of each width.
    simulated : dict of str to numpy.ndarray
        Method -> (w,) mean over trials of each trial's average squared error.
    lower, upper : dict of str to numpy.ndarray
        Method -> (w,) percentiles (``band``) of the per-trial average squared error.
    stderr : dict of str to numpy.ndarray
        Method -> (w,) standard error of ``simulated`` (sample sd over trials / sqrt(trials)).
    trials : int
        Number of simulated releases per method.
    band : tuple of float
        The two percentiles of ``lower`` and ``upper``.
    epsilon : float
        Privacy budget of each release.
    branching : int
        Branching factor of the tree methods.
    allocation : str
        Budget allocation over the tree's levels.
    measure_root : bool
        Whether the tree's root is measured.
    n : int
        Number of leaves.
    ranges_per_trial : int or None
        Random ranges per width and trial (None: all ranges of each width).
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


def _errors_by_width(answer: Answer, truth_prefix: np.ndarray, widths: np.ndarray, k: int, n: int,
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


def _leaf_answers(leaves: np.ndarray) -> Answer:
    """Range answers of (k, n) leaf estimates through their prefix sums (computed once)."""
    P = np.zeros((leaves.shape[0], leaves.shape[1] + 1))
    np.cumsum(leaves, axis=1, out=P[:, 1:])
    return lambda i, j: H.prefix_range_sums(P, i, j)


def _cover_answers(release: H.TreeRelease) -> Answer:
    """H_b range answers of a release through its per-level prefix sums (computed once)."""
    prefixes = H.level_prefix_sums(release)
    return lambda i, j: H.cover_sums(release.tree, prefixes, i, j)


def range_error_by_width(x: ArrayLike, branching: int, epsilon: float, widths: ArrayLike | None = None, *,
                         trials: int = 200, methods: Sequence[str] = ("flat", "tree", "tree_ci"),
                         allocation: str = "uniform", measure_root: bool = True,
                         ranges_per_trial: int | None = None, band: Sequence[float] = (5.0, 95.0),
                         rng: RngLike = None) -> WidthCurves:
    """Simulated vs exact MSE of range queries as a function of the range width.

    Each trial is one epsilon-DP release per method: Flat (``Lap(1/epsilon)``
    per leaf), H_b (noisy node counts, minimal node cover), H_b with
    constrained inference (least-squares leaves) and Privelet.  For each width
    the trial's average squared error over all ranges of that width (or over
    ``ranges_per_trial`` ranges drawn uniformly, which estimates the same mean)
    is recorded; ``simulated`` is its mean over trials and must agree with the
    exact ``analytic`` curve within a few ``stderr`` [QYL13] [XWG10].

    Parameters
    ----------
    x : array_like
        True histogram (n bins).
    branching : int
        Branching factor b >= 2 of the tree methods.
    epsilon : float
        Privacy budget of every release, finite and > 0.
    widths : array_like of int, optional
        Range widths in ``[1, n]``; default :func:`default_widths`.
    trials : int, default 200
        Independent releases per method, >= 2.
    methods : sequence of {"flat", "tree", "tree_ci", "wavelet"}
        Which estimators to simulate.
    allocation : {"uniform", "geometric", "optimal"}, default "uniform"
        Budget split over the tree's levels (see :func:`dpviz.hierarchy.measure`).
    measure_root : bool, default True
        Whether the tree's root is measured.
    ranges_per_trial : int, optional
        Random ranges per width and trial (None: all ``n - w + 1``).
    band : (lo, hi), default (5, 95)
        Percentiles of the per-trial average squared error.
    rng : None, int, SeedSequence or Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    WidthCurves
        Exact and simulated MSE per width and method.

    Raises
    ------
    TypeError
        If ``x`` is not numeric, an integer argument is not an integer or ``methods`` is a string.
    ValueError
        If an argument is out of range (e.g. ``trials < 2``, an unknown method or none,
        a width outside ``[1, n]`` or a bad ``band``), or the simulation would exceed
        :data:`~dpviz.validation.MAX_ELEMENTS` array elements.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]); Xiao, Wang, Gehrke, ICDE 2010 ([XWG10]).

    Examples
    --------
    >>> c = range_error_by_width([3, 1, 4, 1, 5, 9, 2, 6], 2, 1.0, [1, 4], trials=5, rng=0)
    >>> c.widths.tolist(), sorted(c.analytic)
    ([1, 4], ['flat', 'tree', 'tree_ci'])
    """
    x = check_counts("x", x)
    n = x.size
    epsilon = H.check_budget(epsilon)
    trials = check_int("trials", trials, minimum=2)
    lo, hi = check_band(band)
    if isinstance(methods, str):
        raise TypeError(f"methods must be a sequence of method names, got the string {methods!r}; "
                        f"write ({methods!r},)")
    methods = tuple(check_choice("methods[]", m, METHODS) for m in methods)
    if not methods:
        raise ValueError(f"methods must name at least one of {METHODS}, got an empty sequence")
    if ranges_per_trial is not None:
        ranges_per_trial = check_int("ranges_per_trial", ranges_per_trial, minimum=1)
    widths = default_widths(n) if widths is None else check_widths(n, widths, "len(x)")
    check_elements(float(trials) * widths.size * (n if ranges_per_trial is None else ranges_per_trial),
                   "range errors", trials=trials, ranges_per_trial=ranges_per_trial, n=n)
    check_elements(float(trials) * 2 * n, "noisy releases", trials=trials, n=n)
    tree = H.build_tree(n, branching, measure_root=measure_root)
    gen = as_generator(rng)
    prefix = np.concatenate([[0.0], np.cumsum(x)])
    need_tree = "tree" in methods or "tree_ci" in methods
    release = H.measure(x, branching, epsilon, allocation=allocation, measure_root=measure_root, rng=gen,
                        size=trials) if need_tree else None
    analytic: dict[str, np.ndarray] = {}
    sim: dict[str, np.ndarray] = {}
    low: dict[str, np.ndarray] = {}
    up: dict[str, np.ndarray] = {}
    se: dict[str, np.ndarray] = {}
    for m in methods:
        if m == "flat":
            ans = _leaf_answers(H.flat_release(x, epsilon, rng=gen, size=trials))
            analytic[m] = H.range_mse_by_width(n, None, epsilon, widths, constrained=False)
        elif m == "tree":
            assert release is not None  # drawn above whenever a tree method is asked for
            ans = _cover_answers(release)
            analytic[m] = H.range_mse_by_width(n, tree.branching, epsilon, widths, constrained=False,
                                               allocation=allocation, measure_root=measure_root)
        elif m == "tree_ci":
            assert release is not None
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
