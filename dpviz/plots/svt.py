"""Figures for the sparse-vector lecture.  Every figure involving GPTT says in its title that GPTT is NOT DP.

References
----------
- [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
  the Sparse Vector Technique." arXiv:1508.07306, 2015.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from dpviz.experiments.svt import AttackTable, CounterexampleExperiment, GPTTAttackRun, ThresholdAnswers
from dpviz.plots.bands import new_axes
from dpviz.plots.decimate import min_max_per_column
from dpviz.plots.palette import ALT, PALETTE, SIMULATED, TEMPLATE, THEORY, TRUTH, color
from dpviz.plots.raster import dot_image
from dpviz.svt import NOT_DP

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["attack_title", "attack_figure", "attack_figure_spec", "plot_attack", "plot_attack_table",
           "plot_counterexample", "plot_counterexample_probabilities", "plot_threshold_answers"]

_WRONG = PALETTE["vermillion"]
_TRUTH_LINE = dict(color=TRUTH, width=1, shape="hvh")
_RIGHT = PALETTE["blue"]
#: Image columns of the guesses' dots: about 3.4 px each on a 1150-px panel, dots as wide as the old markers.
_DOT_COLUMNS = 341
_METHODS = {
    "gptt": ("GPTT attack (NOT differentially private)", "gptt_guess", "gptt_accuracy"),
    "svt": ("same attack through SVT (epsilon-DP)", "svt_guess", "svt_accuracy"),
    "laplace": ("Laplace counts, rounded (epsilon-DP)", "laplace_guess", "laplace_accuracy"),
}


def attack_title(run: GPTTAttackRun) -> str:
    """Title of the attack figures: dataset, epsilon, split, and the NOT-DP label.

    Parameters
    ----------
    run : GPTTAttackRun
        The attack run the figure shows.

    Returns
    -------
    str
        The title, starting with "GPTT is NOT differentially private".
    """
    q = "no query noise" if run.query_share == 0 else f"query share {run.query_share:g}, {run.copies} copies"
    return (f"GPTT is {NOT_DP}: reconstruction of {run.name} at epsilon = {run.epsilon:.3g} "
            f"(split {run.split:g}, {q})")


def _zoom(run: GPTTAttackRun) -> float:
    """Top of the zoomed y axis: about 1.25 k, at least 6."""
    return max(1.25 * run.k + 1.0, 6.0)


def _fractions(run: GPTTAttackRun, method: str) -> str:
    """One method's fractions of cells guessed exactly: all, count <= k, 1 <= count <= k."""
    _, _, acc_name = _METHODS[method]
    a = getattr(run, acc_name)
    extra = {"gptt": f"; {run.gptt_groups} groups", "svt": f"; c = {run.svt_c}, {run.svt_groups} groups",
             "laplace": ""}[method]
    return (f"exact {100 * a.overall:.1f} % of all cells, {100 * a.small:.1f} % of counts <= k = {a.k}, "
            f"{100 * a.small_nonzero:.1f} % of counts 1..k{extra}")


def _panel_text(run: GPTTAttackRun, method: str) -> str:
    """Heading of one panel: the method and its fractions of cells guessed exactly."""
    return f"{_METHODS[method][0]}: {_fractions(run, method)}"


def attack_figure(run: GPTTAttackRun) -> go.Figure:
    """Three stacked panels over the cells: true histogram and the guesses of GPTT (NOT DP), SVT and Laplace.

    The y axes are zoomed on the small counts (0 to about 1.25 k); correct
    guesses are blue dots, wrong ones vermillion dots.  Each panel's heading
    gives the fractions of cells guessed exactly (all, count <= k, 1 <= count <= k).

    Parameters
    ----------
    run : GPTTAttackRun
        The attack run to draw (from :func:`dpviz.experiments.svt.gptt_attack_run`).

    Returns
    -------
    plotly.graph_objects.Figure
        The three-panel figure.
    """
    traces, layout = attack_figure_spec(run)
    return go.Figure(data=traces, layout=layout)


