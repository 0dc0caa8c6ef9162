"""Experiments for the composition lecture's second unit: how much k releases cost under each accounting.

:func:`composition_bounds` computes, for k releases of the Laplace or the Gaussian mechanism on a count (sensitivity
1) and a total delta', the total epsilon charged by each method -- basic and advanced composition, zCDP with Bun &
Steinke's and the tighter conversion, Laplace's own Rényi curve, the optimal composition of any eps-DP mechanisms,
and, for the Gaussian, the exact value -- on a grid of k and at one chosen k.  :func:`delta_prime_tradeoff` gives
advanced composition's total as delta' varies.  Data only: :mod:`dpviz.plots.composition_bounds` draws it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from dpviz.composition import (
    ORDERS,
    advanced_composition,
    advanced_crossover,
    basic_composition,
    gaussian_rho,
    laplace_rdp,
    optimal_composition,
    pure_dp_rho,
    rdp_epsilon,
    zcdp_epsilon,
)
from dpviz.mechanisms import gaussian_epsilon
from dpviz.validation import (
    blame,
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_positive,
)

__all__ = ["MECHANISMS", "METHODS", "CompositionBounds", "composition_bounds", "delta_prime_tradeoff", "renyi_curves"]

#: The mechanisms :func:`composition_bounds` composes.
MECHANISMS = ("laplace", "gaussian")
#: The accounting methods drawn for each mechanism, in the order of the legend.  The Gaussian's last is its exact
#: value; the Laplace mechanism has none here (the lecture brackets it on a grid: dpviz.composition.privacy_loss).
METHODS = {
    "laplace": ("basic", "advanced", "zCDP (Bun & Steinke)", "Rényi, Laplace's own curve",
                "optimal for any eps0-DP (Kairouz et al.)"),
    "gaussian": ("basic", "advanced", "zCDP (Bun & Steinke)", "zCDP, tight conversion (Canonne et al.)",
                 "exact (Gaussian with sigma / sqrt(k))"),
}
#: Largest k the experiment composes.
MAX_K = 100_000
#: The noise scales (Laplace b or Gaussian sigma, sensitivity 1) the experiment accepts: from eps0 = 1000 per
#: release down to eps0 = 1e-6.
SCALE_RANGE = (1e-3, 1e6)


@dataclass(frozen=True)
class CompositionBounds:
    """Total epsilon of k releases at a total delta', by accounting method, on a grid of k and at the chosen k.

    Attributes
    ----------
    mechanism : str
        "laplace" or "gaussian".
    scale : float
        The noise of each release: Laplace scale b (each release is ``1/b``-DP) or Gaussian sigma (rho-zCDP with
        ``rho = 1 / (2 sigma^2)``); sensitivity 1.
    epsilon0 : float
        Laplace: each release's epsilon ``1/b``.  Gaussian: each release's epsilon at ``delta' / k`` at the chosen k
        (what basic composition adds up).
    rho : float
        zCDP parameter of one release (Laplace: ``eps0^2 / 2``, any eps0-DP mechanism).
    delta_prime : float
        The total delta allowed.
    k : int
        The chosen number of releases.
    ks : numpy.ndarray
        The grid of k (log-spaced from 1 to ``k_max``; read-only, shared between calls).
    curves : dict of str to numpy.ndarray
        Method name -> total epsilon for each k of ``ks`` (keys as in :data:`METHODS`; read-only arrays).
    at_k : dict of str to float
        Method name -> total epsilon at k.
    crossover : int or None
        Laplace: the smallest k at which advanced composition charges less than basic (None if never, or for
        the Gaussian).
    """

    mechanism: str
    scale: float
    epsilon0: float
    rho: float
    delta_prime: float
    k: int
    ks: np.ndarray
    curves: dict[str, np.ndarray] = field(repr=False)
    at_k: dict[str, float]
    crossover: int | None


def _laplace_totals(eps0: float, k: int, dp: float) -> dict[str, float]:
    names = METHODS["laplace"]
    return {
        names[0]: basic_composition(eps0, k)[0],
        names[1]: advanced_composition(eps0, k, dp)[0],
        names[2]: zcdp_epsilon(k * pure_dp_rho(eps0), dp),
        names[3]: rdp_epsilon(ORDERS, k * laplace_rdp(ORDERS, eps0), dp),
        names[4]: optimal_composition(eps0, k, dp),
    }


def _gaussian_totals(sigma: float, k: int, dp: float) -> dict[str, float]:
    names = METHODS["gaussian"]
    rho = gaussian_rho(sigma)
    eps_basic = gaussian_epsilon(sigma, 1.0, dp / k)             # k releases of (eps, delta'/k): total delta'
    eps_adv = gaussian_epsilon(sigma, 1.0, dp / (2 * k))         # k x delta'/(2k) + the theorem's delta'/2
    return {
        names[0]: basic_composition(eps_basic, k)[0],
        names[1]: advanced_composition(eps_adv, k, dp / 2, delta=dp / (2 * k))[0],
        names[2]: zcdp_epsilon(k * rho, dp),
        names[3]: zcdp_epsilon(k * rho, dp, "cks"),
        names[4]: gaussian_epsilon(sigma / math.sqrt(k), 1.0, dp),
    }


def composition_bounds(mechanism: str, scale: float, k: int, delta_prime: float, *, k_max: int = 10_000,
                       points: int = 25) -> CompositionBounds:
    """The total epsilon of k Laplace or Gaussian releases at delta', by every accounting method.

    Laplace releases have scale b (each ``eps0 = 1/b``-DP); basic composition charges ``k eps0`` with delta 0.
    Gaussian releases have noise sigma; basic composition spends ``delta'/k`` per release, advanced composition
    ``delta'/(2k)`` per release and ``delta'/2`` for itself, so every method ends at the same total delta'.

    Parameters
    ----------
    mechanism : {"laplace", "gaussian"}
        Which mechanism is composed.
    scale : float
        Laplace scale b or Gaussian sigma of each release (sensitivity 1), in :data:`SCALE_RANGE`.
    k : int
        The chosen number of releases, 1 <= k <= :data:`MAX_K`.
    delta_prime : float
        The total delta, in (0, 1).
    k_max : int, default 10_000
        Largest k of the grid, 1 <= k_max <= :data:`MAX_K`.
    points : int, default 25
        Number of log-spaced grid points, 2 <= points <= 200.

    Returns
    -------
    CompositionBounds
        The curves over the grid and the values at k.

    Raises
    ------
    ValueError, TypeError
        For an unknown mechanism or an invalid scale, k, delta_prime, k_max or points; or a composed epsilon
        that overflows.

    Examples
    --------
    >>> r = composition_bounds("laplace", 10.0, 100, 1e-6)
    >>> round(r.at_k["basic"], 6), round(r.at_k["advanced"], 3), r.crossover
    (10.0, 6.308, 35)
    """
    check_choice("mechanism", mechanism, MECHANISMS)
    scale = check_positive("scale", scale)
    if not SCALE_RANGE[0] <= scale <= SCALE_RANGE[1]:
        raise ValueError(f"scale must lie in [{SCALE_RANGE[0]:g}, {SCALE_RANGE[1]:g}] (each release's Laplace b or "
                         f"Gaussian sigma, sensitivity 1), got {scale!r}")
    k = check_int("k", k, minimum=1, maximum=MAX_K)
    dp = check_delta(delta_prime, "delta_prime")
    k_max = check_int("k_max", k_max, minimum=1, maximum=MAX_K)
    points = check_int("points", points, minimum=2, maximum=200)
    ks, curves = _curves(mechanism, scale, dp, k_max, points)
    if mechanism == "laplace":
        eps0 = 1.0 / scale                      # Lap(b) on a count of sensitivity 1 is (1/b)-DP
        rho = pure_dp_rho(eps0)
        at_k = _laplace_totals(eps0, k, dp)
        crossover = advanced_crossover(eps0, dp)
    else:
        rho = gaussian_rho(scale)
        at_k = _gaussian_totals(scale, k, dp)
        eps0 = gaussian_epsilon(scale, 1.0, dp / k)
        crossover = None
    return CompositionBounds(mechanism=mechanism, scale=scale, epsilon0=eps0, rho=rho, delta_prime=dp, k=k, ks=ks,
                             curves=dict(curves), at_k=at_k, crossover=crossover)


@functools.lru_cache(maxsize=64)
def _curves(mechanism: str, scale: float, dp: float, k_max: int,
            points: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The curves over the grid of k, cached: moving k alone recomputes only the values at k (read-only arrays)."""
    ks = np.unique(np.round(np.logspace(0, math.log10(k_max), points))).astype(int)
    totals = ([_laplace_totals(1.0 / scale, int(n), dp) for n in ks] if mechanism == "laplace"
              else [_gaussian_totals(scale, int(n), dp) for n in ks])
    curves = {name: np.array([t[name] for t in totals]) for name in METHODS[mechanism]}
    for arr in (ks, *curves.values()):
        arr.flags.writeable = False
    return ks, curves


