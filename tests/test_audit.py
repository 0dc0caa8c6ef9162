"""The privacy auditor: its statistics, and audits of the library's own mechanisms.

Every audit uses a fixed seed and confidence 1 - ALPHA with ALPHA = 1e-3, so an
honest mechanism is accused by chance with probability at most 1e-3 (and with a
fixed seed, never between runs).  Power checks use thresholds derived from the
exact event probabilities.
"""

import math

import numpy as np
import pytest
from conftest import Z
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpviz.audit import (
    AuditResult,
    OutputEvent,
    PredicateEvent,
    ThresholdEvent,
    candidate_events,
    check_neighbours,
    clopper_pearson,
    epsilon_lower_bound,
    histogram_pair,
    privacy_loss_interval,
    query_pair,
    statdp_x_pair,
    sum_pair,
)
from dpviz.experiments.audit import audit_target, run_audit
from dpviz.mechanisms import gaussian, gaussian_sigma, laplace

ALPHA = 1e-3
CONF = 1 - ALPHA
N = 1_000_000


# ------------------------------------------------------------------ statistics
@pytest.mark.parametrize("k,n", [(0, 10), (1, 10), (5, 10), (10, 10), (37, 1000), (999, 1000)])
def test_clopper_pearson_matches_scipy_binomtest(k, n):
    lo, hi = clopper_pearson(k, n, 0.95)
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    assert float(lo) == pytest.approx(ref.low, abs=1e-12)
    assert float(hi) == pytest.approx(ref.high, abs=1e-12)


@pytest.mark.parametrize("p", [0.02, 0.3, 0.5])
def test_clopper_pearson_covers_at_least_its_level(p):
    """Exact coverage sum_k Binom(k; n, p) 1[p in CI(k)] >= confidence for every p (Clopper-Pearson is exact)."""
    n = 60
    k = np.arange(n + 1)
    lo, hi = clopper_pearson(k, n, 0.9)
    coverage = float(np.sum(stats.binom.pmf(k, n, p) * ((lo <= p) & (p <= hi))))
    assert coverage >= 0.9


def test_privacy_loss_interval_orders_and_accounts_for_delta():
    lo, est, hi = privacy_loss_interval(5000, 10_000, 2000, 10_000, confidence=0.95)
    assert lo < est < hi
    assert float(est) == pytest.approx(math.log(2.5))
    lo_d, est_d, _ = privacy_loss_interval(5000, 10_000, 2000, 10_000, confidence=0.95, delta=0.1)
    assert float(est_d) == pytest.approx(math.log(0.4 / 0.2))
    assert lo_d < lo
    lo0, est0, hi0 = privacy_loss_interval(10, 10_000, 0, 10_000, confidence=0.95)
    assert np.isposinf(est0) and np.isposinf(hi0) and np.isfinite(lo0)
    lo1, _, _ = privacy_loss_interval(10, 10_000, 0, 10_000, confidence=0.95, delta=0.01)
    assert np.isneginf(lo1)  # p_lo <= delta: the event says nothing


# ------------------------------------------------------------------ audits of the library
def test_laplace_no_false_alarm_and_power():
    r = run_audit(audit_target("laplace", 1.0), samples=N, confidence=CONF, rng=1)
    assert r.violation is False
    assert 0.95 <= r.epsilon_lower <= 1.0
    assert r.candidates > 100 and r.search_samples == N // 10


def test_laplace_scalar_fixed_event_power_from_theory():
    """Event {y > 1} on 0 vs 1: p = 1/2, p' = e^{-1}/2, loss exactly 1; the bound is 1 - O(z sqrt(1/n))."""
    mech = lambda x, rng, size: laplace(x, 1.0, 1.0, rng=rng, size=size)  # noqa: E731
    r = epsilon_lower_bound(mech, 1.0, 0.0, event=ThresholdEvent(0, 1.0), samples=N, confidence=CONF, rng=2)
    p, q = 0.5, 0.5 * math.exp(-1)
    rel = math.sqrt((1 - p) / (p * N)) + math.sqrt((1 - q) / (q * N))
    z = stats.norm.isf(ALPHA / 4)
    assert 1 - (z + Z + 0.2) * rel <= r.epsilon_lower <= 1.0
    assert abs(r.counts[0] / N - p) < Z * math.sqrt(p * (1 - p) / N)


