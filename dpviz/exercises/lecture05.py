"""Exercises of lecture 05 (sum queries and truncation) and the goals of its explorer.

Neighbours are add/remove-one-record, as in every lecture.  Each ``check_*`` computes its expected answer with
:mod:`dpviz.sums` (or audits with :mod:`dpviz.audit`) and returns a :class:`~dpviz.exercises.Feedback`.
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
from dpviz.exercises.registry import Exercise

__all__ = ["check_clipped_sum_sensitivity", "check_truncation_bias", "check_best_threshold",
           "check_unclipped_sum_attack", "check_workload_sensitivity", "check_identity_variance",
           "best_ratio_goal", "EXERCISES"]

#: Exercise 5.1: incomes clipped to [0, CLIP].
CLIP = 250_000.0
#: Exercise 5.2: five incomes and the threshold.
FIVE_INCOMES, BIAS_TAU = (12_000.0, 25_000.0, 40_000.0, 80_000.0, 300_000.0), 100_000.0
#: Exercise 5.3: the candidate thresholds and the budget of the total-income query.
TAU_GRID, TOTAL_EPSILON = tuple(np.arange(10_000.0, 500_001.0, 10_000.0)), 0.01
#: Exercise 5.4: the public income domain [0, DOMAIN_TOP] and the mechanism's budget.
DOMAIN_TOP, ATTACK_EPSILON = 1_000_000.0, 1.0
#: Exercise 5.5: the threshold of the W_10 workload.
WORKLOAD_TAU = 150_000.0


def _one_total(values: Sequence[float] | np.ndarray) -> sums.SumProblem:
    """The total of ``values`` as a one-query problem on the CPS bins ($1,000 bins up to $1M)."""
    return sums.prepare(np.asarray(values, dtype=float), [DOMAIN_TOP])


def check_clipped_sum_sensitivity(answer: Any) -> Feedback:
    """Exercise 5.1: the L1 sensitivity of the total income with every income clipped to [0, $250,000].

    Parameters
    ----------
    answer : float
        The student's sensitivity, in dollars.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_clipped_sum_sensitivity(250_000))
    True
    """
    expected = float(sums.workload_sensitivity(_one_total(FIVE_INCOMES), CLIP))
    return check_number(
        "5.1 Sensitivity of a clipped sum", answer, expected,
        explain="an added or removed person changes the clipped total by their clipped income, at most $250,000.",
        hint="Compare the clipped total with and without one person: what is the most that person can add?",
        mistakes=[(1.0, "1 is the sensitivity of a count; a sum changes by the person's (clipped) value."),
                  (DOMAIN_TOP, "$1,000,000 is the top of the income domain: that is the sensitivity without "
                               "clipping. After clipping nobody contributes more than $250,000."),
                  (2 * CLIP, "Adding or removing one person moves the total by their own clipped income only: "
                             "between 0 and $250,000, not twice that.")])


def check_truncation_bias(answer: Any) -> Feedback:
    """Exercise 5.2: the bias of the total of five incomes truncated at $100,000.

    Parameters
    ----------
    answer : float
        Truncated total minus true total, in dollars.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_truncation_bias(-200_000))
    True
    """
    expected = float(sums.truncation_bias(_one_total(FIVE_INCOMES), BIAS_TAU)[-1])
    return check_number(
        "5.2 The bias of truncation", answer, expected,
        explain="only the $300,000 income exceeds $100,000; truncation drops its $200,000 above the threshold.",
        hint="Truncation replaces each income w by min(w, tau). Add up what that removes: sum of (w - tau) over "
             "the incomes above tau, with the sign of (truncated - true).",
        mistakes=[(-expected, "The bias is truncated minus true: truncation can only lower a sum of "
                              "non-negative values, so it is negative."),
                  (-300_000.0, "Truncation keeps the first $100,000 of the large income; only the part above the "
                               "threshold is lost."),
                  (0.0, "One income is above the threshold.")])


@lru_cache(maxsize=1)
def _total_problem() -> sums.SumProblem:
    """The total income of the CPS extract as a one-query problem."""
    return _one_total(datasets.load("CPS"))


def _total_mse(tau: float) -> float:
    """Exact MSE of the CPS total truncated at tau with Laplace noise of scale tau / TOTAL_EPSILON."""
    return float(sums.expected_squared_error(_total_problem(), "workload", tau, TOTAL_EPSILON)[-1])


def check_best_threshold(answer: Any) -> Feedback:
    """Exercise 5.3: the threshold on the grid $10k, $20k, ..., $500k that minimises the total's exact MSE.

    The total income of the CPS extract is truncated at tau and released with ``Lap(tau / 0.01)`` noise.

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
    mse = np.array([_total_mse(t) for t in TAU_GRID])
    best = float(TAU_GRID[int(np.argmin(mse))])
    return check_number(
        "5.3 The best threshold", answer, best,
        explain="below it the squared bias grows faster than the variance 2 (tau / epsilon)^2 falls; above it the "
                "variance grows faster than the bias shrinks.",
        hint="For each tau on the grid add the squared bias (sums.truncation_bias) and the variance 2 (tau / "
             "epsilon)^2 of the Laplace noise, and take the tau with the smallest sum.",
        mistakes=[(float(TAU_GRID[-1]), "That threshold removes all the bias but ignores the noise: its "
                                        "variance 2 (tau / epsilon)^2 is the largest on the grid."),
                  (float(TAU_GRID[0]), "That threshold minimises the noise but ignores the bias, which is then "
                                       "most of the total.")])


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


