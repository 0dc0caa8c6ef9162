"""Hierarchies in d dimensions: where a grid hierarchy beats Flat, and a simulation of box queries.

References
----------
- [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
  Differentially Private Histograms." PVLDB 6(14), 2013.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpviz import hierarchy as H
from dpviz.experiments.hierarchy.data import draw_ranges
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_elements, check_int, check_work

__all__ = ["dimension_study", "DimensionSimulation", "dimension_simulation"]


def dimension_study(ns: ArrayLike, dims: ArrayLike, epsilon: float, branchings: ArrayLike, *,
                    measure_root: bool = True) -> dict[int, dict[str, np.ndarray]]:
    """For each dimension d: Flat and best-b hierarchical average MSE over all boxes of an ``n^d`` grid.

    Parameters
    ----------
    ns : array_like of int
        Cells per axis to try, each >= 1.
    dims : array_like of int
        Dimensions to try, each in 1..8.
    epsilon : float
        Total privacy budget, finite and > 0.
    branchings : array_like of int
        Candidate branching factors, each >= 2; the best one is kept per (d, n).
    measure_root : bool, default True
        Whether the root is measured.

    Returns
    -------
    dict
        ``{d: {"n": (k,), "cells": (k,), "flat": (k,), "best_tree": (k,), "best_b": (k,)}}``:
        the grid sizes, the number of cells ``n^d``, the exact Flat and best
        hierarchical average MSE and the best branching factor.

    Raises
    ------
    TypeError
        If an entry of ``ns``, ``dims`` or ``branchings`` is not an integer.
    ValueError
        If an entry is out of range or ``epsilon`` is not finite and > 0.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), §5.

    Examples
    --------
    >>> out = dimension_study([4, 8], [1, 2], 1.0, [2, 4])
    >>> sorted(out), out[2]["flat"].shape
    ([1, 2], (2,))
    """
    ns_ = [check_int("ns[]", v, minimum=1) for v in np.atleast_1d(ns)]
    bs = [check_int("branchings[]", b, minimum=2) for b in np.atleast_1d(branchings)]
    for name, values in (("ns", ns_), ("dims", np.atleast_1d(dims)), ("branchings", bs)):
        if len(values) == 0:
            raise ValueError(f"{name} must hold at least one value, got none")
    out: dict[int, dict[str, np.ndarray]] = {}
    for dim in np.atleast_1d(dims):
        d = check_int("dims[]", dim, minimum=1, maximum=8)
        flat: list[float] = []
        best: list[float] = []
        best_b: list[int] = []
        for n in ns_:
            flat.append(H.average_range_mse_nd(n, d, None, epsilon))
            vals = [H.average_range_mse_nd(n, d, b, epsilon, measure_root=measure_root) for b in bs]
            best.append(min(vals))
            best_b.append(bs[int(np.argmin(vals))])
        out[d] = {"n": np.array(ns_), "cells": np.array(ns_, dtype=float) ** d, "flat": np.array(flat),
                  "best_tree": np.array(best), "best_b": np.array(best_b)}
    return out


@dataclass(frozen=True)
class DimensionSimulation:
    """Simulated vs exact average MSE over all boxes of an ``n^d`` grid (Flat or H_b, no inference).

    Parameters
    ----------
    n : int
        Cells per axis.
    d : int
        Number of dimensions.
    branching : int or None
        Branching factor of the grid hierarchy (None = Flat).
    epsilon : float
        Privacy budget of every release.
    measure_root : bool
        Whether the root is measured.
    trials : int
        Number of simulated releases.
    exact : float
        Exact average MSE (:func:`dpviz.hierarchy.average_range_mse_nd`).
    simulated : float
        Mean over trials of each trial's mean squared error over random boxes.
    stderr : float
        Standard error of ``simulated``.
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
    the exact average [QYL13] §5.  The grid holds Poisson(5) counts (the
    error does not depend on the data).

    Parameters
    ----------
    n : int
        Cells per axis, >= 1.
    d : int
        Number of dimensions, 1..4.
    branching : int or None
        Branching factor b >= 2 along every axis, or None for Flat.
    epsilon : float
        Privacy budget of every release, finite and > 0.
    trials : int, default 20
        Number of releases, >= 2.
    boxes_per_trial : int, default 2000
        Random boxes per release, >= 1.
    measure_root : bool, default True
        Whether the root is measured.
    rng : None, int, SeedSequence or Generator
        Source of randomness for the data, the noise and the boxes.

    Returns
    -------
    DimensionSimulation
        The simulated mean squared error beside the exact average.

    Raises
    ------
    TypeError
        If ``n``, ``d``, ``trials``, ``boxes_per_trial`` or ``branching`` is not an integer.
    ValueError
        If one of them is out of range, ``epsilon`` is not finite and > 0, or the grids or boxes
        would exceed :data:`~dpviz.validation.MAX_ELEMENTS` elements.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), §5.

    Examples
    --------
    >>> sim = dimension_simulation(4, 2, 2, 1.0, trials=3, boxes_per_trial=10, rng=0)
    >>> sim.trials, sim.exact > 0
    (3, True)
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1, maximum=4)
    trials = check_int("trials", trials, minimum=2)
    boxes = check_int("boxes_per_trial", boxes_per_trial, minimum=1)
    check_elements(float(n) ** d * trials * 2, "noisy grid counts", n=n, d=d, trials=trials)
    check_elements(float(trials) * boxes * d * 2, "random boxes", trials=trials, boxes_per_trial=boxes)
    # measured: 3e6 boxes of d = 2 take about 1.5 s
    check_work(float(trials) * boxes * d, 2**23, "box answers (trials x boxes x d)", trials=trials,
               boxes_per_trial=boxes, d=d)
    gen = as_generator(rng)
    x = gen.poisson(5.0, size=(n,) * d).astype(float)
    rel = H.measure_nd(x, branching, epsilon, measure_root=measure_root, rng=gen, size=trials)
    lo = np.empty((trials, boxes, d), dtype=np.int64)
    hi = np.empty_like(lo)
    for a in range(d):
        lo[..., a], hi[..., a] = draw_ranges(gen, n, (trials, boxes))
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
