"""Exercises of lecture 02 (composition); the goals its three explorers check are re-exported from
:mod:`dpviz.exercises.lecture02_goals`.

Neighbours are add/remove-one-record unless an exercise says otherwise.  Each ``check_*`` computes its expected
answer with dpviz (the accountant, the composition theorems, the zCDP conversion, the auditor) and returns a
:class:`~dpviz.exercises.Feedback`; none raises on a student's answer.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpviz import composition, mechanisms
from dpviz.accountant import PrivacyAccountant
from dpviz.audit import check_neighbours, epsilon_lower_bound
from dpviz.exercises.checks import NO_ANSWER, check_function, check_number, real_array, unanswered
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.lecture02_goals import amplification_goal, crossover_goal, gaussian_budget_goal, refusal_goal
from dpviz.exercises.registry import Exercise

__all__ = ["check_plan_total", "check_histogram_parallel", "check_advanced_k100", "check_gaussian_zcdp",
           "check_overlapping_plan", "check_total_loss_variance", "check_break_data_split", "refusal_goal",
           "amplification_goal", "crossover_goal", "gaussian_budget_goal", "OVERLAP_BANDS", "OVERLAP_EPSILONS",
           "HISTOGRAM_EPSILONS", "EXERCISES"]

#: Exercise 2.2: the epsilon of each of the five disjoint age bins.
HISTOGRAM_EPSILONS = (0.5, 0.5, 1.0, 0.5, 0.5)
#: Exercise 2.5: the age bands [low, high) counted by the plan, and each band's epsilon.
OVERLAP_BANDS = ((0, 18), (16, 65), (60, 120))
OVERLAP_EPSILONS = (0.2, 0.5, 0.4)


def _plan_total() -> float:
    """Exercise 2.1's plan, charged to an accountant: count 0.1, sum 0.3, the count again 0.1; the rest is free."""
    acc = PrivacyAccountant(10.0)
    acc.spend(0.1, label="noisy count")
    acc.spend(0.3, label="noisy sum of clipped ages")
    acc.spend(0.1, label="the count again, fresh noise")
    return float(acc.spent.epsilon)   # the mean and the average of the two counts are post-processing


def check_plan_total(answer: Any) -> Feedback:
    """Exercise 2.1: the total epsilon of a plan of releases on one table (basic composition, post-processing).

    Parameters
    ----------
    answer : float
        The student's total epsilon.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_plan_total(0.5))
    True
    """
    return check_number(
        "2.1 The total of a plan", answer, _plan_total(),
        explain="three releases touch the data (0.1 + 0.3 + 0.1, sequential composition); the mean and the "
                "average of the two counts are computed from released numbers only (post-processing, free).",
        hint="List the steps that look at the data and add their epsilons; a step that only combines released "
             "numbers costs nothing.",
        mistakes=[(0.3, "The maximum is parallel composition, which needs disjoint data; all three releases read "
                        "the same table, so their epsilons add."),
                  (0.4, "The second count is a new release with fresh noise: it costs its epsilon again."),
                  (0.9, "The mean is computed from the two released numbers: post-processing costs nothing.")])


def _histogram_total(neighbours: str = "add/remove") -> float:
    eps = np.asarray(HISTOGRAM_EPSILONS)
    return composition.partition_epsilon(eps, np.eye(eps.size), neighbours)


def check_histogram_parallel(answer: Any) -> Feedback:
    """Exercise 2.2: the epsilon of a histogram whose five disjoint bins have epsilons 0.5, 0.5, 1.0, 0.5, 0.5.

    Parameters
    ----------
    answer : float
        The student's epsilon of the whole histogram (add/remove neighbours).

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_histogram_parallel(1.0))
    True
    """
    return check_number(
        "2.2 Parallel composition of a histogram", answer, _histogram_total(),
        explain="the bins are fixed in advance and one person falls in exactly one, so adding or removing them "
                "changes one bin: the histogram costs the largest bin's epsilon (parallel composition).",
        hint="Ask how many bins one added or removed person can change.",
        mistakes=[(float(sum(HISTOGRAM_EPSILONS)), "The bins are disjoint: one person changes one bin, so the "
                                                   "epsilons do not add (that is sequential composition)."),
                  (_histogram_total("replace-one"), "That is the cost under replace-one neighbours (a person moves "
                                                    "from one bin to another); the lectures use add/remove."),
                  (2 * max(HISTOGRAM_EPSILONS), "2 x the largest bounds the cost under replace-one neighbours (a "
                                                "changed person leaves one bin and joins another); the lectures "
                                                "use add/remove."),
                  (float(np.mean(HISTOGRAM_EPSILONS)), "The average bin does not protect the person in the bin "
                                                       "with the largest epsilon.")])


