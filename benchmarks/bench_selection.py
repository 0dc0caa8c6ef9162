"""Speed of lecture 09: the exact selection probabilities and the SelectionExplorer's redraw latency.

Budgets: the explorer's control-to-redraw latency median < 50 ms, p95 < 100 ms, *first visits included*: every
epsilon of the sweep is new (the expected-score curves are cached per score vector, and each score vector is
visited for the first time inside the timed changes too); the exact report-noisy-max probabilities with Laplace
noise for ten candidates (the explorer's costliest exact computation) median < 20 ms.
"""

from __future__ import annotations

import numpy as np

from benchmarks.harness import measure_explorer, row, time_call


def run() -> list[dict]:
    from dpviz import selection
    from dpviz.experiments.selection import _curves, selection_scores
    from dpviz.widgets import SelectionExplorer

    u, _ = selection_scores("adult")
    eps = iter(np.geomspace(0.01, 5.0, 200))
    rows = [row("selection: exact RNM-Laplace probabilities, 10 candidates",
                time_call(lambda: selection.noisy_max_probabilities(u, float(next(eps)), "laplace"), repeats=40),
                20.0)]

    _curves.cache_clear()                     # nothing precomputed: the constructor and every change start cold
    explorer = SelectionExplorer(seed=0)
    times: list[float] = []
    fresh = list(np.round(np.geomspace(0.004, 15.0, 24), 4))          # 24 epsilons, each visited once
    for mechanism in ("exponential", "rnm-laplace", "permute-and-flip"):
        explorer.controls["mechanism"].value = mechanism
        times += measure_explorer(explorer, "epsilon", fresh, changes=len(fresh))
        fresh = [round(v * 1.013, 4) for v in fresh]                   # new values for the next mechanism
    for scores in ("close race", "clear winner", "adult"):             # first visits of the score vectors
        times += measure_explorer(explorer, "scores", [scores], changes=1)
    times += measure_explorer(explorer, "monotone", [True], changes=1)
    times += measure_explorer(explorer, "trials", [50_000, 20_000, 5_000], changes=3)
    rows.append(row("SelectionExplorer: epsilon, mechanism, scores (all first visits)", times, 50.0,
                    p95_budget_ms=100.0))
    return rows
