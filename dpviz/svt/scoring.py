"""Scoring a reconstruction: the fraction of cells guessed exactly, overall and among small counts.

The measures of [CM15]_ Tables 1-3: the support k of a histogram and the
fraction of cells (all, count <= k, 1 <= count <= k) an attack guessed exactly.

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpviz.validation import check_array, check_counts, check_int

__all__ = ["ReconstructionAccuracy", "fraction_exact", "support_k"]


@dataclass(frozen=True)
class ReconstructionAccuracy:
    """Fraction of cells guessed exactly: overall, among small counts, and among small non-zero counts.

    "Small" means a true count <= k ([CM15] Tables 2 and 3); the cells with
    1 <= count <= k are those where guessing "0 everywhere" does not help.
    Built by :func:`fraction_exact`.

    Attributes
    ----------
    overall : float
        Fraction of all cells guessed exactly (Table 2).
    small : float
        Fraction of the cells with count <= k guessed exactly (Table 3; NaN if none).
    small_nonzero : float
        Fraction of the cells with 1 <= count <= k guessed exactly (NaN if none).
    k : int
        The cut-off for "small".
    n_cells : int
        Number of cells.
    n_small : int
        Number of cells with count <= k.
    n_small_nonzero : int
        Number of cells with 1 <= count <= k.

    References
    ----------
    See [CM15] (Tables 1-3) in the module docstring.

    Examples
    --------
    >>> acc = fraction_exact([0, 1, 2, 5], [0, 1, 3, 5], k=2)
    >>> acc.overall, acc.small, acc.small_nonzero, acc.n_small
    (0.75, 0.6666666666666666, 0.5, 3)
    """

    overall: float
    small: float
    small_nonzero: float
    k: int
    n_cells: int
    n_small: int
    n_small_nonzero: int


def support_k(counts: npt.ArrayLike) -> int:
    """Largest k such that every count 0, 1, ..., k occurs in some cell (-1 if no cell is 0); [CM15] Table 1.

    Parameters
    ----------
    counts : array_like of non-negative numbers, shape (d,)
        The histogram.

    Returns
    -------
    int
        The support k, or -1 if no cell has count 0.

    Raises
    ------
    ValueError, TypeError
        If ``counts`` are not non-negative finite counts.

    References
    ----------
    See [CM15] (Table 1) in the module docstring.

    Examples
    --------
    >>> support_k([0, 1, 1, 2, 4]), support_k([1, 2])
    (2, -1)
    """
    counts = check_counts("counts", counts)
    present = np.zeros(counts.size + 2, dtype=bool)
    small = counts[counts <= counts.size].astype(np.int64)
    present[small] = True
    missing = np.flatnonzero(~present)
    return int(missing[0]) - 1


def fraction_exact(counts: npt.ArrayLike, guess: npt.ArrayLike, k: int | None = None) -> ReconstructionAccuracy:
    """Fraction of cells with ``guess == counts``: overall, with ``counts <= k``, and with ``1 <= counts <= k``.

    Parameters
    ----------
    counts : array_like of non-negative numbers, shape (d,)
        The true histogram.
    guess : array_like, shape (d,)
        The guessed counts.
    k : int, optional
        Cut-off for "small" counts, >= 0; defaults to :func:`support_k` of
        ``counts`` (the k of [CM15] Table 1).

    Returns
    -------
    ReconstructionAccuracy
        The three fractions with the cell counts they are taken over.

    Raises
    ------
    ValueError, TypeError
        If ``counts`` are not non-negative counts, ``guess`` is not a finite array
        of the same shape, or ``k`` is not an int >= 0.

    References
    ----------
    See [CM15] (Tables 2 and 3) in the module docstring.

    Examples
    --------
    >>> fraction_exact([0, 1, 2, 5], [0, 1, 3, 5]).overall     # k = support_k = 2
    0.75
    """
    counts = check_counts("counts", counts)
    guess = check_array("guess", guess, ndim=1)
    if guess.shape != counts.shape:
        raise ValueError(f"guess must have the shape of counts {counts.shape}, got {guess.shape}")
    k = support_k(counts) if k is None else check_int("k", k, minimum=0)
    hit = guess == counts
    small = counts <= k
    nonzero = small & (counts >= 1)
    n_small, n_nz = int(small.sum()), int(nonzero.sum())
    return ReconstructionAccuracy(overall=float(hit.mean()),
                                  small=float(hit[small].mean()) if n_small else float("nan"),
                                  small_nonzero=float(hit[nonzero].mean()) if n_nz else float("nan"),
                                  k=int(k), n_cells=int(counts.size), n_small=n_small, n_small_nonzero=n_nz)
