"""The hypothesis-testing reading of epsilon: how well can anyone tell D from D' by looking at the output?

An adversary tests "the data is D" against "the data is D'" from one output.  Any test that wrongly says D
with probability alpha on D' (false positives) says D with probability at most ``e^eps alpha + delta`` on D
(its power), and at most ``1 - e^-eps (1 - alpha - delta)``; so no test's advantage, power minus false-positive
rate, exceeds ``(e^eps - 1 + 2 delta) / (e^eps + 1)`` (for delta = 0: ``tanh(eps / 2)``) [WZ10, KOV15].  The best
advantage of a given mechanism is the total variation distance between its two output distributions:
randomized response attains ``tanh(eps / 2)``; the Laplace mechanism stays below it (``1 - e^{-eps/2}``).

References
----------
- [WZ10] L. Wasserman, S. Zhou. "A Statistical Framework for Differential Privacy." Journal of the American
  Statistical Association 105(489), 2010.
- [KOV15] P. Kairouz, S. Oh, P. Viswanath. "The Composition Theorem for Differential Privacy." ICML 2015,
  Theorem 2.1.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from dpviz.mechanisms import laplace_scale
from dpviz.validation import check_array, check_delta, check_epsilon, check_nonnegative, check_positive

__all__ = ["power_bound", "advantage_bound", "total_variation", "laplace_total_variation",
           "gaussian_total_variation"]


def power_bound(false_positive_rate: ArrayLike, epsilon: float, delta: float = 0.0) -> np.ndarray:
    """The largest power of any test of D against D' at a given false-positive rate, for an (eps, delta)-DP output.

    ``min(e^eps alpha + delta, 1 - e^-eps (1 - alpha - delta), 1)``, and at least alpha (a coin flip achieves
    alpha).

    Parameters
    ----------
    false_positive_rate : array_like
        The test's probability alpha of saying "D" when the data is D', each in [0, 1].
    epsilon : float
        Privacy parameter, finite and > 0.
    delta : float, default 0.0
        In [0, 1).

    Returns
    -------
    numpy.ndarray
        The largest achievable probability of saying "D" when the data is D, same shape as the rates.

    Raises
    ------
    ValueError
        If a rate is outside [0, 1] or a privacy parameter is out of range.
    TypeError
        If an argument does not hold numbers.

    Examples
    --------
    >>> power_bound([0.01, 0.05], 1.0).round(4)
    array([0.0272, 0.1359])
    """
    alpha = check_array("false_positive_rate", false_positive_rate)
    if alpha.size == 0 or np.any((alpha < 0) | (alpha > 1)):
        raise ValueError("false_positive_rate must be a non-empty array of probabilities in [0, 1]")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=True)
    with np.errstate(divide="ignore", over="ignore"):
        first = np.exp(epsilon + np.log(alpha)) + delta         # e^eps alpha + delta, without overflowing at 0 x inf
    second = 1.0 - math.exp(-epsilon) * (1.0 - alpha - delta)
    return np.clip(np.minimum(first, second), alpha, 1.0)


def advantage_bound(epsilon: float, delta: float = 0.0) -> float:
    """The largest advantage (power minus false-positive rate) of any test of D against D'.

    ``(e^eps - 1 + 2 delta) / (e^eps + 1)``, i.e. ``tanh(eps / 2)`` for pure DP: the largest total variation
    distance between the output distributions of an (eps, delta)-DP mechanism on neighbours [KOV15].

    Parameters
    ----------
    epsilon : float
        Privacy parameter, finite and > 0.
    delta : float, default 0.0
        In [0, 1).

    Returns
    -------
    float
        The bound, in [0, 1].

    Raises
    ------
    ValueError
        If a privacy parameter is out of range.
    TypeError
        If an argument is not a real number.

    Examples
    --------
    >>> round(advantage_bound(math.log(3)), 4)      # randomized response at eps = ln 3 attains it: 3/4 - 1/4
    0.5
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=True)
    return min(1.0, math.tanh(epsilon / 2.0) + 2.0 * delta * float(special.expit(-epsilon)))   # 2 delta / (e^eps + 1)


def total_variation(pmf: ArrayLike, pmf_prime: ArrayLike) -> float:
    """Total variation distance ``sum |p - p'| / 2`` of two discrete distributions: the best test's advantage.

    Parameters
    ----------
    pmf, pmf_prime : array_like
        Probabilities over the same outputs (same shape), finite and >= 0, each summing to 1 (within 1e-9).

    Returns
    -------
    float
        The distance, in [0, 1].

    Raises
    ------
    ValueError
        If an argument is empty, negative, non-finite or does not sum to 1, or the shapes differ.
    TypeError
        If an argument does not hold numbers.

    Examples
    --------
    >>> total_variation([0.75, 0.25], [0.25, 0.75])
    0.5
    """
    p, q = check_array("pmf", pmf), check_array("pmf_prime", pmf_prime)
    if p.shape != q.shape:
        raise ValueError(f"pmf and pmf_prime must have the same shape, got {p.shape} and {q.shape}")
    for name, arr in (("pmf", p), ("pmf_prime", q)):
        if arr.size == 0 or np.any(arr < 0) or abs(float(arr.sum()) - 1.0) > 1e-9:
            raise ValueError(f"{name} must be a non-empty probability distribution (>= 0, summing to 1)")
    return float(0.5 * np.abs(p - q).sum())


def laplace_total_variation(shift: float, sensitivity: float, epsilon: float) -> float:
    """Total variation between ``a + Lap(b)`` and ``a + shift + Lap(b)``: ``1 - exp(-|shift| / (2b))``.

    ``b`` = :func:`dpviz.mechanisms.laplace_scale` ``(sensitivity, epsilon)``; for neighbours (``shift`` =
    ``sensitivity``) this is ``1 - e^{-eps/2}``, below the ``tanh(eps / 2)`` every eps-DP mechanism respects.

    Parameters
    ----------
    shift : float
        The distance between the two true answers, finite and >= 0.
    sensitivity : float
        L1 sensitivity the noise is calibrated to, finite and > 0.
    epsilon : float
        Privacy parameter, finite and > 0.

    Returns
    -------
    float
        The distance, in [0, 1).

    Raises
    ------
    ValueError
        If a parameter is out of range.
    TypeError
        If an argument is not a real number.

    Examples
    --------
    >>> round(laplace_total_variation(1.0, 1.0, 1.0), 4)        # 1 - e^-0.5
    0.3935
    """
    d = check_nonnegative("shift", shift)
    b = laplace_scale(check_positive("sensitivity", sensitivity), epsilon)
    return float(-np.expm1(-d / (2.0 * b)))


def gaussian_total_variation(shift: float, sigma: float) -> float:
    """Total variation between ``a + N(0, sigma^2)`` and ``a + shift + N(0, sigma^2)``: ``2 Phi(shift / 2 sigma) - 1``.

    Parameters
    ----------
    shift : float
        The distance between the two true answers, finite and >= 0.
    sigma : float
        Standard deviation of the noise, finite and > 0.

    Returns
    -------
    float
        The distance, in [0, 1].

    Raises
    ------
    ValueError
        If a parameter is out of range.
    TypeError
        If an argument is not a real number.

    Examples
    --------
    >>> round(gaussian_total_variation(1.0, 1.0), 4)
    0.3829
    """
    d = check_nonnegative("shift", shift)
    s = check_positive("sigma", sigma)
    return float(2.0 * stats.norm.cdf(d / (2.0 * s)) - 1.0)
