"""The Gaussian mechanism: its exact delta, its calibration, its sampler and its closed-form error.

The noise standard deviation is computed in one function, :func:`gaussian_sigma`
(analytic by default; the classic bound, or the ``ln(2/delta)`` form printed in
Miklau's tutorial slides and in Li et al.'s matrix mechanism paper, on request);
the variance and the half-width start from it.

References
----------
- [BW18] B. Balle, Y.-X. Wang. "Improving the Gaussian Mechanism for
  Differential Privacy: Analytical Calibration and Optimal Denoising."
  ICML 2018, Theorem 8.
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential
  Privacy." Foundations and Trends in TCS 9(3-4), 2014, Thm A.1.
- [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
  Linear Counting Queries Under Differential Privacy." PODS 2010 (the
  ``ln(2/delta)`` form, also on slide 38 of Miklau's tutorial).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant import float_at_least, float_at_most, lower_reading, upper_reading
from dpviz.mechanisms.discrete_gaussian_noise import discrete_gaussian_mechanism
from dpviz.mechanisms.release import SAMPLERS, Sampler, _answers_and_shape, _discrete_method
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_nonnegative,
    check_open_unit,
    check_positive,
)

__all__ = ["gaussian", "gaussian_sigma", "gaussian_variance", "gaussian_halfwidth", "gaussian_delta",
           "gaussian_epsilon", "GAUSSIAN_CALIBRATIONS"]

#: How sigma is calibrated: the exact analytic root of [BW18], the classic bound of [DR14], or the
#: ``sqrt(2 ln(2/delta))`` form of [LHRMM10] and Miklau's slides.
Calibration = Literal["analytic", "classic", "ln2delta"]
#: The calibration names every Gaussian function accepts.
GAUSSIAN_CALIBRATIONS = ("analytic", "classic", "ln2delta")


def gaussian_delta(sigma: float, l2_sensitivity: float, epsilon: float) -> float:
    """Exact delta of the Gaussian mechanism at ``epsilon`` ([BW18], Theorem 8).

    ``delta(eps) = Phi(D/(2s) - eps s/D) - e^eps Phi(-D/(2s) - eps s/D)`` with
    ``D`` the L2 sensitivity and ``s`` the noise standard deviation.

    Parameters
    ----------
    sigma : float
        Standard deviation of the noise, > 0.
    l2_sensitivity : float
        L2 sensitivity of the query vector, > 0.
    epsilon : float
        Privacy parameter at which delta is read, finite and >= 0.

    Returns
    -------
    float
        The smallest delta for which the release is (epsilon, delta)-DP.

    Raises
    ------
    ValueError
        If ``sigma`` or ``l2_sensitivity`` is not > 0 or ``epsilon`` < 0 (or any is NaN/inf).

    Examples
    --------
    >>> round(gaussian_delta(2.0, 1.0, 1.0), 6)
    0.00683
    """
    s = check_positive("sigma", sigma)
    d = check_positive("l2_sensitivity", l2_sensitivity)
    eps = check_nonnegative("epsilon", epsilon)
    return _delta(s, d, eps)


def _delta(s: float, d: float, eps: float) -> float:
    """:func:`gaussian_delta` on checked arguments (root finders call it many times)."""
    from scipy import special  # lazily: scipy.stats/optimize cost a kernel ~1 s
    a = d / (2.0 * s)
    c = eps * s / d
    # e^eps * Phi(-a - c), computed in log space so large epsilon does not overflow
    log_term = eps + special.log_ndtr(-a - c)
    return float(special.ndtr(a - c) - math.exp(log_term))


def gaussian_epsilon(sigma: float, l2_sensitivity: float, delta: float) -> float:
    """Exact epsilon at delta of the Gaussian mechanism with noise sigma: the root of :func:`gaussian_delta`.

    The inverse of :func:`gaussian_delta` in epsilon (delta decreases in epsilon), found by root finding.  For k
    releases with the same sigma, ``gaussian_epsilon(sigma / sqrt(k), ...)`` is their exact composition: the k
    answers together are one Gaussian mechanism with L2 sensitivity ``sqrt(k)`` times larger.

    Parameters
    ----------
    sigma : float
        Standard deviation of the noise, > 0.
    l2_sensitivity : float
        L2 sensitivity of the query vector, > 0.
    delta : float
        In (0, 1).

    Returns
    -------
    float
        The smallest epsilon >= 0 with ``gaussian_delta(sigma, l2_sensitivity, epsilon) <= delta``, rounded up
        by a relative 1e-9.

    Raises
    ------
    ValueError
        For an invalid parameter, or a sigma so small that epsilon would exceed 1e12.

    Examples
    --------
    >>> round(gaussian_epsilon(2.0, 1.0, gaussian_delta(2.0, 1.0, 1.0)), 6)
    1.0
    """
    from scipy import optimize  # lazily: scipy.stats/optimize cost a kernel ~1 s
    s = check_positive("sigma", sigma)
    d = check_positive("l2_sensitivity", l2_sensitivity)
    dlt = check_delta(delta)
    if _delta(s, d, 0.0) <= dlt:
        return 0.0
    hi = 1.0
    while _delta(s, d, hi) > dlt:
        hi *= 2.0
        if hi > 1e12:
            raise ValueError(f"sigma={s!r} is too small for l2_sensitivity={d!r}: the epsilon at delta={dlt!r} "
                             "exceeds 1e12; raise sigma")
    # round up by 1e-9 (brentq's tolerances and the float delta's own error are far smaller), then step up
    eps = float(optimize.brentq(lambda e: _delta(s, d, e) - dlt, 0.0, hi, xtol=1e-12, rtol=1e-12)) * (1 + 1e-9)
    while _delta(s, d, eps) > dlt:
        eps += max(1e-12, 1e-9 * eps)
    return eps


def gaussian_sigma(l2_sensitivity: float, epsilon: float, delta: float,
                   calibration: Calibration = "analytic") -> float:
    """Standard deviation of Gaussian noise that makes the release (epsilon, delta)-DP.

    ``calibration="analytic"`` (default) returns the smallest sigma with
    :func:`gaussian_delta` ``<= delta``, found by root finding; it is valid for
    every epsilon > 0 ([BW18], Theorem 8).  ``calibration="classic"`` returns
    ``sigma = sqrt(2 ln(1.25/delta)) * l2_sensitivity / epsilon``, which [DR14]
    (Thm A.1) proves only for epsilon < 1.  ``calibration="ln2delta"`` returns
    ``sigma = sqrt(2 ln(2/delta)) * l2_sensitivity / epsilon``, the form of
    [LHRMM10] and of slide 38 of Miklau's tutorial, a little larger than the
    classic one; dpviz accepts it for epsilon <= 1, where its exact delta
    (:func:`gaussian_delta`) is checked in the tests to stay below delta.

    Parameters
    ----------
    l2_sensitivity : float
        L2 sensitivity of the query vector, > 0.
    epsilon : float
        Privacy parameter, finite and > 0 (< 1 for "classic", <= 1 for "ln2delta").
    delta : float
        Privacy parameter, in (0, 1).
    calibration : {"analytic", "classic", "ln2delta"}
        Which calibration to use.

    Returns
    -------
    float
        The noise standard deviation sigma (the analytic root is rounded up by a relative 1e-9, then until the
        delta is met).

    Raises
    ------
    ValueError
        For an invalid parameter, an unknown ``calibration``, ``epsilon >= 1``
        with ``calibration="classic"`` or ``epsilon > 1`` with ``"ln2delta"``.

    Examples
    --------
    >>> round(gaussian_sigma(1.0, 0.5, 1e-5), 3)
    7.032
    >>> round(gaussian_sigma(1.0, 0.5, 1e-5, "classic"), 3)
    9.69
    >>> round(gaussian_sigma(1.0, 0.5, 1e-5, "ln2delta"), 3)
    9.882
    """
    d = check_positive("l2_sensitivity", l2_sensitivity)
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    check_choice("calibration", calibration, GAUSSIAN_CALIBRATIONS)
    if calibration == "ln2delta":
        if eps > 1:
            raise ValueError(
                f"epsilon must be <= 1 for the ln2delta Gaussian calibration, got {eps}; "
                "use calibration='analytic', which holds for every epsilon"
            )
        return _finite_sigma(math.sqrt(2.0 * math.log(2.0 / delta)) * d / eps, d, eps, delta)
    if calibration == "classic":
        if eps >= 1:
            raise ValueError(
                f"epsilon must be < 1 for the classic Gaussian calibration, got {eps}; "
                "use calibration='analytic', which holds for every epsilon"
            )
        return _finite_sigma(math.sqrt(2.0 * math.log(1.25 / delta)) * d / eps, d, eps, delta)

    def excess(log_s: float) -> float:  # delta(sigma) - delta, decreasing in sigma
        return gaussian_delta(math.exp(log_s), d, eps) - delta

    try:
        from scipy import optimize  # lazily: scipy.stats/optimize cost a kernel ~1 s
        lo, hi = math.log(d) - 10.0, math.log(d) + 10.0
        if math.exp(lo) == 0.0:  # sigma is proportional to d: near the smallest double it underflows to 0
            raise ValueError(f"l2_sensitivity={d!r} is too small: the Gaussian sigma (proportional to it) would "
                             "underflow to 0; use l2_sensitivity >= 1e-300")
        while excess(lo) < 0:
            lo -= 10.0
        while excess(hi) > 0:
            hi += 10.0
        log_s = optimize.brentq(excess, lo, hi, xtol=1e-13, rtol=1e-12)
        # round up by 1e-9: brentq's root may sit on either side by up to rtol * |log sigma|, and the float delta
        # below is itself off by 1e-11 or more (relative) near tiny deltas, while a relative 1e-9 on sigma lowers
        # delta by at least ten times that; then step up until the delta is met, at the smaller reading of
        # epsilon and the larger of the sensitivity (the ledger's charge covers both)
        sigma = math.exp(log_s) * (1 + 1e-9)
        eps_low = float_at_most(lower_reading("epsilon", epsilon))
        d_high = float_at_least(upper_reading("l2_sensitivity", l2_sensitivity))
        while math.isfinite(sigma) and gaussian_delta(sigma, d_high, eps_low) > delta:
            sigma *= 1 + 1e-12
    except OverflowError:
        sigma = math.inf
    return _finite_sigma(sigma, d, eps, delta)


def _finite_sigma(sigma: float, d: float, eps: float, delta: float) -> float:
    """``sigma``, refused (naming the parameters) if no float noise is that wide."""
    if not math.isfinite(sigma):
        raise ValueError(f"l2_sensitivity={d!r}, epsilon={eps!r}, delta={delta!r} need a Gaussian sigma beyond "
                         "floating point: raise epsilon or delta, or lower l2_sensitivity")
    return sigma


def gaussian(answers: ArrayLike, l2_sensitivity: float, epsilon: float, delta: float, *, rng: RngLike = None,
             size: int | None = None, calibration: Calibration = "analytic",
             sampler: Sampler = "float") -> np.ndarray:
    """Release ``answers + N(0, sigma^2)`` per entry with sigma from :func:`gaussian_sigma`.

    The Gaussian mechanism is (epsilon, delta)-DP for query vectors of L2
    sensitivity at most ``l2_sensitivity`` (neighbours: add or remove one
    record).  By default sigma is the exact analytic calibration of Balle & Wang
    ([BW18]); ``calibration="classic"`` uses
    ``sqrt(2 ln(1.25/delta)) * l2_sensitivity / epsilon`` ([DR14] Thm A.1, epsilon < 1 only).
    The default sampler adds floating-point normal noise, and Mironov (CCS 2012) showed for Laplace that
    which doubles such a release can output depends on the true answer; the (epsilon, delta) stated is that of
    the idealised real-valued mechanism (lecture 07, section 7), and for integer answers ``sampler="discrete"``
    or ``"exact"`` adds integer noise instead.

    Parameters
    ----------
    answers : array_like
        True answers (any shape, finite).
    l2_sensitivity : float
        L2 sensitivity, > 0.
    epsilon : float
        Privacy parameter, finite and > 0.
    delta : float
        Privacy parameter, in (0, 1).
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent releases stacked on a new first axis.
    calibration : {"analytic", "classic", "ln2delta"}
        How sigma is computed (see :func:`gaussian_sigma`).
    sampler : {"float", "discrete", "exact"}
        "float" (default): floating-point normal noise.  "discrete" / "exact":
        integer answers (granularity 1) plus discrete Gaussian noise
        ``N_Z(0, sigma^2)`` with sigma from the exact discrete calibration
        (:func:`dpviz.mechanisms.discrete_gaussian_sigma`; ``calibration`` must be
        "analytic"); "discrete" is vectorised, "exact" uses rational arithmetic.

    Returns
    -------
    numpy.ndarray
        Noisy answers (float64), of shape ``answers.shape`` or ``(size, *answers.shape)``.

    Raises
    ------
    ValueError
        For an invalid parameter, an unknown ``sampler`` or ``calibration``, or
        ``calibration="classic"`` with a discrete sampler.

    Examples
    --------
    >>> out = gaussian([0.0], 1.0, 1.0, 1e-5, rng=0, size=4)
    >>> out.shape
    (4, 1)
    """
    if check_choice("sampler", sampler, SAMPLERS) != "float":
        if calibration != "analytic":
            raise ValueError(f"calibration must be 'analytic' with sampler={sampler!r}, got {calibration!r}")
        return discrete_gaussian_mechanism(answers, l2_sensitivity, epsilon, delta, rng=rng, size=size,
                                           method=_discrete_method(sampler))
    sigma = gaussian_sigma(l2_sensitivity, epsilon, delta, calibration)
    checked, shape = _answers_and_shape(answers, size)
    return checked + as_generator(rng).normal(0.0, sigma, size=shape)


def gaussian_variance(l2_sensitivity: float, epsilon: float, delta: float,
                      calibration: Calibration = "analytic") -> float:
    """Variance of one Gaussian-mechanism answer, ``sigma^2``: also its mean squared error (no bias).

    Parameters
    ----------
    l2_sensitivity : float
        L2 sensitivity, > 0.
    epsilon : float
        Privacy parameter, finite and > 0.
    delta : float
        Privacy parameter, in (0, 1).
    calibration : {"analytic", "classic", "ln2delta"}
        How sigma is computed (see :func:`gaussian_sigma`).

    Returns
    -------
    float
        ``sigma^2``.

    Raises
    ------
    ValueError
        As :func:`gaussian_sigma`, or if ``sigma^2`` overflows (sigma above about 1.3e154).

    Examples
    --------
    >>> round(gaussian_variance(1.0, 0.5, 1e-5), 2)
    49.45
    """
    sigma = gaussian_sigma(l2_sensitivity, epsilon, delta, calibration)
    if sigma > 1e154:
        raise ValueError(f"l2_sensitivity={l2_sensitivity!r}, epsilon={epsilon!r}: sigma = {sigma:.3g} and its square "
                         "overflows (sigma must be <= 1e154); lower l2_sensitivity or raise epsilon")
    return sigma**2


def gaussian_halfwidth(l2_sensitivity: float, epsilon: float, delta: float, alpha: float = 0.05,
                       calibration: Calibration = "analytic") -> float:
    """Half-width ``sigma * z_{1 - alpha/2}`` of the central ``1 - alpha`` interval of the Gaussian noise.

    Parameters
    ----------
    l2_sensitivity : float
        L2 sensitivity, > 0.
    epsilon : float
        Privacy parameter, finite and > 0.
    delta : float
        Privacy parameter, in (0, 1).
    alpha : float, default 0.05
        Probability that the noise falls outside the interval, in (0, 1).
    calibration : {"analytic", "classic", "ln2delta"}
        How sigma is computed (see :func:`gaussian_sigma`).

    Returns
    -------
    float
        The half-width of the interval.

    Raises
    ------
    ValueError
        If ``alpha`` is outside (0, 1), or as :func:`gaussian_sigma`.

    Examples
    --------
    >>> round(gaussian_halfwidth(1.0, 0.5, 1e-5), 2)
    13.78
    """
    from scipy import special, stats  # lazily: scipy.stats/optimize cost a kernel ~1 s
    alpha = check_open_unit("alpha", alpha)
    # the upper alpha/2 quantile by the inverse survival function (1 - alpha/2 rounds to 1 for alpha < 1e-16),
    # from log(alpha/2) where alpha/2 would underflow (a subnormal alpha)
    if alpha >= 1e-300:
        z = float(stats.norm.isf(alpha / 2))
    else:
        z = -float(special.ndtri_exp(math.log(alpha) - math.log(2.0)))
    return gaussian_sigma(l2_sensitivity, epsilon, delta, calibration) * z
