"""Build-time helpers for the dpviz documentation site.

* :func:`copy_lectures` copies every ``notebooks/*.ipynb`` into ``docs/lectures/`` (gitignored) at build time.
  Sphinx reads sources only inside its source folder; copying at build time keeps ``notebooks/`` the one committed
  copy, and myst-nb renders the committed outputs (``nb_execution_mode = "off"``).
* :func:`extract_figures` writes each explorer's static figure to ``docs/_generated/figures/<Explorer>.png``: the
  first image output of the first code cell after the cell that creates the explorer, i.e. the matplotlib figure the
  lecture shows next to it, byte for byte from the committed notebook.
* :func:`note_widget_outputs` replaces a widget output, which has no state in the committed notebooks and so would
  render as nothing, by a note saying where the explorer runs and linking to its page.
* :func:`resolve_reexports` lets ``dpviz.widgets.LaplaceExplorer`` (the public, lazily re-exported name) link to
  where the class is documented (``dpviz.widgets.laplace.LaplaceExplorer``), wherever the refactor moves it.
* :func:`quiet_external_refs` keeps ``nitpicky`` strict on the hand-written pages and on every public ``dpviz.*``
  reference, but does not report, on the generated API pages only, references to other projects (numpy, scipy,
  plotly, ...): they cannot resolve without intersphinx, and the build has no network to fetch inventories; nor
  private bases shown by ``:show-inheritance:``, undocumented by design.
* :func:`build_exports` writes every explorer's kernel-free page (:mod:`dpviz.export`) to
  ``docs/_generated/exports/`` when dpviz's sources changed since the last build, and :func:`copy_exports` copies
  them into the built site's ``_static/exports/``, where each explorer's page embeds its own.
* :func:`prune_api_stubs` deletes the API stubs of modules that no longer exist (autosummary never does).
* :func:`_prefer_submodules` keeps a submodule's API page when its package re-exports a function of the same name.
"""

from __future__ import annotations

import base64
import importlib
import importlib.util
import inspect
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.ext import autosummary
from sphinx.util import logging

from tools import course

logger = logging.getLogger(__name__)

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# the explorer a cell makes (its import may sit in the lecture's first cell, with the other imports)
EXPLORER_CALL = re.compile(r"\b([A-Z]\w*Explorer)\(")


def _paths(app: Sphinx) -> tuple[Path, Path]:
    docs = Path(app.srcdir)
    return docs, docs.parent / "notebooks"


def _notebooks(app: Sphinx) -> list[Path]:
    """The lectures and their companions (``checked_NN_*.ipynb``, the paper reproductions)."""
    return sorted(_paths(app)[1].glob("*.ipynb"))


def copy_lectures(app: Sphinx, config: Config) -> None:
    """Make docs/lectures/ mirror notebooks/*.ipynb (stale entries are removed), without the exercises' solutions.

    The site is public: each notebook is :func:`tools.course.public_version` of the lecture, its outputs kept but
    no solution code, checker verdict, model answer or rubric (the instructor's copy is ``make instructor``).

    A copy, not a symlink: MyST resolves a link such as ``../lectures/01_laplace_mechanism.ipynb`` through the
    symlink to ``notebooks/``, outside the source folder, and then cannot find the document.  A file is copied only
    when its bytes changed, with its mtime, so an unchanged lecture is not re-read.
    """
    docs, _ = _paths(app)
    target = docs / "lectures"
    target.mkdir(exist_ok=True)
    wanted = {nb.name: nb for nb in _notebooks(app)}
    for entry in target.iterdir():
        if entry.name not in wanted:
            entry.unlink()
    for name, source in wanted.items():
        copy = target / name
        public = nbformat.writes(course.public_version(nbformat.read(source, as_version=4))).encode()
        if copy.is_symlink() or not copy.exists() or copy.read_bytes() != public:
            copy.unlink(missing_ok=True)
            copy.write_bytes(public)
            shutil.copystat(source, copy)


