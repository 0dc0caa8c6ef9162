"""The confidence bounds lecture 07's exercises 7.3 and 7.4 compute: ``ln(p_lo / p'_hi)`` from one-sided
Clopper-Pearson bounds, the samples an audit needs, and a checker that accepts every valid construction.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from dpviz.audit import clopper_pearson
from dpviz.exercises.checks import check_number, real_array, unanswered
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.precision import within

__all__: list[str] = []     # helpers of dpviz.exercises.lecture07, which imports them

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


@functools.lru_cache(maxsize=32)
def _samples_needed(true_epsilon: float, alpha_each: float = 0.025, stable: bool = True,
                   use_estimate: bool = False) -> int:
    """Smallest n (up to 10,000) from which the bound exceeds 1 when the counts equal their rounded expectations.

    The mechanism adds Laplace noise of scale ``1 / true_epsilon`` to a count; the event ``output <= 0`` on the
    neighbours 0 and 1 has ``p = 1/2`` and ``p' = e^-true_epsilon / 2``.  ``alpha_each`` is the failure
    probability of each one-sided Clopper-Pearson bound (0.025: the bound of exercise 7.3; 0.0125: the lower end
    of ``privacy_loss_interval`` at 95 %); ``stable`` asks that the bound stay above 1 up to 10,000.
    """
    n = np.arange(1, 10_001)
    p, p_prime = 0.5, 0.5 * math.exp(-true_epsilon)     # P(Lap <= 0) and P(1 + Lap <= 0)
    k, k_prime = np.floor(n * p + 0.5), np.floor(n * p_prime + 0.5)
    with np.errstate(divide="ignore"):
        value = np.log(k / n) - np.log(k_prime / n) if use_estimate else _bound(k, n, k_prime, n, alpha_each)
    above = value > 1.0
    if not stable:
        return int(n[np.argmax(above)])
    return int(n[np.flatnonzero(~above).max() + 1]) if not above.all() else 1
