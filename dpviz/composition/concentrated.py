"""Rényi DP and zero-concentrated DP: privacy as a curve of divergences, which simply adds under composition.

A mechanism is (alpha, tau)-**Rényi DP** [Mir17]_ if the Rényi divergence of order alpha > 1 between its output
distributions on any neighbours is at most tau; its *RDP curve* is ``tau(alpha)`` over all orders.  It is
**rho-zCDP** [BS16]_ if ``tau(alpha) <= alpha rho`` for every alpha > 1.  Both compose by addition: k
mechanisms with curves ``tau_i`` have the curve ``sum_i tau_i``; k rho_i-zCDP mechanisms are ``(sum rho_i)``-zCDP.

* The Gaussian mechanism with L2 sensitivity D and noise sigma has ``tau(alpha) = alpha D^2 / (2 sigma^2)``:
  it is ``rho = D^2 / (2 sigma^2)``-zCDP (:func:`gaussian_rho`, [BS16]_ Prop. 1.6), and k releases are
  ``k rho``-zCDP -- exactly the Gaussian mechanism with ``sigma / sqrt(k)``.
* The Laplace mechanism (pure eps-DP) has Mironov's curve (:func:`laplace_rdp`, [Mir17]_ Table II); any eps-DP
  mechanism is ``eps^2 / 2``-zCDP (:func:`pure_dp_rho`, [BS16]_ Prop. 1.4).
* Back to (eps, delta): an (alpha, tau)-RDP mechanism is ``(tau + ln(1/delta)/(alpha - 1), delta)``-DP
  ([Mir17]_ Prop. 3); for rho-zCDP the best alpha gives ``eps = rho + 2 sqrt(rho ln(1/delta))`` ([BS16]_
  Prop. 1.3).  A tighter conversion, ``tau + ln((alpha - 1)/alpha) - (ln delta + ln alpha)/(alpha - 1)``
  ([CKS20]_ Prop. 12), is never worse at any order (both extra terms are negative).

Neighbours are add/remove-one, as everywhere in dpviz; the divergence bounds hold in both directions.

References
----------
.. [Mir17] I. Mironov. "Rényi Differential Privacy." IEEE CSF 2017.
.. [BS16] M. Bun, T. Steinke. "Concentrated Differential Privacy: Simplifications, Extensions, and Lower
   Bounds." TCC 2016.
.. [CKS20] C. L. Canonne, G. Kamath, T. Steinke. "The Discrete Gaussian for Differential Privacy." NeurIPS 2020,
   Proposition 12 (the conversion from Rényi DP to approximate DP).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize

from dpviz.validation import check_array, check_choice, check_delta, check_epsilon, check_positive

__all__ = ["ORDERS", "gaussian_rho", "pure_dp_rho", "zcdp_epsilon", "laplace_rdp", "gaussian_rdp", "rdp_epsilon",
           "CONVERSIONS"]

#: Rényi orders used when a curve is minimised over a grid: 1.001 ... 10^4 (log-spaced) and infinity.  Every
#: order gives a valid bound, so the minimum over any grid is valid; a finer grid can only lower it.
ORDERS = np.concatenate([1.0 + np.logspace(-3, 4, 300), [np.inf]])
#: The conversions from Rényi DP / zCDP to (eps, delta)-DP: Mironov's (for zCDP: Bun & Steinke's closed form) and
#: the tighter one of Canonne, Kamath & Steinke.
CONVERSIONS = ("mironov", "cks")


def gaussian_rho(sigma: float, l2_sensitivity: float = 1.0) -> float:
    """The zCDP parameter of the Gaussian mechanism: ``rho = l2_sensitivity^2 / (2 sigma^2)``.

    Parameters
    ----------
    sigma : float
        Standard deviation of the noise, finite and > 0.
    l2_sensitivity : float, default 1
        L2 sensitivity of the released vector, finite and > 0.

    Returns
    -------
    float
        rho; k releases with this sigma are ``k rho``-zCDP.

    Raises
    ------
    ValueError, TypeError
        If sigma or l2_sensitivity is not a finite number > 0, or rho underflows to 0.

    References
    ----------
    Bun & Steinke, TCC 2016, Proposition 1.6.

    Examples
    --------
    >>> gaussian_rho(10.0), gaussian_rho(2.0, l2_sensitivity=2.0)
    (0.005, 0.5)
    """
    s = check_positive("sigma", sigma)
    d = check_positive("l2_sensitivity", l2_sensitivity)
    ratio = d / s
    rho = 0.5 * ratio * ratio                  # a product, not ** 2: overflows to inf instead of raising
    if not 0 < rho < math.inf:
        raise ValueError(f"l2_sensitivity={d!r} and sigma={s!r} give rho={rho!r}: not a finite number > 0")
    return rho


def pure_dp_rho(epsilon: float) -> float:
    """The zCDP parameter every eps-DP mechanism has: ``rho = eps^2 / 2``.

    Parameters
    ----------
    epsilon : float
        Epsilon of the mechanism, finite and > 0.

    Returns
    -------
    float
        ``epsilon^2 / 2``.

    Raises
    ------
    ValueError, TypeError
        For an invalid epsilon, or one whose square overflows.

    References
    ----------
    Bun & Steinke, TCC 2016, Proposition 1.4.

    Examples
    --------
    >>> pure_dp_rho(0.1)
    0.005000000000000001
    """
    eps = check_epsilon(epsilon)
    rho = 0.5 * eps * eps
    if not math.isfinite(rho):
        raise ValueError(f"epsilon={epsilon!r}: epsilon^2 / 2 overflows a float")
    return rho


def _cks_terms(alpha: np.ndarray, log_delta: float) -> np.ndarray:
    """``ln((a - 1)/a) - (ln delta + ln a)/(a - 1)`` for orders a > 1 (0 at a = inf)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log1p(-1.0 / alpha) - (log_delta + np.log(alpha)) / (alpha - 1.0)
    return np.where(np.isinf(alpha), 0.0, out)


