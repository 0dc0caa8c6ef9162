"""Parallel composition's conditions, adaptive composition and group privacy, checked with exact tail ratios.

A Laplace count's tail ``P[c + Lap(b) > t]`` is known exactly (scipy), so the privacy loss of an event on
neighbouring datasets is computed without dpviz; the plans' epsilons must equal the largest such loss, and the
auditor (seeded) must find what the theory says.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpviz import audit
from dpviz import composition as C
from dpviz.accountant import BudgetExceededError, PrivacyAccountant
from dpviz.mechanisms import laplace

Z = 4.5


def _tail_loss(counts, counts_prime, eps, directions) -> float:
    """ln P'[event] / P[event] for independent Laplace counts: each coordinate above (+1) or below (-1) a far cut."""
    b = np.array([1 / e for e in np.broadcast_to(eps, len(counts))])
    total = 0.0
    for c, cp, bi, s in zip(counts, counts_prime, b, directions, strict=True):
        if s == 0:
            continue
        t = max(c, cp) + 5 if s > 0 else min(c, cp) - 5            # beyond both: the tail ratio is exact
        p = stats.laplace.sf(t, loc=c, scale=bi) if s > 0 else stats.laplace.cdf(t, loc=c, scale=bi)
        pp = stats.laplace.sf(t, loc=cp, scale=bi) if s > 0 else stats.laplace.cdf(t, loc=cp, scale=bi)
        total += math.log(pp / p)
    return total


def test_overlapping_parts_pay_the_sum_for_the_record_in_both():
    bands, eps = [(0, 30), (25, 65), (60, 120)], np.array([0.5, 0.3, 0.4])
    member = np.array([[lo <= a < hi for lo, hi in bands] for a in range(120)], dtype=float)
    claimed = C.partition_epsilon(eps, member)
    # brute force over every age: adding a person of that age moves the counts of its bands by one
    worst = max(_tail_loss(np.zeros(3), member[a], eps, member[a].astype(int)) for a in range(120))
    assert claimed == pytest.approx(0.8) and worst == pytest.approx(claimed)
    disjoint = np.array([[lo <= a < hi for lo, hi in [(0, 25), (25, 60), (60, 120)]] for a in range(120)], float)
    assert C.partition_epsilon(eps, disjoint) == pytest.approx(eps.max())


def test_replace_one_moves_a_record_between_parts_and_pays_both():
    eps = np.array([0.5, 0.3, 0.5])
    member = np.eye(3)
    assert C.partition_epsilon(eps, member, "replace-one") == pytest.approx(1.0)
    # brute force: a record moves from part r to part s, counts change by -1 and +1
    worst = max(_tail_loss(np.eye(3)[r], np.eye(3)[s], eps, np.eye(3)[s] - np.eye(3)[r])
                for r in range(3) for s in range(3) if r != s)
    assert worst == pytest.approx(1.0) and worst <= 2 * eps.max() * (1 + 1e-12)   # a few ulps of the sums


def test_a_replace_one_histogram_is_audited_above_epsilon():
    eps = 0.5

    def hist(counts, rng, size):
        return laplace(np.asarray(counts, float), 1.0, eps, rng=rng, size=size)

    ev = audit.PredicateEvent(lambda y: (y[:, 0] > 5.0) & (y[:, 1] <= 5.0), "cell 0 high, cell 1 low")
    res = audit.epsilon_lower_bound(hist, [5.0, 5.0], [4.0, 6.0], event=ev, samples=200_000, confidence=0.99, rng=3)
    exact = math.log((0.5 * 0.5) / (0.5 * math.exp(-eps) * 0.5 * math.exp(-eps)))
    assert exact == pytest.approx(2 * eps)
    assert eps < res.epsilon_lower <= exact


def test_parts_chosen_from_the_data_leak_far_more_than_claimed():
    d = np.array([0, 0, 0, 10, 10, 10.0])
    d_prime = np.append(d, 100.0)
    a, b = C.split_at_mean(d), C.split_at_mean(d_prime)
    assert a.tolist() == [3, 3] and b.tolist() == [6, 1]
    eps = 0.5
    exact = _tail_loss(a, b, eps, [1, -1])     # ln P_D'[y0 high, y1 low] / P_D[y0 high, y1 low]
    assert exact == pytest.approx(eps * float(np.abs(a - b).sum())) and exact == pytest.approx(2.5)
    mech = lambda x, rng, size: C.split_at_mean_counts(x, eps, rng=rng, size=size)  # noqa: E731
    # search mode (one coordinate at a time) can show at most 3 eps: the first count moves by 3
    res = audit.epsilon_lower_bound(mech, d_prime, d, samples=100_000, confidence=0.999, rng=1)
    assert 2 * eps < res.epsilon_lower <= 3 * eps
    # the joint event (first count high, second low) shows nearly the full 5 eps
    ev = audit.PredicateEvent(lambda y: (y[:, 0] > 6.0) & (y[:, 1] <= 1.0), "below-mean high, above-mean low")
    res = audit.epsilon_lower_bound(mech, d_prime, d, event=ev, samples=100_000, confidence=0.999, rng=2)
    assert 4 * eps < res.epsilon_lower <= 5 * eps


