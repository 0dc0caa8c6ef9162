"""Figures for subsampling (composition lecture): the privacy loss of each tail event against the amplified bound."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from dpviz.experiments.subsampling import SubsamplingTails
from dpviz.plots.bands import new_axes
from dpviz.plots.palette import PALETTE, TEMPLATE

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["subsampling_title", "subsampling_figure", "subsampling_axes"]

_EXACT, _SIM, _BOUND, _FULL = PALETTE["blue"], PALETTE["vermillion"], PALETTE["green"], PALETTE["grey"]


def subsampling_title(r: SubsamplingTails) -> str:
    """Title with epsilon, the rate, the amplified bound and the exact loss at the largest threshold.

    Parameters
    ----------
    r : SubsamplingTails
        The run shown.

    Returns
    -------
    str
        One line of text.
    """
    return (f"eps = {r.epsilon:.3g} on a sample at rate p = {r.rate:.3g}: amplified eps = {r.bound:.3g} "
            f"(2p·eps = {2 * r.rate * r.epsilon:.3g}); exact loss at t = {r.thresholds[-1]:.3g}: {r.exact[-1]:.3g}")


def subsampling_figure(r: SubsamplingTails) -> go.Figure:
    """Privacy loss ``ln(P[Y' > t] / P[Y > t])`` against t: exact curve, simulated points, the bounds.

    Parameters
    ----------
    r : SubsamplingTails
        The run to draw.

    Returns
    -------
    plotly.graph_objects.Figure
        One panel; error bars are ±1.96 standard errors.
    """
    t = r.thresholds
    ok = np.isfinite(r.simulated)
    # the layout is given to the constructor: a later update_layout costs 12 ms of plotly bookkeeping
    layout = {"template": TEMPLATE, "title": {"text": subsampling_title(r), "font": {"size": 13}},
              "xaxis": {"title": {"text": "threshold t"}}, "yaxis": {"title": {"text": "privacy loss (nats)"}},
              "height": 420, "legend": {"orientation": "h", "yanchor": "top", "y": -0.3},
              "margin": {"l": 80, "r": 80, "t": 100, "b": 110}}   # the legend under the x-axis title, not on it
    return go.Figure([
        go.Scatter(x=t, y=r.exact, mode="lines", name="exact loss of the event Y > t",
                   line={"color": _EXACT, "width": 2}),
        go.Scatter(x=t[ok], y=r.simulated[ok], mode="markers", name=f"simulated ({r.samples:,} runs each)",
                   marker={"color": _SIM, "symbol": "circle-open", "size": 8},
                   error_y={"type": "data", "array": 1.96 * r.stderr[ok], "visible": True}),
        go.Scatter(x=[t[0], t[-1]], y=[r.bound, r.bound], mode="lines", name="amplified eps ln(1+p(e^eps-1))",
                   line={"color": _BOUND, "dash": "dash"}),
        go.Scatter(x=[t[0], t[-1]], y=[r.epsilon, r.epsilon], mode="lines", name="eps without sampling",
                   line={"color": _FULL, "dash": "dot"}),
    ], layout=layout)


def subsampling_axes(r: SubsamplingTails, ax: Axes | None = None) -> Axes:
    """The same figure on matplotlib axes (the static figure beside the explorer).

    Parameters
    ----------
    r : SubsamplingTails
        The run to draw.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure if None.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(11.0, 3.9))
    t = r.thresholds
    ok = np.isfinite(r.simulated)
    ax.plot(t, r.exact, color=_EXACT, lw=2, label="exact loss of the event Y > t")
    ax.errorbar(t[ok], r.simulated[ok], yerr=1.96 * r.stderr[ok], fmt="o", mfc="none", color=_SIM,
                label=f"simulated ({r.samples:,} runs each)")
    ax.axhline(r.bound, color=_BOUND, ls="--", label="amplified eps")
    ax.axhline(r.epsilon, color=_FULL, ls=":", label="eps without sampling")
    ax.set_xlabel("threshold t")
    ax.set_ylabel("privacy loss (nats)")
    ax.set_title(subsampling_title(r).replace("; ", "\n"))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))     # beside the axes: over them it hid the points
    return ax
