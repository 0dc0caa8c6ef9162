"""Prefix-sum queries over a numeric attribute, with truncation: SQM, Identity, Workload, TiMM and TaMM.

**Vectorisation.**  Records with values ``w >= 0`` (incomes, in dollars) are
put into ``n`` ordered bins with public upper edges ``b_1 < ... < b_n``: a
record goes to the first bin with ``w <= b_j``.  ``x_j`` counts the records
in bin j and the bin's *weight* is its upper edge, ``v_j = b_j``.  A prefix-sum
query with threshold ``t = b_{k}`` asks for the total of all values at most
``t``; on the vector form it is ``sum_{j <= k} v_j x_j``.  Stacking ``m``
such queries gives the 0-1 *prefix workload* ``W_s`` (m x n, row i has ones
in the bins up to threshold ``t_i``) and the answers ``W_s diag(v) x``
([WPKM19]_ Sec. 2).

**Truncation.**  At threshold ``tau`` every weight above ``tau`` becomes
``tau``: ``v^tau_j = min(v_j, tau)``.  One record then moves any truncated
prefix sum by at most ``tau`` instead of ``max_j v_j``, at the price of the
exact, data-dependent *bias*

    ``E[answer_i] - W_s diag(v) x = -sum_{j <= k_i} (v_j - tau)_+ x_j``

(:func:`truncation_bias`) ([WPKM19]_ Sec. 3.1).

**Choosing tau privately** with a share ``rho`` of epsilon ([WPKM19]_ Sec. 3.1, 3.2):

* ``"svt"``: the sparse vector technique walks an exponentially growing grid
  ``theta_k = start * growth^k`` (the domain's top edge closes the grid) and
  stops at the first ``theta`` whose count of records ``<= theta`` exceeds the
  fraction ``ratio`` of the data.  We ask SVT the queries
  ``c(theta) - ratio * N`` against threshold 0; each has sensitivity
  ``max(ratio, 1 - ratio) <= 1`` under adding/removing one record, so the data
  size ``N`` need not be public (:func:`svt_threshold`).
* ``"recursive"``: by the seed's Theorem 1 the answer stage of the recursive
  mechanism [CZ13]_ applied to a sum *is* truncation at its internal threshold
  ``Delta``; only the way ``Delta`` is chosen differs.  We choose it with a
  log-scale Laplace estimate of the smooth bound
  ``S(D) = min_k theta_k exp(beta * #{w > theta_k})`` (our specialisation to
  sums; ``ln S`` has sensitivity ``beta``, see :func:`recursive_threshold`).
* ``"oracle"``: the exact ``ratio``-quantile of the data, **NOT
  differentially private** (a teaching baseline).
* ``"none"``: no truncation (``tau = inf``), the whole budget goes to the answers.

**The five algorithms** of [WPKM19]_ Table 1, each given the same ``tau`` per
trial (the seed's Algorithm 9), with ``eps' = (1 - rho) eps`` (or ``eps``
without a private threshold):

=========  =========================================================================
SQM        each of the m queries separately with budget ``eps/m``: its own threshold
           (on the records it covers) and Laplace noise of scale ``min(tau_i, t_i) m / eps'``
Identity   ``W_s diag(v^tau) (x + Lap(1/eps')^n)``
Workload   ``W_s diag(v^tau) x + Lap(Delta/eps')^m``,  ``Delta = ||W_s diag(v^tau)||_1``
           (largest column L1 norm)
TiMM       matrix mechanism on the weighted counts ``diag(v^tau) x`` with the strategy
           ``A = GreedyH(W_s)`` (chosen without looking at the truncation)
TaMM       matrix mechanism on the counts ``x`` with ``A = GreedyH(W_s diag(v^tau))``
=========  =========================================================================

Both TiMM and TaMM are the matrix mechanism for the workload ``W_s diag(v^tau)``
on ``x``: TiMM with strategy ``A diag(v^tau)`` (sensitivity
``max_j v^tau_j ||A e_j||_1``, least squares ``diag(v^tau)^{-1} A^+``), TaMM with
the strategy GreedyH picks for the weighted workload.  Isotonic regression
(prefix sums of non-negative values never decrease) is optional
post-processing (:func:`isotonic`).  Errors are reported as the seed's relative
error ``|y^ - y| / max(y, delta)`` (:func:`relative_error`).

References
----------
.. [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
   Summation Queries for Numerical Attributes under Differential Privacy."
   TPDP 2019, arXiv:1908.10268.
.. [CZ13] S. Chen, S. Zhou. "Recursive Mechanism: Towards Node Differential
   Privacy and Unrestricted Joins." SIGMOD 2013.
.. [LSL17] M. Lyu, D. Su, N. Li. "Understanding the Sparse Vector Technique for
   Differential Privacy." PVLDB 10(6), 2017.
.. [LMHMR15] C. Li, G. Miklau, M. Hay, A. McGregor, V. Rastogi. "The matrix
   mechanism: optimizing linear counting queries under differential privacy."
   VLDB Journal 24(6), 2015.
.. [HRMS10] M. Hay, V. Rastogi, G. Miklau, D. Suciu. "Boosting the accuracy of
   differentially private histograms through consistency." PVLDB 3(1), 2010.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp
from scipy.optimize import isotonic_regression

from dpviz.accountant import PrivacyAccountant, check_accountant, exact
from dpviz.rng import RngLike, as_generator
from dpviz.svt import ABOVE, sparse_vector
from dpviz.validation import (
    check_array,
    check_bool,
    check_choice,
    check_epsilon,
    check_int,
    check_open_unit,
    check_positive,
    check_probability,
    check_trials,
)

__all__ = [
    "ALGORITHMS", "THRESHOLD_METHODS", "NOT_DP",
    "uniform_bins", "cps_income_bins", "cps_thresholds", "vectorize", "prefix_workload", "weighted_workload",
    "truncate_weights",
    "SumProblem", "prepare", "truncated_prefix_sums", "truncation_bias", "workload_sensitivity", "prefix_gram",
    "threshold_grid", "svt_threshold", "recursive_threshold", "oracle_threshold", "choose_threshold",
    "answer_with_threshold", "precompute_strategies", "SumRelease", "release", "answer_prefix_sums", "isotonic",
    "relative_error",
    "expected_variance", "expected_squared_error", "split_budget",
]

#: The algorithms of [WPKM19]_ Table 1.
ALGORITHMS = ("sqm", "identity", "workload", "timm", "tamm")
#: Ways to choose the truncation threshold.
THRESHOLD_METHODS = ("svt", "recursive", "oracle", "none")
#: Label carried by everything that uses the non-private oracle threshold.
NOT_DP = "NOT differentially private"


# =========================================================================== vectorisation
def uniform_bins(width: float, upper: float) -> np.ndarray:
    """Upper edges ``width, 2 width, ..., upper`` of equal-width bins covering ``(0, upper]``.

    ``upper`` must be a whole multiple of ``width`` (so no bin is cut short).

    Examples
    --------
    >>> uniform_bins(1000, 5000)
    array([1000., 2000., 3000., 4000., 5000.])
    """
    width = check_positive("width", width)
    upper = check_positive("upper", upper)
    n = upper / width
    if abs(n - round(n)) > 1e-9 * n or round(n) < 1:
        raise ValueError(f"upper must be a positive whole multiple of width={width}, got upper={upper}")
    return width * np.arange(1, int(round(n)) + 1, dtype=float)


def cps_income_bins() -> np.ndarray:
    """The bins dpviz uses for CPS incomes: 1,000 bins of $1,000 covering ``($0, $1,000,000]``.

    The domain is public and fixed before looking at the data: the seed's
    Example 1 asks prefix sums "up to $1M" and ektelo's CPS configuration uses
    the income domain [0, 1e6].  The shipped extract's incomes run from $1 to
    $493,356, so every record falls in a bin and the bins above $494,000 are
    empty (which is exactly where untruncated noise is wasted).  Each record's
    weight is the upper edge of its bin (its income rounded up to the next $1,000).
    """
    return uniform_bins(1000.0, 1_000_000.0)


def cps_thresholds(m: int) -> np.ndarray:
    """``m`` evenly spaced prefix-sum thresholds on :func:`cps_income_bins` (m must divide 1000).

    ``m = 1000``: every bin (the lower-triangular workload); ``m = 100``: every
    $10,000 (the seed's Example 1 workload "$10k, $20k, ..., $1M"); ``m = 10``: every $100,000.
    """
    bins = cps_income_bins()
    m = check_int("m", m, minimum=1, maximum=bins.size)
    if bins.size % m:
        raise ValueError(f"m must divide {bins.size}, got {m}")
    step = bins.size // m
    return bins[step - 1::step].copy()


def _check_bins(bins) -> np.ndarray:
    bins = check_array("bins", bins, ndim=1)
    if bins.size == 0:
        raise ValueError("bins must hold at least one upper edge")
    if bins[0] <= 0:
        raise ValueError(f"bins (upper edges = bin weights) must be > 0, got bins[0]={bins[0]}")
    if np.any(np.diff(bins) <= 0):
        i = int(np.flatnonzero(np.diff(bins) <= 0)[0])
        raise ValueError(f"bins must be strictly increasing, got bins[{i}]={bins[i]} >= bins[{i + 1}]={bins[i + 1]}")
    return bins


def vectorize(values, bins) -> np.ndarray:
    """Counts ``x`` of the records per bin: ``x_j = #{w : b_{j-1} < w <= b_j}`` (with ``b_0 = -inf``).

    Parameters
    ----------
    values : array_like, shape (N,)
        The records' values, each in ``[0, bins[-1]]``.
    bins : array_like, shape (n,)
        Strictly increasing, positive upper edges (they are also the bin weights).

    Returns
    -------
    numpy.ndarray, shape (n,)
        Counts as float64.

    Raises
    ------
    ValueError
        For a negative value or one above the top edge (never clipped).

    Examples
    --------
    >>> vectorize([1, 1000, 1001, 2500], uniform_bins(1000, 3000))
    array([2., 1., 1.])
    """
    bins = _check_bins(bins)
    values = check_array("values", values, ndim=1)
    if values.size and values.min() < 0:
        raise ValueError(f"values must be non-negative (sums are truncated from above), got {values.min()}")
    if values.size and values.max() > bins[-1]:
        raise ValueError(f"values must be <= the top bin edge {bins[-1]}, got {values.max()}; widen the bins "
                         "(values are never clipped)")
    idx = np.searchsorted(bins, values, side="left")
    return np.bincount(idx, minlength=bins.size).astype(float)


def _threshold_indices(bins: np.ndarray, thresholds) -> np.ndarray:
    t = check_array("thresholds", thresholds, ndim=1)
    if t.size == 0:
        raise ValueError("thresholds must hold at least one query threshold")
    if np.any(np.diff(t) <= 0):
        raise ValueError("thresholds must be strictly increasing")
    idx = np.searchsorted(bins, t)
    ok = (idx < bins.size) & (bins[np.minimum(idx, bins.size - 1)] == t)
    if not np.all(ok):
        bad = t[~ok][0]
        raise ValueError(f"thresholds must be bin edges (values in bins), got {bad}")
    return idx


def prefix_workload(bins, thresholds) -> sp.csr_array:
    """The prefix workload ``W_s`` (m x n, 0/1): row i selects the bins with upper edge ``<= thresholds[i]``.

    ``W_s diag(v) x`` are the prefix sums ([WPKM19]_ Sec. 2, "workload matrix").

    Examples
    --------
    >>> prefix_workload([1, 2, 3], [1, 3]).toarray()
    array([[1., 0., 0.],
           [1., 1., 1.]])
    """
    bins = _check_bins(bins)
    idx = _threshold_indices(bins, thresholds)
    rows = np.repeat(np.arange(idx.size), idx + 1)
    cols = np.concatenate([np.arange(k + 1) for k in idx])
    return sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(idx.size, bins.size))


def weighted_workload(workload, weights) -> sp.csr_array:
    """``W diag(v)``: the workload whose answers on the counts are the sums ([WPKM19]_ "weighted workload")."""
    v = check_array("weights", weights, ndim=1)
    W = sp.csr_array(workload)
    if W.shape[1] != v.size:
        raise ValueError(f"weights must have one entry per column of workload ({W.shape[1]}), got {v.size}")
    return sp.csr_array(W @ sp.diags_array(v))


def truncate_weights(weights, tau) -> np.ndarray:
    """Truncated weights ``v^tau = min(v, tau)`` (shape (n,) for scalar tau, (k, n) for k thresholds).

    ``tau = inf`` leaves the weights unchanged.

    Examples
    --------
    >>> truncate_weights([1.0, 5.0, 9.0], 4.0)
    array([1., 4., 4.])
    """
    v = check_array("weights", weights, ndim=1)
    t = check_array("tau", tau, ndim=(0, 1), finite=False)
    if np.any(np.isnan(t)) or np.any(t <= 0):
        raise ValueError("tau must be > 0 (inf = no truncation)")
    return np.minimum(v, t[..., None]) if t.ndim else np.minimum(v, float(t))


# =========================================================================== the problem
@dataclass(frozen=True)
class SumProblem:
    """A vectorised prefix-sum problem: counts, bin weights and query thresholds.

    Attributes
    ----------
    counts : (n,) records per bin, ``x``
    weights : (n,) bin weights = upper edges, ``v``
    thresholds : (m,) query thresholds (a subset of the bin edges)
    index : (m,) bin index of each threshold (query i covers bins ``0..index[i]``)
    workload : sparse (m, n) prefix workload ``W_s``
    truth : (m,) true prefix sums ``W_s diag(v) x``
    """

    counts: np.ndarray
    weights: np.ndarray
    thresholds: np.ndarray
    index: np.ndarray
    workload: sp.csr_array
    truth: np.ndarray
    _cum_count: np.ndarray = field(repr=False, compare=False)
    _cum_sum: np.ndarray = field(repr=False, compare=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n(self) -> int:
        """Number of bins."""
        return int(self.counts.size)

    @property
    def m(self) -> int:
        """Number of queries."""
        return int(self.thresholds.size)

    @property
    def size(self) -> float:
        """Number of records N (private: never used unnoised by the DP methods)."""
        return float(self._cum_count[-1])

    def column_counts(self) -> np.ndarray:
        """``c_j = #{queries containing bin j}``: the column sums of ``W_s``."""
        return (self.m - np.searchsorted(self.index, np.arange(self.n), side="left")).astype(float)


def prepare(values, thresholds, bins=None) -> SumProblem:
    """Vectorise records and set up the prefix-sum queries (see the module docstring).

    Parameters
    ----------
    values : array_like, shape (N,)
        Non-negative record values (e.g. CPS incomes).
    thresholds : array_like, shape (m,)
        Strictly increasing query thresholds; each must be a bin edge.
    bins : array_like, optional
        Bin upper edges (= weights); default :func:`cps_income_bins`.

    Returns
    -------
    SumProblem

    Examples
    --------
    >>> p = prepare([1, 1000, 1001, 2500], [1000, 3000], uniform_bins(1000, 3000))
    >>> p.truth
    array([2000., 7000.])
    """
    bins = cps_income_bins() if bins is None else _check_bins(bins)
    x = vectorize(values, bins)
    idx = _threshold_indices(bins, thresholds)
    W = prefix_workload(bins, bins[idx])
    cum_count = np.cumsum(x)
    cum_sum = np.cumsum(bins * x)
    return SumProblem(counts=x, weights=bins, thresholds=bins[idx].copy(), index=idx, workload=W,
                      truth=cum_sum[idx].copy(), _cum_count=cum_count, _cum_sum=cum_sum)


def _check_problem(problem) -> SumProblem:
    if not isinstance(problem, SumProblem):
        raise TypeError(f"problem must be a SumProblem (see dpviz.sums.prepare), got {type(problem).__name__}")
    return problem


def _taus(tau) -> np.ndarray:
    t = np.atleast_1d(np.asarray(tau, dtype=float))
    if t.ndim != 1 or np.any(np.isnan(t)) or np.any(t <= 0):
        raise ValueError("tau must be a positive number or a 1-D array of them (inf = no truncation)")
    return t


def truncated_prefix_sums(problem: SumProblem, tau) -> np.ndarray:
    """Noise-free truncated answers ``W_s diag(min(v, tau)) x``, shape (k, m) for k thresholds (or (m,)).

    Uses prefix sums: with ``J`` the number of bins whose weight is ``<= tau``,
    query i is ``P[min(k_i, J-1)] + tau (C[k_i] - C[min(k_i, J-1)])`` where ``P``
    and ``C`` are the cumulative weighted and plain counts.  ``tau`` may also be
    a (k, m) array holding one threshold per trial and query (SQM).
    """
    problem = _check_problem(problem)
    scalar = np.ndim(tau) == 0
    t = np.asarray(tau, dtype=float)
    if t.ndim == 2:
        if t.shape[1] != problem.m:
            raise ValueError(f"a 2-D tau must have one column per query ({problem.m}), got shape {t.shape}")
        if np.any(np.isnan(t)) or np.any(t <= 0):
            raise ValueError("tau must be > 0 (inf = no truncation)")
        T = t
    else:
        T = np.broadcast_to(_taus(tau)[:, None], (_taus(tau).size, problem.m))
    J = np.searchsorted(problem.weights, T, side="right")           # bins with v_j <= tau
    last = np.minimum(problem.index[None, :], J - 1)                 # (k, m), may be -1
    P = np.where(last >= 0, problem._cum_sum[np.maximum(last, 0)], 0.0)
    C = np.where(last >= 0, problem._cum_count[np.maximum(last, 0)], 0.0)
    tail = problem._cum_count[problem.index][None, :] - C
    out = P + np.where(np.isinf(T), 0.0, T) * tail                   # no tail when tau = inf
    return out[0] if scalar else out


def truncation_bias(problem: SumProblem, tau) -> np.ndarray:
    """Exact bias of truncation at ``tau``: ``-sum_{j <= k_i} (v_j - tau)_+ x_j`` per query ([WPKM19]_ Sec. 3.1).

    This is the expected error of every unbiased-noise algorithm (Identity,
    Workload, TiMM, TaMM without isotonic regression) given ``tau``.

    Examples
    --------
    >>> p = prepare([1, 1000, 1001, 2500], [1000, 3000], uniform_bins(1000, 3000))
    >>> truncation_bias(p, 1500.0).tolist()
    [0.0, -2000.0]
    """
    return truncated_prefix_sums(problem, tau) - _check_problem(problem).truth


def workload_sensitivity(problem: SumProblem, tau) -> np.ndarray:
    """L1 sensitivity ``max_j c_j min(v_j, tau)`` of the truncated weighted workload (Workload's noise scale x eps).

    ``c_j`` is the number of queries that contain bin j.  Shape (k,) for k thresholds (or scalar).
    """
    problem = _check_problem(problem)
    scalar = np.ndim(tau) == 0
    t = _taus(tau)
    cols = problem.column_counts()
    out = np.max(cols[None, :] * np.minimum(problem.weights[None, :], t[:, None]), axis=1)
    return float(out[0]) if scalar else out


# =========================================================================== budget
def split_budget(epsilon: float, rho: float, truncation: str) -> tuple[Fraction, Fraction]:
    """Exact split ``(eps_threshold, eps_answers)`` of epsilon ([WPKM19]_ Sec. 3.2).

    ``rho * eps`` goes to a private threshold choice ("svt", "recursive") and the
    rest to the answers; "oracle" (not DP) and "none" spend nothing on the threshold.
    """
    eps = exact("epsilon", check_epsilon(epsilon))
    check_choice("truncation", truncation, THRESHOLD_METHODS)
    if truncation in ("svt", "recursive"):
        r = exact("rho", check_open_unit("rho", rho))
        return eps * r, eps - eps * r
    return Fraction(0), eps


# =========================================================================== thresholds
def threshold_grid(start: float, growth: float, upper: float) -> np.ndarray:
    """The SVT candidate thresholds ``start * growth^k`` below ``upper``, then ``upper`` ([WPKM19]_ Sec. 3.1).

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
    k = int(math.floor(math.log(upper / start) / math.log(growth) + 1e-12))
    grid = start * growth ** np.arange(k + 1)
    grid = grid[grid < upper]
    return np.append(grid, upper)


def _counts_at(weights: np.ndarray, cum_count: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """#records whose bin weight is <= theta."""
    J = np.searchsorted(weights, theta, side="right")
    return np.where(J > 0, cum_count[np.maximum(J - 1, 0)], 0.0)


def _svt_on(weights, cum_count, n_records, grid, eps, ratio, gen, k) -> np.ndarray:
    q = _counts_at(weights, cum_count, grid) - ratio * n_records
    out = sparse_vector(q, 0.0, eps, c=1, sensitivity=max(ratio, 1.0 - ratio), monotonic=False, rng=gen, size=k)
    above = out == ABOVE
    first = np.where(above.any(axis=1), above.argmax(axis=1), grid.size - 1)
    return grid[first]


def svt_threshold(problem: SumProblem, epsilon: float, *, ratio: float = 0.95, start: float | None = None,
                  growth: float = 1.1, accountant: PrivacyAccountant | None = None, rng: RngLike = None,
                  size: int | None = None) -> np.ndarray | float:
    """Choose a truncation threshold with the sparse vector technique ([WPKM19]_ Sec. 3.1, Alg. 2).

    Walks the grid ``theta_k`` of :func:`threshold_grid` (``start`` defaults to the
    first bin weight, the grid ends at the top weight) and returns the first
    ``theta_k`` for which SVT ([LSL17]_ Alg. 1, ``c = 1``) reports
    ``#{w <= theta_k} - ratio * N >= 0``; if none does, the top weight (no
    truncation).  Each query has sensitivity ``max(ratio, 1 - ratio)``, so the
    choice is epsilon-DP whatever N is.

    Parameters
    ----------
    problem : SumProblem
    epsilon : float
        Budget of the threshold choice (``rho`` times the total in :func:`answer_prefix_sums`).
    ratio : float in (0, 1]
        Fraction ``p`` of the records that should not be truncated.
    start, growth : float
        First grid point (> 0) and growth rate (> 1).
    accountant : PrivacyAccountant, optional
        Charged ``epsilon`` per run before any noise is drawn.
    rng, size
        Randomness and number of independent runs.

    Returns
    -------
    float or numpy.ndarray of shape (size,)

    Examples
    --------
    >>> p = prepare(np.arange(1, 1001) * 100.0, [50_000, 100_000], uniform_bins(1000, 100_000))
    >>> round(float(svt_threshold(p, 10.0, ratio=0.5, growth=1.1, rng=0)))  # first 1000 * 1.1^k above the median
    54764
    """
    ratio = check_probability("ratio", ratio)
    problem, epsilon, grid, k = _threshold_setup(problem, epsilon, start, growth, size, accountant,
                                                 "sum queries: truncation threshold by SVT")
    taus = _svt_on(problem.weights, problem._cum_count, problem.size, grid, epsilon, ratio, as_generator(rng), k)
    return float(taus[0]) if size is None else taus


def _threshold_setup(problem, epsilon, start, growth, size, accountant, label):
    """Validate a threshold choice's inputs, build the public grid, and charge its k runs to the accountant."""
    problem = _check_problem(problem)
    epsilon = check_epsilon(epsilon)
    size = check_trials(size)
    k = 1 if size is None else size
    v = problem.weights
    grid = threshold_grid(v[0] if start is None else start, growth, v[-1])
    if check_accountant(accountant) is not None:
        accountant.spend(k * Fraction(exact("epsilon", epsilon)), label=label + ("" if k == 1 else f" x{k} runs"))
    return problem, epsilon, grid, k


def _log_smooth_bound(weights, cum_count, n_records, grid, beta) -> float:
    above = n_records - _counts_at(weights, cum_count, grid)
    return float(np.min(np.log(grid) + beta * above))


def recursive_threshold(problem: SumProblem, epsilon: float, *, beta: float = 1e-3, start: float | None = None,
                        growth: float = 1.1, accountant: PrivacyAccountant | None = None, rng: RngLike = None,
                        size: int | None = None) -> np.ndarray | float:
    """Choose a truncation threshold the recursive-mechanism way, specialised to sums.

    For sums, the answer stage of the recursive mechanism [CZ13]_ with internal
    threshold ``Delta`` equals truncation at ``tau = Delta`` ([WPKM19]_ App. A.5,
    Theorem 1).  Its first stage picks ``Delta`` by trading the bias of a small
    ``Delta`` against its noise with a parameter ``beta``.  Our version (a
    specialisation written for dpviz, not a transcription of [CZ13]_):

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
    epsilon : float
        Budget of the threshold choice.
    beta : float
        Bias/variance trade-off (> 0), per record.
    start, growth, accountant, rng, size
        As for :func:`svt_threshold`.

    Returns
    -------
    float or numpy.ndarray of shape (size,)
    """
    beta = check_positive("beta", beta)
    problem, epsilon, grid, k = _threshold_setup(problem, epsilon, start, growth, size, accountant,
                                                 "sum queries: truncation threshold (recursive-style)")
    taus = _recursive_on(problem.weights, problem._cum_count, problem.size, grid, epsilon, beta, as_generator(rng), k)
    return float(taus[0]) if size is None else taus


def _recursive_on(weights, cum_count, n_records, grid, eps, beta, gen, k) -> np.ndarray:
    log_s = _log_smooth_bound(weights, cum_count, n_records, grid, beta)
    noisy = log_s + gen.laplace(0.0, beta / eps, size=k)
    pos = np.searchsorted(np.log(grid), noisy, side="left")       # first grid point >= the noisy bound
    return grid[np.minimum(pos, grid.size - 1)]


def oracle_threshold(problem: SumProblem, ratio: float = 0.95) -> float:
    """The exact ``ratio``-quantile of the (vectorised) values: the smallest weight with ``#{w <= v_j} >= ratio N``.

    **NOT differentially private**: it reads the data directly.  A teaching
    baseline for what a perfectly informed threshold achieves.
    """
    problem = _check_problem(problem)
    ratio = check_probability("ratio", ratio)
    j = int(np.searchsorted(problem._cum_count, ratio * problem.size - 1e-9, side="left"))
    return float(problem.weights[min(j, problem.n - 1)])


def choose_threshold(problem: SumProblem, epsilon: float, method: str = "svt", *, ratio: float = 0.95,
                     beta: float = 1e-3, start: float | None = None, growth: float = 1.1,
                     accountant: PrivacyAccountant | None = None, rng: RngLike = None,
                     size: int | None = None) -> np.ndarray | float:
    """One truncation threshold per trial by ``method`` ("svt", "recursive", "oracle" (NOT DP) or "none" -> inf).

    ``epsilon`` is the threshold's own budget (ignored by "oracle" and "none").
    """
    method = check_choice("method", method, THRESHOLD_METHODS)
    size = check_trials(size)
    if method == "svt":
        return svt_threshold(problem, epsilon, ratio=ratio, start=start, growth=growth, accountant=accountant,
                             rng=rng, size=size)
    if method == "recursive":
        return recursive_threshold(problem, epsilon, beta=beta, start=start, growth=growth, accountant=accountant,
                                   rng=rng, size=size)
    tau = oracle_threshold(problem, ratio) if method == "oracle" else math.inf
    return tau if size is None else np.full(size, tau)


# =========================================================================== answering
def prefix_gram(problem: SumProblem, weights=None) -> np.ndarray:
    """Dense Gram matrix ``diag(v) W_s^T W_s diag(v)`` of the (weighted) prefix workload, in O(n^2).

    ``(W_s^T W_s)_{jl}`` counts the queries that contain both bins, which for
    prefixes is ``c_{max(j, l)}`` with ``c`` the column counts; no sparse product needed.
    """
    problem = _check_problem(problem)
    c = problem.column_counts()
    j = np.arange(problem.n)
    G = c[np.maximum(j[:, None], j[None, :])]
    if weights is not None:
        v = check_array("weights", weights, ndim=1)
        G = G * v[:, None] * v[None, :]
    return G


def _strategy(problem: SumProblem, algorithm: str, tau: float):
    """GreedyH strategy (cached per problem and tau): TiMM on ``W_s``, TaMM on ``W_s diag(v^tau)``."""
    from dpviz.strategies import greedy_h

    key = ("timm",) if algorithm == "timm" else ("tamm", tau)
    if key not in problem._cache:
        if algorithm == "timm":
            A = greedy_h(prefix_gram(problem), gram=True)
        else:
            A = greedy_h(prefix_gram(problem, truncate_weights(problem.weights, tau)), gram=True)
        problem._cache[key] = A
    return problem._cache[key]


def _mm_pair(problem: SumProblem, algorithm: str, tau: float):
    """(workload on x, factorised strategy on x) for TiMM / TaMM at one tau, cached per problem."""
    from dpviz.matrix_mechanism import LeastSquares
    from dpviz.workloads import from_matrix

    key = ("ls", algorithm, tau)
    if key not in problem._cache:
        vt = truncate_weights(problem.weights, tau)
        Wt = weighted_workload(problem.workload, vt)
        A = _strategy(problem, algorithm, tau)
        if algorithm == "timm":   # measure A on the weighted counts diag(v^tau) x
            A = sp.csr_array(sp.csr_array(A) @ sp.diags_array(vt)) if sp.issparse(A) else np.asarray(A) * vt[None, :]
        problem._cache[key] = (from_matrix(Wt, name=f"W_s diag(v^tau), tau={tau:g}"), LeastSquares(A))
    return problem._cache[key]


def precompute_strategies(problem: SumProblem, taus, algorithms=("timm", "tamm")) -> int:
    """Compute and cache the GreedyH strategies and least-squares factorisations for the given thresholds.

    TiMM and TaMM need one factorised strategy per distinct threshold (TaMM also
    one GreedyH run).  They are cached on ``problem``; calling this once for a
    public grid of thresholds (e.g. :func:`threshold_grid`) keeps later releases
    fast.  Uses no private data beyond what :func:`prepare` holds and releases nothing.
    Returns the number of (algorithm, threshold) pairs now cached.
    """
    problem = _check_problem(problem)
    t = np.unique(_taus(taus))
    algorithms = [check_choice("algorithm", a, ("timm", "tamm")) for a in algorithms]
    for a in algorithms:
        for tau in t:
            _, ls = _mm_pair(problem, a, float(tau))
            ls.estimate(np.zeros((2, ls.n_rows)))   # the first solve of a fresh factorisation is slow; do it now
    return len(algorithms) * t.size


def _sqm(problem, taus, eps_ans, gen, k) -> np.ndarray:
    """SQM answers given per-query thresholds taus (k, m) and the whole answer budget eps_ans."""
    m = problem.m
    clean = truncated_prefix_sums(problem, taus)
    sens = np.minimum(taus, problem.thresholds[None, :])          # max truncated weight in query i
    return clean + gen.laplace(0.0, 1.0, size=(k, m)) * sens * (m / eps_ans)


def _sqm_thresholds(problem, method, eps_thr_total, ratio, beta, start, growth, gen, k) -> np.ndarray:
    """Per-query thresholds (k, m) for SQM, each chosen on the records that query covers with eps/m."""
    m = problem.m
    out = np.empty((k, m))
    v = problem.weights
    for i in range(m):
        top = problem.index[i]
        if method in ("svt", "recursive"):
            grid = threshold_grid(v[0] if start is None else start, growth, v[top])
            sub_v, sub_c = v[:top + 1], problem._cum_count[:top + 1]
            if method == "svt":
                out[:, i] = _svt_on(sub_v, sub_c, sub_c[-1], grid, eps_thr_total / m, ratio, gen, k)
            else:
                out[:, i] = _recursive_on(sub_v, sub_c, sub_c[-1], grid, eps_thr_total / m, beta, gen, k)
        elif method == "oracle":
            c = problem._cum_count[:top + 1]
            j = int(np.searchsorted(c, ratio * c[-1] - 1e-9, side="left"))
            out[:, i] = v[min(j, top)]
        else:
            out[:, i] = math.inf
    return out


def answer_with_threshold(problem: SumProblem, algorithm: str, tau, epsilon: float, *,
                          rng: RngLike = None) -> np.ndarray:
    """Noisy answers of a batch algorithm given one threshold per trial (the seed's Algorithm 9).

    Parameters
    ----------
    problem : SumProblem
    algorithm : {"identity", "workload", "timm", "tamm"}
        See the module table.  (SQM chooses one threshold per query: use
        :func:`answer_prefix_sums`.)
    tau : float or array_like of shape (k,)
        Truncation threshold per trial (``inf``: none), already chosen (and paid for).
    epsilon : float
        Budget of the answering step, ``(1 - rho) eps`` after a private threshold.
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    numpy.ndarray, shape (k, m) (or (m,) for a scalar tau)

    Notes
    -----
    Noise scales ([WPKM19]_ Table 1, App. A.3-A.4): Identity ``Lap(1/eps)`` per
    count; Workload ``Lap(||W_s diag(v^tau)||_1 / eps)`` per query; TiMM and TaMM
    ``Lap(||A'||_1 / eps)`` per strategy query with least-squares reconstruction
    ([LMHMR15]_), ``A' = A diag(v^tau)`` for TiMM.
    """
    problem = _check_problem(problem)
    algorithm = check_choice("algorithm", algorithm, ("identity", "workload", "timm", "tamm"))
    epsilon = check_epsilon(epsilon)
    scalar = np.ndim(tau) == 0
    taus = _taus(tau)
    gen = as_generator(rng)
    k = taus.size
    clean = truncated_prefix_sums(problem, taus)
    if algorithm == "identity":
        vt = np.minimum(problem.weights[None, :], taus[:, None])
        noise = np.cumsum(vt * gen.laplace(0.0, 1.0 / epsilon, size=(k, problem.n)), axis=1)[:, problem.index]
        out = clean + noise
    elif algorithm == "workload":
        scale = workload_sensitivity(problem, taus) / epsilon
        out = clean + gen.laplace(0.0, 1.0, size=(k, problem.m)) * scale[:, None]
    else:
        from dpviz.matrix_mechanism import run

        out = np.empty((k, problem.m))
        for t in np.unique(taus):
            rows = np.flatnonzero(taus == t)
            Wt, A = _mm_pair(problem, algorithm, float(t))
            out[rows] = run(Wt, A, problem.counts, epsilon, rng=gen, size=rows.size).answers
    return out[0] if scalar else out


def isotonic(answers) -> np.ndarray:
    """Least-squares non-decreasing fit of each row (``scipy.optimize.isotonic_regression``) ([HRMS10]_).

    Prefix sums of non-negative values never decrease, so projecting noisy
    answers on that cone is free post-processing.

    Examples
    --------
    >>> isotonic([1.0, 3.0, 2.0, 4.0])
    array([1. , 2.5, 2.5, 4. ])
    """
    a = check_array("answers", answers, ndim=(1, 2))
    if a.ndim == 1:
        return isotonic_regression(a, increasing=True).x
    return np.vstack([isotonic_regression(row, increasing=True).x for row in a])


@dataclass(frozen=True)
class SumRelease:
    """Noisy prefix sums of one configuration.

    Attributes
    ----------
    answers : (k, m) or (m,) noisy answers
    tau : truncation thresholds: (k,) (batch algorithms) or (k, m) (SQM: one per query); ``inf`` = none
    truth : (m,) true prefix sums ``W_s diag(v) x``
    thresholds : (m,) query thresholds
    algorithm, truncation : the configuration
    epsilon, epsilon_threshold, epsilon_answers : total budget and its split (per trial)
    ratio, rho, isotonic : parameters
    private : False when the oracle threshold was used (NOT differentially private)
    """

    answers: np.ndarray
    tau: np.ndarray
    truth: np.ndarray
    thresholds: np.ndarray
    algorithm: str
    truncation: str
    epsilon: float
    epsilon_threshold: float
    epsilon_answers: float
    ratio: float
    rho: float
    isotonic: bool
    private: bool

    @property
    def label(self) -> str:
        """Short description, e.g. ``"TaMM, SVT threshold, isotonic"`` (flags the NOT DP oracle)."""
        t = {"svt": "SVT threshold", "recursive": "recursive threshold", "none": "no truncation",
             "oracle": f"oracle threshold ({NOT_DP})"}[self.truncation]
        return f"{_NAMES[self.algorithm]}, {t}" + (", isotonic" if self.isotonic else "")


_NAMES = {"sqm": "SQM", "identity": "Identity", "workload": "Workload", "timm": "TiMM", "tamm": "TaMM"}


def release(problem: SumProblem, epsilon: float, *, algorithm: str = "tamm", truncation: str = "svt",
            ratio: float = 0.95, rho: float = 0.1, isotonic: bool = True, beta: float = 1e-3,
            start: float | None = None, growth: float = 1.1, accountant: PrivacyAccountant | None = None,
            rng: RngLike = None, size: int | None = None) -> SumRelease:
    """:func:`answer_prefix_sums` on an already vectorised :class:`SumProblem`."""
    problem = _check_problem(problem)
    algorithm = check_choice("algorithm", algorithm, ALGORITHMS)
    truncation = check_choice("truncation", truncation, THRESHOLD_METHODS)
    epsilon = check_epsilon(epsilon)
    ratio = check_probability("ratio", ratio)
    rho = check_open_unit("rho", rho)
    beta = check_positive("beta", beta)
    check_bool("isotonic", isotonic)
    size = check_trials(size)
    k = 1 if size is None else size
    eps_thr, eps_ans = split_budget(epsilon, rho, truncation)
    threshold_grid(problem.weights[0] if start is None else start, growth, problem.weights[-1])  # validate early
    if check_accountant(accountant) is not None:
        if truncation == "oracle":
            raise ValueError("truncation='oracle' reads the true quantile without noise: the release is "
                             f"{NOT_DP}, so no accountant can record it; pass accountant=None (teaching only)")
        total = k * (eps_thr + eps_ans)
        if not accountant.can_spend(total):
            accountant.spend(total, label="sum queries (refused)")  # raises BudgetExceededError, records nothing
        runs = "" if k == 1 else f" x{k} runs"
        if eps_thr > 0:
            accountant.spend(k * eps_thr, label=f"sum queries: {truncation} threshold(s) for {_NAMES[algorithm]}{runs}")
        accountant.spend(k * eps_ans, label=f"sum queries: {_NAMES[algorithm]} answers{runs}")
    gen = as_generator(rng)
    if algorithm == "sqm":
        taus = _sqm_thresholds(problem, truncation, float(eps_thr), ratio, beta, start, growth, gen, k)
        answers = _sqm(problem, taus, float(eps_ans), gen, k)
    else:
        if truncation == "svt":
            taus = _svt_on(problem.weights, problem._cum_count, problem.size,
                           threshold_grid(problem.weights[0] if start is None else start, growth, problem.weights[-1]),
                           float(eps_thr), ratio, gen, k)
        elif truncation == "recursive":
            taus = _recursive_on(problem.weights, problem._cum_count, problem.size,
                                 threshold_grid(problem.weights[0] if start is None else start, growth,
                                                problem.weights[-1]), float(eps_thr), beta, gen, k)
        else:
            taus = choose_threshold(problem, 1.0, truncation, ratio=ratio, size=k)
        answers = answer_with_threshold(problem, algorithm, taus, float(eps_ans), rng=gen)
    if isotonic:
        answers = globals()["isotonic"](answers)
    if size is None:
        answers, taus = answers[0], taus[0]
    return SumRelease(answers=answers, tau=taus, truth=problem.truth.copy(), thresholds=problem.thresholds.copy(),
                      algorithm=algorithm, truncation=truncation, epsilon=epsilon, epsilon_threshold=float(eps_thr),
                      epsilon_answers=float(eps_ans), ratio=ratio, rho=rho, isotonic=bool(isotonic),
                      private=truncation != "oracle")


def answer_prefix_sums(values, thresholds, epsilon: float, *, bins=None, algorithm: str = "tamm",
                       truncation: str = "svt", ratio: float = 0.95, rho: float = 0.1, isotonic: bool = True,
                       beta: float = 1e-3, start: float | None = None, growth: float = 1.1,
                       accountant: PrivacyAccountant | None = None, rng: RngLike = None,
                       size: int | None = None) -> SumRelease:
    """Answer prefix-sum queries over a numeric attribute under epsilon-DP, any configuration in one call.

    Vectorises ``values`` into ``bins`` (:func:`prepare`), chooses a truncation
    threshold with ``rho * epsilon`` (``truncation`` = "svt", "recursive"; "oracle"
    is NOT DP; "none" skips truncation and spends everything on the answers),
    answers with ``algorithm`` (SQM, Identity, Workload, TiMM, TaMM of
    [WPKM19]_ Table 1) using the rest, and optionally applies isotonic regression.
    Per trial the release is epsilon-DP (except with the oracle): the threshold
    step and the answer step compose sequentially.

    Parameters
    ----------
    values : array_like, shape (N,)
        Non-negative record values (e.g. ``dpviz.datasets.load("CPS")``).
    thresholds : array_like, shape (m,)
        Strictly increasing query thresholds, each a bin edge: query i is the sum
        of all values ``<= thresholds[i]``.
    epsilon : float
        Total privacy budget per trial.
    bins : array_like, optional
        Bin upper edges (= weights); default :func:`cps_income_bins` ($1,000 bins up to $1,000,000).
    algorithm : {"sqm", "identity", "workload", "timm", "tamm"}
    truncation : {"svt", "recursive", "oracle", "none"}
    ratio : float in (0, 1]
        Truncation ratio p: the fraction of records SVT (and the oracle) keep untruncated.
    rho : float in (0, 1)
        Share of epsilon spent on choosing the threshold.
    isotonic : bool
        Apply isotonic regression to each trial's answers.
    beta : float
        Trade-off parameter of the "recursive" threshold (> 0).
    start, growth : float
        Threshold grid ``start * growth^k`` (default start: the first bin weight).
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` (threshold and answer steps as separate rows)
        before any noise is drawn.
    rng : None, int, SeedSequence or Generator
    size : int, optional
        Number of independent trials, stacked on a new first axis.

    Returns
    -------
    SumRelease

    Raises
    ------
    ValueError, TypeError
        For bad inputs: ratio outside (0, 1], rho outside (0, 1), negative values,
        unknown algorithm or truncation, thresholds that are not bin edges.

    Examples
    --------
    >>> r = answer_prefix_sums([5, 1500, 2500, 2900], [1000, 3000], 1.0, bins=uniform_bins(1000, 3000),
    ...                        algorithm="identity", truncation="none", isotonic=False, rng=0)
    >>> r.truth
    array([1000., 9000.])
    >>> r.answers.shape
    (2,)
    """
    problem = prepare(values, thresholds, bins)
    return release(problem, epsilon, algorithm=algorithm, truncation=truncation, ratio=ratio, rho=rho,
                   isotonic=isotonic, beta=beta, start=start, growth=growth, accountant=accountant, rng=rng,
                   size=size)


# =========================================================================== errors
def relative_error(answers, truth, delta: float = 1.0) -> np.ndarray:
    """The seed's relative error ``|y^ - y| / max(|y|, delta)`` per query ([WPKM19]_ Sec. 4, "Error").

    ``delta > 0`` keeps the ratio finite for answers near 0.

    Examples
    --------
    >>> relative_error([110.0, 0.5], [100.0, 0.0], delta=1.0)
    array([0.1, 0.5])
    """
    a = check_array("answers", answers, ndim=(1, 2))
    y = check_array("truth", truth, ndim=1)
    if a.shape[-1] != y.size:
        raise ValueError(f"truth must have one entry per query ({a.shape[-1]}), got {y.size}")
    delta = check_positive("delta", delta)
    return np.abs(a - y) / np.maximum(np.abs(y), delta)


def expected_variance(problem: SumProblem, algorithm: str, tau: float, epsilon: float) -> np.ndarray:
    """Variance of each noisy answer given ``tau`` (no isotonic regression), per query, shape (m,).

    * Identity: ``(2/eps^2) sum_{j <= k_i} min(v_j, tau)^2``
    * Workload: ``2 (||W_s diag(v^tau)||_1 / eps)^2``
    * SQM (one tau for every query): ``2 (m min(tau, t_i) / eps)^2``
    * TiMM / TaMM: the matrix mechanism's ``2 (||A||_1/eps)^2 ||(W A^+)_i||^2``
      (``dpviz.matrix_mechanism.expected_error``) ([WPKM19]_ App. A.3-A.4).

    ``epsilon`` is the answering budget.
    """
    problem = _check_problem(problem)
    algorithm = check_choice("algorithm", algorithm, ALGORITHMS)
    epsilon = check_epsilon(epsilon)
    tau = float(_taus(tau)[0]) if np.ndim(tau) == 0 else float(tau)
    vt = truncate_weights(problem.weights, tau)
    if algorithm == "identity":
        return 2.0 / epsilon ** 2 * np.cumsum(vt ** 2)[problem.index]
    if algorithm == "workload":
        return np.full(problem.m, 2.0 * (workload_sensitivity(problem, tau) / epsilon) ** 2)
    if algorithm == "sqm":
        return 2.0 * (problem.m * np.minimum(tau, problem.thresholds) / epsilon) ** 2
    from dpviz.matrix_mechanism import expected_error

    Wt, A = _mm_pair(problem, algorithm, tau)
    return np.asarray(expected_error(Wt, A, epsilon, per_query=True), dtype=float)


def expected_squared_error(problem: SumProblem, algorithm: str, tau: float, epsilon: float) -> np.ndarray:
    """Exact mean squared error per query given ``tau``, no isotonic regression: ``bias^2 + variance``.

    ``bias`` is :func:`truncation_bias` (SQM: the same tau for every query) and
    ``variance`` :func:`expected_variance`; ``epsilon`` is the answering budget.
    """
    return truncation_bias(problem, float(tau)) ** 2 + expected_variance(problem, algorithm, tau, epsilon)
