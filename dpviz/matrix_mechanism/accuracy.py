"""Exact error of the matrix mechanism: noise variance per measurement, expected squared error per query.

The error does not depend on the data: for a query ``w`` in the row space of
``A``, ``E[(w x_hat - w x)^2] = v * w (A^T A)^+ w^T`` where ``v`` is the noise
variance per measurement (``2 ||A||_1^2 / epsilon^2`` for Laplace), and the
total error is ``v * trace(W (A^T A)^+ W^T) = v * trace(W^T W (A^T A)^+)``.

References
----------
- [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
  Linear Counting Queries Under Differential Privacy." PODS 2010.
- [Mik12] G. Miklau. "Differentially-Private Batch Query Answering: Exploiting
  the Workload vs. Exploiting the Data." DIMACS workshop slides, 2012.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from dpviz import mechanisms
from dpviz.matrix_mechanism.least_squares import _as_ls
from dpviz.validation import check_bool, check_choice, check_delta, check_epsilon
from dpviz.workloads import as_workload

__all__ = ["noise_variance", "expected_error", "direct_laplace_error"]

#: Gaussian calibrations of :func:`dpviz.mechanisms.gaussian_sigma`.
Calibration = Literal["analytic", "classic", "ln2delta"]
CALIBRATIONS = mechanisms.GAUSSIAN_CALIBRATIONS


def _finite(value: Any, epsilon: float, what: str) -> Any:
    """``value`` if every entry is finite; else a range error naming ``epsilon`` (the scale overflowed)."""
    with np.errstate(all="ignore"):
        ok = bool(np.all(np.isfinite(value)))
    if not ok:
        raise ValueError(f"epsilon={epsilon!r} is too small: the {what} overflows floating point "
                         "(use a larger epsilon)")
    return value


def _gaussian_variance(l2: float, epsilon: float, delta: float, calibration: Calibration) -> float:
    """``sigma^2`` of the Gaussian mechanism, refusing (named) a sigma whose square overflows."""
    sigma = mechanisms.gaussian_sigma(l2, epsilon, delta, calibration)
    try:
        return float(_finite(sigma**2, epsilon, "Gaussian noise variance"))
    except OverflowError:
        _finite(np.inf, epsilon, "Gaussian noise variance")
        raise


def noise_variance(A: Any, epsilon: float, *, delta: float | None = None,
                   calibration: Calibration = "analytic") -> float:
    """Variance of the noise added to each strategy answer.

    Laplace (``delta=None``): ``2 (||A||_1 / epsilon)^2``
    (:func:`dpviz.mechanisms.laplace_variance`).  Gaussian: ``sigma^2`` with
    ``sigma = dpviz.mechanisms.gaussian_sigma(||A||_2, epsilon, delta, calibration)``.

    Parameters
    ----------
    A : array_like, scipy.sparse matrix, Workload or LeastSquares
        The strategy (p x n).
    epsilon : float
        Privacy parameter, > 0.
    delta : float, optional
        Use the Gaussian mechanism with this delta in (0, 1).
    calibration : {"analytic", "classic", "ln2delta"}
        Gaussian calibration (see :func:`dpviz.mechanisms.gaussian_sigma`).

    Returns
    -------
    float
        The variance per measurement.

    Raises
    ------
    ValueError
        If ``epsilon`` <= 0, ``delta`` is outside (0, 1), ``calibration`` is not "analytic", "classic" or "ln2delta",
        or ``epsilon`` is so small that the variance overflows.

    Examples
    --------
    >>> noise_variance(np.eye(3), 0.5)   # 2 (1 / 0.5)^2
    8.0
    """
    ls = _as_ls(A)
    epsilon = check_epsilon(epsilon)
    check_choice("calibration", calibration, CALIBRATIONS)
    if delta is None:
        return float(_finite(mechanisms.laplace_variance(ls.l1, epsilon), epsilon, "noise variance"))
    delta = check_delta(delta)
    return _gaussian_variance(ls.l2, epsilon, delta, calibration)


def expected_error(W: Any, A: Any, epsilon: float, *, per_query: bool = False, delta: float | None = None,
                   calibration: Calibration = "analytic") -> Any:
    """Exact expected squared error of the matrix mechanism with strategy ``A`` on workload ``W``.

    Per query: ``(2/epsilon^2) ||A||_1^2 w (A^T A)^+ w^T``; total:
    ``(2/epsilon^2) ||A||_1^2 trace(W (A^T A)^+ W^T)`` [LHRMM10] (Prop. 4; the
    slides' ``TotalError_A(W)``).  With ``delta`` the Gaussian variance
    ``sigma(||A||_2)^2`` replaces ``2 ||A||_1^2 / epsilon^2``.  It does not
    depend on the data.

    Parameters
    ----------
    W : Workload, array or sparse matrix (m x n)
        Implicit range workloads (e.g. :func:`dpviz.workloads.all_ranges`) are
        never expanded into their n^2 rows for the total.
    A : array, sparse matrix, Workload or LeastSquares (p x n)
        The strategy.
    epsilon : float
        Privacy parameter, > 0.
    per_query : bool, default False
        Return the (m,) vector of per-query errors instead of the total.
    delta : float in (0, 1), optional
        Use the Gaussian mechanism ((epsilon, delta)-DP).
    calibration : {"analytic", "classic", "ln2delta"}
        Gaussian calibration (see :func:`dpviz.mechanisms.gaussian_sigma`).

    Returns
    -------
    float or numpy.ndarray
        The total expected squared error, or the (m,) per-query errors.

    Raises
    ------
    ValueError
        Shape mismatch, epsilon <= 0 (or so small that the error overflows), an unknown ``calibration``,
        or A cannot answer W.
    TypeError
        If ``per_query`` is not a bool.

    Examples
    --------
    >>> from dpviz import workloads
    >>> float(expected_error(workloads.all_ranges(4), np.eye(4), 1.0))  # sum over ranges of 2 (j - i + 1)
    40.0
    """
    ls = _as_ls(A)
    per_query = check_bool("per_query", per_query)
    var = noise_variance(ls, epsilon, delta=delta, calibration=calibration)
    v = ls.variances(W, per_query=per_query)
    return _finite(var * v, epsilon, "expected error") if per_query else float(
        _finite(var * v, epsilon, "expected error"))


def direct_laplace_error(W: Any, epsilon: float, *, per_query: bool = False) -> Any:
    """Error of the plain Laplace mechanism on W (no strategy): ``2 (||W||_1 / epsilon)^2`` per query [Mik12].

    Parameters
    ----------
    W : Workload, array_like or scipy.sparse matrix
        The workload (m x n).
    epsilon : float
        Privacy parameter, > 0.
    per_query : bool, default False
        Return the (m,) per-query errors instead of their total.

    Returns
    -------
    float or numpy.ndarray
        The total, or the (m,) per-query expected squared errors.

    Raises
    ------
    ValueError
        If ``epsilon`` <= 0, or so small that the error overflows.
    TypeError
        If ``per_query`` is not a bool.

    Examples
    --------
    >>> from dpviz import workloads
    >>> direct_laplace_error(workloads.all_ranges(4), 1.0)   # 10 queries x 72
    720.0
    """
    W = as_workload(W, name="W")
    epsilon = check_epsilon(epsilon)
    per_query = check_bool("per_query", per_query)
    per = _finite(mechanisms.laplace_variance(W.l1(), epsilon), epsilon, "error")
    return np.full(W.n_queries, per) if per_query else float(_finite(per * W.n_queries, epsilon, "total error"))
