"""Exercises of lecture 05 (sum queries and truncation); the goal of its explorer is in ``lecture05_goals``.

Neighbours are add/remove-one-record, as in every lecture.  ``ex.start(id)`` gives each student their own numbers
(``ex.values("5.k")``); each ``check_*`` computes the expected answer for them with :mod:`dpviz.sums` (or audits
with :mod:`dpviz.audit`) and returns a :class:`~dpviz.exercises.Feedback`.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from dpviz import datasets, mechanisms, sums
from dpviz.audit import epsilon_lower_bound
from dpviz.exercises.checks import NO_ANSWER, check_function, check_number, unanswered
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.lecture05_goals import best_ratio_goal
from dpviz.exercises.registry import Exercise
from dpviz.exercises.variants import Values, start, values

__all__ = ["start", "values", "check_clipped_sum_noise", "check_threshold_for_bias", "check_best_threshold",
           "check_unclipped_sum_attack", "check_workload_sensitivity", "check_identity_variance", "best_ratio_goal",
           "EXERCISES"]

#: The public income domain [0, DOMAIN_TOP] of §2, and the budget exercise 5.4's broken mechanism claims.
DOMAIN_TOP, ATTACK_EPSILON = 1_000_000.0, 1.0
#: §1's five incomes (exercise 5.2 truncates them; they are shown in the lecture).
FIVE_INCOMES = (12_000.0, 25_000.0, 40_000.0, 80_000.0, 300_000.0)


def _one_total(values: Sequence[float] | np.ndarray) -> sums.SumProblem:
    """The total of ``values`` as a one-query problem on the CPS bins ($1,000 bins up to $1M)."""
    return sums.prepare(np.asarray(values, dtype=float), [DOMAIN_TOP])


def check_clipped_sum_noise(answer: Any) -> Feedback:
    """Exercise 5.1: the standard deviation of the Laplace noise on a total of incomes clipped to [0, tau], epsilon-DP.

    Parameters
    ----------
    answer : float
        The student's standard deviation, in dollars (tau and epsilon from their variant).

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_clipped_sum_noise(707_107))
    True
    """
    v = values("5.1")
    sensitivity = float(sums.workload_sensitivity(_one_total(FIVE_INCOMES), float(v.tau)))
    return check_number(
        "5.1 The noise of a clipped sum", answer, math.sqrt(mechanisms.laplace_variance(sensitivity, v.epsilon)),
        explain=f"one person moves the clipped total by at most ${v.tau:,}, so b = {v.tau:,} / {v.epsilon:g}, and "
                "Lap(b) has variance 2 b^2: the standard deviation is sqrt(2) b.",
        hint="First the sensitivity: how much can one added or removed person change the clipped total? Then the "
             "Laplace scale b = sensitivity / epsilon, and the variance of Lap(b) is 2 b^2.",
        mistakes=_noise_mistakes(v), digits=3)


def _noise_mistakes(v: Values) -> list[tuple[float, str]]:
    b = v.tau / v.epsilon
    return [(b, "That is the Laplace scale b; the noise's standard deviation is sqrt(2) b."),
            (2 * b ** 2, "That is the variance 2 b^2: take its square root."),
            (math.sqrt(2) * DOMAIN_TOP / v.epsilon, "That is the noise without clipping (sensitivity $1,000,000, the "
                                                    f"domain's top); after clipping nobody adds more than ${v.tau:,}."),
            (math.sqrt(2) / v.epsilon, "1 is the sensitivity of a count; a sum moves by the person's clipped income."),
            (math.sqrt(2) * v.tau * v.epsilon, "The scale divides the sensitivity by epsilon."),
            (2 * math.sqrt(2) * b, "One person moves the total by their own clipped income, not twice that.")]


def _bias_threshold(max_bias: float) -> tuple[float, int]:
    """The smallest tau at which truncating FIVE_INCOMES lowers their total by at most ``max_bias``; how many lose."""
    top = np.sort(FIVE_INCOMES)[::-1]
    for k in range(1, top.size):
        tau = (top[:k].sum() - max_bias) / k          # sum over the k largest of (w - tau) = max_bias
        if tau >= top[k]:
            return float(tau), k
    return max(float((top.sum() - max_bias) / top.size), 0.0), top.size


def check_threshold_for_bias(answer: Any) -> Feedback:
    """Exercise 5.2: the smallest threshold at which truncation lowers §1's five-income total by at most B.

    Parameters
    ----------
    answer : float
        The student's threshold tau, in dollars (B from their variant).

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_threshold_for_bias(65_000))
    True
    """
    v = values("5.2")
    tau, k = _bias_threshold(float(v.max_bias))
    lost = -float(sums.truncation_bias(_one_total(FIVE_INCOMES), tau)[-1])
    return check_number(
        "5.2 A threshold for a bias budget", answer, tau,
        explain=f"at that tau the {k} largest incomes lose ${lost:,.0f} together, exactly the budget; any smaller tau "
                "loses more (the loss falls as tau grows).",
        hint="Truncation at tau loses the sum of (w - tau) over the incomes w above tau, less as tau grows. Guess how "
             "many incomes lie above the answer, solve that sum = B for tau, then check the guess.",
        mistakes=_bias_mistakes(v))


def _bias_mistakes(v: Values) -> list[tuple[float, str]]:
    _, k = _bias_threshold(float(v.max_bias))
    top = sorted(FIVE_INCOMES, reverse=True)
    return [((sum(top[:k - 1]) - v.max_bias) / (k - 1), f"At that threshold the ${top[k - 1]:,.0f} income is "
                                                         "truncated too: count the incomes above your tau again."),
            ((sum(top[:k + 1]) - v.max_bias) / (k + 1), f"At that threshold the ${top[k]:,.0f} income lies below tau "
                                                         "and loses nothing: only the incomes above tau lose."),
            ((sum(FIVE_INCOMES) - v.max_bias) / 5, "Only the incomes above tau lose anything; the others keep theirs.")]


@lru_cache(maxsize=1)
def _total_problem() -> sums.SumProblem:
    """The total income of the CPS extract as a one-query problem."""
    return _one_total(datasets.load("CPS"))


def _grid() -> np.ndarray:
    """Exercise 5.3's candidate thresholds $10k, $20k, ..., $500k."""
    return np.arange(10_000.0, 500_001.0, 10_000.0)


