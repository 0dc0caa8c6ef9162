"""Headless tests of AlgorithmComparisonExplorer: controls -> .result and .figure, caching, errors."""

from __future__ import annotations

import numpy as np
import pytest

from dpviz.experiments.comparison import available_algorithms
from dpviz.widgets import AlgorithmComparisonExplorer


@pytest.fixture(scope="module")
def explorer():
    return AlgorithmComparisonExplorer(n=64, trials=3, dataset="NETTRACE")


def _panel1(fig):
    return next(t for t in fig.data if t.name == "scaled error")


def test_defaults_show_every_algorithm_with_bands(explorer):
    r = explorer.result
    assert r.algorithms == tuple(available_algorithms()) and explorer.message.value == ""
    assert r.x.shape == (64,) and r.trials == 3 and r.source == "NETTRACE"
    p1 = _panel1(explorer.figure)
    assert list(p1.x) == list(r.algorithms)
    for i, a in enumerate(r.algorithms):
        s = r.runs[a].scaled_errors
        assert p1.y[i] == pytest.approx(s.mean())
        assert p1.error_y.array[i] == pytest.approx(np.percentile(s, 95) - s.mean())
        assert p1.error_y.arrayminus[i] == pytest.approx(s.mean() - np.percentile(s, 5))
    assert "NETTRACE" in explorer.figure.layout.title.text and "epsilon = 0.1" in explorer.figure.layout.title.text
    assert explorer.progress.value == explorer.progress.max == len(r.algorithms)


def test_epsilon_change_recomputes_and_moving_back_hits_the_cache(explorer):
    explorer.controls["epsilon"].value = 1.0
    hi = explorer.result
    assert hi.epsilon == pytest.approx(1.0) and set(hi.computed) == set(hi.algorithms)
    # the redraw patched the arrays in place: the figure shows the new numbers
    np.testing.assert_allclose(_panel1(explorer.figure).y, [hi.runs[a].scaled_errors.mean() for a in hi.algorithms])
    assert "epsilon = 1;" in explorer.figure.layout.title.text
    line = next(t for t in explorer.figure.data if t.name == "DAWA" and t.yaxis == "y2")
    np.testing.assert_allclose(line.y, hi.profile_mean["DAWA"])
    explorer.controls["epsilon"].value = 0.1
    again = explorer.result
    assert again.computed == ()
    for a in again.algorithms:
        assert hi.runs[a].scaled_errors.mean() != again.runs[a].scaled_errors.mean() or a == "Uniform"


def test_unticking_an_algorithm_removes_it_and_reticking_is_cached(explorer):
    explorer.controls["show_MWEM"].value = False
    assert "MWEM" not in explorer.result.algorithms
    assert "MWEM" not in list(_panel1(explorer.figure).x)
    assert not any(t.name == "MWEM release" for t in explorer.figure.data)
    explorer.controls["show_MWEM"].value = True
    assert "MWEM" in explorer.result.algorithms and explorer.result.computed == ()


def test_partition_panel_matches_the_learned_partition(explorer):
    r = explorer.result
    assert r.partition_algorithm == "DAWA" if "DAWA" in r.algorithms else r.partition_algorithm.startswith("DAWA")
    means = next(t for t in explorer.figure.data if t.name and t.name.endswith("(true bucket means)"))
    np.testing.assert_allclose(means.y, r.partition.expand(r.partition.aggregate(r.x)))
    np.testing.assert_array_equal(r.partition.starts, r.runs[r.partition_algorithm].partitions[0].starts)


def test_synthetic_shape_and_scale():
    e = AlgorithmComparisonExplorer(n=64, trials=2, dataset="step", scale=1000, show_GreedyH=False)
    assert e.result.x.sum() == 1000 and "1,000 records sampled" in e.figure.layout.title.text
    assert "GreedyH" not in e.result.algorithms
    e.controls["dataset"].value = "spikes"
    truth = next(t for t in e.figure.data if t.name == "true histogram")
    np.testing.assert_array_equal(truth.y, e.result.x)
    assert "spikes" in e.figure.layout.title.text
    e.controls["scale"].value = 0  # "real counts" means 10,000 records for a synthetic shape, and says so
    assert e.result.x.sum() == 10_000 and "10,000 records sampled" in e.figure.layout.title.text


