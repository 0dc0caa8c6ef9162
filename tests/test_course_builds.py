"""The hand-outs build from the committed lectures: student notebooks without solutions, slides, instructor copies."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from tools import course

LECTURES = course.lectures()
NOTEBOOKS = LECTURES + course.companions()     # what the hand-outs carry


def test_student_versions_strip_every_solution_and_output(tmp_path: Path):
    written = course.build("student", tmp_path)
    assert [p.name for p in written] == [p.name for p in NOTEBOOKS]
    for path, original in zip(written, NOTEBOOKS, strict=True):
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
    for path, original in zip(course.build("instructor", tmp_path), NOTEBOOKS, strict=True):
        assert nbformat.read(path, as_version=4) == nbformat.read(original, as_version=4)


@pytest.mark.parametrize("lecture", LECTURES, ids=lambda p: p.stem)
def test_a_slide_plan_starts_a_slide_at_every_heading_and_keeps_checks_and_solutions_off_the_slides(lecture: Path):
    from tools import slides

    nb = nbformat.read(lecture, as_version=4)
    headings = [ln for c in nb.cells if c.cell_type == "markdown" and "solution" not in c.metadata.get("tags", [])
                for ln in c.source.splitlines() if re.match(r"#{1,3} ", ln)]
    decks = [slides.slide_plan(unit) for unit in slides.units(nb)]
    cells = [c for d in decks for c in d.cells]
    kind = lambda c: c.metadata["slideshow"]["slide_type"]  # noqa: E731
    starts = [c.source.splitlines()[0] for c in cells if kind(c) in ("slide", "subslide")]
    for heading in headings:                    # wherever it sat in its cell, each heading opens a slide
        assert heading in starts, heading
    on_slides = [c for c in cells if kind(c) != "notes"]
    assert not any("### BEGIN SOLUTION" in c.source for c in on_slides)
    assert not any(re.search(r"^\s*assert\b", c.source, re.M) for c in on_slides if c.cell_type == "code")
    for c in on_slides:                          # code on a slide is short, or hidden and kept in the notes
        if c.cell_type == "code" and "slides-hide-input" not in c.metadata.get("tags", []):
            assert len([ln for ln in c.source.splitlines() if ln.strip()]) <= slides.CODE_LINES
    explorers = sum(1 for c in nb.cells for o in c.get("outputs", []) if slides.WIDGET in o.get("data", {}))
    assert sum('class="dpviz-explorer"' in c.source for c in on_slides) == explorers


def test_slide_decks_build_one_per_unit_with_notes_styles_and_titles(tmp_path: Path):
    from tools import slides

    written = course.build("slides", tmp_path)
    expected = sum(len(slides.units(nbformat.read(p, as_version=4))) for p in LECTURES)
    assert len(written) == expected
    for path in written:
        html = path.read_text()
        assert 'class="notes"' in html and slides.STYLE in html, path.name
        assert "<title>Notebook slides</title>" not in html, path.name


@pytest.mark.parametrize("lecture", NOTEBOOKS, ids=lambda p: p.stem)
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


@pytest.mark.parametrize("lecture", NOTEBOOKS, ids=lambda p: p.stem)
def test_checks_hidden_from_readers_are_folded_in_jupyterlab_too(lecture: Path):
    """The docs and the hand-outs drop the input of cells tagged hide-input/remove-input; JupyterLab reads only
    ``metadata.jupyter.source_hidden``, so without it a student opening the lecture saw every check."""
    nb = nbformat.read(lecture, as_version=4)
    tagged = [c for c in nb.cells if c.cell_type == "code" and course.HIDDEN_TAGS & set(c.metadata.get("tags", ()))]
    assert tagged or lecture in course.companions(), "no hidden cells: the tags changed?"
    for cell in nb.cells:
        folded = cell.metadata.get("jupyter", {}).get("source_hidden", False)
        assert folded == (cell in tagged), (lecture.name, cell.source[:60])


@pytest.mark.parametrize("lecture", NOTEBOOKS, ids=lambda p: p.stem)
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


def test_student_notebooks_carry_no_check_and_no_talk_of_the_project():
    from tools import handout_audit

    found = handout_audit.audit()
    assert not found, "\n".join(f"{f.lecture} cell {f.cell} [{f.kind}]: {f.text}" for f in found)


@pytest.mark.parametrize("text, kind", [
    ("the test suite checks it against scipy", "the project's tests"),
    ("(the tests compare it with the dense map)", "the project's tests"),
    ("see `tests/test_audit.py`", "the project's tests"),
    ("measured on the 2-core machine", "the machine it ran on"),
    ("the numbers this course is tested against", "the project's tests"),
    ("`make bench` re-runs HDMM's recipe", "benchmarks and build commands"),
    ("The rows-only reading, dpviz's first version, fell short", "earlier versions of dpviz"),
    ("dpviz's audit suite checks those mechanisms too", "the project's tests"),
    ("our earlier reading of Algorithm 3", "earlier versions of dpviz"),
    ("it ran in 5 s on two cores", "the machine it ran on"),
    ("see `python -m tools.unit_budget`", "benchmarks and build commands"),
])
def test_the_audit_finds_each_kind_of_project_talk(text: str, kind: str):
    from tools import handout_audit

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
    assert [f.kind for f in handout_audit.findings(nb)] == [kind]


@pytest.mark.parametrize("text", [
    "a hypothesis test at confidence 0.999", "DPBench is the benchmark that turned the question into an experiment",
    "a false alarm, which we fixed in advance", "the first version of the mechanism adds noise once",
    "H_b + CI (constrained inference)", "a two-sided test of the claim",
    "we make students derive it", "make testing cheap", "the previous release spent 0.1 of the budget",
    "the claim is tested against fresh data", "an auditor tested on GPTT", "benchmarks show", "a test/train split",
    "H_16 + CI run on the same data",
])
def test_the_audit_leaves_teaching_about_tests_and_benchmarks_alone(text: str):
    from tools import handout_audit

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
    assert handout_audit.findings(nb) == []


def _names(source: str) -> tuple[set[str], set[str]]:
    """The names a cell binds and the names it reads (IPython magics dropped)."""
    import ast

    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    bound, read = set(), set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, (ast.Store, ast.Del)) else read).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):            # a lambda's or a function's parameter
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    return bound, read


@pytest.mark.parametrize("lecture", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_student_notebook_runs_without_the_checks_it_loses(lecture: Path):
    """``make student`` drops the checks, so no cell a student runs may read a name that only a check defined,
    and a check must print nothing (its output would be lost with it). Found by parsing, cell by cell, in order."""
    only_in_checks: set[str] = set()
    for k, cell in enumerate(nbformat.read(lecture, as_version=4).cells):
        if cell.cell_type != "code":
            continue
        bound, read = _names(cell.source)
        if course.is_check(cell):
            assert not cell.outputs, f"{lecture.name} cell {k}: a check that prints ({cell.source[:60]!r})"
            only_in_checks |= bound
        else:
            missing = (read - bound) & only_in_checks
            assert not missing, f"{lecture.name} cell {k} reads {sorted(missing)}, defined only in a check"
            only_in_checks -= bound


def test_unit_budget_counts_prose_without_maths_markup_or_link_targets():
    from tools import unit_budget

    assert unit_budget.prose_words("The $x + y$ and $$\\sum_i x_i$$ <b>bold</b> [link](https://a.b/c) end.") == 5
    assert unit_budget.prose_words("| a | b |\n|---|:-:|\n| 1 | 2 |") == 4


def test_unit_budget_splits_a_lecture_at_its_unit_headings(tmp_path: Path):
    from tools import unit_budget

    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    checked = code("assert x == 1")
    checked.metadata["tags"] = ["hide-input", "remove-input"]
    nb = nbformat.v4.new_notebook(cells=[
        md("# Lecture 9 — title"), md("# Unit 9.1 — one\n\n### Exercise 9.1: a"), code("x = 1\n\ny = 2"), checked,
        md("# Unit 9.2 — two\n\n### Exercise 9.2: b\n\n### Exercise 9.3: c")])
    path = tmp_path / "99_demo.ipynb"
    nbformat.write(nb, path)
    one, two = unit_budget.units(path)
    assert (one.title, one.code_lines, one.exercises) == ("Unit 9.1 — one", 2, 1)   # the check is not counted
    assert (two.title, two.code_lines, two.exercises) == ("Unit 9.2 — two", 0, 2)
    assert one.over() == ["exercises 1 not in 2-4"] and two.over() == []


def test_unit_budget_sets_homework_apart_from_the_class(tmp_path: Path):
    from tools import unit_budget

    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    nb = nbformat.v4.new_notebook(cells=[
        md("# Lecture 9 — title\n\n### Exercise 9.1: a\n\n### Exercise 9.2: b"), code("x = 1"),
        md("## Homework\n\nAfter class."), md("### Exercise 9.3: c " + "word " * 2000), code("y = 2\nz = 3"),
        md("## Summary\n\nthree more words")])
    path = tmp_path / "99_demo.ipynb"
    nbformat.write(nb, path)
    (unit,) = unit_budget.units(path)
    assert (unit.exercises, unit.homework, unit.code_lines) == (2, 1, 1)
    assert unit.prose_words < 30 and unit.over() == []     # the homework's 2,000 words are not the class's


@pytest.mark.parametrize("lecture", LECTURES, ids=lambda p: p.stem)
def test_every_unit_fits_one_75_minute_class(lecture: Path):
    """tools/unit_budget.py's stated budget (prose words, visible code lines, figures, explorers, exercises),
    measured on the student version with the committed outputs."""
    from tools import unit_budget

    for unit in unit_budget.units(lecture):
        assert unit.over() == [], f"{lecture.name} {unit.title}: {unit.over()}"


def test_the_course_table_gives_each_lecture_one_class_per_unit():
    from tools import unit_budget

    classes = {}
    for row in (course.ROOT / "docs" / "course.md").read_text().splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"\d\d", cells[0]):
            classes[cells[0]] = int(cells[2])
    units = {p.name[:2]: len(unit_budget.units(p)) for p in LECTURES}
    assert classes == units
    in_words = {21: "twenty-one"}.get(sum(units.values()), str(sum(units.values())))   # the sentence's number
    assert f"course of {in_words} 75-minute classes" in (course.ROOT / "docs" / "course.md").read_text()


@pytest.mark.parametrize("companion", course.companions(), ids=lambda p: p.stem)
def test_a_companion_and_its_lecture_link_each_other_and_the_lecture_keeps_one_sentence(companion: Path):
    """The paper reproductions live in the companion: the lecture keeps the section's heading and one paragraph
    linking to it, with no code; the companion opens with a link back and teaches nothing new (no exercise, no
    explorer)."""
    lecture = course.LECTURES / companion.name.removeprefix("checked_")
    assert lecture in LECTURES
    nb, comp = nbformat.read(lecture, as_version=4), nbformat.read(companion, as_version=4)
    links = [k for k, c in enumerate(nb.cells) if c.cell_type == "markdown" and f"]({companion.name})" in c.source]
    assert links, f"{lecture.name} does not link {companion.name}"
    for k in links:
        assert re.match(r"#{1,2} ", nb.cells[k].source), "the link sits under the section's own heading"
        after = nb.cells[k + 1] if k + 1 < len(nb.cells) else None
        assert after is None or after.cell_type == "markdown", f"{lecture.name}: code left after the link"
        assert len(re.findall(r"[.!?](\s+[A-Z]|$)", nb.cells[k].source.split("\n", 1)[1].strip())) == 1, "one sentence"
    assert f"]({lecture.name})" in comp.cells[0].source
    text = "\n".join(c.source for c in comp.cells)
    assert "### Exercise" not in text and "Explorer(" not in text


def _before_this_lecture(lecture: Path) -> str:
    nb = nbformat.read(lecture, as_version=4)
    lines = [ln for c in nb.cells[:6] if c.cell_type == "markdown" for ln in c.source.splitlines()
             if ln.startswith("**Before this lecture:**")]
    assert len(lines) == 1, f"{lecture.name}: one 'Before this lecture' line"
    return lines[0]


def test_the_course_table_says_what_each_lecture_says_it_builds_on():
    """docs/course.md's 'builds on' column lists exactly the earlier lectures named in each lecture's 'Before this
    lecture' line; a later lecture may be named only in a sentence that says it is used as a black box here (and
    where the lecture says what it does). Read from both files, so neither can drift."""
    table = {}
    for row in (course.ROOT / "docs" / "course.md").read_text().splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"\d\d", cells[0]):
            table[cells[0]] = set(re.findall(r"\b\d\d\b", cells[3]))
    assert sorted(table) == [p.name[:2] for p in LECTURES]
    for lecture in LECTURES:
        number, earlier = lecture.name[:2], set()
        for sentence in re.split(r"(?<=[.;])\s+(?=[A-Z§])", _before_this_lecture(lecture)):
            named = set(re.findall(r"\b\d\d\b", sentence))
            later = {n for n in named if n >= number}
            assert not later or ("black box" in sentence and "§" in sentence), \
                f"{lecture.name} builds on a later lecture {sorted(later)} without a self-contained box: {sentence!r}"
            earlier |= named - later
        assert table[number] == earlier, (f"docs/course.md row {number}: {sorted(table[number])}, "
                                          f"the lecture: {sorted(earlier)}")
