"""Checks of objects: an instance of a dpviz type (a tree, a release, a workload ...), a callable."""

from __future__ import annotations

from typing import Any

__all__ = ["check_instance", "check_callable"]


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
