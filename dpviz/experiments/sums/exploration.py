"""One configuration run many times, its error split into bias and variance per query (the explorer's call).

References
----------
- [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
  Summation Queries for Numerical Attributes under Differential Privacy."
  TPDP 2019, arXiv:1908.10268.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpviz import sums
from dpviz.experiments import TrialSummary, summarize
from dpviz.experiments.sums.bands import ErrorBands, error_bands
from dpviz.experiments.sums.cps import DEFAULTS, cps_problem
from dpviz.rng import RngLike
from dpviz.validation import check_elements, check_int, check_positive, check_work

__all__ = ["SumExploration", "explore"]


@dataclass(frozen=True)
class SumExploration:
    """One configuration run ``trials`` times (what the explorer shows).

    Parameters
    ----------
    release : dpviz.sums.SumRelease
        The release (answers (k, m), thresholds).
    summary : dpviz.experiments.TrialSummary
        Answers against the truth (mean, bias, variance, 5-95 % band).
    errors : ErrorBands
        Relative-error bands.
    truncated_truth : numpy.ndarray, shape (m,)
        Noise-free answers at the median threshold (what truncation alone gives).
    bias_closed_form : numpy.ndarray, shape (m,)
        Exact truncation bias averaged over the trials' thresholds.
    taus : numpy.ndarray, shape (k,)
        Thresholds (SQM: the threshold of its largest query).
    """

    release: sums.SumRelease
    summary: TrialSummary
    errors: ErrorBands
    truncated_truth: np.ndarray
    bias_closed_form: np.ndarray
    taus: np.ndarray

    @property
    def label(self) -> str:
        """The configuration's label (flags the non-private oracle)."""
        return self.release.label


def explore(problem: sums.SumProblem | None = None, *, epsilon: float = 1.0, algorithm: str = "tamm",
            truncation: str = "svt", ratio: float = DEFAULTS["ratio"], rho: float = DEFAULTS["rho"],
            isotonic: bool = True, beta: float = DEFAULTS["beta"], growth: float = DEFAULTS["growth"],
            floor: float = DEFAULTS["floor"], trials: int = 30, rng: RngLike = 0) -> SumExploration:
    """Run one configuration ``trials`` times and split its error into bias and variance per query.

    ``bias_closed_form`` is the exact truncation bias
    ``-sum_{j <= k_i} (v_j - tau)_+ x_j`` averaged over the drawn thresholds: the
    expected error of the answers when isotonic regression is off (SQM: its
    per-query thresholds).

    Parameters
    ----------
    problem : SumProblem, optional
        Default: :func:`cps_problem` with 100 queries.
    epsilon : float
        Total budget per trial.
    algorithm : str
        One of :data:`dpviz.sums.ALGORITHMS`.
    truncation : str
        One of :data:`dpviz.sums.THRESHOLD_METHODS` ("oracle" is NOT DP).
    ratio : float
        Truncation ratio p.
    rho : float
        Share of epsilon spent on the threshold.
    isotonic : bool
        Apply isotonic regression.
    beta : float
        Trade-off of the recursive-style threshold.
    growth : float
        Growth rate of the threshold grid.
    floor : float
        Floor of the relative error's denominator ``max(|y|, floor)``, in dollars (finite, > 0; the paper's
        delta, named ``floor`` because it is not a privacy parameter: any positive floor is valid).
    trials : int
        Number of trials (>= 2).
    rng : None, int, SeedSequence or Generator
        Randomness.

    Returns
    -------
    SumExploration
        The release, its summary against the truth and the closed-form bias.

    Raises
    ------
    ValueError
        For invalid parameters (see :func:`dpviz.sums.release`), or ``trials`` beyond the allocation cap.
    TypeError
        If ``problem`` is not a :class:`~dpviz.sums.SumProblem`.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([5, 1500, 2500, 2900], [1000, 3000], uniform_bins(1000, 3000))
    >>> e = explore(p, algorithm="identity", truncation="svt", trials=3)
    >>> e.taus.shape, e.summary.bias.shape
    ((3,), (2,))
    """
    problem = cps_problem(100) if problem is None else sums.check_problem(problem)
    trials = check_int("trials", trials, minimum=2)
    check_elements(float(trials) * (2 * problem.n + problem.m), "noisy counts and answers", trials=trials)
    check_work(float(trials), sums.MAX_RUNS, "runs (each with its own threshold search and isotonic fit)",
               trials=trials)
    floor = check_positive("floor", floor)
    rel = sums.release(problem, epsilon, algorithm=algorithm, truncation=truncation, ratio=ratio, rho=rho,
                       isotonic=isotonic, beta=beta, growth=growth, rng=rng, size=trials)
    taus = np.asarray(rel.tau)
    if taus.ndim == 2:   # SQM: one threshold per query
        bias = np.mean([sums.truncation_bias(problem, taus[:, i])[:, i] for i in range(problem.m)], axis=1)
        med = np.median(taus, axis=0)
        clean = np.array([sums.truncated_prefix_sums(problem, float(med[i]))[i] for i in range(problem.m)])
        shown = taus[:, -1]
    else:
        bias = sums.truncation_bias(problem, taus).mean(axis=0)
        clean = sums.truncated_prefix_sums(problem, float(np.median(taus)))
        shown = taus
    return SumExploration(release=rel, summary=summarize(rel.answers, problem.truth),
                          errors=error_bands(sums.relative_error(rel.answers, problem.truth, floor)),
                          truncated_truth=clean, bias_closed_form=bias, taus=shown)
