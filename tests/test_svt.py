"""Tests of dpviz.svt: SVT halting and accounting, GPTT, the exact counterexample, the oracle-only attack."""

import inspect
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import Z
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz import datasets, svt
from dpviz.accountant import BudgetExceededError, PrivacyAccountant


# --------------------------------------------------------------------------- SVT
def test_sparse_vector_halts_after_c_positives():
    answers = np.linspace(-5, 25, 40)
    out = svt.sparse_vector(answers, 10.0, 1.0, c=3, rng=1, size=2000)
    assert out.shape == (2000, 40) and out.dtype == np.int8
    above = out == svt.ABOVE
    assert above.sum(axis=1).max() <= 3
    for row in out[:200]:
        halted = np.flatnonzero(row == svt.HALTED)
        if halted.size:
            # halted exactly after the third ABOVE, and halted from then on
            third = np.flatnonzero(row == svt.ABOVE)[2]
            assert halted[0] == third + 1 and np.all(row[third + 1:] == svt.HALTED)
        else:
            assert np.count_nonzero(row == svt.ABOVE) <= 3
    # answers far above the threshold: exactly c ABOVE, then halted
    big = svt.sparse_vector(np.full(10, 1e6), 0.0, 1.0, c=4, rng=2, size=50)
    assert np.all(big[:, :4] == svt.ABOVE) and np.all(big[:, 4:] == svt.HALTED)


def test_sparse_vector_charges_accountant_before_noise():
    acc = PrivacyAccountant(1.0)
    svt.sparse_vector([1.0, 2.0], 1.5, 0.25, c=2, accountant=acc, rng=0)
    assert acc.spent.epsilon == pytest.approx(0.25)
    svt.sparse_vector([1.0, 2.0], 1.5, 0.25, accountant=acc, rng=0, size=3)   # three runs cost 3 x 0.25
    assert acc.remaining.epsilon == 0.0
    gen = np.random.default_rng(5)
    state = gen.bit_generator.state
    with pytest.raises(BudgetExceededError):
        svt.sparse_vector([1.0], 0.0, 0.1, accountant=acc, rng=gen)
    assert gen.bit_generator.state == state            # no noise drawn
    assert len(acc.history) == 2
    with pytest.raises(TypeError, match="accountant"):
        svt.sparse_vector([1.0], 0.0, 0.1, accountant=object())


def test_svt_noise_scales_formula():
    b1, b2 = svt.svt_noise_scales(1.0, 3, sensitivity=2.0, threshold_share=0.25)
    assert b1 == pytest.approx(2.0 / 0.25) and b2 == pytest.approx(2 * 3 * 2.0 / 0.75)
    assert svt.svt_noise_scales(1.0, 3, monotonic=True)[1] == pytest.approx(3 / 0.5)


def test_sparse_vector_first_answer_frequency_matches_exact_probability():
    # the first answer of SVT is a GPTT answer with SVT's noise scales
    b1, b2 = svt.svt_noise_scales(1.0, 2)
    n = 40000
    out = svt.sparse_vector([3.0], 2.0, 1.0, c=2, rng=3, size=n)
    p = svt.event_probability([3.0], [1], 2.0, 1.0 / b1, 1.0 / b2)
    assert abs(np.mean(out[:, 0] == svt.ABOVE) - p) <= Z * math.sqrt(p * (1 - p) / n)


def _svt_outputs(m):
    return [np.array(a) for a in itertools.product([1, 0, -1], repeat=m)]


@pytest.mark.parametrize("c", [1, 2])
def test_sparse_vector_is_exactly_epsilon_dp_on_small_streams(c):
    # exact output probabilities (integration) on neighbouring answer vectors, every output enumerated
    rng = np.random.default_rng(c)
    pairs = [(rng.integers(-2, 4, 4).astype(float), rng.integers(-1, 2, 4).astype(float)) for _ in range(3)]
    pairs.append((np.array([0.0, 0.0, 0.0, 1.0]), np.array([1.0, 1.0, 1.0, -1.0])))   # opposite shifts
    worst = 0.0
    for q, delta in pairs:
        lp = np.array([svt.sparse_vector_probability(q, a, 0.5, 1.0, c, log=True) for a in _svt_outputs(4)])
        lq = np.array([svt.sparse_vector_probability(q + delta, a, 0.5, 1.0, c, log=True) for a in _svt_outputs(4)])
        assert np.exp(lp).sum() == pytest.approx(1.0, abs=1e-8)
        ok = np.isfinite(lp)
        assert np.array_equal(ok, np.isfinite(lq))
        worst = max(worst, float(np.max(np.abs(lp[ok] - lq[ok]))))
    assert worst <= 1.0 + 1e-8
    assert worst > 0.3          # the check is not vacuous


def test_gptt_with_svt_noise_but_no_halt_breaks_the_bound():
    b1, b2 = svt.svt_noise_scales(1.0, 1)
    q, qp = np.array([0, 0, 0, 1, 1, 1.0]), np.array([1, 1, 1, 0, 0, 0.0])
    ev = [0, 0, 0, 1, 1, 1]
    loss = (svt.event_probability(q, ev, 0.5, 1 / b1, 1 / b2, log=True)
            - svt.event_probability(qp, ev, 0.5, 1 / b1, 1 / b2, log=True))
    assert loss > 1.0 + 0.1


