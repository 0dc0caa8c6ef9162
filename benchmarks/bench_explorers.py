"""Control-to-redraw latency of the foundation explorers at their defaults (budget: median < 50 ms, p95 < 100 ms)."""

from __future__ import annotations

from benchmarks.harness import explorer_row


def run() -> list[dict]:
    from dpviz.widgets import CompositionExplorer, LaplaceExplorer

    eps = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0]
    return [
        explorer_row("LaplaceExplorer: epsilon slider", LaplaceExplorer(), "epsilon", eps),
        explorer_row("LaplaceExplorer: seed (resample)", LaplaceExplorer(), "seed", list(range(1, 50))),
        explorer_row("CompositionExplorer: budget slider", CompositionExplorer(), "epsilon", eps),
        explorer_row("CompositionExplorer: share slider (incl. refusals)", CompositionExplorer(), "share",
                     [0.1, 0.25, 0.3, 0.2], allow_messages=True),
    ]
