"""Data-aware mechanisms: spend part of the budget learning the data's shape, then measure.

Workload-aware mechanisms (identity, H_b, wavelet, GreedyH) add noise whose
distribution ignores the data.  Data-aware mechanisms privately *test* the data
first and adapt what they measure to it (the slides' "Approach 2"):

``uniform``
    The baseline of DPBench [HMMCZ16]_: one noisy total, spread evenly over the
    domain.  All of the error is approximation error: zero on uniform data.
``mwem``
    Multiplicative weights + exponential mechanism [HLM12]_: starting from the
    uniform histogram, repeatedly pick (privately) the workload query the
    current estimate answers worst, measure it with Laplace noise and reweight.
``private_partition`` and ``dawa``
    The two stages of DAWA [LHMW14]_: privately choose a partition of the domain
    into buckets whose counts are nearly uniform, then measure the bucket totals
    with a workload-friendly strategy, solve least squares and spread each
    bucket's estimate evenly over its cells.

**How this DAWA differs from the paper (on purpose, and stated wherever it shows).**
DAWA's efficient variant only considers buckets whose lengths are powers of 2.
Here the candidate buckets are the *aligned* dyadic intervals ``[j 2^l, (j+1) 2^l)``
of the domain padded to ``N = 2^ceil(log2 n)`` empty cells, so a partition is a
pruning of the binary tree over the domain and the search is O(n).  Instead of
adding Laplace noise to every candidate's cost and minimising (whose minimum is
biased towards many small buckets), the partition is *sampled* with the
exponential mechanism on the whole partition's cost ``sum_B dev(B) + lambda |P|``.
One record lies in exactly one bucket of any partition, so this cost has
sensitivity 2 (no ``log n`` factor), and because it is a sum over buckets the
sampling is exact by a sum-product recursion up the tree.

Every function here takes ``epsilon``, ``rng`` and an optional ``accountant``
and spends *exactly* ``epsilon``: the budget shares are computed as exact
fractions and each stage is charged, under its own label, before its noise is
drawn.  ``size=k`` runs k independent releases (for Monte Carlo error); the
accountant is charged once, as for one release.

References
----------
.. [HLM12] M. Hardt, K. Ligett, F. McSherry. "A Simple and Practical Algorithm
   for Differentially Private Data Release." NeurIPS 2012.
.. [LHMW14] C. Li, M. Hay, G. Miklau, Y. Wang. "A Data- and Workload-Aware
   Algorithm for Range Queries Under Differential Privacy." PVLDB 7(5), 2014.
.. [MT07] F. McSherry, K. Talwar. "Mechanism Design via Differential Privacy."
   FOCS 2007.
.. [HMMCZ16] M. Hay, A. Machanavajjhala, G. Miklau, Y. Chen, D. Zhang.
   "Principled Evaluation of Differentially Private Algorithms using DPBench."
   SIGMOD 2016.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sp

from dpviz.accountant import BudgetExceededError, check_accountant, exact
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_choice,
    check_counts,
    check_epsilon,
    check_int,
    check_matrix,
    check_nonnegative,
    check_open_unit,
    check_positive,
    check_trials,
)

__all__ = [
    "STRATEGIES",
    "Partition",
    "MWEMResult",
    "DAWAResult",
    "uniform",
    "mwem",
    "bucket_deviation",
    "dyadic_deviations",
    "default_bucket_penalty",
    "private_partition",
    "dawa",
]

#: Stage-2 strategies of :func:`dawa` for measuring the bucket totals.
STRATEGIES = ("hierarchical", "identity", "greedy_h")


# --------------------------------------------------------------------------- helpers
def _fraction(name: str, value: float) -> Fraction:
    """An exact budget amount (floats read as their shortest decimal, like the accountant)."""
    return exact(name, value)


def _reserve(accountant, epsilon: Fraction, what: str) -> None:
    """Refuse up front (recording nothing) if the whole run does not fit in the accountant's budget."""
    if check_accountant(accountant) is not None and not accountant.can_spend(epsilon):
        rem = accountant.remaining.epsilon
        raise BudgetExceededError(
            f"{what} needs epsilon={float(epsilon):.6g} but only {rem:.6g} remains; nothing was recorded")


def _charge(accountant, epsilon: Fraction, label: str) -> None:
    if accountant is not None:
        accountant.spend(epsilon, label=label)


