"""The goals lecture 00's explorer checks (randomized response's truth probability, indistinguishability, groups).

Each ``*_goal`` returns the text and the test that :meth:`dpviz.widgets.Explorer.add_goal` takes on the
:class:`~dpviz.widgets.PrivacyLossExplorer`; the test reads the explorer's result and values and says when the
student has reached the goal.  :mod:`dpviz.exercises.lecture00` re-exports them.
"""

from __future__ import annotations

from typing import Any

from dpviz import definition, mechanisms

__all__ = ["warner_goal", "indistinguishable_goal", "group_goal"]


def warner_goal(probability: float = 0.75, tolerance: float = 0.005) -> tuple[str, Any]:
    """A goal for the PrivacyLossExplorer: find the epsilon at which randomized response tells the truth w.p. 3/4.

    Parameters
    ----------
    probability : float, default 0.75
        The target probability of a truthful report (the two-coin design of lecture 00: 3/4).
    tolerance : float, default 0.005
        Absolute tolerance on that probability.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)`` for :meth:`dpviz.widgets.Explorer.add_goal`.

    Examples
    --------
    >>> import math
    >>> text, test = warner_goal()
    >>> class R:
    ...     mechanism, epsilon = "randomized response", math.log(3)
    >>> test(R(), {})
    'epsilon = 1.1: the truth with probability 0.750'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if result.mechanism != "randomized response":
            return None
        p = mechanisms.randomized_response_probability(result.epsilon)
        if abs(p - probability) <= tolerance:
            return f"epsilon = {result.epsilon:.3g}: the truth with probability {p:.3f}"
        return None

    return (f"with randomized response, find the epsilon at which a person reports the truth with probability "
            f"{probability:g}"), test


def indistinguishable_goal(advantage: float = 0.1) -> tuple[str, Any]:
    """A goal: the largest epsilon at which no test tells a Laplace count's D from D' better than ``advantage``.

    Reached when the total variation distance between the two output distributions of a Laplace count on
    neighbours (one person apart) lies in ``[0.9 advantage, advantage]``.

    Parameters
    ----------
    advantage : float, default 0.1
        The largest advantage (power minus false-positive rate) allowed.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = indistinguishable_goal(0.1)
    >>> class R:
    ...     mechanism, epsilon, group = "Laplace", 0.21, 1
    >>> test(R(), {})
    'epsilon = 0.21: the best test has advantage 0.100'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if result.mechanism != "Laplace" or result.group != 1:
            return None
        tv = definition.laplace_total_variation(1.0, 1.0, result.epsilon)
        if 0.9 * advantage <= tv <= advantage:
            return f"epsilon = {result.epsilon:.3g}: the best test has advantage {tv:.3f}"
        return None

    return (f"with the Laplace mechanism and one person, find the largest epsilon at which no test tells D from D' "
            f"with an advantage above {advantage:g}"), test


def group_goal(group: int = 5, target: float = 1.0, tolerance: float = 0.03) -> tuple[str, Any]:
    """A goal: protect a group of ``group`` people with a Laplace count as well as one person is at ``target``.

    Parameters
    ----------
    group : int, default 5
        The group size to set.
    target : float, default 1.0
        The group's epsilon to reach.
    tolerance : float, default 0.03
        Relative tolerance on the group's epsilon.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = group_goal()
    >>> class R:
    ...     mechanism, epsilon, group = "Laplace", 0.2, 5
    >>> test(R(), {})
    'epsilon = 0.2 per person: the group of 5 has epsilon 1'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if result.mechanism != "Laplace" or result.group != group:
            return None
        eps_group = definition.group_privacy(result.epsilon, group)[0]
        if abs(eps_group - target) <= tolerance * target:
            return f"epsilon = {result.epsilon:.3g} per person: the group of {group} has epsilon {eps_group:.3g}"
        return None

    return (f"with the Laplace mechanism, set the group to {group} people and find the epsilon per person that "
            f"gives the group epsilon = {target:g}"), test
