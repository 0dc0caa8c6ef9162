"""The privacy-loss random variable, and why sequential composition adds: the losses of the releases add up.

For neighbours D, D' and a mechanism with output densities (or probabilities) p and q, the *privacy loss* of
an output y is ``L(y) = ln(p(y) / q(y))``, with y drawn from ``M(D)``.  Two facts make it the natural view of
composition [DR14]_ (Sec. 3.5):

* the exact (epsilon, delta) curve of a mechanism is a functional of the loss distribution alone:
  ``delta(eps) = E[(1 - e^(eps - L))_+]`` (:func:`dpviz.composition.loss_distribution.loss_delta`, inverted by
  :func:`dpviz.composition.loss_distribution.loss_epsilon`);
* k independent releases have density ``prod p_i / prod q_i``: their losses *add*, ``L = L_1 + ... + L_k``
  (adaptively chosen releases too, step by step).  A release that is eps-DP has ``|L_i| <= eps``, so the sum is at
  most ``k eps`` -- basic composition -- and the sum of k bounded terms concentrates around its mean, which is
  what advanced composition exploits.

For the Laplace mechanism on a count (sensitivity 1, scale ``b = 1/eps``; D' has one more record) the loss of one
release is ``L = (|y - 1| - |y|) / b`` with ``y ~ Lap(b)``: an atom at ``+eps`` (probability 1/2), an atom at
``-eps`` (probability ``e^-eps / 2``) and the density ``e^((l - eps)/2) / 4`` in between.  The two directions
(D, D') and (D', D) give the same loss distribution (reflect y about 1/2), so one suffices.

:func:`laplace_loss_distribution` puts the k-fold sum on a grid of step h by rounding each release's loss *up*
(or *down*) to the grid and convolving exactly by FFT [KJH20]_.  Rounding every term up can only raise the sum,
and both ``delta(eps)`` and every tail ``P[L > t]`` increase with the loss, so the "up" grid gives upper bounds and the
"down" grid lower bounds of the exact values: two numbers that bracket the truth, their gap shrinking with h.
The FFT itself is exact up to floating-point roundoff, about 1e-16 of the largest probability per grid point:
the bracket holds for deltas and tail probabilities well above that (1e-12 and up), not at the scale of the
extreme atoms (the top atom ``k eps`` has probability ``2^-k``).

References
----------
.. [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends in
   Theoretical Computer Science 9(3-4), 2014, Sec. 3.5 (the privacy loss, advanced composition).
.. [KJH20] A. Koskela, J. Jalko, A. Honkela. "Computing Tight Differential Privacy Guarantees Using FFT."
   AISTATS 2020 (composing privacy-loss distributions by FFT).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import fft

from dpviz.composition.loss_distribution import LossDistribution
from dpviz.mechanisms import laplace, laplace_scale
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_array,
    check_choice,
    check_elements,
    check_epsilon,
    check_int,
    check_positive,
)

__all__ = ["laplace_loss", "laplace_loss_moments", "laplace_loss_samples", "laplace_loss_distribution"]

#: Largest grid :func:`laplace_loss_distribution` builds (points of the k-fold sum).
MAX_GRID = 2**24


def laplace_loss(outputs: ArrayLike, epsilon: float) -> np.ndarray:
    """The privacy loss ``ln(p_D(y) / p_D'(y))`` of Laplace counts y: D's count is 0, D''s is 1 (sensitivity 1).

    Parameters
    ----------
    outputs : array_like
        Noisy counts released on D (true count 0), any shape.
    epsilon : float
        Epsilon of each release (noise ``Lap(1/epsilon)``), finite and > 0.

    Returns
    -------
    numpy.ndarray
        ``(|y - 1| - |y|) / b`` with ``b`` the Laplace scale: in ``[-epsilon, epsilon]``, same shape.

    Raises
    ------
    ValueError, TypeError
        If the outputs are not finite numbers or epsilon is invalid.

    Examples
    --------
    >>> laplace_loss([-3.0, 0.5, 4.0], 0.5).tolist()
    [0.5, 0.0, -0.5]
    """
    y = check_array("outputs", outputs)
    b = laplace_scale(1.0, check_epsilon(epsilon))
    return np.clip((np.abs(y - 1.0) - np.abs(y)) / b, -epsilon, epsilon)


def laplace_loss_moments(epsilon: float) -> tuple[float, float]:
    """Mean and variance of one Laplace count's privacy loss (k releases: k times each, the losses are independent).

    From the loss law (atoms ``+eps`` w.p. 1/2 and ``-eps`` w.p. ``e^-eps / 2``, density ``e^((l - eps)/2) / 4``
    between): the mean is the KL divergence ``eps + e^-eps - 1`` and ``E[L^2] = eps^2 - 2 h(eps)`` with
    ``h(eps) = (eps + 2) e^-eps - 2 + eps``, whose first three Taylor terms cancel; below eps = 0.5 it is summed
    from its series ``sum_{m >= 3} (-1)^(m+1) (m - 2) eps^m / m!`` so small epsilons lose no digits.

    Parameters
    ----------
    epsilon : float
        Epsilon of the release, finite and > 0.

    Returns
    -------
    tuple of float
        ``(mean, variance)``; for small eps about ``(eps^2 / 2, eps^2)``.

    Raises
    ------
    ValueError, TypeError
        For an invalid epsilon.

    Examples
    --------
    >>> m, v = laplace_loss_moments(0.1)
    >>> round(m, 6), round(v, 6)
    (0.004837, 0.009659)
    """
    eps = check_epsilon(epsilon)
    mean = eps + math.expm1(-eps)
    if eps > 20.0:
        # eps^2 - 2 h - mean^2 simplifies to 3 - (4 eps + 2) e^-eps - e^-2eps: the difference of squares loses
        # all digits for large eps (and overflows to inf - inf = NaN beyond eps ~ 1e154)
        tail = (4.0 * eps + 2.0) * math.exp(-eps) if eps < 800.0 else 0.0  # e^-800 is below the doubles
        return mean, 3.0 - tail - math.exp(-2.0 * eps)
    if eps < 0.5:
        term, h = eps**2 / 2, 0.0
        for m in range(3, 40):
            term *= eps / m                        # eps^m / m!
            h += (-1) ** (m + 1) * (m - 2) * term
    else:
        h = (eps + 2) * math.exp(-eps) - 2 + eps
    return mean, max(eps * eps - 2 * h - mean * mean, 0.0)


def laplace_loss_samples(epsilon: float, k: int, samples: int, *, rng: RngLike = None) -> np.ndarray:
    """Simulated total privacy loss of k Laplace counts: release k noisy counts on D, add their losses.

    Each run draws k releases ``0 + Lap(1/epsilon)`` (the noise from :func:`dpviz.mechanisms.laplace`) and returns
    ``sum_i laplace_loss(y_i)``.

    Parameters
    ----------
    epsilon : float
        Epsilon of each release, finite and > 0.
    k : int
        Number of releases composed, >= 1.
    samples : int
        Number of simulated runs, >= 1.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray
        ``samples`` total losses, each in ``[-k epsilon, k epsilon]``.

    Raises
    ------
    ValueError, TypeError
        For an invalid epsilon, k or samples, or ``k * samples`` above :data:`dpviz.validation.MAX_ELEMENTS`.

    Examples
    --------
    >>> tot = laplace_loss_samples(0.5, 4, 1000, rng=0)
    >>> tot.shape, bool(np.all(np.abs(tot) <= 2.0))
    ((1000,), True)
    """
    eps = check_epsilon(epsilon)
    k = check_int("k", k, minimum=1)
    samples = check_int("samples", samples, minimum=1)
    check_elements(float(k) * samples, "simulated releases (k x samples)", k=k, samples=samples)
    if not math.isfinite(k * eps):  # a total loss lies in [-k eps, k eps]
        raise ValueError(f"epsilon={eps!r} times k={k} overflows: the total loss of k releases lies in "
                         "[-k epsilon, k epsilon], which must be finite; lower epsilon or k")
    gen = as_generator(rng)
    out = np.empty(samples)
    chunk = max(1, 2**20 // k)   # at most ~1M noisy values in memory at a time
    for start in range(0, samples, chunk):
        n = min(chunk, samples - start)
        y = laplace(np.zeros(k), 1.0, eps, rng=gen, size=n)
        out[start:start + n] = laplace_loss(y, eps).sum(axis=1)
    return out


def _snap(x: float) -> float:
    """``x`` rounded to the nearest integer when within 1e-9 of it (so eps = 0.1 on a 1e-3 grid is 100 steps)."""
    r = round(x)
    return float(r) if abs(x - r) < 1e-9 * max(1.0, abs(x)) else x


def laplace_loss_distribution(epsilon: float, k: int = 1, *, step: float = 1e-3,
                              rounding: str = "up") -> LossDistribution:
    """The total privacy loss of k Laplace counts, on a grid of the given step, bracketing the exact law.

    One release's loss (see the module docstring) is rounded up (``"up"``) or down (``"down"``) to a multiple of
    ``step``; the k-fold sum of the rounded losses is then computed exactly by FFT.  Rounded up, every delta and
    tail probability computed from the result is an upper bound of the exact one; rounded down, a lower bound.

    Parameters
    ----------
    epsilon : float
        Epsilon of each release, finite and > 0.
    k : int, default 1
        Number of releases composed, >= 1.
    step : float, default 1e-3
        Grid step h, 0 < h <= epsilon (the bracket's width shrinks with it).
    rounding : {"up", "down"}
        Which way each release's loss is rounded.

    Returns
    -------
    LossDistribution
        Losses on the grid from about ``-k epsilon`` to ``k epsilon`` and their probabilities under D.

    Raises
    ------
    ValueError, TypeError
        For an invalid epsilon, k, step (above epsilon) or rounding, or a grid of more than :data:`MAX_GRID` points.

    References
    ----------
    Koskela, Jalko & Honkela, AISTATS 2020 (FFT composition of loss distributions).

    Examples
    --------
    >>> up = laplace_loss_distribution(0.5, 3, step=0.01)
    >>> lo = laplace_loss_distribution(0.5, 3, step=0.01, rounding="down")
    >>> bool(lo.mean <= 3 * (0.5 + np.exp(-0.5) - 1) <= up.mean), round(float(up.probs.sum()), 9)
    (True, 1.0)
    """
    eps = check_epsilon(epsilon)
    k = check_int("k", k, minimum=1)
    h = check_positive("step", step)
    if h > eps:
        raise ValueError(f"step={h!r} must be at most epsilon={eps!r}: a coarser grid cannot hold one release's loss "
                         "in [-epsilon, epsilon]")
    check_choice("rounding", rounding, ("up", "down"))
    snap = math.ceil if rounding == "up" else math.floor
    if not 2 * (eps / h) * float(k) + 1 <= MAX_GRID:  # checked before rounding: eps / h may overflow to inf
        raise ValueError(f"epsilon={eps!r}, k={k}, step={h!r} need a grid of {2 * (eps / h) * float(k) + 1:.3g} "
                         f"points, more than {MAX_GRID}: raise step or lower k")
    j_lo, j_hi = int(snap(_snap(-eps / h))), int(snap(_snap(eps / h)))
    width = j_hi - j_lo
    if not width * float(k) + 1 <= MAX_GRID:
        raise ValueError(f"epsilon={eps!r}, k={k}, step={h!r} need a grid of {width * float(k) + 1:.3g} points, "
                         f"more than {MAX_GRID}: raise step or lower k")
    # the continuous part: density e^((l - eps)/2) / 4 on (-eps, eps), CDF F(l) = (e^((l - eps)/2) - e^-eps) / 2
    edges = np.clip(np.arange(j_lo - 1, j_hi + 2) * h, -eps, eps)
    cdf = 0.5 * (np.exp((edges - eps) / 2) - math.exp(-eps))
    mass = np.diff(cdf)                                  # mass[i] on [edges[i], edges[i + 1]]
    # rounding up sends (g_{j-1}, g_j] to g_j; rounding down sends [g_j, g_{j+1}) to g_j
    cont = mass[:-1] if rounding == "up" else mass[1:]
    single = cont.copy()
    single[int(snap(_snap(eps / h))) - j_lo] += 0.5                  # the atom at +eps
    single[int(snap(_snap(-eps / h))) - j_lo] += 0.5 * math.exp(-eps)  # the atom at -eps
    n_out = width * k + 1
    if k == 1:
        probs = single
    else:
        n = fft.next_fast_len(n_out, real=True)
        probs = fft.irfft(fft.rfft(single, n) ** k, n)[:n_out]
        probs = np.clip(probs, 0.0, None)
    losses = (np.arange(n_out) + k * j_lo) * h
    keep = probs > 0
    return LossDistribution(losses[keep], probs[keep])