class _Queries:
    """A workload as seen by MWEM: answers of many histograms and single rows, scaled to [-1, 1].

    Either half-open ranges ``[starts, stops)`` (answered by prefix sums) or a
    matrix (dense or sparse).  ``scale`` is the largest absolute coefficient;
    rows and answers are divided by it so every query has sensitivity 1.
    """

    def __init__(self, workload: Any, n: int) -> None:
        self.n = n
        starts = stops = None
        if isinstance(workload, tuple) and len(workload) == 2:
            starts, stops = workload
        elif hasattr(workload, "is_range") and hasattr(workload, "intervals"):  # a dpviz.workloads.Workload
            if workload.n != n:
                raise ValueError(f"workload must be over n={n} cells, got {workload!r}")
            if workload.is_range:
                starts, stops = workload.intervals()
            else:
                workload = workload.matrix()
        if starts is not None:
            i = np.asarray(starts)
            j = np.asarray(stops)
            if not (np.issubdtype(i.dtype, np.integer) and np.issubdtype(j.dtype, np.integer)):
                raise TypeError(f"workload ranges (starts, stops) must be integer arrays, got dtypes {i.dtype} "
                                f"and {j.dtype}")
            if i.ndim != 1 or i.shape != j.shape or i.size == 0:
                raise ValueError(f"workload ranges must be two 1-D arrays of the same non-zero length, got shapes "
                                 f"{i.shape} and {j.shape}")
            bad = (i < 0) | (j > n) | (j <= i)
            if np.any(bad):
                t = int(np.flatnonzero(bad)[0])
                raise ValueError(f"workload ranges must satisfy 0 <= start < stop <= n={n}; got [{i[t]}, {j[t]}) "
                                 f"at index {t}")
            self.kind = "ranges"
            self.starts, self.stops = i.astype(np.int64), j.astype(np.int64)
            self.m = i.size
            self.scale = 1.0
            return
        W = check_matrix("workload", workload)
        if W.shape[1] != n:
            raise ValueError(f"workload must have one column per cell (n={n}), got shape {W.shape}")
        scale = float(abs(W).max()) if sp.issparse(W) else float(np.abs(W).max())
        if scale == 0:
            raise ValueError("workload must have at least one non-zero coefficient")
        self.kind = "matrix"
        self.W = (sp.csr_array(W) / scale) if sp.issparse(W) else W / scale
        self.m = W.shape[0]
        self.scale = scale

    def answers(self, X: np.ndarray) -> np.ndarray:
        """(k, n) histograms -> (k, m) scaled answers."""
        if self.kind == "ranges":
            P = np.zeros((X.shape[0], self.n + 1))
            np.cumsum(X, axis=1, out=P[:, 1:])
            return P[:, self.stops] - P[:, self.starts]
        return np.asarray(self.W @ X.T).T

    def rows(self, idx: np.ndarray) -> np.ndarray:
        """(k,) query indices -> (k, n) dense scaled rows."""
        if self.kind == "ranges":
            cols = np.arange(self.n)
            return ((cols >= self.starts[idx, None]) & (cols < self.stops[idx, None])).astype(float)
        R = self.W[idx]
        return R.toarray() if sp.issparse(R) else np.array(R, dtype=float)


# --------------------------------------------------------------------------- Uniform
def uniform(x, epsilon: float, *, rng: RngLike = None, size: int | None = None, accountant=None) -> np.ndarray:
    """The Uniform baseline: a noisy total ``sum(x) + Lap(1/epsilon)`` spread evenly over the n cells.

    ``x_hat_i = (sum_j x_j + Z) / n`` with ``Z ~ Lap(1/epsilon)``.  It is the
    coarsest data-aware histogram (one bucket); DPBench [HMMCZ16]_ uses it as a
    sanity baseline: an algorithm that loses to Uniform has learned nothing.

    Privacy: the total has L1 sensitivity 1, so the Laplace mechanism makes it
    epsilon-DP; spreading it is post-processing.

    Returns
    -------
    numpy.ndarray
        (n,) or (size, n) estimates.

    Examples
    --------
    >>> uniform([4, 0, 0, 4], 1.0, rng=0).round(3).tolist()
    [2.08, 2.08, 2.08, 2.08]
    """
    x = check_counts("x", x)
    eps = _fraction("epsilon", check_epsilon(epsilon))
    size = check_trials(size)
    gen = as_generator(rng)
    _reserve(accountant, eps, "uniform")
    _charge(accountant, eps, "uniform: noisy total")
    k = 1 if size is None else size
    total = x.sum() + gen.laplace(0.0, 1.0 / float(eps), size=k)
    out = np.repeat((total / x.size)[:, None], x.size, axis=1)
    return out[0] if size is None else out


