"""The layering and the seams between layers, checked on every module of every subpackage.

* core (everything but experiments/, exercises/, plots/, widgets/, export/) imports no plotting or widget library;
* export (kernel-free pages of the explorers) sits above widgets: nothing below it imports it;
* experiments draw nothing; exercises (checkers of students' answers) draw nothing either; plots import no widgets;
* a private name (``_x``) is imported, or read as ``module._x``, only inside its own package;
* no core module is over ~400 lines (420 allowed); the walk covers subpackages (a test proves it);
* noise is calibrated in one place: outside dpviz.mechanisms nothing divides by an epsilon;
* noise is drawn in one place: outside dpviz.mechanisms (and the exercises) nothing calls a numpy Generator's
  sampling method, but for the listed randomness that never meets private data (``NON_PRIVATE_DRAWS``);
* every name the lecture notebooks and the course app import from dpviz exists.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import json
import pkgutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import dpviz

PKG = Path(dpviz.__file__).parent
ROOT = PKG.parent
PRESENTATION = ("plotly", "matplotlib", "ipywidgets", "anywidget")
UPPER = ("experiments", "exercises", "plots", "widgets", "export")
MAX_CORE_LINES = 420  # "~400": a file may run a little over while it holds one concept


def module_name(path: Path) -> str:
    """``dpviz/hierarchy/tree.py`` -> ``dpviz.hierarchy.tree``; a package's ``__init__`` -> the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(path: Path) -> str:
    """The package a file belongs to (its directory as a dotted name)."""
    return ".".join(path.parent.relative_to(ROOT).parts)


ALL_FILES = sorted(PKG.rglob("*.py"))
LAYER = {p: (p.relative_to(PKG).parts[0] if p.relative_to(PKG).parts[0] in UPPER else "core") for p in ALL_FILES}
CORE_FILES = [p for p in ALL_FILES if LAYER[p] == "core"]