def check_advanced_k100(answer: Any) -> Feedback:
    """Exercise 2.3: advanced composition of k = 100 releases, each 0.1-DP, at delta' = 1e-6.

    Parameters
    ----------
    answer : float
        The student's total epsilon by advanced composition.

    Returns
    -------
    Feedback
        The verdict (the explanation compares it with basic composition's total).

    Examples
    --------
    >>> bool(check_advanced_k100(np.sqrt(200 * np.log(1e6)) * 0.1 + 100 * 0.1 * np.expm1(0.1)))
    True
    """
    eps, k, dp = 0.1, 100, 1e-6
    total = composition.advanced_composition(eps, k, dp)[0]
    basic = composition.basic_composition(eps, k)[0]
    first = math.sqrt(2 * k * math.log(1 / dp)) * eps
    return check_number(
        "2.3 Advanced composition at k = 100", answer, total,
        explain=f"sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1) = {first:.3f} + {total - first:.3f}; it beats "
                f"basic composition's k eps = {basic:g} (advanced wins from k = "
                f"{composition.advanced_crossover(eps, dp)} at this eps and delta').",
        hint="Use eps' = sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1) with the natural logarithm.",
        mistakes=[(first, "You have the square-root term only: add the second term k eps (e^eps - 1)."),
                  (math.sqrt(k * math.log(1 / dp)) * eps + total - first, "The square root is of 2k ln(1/delta'), "
                                                                           "not k ln(1/delta')."),
                  (math.sqrt(2 * k * math.log10(1 / dp)) * eps + total - first, "ln is the natural logarithm: "
                                                                                 "ln(10^6) = 13.8, not 6."),
                  (basic, "That is basic composition (k eps); advanced composition grows like sqrt(k).")], digits=3)


def check_gaussian_zcdp(answer: Any) -> Feedback:
    """Exercise 2.4: 50 Gaussian releases (sigma = 10, L2 sensitivity 1) through zCDP to (eps, 1e-5).

    Parameters
    ----------
    answer : float
        The student's epsilon at delta = 1e-5 by ``eps = rho + 2 sqrt(rho ln(1/delta))``.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_gaussian_zcdp(0.25 + 2 * np.sqrt(0.25 * np.log(1e5))))
    True
    """
    k, sigma, delta = 50, 10.0, 1e-5
    rho = k * composition.gaussian_rho(sigma)
    bs = lambda r: r + 2 * math.sqrt(r * math.log(1 / delta))  # noqa: E731 - the conversion, for the mistakes
    exact = mechanisms.gaussian_epsilon(sigma / math.sqrt(k), 1.0, delta)
    return check_number(
        "2.4 zCDP of 50 Gaussian releases", answer, composition.zcdp_epsilon(rho, delta),
        explain=f"each release is rho = 1/(2 sigma^2) = {composition.gaussian_rho(sigma):g}-zCDP, 50 of them "
                f"{rho:g}-zCDP, and rho + 2 sqrt(rho ln(1/delta)) converts it (the exact value is {exact:.3f}).",
        hint="First rho of one release, Delta^2 / (2 sigma^2); rho adds over releases; then convert with "
             "rho + 2 sqrt(rho ln(1/delta)).",
        mistakes=[(bs(composition.gaussian_rho(sigma)), "That is one release: zCDP's rho adds up over the 50."),
                  (bs(2 * rho), "rho is Delta^2 / (2 sigma^2): you dropped the factor 2."),
                  (rho + 2 * math.sqrt(rho * math.log10(1 / delta)), "ln is the natural logarithm.")], digits=3)


def _overlap_membership() -> np.ndarray:
    ages = np.arange(0, 120)
    return np.array([[lo <= a < hi for lo, hi in OVERLAP_BANDS] for a in ages], dtype=float)


def check_overlapping_plan(answer: Any) -> Feedback:
    """Exercise 2.5: the true epsilon of counting three overlapping age bands, claimed as parallel composition.

    Parameters
    ----------
    answer : float
        The student's epsilon of the plan under add/remove neighbours.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_overlapping_plan(0.9))
    True
    """
    eps = np.asarray(OVERLAP_EPSILONS)
    true = composition.partition_epsilon(eps, _overlap_membership())
    return check_number(
        "2.5 Overlapping parts", answer, true,
        explain="a person aged 16-17 is in the first two bands and changes both counts: 0.2 + 0.5; aged 60-64, "
                "the last two: 0.5 + 0.4; the plan costs the worst person's sum.",
        hint="For each age, list the bands that contain it and add their epsilons; the plan costs the largest sum.",
        mistakes=[(float(eps.max()), "The maximum holds only for disjoint parts; these bands overlap."),
                  (float(eps.sum()), "No age is in all three bands: find the worst age, not the sum of all."),
                  (0.7, "That is the overlap at 16-17; look at the other overlap too.")])


