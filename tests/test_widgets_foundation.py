"""Headless tests of the foundation explorers: set a control, assert on .result and .figure."""

import math

import numpy as np
import pytest

from dpviz.widgets import CompositionExplorer, LaplaceExplorer


def _ys(fig):
    return [np.asarray(t.y, dtype=float).copy() for t in fig.data]


def test_laplace_explorer_epsilon_changes_result_and_figure():
    e = LaplaceExplorer()
    assert e.result.epsilon == 1.0
    before = _ys(e.figure)
    fig, traces = e.figure, list(e.figure.data)
    e.controls["epsilon"].value = 0.1
    # redrawn in place: the same FigureWidget and the same trace objects, with new data
    assert e.figure is fig and all(a is b for a, b in zip(traces, e.figure.data, strict=True))
    assert e.result.epsilon == pytest.approx(0.1)
    assert e.result.theory_variance == pytest.approx(200.0)
    assert "epsilon = 0.1" in e.figure.layout.title.text
    after = _ys(e.figure)
    assert not np.allclose(before[2], after[2])  # simulated mean errors moved
    # the bands drawn are the result's: simulated (trace 2) and theoretical (trace 3), as errors around 0
    s = e.result.summary
    np.testing.assert_allclose(np.asarray(e.figure.data[2].error_y.array), s.upper - s.mean)
    np.testing.assert_allclose(np.asarray(e.figure.data[3].error_y.array), e.result.theory_upper - s.truth)
    np.testing.assert_allclose(np.asarray(e.figure.data[3].error_y.array), 10 * np.log(10))
    assert e.message.value == ""


def test_laplace_explorer_accuracy_first():
    e = LaplaceExplorer()
    e.controls["mode"].value = "accuracy"
    e.controls["target"].value = 2.0
    assert e.result.epsilon == pytest.approx(math.log(10) / 2.0)
    assert e.controls["epsilon"].value == pytest.approx(math.log(10) / 2.0, rel=1e-6)
    np.testing.assert_allclose(e.result.theory_upper - e.result.summary.truth, 2.0)


def test_bad_value_shows_message_and_keeps_last_good_figure():
    e = LaplaceExplorer()
    e.controls["mode"].value = "accuracy"
    good = e.result
    good_fig = _ys(e.figure)
    e.controls["target"].value = -3.0
    assert "halfwidth" in e.message_text and "> 0" in e.message_text
    assert e.result is good
    for a, b in zip(good_fig, _ys(e.figure), strict=True):
        np.testing.assert_array_equal(a, b)
    e.controls["target"].value = 4.0  # recovers
    assert e.message.value == "" and e.result is not good


def test_resample_button_and_seed_reproducibility():
    e = LaplaceExplorer()
    first = e.result.release.copy()
    e.buttons["resample"].click()
    assert e.controls["seed"].value == 1
    assert not np.array_equal(first, e.result.release)
    e.controls["seed"].value = 0
    np.testing.assert_array_equal(first, e.result.release)


def test_custom_truth_and_unknown_control():
    e = LaplaceExplorer(truth=[1.0, 2.0], labels=["a", "b"], epsilon=2.0)
    assert e.result.summary.truth.tolist() == [1.0, 2.0] and e.result.epsilon == 2.0
    with pytest.raises(ValueError, match="unknown control"):
        LaplaceExplorer(eps=1.0)
    assert repr(e).startswith("LaplaceExplorer(epsilon=2")


def test_composition_explorer_budget_and_refusal():
    e = CompositionExplorer()
    assert e.result.theory_sequential.sum() == pytest.approx(128.0)
    assert e.result.theory_parallel.sum() == pytest.approx(12.0)
    e.controls["epsilon"].value = 0.5
    assert e.result.theory_sequential.sum() == pytest.approx(512.0)
    assert "Algorithm 1 ledger" in e.ledgers.value
    e.controls["share"].value = 0.3
    assert e.result.sequential is None
    assert "refused" in e.message_text and "nothing was recorded" in e.message_text
    assert e.result.sequential_ledger.spent.epsilon == 0.0  # a refused plan records nothing
    assert "refused" in e.figure.layout.title.text


def test_mimebundle_has_short_text():
    e = CompositionExplorer()
    bundle = e._repr_mimebundle_()
    assert bundle["text/plain"].startswith("CompositionExplorer(")
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_out_of_range_starting_values_are_refused_not_clipped():
    """ipywidgets would clip epsilon=-1 to the slider's 0.01; the explorer must refuse it by name."""
    with pytest.raises(ValueError, match="epsilon"):
        LaplaceExplorer(epsilon=-1)
    with pytest.raises(ValueError, match="epsilon"):
        LaplaceExplorer(epsilon=100)
    with pytest.raises(ValueError, match="share"):
        CompositionExplorer(share=0.9)
    with pytest.raises(ValueError, match="mode"):
        LaplaceExplorer(mode="fast")
    with pytest.raises(ValueError, match="labels"):
        LaplaceExplorer(truth=[1.0, 2.0, 3.0], labels=["a"])


