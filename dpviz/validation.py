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
]


def _is_real_scalar(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _scalar(name: str, value: Any) -> float:
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if not _is_real_scalar(value):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{name} must be a number, got NaN")
    return value


def check_positive(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float, requiring ``0 < value`` (and finite unless ``allow_inf``)."""
    v = _scalar(name, value)
    if not allow_inf and math.isinf(v):
        raise ValueError(f"{name} must be finite and > 0, got {v}")
    if v <= 0:
        raise ValueError(f"{name} must be > 0, got {v}")
    return v


def check_nonnegative(name: str, value: Any) -> float:
    """Return ``value`` as a float, requiring ``0 <= value < inf``."""
    v = _scalar(name, value)
    if math.isinf(v) or v < 0:
        raise ValueError(f"{name} must be finite and >= 0, got {v}")
    return v


def check_probability(name: str, value: Any, *, low_open: bool = True, high_open: bool = False) -> float:
    """Return ``value`` as a float in the unit interval with the requested open/closed ends.

    The default checks ``0 < value <= 1``.
    """
    v = _scalar(name, value)
    lo_ok = v > 0 if low_open else v >= 0
    hi_ok = v < 1 if high_open else v <= 1
    if not (lo_ok and hi_ok):
        interval = f"{'(' if low_open else '['}0, 1{')' if high_open else ']'}"
        raise ValueError(f"{name} must lie in {interval}, got {v}")
    return v


def check_open_unit(name: str, value: Any) -> float:
    """Return ``value`` as a float, requiring ``0 < value < 1``."""
    return check_probability(name, value, low_open=True, high_open=True)


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """Privacy parameter epsilon: a finite real number > 0."""
    return check_positive(name, epsilon)


def check_delta(delta: Any, name: str = "delta", *, allow_zero: bool = False) -> float:
    """Privacy parameter delta: ``0 < delta < 1`` (or ``0 <= delta < 1`` with ``allow_zero``)."""
    v = _scalar(name, delta)
    lo_ok = v >= 0 if allow_zero else v > 0
    if not (lo_ok and v < 1):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must lie in {interval}, got {v}")
    return v


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` as a bool; raise TypeError naming ``name`` unless it is True or False.

    A flag such as ``constrained="no"`` is truthy in Python; accepting it would silently do the opposite.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    return bool(value)


def check_int(name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int, requiring an integral type within ``[minimum, maximum]``."""
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
    """Range widths in ``[1, n]`` as int64 (default: all of ``1..n``); refuse non-integers, not truncate them."""
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
    """Number of independent trials: ``None`` (one release, no trial axis) or an int >= 1."""
    if size is None:
        return None
    return check_int(name, size, minimum=1)


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> Any:
    """Return ``value`` if it is one of ``choices``; otherwise list the allowed values."""
    options = list(choices)
    if value not in options:
        allowed = ", ".join(repr(c) for c in options)
        raise ValueError(f"{name} must be one of {allowed}; got {value!r}")
    return value


def check_array(name: str, value: Any, *, ndim: int | tuple[int, ...] | None = None,
                finite: bool = True, dtype: type = float) -> np.ndarray:
    """Convert ``value`` to a numpy array of ``dtype`` and check its dimension and finiteness."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be array-like of numbers, got {type(value).__name__}")
    try:
        arr = np.asarray(value, dtype=dtype)
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
    """A histogram of counts: finite, non-negative numbers (returned as float64)."""
    arr = check_array(name, value, ndim=ndim)
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if np.any(arr < 0):
        i = int(np.flatnonzero(arr.ravel() < 0)[0])
        raise ValueError(f"{name} must be non-negative counts, got {arr.ravel()[i]} at flat index {i}")
    return arr


def check_matrix(name: str, value: Any) -> np.ndarray | sp.spmatrix | sp.sparray:
    """A 2-D query matrix, dense (converted to float64) or scipy.sparse (converted to CSC)."""
    if sp.issparse(value):
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