def delta_prime_tradeoff(epsilon: float, ks: ArrayLike, delta_primes: ArrayLike) -> dict[str, np.ndarray]:
    """Advanced composition's total epsilon for each k and delta' (rows: k, columns: delta'), beside basic's ``k eps``.

    Parameters
    ----------
    epsilon : float
        Epsilon of each mechanism, finite and > 0.
    ks : array_like of int
        Numbers of mechanisms, 1-D, each >= 1.
    delta_primes : array_like
        The delta' values, 1-D, each in (0, 1).

    Returns
    -------
    dict of str to numpy.ndarray
        ``{"k", "delta_prime", "advanced" (len(ks) x len(delta_primes)), "basic" (len(ks)), "optimal" (same shape
        as advanced: the exact best bound for any eps-DP mechanisms)}``.

    Raises
    ------
    ValueError, TypeError
        For an invalid epsilon, a k < 1 or not an integer, or a delta' outside (0, 1).

    Examples
    --------
    >>> t = delta_prime_tradeoff(0.1, [100], [1e-3, 1e-9])
    >>> t["advanced"].round(2).tolist(), t["basic"].tolist()
    ([[4.77, 7.49]], [10.0])
    """
    ks_arr = check_array("ks", ks, ndim=1)
    if ks_arr.size == 0 or np.any(ks_arr < 1) or np.any(ks_arr != np.round(ks_arr)):
        raise ValueError("ks must be a non-empty 1-D list of integers >= 1")
    dps = check_array("delta_primes", delta_primes, ndim=1)
    if dps.size == 0 or np.any((dps <= 0) | (dps >= 1)):
        raise ValueError("delta_primes must be a non-empty 1-D list of numbers in (0, 1)")
    ks_int = [check_int("ks", int(n), minimum=1, maximum=MAX_K) for n in ks_arr]
    adv = np.array([[advanced_composition(epsilon, n, float(d))[0] for d in dps] for n in ks_int])
    opt = np.array([[optimal_composition(epsilon, n, float(d)) for d in dps] for n in ks_int])
    basic = np.array([basic_composition(epsilon, n)[0] for n in ks_int])
    return {"k": np.array(ks_int), "delta_prime": dps, "advanced": adv, "basic": basic, "optimal": opt}


