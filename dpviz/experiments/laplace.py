"""Experiments for the Laplace-mechanism lecture: simulated releases beside the theoretical band."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpviz.datasets import load
from dpviz.experiments import TrialSummary, check_band, summarize
from dpviz.mechanisms import (
    epsilon_for_laplace_halfwidth,
    laplace,
    laplace_quantile,
    laplace_scale,
    laplace_variance,
)
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    MAX_MAGNITUDE,
    check_array,
    check_elements,
    check_epsilon,
    check_int,
    check_nonnegative,
    check_positive,
)

__all__ = ["LaplaceExperiment", "laplace_experiment", "laplace_error_curve", "laplace_explorer_run",
           "cps_oldest_by_marital"]


@dataclass(frozen=True)
class LaplaceExperiment:
    """One noisy release, a Monte Carlo summary and the theoretical band of the Laplace mechanism.

    Attributes
    ----------
    epsilon : float
        The privacy parameter used.
    sensitivity : float
        The L1 sensitivity used.
    release : numpy.ndarray
        One noisy release of the m answers (the first one drawn).
    summary : TrialSummary
        Statistics of all simulated releases against the truth.
    theory_lower, theory_upper : numpy.ndarray
        Truth plus the Laplace quantile at each band percentile: the theoretical band.
    theory_variance : float
        ``2 (sensitivity / epsilon)^2``, the variance of each noisy answer.
    """

    epsilon: float
    sensitivity: float
    release: np.ndarray
    summary: TrialSummary
    theory_lower: np.ndarray
    theory_upper: np.ndarray
    theory_variance: float

    @property
    def noise_scale(self) -> float:
        """The scale ``b = sensitivity / epsilon`` of the noise, from :func:`dpviz.mechanisms.laplace_scale`."""
        return laplace_scale(self.sensitivity, self.epsilon)

    @property
    def simulated_variance(self) -> float:
        """The simulated noise variance, averaged over the queries (compare with ``theory_variance``)."""
        return float(np.mean(self.summary.variance))

    @property
    def simulated_upper_halfwidth(self) -> float:
        """Mean over queries of (upper band edge - mean) of the simulated answers."""
        return float(np.mean(self.summary.upper - self.summary.mean))


def laplace_experiment(truth: ArrayLike, sensitivity: float, epsilon: float, trials: int, *,
                       rng: RngLike = None, band: Iterable[float] = (5.0, 95.0)) -> LaplaceExperiment:
    """Run ``trials`` Laplace releases of ``truth`` and put the theoretical band beside the simulated one.

    The theoretical band of query i is ``truth_i + F^{-1}(p)`` for the two band
    percentiles p, with ``F^{-1}`` the Laplace quantile function of scale
    ``sensitivity / epsilon`` (Dwork et al. TCC 2006); the theoretical variance
    is ``2 (sensitivity/epsilon)^2``.  The first release drawn is returned as
    "one noisy release".

    Parameters
    ----------
    truth : array_like
        The m true answers (1-D).
    sensitivity : float
        L1 sensitivity of the answers, >= 0.
    epsilon : float
        Privacy parameter, finite and > 0.
    trials : int
        Number of simulated releases, >= 2.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    band : pair of float, default (5, 95)
        Percentiles of the central band.

    Returns
    -------
    LaplaceExperiment
        The release, the simulated summary and the theoretical band and variance.

    Raises
    ------
    ValueError, TypeError
        For an invalid parameter or band, or more than ``MAX_ELEMENTS`` simulated answers.

    Examples
    --------
    >>> ex = laplace_experiment([10.0, 20.0], 1.0, 0.5, 200, rng=0)
    >>> ex.theory_variance, ex.release.shape
    (8.0, (2,))
    """
    truth = check_array("truth", truth, ndim=1, max_abs=MAX_MAGNITUDE)  # squared errors must not overflow
    epsilon = check_epsilon(epsilon)
    sensitivity = check_nonnegative("sensitivity", sensitivity)
    trials = check_int("trials", trials, minimum=2)
    check_elements(float(trials) * truth.size, "simulated answers", trials=trials, truth_size=truth.size)
    laplace_variance(sensitivity, epsilon)  # refuses an epsilon whose variance overflows, before sampling
    lo, hi = check_band(band)
    samples = laplace(truth, sensitivity, epsilon, rng=as_generator(rng), size=trials)
    q = laplace_quantile(np.array([lo / 100, hi / 100]), sensitivity, epsilon) if sensitivity > 0 else np.zeros(2)
    return LaplaceExperiment(
        epsilon=epsilon, sensitivity=sensitivity, release=samples[0], summary=summarize(samples, truth, (lo, hi)),
        theory_lower=truth + q[0], theory_upper=truth + q[1],
        theory_variance=laplace_variance(sensitivity, epsilon),
    )


def laplace_error_curve(epsilons: ArrayLike, sensitivity: float, trials: int, *,
                        rng: RngLike = None) -> dict[str, np.ndarray]:
    """Empirical vs theoretical mean squared error of one Laplace answer over a grid of epsilons.

    The same unit-scale draws are rescaled by :func:`dpviz.mechanisms.laplace_scale`
    at each epsilon, so the curve is smooth; the theory is
    :func:`dpviz.mechanisms.laplace_variance`.

    Parameters
    ----------
    epsilons : array_like
        The privacy parameters (1-D), each finite and > 0.
    sensitivity : float
        L1 sensitivity, >= 0.
    trials : int
        Number of simulated answers per epsilon, >= 2.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    dict of str to numpy.ndarray
        ``{"epsilon", "empirical_mse", "theory_mse", "stderr"}``; ``stderr`` is the
        standard error of the empirical MSE, ``sqrt((E[Z^4] - v^2)/k) = sqrt(5) v / sqrt(k)``
        for Laplace noise (E[Z^4] = 24 b^4 = 6 v^2).

    Raises
    ------
    ValueError, TypeError
        For an invalid epsilon, sensitivity or number of trials, an epsilon whose variance
        overflows, or more than ``MAX_ELEMENTS`` simulated answers.

    Examples
    --------
    >>> c = laplace_error_curve([0.5, 1.0], 1.0, 200, rng=0)
    >>> c["theory_mse"]
    array([8., 2.])
    """
    eps = check_array("epsilons", epsilons, ndim=1)
    if eps.size == 0:
        raise ValueError("epsilons must hold at least one epsilon, got an empty array")
    for e in eps:
        check_epsilon(e, "epsilons")
    sensitivity = check_nonnegative("sensitivity", sensitivity)
    trials = check_int("trials", trials, minimum=2)
    check_elements(float(trials) * eps.size, "simulated answers", trials=trials, epsilons_size=eps.size)
    for e in eps:
        laplace_variance(sensitivity, e)  # refuses an epsilon whose variance overflows, before sampling
    g = as_generator(rng)
    noise = laplace(np.zeros(eps.size), 1.0, 1.0, rng=g, size=trials)  # unit-scale draws, rescaled per epsilon
    scale = np.array([laplace_scale(sensitivity, e) for e in eps])
    emp = np.mean((noise * scale) ** 2, axis=0)
    theory = np.array([laplace_variance(sensitivity, e) for e in eps])
    return {"epsilon": eps, "empirical_mse": emp, "theory_mse": theory,
            "stderr": np.sqrt(5.0) * theory / np.sqrt(trials)}


def cps_oldest_by_marital(min_age: int = 85) -> tuple[np.ndarray, list[str]]:
    """Count CPS people aged >= ``min_age`` per marital-status code 1..7 (a histogram: sensitivity 1).

    The Laplace explorer's default histogram: with ``min_age=85``, people aged
    85-90 in the CPS extract by the extract's marital-status code.

    Parameters
    ----------
    min_age : int, default 85
        Youngest age counted, >= 0.

    Returns
    -------
    counts : numpy.ndarray
        The seven counts (float64).
    labels : list of str
        ``"marital=1"`` .. ``"marital=7"``.

    Raises
    ------
    ValueError, TypeError
        If ``min_age`` is not an integer >= 0.
    """
    min_age = check_int("min_age", min_age, minimum=0)
    records = load("CPS", column="all")
    age, marital = records[:, 1], records[:, 2]
    counts = np.bincount(marital[age >= min_age], minlength=8)[1:8].astype(float)
    return counts, [f"marital={c}" for c in range(1, 8)]


def laplace_explorer_run(truth: ArrayLike, sensitivity: float, trials: int, *, epsilon: float | None = None,
                         target_halfwidth: float | None = None, band: Iterable[float] = (5.0, 95.0),
                         rng: RngLike = None) -> LaplaceExperiment:
    """What the Laplace explorer shows, in either mode.

    Privacy first: give ``epsilon``.  Accuracy first: give ``target_halfwidth`` w
    and epsilon is solved so that the central band of the noise is exactly
    ``+-w``: ``epsilon = S ln(1/alpha) / w`` with ``alpha = 1 - (hi - lo)/100``
    (:func:`dpviz.mechanisms.epsilon_for_laplace_halfwidth`; the band must be
    symmetric).

    Parameters
    ----------
    truth : array_like
        The m true answers (1-D).
    sensitivity : float
        L1 sensitivity (> 0 in accuracy-first mode, >= 0 otherwise).
    trials : int
        Number of simulated releases, >= 2.
    epsilon : float, optional
        Privacy parameter (privacy-first mode).
    target_halfwidth : float, optional
        Half-width the central band of the noise must have (accuracy-first mode), > 0.
    band : pair of float, default (5, 95)
        Percentiles of the central band (symmetric in accuracy-first mode).
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    LaplaceExperiment
        As :func:`laplace_experiment`, at the given or solved epsilon.

    Raises
    ------
    ValueError
        Unless exactly one of ``epsilon`` and ``target_halfwidth`` is given, if the
        band is not symmetric in accuracy-first mode, or for an invalid parameter.

    Examples
    --------
    >>> ex = laplace_explorer_run([5.0, 7.0], 1.0, 100, target_halfwidth=2.0, rng=0)
    >>> round(ex.epsilon, 4)  # ln(1/0.1) / 2 for the 5-95 band
    1.1513
    """
    one_mode = "give exactly one of epsilon (privacy first) or target_halfwidth (accuracy first)"
    if target_halfwidth is None:  # privacy first
        if epsilon is None:
            raise ValueError(one_mode)
        return laplace_experiment(truth, sensitivity, epsilon, trials, rng=rng, band=check_band(band))
    if epsilon is not None:
        raise ValueError(one_mode)
    lo, hi = check_band(band)
    if abs(lo - (100 - hi)) > 1e-12:
        raise ValueError(f"band must be symmetric for accuracy-first mode, got ({lo}, {hi})")
    target_halfwidth = check_positive("target_halfwidth", target_halfwidth)
    solved = epsilon_for_laplace_halfwidth(target_halfwidth, sensitivity, alpha=1 - (hi - lo) / 100)
    try:
        laplace_variance(sensitivity, solved)
    except ValueError as exc:
        which = "narrow" if not solved < 1.0 else "wide"  # a narrow target needs a huge (or infinite) epsilon
        raise ValueError(f"target_halfwidth={target_halfwidth!r} is too {which}: it needs epsilon={solved:.3g}, "
                         f"which no Laplace noise can have ({exc})") from exc
    return laplace_experiment(truth, sensitivity, solved, trials, rng=rng, band=(lo, hi))
