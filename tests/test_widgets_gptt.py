"""Headless tests of the GPTTAttackExplorer, the SVT-lecture figures and experiments."""

import time

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from dpviz import datasets, svt  # noqa: E402
from dpviz.experiments.svt import (  # noqa: E402
    attack_table,
    counterexample_experiment,
    gptt_attack_run,
    threshold_answers_experiment,
)
from dpviz.plots.decimate import PLOT_COLUMNS  # noqa: E402
from dpviz.plots.svt import (  # noqa: E402
    attack_figure,
    plot_attack,
    plot_attack_table,
    plot_counterexample,
    plot_counterexample_probabilities,
    plot_threshold_answers,
)
from dpviz.widgets import GPTTAttackExplorer  # noqa: E402

NOT_DP = "NOT differentially private"


@pytest.fixture(scope="module")
def explorer():
    return GPTTAttackExplorer()


def _decode(source: str) -> np.ndarray:
    """The RGBA pixels of a PNG data URI, bottom row first (as plotly draws an image trace on a y axis)."""
    import base64
    import io

    from PIL import Image

    assert source.startswith("data:image/png;base64,")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(source.split(",", 1)[1]))).convert("RGBA"))


def _expected_dots(guess, truth, top, image) -> np.ndarray:
    """The dot image built cell by cell: each guess in [0, top] colours the pixel holding (cell, guess), blue when
    exact, vermillion when wrong (wrong wins a shared pixel); every other pixel transparent."""
    n = truth.size
    cols = round(n / image.dx)
    rows = round((top + 1) / image.dy)
    out = np.zeros((rows, cols, 4), dtype=np.uint8)
    blue, wrong = (0, 114, 178, 255), (213, 94, 0, 255)
    for i in range(n):
        g = int(guess[i])
        if not 0 <= g <= top:
            continue
        c, row = int((i + 0.5) * cols / n), int((g + 0.5) * rows / (top + 1))
        # the pixel drawn there covers the point (cell, guess) on the axes
        assert image.x0 + (c - 0.5) * image.dx <= i <= image.x0 + (c + 0.5) * image.dx
        assert image.y0 + (row - 0.5) * image.dy <= g <= image.y0 + (row + 0.5) * image.dy
        if g != truth[i]:
            out[row, c] = wrong
        elif tuple(out[row, c]) != wrong:
            out[row, c] = blue
    return out


