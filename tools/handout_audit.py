"""Count what a student must not receive in the student notebooks (``make student``): checks and project talk.

``python -m tools.handout_audit``
    Builds the student version of every lecture in memory (:func:`tools.course.student_version`) and lists, per
    lecture, every finding: a code cell that asserts or is one of the lecture's checks, and every sentence (in prose
    or in a code comment or string) that matches one of :data:`PATTERNS`. Exits 1 if there is any.

The patterns are about the *project*, not about privacy: a lecture may say "a hypothesis test" or "DPBench, the
benchmark of Hay et al.", but not "the test suite checks it", "measured on the 2-core machine", "dpviz's first
version". Each pattern lists the phrasings found in the lectures when it was written and their near variants.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass

import nbformat

from tools import course

#: What a student's notebook must not mention, by kind; matched case-insensitively in every cell's source.
PATTERNS: dict[str, re.Pattern[str]] = {
    "the project's tests": re.compile(
        r"\btest[ -]suite\b|\baudit suite\b|\btests/\w|\btest_\w+\.py\b|\bpytest\b|\bnbval\b|\bunit tests?\b"
        r"|\bdoctests?\b|\bregression tests?\b|\bthe tests (check|compare|assert|verify|run|confirm)"
        r"|\b(our|dpviz's|the library's|the project's) tests\b|\bcourse is tested\b", re.I),
    "benchmarks and build commands": re.compile(
        r"\bmake (bench|test|lab|docs|student|slides|classroom|exports)(?![\w-])|\bbenchmarks/|\bpython -m tools\b"
        r"|\bthis repository\b", re.I),
    "the machine it ran on": re.compile(
        r"\b\d+-core\b|\bon two cores\b|\bthis machine\b|\bthe machine (this|the course|we)\b"
        r"|\btested on (this|the|a) (machine|computer|laptop)\b|\bOpenBLAS\b|\bBLAS kernel\b|\bin CI\b"
        r"|\bCI (machine|server|job)\b", re.I),
    "model answers and rubrics": re.compile(r"\*\*Model answer\.\*\*|\bMarking rubric\b"),
    "earlier versions of dpviz": re.compile(
        r"dpviz's (earlier|first|previous|old|former)\b|\b(earlier|previous|first|old|former) versions? of dpviz\b"
        r"|\bour (earlier|first|previous|old) (reading|version)\b|\bdpviz (used to|previously|once)\b"
        r"|\bwe (fixed|changed) (a|an|the|this) (bug|error|mistake)\b", re.I),
}


@dataclass(frozen=True)
class Finding:
    """One thing a student must not receive: where it is (lecture, cell index in the student version), its kind
    (``"assert"``, ``"check cell"`` or a key of :data:`PATTERNS`) and the text around it."""

    lecture: str
    cell: int
    kind: str
    text: str


def asserts(source: str) -> bool:
    """Whether Python ``source`` (IPython magics dropped) contains an ``assert`` statement."""
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    try:
        tree = ast.parse(code)
    except SyntaxError:           # a student cell with "..." in an odd place: judged by its text instead
        return re.search(r"^\s*assert\b", code, re.M) is not None
    return any(isinstance(node, ast.Assert) for node in ast.walk(tree))


def findings(nb: nbformat.NotebookNode, lecture: str = "") -> list[Finding]:
    """Every finding in ``nb`` as given (pass a student version to audit what students receive)."""
    out = []
    for k, cell in enumerate(nb.cells):
        if course.is_check(cell):
            out.append(Finding(lecture, k, "check cell", cell.source[:80]))
        elif cell.cell_type == "code" and asserts(cell.source):
            out.append(Finding(lecture, k, "assert", cell.source[:80]))
        for kind, pattern in PATTERNS.items():
            for m in pattern.finditer(cell.source):
                text = cell.source[max(0, m.start() - 60):m.end() + 40].replace("\n", " ")
                out.append(Finding(lecture, k, kind, text))
    return out


def audit() -> list[Finding]:
    """The findings in the student version of every lecture and companion."""
    out = []
    for path in course.lectures() + course.companions():
        out += findings(course.student_version(nbformat.read(path, as_version=4)), path.stem)
    return out


def main() -> int:
    found = audit()
    for f in found:
        print(f"{f.lecture} cell {f.cell} [{f.kind}]: {f.text}")
    kinds = ["assert", "check cell", *PATTERNS]
    print(f"{len(course.lectures() + course.companions())} student notebooks: " + ", ".join(
        f"{sum(f.kind == k for f in found)} {k}" for k in kinds))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
