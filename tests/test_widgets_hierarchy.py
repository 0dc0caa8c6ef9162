"""Tests for the hierarchy experiments' figures and the HierarchyExplorer widget."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import plotly.graph_objects as go  # noqa: E402
import pytest  # noqa: E402

from dpviz import hierarchy as H  # noqa: E402
from dpviz.experiments import hierarchy as E  # noqa: E402
from dpviz.plots import hierarchy as P  # noqa: E402
from dpviz.widgets.hierarchy import HierarchyExplorer  # noqa: E402
from tests.figure_state import assert_shows  # noqa: E402


@pytest.fixture(scope="module")
def explorer():
    return HierarchyExplorer()


def test_defaults(explorer):
    v = explorer.values
    assert v["n"] == 1024 and v["branching"] == 16 and v["allocation"] == "uniform"
    assert explorer.controls["branching"].min == 2 and explorer.controls["branching"].max == 64
    r = explorer.result
    assert isinstance(r, E.HierarchyRun)
    assert r.truth.size == 1024 and r.curves.branching == 16
    assert set(r.curves.methods) == {"flat", "tree", "tree_ci"}
    assert isinstance(explorer.figure, go.FigureWidget) and len(explorer.figure.data) == 12   # 11 + the line labels
    assert "b = 16" in explorer.figure.layout.title.text
    assert explorer.message_text == ""


def test_result_is_consistent_with_theory(explorer):
    r = explorer.result
    c = r.curves
    # the dataset is INCOME coarsened to 1024 bins; counts preserved
    assert r.truth.sum() == pytest.approx(float(E.dataset_histogram("INCOME", 4096).sum()))
    for m in c.methods:
        exact = H.range_mse_by_width(1024, None if m == "flat" else 16, c.epsilon, c.widths,
                                     constrained=(m == "tree_ci"))
        assert np.allclose(c.analytic[m], exact)
        z = (c.simulated[m] - c.analytic[m]) / c.stderr[m]
        assert np.all(np.abs(z) < 5.5), (m, z)
    # the cover of the selected range tiles it exactly, and CI nodes are consistent with the CI leaves
    cov = r.cover
    assert cov.node_start[0] == cov.start and cov.node_stop[-1] == cov.stop
    assert np.array_equal(cov.node_start[1:], cov.node_stop[:-1])
    assert cov.consistent.sum() == pytest.approx(r.ci_leaves[cov.start:cov.stop].sum())
    assert cov.truth.sum() == pytest.approx(r.answers["truth"])
    assert cov.noisy.sum() == pytest.approx(r.answers["tree"])


def test_controls_redraw(explorer):
    explorer.controls["epsilon"].value = 0.1
    assert explorer.result.curves.epsilon == pytest.approx(0.1)
    assert "epsilon = 0.1" in explorer.figure.layout.title.text
    explorer.controls["branching"].value = 2
    assert explorer.result.curves.branching == 2
    explorer.controls["constrained"].value = False
    assert explorer.result.constrained is False
    assert "noisy leaves" in explorer.figure.data[0].name
    explorer.controls["n"].value = 1008  # not a power of 2: uneven tree
    assert explorer.result.truth.size == 1008 and explorer.message_text == ""
    explorer.controls["dataset"].value = "synthetic"
    explorer.controls["allocation"].value = "optimal"
    explorer.controls["measure_root"].value = False
    assert explorer.result.level_epsilons[-1] == 0.0
    assert explorer.result.level_epsilons.sum() == pytest.approx(0.1)
    explorer.controls["range"].value = (0.5, 0.5)
    assert explorer.result.cover.stop - explorer.result.cover.start == 1
    assert explorer.message_text == ""


def test_query_bins():
    assert HierarchyExplorer.query_bins(10, (0.0, 1 / 3)) == (0, 4)
    assert HierarchyExplorer.query_bins(10, (1.0, 1.0)) == (9, 10)


def test_static_axes_and_figures():
    x = E.synthetic_histogram(64)
    run = E.hierarchy_explorer_run(x, 4, 1.0, trials=20, rng=0)
    fig, axes = plt.subplots(2, 2)
    P.release_axes(run, axes[0, 0])
    P.cover_axes(run, axes[0, 1])
    P.width_curves_axes(run.curves, axes[1, 0])
    study = E.branching_study(x, 1.0, [2, 4, 8], trials=5, ranges_per_trial=50, rng=0)
    P.branching_axes(study, axes[1, 1])
    # per method: a band (filled, its two edges dashed), the exact curve and the simulated mean
    ax = axes[1, 0]
    assert len(ax.collections) == 3 and len(ax.get_lines()) == 3 * 4
    assert sorted(h.get_label() for h in ax.get_lines() if not h.get_label().startswith("_")) == \
        ["Flat (identity)", "H_4", "H_4 + constrained inference"]
    plt.close(fig)
    f = P.width_curves_figure(run.curves)
    assert len(f.data) == 9 and f.layout.xaxis.type == "log"
    f = P.explorer_figure(run)
    assert f.layout.template.layout.plot_bgcolor == "white" and f.layout.yaxis3.type == "log"
    ax = P.allocation_axes(E.allocation_study(32, 1.0, [2, 4]), [2, 4], 32, 1.0)
    ax2 = P.dimension_axes(E.dimension_study([16, 64], [1, 2], 1.0, [2, 4]))
    below, above = H.algorithm1_variances(4, 2)
    ax3 = P.level_variance_axes(below, above, 2)
    for a in (ax, ax2, ax3):
        plt.close(a.figure)


def test_explorer_rejects_unknown_control():
    with pytest.raises(ValueError, match="unknown control"):
        HierarchyExplorer(colour="red")


def test_explorer_initial_values():
    e = HierarchyExplorer(branching=4, epsilon=0.5, n=256, trials=40)
    assert e.result.curves.branching == 4 and e.result.truth.size == 256
    assert math.isclose(e.result.curves.epsilon, 0.5)


def test_budget_split_control_reaches_the_result():
    # Issue 13: an explorer that ignored its "budget split" (allocation) control passed every test.
    ex = HierarchyExplorer(n=16, branching=2, trials=20, dataset="synthetic", epsilon=1.0, seed=3)
    uniform = ex.result
    assert uniform.level_epsilons.tolist() == pytest.approx([0.2] * 5)   # 5 measured levels, eps/5 each
    ex.controls["allocation"].value = "geometric"
    r = ex.result
    assert ex.message_text == ""
    # By hand from the documented rule [CPSSY12]: each level gets 2**(1/3) times the level above, so
    # eps_l = 2**(-l/3) / sum_{j<5} 2**(-j/3) for l = 0..4.
    total = sum(2.0 ** (-j / 3) for j in range(5))
    assert r.level_epsilons.tolist() == pytest.approx([2.0 ** (-l / 3) / total for l in range(5)], rel=1e-12)
    assert r.level_epsilons[0] / r.level_epsilons[1] == pytest.approx(2 ** (1 / 3), rel=1e-12)
    # The exact curves are those of the core for that allocation, computed here without the widget.
    widths = r.curves.widths
    for method, constrained in (("tree", False), ("tree_ci", True)):
        exact = H.range_mse_by_width(16, 2, 1.0, widths, constrained=constrained, allocation="geometric")
        assert r.curves.analytic[method] == pytest.approx(exact, rel=1e-12)
        assert not np.allclose(r.curves.analytic[method], uniform.curves.analytic[method])
    # And the whole run is what the experiments function returns for the same arguments.
    x = E.dataset_histogram("synthetic", 16)
    direct = E.hierarchy_explorer_run(x, 2, 1.0, allocation="geometric", trials=20,
                                      query=HierarchyExplorer.query_bins(16, ex.values["range"]),
                                      ranges_per_trial=32, rng=3)
    assert r.answers == direct.answers
    np.testing.assert_array_equal(r.curves.simulated["tree"], direct.curves.simulated["tree"])



def test_patched_figure_equals_a_fresh_figure_after_any_moves(monkeypatch):
    """Every move is sent as one patch of what changed (trace names included: "H_16" becomes "H_15"); after any
    sequence of moves the figure in the notebook equals one drawn from scratch for the same result."""
    import dpviz.widgets.base as base

    e = HierarchyExplorer(n=256, trials=20, seed=1)
    patched: list[bool] = []
    original = base.patch_figure

    def spy(*args, **kwargs):
        patched.append(original(*args, **kwargs))
        return patched[-1]
    moves = [("branching", 15), ("constrained", False), ("epsilon", 0.1), ("measure_root", False),
             ("range", (0.2, 0.9)), ("allocation", "geometric"), ("branching", 2), ("dataset", "NETTRACE"),
             ("n", 512), ("constrained", True), ("branching", 64), ("seed", 2)]
    monkeypatch.setattr(base, "patch_figure", spy)
    for name, value in moves:
        e.controls[name].value = value
        assert e.message_text == ""
        assert_shows(e.figure, *P.explorer_figure_spec(e.result), (name, value))
    # every move was patched but the change of dataset (NETTRACE's counts axis turns logarithmic: new keys)
    assert patched == [name != "dataset" for name, _ in moves], patched


def test_the_next_branching_steps_are_prepared_while_the_student_reads_the_figure():
    """After a move of b, the next two values the same way are computed in the background; moving there finds
    them cached and shows the same numbers as the uncached experiment called directly."""
    import time

    from dpviz.experiments.hierarchy import dataset_histogram, hierarchy_explorer_run
    from dpviz.experiments.hierarchy.prepared import _cached_run, _setting
    from dpviz.experiments.prefetch import canonical

    e = HierarchyExplorer(n=256, trials=20, seed=5, dataset="ADULT")
    e.controls["branching"].value = 9                    # moving down: 8 and 7 are prepared next
    s = e._setting()
    keys = {b: _setting(*(s[k] for k in ("dataset", "n")), b, s["epsilon"],
                        **{k: s[k] for k in s if k not in ("dataset", "n", "branching", "epsilon")}) for b in (8, 7)}
    t0 = time.monotonic()
    while not all(_cached_run.cached(k) for k in keys.values()) and time.monotonic() - t0 < 60:
        time.sleep(0.02)
    assert all(_cached_run.cached(k) for k in keys.values())
    e.controls["branching"].value = 8
    direct = hierarchy_explorer_run(dataset_histogram("ADULT", 256), 8, canonical(e.values["epsilon"]), trials=20,
                                    query=e.query_bins(256, e.values["range"]), ranges_per_trial=32, rng=5)
    np.testing.assert_array_equal(e.result.noisy_leaves, direct.noisy_leaves)
    np.testing.assert_array_equal(e.result.ci_leaves, direct.ci_leaves)
    for m in direct.curves.methods:
        np.testing.assert_array_equal(e.result.curves.simulated[m], direct.curves.simulated[m])


def test_prefetch_hierarchy_runs_refuses_bad_settings_before_queueing():
    from dpviz.experiments.hierarchy import prefetch_hierarchy_runs

    with pytest.raises(TypeError, match="dict"):
        prefetch_hierarchy_runs([("ADULT", 64, 4, 1.0)])
    with pytest.raises(ValueError, match="unknown setting argument"):
        prefetch_hierarchy_runs([dict(dataset="ADULT", n=64, branching=4, epsilon=1.0, rng=3)])
    with pytest.raises(ValueError, match="missing epsilon"):
        prefetch_hierarchy_runs([dict(dataset="ADULT", n=64, branching=4)])
    with pytest.raises(ValueError, match="epsilon"):
        prefetch_hierarchy_runs([dict(dataset="ADULT", n=64, branching=4, epsilon=-1.0)])
    with pytest.raises(ValueError, match="allocation"):
        prefetch_hierarchy_runs([dict(dataset="ADULT", n=64, branching=4, epsilon=1.0, allocation="even")])
    with pytest.raises(ValueError, match="dataset='NOPE'"):
        prefetch_hierarchy_runs([dict(dataset="NOPE", n=64, branching=4, epsilon=1.0)])
    with pytest.raises(ValueError, match="query stop"):
        prefetch_hierarchy_runs([dict(dataset="ADULT", n=64, branching=4, epsilon=1.0, query=(0, 1000))])
    with pytest.raises(ValueError, match="query stop"):
        prefetch_hierarchy_runs([dict(dataset="ADULT", n=64, branching=4, epsilon=1.0, query=(5, 5))])
    with pytest.raises(TypeError, match="sequence of dicts"):
        prefetch_hierarchy_runs(dict(dataset="ADULT", n=64, branching=4, epsilon=1.0))


def test_bad_settings_compute_and_cache_nothing():
    """A call with a bad setting raises before the cache sees it: no miss is counted, nothing is stored."""
    from dpviz.experiments.hierarchy import hierarchy_dataset_run
    from dpviz.experiments.hierarchy.prepared import _cached_run

    before = _cached_run.cache_info()
    for bad in (dict(dataset="NOPE"), dict(n=10**9), dict(query=(0, 65)), dict(trials=True), dict(seed=-1)):
        args = dict(dataset="ADULT", n=64, branching=4, epsilon=1.0) | bad
        with pytest.raises((TypeError, ValueError)):
            hierarchy_dataset_run(args.pop("dataset"), args.pop("n"), args.pop("branching"), args.pop("epsilon"),
                                  **args)
    assert _cached_run.cache_info() == before


def test_a_cached_run_is_read_only():
    from dpviz.experiments.hierarchy import hierarchy_dataset_run

    run = hierarchy_dataset_run("ADULT", 64, 4, 1.0, trials=4, seed=11)
    for array in (run.truth, run.noisy_leaves, run.ci_leaves, run.cover.noisy, run.curves.simulated["tree"]):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0


def test_figure_specs_refuse_what_is_not_their_result():
    from dpviz.experiments.definition import privacy_loss_view
    from dpviz.plots.definition import privacy_loss_figure_spec

    with pytest.raises(TypeError, match="run must be a HierarchyRun"):
        P.explorer_figure_spec(privacy_loss_view("Laplace", 1.0, samples=10_000, rng=0))
    with pytest.raises(TypeError, match="v must be a PrivacyLossView"):
        privacy_loss_figure_spec(E.hierarchy_explorer_run([3, 1, 4, 1], 2, 1.0, trials=2, rng=0))
