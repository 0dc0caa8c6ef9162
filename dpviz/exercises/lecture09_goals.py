"""The goals lecture 09's SelectionExplorer checks (how likely the best candidate is, permute-and-flip's advantage).

Each ``*_goal`` returns the text and the test that :meth:`dpviz.widgets.Explorer.add_goal` takes.
"""

from __future__ import annotations

import math
from typing import Any

from scipy import optimize

from dpviz import selection
from dpviz.experiments.selection import selection_scores

__all__ = ["best_probability_goal", "largest_advantage", "advantage_goal"]


def best_probability_goal(target: float = 0.9, scores: str = "adult", mechanism: str = "exponential",
                          tolerance: float = 0.01) -> tuple[str, Any]:
    """A goal for the SelectionExplorer: the epsilon at which ``mechanism`` picks a best candidate w.p. ``target``.

    Parameters
    ----------
    target : float, default 0.9
        The probability of choosing a best candidate to reach.
    scores : str, default "adult"
        The score vector of the goal (a key of ``dpviz.experiments.selection.SCORE_VECTORS``).
    mechanism : str, default "exponential"
        The mechanism of the goal.
    tolerance : float, default 0.01
        Absolute tolerance on the probability.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = best_probability_goal(0.9)
    >>> class R:
    ...     mechanism, monotone, epsilon, best_probability = "exponential", False, 0.25, {"exponential": 0.905}
    >>> test(R(), {"scores": "adult"})
    'epsilon = 0.25: P(best) = 0.905'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if values.get("scores") != scores or result.mechanism != mechanism or result.monotone:
            return None
        p = result.best_probability[mechanism]
        return f"epsilon = {result.epsilon:.3g}: P(best) = {p:.3f}" if abs(p - target) <= tolerance else None

    return (f"with the {mechanism} mechanism on the '{scores}' scores (scale 2Δ/ε), find the ε at which the best "
            f"candidate is chosen with probability {target:g}", test)


def largest_advantage(scores: str = "clear winner") -> tuple[float, float]:
    """Permute-and-flip's largest lead in expected score over the exponential mechanism, and the epsilon of it.

    Maximises ``E_PF - E_EM`` (both exact, scale 2 Delta / epsilon) over epsilon in [1e-3, 100] with
    :func:`scipy.optimize.minimize_scalar` on log epsilon.

    Parameters
    ----------
    scores : str, default "clear winner"
        A score vector of ``dpviz.experiments.selection.SCORE_VECTORS``.

    Returns
    -------
    tuple of (float, float)
        The largest lead and the epsilon where it is reached.

    Examples
    --------
    >>> lead, eps = largest_advantage()
    >>> round(lead, 2), round(eps, 3)
    (3.78, 0.163)
    """
    u, _ = selection_scores(scores)

    def minus_lead(log_eps: float) -> float:
        e = math.exp(log_eps)
        return -float((selection.permute_and_flip_probabilities(u, e) - selection.exponential_probabilities(u, e)) @ u)

    res = optimize.minimize_scalar(minus_lead, bounds=(math.log(1e-3), math.log(100.0)), method="bounded",
                                   options={"xatol": 1e-10})
    return -float(res.fun), math.exp(float(res.x))


def advantage_goal(scores: str = "clear winner", fraction: float = 0.9) -> tuple[str, Any]:
    """A goal: an epsilon where permute-and-flip's expected-score lead over the exponential mechanism is at least
    ``fraction`` of its largest (:func:`largest_advantage`).

    Parameters
    ----------
    scores : str, default "clear winner"
        The score vector of the goal.
    fraction : float, default 0.9
        How close to the largest lead the student must get.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = advantage_goal()
    >>> class R:
    ...     monotone, epsilon = False, 0.16
    ...     expected = {"exponential": 30.0, "permute-and-flip": 33.7}
    >>> test(R(), {"scores": "clear winner"})
    'epsilon = 0.16: permute-and-flip expects 3.70 more'
    """
    largest, _ = largest_advantage(scores)

    def test(result: Any, values: dict[str, Any]) -> str | None:
        if values.get("scores") != scores or result.monotone:
            return None
        gain = result.expected["permute-and-flip"] - result.expected["exponential"]
        return f"epsilon = {result.epsilon:.3g}: permute-and-flip expects {gain:.2f} more" \
            if gain >= fraction * largest else None

    return (f"on the '{scores}' scores (scale 2Δ/ε), find an ε where permute-and-flip's expected score beats the "
            f"exponential mechanism's by at least {fraction:.0%} of the largest margin", test)
