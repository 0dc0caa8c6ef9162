"""The singular-value lower bound on the error of every matrix-mechanism strategy [LM12]_.

It is a lower bound, not the error of a strategy one can always reach: under L2 sensitivity it is attained
exactly when the strategy ``(W^T W)^{1/4}`` has columns of equal L2 norm (e.g. ``W = I``); for all ranges at
``n = 8`` the bound is below the error of the best strategy.

References
----------
.. [LM12] C. Li, G. Miklau. "An Adaptive Mechanism for Accurate Query Answering
   under Differential Privacy." PVLDB 5(6), 2012 (singular value bound, Thm 3).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpviz import mechanisms
from dpviz.matrix_mechanism.accuracy import CALIBRATIONS, Calibration, _finite, _gaussian_variance
from dpviz.validation import check_choice, check_delta, check_epsilon
from dpviz.workloads import as_workload

__all__ = ["svd_lower_bound"]


def svd_lower_bound(W: Any, epsilon: float, *, delta: float | None = None,
                    calibration: Calibration = "analytic") -> float:
    """Singular-value lower bound on the total error of any matrix-mechanism strategy [LM12].

    epsilon-DP: ``(2/epsilon^2) (1/n) (lambda_1 + ... + lambda_n)^2`` with
    ``lambda_i`` the singular values of ``W``; it holds because ``||A||_1 >=
    ||A||_2`` and, for L2 sensitivity, ``||A||_2^2 tr(W^T W (A^T A)^{-1}) >=
    (1/n)(sum lambda_i)^2`` for every A.  It is a lower bound, not always
    reached: under L2 sensitivity it is attained exactly when the strategy
    ``(W^T W)^{1/4}`` has columns of equal L2 norm (as for ``W = I``); for all
    ranges at n = 8 every strategy's error is above it.
    (epsilon, delta)-DP: ``sigma(1)^2 (1/n) (sum lambda_i)^2``, ``sigma(1)`` the
    Gaussian scale for L2 sensitivity 1 (the slides' form ``2 ln(2/delta) / epsilon^2``
    corresponds to ``sigma(1)^2 = 2 ln(2/delta)/epsilon^2``).

    Parameters
    ----------
    W : Workload, array_like or scipy.sparse matrix
        The workload (m x n).
    epsilon : float
        Privacy parameter, > 0.
    delta : float, optional
        Bound for the Gaussian mechanism with this delta in (0, 1).
    calibration : {"analytic", "classic", "ln2delta"}
        Gaussian calibration (see :func:`dpviz.mechanisms.gaussian_sigma`).

    Returns
    -------
    float
        The lower bound on the total expected squared error.

    Raises
    ------
    ValueError
        If ``epsilon`` <= 0 (or so small that the bound overflows), ``delta`` is outside (0, 1),
        or ``calibration`` is not "analytic", "classic" or "ln2delta".

    Examples
    --------
    >>> from dpviz import workloads
    >>> round(svd_lower_bound(workloads.identity(4), 1.0), 6)   # Identity is optimal for W = I
    8.0
    """
    W = as_workload(W, name="W")
    epsilon = check_epsilon(epsilon)
    check_choice("calibration", calibration, CALIBRATIONS)
    if delta is not None:
        delta = check_delta(delta)
    s = float(np.sum(W.singular_values()))
    if delta is None:
        unit = mechanisms.laplace_variance(1.0, epsilon)
    else:
        unit = _gaussian_variance(1.0, epsilon, delta, calibration)
    return float(_finite(unit * s * s / W.n, epsilon, "lower bound"))
