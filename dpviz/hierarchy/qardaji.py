"""Qardaji, Yang and Li's closed forms for complete trees: level usage, average error, Algorithm 1.

These hold for ``N = b^h`` leaves, the root not measured and ``epsilon / h``
per level; :mod:`dpviz.hierarchy.accuracy` computes the exact error for any
tree, and the lecture compares the two.

References
----------
- [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
  Differentially Private Histograms." PVLDB 6(14), 2013.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dpviz.hierarchy.accuracy import _inv_eps2
from dpviz.hierarchy.budgets import check_budget
from dpviz.validation import check_array, check_bool, check_int, check_positive, check_work

__all__ = [
    "qardaji_level_usage",
    "qardaji_average_mse",
    "asymptotic_optimal_branching",
    "algorithm1_variances",
]


def qardaji_level_usage(N: int, branching: int) -> np.ndarray:
    """Qardaji's Eq. (2): ``M(l) = (b-1)(N^2/2 - N(b+1) b^(l-1)/3 + N)`` for levels l = 1..h (leaves = 1).

    Requires ``N = b^h``.  It counts the root as answering the full-domain
    query, so at the top level it is ``b`` less than the exact count with an
    unmeasured root (:func:`~dpviz.hierarchy.level_usage`).

    Parameters
    ----------
    N : int
        Number of leaves, a power of ``branching``, >= 2.
    branching : int
        Branching factor b >= 2.

    Returns
    -------
    numpy.ndarray
        (h,) float usage of levels 1 (leaves) .. h (children of the root).

    Raises
    ------
    TypeError
        If ``N`` or ``branching`` is not an integer.
    ValueError
        If ``N < 2``, ``branching < 2`` or ``N`` is not a power of ``branching``.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), Eq. (2).

    Examples
    --------
    >>> qardaji_level_usage(8, 2).tolist()
    [32.0, 24.0, 8.0]
    """
    h = _exact_height(N, branching)
    b = branching
    l = np.arange(1, h + 1)
    return (b - 1) * (N**2 / 2 - N * (b + 1) * b ** (l - 1.0) / 3 + N)


def _exact_height(N: int, branching: int) -> int:
    """``h = log_b N``, refusing an ``N`` that is not a power of ``branching``."""
    N = check_int("N", N, minimum=2)
    b = check_int("branching", branching, minimum=2)
    h = round(math.log(N, b))
    if b**h != N:
        raise ValueError(f"N must be a power of branching={b} for Qardaji's closed form, got N={N}")
    return h


def qardaji_average_mse(N: float, branching: int, epsilon: float, *, exact: bool = False) -> float:
    """Qardaji's average MSE of H_b (root not measured, epsilon/h per level, no inference).

    ``exact=False``: Eq. (3), ``((b-1) h^3 - 2(b+1) h^2 / 3) V_u`` with
    ``h = log_b N`` (real h allowed) and ``V_u = 2/epsilon^2``.
    ``exact=True``: Proposition 1 with Eq. (2),
    ``sum_l M(l) h^2 V_u / (N(N+1)/2)`` (needs ``N = b^h``).

    Parameters
    ----------
    N : float
        Number of leaves, > 1 (an integer power of ``branching`` when ``exact``).
    branching : int
        Branching factor b >= 2.
    epsilon : float
        Total privacy budget, finite and > 0.
    exact : bool, default False
        Use Proposition 1 with Eq. (2) instead of the approximation Eq. (3).

    Returns
    -------
    float
        The average MSE over all ranges.

    Raises
    ------
    TypeError
        If ``branching`` (or, when ``exact``, ``N``) is not an integer.
    ValueError
        If ``N <= 1``, ``branching < 2``, ``epsilon`` is not finite and > 0,
        (``exact``) ``N`` is not a power of ``branching``, or (not ``exact``)
        the tree is too short for the asymptotic Eq. (3), ``log_b N <= 2(b+1)/(3(b-1))``,
        where it would give a negative MSE.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), Proposition 1, Eqs. (2)-(4).

    Examples
    --------
    >>> round(qardaji_average_mse(2**10, 2, 1.0) / 2, 4)  # h^3 - 2 h^2, Eq. (4)
    800.0
    """
    b = check_int("branching", branching, minimum=2)
    eps = check_budget(epsilon)
    exact = check_bool("exact", exact)
    if not math.isfinite(check_positive("N", N)):
        raise ValueError(f"N must be finite, got {N!r}")
    Vu = 2.0 * _inv_eps2(eps)
    if exact:
        n_int = check_int("N", N, minimum=2)
        levels = _exact_height(n_int, b)
        M = qardaji_level_usage(n_int, b)
        return float(M.sum() * levels**2 * Vu / (n_int * (n_int + 1) / 2))
    N = float(N)
    if not N > 1:
        raise ValueError(f"N must be > 1, got {N}")
    h = math.log(N, b)
    if not (b - 1) * h > 2 * (b + 1) / 3:  # Eq. (3) drops lower-order terms: it turns negative for short trees
        raise ValueError(f"Eq. (3) is an asymptotic form that needs log_b N > 2(b+1)/(3(b-1)); N={N:g}, branching={b} "
                         f"give log_b N = {h:.3g}, where it is <= 0: use exact=True (N a power of b), "
                         "average_range_mse, or a larger N")
    return ((b - 1) * h**3 - 2 * (b + 1) * h**2 / 3) * Vu


def asymptotic_optimal_branching() -> float:
    """The b minimising ``(b - 1) (log_b N)^3`` for large N: root of ``ln b = 3 (b - 1) / b`` (about 16.8).

    Setting the derivative in b of ``(b - 1) / ln(b)^3`` to zero gives ``ln b = 3 (b - 1) / b``; its roots are
    b = 1 and b* ~ 16.8 (closed form ``b* = -3 / W0(-3 e^-3)`` with Lambert's W).

    Returns
    -------
    float
        The root b* > 1, by Newton's method from b = 16 (converged to machine precision in at most 6 steps;
        no scipy import, which would cost 0.2-0.3 s in a lecture's first cells).

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), §3.2.

    Examples
    --------
    >>> round(asymptotic_optimal_branching(), 3)
    16.801
    """
    # f(b) = ln b - 3 + 3/b: f'(b) = (b - 3) / b^2 > 0 and f''(b) = (6 - b) / b^3 < 0 for b > 6, and f(16) < 0,
    # so Newton's iterates from 16 increase monotonically to b* (5 steps; 50 is a hard cap)
    b = 16.0
    for _ in range(50):
        step = (math.log(b) - 3.0 + 3.0 / b) * b * b / (b - 3.0)
        b -= step
        if abs(step) <= 4 * math.ulp(b):
            break
    return b


def algorithm1_variances(h: int, branching: int, vo: ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Qardaji's Algorithm 1: per-level variances from below (after weighted averaging) and from above.

    ``V_below[1] = V_O[1]``, ``V_below[i] = b V_O[i] V_below[i-1] / (V_O[i] + b V_below[i-1])``;
    ``V_above[h] = V_O[h]``,
    ``V_above[i] = V_O[i] (V_above[i+1] + (b-1) V_below[i]) / (V_O[i] + V_above[i+1] + (b-1) V_below[i])``.
    Levels are 1 (leaves) .. h (children of the unmeasured root).  With
    ``vo=None`` every ``V_O = 1`` (uniform budget, variances in units of V_O).

    Parameters
    ----------
    h : int
        Number of measured levels, >= 1.
    branching : int
        Branching factor b >= 2.
    vo : array_like, optional
        (h,) positive noise variances ``V_O`` of the levels (leaves first); default all 1.

    Returns
    -------
    below, above : numpy.ndarray
        (h,) variances from below and from above, leaves first.

    Raises
    ------
    TypeError
        If ``h`` or ``branching`` is not an integer, or ``vo`` not numeric.
    ValueError
        If ``h < 1``, ``branching < 2``, or ``vo`` does not hold ``h`` positive finite variances.

    References
    ----------
    Qardaji, Yang, Li, PVLDB 2013 ([QYL13]), Algorithm 1.

    Examples
    --------
    >>> below, above = algorithm1_variances(4, 2)
    >>> [round(float(v), 6) for v in below]  # 1, 2/3, 4/7, 8/15
    [1.0, 0.666667, 0.571429, 0.533333]
    """
    h = check_int("h", h, minimum=1)
    check_work(float(h), 2**20, "levels", h=h)  # a loop over the levels: 1e5 take about 0.1 s
    b = check_int("branching", branching, minimum=2)
    VO = np.ones(h) if vo is None else check_array("vo", vo, ndim=1)
    if VO.size != h or np.any(VO <= 0):
        raise ValueError(f"vo must hold h={h} positive variances, got {VO}")
    below = np.empty(h)
    above = np.empty(h)
    below[0] = VO[0]
    for i in range(1, h):
        below[i] = b * VO[i] * below[i - 1] / (VO[i] + b * below[i - 1])
    above[h - 1] = VO[h - 1]
    for i in range(h - 2, -1, -1):
        s = above[i + 1] + (b - 1) * below[i]
        above[i] = VO[i] * s / (VO[i] + s)
    return below, above
