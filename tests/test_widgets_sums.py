"""Headless tests of SumQueryExplorer: set controls, assert on .result and .figure."""

import numpy as np
import pytest

from dpviz import sums
from dpviz.widgets import SumQueryExplorer


@pytest.fixture(scope="module")
def explorer():
    return SumQueryExplorer()


def _trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def test_defaults_and_figure_show_the_result(explorer):
    e = explorer
    r = e.result.release
    assert (r.algorithm, r.truncation, r.isotonic, r.epsilon, r.ratio, r.rho) == ("tamm", "svt", True, 1.0, 0.999, 0.1)
    assert r.answers.shape == (30, 100) and e.message.value == ""
    s = e.result.summary
    np.testing.assert_allclose(_trace(e.figure, "true prefix sums").y, s.truth / 1e6)
    np.testing.assert_allclose(_trace(e.figure, "mean noisy answer").y, s.mean / 1e6)
    np.testing.assert_allclose(_trace(e.figure, "bias (simulated: mean - truth)").y, s.bias / 1e6)
    bars = _trace(e.figure, "thresholds tau drawn (count of trials)")
    assert int(np.sum(bars.y)) == 30
    assert "TaMM" in e.figure.layout.title.text and "p = 0.999" in e.figure.layout.title.text
    assert "median τ" in e.summary.value


def test_lower_ratio_more_bias_less_variance(explorer):
    e = explorer
    e.controls["algorithm"].value = "identity"
    e.controls["threshold"].value = "svt"
    e.controls["ratio"].value = 0.999
    high = e.result
    e.controls["ratio"].value = 0.9
    low = e.result
    assert np.median(low.taus) < np.median(high.taus)
    # exact truncation bias is more negative, simulated spread smaller, on the largest queries
    assert low.bias_closed_form[-1] < high.bias_closed_form[-1] < 0
    assert np.mean(low.summary.variance[-20:]) < np.mean(high.summary.variance[-20:])
    e.controls["ratio"].value = 0.999


def test_no_truncation_and_oracle(explorer):
    e = explorer
    e.controls["algorithm"].value = "workload"
    e.controls["threshold"].value = "none"
    r = e.result
    assert np.all(np.isinf(r.release.tau)) and np.all(r.bias_closed_form == 0)
    assert r.release.epsilon_answers == pytest.approx(r.release.epsilon)
    e.controls["threshold"].value = "oracle"
    assert sums.NOT_DP in e.figure.layout.title.text and sums.NOT_DP in e.summary.value
    assert not e.result.release.private
    e.controls["threshold"].value = "svt"
    assert sums.NOT_DP not in e.figure.layout.title.text


def test_every_configuration_runs_and_isotonic_is_monotone(explorer):
    e = explorer
    for alg in sums.ALGORITHMS:
        for th in ("svt", "recursive"):
            e.controls["algorithm"].value = alg
            e.controls["threshold"].value = th
            assert e.message.value == "", e.message_text
            assert e.result.release.algorithm == alg and e.result.release.truncation == th
            assert np.all(np.diff(e.result.release.answers, axis=1) >= -1e-6)
    e.controls["isotonic"].value = False
    assert not e.result.release.isotonic
    e.controls["isotonic"].value = True
    e.controls["algorithm"].value = "tamm"


def test_rho_and_epsilon_change_the_budget_split_and_seed_reproduces(explorer):
    e = explorer
    e.controls["rho"].value = 0.3
    assert e.result.release.epsilon_threshold == pytest.approx(0.3)
    e.controls["epsilon"].value = 2.0
    assert e.result.release.epsilon_answers == pytest.approx(1.4)
    first = e.result.release.answers.copy()
    e.buttons["resample"].click()
    assert not np.array_equal(first, e.result.release.answers)
    e.controls["seed"].value = 0
    np.testing.assert_array_equal(first, e.result.release.answers)
    e.controls["rho"].value = 0.1
    e.controls["epsilon"].value = 1.0


def test_unknown_control_is_refused():
    with pytest.raises(ValueError, match="unknown control"):
        SumQueryExplorer(p=0.5)


def test_a_problem_that_is_not_a_sum_problem_is_refused_by_name():
    with pytest.raises(TypeError, match="problem"):
        SumQueryExplorer(problem="CPS")


def test_config_label_checks_its_flag_and_names():
    from dpviz.plots import sums as ps

    assert ps.config_label("sqm", "oracle", False).startswith("SQM, ") and "no isotonic" in ps.config_label(
        "sqm", "oracle", False)
    with pytest.raises(TypeError, match="isotonic"):
        ps.config_label("tamm", "svt", "no")
    with pytest.raises(ValueError, match="truncation"):
        ps.config_label("tamm", "quantile")
