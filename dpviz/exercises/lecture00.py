"""Exercises of lecture 00 (what differential privacy promises); its explorer's goals are in ``lecture00_goals``.

Neighbours are add/remove-one-record, as in every lecture, except where an exercise says replace-one; for
randomized response the two inputs compared are one person's "yes" and "no".  Each ``check_*`` computes its
expected answer with dpviz and returns a :class:`~dpviz.exercises.Feedback`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpviz import definition, mechanisms
from dpviz.exercises.checks import check_function, check_number, check_private
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.lecture00_goals import group_goal, indistinguishable_goal, warner_goal
from dpviz.exercises.registry import Exercise
from dpviz.exercises.variants import Values, start, values

__all__ = ["start", "values", "check_coin_epsilon", "check_replace_one_sensitivity", "check_posterior",
           "check_household", "check_debiased_estimate", "check_survey_size", "check_randomized_response",
           "warner_goal", "indistinguishable_goal", "group_goal", "EXERCISES"]


def check_coin_epsilon(answer: Any) -> Feedback:
    """Exercise 0.1: the epsilon of randomized response that tells the truth with probability p (your variant).

    Parameters
    ----------
    answer : float
        The student's epsilon.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_coin_epsilon(math.log(4)))
    True
    """
    v = values("0.1")
    p = v.p_truth
    return check_number(
        "0.1 The epsilon of a survey coin", answer, mechanisms.randomized_response_epsilon(p),
        explain=f"the two reports' probabilities are {p:g} and {1 - p:g} for one answer and swapped for the other, "
                f"so the largest ratio is {p:g} / {1 - p:g} and epsilon is its natural logarithm.",
        hint="Write the probability of each report for a 'yes' and for a 'no'; epsilon is the log of the largest "
             "ratio between them.",
        mistakes=_coin_mistakes(v), digits=3)


def _coin_mistakes(v: Values) -> list[tuple[float, str]]:
    p = v.p_truth
    return [(p / (1 - p), "That is the ratio itself; epsilon is its natural logarithm (P <= e^epsilon P')."),
            (math.log(p), f"ln {p:g} is the log of one probability; take the log of the ratio of the two reports' "
                          f"probabilities, {p:g} / {1 - p:g}."),
            (2 * p - 1, f"That is {p:g} - {1 - p:g}, the difference of the probabilities (the advantage of a test); "
                        "DP bounds their ratio.")]


def _visits_matrix(v: Values) -> np.ndarray:
    """The extreme records of exercise 0.2: all of a patient's (capped) visits in one department, or none."""
    return v.cap * np.hstack([np.eye(v.cells), np.zeros((v.cells, 1))])


def check_replace_one_sensitivity(answer: Any) -> Feedback:
    """Exercise 0.2: the L1 sensitivity, under replace-one, of visits per department, capped at c per patient.

    Parameters
    ----------
    answer : float
        The student's sensitivity.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_replace_one_sensitivity(6))
    True
    """
    v = values("0.2")
    c = v.cap
    return check_number(
        "0.2 A histogram under replace-one", answer, definition.l1_sensitivity(_visits_matrix(v), "replace-one"),
        explain=f"a patient's record adds at most {c} visits in all; replacing a record with all {c} visits in one "
                f"department by one with all {c} in another takes {c} from one count and adds {c} to another.",
        hint="Replace one patient's record by another: which counts change, and by how much in all? The cap is on a "
             "patient's visits in total.",
        mistakes=_replace_mistakes(v))


def _replace_mistakes(v: Values) -> list[tuple[float, str]]:
    c, d = v.cap, v.cells
    return [(float(c), f"{c} is the sensitivity under add/remove neighbours; a replacement removes one record's "
                       "visits and adds another's."),
            (2.0, "2 is the replace-one sensitivity when each patient counts once; here a patient counts up to "
                  f"{c} visits."),
            (float(c * d), f"The cap of {c} is on a patient's visits in total, not in each of the {d} departments."),
            (0.0, "The number of visits may stay the same, but the counts do not: which ones change?")]


