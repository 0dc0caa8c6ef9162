"""Speed of the sparse-vector lecture: the GPTT attack on a full 4096-cell histogram, the exact
counterexample, and the GPTTAttackExplorer's redraw latency.

Budgets: the attack (Algorithms 3 + 4 of Chen & Machanavajjhala, all 4096 x 4096 ordered difference
queries) median < 2 s; the explorer's redraw median < 50 ms, p95 < 100 ms, on the first visit of a
setting (caches cleared: the attack, SVT and Laplace computed afresh) as on a revisit.
"""

from __future__ import annotations

import itertools

import numpy as np

from benchmarks.harness import explorer_row, first_visit_row, measure_explorer, row, time_call


def run() -> list[dict]:
    from dpviz import datasets, svt
    from dpviz.experiments.svt import PAPER_DATASETS
    from dpviz.widgets import GPTTAttackExplorer

    rows = []
    for name in ("ADULT", "HEPTH"):
        x = datasets.load(name)
        seeds = itertools.count()
        rows.append(row(f"svt: GPTT attack, {name}, 4096 cells (16.8M queries)",
                        time_call(lambda x=x, seeds=seeds: svt.reconstruct(x, 1.0, rng=next(seeds)), repeats=15),
                        2000.0))
        rows.append(row(f"svt: GPTT attack + calibration + ordered fit, {name}",
                        time_call(lambda x=x, seeds=seeds: svt.reconstruct(x, 1.0, calibrate=True, estimator="ordered",
                                                                           rng=next(seeds)), repeats=15), 2000.0))
    rows.append(row("svt: exact counterexample probabilities, t = 1..20",
                    time_call(lambda: svt.counterexample_probability(np.arange(1, 21), 0.5, 0.5), repeats=5),
                    2000.0))

    eps = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0]
    fresh = [0.03, 0.07, 0.15, 0.3, 0.6, 0.8, 1.5, 3.0, 6.0, 0.04, 0.09, 0.4]   # each visited once
    # first visits: caches cleared, so every change runs the attack, SVT and Laplace afresh
    rows.append(first_visit_row("GPTTAttackExplorer: epsilon slider, first visit", GPTTAttackExplorer, "epsilon",
                                fresh))
    rows.append(first_visit_row("GPTTAttackExplorer: split s, first visits", GPTTAttackExplorer, "split",
                                [0.05, 0.1, 0.2, 0.3, 0.4, 0.45, 0.55, 0.6, 0.7, 0.8, 0.9, 0.95]))
    rows.append(first_visit_row("GPTTAttackExplorer: dataset, first visits", GPTTAttackExplorer, "dataset",
                                [d for d in PAPER_DATASETS if d != "ADULT"]))
    rows.append(first_visit_row("GPTTAttackExplorer: seed, first visits", GPTTAttackExplorer, "seed",
                                list(range(1, 13))))
    # revisits: the cache now holds every epsilon of the list
    explorer = GPTTAttackExplorer()
    measure_explorer(explorer, "epsilon", eps, changes=len(eps) + 1)
    rows.append(explorer_row("GPTTAttackExplorer: epsilon slider, revisited (cached)", explorer, "epsilon", eps))
    explorer.controls["dataset"].value = "HEPTH"
    explorer_row("warm-up", explorer, "epsilon", eps, changes=len(eps))
    rows.append(explorer_row("GPTTAttackExplorer: HEPTH epsilon slider, revisited", explorer, "epsilon", eps))
    return rows
