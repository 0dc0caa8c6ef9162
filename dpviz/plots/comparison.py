"""Figures for the data-aware lecture: algorithms side by side, error profiles and learned partitions.

Pure drawing: the numbers come from :mod:`dpviz.experiments.comparison`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from dpviz.data_aware import Partition
from dpviz.experiments.comparison import ComparisonTable, ExplorerResult
from dpviz.plots.bands import mpl_band, new_axes
from dpviz.plots.palette import PALETTE, TEMPLATE, TRUTH, band_fill
from dpviz.plots.readability import DASHES, MPL_LINESTYLES, direct_labels, log_axis

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "ALGORITHM_COLORS",
    "algorithm_color",
    "explorer_title",
    "explorer_figure",
    "explorer_figure_spec",
    "comparison_axes",
    "partition_axes",
    "mwem_rounds_axes",
    "explorer_axes",
]

#: One colour per compared algorithm (Okabe-Ito palette plus its neutral grey; Uniform in black, the baseline).
ALGORITHM_COLORS = {
    "Identity": PALETTE["orange"], "H_b": PALETTE["blue"], "Privelet": PALETTE["purple"],
    "GreedyH": PALETTE["sky"], "Uniform": PALETTE["black"], "MWEM": PALETTE["green"],
    "DAWA": PALETTE["vermillion"], "DAWA-H2": PALETTE["grey"],
}


def algorithm_color(name: str) -> str:
    """The colour of an algorithm in every comparison figure.

    Parameters
    ----------
    name : str
        An algorithm's name (a key of :data:`ALGORITHM_COLORS`).

    Returns
    -------
    str
        Its hex colour; black for an unknown name.
    """
    return ALGORITHM_COLORS.get(name, PALETTE["black"])


def _scale_text(r: ExplorerResult) -> str:
    """How the data's scale was set, in words."""
    return "real counts" if r.scale is None else f"{r.scale:,.0f} records sampled"


def explorer_title(r: ExplorerResult) -> str:
    """Title stating every parameter of the explorer figure.

    Parameters
    ----------
    r : ExplorerResult
        The explorer's result.

    Returns
    -------
    str
        Data, domain, scale, workload, epsilon and trials in one line.
    """
    return (f"{r.source}: n = {r.n}, {_scale_text(r)} (scale {r.x.sum():,.0f}); workload {r.workload}; "
            f"epsilon = {r.epsilon:.3g}; {r.trials} trials per algorithm")


def _band_polygon(x: ArrayLike, lower: ArrayLike, upper: ArrayLike, *, name: str, color: str, group: str,
                  xaxis: str, yaxis: str) -> dict[str, Any]:
    """A filled plotly polygon (as a dict) between ``lower`` and ``upper`` along ``x``."""
    x = np.asarray(x, dtype=float)
    return dict(type="scatter", x=np.concatenate([x, x[::-1]]),
                y=np.concatenate([np.asarray(upper), np.asarray(lower)[::-1]]), fill="toself",
                fillcolor=band_fill(color, 0.15), line=dict(width=0, color=color), mode="lines", name=name,
                legendgroup=group, showlegend=False, hoverinfo="skip", xaxis=xaxis, yaxis=yaxis)


def explorer_figure(r: ExplorerResult) -> go.Figure:
    """The explorer's three panels (one figure, three stacked axes); see :func:`explorer_figure_spec`.

    Parameters
    ----------
    r : ExplorerResult
        The explorer's result.

    Returns
    -------
    plotly.graph_objects.Figure
        The figure.
    """
    traces, layout = explorer_figure_spec(r)
    return go.Figure(data=traces, layout=layout)


