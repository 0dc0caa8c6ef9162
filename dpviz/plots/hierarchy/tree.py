"""A static picture of a small tree: its levels as rows of boxes, one query's minimal cover, each node's counts."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from dpviz.experiments.hierarchy import TreePicture
from dpviz.plots.bands import new_axes
from dpviz.plots.hierarchy.style import METHOD_COLORS, legend_below
from dpviz.plots.palette import PALETTE, TRUTH

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["tree_axes"]


def _count(v: float) -> str:
    """A count as printed in a node: integers without decimals, others to one decimal."""
    return f"{v:.0f}" if float(v).is_integer() else f"{v:.1f}"


def tree_axes(pic: TreePicture, ax: Axes | None = None, *, inference: bool = True) -> Axes:
    """Draw the tree level by level (leaves at the bottom), the query's minimal cover filled, counts in each node.

    Each node is a box over the leaves it covers; inside it: its true count, its noisy count and, with
    ``inference=True``, its count after constrained inference (in the colours of the hierarchy figures).  A
    consistent count below zero is marked with a frame in the inference colour.

    Parameters
    ----------
    pic : TreePicture
        From :func:`dpviz.experiments.hierarchy.tree_picture`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: new axes, sized for the tree).
    inference : bool, default True
        Also print each node's count after constrained inference.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    from matplotlib.colors import to_rgba
    from matplotlib.patches import Patch, Rectangle

    tree = pic.tree
    # 16 leaves of 0.66 in: a leaf's widest count ("x=11", "-8.4") in the style's 12 pt; a level of 0.7 in
    ax = new_axes(ax, figsize=(min(11.8, max(7.0, 1.4 + 0.66 * tree.n)), min(5.0, 1.45 + 0.7 * (tree.height + 1))))
    cover_fill = to_rgba(PALETTE["orange"], 0.35)
    lines = 3 if inference else 2
    for k in range(tree.n_nodes):
        lv, s, e = int(pic.level[k]), float(pic.node_start[k]), float(pic.node_stop[k])
        measured = lv in tree.measured_levels
        face = cover_fill if pic.in_cover[k] else "white"
        edge = PALETTE["orange"] if pic.in_cover[k] else "0.55"
        ax.add_patch(Rectangle((s + 0.04, lv - 0.44), e - s - 0.08, 0.88, facecolor=face, edgecolor=edge,
                               lw=1.6 if pic.in_cover[k] else 0.8, ls="-" if measured else "--"))
        texts = [(f"x={_count(pic.truth[k])}", TRUTH),
                 (_count(pic.noisy[k]) if measured else "(not measured)", METHOD_COLORS["tree"])]
        if inference:
            texts.append((f"{pic.consistent[k]:.1f}", METHOD_COLORS["tree_ci"]))
            if pic.consistent[k] < 0:
                ax.add_patch(Rectangle((s + 0.09, lv - 0.4), e - s - 0.18, 0.8, fill=False,
                                       edgecolor=METHOD_COLORS["tree_ci"], lw=1.4))
        for t, (text, col) in enumerate(texts):
            ax.text((s + e) / 2, lv + 0.27 - t * 0.54 / max(lines - 1, 1), text, ha="center", va="center",
                    color=col)
    ax.set_xlim(-0.1, tree.n + 0.1)
    ax.set_ylim(-0.5, tree.height + 0.5)
    ax.set_yticks(np.arange(tree.height + 1),
                  [f"level {lv}" + ("\n(leaves)" if lv == 0 else "") + f"\neps = {pic.level_epsilons[lv]:.3g}"
                   for lv in range(tree.height + 1)])
    ax.set_xticks(np.arange(tree.n) + 0.5, [str(i) for i in range(tree.n)])
    ax.set_xlabel("leaf (bin)")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    handles = [Patch(facecolor=cover_fill, edgecolor=PALETTE["orange"], label=f"minimal cover of [{pic.start}, "
                     f"{pic.stop})"),
               Patch(color=TRUTH, label="x = true count"), Patch(color=METHOD_COLORS["tree"], label="noisy count")]
    if inference:
        handles += [Patch(color=METHOD_COLORS["tree_ci"], label="after constrained inference"),
                    Patch(facecolor="none", edgecolor=METHOD_COLORS["tree_ci"], label="negative after inference")]
    legend_below(ax, handles, [str(h.get_label()) for h in handles], drop=0.55, ncols=len(handles), columnspacing=1.2,
                 handletextpad=0.5)
    root = "" if tree.measure_root else "; root not measured (dashed)"
    ax.set_title(f"a b-ary tree over n = {tree.n} bins, b = {tree.branching}, epsilon = {pic.epsilon:.3g} split over "
                 f"{tree.n_measured_levels} measured levels{root}")
    return ax
