"""Figures for the matrix-mechanism lecture: per-query errors, strategy comparison, strategy heat maps.

Pure drawing: every function takes numbers computed in
:mod:`dpviz.experiments.matrix_mechanism` and returns a plotly figure or matplotlib axes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from dpviz.experiments.matrix_mechanism import (
    ErrorByWidth,
    MatrixMechanismRun,
    QueryErrorExperiment,
    StrategyComparison,
)
from dpviz.plots.bands import new_axes
from dpviz.plots.palette import SIMULATED, TEMPLATE, THEORY, TRUTH, band_fill, color
from dpviz.plots.readability import log_axis

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "p_identity_axes",
    "matrix_mechanism_title",
    "matrix_mechanism_figure",
    "matrix_mechanism_figure_spec",
    "query_error_axes",
    "comparison_axes",
    "strategy_heatmap_axes",
    "error_by_width_axes",
]


def matrix_mechanism_title(run: MatrixMechanismRun) -> str:
    """Figure title stating workload, strategy and parameters.

    Parameters
    ----------
    run : MatrixMechanismRun
        One explorer update.

    Returns
    -------
    str
        The title.
    """
    e = run.experiment
    label = run.comparison.labels[run.comparison.names.index(run.strategy)]
    return (f"Matrix mechanism: {run.workload} (n = {run.n}, {e.predicted.size} queries), strategy {label}, "
            f"epsilon = {e.epsilon:.3g}, {e.trials} trials")


def matrix_mechanism_figure(run: MatrixMechanismRun) -> go.Figure:
    """Three panels: squared error of every query (simulated +- 2 s.e. vs exact), totals vs the bound, A.

    Top: for each workload query, the Monte Carlo mean squared error with a
    band of +-2 standard errors and the exact expected error
    ``(2/eps^2)||A||_1^2 w (A^T A)^{-1} w^T``.  Bottom left: the exact total
    error of every strategy (log scale, the selected one highlighted) above the
    SVD lower bound (dashed).  Bottom right: the strategy matrix as a heat map.

    Parameters
    ----------
    run : MatrixMechanismRun
        One explorer update.

    Returns
    -------
    plotly.graph_objects.Figure
        The three-panel figure.

    Raises
    ------
    TypeError
        If ``run`` is not a :class:`~dpviz.experiments.matrix_mechanism.MatrixMechanismRun`.

    Examples
    --------
    >>> from dpviz.experiments.matrix_mechanism import matrix_mechanism_explorer_run
    >>> fig = matrix_mechanism_figure(matrix_mechanism_explorer_run("prefix", "identity", 4, 1.0, 20, rng=0))
    >>> [t.type for t in fig.data]
    ['scatter', 'scatter', 'scatter', 'bar', 'scatter', 'heatmap']
    """
    traces, layout = matrix_mechanism_figure_spec(run)
    return go.Figure(data=traces, layout=layout)


def matrix_mechanism_figure_spec(run: MatrixMechanismRun) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """:func:`matrix_mechanism_figure` as plain dicts, so that a redraw sends only the arrays that changed.

    Parameters
    ----------
    run : MatrixMechanismRun
        One explorer update.

    Returns
    -------
    traces : list of dict
        The six traces (band, simulated, exact, totals, lower bound, heat map), in drawing order.
    layout : dict
        The layout (three panels, title and legend).

    Raises
    ------
    TypeError
        If ``run`` is not a :class:`~dpviz.experiments.matrix_mechanism.MatrixMechanismRun`.

    Examples
    --------
    >>> from dpviz.experiments.matrix_mechanism import matrix_mechanism_explorer_run
    >>> traces, layout = matrix_mechanism_figure_spec(
    ...     matrix_mechanism_explorer_run("prefix", "identity", 4, 1.0, 20, rng=0))
    >>> traces[2]["name"], traces[2]["y"].tolist()   # prefix i sums i + 1 cells of variance 2
    ('exact expected error', [2.0, 4.0, 6.0, 8.0])
    """
    if not isinstance(run, MatrixMechanismRun):
        raise TypeError(f"run must be a MatrixMechanismRun (from matrix_mechanism_explorer_run), "
                        f"got {type(run).__name__}")
    e = run.experiment
    c = run.comparison
    m = e.predicted.size
    q = np.arange(1, m + 1)
    lo, hi = np.maximum(e.simulated - 2 * e.stderr, 0.0), e.simulated + 2 * e.stderr

    def line(y: np.ndarray, name: str, colour: str, mode: str) -> dict[str, Any]:
        return dict(type="scatter", x=q, y=np.asarray(y, dtype=float), mode=mode, name=name,
                    line=dict(color=colour), marker=dict(color=colour),
                    hovertemplate=f"{name}: %{{y:.7~g}}<extra></extra>")

    sel = c.names.index(run.strategy)
    A = run.matrix
    lim = float(np.abs(A).max()) or 1.0
    traces: list[dict[str, Any]] = [
        # the band as one closed polygon (one trace instead of two keeps the in-place redraw cheap)
        dict(type="scatter", x=np.concatenate([q, q[::-1]]), y=np.concatenate([hi, lo[::-1]]), fill="toself",
             fillcolor=band_fill(SIMULATED), line=dict(width=0, color=SIMULATED), mode="lines",
             name="simulated +- 2 s.e.", hoverinfo="skip"),
        line(e.simulated, "simulated mean squared error", SIMULATED, "markers"),
        line(e.predicted, "exact expected error", THEORY, "lines"),
        dict(type="bar", x=list(c.labels), y=np.asarray(c.total_error, dtype=float),
             marker=dict(color=[THEORY if i == sel else "#9AA5B1" for i in range(len(c.names))]),
             name="total error", showlegend=False, xaxis="x2", yaxis="y2", customdata=np.asarray(c.ratio),
             hovertemplate="%{x}: %{y:.7~g} (%{customdata:.7~g} x bound)<extra></extra>"),
        dict(type="scatter", x=list(c.labels), y=np.full(len(c.names), c.lower_bound), mode="lines",
             line=dict(color=TRUTH, dash="dash"), name="SVD lower bound", xaxis="x2", yaxis="y2",
             hovertemplate=f"lower bound {c.lower_bound:.7g}<extra></extra>"),
        dict(type="heatmap", z=A, zmin=-lim, zmax=lim, colorscale="RdBu", reversescale=True, xaxis="x3",
             yaxis="y3", showscale=False, name="strategy matrix",
             hovertemplate="row %{y}, cell %{x}: %{z:.7~g}<extra></extra>"),
    ]
    layout = dict(
        title=dict(text=matrix_mechanism_title(run), font=dict(size=14), y=0.985, yanchor="top"), height=740,
        template=TEMPLATE, margin=dict(l=90, r=20, t=95, b=110),
        legend=dict(orientation="h", y=1.02, x=0.0, yanchor="bottom"),
        xaxis=dict(domain=[0.0, 1.0], anchor="y", title=dict(text="workload query (workload order)")),
        yaxis=dict(domain=[0.6, 0.97], title=dict(text="squared error"), rangemode="tozero"),
        xaxis2=dict(domain=[0.0, 0.55], anchor="y2", tickangle=-35),
        yaxis2=log_axis(c.total_error, [c.lower_bound], domain=[0.0, 0.42], anchor="x2",
                        title=dict(text="total expected error")),
        xaxis3=dict(domain=[0.64, 1.0], anchor="y3", title=dict(text="cell")),
        yaxis3=dict(domain=[0.0, 0.42], anchor="x3", autorange="reversed",
                    title=dict(text=f"strategy row ({A.shape[0]})")),
    )
    return traces, layout


def query_error_axes(exp: QueryErrorExperiment, ax: Axes | None = None, *, title: str | None = None) -> Axes:
    """Static version of the top panel: simulated squared error (+- 2 s.e.) and exact error per query.

    Parameters
    ----------
    exp : QueryErrorExperiment
        Simulated and exact per-query errors.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).
    title : str, optional
        Title (default: strategy and epsilon).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    q = np.arange(1, exp.predicted.size + 1)
    ax.fill_between(q, np.maximum(exp.simulated - 2 * exp.stderr, 0), exp.simulated + 2 * exp.stderr,
                    color=SIMULATED, alpha=0.2, linewidth=0, label="simulated +- 2 s.e.")
    ax.plot(q, exp.simulated, ".", color=SIMULATED, label=f"simulated MSE ({exp.trials} trials)")
    ax.plot(q, exp.predicted, "-", color=THEORY, label="exact expected error")
    ax.set_xlabel("workload query")
    ax.set_ylabel("squared error")
    # head room above the data for the legend (two columns), so that it hides no query's error
    ax.set_ylim(0, 1.4 * float(max(np.max(exp.simulated + 2 * exp.stderr), np.max(exp.predicted), 0) or 1))
    ax.set_title(title or f"strategy {exp.strategy}, epsilon = {exp.epsilon:.3g}")
    ax.legend(loc="upper center", ncol=2)
    return ax


