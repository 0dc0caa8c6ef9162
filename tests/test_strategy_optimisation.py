"""Optimised strategies: p-Identity (HDMM) and weighted marginals, their exact errors and their optimiser.

Every error the optimisers work with is checked against a dense pseudo-inverse computation on small
domains, with the sensitivity computed from the returned matrix (never assumed); gradients against
central finite differences; the strategies against Identity on every workload tested; and the p-Identity
optimiser against a dense re-run of HDMM's own recipe (benchmarks/hdmm_reference.py).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from benchmarks.hdmm_reference import reference_p_identity
from dpviz import matrix_mechanism as mm
from dpviz import strategies as st
from dpviz import workloads as wl
from dpviz.strategies.gram import _gram_rows, _semiseparable
from dpviz.strategies.p_identity_template import _gram_operator, _objective, _unit_scaled
from dpviz.strategies.projected_lbfgs import _compact_coefficients, _minimize
from dpviz.strategies.weighted_marginals import _error_and_gradient, _tables


def _dense(A) -> np.ndarray:
    return A.toarray() if sp.issparse(A) else np.asarray(A, dtype=float)


def _dense_total(W: wl.Workload, A, norm: str) -> float:
    """``||A||^2 tr(W^T W pinv(A^T A))`` from dense matrices, the sensitivity read off A's columns."""
    Ad = _dense(A)
    Wd = _dense(W.matrix())
    sens = np.abs(Ad).sum(axis=0).max() ** 2 if norm == "l1" else (Ad * Ad).sum(axis=0).max()
    return float(sens * np.trace(Wd.T @ Wd @ np.linalg.pinv(Ad.T @ Ad)))


SMALL = [wl.prefix(24), wl.all_ranges(24), wl.width_ranges(24, 5), wl.random_ranges(24, 9, rng=3),
         wl.all_ranges_2d((4, 5)), wl.marginals((2, 3, 4), 1)]


