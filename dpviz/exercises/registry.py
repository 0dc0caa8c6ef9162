"""The exercises of every lecture, as data: checker, reference solution and typical mistakes.

Each lecture module (``lecture00.py`` ... ``lecture09.py``) defines its ``check_*`` functions and an
``EXERCISES`` tuple of :class:`Exercise`; :func:`all_exercises` collects them, so the tests run every
checker on its reference solution (it must pass) and on each typical mistake (it must fail with the
mistake's hint) without a list kept by hand.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dpviz.exercises.feedback import Feedback

__all__ = ["Exercise", "all_exercises"]


@dataclass(frozen=True)
class Exercise:
    """One exercise: what it asks, how it is checked, its reference solution and typical mistakes.

    Parameters
    ----------
    number : str
        ``"<lecture>.<k>"``, e.g. ``"1.2"``.
    title : str
        A few words, as in the notebook's heading ``Exercise 1.2: <title>``.
    check : callable
        The checker the student calls, ``check(answer) -> Feedback``.
    solution : object
        A right answer (a value or a function), what the instructor notebook's solution cell computes.
    mistakes : tuple of (object, str)
        Typical wrong answers and a word their hint must contain.
    level : str
        "easy", "medium" or "hard".
    digits : int or None
        For a numeric answer, the significant figures the exercise asks for (its text says so and its checker
        accepts any answer right at them); None for an exact answer or one that is not a number.

    Examples
    --------
    >>> from dpviz.exercises import lecture01
    >>> ex = lecture01.EXERCISES[0]
    >>> bool(ex.check(ex.solution))
    True
    """

    number: str
    title: str
    check: Callable[[Any], Feedback]
    solution: Any
    mistakes: tuple[tuple[Any, str], ...] = field(default=())
    level: str = "easy"
    digits: int | None = None


def all_exercises() -> list[Exercise]:
    """Every lecture module's ``EXERCISES``, lectures in order.

    Returns
    -------
    list of Exercise
        All exercises of ``dpviz.exercises.lecture*``.

    Examples
    --------
    >>> len(all_exercises()) >= 4
    True
    """
    import dpviz.exercises as pkg

    out: list[Exercise] = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if re.fullmatch(r"lecture\d\d", info.name):      # lecture02_goals etc. hold no exercises
            out.extend(importlib.import_module(f"dpviz.exercises.{info.name}").EXERCISES)
    return out
