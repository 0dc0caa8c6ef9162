"""The goals lecture 06's GPTTAttackExplorer checks (the majority vote restores the attack; GPTT beats any DP release).

Each ``*_goal`` returns the text and the test that :meth:`dpviz.widgets.Explorer.add_goal` takes.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["majority_vote_goal", "dp_ceiling_goal"]


def _dp_ceiling(epsilon: float) -> float:
    """The largest probability with which an epsilon-DP release lets anyone guess both of two neighbouring counts."""
    return math.exp(epsilon) / (1.0 + math.exp(epsilon))


def majority_vote_goal(target: float = 0.95) -> tuple[str, Any]:
    """A goal for the GPTTAttackExplorer: with query noise, raise the copies until the attack works again.

    Parameters
    ----------
    target : float, default 0.95
        The fraction of the cells with count <= k the GPTT attack must guess exactly.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)`` for :meth:`dpviz.widgets.Explorer.add_goal`.

    Examples
    --------
    >>> text, test = majority_vote_goal()
    >>> class Acc:
    ...     small = 0.99
    >>> class R:
    ...     gptt_accuracy, copies = Acc(), 10_001
    >>> test(R(), {"query_share": 0.5})
    '10,001 copies per query: 99.0 % of the cells with count <= k guessed exactly'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if values.get("query_share", 0.0) > 0 and result.gptt_accuracy.small >= target:
            return (f"{result.copies:,} copies per query: {100 * result.gptt_accuracy.small:.1f} % of the cells "
                    f"with count <= k guessed exactly")
        return None

    return (f"add query noise, then raise the copies until GPTT again gives away at least {100 * target:g} % of the "
            "cells with count <= k", test)


def dp_ceiling_goal(epsilon: float = 0.01) -> tuple[str, Any]:
    """A goal for the GPTTAttackExplorer: at a claimed epsilon this small, still beat what any DP release allows.

    Parameters
    ----------
    epsilon : float, default 0.01
        The claimed epsilon to reach (the slider's minimum), within 5 %.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = dp_ceiling_goal()
    >>> class Acc:
    ...     small_nonzero = 0.6
    >>> class R:
    ...     epsilon, gptt_accuracy = 0.01, Acc()
    >>> test(R(), {})
    'epsilon = 0.01: GPTT guesses 60.0 % of the counts 1..k, any 0.01-DP release at most 50.2 %'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        ceiling = _dp_ceiling(result.epsilon)
        if result.epsilon <= 1.05 * epsilon and result.gptt_accuracy.small_nonzero > ceiling:
            return (f"epsilon = {result.epsilon:.3g}: GPTT guesses {100 * result.gptt_accuracy.small_nonzero:.1f} % "
                    f"of the counts 1..k, any {result.epsilon:.3g}-DP release at most {100 * ceiling:.1f} %")
        return None

    return (f"lower the claimed epsilon to {epsilon:g} and still guess more non-zero small counts than any "
            f"{epsilon:g}-DP release could", test)
