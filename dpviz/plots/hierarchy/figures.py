"""Interactive (plotly) figures for the hierarchies lecture: error by range width and the explorer's panels."""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from dpviz.experiments.hierarchy import HierarchyRun, WidthCurves
from dpviz.plots.hierarchy.style import (
    METHOD_COLORS,
    METHOD_DASHES,
    METHOD_MARKERS,
    counts_need_log,
    curves_title,
    method_label,
)
from dpviz.plots.palette import TEMPLATE, TRUTH, band_fill
from dpviz.plots.readability import direct_labels, log_axis, short

__all__ = ["add_width_traces", "width_curves_figure", "explorer_figure", "explorer_figure_spec"]


def _band_polygon(x: ArrayLike, lower: ArrayLike, upper: ArrayLike, *, name: str, color: str, legendgroup: str,
                  xaxis: str = "x", yaxis: str = "y") -> dict[str, Any]:
    """One closed-polygon trace for a band (cheaper to redraw than two ``tonexty`` traces)."""
    x = np.asarray(x, dtype=float)
    return dict(type="scatter", x=np.concatenate([x, x[::-1]]),
                y=np.concatenate([np.asarray(upper), np.asarray(lower)[::-1]]), fill="toself",
                fillcolor=band_fill(color, 0.18), line=dict(width=0, color=color), mode="lines", name=name,
                legendgroup=legendgroup, hoverinfo="skip", xaxis=xaxis, yaxis=yaxis)


def _line(x: ArrayLike, y: ArrayLike, *, name: str, color: str, mode: str = "lines", legendgroup: str | None = None,
          xaxis: str = "x", yaxis: str = "y") -> dict[str, Any]:
    """A scatter trace as a plain dict (validated once, when the figure is built)."""
    style = {"line": dict(color=color)} if mode == "lines" else {"marker": dict(color=color)}
    return dict(type="scatter", x=np.asarray(x), y=np.asarray(y), mode=mode, name=name, **style,
                legendgroup=legendgroup or name, xaxis=xaxis, yaxis=yaxis,
                hovertemplate=f"{name}: %{{y:.7~g}}<extra></extra>")


def _width_traces(c: WidthCurves, xaxis: str = "x", yaxis: str = "y", *,
                  band_style: str = "fill") -> list[dict[str, Any]]:
    """Per method: the simulated band, the simulated mean and the exact curve.

    ``band_style="fill"`` draws the band as a shaded polygon (3 traces per method);
    ``"bars"`` as vertical bars on the simulated means (2 traces per method: cheaper to redraw).
    """
    lo, hi = c.band
    out = []
    for m in c.methods:
        col_m = METHOD_COLORS[m]
        name = method_label(m, c.branching)
        mean = _line(c.widths, c.simulated[m], name=f"{name}: simulated mean", color=col_m, mode="markers",
                     legendgroup=m, xaxis=xaxis, yaxis=yaxis)
        if band_style == "bars":
            mean["name"] = f"{name}: simulated mean, {lo:g}-{hi:g} % of trials"
            mean["error_y"] = dict(type="data", symmetric=False, array=c.upper[m] - c.simulated[m],
                                   arrayminus=c.simulated[m] - c.lower[m], color=col_m, thickness=1.2, width=3)
        else:
            out.append(_band_polygon(c.widths, c.lower[m], c.upper[m], name=f"{name}: {lo:g}-{hi:g} % of trials",
                                     color=col_m, legendgroup=m, xaxis=xaxis, yaxis=yaxis))
        mean["marker"]["symbol"] = METHOD_MARKERS.get(m, "circle")
        out.append(mean)
        exact = _line(c.widths, c.analytic[m], name=f"{name}: exact", color=col_m, legendgroup=m, xaxis=xaxis,
                      yaxis=yaxis)
        exact["line"]["dash"] = METHOD_DASHES.get(m, "solid")
        out.append(exact)
    return out


def add_width_traces(fig: go.Figure, c: WidthCurves) -> go.Figure:
    """Add, per method: the simulated band, the simulated mean (markers) and the exact curve (line).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure to draw on (changed in place).
    c : WidthCurves
        Exact and simulated error by range width.

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``, for chaining.
    """
    fig.add_traces(_width_traces(c))
    return fig


def width_curves_figure(c: WidthCurves) -> go.Figure:
    """Interactive MSE-vs-width figure (log-log) for every method in ``c``.

    Parameters
    ----------
    c : WidthCurves
        Exact and simulated error by range width.

    Returns
    -------
    plotly.graph_objects.Figure
        The figure, titled with every parameter (:func:`curves_title`).
    """
    fig = go.Figure(_width_traces(c))
    shown = [c.lower[m] for m in c.methods] + [c.upper[m] for m in c.methods] + [c.analytic[m] for m in c.methods]
    fig.update_layout(title=curves_title(c), xaxis=log_axis(c.widths, title="range width (bins)"),
                      yaxis=log_axis(*shown, title="mean squared error"), template=TEMPLATE, height=450)
    return fig


