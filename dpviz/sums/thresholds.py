"""Choosing the truncation threshold ``tau``: by SVT, recursive-style, the NOT DP oracle, or none.

* ``"svt"``: the sparse vector technique walks an exponentially growing grid
  ``theta_k = start * growth^k`` (the domain's top edge closes the grid) and
  stops at the first ``theta`` whose count of records ``<= theta`` exceeds the
  fraction ``ratio`` of the data ([WPKM19]_ Sec. 3.1, [LSL17]_).
* ``"recursive"``: a log-scale Laplace estimate of the smooth bound
  ``S(D) = min_k theta_k exp(beta * #{w > theta_k})``, our specialisation to sums
  of the recursive mechanism's first stage ([CZ13]_, [WPKM19]_ App. A.5).
* ``"oracle"``: the exact ``ratio``-quantile of the data, **NOT differentially private**.
* ``"none"``: no truncation (``tau = inf``).

References
----------
.. [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
   Summation Queries for Numerical Attributes under Differential Privacy."
   TPDP 2019, arXiv:1908.10268.
.. [CZ13] S. Chen, S. Zhou. "Recursive Mechanism: Towards Node Differential
   Privacy and Unrestricted Joins." SIGMOD 2013.
.. [LSL17] M. Lyu, D. Su, N. Li. "Understanding the Sparse Vector Technique for
   Differential Privacy." PVLDB 10(6), 2017.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from dpviz.accountant import PrivacyAccountant, charge, check_accountant, exact
from dpviz.mechanisms import laplace_scale, scaled_laplace
from dpviz.rng import RngLike, as_generator
from dpviz.sums.options import NOT_DP, THRESHOLD_METHODS
from dpviz.sums.problem import SumProblem, check_problem
from dpviz.svt import ABOVE, sparse_vector, svt_noise_scales
from dpviz.validation import (
    MAX_ELEMENTS,
    check_choice,
    check_elements,
    check_epsilon,
    check_positive,
    check_probability,
    check_trials,
)

__all__ = ["threshold_grid", "svt_threshold", "recursive_threshold", "oracle_threshold", "choose_threshold"]


def threshold_grid(start: float, growth: float, upper: float) -> npt.NDArray[np.float64]:
    """The candidate thresholds ``start * growth^k`` below ``upper``, then ``upper`` ([WPKM19] Sec. 3.1).

    Parameters
    ----------
    start : float
        First grid point (> 0).
    growth : float
        Growth rate between grid points (> 1).
    upper : float
        Last grid point, the top of the domain (> 0).

    Returns
    -------
    numpy.ndarray
        The increasing grid; just ``[upper]`` when ``start >= upper``.

    Raises
    ------
    ValueError
        If ``start`` or ``upper`` is not > 0, ``growth`` is not > 1, or the grid would hold more than
        :data:`dpviz.validation.MAX_ELEMENTS` points (``growth`` too close to 1).

    Examples
    --------
    >>> threshold_grid(1000, 2.0, 5000)
    array([1000., 2000., 4000., 5000.])
    """
    start = check_positive("start", start)
    growth = check_positive("growth", growth)
    if growth <= 1:
        raise ValueError(f"growth must be > 1 (thresholds must increase), got {growth}")
    upper = check_positive("upper", upper)
    if start >= upper:
        return np.array([upper])
    steps = math.log(upper / start) / math.log(growth)
    if steps + 1.0 > MAX_ELEMENTS:
        raise ValueError(f"growth={growth} is too close to 1: the grid from start={start} to upper={upper} would "
                         f"hold {steps + 1.0:.3g} points (the cap is {MAX_ELEMENTS}); use a larger growth or start")
    k = int(math.floor(steps + 1e-12))
    grid = start * growth ** np.arange(k + 1)
    grid = grid[grid < upper]
    return np.append(grid, upper)


def _counts_at(weights: np.ndarray, cum_count: np.ndarray, theta: np.ndarray) -> npt.NDArray[np.float64]:
    """#records whose bin weight is <= theta."""
    J = np.searchsorted(weights, theta, side="right")
    return np.where(J > 0, cum_count[np.maximum(J - 1, 0)], 0.0)


def _check_threshold_noise(method: str, epsilon: float, ratio: float, beta: float, name: str = "epsilon") -> None:
    """Refuse a threshold budget whose noise scale overflows float64, before anything is charged.

    The scales are those :func:`_svt_on` (SVT with sensitivity ``max(ratio, 1 - ratio)``) and
    :func:`_recursive_on` (``Lap(beta / epsilon)``) draw with; ``name`` is the caller's name for ``epsilon``.
    """
    try:
        if method == "svt":
            svt_noise_scales(epsilon, 1, sensitivity=_query_sensitivity(ratio))
        elif method == "recursive":
            laplace_scale(beta, epsilon)
    except ValueError as err:
        raise ValueError(f"{name}={epsilon!r} is too small for the {method} threshold's noise (ratio={ratio!r}, "
                         f"beta={beta!r}): {err}") from None


