"""AlgorithmComparisonExplorer: workload-aware and data-aware algorithms side by side on the same data and epsilon."""

from __future__ import annotations

import html
import time
from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go

from dpviz.experiments.comparison import (
    ALGORITHMS,
    SHAPES,
    WORKLOADS,
    ExplorerResult,
    available_algorithms,
    comparison_explorer_run,
    prefetch_comparison_runs,
)
from dpviz.plots.comparison import explorer_figure, explorer_figure_spec
from dpviz.widgets.base import SEED_MAX, Explorer, int_slider, log_slider, seed_box

__all__ = ["AlgorithmComparisonExplorer", "DATASET_OPTIONS", "SCALE_OPTIONS"]


def _dataset_options() -> list[tuple[str, str]]:
    """(label, value) pairs: the synthetic shapes, then the shipped 1-D DPBench histograms."""
    from dpviz import datasets

    real = [(f"{d} (DPBench)", d) for d in datasets.names() if datasets.describe(d).kind == "histogram"]
    return [(f"synthetic: {s}", s) for s in SHAPES] + real


#: (label, value) pairs of the dataset picker: synthetic shapes, then the shipped DPBench histograms.
DATASET_OPTIONS = _dataset_options()
#: (label, value) pairs of the scale picker; 0 = the real counts (10,000 records for a synthetic shape).
SCALE_OPTIONS = [("real counts (shapes: 10,000)", 0), ("1,000 records", 1_000), ("10,000 records", 10_000),
                 ("100,000 records", 100_000), ("1,000,000 records", 1_000_000)]
#: Domain sizes of the ``n`` picker.
N_OPTIONS = (64, 128, 256, 512, 1024, 4096)
#: Seconds an update computes before its progress bar moves (a quicker one sends no progress messages).
PROGRESS_AFTER_S = 0.1


