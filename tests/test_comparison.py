"""Tests for dpviz.experiments.comparison: DPBench scaled error, data generation, budgets, the tidy table."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import Z

from dpviz import workloads
from dpviz.accountant import PrivacyAccountant
from dpviz.experiments import comparison as C


def test_scaled_error_is_dpbench_definition():
    W = workloads.all_ranges(3)
    x = np.array([1.0, 2.0, 5.0])
    est = np.array([[1.0, 2.0, 5.0], [2.0, 2.0, 5.0]])
    err = C.scaled_error(est, x, W)
    # second release: every range containing cell 0 is off by 1: ranges [0,1) [0,2) [0,3) -> ||e||_2 = sqrt(3)
    np.testing.assert_allclose(err, [0.0, math.sqrt(3) / (6 * 8)])


def test_identity_prefix_error_matches_theory():
    # Identity on the prefix workload: query i sums i+1 independent Lap(1/eps), variance 2(i+1)/eps^2,
    # so E[rmse^2] = (1/n) sum_i 2(i+1)/eps^2 = (n+1)/eps^2.
    n, eps, k = 64, 0.5, 3000
    x = C.make_histogram("smooth", n, scale=5000, rng=1)
    run = C.run_algorithm("Identity", x, workloads.prefix(n), eps, trials=k, rng=2)
    r2 = run.rmse**2
    assert abs(r2.mean() - (n + 1) / eps**2) < Z * r2.std(ddof=1) / math.sqrt(k)
    np.testing.assert_allclose(run.scaled_errors, run.rmse * math.sqrt(n) / (n * x.sum()))


@pytest.mark.parametrize("algorithm", C.available_algorithms())
def test_every_algorithm_spends_exactly_epsilon_and_returns_histograms(algorithm):
    x = C.make_histogram("step", 48, scale=3000, rng=0)
    acc = PrivacyAccountant(1.2)
    run = C.run_algorithm(algorithm, x, workloads.prefix(48), 0.3, trials=4, rng=0, accountant=acc)
    assert sum((r.epsilon for r in acc.history), Fraction(0)) == 4 * Fraction(3, 10)  # 4 releases of 0.3
    assert acc.remaining.epsilon == 0.0
    assert run.estimates.shape == (4, 48) and run.scaled_errors.shape == (4,)
    assert np.all(np.isfinite(run.estimates)) and np.all(run.scaled_errors >= 0)
    assert (run.partitions is not None) == algorithm.startswith("DAWA")


def test_make_histogram_datasets_shapes_and_scale():
    from dpviz import datasets

    full = datasets.load("ADULT")
    x = C.make_histogram("ADULT", 512)
    assert x.shape == (512,) and x.sum() == full.sum()
    np.testing.assert_array_equal(x[:3], [full[0:8].sum(), full[8:16].sum(), full[16:24].sum()])
    y = C.make_histogram("ADULT", 512, scale=1000, rng=3)
    assert y.sum() == 1000 and np.all(y[x == 0] == 0)  # sampled from the shape: empty cells stay empty
    for s in C.SHAPES:
        p = C.synthetic_shape(s, 100)
        assert p.shape == (100,) and np.all(p > 0) and p.sum() == pytest.approx(1.0)
        assert C.make_histogram(s, 100, scale=777, rng=0).sum() == 777
    np.testing.assert_array_equal(C.make_histogram("zipf", 50, scale=99, rng=5),
                                  C.make_histogram("zipf", 50, scale=99, rng=5))


def test_data_aware_wins_where_it_should():
    # uniform or smooth data, tiny epsilon: learning the (simple) shape beats measuring every cell;
    # large epsilon on rough data: Uniform's approximation error dominates and Identity wins by far.
    t = C.run_comparison(["Identity", "Uniform", "DAWA"], ["uniform", "smooth", "step"], [0.01, 10.0], trials=6,
                         n=256, scale=10_000, rng=1)
    assert t.winners()[("uniform", 0.01)] in ("Uniform", "DAWA")
    assert t.mean_error("DAWA", "uniform", 0.01) < t.mean_error("Identity", "uniform", 0.01) / 5
    assert t.mean_error("DAWA", "smooth", 0.01) < t.mean_error("Identity", "smooth", 0.01) / 2
    assert t.mean_error("Uniform", "step", 10.0) > 10 * t.mean_error("Identity", "step", 10.0)


def test_table_is_tidy_reproducible_and_summarised():
    calls = []
    grid = dict(algorithms=["Identity", "H_b", "MWEM"], datasets=["spikes", "zipf"], epsilons=[0.1, 1.0])
    t = C.run_comparison(**grid, trials=3, n=64, scale=2000, rng=7,
                         progress=lambda done, total, label: calls.append((done, total, label)))
    assert len(t.rows) == 3 * 2 * 2 * 3
    cols = t.columns()
    assert set(cols) >= {"algorithm", "dataset", "epsilon", "trial", "scaled_error", "rmse", "scale"}
    assert all(len(v) == len(t.rows) for v in cols.values())
    assert [c[0] for c in calls] == list(range(1, 13)) and calls[-1][1] == 12
    # a sub-grid reproduces the same numbers (seeds depend on names, not positions)
    sub = C.run_comparison(["MWEM"], ["zipf"], [1.0], trials=3, n=64, scale=2000, rng=7)
    np.testing.assert_array_equal(sub.runs[("MWEM", "zipf", 1.0)].estimates, t.runs[("MWEM", "zipf", 1.0)].estimates)
    summ = t.summary()
    assert len(summ) == 12
    for s in summ:
        run = t.runs[(s.algorithm, s.dataset, s.epsilon)]
        assert s.mean == pytest.approx(run.scaled_errors.mean()) and s.lower <= s.mean <= s.upper
    counts = t.win_counts()
    assert all(sum(c.values()) == 2 for c in counts.values())
    text = t.pivot(0.1)
    assert text.count("*") == 2 + 1 and "spikes" in text  # one * in the title and "H_b" in text
    rel = t.pivot(1.0, relative_to="Identity")
    assert "1.00" in rel


def test_keep_errors_and_dict_datasets():
    x = np.array([5.0, 0, 0, 9, 1, 1, 0, 30])
    t = C.run_comparison(["Identity"], {"mine": x}, [1.0], trials=2, workload="all_ranges", keep_errors=True)
    run = t.runs[("Identity", "mine", 1.0)]
    assert run.errors.shape == (2, 36)
    W = workloads.all_ranges(8)
    np.testing.assert_allclose(run.errors, W.answer(run.estimates) - W.answer(x))


@pytest.mark.parametrize("call,exc,match", [
    (lambda: C.run_comparison(["Nope"], ["uniform"], [1.0]), ValueError, "algorithms"),
    (lambda: C.run_comparison([], ["uniform"], [1.0]), ValueError, "algorithms"),
    (lambda: C.run_comparison(["Identity"], ["uniform"], []), ValueError, "epsilons"),
    (lambda: C.run_comparison(["Identity"], ["uniform"], [0.0]), ValueError, "epsilons"),
    (lambda: C.run_comparison(["Identity"], ["uniform"], [1.0], trials=0), ValueError, "trials"),
    (lambda: C.run_comparison(["Identity"], {"a": [1, 2], "b": [1, 2, 3]}, [1.0]), ValueError, "same number"),
    (lambda: C.run_comparison(["Identity"], {"a": [0, 0]}, [1.0]), ValueError, "empty"),
    (lambda: C.run_comparison(["Identity"], ["uniform"], [1.0], workload="bogus"), ValueError, "workload"),
    (lambda: C.make_histogram("CPS"), ValueError, "histogram"),
    (lambda: C.make_histogram("nope"), ValueError, "unknown dataset"),
    (lambda: C.make_histogram(3), TypeError, "source"),
    (lambda: C.make_histogram("uniform", 16, scale=10.5), ValueError, "scale"),
    (lambda: C.make_histogram("uniform", 16, scale=-1), ValueError, "scale"),
    (lambda: C.make_histogram("ADULT", 5000), ValueError, "n must be an integer in"),
    (lambda: C.synthetic_shape("triangle", 10), ValueError, "shape"),
    (lambda: C.make_workload("all_ranges", 2048), ValueError, "n <= 1024"),
    (lambda: C.run_algorithm("Identity", [1.0, 2.0], workloads.prefix(3), 1.0), ValueError, "workload"),
    (lambda: C.run_comparison(["Identity"], ["uniform"], [1.0]).pivot(2.0), ValueError, "epsilon"),
])
def test_bad_input_named(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_explorer_run_profile_groups_and_cache():
    cache = {}
    r = C.comparison_explorer_run("zipf", ["Identity", "DAWA-H2"], 0.5, n=32, scale=500, workload="all_ranges",
                                  trials=4, rng=3, max_points=50, cache=cache)
    W = workloads.all_ranges(32)
    s, e = W.intervals()
    order = np.lexsort((s, e - s))
    m = order.size  # 528 queries in 50 groups of consecutive queries (sorted by width, then start)
    groups = np.arange(m) * 50 // m
    run = r.runs["Identity"]
    per = np.abs(run.errors[:, order])
    want = np.array([[row[groups == g].mean() for g in range(50)] for row in per])
    np.testing.assert_allclose(r.profile_mean["Identity"], want.mean(axis=0))
    np.testing.assert_allclose(r.profile_upper["Identity"], np.percentile(want, 95, axis=0))
    np.testing.assert_allclose(r.query_width, [(e - s)[order][groups == g].mean() for g in range(50)])
    assert r.partition_algorithm == "DAWA-H2" and r.partition is run_partition(r)
    again = C.comparison_explorer_run("zipf", ["Identity", "DAWA-H2", "Uniform"], 0.5, n=32, scale=500,
                                      workload="all_ranges", trials=4, rng=3, max_points=50, cache=cache)
    assert again.computed == ("Uniform",) and again.runs["Identity"] is run


def run_partition(r):
    return r.runs[r.partition_algorithm].partitions[0]


def _wait_for_shared_runs(timeout_s: float = 60.0) -> None:
    import time

    from dpviz.experiments.comparison.explorer import _shared_run

    t0 = time.monotonic()
    while _shared_run.pending() and time.monotonic() - t0 < timeout_s:
        time.sleep(0.02)
    assert not _shared_run.pending(), "the background warm-up did not finish"


def test_prefetched_runs_equal_runs_computed_in_the_call():
    """Runs computed in the background (shared cache) equal the same setting computed by the call itself (a dict
    cache, so nothing is shared), and a call after the warm-up computes nothing."""
    setting = dict(source="zipf", algorithms=["Identity", "MWEM", "DAWA"], epsilon=0.3, n=32, scale=700,
                   workload="prefix", trials=3, rng=11)
    C.prefetch_comparison_runs([setting])
    _wait_for_shared_runs()
    warm = C.comparison_explorer_run("zipf", setting["algorithms"], 0.3, n=32, scale=700, trials=3, rng=11)
    assert warm.computed == ()
    own = C.comparison_explorer_run("zipf", setting["algorithms"], 0.3, n=32, scale=700, trials=3, rng=11,
                                    cache={})
    assert own.computed == tuple(setting["algorithms"])
    for a in setting["algorithms"]:
        np.testing.assert_array_equal(warm.runs[a].estimates, own.runs[a].estimates)
        np.testing.assert_array_equal(warm.runs[a].errors, own.runs[a].errors)


def test_epsilon_is_read_to_twelve_digits():
    """A slider step computed in the browser may differ from Python's in the last bits: same runs, same noise."""
    eps = 10 ** -1.01
    a = C.comparison_explorer_run("step", ["Identity"], eps, n=16, trials=2, rng=4, cache={})
    b = C.comparison_explorer_run("step", ["Identity"], np.nextafter(eps, 1.0), n=16, trials=2, rng=4, cache={})
    np.testing.assert_array_equal(a.runs["Identity"].estimates, b.runs["Identity"].estimates)
    assert a.epsilon == b.epsilon == float(f"{eps:.12g}")


