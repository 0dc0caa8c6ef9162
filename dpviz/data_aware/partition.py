"""Partitions of the domain into buckets, their L1 deviation, and DAWA's private choice of one [LHMW14].

A :class:`Partition` cuts the cells ``0..n-1`` into consecutive buckets.
:func:`bucket_deviation` and :func:`dyadic_deviations` measure how far a
bucket is from uniform; :func:`private_partition` samples a partition of
nearly-uniform aligned dyadic buckets with the exponential mechanism [MT07]
(stage 1 of :func:`dpviz.data_aware.dawa`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant import charge, float_at_most
from dpviz.data_aware.budget import _check_stages, _fraction
from dpviz.mechanisms import laplace_scale, standard_uniform
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    MAX_MAGNITUDE,
    check_array,
    check_counts,
    check_elements,
    check_epsilon,
    check_instance,
    check_int,
    check_int_array,
    check_nonnegative,
    check_trials,
)

if TYPE_CHECKING:
    from dpviz.accountant import PrivacyAccountant

__all__ = ["Partition", "bucket_deviation", "dyadic_deviations", "default_bucket_penalty", "private_partition"]


@dataclass(frozen=True)
class Partition:
    """A partition of the cells ``0..n-1`` into consecutive buckets.

    Parameters
    ----------
    starts : numpy.ndarray
        Shape (p,), integers: the first cell of each bucket (``starts[0] == 0``,
        strictly increasing, all below n).  Stored as int64.
    n : int
        Number of cells.

    Attributes
    ----------
    stops : numpy.ndarray
        Shape (p,): one past the last cell of each bucket (``stops[-1] == n``).

    Raises
    ------
    ValueError
        If ``starts`` is not 1-D, empty, does not start at 0, does not increase
        strictly, or reaches n.

    Examples
    --------
    >>> part = Partition(np.array([0, 2, 3]), 6)
    >>> part.sizes.tolist(), part.aggregate([1, 1, 4, 2, 2, 2]).tolist()
    ([2, 1, 3], [2.0, 4.0, 6.0])
    """

    starts: np.ndarray
    n: int
    stops: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", check_int("n", self.n, minimum=1))
        st = check_int_array("starts", self.starts, ndim=1)  # 0.5 would be truncated to 0 by an int cast
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

    def aggregate(self, x: ArrayLike) -> np.ndarray:
        """Bucket totals of ``x``, summed over the last axis.

        Parameters
        ----------
        x : array_like, shape (..., n)
            Cell values (one histogram or a stack of them).

        Returns
        -------
        numpy.ndarray
            Shape (..., p): the total of each bucket.

        Raises
        ------
        ValueError, TypeError
            If ``x`` is not an array of finite numbers (of magnitude at most 1e100) with n cells on its last axis.
        """
        x = check_array("x", x, ndim=tuple(range(1, 33)), max_abs=MAX_MAGNITUDE)
        if x.shape[-1] != self.n:
            raise ValueError(f"x must have n={self.n} cells on its last axis (the partition's), got shape {x.shape}")
        return np.add.reduceat(x, self.starts, axis=-1)

    def expand(self, totals: ArrayLike) -> np.ndarray:
        """Spread bucket totals evenly over their cells: cell i of bucket B gets ``total_B / |B|``.

        Parameters
        ----------
        totals : array_like, shape (..., p)
            One total per bucket (or a stack of them).

        Returns
        -------
        numpy.ndarray
            Shape (..., n): the cell values.
        """
        totals = np.asarray(totals, dtype=float)
        return np.repeat(totals / self.sizes, self.sizes, axis=-1)


def bucket_deviation(x: ArrayLike, partition: Partition) -> np.ndarray:
    """L1 deviation of each bucket from its mean, ``dev(B) = sum_{i in B} |x_i - mean_B(x)|`` [LHMW14].

    It is the L1 error of replacing the bucket's cells by their average: what a
    perfect (noise-free) bucket count, spread evenly, would still get wrong.

    Parameters
    ----------
    x : array_like, shape (n,)
        Histogram counts.
    partition : Partition
        A partition of the same n cells.

    Returns
    -------
    numpy.ndarray
        Shape (p,): ``dev(B)`` of each bucket, in counts.

    Raises
    ------
    TypeError, ValueError
        If ``x`` is not a 1-D array of finite non-negative counts.
    ValueError
        If ``partition`` is not a :class:`Partition` of ``x.size`` cells.

    References
    ----------
    See the package references: [LHMW14] (DAWA).

    Examples
    --------
    >>> bucket_deviation([1, 3, 5, 5], Partition(np.array([0, 2]), 4)).tolist()
    [2.0, 0.0]
    """
    x = check_counts("x", x)
    check_instance("partition", partition, Partition)
    if partition.n != x.size:
        raise ValueError(f"partition must be a Partition of the n={x.size} cells of x, got one of n={partition.n}")
    means = np.repeat(partition.aggregate(x) / partition.sizes, partition.sizes)
    return np.add.reduceat(np.abs(x - means), partition.starts)


def dyadic_deviations(x: ArrayLike) -> list[np.ndarray]:
    """``dev(B)`` of every aligned dyadic interval of ``x`` padded with zeros to ``N = 2^ceil(log2 n)``.

    Entry ``j`` of level ``l`` is the L1 deviation of the cells ``[j 2^l, (j+1) 2^l)``
    from their mean (level 0: single cells, deviation 0).  O(N log N).  These
    are the costs of every candidate bucket of :func:`private_partition`.

    Parameters
    ----------
    x : array_like, shape (n,)
        Histogram counts.

    Returns
    -------
    list of numpy.ndarray
        ``log2 N + 1`` arrays, level l of length ``N / 2^l``.

    Raises
    ------
    TypeError, ValueError
        If ``x`` is not a 1-D array of finite non-negative counts.

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

    ``1/eps_2`` is DAWA's trade-off [LHMW14]: measuring a bucket total with
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

    Parameters
    ----------
    epsilon_partition : float
        Budget ``eps_1`` > 0 of the partition stage.
    epsilon_measure : float or None
        Budget ``eps_2`` > 0 of the bucket measurement, or None to leave out the
        ``1/eps_2`` term.

    Returns
    -------
    float
        lambda, in counts.

    Raises
    ------
    TypeError, ValueError
        If a budget is not a finite number > 0.

    References
    ----------
    See the package references: [LHMW14] (DAWA), [MT07] (exponential mechanism).

    Examples
    --------
    >>> round(default_bucket_penalty(0.25, 0.75), 4)
    27.514
    """
    e1 = check_epsilon(epsilon_partition, "epsilon_partition")
    # the expected absolute error of one bucket total measured with Lap(1/eps_2) is its scale
    extra = 0.0 if epsilon_measure is None else laplace_scale(1.0, check_epsilon(epsilon_measure, "epsilon_measure"),
                                                                  name="epsilon_measure")
    penalty = extra + laplace_scale(4.0 * math.log(4.0) + 1.0, e1, name="epsilon_partition")
    if not math.isfinite(penalty):
        raise ValueError(f"epsilon_partition={epsilon_partition!r}, epsilon_measure={epsilon_measure!r} give an "
                         "infinite bucket penalty: raise them")
    return penalty


def private_partition(x: ArrayLike, epsilon: float, *, bucket_penalty: float | None = None, rng: RngLike = None,
                      size: int | None = None,
                      accountant: PrivacyAccountant | None = None) -> Partition | list[Partition]:
    """Sample a partition of ``x`` into nearly-uniform dyadic buckets with the exponential mechanism.

    Candidate partitions are the prunings of the binary tree over the domain
    padded to ``N = 2^ceil(log2 n)`` (every bucket an aligned dyadic interval;
    DAWA's approximate algorithm [LHMW14] likewise restricts bucket lengths to
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
    changes by at most ``2 (1 - 1/|B|) < 2`` (the mean moves by ``1/|B|``).  So the
    score ``-c(P)`` has sensitivity 2 for every P, and the exponential mechanism
    [MT07] with ``exp(epsilon * score / (2 * 2))`` is epsilon-DP.  ``lambda`` and
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
    rng : None, int, SeedSequence or Generator, optional
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent partitions to sample; None (default) for one.
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` (``size`` independent partitions, sequential
        composition; epsilon for one); refused, with nothing recorded, if it does not fit.

    Returns
    -------
    Partition or list of Partition
        The sampled partition, or a list of ``size`` of them.

    Raises
    ------
    TypeError, ValueError
        If ``x`` is not a 1-D array of finite non-negative counts, epsilon is not
        > 0 (or below 1e-100, whose scores would overflow), ``bucket_penalty``
        is negative, ``size`` is not a positive integer, ``size`` times the
        padded domain exceeds :data:`dpviz.validation.MAX_ELEMENTS`, or
        ``accountant`` is not a PrivacyAccountant.
    BudgetExceededError
        If ``accountant`` cannot afford ``size * epsilon`` (nothing is recorded).

    References
    ----------
    See the package references: [LHMW14] (DAWA), [MT07] (exponential mechanism).

    Examples
    --------
    >>> x = [10] * 8 + [200] * 8
    >>> private_partition(x, 10.0, rng=0).starts.tolist()
    [0, 8]
    """
    x = check_counts("x", x)
    eps = _fraction("epsilon", check_epsilon(epsilon))
    _check_stages(f"epsilon={epsilon!r}", partition=eps)
    lam = default_bucket_penalty(float(eps), None) if bucket_penalty is None \
        else check_nonnegative("bucket_penalty", bucket_penalty)
    size = check_trials(size)
    k = 1 if size is None else size
    check_elements(2.0 * k * (1 << (x.size - 1).bit_length()), "size x padded domain coin flips", size=size, n=x.size)
    gen = as_generator(rng)
    charge(accountant, eps, size=size, label="partition (exponential mechanism)")
    devs = dyadic_deviations(x)
    parts = _sample_partitions(devs, x.size, float_at_most(eps), lam, gen, 1 if size is None else size)
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
        stop = reached & (standard_uniform(reached.shape, rng=gen) < keep_p)
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
