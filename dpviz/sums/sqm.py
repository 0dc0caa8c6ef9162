"""SQM: each of the m prefix sums answered on its own with ``epsilon / m`` and its own truncation threshold.

SQM ([WPKM19]_ Table 1) splits both budgets evenly over the m queries:
query i chooses its threshold ``tau_i`` on the records it covers with
``eps_threshold / m`` (:func:`sqm_thresholds`), then releases its truncated sum
with Laplace noise of scale ``min(tau_i, t_i) m / eps_answers``
(:func:`sqm_answers`): its truncated weights are at most ``min(tau_i, t_i)``, so
adding or removing one record moves it by at most that much.

References
----------
.. [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
   Summation Queries for Numerical Attributes under Differential Privacy."
   TPDP 2019, arXiv:1908.10268.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from dpviz.accountant import float_at_most
from dpviz.mechanisms import laplace_scale, scaled_laplace
from dpviz.rng import RngLike, as_generator
from dpviz.sums.options import THRESHOLD_METHODS
from dpviz.sums.problem import SumProblem, _check_noise_epsilon, _taus, check_problem
from dpviz.sums.thresholds import _recursive_on, _svt_on, threshold_grid
from dpviz.sums.truncation import truncated_prefix_sums
from dpviz.validation import (
    check_choice,
    check_elements,
    check_epsilon,
    check_positive,
    check_probability,
    check_trials,
)

__all__ = ["sqm_thresholds", "sqm_answers"]


def _sqm_thresholds(problem: SumProblem, method: str, eps_thr_total: float, ratio: float, beta: float,
                    start: float | None, growth: float, gen: np.random.Generator,
                    k: int) -> npt.NDArray[np.float64]:
    """Per-query thresholds (k, m) for SQM, each chosen on the records that query covers with eps/m."""
    m = problem.m
    eps_each = float_at_most(Fraction(eps_thr_total) / m)   # never above the exact share eps / m
    out = np.empty((k, m))
    v = problem.weights
    for i in range(m):
        top = problem.index[i]
        if method in ("svt", "recursive"):
            grid = threshold_grid(v[0] if start is None else start, growth, v[top])
            sub_v, sub_c = v[:top + 1], problem._cum_count[:top + 1]
            if method == "svt":
                out[:, i] = _svt_on(sub_v, sub_c, sub_c[-1], grid, eps_each, ratio, gen, k)
            else:
                out[:, i] = _recursive_on(sub_v, sub_c, sub_c[-1], grid, eps_each, beta, gen, k)
        elif method == "oracle":
            c = problem._cum_count[:top + 1]
            j = int(np.searchsorted(c, ratio * c[-1] - 1e-9, side="left"))
            out[:, i] = v[min(j, top)]
        else:
            out[:, i] = math.inf
    return out


def _sqm(problem: SumProblem, taus: np.ndarray, eps_ans: float, gen: np.random.Generator,
         k: int) -> npt.NDArray[np.float64]:
    """SQM answers given per-query thresholds taus (k, m) and the whole answer budget eps_ans."""
    m = problem.m
    clean = truncated_prefix_sums(problem, taus)
    sens = np.minimum(taus, problem.thresholds[None, :])          # max truncated weight in query i
    # query i spends eps_ans / m with sensitivity sens_i: scale sens_i * m / eps_ans
    return clean + scaled_laplace(1.0, (k, m), rng=gen) * sens * laplace_scale(m, eps_ans)


def sqm_thresholds(problem: SumProblem, epsilon: float, method: str = "svt", *, ratio: float = 0.95,
                   beta: float = 1e-3, start: float | None = None, growth: float = 1.1, rng: RngLike = None,
                   size: int | None = None) -> npt.NDArray[np.float64]:
    """SQM's thresholds: one per query, chosen on the records that query covers with ``epsilon / m``.

    Query i (threshold ``t_i``) runs ``method`` on the bins up to ``t_i``, with a
    grid from ``start`` to ``t_i``; the m choices compose to ``epsilon``.  No
    accountant is charged here: :func:`dpviz.sums.release` charges the whole
    configuration.

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem.
    epsilon : float
        Total budget of the m threshold choices (> 0; checked for every method though
        "oracle" and "none" do not use it).
    method : {"svt", "recursive", "oracle", "none"}
        How each threshold is chosen ("oracle" is NOT DP; "none" gives ``inf``).
    ratio : float in (0, 1]
        Untruncated fraction for "svt" and "oracle".
    beta : float
        Trade-off of "recursive" (> 0).
    start : float, optional
        First grid point (default the first bin weight).
    growth : float
        Growth rate of the grid (> 1).
    rng : None, int, SeedSequence or Generator
        Randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent runs; ``None`` for one run of shape (m,).

    Returns
    -------
    numpy.ndarray, shape (size, m) or (m,)
        The thresholds, one column per query.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem`.
    ValueError
        For an unknown ``method``, ``epsilon`` not > 0 (private methods),
        ``ratio`` outside (0, 1], ``beta`` not > 0, an invalid grid or ``size``.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare(np.arange(1, 1001) * 100.0, [50_000, 100_000], uniform_bins(1000, 100_000))
    >>> sqm_thresholds(p, 1.0, "oracle", ratio=0.5)
    array([25000., 50000.])
    >>> sqm_thresholds(p, 20.0, "svt", ratio=0.5, growth=2.0, rng=0, size=2)
    array([[32000., 64000.],
           [32000., 64000.]])
    """
    problem = check_problem(problem)
    method = check_choice("method", method, THRESHOLD_METHODS)
    eps = check_epsilon(epsilon)  # checked for every method, so a typo is never ignored silently
    ratio = check_probability("ratio", ratio)
    beta = check_positive("beta", beta)
    size = check_trials(size)
    k = 1 if size is None else size
    check_elements(float(k) * problem.m, "thresholds", size=size)
    threshold_grid(problem.weights[0] if start is None else start, growth, problem.weights[-1])  # validate early
    gen = as_generator(rng)
    taus = _sqm_thresholds(problem, method, eps, ratio, beta, start, growth, gen, k)
    return taus[0] if size is None else taus


def sqm_answers(problem: SumProblem, tau: npt.ArrayLike, epsilon: float, *,
                rng: RngLike = None) -> npt.NDArray[np.float64]:
    """SQM's noisy answers given its per-query thresholds ([WPKM19] Table 1).

    Query i is truncated at ``tau_i`` and released with Laplace noise of scale
    ``min(tau_i, t_i) m / epsilon``: it spends ``epsilon / m`` and one record moves it by at most
    ``min(tau_i, t_i)``.

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem.
    tau : float or array_like of shape (m,) or (k, m)
        Threshold per query (``inf``: none), already chosen and paid for (e.g.
        by :func:`sqm_thresholds`); one row per trial.
    epsilon : float
        Budget of the answers, split evenly over the m queries.
    rng : None, int, SeedSequence or Generator
        Randomness (see :func:`dpviz.rng.as_generator`).

    Returns
    -------
    numpy.ndarray, shape (k, m) or (m,)
        Noisy answers, one row per row of ``tau``.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem`.
    ValueError
        If ``epsilon`` is not > 0 (or so small that the noise overflows float64), a threshold is NaN or
        <= 0, or ``tau`` has not one column per query.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([1, 1000, 1001, 2500], [1000, 3000], uniform_bins(1000, 3000))
    >>> sqm_answers(p, [1000.0, 1500.0], 1e9, rng=0).round(3)
    array([2000., 5000.])
    """
    problem = check_problem(problem)
    epsilon = _check_noise_epsilon(problem, check_epsilon(epsilon))
    t = _taus(tau, ndim=(0, 1, 2)).reshape(np.shape(tau))
    taus = np.atleast_2d(np.broadcast_to(t, (problem.m,)) if t.ndim == 0 else t)
    if taus.shape[1] != problem.m:
        raise ValueError(f"tau must have one column per query ({problem.m}), got shape {t.shape}")
    out = _sqm(problem, taus, epsilon, as_generator(rng), taus.shape[0])
    return out if t.ndim == 2 else out[0]