@pytest.mark.parametrize("settings, exc, match", [
    ([("step", ["Identity"], 1.0)], TypeError, "dict"),
    ([dict(source="step", algorithms=["Identity"], epsilon=1.0, size=3)], ValueError, "size"),
    ([dict(source=3, algorithms=["Identity"], epsilon=1.0)], TypeError, "source"),
    ([dict(source="step", algorithms=["Nope"], epsilon=1.0)], ValueError, "algorithms"),
    ([dict(source="step", algorithms=["Identity"], epsilon=0.0)], ValueError, "epsilon"),
    ([dict(source="step", algorithms=["Identity"], epsilon=1.0, trials=1)], ValueError, "trials"),
    ([dict(source="step", algorithms=["Identity"], epsilon=1.0, workload="rows")], ValueError, "workload"),
    ([dict(source="step", algorithms=["Identity"], epsilon=1.0, scale=-5)], ValueError, "scale"),
])
def test_prefetch_refuses_bad_settings_before_queueing_anything(settings, exc, match):
    from dpviz.experiments.comparison.explorer import _shared_run

    _wait_for_shared_runs()
    good = dict(source="step", algorithms=["Uniform"], epsilon=0.77, n=16, trials=2)
    with pytest.raises(exc, match=match):
        C.prefetch_comparison_runs([good, *settings])
    assert _shared_run.pending() == 0


