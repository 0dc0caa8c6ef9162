"""The Laplace and Gaussian mechanisms, each with its closed-form error beside it.

A mechanism is a pure function of (true answers, parameters, ``rng``) that
returns noisy answers.  ``size=k`` draws k independent releases stacked on a
new first axis, so Monte Carlo experiments are one vectorised call.

References
----------
.. [DMNS06] C. Dwork, F. McSherry, K. Nissim, A. Smith. "Calibrating Noise to
   Sensitivity in Private Data Analysis." TCC 2006.
.. [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential
   Privacy." Foundations and Trends in TCS 9(3-4), 2014, Thm 3.6 and Thm A.1.
.. [BW18] B. Balle, Y.-X. Wang. "Improving the Gaussian Mechanism for
   Differential Privacy: Analytical Calibration and Optimal Denoising."
   ICML 2018, Theorem 8.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from scipy import optimize, special, stats

from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_nonnegative,
    check_open_unit,
    check_positive,
    check_trials,
)

__all__ = [
    "laplace",
    "laplace_scale",
    "standard_laplace",
    "laplace_variance",
    "laplace_halfwidth",
    "laplace_quantile",
    "epsilon_for_laplace_halfwidth",
    "gaussian",
    "gaussian_sigma",
    "gaussian_variance",
    "gaussian_halfwidth",
    "gaussian_delta",
    "expected_squared_error",
]

Calibration = Literal["analytic", "classic"]
Sampler = Literal["float", "discrete", "exact"]


def _answers_and_shape(answers, size):
    answers = check_array("answers", answers)
    size = check_trials(size)
    shape = answers.shape if size is None else (size, *answers.shape)
    return answers, shape


# --------------------------------------------------------------------------- Laplace
def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Scale ``b = sensitivity / epsilon`` of the Laplace mechanism [DMNS06]_.

    Raises
    ------
    ValueError
        If ``sensitivity`` < 0 or ``epsilon`` <= 0 (or either is NaN/inf), or if the
        scale overflows (e.g. ``epsilon = 1e-320``: the noise would be infinite).
    """
    b = check_nonnegative("sensitivity", sensitivity) / check_epsilon(epsilon)
    if not math.isfinite(b):
        raise ValueError(f"sensitivity / epsilon = {sensitivity} / {epsilon} overflows to {b}: "
                         "epsilon is too small for floating-point noise")
    return b


