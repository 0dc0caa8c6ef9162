"""Checks of objects: an instance of a dpviz type (a tree, a release, a workload ...), a callable."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["check_instance", "check_callable", "check_sequence"]


def check_instance(name: str, value: Any, cls: type | tuple[type, ...], what: str = "") -> Any:
    """Return ``value`` if it is an instance of ``cls``; otherwise raise a TypeError naming ``name``.

    A string or a number passed where a tree or a release is expected would otherwise fail deep inside with
    an AttributeError that names neither the parameter nor the fix.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check.
    cls : type or tuple of types
        The allowed type(s).
    what : str, optional
        How to obtain a valid value, e.g. ``"build one with build_tree(n, b)"``, appended to the message.

    Returns
    -------
    object
        ``value`` unchanged.

    Raises
    ------
    TypeError
        If ``value`` is not an instance of ``cls``.

    Examples
    --------
    >>> check_instance("n", 3, int)
    3
    >>> check_instance("tree", "t", int, "build one with build_tree(n, b)")
    Traceback (most recent call last):
    ...
    TypeError: tree must be of type int (build one with build_tree(n, b)), got 't' of type str
    """
    if not isinstance(value, cls):
        names = " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,)))
        hint = f" ({what})" if what else ""
        raise TypeError(f"{name} must be of type {names}{hint}, got {value!r:.60} of type {type(value).__name__}")
    return value


def check_callable(name: str, value: Any, how: str = "") -> Any:
    """Return ``value`` if it is callable; otherwise raise a TypeError naming ``name``.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : object
        The value to check.
    how : str, optional
        How it is called, e.g. ``"predicate(outputs) -> bool array"``, shown in the message.

    Returns
    -------
    object
        ``value`` unchanged.

    Raises
    ------
    TypeError
        If ``value`` is not callable.

    Examples
    --------
    >>> check_callable("predicate", abs) is abs
    True
    """
    if not callable(value):
        called = f" as {how}" if how else ""
        raise TypeError(f"{name} must be callable{called}, got {value!r:.60} of type {type(value).__name__}")
    return value


def check_sequence(name: str, value: Any) -> list[Any]:
    """``value`` as a list, refusing a lone string, a 0-d array or anything that is not iterable.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : iterable
        A list, tuple, 1-D array or other iterable of values.

    Returns
    -------
    list
        The values, in order.

    Raises
    ------
    TypeError
        If ``value`` is a string, a 0-d array or not iterable.

    Examples
    --------
    >>> check_sequence("epsilons", (0.5, 1.0))
    [0.5, 1.0]
    >>> check_sequence("epsilons", np.array(0.5))
    Traceback (most recent call last):
    ...
    TypeError: epsilons must be a list of values, got array(0.5) (a 0-d array)
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        raise TypeError(f"{name} must be a list of values, got {value!r} (a 0-d array)")
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list, got {value!r:.60} of type {type(value).__name__}")
    return list(value)
