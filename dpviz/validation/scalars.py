"""Checks of one real number: positive, non-negative, in the unit interval, a flag, one of a set of choices."""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["check_real", "check_positive", "check_nonnegative", "check_probability", "check_open_unit", "check_bool",
           "check_choice"]


#: The smallest positive normal double, 2.2e-308: below it numbers lose precision and ``1 / value`` overflows.
_SMALLEST_NORMAL = sys.float_info.min


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


def check_real(name: str, value: Any) -> float:
    """Return ``value`` as a float, requiring a finite real number of any sign (not a bool, not a string).

    For parameters such as a public threshold or a location, where negative values are fine but ``True``
    (read as 1 by Python) or ``"3"`` is a mistake.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check: a real number (or a 0-d array holding one).

    Returns
    -------
    float
        ``value`` as a Python float.

    Raises
    ------
    TypeError
        If ``value`` is not a real number (bools and strings included).
    ValueError
        If ``value`` is NaN or infinite.

    Examples
    --------
    >>> check_real("threshold", -2)
    -2.0
    >>> check_real("threshold", True)
    Traceback (most recent call last):
    ...
    TypeError: threshold must be a real number, got True of type bool
    """
    v = _scalar(name, value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    return v


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
        If ``value`` is NaN, <= 0, subnormal (below 2.2e-308), or infinite without ``allow_inf``.

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
    if v < _SMALLEST_NORMAL:
        raise ValueError(f"{name}={v!r} is too small: it must be at least {_SMALLEST_NORMAL:.4g} (the smallest normal "
                         "double; a subnormal number carries too few digits, and its reciprocal overflows)")
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