def test_defaults_show_the_attack_beside_honest_mechanisms(explorer):
    r = explorer.result
    assert explorer.values["dataset"] == "ADULT" and r.epsilon == 1.0
    assert NOT_DP in explorer.figure.layout.title.text and NOT_DP in explorer.title
    # the figure shows exactly the result: truth and the three guesses
    ys = [np.asarray(t.y, dtype=float) for t in explorer.figure.data if t.type == "scatter"]
    data = datasets.load("ADULT").astype(float)
    per = -(-r.truth.size // PLOT_COLUMNS)   # cells per pixel column
    # the true counts: exact at the cells drawn, and in each pixel column the same lowest and highest count
    cells = np.asarray(explorer.figure.data[0].x, dtype=int)
    np.testing.assert_array_equal(ys[0], data[cells])
    assert cells[0] == 0 and cells[-1] == data.size - 1
    columns = np.arange(data.size) // per
    for c in range(columns[-1] + 1):
        drawn = ys[0][cells // per == c]
        assert drawn.min() == data[columns == c].min() and drawn.max() == data[columns == c].max()
    top = int(np.floor(explorer.figure.layout.yaxis.range[1]))
    for k, guess in ((1, r.gptt_guess), (3, r.svt_guess), (5, r.laplace_guess)):   # the dots: one image each
        image = explorer.figure.data[k]
        assert image.type == "image"
        np.testing.assert_array_equal(_decode(image.source), _expected_dots(guess, r.truth, top, image))
        np.testing.assert_array_equal(explorer.figure.data[k - 1].customdata, guess[cells])   # hover: the guess
    assert [t.name for t in explorer.figure.data[6:]] == ["guess: blue = exact, vermillion = wrong"]
    assert r.gptt_accuracy == svt.fraction_exact(r.truth, r.gptt_guess, 15)
    assert "GPTT attack" in explorer.summary.value and NOT_DP in explorer.summary.value


def test_gptt_leaks_small_nonzero_counts_that_honest_mechanisms_do_not(explorer):
    explorer.controls["dataset"].value = "MEDCOST"
    explorer.controls["calibrate"].value = True
    r = explorer.result
    assert r.name == "MEDCOST" and r.k == 26
    # any epsilon-DP guess of a count c that is right w.p. >= p for c and for c+1 needs p <= e^eps/(1+e^eps)
    ceiling = np.e / (1 + np.e)
    assert r.gptt_accuracy.small_nonzero > 0.9 > ceiling
    assert r.laplace_accuracy.small_nonzero < ceiling
    # the honest SVT halts after 10 ABOVE answers: its few groups are cut by position, not count, so it
    # misses the zeros (`small` counts them) and hits non-zero counts only where a group's average happens to
    assert r.svt_accuracy.small < 0.2 and r.svt_accuracy.small_nonzero < ceiling
    explorer.controls["calibrate"].value = False
    explorer.controls["dataset"].value = "ADULT"


def test_revisiting_a_setting_is_cached_and_fast(explorer):
    explorer.controls["epsilon"].value = 0.5
    first = explorer.result
    explorer.controls["epsilon"].value = 1.0
    t0 = time.perf_counter()
    explorer.controls["epsilon"].value = 0.5
    elapsed = time.perf_counter() - t0
    assert explorer.result is first          # same cached run object
    assert elapsed < 1.0                     # generous: the benchmark measures the real latency
    explorer.controls["epsilon"].value = 1.0


def test_bad_setting_keeps_last_good_figure(explorer):
    before = explorer.result
    explorer.controls["split"].value = 0.95
    explorer.controls["split"].value = 0.5
    assert explorer.message.value == ""
    with pytest.raises(ValueError, match="histogram"):
        gptt_attack_run("CPS", 1.0)
    with pytest.raises(ValueError, match="split"):
        gptt_attack_run("ADULT", 1.0, split=1.0)
    assert explorer.result is not None and before is not None


def test_explorer_rejects_unknown_controls():
    with pytest.raises(ValueError, match="unknown control"):
        GPTTAttackExplorer(budget=1.0)


def test_attack_table_shapes_and_consistency():
    t = attack_table(("ADULT", "MEDCOST"), (1.0, 0.1), repetitions=2, rng=0)
    assert t.overall.shape == (2, 2, 2) and t.k.tolist() == [15, 26]
    assert t.scale.tolist() == [17665, 9415] and t.domain.tolist() == [4096, 4096]
    assert np.all((0 <= t.overall) & (t.overall <= 1)) and np.all((0 <= t.small) & (t.small <= 1))
    # small-count fraction is a weighted part of the overall fraction
    assert np.all(t.overall * 4096 >= t.small * t.n_small[:, None, None] - 1e-9)
    assert NOT_DP in repr(t)
    with pytest.raises(ValueError, match="which"):
        t.mean("median")
    # Table 3 of [CM15] counts the cells with count <= 5 (its "# of cells": 3878 for MEDCOST); None uses k
    assert t.small_bound.tolist() == [5, 5] and t.n_small.tolist() == [4062, 3878]
    # the closed-form expectations sit beside the runs; at epsilon = 1 one run has sd < 0.003 on these two
    # histograms (seen over 100 runs), so 0.01 is more than 4.5 standard errors of a 2-run mean
    assert np.all(np.abs(t.mean("overall")[:, 0] - t.expected_overall[:, 0]) < 0.01)
    assert np.all(np.isnan(attack_table(("ADULT",), (1.0,), repetitions=1, calibrate=True, rng=0).expected_small))
    tk = attack_table(("MEDCOST",), (1.0,), repetitions=1, small_bound=None, rng=0)
    assert tk.small_bound.tolist() == [26] and tk.n_small.tolist() == [int(np.sum(datasets.load("MEDCOST") <= 26))]


def test_counterexample_experiment_agrees_with_exact():
    e = counterexample_experiment([1, 2, 3, 8], 0.5, 0.5, trials=50_000, rng=1)
    ok = np.isfinite(e.sim_p_d)
    assert ok.tolist() == [True, True, True, False]
    assert np.all(np.abs(e.sim_p_d[ok] - e.exact.p_d[ok]) <= 4.5 * e.se_d[ok])
    assert np.all(np.abs(e.sim_p_dprime[ok] - e.exact.p_dprime[ok]) <= 4.5 * e.se_dprime[ok])
    assert NOT_DP in repr(e)


def test_threshold_answers_experiment():
    e = threshold_answers_experiment(np.linspace(0, 20, 30), 10.0, 1.0, 3, 2000, rng=0)
    assert e.svt_positives.max() <= 3 and e.gptt_positives.max() > 3
    assert np.all(np.diff(e.svt_halted) >= 0)


def test_static_figures_carry_the_label():
    run = gptt_attack_run("ADULT", 1.0)
    fig = attack_figure(run)
    assert NOT_DP in fig.layout.title.text
    ax = plot_attack(run, "gptt")
    assert NOT_DP in ax.get_title()
    with pytest.raises(ValueError, match="method"):
        plot_attack(run, "rappor")
    t = attack_table(("ADULT",), (1.0,), repetitions=2, rng=0)
    assert NOT_DP in plot_attack_table(t, "overall").get_title()
    e = counterexample_experiment([1, 2], 0.5, 0.5, trials=2000, rng=0)
    assert NOT_DP in plot_counterexample(e).get_title()
    assert NOT_DP in plot_counterexample_probabilities(e).get_title()
    th = threshold_answers_experiment(np.arange(10.0), 5.0, 1.0, 2, 100, rng=0)
    assert NOT_DP in plot_threshold_answers(th).get_title()
    plt.close("all")


# --------------------------------------------------------------------------- issue 13: bad input refused, named
def test_attack_table_refuses_record_datasets():
    # CPS holds one income per person, not counts per cell: attacking it "as a histogram" is meaningless
    assert datasets.describe("CPS").kind == "records"
    with pytest.raises(ValueError, match=r"names.*'CPS'.*records"):
        attack_table(names=("CPS",), epsilons=(1.0,), repetitions=1, rng=0)
    with pytest.raises(ValueError, match=r"names.*'CPS'"):
        attack_table(names=("MEDCOST", "CPS"), epsilons=(1.0,), repetitions=1, rng=0)


@pytest.mark.parametrize("kwargs, match", [
    ({"names": "ADULT"}, "names"),                     # a bare string is not 5 dataset names
    ({"names": ("nope",)}, "names"),
    ({"names": ()}, "names"),
    ({"epsilons": ()}, "epsilons"),
    ({"calibrate": "no"}, "calibrate"),
    ({"calibrate": 1}, "calibrate"),
    ({"repetitions": 10**9}, "repetitions"),
    ({"small_bound": -1}, "small_bound"),
    ({"small_bound": 2.5}, "small_bound"),
    ({"grouping": "column"}, "grouping"),
])
def test_attack_table_bad_input_is_named(kwargs, match):
    args = {"names": ("MEDCOST",), "epsilons": (1.0,), "repetitions": 1, "rng": 0, **kwargs}
    with pytest.raises((ValueError, TypeError), match=match):
        attack_table(**args)


@pytest.mark.parametrize("call, match", [
    (lambda: gptt_attack_run("MEDCOST", 1.0, calibrate="no"), "calibrate"),
    (lambda: gptt_attack_run("MEDCOST", 1.0, copies=2**40), "copies"),
    (lambda: gptt_attack_run("CPS", 1.0), "name"),
    (lambda: gptt_attack_run("MEDCOST", 1e-300, calibrate=True), "epsilon"),
    (lambda: counterexample_experiment(["a"], 0.5, 0.5), "t_values"),
    (lambda: counterexample_experiment([1.5], 0.5, 0.5), "t_values"),
    (lambda: counterexample_experiment([1, 2], 0.5, 0.5, trials=10**9), "trials"),
    (lambda: threshold_answers_experiment([0.0, 1.0], True, 1.0, 1, 10), "threshold"),
    (lambda: threshold_answers_experiment([0.0, 1.0], 0.5, 1.0, 1, 10**9), "trials"),
])
def test_experiments_bad_input_is_named(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_gptt_attack_run_calibrate_flag_is_honoured():
    # calibrate=False and True are different runs (the cache keys on the real bool)
    off = gptt_attack_run("MEDCOST", 0.1, calibrate=False, seed=3)
    on = gptt_attack_run("MEDCOST", 0.1, calibrate=True, seed=3)
    assert off.calibrate is False and on.calibrate is True


def _figure_state(fig):
    """The figure as plotly JSON (uids dropped): what the browser is told to draw."""
    import json

    state = json.loads(fig.to_json())
    for trace in state["data"]:
        trace.pop("uid", None)
    return state


def test_patched_redraws_show_exactly_a_fresh_figure_of_the_result():
    import plotly.graph_objects as go

    from dpviz.plots.svt import attack_figure

    e = GPTTAttackExplorer()
    moves = [("epsilon", 0.3), ("split", 0.7), ("dataset", "MEDCOST"), ("seed", 4), ("estimator", "ordered"),
             ("calibrate", True), ("dataset", "ADULT"), ("epsilon", 1.0)]
    for name, value in moves:
        e.controls[name].value = value
        assert e.message.value == ""
        assert _figure_state(e.figure) == _figure_state(go.FigureWidget(attack_figure(e.result))), (name, value)


def _wait_for_gptt_warmer(timeout_s: float = 60.0) -> None:
    from dpviz.experiments.svt.attack_run import _cached_run

    t0 = time.monotonic()
    while _cached_run.pending() and time.monotonic() - t0 < timeout_s:
        time.sleep(0.02)
    assert not _cached_run.pending()


def test_the_next_epsilon_step_is_computed_while_the_student_reads_the_figure():
    """After a move of epsilon, the next step the same way is computed in the background: the move to it is a
    cache hit, and the run equals one computed by a direct call with the cache emptied."""
    from dpviz.experiments.svt import prefetch_gptt_runs
    from dpviz.experiments.svt.attack_run import _cached_run
    from dpviz.widgets.base import next_values

    e = GPTTAttackExplorer(dataset="INCOME", seed=5)
    down = next_values(e.controls["epsilon"], steps=1)[0]
    e.controls["epsilon"].value = down
    _wait_for_gptt_warmer()
    further = next_values(e.controls["epsilon"], steps=1)[0]
    assert further < down and _cached_run.cached(("INCOME", float(f"{further:.12g}"), 0.5, 0.0, 1, False,
                                                   "average", 10, 5))
    hits = _cached_run.cache_info()[0]
    e.controls["epsilon"].value = further
    assert _cached_run.cache_info()[0] == hits + 1
    shown = e.result
    from dpviz.experiments.svt import attack_run

    for obj in vars(attack_run).values():        # every cache of the module: the run is computed from scratch
        if callable(getattr(obj, "cache_clear", None)) and not isinstance(obj, type):
            obj.cache_clear()
    again = gptt_attack_run("INCOME", further, seed=5)
    assert again is not shown
    for name in ("gptt_guess", "svt_guess", "laplace_guess"):
        np.testing.assert_array_equal(getattr(again, name), getattr(shown, name))
    with pytest.raises(ValueError, match="epsilon"):
        prefetch_gptt_runs([dict(name="INCOME", epsilon=-1.0)])
    with pytest.raises(ValueError, match="unknown"):
        prefetch_gptt_runs([dict(name="INCOME", epsilon=1.0, dataset="ADULT")])
    with pytest.raises(TypeError, match="dict"):
        prefetch_gptt_runs([("INCOME", 1.0)])
