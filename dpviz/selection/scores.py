"""Score vectors: the input of every selection mechanism, and what a selection achieves on them.

A selection problem has m candidates r = 0..m-1 (public: fixed before the data is seen) and a score
``u_r = u(D, r)`` for each, computed on the private data D; higher is better.  The scores' *sensitivity*
``Delta`` bounds how far any one score moves when one record is added or removed.  A mechanism returns a
candidate; what it achieves is measured by its score: the expected score ``sum_r P(r) u_r``, and the
probability of falling short of the best by at least some gap.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dpviz.validation import MAX_MAGNITUDE, check_array, check_nonnegative

__all__ = ["expected_score", "shortfall_probability"]

#: Most candidates one call takes (the exact probabilities of some mechanisms cost m^2).
MAX_CANDIDATES = 1 << 16


def _scores(value: Any, name: str = "scores") -> np.ndarray:
    """A 1-D float array of finite scores with at least one and at most MAX_CANDIDATES candidates."""
    u = check_array(name, value, ndim=1, max_abs=MAX_MAGNITUDE)  # gaps between scores must not overflow
    if u.size == 0:
        raise ValueError(f"{name} must hold at least one candidate's score, got an empty array")
    if u.size > MAX_CANDIDATES:
        raise ValueError(f"{name} has {u.size} candidates; at most {MAX_CANDIDATES} are supported")
    return u


def _standardised(u: np.ndarray, scale: float) -> np.ndarray:
    """``(u - max u) / scale``: every score in units of the selection scale, the best at 0 (never NaN)."""
    with np.errstate(over="ignore"):
        return (u - u.max()) / scale


def _from_logs(log_p: np.ndarray) -> np.ndarray:
    """Probabilities from log-probabilities: ``exp(min(log p, 0))``.  A log-probability is never above 0, but the
    rounding of a normalisation can leave one at +1e-16 (seen with numpy 1.26), whose exp, 1 + 2e-16, is not a
    probability: every probability vector below is made here."""
    return np.exp(np.minimum(log_p, 0.0))


def _probabilities(value: Any, size: int, name: str = "probabilities") -> np.ndarray:
    """A probability vector over ``size`` candidates (entries in [0, 1] summing to 1 within 1e-9)."""
    p = check_array(name, value, ndim=1)
    if p.size != size:
        raise ValueError(f"{name} must have one entry per candidate (scores has {size}), got {p.size}")
    if np.any(p < 0) or np.any(p > 1) or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError(f"{name} must be a probability vector (entries in [0, 1] summing to 1), "
                         f"got entries in [{p.min():.3g}, {p.max():.3g}] summing to {p.sum():.12g}")
    return p


def expected_score(scores: ArrayLike, probabilities: ArrayLike) -> float:
    """The expected score ``sum_r P(r) u_r`` of a mechanism that picks r with probability ``P(r)``.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite.
    probabilities : array_like, shape (m,)
        The mechanism's selection probabilities (entries in [0, 1] summing to 1).

    Returns
    -------
    float
        The expected score, at most ``max(scores)``.

    Raises
    ------
    ValueError
        If the scores are not a non-empty 1-D finite array, or ``probabilities`` is not a probability vector
        over the same candidates.
    TypeError
        If an argument is not array-like of numbers.

    Examples
    --------
    >>> expected_score([10.0, 0.0], [0.75, 0.25])
    7.5
    """
    u = _scores(scores)
    p = _probabilities(probabilities, u.size)
    return float(min(np.dot(p, u), u.max()))


def shortfall_probability(scores: ArrayLike, probabilities: ArrayLike, gap: float) -> float:
    """``P(u_chosen <= max u - gap)``: the probability that the chosen score falls short of the best by ``gap``.

    The exponential mechanism's utility guarantee bounds this probability (see
    :func:`dpviz.selection.exponential_utility_gap`); here it is computed exactly from the selection
    probabilities.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite.
    probabilities : array_like, shape (m,)
        The mechanism's selection probabilities.
    gap : float
        The shortfall, >= 0.

    Returns
    -------
    float
        The total probability of the candidates whose score is at most ``max(scores) - gap``.

    Raises
    ------
    ValueError
        If the scores or probabilities are invalid (see :func:`expected_score`) or ``gap`` < 0 or NaN.
    TypeError
        If an argument has the wrong type.

    Examples
    --------
    >>> round(shortfall_probability([10.0, 5.0, 0.0], [0.7, 0.2, 0.1], 5.0), 12)
    0.3
    """
    u = _scores(scores)
    p = _probabilities(probabilities, u.size)
    g = check_nonnegative("gap", gap)
    return float(p[u <= u.max() - g].sum())
