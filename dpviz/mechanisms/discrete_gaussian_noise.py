"""Exact noise on an integer grid, part 2: the discrete Gaussian distribution, its privacy and its mechanism.

The discrete Gaussian ``N_Z(0, s^2)`` has ``P[Y = k] = e^{-k^2 / (2 s^2)} / sum_{j in Z} e^{-j^2 / (2 s^2)}``
on the integers [CKS20]_.  It is sampled by rejection from a discrete Laplace
proposal, exactly (``method="exact"``, rational arithmetic, see
:mod:`dpviz.mechanisms.exact_coins`) or vectorised (``method="fast"``: the
acceptance coin ``U < e^{-(|Y| - s^2/t)^2 / (2 s^2)}`` is flipped with a double
``U`` and the proposals are the fast discrete Laplace draws, so the probabilities
are those of a double-precision computation, right to about 1e-16 in the bulk; the
proposals stop near 44 t, where the Gaussian's own mass is below e^-900, so the
truncation costs nothing measurable; see :mod:`dpviz.mechanisms.discrete_laplace_noise`).
Its privacy is computed exactly: the Theorem 7 delta of one integer query, or the
zCDP conversion for a vector.  :func:`discrete_gaussian_mechanism` releases a
function of the noisy grid point only, as the discrete Laplace mechanism does
(never ``answer + granularity * noise`` in floating point, whose low bits depend
on the answer).

References
----------
.. [CKS20] C. L. Canonne, G. Kamath, T. Steinke. "The Discrete Gaussian for
   Differential Privacy." NeurIPS 2020 (arXiv:2004.00010): Definition 1,
   Algorithm 3, Theorem 7 (exact (eps, delta) of the discrete Gaussian),
   Proposition 5 and Corollary 13 (concentrated DP and its conversion to (eps, delta)).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant import exact, float_at_least
from dpviz.mechanisms.exact_coins import _Coins, _exact_dgauss_one
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
from dpviz.validation import (
    check_array,
    check_bool,
    check_choice,
    check_delta,
    check_elements,
    check_epsilon,
    check_nonnegative,
    check_positive,
    check_trials,
)

__all__ = [
    "discrete_gaussian",
    "discrete_gaussian_pmf",
    "discrete_gaussian_delta",
    "discrete_gaussian_sigma",
    "discrete_gaussian_mechanism",
]

#: Largest grid-unit sigma for which the discrete-Gaussian sums are taken term by term.
_MAX_SIGMA = 1e5

#: The sampler's usable range of sigma.  Below 1e-150, ``sigma**2`` leaves the normal doubles (it underflows
#: to 0 near 1e-162) and the acceptance test ``exp(-(|y| - sigma^2/t)^2 / (2 sigma^2))`` divides 0 by 0, so no
#: proposal is ever accepted.  Above 1e14, draws reach 40 sigma = 4e15 (tail mass e^-800), near 2^53 = 9.0e15
#: where int64 proposals stop being exact doubles and the geometric proposals of mean ~sigma stop fitting
#: comfortably in int64; numpy's geometric sampler also stalls as p = 1 - e^(-1/t) approaches 0.
SAMPLER_SIGMA_RANGE = (1e-150, 1e14)


def discrete_gaussian(sigma: float, *, size: int | None = None, rng: RngLike = None,
                      method: Method = "fast") -> np.ndarray | int:
    """Draw from the discrete Gaussian ``N_Z(0, sigma^2)`` on the integers.

    ``P[Y = k] = e^{-k^2/(2 sigma^2)} / sum_j e^{-j^2/(2 sigma^2)}`` ([CKS20],
    Definition 1), sampled by rejection from ``DLap(floor(sigma) + 1)``
    ([CKS20], Algorithm 3; expected fewer than two proposals for sigma >= 1).

    Parameters
    ----------
    sigma : float
        The scale parameter, in ``SAMPLER_SIGMA_RANGE`` = [1e-150, 1e14] (the variance is slightly
        below ``sigma^2``).  Below 1e-150 ``sigma^2`` underflows and no proposal would ever be
        accepted; above 1e14 the draws no longer fit exactly in doubles (2^53 ~ 9e15 < 40 sigma).
        ``method="exact"`` uses ``sigma^2`` as the exact square of the rational
        read from ``sigma``.
    size : int, optional
        Number of iid draws (array of shape ``(size,)``); ``None`` returns one int.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    method : {"fast", "exact"}
        "fast": vectorised rejection with a double-precision acceptance test;
        "exact": [CKS20] Algorithm 3 in rational arithmetic.

    Returns
    -------
    numpy.ndarray or int
        ``size`` int64 draws, or one Python int when ``size`` is None.

    Raises
    ------
    ValueError
        If ``sigma`` is not in [1e-150, 1e14] (or is NaN/inf), ``size`` < 1 or ``method`` is unknown.

    Examples
    --------
    >>> discrete_gaussian(3.0, size=4, rng=0).shape
    (4,)
    """
    s = check_positive("sigma", sigma)
    lo_s, hi_s = SAMPLER_SIGMA_RANGE
    if not lo_s <= s <= hi_s:
        raise ValueError(f"sigma must be in [{lo_s:g}, {hi_s:g}] for the discrete Gaussian sampler, got {sigma!r} "
                         "(below, sigma^2 underflows and nothing is accepted; above, draws exceed exact doubles)")
    check_choice("method", method, METHODS)
    shape = _draw_shape(size)
    n = int(np.prod(shape)) if shape else 1
    if method == "exact" and n > MAX_EXACT_DRAWS:
        raise ValueError(f"size={size!r} asks for {n} exact draws; the exact sampler (pure Python) takes at most "
                         f"{MAX_EXACT_DRAWS} per call: use method='fast' or fewer draws")
    gen = as_generator(rng)
    if method == "exact":
        sq = exact("sigma", sigma)
        coins = _Coins(gen)
        out = np.array([_exact_dgauss_one(coins, sq * sq) for _ in range(n)], dtype=np.int64)
        return _as_output(out.reshape(shape or (1,)), size)
    t = math.floor(s) + 1
    p = -math.expm1(-1.0 / t)
    out = np.empty(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        m = todo.size
        y = gen.geometric(p, size=m).astype(np.int64) - gen.geometric(p, size=m).astype(np.int64)
        accept = gen.random(m) < np.exp(-((np.abs(y) - s * s / t) ** 2) / (2.0 * s * s))
        out[todo[accept]] = y[accept]
        todo = todo[~accept]
    return _as_output(out.reshape(shape or (1,)), size)


def _gauss_normaliser(s: float) -> float:
    """``sum_{j in Z} e^{-j^2/(2 s^2)}`` (terms beyond 40 s are below e^{-800}, i.e. 0 in doubles)."""
    if not SAMPLER_SIGMA_RANGE[0] <= s <= _MAX_SIGMA:
        raise ValueError(f"sigma must be in [{SAMPLER_SIGMA_RANGE[0]:g}, {_MAX_SIGMA:g}] grid units for the discrete "
                         f"Gaussian sums (below, sigma^2 underflows), got {s}")
    j = np.arange(1, math.ceil(40 * s) + 2, dtype=float)
    return 1.0 + 2.0 * float(np.sum(np.exp(-(j * j) / (2 * s * s))))


def discrete_gaussian_pmf(k: ArrayLike, sigma: float) -> np.ndarray:
    """Probability mass ``P[Y = k]`` of ``Y ~ N_Z(0, sigma^2)``: ``e^{-k^2/(2 sigma^2)} / sum_j e^{-j^2/(2 sigma^2)}``.

    The normaliser is summed term by term out to 40 sigma (the rest is below
    1e-340) ([CKS20], Definition 1).

    Parameters
    ----------
    k : array_like
        Integer points (any shape).
    sigma : float
        The scale parameter, in [1e-150, 1e5] (below 1e-150 sigma^2 underflows).

    Returns
    -------
    numpy.ndarray
        The probability of each ``k``, same shape.

    Raises
    ------
    ValueError
        If ``k`` holds a non-integer, or ``sigma`` is outside [1e-150, 1e5].

    Examples
    --------
    >>> discrete_gaussian_pmf([0, 1], 1.0).round(4)
    array([0.3989, 0.242 ])
    """
    s = check_positive("sigma", sigma)
    points = check_array("k", k)
    if np.any(points != np.round(points)):
        raise ValueError("k must hold integers (the discrete Gaussian lives on Z)")
    return np.exp(-(points * points) / (2 * s * s)) / _gauss_normaliser(s)


def _gauss_tail(a: float, s: float, norm: float) -> float:
    """``P[Y > a]`` for ``Y ~ N_Z(0, s^2)`` (a sum over integers k > a, out to 40 s beyond)."""
    start = math.floor(a) + 1
    if start <= 0:  # by symmetry P[Y <= a] = P[Y <= start - 1] = P[Y >= 1 - start] = P[Y > -start]
        return 1.0 - _gauss_tail(-start, s, norm)
    k = np.arange(start, start + math.ceil(40 * s) + 2, dtype=float)
    return float(np.sum(np.exp(-(k * k) / (2 * s * s)))) / norm


def _integer_shift(sensitivity: float) -> float:
    """The largest integer shift an integer-valued query of sensitivity Delta can make (at least 1)."""
    return float(max(1, math.floor(sensitivity * (1 + 1e-12))))


def discrete_gaussian_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    """Exact delta at ``epsilon`` of adding ``N_Z(0, sigma^2)`` to one integer query of sensitivity Delta.

    ``delta = P[Y > eps sigma^2/Delta - Delta/2] - e^eps P[Y > eps sigma^2/Delta + Delta/2]``
    with ``Y ~ N_Z(0, sigma^2)`` ([CKS20], Theorem 7; the privacy loss of a shift by
    Delta exceeds epsilon exactly when ``Y > eps sigma^2/Delta - Delta/2``).  For a
    single (scalar) query only; see :func:`discrete_gaussian_sigma` for vectors.

    The query is integer-valued, so neighbours differ by an integer shift of at
    most ``floor(Delta)``; Theorem 7 is for an integer shift, and delta grows with
    the shift, so a non-integer ``Delta`` is replaced by ``max(1, floor(Delta))``
    (using the real-valued Delta in the formula would understate delta).

    Parameters
    ----------
    sigma : float
        Scale of the discrete Gaussian in grid units, in [1e-150, 1e5].
    sensitivity : float
        Sensitivity Delta of the integer query, > 0.
    epsilon : float
        Privacy parameter at which delta is read, finite and >= 0.

    Returns
    -------
    float
        The smallest delta for which the release is (epsilon, delta)-DP.

    Raises
    ------
    ValueError
        For an invalid parameter or ``sigma`` outside [1e-150, 1e5].

    Examples
    --------
    >>> round(discrete_gaussian_delta(2.0, 1.0, 1.0), 6)
    0.007249
    """
    s = check_positive("sigma", sigma)
    d = _integer_shift(check_positive("sensitivity", sensitivity))
    eps = check_nonnegative("epsilon", epsilon)
    norm = _gauss_normaliser(s)
    c = eps * s * s / d
    if not c - d / 2 <= 40 * s + 2:   # the loss exceeds epsilon only beyond 40 sigma (mass below e^-800): delta 0
        return 0.0
    lower, upper = _gauss_tail(c - d / 2, s, norm), _gauss_tail(c + d / 2, s, norm)
    if upper == 0.0:
        return max(0.0, lower)
    log_term = eps + math.log(upper)   # e^eps * upper without overflowing e^eps
    return 0.0 if log_term > 700 else max(0.0, lower - math.exp(log_term))


def _zcdp_delta(rho: float, eps: float) -> float:
    """delta of rho-zCDP at epsilon: ``inf_{a>1} e^{(a-1)(a rho - eps)} / (a-1) * (1 - 1/a)^a`` ([CKS20], Cor. 13)."""

    from scipy import optimize  # lazily: scipy.stats/optimize cost a kernel ~1 s

    def log_delta(a: float) -> float:
        return (a - 1) * (a * rho - eps) - math.log(a - 1) + a * math.log1p(-1.0 / a)

    if eps > rho and (eps - rho) / (2 * math.sqrt(rho)) > 29:   # delta <= e^{-(eps - rho)^2 / (4 rho)} < e^-800
        return 0.0
    a_star = (eps + rho) / (2 * rho) + 1.0  # minimiser of the leading term
    res = optimize.minimize_scalar(log_delta, bounds=(1.0 + 1e-9, max(4.0 * a_star, 4.0)), method="bounded",
                                   options={"xatol": 1e-10})
    return min(1.0, math.exp(min(res.fun, log_delta(a_star))))


def discrete_gaussian_sigma(l2_sensitivity: float, epsilon: float, delta: float, *, scalar: bool = True) -> float:
    """Smallest grid-unit sigma making the discrete Gaussian mechanism (epsilon, delta)-DP.

    ``scalar=True`` (one integer query): root of the exact Theorem 7 delta
    (:func:`discrete_gaussian_delta`, for the integer shift ``max(1, floor(Delta))``)
    at ``delta``.  ``scalar=False`` (a vector of integer queries with L2
    sensitivity ``l2_sensitivity``): the discrete Gaussian is
    ``rho = Delta^2/(2 sigma^2)``-zCDP in one dimension ([CKS20], Prop. 5) and
    Renyi divergences of independent coordinates add, so the vector is
    ``Delta_2^2/(2 sigma^2)``-zCDP; sigma is the root of its (epsilon, delta)
    conversion ([CKS20], Corollary 13).  Both roots are rounded up.

    Parameters
    ----------
    l2_sensitivity : float
        Sensitivity of the query (its L2 sensitivity for a vector), in grid units, > 0.
    epsilon : float
        Privacy parameter, finite and > 0.
    delta : float
        Privacy parameter, in (0, 1).
    scalar : bool, default True
        Whether the release is one integer query (exact Theorem 7) or a vector (zCDP).

    Returns
    -------
    float
        The noise scale sigma in grid units.

    Raises
    ------
    ValueError
        For an invalid parameter, an ``l2_sensitivity`` outside [1e-100, 1e5] grid units, or if sigma
        would exceed 1e5 grid units (use a coarser grid).

    Examples
    --------
    >>> round(discrete_gaussian_sigma(1.0, 1.0, 1e-5), 3)
    3.74
    """
    d = check_positive("l2_sensitivity", l2_sensitivity)
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    scalar = check_bool("scalar", scalar)
    if not 1e-100 <= d <= _MAX_SIGMA:
        raise ValueError(f"l2_sensitivity must be in [1e-100, {_MAX_SIGMA:g}] grid units, got {l2_sensitivity!r} "
                         "(sigma scales with it and must stay within the discrete Gaussian sums' range); "
                         "rescale the answers to a coarser or finer grid")

    from scipy import optimize  # lazily: scipy.stats/optimize cost a kernel ~1 s

    def excess(log_s: float) -> float:  # delta(sigma) - delta, decreasing in sigma
        if scalar:
            return discrete_gaussian_delta(math.exp(log_s), d, eps) - delta
        return _zcdp_delta(d * d / (2 * math.exp(2 * log_s)), eps) - delta

    log_max = math.log(_MAX_SIGMA) - 1e-9  # exp(log(1e5)) rounds above 1e5
    log_min = math.log(SAMPLER_SIGMA_RANGE[0]) + 1e-9
    lo, hi = max(math.log(d) - 5.0, log_min), min(math.log(d) + 3.0, log_max)
    while excess(lo) < 0:
        if lo <= log_min:
            raise ValueError(f"epsilon={epsilon!r} is so large (with l2_sensitivity={d}, delta={delta}) that sigma "
                             f"would fall below {SAMPLER_SIGMA_RANGE[0]:g} grid units, where the discrete Gaussian's "
                             "sums underflow; lower epsilon or use a finer grid")
        lo = max(lo - 3.0, log_min)
    while excess(hi) > 0:
        if hi >= log_max:
            raise ValueError(f"l2_sensitivity={d}, epsilon={eps}, delta={delta} need sigma > {_MAX_SIGMA:g} grid "
                             "units; use a coarser grid (rescale the answers)")
        hi = min(hi + 3.0, log_max)
    sigma = math.exp(optimize.brentq(excess, lo, hi, xtol=1e-12, rtol=1e-12)) * (1 + 1e-9)
    while excess(math.log(sigma)) > 0:   # brentq's root may sit on the wrong side: step up until delta is met
        sigma *= 1 + 1e-9
    return sigma


def discrete_gaussian_mechanism(answers: ArrayLike, l2_sensitivity: float, epsilon: float, delta: float, *,
                                granularity: float = 1.0, rng: RngLike = None, size: int | None = None,
                                method: Method = "fast") -> np.ndarray:
    """Release ``answers + granularity * N_Z(0, sigma^2)`` per entry, (epsilon, delta)-DP on the grid.

    sigma (in grid units) is :func:`discrete_gaussian_sigma` of
    ``l2_sensitivity / granularity``: the exact Theorem 7 calibration of [CKS20]
    when ``answers`` holds one number, the zCDP calibration (Prop. 5 + Cor. 13)
    for a vector.  Answers must lie on the grid.  Entry k of the release is the double nearest
    ``k * granularity`` for the noisy grid point k (see :func:`discrete_laplace_mechanism`): the same bits
    whichever input produced k.

    Parameters
    ----------
    answers : array_like
        True answers (any shape), each a multiple of ``granularity`` (to within 1e-9 grid steps plus the
        rounding of ``answer / granularity``), at most 2**44 grid steps from 0.
    l2_sensitivity : float
        L2 sensitivity of the answer vector, > 0.
    epsilon : float
        Privacy parameter, finite and > 0.
    delta : float
        Privacy parameter, in (0, 1).
    granularity : float, default 1.0
        Grid step of the answers, > 0.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent releases stacked on a new first axis.
    method : {"fast", "exact"}
        Sampler of the noise (see :func:`discrete_gaussian`).

    Returns
    -------
    numpy.ndarray
        Noisy answers: for each noisy grid point k, the double nearest ``k * granularity``.

    Raises
    ------
    ValueError
        If an answer is off the grid, or for an invalid parameter.

    Examples
    --------
    >>> discrete_gaussian_mechanism([3.0, 5.0], 1.0, 1.0, 1e-5, rng=0, size=2).shape
    (2, 2)
    """
    points, g, slack = _grid_answers(answers, granularity)
    ratio = check_positive("l2_sensitivity", l2_sensitivity) / g
    if not 1e-100 <= ratio <= _MAX_SIGMA:
        raise ValueError(f"l2_sensitivity / granularity = {l2_sensitivity!r} / {granularity!r} = {ratio:.3g} grid "
                         f"units must be in [1e-100, {_MAX_SIGMA:g}]; choose a granularity nearer to l2_sensitivity")
    # the norm of the integer shift between two neighbours' grid points (see _grid_shift): L2 for a vector, and
    # for one answer the integer step itself (a sensitivity of 1.9999999998 steps can still move 2 grid points)
    shift = _grid_shift(float(l2_sensitivity), g, slack, max(points.size, 1), norm=1 if points.size == 1 else 2)
    d = float_at_least(shift)
    if not 1e-100 <= d <= _MAX_SIGMA:
        raise ValueError(f"l2_sensitivity / granularity = {l2_sensitivity!r} / {granularity!r} = {d:.3g} grid units "
                         f"must be in [1e-100, {_MAX_SIGMA:g}]; choose a granularity nearer to l2_sensitivity")
    trials = check_trials(size)
    check_elements(float(trials or 1) * points.size, "noisy answers", size=size, answers_size=points.size)
    sigma = discrete_gaussian_sigma(d, epsilon, delta, scalar=points.size == 1)
    shape = points.shape if trials is None else (trials, *points.shape)
    n = int(np.prod(shape))
    noise = np.asarray(discrete_gaussian(sigma, size=max(n, 1), rng=rng, method=method))[:n].reshape(shape)
    return _grid_values(points + noise, g)