# --------------------------------------------------------------------------- the structured Gram product
@pytest.mark.parametrize("W", SMALL + [wl.identity(7)], ids=lambda W: W.name)
def test_gram_matmul_equals_the_dense_gram_product(W):
    V = np.random.default_rng(0).standard_normal((W.n, 3))
    G = _dense(W.matrix()).T @ _dense(W.matrix())
    np.testing.assert_allclose(W.gram_matmul(V), G @ V, rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(W.gram_matmul(V[:, 1]), G @ V[:, 1], rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(W.gram_matmul(np.asfortranarray(V)), G @ V, rtol=1e-12, atol=1e-10)
    with pytest.raises(ValueError, match="rows"):
        W.gram_matmul(np.ones((W.n + 1, 2)))


@pytest.mark.parametrize("W", [wl.prefix(1), wl.prefix(9), wl.all_ranges(1), wl.all_ranges(10)], ids=str)
def test_semiseparable_gram_rows_equal_the_dense_gram_matrix(W):
    alpha, c, beta, e = _semiseparable(W)
    a, b = np.meshgrid(np.arange(W.n), np.arange(W.n), indexing="ij")
    np.testing.assert_array_equal(np.where(b <= a, alpha[a] * c[b], beta[a] * e[b]), W.gram())
    gen = np.random.default_rng(2)
    V, s = gen.standard_normal((3, W.n)), gen.uniform(0.5, 2.0, W.n)
    out, work = np.empty((3, W.n)), np.empty((3, W.n))
    G = W.gram()
    np.testing.assert_allclose(_gram_rows((alpha, c, beta, e), V, s, out, work), (V * s) @ G * s,
                               rtol=1e-12, atol=1e-12 * np.abs(G).max())
    assert _semiseparable(wl.width_ranges(9, 3)) is None and _semiseparable(W.gram()) is None


# --------------------------------------------------------------------------- p-Identity
@pytest.mark.parametrize("norm", ["l1", "l2"])
@pytest.mark.parametrize("W", SMALL[:4], ids=lambda W: W.name)
def test_p_identity_error_and_gradient_equal_dense_and_finite_differences(W, norm):
    n, apply, diag = _gram_operator(W, False)
    p = 3
    fg = _objective(apply, diag, n, p, norm)
    gen = np.random.default_rng(1)
    x = gen.random(p * n) * (1.0 if norm == "l1" else gen.choice([-1.0, 1.0], size=p * n))
    f, g = fg(x)
    theta = x.reshape(p, n)
    A = np.vstack([np.eye(n), theta])
    A /= np.abs(A).sum(axis=0) if norm == "l1" else np.sqrt((A * A).sum(axis=0))
    assert f == pytest.approx(_dense_total(W, A, norm), rel=1e-11)
    h = 1e-6
    numeric = np.array([(fg(x + h * e)[0] - fg(x - h * e)[0]) / (2 * h) for e in np.eye(p * n)])
    assert np.max(np.abs(numeric - g)) <= 1e-6 * np.max(np.abs(g))


@pytest.mark.parametrize("norm", ["l1", "l2"])
@pytest.mark.parametrize("W", SMALL[:2], ids=lambda W: W.name)
def test_p_identity_objective_from_running_sums_equals_the_generic_one(W, norm):
    n, apply, raw = _gram_operator(W, False)
    apply, diag = _unit_scaled(apply, raw)
    alpha, c, beta, e = _semiseparable(W)
    factors = (alpha / raw.max(), c, beta / raw.max(), e)
    gen = np.random.default_rng(4)
    for p in (1, 5):
        x = gen.random(p * n) * (1.0 if norm == "l1" else gen.choice([-1.0, 1.0], size=p * n))
        fast, generic = _objective(apply, diag, n, p, norm, factors=factors), _objective(apply, diag, n, p, norm)
        (f1, g1), (f2, g2) = fast(x), generic(x)
        assert f1 == pytest.approx(f2, rel=1e-12)
        np.testing.assert_allclose(g1, g2, rtol=1e-10, atol=1e-12 * np.abs(g2).max())
        assert fast(x)[1] is not g1                              # a new gradient array per call


@pytest.mark.parametrize("norm", ["l1", "l2"])
@pytest.mark.parametrize("W", SMALL, ids=lambda W: W.name)
def test_p_identity_is_a_valid_strategy_never_worse_than_identity(W, norm):
    A = st.p_identity(W, norm=norm, rng=0)
    Ad = _dense(A)
    cols = np.abs(Ad).sum(axis=0) if norm == "l1" else np.sqrt((Ad * Ad).sum(axis=0))
    np.testing.assert_allclose(cols, 1.0, rtol=1e-12)          # every column at sensitivity 1, computed
    if norm == "l1":
        assert Ad.min() >= 0.0
    assert np.linalg.matrix_rank(Ad) == W.n                     # answers every query
    delta = None if norm == "l1" else 1e-6
    err = mm.expected_error(W, A, 1.0, delta=delta)
    unit = mm.noise_variance(A, 1.0, delta=delta)
    assert err == pytest.approx(unit * _dense_total(W, A, norm) / cols.max() ** 2, rel=1e-9)
    assert err <= mm.expected_error(W, np.eye(W.n), 1.0, delta=delta) * (1 + 1e-12)


def test_p_identity_matches_hdmm_recipe_on_all_ranges_and_prefixes():
    """Against the dense re-run of HDMM's recipe (L-BFGS-B from U(0,1), ftol 1e-4, p = n/16) at n = 256."""
    for W in (wl.all_ranges(256), wl.prefix(256)):
        ref, _ = reference_p_identity(W.gram(), 16, seed=0)
        ours = mm.LeastSquares(st.p_identity(W, rng=0)).variances(W)
        assert ours <= 1.05 * ref, (W.name, ours / ref)


def test_p_identity_is_seeded_and_accepts_a_gram_matrix():
    W = wl.prefix(40)
    np.testing.assert_array_equal(_dense(st.p_identity(W, rng=5)), _dense(st.p_identity(W, rng=5)))
    A = st.p_identity(W.gram(), gram=True, rng=5, p=2)
    B = st.p_identity(W, rng=5, p=2)
    np.testing.assert_allclose(_dense(A), _dense(B), rtol=1e-9, atol=1e-12)
    M = st.p_identity(W.matrix(), rng=5, p=2)                   # a plain sparse matrix is wrapped
    np.testing.assert_allclose(_dense(M), _dense(B), rtol=1e-9, atol=1e-12)


def test_p_identity_ignores_the_scale_of_w():
    """Entries of 1e200 overflow W^T W; the optimum does not depend on the scale, so the answer must not either."""
    base = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]])
    ref = mm.expected_error(base, st.p_identity(base, rng=3, p=2), 1.0)
    for scale in (1e-150, 1e150, 1e200):
        A = st.p_identity(base * scale, rng=3, p=2)
        assert mm.expected_error(base, A, 1.0) == pytest.approx(ref, rel=1e-6)
        assert mm.expected_error(base, A, 1.0) <= mm.expected_error(base, np.eye(4), 1.0) * (1 + 1e-12)


