"""SubsamplingExplorer: privacy amplification by subsampling, exact loss against simulation and the bound."""

from __future__ import annotations

import ipywidgets as widgets
import plotly.graph_objects as go

from dpviz.experiments.subsampling import SubsamplingTails, subsampling_tails
from dpviz.plots.subsampling import subsampling_figure
from dpviz.widgets.base import Explorer, int_slider, log_slider, seed_box

__all__ = ["SubsamplingExplorer"]


class SubsamplingExplorer(Explorer):
    """A Laplace count run on a Poisson sample of the rows: how much privacy the sampling buys.

    Controls: ``rate`` (probability p that each row is sampled), ``epsilon``
    (the count's epsilon on the sample), ``samples`` (simulated releases per
    dataset) and ``seed``.  The figure shows the privacy loss of each event
    ``Y > t`` between neighbouring datasets, exact and simulated, under the
    amplified bound ``ln(1 + p(e^eps - 1))`` and the unsampled eps.

    Parameters
    ----------
    **values
        Initial control values, e.g. ``rate=0.1, epsilon=1.0``.
    """

    title = "Subsampling explorer: privacy amplification of a Laplace count"
    main_control = "rate"

    def _build_controls(self) -> dict[str, widgets.Widget]:
        return {
            "rate": log_slider(0.1, -3, 0, "sampling rate p (← smaller sample)"),
            "epsilon": log_slider(1.0, -2, 1, "ε of the count on the sample"),
            "samples": int_slider(100_000, 10_000, 400_000, "simulated releases per dataset", step=10_000),
            "seed": seed_box(0),
        }

    def _compute(self, rate: float, epsilon: float, samples: int, seed: int) -> SubsamplingTails:
        return subsampling_tails(epsilon, rate, samples=samples, rng=seed)

    def _figure(self, result: SubsamplingTails) -> go.Figure:
        return subsampling_figure(result)
