"""Monte Carlo check of the matrix mechanism: simulated squared error of every query beside the exact one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from dpviz import matrix_mechanism as mm
from dpviz import strategies as st
from dpviz import workloads as wl
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    MAX_ELEMENTS,
    check_array,
    check_choice,
    check_elements,
    check_epsilon,
    check_int,
    check_work,
)

__all__ = ["QueryErrorExperiment", "query_error_experiment"]


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
        Key of the strategy (:data:`dpviz.strategies.STRATEGIES`), or "custom", stored in the result.
    predicted : array_like, optional
        Exact per-query errors at this epsilon, if already known.

    Returns
    -------
    QueryErrorExperiment
        Simulated and exact per-query errors, with standard errors.

    Raises
    ------
    ValueError
        If ``trials`` < 2, ``epsilon`` <= 0, ``strategy`` is unknown, the shapes do not match,
        ``predicted`` is not a finite non-negative (m,) array, or ``trials x (m + n + p)`` exceeds the
        element cap.
    TypeError
        If ``trials`` is not an integer.

    Examples
    --------
    >>> from dpviz import workloads
    >>> e = query_error_experiment(workloads.prefix(3), np.eye(3), [5, 1, 2], 1.0, 50, rng=0)
    >>> e.predicted.tolist(), e.simulated.shape   # prefix i sums i + 1 cells of variance 2
    ([2.0, 4.0, 6.0], (3,))
    """
    trials = check_int("trials", trials, minimum=2)
    epsilon = check_epsilon(epsilon)
    check_choice("strategy", strategy, (*st.STRATEGIES, "custom"))
    W = wl.as_workload(W, name="W")
    ls = A if isinstance(A, mm.LeastSquares) else mm.LeastSquares(A)
    check_elements(float(trials) * (float(ls.n_rows) + ls.n + 2.0 * W.n_queries),
                   "simulated measurements, estimates and answers", trials=trials)
    # per trial a fixed cost of about 64 numbers besides its (p + n + 2m): 10**7 trials of a 3 x 3 problem took
    # seconds while the explorer's largest run (5,000 trials of all ranges on 128 cells, 8.5e7 numbers) takes one
    check_work(float(trials) * (float(ls.n_rows) + ls.n + 2.0 * W.n_queries + 64.0), MAX_ELEMENTS,
               "simulated numbers (trials x (p + n + 2m + 64 per trial))", trials=trials)
    if predicted is not None:
        predicted = check_array("predicted", predicted, ndim=1)
        if predicted.size != W.n_queries or np.any(predicted < 0):
            raise ValueError(f"predicted must hold {W.n_queries} non-negative errors (one per query of W), "
                             f"got {predicted.size} entries with minimum {predicted.min(initial=0.0)}")
    r = mm.run(W, ls, x, epsilon, rng=as_generator(rng), size=trials)
    sq = (r.answers - r.truth) ** 2
    if predicted is None:
        predicted = mm.expected_error(W, ls, epsilon, per_query=True)
    return QueryErrorExperiment(
        strategy=strategy, epsilon=epsilon, predicted=np.asarray(predicted, dtype=float), simulated=sq.mean(axis=0),
        stderr=sq.std(axis=0, ddof=1) / np.sqrt(trials), truth=r.truth, release=r.answers[0],
        noise_variance=r.noise_variance, trials=trials,
    )
