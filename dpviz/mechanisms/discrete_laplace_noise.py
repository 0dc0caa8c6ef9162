"""Exact noise on an integer grid, part 1: the discrete Laplace distribution and its mechanism.

Textbook Laplace noise is drawn in floating point, and the set of doubles it
can produce depends on the true answer: Mironov [Mir12]_ showed that seeing the
noisy output's low-order bits can reveal the input, so the float
implementation is not differentially private at all.  Canonne, Kamath and
Steinke [CKS20]_ avoid floats altogether: on integer-valued queries add integer
noise, the discrete Laplace ``DLap(t)`` here,
``P[Y = k] = (1 - e^{-1/t}) / (1 + e^{-1/t}) * e^{-|k|/t}`` for k in Z, or the
discrete Gaussian of :mod:`dpviz.mechanisms.discrete_gaussian_noise`, and sample
them exactly.  Two samplers are offered for each (``method=``):

``"exact"``
    The algorithms of [CKS20]_ in integer and :class:`fractions.Fraction`
    arithmetic (:mod:`dpviz.mechanisms.exact_coins`).  The output distribution
    is exactly the pmf, with the parameters read as exact rationals.  Pure
    Python: about 10-50 microseconds per draw, meant for moderate sizes and
    for checking.
``"fast"``
    Vectorised numpy: ``Y = G1 - G2`` with ``G1, G2`` iid geometric with success
    probability ``1 - e^{-1/t}``, an identity in distribution (both have pmf
    proportional to ``e^{-|k|/t}``).  numpy turns one double-precision variate
    into each geometric draw (a ziggurat exponential divided by
    ``log1p(-p)``, or a search over a uniform when ``p >= 1/3``), so the
    probabilities are those of a double-precision computation and the support
    stops: no draw exceeds about 44 t (37 t when ``t < 2.47``, where ``p >= 1/3``), because a
    double uniform never comes closer to 1 than 2^-53.  Two consequences, both
    growing with the scale t.  Each probability is off by a relative error of
    about ``t * 1e-15`` (an interval of length 1/t holds a count of the
    exponential's possible values that is right to one value in about 1e15/t),
    which moves the privacy loss by as much; and a neighbour's output in the cut-off
    or coarsely quantised far tail can be impossible from the other input, a
    delta of a few times ``e^{epsilon - 36.7}`` plus ``t * 1e-19`` (enumerating
    numpy's search exactly gives 1.1e-15 at t = 1, epsilon = 1).  At the scales a
    course uses (t up to 1e4) that is a loss off by 1e-11 and a delta of about
    1e-15: far below anything a simulation can see, but not a proof, and poor
    near the top of the sampler's range.  (numpy's search can also fail to stop
    when the uniform is one of its two or three largest values, about one draw in
    2^52, for some t below 2.47.)  Use ``method="exact"`` when the guarantee must
    hold exactly.

Whatever the sampler, :func:`discrete_laplace_mechanism` releases a function
of the noisy *grid point* only (the double nearest ``k * granularity``), never
``answer + granularity * noise`` computed in floating point: with a
granularity such as 0.1 the low bits of that sum depend on the answer
(``0.4 + 0.1 * 3`` is 0.7000000000000001, ``0.5 + 0.1 * 2`` is 0.7), which is
Mironov's attack again.

References
----------
.. [CKS20] C. L. Canonne, G. Kamath, T. Steinke. "The Discrete Gaussian for
   Differential Privacy." NeurIPS 2020 (arXiv:2004.00010): Definition 2 and
   Algorithm 2 (discrete Laplace).
.. [Mir12] I. Mironov. "On Significance of the Least Significant Bits for
   Differential Privacy." CCS 2012.

- [GRS09] A. Ghosh, T. Roughgarden, M. Sundararajan. "Universally
  Utility-Maximizing Privacy Mechanisms." STOC 2009 (the geometric mechanism).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant import exact, lower_reading
from dpviz.mechanisms.exact_coins import _Coins, _exact_dlap_one
from dpviz.mechanisms.laplace_noise import laplace_scale
from dpviz.mechanisms.release import (
    MAX_EXACT_DRAWS,
    METHODS,
    Method,
    _as_output,
    _draw_shape,
    _grid_answers,
    _grid_shift,
    _grid_values,
)
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_array, check_choice, check_epsilon, check_positive, check_trials

__all__ = ["discrete_laplace", "discrete_laplace_pmf", "discrete_laplace_mechanism"]

#: Scales the discrete Laplace sampler accepts.  A draw is a difference of two geometrics of mean about ``t``,
#: and reaches ~40 t with probability e^-40; above 1e14 that passes 2**53, where float64 stops holding every
#: integer and numpy's geometric saturates (a scale of 1e20 gave 84% zeros: no noise).  Below 1e-12 the draws
#: are all 0 to within 1 - e^(-1e12), the sampler's own resolution.
SAMPLER_SCALE_RANGE = (1e-12, 1e14)


def discrete_laplace(scale: float | Fraction, *, size: int | None = None, rng: RngLike = None,
                     method: Method = "fast") -> np.ndarray | int:
    """Draw from the discrete Laplace distribution ``DLap(t)`` on the integers, ``t = scale``.

    ``P[Y = k] = (1 - e^{-1/t}) / (1 + e^{-1/t}) e^{-|k|/t}`` ([CKS20], Definition 2;
    the two-sided geometric of [GRS09]).  Adding ``DLap(Delta/epsilon)`` to an
    integer query of sensitivity Delta is epsilon-DP.

    Parameters
    ----------
    scale : float or fractions.Fraction
        t > 0.  With ``method="exact"`` it is read as an exact rational (a float
        as its shortest decimal, e.g. 0.1 = 1/10).
    size : int, optional
        Number of iid draws (array of shape ``(size,)``); ``None`` returns one int.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    method : {"fast", "exact"}
        "fast": vectorised ``G1 - G2`` with numpy geometrics (an identity in
        distribution, but numpy's geometric has double-precision probabilities and
        a support cut near 44 t: see the module docstring); "exact": [CKS20]
        Algorithm 2 in rational arithmetic, exactly the pmf.

    Returns
    -------
    numpy.ndarray or int
        ``size`` int64 draws, or one Python int when ``size`` is None.

    Raises
    ------
    ValueError
        If ``scale`` is not > 0 (or is NaN/inf) or outside :data:`SAMPLER_SCALE_RANGE`, ``size`` < 1 (or above
        :data:`MAX_EXACT_DRAWS` with ``method="exact"``), or ``method`` is unknown.

    Examples
    --------
    >>> discrete_laplace(2.0, size=5, rng=0).dtype
    dtype('int64')
    >>> isinstance(discrete_laplace(2.0, rng=0, method="exact"), int)
    True
    """
    t = check_positive("scale", scale)
    check_choice("method", method, METHODS)
    if not SAMPLER_SCALE_RANGE[0] <= t <= SAMPLER_SCALE_RANGE[1]:
        lo, hi = SAMPLER_SCALE_RANGE
        raise ValueError(f"scale must be in [{lo:g}, {hi:g}] for the discrete Laplace sampler, got {scale!r} "
                         "(beyond 1e14, draws leave the integers float64 holds exactly and the noise is lost; "
                         "below 1e-12 every draw is 0)")
    shape = _draw_shape(size)
    n = int(np.prod(shape)) if shape else 1
    if method == "exact" and n > MAX_EXACT_DRAWS:
        raise ValueError(f"size={size!r} asks for {n} exact draws; the exact sampler (pure Python, ~50,000 draws/s) "
                         f"takes at most {MAX_EXACT_DRAWS} per call: use method='fast' or fewer draws")
    gen = as_generator(rng)
    if method == "exact":
        tq = exact("scale", scale)
        coins = _Coins(gen)
        out = np.array([_exact_dlap_one(coins, tq.denominator, tq.numerator) for _ in range(n)], dtype=np.int64)
    else:
        p = -math.expm1(-1.0 / t)  # 1 - e^{-1/t}, accurately for large t
        out = gen.geometric(p, size=n).astype(np.int64) - gen.geometric(p, size=n).astype(np.int64)
    return _as_output(out.reshape(shape or (1,)), size)


def discrete_laplace_pmf(k: ArrayLike, scale: float) -> np.ndarray:
    """Probability mass ``P[Y = k]`` of ``Y ~ DLap(t)``: ``tanh(1/(2t)) e^{-|k|/t}``.

    ``tanh(1/(2t)) = (1 - e^{-1/t})/(1 + e^{-1/t})`` is the normaliser ([CKS20], Definition 2).

    Parameters
    ----------
    k : array_like
        Integer points (any shape).
    scale : float
        t > 0.

    Returns
    -------
    numpy.ndarray
        The probability of each ``k``, same shape.

    Raises
    ------
    ValueError
        If ``k`` holds a non-integer or ``scale`` is not > 0.

    Examples
    --------
    >>> discrete_laplace_pmf([0, 1], 1.0).round(4)
    array([0.4621, 0.17  ])
    """
    t = check_positive("scale", scale)
    points = check_array("k", k)
    if np.any(points != np.round(points)):
        raise ValueError("k must hold integers (the discrete Laplace lives on Z)")
    return math.tanh(0.5 / t) * np.exp(-np.abs(points) / t)


def discrete_laplace_mechanism(answers: ArrayLike, sensitivity: float, epsilon: float, *,
                               granularity: float = 1.0, rng: RngLike = None, size: int | None = None,
                               method: Method = "fast") -> np.ndarray:
    """Release ``answers + granularity * DLap(sensitivity / (granularity * epsilon))`` per entry.

    For answers on the grid ``granularity * Z`` whose L1 sensitivity is
    ``sensitivity``, this is epsilon-DP: a neighbour (one record added
    or removed) shifts the grid-unit answers by an integer vector of L1 norm at
    most ``sensitivity/granularity`` and the pmf ratio is at most ``e^{epsilon}``
    ([CKS20]; [GRS09]) -- exactly with ``method="exact"``, up to the fast
    sampler's double-precision probabilities and truncated support otherwise
    (module docstring).  The grid-unit scale is :func:`~dpviz.mechanisms.laplace_scale` of the grid shift
    at ``epsilon``: the shift is ``sensitivity / granularity``, or the next integer when the grid tolerance
    can carry two neighbours' grid points that far apart.

    The release is computed from the noisy grid point ``k = answer / granularity + noise`` alone: entry k is
    the double nearest ``k * granularity`` (the granularity read as its shortest decimal, so 0.1 * 7 gives
    0.7; ``k * granularity`` in floating point where that decimal or ``k`` is too long to divide exactly), the
    same bits whichever input produced k.  ``answer + granularity * noise`` in floating point would leak the
    answer through its low bits (module docstring).

    Parameters
    ----------
    answers : array_like
        True answers (any shape), each a multiple of ``granularity`` (to within 1e-9 grid steps plus the
        rounding of ``answer / granularity``: 0.3 is a multiple of 0.1), at most 2**44 grid steps from 0.
    sensitivity : float
        L1 sensitivity of the answer vector, > 0.
    epsilon : float
        Privacy parameter, finite and > 0.
    granularity : float, default 1.0
        Grid step of the answers, > 0.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent releases stacked on a new first axis.
    method : {"fast", "exact"}
        Sampler of the noise (see :func:`discrete_laplace`).

    Returns
    -------
    numpy.ndarray
        Noisy answers: for each noisy grid point k, the double nearest ``k * granularity``.

    Raises
    ------
    ValueError
        If an answer is off the grid or too far from 0, or for an invalid parameter.

    Examples
    --------
    >>> out = discrete_laplace_mechanism([3.0, 5.0], 1.0, 1.0, rng=0, size=2)
    >>> out.shape, bool(np.all(out == np.round(out)))
    ((2, 2), True)
    >>> discrete_laplace_mechanism([0.3, 0.7], 0.1, 1.0, granularity=0.1, rng=0).tolist()
    [0.4, 0.7]
    """
    points, g, slack = _grid_answers(answers, granularity)
    t_float = check_positive("sensitivity", sensitivity) / g / check_epsilon(epsilon)
    if not SAMPLER_SCALE_RANGE[0] / 2 <= t_float <= SAMPLER_SCALE_RANGE[1] * 2:   # refused before exact arithmetic
        raise ValueError(f"sensitivity / (granularity * epsilon) = {sensitivity!r} / ({granularity!r} * {epsilon!r}) "
                         f"= {t_float:g} grid units is outside the discrete sampler's scales {SAMPLER_SCALE_RANGE}: "
                         "raise epsilon or the granularity (or lower them, for a scale below the range)")
    # the L1 norm of the integer shift between two neighbours' grid points, exactly (see _grid_shift)
    shift = _grid_shift(float(sensitivity), g, slack, max(points.size, 1), norm=1)
    t: float | Fraction = laplace_scale(shift, epsilon)
    if not SAMPLER_SCALE_RANGE[0] <= t <= SAMPLER_SCALE_RANGE[1]:
        raise ValueError(f"sensitivity / (granularity * epsilon) = {sensitivity!r} / ({granularity!r} * {epsilon!r}) "
                         f"= {t:g} grid units is outside the discrete sampler's scales {SAMPLER_SCALE_RANGE}: "
                         "raise epsilon or the granularity (or lower them, for a scale below the range)")
    if method == "exact":  # the exact rational shift / epsilon, epsilon at its smaller reading
        t = shift / lower_reading("epsilon", epsilon)
    trials = check_trials(size)
    shape = points.shape if trials is None else (trials, *points.shape)
    n = int(np.prod(shape))
    noise = np.asarray(discrete_laplace(t, size=max(n, 1), rng=rng, method=method))[:n].reshape(shape)
    return _grid_values(points + noise, g)
