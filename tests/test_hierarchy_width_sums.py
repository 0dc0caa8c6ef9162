"""Exact error-by-width sums in O(h) / O(h^2) per width, against dense least squares and the old O(n^2) sums.

H_b + CI: the constrained-inference covariance as a tree matrix.

``Sigma = V_0 I - sum_v beta_v w_v w_v^T`` is rebuilt densely from the module's constants and compared with
``(A^T V^{-1} A)^{-1}`` of the strategy matrix; the width sums with the previous implementation
(tests/hierarchy_reference.py: constrained inference run on one leaf's noise at a time) to 1e-9, and the
per-range variances with brute-force quadratic forms of the dense covariance.  H_b without inference: the
closed-form cover counts against the previous count over every (node, width) pair.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpviz import hierarchy as H
from dpviz.hierarchy.budgets import _level_variances
from dpviz.hierarchy.ci_covariance import _ci_range_variances, _ci_variance_sums, _tree_covariance
from dpviz.hierarchy.width_sums import _hb_width_sums
from tests.hierarchy_reference import _ci_width_sums
from tests.hierarchy_reference import _hb_width_sums as _hb_reference

CASES = [(n, b, mr, alloc) for n in (1, 2, 3, 5, 8, 9, 16, 17, 27, 30, 64, 65, 100) for b in (2, 3, 4, 7)
         for mr in (True, False) for alloc in ("uniform", "geometric", "optimal")]


def _dense_sigma(tree, allocation):
    A = H.strategy_matrix(tree.n, tree.branching, measure_root=tree.measure_root)
    A = A.toarray() if hasattr(A, "toarray") else np.asarray(A)
    V = _level_variances(tree, allocation)
    node_var = np.concatenate([np.full(tree.sizes[l], V[l]) for l in tree.measured_levels])
    return np.linalg.inv(A.T @ (A / node_var[:, None]))


def _rebuilt_sigma(tree, allocation):
    tc = _tree_covariance(tree, allocation)
    S = tc.v0 * np.eye(tc.n)
    for count, B, coef in tc.complete:
        for k in range(count):
            S[k * B:(k + 1) * B, k * B:(k + 1) * B] -= coef
    for beta, vals in tc.last:
        w = np.repeat(vals, np.diff(tc.bounds))
        S -= beta * np.outer(w, w)
    return S


@pytest.mark.parametrize("n,b,measure_root,allocation", CASES)
def test_tree_matrix_equals_the_dense_least_squares_covariance(n, b, measure_root, allocation):
    tree = H.build_tree(n, b, measure_root=measure_root)
    D = _dense_sigma(tree, allocation)
    np.testing.assert_allclose(_rebuilt_sigma(tree, allocation), D, rtol=1e-11, atol=1e-11 * np.abs(D).max())
    s = np.repeat(np.arange(n), np.arange(n, 0, -1))
    e = np.concatenate([np.arange(a + 1, n + 1) for a in range(n)])
    P = np.zeros((n + 1, n + 1))
    P[1:, 1:] = np.cumsum(np.cumsum(D, axis=0), axis=1)
    brute = P[e, e] + P[s, s] - 2 * P[s, e]
    np.testing.assert_allclose(_ci_range_variances(tree, allocation, s, e), brute, rtol=1e-10)
    widths = e - s
    sums = np.bincount(widths, weights=brute, minlength=n + 1)[1:]
    np.testing.assert_allclose(_ci_variance_sums(tree, allocation, np.arange(1, n + 1)), sums, rtol=1e-10)


@pytest.mark.parametrize("n", [255, 256, 729, 1000, 1024, 2047, 2048])
@pytest.mark.parametrize("b", [2, 3, 4, 16, 64])
def test_width_sums_equal_the_previous_implementation(n, b):
    for measure_root in (True, False):
        for allocation in ("uniform", "geometric", "optimal"):
            tree = H.build_tree(n, b, measure_root=measure_root)
            old = _ci_width_sums(tree, allocation)
            new = _ci_variance_sums(tree, allocation, np.arange(1, n + 1))
            np.testing.assert_allclose(new, old, rtol=1e-9)
            V = _level_variances(tree, allocation)
            w = np.arange(1, n + 1)
            np.testing.assert_allclose(_hb_width_sums(tree, V, w), _hb_reference(tree, V, w), rtol=1e-12)


def test_range_mse_by_width_at_n_65536_without_refusal():
    """Refused before (n x n_nodes covariance work); now O(h^2) per width: all widths of n = 65535, b = 2."""
    n = 65535
    mse = H.range_mse_by_width(n, 2, 1.0, np.arange(1, n + 1), constrained=True)
    assert mse.shape == (n,) and np.all(np.isfinite(mse)) and np.all(mse > 0)
    # the whole-domain range is the root's consistent estimate: at most the root's own variance
    V = _level_variances(H.build_tree(n, 2), "uniform")
    assert mse[-1] <= V[-1]
    avg = H.average_range_mse(n, 2, 1.0, constrained=True)
    counts = n - np.arange(1, n + 1) + 1.0
    assert avg == pytest.approx(float((mse * counts).sum() / (n * (n + 1) / 2)), rel=1e-12)
