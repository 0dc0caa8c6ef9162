"""The GPTT reconstruction attack end to end (Algorithms 3 and 4 of [CM15]_) and the honest Laplace baseline.

:func:`reconstruct` runs the attack on a histogram through a GPTT oracle
(**NOT differentially private**); :func:`reconstruct_from_oracle` is
Algorithm 4 given only an oracle: the ordered partition
(:func:`dpviz.svt.ordered_partition`), one Laplace-noised total per group, and
rounded group averages (or :func:`ordered_estimate`, our order-constrained
fit).  With their defaults both follow the paper's Algorithms 3 and 4
([CM15] Section 5) step by step: GPTT without query noise on every difference
query, cells grouped by every query they appear in, one Laplace total per
group, averages rounded to the nearest integer.  Two defaults are dpviz's
choices for values the paper leaves open: the threshold T = 1/2 and the even
split of epsilon between GPTT and the totals.  :func:`laplace_reconstruct` is
the epsilon-DP baseline.

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.

- [DMNS06] C. Dwork, F. McSherry, K. Nissim, A. Smith. "Calibrating Noise to
  Sensitivity in Private Data Analysis." TCC 2006.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.optimize import isotonic_regression

from dpviz.mechanisms import laplace_scale, scaled_laplace
from dpviz.rng import RngLike, as_generator
from dpviz.svt.codes import NOT_DP
from dpviz.svt.oracles import MAX_COPIES, DifferenceOracle, GPTTOracle, SVTOracle
from dpviz.svt.partition import GROUPINGS, OrderedPartition, ordered_partition
from dpviz.validation import (
    MAX_MAGNITUDE,
    blame,
    check_array,
    check_bool,
    check_choice,
    check_counts,
    check_epsilon,
    check_int,
    check_nonnegative,
    check_open_unit,
    check_probability,
    check_real,
)

__all__ = ["Reconstruction", "ESTIMATORS", "MIN_CALIBRATED_EPSILON", "ordered_estimate", "reconstruct_from_oracle",
           "reconstruct", "laplace_reconstruct"]

#: Estimators of Algorithm 4: the paper's rounded averages, or the order-constrained fit (ours).
ESTIMATORS = ("average", "ordered")

#: Smallest threshold budget with which ``calibrate=True`` is accepted by :func:`reconstruct`: the calibration
#: searches shifts up to 2**64, and ``P(|Lap(1/eps1)| > 2**64) = exp(-2**64 eps1)`` is below e^-40 from here on.
MIN_CALIBRATED_EPSILON = 40.0 / 2.0**64


@dataclass(frozen=True, repr=False)
class Reconstruction:
    """The attacker's guess of every count, with the partition it came from.

    When produced through GPTT the attack exploits a mechanism that is **NOT
    differentially private**; ``mechanism`` says which oracle was used.  Built
    by :func:`reconstruct_from_oracle` and :func:`reconstruct`.

    Attributes
    ----------
    guess : numpy.ndarray, shape (d,)
        Guessed counts (integers, as floats; negative only if a group's noisy
        average rounds below 0 with the paper's estimator).
    partition : OrderedPartition
        The ordered partition of Algorithm 3 the guess is built on.
    noisy_totals : numpy.ndarray, shape (G,)
        The Laplace-noised total of every group.
    epsilon_partition : float
        Epsilon of the partition step (claimed, for GPTT; NaN for an unknown oracle).
    epsilon_totals : float
        Epsilon of the Laplace totals.
    mechanism : str
        Which oracle answered: "GPTT", "SVT", or the oracle's class name.
    queries : int
        Threshold answers the oracle gave (-1 if it does not count them).

    References
    ----------
    See [CM15] (Alg. 4) in the module docstring.

    Examples
    --------
    >>> x = np.repeat([0, 1, 2], 20)
    >>> r = reconstruct(x, 4.0, calibrate=True, rng=0)
    >>> r
    Reconstruction(GPTT, NOT differentially private; 60 cells, 3 groups, epsilon_partition=2, epsilon_totals=2)
    >>> r.partition.group_sizes.tolist(), int((r.guess == x).sum())
    ([20, 20, 20], 60)
    """

    guess: np.ndarray
    partition: OrderedPartition
    noisy_totals: np.ndarray
    epsilon_partition: float
    epsilon_totals: float
    mechanism: str
    queries: int

    def __repr__(self) -> str:
        if self.mechanism == "GPTT":
            label = f"GPTT, {NOT_DP}"
        elif self.mechanism in ("SVT", "Laplace"):
            label = f"{self.mechanism}, differentially private"
        else:
            label = f"{self.mechanism}, differential privacy not established"
        return (f"Reconstruction({label}; {self.guess.size} cells, {self.partition.n_groups} groups, "
                f"epsilon_partition={self.epsilon_partition:g}, epsilon_totals={self.epsilon_totals:g})")


def ordered_estimate(averages: npt.ArrayLike, weights: npt.ArrayLike) -> np.ndarray:
    """Least-squares group counts under the partition's order: ``c_{i+1} >= c_i + 1`` and ``c_0 >= 0``.

    Minimises ``sum_i w_i (a_i - c_i)^2`` subject to ``c_{i+1} - c_i >= 1`` and
    ``c_0 >= 0``.  With ``c_i = i + u_i`` this is isotonic regression of
    ``a_i - i`` (weights ``w_i``, :func:`scipy.optimize.isotonic_regression`)
    followed by ``max(u, 0)`` (a lower bound commutes with the isotonic fit).
    The constraints hold for the true group averages whenever the groups are
    intervals of counts in increasing order ([CM15] Lemma 5.10), since then the
    largest count of group i is below the smallest of group i+1.  This
    estimator is ours, not the paper's.

    Parameters
    ----------
    averages : array_like, shape (G,)
        Noisy average count ``a_i`` of each group, in the partition's order.
    weights : array_like, shape (G,)
        Positive weight ``w_i`` of each group (its number of cells).

    Returns
    -------
    numpy.ndarray, shape (G,)
        The fitted group counts ``c_i`` (not rounded).

    Raises
    ------
    ValueError, TypeError
        If ``averages`` or ``weights`` is not a finite 1-D array, or the weights
        are not positive and one per average.

    References
    ----------
    See [CM15] (Lemma 5.10) in the module docstring.

    Examples
    --------
    >>> ordered_estimate([0.4, 0.2, 2.5], [1.0, 1.0, 1.0])     # forces c_1 >= c_0 + 1
    array([0. , 1. , 2.5])
    """
    a = check_array("averages", averages, ndim=1, max_abs=MAX_MAGNITUDE)
    if a.size == 0:
        raise ValueError("averages must hold at least one group's average, got none")
    w = check_array("weights", weights, ndim=1, max_abs=MAX_MAGNITUDE)
    if w.shape != a.shape or np.any(w <= 0):
        raise ValueError(f"weights must be positive, one per entry of averages ({a.size}), got shape {w.shape}")
    i = np.arange(a.size, dtype=float)
    u = isotonic_regression(a - i, weights=w, increasing=True).x
    return np.maximum(u, 0.0) + i


def reconstruct_from_oracle(oracle: DifferenceOracle, epsilon_totals: float, *, copies: int = 1,
                            calibrate: bool = False, estimator: str = "average", query_scale: float | None = None,
                            block: int = 512, grouping: str = "row_and_column") -> Reconstruction:
    """Algorithm 4 of [CM15] given only an oracle: partition (Alg. 3), noisy group totals, rounded averages.

    The attack that shows GPTT is NOT differentially private; run through an :class:`SVTOracle` it is
    epsilon-DP end to end (and learns far less).

    [CM15] Section 5, Algorithm 4: ``guess[x] = round(noisy_total(P) / |P|)`` for
    the group P of x (the partition of Algorithm 3, :func:`ordered_partition`),
    with ``noisy_total(P) = sum_{y in P} c(y) + Lap(1/epsilon_totals)`` (one noisy
    total per group; the groups are disjoint, so the totals are epsilon_totals-DP
    for whatever partition the oracle's answers gave, and adaptive composition
    adds that charge to the oracle's), rounded to the nearest integer
    (half up) and nothing more, as in the paper.  ``estimator="ordered"``
    (ours, not the paper's) replaces the plain averages by
    :func:`ordered_estimate`, which pools the noisy totals of neighbouring groups
    using the order the partition reveals (and never guesses below 0).
    ``query_scale`` is GPTT's public query-noise scale (read from a
    :class:`GPTTOracle`'s parameters when None).

    Parameters
    ----------
    oracle : DifferenceOracle
        The only access to the data (e.g. :class:`GPTTOracle`, :class:`SVTOracle`).
    epsilon_totals : float
        Budget of the Laplace-noised group totals, finite and > 0.
    copies : int, default 1
        Repetitions of each difference query (majority vote).
    calibrate : bool, default False
        Locate the noisy threshold first (see :func:`dpviz.svt.calibrate_shift`).
    estimator : {"average", "ordered"}, default "average"
        The paper's rounded group averages, or :func:`ordered_estimate` (ours).
    query_scale : float, optional
        Public Laplace scale of the oracle's query noise; read from a
        :class:`GPTTOracle` when None (0 for other oracles).
    block : int, default 512
        Rows asked per call to the oracle.
    grouping : {"row_and_column", "row"}, default "row_and_column"
        How Algorithm 3 groups cells (see :func:`ordered_partition`): by every
        query a cell appears in, as the paper does, or by its answer row only.

    Returns
    -------
    Reconstruction
        The guessed counts, the partition, the noisy totals and the budgets.

    Raises
    ------
    TypeError
        If ``oracle`` is not an oracle (e.g. an array of counts), or
        ``calibrate`` is not a bool.
    ValueError
        If ``epsilon_totals`` is not finite and > 0, ``estimator`` is not one of
        :data:`ESTIMATORS`, ``grouping`` not one of :data:`GROUPINGS`,
        ``copies`` is not an int in ``[1, 2**30]``, ``block`` is not an int
        >= 1, ``query_scale`` is negative, or the calibration cannot locate the
        noisy threshold (see :func:`calibrate_shift`).

    References
    ----------
    See [CM15] (Alg. 3, Alg. 4) in the module docstring.

    Examples
    --------
    >>> from dpviz.svt import GPTTOracle, SVTOracle
    >>> x = np.repeat([0, 1, 2], 20)
    >>> int((reconstruct_from_oracle(GPTTOracle(x, 0.5, rng=1), 0.5, calibrate=True).guess == x).sum())
    60
    >>> reconstruct_from_oracle(SVTOracle(x, 0.5, c=5, rng=1), 0.5).partition.n_groups   # SVT learns little
    4
    """
    if not isinstance(oracle, DifferenceOracle) or isinstance(oracle, np.ndarray):
        raise TypeError(f"oracle must provide answer_differences and noisy_group_totals, got {type(oracle).__name__}")
    epsilon_totals = check_epsilon(epsilon_totals, "epsilon_totals")
    check_int("copies", copies, minimum=1, maximum=MAX_COPIES)
    check_bool("calibrate", calibrate)
    check_choice("estimator", estimator, ESTIMATORS)
    check_choice("grouping", grouping, GROUPINGS)
    check_int("block", block, minimum=1)
    if query_scale is not None:
        query_scale = check_nonnegative("query_scale", query_scale)
    else:
        eps_q = oracle.epsilon_query if isinstance(oracle, GPTTOracle) else math.inf
        query_scale = 0.0 if math.isinf(eps_q) else laplace_scale(1.0, eps_q)
    partition = ordered_partition(oracle, copies=copies, calibrate=calibrate, query_scale=query_scale, block=block,
                                  grouping=grouping)
    totals = np.asarray(oracle.noisy_group_totals(partition.labels, epsilon_totals), dtype=float)
    avg = totals / partition.group_sizes
    if estimator == "ordered":
        avg = ordered_estimate(avg, partition.group_sizes.astype(float))
    guess = np.floor(avg + 0.5)[partition.labels]
    if isinstance(oracle, GPTTOracle):
        mech, eps_p = "GPTT", oracle.epsilon_threshold + (0.0 if math.isinf(oracle.epsilon_query)
                                                           else oracle.epsilon_query)
    elif isinstance(oracle, SVTOracle):
        mech, eps_p = "SVT", oracle.epsilon
    else:
        mech, eps_p = type(oracle).__name__, float("nan")
    return Reconstruction(guess=guess, partition=partition, noisy_totals=totals, epsilon_partition=eps_p,
                          epsilon_totals=epsilon_totals, mechanism=mech,
                          queries=int(getattr(oracle, "queries_answered", -1)))


def _split(epsilon: float, split: float) -> tuple[float, float]:
    """``(split * epsilon, (1 - split) * epsilon)``: GPTT's share and the totals' share."""
    epsilon = check_epsilon(epsilon)
    split = check_open_unit("split", split)
    return split * epsilon, (1.0 - split) * epsilon


def reconstruct(counts: npt.ArrayLike, epsilon: float, *, split: float = 0.5, query_share: float = 0.0, copies: int = 1,
                calibrate: bool = False, estimator: str = "average", threshold: float = 0.5,
                grouping: str = "row_and_column", rng: RngLike = None) -> Reconstruction:
    """Reconstruct a histogram with GPTT (**NOT differentially private**): Algorithms 3 and 4 of [CM15].

    The (claimed) budget epsilon is split: ``split * epsilon`` goes to GPTT on all
    difference queries (of which the fraction ``query_share`` is query noise;
    0 = no query noise, as in the paper's experiments), the rest to one Laplace
    total per group.  The counts go into a :class:`GPTTOracle`; the attack
    (:func:`reconstruct_from_oracle`) sees only the oracle's answers.

    **The defaults follow the paper's Algorithms 3 and 4 in every step** ([CM15]
    Section 5, Tables 2 and 3): GPTT without query noise answers
    ``c(x) - c(y) >= T^`` for all ordered pairs of cells; cells are grouped when
    every query they appear in got the same answer (:func:`ordered_partition`);
    each group's noisy total, averaged and rounded, guesses its cells.  Two
    defaults are dpviz's choices where the paper leaves them open: T = 1/2
    (``threshold``) and an even ``split``, so both noises are ``Lap(2/epsilon)``.
    Our extensions, off by default: ``calibrate`` and ``estimator="ordered"``
    (a stronger attacker), ``query_share``/``copies`` (GPTT with query noise),
    and ``grouping="row"`` (a weaker reading of Algorithm 3).

    Parameters
    ----------
    counts : array_like of non-negative integers, shape (d,)
        The private histogram.
    epsilon : float
        Total (claimed) budget.
    split : float, default 0.5
        Fraction of epsilon given to GPTT, in (0, 1).
    query_share : float, default 0
        Fraction of GPTT's share spent on query noise, in [0, 1).
    copies : int, default 1
        Repetitions of each difference query (majority vote), useful with query noise.
    calibrate : bool, default False
        Locate the noisy threshold first and shift the queries (see :func:`calibrate_shift`;
        not in the paper).
    estimator : {"average", "ordered"}, default "average"
        The paper's rounded group averages, or :func:`ordered_estimate` (ours).
    threshold : float, default 0.5
        GPTT's threshold T (1/2 puts the no-noise threshold in the middle of (0, 1]).
    grouping : {"row_and_column", "row"}, default "row_and_column"
        How Algorithm 3 groups cells (see :func:`ordered_partition`).
    rng : None, int, SeedSequence or Generator
        Randomness of GPTT and of the Laplace totals.

    Returns
    -------
    Reconstruction
        ``guess`` (the guessed counts) and ``partition``.

    Raises
    ------
    ValueError, TypeError
        If ``counts`` are not non-negative integer counts, ``epsilon``,
        ``split``, ``query_share``, ``copies`` (an int in ``[1, 2**30]``),
        ``calibrate`` (a bool), ``threshold`` (a finite number, not a bool),
        ``estimator`` or ``grouping`` is invalid, or ``calibrate=True`` with a threshold budget
        ``(1 - query_share) * split * epsilon`` below
        :data:`MIN_CALIBRATED_EPSILON` (about 2.2e-18).  There is no
        ``accountant`` parameter (passing one is a TypeError): GPTT is NOT DP.

    References
    ----------
    See [CM15] (Section 5: Alg. 3, Alg. 4, Tables 2 and 3) in the module docstring.

    Examples
    --------
    >>> x = np.repeat([0, 1, 2, 3, 4, 5, 6, 7], 40)    # 320 cells, 40 of each count
    >>> r = reconstruct(x, 1.0, rng=0)                 # the paper's Algorithms 3 and 4
    >>> r.partition.n_groups, int((r.guess == x).sum())
    (8, 320)
    """
    counts = check_counts("counts", counts)
    eps_gptt, eps_totals = _split(epsilon, split)
    check_choice("estimator", estimator, ESTIMATORS)
    check_choice("grouping", grouping, GROUPINGS)
    query_share = check_probability("query_share", query_share, low_open=False, high_open=True)
    check_int("copies", copies, minimum=1, maximum=MAX_COPIES)
    threshold = check_real("threshold", threshold)
    if check_bool("calibrate", calibrate) and (1.0 - query_share) * eps_gptt < MIN_CALIBRATED_EPSILON:
        raise ValueError(
            f"calibrate=True cannot locate GPTT's noisy threshold when its budget (1 - query_share) * split * epsilon "
            f"= {(1.0 - query_share) * eps_gptt:.3g} is below {MIN_CALIBRATED_EPSILON:.3g} (epsilon={epsilon!r}, "
            f"split={split!r}, query_share={query_share!r}): its noise would exceed the 2**64 searched; "
            "raise epsilon or split, or pass calibrate=False")
    gen = as_generator(rng)
    eps_q = None if query_share == 0 else query_share * eps_gptt
    with blame(epsilon=epsilon, split=split, query_share=query_share):  # the stages' budgets come from these
        oracle = GPTTOracle(counts, (1.0 - query_share) * eps_gptt, eps_q, threshold=threshold, rng=gen)
        return reconstruct_from_oracle(oracle, eps_totals, copies=copies, calibrate=calibrate, estimator=estimator,
                                       grouping=grouping)


def laplace_reconstruct(counts: npt.ArrayLike, epsilon: float, *, rng: RngLike = None) -> np.ndarray:
    """The honest baseline: release every count with ``Lap(1/epsilon)`` noise and round (epsilon-DP).

    A histogram has L1 sensitivity 1 (adding or removing one record changes one
    count by one), so this is epsilon-DP [DMNS06];
    ``guess = max(0, round(c(x) + Lap(1/epsilon)))`` (post-processing: the
    clip at 0 can only help the baseline).

    Parameters
    ----------
    counts : array_like of non-negative numbers, shape (d,)
        The private histogram.
    epsilon : float
        Privacy budget, finite and > 0.
    rng : None, int, SeedSequence or Generator
        Source of the Laplace noise.

    Returns
    -------
    numpy.ndarray, shape (d,)
        The rounded, non-negative noisy counts.

    Raises
    ------
    ValueError, TypeError
        If ``counts`` are not non-negative finite counts or ``epsilon`` is not
        finite and > 0.

    References
    ----------
    See [DMNS06] in the module docstring.

    Examples
    --------
    >>> laplace_reconstruct([0, 3, 10], 10.0, rng=0)
    array([ 0.,  3., 10.])
    """
    counts = check_counts("counts", counts)
    epsilon = check_epsilon(epsilon)
    noisy = counts + scaled_laplace(laplace_scale(1.0, epsilon), counts.shape, rng=rng)
    return np.maximum(np.floor(noisy + 0.5), 0.0)