def test_registry_lives_in_the_core_and_is_re_exported():
    from dpviz import histogram_algorithms as H

    assert C.ALGORITHMS is H.ALGORITHMS and C.AlgorithmInfo is H.AlgorithmInfo
    assert C.available_algorithms() == H.available_algorithms()


def test_release_histogram_matches_run_algorithm_and_checks_its_input():
    from dpviz.histogram_algorithms import release_histogram

    x = C.make_histogram("step", 32, scale=2000, rng=0)
    W = workloads.prefix(32)
    for a in C.available_algorithms():
        rel = release_histogram(a, x, W, 0.5, rng=3, size=2)
        run = C.run_algorithm(a, x, W, 0.5, trials=2, rng=3)
        np.testing.assert_array_equal(rel.estimates, run.estimates)  # same stream, same numbers
        assert rel.estimates.shape == (2, 32)
        assert (rel.partitions is not None) == a.startswith("DAWA")
        if rel.partitions is not None:
            assert len(rel.partitions) == 2 and all(p.n == 32 for p in rel.partitions)
    with pytest.raises(ValueError, match="algorithm"):
        release_histogram("Magic", x, W, 0.5)
    with pytest.raises(ValueError, match="workload"):
        release_histogram("Identity", x, workloads.prefix(8), 0.5)
    with pytest.raises(ValueError, match="size"):
        release_histogram("Identity", x, W, 0.5, size=0)
    with pytest.raises(ValueError, match="epsilon"):
        release_histogram("Identity", x, W, 0.0)