def _mironov_terms(alpha: np.ndarray, log_delta: float) -> np.ndarray:
    """``ln(1/delta) / (a - 1)`` for orders a > 1 (0 at a = inf)."""
    with np.errstate(divide="ignore"):
        return np.where(np.isinf(alpha), 0.0, -log_delta / (alpha - 1.0))


def zcdp_epsilon(rho: float, delta: float, conversion: str = "mironov") -> float:
    """The epsilon at delta of a rho-zCDP mechanism.

    ``"mironov"``: ``rho + 2 sqrt(rho ln(1/delta))`` (Bun & Steinke, Prop. 1.3: Mironov's conversion at its best
    order ``1 + sqrt(ln(1/delta)/rho)``).  ``"cks"``: ``min over alpha > 1`` of ``alpha rho + ln((alpha - 1)/alpha)
    - (ln delta + ln alpha)/(alpha - 1)`` (Canonne, Kamath & Steinke, Prop. 12), found by bounded minimisation;
    never larger.

    Parameters
    ----------
    rho : float
        The zCDP parameter, finite and > 0 (any size: rho is not a probability).
    delta : float
        In (0, 1).
    conversion : {"mironov", "cks"}
        Which conversion.

    Returns
    -------
    float
        epsilon >= 0 such that the mechanism is (epsilon, delta)-DP.

    Raises
    ------
    ValueError, TypeError
        For an invalid rho, delta or conversion.

    References
    ----------
    Bun & Steinke, TCC 2016, Prop. 1.3; Canonne, Kamath & Steinke, NeurIPS 2020, Prop. 12.

    Examples
    --------
    >>> round(zcdp_epsilon(0.25, 1e-5), 4), round(zcdp_epsilon(0.25, 1e-5, "cks"), 4)
    (3.6431, 3.189)
    """
    r = check_positive("rho", rho)
    dlt = check_delta(delta)
    check_choice("conversion", conversion, CONVERSIONS)
    log_delta = math.log(dlt)
    bs = r + 2.0 * math.sqrt(r * -log_delta)
    if conversion == "mironov":
        return bs

    def eps_at(t: float) -> float:            # t = ln(alpha - 1), stable for alpha close to 1 and far from it
        log_alpha = math.log1p(math.exp(t)) if t < 30 else t + math.log1p(math.exp(-t))
        return (1.0 + math.exp(t)) * r + (t - log_alpha) - (log_delta + log_alpha) * math.exp(-t)

    t_bs = 0.5 * math.log(-log_delta / r)      # the order at which Bun & Steinke's form is attained
    res = optimize.minimize_scalar(eps_at, bounds=(min(t_bs, 0.0) - 25.0, t_bs + 5.0), method="bounded",
                                   options={"xatol": 1e-9})
    best = min(float(res.fun), eps_at(t_bs), bs)
    return max(best, 0.0)


def _orders(alpha: ArrayLike, minimum_open: bool) -> np.ndarray:
    """Orders as a 0-d or 1-D float array, each > 1 (>= 1 if not ``minimum_open``); inf allowed."""
    a = check_array("alpha", alpha, ndim=(0, 1), finite=False)
    if np.any(np.isnan(a)):
        raise ValueError("alpha must hold Rényi orders, not NaN")
    bad = a <= 1 if minimum_open else a < 1
    if np.any(bad):
        raise ValueError(f"alpha must be {'>' if minimum_open else '>='} 1 (a Rényi order), got {a[bad].flat[0]!r}")
    return a


