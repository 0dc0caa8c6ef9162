"""Slide decks for a lecture hall: one reveal.js deck per unit, made from the committed lectures.

A lecture is written to be read; a slide is projected. :func:`slide_plan` turns a lecture's cells into a deck's
cells by these rules, so that a slide holds one idea and the lecture's prose reaches the lecturer, not the wall:

* **Slides start** at every ``#``/``##`` heading (a new slide) and ``###`` heading (a slide below it), wherever the
  heading sits in its cell; a slide whose content would not fit (:data:`LINES` lines of 24-px text) continues on a
  slide below, under the same title.
* **On the slide**: headings, display maths, short paragraphs (the first sentence of a long one; a paragraph that
  is one long sentence, such as an exercise's question, whole when it fits a slide, else its first words), lists
  (each item's first sentence), small tables, code of at most :data:`CODE_LINES` lines, text output cut to
  :data:`OUTPUT_LINES` lines, and each figure on a slide of its own, at its full size. A slide below a section's
  first never holds only its title: what follows a title goes on its slide, however long.
* **In the speaker notes** (reveal.js: press ``S``): everything else the lecture says, and the "What you should
  see" answers. Exercise cells show their question; their code (with the solution) goes to the notes.
* **Explorers** are live without a kernel: the slide embeds the explorer's exported page (``make exports``,
  ``build/exports/<Explorer>.html``) in an iframe.
* The lectures' checks are left out.

:func:`write_decks` writes the decks with nbconvert's reveal.js exporter at 1280×720, with styles that keep every
text at 24 px or more (:data:`STYLE`); ``benchmarks/slides_fit.py`` measures each slide in Chromium.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat

from tools import course

#: Lines of slide text (28 px, about 12 words a line) that fit under a slide's title at 1280×720, with margins.
LINES = 10
#: The longest code cell shown on a slide; a longer one is run off-slide and only its output shown.
CODE_LINES = 8
#: The longest text output shown; the rest is cut with a note of how many lines were left out.
OUTPUT_LINES = 8
#: Words of a paragraph kept whole on a slide; a longer one keeps its first sentence (the rest goes to the notes).
PARAGRAPH_WORDS = 40
#: Characters of 25-px monospace (code, printed output) in one line of a slide; a longer line wraps.
CODE_CHARS = 72

WIDGET = "application/vnd.jupyter.widget-view+json"
#: nbconvert's reveal.js template imports mermaid (diagrams) from a CDN in every deck; the decks draw none.
MERMAID = re.compile(r'<script type="module">\s*import mermaid from [^<]*</script>\s*')
EXPLORER = re.compile(r"\b(\w+Explorer)\(")

#: The deck's styles: every text at least 24 px on a 1280×720 slide, figures within the slide, no prompts.
STYLE = """<style>
.reveal .slides { text-align: left; }
.reveal .slides section .jp-RenderedHTMLCommon p, .reveal .slides section .jp-RenderedHTMLCommon li,
.reveal .slides section .jp-RenderedHTMLCommon td, .reveal .slides section .jp-RenderedHTMLCommon th,
.reveal .slides section .jp-RenderedHTMLCommon blockquote {
  font-size: 28px !important; line-height: 1.3 !important; }
.reveal .slides section .jp-RenderedHTMLCommon h1 { font-size: 48px !important; }
.reveal .slides section .jp-RenderedHTMLCommon h2, .reveal .slides section .jp-RenderedHTMLCommon h3 {
  font-size: 40px !important; margin: 0 0 16px 0 !important; }
.reveal .slides section pre, .reveal .slides section pre span, .reveal .slides section code {
  font-size: 25px !important; line-height: 1.25 !important; white-space: pre-wrap !important; }
.reveal .slides section .jp-RenderedImage img, .reveal .slides section .jp-OutputArea-output img {
  max-height: 520px; max-width: 100%; width: auto; }
