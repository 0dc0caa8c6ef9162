"""``make assignments`` builds an nbgrader course that nbgrader itself accepts, and its autograder scores three
submissions per lecture as expected: every exercise solved (full marks on the autograded part), the first half
solved (those exercises' points), nothing done (0); and, for lecture 01, a full notebook copied from another
student (only the exercises without per-student values score).

The submissions are made from nbgrader's own release (what a student downloads) by putting back the instructor's
solution code into the answer cells, as a student who solved the exercise would; nbgrader then runs each
notebook and scores its hidden test cells.  The written derivations are graded by hand, so their points are not
in the autograded score.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("nbgrader")

from dpviz.exercises.registry import find  # noqa: E402
from tools import assignments, course  # noqa: E402

LECTURES = course.lectures()


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, dict[str, dict[str, int]]]:
    out = tmp_path_factory.mktemp("course")
    return out, assignments.build(out)


def _grade_ids(nb: nbformat.NotebookNode, prefix: str) -> list[str]:
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith(prefix)]


def _submission(release: nbformat.NotebookNode, source: nbformat.NotebookNode, solved: set[str], student: str):
    """The released notebook with the instructor's code put back into the answer cells of ``solved``, and
    ``student`` as the id given to ``ex.start``."""
    nb = nbformat.from_dict(release)
    for cell in nb.cells:
        if cell.cell_type == "code" and 'ex.start("student")' in cell.source:
            cell.source = cell.source.replace('ex.start("student")', f"ex.start({student!r})")
    answers = {c.metadata["nbgrader"]["grade_id"]: c.source for c in source.cells
               if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("answer-")}
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if gid in solved:
            cell.source = answers[gid]
    return nb


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_nbgrader_autogrades_a_full_a_half_and_an_empty_submission(built, path):
    out, table = built
    name = assignments.assignment_name(path)
    source = nbformat.read(out / "source" / name / path.name, as_version=4)
    release = nbformat.read(out / "release" / name / path.name, as_version=4)
    # what students receive: no solution code, no hidden test, no model answer
    text = "\n".join(c.source for c in release.cells)
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text and "_grader" not in text
    assert "**Model answer.**" not in text and "Marking rubric" not in text
    answers = _grade_ids(source, "answer-")
    tests = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"] for c in source.cells
             if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("test-")}
    assert len(answers) == len(tests) >= 4
    half = set(answers[: len(answers) // 2])
    expected = {"full": sum(tests.values()),
                "half": sum(tests["test-" + a.split("-", 1)[1]] for a in half),
                "empty": 0}
    submissions = {"full": (set(answers), "full"), "half": (half, "half"), "empty": (set(), "empty")}
    if path.name.startswith("01"):   # a full notebook copied from "full": only exercises without variants count
        submissions["copied"] = (set(answers), "full")
        expected["copied"] = sum(p for t, p in tests.items()
                                 if not find(t.split("-", 1)[1].replace("_", ".")).parameters)
        assert 0 < expected["copied"] < expected["full"]
    for student, (solved, given) in submissions.items():
        folder = out / "submitted" / student / name
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(_submission(release, source, solved, given), folder / path.name)
    proc = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", name, "--force", "--create",
                           "--log-level=WARN"], cwd=out, capture_output=True, text=True, timeout=600,
                          env=assignments.nbgrader_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{out / 'gradebook.db'}") as gb:
        scores = {s: gb.find_submission(name, s).code_score for s in expected}
        written = gb.find_submission_notebook(path.stem, name, "full").max_written_score
    assert scores == pytest.approx(expected), (scores, expected)
    assert written == sum(p for n, p in table[name].items() if "test-" + n.replace(".", "_") not in tests)
    shutil.rmtree(out / "autograded", ignore_errors=True)
