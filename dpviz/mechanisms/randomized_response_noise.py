"""Randomized response: the first differentially private mechanism, its calibration and its closed-form error.

Each person answers a yes/no question (1 = yes) and reports the truth with probability
``p = e^eps / (1 + e^eps)``, the opposite answer otherwise [War65].  Whatever the person's answer, the two
possible reports have probabilities whose ratio is at most ``p / (1 - p) = e^eps``: the report is eps-DP for
that person's answer (the two inputs compared are one person's "yes" and "no"; each person randomises their
own answer, so the guarantee holds even against whoever collects the reports: *local* differential privacy).
The two-coin protocol of Dwork & Roth's Section 3.2 (answer truthfully on heads; on tails, flip again and
report that coin) has ``p = 3/4``, so ``eps = ln 3``; Warner's own device was a spinner that chose which of two
complementary questions to answer [War65].

The fraction of "yes" answers is estimated without bias from the reports by inverting the known flip
probability (:func:`randomized_response_estimate`, post-processing of the reports); its variance is in
:func:`randomized_response_variance`.

References
----------
- [War65] S. L. Warner. "Randomized Response: A Survey Technique for Eliminating Evasive Answer Bias."
  Journal of the American Statistical Association 60(309), 1965.
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends
  in TCS 9(3-4), 2014, Section 3.2.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_array,
    check_elements,
    check_epsilon,
    check_int,
    check_open_unit,
    check_trials,
)

__all__ = [
    "randomized_response",
    "randomized_response_probability",
    "randomized_response_epsilon",
    "randomized_response_pmf",
    "randomized_response_estimate",
    "randomized_response_variance",
]

#: Largest epsilon randomized response samples: above it the flip probability e^-eps / (1 + e^-eps) is below
#: 2^-53, the resolution of a uniform double, and the sampler would never flip (not eps-DP for any finite eps).
MAX_SAMPLED_EPSILON = 53 * math.log(2.0)


def randomized_response_probability(epsilon: float) -> float:
    """Probability ``e^eps / (1 + e^eps)`` that randomized response reports the true answer.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, finite and > 0.

    Returns
    -------
    float
        The probability of a truthful report, in (1/2, 1).

    Raises
    ------
    ValueError
        If ``epsilon`` is not finite and > 0.
    TypeError
        If ``epsilon`` is not a real number.

    Examples
    --------
    >>> round(randomized_response_probability(math.log(3)), 6)     # Dwork & Roth's two coins
    0.75
    """
    from scipy import special  # lazily: scipy.special costs a kernel ~0.2 s
    return float(special.expit(check_epsilon(epsilon)))


def randomized_response_epsilon(probability: float) -> float:
    """The epsilon of randomized response that reports the truth with ``probability``: ``|ln(p / (1 - p))|``.

    The two reports' probabilities are ``p`` and ``1 - p`` for one answer and swapped for the other, so the
    largest ratio between the two answers' output distributions is ``max(p, 1 - p) / min(p, 1 - p)``.  A
    probability below 1/2 (a mechanism that mostly lies) is as private as ``1 - p``; ``p = 1/2`` gives 0 (the
    report says nothing about the answer).

    Parameters
    ----------
    probability : float
        Probability of a truthful report, in (0, 1).

    Returns
    -------
    float
        The mechanism's epsilon (tight: some report attains the ratio).

    Raises
    ------
    ValueError
        If ``probability`` is outside (0, 1) (a certain report has no finite epsilon).
    TypeError
        If ``probability`` is not a real number.

    Examples
    --------
    >>> round(randomized_response_epsilon(0.75), 4)
    1.0986
    """
    p = check_open_unit("probability", probability)
    from scipy import special  # lazily: scipy.special costs a kernel ~0.2 s
    return abs(float(special.logit(p)))


def randomized_response_pmf(answer: int, epsilon: float) -> np.ndarray:
    """Output distribution of randomized response for one person's ``answer``: ``[P(report 0), P(report 1)]``.

    Parameters
    ----------
    answer : int
        The true answer, 0 (no) or 1 (yes).
    epsilon : float
        Privacy parameter, finite and > 0.

    Returns
    -------
    numpy.ndarray
        The two report probabilities (they sum to 1).

    Raises
    ------
    ValueError
        If ``answer`` is not 0 or 1, or ``epsilon`` is not finite and > 0.
    TypeError
        If ``answer`` is not an integer or ``epsilon`` not a real number.

    Examples
    --------
    >>> randomized_response_pmf(1, math.log(3))
    array([0.25, 0.75])
    """
    a = check_int("answer", answer, minimum=0, maximum=1)
    epsilon = check_epsilon(epsilon)
    from scipy import special  # lazily: scipy.special costs a kernel ~0.2 s
    truth, lie = float(special.expit(epsilon)), float(special.expit(-epsilon))
    return np.array([lie, truth]) if a == 1 else np.array([truth, lie])


def _answers(name: str, values: ArrayLike) -> np.ndarray:
    """One survey's 0/1 answers or reports (a scalar or a 1-d array) as an int array, refusing anything else."""
    arr = check_array(name, values, ndim=(0, 1), allow_bool=True)  # yes/no answers may be True/False
    if not np.all((arr == 0) | (arr == 1)):
        bad = arr[(arr != 0) & (arr != 1)].ravel()[0]
        raise ValueError(f"{name} must hold only 0 (no) and 1 (yes), got {bad!r}")
    return arr.astype(np.int64)


