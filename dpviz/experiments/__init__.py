"""Experiments: Monte Carlo trials summarised against the truth, beside the analytic error.

This layer sits between the core mechanisms and the plots.  Functions here
return small dataclasses of numpy arrays, never figures.  Topic-specific
experiments live in submodules (``dpviz.experiments.laplace``,
``dpviz.experiments.hierarchy``, ...); this module holds what they share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpviz.rng import RngLike, as_generator
from dpviz.validation import MAX_MAGNITUDE, blame, check_array, check_elements, check_int

__all__ = ["TrialSummary", "summarize", "run_trials", "check_band"]


@dataclass(frozen=True)
class TrialSummary:
    """Per-query statistics of k noisy releases against the truth.

    Attributes
    ----------
    truth : numpy.ndarray
        The m true answers.
    mean : numpy.ndarray
        Sample mean of each answer over the k releases.
    bias : numpy.ndarray
        ``mean - truth``.
    variance : numpy.ndarray
        Unbiased sample variance (ddof=1) of each answer.
    mse : numpy.ndarray
        Mean squared error ``mean((release - truth)^2)`` of each answer.
    lower, upper : numpy.ndarray
        Central percentile band of the releases (default 5 % and 95 %).
    band : tuple of float
        The two percentiles of the band.
    trials : int
        Number of releases k.
    """

    truth: np.ndarray
    mean: np.ndarray
    bias: np.ndarray
    variance: np.ndarray
    mse: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    band: tuple[float, float]
    trials: int

    @property
    def total_mse(self) -> float:
        """Total squared error summed over queries (the lectures' "total error")."""
        return float(self.mse.sum())


def check_band(band: Iterable[float]) -> tuple[float, float]:
    """Validate a central percentile band ``(lo, hi)`` with ``0 <= lo < hi <= 100``.

    Parameters
    ----------
    band : pair of float
        Lower and upper percentile, e.g. ``(5, 95)``.

    Returns
    -------
    tuple of float
        ``(lo, hi)`` as floats.

    Raises
    ------
    TypeError
        If ``band`` is not a pair of numbers.
    ValueError
        Unless ``0 <= lo < hi <= 100``.

    Examples
    --------
    >>> check_band((5, 95))
    (5.0, 95.0)
    """
    if not isinstance(band, (np.ndarray, str, bytes)) and isinstance(band, Iterable):
        band = list(band)  # any iterable of two numbers, e.g. a generator
    arr = check_array("band", band, ndim=1)
    if arr.size != 2:
        raise TypeError(f"band must be a pair of percentiles (lo, hi), got {band!r}")
    lo, hi = float(arr[0]), float(arr[1])
    if not (0 <= lo < hi <= 100):
        raise ValueError(f"band must satisfy 0 <= lo < hi <= 100, got ({lo}, {hi})")
    return lo, hi


def summarize(samples: ArrayLike, truth: ArrayLike, band: Iterable[float] = (5.0, 95.0)) -> TrialSummary:
    """Summarise releases ``samples`` of shape (k, m) (or (k,)) against ``truth`` of shape (m,) (or scalar).

    Bias is ``mean - truth``, variance the unbiased sample variance (needs k >= 2),
    MSE ``mean((samples - truth)^2)`` (= bias^2 + (k-1)/k variance), band the
    ``band`` percentiles per query.

    Parameters
    ----------
    samples : array_like
        k releases of m answers, shape (k, m), or (k,) for one answer.
    truth : array_like
        The true answers, shape (m,), or a scalar shared by every query.
    band : pair of float, default (5, 95)
        Percentiles of the central band.

    Returns
    -------
    TrialSummary
        Per-query mean, bias, variance, MSE and band.

    Raises
    ------
    ValueError
        If the shapes disagree, k < 2, or the band is invalid.
    TypeError
        If the inputs are not arrays of numbers.

    Examples
    --------
    >>> s = summarize([[1.0, 10.0], [3.0, 14.0]], [2.0, 12.0])
    >>> s.bias, s.variance
    (array([0., 0.]), array([2., 8.]))
    """
    samples = check_array("samples", samples, ndim=(1, 2), max_abs=MAX_MAGNITUDE)  # squared errors must not overflow
    truth = check_array("truth", truth, ndim=(0, 1), max_abs=MAX_MAGNITUDE)
    if samples.ndim == 1:
        samples = samples[:, None]
    m = samples.shape[1]
    truth = np.atleast_1d(truth)
    if truth.shape == (1,):
        truth = np.full(m, truth[0])
    if truth.shape != (m,):
        raise ValueError(f"truth must have one entry per query (samples has {m} columns), got shape {truth.shape}")
    k = samples.shape[0]
    if k < 2:
        raise ValueError(f"samples must hold at least 2 trials to estimate a variance, got {k}")
    lo, hi = check_band(band)
    mean = samples.mean(axis=0)
    err = samples - truth
    lower, upper = np.percentile(samples, [lo, hi], axis=0)
    return TrialSummary(
        truth=np.array(truth), mean=mean, bias=mean - truth, variance=samples.var(axis=0, ddof=1),
        mse=np.mean(err * err, axis=0), lower=lower, upper=upper, band=(lo, hi), trials=k,
    )


def run_trials(mechanism: Callable[..., np.ndarray], truth: ArrayLike, trials: int, *, rng: RngLike = None,
               band: Iterable[float] = (5.0, 95.0)) -> TrialSummary:
    """Call ``mechanism(rng=generator, size=trials)`` once (vectorised) and summarise against ``truth``.

    Parameters
    ----------
    mechanism : callable
        Takes keyword arguments ``rng`` (a Generator) and ``size`` and returns
        ``size`` stacked releases.
    truth : array_like
        The true answers.
    trials : int
        Number of releases, >= 2.
    rng : None, int, SeedSequence or numpy.random.Generator
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    band : pair of float, default (5, 95)
        Percentiles of the central band.

    Returns
    -------
    TrialSummary
        The summary of the releases against ``truth``.

    Raises
    ------
    ValueError, TypeError
        For an invalid ``trials`` or band, a ``mechanism`` that is not callable, or releases whose
        shape does not match ``truth``.

    Examples
    --------
    >>> from dpviz.mechanisms import laplace
    >>> s = run_trials(lambda rng, size: laplace([5.0], 1.0, 1.0, rng=rng, size=size), [5.0], 100, rng=0)
    >>> s.trials
    100
    """
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable as mechanism(rng=..., size=...), got {mechanism!r}")
    trials = check_int("trials", trials, minimum=2)
    check_elements(float(trials), "releases", trials=trials)
    check_band(band)
    samples = mechanism(rng=as_generator(rng), size=trials)
    with blame(mechanism=mechanism):  # what it returned is the mechanism's fault, not a `samples` argument's
        samples = check_array("its output", samples, ndim=(1, 2), max_abs=MAX_MAGNITUDE)
        if samples.shape[0] != trials:
            raise ValueError(f"mechanism(rng=..., size={trials}) must return {trials} releases stacked on the "
                             f"first axis, got shape {samples.shape}")
    return summarize(samples, truth, band)
