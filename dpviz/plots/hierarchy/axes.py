"""Static (matplotlib) figures for the hierarchies lecture: releases, covers, error curves and studies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from dpviz.experiments.hierarchy import BranchingStudy, HierarchyRun, WidthCurves
from dpviz.plots.bands import mpl_band, new_axes
from dpviz.plots.hierarchy.style import (
    METHOD_COLORS,
    counts_need_log,
    curves_title,
    legend_below,
    method_label,
    slot_width,
    wrapped,
)
from dpviz.plots.palette import ALT, SIMULATED, THEORY, TRUTH, color

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "width_curves_axes",
    "release_axes",
    "cover_axes",
    "branching_axes",
    "allocation_axes",
    "dimension_axes",
    "level_variance_axes",
]


def width_curves_axes(c: WidthCurves, ax: Axes | None = None, *, bands: bool = True,
                      colors: Mapping[str, str] | None = None, title: str | None = None) -> Axes:
    """Static MSE-vs-width figure: exact lines, simulated means (markers) and bands, log-log.

    Parameters
    ----------
    c : WidthCurves
        Exact and simulated error by range width.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes).
    bands : bool, default True
        Shade the simulated percentile band of each method.
    colors : mapping of str to str, optional
        Colour per method key, overriding :data:`METHOD_COLORS` (to draw several
        WidthCurves on one axes).
    title : str, optional
        Axes title (default the parameters of :func:`curves_title` plus the band), broken into lines that fit
        the axes' grid column. The legend, under the axes, has one entry per method drawn on them.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    from matplotlib.lines import Line2D

    ax = new_axes(ax, figsize=(10.0, 4.4))
    lo, hi = c.band
    for m in c.methods:
        col_m = (colors or {}).get(m, METHOD_COLORS[m])
        name = method_label(m, c.branching)
        if bands:
            mpl_band(ax, c.widths, c.lower[m], c.upper[m], color=col_m, label="_nolegend_", alpha=0.15)
        ax.plot(c.widths, c.analytic[m], "-", color=col_m, label=name)
        ax.plot(c.widths, c.simulated[m], "o", color=col_m, ms=3.5, label="_nolegend_")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("range width (bins)")
    ax.set_ylabel("mean squared error")
    width = slot_width(ax)
    if title is None:       # the axis labels say "MSE vs range width": the title keeps the parameters
        title = curves_title(c).removeprefix("MSE vs range width: ") + (f"; bands {lo:g}-{hi:g} %" if bands else "")
    ax.set_title(wrapped(title, int(7.8 * width)))
    # one entry per method (a line with a dot), also for every WidthCurves drawn before on these axes
    lines, names = ax.get_legend_handles_labels()
    keys = [Line2D([], [], color=h.get_color() if isinstance(h, Line2D) else None, marker="o", ms=5) for h in lines]
    legend_below(ax, keys, names, ncols=max(1, min(len(keys), int(width // 2.6))),
                 title="lines: exact; dots: simulated mean")
    return ax


def release_axes(run: HierarchyRun, ax: Axes | None = None) -> Axes:
    """Static view of the true histogram, a Flat release and the H_b leaves (raw or after inference).

    Parameters
    ----------
    run : HierarchyRun
        The explorer's computation.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    b = run.curves.branching
    x = np.arange(run.truth.size)
    ax.plot(x, run.flat, ".", ms=2, color=METHOD_COLORS["flat"], alpha=0.6, label="Flat release")
    shown = run.ci_leaves if run.constrained else run.noisy_leaves
    ax.plot(x, shown, "-", lw=0.8, color=METHOD_COLORS["tree_ci" if run.constrained else "tree"],
            label=f"H_{b} leaves" + (" after constrained inference" if run.constrained else " (noisy)"))
    ax.plot(x, run.truth, "-", lw=1.2, color=TRUTH, label="true histogram")
    ax.axvspan(run.cover.start - 0.5, run.cover.stop - 0.5, color="0.9", zorder=0, label="selected range")
    ax.set_xlabel("bin")
    if counts_need_log(run.truth):      # as the explorer's panel: log when the counts span > 2 decades
        ax.set_yscale("log", nonpositive="mask")
        ax.set_ylabel("count (log scale;\ncounts <= 0 not drawn)")
    else:
        ax.set_ylabel("count")
    ax.set_title(f"n = {run.truth.size}, b = {b}, epsilon = {run.curves.epsilon:.3g}")
    legend_below(ax, *ax.get_legend_handles_labels(), ncols=2)
    return ax


def cover_axes(run: HierarchyRun, ax: Axes | None = None) -> Axes:
    """Static view of the selected range's cover nodes: each node's error before and after constrained inference.

    Errors (count minus true count), not counts, so the noise inference removes is visible whatever the size of
    the counts; a bar joins each node's two errors (the correction inference made).

    Parameters
    ----------
    run : HierarchyRun
        The explorer's computation.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    cov = run.cover
    k = np.arange(cov.level.size)
    ax.axhline(0.0, color=TRUTH, lw=0.8, ls=":", label="true count (error 0)")
    ax.vlines(k, cov.noisy_error, cov.consistent_error, color="0.6", lw=1, label="correction by inference")
    ax.plot(k - 0.08, cov.noisy_error, "o", color=METHOD_COLORS["tree"], label="before: noisy - true")
    ax.plot(k + 0.08, cov.consistent_error, "s", color=METHOD_COLORS["tree_ci"], label="after inference - true")
    # a node runs from its first bin to the next node's: the first bin alone keeps the tick labels apart
    ax.set_xticks(k, [f"L{lv}\n{s}" for lv, s in zip(cov.level, cov.node_start, strict=True)])
    ax.set_xlabel("cover node: level L and first bin")
    ax.set_ylabel("count - true count")
    a = run.answers
    b = run.curves.branching
    title = (f"minimal cover of [{cov.start}, {cov.stop}): range error H_{b} {a['tree'] - a['truth']:+.1f}, "
             f"H_{b} + CI {a['tree_ci'] - a['truth']:+.1f}")
    ax.set_title(wrapped(title, int(7.8 * slot_width(ax))))
    legend_below(ax, *ax.get_legend_handles_labels(), drop=0.8, ncols=2)
    return ax


def branching_axes(study: BranchingStudy, ax: Axes | None = None) -> Axes:
    """Average range MSE vs branching factor: exact H_b, H_b + CI, Eq. (3), Flat, and simulations (+-2 s.e.).

    Parameters
    ----------
    study : BranchingStudy
        From :func:`dpviz.experiments.hierarchy.branching_study`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax, figsize=(10.5, 3.9))
    b = study.branchings
    ax.plot(b, study.tree, "-", color=METHOD_COLORS["tree"], label="H_b exact")
    ax.plot(b, study.tree_ci, "-", color=METHOD_COLORS["tree_ci"], label="H_b + CI exact")
    if not study.measure_root and study.allocation == "uniform":
        ax.plot(b, study.eq3, "--", color=THEORY, lw=1, label="Qardaji Eq. (3)")
    ax.axhline(study.flat, color=METHOD_COLORS["flat"], ls=":", label="Flat exact")
    if np.any(np.isfinite(study.sim_tree)):
        ax.errorbar(b, study.sim_tree, yerr=2 * study.se_tree, fmt="o", ms=3, color=METHOD_COLORS["tree"],
                    label="H_b simulated (+-2 s.e.)")
        ax.errorbar(b, study.sim_tree_ci, yerr=2 * study.se_tree_ci, fmt="s", ms=3, color=METHOD_COLORS["tree_ci"],
                    label="H_b + CI simulated (+-2 s.e.)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("branching factor b")
    ax.set_ylabel("average MSE over all ranges")
    root = "root measured" if study.measure_root else "root not measured"
    ax.set_title(f"n = {study.n}, epsilon = {study.epsilon:.3g}, {study.allocation} budget, {root}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))     # beside the axes: inside it hid the H_b curve
    return ax


def allocation_axes(study: Mapping[str, Mapping[str, np.ndarray]], branchings: ArrayLike, n: int, epsilon: float,
                    ax: Axes | None = None, *, measure_root: bool = True) -> Axes:
    """Average range MSE vs b for each budget allocation (solid: H_b, dashed: H_b + CI).

    Parameters
    ----------
    study : mapping
        From :func:`dpviz.experiments.hierarchy.allocation_study`.
    branchings : array_like of int
        The branching factors the study was computed for.
    n : int
        Number of leaves (for the title).
    epsilon : float
        Privacy budget (for the title).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes).
    measure_root : bool, default True
        Whether the root was measured (for the title).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    from matplotlib.lines import Line2D

    ax = new_axes(ax, figsize=(10.0, 3.9))
    keys = []      # the legend: a colour per allocation, a line style per method (beside the axes, not over them)
    for t, (name, curves) in enumerate(study.items()):
        ax.plot(branchings, curves["tree"], "-o", ms=3, color=color(t), label=f"{name}: H_b")
        ax.plot(branchings, curves["tree_ci"], "--s", ms=3, color=color(t), label=f"{name}: H_b + CI")
        keys.append(Line2D([], [], color=color(t), lw=2, label=name))
    keys += [Line2D([], [], color=TRUTH, ls="-", marker="o", ms=3, label="H_b"),
             Line2D([], [], color=TRUTH, ls="--", marker="s", ms=3, label="H_b + CI")]
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("branching factor b")
    ax.set_ylabel("average MSE over all ranges")
    root = "root measured" if measure_root else "root not measured"
    ax.set_title(f"budget allocations, n = {n}, epsilon = {epsilon:.3g}, {root} (exact)")
    ax.legend(handles=keys, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return ax


def dimension_axes(study: Mapping[int, Mapping[str, np.ndarray]], ax: Axes | None = None) -> Axes:
    """Best hierarchical / Flat average MSE vs number of cells, one line per dimension (< 1: hierarchy wins).

    Parameters
    ----------
    study : mapping
        From :func:`dpviz.experiments.hierarchy.dimension_study`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    for t, (d, r) in enumerate(sorted(study.items())):
        ax.plot(r["cells"], r["best_tree"] / r["flat"], "-o", ms=3, color=color(t), label=f"d = {d}")
    ax.axhline(1.0, color=TRUTH, lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of cells N = n^d")
    ax.set_ylabel("best H_b MSE / Flat MSE")
    ax.set_title("hierarchies vs Flat by dimension (exact, no inference)")
    ax.legend()
    return ax


def level_variance_axes(below: ArrayLike, above: ArrayLike, b: int, ax: Axes | None = None) -> Axes:
    """Algorithm 1's per-level variances (units of V_O) from below and from above.

    Parameters
    ----------
    below, above : array_like
        (h,) variances from :func:`dpviz.hierarchy.algorithm1_variances`, leaves first.
    b : int
        Branching factor (for the Proposition 4 bound and the title).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    ax = new_axes(ax)
    lv = np.arange(1, len(np.asarray(below)) + 1)
    ax.plot(lv, below, "-o", color=SIMULATED, label="from below (after weighted averaging)")
    ax.plot(lv, above, "-s", color=ALT, label="from above")
    ax.axhline((b - 1) / (b + 1), color=THEORY, ls=":", label="(b-1)/(b+1): Prop. 4 bound")
    ax.set_xlabel("level (1 = leaves)")
    ax.set_ylabel("variance / V_O")
    ax.set_title(f"Algorithm 1, b = {b}")
    ax.legend()
    return ax
