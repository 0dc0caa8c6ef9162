"""Argument checks shared by every dpviz module.

All user-facing validation lives here so that each message has the same shape:
it names the parameter, shows the value received and states the allowed range
or the fix.  ``TypeError`` is raised for a value of the wrong type and
``ValueError`` for a value of the right type outside its range.  Nothing is
ever clipped silently.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = [
    "check_positive",
    "check_nonnegative",
    "check_probability",
    "check_open_unit",
    "check_int",
    "check_choice",
    "check_array",
    "check_counts",
    "check_matrix",
    "check_epsilon",
    "check_delta",
    "check_trials",
    "check_bool",
    "check_widths",
]


def _is_real_scalar(value: Any) -> bool:
    """Whether ``value`` is a real number and not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _scalar(name: str, value: Any) -> float:
    """``value`` as a float, refusing non-numbers (TypeError) and NaN (ValueError)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if not _is_real_scalar(value):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{name} must be a number, got NaN")
    return value


def check_positive(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float, requiring ``0 < value`` (and finite unless ``allow_inf``).

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check: a real number (or a 0-d array holding one).
    allow_inf : bool, default False
        Whether ``+inf`` is accepted.

    Returns
    -------
    float
        ``value`` as a Python float.

    Raises
    ------
    TypeError
        If ``value`` is not a real number (bools are refused).
    ValueError
        If ``value`` is NaN, <= 0, or infinite without ``allow_inf``.

    Examples
    --------
    >>> check_positive("scale", 2)
    2.0
    >>> check_positive("scale", 0)
    Traceback (most recent call last):
    ...
    ValueError: scale must be > 0, got 0.0
    """
    v = _scalar(name, value)
    if not allow_inf and math.isinf(v):
        raise ValueError(f"{name} must be finite and > 0, got {v}")
    if v <= 0:
        raise ValueError(f"{name} must be > 0, got {v}")
    return v


def check_nonnegative(name: str, value: Any) -> float:
    """Return ``value`` as a float, requiring ``0 <= value < inf``.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check: a real number.

    Returns
    -------
    float
        ``value`` as a Python float.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If ``value`` is NaN, negative or infinite.

    Examples
    --------
    >>> check_nonnegative("sensitivity", 0)
    0.0
    """
    v = _scalar(name, value)
    if math.isinf(v) or v < 0:
        raise ValueError(f"{name} must be finite and >= 0, got {v}")
    return v


def check_probability(name: str, value: Any, *, low_open: bool = True, high_open: bool = False) -> float:
    """Return ``value`` as a float in the unit interval with the requested open/closed ends.

    The default checks ``0 < value <= 1``.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check: a real number.
    low_open : bool, default True
        Whether 0 is excluded.
    high_open : bool, default False
        Whether 1 is excluded.

    Returns
    -------
    float
        ``value`` as a Python float.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If ``value`` is NaN or outside the interval (the message shows the interval).

    Examples
    --------
    >>> check_probability("share", 0.25)
    0.25
    >>> check_probability("share", 0, low_open=False)
    0.0
    """
    v = _scalar(name, value)
    lo_ok = v > 0 if low_open else v >= 0
    hi_ok = v < 1 if high_open else v <= 1
    if not (lo_ok and hi_ok):
        interval = f"{'(' if low_open else '['}0, 1{')' if high_open else ']'}"
        raise ValueError(f"{name} must lie in {interval}, got {v}")
    return v


def check_open_unit(name: str, value: Any) -> float:
    """Return ``value`` as a float, requiring ``0 < value < 1``.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check: a real number.

    Returns
    -------
    float
        ``value`` as a Python float.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If ``value`` is NaN or outside (0, 1).

    Examples
    --------
    >>> check_open_unit("alpha", 0.05)
    0.05
    """
    return check_probability(name, value, low_open=True, high_open=True)


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """Check the privacy parameter epsilon: a finite real number > 0.

    Parameters
    ----------
    epsilon : object
        The value to check.
    name : str, default "epsilon"
        The parameter's name, used in the error message.

    Returns
    -------
    float
        ``epsilon`` as a Python float.

    Raises
    ------
    TypeError
        If ``epsilon`` is not a real number.
    ValueError
        If ``epsilon`` is NaN, infinite or <= 0.

    Examples
    --------
    >>> check_epsilon(0.5)
    0.5
    >>> check_epsilon(-1, "total_epsilon")
    Traceback (most recent call last):
    ...
    ValueError: total_epsilon must be > 0, got -1.0
    """
    return check_positive(name, epsilon)


