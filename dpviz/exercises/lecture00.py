"""Exercises of lecture 00 (what differential privacy promises), and the goals of its explorer.

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
from dpviz.exercises.registry import Exercise

__all__ = ["check_coin_epsilon", "check_replace_one_sensitivity", "check_posterior", "check_household",
           "check_debiased_estimate", "check_survey_variance", "check_randomized_response", "warner_goal",
           "indistinguishable_goal", "group_goal", "EXERCISES"]


def check_coin_epsilon(answer: Any) -> Feedback:
    """Exercise 0.1: the epsilon of randomized response that tells the truth with probability 0.8.

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
    return check_number(
        "0.1 The epsilon of a survey coin", answer, mechanisms.randomized_response_epsilon(0.8),
        explain="the two reports' probabilities are 0.8 and 0.2 for one answer and swapped for the other, so the "
                "largest ratio is 0.8 / 0.2 = 4 and epsilon = ln 4.",
        hint="Write the probability of each report for a 'yes' and for a 'no'; epsilon is the log of the largest "
             "ratio between them.",
        mistakes=[(4.0, "4 is the ratio itself; epsilon is its natural logarithm (P <= e^epsilon P')."),
                  (math.log(0.8), "ln 0.8 is the log of one probability; take the log of the ratio of the two "
                                  "reports' probabilities, 0.8 / 0.2."),
                  (0.6, "0.6 = 0.8 - 0.2 is the difference of the probabilities (the advantage of a test); DP "
                        "bounds their ratio.")], digits=3)


def check_replace_one_sensitivity(answer: Any) -> Feedback:
    """Exercise 0.2: the L1 sensitivity of a 5-cell histogram under replace-one neighbours.

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
    >>> bool(check_replace_one_sensitivity(2))
    True
    """
    return check_number(
        "0.2 A histogram under replace-one", answer, definition.l1_sensitivity(np.eye(5), "replace-one"),
        explain="the changed person leaves one cell (-1) and enters another (+1): the histogram moves by 2 in L1.",
        hint="Replace one person's record by another value: which cells change, and by how much each?",
        mistakes=[(1.0, "1 is the sensitivity under add/remove neighbours; a replacement changes two cells."),
                  (5.0, "Only the two cells the person leaves and enters change, not all five."),
                  (0.0, "The total is unchanged, but the histogram is not: two cells change.")])


def check_posterior(answer: Any) -> Feedback:
    """Exercise 0.3: the highest posterior an eps = 1 output allows an informed adversary with prior 5 %.

    The mechanism is 1-DP under replace-one neighbours, and "smoker" against "non-smoker" is one replacement, so
    the odds move by at most e^1.  The answer for a mechanism 1-DP under add/remove (a replacement is two steps,
    e^2) gets its own explanation.

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
    expected = float(definition.posterior_bounds(0.05, 1.0)[1])
    return check_number(
        "0.3 The most an adversary can learn", answer, expected,
        explain="smoker against non-smoker is one replace-one step, so the posterior odds are at most e^1 times "
                "the prior odds 0.05 / 0.95; back to a probability, e * 0.05 / (e * 0.05 + 0.95).",
        hint="Bayes' rule in odds form: posterior odds = prior odds x likelihood ratio, and an epsilon-DP output "
             "has a likelihood ratio of at most e^epsilon. Convert the odds back to a probability.",
        mistakes=[(0.05 * math.e, "e x 0.05 multiplies the probability; it is the odds (0.05 / 0.95) that e^epsilon "
                                  "bounds. Convert the posterior odds back to a probability."),
                  (math.e * 0.05 / 0.95, "That is the posterior odds; convert it to a probability, odds / (1 + odds)."),
                  (0.05, "An epsilon-DP output can move the belief: by how much at most?"),
                  (float(definition.posterior_bounds(0.05, 2.0)[1]),
                   "That is the answer for a mechanism that is 1-DP under add/remove neighbours: there, changing "
                   "Alice's record from smoker to non-smoker takes two steps (remove it, add the other), so the odds "
                   "can move by e^2 (group privacy, section 5). The question's mechanism is 1-DP under replace-one, "
                   "where that change is one step: e^1.")], digits=3)


def check_household(answer: Any) -> Feedback:
    """Exercise 0.4: the epsilon that protects a household of 4 in a rounded 0.25-DP count.

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
    return check_number(
        "0.4 A household, rounded", answer, definition.group_privacy(0.25, 4)[0],
        explain="rounding is post-processing (free), and a group of 4 is 4 neighbour steps: 4 x 0.25 = 1.",
        hint="Two facts: what rounding costs (post-processing), and what an epsilon-DP mechanism promises a group "
             "of k people (group privacy).",
        mistakes=[(0.25, "0.25 protects one person; a household of 4 is 4 neighbour steps away (group privacy)."),
                  (0.0625, "Group privacy multiplies epsilon by the group size, it does not divide it."),
                  (1.25, "Rounding is post-processing: it costs nothing, so do not add anything for it.")])


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