def _grid_best(epsilon: float, noise: float = 2.0) -> float:
    """The grid's tau minimising bias^2 + noise (tau / epsilon)^2 of the CPS total (noise 2: its exact MSE)."""
    tau = _grid()
    if noise == 2.0:
        mse = np.array([sums.expected_squared_error(_total_problem(), "workload", t, epsilon)[-1] for t in tau])
    else:
        mse = np.array([sums.truncation_bias(_total_problem(), t)[-1] ** 2 for t in tau]) + noise * (tau / epsilon) ** 2
    return float(tau[int(np.argmin(mse))])


def check_best_threshold(answer: Any) -> Feedback:
    """Exercise 5.3: the threshold on the grid $10k, $20k, ..., $500k that minimises the total's exact MSE.

    The total income of the CPS extract is truncated at tau and released with ``Lap(tau / epsilon)`` noise
    (epsilon from the student's variant).

    Parameters
    ----------
    answer : float
        The chosen threshold, in dollars.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_best_threshold(280_000))
    True
    """
    v = values("5.3")
    return check_number(
        "5.3 The best threshold", answer, _grid_best(v.epsilon),
        explain="below it the squared bias grows faster than the variance 2 (tau / epsilon)^2 falls; above it the "
                "variance grows faster than the bias shrinks.",
        hint="For each tau on the grid add the squared bias (sums.truncation_bias) and the variance 2 (tau / "
             "epsilon)^2 of the Laplace noise, and take the tau with the smallest sum.",
        mistakes=_threshold_mistakes(v))


def _threshold_mistakes(v: Values) -> list[tuple[float, str]]:
    grid = _grid()
    return [(float(grid[-1]), "That threshold removes all the bias but ignores the noise: its variance 2 (tau / "
                              "epsilon)^2 is the largest on the grid."),
            (float(grid[0]), "That threshold minimises the noise but ignores the bias, which is then most of the "
                             "total."),
            (_grid_best(v.epsilon, noise=1.0), "The variance of Lap(b) is 2 b^2, not b^2: you counted half the "
                                               "noise.")]


def _unclipped_sum(data: Any, rng: np.random.Generator, size: int) -> np.ndarray:
    """The broken mechanism: the raw sum plus Laplace noise calibrated as if the sensitivity were 1."""
    return mechanisms.laplace(np.full(size, float(np.sum(data))), sensitivity=1.0, epsilon=ATTACK_EPSILON, rng=rng)


