"""Relative-error bands: mean and central percentile band over trials, per query."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpviz.experiments import check_band
from dpviz.validation import MAX_MAGNITUDE, check_array

__all__ = ["ErrorBands", "error_bands"]


@dataclass(frozen=True)
class ErrorBands:
    """Relative error per query over trials: mean and central band (default 5-95 %).

    Parameters
    ----------
    mean : numpy.ndarray, shape (m,)
        Mean relative error of each query over the trials.
    lower : numpy.ndarray, shape (m,)
        Lower percentile of the band.
    upper : numpy.ndarray, shape (m,)
        Upper percentile of the band.
    band : tuple of float
        The two percentiles, e.g. ``(5.0, 95.0)``.
    """

    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    band: tuple[float, float]

    @property
    def overall(self) -> float:
        """Mean relative error over trials and queries (one number per configuration)."""
        return float(self.mean.mean())


def error_bands(rel_error: npt.ArrayLike, band: tuple[float, float] = (5.0, 95.0)) -> ErrorBands:
    """Mean and ``band`` percentiles over trials (axis 0) of relative errors of shape (k, m).

    Parameters
    ----------
    rel_error : array_like, shape (k, m)
        Relative errors, one row per trial.
    band : tuple of float
        Central percentile band ``(lo, hi)`` with ``0 <= lo < hi <= 100``.

    Returns
    -------
    ErrorBands
        Mean, lower and upper percentile per query.

    Raises
    ------
    ValueError
        If ``rel_error`` is not 2-D with at least one trial and one query, holds NaN or inf, or ``band``
        is invalid.
    TypeError
        If ``rel_error`` is not array-like of numbers.

    Examples
    --------
    >>> b = error_bands([[0.1, 0.2], [0.3, 0.4]], band=(0.0, 100.0))
    >>> b.mean, b.lower, b.upper
    (array([0.2, 0.3]), array([0.1, 0.2]), array([0.3, 0.4]))
    """
    lo, hi = check_band(band)
    e = check_array("rel_error", rel_error, ndim=2, max_abs=MAX_MAGNITUDE)
    if e.shape[0] < 1 or e.shape[1] < 1:
        raise ValueError(f"rel_error must have shape (trials, queries), got {e.shape}")
    lower, upper = np.percentile(e, [lo, hi], axis=0)
    return ErrorBands(mean=e.mean(axis=0), lower=lower, upper=upper, band=(lo, hi))