def test_under_noised_laplace_is_caught():
    r = run_audit(audit_target("laplace_undernoised", 1.0), samples=N, confidence=CONF, rng=3)
    assert r.violation is True and r.epsilon_lower > 1.0
    assert r.epsilon_lower <= 1.175


def test_discrete_laplace_no_false_alarm_and_power():
    r = run_audit(audit_target("laplace_discrete", 1.0), samples=N, confidence=CONF, rng=4)
    assert r.violation is False
    assert 0.95 <= r.epsilon_lower <= 1.0


def _gaussian_best_threshold(sigma, delta, n):
    """Threshold t maximising the expected bound of the event {y > t} for N(1, s^2) vs N(0, s^2), and its p, q."""
    t = np.linspace(0, 20, 2001)
    p, q = stats.norm.sf((t - 1) / sigma), stats.norm.sf(t / sigma)
    z = stats.norm.isf(ALPHA / 4)
    b = np.log(np.maximum(p - delta - z * np.sqrt(p / n), 1e-300) / (q + z * np.sqrt(q / n)))
    i = int(np.argmax(b))
    return float(t[i]), float(p[i]), float(q[i])


def test_gaussian_with_delta_no_false_alarm_and_power():
    sigma = gaussian_sigma(1.0, 1.0, 1e-5)
    t, p, q = _gaussian_best_threshold(sigma, 1e-5, N)
    mech = lambda x, rng, size: gaussian(x, 1.0, 1.0, 1e-5, rng=rng, size=size)  # noqa: E731
    r = epsilon_lower_bound(mech, 1.0, 0.0, event=ThresholdEvent(0, t), samples=N, confidence=CONF, delta=1e-5,
                            claimed_epsilon=1.0, rng=5)
    assert r.violation is False and r.epsilon_lower <= 1.0
    # power: counts within Z sd of p, q, and the Clopper-Pearson ends within (z + 0.2) sd beyond them
    zz = stats.norm.isf(ALPHA / 4) + Z + 0.2
    floor = math.log((p - 1e-5 - zz * math.sqrt(p / N)) / (q + zz * math.sqrt(q / N)))
    assert r.epsilon_lower >= floor > 0.4
    # the default search on the library target (histogram, any coordinate) also stays below the claim
    s = run_audit(audit_target("gaussian", 1.0), samples=N, confidence=CONF, rng=6)
    assert s.delta == 1e-5 and s.violation is False and s.epsilon_lower > 0.3


def test_gaussian_calibrated_for_a_larger_epsilon_is_caught():
    """Noise for (1, 1e-5) sold as (0.4, 1e-5): the theoretical floor of the bound above is > 0.4."""
    sigma = gaussian_sigma(1.0, 1.0, 1e-5)
    t, _, _ = _gaussian_best_threshold(sigma, 1e-5, N)
    mech = lambda x, rng, size: gaussian(x, 1.0, 1.0, 1e-5, rng=rng, size=size)  # noqa: E731
    r = epsilon_lower_bound(mech, 1.0, 0.0, event=ThresholdEvent(0, t), samples=N, confidence=CONF, delta=1e-5,
                            claimed_epsilon=0.4, rng=7)
    assert r.violation is True


def test_delta_is_accounted_for():
    """With probability 1e-3 this mechanism publishes x in the clear: (1, 1e-3)-DP but not 1-DP."""
    def leaky(x, rng, size):
        out = laplace(x, 1.0, 1.0, rng=rng, size=size)
        return np.where(rng.random(size) < 1e-3, x, out)

    exact = PredicateEvent(lambda y: y == 1.0, "output == 1 exactly")
    pure = epsilon_lower_bound(leaky, 1.0, 0.0, event=exact, samples=N, confidence=CONF, claimed_epsilon=1.0,
                               rng=8)
    assert pure.violation is True and pure.epsilon_lower > 4.0  # p ~ 1e-3 vs p' = 0
    approx = epsilon_lower_bound(leaky, 1.0, 0.0, event=[exact, ThresholdEvent(0, 1.0)], samples=N,
                                 confidence=CONF, delta=1e-3, claimed_epsilon=1.0, rng=8)
    assert approx.violation is False