def _ids(p: Path) -> str:
    return str(p.relative_to(ROOT))


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out.add(a.name.split(".")[0])
                out.add(a.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


def _uses(imported: set[str], *prefixes: str) -> set[str]:
    return {i for i in imported if any(i == p or i.startswith(p + ".") for p in prefixes)}


def test_the_walk_covers_every_module_of_every_subpackage() -> None:
    """The file walk and Python's own package walk find the same modules, subpackages included."""
    walked = {info.name for info in pkgutil.walk_packages(dpviz.__path__, "dpviz.")} | {"dpviz"}
    assert walked == {module_name(p) for p in ALL_FILES}
    assert any(len(p.relative_to(PKG).parts) > 1 and LAYER[p] == "core" for p in ALL_FILES), \
        "expected core subpackages (dpviz/<topic>/...)"


@pytest.mark.parametrize("path", CORE_FILES, ids=_ids)
def test_core_imports_no_presentation_library(path: Path) -> None:
    imported = _imports(path)
    assert not _uses(imported, *PRESENTATION), f"{_ids(path)} imports {_uses(imported, *PRESENTATION)}"
    assert not _uses(imported, "dpviz.experiments", "dpviz.exercises", "dpviz.plots", "dpviz.widgets")


@pytest.mark.parametrize("path", [p for p in ALL_FILES if LAYER[p] == "experiments"], ids=_ids)
def test_experiments_draw_nothing(path: Path) -> None:
    imported = _imports(path)
    assert not _uses(imported, *PRESENTATION)
    assert not _uses(imported, "dpviz.plots", "dpviz.widgets")


@pytest.mark.parametrize("path", [p for p in ALL_FILES if LAYER[p] == "exercises"], ids=_ids)
def test_exercises_draw_nothing(path: Path) -> None:
    imported = _imports(path)
    assert not _uses(imported, *PRESENTATION)
    assert not _uses(imported, "dpviz.plots", "dpviz.widgets")


@pytest.mark.parametrize("path", [p for p in ALL_FILES if LAYER[p] == "plots"], ids=_ids)
def test_plots_import_no_widgets(path: Path) -> None:
    imported = _imports(path)
    assert not _uses(imported, "ipywidgets", "anywidget", "dpviz.widgets")


@pytest.mark.parametrize("path", [p for p in ALL_FILES if LAYER[p] != "export"], ids=_ids)
def test_nothing_below_export_imports_it(path: Path) -> None:
    assert not _uses(_imports(path), "dpviz.export"), f"{_ids(path)} imports dpviz.export, the layer above widgets"


@pytest.mark.parametrize("path", CORE_FILES, ids=_ids)
def test_core_modules_are_small(path: Path) -> None:
    n = len(path.read_text().splitlines())
    assert n <= MAX_CORE_LINES, f"{_ids(path)} has {n} lines: split it by concept (~400 at most)"


# --------------------------------------------------------------------------- private names across packages
def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def private_crossings(source: str, importer_package: str) -> list[str]:
    """Private dpviz names that ``source`` (a module of ``importer_package``) takes from another package.

    Catches ``from dpviz.a.b import _x`` and ``alias._x`` where ``alias`` is a dpviz module, unless the
    module imported from lives in ``importer_package`` itself.
    """
    tree = ast.parse(source)
    found: list[str] = []
    aliases: dict[str, str] = {}  # local name -> dpviz module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("dpviz"):
            mod = node.module or ""
            for a in node.names:
                full = f"{mod}.{a.name}"
                if _is_module(full):
                    aliases[a.asname or a.name] = full
                elif a.name.startswith("_") and not a.name.startswith("__"):
                    if mod.rsplit(".", 1)[0] != importer_package and mod != importer_package:
                        found.append(f"line {node.lineno}: from {mod} import {a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("dpviz") and a.asname:
                    aliases[a.asname] = a.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            target = aliases[node.value.id]
            spec = importlib.util.find_spec(target)
            package = target if spec and spec.submodule_search_locations is not None else target.rsplit(".", 1)[0]
            if package != importer_package:
                found.append(f"line {node.lineno}: {node.value.id}.{node.attr} ({target})")
    return found


@pytest.mark.parametrize("path", ALL_FILES, ids=_ids)
def test_no_private_name_crosses_a_package(path: Path) -> None:
    crossings = private_crossings(path.read_text(), package_of(path))
    assert not crossings, f"{_ids(path)} uses private names of another package: {crossings}"


@pytest.mark.parametrize("snippet,package,caught", [
    ("from dpviz.hierarchy.tree import _plan\n", "dpviz.experiments", True),
    ("from dpviz.hierarchy import _plan\n", "dpviz.experiments", True),
    ("from dpviz import hierarchy as H\nH._cover(1)\n", "dpviz.experiments", True),
    ("import dpviz.plots.bands as B\nB._same(1, 1)\n", "dpviz.widgets", True),
    ("from dpviz.hierarchy.tree import _plan\n", "dpviz.hierarchy", False),
    ("from dpviz.hierarchy import build_tree, node_counts\n", "dpviz.experiments", False),
    ("from dpviz.plots.bands import __doc__\n", "dpviz.widgets", False),
])
def test_the_private_import_check_catches_a_crossing(snippet: str, package: str, caught: bool) -> None:
    """The check above is not vacuous: it flags a planted crossing and lets same-package use pass."""
    assert bool(private_crossings(snippet, package)) is caught


# --------------------------------------------------------------------------- one calibration
def _divides_by_epsilon(node: ast.AST) -> bool:
    """``a / b`` where ``b`` mentions a name starting with ``eps`` (``1 / eps``, ``2 / epsilon ** 2``, ...)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)):
        return False
    return any((isinstance(n, ast.Name) and n.id.startswith("eps"))
               or (isinstance(n, ast.Attribute) and n.attr.startswith("eps")) for n in ast.walk(node.right))


@pytest.mark.parametrize("path", [p for p in CORE_FILES if "mechanisms" not in p.relative_to(PKG).parts], ids=_ids)
def test_noise_is_calibrated_only_in_mechanisms(path: Path) -> None:
    """A ``something / epsilon`` outside dpviz.mechanisms is a re-derived noise scale: call the calibration."""
    hits = [n.lineno for n in ast.walk(ast.parse(path.read_text())) if _divides_by_epsilon(n)]
    assert not hits, f"{_ids(path)} divides by epsilon on lines {hits}: use dpviz.mechanisms' calibration"


def test_the_calibration_check_catches_a_division() -> None:
    assert _divides_by_epsilon(ast.parse("gen.laplace(0, 1.0 / eps)").body[0].value.args[1])  # type: ignore[attr-defined]
    assert _divides_by_epsilon(ast.parse("2 * s / epsilon ** 2").body[0].value)  # type: ignore[attr-defined]
    assert _divides_by_epsilon(ast.parse("np.float64(1.0) / np.float64(epsilon) ** 2").body[0].value)  # type: ignore[attr-defined]
    assert not _divides_by_epsilon(ast.parse("eps / k").body[0].value)  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- import cost and API
def test_import_dpviz_core_loads_only_numpy_and_scipy() -> None:
    core = sorted({module_name(p) for p in CORE_FILES})
    code = (
        f"import sys, importlib\nfor m in {core!r}: importlib.import_module(m)\n"
        "import dpviz.experiments\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {PRESENTATION!r}]\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def _public_functions():  # type: ignore[no-untyped-def]
    for info in pkgutil.walk_packages(dpviz.__path__, "dpviz."):
        mod = importlib.import_module(info.name)
        for name, obj in vars(mod).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != mod.__name__:
                continue
            if inspect.isfunction(obj):
                yield f"{mod.__name__}.{name}", obj


@pytest.mark.parametrize("qualname,fn", list(_public_functions()), ids=lambda v: v if isinstance(v, str) else "")
def test_public_functions_documented_and_typed(qualname: str, fn: object) -> None:
    assert fn.__doc__ and len(fn.__doc__.strip()) > 20, f"{qualname} has no docstring"
    sig = inspect.signature(fn)  # type: ignore[arg-type]
    assert sig.return_annotation is not inspect.Signature.empty, f"{qualname} has no return annotation"
    for p in sig.parameters.values():
        assert p.annotation is not inspect.Parameter.empty, f"{qualname}: parameter {p.name} has no type"


# --------------------------------------------------------------------------- what the notebooks use
def _notebook_sources() -> list[tuple[str, str]]:
    out = []
    for nb in sorted([*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("app/*.ipynb")]):
        for i, cell in enumerate(json.loads(nb.read_text())["cells"]):
            if cell["cell_type"] == "code":
                src = "".join(cell["source"])
                src = "\n".join(ln for ln in src.splitlines() if not ln.lstrip().startswith(("%", "!")))
                out.append((f"{nb.name}[{i}]", src))
    return out


def test_every_name_the_notebooks_use_exists() -> None:
    """Each ``from dpviz... import name`` and each ``alias.name`` on a dpviz module in the lectures and the app."""
    missing = []
    for where, src in _notebook_sources():
        tree = ast.parse(src)
        aliases: dict[str, object] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpviz"):
                mod = importlib.import_module(node.module or "")
                for a in node.names:
                    if not hasattr(mod, a.name):
                        missing.append(f"{where}: {node.module}.{a.name}")
                    elif inspect.ismodule(getattr(mod, a.name)):
                        aliases[a.asname or a.name] = getattr(mod, a.name)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("dpviz"):
                        aliases[a.asname or a.name.split(".")[0]] = importlib.import_module(
                            a.name if a.asname else a.name.split(".")[0])
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                if not hasattr(aliases[node.value.id], node.attr):
                    missing.append(f"{where}: {node.value.id}.{node.attr}")
    assert not missing, missing
    assert len(_notebook_sources()) > 50


def test_no_function_hides_a_submodule() -> None:
    """``import dpviz.svt.gptt_variant as m`` must give the module: a package attribute named like one of its
    submodules (a re-exported function called ``gptt`` in ``gptt.py``) would shadow it."""
    hidden = []
    for info in pkgutil.walk_packages(dpviz.__path__, "dpviz."):
        if not info.ispkg:
            continue
        pkg = importlib.import_module(info.name)
        for sub in pkgutil.iter_modules(pkg.__path__):
            attr = getattr(pkg, sub.name, None)
            if attr is not None and not inspect.ismodule(attr):
                hidden.append(f"{info.name}.{sub.name} is a {type(attr).__name__}")
    assert not hidden, hidden


# --------------------------------------------------------------------------- one place for noise draws
#: numpy.random.Generator's sampling methods: its public methods but ``spawn`` (new streams, no draw) and
#: ``bit_generator`` (an attribute).
GENERATOR_METHODS = frozenset(n for n in dir(np.random.Generator) if not n.startswith("_")) - {
    "spawn", "bit_generator"}
#: Where the draws are checked: the core and the layers above it, but not dpviz.mechanisms (where noise is
#: drawn) nor dpviz.exercises (the checkers' random test cases, and the small mechanisms a lecture asks a
#: student to write with numpy: ``x + rng.laplace(...)`` there *is* the exercise).
DRAW_FILES = [p for p in ALL_FILES if p.relative_to(PKG).parts[0] not in ("mechanisms", "exercises")]


def direct_draws(source: str) -> list[tuple[str, str, str]]:
    """Direct draws from a numpy Generator in ``source``: ``(enclosing function, method, source text)`` per use.

    Flags every attribute ``<value>.<method>`` where ``method`` is a sampling method of
    ``numpy.random.Generator`` and ``<value>`` is not a module bound by an import (``mechanisms.laplace`` and
    ``stats.laplace`` are functions, not draws), except ``numpy.random.<method>``, numpy's legacy global
    random state, which is flagged too; and ``from numpy.random import <method>``.  The attribute is flagged
    whether it is called or only passed on (``draw = gen.laplace``).
    """
    tree = ast.parse(source)
    modules: dict[str, str] = {}  # local name bound by an import -> what it stands for
    found: list[tuple[str, str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                modules[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
                if a.name == "random" or a.name.startswith("secrets"):
                    found.append(("<module>", a.name, f"import {a.name}"))      # the stdlib's own generators
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                modules[a.asname or a.name] = f"{node.module}.{a.name}"
                if node.module == "numpy.random" and a.name in GENERATOR_METHODS:
                    found.append(("<module>", a.name, f"from numpy.random import {a.name}"))
                if node.module in ("random", "secrets"):
                    found.append(("<module>", a.name, f"from {node.module} import {a.name}"))
    # a name bound as a parameter or an assignment anywhere is a value, even if an import also binds it
    # (``def f(rng): rng.laplace(...)`` next to ``from dpviz import rng``)
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            modules.pop(node.arg, None)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            modules.pop(node.id, None)

    def dotted(node: ast.AST) -> str | None:
        """``np.random`` -> ``numpy.random`` when the chain starts at an imported name, else None."""
        if isinstance(node, ast.Name):
            return modules.get(node.id)
        if isinstance(node, ast.Attribute):
            head = dotted(node.value)
            return None if head is None else f"{head}.{node.attr}"
        return None

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, child.name if where == "<module>" else f"{where}.{child.name}")
                continue
            if isinstance(child, ast.Attribute) and child.attr in GENERATOR_METHODS:
                target = dotted(child.value)
                if target is None or target.startswith("numpy.random"):   # numpy.random.Generator.laplace too
                    found.append((where, child.attr, f"{ast.unparse(child.value)}.{child.attr}"))
            elif isinstance(child, ast.Attribute) and child.attr in ("rvs", "bit_generator", "random_raw"):
                found.append((where, child.attr, f"{ast.unparse(child.value)}.{child.attr}"))   # scipy, raw bits
            elif (isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id == "getattr"
                  and len(child.args) >= 2 and isinstance(child.args[1], ast.Constant)
                  and child.args[1].value in GENERATOR_METHODS):
                found.append((where, str(child.args[1].value), ast.unparse(child)))
            visit(child, where)

    visit(tree, "<module>")
    return found


#: The randomness outside dpviz.mechanisms that is not noise of a release: it never meets the private data, so
#: no privacy statement depends on its distribution.  (file, enclosing function, Generator method) -> (number
#: of uses, why).  Everything else is drawn through dpviz.mechanisms (the rule is in its docstring).
NON_PRIVATE_DRAWS: dict[tuple[str, str, str], tuple[int, str]] = {
    ("dpviz/workloads/one_d.py", "random_ranges", "integers"):
        (1, "draws which range queries make up a workload: the queries are public, chosen before any data"),
    ("dpviz/workloads/two_d.py", "random_ranges_2d", "integers"):
        (2, "the same for 2-D range queries: a public workload"),
    ("dpviz/strategies/p_identity_template.py", "p_identity", "random"):
        (1, "the optimiser's random starting point: a strategy depends on the workload only, never on data"),
    ("dpviz/strategies/p_identity_template.py", "p_identity", "choice"):
        (1, "random signs of that starting point (the L2 case): data-independent optimisation"),
    ("dpviz/strategies/weighted_marginals.py", "marginal_weights", "random"):
        (1, "random restarts of the marginal-weights optimiser: data-independent optimisation"),
    ("dpviz/matrix_mechanism/prefix_basis.py", "_prefix_factor", "standard_normal"):
        (1, "a fixed-seed probe vector that tests a sparse factorisation for numerical rank: linear algebra"),
    ("dpviz/svt/answer_keys.py", "<module>", "integers"):
        (1, "fixed-seed hash multipliers that group equal answer rows; the grouping is exact whatever they are"),
    ("dpviz/experiments/comparison/data.py", "make_histogram", "multinomial"):
        (1, "resamples a dataset to a given number of records: it makes the (synthetic) input, not a release"),
    ("dpviz/experiments/comparison/table.py", "run_comparison", "integers"):
        (1, "derives one integer seed from a Generator so the comparison's cells get reproducible streams"),
    ("dpviz/experiments/definition/adversary.py", "posterior_check", "random"):
        (1, "draws the simulated people's true answers (the data); their reports go through randomized_response"),
    ("dpviz/experiments/hierarchy/data.py", "synthetic_histogram", "uniform"):
        (3, "centres, widths and weights of a synthetic histogram: the input data of an experiment"),
    ("dpviz/experiments/hierarchy/data.py", "draw_ranges", "integers"):
        (2, "random range queries at which a Monte Carlo run measures the error: public queries"),
    ("dpviz/experiments/hierarchy/dimensions.py", "dimension_simulation", "poisson"):
        (1, "the synthetic d-dimensional counts the simulation releases: input data"),
    ("dpviz/experiments/hierarchy/widths.py", "_errors_by_width", "random"):
        (1, "positions of the random ranges of each width at which the error is measured: public queries"),
}


@pytest.mark.parametrize("path", DRAW_FILES, ids=_ids)
def test_noise_is_drawn_only_in_mechanisms(path: Path) -> None:
    """Every draw of a release goes through dpviz.mechanisms; a direct Generator call is allowed only where it
    never meets the private data, and then it is listed, with its reason, in ``NON_PRIVATE_DRAWS``."""
    rel = _ids(path)
    found = Counter((where, method) for where, method, _ in direct_draws(path.read_text()))
    allowed = Counter({(where, method): n for (f, where, method), (n, _) in NON_PRIVATE_DRAWS.items() if f == rel})
    unexpected = [f"{where}: {text}" for where, method, text in direct_draws(path.read_text())
                  if found[where, method] > allowed[where, method]]
    assert not unexpected, (
        f"{rel} draws directly from a numpy Generator: {unexpected}.  Draw a release's noise and coins with "
        "dpviz.mechanisms (scaled_laplace, standard_laplace, gaussian, standard_gumbel, standard_exponential, "
        "standard_uniform, binomial_heads, ...); randomness that never meets private data goes in "
        "NON_PRIVATE_DRAWS with its reason")
    stale = {key: n for key, n in allowed.items() if found[key] < n}
    assert not stale, f"NON_PRIVATE_DRAWS lists draws of {rel} that are not there (any more): {stale}"


def test_every_allowed_draw_is_in_a_checked_file() -> None:
    checked = {_ids(p) for p in DRAW_FILES}
    assert {f for f, _, _ in NON_PRIVATE_DRAWS} <= checked
    assert all(reason.strip() for _, reason in NON_PRIVATE_DRAWS.values())


@pytest.mark.parametrize("snippet,caught", [
    ("def f(gen):\n    return x + gen.laplace(0.0, b, size=3)\n", ["gen.laplace"]),
    ("class O:\n    def g(self):\n        return self._rng.binomial(3, p)\n", ["self._rng.binomial"]),
    ("import numpy as np\nz = np.random.default_rng(1).standard_normal(4)\n",
     ["np.random.default_rng(1).standard_normal"]),
    ("import numpy as np\nz = np.random.laplace(0, 1)\n", ["np.random.laplace"]),
    ("from numpy.random import gumbel\n", ["from numpy.random import gumbel"]),
    ("from dpviz.rng import as_generator\ndraw = as_generator(0).random\n", ["as_generator(0).random"]),
    ("from dpviz import mechanisms\ny = mechanisms.laplace(x, 1.0, 1.0, rng=gen)\n", []),
    ("from scipy import stats\nd = stats.laplace(loc=0.0, scale=1.0)\n", []),
    ("import scipy.stats\nd = scipy.stats.gumbel_r.rvs(size=3)\n", ["scipy.stats.gumbel_r.rvs"]),
    ("from scipy import stats\nz = stats.laplace.rvs(scale=2.0, random_state=gen)\n", ["stats.laplace.rvs"]),
    ("import random\nz = random.expovariate(1.0)\n", ["import random"]),
    ("from random import gauss\n", ["from random import gauss"]),
    ("from dpviz import rng\ndef f(rng):\n    return rng.laplace(0.0, 1.0)\n", ["rng.laplace"]),
    ("import numpy as np\nz = np.random.Generator.laplace(gen, 0.0, 1.0)\n", ["np.random.Generator.laplace"]),
    ("def f(gen):\n    return getattr(gen, 'laplace')(0.0, 1.0)\n", ["getattr(gen, 'laplace')"]),
    ("def f(gen):\n    return gen.bit_generator.random_raw()\n", ["gen.bit_generator.random_raw", "gen.bit_generator"]),
    ("from dpviz.mechanisms import scaled_laplace\ny = scaled_laplace(1.0, 3, rng=gen)\n", []),
    ("import numpy as np\ng = np.random.default_rng(0)\nstreams = g.spawn(3)\n", []),
])
def test_the_draw_check_catches_a_direct_draw(snippet: str, caught: list[str]) -> None:
    """The check above is not vacuous: it flags planted draws and passes calls of functions and of dpviz."""
    assert [text for _, _, text in direct_draws(snippet)] == caught