def test_sparse_vector_sampler_matches_exact_output_probabilities():
    q = np.array([0.0, 2.0, 1.0])
    n = 40000
    out = svt.sparse_vector(q, 1.0, 1.0, c=1, rng=9, size=n)
    for a in _svt_outputs(3):
        p = svt.sparse_vector_probability(q, a, 1.0, 1.0, 1)
        freq = np.mean(np.all(out == a, axis=1))
        assert abs(freq - p) <= Z * math.sqrt(p * (1 - p) / n) + (1e-12 if p == 0 else 0)


# --------------------------------------------------------------------------- GPTT
def test_gptt_is_labelled_not_dp():
    for obj in (svt.gptt, svt.GPTTOracle, svt.counterexample_probability, svt.reconstruct, svt.gptt_noise_scales):
        assert "NOT differentially private" in inspect.getdoc(obj)
    oracle = svt.GPTTOracle([0, 1, 2], 1.0, rng=0)
    assert "NOT differentially private" in repr(oracle)
    assert "NOT differentially private" in repr(svt.counterexample_probability(2, 0.5, 0.5))
    assert "NOT differentially private" in repr(svt.reconstruct(np.arange(6), 1.0, rng=0))
    assert "accountant" not in inspect.signature(svt.gptt).parameters   # no valid epsilon to charge


def test_gptt_never_halts_and_without_query_noise_is_a_threshold_cut():
    answers = np.arange(20.0)
    out = svt.gptt(answers, 9.5, 1.0, rng=0, size=500)
    assert not np.any(out == svt.HALTED)
    # no query noise: the answers are monotone in the answer value in every run
    assert np.all(np.diff(out.astype(int), axis=1) >= 0)
    assert out.sum(axis=1).max() > 3          # many ABOVE answers: no cut-off
    assert svt.gptt(answers, 9.5, 1.0, rng=0).shape == (20,)


@pytest.mark.parametrize("eps_q", [None, 0.7])
def test_gptt_event_frequencies_match_exact_probabilities(eps_q):
    answers = np.array([0.0, 1.0, 2.0])
    n = 30000
    out = svt.gptt(answers, 1.2, 0.8, eps_q, rng=11, size=n)
    codes = out @ np.array([4, 2, 1])
    total = 0.0
    for bits in itertools.product([0, 1], repeat=3):
        p = svt.event_probability(answers, bits, 1.2, 0.8, eps_q)
        total += p
        freq = np.mean(codes == bits[0] * 4 + bits[1] * 2 + bits[2])
        assert abs(freq - p) <= Z * math.sqrt(max(p * (1 - p), 1e-12) / n) + 1e-12
    assert total == pytest.approx(1.0, abs=1e-8)


# --------------------------------------------------------------------------- counterexample
def test_counterexample_construction_is_neighbouring():
    d, dp = svt.counterexample_databases()
    assert np.abs(d - dp).sum() == 1
    a, b = svt.counterexample_answers(3)
    assert a.tolist() == [0, 0, 0, 1, 1, 1] and b.tolist() == [0] * 6
    assert svt.counterexample_event(2).tolist() == [0, 0, 1, 1]


@pytest.mark.parametrize("t", [1, 2, 4])
def test_counterexample_exact_matches_simulation(t):
    eps1, eps2, n = 0.5, 0.5, 200000
    exact = svt.counterexample_probability(t, eps1, eps2)
    a_d, a_dp = svt.counterexample_answers(t)
    event = svt.counterexample_event(t)
    for answers, p, seed in ((a_d, exact.p_d[0], 1), (a_dp, exact.p_dprime[0], 2)):
        out = svt.gptt(answers, svt.COUNTEREXAMPLE_THRESHOLD, eps1, eps2, rng=seed, size=n)
        freq = np.mean(np.all(out == event, axis=1))
        assert abs(freq - p) <= Z * math.sqrt(p * (1 - p) / n)


def test_counterexample_ratio_exceeds_claim_and_grows_without_bound():
    eps1 = eps2 = 0.5
    r = svt.counterexample_probability([1, 2, 5, 10, 50, 100, 200], eps1, eps2)
    assert r.claimed_epsilon == 1.0
    assert np.all(np.diff(r.log_ratio) > 0)
    assert r.log_ratio[2] > r.claimed_epsilon            # t = 5 already violates e^epsilon
    assert np.all(r.log_ratio >= r.log_ratio_bound - 1e-9)
    assert r.log_ratio_bound[-1] > 60                   # the proven bound is linear in t
    # asymptotic slope: log max_s F(s)S(s-1) - log max_s F(s)S(s) = 2 log(1 - e^{-1/(2b)}/2) + log 4, b = 2
    slope = (r.log_ratio[-1] - r.log_ratio[-2]) / 100
    assert slope == pytest.approx(2 * math.log(1 - 0.5 * math.exp(-0.25)) + math.log(4), rel=0.02)


def test_counterexample_without_query_noise_is_infinite():
    r = svt.counterexample_probability([1, 3], 1.0)
    assert np.all(r.p_dprime == 0) and np.all(np.isinf(r.log_ratio))
    assert r.p_d == pytest.approx(1 - math.exp(-0.5))    # P(|Lap(1)| <= 1/2)


def test_event_probability_tiny_values_are_accurate_in_log_space():
    # on D' the counterexample integrand is (F(s) S(s))^t <= 4^-t, attained at s = 0: P ~ 4^-t up to a
    # polynomial factor, far below the smallest double for t = 600
    r = svt.counterexample_probability([300, 600], 0.5, 0.5)
    assert np.all(np.isfinite(r.log_p_dprime)) and r.log_p_dprime[1] < -600 * math.log(4) + 1e-9
    slope = (r.log_p_dprime[1] - r.log_p_dprime[0]) / 300
    assert slope == pytest.approx(-math.log(4), rel=0.01)


