"""HDMM's p-Identity optimisation run the way its authors run it: the reference the benchmarks compare with.

McKenna et al. (PVLDB 2018) optimise ``A = [I; Theta] D`` (``Theta >= 0``, p x n; ``D`` rescales every
column to L1 norm 1) with scipy's L-BFGS-B from ``Theta`` uniform on [0, 1), ``ftol = 1e-4``, ``p = n/16``,
on the dense Gram matrix ``G = W^T W``.  This module follows that recipe with code of its own and a
deliberately plain objective, independent of dpviz's structured one: ``f = tr(G (A^T A)^{-1})`` from an
explicit n x n inverse, and the generic gradient ``dF/dA = -2 A X^{-1} G X^{-1}`` (``X = A^T A``) pushed
through ``A = [I; Theta] / s`` by the chain rule -- O(n^3) per evaluation.

HDMM's own code, run by an earlier session on this machine: total error 6.56e7 on all ranges at n = 1024,
epsilon = 1 (26-68 s of optimisation; 693 s at n = 4096).
"""

from __future__ import annotations

import time

import numpy as np
from scipy.optimize import minimize


def _dense_error_and_gradient(G: np.ndarray, theta: np.ndarray, p: int) -> tuple[float, np.ndarray]:
    """``tr(G (A^T A)^{-1})`` and its gradient in ``Theta`` for ``A = [I; Theta] / (1 + 1^T Theta)``."""
    n = G.shape[0]
    T = theta.reshape(p, n)
    s = 1.0 + T.sum(axis=0)
    A = np.vstack([np.eye(n), T]) / s
    Xinv = np.linalg.inv(A.T @ A)
    f = float(np.sum(G * Xinv))
    dA = -2.0 * A @ (Xinv @ G @ Xinv)
    ds = -np.sum(dA * A, axis=0) / s          # A depends on s as A_ij = B_ij / s_j
    return f, (dA[n:] / s + ds).ravel()       # ds_j / dTheta_qj = 1


def reference_p_identity(G: np.ndarray, p: int, *, seed: int = 0) -> tuple[float, float]:
    """Unit-noise total error of HDMM's optimised L1 p-Identity strategy for the dense Gram ``G``, and seconds.

    Parameters
    ----------
    G : numpy.ndarray
        The workload's Gram matrix ``W^T W`` (n x n).
    p : int
        Number of extra queries (HDMM: n/16).
    seed : int
        Seed of the random start.

    Returns
    -------
    tuple of float
        ``(tr(G (A^T A)^{-1}), seconds)``: multiply the first by ``2 / epsilon^2`` for the Laplace error.
    """
    n = G.shape[0]
    x0 = np.random.default_rng(seed).random(p * n)
    t0 = time.perf_counter()
    res = minimize(lambda x: _dense_error_and_gradient(G, x, p), x0, jac=True, method="L-BFGS-B",
                   bounds=[(0, None)] * x0.size, options={"ftol": 1e-4})
    return float(res.fun), time.perf_counter() - t0
