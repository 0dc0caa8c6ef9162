"""SumQueryExplorer: slide the truncation ratio and watch bias and variance of income prefix sums trade places."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go

from dpviz.experiments.sums import DEFAULTS, SumExploration, cps_problem, explore
from dpviz.plots.sums import explorer_figure
from dpviz.sums import NOT_DP, SumProblem, check_problem, oracle_threshold, precompute_strategies, threshold_grid
from dpviz.widgets.base import Explorer, int_slider, log_slider, seed_box

__all__ = ["SumQueryExplorer"]

_ALGORITHM_OPTIONS = [("TaMM (truncation-aware MM)", "tamm"), ("TiMM (truncation-independent MM)", "timm"),
                      ("Identity", "identity"), ("Workload", "workload"), ("SQM (one query at a time)", "sqm")]
_RATIOS = [0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999, 0.9995, 1.0]
_THRESHOLD_OPTIONS = [("SVT (private)", "svt"), ("recursive-style (private)", "recursive"),
                      (f"oracle quantile ({NOT_DP})", "oracle"), ("none (no truncation)", "none")]


class SumQueryExplorer(Explorer):
    """Explore prefix sums of CPS incomes under epsilon-DP with truncation (Wu et al. 2019).

    Controls: ``epsilon`` (log slider), ``ratio`` (truncation ratio p: the
    fraction of people whose income stays whole), ``rho`` (share of epsilon
    spent on choosing the threshold), ``algorithm`` (TaMM, TiMM, Identity,
    Workload, SQM), ``threshold`` (SVT, recursive-style, oracle -- NOT DP -- or
    none), ``isotonic`` (post-processing on/off), ``trials`` and ``seed``.

    The figure shows the noisy answers against the true prefix sums (mean and
    5-95 % band), the bias and standard deviation of each query side by side
    (with the exact truncation bias), and where the thresholds fell.

    Parameters
    ----------
    problem : SumProblem, optional
        Default: CPS incomes in 100 bins of $10,000 up to $1M, queries "total
        income of people earning at most $10k, $20k, ..., $1M" (coarser than the
        lecture's $1,000 bins, to stay interactive).
    **values
        Initial control values, e.g. ``algorithm="identity"``.

    Raises
    ------
    TypeError
        If ``problem`` is neither None nor a :class:`~dpviz.sums.SumProblem` (see :func:`dpviz.sums.prepare`).
    """

    title = "Sum queries with truncation: CPS incomes, prefix sums up to $1M"
    main_control = "ratio"

    def __init__(self, problem: SumProblem | None = None, **values: Any) -> None:
        self.problem = cps_problem(100, 10_000.0) if problem is None else check_problem(problem)
        resample = widgets.Button(description="resample", tooltip="draw new noise (next seed)", icon="refresh")
        resample.on_click(lambda _: setattr(self.controls["seed"], "value", self.controls["seed"].value + 1))
        self.buttons = {"resample": resample}
        self.summary = widgets.HTML()
        # TiMM/TaMM factorise one strategy per threshold: do it once for every threshold the controls can
        # produce (the public SVT/recursive grid and the oracle quantiles), so moving a slider stays fast
        grid = threshold_grid(self.problem.weights[0], DEFAULTS["growth"], self.problem.weights[-1])
        quantiles = [oracle_threshold(self.problem, p) for p in _RATIOS]
        precompute_strategies(self.problem, np.concatenate([grid, quantiles, [np.inf]]))
        super().__init__(**values)

    def _build_controls(self) -> dict[str, widgets.Widget]:
        style = {"description_width": "initial"}
        return {
            "epsilon": log_slider(DEFAULTS["epsilon"], -1, 1, "ε (total per release; ← more privacy)"),
            "ratio": widgets.SelectionSlider(
                options=_RATIOS,
                value=DEFAULTS["ratio"], description="truncation ratio p (kept whole)", continuous_update=False,
                style=style, layout=widgets.Layout(width="420px")),
            "rho": widgets.FloatSlider(value=DEFAULTS["rho"], min=0.02, max=0.5, step=0.01, readout_format=".2f",
                                       description="ρ (share of ε for τ)", continuous_update=False, style=style,
                                       layout=widgets.Layout(width="420px")),
            "algorithm": widgets.Dropdown(options=_ALGORITHM_OPTIONS, value="tamm", description="algorithm",
                                          style=style),
            "threshold": widgets.Dropdown(options=_THRESHOLD_OPTIONS, value="svt", description="threshold τ by",
                                          style=style),
            "isotonic": widgets.Checkbox(value=True, description="isotonic regression", style=style),
            "trials": int_slider(30, 10, 200, "trials k (simulated releases)", step=10),
            "seed": seed_box(0),
        }

    def _compute(self, **values: Any) -> SumExploration:
        v = values
        return explore(self.problem, epsilon=v["epsilon"], algorithm=v["algorithm"], truncation=v["threshold"],
                       ratio=v["ratio"], rho=v["rho"], isotonic=bool(v["isotonic"]), trials=v["trials"],
                       rng=v["seed"])

    def _figure(self, result: SumExploration) -> go.Figure:
        return explorer_figure(result)

    def _side_panels(self) -> list[widgets.Widget]:
        return [self.summary]

    def _after_draw(self, result: SumExploration) -> None:
        s = result.summary
        bias2 = float(np.mean(s.bias ** 2))
        var = float(np.mean(s.variance))
        taus = result.taus[np.isfinite(result.taus)]
        tau = f"median τ = ${np.median(taus):,.0f}" if taus.size else "no truncation"
        warn = f" <b>{NOT_DP}</b>." if not result.release.private else ""
        self.summary.value = (
            f"{tau}; mean relative error {result.errors.overall:.2e}; averaged over queries: "
            f"bias² {bias2:.2e}, variance {var:.2e} (dollars²).{warn}"
        )
