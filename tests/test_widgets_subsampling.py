"""SubsamplingExplorer: the figure follows the controls and shows the core's numbers."""

import math

import numpy as np
import pytest

from dpviz import composition as C
from dpviz.experiments.subsampling import subsampling_tails
from dpviz.widgets import SubsamplingExplorer


def test_moving_the_rate_redraws_with_the_cores_numbers():
    e = SubsamplingExplorer(samples=20_000, seed=3)
    e.controls["rate"].value = 0.02
    r = e.result
    assert r.rate == pytest.approx(0.02, rel=1e-9)
    fresh = subsampling_tails(e.controls["epsilon"].value, e.controls["rate"].value, samples=20_000, rng=3)
    assert np.array_equal(r.simulated, fresh.simulated, equal_nan=True)
    # the bound line in the figure is ln(1 + p(e^eps - 1)) written out here, not the code's function
    bound = [t for t in e.figure.data if t.name.startswith("amplified")][0]
    assert bound.y[0] == pytest.approx(math.log(1 + 0.02 * (math.exp(e.controls["epsilon"].value) - 1)), rel=1e-6)
    assert f"{C.amplified_epsilon(r.epsilon, r.rate):.3g}" in e.figure.layout.title.text


def test_bad_starting_values_are_refused_by_name():
    with pytest.raises(ValueError, match="rate"):
        SubsamplingExplorer(rate=2.0)
    with pytest.raises(ValueError, match="unknown control"):
        SubsamplingExplorer(p=0.5)


def test_exceedance_fractions_equal_the_comparison_table_with_ties():
    """The simulated tails count samples strictly above each threshold: equal to the (samples, thresholds)
    comparison table, samples equal to a threshold included."""
    from dpviz.experiments.subsampling import _exceedances

    gen = np.random.default_rng(7)
    for _ in range(50):
        y = np.round(gen.laplace(size=int(gen.integers(1, 500))), int(gen.integers(0, 2)))
        t = np.concatenate([np.round(gen.normal(size=int(gen.integers(1, 20))), 1), y[:2]])
        np.testing.assert_array_equal(_exceedances(y, t), (y[:, None] > t).mean(axis=0))