def _explorer_figures(notebook: Path) -> dict[str, bytes]:
    """Map each explorer created in ``notebook`` to the PNG of the first figure after it."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    found: dict[str, bytes] = {}
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        match = EXPLORER_CALL.search("".join(cell["source"]))
        if not match or not any(WIDGET_VIEW in out.get("data", {}) for out in cell.get("outputs", [])):
            continue
        for later in cells[i + 1 :]:
            pngs = [out["data"]["image/png"] for out in later.get("outputs", []) if "image/png" in out.get("data", {})]
            if later["cell_type"] == "code" and pngs:
                png = pngs[0]
                found[match.group(1)] = base64.b64decode("".join(png) if isinstance(png, list) else png)
                break
    return found


def extract_figures(app: Sphinx) -> None:
    """Write docs/_generated/figures/<Explorer>.png from the notebooks' committed outputs."""
    docs, _ = _paths(app)
    out = docs / "_generated" / "figures"
    out.mkdir(parents=True, exist_ok=True)
    figures: dict[str, bytes] = {}
    for notebook in _notebooks(app):
        figures.update(_explorer_figures(notebook))
    for name, png in figures.items():
        path = out / f"{name}.png"
        if not path.exists() or path.read_bytes() != png:  # unchanged files keep their mtime: no needless rebuild
            path.write_bytes(png)
    for path in out.glob("*.png"):
        if path.stem not in figures:
            path.unlink()


def _source_stamp(root: Path) -> str:
    """A hash of dpviz's Python sources and data files and of the plotly version: the exports' inputs."""
    import hashlib

    import plotly

    digest = hashlib.sha256(plotly.__version__.encode())
    for path in sorted((root / "dpviz").rglob("*")):
        if path.is_file() and path.suffix in (".py", ".npy", ".csv"):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def build_exports(app: Sphinx) -> None:
    """Write docs/_generated/exports/<Explorer>.html unless they were written from the same sources."""
    from dpviz.export import export_all

    docs = Path(app.srcdir)
    out = docs / "_generated" / "exports"
    stamp = _source_stamp(docs.parent)
    stamp_file = out / "SOURCES.sha256"
    if stamp_file.exists() and stamp_file.read_text() == stamp:
        return
    logger.info("dpviz: exporting the explorers' kernel-free pages (about a minute)")
    export_all(out)
    stamp_file.write_text(stamp)


def copy_exports(app: Sphinx, exception: Exception | None) -> None:
    """Copy the exported pages into the built site's _static/exports/."""
    if exception is not None or app.builder.format != "html":
        return
    source = Path(app.srcdir) / "_generated" / "exports"
    target = Path(app.outdir) / "_static" / "exports"
    target.mkdir(parents=True, exist_ok=True)
    for page in source.glob("*.html"):
        shutil.copy2(page, target / page.name)


def prune_api_stubs(app: Sphinx) -> None:
    """Delete the autosummary stubs in docs/api/ of modules that no longer exist.

    autosummary rewrites the stubs of existing modules but never deletes one; after a module is moved or removed,
    its stale stub would fail to import under -W.  Runs before autosummary generates the stubs.
    """
    api = Path(app.srcdir) / "api"
    for stub in api.glob("dpviz*.rst"):
        try:
            spec = importlib.util.find_spec(stub.stem)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            stub.unlink()


def note_widget_outputs(app: Sphinx, doctree: nodes.document) -> None:
    """Replace each stateless widget output by a note that links to the explorer's page.

    The committed notebooks store no widget state (it is large and changes on every run), so myst-nb renders a
    widget output as an inert ``<script>`` tag: nothing shows, no warning.  A reader should instead see what was
    there and where to run it.  The explorer's page is found by its label ``explorer-<name>`` (a missing page is
    an "undefined label" warning, hence an error under -W).
    """
    for raw in list(doctree.findall(nodes.raw)):
        if f'type="{WIDGET_VIEW}"' not in raw.astext():
            continue
        cell = raw.parent
        while cell is not None and "cell" not in cell.get("classes", []):
            cell = cell.parent
        source = cell.astext() if cell is not None else ""
        match = EXPLORER_CALL.search(source)
        para = nodes.paragraph()
        para += nodes.strong(text="Interactive explorer. ")
        if match:
            name = match.group(1)
            para += nodes.Text("In a live notebook ")
            para += nodes.literal(text=name)
            para += nodes.Text(" runs here; the committed notebook stores no widget state, so a static page cannot "
                               "show it. Run it with ")
            para += nodes.literal(text="make lab")
            para += nodes.Text(" or in the course app (")
            para += nodes.literal(text="make app")
            para += nodes.Text("); the figure below is its result at these settings. See ")
            ref = pending_xref("", refdomain="std", reftype="ref", reftarget=f"explorer-{name.lower()}",
                               refexplicit=True, refwarn=True)
            ref += nodes.inline(text="the explorer's page")
            para += ref
            para += nodes.Text(" for its controls.")
        else:
            para += nodes.Text("A widget runs here in a live notebook; a static page cannot show it.")
        raw.replace_self(nodes.note("", para))