def standard_laplace(shape: int | tuple[int, ...], *, rng: RngLike = None) -> np.ndarray:
    """Standard Laplace draws (scale 1) as ``S * E``: ``E ~ Exp(1)`` times an independent fair sign ``S``.

    Same distribution as ``Generator.laplace(0, 1)``: the absolute value of a
    standard Laplace variable is Exp(1) and its sign is fair and independent of
    it.  About 3x faster than ``Generator.laplace`` (numpy's ziggurat
    exponential sampler plus one random bit per draw), which matters for the
    Monte Carlo runs of trees with millions of nodes.  Multiply by
    :func:`laplace_scale` to calibrate.

    Parameters
    ----------
    shape : int or tuple of int
        Shape of the returned array.
    rng : None, int or numpy.random.Generator
        Randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    numpy.ndarray
        Float array of the given shape.

    Raises
    ------
    ValueError
        If a dimension of ``shape`` is negative.

    Examples
    --------
    >>> z = standard_laplace((2, 3), rng=0)
    >>> z.shape
    (2, 3)
    """
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if any(int(d) < 0 for d in shape):
        raise ValueError(f"shape must have non-negative dimensions, got {shape}")
    gen = as_generator(rng)
    e = gen.standard_exponential(size=shape)
    bits = gen.integers(0, 256, size=(e.size + 7) // 8, dtype=np.uint8)
    sign = np.unpackbits(bits, count=e.size).reshape(shape) - 0.5  # +-0.5, fair and independent of e
    return np.copysign(e, sign, out=e)


def laplace(answers, sensitivity: float, epsilon: float, *, rng: RngLike = None,
            size: int | None = None, sampler: Sampler = "float") -> np.ndarray:
    """Release ``answers + Lap(sensitivity / epsilon)`` independently per entry.

    The Laplace mechanism [DMNS06]_ is epsilon-DP for any query vector whose L1
    sensitivity is at most ``sensitivity``.  The noise has density
    ``exp(-|z| / b) / (2b)`` with ``b = sensitivity / epsilon``, mean 0 and
    variance ``2 b^2`` (see :func:`laplace_variance`).

    Parameters
    ----------
    answers : array_like
        True query answers (any shape, finite).
    sensitivity : float
        L1 sensitivity of the whole answer vector, >= 0.
    epsilon : float
        Privacy parameter, finite and > 0.
    rng : None, int, SeedSequence or Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent releases; if given, the result has shape
        ``(size, *answers.shape)``.
    sampler : {"float", "discrete", "exact"}
        "float" (default): textbook floating-point Laplace noise, open to
        Mironov's attack on its low-order bits.  "discrete" / "exact": integer
        answers (granularity 1: rescale other grids first) plus discrete Laplace
        noise ``DLap(sensitivity/epsilon)``, which is exactly epsilon-DP; "discrete"
        is the vectorised sampler, "exact" the rational-arithmetic one of
        Canonne-Kamath-Steinke (see :mod:`dpviz.discrete`).  Non-integer
        answers raise ValueError.

    Returns
    -------
    numpy.ndarray
        Noisy answers (float64).

    Raises
    ------
    ValueError, TypeError
        For a bad ``epsilon``, ``sensitivity``, ``size`` or non-finite ``answers``.

    Examples
    --------
    >>> out = laplace([10.0, 20.0], sensitivity=1, epsilon=1.0, rng=0, size=3)
    >>> out.shape
    (3, 2)
    """
    if check_choice("sampler", sampler, ("float", "discrete", "exact")) != "float":
        from dpviz.discrete import discrete_laplace_mechanism

        return discrete_laplace_mechanism(answers, sensitivity, epsilon, rng=rng, size=size,
                                          method="fast" if sampler == "discrete" else "exact")
    b = laplace_scale(sensitivity, epsilon)
    answers, shape = _answers_and_shape(answers, size)
    return answers + as_generator(rng).laplace(0.0, b, size=shape) if b > 0 else np.broadcast_to(answers, shape).copy()


def laplace_variance(sensitivity: float, epsilon: float) -> float:
    """Variance (= mean squared error, the mechanism is unbiased) of one Laplace answer: ``2 (sensitivity/epsilon)^2``."""
    b = laplace_scale(sensitivity, epsilon)
    return 2.0 * b * b


def laplace_quantile(q, sensitivity: float, epsilon: float) -> np.ndarray:
    """Quantile function of Laplace noise of scale ``b``: ``-b sign(q - 1/2) ln(1 - 2|q - 1/2|)``.

    Used to draw the theoretical band (e.g. 5 % and 95 % quantiles) beside a simulated one.
    """
    b = laplace_scale(sensitivity, epsilon)
    q = check_array("q", q)
    if np.any((q <= 0) | (q >= 1)):
        raise ValueError("q must lie in (0, 1)")
    return stats.laplace.ppf(q, scale=b)


def laplace_halfwidth(sensitivity: float, epsilon: float, alpha: float = 0.05) -> float:
    """Half-width ``t`` with ``P(|Lap(b)| > t) = alpha``: ``t = b ln(1/alpha)`` ([DR14]_, Thm 3.8)."""
    alpha = check_open_unit("alpha", alpha)
    return laplace_scale(sensitivity, epsilon) * math.log(1.0 / alpha)


def epsilon_for_laplace_halfwidth(halfwidth: float, sensitivity: float, alpha: float = 0.05) -> float:
    """Accuracy first: the smallest epsilon whose Laplace noise stays within ``+-halfwidth`` with probability ``1 - alpha``.

    Inverts :func:`laplace_halfwidth`: ``epsilon = sensitivity * ln(1/alpha) / halfwidth``.
    """
    halfwidth = check_positive("halfwidth", halfwidth)
    sensitivity = check_positive("sensitivity", sensitivity)
    alpha = check_open_unit("alpha", alpha)
    return sensitivity * math.log(1.0 / alpha) / halfwidth


# --------------------------------------------------------------------------- Gaussian
def gaussian_delta(sigma: float, l2_sensitivity: float, epsilon: float) -> float:
    """Exact delta of the Gaussian mechanism at ``epsilon`` ([BW18]_, Theorem 8).

    ``delta(eps) = Phi(D/(2s) - eps s/D) - e^eps Phi(-D/(2s) - eps s/D)`` with
    ``D`` the L2 sensitivity and ``s`` the noise standard deviation.
    """
    s = check_positive("sigma", sigma)
    d = check_positive("l2_sensitivity", l2_sensitivity)
    eps = check_nonnegative("epsilon", epsilon)
    a = d / (2.0 * s)
    c = eps * s / d
    # e^eps * Phi(-a - c), computed in log space so large epsilon does not overflow
    log_term = eps + special.log_ndtr(-a - c)
    return float(special.ndtr(a - c) - math.exp(log_term))


def gaussian_sigma(l2_sensitivity: float, epsilon: float, delta: float,
                   calibration: Calibration = "analytic") -> float:
    """Standard deviation of Gaussian noise that makes the release (epsilon, delta)-DP.

    ``calibration="analytic"`` (default) returns the smallest sigma with
    :func:`gaussian_delta` ``<= delta``, found by root finding; it is valid for
    every epsilon > 0 ([BW18]_, Theorem 8).  ``calibration="classic"`` returns
    ``sigma = sqrt(2 ln(1.25/delta)) * l2_sensitivity / epsilon``, which [DR14]_
    (Thm A.1) proves only for epsilon < 1; asking for it with epsilon >= 1
    raises ``ValueError``.
    """
    d = check_positive("l2_sensitivity", l2_sensitivity)
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    check_choice("calibration", calibration, ("analytic", "classic"))
    if calibration == "classic":
        if eps >= 1:
            raise ValueError(
                f"epsilon must be < 1 for the classic Gaussian calibration, got {eps}; "
                "use calibration='analytic', which holds for every epsilon"
            )
        return math.sqrt(2.0 * math.log(1.25 / delta)) * d / eps
    f = lambda log_s: gaussian_delta(math.exp(log_s), d, eps) - delta  # noqa: E731 (decreasing in sigma)
    lo, hi = math.log(d) - 10.0, math.log(d) + 10.0
    while f(lo) < 0:
        lo -= 10.0
    while f(hi) > 0:
        hi += 10.0
    log_s = optimize.brentq(f, lo, hi, xtol=1e-13, rtol=1e-12)
    return math.exp(log_s) * (1 + 1e-12)  # round up so delta(sigma) <= delta


def gaussian(answers, l2_sensitivity: float, epsilon: float, delta: float, *, rng: RngLike = None,
             size: int | None = None, calibration: Calibration = "analytic",
             sampler: Sampler = "float") -> np.ndarray:
    """Release ``answers + N(0, sigma^2)`` per entry with sigma from :func:`gaussian_sigma`.

    The Gaussian mechanism is (epsilon, delta)-DP for query vectors of L2
    sensitivity at most ``l2_sensitivity``.  By default sigma is the exact
    analytic calibration of Balle & Wang ([BW18]_); ``calibration="classic"``
    uses ``sqrt(2 ln(1.25/delta)) * l2_sensitivity / epsilon`` ([DR14]_ Thm A.1,
    epsilon < 1 only).

    Parameters
    ----------
    answers : array_like
        True answers.
    l2_sensitivity : float
        L2 sensitivity, > 0.
    epsilon, delta : float
        Privacy parameters: epsilon > 0 finite, delta in (0, 1).
    rng, size
        As in :func:`laplace`.
    sampler : {"float", "discrete", "exact"}
        "float" (default): floating-point normal noise.  "discrete" / "exact":
        integer answers (granularity 1) plus discrete Gaussian noise
        ``N_Z(0, sigma^2)`` with sigma from the exact discrete calibration
        (:func:`dpviz.discrete.discrete_gaussian_sigma`; ``calibration`` must be
        "analytic"); "discrete" is vectorised, "exact" uses rational arithmetic.

    Examples
    --------
    >>> out = gaussian([0.0], 1.0, 1.0, 1e-5, rng=0, size=4)
    >>> out.shape
    (4, 1)
    """
    if check_choice("sampler", sampler, ("float", "discrete", "exact")) != "float":
        if calibration != "analytic":
            raise ValueError(f"calibration must be 'analytic' with sampler={sampler!r}, got {calibration!r}")
        from dpviz.discrete import discrete_gaussian_mechanism

        return discrete_gaussian_mechanism(answers, l2_sensitivity, epsilon, delta, rng=rng, size=size,
                                           method="fast" if sampler == "discrete" else "exact")
    sigma = gaussian_sigma(l2_sensitivity, epsilon, delta, calibration)
    answers, shape = _answers_and_shape(answers, size)
    return answers + as_generator(rng).normal(0.0, sigma, size=shape)


def gaussian_variance(l2_sensitivity: float, epsilon: float, delta: float,
                      calibration: Calibration = "analytic") -> float:
    """Variance (= MSE) of one Gaussian-mechanism answer: ``sigma^2``."""
    return gaussian_sigma(l2_sensitivity, epsilon, delta, calibration) ** 2


def gaussian_halfwidth(l2_sensitivity: float, epsilon: float, delta: float, alpha: float = 0.05,
                       calibration: Calibration = "analytic") -> float:
    """Half-width ``sigma * z_{1 - alpha/2}`` of the central ``1 - alpha`` interval of the Gaussian noise."""
    alpha = check_open_unit("alpha", alpha)
    return gaussian_sigma(l2_sensitivity, epsilon, delta, calibration) * float(stats.norm.ppf(1 - alpha / 2))


def expected_squared_error(n_queries: int, *, epsilon: float, sensitivity: float | None = None,
                           l2_sensitivity: float | None = None, delta: float | None = None,
                           per_query: bool = False) -> float | np.ndarray:
    """Expected squared error of the Laplace or Gaussian mechanism on ``n_queries`` answers.

    Laplace (give ``sensitivity``): each answer has error ``2 (sensitivity/epsilon)^2``;
    Gaussian (give ``l2_sensitivity`` and ``delta``): each has ``sigma^2``.
    The total is ``n_queries`` times that.  With ``per_query=True`` returns an array.
    """
    k = check_int("n_queries", n_queries, minimum=1)
    if (sensitivity is None) == (l2_sensitivity is None):
        raise ValueError("give exactly one of sensitivity (Laplace) or l2_sensitivity (Gaussian)")
    if sensitivity is not None:
        if delta is not None:
            raise ValueError(f"delta={delta} has no meaning for the Laplace mechanism (sensitivity given); "
                             "give l2_sensitivity for the Gaussian mechanism")
        v = laplace_variance(sensitivity, epsilon)
    else:
        if delta is None:
            raise ValueError("delta is required with l2_sensitivity (Gaussian mechanism)")
        v = gaussian_variance(l2_sensitivity, epsilon, delta)
    return np.full(k, v) if per_query else k * v