def randomized_response(answers: ArrayLike, epsilon: float, *, rng: RngLike = None,
                        size: int | None = None) -> np.ndarray:
    """Report each 0/1 answer truthfully with probability ``e^eps / (1 + e^eps)``, flipped otherwise [War65].

    Each report is eps-DP for its own person's answer (local differential privacy); the reports are
    independent.  The coin is a floating-point uniform compared with ``expit(-eps)``, so the flip probability
    is right to within about ``2**-53``, and a report is one bit: the low-order-bit leak of floating-point noise
    (Mironov, CCS 2012; lecture 07) has nothing to act on.

    Parameters
    ----------
    answers : array_like
        One answer (a scalar) or a survey's answers (1-d), each 0 (no) or 1 (yes).
    epsilon : float
        Privacy parameter, finite, > 0 and at most ``53 ln 2`` (about 36.7; above it the flip probability
        is below the resolution of a uniform double and the sampler would never flip).
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent runs of the survey; if given, the result has shape ``(size, *answers.shape)``.

    Returns
    -------
    numpy.ndarray
        The 0/1 reports (int64), of shape ``answers.shape`` or ``(size, *answers.shape)``.

    Raises
    ------
    ValueError
        If an answer is not 0 or 1, ``answers`` has more than one dimension, ``epsilon`` is out of range or
        ``size`` < 1.
    TypeError
        For arguments of the wrong type.

    Examples
    --------
    >>> randomized_response([1, 0, 1, 1], math.log(3), rng=0, size=2).shape
    (2, 4)
    """
    a = _answers("answers", answers)
    epsilon = check_epsilon(epsilon)
    if epsilon > MAX_SAMPLED_EPSILON:
        raise ValueError(f"epsilon={epsilon!r} is too large for sampled randomized response: the flip "
                         f"probability e^-epsilon / (1 + e^-epsilon) is below 2^-53; use epsilon <= "
                         f"{MAX_SAMPLED_EPSILON:.4g}")
    trials = check_trials(size)
    check_elements(float(trials or 1) * a.size, "reports", size=size, answers_size=a.size)
    shape = a.shape if trials is None else (trials, *a.shape)
    from scipy import special  # lazily: scipy.special costs a kernel ~0.2 s
    flip = as_generator(rng).random(shape) < special.expit(-epsilon)
    return np.where(flip, 1 - a, a)


