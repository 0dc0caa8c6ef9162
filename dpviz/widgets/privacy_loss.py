"""PrivacyLossExplorer: two output distributions on neighbouring datasets and their privacy loss, as epsilon moves."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go

from dpviz.experiments.definition import LOSS_MECHANISMS, PrivacyLossView, privacy_loss_view
from dpviz.plots.definition import privacy_loss_figure, privacy_loss_figure_spec
from dpviz.widgets.base import Explorer, int_slider, log_slider, seed_box

__all__ = ["PrivacyLossExplorer"]


class PrivacyLossExplorer(Explorer):
    """See the definition of differential privacy: the output distributions on D and D' and their log-ratio.

    Controls: ``mechanism`` (randomized response, Laplace or Gaussian), ``epsilon`` (log slider 0.01-10;
    left = more privacy), ``group`` (how many people D and D' differ by: group privacy), ``delta`` (the
    Gaussian mechanism's delta), ``samples`` (simulated releases per dataset) and ``seed``.  The top panel
    shows the two output distributions, exact and simulated; the bottom panel their privacy loss
    ``ln(p_D / p_D')`` at each output against the bound ``±group·ε``.  A line under the figure gives the
    truth probability of randomized response, or the noise scale.

    Parameters
    ----------
    **values
        Initial control values, e.g. ``mechanism="Laplace", epsilon=0.5``.
    """

    title = "Privacy-loss explorer: what ε bounds, on two neighbouring datasets"

    def __init__(self, **values: object) -> None:
        self.scale_note = widgets.HTML()
        super().__init__(**values)

    def _build_controls(self) -> dict[str, widgets.Widget]:
        return {
            "mechanism": widgets.Dropdown(options=list(LOSS_MECHANISMS), value="Laplace", description="mechanism",
                                          style={"description_width": "initial"}, layout=widgets.Layout(width="280px")),
            "epsilon": log_slider(1.0, -2, 1, "ε (privacy loss bound; ← more privacy)"),
            "group": int_slider(1, 1, 10, "people D and D' differ by (group)"),
            "delta": log_slider(1e-5, -10, -1, "δ (Gaussian only)", step=0.5),
            "samples": int_slider(100_000, 10_000, 400_000, "simulated releases per dataset", step=10_000),
            "seed": seed_box(0),
        }

    def _compute(self, mechanism: str, epsilon: float, group: int, delta: float, samples: int,
                 seed: int) -> PrivacyLossView:
        return privacy_loss_view(mechanism, epsilon, group=group, delta=delta, samples=samples, rng=seed)

    def _figure(self, result: PrivacyLossView) -> go.Figure:
        return privacy_loss_figure(result)

    def _figure_spec(self, result: PrivacyLossView) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The same figure as plain dicts: a redraw patches only the arrays and titles that changed."""
        return privacy_loss_figure_spec(result)

    def _side_panels(self) -> list[widgets.Widget]:
        return [self.scale_note]

    def _after_draw(self, result: PrivacyLossView) -> None:
        if result.mechanism == "randomized response":
            what = f"each person reports the truth with probability p = e^ε / (1 + e^ε) = {result.scale:.4f}"
        elif result.mechanism == "Laplace":
            what = f"Laplace noise of scale b = 1/ε = {result.scale:.3g}"
        else:
            what = f"Gaussian noise of standard deviation σ = {result.scale:.3g} (analytic calibration)"
        self.scale_note.value = (f"ε = {result.epsilon:.3g}: {what}; the largest |loss| drawn is "
                                 f"{result.max_abs_loss:.3g}, the bound {result.bound:.3g}.")
