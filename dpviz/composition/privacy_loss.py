"""The privacy-loss random variable, and why sequential composition adds: the losses of the releases add up.

For neighbours D, D' and a mechanism with output densities (or probabilities) p and q, the *privacy loss* of
an output y is ``L(y) = ln(p(y) / q(y))``, with y drawn from ``M(D)``.  Two facts make it the natural view of
composition [DR14]_ (Sec. 3.5):

* the exact (epsilon, delta) curve of a mechanism is a functional of the loss distribution alone:
  ``delta(eps) = E[(1 - e^(eps - L))_+]`` (:func:`loss_delta`; :func:`loss_epsilon` inverts it);
* k independent releases have density ``prod p_i / prod q_i``: their losses *add*, ``L = L_1 + ... + L_k``
  (adaptively chosen releases too, step by step).  A release that is eps-DP has ``|L_i| <= eps``, so the sum is at
  most ``k eps`` -- basic composition -- and the sum of k bounded terms concentrates around its mean, which is
  what advanced composition exploits.

For the Laplace mechanism on a count (sensitivity 1, scale ``b = 1/eps``; D' has one more record) the loss of one
release is ``L = (|y - 1| - |y|) / b`` with ``y ~ Lap(b)``: an atom at ``+eps`` (probability 1/2), an atom at
``-eps`` (probability ``e^-eps / 2``) and the density ``e^((l - eps)/2) / 4`` in between.  The two directions
(D, D') and (D', D) give the same loss distribution (reflect y about 1/2), so one suffices.

:func:`laplace_loss_distribution` puts the k-fold sum on a grid of step h by rounding each release's loss *up*
(or *down*) to the grid and convolving exactly by FFT [KJH20]_.  Rounding every term up can only raise the sum, and both
``delta(eps)`` and every tail ``P[L > t]`` increase with the loss, so the "up" grid gives upper bounds and the
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
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import fft

from dpviz.mechanisms import laplace, laplace_scale
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_array,
    check_choice,
    check_delta,
    check_elements,
    check_epsilon,
    check_int,
    check_nonnegative,
    check_positive,
    check_real,
)

__all__ = ["LossDistribution", "laplace_loss", "laplace_loss_moments", "laplace_loss_samples",
           "laplace_loss_distribution", "loss_delta", "loss_epsilon", "loss_tail"]

#: Largest grid :func:`laplace_loss_distribution` builds (points of the k-fold sum).
MAX_GRID = 2**24


@dataclass(frozen=True)
class LossDistribution:
    """A discrete privacy-loss distribution: ``P[L = losses[i]] = probs[i]`` for outputs drawn under D.

    Parameters
    ----------
    losses : numpy.ndarray
        The loss values, strictly increasing, finite.
    probs : numpy.ndarray
        Their probabilities under D: >= 0, summing to at most 1 (mass missing from the sum is mass on outputs
        impossible under D', whose loss is +inf: it counts fully in every delta and tail).

    Raises
    ------
    ValueError
        If the arrays are not 1-D of the same length, the losses are not finite and increasing, or the
        probabilities are negative or sum to more than 1.

    Examples
    --------
    >>> d = LossDistribution(np.array([-1.0, 1.0]), np.array([0.25, 0.75]))
    >>> float(d.mean)
    0.5
    """

    losses: np.ndarray
    probs: np.ndarray

    def __post_init__(self) -> None:
        losses = check_array("losses", self.losses, ndim=1)
        probs = check_array("probs", self.probs, ndim=1)
        if losses.shape != probs.shape or losses.size == 0:
            raise ValueError(f"losses and probs must be non-empty and of the same length, got {losses.shape} and "
                             f"{probs.shape}")
        if losses.size > 1 and not np.all(np.diff(losses) > 0):
            raise ValueError("losses must be strictly increasing")
        if np.any(probs < 0) or probs.sum() > 1 + 1e-9:
            raise ValueError(f"probs must be >= 0 and sum to at most 1, got sum {probs.sum():.6g}")
        object.__setattr__(self, "losses", losses)
        object.__setattr__(self, "probs", probs)

    @property
    def mean(self) -> float:
        """The mean loss ``sum(probs * losses)`` (the KL divergence of M(D) from M(D') when probs sum to 1)."""
        return float(np.dot(self.probs, self.losses))


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


def _missing(dist: LossDistribution) -> float:
    """Probability of outputs impossible under D' (loss +inf): ``1 - sum(probs)``, ignoring rounding below 1e-12."""
    gap = 1.0 - float(dist.probs.sum())
    return gap if gap > 1e-12 else 0.0


def _suffix(dist: LossDistribution) -> tuple[np.ndarray, np.ndarray]:
    """``A[j] = sum_{i >= j} p_i`` and ``log B[j] = log sum_{i >= j} p_i e^(-L_i)`` (index n: empty sums)."""
    p, L = dist.probs, dist.losses
    with np.errstate(divide="ignore"):
        logq = np.log(p) - L
    a = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])
    log_b = np.concatenate([np.logaddexp.accumulate(logq[::-1])[::-1], [-np.inf]])
    return a + _missing(dist), log_b


def loss_delta(dist: LossDistribution, epsilon: float) -> float:
    """The exact delta at epsilon of a mechanism with this loss distribution: ``E[(1 - e^(eps - L))_+]``.

    Parameters
    ----------
    dist : LossDistribution
        The privacy-loss distribution (under D).
    epsilon : float
        Where delta is read, finite and >= 0.

    Returns
    -------
    float
        The smallest delta for which the pair (D, D') satisfies the (epsilon, delta) inequality.

    Raises
    ------
    ValueError, TypeError
        For an invalid epsilon or a ``dist`` that is not a :class:`LossDistribution`.

    References
    ----------
    Dwork & Roth 2014, Sec. 3.5.

    Examples
    --------
    >>> rr = LossDistribution(np.array([-1.0, 1.0]), np.array([1 / (1 + np.e), np.e / (1 + np.e)]))
    >>> round(loss_delta(rr, 0.0), 6), loss_delta(rr, 1.0)
    (0.462117, 0.0)
    """
    if not isinstance(dist, LossDistribution):
        raise TypeError(f"dist must be a LossDistribution, got {type(dist).__name__}")
    eps = check_nonnegative("epsilon", epsilon)
    above = dist.losses > eps
    return float(np.sum(dist.probs[above] * -np.expm1(eps - dist.losses[above]))) + _missing(dist)


def loss_epsilon(dist: LossDistribution, delta: float) -> float:
    """The smallest epsilon >= 0 with ``loss_delta(dist, epsilon) <= delta``, computed exactly (no root search).

    Between two consecutive loss values, ``delta(eps) = A - e^eps B`` with A and B sums over the larger losses, so
    the crossing is ``ln((A - delta) / B)`` on the right segment.

    Parameters
    ----------
    dist : LossDistribution
        The privacy-loss distribution (under D).
    delta : float
        The target delta, in [0, 1).

    Returns
    -------
    float
        The epsilon of the mechanism at this delta (0 when ``delta(0) <= delta``).

    Raises
    ------
    ValueError, TypeError
        For an invalid delta or a ``dist`` that is not a :class:`LossDistribution`; ValueError if no finite
        epsilon reaches delta (mass at loss +inf above delta).

    Examples
    --------
    >>> d = LossDistribution(np.array([-1.0, 1.0]), np.array([1 / (1 + np.e), np.e / (1 + np.e)]))
    >>> loss_epsilon(d, 0.0), round(loss_epsilon(d, 0.2), 6)
    (1.0, 0.680379)
    """
    if not isinstance(dist, LossDistribution):
        raise TypeError(f"dist must be a LossDistribution, got {type(dist).__name__}")
    dlt = check_delta(delta, allow_zero=True)
    missing = _missing(dist)
    if missing > dlt:
        raise ValueError(f"delta={delta!r} is below the mass {missing:.3g} on outputs impossible under D': no "
                         "epsilon reaches it")
    if loss_delta(dist, 0.0) <= dlt:
        return 0.0
    a, log_b = _suffix(dist)
    L = dist.losses
    # delta at each loss value L_j >= 0: the losses strictly above it are i >= j + 1
    with np.errstate(over="ignore"):
        at_grid = a[1:] - np.exp(np.minimum(L + log_b[1:], 0.0))
    ok = np.flatnonzero((L >= 0) & (at_grid <= dlt))
    j = int(ok[0])                 # first loss value where delta has dropped to the target (exists: delta(max L) = 0)
    # on (max(L_{j-1}, 0), L_j] the losses above eps are i >= j
    if a[j] - dlt <= 0:
        return float(L[j - 1]) if j > 0 else 0.0
    eps = math.log(a[j] - dlt) - float(log_b[j])
    lower = max(float(L[j - 1]), 0.0) if j > 0 else 0.0
    return float(min(max(eps, lower), L[j]))


def loss_tail(dist: LossDistribution, threshold: float) -> float:
    """``P[L > threshold]``: how often the privacy loss exceeds a level.

    Parameters
    ----------
    dist : LossDistribution
        The privacy-loss distribution (under D).
    threshold : float
        The level t, finite.

    Returns
    -------
    float
        The probability, under D, that the loss exceeds t.  ``delta(t) <= P[L > t]``: a loss that exceeds
        epsilon with probability at most delta gives (epsilon, delta)-DP.

    Raises
    ------
    ValueError, TypeError
        For a threshold that is not a finite number or a ``dist`` that is not a :class:`LossDistribution`.

    Examples
    --------
    >>> loss_tail(LossDistribution(np.array([-1.0, 1.0]), np.array([0.25, 0.75])), 0.0)
    0.75
    """
    if not isinstance(dist, LossDistribution):
        raise TypeError(f"dist must be a LossDistribution, got {type(dist).__name__}")
    t = check_real("threshold", threshold)
    return float(dist.probs[dist.losses > t].sum()) + _missing(dist)