def _loss_variance(epsilon: float, k: float) -> float:
    return float(k) * composition.laplace_loss_moments(epsilon)[1]


def check_total_loss_variance(fn: Any) -> Feedback:
    """Exercise 2.6: write ``total_loss_variance(epsilon, k)``, the variance of the total loss of k Laplace counts.

    Parameters
    ----------
    fn : callable
        The student's function of (epsilon, k).

    Returns
    -------
    Feedback
        The verdict on 20 seeded random (epsilon, k) pairs, with the hint of a typical mistake when it matches one.

    Examples
    --------
    >>> bool(check_total_loss_variance(lambda e, k: k * (e**2 - 2 * e + 4 - 2 * np.exp(-e) * (e + 2)
    ...                                                   - (e + np.exp(-e) - 1) ** 2)))
    True
    """
    gen = np.random.default_rng(202)
    cases = [(float(e), int(k)) for e, k in zip(gen.uniform(0.05, 3.0, 20), gen.integers(1, 500, 20), strict=True)]
    second = lambda e: e**2 - 2 * e + 4 - 2 * math.exp(-e) * (e + 2)   # noqa: E731 - E[L^2], for the mistakes
    return check_function(
        "2.6 The variance of the privacy loss", fn, _loss_variance, cases, rtol=1e-6,
        mistakes=[
            (lambda e, k: k * e**2, "eps^2 is the small-eps limit of the variance; integrate the loss law exactly."),
            (lambda e, k: k * second(e), "That is k E[L^2]: subtract the squared mean, E[L]^2 = (eps + e^-eps - 1)^2."),
            (lambda e, k: k**2 * (second(e) - (e + math.expm1(-e)) ** 2), "The k losses are independent: their "
                                                                            "variances add (k times), not k^2."),
            (lambda e, k: k * 2 / e**2, "2 / eps^2 is the variance of the Laplace noise, not of the privacy loss.")],
        explain="E[L] = eps + e^-eps - 1 and E[L^2] = eps^2 - 2 eps + 4 - 2 e^-eps (eps + 2) (two atoms plus the "
                "integral of l^2 e^((l - eps)/2) / 4); the variance of one loss is their difference, and the k "
                "independent losses add their variances.",
        hint="Compute E[L^2] from the law of one loss (atoms and density), subtract E[L]^2, multiply by k; check the "
             "result against the variance of composition.laplace_loss_samples(eps, k, ...).")


#: Exercise 2.7: the epsilon ``split_at_mean_counts`` claims, the loss the auditor must prove (3 x the claim),
#: and the auditor's confidence and samples.
BREAK_CLAIM, BREAK_TARGET, BREAK_CONFIDENCE, BREAK_SAMPLES = 0.5, 1.5, 0.999, 100_000


def _split_mechanism(values: Any, rng: np.random.Generator, size: int) -> np.ndarray:
    return composition.split_at_mean_counts(values, BREAK_CLAIM, rng=rng, size=size)


def _neighbour_problem(answer: tuple[Any, Any] | list[Any]) -> str | None:
    """Why ``answer`` is not a pair of add/remove neighbours of flat, non-empty lists of numbers (None if it is)."""
    try:
        d, d_prime = (real_array(x) for x in answer)
    except (TypeError, ValueError) as exc:
        return str(exc)
    if d is None or d_prime is None:
        return "each dataset must be a list of real numbers"
    if d.ndim != 1 or d_prime.ndim != 1 or min(d.size, d_prime.size) == 0:
        return "each dataset must be a non-empty flat list of numbers, one value per record"
    try:
        check_neighbours(d, d_prime, "records")
    except (TypeError, ValueError) as exc:
        return str(exc)
    return None


