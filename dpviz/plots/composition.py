"""Figures for the composition lecture: per-query squared error of the two BMI algorithms, simulated vs theory."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from dpviz.composition import BMI_QUERY_NAMES
from dpviz.experiments.composition import CompositionExperiment
from dpviz.plots.bands import new_axes
from dpviz.plots.palette import PALETTE, TEMPLATE
from dpviz.plots.readability import log_axis

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["composition_title", "composition_figure", "composition_axes", "advanced_composition_axes"]

_SEQ, _PAR = PALETTE["vermillion"], PALETTE["blue"]


def composition_title(exp: CompositionExperiment, *, sep: str = " ") -> str:
    """Title with the budget and both totals (simulated / theory).

    Parameters
    ----------
    exp : CompositionExperiment
        The experiment shown.
    sep : str, default " "
        Put between the settings and the totals (``"<br>"`` or ``"\\n"`` to break the line).

    Returns
    -------
    str
        The budget, the share, the number of trials and both algorithms' total errors.
    """
    par = f"Alg 2 total {exp.parallel.total_mse:.3g} (theory {exp.theory_parallel.sum():.3g})"
    if exp.sequential is None:
        seq = "Alg 1 refused by the accountant"
    else:
        seq = f"Alg 1 total {exp.sequential.total_mse:.3g} (theory {exp.theory_sequential.sum():.3g})"
    return (f"BMI queries, budget epsilon = {exp.epsilon:.3g}, Alg 1 share {exp.share:.3g} per query, "
            f"{exp.parallel.trials} trials:{sep}{seq}; {par}")


def composition_figure(exp: CompositionExperiment) -> go.Figure:
    """Grouped bars: simulated squared error per query for each algorithm, with the theoretical value as a marker.

    Parameters
    ----------
    exp : CompositionExperiment
        The experiment to draw.

    Returns
    -------
    plotly.graph_objects.Figure
        The bar chart (log scale).
    """
    names = list(BMI_QUERY_NAMES)
    seq_mse = exp.sequential.mse if exp.sequential is not None else np.full(4, np.nan)
    traces = [
        go.Bar(x=names, y=seq_mse, name="Alg 1 (sequential), simulated", marker_color=_SEQ, offsetgroup="seq",
               hovertemplate="%{x}: %{y:.7~g}<extra>Alg 1 simulated</extra>"),
        go.Bar(x=names, y=exp.parallel.mse, name="Alg 2 (parallel + post-processing), simulated",
               marker_color=_PAR, marker_pattern_shape="/", offsetgroup="par",
               hovertemplate="%{x}: %{y:.7~g}<extra>Alg 2 simulated</extra>"),
        go.Scatter(x=names, y=exp.theory_sequential, mode="markers", name="Alg 1 theory 2/(share eps)^2",
                   marker=dict(symbol="line-ew", size=30, line=dict(width=3, color=PALETTE["black"])),
                   hovertemplate="%{x}: %{y:.7~g}<extra>Alg 1 theory</extra>", xaxis="x", offsetgroup="seq"),
        go.Scatter(x=names, y=exp.theory_parallel, mode="markers", name="Alg 2 theory",
                   marker=dict(symbol="line-ew", size=30, line=dict(width=3, color=PALETTE["grey"])),
                   hovertemplate="%{x}: %{y:.7~g}<extra>Alg 2 theory</extra>", offsetgroup="par"),
    ]
    # the legend sits to the right of the plot area, never over a bar (issue 19: it covered the fourth bar)
    layout = dict(title=dict(text=composition_title(exp, sep="<br>"), font=dict(size=13)), barmode="group",
                  scattermode="group", height=440,
                  yaxis=log_axis(seq_mse, exp.parallel.mse, exp.theory_sequential, exp.theory_parallel,
                                 title="mean squared error (log scale)"),
                  margin=dict(l=60, r=295, t=70, b=40),
                  legend=dict(orientation="v", x=1.02, xanchor="left", y=1.0, yanchor="top", font=dict(size=11)),
                  template=TEMPLATE)
    return go.Figure(data=traces, layout=layout)


def composition_axes(exp: CompositionExperiment, ax: Axes | None = None) -> Axes:
    """Static (matplotlib) version of :func:`composition_figure`.

    Parameters
    ----------
    exp : CompositionExperiment
        The experiment to draw.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(10.5, 4.2))     # wide enough for the query names and the one-row legend
    x = np.arange(4)
    w = 0.38
    if exp.sequential is not None:
        ax.bar(x - w / 2, exp.sequential.mse, w, color=_SEQ, label="Alg 1 (sequential), simulated")
    ax.bar(x + w / 2, exp.parallel.mse, w, color=_PAR, label="Alg 2 (parallel), simulated")
    ax.hlines(exp.theory_sequential, x - w, x, colors=PALETTE["black"], lw=2.5, label="Alg 1 theory")
    ax.hlines(exp.theory_parallel, x, x + w, colors=PALETTE["grey"], lw=2.5, label="Alg 2 theory")
    ax.set_xticks(x, list(BMI_QUERY_NAMES))
    ax.set_yscale("log")
    tops = [exp.theory_sequential.max(), exp.theory_parallel.max(), exp.parallel.mse.max()]
    lows = [exp.theory_parallel.min(), exp.parallel.mse.min()]
    if exp.sequential is not None:
        tops.append(exp.sequential.mse.max())
    ax.set_ylim(min(lows) / 1.5, max(tops) * 1.5)   # head room: the theory markers stay inside the frame
    _plain_log_ticks(ax)
    ax.set_ylabel("mean squared error (log scale)")
    ax.set_title(composition_title(exp, sep="\n"))
    # below the axes, never over a bar (issue 19: the legend covered the fourth bar)
    ax.legend(ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.1), frameon=False)
    return ax


def _plain_log_ticks(ax: Axes) -> None:
    """Label a log axis with plain numbers (2, 5, 10, 20, ...) instead of ``3 x 10^1``."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def advanced_composition_axes(comparison: dict[str, np.ndarray], ax: Axes | None = None) -> Axes:
    """Per-query epsilon allowed by basic vs advanced composition as the number of queries k grows.

    Parameters
    ----------
    comparison : dict of str to numpy.ndarray
        The result of :func:`dpviz.experiments.composition.composition_comparison`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    ax.plot(comparison["k"], comparison["basic"], "o-", color=_SEQ, label="basic: total / k")
    ax.plot(comparison["k"], comparison["advanced"], "s-", color=_PAR, label="advanced composition")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of queries k")
    ax.set_ylabel("epsilon per query")
    ax.set_title("Which theorem lets each query spend more?")
    ax.legend()
    return ax