def explorer_figure_spec(r: ExplorerResult) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Traces and layout of the explorer figure as plain dicts (so a redraw can patch arrays in place).

    1. DPBench scaled error per algorithm: mean over trials (marker) and the
       band over trials (error bar), log scale.
    2. Mean absolute error per query (queries sorted by width, averaged in
       groups), mean and band over trials, log scale.
    3. The data, DAWA's learned partition (bucket boundaries and the bucket
       means of the true data) and the first release of DAWA and MWEM.

    Parameters
    ----------
    r : ExplorerResult
        The explorer's result.

    Returns
    -------
    traces : list of dict
        The traces, in drawing order.
    layout : dict
        The layout (three stacked axes, titles and legend).
    """
    lo, hi = r.band
    names = list(r.algorithms)
    traces: list[dict[str, Any]] = []
    means = [float(r.runs[a].scaled_errors.mean()) for a in names]
    lows = [float(np.percentile(r.runs[a].scaled_errors, lo)) for a in names]
    highs = [float(np.percentile(r.runs[a].scaled_errors, hi)) for a in names]
    cols = [algorithm_color(a) for a in names]
    m, l, u = np.array(means), np.array(lows), np.array(highs)
    traces.append(dict(
        type="scatter", x=names, y=m, mode="markers", name="scaled error", showlegend=False, xaxis="x", yaxis="y",
        marker=dict(color=cols, size=12, symbol="diamond"),
        error_y=dict(type="data", symmetric=False, array=u - m, arrayminus=m - l, color="#555555", thickness=1.5,
                     width=8),
        customdata=np.stack([l, u, [float(r.runs[a].rmse.mean()) for a in names],
                             [r.runs[a].seconds * 1e3 for a in names]], axis=-1),
        hovertemplate=("<b>%{x}</b><br>scaled error %{y:.7~g}<br>" f"{lo:g}-{hi:g} % of trials: "
                       "[%{customdata[0]:.7~g}, %{customdata[1]:.7~g}]<br>RMSE per query %{customdata[2]:.7~g}"
                       "<br>%{customdata[3]:.1f} ms per release<extra></extra>")))
    for k, a in enumerate(names):
        c = algorithm_color(a)
        traces.append(_band_polygon(r.query_rank, r.profile_lower[a], r.profile_upper[a], name=f"{a} band",
                                    color=c, group=a, xaxis="x2", yaxis="y2"))
        # named at the line's end (direct labels below), not in the legend; a dash per algorithm beside its colour
        traces.append(dict(type="scatter", x=r.query_rank, y=r.profile_mean[a], mode="lines", name=a, legendgroup=a,
                           showlegend=False, line=dict(color=c, width=1.5, dash=DASHES[k % len(DASHES)]),
                           xaxis="x2", yaxis="y2",
                           customdata=r.query_width,
                           hovertemplate=f"{a}: mean |error| %{{y:.7~g}}<br>width %{{customdata:.0f}}<extra></extra>"))
    cells = np.arange(r.n)
    # the data panel goes on a log axis when the counts span more than two decades (NETTRACE: one 18k spike)
    positive = np.asarray(r.x, dtype=float)[np.asarray(r.x) > 0]
    log3 = bool(positive.size and positive.max() > 100 * np.median(positive))
    floor3 = float(positive.min()) / 2 if log3 else 0.0

    def drawn(y: ArrayLike) -> np.ndarray:
        """A dashed line's values: on the log axis a value <= 0 is a gap, not a plunge three axis lengths off the
        panel and back (plotly's clip), whose dashes cost hundreds of ms to paint on every redraw."""
        y = np.asarray(y, dtype=float)
        return np.where(y > 0, y, np.nan) if log3 else y

    traces.append(dict(type="scatter", x=cells, y=r.x, mode="lines", name="true histogram", line=dict(color=TRUTH,
                       width=1, shape="hvh"), xaxis="x3", yaxis="y3",
                       hovertemplate="cell %{x}: %{y:.0f}<extra>truth</extra>"))
    title3 = "the data"
    if r.partition is not None and r.partition_algorithm is not None:  # set together by the explorer run
        part = r.partition
        c = algorithm_color(r.partition_algorithm)
        bucket_means = part.expand(part.aggregate(r.x))
        traces.append(dict(type="scatter", x=cells, y=drawn(bucket_means), mode="lines", line=dict(color=c, width=2,
                           shape="hvh", dash="dot"), name=f"{r.partition_algorithm} buckets (true bucket means)",
                           legendgroup="partition", xaxis="x3", yaxis="y3",
                           hovertemplate="cell %{x}: bucket mean %{y:.7~g}<extra></extra>"))
        top = float(max(r.x.max(), 1.0))
        bx = np.repeat(part.boundaries - 0.5, 3).astype(float)
        by = np.tile([floor3, top, np.nan], part.boundaries.size)
        bx[2::3] = np.nan
        traces.append(dict(type="scatter", x=bx, y=by, mode="lines", line=dict(color=c, width=0.6),
                           name=f"{r.partition_algorithm} bucket boundaries", legendgroup="partition",
                           showlegend=False, hoverinfo="skip", xaxis="x3", yaxis="y3"))
        traces.append(dict(type="scatter", x=cells, y=drawn(r.estimates[r.partition_algorithm]), mode="lines",
                           line=dict(color=c, width=1, dash="dash"), opacity=0.7,
                           name=f"{r.partition_algorithm} release",
                           legendgroup="partition", xaxis="x3", yaxis="y3",
                           hovertemplate="cell %{x}: %{y:.7~g}<extra>release</extra>"))
        title3 = f"the data and {r.partition_algorithm}'s learned partition ({part.n_buckets} buckets, first trial)"
    if "MWEM" in r.estimates:
        traces.append(dict(type="scatter", x=cells, y=drawn(r.estimates["MWEM"]), mode="lines",
                           line=dict(color=algorithm_color("MWEM"), width=1, dash="dashdot"), opacity=0.7,
                           name="MWEM release",
                           xaxis="x3", yaxis="y3", hovertemplate="cell %{x}: %{y:.7~g}<extra>MWEM</extra>"))

    def head(text: str, y: float) -> dict[str, Any]:
        return dict(text=text, x=0.5, y=y, xref="paper", yref="paper", showarrow=False, font=dict(size=12),
                    xanchor="center", yanchor="bottom")

    profile = [np.asarray(r.profile_mean[a], dtype=float) for a in names]
    ends = [float(p[-1]) if p.size else float("nan") for p in profile]
    shown2 = [r.profile_lower[a] for a in names] + [r.profile_upper[a] for a in names] + profile
    finite2 = np.concatenate([np.ravel(v) for v in shown2]) if shown2 else np.zeros(0)
    finite2 = finite2[np.isfinite(finite2) & (finite2 > 0)]
    decades = float(np.log10(finite2.max() / finite2.min())) if finite2.size else 1.0
    traces.append(direct_labels(names, float(np.max(r.query_rank)) if len(r.query_rank) else 0.0, ends,
                                [algorithm_color(a) for a in names], xaxis="x2", yaxis="y2", log=True,
                                min_gap=max(decades, 0.5) / 11))
    layout = dict(
        title=dict(text=explorer_title(r), font=dict(size=13)), template=TEMPLATE, height=960,
        margin=dict(l=80, r=90, t=80, b=120), legend=dict(orientation="h", yanchor="top", y=-0.07, font=dict(size=10)),
        xaxis=dict(type="category", domain=[0, 1], anchor="y"),
        yaxis=log_axis(l, u, m, title="scaled error per query", domain=[0.72, 1.0], anchor="x"),
        xaxis2=dict(title="query (sorted by width)", domain=[0, 1], anchor="y2"),
        yaxis2=log_axis(*shown2, title="mean |error| (counts)", domain=[0.41, 0.63], anchor="x2"),
        xaxis3=dict(title="cell", domain=[0, 1], anchor="y3"),
        yaxis3=(log_axis(positive, title="count (log scale; dashed lines: counts <= 0 not drawn)", domain=[0.0, 0.27],
                         anchor="x3") if log3 else
                dict(title="count", type="linear", domain=[0.0, 0.27], anchor="x3")),
        annotations=[head(f"DPBench scaled error ||W x_hat - W x||_2 / (m * scale): mean and {lo:g}-{hi:g} % of "
                          "trials (lower is better)", 1.0),
                     head(f"error per query: mean over trials and {lo:g}-{hi:g} % band", 0.63),
                     head(title3, 0.27)],
    )
    return traces, layout


# --------------------------------------------------------------------------- matplotlib (static)
def comparison_axes(table: ComparisonTable, epsilon: float, ax: Axes | None = None, *,
                    algorithms: Sequence[str] | None = None) -> Axes:
    """Dot chart of one epsilon's mean scaled error: one row per dataset, one marker per algorithm (log x).

    The lowest error of each row is circled.

    Parameters
    ----------
    table : ComparisonTable
        The result of :func:`dpviz.experiments.comparison.run_comparison`.
    epsilon : float
        One of the table's epsilons.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).
    algorithms : sequence of str, optional
        The algorithms to show (default: all of the table's).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        If ``epsilon`` is not one of the table's epsilons.
    """
    e = float(epsilon)
    if e not in table.epsilons:
        raise ValueError(f"epsilon must be one of {table.epsilons}, got {epsilon}")
    algs = list(algorithms or table.algorithms)
    ax = new_axes(ax, figsize=(7.0, min(0.25 * len(table.datasets) + 1.2, 5.0)))
    y = np.arange(len(table.datasets))[::-1]
    best = table.winners()
    for a in algs:
        vals = [table.mean_error(a, d, e) for d in table.datasets]
        ax.plot(vals, y, "o", ms=5, color=algorithm_color(a), label=a, alpha=0.9)
    for yi, d in zip(y, table.datasets, strict=True):
        w = best[(d, e)]
        if w in algs:
            ax.plot(table.mean_error(w, d, e), yi, "o", ms=11, mfc="none", mec=algorithm_color(w), mew=1.5)
    ax.set_yticks(y, list(table.datasets))
    ax.set_xscale("log")
    ax.set_xlabel("mean scaled error per query (log scale; lower is better)")
    ax.set_title(f"epsilon = {e:g}, workload {table.workload.name}, n = {table.workload.n}; circled = lowest")
    ax.legend(ncol=4, loc="lower center", bbox_to_anchor=(0.5, 1.06))
    ax.grid(axis="x", alpha=0.3)
    return ax


def partition_axes(x: ArrayLike, partition: Partition, estimate: ArrayLike | None = None, ax: Axes | None = None, *,
                   title: str | None = None, color: str | None = None) -> Axes:
    """The data, a partition's buckets (true bucket means, boundaries) and optionally a release.

    Parameters
    ----------
    x : array_like, shape (n,)
        The true histogram.
    partition : Partition
        A partition of the n cells (e.g. DAWA's learned one).
    estimate : array_like, shape (n,), optional
        A released histogram to draw over the data.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).
    title : str, optional
        Title (default: the number of buckets).
    color : str, optional
        Colour of the buckets and the release (default: DAWA's).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    x = np.asarray(x, dtype=float)
    cells = np.arange(x.size)
    col = color or algorithm_color("DAWA")
    ax.step(cells, x, where="mid", color=TRUTH, lw=0.8, label="true histogram")
    ax.step(cells, partition.expand(partition.aggregate(x)), where="mid", color=col, lw=1.8, ls=":",
            label=f"bucket means ({partition.n_buckets} buckets)")
    for b in partition.boundaries:
        ax.axvline(b - 0.5, color=col, lw=0.4, alpha=0.6)
    if estimate is not None:
        ax.plot(cells, estimate, "-", color=col, lw=0.8, alpha=0.7, label="release")
    ax.set_xlabel("cell")
    ax.set_ylabel("count")
    ax.set_title(title or f"learned partition: {partition.n_buckets} buckets")
    ax.legend()
    return ax


def mwem_rounds_axes(rounds: ArrayLike, mean: ArrayLike, lower: ArrayLike, upper: ArrayLike, ax: Axes | None = None,
                     *, title: str | None = None) -> Axes:
    """Error of MWEM's estimate after each round: mean over runs and a band.

    Parameters
    ----------
    rounds : array_like, shape (T+1,)
        Round numbers (0 = the uniform start).
    mean : array_like, shape (T+1,)
        Mean RMSE per query after each round.
    lower : array_like, shape (T+1,)
        Lower edge of the band.
    upper : array_like, shape (T+1,)
        Upper edge of the band.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).
    title : str, optional
        Title (default: "MWEM: error after each round").

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    c = algorithm_color("MWEM")
    mpl_band(ax, rounds, lower, upper, color=c, label="band over runs", alpha=0.2)
    ax.plot(rounds, mean, "o-", color=c, ms=3, label="mean over runs")
    ax.set_xlabel("round t (0 = uniform start)")
    ax.set_ylabel("RMSE per query")
    ax.set_yscale("log")
    ax.set_title(title or "MWEM: error after each round")
    ax.legend()
    return ax


