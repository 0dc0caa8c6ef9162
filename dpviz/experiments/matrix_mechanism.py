"""Experiments for the matrix-mechanism lecture: strategy comparisons, per-query errors, Monte Carlo checks.

Everything returned is data (dataclasses of arrays); figures are drawn by
:mod:`dpviz.plots.matrix_mechanism`.  Expected errors are a unit-noise
variance (fixed by the workload and the strategy) times the noise variance
per measurement, so the unit variances are computed once per (workload, n)
and multiplied by :func:`dpviz.matrix_mechanism.noise_variance` at each
epsilon; pass a ``cache`` dict to reuse strategies, their factorisations and
these variances across calls (the explorer does).

References
----------
.. [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
   Linear Counting Queries Under Differential Privacy." PODS 2010.
.. [LM12] C. Li, G. Miklau. "An Adaptive Mechanism for Accurate Query Answering
   under Differential Privacy." PVLDB 5(6), 2012.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from dpviz import datasets
from dpviz import matrix_mechanism as mm
from dpviz import strategies as st
from dpviz import workloads as wl
from dpviz.mechanisms import laplace_variance
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_choice, check_counts, check_epsilon, check_int

__all__ = [
    "StrategyComparison",
    "compare_strategies",
    "comparison_table",
    "QueryErrorExperiment",
    "query_error_experiment",
    "ErrorByWidth",
    "error_by_width",
    "aggregate",
    "default_histogram",
    "MatrixMechanismRun",
    "matrix_mechanism_explorer_run",
]


@dataclass(frozen=True)
class StrategyComparison:
    """Expected total error of several strategies on one workload, beside the SVD lower bound.

    Attributes
    ----------
    workload : workload label
    n : domain size
    epsilon : privacy parameter
    delta : None (Laplace, epsilon-DP) or the Gaussian delta
    names, labels : strategy keys and display names
    total_error : (s,) expected total squared error of each strategy
    sensitivity : (s,) ||A||_1 (Laplace) or ||A||_2 (Gaussian) of each strategy
    rows : (s,) number of strategy queries
    lower_bound : SVD lower bound on the total error of any strategy
    direct_laplace : total error of the Laplace mechanism applied to W directly (no strategy)
    n_queries : number of workload queries
    """

    workload: str
    n: int
    epsilon: float
    delta: float | None
    names: tuple[str, ...]
    labels: tuple[str, ...]
    total_error: np.ndarray
    sensitivity: np.ndarray
    rows: np.ndarray
    lower_bound: float
    direct_laplace: float
    n_queries: int

    @property
    def ratio(self) -> np.ndarray:
        """Total error divided by the lower bound (>= 1)."""
        return self.total_error / self.lower_bound

    @property
    def per_query(self) -> np.ndarray:
        """Average expected squared error per workload query."""
        return self.total_error / self.n_queries

    def best(self) -> str:
        """Key of the strategy with the smallest error.

        Returns
        -------
        str
            One of ``names``.
        """
        return self.names[int(np.argmin(self.total_error))]


def _ls(name: str, W: wl.Workload, mechanism: str, cache: dict | None) -> mm.LeastSquares:
    key = ("ls", name, W.key, mechanism)
    if cache is not None and key in cache:
        return cache[key]
    ls = mm.LeastSquares(st.build(name, W, mechanism=mechanism, cache=cache))
    if cache is not None:
        cache[key] = ls
    return ls


def _unit_totals(W: wl.Workload, names: tuple[str, ...], mechanism: str,
                 cache: dict | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit-noise total variances tr(W^T W (A^T A)^+), sensitivities and row counts per strategy (cached)."""
    out = []
    for name in names:
        key = ("unit", name, W.key, mechanism)
        if cache is not None and key in cache:
            out.append(cache[key])
            continue
        ls = _ls(name, W, mechanism, cache)
        val = (ls.variances(W), ls.l1 if mechanism == "laplace" else ls.l2, ls.n_rows)
        if cache is not None:
            cache[key] = val
        out.append(val)
    v, s, r = zip(*out, strict=True)
    return np.array(v), np.array(s), np.array(r)