def _as_incomes(x: Any) -> list[float] | None:
    """``x`` as a list of finite real numbers, or None."""
    if isinstance(x, (str, bytes)) or not isinstance(x, (Sequence, np.ndarray)):
        return None
    out = []
    for v in np.asarray(x, dtype=object).ravel() if isinstance(x, np.ndarray) else x:
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            return None
        try:
            if not math.isfinite(float(v)):
                return None
        except OverflowError:           # an int beyond the float range
            return None
        out.append(float(v))
    return out


def _neighbours(d: list[float], d_prime: list[float]) -> bool:
    """Whether one multiset is the other with exactly one record added."""
    small, big = (d, d_prime) if len(d) < len(d_prime) else (d_prime, d)
    if len(big) != len(small) + 1:
        return False
    rest = Counter(big)
    rest.subtract(Counter(small))
    return all(c >= 0 for c in rest.values()) and sum(rest.values()) == 1


def check_unclipped_sum_attack(answer: Any) -> Feedback:
    """Exercise 5.4: neighbouring income lists on which the auditor proves an unclipped sum is not 1-DP.

    The mechanism releases ``sum(D) + Lap(1/1)``: noise calibrated as if one person could move the sum by 1.

    Parameters
    ----------
    answer : tuple of (sequence of float, sequence of float)
        ``(D, D_prime)``: two lists of incomes in the public domain [0, $1,000,000], one of them the other with
        one person added.

    Returns
    -------
    Feedback
        The verdict of the empirical auditor (50,000 samples per dataset, 99.9 % confidence).

    Examples
    --------
    >>> bool(check_unclipped_sum_attack(([30_000, 50_000], [30_000, 50_000, 250_000])))
    True
    """
    exercise = "5.4 An unclipped sum, audited"
    hint = ("Give two lists of incomes, D and D_prime = D plus one person, each income in [0, 1,000,000]. The "
            "mechanism's noise is calibrated for a change of 1: choose the added person so that the sums differ "
            "by much more than that, and the auditor will tell the two outputs apart.")
    if unanswered(answer):
        return Feedback(exercise, False, NO_ANSWER)
    if isinstance(answer, (str, bytes)) or not isinstance(answer, Sequence) or len(answer) != 2:
        return Feedback(exercise, False, f"expected a pair (D, D_prime) of income lists, got {answer!r:.80}.", hint)
    d, d_prime = _as_incomes(answer[0]), _as_incomes(answer[1])
    if d is None or d_prime is None:
        return Feedback(exercise, False, "D and D_prime must be lists of finite numbers (incomes).", hint)
    if any(not 0.0 <= v <= DOMAIN_TOP for v in d + d_prime):
        return Feedback(exercise, False, "an income lies outside the public domain [0, 1,000,000].",
                        "The domain is public and bounds every income; choose incomes inside it.")
    if not _neighbours(d, d_prime):
        return Feedback(exercise, False, "D and D_prime are not neighbours.",
                        "Neighbours differ by adding or removing one person: D_prime must be D with exactly one "
                        "income added (or removed), every other income unchanged.")
    shift = abs(sum(d_prime) - sum(d))
    res = epsilon_lower_bound(_unclipped_sum, d, d_prime, samples=50_000, confidence=0.999, rng=0)
    if res.epsilon_lower <= ATTACK_EPSILON:
        return Feedback(exercise, False, f"the added person moves the sum by only {shift:g}: the auditor's lower "
                        f"bound {res.epsilon_lower:.3f} does not exceed {ATTACK_EPSILON:g}.",
                        f"{hint} A change of {shift:g} is within what Lap(1) noise hides.")
    return Feedback(exercise, True, f"the auditor proves a privacy loss of at least {res.epsilon_lower:.2f} > "
                    f"{ATTACK_EPSILON:g} (99.9 % confidence): one person moves the sum by {shift:,.0f}, and Laplace "
                    "noise of scale 1 cannot hide that. Clipping to [0, tau] and noise of scale tau / epsilon would.")


