"""Every numeric exercise states the precision it wants, and its checker holds to it: any answer right at that
precision passes, and one unit off in the last stated figure is told its precision is off (or, where that lands
on a typical mistake, gets that mistake's hint), never a concept hint such as "too large".

The answers are rounded here with Python's own formatting (``f"{x:.3g}"``), not with dpviz's helpers.
"""

from __future__ import annotations

import math
import numbers

import nbformat
import numpy as np
import pytest

from dpviz.exercises import all_exercises
from tools import course

EXERCISES = all_exercises()


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real | np.floating) and not isinstance(value, bool)


NUMERIC = [e for e in EXERCISES if _is_number(e.reference()) or e.digits]
STATED = [e for e in NUMERIC if e.digits]


def _rounded(x: float, digits: int) -> float:
    return float(f"{x:.{digits}g}")


def _unit(x: float, digits: int) -> float:
    return 10.0 ** (math.floor(math.log10(abs(x))) - digits + 1)


def _generic(message: str) -> bool:
    return "too large" in message or "too small" in message or "entries are off" in message


def test_the_exercises_that_ask_for_significant_figures_are_those_with_answers_that_are_not_round() -> None:
    """An answer with more than 6 significant figures (not a value a student can give exactly) states digits."""
    for e in NUMERIC:
        values = np.atleast_1d(np.asarray(e.reference(), dtype=float))
        exact = all(float(f"{v:.6g}") == v for v in values)
        assert exact or e.digits, f"exercise {e.number}: answer {values} is not round; state its precision"
    assert len(STATED) >= 14


@pytest.mark.parametrize("exercise", NUMERIC, ids=lambda e: e.number)
def test_every_numeric_exercise_states_its_precision_in_the_lecture(exercise) -> None:
    lecture = next(p for p in course.lectures() if p.name.startswith(exercise.number.split(".")[0].zfill(2)))
    nb = nbformat.read(lecture, as_version=4)
    text = next(c.source for c in nb.cells if c.cell_type == "markdown"
                and f"### Exercise {exercise.number}:" in c.source)
    want = f"*Precision:* {exercise.digits} significant figures." if exercise.digits else "*Precision:* exact."
    assert want in text, f"{lecture.name}, exercise {exercise.number}: says no {want!r}"


@pytest.mark.parametrize("exercise", STATED, ids=lambda e: e.number)
def test_an_answer_at_the_stated_precision_passes_and_one_unit_off_is_told_so(exercise) -> None:
    d = exercise.digits
    solution = np.asarray(exercise.reference(), dtype=float)
    scalar = solution.ndim == 0

    def answer(values: np.ndarray) -> object:
        return float(values) if scalar else [float(v) for v in values.ravel()]

    rounded = np.vectorize(lambda v: _rounded(v, d))(solution)
    for digits in (d, d + 1, d + 3):                                   # 3 figures, or more, all pass
        fb = exercise.check(answer(np.vectorize(lambda v, k=digits: _rounded(v, k))(solution)))
        assert fb.passed, f"exercise {exercise.number} rejects its answer at {digits} figures: {fb}"
    first = float(np.ravel(solution)[0])
    for step in (-1, 1):
        off = rounded.copy().ravel()
        off[0] = _rounded(off[0] + step * _unit(first, d), d)
        fb = exercise.check(answer(off.reshape(rounded.shape)))
        assert not fb.passed, f"exercise {exercise.number} accepts {off} (one unit off at {d} figures)"
        assert not _generic(fb.message), \
            f"exercise {exercise.number}: {off} is one unit off, and is told a concept hint: {fb}"


@pytest.mark.parametrize("exercise", STATED, ids=lambda e: e.number)
def test_a_typical_mistake_rounded_as_asked_still_gets_its_hint(exercise) -> None:
    for wrong, word in exercise.typical_mistakes():
        if callable(wrong) or not _is_number(wrong) or not math.isfinite(float(wrong)) or float(wrong) == 0:
            continue
        fb = exercise.check(_rounded(float(wrong), exercise.digits))
        if fb.passed:
            pytest.fail(f"exercise {exercise.number}: the mistake {wrong} rounded passes")
        assert word.lower() in (fb.hint + fb.message).lower(), (exercise.number, wrong, fb)


def test_a_right_value_in_another_shape_is_right() -> None:
    """[x] for x: exercise 0.5's estimator returning a one-element list, and a one-element answer to 1.4."""
    from scipy.special import expit

    from dpviz.exercises import lecture00, lecture01

    fb = lecture00.check_debiased_estimate(lambda r, e: [(np.mean(r) - expit(-e)) / (2 * expit(e) - 1)])
    assert fb.passed and "values right" in fb.message
    assert lecture01.check_accuracy_first([_rounded(math.log(20) / 10, 3)]).passed
    assert not lecture01.check_accuracy_first([0.3, 0.3]).passed
    assert not lecture01.check_accuracy_first("0.3").passed


def test_exercise_1_6_states_the_auditors_resolution_truly() -> None:
    """The lecture says the audit rejects Laplace noise of scale 1.9 (epsilon 0.526) and passes 1.95 (0.513)."""
    from dpviz.exercises import lecture01

    def laplace(scale: float):
        return lambda x, rng, size: x + rng.laplace(scale=scale, size=size)

    assert not lecture01.check_half_epsilon_mechanism(laplace(1.9)).passed
    assert lecture01.check_half_epsilon_mechanism(laplace(1.95)).passed
    nb = nbformat.read(next(p for p in course.lectures() if p.name.startswith("01")), as_version=4)
    text = next(c.source for c in nb.cells if "### Exercise 1.6:" in c.source)
    assert "scale 1.9 ($\\varepsilon = 0.526$)" in text and "scale 1.95 ($\\varepsilon = 0.513$)" in text
