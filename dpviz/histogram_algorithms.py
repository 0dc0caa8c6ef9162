"""The histogram algorithms compared in the data-aware lecture, by name: what each is and how it is run.

Every algorithm releases a histogram estimate ``x_hat`` of the counts ``x`` at
a budget epsilon, spending exactly epsilon (add/remove-one-record neighbours).
Their noise is floating-point and Mironov (CCS 2012) showed that the low-order
bits of float Laplace outputs can reveal the input, so that epsilon is the
idealised real-valued algorithm's (lecture 07, section 7).
:data:`ALGORITHMS` describes them and :func:`release_histogram` runs one by
name:

* workload-aware (the noise ignores the data): *Identity* (Laplace on every
  cell), *H_b* (a b-ary hierarchy with constrained inference, b chosen by
  Qardaji's rule [QYL13]_), *Privelet* (Haar wavelet [XWG10]_), *GreedyH* (the
  matrix mechanism with a workload-weighted hierarchy [LHMW14]_);
* the *Uniform* baseline of DPBench [HMMCZ16]_;
* data-aware: *MWEM* [HLM12]_, and *DAWA* [LHMW14]_ with GreedyH (the paper's
  choice) or a plain binary tree (*DAWA-H2*, faster) on the buckets.

The experiments (:mod:`dpviz.experiments.comparison`) repeat these releases,
score them and tabulate the errors.

References
----------
.. [HMMCZ16] M. Hay, A. Machanavajjhala, G. Miklau, Y. Chen, D. Zhang.
   "Principled Evaluation of Differentially Private Algorithms using
   DPBench." SIGMOD 2016.
.. [HLM12] M. Hardt, K. Ligett, F. McSherry. "A Simple and Practical
   Algorithm for Differentially Private Data Release." NeurIPS 2012 (MWEM).
.. [LHMW14] C. Li, M. Hay, G. Miklau, Y. Wang. "A Data- and Workload-Aware
   Algorithm for Range Queries Under Differential Privacy." PVLDB 7(5), 2014
   (DAWA, GreedyH).
.. [QYL13] W. Qardaji, W. Yang, N. Li. "Understanding Hierarchical Methods for
   Differentially Private Histograms." PVLDB 6(14), 2013 (H_b).
.. [XWG10] X. Xiao, G. Wang, J. Gehrke. "Differential Privacy via Wavelet
   Transforms." ICDE 2010 (Privelet).
"""

from __future__ import annotations

import functools
import importlib.util
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from dpviz import data_aware, hierarchy, wavelet, workloads
from dpviz.accountant import check_accountant
from dpviz.data_aware import Partition
from dpviz.data_aware.budget import MAX_NOISE_SCALE
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_choice, check_counts, check_elements, check_epsilon, check_int

if TYPE_CHECKING:
    from dpviz.accountant import PrivacyAccountant
    from dpviz.matrix_mechanism import LeastSquares

__all__ = [
    "AlgorithmInfo",
    "ALGORITHMS",
    "available_algorithms",
    "HistogramRelease",
    "release_histogram",
]


@dataclass(frozen=True)
class AlgorithmInfo:
    """Name, family and one-line description of a compared histogram algorithm.

    Parameters
    ----------
    name : str
        The algorithm's name, the key in :data:`ALGORITHMS` (e.g. ``"DAWA"``).
    family : str
        ``"workload-aware"``, ``"data-aware"`` or ``"baseline"``.
    description : str
        One line saying what the algorithm measures and how it infers the histogram.

    Examples
    --------
    >>> info = ALGORITHMS["MWEM"]
    >>> info.family, info.name
    ('data-aware', 'MWEM')
    """

    name: str
    family: str  # "workload-aware", "data-aware" or "baseline"
    description: str


