"""Range queries on a tree: minimal node covers and the answers read from leaves or noisy nodes.

The minimal node cover of a range ``[i, j)`` uses a measured node iff the node
lies inside the range and its parent does not (or the parent is not
measured) [QYL13]_.  Answers come from prefix sums: of the leaves (Flat, or
the least-squares leaves after inference) or of each level's noisy counts (H_b).

References
----------
.. [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
   Differentially Private Histograms." PVLDB 6(14), 2013.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpviz.hierarchy.release import TreeRelease
from dpviz.hierarchy.tree import Tree
from dpviz.validation import MAX_MAGNITUDE, check_array, check_instance

__all__ = [
    "range_answers",
    "prefix_range_sums",
    "minimal_cover",
    "level_prefix_sums",
    "cover_sums",
    "tree_range_answers",
]

#: Per measured level, the node-index intervals ``(lo, a, c, hi)`` of a minimal cover (see :func:`minimal_cover`).
_Cover = list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]


def _check_ranges(n: int, starts: ArrayLike, stops: ArrayLike,
                  source: str = "the domain size") -> tuple[np.ndarray, np.ndarray]:
    """Validated int64 ``starts``/``stops`` (1-D, or 2-D one row per release) with ``0 <= start < stop <= n``.

    ``source`` says where n comes from (e.g. "the length of leaves"), for the message.
    """
    i = np.asarray(starts)
    j = np.asarray(stops)
    if not (np.issubdtype(i.dtype, np.integer) and np.issubdtype(j.dtype, np.integer)):
        raise TypeError(f"starts and stops must be integer arrays, got dtypes {i.dtype} and {j.dtype}")
    if i.shape != j.shape:  # numpy would broadcast one start over many stops (or the reverse) without a word
        raise ValueError(f"starts and stops must have the same shape (one start per stop), got {i.shape} and "
                         f"{j.shape}")
    if i.ndim not in (1, 2):
        raise ValueError(f"starts and stops must be 1-D (or 2-D, one row per release), got shape {i.shape}")
    bad = (i < 0) | (j > n) | (j <= i)
    if np.any(bad):
        t = int(np.flatnonzero(bad)[0])
        raise ValueError(f"starts and stops must give ranges with 0 <= start < stop <= n={n} ({source}); got "
                         f"[{i[t]}, {j[t]}) at index {t}")
    return i.astype(np.int64), j.astype(np.int64)


def _gather(P: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``P[:, idx]`` for shared 1-D indices, or row-wise ``P[t, idx[t]]`` for (k, q) indices."""
    if idx.ndim == 1:
        return P[:, idx]
    return P.ravel()[idx + (np.arange(P.shape[0]) * P.shape[1])[:, None]]


def _check_per_trial(i: np.ndarray, k: int, ndim: int) -> None:
    """Refuse 2-D ranges unless there is one row per release (``k`` releases, values of ``ndim`` = 2)."""
    if i.ndim == 2 and (ndim != 2 or i.shape[0] != k):
        raise ValueError(f"2-D starts/stops need one row per release ({k} releases), got shape {i.shape}")


def range_answers(leaves: ArrayLike, starts: ArrayLike, stops: ArrayLike) -> np.ndarray:
    """Answers ``sum(leaves[..., i:j])`` of the ranges ``[starts, stops)`` via prefix sums.

    Parameters
    ----------
    leaves : array_like, shape (n,) or (k, n)
        Leaf estimates of one release, or of k releases.
    starts, stops : array_like of int
        Range bounds ``0 <= start < stop <= n``, shape (q,) (the same ranges for
        every release) or, with k releases, (k, q) (one set of ranges per release).

    Returns
    -------
    numpy.ndarray
        (q,) answers, or (k, q).

    Raises
    ------
    TypeError
        If ``leaves`` is not numeric or the bounds are not integers.
    ValueError
        If ``leaves`` is not 1-D/2-D and finite, a range is empty or out of
        ``[0, n]``, or 2-D bounds do not have one row per release.

    Examples
    --------
    >>> range_answers([1.0, 2.0, 3.0], [0, 1], [3, 2]).tolist()
    [6.0, 2.0]
    """
    L = check_array("leaves", leaves, ndim=(1, 2), max_abs=MAX_MAGNITUDE)  # sums of leaves must not overflow
    i, j = _check_ranges(L.shape[-1], starts, stops, "the length of leaves")
    L2 = np.atleast_2d(L)
    _check_per_trial(i, L2.shape[0], L.ndim)
    P = np.zeros((L2.shape[0], L2.shape[1] + 1))
    np.cumsum(L2, axis=1, out=P[:, 1:])
    out = _gather(P, j) - _gather(P, i)
    return out[0] if L.ndim == 1 else out