# --------------------------------------------------------------------------- attack
def _synthetic(seed=0):
    rng = np.random.default_rng(seed)
    small = np.repeat(np.arange(8), [200, 120, 80, 60, 40, 30, 20, 10])
    large = rng.integers(30, 400, size=50)
    x = np.concatenate([small, large])
    return rng.permutation(x)


def test_attack_reconstructs_small_counts_exactly_at_epsilon_1():
    x = _synthetic()
    for seed in range(5):
        r = svt.reconstruct(x, 1.0, calibrate=True, rng=seed)
        acc = svt.fraction_exact(x, r.guess, k=7)
        assert acc.small == 1.0
        assert acc.n_small == 560


def test_partition_is_the_level_sets_when_threshold_in_unit_interval():
    # Thm 5.12: a noisy threshold in (0, 1] gives exactly the sets of equal counts, ordered
    x = _synthetic(1)                       # every count 0..7 occurs, the others are >= 30
    hits = above_one = 0
    for seed in range(40):
        oracle = svt.GPTTOracle(x, 0.5, rng=seed)
        s = oracle._GPTTOracle__noisy_threshold      # the test, not the attack, peeks
        part = svt.ordered_partition(oracle)
        rows = svt.ordered_partition(oracle, grouping="row")
        levels = np.unique(x)
        if 0 < s <= 1:
            hits += 1
            for p in (part, rows):
                assert p.n_groups == levels.size
                assert np.array_equal(levels[p.labels], x)
        elif 1 < s <= 7:
            above_one += 1
            m = math.ceil(s)
            # rows alone: every count below s has an empty row, so counts 0..m-1 merge
            assert np.unique(rows.labels[x < m]).size == 1
            for v in range(m, 8):
                assert np.array_equal(rows.labels == rows.labels[np.flatnonzero(x == v)[0]], x == v)
            # rows and columns: count v is told from every larger count once v + s <= 7, since then the
            # present count ceil(v + s) answers ABOVE against v and BELOW against v + 1, v + 2, ...
            for v in range(0, 8):
                if v + s <= 7:
                    assert np.array_equal(part.labels == part.labels[np.flatnonzero(x == v)[0]], x == v)
        # always (no query noise): the groups are intervals of counts, in order (Lemma 5.10)
        for p in (part, rows):
            gmax = np.full(p.n_groups, -np.inf)
            gmin = np.full(p.n_groups, np.inf)
            np.maximum.at(gmax, p.labels, x)
            np.minimum.at(gmin, p.labels, x)
            assert np.all(gmax[:-1] < gmin[1:])
    assert hits >= 3 and above_one >= 3


class _HiddenOracle:
    """A duck-typed oracle with its own private histogram and no GPTT code from dpviz."""

    def __init__(self, x):
        self._x = np.asarray(x, dtype=float)
        self.domain_size = self._x.size
        self.calls = 0

    def answer_differences(self, rows, copies=1, shift=0.0):
        self.calls += 1
        return ((self._x[rows, None] - self._x[None, :] + shift >= 0.5) * copies).astype(np.uint8)

    def noisy_group_totals(self, labels, epsilon):
        return np.bincount(labels, weights=self._x)     # no noise: the attack must then be exact


class _Proxy:
    """Exposes only the oracle interface; any other attribute (e.g. the counts) raises."""

    __slots__ = ("_target",)

    def __init__(self, target):
        object.__setattr__(self, "_target", target)

    def __getattr__(self, name):
        if name in ("domain_size", "answer_differences", "noisy_group_totals", "queries_answered"):
            return getattr(object.__getattribute__(self, "_target"), name)
        raise AssertionError(f"the attack tried to read {name!r}")


def test_attack_only_talks_to_the_oracle():
    x = _synthetic(2)
    hidden = _HiddenOracle(x)
    r = svt.reconstruct_from_oracle(_Proxy(hidden), 1.0)
    assert np.array_equal(r.guess, x) and hidden.calls > 0
    # through the proxy the GPTT oracle works too, so nothing but its interface is used
    r2 = svt.reconstruct_from_oracle(_Proxy(svt.GPTTOracle(x, 0.5, rng=0)), 0.5, calibrate=True)
    assert r2.guess.shape == x.shape
    for fn in (svt.ordered_partition, svt.reconstruct_from_oracle):
        assert "counts" not in inspect.signature(fn).parameters
        with pytest.raises(TypeError, match="oracle"):
            fn(x, 1.0) if fn is svt.reconstruct_from_oracle else fn(x)
    assert not any("count" in a for a in vars(svt.GPTTOracle(x, 1.0, rng=0)) if not a.startswith("_"))


def test_query_noise_defeated_by_copies():
    x = _synthetic(3)
    r = svt.reconstruct(x, 2.0, query_share=0.5, copies=4001, calibrate=True, rng=4)
    assert svt.fraction_exact(x, r.guess, k=7).small == 1.0
    # a single noisy copy shatters the partition
    r1 = svt.reconstruct(x, 2.0, query_share=0.5, copies=1, rng=4)
    assert r1.partition.n_groups > 100


def test_svt_oracle_halts_and_leaks_little():
    x = _synthetic(4)
    oracle = svt.SVTOracle(x, 0.5, c=3, rng=0)
    part = svt.ordered_partition(oracle)
    assert oracle.positives <= 3 and part.n_groups <= 4 * 3 + 1
    r = svt.reconstruct_from_oracle(svt.SVTOracle(x, 0.5, c=3, rng=1), 0.5)
    assert "differentially private" in repr(r) and "NOT" not in repr(r)
    assert svt.fraction_exact(x, r.guess, k=7).small < 0.5