# --------------------------------------------------------------------------- MWEM
@dataclass(frozen=True)
class MWEMResult:
    """What MWEM released (one run, or ``size`` runs stacked on a first axis).

    Attributes
    ----------
    estimate : (n,) or (k, n) the final synthetic histogram (sums to ``total``)
    history : (T+1, n) or (k, T+1, n) the histogram after each round (round 0 = uniform),
        or None unless ``keep_history``; every prefix of the run is itself DP
    selected : (T,) or (k, T) index of the workload query measured in each round
    measurements : (T,) or (k, T) its noisy answer (in the workload's units)
    total : float or (k,) the total count used (noisy unless given as public)
    epsilon : total budget spent
    epsilon_total, epsilon_select, epsilon_measure : budget of the total estimate
        and, per round, of the selection and of the measurement
    rounds : T
    """

    estimate: np.ndarray
    history: np.ndarray | None
    selected: np.ndarray
    measurements: np.ndarray
    total: Any
    epsilon: float
    epsilon_total: float
    epsilon_select: float
    epsilon_measure: float
    rounds: int


def mwem(x, workload, epsilon: float, *, rounds: int = 10, selection_share: float = 0.5,
         total: float | None = None, total_share: float = 0.05, passes: int = 10, keep_history: bool = False,
         rng: RngLike = None, size: int | None = None, accountant=None) -> MWEMResult:
    """MWEM: multiplicative weights driven by exponentially-selected, Laplace-measured queries [HLM12]_.

    Start from the uniform histogram ``A_0 = N/n``.  In round t = 1..T:

    1. *select* a query ``q`` of the workload with the exponential mechanism [MT07]_,
       ``P(q) ~ exp(eps_s |q(A_{t-1}) - q(x)| / (2 Delta))``, where ``Delta`` is the
       largest absolute coefficient (the score's sensitivity);
    2. *measure* it: ``m_t = q(x) + Lap(Delta / eps_m)``;
    3. *update* by multiplicative weights, ``A_t(i) ~ A_{t-1}(i) exp(q(i) (m_t - q(A_{t-1})) / (2 N Delta^2))``,
       renormalised to total N.  As in the paper's practical variant, every round
       then sweeps ``passes`` times over all measurements so far (pure
       post-processing).  The final ``A_T`` is returned (the paper's analysis
       averages the ``A_t``; its experiments, like DPBench, use the last one).

    Privacy (proof sketch): with ``total=None`` the total N is estimated as
    ``sum(x) + Lap(1/eps_N)`` (sensitivity 1), ``eps_N = total_share * epsilon``;
    the remaining budget is split evenly over the T rounds and within a round
    into ``eps_s = selection_share * eps_r`` and ``eps_m = eps_r - eps_s``.  Adding
    or removing one record changes every score ``|q(A) - q(x)|`` by at most
    ``Delta`` (A depends only on earlier *released* values), so the selection is
    eps_s-DP; the measured answer has sensitivity ``Delta``, so the Laplace step
    is eps_m-DP; the update only uses released values.  Sequential composition
    gives ``eps_N + T (eps_s + eps_m) = epsilon`` exactly.  A public ``total``
    (the paper's assumption) costs nothing and gives all of epsilon to the rounds.

    Parameters
    ----------
    x : array_like, shape (n,)
        Histogram counts.
    workload : a :class:`dpviz.workloads.Workload`, a ``(starts, stops)`` pair of
        half-open integer ranges, or a (m, n) query matrix (dense or scipy.sparse).
    epsilon : float
        Total budget > 0.
    rounds : int, default 10
        T >= 1.
    selection_share : float in (0, 1), default 0.5
        Share of each round's budget spent on selecting the query.
    total : float, optional
        Public total count N; if None (default) it is estimated privately.
    total_share : float in (0, 1), default 0.05
        Share of epsilon spent on estimating N when ``total`` is None.
    passes : int, default 10
        Multiplicative-weights sweeps over all measurements per round.
    keep_history : bool, default False
        Also return the histogram after every round.
    rng, size, accountant
        Randomness, number of independent runs, and an optional
        :class:`~dpviz.accountant.PrivacyAccountant` charged stage by stage
        (refused up front if epsilon does not fit).

    Returns
    -------
    MWEMResult

    Raises
    ------
    ValueError, TypeError
        For bad counts, workload, epsilon, shares, rounds or passes.
    BudgetExceededError
        If ``accountant`` cannot afford epsilon (nothing is recorded).

    Examples
    --------
    >>> res = mwem([0, 0, 50, 0, 0, 0, 30, 0], ([0, 0, 0, 0], [2, 4, 6, 8]), 1.0, rounds=4, rng=0)
    >>> res.estimate.shape, res.selected.shape
    ((8,), (4,))
    """
    x = check_counts("x", x)
    n = x.size
    Q = _queries_or_raise(workload, n)
    eps = _fraction("epsilon", check_epsilon(epsilon))
    T = check_int("rounds", rounds, minimum=1)
    s = _fraction("selection_share", check_open_unit("selection_share", selection_share))
    passes = check_int("passes", passes, minimum=1)
    if not isinstance(keep_history, (bool, np.bool_)):
        raise TypeError(f"keep_history must be a bool, got {keep_history!r}")
    size = check_trials(size)
    if total is None:
        eps_total = eps * _fraction("total_share", check_open_unit("total_share", total_share))
    else:
        total = check_positive("total", total)
        eps_total = Fraction(0)
    eps_round = (eps - eps_total) / T
    eps_sel = eps_round * s
    eps_meas = eps_round - eps_sel
    gen = as_generator(rng)
    k = 1 if size is None else size
    _reserve(accountant, eps, "MWEM")

    if total is None:
        _charge(accountant, eps_total, "MWEM: noisy total")
        N = np.maximum(x.sum() + gen.laplace(0.0, 1.0 / float(eps_total), size=k), 1.0)  # post-processing
    else:
        N = np.full(k, total)
    truth = Q.answers(x[None, :])[0]
    A = np.repeat((N / n)[:, None], n, axis=1)
    logA = np.zeros((k, n))
    hist = [A.copy()] if keep_history else None
    sel = np.empty((k, T), dtype=np.int64)
    meas = np.empty((k, T))
    rows: list[np.ndarray] = []
    es, em = float(eps_sel), float(eps_meas)
    for t in range(T):
        score = np.abs(Q.answers(A) - truth)                      # sensitivity 1 after scaling
        _charge(accountant, eps_sel, f"MWEM round {t + 1}: select (exp. mech.)")
        idx = np.argmax(es * score / 2.0 + gen.gumbel(size=score.shape), axis=1)  # Gumbel-max = exp. mechanism
        _charge(accountant, eps_meas, f"MWEM round {t + 1}: measure (Laplace)")
        sel[:, t] = idx
        meas[:, t] = truth[idx] + gen.laplace(0.0, 1.0 / em, size=k)
        rows.append(Q.rows(idx))
        for _ in range(passes):
            for j in range(t + 1):
                r = rows[j]
                err = meas[:, j] - np.einsum("kn,kn->k", r, A)
                logA += r * (err / (2.0 * N))[:, None]       # multiplicative weights, in log space
                logA -= logA.max(axis=1, keepdims=True)      # (no overflow, no NaN)
                A = np.exp(logA)
                A *= (N / A.sum(axis=1))[:, None]
        if keep_history:
            hist.append(A.copy())
    history = None if hist is None else np.stack(hist, axis=1)
    meas *= Q.scale
    one = size is None
    return MWEMResult(
        estimate=A[0] if one else A,
        history=None if history is None else (history[0] if one else history),
        selected=sel[0] if one else sel, measurements=meas[0] if one else meas,
        total=float(N[0]) if one else N, epsilon=float(eps), epsilon_total=float(eps_total),
        epsilon_select=float(eps_sel), epsilon_measure=float(eps_meas), rounds=T,
    )


