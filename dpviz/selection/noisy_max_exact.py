"""Exact selection probabilities of report-noisy-max: ``P(r wins) = int f_r(t) prod_{q != r} F_q(t) dt``.

Candidate r wins when its noisy score ``t = u_r + Z_r`` exceeds every other noisy score; given t, the others
are independent, so ``P(r) = int f_r(t) prod_{q != r} F_q(t) dt`` with ``f_r``, ``F_q`` the density of
``u_r + Z_r`` and the distribution function of ``u_q + Z_q``.  In units of the selection scale s
(``v = (u - max u) / s``, unit noise):

* **Gumbel** noise: the integral is the softmax ``exp(v_r) / sum_q exp(v_q)``, the exponential mechanism;
* **exponential** noise: a polynomial integral, exact by Gauss-Legendre (permute-and-flip,
  :func:`dpviz.selection.permute_and_flip_log_probabilities`);
* **Laplace** noise: no closed form is used.  On every interval between two consecutive scores each factor is
  either an exponential ``e^{t - v}/2`` (below its score) or the saturating ``1 - e^{-(t - v)}/2`` (above),
  so the integrand is ``e^{c t} h(t)`` with an integer c and a smooth h.  :func:`noisy_max_log_probabilities`
  integrates it by composite Gauss-Legendre quadrature on a mesh graded geometrically away from every score
  (offsets s/2, s, 2s, ..., 64s), in the variable ``w = e^{c t}`` on each piece (which integrates the
  exponential part exactly), with the left tail in closed form; all sums are taken in logarithms, so
  probabilities far below 1e-300 keep their relative accuracy.  :func:`noisy_max_integral` computes the same
  integrals independently with :func:`scipy.integrate.quad`, for any of the three noises; the tests require
  the two to agree to 1e-10.

References
----------
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends in
  TCS 9(3-4), 2014, Section 3.3.
- [DKSSWXZ21] Z. Ding, D. Kifer, S. M. Saghaian N. E., T. Steinke, Y. Wang, Y. Xiao, D. Zhang. "The
  Permute-and-Flip Mechanism is Identical to Report-Noisy-Max with Exponential Noise." arXiv:2105.07260, 2021.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import integrate, stats
from scipy.special import logsumexp, roots_legendre

from dpviz.mechanisms import selection_scale
from dpviz.selection.exponential_mechanism import exponential_log_probabilities
from dpviz.selection.permute_and_flip import permute_and_flip_log_probabilities
from dpviz.selection.report_noisy_max import NOISES
from dpviz.selection.scores import _from_logs, _scores, _standardised
from dpviz.validation import check_choice, check_elements

__all__ = ["noisy_max_log_probabilities", "noisy_max_probabilities", "noisy_max_integral"]

_LN2 = math.log(2.0)
_X, _W = roots_legendre(10)
_NODES, _LOG_WEIGHTS = (_X + 1.0) / 2.0, np.log(_W / 2.0)     # Gauss-Legendre on [0, 1]
_OFFSETS = 2.0 ** np.arange(-1.0, 6.5, 0.5)                      # 1/2, 1/sqrt2, 1, ..., 64 (units of the scale)
_MESH = np.concatenate(([0.0], _OFFSETS, -_OFFSETS))


def _log_cdf(x: np.ndarray) -> np.ndarray:
    """ln F(x) of the standard Laplace distribution."""
    neg = x < 0
    return np.where(neg, x - _LN2, np.log1p(-0.5 * np.exp(-np.where(neg, 0.0, x))))


def _log_pdf(x: np.ndarray) -> np.ndarray:
    """ln f(x) of the standard Laplace distribution."""
    return -np.abs(x) - _LN2


def _laplace_log_win(v: np.ndarray) -> np.ndarray:
    """ln P(r wins) for report-noisy-max with unit Laplace noise on standardised scores ``v`` (max 0)."""
    out = np.full(v.size, -np.inf)
    finite = np.isfinite(v)
    vf = v[finite]
    m = vf.size
    order = np.sort(vf)
    pts = np.unique(order[:, None] + _MESH[None, :])
    pts = pts[pts >= order[0]]
    a, b = pts[:-1], pts[1:]
    mid = 0.5 * (a + b)
    above = m - np.searchsorted(order, mid, side="right")     # scores above each piece
    width = b - a
    # two node sets per piece: tilt c = above (t below v_r) and c = above - 1 (t above v_r); c = -1 on the tail
    nodes, logjac = [], []
    for c in (above, above - 1):
        cc = c.astype(float)[:, None]
        ac = np.abs(cc)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            lo = np.exp(-ac * width[:, None])
            w = lo + (1.0 - lo) * _NODES[None, :]
            t_up = b[:, None] + np.log(w) / np.where(cc > 0, cc, 1.0)
            t_down = a[:, None] - np.log(w) / np.where(cc < 0, ac, 1.0)
            t_flat = a[:, None] + width[:, None] * _NODES[None, :]
            t = np.where(cc > 0, t_up, np.where(cc < 0, t_down, t_flat))
            lj = np.where(cc == 0, np.log(width)[:, None],
                          np.log1p(-lo) - np.log(np.where(cc == 0, 1.0, ac)) - np.log(w)) + _LOG_WEIGHTS[None, :]
        nodes.append(t)
        logjac.append(lj)
    t_tail = pts[-1] - np.log(_NODES)                             # [T, inf) in w = e^{-(t - T)}: slope -1
    lj_tail = -np.log(_NODES) + _LOG_WEIGHTS
    sums = [_log_cdf(t[..., None] - vf).sum(axis=-1) for t in (*nodes, t_tail)]
    below = (vf[:, None] > mid[None, :])[:, :, None]               # (r, piece, 1): the piece lies below v_r
    t = np.where(below, nodes[0][None], nodes[1][None])           # (r, piece, node)
    own = _log_pdf(t - vf[:, None, None]) - _log_cdf(t - vf[:, None, None])
    body = own + np.where(below, sums[0][None] + logjac[0][None], sums[1][None] + logjac[1][None])
    tail_rel = t_tail[None, :] - vf[:, None]
    tail = _log_pdf(tail_rel) - _log_cdf(tail_rel) + (sums[2] + lj_tail)[None, :]
    left_rel = order[0] - vf                                      # int_{-inf}^{v_min}: slope m, closed form
    left = _log_pdf(left_rel) - _log_cdf(left_rel) + _log_cdf(order[0] - vf).sum() - math.log(m)
    terms = np.concatenate([body.reshape(m, -1), tail, left[:, None]], axis=1)
    terms = np.where(np.isfinite(terms), terms, -np.inf)
    result = logsumexp(terms, axis=1)
    out[finite] = result
    return out


def noisy_max_log_probabilities(scores: ArrayLike, epsilon: float, noise: str = "laplace",
                                sensitivity: float = 1.0, *, monotone: bool = False) -> np.ndarray:
    """Natural logarithms of report-noisy-max's exact selection probabilities, for each noise of ``NOISES``.

    Gumbel: the exponential mechanism's log-softmax; exponential: permute-and-flip's closed form; Laplace: the
    composite quadrature of the module docstring (relative accuracy about 1e-12, in logarithms).

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite.
    epsilon : float
        Privacy parameter, finite and > 0.
    noise : {"gumbel", "laplace", "exponential"}, default "laplace"
        The noise distribution.
    sensitivity : float, default 1.0
        Delta, > 0.
    monotone : bool, default False
        Whether the scores are monotone (then the noise scale is ``Delta / epsilon``).

    Returns
    -------
    numpy.ndarray, shape (m,)
        ``ln P(r)`` for every candidate.

    Raises
    ------
    ValueError
        For invalid scores, epsilon or sensitivity not > 0, an unknown ``noise``, or (Laplace) m^2 above the
        allocation cap.
    TypeError
        If an argument has the wrong type.

    References
    ----------
    See the module's references: [DR14], [DKSSWXZ21].

    Examples
    --------
    >>> np.exp(noisy_max_log_probabilities([3.0, 2.0, 0.0], 1.0, "laplace")).round(4)
    array([0.5573, 0.3324, 0.1104])
    """
    u = _scores(scores)
    noise = check_choice("noise", noise, NOISES)
    if noise == "gumbel":
        return exponential_log_probabilities(u, epsilon, sensitivity, monotone=monotone)
    if noise == "exponential":
        return permute_and_flip_log_probabilities(u, epsilon, sensitivity, monotone=monotone)
    s = selection_scale(sensitivity, epsilon, monotone=monotone)
    check_elements(float(u.size) * u.size * _MESH.size * _NODES.size, "quadrature nodes x candidates",
                   candidates=u.size)
    return _laplace_log_win(_standardised(u, s))


def noisy_max_probabilities(scores: ArrayLike, epsilon: float, noise: str = "laplace", sensitivity: float = 1.0,
                            *, monotone: bool = False) -> np.ndarray:
    """Report-noisy-max's exact selection probabilities (see :func:`noisy_max_log_probabilities`).

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite.
    epsilon : float
        Privacy parameter, finite and > 0.
    noise : {"gumbel", "laplace", "exponential"}, default "laplace"
        The noise distribution.
    sensitivity : float, default 1.0
        Delta, > 0.
    monotone : bool, default False
        Whether the scores are monotone.

    Returns
    -------
    numpy.ndarray, shape (m,)
        The probabilities, summing to 1.

    Raises
    ------
    ValueError
        As :func:`noisy_max_log_probabilities`.
    TypeError
        If an argument has the wrong type.

    References
    ----------
    See the module's references: [DR14], [DKSSWXZ21].

    Examples
    --------
    >>> noisy_max_probabilities([3.0, 2.0, 0.0], 1.0, "exponential").round(4)
    array([0.6303, 0.2807, 0.089 ])
    """
    return _from_logs(noisy_max_log_probabilities(scores, epsilon, noise, sensitivity, monotone=monotone))


#: Largest spread (max - min score, in noise scales) that noisy_max_integral integrates.
_MAX_SPREAD = 1e4
_DISTRIBUTIONS = {"gumbel": stats.gumbel_r, "laplace": stats.laplace, "exponential": stats.expon}


def noisy_max_integral(scores: ArrayLike, epsilon: float, noise: str = "laplace", sensitivity: float = 1.0, *,
                       monotone: bool = False) -> np.ndarray:
    """``P(r wins) = int f_r(t) prod_{q != r} F_q(t) dt`` by :func:`scipy.integrate.quad`, for any noise.

    An independent computation of the probabilities :func:`noisy_max_probabilities` gets from closed forms and
    its own quadrature: scipy's adaptive quadrature of the integrand written with ``scipy.stats``' log density
    and log distribution function, scaled by its largest value on a grid, piece by piece between the scores
    (relative tolerance 1e-12).  Slow (about 0.1 s for ten candidates): for checking, not for explorers.

    Parameters
    ----------
    scores : array_like, shape (m,)
        The candidates' scores, finite; at most 64 candidates.
    epsilon : float
        Privacy parameter, finite and > 0.
    noise : {"gumbel", "laplace", "exponential"}, default "laplace"
        The noise distribution.
    sensitivity : float, default 1.0
        Delta, > 0.
    monotone : bool, default False
        Whether the scores are monotone.

    Returns
    -------
    numpy.ndarray, shape (m,)
        The probabilities (they sum to 1 within the quadrature's tolerance).

    Raises
    ------
    ValueError
        For invalid scores (or more than 64, or spread over more than 1e4 noise scales), epsilon or sensitivity
        not > 0, or an unknown ``noise``.
    TypeError
        If an argument has the wrong type.

    References
    ----------
    See the module's references: [DR14], [DKSSWXZ21].

    Examples
    --------
    >>> noisy_max_integral([3.0, 2.0, 0.0], 1.0, "gumbel").round(4)
    array([0.5465, 0.3315, 0.122 ])
    """
    u = _scores(scores)
    if u.size > 64:
        raise ValueError(f"scores has {u.size} candidates; noisy_max_integral takes at most 64 (use "
                         "noisy_max_probabilities)")
    noise = check_choice("noise", noise, NOISES)
    v = _standardised(u, selection_scale(sensitivity, epsilon, monotone=monotone))
    if not v.min() >= -_MAX_SPREAD:
        raise ValueError(f"scores, epsilon={epsilon!r} and sensitivity={sensitivity!r} spread the scores over "
                         f"{-v.min():.3g} noise scales; noisy_max_integral integrates at most {_MAX_SPREAD:g} (use "
                         "noisy_max_probabilities)")
    dist = _DISTRIBUTIONS[noise]
    ok = np.isfinite(v)
    vr = v[ok]
    top = float(vr.max())
    breaks = np.unique(np.concatenate([vr, [top + 40.0]]))
    if noise == "exponential":
        breaks = breaks[breaks >= top]        # every other noisy score is at least its own score: t >= max v = 0
    others = ~np.eye(vr.size, dtype=bool)

    def log_g(t: np.ndarray) -> np.ndarray:
        """ln of every candidate's integrand at each t: shape (len(t), m)."""
        rel = t[:, None] - vr[None, :]                                 # (t, q)
        with np.errstate(divide="ignore", over="ignore"):
            cdf = np.where(others[None], dist.logcdf(rel)[:, None, :], 0.0).sum(axis=2)   # (t, r): q != r
            return dist.logpdf(rel) + cdf

    grid = np.unique((breaks[:, None] + np.linspace(-40.0, 40.0, 321)[None, :]).ravel())
    if noise == "exponential":
        grid = grid[grid >= top]
    peak = log_g(grid).max(axis=0)                                     # each integrand's largest value on the grid
    # below the lower limit the integrand is 0 in floating point: exponential noise is >= 0, and with Gumbel noise the
    # best candidate's F(t - top) = exp(-e^{top - t}) < exp(-e^40) there; Laplace's left tail decays only as e^{m t}
    lower = breaks[0] if noise == "exponential" else top - 40.0 if noise == "gumbel" else -np.inf
    edges = [lower, *breaks[breaks > lower], np.inf]
    total = np.zeros(vr.size)
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        value, _ = integrate.quad_vec(  # type: ignore[call-overload]  # the stubs know scalar integrands only
            lambda t: np.exp(log_g(np.array([t]))[0] - peak), lo, hi, epsabs=1e-14, epsrel=1e-12, norm="max",
            limit=400)    # each integrand peaks at 1 and integrates to >~ 0.1, so 1e-14 keeps ~1e-13 relative
        total += value
    out = np.zeros(u.size)
    out[ok] = total * np.exp(peak)
    return out
