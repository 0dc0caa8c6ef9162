"""Every public function, class and method carries a numpydoc docstring, checked by numpydoc's own validator.

Rules (a chosen subset of numpydoc's checks: the ones that make a docstring usable, not its style rules such as
"See Also" sections or capitalised parameter descriptions):

* every public function, method and class has a docstring (GL08);
* every parameter is documented and described, and no documented parameter is
  unknown (PR01, PR02, PR07); a dataclass may document its fields under
  ``Parameters`` or ``Attributes``;
* a function that returns something has a described ``Returns`` section (RT01, RT03);
* a function whose body raises, or calls one of :mod:`dpviz.validation`'s
  ``check_*`` helpers, has a ``Raises`` section (the exercise checkers, also called ``check_*``, never raise);
* every public function and class of the core (not experiments, plots or
  widgets) has an ``Examples`` section; ``make test`` runs them as doctests.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import textwrap
from collections.abc import Iterator

import pytest
from numpydoc.docscrape import ClassDoc, FunctionDoc
from numpydoc.validate import validate

import dpviz

PRESENTATION = ("dpviz.experiments", "dpviz.plots", "dpviz.widgets", "dpviz.export")
FUNCTION_CHECKS = {"GL08", "PR01", "PR02", "PR07", "RT01", "RT03"}


def _public_objects() -> Iterator[tuple[str, object]]:
    seen: set[int] = set()
    for info in sorted(pkgutil.walk_packages(dpviz.__path__, "dpviz."), key=lambda i: i.name):
        mod = importlib.import_module(info.name)
        names = getattr(mod, "__all__", None) or [n for n in vars(mod) if not n.startswith("_")]
        for name in names:
            obj = getattr(mod, name)
            if id(obj) in seen or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if not getattr(obj, "__module__", "").startswith("dpviz"):
                continue
            seen.add(id(obj))
            yield f"{obj.__module__}.{obj.__qualname__}", obj
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    if inspect.isfunction(member) or isinstance(member, (staticmethod, classmethod)):
                        yield f"{obj.__module__}.{obj.__qualname__}.{attr}", getattr(obj, attr)


OBJECTS = list(_public_objects())


def _is_core(qualname: str) -> bool:
    return not qualname.startswith(PRESENTATION)


#: dpviz.validation's check_* helpers (the exercise checkers are also called check_*, but give feedback, never raise)
VALIDATORS = set(importlib.import_module("dpviz.validation").__all__)


def _raises(fn: object) -> bool:
    try:
        source = textwrap.dedent(inspect.getsource(fn))  # type: ignore[arg-type]
    except (OSError, TypeError):
        return False
    tree = ast.parse(source)
    body = tree.body[0]
    for node in ast.walk(body):
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            # a bare name is a validator only if it is bound to one: dpviz.exercises.checks.check_array (feedback,
            # never raises) shares its name with dpviz.validation.check_array
            bound = getattr(fn, "__globals__", {}).get(name) if isinstance(f, ast.Name) else None
            if name.startswith("check_") and name in VALIDATORS and (
                    bound is None or getattr(bound, "__module__", "").startswith("dpviz.validation")):
                return True
    return False


@pytest.mark.parametrize("qualname,obj", OBJECTS, ids=[q for q, _ in OBJECTS])
# numpydoc lists a widget class's members, which reads ipywidgets' deprecated class properties
@pytest.mark.filterwarnings(r"ignore:Widget\.\w+ is deprecated:DeprecationWarning")
def test_numpydoc(qualname: str, obj: object) -> None:
    errors = {code: msg for code, msg in validate(qualname)["errors"]}
    assert "GL08" not in errors, f"{qualname} has no docstring"
    if inspect.isclass(obj):
        doc = ClassDoc(obj)
        documented = {p.name.split(":")[0].strip() for p in doc["Parameters"] + doc["Attributes"]}
        documented = {n for part in documented for n in part.replace("*", "").split(",")}
        documented = {n.strip() for n in documented}
        if dataclasses.is_dataclass(obj):
            wanted = {f.name for f in dataclasses.fields(obj) if f.init}
        else:
            sig = inspect.signature(obj)
            wanted = {p for p in sig.parameters if p not in ("self", "args", "kwargs")}
        missing = wanted - documented
        assert not missing, f"{qualname}: parameters/fields not documented: {sorted(missing)}"
    else:
        bad = {c: m for c, m in errors.items() if c in FUNCTION_CHECKS}
        assert not bad, f"{qualname}: {bad}"
        if _raises(obj):
            assert FunctionDoc(obj)["Raises"], f"{qualname} raises (or validates) but has no Raises section"
    if _is_core(qualname) and "." not in qualname.removeprefix(obj.__module__ + "."):  # top-level, not a method
        assert "EX01" not in errors, f"{qualname} (core) has no Examples section"
