"""Checks of integers: a bounded int, a number of trials, range widths."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["check_int", "check_trials", "check_widths"]

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
