"""Tests for dpviz.hierarchy: tree layout, privacy accounting, constrained inference = GLS, exact error."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz import hierarchy as H
from dpviz.accountant import BudgetExceededError, PrivacyAccountant
from dpviz.hierarchy.inference import _ci_plan
from dpviz.hierarchy.ranges import _cover_counts
from dpviz.mechanisms.sensitivity import l1

CASES = [  # (n, b, allocation, measure_root) - several not powers of b
    (1, 2, "uniform", True),
    (7, 2, "uniform", True),
    (8, 2, "geometric", False),
    (37, 3, "optimal", True),
    (64, 4, "geometric", True),
    (100, 16, "uniform", False),
    (250, 5, "optimal", False),
    (9, 10, "optimal", True),
    (513, 8, "geometric", True),
]


def _linear_map(n, b, allocation="uniform", measure_root=True):
    """(n_nodes, n) matrix M with leaf estimates = noisy @ M (constrained inference is linear)."""
    tree = H.build_tree(n, b, measure_root=measure_root)
    return H.constrained_inference(np.eye(tree.n_nodes), n, b, allocation=allocation, measure_root=measure_root)


def _gls(release):
    """Generic weighted least squares of the leaves from all measured nodes (sparse normal equations)."""
    tree = release.tree
    last = tree.offsets[int(tree.measured_levels[-1]) + 1]
    A = H.strategy_matrix(tree.n, tree.branching, measure_root=tree.measure_root)  # 0/1 rows, same order
    w = 1.0 / np.sqrt(release.node_variance[:last])
    Aw = (sp.diags_array(w) @ A).tocsr()
    Y = np.atleast_2d(release.noisy)[:, :last] * w
    lhs = (Aw.T @ Aw).tocsc()
    return sla.spsolve(lhs, (Aw.T @ Y.T)).T.reshape(Y.shape[0], tree.n), Aw, Y


# --------------------------------------------------------------------------- layout and privacy
def test_tree_layout_uneven():
    t = H.build_tree(10, 3)
    assert t.height == 3 and t.sizes == (10, 4, 2, 1) and t.offsets == (0, 10, 14, 16, 17)
    a, c = t.node_bounds(1)
    assert a.tolist() == [0, 3, 6, 9] and c.tolist() == [3, 6, 9, 10]
    assert H.build_tree(1, 2).height == 0 and H.build_tree(1, 2, measure_root=False).n_measured_levels == 1
    assert H.build_tree(16, 2, measure_root=False).n_measured_levels == 4


@pytest.mark.parametrize("n,b,allocation,measure_root", CASES)
def test_strategy_sensitivity_and_budget(n, b, allocation, measure_root):
    tree = H.build_tree(n, b, measure_root=measure_root)
    A = H.strategy_matrix(n, b, measure_root=measure_root, allocation=allocation)
    assert isinstance(A, sp.csr_array) and A.shape == (tree.n_measured_nodes, n)
    eps_l = H.level_epsilons(n, b, 0.7, allocation=allocation, measure_root=measure_root)
    assert math.isclose(eps_l.sum(), 0.7, rel_tol=1e-12)
    assert np.all(eps_l[tree.measured_levels] > 0) and np.all(eps_l[tree.n_measured_levels:] == 0)
    if allocation == "uniform":
        assert l1(A) == tree.n_measured_levels
        assert set(np.unique(A.data)) == {1.0}
    else:
        assert math.isclose(l1(A), 1.0, rel_tol=1e-12)
        # a level-l row carries weight eps_l / epsilon
        off = 0
        for lev in tree.measured_levels:
            rows = A[off: off + tree.sizes[lev]]
            assert np.allclose(rows.data, eps_l[lev] / 0.7)
            off += tree.sizes[lev]
    # every row is the indicator of a contiguous block of leaves
    B = (A != 0).astype(float)
    assert np.array_equal(np.asarray(B.sum(axis=0)).ravel(), np.full(n, tree.n_measured_levels))


def test_uniform_budget_exact_fractions():
    # uniform: each of L measured levels gets exactly epsilon / L
    eps_l = H.level_epsilons(4096, 16, 1.0)
    assert [Fraction(e).limit_denominator(100) for e in eps_l] == [Fraction(1, 4)] * 4


def test_measure_noise_scales_per_level():
    x = np.arange(20.0)
    rel = H.measure(x, 3, 2.0, allocation="geometric", rng=1, size=20000)
    err = rel.noisy - rel.truth
    for lev in range(rel.tree.height + 1):
        e = rel.level(err, lev).ravel()
        v = 2.0 / rel.level_epsilons[lev] ** 2
        # sample variance of k Laplace draws: standard error sqrt((m4 - v^2)/k), m4 = 6 v^2 for Laplace
        se = math.sqrt(5 * v * v / e.size)
        assert abs(e.var() - v) < 5 * se
        assert abs(e.mean()) < 5 * math.sqrt(v / e.size)


def test_noise_is_laplace_distributed():
    # the sampler draws sign * Exp(1); Kolmogorov-Smirnov distance to Lap(0, 1/eps_l) below the 0.1 % critical value
    from scipy import stats

    rel = H.measure(np.zeros(4096), 16, 0.5, rng=8, size=50)
    z = ((rel.noisy - rel.truth) * rel.level_epsilons[0])[:, :4096].ravel()  # leaf level, unit scale
    d = stats.kstest(z, stats.laplace.cdf).statistic
    assert d < 1.95 / math.sqrt(z.size)


def test_measure_truth_and_root_convention():
    x = [3, 1, 4, 1, 5, 9, 2, 6]
    rel = H.measure(x, 2, 1.0, measure_root=False, rng=0)
    assert rel.truth.tolist() == [3, 1, 4, 1, 5, 9, 2, 6, 4, 5, 14, 8, 9, 22, 31]
    assert np.isnan(rel.noisy[-1]) and np.all(np.isfinite(rel.noisy[:-1]))
    assert rel.node_variance[-1] == np.inf and np.allclose(rel.node_variance[:-1], 2 * 9)


def test_accountant_charged_before_noise():
    acc = PrivacyAccountant(1.0)
    H.measure([1, 2, 3], 2, 0.6, accountant=acc, rng=0)
    assert acc.spent.epsilon == pytest.approx(0.6)
    with pytest.raises(BudgetExceededError):
        H.measure([1, 2, 3], 2, 0.6, accountant=acc, rng=0)
    assert len(acc.history) == 1
    H.flat_release([1, 2, 3], 0.4, accountant=acc, rng=0)
    assert acc.remaining.epsilon == pytest.approx(0.0)


# --------------------------------------------------------------------------- constrained inference
@pytest.mark.parametrize("n,b,allocation,measure_root", CASES)
def test_constrained_inference_equals_least_squares(n, b, allocation, measure_root):
    rng = np.random.default_rng(n * 31 + b)
    x = rng.integers(0, 50, size=n).astype(float)
    rel = H.measure(x, b, 0.5, allocation=allocation, measure_root=measure_root, rng=rng, size=4)
    ci = rel.leaves(constrained=True)
    ref, Aw, Y = _gls(rel)
    assert np.max(np.abs(ci - ref)) <= 1e-8 * np.max(np.abs(ref))
    # and against an iterative generic solver (lsmr) on one trial
    sol = sla.lsmr(Aw, Y[0], atol=1e-14, btol=1e-14, maxiter=10_000)[0]
    assert np.max(np.abs(ci[0] - sol)) <= 1e-8 * np.max(np.abs(sol))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 300), st.integers(2, 20), st.sampled_from(["uniform", "geometric", "optimal"]), st.booleans(),
       st.integers(0, 2**31 - 1))
def test_constrained_inference_equals_least_squares_on_random_trees(n, b, allocation, measure_root, seed):
    """The same check on trees drawn at random (any n, any b, any allocation, root measured or not)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 50, size=n).astype(float)
    rel = H.measure(x, b, 0.5, allocation=allocation, measure_root=measure_root, rng=rng, size=2)
    ref = _gls(rel)[0]
    assert np.max(np.abs(rel.leaves(constrained=True) - ref)) <= 1e-8 * max(np.max(np.abs(ref)), 1.0)