def explorer_axes(r: ExplorerResult, axes: Sequence[Axes] | None = None) -> list[Axes]:
    """Static (matplotlib) version of :func:`explorer_figure`: three panels, returns the three Axes.

    Parameters
    ----------
    r : ExplorerResult
        The explorer's result.
    axes : sequence of three matplotlib.axes.Axes, optional
        Axes to draw on (default: two new figures, the first two panels side by side and the data below).

    Returns
    -------
    list of matplotlib.axes.Axes
        The three axes drawn on.
    """
    if axes is None:
        import matplotlib.pyplot as plt

        fig, (top1, top2) = plt.subplots(1, 2, figsize=(11.6, 4.4), layout="constrained")
        fig.suptitle(explorer_title(r).replace("; ", ";\n", 1))   # two lines: the slide's width
        axes = [top1, top2, plt.subplots(figsize=(11.6, 3.2), layout="constrained")[1]]
    ax1, ax2, ax3 = axes
    lo, hi = r.band
    for i, a in enumerate(r.algorithms):
        s = r.runs[a].scaled_errors
        m, (l, u) = s.mean(), np.percentile(s, [lo, hi])
        ax1.errorbar([i], [m], yerr=[[m - l], [u - m]], fmt="D", color=algorithm_color(a), capsize=4)
    ax1.set_xticks(range(len(r.algorithms)), list(r.algorithms), rotation=30, ha="right")
    ax1.set_yscale("log")
    ax1.set_ylabel("scaled error")
    ax1.set_title(f"scaled error: mean and {lo:g}-{hi:g} % of trials")
    for k, a in enumerate(r.algorithms):
        c = algorithm_color(a)
        # no legend entry for the band: mpl_band is annotated label: str, but None is what matplotlib needs here
        mpl_band(ax2, r.query_rank, r.profile_lower[a], r.profile_upper[a], color=c,
                 label=None, alpha=0.15)  # type: ignore[arg-type]
        ax2.plot(r.query_rank, r.profile_mean[a], color=c, lw=1, label=a,
                 linestyle=MPL_LINESTYLES[k % len(MPL_LINESTYLES)])   # a dash beside the colour, as in the explorer
    ax2.set(yscale="log", xlabel="query (sorted by width)", ylabel="mean |error|",
            title=f"error per query: mean and {lo:g}-{hi:g} % band")
    ax2.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))   # beside the panel: inside it would hide the lines
    if r.partition is not None and r.partition_algorithm is not None:  # set together by the explorer run
        partition_axes(r.x, r.partition, r.estimates[r.partition_algorithm], ax=ax3,
                       color=algorithm_color(r.partition_algorithm),
                       title=f"{r.source}: {r.partition_algorithm}'s learned partition (first trial)")
    else:
        ax3.step(np.arange(r.n), r.x, where="mid", color=TRUTH, lw=0.8)
        ax3.set_title("the data")
    return [ax1, ax2, ax3]