def _workload_peak(tau: float) -> tuple[int, float]:
    """Where one person moves W_10's truncated answers most: (how many queries count them, their truncated income)."""
    bins = sums.cps_income_bins()
    counted = (sums.cps_thresholds(10)[None, :] >= bins[:, None]).sum(axis=1)
    j = int(np.argmax(counted * np.minimum(bins, tau)))
    return int(counted[j]), float(min(bins[j], tau))


def check_workload_sensitivity(answer: Any) -> Feedback:
    """Exercise 5.5: the L1 sensitivity of the 10 prefix sums up to $100k, ..., $1M, truncated at tau.

    Parameters
    ----------
    answer : float
        The student's sensitivity, in dollars (tau from their variant).

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_workload_sensitivity(1_350_000))
    True
    """
    v = values("5.5")
    problem = sums.prepare(FIVE_INCOMES, sums.cps_thresholds(10))   # the sensitivity does not depend on the data
    expected = float(sums.workload_sensitivity(problem, float(v.tau)))
    queries, income = _workload_peak(float(v.tau))
    return check_number(
        "5.5 Sensitivity of a batch of truncated prefix sums", answer, expected,
        explain=f"a person with truncated income ${income:,.0f} is counted by {queries} of the 10 prefix sums, each "
                f"moved by that income: {queries} x ${income:,.0f} is the most any one person moves the answers in L1.",
        hint="One person with (truncated) income w is counted by every prefix sum whose threshold is at least w, and "
             "moves each by w. For each possible income, multiply w by the number of queries that contain it; take "
             "the largest product.",
        mistakes=_workload_mistakes(v))


def _workload_mistakes(v: Values) -> list[tuple[float, str]]:
    tau = float(v.tau)
    out = [(tau, "That is one query's sensitivity; a person is counted by several prefix sums."),
           (10 * tau, f"A person whose truncated income is ${tau:,.0f} earns more than $100,000, so the first prefix "
                      "sum does not count them."),
           (1_000_000.0, "10 x $100,000 is the largest product for incomes up to $100k, but higher incomes give more.")]
    at_tau = float(np.sum(sums.cps_thresholds(10) >= tau)) * tau
    if at_tau != float(sums.workload_sensitivity(sums.prepare(FIVE_INCOMES, sums.cps_thresholds(10)), tau)):
        out.append((at_tau, f"That is the product at an income of ${tau:,.0f}; it peaks at a lower income, which "
                            "more prefix sums count."))
    return out


def _identity_variance(weights: np.ndarray, tau: float, epsilon: float) -> float:
    """dpviz's exact variance of Identity's answer to the total over ``weights`` (bin upper edges)."""
    w = np.asarray(weights, dtype=float)
    return float(sums.expected_variance(sums.prepare(w, [w[-1]], w), "identity", tau, epsilon)[-1])


def check_identity_variance(fn: Any) -> Feedback:
    """Exercise 5.6: ``identity_variance(weights, tau, epsilon)``, the variance of Identity's truncated total.

    Identity adds ``Lap(1/epsilon)`` to every bin's count and answers the total as the sum of the noisy counts
    weighted by ``min(v_j, tau)``.  The function is compared with dpviz on 20 random inputs, and one case with a
    simulation of 20,000 releases.

    Parameters
    ----------
    fn : callable
        The student's ``identity_variance(weights, tau, epsilon)`` (weights: the bins' values ``v_j``).

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_identity_variance(lambda w, t, e: 2 / e**2 * np.sum(np.minimum(w, t) ** 2)))
    True
    """
    gen = np.random.default_rng(505)
    cases = []
    for _ in range(20):
        w = 1000.0 * np.sort(gen.choice(np.arange(1, 1001), size=int(gen.integers(3, 13)), replace=False))
        cases.append((w, float(gen.uniform(w[0], 1.2 * w[-1])), float(gen.uniform(0.1, 5.0))))
    fb = check_function(
        "5.6 The variance of Identity's answer, derived", fn, _identity_variance, cases, rtol=1e-9,
        explain="each count gets independent Lap(1/epsilon) noise of variance 2/epsilon^2 and weight min(v_j, tau), "
                "so the variances add: 2/epsilon^2 sum_j min(v_j, tau)^2.",
        hint="The noisy total is sum_j min(v_j, tau) (x_j + eta_j) with independent eta_j ~ Lap(1/epsilon) of "
             "variance 2/epsilon^2: the variances of independent terms add, each scaled by its weight squared.")
    if not fb.passed:
        return fb
    w, tau, eps = np.array([10_000.0, 50_000.0, 200_000.0, 400_000.0]), 250_000.0, 1.0
    answers = sums.answer_with_threshold(sums.prepare(w, [w[-1]], w), "identity", np.full(20_000, tau), eps, rng=5)
    dev = answers[:, -1] - sums.truncated_prefix_sums(sums.prepare(w, [w[-1]], w), tau)[-1]   # the noise alone
    sim, se = float(np.mean(dev ** 2)), float(np.std(dev ** 2) / np.sqrt(dev.size))
    return Feedback(fb.exercise, True, f"{fb.message} Simulated: 20,000 Identity releases (bins $10k, $50k, $200k, "
                    f"$400k, tau = $250k, epsilon = 1) give variance {sim:.4g} +- {2 * se:.2g} (two standard errors); "
                    f"your formula gives {float(fn(w, tau, eps)):.4g}.")


