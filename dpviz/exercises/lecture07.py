"""Exercises of lecture 07 (testing privacy claims with the empirical auditor).

Neighbours are add/remove-one-record, as in every lecture: a count moves by one.  Each ``check_*`` computes
its expected answer for the student's variant (:func:`values`) with :mod:`dpviz.audit` and returns a
:class:`~dpviz.exercises.Feedback`.  The goals the lecture's AuditExplorer checks live in
:mod:`dpviz.exercises.lecture07_goals` (re-exported here), the bounds of exercises 7.3 and 7.4 in
:mod:`dpviz.exercises.lecture07_bounds`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpviz import mechanisms
from dpviz.audit import AuditResult, ThresholdEvent, clopper_pearson, epsilon_lower_bound, privacy_loss_interval
from dpviz.exercises.checks import NO_ANSWER, check_number, real_array, unanswered
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.lecture07_bounds import _SIDAK, _bound, _check_with_alternatives, _samples_needed
from dpviz.exercises.lecture07_goals import catch_goal, power_goal
from dpviz.exercises.registry import Exercise
from dpviz.exercises.variants import Values, start, values

__all__ = ["start", "values", "check_event_loss", "check_clopper_pearson", "check_bound_from_counts",
           "check_samples_needed", "broken_count", "honest_count", "check_break_the_claim", "power_goal",
           "catch_goal", "EXERCISES"]


def _event_loss(v: Values) -> float:
    k, k_prime = round(100 * v.p), round(100 * v.p_prime)                 # k / 100 is exactly p
    return float(privacy_loss_interval(k, 100, k_prime, 100, delta=v.delta)[1])


def check_event_loss(answer: Any) -> Feedback:
    """Exercise 7.1: the privacy loss an event shows, with exact probabilities p, p' and delta of your variant.

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
    v = values("7.1")
    return check_number(
        "7.1 The privacy loss of one event", answer, _event_loss(v),
        explain=f"(eps, delta)-DP promises p <= e^eps p' + delta, so eps >= ln((p - delta) / p') = "
                f"ln({v.p - v.delta:.2f} / {v.p_prime:g}).",
        hint=f"Solve p <= e^eps p' + delta for eps, with p = {v.p:g} on D, p' = {v.p_prime:g} on D' and delta = "
             f"{v.delta:g}.",
        mistakes=_event_loss_mistakes(v), digits=3)


def _event_loss_mistakes(v: Values) -> list[tuple[float, str]]:
    p, q, d = v.p, v.p_prime, v.delta
    return [(math.log(p / q), "That is the bound for delta = 0: subtract delta from p first."),
            ((p - d) / q, "That is the ratio e^eps itself; take its logarithm."),
            (math.log(q / (p - d)), "The numerator is the larger probability (of D, minus delta): the bound compares "
                                    "P[M(D) in S] - delta with P[M(D') in S]."),
            (math.log(p / (q + d)), "delta is subtracted from p, not added to p': (eps, delta)-DP promises "
                                    "p <= e^eps p' + delta.")]


