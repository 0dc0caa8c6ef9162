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


# --------------------------------------------------------------------------- the geometric (cube-root) rule
def box_cover_counts(n: int, d: int, b: int, measure_root: bool) -> np.ndarray:
    """Level-by-level uses of nodes by the minimal covers of all boxes of an n^d grid, by direct enumeration."""
    import itertools
    height = 0
    while b**height < n:
        height += 1
    top = height if measure_root else height - 1
    counts = np.zeros(height + 1)
    ranges = [(i, j) for i in range(n) for j in range(i + 1, n + 1)]
    for box in itertools.product(ranges, repeat=d):
        for l in range(top + 1):
            size, psize = b**l, b ** (l + 1)
            inside, parent_inside = 1, 1
            for i, j in box:  # a node is a product of intervals: inside the box iff inside on every axis
                ks = [k for k in range(-(-n // size)) if i <= k * size and min((k + 1) * size, n) <= j]
                inside *= len(ks)
                parent_inside *= sum(l < top and i <= (k // b) * psize and min((k // b + 1) * psize, n) <= j
                                     for k in ks)
            counts[l] += inside - parent_inside
    return counts


@pytest.mark.parametrize("n,d,b,measure_root", [(4, 2, 2, True), (5, 2, 2, False), (9, 2, 3, True),
                                                (6, 3, 2, False), (7, 1, 3, True), (8, 2, 2, True)])
def test_box_level_usage_counts_every_cover(n: int, d: int, b: int, measure_root: bool) -> None:
    np.testing.assert_array_equal(H.level_usage_nd(n, d, b, measure_root=measure_root),
                                  box_cover_counts(n, d, b, measure_root))
    if d == 1:
        np.testing.assert_array_equal(H.level_usage_nd(n, 1, b, measure_root=measure_root),
                                      H.level_usage(H.build_tree(n, b, measure_root=measure_root)))


def test_geometric_allocation_is_cormodes_quadtree_budget_for_b_2() -> None:
    """Cormode et al. (ICDE 2012), quadtree of height h, leaves at i = 0:
    eps_i = 2^((h-i)/3) eps (2^(1/3) - 1) / (2^((h+1)/3) - 1); dpviz's "geometric" with b = 2, root measured."""
    for h, eps in [(1, 1.0), (4, 0.5), (10, 2.0)]:
        i = np.arange(h + 1)
        cormode = 2 ** ((h - i) / 3) * eps * (2 ** (1 / 3) - 1) / (2 ** ((h + 1) / 3) - 1)
        got = H.level_epsilons(2**h, 2, eps, allocation="geometric", measure_root=True)
        np.testing.assert_allclose(got, cormode, rtol=1e-12)
        assert got.sum() == pytest.approx(eps, rel=1e-14)


@pytest.mark.filterwarnings("ignore:Values in x were outside bounds:RuntimeWarning")   # scipy < 1.15 SLSQP
def test_the_cube_root_rule_gives_ratio_b_cubed_root_in_2d_and_about_1_in_1d() -> None:
    """Why "geometric" is a 2-D rule: minimising sum_l u_l 2/eps_l^2 on the budget simplex (solved numerically here)
    gives consecutive ratios close to b^(1/3) near the leaves of a 2-D tree, and close to 1 on a 1-D tree."""
    for b, n in [(2, 1024), (4, 4**7)]:  # deep trees: the ratio holds near the leaves, away from the top
        for d, expected in [(1, 1.0), (2, b ** (1 / 3))]:
            u = H.level_usage_nd(n, d, b, measure_root=False)
            u = u[u > 0] / u.sum()  # scaling the objective does not move its minimiser
            res = optimize.minimize(lambda e, u=u: float((u * 2.0 / e**2).sum()), np.full(u.size, 1.0 / u.size),
                                    method="SLSQP", bounds=[(1e-6, 1.0)] * u.size,
                                    constraints=[{"type": "eq", "fun": lambda e: e.sum() - 1.0}],
                                    options={"ftol": 1e-15, "maxiter": 1000})
            assert res.success
            assert res.x[0] / res.x[1] == pytest.approx(expected, rel=0.01), (b, d)
            assert res.x[1] / res.x[2] == pytest.approx(expected, rel=0.01), (b, d)
    # and dpviz's "geometric" has exactly that 2-D ratio on every level, summing to epsilon
    eps_g = H.level_epsilons(4**4, 4, 1.0, allocation="geometric", measure_root=False)
    np.testing.assert_allclose(eps_g[:-2] / eps_g[1:-1], 4 ** (1 / 3), rtol=1e-12)
    assert eps_g.sum() == pytest.approx(1.0, rel=1e-14) and eps_g[-1] == 0
