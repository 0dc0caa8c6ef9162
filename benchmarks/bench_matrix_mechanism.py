"""Matrix mechanism speed: implicit all-range error at n = 4096, batched reconstruction, explorer latency.

Budgets (issue 4): expected total error of H_16 on all ranges at n = 4096
without forming the n^2-row workload < 1 s; least-squares reconstruction of
200 trials at n = 1024 < 200 ms; explorer redraw at its defaults within the
explorer budget (median < 50 ms, p95 < 100 ms).
"""

from __future__ import annotations

import numpy as np

from benchmarks.harness import explorer_row, first_visit_row, row, time_call


def run() -> list[dict]:
    from dpviz import matrix_mechanism as mm
    from dpviz import strategies as st
    from dpviz import workloads as wl
    from dpviz.widgets import MatrixMechanismExplorer

    rows = []
    W = wl.all_ranges(4096)
    rows.append(row("H_16 on all ranges, n=4096: expected total error (build A + factorise + trace)",
                    time_call(lambda: mm.expected_error(W, st.hierarchical(4096, 16), 1.0), repeats=5, warmup=1),
                    1000.0))
    rows.append(row("H_2 on all ranges, n=4096: expected total error",
                    time_call(lambda: mm.expected_error(W, st.hierarchical(4096, 2), 1.0), repeats=5, warmup=1),
                    1000.0))
    x = np.random.default_rng(0).integers(0, 50, size=1024).astype(float)
    for name in ("hierarchical_2", "rescaled_wavelet", "greedy_h"):
        ls = mm.LeastSquares(st.build(name, wl.prefix(1024)))
        y = ls.measure(x)[None, :] + np.random.default_rng(1).laplace(size=(200, ls.n_rows))
        rows.append(row(f"reconstruction of 200 trials, n=1024, {st.LABELS[name]} (factorised once)",
                        time_call(lambda ls=ls, y=y: ls.estimate(y), repeats=10), 200.0))
    A2 = st.hierarchical(1024, 2)
    y2 = np.random.default_rng(2).laplace(size=(200, A2.shape[0]))
    rows.append(row("factorise + reconstruct 200 trials, n=1024, H_2",
                    time_call(lambda: mm.reconstruct(A2, y2), repeats=10), 200.0))
    eps = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0]
    rows.append(explorer_row("MatrixMechanismExplorer: epsilon slider (defaults)", MatrixMechanismExplorer(),
                             "epsilon", eps))
    rows.append(explorer_row("MatrixMechanismExplorer: seed (defaults)", MatrixMechanismExplorer(), "seed",
                             list(range(1, 41))))
    # the strategies the explorer offers (those of its mechanism: the L1 eigen-design is withdrawn)
    offered = [v for _, v in MatrixMechanismExplorer().controls["strategy"].options]
    rows.append(first_visit_row("MatrixMechanismExplorer: first visit of each strategy (n=16)",
                                MatrixMechanismExplorer, "strategy", [s for s in offered if s != "hierarchical_2"]))
    rows.append(first_visit_row("MatrixMechanismExplorer: first visit of each workload (n=16)",
                                MatrixMechanismExplorer, "workload", [w for w in wl.WORKLOADS if w != "all_ranges"]))
    rows.append(first_visit_row("MatrixMechanismExplorer: epsilon, first visits", MatrixMechanismExplorer,
                                "epsilon", [float(v) for v in np.geomspace(0.011, 9.3, 16)]))
    e = MatrixMechanismExplorer()
    for s in offered:   # warm the per-(workload, n) cache: later strategy switches are cache hits
        e.controls["strategy"].value = s
    rows.append(explorer_row("MatrixMechanismExplorer: strategy switch (cached, n=16)", e, "strategy", offered))
    return rows
