"""The data of a comparison: synthetic shapes, shipped DPBench histograms at a scale, workloads by name, the error."""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import ArrayLike

from dpviz import workloads
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    MAX_MAGNITUDE,
    check_array,
    check_choice,
    check_counts,
    check_elements,
    check_int,
    check_positive,
)

__all__ = ["MAX_CELLS", "SHAPES", "WORKLOADS", "synthetic_shape", "make_histogram", "make_workload", "scaled_error"]

#: Largest domain (cells) the comparison runs: DPBench's histograms have 4,096; at 10**7 cells one comparison
#: run took tens of seconds (every algorithm releases, reconstructs and scores all cells).
MAX_CELLS = 2**16

#: Synthetic data shapes for :func:`synthetic_shape`.
SHAPES = ("uniform", "step", "spikes", "smooth", "zipf")
#: Workload names (those of :func:`dpviz.workloads.build`).
WORKLOADS = workloads.WORKLOADS


def synthetic_shape(shape: str, n: int) -> np.ndarray:
    """A probability vector over n cells with a named shape (deterministic, no randomness).

    ``uniform``: constant.  ``step``: four constant pieces with levels 1, 8, 2, 16
    (breakpoints at 20 %, 45 %, 70 % of the domain, cell centres).  ``spikes``: 8 single
    cells hold 90 % of the mass, the rest is spread evenly (sparse data).
    ``smooth``: two Gaussian bumps on a floor.  ``zipf``: ``p_i ~ 1/(i+1)``.

    Parameters
    ----------
    shape : str
        One of :data:`SHAPES`.
    n : int
        Number of cells, >= 2 (at most :data:`dpviz.validation.MAX_ELEMENTS`).

    Returns
    -------
    numpy.ndarray
        Shape (n,): non-negative probabilities summing to 1.

    Raises
    ------
    TypeError, ValueError
        If ``shape`` is not one of :data:`SHAPES` or ``n`` is not an integer in
        [2, :data:`dpviz.validation.MAX_ELEMENTS`].

    Examples
    --------
    >>> synthetic_shape("step", 10).round(3).tolist()
    [0.014, 0.014, 0.111, 0.111, 0.028, 0.028, 0.028, 0.222, 0.222, 0.222]
    """
    shape = check_choice("shape", shape, SHAPES)
    n = check_int("n", n, minimum=2)
    check_elements(float(n), "cells", n=n)
    t = (np.arange(n) + 0.5) / n
    if shape == "uniform":
        p = np.ones(n)
    elif shape == "step":
        p = np.select([t < 0.2, t < 0.45, t < 0.7], [1.0, 8.0, 2.0], 16.0)
    elif shape == "spikes":
        p = np.full(n, 0.1 / n)
        cells = (np.array([0.03, 0.11, 0.12, 0.3, 0.52, 0.53, 0.77, 0.9]) * n).astype(int)
        np.add.at(p, cells, 0.9 / cells.size)
    elif shape == "smooth":
        p = 0.1 + np.exp(-0.5 * ((t - 0.3) / 0.07) ** 2) + 0.6 * np.exp(-0.5 * ((t - 0.7) / 0.12) ** 2)
    else:
        p = 1.0 / np.arange(1, n + 1)
    return p / p.sum()


def _coarsen(x: np.ndarray, n: int) -> np.ndarray:
    """Sum consecutive cells of ``x`` into n cells of (nearly) equal width."""
    edges = (np.arange(n) * x.size) // n
    return np.add.reduceat(x, edges)


