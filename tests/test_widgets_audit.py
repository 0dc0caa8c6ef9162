"""Headless tests of the AuditExplorer, the audit figures and the lecture's experiments."""

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from dpviz.audit import AuditResult, privacy_loss_interval  # noqa: E402
from dpviz.experiments.audit import (  # noqa: E402
    audit_curve,
    audit_explorer_run,
    audit_table,
    audit_target,
    prepare_audit_curve,
    sampler_fit,
)
from dpviz.plots.audit import audit_axes, audit_figure, audit_summary_axes, sampler_fit_axes  # noqa: E402
from dpviz.widgets import AuditExplorer  # noqa: E402


@pytest.fixture(scope="module")
def explorer():
    return AuditExplorer()


def test_defaults_show_an_honest_laplace_audit(explorer):
    v = explorer.result
    assert explorer.values["mechanism"] == "laplace" and explorer.values["claimed_epsilon"] == 1.0
    assert v.samples == 20_000 and v.n[-1] == 20_000
    assert isinstance(v.result, AuditResult) and v.result.violation is False
    assert "Laplace mechanism" in explorer.figure.layout.title.text
    assert "proves nothing" in explorer.verdict.value
    # the drawn band is the result's interval
    np.testing.assert_allclose(np.asarray(explorer.figure.data[1].y, dtype=float)[-1], v.upper[-1])


def test_sample_slider_narrows_the_interval_without_new_samples(explorer):
    explorer.controls["samples"].value = 1_000
    small = explorer.result
    explorer.controls["samples"].value = 100_000
    big = explorer.result
    assert small.result.event == big.result.event  # same search, same cached batch
    w_small = small.upper[-1] - small.lower[-1]
    w_big = big.upper[-1] - big.lower[-1]
    # Clopper-Pearson widths shrink like 1/sqrt(n): 100x the samples, about 1/10 the width
    assert w_big < w_small / 5
    # the first 1000 samples of the big batch are the small batch
    i = int(np.searchsorted(big.n, 1_000))
    assert big.n[i] == 1_000 and big.lower[i] == pytest.approx(small.lower[-1])
    lo, _, _ = privacy_loss_interval(*big.result.counts[:1], big.samples, big.result.counts[1], big.samples,
                                     confidence=0.95)
    assert big.result.epsilon_lower == pytest.approx(max(0.0, float(lo)))


def test_gptt_is_labelled_and_disproved(explorer):
    explorer.controls["mechanism"].value = "gptt"
    explorer.controls["samples"].value = 10**5.3
    r = explorer.result.result
    assert "NOT differentially private" in explorer.figure.layout.title.text
    assert r.violation is True and r.epsilon_lower > 2.0
    assert "DISPROVED" in explorer.verdict.value
    explorer.controls["mechanism"].value = "laplace"


def test_claim_recalibrates_the_mechanism(explorer):
    explorer.controls["claimed_epsilon"].value = 0.25
    explorer.controls["samples"].value = 10**5.3
    r = explorer.result.result
    assert r.claimed_epsilon == 0.25 and r.violation is False
    assert 0.15 < r.epsilon_lower <= 0.25  # honest Laplace at 0.25 with ~2e5 samples per dataset
    explorer.controls["claimed_epsilon"].value = 1.0


def test_bad_sample_size_is_reported_and_last_result_kept(explorer):
    good = explorer.result
    with pytest.raises(ValueError, match="samples"):
        explorer._compute("laplace", 1.0, 5e6, 0.95, 0)
    with pytest.raises(ValueError, match="samples"):
        audit_explorer_run("laplace", 1.0, 0)
    assert explorer.result is good


def test_curve_matches_a_direct_audit_count():
    t = audit_target("svt", 1.0)
    curve = prepare_audit_curve(t, max_samples=20_000, search_samples=5_000, rng=3)
    view = audit_curve(curve, 20_000, points=10)
    assert view.n[0] == 100 and view.n[-1] == 20_000
    hits = curve.cum_hits
    assert view.result.counts == (int(hits[0][-1]), int(hits[1][-1]))
    assert np.all(np.diff(hits[0]) >= 0) and hits[0][-1] <= 20_000


def test_static_figures_draw():
    import matplotlib.pyplot as plt

    view = audit_explorer_run("gptt_counterexample", 1.0, 50_000)
    ax = audit_axes(view)
    assert "NOT differentially private" in ax.get_title()
    fig = audit_figure(view)
    assert len(fig.data) == 6
    results = audit_table(["laplace", "gptt"], samples=20_000, rng=0)
    ax2 = audit_summary_axes(results)
    assert len(ax2.get_yticklabels()) == 2
    fit = sampler_fit("laplace", 2.0, 5_000, rng=1)
    assert fit.observed.sum() <= 5_000 and math.isfinite(fit.p_value)
    sampler_fit_axes(fit)
    plt.close("all")


