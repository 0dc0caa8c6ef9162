"""How MWEM learns: the error of its estimate after every round, over independent runs [HLM12]."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpviz import data_aware, workloads
from dpviz.experiments import check_band
from dpviz.rng import RngLike
from dpviz.validation import check_counts, check_elements, check_int

__all__ = ["RoundCurve", "mwem_error_by_round"]


@dataclass(frozen=True)
class RoundCurve:
    """RMSE per query of MWEM's estimate after each round (round 0 = the uniform start), over runs.

    Attributes
    ----------
    rounds : numpy.ndarray
        Shape (T+1,): the round numbers 0..T.
    mean : numpy.ndarray
        Shape (T+1,): mean over runs of the RMSE per query after each round.
    lower : numpy.ndarray
        Shape (T+1,): lower percentile of the band over runs.
    upper : numpy.ndarray
        Shape (T+1,): upper percentile of the band over runs.
    epsilon : float
        Total budget of each run.
    trials : int
        Number of runs.
    band : (float, float)
        The percentile band.
    """

    rounds: np.ndarray
    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    epsilon: float
    trials: int
    band: tuple[float, float]


def mwem_error_by_round(x: ArrayLike, workload: workloads.Workload, epsilon: float, *, rounds: int = 20,
                        trials: int = 20, rng: RngLike = 0,
                        band: tuple[float, float] = (5.0, 95.0)) -> RoundCurve:
    """Run MWEM ``trials`` times with T = ``rounds`` and score the estimate after every round [HLM12].

    Every prefix of an MWEM run is itself differentially private (it uses only
    the released selections and measurements so far), so the curve shows how
    the synthetic histogram learns the data round after round at a fixed total
    budget.

    Parameters
    ----------
    x : array_like, shape (n,)
        Histogram counts.
    workload : Workload
        The :class:`dpviz.workloads.Workload` MWEM selects from and is scored on.
    epsilon : float
        Total budget > 0 of each run.
    rounds : int, default 20
        Number of rounds T.
    trials : int, default 20
        Number of independent runs, >= 2.
    rng : None, int, SeedSequence or Generator, default 0
        Source of randomness.
    band : (float, float), default (5, 95)
        Percentiles of the band over runs.

    Returns
    -------
    RoundCurve
        Mean and band of the RMSE per query after each round.

    Raises
    ------
    TypeError, ValueError
        For bad counts, ``trials`` < 2, ``trials x (rounds + 1) x n`` above
        :data:`dpviz.validation.MAX_ELEMENTS`, an invalid band, a workload that is not
        a Workload over the n cells, or anything :func:`dpviz.data_aware.mwem`
        refuses (including runs above its work cap).

    Examples
    --------
    >>> curve = mwem_error_by_round([0, 0, 50, 0, 0, 0, 30, 0], workloads.prefix(8), 1.0, rounds=3, trials=4, rng=0)
    >>> curve.rounds.tolist(), curve.mean.shape, curve.trials
    ([0, 1, 2, 3], (4,), 4)
    """
    x = check_counts("x", x)
    if not isinstance(workload, workloads.Workload) or workload.n != x.size:
        raise ValueError(f"workload must be a dpviz.workloads.Workload over the n={x.size} cells of x, "
                         f"got {workload!r}")
    trials = check_int("trials", trials, minimum=2)
    rounds = check_int("rounds", rounds, minimum=1)
    check_elements(float(trials) * (rounds + 1) * x.size, "trials x (rounds + 1) x n kept histograms",
                   trials=trials, rounds=rounds, n=x.size)
    lo, hi = check_band(band)
    res = data_aware.mwem(x, workload, epsilon, rounds=rounds, keep_history=True, rng=rng, size=trials)
    if res.history is None:  # keep_history=True above
        raise RuntimeError("mwem returned no history")
    H = res.history.reshape(-1, x.size)
    err = workload.answer(H) - workload.answer(x)
    rmse = np.sqrt(np.mean(err**2, axis=1)).reshape(trials, -1)
    lower, upper = np.percentile(rmse, [lo, hi], axis=0)
    return RoundCurve(np.arange(rmse.shape[1]), rmse.mean(axis=0), lower, upper, float(epsilon), trials, (lo, hi))
