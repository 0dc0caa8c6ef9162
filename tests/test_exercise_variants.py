"""Per-student variants: every student has their own numbers, the checker computes the answer for them, and no
answer lies stored where a student's import can read it.

``ex.start(id)`` draws each parameterised exercise's values from a SHA-256 hash of the id, so the tests here are
about the draw's consequences, not its formula: a right answer for one student's variant is right, the same
answer is (usually) wrong for another student, and a walk through every object the exercise modules hold finds
no value equal to any student's expected answer.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import numbers
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

import dpviz.exercises as pkg
from dpviz.exercises import all_exercises, variants
from dpviz.exercises.registry import KINDS

EXERCISES = all_exercises()
PARAMETERISED = [e for e in EXERCISES if e.parameters]
STUDENTS = ("ada", "grace", "s1234567", "Émilie du Châtelet")
ROOT = Path(__file__).resolve().parents[1]
LECTURES = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _same(a: object, b: object) -> bool:
    """Whether two answers are the same value (numbers, arrays; functions are never compared)."""
    if callable(a) or callable(b):
        return False
    try:
        x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return a == b
    return x.shape == y.shape and bool(np.all(x == y))


@pytest.mark.parametrize("student", STUDENTS)
@pytest.mark.parametrize("ex", EXERCISES, ids=lambda e: e.number)
def test_each_students_reference_passes_and_their_mistakes_fail(ex, student):
    with variants.as_student(student):
        fb = ex.check(ex.reference())
        assert fb.passed, f"{ex.number} for {student!r} ({ex.values()}): {fb}"
        for wrong, word in ex.typical_mistakes():
            fb = ex.check(wrong)
            assert not fb.passed, f"{ex.number} for {student!r}: accepts the mistake {wrong!r}"
            assert word.lower() in (fb.hint + " " + fb.message).lower(), (ex.number, student, word, str(fb))


@pytest.mark.parametrize("ex", PARAMETERISED, ids=lambda e: e.number)
def test_students_get_different_numbers_and_answers(ex):
    """Over 40 ids, at least 6 different variants and different answers, and two ids rarely share an answer."""
    ids = [f"student-{k:03d}" for k in range(40)]
    answers, shown = [], set()
    for who in ids:
        shown.add(repr(ex.values(who)).split(": ", 1)[1])
        answers.append(ex.reference(who))
    assert variants.distinct_choices(ex.parameters) >= 6, f"{ex.number}: fewer than 6 variants"
    assert len(shown) >= 6, f"{ex.number}: only {len(shown)} different variants among 40 students"
    pairs = list(itertools.combinations(range(len(ids)), 2))
    equal = sum(_same(answers[i], answers[j]) for i, j in pairs)
    assert equal / len(pairs) <= 0.25, f"{ex.number}: {equal} of {len(pairs)} pairs of students share an answer"


@pytest.mark.parametrize("ex", PARAMETERISED, ids=lambda e: e.number)
def test_one_students_right_answer_is_wrong_for_another_whose_answer_differs(ex):
    for a, b in itertools.combinations(STUDENTS, 2):
        ra, rb = ex.reference(a), ex.reference(b)
        if callable(ra) or _same(ra, rb):
            continue
        with variants.as_student(b):
            assert not ex.check(ra).passed, f"{ex.number}: {a!r}'s answer passes for {b!r}"


def test_the_default_variant_is_each_parameters_first_choice_and_ids_are_stable_across_processes():
    e = PARAMETERISED[0]
    assert all(e.values()[k] == c[0] for k, c in e.parameters.items())
    code = (f"from dpviz.exercises.registry import find; print(repr(find({e.number!r}).values('ada')), "
            f"find({e.number!r}).reference('ada'))")
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": str(seed), "PATH": ""}).stdout for seed in (1, 2)}
    assert len(runs) == 1 and "ada" in runs.pop()


def _reachable(obj: object, seen: set[int], out: list[object]) -> None:
    """Every value held by ``obj``: containers, arrays, dataclass fields (not code: a function is not a value)."""
    if id(obj) in seen or isinstance(obj, type) or callable(obj) and not dataclasses.is_dataclass(obj):
        return
    seen.add(id(obj))
    if isinstance(obj, numbers.Number | np.ndarray | np.generic | str):
        out.append(obj)
    elif isinstance(obj, dict) or hasattr(obj, "items") and hasattr(obj, "keys"):
        for k, v in obj.items():
            _reachable(k, seen, out)
            _reachable(v, seen, out)
    elif isinstance(obj, list | tuple | set | frozenset):
        for v in obj:
            _reachable(v, seen, out)
    elif dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            if f.name != "parameters":       # the choices a student is shown, by design
                _reachable(getattr(obj, f.name), seen, out)


def test_no_value_in_the_exercise_modules_equals_a_students_expected_answer():
    """Before any check is called, nothing a student's import holds is their answer (6.4's hidden histogram too):
    no array, and no scalar that is not a round number, in the exercise's own lecture modules (``lectureNN*``) or
    the shared ones (another lecture's small arrays may equal an answer by chance: 3.2's [3, 2, 0] is also
    lecture 09's pairs)."""
    names = [m.name for m in pkgutil.iter_modules(pkg.__path__)]

    def held_by(lecture: str) -> tuple[list[np.ndarray], set[float]]:
        held: list[object] = []
        seen: set[int] = set()
        mods = [pkg] + [importlib.import_module(f"dpviz.exercises.{n}") for n in names
                        if not n.startswith("lecture") or n.startswith(f"lecture{lecture}")]
        for mod in mods:
            for name, value in vars(mod).items():
                if not name.startswith("__") and not isinstance(value, type(pkg)):
                    _reachable(value, seen, held)
        arrays = [h for h in held if isinstance(h, np.ndarray) and h.size > 1]
        scalars = {float(h) for h in held if isinstance(h, numbers.Real | np.generic)
                   and not isinstance(h, bool | str) and np.ndim(h) == 0}
        return arrays, scalars

    for ex in PARAMETERISED:
        arrays, scalars = held_by(ex.number.split(".")[0].zfill(2))
        for who in STUDENTS:
            answer = ex.reference(who)
            if callable(answer):
                continue
            a = np.asarray(answer, dtype=float)
            if a.size > 1:
                assert not any(h.shape == a.shape and np.array_equal(h, a) for h in arrays), (ex.number, who)
            elif float(f"{float(a):.2g}") != float(a):     # a value like 1.386 or 22.67, not a round 0.5 or 12
                assert float(a) not in scalars, (ex.number, who, float(a))


def _written(path: Path) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    return [m.group(1) for c in nb.cells if c.cell_type == "markdown"
            for m in [re.match(r"#+ *Exercise (\d+\.\d+):[^\n]*\(written, ", c.source)] if m]


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_at_least_half_of_each_lectures_exercises_need_more_than_a_plug_in(path):
    lecture = str(int(path.stem[:2]))
    checked = [e for e in EXERCISES if e.number.split(".")[0] == lecture]
    written = _written(path)
    kinds = [e.kind for e in checked] + ["derive"] * len(written)
    assert all(k in KINDS for k in kinds)
    assert sum(k != "plug-in" for k in kinds) * 2 >= len(kinds), \
        f"{path.stem}: {[(e.number, e.kind) for e in checked]} + written {written}"


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_each_lecture_starts_its_exercises_with_a_student_id_and_shows_each_variant(path):
    nb = nbformat.read(path, as_version=4)
    lecture = str(int(path.stem[:2]))
    src = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    if not any(e.number.split(".")[0] == lecture for e in PARAMETERISED):
        pytest.skip(f"{path.stem}: no parameterised exercise")
    assert 'ex.start("student")' in src, f"{path.stem}: no ex.start cell"
    for e in PARAMETERISED:
        if e.number.split(".")[0] == lecture:
            assert f'ex.values("{e.number}")' in src, f"{path.stem}: exercise {e.number} never shows its values"


def test_the_course_page_lists_every_exercises_kind():
    from tools import exercise_kinds

    assert exercise_kinds.table() in (ROOT / "docs" / "course.md").read_text(encoding="utf-8"), \
        "docs/course.md's table of exercise kinds is stale: paste `python -m tools.exercise_kinds`"


@pytest.mark.parametrize("ex", PARAMETERISED, ids=lambda e: e.number)
def test_every_combination_of_choices_makes_a_sound_exercise(ex, monkeypatch):
    """The draw picks among the choices, so every combination is some student's variant: in each one the reference
    passes and every typical mistake fails with its own hint (no mistake equals the answer)."""
    original = variants.variant_values
    names = list(ex.parameters)
    for combo in itertools.product(*ex.parameters.values()):
        chosen = variants.Values(ex.number, "every combination", dict(zip(names, combo, strict=True)), seed=12345)
        monkeypatch.setattr(variants, "variant_values",
                            lambda number, parameters, who, v=chosen: v if number == ex.number
                            else original(number, parameters, who))
        fb = ex.check(ex.solution(chosen))
        assert fb.passed, f"{ex.number} {combo}: {fb}"
        for wrong, word in ex.mistakes(chosen):
            fb = ex.check(wrong)
            assert not fb.passed and word.lower() in (fb.hint + " " + fb.message).lower(), (ex.number, combo, word)
