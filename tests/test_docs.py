"""The documentation site (``make docs``) builds, and every internal link and image in it resolves.

The site is built once per test session into a temporary folder (``sphinx-build``, the same sources as
``make docs``; about a minute on two busy cores).  The link checker reads every built HTML page: each relative
``href``/``src``/``srcset`` must name an existing file, and each ``#fragment`` an ``id`` (or ``name``) in its
target page.  A self-test runs the checker on a deliberately broken page, so a checker that finds nothing cannot
pass unnoticed.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import subprocess
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

pytest.importorskip("sphinx", reason="the docs extra is not installed: pip install -e '.[docs]'")
pytest.importorskip("myst_nb", reason="the docs extra is not installed: pip install -e '.[docs]'")

import dpviz  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: attributes that point at another file, per tag (srcset is handled apart: it lists several URLs)
LINK_ATTRIBUTES = {"a": "href", "area": "href", "link": "href", "img": "src", "script": "src", "source": "src",
                   "iframe": "src", "embed": "src", "video": "src", "audio": "src"}


# -- the link checker ---------------------------------------------------------------------------------------------


class _Page(HTMLParser):
    """Collect the ids/names a page defines and the (tag, attribute, url) links it makes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.anchors: set[str] = set()
        self.links: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v for k, v in attrs if v is not None}
        for key in ("id", "name") if tag in ("a", "map") else ("id",):
            if key in values:
                self.anchors.add(values[key])
        wanted = LINK_ATTRIBUTES.get(tag)
        if wanted and wanted in values:
            self.links.append((tag, wanted, values[wanted]))
        if "srcset" in values:
            for candidate in values["srcset"].split(","):
                if candidate.strip():
                    self.links.append((tag, "srcset", candidate.split()[0]))


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def _is_external(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme) or url.startswith("//")  # http(s):, mailto:, data:, javascript:, //host/...


def broken_links(site: Path) -> list[str]:
    """Every internal link or image in ``site``'s HTML pages that does not resolve, as readable lines."""
    pages: dict[Path, _Page] = {p.resolve(): _parse(p) for p in sorted(site.rglob("*.html"))}
    problems = []
    for path, page in pages.items():
        if "_static" in path.relative_to(site.resolve()).parts:
            # theme assets, not pages of the site: pydata-sphinx-theme ships its Jinja macro file
            # _static/webpack-macros.html there, with unrendered "{{ pathto(...) }}" links; no page links to it
            continue
        for tag, attr, url in page.links:
            if _is_external(url):
                continue
            parts = urlsplit(url)
            where = f"{path.relative_to(site.resolve())}: <{tag} {attr}={url!r}>"
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{where}: no file {target}")
                continue
            fragment = unquote(parts.fragment)
            if not fragment:
                continue
            if target not in pages:
                problems.append(f"{where}: #{fragment} points into a file that is not an HTML page")
            elif fragment not in pages[target].anchors:
                problems.append(f"{where}: no id {fragment!r} in {target.name}")
    return problems