def _variance_reference(n: int, epsilon: float) -> float:
    return mechanisms.randomized_response_variance(n, epsilon)


def _variance_cases() -> list[tuple[int, float]]:
    gen = np.random.default_rng(2001)
    return [(int(n), float(e)) for n, e in zip(gen.integers(10, 5000, 15), gen.uniform(0.1, 5.0, 15), strict=True)]


def _variance_undebiased(n: int, epsilon: float) -> float:
    p = mechanisms.randomized_response_probability(epsilon)
    return p * (1 - p) / n


def _variance_unsquared(n: int, epsilon: float) -> float:
    p = mechanisms.randomized_response_probability(epsilon)
    return p * (1 - p) / (n * (2 * p - 1))


def check_survey_variance(fn: Any) -> Feedback:
    """Exercise 0.6: write ``variance(n, epsilon)``, the variance of the debiased estimate for n people.

    Parameters
    ----------
    fn : callable
        The student's function.

    Returns
    -------
    Feedback
        The verdict, from 15 seeded random (n, epsilon) pairs.

    Examples
    --------
    >>> bool(check_survey_variance(lambda n, e: np.exp(e) / (n * np.expm1(e) ** 2)))
    True
    """
    return check_function(
        "0.6 The price of deniability", fn, _variance_reference, _variance_cases(),
        explain="each report has variance p(1 - p) whatever the answer, the mean divides it by n and the "
                "debiasing by (2p - 1)^2: p(1 - p) / (n (2p - 1)^2) = e^eps / (n (e^eps - 1)^2).",
        hint="The answers are fixed; only the flips are random. What is the variance of one report, of the mean of "
             "n reports, and what does dividing by 2p - 1 do to a variance?",
        mistakes=[(_variance_undebiased, "That is the variance of the mean of the reports; the estimate also "
                                         "divides by 2p - 1, which multiplies the variance by 1 / (2p - 1)^2."),
                  (_variance_unsquared, "Dividing a random variable by c divides its variance by c^2: square "
                                        "the 2p - 1.")])


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


def warner_goal(probability: float = 0.75, tolerance: float = 0.005) -> tuple[str, Any]:
    """A goal for the PrivacyLossExplorer: find the epsilon at which randomized response tells the truth w.p. 3/4.

    Parameters
    ----------
    probability : float, default 0.75
        The target probability of a truthful report (the two-coin design of lecture 00: 3/4).
    tolerance : float, default 0.005
        Absolute tolerance on that probability.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)`` for :meth:`dpviz.widgets.Explorer.add_goal`.

    Examples
    --------
    >>> text, test = warner_goal()
    >>> class R:
    ...     mechanism, epsilon = "randomized response", math.log(3)
    >>> test(R(), {})
    'epsilon = 1.1: the truth with probability 0.750'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if result.mechanism != "randomized response":
            return None
        p = mechanisms.randomized_response_probability(result.epsilon)
        if abs(p - probability) <= tolerance:
            return f"epsilon = {result.epsilon:.3g}: the truth with probability {p:.3f}"
        return None

    return (f"with randomized response, find the epsilon at which a person reports the truth with probability "
            f"{probability:g}"), test


def indistinguishable_goal(advantage: float = 0.1) -> tuple[str, Any]:
    """A goal: the largest epsilon at which no test tells a Laplace count's D from D' better than ``advantage``.

    Reached when the total variation distance between the two output distributions of a Laplace count on
    neighbours (one person apart) lies in ``[0.9 advantage, advantage]``.

    Parameters
    ----------
    advantage : float, default 0.1
        The largest advantage (power minus false-positive rate) allowed.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = indistinguishable_goal(0.1)
    >>> class R:
    ...     mechanism, epsilon, group = "Laplace", 0.21, 1
    >>> test(R(), {})
    'epsilon = 0.21: the best test has advantage 0.100'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if result.mechanism != "Laplace" or result.group != 1:
            return None
        tv = definition.laplace_total_variation(1.0, 1.0, result.epsilon)
        if 0.9 * advantage <= tv <= advantage:
            return f"epsilon = {result.epsilon:.3g}: the best test has advantage {tv:.3f}"
        return None

    return (f"with the Laplace mechanism and one person, find the largest epsilon at which no test tells D from D' "
            f"with an advantage above {advantage:g}"), test


