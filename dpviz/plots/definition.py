"""Figures for lecture 00 (what differential privacy promises): two output distributions and their privacy loss,
a randomized-response survey, the posterior bounds and the loss after post-processing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from dpviz.experiments.definition import PosteriorCurves, PostProcessing, PrivacyLossView, SurveyExperiment
from dpviz.plots.bands import new_axes
from dpviz.plots.palette import PALETTE, TEMPLATE

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["privacy_loss_title", "privacy_loss_figure", "privacy_loss_figure_spec", "privacy_loss_axes", "survey_axes",
           "posterior_axes", "post_processing_axes"]

_D, _DP, _LOSS, _BOUND, _ONE = PALETTE["blue"], PALETTE["vermillion"], PALETTE["black"], PALETTE["green"], \
    PALETTE["grey"]


def _datasets(v: PrivacyLossView) -> tuple[str, str]:
    """How D and D' differ, in words, for legends."""
    if v.mechanism == "randomized response":
        if v.group == 1:
            return "D: the person answers yes", "D': the person answers no"
        return f"D: {v.group} people answer yes", "D': they answer no"
    people = "1 person" if v.group == 1 else f"{v.group} people"
    return f"D: count {v.answer:g}", f"D': {people} added, count {v.answer_prime:g}"


def _output_label(v: PrivacyLossView) -> str:
    """The x axis: the released value, or the number of "yes" reports."""
    if v.mechanism != "randomized response":
        return "released value"
    return "the person's report (0 = no, 1 = yes)" if v.group == 1 else "number of 'yes' reports in the group"


def _bound_name(v: PrivacyLossView) -> str:
    """What the dashed lines are: a bound for pure DP, only the epsilon of (epsilon, delta)-DP for Gaussian."""
    return "ε of (ε, δ)-DP" if v.mechanism == "Gaussian" else "ε-DP bound"


def privacy_loss_title(v: PrivacyLossView) -> str:
    """Title with the mechanism, its parameters, the bound and what the figure shows about it.

    Parameters
    ----------
    v : PrivacyLossView
        The view drawn.

    Returns
    -------
    str
        One or two lines of text.
    """
    who = "1 person" if v.group == 1 else f"a group of {v.group}"
    params = f"ε = {v.epsilon:.3g}" + (f", δ = {v.delta:.2g}" if v.mechanism == "Gaussian" else "")
    if v.mechanism == "Gaussian":
        head = f"{v.mechanism}, {params}; D and D' differ by {who}; the ε line is at ±{v.bound:.3g}"
        tail = f"the loss is unbounded: |loss| > {v.bound:.3g} with probability {v.tail_probability:.2g} on D"
    else:
        head = f"{v.mechanism}, {params}; D and D' differ by {who}: ε-DP bounds the loss by ±{v.bound:.3g}"
        tail = f"largest |loss| = {v.max_abs_loss:.3g}"
    return f"{head}<br>{tail}; best test's advantage (total variation) {v.total_variation:.3f}"


def privacy_loss_figure(v: PrivacyLossView) -> go.Figure:
    """Two panels: the output distributions on D and D' (exact and simulated), and their privacy loss.

    The figure of :func:`privacy_loss_figure_spec`, validated by plotly.

    Parameters
    ----------
    v : PrivacyLossView
        The view to draw.

    Returns
    -------
    plotly.graph_objects.Figure
        The two-panel figure.
    """
    traces, layout = privacy_loss_figure_spec(v)
    return go.Figure(data=traces, layout=layout)


def _scatter(**props: Any) -> dict[str, Any]:
    """A scatter trace as a plain dict on the loss panel's axes unless ``yaxis`` says otherwise."""
    return {"type": "scatter", "xaxis": "x", "yaxis": "y", **props}