class AlgorithmComparisonExplorer(Explorer):
    """Compare DP histogram algorithms on one dataset, workload and epsilon.

    Controls: ``dataset`` (synthetic shapes or the shipped DPBench histograms),
    ``scale`` (real counts, or that many records sampled from the data's
    shape, as DPBench does), ``n`` (domain: real data is coarsened to n
    cells), ``workload``, ``epsilon``, ``trials``, ``seed`` and one checkbox
    per algorithm (``show_<name>``).  The figure shows each algorithm's DPBench
    scaled error with its band over trials, the error per query with bands,
    and the data with DAWA's learned partition and the DAWA and MWEM releases.

    Every algorithm is epsilon-DP; nothing is charged to an accountant (each
    redraw is an illustration of the algorithms, not a release).  Results are
    cached per setting: moving a control back, or ticking another algorithm,
    only computes what is new; a progress bar counts the algorithms of an
    update that takes longer than 0.1 s.  While the student reads the figure,
    the settings one move of epsilon, the seed or the scale away are computed
    in the background (:func:`dpviz.experiments.comparison.prefetch_comparison_runs`),
    the last moved control's first.  The defaults (n = 256, 5 trials) keep an
    uncached update near 50 ms; n = 4096 with DAWA or GreedyH can take seconds
    the first time.

    Parameters
    ----------
    **values
        Initial control values, e.g. ``AlgorithmComparisonExplorer(dataset="NETTRACE", epsilon=0.01)``.

    Raises
    ------
    TypeError, ValueError
        If a control is unknown or given a value it cannot show (e.g.
        ``dataset=None``, an unknown dataset, ``trials`` outside [2, 50]); the
        message names the control and the allowed values.

    Examples
    --------
    >>> e = AlgorithmComparisonExplorer(dataset="step", scale=1000, n=64, epsilon=1.0, trials=2, seed=0)
    >>> e.result.n, e.result.trials, e.result.algorithms[:2]
    (64, 2, ('Identity', 'H_b'))
    """

    title = "Workload-aware vs data-aware: error per algorithm, per query, and the learned partition"
    main_control = "epsilon"

    def __init__(self, **values: Any) -> None:
        # a Dropdown accepts None as "nothing selected"; the explorer needs a value, so refuse it by name
        choices = {"dataset": [v for _, v in DATASET_OPTIONS], "scale": [v for _, v in SCALE_OPTIONS],
                   "n": list(N_OPTIONS), "workload": list(WORKLOADS)}
        for name, allowed in choices.items():
            if name in values and values[name] is None:
                raise ValueError(f"{name} = None is not a value this control accepts; allowed: {allowed}")
        self._started = 0.0
        self.progress = widgets.IntProgress(value=0, min=0, max=1, description="computing",
                                            style={"description_width": "initial"},
                                            layout=widgets.Layout(width="420px"))
        self.info = widgets.HTML()
        super().__init__(**values)

    def _build_controls(self) -> dict[str, widgets.Widget]:
        style = {"description_width": "initial"}
        controls: dict[str, widgets.Widget] = {
            "dataset": widgets.Dropdown(options=DATASET_OPTIONS, value="ADULT", description="dataset", style=style,
                                        layout=widgets.Layout(width="300px")),
            "scale": widgets.Dropdown(options=SCALE_OPTIONS, value=0, description="scale", style=style,
                                      layout=widgets.Layout(width="300px")),
            "n": widgets.Dropdown(options=list(N_OPTIONS), value=256, description="domain n",
                                  style=style, layout=widgets.Layout(width="180px")),
            "workload": widgets.Dropdown(options=list(WORKLOADS), value="prefix", description="workload",
                                         style=style, layout=widgets.Layout(width="240px")),
            "epsilon": log_slider(0.1, -3, 1, "ε (total budget per algorithm)"),
            "trials": int_slider(5, 2, 50, "trials k (simulated releases)"),
            "seed": seed_box(0),
        }
        for a in available_algorithms():
            controls[f"show_{a}"] = widgets.Checkbox(value=True, description=a, indent=False,
                                                     tooltip=ALGORITHMS[a].description,
                                                     layout=widgets.Layout(width="110px"))
        return controls

    def _control_rows(self) -> list[list[widgets.Widget]]:
        """The settings three per row, then the algorithms' checkboxes together on rows of their own."""
        settings = [w for k, w in self.controls.items() if not k.startswith("show_")] + list(self.buttons.values())
        shown = [self.controls[f"show_{a}"] for a in available_algorithms()]
        label = widgets.HTML("<span>algorithms shown:</span>", layout=widgets.Layout(width="130px"))
        return [settings[i:i + 3] for i in range(0, len(settings), 3)] + [[label, *shown]]

    @property
    def selected(self) -> list[str]:
        """The ticked algorithms, in the standard order."""
        return [a for a in available_algorithms() if self.controls[f"show_{a}"].value]

    def _on_progress(self, done: int, total: int, label: str) -> None:
        """Show that ``done`` of ``total`` algorithms are computed, the last being ``label`` (once the update has
        taken :data:`PROGRESS_AFTER_S`; a quick one only sets the bar full at the end)."""
        slow = time.perf_counter() - self._started > PROGRESS_AFTER_S
        if slow or done == total:
            self.progress.max = total
            self.progress.value = done
        if slow:
            self.progress.description = f"{label} done ({done}/{total})"

    def _setting(self, **change: Any) -> dict[str, Any]:
        """The current controls as a setting of the experiment, with ``change`` applied."""
        v = self.values
        setting = dict(source=v["dataset"], algorithms=self.selected, epsilon=v["epsilon"], n=v["n"],
                       scale=v["scale"], workload=v["workload"], trials=v["trials"], rng=v["seed"])
        setting.update(change)
        setting["scale"] = None if setting["scale"] == 0 else setting["scale"]
        return setting

    def _compute(self, **values: Any) -> ExplorerResult:
        """One call into the experiment with the current controls (the ``show_*`` boxes give :attr:`selected`)."""
        self._started = time.perf_counter()
        s = self._setting()
        return comparison_explorer_run(s["source"], s["algorithms"], s["epsilon"], n=s["n"], scale=s["scale"],
                                       workload=s["workload"], trials=s["trials"], rng=s["rng"],
                                       progress=self._on_progress)

    def _next_moves(self) -> list[dict[str, Any]]:
        """The settings one or two moves of epsilon, the seed or the scale away: the last moved control's first,
        and its values the way it last moved first (a student presses the same arrow key again)."""
        seed = self.controls["seed"]
        groups = {
            "epsilon": [self._setting(epsilon=e) for e in self._ahead("epsilon", 2)],
            "seed": [self._setting(rng=seed.value + 1)] if seed.value < SEED_MAX else [],
            "scale": [self._setting(scale=s) for s in self._ahead("scale")],
        }
        return self._moved_first(groups)

    def _figure(self, result: ExplorerResult) -> go.Figure:
        """The whole figure of a result (the first draw; later ones patch it)."""
        return explorer_figure(result)

    def _figure_spec(self, result: ExplorerResult) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The same figure as plain dicts: a redraw patches only the arrays and titles that changed."""
        return explorer_figure_spec(result)

    def _side_panels(self) -> list[widgets.Widget]:
        """The progress bar and the info line under the figure."""
        return [self.progress, self.info]

    def _after_draw(self, result: ExplorerResult) -> None:
        """Name the winner and DAWA's bucket count; prepare the next moves.  (Which runs were computed now and which
        came from the cache is in ``result.computed``: with runs prepared in the background it says nothing a
        student needs, and a page exported without a kernel could not keep it true.)"""
        best = min(result.algorithms, key=lambda a: result.runs[a].scaled_errors.mean())
        parts = [f"lowest mean scaled error: <b>{html.escape(best)}</b> "
                 f"({result.runs[best].scaled_errors.mean():.3g})"]
        if result.partition is not None and result.partition_algorithm is not None:  # set together
            parts.append(f"{html.escape(result.partition_algorithm)} learned {result.partition.n_buckets} buckets "
                         f"in its first trial")
        self.info.value = "<br>".join(parts)
        self.progress.description = "done"
        prefetch_comparison_runs(self._next_moves())