def comparison_axes(comp: StrategyComparison, ax: Axes | None = None, *, highlight: str | None = None) -> Axes:
    """Horizontal bars: each strategy's total error as a multiple of the SVD lower bound (log scale).

    Parameters
    ----------
    comp : StrategyComparison
        Totals and lower bound of one workload.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).
    highlight : str, optional
        Strategy key drawn in the theory colour.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(6.5, 3.6))
    y = np.arange(len(comp.names))
    # the bars are told apart by their labels; colour only marks the highlighted one
    cols = [THEORY if nm == highlight else "#9AA5B1" for nm in comp.names]
    ax.barh(y, comp.ratio, color=cols)
    ax.axvline(1.0, color=TRUTH, ls="--", lw=1)   # named in the axis label: a legend would hide a bar's value
    ax.set_yticks(y, comp.labels)
    ax.invert_yaxis()
    ax.set_xscale("log")
    lo, top = ax.get_xlim()[0], float(np.max(comp.ratio))
    ax.set_xlim(lo, top * (top / lo) ** 0.4)   # room right of the longest bar for its value
    ax.set_xlabel("total error / SVD lower bound (dashed: the bound)")
    mech = "Laplace" if comp.delta is None else f"Gaussian, delta = {comp.delta:g}"
    ax.set_title(f"{comp.workload}, n = {comp.n} ({mech})")
    for yi, r in zip(y, comp.ratio, strict=True):
        ax.text(float(r), float(yi), f" {r:.3g}", va="center")
    return ax


def strategy_heatmap_axes(A: Any, ax: Axes | None = None, *, title: str = "strategy matrix") -> Axes:
    """Heat map of a strategy matrix (red positive, blue negative, white zero).

    Parameters
    ----------
    A : array_like or scipy.sparse matrix
        The strategy (p x n).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).
    title : str, default "strategy matrix"
        Title.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(3.6, 3.6))
    M = A.toarray() if hasattr(A, "toarray") else np.asarray(A, dtype=float)
    lim = float(np.abs(M).max()) or 1.0
    im = ax.imshow(M, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto", interpolation="nearest")
    ax.figure.colorbar(im, ax=ax, shrink=0.8)
    from matplotlib.ticker import MaxNLocator  # lazily: an explorer's kernel never loads matplotlib

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))      # rows and cells are counted, never at -0.5
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("cell")
    ax.set_ylabel("strategy row")
    ax.set_title(title)
    return ax


