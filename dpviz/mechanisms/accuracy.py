"""Accuracy of a whole release: the expected squared error of the Laplace or Gaussian mechanism on many answers."""

from __future__ import annotations

import math

import numpy as np

from dpviz.mechanisms.gaussian_noise import gaussian_variance
from dpviz.mechanisms.laplace_noise import laplace_variance
from dpviz.validation import check_bool, check_elements, check_int

__all__ = ["expected_squared_error"]


def expected_squared_error(n_queries: int, *, epsilon: float, sensitivity: float | None = None,
                           l2_sensitivity: float | None = None, delta: float | None = None,
                           per_query: bool = False) -> float | np.ndarray:
    """Expected squared error of the Laplace or Gaussian mechanism on ``n_queries`` answers.

    Laplace (give ``sensitivity``): each answer has error ``2 (sensitivity/epsilon)^2``
    (:func:`~dpviz.mechanisms.laplace_variance`); Gaussian (give ``l2_sensitivity``
    and ``delta``): each has ``sigma^2`` (:func:`~dpviz.mechanisms.gaussian_variance`,
    analytic calibration).  The total is ``n_queries`` times that.

    Parameters
    ----------
    n_queries : int
        Number of answers released, >= 1.
    epsilon : float
        Privacy parameter, finite and > 0.
    sensitivity : float, optional
        L1 sensitivity of the answer vector: selects the Laplace mechanism.
    l2_sensitivity : float, optional
        L2 sensitivity of the answer vector: selects the Gaussian mechanism.
    delta : float, optional
        Privacy parameter of the Gaussian mechanism, in (0, 1); required with
        ``l2_sensitivity`` and refused with ``sensitivity``.
    per_query : bool, default False
        Return the error of each answer instead of the total.

    Returns
    -------
    float or numpy.ndarray
        The total expected squared error, or with ``per_query=True`` an array of
        ``n_queries`` equal per-answer errors.

    Raises
    ------
    ValueError
        If not exactly one of ``sensitivity`` and ``l2_sensitivity`` is given, if
        ``delta`` is missing (Gaussian) or given (Laplace), or for an invalid parameter.
    TypeError
        If ``n_queries`` is not an integer.

    Examples
    --------
    >>> expected_squared_error(4, epsilon=0.5, sensitivity=1.0)
    32.0
    >>> expected_squared_error(2, epsilon=1.0, sensitivity=1.0, per_query=True)
    array([2., 2.])
    """
    k = check_int("n_queries", n_queries, minimum=1)
    per_query = check_bool("per_query", per_query)
    if per_query:
        check_elements(float(k), "per-query errors", n_queries=n_queries)
    if sensitivity is not None and l2_sensitivity is None:
        if delta is not None:
            raise ValueError(f"delta={delta} has no meaning for the Laplace mechanism (sensitivity given); "
                             "give l2_sensitivity for the Gaussian mechanism")
        v = laplace_variance(sensitivity, epsilon)
    elif l2_sensitivity is not None and sensitivity is None:
        if delta is None:
            raise ValueError("delta is required with l2_sensitivity (Gaussian mechanism)")
        v = gaussian_variance(l2_sensitivity, epsilon, delta)
    else:
        raise ValueError("give exactly one of sensitivity (Laplace) or l2_sensitivity (Gaussian)")
    total = k * v
    if not math.isfinite(total):
        raise ValueError(f"n_queries={k}, epsilon={epsilon!r}: the total expected squared error {k} x {v:.3g} "
                         "overflows; raise epsilon or lower n_queries")
    return np.full(k, v) if per_query else total
