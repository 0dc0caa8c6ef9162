"""Tests for dpviz.data_aware: exact budgets, exact exponential-mechanism sampling, learning, partitions, bad input."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import Z
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz import data_aware as D
from dpviz.accountant import BudgetExceededError, PrivacyAccountant


def _prefix(n):
    return np.zeros(n, dtype=np.int64), np.arange(1, n + 1)


def _prefix_rmse(est, x):
    """Per-run root mean squared error over the prefix workload, est of shape (..., n)."""
    return np.sqrt(np.mean((np.cumsum(est, axis=-1) - np.cumsum(x)) ** 2, axis=-1))


def _ledger_sum(acc):
    return sum((r.epsilon for r in acc.history), Fraction(0))


# --------------------------------------------------------------------------- budgets
@pytest.mark.parametrize("epsilon", [0.3, 1.0, 0.07])
def test_every_algorithm_spends_exactly_epsilon(epsilon):
    x = np.arange(37) % 5
    cases = {
        "uniform": lambda acc: D.uniform(x, epsilon, rng=0, accountant=acc),
        "mwem": lambda acc: D.mwem(x, _prefix(37), epsilon, rounds=7, selection_share=0.3, rng=0, accountant=acc),
        "mwem public total": lambda acc: D.mwem(x, _prefix(37), epsilon, rounds=3, total=float(x.sum()), rng=0,
                                                accountant=acc),
        "partition": lambda acc: D.private_partition(x, epsilon, rng=0, accountant=acc),
        "dawa": lambda acc: D.dawa(x, epsilon, partition_share=0.3, rng=0, accountant=acc),
        "dawa identity": lambda acc: D.dawa(x, epsilon, strategy="identity", rng=0, accountant=acc),
    }
    for name, run in cases.items():
        acc = PrivacyAccountant(epsilon)
        run(acc)
        assert _ledger_sum(acc) == Fraction(repr(epsilon)), name
        assert acc.remaining.epsilon == 0.0, name


def test_mwem_ledger_stages():
    acc = PrivacyAccountant(10.0)
    res = D.mwem(np.ones(16), _prefix(16), 1.0, rounds=4, selection_share=0.25, total_share=0.2, rng=0,
                 accountant=acc)
    rows = acc.history
    assert len(rows) == 1 + 2 * 4
    assert rows[0].epsilon == Fraction(1, 5) and "total" in rows[0].label
    assert all(r.epsilon == Fraction(1, 20) for r in rows[1::2]) and "select" in rows[1].label
    assert all(r.epsilon == Fraction(3, 20) for r in rows[2::2]) and "measure" in rows[2].label
    assert res.epsilon_total == 0.2 and res.epsilon_select == 0.05 and res.epsilon_measure == pytest.approx(0.15)


def test_dawa_ledger_stages():
    acc = PrivacyAccountant(1.0)
    res = D.dawa(np.ones(16), 1.0, partition_share=0.25, rng=0, accountant=acc)
    assert [r.epsilon for r in acc.history] == [Fraction(1, 4), Fraction(3, 4)]
    assert "partition" in acc.history[0].label and "stage 2" in acc.history[1].label
    assert (res.epsilon_partition, res.epsilon_measure) == (0.25, 0.75)


@pytest.mark.parametrize("algo", ["uniform", "mwem", "partition", "dawa"])
def test_budget_refused_up_front_records_nothing(algo):
    acc = PrivacyAccountant(1.0)
    acc.spend(0.5, label="earlier")
    x = np.ones(8)
    with pytest.raises(BudgetExceededError):
        if algo == "uniform":
            D.uniform(x, 0.6, accountant=acc)
        elif algo == "mwem":
            D.mwem(x, _prefix(8), 0.6, accountant=acc)
        elif algo == "partition":
            D.private_partition(x, 0.6, accountant=acc)
        else:
            D.dawa(x, 0.6, accountant=acc)
    assert len(acc.history) == 1


# one accounting rule: size=k independent runs are k mechanisms (sequential composition, k * epsilon)
_SIZED = {
    "uniform": lambda x, eps, k, acc: D.uniform(x, eps, rng=0, size=k, accountant=acc),
    "mwem": lambda x, eps, k, acc: D.mwem(x, _prefix(x.size), eps, rounds=3, rng=0, size=k, accountant=acc),
    "mwem public total": lambda x, eps, k, acc: D.mwem(x, _prefix(x.size), eps, rounds=2, total=9.0, rng=0,
                                                       size=k, accountant=acc),
    "partition": lambda x, eps, k, acc: D.private_partition(x, eps, rng=0, size=k, accountant=acc),
    "dawa": lambda x, eps, k, acc: D.dawa(x, eps, rng=0, size=k, accountant=acc),
    "dawa identity": lambda x, eps, k, acc: D.dawa(x, eps, strategy="identity", rng=0, size=k, accountant=acc),
}


@pytest.mark.parametrize("name", list(_SIZED))
@pytest.mark.parametrize("k", [1, 5])
def test_size_k_charges_k_epsilon(name, k):
    x = np.arange(12) % 4 + 1.0
    acc = PrivacyAccountant(100.0)
    _SIZED[name](x, 0.3, k, acc)
    assert _ledger_sum(acc) == k * Fraction(3, 10), name  # by hand: k runs of 0.3 each
    assert acc.spent.epsilon == pytest.approx(0.3 * k)


@pytest.mark.parametrize("name", list(_SIZED))
def test_size_k_refused_records_nothing(name):
    x = np.arange(12) % 4 + 1.0
    acc = PrivacyAccountant(1.0)
    acc.spend(0.1, label="earlier")
    with pytest.raises(BudgetExceededError):
        _SIZED[name](x, 0.3, 4, acc)  # 4 x 0.3 = 1.2 > 0.9 left, although one run (0.3) would fit
    assert len(acc.history) == 1 and acc.spent.epsilon == pytest.approx(0.1)


@pytest.mark.parametrize("name", list(_SIZED))
@pytest.mark.parametrize("bad", ["acc", 3])
def test_accountant_type_checked(name, bad):
    with pytest.raises(TypeError, match="accountant"):
        _SIZED[name](np.ones(8), 0.3, None, bad)


def test_mwem_sized_ledger_rows_say_how_many_runs():
    acc = PrivacyAccountant(10.0)
    D.mwem(np.ones(8), _prefix(8), 1.0, rounds=2, total_share=0.2, rng=0, size=4, accountant=acc)
    # by hand: total 0.2, each of 2 rounds 0.4 = 0.2 select + 0.2 measure; 4 runs
    assert [r.epsilon for r in acc.history] == [Fraction(4, 5)] * 5
    assert all(r.label.endswith(" x4") for r in acc.history)


@pytest.mark.parametrize("kwargs, names", [
    ({"rounds": 10**15}, ["rounds"]),
    ({"rounds": 10**5}, ["rounds"]),
    ({"passes": 10**9}, ["passes"]),
    ({"size": 10**12}, ["size"]),
    ({"rounds": 3000, "keep_history": True}, ["rounds"]),
])
def test_mwem_refuses_runs_too_large_up_front(kwargs, names):
    import time

    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="|".join(names)):
        D.mwem(np.ones(64), _prefix(64), 1.0, rng=0, **kwargs)
    assert time.perf_counter() - t0 < 1.0


@pytest.mark.parametrize("bad", ["no", "", 1, 0, None])
def test_mwem_keep_history_must_be_a_bool(bad):
    with pytest.raises(TypeError, match="keep_history"):
        D.mwem(np.ones(8), _prefix(8), 1.0, keep_history=bad)


# --------------------------------------------------------------------------- Uniform
def test_uniform_is_noisy_total_spread_evenly():
    x = np.array([3.0, 0, 9, 4])
    out = D.uniform(x, 0.5, rng=1, size=20000)
    assert np.allclose(out, out[:, :1])
    total = out[:, 0] * 4
    v = 2 / 0.5**2  # Laplace variance 2 b^2, b = 1/epsilon
    assert abs(total.mean() - 16) < Z * math.sqrt(v / total.size)
    assert abs(total.var(ddof=1) - v) < Z * math.sqrt(20) * (v / 2) / math.sqrt(total.size)  # m4 = 24 b^4


# --------------------------------------------------------------------------- MWEM
def test_mwem_selection_is_the_exponential_mechanism():
    x = np.array([0, 0, 12, 0, 0, 3, 0, 1.0])
    starts = np.array([0, 0, 2, 4, 6])
    stops = np.array([2, 4, 3, 8, 8])
    eps = 0.6
    k = 20000
    res = D.mwem(x, (starts, stops), eps, rounds=1, total=16.0, passes=1, rng=3, size=k)
    A0 = np.full(8, 2.0)
    P0 = np.concatenate([[0], np.cumsum(A0)])
    Px = np.concatenate([[0], np.cumsum(x)])
    score = np.abs((P0[stops] - P0[starts]) - (Px[stops] - Px[starts]))
    w = np.exp(0.5 * eps * score / 2)
    p = w / w.sum()
    freq = np.bincount(res.selected[:, 0], minlength=5) / k
    assert np.all(np.abs(freq - p) < Z * np.sqrt(p * (1 - p) / k)), (freq, p)
    # the measurement is Laplace with scale 1/eps_m around the selected query's true answer
    truth = (Px[stops] - Px[starts])[res.selected[:, 0]]
    noise = res.measurements[:, 0] - truth
    b = 1 / (0.5 * eps)
    assert abs(noise.mean()) < Z * math.sqrt(2 * b * b / k)
    assert abs(noise.var(ddof=1) - 2 * b * b) < Z * math.sqrt(20) * b * b / math.sqrt(k)
    # the exact distribution MWEM samples from, as dpviz gives it to the lectures
    assert np.allclose(D.selection_probabilities(x, (starts, stops), res.epsilon_select, A0), p, rtol=1e-12)


def test_selection_probabilities_by_hand_and_by_mwems_sampler_on_a_matrix_workload():
    # lecture 08's example (80 records, the 8 prefixes, public total), one round: eps_s = eps / 2
    x = np.array([0, 0, 50, 0, 0, 0, 30, 0.0])
    W = np.tril(np.ones((8, 8)))
    res = D.mwem(x, W, 1.0, rounds=1, total=80.0, passes=1, rng=11, size=40000)
    p = D.selection_probabilities(x, W, res.epsilon_select, np.full(8, 10.0))
    score = np.abs(10.0 * np.arange(1, 9) - np.cumsum(x))            # |q(A_0) - q(x)|: 10 20 20 10 0 10 10 0
    w = np.exp(res.epsilon_select * score / 2)
    assert res.epsilon_select == 0.5 and np.allclose(p, w / w.sum(), rtol=1e-12)
    assert np.allclose(D.selection_probabilities(x, (np.zeros(8, dtype=int), np.arange(1, 9)), 0.5,
                                                 np.full(8, 10.0)), p, rtol=1e-12)  # ranges and matrix agree
    freq = np.bincount(res.selected[:, 0], minlength=8) / res.selected.shape[0]
    assert np.all(np.abs(freq - p) < Z * np.sqrt(p * (1 - p) / res.selected.shape[0])), (freq, p)
    # a coefficient of 2 doubles every answer and so the sensitivity: the scores are divided by it
    assert np.allclose(D.selection_probabilities(x, 2 * W, 0.5, np.full(8, 10.0)), p, rtol=1e-12)


@pytest.mark.parametrize("call, match", [
    (lambda: D.selection_probabilities([1, 2], _prefix(2), 0.0, [1, 2]), "epsilon_select"),
    (lambda: D.selection_probabilities([1, 2], _prefix(2), 1.0, [1, 2, 3]), "synthetic"),
    (lambda: D.selection_probabilities([1, 2], _prefix(2), 1.0, [1, -2]), "synthetic"),
    (lambda: D.selection_probabilities([-1, 2], _prefix(2), 1.0, [1, 2]), "x"),
    (lambda: D.selection_probabilities([1, 2], _prefix(3), 1.0, [1, 2]), "workload"),
])
def test_selection_probabilities_refuses_bad_input_by_name(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_mwem_error_falls_with_rounds_on_sparse_data():
    n = 256
    x = np.zeros(n)
    x[[10, 50, 51, 200]] = [300, 500, 200, 1000]
    res = D.mwem(x, _prefix(n), 1.0, rounds=20, keep_history=True, rng=0, size=40)
    err = _prefix_rmse(res.history, x)  # (runs, rounds + 1)
    for a, b in [(0, 20), (5, 20), (10, 20)]:
        gain = err[:, a] - err[:, b]
        assert gain.mean() > Z * gain.std(ddof=1) / math.sqrt(gain.size), (a, b, gain.mean())
    np.testing.assert_allclose(res.history[:, -1], res.estimate)


def test_mwem_estimate_is_a_nonnegative_histogram_with_the_total():
    x = np.array([5.0, 0, 0, 20, 0, 1])
    res = D.mwem(x, _prefix(6), 2.0, rounds=5, rng=0, size=4)
    assert np.all(res.estimate >= 0) and np.all(np.isfinite(res.estimate))
    np.testing.assert_allclose(res.estimate.sum(axis=1), res.total)
    pub = D.mwem(x, _prefix(6), 2.0, rounds=5, total=26.0, rng=0)
    assert pub.total == 26.0 and pub.epsilon_total == 0.0
    assert pub.estimate.sum() == pytest.approx(26.0)


def test_mwem_same_answer_for_ranges_dense_and_sparse_matrix():
    n = 12
    starts, stops = np.array([0, 3, 5, 0, 9]), np.array([4, 10, 6, 12, 12])
    W = np.zeros((5, n))
    for r, (a, b) in enumerate(zip(starts, stops, strict=True)):
        W[r, a:b] = 1
    x = np.array([0, 4, 0, 0, 9, 1, 1, 0, 0, 30, 0, 2.0])
    ref = D.mwem(x, (starts, stops), 1.0, rounds=4, rng=5, size=3)
    for w in (W, sp.csr_array(W), 3 * W):  # scaling the workload does not change the algorithm
        out = D.mwem(x, w, 1.0, rounds=4, rng=5, size=3)
        np.testing.assert_array_equal(out.selected, ref.selected)
        np.testing.assert_allclose(out.estimate, ref.estimate, rtol=1e-10)
    assert np.allclose(D.mwem(x, 3 * W, 1.0, rounds=4, rng=5, size=3).measurements, 3 * ref.measurements)


def test_mwem_reproducible_and_shapes():
    x = np.arange(10.0)
    a = D.mwem(x, _prefix(10), 1.0, rounds=3, rng=7)
    b = D.mwem(x, _prefix(10), 1.0, rounds=3, rng=7)
    np.testing.assert_array_equal(a.estimate, b.estimate)
    assert a.estimate.shape == (10,) and a.selected.shape == (3,) and a.history is None
    c = D.mwem(x, _prefix(10), 1.0, rounds=3, rng=7, size=2, keep_history=True)
    assert c.estimate.shape == (2, 10) and c.history.shape == (2, 4, 10) and c.total.shape == (2,)


# --------------------------------------------------------------------------- partitions
def _dyadic_partitions(lo, hi):
    """All prunings of the binary tree over [lo, hi) (hi - lo a power of 2), as lists of starts."""
    out = [[lo]]
    if hi - lo > 1:
        mid = (lo + hi) // 2
        out += [a + b for a in _dyadic_partitions(lo, mid) for b in _dyadic_partitions(mid, hi)]
    return out


def _exact_probabilities(x, eps, lam):
    x = np.asarray(x, dtype=float)
    parts = _dyadic_partitions(0, x.size)
    cost = np.array([D.bucket_deviation(x, D.Partition(np.array(s), x.size)).sum() + lam * len(s) for s in parts])
    w = np.exp(-eps * (cost - cost.min()) / 4)
    return parts, w / w.sum()


def test_dyadic_deviations_match_bucket_deviation():
    rng = np.random.default_rng(0)
    x = rng.poisson(3, size=13).astype(float)
    devs = D.dyadic_deviations(x)
    xp = np.concatenate([x, np.zeros(3)])
    assert [d.size for d in devs] == [16, 8, 4, 2, 1]
    for l, d in enumerate(devs):
        part = D.Partition(np.arange(0, 16, 2**l), 16)
        np.testing.assert_allclose(d, D.bucket_deviation(xp, part))


def test_partition_sampling_is_exactly_the_exponential_mechanism():
    x = [0, 5, 5, 6, 1, 1, 9, 0]
    eps, lam, k = 0.8, 1.5, 30000
    parts, p = _exact_probabilities(x, eps, lam)
    assert len(parts) == 26  # 1 + c(2)^2 with c(1) = 2, c(2) = 5
    sampled = D.private_partition(x, eps, bucket_penalty=lam, rng=11, size=k)
    index = {tuple(s): i for i, s in enumerate(parts)}
    freq = np.bincount([index[tuple(s.starts.tolist())] for s in sampled], minlength=len(parts)) / k
    assert np.all(np.abs(freq - p) < Z * np.sqrt(p * (1 - p) / k) + 1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=8, max_size=8), st.integers(0, 7), st.sampled_from([-1, 1]),
       st.floats(0.05, 3.0), st.floats(0.0, 20.0))
def test_partition_probabilities_respect_epsilon_on_neighbours(x, cell, sign, eps, lam):
    y = list(x)
    y[cell] += sign
    if y[cell] < 0:
        return
    _, p = _exact_probabilities(x, eps, lam)
    _, q = _exact_probabilities(y, eps, lam)
    assert np.all(np.log(p) - np.log(q) <= eps + 1e-9)


def test_partition_of_constant_data_collapses_with_the_predicted_mean():
    # constant data: every deviation is 0, each node is kept with prob a / Z_l where Z_l = a + Z_{l-1}^2
    n, eps, k = 1024, 0.5, 4000
    lam = D.default_bucket_penalty(eps, None)
    e = _expected_buckets_on_constant(math.exp(-eps * lam / 4), 10)
    parts = D.private_partition(np.full(n, 7.0), eps, rng=2, size=k)
    counts = np.array([p.n_buckets for p in parts])
    assert e[-1] < 2.5  # few buckets: the theory says so ...
    assert abs(counts.mean() - e[-1]) < Z * counts.std(ddof=1) / math.sqrt(k)  # ... and the sampler agrees
    assert np.mean(counts == 1) > 0.6


@pytest.mark.parametrize("epsilon", [0.01, 0.1, 1.0])
def test_dawa_collapses_on_sampled_uniform_data(epsilon):
    rng = np.random.default_rng(4)
    x = rng.multinomial(20000, np.full(2048, 1 / 2048)).astype(float)
    res = D.dawa(x, epsilon, rng=1, size=20)
    counts = np.array([p.n_buckets for p in res.partitions])
    assert counts.mean() <= 4, counts


def _minimal_dyadic_refinement(n, breakpoints):
    """Coarsest dyadic partition of [0, n) (n a power of 2) in which no bucket straddles a breakpoint."""
    out = []

    def visit(lo, hi):
        if any(lo < b < hi for b in breakpoints):
            mid = (lo + hi) // 2
            visit(lo, mid)
            visit(mid, hi)
        else:
            out.append(lo)

    visit(0, n)
    return out


def _expected_buckets_on_constant(a, levels):
    """E[number of buckets] of a subtree of constant data of each height 0..levels (node kept w.p. a / Z_l)."""
    z, e = [a], [1.0]
    for _ in range(levels):
        zl = a + z[-1] ** 2
        e.append(a / zl + (1 - a / zl) * 2 * e[-1])
        z.append(zl)
    return e


@pytest.mark.parametrize("breakpoints", [[700, 1500, 3000], [1024, 1536, 3072]])
def test_dawa_recovers_breakpoints_at_high_epsilon(breakpoints):
    n, eps, k = 4096, 50.0, 200
    edges = [0, *breakpoints, n]
    x = np.zeros(n)
    for v, a, b in zip([5, 50, 10, 80], edges[:-1], edges[1:], strict=True):
        x[a:b] = v
    res = D.dawa(x, eps, rng=0, size=k)
    want = _minimal_dyadic_refinement(n, breakpoints)
    for part in res.partitions:
        assert set(breakpoints) <= set(part.boundaries.tolist())
        assert set(want) <= set(part.starts.tolist())  # no bucket straddles a breakpoint
    if breakpoints[0] == 1024:  # dyadic breakpoints: one forced extra boundary (2048) and nothing else
        assert want == [0, 1024, 1536, 2048, 3072]
    # inside each pure bucket of the minimal refinement the sampler behaves as on constant data
    a = math.exp(-res.epsilon_partition * res.bucket_penalty / 4)
    e = _expected_buckets_on_constant(a, 12)
    sizes = np.diff(want + [n])
    expected = sum(e[int(s).bit_length() - 1] for s in sizes)
    counts = np.array([p.n_buckets for p in res.partitions])
    assert abs(counts.mean() - expected) < Z * counts.std(ddof=1) / math.sqrt(k)
    assert expected < 1.6 * len(want)
    # the estimate is close to x: only bucket noise remains (eps_2 = 37.5)
    assert np.max(np.abs(res.estimate - x)) < 5


def test_partition_handles_n_not_power_of_two_and_tiny_domains():
    p = D.private_partition(np.ones(5), 1.0, rng=0, size=50)
    assert all(q.stops[-1] == 5 and q.starts[0] == 0 for q in p)
    one = D.dawa([3.0], 1.0, rng=0)
    assert one.partitions.n_buckets == 1 and one.estimate.shape == (1,)


def test_partition_class_roundtrip_and_errors():
    part = D.Partition(np.array([0, 2, 5]), 8)
    assert part.sizes.tolist() == [2, 3, 3] and part.boundaries.tolist() == [2, 5]
    x = np.arange(8.0)
    np.testing.assert_allclose(part.aggregate(x), [1, 9, 18])
    np.testing.assert_allclose(part.aggregate(part.expand([2, 3, 6])), [2, 3, 6])
    for bad in ([1, 3], [0, 3, 3], [0, 8], []):
        with pytest.raises(ValueError, match="starts"):
            D.Partition(np.array(bad, dtype=int), 8)


def test_dawa_strategies_and_shapes():
    x = np.r_[np.full(64, 3.0), np.full(64, 40.0)]
    for strategy in ("hierarchical", "identity"):
        res = D.dawa(x, 1.0, strategy=strategy, rng=0, size=4)
        assert res.estimate.shape == (4, 128) and len(res.partitions) == 4 and res.strategy == strategy
        for part, z, est in zip(res.partitions, res.bucket_estimates, res.estimate, strict=True):
            np.testing.assert_allclose(part.expand(z), est)


# --------------------------------------------------------------------------- bad input
@settings(max_examples=30, deadline=None)
@given(st.one_of(st.floats(max_value=0.0), st.just(float("nan")), st.just(float("inf"))))
def test_bad_epsilon_named(eps):
    for call in (lambda: D.uniform([1, 2], eps), lambda: D.mwem([1, 2], _prefix(2), eps),
                 lambda: D.private_partition([1, 2], eps), lambda: D.dawa([1, 2], eps)):
        with pytest.raises(ValueError, match="epsilon"):
            call()


@pytest.mark.parametrize("call,exc,match", [
    (lambda: D.mwem([1, -2], _prefix(2), 1.0), ValueError, "x must be non-negative"),
    (lambda: D.mwem([1, 2], _prefix(2), 1.0, rounds=0), ValueError, "rounds"),
    (lambda: D.mwem([1, 2], _prefix(2), 1.0, rounds=2.5), TypeError, "rounds"),
    (lambda: D.mwem([1, 2], _prefix(2), 1.0, selection_share=1.0), ValueError, "selection_share"),
    (lambda: D.mwem([1, 2], _prefix(2), 1.0, total_share=0.0), ValueError, "total_share"),
    (lambda: D.mwem([1, 2], _prefix(2), 1.0, total=-3.0), ValueError, "total"),
    (lambda: D.mwem([1, 2], _prefix(2), 1.0, passes=0), ValueError, "passes"),
    (lambda: D.mwem([1, 2], ([0], [3]), 1.0), ValueError, "0 <= start < stop <= n=2"),
    (lambda: D.mwem([1, 2], ([1], [1]), 1.0), ValueError, "start < stop"),
    (lambda: D.mwem([1, 2], ([0.0], [1.0]), 1.0), TypeError, "integer"),
    (lambda: D.mwem([1, 2], np.ones((3, 4)), 1.0), ValueError, "one column per cell"),
    (lambda: D.mwem([1, 2], np.zeros((3, 2)), 1.0), ValueError, "non-zero"),
    (lambda: D.mwem([1, 2], None, 1.0), TypeError, "workload"),
    (lambda: D.mwem([1, 2], _prefix(2), 1.0, size=0), ValueError, "size"),
    (lambda: D.dawa([1, 2], 1.0, partition_share=0.0), ValueError, "partition_share"),
    (lambda: D.dawa([1, 2], 1.0, strategy="wavelet"), ValueError, "strategy"),
    (lambda: D.dawa([1, 2], 1.0, bucket_penalty=-1.0), ValueError, "bucket_penalty"),
    (lambda: D.dawa([1, 2], 1.0, strategy="greedy_h"), TypeError, "workload"),
    (lambda: D.dawa([[1, 2]], 1.0), ValueError, "x must have 1 dimension"),
    (lambda: D.private_partition([1, np.nan], 1.0), ValueError, "x must contain only finite"),
    (lambda: D.uniform([], 1.0), ValueError, "x must not be empty"),
    (lambda: D.uniform([1, 2], 1.0, rng=-1), ValueError, "rng"),
    (lambda: D.default_bucket_penalty(0.0, 1.0), ValueError, "epsilon_partition"),
    (lambda: D.bucket_deviation([1, 2, 3], D.Partition(np.array([0]), 2)), ValueError, "partition"),
])
def test_bad_input_raises_named_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_dyadic_search_scores_the_2n_minus_1_aligned_buckets():
    # 4096 cells -> 8191 candidate buckets (aligned dyadic intervals), 13 levels: linear in n
    devs = D.dyadic_deviations(np.ones(4096))
    assert len(devs) == 13 and sum(d.size for d in devs) == 2 * 4096 - 1
    assert all(np.all(d == 0) for d in devs)  # a constant histogram deviates from no bucket's mean
    assert len(list(itertools.chain(*_dyadic_partitions(0, 4)))) > 0


def test_mwem_accepts_dpviz_workloads():
    from dpviz import workloads

    x = np.array([0, 4, 0, 0, 9, 1, 1, 0.0])
    ref = D.mwem(x, _prefix(8), 1.0, rounds=3, rng=2, size=2)
    out = D.mwem(x, workloads.prefix(8), 1.0, rounds=3, rng=2, size=2)
    np.testing.assert_array_equal(out.estimate, ref.estimate)
    mat = D.mwem(x, workloads.from_matrix(workloads.prefix(8).matrix()), 1.0, rounds=3, rng=2, size=2)
    np.testing.assert_allclose(mat.estimate, ref.estimate, rtol=1e-10)
    with pytest.raises(ValueError, match="n=8"):
        D.mwem(x, workloads.prefix(9), 1.0)


def test_dawa_greedy_h_stage_on_the_reduced_workload():
    from dpviz import workloads
    from dpviz.data_aware.dawa_algorithm import _reduced_gram
    from dpviz.data_aware.queries import _Queries

    n = 16
    part = D.Partition(np.array([0, 3, 4, 8, 15]), n)
    E = np.zeros((n, part.n_buckets))
    for b, (a, c) in enumerate(zip(part.starts, part.stops, strict=True)):
        E[a:c, b] = 1 / (c - a)
    dense = workloads.from_matrix(np.random.default_rng(0).random((5, n)))
    for W in (workloads.prefix(n), workloads.all_ranges(n), dense):
        M = W.matrix()
        M = M.toarray() if hasattr(M, "toarray") else M
        want = (M @ E).T @ (M @ E)
        got = _reduced_gram(_Queries(W, n), part, {})  # prefix: rows path; all ranges / matrix: Gram path
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)
    acc = PrivacyAccountant(2.1)
    x = np.r_[np.full(40, 2.0), np.full(24, 30.0)]
    res = D.dawa(x, 0.7, workloads.prefix(64), strategy="greedy_h", rng=0, size=3, accountant=acc)
    assert _ledger_sum(acc) == 3 * Fraction(7, 10) and res.strategy == "greedy_h"  # 3 runs: 3 x 0.7
    for part, z, est in zip(res.partitions, res.bucket_estimates, res.estimate, strict=True):
        assert z.shape == (part.n_buckets,)
        np.testing.assert_allclose(part.expand(z), est)


def test_package_keeps_every_old_name_importable():
    assert D.__all__ == ["STRATEGIES", "Partition", "MWEMResult", "DAWAResult", "uniform", "mwem",
                         "selection_probabilities", "bucket_deviation", "dyadic_deviations", "default_bucket_penalty",
                         "private_partition", "dawa"]
    for name in D.__all__:  # each lives in one file of the package and is re-exported unchanged
        obj = getattr(D, name)
        assert name == "STRATEGIES" or obj.__module__.startswith("dpviz.data_aware.")


# ---------------------------------------------------------------- DAWA stage 2: noise scale on the buckets
def test_dawa_identity_bucket_noise_has_the_laplace_variance():
    """Residual of every bucket estimate, z_hat_B - z_B, is Lap(1/eps2): variance 2 / eps2^2 (by hand).

    Pooled over all buckets of many seeded runs (any partition); the sample variance of Laplace residuals has
    relative standard deviation sqrt((kurtosis - 1) / N) = sqrt(5 / N); the tolerance is 6 of those.
    A bucket noise halved gives a variance 4 times smaller.
    """
    x = np.r_[np.full(16, 3.0), np.full(16, 50.0)]
    eps, share = 1.0, 0.25
    eps2 = eps * (1 - share)
    res = D.dawa(x, eps, strategy="identity", partition_share=share, rng=2024, size=4000)
    resid = np.concatenate([z - part.aggregate(x) for part, z in zip(res.partitions, res.bucket_estimates,
                                                                    strict=True)])
    want = 2.0 / eps2**2
    got = float(np.mean(resid**2))  # mean known (0): unbiased
    assert abs(got / want - 1) < 6 * math.sqrt(5 / resid.size), (got, want)


def test_dawa_single_bucket_cell_variance():
    """A huge bucket price forces one bucket B of all n cells: x_hat_i = (sum x + Lap(1/eps2)) / n, var 2/(eps2 n)^2."""
    n = 8
    x = np.arange(n, dtype=float)
    eps = 0.8
    eps2 = eps * 0.75
    res = D.dawa(x, eps, bucket_penalty=1e9, rng=7, size=20000)
    assert all(p.n_buckets == 1 for p in res.partitions)
    cell = res.estimate[:, 3]
    want = 2.0 / (eps2 * n) ** 2
    got = float(np.mean((cell - x.sum() / n) ** 2))
    assert abs(got / want - 1) < 6 * math.sqrt(5 / cell.size), (got, want)


def test_dawa_hierarchical_bucket_noise_matches_dense_least_squares():
    """Singleton buckets (forced by data whose every pair differs hugely): stage 2 is the binary tree over the 4
    buckets, 3 levels, Lap(3 / eps2) per node, then least squares.  Leaf covariance from the dense tree matrix H:
    2 (3 / eps2)^2 (H^T H)^{-1}."""
    x = np.array([0.0, 5000.0, 0.0, 5000.0])
    eps = 4.0
    eps2 = eps * 0.75
    res = D.dawa(x, eps, bucket_penalty=0.0, rng=11, size=20000)
    assert all(p.n_buckets == 4 for p in res.partitions)
    H = np.array([[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
                 dtype=float)
    want = 2.0 * (3.0 / eps2) ** 2 * np.diag(np.linalg.inv(H.T @ H))
    got = np.mean((np.stack(res.bucket_estimates) - x) ** 2, axis=0)
    # the residuals are sums of Laplace variables (kurtosis <= 6): same CLT tolerance as above
    np.testing.assert_allclose(got / want, 1.0, atol=6 * math.sqrt(5 / 20000))


@pytest.mark.parametrize("name", list(_SIZED))
def test_epsilon_whose_noise_would_overflow_is_refused(name):
    with pytest.raises(ValueError, match="epsilon"):
        _SIZED[name](np.ones(8), 1e-300, None, None)


def test_mwem_tiny_share_refused_naming_it():
    with pytest.raises(ValueError, match="selection_share"):
        D.mwem(np.ones(8), _prefix(8), 1.0, selection_share=1e-200)


def test_mwem_selection_work_capped_before_any_work():
    import time

    from dpviz import workloads

    W = workloads.all_ranges(256)  # 32,896 queries
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="rounds=90.*size=100"):  # 90 x 100 x 32,896 scores: above 2 x 2**27
        D.mwem(np.ones(256), W, 1.0, rounds=90, passes=1, rng=0, size=100)
    assert time.perf_counter() - t0 < 1.0
