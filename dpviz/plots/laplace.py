"""Figures for the Laplace-mechanism lecture."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from dpviz.experiments.laplace import LaplaceExperiment
from dpviz.plots.bands import new_axes
from dpviz.plots.palette import ALT, SIMULATED, THEORY, TRUTH

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["laplace_title", "laplace_figure", "laplace_axes", "error_curve_axes"]


def laplace_title(exp: LaplaceExperiment) -> str:
    """Figure title stating the parameters."""
    return (f"Laplace mechanism, epsilon = {exp.epsilon:.3g}, sensitivity = {exp.sensitivity:g}, "
            f"scale b = {exp.sensitivity / exp.epsilon:.3g}, {exp.summary.trials} trials")


def laplace_figure(exp: LaplaceExperiment, labels=None) -> go.Figure:
    """Truth, one noisy release, the simulated band and the theoretical band for each query.

    Bands are drawn as vertical bars from the band's lower to upper percentile:
    simulated (left of each query) and theoretical (right), so students see them agree.
    """
    s = exp.summary
    m = s.truth.size
    x = np.arange(m, dtype=float)
    labels = list(labels) if labels is not None else [f"q{i + 1}" for i in range(m)]
    lo, hi = s.band
    band_name = f"{lo:g}-{hi:g} % band"
    fig = go.Figure([
        go.Scatter(x=x - 0.12, y=s.mean, mode="markers", name=f"simulated mean and {band_name}",
                   marker=dict(color=SIMULATED, size=8),
                   error_y=dict(type="data", symmetric=False, array=s.upper - s.mean, arrayminus=s.mean - s.lower,
                                color=SIMULATED, thickness=2, width=6),
                   customdata=np.stack([s.lower, s.upper, s.variance], axis=-1),
                   hovertemplate="mean %{y:.4g}<br>band [%{customdata[0]:.4g}, %{customdata[1]:.4g}]"
                                 "<br>variance %{customdata[2]:.4g}<extra>simulated</extra>"),
        go.Scatter(x=x + 0.12, y=s.truth, mode="markers", name=f"theoretical {band_name}",
                   marker=dict(color=THEORY, size=1, opacity=0),
                   error_y=dict(type="data", symmetric=False, array=exp.theory_upper - s.truth,
                                arrayminus=s.truth - exp.theory_lower, color=THEORY, thickness=2, width=6),
                   customdata=np.stack([exp.theory_lower, exp.theory_upper], axis=-1),
                   hovertemplate="band [%{customdata[0]:.4g}, %{customdata[1]:.4g}]"
                                 f"<br>variance {exp.theory_variance:.4g}<extra>theory</extra>"),
        go.Scatter(x=x, y=s.truth, mode="markers", name="true answer",
                   marker=dict(color=TRUTH, symbol="diamond", size=10),
                   hovertemplate="true answer %{y:.4g}<extra></extra>"),
        go.Scatter(x=x, y=exp.release, mode="markers", name="one noisy release",
                   marker=dict(color=ALT, symbol="circle-open", size=11, line=dict(width=2)),
                   hovertemplate="noisy answer %{y:.4g}<extra></extra>"),
    ])
    fig.update_layout(title=laplace_title(exp), xaxis=dict(tickmode="array", tickvals=x, ticktext=labels),
                      yaxis_title="answer", height=420, margin=dict(l=60, r=20, t=60, b=40),
                      legend=dict(orientation="h", y=-0.15), template="plotly_white")
    return fig


def laplace_axes(exp: LaplaceExperiment, labels=None, ax=None) -> Axes:
    """Static (matplotlib) version of :func:`laplace_figure`."""
    ax = new_axes(ax)
    s = exp.summary
    x = np.arange(s.truth.size, dtype=float)
    lo, hi = s.band
    ax.errorbar(x - 0.12, s.mean, yerr=[s.mean - s.lower, s.upper - s.mean], fmt="o", color=SIMULATED, capsize=4,
                label=f"simulated mean, {lo:g}-{hi:g} % band")
    ax.errorbar(x + 0.12, s.truth, yerr=[s.truth - exp.theory_lower, exp.theory_upper - s.truth], fmt="none",
                ecolor=THEORY, capsize=4, label=f"theoretical {lo:g}-{hi:g} % band")
    ax.plot(x, s.truth, "D", color=TRUTH, label="true answer")
    ax.plot(x, exp.release, "o", mfc="none", color=ALT, ms=9, mew=2, label="one noisy release")
    ax.set_xticks(x, list(labels) if labels is not None else [f"q{i + 1}" for i in range(x.size)])
    ax.set_ylabel("answer")
    ax.set_title(laplace_title(exp), fontsize=9)
    ax.legend(fontsize=8, loc="best")
    return ax


def error_curve_axes(curve: dict, ax=None) -> Axes:
    """Empirical MSE (with +-2 standard errors) and the theoretical 2 (S/eps)^2 against epsilon, log-log."""
    ax = new_axes(ax)
    eps = curve["epsilon"]
    ax.errorbar(eps, curve["empirical_mse"], yerr=2 * curve["stderr"], fmt="o", color=SIMULATED,
                label="simulated MSE (+-2 s.e.)")
    ax.plot(eps, curve["theory_mse"], "-", color=THEORY, label=r"theory $2(S/\varepsilon)^2$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"$\varepsilon$ (smaller = more privacy)")
    ax.set_ylabel("mean squared error")
    ax.set_title("Laplace mechanism: error falls as 1/epsilon^2", fontsize=9)
    ax.legend(fontsize=8)
    return ax