def _query_sensitivity(ratio: float) -> float:
    """``max(ratio, 1 - ratio)``, the sensitivity of the queries ``c(theta) - ratio * N``, rounded up to a double
    (``1 - 0.3`` rounds down in floating point; the queries use ``ratio``'s binary value)."""
    r = Fraction(ratio)
    if r >= Fraction(1, 2):
        return ratio                         # exact
    f = float(1 - r)
    while Fraction(f) < 1 - r:
        f = math.nextafter(f, math.inf)
    return f


def _svt_on(weights: np.ndarray, cum_count: np.ndarray, n_records: float, grid: np.ndarray, eps: float,
            ratio: float, gen: np.random.Generator, k: int) -> npt.NDArray[np.float64]:
    """k SVT thresholds on the bins ``weights`` with cumulative counts ``cum_count`` (no validation)."""
    q = _counts_at(weights, cum_count, grid) - ratio * n_records
    out = sparse_vector(q, 0.0, eps, c=1, sensitivity=_query_sensitivity(ratio), monotonic=False, rng=gen, size=k)
    above = out == ABOVE
    first = np.where(above.any(axis=1), above.argmax(axis=1), grid.size - 1)
    return grid[first]


def _log_smooth_bound(weights: np.ndarray, cum_count: np.ndarray, n_records: float, grid: np.ndarray,
                      beta: float) -> float:
    """``ln S(D) = min_k [ln theta_k + beta #{w > theta_k}]`` (sensitivity ``beta``)."""
    above = n_records - _counts_at(weights, cum_count, grid)
    return float(np.min(np.log(grid) + beta * above))


def _recursive_on(weights: np.ndarray, cum_count: np.ndarray, n_records: float, grid: np.ndarray, eps: float,
                  beta: float, gen: np.random.Generator, k: int) -> npt.NDArray[np.float64]:
    """k recursive-style thresholds: ``ln S`` plus ``Lap(beta / eps)``, rounded up to the grid (no validation)."""
    log_s = _log_smooth_bound(weights, cum_count, n_records, grid, beta)
    noisy = log_s + scaled_laplace(laplace_scale(beta, eps), k, rng=gen)
    pos = np.searchsorted(np.log(grid), noisy, side="left")       # first grid point >= the noisy bound
    return grid[np.minimum(pos, grid.size - 1)]


def _threshold_setup(problem: SumProblem, epsilon: float, start: float | None, growth: float, size: int | None,
                     accountant: PrivacyAccountant | None, rng: RngLike,
                     label: str, method: str, ratio: float = 0.5,
                     beta: float = 1.0) -> tuple[SumProblem, float, npt.NDArray[np.float64], int, np.random.Generator]:
    """Validate a threshold choice's inputs (its noise scale too), build the public grid, and charge its k runs."""
    problem = check_problem(problem)
    epsilon = check_epsilon(epsilon)
    _check_threshold_noise(method, epsilon, ratio, beta)
    size = check_trials(size)
    k = 1 if size is None else size
    check_elements(float(k), "thresholds", size=size)
    v = problem.weights
    grid = threshold_grid(v[0] if start is None else start, growth, v[-1])
    check_elements(float(k) * grid.size, "SVT answers (runs x grid points)", size=size, growth=growth)
    gen = as_generator(rng)
    charge(accountant, exact("epsilon", epsilon), size=size, label=label)  # after every check, before any noise
    return problem, epsilon, grid, k, gen


