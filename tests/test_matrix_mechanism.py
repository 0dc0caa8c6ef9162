"""Tests for dpviz.matrix_mechanism: exact error, the slides' numbers, Monte Carlo agreement, bounds, bad input."""

import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import Z
from hypothesis import given, settings
from hypothesis import strategies as hst

from dpviz import matrix_mechanism as mm
from dpviz import strategies as st
from dpviz import workloads as wl
from dpviz.accountant import BudgetExceededError, PrivacyAccountant


def _dense(A):
    return A.toarray() if sp.issparse(A) else np.asarray(A, dtype=float)


def _brute(W, A, eps):
    """Per-query error from the textbook formula with a dense pseudo-inverse."""
    Wm = _dense(W.matrix())
    Am = _dense(A)
    M = np.linalg.pinv(Am.T @ Am)
    return 2 * (np.abs(Am).sum(axis=0).max() / eps) ** 2 * np.einsum("ij,jk,ik->i", Wm, M, Wm)


# --------------------------------------------------------------------------- exact error
@pytest.mark.parametrize("n", [1, 2, 5, 8, 13, 70])
def test_expected_error_equals_pseudo_inverse_formula(n):
    """n <= 64 is factorised densely, n = 70 through the sparse prefix-basis path: both equal the pseudo-inverse."""
    rng = np.random.default_rng(n)
    works = [wl.identity(n), wl.prefix(n), wl.all_ranges(n), wl.random_ranges(n, 7, rng=3),
             wl.from_matrix(rng.random((3, n)))]
    strats = [np.eye(n), st.hierarchical(n, 2), st.hierarchical(n, 3), st.wavelet(n), st.rescaled_wavelet(n),
              rng.random((n + 2, n))]
    for W in works:
        for A in strats:
            ls = mm.LeastSquares(A)
            b = _brute(W, A, 0.5)
            assert mm.expected_error(W, ls, 0.5) == pytest.approx(b.sum(), rel=1e-8)
            np.testing.assert_allclose(mm.expected_error(W, ls, 0.5, per_query=True), b, rtol=1e-8)


def test_slides_worked_examples_at_n4():
    W = wl.all_ranges(4)
    eps = 0.5
    # Laplace on W directly: 2 (6/eps)^2 = 72/eps^2 per query
    np.testing.assert_allclose(mm.direct_laplace_error(W, eps, per_query=True), 72 / eps**2)
    # Identity: 2 (j - i + 1)/eps^2
    s, e = W.intervals()
    np.testing.assert_allclose(mm.expected_error(W, st.identity(4), eps, per_query=True), 2 * (e - s) / eps**2)
    # hierarchical least-squares estimate of range(x2, x3), slides' order z1 = root, z2, z3, z4..z7 = leaves
    c = mm.query_weights([0, 1, 1, 0], st.hierarchical(4, 2))
    slides_order = c[[6, 4, 5, 0, 1, 2, 3]]
    np.testing.assert_allclose(21 * slides_order, [6, 3, 3, -9, 12, 12, -9], atol=1e-12)
    # Haar wavelet: 0.5 z1 + 0 z2 - 0.5 z3 + 0.5 z4
    np.testing.assert_allclose(mm.query_weights([0, 1, 1, 0], st.wavelet(4)), [0.5, 0, -0.5, 0.5], atol=1e-12)
    # the matrix mechanism with A = W is never worse than Laplace on W (here 4/10 of it)
    assert mm.expected_error(W, W, eps) == pytest.approx(72 / eps**2 * 4)


def test_error_does_not_depend_on_the_data():
    W, A = wl.all_ranges(6), st.hierarchical(6, 2)
    k = 4000
    errs = []
    for x in ([0, 0, 0, 0, 0, 0], [500, 3, 70, 0, 9, 1000]):
        r = mm.run(W, A, x, 1.0, rng=5, size=k)
        errs.append(r.answers - r.truth)
    np.testing.assert_allclose(errs[0], errs[1], atol=1e-9)  # same seed, same noise: errors identical


