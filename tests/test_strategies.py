"""Tests for dpviz.strategies: agreement with the hierarchy/wavelet modules, Y'', GreedyH, eigen-design."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from dpviz import hierarchy, wavelet
from dpviz import matrix_mechanism as mm
from dpviz import strategies as st
from dpviz import workloads as wl


def _dense(A):
    return A.toarray() if sp.issparse(A) else np.asarray(A)


@pytest.mark.parametrize("n,b,alloc,root", [(16, 2, "uniform", True), (27, 3, "uniform", True),
                                             (100, 4, "geometric", True), (64, 2, "optimal", False),
                                             (1000, 3, "uniform", True)])
def test_hierarchical_least_squares_equals_constrained_inference(n, b, alloc, root):
    """Same tree, same convention: LS on H_b = GLS of the hierarchy module (constrained inference)."""
    A = st.hierarchical(n, b, measure_root=root, allocation=alloc)
    assert (A != hierarchy.strategy_matrix(n, b, measure_root=root, allocation=alloc)).nnz == 0
    eps = 0.7
    total = mm.expected_error(wl.all_ranges(n), A, eps)
    avg = hierarchy.average_range_mse(n, b, eps, constrained=True, allocation=alloc, measure_root=root)
    assert total / (n * (n + 1) / 2) == pytest.approx(avg, rel=1e-9)


def test_hierarchical_h16_at_4096_matches_hierarchy_module():
    n = 4096
    total = mm.expected_error(wl.all_ranges(n), st.hierarchical(n, 16), 1.0)
    assert total / (n * (n + 1) / 2) == pytest.approx(hierarchy.average_range_mse(n, 16, 1.0, constrained=True),
                                                      rel=1e-9)


@pytest.mark.parametrize("n", [4, 16, 64])
def test_wavelet_least_squares_equals_privelet(n):
    A = st.wavelet(n)
    assert (A != wavelet.haar_matrix(n)).nnz == 0
    total = mm.expected_error(wl.all_ranges(n), A, 0.5)
    assert total / (n * (n + 1) / 2) == pytest.approx(wavelet.privelet_average_range_mse(n, 0.5), rel=1e-9)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 8, 13, 64])
def test_rescaled_wavelet_same_gram_lower_sensitivity(n):
    Y = _dense(st.wavelet(n))
    Y2 = _dense(st.rescaled_wavelet(n))
    np.testing.assert_allclose(Y2.T @ Y2, Y.T @ Y, atol=1e-12)
    N = wavelet.padded_size(n)
    L = int(math.log2(N))
    expect = 1.0 if N == 1 else L - 1 + math.sqrt(2)
    assert np.abs(Y2).sum(axis=0).max() == pytest.approx(expect)
    assert np.abs(Y).sum(axis=0).max() == pytest.approx(1 + L)


def test_rescaled_wavelet_at_n4_is_the_slides_matrix():
    r2 = math.sqrt(2)
    expect = [[r2, r2, 0, 0], [0, 0, r2, r2], [1, -1, 0, 0], [0, 0, 1, -1]]
    np.testing.assert_allclose(_dense(st.rescaled_wavelet(4)), expect)
    # every query's error shrinks by ((1 + sqrt 2) / 3)^2
    W = wl.all_ranges(4)
    e_y = mm.expected_error(W, st.wavelet(4), 1.0, per_query=True)
    e_y2 = mm.expected_error(W, st.rescaled_wavelet(4), 1.0, per_query=True)
    np.testing.assert_allclose(e_y2 / e_y, ((1 + r2) / 3) ** 2)


@pytest.mark.parametrize("W", [wl.all_ranges(37), wl.prefix(64), wl.random_ranges(50, 20, rng=3), wl.identity(9)])
@pytest.mark.parametrize("b", [2, 3])
def test_greedy_h_is_valid_and_never_worse_than_identity(W, b):
    A = st.greedy_h(W, b)
    Ad = _dense(A)
    np.testing.assert_allclose(np.abs(Ad).sum(axis=0), 1.0, rtol=1e-12)   # every path sums to 1
    assert np.linalg.matrix_rank(Ad) == W.n
    e = mm.expected_error(W, A, 1.0)
    assert e <= mm.expected_error(W, st.identity(W.n), 1.0) * (1 + 1e-9)
    assert e >= mm.svd_lower_bound(W, 1.0)


def test_greedy_h_beats_fixed_hierarchies_on_ranges_at_n256():
    for W in (wl.all_ranges(256), wl.prefix(256)):
        g = mm.expected_error(W, st.greedy_h(W), 1.0)
        for b in (2, 4, 16):
            assert g < mm.expected_error(W, st.hierarchical(256, b), 1.0)


def test_greedy_h_weighted_prefix_workload_and_input_forms():
    rng = np.random.default_rng(0)
    n = 48
    v = rng.uniform(0, 5, size=n)
    v[10:14] = 0.0           # empty-weight bins
    Ws = np.tril(np.ones((n, n))) @ np.diag(v)
    A1 = st.greedy_h(Ws)
    A2 = st.greedy_h(Ws.T @ Ws, gram=True)
    A3 = st.greedy_h(wl.from_matrix(Ws))
    assert abs(A1 - A2).max() == 0 and abs(A1 - A3).max() == 0
    assert mm.expected_error(Ws, A1, 1.0) <= mm.expected_error(Ws, st.identity(n), 1.0)
    with pytest.raises(ValueError, match="square"):
        st.greedy_h(np.ones((3, 4)), gram=True)
    with pytest.raises(ValueError, match="symmetric"):
        st.greedy_h(np.triu(np.ones((4, 4))), gram=True)
    with pytest.raises(ValueError, match="branching"):
        st.greedy_h(Ws, 1)


def test_eigen_design_gaussian_near_lower_bound_and_exact_for_identity():
    delta = 1e-6
    A = st.eigen_design(wl.identity(8), norm="l2")
    assert mm.expected_error(wl.identity(8), A, 1.0, delta=delta) == pytest.approx(
        mm.svd_lower_bound(wl.identity(8), 1.0, delta=delta), rel=1e-6)
    W = wl.all_ranges(64)
    G = W.gram()
    A = st.eigen_design(W, norm="l2", tol=1e-4)
    e = mm.expected_error(W, A, 1.0, delta=delta)
    lb = mm.svd_lower_bound(W, 1.0, delta=delta)
    assert lb <= e <= 1.15 * lb
    # the optimised scaling is no worse than the plain sqrt(sigma) scaling it starts from
    sig, Q = np.linalg.eigh(G)
    A0 = np.sqrt(np.sqrt(sig))[:, None] * Q.T
    assert e <= mm.expected_error(W, A0, 1.0, delta=delta) * (1 + 1e-9)
    assert np.sqrt((A**2).sum(axis=0)).max() == pytest.approx(1.0)


def test_l1_eigen_design_is_withdrawn_with_a_pointer_to_p_identity():
    """Dense eigenvectors pay their L1 norm: the L1 design lost 12x to Identity, so it is refused, and the
    menu does not offer the eigen-design under the Laplace mechanism."""
    with pytest.raises(ValueError, match="p_identity"):
        st.eigen_design(wl.all_ranges(8), norm="l1")
    with pytest.raises(ValueError, match="optimized"):
        st.build("eigen_design", wl.prefix(8), mechanism="laplace")
    assert "eigen_design" not in st.for_mechanism("laplace")
    assert st.for_mechanism("gaussian") == st.STRATEGIES


def test_eigen_design_rank_deficient_workload_drops_rows():
    W = wl.marginals_2d((3, 4))
    A = st.eigen_design(W)
    assert A.shape == (6, 12)
    assert mm.expected_error(W, A, 1.0) > 0
    with pytest.raises(ValueError, match="norm"):
        st.eigen_design(W, norm="l3")
    with pytest.raises(ValueError, match="zeros"):
        st.eigen_design(np.zeros((2, 3)))


def test_build_menu_and_cache():
    W = wl.prefix(32)
    cache = {}
    for mechanism, delta in (("laplace", None), ("gaussian", 1e-6)):
        for name in st.for_mechanism(mechanism):
            A = st.build(name, W, mechanism=mechanism, cache=cache)
            assert mm.expected_error(W, A, 1.0, delta=delta) >= mm.svd_lower_bound(W, 1.0, delta=delta)
            assert name in st.LABELS
    A = cache[("greedy_h", W.key, "laplace")]
    assert st.build("greedy_h", W, cache=cache) is A
    with pytest.raises(ValueError, match="strategy"):
        st.build("fourier", W)
    with pytest.raises(TypeError, match="W"):
        st.build("identity", np.eye(3))


def test_strategy_cache_tells_apart_workloads_that_share_a_name():
    """Two seeded random-range workloads are both called "5 random ranges"; the cache must not mix them up."""
    cache: dict = {}
    W1, W2 = wl.random_ranges(32, 5, rng=1), wl.random_ranges(32, 5, rng=2)
    assert W1.name == W2.name and W1.key != W2.key
    for name in ("greedy_h", "eigen_design", "optimized"):
        A1, A2 = st.build(name, W1, mechanism="gaussian", cache=cache), st.build(name, W2, mechanism="gaussian",
                                                                                cache=cache)
        assert A1 is not A2
        fresh = st.build(name, W2, mechanism="gaussian")
        A2d = A2.toarray() if hasattr(A2, "toarray") else np.asarray(A2)
        freshd = fresh.toarray() if hasattr(fresh, "toarray") else np.asarray(fresh)
        np.testing.assert_array_equal(A2d, freshd)


def test_eigen_design_bounds_its_run_time_and_checks_tol():
    # a tiny tol may never be met: max_iter is capped instead of looping for hours
    with pytest.raises(ValueError, match="max_iter"):
        st.eigen_design(wl.all_ranges(8), tol=1e-300, max_iter=10**15)
    with pytest.raises(TypeError, match="tol"):
        st.eigen_design(wl.all_ranges(8), tol=True)


def test_cache_key_refuses_what_build_refuses():
    W = wl.prefix(8)
    with pytest.raises(ValueError, match="name"):
        st.cache_key("bogus", W, "laplace")
    with pytest.raises(ValueError, match="eigen_design"):
        st.cache_key("eigen_design", W, "laplace")
    assert st.cache_key("eigen_design", W, "gaussian") == ("eigen_design", W.key, "gaussian")
    with pytest.raises(ValueError, match="mechanism"):
        st.cache_key("wavelet", W, "exponential")
    with pytest.raises(TypeError, match="Workload"):
        st.cache_key("wavelet", np.eye(8), "laplace")
