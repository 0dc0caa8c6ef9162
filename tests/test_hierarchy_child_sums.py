"""Child sums, spreads and blocked constrained inference: equal to plain reference forms and to dense GLS.

The fast paths (pairwise halving of even groups, strided odd groups, repeat-based spreads, trials in
blocks) are checked against the textbook forms written here with ``np.add.reduceat`` and ``np.repeat``
and against a dense weighted least-squares solve, for every b from 2 to 64 class of path, ragged n,
both root conventions and every allocation.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpviz import hierarchy as H
from dpviz.hierarchy import inference
from dpviz.hierarchy.counts import _child_sum, _spread_add

BRANCHINGS = [2, 3, 4, 5, 6, 7, 8, 12, 16, 17, 24, 31, 32, 48, 64]


def _reference_child_sum(Z: np.ndarray, b: int) -> np.ndarray:
    return np.add.reduceat(Z, np.arange(0, Z.shape[1], b), axis=1)


def _reference_ci(Y: np.ndarray, tree: H.Tree, allocation: str) -> np.ndarray:
    """Constrained inference written out level by level with reduceat and repeat (leaves and nodes)."""
    plan = inference._ci_plan(tree, allocation)
    b, off = tree.branching, tree.offsets
    Z, S = [Y[:, : tree.n]], [None]
    for level in range(1, tree.height + 1):
        s = _reference_child_sum(Z[-1], b)
        S.append(s)
        Z.append(s + plan.own[level] * (np.nan_to_num(Y[:, off[level]: off[level + 1]]) - s))
    F = [None] * (tree.height + 1)
    F[tree.height] = Z[tree.height]
    for level in range(tree.height - 1, -1, -1):
        gap = F[level + 1] - S[level + 1]
        F[level] = Z[level] + plan.share[level] * np.repeat(gap, b, axis=1)[:, : tree.sizes[level]]
    return np.concatenate(F, axis=1)


def _dense_gls(Y: np.ndarray, tree: H.Tree, variance: np.ndarray) -> np.ndarray:
    """Leaves by weighted least squares from every measured node (a dense solve)."""
    last = tree.offsets[int(tree.measured_levels[-1]) + 1]
    A = H.strategy_matrix(tree.n, tree.branching, measure_root=tree.measure_root).toarray()
    w = 1.0 / np.sqrt(variance[:last])
    return np.linalg.lstsq(A * w[:, None], (Y[:, :last] * w).T, rcond=None)[0].T


@pytest.mark.parametrize("b", BRANCHINGS)
def test_child_sum_and_spread_equal_the_reference_forms(b):
    rng = np.random.default_rng(b)
    for m in sorted({1, b - 1, b, b + 1, 3 * b + 2, 1000, 4096}):
        Z = rng.normal(size=(5, m)) * 100
        mp = -(-m // b)
        assert np.allclose(_child_sum(Z, b, mp), _reference_child_sum(Z, b), rtol=1e-13, atol=1e-11)
        gap, w = rng.normal(size=(5, mp)), rng.random(m)
        expected = Z + w * np.repeat(gap, b, axis=1)[:, :m]
        assert np.array_equal(_spread_add(Z, w, gap, b), expected)
        out = np.full((5, m + 3), np.nan)   # into a column slice of a larger array, as for nodes=True
        _spread_add(Z, w, gap, b, out=out[:, 1: m + 1])
        assert np.array_equal(out[:, 1: m + 1], expected) and np.isnan(out[:, [0, -2, -1]]).all()


@pytest.mark.parametrize("b", BRANCHINGS)
def test_blocked_inference_equals_the_reference_and_dense_gls(b, monkeypatch):
    # a tiny block forces several blocks of trials, and a last block shorter than the others
    monkeypatch.setattr(inference, "_BLOCK_VALUES", 3 * (b * b + 5))
    rng = np.random.default_rng(100 + b)
    for n, allocation, measure_root in itertools.product([b * b + 3, 2 * b - 1, 1, 97],
                                                         ["uniform", "geometric", "optimal"], [True, False]):
        x = rng.integers(0, 60, size=n).astype(float)
        rel = H.measure(x, b, 0.7, allocation=allocation, measure_root=measure_root, rng=rng, size=7)
        tree, Y = rel.tree, rel.noisy
        leaves = rel.leaves(constrained=True)
        nodes = H.constrained_inference(Y, n, b, allocation=allocation, measure_root=measure_root, nodes=True)
        ref = _reference_ci(Y, tree, allocation)
        scale = np.max(np.abs(ref))
        assert np.max(np.abs(nodes - ref)) <= 1e-12 * scale
        assert np.array_equal(leaves, nodes[:, :n])
        if n > 400:   # the dense solve is cubic in n: the reference above covers the tall trees
            continue
        gls = _dense_gls(Y, tree, rel.node_variance)
        assert np.max(np.abs(leaves - gls)) <= 1e-9 * max(np.max(np.abs(gls)), 1.0)


def test_inference_returns_a_new_array_even_for_one_leaf():
    rel = H.measure([5.0], 2, 1.0, rng=0, size=3)
    leaves = rel.leaves(constrained=True)
    leaves += 1.0
    assert not np.shares_memory(leaves, rel.noisy)
    assert np.array_equal(rel.leaves(constrained=True), rel.noisy[:, :1])


def test_no_trials_give_no_rows():
    tree = H.build_tree(10, 3)
    assert H.constrained_inference(np.zeros((0, tree.n_nodes)), 10, 3).shape == (0, 10)
    assert H.constrained_inference(np.zeros((0, tree.n_nodes)), 10, 3, nodes=True).shape == (0, tree.n_nodes)
