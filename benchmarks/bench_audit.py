"""Audit speed: the audits of the test suite at 1e6 samples per dataset, and the AuditExplorer's latency.

Budgets: one 1e6-sample audit of a 4-cell histogram mechanism < 1.5 s, of SVT/GPTT (10 queries) < 3 s; explorer sample
slider median < 50 ms (p95 < 100 ms); a change of mechanism or claim draws 2 x 220,000 fresh outputs (< 1.5 s).
"""

from __future__ import annotations

from benchmarks.harness import explorer_row, row, time_call


def run() -> list[dict]:
    from dpviz.experiments.audit import audit_target, run_audit
    from dpviz.widgets import AuditExplorer

    rows = []
    for name, budget in [("laplace", 1500.0), ("gaussian", 1500.0), ("svt", 3000.0), ("gptt", 3000.0)]:
        t = audit_target(name, 1.0)
        times = time_call(lambda t=t: run_audit(t, samples=1_000_000, confidence=0.999, rng=1), repeats=3, warmup=0)
        rows.append(row(f"epsilon_lower_bound: {name}, 1e6 samples per dataset (search 1e5)", times, budget))
    e = AuditExplorer()
    rows.append(explorer_row("AuditExplorer: samples slider", e, "samples",
                             [100.0, 1_000.0, 10_000.0, 50_000.0, 199_526.0, 3_000.0]))
    seeds = iter(range(1, 1000))
    times = time_call(lambda: setattr(e.controls["seed"], "value", next(seeds)), repeats=5, warmup=0)
    rows.append(row("AuditExplorer: new seed (fresh 2 x 220,000 Laplace samples)", times, 1500.0))
    return rows


if __name__ == "__main__":
    for r in run():
        print(f"{r['name']:<80s} median {r['median_ms']:8.1f} ms  p95 {r['p95_ms']:8.1f} ms  "
              f"budget {r['budget_ms']:g} ms")
