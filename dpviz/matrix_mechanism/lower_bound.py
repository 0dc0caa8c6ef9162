"""The singular-value lower bound on the error of every matrix-mechanism strategy [LM12]_.

References
----------
.. [LM12] C. Li, G. Miklau. "An Adaptive Mechanism for Accurate Query Answering
   under Differential Privacy." PVLDB 5(6), 2012 (singular value bound, Thm 3).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpviz import mechanisms
from dpviz.matrix_mechanism.accuracy import Calibration
from dpviz.validation import check_delta, check_epsilon
from dpviz.workloads import as_workload

__all__ = ["svd_lower_bound"]


def svd_lower_bound(W: Any, epsilon: float, *, delta: float | None = None,
                    calibration: Calibration = "analytic") -> float:
    """Singular-value lower bound on the total error of any matrix-mechanism strategy [LM12].

    epsilon-DP: ``(2/epsilon^2) (1/n) (lambda_1 + ... + lambda_n)^2`` with
    ``lambda_i`` the singular values of ``W``; it holds because ``||A||_1 >=
    ||A||_2`` and, for L2 sensitivity, ``||A||_2^2 tr(W^T W (A^T A)^{-1}) >=
    (1/n)(sum lambda_i)^2`` for every A (tight over all A in the L2 case).
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
    calibration : {"analytic", "classic"}
        Gaussian calibration (see :func:`dpviz.mechanisms.gaussian_sigma`).

    Returns
    -------
    float
        The lower bound on the total expected squared error.

    Raises
    ------
    ValueError
        If ``epsilon`` <= 0 or ``delta`` is outside (0, 1).

    Examples
    --------
    >>> from dpviz import workloads
    >>> round(svd_lower_bound(workloads.identity(4), 1.0), 6)   # Identity is optimal for W = I
    8.0
    """
    W = as_workload(W, name="W")
    epsilon = check_epsilon(epsilon)
    s = float(np.sum(W.singular_values()))
    if delta is None:
        unit = mechanisms.laplace_variance(1.0, epsilon)
    else:
        unit = mechanisms.gaussian_sigma(1.0, epsilon, check_delta(delta), calibration) ** 2
    return unit * s * s / W.n