def test_svt_no_violation_and_power():
    r = run_audit(audit_target("svt", 1.0), samples=N, confidence=CONF, rng=9)
    assert r.violation is False
    assert 0.75 <= r.epsilon_lower <= 1.0


def test_gptt_statdp_pair_bound_above_three():
    r = run_audit(audit_target("gptt", 1.0), samples=N, confidence=CONF, rng=10)
    assert r.violation is True and r.epsilon_lower > 3.0
    assert "NOT differentially private" in r.label


def test_gptt_counterexample_caught_and_matches_exact_probabilities():
    from dpviz.svt import counterexample_probability

    target = audit_target("gptt_counterexample", 1.0)
    r = run_audit(target, samples=N, confidence=CONF, rng=11)
    assert r.violation is True and r.epsilon_lower > 1.0
    exact = counterexample_probability([5], 0.5, 0.5)
    for k, p in zip(r.counts, (exact.p_d[0], exact.p_dprime[0]), strict=True):
        assert abs(k / N - p) < Z * math.sqrt(p * (1 - p) / N)
    assert r.epsilon_lower <= exact.log_ratio[0]


def test_hierarchy_no_violation_and_power():
    r = run_audit(audit_target("hierarchy", 1.0), samples=N, confidence=CONF, rng=12)
    assert r.violation is False
    assert 0.9 <= r.epsilon_lower <= 1.0  # the path event has loss exactly epsilon
    assert "path" in r.event.description


def test_matrix_mechanism_no_violation_and_power():
    """Column event: p' = 1/16, p = e^{-1}/16 (4 strategy rows, each Lap(4/eps) shifted by 1); 2e5 samples."""
    n = 200_000
    r = run_audit(audit_target("matrix", 1.0), samples=n, search_samples=20_000, confidence=CONF, rng=15)
    assert r.violation is False and r.epsilon_lower <= 1.0
    p, q = 1 / 16, math.exp(-1) / 16
    zz = stats.norm.isf(ALPHA / 4) + Z + 0.2
    floor = math.log((p - zz * math.sqrt(p / n)) / (q + zz * math.sqrt(q / n)))
    assert r.epsilon_lower >= floor > 0.75


@pytest.mark.parametrize("algorithm,truncation", [("identity", "none"), ("sqm", "svt"), ("tamm", "svt")])
def test_sum_queries_no_violation_with_one_large_record_added(algorithm, truncation):
    """Sum queries (issue: sums differing by one record with a large value): the record sits at the domain's top
    bin, the worst case for the untruncated sensitivity; the searched-and-confirmed bound must not exceed 1."""
    from dpviz import sums

    bins = np.arange(1, 11) * 10.0
    pair = sum_pair([5.0, 12.0, 33.0, 47.0, 61.0, 88.0], 100.0)

    def mech(x, rng, size):
        return sums.answer_prefix_sums(x, [50.0, 100.0], 1.0, bins=bins, algorithm=algorithm, truncation=truncation,
                                       ratio=0.9, isotonic=False, rng=rng, size=size).answers

    r = epsilon_lower_bound(mech, pair.d, pair.d_prime, samples=100_000, confidence=CONF, claimed_epsilon=1.0,
                            neighbours="records", rng=21)
    assert r.violation is False and r.epsilon_lower <= 1.0


@pytest.mark.parametrize("name", ["mwem", "dawa"])
def test_data_aware_mechanisms_no_violation(name):
    """MWEM and DAWA on 8 cells with one record added to cell 5: no event found that beats epsilon = 1."""
    from dpviz import data_aware, workloads

    counts = np.array([5.0, 0.0, 3.0, 8.0, 2.0, 4.0, 1.0, 6.0])
    pair = histogram_pair(counts, cell=5)
    W = workloads.prefix(8)
    if name == "mwem":
        def mech(x, rng, size):
            return data_aware.mwem(x, W, 1.0, rounds=3, rng=rng, size=size).estimate
    else:
        def mech(x, rng, size):
            return data_aware.dawa(x, 1.0, W, rng=rng, size=size).estimate
    r = epsilon_lower_bound(mech, pair.d, pair.d_prime, samples=20_000, confidence=CONF, claimed_epsilon=1.0,
                            neighbours="histogram", rng=22)
    assert r.violation is False and r.epsilon_lower <= 1.0


