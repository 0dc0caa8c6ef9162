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
from dpviz.validation import check_choice, check_elements, check_epsilon, check_int, check_sequence

__all__ = ["StrategyComparison", "compare_strategies", "comparison_table", "ErrorByWidth", "error_by_width",
           "least_squares_for"]


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


def _check_cache(cache: Any) -> dict | None:
    """``cache`` if it is a dict or None (the caches are filled in place)."""
    if cache is not None and not isinstance(cache, dict):
        raise TypeError(f"cache must be a dict or None, got {type(cache).__name__}")
    return cache


def _check_names(names: Any) -> tuple[str, ...]:
    """Strategy keys as a non-empty tuple, each one of :data:`dpviz.strategies.STRATEGIES`."""
    if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
        raise TypeError(f"names must be an iterable of strategy keys (e.g. ('identity', 'wavelet')), "
                        f"got {names!r}")
    out = tuple(names)
    if not out:
        raise ValueError(f"names must hold at least one strategy key of {st.STRATEGIES}, got none")
    for nm in out:
        if nm not in st.STRATEGIES:
            check_choice("names", nm, st.STRATEGIES)
    return out


def least_squares_for(name: str, W: wl.Workload, mechanism: str, cache: dict | None) -> mm.LeastSquares:
    """The least-squares reconstruction of a named strategy for ``W``, once per :func:`~dpviz.strategies.cache_key`.

    Parameters
    ----------
    name : str
        A strategy of :data:`dpviz.strategies.STRATEGIES`.
    W : Workload
        The workload the strategy is built for.
    mechanism : {"laplace", "gaussian"}
        Which sensitivity the strategy is optimised for.
    cache : dict or None
        Where built reconstructions are kept (None: build afresh).

    Returns
    -------
    LeastSquares
        The factorised reconstruction of the strategy.

    Examples
    --------
    >>> from dpviz import workloads
    >>> ls = least_squares_for("identity", workloads.prefix(8), "laplace", {})
    >>> ls.l1
    1.0
    """
    key = ("ls", *st.cache_key(name, W, mechanism))   # a fixed strategy's factorisation serves every workload
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
        ls = least_squares_for(name, W, mechanism, cache)
        val = (ls.variances(W), ls.l1 if mechanism == "laplace" else ls.l2, ls.n_rows)
        if cache is not None:
            cache[key] = val
        out.append(val)
    v, s, r = zip(*out, strict=True)
    return np.array(v), np.array(s), np.array(r)


def compare_strategies(W: Any, epsilon: float = 1.0, names: Iterable[str] | None = None, *,
                       delta: float | None = None, cache: dict | None = None) -> StrategyComparison:
    """Expected total error of each strategy in ``names`` on workload ``W`` and the SVD lower bound.

    Total error ``v(A) tr(W^T W (A^T A)^+)`` with ``v(A) = 2 ||A||_1^2 / epsilon^2``
    (Laplace) or the Gaussian ``sigma(||A||_2)^2`` when ``delta`` is given
    [LHRMM10]; lower bound ``(2/epsilon^2)(1/n)(sum of singular values)^2``
    (or its Gaussian form) [LM12].  With ``delta`` the optimised strategies are
    built for L2 sensitivity, otherwise for L1 (and the L2-only eigen-design is not offered).

    Parameters
    ----------
    W : Workload, array_like or scipy.sparse matrix
        The workload.
    epsilon : float, default 1.0
        Privacy parameter, > 0.
    names : iterable of str, optional
        Strategy keys from :data:`dpviz.strategies.STRATEGIES`; default all those offered for the mechanism
        (:func:`dpviz.strategies.for_mechanism`).
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
        If ``epsilon`` <= 0 (or so small that the errors overflow), ``names`` is empty or holds an unknown
        strategy (or the eigen-design without ``delta``), or ``delta`` is outside (0, 1).
    TypeError
        If ``names`` is not an iterable of strings or ``cache`` is not a dict.

    Examples
    --------
    >>> c = compare_strategies(wl.all_ranges(4), 1.0, ("identity", "hierarchical_2"))
    >>> [round(float(v), 3) for v in c.total_error]
    [40.0, 125.143]
    """
    W = wl.as_workload(W, name="W")
    epsilon = check_epsilon(epsilon)
    mechanism = "laplace" if delta is None else "gaussian"
    names = st.for_mechanism(mechanism) if names is None else _check_names(names)
    cache = _check_cache(cache)
    lower_bound = mm.svd_lower_bound(W, epsilon, delta=delta)  # checks delta, refuses an overflowing epsilon
    direct = mm.direct_laplace_error(W, epsilon)
    unit, sens, rows = _unit_totals(W, names, mechanism, cache)
    if delta is None:
        noise = np.array([laplace_variance(s, epsilon) for s in sens])
    else:
        noise = np.array([mm.noise_variance(least_squares_for(nm, W, mechanism, cache), epsilon, delta=delta)
                          for nm in names])
    total = noise * unit
    with np.errstate(all="ignore"):
        if not np.all(np.isfinite(total)):
            raise ValueError(f"epsilon={epsilon!r} is too small: the total errors overflow floating point "
                             "(use a larger epsilon)")
    return StrategyComparison(
        workload=W.name, n=W.n, epsilon=epsilon, delta=delta, names=names,
        labels=tuple(st.LABELS[nm] for nm in names), total_error=total, sensitivity=sens, rows=rows,
        lower_bound=lower_bound, direct_laplace=direct, n_queries=W.n_queries,
    )


