"""Group privacy: what an eps-DP mechanism promises a group of k people (a family, a household, a team).

Two datasets that differ in k people are joined by a path of k neighbours, one person added or removed at
each step; the privacy-loss bounds of the steps add up, so an eps-DP mechanism is ``k eps``-DP for groups of
k, and the bound is attained (a Laplace count on counts k apart has loss exactly ``k eps`` far in the tail).
For (eps, delta)-DP the delta grows too: ``(k eps, delta (1 + e^eps + ... + e^{(k-1) eps}))``, at most
``k e^{(k-1) eps} delta``.  Replace-one neighbours are two
add/remove steps, hence a group of 2.

References
----------
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends
  in TCS 9(3-4), 2014, Theorem 2.2 (pure eps-DP only: a group of k is k eps-DP).
- [Vad17] S. Vadhan. "The Complexity of Differential Privacy." In Tutorials on the Foundations of
  Cryptography, Springer 2017, Lemma 2.2 (the delta of a group).
"""

from __future__ import annotations

import math

from dpviz.validation import check_delta, check_epsilon, check_int

__all__ = ["group_privacy"]

#: Largest group :func:`group_privacy` accepts (an exact integer as a float).
MAX_GROUP = 10**15


def group_privacy(epsilon: float, group_size: int, delta: float = 0.0) -> tuple[float, float]:
    """What an (eps, delta)-DP mechanism guarantees a group of k people: ``(k eps, delta sum_{i<k} e^(i eps))``.

    Datasets that differ in k people are joined by a chain of k neighbours; applying the definition along the
    chain gives ``P[M(D_0) in S] <= e^(k eps) P[M(D_k) in S] + delta (1 + e^eps + ... + e^((k-1) eps))``.
    The delta factor is at most ``k e^((k-1) eps)``, the simpler bound some texts quote.

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
        ``(k eps, delta (e^(k eps) - 1) / (e^eps - 1))``; the second is 0 for pure DP.

    Raises
    ------
    ValueError
        If a parameter is out of range, ``k eps`` overflows, or the group's delta reaches 1 (the guarantee
        would say nothing).
    TypeError
        For arguments of the wrong type.

    References
    ----------
    See the module's references: [DR14] Theorem 2.2 (delta = 0), [Vad17] Lemma 2.2 (the delta of a group).

    Examples
    --------
    >>> group_privacy(0.5, 4)
    (2.0, 0.0)
    >>> eps, delta = group_privacy(0.1, 2, 1e-6)
    >>> round(eps, 6), round(delta / 1e-6, 4)
    (0.2, 2.1052)
    """
    epsilon = check_epsilon(epsilon)
    k = check_int("group_size", group_size, minimum=1, maximum=MAX_GROUP)
    delta = check_delta(delta, allow_zero=True)
    total = k * epsilon
    if not math.isfinite(total):
        raise ValueError(f"epsilon={epsilon!r}, group_size={k}: the group's epsilon k x epsilon overflows; "
                         "lower epsilon or group_size")
    if delta == 0.0:
        return total, 0.0
    try:
        # (e^(k eps) - 1) / (e^eps - 1) = 1 + e^eps + ... + e^((k-1) eps), as a difference of logs
        factor = math.exp(math.log(math.expm1(total)) - math.log(math.expm1(epsilon)))
    except OverflowError:
        factor = math.inf
    grown = delta * factor
    if not grown < 1:
        raise ValueError(f"group_size={k} x delta={delta!r} grows to {grown:g} >= 1 over the chain of neighbours: "
                         "the group guarantee would be vacuous; lower delta, epsilon or group_size")
    return total, grown
