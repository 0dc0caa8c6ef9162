"""Can every static figure of the lectures be read on a projector? Run them and measure each figure.

``python -m tools.figure_check [NOTEBOOK...]``
    Runs each notebook (default: every lecture and companion) in a fresh kernel, as ``tools.course execute`` does,
    with one cell put first (and not saved) that makes ``plt.show`` measure every figure before showing it with
    :func:`dpviz.plots.style.projector_problems`: at most 1200 x 520 px at 100 dpi, titles at least 16 pt, every
    other text at least 12 pt. Prints one line per figure, then the figures with problems; exits 1 if any has one.

The notebooks are not written back. This takes as long as running the notebooks (about two and a half minutes for
all of them on two cores), so ``make test`` does not run it: it checks the same rules on what it can see quickly
(the committed images' sizes, every plotting function's own example, no font size set in a lecture).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import nbformat

from tools import course

HOOK = """\
import json as _json, matplotlib.pyplot as _plt
from dpviz.plots.style import figure_pixels as _px, projector_problems as _problems
_show = _plt.show
def _measured_show(*args, **kwargs):
    for _n in _plt.get_fignums():
        _f = _plt.figure(_n)
        with open({log!r}, "a") as _out:
            _out.write(_json.dumps({{"cell": _CELL[0], "px": _px(_f), "problems": _problems(_f)}}) + "\\n")
    return _show(*args, **kwargs)
_plt.show = _measured_show
_CELL = [0]
"""


def check(path: Path) -> list[dict[str, object]]:
    """Run ``path`` with the measuring hook and return one record per figure shown."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as tmp:
        log = str(Path(tmp) / "figures.jsonl")
        Path(log).touch()
        cells = [nbformat.v4.new_code_cell(HOOK.format(log=log))]
        for k, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                cells.append(nbformat.v4.new_code_cell(f"_CELL[0] = {k}"))
            cells.append(cell)
        nb.cells = cells
        NotebookClient(nb, timeout=600, kernel_name="python3", store_widget_state=False,
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        return [json.loads(line) for line in Path(log).read_text().splitlines()]


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or course.lectures() + course.companions()
    bad = 0
    for path in paths:
        for rec in check(path):
            w, h = rec["px"]
            problems = rec["problems"]
            bad += bool(problems)
            print(f"{path.name} cell {rec['cell']}: {w} x {h} px" + ("" if not problems else
                  "\n    " + "\n    ".join(problems)))
    print(f"{bad} figure(s) with problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