def comparison_table(ns: Iterable[int] = (256, 1024), workloads: Iterable[str] = ("prefix", "all_ranges"),
                     epsilon: float = 1.0, names: Iterable[str] | None = None, *, delta: float | None = None,
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
    names : iterable of str, optional
        Strategy keys; default all those offered for the mechanism.
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
        If ``ns`` or ``workloads`` is empty, a size is < 1, a name is unknown, or ``epsilon`` <= 0.
    TypeError
        If a size is not an integer, or ``ns``, ``workloads`` or ``names`` is not an iterable.

    Examples
    --------
    >>> t = comparison_table((4, 8), ("prefix",), 1.0, ("identity", "wavelet"))
    >>> [(c.n, c.best()) for c in t]
    [(4, 'identity'), (8, 'identity')]
    """
    if isinstance(ns, (str, bytes)) or not isinstance(ns, Iterable):
        raise TypeError(f"ns must be an iterable of domain sizes, got {ns!r}")
    sizes = tuple(check_int(f"ns[{i}]", n, minimum=1) for i, n in enumerate(check_sequence("ns", ns)))
    if not sizes:
        raise ValueError("ns must hold at least one domain size, got none")
    if isinstance(workloads, (str, bytes)) or not isinstance(workloads, Iterable):
        raise TypeError(f"workloads must be an iterable of names of {wl.WORKLOADS}, got {workloads!r}")
    menu = tuple(check_choice("workloads", name, wl.WORKLOADS) for name in workloads)
    if not menu:
        raise ValueError(f"workloads must hold at least one name of {wl.WORKLOADS}, got none")
    names = st.for_mechanism("laplace" if delta is None else "gaussian") if names is None else _check_names(names)
    epsilon = check_epsilon(epsilon)
    cache = _check_cache(cache)
    out = []
    for name in menu:
        for n in sizes:
            out.append(compare_strategies(wl.build(name, n), epsilon, names, delta=delta, cache=cache))
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
        If ``n`` < 1, ``epsilon`` <= 0 (or so small that the errors overflow), or ``names`` is empty or
        holds an unknown strategy.
    TypeError
        If ``n`` is not an integer, ``names`` is not an iterable of strings or ``cache`` is not a dict.

    Examples
    --------
    >>> r = error_by_width(4, 1.0, ("identity",))
    >>> r.mse.tolist()   # width w: w identity cells, each of variance 2
    [[2.0, 4.0, 6.0, 8.0]]
    """
    names = _check_names(names)
    n = check_int("n", n, minimum=1)
    check_elements(float(n) * (n + 1) / 2, "range queries (all ranges)", n=n)
    W = wl.all_ranges(n)
    epsilon = check_epsilon(epsilon)
    cache = _check_cache(cache)
    s, e = W.intervals()
    width = e - s
    counts = np.bincount(width, minlength=n + 1)[1:]
    out = []
    for name in names:
        ls = least_squares_for(check_choice("strategy", name, st.STRATEGIES), W, "laplace", cache)
        per = mm.expected_error(W, ls, epsilon, per_query=True)
        out.append(np.bincount(width, weights=per, minlength=n + 1)[1:] / counts)
    return ErrorByWidth(n=n, epsilon=epsilon, widths=np.arange(1, n + 1), names=tuple(names),
                        labels=tuple(st.LABELS[nm] for nm in names), mse=np.array(out))
