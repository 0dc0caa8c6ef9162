"""Figures for choosing privately (lecture 09): selection probabilities, exact and simulated; expected scores."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from dpviz.experiments.selection import CURVE_MECHANISMS, SelectionRun
from dpviz.plots.palette import PALETTE, TEMPLATE, TRUTH
from dpviz.plots.readability import log_axis

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["selection_title", "selection_figure", "selection_axes"]

_EXACT, _SIM = PALETTE["sky"], PALETTE["vermillion"]
#: One colour and dash per curve; the exponential mechanism's is also RNM-Gumbel's.
_CURVE = {"exponential": (PALETTE["blue"], "solid", "exponential mechanism = RNM-Gumbel"),
          "rnm-laplace": (PALETTE["orange"], "dash", "RNM-Laplace"),
          "permute-and-flip": (PALETTE["green"], "dot", "permute-and-flip = RNM-exponential")}
_NAMES = {"exponential": "exponential mechanism", "rnm-gumbel": "RNM-Gumbel", "rnm-laplace": "RNM-Laplace",
          "permute-and-flip": "permute-and-flip"}


def selection_title(run: SelectionRun) -> str:
    """Title: the mechanism, epsilon, the noise scale, the probability of a best candidate and the expected score.

    Parameters
    ----------
    run : SelectionRun
        The run shown.

    Returns
    -------
    str
        One line of text.
    """
    calib = "Δ/ε (monotone)" if run.monotone else "2Δ/ε"
    return (f"{_NAMES[run.mechanism]}, ε = {run.epsilon:.3g}, scale {calib} = {run.scale:.3g}: "
            f"P(best) = {run.best_probability[run.mechanism]:.3f}, "
            f"E[score] = {run.expected[run.mechanism]:.3g} of {run.best:g}")


def _y_range(run: SelectionRun) -> list[float]:
    """The expected-score panel's y range: every curve and the best score, not the guarantee's far tail."""
    lows = [float(np.min(run.curves[m])) for m in CURVE_MECHANISMS]
    lo, hi = min(lows + [run.mean_score - 2 * run.mean_score_stderr]), run.best
    pad = 0.05 * max(hi - lo, 1e-9)
    return [lo - pad, hi + pad]


def selection_figure(run: SelectionRun) -> go.Figure:
    """Two panels: each candidate's exact probability (bar) and simulated frequency (±2 s.e.); expected scores.

    The right panel draws the exact expected score of the exponential mechanism (= RNM-Gumbel), RNM-Laplace
    and permute-and-flip against epsilon (log axis), the best score, the exponential mechanism's guarantee
    ``best - s (ln m + 1)``, and at the chosen epsilon the simulated mean score (±2 s.e.).

    Parameters
    ----------
    run : SelectionRun
        The run to draw.

    Returns
    -------
    plotly.graph_objects.Figure
        The two-panel figure.
    """
    m = run.scores.size
    x = np.arange(m, dtype=float)
    c = run.curves
    traces = [
        dict(type="bar", x=x, y=run.probabilities, name="exact probability", marker=dict(color=_EXACT),
             customdata=run.scores, hovertemplate="score %{customdata:.6~g}<br>P = %{y:.7~g}<extra>exact</extra>"),
        dict(type="scatter", x=x, y=run.frequencies, mode="markers",
             name=f"simulated frequency ±2 s.e. ({run.trials:,} runs)",
             marker=dict(color=_SIM, size=8, symbol="diamond"),
             error_y=dict(type="data", array=2 * run.stderr, color=_SIM, thickness=2, width=5),
             hovertemplate="frequency %{y:.7~g}<extra>simulated</extra>"),
    ]
    for mech in CURVE_MECHANISMS:
        colour, dash, label = _CURVE[mech]
        traces.append(dict(type="scatter", x=c["epsilon"], y=c[mech], mode="lines", name=f"E[score]: {label}",
                           line=dict(color=colour, dash=dash, width=2), xaxis="x2", yaxis="y2", legend="legend2",
                           hovertemplate="ε %{x:.7~g}: %{y:.7~g}<extra></extra>"))
    eps = c["epsilon"]
    traces += [
        dict(type="scatter", x=eps, y=c["guarantee"], mode="lines",
             name="exponential mechanism's guarantee best − s(ln m + 1)",
             line=dict(color=PALETTE["purple"], dash="dashdot", width=1.5), xaxis="x2", yaxis="y2", legend="legend2"),
        dict(type="scatter", x=[eps[0], eps[-1]], y=[run.best, run.best], mode="lines", name="best score",
             line=dict(color=TRUTH, width=1, dash="longdash"), xaxis="x2", yaxis="y2", legend="legend2"),
        dict(type="scatter", x=[run.epsilon], y=[run.mean_score], mode="markers", name="simulated mean score ±2 s.e.",
             marker=dict(color=_SIM, size=9, symbol="diamond"),
             error_y=dict(type="data", array=[2 * run.mean_score_stderr], color=_SIM, thickness=2, width=5),
             xaxis="x2", yaxis="y2", legend="legend2",
             hovertemplate="mean score %{y:.7~g}<extra>simulated</extra>"),
    ]
    layout = dict(
        title=dict(text=selection_title(run), font=dict(size=13)), height=560, template=TEMPLATE,
        margin=dict(l=60, r=20, t=60, b=210), bargap=0.25,
        # one legend under each panel (grouped by panel, never 8 entries in one)
        legend=dict(orientation="v", x=0.0, y=-0.3, xanchor="left", yanchor="top", font=dict(size=11)),
        legend2=dict(orientation="v", x=0.56, y=-0.22, xanchor="left", yanchor="top", font=dict(size=11)),
        xaxis=dict(domain=[0.0, 0.44], tickmode="array", tickvals=x, ticktext=run.labels, tickangle=-45),
        yaxis=dict(title="P(candidate chosen)", range=[0.0, 1.0]),
        xaxis2=log_axis(eps, domain=[0.56, 1.0], title="ε", anchor="y2"),
        yaxis2=dict(anchor="x2", title="expected score of the chosen candidate", range=_y_range(run)),
        shapes=[dict(type="line", xref="x2", yref="paper", x0=run.epsilon, x1=run.epsilon, y0=0, y1=1,
                     line=dict(color="#888", dash="dot", width=1))],
    )
    return go.Figure(data=traces, layout=layout, _validate=False)   # the figure widget validates what changes


def selection_axes(run: SelectionRun, axes: tuple[Axes, Axes] | None = None) -> tuple[Axes, Axes]:
    """The same two panels with matplotlib (the static figure beside the explorer).

    Parameters
    ----------
    run : SelectionRun
        The run to draw.
    axes : tuple of two matplotlib.axes.Axes, optional
        Where to draw; a new figure of two panels if None.

    Returns
    -------
    tuple of two matplotlib.axes.Axes
        The probability panel and the expected-score panel.
    """
    if axes is None:
        import matplotlib.pyplot as plt

        _, pair = plt.subplots(1, 2, figsize=(11.0, 4.6), layout="constrained")
        axes = (pair[0], pair[1])
    left, right = axes
    x = np.arange(run.scores.size, dtype=float)
    left.bar(x, run.probabilities, color=_EXACT, label="exact probability")
    left.errorbar(x, run.frequencies, yerr=2 * run.stderr, fmt="D", ms=5, color=_SIM, capsize=3,
                  label=f"simulated ±2 s.e. ({run.trials:,} runs)")
    left.set_xticks(x, run.labels, rotation=45, ha="right")
    left.set_ylim(0.0, 1.0)
    left.set_ylabel("P(candidate chosen)")
    left.legend(loc="upper right")
    c = run.curves
    for mech in CURVE_MECHANISMS:
        colour, dash, label = _CURVE[mech]
        right.plot(c["epsilon"], c[mech], color=colour, ls={"solid": "-", "dash": "--", "dot": ":"}[dash], lw=2,
                   label=label)
    right.plot(c["epsilon"], c["guarantee"], color=PALETTE["purple"], ls="-.", lw=1.2, label="EM guarantee")
    right.axhline(run.best, color=TRUTH, lw=1, label="best score")
    right.errorbar([run.epsilon], [run.mean_score], yerr=[2 * run.mean_score_stderr], fmt="D", color=_SIM,
                   capsize=3, label="simulated mean ±2 s.e.")
    right.axvline(run.epsilon, color="#888", ls=":", lw=1)
    right.set_xscale("log")
    right.set_ylim(*_y_range(run))
    right.set_xlabel("ε")
    right.set_ylabel("expected score of the choice")
    # under both panels, three columns: inside the right one its six entries hid the curves
    right.figure.legend(*right.get_legend_handles_labels(), loc="outside lower center", ncol=3)
    left.figure.suptitle(selection_title(run))
    return left, right
