"""What constrained inference does to one node: weights (Qardaji's Figure 1) and variances (Propositions 3, 4).

The references here are independent of dpviz's recursions: the weighted least-squares operator
``C = A (A^T W A)^{-1} A^T W`` and the covariance ``A (A^T W A)^{-1} A^T`` are formed densely from the 0/1
node-by-leaf incidence matrix built here by hand, and the coefficients of Figure 1 are the paper's printed
fractions (Qardaji, Yang, Li, PVLDB 2013), compared exactly as Fractions.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dpviz import hierarchy as H

CASES = [  # (n, b, allocation, measure_root) - several not powers of b
    (1, 2, "uniform", True),
    (8, 2, "uniform", False),
    (8, 2, "uniform", True),
    (10, 3, "geometric", True),
    (13, 2, "optimal", False),
    (27, 3, "uniform", False),
    (5, 4, "geometric", False),
    (40, 6, "optimal", True),
]


def _dense(n: int, b: int, allocation: str, measure_root: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dense GLS operator C (nodes x nodes), node covariance and node noise variances, at epsilon = 1."""
    t = H.build_tree(n, b, measure_root=measure_root)
    incidence = np.zeros((t.n_nodes, n))
    row = 0
    for l in range(t.height + 1):  # node k of level l covers leaves [k b^l, min((k+1) b^l, n))
        for k in range(t.sizes[l]):
            incidence[row, k * b**l: min((k + 1) * b**l, n)] = 1.0
            row += 1
    eps = H.level_epsilons(n, b, 1.0, allocation=allocation, measure_root=measure_root)
    var = np.repeat([2.0 / e**2 if e > 0 else np.inf for e in eps], t.sizes)
    meas = np.isfinite(var)
    A, W = incidence[meas], np.diag(1.0 / var[meas])
    G = np.linalg.inv(A.T @ W @ A)
    C = np.zeros((t.n_nodes, t.n_nodes))
    C[:, meas] = incidence @ G @ A.T @ W
    return C, incidence @ G @ incidence.T, var


@pytest.mark.parametrize("n, b, allocation, measure_root", CASES)
def test_weights_and_variances_match_dense_least_squares(n, b, allocation, measure_root):
    C, cov, _ = _dense(n, b, allocation, measure_root)
    t = H.build_tree(n, b, measure_root=measure_root)
    for l in range(t.height + 1):
        for k in range(t.sizes[l]):
            w = H.inference_weights(n, b, l, k, allocation=allocation, measure_root=measure_root)
            np.testing.assert_allclose(w, C[t.offsets[l] + k], rtol=0, atol=1e-12)
    for eps in (1.0, 0.3):
        v = H.node_variances(n, b, eps, allocation=allocation, measure_root=measure_root)
        np.testing.assert_allclose(v, np.diag(cov) / eps**2, rtol=1e-12)


def test_weights_reproduce_what_inference_does_to_a_release():
    n, b = 37, 3
    rel = H.measure(np.arange(n), b, 0.7, allocation="optimal", measure_root=False, rng=5)
    est = H.constrained_inference(rel.noisy, n, b, allocation="optimal", measure_root=False, nodes=True)
    t = rel.tree
    for l, k in [(0, 0), (0, 36), (1, 12), (2, 4), (3, 1), (4, 0)]:
        w = H.inference_weights(n, b, l, k, allocation="optimal", measure_root=False)
        assert w @ np.nan_to_num(rel.noisy) == pytest.approx(est[t.offsets[l] + k], rel=1e-12, abs=1e-9)


def _paper_name(t: H.Tree) -> dict[str, int]:
    """Qardaji's Figure 1 numbering (N = 8, b = 2, root unmeasured): n1, n2 the root's children, then
    n3..n6, then the leaves n7..n14, left to right; mapped to dpviz's flat order (leaves first)."""
    names, k = {}, 1
    for l in range(t.height - 1, -1, -1):
        for j in range(t.sizes[l]):
            names[f"n{k}"] = t.offsets[l] + j
            k += 1
    return names


# The paper's Figure 1 (each node's estimate after constrained inference), as printed.
FIGURE_1 = {
    "n7": {"n7": Fraction(13, 21), "n3": Fraction(5, 21), "n1": Fraction(1, 7), "n4": Fraction(-2, 21),
           "n9": Fraction(-1, 21), "n10": Fraction(-1, 21), "n8": Fraction(-8, 21)},
    "n8": {"n8": Fraction(13, 21), "n3": Fraction(5, 21), "n1": Fraction(1, 7), "n4": Fraction(-2, 21),
           "n9": Fraction(-1, 21), "n10": Fraction(-1, 21), "n7": Fraction(-8, 21)},
    "n9": {"n9": Fraction(13, 21), "n4": Fraction(5, 21), "n1": Fraction(1, 7), "n3": Fraction(-2, 21),
           "n7": Fraction(-1, 21), "n8": Fraction(-1, 21), "n10": Fraction(-8, 21)},
}