# --------------------------------------------------------------------------- Monte Carlo
def _quadratic_form_moments(R, scale2, gaussian):
    """Mean and variance of ||R noise||^2 for iid noise of variance scale2 (Laplace or Gaussian)."""
    B = R.T @ R
    if gaussian:
        return scale2 * np.trace(B), 2 * scale2**2 * np.sum(B * B)
    # b ~ Laplace(1): Var = 2, E b^4 = 24; noise = s b with s^2 = scale2 / 2
    s4 = (scale2 / 2) ** 2
    return scale2 * np.trace(B), s4 * (12 * np.sum(np.diag(B) ** 2) + 8 * np.sum(B * B))


@pytest.mark.parametrize("case", range(5))
def test_monte_carlo_total_error_matches_expected_error(case):
    n = 8
    W, A, delta = [
        (wl.all_ranges(n), st.hierarchical(n, 2), None),
        (wl.prefix(n), st.wavelet(n), None),
        (wl.random_ranges(n, 12, rng=1), st.rescaled_wavelet(n), None),
        (wl.all_ranges(n), st.greedy_h(wl.all_ranges(n)), None),
        (wl.all_ranges(n), st.identity(n), 1e-5),
    ][case]
    eps, k = 0.8, 20000
    x = np.arange(n) * 3.0
    r = mm.run(W, A, x, eps, rng=100 + case, size=k, delta=delta)
    T = ((r.answers - r.truth) ** 2).sum(axis=1)
    Am = _dense(A)
    R = _dense(W.matrix()) @ np.linalg.pinv(Am)
    mean, var = _quadratic_form_moments(R, r.noise_variance, delta is not None)
    assert mm.expected_error(W, A, eps, delta=delta) == pytest.approx(mean, rel=1e-9)
    assert abs(T.mean() - mean) <= Z * math.sqrt(var / k)


def test_monte_carlo_per_query_error():
    W, A = wl.all_ranges(6), st.hierarchical(6, 3)
    eps, k = 1.3, 20000
    r = mm.run(W, A, np.ones(6), eps, rng=9, size=k)
    mse = ((r.answers - r.truth) ** 2).mean(axis=0)
    R = _dense(W.matrix()) @ np.linalg.pinv(_dense(A))
    s4 = (r.noise_variance / 2) ** 2
    var = s4 * (12 * (R**4).sum(axis=1) + 8 * (R**2).sum(axis=1) ** 2)
    expect = mm.expected_error(W, A, eps, per_query=True)
    assert np.all(np.abs(mse - expect) <= Z * np.sqrt(var / k))


# --------------------------------------------------------------------------- lower bound
@pytest.mark.parametrize("W", [wl.all_ranges(32), wl.prefix(32), wl.random_ranges(32, 40, rng=2),
                               wl.width_ranges(32, 5), wl.identity(32)])
def test_lower_bound_below_every_strategy(W):
    for delta in (None, 1e-6):
        lb = mm.svd_lower_bound(W, 0.9, delta=delta)
        mech = "laplace" if delta is None else "gaussian"
        for name in st.for_mechanism(mech):
            assert mm.expected_error(W, st.build(name, W, mechanism=mech), 0.9, delta=delta) >= lb * (1 - 1e-9)


def test_lower_bound_forms():
    W = wl.all_ranges(16)
    s = np.linalg.svd(_dense(W.matrix()), compute_uv=False).sum()
    assert mm.svd_lower_bound(W, 0.5) == pytest.approx(2 / 0.25 * s**2 / 16, rel=1e-10)
    from dpviz.mechanisms import gaussian_sigma

    assert mm.svd_lower_bound(W, 0.5, delta=1e-5) == pytest.approx(gaussian_sigma(1, 0.5, 1e-5) ** 2 * s**2 / 16)
    # identity is optimal for the identity workload: bound attained
    bound = mm.svd_lower_bound(wl.identity(10), 2.0)
    assert bound == pytest.approx(mm.expected_error(wl.identity(10), np.eye(10), 2.0))


