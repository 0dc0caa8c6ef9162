"""Control-to-redraw latency of the foundation explorers (budget: median < 50 ms, p95 < 100 ms).

Rows cycle a control through a few values (these explorers cache nothing, so every change computes), and
first-visit rows start from cleared caches and a fresh explorer and set each value once.
"""

from __future__ import annotations

import numpy as np

from benchmarks.harness import explorer_row, first_visit_row

#: Sixteen epsilons spread over the sliders' range (0.01-10), none the starting 1.0.
FRESH_EPS = [float(v) for v in np.geomspace(0.011, 9.3, 16)]


def run() -> list[dict]:
    from dpviz.widgets import CompositionBoundsExplorer, CompositionExplorer, LaplaceExplorer, SubsamplingExplorer

    eps = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0]
    return [
        explorer_row("LaplaceExplorer: epsilon slider", LaplaceExplorer(), "epsilon", eps),
        explorer_row("LaplaceExplorer: seed (resample)", LaplaceExplorer(), "seed", list(range(1, 50))),
        first_visit_row("LaplaceExplorer: epsilon, first visits", LaplaceExplorer, "epsilon", FRESH_EPS),
        first_visit_row("LaplaceExplorer: sensitivity, first visits", LaplaceExplorer, "sensitivity",
                        [0.5, 2.0, 3.0, 5.0, 10.0, 0.25]),
        explorer_row("CompositionExplorer: budget slider", CompositionExplorer(), "epsilon", eps),
        explorer_row("CompositionExplorer: share slider (incl. refusals)", CompositionExplorer(), "share",
                     [0.1, 0.25, 0.3, 0.2], allow_messages=True),
        explorer_row("CompositionBoundsExplorer: k slider (Laplace)", CompositionBoundsExplorer(), "k",
                     [1, 3, 10, 35, 100, 300, 1000, 3000, 10000]),
        explorer_row("CompositionBoundsExplorer: delta' slider (Laplace)", CompositionBoundsExplorer(), "delta_prime",
                     [1e-12, 1e-10, 1e-8, 1e-6, 1e-4, 1e-3, 1e-2]),
        explorer_row("CompositionBoundsExplorer: delta' slider (Gaussian)", CompositionBoundsExplorer(
            mechanism="gaussian", scale=30.0), "delta_prime", [1e-12, 1e-10, 1e-8, 1e-6, 1e-4, 1e-3, 1e-2]),
        explorer_row("CompositionBoundsExplorer: noise slider (Gaussian)", CompositionBoundsExplorer(
            mechanism="gaussian"), "scale", [1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0]),
        first_visit_row("CompositionExplorer: budget, first visits", CompositionExplorer, "epsilon", FRESH_EPS),
        first_visit_row("SubsamplingExplorer: rate p, first visits", SubsamplingExplorer, "rate",
                        [float(v) for v in np.geomspace(0.0011, 0.93, 16)]),
        first_visit_row("SubsamplingExplorer: epsilon, first visits", SubsamplingExplorer, "epsilon", FRESH_EPS),
        first_visit_row("SubsamplingExplorer: seed, first visits", SubsamplingExplorer, "seed", list(range(1, 17))),
        first_visit_row("SubsamplingExplorer: releases 10,000-400,000, first visits", SubsamplingExplorer,
                        "samples", [10_000, 50_000, 150_000, 200_000, 250_000, 300_000, 350_000, 400_000]),
    ]
