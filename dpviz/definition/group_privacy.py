"""Group privacy: what an eps-DP mechanism promises a group of k people (a family, a household, a team).

Two datasets that differ in k people are joined by a path of k neighbours, one person added or removed at
each step; the privacy-loss bounds of the steps add up, so an eps-DP mechanism is ``k eps``-DP for groups of
k, and the bound is attained (a Laplace count on counts k apart has loss exactly ``k eps`` far in the tail).
For (eps, delta)-DP the delta grows too: ``(k eps, k e^{(k-1) eps} delta)``.  Replace-one neighbours are two
add/remove steps, hence a group of 2.

References
----------
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends
  in TCS 9(3-4), 2014, Theorem 2.2.
- [Vad17] S. Vadhan. "The Complexity of Differential Privacy." In Tutorials on the Foundations of
  Cryptography, Springer 2017, Lemma 2.2 (the delta of a group).
"""

from __future__ import annotations

import math

from dpviz.validation import check_delta, check_epsilon, check_int

__all__ = ["group_epsilon"]

#: Largest group :func:`group_epsilon` accepts (an exact integer as a float).
MAX_GROUP = 10**15


def group_epsilon(epsilon: float, group_size: int, delta: float = 0.0) -> tuple[float, float]:
    """The privacy an (eps, delta)-DP mechanism gives a group of ``group_size`` people.

    Parameters
    ----------
    epsilon : float
        The mechanism's epsilon for one person, finite and > 0.
    group_size : int
        Number of people k whose records are added or removed together, 1 <= k <= 10**15.
    delta : float, default 0.0
        The mechanism's delta for one person, in [0, 1) (0 for pure DP).

    Returns
    -------
    tuple of float
        ``(k eps, k e^{(k-1) eps} delta)``; the second is 0 for pure DP and is capped at 1 (a delta of 1
        promises nothing).

    Raises
    ------
    ValueError
        If a parameter is out of range, or ``k eps`` overflows.
    TypeError
        For arguments of the wrong type.

    Examples
    --------
    >>> group_epsilon(0.5, 4)
    (2.0, 0.0)
    >>> eps, delta = group_epsilon(0.1, 2, 1e-6)
    >>> round(eps, 6), round(delta, 10)
    (0.2, 2.2103e-06)
    """
    epsilon = check_epsilon(epsilon)
    k = check_int("group_size", group_size, minimum=1, maximum=MAX_GROUP)
    delta = check_delta(delta, allow_zero=True)
    total = k * epsilon
    if not math.isfinite(total):
        raise ValueError(f"epsilon={epsilon!r}, group_size={k}: the group's epsilon overflows")
    if delta == 0.0:
        return total, 0.0
    log_delta = math.log(k) + (k - 1) * epsilon + math.log(delta)
    return total, math.exp(log_delta) if log_delta < 0 else 1.0