def prefix_range_sums(prefix: np.ndarray, starts: ArrayLike, stops: ArrayLike) -> np.ndarray:
    """Range sums ``prefix[:, stop] - prefix[:, start]`` from a table of prefix sums.

    With ``prefix[t, m]`` the sum of the first ``m`` leaves of release ``t``,
    this answers ranges of k releases at once; computing the table once lets a
    simulation answer many sets of ranges (:func:`range_answers` recomputes it).

    Parameters
    ----------
    prefix : numpy.ndarray, shape (k, n + 1)
        Prefix sums of k releases of n leaves, ``prefix[:, 0] = 0``.
    starts, stops : array_like of int
        Range bounds ``0 <= start < stop <= n``, shape (q,) (shared) or (k, q).

    Returns
    -------
    numpy.ndarray
        (k, q) answers.

    Raises
    ------
    TypeError
        If the bounds are not integers.
    ValueError
        If ``prefix`` is not a finite 2-D table, a range is empty or out of ``[0, n]``, or 2-D
        bounds do not have one row per release.

    Examples
    --------
    >>> P = np.array([[0.0, 1.0, 3.0, 6.0]])  # leaves 1, 2, 3
    >>> prefix_range_sums(P, [0, 1], [3, 2]).tolist()
    [[6.0, 2.0]]
    """
    P = check_array("prefix", prefix, ndim=2)
    i, j = _check_ranges(P.shape[1] - 1, starts, stops)
    _check_per_trial(i, P.shape[0], 2)
    return _gather(P, j) - _gather(P, i)


def minimal_cover(tree: Tree, starts: ArrayLike, stops: ArrayLike) -> _Cover:
    """The minimal node cover of each range ``[starts, stops)``, level by level, as node-index intervals.

    At each measured level ``l`` the nodes inside a range are ``lo <= k < hi``;
    those whose parent is inside too are ``a <= k < c``, so the cover uses the
    level-``l`` nodes ``[lo, a)`` and ``[c, hi)`` [QYL13].

    Parameters
    ----------
    tree : Tree
        The tree.
    starts, stops : array_like of int
        Range bounds ``0 <= start < stop <= n``, shape (q,) or (k, q).

    Returns
    -------
    list of tuple of numpy.ndarray
        One ``(lo, a, c, hi)`` per measured level (leaves first), each array of
        the shape of ``starts``.

    Raises
    ------
    TypeError
        If the bounds are not integers.
    ValueError
        If a range is empty or out of ``[0, n]``.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]).

    Examples
    --------
    >>> from dpviz.hierarchy import build_tree
    >>> cover = minimal_cover(build_tree(4, 2), [1], [4])  # [1, 4) = leaf 1 + the node of leaves 2-3
    >>> [[int(v[0]) for v in level] for level in cover]  # (lo, a, c, hi) per level
    [[1, 2, 4, 4], [1, 2, 2, 2], [1, 1, 1, 1]]
    """
    check_instance("tree", tree, Tree, "build one with build_tree(n, branching)")
    i, j = _check_ranges(tree.n, starts, stops)
    return _cover(tree, i, j)


def _cover(tree: Tree, i: np.ndarray, j: np.ndarray) -> _Cover:
    """Per measured level: index intervals [lo, a) and [c, hi) of the minimal node cover of checked [i, j).

    Level-l nodes inside the range are ``lo = ceil(i / b^l) <= k < hi`` (``hi = floor(j / b^l)``, or
    all nodes of the level when ``j = n``); those whose parent is inside too are removed.
    """
    top = int(tree.measured_levels[-1])
    b, n = tree.branching, tree.n
    dt = np.int32 if n < 2**30 else np.int64
    i = i.astype(dt, copy=False)
    j = j.astype(dt, copy=False)
    at_end: np.ndarray | None = None
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
    out: _Cover = []
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


def tree_range_answers(release: TreeRelease, starts: ArrayLike, stops: ArrayLike) -> np.ndarray:
    """H_b answers: the sum of the noisy counts of each range's minimal node cover (no inference).

    Among the measured nodes, the cover uses a node iff it lies inside the
    range and its parent does not (or the parent is not measured) [QYL13].

    Parameters
    ----------
    release : TreeRelease
        One release, or ``size`` releases, from :func:`~dpviz.hierarchy.measure`.
    starts, stops : array_like of int
        Range bounds, shape (q,) or, for a release of ``size`` trials,
        (size, q) (one set of ranges per release).

    Returns
    -------
    numpy.ndarray
        Shape ``(q,)`` or ``(size, q)``.

    Raises
    ------
    TypeError
        If the bounds are not integers.
    ValueError
        If a range is empty or out of ``[0, n]``, or 2-D bounds do not have one
        row per release.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]).

    Examples
    --------
    >>> from dpviz.hierarchy import measure
    >>> r = measure([3, 1, 4, 1], 2, 1.0, rng=0, size=2)
    >>> tree_range_answers(r, [0, 1], [4, 3]).shape
    (2, 2)
    """
    check_instance("release", release, TreeRelease, "the result of measure")
    tree = release.tree
    i, j = _check_ranges(tree.n, starts, stops)
    Y = np.atleast_2d(release.noisy)
    _check_per_trial(i, Y.shape[0], release.noisy.ndim)
    total = _cover_sums(tree, level_prefix_sums(release), i, j)
    return total[0] if release.noisy.ndim == 1 else total