def _counts_axis(truth: np.ndarray) -> dict[str, Any]:
    """The histogram panel's y axis: log when the counts span more than two decades (:func:`counts_need_log`)."""
    if counts_need_log(truth):
        positive = np.asarray(truth, dtype=float)
        return log_axis(positive[positive > 0], title="count (log scale; counts <= 0 not drawn)", domain=[0.76, 1.0],
                        anchor="x")
    return dict(title="count", type="linear", domain=[0.76, 1.0], anchor="x")


def _signed(value: float) -> str:
    """An error to 3 significant digits with its sign (``+19.1``, ``-0.5``)."""
    return ("+" if value >= 0 else "") + short(value)


def explorer_figure(run: HierarchyRun) -> go.Figure:
    """The explorer's three panels as a plotly figure; see :func:`explorer_figure_spec`.

    Parameters
    ----------
    run : HierarchyRun
        What to draw (from :func:`dpviz.experiments.hierarchy.hierarchy_explorer_run`).

    Returns
    -------
    plotly.graph_objects.Figure
        The three-panel figure.

    Examples
    --------
    >>> from dpviz.experiments.hierarchy import hierarchy_explorer_run
    >>> fig = explorer_figure(hierarchy_explorer_run([3, 1, 4, 1, 5, 9, 2, 6], 2, 1.0, trials=5, rng=0))
    >>> len(fig.data), fig.layout.xaxis3.type
    (12, 'log')
    """
    traces, layout = explorer_figure_spec(run)
    # traces are plain dicts built here; skipping plotly's re-validation keeps a redraw within budget
    return go.Figure(data=traces, layout=layout, _validate=False)


