"""Packaging promises: Binder declares every runtime dependency and installs dpviz; the README's commands."""

import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def _name(req: str) -> str:
    return re.split(r"[<>=!~\[; ]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_binder_declares_every_runtime_dependency_pinned():
    deps = {_name(d) for d in _pyproject()["project"]["dependencies"]}
    lines = [ln.strip() for ln in (ROOT / "binder/requirements.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    binder = {_name(ln): ln for ln in lines}
    missing = deps - set(binder)
    assert not missing, f"binder/requirements.txt lacks {sorted(missing)}"
    for name in deps:
        assert "==" in binder[name], f"{name} is not pinned in binder/requirements.txt"
    assert "jupyterlab" in binder


def test_binder_pins_satisfy_pyproject_lower_bounds():
    from packaging.specifiers import SpecifierSet

    binder = {}
    for ln in (ROOT / "binder/requirements.txt").read_text().splitlines():
        if "==" in ln and not ln.startswith("#"):
            n, v = ln.split("==")
            binder[_name(n)] = v.strip()
    for req in _pyproject()["project"]["dependencies"]:
        spec = SpecifierSet(req[len(_name(req)):].strip() or "")
        assert binder[_name(req)] in spec, f"binder pins {_name(req)}=={binder[_name(req)]}, pyproject wants {req}"


def test_postbuild_installs_the_package():
    text = (ROOT / "binder/postBuild").read_text()
    assert re.search(r"pip install\b.*\s\.(\s|$)", text), "binder/postBuild must pip install the repository"


def test_readme_starts_with_the_two_commands_and_ci_runs_make_test():
    head = (ROOT / "README.md").read_text().splitlines()[:8]
    assert any(ln.startswith("make lab") for ln in head) and any(ln.startswith("make test") for ln in head)
    assert "make test" in (ROOT / ".ci/run").read_text()


def test_every_notebook_listed_in_readme():
    readme = (ROOT / "README.md").read_text()
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert nb.stem in readme, f"{nb.name} is not in the README's lecture table"


def test_data_ship_in_the_wheel():
    cfg = _pyproject()["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert cfg["packages"] == ["dpviz"]  # dpviz/data/* is inside the package directory
    assert (ROOT / "dpviz/data/PROVENANCE.md").exists()


def test_course_app_has_a_page_per_available_explorer():
    import importlib.util
    import json

    from dpviz.widgets import _EXPLORERS

    index = (ROOT / "app/index.ipynb").read_text()
    for cls, module in _EXPLORERS.items():
        if cls == "Explorer" or importlib.util.find_spec(f"dpviz.widgets.{module}") is None:
            continue
        pages = [p for p in (ROOT / "app").glob("*.ipynb")
                 if cls in "".join("".join(c["source"]) for c in json.loads(p.read_text())["cells"])]
        assert pages, f"no app/ page shows {cls}"
        assert all(p.name in index for p in pages), f"app/index.ipynb does not link {[p.name for p in pages]}"
