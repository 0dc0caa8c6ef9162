"""Figures for the sum-query lecture: answers with bands, relative error on a log scale, the threshold trade-off.

The figure types follow Wu et al. 2019 (Figs. 2-4): noisy answers against the
true prefix sums with the mean and the 5-95 % band; relative error per query,
mean and band, on a log scale.  Plot functions only draw numbers computed in
:mod:`dpviz.experiments.sums`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go

from dpviz.experiments.sums import RatioSweep, SumComparison, SumExploration
from dpviz.plots.bands import mpl_band, new_axes
from dpviz.plots.palette import ALT, SIMULATED, TEMPLATE, THEORY, TRUTH, band_fill, color
from dpviz.plots.readability import direct_labels
from dpviz.validation import check_bool, check_choice

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["NAMES", "TRUNC_NAMES", "config_label", "explorer_title", "explorer_figure", "answers_axes",
           "relative_error_axes", "ratio_sweep_axes", "tau_axes", "exploration_axes"]

NAMES = {"sqm": "SQM", "identity": "Identity", "workload": "Workload", "timm": "TiMM", "tamm": "TaMM"}
TRUNC_NAMES = {"none": "NoTrunc", "svt": "Trunc(SVT)", "recursive": "Trunc(recursive-style)",
               "oracle": "Trunc(oracle, NOT DP)"}
_ALG_COLORS = {"identity": color(0), "workload": color(3), "sqm": color(4), "timm": color(2), "tamm": color(1)}
_TRUNC_COLORS = {"none": "#7f7f7f", "svt": color(0), "recursive": color(1), "oracle": color(4)}
_GREY = "#9a9a9a"
_QUERY = "query threshold t (thousands of $)"


def config_label(algorithm: str, truncation: str, isotonic: bool | None = None) -> str:
    """E.g. ``"TaMM, Trunc(SVT)"``; the oracle is marked NOT DP.

    Parameters
    ----------
    algorithm : str
        One of :data:`dpviz.sums.ALGORITHMS`.
    truncation : str
        One of :data:`dpviz.sums.THRESHOLD_METHODS`.
    isotonic : bool, optional
        Appends ", isotonic" or ", no isotonic"; ``None`` says nothing.

    Returns
    -------
    str
        The label.

    Raises
    ------
    ValueError
        For an unknown ``algorithm`` or ``truncation``.
    TypeError
        If ``isotonic`` is neither None nor a bool.

    Examples
    --------
    >>> config_label("tamm", "svt", True)
    'TaMM, Trunc(SVT), isotonic'
    """
    check_choice("algorithm", algorithm, NAMES)
    check_choice("truncation", truncation, TRUNC_NAMES)
    iso = "" if isotonic is None else (", isotonic" if check_bool("isotonic", isotonic) else ", no isotonic")
    return f"{NAMES[algorithm]}, {TRUNC_NAMES[truncation]}{iso}"


def _k(x: npt.ArrayLike) -> np.ndarray:
    return np.asarray(x, dtype=float) / 1000.0


def explorer_title(exp: SumExploration) -> str:
    """Title stating the configuration, budget split and trials (flags the non-private oracle).

    Parameters
    ----------
    exp : SumExploration
        The exploration to describe.

    Returns
    -------
    str
        One line of title text.
    """
    r = exp.release
    split = (f"rho = {r.rho:.2f}: {r.epsilon_threshold:.3g} for tau, {r.epsilon_answers:.3g} for answers"
             if r.truncation in ("svt", "recursive") else f"all {r.epsilon_answers:.3g} for answers")
    ratio = f", p = {r.ratio:.3g}" if r.truncation in ("svt", "oracle") else ""
    return f"{r.label}: epsilon = {r.epsilon:.3g} ({split}){ratio}, {exp.summary.trials} trials"


def explorer_figure(exp: SumExploration) -> go.Figure:
    """Three panels: answers vs truth (mean, 5-95 % band); bias and standard deviation per query; tau over trials.

    Top: the true prefix sums, the noise-free truncated sums at the median
    threshold, the mean of the noisy answers and their band (dollars, millions).
    Middle: simulated bias (mean - truth) next to the exact truncation bias, and
    the simulated standard deviation -- bias and variance move in opposite
    directions as the truncation ratio moves.  Bottom: where the thresholds fell.

    Parameters
    ----------
    exp : SumExploration
        The exploration to draw (from :func:`dpviz.experiments.sums.explore`).

    Returns
    -------
    plotly.graph_objects.Figure
        The three-panel figure.
    """
    s = exp.summary
    x = _k(exp.release.thresholds)
    M = 1e6
    lo, hi = s.band

    def line(y: np.ndarray, name: str, c: str, dash: str | None = None, panel: str = "",
             hover: str = "%{y:.7~g} M") -> dict[str, Any]:
        return dict(type="scatter", x=x, y=y, mode="lines", name=name, line=dict(color=c, dash=dash),
                    xaxis=f"x{panel}", yaxis=f"y{panel}", hovertemplate=f"{name}: {hover}<extra></extra>")

    # traces are plain dicts and the figure skips re-validation: the redraw budget is ~50 ms in all
    traces = [
        dict(type="scatter", x=np.concatenate([x, x[::-1]]), y=np.concatenate([s.upper, s.lower[::-1]]) / M,
             fill="toself", fillcolor=band_fill(SIMULATED), line=dict(width=0, color=SIMULATED), mode="lines",
             name=f"{lo:g}-{hi:g} % band of noisy answers", hoverinfo="skip", xaxis="x", yaxis="y"),
        line(s.truth / M, "true prefix sums", TRUTH),
        line(exp.truncated_truth / M, "truncated sums (no noise, median tau)", ALT, "dot"),
        line(s.mean / M, "mean noisy answer", SIMULATED, "dash"),
        line(s.bias / M, "bias (simulated: mean - truth)", THEORY, None, "2", "%{y:.7~g} M"),
        line(exp.bias_closed_form / M, "truncation bias (exact, no isotonic)", THEORY, "dot", "2", "%{y:.7~g} M"),
        line(np.sqrt(s.variance) / M, "standard deviation (simulated)", SIMULATED, "dash", "2", "%{y:.7~g} M"),
    ]
    # the middle panel's three lines are named at their right ends (direct labels), not in the legend
    middle = [s.bias / M, exp.bias_closed_form / M, np.sqrt(s.variance) / M]
    for t in traces[4:]:
        t["showlegend"] = False
    ends = [float(np.asarray(v)[-1]) for v in middle]
    spread = float(np.nanmax([np.nanmax(v) for v in middle]) - np.nanmin([np.nanmin(v) for v in middle])) or 1.0
    traces.append(direct_labels(["bias (simulated)", "bias (exact)", "std (simulated)"], float(x[-1]), ends,
                                [THEORY, THEORY, SIMULATED], xaxis="x2", yaxis="y2", min_gap=spread / 9))
    taus = np.asarray(exp.taus, dtype=float)
    finite = taus[np.isfinite(taus)]
    if finite.size:
        vals, counts = np.unique(np.round(finite / 1000.0, 1), return_counts=True)
    else:
        vals, counts = np.array([x[-1]]), np.array([0])
    traces.append(dict(type="bar", x=vals, y=counts, name="thresholds tau drawn (count of trials)",
                       marker=dict(color=color(3)), xaxis="x3", yaxis="y3", showlegend=False,
                       hovertemplate="tau = %{x:.7~g} k$: %{y} trials<extra></extra>"))
    no_trunc = "" if finite.size else " (no truncation: tau = inf)"
    xr = [0, float(x[-1]) * 1.02]
    layout = dict(
        title=dict(text=explorer_title(exp), font=dict(size=13)), height=800,
        margin=dict(l=70, r=110, t=60, b=110), template=TEMPLATE,
        legend=dict(orientation="h", yanchor="top", y=-0.09),
        xaxis=dict(range=xr, anchor="y", matches="x2", showticklabels=False),
        yaxis=dict(domain=[0.56, 1.0], title=dict(text="prefix sum (M$)")),
        xaxis2=dict(range=xr, anchor="y2", title=dict(text="query threshold t (k$)")),
        yaxis2=dict(domain=[0.25, 0.5], title=dict(text="bias, std (M$)"), zeroline=True, zerolinecolor="#888"),
        xaxis3=dict(range=xr, anchor="y3", title=dict(text=f"truncation threshold tau (k$){no_trunc}")),
        yaxis3=dict(domain=[0.0, 0.14], title=dict(text="trials")),
    )
    return go.Figure(data=traces, layout=layout, _validate=False)


# ----------------------------------------------------------------------------- static (matplotlib)
def _panels(ax: Any, n: int) -> list[Axes] | None:
    """``ax`` as a list of ``n`` panels (one per configuration), or None for one Axes (or none) to overlay them on."""
    if ax is None or hasattr(ax, "plot"):
        return None
    panels = list(np.ravel(ax))
    if len(panels) != n:
        raise ValueError(f"ax must be one Axes or one Axes per configuration ({n}); got {len(panels)}")
    return panels


def _panel_titles(configs: Sequence[tuple[str, str, bool]]) -> list[str]:
    """What tells the configurations apart: the truncation if they share the algorithm, the algorithm if they
    share the truncation, else both (what they share belongs in the figure's title)."""
    algs, truncs = ({c[k] for c in configs} for k in (0, 1))
    return [TRUNC_NAMES[t] if len(algs) == 1 else NAMES[a] if len(truncs) == 1 else config_label(a, t)
            for a, t, _ in configs]


def _key(panels: Sequence[Axes], titles: Sequence[str], ylabel: str, entries: Sequence[tuple[str, str]]) -> None:
    """Title the panels, label the axes once for the grid, put one legend below it (once, however many calls fill
    its rows): ``(kind, label)`` with kind "line" or "band" (neutral grey), "truth" or "grey"."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import MaxNLocator

    for on, title in zip(panels, titles, strict=True):
        on.set_title(title)
        on.xaxis.set_major_locator(MaxNLocator(4, steps=[1, 2, 2.5, 5, 10]))   # outer labels apart
        on.set_ylabel("")
    specs = [on.get_subplotspec() for on in panels]   # None (axes placed by hand): as one row
    bottom = [on for on, sp in zip(panels, specs, strict=True) if sp is None or sp.is_last_row()]
    for on in bottom[len(bottom) // 2:len(bottom) // 2 + 1] if len(bottom) % 2 else bottom:   # once if centred
        on.set_xlabel(_QUERY)
    fig = panels[0].figure
    if max(sp.get_gridspec().nrows if sp else 1 for sp in specs) > 1:
        fig.supylabel(ylabel)
    else:
        panels[0].set_ylabel(ylabel)
    c = {"line": "#555555", "band": "#555555", "truth": TRUTH, "grey": _GREY}
    if not fig.legends:
        fig.legend(handles=[Patch(facecolor=c[k], alpha=0.3, edgecolor=c[k], ls="--", label=lab) if k == "band"
                            else Line2D([], [], color=c[k], lw=2.0, label=lab) for k, lab in entries],
                   loc="outside lower center", ncol=len(entries), frameon=False)


def answers_axes(comp: SumComparison, configs: Sequence[tuple[str, str, bool]], ax: Any = None,
                 band: tuple[float, float] = (5.0, 95.0)) -> Any:
    """Seed Fig. 2: noisy answers per query (mean and band) for several configurations, with the true sums.

    On one Axes the configurations are overlaid, each band and its mean one legend entry.  On one Axes per
    configuration (small multiples sharing their y axis; one call per row may fill a grid) each panel holds one
    band and mean with the true sums, titled with what tells it apart, and one legend goes below the figure.

    Parameters
    ----------
    comp : SumComparison
        The comparison holding the answers.
    configs : sequence of (algorithm, truncation, isotonic)
        The configurations to draw.
    ax : matplotlib.axes.Axes or sequence of Axes, optional
        One Axes to overlay the configurations on, or one per configuration (default: a new figure, overlaid).
    band : tuple of float
        Central percentile band of the answers.

    Returns
    -------
    matplotlib.axes.Axes or list of Axes
        The axes drawn on.
    """
    from matplotlib.legend_handler import HandlerTuple
    from matplotlib.patches import Patch

    panels = _panels(ax, len(configs))
    ax = new_axes(ax, figsize=(7.0, 4.0)) if panels is None else panels[0]
    x, M = _k(comp.thresholds), 1e6
    handles: list[Any] = []
    for i, (alg, trunc, iso) in enumerate(configs):
        s = comp.answer_summary(alg, trunc, iso, band)
        c = _TRUNC_COLORS[trunc] if len({a for a, _, _ in configs}) == 1 else _ALG_COLORS[alg]
        on = ax if panels is None else panels[i]
        mpl_band(on, x, s.lower / M, s.upper / M, color=c, label="_nolegend_", alpha=0.18 if panels is None else 0.3)
        (line,) = on.plot(x, s.mean / M, color=c, lw=1.8 if panels is None else 2.2, label=config_label(alg, trunc))
        handles.append((Patch(facecolor=c, alpha=0.3, edgecolor=c, ls="--"), line))
    for on in panels or [ax]:
        (truth,) = on.plot(x, comp.truth / M, color=TRUTH, lw=1.8, label="true prefix sums")
    what, ylabel = f"{band[0]:g}-{band[1]:g} % of answers", "prefix sum (millions of $)"
    if panels is not None:
        _key(panels, _panel_titles(configs), ylabel,
             [("line", "mean answer"), ("band", what), ("truth", "true prefix sums")])
        return panels
    ax.set(xlabel=_QUERY, ylabel=ylabel)
    ax.legend(handles + [truth], [config_label(a, t) for a, t, _ in configs] + ["true prefix sums"],
              handler_map={tuple: HandlerTuple(ndivide=1)}, loc="upper left", title=f"mean (line), {what} (band)")
    return ax


def relative_error_axes(comp: SumComparison, configs: Sequence[tuple[str, str, bool]], ax: Any = None,
                        band: tuple[float, float] = (5.0, 95.0), labels: Sequence[str] | None = None) -> Any:
    """Seed Figs. 3-4: relative error per query, mean (line) and band (shade), log scale.

    On one Axes the configurations are overlaid.  On one Axes per configuration (small multiples sharing their y
    axis; one call per row may fill a grid) each panel holds one band and mean, the means of the call's other
    panels in grey, and one legend goes below the figure.

    Parameters
    ----------
    comp : SumComparison
        The comparison holding the relative errors.
    configs : sequence of (algorithm, truncation, isotonic)
        The configurations to draw.
    ax : matplotlib.axes.Axes or sequence of Axes, optional
        One Axes to overlay the configurations on, or one per configuration (default: a new figure, overlaid).
    band : tuple of float
        Central percentile band of the errors.
    labels : sequence of str, optional
        One label per configuration, for the legend or the panels' titles (default: :func:`config_label`, or in
        panels what tells the configurations apart).

    Returns
    -------
    matplotlib.axes.Axes or list of Axes
        The axes drawn on.
    """
    panels = _panels(ax, len(configs))
    ax = new_axes(ax, figsize=(7.0, 4.0)) if panels is None else panels[0]
    x, algs = _k(comp.thresholds), [a for a, _, _ in configs]
    bands = [comp.bands(alg, trunc, iso, band) for alg, trunc, iso in configs]
    names = list(labels) if labels is not None else (
        [config_label(a, t) for a, t, _ in configs] if panels is None else _panel_titles(configs))
    for i, b in enumerate(bands):
        c = _ALG_COLORS[algs[i]] if panels is not None or len(set(algs)) == len(algs) else color(i)
        on = ax if panels is None else panels[i]
        for other in bands[:i] + bands[i + 1:] if panels is not None else []:
            on.plot(x, other.mean, color=_GREY, lw=1.3)
        mpl_band(on, x, b.lower, b.upper, color=c, label="_nolegend_", alpha=0.15 if panels is None else 0.3)
        on.plot(x, b.mean, color=c, lw=1.8 if panels is None else 2.2, label=f"{names[i]} (mean {b.overall:.2e})")
        on.set_yscale("log")
    if panels is not None:
        _key(panels, [f"{n}: mean {b.overall:.2e}" for n, b in zip(names, bands, strict=True)], "relative error",
             [("line", "mean relative error"), ("band", f"{band[0]:g}-{band[1]:g} % of trials"),
              ("grey", "other panels' means")])
        return panels
    ax.set(xlabel=_QUERY, ylabel=f"relative error (mean, {band[0]:g}-{band[1]:g} % band)")
    ax.legend(loc="upper right")
    return ax


def ratio_sweep_axes(sweep: RatioSweep, ax: Axes | None = None) -> Axes:
    """Overall mean relative error against the truncation ratio p, one line per algorithm; dashed: NoTrunc.

    Parameters
    ----------
    sweep : RatioSweep
        The sweep to draw (from :func:`dpviz.experiments.sums.ratio_sweep`).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(9.0, 4.0))
    for alg, errs in sweep.errors.items():
        c = _ALG_COLORS[alg]
        ax.plot(sweep.ratios, errs, "o-", color=c, label=NAMES[alg])
        ax.axhline(sweep.no_truncation[alg], color=c, ls="--", lw=1.2)
    ax.set_xscale("logit")
    ax.set_yscale("log")
    ax.set_xlabel("truncation ratio p (fraction of records kept whole; logit scale)")
    ax.set_ylabel("mean relative error")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), title="Trunc(SVT)\ndashed: NoTrunc")
    return ax