def _queries_or_raise(workload, n: int) -> _Queries:
    if workload is None:
        raise TypeError("workload must be given: (starts, stops) ranges or a query matrix, got None")
    return _Queries(workload, n)


# --------------------------------------------------------------------------- partitions
@dataclass(frozen=True)
class Partition:
    """A partition of the cells ``0..n-1`` into consecutive buckets.

    Attributes
    ----------
    starts : (p,) int, the first cell of each bucket (``starts[0] == 0``, increasing)
    n : number of cells
    """

    starts: np.ndarray
    n: int
    stops: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        st = np.asarray(self.starts, dtype=np.int64)
        if st.ndim != 1 or st.size == 0 or st[0] != 0 or np.any(np.diff(st) <= 0) or st[-1] >= self.n:
            raise ValueError(f"starts must increase strictly from 0 and stay below n={self.n}, got {st}")
        object.__setattr__(self, "starts", st)
        object.__setattr__(self, "stops", np.append(st[1:], self.n))

    @property
    def n_buckets(self) -> int:
        """Number of buckets p."""
        return int(self.starts.size)

    @property
    def sizes(self) -> np.ndarray:
        """(p,) number of cells per bucket."""
        return self.stops - self.starts

    @property
    def boundaries(self) -> np.ndarray:
        """Interior bucket boundaries (the starts of all buckets but the first)."""
        return self.starts[1:]

    def aggregate(self, x) -> np.ndarray:
        """Bucket totals of ``x`` (shape (..., n) -> (..., p))."""
        x = np.asarray(x, dtype=float)
        return np.add.reduceat(x, self.starts, axis=-1)

    def expand(self, totals) -> np.ndarray:
        """Spread bucket totals evenly over their cells (shape (..., p) -> (..., n))."""
        totals = np.asarray(totals, dtype=float)
        return np.repeat(totals / self.sizes, self.sizes, axis=-1)


