"""CompositionExplorer: sequential vs parallel composition on the lecture's BMI queries, with live ledgers."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go

from dpviz.experiments.composition import CompositionExperiment, composition_experiment
from dpviz.plots.composition import composition_figure
from dpviz.widgets.base import Explorer, int_slider, log_slider, seed_box

__all__ = ["CompositionExplorer"]


class CompositionExplorer(Explorer):
    """Algorithm 1 (four queries, sequential composition) vs Algorithm 2 (disjoint cells, parallel composition).

    Controls: ``epsilon`` (total budget of each algorithm), ``share`` (the
    fraction of the budget Algorithm 1 spends per query; 1/4 is the lecture's
    plan, more than 1/4 overspends and the accountant refuses the whole plan,
    recording nothing), ``trials`` and ``seed``.  Under the figure: each
    algorithm's ledger and its simulated vs theoretical total error
    (128/eps^2 and 12/eps^2 at share 1/4).

    Parameters
    ----------
    **values
        Initial control values, e.g. ``epsilon=0.5, share=0.3``.
    """

    title = "Composition explorer: the BMI queries answered two ways"

    def __init__(self, **values: Any) -> None:
        self.ledgers = widgets.HTML()
        super().__init__(**values)

    def _build_controls(self) -> dict[str, widgets.Widget]:
        return {
            "epsilon": log_slider(1.0, -2, 1, "total budget ε (← more privacy)"),
            "share": widgets.FloatSlider(value=0.25, min=0.05, max=0.5, step=0.05,
                                         description="Alg 1: share s of ε per query (fraction)",
                                         continuous_update=False,
                                         readout_format=".2f", style={"description_width": "initial"},
                                         layout=widgets.Layout(width="420px")),
            "trials": int_slider(5000, 100, 50000, "trials k (simulated releases)", step=100),
            "seed": seed_box(0),
        }

    def _compute(self, epsilon: float, share: float, trials: int, seed: int) -> CompositionExperiment:
        return composition_experiment(epsilon, trials, share=share, rng=seed)

    def _figure(self, result: CompositionExperiment) -> go.Figure:
        return composition_figure(result)

    def _side_panels(self) -> list[widgets.Widget]:
        return [self.ledgers]

    def _after_draw(self, result: CompositionExperiment) -> None:
        if result.refusal:
            self._show(f"Accountant refused Algorithm 1: {result.refusal}")
        seq_total = "refused" if result.sequential is None else f"{result.sequential.total_mse:.3g}"
        self.ledgers.value = (
            "<div style='display:flex;gap:2em'>"
            f"<div><b>Algorithm 1 ledger</b> (simulated total error {seq_total}, "
            f"theory {result.theory_sequential.sum():.3g}){result.sequential_ledger.to_html()}</div>"
            f"<div><b>Algorithm 2 ledger</b> (simulated total error {result.parallel.total_mse:.3g}, "
            f"theory {result.theory_parallel.sum():.3g}){result.parallel_ledger.to_html()}</div></div>"
        )