def check_workload_sensitivity(answer: Any) -> Feedback:
    """Exercise 5.5: the L1 sensitivity of the 10 prefix sums up to $100k, ..., $1M, truncated at $150,000.

    Parameters
    ----------
    answer : float
        The student's sensitivity, in dollars.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_workload_sensitivity(1_350_000))
    True
    """
    problem = sums.prepare(FIVE_INCOMES, sums.cps_thresholds(10))   # the sensitivity does not depend on the data
    expected = float(sums.workload_sensitivity(problem, WORKLOAD_TAU))
    return check_number(
        "5.5 Sensitivity of a batch of truncated prefix sums", answer, expected,
        explain="a person with income between $100k and $150k is counted by 9 of the 10 prefix sums, each moved by "
                "their whole income: 9 x $150,000 is the most any one person moves the answers in L1.",
        hint="One person with (truncated) income v is counted by every prefix sum whose threshold is at least v, and "
             "moves each by v. For each possible income, multiply v by the number of queries that contain it; take "
             "the largest product.",
        mistakes=[(WORKLOAD_TAU, "That is one query's sensitivity; a person is counted by several prefix sums."),
                  (10 * WORKLOAD_TAU, "A person whose truncated income is $150,000 earns more than $100,000, so the "
                                      "first prefix sum does not count them."),
                  (1_000_000.0, "10 x $100,000 is the largest product for incomes up to $100k, but incomes between "
                                "$100k and $150k give more.")])


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