def test_accuracy_target_beyond_the_slider_says_so():
    e = LaplaceExplorer(mode="accuracy", target=1e-6)
    assert e.result.epsilon > 10 and "outside the slider" in e.message_text


def test_sync_figure_sends_only_what_changed():
    """The in-place redraw copies changed properties (data, titles) and leaves unchanged styles alone."""
    import plotly.graph_objects as go

    from dpviz.plots.bands import _same, sync_figure

    fig = go.FigureWidget(go.Figure(data=[dict(type="scatter", x=[0, 1], y=[1.0, 2.0], line=dict(color="#000000"))],
                                    layout=dict(title=dict(text="a"))))
    sync_figure(fig, go.Figure(data=[dict(type="scatter", x=[0, 1], y=[1.0, 3.0], line=dict(color="#000000"))],
                               layout=dict(title=dict(text="b"))))
    assert list(fig.data[0].y) == [1.0, 3.0] and fig.layout.title.text == "b"
    sync_figure(fig, go.Figure(data=[dict(type="scatter", x=[0, 1], y=[1.0, 3.0], line=dict(color="#D55E00"))]))
    assert fig.data[0].line.color == "#D55E00"
    assert _same(np.array([1.0, 2.0]), (1.0, 2.0)) and not _same(np.array([1.0, 2.0]), [1.0, 2.5])
    assert _same({"a": [1, 2]}, {"a": (1, 2)}) and not _same({"a": 1}, {"a": 1, "b": 2})
    assert not _same(None, [1]) and not _same("x", ["x"]) and _same([{"a": 1}], ({"a": 1},))


def test_goals_are_checked_after_every_redraw_and_stay_reached():
    from dpviz.widgets import LaplaceExplorer

    e = LaplaceExplorer(epsilon=1.0, seed=0)
    e.add_goal("reach epsilon below 0.5", lambda r, v: f"epsilon {r.epsilon:.2f}" if r.epsilon < 0.5 else None)
    e.add_goal("a broken test never breaks the explorer", lambda r, v: 1 / 0)
    assert e.goals_reached == [False, False] and "Goal:" in e.goals.value
    e.controls["epsilon"].value = 0.3
    assert e.goals_reached == [True, False] and "Goal reached" in e.goals.value and "epsilon 0.30" in e.goals.value
    e.controls["epsilon"].value = 2.0
    assert e.goals_reached == [True, False] and e.message.value == ""


def test_base_10_log_sliders_are_marked_for_the_page_template():
    """The app's page template gives a handle with the class dpviz-log10 aria values in value units (10**position);
    every base-10 log slider of an explorer carries it, and no other control."""
    import ipywidgets as widgets

    from dpviz.widgets import AuditExplorer
    from dpviz.widgets.base import LOG10_CLASS

    for explorer in (LaplaceExplorer(seed=0), CompositionExplorer(seed=0), AuditExplorer(seed=0)):
        for name, w in explorer.controls.items():
            is_log10 = isinstance(w, widgets.FloatLogSlider) and w.base == 10
            assert (LOG10_CLASS in w._dom_classes) == is_log10, f"{type(explorer).__name__}.{name}"
    assert LOG10_CLASS in LaplaceExplorer(seed=0).controls["epsilon"]._dom_classes


def test_next_values_are_the_values_one_keyboard_step_away():
    """Integer slider at its bounds, a dropdown of (label, value) pairs and a base-10 log slider (steps of its
    exponent), each against values written out by hand."""
    import ipywidgets as widgets

    from dpviz.widgets.base import log_slider, next_values

    assert next_values(widgets.IntSlider(value=0, min=0, max=9)) == [1, 2]
    assert next_values(widgets.IntSlider(value=9, min=0, max=9, step=3), steps=1) == [6]
    drop = widgets.Dropdown(options=[("a", 10), ("b", 20), ("c", 30)], value=30)
    assert next_values(drop) == [20, 10]
    eps = next_values(log_slider(0.1, -3, 1, "epsilon"))
    np.testing.assert_allclose(eps, [10 ** -1.01, 10 ** -0.99, 10 ** -1.02, 10 ** -0.98], rtol=1e-12)
    assert next_values(log_slider(10.0, -3, 1, "epsilon"), steps=1) == pytest.approx([10 ** 0.99])
    assert next_values(widgets.Text(value="x")) == []