def laplace_rdp(alpha: ArrayLike, epsilon: float) -> np.ndarray:
    """Mironov's RDP curve of the Laplace mechanism that is eps-DP (noise scale = sensitivity / eps).

    For ``alpha > 1``: ``1/(alpha - 1) ln(alpha/(2 alpha - 1) e^((alpha - 1) eps) + (alpha - 1)/(2 alpha - 1)
    e^(-alpha eps))``; at ``alpha = 1`` the KL divergence ``eps + e^-eps - 1`` (the mean privacy loss); at
    ``alpha = inf``, eps.  Always below both ``alpha eps^2 / 2`` (zCDP of any eps-DP mechanism) and eps.

    Parameters
    ----------
    alpha : float or array_like
        Rényi order(s), each >= 1 (inf allowed), scalar or 1-D.
    epsilon : float
        The Laplace mechanism's epsilon, finite and > 0.

    Returns
    -------
    numpy.ndarray
        The divergence at each order (same shape as alpha).

    Raises
    ------
    ValueError, TypeError
        For an order below 1 or NaN, alpha of more than one dimension, or an invalid epsilon.

    References
    ----------
    Mironov, CSF 2017, Table II (Laplace mechanism).

    Examples
    --------
    >>> laplace_rdp([1.0, 2.0, np.inf], 1.0).round(4).tolist()
    [0.3679, 0.6191, 1.0]
    """
    a = _orders(alpha, minimum_open=False)
    eps = check_epsilon(epsilon)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_sum = np.logaddexp(np.log(a / (2 * a - 1)) + (a - 1) * eps, np.log((a - 1) / (2 * a - 1)) - a * eps)
        out = log_sum / (a - 1)
    out = np.where(a == 1, eps + math.expm1(-eps), out)
    out = np.where(np.isinf(a), eps, out)
    return np.clip(out, 0.0, eps)


def gaussian_rdp(alpha: ArrayLike, sigma: float, l2_sensitivity: float = 1.0) -> np.ndarray:
    """The RDP curve of the Gaussian mechanism: ``alpha l2_sensitivity^2 / (2 sigma^2)`` (a line: rho-zCDP).

    Parameters
    ----------
    alpha : float or array_like
        Rényi order(s), each >= 1 (inf gives inf), scalar or 1-D.
    sigma : float
        Standard deviation of the noise, finite and > 0.
    l2_sensitivity : float, default 1
        L2 sensitivity, finite and > 0.

    Returns
    -------
    numpy.ndarray
        The divergence at each order.

    Raises
    ------
    ValueError, TypeError
        For an invalid order, sigma or sensitivity.

    References
    ----------
    Mironov, CSF 2017, Table II; Bun & Steinke, TCC 2016, Prop. 1.6.

    Examples
    --------
    >>> gaussian_rdp([2.0, 10.0], 10.0).tolist()
    [0.01, 0.05]
    """
    a = _orders(alpha, minimum_open=False)
    return a * gaussian_rho(sigma, l2_sensitivity)


def rdp_epsilon(alpha: ArrayLike, rdp: ArrayLike, delta: float, conversion: str = "cks") -> float:
    """The epsilon at delta of a mechanism with RDP curve ``rdp`` at the orders ``alpha``: the best order wins.

    ``"mironov"``: ``min_alpha rdp(alpha) + ln(1/delta)/(alpha - 1)`` (Mironov, Prop. 3); ``"cks"``:
    ``min_alpha rdp(alpha) + ln((alpha - 1)/alpha) - (ln delta + ln alpha)/(alpha - 1)`` (Canonne, Kamath &
    Steinke, Prop. 12).  Each order gives a valid bound; at ``alpha = inf`` both give ``rdp(inf)`` (pure DP).

    Parameters
    ----------
    alpha : array_like
        Rényi orders, 1-D, each > 1 (inf allowed).
    rdp : array_like
        The divergence bound at each order (e.g. a composed curve, the sum of the releases' curves), >= 0.
    delta : float
        In (0, 1).
    conversion : {"cks", "mironov"}
        Which conversion.

    Returns
    -------
    float
        The smallest epsilon over the given orders (>= 0).

    Raises
    ------
    ValueError, TypeError
        For orders <= 1, curves of another shape or with negative or NaN values, an invalid delta or conversion.

    References
    ----------
    Mironov, CSF 2017, Prop. 3; Canonne, Kamath & Steinke, NeurIPS 2020, Prop. 12.

    Examples
    --------
    >>> a = ORDERS
    >>> round(rdp_epsilon(a, 100 * laplace_rdp(a, 0.1), 1e-6), 3)
    4.985
    """
    a = _orders(alpha, minimum_open=True)
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"alpha must be a non-empty 1-D array of orders, got shape {a.shape}")
    tau = check_array("rdp", rdp, ndim=1, finite=False)
    if tau.shape != a.shape:
        raise ValueError(f"rdp must give one value per order of alpha: {a.size} orders, got rdp of shape {tau.shape}")
    if np.any(np.isnan(tau)) or np.any(tau < 0):
        raise ValueError("rdp must hold divergences >= 0 (no NaN)")
    dlt = check_delta(delta)
    check_choice("conversion", conversion, CONVERSIONS)
    log_delta = math.log(dlt)
    extra = _cks_terms(a, log_delta) if conversion == "cks" else _mironov_terms(a, log_delta)
    with np.errstate(invalid="ignore"):
        eps = tau + extra
    eps = np.where(np.isnan(eps), np.inf, eps)
    return max(float(np.min(eps)), 0.0)
