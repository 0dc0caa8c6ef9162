"""The shape of a b-ary tree over ``n`` leaf bins: levels, node sizes, the flat node order.

Level 0 holds the leaves; level ``l`` holds ``ceil(n / b**l)`` nodes, node
``k`` covering leaves ``[k b**l, min((k+1) b**l, n))`` (only the last node of a
level may be short); the root is level ``h``, the smallest integer with
``b**h >= n``.  Nodes are numbered leaves first, left to right within a level.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dpviz.validation import MAX_ELEMENTS, check_bool, check_int

__all__ = ["Tree", "build_tree"]


@dataclass(frozen=True)
class Tree:
    """Shape of a b-ary tree over ``n`` leaves (see the module docstring).

    Build it with :func:`build_tree`, which validates the arguments and caches
    the result.

    Parameters
    ----------
    n : int
        Number of leaves.
    branching : int
        Branching factor b >= 2.
    height : int
        h, the root's level (``b**h >= n > b**(h-1)``; 0 when n = 1).
    sizes : tuple of int
        (h+1,) number of nodes per level, ``ceil(n / b**l)``, leaves first.
    offsets : tuple of int
        (h+2,) start of each level in the flat node order (leaves first,
        left to right within a level); ``offsets[-1]`` is the number of nodes.
    measure_root : bool
        Whether the root level is measured.

    Examples
    --------
    >>> t = build_tree(5, 2)
    >>> t.sizes, t.offsets, t.n_nodes
    ((5, 3, 2, 1), (0, 5, 8, 10, 11), 11)
    """

    n: int
    branching: int
    height: int
    sizes: tuple[int, ...]
    offsets: tuple[int, ...]
    measure_root: bool

    @property
    def n_nodes(self) -> int:
        """Total number of nodes (measured or not)."""
        return self.offsets[-1]

    @property
    def measured_levels(self) -> np.ndarray:
        """Indices of the measured levels (the leaf level always is)."""
        top = self.height if (self.measure_root or self.height == 0) else self.height - 1
        return np.arange(top + 1)

    @property
    def n_measured_levels(self) -> int:
        """Number of measured levels = L1 sensitivity of the unit-weight strategy."""
        return int(self.measured_levels.size)

    @property
    def n_measured_nodes(self) -> int:
        """Number of measured nodes (rows of :func:`strategy_matrix`)."""
        return int(sum(self.sizes[l] for l in self.measured_levels))

    def block(self, level: int) -> int:
        """Number of leaves ``b**level`` under a full node of ``level``.

        Parameters
        ----------
        level : int
            Level index (0 = leaves).

        Returns
        -------
        int
            ``branching ** level``.

        Raises
        ------
        TypeError
            If ``level`` is not an integer.
        ValueError
            If ``level`` is outside ``[0, height]``.
        """
        return self.branching ** check_int("level", level, minimum=0, maximum=self.height)

    def node_bounds(self, level: int) -> tuple[np.ndarray, np.ndarray]:
        """Leaf ranges ``[start, stop)`` of the nodes of ``level``.

        Parameters
        ----------
        level : int
            Level index, ``0 <= level <= height``.

        Returns
        -------
        start, stop : numpy.ndarray
            Integer arrays of length ``sizes[level]``; only the last node may be short.

        Raises
        ------
        TypeError
            If ``level`` is not an integer.
        ValueError
            If ``level`` is outside ``[0, height]``.
        """
        level = check_int("level", level, minimum=0, maximum=self.height)
        s = self.block(level)
        start = np.arange(self.sizes[level], dtype=np.int64) * s
        return start, np.minimum(start + s, self.n)


@lru_cache(maxsize=256)
def _tree(n: int, b: int, measure_root: bool) -> Tree:
    """The (cached) :class:`Tree` for validated arguments."""
    sizes = [n]
    while sizes[-1] > 1:
        sizes.append(-(-sizes[-1] // b))
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    return Tree(n, b, len(sizes) - 1, tuple(sizes), tuple(int(o) for o in offsets), bool(measure_root))


def build_tree(n: int, branching: int, *, measure_root: bool = True) -> Tree:
    """Describe the b-ary tree over ``n`` leaves (uneven last nodes when n is not a power of b).

    No padding with fake bins: every leaf lies in exactly one node per level
    whatever ``n`` is, so measuring ``L`` levels has L1 sensitivity ``L``
    [HRMS10] [QYL13] (see :mod:`dpviz.hierarchy`).

    Parameters
    ----------
    n : int
        Number of leaf bins, >= 1.
    branching : int
        Branching factor b, >= 2.
    measure_root : bool, default True
        Whether the root is measured (Hay et al.) or not (Qardaji et al.).

    Returns
    -------
    Tree
        The tree's shape (cached: equal arguments return the same object).

    Raises
    ------
    TypeError
        If ``n`` or ``branching`` is not an integer, or ``measure_root`` not a bool.
    ValueError
        If ``n < 1`` or ``branching`` is outside ``[2, MAX_ELEMENTS]`` (a larger factor gives the same
        one-level tree as ``branching = n`` and overflows the node-index arithmetic).

    Examples
    --------
    >>> t = build_tree(10, 3)
    >>> t.height, t.sizes, t.n_measured_levels
    (3, (10, 4, 2, 1), 4)
    """
    n = check_int("n", n, minimum=1)
    b = check_int("branching", branching, minimum=2, maximum=MAX_ELEMENTS)
    return _tree(n, b, check_bool("measure_root", measure_root))
