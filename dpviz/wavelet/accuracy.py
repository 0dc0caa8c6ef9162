"""Exact error of Privelet: the covariance of its leaf estimates and the mean squared error of range queries.

See :mod:`dpviz.wavelet` for the construction and the references ([XWG10])."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from dpviz.mechanisms import laplace_variance
from dpviz.validation import (
    check_covariance,
    check_elements,
    check_epsilon,
    check_int,
    check_widths,
)

if TYPE_CHECKING:
    pass
from dpviz.wavelet.haar import _check_haar_size, _full_haar, haar_sensitivity

__all__ = ["privelet_covariance", "range_variance_by_width", "privelet_range_mse_by_width",
           "privelet_average_range_mse"]


def _finite(value: np.ndarray | float, epsilon: float) -> None:
    """Refuse an epsilon so small that the variances overflow floating point (a range error, not inf)."""
    with np.errstate(all="ignore"):
        if not np.all(np.isfinite(value)):
            raise ValueError(f"epsilon={epsilon!r} is too small: the Privelet variances overflow floating "
                             "point (use a larger epsilon)")


def privelet_covariance(n: int, epsilon: float) -> np.ndarray:
    """Exact covariance of Privelet's leaf estimates: ``sigma^2 Y^T diag(1/s^2) Y`` restricted to the n real cells.

    ``sigma^2 = 2 (1 + log2 N)^2 / epsilon^2`` is the Laplace variance of each
    noisy coefficient [XWG10].  Dense (n, n): meant for n up to a few thousand.

    Parameters
    ----------
    n : int
        Number of cells, >= 1.
    epsilon : float
        Privacy parameter, > 0.

    Returns
    -------
    numpy.ndarray
        The (n, n) covariance matrix.

    Raises
    ------
    ValueError
        If ``epsilon`` <= 0 (or so small that the variances overflow), ``n`` < 1, or the (n, n) matrix
        would exceed :data:`dpviz.validation.MAX_ELEMENTS` entries.
    TypeError
        If ``n`` is not an integer.

    Examples
    --------
    >>> privelet_covariance(2, 1.0).tolist()   # sigma^2 = 2 * 2^2 = 8 per coefficient
    [[4.0, 0.0], [0.0, 4.0]]
    """
    n = check_int("n", n, minimum=1)
    epsilon = check_epsilon(epsilon)
    check_elements(float(n) * n, "covariance entries", n=n)
    N = _check_haar_size(n)
    A, s = _full_haar(N)
    sigma2 = laplace_variance(haar_sensitivity(n), epsilon)
    _finite(sigma2, epsilon)
    Ac = A[:, :n].tocsc()
    cov = (Ac.T @ sp.diags_array(sigma2 / s**2) @ Ac).toarray()
    _finite(cov, epsilon)
    return cov


def _prefix_cov(cov: np.ndarray) -> np.ndarray:
    """K[i, j] = Cov(prefix_i, prefix_j), prefix_i = sum of the first i estimates; shape (n+1, n+1)."""
    n = cov.shape[0]
    K = np.zeros((n + 1, n + 1))
    np.cumsum(cov, axis=0, out=K[1:, 1:])
    np.cumsum(K[1:, 1:], axis=1, out=K[1:, 1:])
    return K


def range_variance_by_width(cov: np.ndarray, widths: npt.ArrayLike) -> np.ndarray:
    """Average variance over all ranges of each width, for leaf estimates of covariance ``cov``.

    ``Var(sum_{a in [i, i+w)} xhat_a) = K[i+w, i+w] - 2 K[i, i+w] + K[i, i]`` with
    ``K`` the prefix covariance; averaged over ``i = 0..n-w``.

    Parameters
    ----------
    cov : numpy.ndarray
        (n, n) covariance of the leaf estimates.
    widths : array_like of int
        Range widths in ``[1, n]``.

    Returns
    -------
    numpy.ndarray
        One average variance per width.

    Raises
    ------
    ValueError
        If ``cov`` is not a finite square 2-D array, or a width is outside ``[1, n]``.
    TypeError
        If ``cov`` is not numeric or a width is not an integer.

    Examples
    --------
    >>> range_variance_by_width(np.eye(3), [1, 2, 3]).tolist()   # independent unit leaves
    [1.0, 2.0, 3.0]
    """
    cov = check_covariance("cov", cov)  # an indefinite one would give some ranges a negative variance
    return _range_variance_by_width(cov, check_widths(cov.shape[0], widths))


def _range_variance_by_width(cov: np.ndarray, ws: np.ndarray) -> np.ndarray:
    """:func:`range_variance_by_width` on a checked covariance and widths (Privelet's own, known to be one)."""
    n = cov.shape[0]
    K = _prefix_cov(cov)
    d = np.diagonal(K)
    out = np.empty(len(ws))
    for t, w in enumerate(ws):
        i = np.arange(n - w + 1)
        out[t] = np.mean(d[i + w] + d[i] - 2.0 * K[i, i + w])
    return out


def privelet_range_mse_by_width(n: int, epsilon: float, widths: npt.ArrayLike | None = None) -> np.ndarray:
    """Exact MSE of Privelet range answers averaged over all ranges of each width.

    Parameters
    ----------
    n : int
        Number of cells, >= 1.
    epsilon : float
        Privacy parameter, > 0.
    widths : array_like of int, optional
        Range widths in ``[1, n]`` (default all of ``1..n``).

    Returns
    -------
    numpy.ndarray
        One mean squared error per width.

    Raises
    ------
    ValueError
        If ``n`` < 1, ``epsilon`` <= 0 or a width is outside ``[1, n]``.
    TypeError
        If ``n`` or a width is not an integer.

    Examples
    --------
    >>> privelet_range_mse_by_width(2, 1.0).tolist()
    [4.0, 8.0]
    """
    n = check_int("n", n, minimum=1)
    check_elements(float(n) * n, "covariance entries", n=n)
    ws = check_widths(n, widths)
    out = _range_variance_by_width(privelet_covariance(n, epsilon), ws)
    _finite(out, epsilon)
    return out


def privelet_average_range_mse(n: int, epsilon: float) -> float:
    """Exact MSE of Privelet averaged over all n(n+1)/2 range queries.

    Sum over pairs ``i < j`` of ``K_jj + K_ii - 2 K_ij`` equals
    ``(n+1) tr K - 1^T K 1`` for the prefix covariance K.

    Parameters
    ----------
    n : int
        Number of cells, >= 1.
    epsilon : float
        Privacy parameter, > 0.

    Returns
    -------
    float
        The average expected squared error of a range query.

    Raises
    ------
    ValueError
        If ``n`` < 1 or ``epsilon`` <= 0.
    TypeError
        If ``n`` is not an integer.

    Examples
    --------
    >>> privelet_average_range_mse(2, 1.0)   # (4 + 4 + 8) / 3
    5.333333333333333
    """
    n = check_int("n", n, minimum=1)
    K = _prefix_cov(privelet_covariance(n, epsilon))
    out = float(((n + 1) * np.trace(K) - K.sum()) / (n * (n + 1) / 2))
    _finite(out, epsilon)
    return out