# --------------------------------------------------------------------------- curves prepared in the background
def _direct_curve(name, claim, confidence, seed, max_samples):
    """The curve computed here, synchronously, without any cache."""
    return prepare_audit_curve(audit_target(name, claim), max_samples=max_samples, search_samples=20_000,
                               confidence=confidence, rng=seed)


def _same_curve(view, curve):
    c = view.result
    return (c.event.description == curve.event.description and c.swapped == curve.swapped
            and c.counts == (int(curve.cum_hits[0][view.samples - 1]), int(curve.cum_hits[1][view.samples - 1])))


def _wait_prepared(timeout=60.0):
    import time

    from dpviz.experiments.audit.curve import _cached_curve

    end = time.monotonic() + timeout
    while _cached_curve.pending():
        assert time.monotonic() < end, "background preparation did not finish"
        time.sleep(0.02)


def test_prepared_next_moves_show_the_very_curves_a_direct_computation_gives(monkeypatch):
    import dpviz.widgets.audit as widget_module
    from dpviz.experiments.audit.curve import _cached_curve

    monkeypatch.setattr(widget_module, "MAX_SAMPLES", 4_000)
    monkeypatch.setattr(widget_module, "_PREPARE_ORDER", ("laplace", "gaussian", "svt"))
    _cached_curve.cache_clear()
    e = AuditExplorer(samples=1_000.0)
    assert len(e._next_moves()) == 3 + 2 + 1 + 2
    _wait_prepared()
    hits, misses = _cached_curve.cache_info()
    for name, value in [("claimed_epsilon", 0.5), ("confidence", 0.99), ("seed", 1), ("mechanism", "svt")]:
        e.controls[name].value = value
        v = e.values
        assert e.message.value == ""
        assert _same_curve(e.result, _direct_curve(v["mechanism"], v["claimed_epsilon"], v["confidence"],
                                                   v["seed"], 4_000))
        _wait_prepared()
    assert _cached_curve.cache_info()[0] >= hits + 4    # every move found its curve prepared


def test_rapid_moves_always_show_the_current_settings_curve_and_start_no_extra_threads(monkeypatch):
    import threading

    import dpviz.widgets.audit as widget_module

    monkeypatch.setattr(widget_module, "MAX_SAMPLES", 3_000)
    monkeypatch.setattr(widget_module, "_PREPARE_ORDER", ("laplace", "laplace_undernoised", "gaussian"))
    explorers = [AuditExplorer(samples=500.0) for _ in range(3)]
    e = explorers[0]
    moves = [("claimed_epsilon", 2.0), ("seed", 5), ("claimed_epsilon", 0.25), ("mechanism", "gaussian"),
             ("confidence", 0.999), ("seed", 6), ("mechanism", "laplace_undernoised"), ("claimed_epsilon", 1.0),
             ("samples", 2_000.0), ("seed", 5), ("mechanism", "laplace")]
    for name, value in moves:           # no pause: the background thread is mid-way through older settings
        e.controls[name].value = value
        v = e.values
        assert e.message.value == "" and e.result.samples == int(round(v["samples"]))
        assert _same_curve(e.result, _direct_curve(v["mechanism"], v["claimed_epsilon"], v["confidence"],
                                                   v["seed"], 3_000))
        warmers = [t for t in threading.enumerate() if t.name == "dpviz-warm-_cached_curve" and t.is_alive()]
        assert len(warmers) <= 1        # one for the cached curves, however many explorers and moves
    _wait_prepared()


def test_the_mechanism_a_keyboard_step_further_is_prepared_first(monkeypatch):
    """A student stepping down the mechanism dropdown with the arrow key reaches the next options next: the two
    further down are prepared before the others (which follow cheapest first); stepping up, those above are."""
    import dpviz.widgets.audit as widget_module

    monkeypatch.setattr(widget_module, "MAX_SAMPLES", 3_000)   # the moves below prepare curves in the background
    e = AuditExplorer(samples=500.0)
    names = [v for _, v in e.controls["mechanism"].options]
    e.controls["mechanism"].value = names[2]             # down the list
    first = [m[0] for m in e._next_moves()]
    assert first[:3] == [names[3], names[4], names[1]]   # two steps on, then back
    assert set(first[:len(widget_module._PREPARE_ORDER) - 1]) == set(widget_module._PREPARE_ORDER) - {names[2]}
    e.controls["mechanism"].value = names[1]             # and back up
    assert [m[0] for m in e._next_moves()][:3] == [names[0], names[2], names[3]]
    _wait_prepared()