def explorer_figure_spec(run: HierarchyRun) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The explorer's three panels: one release; the cover nodes' errors before/after inference; MSE vs width.

    The middle panel draws each cover node's *error* (count minus true count) before and after constrained
    inference, so the noise inference removes stays visible whatever the counts' size (a bar joins each node's
    two errors).  Built as one figure with three stacked axes (no ``make_subplots``) and the small shared
    template, so a redraw stays cheap.

    Parameters
    ----------
    run : HierarchyRun
        What to draw (from :func:`dpviz.experiments.hierarchy.hierarchy_explorer_run`).

    Returns
    -------
    traces : list of dict
        The traces, in drawing order (plain dicts, so that a redraw can send only the arrays that changed).
    layout : dict
        The layout: three stacked axes, the title and the panel heads.

    Raises
    ------
    TypeError
        If ``run`` is not a :class:`~dpviz.experiments.hierarchy.HierarchyRun`.

    Examples
    --------
    >>> from dpviz.experiments.hierarchy import hierarchy_explorer_run
    >>> traces, layout = explorer_figure_spec(hierarchy_explorer_run([3, 1, 4, 1, 5, 9, 2, 6], 2, 1.0, trials=5,
    ...                                                               rng=0))
    >>> traces[-1]["text"], len(layout["annotations"])   # the MSE curves are named at their right ends
    (['Flat (identity)', 'H_2', 'H_2 + constrained inference'], 3)
    """
    if not isinstance(run, HierarchyRun):
        raise TypeError(f"run must be a HierarchyRun (from hierarchy_explorer_run), got {type(run).__name__}")
    c = run.curves
    b = c.branching
    cov = run.cover
    n = run.truth.size
    x = np.arange(n)
    shown = np.asarray(run.ci_leaves if run.constrained else run.noisy_leaves, dtype=float)
    counts_axis = _counts_axis(run.truth)
    if counts_axis["type"] == "log":
        # a noisy count <= 0 has no place on a log axis (its title says so): a gap in the dotted line, not a plunge
        # three axis lengths off the panel and back (plotly's clip), whose dots cost ~250 ms to paint every frame
        shown = np.where(shown > 0, shown, np.nan)
    key = "tree_ci" if run.constrained else "tree"
    which = f"H_{b} leaves after constrained inference" if run.constrained else f"H_{b} noisy leaves"
    labels = [f"L{lv} [{s}, {e})" for lv, s, e in zip(cov.level, cov.node_start, cov.node_stop, strict=True)]
    k = np.arange(len(labels))
    traces: list[dict[str, Any]] = [
        dict(type="scatter", x=x, y=shown, mode="lines", name=which, legendgroup=key,
                   line=dict(color=METHOD_COLORS[key], width=1, dash="dot"),
                   hovertemplate="bin %{x}: %{y:.7~g}<extra>" + which + "</extra>"),
        dict(type="scatter", x=x, y=run.truth, mode="lines", name="true histogram", line=dict(color=TRUTH, width=1.5),
                   hovertemplate="bin %{x}: %{y:.7~g}<extra>truth</extra>"),
        dict(type="scatter", x=[-0.5, len(labels) - 0.5], y=[0.0, 0.0], mode="lines", name="true count (error 0)",
             showlegend=False, line=dict(color=TRUTH, width=1, dash="dot"), hoverinfo="skip", xaxis="x2",
             yaxis="y2"),
        dict(type="scatter", x=k - 0.15, y=cov.noisy_error, mode="markers", name="cover node: noisy count - true",
             marker=dict(color=METHOD_COLORS["tree"], size=8), text=labels, customdata=np.c_[cov.truth, cov.noisy],
             hovertemplate="%{text}: noisy %{customdata[1]:.7~g} - true %{customdata[0]:.7~g} = %{y:+.7~g}"
                           "<extra></extra>", xaxis="x2", yaxis="y2"),
        dict(type="scatter", x=k + 0.15, y=cov.consistent_error, mode="markers",
             name="after constrained inference - true (bar: the noise inference removed)",
             marker=dict(color=METHOD_COLORS["tree_ci"], size=8, symbol="square"), text=labels,
             customdata=np.c_[cov.consistent, cov.correction],
             error_y=dict(type="data", symmetric=False, array=np.maximum(-cov.correction, 0.0),
                          arrayminus=np.maximum(cov.correction, 0.0), color=METHOD_COLORS["tree_ci"], thickness=1,
                          width=0),
             hovertemplate="%{text}: after inference %{customdata[0]:.7~g}, error %{y:+.7~g} "
                           "(inference moved it by %{customdata[1]:+.7~g})<extra></extra>", xaxis="x2", yaxis="y2"),
        *_width_traces(c, "x3", "y3", band_style="bars"),
    ]
    for t in traces[5:]:   # the MSE panel's methods are named at their curves' right ends, not in the legend
        t["showlegend"] = False
    widths = np.asarray(c.widths, dtype=float)
    mse_shown = [c.lower[m] for m in c.methods] + [c.upper[m] for m in c.methods] + [c.analytic[m] for m in c.methods]
    mse_decades = float(np.log10(max(np.nanmax(np.concatenate([np.ravel(v) for v in mse_shown])), 1e-300)
                                 / max(np.nanmin(np.concatenate([np.ravel(v) for v in mse_shown])), 1e-300)))
    traces.append(direct_labels([method_label(m, b) for m in c.methods], float(widths.max()),
                                [float(np.asarray(c.analytic[m])[-1]) for m in c.methods],
                                [METHOD_COLORS[m] for m in c.methods], xaxis="x3", yaxis="y3", log=True,
                                min_gap=max(mse_decades, 0.5) / 10))
    a = run.answers
    root = "measured" if c.measure_root else "not measured"

    def head(text: str, y: float) -> dict[str, Any]:
        return dict(text=text, x=0.5, y=y, xref="paper", yref="paper", showarrow=False, font=dict(size=12),
                    xanchor="center", yanchor="bottom")

    layout = dict(
        title=dict(text=(f"Hierarchical histogram, n = {n}, b = {b}, epsilon = {c.epsilon:.3g}, {c.allocation} "
                         f"budget, root {root} | range [{cov.start}, {cov.stop}): true {short(a['truth'])}; "
                         f"error Flat {_signed(a['flat'] - a['truth'])}, H_{b} {_signed(a['tree'] - a['truth'])}, "
                         f"H_{b}+CI {_signed(a['tree_ci'] - a['truth'])}"),
                   font=dict(size=13)),
        template=TEMPLATE, height=980, margin=dict(l=90, r=80, t=90, b=100),
        legend=dict(orientation="h", yanchor="top", y=-0.07, font=dict(size=10)),
        xaxis=dict(title="bin", domain=[0, 1], anchor="y"), yaxis=counts_axis,
        xaxis2=dict(title="cover node (level, leaf range)", tickmode="array", tickvals=k, ticktext=labels,
                    domain=[0, 1], anchor="y2"),
        yaxis2=dict(title="count - true count", domain=[0.46, 0.64], anchor="x2", zeroline=False),
        xaxis3=log_axis(widths, title="range width (bins)", domain=[0, 1], anchor="y3"),
        yaxis3=log_axis(*mse_shown, title="mean squared error", domain=[0.0, 0.34], anchor="x3"),
        annotations=[head("true histogram and one release (leaves)", 1.0),
                     head(f"minimal cover of [{cov.start}, {cov.stop}): error of each node's count, noisy and after "
                          f"inference | range error: H_{b} {_signed(a['tree'] - a['truth'])}, H_{b}+CI "
                          f"{_signed(a['tree_ci'] - a['truth'])}", 0.64),
                     head(f"MSE vs range width ({c.trials} trials): mean of the simulations with their "
                          f"{c.band[0]:g}-{c.band[1]:g} % range (bars), exact curve (line)", 0.34)],
        shapes=[dict(type="rect", xref="x", yref="paper", x0=cov.start - 0.5, x1=cov.stop - 0.5, y0=0.76, y1=1.0,
                     fillcolor="rgba(0,0,0,0.07)", line=dict(width=0), layer="below")],
    )
    return traces, layout
