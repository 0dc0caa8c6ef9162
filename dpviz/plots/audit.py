"""Figures for the privacy-auditing lecture: the privacy-loss interval closing in, and audit summaries."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go

from dpviz.audit import AuditResult
from dpviz.experiments.audit import AuditView, SamplerFit
from dpviz.plots.bands import new_axes, plotly_band, plotly_line
from dpviz.plots.palette import ALT, PALETTE, SIMULATED, TEMPLATE, THEORY, TRUTH
from dpviz.plots.readability import log_axis

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["audit_title", "audit_verdict", "audit_figure", "audit_axes", "audit_summary_axes", "sampler_fit_axes"]


def _finite(a: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Infinite interval ends (an event never seen under one dataset) become gaps (NaN)."""
    a = np.asarray(a, dtype=float)
    return np.where(np.isfinite(a), a, np.nan)


def audit_verdict(view: AuditView) -> str:
    """'claim DISPROVED' when the lower bound at the current sample size exceeds the claim, else 'no violation'.

    Parameters
    ----------
    view : AuditView
        The explorer's view (:func:`dpviz.experiments.audit.audit_curve`).

    Returns
    -------
    str
        The verdict on the claim; a bound below the claim proves nothing, and says so.
    """
    r = view.result
    return "claim DISPROVED" if r.violation else "no violation found (this proves nothing)"


def audit_title(view: AuditView) -> str:
    """Figure title: mechanism (GPTT's label says NOT differentially private), claim, samples, verdict.

    Parameters
    ----------
    view : AuditView
        The explorer's view.

    Returns
    -------
    str
        One line: label, claimed epsilon, samples per dataset, bound and verdict.
    """
    r = view.result
    return (f"{view.label}: claimed eps = {view.claimed_epsilon:g}; n = {view.samples:,} per dataset; "
            f"eps >= {r.epsilon_lower:.3f} at {100 * r.confidence:g} % -> {audit_verdict(view)}")


def audit_figure(view: AuditView) -> go.Figure:
    """Confidence interval of the event's privacy loss against the number of samples, with the claim.

    The band is the simultaneous interval of ``ln((p - delta)/p')`` from
    :func:`dpviz.audit.privacy_loss_interval` at each sample size; its lower edge
    is the audit's lower bound on epsilon.  A horizontal line marks the claimed
    epsilon; when the lower edge rises above it the claim is disproved.

    Parameters
    ----------
    view : AuditView
        The interval at each sample size and the result at the current one.

    Returns
    -------
    plotly.graph_objects.Figure
        Band, point estimate, lower bound, claim and a marker at the current size (log x axis).
    """
    n = view.n
    traces = [
        *plotly_band(n, _finite(view.lower), _finite(view.upper), name="confidence interval of the privacy loss",
                     color=SIMULATED),
        plotly_line(n, _finite(view.estimate), name="point estimate", color=SIMULATED, dash="dot"),
        plotly_line(n, np.maximum(_finite(view.lower), 0.0), name="lower bound on epsilon", color=ALT,
                    mode="lines+markers"),
        plotly_line([n[0], view.max_samples], [view.claimed_epsilon] * 2, name="claimed epsilon", color=THEORY,
                    dash="dash"),
        plotly_line([view.samples], [view.result.epsilon_lower], name=f"bound at n = {view.samples:,}",
                    color=TRUTH, mode="markers", marker_size=11, marker_symbol="diamond"),
    ]
    # the axis holds the claim, the lower bound and the point estimate (the band's upper edge may leave it)
    top = [view.claimed_epsilon * 1.6] + [float(np.nanmax(_finite(v))) * 1.1 for v in (view.lower, view.estimate)
                                          if np.any(np.isfinite(v))]
    # the layout goes to the constructor (validated once; update_layout would cost more than a redraw budget)
    layout = dict(
        title=dict(text=audit_title(view), font=dict(size=13)),
        xaxis=log_axis([max(1.0, float(n[0])), view.max_samples], title=dict(text="samples per dataset (log scale)"),
                       range=[math.log10(max(1.0, float(n[0]))), math.log10(view.max_samples)]),
        yaxis=dict(title=dict(text="privacy loss of the event, ln((p - delta)/p')"), range=[0.0, max(top) + 0.2]),
        height=430, margin=dict(l=60, r=20, t=60, b=100), legend=dict(orientation="h", y=-0.2),
        template=TEMPLATE,
    )
    return go.Figure(data=traces, layout=layout)


