"""What each lecture's exercises ask of a student: ``python -m tools.exercise_kinds`` prints the table that ends
docs/course.md (a test keeps the two equal).

One row per lecture: each checked exercise with its kind (``dpviz.exercises.registry.KINDS``), the written ones
(kind "derive", marked by hand), and how many of them are not plug-ins.
"""

from __future__ import annotations

import re
import sys

import nbformat

from tools import course

HEADER = "| lecture | exercises (kind) | not plug-in |\n|---|---|---|"


def table() -> str:
    """The markdown table, one row per lecture."""
    from dpviz.exercises import all_exercises

    rows = [HEADER]
    exercises = all_exercises()
    for path in course.lectures():
        lecture = str(int(path.name[:2]))
        nb = nbformat.read(path, as_version=4)
        written = [m.group(1) for c in nb.cells if c.cell_type == "markdown"
                   for m in [re.match(r"#+ *Exercise (\d+\.\d+):[^\n]*\(written, ", c.source)] if m]
        kinds = [(e.number, e.kind) for e in exercises if e.number.split(".")[0] == lecture]
        kinds += [(n, "derive, written") for n in written]
        shown = ", ".join(f"{n} ({k})" for n, k in kinds)
        good = sum(not k.startswith("plug-in") for _, k in kinds)
        rows.append(f"| {path.name[:2]} | {shown} | {good} of {len(kinds)} |")
    return "\n".join(rows)


if __name__ == "__main__":
    sys.stdout.write(table() + "\n")
