"""Truncation at ``tau``: truncated weights, noise-free truncated answers, their exact bias and sensitivity.

At threshold ``tau`` every weight above ``tau`` becomes ``tau``: ``v^tau_j =
min(v_j, tau)``.  Adding or removing one record then moves any truncated prefix
sum by at most ``tau`` instead of ``max_j v_j``, at the price of the exact,
data-dependent bias ``-sum_{j <= k_i} (v_j - tau)_+ x_j`` ([WPKM19]_ Sec. 3.1).

References
----------
.. [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
   Summation Queries for Numerical Attributes under Differential Privacy."
   TPDP 2019, arXiv:1908.10268.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from dpviz.sums.problem import SumProblem, _taus, check_problem
from dpviz.validation import MAX_MAGNITUDE, check_array

__all__ = ["truncate_weights", "truncated_prefix_sums", "truncation_bias", "workload_sensitivity"]


def truncate_weights(weights: npt.ArrayLike, tau: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Truncated weights ``v^tau = min(v, tau)`` (shape (n,) for scalar tau, (k, n) for k thresholds).

    Parameters
    ----------
    weights : array_like, shape (n,)
        Bin weights ``v``.
    tau : float or array_like of shape (k,)
        Truncation threshold(s), each > 0; ``inf`` leaves the weights unchanged.

    Returns
    -------
    numpy.ndarray, shape (n,) or (k, n)
        The truncated weights, one row per threshold for an array ``tau``.

    Raises
    ------
    ValueError
        If a threshold is NaN or <= 0, or ``weights`` is not 1-D and finite.
    TypeError
        If an input is not array-like of numbers.

    Examples
    --------
    >>> truncate_weights([1.0, 5.0, 9.0], 4.0)
    array([1., 4., 4.])
    """
    v = check_array("weights", weights, ndim=1, max_abs=MAX_MAGNITUDE)
    if np.any(v < 0):  # truncation clips non-negative bin weights to [0, tau]
        raise ValueError(f"weights must be >= 0 (bin weights), got {v[v < 0][0]}")
    scalar = np.ndim(tau) == 0
    t = _taus(tau)
    return np.minimum(v, float(t[0])) if scalar else np.minimum(v, t[:, None])


def truncated_prefix_sums(problem: SumProblem, tau: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Noise-free truncated answers ``W_s diag(min(v, tau)) x``, shape (k, m) for k thresholds (or (m,)).

    Uses prefix sums: with ``J`` the number of bins whose weight is ``<= tau``,
    query i is ``P[min(k_i, J-1)] + tau (C[k_i] - C[min(k_i, J-1)])`` where ``P``
    and ``C`` are the cumulative weighted and plain counts.

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem (see :func:`dpviz.sums.prepare`).
    tau : float, array_like of shape (k,) or (k, m)
        Truncation threshold(s) (``inf``: none); a (k, m) array holds one
        threshold per trial and query (SQM).

    Returns
    -------
    numpy.ndarray, shape (k, m) or (m,)
        The truncated prefix sums; shape (m,) for a scalar ``tau``.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem`.
    ValueError
        If a threshold is NaN or <= 0, or a 2-D ``tau`` has not one column per query.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([1, 1000, 1001, 2500], [1000, 3000], uniform_bins(1000, 3000))
    >>> truncated_prefix_sums(p, 1500.0)
    array([2000., 5000.])
    """
    problem = check_problem(problem)
    scalar = np.ndim(tau) == 0
    t = _taus(tau, ndim=(0, 1, 2))
    if t.ndim == 2:
        if t.shape[1] != problem.m:
            raise ValueError(f"a 2-D tau must have one column per query ({problem.m}), got shape {t.shape}")
        T = t
    else:
        T = np.broadcast_to(t[:, None], (t.size, problem.m))
    J = np.searchsorted(problem.weights, T, side="right")           # bins with v_j <= tau
    last = np.minimum(problem.index[None, :], J - 1)                 # (k, m), may be -1
    P = np.where(last >= 0, problem._cum_sum[np.maximum(last, 0)], 0.0)
    C = np.where(last >= 0, problem._cum_count[np.maximum(last, 0)], 0.0)
    tail = problem._cum_count[problem.index][None, :] - C
    out = P + np.where(np.isinf(T), 0.0, T) * tail                   # no tail when tau = inf
    return out[0] if scalar else out


def truncation_bias(problem: SumProblem, tau: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Exact bias of truncation at ``tau``: ``-sum_{j <= k_i} (v_j - tau)_+ x_j`` per query ([WPKM19] Sec. 3.1).

    This is the expected error of every unbiased-noise algorithm (Identity,
    Workload, TiMM, TaMM without isotonic regression) given ``tau``.

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem.
    tau : float, array_like of shape (k,) or (k, m)
        Truncation threshold(s), as for :func:`truncated_prefix_sums`.

    Returns
    -------
    numpy.ndarray, shape (k, m) or (m,)
        Truncated minus true prefix sums (<= 0).

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem`.
    ValueError
        For invalid thresholds (see :func:`truncated_prefix_sums`).

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([1, 1000, 1001, 2500], [1000, 3000], uniform_bins(1000, 3000))
    >>> truncation_bias(p, 1500.0).tolist()
    [0.0, -2000.0]
    """
    return truncated_prefix_sums(problem, tau) - check_problem(problem).truth


def workload_sensitivity(problem: SumProblem, tau: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """L1 sensitivity ``max_j c_j min(v_j, tau)`` of the truncated weighted workload ``W_s diag(v^tau)``.

    ``c_j`` is the number of queries that contain bin j; adding or removing one
    record of bin j moves the answers by ``c_j min(v_j, tau)`` in L1 norm.  It
    is the Workload algorithm's noise scale times epsilon ([WPKM19] Table 1).

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem.
    tau : float or array_like of shape (k,)
        Truncation threshold(s) (``inf``: none).

    Returns
    -------
    float or numpy.ndarray of shape (k,)
        The sensitivity per threshold (a float for a scalar ``tau``).

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem`.
    ValueError
        If a threshold is NaN or <= 0.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([1, 1000, 1001, 2500], [1000, 3000], uniform_bins(1000, 3000))
    >>> workload_sensitivity(p, 1500.0)
    2000.0
    """
    problem = check_problem(problem)
    scalar = np.ndim(tau) == 0
    t = _taus(tau)
    cols = problem.column_counts()
    out = np.max(cols[None, :] * np.minimum(problem.weights[None, :], t[:, None]), axis=1)
    return float(out[0]) if scalar else out