def check_posterior(answer: Any) -> Feedback:
    """Exercise 0.3: the highest posterior an epsilon-DP output allows an informed adversary with prior pi.

    The mechanism is epsilon-DP under replace-one neighbours, and "smoker" against "non-smoker" is one replacement,
    so the odds move by at most e^epsilon.  The answer for a mechanism epsilon-DP under add/remove (a replacement
    is two steps, e^(2 epsilon)) gets its own explanation.

    Parameters
    ----------
    answer : float
        The student's posterior probability.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_posterior(0.05 * math.e / (0.05 * math.e + 0.95)))
    True
    """
    v = values("0.3")
    pi, eps = v.prior, v.epsilon
    return check_number(
        "0.3 The most an adversary can learn", answer, float(definition.posterior_bounds(pi, eps)[1]),
        explain=f"smoker against non-smoker is one replace-one step, so the posterior odds are at most e^{eps:g} "
                f"times the prior odds {pi:g} / {1 - pi:g}; back to a probability, odds / (1 + odds).",
        hint="Bayes' rule in odds form: posterior odds = prior odds x likelihood ratio, and an epsilon-DP output "
             "has a likelihood ratio of at most e^epsilon. Convert the odds back to a probability.",
        mistakes=_posterior_mistakes(v), digits=3)


def _posterior_mistakes(v: Values) -> list[tuple[float, str]]:
    pi, eps = v.prior, v.epsilon
    return [(pi * math.exp(eps), f"e^{eps:g} x {pi:g} multiplies the probability; it is the odds ({pi:g} / "
                                 f"{1 - pi:g}) that e^epsilon bounds. Convert the posterior odds back to a "
                                 "probability."),
            (pi / (1 - pi) * math.exp(eps), "That is the posterior odds; convert it to a probability, "
                                            "odds / (1 + odds)."),
            (pi, "An epsilon-DP output can move the belief: by how much at most?"),
            (float(definition.posterior_bounds(pi, 2 * eps)[1]),
             f"That is the answer for a mechanism that is {eps:g}-DP under add/remove neighbours: there, changing "
             "Alice's record from smoker to non-smoker takes two steps (remove it, add the other), so the odds "
             f"can move by e^(2 x {eps:g}) (group privacy, section 5). The question's mechanism is DP under "
             "replace-one, where that change is one step.")]


def check_household(answer: Any) -> Feedback:
    """Exercise 0.4: the epsilon that protects a household of k in a rounded epsilon-DP count (your variant).

    Parameters
    ----------
    answer : float
        The student's epsilon.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_household(1.0))
    True
    """
    v = values("0.4")
    return check_number(
        "0.4 A household, rounded", answer, definition.group_privacy(v.epsilon, v.household)[0],
        explain=f"rounding is post-processing (free), and a household of {v.household} is {v.household} neighbour "
                f"steps: {v.household} x {v.epsilon:g}.",
        hint="Two facts: what rounding costs (post-processing), and what an epsilon-DP mechanism promises a group "
             "of k people (group privacy).",
        mistakes=_household_mistakes(v))


def _household_mistakes(v: Values) -> list[tuple[float, str]]:
    eps, k = v.epsilon, v.household
    return [(eps, f"{eps:g} protects one person; a household of {k} is {k} neighbour steps away (group privacy)."),
            (eps / k, "Group privacy multiplies epsilon by the group size, it does not divide it."),
            ((k + 1) * eps, "Rounding is post-processing: it costs nothing, so do not add anything for it.")]


def _estimate_reference(reports: np.ndarray, epsilon: float) -> float:
    return float(mechanisms.randomized_response_estimate(reports, epsilon))


def _estimate_cases() -> list[tuple[np.ndarray, float]]:
    gen = np.random.default_rng(2000)
    out = []
    for _ in range(12):
        n = int(gen.integers(20, 400))
        out.append((gen.integers(0, 2, n), float(gen.uniform(0.2, 4.0))))
    return out


def _raw_mean(reports: np.ndarray, epsilon: float) -> float:
    return float(np.mean(reports))


def _no_shift(reports: np.ndarray, epsilon: float) -> float:
    p = mechanisms.randomized_response_probability(epsilon)
    return float(np.mean(reports) / (2 * p - 1))