def check_break_data_split(answer: Any) -> Feedback:
    """Exercise 2.7: neighbours D, D' on which the auditor proves ``split_at_mean_counts`` (claims 0.5) leaks >= 1.5.

    Parameters
    ----------
    answer : tuple of (list of float, list of float)
        ``(D, D_prime)``: two datasets of values, D' = D with one record added (or removed).

    Returns
    -------
    Feedback
        The verdict of the empirical auditor (99.9 % confidence, its default event search): correct when its lower
        bound exceeds 3 x the claimed epsilon.

    Examples
    --------
    >>> d = [0, 0, 0, 0, 0, 10, 10, 10, 10, 10]
    >>> bool(check_break_data_split((d, d + [1000])))
    True
    """
    exercise = "2.7 Break a data-chosen partition"
    hint = ("Pick D so that one extra record moves the mean past several others, e.g. a far outlier: every record "
            "that crosses the mean changes both counts.")
    if unanswered(answer):
        return Feedback(exercise, False, NO_ANSWER)
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        return Feedback(exercise, False, f"expected a pair (D, D_prime) of lists of numbers, got {answer!r}.", hint)
    problem = _neighbour_problem(answer)
    if problem is not None:
        return Feedback(exercise, False, f"D and D_prime must be neighbours: one list of numbers is the other plus "
                        f"one record ({problem}).", "Take D, then D_prime = D plus one more value.")
    d, d_prime = (np.asarray(x, dtype=float) for x in answer)
    res = epsilon_lower_bound(_split_mechanism, d, d_prime, samples=BREAK_SAMPLES, confidence=BREAK_CONFIDENCE,
                              rng=7)
    moved = np.abs(composition.split_at_mean(d) - composition.split_at_mean(d_prime))
    if res.epsilon_lower > BREAK_TARGET:
        return Feedback(exercise, True, f"the auditor proves epsilon >= {res.epsilon_lower:.3f} > {BREAK_TARGET} = "
                        f"3 x the claimed {BREAK_CLAIM} (99.9 % confidence): your extra record moved the counts by "
                        f"{moved[0]:g} and {moved[1]:g}, so the split chosen from the data costs far more than "
                        "parallel composition's claim.")
    if moved.sum() <= 1:
        return Feedback(exercise, False, f"the auditor's lower bound is {res.epsilon_lower:.3f}: your extra record "
                        f"moved no other record across the mean (the counts changed by {moved[0]:g} and "
                        f"{moved[1]:g}).", hint)
    return Feedback(exercise, False, f"the counts changed by {moved[0]:g} and {moved[1]:g} and the auditor proves "
                    f"epsilon >= {res.epsilon_lower:.3f}, more than the claim but not {BREAK_TARGET}: one count must "
                    "move by more than 3, so make more records cross the mean.", hint)


def _break_solution() -> tuple[list[float], list[float]]:
    d = [0.0] * 5 + [10.0] * 5
    return d, [*d, 1000.0]


EXERCISES = (
    Exercise("2.1", "The total of a plan", check_plan_total, _plan_total(),
             ((0.3, "disjoint"), (0.4, "fresh noise"), (0.9, "post-processing")), "easy"),
    Exercise("2.2", "Parallel composition of a histogram", check_histogram_parallel, 1.0,
             ((3.0, "disjoint"), (1.5, "replace-one"), (2.0, "replace-one"), (0.6, "largest epsilon")), "easy"),
    Exercise("2.3", "Advanced composition at k = 100", check_advanced_k100,
             composition.advanced_composition(0.1, 100, 1e-6)[0],
             ((math.sqrt(200 * math.log(1e6)) * 0.1, "second term"), (10.0, "basic")), "medium", digits=3),
    Exercise("2.4", "zCDP of 50 Gaussian releases", check_gaussian_zcdp,
             composition.zcdp_epsilon(50 * composition.gaussian_rho(10.0), 1e-5),
             ((0.005 + 2 * math.sqrt(0.005 * math.log(1e5)), "adds up"),), "medium", digits=3),
    Exercise("2.5", "Overlapping parts", check_overlapping_plan, 0.9,
             ((0.5, "disjoint"), (1.1, "worst age"), (0.7, "other overlap")), "medium"),
    Exercise("2.6", "The variance of the privacy loss", check_total_loss_variance,
             lambda e, k: k * (e**2 - 2 * e + 4 - 2 * math.exp(-e) * (e + 2) - (e + math.exp(-e) - 1) ** 2),
             ((lambda e, k: k * e**2, "small-eps"),
              (lambda e, k: k * (e**2 - 2 * e + 4 - 2 * math.exp(-e) * (e + 2)), "squared mean"),
              (lambda e, k: k * k * (e**2 - 2 * e + 4 - 2 * math.exp(-e) * (e + 2) - (e + math.exp(-e) - 1) ** 2),
               "variances add"),
              (lambda e, k: 2 * k / e**2, "laplace noise")), "hard"),
    Exercise("2.7", "Break a data-chosen partition", check_break_data_split, _break_solution(),
             ((([0.0, 0.0, 0.0, 10.0, 10.0, 10.0], [0.0, 0.0, 0.0, 10.0, 10.0, 10.0, 5.0]), "moved no other"),
              (([0.0, 0.0, 0.0, 10.0, 10.0, 10.0], [0.0, 0.0, 0.0, 10.0, 10.0, 10.0, 100.0]), "more records"),
              (([0.0, 0.0, 0.0, 10.0, 10.0, 10.0], [0.0, 0.0, 0.0, 10.0, 10.0, 10.0, 100.0, 100.0]), "neighbours")),
             "hard"),
)
