"""Exercises with automatic feedback: a checker per exercise, called by the student with an answer.

In a lecture notebook an exercise is a markdown cell headed ``Exercise <lecture>.<k>: <title>``, then a
code cell that computes an answer and calls the exercise's checker::

    from dpviz.exercises import lecture01 as ex
    answer = ...                      # the student's work (the instructor version has the solution here)
    ex.check_count_sensitivity(answer)

The checker returns a :class:`Feedback` that the notebook shows under the cell: correct, or not yet with a
hint.  The expected answers are computed by dpviz, never typed in; the checkers are for learning, not for
grading (their source is readable).  ``make student`` writes notebooks with the solutions stripped (code
between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` becomes ``...``, the markers nbgrader uses).

Files
-----
feedback.py
    :class:`Feedback`, what a checker returns (shown as text or HTML).
checks.py
    Generic checkers: :func:`check_number`, :func:`check_array`, :func:`check_function`,
    :func:`check_private` (audits a student's mechanism).
registry.py
    :class:`Exercise` and :func:`all_exercises`: every exercise with its reference solution and typical
    mistakes, for the tests.
lecture00.py ... lecture09.py
    The exercises of each lecture (``EXERCISES`` and their ``check_*`` functions).
"""

from dpviz.exercises.checks import check_array, check_function, check_number, check_private, unanswered
from dpviz.exercises.feedback import Feedback
from dpviz.exercises.registry import Exercise, all_exercises

__all__ = ["Feedback", "Exercise", "all_exercises", "check_number", "check_array", "check_function",
           "check_private", "unanswered"]
