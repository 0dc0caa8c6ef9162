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

from dpviz.validation import (
    check_array,
    check_counts,
    check_int,
)


@dataclass(frozen=True)
class ReconstructionAccuracy:
    """Fraction of cells guessed exactly: overall, among cells with true count <= k ([CM15]_ Tables 2, 3), and
    among cells with 1 <= count <= k (where guessing "0 everywhere" does not help)."""

    overall: float
    small: float
    small_nonzero: float
    k: int
    n_cells: int
    n_small: int
    n_small_nonzero: int


def support_k(counts) -> int:
    """Largest k such that every count 0, 1, ..., k occurs in some cell (-1 if no cell is 0); [CM15]_ Table 1."""
    counts = check_counts("counts", counts)
    present = np.zeros(counts.size + 2, dtype=bool)
    small = counts[counts <= counts.size].astype(np.int64)
    present[small] = True
    missing = np.flatnonzero(~present)
    return int(missing[0]) - 1


def fraction_exact(counts, guess, k: int | None = None) -> ReconstructionAccuracy:
    """Fraction of cells with ``guess == counts``: overall, among cells with ``counts <= k``, and with ``1 <= counts <= k``.

    ``k`` defaults to :func:`support_k` of ``counts`` (the k of [CM15]_ Table 1).
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