def p_identity_axes(A: Any, ax: Axes | None = None, *, title: str | None = None) -> Axes:
    """The rows of a p-Identity strategy ``[I; Theta] D`` as curves: each free query's weights over the cells,
    and (dashed) the weight each cell's own identity query keeps.

    Parameters
    ----------
    A : array_like or scipy.sparse matrix
        A p-Identity strategy, ``n + p`` rows over ``n`` cells (:func:`dpviz.strategies.p_identity`).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).
    title : str, optional
        Title (default: the number of free queries).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(7.0, 3.2))
    M = A.toarray() if hasattr(A, "toarray") else np.asarray(A, dtype=float)
    n = M.shape[1]
    cells = np.arange(n)
    for i, r in enumerate(M[n:]):
        ax.plot(cells, r, "-", lw=1.2, color=color(i))
    ax.plot(cells, np.diag(M[:n]), "--", color=TRUTH, lw=1.2, label="identity query of each cell")
    ax.set_xlabel("cell")
    ax.set_ylabel("weight (columns have L1 norm 1)")
    ax.set_title(title or f"the {M.shape[0] - n} free queries of the optimised strategy (solid)")
    ax.legend(loc="upper center", frameon=False)
    return ax


def error_by_width_axes(ebw: ErrorByWidth, ax: Axes | None = None) -> Axes:
    """Expected squared error of a range query against its width (as a fraction of n), one line per strategy.

    Parameters
    ----------
    ebw : ErrorByWidth
        Average errors per width and strategy.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    frac = ebw.widths / ebw.n
    styles = ("-", "--", "-.", ":")
    for i, lab in enumerate(ebw.labels):   # one colour and one dash pattern per strategy
        ax.plot(frac, ebw.mse[i], styles[i % len(styles)], color=color(i), lw=1.6, label=lab)
    ax.set_xlabel("query width (fraction of the domain)")
    ax.set_ylabel("mean squared error")
    ax.set_title(f"All ranges, n = {ebw.n}, epsilon = {ebw.epsilon:g} (exact, least squares)")
    ax.legend()
    return ax