def check_clopper_pearson(answer: Any) -> Feedback:
    """Exercise 7.2: the lower end of the 95 % Clopper-Pearson interval for k hits in n samples (your variant).

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
    v = values("7.2")
    k, n = v.hits, v.samples
    return check_number(
        "7.2 A Clopper-Pearson interval", answer, float(clopper_pearson(k, n, 0.95)[0]),
        explain=f"the lower end is the 2.5 % quantile of Beta(k, n - k + 1) = Beta({k}, {n - k + 1}): the smallest "
                f"p under which {k} or more hits still have probability 2.5 %.",
        hint="Use the exact interval: audit.clopper_pearson(k, n, confidence), or the Beta(k, n - k + 1) quantile "
             "at (1 - confidence) / 2.",
        mistakes=_clopper_pearson_mistakes(v), digits=3)


def _clopper_pearson_mistakes(v: Values) -> list[tuple[float, str]]:
    k, n = v.hits, v.samples
    p = k / n
    return [(p, f"{p:g} is the point estimate k / n; the interval's lower end lies below it."),
            (p - 1.959963984540054 * math.sqrt(p * (1 - p) / n),
             "That is the normal (Wald) approximation p +- 1.96 se, which Clopper-Pearson replaces: it can fail for "
             "rare events."),
            (float(clopper_pearson(k, n, 0.90)[0]), "That is a one-sided 95 % bound (the 5 % quantile); the interval "
                                                    "is two-sided: 2.5 % on each side.")]


#: Exercise 7.3 asks for three significant figures; an answer this far below the loosest valid construction is a
#: valid but needlessly loose bound.
_RTOL = 1e-3


def _counts(v: Values) -> tuple[int, int, int, int]:
    return v.hits[0], 10_000, v.hits[1], 10_000


#: Exercise 7.3's hit counts (k on D, k' on D', of 10,000 each): bounds below 1, each rounding to 3 figures so that
#: one unit off it is neither the Sidak bound nor privacy_loss_interval's, which are right too.
_HITS = ((5000, 1800), (5000, 2000), (4500, 1800), (4500, 2000), (4500, 1600), (6000, 2200), (4000, 1500),
         (4000, 1600), (5200, 2000), (5200, 2200), (5000, 2200), (4000, 2000))


def check_bound_from_counts(answer: Any) -> Feedback:
    """Exercise 7.3: a 95 % lower bound on epsilon from k / 10,000 hits on D and k' / 10,000 on D' (your variant).

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
    v = values("7.3")
    counts = _counts(v)
    lower = float(privacy_loss_interval(*counts, confidence=0.95)[0])
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
        mistakes=_bound_mistakes(v))


def _bound_mistakes(v: Values) -> list[tuple[float, str]]:
    counts = _counts(v)
    _, estimate, upper = (float(x) for x in privacy_loss_interval(*counts, confidence=0.95))
    return [(estimate, f"That is the point estimate ln({v.hits[0] / 10_000:g} / {v.hits[1] / 10_000:g}); the bound "
                       "must hold with 95 % confidence."),
            (float(_bound(*counts, 0.05)),
             "Each one-sided bound at 95 % fails with probability 5 %, and the bound on epsilon can fail whenever one "
             "of them does: the guarantee drops to 90 % (90.25 % for independent samples). Split the 5 % between "
             "them: 97.5 % each, the ends of two-sided 95 % intervals (Bonferroni)."),
            (upper, "That is the upper end of the privacy loss's interval; a lower bound on epsilon uses "
                    "p_lo / p'_hi.")]