def test_single_coordinate_events_see_only_one_level_of_the_tree():
    """Thresholds on one node can show at most that level's eps/4: a passing audit can be a weak one."""
    t = audit_target("hierarchy", 1.0)
    r = epsilon_lower_bound(t.mechanism, t.pair.d, t.pair.d_prime, samples=200_000, confidence=CONF, rng=13)
    assert r.epsilon_lower <= 0.25


# ------------------------------------------------------------------ the search protocol
def test_search_uses_a_fresh_batch():
    sizes = []

    def mech(x, rng, size):
        sizes.append(size)
        return laplace(x, 1.0, 1.0, rng=rng, size=size)

    r = epsilon_lower_bound(mech, 0.0, 1.0, samples=30_000, search_samples=5_000, rng=0)
    assert sizes == [5_000, 5_000, 10_000, 20_000, 10_000, 20_000]
    assert r.samples == (30_000, 30_000) and r.search_samples == 5_000
    assert isinstance(r, AuditResult) and "epsilon >=" in r.summary()


def test_false_alarm_rate_is_at_most_alpha():
    """200 small audits of an honest Laplace at confidence 0.8: accusations ~ Binomial(200, <= 0.2)."""
    mech = lambda x, rng, size: laplace(x, 1.0, 1.0, rng=rng, size=size)  # noqa: E731
    gen = np.random.default_rng(14)
    alarms = sum(epsilon_lower_bound(mech, 0.0, 1.0, samples=400, search_samples=400, confidence=0.8,
                                     claimed_epsilon=1.0, rng=gen).violation for _ in range(200))
    assert alarms <= 200 * 0.2 + Z * math.sqrt(200 * 0.2 * 0.8)


def test_best_event_shortlist_finds_the_exact_maximum():
    g = np.random.default_rng(16)
    a, b = g.laplace(0, 1, size=(3000, 2)), g.laplace(0, 1, size=(3000, 2)) + [0.0, 1.0]
    events = candidate_events(a, b)
    from dpviz.audit import best_event, event_counts

    ev, swapped, bound = best_event(events, a, b, confidence=0.9)
    ka, kb = event_counts(events, a, b)
    full = max(privacy_loss_interval(ka, 3000, kb, 3000, confidence=0.9)[0].max(),
               privacy_loss_interval(kb, 3000, ka, 3000, confidence=0.9)[0].max())
    assert bound == pytest.approx(float(full)) and ev.coordinate == 1
    for e, x, y in zip(events[:50], ka[:50], kb[:50], strict=True):  # vectorised counts agree with evaluating each
        assert (x, y) == (int(e(a).sum()), int(e(b).sum()))


def test_candidate_events_cover_thresholds_and_atoms():
    a = np.array([[0, 1], [1, 1], [0, 0]])
    evs = candidate_events(a, a[::-1])
    assert any(isinstance(e, OutputEvent) and e.value == (1, 1) for e in evs)
    assert any(isinstance(e, ThresholdEvent) and e.coordinate == 1 for e in evs)
    cont = candidate_events(np.random.default_rng(0).normal(size=(5000, 1)), np.zeros((5000, 1)) + 0.5)
    assert not any(isinstance(e, OutputEvent) for e in cont)


def test_result_from_counts_is_the_auditors_result():
    """The auditor's result is AuditResult.from_counts of its own confirmation counts (one place for the bound)."""
    mech = lambda x, rng, size: laplace(x, 1.0, 1.0, rng=rng, size=size)  # noqa: E731
    r = epsilon_lower_bound(mech, 1.0, 0.0, event=ThresholdEvent(0, 1.0), samples=5_000, confidence=0.9,
                            claimed_epsilon=1.0, label="Laplace", rng=3)
    again = AuditResult.from_counts(r.event, r.counts, r.samples[0], confidence=0.9, claimed_epsilon=1.0,
                                    label="Laplace")
    assert again == r
    with pytest.raises(ValueError, match="k must"):
        AuditResult.from_counts(r.event, (6_000, 0), 5_000)