@pytest.mark.parametrize("n,b,allocation,measure_root", CASES[1:6])
def test_constrained_nodes_consistent_and_unbiased(n, b, allocation, measure_root):
    rel = H.measure(np.arange(n, dtype=float), b, 1.0, allocation=allocation, measure_root=measure_root,
                    rng=3, size=2)
    nodes = H.constrained_inference(rel.noisy, n, b, allocation=allocation, measure_root=measure_root, nodes=True)
    t = rel.tree
    for lev in range(1, t.height + 1):
        children = rel.level(nodes, lev - 1)
        summed = np.add.reduceat(children, np.arange(0, t.sizes[lev - 1], b), axis=1)
        assert np.allclose(summed, rel.level(nodes, lev))
    # exact data in -> exact data out (the estimator reproduces consistent inputs)
    truth = np.where(np.isfinite(rel.noisy[0]), rel.truth, np.nan)
    assert np.allclose(H.constrained_inference(truth, n, b, allocation=allocation, measure_root=measure_root),
                       np.arange(n))


def test_seed_figure1_coefficients_and_399_over_441():
    # N = 8, b = 2, root not measured, each lower level epsilon/3 (Qardaji et al., Figure 1).
    M = _linear_map(8, 2, measure_root=False)
    # node order: leaves 0..7 (n7..n14), level-1 nodes 8..11 (n3..n6), level-2 nodes 12, 13 (n1, n2)
    leaf0 = M[:, 0]
    expected = {0: 13 / 21, 8: 5 / 21, 12: 1 / 7, 9: -2 / 21, 2: -1 / 21, 3: -1 / 21, 1: -8 / 21}
    for node, coef in expected.items():
        assert leaf0[node] == pytest.approx(coef, abs=1e-12)
    assert np.allclose(np.delete(leaf0, list(expected) + [14]), 0.0, atol=1e-12)
    q = M[:, :3].sum(axis=1)  # query over the first 3 leaves
    expected_q = {12: 3 / 7, 8: 8 / 21, 9: 1 / 21, 0: 4 / 21, 1: 4 / 21, 2: 11 / 21, 3: -10 / 21}
    for node, coef in expected_q.items():
        assert q[node] == pytest.approx(coef, abs=1e-12)
    assert (q[:14] ** 2).sum() == pytest.approx(399 / 441, abs=1e-12)
    V_O = 2 * 3**2 / 1.0**2
    assert H.range_mse_by_query(8, 2, 1.0, [0], [3], constrained=False, measure_root=False)[0] == pytest.approx(2 * V_O)
    assert H.range_mse_by_query(8, 2, 1.0, [0], [3], constrained=True, measure_root=False)[0] == pytest.approx(
        399 / 441 * V_O, rel=1e-12)


