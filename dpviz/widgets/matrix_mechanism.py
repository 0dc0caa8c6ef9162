"""MatrixMechanismExplorer: pick a workload and a strategy, slide epsilon, compare with the lower bound."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import numpy.typing as npt
import plotly.graph_objects as go

from dpviz import strategies as st
from dpviz import workloads as wl
from dpviz.experiments.matrix_mechanism import MatrixMechanismRun, matrix_mechanism_explorer_run
from dpviz.plots.matrix_mechanism import matrix_mechanism_figure, matrix_mechanism_figure_spec
from dpviz.widgets.base import Explorer, int_slider, log_slider, seed_box

__all__ = ["MatrixMechanismExplorer"]

_WORKLOAD_LABELS = {"identity": "identity (single cells)", "prefix": "prefix sums (CDF)",
                    "all_ranges": "all ranges", "random_ranges": "64 random ranges (seed 0)",
                    "width_ranges": "ranges of width n/4"}


class MatrixMechanismExplorer(Explorer):
    """Explore the matrix mechanism: error of every workload query, all strategies against the lower bound.

    Controls: ``workload``, ``strategy``, domain size ``n`` (8-128 bins of the
    ADULT histogram), ``epsilon`` (log slider), ``trials`` and ``seed``.
    Strategies, their factorisations and exact errors are cached per
    (workload, n), so moving epsilon, trials or the seed only reruns the Monte
    Carlo of the selected strategy; the first visit of a (workload, n) pair
    also runs GreedyH and the p-Identity optimiser for it.

    Parameters
    ----------
    x : array, optional
        A histogram to use for every n instead of the merged ADULT histogram
        (its length must then be the chosen n).
    **values
        Initial control values, e.g. ``workload="prefix"``.
    """

    title = "Matrix mechanism explorer: answer a strategy A with noise, rebuild the workload W by least squares"

    def __init__(self, x: npt.ArrayLike | None = None, **values: Any) -> None:
        self._x = x
        self._cache: dict = {}
        self.summary = widgets.HTML()
        super().__init__(**values)

    def _build_controls(self) -> dict[str, widgets.Widget]:
        style = {"description_width": "initial"}
        return {
            "workload": widgets.Dropdown(options=[(_WORKLOAD_LABELS[k], k) for k in wl.WORKLOADS],
                                         value="all_ranges", description="workload W", style=style),
            "strategy": widgets.Dropdown(options=[(st.LABELS[k], k) for k in st.for_mechanism("laplace")],
                                         value="hierarchical_2", description="strategy A", style=style),
            "n": widgets.Dropdown(options=[8, 16, 32, 64, 128], value=16, description="domain size n",
                                  style=style),
            "epsilon": log_slider(1.0, -2, 1, "ε (privacy loss; ← more privacy)"),
            "trials": int_slider(300, 100, 5000, "trials k (simulated releases)", step=100),
            "seed": seed_box(0),
        }

    def _compute(self, workload: str, strategy: str, n: int, epsilon: float,
                 trials: int, seed: int) -> MatrixMechanismRun:
        return matrix_mechanism_explorer_run(workload, strategy, n, epsilon, trials, rng=seed, x=self._x,
                                             cache=self._cache)

    def _figure(self, result: MatrixMechanismRun) -> go.Figure:
        return matrix_mechanism_figure(result)

    def _figure_spec(self, result: MatrixMechanismRun) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        return matrix_mechanism_figure_spec(result)

    def _side_panels(self) -> list[widgets.Widget]:
        return [self.summary]

    def _after_draw(self, result: MatrixMechanismRun) -> None:
        e, c = result.experiment, result.comparison
        i = c.names.index(result.strategy)
        self.summary.value = (
            f"total squared error: simulated {e.total_simulated:.3g}, exact {e.total_predicted:.3g}; "
            f"lower bound {c.lower_bound:.3g} (ratio {c.ratio[i]:.3g}); best strategy here: "
            f"{st.LABELS[c.best()]} (ratio {c.ratio.min():.3g}); Laplace on W directly: {c.direct_laplace:.3g}"
        )
