"""AuditExplorer: pick a mechanism and a claimed epsilon, slide the number of samples, watch the interval close in."""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go

from dpviz.experiments.audit import TARGETS, AuditView, audit_explorer_run, audit_target, prefetch_audit_curves
from dpviz.plots.audit import audit_figure, audit_verdict
from dpviz.widgets.accessibility import TEXT_COLOURS
from dpviz.widgets.base import SEED_MAX, Explorer, seed_box

__all__ = ["AuditExplorer"]

#: Largest sample size per dataset the explorer draws (once per mechanism, claim, confidence and seed).
MAX_SAMPLES = 200_000
#: Claimed epsilons offered (samples are cached per claim, so the choice is a short list).
CLAIMS = (0.25, 0.5, 1.0, 2.0)
#: Confidence levels offered.
CONFIDENCES = (0.95, 0.99, 0.999)
#: Mechanisms in the order their curves are prepared in the background (cheapest first: the last
#: two draw two million outputs or more and take about a second each).
_PREPARE_ORDER = ("laplace", "laplace_undernoised", "gaussian", "laplace_discrete", "gptt_counterexample",
                  "hierarchy", "gptt", "svt", "laplace_float_bits", "matrix")


class AuditExplorer(Explorer):
    """Audit a dpviz mechanism's privacy claim and watch the confidence interval of its privacy loss close in.

    Controls: ``mechanism`` (one of :data:`dpviz.experiments.audit.TARGETS`:
    honest Laplace, under-noised Laplace, discrete Laplace, float Laplace under
    Mironov's attack, Gaussian, SVT, GPTT -- NOT differentially private -- on
    StatDP's pair and on Chen & Machanavajjhala's counterexample, the hierarchical tree),
    ``claimed_epsilon`` (the mechanism is calibrated to this claim),
    ``samples`` (per dataset, log slider 100-200,000), ``confidence`` and ``seed``.
    The event is chosen once on a separate search batch; the slider then reads
    the first n samples of one cached confirmation batch, so it only recomputes
    Clopper-Pearson intervals.  Every other control draws 2 x 220,000 fresh
    outputs (0.05-1.2 s), so after each redraw the curves one move away -- the
    other claims and confidences, the next seed, the other mechanisms -- are
    prepared in a background thread (:func:`dpviz.experiments.audit.prefetch_audit_curves`);
    they are the very curves a direct computation gives.

    Parameters
    ----------
    **values
        Initial control values by name, e.g. ``AuditExplorer(mechanism="gptt", claimed_epsilon=0.5)``.

    Attributes
    ----------
    verdict : ipywidgets.HTML
        The chosen event, the hit counts, the interval and the verdict on the claim.
    """

    title = "Privacy audit explorer: a statistical lower bound on epsilon against the claim"
    main_control = "samples"

    def __init__(self, **values: Any) -> None:
        self.verdict = widgets.HTML()
        super().__init__(**values)

    def _build_controls(self) -> dict[str, widgets.Widget]:
        style = {"description_width": "initial"}
        options = [(audit_target(n).label, n) for n in TARGETS]
        return {
            "mechanism": widgets.Dropdown(options=options, value="laplace", description="mechanism", style=style,
                                          layout=widgets.Layout(width="520px")),
            "claimed_epsilon": widgets.SelectionSlider(options=list(CLAIMS), value=1.0, description="claimed ε",
                                                       continuous_update=False, style=style,
                                                       layout=widgets.Layout(width="300px")),
            "samples": widgets.FloatLogSlider(value=20_000, base=10, min=2, max=5.30103, step=0.05,
                                              description="samples n per dataset (outputs)", continuous_update=False,
                                              readout_format=",.0f", style=style,
                                              layout=widgets.Layout(width="420px")),
            "confidence": widgets.Dropdown(options=[(f"{100 * c:g} %", c) for c in CONFIDENCES], value=0.95,
                                           description="confidence", style=style,
                                           layout=widgets.Layout(width="200px")),
            "seed": seed_box(0),
        }

    # The base class declares _compute(**values); each explorer names its controls instead (the
    # render-function habit of ipywidgets' interactive_output), which mypy reports as an override.
    def _compute(self, mechanism: str, claimed_epsilon: float, samples: float,
                 confidence: float, seed: int) -> AuditView:
        n = int(round(samples))
        if not 1 <= n <= MAX_SAMPLES:
            raise ValueError(f"samples must lie in [1, {MAX_SAMPLES}], got {n}")
        return audit_explorer_run(mechanism, claimed_epsilon, n, confidence=confidence, seed=seed,
                                  max_samples=MAX_SAMPLES)

    def _figure(self, result: AuditView) -> go.Figure:
        return audit_figure(result)

    def _side_panels(self) -> list[widgets.Widget]:
        return [self.verdict]

    def _next_moves(self) -> list[tuple[str, float, float, int]]:
        """(mechanism, claim, confidence, seed) one move of a control away: the last moved control's first."""
        v = self.values
        m, c, conf, seed = v["mechanism"], v["claimed_epsilon"], v["confidence"], v["seed"]
        groups = {
            "claimed_epsilon": [(m, o, conf, seed) for o in sorted(CLAIMS, key=lambda x: abs(x - c)) if o != c],
            "confidence": [(m, c, o, seed) for o in CONFIDENCES if o != conf],
            "seed": [(m, c, conf, seed + 1)] if seed + 1 <= SEED_MAX else [],
            "mechanism": [(o, c, conf, seed) for o in self._mechanisms_ahead()],
        }
        return self._moved_first(groups)

    def _mechanisms_ahead(self) -> list[str]:
        """The mechanisms to prepare: those up to two steps along the dropdown first (the way it last moved
        first, as a student pressing the arrow key again would reach them; the slowest take about a second, so
        two steps give them two pauses), then the others of :data:`_PREPARE_ORDER`, cheapest first."""
        near = [o for o in self._ahead("mechanism", steps=2) if o in _PREPARE_ORDER]
        current = self.controls["mechanism"].value
        return near + [o for o in _PREPARE_ORDER if o != current and o not in near]

    def _prepare_next_moves(self) -> None:
        """Have the curves of the next moves prepared in the background (see the class docstring)."""
        prefetch_audit_curves(self._next_moves(), max_samples=MAX_SAMPLES)

    def _after_draw(self, result: AuditView) -> None:
        self._prepare_next_moves()
        r = result.result
        lo, hi = r.loss_interval
        colour = TEXT_COLOURS["error"] if r.violation else TEXT_COLOURS["info"]
        truth = ("unknown" if result.true_epsilon is None else
                 "infinite (not DP)" if result.true_epsilon == float("inf") else f"{result.true_epsilon:.3g}")
        self.verdict.value = (
            f"<div>event: <code>{html.escape(r.event.description)}</code> "
            f"(chosen on {r.search_samples:,} search samples per dataset)<br>"
            f"hits: {r.counts[0]:,} vs {r.counts[1]:,} of {r.samples[0]:,}; privacy loss of the event in "
            f"[{lo:.3f}, {hi:.3f}] (estimate {r.epsilon_estimate:.3f}); true epsilon: {truth}<br>"
            f"<b style='color:{colour}'>epsilon &ge; {r.epsilon_lower:.3f} with {100 * r.confidence:g} % "
            f"confidence: {html.escape(audit_verdict(result))}</b></div>"
        )