def _real_name(target: str) -> str | None:
    """``dpviz.widgets.LaplaceExplorer`` -> ``dpviz.widgets.laplace.LaplaceExplorer`` (None if not a dpviz object).

    The attribute is looked up on the package first, as Python does: a same-named function would be the one the
    package re-exports, even where a submodule has the same name.
    """
    parts = target.split(".")
    if parts[0] != "dpviz":
        return None
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except (ImportError, AttributeError):
            continue
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if isinstance(module, str) and isinstance(qualname, str) and module.startswith("dpviz"):
            return f"{module}.{qualname}"
        return None
    return None


def _documented_below(env: BuildEnvironment, target: str) -> str | None:
    """The one documented object ``<package>.<submodules>.<name>`` for ``target = <package>.<name>``, if unique.

    For re-exported data (``dpviz.strategies.STRATEGIES`` defined in ``dpviz.strategies.menu``), which carries no
    ``__module__`` to follow.
    """
    package, _, name = target.rpartition(".")
    if not package.startswith("dpviz"):
        return None
    objects = env.domains["py"].objects
    found = [full for full in objects if full.startswith(package + ".") and full.endswith("." + name)]
    return found[0] if len(found) == 1 else None


def resolve_reexports(app: Sphinx, env: BuildEnvironment, node: pending_xref, contnode: nodes.Element) -> Any:
    """Resolve a reference to a re-exported dpviz name to the place where the object is documented."""
    if node.get("refdomain") != "py" or node.get("reftype") == "mod":
        return None
    target = node["reftarget"]
    domain = env.domains["py"]
    for real in (_real_name(target), _documented_below(env, target)):
        if real and real != target:
            found = domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], real, node, contnode)
            if found is not None:
                return found
    return None


def quiet_external_refs(app: Sphinx, domain: Any, node: pending_xref) -> bool | None:
    """True (do not warn) for a non-dpviz Python reference on a generated API page; None (warn) otherwise."""
    on_api_page = node.get("refdoc", "").startswith("api/")
    target = node["reftarget"].lstrip("~.")
    external = node.get("refdomain") == "py" and not target.startswith("dpviz")
    # "Bases: dpviz.svt._HistogramOracle" (show-inheritance): a private base is undocumented by design.
    private = node.get("refdomain") == "py" and any(part.startswith("_") for part in target.split("."))
    return True if on_api_page and (external or private) else None


def _prefer_submodules(original: Callable[..., tuple[Any, Any, str]]) -> Callable[..., tuple[Any, Any, str]]:
    """Make autosummary take the submodule when a package re-exports a function of the same name.

    autosummary's ``_import_by_name`` first tries ``getattr(package, name)``; were a re-exported function named
    like a submodule, it would get the function and the module's page would be lost.  tests/test_architecture.py
    forbids such names, so this is a guard.  For a dpviz name that is a real
    submodule, this returns the module instead; everything else goes to autosummary unchanged.
    """

    def import_by_name(name: str, grouped_exception: bool = True) -> tuple[Any, Any, str]:
        obj, parent, modname = original(name, grouped_exception)
        if name.startswith("dpviz.") and not inspect.ismodule(obj):
            try:
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError):
                spec = None
            if spec is not None:
                return importlib.import_module(name), None, name
        return obj, parent, modname

    return import_by_name


def setup(app: Sphinx) -> dict[str, Any]:
    if not hasattr(autosummary._import_by_name, "__wrapped__"):
        patched = _prefer_submodules(autosummary._import_by_name)
        patched.__wrapped__ = autosummary._import_by_name  # type: ignore[attr-defined]
        autosummary._import_by_name = patched  # type: ignore[assignment]
    app.connect("config-inited", copy_lectures)
    app.connect("builder-inited", extract_figures)
    app.connect("builder-inited", build_exports)
    app.connect("build-finished", copy_exports)
    app.connect("builder-inited", prune_api_stubs, priority=400)  # before autosummary (500) generates the stubs
    app.connect("doctree-read", note_widget_outputs)
    app.connect("missing-reference", resolve_reexports)
    app.connect("warn-missing-reference", quiet_external_refs)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
