"""One cell of the comparison: ``trials`` releases of one algorithm, scored on the workload."""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from dpviz import workloads
from dpviz.data_aware import Partition
from dpviz.histogram_algorithms import available_algorithms, release_histogram
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_bool, check_choice, check_counts, check_elements, check_epsilon, check_int

if TYPE_CHECKING:
    from dpviz.accountant import PrivacyAccountant

__all__ = ["AlgorithmRun", "run_algorithm", "stable_seed"]


@dataclass(frozen=True)
class AlgorithmRun:
    """``trials`` releases of one algorithm on one dataset at one epsilon, with their errors.

    Attributes
    ----------
    algorithm : str
        The algorithm's name (a key of :data:`dpviz.histogram_algorithms.ALGORITHMS`).
    epsilon : float
        Budget of each release.
    estimates : numpy.ndarray
        Shape (k, n): the released histograms.
    errors : numpy.ndarray or None
        Shape (k, m): the workload errors ``W x_hat - W x``, or None if not kept.
    scaled_errors : numpy.ndarray
        Shape (k,): DPBench's scaled error ``||W x_hat - W x||_2 / (m ||x||_1)`` per release.
    rmse : numpy.ndarray
        Shape (k,): root mean squared error per query, per release, in counts.
    partitions : list of Partition or None
        DAWA's learned partitions (one per release), or None for the other algorithms.
    seconds : float
        Wall time per release.
    """

    algorithm: str
    epsilon: float
    estimates: np.ndarray
    errors: np.ndarray | None
    scaled_errors: np.ndarray
    rmse: np.ndarray
    partitions: list[Partition] | None
    seconds: float


def run_algorithm(algorithm: str, x: ArrayLike, workload: workloads.Workload, epsilon: float, *, trials: int = 5,
                  rng: RngLike = None, keep_errors: bool = False,
                  accountant: PrivacyAccountant | None = None) -> AlgorithmRun:
    """Run ``trials`` independent releases of one algorithm and score them on the workload.

    The trials are independent releases of the same data, so the accountant
    (optional) is charged ``trials * epsilon`` (sequential composition), as by
    :func:`dpviz.histogram_algorithms.release_histogram` with ``size=trials``.

    Parameters
    ----------
    algorithm : str
        One of :func:`dpviz.histogram_algorithms.available_algorithms`.
    x : array_like, shape (n,)
        Histogram counts (the truth the releases are scored against).
    workload : Workload
        The :class:`dpviz.workloads.Workload` the errors are measured on, over the n cells.
    epsilon : float
        Budget > 0 of each release.
    trials : int, default 5
        Number of independent releases.
    rng : None, int, SeedSequence or Generator, optional
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    keep_errors : bool, default False
        Keep the (trials, m) per-query errors in the result.
    accountant : PrivacyAccountant, optional
        Charged ``trials * epsilon`` before any noise is drawn; refused, with
        nothing recorded, if it does not fit.

    Returns
    -------
    AlgorithmRun
        The releases, their scaled errors and RMSE per query, DAWA's partitions
        and the time per release.

    Raises
    ------
    TypeError, ValueError
        If ``algorithm`` is unknown, ``x`` is not a 1-D array of finite
        non-negative counts, ``workload`` is not a Workload over the n cells,
        epsilon is not > 0, ``trials`` is not a positive integer, ``keep_errors``
        is not a bool, ``trials x (n + queries)`` exceeds
        :data:`dpviz.validation.MAX_ELEMENTS`, or ``accountant`` is not a PrivacyAccountant.
    BudgetExceededError
        If ``accountant`` cannot afford ``trials * epsilon`` (nothing is recorded).

    Examples
    --------
    >>> run = run_algorithm("Identity", [10, 0, 0, 30, 30, 0, 0, 10], workloads.prefix(8), 1.0, trials=3, rng=0)
    >>> run.estimates.shape, run.rmse.shape, run.errors
    ((3, 8), (3,), None)
    """
    algorithm = check_choice("algorithm", algorithm, available_algorithms())
    x = check_counts("x", x)
    if not x.sum() >= 1e-100:  # checked before any release: the scaled errors divide by the total
        raise ValueError(f"x must have a positive total (scaled errors divide by ||x||_1), got total {x.sum():g}")
    if not isinstance(workload, workloads.Workload) or workload.n != x.size:
        raise ValueError(f"workload must be a dpviz.workloads.Workload over the n={x.size} cells of x, "
                         f"got {workload!r}")
    epsilon = check_epsilon(epsilon)
    trials = check_int("trials", trials, minimum=1)
    keep_errors = check_bool("keep_errors", keep_errors)
    check_elements(float(trials) * (x.size + workload.n_queries), "trials x (n + queries) estimates and errors",
                   trials=trials, n=x.size, queries=workload.n_queries)
    gen = as_generator(rng)
    t0 = time.perf_counter()
    rel = release_histogram(algorithm, x, workload, epsilon, rng=gen, size=trials, accountant=accountant)
    est, parts = rel.estimates, rel.partitions
    seconds = (time.perf_counter() - t0) / trials
    err = workload.answer(est) - workload.answer(x)
    norm = np.linalg.norm(err, axis=1)
    m = workload.n_queries
    return AlgorithmRun(algorithm, epsilon, est, err if keep_errors else None, norm / (m * x.sum()),
                        norm / np.sqrt(m), parts, seconds)


def stable_seed(seed: int, *parts: str) -> np.random.SeedSequence:
    """A seed for one cell of the grid from (seed, labels), so any subset of the grid reproduces the same numbers.

    Parameters
    ----------
    seed : int
        The run's seed.
    *parts : str
        Labels of the cell (algorithm, dataset, epsilon ...), hashed with CRC-32.

    Returns
    -------
    numpy.random.SeedSequence
        The cell's seed sequence, independent of which other cells run.

    Raises
    ------
    TypeError, ValueError
        If ``seed`` is not a non-negative integer or a part is not a str.

    Examples
    --------
    >>> stable_seed(0, "MWEM", "ADULT").entropy == stable_seed(0, "MWEM", "ADULT").entropy
    True
    """
    seed = check_int("seed", seed, minimum=0)
    for i, part in enumerate(parts):
        if not isinstance(part, str):
            raise TypeError(f"parts[{i}] must be a str label, got {part!r} ({type(part).__name__})")
    return np.random.SeedSequence([seed, *(zlib.crc32(p.encode()) for p in parts)])
