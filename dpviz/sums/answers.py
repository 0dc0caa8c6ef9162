"""Answering with a chosen threshold: Identity, Workload, TiMM and TaMM, then optional isotonic regression.

Given ``tau`` and the answering budget ``eps'`` ([WPKM19]_ Table 1):

=========  =========================================================================
Identity   ``W_s diag(v^tau) (x + Lap(1/eps')^n)``
Workload   ``W_s diag(v^tau) x + Lap(Delta/eps')^m``,  ``Delta = ||W_s diag(v^tau)||_1``
           (largest column L1 norm)
TiMM       matrix mechanism on the weighted counts ``diag(v^tau) x`` with ``A = GreedyH(W_s)``
TaMM       matrix mechanism on the counts ``x`` with ``A = GreedyH(W_s diag(v^tau))``
=========  =========================================================================

SQM chooses one threshold per query and lives in :mod:`dpviz.sums.sqm`.

References
----------
.. [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
   Summation Queries for Numerical Attributes under Differential Privacy."
   TPDP 2019, arXiv:1908.10268.

- [LMHMR15] C. Li, G. Miklau, M. Hay, A. McGregor, V. Rastogi. "The matrix
  mechanism: optimizing linear counting queries under differential privacy."
  VLDB Journal 24(6), 2015.
- [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the accuracy of
  differentially private histograms through consistency." PVLDB 3(1), 2010.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from scipy.optimize import isotonic_regression

from dpviz.mechanisms import laplace_scale, scaled_laplace
from dpviz.rng import RngLike, as_generator
from dpviz.sums.matrix import _mm_pair
from dpviz.sums.problem import SumProblem, _check_noise_epsilon, _taus, check_problem
from dpviz.sums.truncation import truncated_prefix_sums, workload_sensitivity
from dpviz.validation import check_array, check_choice, check_elements, check_epsilon

__all__ = ["answer_with_threshold", "isotonic"]


def answer_with_threshold(problem: SumProblem, algorithm: str, tau: npt.ArrayLike, epsilon: float, *,
                          rng: RngLike = None) -> npt.NDArray[np.float64]:
    """Noisy answers of a batch algorithm given one threshold per trial (the paper's Algorithm 9).

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem.
    algorithm : {"identity", "workload", "timm", "tamm"}
        See the module table.  (SQM chooses one threshold per query: use
        :func:`dpviz.sums.sqm_answers` or :func:`dpviz.sums.answer_prefix_sums`.)
    tau : float or array_like of shape (k,)
        Truncation threshold per trial (``inf``: none), already chosen (and paid for).
    epsilon : float
        Budget of the answering step, ``(1 - rho) eps`` after a private threshold.
    rng : None, int, SeedSequence or Generator
        Randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    numpy.ndarray, shape (k, m) (or (m,) for a scalar tau)
        Noisy prefix sums, one row per threshold.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem`.
    ValueError
        For an unknown ``algorithm``, ``epsilon`` not > 0 (or so small that the noise overflows float64), or
        a threshold that is NaN or <= 0.

    Notes
    -----
    Noise scales ([WPKM19] Table 1, App. A.3-A.4): Identity ``Lap(1/eps)`` per
    count; Workload ``Lap(||W_s diag(v^tau)||_1 / eps)`` per query; TiMM and TaMM
    ``Lap(||A'||_1 / eps)`` per strategy query with least-squares reconstruction
    ([LMHMR15]), ``A' = A diag(v^tau)`` for TiMM.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([1, 1000, 1001, 2500], [1000, 3000], uniform_bins(1000, 3000))
    >>> answer_with_threshold(p, "workload", [1500.0, np.inf], 1e9, rng=0).round(3)
    array([[2000., 5000.],
           [2000., 7000.]])
    """
    problem = check_problem(problem)
    algorithm = check_choice("algorithm", algorithm, ("identity", "workload", "timm", "tamm"))
    epsilon = _check_noise_epsilon(problem, check_epsilon(epsilon))
    scalar = np.ndim(tau) == 0
    taus = _taus(tau)
    gen = as_generator(rng)
    k = taus.size
    check_elements(float(k) * (problem.n + problem.m), "noisy counts and answers", tau=f"<{k} thresholds>")
    clean = truncated_prefix_sums(problem, taus)
    if algorithm == "identity":
        vt = np.minimum(problem.weights[None, :], taus[:, None])
        noise = np.cumsum(vt * scaled_laplace(laplace_scale(1.0, epsilon), (k, problem.n), rng=gen), axis=1)
        out = clean + noise[:, problem.index]
    elif algorithm == "workload":
        scale = np.array([laplace_scale(s, epsilon) for s in np.atleast_1d(workload_sensitivity(problem, taus))])
        out = clean + scaled_laplace(1.0, (k, problem.m), rng=gen) * scale[:, None]
    else:
        from dpviz.matrix_mechanism import run

        out = np.empty((k, problem.m))
        for t in np.unique(taus):
            rows = np.flatnonzero(taus == t)
            Wt, A = _mm_pair(problem, algorithm, float(t))
            out[rows] = run(Wt, A, problem.counts, epsilon, rng=gen, size=rows.size).answers
    return out[0] if scalar else out


def isotonic(answers: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Least-squares non-decreasing fit of each row (``scipy.optimize.isotonic_regression``) ([HRMS10]).

    Prefix sums of non-negative values never decrease, so projecting noisy
    answers on that cone is free post-processing.

    Parameters
    ----------
    answers : array_like, shape (m,) or (k, m)
        Noisy prefix sums, one row per trial.

    Returns
    -------
    numpy.ndarray, same shape as ``answers``
        The closest non-decreasing rows in squared error.

    Raises
    ------
    ValueError
        If ``answers`` is not 1-D or 2-D, or holds NaN or inf.
    TypeError
        If ``answers`` is not array-like of numbers.

    Examples
    --------
    >>> isotonic([1.0, 3.0, 2.0, 4.0])
    array([1. , 2.5, 2.5, 4. ])
    """
    a = check_array("answers", answers, ndim=(1, 2))
    if a.ndim == 1:
        return _isotonic_row(a)
    return np.vstack([_isotonic_row(row) for row in a])


def _isotonic_row(row: np.ndarray) -> np.ndarray:
    """The isotonic fit of one row, computed on the row divided by a power of two near its largest magnitude.

    The fit is scale-equivariant and a power-of-two scale is exact, so the answer is the unscaled fit bit for
    bit, but the block sums inside cannot overflow: answers of 1e308 give 1e308, not inf.
    """
    top = float(np.max(np.abs(row))) if row.size else 0.0
    scale = math.ldexp(1.0, math.frexp(top)[1] - 1) if top > 0 else 1.0  # 2^(e-1) <= top < 2^e: |row| < 2 scales
    return isotonic_regression(row / scale, increasing=True).x * scale
