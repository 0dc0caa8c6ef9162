"""Plots: pure functions from experiment results to figures.

Interactive figures are plotly (``-> plotly.graph_objects.Figure``), static
ones matplotlib (``-> matplotlib.axes.Axes``).  Topic modules:
``dpviz.plots.laplace``, ``dpviz.plots.composition``, ``dpviz.plots.hierarchy``, ...
Shared pieces: :mod:`dpviz.plots.palette`, :mod:`dpviz.plots.bands`, and :mod:`dpviz.plots.style` (the
projector style sheet ``dpviz.plots.projector`` the lectures draw under, and the check that a figure reads on a
slide).
"""

from dpviz.plots.bands import (
    mpl_band,
    new_axes,
    patch_figure,
    plotly_band,
    plotly_line,
    replace_figure,
    sync_figure,
)
from dpviz.plots.palette import ALT, PALETTE, SIMULATED, TEMPLATE, THEORY, TRUTH, band_fill, color

__all__ = ["PALETTE", "TEMPLATE", "TRUTH", "SIMULATED", "THEORY", "ALT", "color", "band_fill", "plotly_band",
           "plotly_line", "mpl_band", "sync_figure", "patch_figure", "replace_figure", "new_axes"]
