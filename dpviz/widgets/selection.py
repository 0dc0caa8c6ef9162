"""SelectionExplorer: choosing privately, exact selection probabilities beside simulation, expected scores."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go

from dpviz.experiments.selection import SCORE_VECTORS, SelectionRun, selection_run, selection_scores
from dpviz.plots.selection import selection_figure
from dpviz.widgets.base import Explorer, int_slider, log_slider, seed_box

__all__ = ["SelectionExplorer"]

_MECHANISM_OPTIONS = [("exponential mechanism", "exponential"), ("report-noisy-max, Gumbel noise", "rnm-gumbel"),
                      ("report-noisy-max, Laplace noise", "rnm-laplace"), ("permute-and-flip", "permute-and-flip")]


class SelectionExplorer(Explorer):
    """Pick one of m candidates privately: the exact selection probabilities beside simulated frequencies.

    Controls: ``mechanism`` (the exponential mechanism, report-noisy-max with Gumbel or Laplace noise,
    permute-and-flip), ``epsilon`` (log slider), ``scores`` (a score vector of
    :data:`dpviz.experiments.selection.SCORE_VECTORS`: the DPBench ADULT bins, a close race, one clear
    winner; all counts, sensitivity 1), ``monotone`` (calibrate for monotone scores: noise of scale
    ``Delta / epsilon`` instead of ``2 Delta / epsilon``), ``trials`` (simulated selections) and ``seed``.
    The left panel shows each candidate's exact probability (bars) and simulated frequency (±2 standard
    errors); the right panel the exact expected score of each mechanism against epsilon, the best score, the
    exponential mechanism's guarantee, and the simulated mean score at the chosen epsilon.

    Parameters
    ----------
    **values
        Initial control values, e.g. ``mechanism="permute-and-flip", epsilon=0.3``.
    """

    title = "Selection explorer: the exponential mechanism, report-noisy-max and permute-and-flip"
    main_control = "epsilon"

    def _build_controls(self) -> dict[str, widgets.Widget]:
        style = {"description_width": "initial"}
        return {
            "mechanism": widgets.Dropdown(options=_MECHANISM_OPTIONS, value="exponential", description="mechanism",
                                          style=style, layout=widgets.Layout(width="360px")),
            "epsilon": log_slider(0.1, -2.5, 1.3, "ε (← more private)"),
            "scores": widgets.Dropdown(options=[(text, name) for name, text in SCORE_VECTORS.items()], value="adult",
                                       description="scores", style=style,
                                       layout=widgets.Layout(width="640px", max_width="100%")),
            "monotone": widgets.Checkbox(value=False, description="counts are monotone: noise scale Δ/ε, not 2Δ/ε",
                                         indent=False, layout=widgets.Layout(width="360px")),
            "trials": int_slider(10_000, 1_000, 50_000, "simulated selections", step=1_000),
            "seed": seed_box(0),
        }

    def _compute(self, mechanism: str, epsilon: float, scores: str, monotone: bool, trials: int,
                 seed: int) -> SelectionRun:
        u, labels = selection_scores(scores)
        return selection_run(u, epsilon, mechanism, monotone=monotone, trials=trials, labels=labels, rng=seed)

    def _figure(self, result: Any) -> go.Figure:
        return selection_figure(result)
