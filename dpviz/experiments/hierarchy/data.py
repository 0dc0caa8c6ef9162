"""The histograms and random ranges the hierarchy experiments run on."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpviz.rng import RngLike, as_generator
from dpviz.validation import MAX_ELEMENTS, check_counts, check_elements, check_int, check_nonnegative

__all__ = ["coarsen", "synthetic_histogram", "dataset_histogram", "default_widths", "draw_ranges"]


def coarsen(x: ArrayLike, n: int) -> np.ndarray:
    """Aggregate a histogram into ``n`` bins of (nearly) equal width (sums of consecutive cells).

    Bin k holds cells ``[floor(k m / n), floor((k+1) m / n))`` of the m input cells;
    when n divides m every bin has m/n cells.  Counts are preserved (sum unchanged).

    Parameters
    ----------
    x : array_like, shape (m,)
        Non-negative counts.
    n : int
        Number of output bins, ``1 <= n <= m``.

    Returns
    -------
    numpy.ndarray
        (n,) float counts.

    Raises
    ------
    TypeError
        If ``x`` is not numeric or ``n`` not an integer.
    ValueError
        If ``x`` is not a 1-D array of finite non-negative counts, or ``n`` is outside ``[1, m]``.

    Examples
    --------
    >>> coarsen([1, 2, 3, 4, 5, 6], 3).tolist()
    [3.0, 7.0, 11.0]
    """
    x = check_counts("x", x)
    n = check_int("n", n, minimum=1)
    if n > x.size:
        raise ValueError(f"n={n} must be at most the number of cells of x ({x.size}): merging cannot add cells")
    edges = (np.arange(n) * x.size) // n
    return np.add.reduceat(x, edges)


def synthetic_histogram(n: int, *, total: float = 100_000.0, rng: RngLike = 0) -> np.ndarray:
    """A smooth, bumpy synthetic histogram of ``n`` bins (three Gaussian bumps on a floor), integer counts.

    Parameters
    ----------
    n : int
        Number of bins, >= 1.
    total : float, default 100000
        Approximate total count (the counts are rounded).
    rng : None, int, SeedSequence or Generator, default 0
        Draws the bumps' centres, widths and weights (seeded by default, so the
        lecture's data are fixed).

    Returns
    -------
    numpy.ndarray
        (n,) non-negative whole-number counts (float dtype).

    Raises
    ------
    TypeError
        If ``n`` is not an integer or ``total`` not a real number.
    ValueError
        If ``n < 1``, ``n`` exceeds :data:`~dpviz.validation.MAX_ELEMENTS`, or ``total`` is not finite and >= 0.

    Examples
    --------
    >>> x = synthetic_histogram(8, total=1000.0, rng=0)
    >>> x.shape, bool((x >= 0).all())
    ((8,), True)
    """
    n = check_int("n", n, minimum=1)
    check_elements(float(n), "histogram bins", n=n)
    total = check_nonnegative("total", total)
    g = as_generator(rng)
    t = (np.arange(n) + 0.5) / n
    centres, widths, weights = g.uniform(0.1, 0.9, 3), g.uniform(0.02, 0.12, 3), g.uniform(0.5, 2.0, 3)
    dens = 0.15 + sum(w * np.exp(-0.5 * ((t - c) / s) ** 2)
                      for c, s, w in zip(centres, widths, weights, strict=True))
    return np.round(dens / dens.sum() * total)


def dataset_histogram(name: str, n: int) -> np.ndarray:
    """``"synthetic"`` or a shipped 1-D histogram (``dpviz.datasets``) coarsened to ``n`` bins.

    Parameters
    ----------
    name : str
        ``"synthetic"`` (:func:`synthetic_histogram`) or a name known to :func:`dpviz.datasets.load`.
    n : int
        Number of bins, >= 1 (at most the dataset's own number of cells).

    Returns
    -------
    numpy.ndarray
        (n,) counts.

    Raises
    ------
    TypeError
        If ``name`` is not a string or ``n`` not an integer.
    ValueError
        If ``name`` is unknown or names a record dataset (e.g. ``"CPS"``, one row per person: summing its
        incomes would not give counts), or ``n`` is outside ``[1, cells]``.

    Examples
    --------
    >>> dataset_histogram("ADULT", 4).shape
    (4,)
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {name!r} of type {type(name).__name__}")
    if name == "synthetic":
        return synthetic_histogram(n)
    from dpviz import datasets

    histograms = [d for d in datasets.names() if datasets.describe(d).kind == "histogram"]
    try:
        info = datasets.describe(name)
    except ValueError as err:
        raise ValueError(f"name={name!r} is neither 'synthetic' nor a shipped dataset: {err}") from None
    if info.kind != "histogram":
        raise ValueError(f"name={name!r} is a {info.kind} dataset (one row per person), not a histogram of counts; "
                         f"use 'synthetic' or one of {histograms}, or build counts from its records first")
    return coarsen(datasets.load(name), n)


def default_widths(n: int, count: int = 24) -> np.ndarray:
    """About ``count`` distinct range widths from 1 to n, evenly spaced on a log scale.

    Parameters
    ----------
    n : int
        Domain size, >= 1.
    count : int, default 24
        Number of log-spaced widths before duplicates are removed, >= 1.

    Returns
    -------
    numpy.ndarray
        Sorted distinct int64 widths in ``[1, n]``.

    Raises
    ------
    TypeError
        If ``n`` or ``count`` is not an integer.
    ValueError
        If ``n < 1`` or ``count < 1``, or ``count`` exceeds :data:`~dpviz.validation.MAX_ELEMENTS`.

    Examples
    --------
    >>> default_widths(100, 5).tolist()
    [1, 3, 10, 32, 100]
    """
    n = check_int("n", n, minimum=1)
    count = check_int("count", count, minimum=1, maximum=MAX_ELEMENTS)
    return np.unique(np.round(np.geomspace(1, n, count)).astype(np.int64))


def draw_ranges(gen: np.random.Generator, n: int, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Ranges drawn uniformly from all n(n+1)/2 ranges: two distinct cut points of 0..n, sorted.

    Parameters
    ----------
    gen : numpy.random.Generator
        Randomness.
    n : int
        Number of bins.
    shape : tuple of int
        Shape of the arrays of ranges to draw.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Start (inclusive) and end (exclusive) cut points of each range, ``0 <= lo < hi <= n``.

    Raises
    ------
    TypeError, ValueError
        If ``gen`` is not a Generator, ``n`` is not an integer >= 1, or ``shape`` is not a tuple of
        non-negative integers within the element cap.

    Examples
    --------
    >>> lo, hi = draw_ranges(np.random.default_rng(0), 8, (3,))
    >>> bool(((0 <= lo) & (lo < hi) & (hi <= 8)).all())
    True
    """
    if not isinstance(gen, np.random.Generator):
        raise TypeError(f"gen must be a numpy.random.Generator, got {type(gen).__name__}")
    n = check_int("n", n, minimum=1)
    if not isinstance(shape, tuple):
        raise TypeError(f"shape must be a tuple of ints, got {shape!r}")
    dims = [check_int(f"shape[{i}]", d, minimum=0) for i, d in enumerate(shape)]
    check_elements(2.0 * float(np.prod([float(d) for d in dims])), "range end points", shape=shape)
    a = gen.integers(0, n + 1, size=shape)
    b = gen.integers(0, n, size=shape)
    b = b + (b >= a)  # uniform over the n values != a
    return np.minimum(a, b), np.maximum(a, b)
