"""Shared look of the hierarchy figures: a colour per method, legend labels and titles."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from dpviz.experiments.hierarchy import METHOD_LABELS, WidthCurves
from dpviz.plots.palette import PALETTE

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.legend import Legend

__all__ = ["METHOD_COLORS", "METHOD_MARKERS", "METHOD_DASHES", "curves_title", "method_label", "counts_need_log",
           "wrapped", "slot_width", "legend_below"]

#: Colour of each method key of :data:`dpviz.experiments.hierarchy.METHODS`.
METHOD_COLORS = {"flat": PALETTE["orange"], "tree": PALETTE["blue"], "tree_ci": PALETTE["green"],
                 "wavelet": PALETTE["purple"]}
#: A marker and a dash per method too, so no method is told apart by colour alone.
METHOD_MARKERS = {"flat": "circle", "tree": "square", "tree_ci": "diamond", "wavelet": "triangle-up"}
METHOD_DASHES = {"flat": "dot", "tree": "solid", "tree_ci": "dash", "wavelet": "dashdot"}


def counts_need_log(truth: ArrayLike) -> bool:
    """Whether a histogram panel needs a log count axis: its positive counts span more than two decades.

    On a linear axis INCOME's 3M next to counts of a few hundred put every bin but a handful on the zero
    line, so the noisy and the true histogram cannot be told apart.

    Parameters
    ----------
    truth : array_like
        The true counts.

    Returns
    -------
    bool
        True when the largest positive count exceeds 100 times the median positive count.

    Examples
    --------
    >>> counts_need_log([3_000_000, 400, 250, 80]), counts_need_log([10, 12, 30])
    (True, False)
    """
    positive = np.asarray(truth, dtype=float)
    positive = positive[positive > 0]
    return bool(positive.size) and bool(positive.max() > 100 * np.median(positive))


def method_label(method: str, b: int) -> str:
    """Legend label of a method with the branching factor filled in (``H_b`` -> ``H_16``).

    Parameters
    ----------
    method : str
        A method key of :data:`dpviz.experiments.hierarchy.METHODS`.
    b : int
        The branching factor.

    Returns
    -------
    str
        The label shown in legends.
    """
    return METHOD_LABELS[method].replace("H_b", f"H_{b}")


def curves_title(c: WidthCurves) -> str:
    """Title stating every parameter of an error-vs-width figure.

    Parameters
    ----------
    c : WidthCurves
        The curves the figure shows.

    Returns
    -------
    str
        One line: n, b, epsilon, allocation, root, trials and range sampling.
    """
    root = "root measured" if c.measure_root else "root not measured"
    sampled = "all ranges" if c.ranges_per_trial is None else f"{c.ranges_per_trial} random ranges/width"
    return (f"MSE vs range width: n = {c.n}, b = {c.branching}, epsilon = {c.epsilon:.3g}, "
            f"{c.allocation} budget, {root}; {c.trials} trials, {sampled}")


def wrapped(text: str, width: int) -> str:
    """``text`` broken after its commas, semicolons and colons into lines of at most ``width`` characters.

    Parameters
    ----------
    text : str
        A title.
    width : int
        The most characters on a line (a longer piece stays whole).

    Returns
    -------
    str
        The lines joined by newlines.

    Examples
    --------
    >>> print(wrapped("MSE vs range width: n = 1024, b = 16, epsilon = 1", 30))
    MSE vs range width:
    n = 1024, b = 16, epsilon = 1
    """
    pieces = re.split(r"(?<=[,;:])\s+", text)
    lines = [pieces[0]]
    for piece in pieces[1:]:
        if len(lines[-1]) + 1 + len(piece) <= width:
            lines[-1] += " " + piece
        else:
            lines.append(piece)
    return "\n".join(lines)


def slot_width(ax: Axes) -> float:
    """The width in inches of the figure's grid column(s) that ``ax`` spans (the axes and its labels).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Axes of a figure.

    Returns
    -------
    float
        The figure's width times the fraction of grid columns the axes spans.
    """
    spec = ax.get_subplotspec()
    from matplotlib.figure import Figure

    fig = ax.figure if isinstance(ax.figure, Figure) else ax.figure.figure   # a subfigure's width: its figure's
    width = float(fig.get_figwidth())
    if spec is None:
        return width * ax.get_position().width
    return width * len(spec.colspan) / spec.get_gridspec().ncols


def legend_below(ax: Axes, handles: list[Any], labels: list[str], *, drop: float = 0.6, **kwargs: Any) -> Legend:
    """A frameless legend under ``ax``'s tick labels and x-axis label, where it covers no data.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes.
    handles, labels : list
        The legend's entries.
    drop : float, default 0.6
        How far below the axes the legend's top is, in inches (room for the tick labels and the axis label).
    **kwargs
        Further ``Axes.legend`` arguments (``ncols``, ``title``).

    Returns
    -------
    matplotlib.legend.Legend
        The legend.
    """
    from matplotlib.transforms import ScaledTranslation

    below = ax.transAxes + ScaledTranslation(0, -drop, ax.figure.dpi_scale_trans)
    return ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=below,
                     frameon=False, **kwargs)