# ------------------------------------------------------------------ neighbours and bad input
def test_ready_made_pairs_are_neighbours():
    p = histogram_pair([3, 0, 2], cell=1)
    check_neighbours(p.d, p.d_prime, "histogram")
    s = sum_pair([1.0, 2.0, 3.0], 100.0)
    check_neighbours(s.d, s.d_prime, "records")
    x = statdp_x_pair(10)
    check_neighbours(x.d, x.d_prime, "query_answers")
    assert x.d.tolist() == [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]


def test_non_neighbours_raise():
    mech = lambda x, rng, size: laplace(x, 1.0, 1.0, rng=rng, size=size)  # noqa: E731
    with pytest.raises(ValueError, match="L1 distance 1"):
        epsilon_lower_bound(mech, [1, 2], [2, 3], neighbours="histogram", samples=10)
    with pytest.raises(ValueError, match="one added record"):
        check_neighbours([1.0, 2.0], [1.0, 5.0, 6.0], "records")
    with pytest.raises(ValueError, match="one added record"):
        check_neighbours([1.0, 2.0], [1.0, 2.0, 3.0, 4.0], "records")
    with pytest.raises(ValueError, match="at most sensitivity"):
        query_pair([0, 0], [0, 2])
    with pytest.raises(ValueError, match="relation"):
        check_neighbours([1], [2], "swap")


def test_bad_input_is_named():
    mech = lambda x, rng, size: laplace(x, 1.0, 1.0, rng=rng, size=size)  # noqa: E731
    for conf in (0.0, 1.0, 1.5, -0.1):
        with pytest.raises(ValueError, match="confidence"):
            epsilon_lower_bound(mech, 0.0, 1.0, confidence=conf, samples=10)
    with pytest.raises(ValueError, match="samples"):
        epsilon_lower_bound(mech, 0.0, 1.0, samples=0)
    with pytest.raises(TypeError, match="samples"):
        epsilon_lower_bound(mech, 0.0, 1.0, samples=10.5)
    with pytest.raises(ValueError, match="delta"):
        epsilon_lower_bound(mech, 0.0, 1.0, samples=10, delta=1.0)
    with pytest.raises(ValueError, match="`size` samples"):
        epsilon_lower_bound(lambda x, rng, size: np.zeros(3), 0.0, 1.0, samples=10)
    with pytest.raises(ValueError, match="one truth value per sample"):
        epsilon_lower_bound(mech, 0.0, 1.0, samples=10, event=lambda y: np.array([True]))
    with pytest.raises(TypeError, match="mechanism"):
        epsilon_lower_bound("laplace", 0.0, 1.0, samples=10)
    with pytest.raises(TypeError, match="event"):
        epsilon_lower_bound(mech, 0.0, 1.0, samples=10, event=3)
    with pytest.raises(ValueError, match="empty"):
        epsilon_lower_bound(mech, 0.0, 1.0, samples=10, event=[])
    with pytest.raises(ValueError, match="n must"):
        clopper_pearson(1, 0)
    with pytest.raises(ValueError, match="name"):
        audit_target("exponential")


@settings(max_examples=30, deadline=None)
@given(st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0), st.just(float("nan"))))
def test_fuzz_confidence_outside_unit_interval(conf):
    with pytest.raises(ValueError, match="confidence"):
        clopper_pearson(1, 10, conf)


# ------------------------------------------------------------------ Mironov's floating-point attack
def test_numpy_laplace_outputs_are_all_reachable_from_their_own_centre():
    """If numpy changed its Laplace sampler this would fail loudly (and the attack event must be rewritten)."""
    g = np.random.default_rng(20)
    for loc, scale in [(0.0, 1.0), (3.0, 0.5)]:
        y = g.laplace(loc, scale, size=3000)
        from dpviz.audit import numpy_laplace_reachable

        assert numpy_laplace_reachable(y, loc, scale).all()


def test_float_laplace_is_caught_by_mironov_event():
    r = run_audit(audit_target("laplace_float_bits", 1.0), samples=50_000, confidence=CONF, rng=21)
    assert r.counts[1] == 0  # never under the dataset the event is built on: a certain distinguisher
    assert r.violation is True and r.epsilon_lower > 5.0


# --- bad input: every refusal names the parameter (issue 13) ---------------------------------------------------

def _laplace_mech(x, rng, size):
    return laplace(x, 1.0, 1.0, rng=rng, size=size)


