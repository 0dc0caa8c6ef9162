"""Figures for the composition lecture: per-query squared error of the two BMI algorithms, simulated vs theory."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from dpviz.composition import BMI_QUERY_NAMES
from dpviz.experiments.composition import CompositionExperiment
from dpviz.plots.bands import new_axes
from dpviz.plots.palette import PALETTE, TEMPLATE

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["composition_title", "composition_figure", "composition_axes", "advanced_composition_axes"]

_SEQ, _PAR = PALETTE["vermillion"], PALETTE["blue"]


def composition_title(exp: CompositionExperiment) -> str:
    """Title with the budget and both totals (simulated / theory).

    Parameters
    ----------
    exp : CompositionExperiment
        The experiment shown.

    Returns
    -------
    str
        The budget, the share, the number of trials and both algorithms' total errors.
    """
    par = f"Alg 2 total {exp.parallel.total_mse:.4g} (theory {exp.theory_parallel.sum():.4g})"
    if exp.sequential is None:
        seq = "Alg 1 refused by the accountant"
    else:
        seq = f"Alg 1 total {exp.sequential.total_mse:.4g} (theory {exp.theory_sequential.sum():.4g})"
    return (f"BMI queries, budget epsilon = {exp.epsilon:.3g}, Alg 1 share {exp.share:.3g} per query, "
            f"{exp.parallel.trials} trials: {seq}; {par}")


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
               marker_color=_PAR, offsetgroup="par", hovertemplate="%{x}: %{y:.7~g}<extra>Alg 2 simulated</extra>"),
        go.Scatter(x=names, y=exp.theory_sequential, mode="markers", name="Alg 1 theory 2/(share eps)^2",
                   marker=dict(symbol="line-ew", size=30, line=dict(width=3, color=PALETTE["black"])),
                   hovertemplate="%{x}: %{y:.7~g}<extra>Alg 1 theory</extra>", xaxis="x", offsetgroup="seq"),
        go.Scatter(x=names, y=exp.theory_parallel, mode="markers", name="Alg 2 theory",
                   marker=dict(symbol="line-ew", size=30, line=dict(width=3, color=PALETTE["grey"])),
                   hovertemplate="%{x}: %{y:.7~g}<extra>Alg 2 theory</extra>", offsetgroup="par"),
    ]
    layout = dict(title=dict(text=composition_title(exp), font=dict(size=13)), barmode="group",
                      scattermode="group", yaxis_title="mean squared error", yaxis_type="log", height=420,
                      margin=dict(l=60, r=20, t=60, b=40), legend=dict(orientation="h", y=-0.2),
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
    ax = new_axes(ax)
    x = np.arange(4)
    w = 0.38
    if exp.sequential is not None:
        ax.bar(x - w / 2, exp.sequential.mse, w, color=_SEQ, label="Alg 1 (sequential), simulated")
    ax.bar(x + w / 2, exp.parallel.mse, w, color=_PAR, label="Alg 2 (parallel), simulated")
    ax.hlines(exp.theory_sequential, x - w, x, colors=PALETTE["black"], lw=2.5, label="Alg 1 theory")
    ax.hlines(exp.theory_parallel, x, x + w, colors=PALETTE["grey"], lw=2.5, label="Alg 2 theory")
    ax.set_xticks(x, list(BMI_QUERY_NAMES), fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("mean squared error")
    ax.set_title(composition_title(exp), fontsize=8)
    ax.legend(fontsize=7)
    return ax


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
    ax.set_title("Which theorem lets each query spend more?", fontsize=9)
    ax.legend(fontsize=8)
    return ax