def check_delta(delta: Any, name: str = "delta", *, allow_zero: bool = False) -> float:
    """Check the privacy parameter delta: ``0 < delta < 1`` (or ``0 <= delta < 1`` with ``allow_zero``).

    Parameters
    ----------
    delta : object
        The value to check.
    name : str, default "delta"
        The parameter's name, used in the error message.
    allow_zero : bool, default False
        Whether ``delta = 0`` (pure differential privacy) is accepted.

    Returns
    -------
    float
        ``delta`` as a Python float.

    Raises
    ------
    TypeError
        If ``delta`` is not a real number.
    ValueError
        If ``delta`` is NaN or outside the allowed interval.

    Examples
    --------
    >>> check_delta(1e-5)
    1e-05
    >>> check_delta(0.0, allow_zero=True)
    0.0
    """
    v = _scalar(name, delta)
    lo_ok = v >= 0 if allow_zero else v > 0
    if not (lo_ok and v < 1):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must lie in {interval}, got {v}")
    return v


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` as a bool; raise TypeError naming ``name`` unless it is True or False.

    A flag such as ``constrained="no"`` is truthy in Python; accepting it would silently do the opposite.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check: ``True``, ``False`` or a numpy bool.

    Returns
    -------
    bool
        ``value`` as a Python bool.

    Raises
    ------
    TypeError
        If ``value`` is not a bool.

    Examples
    --------
    >>> check_bool("monotonic", True)
    True
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    return bool(value)


def check_int(name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int, requiring an integral type within ``[minimum, maximum]``.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check: a Python or numpy integer (bools and floats are refused).
    minimum : int, optional
        Smallest allowed value.
    maximum : int, optional
        Largest allowed value.

    Returns
    -------
    int
        ``value`` as a Python int.

    Raises
    ------
    TypeError
        If ``value`` is not an integer.
    ValueError
        If ``value`` is outside ``[minimum, maximum]``.

    Examples
    --------
    >>> check_int("trials", 100, minimum=2)
    100
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, np.ndarray) and value.ndim == 0 and np.issubdtype(value.dtype, np.integer):
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {value!r} of type {type(value).__name__}")
    v = int(value)
    if minimum is not None and v < minimum:
        bound = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
        raise ValueError(f"{name} must be an integer {bound}, got {v}")
    if maximum is not None and v > maximum:
        bound = f"<= {maximum}" if minimum is None else f"in [{minimum}, {maximum}]"
        raise ValueError(f"{name} must be an integer {bound}, got {v}")
    return v


def check_widths(n: int, widths: Any) -> np.ndarray:
    """Range widths in ``[1, n]`` as int64 (default: all of ``1..n``); refuse non-integers, not truncate them.

    Parameters
    ----------
    n : int
        Domain size: the largest allowed width.
    widths : array_like of int or None
        The widths to check; ``None`` means every width ``1..n``.

    Returns
    -------
    numpy.ndarray
        The widths as a 1-D int64 array.

    Raises
    ------
    TypeError
        If ``widths`` does not hold integers.
    ValueError
        If ``widths`` is empty, not 1-D, or has a value outside ``[1, n]``.

    Examples
    --------
    >>> check_widths(4, None)
    array([1, 2, 3, 4])
    """
    if widths is None:
        return np.arange(1, n + 1, dtype=np.int64)
    w = np.atleast_1d(np.asarray(widths))
    if not np.issubdtype(w.dtype, np.integer):
        raise TypeError(f"widths must be integers, got dtype {w.dtype}")
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"widths must be a non-empty 1-D array, got shape {w.shape}")
    if w.min() < 1 or w.max() > n:
        raise ValueError(f"widths must lie in [1, n={n}], got values in [{w.min()}, {w.max()}]")
    return w.astype(np.int64)


def check_trials(size: Any, name: str = "size") -> int | None:
    """Check a number of independent trials: ``None`` (one release, no trial axis) or an int >= 1.

    Parameters
    ----------
    size : object
        The value to check.
    name : str, default "size"
        The parameter's name, used in the error message.

    Returns
    -------
    int or None
        ``size`` as a Python int, or None.

    Raises
    ------
    TypeError
        If ``size`` is neither None nor an integer.
    ValueError
        If ``size`` < 1.

    Examples
    --------
    >>> check_trials(None) is None, check_trials(3)
    (True, 3)
    """
    if size is None:
        return None
    return check_int(name, size, minimum=1)


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> Any:
    """Return ``value`` if it is one of ``choices``; otherwise list the allowed values.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check.
    choices : iterable
        The allowed values.

    Returns
    -------
    object
        ``value`` unchanged.

    Raises
    ------
    ValueError
        If ``value`` is not one of ``choices`` (the message lists them).

    Examples
    --------
    >>> check_choice("method", "fast", ("exact", "fast"))
    'fast'
    >>> check_choice("method", "slow", ("exact", "fast"))
    Traceback (most recent call last):
    ...
    ValueError: method must be one of 'exact', 'fast'; got 'slow'
    """
    options = list(choices)
    if value not in options:
        allowed = ", ".join(repr(c) for c in options)
        raise ValueError(f"{name} must be one of {allowed}; got {value!r}")
    return value


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
    sparse = sp.issparse(value)  # a plain bool: the scipy stubs' narrowing would hide the matrix's attributes
    if sparse:
        if value.ndim != 2:
            raise ValueError(f"{name} must be 2-dimensional, got shape {value.shape}")
        mat = sp.csc_array(value, dtype=float)
        if mat.nnz and not np.all(np.isfinite(mat.data)):
            raise ValueError(f"{name} must contain only finite numbers (no NaN or inf)")
        return mat
    arr = check_array(name, value, ndim=2)
    if 0 in arr.shape:
        raise ValueError(f"{name} must have at least one row and one column, got shape {arr.shape}")
    return arr
