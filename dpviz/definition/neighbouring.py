"""Neighbouring datasets: the two relations, the neighbours of a histogram, and sensitivity under each.

Differential privacy compares the outputs of a mechanism on two *neighbouring* datasets.  Two relations are
common:

* **add/remove-one** (unbounded DP): D' is D with one person's record added or removed.  The number of people
  may change, so the guarantee also hides whether a person took part.  Every lecture of this course, and every
  noise scale in dpviz, uses this relation.
* **replace-one** (bounded DP): D' is D with one person's record changed to another value; the number of
  people is the same.  A replacement is a removal followed by an addition, so an eps-DP mechanism under
  add/remove is 2 eps-DP under replace-one (group privacy for two steps), and a query's sensitivity may
  double: a histogram's is 1 under add/remove and 2 under replace-one.

For a linear query ``W x`` on a histogram ``x``, adding a person to cell j changes the answers by column j of
``W``; moving a person from cell a to cell b changes them by ``W[:, b] - W[:, a]``.

References
----------
- [KM11] D. Kifer, A. Machanavajjhala. "No Free Lunch in Data Privacy." SIGMOD 2011 (bounded and unbounded DP).
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends
  in TCS 9(3-4), 2014, Definition 2.4.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from scipy.spatial.distance import pdist

from dpviz.validation import check_choice, check_counts, check_elements, check_matrix

__all__ = ["RELATIONS", "histogram_neighbours", "l1_sensitivity"]

#: The neighbouring relations: ``"add/remove"`` (the course's) and ``"replace-one"``.
RELATIONS = ("add/remove", "replace-one")


def histogram_neighbours(counts: ArrayLike, relation: str = "add/remove") -> np.ndarray:
    """Every histogram that neighbours ``counts`` under ``relation``, one per row.

    Under add/remove, one person is added to any cell (``n`` neighbours) or removed from a non-empty cell;
    under replace-one, one person of a non-empty cell a moves to another cell b.

    Parameters
    ----------
    counts : array_like
        A 1-d histogram: finite, non-negative counts.
    relation : {"add/remove", "replace-one"}
        The neighbouring relation (:data:`RELATIONS`).

    Returns
    -------
    numpy.ndarray
        The neighbouring histograms, shape ``(number of neighbours, len(counts))``, in a fixed order
        (additions then removals; or moves by source cell, then target cell).

    Raises
    ------
    ValueError
        If ``counts`` is empty, not 1-d, negative or non-finite, ``relation`` is unknown, or the list of
        neighbours would be too large to allocate.
    TypeError
        If ``counts`` does not hold numbers.

    Examples
    --------
    >>> histogram_neighbours([1, 0], "add/remove")
    array([[2., 0.],
           [1., 1.],
           [0., 0.]])
    >>> histogram_neighbours([1, 0], "replace-one")
    array([[0., 1.]])
    """
    x = check_counts("counts", counts)
    relation = check_choice("relation", relation, RELATIONS)
    n = x.size
    check_elements(float(n) * n * n, "neighbouring histograms x cells", counts_size=n)
    eye = np.eye(n)
    if relation == "add/remove":
        return np.vstack([x + eye, (x - eye)[x > 0]])
    moves = [x - eye[a] + eye[b] for a in range(n) if x[a] > 0 for b in range(n) if b != a]
    return np.array(moves).reshape(-1, n)


def l1_sensitivity(matrix: Any, relation: str = "add/remove") -> float:
    """L1 sensitivity of the linear queries ``matrix @ x`` under ``relation``.

    Add/remove: the largest column L1 norm (one person enters or leaves one cell).  Replace-one: the largest
    L1 distance between two columns (one person leaves cell a and enters cell b), at most twice the
    add/remove value; for a histogram (the identity) it is 2.  With a single cell nobody can move, so the
    replace-one sensitivity is 0.

    Parameters
    ----------
    matrix : array_like or scipy.sparse matrix
        The query matrix, one row per query, one column per cell (2-d, finite).
    relation : {"add/remove", "replace-one"}
        The neighbouring relation (:data:`RELATIONS`).

    Returns
    -------
    float
        The largest L1 change of the answers between neighbours.

    Raises
    ------
    ValueError
        If ``matrix`` is not a finite, non-empty 2-d matrix, ``relation`` is unknown, or the pairwise
        distances would be too large to compute.
    TypeError
        If ``matrix`` does not hold numbers.

    Examples
    --------
    >>> l1_sensitivity(np.eye(3), "add/remove"), l1_sensitivity(np.eye(3), "replace-one")
    (1.0, 2.0)
    >>> l1_sensitivity(np.tril(np.ones((3, 3))), "replace-one")     # prefix sums: less than add/remove's 3
    2.0
    """
    W: Any = check_matrix("matrix", matrix)
    relation = check_choice("relation", relation, RELATIONS)
    cols = W.shape[1]
    with np.errstate(over="ignore"):
        if relation == "add/remove":
            out = float(np.asarray(abs(W).sum(axis=0)).max())
        elif cols < 2:
            out = 0.0
        else:
            check_elements(float(cols) * cols * W.shape[0], "column pairs x queries", matrix_shape=W.shape)
            sparse = sp.issparse(W)  # a plain bool: the scipy stubs' narrowing would hide csc_array's methods
            dense = W.toarray() if sparse else W
            out = float(pdist(dense.T, metric="cityblock").max())
    if not math.isfinite(out):  # a sum of |entries| beyond the doubles
        raise ValueError(f"matrix's L1 sensitivity overflows the doubles: its entries are too large (up to "
                         f"{float(abs(W).max()):.3g})")
    return out