def _hints(mistakes: list[tuple[Any, str]], words: Sequence[str]) -> tuple[tuple[Any, str], ...]:
    """The typical wrong answers with a word of each one's hint, for the registry."""
    return tuple(zip((w for w, _ in mistakes), words, strict=True))


EXERCISES = (
    Exercise("5.1", "The noise of a clipped sum", check_clipped_sum_noise,
             lambda v: math.sqrt(2.0) * v.tau / v.epsilon,
             lambda v: _hints(_noise_mistakes(v), ("scale b", "square root", "without clipping", "count", "divides",
                                                   "twice")), "easy", digits=3, kind="combine",
             parameters={"tau": (250_000, 100_000, 150_000, 200_000, 300_000, 400_000),
                         "epsilon": (0.5, 0.1, 0.3, 0.7, 0.8)}),
    Exercise("5.2", "A threshold for a bias budget", check_threshold_for_bias,
             lambda v: _bias_threshold(float(v.max_bias))[0],
             lambda v: _hints(_bias_mistakes(v), ("truncated too", "loses nothing", "only the incomes above")),
             "medium", kind="derive",
             parameters={"max_bias": (250_000, 230_000, 260_000, 270_000, 290_000, 306_000, 330_000, 336_000)}),
    Exercise("5.3", "The best threshold", check_best_threshold, lambda v: _grid_best(v.epsilon),
             lambda v: _hints(_threshold_mistakes(v), ("ignores the noise", "ignores the bias", "half the noise")),
             "medium", kind="combine",
             parameters={"epsilon": (0.01, 0.002, 0.003, 0.005, 0.008, 0.02, 0.05, 0.1)}),
    Exercise("5.4", "An unclipped sum, audited", check_unclipped_sum_attack,
             lambda v: ([30_000.0, 50_000.0], [30_000.0, 50_000.0, 250_000.0]),
             lambda v: ((([30_000.0, 50_000.0], [30_000.0, 60_000.0]), "adding or removing"),
                        (([30_000.0, 50_000.0], [30_000.0, 50_000.0, 0.5]), "moves the sum by only"),
                        (([30_000.0], [30_000.0, 2_000_000.0]), "domain")), "hard", kind="counterexample"),
    Exercise("5.5", "Sensitivity of a batch of truncated prefix sums", check_workload_sensitivity,
             lambda v: float(sums.workload_sensitivity(sums.prepare(FIVE_INCOMES, sums.cps_thresholds(10)),
                                                       float(v.tau))),
             lambda v: _hints(_workload_mistakes(v), ("one query", "first prefix sum", "give more", "peaks")
                              [:len(_workload_mistakes(v))]), "medium", kind="combine",
             parameters={"tau": (150_000, 120_000, 180_000, 220_000, 250_000, 280_000, 350_000, 450_000)}),
    Exercise("5.6", "The variance of Identity's answer, derived", check_identity_variance,
             lambda v: lambda w, t, e: 2 / e**2 * np.sum(np.minimum(w, t) ** 2),
             lambda v: ((lambda w, t, e: 2 / e**2 * np.sum(np.asarray(w) ** 2), "min(v_j, tau)"),
                        (lambda w, t, e: 1 / e**2 * np.sum(np.minimum(w, t) ** 2), "2/epsilon^2"),
                        (lambda w, t, e: 2 / e**2 * np.sum(np.minimum(w, t)) ** 2, "independent")), "hard",
             kind="derive"),
)