def bucket_deviation(x, partition: Partition) -> np.ndarray:
    """L1 deviation of each bucket from its mean, ``dev(B) = sum_{i in B} |x_i - mean_B(x)|`` [LHMW14]_.

    It is the L1 error of replacing the bucket's cells by their average: what a
    perfect (noise-free) bucket count, spread evenly, would still get wrong.

    Examples
    --------
    >>> bucket_deviation([1, 3, 5, 5], Partition(np.array([0, 2]), 4)).tolist()
    [2.0, 0.0]
    """
    x = check_counts("x", x)
    if not isinstance(partition, Partition) or partition.n != x.size:
        raise ValueError(f"partition must be a Partition of n={x.size} cells")
    means = np.repeat(partition.aggregate(x) / partition.sizes, partition.sizes)
    return np.add.reduceat(np.abs(x - means), partition.starts)


def dyadic_deviations(x) -> list[np.ndarray]:
    """``dev(B)`` of every aligned dyadic interval of ``x`` padded with zeros to ``N = 2^ceil(log2 n)``.

    Entry ``j`` of level ``l`` is the L1 deviation of the cells ``[j 2^l, (j+1) 2^l)``
    from their mean (level 0: single cells, deviation 0).  O(N log N).

    Returns
    -------
    list of numpy.ndarray
        ``log2 N + 1`` arrays, level l of length ``N / 2^l``.

    Examples
    --------
    >>> [d.tolist() for d in dyadic_deviations([1, 3, 2, 2])]
    [[0.0, 0.0, 0.0, 0.0], [2.0, 0.0], [2.0]]
    """
    x = check_counts("x", x)
    N = 1 << (x.size - 1).bit_length()
    xp = np.zeros(N)
    xp[: x.size] = x
    out = []
    for l in range(N.bit_length()):
        blocks = xp.reshape(N >> l, 1 << l)
        out.append(np.abs(blocks - blocks.mean(axis=1, keepdims=True)).sum(axis=1))
    return out


