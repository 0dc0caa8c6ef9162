"""Exact output probabilities of GPTT and SVT, by integrating over the noisy threshold.

Given the noisy threshold, the answers of GPTT (and of SVT before it halts) are
independent, so the probability of a whole output vector is a one-dimensional
integral (:func:`event_probability`), computed in log space so that
probabilities far below 1e-300 stay accurate.  SVT's output probability
(:func:`sparse_vector_probability`) is that of its answered prefix.  These are
the tools that check the epsilon-DP inequality exactly, and that show GPTT is
NOT differentially private ([CM15]_ Section 4).

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.

- [LSL17] M. Lyu, D. Su, N. Li. "Understanding the Sparse Vector Technique for
  Differential Privacy." PVLDB 10(6), 2017.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import integrate

from dpviz.svt.codes import ABOVE, BELOW, HALTED
from dpviz.svt.gptt_variant import gptt_noise_scales
from dpviz.svt.noise import _laplace_logcdf, _laplace_logsf
from dpviz.svt.sparse_vector_technique import svt_noise_scales
from dpviz.validation import check_array, check_bool, check_real

__all__ = ["event_probability", "sparse_vector_probability"]


def _laplace_interval_logp(lo: float, hi: float, b: float, w: float) -> float:
    """``log P(lo < Lap(b) <= hi)`` for ``lo < hi`` of width ``w > 0``, without cancellation however wide ``b`` is.

    ``w = hi - lo`` is passed apart, computed before ``lo`` and ``hi`` were shifted by the threshold (which may
    round them together).  Then: ``P = e^{-lo/b} (1 - e^{-w/b}) / 2`` when ``lo >= 0``,
    ``P = e^{hi/b} (1 - e^{-w/b}) / 2`` when ``hi <= 0``, and ``P = 1 - e^{lo/b}/2 - e^{-hi/b}/2`` otherwise;
    every ``1 - e^{-x}`` is ``-expm1(-x)``, exact when ``e^{-x}`` rounds to 1 (the difference of two cdf values
    would round to 0).
    """
    if lo >= 0:
        return math.log(0.5) - lo / b + math.log(-math.expm1(-w / b))
    if hi <= 0:
        return math.log(0.5) + hi / b + math.log(-math.expm1(-w / b))
    return math.log(-0.5 * math.expm1(lo / b) - 0.5 * math.expm1(-hi / b))


def event_probability(answers: npt.ArrayLike, event: npt.ArrayLike, threshold: float, epsilon_threshold: float,
                      epsilon_query: float | None = None, *, sensitivity: float = 1.0,
                      log: bool = False) -> float:
    """Exact probability that GPTT outputs ``event`` on ``answers``, by integrating over the noisy threshold.

    GPTT is NOT differentially private: this is the tool that shows it (Section 4 of [CM15]).

    Given the noisy threshold ``s = T + rho``, GPTT's answers are independent, so
    ``P(event) = int f_rho(s - T) prod_{i: ABOVE} S(s - q_i) prod_{i: BELOW} F(s - q_i) ds``
    with ``f_rho`` the ``Lap(Delta/eps1)`` density and ``F``, ``S = 1 - F`` the cdf and
    survival function of the query noise ``Lap(Delta/eps2)`` ([CM15] Section 4).
    The integrand is evaluated in log space and integrated with
    :func:`scipy.integrate.quad` piecewise between its kinks (T and every q_i),
    so probabilities far below 1e-300 are returned accurately as logarithms.
    Without query noise the integral is the closed form
    ``P(max_{BELOW} q_i < T^ <= min_{ABOVE} q_i)``.

    Parameters
    ----------
    answers : array_like, shape (m,)
        True query answers.
    event : array_like of 0/1, shape (m,)
        The output vector (``ABOVE`` = 1, ``BELOW`` = 0).
    threshold : float
        GPTT's public threshold T.
    epsilon_threshold : float
        eps1 of the threshold noise, finite and > 0.
    epsilon_query : float or None, default None
        eps2 of the query noise; None or inf means no query noise.
    sensitivity : float, default 1
        Delta, the bound on each query's sensitivity (scales both noises).
    log : bool, default False
        Return the natural logarithm of the probability (``-inf`` for 0).

    Returns
    -------
    float
        ``P(GPTT(answers) = event)``, or its natural logarithm if ``log``.

    Raises
    ------
    ValueError, TypeError
        If ``answers`` or ``event`` is not a finite 1-D array, their shapes differ,
        ``event`` holds anything but 0 and 1, a budget, the threshold (a bool is
        refused) or the sensitivity is invalid (see :func:`gptt_noise_scales`),
        or ``log`` is not a bool.

    References
    ----------
    See [CM15] (Section 4) in the module docstring.

    Examples
    --------
    >>> round(event_probability([0, 1], [0, 1], 0.5, 1.0), 6)  # P(0 < 0.5 + Lap(1) <= 1)
    0.393469
    """
    answers = check_array("answers", answers, ndim=1)
    event = check_array("event", event, ndim=1)
    if event.shape != answers.shape:
        raise ValueError(f"event must have the shape of answers {answers.shape}, got {event.shape}")
    if not np.all((event == ABOVE) | (event == BELOW)):
        raise ValueError("event must contain only ABOVE (1) and BELOW (0)")
    threshold = check_real("threshold", threshold)
    b1, b2 = gptt_noise_scales(epsilon_threshold, epsilon_query, sensitivity=sensitivity)
    log = check_bool("log", log)
    up = answers[event == ABOVE]
    down = answers[event == BELOW]
    if b2 == 0.0:
        hi = up.min() if up.size else math.inf
        lo = down.max() if down.size else -math.inf
        logp = -math.inf if hi <= lo else _laplace_interval_logp(lo - threshold, hi - threshold, b1, hi - lo)
        return logp if log else math.exp(logp)
    vals_up, mult_up = np.unique(up, return_counts=True)
    vals_dn, mult_dn = np.unique(down, return_counts=True)

    def logq(s: npt.ArrayLike) -> np.ndarray:  # log P(every answer on its side | noisy threshold s)
        s = np.asarray(s, dtype=float)
        out = np.zeros(s.shape)
        if vals_up.size:
            out = out + (mult_up * _laplace_logsf(s[..., None] - vals_up, b2)).sum(axis=-1)
        if vals_dn.size:
            out = out + (mult_dn * _laplace_logcdf(s[..., None] - vals_dn, b2)).sum(axis=-1)
        return out

    def logf(s: npt.ArrayLike) -> np.ndarray:  # the integrand: the noisy threshold's density times logq, in logs
        s = np.asarray(s, dtype=float)
        out = -np.abs(s - threshold) / b1 - math.log(2.0 * b1)
        if vals_up.size:
            out = out + (mult_up * _laplace_logsf(s[..., None] - vals_up, b2)).sum(axis=-1)
        if vals_dn.size:
            out = out + (mult_dn * _laplace_logcdf(s[..., None] - vals_dn, b2)).sum(axis=-1)
        return out

    if b1 < 1e-5 * max(b2, 1.0):
        return _narrow_threshold(logq, threshold, b1, np.concatenate([vals_up, vals_dn]), log)

    # work in units of the widest noise scale, s = span * u: the grid and quad then see features of width
    # about 1 whatever the scales (with span = 1e100 quad saw a flat integrand and returned 0)
    span = max(b1, b2, 1.0)
    kinks = np.unique(np.concatenate([[threshold], vals_up, vals_dn])) / span
    grid = np.concatenate([np.linspace(kinks[0] - 40, kinks[-1] + 40, 4001), kinks])
    with np.errstate(over="ignore", invalid="ignore"):
        lg = logf(span * grid)
    peak = float(grid[np.argmax(lg)])
    m = float(lg.max())
    pts = np.unique(np.concatenate([kinks, [peak]]))
    pieces = [(-math.inf, pts[0])] + list(zip(pts[:-1], pts[1:], strict=True)) + [(pts[-1], math.inf)]
    total = 0.0
    for a, b in pieces:
        val, _ = integrate.quad(lambda u: math.exp(float(logf(span * u)) - m), a, b, epsabs=0.0, epsrel=1e-10,
                                limit=200)
        total += val
    logp = m + math.log(total) + math.log(span) if total > 0 else -math.inf
    return logp if log else math.exp(logp)


def _narrow_threshold(logq: Any, threshold: float, b1: float, answers: np.ndarray, log: bool) -> float:
    """:func:`event_probability` when the threshold noise is far narrower than the query noise (``b1 < 1e-5 b2``).

    Integrates over ``v = (s - threshold) / b1``, whose weight ``e^-|v| / 2`` has width 1 whatever ``b1``: in
    the units of the widest scale, quad stepped over the threshold's spike and returned 0 (log P = -inf) from
    ``epsilon_threshold = 1e6`` on.  ``logq(s)`` is the log-probability of the event given the noisy threshold s.
    """
    kinks = (answers - threshold) / b1
    kinks = np.unique(kinks[np.abs(kinks) < 60.0])
    grid = np.concatenate([np.linspace(-60.0, 60.0, 2001), kinks])
    with np.errstate(over="ignore", invalid="ignore"):
        m = float(np.max(logq(threshold + b1 * grid) - np.abs(grid)))
    if not m > -math.inf:
        return -math.inf if log else 0.0
    pts = np.unique(np.concatenate([[0.0], kinks]))
    pieces = [(-math.inf, pts[0])] + list(zip(pts[:-1], pts[1:], strict=True)) + [(pts[-1], math.inf)]
    total = sum(integrate.quad(lambda v: math.exp(float(logq(threshold + b1 * v)) - abs(v) - m), a, b,
                               epsabs=0.0, epsrel=1e-10, limit=200)[0] for a, b in pieces)
    logp = m + math.log(total) - math.log(2.0) if total > 0 else -math.inf
    return logp if log else math.exp(logp)


def sparse_vector_probability(answers: npt.ArrayLike, output: npt.ArrayLike, threshold: float, epsilon: float,
                              c: int = 1, *, sensitivity: float = 1.0, threshold_share: float = 0.5,
                              monotonic: bool = False, log: bool = False) -> float:
    """Exact probability that :func:`sparse_vector` returns ``output`` on ``answers``.

    Until it halts, SVT answers exactly like GPTT with SVT's noise scales
    (:func:`svt_noise_scales`), so ``P(output)`` is the probability of the
    answered prefix (everything before the first ``HALTED``), computed by
    :func:`event_probability` (integration over the noisy threshold).  A valid
    output has at most ``c`` ``ABOVE`` answers, is ``HALTED`` from just after the
    c-th ``ABOVE`` on, and nowhere else; any other vector has probability 0.
    Used to check the epsilon-DP inequality ``P_D(a) <= e^epsilon P_D'(a)`` exactly
    ([LSL17] Thm 2).

    Parameters
    ----------
    answers : array_like, shape (m,)
        True answers of the query stream.
    output : array_like of 1/0/-1, shape (m,)
        The output vector (``ABOVE`` = 1, ``BELOW`` = 0, ``HALTED`` = -1).
    threshold : float
        SVT's public threshold T.
    epsilon : float
        Total privacy budget of one SVT run, finite and > 0.
    c : int, default 1
        Number of ``ABOVE`` answers after which SVT halts.
    sensitivity : float, default 1
        Delta, the bound on each query's sensitivity.
    threshold_share : float, default 0.5
        Fraction of epsilon spent on the threshold noise, in (0, 1).
    monotonic : bool, default False
        Whether the queries are monotone (halves the query noise).
    log : bool, default False
        Return the natural logarithm of the probability (``-inf`` for 0).

    Returns
    -------
    float
        ``P(sparse_vector(answers) = output)``, or its natural logarithm if ``log``.

    Raises
    ------
    ValueError, TypeError
        If ``answers`` or ``output`` is not a finite 1-D array, their shapes
        differ, ``output`` holds anything but 1, 0 and -1, ``threshold`` is not a
        finite number (a bool is refused), ``log`` is not a bool, or a parameter
        is invalid (see :func:`svt_noise_scales`).

    References
    ----------
    See [LSL17] (Thm 2) in the module docstring.

    Examples
    --------
    >>> p = [sparse_vector_probability([0, 1], a, 0.5, 1.0) for a in ([1, -1], [0, 1], [0, 0])]
    >>> round(sum(p), 10)
    1.0
    """
    answers = check_array("answers", answers, ndim=1)
    output = check_array("output", output, ndim=1)
    if output.shape != answers.shape:
        raise ValueError(f"output must have the shape of answers {answers.shape}, got {output.shape}")
    if not np.all((output == ABOVE) | (output == BELOW) | (output == HALTED)):
        raise ValueError("output must contain only ABOVE (1), BELOW (0) and HALTED (-1)")
    threshold = check_real("threshold", threshold)
    b_thr, b_q = svt_noise_scales(epsilon, c, sensitivity=sensitivity, threshold_share=threshold_share,
                                  monotonic=monotonic)
    log = check_bool("log", log)
    halted = np.flatnonzero(output == HALTED)
    n = int(halted[0]) if halted.size else output.size
    prefix = output[:n]
    positives = int(np.count_nonzero(prefix == ABOVE))
    # at most c ABOVE; the c-th ABOVE is the last answer given; HALTED only (and always) after a c-th ABOVE
    valid = (n > 0 and bool(np.all(output[n:] == HALTED)) and positives <= c
             and (positives < c or prefix[-1] == ABOVE) and (halted.size == 0 or positives == c))
    if not valid:
        return -math.inf if log else 0.0
    return event_probability(answers[:n], prefix, threshold, 1.0 / b_thr, 1.0 / b_q, sensitivity=1.0, log=log)