def level_prefix_sums(release: TreeRelease) -> list[np.ndarray]:
    """Prefix sums of the noisy counts of each measured level, for fast H_b range answers.

    Computed once per release and passed to :func:`cover_sums`, they answer any
    number of ranges without summing the noisy nodes again.

    Parameters
    ----------
    release : TreeRelease
        One release or ``size`` releases from :func:`~dpviz.hierarchy.measure`.

    Returns
    -------
    list of numpy.ndarray
        One (k, m_l + 1) array per measured level ``l`` (``k = 1`` for a single
        release), column ``t`` holding the sum of the first ``t`` nodes.

    Raises
    ------
    TypeError
        If ``release`` is not a :class:`TreeRelease`.

    Examples
    --------
    >>> from dpviz.hierarchy import measure
    >>> P = level_prefix_sums(measure([3, 1, 4, 1], 2, 1.0, rng=0))
    >>> [p.shape for p in P]
    [(1, 5), (1, 3), (1, 2)]
    """
    check_instance("release", release, TreeRelease, "the result of measure")
    Y = np.atleast_2d(release.noisy)
    out = []
    for l in release.tree.measured_levels:
        P = np.zeros((Y.shape[0], release.tree.sizes[l] + 1))
        np.cumsum(release.level(Y, int(l)), axis=1, out=P[:, 1:])
        out.append(P)
    return out


def cover_sums(tree: Tree, prefix: list[np.ndarray], starts: ArrayLike, stops: ArrayLike) -> np.ndarray:
    """H_b answers of the ranges ``[starts, stops)`` from per-level prefix sums (:func:`level_prefix_sums`).

    The same numbers as :func:`tree_range_answers`, without recomputing the
    prefix sums, so a simulation can answer many sets of ranges of one release.

    Parameters
    ----------
    tree : Tree
        The release's tree.
    prefix : list of numpy.ndarray
        Per measured level, (k, m_l + 1) prefix sums of the noisy counts.
    starts, stops : array_like of int
        Range bounds, shape (q,) (shared by the k releases) or (k, q).

    Returns
    -------
    numpy.ndarray
        (k, q) answers.

    Raises
    ------
    TypeError
        If the bounds are not integers.
    ValueError
        If a range is empty or out of ``[0, n]``, ``prefix`` does not hold one
        table per measured level, or 2-D bounds do not have one row per release.

    Examples
    --------
    >>> from dpviz.hierarchy import measure, tree_range_answers
    >>> r = measure([3, 1, 4, 1], 2, 1.0, rng=0)
    >>> a = cover_sums(r.tree, level_prefix_sums(r), [0, 1], [4, 3])
    >>> bool(np.allclose(a[0], tree_range_answers(r, [0, 1], [4, 3])))
    True
    """
    check_instance("tree", tree, Tree, "build one with build_tree(n, branching)")
    i, j = _check_ranges(tree.n, starts, stops)
    if len(prefix) != tree.n_measured_levels:
        raise ValueError(f"prefix must hold one table per measured level ({tree.n_measured_levels}), "
                         f"got {len(prefix)}")
    _check_per_trial(i, prefix[0].shape[0], 2)
    return _cover_sums(tree, prefix, i, j)


def _cover_sums(tree: Tree, prefix: list[np.ndarray], i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """(k, q) sums of the level prefix sums over the minimal covers of the (checked) ranges [i, j)."""
    total = np.zeros((prefix[0].shape[0], i.shape[-1]))
    for P, (lo, a, c, hi) in zip(prefix, _cover(tree, i, j), strict=True):
        total += _gather(P, a) - _gather(P, lo) + _gather(P, hi) - _gather(P, c)
    return total


def _cover_counts(tree: Tree, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """(levels, q) number of nodes of each level in the minimal cover of each range."""
    return np.array([(a - lo) + (hi - c) for lo, a, c, hi in _cover(tree, i, j)], dtype=float)
