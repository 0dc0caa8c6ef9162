"""Exercises of lecture 01 (sensitivity and the Laplace mechanism).

Neighbours are add/remove-one-record, as in every lecture.  Each ``check_*`` computes its expected answer with
dpviz and returns a :class:`~dpviz.exercises.Feedback`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpviz import mechanisms
from dpviz.exercises.checks import check_function, check_number, check_private
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.registry import Exercise
from dpviz.exercises.variants import Values, start, values

__all__ = ["start", "values", "check_count_sensitivity", "check_prefix_sensitivity", "check_sum_scale",
           "check_accuracy_first", "check_laplace_variance", "check_half_epsilon_mechanism", "band_goal", "EXERCISES"]


def check_count_sensitivity(answer: Any) -> Feedback:
    """Exercise 1.1: the L1 sensitivity of "how many people are aged 85 or over?".

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
    >>> bool(check_count_sensitivity(1))
    True
    """
    return check_number(
        "1.1 Sensitivity of a count", answer, mechanisms.l1(np.ones((1, 1))),
        explain="adding or removing one person changes a count by at most 1.",
        hint="Compare the count on a dataset and on the same dataset with one more person.",
        mistakes=[(2.0, "2 is the sensitivity under replace-one neighbours (one person's record swapped for "
                        "another's moves two cells); the lectures use add/remove-one."),
                  (0.0, "A count does change when a person is added: by how much at most?")])


def check_prefix_sensitivity(answer: Any) -> Feedback:
    """Exercise 1.2: the L1 sensitivity of the d prefix sums and the d suffix sums of a d-cell histogram, together.

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
    >>> bool(check_prefix_sensitivity(9))
    True
    """
    v = values("1.2")
    d = v.cells
    prefix = np.tril(np.ones((d, d)))
    W = np.vstack([prefix, prefix[::-1, ::-1]])
    return check_number(
        "1.2 Sensitivity of prefix and suffix sums", answer, mechanisms.l1(W),
        explain=f"a person in cell i is counted by the {d} - i + 1 prefix sums that reach it and by the i suffix "
                f"sums that start at or before it: {d} + 1 answers, whichever cell (every column sums to {d + 1}).",
        hint=f"Stack the {d} x {d} prefix matrix on the suffix matrix; one person adds one column of it to the "
             "answers. Add up a column: does it depend on the cell?",
        mistakes=_prefix_mistakes(v))


def _prefix_mistakes(v: Values) -> list[tuple[float, str]]:
    d = v.cells
    return [(float(d), f"{d} is the sensitivity of the prefix sums alone; the suffix sums count the person too."),
            (2.0 * d, f"No cell is counted by all {d} prefix sums and all {d} suffix sums: add up one column."),
            (float(np.sqrt(d + 1)), f"sqrt({d + 1}) is the L2 sensitivity; the Laplace mechanism needs the L1 norm."),
            (float(d * (d + 1)), f"{d * (d + 1)} is the number of ones in the matrix, not its largest column sum.")]


def check_sum_scale(answer: Any) -> Feedback:
    """Exercise 1.3: the Laplace scale for a sum of ages clipped to [0, U], epsilon-DP (U, epsilon from your variant).

    Parameters
    ----------
    answer : float
        The student's noise scale b.

    Returns
    -------
    Feedback
        The verdict.

    Examples
    --------
    >>> bool(check_sum_scale(200))
    True
    """
    v = values("1.3")
    return check_number(
        "1.3 Noise for a clipped sum", answer, mechanisms.laplace_scale(float(v.upper), v.epsilon),
        explain=f"one person adds at most {v.upper} (their clipped age), so b = {v.upper} / {v.epsilon:g}.",
        hint="First find how much one added or removed person can change the clipped sum, then divide by epsilon.",
        mistakes=_scale_mistakes(v))


def _scale_mistakes(v: Values) -> list[tuple[float, str]]:
    return [(float(v.upper), f"{v.upper} is the sensitivity; the scale divides it by epsilon."),
            (v.upper * v.epsilon, "The scale is sensitivity / epsilon, not sensitivity x epsilon."),
            (1 / v.epsilon, f"The sensitivity of a sum of ages is not 1: one person can add up to {v.upper}.")]


def check_accuracy_first(answer: Any) -> Feedback:
    """Exercise 1.4: the epsilon at which 95 % of noisy counts fall within +-t of the truth (t from your variant).

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
    >>> bool(check_accuracy_first(np.log(20) / 10))
    True
    """
    v = values("1.4")
    t = float(v.halfwidth)
    expected = mechanisms.epsilon_for_laplace_halfwidth(t, sensitivity=1.0, alpha=0.05)
    return check_number(
        "1.4 Accuracy first", answer, expected,
        explain=f"P(|Lap(b)| > {t:g}) = exp(-{t:g} / b) = 0.05 gives b = {t:g} / ln 20, so epsilon = ln(20) / {t:g}.",
        hint=f"Use P(|Lap(b)| > t) = exp(-t / b), set it to 0.05 with t = {t:g}, solve for b, then epsilon = 1 / b.",
        mistakes=_accuracy_mistakes(v), digits=3)


def _accuracy_mistakes(v: Values) -> list[tuple[float, str]]:
    t = float(v.halfwidth)
    return [(float(np.log(10) / t), f"ln(10) / {t:g} puts 90 % within +-{t:g}, not 95 %."),
            (float(np.log(20)), f"That is epsilon for a half-width of 1; the target is +-{t:g}."),
            (0.05 * t, "The tail of the Laplace distribution is exponential, not linear.")]


def _laplace_variance(sensitivity: float, epsilon: float) -> float:
    return mechanisms.laplace_variance(sensitivity, epsilon)


def check_laplace_variance(fn: Any) -> Feedback:
    """Exercise 1.5: a function ``variance(sensitivity, epsilon)`` of the Laplace mechanism's noise.

    Parameters
    ----------
    fn : callable
        The student's function.

    Returns
    -------
    Feedback
        The verdict, from 20 seeded random (sensitivity, epsilon) pairs.

    Examples
    --------
    >>> bool(check_laplace_variance(lambda s, e: 2 * (s / e) ** 2))
    True
    """
    gen = np.random.default_rng(101)
    cases = [(float(s), float(e)) for s, e in zip(gen.uniform(0.1, 10, 20), gen.uniform(0.01, 5, 20), strict=True)]
    return check_function(
        "1.5 The variance of Laplace noise", fn, _laplace_variance, cases,
        explain="Lap(b) has variance 2 b^2 with b = sensitivity / epsilon.",
        hint="The variance of Lap(b) is 2 b^2, not b^2, and b = sensitivity / epsilon.")


def _half_epsilon_solution(x: Any, rng: np.random.Generator, size: int) -> np.ndarray:
    return mechanisms.laplace(np.full(size, float(x)), sensitivity=1.0, epsilon=0.5, rng=rng)


def _useful_count(mechanism: Any) -> str | None:
    """None if the mechanism answers a count of 50 unbiasedly with at most 4x the optimal Laplace variance."""
    out = np.asarray(mechanism(50.0, rng=np.random.default_rng(5), size=20_000), dtype=float)
    optimal = mechanisms.laplace_variance(1.0, 0.5)
    if abs(out.mean() - 50.0) > 5 * np.sqrt(4 * optimal / out.size):
        return f"its answers to a count of 50 average {out.mean():.2f}: they should be the count plus zero-mean noise."
    if out.var() > 4 * optimal:
        return f"its variance {out.var():.1f} is over 4x that of Lap(1/0.5) noise ({optimal:.1f}): too much noise."
    return None


def check_half_epsilon_mechanism(mechanism: Any) -> Feedback:
    """Exercise 1.6: write ``mechanism(count, rng, size)``, a 0.5-DP release of a count; the auditor checks it.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(count, rng=Generator, size=k)`` returning k noisy answers.

    Returns
    -------
    Feedback
        The verdict of the empirical auditor on three pairs of neighbouring counts, and a usefulness check.

    Examples
    --------
    >>> bool(check_half_epsilon_mechanism(lambda x, rng, size: x + rng.laplace(scale=2.0, size=size)))
    True
    """
    fb = check_private(
        "1.6 A 0.5-DP count, audited", mechanism, 0.5, [(0.0, 1.0), (10.0, 9.0), (3.0, 4.0)],
        useful=_useful_count,
        explain="Laplace noise of scale sensitivity / epsilon = 1 / 0.5 = 2 gives exactly 0.5-DP.",
        hint="Add Laplace noise of scale sensitivity / epsilon (rng.laplace(scale=..., size=size)). A smaller scale "
             "leaks; a much larger one is private but useless.")
    if fb.passed and _looks_gaussian(mechanism):
        return Feedback(fb.exercise, False, "your noise looks Gaussian: the auditor's samples cannot see its "
                        "failure, but no Gaussian noise is epsilon-DP for any epsilon.",
                        "Gaussian noise gives (epsilon, delta)-DP with delta > 0 (its privacy loss is unbounded in "
                        "the tails, lecture 02). For pure epsilon-DP add Laplace noise of scale sensitivity / "
                        "epsilon.")
    return fb


#: Below this normality-test p-value the noise is not Gaussian.  Laplace noise (excess kurtosis 3) gives
#: p < 1e-300 on 20,000 draws; so does any sum of Laplace noise with uniform or Laplace noise whose variance
#: stays within the 4x the usefulness check allows (excess kurtosis below -0.45 or above 0.7, >= 12 standard
#: errors of 0.035 from 0); Gaussian noise gives a p-value uniform on [0, 1], flagged with probability 1 - 1e-6.
GAUSSIAN_P = 1e-6


def _looks_gaussian(mechanism: Any) -> bool:
    """Whether 20,000 answers to a count of 50 pass D'Agostino and Pearson's normality test at ``GAUSSIAN_P``."""
    from scipy import stats

    try:
        out = np.asarray(mechanism(50.0, rng=np.random.default_rng(6), size=20_000), dtype=float)
    except Exception:  # noqa: BLE001 - the same call passed the usefulness check; a flaky mechanism is not Gaussian
        return False
    return bool(stats.normaltest(out).pvalue > GAUSSIAN_P)


def band_goal(halfwidth: float = 5.0, tolerance: float = 0.05) -> tuple[str, Any]:
    """A goal for the LaplaceExplorer: reach the epsilon at which 90 % of the noisy counts fall within +-halfwidth.

    Parameters
    ----------
    halfwidth : float, default 5.0
        The target half-width of the 5-95 % band.
    tolerance : float, default 0.05
        Relative tolerance on the band's half-width.

    Returns
    -------
    tuple of (str, callable)
        The goal's text and its test ``test(result, values)`` for :meth:`dpviz.widgets.Explorer.add_goal`.

    Examples
    --------
    >>> text, test = band_goal(5.0)
    >>> class R:
    ...     epsilon, sensitivity = np.log(10) / 5, 1.0
    >>> test(R(), {})
    'epsilon = 0.461: the 90 % band is +-5.00'
    """
    def test(result: Any, values: dict[str, Any]) -> str | None:
        half = mechanisms.laplace_halfwidth(result.sensitivity, result.epsilon, alpha=0.1)
        if abs(half - halfwidth) <= tolerance * halfwidth:
            return f"epsilon = {result.epsilon:.3g}: the 90 % band is +-{half:.2f}"
        return None

    return f"find the epsilon at which 90 % of the noisy counts fall within +-{halfwidth:g} of the truth", test


EXERCISES = (
    Exercise("1.1", "Sensitivity of a count", check_count_sensitivity, lambda v: 1.0,
             lambda v: ((2.0, "replace-one"), (0.0, "change")), "easy", kind="derive"),
    Exercise("1.2", "Sensitivity of prefix and suffix sums", check_prefix_sensitivity, lambda v: v.cells + 1.0,
             lambda v: tuple(zip((w for w, _ in _prefix_mistakes(v)), ("alone", "add up", "L2", "largest column"),
                                 strict=True)), "medium", kind="combine",
             parameters={"cells": (8, 5, 6, 7, 9, 10, 12, 16)}),
    Exercise("1.3", "Noise for a clipped sum", check_sum_scale, lambda v: v.upper / v.epsilon,
             lambda v: tuple(zip((w for w, _ in _scale_mistakes(v)), ("divides", "not sensitivity x epsilon",
                                                                       f"up to {v.upper}"), strict=True)),
             "medium", kind="combine",
             parameters={"upper": (100, 80, 90, 110, 120, 150), "epsilon": (0.5, 0.25, 0.4, 0.8, 2.0)}),
    Exercise("1.4", "Accuracy first", check_accuracy_first, lambda v: float(np.log(20) / v.halfwidth),
             lambda v: tuple(zip((w for w, _ in _accuracy_mistakes(v)[:2]), ("90 %", "half-width of 1"),
                                 strict=True)), "medium", digits=3, kind="derive",
             parameters={"halfwidth": (10, 4, 5, 8, 12, 15, 20, 25)}),
    Exercise("1.5", "The variance of Laplace noise", check_laplace_variance, lambda v: lambda s, e: 2 * (s / e) ** 2,
             lambda v: ((lambda s, e: (s / e) ** 2, "2 b^2"), (lambda s, e: 2 * (s * e) ** 2, "sensitivity / epsilon")),
             "medium", kind="plug-in"),
    Exercise("1.6", "A 0.5-DP count, audited", check_half_epsilon_mechanism, lambda v: _half_epsilon_solution,
             lambda v: ((lambda x, rng, size: x + rng.laplace(scale=1.0, size=size), "leaks"),
                        (lambda x, rng, size: np.full(size, 0.0), "useless")), "hard", kind="implement"),
)
