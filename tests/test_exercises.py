"""Every exercise checker accepts its reference solution and rejects each typical mistake with a helpful hint.

The exercises are collected from ``dpviz.exercises.lecture*`` (:func:`dpviz.exercises.all_exercises`), so a new
exercise is tested as soon as it is registered.  The notebooks' solution cells are checked by nbval (their
committed output is the "correct" verdict); the notebook structure (an ``Exercise`` heading, a ``check`` call,
solution markers) is checked here too.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

from dpviz.exercises import Feedback, all_exercises, check_number

EXERCISES = all_exercises()
ROOT = Path(__file__).resolve().parents[1]
LECTURES = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.number)
def test_reference_solution_passes(ex):
    fb = ex.check(ex.reference())
    assert isinstance(fb, Feedback) and fb.passed, str(fb)
    assert fb.exercise.startswith(ex.number)


@pytest.mark.parametrize("ex", [e for e in EXERCISES if e.typical_mistakes()], ids=lambda e: e.number)
def test_typical_mistakes_fail_with_their_hint(ex):
    for wrong, word in ex.typical_mistakes():
        fb = ex.check(wrong)
        assert not fb.passed, f"{ex.number} accepted the mistake {wrong!r}"
        assert fb.hint, f"{ex.number}: no hint for {wrong!r}"
        assert word.lower() in (fb.hint + " " + fb.message).lower(), (ex.number, word, str(fb))


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.number)
def test_unanswered_and_nonsense_answers_get_feedback_not_errors(ex):
    for answer in (..., None, "forty-two", [1, 2, 3], float("nan"), object()):
        fb = ex.check(answer)
        assert isinstance(fb, Feedback) and not fb.passed, (ex.number, answer)
    assert "no answer yet" in ex.check(...).message


def test_every_lecture_has_at_least_four_exercises_of_graded_difficulty():
    by_lecture: dict[str, list] = {}
    for ex in EXERCISES:
        by_lecture.setdefault(ex.number.split(".")[0], []).append(ex)
    for lecture, exs in by_lecture.items():
        assert len(exs) >= 4, lecture
        assert {e.level for e in exs} >= {"easy", "hard"}, lecture
        assert len({e.number for e in exs}) == len(exs), lecture


def _exercise_cells(nb):
    """(number, heading cell index, code cells until the next heading) for each ``Exercise N.k`` heading."""
    out = []
    for i, cell in enumerate(nb.cells):
        m = re.match(r"#+ *Exercise (\d+\.\d+)", cell.source) if cell.cell_type == "markdown" else None
        if m and "(written, " not in cell.source.splitlines()[0]:   # written exercises: test_written_exercises.py
            code = []
            for nxt in nb.cells[i + 1:]:
                if nxt.cell_type == "markdown" and nxt.source.lstrip().startswith("#"):
                    break
                if nxt.cell_type == "code":
                    code.append(nxt)
            out.append((m.group(1), i, code))
    return out


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_notebook_exercises_are_registered_checked_and_marked(path):
    nb = nbformat.read(path, as_version=4)
    found = _exercise_cells(nb)
    registered = {e.number for e in EXERCISES if e.number.split(".")[0] == str(int(path.stem[:2]))}
    if not registered:
        pytest.skip(f"{path.stem}: no exercises registered yet")
    assert {num for num, _, _ in found} == registered, path.stem
    for num, _, code in found:
        src = "\n".join(c.source for c in code)
        assert re.search(r"\bcheck\w*\(", src), f"{path.stem} exercise {num}: no check call"
        assert "### BEGIN SOLUTION" in src and "### END SOLUTION" in src, f"{path.stem} exercise {num}: no markers"
        outputs = [o for c in code for o in c.get("outputs", [])]
        text = " ".join(str(o.get("data", {}).get("text/plain", o.get("text", ""))) for o in outputs)
        assert "[correct]" in text, f"{path.stem} exercise {num}: the committed solution is not shown correct"


def test_feedback_never_reveals_the_expected_value():
    fb = check_number("9.9 Secret", 3.0, 1234.5678, explain="", hint="think again")
    assert "1234" not in str(fb) and "1234" not in fb._repr_html_()


# ----------------------------------------------------------------- answers that must never pass (review findings)
def test_a_function_that_changes_its_inputs_cannot_change_the_answer_key():
    from dpviz.exercises import lecture00, lecture04, lecture06

    def flipped_estimate(r, e):            # estimates the share of "no" by flipping the reports in place: wrong
        r[:] = 1 - r
        return (np.mean(r) - 1 / (1 + np.exp(e))) / np.tanh(e / 2)

    def rescaled_least_squares(A, y):      # normalises A's columns in place: a scaled x_hat, wrong
        A /= np.linalg.norm(A, axis=0)
        return np.linalg.solve(A.T @ A, A.T @ y)

    def zeroing_partition(a):              # wipes the answer matrix, then answers "one group"
        a[:] = 0
        return np.zeros(a.shape[0], int)

    assert not lecture00.check_debiased_estimate(flipped_estimate).passed
    assert not lecture04.check_least_squares_function(rescaled_least_squares).passed
    assert not lecture06.check_partition(zeroing_partition).passed
    # and the cached test cases were not damaged: the same wrong answer without the mutation still fails
    assert not lecture06.check_partition(lambda a: np.zeros(a.shape[0], int)).passed


@pytest.mark.parametrize("sd", [2.5, 4.0, 5.0, 5.6])
def test_gaussian_noise_is_not_a_pure_dp_count(sd):
    from dpviz.exercises import lecture01
    fb = lecture01.check_half_epsilon_mechanism(lambda x, rng, size: x + rng.normal(scale=sd, size=size))
    assert not fb.passed


def test_laplace_plus_uniform_noise_is_still_accepted():
    """Post-processing keeps DP: a valid non-Laplace mechanism (excess kurtosis < 0) must not be taken for Gaussian."""
    from dpviz.exercises import lecture01
    fb = lecture01.check_half_epsilon_mechanism(
        lambda x, rng, size: x + rng.laplace(scale=2.0, size=size) + rng.uniform(-8, 8, size=size))
    assert fb.passed


def test_a_mechanism_failing_in_the_usefulness_check_is_feedback():
    from dpviz.exercises import lecture01

    def clipped(x, rng, size):
        if x > 20:
            raise OverflowError("my clipping assumed counts <= 20")
        return x + rng.laplace(scale=2.0, size=size)

    fb = lecture01.check_half_epsilon_mechanism(clipped)
    assert not fb.passed and "OverflowError" in fb.message


@pytest.mark.parametrize("answer", [10**400, 1 + 0j, np.complex128(1.38), "1.38", True])
def test_numbers_that_are_not_real_are_refused_as_feedback(answer):
    from dpviz.exercises import lecture00
    fb = lecture00.check_coin_epsilon(answer)
    assert not fb.passed and "finite number" in fb.message


@pytest.mark.parametrize("answer", [("1334", "6"), [1 + 2j, 3], [10**400, 1], [True, False]])
def test_arrays_that_are_not_real_are_refused(answer):
    from dpviz.exercises.checks import check_array
    fb = check_array("x", answer, [1334.0, 6.0], explain="", hint="")
    assert not fb.passed and "real numbers" in fb.message


def test_posterior_checker_names_the_neighbouring_relation_of_the_add_remove_answer():
    """Exercise 0.3: Bayes in odds form by hand; 1-DP under replace-one moves the odds by e, under add/remove a
    replacement is two steps and moves them by e^2 (0.280), which gets its own explanation, not the generic hint."""
    from dpviz.exercises import lecture00

    def posterior(ratio):
        odds = 0.05 / 0.95 * ratio
        return odds / (1 + odds)

    assert lecture00.check_posterior(posterior(np.e)).passed
    fb = lecture00.check_posterior(round(posterior(np.e**2), 3))      # 0.280, as a student would type it
    assert not fb.passed and "add/remove" in fb.hint and "replace-one" in fb.hint and "two steps" in fb.hint
