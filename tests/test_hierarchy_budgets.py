"""The 'optimal' level budgets minimise the average range error, checked by brute force and a solver.

Independent of dpviz's own formula (eps_l proportional to the cube root of the level usage): the minimal cover
of every range is counted here by a direct recursion over the tree, the objective (average over all ranges of
the sum of the variances 2/eps_l^2 of the cover's nodes) is minimised by scipy, and random re-allocations on
the budget simplex never beat dpviz's allocation.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize

from dpviz import hierarchy as H


def cover_counts(n: int, b: int) -> np.ndarray:
    """Nodes per level (leaves = level 0) in the minimal covers of all ranges of a complete b-ary tree."""
    height = round(np.log(n) / np.log(b))
    assert b**height == n
    counts = np.zeros(height + 1)

    def visit(lo: int, size: int, level: int, i: int, j: int) -> None:  # node [lo, lo+size), range [i, j]
        hi = lo + size - 1
        if hi < i or lo > j:
            return
        if i <= lo and hi <= j:
            counts[level] += 1
            return
        for c in range(b):
            visit(lo + c * size // b, size // b, level - 1, i, j)

    for i in range(n):
        for j in range(i, n):
            visit(0, n, height, i, j)
    return counts


@pytest.mark.parametrize("n,b", [(64, 4), (81, 3), (32, 2)])
def test_optimal_allocation_minimises_the_average_range_error(n: int, b: int) -> None:
    counts = cover_counts(n, b)
    np.testing.assert_allclose(H.level_usage(H.build_tree(n, b)), counts)  # what "usage" means
    eps = H.level_epsilons(n, b, 1.0, allocation="optimal")
    assert eps.sum() == pytest.approx(1.0, rel=1e-12)

    def objective(e: np.ndarray) -> float:
        return float((counts * 2.0 / e**2).sum())

    best = optimize.minimize(lambda z: objective(np.exp(z) / np.exp(z).sum()), np.zeros(counts.size),
                             method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000})
    solver = np.exp(best.x) / np.exp(best.x).sum()
    np.testing.assert_allclose(eps, solver, rtol=2e-3)
    assert objective(eps) <= objective(solver) * (1 + 1e-9)
    rng = np.random.default_rng(0)
    for _ in range(200):  # no nearby re-allocation of the budget does better
        other = eps * np.exp(rng.normal(0, 0.1, eps.size))
        other /= other.sum()
        assert objective(eps) <= objective(other)
    # and the closed-form average error (no inference) is this objective over the number of ranges
    assert H.average_range_mse(n, b, 1.0, constrained=False, allocation="optimal") == pytest.approx(
        objective(eps) / (n * (n + 1) / 2), rel=1e-9)