def audit_axes(view: AuditView, ax: Axes | None = None) -> Axes:
    """Static (matplotlib) version of :func:`audit_figure`.

    Parameters
    ----------
    view : AuditView
        The interval at each sample size and the result at the current one.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(9.0, 4.6))
    n = view.n
    ax.fill_between(n, _finite(view.lower), _finite(view.upper), color=SIMULATED, alpha=0.2, linewidth=0,
                    label="confidence interval of the privacy loss")
    ax.plot(n, _finite(view.estimate), ":", color=SIMULATED, label="point estimate")
    ax.plot(n, np.maximum(_finite(view.lower), 0.0), "o-", ms=3, color=ALT, label="lower bound on epsilon")
    ax.axhline(view.claimed_epsilon, ls="--", color=THEORY, label=f"claimed epsilon = {view.claimed_epsilon:g}")
    ax.set_xscale("log")
    ax.set_xlim(n[0], view.max_samples)
    hi = np.nanmax(_finite(view.upper)) if np.any(np.isfinite(view.upper)) else view.claimed_epsilon
    ax.set_ylim(0.0, min(max(view.claimed_epsilon * 1.6, float(np.nanmax(np.maximum(_finite(view.lower), 0)))
                             * 1.2 + 0.2), max(hi, view.claimed_epsilon * 1.6)))
    ax.set_xlabel("samples per dataset")
    ax.set_ylabel("privacy loss of the event")
    ax.set_title(audit_title(view).replace("; n = ", "\nn = ", 1))   # the claim, then what the audit found
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    return ax


def audit_summary_axes(results: Sequence[AuditResult], ax: Axes | None = None) -> Axes:
    """One row per audit: the lower bound (dot), its event's estimate (cross) and the claim (bar), log-free.

    Bounds above the claim are drawn in vermillion (claim disproved), others in blue.

    Parameters
    ----------
    results : sequence of AuditResult
        The audits, one row each (top to bottom), labelled by their ``label``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure sized to the number of rows).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(11.5, min(0.36 * len(results) + 1.2, 5.0)))
    y = np.arange(len(results))[::-1]
    for yi, r in zip(y, results, strict=True):
        bad = bool(r.violation)
        col = THEORY if bad else SIMULATED
        ax.plot([0, r.epsilon_lower], [yi, yi], "-", color=col, lw=2)
        ax.plot(r.epsilon_lower, yi, "o", color=col)
        if r.claimed_epsilon is not None:
            ax.plot([r.claimed_epsilon] * 2, [yi - 0.35, yi + 0.35], "-", color=TRUTH, lw=2)
        # the value right of the dot and of the claim's tick, so that neither crosses it
        ax.text(max(r.epsilon_lower, r.claimed_epsilon or 0.0) + 0.15, yi, f"{r.epsilon_lower:.2f}", color=col,
                va="center")
    ax.set_yticks(y, [r.label for r in results])
    ax.set_ylim(-0.6, len(results) - 0.4)
    ends = [v for r in results for v in (r.epsilon_lower, r.claimed_epsilon or 0.0) if math.isfinite(v)]
    ax.set_xlim(0.0, 1.12 * max(ends, default=1.0) + 0.5)   # room for the values written right of the dots
    ax.set_xlabel("epsilon: lower bound found (dot) and claim (black tick)")
    ax.set_title("Auditing dpviz: bounds above the claim disprove it")
    ax.plot([], [], "o", color=THEORY, label="claim disproved")
    ax.plot([], [], "o", color=SIMULATED, label="no violation found")
    ax.legend(loc="lower right")
    ax.grid(axis="x", color=PALETTE["sky"], alpha=0.3)
    return ax


def sampler_fit_axes(fit: SamplerFit, ax: Axes | None = None) -> Axes:
    """Observed frequencies of a discrete sampler against its exact pmf.

    Parameters
    ----------
    fit : SamplerFit
        Counts, pmf and p-value from :func:`dpviz.experiments.audit.sampler_fit`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    ax.bar(fit.k, fit.observed / fit.samples, width=0.8, color=SIMULATED, alpha=0.6, label="sampled frequency")
    ax.plot(fit.k, fit.pmf, "o", color=THEORY, ms=4, label="exact pmf")
    ax.set_xlabel("noise value k")
    ax.set_ylabel("probability")
    name = fit.label.replace(" (", "\n(", 1)   # the sampler on a line of its own: two panels fit side by side
    ax.set_title(f"{name}\n{fit.samples:,} draws, chi-square p = {fit.p_value:.3f}")
    ax.set_ylim(top=1.45 * ax.get_ylim()[1])   # room for the legend above the bars
    ax.legend(loc="upper right")
    return ax
