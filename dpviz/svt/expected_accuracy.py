"""The exact expected accuracy of the GPTT attack (NOT differentially private) without query noise.

:func:`expected_fraction_exact` gives the expectation, over GPTT's threshold
noise and the Laplace totals, of the fraction of cells that Algorithms 3 and 4
of [CM15]_ guess exactly: the quantity the paper's Tables 2 and 3 estimate with
10 runs.  It sits beside the sampler (:func:`dpviz.svt.reconstruct`) as a
closed form to compare simulations with.

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from dpviz.mechanisms import laplace_scale
from dpviz.svt.partition import GROUPINGS
from dpviz.validation import check_choice, check_counts, check_epsilon, check_int, check_open_unit, check_real

__all__ = ["expected_fraction_exact", "MAX_THRESHOLD_STEPS"]

#: Most integer threshold positions :func:`expected_fraction_exact` sums over (each costs O(levels)).
MAX_THRESHOLD_STEPS = 1_000_000

_TAIL = 40.0   # threshold noise beyond 40 scales is left out: mass exp(-40) < 5e-18


def _laplace_cdf(t: np.ndarray, scale: float) -> np.ndarray:
    """P(Lap(scale) <= t), elementwise."""
    t = np.asarray(t, dtype=float)
    return np.where(t < 0, 0.5 * np.exp(np.minimum(t, 0.0) / scale), 1.0 - 0.5 * np.exp(-np.maximum(t, 0.0) / scale))


def expected_fraction_exact(counts: npt.ArrayLike, epsilon: float, *, split: float = 0.5, threshold: float = 0.5,
                            small_bound: int | None = None, grouping: str = "row_and_column") -> float:
    """Expected fraction of cells the GPTT attack (**NOT differentially private**) guesses exactly, in closed form.

    For :func:`dpviz.svt.reconstruct` without query noise and with the paper's
    rounded averages ([CM15] Section 5, Algorithms 3 and 4).  Counts are
    integers, so GPTT's answers ``c(x) - c(z) >= T^`` depend on the noisy
    threshold ``T^ = threshold + Lap(1/(split * epsilon))`` only through
    ``m = ceil(T^)``.  Given m, two neighbouring levels ``u < v`` of the
    histogram fall in different groups iff some level w separates them: in a
    row, ``w in (u - m, v - m]``; in a column, ``w in [u + m, v + m)`` (rows only
    for ``grouping="row"``).  Given the groups, a cell of count v in a group
    of n cells with total S is guessed exactly iff the total's noise
    ``Lap(1/((1 - split) * epsilon))`` lies in ``[n (v - 1/2) - S, n (v + 1/2) - S)``.
    The expectation sums these probabilities over m; beyond the largest count
    difference D every m gives one single group, and positions more than 40
    noise scales from the threshold (probability below 5e-18) are left out.

    Parameters
    ----------
    counts : array_like of non-negative integers, shape (d,)
        The private histogram.
    epsilon : float
        Total (claimed) budget, finite and > 0.
    split : float, default 0.5
        Fraction of epsilon given to GPTT's threshold, in (0, 1).
    threshold : float, default 0.5
        GPTT's threshold T.
    small_bound : int, optional
        Average over the cells with count <= small_bound only (Table 3 of
        [CM15] uses 5); over all cells when None (Table 2).
    grouping : {"row_and_column", "row"}, default "row_and_column"
        How Algorithm 3 groups cells (see :func:`dpviz.svt.ordered_partition`).

    Returns
    -------
    float
        The expected fraction guessed exactly (NaN if no cell has count <= small_bound).

    Raises
    ------
    ValueError, TypeError
        If ``counts`` are not non-negative integer counts, ``epsilon``,
        ``split``, ``threshold`` or ``grouping`` is invalid, ``small_bound`` is
        not an int >= 0, or the sum would need more than
        :data:`MAX_THRESHOLD_STEPS` threshold positions (tiny epsilon on
        counts far apart).

    References
    ----------
    See [CM15] (Section 5, Tables 2 and 3) in the module docstring.

    Examples
    --------
    >>> x = np.repeat([0, 1, 2, 3, 4, 5, 6, 7], 40)
    >>> round(expected_fraction_exact(x, 1.0), 4)
    0.9407
    >>> from dpviz.svt import reconstruct
    >>> round(float(np.mean([np.mean(reconstruct(x, 1.0, rng=s).guess == x) for s in range(400)])), 2)
    0.94
    """
    counts = check_counts("counts", counts)
    if np.any(counts != np.round(counts)):
        raise ValueError("counts must be integer counts")
    epsilon = check_epsilon(epsilon)
    split = check_open_unit("split", split)
    threshold = check_real("threshold", threshold)
    check_choice("grouping", grouping, GROUPINGS)
    if small_bound is not None:
        small_bound = check_int("small_bound", small_bound, minimum=0)
    b_threshold = laplace_scale(1.0, split * epsilon, name="split * epsilon")
    b_totals = laplace_scale(1.0, (1.0 - split) * epsilon, name="(1 - split) * epsilon")
    levels, n_at = np.unique(counts, return_counts=True)
    weight = n_at * (levels <= small_bound) if small_bound is not None else n_at.astype(float)
    if weight.sum() == 0:
        return float("nan")
    spread = float(levels[-1] - levels[0])
    # m ranges over the integers with m - 1 < T^ <= m; m <= -spread and m > spread each give one single group
    lo = float(max(-spread, math.floor(threshold - _TAIL * b_threshold)))
    hi = float(min(spread + 1.0, math.ceil(threshold + _TAIL * b_threshold) + 1.0))
    if hi - lo + 1 > MAX_THRESHOLD_STEPS:
        raise ValueError(f"expected_fraction_exact would sum over {hi - lo + 1:.3g} threshold positions (more than "
                         f"{MAX_THRESHOLD_STEPS}) for epsilon={epsilon!r}, split={split!r} and counts spread over "
                         f"{spread:g}: raise epsilon")
    u, v = levels[:-1], levels[1:]

    def hits(m: float | None) -> float:
        """Expected weighted exact guesses given ceil(T^) = m (None: one single group)."""
        if m is None or levels.size == 1:
            group = np.zeros(levels.size, dtype=np.int64)
        else:
            apart = (np.searchsorted(levels, v - m, side="right") - np.searchsorted(levels, u - m, side="right")) > 0
            if grouping == "row_and_column":
                apart |= (np.searchsorted(levels, v + m, side="left") - np.searchsorted(levels, u + m, side="left")) > 0
            group = np.concatenate([[0], np.cumsum(apart)])
        n = np.bincount(group, weights=n_at)[group]
        s = np.bincount(group, weights=n_at * levels)[group]
        p = _laplace_cdf(n * (levels + 0.5) - s, b_totals) - _laplace_cdf(n * (levels - 0.5) - s, b_totals)
        return float(np.sum(weight * p))

    m_values = np.arange(lo, hi + 1.0) if lo <= hi else np.empty(0)   # empty: T^ surely beyond every count
    below = _laplace_cdf(np.concatenate([[lo - 1.0], m_values]) - threshold, b_threshold)   # P(T^ <= t)
    # T^ <= lo - 1 and T^ > hi: one single group (exactly so when lo, hi reach the spread; else mass < 5e-18)
    total = (below[0] + (1.0 - below[-1])) * hits(None)
    for m, p_m in zip(m_values, np.diff(below), strict=True):
        total += float(p_m) * hits(float(m))
    return float(total) / float(weight.sum())
