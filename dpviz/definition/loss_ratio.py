"""The privacy loss of an output: the log-ratio of its probabilities on two neighbouring datasets.

For a mechanism M and neighbours D, D', the privacy loss of an output o is

    L(o) = ln( P[M(D) = o] / P[M(D') = o] )

(densities for continuous outputs).  M is eps-DP exactly when ``|L(o)| <= eps`` for every output of every pair
of neighbours: then every *set* S of outputs has ``P[M(D) in S] <= e^eps P[M(D') in S]`` (sum or integrate
the pointwise bound), and conversely a single output is a set.  Randomized response has ``L = +-eps``; the
Laplace mechanism's loss is ``(|o - q(D')| - |o - q(D)|) / b``, between ``-eps`` and ``eps``; the Gaussian
mechanism's loss is linear in o, unbounded, so no eps bounds it (it is (eps, delta)-DP instead).

References
----------
- [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential Privacy." Foundations and Trends
  in TCS 9(3-4), 2014, Definition 2.4 and Section 3.5.1 (the privacy loss).
- [DMNS06] C. Dwork, F. McSherry, K. Nissim, A. Smith. "Calibrating Noise to Sensitivity in Private Data
  Analysis." TCC 2006.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpviz.mechanisms import laplace_scale
from dpviz.validation import check_array, check_positive, check_real

__all__ = ["privacy_loss", "tight_epsilon", "laplace_privacy_loss", "gaussian_privacy_loss"]

#: How far two output distributions' totals may differ from 1 (rounding of the pmfs) in :func:`tight_epsilon`.
PMF_TOLERANCE = 1e-9


def _probabilities(name: str, values: ArrayLike) -> np.ndarray:
    """Finite, non-negative probabilities (or densities) as a float array."""
    arr = check_array(name, values)
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be probabilities (>= 0), got {arr[arr < 0].ravel()[0]}")
    return arr


def privacy_loss(probabilities: ArrayLike, probabilities_prime: ArrayLike) -> np.ndarray:
    """The privacy loss ``ln(p / p')`` of each output, from its probabilities on D (``p``) and D' (``p'``).

    Parameters
    ----------
    probabilities : array_like
        ``P[M(D) = o]`` (or the density) at each output o; finite and >= 0.
    probabilities_prime : array_like
        ``P[M(D') = o]`` at the same outputs, same shape.

    Returns
    -------
    numpy.ndarray
        ``ln(p / p')`` per output: ``+inf`` where only D can produce o (such an output reveals D: no eps
        bounds it), ``-inf`` where only D' can, ``nan`` where neither can.

    Raises
    ------
    ValueError
        If an argument is empty, negative or non-finite, or the shapes differ.
    TypeError
        If an argument does not hold numbers.

    Examples
    --------
    >>> privacy_loss([0.75, 0.25], [0.25, 0.75]).round(4)      # randomized response at eps = ln 3
    array([ 1.0986, -1.0986])
    """
    return _log_ratio(("probabilities", probabilities), ("probabilities_prime", probabilities_prime))


def _log_ratio(first: tuple[str, ArrayLike], second: tuple[str, ArrayLike]) -> np.ndarray:
    """``ln(p / p')`` of two checked arrays of probabilities, each given with its parameter's name."""
    p, q = _probabilities(*first), _probabilities(*second)
    if p.shape != q.shape:
        raise ValueError(f"{first[0]} and {second[0]} must have the same shape, got {p.shape} and {q.shape}")
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(p) - np.log(q)


def tight_epsilon(pmf: ArrayLike, pmf_prime: ArrayLike) -> float:
    """The smallest eps with ``P[M(D) in S] <= e^eps P[M(D') in S]`` and the reverse, for every set S.

    For two discrete output distributions, the largest ratio over sets is attained by a single output (a
    ratio of sums is at most the largest ratio of its terms), so this is ``max |ln(p / p')|`` over the
    outputs either distribution can produce: ``inf`` if one of them can produce an output the other cannot.

    Parameters
    ----------
    pmf : array_like
        Output distribution on D: finite, >= 0, summing to 1 (within 1e-9).
    pmf_prime : array_like
        Output distribution on D', over the same outputs (same shape).

    Returns
    -------
    float
        The tight epsilon of this pair of neighbours (0 for identical distributions).

    Raises
    ------
    ValueError
        If an argument is empty, negative, non-finite or does not sum to 1, or the shapes differ.
    TypeError
        If an argument does not hold numbers.

    Examples
    --------
    >>> round(tight_epsilon([0.75, 0.25], [0.25, 0.75]), 4)     # ln 3
    1.0986
    >>> tight_epsilon([0.5, 0.5, 0.0], [0.5, 0.25, 0.25])        # the third output reveals D'
    inf
    """
    loss = _log_ratio(("pmf", pmf), ("pmf_prime", pmf_prime))
    for name, values in (("pmf", pmf), ("pmf_prime", pmf_prime)):
        total = float(np.sum(np.asarray(values, dtype=float)))
        if abs(total - 1.0) > PMF_TOLERANCE:
            raise ValueError(f"{name} must sum to 1 (a probability distribution), got a total of {total:.12g}")
    possible = ~np.isnan(loss)
    return float(np.max(np.abs(loss[possible]))) if np.any(possible) else 0.0


def laplace_privacy_loss(outputs: ArrayLike, answer: float, answer_prime: float, sensitivity: float,
                         epsilon: float) -> np.ndarray:
    """Privacy loss of the Laplace mechanism at each output: ``(|o - a'| - |o - a|) / b``.

    The mechanism releases ``a + Lap(b)`` on D and ``a' + Lap(b)`` on D', with ``b`` =
    :func:`dpviz.mechanisms.laplace_scale` ``(sensitivity, epsilon)``.  The loss is bounded by
    ``|a - a'| / b``, i.e. by eps when ``|a - a'| <= sensitivity``, and reaches that bound for every output
    beyond both answers.

    Parameters
    ----------
    outputs : array_like
        Output values o (any shape), finite.
    answer, answer_prime : float
        The true answers on D and D'.
    sensitivity : float
        L1 sensitivity the noise is calibrated to, finite and > 0.
    epsilon : float
        Privacy parameter, finite and > 0.

    Returns
    -------
    numpy.ndarray
        ``ln(density on D / density on D')`` at each output, same shape as ``outputs``.

    Raises
    ------
    ValueError
        If a value is non-finite or out of range, or the loss overflows (noise scale far too small).
    TypeError
        If an argument does not hold numbers.

    Examples
    --------
    >>> laplace_privacy_loss([-1.0, 0.5, 3.0], 0.0, 1.0, 1.0, 0.5)
    array([ 0.5,  0. , -0.5])
    """
    o = check_array("outputs", outputs)
    a, a_prime = check_real("answer", answer), check_real("answer_prime", answer_prime)
    b = laplace_scale(check_positive("sensitivity", sensitivity), epsilon)
    with np.errstate(over="ignore", invalid="ignore"):
        loss = (np.abs(o - a_prime) - np.abs(o - a)) / b
    if not np.all(np.isfinite(loss)):
        raise ValueError(f"answer={answer!r}, answer_prime={answer_prime!r}, sensitivity={sensitivity!r}, "
                         f"epsilon={epsilon!r}: the privacy loss overflows (answers or outputs too far apart for this "
                         f"noise; largest |outputs| = {np.max(np.abs(o)):.3g})")
    return loss


def gaussian_privacy_loss(outputs: ArrayLike, answer: float, answer_prime: float, sigma: float) -> np.ndarray:
    """Privacy loss of the Gaussian mechanism at each output: ``((o - a')^2 - (o - a)^2) / (2 sigma^2)``.

    Linear in o with slope ``(a - a') / sigma^2``: unbounded, so the Gaussian mechanism is not eps-DP for
    any eps.  It is (eps, delta)-DP with ``delta = E[(1 - e^(eps - L))_+]`` for the loss L on D: delta bounds
    the excess ``P[S] - e^eps P'[S]`` over every event S, and is smaller than ``P[L > eps]`` -- the loss
    exceeds eps more often than delta (lecture 01).

    Parameters
    ----------
    outputs : array_like
        Output values o (any shape), finite.
    answer, answer_prime : float
        The true answers on D and D'.
    sigma : float
        Standard deviation of the noise, finite and > 0 (e.g. from :func:`dpviz.mechanisms.gaussian_sigma`).

    Returns
    -------
    numpy.ndarray
        ``ln(density on D / density on D')`` at each output, same shape as ``outputs``.

    Raises
    ------
    ValueError
        If a value is non-finite or out of range, or the loss overflows (answers far apart, ``sigma`` tiny).
    TypeError
        If an argument does not hold numbers.

    Examples
    --------
    >>> gaussian_privacy_loss([-1.0, 0.5, 3.0], 0.0, 1.0, 1.0)
    array([ 1.5,  0. , -2.5])
    """
    o = check_array("outputs", outputs)
    a, a_prime = check_real("answer", answer), check_real("answer_prime", answer_prime)
    s = check_positive("sigma", sigma)
    with np.errstate(over="ignore", invalid="ignore"):
        loss = (a - a_prime) * (2.0 * o - a - a_prime) / (2.0 * s * s)
    if not np.all(np.isfinite(loss)):
        raise ValueError(f"answer={answer!r}, answer_prime={answer_prime!r}, sigma={sigma!r}: the privacy loss "
                         f"overflows (answers or outputs too far apart for this sigma; largest |outputs| = "
                         f"{np.max(np.abs(o)):.3g})")
    return loss