def test_slides_least_squares_example():
    # n = 4, b = 2, root measured: range(x2, x3) = (6z1 + 3z2 + 3z3 - 9z4 + 12z5 + 12z6 - 9z7)/21
    q = _linear_map(4, 2)[:, 1:3].sum(axis=1)
    # slide order z1 root, z2 z3 level 1, z4..z7 leaves -> ours: leaves 0..3, level-1 4, 5, root 6
    ours = np.array([-9, 12, 12, -9, 3, 3, 6]) / 21
    assert np.allclose(q, ours, atol=1e-12)


def test_algorithm1_and_per_level_variances():
    below, above = H.algorithm1_variances(5, 2)
    assert np.allclose(below[:4], [1, 2 / 3, 4 / 7, 8 / 15], atol=1e-15)
    assert np.allclose(below, [2**l / (2 ** (l + 1) - 1) for l in range(5)])  # b^(l-1)(b-1)/(b^l - 1)
    # the CI plan's from-below variances agree (complete tree, root not measured, V_O = 2 (h/eps)^2)
    tree = H.build_tree(32, 2, measure_root=False)
    plan = _ci_plan(tree, "uniform")
    VO = 2 * 5**2
    assert np.allclose([plan.below[l][0] / VO for l in range(5)], below)
    # Proposition 3 bounds: V_below > (b-1)/b V_O, and <= b/(b+1) V_O above the leaves
    for b in (2, 3, 8, 16):
        bl, ab = H.algorithm1_variances(6, b)
        assert np.all(bl > (b - 1) / b) and np.all(bl[1:] <= b / (b + 1) + 1e-15)
        assert np.all(ab > (b - 1) / b)


def test_leaf_variance_after_inference_respects_proposition4():
    for b in (2, 4):
        n = b**4
        VO = 2 * 4**2
        v = H.range_mse_by_query(n, b, 1.0, np.arange(n), np.arange(1, n + 1), constrained=True,
                                 measure_root=False)
        assert np.all(v >= (b - 1) / (b + 1) * VO - 1e-9) and np.all(v <= VO)


# --------------------------------------------------------------------------- minimal cover answers
@pytest.mark.parametrize("n,b,measure_root", [(7, 2, True), (37, 3, False), (100, 16, True), (16, 4, False)])
def test_minimal_cover_answers_and_counts(n, b, measure_root):
    x = np.random.default_rng(0).integers(0, 9, size=n).astype(float)
    rel = H.measure(x, b, 1.0, measure_root=measure_root, rng=0)
    exact = H.TreeRelease(rel.tree, "uniform", 1.0, rel.level_epsilons, rel.node_variance, rel.truth,
                          np.where(np.isfinite(rel.noisy), rel.truth, np.nan))
    i, j = np.triu_indices(n + 1, 1)
    assert np.allclose(H.tree_range_answers(exact, i, j), [x[a:c].sum() for a, c in zip(i, j, strict=True)])
    # the cover uses at most 2(b-1) nodes per level and is minimal: brute force on the node sets
    counts = _cover_counts(rel.tree, i, j)
    assert counts.max() <= 2 * (b - 1)
    # total usage over all ranges equals level_usage
    assert np.allclose(counts.sum(axis=1), H.level_usage(rel.tree)[: counts.shape[0]])
    # noisy answers = sum of the noisy cover nodes: difference to the truth has the right variance structure
    noisy = H.tree_range_answers(rel, i, j)
    assert noisy.shape == (i.size,)


# --------------------------------------------------------------------------- exact analytic error
def test_flat_formula():
    for n in (1, 5, 1024):
        lengths = np.concatenate([np.full(n - w + 1, w) for w in range(1, n + 1)])
        assert H.flat_average_range_mse(n, 0.5) == pytest.approx(lengths.mean() * 2 / 0.25)
        assert H.average_range_mse(n, None, 0.5, constrained=True) == pytest.approx((n + 2) / 3 * 8)


@pytest.mark.parametrize("N,b", [(8, 2), (1024, 2), (4096, 16), (729, 3)])
def test_proposition1_and_eq3(N, b):
    tree = H.build_tree(N, b, measure_root=False)
    h = tree.n_measured_levels
    exact_M = H.level_usage(tree)[:h]
    paper_M = H.qardaji_level_usage(N, b)
    # Eq. (2) counts the full-domain query as answered by the (unmeasured) root: b uses less at the top
    assert np.allclose(exact_M[:-1], paper_M[:-1]) and exact_M[-1] == pytest.approx(paper_M[-1] + b)
    Vu = 2.0
    exact = H.average_range_mse(N, b, 1.0, constrained=False, measure_root=False)
    assert exact == pytest.approx(H.qardaji_average_mse(N, b, 1.0, exact=True) + b * h**2 * Vu / (N * (N + 1) / 2))
    # Eq. (3) drops N/(N+1) and O(b^h / N): within 1 % for these N >= 729 (and for b = 2 it is h^3 - 2h^2)
    if N >= 729:
        assert exact == pytest.approx(H.qardaji_average_mse(N, b, 1.0), rel=0.01)
    if b == 2:
        assert H.qardaji_average_mse(N, 2, 1.0) == pytest.approx((h**3 - 2 * h**2) * Vu)


