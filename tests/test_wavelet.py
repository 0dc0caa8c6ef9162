"""Tests for dpviz.wavelet: the Haar (Privelet) strategy and its exact error."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from dpviz import wavelet as W
from dpviz.mechanisms.sensitivity import l1


@pytest.mark.parametrize("n", [1, 2, 4, 8, 64])
def test_haar_power_of_two_orthogonal_and_sensitivity(n):
    A = W.haar_matrix(n)
    assert isinstance(A, sp.csr_array) and A.shape == (n, n)
    G = (A @ A.T).toarray()
    assert np.allclose(G, np.diag(np.diag(G)))             # orthogonal rows
    assert l1(A) == 1 + math.log2(n) == W.haar_sensitivity(n)
    assert set(np.unique(A.data)) <= {-1.0, 1.0}


@pytest.mark.parametrize("n", [3, 5, 6, 7, 100, 300])
def test_haar_padded_full_rank(n):
    A = W.haar_matrix(n)
    N = W.padded_size(n)
    assert A.shape[1] == n and N >= n > N // 2
    assert np.linalg.matrix_rank(A.toarray()) == n
    assert l1(A) == W.haar_sensitivity(n) == 1 + math.log2(N)
    assert np.all(np.diff(A.indptr) > 0)  # no empty rows


def test_slides_example_coefficients():
    # n = 4: estimate of range(x2, x3) = .5 z1 + 0 z2 - .5 z3 + .5 z4 (slides, Method 4)
    A = W.haar_matrix(4).toarray()
    q = np.array([0, 1, 1, 0.0])
    coef = q @ np.linalg.inv(A)
    assert np.allclose(coef, [0.5, 0.0, -0.5, 0.5])


@pytest.mark.parametrize("n", [8, 32])
def test_privelet_covariance_is_least_squares_for_powers_of_two(n):
    A = W.haar_matrix(n).toarray()
    sigma2 = 2 * W.haar_sensitivity(n) ** 2 / 0.5**2
    assert np.allclose(W.privelet_covariance(n, 0.5), sigma2 * np.linalg.inv(A.T @ A))


@pytest.mark.parametrize("n", [16, 21])
def test_privelet_simulation_matches_exact_mse(n):
    x = np.random.default_rng(2).integers(0, 30, size=n).astype(float)
    k = 4000
    est = W.privelet_release(x, 1.0, rng=7, size=k)
    assert est.shape == (k, n)
    i, j = np.triu_indices(n + 1, 1)
    P = np.concatenate([np.zeros((k, 1)), np.cumsum(est - x, axis=1)], axis=1)
    per_trial = ((P[:, j] - P[:, i]) ** 2).mean(axis=1)
    theory = W.privelet_average_range_mse(n, 1.0)
    assert abs(per_trial.mean() - theory) < 5 * per_trial.std(ddof=1) / math.sqrt(k)
    # unbiased
    assert np.all(np.abs(est.mean(axis=0) - x) < 5 * np.sqrt(np.diag(W.privelet_covariance(n, 1.0)) / k))


def test_width_curve_averages_to_overall():
    n = 24
    w = np.arange(1, n + 1)
    by_w = W.privelet_range_mse_by_width(n, 0.3, w)
    assert np.sum(by_w * (n - w + 1)) / (n * (n + 1) / 2) == pytest.approx(W.privelet_average_range_mse(n, 0.3))
    cov = W.privelet_covariance(n, 0.3)
    assert by_w[0] == pytest.approx(np.mean(np.diag(cov)))
    assert by_w[-1] == pytest.approx(cov.sum())


def test_bad_inputs():
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        W.haar_matrix(0)
    with pytest.raises(TypeError):
        W.haar_matrix(2.0)
    with pytest.raises(ValueError, match="epsilon"):
        W.privelet_average_range_mse(8, 0.0)
    with pytest.raises(ValueError, match="widths"):
        W.privelet_range_mse_by_width(8, 1.0, [0, 9])
    with pytest.raises(ValueError, match="x"):
        W.privelet_release([1, -1], 1.0)


# --- issue 13: one accounting rule, no inf for a tiny epsilon, named errors --------------------------------------

def test_privelet_release_charges_k_epsilon_for_size_k():
    from fractions import Fraction

    from dpviz.accountant import PrivacyAccountant

    acc = PrivacyAccountant(10.0)
    W.privelet_release([5, 0, 3, 1], 0.1, rng=0, size=5, accountant=acc)
    assert acc.history[-1].total_epsilon == Fraction(1, 2) and acc.history[-1].total_delta == 0
    W.privelet_release([5, 0, 3, 1], 0.25, rng=0, accountant=acc)   # size=None: one release
    assert acc.history[-1].total_epsilon == Fraction(3, 4)


def test_privelet_release_refuses_a_bad_accountant_and_records_nothing_when_refused():
    from dpviz.accountant import BudgetExceededError, PrivacyAccountant

    for bad in ("acc", 3):
        with pytest.raises(TypeError, match="accountant"):
            W.privelet_release([5, 0, 3, 1], 1.0, rng=0, accountant=bad)
    acc = PrivacyAccountant(1.0)
    with pytest.raises(BudgetExceededError):   # 3 x 0.5 = 1.5 > 1
        W.privelet_release([5, 0, 3, 1], 0.5, rng=0, size=3, accountant=acc)
    with pytest.raises(ValueError, match="size"):
        W.privelet_release([5, 0, 3, 1], 0.1, rng=0, size=10**12, accountant=acc)
    with pytest.raises(ValueError, match="epsilon"):   # the scale overflows: refused before charging
        W.privelet_release([5, 0, 3, 1], 1e-320, rng=0, accountant=acc)
    assert acc.history == []


def test_privelet_errors_refuse_an_epsilon_that_overflows():
    for f in (lambda: W.privelet_covariance(4, 1e-300), lambda: W.privelet_average_range_mse(4, 1e-300),
              lambda: W.privelet_range_mse_by_width(4, 1e-300)):
        with pytest.raises(ValueError, match="epsilon"):
            f()
    with pytest.raises(ValueError, match="n="):
        W.haar_matrix(10**15)
    with pytest.raises((ValueError, TypeError), match="cov"):
        W.range_variance_by_width("abc", [1])
    with pytest.raises(ValueError, match="cov"):
        W.range_variance_by_width(np.ones((2, 3)), [1])
    with pytest.raises(ValueError, match="widths"):
        W.range_variance_by_width(np.eye(3), [4])