def renyi_curves(epsilon: float, orders: ArrayLike | None = None) -> dict[str, np.ndarray]:
    """The Laplace mechanism's Rényi curve beside the two simple bounds every eps-DP mechanism has.

    Parameters
    ----------
    epsilon : float
        The Laplace mechanism's epsilon, finite and > 0.
    orders : array_like, optional
        Rényi orders, 1-D, each >= 1 and finite (default: 60 log-spaced orders from 1 to 1000).

    Returns
    -------
    dict of str to numpy.ndarray
        ``{"alpha", "laplace" (Mironov's curve), "zcdp" (alpha eps^2 / 2), "pure" (eps at every order)}``.

    Raises
    ------
    ValueError, TypeError
        For an invalid epsilon or orders.

    Examples
    --------
    >>> c = renyi_curves(1.0, [1.0, 2.0])
    >>> c["laplace"].round(3).tolist(), c["zcdp"].tolist()
    ([0.368, 0.619], [0.5, 1.0])
    """
    eps = check_epsilon(epsilon)
    a = np.logspace(0, 3, 60) if orders is None else check_array("orders", orders, ndim=1)
    if a.size == 0:
        raise ValueError("orders must hold at least one Rényi order")
    with blame(orders=orders):  # laplace_rdp checks them as its alpha
        laplace = laplace_rdp(a, eps)
    return {"alpha": a, "laplace": laplace, "zcdp": a * pure_dp_rho(eps), "pure": np.full(a.shape, eps)}
