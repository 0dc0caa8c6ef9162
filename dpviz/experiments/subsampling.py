"""Subsampling in the composition lecture: the privacy loss of a subsampled count, exact and simulated."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from dpviz.composition import amplified_epsilon, subsampled_count
from dpviz.mechanisms import laplace_scale
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_array, check_elements, check_epsilon, check_int, check_probability

__all__ = ["SubsamplingTails", "subsampling_tails"]


@dataclass(frozen=True)
class SubsamplingTails:
    """Tail probabilities of a subsampled Laplace count on neighbours D (m flagged rows) and D' (m + 1).

    ``exact`` and ``simulated`` hold ``ln(P[Y' > t] / P[Y > t])`` at each threshold t:
    the privacy loss of the event ``Y > t``, which rises towards ``bound`` as t grows.

    Attributes
    ----------
    epsilon, rate : float
        Epsilon of the count on the sample, and the sampling probability.
    flagged : int
        Flagged rows in D (D' has one more).
    thresholds : numpy.ndarray
        The thresholds t.
    tail, tail_prime : numpy.ndarray
        Exact ``P[Y > t]`` on D and ``P[Y' > t]`` on D'.
    exact : numpy.ndarray
        ``ln(tail_prime / tail)``.
    simulated_tail, simulated_tail_prime : numpy.ndarray
        The same tails estimated from ``samples`` runs each.
    simulated, stderr : numpy.ndarray
        The simulated log-ratio and its delta-method standard error (``nan`` where a tail was never hit).
    samples : int
        Simulated releases per dataset.
    bound : float
        ``amplified_epsilon(epsilon, rate)``: no event's loss exceeds it.
    """

    epsilon: float
    rate: float
    flagged: int
    thresholds: np.ndarray
    tail: np.ndarray
    tail_prime: np.ndarray
    exact: np.ndarray
    simulated_tail: np.ndarray
    simulated_tail_prime: np.ndarray
    simulated: np.ndarray
    stderr: np.ndarray
    samples: int
    bound: float


def _exceedances(y: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``(y[:, None] > t).mean(axis=0)`` without a (samples, t) table: y sorted once, one binary search per threshold.

    The number of samples above ``t_j`` is ``y.size`` minus the number at or below it, an exact integer, so
    dividing by ``y.size`` gives the very numbers the mean gives.  (Sorting 300,000 samples takes half the time
    of a binary search of each sample among the thresholds.)
    """
    at_or_below = np.searchsorted(np.sort(y), t, side="right")
    return (y.size - at_or_below) / y.size


def subsampling_tails(epsilon: float, rate: float, flagged: int = 10, thresholds: ArrayLike | None = None, *,
                      samples: int = 200_000, rng: RngLike = None) -> SubsamplingTails:
    """Privacy loss of the events ``Y > t`` for :func:`dpviz.composition.subsampled_count`, exact and simulated.

    D has ``flagged`` flagged rows and D' one more.  The exact tails sum the
    binomial sample sizes against the Laplace survival function; the simulated
    ones run the mechanism ``samples`` times on each.  The loss of every event is
    at most ``amplified_epsilon(epsilon, rate)`` and tends to it as t grows.

    Parameters
    ----------
    epsilon : float
        Epsilon of the count on the sample, finite and > 0.
    rate : float
        Sampling probability, in (0, 1].
    flagged : int, default 10
        Flagged rows in D, 0 <= flagged <= 10**6.
    thresholds : array_like, optional
        1-D finite thresholds t; by default 17 points from ``rate*flagged - 2/eps``
        to ``rate*flagged + 6/eps``, where the tails still get hits.
    samples : int
        Simulated releases per dataset, >= 2.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    SubsamplingTails
        Exact and simulated tails and log-ratios, the delta-method standard errors of
        the simulated log-ratios (``nan`` where a tail was never hit) and the bound.

    Raises
    ------
    ValueError
        If a parameter is out of range or the run is too large to allocate.
    TypeError
        If a parameter has the wrong type.

    References
    ----------
    Balle, Barthe & Gaboardi, NeurIPS 2018, Theorem 9.

    Examples
    --------
    >>> r = subsampling_tails(1.0, 0.2, 3, [0.0, 5.0], samples=2000, rng=0)
    >>> bool(r.exact[-1] <= r.bound)
    True
    """
    epsilon = check_epsilon(epsilon)
    rate = check_probability("rate", rate)
    flagged = check_int("flagged", flagged, minimum=0, maximum=10**6)
    if thresholds is None:
        thresholds = rate * flagged + np.linspace(-2.0, 6.0, 17) / epsilon
    t = check_array("thresholds", thresholds, ndim=1)
    samples = check_int("samples", samples, minimum=2)
    check_elements(2.0 * samples * max(t.size, 1), "samples x thresholds", samples=samples, thresholds=t.size)
    bound = amplified_epsilon(epsilon, rate)
    scale = laplace_scale(1.0, epsilon)

    def exact_tail(m: int) -> np.ndarray:
        j = np.arange(m + 1)
        pmf = stats.binom.pmf(j, m, rate)
        return (pmf[:, None] * stats.laplace.sf(t[None, :] - j[:, None], scale=scale)).sum(axis=0)

    tail, tail_p = exact_tail(flagged), exact_tail(flagged + 1)
    gen = as_generator(rng)
    y = subsampled_count(np.ones(flagged), epsilon, rate, rng=gen, size=samples)
    y_p = subsampled_count(np.ones(flagged + 1), epsilon, rate, rng=gen, size=samples)
    s, s_p = _exceedances(y, t), _exceedances(y_p, t)
    with np.errstate(divide="ignore", invalid="ignore"):
        sim = np.log(s_p / s)
        se = np.sqrt((1 - s) / (samples * s) + (1 - s_p) / (samples * s_p))
    hit = (s > 0) & (s_p > 0)
    sim = np.where(hit, sim, np.nan)
    se = np.where(hit, se, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        exact = np.log(tail_p / tail)
    # far out (t >= flagged + 1) both tails are sums of e^(-(t - j)/b) / 2, whose ratio does not depend on t; use
    # it where the tails underflow to 0 (0/0 would give NaN, not the loss, which tends to the bound)
    far = (t >= flagged + 1) & ~((tail > 0) & (tail_p > 0))
    if np.any(far):
        def log_far(m: int) -> float:
            j = np.arange(m + 1)
            return float(special.logsumexp(stats.binom.logpmf(j, m, rate) + j / scale))
        exact = np.where(far, log_far(flagged + 1) - log_far(flagged), exact)
    return SubsamplingTails(epsilon, rate, flagged, t, tail, tail_p, exact, s, s_p, sim, se, samples, bound)
