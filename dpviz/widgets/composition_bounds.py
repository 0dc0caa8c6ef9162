"""CompositionBoundsExplorer: what k releases cost under basic, advanced, zCDP, Rényi and exact accounting."""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go

from dpviz.experiments.composition_bounds import METHODS, CompositionBounds, composition_bounds
from dpviz.plots.composition_bounds import composition_bounds_figure
from dpviz.widgets.base import Explorer, log_slider

__all__ = ["CompositionBoundsExplorer"]


class CompositionBoundsExplorer(Explorer):
    """Total epsilon of k Laplace or Gaussian releases at a total delta', by each accounting method.

    Controls: ``k`` (number of releases, log slider; type a value in its box for an exact k), ``delta_prime``
    (the total delta), ``mechanism`` (Laplace or Gaussian) and ``scale`` (each release's noise: Laplace b, so each
    release is ``1/b``-DP, or Gaussian sigma; sensitivity 1).  The figure draws the total epsilon of every
    method against k (basic and advanced composition, zCDP with Bun & Steinke's and, for the Gaussian, the tight
    conversion and the exact value; for Laplace its own Rényi curve and the optimal composition of any eps0-DP
    mechanisms), with the chosen k marked; the table under it lists the totals at k.

    Parameters
    ----------
    **values
        Initial control values, e.g. ``k=100, delta_prime=1e-6, mechanism="gaussian", scale=30.0``.
    """

    title = "Composition bounds explorer: what k releases cost, by each theorem"
    main_control = "k"

    def __init__(self, **values: Any) -> None:
        self.totals = widgets.HTML()
        super().__init__(**values)

    def _build_controls(self) -> dict[str, widgets.Widget]:
        k = log_slider(100.0, 0, 4, "number of releases k", step=0.01)
        k.readout_format = ".0f"
        delta_prime = log_slider(1e-6, -12, -2, "total δ′ (← smaller: stronger guarantee)", step=0.1)
        delta_prime.readout_format = ".1e"          # ".3g" reads 0.00000100 in the browser
        return {
            "k": k,
            "delta_prime": delta_prime,
            "mechanism": widgets.ToggleButtons(options=[("Laplace", "laplace"), ("Gaussian", "gaussian")],
                                               value="laplace", description="mechanism",
                                               style={"button_width": "100px"}),
            "scale": log_slider(10.0, 0, 3, "noise per release: Laplace b or Gaussian σ", step=0.01),
        }

    def _compute(self, k: float, delta_prime: float, mechanism: str, scale: float) -> CompositionBounds:
        return composition_bounds(mechanism, scale, max(1, round(k)), delta_prime)

    def _figure(self, result: CompositionBounds) -> go.Figure:
        return composition_bounds_figure(result)

    def _side_panels(self) -> list[widgets.Widget]:
        return [self.totals]

    def _after_draw(self, result: CompositionBounds) -> None:
        rows = "".join(f"<tr><td>{html.escape(name)}</td><td style='text-align:right'>{result.at_k[name]:.3g}</td></tr>"
                       for name in METHODS[result.mechanism])
        if result.mechanism == "laplace":
            note = (f"advanced composition charges less than basic from k = {result.crossover}"
                    if result.crossover is not None else "advanced composition never charges less than basic here "
                    "(e^eps0 >= 2)")
        else:
            note = f"each release is ({result.epsilon0:.3g}, δ′/k)-DP: what basic composition adds up"
        self.totals.value = (f"<b>Total ε at k = {result.k}, δ′ = {result.delta_prime:.2g}</b>"
                             f"<table>{rows}</table><i>{html.escape(note)}</i>")
