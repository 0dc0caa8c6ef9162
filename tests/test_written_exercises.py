"""Written exercises: every lecture sets at least one derivation or short proof, with a model answer and a marking
rubric that only the instructor's copy holds.

The format (docs/course.md): under the lecture's ``## Homework`` heading, ``### Exercise N.K: title (written, P
points)``, the question, then a markdown cell tagged ``written-answer`` (where the student writes) and a markdown
cell tagged ``solution`` that opens with ``**Model answer.**`` and holds ``**Marking rubric (P points).**`` with one
``- (k) ...`` line per criterion, the k summing to P.
"""

from __future__ import annotations

import re

import nbformat
import pytest

from tools import course

LECTURES = course.lectures()
WRITTEN = re.compile(r"^### Exercise (\d+\.\d+): (.+) \(written, (\d+) points\)$", re.M)


def _written(nb) -> list[tuple[int, str, int]]:
    return [(k, m.group(1), int(m.group(3))) for k, c in enumerate(nb.cells) if c.cell_type == "markdown"
            for m in WRITTEN.finditer(c.source)]


def _tags(cell) -> set[str]:
    return set(cell.metadata.get("tags", []))


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_every_lecture_sets_a_written_exercise_with_a_model_answer_and_a_rubric(path) -> None:
    nb = nbformat.read(path, as_version=4)
    found = _written(nb)
    assert found, f"{path.name}: no written exercise ('### Exercise N.K: title (written, P points)')"
    homework = [k for k, c in enumerate(nb.cells) if c.cell_type == "markdown"
                and re.search(r"^## Homework", c.source, re.M)]
    assert homework, f"{path.name}: written exercises are homework, under '## Homework'"
    for k, number, points in found:
        assert number.split(".")[0] == str(int(path.name[:2])), f"{path.name}: exercise {number} of another lecture"
        assert any(h <= k for h in homework), f"{path.name}: exercise {number} is not under '## Homework'"
        later = nb.cells[k + 1:]
        answer = next((j for j, c in enumerate(later) if "written-answer" in _tags(c)), None)
        model = next((j for j, c in enumerate(later) if "solution" in _tags(c)), None)
        assert answer is not None and model is not None and answer < model, \
            f"{path.name} exercise {number}: a 'written-answer' cell, then a 'solution' cell"
        assert all(c.cell_type == "markdown" for c in later[:model + 1]), f"{path.name} exercise {number}: prose only"
        text = later[model].source
        assert text.lstrip().startswith("**Model answer.**"), f"{path.name} exercise {number}"
        rubric = text.split(f"**Marking rubric ({points} points).**", 1)
        assert len(rubric) == 2, f"{path.name} exercise {number}: no '**Marking rubric ({points} points).**'"
        marks = [int(m) for m in re.findall(r"^- \((\d+)\)", rubric[1], re.M)]
        assert len(marks) >= 2 and sum(marks) == points, \
            f"{path.name} exercise {number}: rubric lines {marks} do not add up to {points}"
        assert len(rubric[0].split()) >= 60, f"{path.name} exercise {number}: the model answer is a full derivation"


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_the_student_version_keeps_the_question_and_the_answer_cell_but_not_the_model_answer(path) -> None:
    nb = nbformat.read(path, as_version=4)
    student = course.student_version(nb)
    text = "\n".join(c.source for c in student.cells)
    assert len(_written(student)) == len(_written(nb))
    assert sum("written-answer" in _tags(c) for c in student.cells) == len(_written(nb))
    assert "**Model answer.**" not in text and "Marking rubric" not in text
