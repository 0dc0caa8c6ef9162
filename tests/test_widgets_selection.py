"""SelectionExplorer, headless: the figure follows the controls and shows the core's numbers; the goals fire."""

import numpy as np
import pytest
from scipy import optimize

from dpviz import selection as S
from dpviz.exercises import lecture09 as ex
from dpviz.experiments.selection import selection_run, selection_scores
from dpviz.widgets import SelectionExplorer


def test_moving_epsilon_redraws_with_the_cores_exact_probabilities():
    e = SelectionExplorer(trials=2000, seed=3)
    e.controls["epsilon"].value = 0.05
    r = e.result
    u, labels = selection_scores("adult")
    # the bars are the softmax exp(eps u / 2) / sum, written out here, not the code's function
    w = np.exp(0.05 * (u - u.max()) / 2)
    np.testing.assert_allclose(e.figure.data[0].y, w / w.sum(), rtol=1e-12)
    fresh = selection_run(u, e.controls["epsilon"].value, "exponential", trials=2000, labels=labels, rng=3)
    np.testing.assert_array_equal(r.frequencies, fresh.frequencies)
    assert list(e.figure.layout.xaxis.ticktext) == labels
    assert f"{r.best_probability['exponential']:.3f}" in e.figure.layout.title.text


@pytest.mark.parametrize("mechanism", list(S.MECHANISMS))
def test_every_mechanism_draws_its_exact_probabilities_and_agrees_with_simulation(mechanism):
    e = SelectionExplorer(mechanism=mechanism, scores="close race", epsilon=0.5, trials=20_000, seed=1)
    r = e.result
    u, _ = selection_scores("close race")
    np.testing.assert_allclose(r.probabilities, S.selection_probabilities(u, 0.5, mechanism), rtol=1e-12)
    assert np.all(np.abs(r.frequencies - r.probabilities) <= 5 * np.maximum(r.stderr, 1 / r.trials))
    assert abs(r.mean_score - r.expected[mechanism]) <= 5 * r.mean_score_stderr


def test_monotone_calibration_halves_the_scale_and_sharpens_the_choice():
    e = SelectionExplorer(epsilon=0.2, trials=1000)
    general = e.result
    e.controls["monotone"].value = True
    assert e.result.scale == pytest.approx(general.scale / 2)
    assert e.result.best_probability["exponential"] > general.best_probability["exponential"]


def test_the_probability_goal_is_reached_at_the_epsilon_that_solves_it():
    e = SelectionExplorer(trials=1000)
    e.add_goal(*ex.best_probability_goal(0.9))
    assert e.goals_reached == [False]
    u, _ = selection_scores("adult")
    eps = optimize.brentq(lambda x: S.exponential_probabilities(u, x)[0] - 0.9, 1e-3, 10)
    e.controls["epsilon"].value = eps
    assert e.goals_reached == [True] and "Goal reached" in e.goals.value


def test_the_advantage_goal_needs_the_clear_winner_and_the_right_epsilon():
    e = SelectionExplorer(trials=1000, epsilon=10.0)
    e.add_goal(*ex.advantage_goal())
    e.controls["scores"].value = "clear winner"
    assert e.goals_reached == [False]            # at epsilon = 10 both mechanisms pick the winner
    _, best = ex.largest_advantage("clear winner")
    e.controls["epsilon"].value = 3 * best
    assert e.goals_reached == [False]
    e.controls["epsilon"].value = best
    assert e.goals_reached == [True]


def test_bad_starting_values_are_refused_by_name():
    with pytest.raises(ValueError, match="epsilon"):
        SelectionExplorer(epsilon=100.0)
    with pytest.raises(ValueError, match="mechanism"):
        SelectionExplorer(mechanism="em")
    with pytest.raises(TypeError, match="monotone"):
        SelectionExplorer(monotone="yes")
