"""Speed of the data-aware algorithms at DPBench's domain size n = 4096 and of the comparison explorer.

Budgets: the private partition is O(n) (aligned dyadic buckets), so one sample at
n = 4096 must stay far below the 50 ms a redraw may take; one release of each
algorithm at n = 4096 within a few hundred ms; the explorer's redraw from the
cache within the usual 50 ms (p95 100 ms), and so its first visits of epsilon
(one slider step at a time), seed and scale at the defaults (n = 256, 5 trials,
all algorithms; caches cleared) with a 0.5 s pause before each change: a student
reading the figure, in which the explorer computes the settings one move away in
the background.  Back to back, with no pause, every change computes its 8
algorithms x 5 trials itself (about 50 ms: MWEM's 550 multiplicative-weights
steps and DAWA's five GreedyH solves are most of it); those rows have a budget of
twice the interactive one (median 100 ms, p95 200 ms).
"""

from __future__ import annotations

import numpy as np

from benchmarks.harness import first_visit_row, keyboard_steps, measure_explorer, row, student_rows, time_call


def run() -> list[dict]:
    from dpviz import data_aware, datasets, workloads
    from dpviz.experiments.comparison import available_algorithms, make_histogram, run_comparison
    from dpviz.widgets import AlgorithmComparisonExplorer
    from dpviz.widgets.comparison import SCALE_OPTIONS

    x = datasets.load("HEPTH").astype(float)
    W = workloads.prefix(x.size)
    gen = np.random.default_rng(0)
    rows = [
        row("private_partition n=4096 (1 sample, exp. mechanism)",
            time_call(lambda: data_aware.private_partition(x, 0.1, rng=gen), repeats=30), 20.0),
        row("dyadic_deviations n=4096 (all 8191 candidate buckets)",
            time_call(lambda: data_aware.dyadic_deviations(x), repeats=30), 20.0),
        row("DAWA-H2 n=4096, eps=0.1 (1 release)",
            time_call(lambda: data_aware.dawa(x, 0.1, rng=gen), repeats=10), 100.0),
        row("DAWA (GreedyH stage 2) n=1024, eps=0.1 (1 release)",
            time_call(lambda: data_aware.dawa(make_histogram("HEPTH", 1024), 0.1, workloads.prefix(1024),
                                              strategy="greedy_h", rng=gen), repeats=5, warmup=1), 500.0),
        row("MWEM n=4096, T=10, prefix workload (1 release)",
            time_call(lambda: data_aware.mwem(x, W, 0.1, rng=gen), repeats=5, warmup=1), 300.0),
        row("comparison grid: 8 algs x 1 dataset x 3 eps x 3 trials, n=1024",
            time_call(lambda: run_comparison(available_algorithms(), ["HEPTH"], [0.01, 0.1, 1.0], trials=3,
                                             n=1024), repeats=3, warmup=1), 3000.0),
    ]
    e = AlgorithmComparisonExplorer()
    eps = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0]
    measure_explorer(e, "epsilon", eps, changes=len(eps) + 1)  # fill the cache
    rows.append(row("AlgorithmComparisonExplorer: epsilon slider (cached)",
                    measure_explorer(e, "epsilon", eps, changes=40), 50.0, p95_budget_ms=100.0))
    scales = [v for _, v in SCALE_OPTIONS if v != 0]
    for name, control, values in (("epsilon slider, one step at a time", "epsilon",
                                   keyboard_steps(e.controls["epsilon"], 16)),
                                  ("seed", "seed", list(range(1, 13))), ("scale", "scale", scales)):
        rows += student_rows(f"AlgorithmComparisonExplorer: {name}", AlgorithmComparisonExplorer, control, values)
    rows.append(first_visit_row("AlgorithmComparisonExplorer: untick/tick an algorithm, first visits",
                                AlgorithmComparisonExplorer, "show_Privelet", [False]))
    return rows