def compare_strategies(W: Any, epsilon: float = 1.0, names: Iterable[str] = st.STRATEGIES, *,
                       delta: float | None = None, cache: dict | None = None) -> StrategyComparison:
    """Expected total error of each strategy in ``names`` on workload ``W`` and the SVD lower bound.

    Total error ``v(A) tr(W^T W (A^T A)^+)`` with ``v(A) = 2 ||A||_1^2 / epsilon^2``
    (Laplace) or the Gaussian ``sigma(||A||_2)^2`` when ``delta`` is given
    [LHRMM10]_; lower bound ``(2/epsilon^2)(1/n)(sum of singular values)^2``
    (or its Gaussian form) [LM12]_.  With ``delta`` the eigen-design is optimised
    for L2 sensitivity, otherwise for L1.

    Parameters
    ----------
    W : Workload, array_like or scipy.sparse matrix
        The workload.
    epsilon : float, default 1.0
        Privacy parameter, > 0.
    names : iterable of str
        Strategy keys from :data:`dpviz.strategies.STRATEGIES`.
    delta : float, optional
        Compare under the Gaussian mechanism with this delta.
    cache : dict, optional
        Strategies, factorisations and unit variances already computed; filled in place.

    Returns
    -------
    StrategyComparison
        Totals, sensitivities and row counts per strategy, the lower bound and the direct Laplace error.

    Raises
    ------
    ValueError
        If ``epsilon`` <= 0 or a name is not a known strategy.

    Examples
    --------
    >>> c = compare_strategies(wl.all_ranges(4), 1.0, ("identity", "hierarchical_2"))
    >>> [round(float(v), 3) for v in c.total_error]
    [40.0, 125.143]
    """
    W = wl.as_workload(W, name="W")
    epsilon = check_epsilon(epsilon)
    names = tuple(check_choice("strategy", nm, st.STRATEGIES) for nm in names)
    mechanism = "laplace" if delta is None else "gaussian"
    unit, sens, rows = _unit_totals(W, names, mechanism, cache)
    if delta is None:
        noise = np.array([laplace_variance(s, epsilon) for s in sens])
    else:
        noise = np.array([mm.noise_variance(_ls(nm, W, mechanism, cache), epsilon, delta=delta) for nm in names])
    return StrategyComparison(
        workload=W.name, n=W.n, epsilon=epsilon, delta=delta, names=names,
        labels=tuple(st.LABELS[nm] for nm in names), total_error=noise * unit, sensitivity=sens, rows=rows,
        lower_bound=mm.svd_lower_bound(W, epsilon, delta=delta),
        direct_laplace=mm.direct_laplace_error(W, epsilon), n_queries=W.n_queries,
    )


def comparison_table(ns: Iterable[int] = (256, 1024), workloads: Iterable[str] = ("prefix", "all_ranges"),
                     epsilon: float = 1.0, names: Iterable[str] = st.STRATEGIES, *, delta: float | None = None,
                     cache: dict | None = None) -> list[StrategyComparison]:
    """:func:`compare_strategies` for every (workload, n) pair, workloads built by :func:`dpviz.workloads.build`.

    Parameters
    ----------
    ns : iterable of int
        Domain sizes.
    workloads : iterable of str
        Workload menu names (:data:`dpviz.workloads.WORKLOADS`).
    epsilon : float, default 1.0
        Privacy parameter, > 0.
    names : iterable of str
        Strategy keys.
    delta : float, optional
        Compare under the Gaussian mechanism with this delta.
    cache : dict, optional
        Shared cache (see :func:`compare_strategies`).

    Returns
    -------
    list of StrategyComparison
        One per (workload, n), workloads outermost.

    Raises
    ------
    ValueError
        If a size is < 1 or a name is unknown.
    TypeError
        If a size is not an integer.
    """
    names = tuple(names)
    out = []
    for name in workloads:
        for n in ns:
            out.append(compare_strategies(wl.build(name, check_int("n", n, minimum=1)), epsilon, names,
                                          delta=delta, cache=cache))
    return out


@dataclass(frozen=True)
class QueryErrorExperiment:
    """Monte Carlo errors of every workload query beside the exact prediction.

    Attributes
    ----------
    strategy : strategy key
    epsilon : privacy parameter
    predicted : (m,) exact expected squared error of each query
    simulated : (m,) Monte Carlo mean squared error of each query
    stderr : (m,) standard error of ``simulated`` (sample std of the squared errors / sqrt(trials))
    truth : (m,) true answers
    release : (m,) one noisy release of the answers
    noise_variance : variance of the noise on each strategy answer
    trials : number of Monte Carlo releases
    """

    strategy: str
    epsilon: float
    predicted: np.ndarray
    simulated: np.ndarray
    stderr: np.ndarray
    truth: np.ndarray
    release: np.ndarray
    noise_variance: float
    trials: int

    @property
    def total_predicted(self) -> float:
        """Expected total squared error."""
        return float(self.predicted.sum())

    @property
    def total_simulated(self) -> float:
        """Monte Carlo total squared error."""
        return float(self.simulated.sum())