.reveal iframe.dpviz-explorer { width: 1200px; height: 540px; border: 0; }
.reveal .jp-InputPrompt, .reveal .jp-OutputPrompt { display: none !important; }
.reveal .MathJax_Display, .reveal .MathJax { font-size: 110% !important; }
/* MathJax 2 leaves its fast preview beside the typeset formula when reveal.js re-renders a slide's maths */
.reveal .MathJax_Preview { display: none !important; }
</style>"""


def _blocks(markdown: str) -> list[str]:
    """Split markdown into blocks: headings, display maths, <details> blocks, and blank-line paragraphs/lists."""
    blocks: list[str] = []
    for chunk in re.split(r"(<details>.*?</details>|\$\$.*?\$\$)", markdown, flags=re.S):
        if chunk.startswith(("<details>", "$$")):
            blocks.append(chunk)
            continue
        for para in re.split(r"\n\s*\n", chunk):
            lines, current = para.strip("\n").splitlines(), []
            for line in lines:                                      # a heading is a block of its own
                if re.match(r"#{1,6} ", line):
                    if current:
                        blocks.append("\n".join(current))
                    blocks.append(line)
                    current = []
                else:
                    current.append(line)
            if current and "\n".join(current).strip():
                blocks.append("\n".join(current))
    return [b for b in blocks if b.strip()]


def _words(text: str) -> int:
    return len(re.findall(r"\w+", re.sub(r"\$[^$]*\$", "x", text)))


def _first_sentence(text: str) -> str:
    """The first sentence of ``text`` (a list item keeps its marker; a sentence may end inside ``**bold**``)."""
    marker = re.match(r"\s*(?:[*-]|\d+\.)\s+", text)
    lead, body = (marker.group(0), text[marker.end():]) if marker else ("", text.strip())
    m = re.search(r"^(.+?[.!?:](?:\*\*|\*|\))?)(?=\s+[A-Z*$(\[]|\s*$)", body, re.S)
    return lead + (m.group(1) if m else body)


def _on_slide(block: str) -> tuple[str | None, str | None, int]:
    """What of ``block`` goes on the slide, what to the notes, and the slide lines it takes."""
    if re.match(r"#{1,6} ", block) or block.startswith("$$"):
        return block, None, 2 if block.startswith("#") else 2 + 2 * block.count("\\\\")
    if block.startswith("<details>"):
        return None, block, 0
    if block.lstrip().startswith("|"):                              # a table
        rows, columns = block.strip().count("\n") + 1, block.strip().splitlines()[0].count("|") - 1
        return (block, None, rows + 1) if rows <= 7 and columns <= 4 and len(block) < 700 else (None, block, 0)
    if re.match(r"\s*([*-]|\d+\.) ", block):                        # a list: each item's first sentence
        items = re.split(r"\n(?=\s*(?:[*-]|\d+\.) )", block)
        short = [_first_sentence(i) for i in items]
        lines = sum(1 + _words(s) // 12 for s in short)
        if lines > LINES:
            return None, block, 0
        return "\n".join(short), (block if short != items else None), lines
    if _words(block) <= PARAGRAPH_WORDS:
        return block, None, 1 + _words(block) // 12
    head = _first_sentence(block)
    if _words(head) > PARAGRAPH_WORDS:
        # one long sentence: whole if it fits a slide (a question must be read), else its first words
        if _words(block) <= (LINES - 2) * 12:
            return block, None, 1 + _words(block) // 12
        words = block.split()[:PARAGRAPH_WORDS]
        def cut_inside(text: str) -> bool:            # inside a formula, bold text or a link
            return bool(text.count("$") % 2 or text.count("**") % 2 or re.search(r"\[[^\]]*$|\]\([^)]*$", text))

        while words and cut_inside(" ".join(words)):
            words.pop()
        return " ".join(words) + " …", block, 1 + PARAGRAPH_WORDS // 12
    return head, block, 1 + _words(head) // 12


def _rows(text: str) -> int:
    """Slide lines ``text`` takes as code or printed output, each line wrapped at :data:`CODE_CHARS`."""
    return sum(max(1, -(-len(line) // CODE_CHARS)) for line in text.rstrip("\n").splitlines())


def _cut(text: str, limit: int = OUTPUT_LINES) -> str:
    """``text`` cut to at most ``limit`` slide lines (wrapping counted), the last saying how much was left out."""
    lines = text.rstrip("\n").splitlines()
    if _rows(text) <= limit:
        return text
    kept: list[str] = []
    while lines[len(kept):] and _rows("\n".join(kept + [lines[len(kept)]])) <= limit - 1:
        kept.append(lines[len(kept)])
    return "\n".join(kept) + f"\n… ({len(lines) - len(kept)} more lines in the notebook)\n"


def _explorer_frame(cell: nbformat.NotebookNode, exports: str) -> nbformat.NotebookNode | None:
    """The explorer a code cell shows, as an iframe of its exported page, or None."""
    if not any(WIDGET in o.get("data", {}) for o in cell.get("outputs", [])):
        return None
    match = EXPLORER.search(cell.source) or EXPLORER.search(
        "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs))
    if not match:
        return None
    out = nbformat.v4.new_markdown_cell(
        f'<iframe class="dpviz-explorer" src="{exports}/{match.group(1)}.html" '
        f'title="{match.group(1)}, live without a kernel"></iframe>')
    return out


def slide_plan(nb: nbformat.NotebookNode, exports: str = "../exports") -> nbformat.NotebookNode:
    """A deck's notebook from a lecture's (see the module docstring); ``exports`` is the explorers' folder, relative
    to the deck."""
    cells: list[nbformat.NotebookNode] = []
    title, used, notes = "", 0, []

    def emit(cell: nbformat.NotebookNode, kind: str, lines: int) -> None:
        nonlocal used
        # a slide that holds only its title takes what comes next, however long: continuing would leave it empty
        if kind == "-" and used + lines > LINES and used > 2 and title:
            flush_notes()
            cont = nbformat.v4.new_markdown_cell(f"### {title.lstrip('# ').strip()} (continued)")
            cont.metadata["slideshow"] = {"slide_type": "subslide"}
            cells.append(cont)
            used = 2
        cell.metadata["slideshow"] = {"slide_type": kind}
        cells.append(cell)
        used = (used if kind == "-" else 0) + lines

    def flush_notes() -> None:
        if notes:
            cells.append(nbformat.v4.new_markdown_cell("\n\n".join(notes), metadata={"slideshow": {
                "slide_type": "notes"}}))
            notes.clear()

    for cell in nb.cells:
        tags = set(cell.metadata.get("tags", []))
        if course.is_check(cell) or "remove-cell" in tags or "written-answer" in tags:   # where a student writes
            continue
        if cell.cell_type == "markdown":
            if "solution" in tags:
                notes.append(cell.source)
                continue
            for block in _blocks(cell.source):
                on, off, lines = _on_slide(block)
                if on and re.match(r"#{1,3} ", on):
                    flush_notes()
                    title = on
                    emit(nbformat.v4.new_markdown_cell(on), "subslide" if on.startswith("###") else "slide", 2)
                    continue
                if off:
                    notes.append(off)
                if on:
                    emit(nbformat.v4.new_markdown_cell(on), "-", lines)
            continue
        if cell.cell_type != "code":
            continue
        if "### BEGIN SOLUTION" in cell.source:                      # an exercise's cell: the question is enough
            notes.append("```python\n" + cell.source + "\n```")
            continue
        frame = _explorer_frame(cell, exports)
        if frame is not None:
            flush_notes()
            emit(nbformat.v4.new_markdown_cell(f"### {title.lstrip('# ').strip()}: the explorer"), "subslide", 2)
            emit(frame, "-", LINES)
            continue
        shown = copy.deepcopy(cell)
        shown.outputs = []
        figures, printed, folded = [], [], False
        for o in cell.get("outputs", []):
            data = o.get("data", {})
            if "image/png" in data or "image/svg+xml" in data:
                figures.append(o)
            elif o.get("output_type") == "stream" and o.get("name") == "stdout":
                printed.append(o.text)
            elif "<details" in str(data.get("text/html", "")):     # a folded table: the lecturer opens it in the notes
                notes.append(str(data["text/html"]))
                folded = True
            elif "text/html" in data or "text/markdown" in data:
                shown.outputs.append(o)
        room = LINES - 2                               # a slide's lines under its title
        code_lines = len([ln for ln in cell.source.splitlines() if ln.strip()])
        code_rows = _rows("\n".join(ln for ln in cell.source.splitlines() if ln.strip()))
        text = _cut("".join(printed)) if printed else ""
        if figures or folded or code_lines > CODE_LINES or code_rows + _rows(text) + 1 > room:
            # the code behind a figure, long code, or code that would push its output off the slide: in the notes
            shown.metadata.setdefault("tags", []).append("slides-hide-input")
            notes.append("```python\n" + cell.source + "\n```")
            code_rows = 0
            text = _cut("".join(printed), room - 1) if printed else ""
        if text:
            shown.outputs.append(nbformat.v4.new_output("stream", name="stdout", text=text))
        if figures:                                   # a figure is one idea: a slide of its own, its printout after
            flush_notes()
            for o in figures:
                emit(nbformat.v4.new_markdown_cell(f"### {title.lstrip('# ').strip()}"), "subslide", 2)
                figure = copy.deepcopy(shown)
                figure.outputs = [o]
                emit(figure, "-", LINES)
        if code_rows or shown.outputs:
            emit(shown, "-", code_rows + (_rows(text) if text else 0) + len(shown.outputs) + 1)
    flush_notes()
    for k, cell in enumerate(cells):                  # copies of one lecture cell would share its id
        cell["id"] = f"slide-cell-{k}"
    deck = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(nb.metadata))
    return deck


def units(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The units of a lecture as notebooks (``# Unit`` headings; a lecture without them is one unit); the lecture's
    title cell opens each."""
    starts = [k for k, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source.startswith("# Unit ")]
    if not starts:
        return [nb]
    out = []
    for a, b in zip(starts, starts[1:] + [len(nb.cells)], strict=True):
        part = copy.deepcopy(nb)
        part.cells = [copy.deepcopy(nb.cells[0])] + copy.deepcopy(nb.cells[a:b])
        out.append(part)
    return out


