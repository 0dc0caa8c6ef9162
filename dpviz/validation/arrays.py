"""Checks of arrays: numbers of a given dimension, histograms of counts, query matrices (dense or sparse)."""

from __future__ import annotations

import numbers
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["MAX_MAGNITUDE", "check_array", "check_counts", "check_covariance", "check_matrix", "is_sparse"]

#: Largest magnitude of a data value (a count, an answer, a score, a matrix entry): its square (1e200), a sum of
#: :data:`~dpviz.validation.MAX_ELEMENTS` of them (1.3e108) and a Laplace scale of 1e100 on top all stay far below
#: the largest double, 1.8e308; beyond it, sums and variances overflow to inf without a word.
MAX_MAGNITUDE = 1e100


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


def _refuse_non_numbers(name: str, raw: np.ndarray, allow_bool: bool) -> None:
    """Refuse arrays of strings, of booleans (unless allowed) and objects that are not all real numbers.

    numpy converts ``["1", "2"]``, ``[True, False]`` and ``np.array([1, "2"], dtype=object)`` to floats
    without a word; each is a mistake where numbers are expected (a bool is not a count).
    """
    kind = raw.dtype.kind
    if kind in "USVMm":
        raise TypeError(f"{name} must hold numbers, got an array of dtype {raw.dtype} (e.g. {raw.ravel()[:1]!r})")
    if kind == "b" and not allow_bool:
        raise TypeError(f"{name} must hold numbers, got booleans (True/False); convert them explicitly, "
                        f"e.g. {name}.astype(float)")
    if kind == "O":
        for v in raw.ravel():
            if isinstance(v, (bool, np.bool_)) and not allow_bool or not isinstance(v, (numbers.Real, np.bool_)):
                raise TypeError(f"{name} must hold numbers, got {v!r} of type {type(v).__name__} in an array of "
                                "objects")


def check_array(name: str, value: Any, *, ndim: int | tuple[int, ...] | None = None,
                finite: bool = True, dtype: type = float, allow_bool: bool = False,
                max_abs: float | None = None) -> np.ndarray:
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
    allow_bool : bool, default False
        Whether booleans are accepted (as 0 and 1), e.g. the bits of randomized response; otherwise an
        array of True/False is refused, as are strings and objects that are not numbers.
    max_abs : float, optional
        Largest magnitude allowed for an entry (e.g. :data:`MAX_MAGNITUDE` for data whose sums and squares
        must not overflow); any if None.

    Returns
    -------
    numpy.ndarray
        ``value`` as an array of ``dtype`` (a copy only if a conversion was needed).

    Raises
    ------
    TypeError
        If ``value`` is not array-like of numbers (strings, booleans without ``allow_bool``, other objects).
    ValueError
        If its dimension is not allowed, it holds NaN/inf while ``finite`` is True, or an entry's magnitude
        exceeds ``max_abs``.

    Examples
    --------
    >>> check_array("truth", [1, 2], ndim=1)
    array([1., 2.])
    """
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be array-like of numbers, got {type(value).__name__}")
    try:
        raw = np.asarray(value)
        _refuse_non_numbers(name, raw, allow_bool)
        arr: np.ndarray = raw.astype(dtype, copy=False)
    except (TypeError, ValueError) as exc:
        if str(exc).startswith(name):
            raise
        raise TypeError(f"{name} must be array-like of numbers ({exc})") from None
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " or ".join(str(d) for d in allowed)
            raise ValueError(f"{name} must have {want} dimension(s), got shape {arr.shape}")
    if finite and arr.size and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers (no NaN or inf)")
    if max_abs is not None and arr.size and arr.dtype.kind in "iuf":
        _check_magnitude(name, arr, max_abs)
    return arr


def _check_magnitude(name: str, arr: np.ndarray, max_abs: float) -> None:
    big = np.abs(arr) > max_abs
    if np.any(big):
        i = int(np.flatnonzero(big.ravel())[0])
        raise ValueError(f"{name} must hold numbers of magnitude at most {max_abs:.0e} (their sums and squares "
                         f"must not overflow double precision), got {arr.ravel()[i]:.6g} at flat index {i}")


def check_counts(name: str, value: Any, *, ndim: int | tuple[int, ...] | None = 1) -> np.ndarray:
    """Check a histogram of counts: finite, non-negative numbers of at most :data:`MAX_MAGNITUDE` (as float64).

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
        If it is empty, has a disallowed dimension, or holds a negative, non-finite or too large count.

    Examples
    --------
    >>> check_counts("x", [3, 0, 2])
    array([3., 0., 2.])
    """
    arr = check_array(name, value, ndim=ndim, max_abs=MAX_MAGNITUDE)
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


def check_covariance(name: str, value: Any) -> np.ndarray:
    """Check a covariance matrix: square, symmetric and positive semidefinite (returned as float64).

    A matrix with a negative eigenvalue gives negative "variances" to some sums of the variables; such an
    input is refused here rather than turned into a negative variance.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : array_like
        The (n, n) matrix.

    Returns
    -------
    numpy.ndarray
        The matrix as float64.

    Raises
    ------
    TypeError
        If ``value`` is not array-like of numbers.
    ValueError
        If it is not a non-empty square 2-D array of finite numbers of magnitude at most :data:`MAX_MAGNITUDE`,
        not symmetric, or has an eigenvalue below ``-1e-10`` times its largest (not positive semidefinite).

    Examples
    --------
    >>> check_covariance("cov", [[2.0, 1.0], [1.0, 2.0]]).tolist()
    [[2.0, 1.0], [1.0, 2.0]]
    >>> check_covariance("cov", [[1.0, 2.0], [2.0, 1.0]])
    Traceback (most recent call last):
    ...
    ValueError: cov must be positive semidefinite (a covariance), got an eigenvalue of -1 (largest 3)
    """
    arr = check_array(name, value, ndim=2, max_abs=MAX_MAGNITUDE)
    if arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square (n, n) covariance matrix, got shape {arr.shape}")
    scale = float(np.max(np.abs(arr)))
    if not np.allclose(arr, arr.T, rtol=1e-10, atol=1e-12 * scale):
        raise ValueError(f"{name} must be symmetric (a covariance), got one that differs from its transpose by up to "
                         f"{float(np.max(np.abs(arr - arr.T))):.3g}")
    eig = np.linalg.eigvalsh(arr)
    if eig[0] < -1e-10 * max(float(eig[-1]), 0.0) or (eig[-1] <= 0 < -eig[0]):
        raise ValueError(f"{name} must be positive semidefinite (a covariance), got an eigenvalue of {eig[0]:.3g} "
                         f"(largest {eig[-1]:.3g})")
    return arr
