"""DAWA-style two-stage histogram [LHMW14]: a private partition, then least squares on the bucket totals.

Stage 1 samples a partition with :func:`dpviz.data_aware.partition.private_partition`'s
exponential mechanism; stage 2 measures the bucket totals with one of
:data:`STRATEGIES` and spreads each bucket's estimate evenly over its cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant import charge_all, float_at_most
from dpviz.data_aware.budget import _check_stages, _fraction
from dpviz.data_aware.partition import Partition, _sample_partitions, default_bucket_penalty, dyadic_deviations
from dpviz.data_aware.queries import _Queries, _queries_or_raise
from dpviz.mechanisms import laplace_scale, scaled_laplace
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_choice,
    check_counts,
    check_elements,
    check_epsilon,
    check_nonnegative,
    check_open_unit,
    check_trials,
)

if TYPE_CHECKING:
    from dpviz.accountant import PrivacyAccountant

__all__ = ["STRATEGIES", "DAWAResult", "dawa"]

#: Stage-2 strategies of :func:`dawa` for measuring the bucket totals.
STRATEGIES = ("hierarchical", "identity", "greedy_h")


@dataclass(frozen=True)
class DAWAResult:
    """What the DAWA-style algorithm released (one run, or ``size`` runs).

    Attributes
    ----------
    estimate : numpy.ndarray
        Shape (n,) or (k, n): cell estimates (each bucket's estimate spread evenly over its cells).
    partitions : Partition or list of Partition
        The learned partition, or a list of k of them.
    bucket_estimates : numpy.ndarray or list of numpy.ndarray
        Shape (p,), or a list of k such arrays: the least-squares bucket totals.
    epsilon : float
        Total budget spent.
    epsilon_partition : float
        Budget ``eps_1`` of stage 1 (the private partition).
    epsilon_measure : float
        Budget ``eps_2`` of stage 2 (measuring the bucket totals).
    bucket_penalty : float
        lambda used by the partition stage, in counts.
    strategy : str
        Name of the stage-2 strategy (one of :data:`STRATEGIES`).

    Examples
    --------
    >>> res = dawa([5] * 8 + [40] * 8, 1.0, strategy="identity", rng=0)
    >>> res.epsilon_partition, res.epsilon_measure, res.strategy
    (0.25, 0.75, 'identity')
    """

    estimate: np.ndarray
    partitions: Partition | list[Partition]
    bucket_estimates: np.ndarray | list[np.ndarray]
    epsilon: float
    epsilon_partition: float
    epsilon_measure: float
    bucket_penalty: float
    strategy: str


def dawa(x: ArrayLike, epsilon: float, workload: Any = None, *, partition_share: float = 0.25,
         bucket_penalty: float | None = None, strategy: str = "hierarchical", rng: RngLike = None,
         size: int | None = None, accountant: PrivacyAccountant | None = None) -> DAWAResult:
    """DAWA-style two-stage histogram [LHMW14]: private partition, then measure the buckets.

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
        Histogram counts.
    epsilon : float
        Total budget > 0.
    workload : Workload, (starts, stops) or matrix, optional
        Needed only for ``strategy="greedy_h"``: a :class:`dpviz.workloads.Workload`,
        half-open integer ranges or a (m, n) query matrix.
    partition_share : float in (0, 1), default 0.25
        Share of epsilon spent on the partition (0.25 is the paper's choice).
    bucket_penalty : float, optional
        lambda >= 0; default :func:`default_bucket_penalty` ``(eps_1, eps_2)``.
    strategy : {"hierarchical", "identity", "greedy_h"}, default "hierarchical"
        How the bucket totals are measured (see above).
    rng : None, int, SeedSequence or Generator, optional
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent runs; None (default) for one run.
    accountant : PrivacyAccountant, optional
        Charged eps_1 and eps_2 (two rows, :func:`dpviz.accountant.charge_all`)
        for each of the ``size`` independent runs: ``size * epsilon`` in all
        (sequential composition); refused, with nothing recorded, if it does not fit.

    Returns
    -------
    DAWAResult
        The cell estimates, the learned partitions, the bucket estimates and the
        budget of each stage.

    Raises
    ------
    TypeError
        If ``strategy="greedy_h"`` and the workload is missing or of the wrong
        type, or a number argument is not a number.
    ValueError
        For counts that are not finite and non-negative, epsilon <= 0, a stage
        budget below 1e-100 (its noise would overflow),
        ``partition_share`` outside (0, 1), a negative ``bucket_penalty``, an
        unknown ``strategy``, a workload not over the n cells, ``size`` times the
        padded domain above :data:`dpviz.validation.MAX_ELEMENTS`, or an
        ``accountant`` that is not a PrivacyAccountant (TypeError).
    BudgetExceededError
        If ``accountant`` cannot afford ``size * epsilon`` (nothing is recorded).

    References
    ----------
    See the package references: [LHMW14] (DAWA, GreedyH).

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
    _check_stages(f"epsilon={epsilon!r}, partition_share={partition_share!r}", eps_1=eps1, eps_2=eps2)
    lam = default_bucket_penalty(float(eps1), float(eps2)) if bucket_penalty is None \
        else check_nonnegative("bucket_penalty", bucket_penalty)
    size = check_trials(size)
    Q = None
    if strategy == "greedy_h":
        Q = _queries_or_raise(workload, x.size)
    k = 1 if size is None else size
    check_elements(2.0 * k * (1 << (x.size - 1).bit_length()), "size x padded domain coin flips and estimates",
                   size=size, n=x.size)
    gen = as_generator(rng)
    charge_all(accountant, [("DAWA stage 1: partition (exp. mech.)", eps1, 0),
                            (f"DAWA stage 2: buckets ({strategy})", eps2, 0)], size=size)
    devs = dyadic_deviations(x)
    parts = _sample_partitions(devs, x.size, float_at_most(eps1), lam, gen, k)
    est = np.empty((k, x.size))
    zs = []
    cache: dict[str, np.ndarray] = {}
    for t, part in enumerate(parts):
        z = part.aggregate(x)
        zhat = _measure_buckets(z, part, float_at_most(eps2), strategy, Q, gen, cache)
        zs.append(zhat)
        est[t] = part.expand(zhat)
    one = size is None
    return DAWAResult(
        estimate=est[0] if one else est, partitions=parts[0] if one else parts,
        bucket_estimates=zs[0] if one else zs, epsilon=float(eps), epsilon_partition=float(eps1),
        epsilon_measure=float(eps2), bucket_penalty=float(lam), strategy=strategy,
    )


def _measure_buckets(z: np.ndarray, part: Partition, eps2: float, strategy: str, Q: _Queries | None,
                     gen: np.random.Generator, cache: dict[str, np.ndarray]) -> np.ndarray:
    """Least-squares estimate of the bucket totals z from an eps2-DP measurement."""
    if strategy == "identity" or z.size == 1:
        return z + scaled_laplace(laplace_scale(1.0, eps2), z.size, rng=gen)
    if strategy == "hierarchical":
        from dpviz import hierarchy

        rel = hierarchy.measure(z, 2, eps2, rng=gen)
        return rel.leaves(constrained=True)
    if Q is None:  # dawa() builds Q whenever strategy == "greedy_h"
        raise TypeError("strategy 'greedy_h' needs a workload")
    return _greedy_h_buckets(z, part, eps2, Q, gen, cache)


def _reduced_gram(Q: _Queries, part: Partition, cache: dict[str, np.ndarray]) -> np.ndarray:
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
            cache["gram"] = W.T @ W if isinstance(W, np.ndarray) else np.asarray((W.T @ W).toarray())
    G = cache["gram"]
    Gr = np.add.reduceat(np.add.reduceat(G, part.starts, axis=0), part.starts, axis=1)
    return Gr / np.outer(part.sizes, part.sizes)


def _greedy_h_buckets(z: np.ndarray, part: Partition, eps2: float, Q: _Queries, gen: np.random.Generator,
                      cache: dict[str, np.ndarray]) -> np.ndarray:
    """GreedyH on the reduced workload, measured with Laplace noise and solved by least squares [LHMW14]."""
    from dpviz import matrix_mechanism, strategies, workloads

    A = strategies.greedy_h(_reduced_gram(Q, part, cache), gram=True)
    return matrix_mechanism.run(workloads.identity(z.size), A, z, eps2, rng=gen).estimate
