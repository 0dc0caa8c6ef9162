"""Figures for the composition lecture's second unit: the total privacy loss, advanced composition, Rényi and zCDP."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from dpviz.experiments.composition_bounds import METHODS, CompositionBounds
from dpviz.experiments.privacy_loss import PrivacyLossView
from dpviz.plots.bands import new_axes
from dpviz.plots.palette import PALETTE, TEMPLATE
from dpviz.plots.readability import log_axis

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["composition_bounds_title", "composition_bounds_figure", "composition_bounds_axes", "privacy_loss_axes",
           "delta_prime_axes", "renyi_curves_axes"]

#: One colour and dash per accounting method, by its position in METHODS (same for both mechanisms).
_STYLE = [(PALETTE["vermillion"], "dash"), (PALETTE["orange"], "solid"), (PALETTE["purple"], "dot"),
          (PALETTE["green"], "dashdot"), (PALETTE["blue"], "longdash")]
#: Short names for the title, by method.
_SHORT = {"basic": "basic", "advanced": "advanced", "zCDP (Bun & Steinke)": "zCDP",
          "Rényi, Laplace's own curve": "Rényi", "optimal for any eps0-DP (Kairouz et al.)": "optimal",
          "zCDP, tight conversion (Canonne et al.)": "zCDP tight", "exact (Gaussian with sigma / sqrt(k))": "exact"}
_MPL_DASH: dict[str, Any] = {"dash": "--", "solid": "-", "dot": ":", "dashdot": "-.", "longdash": (0, (9, 3))}


def composition_bounds_title(r: CompositionBounds) -> str:
    """The mechanism, its noise, delta' and the totals at the chosen k.

    Parameters
    ----------
    r : CompositionBounds
        The result shown.

    Returns
    -------
    str
        Two lines: the setting, then each method's total at k (one decimal more for small values).
    """
    noise = (f"Laplace b = {r.scale:.3g} (eps0 = {r.epsilon0:.3g} per release)" if r.mechanism == "laplace"
             else f"Gaussian sigma = {r.scale:.3g} (rho = {r.rho:.3g} per release)")
    parts = [f"{_SHORT.get(name, name)} {r.at_k[name]:.3g}" for name in METHODS[r.mechanism]]
    return f"{noise}, delta' = {r.delta_prime:.2g}: total epsilon at k = {r.k}<br>" + "; ".join(parts)


def composition_bounds_figure(r: CompositionBounds) -> go.Figure:
    """Total epsilon against the number of releases k, one curve per accounting method, the chosen k marked.

    Parameters
    ----------
    r : CompositionBounds
        The result to draw.

    Returns
    -------
    plotly.graph_objects.Figure
        Log-log axes; the legend to the right of the plot.
    """
    traces = []
    for i, name in enumerate(METHODS[r.mechanism]):
        colour, dash = _STYLE[i]
        traces.append(go.Scatter(x=r.ks, y=r.curves[name], mode="lines", name=name,
                                 line=dict(color=colour, dash=dash, width=5 if i == 4 else 2),
                                 opacity=0.55 if i == 4 else 1.0,
                                 hovertemplate="k = %{x}: epsilon %{y:.7~g}<extra>" + name + "</extra>"))
    traces.append(go.Scatter(x=[r.k] * len(r.at_k), y=list(r.at_k.values()), mode="markers", name=f"at k = {r.k}",
                             marker=dict(color=PALETTE["black"], size=8, symbol="circle-open"),
                             hovertemplate="%{y:.7~g}<extra>at k</extra>"))
    top = float(np.max(r.curves["basic"])) * 3
    # a curve may reach 0 (a tiny total epsilon underflows at large noise): the log axis starts at the positive ones
    positive = np.concatenate([np.asarray(c, dtype=float).ravel() for c in r.curves.values()])
    positive = positive[positive > 0]
    bottom = float(positive.min()) / 2 if positive.size else top / 1e6
    # the layout goes to the constructor: a later update_layout costs plotly bookkeeping on every redraw
    layout = dict(template=TEMPLATE, title=dict(text=composition_bounds_title(r), font=dict(size=12)),
                  xaxis=log_axis(r.ks, title=dict(text="number of releases k")),
                  yaxis=log_axis(positive, [top], title=dict(text=f"total epsilon at delta' = {r.delta_prime:.2g}"),
                                 range=[float(np.log10(bottom)), float(np.log10(top))]),
                  height=460, margin=dict(l=75, r=275, t=70, b=55),
                  legend=dict(x=1.02, xanchor="left", y=1.0, yanchor="top", font=dict(size=11)),
                  shapes=[dict(type="line", x0=r.k, x1=r.k, xref="x", y0=0, y1=1, yref="paper",
                               line=dict(color=PALETTE["grey"], dash="dot", width=1))])
    return go.Figure(traces, layout=layout)


def composition_bounds_axes(r: CompositionBounds, ax: Axes | None = None) -> Axes:
    """Static (matplotlib) version of :func:`composition_bounds_figure`.

    Parameters
    ----------
    r : CompositionBounds
        The result to draw.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on; the legend sits below them.
    """
    ax = new_axes(ax, figsize=(7.0, 4.6))
    for i, name in enumerate(METHODS[r.mechanism]):
        colour, dash = _STYLE[i]
        # the last method (the tightest shown) is a broad light band underneath, so the others stay visible on it
        ax.plot(r.ks, r.curves[name], ls=_MPL_DASH[dash], color=colour, lw=5 if i == 4 else 1.8,
                alpha=0.5 if i == 4 else 1.0, zorder=1 if i == 4 else 2, label=name)
    ax.plot([r.k] * len(r.at_k), list(r.at_k.values()), "o", mfc="none", color=PALETTE["black"],
            label=f"at k = {r.k}")
    ax.axvline(r.k, color=PALETTE["grey"], ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(float(np.min([np.min(c) for c in r.curves.values()])) / 2, float(np.max(r.curves["basic"])) * 3)
    ax.set_xlabel("number of releases k")
    ax.set_ylabel(f"total epsilon at delta' = {r.delta_prime:.2g}")
    ax.set_title(composition_bounds_title(r).replace("<br>", "\n"))
    ax.legend(ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False)
    return ax


def privacy_loss_axes(v: PrivacyLossView, ax: Axes | None = None) -> Axes:
    """The total privacy loss of k releases: exact and simulated histograms, its mean, advanced and basic totals.

    Parameters
    ----------
    v : PrivacyLossView
        The view to draw.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(7.0, 4.6))
    centres = 0.5 * (v.edges[1:] + v.edges[:-1])
    width = v.edges[1] - v.edges[0]
    ax.bar(centres, v.exact_hist, width, color=PALETTE["sky"], alpha=0.6, label="exact law (on a grid)")
    ax.plot(centres, v.simulated_hist, "o", ms=3, color=PALETTE["vermillion"],
            label=f"simulated ({v.simulated.size:,} runs of {v.k} releases)")
    top = float(max(v.exact_hist.max(), v.simulated_hist.max()))
    for x, colour, style, text in [
            (v.mean, PALETTE["black"], "-", f"mean k(eps + e^-eps - 1) = {v.mean:.3g}"),
            (v.epsilon_exact[1], PALETTE["blue"], "-", f"exact epsilon at delta' = {v.epsilon_exact[1]:.3g}"),
            (v.advanced, PALETTE["orange"], "--", f"advanced composition {v.advanced:.3g}"),
            (v.basic, PALETTE["vermillion"], ":", f"basic k eps = {v.basic:.3g} (largest loss)")]:
        ax.axvline(x, color=colour, ls=style, lw=1.5, label=text)
    ax.set_xlim(min(v.edges[0], -v.basic * 0.05), v.basic * 1.05)
    ax.set_ylim(0, top * 1.15)
    ax.set_xlabel("total privacy loss L = L_1 + ... + L_k (nats)")
    ax.set_ylabel("probability per bin")
    ax.set_title(f"{v.k} Laplace counts, each eps = {v.epsilon:g}: where the total loss lives")
    ax.legend(ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False)
    return ax