# one accounting rule: size=k releases are k mechanisms (k * epsilon), whichever algorithm
@pytest.mark.parametrize("algorithm", C.available_algorithms())
@pytest.mark.parametrize("k", [1, 3])
def test_release_histogram_size_k_charges_k_epsilon(algorithm, k):
    from dpviz.histogram_algorithms import release_histogram

    x = C.make_histogram("step", 32, scale=2000, rng=0)
    acc = PrivacyAccountant(10.0)
    release_histogram(algorithm, x, workloads.prefix(32), 0.7, rng=0, size=k, accountant=acc)
    assert sum((r.epsilon for r in acc.history), Fraction(0)) == k * Fraction(7, 10)


@pytest.mark.parametrize("algorithm", C.available_algorithms())
def test_release_histogram_refused_records_nothing(algorithm):
    from dpviz.accountant import BudgetExceededError
    from dpviz.histogram_algorithms import release_histogram

    x = C.make_histogram("step", 32, scale=2000, rng=0)
    acc = PrivacyAccountant(1.0)
    acc.spend(0.25, label="earlier")
    with pytest.raises(BudgetExceededError):
        release_histogram(algorithm, x, workloads.prefix(32), 0.3, rng=0, size=3, accountant=acc)  # 0.9 > 0.75
    assert len(acc.history) == 1 and acc.spent.epsilon == 0.25


@pytest.mark.parametrize("algorithm", ["Identity", "MWEM", "DAWA-H2"])
@pytest.mark.parametrize("bad", ["acc", 1])
def test_accountant_type_checked(algorithm, bad):
    from dpviz.histogram_algorithms import release_histogram

    x = C.make_histogram("step", 16, scale=200, rng=0)
    with pytest.raises(TypeError, match="accountant"):
        release_histogram(algorithm, x, workloads.prefix(16), 0.3, rng=0, accountant=bad)
    with pytest.raises(TypeError, match="accountant"):
        C.run_algorithm(algorithm, x, workloads.prefix(16), 0.3, trials=2, rng=0, accountant=bad)


