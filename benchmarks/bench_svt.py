"""Speed of the sparse-vector lecture: the GPTT attack on a full 4096-cell histogram, the exact
counterexample, and the GPTTAttackExplorer's redraw latency.

Budgets: the attack (Algorithms 3 + 4 of Chen & Machanavajjhala, all 4096 x 4096 ordered difference
queries) median < 2 s; the explorer's redraw median < 50 ms, p95 < 100 ms on a revisit, and on first visits
(caches cleared) of epsilon one slider step at a time, the split and the seed with a 0.5 s pause before each
change (a student reading the figure, while the explorer computes the settings one move away in the
background); back to back, every first visit runs the attack, SVT and Laplace itself (about 40-55 ms),
budget median < 100 ms, p95 < 200 ms.  The dataset dropdown's first visits are not prepared ahead.
"""

from __future__ import annotations

import itertools

import numpy as np

from benchmarks.harness import (
    explorer_row,
    first_visit_row,
    keyboard_steps,
    measure_explorer,
    row,
    student_rows,
    time_call,
)


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
    start = GPTTAttackExplorer()
    rows += student_rows("GPTTAttackExplorer: epsilon slider, one step at a time", GPTTAttackExplorer, "epsilon",
                         keyboard_steps(start.controls["epsilon"], 12))
    rows += student_rows("GPTTAttackExplorer: split s, one step at a time", GPTTAttackExplorer, "split",
                         keyboard_steps(start.controls["split"], 8, direction=+1))
    rows += student_rows("GPTTAttackExplorer: seed", GPTTAttackExplorer, "seed", list(range(1, 13)))
    r = first_visit_row("GPTTAttackExplorer: dataset, first visits (not prepared ahead)", GPTTAttackExplorer,
                        "dataset", [d for d in PAPER_DATASETS if d != "ADULT"])
    r["budget_ms"], r["p95_budget_ms"] = 100.0, 200.0
    rows.append(r)
    # revisits: the cache now holds every epsilon of the list
    explorer = GPTTAttackExplorer()
    measure_explorer(explorer, "epsilon", eps, changes=len(eps) + 1)
    rows.append(explorer_row("GPTTAttackExplorer: epsilon slider, revisited (cached)", explorer, "epsilon", eps))
    explorer.controls["dataset"].value = "HEPTH"
    explorer_row("warm-up", explorer, "epsilon", eps, changes=len(eps))
    rows.append(explorer_row("GPTTAttackExplorer: HEPTH epsilon slider, revisited", explorer, "epsilon", eps))
    return rows
