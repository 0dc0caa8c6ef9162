"""Checks of arrays: numbers of a given dimension, histograms of counts, query matrices (dense or sparse)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["check_array", "check_counts", "check_matrix", "is_sparse"]


def is_sparse(value: Any) -> bool:
    """Whether ``value`` is a scipy.sparse matrix or array, without importing scipy.sparse.

    scipy.sparse costs a kernel about 0.3 s to import (most explorers never see a sparse matrix); a value can only
    be sparse if scipy.sparse was imported by whoever made it.

    Parameters
    ----------
    value : object
        Anything.

    Returns
    -------
    bool
        True for a scipy.sparse matrix or array.

    Examples
    --------
    >>> is_sparse([[1.0]])
    False
    """
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and bool(sparse.issparse(value))


def check_array(name: str, value: Any, *, ndim: int | tuple[int, ...] | None = None,
                finite: bool = True, dtype: type = float) -> np.ndarray:
    """Convert ``value`` to a numpy array of ``dtype`` and check its dimension and finiteness.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : array_like
        The values to check (strings and None are refused).
    ndim : int or tuple of int, optional
        Allowed number(s) of dimensions; any if None.
    finite : bool, default True
        Whether NaN and inf are refused.
    dtype : type, default float
        The dtype of the returned array.

    Returns
    -------
    numpy.ndarray
        ``value`` as an array of ``dtype`` (a copy only if a conversion was needed).

    Raises
    ------
    TypeError
        If ``value`` is not array-like of numbers.
    ValueError
        If its dimension is not allowed, or it holds NaN/inf while ``finite`` is True.

    Examples
    --------
    >>> check_array("truth", [1, 2], ndim=1)
    array([1., 2.])
    """
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be array-like of numbers, got {type(value).__name__}")
    try:
        arr: np.ndarray = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be array-like of numbers ({exc})") from None
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " or ".join(str(d) for d in allowed)
            raise ValueError(f"{name} must have {want} dimension(s), got shape {arr.shape}")
    if finite and arr.size and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers (no NaN or inf)")
    return arr


def check_counts(name: str, value: Any, *, ndim: int | tuple[int, ...] | None = 1) -> np.ndarray:
    """Check a histogram of counts: finite, non-negative numbers (returned as float64).

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : array_like
        The counts.
    ndim : int or tuple of int, optional, default 1
        Allowed number(s) of dimensions; any if None.

    Returns
    -------
    numpy.ndarray
        The counts as float64.

    Raises
    ------
    TypeError
        If ``value`` is not array-like of numbers.
    ValueError
        If it is empty, has a disallowed dimension, or holds a negative or non-finite count.

    Examples
    --------
    >>> check_counts("x", [3, 0, 2])
    array([3., 0., 2.])
    """
    arr = check_array(name, value, ndim=ndim)
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if np.any(arr < 0):
        i = int(np.flatnonzero(arr.ravel() < 0)[0])
        raise ValueError(f"{name} must be non-negative counts, got {arr.ravel()[i]} at flat index {i}")
    return arr


def check_matrix(name: str, value: Any) -> np.ndarray | sp.spmatrix | sp.sparray:
    """Check a 2-D query matrix, dense (converted to float64) or scipy.sparse (converted to CSC).

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : array_like or scipy.sparse matrix
        The matrix.

    Returns
    -------
    numpy.ndarray or scipy.sparse.csc_array
        The matrix as a float64 array, or as a float CSC array if it was sparse.

    Raises
    ------
    TypeError
        If a dense ``value`` is not array-like of numbers.
    ValueError
        If it is not 2-D, has no row or no column, or holds NaN/inf.

    Examples
    --------
    >>> check_matrix("W", [[1, 0], [1, 1]]).shape
    (2, 2)
    """
    if is_sparse(value):
        import scipy.sparse

        if value.ndim != 2:
            raise ValueError(f"{name} must be 2-dimensional, got shape {value.shape}")
        mat = scipy.sparse.csc_array(value, dtype=float)
        if mat.nnz and not np.all(np.isfinite(mat.data)):
            raise ValueError(f"{name} must contain only finite numbers (no NaN or inf)")
        return mat
    arr = check_array(name, value, ndim=2)
    if 0 in arr.shape:
        raise ValueError(f"{name} must have at least one row and one column, got shape {arr.shape}")
    return arr