def test_counts_refuse_bools_and_name_the_count():
    from dpviz.audit import clopper_pearson, privacy_loss_interval

    with pytest.raises(TypeError, match="k must be an integer count"):
        clopper_pearson(True, 10)
    with pytest.raises(TypeError, match="n must be an integer count"):
        clopper_pearson(0, True)
    with pytest.raises(ValueError, match=r"n must hold integers with 1 <= n <= 2\*\*53"):
        clopper_pearson(500, 1e300)  # beta quantiles would be NaN
    with pytest.raises(ValueError, match="k_prime must hold integers"):
        privacy_loss_interval(500, 1000, -1, 1000)
    with pytest.raises(ValueError, match="n_prime must hold integers"):
        privacy_loss_interval(500, 1000, 200, 0)
    with pytest.raises(TypeError, match="k_prime must be an integer count"):
        privacy_loss_interval(500, 1000, True, 1000)
    lo, hi = clopper_pearson(0, 2**53)  # the largest accepted count still answers
    assert float(lo) == 0.0 and 0.0 < float(hi) < 1e-15


def test_the_datasets_are_named_when_the_mechanism_refuses_them():
    from dpviz.audit import epsilon_lower_bound, sample_outputs, select_event

    with pytest.raises(ValueError, match=r"^d=nan was refused"):
        epsilon_lower_bound(_laplace_mech, np.nan, 1.0, event=ThresholdEvent(0, 0.5), samples=100, rng=0)
    with pytest.raises(TypeError, match=r"^d_prime='1' was refused"):
        epsilon_lower_bound(_laplace_mech, 0.0, "1", event=ThresholdEvent(0, 0.5), samples=100, rng=0)
    with pytest.raises(ValueError, match=r"^d_prime=inf was refused"):
        select_event(_laplace_mech, 0.0, np.inf, samples=100, rng=0)
    with pytest.raises(ValueError, match="no coordinates"):
        sample_outputs(_laplace_mech, np.array([]), 5, rng=0)


def test_sample_counts_are_capped_before_anything_is_drawn():
    from dpviz.audit import epsilon_lower_bound, sample_outputs, select_event, statdp_x_pair

    calls = []

    def mech(x, rng, size):
        calls.append(size)
        return laplace(x, 1.0, 1.0, rng=rng, size=size)

    for call, name in [(lambda: epsilon_lower_bound(mech, 0.0, 1.0, samples=10**15), "samples"),
                       (lambda: epsilon_lower_bound(mech, 0.0, 1.0, search_samples=10**15), "search_samples"),
                       (lambda: select_event(mech, 0.0, 1.0, samples=10**15), "samples"),
                       (lambda: sample_outputs(mech, 0.0, 10**15), "size"),
                       (lambda: statdp_x_pair(10**15), "m")]:
        with pytest.raises(ValueError, match=rf"{name}=1000000000000000 would allocate"):
            call()
    assert calls == []


def test_flags_options_and_events_are_checked():
    from dpviz.audit import (
        best_event,
        candidate_events,
        check_neighbours,
        event_counts,
        histogram_pair,
        mironov_event,
        sum_pair,
    )

    a, b = np.arange(6.0), np.arange(6.0) + 1
    with pytest.raises(TypeError, match="add must"):
        histogram_pair([3.0, 1.0], add="no")
    with pytest.raises(ValueError, match="relation must be one of"):
        check_neighbours([1.0], [2.0], "")
    with pytest.raises(ValueError, match="sensitivity"):
        check_neighbours([3.0], [4.0], "histogram", sensitivity=-1.0)
    with pytest.raises(TypeError, match="record must be a real number"):
        sum_pair([1.0], True)
    with pytest.raises(ValueError, match="scale"):
        mironov_event(0.0, -1.0)
    with pytest.raises(TypeError, match="loc must be a real number"):
        mironov_event(True, 1.0)
    with pytest.raises((TypeError, ValueError), match="delta"):
        best_event([ThresholdEvent(0, 2.0)], a, b, delta="1")
    with pytest.raises(TypeError, match="shortlist"):
        best_event([ThresholdEvent(0, 2.0)], a, b, shortlist=True)
    with pytest.raises(TypeError, match="max_atoms"):
        candidate_events(a, b, max_atoms=True)
    with pytest.raises(ValueError, match="outputs_prime must hold outputs of the same size"):
        candidate_events(a, np.ones((6, 2)))
    with pytest.raises(ValueError, match="b must hold outputs of the same size"):
        event_counts([ThresholdEvent(0, 2.0)], a, np.ones((6, 2)))
    with pytest.raises(ValueError, match="a must contain only finite"):
        event_counts([ThresholdEvent(0, 2.0)], np.array([np.nan, 1.0]), b)


