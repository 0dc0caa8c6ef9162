"""The hand-outs build from the committed lectures: student notebooks without solutions, slides, instructor copies."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from tools import course

LECTURES = course.lectures()


def test_student_versions_strip_every_solution_and_output(tmp_path: Path):
    written = course.build("student", tmp_path)
    assert [p.name for p in written] == [p.name for p in LECTURES]
    for path, original in zip(written, LECTURES, strict=True):
        text = path.read_text()
        assert "### BEGIN SOLUTION" not in text and "### END SOLUTION" not in text, path.name
        nb = nbformat.read(path, as_version=4)
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), path.name
        orig = nbformat.read(original, as_version=4)
        checks = lambda n: sum(len(re.findall(r"\bex\.check\w*\(", c.source)) for c in n.cells)  # noqa: E731
        assert checks(nb) == checks(orig), f"{path.name}: a checker call was lost"
        assert not any("solution" in c.metadata.get("tags", []) for c in nb.cells)


def test_a_student_exercise_cell_runs_and_says_no_answer_yet():
    src = "answer = ...\n### BEGIN SOLUTION\nanswer = 1\n### END SOLUTION\nfb = ex.check_count_sensitivity(answer)"
    stripped = course.strip_solutions(src)
    assert "answer = 1" not in stripped
    from dpviz.exercises import lecture01 as ex
    scope = {"ex": ex}
    exec(stripped, scope)
    assert not scope["fb"].passed and "no answer yet" in scope["fb"].message
    body = "def f(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION\n"
    scope = {}
    exec(course.strip_solutions(body), scope)
    assert scope["f"](3) is None


def test_instructor_versions_are_the_committed_lectures(tmp_path: Path):
    for path, original in zip(course.build("instructor", tmp_path), LECTURES, strict=True):
        assert nbformat.read(path, as_version=4) == nbformat.read(original, as_version=4)


@pytest.mark.parametrize("lecture", LECTURES, ids=lambda p: p.stem)
def test_slide_types_start_a_slide_at_every_section_and_skip_hidden_cells(lecture: Path):
    nb = course.with_slide_types(nbformat.read(lecture, as_version=4))
    for cell in nb.cells:
        kind = cell.metadata["slideshow"]["slide_type"]
        if cell.cell_type == "markdown" and re.match(r"#{1,2} ", cell.source):
            assert kind == "slide", cell.source[:60]
        if {"remove-input", "hide-input"} & set(cell.metadata.get("tags", [])):
            assert kind == "skip"


def test_slide_decks_build(tmp_path: Path):
    written = course.build("slides", tmp_path)
    assert len(written) == len(LECTURES)
    for path, lecture in zip(written, LECTURES, strict=True):
        html = path.read_text()
        assert "reveal" in html.lower()
        nb = course.with_slide_types(nbformat.read(lecture, as_version=4))
        slides = sum(c.metadata["slideshow"]["slide_type"] == "slide" for c in nb.cells)
        assert html.count("<section") >= slides, path.name


@pytest.mark.parametrize("lecture", course.lectures(), ids=lambda p: p.stem)
def test_committed_lectures_carry_what_jupyterlab_writes_on_save(lecture: Path):
    """Opening and saving a lecture in JupyterLab must not rewrite it (checked in a browser by
    benchmarks/browser_bench's Lab rows): normalised metadata, the kernel's Python version kept."""
    nb = nbformat.read(lecture, as_version=4)
    assert nb.metadata.kernelspec == {"display_name": "Python 3 (ipykernel)", "language": "python",
                                      "name": "python3"}
    runtime = (course.ROOT / "binder" / "runtime.txt").read_text().strip().removeprefix("python-")
    assert nb.metadata.language_info.get("version", "").startswith(runtime + ".")   # the course's Python
    assert "widgets" not in nb.metadata
    for cell in nb.cells:
        assert "execution" not in cell.metadata and "trusted" not in cell.metadata


@pytest.mark.parametrize("lecture", course.lectures(), ids=lambda p: p.stem)
def test_checks_hidden_from_readers_are_folded_in_jupyterlab_too(lecture: Path):
    """The docs and the hand-outs drop the input of cells tagged hide-input/remove-input; JupyterLab reads only
    ``metadata.jupyter.source_hidden``, so without it a student opening the lecture saw every check."""
    nb = nbformat.read(lecture, as_version=4)
    tagged = [c for c in nb.cells if c.cell_type == "code" and course.HIDDEN_TAGS & set(c.metadata.get("tags", ()))]
    assert tagged, "no hidden cells: the tags changed?"
    for cell in nb.cells:
        folded = cell.metadata.get("jupyter", {}).get("source_hidden", False)
        assert folded == (cell in tagged), (lecture.name, cell.source[:60])


@pytest.mark.parametrize("lecture", course.lectures(), ids=lambda p: p.stem)
def test_every_cell_that_asserts_is_hidden_from_readers(lecture: Path):
    """A student reads prose, short calls and their output, not the checks that keep a lecture honest: any code
    cell with an ``assert`` statement (found by parsing it, not by a text search) carries a hidden tag."""
    import ast

    shown = []
    for k, cell in enumerate(nbformat.read(lecture, as_version=4).cells):
        if cell.cell_type != "code" or course.HIDDEN_TAGS & set(cell.metadata.get("tags", ())):
            continue
        source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        if any(isinstance(node, ast.Assert) for node in ast.walk(ast.parse(source))):
            shown.append(k)
    assert not shown, f"{lecture.name}: cells {shown} assert in view of students"


def test_normalise_files_leaves_a_normalised_lecture_unchanged(tmp_path: Path):
    lecture = course.lectures()[1]
    copy = tmp_path / lecture.name
    copy.write_bytes(lecture.read_bytes())
    course.normalise_files([copy])
    assert copy.read_bytes() == lecture.read_bytes()
