"""Does each unit of the course fit one 75-minute class? Measure it against a stated budget.

``python -m tools.unit_budget``
    Prints one row per unit (a ``# Unit N.M`` part of a lecture, or a whole lecture without unit headings) with what
    a student meets in it, measured on the student version (checks and worked solutions removed) and the committed
    outputs (figures, explorers), then the units over :data:`BUDGET`. Exits 1 if any unit is over.

What is counted:
prose words
    words of the markdown cells, with maths (``$…$``, ``$$…$$``), HTML tags, links' targets and table rules removed;
    the collapsed "What you should see" answers count (a student reads them).
code lines
    non-blank lines of the code cells a student sees (checks removed), comment lines included.
figures
    static images in the committed outputs (``image/png`` or ``image/svg+xml``).
explorers
    widget outputs in the committed outputs (``application/vnd.jupyter.widget-view+json``).
exercises
    ``### Exercise`` headings.
homework
    A ``## Homework`` section (up to the next ``#`` or ``##`` heading) is done after class: its cells are not
    counted in the measures above, and its ``### Exercise`` headings are reported in a column of their own.

The budget is a judgement, stated here so that it can be argued with: about 10 minutes of reading per 1,000 words
on projected prose with maths, a code line a few seconds to read and run, a figure or an exercise several minutes.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

import nbformat

from tools import course

#: The most (or, for exercises, the range) a 75-minute unit may hold.
BUDGET = {"prose words": 1800, "code lines": 120, "figures": 5, "explorers": 1, "exercises": (2, 4)}


@dataclass(frozen=True)
class Unit:
    """What a student meets in one unit."""

    lecture: str
    title: str
    prose_words: int
    code_lines: int
    figures: int
    explorers: int
    exercises: int
    homework: int = 0

    def over(self) -> list[str]:
        """The budget lines this unit breaks, as text."""
        out = []
        for name, value in (("prose words", self.prose_words), ("code lines", self.code_lines),
                            ("figures", self.figures), ("explorers", self.explorers)):
            if value > BUDGET[name]:
                out.append(f"{name} {value} > {BUDGET[name]}")
        low, high = BUDGET["exercises"]
        if not low <= self.exercises <= high:
            out.append(f"exercises {self.exercises} not in {low}-{high}")
        return out


_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)
_MARKUP = re.compile(r"<[^>]+>|\]\([^)]*\)|^\|?[\s:|-]+\|?$", re.M)


def prose_words(markdown: str) -> int:
    """The words of ``markdown`` a student reads as prose (maths, HTML tags, link targets, table rules removed)."""
    text = _MARKUP.sub(" ", _MATH.sub(" ", markdown))
    return len(re.findall(r"[A-Za-z0-9][\w'’.-]*", text))


def units(path) -> list[Unit]:  # noqa: ANN001 - a pathlib.Path
    """The units of one lecture, measured."""
    committed = nbformat.read(path, as_version=4)
    student = course.student_version(committed)
    outputs = {id_: c.get("outputs", []) for id_, c in ((c.get("id"), c) for c in committed.cells)}
    parts: list[tuple[str, list]] = []
    homework: dict[str, int] = {}
    after_class = False
    for cell in student.cells:
        first = cell.source.splitlines()[0] if cell.source else ""
        if cell.cell_type == "markdown" and (re.match(r"# Unit ", first) or not parts):
            parts.append((first.lstrip("# ").strip(), []))
        if cell.cell_type == "markdown" and re.match(r"#{1,2} ", first):
            after_class = bool(re.match(r"## Homework\b", first))
        if after_class:
            title = parts[-1][0]
            if cell.cell_type == "markdown":
                homework[title] = homework.get(title, 0) + len(re.findall(r"^### Exercise", cell.source, re.M))
            continue
        parts[-1][1].append(cell)
    if len(parts) > 1 and not parts[0][0].startswith("Unit"):   # the lecture's title cell opens its first unit
        title, cells = parts.pop(0)
        parts[0][1][:0] = cells
    out = []
    for title, cells in parts:
        md = [c.source for c in cells if c.cell_type == "markdown"]
        code = [c for c in cells if c.cell_type == "code"]
        shown = [o for c in code for o in outputs.get(c.get("id"), [])]
        out.append(Unit(
            lecture=path.stem, title=title[:60],
            prose_words=sum(prose_words(s) for s in md),
            code_lines=sum(1 for c in code for line in c.source.splitlines() if line.strip()),
            figures=sum(bool({"image/png", "image/svg+xml"} & set(o.get("data", {}))) for o in shown),
            explorers=sum("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in shown),
            exercises=sum(len(re.findall(r"^### Exercise", s, re.M)) for s in md),
            homework=homework.get(title, 0)))
    return out


def main() -> int:
    rows = [u for path in course.lectures() for u in units(path)]
    print(f"{'unit':62s} {'words':>6s} {'code':>5s} {'figs':>5s} {'expl':>5s} {'exer':>5s} {'home':>5s}  over budget")
    for u in rows:
        print(f"{u.lecture[:2]} {u.title:59s} {u.prose_words:6d} {u.code_lines:5d} {u.figures:5d} {u.explorers:5d} "
              f"{u.exercises:5d} {u.homework:5d}  {'; '.join(u.over())}")
    over = [u for u in rows if u.over()]
    print(f"{len(rows)} units, {len(rows) - len(over)} within the budget {BUDGET}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
