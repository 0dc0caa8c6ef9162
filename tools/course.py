"""Build the course's hand-outs from the committed lecture notebooks: student versions, instructor versions, slides.

``python -m tools.course student [OUT]``
    Notebooks for students (default ``build/student``): the code between ``### BEGIN SOLUTION`` and
    ``### END SOLUTION`` becomes ``...  # your answer here`` (the markers nbgrader uses, so an instructor may
    also grade with nbgrader), every output is cleared, and cells tagged ``solution`` (worked answers in
    markdown) and the lectures' checks (code cells tagged ``remove-input``: asserts that keep the printed
    numbers honest; JupyterLab folds them in the instructor's copy) are removed.  Exercise cells start with
    ``answer = ...`` before the solution block, so a student's untouched cell runs and its checker answers
    "no answer yet".
``python -m tools.course instructor [OUT]``
    The notebooks as committed, with solutions and outputs (default ``build/instructor``).  Both hand-outs also
    carry the companions (``checked_NN_*.ipynb``, the paper reproductions), made the same way.
``python -m tools.course execute NOTEBOOK...``
    Run lecture notebooks top to bottom in a fresh kernel (nbclient, seeded like every lecture) and write
    them back with normalised metadata: no per-cell execution timestamps, the ``python3`` kernel, so that
    opening and saving a committed notebook does not mark it modified, and no stored widget state (5 MB of
    figure data per explorer that no static viewer can use).  Prints each one's run time.
``python -m tools.course normalise NOTEBOOK...``
    Normalise the metadata of committed notebooks without running them (``language_info.version`` set to this
    Python's, as JupyterLab writes it on save).
``python -m tools.course slides [OUT]``
    One reveal.js deck per unit (default ``build/slides``), planned by :mod:`tools.slides`: one idea per slide,
    the lecture's prose in the speaker notes, explorers live from ``build/exports`` (``make slides`` builds the
    exports first).  reveal.js, MathJax, require.js and jQuery are read from ``OUT/lib`` when they were installed
    there (``make slides`` installs them from the npm registry), so the decks work offline; otherwise from
    nbconvert's CDN defaults.

Written with nbformat rather than nbgrader: the hand-outs need one text transformation, not nbgrader's
course database and directory layout.
"""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
LECTURES = ROOT / "notebooks"
SOLUTION = re.compile(r"^([ \t]*)### BEGIN SOLUTION[^\n]*\n.*?^[ \t]*### END SOLUTION[^\n]*(\n|$)", re.M | re.S)


def lectures() -> list[Path]:
    """The lecture notebooks, in course order."""
    return sorted(LECTURES.glob("[0-9][0-9]_*.ipynb"))


def companions() -> list[Path]:
    """The lectures' companions (``checked_NN_*.ipynb``): each sets its lecture's values beside its source paper."""
    return sorted(LECTURES.glob("checked_[0-9][0-9]_*.ipynb"))


def strip_solutions(source: str) -> str:
    """Replace every solution block by ``...`` at the block's indentation."""
    return SOLUTION.sub(lambda m: f"{m.group(1)}...  # your answer here\n", source)


def is_check(cell: nbformat.NotebookNode) -> bool:
    """Whether ``cell`` is one of a lecture's checks: a code cell whose input readers never see (tagged
    ``remove-input``), which asserts and prints nothing. Checks are for the instructor's copy and nbval."""
    return cell.cell_type == "code" and "remove-input" in cell.metadata.get("tags", [])


def student_version(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``nb`` without solutions, without checks and without outputs."""
    out = copy.deepcopy(nb)
    cells = []
    for cell in out.cells:
        if "solution" in cell.metadata.get("tags", []) or is_check(cell):
            continue
        if cell.cell_type == "code":
            cell.source = strip_solutions(cell.source)
            cell.outputs = []
            cell.execution_count = None
        cells.append(cell)
    out.cells = cells
    return out


def public_version(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``nb`` for the public documentation site: the committed outputs stay (figures, printed numbers),
    but no exercise's solution does: solution blocks become ``...  # your answer here`` and lose their outputs (a
    checker's verdict explains the answer), and the written exercises' model answers and rubrics are removed."""
    out = copy.deepcopy(nb)
    cells = []
    for cell in out.cells:
        if "solution" in cell.metadata.get("tags", []):
            continue
        if cell.cell_type == "code" and SOLUTION.search(cell.source):
            cell.source = strip_solutions(cell.source)
            cell.outputs = []
            cell.execution_count = None
        cells.append(cell)
    out.cells = cells
    return out


#: Tags of the cells a reader does not see: the docs build and the hand-outs drop their input, JupyterLab folds it.
HIDDEN_TAGS = frozenset({"hide-input", "remove-input"})


def normalise(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Fold the input of the cells tagged :data:`HIDDEN_TAGS` in JupyterLab, and drop what changes at every run or
    save but carries nothing: cell execution timestamps, trusted flags, and the saved widget state (new model ids
    at every run, and plotly's FigureWidget stores its ~5 MB script in it: three explorers made lecture 02 16 MB;
    the docs and nbval never read it, a widget output shows as a note)."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("trusted", None)
        if not cell.metadata.get("tags"):
            cell.metadata.pop("tags", None)
        if cell.cell_type == "code" and HIDDEN_TAGS & set(cell.metadata.get("tags", ())):
            # JupyterLab reads this, not the tags the docs build and the hand-outs honour: the checks stay folded
            cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    # JupyterLab writes the kernel's Python version on every save: keep it, or saving an unchanged lecture
    # rewrites the file (language_info comes from the kernel that ran the notebook; see normalise_files)
    return nb


def normalise_files(paths: list[Path]) -> None:
    """Normalise committed notebooks in place without running them; ``language_info.version`` becomes this
    Python's (the lectures' kernel, which JupyterLab asks on opening and writes back on saving)."""
    import platform

    for path in paths:
        nb = nbformat.read(path, as_version=4)
        normalise(nb).metadata.setdefault("language_info", {})["version"] = platform.python_version()
        nbformat.write(nb, path)


def execute(paths: list[Path], timeout: int = 600) -> None:
    """Run each notebook in a fresh kernel from its own folder and write it back normalised."""
    import time

    from nbclient import NotebookClient

    for path in paths:
        nb = nbformat.read(path, as_version=4)
        t0 = time.perf_counter()
        NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=False,
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        nbformat.write(normalise(nb), path)
        print(f"{path.name}: {time.perf_counter() - t0:.1f} s")


def build(kind: str, out_dir: Path) -> list[Path]:
    """Write the ``kind`` ("student", "instructor" or "slides") version of every lecture into ``out_dir``."""
    if kind == "slides":
        from tools import slides

        return slides.write_decks(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in lectures() + companions():
        nb = nbformat.read(path, as_version=4)
        if kind == "student":
            target = out_dir / path.name
            nbformat.write(student_version(nb), target)
        elif kind == "instructor":
            target = out_dir / path.name
            nbformat.write(nb, target)
        else:
            raise ValueError(f"kind must be 'student', 'instructor' or 'slides', got {kind!r}")
        written.append(target)
    return written


def main(argv: list[str]) -> int:
    if argv and argv[0] == "execute":
        execute([Path(p).resolve() for p in argv[1:]])
        return 0
    if argv and argv[0] == "normalise":
        normalise_files([Path(p).resolve() for p in argv[1:]])
        return 0
    if not argv or argv[0] not in ("student", "instructor", "slides"):
        print(__doc__)
        return 2
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "build" / argv[0]
    for target in build(argv[0], out):
        print(target.relative_to(ROOT) if target.is_relative_to(ROOT) else target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
