"""Control-to-redraw latency of the foundation explorers at their defaults (budget: median < 50 ms, p95 < 100 ms)."""

from __future__ import annotations

from benchmarks.harness import explorer_row


def run() -> list[dict]:
    from dpviz.widgets import CompositionBoundsExplorer, CompositionExplorer, LaplaceExplorer

    eps = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0]
    return [
        explorer_row("LaplaceExplorer: epsilon slider", LaplaceExplorer(), "epsilon", eps),
        explorer_row("LaplaceExplorer: seed (resample)", LaplaceExplorer(), "seed", list(range(1, 50))),
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
    ]