def group_goal(group: int = 5, target: float = 1.0, tolerance: float = 0.03) -> tuple[str, Any]:
    """A goal: protect a group of ``group`` people with a Laplace count as well as one person is at ``target``.

    Parameters
    ----------
    group : int, default 5
        The group size to set.
    target : float, default 1.0
        The group's epsilon to reach.
    tolerance : float, default 0.03
        Relative tolerance on the group's epsilon.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)``.

    Examples
    --------
    >>> text, test = group_goal()
    >>> class R:
    ...     mechanism, epsilon, group = "Laplace", 0.2, 5
    >>> test(R(), {})
    'epsilon = 0.2 per person: the group of 5 has epsilon 1'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        if result.mechanism != "Laplace" or result.group != group:
            return None
        eps_group = definition.group_privacy(result.epsilon, group)[0]
        if abs(eps_group - target) <= tolerance * target:
            return f"epsilon = {result.epsilon:.3g} per person: the group of {group} has epsilon {eps_group:.3g}"
        return None

    return (f"with the Laplace mechanism, set the group to {group} people and find the epsilon per person that "
            f"gives the group epsilon = {target:g}"), test


EXERCISES = (
    Exercise("0.1", "The epsilon of a survey coin", check_coin_epsilon, math.log(4),
             ((4.0, "logarithm"), (math.log(0.8), "ratio"), (0.6, "advantage")), "easy", digits=3),
    Exercise("0.2", "A histogram under replace-one", check_replace_one_sensitivity, 2.0,
             ((1.0, "add/remove"), (5.0, "two cells"), (0.0, "two cells")), "easy"),
    Exercise("0.3", "The most an adversary can learn", check_posterior,
             0.05 * math.e / (0.05 * math.e + 0.95),
             ((0.05 * math.e, "odds"), (math.e * 0.05 / 0.95, "odds / (1 + odds)"), (0.05, "move"),
              (0.05 * math.e**2 / (0.05 * math.e**2 + 0.95), "replace-one")), "medium", digits=3),
    Exercise("0.4", "A household, rounded", check_household, 1.0,
             ((0.25, "group privacy"), (0.0625, "multiplies"), (1.25, "post-processing")), "medium"),
    Exercise("0.5", "Debias the survey", check_debiased_estimate,
             lambda r, e: (np.mean(r) - 1 / (1 + np.exp(e))) / np.tanh(e / 2),
             ((_raw_mean, "biased"), (_no_shift, "subtract")), "medium"),
    Exercise("0.6", "The price of deniability", check_survey_variance,
             lambda n, e: np.exp(e) / (n * np.expm1(e) ** 2),
             ((_variance_undebiased, "(2p - 1)^2"), (_variance_unsquared, "square")), "hard"),
    Exercise("0.7", "Randomized response, audited", check_randomized_response, _rr_solution,
             ((lambda a, rng, size: np.full(size, a), "leaks"),
              (lambda a, rng, size: rng.integers(0, 2, size), "useless")), "hard"),
)