def make_histogram(source: str, n: int | None = None, *, scale: float | None = None,
                   rng: RngLike = 0) -> np.ndarray:
    """The data of one comparison: a shipped histogram or a synthetic shape, on n cells, at a scale.

    ``source`` is a shipped histogram name (:func:`dpviz.datasets.names`, coarsened
    to ``n`` cells by summing consecutive cells) or one of :data:`SHAPES`.
    With ``scale`` given, ``scale`` records are drawn iid from the shape
    ``p = x / ||x||_1`` (multinomial; DPBench's data generator [HMMCZ16]); a
    synthetic shape needs a scale (default 10,000).  Without ``scale`` a shipped
    histogram keeps its real counts.

    Parameters
    ----------
    source : str
        A shipped 1-D histogram (e.g. ``"ADULT"``) or one of :data:`SHAPES`.
    n : int, optional
        Number of cells (default: 256 for a shape, the full domain for shipped data).
    scale : float, optional
        Number of records to draw (a whole number <= 1e12); None keeps the real
        counts of shipped data and draws 10,000 records from a shape.
    rng : None, int, SeedSequence or Generator, default 0
        Source of randomness of the multinomial draw.

    Returns
    -------
    numpy.ndarray
        (n,) float counts.

    Raises
    ------
    TypeError
        If ``source`` is not a string.
    ValueError
        If ``source`` is neither a shape nor a shipped 1-D histogram, ``n`` is
        out of range, or ``scale`` is not a positive whole number <= 1e12.

    Examples
    --------
    >>> make_histogram("spikes", 64, scale=1000, rng=0).sum()
    np.float64(1000.0)
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be a dataset name or a shape, got {type(source).__name__}")
    if source in SHAPES:
        n = 256 if n is None else check_int("n", n, minimum=2)
        p = synthetic_shape(source, n)  # refuses n above MAX_ELEMENTS
        scale = 10_000 if scale is None else scale
    else:
        from dpviz import datasets

        try:
            info = datasets.describe(source)
        except ValueError as err:
            raise ValueError(f"source must be one of the shapes {', '.join(SHAPES)} or a shipped dataset; "
                             f"got {source!r} ({err})") from None
        if info.kind != "histogram":
            raise ValueError(f"source must be a 1-D histogram dataset or one of {', '.join(SHAPES)}; "
                             f"{source!r} is {info.kind}")
        x = datasets.load(source).astype(float)
        n = x.size if n is None else check_int("n", n, minimum=1, maximum=x.size)
        x = _coarsen(x, n)
        if scale is None:
            return x
        p = x / x.sum()
    scale = check_positive("scale", scale)
    if scale != int(scale) or scale > 1e12:
        raise ValueError(f"scale must be a whole number of records <= 1e12, got {scale}")
    return as_generator(rng).multinomial(int(scale), p).astype(float)


def make_workload(name: str, n: int, *, k: int = 256) -> workloads.Workload:
    """A workload by name (:data:`WORKLOADS`); ``random_ranges`` draws k ranges with a fixed seed (public).

    The same (name, n, k) returns the same immutable object, so strategies
    optimised for it (GreedyH) are computed once and reused.

    Parameters
    ----------
    name : str
        One of :data:`WORKLOADS`.
    n : int
        Number of cells, >= 1 (<= 1024 for ``"all_ranges"``).
    k : int, default 256
        Number of queries of ``"random_ranges"`` (drawn with the fixed public seed 20161).

    Returns
    -------
    Workload
        The (cached) :class:`dpviz.workloads.Workload`.

    Raises
    ------
    TypeError, ValueError
        If ``name`` is unknown, ``n`` or ``k`` is not a positive integer, or
        ``all_ranges`` is asked for over more than 1024 cells, or ``n`` or ``k``
        exceeds :data:`dpviz.validation.MAX_ELEMENTS`.

    Examples
    --------
    >>> W = make_workload("prefix", 8)
    >>> W.n, W.n_queries, make_workload("prefix", 8) is W
    (8, 8, True)
    """
    name = check_choice("workload", name, WORKLOADS)
    n = check_int("n", n, minimum=1)
    k = check_int("k", k, minimum=1)
    check_elements(float(n), "cells", n=n)
    check_elements(float(k), "random ranges", k=k)
    if name == "all_ranges" and n > 1024:
        raise ValueError(f"workload 'all_ranges' has n(n+1)/2 queries; use n <= 1024, got n={n}")
    return _workload(name, n, k)


@functools.lru_cache(maxsize=32)
def _workload(name: str, n: int, k: int) -> workloads.Workload:
    """Build a workload once per (name, n, k); the cache keeps strategies optimised for it reusable."""
    return workloads.build(name, n, k=k, rng=20161)


def scaled_error(estimates: ArrayLike, x: ArrayLike, workload: workloads.Workload) -> np.ndarray:
    """DPBench's scaled average per-query error ``||W x_hat - W x||_2 / (m ||x||_1)`` per release [HMMCZ16].

    Parameters
    ----------
    estimates : array_like, shape (n,) or (k, n)
        One released histogram or k of them.
    x : array_like, shape (n,)
        The true counts (their total is the scale).
    workload : Workload
        The :class:`dpviz.workloads.Workload` W with m queries.

    Returns
    -------
    numpy.ndarray
        The scaled error: a numpy scalar for one release, shape (k,) for k of them.

    Raises
    ------
    TypeError, ValueError
        If ``x`` is not a 1-D array of finite non-negative counts with a total of at least 1e-100, ``estimates``
        is not a 1-D or 2-D array of finite numbers over the n cells, or
        ``workload`` is not a Workload over the n cells.

    Examples
    --------
    >>> W = workloads.prefix(4)
    >>> round(float(scaled_error([1.0, 1, 1, 1], [2.0, 0, 2, 0], W)), 4)  # errors (-1, 0, -1, 0): sqrt(2) / (4 * 4)
    0.0884
    """
    x = check_counts("x", x)
    if not isinstance(workload, workloads.Workload) or workload.n != x.size:
        raise ValueError(f"workload must be a dpviz.workloads.Workload over the n={x.size} cells of x, "
                         f"got {workload!r}")
    total = x.sum()
    if not total >= 1e-100:  # the error is divided by ||x||_1: an empty histogram has no scale
        raise ValueError(f"x must have a positive total (the scaled error divides by ||x||_1), got total {total:g}; "
                         "the scaled error is undefined for an empty histogram")
    est = check_array("estimates", estimates, ndim=(1, 2), max_abs=MAX_MAGNITUDE)
    if est.shape[-1] != x.size:
        raise ValueError(f"estimates must have n={x.size} cells in the last axis, got shape {est.shape}")
    err = workload.answer(est) - workload.answer(x)
    return np.linalg.norm(err, axis=-1) / (workload.n_queries * total)