def svt_threshold(problem: SumProblem, epsilon: float, *, ratio: float = 0.95, start: float | None = None,
                  growth: float = 1.1, accountant: PrivacyAccountant | None = None, rng: RngLike = None,
                  size: int | None = None) -> npt.NDArray[np.float64] | float:
    """Choose a truncation threshold with the sparse vector technique ([WPKM19] Sec. 3.1, Alg. 2).

    Walks the grid ``theta_k`` of :func:`threshold_grid` (``start`` defaults to the
    first bin weight, the grid ends at the top weight) and returns the first
    ``theta_k`` for which SVT ([LSL17] Alg. 1, ``c = 1``) reports
    ``#{w <= theta_k} - ratio * N >= 0``; if none does, the top weight (no
    truncation).  Adding or removing one record moves each query by at most
    ``max(ratio, 1 - ratio)``, its sensitivity, so the choice is epsilon-DP
    whatever N is (N need not be public).

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem.
    epsilon : float
        Budget of the threshold choice (``rho`` times the total in :func:`dpviz.sums.answer_prefix_sums`).
    ratio : float in (0, 1]
        Fraction ``p`` of the records that should not be truncated.
    start : float, optional
        First grid point (> 0); default the first bin weight.
    growth : float
        Growth rate of the grid (> 1).
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` (sequential composition of the runs, :func:`dpviz.accountant.charge`)
        before any noise is drawn.
    rng : None, int, SeedSequence or Generator
        Randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent runs; ``None`` for one run returned as a float.

    Returns
    -------
    float or numpy.ndarray of shape (size,)
        The chosen threshold(s), each a grid point.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem`.
    ValueError
        If ``epsilon`` is not > 0 (or so small that the SVT noise scale overflows; refused before any
        charge), ``ratio`` is outside (0, 1], the grid parameters are invalid or ``size`` is not a
        positive integer.
    dpviz.accountant.BudgetExceededError
        If the accountant cannot pay for the runs.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare(np.arange(1, 1001) * 100.0, [50_000, 100_000], uniform_bins(1000, 100_000))
    >>> round(float(svt_threshold(p, 10.0, ratio=0.5, growth=1.1, rng=0)))  # first 1000 * 1.1^k above the median
    54764
    """
    ratio = check_probability("ratio", ratio)
    problem, epsilon, grid, k, gen = _threshold_setup(problem, epsilon, start, growth, size, accountant, rng,
                                                      "sum queries: truncation threshold by SVT", "svt", ratio=ratio)
    taus = _svt_on(problem.weights, problem._cum_count, problem.size, grid, epsilon, ratio, gen, k)
    return float(taus[0]) if size is None else taus


def recursive_threshold(problem: SumProblem, epsilon: float, *, beta: float = 1e-3, start: float | None = None,
                        growth: float = 1.1, accountant: PrivacyAccountant | None = None, rng: RngLike = None,
                        size: int | None = None) -> npt.NDArray[np.float64] | float:
    """Choose a truncation threshold the recursive-mechanism way, specialised to sums.

    For sums, the answer stage of the recursive mechanism [CZ13] with internal
    threshold ``Delta`` equals truncation at ``tau = Delta`` ([WPKM19] App. A.5,
    Theorem 1).  Its first stage picks ``Delta`` by trading the bias of a small
    ``Delta`` against its noise with a parameter ``beta``.  Our version (a
    specialisation written for dpviz, not a transcription of [CZ13]):

        ``ln S(D) = min_k [ ln theta_k + beta * #{w > theta_k} ]``,
        ``tau = round_up_to_grid( exp(ln S(D) + Lap(beta / epsilon)) )``.

    Adding or removing one record changes every count ``#{w > theta_k}`` by at
    most 1 in the same direction, so ``ln S`` has sensitivity ``beta`` and the
    Laplace step is epsilon-DP; rounding up to the public grid ``theta_k`` (capped
    at the top weight) is post-processing.  Larger ``beta`` penalises truncated
    records more: larger tau, less bias, more noise.

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem.
    epsilon : float
        Budget of the threshold choice.
    beta : float
        Bias/variance trade-off (> 0), per record.
    start : float, optional
        First grid point (> 0); default the first bin weight.
    growth : float
        Growth rate of the grid (> 1).
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` (sequential composition of the runs, :func:`dpviz.accountant.charge`)
        before any noise is drawn.
    rng : None, int, SeedSequence or Generator
        Randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent runs; ``None`` for one run returned as a float.

    Returns
    -------
    float or numpy.ndarray of shape (size,)
        The chosen threshold(s), each a grid point.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem`.
    ValueError
        If ``epsilon`` or ``beta`` is not > 0 (or ``beta / epsilon`` overflows; refused before any
        charge), the grid parameters are invalid or ``size`` is not a positive integer.
    dpviz.accountant.BudgetExceededError
        If the accountant cannot pay for the runs.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare(np.arange(1, 1001) * 100.0, [50_000, 100_000], uniform_bins(1000, 100_000))
    >>> recursive_threshold(p, 1.0, beta=0.01, growth=2.0, rng=0, size=3)
    array([100000., 100000., 100000.])
    """
    beta = check_positive("beta", beta)
    problem, epsilon, grid, k, gen = _threshold_setup(problem, epsilon, start, growth, size, accountant, rng,
                                                      "sum queries: truncation threshold (recursive-style)",
                                                      "recursive", beta=beta)
    taus = _recursive_on(problem.weights, problem._cum_count, problem.size, grid, epsilon, beta, gen, k)
    return float(taus[0]) if size is None else taus


