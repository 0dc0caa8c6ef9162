"""Checks of integers: a bounded int, a number of trials, range widths."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["check_int", "check_int_array", "check_trials", "check_widths"]

_INT64 = 2**63


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
        If ``value`` is outside ``[minimum, maximum]``, or of magnitude 2**63 or more (numpy's integers are
        64-bit).

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
    if not -_INT64 <= v < _INT64:  # numpy sizes, seeds and indices are 64-bit: a larger int would crash inside it
        raise ValueError(f"{name} must be an integer of magnitude below 2**63 (numpy's integers are 64-bit), got {v}")
    return v


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


def check_widths(n: int, widths: Any, n_name: str = "n") -> np.ndarray:
    """Range widths in ``[1, n]`` as int64 (default: all of ``1..n``); refuse non-integers, not truncate them.

    Parameters
    ----------
    n : int
        Domain size: the largest allowed width.
    widths : array_like of int or None
        The widths to check; ``None`` means every width ``1..n``.
    n_name : str, default "n"
        What ``n`` is called in the caller (e.g. ``"len(x)"``), for the message.

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
        raise ValueError(f"widths must lie in [1, {n_name}={n}], got values in [{w.min()}, {w.max()}]")
    return w.astype(np.int64)


def check_int_array(name: str, value: Any, *, ndim: int | tuple[int, ...] | None = None,
                    minimum: int | None = None, maximum: int | None = None) -> np.ndarray:
    """Integers (positions, sizes, indices) as int64: whole numbers only, never truncated.

    ``np.asarray([0.5], dtype=np.int64)`` silently gives ``[0]``; here a fraction, a bool, a string, NaN or a
    value beyond 2**53 (where doubles skip integers) is refused.  Floats that are whole numbers (``2.0``) are
    accepted.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : array_like
        The integers to check.
    ndim : int or tuple of int, optional
        Allowed number(s) of dimensions; any if None.
    minimum : int, optional
        Smallest allowed entry.
    maximum : int, optional
        Largest allowed entry.

    Returns
    -------
    numpy.ndarray
        ``value`` as an int64 array.

    Raises
    ------
    TypeError
        If ``value`` does not hold numbers (strings, bools, objects).
    ValueError
        If an entry is not a whole number, lies outside ``[minimum, maximum]``, or the dimension is not allowed.

    Examples
    --------
    >>> check_int_array("starts", [0, 2.0, 3]).tolist()
    [0, 2, 3]
    >>> check_int_array("starts", [0, 0.5])
    Traceback (most recent call last):
    ...
    ValueError: starts must hold whole numbers, got 0.5 at flat index 1
    """
    from dpviz.validation.arrays import check_array

    arr = check_array(name, value, ndim=ndim)  # float64: refuses strings, bools, objects, NaN and inf
    whole = arr == np.round(arr)
    if not np.all(whole):
        i = int(np.flatnonzero(~whole.ravel())[0])
        raise ValueError(f"{name} must hold whole numbers, got {float(arr.ravel()[i])!r} at flat index {i}")
    if arr.size and np.max(np.abs(arr)) > 2.0**53:  # beyond 2**53 a double no longer holds every integer
        raise ValueError(f"{name} must hold integers of magnitude at most 2**53, got {np.max(np.abs(arr)):.3g}")
    arr = arr.astype(np.int64)
    if arr.size and minimum is not None and arr.min() < minimum:
        raise ValueError(f"{name} must hold integers >= {minimum}, got {arr.min()}")
    if arr.size and maximum is not None and arr.max() > maximum:
        raise ValueError(f"{name} must hold integers <= {maximum}, got {arr.max()}")
    return arr
