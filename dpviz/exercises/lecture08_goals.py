"""The goals lecture 08's AlgorithmComparisonExplorer checks (a Uniform win; one data set, two kinds of winner).

Each ``*_goal`` returns the text and the test that :meth:`dpviz.widgets.Explorer.add_goal` takes.
"""

from __future__ import annotations

from typing import Any

from dpviz.experiments import comparison
from dpviz.histogram_algorithms import ALGORITHMS

__all__ = ["uniform_wins_goal", "winner_changes_goal"]


def _best(result: Any) -> str | None:
    """The algorithm with the lowest mean scaled error, or None when some algorithms are not shown."""
    if set(result.algorithms) != set(comparison.available_algorithms()):
        return None
    return min(result.algorithms, key=lambda a: result.runs[a].scaled_errors.mean())


def uniform_wins_goal() -> tuple[str, Any]:
    """A goal for the AlgorithmComparisonExplorer: find a setting where the one-bucket Uniform baseline wins.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)`` for :meth:`dpviz.widgets.Explorer.add_goal`.

    Examples
    --------
    >>> text, test = uniform_wins_goal()
    >>> text
    'with every algorithm ticked, find data and an epsilon at which the Uniform baseline has the lowest error'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if _best(result) == "Uniform":
            return f"{result.source}, epsilon = {result.epsilon:.3g}: Uniform wins"
        return None

    return ("with every algorithm ticked, find data and an epsilon at which the Uniform baseline has the lowest "
            "error", test)


def winner_changes_goal() -> tuple[str, Any]:
    """A goal for the AlgorithmComparisonExplorer: on the same data, a data-aware and a workload-aware winner.

    The test remembers the winners it has seen for each setting of the data (dataset, scale, n, workload).

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = winner_changes_goal()
    >>> text.startswith("on the same data")
    True
    """
    seen: dict[tuple[Any, ...], dict[str, float]] = {}

    def test(result: Any, values: dict[str, Any]) -> str | None:
        best = _best(result)
        if best is None:
            return None
        family = "workload-aware" if ALGORITHMS[best].family == "workload-aware" else "data-aware"
        key = (result.source, result.scale, result.n, result.workload)
        seen.setdefault(key, {}).setdefault(f"{family}:{best}", result.epsilon)
        families = {k.split(":")[0]: (k.split(":")[1], e) for k, e in seen[key].items()}
        if len(families) == 2:
            (a, ea), (b, eb) = families["data-aware"], families["workload-aware"]
            return f"{result.source}: {a} wins at epsilon = {ea:.3g}, {b} at epsilon = {eb:.3g}"
        return None

    return ("on the same data, find one epsilon where a data-aware algorithm wins and another where a workload-aware "
            "one does", test)
