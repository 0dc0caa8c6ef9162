"""An nbgrader course from the lectures: one assignment per lecture, autograded exercises, hand-marked derivations.

``python -m tools.assignments [OUT]`` (``make assignments``; default ``build/assignments``) writes an nbgrader
course directory and runs ``nbgrader generate_assignment`` on it, so that ``OUT/release/`` holds what students
receive::

    OUT/nbgrader_config.py        the course: its gradebook, the stubs that replace solutions
    OUT/source/lectureNN/*.ipynb  the instructor's version, with nbgrader's cell metadata
    OUT/release/lectureNN/*.ipynb the students' version (solutions and hidden tests removed)

How a lecture becomes an assignment:

- every exercise cell (the code between ``### BEGIN SOLUTION`` and ``### END SOLUTION``) is an nbgrader
  *solution* cell; its solution becomes ``...  # your answer here``, so the untouched ``answer = ...`` still runs;
- after it, a locked *autograder test* cell worth the exercise's points (easy 1, medium 2, hard 3) calls the
  exercise's checker again, between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS``: students see the
  cell's heading, not the test.  The test reloads the checker's module, so redefining ``ex`` or a checker in the
  notebook does not change the grade; for an exercise with per-student values it also requires that ``ex.start``
  was given the student's nbgrader id (the folder nbgrader grades the submission in), so a notebook copied from
  another student, or one that picks another id's easier numbers, scores nothing there;
- every written exercise (``(written, P points)``) becomes a *manually graded* answer cell worth P points whose
  solution is the model answer and marking rubric (the instructor's version only);
- the lectures' hidden checks (cells tagged ``remove-input``) are dropped, as in ``make student``.

``nbgrader autograde lectureNN`` then runs each submission and scores the test cells; the written answers wait
for ``nbgrader formgrader``.  See docs/course.md.
"""

from __future__ import annotations

import ast
import copy
import re
import subprocess
import sys
from pathlib import Path

import nbformat

from tools import course

ROOT = Path(__file__).resolve().parents[1]
POINTS = {"easy": 1, "medium": 2, "hard": 3}
HEADING = re.compile(r"\A\s*#+ *Exercise (\d+\.\d+):[^\n]*?"
                     r"(?:\((easy|medium|hard)\)|\(written, (\d+) points?\))[ \t]*$", re.M)
CODE_STUB = "...  # your answer here"
TEXT_STUB = "*Your answer* (double-click this cell to write; maths between $ signs):"

CONFIG = f'''c = get_config()  # noqa: F821 - nbgrader's configuration object
c.CourseDirectory.root = __file__.rsplit("/", 1)[0]
c.CourseDirectory.course_id = "dpviz"
c.ClearSolutions.code_stub = {{"python": {CODE_STUB!r}}}
c.ClearSolutions.text_stub = {TEXT_STUB!r}
c.ExecutePreprocessor.timeout = 300
c.Execute.timeout = 300
'''


def _meta(kind: str, grade_id: str, points: int = 0) -> dict:
    grade_id = grade_id.replace(".", "_")           # nbgrader ids are letters, digits, _ and -
    solution, grade = {"answer": (True, False), "test": (False, True), "written": (True, True)}[kind]
    meta = {"grade": grade, "grade_id": grade_id, "locked": kind == "test", "schema_version": 3,
            "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return meta


def _check_call(source: str) -> str:
    """The exercise cell's last line, its checker call ``ex.check_x(answer)``."""
    last = source.rstrip().splitlines()[-1].strip()
    if not re.fullmatch(r"ex\.check_\w+\(.*\)", last):
        raise ValueError(f"an exercise cell must end with its check call ex.check_...(...), got {last!r}")
    return last


def _names(source: str) -> tuple[set[str], set[str], set[str]]:
    """(names a cell binds, names it reads, names it imports) at any depth; magics and shell lines ignored."""
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    bound: set[str] = set()
    read: set[str] = set()
    imported: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store | ast.Del) else read).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            imported.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return bound | imported, read, imported


def _only_start(source: str) -> bool:
    """Whether a cell only imports the lecture's exercises as ``ex`` and calls ``ex.start``."""
    lines = [ln.split("#", 1)[0].strip() for ln in source.splitlines()]
    imports_ex = r"from dpviz\.exercises import lecture\d\d as ex"
    return "ex.start(" in source and all(not ln or ln.startswith("ex.start(") or re.fullmatch(imports_ex, ln)
                                         for ln in lines)


