"""Optimised strategies for marginal workloads: a weighted set of marginals, its error in closed form [MMHM18]_.

**Strategy.**  ``A = [theta_S M_S for every attribute set S]``: every one of the ``2^d`` marginals of the
table (:func:`dpviz.workloads.marginal_matrix`) scaled by a weight ``theta_S >= 0``.  A record lies in
exactly one cell of each marginal, so ``||A||_1 = sum theta_S`` and ``||A||_2 = (sum theta_S^2)^(1/2)``.

**Exact error in closed form.**  Per attribute write ``I = P0 + P1`` with ``P0 = 1 1^T / n_i`` (the mean)
and ``P1 = I - P0``; the ``2^d`` products ``E_T = kron_i (P1 if i in T else P0)`` are orthogonal
projectors summing to ``I``.  Then ``M_S^T M_S = c_S sum_{T subset of S} E_T`` with
``c_S = prod_{i not in S} n_i``, so ``A^T A = sum_T lambda_T E_T`` with
``lambda_T = sum_{S superset of T} theta_S^2 c_S`` and, for the workload ``W`` of marginals ``S in W``,
``W^T W = sum_T mu_T E_T`` with ``mu_T = sum_{S in W, S superset of T} c_S``.  Hence
``tr(W^T W (A^T A)^+) = sum_T mu_T r_T / lambda_T`` with ``r_T = tr(E_T) = prod_{i in T} (n_i - 1)``:
``O(d 2^d)`` per evaluation (superset sums), whatever the table's size.  The gradient is
``-2 theta_S c_S sum_{T subset of S} mu_T r_T / lambda_T^2`` (subset sums).  McKenna et al. optimise the
same family (HDMM's "Marginals" template); the derivation here is this module's own and the tests check
it against a dense pseudo-inverse.

**Optimiser.**  Projected L-BFGS on ``||A||^2 tr(W^T W (A^T A)^+)`` from the identity (the full marginal),
from the workload itself (weight 1 on each of its marginals) and from seeded random weights; the best
result is kept, so the strategy is never worse than either Identity or the workload.

References
----------
.. [MMHM18] R. McKenna, G. Miklau, M. Hay, A. Machanavajjhala. "Optimizing Error of High-Dimensional
   Statistical Queries Under Differential Privacy." PVLDB 11(10), 2018 (the Marginals template, Sec. 6).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from dpviz.rng import RngLike, as_generator
from dpviz.strategies.projected_lbfgs import _minimize
from dpviz.validation import check_array, check_choice, check_int
from dpviz.workloads import Workload, marginal_matrix

__all__ = ["marginal_weights", "marginal_strategy", "marginals_error"]


def _superset_sums(f: np.ndarray, d: int) -> np.ndarray:
    """``g[T] = sum over S superset of T of f[S]`` for arrays indexed by ``d``-bit masks."""
    g = f.copy()
    for i in range(d):
        bit = 1 << i
        lo = np.flatnonzero((np.arange(g.size) & bit) == 0)
        g[lo] += g[lo | bit]
    return g


def _subset_sums(f: np.ndarray, d: int) -> np.ndarray:
    """``g[S] = sum over T subset of S of f[T]``."""
    g = f.copy()
    for i in range(d):
        bit = 1 << i
        hi = np.flatnonzero(np.arange(g.size) & bit)
        g[hi] += g[hi ^ bit]
    return g


def _mask(S: tuple[int, ...]) -> int:
    return sum(1 << i for i in S)


def _tables(W: Workload) -> tuple[tuple[int, ...], np.ndarray, np.ndarray, np.ndarray]:
    """``(dims, c, needed, weight)``: attribute sizes, ``c_S`` per mask, and ``mu_T r_T`` where it is > 0."""
    if not isinstance(W, Workload) or W.marginals is None:
        raise TypeError("W must be a marginal workload (dpviz.workloads.marginals or marginals_2d), got "
                        f"{W!r}")
    dims = tuple(int(v) for v in W.domain_shape)
    d = len(dims)
    masks = np.arange(1 << d)
    sizes = np.array(dims, dtype=float)
    inside = (masks[:, None] >> np.arange(d)[None, :]) & 1
    c = np.prod(np.where(inside == 1, 1.0, sizes), axis=1)            # prod of n_i over i not in S
    r = np.prod(np.where(inside == 1, sizes - 1.0, 1.0), axis=1)      # prod of n_i - 1 over i in T
    w = np.zeros(1 << d)
    for S in W.marginals:
        w[_mask(S)] += c[_mask(S)]
    mu_r = _superset_sums(w, d) * r
    needed = mu_r > 0
    return dims, c, needed, mu_r


def _error_and_gradient(theta: np.ndarray, d: int, c: np.ndarray, needed: np.ndarray, mu_r: np.ndarray,
                        norm: str) -> tuple[float, np.ndarray]:
    """``||A||^2 sum_T mu_T r_T / lambda_T`` and its gradient in ``theta`` (inf where a needed lambda_T is 0)."""
    lam = _superset_sums(theta**2 * c, d)
    if np.any(lam[needed] <= 0.0):
        return np.inf, np.zeros_like(theta)
    err = float(np.sum(mu_r[needed] / lam[needed]))
    q = np.zeros_like(theta)
    q[needed] = mu_r[needed] / lam[needed] ** 2
    derr = -2.0 * theta * c * _subset_sums(q, d)
    if norm == "l1":
        sens, dsens = float(theta.sum()) ** 2, 2.0 * float(theta.sum()) * np.ones_like(theta)
    else:
        sens, dsens = float(theta @ theta), 2.0 * theta
    return sens * err, dsens * err + sens * derr


def marginals_error(W: Workload, theta: Any, *, norm: str = "l1") -> float:
    """Closed-form ``||A||^2 tr(W^T W (A^T A)^+)`` of the weighted-marginals strategy ``theta``.

    Parameters
    ----------
    W : Workload
        A marginal workload (:func:`dpviz.workloads.marginals`).
    theta : array_like
        ``2^d`` weights >= 0, indexed by attribute-set bit masks (bit ``i`` set when attribute ``i`` is in S).
    norm : {"l1", "l2"}, default "l1"
        Sensitivity of the noise: "l1" (Laplace) or "l2" (Gaussian).

    Returns
    -------
    float
        The total squared error per unit noise variance at sensitivity ``||A||`` (``inf`` if the strategy
        cannot answer ``W``).

    Raises
    ------
    TypeError
        If ``W`` is not a marginal workload.
    ValueError
        If ``norm`` is unknown or ``theta`` is not ``2^d`` finite non-negative weights.

    Examples
    --------
    >>> from dpviz import workloads
    >>> W = workloads.marginals((2, 3), 1)
    >>> identity = [0, 0, 0, 1]                   # only the full marginal {0, 1}: the identity
    >>> marginals_error(W, identity)               # 2 marginals x 6 cells, each a sum of 1 to 3 cells
    12.0
    """
    check_choice("norm", norm, ("l1", "l2"))
    dims, c, needed, mu_r = _tables(W)
    t = check_array("theta", theta, ndim=1)
    if t.shape != (1 << len(dims),) or np.any(t < 0):
        raise ValueError(f"theta must hold 2^d = {1 << len(dims)} finite weights >= 0, got shape {t.shape}")
    top = float(t.max())
    if not top > 0.0:  # no marginal measured: not a strategy (its sensitivity is 0 and its error 0 * inf)
        raise ValueError("theta must give at least one marginal a positive weight, got all zeros")
    t = t / top          # the error ignores the weights' scale; squaring 1e-155 or 1e155 does not
    return _error_and_gradient(t, len(dims), c, needed, mu_r, norm)[0]


def marginal_weights(W: Workload, *, norm: str = "l1", restarts: int = 4, max_iter: int = 500,
                     rng: RngLike = None) -> np.ndarray:
    """Optimised weights ``theta_S`` of all ``2^d`` marginals for the marginal workload ``W`` (sensitivity 1).

    Parameters
    ----------
    W : Workload
        A marginal workload (:func:`dpviz.workloads.marginals`).
    norm : {"l1", "l2"}, default "l1"
        Sensitivity to optimise for: "l1" (Laplace, epsilon-DP) or "l2" (Gaussian).
    restarts : int, default 4
        Random starting points, in ``[0, 100]``, besides the identity and the workload itself.
    max_iter : int, default 500
        Most optimiser iterations per start, in ``[1, 100000]``.
    rng : None, int, SeedSequence or Generator
        Randomness of the random starts (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    numpy.ndarray
        ``2^d`` weights (bit ``i`` of the index set when attribute ``i`` is in S), ``||A|| = 1``.

    Raises
    ------
    TypeError
        If ``W`` is not a marginal workload, or ``restarts``/``max_iter`` are not integers.
    ValueError
        If ``norm`` is unknown, or ``restarts``/``max_iter`` are out of range.

    Examples
    --------
    >>> from dpviz import workloads
    >>> W = workloads.marginals((4, 4, 4), 1)
    >>> theta = marginal_weights(W, rng=0)
    >>> bool(marginals_error(W, theta) <= marginals_error(W, [0] * 7 + [1]))   # never worse than identity
    True
    """
    check_choice("norm", norm, ("l1", "l2"))
    restarts = check_int("restarts", restarts, minimum=0, maximum=100)
    max_iter = check_int("max_iter", max_iter, minimum=1, maximum=100_000)
    dims, c, needed, mu_r = _tables(W)
    d = len(dims)
    assert W.marginals is not None                      # checked by _tables
    starts = [np.eye(1 << d)[-1], np.bincount([_mask(S) for S in W.marginals], minlength=1 << d).astype(float)]
    gen = as_generator(rng)
    starts += [gen.random(1 << d) for _ in range(restarts)]
    best = None
    for x0 in starts:
        res = _minimize(lambda t: _error_and_gradient(t, d, c, needed, mu_r, norm), x0, lower=0.0,
                        upper=np.inf, max_iter=max_iter, tol=1e-10)
        if best is None or res.value < best.value:
            best = res
    assert best is not None
    theta = best.x
    return theta / (theta.sum() if norm == "l1" else np.sqrt(theta @ theta))


def marginal_strategy(W: Workload, *, norm: str = "l1", restarts: int = 4, rng: RngLike = None) -> sp.csr_array:
    """The optimised weighted-marginals strategy for a marginal workload (see the module docstring).

    Parameters
    ----------
    W : Workload
        A marginal workload (:func:`dpviz.workloads.marginals`).
    norm : {"l1", "l2"}, default "l1"
        Sensitivity to optimise for: "l1" (Laplace, epsilon-DP) or "l2" (Gaussian).
    restarts : int, default 4
        Random starting points besides the identity and the workload, in ``[0, 100]``.
    rng : None, int, SeedSequence or Generator
        Randomness of the random starts.

    Returns
    -------
    scipy.sparse.csr_array
        The stacked weighted marginals with a non-zero weight, sensitivity 1 in ``norm``.

    Raises
    ------
    TypeError
        If ``W`` is not a marginal workload or ``restarts`` is not an integer.
    ValueError
        If ``norm`` is unknown or ``restarts`` is out of range.

    References
    ----------
    McKenna, Miklau, Hay, Machanavajjhala, PVLDB 2018 ([MMHM18]).

    Examples
    --------
    >>> from dpviz import workloads
    >>> A = marginal_strategy(workloads.marginals((3, 3, 3), 2), rng=0)
    >>> round(float(abs(A).sum(axis=0).max()), 12)                       # L1 sensitivity 1
    1.0
    """
    theta = marginal_weights(W, norm=norm, restarts=restarts, rng=rng)
    dims = W.domain_shape
    d = len(dims)
    blocks = [theta[m] * marginal_matrix(dims, [i for i in range(d) if m >> i & 1])
              for m in range(1 << d) if theta[m] > 0]
    return sp.vstack(blocks, format="csr")