def test_experiments_refuse_what_they_cannot_audit():
    from dpviz.experiments.audit import audit_curve, audit_table, prepare_audit_curve, sampler_fit

    with pytest.raises(TypeError, match="target must be an AuditTarget"):
        run_audit("laplace")
    with pytest.raises(TypeError, match="target must be an AuditTarget"):
        prepare_audit_curve("laplace")
    with pytest.raises(TypeError, match="curve must be an AuditCurve"):
        audit_curve("laplace", 10)
    with pytest.raises(ValueError, match="samples=1000000000000000 would allocate"):
        audit_table(samples=10**15)
    with pytest.raises(TypeError, match="names must be a sequence"):
        audit_table("laplace")
    with pytest.raises(ValueError, match="names must name at least one"):
        audit_table([])
    with pytest.raises(ValueError, match="scale must be at most"):
        sampler_fit("laplace", 1e300)
    with pytest.raises(ValueError, match="scale"):  # the discrete sampler itself refuses scales below 1e-12
        sampler_fit("laplace", 1e-300, samples=100)
    with pytest.raises(ValueError, match="puts all"):
        sampler_fit("laplace", 1e-3, samples=100)


def test_the_auditor_takes_no_accountant():
    """The auditor audits; it releases nothing, so no public function of the audit topic charges a ledger."""
    import inspect

    import dpviz.audit
    import dpviz.experiments.audit

    for mod in (dpviz.audit, dpviz.experiments.audit):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if callable(obj) and not isinstance(obj, type):
                assert "accountant" not in inspect.signature(obj).parameters, f"{mod.__name__}.{name}"


def test_privacy_loss_interval_is_bonferroni_from_exact_binomial_tails():
    """Each Clopper-Pearson end is at level alpha/4 (two sides, two probabilities), by inverting binomial tails.

    Independent of the code's beta quantiles: p_lo solves P[Bin(n, p) >= k] = alpha/4 and p'_hi solves
    P[Bin(n', p) <= k'] = alpha/4 (brentq on scipy.stats.binom).  Without the Bonferroni split (each interval at
    level ``confidence``) the bound would be anti-conservative and this test fails.
    """
    from scipy.optimize import brentq

    from dpviz.audit import privacy_loss_interval

    k, n, kp, n_p, conf = 500, 1000, 200, 1000, 0.95
    q = (1 - conf) / 4
    p_lo = brentq(lambda p: stats.binom.sf(k - 1, n, p) - q, 1e-9, 1 - 1e-9, xtol=1e-14)
    p_hi_prime = brentq(lambda p: stats.binom.cdf(kp, n_p, p) - q, 1e-9, 1 - 1e-9, xtol=1e-14)
    lower, _, upper = privacy_loss_interval(k, n, kp, n_p, confidence=conf)
    assert float(lower) == pytest.approx(math.log(p_lo / p_hi_prime), abs=1e-9)
    p_hi = brentq(lambda p: stats.binom.cdf(k, n, p) - q, 1e-9, 1 - 1e-9, xtol=1e-14)
    p_lo_prime = brentq(lambda p: stats.binom.sf(kp - 1, n_p, p) - q, 1e-9, 1 - 1e-9, xtol=1e-14)
    assert float(upper) == pytest.approx(math.log(p_hi / p_lo_prime), abs=1e-9)


# ------------------------------------------------------------------ events are checked when made and when audited
def _laplace_mech(x, rng, size):
    return laplace(x, 1.0, 1.0, rng=rng, size=size)


