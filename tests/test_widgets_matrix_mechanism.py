"""Headless tests of MatrixMechanismExplorer and the matrix-mechanism experiments/plots it calls."""

import math

import numpy as np
from conftest import Z

from dpviz import matrix_mechanism as mm
from dpviz import strategies as st
from dpviz import workloads as wl
from dpviz.experiments import matrix_mechanism as em
from dpviz.plots import matrix_mechanism as pm
from dpviz.widgets import MatrixMechanismExplorer


def test_explorer_defaults_and_figure_show_the_result():
    e = MatrixMechanismExplorer()
    r = e.result
    assert e.message.value == ""
    assert r.workload == "all ranges" and r.strategy == "hierarchical_2" and r.n == 16
    W = wl.all_ranges(16)
    np.testing.assert_allclose(r.experiment.predicted, mm.expected_error(W, st.hierarchical(16, 2), 1.0,
                                                                         per_query=True))
    # traces: band polygon, simulated, predicted, bars, bound, heat map
    x = r.experiment
    m = x.predicted.size
    band = np.asarray(e.figure.data[0].y)
    np.testing.assert_allclose(band[:m], x.simulated + 2 * x.stderr)
    np.testing.assert_allclose(band[m:][::-1], np.maximum(x.simulated - 2 * x.stderr, 0))
    np.testing.assert_allclose(np.asarray(e.figure.data[1].y), x.simulated)
    np.testing.assert_allclose(np.asarray(e.figure.data[2].y), x.predicted)
    np.testing.assert_allclose(np.asarray(e.figure.data[3].y), r.comparison.total_error)
    np.testing.assert_allclose(np.asarray(e.figure.data[4].y), r.comparison.lower_bound)
    np.testing.assert_allclose(np.asarray(e.figure.data[5].z), r.matrix)
    assert "H_2" in e.figure.layout.title.text and "epsilon = 1" in e.figure.layout.title.text
    assert "lower bound" in e.summary.value


def test_epsilon_rescales_exact_errors_and_simulation_agrees():
    e = MatrixMechanismExplorer(trials=2000)
    before = e.result.comparison.total_error.copy()
    e.controls["epsilon"].value = 0.25
    r = e.result
    np.testing.assert_allclose(r.comparison.total_error, before * 16, rtol=1e-12)
    x = r.experiment
    # total squared error: mean of `trials` iid totals; its standard error from the per-query s.e. is an
    # upper bound only if queries were independent, so use the exact variance of the quadratic form instead
    A = r.matrix
    Wm = wl.all_ranges(16).matrix().toarray()
    R = Wm @ np.linalg.pinv(A)
    B = R.T @ R
    s4 = (x.noise_variance / 2) ** 2
    var = s4 * (12 * np.sum(np.diag(B) ** 2) + 8 * np.sum(B * B))
    assert abs(x.total_simulated - x.total_predicted) <= Z * math.sqrt(var / x.trials)


def test_every_strategy_and_workload_draws_and_bound_is_below():
    e = MatrixMechanismExplorer(n=8)
    for w in wl.WORKLOADS:
        e.controls["workload"].value = w
        for s in st.for_mechanism("laplace"):
            e.controls["strategy"].value = s
            assert e.message.value == "", (w, s, e.message_text)
            c = e.result.comparison
            assert np.all(c.total_error >= c.lower_bound * (1 - 1e-9))
            assert e.result.matrix.shape[1] == 8


def test_explorer_caches_optimised_strategies_per_workload_and_n():
    e = MatrixMechanismExplorer(strategy="greedy_h")
    A = e._cache[("greedy_h", wl.all_ranges(16).key, "laplace")]
    e.controls["epsilon"].value = 0.5
    e.controls["seed"].value = 3
    assert e._cache[("greedy_h", wl.all_ranges(16).key, "laplace")] is A
    e.controls["n"].value = 32
    assert ("greedy_h", wl.all_ranges(32).key, "laplace") in e._cache


def test_bad_custom_histogram_shows_message_and_keeps_figure():
    e = MatrixMechanismExplorer(x=np.arange(16.0))
    good = e.result
    e.controls["n"].value = 32          # x has 16 cells: cannot be used at n = 32
    assert "x" in e.message_text and e.result is good
    assert e.controls["n"].value == 16 and "n back to 16" in e.message_text   # the control matches the figure
    e.controls["epsilon"].value = 0.5
    assert e.message.value == "" and e.result is not good


def test_seed_reproducible():
    a = MatrixMechanismExplorer(seed=5).result.experiment.simulated
    b = MatrixMechanismExplorer(seed=5).result.experiment.simulated
    c = MatrixMechanismExplorer(seed=6).result.experiment.simulated
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_experiments_and_static_plots():
    comp = em.compare_strategies(wl.prefix(32), 0.5, cache={})
    assert comp.ratio.min() >= 1 - 1e-9 and comp.best() in st.STRATEGIES
    g = em.compare_strategies(wl.prefix(32), 0.5, ("identity", "eigen_design"), delta=1e-6)
    assert g.delta == 1e-6 and np.all(g.total_error >= g.lower_bound)
    ebw = em.error_by_width(32, 0.1)
    assert ebw.mse.shape == (4, 32)
    np.testing.assert_allclose(ebw.mse[0], 2 * np.arange(1, 33) / 0.01)   # identity: 2 w / eps^2
    assert em.aggregate(np.arange(8.0), 3).sum() == 28
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2)
    run = MatrixMechanismExplorer(n=8).result
    pm.query_error_axes(run.experiment, axes[0, 0])
    pm.comparison_axes(comp, axes[0, 1], highlight="greedy_h")
    pm.strategy_heatmap_axes(st.rescaled_wavelet(8), axes[1, 0])
    pm.error_by_width_axes(ebw, axes[1, 1])
    assert len(axes[0, 1].patches) == len(comp.names)
    plt.close(fig)
