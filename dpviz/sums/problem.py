"""The vectorised prefix-sum problem: :class:`SumProblem`, built by :func:`prepare`, checked by :func:`check_problem`.

References
----------
- [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
  Summation Queries for Numerical Attributes under Differential Privacy."
  TPDP 2019, arXiv:1908.10268.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from dpviz.sums.bins import _check_bins, _threshold_indices, cps_income_bins, prefix_workload, vectorize
from dpviz.validation import check_array

__all__ = ["SumProblem", "prepare", "check_problem"]


@dataclass(frozen=True)
class SumProblem:
    """A vectorised prefix-sum problem: counts, bin weights and query thresholds.

    Build it with :func:`prepare`.  It also caches (privately) the cumulative
    counts and weighted counts, and the matrix-mechanism strategies of
    :func:`dpviz.sums.precompute_strategies`.

    Parameters
    ----------
    counts : numpy.ndarray, shape (n,)
        Records per bin, ``x``.
    weights : numpy.ndarray, shape (n,)
        Bin weights = upper edges, ``v``.
    thresholds : numpy.ndarray, shape (m,)
        Query thresholds (a subset of the bin edges).
    index : numpy.ndarray, shape (m,)
        Bin index of each threshold (query i covers bins ``0..index[i]``).
    workload : scipy.sparse.csr_array, shape (m, n)
        The prefix workload ``W_s``.
    truth : numpy.ndarray, shape (m,)
        True prefix sums ``W_s diag(v) x``.

    Examples
    --------
    >>> from dpviz.sums import uniform_bins
    >>> p = prepare([1, 1000, 1001, 2500], [1000, 3000], uniform_bins(1000, 3000))
    >>> p.n, p.m, p.size
    (3, 2, 4.0)
    """

    counts: np.ndarray
    weights: np.ndarray
    thresholds: np.ndarray
    index: np.ndarray
    workload: sp.csr_array
    truth: np.ndarray
    _cum_count: np.ndarray = field(init=False, repr=False, compare=False)
    _cum_sum: np.ndarray = field(init=False, repr=False, compare=False)
    _cache: dict[tuple[Any, ...], Any] = field(init=False, default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Cache the cumulative counts ``C`` and weighted counts ``P`` used by every closed form."""
        object.__setattr__(self, "_cum_count", np.cumsum(self.counts))
        object.__setattr__(self, "_cum_sum", np.cumsum(self.weights * self.counts))

    @property
    def n(self) -> int:
        """Number of bins."""
        return int(self.counts.size)

    @property
    def m(self) -> int:
        """Number of queries."""
        return int(self.thresholds.size)

    @property
    def size(self) -> float:
        """Number of records N (private: never used unnoised by the DP methods)."""
        return float(self._cum_count[-1])

    def column_counts(self) -> npt.NDArray[np.float64]:
        """``c_j = #{queries containing bin j}``: the column sums of ``W_s``.

        Returns
        -------
        numpy.ndarray, shape (n,)
            The number of queries that contain each bin, as float64.
        """
        return (self.m - np.searchsorted(self.index, np.arange(self.n), side="left")).astype(float)


def prepare(values: npt.ArrayLike, thresholds: npt.ArrayLike, bins: npt.ArrayLike | None = None) -> SumProblem:
    """Vectorise records and set up the prefix-sum queries ([WPKM19] Sec. 2).

    Parameters
    ----------
    values : array_like, shape (N,)
        Non-negative record values (e.g. CPS incomes).
    thresholds : array_like, shape (m,)
        Strictly increasing query thresholds; each must be a bin edge.
    bins : array_like, optional
        Bin upper edges (= weights); default :func:`cps_income_bins`.

    Returns
    -------
    SumProblem
        Counts, weights, thresholds, the workload ``W_s`` and the true prefix sums.

    Raises
    ------
    ValueError
        For negative values or values above the top bin edge, invalid bins, or
        thresholds that are not strictly increasing bin edges.
    TypeError
        If an input is not array-like of numbers.

    Examples
    --------
    >>> from dpviz.sums import uniform_bins
    >>> p = prepare([1, 1000, 1001, 2500], [1000, 3000], uniform_bins(1000, 3000))
    >>> p.truth
    array([2000., 7000.])
    """
    bins = cps_income_bins() if bins is None else _check_bins(bins)
    x = vectorize(values, bins)
    idx = _threshold_indices(bins, thresholds)
    W = prefix_workload(bins, bins[idx])
    truth = np.cumsum(bins * x)[idx].copy()
    return SumProblem(counts=x, weights=bins, thresholds=bins[idx].copy(), index=idx, workload=W, truth=truth)


def check_problem(problem: Any) -> SumProblem:
    """Return ``problem`` if it is a :class:`SumProblem`, for functions that take one.

    Parameters
    ----------
    problem : object
        The value to check.

    Returns
    -------
    SumProblem
        ``problem`` itself.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem` (the message points to :func:`prepare`).

    Examples
    --------
    >>> from dpviz.sums import uniform_bins
    >>> p = prepare([1, 1500], [2000], uniform_bins(1000, 2000))
    >>> check_problem(p) is p
    True
    """
    if not isinstance(problem, SumProblem):
        raise TypeError(f"problem must be a SumProblem (see dpviz.sums.prepare), got {type(problem).__name__}")
    return problem


def _taus(tau: Any, name: str = "tau", ndim: tuple[int, ...] = (0, 1)) -> npt.NDArray[np.float64]:
    """Truncation thresholds as a float array of at least one dimension, each > 0 (``inf``: no truncation).

    A string, a bool (``True`` is not the threshold 1) or a NaN/non-positive entry is refused, naming ``name``.
    """
    if isinstance(tau, (bool, np.bool_)) or (isinstance(tau, np.ndarray) and tau.dtype == bool):
        raise TypeError(f"{name} must be a number > 0 or an array of them (inf = no truncation), got {tau!r}")
    t = check_array(name, tau, ndim=ndim, finite=False)
    if t.size == 0:
        raise ValueError(f"{name} must hold at least one threshold, got shape {t.shape}")
    if np.any(np.isnan(t)) or np.any(t <= 0):
        bad = t[np.isnan(t) | (t <= 0)].ravel()[0]
        raise ValueError(f"{name} must be > 0 (inf = no truncation), got {bad}")
    return np.atleast_1d(t)


def _epsilon_floor(problem: SumProblem) -> float:
    """Smallest answering epsilon whose noise stays finite in float64 on ``problem`` (a documented bound).

    No algorithm's Laplace scale exceeds ``S / epsilon`` with ``S = m n max(v)`` (every strategy row of the
    matrix mechanisms has L1 norm at most ``n max(v)``, over at most ``m`` queries); the squared errors of
    ``m n`` such noises must stay below the largest float, with a margin of 16.
    """
    s = float(problem.m) * problem.n * float(problem.weights[-1])
    return s * math.sqrt(16.0 * problem.m * problem.n / sys.float_info.max)


def _check_noise_epsilon(problem: SumProblem, epsilon: float, name: str = "epsilon") -> float:
    """Refuse an answering epsilon so small that the noise (or its variance) overflows float64."""
    floor = _epsilon_floor(problem)
    if epsilon < floor:
        raise ValueError(f"{name}={epsilon!r} is too small for floating-point noise on this problem (Laplace "
                         f"scales up to {float(problem.m) * problem.n * float(problem.weights[-1]):.3g}/epsilon "
                         f"would overflow): {name} must be >= {floor:.3g}")
    return epsilon
