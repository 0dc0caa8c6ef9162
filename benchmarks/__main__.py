"""Run every ``benchmarks/bench_*.py`` and print each figure against its budget.

Usage: ``python -m benchmarks [topic ...]`` (e.g. ``python -m benchmarks explorers``).
Exit status 1 if any figure is over its budget.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    topics = sorted(m.name[len("bench_"):] for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    chosen = argv or topics
    unknown = set(chosen) - set(topics)
    if unknown:
        print(f"unknown benchmark(s) {sorted(unknown)}; available: {', '.join(topics)}")
        return 2
    failures = 0
    print(f"{'benchmark':<62} {'median ms':>10} {'p95 ms':>9} {'budget':>14}  verdict")
    sys.stdout.flush()
    for topic in chosen:
        module = importlib.import_module(f"benchmarks.bench_{topic}")
        for r in module.run():
            ok = r["median_ms"] < r["budget_ms"]
            budget = f"<{r['budget_ms']:g}"
            if r.get("p95_budget_ms") is not None:
                ok = ok and r["p95_ms"] < r["p95_budget_ms"]
                budget += f" / <{r['p95_budget_ms']:g}"
            p95 = "" if r.get("p95_ms") is None else f"{r['p95_ms']:9.2f}"
            print(f"{r['name']:<62} {r['median_ms']:10.2f} {p95:>9} {budget:>14}  {'ok' if ok else 'OVER BUDGET'}")
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
