"""Sum queries with truncation (Wu et al. 2019): 100 trials of all five algorithms per workload size, and the explorer.

Budgets: one full comparison -- SQM, Identity, Workload, TiMM, TaMM, each 100 trials with an SVT threshold and
isotonic regression, on CPS incomes in 1,000 bins of $1,000 -- under 10 s for each workload size (10, 100 and
1,000 prefix queries), timed *cold* (a fresh problem, so the GreedyH strategies and least-squares factorisations
are computed inside the timing); SumQueryExplorer control-to-redraw latency at its defaults (median < 50 ms,
p95 < 100 ms).
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.harness import explorer_row, first_visit_row, row


def _cold_comparison(m: int, seed: int) -> float:
    from dpviz import sums
    from dpviz.datasets import load
    from dpviz.experiments.sums import compare_algorithms

    t0 = time.perf_counter()
    problem = sums.prepare(load("CPS"), sums.cps_thresholds(m), sums.cps_income_bins())
    compare_algorithms(problem, epsilon=1.0, truncations=("svt",), isotonic=(True,), trials=100, rng=seed)
    return (time.perf_counter() - t0) * 1e3


def run() -> list[dict]:
    from dpviz.widgets import SumQueryExplorer

    _cold_comparison(10, 99)  # imports and first-call overheads, untimed
    rows = [row(f"sums: 5 algorithms x 100 trials, {m} queries (cold)", [_cold_comparison(m, s) for s in range(3)],
                10_000.0) for m in (10, 100, 1000)]
    rows += [
        first_visit_row("SumQueryExplorer: truncation ratio p, first visits", SumQueryExplorer, "ratio",
                        [0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.9995, 1.0]),
        first_visit_row("SumQueryExplorer: epsilon, first visits", SumQueryExplorer, "epsilon",
                        [float(v) for v in np.geomspace(0.11, 9.3, 12)]),
        first_visit_row("SumQueryExplorer: rho, first visits", SumQueryExplorer, "rho",
                        [0.02, 0.05, 0.08, 0.12, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5]),
        first_visit_row("SumQueryExplorer: algorithm, first visits", SumQueryExplorer, "algorithm",
                        ["timm", "identity", "workload", "sqm"]),
        first_visit_row("SumQueryExplorer: threshold method, first visits", SumQueryExplorer, "threshold",
                        ["recursive", "oracle", "none"]),
        first_visit_row("SumQueryExplorer: seed, first visits", SumQueryExplorer, "seed", list(range(1, 17))),
    ]
    e = SumQueryExplorer()
    rows += [
        explorer_row("SumQueryExplorer: truncation ratio p", e, "ratio", [0.9, 0.95, 0.99, 0.995, 0.999]),
        explorer_row("SumQueryExplorer: epsilon", e, "epsilon", [0.2, 0.5, 1.0, 2.0, 5.0]),
        explorer_row("SumQueryExplorer: rho", e, "rho", [0.05, 0.1, 0.2, 0.3]),
        explorer_row("SumQueryExplorer: seed (resample)", e, "seed", list(range(1, 50))),
    ]
    return rows
