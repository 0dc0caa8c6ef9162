"""Exact error-by-width curves of hierarchies, with and without constrained inference (issue 15).

Budget: all n widths at n = 65536 in < 1 s (H_b + CI and H_b), on complete trees and on trees with a short
last node on every level; the previous implementation (O(n^2), kept in tests/hierarchy_reference.py) is
timed at n = 4096 for the speed-up.
"""

from __future__ import annotations

import numpy as np

from benchmarks.harness import row, time_call


def run() -> list[dict]:
    from dpviz import hierarchy as H
    from dpviz.hierarchy.ci_covariance import _tree_covariance
    from tests.hierarchy_reference import _ci_width_sums

    rows = []
    for n, b in ((65536, 2), (65535, 2), (65535, 3), (65536, 16), (65535, 64)):
        widths = np.arange(1, n + 1)

        def curve(n: int = n, b: int = b, widths: np.ndarray = widths) -> None:
            _tree_covariance.cache_clear()
            H.range_mse_by_width(n, b, 1.0, widths, constrained=True)

        rows.append(row(f"H_b + CI exact error, all {n} widths, b={b}", time_call(curve, repeats=5, warmup=1),
                        1000.0))
        rows.append(row(f"H_b exact error, all {n} widths, b={b}",
                        time_call(lambda n=n, b=b, widths=widths: H.range_mse_by_width(n, b, 1.0, widths,
                                                                                        constrained=False),
                                  repeats=5, warmup=1), 1000.0))
    tree = H.build_tree(4096, 2)
    old = time_call(lambda: _ci_width_sums(tree, "uniform"), repeats=3, warmup=0)
    new = time_call(lambda: (_tree_covariance.cache_clear(),
                             H.range_mse_by_width(4096, 2, 1.0, np.arange(1, 4097), constrained=True)), repeats=5)
    speedup = np.median(old) / np.median(new)
    rows.append(row(f"previous O(n^2) H_b + CI curve, n=4096, b=2 (speed-up now {speedup:.0f}x)", old, np.inf))
    return rows
