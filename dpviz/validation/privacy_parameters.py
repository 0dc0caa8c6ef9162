"""Checks of the privacy parameters epsilon and delta."""

from __future__ import annotations

from typing import Any

from dpviz.validation.scalars import _scalar, check_positive

__all__ = ["check_epsilon", "check_delta"]


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