def delta_prime_axes(tradeoff: dict[str, np.ndarray], ax: Axes | None = None) -> Axes:
    """Advanced composition's total epsilon against delta', one line per k, with basic's ``k eps`` dashed.

    Parameters
    ----------
    tradeoff : dict of str to numpy.ndarray
        The result of :func:`dpviz.experiments.composition_bounds.delta_prime_tradeoff`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    from matplotlib.lines import Line2D

    ax = new_axes(ax, figsize=(9.0, 4.0))
    colours = [PALETTE["blue"], PALETTE["orange"], PALETTE["green"], PALETTE["purple"], PALETTE["vermillion"]]
    keys = []      # the legend: a colour per k, a line style per bound (9 entries as a 3 x 3 grid hid the axes)
    for i, k in enumerate(tradeoff["k"]):
        c = colours[i % len(colours)]
        ax.plot(tradeoff["delta_prime"], tradeoff["advanced"][i], "-", color=c, lw=2, label=f"advanced, k = {k}")
        ax.plot(tradeoff["delta_prime"], tradeoff["optimal"][i], ":", color=c, lw=1.5,
                label=f"optimal (Kairouz et al.), k = {k}")
        ax.axhline(tradeoff["basic"][i], color=c, ls="--", lw=1, label=f"basic, k = {k}")
        keys.append(Line2D([], [], color=c, lw=2, label=f"k = {k}"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.invert_xaxis()
    ax.set_xlabel("delta' (smaller to the right: a stronger guarantee)")
    ax.set_ylabel("total epsilon")
    ax.set_title("Advanced composition trades delta' for epsilon")
    keys += [Line2D([], [], color=PALETTE["black"], ls=ls, lw=lw, label=name) for ls, lw, name in
             (("-", 2, "advanced"), (":", 1.5, "optimal\n(Kairouz et al.)"), ("--", 1, "basic: k eps"))]
    ax.legend(handles=keys, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return ax


def renyi_curves_axes(curves: dict[str, np.ndarray], ax: Axes | None = None) -> Axes:
    """The Laplace mechanism's Rényi curve against ``alpha eps^2 / 2`` (zCDP) and eps (pure DP).

    Parameters
    ----------
    curves : dict of str to numpy.ndarray
        The result of :func:`dpviz.experiments.composition_bounds.renyi_curves`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(7.0, 3.6))
    eps = float(curves["pure"][0])
    ax.plot(curves["alpha"], curves["laplace"], "-", color=PALETTE["blue"], lw=2, label="Laplace (Mironov)")
    ax.plot(curves["alpha"], curves["zcdp"], "--", color=PALETTE["purple"], label="alpha eps^2 / 2 (zCDP bound)")
    ax.plot(curves["alpha"], curves["pure"], ":", color=PALETTE["vermillion"], label="eps (pure DP bound)")
    ax.set_xscale("log")
    ax.set_ylim(0, eps * 1.25)
    ax.set_xlabel("Rényi order alpha")
    ax.set_ylabel("Rényi divergence (nats)")
    ax.set_title(f"The Laplace mechanism with eps = {eps:g}: its Rényi curve under both simple bounds")
    ax.legend(loc="lower right")
    return ax