def privacy_loss_figure_spec(v: PrivacyLossView) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Two panels: the output distributions on D and D' (exact and simulated), and their privacy loss.

    The bottom panel shows the exact loss ``ln(p_D / p_D')`` at each output, the simulated loss of each bin
    (±1.96 standard errors) and the bound ``±group·ε``; for a group, the one-person bound ``±ε`` too.  The
    trace list is the same for every mechanism, so the explorer redraws in place; as plain dicts, a redraw
    sends only the arrays and titles that changed.

    Parameters
    ----------
    v : PrivacyLossView
        The view to draw.

    Returns
    -------
    traces : list of dict
        The ten traces, in drawing order.
    layout : dict
        The layout (two stacked panels sharing the x axis).

    Raises
    ------
    TypeError
        If ``v`` is not a :class:`~dpviz.experiments.definition.PrivacyLossView`.

    Examples
    --------
    >>> from dpviz.experiments.definition import privacy_loss_view
    >>> traces, layout = privacy_loss_figure_spec(privacy_loss_view("Laplace", 0.5, samples=10_000, rng=0))
    >>> len(traces), traces[6]["y"]   # the epsilon-DP bound: the loss stays within +-0.5
    (10, [0.5, 0.5])
    """
    if not isinstance(v, PrivacyLossView):
        raise TypeError(f"v must be a PrivacyLossView (from privacy_loss_view), got {type(v).__name__}")
    discrete = v.mechanism == "randomized response"
    label_d, label_dp = _datasets(v)
    unit = 1.0 if discrete else v.bin_width
    mode = "markers" if discrete else "lines"      # a discrete output has no values in between
    ok = np.isfinite(v.simulated_loss)
    x0, x1 = float(v.outputs[0]), float(v.outputs[-1])
    if discrete:
        x0, x1 = x0 - 0.3, x1 + 0.3
    one = v.group > 1
    traces = [
        _scatter(x=v.outputs, y=v.density, mode=mode, name=f"{label_d}: exact (line), simulated (o)",
                 line={"color": _D, "width": 2},
                 marker={"color": _D, "size": 12, "symbol": "diamond"}, yaxis="y2", legendgroup="d"),
        _scatter(x=v.outputs, y=v.density_prime, mode=mode, name=f"{label_dp}: exact (dashed), simulated (x)",
                 line={"color": _DP, "width": 2, "dash": "dash"},
                 marker={"color": _DP, "size": 12, "symbol": "square"}, yaxis="y2", legendgroup="dp"),
        _scatter(x=v.bin_centres, y=v.simulated_bin / unit, mode="markers", name=f"simulated on D ({v.samples:,})",
                 marker={"color": _D, "symbol": "circle-open", "size": 7}, yaxis="y2", legendgroup="d",
                 showlegend=False),
        _scatter(x=v.bin_centres, y=v.simulated_bin_prime / unit, mode="markers",
                 name=f"simulated on D' ({v.samples:,})", marker={"color": _DP, "symbol": "x-thin-open", "size": 7},
                 yaxis="y2", legendgroup="dp", showlegend=False),
        _scatter(x=v.outputs, y=v.loss, mode=mode,
                 name="privacy loss ln(p_D / p_D'): exact (line), simulated (dots, 95 % bars)",
                 line={"color": _LOSS, "width": 2}, marker={"color": _LOSS, "size": 12, "symbol": "diamond-wide"},
                 legendgroup="loss"),
        _scatter(x=v.bin_centres[ok], y=v.simulated_loss[ok], mode="markers", name="privacy loss, simulated",
                 marker={"color": PALETTE["purple"], "size": 6}, legendgroup="loss", showlegend=False,
                 error_y={"type": "data", "array": 1.96 * v.stderr[ok], "visible": True,
                          "color": PALETTE["purple"]}),
        _scatter(x=[x0, x1], y=[v.bound, v.bound], mode="lines", name=f"{_bound_name(v)} ±{v.bound:.3g}",
                 line={"color": _BOUND, "dash": "dash"}, legendgroup="bound"),
        _scatter(x=[x0, x1], y=[-v.bound, -v.bound], mode="lines", showlegend=False,
                 line={"color": _BOUND, "dash": "dash"}, legendgroup="bound"),
        _scatter(x=[x0, x1], y=[v.epsilon, v.epsilon], mode="lines", name=f"one person's bound ±{v.epsilon:.3g}",
                 line={"color": _ONE, "dash": "dot"}, visible=one, legendgroup="one"),
        _scatter(x=[x0, x1], y=[-v.epsilon, -v.epsilon], mode="lines", showlegend=False,
                 line={"color": _ONE, "dash": "dot"}, visible=one, legendgroup="one"),
    ]
    xlabel = _output_label(v)
    layout = dict(
        title={"text": privacy_loss_title(v), "font": {"size": 13}}, height=640, template=TEMPLATE,
        margin=dict(l=70, r=20, t=80, b=150), legend=dict(orientation="h", y=-0.17),
        xaxis=dict(title=xlabel, range=[x0, x1], **({"dtick": 1} if discrete else {})),
        yaxis=dict(domain=[0.0, 0.46], title="privacy loss", zeroline=True, zerolinecolor="#888"),
        yaxis2=dict(domain=[0.56, 1.0], title="probability" if discrete else "density", anchor="x", rangemode="tozero"),
    )
    return traces, layout


def _wrapped(pieces: list[str], width: int = 95) -> str:
    """Join ``pieces`` with "; " into lines of at most ``width`` characters (a piece is never split)."""
    lines = [pieces[0]]
    for piece in pieces[1:]:
        if len(lines[-1]) + 2 + len(piece) <= width:
            lines[-1] += f"; {piece}"
        else:
            lines.append(piece)
    return "\n".join(lines)


def privacy_loss_axes(v: PrivacyLossView, axes: list[Axes] | None = None) -> list[Axes]:
    """Static (matplotlib) version of :func:`privacy_loss_figure`: distributions on the left, privacy loss right.

    The title and the legend are the figure's (above and below both panels), so the panels stay wide enough to
    read on a projector and no legend covers the curves.

    Parameters
    ----------
    v : PrivacyLossView
        The view to draw.
    axes : list of two matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure with two panels side by side).

    Returns
    -------
    list of matplotlib.axes.Axes
        The two axes drawn on.
    """
    if axes is None:
        import matplotlib.pyplot as plt

        _, pair = plt.subplots(1, 2, figsize=(11.8, 5.0), sharex=True, layout="constrained")
        axes = list(pair)
    left, right = axes
    discrete = v.mechanism == "randomized response"
    label_d, label_dp = _datasets(v)
    unit = 1.0 if discrete else v.bin_width
    style = "D" if discrete else "-"      # a discrete output has no values in between: points, no lines
    left.plot(v.outputs, v.density, style, color=_D, lw=2, ms=9, label=f"exact on {label_d}")
    left.plot(v.outputs, v.density_prime, "s" if discrete else "--", color=_DP, lw=2, ms=9,
              label=f"exact on {label_dp}")
    left.plot(v.bin_centres, v.simulated_bin / unit, "o", mfc="none", color=_D, ms=5, label="simulated on D")
    left.plot(v.bin_centres, v.simulated_bin_prime / unit, "x", color=_DP, ms=5, label="simulated on D'")
    left.set_ylabel("probability" if discrete else "density")
    left.set_xlabel(_output_label(v))
    left.set_ylim(bottom=0)
    if discrete:
        right.set_xticks(v.outputs)
    ok = np.isfinite(v.simulated_loss)
    right.plot(v.outputs, v.loss, style, color=_LOSS, lw=2, ms=9, label="privacy loss, exact")
    right.errorbar(v.bin_centres[ok], v.simulated_loss[ok], yerr=1.96 * v.stderr[ok], fmt="o", ms=4,
                    color=PALETTE["purple"], label="simulated (±1.96 s.e.)")
    for sign in (1, -1):
        right.axhline(sign * v.bound, color=_BOUND, ls="--", label=f"{_bound_name(v)} ±{v.bound:.3g}" if sign > 0
                       else None)
        if v.group > 1:
            right.axhline(sign * v.epsilon, color=_ONE, ls=":", label="one person's bound" if sign > 0 else None)
    right.set_ylabel("privacy loss ln(p_D / p_D')")
    right.set_xlabel(_output_label(v))
    fig = left.figure
    handles, labels = left.get_legend_handles_labels()
    more = right.get_legend_handles_labels()
    fig.legend(handles + more[0], labels + more[1], loc="outside lower center", ncols=4, frameon=False)
    head, tail = privacy_loss_title(v).split("<br>")
    fig.suptitle(_wrapped([head, *tail.split("; ")]))
    return [left, right]


def survey_axes(s: SurveyExperiment, ax: Axes | None = None) -> Axes:
    """Histogram of the survey's debiased estimates beside the normal curve of the closed-form variance.

    Parameters
    ----------
    s : SurveyExperiment
        The runs to draw.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    from scipy import stats

    ax = new_axes(ax, figsize=(11.5, 3.9))
    # the estimates lie on a lattice of spacing s.resolution: bins of 3 lattice steps, centred on lattice points
    step = 3 * s.resolution
    lo = s.truth + step * (np.floor((s.estimates.min() - s.truth) / step) - 0.5)
    edges = np.arange(lo, s.estimates.max() + step, step)
    ax.hist(s.estimates, bins=list(edges), density=True, color=PALETTE["sky"], alpha=0.7,
            label=f"debiased estimates ({s.trials:,} surveys)")
    x = np.linspace(s.estimates.min(), s.estimates.max(), 200)
    ax.plot(x, stats.norm.pdf(x, s.truth, np.sqrt(s.theory_variance)), color=PALETTE["vermillion"], lw=2,
            label="normal, mean = truth, variance e^ε / (n (e^ε - 1)^2)")
    ax.axvline(s.truth, color=PALETTE["black"], lw=1, label=f"true fraction {s.truth:.3g}")
    ax.axvline(float(np.mean(s.raw_fractions)), color=PALETTE["orange"], ls="--", lw=1.5,
               label=f"raw fraction of 'yes' reports, mean {np.mean(s.raw_fractions):.3g}")
    ax.set_xlabel("estimated fraction of 'yes' answers")
    ax.set_ylabel("density")
    ax.set_title(f"Randomized response, ε = {s.epsilon:.3g}, n = {s.n:,}:\nsimulated variance "
                 f"{s.simulated_variance:.3g}, theory {s.theory_variance:.3g}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))     # beside the histogram, never over it
    return ax


def posterior_axes(c: PosteriorCurves, ax: Axes | None = None) -> Axes:
    """The band of posteriors an ε-DP output allows, against the prior, one band per ε.

    Parameters
    ----------
    c : PosteriorCurves
        The bounds to draw.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(9.0, 4.4))
    colours = [PALETTE[k] for k in ("blue", "green", "orange", "vermillion", "purple", "sky")]
    for i, eps in enumerate(c.epsilons):     # between the two curves of an epsilon lies every possible posterior
        col = colours[i % len(colours)]
        ax.plot(c.priors, c.high[i], color=col, lw=1.8, label=f"ε = {eps:.3g}")
        ax.plot(c.priors, c.low[i], color=col, lw=1.8, ls="--")
    ax.plot([0, 1], [0, 1], color=PALETTE["black"], lw=0.8, ls=":", label="posterior = prior")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("prior belief that the person is in the data (or answered yes)")
    ax.set_ylabel("posterior after one output")
    ax.set_title("How far one ε-DP output can move an informed adversary's belief")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), title="highest (solid) and\nlowest (dashed)\nposterior")
    return ax


def post_processing_axes(pp: PostProcessing, ax: Axes | None = None) -> Axes:
    """Privacy loss of each output of the rounded-and-clamped Laplace count, exact and simulated, under ±ε.

    Parameters
    ----------
    pp : PostProcessing
        The computation to draw.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(11.0, 3.9))
    ax.bar(pp.outputs, pp.loss, color=PALETTE["sky"], label="exact loss of each rounded output")
    f, f_p, n = pp.simulated, pp.simulated_prime, pp.samples
    with np.errstate(divide="ignore", invalid="ignore"):
        sim = np.log(f) - np.log(f_p)
        se = np.sqrt((1 - f) / (n * f) + (1 - f_p) / (n * f_p))       # delta method
    ok = np.isfinite(sim)
    ax.errorbar(pp.outputs[ok], sim[ok], yerr=1.96 * se[ok], fmt="o", color=PALETTE["vermillion"], ms=5,
                label=f"simulated ({n:,} releases each, ±1.96 s.e.)")
    for sign in (1, -1):
        ax.axhline(sign * pp.epsilon, color=PALETTE["green"], ls="--", label="±ε of the raw release" if sign > 0
                   else None)
    ax.set_xticks(pp.outputs)
    ax.set_xlabel(f"released count, rounded and clamped to [0, {pp.top}]")
    ax.set_ylabel("privacy loss ln(p_D / p_D')")
    ax.set_title(f"Post-processing a Laplace count (ε = {pp.epsilon:.3g}; D: {pp.count}, D': {pp.count + 1}):\n"
                 f"tight ε {pp.rounded_epsilon:.3f}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))     # beside the bars, never over them
    return ax