def test_p_identity_refuses_bad_arguments_by_name():
    W = wl.prefix(16)
    with pytest.raises(ValueError, match="norm"):
        st.p_identity(W, norm="l3")
    with pytest.raises(ValueError, match="p"):
        st.p_identity(W, p=17)
    with pytest.raises(TypeError, match="p"):
        st.p_identity(W, p=2.5)
    with pytest.raises(ValueError, match="max_iter"):
        st.p_identity(W, max_iter=0)
    with pytest.raises(ValueError, match="tol"):
        st.p_identity(W, tol=-1.0)
    with pytest.raises(TypeError, match="gram"):
        st.p_identity(W, gram="yes")
    with pytest.raises(ValueError, match="symmetric"):
        st.p_identity(np.triu(np.ones((4, 4))), gram=True)
    with pytest.raises(ValueError, match="square"):
        st.p_identity(np.ones((3, 4)), gram=True)
    for indefinite in (-np.eye(2), np.array([[1.0, 2.0], [2.0, 1.0]])):   # no W has these as W^T W
        with pytest.raises(ValueError, match="positive semi-definite"):
            st.p_identity(indefinite, gram=True)
    with pytest.raises(TypeError, match="not a Workload"):
        st.p_identity(W, gram=True)
    with pytest.raises(ValueError, match="elements"):
        st.p_identity(wl.all_ranges(10**9))                   # refused before the n-length diagonal is built
    with pytest.raises(ValueError, match="elements"):
        wl.all_ranges(20_000).gram()
    with pytest.raises(ValueError, match="elements"):
        st.p_identity(wl.prefix(2**20), p=2**16)
    with pytest.raises(ValueError, match="norm"):
        st.default_p(64, "linf")


# --------------------------------------------------------------------------- weighted marginals
@pytest.mark.parametrize("norm", ["l1", "l2"])
@pytest.mark.parametrize("shape,order", [((2, 3), 1), ((3, 2, 4), 2), ((2, 2, 3), [[0, 1], [2]]),
                                         ((2, 3, 2), 3), ((4, 3), 0)])
def test_marginals_closed_form_and_gradient_equal_dense_and_finite_differences(shape, order, norm):
    W = wl.marginals(shape, order)
    d = len(shape)
    theta = np.random.default_rng(2).random(1 << d)
    A = np.vstack([theta[m] * wl.marginal_matrix(shape, [i for i in range(d) if m >> i & 1]).toarray()
                   for m in range(1 << d)])
    assert st.marginals_error(W, theta, norm=norm) == pytest.approx(_dense_total(W, A, norm), rel=1e-11)
    _, c, needed, mu_r = _tables(W)
    _, g = _error_and_gradient(theta, d, c, needed, mu_r, norm)
    h = 1e-7
    numeric = np.array([(_error_and_gradient(theta + h * e, d, c, needed, mu_r, norm)[0]
                         - _error_and_gradient(theta - h * e, d, c, needed, mu_r, norm)[0]) / (2 * h)
                        for e in np.eye(1 << d)])
    assert np.max(np.abs(numeric - g)) <= 1e-5 * np.max(np.abs(g))


@pytest.mark.parametrize("norm", ["l1", "l2"])
@pytest.mark.parametrize("shape,order", [((3, 4, 2), 1), ((3, 3, 3), 2), ((2, 2, 2, 2), 2), ((4, 5), 1)])
def test_marginal_strategy_valid_and_never_worse_than_identity_or_the_workload(shape, order, norm):
    W = wl.marginals(shape, order)
    A = st.marginal_strategy(W, norm=norm, rng=0)
    Ad = _dense(A)
    cols = np.abs(Ad).sum(axis=0) if norm == "l1" else np.sqrt((Ad * Ad).sum(axis=0))
    np.testing.assert_allclose(cols, 1.0, rtol=1e-12)
    delta = None if norm == "l1" else 1e-6
    err = mm.expected_error(W, A, 1.0, delta=delta)
    unit = mm.noise_variance(A, 1.0, delta=delta)
    assert err == pytest.approx(unit * _dense_total(W, A, norm), rel=1e-9)
    scale = np.abs(_dense(W.matrix())).sum(axis=0).max() if norm == "l1" else np.sqrt(W.coverage().max())
    for other in (np.eye(W.n), _dense(W.matrix()) / scale):
        assert err <= mm.expected_error(W, other, 1.0, delta=delta) * (1 + 1e-9)