#: The compared algorithms, by name, in the order the comparison shows them.
ALGORITHMS: dict[str, AlgorithmInfo] = {
    info.name: info for info in [
        AlgorithmInfo("Identity", "workload-aware", "Laplace(1/eps) on every cell"),
        AlgorithmInfo("H_b", "workload-aware",
                      "b-ary tree + constrained inference, b minimising Qardaji's range error"),
        AlgorithmInfo("Privelet", "workload-aware", "Haar wavelet coefficients + Laplace"),
        AlgorithmInfo("GreedyH", "workload-aware",
                      "hierarchy weighted for the workload (matrix mechanism, least squares)"),
        AlgorithmInfo("Uniform", "baseline", "noisy total spread evenly"),
        AlgorithmInfo("MWEM", "data-aware", "T=10 rounds: exp. mech. + Laplace + multiplicative weights"),
        AlgorithmInfo("DAWA", "data-aware",
                      "private dyadic partition (25% of eps) + GreedyH on the buckets, least squares"),
        AlgorithmInfo("DAWA-H2", "data-aware",
                      "private dyadic partition (25% of eps) + binary tree on the buckets, least squares"),
    ]
}


def available_algorithms() -> list[str]:
    """The algorithms whose code is present, in the order of :data:`ALGORITHMS`.

    GreedyH and DAWA need :mod:`dpviz.strategies`; without it they are left out.

    Returns
    -------
    list of str
        Names accepted by :func:`release_histogram`.

    Examples
    --------
    >>> available_algorithms()[:3]
    ['Identity', 'H_b', 'Privelet']
    """
    has_strategies = importlib.util.find_spec("dpviz.strategies") is not None
    return [a for a in ALGORITHMS if a not in ("GreedyH", "DAWA") or has_strategies]


@dataclass(frozen=True)
class HistogramRelease:
    """``size`` independent releases of one histogram algorithm.

    Parameters
    ----------
    estimates : numpy.ndarray
        Shape (size, n): the released histograms, one per row.
    partitions : list of Partition or None
        DAWA's learned partition of each release (DAWA and DAWA-H2 only), else None.

    Examples
    --------
    >>> rel = release_histogram("Uniform", [4, 0, 0, 4], workloads.prefix(4), 1.0, rng=0)
    >>> rel.estimates.shape, rel.partitions
    ((1, 4), None)
    """

    estimates: np.ndarray
    partitions: list[Partition] | None


@functools.lru_cache(maxsize=64)
def _qardaji_branching(n: int) -> int:
    """Branching factor in 2..16 minimising Qardaji's average range error (epsilon only scales it)."""
    m = max(n, 2)
    bs = [b for b in range(2, 17) if (b - 1) * math.log(m, b) > 2 * (b + 1) / 3]  # where Eq. (3) applies
    return min(bs, key=lambda b: hierarchy.qardaji_average_mse(m, b, 1.0)) if bs else 2


@functools.lru_cache(maxsize=16)
def _greedy_h_strategy(W: workloads.Workload) -> LeastSquares:
    """GreedyH strategy of a workload (data-independent, so computed once per workload and reused)."""
    from dpviz import matrix_mechanism, strategies

    return matrix_mechanism.LeastSquares(strategies.greedy_h(W))


def _greedy_h_release(x: np.ndarray, W: workloads.Workload, epsilon: float, gen: np.random.Generator,
                      k: int, accountant: PrivacyAccountant | None) -> np.ndarray:
    """k releases of the matrix mechanism with W's (cached) GreedyH strategy (run() charges the accountant)."""
    from dpviz import matrix_mechanism

    return matrix_mechanism.run(W, _greedy_h_strategy(W), x, epsilon, rng=gen, size=k, accountant=accountant).estimate