def test_adaptive_composition_costs_the_sum_whichever_branch():
    counts = np.array([20.0, 50.0, 12.0, 5.0])
    e1, e2 = 0.5, 0.7
    for threshold in (0.0, 1000.0):      # always the 80+ branch / always the under-18 branch
        acc = PrivacyAccountant(10.0)
        C.adaptive_counts(counts, e1, e2, threshold, accountant=acc, rng=0, size=3)
        assert [r.label.split(":")[0] for r in acc.history] == ["adaptive", "adaptive"]
        assert Fraction(acc.history[0].total_epsilon) == 3 * Fraction(1, 2)
        assert acc.spent.epsilon == pytest.approx(3 * (0.5 + 0.7), rel=1e-15)
    acc = PrivacyAccountant(1.0)
    with pytest.raises(BudgetExceededError):
        C.adaptive_counts(counts, e1, e2, 10.0, accountant=acc, rng=0)
    assert acc.history == []


def test_adaptive_pair_matches_its_exact_law_and_its_loss_reaches_the_sum():
    counts = np.array([20.0, 50.0, 12.0, 5.0])
    prime = counts + np.array([0, 0, 0, 1.0])       # one more person aged 80+
    e1, e2, thr = 0.5, 0.5, 15.0
    n = 200_000
    out = C.adaptive_counts(counts, e1, e2, thr, rng=5, size=n)
    # exact: P[c1 > t1, c2 > t2] = P[c1 > t1] P[Lap > t2 - counts[3]] for t1 >= thr (the 80+ branch)
    t1, t2 = 18.0, 6.0
    p1 = stats.laplace.sf(t1, loc=counts[2] + counts[3], scale=1 / e1)
    p2 = stats.laplace.sf(t2, loc=counts[3], scale=1 / e2)
    freq = np.mean((out[:, 0] > t1) & (out[:, 1] > t2))
    assert abs(freq - p1 * p2) < Z * math.sqrt(p1 * p2 * (1 - p1 * p2) / n)
    # far in both tails the loss of the pair is exactly e1 + e2 (the sum, as adaptive composition charges)
    t1, t2 = 40.0, 20.0
    ratio = (stats.laplace.sf(t1, loc=18.0, scale=2) * stats.laplace.sf(t2, loc=6.0, scale=2)
             / (stats.laplace.sf(t1, loc=17.0, scale=2) * stats.laplace.sf(t2, loc=5.0, scale=2)))
    assert math.log(ratio) == pytest.approx(e1 + e2)
    mech = lambda c, rng, size: C.adaptive_counts(c, e1, e2, thr, rng=rng, size=size)   # noqa: E731
    ev = audit.PredicateEvent(lambda y: (y[:, 0] > 18.0) & (y[:, 1] > 6.0), "both high")
    res = audit.epsilon_lower_bound(mech, prime, counts, event=ev, samples=200_000, confidence=0.99, rng=2)
    assert max(e1, e2) < res.epsilon_lower <= e1 + e2


@pytest.mark.parametrize("call,match", [
    (lambda: C.partition_epsilon([0.5, -1.0], np.eye(2)), "epsilons"),
    (lambda: C.partition_epsilon([0.5, 0.5], np.eye(3)), "membership"),
    (lambda: C.partition_epsilon([0.5, 0.5], [[0.5, 1.0]]), "membership"),
    (lambda: C.partition_epsilon([0.5], [[1.0]], "swap"), "neighbours"),
    (lambda: C.split_at_mean([]), "values"),
    (lambda: C.split_at_mean_counts([1.0, 2.0], 0.0), "epsilon"),
    (lambda: C.adaptive_counts([1, 2, 3], 0.5, 0.5, 1.0), "counts"),
    (lambda: C.adaptive_counts([1, 2, 3, -4], 0.5, 0.5, 1.0), "counts"),
    (lambda: C.adaptive_counts([1, 2, 3, 4], 0.5, 0.0, 1.0), "epsilon_second"),
    (lambda: C.adaptive_counts([1, 2, 3, 4], 0.5, 0.5, float("nan")), "threshold"),
    (lambda: C.adaptive_counts([1, 2, 3, 4], 0.5, 0.5, 1.0, accountant="acc"), "accountant"),
])
def test_bad_input_is_refused_by_name(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
