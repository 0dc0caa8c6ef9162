"""MWEM's selection step, exactly: the probability with which the exponential mechanism picks each query.

:func:`dpviz.data_aware.mwem` *samples* the query of each round (Gumbel-max);
:func:`selection_probabilities` gives the distribution it samples from, so a
lecture can print it and a test can compare the two.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dpviz.data_aware.queries import _queries_or_raise
from dpviz.selection import exponential_probabilities
from dpviz.validation import blame, check_counts, check_elements, check_epsilon

__all__ = ["selection_probabilities"]


def selection_probabilities(x: ArrayLike, workload: Any, epsilon_select: float, synthetic: ArrayLike) -> np.ndarray:
    """Probability that MWEM's exponential mechanism selects each workload query, given the synthetic histogram.

    MWEM scores query q by how badly the current synthetic histogram A answers it,
    ``s(q) = |q(A) - q(x)| / Delta`` (``Delta`` the largest absolute coefficient of
    the workload, so every score has sensitivity 1 under add/remove-one
    neighbours), and selects q with probability

        ``P(q) = exp(eps_s s(q) / 2) / sum_r exp(eps_s s(r) / 2)``,

    the exponential mechanism [MT07] (:func:`dpviz.selection.exponential_probabilities` with
    sensitivity 1), which is eps_s-DP.  In round 1 the synthetic histogram is uniform, ``A = N / n``
    in every cell.

    Parameters
    ----------
    x : array_like, shape (n,)
        The private histogram (finite, non-negative counts).
    workload : Workload, (starts, stops) or matrix
        The queries MWEM selects from, as for :func:`dpviz.data_aware.mwem`.
    epsilon_select : float
        The selection budget eps_s of the round (``MWEMResult.epsilon_select``), finite and > 0.
    synthetic : array_like, shape (n,)
        The synthetic histogram A before the round (finite, non-negative).

    Returns
    -------
    numpy.ndarray, shape (m,)
        The selection probability of each of the m workload queries (they sum to 1).

    Raises
    ------
    TypeError
        If the workload is missing or of the wrong type, or an argument is not a number.
    ValueError
        If ``x`` or ``synthetic`` is not a 1-D array of finite non-negative counts, they
        differ in length, the workload is not over their n cells, ``epsilon_select`` is
        not finite and > 0, or the scores (queries, times n for a matrix) exceed
        :data:`dpviz.validation.MAX_ELEMENTS`.

    References
    ----------
    See the package references: [HLM12] (MWEM), [MT07] (exponential mechanism).

    Examples
    --------
    >>> x = [0, 0, 50, 0, 0, 0, 30, 0]                          # 80 records on 8 cells
    >>> prefixes = (np.zeros(8, dtype=int), np.arange(1, 9))   # the 8 prefix queries [0, k)
    >>> p = selection_probabilities(x, prefixes, 0.25, np.full(8, 10.0))
    >>> p.round(3).tolist()
    [0.087, 0.302, 0.302, 0.087, 0.025, 0.087, 0.087, 0.025]
    """
    x = check_counts("x", x)
    eps = check_epsilon(epsilon_select, "epsilon_select")
    A = check_counts("synthetic", synthetic)
    if A.shape != x.shape:
        raise ValueError(f"synthetic must have the n={x.size} cells of x, got shape {A.shape}")
    Q = _queries_or_raise(workload, x.size)
    check_elements(float(Q.m) * (x.size if Q.kind == "matrix" else 1), "selection scores (queries, x n for a matrix)",
                   queries=Q.m, n=x.size)
    score = np.abs(Q.answers(A[None, :]) - Q.answers(x[None, :]))[0]
    with blame(epsilon_select=epsilon_select):
        return exponential_probabilities(score, eps, sensitivity=1.0)