# ------------------------------------------------------------------------------------------- explorer goal
def best_ratio_goal(problem: sums.SumProblem, ratios: Sequence[float], *, algorithm: str | None = None,
                    tolerance: float = 0.02) -> tuple[str, Any]:
    """A SumQueryExplorer goal: with the oracle threshold, find the truncation ratio p with the smallest exact error.

    The error is the exact mean squared error averaged over the queries (:func:`dpviz.sums.expected_squared_error`,
    no isotonic regression) at the oracle's threshold for each p; a p within ``tolerance`` of the smallest counts.
    The oracle is not private: the goal finds the p a private threshold should aim for.

    Parameters
    ----------
    problem : SumProblem
        The explorer's problem (``explorer.problem``).
    ratios : sequence of float
        The truncation ratios the explorer offers (``explorer.controls["ratio"].options``).
    algorithm : str, optional
        The algorithm the goal is about (default: whichever the explorer shows; SQM, which picks one threshold per
        query, is not covered).
    tolerance : float, default 0.02
        Relative tolerance on the error.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([1000, 2000, 3000, 9000], [5000, 10000], uniform_bins(1000, 10000))
    >>> text, test = best_ratio_goal(p, [0.5, 0.75, 1.0], algorithm="identity")
    >>> class Release:
    ...     epsilon_answers = 1.0
    >>> class Run:
    ...     release = Release()
    >>> test(Run(), {"algorithm": "identity", "threshold": "oracle", "ratio": 0.75}) is None
    True
    """
    problem = sums.check_problem(problem)
    options = [float(r) for r in ratios]
    cache: dict[tuple[str, float], np.ndarray] = {}

    def errors(alg: str, eps: float) -> np.ndarray:
        if (alg, eps) not in cache:
            cache[(alg, eps)] = np.array([sums.expected_squared_error(problem, alg, sums.oracle_threshold(problem, r),
                                                                      eps).mean() for r in options])
        return cache[(alg, eps)]

    def test(result: Any, values: dict[str, Any]) -> str | None:
        alg = values["algorithm"]
        if values["threshold"] != "oracle" or alg == "sqm" or (algorithm is not None and alg != algorithm):
            return None
        mse = errors(alg, float(result.release.epsilon_answers))
        k = options.index(float(values["ratio"]))
        if mse[k] <= (1 + tolerance) * mse.min():
            return f"p = {options[k]:g}: exact mean squared error {mse[k]:.3g} (the smallest over p)"
        return None

    names = {"identity": "Identity", "workload": "Workload", "timm": "TiMM", "tamm": "TaMM"}
    who = "the algorithm shown" if algorithm is None else names.get(algorithm, algorithm)
    return (f"with the oracle threshold (not private), find the truncation ratio p with the smallest exact error "
            f"for {who}"), test


EXERCISES = (
    Exercise("5.1", "Sensitivity of a clipped sum", check_clipped_sum_sensitivity, CLIP,
             ((1.0, "count"), (DOMAIN_TOP, "without clipping"), (2 * CLIP, "twice")), "easy"),
    Exercise("5.2", "The bias of truncation", check_truncation_bias, -200_000.0,
             ((200_000.0, "negative"), (-300_000.0, "part above"), (0.0, "above the threshold")), "easy"),
    Exercise("5.3", "The best threshold", check_best_threshold, 280_000.0,
             ((float(TAU_GRID[-1]), "ignores the noise"), (float(TAU_GRID[0]), "ignores the bias")), "medium"),
    Exercise("5.4", "An unclipped sum, audited", check_unclipped_sum_attack,
             ([30_000.0, 50_000.0], [30_000.0, 50_000.0, 250_000.0]),
             ((([30_000.0, 50_000.0], [30_000.0, 60_000.0]), "adding or removing"),
              (([30_000.0, 50_000.0], [30_000.0, 50_000.0, 0.5]), "moves the sum by only"),
              (([30_000.0], [30_000.0, 2_000_000.0]), "domain")), "hard"),
    Exercise("5.5", "Sensitivity of a batch of truncated prefix sums", check_workload_sensitivity, 1_350_000.0,
             ((WORKLOAD_TAU, "one query"), (10 * WORKLOAD_TAU, "first prefix sum"), (1_000_000.0, "give more")),
             "medium"),
    Exercise("5.6", "The variance of Identity's answer, derived", check_identity_variance,
             lambda w, t, e: 2 / e**2 * np.sum(np.minimum(w, t) ** 2),
             ((lambda w, t, e: 2 / e**2 * np.sum(np.asarray(w) ** 2), "min(v_j, tau)"),
              (lambda w, t, e: 1 / e**2 * np.sum(np.minimum(w, t) ** 2), "2/epsilon^2"),
              (lambda w, t, e: 2 / e**2 * np.sum(np.minimum(w, t)) ** 2, "independent")), "hard"),
)
