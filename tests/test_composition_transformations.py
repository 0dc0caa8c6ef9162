"""Stability and subsampling (the composition lecture's V2 and V3), against exact and brute-force computations."""

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from dpviz import audit
from dpviz import composition as C
from dpviz.accountant import BudgetExceededError, PrivacyAccountant
from dpviz.experiments.subsampling import subsampling_tails

Z = 4.5   # two-sided normal quantile: a false alarm per check has probability < 1e-5


def _subsampled_density(flags, epsilon, rate, y):
    """Density of (count of flagged rows in a Poisson sample) + Lap(1/eps), by enumerating every sample."""
    n = len(flags)
    dens = np.zeros_like(y)
    for kept in itertools.product([0, 1], repeat=n):
        prob = math.prod(rate if k else 1 - rate for k in kept)
        count = sum(f for f, k in zip(flags, kept, strict=True) if k)
        dens += prob * stats.laplace.pdf(y, loc=count, scale=1 / epsilon)
    return dens


@pytest.mark.parametrize("epsilon, rate", [(1.0, 0.1), (0.3, 0.5), (2.0, 0.25), (0.05, 0.9), (1.0, 1.0)])
def test_amplified_epsilon_is_the_exact_worst_case_loss_of_a_subsampled_count(epsilon, rate):
    # D: 3 rows (2 flagged); D': D plus one flagged row.  Enumerate all samples of both, take the
    # largest log-ratio of the output densities in either direction over a wide grid.
    d, d_prime = [1, 0, 1], [1, 0, 1, 1]
    y = np.linspace(-40 / epsilon, 40 / epsilon, 40_001)
    f, g = _subsampled_density(d, epsilon, rate, y), _subsampled_density(d_prime, epsilon, rate, y)
    worst = np.max(np.abs(np.log(g / f)))
    assert worst == pytest.approx(C.amplified_epsilon(epsilon, rate), rel=1e-9)


def test_lectures_2p_epsilon_bound_holds_for_epsilon_at_most_one_only():
    eps = np.linspace(1e-4, 1.0, 200)
    for p in (1e-3, 0.05, 0.3, 0.7, 1.0):
        assert all(C.amplified_epsilon(e, p) <= 2 * p * e for e in eps)
    # beyond eps = 1 the "2 p eps" shorthand can understate the cost: e.g. eps = 3, p = 0.1
    assert C.amplified_epsilon(3.0, 0.1) > 2 * 0.1 * 3.0
    # and for small eps the cost is close to p * eps, half the shorthand
    assert C.amplified_epsilon(0.01, 0.1) / (0.1 * 0.01) == pytest.approx(1.0, abs=0.006)


def test_subsampled_count_has_binomial_plus_laplace_moments():
    eps, rate, m, n = 0.5, 0.3, 40, 200_000
    out = C.subsampled_count(np.r_[np.ones(m), np.zeros(7)], eps, rate, rng=3, size=n)
    mean, var = m * rate, m * rate * (1 - rate) + 2 / eps**2
    assert abs(out.mean() - mean) < Z * math.sqrt(var / n)
    # variance: SE of the sample variance from the fourth moment (Laplace kurtosis 6, binomial's is small)
    m4 = 3 * (m * rate * (1 - rate)) ** 2 + 6 * (2 / eps**2) ** 2 + 6 * m * rate * (1 - rate) * 2 / eps**2 + 24 / eps**4
    assert abs(out.var() - var) < Z * math.sqrt((m4 - var**2) / n)


def test_subsampled_count_charges_the_amplified_epsilon_or_nothing():
    acc = PrivacyAccountant(epsilon=1.0)
    C.subsampled_count([1, 1, 0], 1.0, 0.1, rng=0, size=2, accountant=acc)
    assert acc.spent.epsilon == pytest.approx(2 * math.log(1 + 0.1 * (math.e - 1)), rel=1e-12)
    with pytest.raises(BudgetExceededError):
        C.subsampled_count([1], 2.0, 0.9, rng=0, accountant=acc)
    assert len(acc.history) == 1


def test_an_audit_of_the_subsampled_count_stays_below_the_amplified_epsilon():
    eps, rate = 1.0, 0.2
    mech = lambda flags, rng, size: C.subsampled_count(flags, eps, rate, rng=rng, size=size)  # noqa: E731
    res = audit.epsilon_lower_bound(mech, np.ones(4), np.ones(3), event=audit.ThresholdEvent(0, 4.0),
                                    samples=200_000, confidence=0.99, rng=5)
    assert 0 < res.epsilon_lower <= C.amplified_epsilon(eps, rate)