# --------------------------------------------------------------------------- large n, implicit workloads
def test_implicit_all_ranges_at_4096_without_forming_workload():
    n = 4096
    W = wl.all_ranges(n)
    e_id = mm.expected_error(W, st.identity(n), 1.0)
    # identity: sum over ranges of 2 * width = 2 * sum_w w (n - w + 1)
    w = np.arange(1, n + 1, dtype=float)
    assert e_id == pytest.approx(2 * np.sum(w * (n - w + 1)), rel=1e-9)
    assert mm.expected_error(wl.prefix(n), st.identity(n), 1.0) == pytest.approx(2 * n * (n + 1) / 2, rel=1e-9)
    assert mm.expected_error(wl.identity(n), st.hierarchical(n, 16), 1.0) < mm.expected_error(
        wl.identity(n), st.identity(n), 1.0) * 4**2


def test_workload_as_strategy_and_rank_deficient_strategies():
    M = wl.marginals_2d((3, 4))
    ls = mm.LeastSquares(M.matrix())
    assert ls.rank == 6 and ls.method == "eigh"
    assert mm.expected_error(M, M.matrix(), 1.0) == pytest.approx(2 * 2**2 * 6)
    with pytest.raises(ValueError, match="row space"):
        mm.expected_error(wl.identity(12), M.matrix(), 1.0)
    with pytest.raises(ValueError, match="row space"):
        mm.query_weights(np.eye(12)[0], M.matrix())
    A = np.eye(5)[:4]        # cell 4 never measured
    assert mm.expected_error(wl.from_matrix(np.eye(5)[:2]), A, 1.0) == pytest.approx(4.0)
    with pytest.raises(ValueError, match="cannot answer"):
        mm.expected_error(wl.prefix(5), A, 1.0)
    r = mm.run(wl.all_ranges(6), wl.all_ranges(6), np.arange(6.0), 1.0, rng=0, size=2)
    assert r.answers.shape == (2, 21)


# --------------------------------------------------------------------------- run / reconstruct
def test_reconstruction_is_exact_without_noise_and_vectorised():
    rng = np.random.default_rng(3)
    for A in (st.hierarchical(50, 3), st.wavelet(50), st.greedy_h(wl.prefix(50)), st.eigen_design(wl.prefix(50))):
        ls = mm.LeastSquares(A)
        X = rng.uniform(0, 10, size=(4, 50))
        Y = ls.measure(X)
        np.testing.assert_allclose(ls.estimate(Y), X, atol=1e-8)
        np.testing.assert_allclose(mm.reconstruct(A, Y[1]), X[1], atol=1e-8)


def test_run_shapes_accountant_gaussian_and_nonnegative():
    W, A = wl.all_ranges(8), st.hierarchical(8, 2)
    x = np.arange(8.0)
    acc = PrivacyAccountant(1.0, 1e-5)
    r = mm.run(W, A, x, 0.6, rng=1, accountant=acc)
    assert r.answers.shape == (36,) and r.estimate.shape == (8,) and r.measurements.shape == (15,)
    assert r.mechanism == "laplace" and r.noise_variance == pytest.approx(2 * (4 / 0.6) ** 2)
    with pytest.raises(BudgetExceededError):
        mm.run(W, A, x, 0.6, rng=1, accountant=acc)
    with pytest.raises(BudgetExceededError):  # size=3 is three releases: 3 x 0.4 = 1.2 > the 0.4 left
        mm.run(W, A, x, 0.4, rng=1, size=3, delta=1e-6, accountant=acc)
    assert len(acc.history) == 1
    g = mm.run(W, A, x, 0.2, rng=1, size=2, delta=5e-6, accountant=acc)
    assert g.mechanism == "gaussian" and g.answers.shape == (2, 36)
    assert float(acc.spent.epsilon) == pytest.approx(1.0) and float(acc.spent.delta) == pytest.approx(1e-5)
    nn = mm.run(W, A, np.zeros(8), 0.5, rng=2, size=3, nonnegative=True)
    assert np.all(nn.estimate >= -1e-12)
    ls_est = mm.reconstruct(A, nn.measurements)
    assert np.any(ls_est < 0)   # plain least squares goes negative on an empty histogram
    a = mm.run(W, A, x, 0.5, rng=7, size=2)
    b = mm.run(W, A, x, 0.5, rng=7, size=2)
    np.testing.assert_array_equal(a.answers, b.answers)