@pytest.mark.parametrize("event", [ThresholdEvent(5, 0.5), ThresholdEvent(1, 0.0, above=False)])
def test_a_threshold_on_a_coordinate_the_output_lacks_is_refused_by_name(event):
    with pytest.raises(ValueError, match=r"event 'output\[\d\] .*coordinate must be in \[0, 0\]"):
        epsilon_lower_bound(_laplace_mech, 0.0, 1.0, event=event, samples=100, rng=0)


def test_an_output_event_of_the_wrong_length_is_refused_by_name():
    with pytest.raises(ValueError, match=r"event 'output == \(1,0\)' has 2 .*value must have length 1"):
        epsilon_lower_bound(_laplace_mech, 0.0, 1.0, event=OutputEvent((1, 0)), samples=100, rng=0)


def test_a_listed_event_that_does_not_fit_is_refused_by_its_index():
    events = [ThresholdEvent(0, 1.0), ThresholdEvent(3, 1.0)]
    with pytest.raises(ValueError, match=r"event\[1\] 'output\[3\] > 1'.*coordinate must be in \[0, 0\]"):
        epsilon_lower_bound(_laplace_mech, 0.0, 1.0, event=events, samples=100, search_samples=100, rng=0)


def test_event_counts_and_hits_refuse_events_that_do_not_fit():
    from dpviz.audit import event_counts, event_hits

    a, b = np.arange(6.0), np.arange(6.0) + 1
    with pytest.raises(ValueError, match=r"events\[1\] 'output\[2\] > 1'.*\[0, 0\]"):
        event_counts([ThresholdEvent(0, 1.0), ThresholdEvent(2, 1.0)], a, b)
    with pytest.raises(ValueError, match=r"events\[0\] 'output == \(1,2\)'.*length 1"):
        event_counts([OutputEvent((1, 2))], a, b)
    with pytest.raises(ValueError, match=r"event 'output == \(1,2,3\)'.*length 2"):
        event_hits(OutputEvent((1, 2, 3)), np.ones((4, 2)))


@pytest.mark.parametrize(("make", "error", "pattern"), [
    (lambda: ThresholdEvent(0.5, 0.0), TypeError, "coordinate must be an integer, got 0.5"),
    (lambda: ThresholdEvent(-1, 0.0), ValueError, "coordinate must be an integer >= 0, got -1"),
    (lambda: ThresholdEvent(True, 0.0), TypeError, "coordinate must be an integer"),
    (lambda: ThresholdEvent(0, np.nan), ValueError, "threshold must be a number, got NaN"),
    (lambda: ThresholdEvent(0, np.inf), ValueError, "threshold must be finite"),
    (lambda: ThresholdEvent(0, "1"), TypeError, "threshold must be a real number"),
    (lambda: ThresholdEvent(0, 1.0, above="no"), TypeError, "above must be True or False, got 'no'"),
    (lambda: OutputEvent(()), ValueError, "value must be a flat, non-empty tuple"),
    (lambda: OutputEvent(((1, 0), (0, 1))), ValueError, "value must be a flat"),
    (lambda: OutputEvent((np.nan, 1.0)), ValueError, "value must hold finite numbers"),
    (lambda: OutputEvent(("a", "b")), TypeError, "value must be a tuple of numbers"),
    (lambda: OutputEvent(1), TypeError, "value must be a tuple of numbers"),
])
def test_event_constructors_refuse_bad_fields_by_name(make, error, pattern):
    with pytest.raises(error, match=pattern):
        make()


def test_valid_events_are_unchanged_by_the_checks():
    ev = ThresholdEvent(np.int64(1), 2, above=np.bool_(False))
    assert ev == ThresholdEvent(1, 2.0, False) and ev.description == "output[1] <= 2"
    assert type(ev.coordinate) is int and type(ev.above) is bool
    assert OutputEvent([1, 0]) == OutputEvent((1, 0))
    assert OutputEvent((True, False))(np.array([[True, False], [False, False]])).tolist() == [True, False]


def test_empty_batches_are_refused_by_name():
    from dpviz.audit import best_event

    with pytest.raises(ValueError, match="outputs must hold at least one sample"):
        candidate_events([], [])
    with pytest.raises(ValueError, match="outputs_prime must hold at least one sample"):
        candidate_events([1.0], np.empty((0, 1)))
    with pytest.raises(ValueError, match="a must hold at least one sample"):
        best_event([ThresholdEvent(0, 1.0)], [], [1.0])