def randomized_response_estimate(reports: ArrayLike, epsilon: float) -> float | np.ndarray:
    """Unbiased estimate of the fraction of "yes" answers from randomized-response reports.

    A report is 1 with probability ``r = f p + (1 - f)(1 - p)`` for a true fraction ``f`` of "yes" answers
    and truth probability ``p``, so ``(mean(reports) - (1 - p)) / (2p - 1)`` is unbiased for ``f``.  It uses
    the reports only: post-processing, no extra privacy cost.  It may fall outside [0, 1] (clipping it would
    be post-processing too, at the price of a bias).

    Parameters
    ----------
    reports : array_like
        0/1 reports, 1-d (one survey) or 2-d (one survey per row).
    epsilon : float
        The epsilon the reports were made with, finite and > 0.

    Returns
    -------
    float or numpy.ndarray
        The estimate (one per row for 2-d ``reports``).

    Raises
    ------
    ValueError
        If a report is not 0 or 1, ``reports`` is empty or not 1-d/2-d, or ``epsilon`` is out of range (or
        so small that the estimate overflows).
    TypeError
        For arguments of the wrong type.

    Examples
    --------
    >>> round(randomized_response_estimate([1, 1, 0, 1], math.log(3)), 4)    # (0.75 - 0.25) / 0.5
    1.0
    """
    r = check_array("reports", reports, ndim=(1, 2), allow_bool=True)
    if r.shape[-1] == 0:
        raise ValueError("reports must hold at least one report per survey, got an empty array")
    if not np.all((r == 0) | (r == 1)):
        raise ValueError("reports must hold only 0 and 1")
    epsilon = check_epsilon(epsilon)
    from scipy import special  # lazily: scipy.special costs a kernel ~0.2 s
    lie = special.expit(-epsilon)
    est = (r.mean(axis=-1) - lie) / np.tanh(epsilon / 2.0)        # 2p - 1 = tanh(eps / 2)
    if not np.all(np.isfinite(est)):
        raise ValueError(f"epsilon={epsilon!r} is too small: the estimate divides by 2p - 1 = tanh(epsilon / 2), "
                         "which underflows")
    return float(est) if est.ndim == 0 else est


def randomized_response_variance(n: int, epsilon: float) -> float:
    """Variance of :func:`randomized_response_estimate` for a survey of ``n`` people: ``e^eps / (n (e^eps - 1)^2)``.

    The answers are those of the dataset (fixed); only the flips are random.  Each report has variance
    ``p(1 - p)`` whatever the answer, so the estimate ``(mean - (1 - p)) / (2p - 1)`` has variance
    ``p(1 - p) / (n (2p - 1)^2) = e^eps / (n (e^eps - 1)^2)``, the same for every fraction of "yes"
    answers: the price of the privacy, which grows like ``1 / (n eps^2)`` as eps -> 0.  (Warner's survey
    variance adds ``f(1 - f) / n`` for people drawn at random from a population with a fraction ``f`` of
    "yes" answers [War65].)

    Parameters
    ----------
    n : int
        Number of people surveyed, >= 1.
    epsilon : float
        Privacy parameter, finite and > 0.

    Returns
    -------
    float
        The variance (also the mean squared error: the estimate is unbiased).

    Raises
    ------
    ValueError
        If a parameter is out of range, or the variance overflows (epsilon far too small).
    TypeError
        For arguments of the wrong type.

    Examples
    --------
    >>> round(randomized_response_variance(1000, math.log(3)), 8)     # 3 / (1000 * 2^2)
    0.00075
    """
    n = check_int("n", n, minimum=1)
    epsilon = check_epsilon(epsilon)
    from scipy import special  # lazily: scipy.special costs a kernel ~0.2 s
    truth, lie = float(special.expit(epsilon)), float(special.expit(-epsilon))
    squared_gap = n * math.tanh(epsilon / 2.0) ** 2            # n (2p - 1)^2
    v = truth * lie / squared_gap if squared_gap > 0 else math.inf
    if not math.isfinite(v):
        raise ValueError(f"epsilon={epsilon!r} is too small: the variance of the estimate overflows")
    return v
