"""GPTTAttackExplorer: watch GPTT (NOT differentially private) give away a real histogram.

Beside it, the same attack through the honest sparse vector technique and
rounded Laplace counts, at the same epsilon.
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go

from dpviz.experiments.svt import PAPER_DATASETS, GPTTAttackRun, gptt_attack_run, prefetch_gptt_runs
from dpviz.plots.svt import attack_figure, attack_figure_spec
from dpviz.svt import NOT_DP
from dpviz.widgets.base import SEED_MAX, Explorer, log_slider, seed_box

__all__ = ["GPTTAttackExplorer"]

_WIDE = {"description_width": "initial"}


class GPTTAttackExplorer(Explorer):
    """Explore the reconstruction attack on GPTT -- which is **NOT differentially private** ([CM15]).

    Controls: ``dataset`` (the four histograms of the paper), ``epsilon`` (log
    slider, the claimed total budget), ``split`` (share of epsilon for the
    threshold-testing step; the rest buys Laplace totals), ``query_share``
    (GPTT's query noise: none as in Stoddard et al., half as in Chen et al.,
    three quarters as in Lee & Clifton), ``copies`` (repetitions of every
    difference query, majority vote), ``calibrate`` (locate the noisy threshold
    first, our refinement), ``estimator`` (the paper's rounded averages or our
    order-constrained fit) and ``seed``.

    The figure shows the true histogram (zoomed on small counts) with three
    reconstructions: the GPTT attack, the same attack with GPTT replaced by the
    epsilon-DP sparse vector technique, and rounded Laplace counts.  Results are
    cached per setting (:func:`dpviz.experiments.svt.gptt_attack_run`); a first
    visit of a setting runs the attack's 16.8 million queries in about 35 ms,
    but query noise draws 16.8 million Laplace values (about 0.4 s), and query
    noise with many copies as many binomials (seconds).  While the student reads
    the figure, the settings one move of epsilon, the split or the seed away are
    computed in the background (:func:`dpviz.experiments.svt.prefetch_gptt_runs`),
    the last moved control's first, the way it moved first.
    """

    title = f"GPTT attack explorer: GPTT is {NOT_DP}; SVT and Laplace at the same epsilon are epsilon-DP"

    def __init__(self, **values: Any) -> None:
        self.summary = widgets.HTML()
        super().__init__(**values)
        self._copies_state()
        self.controls["query_share"].observe(lambda _: self._copies_state(), names="value")

    def _copies_state(self) -> None:
        """Copies only matter with query noise: without it every copy answers alike, so the control is disabled."""
        copies = self.controls["copies"]
        noiseless = self.controls["query_share"].value == 0
        copies.disabled = noiseless
        copies.description = "copies per query (only with query noise)" if noiseless else "copies per query"
        copies.tooltip = ("no query noise: every copy of a query gives the same answer, so copies change nothing "
                          "(choose some query noise to use them)" if noiseless else
                          "repeat every difference query this many times and take the majority answer")

    def _build_controls(self) -> dict[str, widgets.Widget]:
        return {
            "dataset": widgets.Dropdown(options=list(PAPER_DATASETS), value="ADULT", description="dataset"),
            "epsilon": log_slider(1.0, -2, 1, "ε claimed (← more privacy)"),
            # an explicit width: with a long description and no width the track shrinks to 0 px
            "split": widgets.FloatSlider(value=0.5, min=0.05, max=0.95, step=0.05,
                                         description="share s of ε for GPTT/SVT (fraction)",
                                         continuous_update=False, style=_WIDE, readout_format=".2f",
                                         layout=widgets.Layout(width="420px")),
            "query_share": widgets.Dropdown(options=[("none (Stoddard et al.)", 0.0),
                                                     ("½ of GPTT's share (Chen et al.)", 0.5),
                                                     ("¾ of GPTT's share (Lee & Clifton)", 0.75)],
                                            value=0.0, description="query noise", style=_WIDE),
            "copies": widgets.Dropdown(options=[1, 101, 10_001, 1_000_001], value=1, description="copies per query",
                                       style=_WIDE, layout=widgets.Layout(width="380px")),
            "calibrate": widgets.Checkbox(value=False, description="locate the noisy threshold first (ours)",
                                          style=_WIDE),
            "estimator": widgets.Dropdown(options=[("rounded averages (paper)", "average"),
                                                   ("order-constrained fit (ours)", "ordered")],
                                          value="average", description="estimator", style=_WIDE),
            "seed": seed_box(0),
        }

    def _compute(self, **values: Any) -> GPTTAttackRun:
        v = values
        return gptt_attack_run(v["dataset"], v["epsilon"], split=v["split"], query_share=v["query_share"],
                               copies=v["copies"], calibrate=v["calibrate"], estimator=v["estimator"], seed=v["seed"])

    def _figure(self, result: GPTTAttackRun) -> go.Figure:
        return attack_figure(result)

    def _figure_spec(self, result: GPTTAttackRun) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        return attack_figure_spec(result)

    def _side_panels(self) -> list[widgets.Widget]:
        return [self.summary]

    def _next_moves(self) -> list[dict[str, Any]]:
        """The settings one or two moves of epsilon, one of the split or the seed away: the moved control's
        first (only without query noise: with it a setting costs 0.4 s or more, too much to guess at)."""
        v = self.values
        if v["query_share"] != 0:
            return []
        base = dict(name=v["dataset"], epsilon=v["epsilon"], split=v["split"], calibrate=v["calibrate"],
                    estimator=v["estimator"], seed=v["seed"])
        groups = {
            "epsilon": [base | {"epsilon": e} for e in self._ahead("epsilon", 2)],
            "split": [base | {"split": s} for s in self._ahead("split")],
            "seed": [base | {"seed": v["seed"] + 1}] if v["seed"] < SEED_MAX else [],
        }
        return self._moved_first(groups)

    def _after_draw(self, result: GPTTAttackRun) -> None:
        prefetch_gptt_runs(self._next_moves())
        rows = []
        for label, acc in ((f"GPTT attack ({NOT_DP})", result.gptt_accuracy),
                           (f"same attack through SVT (ε-DP, c = {result.svt_c})", result.svt_accuracy),
                           ("Laplace counts, rounded (ε-DP)", result.laplace_accuracy)):
            rows.append(f"<tr><td>{html.escape(label)}</td><td>{100 * acc.overall:.1f} %</td>"
                        f"<td>{100 * acc.small:.1f} %</td><td>{100 * acc.small_nonzero:.1f} %</td></tr>")
        a = result.gptt_accuracy
        self.summary.value = (
            f"<p>{html.escape(result.name)}: {a.n_cells} cells, k = {a.k} ({a.n_small} cells with count ≤ k, "
            f"{a.n_small_nonzero} of them non-zero); ε = {result.epsilon:.3g}; GPTT partition: "
            f"{result.gptt_groups} groups from {result.gptt_queries:,} threshold answers.</p>"
            "<table><thead><tr><th>guessed exactly</th><th>all cells</th><th>count ≤ k</th>"
            "<th>1 ≤ count ≤ k</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
        )
