"""LaplaceExplorer: slide epsilon (or set a target error) and watch noisy answers, bands and theory agree."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from dpviz.experiments.laplace import LaplaceExperiment, cps_oldest_by_marital, laplace_explorer_run
from dpviz.plots.laplace import laplace_figure
from dpviz.validation import MAX_MAGNITUDE, check_array
from dpviz.widgets.base import Explorer, control_range, int_slider, log_slider, seed_box

__all__ = ["LaplaceExplorer"]


class LaplaceExplorer(Explorer):
    """Explore the Laplace mechanism on a small histogram.

    Controls: ``epsilon`` (log slider 0.01-10; left = more privacy), ``sensitivity``,
    ``trials``, ``mode`` (privacy first: set epsilon; accuracy first: set the
    half-width ``target`` that 90 % of noisy answers stay within and let the
    explorer solve for epsilon), ``seed`` and a *resample* button (next seed).

    Parameters
    ----------
    truth : array_like, optional
        The true answers; default: people aged 85+ in the CPS extract by
        marital-status code (:func:`dpviz.experiments.laplace.cps_oldest_by_marital`).
    labels : sequence of str, optional
        The name of each answer (default: the CPS labels, or ``q1, q2, ...``).
    **values
        Initial control values, e.g. ``epsilon=0.1``.
    """

    title = "Laplace mechanism explorer: noisy answers, simulated band and theoretical band"

    def __init__(self, truth: ArrayLike | None = None, labels: Sequence[str] | None = None, **values: Any) -> None:
        if truth is None:
            truth, default_labels = cps_oldest_by_marital()
            labels = default_labels if labels is None else labels
        self.truth = check_array("truth", truth, ndim=1, max_abs=MAX_MAGNITUDE)  # refused now, not at the first draw
        self.labels = list(labels) if labels is not None else None
        if self.labels is not None and len(self.labels) != self.truth.size:
            raise ValueError(f"labels must name each of the {self.truth.size} true answers, got {len(self.labels)}")
        resample = widgets.Button(description="resample", tooltip="draw new noise (next seed)", icon="refresh")
        resample.on_click(lambda _: setattr(self.controls["seed"], "value", self.controls["seed"].value + 1))
        self.buttons = {"resample": resample}
        self.solved = widgets.HTML()
        super().__init__(**values)

    def _build_controls(self) -> dict[str, widgets.Widget]:
        return {
            "epsilon": log_slider(1.0, -2, 1, "ε (privacy loss; ← more privacy)"),
            "sensitivity": widgets.BoundedFloatText(value=1.0, min=0.0, max=1e6, step=0.5,
                                                    description="sensitivity Δ₁",
                                                    style={"description_width": "initial"},
                                                    layout=widgets.Layout(width="200px")),
            "trials": int_slider(2000, 100, 20000, "trials k (simulated releases)", step=100),
            "mode": widgets.ToggleButtons(options=[("privacy first: set ε", "privacy"),
                                                   ("accuracy first: set target ±w", "accuracy")],
                                          value="privacy", description="mode", style={"button_width": "210px"}),
            "target": widgets.FloatText(value=5.0, description="target ±w (90 % of answers)",
                                        style={"description_width": "initial"}, layout=widgets.Layout(width="260px")),
            "seed": seed_box(0),
        }

    def _compute(self, epsilon: float, sensitivity: float, trials: int, mode: str, target: float,
                 seed: int) -> LaplaceExperiment:
        if not target > 0:  # checked in both modes: a student may type it before switching to accuracy first
            raise ValueError(f"target (the halfwidth ±w) must be > 0, got {target!r}")
        if mode == "accuracy":
            return laplace_explorer_run(self.truth, sensitivity, trials, target_halfwidth=target, rng=seed)
        return laplace_explorer_run(self.truth, sensitivity, trials, epsilon=epsilon, rng=seed)

    def _figure(self, result: LaplaceExperiment) -> go.Figure:
        return laplace_figure(result, self.labels)

    def _side_panels(self) -> list[widgets.Widget]:
        return [self.solved]

    def _after_draw(self, result: LaplaceExperiment) -> None:
        self.solved.value = (
            f"ε = {result.epsilon:.3g}; noise variance: simulated {result.simulated_variance:.3g} "
            f"(mean over queries) vs theory 2(Δ₁/ε)² = {result.theory_variance:.3g}; "
            f"simulated 90 % half-width {result.simulated_upper_halfwidth:.3g}"
        )
        if self.controls["mode"].value == "accuracy":
            bounds = control_range(self.controls["epsilon"])
            if bounds is None:  # pragma: no cover - the epsilon control is a bounded log slider
                return
            lo, hi = bounds
            if lo <= result.epsilon <= hi:
                self.set_quietly("epsilon", result.epsilon)
            else:
                self._show(f"this target needs ε = {result.epsilon:.4g}, outside the slider's {lo:g}-{hi:g}: "
                           "the figure uses the solved ε, the slider does not move", kind="info")