def check_debiased_estimate(fn: Any) -> Feedback:
    """Exercise 0.5: write ``estimate(reports, epsilon)``, the unbiased estimate of the fraction of "yes" answers.

    Parameters
    ----------
    fn : callable
        The student's function of a 1-d array of 0/1 reports and epsilon.

    Returns
    -------
    Feedback
        The verdict, from 12 seeded random surveys.

    Examples
    --------
    >>> from scipy.special import expit
    >>> bool(check_debiased_estimate(lambda r, e: (np.mean(r) - expit(-e)) / (2 * expit(e) - 1)))
    True
    """
    return check_function(
        "0.5 Debias the survey", fn, _estimate_reference, _estimate_cases(),
        explain="a report is 1 with probability f p + (1 - f)(1 - p), so (mean - (1 - p)) / (2p - 1) is unbiased.",
        hint="Write the probability r that one report is 1 in terms of the true fraction f and p = e^eps / (1 + "
             "e^eps); the mean of the reports estimates r; solve for f.",
        mistakes=[(_raw_mean, "The raw fraction of 'yes' reports is biased towards 1/2: a 'no' is reported as 'yes' "
                              "with probability 1 - p. Solve r = f p + (1 - f)(1 - p) for f."),
                  (_no_shift, "Close: you divided by 2p - 1 but forgot to subtract the 1 - p of 'yes' reports that "
                              "come from 'no' answers.")])


def _survey_size(epsilon: float, curator: float, *, laplace_factor: float = 2.0, debiased: bool = True,
                 square: bool = True) -> float:
    """The survey size n at which randomized response's debiased estimate has the standard error of a curator's
    Laplace count of ``curator`` people divided by ``curator`` (the keywords give the typical mistakes)."""
    central = laplace_factor * mechanisms.laplace_variance(1.0, epsilon) / 2 / curator ** (2 if square else 1)
    p = mechanisms.randomized_response_probability(epsilon)
    one = mechanisms.randomized_response_variance(1, epsilon) if debiased else p * (1 - p)
    return float(one / central)


def check_survey_size(answer: Any) -> Feedback:
    """Exercise 0.6: how many people randomized response needs to match a curator's Laplace count of N people.

    Parameters
    ----------
    answer : float
        The student's survey size n (3 significant figures).

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_survey_size(1000**2 * np.e / (2 * (np.e - 1) ** 2)))
    True
    """
    v = values("0.6")
    eps, big_n = v.epsilon, v.curator
    return check_number(
        "0.6 The price of deniability", answer, _survey_size(eps, big_n),
        explain=f"the curator's estimate has variance 2 / ({eps:g} x {big_n})^2 and the survey's e^eps / (n (e^eps "
                f"- 1)^2); they are equal at n = {big_n}^2 eps^2 e^eps / (2 (e^eps - 1)^2): deniability costs a "
                "number of people that grows with the square of the curator's.",
        hint="Write both variances: the curator divides a count with Lap(1/epsilon) noise by N, the survey's "
             "debiased estimate has the variance of section 2. Set them equal and solve for n.",
        mistakes=_size_mistakes(v), digits=3)


def _size_mistakes(v: Values) -> list[tuple[float, str]]:
    eps, big_n = v.epsilon, v.curator
    right = _survey_size(eps, big_n)
    return [(_survey_size(eps, big_n, laplace_factor=1.0), "Lap(b) has variance 2 b^2, not b^2."),
            (_survey_size(eps, big_n, square=False), f"The curator divides the noisy count by {big_n}, so its "
                                                      f"variance is divided by {big_n} squared."),
            (_survey_size(eps, big_n, debiased=False), "That uses the variance of the raw reports; the debiased "
                                                        "estimate divides by 2p - 1, so its variance by (2p - 1)^2."),
            (math.sqrt(right * big_n), "A standard error falls as 1 / sqrt(n): to divide it by r, multiply the "
                                       "survey's size by r^2, not r.")]


def _rr_solution(answer: Any, rng: np.random.Generator, size: int) -> np.ndarray:
    return mechanisms.randomized_response(int(answer), math.log(3), rng=rng, size=size)


def _useful_report(mechanism: Any) -> str | None:
    """None if the mechanism reports the true answer with probability at least 0.7 (the two-coin design: 0.75)."""
    for answer in (0, 1):
        out = np.asarray(mechanism(answer, rng=np.random.default_rng(11 + answer), size=20_000), dtype=float)
        if not np.all((out == 0) | (out == 1)):
            return "its reports should be 0 (no) or 1 (yes)."
        truthful = float(np.mean(out == answer))
        if truthful < 0.7:
            return (f"it reports the true answer {answer} only {truthful:.1%} of the time; at epsilon = ln 3 "
                    "randomized response tells the truth 75 % of the time.")
    return None