def oracle_threshold(problem: SumProblem, ratio: float = 0.95) -> float:
    """The exact ``ratio``-quantile of the (vectorised) values: the smallest weight with ``#{w <= v_j} >= ratio N``.

    **NOT differentially private**: it reads the data directly.  A teaching
    baseline for what a perfectly informed threshold achieves.

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem.
    ratio : float in (0, 1]
        Fraction of the records that stay untruncated.

    Returns
    -------
    float
        A bin weight.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem`.
    ValueError
        If ``ratio`` is outside (0, 1].

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare(np.arange(1, 1001) * 100.0, [100_000], uniform_bins(1000, 100_000))
    >>> oracle_threshold(p, 0.5)
    50000.0
    """
    problem = check_problem(problem)
    ratio = check_probability("ratio", ratio)
    j = int(np.searchsorted(problem._cum_count, ratio * problem.size - 1e-9, side="left"))
    return float(problem.weights[min(j, problem.n - 1)])


def choose_threshold(problem: SumProblem, epsilon: float, method: str = "svt", *, ratio: float = 0.95,
                     beta: float = 1e-3, start: float | None = None, growth: float = 1.1,
                     accountant: PrivacyAccountant | None = None, rng: RngLike = None,
                     size: int | None = None) -> npt.NDArray[np.float64] | float:
    """One truncation threshold per trial by ``method`` ("svt", "recursive", "oracle" (NOT DP) or "none" -> inf).

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem.
    epsilon : float
        The threshold's own budget (> 0; checked for every method though "oracle" and "none" do not use it).
    method : {"svt", "recursive", "oracle", "none"}
        See :func:`svt_threshold`, :func:`recursive_threshold` and :func:`oracle_threshold`.
    ratio : float in (0, 1]
        Untruncated fraction for "svt" and "oracle".
    beta : float
        Trade-off of "recursive" (> 0).
    start : float, optional
        First grid point (default the first bin weight).
    growth : float
        Growth rate of the grid (> 1).
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` by "svt" and "recursive" (via :func:`dpviz.accountant.charge`) before any
        noise is drawn; "none" reads no data and charges nothing; "oracle" (NOT DP) refuses an accountant.
    rng : None, int, SeedSequence or Generator
        Randomness of the private methods.
    size : int, optional
        Number of independent runs; ``None`` for one run returned as a float.

    Returns
    -------
    float or numpy.ndarray of shape (size,)
        The threshold(s); ``inf`` for "none".

    Raises
    ------
    ValueError
        For an unknown ``method``, an invalid parameter (checked whichever method runs), or an
        accountant with ``method="oracle"`` (not DP: no ledger can record it).
    TypeError
        If ``problem`` is not a :class:`SumProblem` or ``accountant`` not a PrivacyAccountant.
    dpviz.accountant.BudgetExceededError
        If the accountant cannot pay for the runs (nothing is recorded then).

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare(np.arange(1, 1001) * 100.0, [100_000], uniform_bins(1000, 100_000))
    >>> choose_threshold(p, 1.0, "none", size=2)
    array([inf, inf])
    """
    method = check_choice("method", method, THRESHOLD_METHODS)
    # every argument is checked whichever method runs, so a typo is never ignored silently
    problem = check_problem(problem)
    epsilon = check_epsilon(epsilon)
    ratio = check_probability("ratio", ratio)
    beta = check_positive("beta", beta)
    threshold_grid(problem.weights[0] if start is None else start, growth, problem.weights[-1])
    acc = check_accountant(accountant)
    gen = as_generator(rng)
    size = check_trials(size)
    check_elements(float(1 if size is None else size), "thresholds", size=size)
    if method == "oracle" and acc is not None:
        raise ValueError(f"method='oracle' reads the true quantile without noise: it is {NOT_DP}, so no "
                         "accountant can record it; pass accountant=None (teaching only)")
    if method == "svt":
        return svt_threshold(problem, epsilon, ratio=ratio, start=start, growth=growth, accountant=acc,
                             rng=gen, size=size)
    if method == "recursive":
        return recursive_threshold(problem, epsilon, beta=beta, start=start, growth=growth, accountant=acc,
                                   rng=gen, size=size)
    tau = oracle_threshold(problem, ratio) if method == "oracle" else math.inf  # reads nothing private: no charge
    return tau if size is None else np.full(size, tau)
