"""Reconstruction from noisy strategy answers: the least-squares (or non-negative) estimate and its weights."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.optimize import lsq_linear

from dpviz.matrix_mechanism.least_squares import LeastSquares, _as_ls
from dpviz.validation import MAX_MAGNITUDE, check_array, check_bool

__all__ = ["reconstruct", "query_weights"]


def reconstruct(A: Any, y: npt.ArrayLike, *, nonnegative: bool = False) -> np.ndarray:
    """Least-squares estimate ``x_hat`` from noisy strategy answers ``y`` of shape (p,) or (k, p).

    ``nonnegative=False``: ``(A^T A)^+ A^T y`` (A factorised once, all k trials
    solved together).  ``nonnegative=True``: ``argmin_{x >= 0} ||A x - y||_2``
    per trial with ``scipy.optimize.lsq_linear`` (iterative, much slower, and
    biased, so :func:`~dpviz.matrix_mechanism.expected_error` no longer applies;
    meant for n up to a few hundred).

    Parameters
    ----------
    A : array_like, scipy.sparse matrix, Workload or LeastSquares
        The strategy (p x n).
    y : array_like
        Noisy strategy answers, shape (p,) or (k, p).
    nonnegative : bool, default False
        Constrain the estimate to ``x >= 0``.

    Returns
    -------
    numpy.ndarray
        The estimate, shape (n,) or (k, n).

    Raises
    ------
    ValueError
        If ``y`` is not finite or its last axis is not the number of rows of A.
    TypeError
        If ``nonnegative`` is not a bool.

    Examples
    --------
    >>> reconstruct([[1, 1], [1, 0], [0, 1]], [3.0, 1.0, 2.0]).round(6).tolist()
    [1.0, 2.0]
    """
    ls = _as_ls(A)
    if not check_bool("nonnegative", nonnegative):
        return ls.estimate(y, keep=isinstance(A, LeastSquares))   # a matrix given here is used once
    y = check_array("y", y, ndim=(1, 2), max_abs=MAX_MAGNITUDE)
    if y.shape[-1] != ls.n_rows:
        raise ValueError(f"y must have {ls.n_rows} entries (rows of A) on its last axis, got shape {y.shape}")
    Am = ls._op.matrix() if ls._op is not None else ls._A
    sparse = sp.issparse(Am)
    Y = np.atleast_2d(y)
    out = np.empty((Y.shape[0], ls.n))
    for t, yt in enumerate(Y):
        res = lsq_linear(Am, yt, bounds=(0.0, np.inf), method="trf" if sparse else "bvls",
                         lsmr_tol="auto" if sparse else None, tol=1e-10)
        out[t] = res.x
    return out[0] if y.ndim == 1 else out


def query_weights(w: npt.ArrayLike, A: Any) -> np.ndarray:
    """Weights ``c = w (A^T A)^+ A^T`` of the least-squares estimate ``c y`` of ``w x`` from ``y = A x + noise``.

    Parameters
    ----------
    w : array_like
        The query, shape (n,).
    A : array_like, scipy.sparse matrix, Workload or LeastSquares
        The strategy (p x n).

    Returns
    -------
    numpy.ndarray
        The (p,) weights of the measurements.

    Raises
    ------
    ValueError
        If ``w`` does not have n entries, or lies outside the row space of A.

    Examples
    --------
    >>> from dpviz import strategies
    >>> (21 * query_weights([0, 1, 1, 0], strategies.hierarchical(4, 2))).round(6).tolist()
    [-9.0, 12.0, 12.0, -9.0, 3.0, 3.0, 6.0]
    """
    ls = _as_ls(A)
    w = check_array("w", w, ndim=1, max_abs=MAX_MAGNITUDE)
    if w.size != ls.n:
        raise ValueError(f"w must have n={ls.n} entries (columns of A), got {w.size}")
    ls.check_answerable(w[None, :])
    return ls.estimate(np.eye(ls.n_rows)) @ w