def test_bad_settings_show_a_message_and_keep_the_last_result():
    e = AlgorithmComparisonExplorer(n=64, trials=2)
    good = e.result
    e.controls["workload"].value = "all_ranges"
    assert e.message.value == "" and e.result.workload == "all ranges"
    good = e.result
    e.controls["n"].value = 4096
    assert "n <= 1024" in e.message_text and e.result is good
    e.controls["n"].value = 64
    for a in available_algorithms():
        e.controls[f"show_{a}"].value = False
    assert "at least one" in e.message_text and e.result is not None


@pytest.mark.parametrize("name", ["dataset", "scale", "n", "workload"])
def test_none_for_a_picker_is_refused_by_name(name):
    with pytest.raises(ValueError, match=rf"^{name} = None .*allowed") as err:
        AlgorithmComparisonExplorer(**{name: None})
    assert "please report" not in str(err.value) and "AttributeError" not in str(err.value)


@pytest.mark.parametrize("kwargs, name", [({"dataset": "nope"}, "dataset"), ({"trials": 0}, "trials"),
                                          ({"epsilon": "a"}, "epsilon"), ({"show_MWEM": "no"}, "show_MWEM")])
def test_bad_control_values_are_refused_by_name(kwargs, name):
    with pytest.raises((TypeError, ValueError), match=name):
        AlgorithmComparisonExplorer(**kwargs)


def _shown(fig):
    """What the figure shows: every trace's data arrays and the titles, as plain lists."""
    def plain(v):   # NaN (the breaks between boundary lines) as None, so that equal figures compare equal
        if v is None:
            return None
        a = np.asarray(v)
        return a.tolist() if a.dtype.kind not in "fc" else np.where(np.isnan(a), None, a).tolist()
    traces = [(t.name, plain(t.x), plain(t.y), plain(t.customdata),
               plain(getattr(t.error_y, "array", None)), plain(getattr(t.error_y, "arrayminus", None)),
               plain(t.marker.color) if isinstance(t.marker.color, (list, tuple, np.ndarray)) else t.marker.color,
               plain(t.text), plain(t.textfont.color) if t.textfont is not None else None)   # the line labels
              for t in fig.data]
    return traces, fig.layout.title.text, [a.text for a in fig.layout.annotations]


def test_patched_figure_equals_a_fresh_figure_after_any_moves():
    from dpviz.plots.comparison import explorer_figure

    e = AlgorithmComparisonExplorer(n=64, trials=2, dataset="step", scale=1000)
    moves = [("epsilon", 1.0), ("seed", 3), ("epsilon", 0.1), ("show_MWEM", False), ("epsilon", 0.5),
             ("show_MWEM", True), ("workload", "all_ranges"), ("epsilon", 1.0), ("dataset", "NETTRACE"),
             ("epsilon", 0.1)]   # moving back: the cached result is patched in as well
    for name, value in moves:
        e.controls[name].value = value
        assert e.message.value == ""
        assert _shown(e.figure) == _shown(explorer_figure(e.result)), (name, value)


def test_the_next_epsilon_step_is_computed_while_the_student_reads_the_figure():
    """After a move, the settings one slider step away (the way it moved first) are computed in the background:
    the next step then finds every algorithm cached, and shows the same numbers as a call computing it now."""
    import time

    from dpviz.experiments.comparison import comparison_explorer_run
    from dpviz.experiments.comparison.explorer import _shared_run
    from dpviz.widgets.base import next_values

    e = AlgorithmComparisonExplorer(n=64, trials=2, dataset="NETTRACE", seed=77)
    down = next_values(e.controls["epsilon"], steps=1)[0]
    e.controls["epsilon"].value = down                 # computed now
    assert set(e.result.computed) == set(e.result.algorithms)
    t0 = time.monotonic()
    while _shared_run.pending() and time.monotonic() - t0 < 60:
        time.sleep(0.02)
    further = next_values(e.controls["epsilon"], steps=1)[0]
    assert further < down
    e.controls["epsilon"].value = further
    assert e.result.computed == ()
    own = comparison_explorer_run("NETTRACE", e.selected, further, n=64, trials=2, rng=77, cache={})
    for a in e.result.algorithms:
        np.testing.assert_array_equal(e.result.runs[a].estimates, own.runs[a].estimates)