def _is_exercise_heading(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "markdown" and bool(HEADING.search(cell.source)) and cell.source.lstrip().startswith("#")


def exercise_sheet(nb: nbformat.NotebookNode, title: str) -> nbformat.NotebookNode:
    """The lecture's exercises as a notebook of their own: each exercise's statement and cells, and, in the lecture's
    order, only the code cells they need (the cells that bind a name an exercise cell reads, and theirs in turn).

    A lecture's figures, explorers and long computations are left out, so the sheet runs in seconds; the exercises'
    numbers, statements, checkers and solutions are the lecture's own.
    """
    cells = [c for c in nb.cells if not course.is_check(c)]
    keep: set[int] = set()
    in_exercise = False
    for i, cell in enumerate(cells):           # every exercise's statement, answer cells and written answer
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("#"):
            in_exercise = _is_exercise_heading(cell)
        if in_exercise or cell.cell_type == "code" and "ex.start(" in cell.source:
            keep.add(i)
    code = {i: _names(c.source) for i, c in enumerate(cells) if c.cell_type == "code"}
    todo = [i for i in keep if i in code]
    while todo:                                # the latest earlier cell binding each name a kept cell reads
        i = todo.pop()
        for name in code[i][1] - code[i][0]:
            if any(j < i and j in keep and name in code[j][2] for j in code):
                continue                       # a module an earlier kept cell imports (``ex``, ``np``)
            j = next((j for j in range(i - 1, -1, -1) if j in code and name in code[j][0]), None)
            if j is not None and j not in keep:
                keep.add(j)
                todo.append(j)
    starts = [i for i in sorted(keep) if cells[i].cell_type == "code" and _only_start(cells[i].source)]
    keep -= set(starts[1:])                    # one id for the whole sheet
    intro = nbformat.v4.new_markdown_cell(
        f"# {title}: exercises\n\nThe exercises of the lecture, with the code they build on. Work through the "
        "lecture first. Put your name or student id in `ex.start(...)` below: each exercise then has your own "
        "numbers. Every checker tells you at once whether an answer is right; your grade is computed when the "
        "assignment is collected, from the same checks.")
    out = nbformat.v4.new_notebook(metadata=nb.metadata)
    out.cells = [intro] + [copy.deepcopy(c) for i, c in enumerate(cells) if i in keep]
    return out


def source_version(nb: nbformat.NotebookNode, lecture_module: str) -> tuple[nbformat.NotebookNode, dict[str, int]]:
    """``nb`` with nbgrader's metadata: answer, autograder-test and written-answer cells; and each exercise's points.

    Raises ``ValueError`` if an exercise's heading, code cell or written-answer cell is not where the lectures
    put it.
    """
    from dpviz.exercises.registry import find

    cells: list[nbformat.NotebookNode] = []
    points: dict[str, int] = {}
    number: str | None = None
    written: tuple[str, int] | None = None
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if course.is_check(cell):
            continue
        if cell.cell_type == "markdown":
            m = HEADING.search(cell.source)
            if m and cell.source.lstrip().startswith("#"):
                number = m.group(1)
                written = (number, int(m.group(3))) if m.group(3) else None
            elif cell.source.lstrip().startswith("#"):
                number, written = None, None
            if "written-answer" in tags:
                if written is None:
                    raise ValueError(f"a written-answer cell outside a written exercise: {cell.source[:60]!r}")
                cell.metadata["nbgrader"] = _meta("written", f"written-{written[0]}", written[1])
                points[written[0]] = written[1]
                cells.append(cell)
                continue
            if "solution" in tags and written is not None:       # the model answer and rubric: into the answer cell
                cells[-1].source = f"### BEGIN SOLUTION\n{cell.source}\n### END SOLUTION"   # released: TEXT_STUB
                continue
        cells.append(cell)
        if cell.cell_type == "code" and "### BEGIN SOLUTION" in cell.source and number is not None:
            ex = find(number)
            cell.metadata["nbgrader"] = _meta("answer", f"answer-{number}")
            points[number] = POINTS[ex.level]
            call = _check_call(cell.source)
            module = f"dpviz.exercises.{ex.check.__module__.rsplit('.', 1)[1]}"
            whose = ("if _os.environ.get('NBGRADER_EXECUTION') == 'autograde':   # in autograded/<id>/<lecture>/\n"
                     "    _id = _pl.Path.cwd().parent.name\n"
                     "    assert _variants.student() == _id, (f'ex.start was given {_variants.student()!r}, not your "
                     "student id {_id!r}: these are not your numbers')\n") if ex.parameters else ""
            checked = call.replace("ex.", "_grader.", 1)
            test = nbformat.v4.new_code_cell(
                f"# Exercise {number}: {points[number]} point{'s' if points[number] > 1 else ''}, checked again when "
                "the assignment is collected\n"
                f"assert {call}.passed, 'exercise {number} is not right yet'\n"
                "### BEGIN HIDDEN TESTS\n"
                "import importlib as _il, os as _os, pathlib as _pl\n"
                "_variants = _il.import_module('dpviz.exercises.variants')\n"
                f"{whose}"
                f"_grader = _il.reload(_il.import_module({module!r}))   # undoes a checker redefined in the notebook\n"
                f"_fb = {checked}\n"
                "assert _fb.passed, str(_fb)\n"
                "### END HIDDEN TESTS")
            test.metadata["nbgrader"] = _meta("test", f"test-{number}", points[number])
            cells.append(test)
            number = None
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    out = nbformat.v4.new_notebook(metadata=nb.metadata)
    out.cells = cells
    return out, points


def _check_complete(lecture: nbformat.NotebookNode, points: dict[str, int], path: Path) -> None:
    """Raise ValueError unless the sheet holds every exercise the lecture has (registered and written)."""
    from dpviz.exercises import all_exercises

    number = str(int(path.name[:2]))
    want = {e.number for e in all_exercises() if e.number.split(".")[0] == number}
    want |= {m.group(1) for c in lecture.cells if c.cell_type == "markdown"
             for m in [re.match(r"\s*#+ *Exercise (\d+\.\d+):[^\n]*\(written, ", c.source)] if m}
    if set(points) != want:
        raise ValueError(f"{path.name}: the sheet has exercises {sorted(points)}, the lecture {sorted(want)}")


def nbgrader_env() -> dict[str, str]:
    """The environment nbgrader runs in: this Python's scripts first on PATH (its gradebook calls ``alembic``)."""
    import os

    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def assignment_name(path: Path) -> str:
    """``lectureNN`` for ``notebooks/NN_*.ipynb``."""
    return f"lecture{path.name[:2]}"


def build(out: Path, lectures: list[Path] | None = None) -> dict[str, dict[str, int]]:
    """Write the nbgrader course into ``out`` and release every lecture; return each assignment's points."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "nbgrader_config.py").write_text(CONFIG)
    table: dict[str, dict[str, int]] = {}
    for path in lectures or course.lectures():
        name = assignment_name(path)
        lecture = nbformat.read(path, as_version=4)
        title = next((c.source.lstrip("# ").splitlines()[0] for c in lecture.cells if c.cell_type == "markdown"),
                     path.stem)
        nb, points = source_version(exercise_sheet(lecture, title), name)
        _check_complete(lecture, points, path)
        folder = out / "source" / name
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, folder / path.name)
        table[name] = points
        # the data files a lecture reads sit in the package; nothing else to copy
        subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", name, "--force",
                        "--log-level=WARN"], cwd=out, check=True, env=nbgrader_env())
    return table


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "build" / "assignments"
    table = build(out.resolve())
    for name, points in table.items():
        auto = sum(p for n, p in points.items() if n in _autograded(name, out))
        print(f"{name}: {len(points)} exercises, {sum(points.values())} points ({auto} autograded)")
    print(f"nbgrader course in {out}: release/ is what students receive; `nbgrader autograde lectureNN` grades")
    return 0


def _autograded(name: str, out: Path) -> set[str]:
    nb = nbformat.read(next((out / "source" / name).glob("*.ipynb")), as_version=4)
    return {c.metadata["nbgrader"]["grade_id"].split("-", 1)[1].replace("_", ".") for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("test-")}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