def deck_stem(lecture: Path, unit: int, n_units: int) -> str:
    """The file stem of unit ``unit`` (from 1) of a lecture of ``n_units`` units: ``NN_x`` or ``NN_x.unitK``."""
    return lecture.stem if n_units == 1 else f"{lecture.stem}.unit{unit}"


def write_decks(out_dir: Path, exports: str = "../exports") -> list[Path]:
    """Write one deck per unit of every lecture into ``out_dir``; reveal.js and MathJax from ``out_dir/lib`` when
    ``make slides`` installed them there."""
    from nbconvert import SlidesExporter

    out_dir.mkdir(parents=True, exist_ok=True)
    from traitlets.config import Config

    config = Config()
    config.TagRemovePreprocessor.enabled = True
    config.TagRemovePreprocessor.remove_input_tags = {"slides-hide-input"}
    # reveal.js's "white" theme: its fonts ship with reveal.js (the default "simple" theme imports Google Fonts)
    exporter = SlidesExporter(config=config, reveal_width="1280", reveal_height="720", reveal_scroll=False,
                              reveal_theme="white", exclude_input_prompt=True, exclude_output_prompt=True,
                              exclude_anchor_links=True)
    if (out_dir / "lib" / "reveal.js" / "dist" / "reveal.js").exists():
        exporter.reveal_url_prefix = "lib/reveal.js"
        exporter.mathjax_url = "lib/mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe"
        exporter.require_js_url = "lib/requirejs/require.js"
        exporter.jquery_url = "lib/jquery/dist/jquery.min.js"
    for stale in out_dir.glob("*.slides.html"):
        stale.unlink()
    written = []
    for path in course.lectures():
        parts = units(nbformat.read(path, as_version=4))
        for k, part in enumerate(parts, start=1):
            name = deck_stem(path, k, len(parts))
            title = part.cells[0].source.splitlines()[0].lstrip("# ").strip()
            body, _ = exporter.from_notebook_node(slide_plan(part, exports), resources={"metadata": {"name": title}})
            body = body.replace("</head>", STYLE + "\n</head>", 1)     # nbconvert cleans a <style> out of cells
            body = MERMAID.sub("", body, count=1)      # no deck draws a diagram: no module from a CDN
            target = out_dir / f"{name}.slides.html"
            target.write_text(body, encoding="utf-8")
            written.append(target)
    return written
