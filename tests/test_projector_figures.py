"""Every static figure of the lectures reads on a projector: shown at full size on a 1280x720 slide, titles of at
least 16 pt and other text of at least 12 pt (dpviz.plots.style).

``python -m tools.figure_check`` runs the lectures and measures every figure as drawn (2.5 minutes); these tests
check the same rules on what can be read without running them: the committed images' sizes, the style each
lecture draws under, and that no plotting code sets a font size or a resolution of its own.
"""

from __future__ import annotations

import base64
import re
import struct
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import nbformat
import pytest

from dpviz.plots.style import PROJECTOR_STYLE, SLIDE_FIGURE_PX, TEXT_MIN_PT, TITLE_MIN_PT, projector_problems
from tools import course

NOTEBOOKS = course.lectures() + course.companions()
PLOTS = Path(__file__).resolve().parents[1] / "dpviz" / "plots"


def _png_size(data: str) -> tuple[int, int]:
    raw = base64.b64decode(data)[:24]
    assert raw[:8] == b"\x89PNG\r\n\x1a\n" and raw[12:16] == b"IHDR"
    return struct.unpack(">II", raw[16:24])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_committed_figure_fits_a_slide_at_full_size(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    sizes = [(k, _png_size(o["data"]["image/png"])) for k, c in enumerate(nb.cells) if c.cell_type == "code"
             for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    too_big = [(k, wh) for k, wh in sizes if wh[0] > SLIDE_FIGURE_PX[0] or wh[1] > SLIDE_FIGURE_PX[1]]
    assert not too_big, f"{path.name}: figures (cell, px) larger than {SLIDE_FIGURE_PX}: {too_big}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_lecture_draws_under_the_projector_style_and_sets_no_font_size(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    code = [(k, c) for k, c in enumerate(nb.cells) if c.cell_type == "code"]
    first = code[0][1].source
    assert f'plt.style.use("{PROJECTOR_STYLE}")' in first, f"{path.name}: first code cell must use the style"
    for k, cell in code:
        assert not re.search(r"\bfontsize\s*=|\.set_fontsize\(|\bdpi\s*=|rcParams", cell.source), \
            f"{path.name} cell {k} sizes its own text; the style sheet sizes every figure's text"


@pytest.mark.parametrize("module", sorted(PLOTS.rglob("*.py")), ids=lambda p: str(p.relative_to(PLOTS)))
def test_no_plotting_function_sets_a_font_size_or_resolution(module: Path) -> None:
    text = module.read_text()
    if module.name == "style.py":
        return
    found = re.findall(r"(?<![\w.])(?:fontsize|labelsize|dpi)\s*=\s*[^,)\n]+", text)
    assert not found, f"{module.name}: {found}"


def test_the_style_sheet_gives_the_sizes_the_check_requires() -> None:
    """Read the sizes matplotlib resolves under the style from its own rcParams, not from the sheet's text."""
    with plt.style.context(PROJECTOR_STYLE):
        rc = matplotlib.rcParams
        from matplotlib.font_manager import FontProperties

        def pt(key: str) -> float:
            return FontProperties(size=rc[key]).get_size_in_points()

        assert rc["figure.dpi"] >= 100
        assert min(pt("axes.titlesize"), pt("figure.titlesize")) >= TITLE_MIN_PT
        assert min(pt(k) for k in ("font.size", "axes.labelsize", "xtick.labelsize", "ytick.labelsize",
                                   "legend.fontsize", "legend.title_fontsize")) >= TEXT_MIN_PT


def test_the_check_finds_what_the_default_style_gets_wrong() -> None:
    """The same figure fails under matplotlib's defaults (10 pt ticks, 12 pt title) and passes under the style."""
    def draw() -> list[str]:
        fig, ax = plt.subplots(figsize=(7, 3.6))
        ax.plot([1, 2, 3], [1, 4, 9], label="squares")
        ax.set_title("a title")
        ax.set_xlabel("x")
        ax.legend()
        try:
            return projector_problems(fig)
        finally:
            plt.close(fig)

    with plt.style.context("default"):
        assert any("title 'a title' is 12 pt" in p for p in draw())
    with plt.style.context(PROJECTOR_STYLE):
        assert draw() == []
