"""Strategy comparisons: exact total error of each strategy beside the SVD lower bound, error by range width.

Expected errors are a unit-noise variance (fixed by the workload and the
strategy) times the noise variance per measurement, so the unit variances are
computed once per (workload, n) and multiplied by
:func:`dpviz.matrix_mechanism.noise_variance` at each epsilon; pass a
``cache`` dict to reuse strategies, their factorisations and these variances
across calls.

References
----------
- [LHRMM10] C. Li, M. Hay, V. Rastogi, G. Miklau, A. McGregor. "Optimizing
  Linear Counting Queries Under Differential Privacy." PODS 2010.
- [LM12] C. Li, G. Miklau. "An Adaptive Mechanism for Accurate Query Answering
  under Differential Privacy." PVLDB 5(6), 2012.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpviz import matrix_mechanism as mm
from dpviz import strategies as st
from dpviz import workloads as wl
from dpviz.mechanisms import laplace_variance
from dpviz.validation import check_choice, check_epsilon, check_int

__all__ = ["StrategyComparison", "compare_strategies", "comparison_table", "ErrorByWidth", "error_by_width"]


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
    [LHRMM10]; lower bound ``(2/epsilon^2)(1/n)(sum of singular values)^2``
    (or its Gaussian form) [LM12].  With ``delta`` the eigen-design is optimised
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
