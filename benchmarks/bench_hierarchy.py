"""Hierarchical histograms: noise + constrained inference vs a generic sparse least-squares solve, explorer latency.

Budgets (issue 3):
* noise + constrained inference, n = 4096 (ADULT), b = 16, 200 trials: median < 30 ms;
* a generic sparse least-squares solve (scipy.sparse.linalg.lsmr, one solve per trial, of the
  weighted system ``D^-1/2 A x = D^-1/2 y``) of the same 200 noisy trials must take >= 20x longer
  than our constrained inference of those trials, with answers equal to 1e-8 relative error
  (checked; raises otherwise).  Both start from the same noisy node counts, so the noise is not
  part of this ratio; the ratio of the generic solve to our noise + inference is printed too;
* measure + constrained inference of 200 trials at n = 4096 within 1.0x of the noise floor for every b
  in {2, 3, 4, 8, 16, 32, 64}: (measure + inference) < 2 x (drawing the same number of Laplace values
  as dpviz draws them, ``dpviz.mechanisms.standard_laplace((200, n_nodes))``, itself about 3x faster
  than ``Generator.laplace``); the two are timed alternately so that the load of the machine hits both;
* HierarchyExplorer control-to-redraw latency: median < 50 ms, p95 < 100 ms, on first visits too.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sla

from benchmarks.harness import explorer_row, first_visit_row, measure_explorer, row, time_call

N, B, TRIALS = 4096, 16, 200


def _generic_least_squares(release) -> np.ndarray:
    """Leaves from all noisy nodes by weighted least squares with scipy's lsmr, one trial at a time."""
    from dpviz import hierarchy as H

    tree = release.tree
    last = tree.offsets[int(tree.measured_levels[-1]) + 1]
    A = H.strategy_matrix(tree.n, tree.branching, measure_root=tree.measure_root)
    w = 1.0 / np.sqrt(release.node_variance[:last])
    Aw = (sp.diags_array(w) @ A).tocsr()
    Y = release.noisy[:, :last] * w
    return np.array([sla.lsmr(Aw, y, atol=1e-13, btol=1e-13, maxiter=5000)[0] for y in Y])


def _noise_floor_row(x: np.ndarray, b: int, repeats: int = 25) -> dict:
    """Measure + inference of 200 trials against 2 x the time of their Laplace draws (timed alternately)."""
    from dpviz import hierarchy as H
    from dpviz.mechanisms import standard_laplace

    rng = np.random.default_rng(b)
    n_nodes = H.build_tree(x.size, b).n_nodes
    both, floor, numpy_floor = [], [], []
    for i in range(repeats + 2):
        t0 = time.perf_counter()
        H.measure(x, b, 1.0, rng=rng, size=TRIALS).leaves(constrained=True)
        t1 = time.perf_counter()
        standard_laplace((TRIALS, n_nodes), rng=rng)
        t2 = time.perf_counter()
        rng.laplace(size=(TRIALS, n_nodes))
        t3 = time.perf_counter()
        if i >= 2:
            both.append((t1 - t0) * 1e3)
            floor.append((t2 - t1) * 1e3)
            numpy_floor.append((t3 - t2) * 1e3)
    m, f = float(np.median(both)), float(np.median(floor))
    # encoded as: the median of measure + inference must stay below 2 x the noise floor's median
    return row(f"hierarchy b={b}: measure+CI vs 2 x noise floor ({m / f:.2f}x; "
               f"{m / float(np.median(numpy_floor)):.2f}x rng.laplace)", both, 2.0 * f)


def run() -> list[dict]:
    from dpviz import datasets
    from dpviz import hierarchy as H
    from dpviz.widgets import HierarchyExplorer
    from dpviz.widgets.hierarchy import DATASETS

    x = datasets.load("ADULT").astype(float)
    rng = np.random.default_rng(0)

    def ours():
        rel = H.measure(x, B, 1.0, rng=rng, size=TRIALS)
        return rel.leaves(constrained=True)

    t_ours = time_call(ours, repeats=30, warmup=3)
    rows = [row(f"hierarchy: noise + constrained inference (n={N}, b={B}, {TRIALS} trials)", t_ours, 30.0)]

    rel = H.measure(x, B, 1.0, rng=1, size=TRIALS)
    t_ci = time_call(lambda: rel.leaves(constrained=True), repeats=30, warmup=3)
    rows.append(row(f"hierarchy: constrained inference only ({TRIALS} noisy trials)", t_ci, 30.0))
    ci = rel.leaves(constrained=True)
    t_generic = []
    for _ in range(3):
        t0 = time.perf_counter()
        ref = _generic_least_squares(rel)
        t_generic.append((time.perf_counter() - t0) * 1e3)
    err = float(np.max(np.abs(ci - ref)) / np.max(np.abs(ref)))
    if not err <= 1e-8:
        raise AssertionError(f"constrained inference differs from the generic least-squares solve: rel. err {err:.3g}")
    g = float(np.median(t_generic))
    rows.append(row(f"hierarchy: generic lsmr solve, same trials (max rel. diff {err:.1e})", t_generic, float("inf")))
    # encoded as: 20 x (our median) must stay below the generic median
    rows.append(row(f"hierarchy: 20 x inference vs lsmr (speed-up {g / np.median(t_ci):.0f}x; "
                    f"incl. noise {g / np.median(t_ours):.0f}x)", [20.0 * float(np.median(t_ci))], g))

    rows += [_noise_floor_row(x, b) for b in (2, 3, 4, 8, 16, 32, 64)]

    eps = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0]
    bs = [2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32, 48, 64]
    fresh_bs = [2, 3, 4, 5, 6, 8, 10, 12, 24, 32, 48, 64]   # every b but the starting 16, once each
    rows += [
        explorer_row("HierarchyExplorer: epsilon slider", HierarchyExplorer(), "epsilon", eps),
        explorer_row("HierarchyExplorer: seed (new release)", HierarchyExplorer(), "seed", list(range(1, 50))),
        # each b's exact error curves (the constrained-inference width sums) are computed on its first visit
        first_visit_row("HierarchyExplorer: branching slider, first visit of each b", HierarchyExplorer,
                        "branching", fresh_bs),
        first_visit_row("HierarchyExplorer: epsilon, first visits", HierarchyExplorer, "epsilon",
                        [float(v) for v in np.geomspace(0.011, 9.3, 16)]),
        first_visit_row("HierarchyExplorer: budget split, first visits", HierarchyExplorer, "allocation",
                        ["geometric", "optimal"]),
        first_visit_row("HierarchyExplorer: dataset, first visits", HierarchyExplorer, "dataset",
                        [d for d in DATASETS if d != "INCOME"]),
        first_visit_row("HierarchyExplorer: selected range, first visits", HierarchyExplorer, "range",
                        [(0.1, 0.5), (0.25, 0.75), (0.0, 0.9), (0.4, 0.45), (0.6, 1.0)]),
    ]
    cached = HierarchyExplorer()
    measure_explorer(cached, "branching", bs, changes=len(bs))   # each b's exact curves computed once
    rows.append(explorer_row("HierarchyExplorer: branching slider (cached exact curves)", cached, "branching", bs))
    return rows
