import math

import numpy as np
import pytest

from dpviz.experiments import run_trials, summarize
from dpviz.experiments.composition import composition_comparison, composition_experiment
from dpviz.experiments.laplace import (
    cps_oldest_by_marital,
    laplace_error_curve,
    laplace_experiment,
    laplace_explorer_run,
)
from dpviz.mechanisms import laplace

Z = 4.5


def test_summarize_statistics():
    s = np.array([[1.0, 10.0], [3.0, 14.0], [5.0, 12.0]])
    out = summarize(s, [2.0, 12.0], band=(0, 100))
    np.testing.assert_allclose(out.mean, [3.0, 12.0])
    np.testing.assert_allclose(out.bias, [1.0, 0.0])
    np.testing.assert_allclose(out.variance, [4.0, 4.0])
    np.testing.assert_allclose(out.mse, [(1 + 1 + 9) / 3, (4 + 4 + 0) / 3])
    np.testing.assert_allclose(out.lower, [1.0, 10.0])
    np.testing.assert_allclose(out.upper, [5.0, 14.0])
    assert out.trials == 3 and out.total_mse == pytest.approx(sum(out.mse))


def test_summarize_bad_input():
    with pytest.raises(ValueError, match="truth"):
        summarize(np.zeros((3, 2)), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="at least 2"):
        summarize(np.zeros((1, 2)), [0.0, 0.0])
    with pytest.raises(ValueError, match="band"):
        summarize(np.zeros((3, 2)), 0.0, band=(95, 5))


def test_run_trials_reproducible():
    mech = lambda rng, size: laplace([1.0, 2.0], 1.0, 1.0, rng=rng, size=size)  # noqa: E731
    a, b = run_trials(mech, [1.0, 2.0], 50, rng=3), run_trials(mech, [1.0, 2.0], 50, rng=3)
    np.testing.assert_array_equal(a.mean, b.mean)


def test_laplace_experiment_band_matches_theory():
    truth = np.array([5.0, 50.0, 500.0])
    k = 100_000
    exp = laplace_experiment(truth, 1.0, 0.5, k, rng=0)
    b = 2.0
    np.testing.assert_allclose(exp.theory_upper - truth, b * math.log(10))
    # the simulated 95th percentile: SE of a sample quantile = sqrt(p(1-p)/k) / f(q), f(q) = 0.1/(2b)*2 ... = 0.05/b
    se_q = math.sqrt(0.05 * 0.95 / k) / (0.05 / b)
    assert np.all(np.abs(exp.summary.upper - exp.theory_upper) < Z * se_q)
    assert np.all(np.abs(exp.summary.lower - exp.theory_lower) < Z * se_q)
    assert exp.theory_variance == pytest.approx(8.0)


def test_accuracy_first_solves_epsilon():
    truth, _ = cps_oldest_by_marital()
    exp = laplace_explorer_run(truth, 1.0, 1000, target_halfwidth=5.0, rng=0)
    assert exp.epsilon == pytest.approx(math.log(10) / 5.0)
    np.testing.assert_allclose(exp.theory_upper - truth, 5.0)
    with pytest.raises(ValueError, match="exactly one"):
        laplace_explorer_run(truth, 1.0, 1000, rng=0)


def test_cps_example_histogram():
    counts, labels = cps_oldest_by_marital()
    np.testing.assert_array_equal(counts, [240, 0, 21, 603, 28, 1, 33])
    assert labels[0] == "marital=1"


def test_error_curve_agrees_with_theory():
    eps = np.array([0.1, 1.0, 10.0])
    c = laplace_error_curve(eps, 1.0, 50_000, rng=1)
    assert np.all(np.abs(c["empirical_mse"] - c["theory_mse"]) < Z * c["stderr"])


def test_error_curve_against_a_hand_derivation():
    """Theory and simulation checked against 2 (S/eps)^2, derived by hand, not against the code's own formula.

    Lap(b) has variance 2 b^2 with b = S / eps.  The empirical MSE is a mean of k i.i.d. Z^2 with
    E[Z^2] = v = 2 b^2 and E[Z^4] = 4! b^4 = 24 b^4 = 6 v^2, so Var(Z^2) = 5 v^2 and, by the CLT, the
    mean lies within z * sqrt(5) v / sqrt(k) of v (z = 4.5: false alarm ~ 1e-5 per point).
    A halved noise scale gives v / 4 and a halved theory scale v / 4 too: both far outside.
    """
    S, k = 3.0, 40_000
    eps = np.array([0.25, 1.5, 6.0])
    by_hand = np.array([2 * (3.0 / 0.25) ** 2, 2 * (3.0 / 1.5) ** 2, 2 * (3.0 / 6.0) ** 2])  # 288, 8, 0.5
    np.testing.assert_array_equal(by_hand, [288.0, 8.0, 0.5])
    c = laplace_error_curve(eps, S, k, rng=7)
    np.testing.assert_allclose(c["theory_mse"], by_hand, rtol=1e-12)
    tol = Z * np.sqrt(5.0) * by_hand / np.sqrt(k)
    assert np.all(np.abs(c["empirical_mse"] - by_hand) < tol), (c["empirical_mse"], by_hand, tol)
    np.testing.assert_allclose(c["stderr"], np.sqrt(5.0) * by_hand / np.sqrt(k), rtol=1e-12)


def test_composition_experiment_and_refusal():
    ok = composition_experiment(1.0, 2000, rng=0)
    assert ok.refusal is None and ok.theory_sequential.sum() == pytest.approx(128)
    bad = composition_experiment(1.0, 2000, share=0.35, rng=0)
    assert bad.sequential is None and "nothing was recorded" in bad.refusal
    assert bad.sequential_ledger.history == []  # 4 * 0.35 > 1: the plan is refused whole, nothing recorded


def test_composition_comparison():
    c = composition_comparison(1.0, [1, 10, 100, 10_000], 1e-6)
    np.testing.assert_allclose(c["basic"], [1, 0.1, 0.01, 1e-4])
    assert c["gain"][-1] > 1 > c["gain"][0]
    with pytest.raises(TypeError, match="ks"):
        composition_comparison(1.0, [1.5], 1e-6)
    with pytest.raises(ValueError, match="ks"):
        composition_comparison(1.0, [0], 1e-6)
