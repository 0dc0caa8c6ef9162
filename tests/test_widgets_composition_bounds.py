"""CompositionBoundsExplorer headless, the lecture 02 explorer goals, and the composition figures' legends.

The explorer is driven by setting control values; its result and figure must carry numbers recomputed here from
the core (or written out from the formulas), and its goals must be reached exactly where the lecture says.
"""

from __future__ import annotations

import html
import math

import numpy as np
import pytest

from dpviz import composition as C
from dpviz.exercises import lecture02 as ex
from dpviz.mechanisms import gaussian_epsilon
from dpviz.widgets import CompositionBoundsExplorer, CompositionExplorer, SubsamplingExplorer


def _trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def test_default_is_laplace_and_the_figure_shows_the_formulas():
    e = CompositionBoundsExplorer()
    r = e.result
    assert (r.mechanism, r.k, r.scale, r.delta_prime) == ("laplace", 100, 10.0, pytest.approx(1e-6))
    # advanced composition written out: sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1), eps = 1/b = 0.1
    adv = math.sqrt(2 * 100 * math.log(1e6)) * 0.1 + 100 * 0.1 * math.expm1(0.1)
    assert r.at_k["advanced"] == pytest.approx(adv) and r.at_k["basic"] == pytest.approx(10.0)
    fig_adv = _trace(e.figure, "advanced")
    np.testing.assert_allclose(np.asarray(fig_adv.y), [C.advanced_composition(0.1, int(k), 1e-6)[0] for k in r.ks])
    marks = _trace(e.figure, "at k = 100")
    assert list(marks.x) == [100] * 5 and sorted(marks.y) == sorted(r.at_k.values())
    assert "advanced composition charges less than basic from k = 35" in e.totals.value


def test_moving_k_and_delta_prime_redraws_in_place():
    e = CompositionBoundsExplorer()
    fig, traces = e.figure, list(e.figure.data)
    e.controls["k"].value = 1000
    assert e.figure is fig and all(a is b for a, b in zip(traces, e.figure.data, strict=True))
    assert e.result.k == 1000 and _trace(e.figure, "at k = 1000").x[0] == 1000
    before = np.asarray(_trace(e.figure, "advanced").y).copy()
    e.controls["delta_prime"].value = 1e-10
    after = np.asarray(_trace(e.figure, "advanced").y)
    assert np.all(after > before)                       # a smaller delta' costs more epsilon
    assert e.result.at_k["advanced"] == pytest.approx(C.advanced_composition(0.1, 1000, 1e-10)[0])
    assert e.message.value == ""


def test_gaussian_exact_curve_is_sigma_over_sqrt_k():
    e = CompositionBoundsExplorer(mechanism="gaussian", scale=30.0, k=50)
    r = e.result
    name = "exact (Gaussian with sigma / sqrt(k))"
    np.testing.assert_allclose(np.asarray(_trace(e.figure, name).y),
                               [gaussian_epsilon(30.0 / math.sqrt(k), 1.0, 1e-6) for k in r.ks], rtol=1e-9)
    rho = 50 / (2 * 30.0**2)
    assert r.at_k["zCDP (Bun & Steinke)"] == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1e6)))
    # every bound is above the exact value at every k
    for method, ys in r.curves.items():
        assert np.all(ys >= r.curves[name] * (1 - 1e-9)), method


def test_goals_are_reached_exactly_at_the_lectures_answers():
    e = CompositionBoundsExplorer()
    e.add_goal(*ex.crossover_goal(10.0, 1e-6))
    e.add_goal(*ex.gaussian_budget_goal(30.0, 1e-6, 1.0))
    e.controls["k"].value = 34
    assert e.goals_reached == [False, False]
    e.controls["k"].value = 35
    assert e.goals_reached == [True, False] and "k = 35" in e.goals.value
    assert C.advanced_crossover(0.1, 1e-6) == 35
    e.controls["mechanism"].value = "gaussian"
    e.controls["scale"].value = 30.0
    e.controls["k"].value = 51
    assert e.goals_reached == [True, False]
    e.controls["k"].value = 50
    assert e.goals_reached == [True, True]
    assert gaussian_epsilon(30 / math.sqrt(50), 1.0, 1e-6) <= 1.0 < gaussian_epsilon(30 / math.sqrt(51), 1.0, 1e-6)


def test_refusal_and_amplification_goals():
    comp = CompositionExplorer()
    comp.add_goal(*ex.refusal_goal())
    comp.controls["share"].value = 0.25
    assert comp.goals_reached == [False]
    comp.controls["share"].value = 0.3
    assert comp.goals_reached == [True] and "1.2 times the budget > 1" in html.unescape(comp.goals.value)
    sub = SubsamplingExplorer(samples=10_000)
    sub.add_goal(*ex.amplification_goal(0.05))
    sub.controls["rate"].value = 0.05
    assert sub.goals_reached == [False]            # ln(1 + 0.05 (e - 1)) = 0.082 > 0.05
    sub.controls["rate"].value = 0.02
    assert sub.goals_reached == [True] and math.log1p(0.02 * math.expm1(1.0)) <= 0.05


def test_bad_starting_values_are_refused_by_name():
    with pytest.raises(ValueError, match="k"):
        CompositionBoundsExplorer(k=0.5)
    with pytest.raises(ValueError, match="delta_prime"):
        CompositionBoundsExplorer(delta_prime=0.5)
    with pytest.raises(ValueError, match="mechanism"):
        CompositionBoundsExplorer(mechanism="poisson")
    with pytest.raises(ValueError, match="unknown control"):
        CompositionBoundsExplorer(eps=1.0)


def _overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_the_bar_chart_legend_covers_no_bar():
    """Issue 19: the legend of the BMI bar chart (log axis) covered the fourth bar."""
    import matplotlib

    matplotlib.use("Agg")
    from dpviz.experiments.composition import composition_experiment
    from dpviz.plots.composition import composition_axes, composition_figure

    exp = composition_experiment(1.0, 4000, rng=1)
    ax = composition_axes(exp)
    ax.figure.canvas.draw()
    from matplotlib.transforms import Bbox

    legend, frame = ax.get_legend().get_window_extent(), ax.get_window_extent()
    # the visible part of each bar (on a log axis a bar is drawn from far below the frame)
    bars = [Bbox.intersection(p.get_window_extent(), frame) for p in ax.patches]
    assert len(bars) == 8 and all(b is not None for b in bars)
    assert not any(_overlaps(legend, b) for b in bars)
    assert not _overlaps(legend, frame)       # outside the plotting area altogether
    fig = composition_figure(exp)
    assert fig.layout.legend.x >= 1 and fig.layout.legend.xanchor == "left"   # plotly: right of the plot area



def test_static_figure_draws_every_method_with_its_own_line_style():
    """The lecture's static figure: one line per method with its data, each with its own dash pattern (the long
    dash of the optimal bound once reached matplotlib as a format string and failed)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpviz.experiments.composition_bounds import composition_bounds
    from dpviz.plots.composition_bounds import composition_bounds_axes

    r = composition_bounds("laplace", 10.0, 100, 1e-6)
    ax = composition_bounds_axes(r)
    lines = {ln.get_label(): ln for ln in ax.get_lines() if ln.get_label() in r.curves}
    assert set(lines) == set(r.curves)
    for name, ln in lines.items():
        np.testing.assert_array_equal(ln.get_ydata(), r.curves[name])
    patterns = {(ln.get_linestyle(), repr(ln._unscaled_dash_pattern)) for ln in lines.values()}
    assert len(patterns) == len(lines)
    plt.close(ax.figure)
