"""The privacy-loss view of sequential composition: the total loss of k Laplace counts, exact and simulated."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpviz.composition import (
    LossDistribution,
    advanced_composition,
    basic_composition,
    laplace_loss_distribution,
    laplace_loss_samples,
    laplace_rdp,
    loss_epsilon,
    loss_tail,
)
from dpviz.rng import RngLike
from dpviz.validation import check_delta, check_epsilon, check_int, check_positive

__all__ = ["PrivacyLossView", "privacy_loss_view"]


@dataclass(frozen=True)
class PrivacyLossView:
    """The total privacy loss of k Laplace counts (each eps-DP): its law on a grid, a simulation, and the bounds.

    ``exact_low`` / ``exact_high`` are the loss law with each release's loss rounded down / up to the grid: every
    probability of a tail, and every delta, computed from them brackets the exact value.

    Attributes
    ----------
    epsilon : float
        Epsilon of each release.
    k : int
        Number of releases.
    delta_prime : float
        The delta at which the totals are read.
    exact_low, exact_high : LossDistribution
        The k-fold loss on the grid (rounded down, rounded up).
    simulated : numpy.ndarray
        Simulated total losses (k releases each run).
    edges : numpy.ndarray
        Histogram bin edges shared by the exact and simulated histograms.
    exact_hist, simulated_hist : numpy.ndarray
        Probability of each bin: exact (from ``exact_high``; the grid's rounding moves mass by at most one step),
        and the simulated frequency.
    mean : float
        The exact mean ``k (eps + e^-eps - 1)`` (k times the KL divergence, Laplace's Rényi curve at order 1).
    basic : float
        ``k eps``: the largest loss, basic composition's total.
    top_probability : float
        ``P[L = k eps] = 2^-k``: every release at its largest loss (exact: each is so with probability 1/2).
    advanced : float
        Advanced composition's total at delta'.
    tail_at_advanced : tuple of float
        ``P[L > advanced]``, bracketed (low, high): at most delta', as the theorem's proof shows.
    epsilon_exact : tuple of float
        The exact epsilon of the k releases at delta', bracketed (low, high).
    step : float
        The grid step.
    """

    epsilon: float
    k: int
    delta_prime: float
    exact_low: LossDistribution
    exact_high: LossDistribution
    simulated: np.ndarray
    edges: np.ndarray
    exact_hist: np.ndarray
    simulated_hist: np.ndarray
    mean: float
    basic: float
    top_probability: float
    advanced: float
    tail_at_advanced: tuple[float, float]
    epsilon_exact: tuple[float, float]
    step: float


def privacy_loss_view(epsilon: float, k: int, delta_prime: float = 1e-6, *, samples: int = 100_000,
                      step: float = 1e-3, bins: int = 60, rng: RngLike = None) -> PrivacyLossView:
    """The total privacy loss of k Laplace counts: exact law (bracketed on a grid), a simulation and the bounds.

    Parameters
    ----------
    epsilon : float
        Epsilon of each release, finite and > 0.
    k : int
        Number of releases, 1 <= k <= 10_000.
    delta_prime : float, default 1e-6
        Where advanced composition and the exact epsilon are read, in (0, 1).
    samples : int, default 100_000
        Simulated runs (each draws k noisy counts), >= 1.
    step : float, default 1e-3
        Grid step of the exact law, 0 < step <= epsilon.
    bins : int, default 60
        Histogram bins between the 0.01 % and 99.99 % points of the exact law, 5 <= bins <= 1000.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness of the simulation.

    Returns
    -------
    PrivacyLossView
        The law, the simulation and the bounds.

    Raises
    ------
    ValueError, TypeError
        For an invalid parameter, or a grid or simulation too large.

    Examples
    --------
    >>> v = privacy_loss_view(0.1, 100, samples=2000, rng=0)
    >>> v.basic, round(v.mean, 4), v.epsilon_exact[0] < v.advanced < v.basic
    (10.0, 0.4837, True)
    """
    eps = check_epsilon(epsilon)
    k = check_int("k", k, minimum=1, maximum=10_000)
    dp = check_delta(delta_prime, "delta_prime")
    samples = check_int("samples", samples, minimum=1)
    h = check_positive("step", step)
    bins = check_int("bins", bins, minimum=5, maximum=1000)
    low = laplace_loss_distribution(eps, k, step=h, rounding="down")
    high = laplace_loss_distribution(eps, k, step=h, rounding="up")
    sim = laplace_loss_samples(eps, k, samples, rng=rng)
    cdf = np.cumsum(high.probs)
    lo_edge = float(high.losses[int(np.searchsorted(cdf, 1e-4))])
    hi_edge = float(high.losses[min(int(np.searchsorted(cdf, 1 - 1e-4)), high.losses.size - 1)])
    edges = np.linspace(lo_edge, max(hi_edge, lo_edge + h), bins + 1)
    exact_hist = np.histogram(high.losses, edges, weights=high.probs)[0]
    sim_hist = np.histogram(sim, edges)[0] / sim.size
    adv = advanced_composition(eps, k, dp)[0]
    return PrivacyLossView(
        epsilon=eps, k=k, delta_prime=dp, exact_low=low, exact_high=high, simulated=sim, edges=edges,
        exact_hist=exact_hist, simulated_hist=sim_hist, mean=k * float(laplace_rdp(1.0, eps)),
        basic=basic_composition(eps, k)[0], top_probability=0.5**k, advanced=adv,
        tail_at_advanced=(loss_tail(low, adv), loss_tail(high, adv)),
        epsilon_exact=(loss_epsilon(low, dp), loss_epsilon(high, dp)), step=h)
