"""HierarchyExplorer: slide the branching factor and epsilon, see why trees beat flat counts on long ranges."""

from __future__ import annotations

import math
from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go

from dpviz.experiments.hierarchy import HierarchyRun, hierarchy_dataset_run, prefetch_hierarchy_runs
from dpviz.hierarchy import ALLOCATIONS
from dpviz.plots.hierarchy import explorer_figure, explorer_figure_spec
from dpviz.widgets.base import Explorer, int_slider, log_slider, seed_box

__all__ = ["HierarchyExplorer", "DATASETS"]

#: Histograms offered by the dataset picker: a synthetic one and shipped DPBench 1-D histograms.
DATASETS = ("synthetic", "INCOME", "ADULT", "MEDCOST", "HEPTH", "NETTRACE", "PATENT", "SEARCHLOGS")


class HierarchyExplorer(Explorer):
    """Explore hierarchical histograms: Flat vs H_b vs H_b with constrained inference.

    Controls: ``epsilon`` (log slider), ``branching`` (2-64), ``n`` (domain size:
    the dataset is aggregated into n bins of nearly equal width), ``allocation``
    (uniform, geometric, optimal), ``measure_root``, ``constrained`` (show the
    H_b leaves after constrained inference, or the raw noisy leaves),
    ``trials``, ``dataset``, ``range`` (the selected query as a fraction of the
    domain) and ``seed``.  The figure shows the true histogram with one
    release, the error of each of the selected range's minimal-cover nodes
    before and after constrained inference (the noise inference removes),
    and MSE vs range width (simulated band and mean beside the exact curve)
    for Flat, H_b and H_b + CI.  Everything is
    epsilon-DP; nothing is charged to an accountant (each redraw is a fresh
    illustration, not a release).  Runs are cached per setting, and while the
    student reads the figure the settings two moves of b or epsilon away are
    computed in the background
    (:func:`dpviz.experiments.hierarchy.prefetch_hierarchy_runs`), the last
    moved control's first.

    Parameters
    ----------
    **values
        Initial control values, e.g. ``HierarchyExplorer(branching=2, epsilon=0.1)``.
    """

    title = "Hierarchical histograms: one release, constrained inference and MSE vs range width"
    #: Students first slide the branching factor (why b ~ 16 beats b = 2).
    main_control = "branching"

    def _build_controls(self) -> dict[str, widgets.Widget]:
        style = {"description_width": "initial"}
        return {
            "epsilon": log_slider(1.0, -2, 1, "ε (total budget)"),
            "branching": int_slider(16, 2, 64, "branching factor b"),
            "n": int_slider(1024, 16, 4096, "domain size n (bins)", step=16),
            "allocation": widgets.Dropdown(options=list(ALLOCATIONS), value="uniform", description="budget split",
                                           style=style, layout=widgets.Layout(width="240px")),
            "measure_root": widgets.Checkbox(value=True, description="measure the root", style=style),
            "constrained": widgets.Checkbox(value=True, description="show constrained inference", style=style),
            "trials": int_slider(60, 20, 1000, "trials k (simulated releases)", step=20),
            "dataset": widgets.Dropdown(options=list(DATASETS), value="INCOME", description="dataset", style=style,
                                        layout=widgets.Layout(width="240px")),
            "range": widgets.FloatRangeSlider(value=(0.0, 1 / 3), min=0.0, max=1.0, step=0.01,
                                              description="selected range [a, b) (fraction of n)",
                                              continuous_update=False, style=style,
                                              layout=widgets.Layout(width="420px")),
            "seed": seed_box(0),
        }

    @staticmethod
    def query_bins(n: int, fractions: tuple[float, float]) -> tuple[int, int]:
        """The bins ``[floor(f0 n), max(start + 1, ceil(f1 n)))`` of a range given as fractions of the domain.

        Parameters
        ----------
        n : int
            Domain size (number of bins), >= 1.
        fractions : (float, float)
            Start and end of the range as fractions of the domain, in ``[0, 1]``.

        Returns
        -------
        start, stop : int
            A non-empty range ``0 <= start < stop <= n``.
        """
        start = min(n - 1, int(math.floor(fractions[0] * n)))
        stop = min(n, max(start + 1, int(math.ceil(fractions[1] * n))))
        return start, stop

    def _setting(self, **change: Any) -> dict[str, Any]:
        """The current controls as arguments of :func:`hierarchy_dataset_run`, with ``change`` applied."""
        v = self.values | change
        return dict(dataset=v["dataset"], n=v["n"], branching=v["branching"], epsilon=v["epsilon"],
                    allocation=v["allocation"], measure_root=v["measure_root"], constrained=v["constrained"],
                    trials=v["trials"], query=self.query_bins(v["n"], v["range"]), ranges_per_trial=32,
                    seed=v["seed"])

    def _compute(self, **values: Any) -> HierarchyRun:
        s = self._setting(**values)
        return hierarchy_dataset_run(s.pop("dataset"), s.pop("n"), s.pop("branching"), s.pop("epsilon"), **s)

    def _next_moves(self) -> list[dict[str, Any]]:
        """The settings one or two moves of the branching factor or epsilon away, the last moved control's
        first, and its values the way it last moved first (a student presses the same arrow key again)."""
        groups = {name: [self._setting(**{name: value}) for value in self._ahead(name, 2)]
                  for name in ("branching", "epsilon")}
        return self._moved_first(groups)

    def _after_draw(self, result: HierarchyRun) -> None:
        """Prepare the next moves while the student reads the figure."""
        prefetch_hierarchy_runs(self._next_moves())

    def _figure(self, result: HierarchyRun) -> go.Figure:
        """The whole figure of a result."""
        return explorer_figure(result)

    def _figure_spec(self, result: HierarchyRun) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The same figure as plain dicts: a redraw patches only the arrays and titles that changed."""
        return explorer_figure_spec(result)