def query_error_experiment(W: Any, A: Any, x: npt.ArrayLike, epsilon: float, trials: int, *, rng: RngLike = None,
                           strategy: str = "custom", predicted: npt.ArrayLike | None = None) -> QueryErrorExperiment:
    """Run ``trials`` matrix-mechanism releases and compare each query's squared error with the exact one.

    ``A`` may be a strategy matrix or a :class:`dpviz.matrix_mechanism.LeastSquares`
    (to reuse a factorisation); ``predicted`` may pass precomputed per-query
    errors at this epsilon.

    Parameters
    ----------
    W : Workload, array_like or scipy.sparse matrix
        The workload (m x n).
    A : array_like, scipy.sparse matrix, Workload or LeastSquares
        The strategy.
    x : array_like
        The (n,) histogram.
    epsilon : float
        Privacy parameter, > 0.
    trials : int
        Number of releases, >= 2.
    rng : None, int, SeedSequence or Generator
        Randomness (see :func:`dpviz.rng.as_generator`).
    strategy : str, default "custom"
        Label stored in the result.
    predicted : array_like, optional
        Exact per-query errors at this epsilon, if already known.

    Returns
    -------
    QueryErrorExperiment
        Simulated and exact per-query errors, with standard errors.

    Raises
    ------
    ValueError
        If ``trials`` < 2, ``epsilon`` <= 0, or the shapes do not match.
    TypeError
        If ``trials`` is not an integer.
    """
    trials = check_int("trials", trials, minimum=2)
    epsilon = check_epsilon(epsilon)
    W = wl.as_workload(W, name="W")
    ls = A if isinstance(A, mm.LeastSquares) else mm.LeastSquares(A)
    r = mm.run(W, ls, x, epsilon, rng=as_generator(rng), size=trials)
    sq = (r.answers - r.truth) ** 2
    if predicted is None:
        predicted = mm.expected_error(W, ls, epsilon, per_query=True)
    return QueryErrorExperiment(
        strategy=strategy, epsilon=epsilon, predicted=np.asarray(predicted, dtype=float), simulated=sq.mean(axis=0),
        stderr=sq.std(axis=0, ddof=1) / np.sqrt(trials), truth=r.truth, release=r.answers[0],
        noise_variance=r.noise_variance, trials=trials,
    )


@dataclass(frozen=True)
class ErrorByWidth:
    """Expected squared error of range queries averaged per width, for several strategies.

    Attributes
    ----------
    n, epsilon : domain size and privacy parameter
    widths : (n,) widths 1..n
    names, labels : strategy keys and display names
    mse : (s, n) average expected squared error of the ranges of each width
    """

    n: int
    epsilon: float
    widths: np.ndarray
    names: tuple[str, ...]
    labels: tuple[str, ...]
    mse: np.ndarray


def error_by_width(n: int, epsilon: float,
                   names: Iterable[str] = ("identity", "hierarchical_2", "hierarchical_4", "wavelet"),
                   *, cache: dict | None = None) -> ErrorByWidth:
    """Average expected error of all ranges of each width, per strategy (the slides' error-vs-width curves).

    Uses the exact per-query errors ``(2/eps^2)||A||_1^2 w (A^T A)^{-1} w^T``
    of the all-range workload, grouped by width.

    Parameters
    ----------
    n : int
        Domain size, >= 1.
    epsilon : float
        Privacy parameter, > 0.
    names : iterable of str
        Strategy keys.
    cache : dict, optional
        Shared cache of strategies and factorisations.

    Returns
    -------
    ErrorByWidth
        One curve of average error against width per strategy.

    Raises
    ------
    ValueError
        If ``n`` < 1, ``epsilon`` <= 0 or a name is unknown.
    TypeError
        If ``n`` is not an integer.
    """
    names = tuple(names)
    W = wl.all_ranges(check_int("n", n, minimum=1))
    epsilon = check_epsilon(epsilon)
    s, e = W.intervals()
    width = e - s
    counts = np.bincount(width, minlength=n + 1)[1:]
    out = []
    for name in names:
        ls = _ls(check_choice("strategy", name, st.STRATEGIES), W, "laplace", cache)
        per = mm.expected_error(W, ls, epsilon, per_query=True)
        out.append(np.bincount(width, weights=per, minlength=n + 1)[1:] / counts)
    return ErrorByWidth(n=n, epsilon=epsilon, widths=np.arange(1, n + 1), names=tuple(names),
                        labels=tuple(st.LABELS[nm] for nm in names), mse=np.array(out))


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
    n = check_int("n", n, minimum=1, maximum=x.size)
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
    """
    return aggregate(datasets.load(dataset), n)


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
        If ``n`` or ``trials`` is not an integer.
    """
    check_choice("workload", workload, wl.WORKLOADS)
    check_choice("strategy", strategy, st.STRATEGIES)
    n = check_int("n", n, minimum=2, maximum=256)
    epsilon = check_epsilon(epsilon)
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
    ls = _ls(strategy, W, "laplace", cache)
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