def check_randomized_response(mechanism: Any) -> Feedback:
    """Exercise 0.7: write ``mechanism(answer, rng, size)``, randomized response with epsilon = ln 3, audited.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(answer, rng=Generator, size=k)`` returning k independent 0/1 reports of a 0/1 answer.

    Returns
    -------
    Feedback
        The verdict of the empirical auditor on the answers 0 and 1 (both orders), and a usefulness check.

    Examples
    --------
    >>> def rr(answer, rng, size):
    ...     flip = rng.random(size) < 0.25
    ...     return np.where(flip, 1 - answer, answer)
    >>> bool(check_randomized_response(rr))
    True
    """
    return check_private(
        "0.7 Randomized response, audited", mechanism, math.log(3), [(0, 1), (1, 0)], useful=_useful_report,
        explain="reporting the truth with probability e^eps / (1 + e^eps) = 3/4 makes every report's probability "
                "ratio exactly 3.",
        hint="Report the true answer with probability p = e^eps / (1 + e^eps) and the other answer otherwise "
             "(rng.random(size) < 1 - p picks the flips). Always telling the truth leaks; a fair coin is useless.")


EXERCISES = (
    Exercise("0.1", "The epsilon of a survey coin", check_coin_epsilon,
             lambda v: mechanisms.randomized_response_epsilon(v.p_truth),
             lambda v: tuple(zip((w for w, _ in _coin_mistakes(v)), ("logarithm", "ratio", "advantage"), strict=True)),
             "easy", digits=3, kind="plug-in", parameters={"p_truth": (0.8, 0.7, 0.85, 0.9, 0.6, 0.65, 0.95)}),
    Exercise("0.2", "A histogram under replace-one", check_replace_one_sensitivity, lambda v: 2.0 * v.cap,
             lambda v: tuple(zip((w for w, _ in _replace_mistakes(v)), ("add/remove", "counts once", "in total",
                                                                         "which ones"), strict=True)),
             "easy", kind="combine", parameters={"cells": (5, 7, 9, 11, 13), "cap": (3, 4, 5, 6, 8, 10)}),
    Exercise("0.3", "The most an adversary can learn", check_posterior,
             lambda v: float(definition.posterior_bounds(v.prior, v.epsilon)[1]),
             lambda v: tuple(zip((w for w, _ in _posterior_mistakes(v)), ("odds", "odds / (1 + odds)", "move",
                                                                           "replace-one"), strict=True)),
             "medium", digits=3, kind="plug-in",
             parameters={"prior": (0.05, 0.02, 0.1, 0.2, 0.3), "epsilon": (1.0, 0.5, 1.5, 2.0)}),
    Exercise("0.4", "A household, rounded", check_household, lambda v: round(v.household * v.epsilon, 12),
             lambda v: tuple(zip((w for w, _ in _household_mistakes(v)), ("group privacy", "multiplies",
                                                                           "post-processing"), strict=True)),
             "medium", kind="combine",
             parameters={"epsilon": (0.25, 0.1, 0.2, 0.3, 0.15, 0.05), "household": (4, 3, 5, 6)}),
    Exercise("0.5", "Debias the survey", check_debiased_estimate,
             lambda v: lambda r, e: (np.mean(r) - 1 / (1 + np.exp(e))) / np.tanh(e / 2),
             lambda v: ((_raw_mean, "biased"), (_no_shift, "subtract")), "medium", kind="implement"),
    Exercise("0.6", "The price of deniability", check_survey_size, lambda v: _survey_size(v.epsilon, v.curator),
             lambda v: tuple(zip((w for w, _ in _size_mistakes(v)), ("2 b^2", "squared", "(2p - 1)^2", "r^2"),
                                 strict=True)),
             "medium", digits=3, kind="combine",
             parameters={"epsilon": (1.0, 0.5, 2.0, 1.5, 0.25, 3.0), "curator": (1000, 500, 2000, 200, 5000, 10000)}),
    Exercise("0.7", "Randomized response, audited", check_randomized_response, lambda v: _rr_solution,
             lambda v: ((lambda a, rng, size: np.full(size, a), "leaks"),
                        (lambda a, rng, size: rng.integers(0, 2, size), "useless")), "hard", kind="implement"),
)