def test_bad_inputs_raise_named_errors():
    W, A = wl.all_ranges(8), st.hierarchical(8, 2)
    with pytest.raises(ValueError, match="columns"):
        mm.expected_error(wl.all_ranges(9), A, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        mm.expected_error(W, A, 0.0)
    with pytest.raises(ValueError, match="epsilon"):
        mm.svd_lower_bound(W, -1.0)
    with pytest.raises(ValueError, match="delta"):
        mm.expected_error(W, A, 1.0, delta=1.5)
    with pytest.raises(ValueError, match="x"):
        mm.run(W, A, np.ones(7), 1.0)
    with pytest.raises(ValueError, match="x"):
        mm.run(W, A, -np.ones(8), 1.0)
    with pytest.raises(ValueError, match="size"):
        mm.run(W, A, np.ones(8), 1.0, size=0)
    with pytest.raises(ValueError, match="y"):
        mm.reconstruct(A, np.ones(14))
    with pytest.raises(ValueError, match="A"):
        mm.LeastSquares(np.ones(4))
    with pytest.raises(ValueError, match="all zeros"):
        mm.LeastSquares(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="calibration"):
        mm.run(W, A, np.ones(8), 1.0, delta=1e-5, calibration="fast")
    with pytest.raises(TypeError, match="rng"):
        mm.run(W, A, np.ones(8), 1.0, rng="seed")


@settings(max_examples=30, deadline=None)
@given(eps=hst.one_of(hst.floats(max_value=0.0, allow_nan=False), hst.just(float("nan")), hst.just(float("inf"))))
def test_fuzz_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon"):
        mm.expected_error(wl.prefix(4), np.eye(4), eps)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_expected_error_of_a_random_sparse_strategy_matches_the_pseudo_inverse(seed):
    """A generic sparse strategy (identity plus random 0/1 rows) at n = 150: the structured path for prefix and
    identity workloads must agree with the dense formula (2/eps^2) ||A||_1^2 tr(W (A^T A)^+ W^T) (it used to
    raise KeyError where SuperLU's stored factor lacked part of the filled pattern)."""
    n = 150
    R = sp.random(n // 2, n, density=4 / n, random_state=seed, format="csr")
    R.data[:] = 1.0
    A = sp.vstack([sp.identity(n, format="csr"), R]).tocsr()
    Ad = A.toarray()
    gram_pinv = np.linalg.pinv(Ad.T @ Ad)
    sens = np.abs(Ad).sum(axis=0).max()
    for W in (wl.prefix(n), wl.identity(n)):
        M = W.matrix()
        Wd = M.toarray() if sp.issparse(M) else np.asarray(M)
        exact = 2.0 * sens**2 * np.trace(Wd @ gram_pinv @ Wd.T) / 0.5**2
        assert mm.expected_error(W, A, 0.5) == pytest.approx(exact, rel=1e-9)


# --- issue 13: one accounting rule, checked options, and the SVD bound is a lower bound -----------------------

def test_run_charges_k_epsilon_and_k_delta_for_size_k():
    # size=k draws k independent releases: sequential composition, k * epsilon and k * delta (by hand, exactly)
    W, x = wl.prefix(4), [3, 0, 2, 5]
    acc = PrivacyAccountant(10.0, 1e-3)
    mm.run(W, np.eye(4), x, 0.1, rng=0, size=3, accountant=acc)
    assert acc.history[-1].total_epsilon == Fraction(3, 10) and acc.history[-1].total_delta == 0
    mm.run(W, np.eye(4), x, 0.25, rng=0, size=4, delta=1e-6, accountant=acc)
    assert acc.history[-1].total_epsilon == Fraction(3, 10) + Fraction(1)
    assert acc.history[-1].total_delta == Fraction(4, 10**6)
    mm.run(W, np.eye(4), x, 0.5, rng=0, accountant=acc)   # size=None: one release
    assert acc.history[-1].total_epsilon == Fraction(18, 10)


def test_run_refuses_a_bad_accountant_and_a_refused_spend_records_nothing():
    W, x = wl.prefix(4), [3, 0, 2, 5]
    for bad in ("acc", 3):
        with pytest.raises(TypeError, match="accountant"):
            mm.run(W, np.eye(4), x, 1.0, rng=0, accountant=bad)
    acc = PrivacyAccountant(1.0)
    with pytest.raises(BudgetExceededError):   # 3 x 0.4 = 1.2 > 1
        mm.run(W, np.eye(4), x, 0.4, rng=0, size=3, accountant=acc)
    assert acc.history == [] and acc.spent.epsilon == 0
    with pytest.raises(ValueError, match="size"):   # refused before allocating, and before charging
        mm.run(W, np.eye(4), x, 0.1, rng=0, size=10**12, accountant=acc)
    assert acc.history == []


@pytest.mark.parametrize("calibration", ["nope", "", 3])
def test_unknown_calibration_is_refused(calibration):
    for f in (lambda: mm.noise_variance(np.eye(3), 1.0, delta=1e-5, calibration=calibration),
              lambda: mm.noise_variance(np.eye(3), 1.0, calibration=calibration),
              lambda: mm.expected_error(wl.prefix(3), np.eye(3), 1.0, calibration=calibration),
              lambda: mm.svd_lower_bound(wl.prefix(3), 1.0, calibration=calibration)):
        with pytest.raises((ValueError, TypeError), match="calibration"):
            f()


def test_string_flags_are_not_taken_as_true():
    with pytest.raises(TypeError, match="per_query"):
        mm.expected_error(wl.prefix(3), np.eye(3), 1.0, per_query="no")
    with pytest.raises(TypeError, match="gram"):
        st.eigen_design(wl.prefix(3), gram="no")
    with pytest.raises(TypeError, match="gram"):
        st.greedy_h(wl.prefix(4), gram="no")
    with pytest.raises(TypeError, match="nonnegative"):
        mm.run(wl.prefix(3), np.eye(3), [1, 2, 3], 1.0, rng=0, nonnegative="no")


@pytest.mark.parametrize("delta", [None, 1e-5])
def test_tiny_epsilon_is_a_range_error_not_inf_or_zero_division(delta):
    # (the analytic Gaussian sigma stays finite as epsilon -> 0 with delta > 0; the classic one overflows)
    kw = {"delta": delta, "calibration": "classic"}
    for f in (lambda e: mm.svd_lower_bound(wl.all_ranges(4), e, **kw),
              lambda e: mm.noise_variance(np.eye(4), e, **kw),
              lambda e: mm.expected_error(wl.all_ranges(4), np.eye(4), e, **kw)):
        with pytest.raises(ValueError, match="epsilon"):
            f(1e-300)


def test_svd_bound_is_a_lower_bound_not_attained_for_all_ranges_at_n8():
    """All ranges at n = 8: every strategy's error is above the SVD bound (a dual certificate), and the best one
    is within 0.03 % of the certificate (an explicit strategy), so the bound is not tight here.

    For A with L2 sensitivity <= 1 (X = A^T A, X_jj <= 1) and any weights d >= 0 with sum 1, Hoelder's inequality
    gives tr(G X^-1) >= tr(D X) tr(G X^-1) >= ||G^1/2 D^1/2||_*^2; d uniform is the SVD bound. A non-uniform d
    proves a larger lower bound; X = D^-1/2 (D^1/2 G D^1/2)^1/2 D^-1/2 (scaled) nearly attains it.
    All dense, with numpy/scipy only; dpviz is used only for the bound under test.
    """
    from scipy.linalg import sqrtm

    n, eps = 8, 1.0
    Wd = np.array([[1.0 if i <= c <= j else 0.0 for c in range(n)] for i in range(n) for j in range(i, n)])
    G = Wd.T @ Wd
    unit = 2.0 / eps**2   # Laplace variance at sensitivity 1; L1 sensitivity >= L2 so Laplace errors are larger

    def certificate(d):
        d = np.asarray(d, dtype=float) / np.sum(d)
        return unit * np.linalg.svd(sqrtm(G).real * np.sqrt(d)[None, :], compute_uv=False).sum() ** 2

    bound = mm.svd_lower_bound(wl.all_ranges(n), eps)
    assert bound == pytest.approx(certificate(np.ones(n)), rel=1e-12)
    assert bound == pytest.approx(unit * np.linalg.svd(Wd, compute_uv=False).sum() ** 2 / n, rel=1e-12)
    d = np.array([0.07625, 0.1206, 0.1457, 0.1574, 0.1574, 0.1457, 0.1206, 0.07625])
    lower = certificate(d)   # every strategy's error is >= this
    X = np.diag(d**-0.5) @ sqrtm(np.diag(d**0.5) @ G @ np.diag(d**0.5)).real @ np.diag(d**-0.5)
    A = sqrtm(X / np.diag(X).max()).real
    best = unit * (A * A).sum(axis=0).max() * np.trace(G @ np.linalg.inv(A.T @ A))   # L2 sensitivity squared
    assert lower <= best <= lower * 1.0003
    assert lower > bound * 1.015   # 160.93 vs 158.34: the bound is not attained by any strategy
    assert best == pytest.approx(160.93, abs=0.05) and bound == pytest.approx(158.34, abs=0.01)


def test_a_cache_shared_across_workloads_gives_each_workload_its_own_errors():
    """Fixed strategies are cached by domain size and shared across workloads; adaptive ones (built from the
    workload's queries) must not be: one cache visited by every workload gives the totals of a fresh computation."""
    from dpviz.experiments.matrix_mechanism import compare_strategies

    shared: dict = {}
    for name in wl.WORKLOADS:
        W = wl.build(name, 16)
        warm = compare_strategies(W, 0.7, cache=shared)
        fresh = compare_strategies(W, 0.7)
        np.testing.assert_allclose(warm.total_error, fresh.total_error, rtol=1e-12)
    fixed = [k for k in shared if k[0] == "ls" and k[1] not in st.ADAPTIVE]
    assert fixed and all(k[2] == ("n", 16) for k in fixed)   # one factorisation per fixed strategy, not per workload
    assert {k[1] for k in fixed} == {"identity", "hierarchical_2", "hierarchical_4", "hierarchical_16", "wavelet",
                                     "rescaled_wavelet"}


@pytest.mark.parametrize("n", [16, 100])
def test_estimate_without_keeping_the_reconstruction_matrix_equals_the_pseudo_inverse(n):
    """keep=False (a strategy used once: solve for these answers only) and keep=True (build R = (A^T A)^+ A^T)
    give the dense pseudo-inverse estimate, on the dense (n = 16) and the sparse prefix-basis (n = 100) paths."""
    A = st.hierarchical(n, 2)
    y = np.random.default_rng(n).laplace(size=(3, A.shape[0]))
    Ad = A.toarray()
    dense = y @ np.linalg.pinv(Ad).T
    once = mm.LeastSquares(A).estimate(y, keep=False)
    kept = mm.LeastSquares(A).estimate(y)
    np.testing.assert_allclose(once, dense, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(kept, dense, rtol=1e-9, atol=1e-9)
    with pytest.raises(TypeError, match="keep"):
        mm.LeastSquares(A).estimate(y, keep="no")


@pytest.mark.parametrize("n", [16, 64])
def test_a_badly_scaled_small_strategy_keeps_every_cell(n):
    """Weights spanning 1e7: A^T A has no well-conditioned Cholesky factor, so a small sparse strategy must not
    be sent to the dense pseudo-inverse (which drops the small eigenvalues and, with them, cells)."""
    A = sp.diags_array(np.logspace(0, -7, n)).tocsr()
    x = np.arange(float(n))
    np.testing.assert_allclose(mm.reconstruct(A, A @ x), x, rtol=1e-6, atol=1e-6)
    assert mm.LeastSquares(A).rank == n
    exact = 2.0 * np.sum(1.0 / np.logspace(0, -7, n) ** 2) / 0.5**2   # ||A||_1 = 1, (A^T A)^-1 = diag(1/w^2)
    assert mm.expected_error(wl.identity(n), A, 0.5) == pytest.approx(exact, rel=1e-6)


def test_the_explorer_figure_refuses_what_is_not_a_run():
    from dpviz.plots.matrix_mechanism import matrix_mechanism_figure, matrix_mechanism_figure_spec

    for draw in (matrix_mechanism_figure, matrix_mechanism_figure_spec):
        with pytest.raises(TypeError, match="run must be a MatrixMechanismRun"):
            draw(None)