def default_bucket_penalty(epsilon_partition: float, epsilon_measure: float | None) -> float:
    """Default per-bucket cost ``lambda = 1/eps_2 + (4 ln 4 + 1)/eps_1`` of the private partition.

    ``1/eps_2`` is DAWA's trade-off [LHMW14]_: measuring a bucket total with
    ``Lap(1/eps_2)`` costs an expected absolute error ``1/eps_2``, so a split pays
    only if it lowers the deviation by more.  The second term keeps the
    *sampled* partition from fragmenting.  There are about ``4^p`` dyadic
    partitions into p buckets (Catalan numbers), so unless the exponential
    mechanism's weight per bucket ``a = exp(-eps_1 lambda / 4)`` is below 1/4,
    the sheer number of fine partitions outweighs their higher cost even on
    perfectly uniform data.  (On a complete binary tree over uniform data the
    partition function obeys ``Z = a + Z^2``, which has a finite fixed point only
    for ``a <= 1/4``.)  ``(4 ln 4 + 1)/eps_1`` puts ``a`` at ``e^{-1/4}/4 ~ 0.19``
    or below, so uniform data keeps the root as one bucket with probability
    about 0.7.  With ``epsilon_measure=None`` only the second term is returned.

    Examples
    --------
    >>> round(default_bucket_penalty(0.25, 0.75), 4)
    27.514
    """
    e1 = check_epsilon(epsilon_partition, "epsilon_partition")
    extra = 0.0 if epsilon_measure is None else 1.0 / check_epsilon(epsilon_measure, "epsilon_measure")
    return extra + (4.0 * math.log(4.0) + 1.0) / e1


def private_partition(x, epsilon: float, *, bucket_penalty: float | None = None, rng: RngLike = None,
                      size: int | None = None, accountant=None) -> Partition | list[Partition]:
    """Sample a partition of ``x`` into nearly-uniform dyadic buckets with the exponential mechanism.

    Candidate partitions are the prunings of the binary tree over the domain
    padded to ``N = 2^ceil(log2 n)`` (every bucket an aligned dyadic interval;
    DAWA's approximate algorithm [LHMW14]_ likewise restricts bucket lengths to
    powers of 2).  A partition P costs
    ``c(P) = sum_{B in P} dev(B) + lambda |P|`` (:func:`bucket_deviation`) and is
    drawn with probability proportional to ``exp(-epsilon c(P) / 4)``.

    Sampling is exact and O(N): with log-weights ``w_v = -epsilon (dev(v) + lambda) / 4``,
    the partition function of a subtree is ``Z_v = e^{w_v} + Z_left Z_right``
    (bottom-up); top-down, node v becomes a bucket with probability ``e^{w_v} / Z_v``,
    otherwise its children are visited.  Buckets lying wholly in the padding are
    dropped and the last one is cut at n.

    Privacy (proof sketch): adding or removing one record changes one cell by 1;
    in any partition that cell lies in exactly one bucket B, whose deviation
    changes by at most ``2 (1 - 1/|B|) < 2`` (the mean moves by 1/|B|).  So the
    score ``-c(P)`` has sensitivity 2 for every P, and the exponential mechanism
    [MT07]_ with ``exp(epsilon * score / (2 * 2))`` is epsilon-DP.  ``lambda`` and
    the padding are public.

    Parameters
    ----------
    x : array_like, shape (n,)
        Histogram counts.
    epsilon : float
        Budget of this stage (> 0).
    bucket_penalty : float, optional
        lambda >= 0 in counts; default :func:`default_bucket_penalty` ``(epsilon, None)``
        = ``(4 ln 4 + 1)/epsilon``.
    rng, size, accountant
        As everywhere; with ``size`` a list of ``size`` independent partitions.

    Returns
    -------
    Partition or list of Partition

    Examples
    --------
    >>> x = [10] * 8 + [200] * 8
    >>> private_partition(x, 10.0, rng=0).starts.tolist()
    [0, 8]
    """
    x = check_counts("x", x)
    eps = _fraction("epsilon", check_epsilon(epsilon))
    lam = default_bucket_penalty(float(eps), None) if bucket_penalty is None \
        else check_nonnegative("bucket_penalty", bucket_penalty)
    size = check_trials(size)
    gen = as_generator(rng)
    _reserve(accountant, eps, "private partition")
    devs = dyadic_deviations(x)
    _charge(accountant, eps, "partition (exponential mechanism)")
    parts = _sample_partitions(devs, x.size, float(eps), lam, gen, 1 if size is None else size)
    return parts[0] if size is None else parts


