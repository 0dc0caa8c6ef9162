"""Figures for the hierarchies lecture (pure drawing: numbers come from dpviz.experiments.hierarchy)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from dpviz.experiments.hierarchy import METHOD_LABELS, BranchingStudy, HierarchyRun, WidthCurves
from dpviz.plots.bands import mpl_band, new_axes
from dpviz.plots.palette import ALT, PALETTE, SIMULATED, TEMPLATE, THEORY, TRUTH, band_fill, color

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "METHOD_COLORS",
    "curves_title",
    "add_width_traces",
    "width_curves_figure",
    "explorer_figure",
    "width_curves_axes",
    "release_axes",
    "cover_axes",
    "branching_axes",
    "allocation_axes",
    "dimension_axes",
    "level_variance_axes",
]

#: Colour of each method key of :data:`dpviz.experiments.hierarchy.METHODS`.
METHOD_COLORS = {"flat": PALETTE["orange"], "tree": PALETTE["blue"], "tree_ci": PALETTE["green"],
                 "wavelet": PALETTE["purple"]}


def _label(method: str, b: int) -> str:
    """Legend label of a method with the branching factor filled in (``H_b`` -> ``H_16``)."""
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
        name = _label(m, c.branching)
        mean = _line(c.widths, c.simulated[m], name=f"{name}: simulated mean", color=col_m, mode="markers",
                     legendgroup=m, xaxis=xaxis, yaxis=yaxis)
        if band_style == "bars":
            mean["name"] = f"{name}: simulated mean, {lo:g}-{hi:g} % of trials"
            mean["error_y"] = dict(type="data", symmetric=False, array=c.upper[m] - c.simulated[m],
                                   arrayminus=c.simulated[m] - c.lower[m], color=col_m, thickness=1.2, width=3)
        else:
            out.append(_band_polygon(c.widths, c.lower[m], c.upper[m], name=f"{name}: {lo:g}-{hi:g} % of trials",
                                     color=col_m, legendgroup=m, xaxis=xaxis, yaxis=yaxis))
        out.append(mean)
        out.append(_line(c.widths, c.analytic[m], name=f"{name}: exact", color=col_m, legendgroup=m, xaxis=xaxis,
                         yaxis=yaxis))
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
    fig.update_layout(title=curves_title(c), xaxis=dict(title="range width (bins)", type="log"),
                      yaxis=dict(title="mean squared error", type="log"), template=TEMPLATE, height=450)
    return fig


def explorer_figure(run: HierarchyRun) -> go.Figure:
    """The explorer's three panels: histogram and one release; cover nodes before/after inference; MSE vs width.

    Built as one figure with three stacked axes (no ``make_subplots``) and the small shared
    template, so a redraw stays cheap.

    Parameters
    ----------
    run : HierarchyRun
        What to draw (from :func:`dpviz.experiments.hierarchy.hierarchy_explorer_run`).

    Returns
    -------
    plotly.graph_objects.Figure
        The three-panel figure.
    """
    c = run.curves
    b = c.branching
    cov = run.cover
    n = run.truth.size
    x = np.arange(n)
    shown = run.ci_leaves if run.constrained else run.noisy_leaves
    key = "tree_ci" if run.constrained else "tree"
    which = f"H_{b} leaves after constrained inference" if run.constrained else f"H_{b} noisy leaves"
    labels = [f"L{lv} [{s}, {e})" for lv, s, e in zip(cov.level, cov.node_start, cov.node_stop, strict=True)]
    k = np.arange(len(labels))
    traces = [
        dict(type="scatter", x=x, y=shown, mode="lines", name=which, legendgroup=key,
                   line=dict(color=METHOD_COLORS[key], width=1),
                   hovertemplate="bin %{x}: %{y:.7~g}<extra>" + which + "</extra>"),
        dict(type="scatter", x=x, y=run.truth, mode="lines", name="true histogram", line=dict(color=TRUTH, width=1.5),
                   hovertemplate="bin %{x}: %{y:.7~g}<extra>truth</extra>"),
        dict(type="scatter", x=k, y=cov.truth, mode="markers", name="true node count", showlegend=False,
                   marker=dict(color=TRUTH, symbol="diamond", size=9), text=labels,
                   hovertemplate="%{text}: true %{y:.7~g}<extra></extra>", xaxis="x2", yaxis="y2"),
        dict(type="scatter", x=k - 0.15, y=cov.noisy, mode="markers", name="cover node: noisy (before)",
                   marker=dict(color=METHOD_COLORS["tree"], size=8), text=labels,
                   hovertemplate="%{text}: noisy %{y:.7~g}<extra></extra>", xaxis="x2", yaxis="y2"),
        dict(type="scatter", x=k + 0.15, y=cov.consistent, mode="markers",
                   name="cover node: after constrained inference",
                   marker=dict(color=METHOD_COLORS["tree_ci"], size=8, symbol="square"), text=labels,
                   hovertemplate="%{text}: after CI %{y:.7~g}<extra></extra>", xaxis="x2", yaxis="y2"),
        *_width_traces(c, "x3", "y3", band_style="bars"),
    ]
    a = run.answers
    root = "measured" if c.measure_root else "not measured"

    def head(text: str, y: float) -> dict[str, Any]:
        return dict(text=text, x=0.5, y=y, xref="paper", yref="paper", showarrow=False, font=dict(size=12),
                    xanchor="center", yanchor="bottom")

    layout = dict(
        title=dict(text=(f"Hierarchical histogram, n = {n}, b = {b}, epsilon = {c.epsilon:.3g}, {c.allocation} "
                         f"budget, root {root} | range [{cov.start}, {cov.stop}): true {a['truth']:.0f}, "
                         f"Flat {a['flat']:.0f}, H_{b} {a['tree']:.0f}, H_{b}+CI {a['tree_ci']:.0f}"),
                   font=dict(size=13)),
        template=TEMPLATE, height=980, margin=dict(l=60, r=20, t=90, b=100),
        legend=dict(orientation="h", yanchor="top", y=-0.07, font=dict(size=10)),
        xaxis=dict(title="bin", domain=[0, 1], anchor="y"), yaxis=dict(title="count", domain=[0.76, 1.0], anchor="x"),
        xaxis2=dict(title="cover node (level, leaf range)", tickmode="array", tickvals=k, ticktext=labels,
                    domain=[0, 1], anchor="y2"),
        yaxis2=dict(title="count", domain=[0.46, 0.64], anchor="x2"),
        xaxis3=dict(title="range width (bins)", type="log", domain=[0, 1], anchor="y3"),
        yaxis3=dict(title="mean squared error", type="log", domain=[0.0, 0.34], anchor="x3"),
        annotations=[head("true histogram and one release (leaves)", 1.0),
                     head(f"minimal cover of [{cov.start}, {cov.stop}): node counts before / after constrained "
                          "inference", 0.64),
                     head(f"MSE vs range width ({c.trials} trials): mean of the simulations with their "
                          f"{c.band[0]:g}-{c.band[1]:g} % range (bars), exact curve (line)", 0.34)],
        shapes=[dict(type="rect", xref="x", yref="paper", x0=cov.start - 0.5, x1=cov.stop - 0.5, y0=0.76, y1=1.0,
                     fillcolor="rgba(0,0,0,0.07)", line=dict(width=0), layer="below")],
    )
    # traces are plain dicts built here; skipping plotly's re-validation keeps a redraw within budget
    return go.Figure(data=traces, layout=layout, _validate=False)


# --------------------------------------------------------------------------- matplotlib (static) versions
def width_curves_axes(c: WidthCurves, ax: Axes | None = None, *, bands: bool = True,
                      colors: Mapping[str, str] | None = None, title: str | None = None) -> Axes:
    """Static MSE-vs-width figure: exact lines, simulated means (markers) and bands, log-log.

    Parameters
    ----------
    c : WidthCurves
        Exact and simulated error by range width.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes).
    bands : bool, default True
        Shade the simulated percentile band of each method.
    colors : mapping of str to str, optional
        Colour per method key, overriding :data:`METHOD_COLORS` (to draw several
        WidthCurves on one axes).
    title : str, optional
        Axes title (default :func:`curves_title` plus the band).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    lo, hi = c.band
    for m in c.methods:
        col_m = (colors or {}).get(m, METHOD_COLORS[m])
        name = _label(m, c.branching)
        if bands:
            mpl_band(ax, c.widths, c.lower[m], c.upper[m], color=col_m, label="_nolegend_", alpha=0.15)
        ax.plot(c.widths, c.analytic[m], "-", color=col_m, label=f"{name} (exact)")
        ax.plot(c.widths, c.simulated[m], "o", color=col_m, ms=3.5, label=f"{name} (simulated)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("range width (bins)")
    ax.set_ylabel("mean squared error")
    ax.set_title(title if title is not None else curves_title(c) + (f"; bands {lo:g}-{hi:g} %" if bands else ""),
                 fontsize=8)
    ax.legend(fontsize=7, ncol=2)
    return ax


def release_axes(run: HierarchyRun, ax: Axes | None = None) -> Axes:
    """Static view of the true histogram, a Flat release and the H_b leaves (raw or after inference).

    Parameters
    ----------
    run : HierarchyRun
        The explorer's computation.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    b = run.curves.branching
    x = np.arange(run.truth.size)
    ax.plot(x, run.flat, ".", ms=2, color=METHOD_COLORS["flat"], alpha=0.6, label="Flat release")
    shown = run.ci_leaves if run.constrained else run.noisy_leaves
    ax.plot(x, shown, "-", lw=0.8, color=METHOD_COLORS["tree_ci" if run.constrained else "tree"],
            label=f"H_{b} leaves" + (" after constrained inference" if run.constrained else " (noisy)"))
    ax.plot(x, run.truth, "-", lw=1.2, color=TRUTH, label="true histogram")
    ax.axvspan(run.cover.start - 0.5, run.cover.stop - 0.5, color="0.9", zorder=0, label="selected range")
    ax.set_xlabel("bin")
    ax.set_ylabel("count")
    ax.set_title(f"n = {run.truth.size}, b = {b}, epsilon = {run.curves.epsilon:.3g}", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def cover_axes(run: HierarchyRun, ax: Axes | None = None) -> Axes:
    """Static view of the selected range's cover nodes: true, noisy and consistent counts.

    Parameters
    ----------
    run : HierarchyRun
        The explorer's computation.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    cov = run.cover
    k = np.arange(cov.level.size)
    ax.plot(k, cov.truth, "D", color=TRUTH, label="true")
    ax.plot(k - 0.15, cov.noisy, "o", color=METHOD_COLORS["tree"], label="noisy (before)")
    ax.plot(k + 0.15, cov.consistent, "s", color=METHOD_COLORS["tree_ci"], label="after constrained inference")
    ax.set_xticks(k, [f"L{lv}\n[{s},{e})" for lv, s, e in zip(cov.level, cov.node_start, cov.node_stop, strict=True)],
                  fontsize=6)
    ax.set_ylabel("node count")
    ax.set_yscale("log")
    ax.set_title(f"minimal cover of [{cov.start}, {cov.stop})", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def branching_axes(study: BranchingStudy, ax: Axes | None = None) -> Axes:
    """Average range MSE vs branching factor: exact H_b, H_b + CI, Eq. (3), Flat, and simulations (+-2 s.e.).

    Parameters
    ----------
    study : BranchingStudy
        From :func:`dpviz.experiments.hierarchy.branching_study`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    b = study.branchings
    ax.plot(b, study.tree, "-", color=METHOD_COLORS["tree"], label="H_b exact")
    ax.plot(b, study.tree_ci, "-", color=METHOD_COLORS["tree_ci"], label="H_b + CI exact")
    if not study.measure_root and study.allocation == "uniform":
        ax.plot(b, study.eq3, "--", color=THEORY, lw=1, label="Qardaji Eq. (3)")
    ax.axhline(study.flat, color=METHOD_COLORS["flat"], ls=":", label="Flat exact")
    if np.any(np.isfinite(study.sim_tree)):
        ax.errorbar(b, study.sim_tree, yerr=2 * study.se_tree, fmt="o", ms=3, color=METHOD_COLORS["tree"],
                    label="H_b simulated (+-2 s.e.)")
        ax.errorbar(b, study.sim_tree_ci, yerr=2 * study.se_tree_ci, fmt="s", ms=3, color=METHOD_COLORS["tree_ci"],
                    label="H_b + CI simulated (+-2 s.e.)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("branching factor b")
    ax.set_ylabel("average MSE over all ranges")
    root = "root measured" if study.measure_root else "root not measured"
    ax.set_title(f"n = {study.n}, epsilon = {study.epsilon:.3g}, {study.allocation} budget, {root}", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def allocation_axes(study: Mapping[str, Mapping[str, np.ndarray]], branchings: ArrayLike, n: int, epsilon: float,
                    ax: Axes | None = None, *, measure_root: bool = True) -> Axes:
    """Average range MSE vs b for each budget allocation (solid: H_b, dashed: H_b + CI).

    Parameters
    ----------
    study : mapping
        From :func:`dpviz.experiments.hierarchy.allocation_study`.
    branchings : array_like of int
        The branching factors the study was computed for.
    n : int
        Number of leaves (for the title).
    epsilon : float
        Privacy budget (for the title).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes).
    measure_root : bool, default True
        Whether the root was measured (for the title).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    for t, (name, curves) in enumerate(study.items()):
        ax.plot(branchings, curves["tree"], "-o", ms=3, color=color(t), label=f"{name}: H_b")
        ax.plot(branchings, curves["tree_ci"], "--s", ms=3, color=color(t), label=f"{name}: H_b + CI")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("branching factor b")
    ax.set_ylabel("average MSE over all ranges")
    root = "root measured" if measure_root else "root not measured"
    ax.set_title(f"budget allocations, n = {n}, epsilon = {epsilon:.3g}, {root} (exact)", fontsize=9)
    ax.legend(fontsize=7, ncol=3)
    return ax


def dimension_axes(study: Mapping[int, Mapping[str, np.ndarray]], ax: Axes | None = None) -> Axes:
    """Best hierarchical / Flat average MSE vs number of cells, one line per dimension (< 1: hierarchy wins).

    Parameters
    ----------
    study : mapping
        From :func:`dpviz.experiments.hierarchy.dimension_study`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    for t, (d, r) in enumerate(sorted(study.items())):
        ax.plot(r["cells"], r["best_tree"] / r["flat"], "-o", ms=3, color=color(t), label=f"d = {d}")
    ax.axhline(1.0, color=TRUTH, lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of cells N = n^d")
    ax.set_ylabel("best H_b MSE / Flat MSE")
    ax.set_title("hierarchies vs Flat by dimension (exact, no inference)", fontsize=9)
    ax.legend(fontsize=8)
    return ax


def level_variance_axes(below: ArrayLike, above: ArrayLike, b: int, ax: Axes | None = None) -> Axes:
    """Algorithm 1's per-level variances (units of V_O) from below and from above.

    Parameters
    ----------
    below, above : array_like
        (h,) variances from :func:`dpviz.hierarchy.algorithm1_variances`, leaves first.
    b : int
        Branching factor (for the Proposition 4 bound and the title).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    lv = np.arange(1, len(np.asarray(below)) + 1)
    ax.plot(lv, below, "-o", color=SIMULATED, label="from below (after weighted averaging)")
    ax.plot(lv, above, "-s", color=ALT, label="from above")
    ax.axhline((b - 1) / (b + 1), color=THEORY, ls=":", label="(b-1)/(b+1): Prop. 4 bound")
    ax.set_xlabel("level (1 = leaves)")
    ax.set_ylabel("variance / V_O")
    ax.set_title(f"Algorithm 1, b = {b}", fontsize=9)
    ax.legend(fontsize=7)
    return ax