def test_figure_1_coefficients_exactly():
    t = H.build_tree(8, 2, measure_root=False)
    names = _paper_name(t)
    for node, printed in FIGURE_1.items():
        flat = names[node]
        l = next(l for l in range(t.height + 1) if t.offsets[l] <= flat < t.offsets[l + 1])
        w = H.inference_weights(8, 2, l, flat - t.offsets[l], measure_root=False)
        got = {nm: Fraction(float(w[i])).limit_denominator(1000) for nm, i in names.items() if abs(w[i]) > 1e-12}
        assert got == printed, node
        assert np.abs(w[[i for nm, i in names.items() if nm not in printed]]).max() < 1e-14  # n2's side: 0
    # the query over the first 3 leaves: q = n7' + n8' + n9', variance 399/441 V_O (printed)
    q = sum(H.inference_weights(8, 2, 0, k, measure_root=False) for k in range(3))
    assert Fraction(float((q**2).sum())).limit_denominator(1000) == Fraction(399, 441)
    printed_q = {"n1": Fraction(3, 7), "n3": Fraction(8, 21), "n4": Fraction(1, 21), "n7": Fraction(4, 21),
                 "n8": Fraction(4, 21), "n9": Fraction(11, 21), "n10": Fraction(-10, 21)}
    assert {nm: Fraction(float(q[i])).limit_denominator(1000) for nm, i in names.items()
            if abs(q[i]) > 1e-12} == printed_q


@pytest.mark.parametrize("b", [2, 3, 4, 8, 16])
@pytest.mark.parametrize("measure_root", [False, True])
def test_proposition_4_lower_bound_and_the_end_levels(b, measure_root):
    """Every node's variance after inference is >= (b-1)/(b+1) V_O (uniform budget, complete tree); the
    weighted-averaging variances are Proposition 3's b^(l-1)(b-1)/(b^l-1) V_O (levels l = 1.. from the leaves)."""
    h = {2: 12, 3: 8, 4: 6, 8: 4, 16: 3}[b]
    n = b**h
    t = H.build_tree(n, b, measure_root=measure_root)
    VO = 2.0 * t.n_measured_levels**2  # epsilon = 1, epsilon / L per level
    ratio = H.node_variances(n, b, 1.0, measure_root=measure_root) / VO
    assert ratio.min() >= (b - 1) / (b + 1)
    levels = [ratio[t.offsets[l]: t.offsets[l + 1]] for l in range(t.height + 1)]
    assert all(np.ptp(v) < 1e-12 for v in levels)  # a complete tree: one variance per level
    # Proposition 3: a node's variance from below (dense: the GLS from its own subtree alone) is
    # b^(m-1)(b-1)/(b^m-1) V_O on the paper's level m = l + 1 (the paper counts the leaves as level 1)
    for l in range(t.height + 1):
        if b**l > 256:  # keeps the dense inverse small
            break
        _, cov, _ = _dense(b**l, b, "uniform", True)  # the subtree of one level-l node, its l + 1 levels measured
        m = l + 1
        assert cov[-1, -1] / (2.0 * m**2) == pytest.approx(b ** (m - 1) * (b - 1) / (b**m - 1), rel=1e-12)
    if not measure_root:
        # Qardaji: the top measured level ends near (b-1)/b V_O; middle levels approach (b-1)/(b+1) V_O
        assert levels[t.height - 1][0] == pytest.approx((b - 1) / b, rel=0.01)
        if h >= 6:
            assert min(v[0] for v in levels[:-1]) == pytest.approx((b - 1) / (b + 1), rel=0.01)


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="level"):
        H.inference_weights(8, 2, 4, 0)
    with pytest.raises(ValueError, match="index"):
        H.inference_weights(8, 2, 1, 4)
    with pytest.raises(TypeError, match="index"):
        H.inference_weights(8, 2, 1, 1.0)
    with pytest.raises(ValueError, match="allocation"):
        H.node_variances(8, 2, 1.0, allocation="cubic")
    with pytest.raises(ValueError, match="epsilon"):
        H.node_variances(8, 2, 0.0)
    with pytest.raises(TypeError, match="measure_root"):
        H.node_variances(8, 2, 1.0, measure_root=1)
