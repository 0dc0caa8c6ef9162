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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from dpviz.exercises.feedback import Feedback
from dpviz.exercises.variants import Values, student, variant_values

__all__ = ["Exercise", "all_exercises", "find", "KINDS", "hints", "words"]

#: What an exercise asks of a student.  Only "plug-in" types a formula the lecture prints, calls the function the
#: exercise names or copies a printed number; the others need understanding (a lecture has at least half of them).
KINDS = {
    "plug-in": "types a printed formula, calls the named function or copies a printed number",
    "combine": "combines two ideas of the lecture (e.g. a sensitivity and a composition rule)",
    "predict": "predicts a number before a run shows it",
    "counterexample": "finds an input or a dataset that breaks a claim",
    "explain": "explains a figure or a result in numbers",
    "implement": "writes a mechanism or a function that a checker or the auditor tests",
    "derive": "derives a formula or proves a claim (checked by value, or written)",
}


def hints(mistakes: Sequence[tuple[Any, str, str]]) -> list[tuple[Any, str]]:
    """The (wrong answer, hint) pairs a checker takes, from (wrong answer, word, hint).

    Parameters
    ----------
    mistakes : sequence of (object, str, str)
        Wrong answer, word, hint.

    Returns
    -------
    list of (object, str)
        Wrong answer and hint.

    Examples
    --------
    >>> hints([(2.0, "replace-one", "2 is the replace-one sensitivity.")])
    [(2.0, '2 is the replace-one sensitivity.')]
    """
    return [(wrong, hint) for wrong, _, hint in mistakes]


def words(mistakes: Sequence[tuple[Any, str, str]]) -> tuple[tuple[Any, str], ...]:
    """The (wrong answer, word) pairs an :class:`Exercise`'s ``mistakes`` returns, from (wrong answer, word, hint).

    Parameters
    ----------
    mistakes : sequence of (object, str, str)
        Wrong answer, word, hint.

    Returns
    -------
    tuple of (object, str)
        Wrong answer and the word its hint must contain.

    Examples
    --------
    >>> words([(2.0, "replace-one", "2 is the replace-one sensitivity.")])
    ((2.0, 'replace-one'),)
    """
    return tuple((wrong, word) for wrong, word, _ in mistakes)


def _no_mistakes(values: Values) -> tuple[tuple[Any, str], ...]:
    return ()


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
    solution : callable
        ``solution(values)``: a right answer (a value or a function) for a variant's :class:`Values`, what the
        instructor notebook's solution cell computes.  Computed on demand: no answer is stored.
    mistakes : callable
        ``mistakes(values)``: typical wrong answers of that variant and a word each one's hint must contain.
    level : str
        "easy", "medium" or "hard".
    digits : int or None
        For a numeric answer, the significant figures the exercise asks for (its text says so and its checker
        accepts any answer right at them); None for an exact answer or one that is not a number.
    kind : str
        What it asks of a student, a key of :data:`KINDS`.
    parameters : mapping of str to tuple
        Each per-student parameter's choices (the first is the default the lecture's text quotes); empty for an
        exercise that is the same for everyone.

    Examples
    --------
    >>> from dpviz.exercises import lecture01
    >>> ex = lecture01.EXERCISES[0]
    >>> bool(ex.check(ex.reference()))
    True
    """

    number: str
    title: str
    check: Callable[[Any], Feedback]
    solution: Callable[[Values], Any]
    mistakes: Callable[[Values], Sequence[tuple[Any, str]]] = field(default_factory=lambda: _no_mistakes)
    level: str = "easy"
    digits: int | None = None
    kind: str = "plug-in"
    parameters: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"exercise {self.number}: kind must be one of {sorted(KINDS)}, got {self.kind!r}")

    def values(self, who: str | None = None) -> Values:
        """A student's values of this exercise's parameters (None: the current student, see ``start``).

        Parameters
        ----------
        who : str, optional
            The student; by default the one :func:`~dpviz.exercises.variants.start` set.

        Returns
        -------
        Values
            The variant's values.

        Examples
        --------
        >>> from dpviz.exercises import lecture01
        >>> lecture01.EXERCISES[2].values()
        Exercise 1.3, default values: upper = 100, epsilon = 0.5
        """
        return variant_values(self.number, self.parameters, student() if who is None else who)

    def reference(self, who: str | None = None) -> Any:
        """A right answer for a student's variant (None: the current student), computed now.

        Parameters
        ----------
        who : str, optional
            The student.

        Returns
        -------
        object
            The answer.

        Examples
        --------
        >>> from dpviz.exercises import lecture01
        >>> lecture01.EXERCISES[2].reference()
        200.0
        """
        return self.solution(self.values(who))

    def typical_mistakes(self, who: str | None = None) -> tuple[tuple[Any, str], ...]:
        """The typical wrong answers of a student's variant and a word of each one's hint.

        Parameters
        ----------
        who : str, optional
            The student.

        Returns
        -------
        tuple of (object, str)
            The mistakes.

        Examples
        --------
        >>> from dpviz.exercises import lecture01
        >>> [w for _, w in lecture01.EXERCISES[0].typical_mistakes()]
        ['replace-one', 'change']
        """
        return tuple(self.mistakes(self.values(who)))


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


@cache
def _by_number() -> dict[str, Exercise]:
    return {e.number: e for e in all_exercises()}


def find(number: str) -> Exercise:
    """The exercise numbered ``number``.

    Parameters
    ----------
    number : str
        ``"<lecture>.<k>"``.

    Returns
    -------
    Exercise
        It.

    Raises
    ------
    ValueError
        If there is no such exercise.

    Examples
    --------
    >>> find("1.3").title
    'Noise for a clipped sum'
    """
    table = _by_number()
    if number not in table:
        raise ValueError(f"number must name an exercise with a checker, such as '1.3'; got {number!r}")
    return table[number]