def test_optimal_branching_and_427():
    b_star = H.asymptotic_optimal_branching()
    assert 16.5 < b_star < 17.0 and math.log(b_star) == pytest.approx(3 * (b_star - 1) / b_star)
    # independent: the closed form with Lambert's W (principal branch), b* = -3 / W0(-3 e^-3)
    from scipy.special import lambertw
    assert b_star == pytest.approx(float((-3 / lambertw(-3 * math.exp(-3))).real), rel=1e-14)
    assert H.optimal_branching(4096, 1.0, constrained=False, measure_root=False) == 16
    assert H.optimal_branching(2**16, 0.1, constrained=False, measure_root=False) == 16
    # leading-term ratio (log2 16)^3 / (16 - 1) = 64/15 = 4.27; exact ratio at N = 2^20 follows Eq. (3)
    assert (math.log2(16) ** 3 / 15) == pytest.approx(4.2667, abs=1e-4)
    N = 2**20
    r_exact = (H.average_range_mse(N, 2, 1.0, constrained=False, measure_root=False)
               / H.average_range_mse(N, 16, 1.0, constrained=False, measure_root=False))
    r_eq3 = H.qardaji_average_mse(N, 2, 1.0) / H.qardaji_average_mse(N, 16, 1.0)
    assert r_exact == pytest.approx(r_eq3, rel=1e-3) and r_exact > 64 / 15


@pytest.mark.parametrize("n,b,allocation,measure_root", [(13, 3, "uniform", True), (20, 2, "optimal", False),
                                                        (30, 4, "geometric", True)])
@pytest.mark.parametrize("constrained", [False, True])
def test_width_and_average_agree_with_per_query(n, b, allocation, measure_root, constrained):
    i, j = np.triu_indices(n + 1, 1)
    kw = dict(constrained=constrained, allocation=allocation, measure_root=measure_root)
    q = H.range_mse_by_query(n, b, 0.8, i, j, **kw)
    w = np.arange(1, n + 1)
    by_w = H.range_mse_by_width(n, b, 0.8, w, **kw)
    assert np.allclose(by_w, [q[(j - i) == k].mean() for k in w], rtol=1e-10)
    assert H.average_range_mse(n, b, 0.8, **kw) == pytest.approx(q.mean(), rel=1e-10)


@pytest.mark.parametrize("constrained", [False, True])
def test_simulated_mse_matches_analytic(constrained):
    n, b, eps, k = 40, 3, 1.0, 3000
    x = np.random.default_rng(5).integers(0, 100, size=n).astype(float)
    rel = H.measure(x, b, eps, allocation="geometric", rng=11, size=k)
    i, j = np.triu_indices(n + 1, 1)
    truth = np.array([x[a:c].sum() for a, c in zip(i, j, strict=True)])
    if constrained:
        est = H.range_answers(rel.leaves(constrained=True), i, j)
    else:
        est = H.tree_range_answers(rel, i, j)
    per_trial = ((est - truth) ** 2).mean(axis=1)  # iid over trials with mean = average range MSE
    theory = H.average_range_mse(n, b, eps, constrained=constrained, allocation="geometric")
    assert abs(per_trial.mean() - theory) < 5 * per_trial.std(ddof=1) / math.sqrt(k)
    # one query: the sample variance against the exact variance of that query
    t = int(np.flatnonzero((i == 4) & (j == 31))[0])
    v = H.range_mse_by_query(n, b, eps, [4], [31], constrained=constrained, allocation="geometric")[0]
    e2 = (est[:, t] - truth[t]) ** 2
    assert abs(e2.mean() - v) < 5 * e2.std(ddof=1) / math.sqrt(k)


def test_constrained_inference_helps_and_flat_loses_on_long_ranges():
    n = 1024
    for b in (2, 4, 16):
        assert (H.average_range_mse(n, b, 1.0, constrained=True)
                < H.average_range_mse(n, b, 1.0, constrained=False))
    w = np.array([1, n])
    flat = H.range_mse_by_width(n, None, 0.1, w, constrained=False)
    tree = H.range_mse_by_width(n, 2, 0.1, w, constrained=False)
    assert flat[0] < tree[0] and flat[1] > tree[1]