def test_laplace_baseline_matches_rounding_probability():
    x = np.full(20000, 3)
    guess = svt.laplace_reconstruct(x, 1.0, rng=0)
    p = 1 - math.exp(-0.5)                               # P(|Lap(1)| < 1/2)
    assert abs(np.mean(guess == 3) - p) <= Z * math.sqrt(p * (1 - p) / x.size)


def test_support_k_of_the_paper_datasets():
    assert {n: svt.support_k(datasets.load(n)) for n in ("ADULT", "MEDCOST", "INCOME", "HEPTH")} == \
        {"ADULT": 15, "MEDCOST": 26, "INCOME": 98, "HEPTH": 274}
    assert svt.support_k([1, 2]) == -1 and svt.support_k([0, 2]) == 0


def test_fraction_exact():
    acc = svt.fraction_exact([0, 1, 2, 9], [0, 1, 3, 9], k=2)
    assert acc.overall == 0.75 and acc.small == pytest.approx(2 / 3) and acc.n_small == 3
    assert acc.small_nonzero == 0.5 and acc.n_small_nonzero == 2


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("call, match", [
    (lambda: svt.sparse_vector([1.0], 0.0, -1.0), "epsilon"),
    (lambda: svt.sparse_vector([1.0], 0.0, 1.0, c=0), "c"),
    (lambda: svt.sparse_vector([1.0], 0.0, 1.0, threshold_share=1.0), "threshold_share"),
    (lambda: svt.sparse_vector([[1.0]], 0.0, 1.0), "answers"),
    (lambda: svt.sparse_vector([1.0], 0.0, 1.0, size=0), "size"),
    (lambda: svt.sparse_vector([1.0], 0.0, 1.0, monotonic="no"), "monotonic"),
    (lambda: svt.gptt([1.0], 0.0, 0.0), "epsilon_threshold"),
    (lambda: svt.gptt([1.0], 0.0, 1.0, -2.0), "epsilon_query"),
    (lambda: svt.gptt([np.nan], 0.0, 1.0), "answers"),
    (lambda: svt.counterexample_probability(0, 1.0), "t"),
    (lambda: svt.event_probability([0, 1], [1], 0.0, 1.0), "event"),
    (lambda: svt.event_probability([0, 1], [1, 2], 0.0, 1.0), "event"),
    (lambda: svt.sparse_vector_probability([0, 1], [1], 0.0, 1.0), "output"),
    (lambda: svt.sparse_vector_probability([0, 1], [1, 3], 0.0, 1.0), "output"),
    (lambda: svt.reconstruct([0, -1], 1.0), "counts"),
    (lambda: svt.reconstruct([0, 1.5], 1.0), "counts"),
    (lambda: svt.reconstruct([0, 1], 1.0, split=1.0), "split"),
    (lambda: svt.reconstruct([0, 1], 1.0, query_share=1.0), "query_share"),
    (lambda: svt.reconstruct([0, 1], 1.0, copies=0), "copies"),
    (lambda: svt.fraction_exact([0, 1], [0]), "guess"),
    (lambda: svt.reconstruct([0, 1], 1.0, estimator="median"), "estimator"),
    (lambda: svt.ordered_estimate([0.0, 1.0], [1.0, 0.0]), "weights"),
    (lambda: svt.GPTTOracle([0, 1], 1.0).answer_differences(np.array([2])), "rows"),
    (lambda: svt.SVTOracle([0, 1], 1.0).answer_differences(np.array([0]), copies=2), "copies"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


@settings(max_examples=40, deadline=None)
@given(eps=st.one_of(st.floats(max_value=0.0), st.just(math.nan), st.just(math.inf), st.text(max_size=3)))
def test_fuzz_bad_epsilon(eps):
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        svt.sparse_vector([1.0, 2.0], 0.0, eps)
    with pytest.raises((ValueError, TypeError), match="epsilon"):
        svt.reconstruct([0, 1], eps)


def test_calibrate_shift_locates_the_noisy_threshold():
    x = _synthetic(5)
    for seed in range(30):
        oracle = svt.GPTTOracle(x, 0.05, rng=seed)             # threshold noise Lap(20)
        s = oracle._GPTTOracle__noisy_threshold
        before = oracle.queries_answered
        j = svt.calibrate_shift(oracle)
        assert j == math.ceil(s) - 1 and 0 < s - j <= 1
        rows_asked = (oracle.queries_answered - before) / oracle.domain_size     # one row per constant query
        assert rows_asked <= 2 * (2 + math.log2(abs(s) + 2)) + 2


def test_ordered_estimate_solves_the_constrained_least_squares():
    from scipy.optimize import minimize

    rng = np.random.default_rng(7)
    a = np.sort(rng.normal(0, 3, 8)) + rng.normal(0, 2, 8)
    w = rng.uniform(0.5, 5, 8)
    c = svt.ordered_estimate(a, w)
    assert c[0] >= -1e-12 and np.all(np.diff(c) >= 1 - 1e-9)
    cons = [{"type": "ineq", "fun": lambda v: np.concatenate([[v[0]], np.diff(v) - 1])}]
    ref = minimize(lambda v: np.sum(w * (a - v) ** 2), np.arange(8.0) + 5, constraints=cons, method="SLSQP",
                   options={"ftol": 1e-14, "maxiter": 500})
    assert np.sum(w * (a - c) ** 2) <= ref.fun + 1e-7
    np.testing.assert_allclose(c, ref.x, atol=1e-4)


def test_ordered_estimator_is_at_least_as_good_on_a_real_dataset():
    x = datasets.load("HEPTH")
    acc = {e: np.mean([svt.fraction_exact(x, svt.reconstruct(x, 0.5, calibrate=True, estimator=e, rng=s).guess).small
                       for s in range(3)]) for e in svt.ESTIMATORS}
    assert acc["ordered"] > acc["average"] + 0.05


# --------------------------------------------------------------------------- issue 13: one accounting rule
@pytest.mark.parametrize("k", [None, 1, 3, 7])
def test_sparse_vector_size_k_charges_k_epsilon_exactly(k):
    # sequential composition by hand: k independent runs of a 1/10-DP mechanism cost exactly k/10
    acc = PrivacyAccountant(5)
    out = svt.sparse_vector([0.0, 9.0, 1.0], 0.5, 0.1, c=2, accountant=acc, rng=0, size=k)
    runs = 1 if k is None else k
    assert out.shape == ((3,) if k is None else (k, 3))
    assert len(acc.history) == 1
    row = acc.history[0]
    assert row.total_epsilon == Fraction(runs, 10) and row.total_delta == 0
    assert row.label == "sparse vector (c=2)" + ("" if runs == 1 else f" x{runs}")


def test_sparse_vector_refused_spend_records_and_draws_nothing():
    acc = PrivacyAccountant(1)
    svt.sparse_vector([1.0], 0.0, Fraction(1, 4), accountant=acc, rng=0)          # 1/4 spent, 3/4 left
    before = [(r.label, r.total_epsilon) for r in acc.history]
    gen = np.random.default_rng(11)
    state = gen.bit_generator.state
    # 3 runs at 1/4 would fit (3/4) but 4 do not: the whole batch is refused, not charged once
    with pytest.raises(BudgetExceededError):
        svt.sparse_vector([1.0, 2.0], 0.0, 0.25, accountant=acc, rng=gen, size=4)
    assert [(r.label, r.total_epsilon) for r in acc.history] == before
    assert gen.bit_generator.state == state
    svt.sparse_vector([1.0, 2.0], 0.0, 0.25, accountant=acc, rng=gen, size=3)
    assert acc.history[-1].total_epsilon == Fraction(1)


@pytest.mark.parametrize("bad", ["acc", 1, object()])
def test_sparse_vector_refuses_a_non_accountant(bad):
    gen = np.random.default_rng(0)
    state = gen.bit_generator.state
    with pytest.raises(TypeError, match=r"\baccountant\b"):
        svt.sparse_vector([1.0], 0.0, 0.5, accountant=bad, rng=gen)
    assert gen.bit_generator.state == state


def test_bad_input_is_refused_before_anything_is_charged():
    acc = PrivacyAccountant(1)
    for kwargs, match in (({"threshold": True}, "threshold"), ({"monotonic": "no"}, "monotonic"),
                          ({"size": 0}, "size"), ({"size": 2**40}, "size"), ({"rng": "seed"}, "rng|seed")):
        args = {"answers": [1.0, 2.0], "threshold": 0.0, "epsilon": 0.5, "accountant": acc, **kwargs}
        with pytest.raises((TypeError, ValueError), match=match):
            svt.sparse_vector(**args)
    assert acc.history == []


@pytest.mark.parametrize("call", [
    lambda acc: svt.gptt([0.0, 1.0], 0.5, 1.0, accountant=acc),
    lambda acc: svt.GPTTOracle([0, 1], 1.0, accountant=acc),
    lambda acc: svt.reconstruct([0, 1, 2], 1.0, accountant=acc),
    lambda acc: svt.reconstruct_from_oracle(svt.GPTTOracle([0, 1], 1.0, rng=0), 1.0, accountant=acc),
    lambda acc: svt.counterexample_probability(2, 0.5, 0.5, accountant=acc),
])
def test_not_dp_mechanisms_refuse_an_accountant(call):
    # GPTT is NOT DP: there is no epsilon a ledger could honestly record, so no accountant is accepted
    acc = PrivacyAccountant(10)
    with pytest.raises(TypeError, match="accountant"):
        call(acc)
    assert acc.history == [] and acc.spent.epsilon == 0


# --------------------------------------------------------------------------- issue 13: no silent wrong answer
@pytest.mark.parametrize("call", [
    lambda: svt.sparse_vector([0.0, 2.0], True, 1.0, rng=0),
    lambda: svt.gptt([0.0, 2.0], True, 1.0, rng=0),
    lambda: svt.event_probability([0.0, 2.0], [0, 1], True, 1.0),
    lambda: svt.sparse_vector_probability([0.0, 2.0], [0, 1], np.True_, 1.0),
    lambda: svt.GPTTOracle([0, 2], 1.0, threshold=True),
    lambda: svt.SVTOracle([0, 2], 1.0, threshold=True),
    lambda: svt.reconstruct([0, 2], 1.0, threshold=True),
])
def test_threshold_true_is_not_taken_as_one(call):
    with pytest.raises(TypeError, match=r"\bthreshold\b"):
        call()


@pytest.mark.parametrize("call, match", [
    (lambda: svt.reconstruct([0, 1], 1.0, calibrate="no"), "calibrate"),
    (lambda: svt.reconstruct([0, 1], 1.0, calibrate=1), "calibrate"),
    (lambda: svt.ordered_partition(svt.GPTTOracle([0, 1], 1.0, rng=0), calibrate="no"), "calibrate"),
    (lambda: svt.reconstruct_from_oracle(svt.GPTTOracle([0, 1], 1.0, rng=0), 1.0, calibrate=None), "calibrate"),
    (lambda: svt.event_probability([0, 1], [0, 1], 0.5, 1.0, log="no"), "log"),
    (lambda: svt.sparse_vector_probability([0, 1], [0, 1], 0.5, 1.0, log=1), "log"),
    (lambda: svt.calibrate_shift(svt.GPTTOracle([0, 1], 1.0, rng=0), max_steps=10**15), "max_steps"),
    (lambda: svt.calibrate_shift(svt.GPTTOracle([0, 1], 1.0, rng=0), max_steps=2.5), "max_steps"),
    (lambda: svt.calibrate_shift(svt.GPTTOracle([0, 1], 1.0, rng=0), max_steps=-1), "max_steps"),
    (lambda: svt.reconstruct([0, 1], 1.0, copies=10**15), "copies"),
    (lambda: svt.GPTTOracle([0, 1], 1.0).answer_differences(np.array([0]), copies=2**31), "copies"),
    (lambda: svt.reconstruct([0, 1], 1e-300, calibrate=True), "epsilon"),
    (lambda: svt.reconstruct([0, 1], 1.0, split=1e-300, calibrate=True), "split"),
    (lambda: svt.counterexample_answers(10**12), r"\bt\b"),
    (lambda: svt.counterexample_probability([10**12], 0.5), r"\bt\b"),
    (lambda: svt.gptt(np.zeros(4), 0.5, 1.0, size=2**40), "size"),
    (lambda: svt.ordered_partition(svt.GPTTOracle(np.zeros(20_000), 1.0, rng=0)), "domain_size"),
])
def test_bad_input_is_refused_naming_the_parameter(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_calibrate_shift_gives_up_naming_max_steps():
    oracle = svt.GPTTOracle([0, 1], 1e-6, rng=3)            # noisy threshold far beyond 2**3
    with pytest.raises(ValueError, match=r"max_steps=3\b"):
        svt.calibrate_shift(oracle, max_steps=3)


def test_many_copies_are_counted_not_wrapped_around():
    # no query noise: every one of 2**31 - 1 copies answers the same; int32 holds the count exactly
    oracle = svt.GPTTOracle([0, 5], 1.0, rng=0)
    s = oracle._GPTTOracle__noisy_threshold
    a = oracle.answer_differences(np.array([1]), copies=svt.MAX_COPIES, shift=math.ceil(s) - 1.0)
    assert a.tolist() == [[svt.MAX_COPIES, 0]]      # c(1) - c(0) = 5 >= 1 > T^ - shift; c(1) - c(1) = 0 is not


@pytest.mark.parametrize("eps1", [1e-300, 1e-20, 1e-9])
def test_log_ratio_bound_for_tiny_threshold_budget(eps1):
    # log(1 - e^{-x}) = log(x) - x/2 + O(x^2) with x = eps1/2 (Taylor, independent of the code)
    b = svt.counterexample_log_ratio_bound([1, 2], eps1, 1.0)
    per_t = math.log(2.0 - math.exp(-1.0))
    x = eps1 / 2
    expected = math.log(x) - x / 2 + np.array([1, 2]) * per_t
    np.testing.assert_allclose(b, expected, rtol=1e-12)


# --------------------------------------------------------------------------- issue 13: mutant-killing checks
def test_sparse_vector_query_noise_grows_with_c_exact_dp_check():
    # Adversarial neighbours for c = 2 (exact probabilities, the DP definition): 8 queries go up by one and answer
    # BELOW, 2 go down by one and answer ABOVE.  With Lap(2 c Delta / eps2) query noise the privacy loss stays
    # below epsilon = 1; with the c = 1 scale Lap(2 Delta / eps2) it reaches about 1.46.
    q = np.zeros(10)
    shift = np.r_[np.ones(8), -np.ones(2)]
    out = np.r_[np.zeros(8), 1, 1]
    loss = (svt.sparse_vector_probability(q, out, 0.0, 1.0, 2, log=True)
            - svt.sparse_vector_probability(q + shift, out, 0.0, 1.0, 2, log=True))
    assert 0.85 < loss <= 1.0 + 1e-9


def test_oracle_group_totals_carry_laplace_noise_of_scale_one_over_epsilon():
    # E|Lap(b)| = b: one cell per group, so each noisy total minus its count is one Laplace draw of scale 1/epsilon
    n, eps = 20_000, 0.5
    oracle = svt.GPTTOracle(np.zeros(n), 1.0, rng=4)
    noise = oracle.noisy_group_totals(np.arange(n), eps)
    assert abs(np.mean(np.abs(noise)) - 1 / eps) <= Z * (1 / eps) / math.sqrt(n)   # sd of |Lap(b)| is b
    assert oracle.laplace_epsilon == eps


@pytest.mark.parametrize("eps1", [1e-300, 1e-12, 0.3, 2.0])
def test_event_probability_without_query_noise_is_accurate_for_any_threshold_budget(eps1):
    # P(max BELOW < T^ <= min ABOVE) with T^ = T + Lap(1/eps1): against scipy's Laplace cdf where it is accurate,
    # and against density x width (the Laplace density is flat, 1/(2b), over a width-1 gap when b is huge)
    from scipy import stats

    b = 1 / eps1
    cases = [([0, 1], [0, 1], 0.5), ([2, 3], [0, 1], 0.5), ([-3, -2], [0, 1], 0.5), ([0, 0, 4], [0, 0, 1], -1.0)]
    for answers, event, thr in cases:
        pairs = list(zip(answers, event, strict=True))
        lo, hi = max(a for a, e in pairs if e == 0), min(a for a, e in pairs if e == 1)
        got = svt.event_probability(answers, event, thr, eps1, log=True)
        if eps1 >= 0.3:
            ref = math.log(stats.laplace.cdf(hi - thr, scale=b) - stats.laplace.cdf(lo - thr, scale=b))
            assert got == pytest.approx(ref, rel=1e-12, abs=1e-12)
        else:
            assert got == pytest.approx(math.log((hi - lo) / (2 * b)), rel=1e-9)


@pytest.mark.parametrize("sensitivity", [1e6, 1e100, 1e300])
def test_event_probability_with_huge_noise_is_the_ordering_probability(sensitivity):
    # threshold and query noise of the same huge scale swamp the answers: the event "q1 + nu1 < T + rho <= q2 + nu2"
    # is one of the 3! equally likely orderings of three iid Laplace draws, probability 1/6
    p = svt.event_probability([0.0, 1.0], [0, 1], 0.5, 1.0, 1.0, sensitivity=sensitivity)
    assert p == pytest.approx(1 / 6, rel=1e-5 if sensitivity < 1e10 else 1e-9)


@pytest.mark.parametrize("thr", [1e300, -1e300, 1e6])
def test_event_probability_far_threshold_is_a_tail_not_an_error(thr):
    # T far from both answers: log P(0 < T + Lap(1) <= 1) = log(1/2) - far + log(1 - 1/e), far the distance from T
    # to the nearer end of (0, 1] (two Laplace tails on the same side, by hand)
    got = svt.event_probability([0.0, 1.0], [0, 1], thr, 1.0, log=True)
    far = abs(thr) - (1.0 if thr > 0 else 0.0)
    assert got == pytest.approx(math.log(0.5) - far + math.log(1 - math.exp(-1)), rel=1e-12)


# --------------------------------------------------------------------------- issue 14: Algorithms 3 and 4 as published
def _brute_force_groups(a):
    """Cells x, y together iff a[x][z] == a[y][z] and a[z][x] == a[z][y] for every z: explicit pair loops."""
    d = len(a)
    group = [-1] * d
    n = 0
    for x in range(d):
        if group[x] >= 0:
            continue
        group[x] = n
        for y in range(x + 1, d):
            if group[y] < 0 and all(a[x][z] == a[y][z] and a[z][x] == a[z][y] for z in range(d)):
                group[y] = n
        n += 1
    return group


def _same_partition(labels, reference):
    """True iff two labellings put the same cells together."""
    pairs = {(int(a), int(b)) for a, b in zip(labels, reference, strict=True)}
    return len(pairs) == len({a for a, _ in pairs}) == len({b for _, b in pairs})


def test_partition_matches_brute_force_pair_loops_for_any_noisy_threshold():
    # a tiny histogram with gaps, so that some thresholds merge counts and others do not
    x = [0, 3, 1, 0, 7, 3, 2, 12, 1, 0, 4, 7, 20, 2, 0, 1, 5]
    seen = set()
    for seed in range(60):
        oracle = svt.GPTTOracle(x, 0.25, rng=seed)             # Lap(4): thresholds from about -10 to 10
        t_hat = oracle._GPTTOracle__noisy_threshold            # the test, not the attack, peeks
        a = [[int(x[i] - x[j] >= t_hat) for j in range(len(x))] for i in range(len(x))]
        ref = _brute_force_groups(a)
        part = svt.ordered_partition(oracle, block=3)          # blocks of 8 rows: the column packing crosses blocks
        assert _same_partition(part.labels, ref)
        # the groups are intervals of counts, numbered in increasing order of count
        assert all(part.labels[i] < part.labels[j] for i in range(len(x)) for j in range(len(x)) if x[i] < x[j]
                   and ref[i] != ref[j])
        seen.add(max(ref) + 1)
        # the row-only reading: same loops without the columns
        rows = svt.ordered_partition(oracle, grouping="row")
        ref_rows = [[a[i] == a[j] for j in range(len(x))].index(True) for i in range(len(x))]
        assert _same_partition(rows.labels, ref_rows)
    assert len(seen) >= 5                                      # many different partitions were exercised


class _FixedAnswers:
    """An oracle answering from a fixed arbitrary matrix of codes (no structure at all)."""

    def __init__(self, answers):
        self._a = np.asarray(answers, dtype=np.int8)
        self.domain_size = self._a.shape[0]

    def answer_differences(self, rows, copies=1, shift=0.0):
        return self._a[rows]

    def noisy_group_totals(self, labels, epsilon):
        return np.bincount(labels).astype(float)


@pytest.mark.parametrize("d, block", [(37, 5), (16, 8), (9, 512), (1, 1)])
def test_partition_of_arbitrary_answers_matches_brute_force(d, block):
    rng = np.random.default_rng(d)
    # few distinct rows and columns so that groups of several cells occur; HALTED (-1) codes included
    base = rng.choice([-1, 0, 1], size=(3, 3), p=[0.2, 0.4, 0.4])
    kind = rng.integers(0, 3, size=d)
    a = base[kind][:, kind]
    a[rng.random((d, d)) < 0.02] = 1                           # a few cells broken out of their kind
    part = svt.ordered_partition(_FixedAnswers(a), block=block)
    assert _same_partition(part.labels, _brute_force_groups(a.tolist()))
    above = a == 1
    assert np.array_equal(part.scores[part.labels], above.sum(axis=1))
    assert np.array_equal(part.column_scores[part.labels], above.sum(axis=0))


def test_columns_separate_the_small_counts_that_rows_merge():
    x = np.repeat(np.arange(11), 5)                            # every count 0..10, five cells each
    # noisy threshold 2.5 (threshold noise of scale 1e-9): rows are empty for the counts 0, 1 and 2
    oracle = svt.GPTTOracle(x, 1e9, threshold=2.5, rng=0)
    rows = svt.ordered_partition(oracle, grouping="row")
    both = svt.ordered_partition(oracle)
    assert np.unique(rows.labels[x <= 2]).size == 1 and rows.n_groups == 9
    assert both.n_groups == 11 and np.array_equal(both.labels, x)
    # end to end with nearly exact totals: the paper's grouping recovers every count, rows alone lose 0, 1, 2
    assert np.array_equal(svt.reconstruct(x, 2e9, threshold=2.5, rng=1).guess, x)
    lost = svt.reconstruct(x, 2e9, threshold=2.5, grouping="row", rng=1).guess != x
    assert np.array_equal(lost, (x <= 2) & (x != 1))            # the merged group's average is 1


def test_reconstruct_defaults_are_algorithms_3_and_4():
    # Algorithms 3 and 4 written out from the paper, with the same random draws: the noisy threshold
    # T^ = 1/2 + Lap(1/(eps/2)) first, then one Lap(1/(eps/2)) per group total, groups in increasing count
    x = np.array([0, 3, 1, 0, 7, 3, 2, 12, 1, 0, 4, 7, 20, 2, 0, 1, 5])
    eps = 0.8
    for seed in range(20):
        rng = np.random.default_rng(seed)
        t_hat = 0.5 + rng.laplace(0.0, 1 / (eps / 2))
        ref = _brute_force_groups([[int(x[i] - x[j] >= t_hat) for j in range(x.size)] for i in range(x.size)])
        order = sorted(set(ref), key=lambda g: min(x[i] for i in range(x.size) if ref[i] == g))
        noise = rng.laplace(0.0, 1 / (eps / 2), size=len(order))
        expected = np.empty(x.size)
        for g, nu in zip(order, noise, strict=True):
            cells = [i for i in range(x.size) if ref[i] == g]
            expected[cells] = math.floor((sum(x[cells]) + nu) / len(cells) + 0.5)   # nearest integer, no clip
        r = svt.reconstruct(x, eps, rng=seed)
        assert np.array_equal(r.guess, expected)
        assert r.epsilon_partition == eps / 2 and r.epsilon_totals == eps / 2 and svt.NOT_DP in repr(r)


@pytest.mark.parametrize("name, eps, reps, grouping", [("MEDCOST", 1.0, 40, "row_and_column"),
                                                      ("MEDCOST", 0.1, 60, "row_and_column"),
                                                      ("HEPTH", 0.5, 40, "row_and_column"),
                                                      ("INCOME", 1.0, 40, "row")])
def test_attack_matches_its_exact_expected_accuracy(name, eps, reps, grouping):
    # the closed form against the attack itself (Monte Carlo), within Z standard errors
    x = datasets.load(name)
    rng = np.random.default_rng(14)
    runs = np.array([np.mean(svt.reconstruct(x, eps, grouping=grouping, rng=rng).guess == x) for _ in range(reps)])
    exact = svt.expected_fraction_exact(x, eps, grouping=grouping)
    assert abs(runs.mean() - exact) <= Z * runs.std(ddof=1) / math.sqrt(reps) + 1e-12


@pytest.mark.parametrize("n, eps", [(1, 1.0), (7, 0.3), (50, 0.05)])
def test_expected_accuracy_of_a_flat_histogram(n, eps):
    # one level: always one group, guessed exactly iff |Lap(1/(eps/2))| < n/2, probability 1 - exp(-n eps / 4)
    assert svt.expected_fraction_exact(np.full(n, 3), eps) == pytest.approx(1 - math.exp(-n * eps / 4), rel=1e-12)


def test_paper_statements_hold_in_expectation():
    # [CM15] Section 5: "with the decreasing of epsilon, the ratio becomes smaller" (Table 2); the count <= 5 cells
    # at epsilon = 1 "nearly all" reconstructed (Table 3); and the review's reading of Table 2, MEDCOST above 0.9
    # at epsilon = 0.1.  Exact expectations, no sampling (checked against the attack above).
    for name in ("ADULT", "MEDCOST", "INCOME", "HEPTH"):
        x = datasets.load(name)
        table2 = [svt.expected_fraction_exact(x, e) for e in (1.0, 0.5, 0.1)]
        assert table2[0] > table2[1] > table2[2]
        assert svt.expected_fraction_exact(x, 1.0, small_bound=5) >= 0.99
    assert svt.expected_fraction_exact(datasets.load("MEDCOST"), 0.1) > 0.9
    # three datasets over 90 % at epsilon = 1 ("when epsilon is not small")
    assert sum(svt.expected_fraction_exact(datasets.load(n), 1.0) > 0.9 for n in ("ADULT", "MEDCOST", "INCOME",
                                                                                   "HEPTH")) == 3


def test_table_3_cells_are_the_counts_up_to_5():
    # the "# of cells" column of [CM15] Table 3 (4062, 3878, 2369, 1153) is the number of cells with count <= 5
    paper = {"ADULT": 4062, "MEDCOST": 3878, "INCOME": 2369, "HEPTH": 1153}
    assert {n: int(np.count_nonzero(datasets.load(n) <= 5)) for n in paper} == paper
    # and not the cells with count <= k
    assert all(np.count_nonzero(datasets.load(n) <= svt.support_k(datasets.load(n))) != c for n, c in paper.items())
