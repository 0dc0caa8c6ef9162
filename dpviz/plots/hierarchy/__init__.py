"""Figures for the hierarchies lecture (pure drawing: numbers come from :mod:`dpviz.experiments.hierarchy`).

Where things are
----------------
``style.py``
    :data:`METHOD_COLORS` and :func:`curves_title`, shared by both kinds of figure.
``figures.py``
    Interactive plotly figures: :func:`width_curves_figure`, :func:`add_width_traces`
    and the explorer's three panels, :func:`explorer_figure`.
``axes.py``
    Static matplotlib versions for the lecture notebook: :func:`width_curves_axes`,
    :func:`release_axes`, :func:`cover_axes`, :func:`branching_axes`,
    :func:`allocation_axes`, :func:`dimension_axes`, :func:`level_variance_axes`.
``tree.py``
    A static picture of a small tree (levels, a query's cover, counts before and after inference):
    :func:`tree_axes`.
"""

from __future__ import annotations

from dpviz.plots.hierarchy.axes import (
    allocation_axes,
    branching_axes,
    cover_axes,
    dimension_axes,
    level_variance_axes,
    release_axes,
    width_curves_axes,
)
from dpviz.plots.hierarchy.figures import add_width_traces, explorer_figure, explorer_figure_spec, width_curves_figure
from dpviz.plots.hierarchy.style import METHOD_COLORS, curves_title
from dpviz.plots.hierarchy.tree import tree_axes
from dpviz.plots.palette import PALETTE  # noqa: F401  (the lecture picks extra colours as P.PALETTE[...])

__all__ = [
    "METHOD_COLORS",
    "curves_title",
    "add_width_traces",
    "width_curves_figure",
    "explorer_figure",
    "explorer_figure_spec",
    "width_curves_axes",
    "release_axes",
    "cover_axes",
    "branching_axes",
    "allocation_axes",
    "dimension_axes",
    "level_variance_axes",
    "tree_axes",
]