# --------------------------------------------------------------------------- d dimensions
def test_nd_reduces_to_1d_and_brute_force_2d():
    for n, b, mr in [(16, 2, True), (37, 3, False)]:
        assert H.average_range_mse_nd(n, 1, b, 0.5, measure_root=mr) == pytest.approx(
            H.average_range_mse(n, b, 0.5, constrained=False, measure_root=mr))
    # brute force d = 2, n = 6, b = 2: count cover nodes of every box directly
    n, b = 6, 2
    tree = H.build_tree(n, b)
    L = tree.n_measured_levels
    ranges = list(itertools.combinations(range(n + 1), 2))
    total = 0.0
    for (i1, j1), (i2, j2) in itertools.product(ranges, ranges):
        for lev in range(tree.height + 1):
            a, c = tree.node_bounds(lev)
            in1 = (a >= i1) & (c <= j1)
            in2 = (a >= i2) & (c <= j2)
            inside = np.outer(in1, in2)
            if lev < tree.height:
                pa, pc = tree.node_bounds(lev + 1)
                p1 = ((pa >= i1) & (pc <= j1))[np.arange(tree.sizes[lev]) // b]
                p2 = ((pa >= i2) & (pc <= j2))[np.arange(tree.sizes[lev]) // b]
                inside &= ~np.outer(p1, p2)
            total += inside.sum()
    expected = total / len(ranges) ** 2 * 2 * L**2
    assert H.average_range_mse_nd(n, 2, b, 1.0) == pytest.approx(expected)
    assert H.average_range_mse_nd(n, 2, None, 1.0) == pytest.approx(((n + 2) / 3) ** 2 * 2)


def test_dimensionality_finding():
    # Qardaji et al. Sec. 5: in 1-D a hierarchy wins clearly at n = 4096; in 3-D flat wins unless n is huge
    def best(n: int, d: int) -> float:
        return min(H.average_range_mse_nd(n, d, b, 1.0, measure_root=False) for b in range(2, 17))

    assert best(4096, 1) < 0.3 * H.average_range_mse_nd(4096, 1, None, 1.0)
    assert best(256, 3) > H.average_range_mse_nd(256, 3, None, 1.0)
    assert best(64, 3) > H.average_range_mse_nd(64, 3, None, 1.0)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("call", [
    lambda: H.strategy_matrix(8, 1),
    lambda: H.strategy_matrix(0, 2),
    lambda: H.strategy_matrix(8, 2, allocation="fancy"),
    lambda: H.average_range_mse(8, 2, 0.0, constrained=True),
    lambda: H.average_range_mse(8, 2, -1.0, constrained=False),
    lambda: H.average_range_mse(8, 1, 1.0, constrained=False),
    lambda: H.optimal_branching(0, 1.0, constrained=False),
    lambda: H.measure([1, -2, 3], 2, 1.0),
    lambda: H.range_mse_by_width(8, 2, 1.0, [0, 3], constrained=False),
    lambda: H.range_answers([1.0, 2.0], [1], [1]),
    lambda: H.qardaji_average_mse(10, 3, 1.0, exact=True),
    lambda: H.constrained_inference(np.zeros(5), 4, 2),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_bad_types_raise_type_error():
    with pytest.raises(TypeError, match="branching"):
        H.strategy_matrix(8, 2.5)
    with pytest.raises(TypeError, match="n"):
        H.average_range_mse("8", 2, 1.0, constrained=False)
    with pytest.raises(TypeError, match="measure_root"):
        H.build_tree(8, 2, measure_root="yes")


def test_error_messages_name_parameter_and_value():
    with pytest.raises(ValueError, match=r"branching must be an integer >= 2, got 1"):
        H.average_range_mse(8, 1, 1.0, constrained=False)
    with pytest.raises(ValueError, match=r"allocation must be one of .*'fancy'"):
        H.average_range_mse(8, 2, 1.0, constrained=False, allocation="fancy")
    with pytest.raises(ValueError, match=r"epsilon must be > 0, got 0.0"):
        H.average_range_mse(8, 2, 0, constrained=False)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(-5, 40), b=st.integers(-3, 12),
       eps=st.one_of(st.floats(-1, 2), st.just(float("nan")), st.floats(1e-320, 1e-90)))
def test_fuzz_inputs(n, b, eps):
    # a budget below MIN_EPSILON (1e-100), whose variances would overflow, is refused up front
    ok = n >= 1 and b >= 2 and eps == eps and eps >= 1e-100
    if ok:
        v = H.average_range_mse(n, b, eps, constrained=False)
        assert v > 0 and math.isfinite(v)
        A = H.strategy_matrix(n, b)
        assert A.shape[1] == n
    else:
        with pytest.raises(ValueError):
            H.average_range_mse(n, b, eps, constrained=False)


# --------------------------------------------------------------------------- experiments
def test_coarsen_and_datasets():
    from dpviz.experiments import hierarchy as E

    assert E.coarsen([1, 2, 3, 4, 5], 2).tolist() == [3.0, 12.0]
    x = E.dataset_histogram("ADULT", 1000)
    assert x.size == 1000 and x.sum() == E.dataset_histogram("ADULT", 4096).sum()
    with pytest.raises(ValueError, match=r"n=3 must be at most the number of cells of x \(2\)"):
        E.coarsen([1, 2], 3)
    assert E.default_widths(1024)[0] == 1 and E.default_widths(1024)[-1] == 1024


@pytest.mark.parametrize("ranges_per_trial", [None, 16])
def test_width_experiment_matches_exact(ranges_per_trial):
    from dpviz.experiments import hierarchy as E

    x = E.synthetic_histogram(100)
    c = E.range_error_by_width(x, 4, 0.5, [1, 3, 10, 50, 100], trials=400, methods=E.METHODS,
                               allocation="geometric", ranges_per_trial=ranges_per_trial, rng=4)
    for m in E.METHODS:
        z = (c.simulated[m] - c.analytic[m]) / c.stderr[m]
        assert np.all(np.abs(z) < 5), (m, z)
        assert np.all(c.lower[m] <= c.simulated[m] * 1.5) and np.all(c.upper[m] >= c.lower[m])
    # Flat error grows linearly with the width; inference helps the tree on the longest range
    assert np.allclose(c.analytic["flat"], np.array([1, 3, 10, 50, 100]) * 2 / 0.25)
    assert c.analytic["tree_ci"][-1] < c.analytic["tree"][-1]


def test_branching_study_simulation_and_dimension_study():
    from dpviz.experiments import hierarchy as E

    x = E.synthetic_histogram(256)
    s = E.branching_study(x, 1.0, [2, 4, 16], trials=200, ranges_per_trial=500, rng=2)
    assert np.all(np.abs(s.sim_tree - s.tree) < 5 * s.se_tree)
    assert np.all(np.abs(s.sim_tree_ci - s.tree_ci) < 5 * s.se_tree_ci)
    assert np.all(s.tree_ci < s.tree)
    d = E.dimension_study([16, 4096], [1, 3], 1.0, [2, 4, 8, 16])
    assert d[1]["best_tree"][-1] < d[1]["flat"][-1] and d[3]["best_tree"][0] >= d[3]["flat"][0]


# --------------------------------------------------------------------------- d-dimensional releases
@pytest.mark.parametrize("d,n,b,measure_root", [(1, 10, 3, True), (2, 9, 2, False), (3, 5, 2, True)])
def test_box_answers_nd_exact_without_noise(d, n, b, measure_root):
    rng = np.random.default_rng(d)
    x = rng.integers(0, 5, (n,) * d).astype(float)
    lo = rng.integers(0, n, (40, d))
    hi = lo + 1 + rng.integers(0, n - lo)
    truth = np.array([x[tuple(slice(s, e) for s, e in zip(lo[t], hi[t], strict=True))].sum() for t in range(40)])
    for br in (None, b):
        rel = H.measure_nd(x, br, 1e12, measure_root=measure_root, rng=0, size=2)
        assert np.allclose(H.box_answers_nd(rel, lo, hi), truth, atol=1e-6)
        L = 1 if br is None else H.build_tree(n, b, measure_root=measure_root).n_measured_levels
        assert len(rel.levels) == L and np.allclose(rel.level_variance, 2 * (L / 1e12) ** 2)


@pytest.mark.parametrize("n,d,b", [(64, 2, 4), (64, 2, None), (12, 3, 3), (16, 3, None)])
def test_nd_simulation_matches_exact(n, d, b):
    from dpviz.experiments import hierarchy as E

    r = E.dimension_simulation(n, d, b, 0.7, trials=40, boxes_per_trial=1000, measure_root=False, rng=5)
    assert abs(r.simulated - r.exact) < 5 * r.stderr


def test_measure_nd_bad_input():
    with pytest.raises(ValueError, match="cubic grid"):
        H.measure_nd(np.ones((3, 4)), 2, 1.0)
    with pytest.raises(ValueError, match="starts and stops"):
        H.box_answers_nd(H.measure_nd(np.ones((4, 4)), 2, 1.0, rng=0), [[0, 0, 0]], [[1, 1, 1]])


@pytest.mark.parametrize("flag", ["no", None, 1, "False"])
def test_boolean_flags_refuse_non_bools(flag):
    """constrained="no" is truthy in Python: it must raise, not silently switch inference on."""
    with pytest.raises(TypeError, match="constrained"):
        H.average_range_mse(8, 2, 1.0, constrained=flag)
    with pytest.raises(TypeError, match="constrained"):
        H.range_mse_by_width(8, 2, 1.0, constrained=flag)
    with pytest.raises(TypeError, match="measure_root"):
        H.build_tree(8, 2, measure_root=flag)


# --------------------------------------------------------------------------- the package split and its public seams
OLD_ALL = ["ALLOCATIONS", "Tree", "TreeRelease", "build_tree", "level_epsilons", "strategy_matrix", "node_counts",
           "measure", "flat_release", "constrained_inference", "range_answers", "tree_range_answers", "level_usage",
           "average_range_mse", "range_mse_by_width", "range_mse_by_query", "flat_average_range_mse",
           "qardaji_average_mse", "qardaji_level_usage", "algorithm1_variances", "asymptotic_optimal_branching",
           "optimal_branching", "branching_curve", "average_range_mse_nd", "GridRelease", "measure_nd",
           "box_answers_nd"]


def test_every_name_of_the_single_module_is_still_exported():
    import importlib

    mod = importlib.import_module("dpviz.hierarchy")
    assert set(OLD_ALL) <= set(mod.__all__)
    for name in mod.__all__:
        assert getattr(mod, name) is not None
        exec(f"from dpviz.hierarchy import {name}", {})


def test_prefix_range_sums_and_cover_sums_match_the_direct_answers():
    x = np.random.default_rng(1).integers(0, 9, size=37).astype(float)
    rel = H.measure(x, 3, 1.0, measure_root=False, rng=2, size=4)
    gen = np.random.default_rng(3)
    i = gen.integers(0, 36, size=(4, 50))
    j = i + 1 + gen.integers(0, 37 - i)
    P = np.zeros((4, 38))
    leaves = rel.leaves(constrained=True)
    np.cumsum(leaves, axis=1, out=P[:, 1:])
    assert np.array_equal(H.prefix_range_sums(P, i, j), H.range_answers(leaves, i, j))
    assert np.array_equal(H.cover_sums(rel.tree, H.level_prefix_sums(rel), i, j), H.tree_range_answers(rel, i, j))
    with pytest.raises(ValueError, match="one row per release"):
        H.prefix_range_sums(P, i[:2], j[:2])
    with pytest.raises(ValueError, match="one table per measured level"):
        H.cover_sums(rel.tree, H.level_prefix_sums(rel)[:-1], i, j)
    with pytest.raises(TypeError, match="integer"):
        H.prefix_range_sums(P, [0.5], [2])


def test_minimal_cover_holds_exactly_the_range():
    tree = H.build_tree(37, 3, measure_root=True)
    i, j = np.triu_indices(38, 1)
    cover = H.minimal_cover(tree, i, j)
    covered = np.zeros(i.size)
    for l, (lo, a, c, hi) in enumerate(cover):
        start, stop = tree.node_bounds(l)
        size = np.concatenate([[0], np.cumsum(stop - start)])
        covered += size[a] - size[lo] + size[hi] - size[c]
    assert np.array_equal(covered, j - i)
    with pytest.raises(ValueError, match="0 <= start < stop"):
        H.minimal_cover(tree, [3], [3])


def test_box_sums_from_a_summed_area_table():
    x = np.random.default_rng(4).integers(0, 9, size=(5, 5)).astype(float)
    S = np.zeros((1, 6, 6))
    S[0, 1:, 1:] = x.cumsum(axis=0).cumsum(axis=1)
    lo = [np.array([0, 1, 2]), np.array([0, 3, 1])]
    hi = [np.array([5, 2, 4]), np.array([5, 4, 2])]
    want = [x[a0:b0, a1:b1].sum() for a0, b0, a1, b1 in zip(lo[0], hi[0], lo[1], hi[1], strict=True)]
    assert np.allclose(H.box_sums(S, lo, hi), [want])
    with pytest.raises(ValueError, match="one bound array per axis"):
        H.box_sums(S, lo[:1], hi[:1])



# --------------------------------------------------------------------------- issue 13: one accounting rule
RELEASES = {  # name -> call(epsilon, size, accountant)
    "measure": lambda eps, size, acc: H.measure([3, 1, 4, 1, 5], 2, eps, size=size, accountant=acc, rng=0),
    "flat_release": lambda eps, size, acc: H.flat_release([3, 1, 4], eps, size=size, accountant=acc, rng=0),
    "measure_nd": lambda eps, size, acc: H.measure_nd(np.ones((4, 4)), 2, eps, size=size, accountant=acc, rng=0),
    "measure_nd_flat": lambda eps, size, acc: H.measure_nd(np.ones((4, 4)), None, eps, size=size, accountant=acc,
                                                           rng=0),
}


@pytest.mark.parametrize("name", sorted(RELEASES))
@pytest.mark.parametrize("eps, size", [("1/8", 12), ("3/4", 1), ("1/2", None), ("1", 50)])
def test_size_k_releases_charge_k_epsilon(name, eps, size):
    # Sequential composition of k independent eps-DP releases: the ledger must read k * eps, as an exact
    # Fraction (the epsilons are dyadic, so the float arguments are these fractions exactly).
    e = Fraction(eps)
    k = 1 if size is None else size
    acc = PrivacyAccountant(100.0)
    RELEASES[name](float(e), size, acc)
    assert Fraction(acc.spent.epsilon) == k * e
    assert sum(row.total_epsilon - (acc.history[i - 1].total_epsilon if i else 0)
               for i, row in enumerate(acc.history)) == k * e
    assert acc.spent.delta == 0


@pytest.mark.parametrize("name", sorted(RELEASES))
@pytest.mark.parametrize("bad", ["acc", 1.0, object()])
def test_accountant_must_be_an_accountant(name, bad):
    with pytest.raises(TypeError, match="accountant"):
        RELEASES[name](1.0, 3, bad)


@pytest.mark.parametrize("name", sorted(RELEASES))
def test_refused_spend_leaves_the_ledger_unchanged(name):
    acc = PrivacyAccountant(2.0)
    RELEASES[name](0.5, 2, acc)                       # 1.0 spent, 1.0 left
    before = (acc.spent, list(acc.history))
    with pytest.raises(BudgetExceededError):
        RELEASES[name](0.25, 5, acc)                  # 1.25 > 1.0: all five refused, none recorded
    assert (acc.spent, list(acc.history)) == before
    RELEASES[name](0.25, 4, acc)                      # exactly the remaining 1.0 still fits
    assert Fraction(acc.spent.epsilon) == 2


def test_huge_size_refused_before_allocating():
    for name in sorted(RELEASES):
        acc = PrivacyAccountant(1e30)
        with pytest.raises(ValueError, match="size"):
            RELEASES[name](1e-9, 10**9, acc)
        assert acc.history == [] or len(acc.history) == 0


# --------------------------------------------------------------------------- issue 13: geometric allocation
@pytest.mark.parametrize("n, b, measure_root, weights", [
    # [CPSSY12]: each level gets b**(1/3) times the budget of the level above, leaves the most.
    # b = 8: ratio 2; n = 64: levels 0, 1, 2 -> weights 4 : 2 : 1 (sum 7).
    (64, 8, True, [Fraction(4, 7), Fraction(2, 7), Fraction(1, 7)]),
    # root not measured: levels 0, 1 share it 2 : 1, the root gets 0.
    (64, 8, False, [Fraction(2, 3), Fraction(1, 3), Fraction(0)]),
    # b = 27: ratio 3; n = 27**2: 9 : 3 : 1 (sum 13).
    (27**2, 27, True, [Fraction(9, 13), Fraction(3, 13), Fraction(1, 13)]),
])
def test_geometric_allocation_ratio_is_the_cube_root_of_b(n, b, measure_root, weights):
    eps = H.level_epsilons(n, b, 1.3, allocation="geometric", measure_root=measure_root)
    assert eps.tolist() == pytest.approx([1.3 * float(w) for w in weights], rel=1e-12, abs=0)
    rel = H.measure(np.ones(n), b, 1.3, allocation="geometric", measure_root=measure_root, rng=0)
    assert rel.level_epsilons.tolist() == pytest.approx([1.3 * float(w) for w in weights], rel=1e-12, abs=0)


# --------------------------------------------------------------------------- issue 13: bad input
def test_bad_inputs_named_issue13():
    with pytest.raises(ValueError, match="x"):
        H.node_counts([1, -2, 3], 2)
    tree = H.build_tree(8, 2)
    with pytest.raises(ValueError, match="level"):
        tree.node_bounds(99)
    with pytest.raises(TypeError, match="nodes"):
        H.constrained_inference(np.zeros(15), 8, 2, nodes="no")
    with pytest.raises(TypeError, match="exact"):
        H.qardaji_average_mse(8, 2, 1.0, exact="no")
    with pytest.raises(ValueError, match="N"):
        H.qardaji_average_mse(float("inf"), 2, 1.0)
    for f in (lambda e: H.average_range_mse(16, 2, e, constrained=False),
              lambda e: H.flat_average_range_mse(16, e), lambda e: H.measure([1, 2], 2, e),
              lambda e: H.level_epsilons(8, 2, e)):
        with pytest.raises(ValueError, match="epsilon"):
            f(1e-300)
    with pytest.raises(ValueError, match="n"):
        H.average_range_mse(10**9, 2, 1.0, constrained=False)


def test_dataset_histogram_refuses_record_datasets():
    from dpviz.experiments.hierarchy import dataset_histogram
    with pytest.raises(ValueError, match="CPS.*records"):
        dataset_histogram("CPS", 4)
    assert dataset_histogram("ADULT", 4).shape == (4,)


def test_exact_constrained_error_of_node_ranges_at_a_million_leaves():
    """Refused before (O(n * n_nodes) work: n = 2**14 took 13 s); now O(h^2) per range.  A range that is exactly
    a node is read off that node's consistent estimate, whose variance node_variances computes by an
    independent recursion (from-below and from-above variances, Qardaji's Prop. 4)."""
    n, b = 2**20 - 3, 4                                    # short last nodes on every level
    tree = H.build_tree(n, b)
    node_var = H.node_variances(n, b, 1.0)
    starts, stops, expected = [], [], []
    for level in (0, 3, 7, tree.height):
        lo, hi = tree.node_bounds(level)
        for k in (0, lo.size // 2, lo.size - 1):
            starts.append(int(lo[k]))
            stops.append(int(hi[k]))
            expected.append(node_var[tree.offsets[level] + k])
    got = H.range_mse_by_query(n, b, 1.0, starts, stops, constrained=True)
    np.testing.assert_allclose(got, expected, rtol=1e-9)
    assert 0 < H.average_range_mse(2**14, 2, 1.0, constrained=True) < H.average_range_mse(2**14, 2, 1.0,
                                                                                       constrained=False)


def test_qardaji_eq3_refuses_trees_too_short_for_it():
    """Review finding: Eq. (3) is asymptotic and gave negative MSEs (N=8, b=16: -0.094); exact=True truncated 8.5."""
    for N, b in [(8, 16), (2, 4), (1.5, 2), (8, 2**40)]:
        with pytest.raises(ValueError, match="Eq. \\(3\\)"):
            H.qardaji_average_mse(N, b, 1.0)
    with pytest.raises(TypeError, match="N"):
        H.qardaji_average_mse(8.5, 2, 1.0, exact=True)
    # where it applies it is positive and close to the exact Proposition 1 for a tall tree
    assert H.qardaji_average_mse(2**20, 2, 1.0) == pytest.approx(H.qardaji_average_mse(2**20, 2, 1.0, exact=True),
                                                                  rel=0.05)


@pytest.mark.parametrize("n, b", [(4096, 2), (1000, 3), (37, 4), (4096, 16), (1000, 17), (5000, 64), (10, 3)])
def test_node_counts_equal_a_per_node_python_sum(n, b):
    # each node at level l covers leaves [i * b**l, (i + 1) * b**l), cut at n: summed here with a plain loop
    x = np.random.default_rng(n + b).integers(0, 100, size=n).astype(float)
    tree = H.build_tree(n, b)
    counts = H.node_counts(x, b)
    for level in range(tree.height + 1):
        width = b**level
        expected = [sum(x[i * width: min((i + 1) * width, n)].tolist()) for i in range(tree.sizes[level])]
        assert np.array_equal(counts[tree.offsets[level]: tree.offsets[level + 1]], expected), level
