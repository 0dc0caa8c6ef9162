"""Static figures a lecture hall can read: the projector style and the check that a figure meets it.

The lectures draw their matplotlib figures under the style sheet ``dpviz.plots.projector``
(``plt.style.use(PROJECTOR_STYLE)``): 100 dpi, 16 pt titles and 12 pt for every other text. A slide of
1280 x 720 px shows a figure of at most :data:`SLIDE_FIGURE_PX` at its own size (no shrinking), so its titles
are then 22 px and its other text 16.7 px, what 16 pt and 12 pt are on a 96-dpi screen.
:func:`projector_problems` measures a drawn figure against these sizes; the plotting functions set no font
size of their own, so the style sheet is the one place text is sized.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # matplotlib is imported lazily, as everywhere in dpviz.plots
    from matplotlib.figure import Figure

__all__ = ["PROJECTOR_STYLE", "SLIDE_FIGURE_PX", "TITLE_MIN_PT", "TEXT_MIN_PT", "figure_texts", "figure_pixels",
           "projector_problems"]

#: The style sheet to pass to ``matplotlib.pyplot.style.use`` (the file ``dpviz/plots/projector.mplstyle``).
PROJECTOR_STYLE = "dpviz.plots.projector"
#: The largest figure, in pixels at the style's 100 dpi, that a 1280x720 slide shows at full size below its heading.
SLIDE_FIGURE_PX = (1200, 520)
#: The smallest title (axes title or figure title), in points at full size.
TITLE_MIN_PT = 16.0
#: The smallest of every other text: tick labels, axis labels, legends, annotations.
TEXT_MIN_PT = 12.0
#: The padding, in inches, that Jupyter's inline backend adds around a figure's tight bounding box.
_INLINE_PAD_IN = 0.1


def _check_figure(fig: object) -> None:
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")


def figure_texts(fig: Figure) -> list[tuple[str, str, float]]:
    """Every visible, non-empty text of a drawn figure, with its role and size.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (it is drawn first, so tick labels exist).

    Returns
    -------
    list of (str, str, float)
        ``(role, text, points)`` with role ``"title"`` for an axes or figure title and ``"text"`` for the rest.

    Raises
    ------
    TypeError
        If ``fig`` is not a matplotlib Figure.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> with plt.style.context(PROJECTOR_STYLE):
    ...     fig, ax = plt.subplots(figsize=(4, 3))
    ...     _ = ax.set_title("noisy counts"); _ = ax.set_xlabel("bin")
    >>> sorted({(role, pt) for role, _, pt in figure_texts(fig)})
    [('text', 12.0), ('text', 13.0), ('title', 16.0)]
    >>> plt.close(fig)
    """
    _check_figure(fig)
    from matplotlib.text import Text

    fig.canvas.draw()
    titles = {fig.get_suptitle()} | {ax.get_title(loc) for ax in fig.axes for loc in ("left", "center", "right")}
    titles.discard("")
    found = []
    for t in fig.findobj(Text):
        text = t.get_text().strip()
        if text and t.get_visible():
            found.append(("title" if text in titles else "text", text, float(t.get_fontsize())))
    return found


def figure_pixels(fig: Figure) -> tuple[int, int]:
    """The size in pixels of the image Jupyter shows for ``fig`` (its tight bounding box, padded, at its dpi).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.

    Returns
    -------
    tuple of int
        ``(width, height)`` in pixels.

    Raises
    ------
    TypeError
        If ``fig`` is not a matplotlib Figure.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> with plt.style.context(PROJECTOR_STYLE):
    ...     fig, ax = plt.subplots(figsize=(8, 4))
    >>> w, h = figure_pixels(fig)
    >>> 700 < w <= 820 and 300 < h <= 420
    True
    >>> plt.close(fig)
    """
    _check_figure(fig)
    fig.canvas.draw()
    box = fig.get_tightbbox()
    return (round((box.width + 2 * _INLINE_PAD_IN) * fig.dpi), round((box.height + 2 * _INLINE_PAD_IN) * fig.dpi))


def projector_problems(fig: Figure) -> list[str]:
    """What keeps ``fig`` from being read on a projector: too large to show at full size, or text too small.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure, as it would be shown.

    Returns
    -------
    list of str
        One sentence per problem; empty when the figure is within :data:`SLIDE_FIGURE_PX` and every title is at
        least :data:`TITLE_MIN_PT` and every other text at least :data:`TEXT_MIN_PT`.

    Raises
    ------
    TypeError
        If ``fig`` is not a matplotlib Figure.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(14, 4), dpi=100, layout="constrained")
    >>> _ = ax.set_title("default style")
    >>> for problem in projector_problems(fig):
    ...     print(problem)
    figure is 1412 x 412 px at 100 dpi; a slide shows at most 1200 x 520 at full size
    text '0.0' is 10 pt; at least 12 pt
    title 'default style' is 12 pt; at least 16 pt
    >>> plt.close(fig)
    """
    _check_figure(fig)
    problems = []
    w, h = figure_pixels(fig)
    if w > SLIDE_FIGURE_PX[0] or h > SLIDE_FIGURE_PX[1]:
        problems.append(f"figure is {w} x {h} px at {fig.dpi:g} dpi; a slide shows at most "
                        f"{SLIDE_FIGURE_PX[0]} x {SLIDE_FIGURE_PX[1]} at full size")
    if fig.dpi < 100:
        problems.append(f"figure is drawn at {fig.dpi:g} dpi; its text is then smaller than its point size says")
    seen = set()
    for role, text, pt in figure_texts(fig):
        least = TITLE_MIN_PT if role == "title" else TEXT_MIN_PT
        if pt < least and (role, pt) not in seen:
            seen.add((role, pt))
            problems.append(f"{role} {text!r} is {pt:g} pt; at least {least:g} pt")
    return problems