def attack_figure_spec(run: GPTTAttackRun) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """:func:`attack_figure` as plain dicts ``(traces, layout)``, so that a redraw can send only what changed.

    Parameters
    ----------
    run : GPTTAttackRun
        The attack run to draw.

    Returns
    -------
    traces : list of dict
        Per panel, the true counts (a line, with the guess at each cell in its hover text) and the guesses (one
        image of dots coloured by exact or wrong, :func:`dpviz.plots.raster.dot_image`); then the legend entry of
        the dots.
    layout : dict
        Three stacked axes, zoomed on the small counts, with the panel headings.
    """
    truth = run.truth.astype(float)
    # the true counts' step line through each pixel column's lowest and highest cell: the same envelope, half the
    # points (4096 cells -> <= 2050) for the browser to draw three times
    cells = min_max_per_column(truth)
    traces: list[dict[str, Any]] = []
    annotations = []
    domains = [(0.70, 1.0), (0.36, 0.64), (0.0, 0.28)]
    top = int(np.floor(_zoom(run)))
    every = np.arange(truth.size)
    for i, method in enumerate(("gptt", "svt", "laplace")):
        _, guess_name, _ = _METHODS[method]
        guess = getattr(run, guess_name)
        hit = guess == run.truth
        ax = "" if i == 0 else str(i + 1)
        first = i == 0
        # the true counts, with this method's guess at each cell drawn in the hover text
        traces.append(dict(type="scatter", x=cells, y=truth[cells], mode="lines", line=dict(_TRUTH_LINE),
                           name="true count", legendgroup="truth", showlegend=first, xaxis=f"x{ax}", yaxis=f"y{ax}",
                           customdata=guess[cells], hovertemplate="true %{y}, guessed %{customdata}<extra></extra>"))
        # the guesses: one dot per cell, all in one image (thousands of SVG markers took 300-500 ms a redraw)
        traces.append(dict(dot_image(every, guess, (~hit).astype(np.int8), n=truth.size, top=top,
                                     colours=[_RIGHT, _WRONG], columns=_DOT_COLUMNS, per_unit=1),
                           xaxis=f"x{ax}", yaxis=f"y{ax}"))
        annotations.append(dict(text=_panel_text(run, method), x=0.0, xref="paper", y=domains[i][1], yref="paper",
                                yanchor="bottom", xanchor="left", showarrow=False, font=dict(size=11)))
    # the legend entry of the images' dots (an image trace has none)
    traces.append(dict(type="scatter", x=[None], y=[None], mode="markers", legendgroup="guess", hoverinfo="skip",
                       name="guess: blue = exact, vermillion = wrong",
                       marker=dict(color=_RIGHT, size=7, symbol="square")))
    zoom = _zoom(run)
    layout: dict[str, Any] = dict(
        title=dict(text=attack_title(run), font=dict(size=13)), height=720, template=TEMPLATE,
        margin=dict(l=60, r=20, t=70, b=80), legend=dict(orientation="h", y=-0.06), annotations=annotations,
        hovermode="x unified")
    for i in range(3):
        ax = "" if i == 0 else str(i + 1)
        layout[f"xaxis{ax}"] = dict(anchor=f"y{ax}", title="cell" if i == 2 else None,
                                    **({} if i == 0 else {"matches": "x"}))
        # an image trace would fix the axes' aspect ratio and reverse y: the panels keep their own scales
        layout[f"xaxis{ax}"]["scaleanchor"] = False
        layout[f"yaxis{ax}"] = dict(domain=list(domains[i]), anchor=f"x{ax}", range=[-0.5, zoom], autorange=False,
                                    scaleanchor=False, title="count (zoomed)")
    return traces, layout


