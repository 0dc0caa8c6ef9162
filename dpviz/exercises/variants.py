"""Per-student variants: each student's own numbers in every exercise, drawn from their name or id.

A student calls ``ex.start("their name or id")`` once; every exercise that declares ``parameters`` then shows
that student's values (``ex.values("1.3")``) and its checker computes the expected answer from them.  Each value
is picked by a SHA-256 hash of the exercise, the parameter and the id (no random generator), so the same id gives
the same numbers after a kernel restart, on another machine and in the grader's run, whatever their NumPy; what
a variant draws beyond its values (6.4's hidden histogram) is seeded by the hash through NumPy.
Without :func:`start` every exercise uses its default values, the first of each parameter's choices, which are
the numbers the lecture's text quotes.

The expected answers are never stored: a checker computes its answer when it is called.  The draw is public
code, so a student who reads it can compute their own variant's answer, as they can by solving the exercise.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np

__all__ = ["start", "student", "values", "variant_values", "Values", "as_student"]

_state: dict[str, str | None] = {"student": None}


class Values(Mapping[str, Any]):
    """One student's values of an exercise's parameters, read as attributes or as a mapping.

    Parameters
    ----------
    number : str
        The exercise, ``"<lecture>.<k>"``.
    student : str or None
        Whose variant (None: the default values).
    values : mapping of str to object
        Parameter name -> value.
    seed : int
        A seed for whatever else the variant draws (a hidden histogram, a dataset slice).

    Examples
    --------
    >>> v = Values("1.3", None, {"epsilon": 0.5, "upper": 100}, seed=7)
    >>> v.epsilon, v["upper"], len(v)
    (0.5, 100, 2)
    >>> v
    Exercise 1.3, default values: epsilon = 0.5, upper = 100
    """

    def __init__(self, number: str, student: str | None, values: Mapping[str, Any], seed: int) -> None:
        self._number, self._student, self._values, self.seed = number, student, dict(values), seed

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(f"exercise {self.__dict__.get('_number')} has no parameter {name!r}; it has "
                                 f"{sorted(self.__dict__.get('_values', {}))}") from None

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        who = "default values" if self._student is None else f"values for {self._student!r}"
        shown = ", ".join(f"{k} = {_show(v)}" for k, v in self._values.items())
        return f"Exercise {self._number}, {who}: {shown}"


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, np.ndarray):
        return np.array2string(value, separator=", ")
    return repr(value) if isinstance(value, str) else str(value)


def _check_student(student: Any) -> str:
    if not isinstance(student, str):
        raise TypeError(f"student must be a str (your name or student id), got {type(student).__name__}")
    if not student.strip() or student.strip() != student or len(student) > 200:
        raise ValueError(f"student must be a name or id of 1 to 200 characters without surrounding spaces, got "
                         f"{student!r}")
    return student


def start(student: str) -> str:
    """Set whose exercises these are: every exercise below then uses that student's own numbers.

    Parameters
    ----------
    student : str
        Your name or student id, as your instructor asks (the same string gives the same numbers).

    Returns
    -------
    str
        A line saying whose variant is in use.

    Raises
    ------
    TypeError
        If ``student`` is not a string.
    ValueError
        If it is empty, has leading or trailing spaces, or is over 200 characters.

    Examples
    --------
    >>> print(start("ada"))
    Exercises for 'ada': your numbers are drawn from this id (the same id gives the same numbers).
    >>> _state["student"] = None
    """
    _state["student"] = _check_student(student)
    return f"Exercises for {student!r}: your numbers are drawn from this id (the same id gives the same numbers)."


def student() -> str | None:
    """Whose variant is in use: the id given to :func:`start`, or None (the default values).

    Returns
    -------
    str or None
        The current student.

    Examples
    --------
    >>> student() is None
    True
    """
    return _state["student"]


@contextmanager
def as_student(who: str | None) -> Iterator[None]:
    """Use ``who``'s variant inside a ``with`` block (None: the default values), then restore the previous one.

    Parameters
    ----------
    who : str or None
        The student.

    Yields
    ------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`start`, for a bad ``who``.

    Examples
    --------
    >>> with as_student("ada"):
    ...     student()
    'ada'
    >>> student() is None
    True
    """
    if who is not None:
        _check_student(who)
    before = _state["student"]
    _state["student"] = who
    try:
        yield
    finally:
        _state["student"] = before


def _seed(number: str, who: str | None) -> int:
    digest = hashlib.sha256(f"dpviz exercise {number} for {who!r}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def variant_values(number: str, parameters: Mapping[str, tuple[Any, ...]], who: str | None) -> Values:
    """``who``'s values of the parameters of exercise ``number``: one choice per parameter, drawn from the id.

    Parameters
    ----------
    number : str
        The exercise.
    parameters : mapping of str to tuple
        Each parameter's choices; the first is the default (no student).
    who : str or None
        The student.

    Returns
    -------
    Values
        One value per parameter, and a seed.

    Raises
    ------
    ValueError
        If a parameter has no choices.

    Examples
    --------
    >>> variant_values("1.3", {"epsilon": (0.5, 0.25, 1.0)}, None).epsilon
    0.5
    >>> a = variant_values("1.3", {"epsilon": (0.5, 0.25, 1.0)}, "ada")
    >>> a.epsilon == variant_values("1.3", {"epsilon": (0.5, 0.25, 1.0)}, "ada").epsilon
    True
    """
    out: dict[str, Any] = {}
    for name, choices in parameters.items():
        if len(choices) == 0:
            raise ValueError(f"exercise {number}: parameter {name!r} has no choices")
        # each value straight from the hash (no random generator whose stream could change with NumPy's version)
        pick = _seed(f"{number} {name}", who) % len(choices)
        out[name] = choices[0] if who is None else choices[pick]
    return Values(number, who, out, _seed(number, who))


def values(number: str) -> Values:
    """The current student's values of exercise ``number`` (see :func:`start`).

    Parameters
    ----------
    number : str
        The exercise, ``"<lecture>.<k>"``, as in its heading.

    Returns
    -------
    Values
        The values its text and checker use; shown in the notebook as a line of ``name = value``.

    Raises
    ------
    ValueError
        If there is no exercise ``number``.

    Examples
    --------
    >>> values("1.3")
    Exercise 1.3, default values: upper = 100, epsilon = 0.5
    """
    from dpviz.exercises.registry import find

    return variant_values(number, find(number).parameters, student())


def distinct_choices(parameters: Mapping[str, tuple[Any, ...]]) -> int:
    """How many different variants the parameters allow (the product of their numbers of choices).

    Parameters
    ----------
    parameters : mapping of str to tuple
        Each parameter's choices.

    Returns
    -------
    int
        The number of variants.

    Examples
    --------
    >>> distinct_choices({"epsilon": (0.5, 1.0), "upper": (50, 80, 100)})
    6
    """
    return math.prod(len(c) for c in parameters.values())
