"""The layering: core imports no plotting/widget library; every public function is documented and typed."""

import ast
import importlib
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import dpviz

PKG = Path(dpviz.__file__).parent
PRESENTATION = ("plotly", "matplotlib", "ipywidgets", "anywidget")
CORE = [p.stem for p in PKG.glob("*.py") if p.stem != "__init__"]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module.split(".")[0] if node.level == 0 else "")
            if node.module.startswith("dpviz."):
                out.add(node.module)
    return out


@pytest.mark.parametrize("module", sorted(CORE))
def test_core_modules_import_no_presentation_library(module):
    imported = _imports(PKG / f"{module}.py")
    assert not imported & set(PRESENTATION), f"dpviz/{module}.py imports {imported & set(PRESENTATION)}"
    assert not any(i.startswith(("dpviz.plots", "dpviz.widgets")) for i in imported)


@pytest.mark.parametrize("path", sorted((PKG / "experiments").glob("*.py")), ids=lambda p: p.name)
def test_experiments_draw_nothing(path):
    imported = _imports(path)
    assert not imported & set(PRESENTATION)
    assert not any(i.startswith(("dpviz.plots", "dpviz.widgets")) for i in imported)


@pytest.mark.parametrize("path", sorted((PKG / "plots").glob("*.py")), ids=lambda p: p.name)
def test_plots_import_no_widgets(path):
    imported = _imports(path)
    assert "ipywidgets" not in imported
    assert not any(i.startswith("dpviz.widgets") for i in imported)


def test_import_dpviz_core_loads_only_numpy_and_scipy():
    code = (
        "import sys, dpviz, dpviz.mechanisms, dpviz.accountant, dpviz.datasets, dpviz.composition, "
        "dpviz.sensitivity, dpviz.experiments\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {PRESENTATION!r}]\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def _public_functions():
    for info in pkgutil.walk_packages(dpviz.__path__, "dpviz."):
        mod = importlib.import_module(info.name)
        for name, obj in vars(mod).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != mod.__name__:
                continue
            if inspect.isfunction(obj):
                yield f"{mod.__name__}.{name}", obj


@pytest.mark.parametrize("qualname,fn", list(_public_functions()), ids=lambda v: v if isinstance(v, str) else "")
def test_public_functions_documented_and_typed(qualname, fn):
    assert fn.__doc__ and len(fn.__doc__.strip()) > 20, f"{qualname} has no docstring"
    sig = inspect.signature(fn)
    assert sig.return_annotation is not inspect.Signature.empty, f"{qualname} has no return annotation"