def plot_attack(run: GPTTAttackRun, method: str = "gptt", ax: Axes | None = None, *,
                zoom: float | None = None, legend: bool = True) -> Axes:
    """Static version of one panel of :func:`attack_figure` (``method`` in gptt, svt, laplace).

    The panel's title names the method (GPTT's says NOT differentially private); its fractions of cells guessed
    exactly are written inside the panel, top right, where the zoomed counts leave room (stacked panels: call
    ``ax.label_outer()`` on each and share one legend and one y label).  On a new figure the
    figure's title is :func:`attack_title` (GPTT) or the dataset and epsilon.

    Parameters
    ----------
    run : GPTTAttackRun
        The attack run to draw.
    method : {"gptt", "svt", "laplace"}, default "gptt"
        Whose guesses to draw.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (a new figure if None).
    zoom : float, optional
        Top of the y axis (about 1.25 k if None).
    legend : bool, default True
        Draw the panel's legend (stacked panels share one: ``fig.legend(*ax.get_legend_handles_labels())``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        If ``method`` is not "gptt", "svt" or "laplace".
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, _METHODS))}; got {method!r}")
    if ax is None:
        ax = new_axes(None, figsize=(11.0, 4.2))
        head = attack_title(run) if method == "gptt" else f"{run.name}, epsilon = {run.epsilon:.3g}"
        ax.figure.suptitle(head.replace(": ", ":\n", 1))
    _, guess_name, _ = _METHODS[method]
    guess = getattr(run, guess_name)
    x = np.arange(run.truth.size)
    hit = guess == run.truth
    ax.step(x, run.truth, where="mid", color=TRUTH, lw=0.8, label="true count")
    ax.plot(x[hit], guess[hit], ".", color=_RIGHT, ms=4, label="guessed exactly")
    ax.plot(x[~hit], guess[~hit], "x", color=_WRONG, ms=5, label="guessed wrong")
    ax.set_ylim(-0.5, zoom if zoom is not None else _zoom(run))
    ax.set_xlabel("cell")
    ax.set_ylabel("count (zoomed)")
    ax.set_title(_METHODS[method][0])
    ax.text(0.99, 0.95, _fractions(run, method), transform=ax.transAxes, ha="right", va="top",
            bbox=dict(facecolor="white", edgecolor="none", alpha=0.85, pad=2))
    if legend:
        ax.legend(loc="center right")
    return ax


def plot_attack_table(table: AttackTable, which: str = "small", ax: Axes | None = None) -> Axes:
    """Grouped bars: fraction of cells reconstructed exactly per dataset and epsilon, with the Laplace baseline.

    ``which`` is ``"overall"`` (Table 2 of [CM15]), ``"small"`` (Table 3: cells with
    count <= the table's ``small_bound``, 5 in the paper) or ``"small_nonzero"``
    (1 <= count <= small_bound).  Error bars are +-2 standard errors over the
    repetitions; black ticks mark honest Laplace.

    Parameters
    ----------
    table : AttackTable
        The attack results (from :func:`dpviz.experiments.svt.attack_table`).
    which : {"overall", "small", "small_nonzero"}, default "small"
        Which fraction of exact guesses to draw.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (a new figure if None).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        If ``which`` is not one of the three fractions.
    """
    if which not in ("overall", "small", "small_nonzero"):
        raise ValueError(f"which must be 'overall', 'small' or 'small_nonzero'; got {which!r}")
    ax = new_axes(ax, figsize=(8.0, 4.4))
    mean, se = table.mean(which), table.stderr(which)
    lap = table.mean(f"laplace_{which}")
    n_ds, n_eps = mean.shape
    width = 0.8 / n_eps
    for j, eps in enumerate(table.epsilons):
        pos = np.arange(n_ds) + (j - (n_eps - 1) / 2) * width
        ax.bar(pos, mean[:, j], width * 0.95, yerr=2 * np.nan_to_num(se[:, j]), capsize=2, color=color(j),
               label=f"GPTT, epsilon = {eps:g}")
        ax.plot(pos, lap[:, j], "_", color=TRUTH, ms=12, mew=2, label="Laplace, rounded (DP)" if j == 0 else None)
    bounds = np.unique(table.small_bound)
    b = str(int(bounds[0])) if bounds.size == 1 else "its bound"
    ax.set_xticks(np.arange(n_ds), [f"{n}\n{m} cells" if which != "overall" else n
                                    for n, m in zip(table.names, table.n_small, strict=True)])
    ax.set_ylim(0, 1.45)   # the legend sits above the bars
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_ylabel("fraction guessed exactly")
    what = {"overall": "all cells", "small": f"cells with count <= {b}",
            "small_nonzero": f"cells with 1 <= count <= {b}"}
    ax.set_title(f"GPTT is {NOT_DP}:\nexact reconstruction, {what[which]}")
    ax.legend(ncol=2, loc="upper center", title=f"{table.repetitions} runs, split {table.split:g}; +-2 s.e.")
    return ax


def plot_counterexample(exp: CounterexampleExperiment, ax: Axes | None = None) -> Axes:
    """Log privacy-loss ratio ``ln P_D(E)/P_D'(E)`` against t: exact, simulated, proven bound, and the claim.

    Parameters
    ----------
    exp : CounterexampleExperiment
        The counterexample results (from :func:`dpviz.experiments.svt.counterexample_experiment`).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (a new figure if None).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    ex = exp.exact
    ax.plot(ex.t, ex.log_ratio, "-", color=THEORY, label="exact (numerical integration)")
    sim = np.isfinite(exp.sim_log_ratio)
    ax.plot(ex.t[sim], exp.sim_log_ratio[sim], "o", mfc="none", color=SIMULATED,
            label=f"simulated ({exp.trials:,} runs per database)")
    ax.plot(ex.t, ex.log_ratio_bound, "--", color=ALT, label="proven lower bound (linear in t)")
    ax.axhline(ex.claimed_epsilon, color=TRUTH, lw=1, ls=":", label=f"claimed epsilon = {ex.claimed_epsilon:g}")
    ax.set_xlabel("t = copies of each query")
    ax.set_ylabel("ln P_D(E) / P_D'(E)")
    ax.set_title(f"GPTT is {NOT_DP}:\nthe privacy loss of one output\ngrows without bound "
                 f"(eps1 = {ex.epsilon_threshold:g}, eps2 = {ex.epsilon_query:g})")
    ax.set_ylim(top=1.5 * ax.get_ylim()[1])   # room for the legend above the lines
    ax.legend(loc="upper left")
    return ax


def plot_counterexample_probabilities(exp: CounterexampleExperiment, ax: Axes | None = None) -> Axes:
    """``P_D(E)`` and ``P_D'(E)`` against t on a log scale: exact curves and simulated points with +-2 s.e.

    Parameters
    ----------
    exp : CounterexampleExperiment
        The counterexample results (from :func:`dpviz.experiments.svt.counterexample_experiment`).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (a new figure if None).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    ex = exp.exact
    for p, sim, se, name, col in ((ex.p_d, exp.sim_p_d, exp.se_d, "D", THEORY),
                                  (ex.p_dprime, exp.sim_p_dprime, exp.se_dprime, "D'", SIMULATED)):
        ax.plot(ex.t, p, "-", color=col, label=f"exact P_{name}(E)")
        ok = np.isfinite(sim)
        ax.errorbar(ex.t[ok], sim[ok], yerr=2 * se[ok], fmt="o", mfc="none", color=col, capsize=3,
                    label=f"simulated P_{name}(E), +-2 s.e.")
    ax.set_yscale("log")
    ax.set_xlabel("t = copies of each query")
    ax.set_ylabel("probability of the event E")
    ax.set_title(f"GPTT is {NOT_DP}:\nthe event is exponentially rarer\non the neighbour D'")
    ax.legend(loc="lower left")
    return ax


def plot_threshold_answers(exp: ThresholdAnswers, ax: Axes | None = None) -> Axes:
    """Per query: fraction of runs answering ABOVE for SVT (halts after c) and GPTT (never halts).

    Parameters
    ----------
    exp : ThresholdAnswers
        The stream results (from :func:`dpviz.experiments.svt.threshold_answers_experiment`).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (a new figure if None).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(10.0, 4.8))
    q = np.arange(exp.answers.size)
    ax.plot(q, exp.gptt_above, "s-", color=THEORY, ms=4, label="GPTT: P(ABOVE) (NOT differentially private)")
    ax.plot(q, exp.svt_above, "o-", color=SIMULATED, ms=4, label=f"SVT: P(ABOVE), halts after c = {exp.c}")
    ax.plot(q, exp.svt_halted, ":", color=TRUTH, label="SVT: P(already halted)")
    ax2 = ax.twinx()
    ax2.plot(q, exp.answers, "-", color=ALT, lw=1, alpha=0.6)
    ax2.axhline(exp.threshold, color=ALT, ls="--", lw=1)
    ax2.set_ylabel("true answer (green)\nthreshold (dashed)")
    ax.set_xlabel("query index in the stream")
    ax.set_ylabel("fraction of runs")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"SVT vs GPTT (GPTT is {NOT_DP})\nepsilon = {exp.epsilon:g}, {exp.trials:,} runs")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    return ax
