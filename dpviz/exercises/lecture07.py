"""Exercises of lecture 07 (testing privacy claims with the empirical auditor).

Neighbours are add/remove-one-record, as in every lecture: a count moves by one.  Each ``check_*`` computes
its expected answer with :mod:`dpviz.audit` and returns a :class:`~dpviz.exercises.Feedback`.  The goals the
lecture's AuditExplorer checks live in :mod:`dpviz.exercises.lecture07_goals` (re-exported here).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from dpviz import mechanisms
from dpviz.audit import AuditResult, ThresholdEvent, clopper_pearson, epsilon_lower_bound, privacy_loss_interval
from dpviz.exercises.checks import NO_ANSWER, check_number, real_array, unanswered
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.lecture07_goals import catch_goal, power_goal
from dpviz.exercises.precision import within
from dpviz.exercises.registry import Exercise

__all__ = ["check_event_loss", "check_clopper_pearson", "check_bound_from_counts", "check_samples_needed",
           "broken_count", "honest_count", "check_break_the_claim", "power_goal", "catch_goal", "EXERCISES"]


def check_event_loss(answer: Any) -> Feedback:
    """Exercise 7.1: the privacy loss an event shows, with exact probabilities 0.30 and 0.12 and delta = 0.05.

    Parameters
    ----------
    answer : float
        The student's lower bound on epsilon.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_event_loss(np.log(0.25 / 0.12)))
    True
    """
    expected = float(privacy_loss_interval(30, 100, 12, 100, delta=0.05)[1])   # k/n are exactly 0.30 and 0.12
    return check_number(
        "7.1 The privacy loss of one event", answer, expected,
        explain="(eps, delta)-DP promises p <= e^eps p' + delta, so eps >= ln((p - delta) / p') = ln(0.25 / 0.12).",
        hint="Solve p <= e^eps p' + delta for eps, with p = 0.30 on D, p' = 0.12 on D' and delta = 0.05.",
        mistakes=[(math.log(0.30 / 0.12), "That is the bound for delta = 0: subtract delta from p first."),
                  (0.25 / 0.12, "That is the ratio e^eps itself; take its logarithm."),
                  (math.log(0.12 / 0.25), "The numerator is the larger probability (of D, minus delta): the bound "
                                          "compares P[M(D) in S] - delta with P[M(D') in S].")], digits=3)


def check_clopper_pearson(answer: Any) -> Feedback:
    """Exercise 7.2: the lower end of the 95 % Clopper-Pearson interval for 40 hits in 1,000 samples.

    Parameters
    ----------
    answer : float
        The student's lower end.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> from scipy import stats
    >>> bool(check_clopper_pearson(stats.beta.ppf(0.025, 40, 961)))
    True
    """
    wald = 0.04 - 1.959963984540054 * math.sqrt(0.04 * 0.96 / 1000)
    return check_number(
        "7.2 A Clopper-Pearson interval", answer, float(clopper_pearson(40, 1000, 0.95)[0]),
        explain="the lower end is the 2.5 % quantile of Beta(k, n - k + 1) = Beta(40, 961): the smallest p under "
                "which 40 or more hits still have probability 2.5 %.",
        hint="Use the exact interval: audit.clopper_pearson(k, n, confidence), or the Beta(k, n - k + 1) quantile "
             "at (1 - confidence) / 2.",
        mistakes=[(0.04, "0.04 is the point estimate k / n; the interval's lower end lies below it."),
                  (wald, "That is the normal (Wald) approximation p +- 1.96 se, which Clopper-Pearson replaces: it "
                         "can fail for rare events."),
                  (float(clopper_pearson(40, 1000, 0.90)[0]), "That is a one-sided 95 % bound (the 5 % quantile); "
                                                              "the interval is two-sided: 2.5 % on each side.")],
        digits=3)


#: Each of the two one-sided bounds may fail with probability 1 - sqrt(0.95): the samples on D and D' are
#: independent, so both hold with probability at least 95 % (Sidak), a little more than Bonferroni's 2.5 % each.
_SIDAK = 1.0 - math.sqrt(0.95)


def _bound(k: Any, n: Any, k_prime: Any, n_prime: Any, alpha_each: float) -> Any:
    """``ln(p_lo / p'_hi)`` from one-sided Clopper-Pearson bounds that each fail with probability ``alpha_each``.

    The lower end of a two-sided interval at level ``1 - 2 a`` is a one-sided bound at level ``1 - a``.
    """
    p_lo = clopper_pearson(k, n, 1.0 - 2.0 * alpha_each)[0]
    q_hi = clopper_pearson(k_prime, n_prime, 1.0 - 2.0 * alpha_each)[1]
    return np.log(p_lo) - np.log(q_hi)


def _check_with_alternatives(exercise: str, answer: Any, expected: float, alternatives: list[tuple[float, str]],
                             **kwargs: Any) -> Feedback:
    """:func:`check_number`, except that an answer matching one of ``alternatives`` (other valid constructions)
    is right too, with its own explanation."""
    fb = check_number(exercise, answer, expected, **kwargs)
    value = None if fb.passed or unanswered(answer) or isinstance(answer, bool) else real_array(answer)
    if value is None or value.shape != () or not np.isfinite(value):
        return fb
    for other, why in alternatives:
        if within(float(value), other, kwargs.get("digits"), kwargs.get("rtol", 1e-6), 1e-9):
            return Feedback(exercise, True, f"{float(value):.6g} is right too: {why}")
    return fb


#: Exercise 7.3 asks for three significant figures: 0.960 is the bound, the next wrong construction is 1 % away;
#: an answer this far below the loosest valid construction is a valid but needlessly loose bound.
_RTOL = 1e-3


def check_bound_from_counts(answer: Any) -> Feedback:
    """Exercise 7.3: a 95 % lower bound on epsilon from 5,000 / 10,000 hits on D and 1,800 / 10,000 on D'.

    The bound ``ln(p_lo / p'_hi)`` fails only when ``p < p_lo`` or ``p' > p'_hi``.  With one-sided
    Clopper-Pearson bounds at 97.5 % each (the ends of two-sided 95 % intervals) that happens with probability at
    most 2.5 % + 2.5 % = 5 % (Bonferroni): the expected answer.  Also right: 97.5 % replaced by ``sqrt(0.95)``
    (the samples are independent: Sidak), and the lower end of ``privacy_loss_interval(..., confidence=0.95)``
    (a simultaneous two-sided interval, whose lower end alone holds with 97.5 %).  One-sided bounds at 95 % each
    are wrong: together they can fail with probability up to 10 %.

    Parameters
    ----------
    answer : float
        The student's lower bound.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_bound_from_counts(0.96001444)), bool(check_bound_from_counts(0.95126276))
    (True, True)
    >>> bool(check_bound_from_counts(0.960)), bool(check_bound_from_counts(0.951))
    (True, True)
    >>> bool(check_bound_from_counts(0.96982385))
    False
    """
    counts = (5000, 10_000, 1800, 10_000)
    lower, estimate, upper = (float(v) for v in privacy_loss_interval(*counts, confidence=0.95))
    value = None if unanswered(answer) or isinstance(answer, bool) else real_array(answer)
    if value is not None and value.shape == () and np.isfinite(value) and 0 < value < lower * (1 - _RTOL):
        return Feedback("7.3 A lower bound on epsilon from counts", False,
                        f"{float(value):.6g} is a valid 95 % lower bound (so is any smaller number), but a looser one "
                        "than these counts allow. Take p's lower end and p''s upper end, each a one-sided "
                        "Clopper-Pearson bound; split the 5 % between the two, and divide.")
    return _check_with_alternatives(
        "7.3 A lower bound on epsilon from counts", answer, float(_bound(*counts, 0.025)),
        [(float(_bound(*counts, _SIDAK)),
          "the two samples are independent, so two one-sided bounds at sqrt(0.95) = 97.47 % each both hold with "
          "probability at least 95 % (Sidak), a hair tighter than Bonferroni's 97.5 % each."),
         (lower, "the lower end of privacy_loss_interval at 95 % is valid, but conservative: that interval bounds "
                 "the loss on both sides at once, so each probability gets a two-sided interval at 97.5 %, and its "
                 "lower end alone holds with 97.5 %. A one-sided 95 % bound needs only one end of each two-sided "
                 "95 % interval, and is a little higher.")],
        digits=3,
        explain="the bound fails only if p < p_lo or p' > p'_hi; the lower end of a two-sided 95 % Clopper-Pearson "
                "interval is a one-sided bound at 97.5 %, so one or the other fails with probability at most "
                "2.5 % + 2.5 % = 5 % (Bonferroni), and ln(p_lo / p'_hi) holds with at least 95 %.",
        hint="Take p's lower end and p''s upper end, each a one-sided Clopper-Pearson bound; split the 5 % between "
             "the two, and divide.",
        mistakes=[(estimate, "That is the point estimate ln(0.5 / 0.18); the bound must hold with 95 % confidence."),
                  (float(_bound(*counts, 0.05)),
                   "Each one-sided bound at 95 % fails with probability 5 %, and the bound on epsilon can fail "
                   "whenever one of them does: the guarantee drops to 90 % (90.25 % for independent samples). "
                   "Split the 5 % between them: 97.5 % each, the ends of two-sided 95 % intervals (Bonferroni)."),
                  (upper, "That is the upper end of the privacy loss's interval; a lower bound on epsilon uses "
                          "p_lo / p'_hi.")])


@functools.lru_cache(maxsize=8)
def _samples_needed(alpha_each: float = 0.025, stable: bool = True, use_estimate: bool = False) -> int:
    """Smallest n (up to 10,000) from which the bound exceeds 1 when the counts equal their rounded expectations.

    ``alpha_each`` is the failure probability of each one-sided Clopper-Pearson bound (0.025: the bound of
    exercise 7.3; 0.0125: the lower end of ``privacy_loss_interval`` at 95 %).
    """
    n = np.arange(1, 10_001)
    p, p_prime = 0.5, 0.5 * math.exp(-2.0)     # P(Lap(1/2) <= 0) and P(1 + Lap(1/2) <= 0): a ratio of e^2
    k, k_prime = np.floor(n * p + 0.5), np.floor(n * p_prime + 0.5)
    with np.errstate(divide="ignore"):
        bound = np.log(k / n) - np.log(k_prime / n) if use_estimate else _bound(k, n, k_prime, n, alpha_each)
    above = bound > 1.0
    if not stable:
        return int(n[np.argmax(above)])
    return int(n[np.flatnonzero(~above).max() + 1]) if not above.all() else 1


def check_samples_needed(answer: Any) -> Feedback:
    """Exercise 7.4: how many samples per dataset a 95 % audit needs to catch epsilon = 2 claimed as 1.

    The expected answer uses the bound of exercise 7.3 (one-sided Clopper-Pearson bounds at 97.5 % each); the
    Sidak bound gives the same n, and the more conservative lower end of ``privacy_loss_interval`` at 95 % is
    accepted with its own, larger n.

    Parameters
    ----------
    answer : int
        The student's number of samples per dataset.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_samples_needed(87)), bool(check_samples_needed(113)), bool(check_samples_needed(69))
    (True, True, False)
    """
    rarer = f"the rarer side, D' (probability e^-2 / 2 = {0.5 * math.exp(-2.0):.3f}), is what needs the samples"
    return _check_with_alternatives(
        "7.4 How many samples catch epsilon = 2 claimed as 1", answer, _samples_needed(),
        [(_samples_needed(0.0125),
          "that is the n for the lower end of privacy_loss_interval at 95 %, a valid but conservative bound (its "
          "lower end alone holds with 97.5 %); the one-sided 95 % bound of exercise 7.3 gets there with fewer "
          "samples.")],
        explain=f"from there on the 95 % bound of exercise 7.3 stays above 1; the log-ratio interval narrows like "
                f"1 / sqrt(n), and {rarer}.",
        hint="Scan n = 1, 2, ..., 10,000 with k = round(n / 2), k' = round(n e^-2 / 2) and the bound of exercise "
             "7.3 (one-sided Clopper-Pearson bounds at 97.5 % each), and find where it exceeds 1 for good.",
        mistakes=[(_samples_needed(stable=False), "At that n the bound first exceeds 1, but it dips below 1 again a "
                                                  "few samples later (the counts are rounded): find where it stays "
                                                  "above."),
                  (_samples_needed(0.0125, stable=False), "At that n privacy_loss_interval's lower end first "
                                                          "exceeds 1, but it dips below 1 again a few samples later "
                                                          "(the counts are rounded): find where it stays above."),
                  (_samples_needed(0.05), "That n uses one-sided bounds at 95 % each; the bound on epsilon can "
                                          "fail whenever one of them does, so it holds only with 90 %. Split the "
                                          "5 %: 97.5 % each (Bonferroni)."),
                  (_samples_needed(use_estimate=True), "The point estimate ln(k/n / (k'/n)) exceeds 1 almost at "
                                                       "once; the bound must hold with 95 % confidence.")])


def broken_count(count: Any, rng: np.random.Generator, size: int) -> np.ndarray:
    """A count released with Laplace noise of scale 1/(2 epsilon) while claiming epsilon = 1: truly 2-DP only.

    Parameters
    ----------
    count : float
        The true count.
    rng : numpy.random.Generator
        Source of the noise.
    size : int
        Number of independent releases.

    Returns
    -------
    numpy.ndarray, shape (size,)
        The noisy counts.

    Examples
    --------
    >>> broken_count(3.0, np.random.default_rng(0), 2).shape
    (2,)
    """
    return mechanisms.laplace(np.full(size, float(count)), sensitivity=1.0, epsilon=2.0, rng=rng)


def honest_count(count: Any, rng: np.random.Generator, size: int) -> np.ndarray:
    """A count released with Laplace noise of scale 1/epsilon, epsilon = 1: honestly 1-DP.

    Parameters
    ----------
    count : float
        The true count.
    rng : numpy.random.Generator
        Source of the noise.
    size : int
        Number of independent releases.

    Returns
    -------
    numpy.ndarray, shape (size,)
        The noisy counts.

    Examples
    --------
    >>> honest_count(3.0, np.random.default_rng(0), 2).shape
    (2,)
    """
    return mechanisms.laplace(np.full(size, float(count)), sensitivity=1.0, epsilon=1.0, rng=rng)


_TITLE = "7.5 Break a broken claim with the auditor"
_HINT = ("Audit neighbouring counts (e.g. 0 and 1: one person added) with audit.epsilon_lower_bound(mechanism, d, "
         "d_prime, event=..., samples=..., confidence=0.99 or more, claimed_epsilon=1.0, rng=...) and return its "
         "result; an event with a large probability on one side (output <= 0 on the count 0) needs few samples.")


def _audit_or_feedback(audit: Any, mechanism: Any, which: str) -> AuditResult | Feedback:
    """The student's audit of ``mechanism``, or the feedback that explains why there is none."""
    try:
        res = audit(mechanism)
    except Exception as exc:  # the student's bug is feedback, not a crash of the notebook
        return Feedback(_TITLE, False, f"auditing the {which} mechanism raised {type(exc).__name__}: {exc}.", _HINT)
    if unanswered(res):
        return Feedback(_TITLE, False, "no answer yet: your function returns nothing; write its body and run the "
                        "cell again.")
    if not isinstance(res, AuditResult):
        return Feedback(_TITLE, False, f"expected the AuditResult that epsilon_lower_bound returns, got "
                        f"{type(res).__name__}.", _HINT)
    return res


def check_break_the_claim(audit: Any) -> Feedback:
    """Exercise 7.5: ``audit_count(mechanism)`` that disproves :func:`broken_count`'s claim, not :func:`honest_count`'s.

    Parameters
    ----------
    audit : callable
        ``audit(mechanism) -> AuditResult``: the student's audit of a count mechanism
        ``mechanism(count, rng, size)`` claiming epsilon = 1.

    Returns
    -------
    Feedback
        Correct when the audit (confidence >= 99 %, claim 1) disproves the broken mechanism's claim and does
        not accuse the honest one.

    Examples
    --------
    >>> def audit(m):
    ...     return epsilon_lower_bound(m, 0.0, 1.0, event=ThresholdEvent(0, 0.0, above=False), samples=20_000,
    ...                                confidence=0.999, claimed_epsilon=1.0, rng=0)
    >>> bool(check_break_the_claim(audit))
    True
    """
    if unanswered(audit):
        return Feedback(_TITLE, False, NO_ANSWER)
    if not callable(audit):
        return Feedback(_TITLE, False, f"expected a function audit(mechanism), got {audit!r}.", _HINT)
    res = _audit_or_feedback(audit, broken_count, "broken")
    if isinstance(res, Feedback):
        return res
    if res.claimed_epsilon is None or not math.isclose(res.claimed_epsilon, 1.0):
        return Feedback(_TITLE, False, f"your audit tests the claim {res.claimed_epsilon}, not the claimed epsilon "
                        "= 1.", "Pass claimed_epsilon=1.0: the verdict compares the bound with the claim.")
    if res.confidence < 0.99:
        return Feedback(_TITLE, False, f"your audit runs at {100 * res.confidence:g} % confidence.",
                        "A verdict at low confidence accuses honest mechanisms too often: use a confidence of at "
                        "least 0.99.")
    if not res.violation:
        few = f"Too few samples: with {res.samples[0]:,} per dataset the interval is too wide; take more."
        return Feedback(_TITLE, False, f"your audit found epsilon >= {res.epsilon_lower:.3f}, not above 1.",
                        (few if res.samples[0] < 5_000 else
                         "Choose an event whose probability differs most between the two counts and is not rare, "
                         "e.g. output <= 0 when the counts are 0 and 1, or let the auditor search (event=None)."))
    honest = _audit_or_feedback(audit, honest_count, "honest")
    if isinstance(honest, Feedback):
        return honest
    if honest.violation:
        return Feedback(_TITLE, False, f"your audit also accuses the honest 1-DP mechanism (epsilon >= "
                        f"{honest.epsilon_lower:.3f}): a false alarm.",
                        "Check that the two inputs are neighbours (counts that differ by one: one person added or "
                        "removed); further apart, even honest noise shows a loss above 1.")
    return Feedback(_TITLE, True, f"your audit shows epsilon >= {res.epsilon_lower:.3f} > 1 for the broken mechanism "
                    f"at {100 * res.confidence:g} % confidence, and {honest.epsilon_lower:.3f} <= 1 for the honest "
                    "one: Laplace noise of scale 1/(2 epsilon) is only 2 epsilon-DP.")


def _solution_audit(mechanism: Any) -> AuditResult:
    return epsilon_lower_bound(mechanism, 0.0, 1.0, event=ThresholdEvent(0, 0.0, above=False), samples=20_000,
                               confidence=0.999, claimed_epsilon=1.0, rng=0)


EXERCISES = (
    Exercise("7.1", "The privacy loss of one event", check_event_loss, math.log(0.25 / 0.12),
             ((math.log(0.30 / 0.12), "delta"), (0.25 / 0.12, "logarithm"), (math.log(0.12 / 0.25), "numerator")),
             "easy", digits=3),
    Exercise("7.2", "A Clopper-Pearson interval", check_clopper_pearson, float(clopper_pearson(40, 1000, 0.95)[0]),
             ((0.04, "point estimate"), (float(clopper_pearson(40, 1000, 0.90)[0]), "two-sided")), "easy", digits=3),
    Exercise("7.3", "A lower bound on epsilon from counts", check_bound_from_counts,
             float(_bound(5000, 10_000, 1800, 10_000, 0.025)),
             ((float(privacy_loss_interval(5000, 10_000, 1800, 10_000)[1]), "point estimate"),
              (math.log(0.5 / 0.18), "95 % confidence"), (float(_bound(5000, 10_000, 1800, 10_000, 0.05)), "90 %")),
             "medium", digits=3),
    Exercise("7.4", "How many samples catch epsilon = 2 claimed as 1", check_samples_needed, 87,
             ((79, "dips"), (105, "dips"), (69, "90 %"), (1, "point estimate")), "medium"),
    Exercise("7.5", "Break a broken claim with the auditor", check_break_the_claim, _solution_audit,
             ((lambda m: epsilon_lower_bound(m, 0.0, 1.0, event=ThresholdEvent(0, 0.0, above=False), samples=100,
                                             confidence=0.999, claimed_epsilon=1.0, rng=0), "samples"),
              (lambda m: epsilon_lower_bound(m, 0.0, 1.0, samples=20_000, confidence=0.5, claimed_epsilon=1.0,
                                             rng=0), "confidence"),
              (lambda m: epsilon_lower_bound(m, 0.0, 3.0, event=ThresholdEvent(0, 0.0, above=False), samples=20_000,
                                             confidence=0.999, claimed_epsilon=1.0, rng=0), "neighbours")), "hard"),
)
