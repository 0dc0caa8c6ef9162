"""Accuracy: the paper's relative error, and the exact variance and mean squared error of each algorithm given ``tau``.

References
----------
- [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
  Summation Queries for Numerical Attributes under Differential Privacy."
  TPDP 2019, arXiv:1908.10268.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from dpviz.mechanisms import laplace_variance
from dpviz.sums.matrix import _mm_pair
from dpviz.sums.options import ALGORITHMS
from dpviz.sums.problem import SumProblem, _check_noise_epsilon, _taus, check_problem
from dpviz.sums.truncation import truncate_weights, truncation_bias, workload_sensitivity
from dpviz.validation import MAX_MAGNITUDE, check_array, check_choice, check_epsilon, check_positive

__all__ = ["relative_error", "expected_variance", "expected_squared_error"]


def relative_error(answers: npt.ArrayLike, truth: npt.ArrayLike, floor: float = 1.0) -> npt.NDArray[np.float64]:
    """The paper's relative error ``|y^ - y| / max(|y|, floor)`` per query ([WPKM19] Sec. 4, "Error").

    Parameters
    ----------
    answers : array_like, shape (m,) or (k, m)
        Noisy answers ``y^``, one row per trial.
    truth : array_like, shape (m,)
        True answers ``y``.
    floor : float
        Floor of the denominator, in the answers' units (dollars for incomes), finite and > 0: keeps
        the ratio finite for answers near 0.  The paper writes it delta; it is not a privacy parameter
        (named ``floor`` so it is not mistaken for one): any positive floor, e.g. 1 or 1000 dollars, is valid.

    Returns
    -------
    numpy.ndarray, same shape as ``answers``
        The relative errors.

    Raises
    ------
    ValueError
        If the shapes do not match, an input holds NaN or inf, or ``floor`` is not finite and > 0.
    TypeError
        If an input is not array-like of numbers.

    Examples
    --------
    >>> relative_error([110.0, 0.5], [100.0, 0.0], floor=1.0)
    array([0.1, 0.5])
    """
    a = check_array("answers", answers, ndim=(1, 2), max_abs=MAX_MAGNITUDE)
    y = check_array("truth", truth, ndim=1, max_abs=MAX_MAGNITUDE)
    if a.shape[-1] != y.size:
        raise ValueError(f"truth must have one entry per query (answers has {a.shape[-1]} on its last axis), "
                         f"got {y.size}")
    floor = check_positive("floor", floor)
    with np.errstate(over="ignore"):
        out = np.abs(a - y) / np.maximum(np.abs(y), floor)
    if not np.all(np.isfinite(out)):  # an error of 1e100 over a floor of 1e-300 is beyond the doubles
        raise ValueError(f"floor={floor!r} is too small for these answers: an error divided by it overflows; raise "
                         "floor (it stands for the smallest truth worth a relative error)")
    return out


def expected_variance(problem: SumProblem, algorithm: str, tau: float, epsilon: float) -> npt.NDArray[np.float64]:
    """Variance of each noisy answer given ``tau`` (no isotonic regression), per query, shape (m,).

    With ``b = 1/eps`` the Laplace scale of one count ([WPKM19] App. A.3-A.4):

    * Identity: ``2 b^2 sum_{j <= k_i} min(v_j, tau)^2``
    * Workload: ``2 (||W_s diag(v^tau)||_1 b)^2``
    * SQM (one tau for every query): ``2 (m min(tau, t_i) b)^2``
    * TiMM / TaMM: the matrix mechanism's ``2 (||A||_1 b)^2 ||(W A^+)_i||^2``
      (:func:`dpviz.matrix_mechanism.expected_error`).

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem.
    algorithm : {"sqm", "identity", "workload", "timm", "tamm"}
        The answering algorithm.
    tau : float
        Truncation threshold (``inf``: none).
    epsilon : float
        The answering budget (> 0, and not so small that the variance overflows float64).

    Returns
    -------
    numpy.ndarray, shape (m,)
        Variance of each answer.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem`.
    ValueError
        For an unknown ``algorithm``, ``epsilon`` not > 0 or too small for floating-point noise (the
        variance would overflow), or ``tau`` not a number > 0.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([1, 1000, 1001, 2500], [1000, 3000], uniform_bins(1000, 3000))
    >>> expected_variance(p, "workload", 1500.0, 1.0)
    array([8000000., 8000000.])
    """
    problem = check_problem(problem)
    algorithm = check_choice("algorithm", algorithm, ALGORITHMS)
    epsilon = _check_noise_epsilon(problem, check_epsilon(epsilon))
    tau = float(_taus(tau, ndim=(0,))[0])
    vt = truncate_weights(problem.weights, tau)
    if algorithm == "identity":
        return laplace_variance(1.0, epsilon) * np.cumsum(vt ** 2)[problem.index]
    if algorithm == "workload":
        return np.full(problem.m, laplace_variance(float(workload_sensitivity(problem, tau)), epsilon))
    if algorithm == "sqm":
        return np.array([laplace_variance(s, epsilon) for s in problem.m * np.minimum(tau, problem.thresholds)])
    from dpviz.matrix_mechanism import expected_error

    Wt, A = _mm_pair(problem, algorithm, tau)
    return np.asarray(expected_error(Wt, A, epsilon, per_query=True), dtype=float)


def expected_squared_error(problem: SumProblem, algorithm: str, tau: float,
                           epsilon: float) -> npt.NDArray[np.float64]:
    """Exact mean squared error per query given ``tau``, no isotonic regression: ``bias^2 + variance``.

    ``bias`` is :func:`dpviz.sums.truncation_bias` (SQM: the same tau for every
    query) and ``variance`` :func:`expected_variance`.

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem.
    algorithm : {"sqm", "identity", "workload", "timm", "tamm"}
        The answering algorithm.
    tau : float
        Truncation threshold (``inf``: none).
    epsilon : float
        The answering budget (> 0, and not so small that the variance overflows float64).

    Returns
    -------
    numpy.ndarray, shape (m,)
        Mean squared error of each answer.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem`.
    ValueError
        For an unknown ``algorithm``, ``epsilon`` not > 0 or too small for floating-point noise (the
        variance would overflow), or ``tau`` not a number > 0.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([1, 1000, 1001, 2500], [1000, 3000], uniform_bins(1000, 3000))
    >>> expected_squared_error(p, "workload", 1500.0, 1.0)
    array([ 8000000., 12000000.])
    """
    variance = expected_variance(problem, algorithm, tau, epsilon)  # validates every argument first
    return truncation_bias(problem, float(tau)) ** 2 + variance