def release_histogram(algorithm: str, x: ArrayLike, workload: workloads.Workload, epsilon: float, *,
                      rng: RngLike = None, size: int = 1,
                      accountant: PrivacyAccountant | None = None) -> HistogramRelease:
    """Run ``size`` independent releases of one histogram algorithm, by name, at budget epsilon.

    Each release is epsilon-DP under add/remove-one-record neighbours.  The
    workload is used by the algorithms that adapt to it (MWEM selects its
    queries, GreedyH and DAWA weight their strategy for it); the others ignore
    it.  Successive calls with the same Generator continue its stream.

    Parameters
    ----------
    algorithm : str
        One of :func:`available_algorithms`.
    x : array_like, shape (n,)
        Histogram counts.
    workload : Workload
        The :class:`dpviz.workloads.Workload` the releases will answer, over the n cells.
    epsilon : float
        Budget > 0 of each release.
    rng : None, int, SeedSequence or Generator, optional
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, default 1
        Number of independent releases.
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` (``size`` independent releases, sequential
        composition), before any noise is drawn: one row per stage for MWEM and
        DAWA (see :func:`dpviz.data_aware.mwem`, :func:`dpviz.data_aware.dawa`),
        one row by the underlying release for the others (Flat, hierarchy,
        Privelet, matrix mechanism); refused, with nothing
        recorded, if it does not fit.

    Returns
    -------
    HistogramRelease
        The (size, n) released histograms and, for DAWA, the learned partitions.

    Raises
    ------
    TypeError, ValueError
        If ``algorithm`` is unknown or unavailable, ``x`` is not a 1-D array of
        finite non-negative counts, ``workload`` is not a Workload over the n
        cells, epsilon is not >= 1e-100 (noise beyond would overflow), ``size`` is not a positive integer,
        ``4 * size * n`` exceeds :data:`dpviz.validation.MAX_ELEMENTS`, or
        ``accountant`` is not a PrivacyAccountant.
    BudgetExceededError
        If ``accountant`` cannot afford ``size * epsilon`` (nothing is recorded).

    Examples
    --------
    >>> x = [10, 0, 0, 30, 30, 0, 0, 10]
    >>> rel = release_histogram("Identity", x, workloads.prefix(8), 1.0, rng=0, size=3)
    >>> rel.estimates.shape
    (3, 8)
    """
    algorithm = check_choice("algorithm", algorithm, available_algorithms())
    x = check_counts("x", x)
    if not isinstance(workload, workloads.Workload) or workload.n != x.size:
        raise ValueError(f"workload must be a dpviz.workloads.Workload over the n={x.size} cells of x, "
                         f"got {workload!r}")
    epsilon = check_epsilon(epsilon)
    if epsilon < 1 / MAX_NOISE_SCALE:
        raise ValueError(f"epsilon must be >= {1 / MAX_NOISE_SCALE:g} (a noise scale 1/epsilon above "
                         f"{MAX_NOISE_SCALE:g} would overflow the errors), got {epsilon!r}")
    k = check_int("size", size, minimum=1)
    # 4n bounds the nodes of any tree or padded wavelet a release builds: refuse a huge size before any work
    check_elements(4.0 * k * x.size, "size x 4n noisy values (tree nodes, wavelet coefficients)", size=size,
                   n=x.size)
    accountant = check_accountant(accountant)
    gen = as_generator(rng)
    W = workload
    # Each callee charges the accountant by the one rule (size * epsilon) after its own checks and before its noise,
    # so a release it refuses records nothing.
    acc = accountant
    if algorithm == "Identity":
        return HistogramRelease(hierarchy.flat_release(x, epsilon, rng=gen, size=k, accountant=acc), None)
    if algorithm == "Uniform":
        return HistogramRelease(data_aware.uniform(x, epsilon, rng=gen, size=k, accountant=accountant), None)
    if algorithm == "H_b":
        if x.size == 1:
            return HistogramRelease(hierarchy.flat_release(x, epsilon, rng=gen, size=k, accountant=acc), None)
        rel = hierarchy.measure(x, _qardaji_branching(x.size), epsilon, rng=gen, size=k, accountant=acc)
        return HistogramRelease(rel.leaves(constrained=True), None)
    if algorithm == "Privelet":
        return HistogramRelease(wavelet.privelet_release(x, epsilon, rng=gen, size=k, accountant=acc), None)
    if algorithm == "MWEM":
        return HistogramRelease(data_aware.mwem(x, W, epsilon, rng=gen, size=k, accountant=accountant).estimate, None)
    if algorithm in ("DAWA", "DAWA-H2"):
        strategy = "greedy_h" if algorithm == "DAWA" else "hierarchical"
        res = data_aware.dawa(x, epsilon, W, strategy=strategy, rng=gen, size=k, accountant=accountant)
        parts = res.partitions if isinstance(res.partitions, list) else [res.partitions]  # size=k: always a list
        return HistogramRelease(res.estimate, parts)
    if algorithm == "GreedyH":
        check_elements(float(x.size) ** 2, "entries of GreedyH's dense Gram matrix", n=x.size)
        return HistogramRelease(_greedy_h_release(x, W, epsilon, gen, k, acc), None)
    raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}; got {algorithm!r}")  # pragma: no cover