def tau_axes(taus: dict[str, npt.ArrayLike], ax: Axes | None = None,
             quantiles: dict[str, float] | None = None) -> Axes:
    """Histogram of the thresholds drawn per method (thousands of $), with reference quantiles.

    Parameters
    ----------
    taus : dict
        Threshold method -> thresholds drawn (``inf`` values are left out).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).
    quantiles : dict, optional
        Name -> value in dollars of reference lines (e.g. the oracle quantiles).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(7.0, 3.4))
    for method, drawn in taus.items():
        t = np.asarray(drawn, dtype=float)
        t = t[np.isfinite(t)]
        if t.size:
            vals, counts = np.unique(np.round(t / 1000.0, 1), return_counts=True)
            ax.bar(vals, counts, width=6.0, alpha=0.6, color=_TRUNC_COLORS[method], label=TRUNC_NAMES[method])
    for name, q in (quantiles or {}).items():   # named inside the axes, down from its top, left of the line
        ax.axvline(q / 1000.0, color=TRUTH, ls=":", lw=1.2)
        ax.annotate(name, (q / 1000.0, 0.97), xycoords=("data", "axes fraction"), rotation=90, ha="right", va="top")
    ax.set_xlabel("truncation threshold tau (thousands of $)")
    ax.set_ylabel("trials")
    ax.legend(loc="upper right")
    return ax


def exploration_axes(exp: SumExploration, axes: Sequence[Axes] | None = None) -> tuple[Axes, Axes]:
    """Static version of :func:`explorer_figure`: answers with band (top) and bias / standard deviation (bottom).

    Parameters
    ----------
    exp : SumExploration
        The exploration to draw.
    axes : pair of matplotlib.axes.Axes, optional
        Top and bottom axes (default: a new figure with two rows).

    Returns
    -------
    tuple of matplotlib.axes.Axes
        The top and bottom axes.
    """
    if axes is None:
        import matplotlib.pyplot as plt

        _, (top, bottom) = plt.subplots(2, 1, figsize=(10.5, 4.9), sharex=True, layout="constrained",
                                        gridspec_kw=dict(height_ratios=[1.5, 1.0]))
    else:
        top, bottom = axes
    s, x, M = exp.summary, _k(exp.release.thresholds), 1e6
    lo, hi = s.band
    mpl_band(top, x, s.lower / M, s.upper / M, color=SIMULATED, label=f"{lo:g}-{hi:g} % band of noisy answers")
    top.plot(x, s.truth / M, color=TRUTH, lw=1.5, label="true prefix sums")
    top.plot(x, exp.truncated_truth / M, color=ALT, ls=":", lw=1.5, label="truncated sums (no noise, median tau)")
    top.plot(x, s.mean / M, color=SIMULATED, ls="--", lw=1.2, label="mean noisy answer")
    top.set_ylabel("prefix sum (M$)")
    top.figure.suptitle(explorer_title(exp).replace(": ", "\n", 1))   # the configuration, then its budget
    bottom.axhline(0.0, color="#888888", lw=0.8)
    bottom.plot(x, s.bias / M, color=THEORY, lw=1.5, label="bias (simulated)")
    bottom.plot(x, exp.bias_closed_form / M, color=THEORY, ls=":", lw=1.5, label="truncation bias (exact)")
    bottom.plot(x, np.sqrt(s.variance) / M, color=SIMULATED, lw=1.5, label="standard deviation (simulated)")
    bottom.set_xlabel(_QUERY)
    bottom.set_ylabel("M$")
    for on in (top, bottom):   # right of the panels, clear of the data
        on.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return top, bottom