def test_subsampling_tails_exact_matches_enumeration_and_simulation():
    t = np.array([-1.0, 0.5, 2.0, 4.0])
    r = subsampling_tails(0.7, 0.4, 3, t, samples=300_000, rng=8)
    # exact tails against a direct enumeration of the samples (Laplace survival function per sample)
    for flags, tail in (([1, 1, 1], r.tail), ([1, 1, 1, 1], r.tail_prime)):
        ref = np.zeros(t.size)
        for kept in itertools.product([0, 1], repeat=len(flags)):
            prob = math.prod(0.4 if k else 0.6 for k in kept)
            ref += prob * stats.laplace.sf(t, loc=sum(kept), scale=1 / 0.7)
        assert np.allclose(tail, ref, rtol=1e-12)
    ok = np.isfinite(r.stderr)
    assert ok.all()
    assert np.all(np.abs(r.simulated - r.exact) < Z * r.stderr)
    assert np.all(r.exact <= r.bound + 1e-12) and np.all(np.diff(r.exact) > 0)


def test_simulated_tails_are_the_fraction_of_runs_above_each_threshold():
    # recomputed from the very draws subsampling_tails makes (same seed, same order), with the (samples, t) table
    t = np.array([3.0, -1.0, 0.5, 0.5, 2.0, 40.0])   # unsorted, a repeat, one never exceeded
    r = subsampling_tails(0.7, 0.4, 3, t, samples=5_000, rng=9)
    gen = np.random.default_rng(9)
    y = C.subsampled_count(np.ones(3), 0.7, 0.4, rng=gen, size=5_000)
    y_p = C.subsampled_count(np.ones(4), 0.7, 0.4, rng=gen, size=5_000)
    assert np.array_equal(r.simulated_tail, (y[:, None] > t).mean(axis=0))
    assert np.array_equal(r.simulated_tail_prime, (y_p[:, None] > t).mean(axis=0))


def _multiset_change(a, b):
    ca, cb = Counter(a), Counter(b)
    return sum(((ca - cb) + (cb - ca)).values())


def test_first_words_has_stability_k_by_brute_force():
    rng = np.random.default_rng(0)
    vocab = ["dp", "privacy", "noise", "count", "tweet"]
    for k in (1, 2, 3, 5):
        docs = [(i, [vocab[j] for j in rng.integers(0, 5, size=rng.integers(0, 8))]) for i in range(12)]
        docs.append((99, ["dp"] * 7))                       # one document long enough to reach k
        rows = C.first_words(docs, k)
        changes = [_multiset_change(rows, C.first_words(docs[:i] + docs[i + 1:], k)) for i in range(len(docs))]
        assert max(changes) == k                              # never more than k, and k is reached


def test_a_laplace_count_on_first_words_costs_k_epsilon():
    # the word count on V2(D) with Lap(1/eps): its exact worst-case loss between D and D' (one
    # document removed) is eps x (change in the count), and the change is at most k
    k, eps = 3, 0.5
    docs = [(1, ["dp", "dp", "dp", "x"]), (2, ["dp", "y"]), (3, ["z"])]
    c = sum(w == "dp" for _, w in C.first_words(docs, k))
    c_prime = sum(w == "dp" for _, w in C.first_words(docs[1:], k))
    y = np.linspace(-30, 30, 6001)
    loss = np.max(np.abs(stats.laplace.logpdf(y, c, 1 / eps) - stats.laplace.logpdf(y, c_prime, 1 / eps)))
    assert loss == pytest.approx(C.stable_epsilon(eps, k), rel=1e-9)


@pytest.mark.parametrize("call, match", [
    (lambda: C.amplified_epsilon(1.0, 0.0), "rate"),
    (lambda: C.amplified_epsilon(1.0, 1.5), "rate"),
    (lambda: C.amplified_epsilon(float("nan"), 0.5), "epsilon"),
    (lambda: C.amplified_epsilon(800.0, 0.5), "epsilon"),
    (lambda: C.subsampled_count([1, 2], 1.0, 0.5), "flags"),
    (lambda: C.subsampled_count([[1]], 1.0, 0.5), "flags"),
    (lambda: C.stable_epsilon(1.0, 0), "stability"),
    (lambda: C.stable_epsilon(1e308, 10), "overflows"),
    (lambda: C.first_words([(1, "dp is fun")], 2), "words"),
    (lambda: C.first_words([(1, ["dp"])], 0), "k"),
    (lambda: subsampling_tails(1.0, 0.5, -1, [0.0]), "flagged"),
])
def test_bad_input_is_named(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
