"""Tests for dpviz.workloads: implicit forms agree with the explicit matrices, slides' numbers, bad input."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as hst

from dpviz import workloads as wl


def _dense(W):
    M = W.matrix()
    return M.toarray() if sp.issparse(M) else np.asarray(M)


def _all_kinds(n):
    return [wl.identity(n), wl.prefix(n), wl.all_ranges(n), wl.random_ranges(n, 9, rng=4),
            wl.width_ranges(n, max(1, n // 3)), wl.from_matrix(np.random.default_rng(2).normal(size=(4, n)))]


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_implicit_forms_match_explicit_matrix(n):
    rng = np.random.default_rng(n)
    for W in _all_kinds(n):
        M = _dense(W)
        assert M.shape == W.shape == (W.n_queries, n)
        x = rng.normal(size=(3, n))
        y = rng.normal(size=(2, W.n_queries))
        np.testing.assert_allclose(W.gram(), M.T @ M, atol=1e-10)
        np.testing.assert_allclose(W.answer(x), x @ M.T, atol=1e-10)
        np.testing.assert_allclose(W.answer(x[0]), M @ x[0], atol=1e-10)
        np.testing.assert_allclose(W.rmatvec(y), y @ M, atol=1e-10)
        assert W.l1() == pytest.approx(np.abs(M).sum(axis=0).max())
        assert W.l2() == pytest.approx(np.sqrt((M**2).sum(axis=0)).max())
        sv = np.linalg.svd(M, compute_uv=False)
        sv = np.concatenate([sv, np.zeros(max(0, n - sv.size))])[:n]
        # compare squares: a zero singular value comes out of eigvalsh(W^T W) as sqrt(rounding) ~ 1e-8
        np.testing.assert_allclose(W.singular_values() ** 2, sv**2, atol=1e-10 * max(1.0, sv.max() ** 2))
        lam, Q = W.eigh()
        np.testing.assert_allclose(Q @ np.diag(lam) @ Q.T, M.T @ M, atol=1e-8 * max(1.0, lam.max()))
        np.testing.assert_allclose(Q.T @ Q, np.eye(n), atol=1e-10)
        assert np.all(np.diff(lam) >= -1e-9 * max(1.0, lam.max()))


def test_slides_all_range_workload_at_n4():
    W = wl.all_ranges(4)
    assert W.n_queries == 10
    assert W.answer([10, 23, 16, 3]).tolist() == [52, 49, 42, 33, 39, 19, 10, 23, 16, 3]
    assert W.l1() == 6
    s, e = W.intervals()
    assert list(zip(s.tolist(), e.tolist(), strict=True))[:4] == [(0, 4), (0, 3), (1, 4), (0, 2)]


def test_closed_form_sensitivities_at_large_n_without_matrix():
    n = 4096
    W = wl.all_ranges(n)
    a = np.arange(n)
    assert W.l1() == float(((a + 1) * (n - a)).max())
    assert wl.prefix(n).l1() == n
    assert W.n_queries == n * (n + 1) // 2
    with pytest.raises(ValueError, match="max_nnz"):
        W.matrix()


def test_two_dimensional_workloads():
    W = wl.all_ranges_2d((3, 4))
    G1, G2 = wl.all_ranges(3).gram(), wl.all_ranges(4).gram()
    np.testing.assert_allclose(W.gram(), np.kron(G1, G2))
    M = _dense(W)
    np.testing.assert_allclose(W.singular_values(), np.linalg.svd(M, compute_uv=False)[:12], rtol=1e-9)
    assert W.n_queries == 6 * 10
    Mg = wl.marginals_2d((3, 4))
    assert np.linalg.matrix_rank(_dense(Mg)) == 3 + 4 - 1
    t = np.arange(12.0)
    np.testing.assert_allclose(Mg.answer(t), np.concatenate([t.reshape(3, 4).sum(1), t.reshape(3, 4).sum(0)]))
    R = wl.random_ranges_2d((4, 4), 7, rng=1)
    assert R.n_queries == 7 and np.all(_dense(R).sum(axis=1) >= 1)


def test_random_ranges_are_seeded_and_valid():
    a = wl.random_ranges(50, 30, rng=7)
    b = wl.random_ranges(50, 30, rng=7)
    c = wl.random_ranges(50, 30, rng=8)
    assert np.array_equal(a.starts, b.starts) and np.array_equal(a.stops, b.stops)
    assert not (np.array_equal(a.starts, c.starts) and np.array_equal(a.stops, c.stops))
    assert np.all((0 <= a.starts) & (a.starts < a.stops) & (a.stops <= 50))


def test_build_menu():
    for name in wl.WORKLOADS:
        W = wl.build(name, 16)
        assert W.n == 16
    assert wl.build("width_ranges", 16).n_queries == 16 - 4 + 1
    with pytest.raises(ValueError, match="workload"):
        wl.build("cubes", 16)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="n"):
        wl.all_ranges(0)
    with pytest.raises(TypeError, match="n"):
        wl.prefix(3.5)
    with pytest.raises(ValueError, match="w"):
        wl.width_ranges(5, 6)
    with pytest.raises(ValueError, match="ranges"):
        wl.ranges(5, [0, 3], [2, 3])
    with pytest.raises(ValueError, match="same shape"):
        wl.ranges(5, [0, 1], [2])
    with pytest.raises(ValueError, match="x"):
        wl.prefix(4).answer([1, 2, 3])
    with pytest.raises(ValueError, match="y"):
        wl.prefix(4).rmatvec([1, 2, 3])
    with pytest.raises(ValueError, match="shape"):
        wl.marginals_2d((3,))
    with pytest.raises(ValueError, match="W"):
        wl.from_matrix(np.ones(3))
    with pytest.raises(ValueError, match="interval"):
        wl.marginals_2d((2, 2)).intervals()


@settings(max_examples=40, deadline=None)
@given(n=hst.integers(1, 12), k=hst.integers(1, 20), seed=hst.integers(0, 2**16))
def test_ranges_gram_is_a_dominance_count(n, k, seed):
    W = wl.random_ranges(n, k, rng=seed)
    M = _dense(W)
    np.testing.assert_allclose(W.gram(), M.T @ M)
    np.testing.assert_allclose(W.coverage(), M.sum(axis=0))


def test_random_ranges_picks_the_same_ranges_without_listing_all_of_them():
    # the old code listed all n(n+1)/2 intervals (widest first, left to right) and indexed them: same draw, same
    # ranges, checked against that brute-force listing
    for n, k, seed in [(1, 3, 0), (5, 40, 1), (16, 5, 0), (100, 200, 7)]:
        listing = [(s, s + w) for w in range(n, 0, -1) for s in range(n - w + 1)]
        idx = np.random.default_rng(seed).integers(0, n * (n + 1) // 2, size=k)
        s, e = wl.random_ranges(n, k, rng=seed).intervals()
        assert list(zip(s.tolist(), e.tolist(), strict=True)) == [listing[i] for i in idx]
    n = 2**27   # the largest n: group g of index i is the largest g with g(g+1)/2 <= i (exact integer sqrt)
    s, e = wl.random_ranges(n, 50, rng=3).intervals()
    for i, (a, b) in zip(np.random.default_rng(3).integers(0, n * (n + 1) // 2, size=50).tolist(),
                         zip(s.tolist(), e.tolist(), strict=True), strict=True):
        g = (math.isqrt(8 * i + 1) - 1) // 2
        assert (a, b) == (i - g * (g + 1) // 2, i - g * (g + 1) // 2 + n - g)
    with pytest.raises(ValueError, match="n="):
        wl.random_ranges(10**15, 3, rng=0)


def test_build_checks_every_argument_whichever_workload_uses_it():
    for kw, exc, name in [({"k": -1}, ValueError, "k"), ({"k": 2.5}, TypeError, "k"), ({"rng": "x"}, TypeError, "rng"),
                          ({"rng": -1}, ValueError, "rng"), ({"w": 0}, ValueError, "w")]:
        with pytest.raises(exc, match=name):
            wl.build("prefix", 8, **kw)
