"""The goals lecture 02's explorers check (composition, amplification by subsampling, composition bounds).

Each ``*_goal`` returns the text and the test that :meth:`dpviz.widgets.Explorer.add_goal` takes; the test
reads the explorer's result and values and says when the student has reached the goal.
"""

from __future__ import annotations

import math
from typing import Any

from dpviz import composition, mechanisms

__all__ = ["refusal_goal", "amplification_goal", "crossover_goal", "gaussian_budget_goal"]


def refusal_goal() -> tuple[str, Any]:
    """A goal for the CompositionExplorer: raise Algorithm 1's share until the accountant refuses the plan.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)`` for :meth:`dpviz.widgets.Explorer.add_goal`.

    Examples
    --------
    >>> text, test = refusal_goal()
    >>> class R:
    ...     refusal, share, epsilon = "needs 1.2", 0.3, 1.0
    >>> test(R(), {})
    'share 0.3: 4 queries x 0.3 = 1.2 times the budget > 1, so the whole plan is refused'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if result.refusal is None:
            return None
        return (f"share {result.share:.3g}: 4 queries x {result.share:.3g} = {4 * result.share:.3g} times the "
                "budget > 1, so the whole plan is refused")

    return "raise Algorithm 1's share of the budget per query until the accountant refuses the plan", test


def amplification_goal(target: float = 0.05, epsilon: float = 1.0) -> tuple[str, Any]:
    """A goal for the SubsamplingExplorer: a sampling rate at which an eps-DP count costs at most ``target``.

    Parameters
    ----------
    target : float, default 0.05
        The largest epsilon on the data the student must reach.
    epsilon : float, default 1.0
        The count's epsilon on the sample the goal is set for.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test.

    Examples
    --------
    >>> text, test = amplification_goal()
    >>> class R:
    ...     epsilon, rate = 1.0, 0.02
    ...     bound = composition.amplified_epsilon(1.0, 0.02)
    >>> test(R(), {})
    'p = 0.02: eps on the data 0.0338 <= 0.05'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if abs(result.epsilon - epsilon) > 1e-6 * epsilon or result.bound > target:
            return None
        return f"p = {result.rate:.3g}: eps on the data {result.bound:.3g} <= {target:g}"

    return (f"keep epsilon = {epsilon:g} on the sample and find a sampling rate p at which the count costs at most "
            f"{target:g} on the data", test)


def crossover_goal(scale: float = 10.0, delta_prime: float = 1e-6) -> tuple[str, Any]:
    """A goal for the CompositionBoundsExplorer: the smallest k at which advanced composition beats basic.

    Parameters
    ----------
    scale : float, default 10
        The Laplace scale b of each release (each is ``1/b``-DP).
    delta_prime : float, default 1e-6
        The delta' of advanced composition.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test (the k must be exactly the smallest one, at these settings).

    Examples
    --------
    >>> text, test = crossover_goal()
    >>> class R:
    ...     mechanism, scale, delta_prime, k = "laplace", 10.0, 1e-6, 35
    ...     at_k = {"basic": 3.5, "advanced": 3.49}
    >>> test(R(), {})
    'k = 35: advanced 3.49 < basic 3.5, and not at k = 34'
    """
    want = composition.advanced_crossover(1.0 / scale, delta_prime)

    def test(result: Any, values: dict[str, Any]) -> str | None:
        if (result.mechanism != "laplace" or abs(result.scale / scale - 1) > 1e-3
                or abs(math.log10(result.delta_prime / delta_prime)) > 0.01 or result.k != want):
            return None
        return (f"k = {result.k}: advanced {result.at_k['advanced']:.3g} < basic {result.at_k['basic']:.3g}, "
                f"and not at k = {result.k - 1}")

    return (f"with Laplace noise b = {scale:g} and delta' = {delta_prime:g}, find the smallest k at which advanced "
            "composition charges less than basic composition", test)


#: The accounting rule of the CompositionBoundsExplorer whose total the Gaussian budget goal reads.
_EXACT = "exact (Gaussian with sigma / sqrt(k))"


def gaussian_budget_goal(sigma: float = 30.0, delta_prime: float = 1e-6, budget: float = 1.0) -> tuple[str, Any]:
    """A goal for the CompositionBoundsExplorer: the most Gaussian releases whose exact total stays within budget.

    Parameters
    ----------
    sigma : float, default 30
        The Gaussian noise of each release (sensitivity 1).
    delta_prime : float, default 1e-6
        The total delta.
    budget : float, default 1.0
        The total epsilon allowed.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test (k must be exactly the largest such k).

    Examples
    --------
    >>> text, test = gaussian_budget_goal()
    >>> class R:
    ...     mechanism, scale, delta_prime, k = "gaussian", 30.0, 1e-6, 50
    ...     at_k = {"exact (Gaussian with sigma / sqrt(k))": 0.9954}
    >>> test(R(), {})
    'k = 50: exact total 0.995 <= 1; one more release exceeds it'
    >>> R.k = 49
    >>> test(R(), {}) is None
    True
    """
    largest = 1
    while mechanisms.gaussian_epsilon(sigma / math.sqrt(largest + 1), 1.0, delta_prime) <= budget:
        largest += 1

    def test(result: Any, values: dict[str, Any]) -> str | None:
        if (result.mechanism != "gaussian" or abs(result.scale / sigma - 1) > 1e-3
                or abs(math.log10(result.delta_prime / delta_prime)) > 0.01 or result.k != largest):
            return None
        return f"k = {result.k}: exact total {result.at_k[_EXACT]:.3g} <= {budget:g}; one more release exceeds it"

    return (f"with Gaussian noise sigma = {sigma:g} and delta' = {delta_prime:g}, find the largest k whose exact total "
            f"epsilon stays within {budget:g}", test)