def _sample_partitions(devs: list[np.ndarray], n: int, eps: float, lam: float, gen: np.random.Generator,
                       k: int) -> list[Partition]:
    """Exact exponential-mechanism sampling of k dyadic partitions (see :func:`private_partition`)."""
    h = len(devs) - 1
    logw = [-eps * (d + lam) / 4.0 for d in devs]
    logz = [logw[0]]
    for l in range(1, h + 1):
        logz.append(np.logaddexp(logw[l], logz[-1][0::2] + logz[-1][1::2]))
    reached = np.ones((k, 1), dtype=bool)
    trial_ids, starts = [], []
    for l in range(h, -1, -1):
        keep_p = np.exp(logw[l] - logz[l]) if l > 0 else np.ones_like(logw[0])
        stop = reached & (gen.random(reached.shape) < keep_p)
        t, j = np.nonzero(stop)
        trial_ids.append(t)
        starts.append(j.astype(np.int64) << l)
        if l > 0:
            reached = np.repeat(reached & ~stop, 2, axis=1)
    t = np.concatenate(trial_ids)
    s = np.concatenate(starts)
    keep = s < n
    t, s = t[keep], s[keep]
    order = np.lexsort((s, t))
    t, s = t[order], s[order]
    bounds = np.searchsorted(t, np.arange(k + 1))
    return [Partition(s[bounds[i]: bounds[i + 1]], n) for i in range(k)]


# --------------------------------------------------------------------------- DAWA
@dataclass(frozen=True)
class DAWAResult:
    """What the DAWA-style algorithm released.

    Attributes
    ----------
    estimate : (n,) or (k, n) cell estimates (bucket estimates spread evenly)
    partitions : the learned Partition, or a list of k of them
    bucket_estimates : (p,) array, or list of k arrays, least-squares bucket totals
    epsilon, epsilon_partition, epsilon_measure : total budget and its two stages
    bucket_penalty : lambda used by the partition stage
    strategy : stage-2 strategy name
    """

    estimate: np.ndarray
    partitions: Partition | list[Partition]
    bucket_estimates: np.ndarray | list[np.ndarray]
    epsilon: float
    epsilon_partition: float
    epsilon_measure: float
    bucket_penalty: float
    strategy: str


def dawa(x, epsilon: float, workload=None, *, partition_share: float = 0.25, bucket_penalty: float | None = None,
         strategy: str = "hierarchical", rng: RngLike = None, size: int | None = None,
         accountant=None) -> DAWAResult:
    """DAWA-style two-stage histogram [LHMW14]_: private partition, then measure the buckets.

    Stage 1 (``eps_1 = partition_share * epsilon``): :func:`private_partition`
    samples a partition into nearly-uniform dyadic buckets.
    Stage 2 (``eps_2 = epsilon - eps_1``): the bucket totals ``z = P x`` are
    measured and estimated by least squares on the reduced domain, then each
    bucket's estimate is spread evenly over its cells, ``x_hat_i = z_hat_B / |B|``:

    ``"hierarchical"`` (default)
        the binary tree H_2 over the buckets with Laplace noise ``Lap(L/eps_2)`` per node
        (L levels) and constrained inference (= least squares), via :mod:`dpviz.hierarchy`;
    ``"identity"``
        ``z_B + Lap(1/eps_2)`` per bucket;
    ``"greedy_h"``
        DAWA's own choice: GreedyH, a hierarchical strategy weighted for the
        workload mapped onto the buckets, ``W E`` with ``E[i, B] = 1/|B|`` for
        ``i in B`` (needs ``workload`` and :mod:`dpviz.strategies`).

    Privacy (proof sketch): stage 1 is eps_1-DP (see :func:`private_partition`).
    Given the released partition, the bucket totals form a histogram in which
    each record lies in exactly one bucket, so any strategy of L1 sensitivity
    ``S`` measured with ``Lap(S/eps_2)`` is eps_2-DP; least squares and
    spreading are post-processing.  Sequential composition: ``eps_1 + eps_2 = epsilon``.

    Parameters
    ----------
    x : array_like, shape (n,)
    epsilon : float
    workload : optional
        Needed only for ``strategy="greedy_h"``: (starts, stops) ranges or a matrix.
    partition_share : float in (0, 1), default 0.25 (the paper's choice)
    bucket_penalty : float, optional
        lambda; default :func:`default_bucket_penalty` ``(eps_1, eps_2)``.
    strategy : {"hierarchical", "identity", "greedy_h"}
    rng, size, accountant
        As everywhere; the accountant is charged eps_1 then eps_2.

    Returns
    -------
    DAWAResult

    Examples
    --------
    >>> res = dawa([5] * 32 + [40] * 32, 1.0, rng=0)
    >>> res.partitions.n_buckets <= 8, res.estimate.shape
    (True, (64,))
    """
    x = check_counts("x", x)
    eps = _fraction("epsilon", check_epsilon(epsilon))
    rho = _fraction("partition_share", check_open_unit("partition_share", partition_share))
    strategy = check_choice("strategy", strategy, STRATEGIES)
    eps1 = eps * rho
    eps2 = eps - eps1
    lam = default_bucket_penalty(float(eps1), float(eps2)) if bucket_penalty is None \
        else check_nonnegative("bucket_penalty", bucket_penalty)
    size = check_trials(size)
    Q = None
    if strategy == "greedy_h":
        Q = _queries_or_raise(workload, x.size)
    gen = as_generator(rng)
    k = 1 if size is None else size
    _reserve(accountant, eps, "DAWA")
    devs = dyadic_deviations(x)
    _charge(accountant, eps1, "DAWA stage 1: partition (exp. mech.)")
    parts = _sample_partitions(devs, x.size, float(eps1), lam, gen, k)
    _charge(accountant, eps2, f"DAWA stage 2: buckets ({strategy})")
    est = np.empty((k, x.size))
    zs = []
    cache: dict = {}
    for t, part in enumerate(parts):
        z = part.aggregate(x)
        zhat = _measure_buckets(z, part, float(eps2), strategy, Q, gen, cache)
        zs.append(zhat)
        est[t] = part.expand(zhat)
    one = size is None
    return DAWAResult(
        estimate=est[0] if one else est, partitions=parts[0] if one else parts,
        bucket_estimates=zs[0] if one else zs, epsilon=float(eps), epsilon_partition=float(eps1),
        epsilon_measure=float(eps2), bucket_penalty=float(lam), strategy=strategy,
    )


