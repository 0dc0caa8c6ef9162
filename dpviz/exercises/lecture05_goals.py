"""The goal lecture 05's SumQueryExplorer checks: the truncation ratio with the smallest exact error.

``best_ratio_goal`` returns the text and the test that :meth:`dpviz.widgets.Explorer.add_goal` takes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dpviz import sums

__all__ = ["best_ratio_goal"]


def best_ratio_goal(problem: sums.SumProblem, ratios: Sequence[float], *, algorithm: str | None = None,
                    tolerance: float = 0.02) -> tuple[str, Any]:
    """A SumQueryExplorer goal: with the oracle threshold, find the truncation ratio p with the smallest exact error.

    The error is the exact mean squared error averaged over the queries (:func:`dpviz.sums.expected_squared_error`,
    no isotonic regression) at the oracle's threshold for each p; a p within ``tolerance`` of the smallest counts.
    The oracle is not private: the goal finds the p a private threshold should aim for.

    Parameters
    ----------
    problem : SumProblem
        The explorer's problem (``explorer.problem``).
    ratios : sequence of float
        The truncation ratios the explorer offers (``explorer.controls["ratio"].options``).
    algorithm : str, optional
        The algorithm the goal is about (default: whichever the explorer shows; SQM, which picks one threshold per
        query, is not covered).
    tolerance : float, default 0.02
        Relative tolerance on the error.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([1000, 2000, 3000, 9000], [5000, 10000], uniform_bins(1000, 10000))
    >>> text, test = best_ratio_goal(p, [0.5, 0.75, 1.0], algorithm="identity")
    >>> class Release:
    ...     epsilon_answers = 1.0
    >>> class Run:
    ...     release = Release()
    >>> test(Run(), {"algorithm": "identity", "threshold": "oracle", "ratio": 0.75}) is None
    True
    """
    problem = sums.check_problem(problem)
    options = [float(r) for r in ratios]
    cache: dict[tuple[str, float], np.ndarray] = {}

    def errors(alg: str, eps: float) -> np.ndarray:
        if (alg, eps) not in cache:
            cache[(alg, eps)] = np.array([sums.expected_squared_error(problem, alg, sums.oracle_threshold(problem, r),
                                                                      eps).mean() for r in options])
        return cache[(alg, eps)]

    def test(result: Any, values: dict[str, Any]) -> str | None:
        alg = values["algorithm"]
        if values["threshold"] != "oracle" or alg == "sqm" or (algorithm is not None and alg != algorithm):
            return None
        mse = errors(alg, float(result.release.epsilon_answers))
        k = options.index(float(values["ratio"]))
        if mse[k] <= (1 + tolerance) * mse.min():
            return f"p = {options[k]:g}: exact mean squared error {mse[k]:.3g} (the smallest over p)"
        return None

    names = {"identity": "Identity", "workload": "Workload", "timm": "TiMM", "tamm": "TaMM"}
    who = "the algorithm shown" if algorithm is None else names.get(algorithm, algorithm)
    return (f"with the oracle threshold (not private), find the truncation ratio p with the smallest exact error "
            f"for {who}"), test
