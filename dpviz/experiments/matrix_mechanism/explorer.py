"""The matrix-mechanism explorer's data: the default histogram and one explorer update."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpviz import datasets
from dpviz import matrix_mechanism as mm
from dpviz import strategies as st
from dpviz import workloads as wl
from dpviz.experiments.matrix_mechanism.comparison import StrategyComparison, compare_strategies, least_squares_for
from dpviz.experiments.matrix_mechanism.monte_carlo import QueryErrorExperiment, query_error_experiment
from dpviz.rng import RngLike
from dpviz.validation import check_choice, check_counts, check_epsilon, check_int

__all__ = ["aggregate", "default_histogram", "MatrixMechanismRun", "matrix_mechanism_explorer_run"]


def aggregate(x: npt.ArrayLike, n: int) -> np.ndarray:
    """Merge a histogram into ``n`` bins of (nearly) equal width by summing consecutive cells.

    Parameters
    ----------
    x : array_like
        1-D histogram of non-negative counts.
    n : int
        Number of bins, in ``[1, len(x)]``.

    Returns
    -------
    numpy.ndarray
        The (n,) merged histogram.

    Raises
    ------
    ValueError
        If ``x`` is not a histogram or ``n`` is out of range.
    TypeError
        If ``n`` is not an integer.

    Examples
    --------
    >>> aggregate([1, 2, 3, 4, 5, 6], 3).tolist()
    [3.0, 7.0, 11.0]
    """
    x = check_counts("x", x)
    n = check_int("n", n, minimum=1)
    if n > x.size:
        raise ValueError(f"n={n} must be at most the number of cells of x ({x.size}): merging cannot add cells")
    edges = np.floor(np.arange(n) * x.size / n).astype(int)
    return np.add.reduceat(x, edges)


def default_histogram(n: int, dataset: str = "adult") -> np.ndarray:
    """A DPBench histogram (default ADULT, 4096 cells) merged into ``n`` bins (see :func:`aggregate`).

    Parameters
    ----------
    n : int
        Number of bins.
    dataset : str, default "adult"
        Name for :func:`dpviz.datasets.load`.

    Returns
    -------
    numpy.ndarray
        The (n,) histogram.

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    ValueError
        If ``n`` is outside ``[1, cells of the dataset]`` or ``dataset`` is unknown.

    Examples
    --------
    >>> default_histogram(4).tolist()
    [16860.0, 671.0, 131.0, 3.0]
    """
    n = check_int("n", n, minimum=1)
    if not isinstance(dataset, str):
        raise TypeError(f"dataset must be a dataset name (str), got {dataset!r} of type {type(dataset).__name__}")
    try:
        hist = datasets.load(dataset)
    except ValueError as exc:
        raise ValueError(f"dataset={dataset!r}: {exc}") from None
    return aggregate(hist, n)


@dataclass(frozen=True)
class MatrixMechanismRun:
    """Everything the matrix-mechanism explorer draws.

    Attributes
    ----------
    workload : the workload label
    strategy : the selected strategy key
    n : domain size
    experiment : per-query Monte Carlo vs exact errors of the selected strategy
    comparison : expected total error of every strategy and the lower bound
    matrix : dense strategy matrix of the selected strategy (for the heat map)
    """

    workload: str
    strategy: str
    n: int
    experiment: QueryErrorExperiment
    comparison: StrategyComparison
    matrix: np.ndarray


def matrix_mechanism_explorer_run(workload: str, strategy: str, n: int, epsilon: float, trials: int, *,
                                  rng: RngLike = None, x: npt.ArrayLike | None = None,
                                  cache: dict | None = None) -> MatrixMechanismRun:
    """One explorer update: Monte Carlo of the chosen strategy, exact errors of all strategies, lower bound.

    Strategies, their factorisations and the epsilon = 1 errors are cached per
    (workload, n) in ``cache`` as unit-noise variances; a change of epsilon
    only multiplies them by the new noise variance and reruns the Monte Carlo.

    Parameters
    ----------
    workload : str
        Workload menu name (:data:`dpviz.workloads.WORKLOADS`).
    strategy : str
        Strategy key (:data:`dpviz.strategies.STRATEGIES`).
    n : int
        Domain size, in ``[2, 256]``.
    epsilon : float
        Privacy parameter, > 0.
    trials : int
        Number of Monte Carlo releases, >= 2.
    rng : None, int, SeedSequence or Generator
        Randomness of the Monte Carlo.
    x : array_like, optional
        Histogram of n cells (default: the ADULT histogram merged into n bins).
    cache : dict, optional
        Cache reused across calls; filled in place.

    Returns
    -------
    MatrixMechanismRun
        Everything the explorer draws.

    Raises
    ------
    ValueError
        If a name is unknown or a number is out of range.
    TypeError
        If ``n`` or ``trials`` is not an integer, or ``cache`` is not a dict.

    Examples
    --------
    >>> r = matrix_mechanism_explorer_run("prefix", "identity", 4, 1.0, 20, rng=0)
    >>> r.matrix.shape, r.experiment.predicted.tolist()   # prefix i sums i + 1 cells of variance 2
    ((4, 4), [2.0, 4.0, 6.0, 8.0])
    """
    check_choice("workload", workload, wl.WORKLOADS)
    check_choice("strategy", strategy, st.for_mechanism("laplace"))
    n = check_int("n", n, minimum=2, maximum=256)
    epsilon = check_epsilon(epsilon)
    trials = check_int("trials", trials, minimum=2)
    if cache is not None and not isinstance(cache, dict):
        raise TypeError(f"cache must be a dict or None, got {type(cache).__name__}")
    cache = {} if cache is None else cache
    key = ("workload", workload, n)
    if key not in cache:
        cache[key] = wl.build(workload, n)
    W = cache[key]
    if x is None:
        xkey = ("x", n)
        if xkey not in cache:
            cache[xkey] = default_histogram(n)
        x = cache[xkey]
    ls = least_squares_for(strategy, W, "laplace", cache)
    pkey = ("unit_per_query", strategy, W.key)
    if pkey not in cache:
        cache[pkey] = ls.variances(W, per_query=True)
    exp = query_error_experiment(W, ls, x, epsilon, trials, rng=rng, strategy=strategy,
                                 predicted=mm.noise_variance(ls, epsilon) * cache[pkey])
    comp = compare_strategies(W, epsilon, cache=cache)
    A = st.build(strategy, W, cache=cache)
    if isinstance(A, wl.Workload):
        A = A.matrix()
    dense = A.toarray() if hasattr(A, "toarray") else np.asarray(A)
    return MatrixMechanismRun(workload=W.name, strategy=strategy, n=n, experiment=exp, comparison=comp,
                              matrix=dense)