def _measure_buckets(z: np.ndarray, part: Partition, eps2: float, strategy: str, Q: _Queries | None,
                     gen: np.random.Generator, cache: dict) -> np.ndarray:
    """Least-squares estimate of the bucket totals z from an eps2-DP measurement."""
    if strategy == "identity" or z.size == 1:
        return z + gen.laplace(0.0, 1.0 / eps2, size=z.size)
    if strategy == "hierarchical":
        from dpviz import hierarchy

        rel = hierarchy.measure(z, 2, eps2, rng=gen)
        return rel.leaves(constrained=True)
    return _greedy_h_buckets(z, part, eps2, Q, gen, cache)


def _reduced_gram(Q: _Queries, part: Partition, cache: dict) -> np.ndarray:
    """Gram matrix ``(W E)^T (W E)`` of the workload mapped onto the buckets, ``E[i, B] = 1/|B|`` for i in B.

    Query rows of ``W E`` are built directly when ``m p < n^2`` (measured faster),
    otherwise ``E^T (W^T W) E`` is reduced from the full Gram matrix (computed
    once per call and kept in ``cache``).
    """
    p, n = part.n_buckets, part.n
    if Q.kind == "ranges" and Q.m * p < n * n:
        # F[c] = fractional coverage of each bucket by the cells [0, c); a range's row is F[stop] - F[start]
        c = np.arange(n + 1)[:, None]
        F = np.clip((c - part.starts[None, :]) / part.sizes[None, :], 0.0, 1.0)
        R = F[Q.stops] - F[Q.starts]
        return R.T @ R
    if "gram" not in cache:
        if Q.kind == "ranges":
            from dpviz import workloads

            cache["gram"] = workloads.ranges(n, Q.starts, Q.stops).gram()  # closed form, O(n^2)
        else:
            W = Q.W * Q.scale  # undo the internal scaling to [-1, 1]
            cache["gram"] = np.asarray((W.T @ W).toarray()) if sp.issparse(W) else W.T @ W
    G = cache["gram"]
    Gr = np.add.reduceat(np.add.reduceat(G, part.starts, axis=0), part.starts, axis=1)
    return Gr / np.outer(part.sizes, part.sizes)


def _greedy_h_buckets(z: np.ndarray, part: Partition, eps2: float, Q: _Queries, gen: np.random.Generator,
                      cache: dict) -> np.ndarray:
    """GreedyH on the reduced workload, measured with Laplace noise and solved by least squares [LHMW14]_."""
    from dpviz import matrix_mechanism, strategies, workloads

    A = strategies.greedy_h(_reduced_gram(Q, part, cache), gram=True)
    return matrix_mechanism.run(workloads.identity(z.size), A, z, eps2, rng=gen).estimate
