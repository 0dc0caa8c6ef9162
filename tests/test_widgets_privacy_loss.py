"""PrivacyLossExplorer: the figure follows the controls, shows the core's numbers, and notices the lecture's goals."""

import math

import numpy as np
import pytest

from dpviz import definition as Df
from dpviz.exercises import lecture00 as ex
from dpviz.experiments.definition import privacy_loss_view
from dpviz.widgets import PrivacyLossExplorer


def _trace(e, start):
    return [t for t in e.figure.data if (t.name or "").startswith(start)][0]


def test_moving_epsilon_redraws_with_the_cores_numbers():
    e = PrivacyLossExplorer(samples=20_000, seed=4)
    e.controls["epsilon"].value = 0.5
    r = e.result
    fresh = privacy_loss_view("Laplace", e.controls["epsilon"].value, group=1, samples=20_000, rng=4)
    np.testing.assert_array_equal(r.simulated_bin, fresh.simulated_bin)
    # the bound line is group * epsilon, written out here
    bound = _trace(e, "ε-DP bound")
    assert bound.y[0] == pytest.approx(e.controls["epsilon"].value, rel=1e-9)
    loss = _trace(e, "privacy loss ln")
    assert max(loss.y) == pytest.approx(e.controls["epsilon"].value)
    assert f"{Df.laplace_total_variation(1.0, 1.0, r.epsilon):.3f}" in e.figure.layout.title.text


def test_switching_mechanism_and_group():
    e = PrivacyLossExplorer(samples=20_000)
    e.controls["group"].value = 3
    e.controls["mechanism"].value = "randomized response"
    assert list(_trace(e, "privacy loss ln").x) == [0, 1, 2, 3]
    np.testing.assert_allclose(_trace(e, "privacy loss ln").y, (2 * np.arange(4) - 3) * e.controls["epsilon"].value)
    assert _trace(e, "one person's bound").visible is True
    e.controls["mechanism"].value = "Gaussian"
    assert e.result.tail_probability > 0 and "unbounded" in e.figure.layout.title.text
    assert "probability p" not in e.scale_note.value and "σ" in e.scale_note.value
    e.controls["group"].value = 1
    assert _trace(e, "one person's bound").visible is False


def test_goals_are_reached_by_moving_the_controls():
    e = PrivacyLossExplorer(samples=10_000)
    e.add_goal(*ex.warner_goal())
    e.add_goal(*ex.indistinguishable_goal(0.1))
    e.add_goal(*ex.group_goal(5, 1.0))
    assert e.goals_reached == [False, False, False]
    e.controls["epsilon"].value = math.log(3)        # Laplace: the Warner goal needs randomized response
    assert e.goals_reached == [False, False, False]
    e.controls["mechanism"].value = "randomized response"
    assert e.goals_reached[0]
    e.controls["mechanism"].value = "Laplace"
    e.controls["epsilon"].value = 2 * math.log(1 / 0.9) * 0.99     # total variation just under 0.1
    assert e.goals_reached[1]
    e.controls["group"].value = 5
    e.controls["epsilon"].value = 0.2
    assert e.goals_reached == [True, True, True]
    assert "epsilon = 0.2" in e.goals.value


def test_bad_starting_values_are_refused_by_name():
    with pytest.raises(ValueError, match="mechanism"):
        PrivacyLossExplorer(mechanism="Cauchy")
    with pytest.raises(ValueError, match="group"):
        PrivacyLossExplorer(group=50)
    with pytest.raises(ValueError, match="unknown control"):
        PrivacyLossExplorer(eps=1.0)


def test_patched_figure_equals_a_fresh_figure_after_any_moves(monkeypatch):
    """A move is sent as one patch of what changed (or the figure is rebuilt when its structure changes, as
    between a discrete and a continuous mechanism); after any sequence of moves the figure in the notebook equals
    one drawn from scratch for the same result."""
    import dpviz.widgets.base as base
    from dpviz.plots.definition import privacy_loss_figure_spec
    from tests.figure_state import assert_shows

    patched: list[bool] = []
    original = base.patch_figure

    def spy(*args, **kwargs):
        patched.append(original(*args, **kwargs))
        return patched[-1]

    monkeypatch.setattr(base, "patch_figure", spy)
    e = PrivacyLossExplorer(samples=20_000, seed=1)
    patched.clear()
    moves = [("epsilon", 0.5), ("group", 3), ("mechanism", "Gaussian"), ("delta", 1e-3), ("epsilon", 2.0),
             ("mechanism", "randomized response"), ("group", 1), ("epsilon", 0.1), ("mechanism", "Laplace"),
             ("samples", 30_000), ("seed", 2)]
    for name, value in moves:
        e.controls[name].value = value
        assert e.message_text == "", (name, value)
        assert_shows(e.figure, *privacy_loss_figure_spec(e.result), (name, value))
    # patched but between a discrete and a continuous mechanism (the x axis gains or loses its unit ticks)
    rebuilt = {5, 8}   # to randomized response, and back to Laplace
    assert patched == [k not in rebuilt for k in range(len(moves))], patched
