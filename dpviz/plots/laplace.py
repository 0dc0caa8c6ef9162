"""Figures for the Laplace-mechanism lecture."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from dpviz.experiments.laplace import LaplaceExperiment
from dpviz.plots.bands import new_axes
from dpviz.plots.palette import ALT, SIMULATED, TEMPLATE, THEORY, TRUTH

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["laplace_title", "laplace_figure", "laplace_axes", "error_curve_axes"]


def laplace_title(exp: LaplaceExperiment) -> str:
    """Figure title stating the parameters.

    Parameters
    ----------
    exp : LaplaceExperiment
        The experiment shown.

    Returns
    -------
    str
        Epsilon, sensitivity, noise scale and number of trials.
    """
    return (f"Laplace mechanism, epsilon = {exp.epsilon:.3g}, sensitivity = {exp.sensitivity:g}, "
            f"scale b = {exp.noise_scale:.3g}, {exp.summary.trials} trials")


def laplace_figure(exp: LaplaceExperiment, labels: Sequence[str] | None = None) -> go.Figure:
    """Two panels: the answers (truth, one noisy release, simulated mean), and their errors with both bands.

    The top panel shows the answers at their own scale; the bottom panel shows
    the error ``noisy - true`` of each query, where the simulated 5-95 % band
    (left bar) and the theoretical band of the Laplace distribution (right bar)
    can be compared at the noise's scale.

    Parameters
    ----------
    exp : LaplaceExperiment
        The experiment to draw.
    labels : sequence of str, optional
        Name of each query (default ``q1, q2, ...``).

    Returns
    -------
    plotly.graph_objects.Figure
        The two-panel figure.
    """
    s = exp.summary
    m = s.truth.size
    x = np.arange(m, dtype=float)
    labels = list(labels) if labels is not None else [f"q{i + 1}" for i in range(m)]
    lo, hi = s.band
    band_name = f"{lo:g}-{hi:g} % band"
    err_mean = s.mean - s.truth
    traces = []
    traces.append(go.Scatter(x=x, y=s.truth, mode="markers", name="true answer",
                             marker=dict(color=TRUTH, symbol="diamond", size=10),
                             hovertemplate="true answer %{y:.7~g}<extra></extra>", yaxis="y2"))
    traces.append(go.Scatter(x=x, y=exp.release, mode="markers", name="one noisy release",
                             marker=dict(color=ALT, symbol="circle-open", size=11, line=dict(width=2)),
                             hovertemplate="noisy answer %{y:.7~g}<extra></extra>", yaxis="y2"))
    traces.append(go.Scatter(x=x - 0.12, y=err_mean, mode="markers", name=f"simulated error: mean and {band_name}",
                             marker=dict(color=SIMULATED, size=8),
                             error_y=dict(type="data", symmetric=False, array=s.upper - s.mean,
                                          arrayminus=s.mean - s.lower, color=SIMULATED, thickness=2, width=6),
                             customdata=np.stack([s.lower - s.truth, s.upper - s.truth, s.variance], axis=-1),
                             hovertemplate="mean error %{y:.7~g}<br>band [%{customdata[0]:.7~g}, %{customdata[1]:.7~g}]"
                                           "<br>variance %{customdata[2]:.7~g}<extra>simulated</extra>"))
    traces.append(go.Scatter(x=x + 0.12, y=np.zeros(m), mode="markers", name=f"theoretical {band_name}",
                             marker=dict(color=THEORY, size=8, symbol="line-ew-open"),
                             error_y=dict(type="data", symmetric=False, array=exp.theory_upper - s.truth,
                                          arrayminus=s.truth - exp.theory_lower, color=THEORY, thickness=2, width=6),
                             customdata=np.stack([exp.theory_lower - s.truth, exp.theory_upper - s.truth], axis=-1),
                             hovertemplate="band [%{customdata[0]:.7~g}, %{customdata[1]:.7~g}]"
                                           f"<br>variance {exp.theory_variance:.7g}<extra>theory</extra>"))
    traces.append(go.Scatter(x=x, y=exp.release - s.truth, mode="markers", name="error of the one release",
                             marker=dict(color=ALT, symbol="circle-open", size=9, line=dict(width=2)),
                             hovertemplate="error %{y:.7~g}<extra></extra>", showlegend=False))
    # two stacked panels sharing the x axis, laid out by hand (make_subplots and update_layout each cost more
    # than the whole redraw budget; a layout given to the constructor is validated once)
    layout = dict(
        title=laplace_title(exp), height=560, margin=dict(l=60, r=20, t=60, b=95),
        legend=dict(orientation="h", y=-0.12), template=TEMPLATE,
        xaxis=dict(tickmode="array", tickvals=x, ticktext=labels),
        yaxis=dict(domain=[0.0, 0.52], title="error = noisy - true", zeroline=True, zerolinecolor="#888"),
        yaxis2=dict(domain=[0.6, 1.0], title="answer", anchor="x"),
    )
    fig = go.Figure(data=traces, layout=layout)
    return fig


def laplace_axes(exp: LaplaceExperiment, labels: Sequence[str] | None = None, ax: Axes | None = None) -> Axes:
    """Static (matplotlib) version of the error panel of :func:`laplace_figure`.

    For each query: the error ``noisy - true`` of one release, the simulated
    mean error with its band, and the theoretical band of the Laplace noise.

    Parameters
    ----------
    exp : LaplaceExperiment
        The experiment to draw.
    labels : sequence of str, optional
        Name of each query (default ``q1, q2, ...``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(10.0, 3.9))     # wide enough for the three-column legend below the axes
    s = exp.summary
    x = np.arange(s.truth.size, dtype=float)
    lo, hi = s.band
    err = s.mean - s.truth
    ax.axhline(0.0, color=TRUTH, lw=0.8)
    ax.errorbar(x - 0.12, err, yerr=[s.mean - s.lower, s.upper - s.mean], fmt="o", color=SIMULATED, capsize=4,
                label=f"simulated mean error, {lo:g}-{hi:g} % band")
    ax.errorbar(x + 0.12, np.zeros_like(x), yerr=[s.truth - exp.theory_lower, exp.theory_upper - s.truth],
                fmt="_", color=THEORY, ecolor=THEORY, capsize=4, label=f"theoretical {lo:g}-{hi:g} % band")
    ax.plot(x, exp.release - s.truth, "o", mfc="none", color=ALT, ms=9, mew=2, label="error of one release")
    ax.set_xticks(x, list(labels) if labels is not None else [f"q{i + 1}" for i in range(x.size)])
    ax.set_ylabel("error = noisy - true")
    ax.set_title(laplace_title(exp))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3, frameon=False)
    return ax


def error_curve_axes(curve: dict[str, np.ndarray], ax: Axes | None = None) -> Axes:
    """Empirical MSE (with +-2 standard errors) and the theoretical 2 (S/eps)^2 against epsilon, log-log.

    Parameters
    ----------
    curve : dict of str to numpy.ndarray
        The result of :func:`dpviz.experiments.laplace.laplace_error_curve`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    eps = curve["epsilon"]
    ax.errorbar(eps, curve["empirical_mse"], yerr=2 * curve["stderr"], fmt="o", color=SIMULATED,
                label="simulated MSE (+-2 s.e.)")
    ax.plot(eps, curve["theory_mse"], "-", color=THEORY, label=r"theory $2(S/\varepsilon)^2$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"$\varepsilon$ (smaller = more privacy)")
    ax.set_ylabel("mean squared error")
    ax.set_title("Laplace mechanism: error falls as 1/epsilon^2")
    ax.legend()
    return ax