def check_samples_needed(answer: Any) -> Feedback:
    """Exercise 7.4: how many samples per dataset a 95 % audit needs to catch a broken claim of epsilon = 1.

    The count's Laplace noise is calibrated to ``true_epsilon`` of the student's variant.  The expected answer
    uses the bound of exercise 7.3 (one-sided Clopper-Pearson bounds at 97.5 % each); the Sidak bound gives the
    same n for every ``true_epsilon`` offered, and the more conservative lower end of ``privacy_loss_interval`` at
    95 % is accepted with its own, larger n.

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
    v = values("7.4")
    e = v.true_epsilon
    rarer = f"the rarer side, D' (probability e^-{e:g} / 2 = {0.5 * math.exp(-e):.3f}), is what needs the samples"
    return _check_with_alternatives(
        "7.4 How many samples catch a broken claim", answer, _samples_needed(e),
        [(_samples_needed(e, 0.0125),
          "that is the n for the lower end of privacy_loss_interval at 95 %, a valid but conservative bound (its "
          "lower end alone holds with 97.5 %); the one-sided 95 % bound of exercise 7.3 gets there with fewer "
          "samples.")],
        explain=f"from there on the 95 % bound of exercise 7.3 stays above 1; the log-ratio interval narrows like "
                f"1 / sqrt(n), and {rarer}.",
        hint=f"p = P(Lap(1/{e:g}) <= 0) and p' = P(1 + Lap(1/{e:g}) <= 0). Scan n = 1, 2, ..., 10,000 with "
             "k = round(n p), k' = round(n p') and the bound of exercise 7.3 (one-sided Clopper-Pearson bounds at "
             "97.5 % each), and find where it exceeds 1 for good.",
        mistakes=[(n, why) for n, why, _ in _samples_mistakes(v)])


def _samples_mistakes(v: Values) -> list[tuple[float, str, str]]:
    """(wrong n, hint, a word of the hint), leaving out any that a valid construction gives too."""
    e = v.true_epsilon
    dips = "but it dips below 1 again a few samples later (the counts are rounded): find where it stays above."
    found = [(_samples_needed(e, stable=False), f"At that n the bound first exceeds 1, {dips}", "dips"),
             (_samples_needed(e, 0.0125, stable=False), f"At that n privacy_loss_interval's lower end first exceeds "
                                                         f"1, {dips}", "dips"),
             (_samples_needed(e, 0.05), "That n uses one-sided bounds at 95 % each; the bound on epsilon can fail "
                                        "whenever one of them does, so it holds only with 90 %. Split the 5 %: "
                                        "97.5 % each (Bonferroni).", "90 %"),
             (_samples_needed(e, use_estimate=True), "The point estimate ln(k/n / (k'/n)) exceeds 1 almost at once; "
                                                     "the bound must hold with 95 % confidence.", "point estimate")]
    right = {_samples_needed(e), _samples_needed(e, 0.0125)}
    return [(float(n), why, word) for n, why, word in found if n not in right]


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
    Exercise("7.1", "The privacy loss of one event", check_event_loss, _event_loss,
             lambda v: tuple(zip((w for w, _ in _event_loss_mistakes(v)), ("delta", "logarithm", "numerator",
                                                                           "not added"), strict=True)),
             "easy", digits=3, kind="plug-in",
             parameters={"p": (0.30, 0.25, 0.35, 0.40, 0.45, 0.28), "p_prime": (0.12, 0.08, 0.10, 0.14, 0.06),
                         "delta": (0.05, 0.02, 0.03, 0.04, 0.01)}),
    Exercise("7.2", "A Clopper-Pearson interval", check_clopper_pearson,
             lambda v: float(clopper_pearson(v.hits, v.samples, 0.95)[0]),
             lambda v: tuple(zip((w for w, _ in _clopper_pearson_mistakes(v)), ("point estimate", "Wald",
                                                                                "two-sided"), strict=True)),
             "easy", digits=3, kind="plug-in",
             parameters={"hits": (40, 25, 30, 35, 45, 50, 60), "samples": (1000, 800, 1200, 1500, 2000)}),
    Exercise("7.3", "A lower bound on epsilon from counts", check_bound_from_counts,
             lambda v: float(_bound(*_counts(v), 0.025)),
             lambda v: tuple(zip((w for w, _ in _bound_mistakes(v)), ("point estimate", "90 %", "upper end"),
                                 strict=True)),
             "medium", digits=3, kind="combine",
             parameters={"hits": _HITS}),
    Exercise("7.4", "How many samples catch a broken claim", check_samples_needed,
             lambda v: _samples_needed(v.true_epsilon),
             lambda v: tuple((n, word) for n, _, word in _samples_mistakes(v)),
             "medium", kind="combine", parameters={"true_epsilon": (2.0, 1.5, 2.25, 1.4, 1.8, 2.1, 1.9, 1.3)}),
    Exercise("7.5", "Break a broken claim with the auditor", check_break_the_claim, lambda v: _solution_audit,
             lambda v: ((lambda m: epsilon_lower_bound(m, 0.0, 1.0, event=ThresholdEvent(0, 0.0, above=False),
                                                       samples=100, confidence=0.999, claimed_epsilon=1.0, rng=0),
                         "samples"),
                        (lambda m: epsilon_lower_bound(m, 0.0, 1.0, samples=20_000, confidence=0.5,
                                                       claimed_epsilon=1.0, rng=0), "confidence"),
                        (lambda m: epsilon_lower_bound(m, 0.0, 3.0, event=ThresholdEvent(0, 0.0, above=False),
                                                       samples=20_000, confidence=0.999, claimed_epsilon=1.0, rng=0),
                         "neighbours")), "hard", kind="implement"),
)