def test_link_checker_finds_broken_links(tmp_path: Path) -> None:
    """Self-test: on a small site with known faults the checker reports exactly those."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "img.png").write_bytes(b"\x89PNG")
    (tmp_path / "sub" / "other.html").write_text('<html><body><h2 id="there">there</h2></body></html>')
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "macros.html").write_text('<a href="{{ pathto(x) }}">a theme template, not a page</a>')
    (tmp_path / "index.html").write_text(
        """<html><head><link rel="stylesheet" href="missing.css"><script src="https://cdn.example/x.js"></script>
        </head><body id="top">
        <a href="sub/other.html#there">good link and fragment</a>
        <a href="#top">good same-page fragment</a>
        <a href="https://example.org/nowhere">external: not checked</a>
        <a href="mailto:someone@example.org">external: not checked</a>
        <img src="img.png" srcset="img.png 1x, gone@2x.png 2x">
        <a href="sub/other.html#nowhere">broken fragment</a>
        <a href="#absent">broken same-page fragment</a>
        <a href="sub/missing.html">broken page</a>
        <img src="sub/lost.png">
        <a href="img.png#x">fragment into a non-HTML file</a>
        </body></html>"""
    )
    found = broken_links(tmp_path)
    expected = ["missing.css", "gone@2x.png", "sub/other.html#nowhere", "'#absent'", "sub/missing.html",
                "sub/lost.png", "img.png#x"]
    assert len(found) == len(expected), "\n".join(found)
    for fragment, line in zip(expected, found, strict=True):
        assert fragment in line, (fragment, line)


# -- the built site -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Build:
    html: Path
    returncode: int
    output: str
    warnings: list[str]


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Build:
    out = tmp_path_factory.mktemp("docs")
    warnings_file = out / "warnings.txt"
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "--keep-going", "-w", str(warnings_file),
           "-d", str(out / "doctrees"), str(DOCS), str(out / "html")]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    text = warnings_file.read_text(encoding="utf-8") if warnings_file.exists() else ""
    # one warning may span several lines: a new one starts with "<location>: WARNING:" / "ERROR:" / "CRITICAL:"
    warnings = [w.strip() for w in re.split(r"\n(?=\S[^\n]*?(?:WARNING|ERROR|CRITICAL): )", text) if w.strip()]
    return Build(out / "html", proc.returncode, proc.stdout + proc.stderr, warnings)


def _from_docstring(warning: str) -> bool:
    """A warning whose source is a dpviz docstring (or the API stubs autosummary generates from them)."""
    location = warning.split(": ", 1)[0]
    return "docstring of " in location or "/docs/api/" in location.replace("\\", "/") or location.startswith(
        str(ROOT / "dpviz")
    )


def test_site_builds(site: Build) -> None:
    assert site.returncode == 0, site.output[-5000:]
    assert (site.html / "index.html").is_file()


def test_own_pages_build_without_warnings(site: Build) -> None:
    """The hand-written pages, the lectures and the build helpers add no warning (nitpicky: all references resolve)."""
    own = [w for w in site.warnings if not _from_docstring(w)]
    assert not own, "\n".join(own)


def test_docstrings_build_without_warnings(site: Build) -> None:
    """``make docs`` treats warnings as errors: the docstrings must be valid reST/numpydoc too."""
    from_docstrings = [w for w in site.warnings if _from_docstring(w)]
    assert not from_docstrings, f"{len(from_docstrings)} docstring warnings:\n" + "\n".join(from_docstrings)


def test_every_internal_link_and_image_resolves(site: Build) -> None:
    problems = broken_links(site.html)
    hint = ("\n(a link to '#idN' on an api/ page is docutils' pointer to an error in a docstring: see "
            "test_docstrings_build_without_warnings)") if any("api/" in p and "#id" in p for p in problems) else ""
    assert not problems, f"{len(problems)} broken links:\n" + "\n".join(problems[:100]) + hint


def test_every_lecture_is_rendered_from_its_outputs(site: Build) -> None:
    notebooks = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
    assert len(notebooks) >= 8
    for notebook in notebooks:
        page = site.html / "lectures" / f"{notebook.stem}.html"
        assert page.is_file(), f"{notebook.name} is not on the site"
        text = page.read_text(encoding="utf-8")
        assert "<img" in text, f"{notebook.name}: its committed figures are missing"
        # a widget output without state becomes a note linking to the explorer, not an empty <script>
        assert "application/vnd.jupyter.widget-view+json" not in text, notebook.name
        assert "Interactive explorer." in text, notebook.name


def test_the_public_site_shows_no_exercise_solution(site: Build) -> None:
    """The committed lectures hold every solution (the instructor's copy); their pages on the site hold none: no
    solution code, no checker verdict (it explains the answer), no model answer or rubric of a written exercise."""
    for notebook in sorted((ROOT / "notebooks").glob("[0-9]*.ipynb")):
        text = (site.html / "lectures" / f"{notebook.stem}.html").read_text(encoding="utf-8")
        assert "Exercise" in text and "your answer here" in text, notebook.name
        for leak in ("BEGIN SOLUTION", "Model answer.", "Marking rubric", "[correct]"):
            assert leak not in text, f"{notebook.name}: the site shows {leak!r}"


def test_every_explorer_has_a_page_with_its_static_figure(site: Build) -> None:
    widgets = importlib.import_module("dpviz.widgets")
    names = [n for n in widgets.__all__ if n.endswith("Explorer") and n != "Explorer"]
    assert len(names) >= 8
    pages = {p: p.read_text(encoding="utf-8") for p in (site.html / "explorers").glob("*.html")}
    for name in names:
        hits = [p for p, text in pages.items() if f'id="explorer-{name.lower()}"' in text]
        assert len(hits) == 1, f"{name}: expected one explorer page, found {[p.name for p in hits]}"
        text = pages[hits[0]]
        assert re.search(rf'<img[^>]+src="[^"]*_images/{name}\.png"', text), f"{name}: its static figure is missing"
        assert f"from dpviz.widgets import {name}" in re.sub(r"<[^>]+>", "", text), f"{name}: how to open it"


def test_api_reference_covers_the_package_walk(site: Build) -> None:
    """Every module pkgutil finds in dpviz has its API page (so new subpackages appear without editing docs)."""
    modules = ["dpviz"] + [m.name for m in pkgutil.walk_packages(dpviz.__path__, "dpviz.")]
    missing = [m for m in modules if not (site.html / "api" / f"{m}.html").is_file()]
    assert not missing, missing


def test_provenance_is_included_not_copied(site: Build) -> None:
    text = (site.html / "data.html").read_text(encoding="utf-8")
    first_heading = (ROOT / "dpviz" / "data" / "PROVENANCE.md").read_text(encoding="utf-8").splitlines()[0]
    assert first_heading.lstrip("# ").strip() in text
    assert not list(DOCS.glob("**/PROVENANCE.md")), "PROVENANCE.md is included from dpviz/data/, never copied"


def _prose_in_maths(page: Path) -> list[str]:
    """Maths elements of a built page that hold four English words in a row outside ``\\text{...}``: prose that a
    mis-paired ``$$`` swallowed into a formula."""
    import html as html_lib

    found = []
    for m in re.finditer(r'<(span|div) class="math notranslate nohighlight">(.*?)</\1>', page.read_text("utf-8"),
                         re.S):
        tex = html_lib.unescape(m.group(2))
        bare = re.sub(r"\\(text|mathrm|operatorname|textrm|mbox)\{[^{}]*\}", "", tex)
        if re.search(r"\b[a-z]{2,}\s+[a-z]{2,}\s+[a-z]{2,}\s+[a-z]{2,}\b", bare):
            found.append(tex[:100].replace("\n", " "))
    return found


def test_no_lecture_prose_is_swallowed_into_maths(site: Build) -> None:
    """``$$...$$`` inside a paragraph is display maths (myst_dmath_double_inline); without it MyST paired a ``$$``
    with a later ``$`` and rendered the prose between as a formula (35 such spans in lectures 00-09)."""
    swallowed = {p.name: _prose_in_maths(p) for p in sorted((site.html / "lectures").glob("*.html"))}
    swallowed = {k: v for k, v in swallowed.items() if v}
    assert not swallowed, swallowed


def test_maths_is_rendered_by_the_sites_own_mathjax(site: Build) -> None:
    """A lecture page loads MathJax from the site (build/docs-deps, installed from npm), not from a CDN: offline, a
    class saw raw LaTeX."""
    if not (ROOT / "build" / "docs-deps" / "mathjax" / "tex-chtml.js").is_file():
        if os.environ.get("CI"):
            pytest.fail("build/docs-deps/mathjax is missing: `make docs-deps` installs it from the npm registry")
        pytest.skip("build/docs-deps/mathjax is missing: `make docs-deps` installs it from the npm registry")
    page = (site.html / "lectures" / "01_laplace_mechanism.html").read_text("utf-8")
    sources = re.findall(r'<script[^>]*src="([^"]*(?:mathjax|tex-chtml)[^"]*)"', page, re.I)
    assert sources and all("://" not in s for s in sources), sources
    assert (site.html / "_static" / "tex-chtml.js").is_file()
    assert (site.html / "_static" / "output" / "chtml" / "fonts" / "woff-v2").is_dir()   # the fonts it loads


def test_every_page_starts_in_a_valid_colour_mode(site: Build) -> None:
    """The theme's script refuses any mode but light, dark and auto with a console error ("Got invalid theme mode"):
    the site left it empty, so every page logged one."""
    pages = sorted(p for p in site.html.rglob("*.html") if "_static" not in p.parts)   # the theme's pages
    bad = [str(p.relative_to(site.html)) for p in pages
           if 'data-default-mode="auto"' not in p.read_text("utf-8", errors="replace")]
    assert pages and not bad, bad[:5]
