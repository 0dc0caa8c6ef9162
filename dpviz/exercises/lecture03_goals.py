"""The goals lecture 03's explorers check (the branching factor, where a tree beats Flat, inference that hurts).

Each ``*_goal`` returns the text and the test that :meth:`dpviz.widgets.Explorer.add_goal` takes on a
:class:`~dpviz.widgets.HierarchyExplorer`; the test reads the explorer's result and values and says when the
student has reached the goal.  :mod:`dpviz.exercises.lecture03` re-exports them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpviz import hierarchy as H

__all__ = ["best_branching_goal", "crossover_goal", "inference_hurts_goal"]


def best_branching_goal(n: int = 1024, *, constrained: bool = False, measure_root: bool = True,
                        allocation: str = "uniform") -> tuple[str, Any]:
    """A HierarchyExplorer goal: slide b to the branching factor with the smallest average error over all ranges.

    Parameters
    ----------
    n : int, default 1024
        The domain size at which the goal holds (the explorer's ``n`` control must show it).
    constrained : bool, default False
        Whether the error is that of H_b with constrained inference.
    measure_root : bool, default True
        Whether the root is measured (the explorer's control must agree).
    allocation : str, default "uniform"
        The budget split (the explorer's control must agree).

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)`` for :meth:`dpviz.widgets.Explorer.add_goal`.

    Examples
    --------
    >>> text, test = best_branching_goal(256)
    >>> test(None, {"n": 256, "branching": 16, "measure_root": True, "allocation": "uniform"})
    'b = 16: the smallest exact average MSE over all ranges of n = 256 bins (H_b)'
    """
    best = H.optimal_branching(n, 1.0, constrained=constrained, allocation=allocation, measure_root=measure_root)
    method = "H_b + CI" if constrained else "H_b"

    def test(result: Any, values: dict[str, Any]) -> str | None:
        same = (values["n"] == n and values["measure_root"] == measure_root and values["allocation"] == allocation)
        if same and values["branching"] == best:
            return f"b = {best}: the smallest exact average MSE over all ranges of n = {n} bins ({method})"
        return None

    root = "root measured" if measure_root else "root not measured"
    return (f"at n = {n} ({root}, {allocation} budget), find the branching factor b whose {method} error, "
            "averaged over all ranges, is smallest"), test


def crossover_goal(tolerance: float = 0.25) -> tuple[str, Any]:
    """A HierarchyExplorer goal: select a range whose width is where the tree starts to beat Flat.

    The tree's curve is H_b + CI when the explorer shows constrained inference, H_b otherwise; the crossover is
    the smallest width whose exact MSE is below Flat's (:func:`dpviz.hierarchy.range_mse_by_width`).

    Parameters
    ----------
    tolerance : float, default 0.25
        Relative tolerance on the selected range's width.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = crossover_goal()
    >>> class Cover:
    ...     start, stop = 0, 157
    >>> class Run:
    ...     cover = Cover()
    >>> vals = {"n": 1024, "branching": 16, "allocation": "uniform", "measure_root": True, "constrained": True}
    >>> test(Run(), vals)
    'width 157: H_16 + CI beats Flat from width 157 on'
    """
    cache: dict[tuple[Any, ...], int | None] = {}

    def crossing(n: int, b: int, allocation: str, root: bool, constrained: bool) -> int | None:
        key = (n, b, allocation, root, constrained)
        if key not in cache:
            w = np.arange(1, n + 1)
            flat = H.range_mse_by_width(n, None, 1.0, w, constrained=False)
            tree = H.range_mse_by_width(n, b, 1.0, w, constrained=constrained, allocation=allocation,
                                        measure_root=root)
            wins = np.flatnonzero(tree < flat)
            cache[key] = int(w[wins[0]]) if wins.size and wins[0] < n - 1 else None
        return cache[key]

    def test(result: Any, values: dict[str, Any]) -> str | None:
        ci = bool(values["constrained"])
        cross = crossing(values["n"], values["branching"], values["allocation"], values["measure_root"], ci)
        width = result.cover.stop - result.cover.start
        if cross is not None and abs(width - cross) <= tolerance * cross:
            method = f"H_{values['branching']}" + (" + CI" if ci else "")
            return f"width {width}: {method} beats Flat from width {cross} on"
        return None

    return ("select a range whose width is where the tree's exact error curve drops below Flat's (within "
            f"{tolerance:.0%})"), test


def inference_hurts_goal() -> tuple[str, Any]:
    """A HierarchyExplorer goal: find a release in which constrained inference makes the selected range worse.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = inference_hurts_goal()
    >>> class Run:
    ...     answers = {"truth": 10.0, "tree": 11.0, "tree_ci": 13.0}
    >>> test(Run(), {"seed": 4})
    'seed 4: error +1.0 from the cover, +3.0 after inference'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        a = result.answers
        before, after = a["tree"] - a["truth"], a["tree_ci"] - a["truth"]
        if abs(after) > abs(before):
            return f"seed {values['seed']}: error {before:+.1f} from the cover, {after:+.1f} after inference"
        return None

    return "find a seed for which constrained inference makes the selected range's answer worse", test
