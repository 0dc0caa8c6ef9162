"""What the privacy-loss explorer shows: two output distributions on neighbours and their log-ratio, exact
and simulated, for randomized response, the Laplace mechanism and the Gaussian mechanism."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from dpviz.definition import (
    gaussian_privacy_loss,
    gaussian_total_variation,
    group_privacy,
    laplace_privacy_loss,
    laplace_total_variation,
    total_variation,
)
from dpviz.mechanisms import gaussian, gaussian_sigma, laplace, laplace_scale, randomized_response
from dpviz.mechanisms import randomized_response_probability as truth_probability
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_choice, check_delta, check_elements, check_epsilon, check_int

__all__ = ["LOSS_MECHANISMS", "PrivacyLossView", "privacy_loss_view"]

#: The mechanisms the explorer compares.
LOSS_MECHANISMS = ("randomized response", "Laplace", "Gaussian")
#: Fewest hits a bin needs on both datasets for its simulated loss to be shown.
MIN_HITS = 10


@dataclass(frozen=True)
class PrivacyLossView:
    """Output distributions of one mechanism on neighbours D and D', their privacy loss, exact and simulated.

    D and D' differ by ``group`` people: for the Laplace and Gaussian mechanisms D' adds ``group`` people to
    a count of ``count``; for randomized response D has ``group`` people answering "yes" and D' the same
    people answering "no", and the output is how many of them report "yes".

    Attributes
    ----------
    mechanism : str
        One of :data:`LOSS_MECHANISMS`.
    epsilon : float
        The mechanism's epsilon for one person.
    group : int
        How many people D and D' differ by.
    delta : float
        The Gaussian mechanism's delta (0 for the other two).
    scale : float
        The noise's scale: Laplace b, Gaussian sigma, randomized response's truth probability p.
    answer, answer_prime : float
        The true answers on D and D' (randomized response: the number of "yes" answers).
    outputs : numpy.ndarray
        Where the exact curves are evaluated (randomized response: the possible outputs 0..group).
    density, density_prime : numpy.ndarray
        Exact probability (randomized response) or density at ``outputs`` on D and D'.
    loss : numpy.ndarray
        Exact privacy loss ``ln(density / density_prime)`` at ``outputs``.
    bin_centres : numpy.ndarray
        Centres of the bins the simulated outputs are counted in (randomized response: the outputs).
    bin_width : float
        Width of a bin (1 for randomized response).
    exact_bin, exact_bin_prime : numpy.ndarray
        Exact probability of each bin on D and D'.
    simulated_bin, simulated_bin_prime : numpy.ndarray
        Simulated frequency of each bin on D and D'.
    simulated_loss, stderr : numpy.ndarray
        ``ln(simulated_bin / simulated_bin_prime)`` and its delta-method standard error (NaN where a bin
        has fewer than :data:`MIN_HITS` hits on either dataset).
    exact_bin_loss : numpy.ndarray
        The exact loss of each bin as an event (an average of the pointwise loss: never beyond it).
    bound : float
        ``group * epsilon``: the bound differential privacy puts on the loss between these neighbours.
    total_variation : float
        Exact total variation distance between the two output distributions (the best test's advantage).
    tail_probability : float
        Exact ``P[|loss| > bound]`` for an output of M(D): 0 for randomized response and Laplace, positive
        for Gaussian.
    simulated_tail_probability : float
        The same, estimated from the simulated outputs on D.
    samples : int
        Simulated releases per dataset.
    """

    mechanism: str
    epsilon: float
    group: int
    delta: float
    scale: float
    answer: float
    answer_prime: float
    outputs: np.ndarray
    density: np.ndarray
    density_prime: np.ndarray
    loss: np.ndarray
    bin_centres: np.ndarray
    bin_width: float
    exact_bin: np.ndarray
    exact_bin_prime: np.ndarray
    simulated_bin: np.ndarray
    simulated_bin_prime: np.ndarray
    simulated_loss: np.ndarray
    stderr: np.ndarray
    exact_bin_loss: np.ndarray
    bound: float
    total_variation: float
    tail_probability: float
    simulated_tail_probability: float
    samples: int

    @property
    def max_abs_loss(self) -> float:
        """The largest ``|loss|`` on the plotted outputs (for the Gaussian mechanism it grows with the range)."""
        return float(np.max(np.abs(self.loss)))


def _simulated_loss(freq: np.ndarray, freq_prime: np.ndarray, hits: np.ndarray, hits_prime: np.ndarray,
                    samples: int) -> tuple[np.ndarray, np.ndarray]:
    """``ln(f / f')`` per bin with its delta-method standard error, NaN where a bin has too few hits."""
    ok = (hits >= MIN_HITS) & (hits_prime >= MIN_HITS)
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.log(freq) - np.log(freq_prime)
        se = np.sqrt((1 - freq) / (samples * freq) + (1 - freq_prime) / (samples * freq_prime))
    return np.where(ok, loss, np.nan), np.where(ok, se, np.nan)


def privacy_loss_view(mechanism: str, epsilon: float, *, group: int = 1, delta: float = 1e-5, count: int = 5,
                      samples: int = 100_000, bins: int = 40, rng: RngLike = None) -> PrivacyLossView:
    """The two output distributions of ``mechanism`` on neighbours and their privacy loss, exact and simulated.

    Randomized response: ``group`` people answer "yes" in D and "no" in D'; the output is how many report
    "yes" (Binomial(group, p) against Binomial(group, 1 - p)), whose loss ``(2j - group) eps`` stays within
    ``+-group eps``.  Laplace (sensitivity 1): a count of ``count`` in D and ``count + group`` in D'; the loss
    stays within ``+-group eps`` and reaches it beyond both counts.  Gaussian (L2 sensitivity 1, analytic
    calibration for ``(epsilon, delta)``): the loss is a straight line and exceeds ``group eps`` on outputs of
    small probability (``tail_probability``).  The simulated outputs are counted in ``bins`` bins spanning
    the plotted range: 5 noise scales beyond the counts for Laplace; for Gaussian at least 3.5 sigma, and far
    enough for the loss to reach 1.5 times the bound.

    Parameters
    ----------
    mechanism : {"randomized response", "Laplace", "Gaussian"}
        The mechanism (:data:`LOSS_MECHANISMS`).
    epsilon : float
        Its epsilon for one person, finite and > 0 (at most about 36.7 for randomized response).
    group : int, default 1
        How many people D and D' differ by, 1 <= group <= 100.
    delta : float, default 1e-5
        The Gaussian mechanism's delta, in (0, 1) (unused by the other two).
    count : int, default 5
        The count on D (Laplace and Gaussian), 0 <= count <= 10**6.
    samples : int, default 100_000
        Simulated releases per dataset, >= 100.
    bins : int, default 40
        Bins of the simulated outputs (Laplace and Gaussian), 4 <= bins <= 1000.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    PrivacyLossView
        Exact and simulated distributions and losses.

    Raises
    ------
    ValueError
        If a parameter is out of range or the run is too large to allocate.
    TypeError
        If a parameter has the wrong type.

    Examples
    --------
    >>> v = privacy_loss_view("Laplace", 1.0, samples=20_000, rng=0)
    >>> round(float(v.loss.max()), 6), v.bound
    (1.0, 1.0)
    """
    mechanism = check_choice("mechanism", mechanism, LOSS_MECHANISMS)
    epsilon = check_epsilon(epsilon)
    k = check_int("group", group, minimum=1, maximum=100)
    delta = check_delta(delta)
    count = check_int("count", count, minimum=0, maximum=10**6)
    samples = check_int("samples", samples, minimum=100)
    bins = check_int("bins", bins, minimum=4, maximum=1000)
    check_elements(2.0 * samples * (k if mechanism == "randomized response" else 1), "simulated outputs",
                   samples=samples, group=k)
    bound = group_privacy(epsilon, k)[0]
    gen = as_generator(rng)
    if mechanism == "randomized response":
        p = truth_probability(epsilon)
        outputs = np.arange(k + 1, dtype=float)
        dens, dens_p = stats.binom.pmf(outputs, k, p), stats.binom.pmf(outputs, k, 1.0 - p)
        loss = (2.0 * outputs - k) * epsilon
        hits = np.bincount(randomized_response(np.ones(k, dtype=int), epsilon, rng=gen, size=samples).sum(axis=1),
                           minlength=k + 1)
        hits_p = np.bincount(randomized_response(np.zeros(k, dtype=int), epsilon, rng=gen, size=samples).sum(axis=1),
                             minlength=k + 1)
        freq, freq_p = hits / samples, hits_p / samples
        sim_loss, se = _simulated_loss(freq, freq_p, hits, hits_p, samples)
        return PrivacyLossView(mechanism, epsilon, k, 0.0, p, float(k), 0.0, outputs, dens, dens_p, loss, outputs,
                               1.0, dens, dens_p, freq, freq_p, sim_loss, se, loss.copy(), bound,
                               total_variation(dens, dens_p), 0.0, 0.0, samples)
    a, a_p = float(count), float(count + k)
    if mechanism == "Laplace":
        scale = laplace_scale(1.0, epsilon)
        dist, dist_p = stats.laplace(loc=a, scale=scale), stats.laplace(loc=a_p, scale=scale)
        reach = 5.0 * scale
        y = laplace(np.array([a]), 1.0, epsilon, rng=gen, size=samples)[:, 0]
        y_p = laplace(np.array([a_p]), 1.0, epsilon, rng=gen, size=samples)[:, 0]
        tv, tail, sim_tail = laplace_total_variation(k, 1.0, epsilon), 0.0, 0.0
    else:
        scale = gaussian_sigma(1.0, epsilon, delta)
        dist, dist_p = stats.norm(loc=a, scale=scale), stats.norm(loc=a_p, scale=scale)
        # wide enough for the straight loss line to pass 1.5 x the bound on the left (the loss at a - r is
        # k (k + 2r) / (2 sigma^2)), and at least 3.5 sigma
        reach = max(3.5 * scale, 1.5 * bound * scale * scale / k - 0.5 * k)
        y = gaussian(np.array([a]), 1.0, epsilon, delta, rng=gen, size=samples)[:, 0]
        y_p = gaussian(np.array([a_p]), 1.0, epsilon, delta, rng=gen, size=samples)[:, 0]
        tv = gaussian_total_variation(k, scale)
        # under D the loss is N(mu, 2 mu) with mu = k^2 / (2 sigma^2) (it is linear in a Gaussian output)
        mu = k * k / (2.0 * scale * scale)
        tail = float(stats.norm.sf(bound, loc=mu, scale=np.sqrt(2.0 * mu))
                     + stats.norm.cdf(-bound, loc=mu, scale=np.sqrt(2.0 * mu)))
        sim_tail = float(np.mean(np.abs(gaussian_privacy_loss(y, a, a_p, scale)) > bound))
    edges = np.linspace(a - reach, a_p + reach, bins + 1)
    outputs = np.linspace(edges[0], edges[-1], 801)
    dens, dens_p = dist.pdf(outputs), dist_p.pdf(outputs)
    loss = (laplace_privacy_loss(outputs, a, a_p, 1.0, epsilon) if mechanism == "Laplace"
            else gaussian_privacy_loss(outputs, a, a_p, scale))
    exact_bin, exact_bin_p = np.diff(dist.cdf(edges)), np.diff(dist_p.cdf(edges))
    hits, hits_p = np.histogram(y, edges)[0], np.histogram(y_p, edges)[0]
    freq, freq_p = hits / samples, hits_p / samples
    sim_loss, se = _simulated_loss(freq, freq_p, hits, hits_p, samples)
    with np.errstate(divide="ignore", invalid="ignore"):
        bin_loss = np.log(exact_bin) - np.log(exact_bin_p)
    return PrivacyLossView(mechanism, epsilon, k, delta if mechanism == "Gaussian" else 0.0, scale, a, a_p, outputs,
                           dens, dens_p, loss, 0.5 * (edges[1:] + edges[:-1]), float(edges[1] - edges[0]), exact_bin,
                           exact_bin_p, freq, freq_p, sim_loss, se, bin_loss, bound, tv, tail, sim_tail, samples)
