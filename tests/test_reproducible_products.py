"""The optimisers' fixed-order products: right (against numpy/scipy's BLAS and LAPACK) and the same bits under
every BLAS kernel (p-Identity run in fresh processes under different OpenBLAS kernels)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import numpy as np
import pytest
import scipy.linalg

from dpviz import matrix_mechanism as mm
from dpviz import strategies, workloads
from dpviz.strategies.reproducible_products import BLAS, FIXED_ORDER, _solve_triangular


@pytest.mark.parametrize("shapes", [((7, 5), (5, 3)), ((7, 5), (5,)), ((5,), (5, 3)), ((5,), (5,))])
def test_fixed_matmul_matches_blas(shapes: tuple) -> None:
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=shapes[0]), rng.normal(size=shapes[1])
    np.testing.assert_allclose(FIXED_ORDER.matmul(a, b), a @ b, rtol=1e-13, atol=1e-13)


def test_fixed_products_match_blas_and_write_into_out() -> None:
    rng = np.random.default_rng(2)
    a, b, R = rng.normal(size=(6, 40)), rng.normal(size=(6, 40)), rng.normal(size=(6, 6))
    np.testing.assert_allclose(FIXED_ORDER.times_transpose(a, b), a @ b.T, rtol=1e-12, atol=1e-12)
    assert FIXED_ORDER.inner(a, b) == pytest.approx(float(np.vdot(a, b)), rel=1e-12, abs=1e-12)
    out = np.empty((6, 40))
    FIXED_ORDER.matmul(R, a, out=out)
    np.testing.assert_allclose(out, R @ a, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("p", [1, 3, 40])
def test_fixed_spd_inverse_matches_lapack(p: int) -> None:
    rng = np.random.default_rng(p)
    T = rng.random((p, 3 * p))
    M = np.eye(p) + T @ T.T                          # the optimiser's I + Theta Theta^T
    inv = FIXED_ORDER.spd_inverse(M)
    np.testing.assert_allclose(inv, scipy.linalg.inv(M), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(inv @ M, np.eye(p), atol=1e-9)
    np.testing.assert_array_equal(inv, inv.T)
    np.testing.assert_allclose(BLAS.spd_inverse(M), inv, rtol=1e-9, atol=1e-12)


def test_fixed_spd_inverse_flags_a_matrix_that_is_not_positive_definite() -> None:
    assert np.isnan(FIXED_ORDER.spd_inverse(np.array([[1.0, 2.0], [2.0, 1.0]]))).all()


@pytest.mark.parametrize("upper", [True, False])
def test_solve_triangular_matches_scipy(upper: bool) -> None:
    rng = np.random.default_rng(3)
    R = rng.normal(size=(5, 5)) + 5 * np.eye(5)
    R = np.triu(R) if upper else np.tril(R)
    b = rng.normal(size=5)
    np.testing.assert_allclose(_solve_triangular(R, b, upper=upper),
                               scipy.linalg.solve_triangular(R, b, lower=not upper), rtol=1e-12)


@pytest.mark.parametrize("norm", ["l1", "l2"])
def test_reproducible_optimum_is_as_good_as_the_blas_one(norm: str) -> None:
    # the same optimiser on other arithmetic: after 200 steps from one start the two trajectories have parted
    # (chaos amplifies 1e-16), so the errors agree only as closely as two runs of the optimiser do (~0.3 %)
    W = workloads.all_ranges(128)
    fixed = strategies.p_identity(W, norm=norm, rng=0, reproducible=True)
    blas = strategies.p_identity(W, norm=norm, rng=0)
    identity = mm.expected_error(W, np.eye(128), 1.0)
    ef, eb = mm.expected_error(W, fixed, 1.0), mm.expected_error(W, blas, 1.0)
    if norm == "l1":
        assert ef < identity and abs(ef / eb - 1.0) < 0.01
    else:
        assert abs(np.sqrt(mm.expected_error(W, fixed, 1.0, delta=1e-6) / mm.expected_error(W, blas, 1.0, delta=1e-6))
                   - 1.0) < 0.01


def test_reproducible_refuses_a_non_bool() -> None:
    with pytest.raises(TypeError, match="reproducible"):
        strategies.p_identity(workloads.prefix(16), reproducible=1)


_CHILD = """
import hashlib, numpy as np
from dpviz import strategies, workloads
h = hashlib.sha256()
for W, norm in ((workloads.all_ranges(256), "l1"), (workloads.prefix(256), "l2")):
    A = strategies.p_identity(W, norm=norm, rng=0, reproducible=True)
    h.update(np.asarray(A.toarray() if hasattr(A, "toarray") else A).tobytes())
print(h.hexdigest())
"""


def _openblas_dynamic() -> bool:
    config = np.show_config(mode="dicts") if hasattr(np, "show_config") else {}
    blas = (config or {}).get("Build Dependencies", {}).get("blas", {})
    return "openblas" in str(blas.get("name", "")).lower() and "DYNAMIC_ARCH" in str(blas.get("openblas configuration"))


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64") or not _openblas_dynamic(),
                    reason="needs x86-64 and an OpenBLAS built with DYNAMIC_ARCH (kernels chosen by OPENBLAS_CORETYPE)")
def test_reproducible_optimum_has_the_same_bits_under_two_blas_kernels() -> None:
    digests = {}
    for kernel in ("Haswell", "Prescott"):        # AVX2 + FMA against SSE3 without FMA: different sums
        env = {**os.environ, "OPENBLAS_CORETYPE": kernel}
        out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True,
                             timeout=300)
        digests[kernel] = out.stdout.strip()
    assert len(set(digests.values())) == 1, digests
