"""The Laplace mechanism: its calibration, its samplers and its closed-form error, side by side.

The noise scale ``b = sensitivity / epsilon`` is computed in one function,
:func:`laplace_scale`; every other Laplace quantity of dpviz (variance,
quantile, half-width, the fast sampler) starts from it.

References
----------
- [DMNS06] C. Dwork, F. McSherry, K. Nissim, A. Smith. "Calibrating Noise to
  Sensitivity in Private Data Analysis." TCC 2006.
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential
  Privacy." Foundations and Trends in TCS 9(3-4), 2014, Thm 3.6 and Thm 3.8.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import overload

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant import lower_reading, upper_reading
from dpviz.mechanisms.release import SAMPLERS, Sampler, _answers_and_shape, _discrete_method, _scale_at_least
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_array,
    check_choice,
    check_epsilon,
    check_nonnegative,
    check_open_unit,
    check_positive,
    check_shape,
)

__all__ = [
    "laplace",
    "laplace_scale",
    "standard_laplace",
    "scaled_laplace",
    "laplace_variance",
    "laplace_halfwidth",
    "laplace_quantile",
    "epsilon_for_laplace_halfwidth",
]


def laplace_scale(sensitivity: float | Fraction, epsilon: float | Fraction, *, name: str = "epsilon") -> float:
    """Scale ``b = sensitivity / epsilon`` of the Laplace mechanism [DMNS06], rounded up.

    ``b`` is the smallest double with ``sensitivity / b <= epsilon`` for both exact readings of each float
    (:func:`dpviz.accountant.lower_reading`): the shortest decimal the accountant records and the binary value.
    So the noise never spends more than the ledger charges; ``b`` is ``sensitivity / epsilon`` correctly
    rounded, or one of the next few doubles.

    Parameters
    ----------
    sensitivity : float or fractions.Fraction
        L1 sensitivity of the query, finite and >= 0 (0 gives no noise; a Fraction is used exactly).
    epsilon : float or fractions.Fraction
        Privacy parameter, finite and > 0 (a Fraction, e.g. an exact budget share, is used exactly).
    name : str, default "epsilon"
        The caller's name for ``epsilon`` (e.g. ``"epsilon_threshold"``), used in error messages.

    Returns
    -------
    float
        The scale ``b`` of the Laplace noise ``Lap(b)``, with density
        ``exp(-|z| / b) / (2 b)``.

    Raises
    ------
    ValueError
        If ``sensitivity`` < 0 or ``epsilon`` <= 0 (or either is NaN/inf), or if the
        scale overflows (e.g. ``epsilon = 1e-320``: the noise would be infinite).
    TypeError
        If either argument is not a real number.

    Examples
    --------
    >>> laplace_scale(2.0, 0.5)
    4.0
    >>> laplace_scale(1.0, 0.3)       # 1 / 0.3 rounds to 3.3333333333333335, above 10/3: kept
    3.3333333333333335
    >>> laplace_scale(1.0, 0.7)       # 1 / 0.7 rounds below 1 / 0.69999999999999995559 (0.7 in binary): next double
    1.4285714285714288
    """
    b = check_nonnegative("sensitivity", sensitivity) / check_epsilon(epsilon, name)
    if not math.isfinite(b):
        raise ValueError(f"{name}={epsilon!r} is too small: the Laplace scale sensitivity / {name} = "
                         f"{sensitivity} / {epsilon} overflows to {b} (no floating-point noise is that wide)")
    if b > MAX_LAPLACE_SCALE:
        raise ValueError(f"sensitivity={sensitivity!r}, {name}={epsilon!r}: the Laplace scale sensitivity / {name} = "
                         f"{b:.3g} is above {MAX_LAPLACE_SCALE:.0e}; noise draws reach about 45 scales and 745 in a "
                         f"quantile, which would overflow to inf: lower sensitivity or raise {name}")
    if b > 0:
        b = _scale_at_least(upper_reading("sensitivity", sensitivity), lower_reading(name, epsilon), b)
        if not math.isfinite(b):
            raise ValueError(f"{name}={epsilon!r} is too small: the Laplace scale sensitivity / {name} = "
                             f"{sensitivity} / {epsilon} rounds up past the largest double")
    return b


#: Largest Laplace scale: numpy's exponential draws stay below about 45 and a quantile's ``ln(1/alpha)`` below 745
#: (alpha >= 5e-324), so noise, half-widths and quantiles of scale 1e305 stay below the largest double, 1.8e308.
MAX_LAPLACE_SCALE = 1e305


def _log_inverse(p: float) -> float:
    """``ln(1/p)``, also for a subnormal p (whose reciprocal overflows to inf): then ``-ln(p)``, its equal."""
    inv = 1.0 / p
    return math.log(inv) if math.isfinite(inv) else -math.log(p)


def standard_laplace(shape: int | tuple[int, ...], *, rng: RngLike = None) -> np.ndarray:
    """Draw standard Laplace noise (scale 1) as ``S * E``: ``E ~ Exp(1)`` times an independent fair sign ``S``.

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
    rng : None, int, SeedSequence or numpy.random.Generator
        Randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    numpy.ndarray
        Float64 array of the given shape.

    Raises
    ------
    TypeError
        If ``shape`` is not an int or a tuple of ints.
    ValueError
        If a dimension of ``shape`` is negative, or it asks for more than ``MAX_ELEMENTS`` draws.

    Examples
    --------
    >>> z = standard_laplace((2, 3), rng=0)
    >>> z.shape
    (2, 3)
    """
    shape = check_shape(shape, "Laplace draws")
    gen = as_generator(rng)
    e = gen.standard_exponential(size=shape)
    bits = gen.integers(0, 256, size=(e.size + 7) // 8, dtype=np.uint8)
    sign = np.unpackbits(bits, count=e.size).reshape(shape) - 0.5  # +-0.5, fair and independent of e
    return np.copysign(e, sign, out=e)


@overload
def scaled_laplace(scale: float, shape: None = None, *, rng: RngLike = None) -> float: ...
@overload
def scaled_laplace(scale: float, shape: int | tuple[int, ...], *, rng: RngLike = None) -> np.ndarray: ...
def scaled_laplace(scale: float, shape: int | tuple[int, ...] | None = None, *,
                   rng: RngLike = None) -> np.ndarray | float:
    """Draw Laplace noise ``Lap(scale)`` (mean 0) with ``Generator.laplace``: the noise of dpviz's own releases.

    The draw is ``rng.laplace(0.0, scale, size=shape)``, one uniform per value turned into noise by the
    inverse distribution function, so a release that draws its noise here continues its ``rng`` stream
    exactly as a direct call would.  :func:`standard_laplace` draws the same distribution faster (scale 1,
    a different stream); :func:`laplace` adds the noise to answers.  The noise is floating-point: Mironov
    (CCS 2012) showed that the low-order bits of such outputs can reveal the input, so the epsilon of a
    release that adds it is that of the ideal real-valued mechanism (lecture 07, section 7).

    Parameters
    ----------
    scale : float
        The scale ``b``, finite and >= 0 (e.g. :func:`laplace_scale`); 0 gives zeros.
    shape : int, tuple of int or None, default None
        Shape of the returned array; None draws one value and returns a float.
    rng : None, int, SeedSequence or numpy.random.Generator
        Randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    numpy.ndarray or float
        Float64 noise of the given shape, or one float when ``shape`` is None.

    Raises
    ------
    TypeError
        If ``scale`` is not a real number or ``shape`` not an int or a tuple of ints.
    ValueError
        If ``scale`` is negative, NaN or infinite, a dimension of ``shape`` is negative, or it asks for more
        than ``MAX_ELEMENTS`` draws.

    References
    ----------
    - I. Mironov. "On Significance of the Least Significant Bits for Differential Privacy." CCS 2012.

    Examples
    --------
    >>> scaled_laplace(2.0, 3, rng=0).round(3)
    array([ 0.64 , -1.234, -5.003])
    >>> bool(scaled_laplace(2.0, 3, rng=0)[0] == np.random.default_rng(0).laplace(0.0, 2.0))  # the same stream
    True
    """
    b = check_nonnegative("scale", scale)
    if b > MAX_LAPLACE_SCALE:
        raise ValueError(f"scale={scale!r} is above {MAX_LAPLACE_SCALE:.0e}: draws reach about 45 scales, which "
                         "would overflow to inf")
    dims = None if shape is None else check_shape(shape, "Laplace draws")
    return as_generator(rng).laplace(0.0, b, size=dims)


def laplace(answers: ArrayLike, sensitivity: float, epsilon: float, *, rng: RngLike = None,
            size: int | None = None, sampler: Sampler = "float") -> np.ndarray:
    """Release ``answers + Lap(sensitivity / epsilon)`` independently per entry.

    The Laplace mechanism [DMNS06] is epsilon-DP for any query vector whose L1
    sensitivity is at most ``sensitivity`` (neighbouring datasets differ by
    adding or removing one record).  The noise has density
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
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent releases; if given, the result has shape
        ``(size, *answers.shape)``.
    sampler : {"float", "discrete", "exact"}
        "float" (default): textbook floating-point Laplace noise, open to
        Mironov's attack on its low-order bits.  "discrete" / "exact": integer
        answers (granularity 1: rescale other grids first) plus discrete Laplace
        noise ``DLap(sensitivity/epsilon)``: "exact" draws it in rational arithmetic
        (Canonne-Kamath-Steinke) and is exactly epsilon-DP; "discrete" is the
        vectorised numpy sampler, epsilon-DP only up to its double-precision
        probabilities and truncated support (tiny at the scales of a course; see
        :mod:`dpviz.mechanisms.discrete_laplace_noise` for the orders).

    Returns
    -------
    numpy.ndarray
        Noisy answers (float64), of shape ``answers.shape`` or ``(size, *answers.shape)``.

    Raises
    ------
    ValueError
        For ``epsilon`` <= 0, ``sensitivity`` < 0, ``size`` < 1, non-finite
        ``answers``, an unknown ``sampler``, or non-integer answers with a discrete sampler.
    TypeError
        For arguments of the wrong type.

    Examples
    --------
    >>> out = laplace([10.0, 20.0], sensitivity=1, epsilon=1.0, rng=0, size=3)
    >>> out.shape
    (3, 2)
    """
    if check_choice("sampler", sampler, SAMPLERS) != "float":
        from dpviz.mechanisms.discrete_laplace_noise import discrete_laplace_mechanism  # it imports laplace_scale

        return discrete_laplace_mechanism(answers, sensitivity, epsilon, rng=rng, size=size,
                                          method=_discrete_method(sampler))
    b = laplace_scale(sensitivity, epsilon)
    checked, shape = _answers_and_shape(answers, size)
    if b > 0:
        return checked + as_generator(rng).laplace(0.0, b, size=shape)
    return np.broadcast_to(checked, shape).copy()


def laplace_variance(sensitivity: float, epsilon: float) -> float:
    """Variance of one Laplace answer, ``2 (sensitivity/epsilon)^2``: also its mean squared error (no bias).

    Parameters
    ----------
    sensitivity : float
        L1 sensitivity, finite and >= 0.
    epsilon : float
        Privacy parameter, finite and > 0.

    Returns
    -------
    float
        ``2 b^2`` with ``b`` = :func:`laplace_scale` ``(sensitivity, epsilon)``.

    Raises
    ------
    ValueError
        As :func:`laplace_scale`, or if ``2 b^2`` overflows (``b`` above about 9.5e153, e.g.
        ``epsilon = 1e-300``): the variance would be infinite.

    Examples
    --------
    >>> laplace_variance(1.0, 0.5)
    8.0
    """
    b = laplace_scale(sensitivity, epsilon)
    v = 2.0 * b * b
    if not math.isfinite(v):
        raise ValueError(f"sensitivity={sensitivity!r}, epsilon={epsilon!r}: the variance 2 (sensitivity/epsilon)^2 "
                         f"overflows (sensitivity/epsilon = {b:.3g} must be <= 9.4e153); raise epsilon")
    return v


def laplace_quantile(q: ArrayLike, sensitivity: float, epsilon: float) -> np.ndarray:
    """Quantile function of Laplace noise of scale ``b``: ``-b sign(q - 1/2) ln(1 - 2|q - 1/2|)``.

    Used to draw the theoretical band (e.g. 5 % and 95 % quantiles) beside a simulated one.

    Parameters
    ----------
    q : array_like
        Probabilities, each strictly between 0 and 1.
    sensitivity : float
        L1 sensitivity, finite and >= 0.
    epsilon : float
        Privacy parameter, finite and > 0.

    Returns
    -------
    numpy.ndarray
        The noise value below which a fraction ``q`` of the noise falls, same shape as ``q``.

    Raises
    ------
    ValueError
        If a ``q`` lies outside (0, 1), or as :func:`laplace_scale`.

    Examples
    --------
    >>> laplace_quantile([0.05, 0.5, 0.95], 1.0, 1.0).round(4)
    array([-2.3026,  0.    ,  2.3026])
    """
    b = laplace_scale(sensitivity, epsilon)
    probs = check_array("q", q)
    if np.any((probs <= 0) | (probs >= 1)):
        raise ValueError("q must lie in (0, 1)")
    # scipy.stats.laplace.ppf's own expression, bit for bit (a test checks it), without importing scipy.stats:
    # that import costs every kernel that shows a Laplace band about 1 s and 30 MB
    return np.where(probs > 0.5, -np.log(2 * (1 - probs)), np.log(2 * probs)) * b


def laplace_halfwidth(sensitivity: float, epsilon: float, alpha: float = 0.05) -> float:
    """Half-width ``t`` with ``P(|Lap(b)| > t) = alpha``: ``t = b ln(1/alpha)`` ([DR14], Thm 3.8).

    Parameters
    ----------
    sensitivity : float
        L1 sensitivity, finite and >= 0.
    epsilon : float
        Privacy parameter, finite and > 0.
    alpha : float, default 0.05
        Probability that the noise falls outside ``+-t``, in (0, 1).

    Returns
    -------
    float
        The half-width ``t``.

    Raises
    ------
    ValueError
        If ``alpha`` is outside (0, 1), or as :func:`laplace_scale`.

    Examples
    --------
    >>> round(laplace_halfwidth(1.0, 1.0, alpha=0.1), 4)
    2.3026
    """
    alpha = check_open_unit("alpha", alpha)
    return laplace_scale(sensitivity, epsilon) * _log_inverse(alpha)


def epsilon_for_laplace_halfwidth(halfwidth: float, sensitivity: float, alpha: float = 0.05) -> float:
    """Accuracy first: the smallest epsilon keeping Laplace noise within ``+-halfwidth`` with probability ``1 - alpha``.

    Inverts :func:`laplace_halfwidth`: ``epsilon = sensitivity * ln(1/alpha) / halfwidth``.

    Parameters
    ----------
    halfwidth : float
        The target half-width, > 0.
    sensitivity : float
        L1 sensitivity, > 0.
    alpha : float, default 0.05
        Allowed probability of an error larger than ``halfwidth``, in (0, 1).

    Returns
    -------
    float
        The privacy parameter epsilon that meets the target exactly.

    Raises
    ------
    ValueError
        If ``halfwidth`` or ``sensitivity`` is not > 0, or ``alpha`` is outside (0, 1).

    Examples
    --------
    >>> round(epsilon_for_laplace_halfwidth(5.0, 1.0, alpha=0.1), 4)
    0.4605
    """
    halfwidth = check_positive("halfwidth", halfwidth)
    sensitivity = check_positive("sensitivity", sensitivity)
    alpha = check_open_unit("alpha", alpha)
    eps = sensitivity * _log_inverse(alpha) / halfwidth
    if not math.isfinite(eps):
        raise ValueError(f"halfwidth={halfwidth!r}, sensitivity={sensitivity!r}, alpha={alpha!r}: the epsilon it "
                         "takes, sensitivity ln(1/alpha) / halfwidth, overflows; widen halfwidth or lower sensitivity")
    return eps
