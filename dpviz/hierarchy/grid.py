"""d-dimensional releases: a grid hierarchy (every axis split into b per level) or Flat, and box answers.

One record lies in exactly one node of each measured level, so with ``L``
measured levels and ``epsilon / L`` per level each node count gets
``Lap(L / epsilon)`` and the release is epsilon-DP [QYL13]_ §5.  Box queries
are answered through summed-area tables of each level.

References
----------
.. [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
   Differentially Private Histograms." PVLDB 6(14), 2013.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant.charging import charge
from dpviz.hierarchy.budgets import check_budget
from dpviz.hierarchy.counts import _child_sum
from dpviz.hierarchy.ranges import _check_ranges, _cover
from dpviz.hierarchy.tree import Tree, build_tree
from dpviz.mechanisms import laplace_scale, laplace_variance, standard_laplace
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_array, check_bool, check_counts, check_elements, check_instance, check_trials

if TYPE_CHECKING:
    from dpviz.accountant import PrivacyAccountant

__all__ = ["GridRelease", "measure_nd", "box_sums", "box_answers_nd"]


@dataclass(frozen=True)
class GridRelease:
    """Noisy counts of a d-dimensional grid hierarchy (or of the grid cells alone, for Flat).

    Parameters
    ----------
    tree : Tree or None
        The 1-D tree used along every axis (None for Flat).
    d : int
        Number of dimensions.
    epsilon : float
        Total budget (the release is epsilon-DP).
    levels : tuple of numpy.ndarray
        Level ``l`` of shape ``(k,) + (m_l,) * d`` (measured levels only; Flat: the cells).
    level_variance : numpy.ndarray
        (L,) Laplace variance of each level's nodes.

    Examples
    --------
    >>> r = measure_nd(np.ones((4, 4)), None, 1.0, rng=0)
    >>> r.tree is None, r.levels[0].shape, r.level_variance.tolist()
    (True, (1, 4, 4), [2.0])
    """

    tree: Tree | None
    d: int
    epsilon: float
    levels: tuple[np.ndarray, ...]
    level_variance: np.ndarray


def _group_sum_axis(A: np.ndarray, b: int, m_parent: int, axis: int) -> np.ndarray:
    """Sum groups of ``b`` consecutive entries along ``axis`` (the last group may be short)."""
    moved = np.moveaxis(A, axis, -1)
    shape = moved.shape
    out = _child_sum(moved.reshape(-1, shape[-1]), b, m_parent).reshape(shape[:-1] + (m_parent,))
    return np.moveaxis(out, -1, axis)


def measure_nd(x: ArrayLike, branching: int | None, epsilon: float, *, measure_root: bool = True,
               rng: RngLike = None, size: int | None = None,
               accountant: PrivacyAccountant | None = None) -> GridRelease:
    """Release a d-dimensional histogram by the Flat method (``branching=None``) or a grid hierarchy.

    The hierarchy splits every axis of the ``n^d`` grid into b at each level
    (``b^d`` children per node; short last nodes when n is not a power of b);
    every measured level gets ``epsilon / L`` (uniform), so each node count
    gets ``Lap(L / epsilon)``, where L is the number of measured levels: one
    person is in one node per level, so the release is epsilon-DP [QYL13] §5.

    Parameters
    ----------
    x : array_like, shape (n,) * d
        Non-negative counts on a cubic grid (d >= 1).
    branching : int or None
        Branching factor b >= 2 along every axis, or None for Flat.
    epsilon : float
        Total privacy budget, finite and > 0.
    measure_root : bool, default True
        Whether the root is measured.
    rng : None, int, SeedSequence or Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent releases.
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` (``epsilon`` when ``size`` is None) after every input is checked and
        before any noise is drawn.

    Returns
    -------
    GridRelease
        Level arrays always carry a trial axis first (size 1 when ``size`` is None).

    Raises
    ------
    TypeError
        If ``x`` is not numeric, ``branching``/``size`` not integers, ``measure_root`` not a bool or
        ``accountant`` not a PrivacyAccountant.
    ValueError
        If ``x`` is not a non-empty cubic grid of finite non-negative counts,
        ``branching < 2``, ``epsilon`` is not finite and > 0 (or its Laplace scale overflows),
        ``size < 1``, or the noisy levels exceed :data:`~dpviz.validation.MAX_ELEMENTS` elements.
    BudgetExceededError
        If ``accountant`` cannot afford ``size * epsilon`` (nothing is drawn or recorded then).

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), §5.

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
    epsilon = check_budget(epsilon)
    size = check_trials(size)
    k = 1 if size is None else size
    measure_root = check_bool("measure_root", measure_root)
    gen = as_generator(rng)
    tree: Tree | None = None
    counts = [x]
    if branching is not None:
        tree = build_tree(n, branching, measure_root=measure_root)
        for l in range(1, int(tree.measured_levels[-1]) + 1):
            c = counts[-1]
            for axis in range(d):
                c = _group_sum_axis(c, tree.branching, tree.sizes[l], axis)
            counts.append(c)
    L = len(counts)
    check_elements(float(k) * sum(c.size for c in counts), "noisy grid counts", size=size, n=n, d=d)
    scale = laplace_scale(L, epsilon)   # one record is in one node per level: L1 sensitivity L
    charge(accountant, epsilon, size=size,
           label=f"grid {'flat' if tree is None else f'hierarchy b={tree.branching}'}, d={d}")
    levels = []
    for c in counts:
        noise = standard_laplace(rng=gen, shape=(k, c.size)).reshape((k,) + c.shape)
        noise *= scale
        noise += c
        levels.append(noise)
    return GridRelease(tree, d, epsilon, tuple(levels), np.full(L, laplace_variance(L, epsilon)))


def box_sums(table: np.ndarray, lo: list[np.ndarray], hi: list[np.ndarray]) -> np.ndarray:
    """Sums over boxes ``prod_a [lo[a], hi[a])`` from summed-area tables, by inclusion-exclusion over 2^d corners.

    Parameters
    ----------
    table : numpy.ndarray, shape (k,) + (m + 1,) * d
        Summed-area tables of k grids: ``table[t, i_1, ..., i_d]`` is the sum of
        the cells of grid ``t`` below ``(i_1, ..., i_d)`` (zeros on the first row of every axis).
    lo, hi : list of numpy.ndarray
        Per axis, the box bounds ``0 <= lo[a] <= hi[a] <= m``, integer arrays of
        shape (q,) (shared by the k grids) or (k, q).

    Returns
    -------
    numpy.ndarray
        (k, q) box sums.

    Raises
    ------
    TypeError
        If ``table`` is not numeric or a bound array does not hold integers.
    ValueError
        If ``table`` is not a finite array of dimension >= 2, ``lo`` and ``hi`` do not hold one bound
        array per axis of ``table``, or a bound is not 1-D/2-D or outside ``0 <= lo <= hi <= m``.

    Examples
    --------
    >>> S = np.zeros((1, 3, 3))
    >>> S[0, 1:, 1:] = np.cumsum(np.cumsum([[1.0, 2.0], [3.0, 4.0]], axis=0), axis=1)
    >>> box_sums(S, [np.array([0, 1]), np.array([0, 0])], [np.array([2, 2]), np.array([2, 1])]).tolist()
    [[10.0, 3.0]]
    """
    P = check_array("table", table, ndim=tuple(range(2, 11)))
    if P.size == 0:
        raise ValueError(f"table must not be empty, got shape {P.shape}")
    d = P.ndim - 1
    if not isinstance(lo, (list, tuple)) or len(lo) != d:
        raise ValueError(f"lo must hold one bound array per axis of table ({d}), got {lo!r:.60}")
    if not isinstance(hi, (list, tuple)) or len(hi) != d:
        raise ValueError(f"hi must hold one bound array per axis of table ({d}), got {hi!r:.60}")
    lo_ = [_check_bounds("lo", a, P.shape[1 + ax] - 1, ax) for ax, a in enumerate(lo)]
    hi_ = [_check_bounds("hi", a, P.shape[1 + ax] - 1, ax) for ax, a in enumerate(hi)]
    for ax in range(d):
        if np.any(lo_[ax] > hi_[ax]):
            raise ValueError(f"lo must be <= hi on every axis, got lo[{ax}]={lo_[ax]} and hi[{ax}]={hi_[ax]}")
    return _box_sums(P, lo_, hi_)


def _check_bounds(name: str, bounds: object, m: int, axis: int) -> np.ndarray:
    """One axis of box bounds: a 1-D or 2-D integer array with entries in ``[0, m]``."""
    arr = np.asarray(bounds)
    if arr.ndim not in (1, 2):
        raise ValueError(f"{name} must hold 1-D or 2-D bound arrays, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integer bounds, got dtype {arr.dtype}")
    if arr.size and (arr.min() < 0 or arr.max() > m):
        raise ValueError(f"{name}[{axis}] bounds must lie in [0, {m}] (table has {m + 1} entries on axis "
                         f"{axis + 1}), got {arr.min()}..{arr.max()}")
    return arr


def _box_sums(P: np.ndarray, lo: list[np.ndarray], hi: list[np.ndarray]) -> np.ndarray:
    """Sums over boxes prod_k [lo_k, hi_k) from a summed-area table P of shape (k,) + (m+1,) * d."""
    d = len(lo)
    k = P.shape[0]
    rows = np.arange(k)[:, None]
    total: np.ndarray | float = 0.0
    for corner in range(2**d):
        idx = [hi[a] if (corner >> a) & 1 else lo[a] for a in range(d)]
        sign = -1.0 if (d - bin(corner).count("1")) % 2 else 1.0
        total = total + sign * P[tuple([rows, *idx])]
    return np.asarray(total)


def box_answers_nd(release: GridRelease, starts: ArrayLike, stops: ArrayLike) -> np.ndarray:
    """Answers of boxes ``prod_a [starts[..., a], stops[..., a])`` from a d-dimensional release, shape (k, q).

    Flat sums the noisy cells; the hierarchy sums, per level, the noisy nodes
    inside the box minus those whose parent is inside (the minimal cover), each
    through a summed-area table.

    Parameters
    ----------
    release : GridRelease
        The release (from :func:`measure_nd`), with k trials.
    starts, stops : array_like of int
        Box corners, shape (q, d) (shared by the k trials) or (k, q, d), with
        ``0 <= start < stop <= n`` on every axis.

    Returns
    -------
    numpy.ndarray
        (k, q) noisy box answers.

    Raises
    ------
    TypeError
        If the corners are not integers.
    ValueError
        If the corners do not have shape (q, d) or (k, q, d), or a side is empty
        or outside ``[0, n]``.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), §5.

    Examples
    --------
    >>> r = measure_nd(np.ones((4, 4)), 2, 1.0, rng=0, size=2)
    >>> box_answers_nd(r, [[0, 0], [1, 2]], [[4, 4], [3, 3]]).shape
    (2, 2)
    """
    check_instance("release", release, GridRelease, "the result of measure_nd")
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
    total: np.ndarray | float = 0.0
    for l, P in enumerate(tables):
        lo = [covers[a][l][0] for a in range(d)]
        hi = [covers[a][l][3] for a in range(d)]
        ra = [covers[a][l][1] for a in range(d)]
        rc = [covers[a][l][2] for a in range(d)]
        total = total + _box_sums(P, lo, hi) - _box_sums(P, ra, rc)
    return total * np.ones((k, 1))
