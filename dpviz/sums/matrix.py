"""TiMM and TaMM's matrix-mechanism pieces: the prefix Gram matrix and GreedyH strategies cached per problem.

Both are the matrix mechanism [LMHMR15]_ for the workload ``W_s diag(v^tau)``
on the counts ``x`` ([WPKM19]_ Table 1): TiMM measures ``A = GreedyH(W_s)``
(chosen without looking at the truncation) on the weighted counts
``diag(v^tau) x``, i.e. the strategy ``A diag(v^tau)`` on ``x``; TaMM measures
``A = GreedyH(W_s diag(v^tau))`` on ``x``.  The strategies and their
least-squares factorisations are cached on the :class:`SumProblem`.

References
----------
.. [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
   Summation Queries for Numerical Attributes under Differential Privacy."
   TPDP 2019, arXiv:1908.10268.
.. [LMHMR15] C. Li, G. Miklau, M. Hay, A. McGregor, V. Rastogi. "The matrix
   mechanism: optimizing linear counting queries under differential privacy."
   VLDB Journal 24(6), 2015.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from dpviz.sums.bins import weighted_workload
from dpviz.sums.options import _check_names
from dpviz.sums.problem import SumProblem, _taus, check_problem
from dpviz.sums.truncation import truncate_weights
from dpviz.validation import MAX_MAGNITUDE, check_array

if TYPE_CHECKING:
    from dpviz.matrix_mechanism import LeastSquares
    from dpviz.workloads import Workload

__all__ = ["prefix_gram", "precompute_strategies"]


def prefix_gram(problem: SumProblem, weights: npt.ArrayLike | None = None) -> npt.NDArray[np.float64]:
    """Dense Gram matrix ``diag(v) W_s^T W_s diag(v)`` of the (weighted) prefix workload, in O(n^2).

    ``(W_s^T W_s)_{jl}`` counts the queries that contain both bins, which for
    prefixes is ``c_{max(j, l)}`` with ``c`` the column counts; no sparse product needed.

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem.
    weights : array_like of shape (n,), optional
        Column weights ``v``; ``None`` for the unweighted ``W_s^T W_s``.

    Returns
    -------
    numpy.ndarray, shape (n, n)
        The Gram matrix.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem`.
    ValueError
        If ``weights`` is not a finite 1-D array.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([1, 1000, 1001, 2500], [1000, 3000], uniform_bins(1000, 3000))
    >>> prefix_gram(p)
    array([[2., 1., 1.],
           [1., 1., 1.],
           [1., 1., 1.]])
    """
    problem = check_problem(problem)
    c = problem.column_counts()
    j = np.arange(problem.n)
    G = c[np.maximum(j[:, None], j[None, :])]
    if weights is not None:
        v = check_array("weights", weights, ndim=1, max_abs=MAX_MAGNITUDE)
        if v.size != problem.n:  # numpy would broadcast a single weight over every bin
            raise ValueError(f"weights must have one entry per bin (problem.n={problem.n}), got {v.size}")
        G = G * v[:, None] * v[None, :]
    return G


def _strategy(problem: SumProblem, algorithm: str, tau: float) -> Any:
    """GreedyH strategy (cached per problem and tau): TiMM on ``W_s``, TaMM on ``W_s diag(v^tau)``."""
    from dpviz.strategies import greedy_h

    key: tuple[Any, ...] = ("timm",) if algorithm == "timm" else ("tamm", tau)
    if key not in problem._cache:
        if algorithm == "timm":
            A = greedy_h(prefix_gram(problem), gram=True)
        else:
            A = greedy_h(prefix_gram(problem, truncate_weights(problem.weights, tau)), gram=True)
        problem._cache[key] = A
    return problem._cache[key]


def _mm_pair(problem: SumProblem, algorithm: str, tau: float) -> tuple[Workload, LeastSquares]:
    """(workload on x, factorised strategy on x) for TiMM / TaMM at one tau, cached per problem."""
    from dpviz.matrix_mechanism import LeastSquares
    from dpviz.workloads import from_matrix

    key = ("ls", algorithm, tau)
    if key not in problem._cache:
        vt = truncate_weights(problem.weights, tau)
        Wt = weighted_workload(problem.workload, vt)
        A = _strategy(problem, algorithm, tau)
        sparse = sp.issparse(A)   # a plain bool: A stays Any for scipy-stubs' csr_array overloads
        if algorithm == "timm":   # measure A on the weighted counts diag(v^tau) x
            A = sp.csr_array(sp.csr_array(A) @ sp.diags_array(vt)) if sparse else np.asarray(A) * vt[None, :]
        problem._cache[key] = (from_matrix(Wt, name=f"W_s diag(v^tau), tau={tau:g}"), LeastSquares(A))
    return problem._cache[key]


def precompute_strategies(problem: SumProblem, taus: npt.ArrayLike,
                          algorithms: Iterable[str] = ("timm", "tamm")) -> int:
    """Compute and cache the GreedyH strategies and least-squares factorisations for the given thresholds.

    TiMM and TaMM need one factorised strategy per distinct threshold (TaMM also
    one GreedyH run).  They are cached on ``problem``; calling this once for a
    public grid of thresholds (e.g. :func:`dpviz.sums.threshold_grid`) keeps later
    releases fast.  Uses no private data beyond what :func:`dpviz.sums.prepare`
    holds and releases nothing.

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem; the cache lives on it.
    taus : float or array_like of shape (k,)
        Truncation thresholds (``inf``: none); duplicates are computed once.
    algorithms : iterable of {"timm", "tamm"}
        Which algorithms to prepare.

    Returns
    -------
    int
        The number of (algorithm, threshold) pairs now cached.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem`.
    ValueError
        If a threshold is NaN or <= 0, or an algorithm is not "timm" or "tamm".

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([1, 1000, 1001, 2500], [1000, 3000], uniform_bins(1000, 3000))
    >>> precompute_strategies(p, [1500.0, np.inf], algorithms=("tamm",))
    2
    """
    problem = check_problem(problem)
    t = np.unique(_taus(taus, "taus"))
    algs = _check_names("algorithms", algorithms, ("timm", "tamm"))
    for a in algs:
        for tau in t:
            _, ls = _mm_pair(problem, a, float(tau))
            ls.estimate(np.zeros((2, ls.n_rows)))   # the first solve of a fresh factorisation is slow; do it now
    return len(algs) * t.size