def test_run_algorithm_refused_records_nothing():
    from dpviz.accountant import BudgetExceededError

    x = C.make_histogram("step", 16, scale=200, rng=0)
    acc = PrivacyAccountant(1.0)
    with pytest.raises(BudgetExceededError):
        C.run_algorithm("DAWA-H2", x, workloads.prefix(16), 0.3, trials=4, rng=0, accountant=acc)  # 1.2 > 1
    assert acc.history == [] or len(acc.history) == 0


@pytest.mark.parametrize("bad", ["no", "", 1, 0, None])
def test_keep_errors_must_be_a_bool(bad):
    x = C.make_histogram("step", 16, scale=200, rng=0)
    with pytest.raises(TypeError, match="keep_errors"):
        C.run_algorithm("Identity", x, workloads.prefix(16), 0.3, trials=2, rng=0, keep_errors=bad)
    with pytest.raises(TypeError, match="keep_errors"):
        C.run_comparison(["Identity"], ["uniform"], [1.0], trials=2, n=16, scale=100, keep_errors=bad)


@pytest.mark.parametrize("call, exc, name", [
    (lambda: C.comparison_explorer_run(3, ["Identity"], 1.0), TypeError, "source"),
    (lambda: C.comparison_explorer_run(None, ["Identity"], 1.0), TypeError, "source"),
    (lambda: C.make_histogram("nope", 16), ValueError, "source"),
    (lambda: C.make_histogram("uniform", 10**15), ValueError, "n"),
    (lambda: C.synthetic_shape("step", 10**15), ValueError, "n"),
    (lambda: C.make_workload("prefix", 10**15), ValueError, "n"),
    (lambda: C.scaled_error("abc", [1.0, 2.0], workloads.prefix(2)), TypeError, "estimates"),
    (lambda: C.scaled_error([[[1.0]]], [1.0], workloads.prefix(1)), ValueError, "estimates"),
    (lambda: C.scaled_error([1.0, np.nan], [1.0, 2.0], workloads.prefix(2)), ValueError, "estimates"),
    (lambda: C.run_comparison(["Identity"], ["uniform"], [1.0], trials=10**15, n=16), ValueError, "trials"),
    (lambda: C.run_comparison(["Identity"], ["uniform"], [1.0], n=10**15), ValueError, "n"),
    (lambda: C.mwem_error_by_round(np.ones(8), workloads.prefix(8), 1.0, trials=10**15), ValueError, "trials"),
    (lambda: C.mwem_error_by_round(np.ones(8), workloads.prefix(8), 1e-300), ValueError, "epsilon"),
    (lambda: C.run_algorithm("Identity", np.ones(8), workloads.prefix(8), 1e-300), ValueError, "epsilon"),
    (lambda: C.run_algorithm("Identity", np.ones(8), workloads.prefix(8), 1.0, trials=10**15), ValueError,
     "trials"),
])
def test_bad_input_is_refused_by_name(call, exc, name):
    import time

    t0 = time.perf_counter()
    with pytest.raises(exc, match=name):
        call()
    assert time.perf_counter() - t0 < 2.0


def test_a_release_refused_by_its_callee_records_nothing():
    """release_histogram leaves the charge to the release it calls, which checks everything first (review finding:
    Privelet used to be charged, then refused for its size)."""
    from dpviz import workloads
    from dpviz.accountant import PrivacyAccountant
    from dpviz.histogram_algorithms import release_histogram

    n = 2**22 + 1  # Privelet pads to 2**23 and refuses its Haar matrix; the 4n pre-check lets it through
    acc = PrivacyAccountant(10.0)
    with pytest.raises(ValueError):
        release_histogram("Privelet", np.zeros(n), workloads.prefix(n), 1.0, rng=0, accountant=acc)
    assert acc.history == []
    release_histogram("Privelet", np.zeros(8), workloads.prefix(8), 1.0, rng=0, size=3, accountant=acc)
    assert acc.spent.epsilon == 3.0
