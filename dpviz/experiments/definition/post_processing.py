"""Post-processing: the exact privacy loss of a Laplace count after rounding, clamping or thresholding."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from dpviz.definition import privacy_loss, tight_epsilon
from dpviz.mechanisms import laplace, laplace_scale
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_elements, check_epsilon, check_int, check_real

__all__ = ["PostProcessing", "post_processing_losses"]


@dataclass(frozen=True)
class PostProcessing:
    """A Laplace count (sensitivity 1) on D (``count``) and D' (``count + 1``), post-processed two ways.

    ``rounded``: the noisy count rounded to the nearest integer and clamped to ``[0, top]`` (a count cannot be
    negative).  ``threshold``: only whether the noisy count is at least ``threshold``.

    Attributes
    ----------
    epsilon : float
        The Laplace mechanism's epsilon.
    count : int
        The count on D (D' has one more person).
    top : int
        Largest output of the rounded release.
    threshold : float
        The threshold of the yes/no release.
    outputs : numpy.ndarray
        The rounded outputs ``0, 1, ..., top``.
    pmf, pmf_prime : numpy.ndarray
        Exact probabilities of the rounded outputs on D and D'.
    loss : numpy.ndarray
        Their privacy loss per output.
    rounded_epsilon : float
        :func:`dpviz.definition.tight_epsilon` of the rounded release.
    threshold_pmf, threshold_pmf_prime : numpy.ndarray
        ``[P(below), P(at least threshold)]`` on D and D'.
    threshold_epsilon : float
        The tight epsilon of the yes/no release.
    simulated, simulated_prime : numpy.ndarray
        Simulated frequencies of the rounded outputs on D and D'.
    samples : int
        Simulated releases per dataset.
    """

    epsilon: float
    count: int
    top: int
    threshold: float
    outputs: np.ndarray
    pmf: np.ndarray
    pmf_prime: np.ndarray
    loss: np.ndarray
    rounded_epsilon: float
    threshold_pmf: np.ndarray
    threshold_pmf_prime: np.ndarray
    threshold_epsilon: float
    simulated: np.ndarray
    simulated_prime: np.ndarray
    samples: int


def _rounded_pmf(answer: float, scale: float, top: int) -> np.ndarray:
    """``P(clamp(round(answer + Lap(scale)), 0, top) = k)`` for k = 0..top."""
    cuts = stats.laplace.cdf(np.arange(top) + 0.5, loc=answer, scale=scale)     # P(y < k + 1/2)
    return np.diff(np.concatenate([[0.0], cuts, [1.0]]))


def post_processing_losses(epsilon: float, count: int = 3, *, top: int = 10, threshold: float | None = None,
                           samples: int = 100_000, rng: RngLike = None) -> PostProcessing:
    """Exact loss of a Laplace count after rounding-and-clamping and after thresholding, with a simulation.

    Whatever is done to the released value without looking at the data again, the loss between D and D'
    cannot exceed the raw release's ``epsilon``: rounding and clamping keep it at epsilon (the tails still
    attain it); a threshold between the two counts lowers it.

    Parameters
    ----------
    epsilon : float
        The Laplace mechanism's epsilon, finite and > 0.
    count : int, default 3
        The count on D, 0 <= count <= top - 1 (D' has ``count + 1``).
    top : int, default 10
        Largest rounded output, 1 <= top <= 10**5.
    threshold : float, optional
        The yes/no threshold; default ``count + 0.5``, halfway between the two counts.
    samples : int, default 100_000
        Simulated releases per dataset, >= 2.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    PostProcessing
        The exact distributions, their losses and tight epsilons, and the simulated frequencies.

    Raises
    ------
    ValueError
        If a parameter is out of range, the run is too large to allocate, or an output's probability underflows
        (epsilon far too small or too large).
    TypeError
        If a parameter has the wrong type.

    Examples
    --------
    >>> pp = post_processing_losses(1.0, samples=1000, rng=0)
    >>> round(pp.rounded_epsilon, 6), round(pp.threshold_epsilon, 4)
    (1.0, 0.8318)
    """
    epsilon = check_epsilon(epsilon)
    top = check_int("top", top, minimum=1, maximum=10**5)
    count = check_int("count", count, minimum=0, maximum=top - 1)
    t = count + 0.5 if threshold is None else check_real("threshold", threshold)
    samples = check_int("samples", samples, minimum=2)
    check_elements(2.0 * samples, "simulated releases", samples=samples)
    scale = laplace_scale(1.0, epsilon)
    a, a_p = float(count), float(count + 1)
    pmf, pmf_p = _rounded_pmf(a, scale, top), _rounded_pmf(a_p, scale, top)
    if np.any(pmf <= 0) or np.any(pmf_p <= 0):
        raise ValueError(f"epsilon={epsilon!r}: the probability of a rounded output underflows to 0 at this noise "
                         "scale (epsilon far too small or too large for floating point)")
    low, low_p = stats.laplace.cdf(t, loc=a, scale=scale), stats.laplace.cdf(t, loc=a_p, scale=scale)
    th, th_p = np.array([low, 1.0 - low]), np.array([low_p, 1.0 - low_p])
    gen = as_generator(rng)
    y = np.clip(np.round(laplace(np.array([a]), 1.0, epsilon, rng=gen, size=samples)[:, 0]), 0, top).astype(int)
    y_p = np.clip(np.round(laplace(np.array([a_p]), 1.0, epsilon, rng=gen, size=samples)[:, 0]), 0, top).astype(int)
    sim = np.bincount(y, minlength=top + 1) / samples
    sim_p = np.bincount(y_p, minlength=top + 1) / samples
    return PostProcessing(epsilon, count, top, t, np.arange(top + 1), pmf, pmf_p, privacy_loss(pmf, pmf_p),
                          tight_epsilon(pmf, pmf_p), th, th_p, tight_epsilon(th, th_p), sim, sim_p, samples)