def test_marginal_strategy_recovers_the_known_optimum_of_one_way_marginals_under_l2():
    """Under L2 the optimal weights of d one-way marginals of equal sizes are equal (symmetry + convexity in
    theta^2), and measuring the workload itself is optimal: the optimiser must find exactly that."""
    W = wl.marginals((5, 5, 5), 1)
    theta = st.marginal_weights(W, norm="l2", rng=1)
    ones = np.zeros(8)
    ones[[1, 2, 4]] = 1.0 / np.sqrt(3)
    assert st.marginals_error(W, theta, norm="l2") == pytest.approx(st.marginals_error(W, ones, norm="l2"),
                                                                    rel=1e-9)


def test_marginals_refuse_bad_arguments_by_name():
    W = wl.marginals((2, 3), 1)
    with pytest.raises(TypeError, match="marginal workload"):
        st.marginal_strategy(wl.prefix(6))
    with pytest.raises(ValueError, match="theta"):
        st.marginals_error(W, [1.0, 2.0])
    with pytest.raises(ValueError, match="theta"):
        st.marginals_error(W, [0.0, -1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="norm"):
        st.marginal_weights(W, norm="l0")
    with pytest.raises(ValueError, match="restarts"):
        st.marginal_weights(W, restarts=-1)
    with pytest.raises(ValueError, match="shape"):
        wl.marginals((), 1)
    with pytest.raises(ValueError, match="order"):
        wl.marginals((2, 3), 3)
    with pytest.raises(ValueError, match="repeats"):
        wl.marginals((2, 3), [[0, 0]])
    with pytest.raises(ValueError, match="order"):
        wl.marginals((2, 3), [[0, 2]])
    with pytest.raises(TypeError, match="shape"):
        wl.marginals((2, 3.5), 1)


def test_marginals_workload_counts_what_it_says():
    x = np.arange(24.0)
    W = wl.marginals((2, 3, 4), [[0], [1, 2]])
    table = x.reshape(2, 3, 4)
    np.testing.assert_allclose(W.answer(x), np.concatenate([table.sum(axis=(1, 2)), table.sum(axis=0).ravel()]))
    one_way = wl.marginals((3, 4), 1).matrix().toarray()
    np.testing.assert_array_equal(one_way, wl.marginals_2d((3, 4)).matrix().toarray())


# --------------------------------------------------------------------------- the optimiser
def test_projected_lbfgs_solves_a_bound_constrained_quadratic():
    """min sum w_i (x_i - c_i)^2 over 0 <= x <= 1/2 is clip(c, 0, 1/2); without the bounds it is c."""
    gen = np.random.default_rng(3)
    c, w = gen.standard_normal(500), gen.uniform(1.0, 50.0, 500)

    def fg(x):
        return float(np.sum(w * (x - c) ** 2)), 2.0 * w * (x - c)

    best = float(np.sum(w * (np.clip(c, 0.0, 0.5) - c) ** 2))
    res = _minimize(fg, np.abs(gen.standard_normal(500)), lower=0.0, upper=0.5, max_iter=500, tol=1e-15)
    assert res.value == pytest.approx(best, rel=1e-12)
    np.testing.assert_allclose(res.x, np.clip(c, 0.0, 0.5), atol=1e-4)
    assert np.all(np.diff(res.history) < 0)                     # every accepted step lowers the value
    free = _minimize(fg, np.zeros(500), lower=-np.inf, upper=np.inf, max_iter=500, tol=1e-15)
    assert free.value <= 1e-16 * float(np.sum(w * c * c))
    np.testing.assert_allclose(free.x, c, atol=1e-6)


@pytest.mark.parametrize("window", [1, 10])
def test_projected_lbfgs_stops_when_the_last_window_gained_less_than_tol_per_iteration(window):
    """The stopping rule read off the returned history: the last ``window`` iterations gained less than
    ``window * tol`` (relative), the ``window`` before the last one did not (else it would have stopped)."""
    gen = np.random.default_rng(5)
    w = np.geomspace(1.0, 1e4, 300)                             # ill-conditioned: many slow iterations
    c = gen.standard_normal(300)

    def fg(x):
        return float(np.sum(w * (x - c) ** 2)) + 1.0, 2.0 * w * (x - c)

    tol = 1e-4
    res = _minimize(fg, np.zeros(300), lower=-np.inf, upper=np.inf, max_iter=10_000, tol=tol, window=window)
    h = res.history
    assert res.iterations == h.size - 1 < 10_000
    assert (h[-1 - window] - h[-1]) / h[-1 - window] < window * tol
    assert (h[-2 - window] - h[-2]) / h[-2 - window] >= window * tol


def test_p_identity_l2_stops_early_within_a_tiny_fraction_of_the_long_run():
    """The default tolerance stops the L2 optimisation when more iterations would gain under 1e-3 of the error
    (dense pseudo-inverse error of both strategies, sensitivity read off the matrices)."""
    W = wl.all_ranges(128)
    early = _dense_total(W, st.p_identity(W, norm="l2", rng=1), "l2")
    long = _dense_total(W, st.p_identity(W, norm="l2", rng=1, tol=1e-14), "l2")
    assert long <= early <= long * (1 + 1e-3)


def _two_loop(S: np.ndarray, Y: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``H q`` by the two-loop recursion [Nocedal & Wright, Alg. 7.4], pairs oldest first."""
    q, alphas = q.copy(), []
    for s, y in zip(S[::-1], Y[::-1], strict=True):
        alphas.append((s @ q) / (s @ y))
        q -= alphas[-1] * y
    q *= (S[-1] @ Y[-1]) / (Y[-1] @ Y[-1])
    for s, y, a in zip(S, Y, alphas[::-1], strict=True):
        q += s * (a - (y @ q) / (s @ y))
    return q


def _dense_bfgs(S: np.ndarray, Y: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``H q`` with H built densely by the BFGS update ``H <- V^T H V + rho s s^T`` from ``gamma I``."""
    n = q.size
    H = (S[-1] @ Y[-1]) / (Y[-1] @ Y[-1]) * np.eye(n)
    for s, y in zip(S, Y, strict=True):
        rho = 1.0 / (s @ y)
        V = np.eye(n) - rho * np.outer(y, s)
        H = V.T @ H @ V + rho * np.outer(s, s)
    return H @ q


@pytest.mark.parametrize("used", [1, 3, 5])
def test_compact_direction_equals_the_two_loop_recursion_and_dense_bfgs(used):
    """The compact form [BNS94] with pairs in scrambled memory slots gives the same H q to 1e-10."""
    gen = np.random.default_rng(used)
    n, memory = 30, 5
    B = gen.standard_normal((n, n))
    A = B @ B.T + n * np.eye(n)                                  # pairs of a convex quadratic: s^T y > 0
    S_slots = gen.standard_normal((memory, n))
    Y_slots = S_slots @ A + 0.1 * gen.standard_normal((memory, n))
    pairs = [int(k) for k in gen.permutation(memory)[:used]]    # slots in use, oldest first
    S, Y = S_slots[pairs], Y_slots[pairs]
    assert np.all(np.einsum("ij,ij->i", S, Y) > 0)
    q = gen.standard_normal(n)
    gamma, cs, cy = _compact_coefficients(S_slots @ Y_slots.T, Y_slots @ Y_slots.T, pairs, S_slots @ q, Y_slots @ q)
    compact = gamma * q + cs @ S_slots + cy @ Y_slots
    unused = np.setdiff1d(np.arange(memory), pairs)
    assert np.all(cs[unused] == 0.0) and np.all(cy[unused] == 0.0)
    scale = np.abs(compact).max()
    assert np.abs(compact - _two_loop(S, Y, q)).max() <= 1e-10 * scale
    assert np.abs(compact - _dense_bfgs(S, Y, q)).max() <= 1e-10 * scale


def test_marginals_error_ignores_the_scale_of_the_weights():
    """The error of weighted marginals does not depend on the weights' scale: 1e-155 gave inf ("cannot answer W")
    and 1e155 an OverflowError."""
    W = wl.marginals((3, 3, 3), 2)
    ref = st.marginals_error(W, np.ones(8))
    for scale in (1e-155, 1e155):
        assert st.marginals_error(W, np.full(8, scale)) == pytest.approx(ref, rel=1e-12)
