"""Monte Carlo experiments for prefix-sum queries with truncation ([WPKM19]_ Sec. 4).

:func:`compare_algorithms` runs the seed's experiment: every algorithm, with
and without a truncation subroutine, ``trials`` times, one shared threshold
per trial and truncation method (the seed's Algorithm 9; SQM picks its own per
query), with and without isotonic regression (on the *same* noisy answers, so
the comparison is paired).  It returns arrays: answers, thresholds, relative
errors and their 5-95 % bands.  :func:`explore` is the one call behind
:class:`dpviz.widgets.SumQueryExplorer`: one configuration, answers against the
truth, bias and variance per query split out, the thresholds drawn.

References
----------
.. [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
   Summation Queries for Numerical Attributes under Differential Privacy."
   TPDP 2019, arXiv:1908.10268.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpviz import sums
from dpviz.experiments import TrialSummary, check_band, summarize
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_choice, check_epsilon, check_int, check_open_unit, check_positive, check_probability

__all__ = ["cps_problem", "ErrorBands", "error_bands", "SumComparison", "compare_algorithms", "RatioSweep",
           "ratio_sweep", "SumExploration", "explore", "DEFAULTS"]

#: Parameters used by the lecture and the explorer (ours: the seed's values are lost in its text).
DEFAULTS = dict(epsilon=1.0, ratio=0.999, rho=0.1, beta=1e-3, growth=1.1, delta=1.0)

#: A configuration: (algorithm, truncation, isotonic).
Config = tuple[str, str, bool]

_PROBLEMS: dict[tuple[int, float], sums.SumProblem] = {}


def cps_problem(m: int = 100, width: float = 1000.0) -> sums.SumProblem:
    """The CPS income prefix-sum problem: ``m`` evenly spaced queries on bins of ``width`` dollars up to $1M.

    Default: $1,000 bins (:func:`dpviz.sums.cps_income_bins`) and the 100
    thresholds $10k, $20k, ..., $1M of the seed's Example 1.  The explorer
    uses ``width=10_000`` (100 bins, one per query) to stay interactive.
    Cached per ``(m, width)``.

    Parameters
    ----------
    m : int
        Number of queries; must divide the number of bins ``1e6 / width``.
    width : float
        Bin width in dollars (> 0, dividing $1,000,000).

    Returns
    -------
    dpviz.sums.SumProblem
        The vectorised CPS incomes with the m prefix queries.

    Raises
    ------
    ValueError
        If ``width`` does not divide $1M or ``m`` does not divide the number of bins.
    TypeError
        If ``m`` is not an integer.
    """
    from dpviz.datasets import load

    width = check_positive("width", width)
    bins = sums.uniform_bins(width, 1_000_000.0)
    m = check_int("m", m, minimum=1, maximum=bins.size)
    if bins.size % m:
        raise ValueError(f"m must divide the number of bins ({bins.size}), got {m}")
    key = (m, width)
    if key not in _PROBLEMS:
        step = bins.size // m
        _PROBLEMS[key] = sums.prepare(load("CPS", column="income"), bins[step - 1::step], bins)
    return _PROBLEMS[key]


@dataclass(frozen=True)
class ErrorBands:
    """Relative error per query over trials: mean and central band (default 5-95 %).

    Parameters
    ----------
    mean : numpy.ndarray, shape (m,)
        Mean relative error of each query over the trials.
    lower : numpy.ndarray, shape (m,)
        Lower percentile of the band.
    upper : numpy.ndarray, shape (m,)
        Upper percentile of the band.
    band : tuple of float
        The two percentiles, e.g. ``(5.0, 95.0)``.
    """

    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    band: tuple[float, float]

    @property
    def overall(self) -> float:
        """Mean relative error over trials and queries (one number per configuration)."""
        return float(self.mean.mean())


def error_bands(rel_error: npt.ArrayLike, band: tuple[float, float] = (5.0, 95.0)) -> ErrorBands:
    """Mean and ``band`` percentiles over trials (axis 0) of relative errors of shape (k, m).

    Parameters
    ----------
    rel_error : array_like, shape (k, m)
        Relative errors, one row per trial.
    band : tuple of float
        Central percentile band ``(lo, hi)`` with ``0 <= lo < hi <= 100``.

    Returns
    -------
    ErrorBands
        Mean, lower and upper percentile per query.

    Raises
    ------
    ValueError
        If ``rel_error`` is not 2-D with at least one trial, or ``band`` is invalid.
    """
    lo, hi = check_band(band)
    e = np.asarray(rel_error, dtype=float)
    if e.ndim != 2 or e.shape[0] < 1:
        raise ValueError(f"rel_error must have shape (trials, queries), got {e.shape}")
    lower, upper = np.percentile(e, [lo, hi], axis=0)
    return ErrorBands(mean=e.mean(axis=0), lower=lower, upper=upper, band=(lo, hi))


@dataclass(frozen=True)
class SumComparison:
    """Answers and relative errors of many configurations on one problem.

    Keys of ``answers`` and ``errors`` are ``(algorithm, truncation, isotonic)``.

    Parameters
    ----------
    thresholds : numpy.ndarray, shape (m,)
        Query thresholds.
    truth : numpy.ndarray, shape (m,)
        True prefix sums.
    answers : dict
        Configuration -> (k, m) noisy answers.
    errors : dict
        Configuration -> (k, m) relative errors ``|y^ - y| / max(y, delta)``.
    taus : dict
        Truncation -> (k,) threshold shared by the batch algorithms (``inf``: none).
    sqm_taus : dict
        Truncation -> (k, m) SQM's per-query thresholds.
    epsilon : float
        Budget per trial and algorithm.
    ratio : float
        Truncation ratio p.
    rho : float
        Share of epsilon spent on the threshold.
    beta : float
        Trade-off of the recursive-style threshold.
    delta : float
        Smoothing of the relative error.
    trials : int
        Number of trials k.
    """

    thresholds: np.ndarray
    truth: np.ndarray
    answers: dict[Config, np.ndarray]
    errors: dict[Config, np.ndarray]
    taus: dict[str, np.ndarray]
    sqm_taus: dict[str, np.ndarray]
    epsilon: float
    ratio: float
    rho: float
    beta: float
    delta: float
    trials: int

    def bands(self, algorithm: str, truncation: str = "svt", isotonic: bool = True,
              band: tuple[float, float] = (5.0, 95.0)) -> ErrorBands:
        """Relative-error bands of one configuration.

        Parameters
        ----------
        algorithm : str
            One of :data:`dpviz.sums.ALGORITHMS` that was run.
        truncation : str
            One of the truncation methods that was run.
        isotonic : bool
            With or without isotonic regression.
        band : tuple of float
            Central percentile band.

        Returns
        -------
        ErrorBands
            Mean and band of the relative error per query.
        """
        return error_bands(self.errors[(algorithm, truncation, isotonic)], band)

    def answer_summary(self, algorithm: str, truncation: str = "svt", isotonic: bool = True,
                       band: tuple[float, float] = (5.0, 95.0)) -> TrialSummary:
        """Mean, bias, variance and band of the answers of one configuration against the truth.

        Parameters
        ----------
        algorithm : str
            One of :data:`dpviz.sums.ALGORITHMS` that was run.
        truncation : str
            One of the truncation methods that was run.
        isotonic : bool
            With or without isotonic regression.
        band : tuple of float
            Central percentile band.

        Returns
        -------
        dpviz.experiments.TrialSummary
            Per-query statistics of the answers.
        """
        return summarize(self.answers[(algorithm, truncation, isotonic)], self.truth, band)

    def overall(self, algorithm: str, truncation: str = "svt", isotonic: bool = True) -> float:
        """Mean relative error over trials and queries.

        Parameters
        ----------
        algorithm : str
            One of :data:`dpviz.sums.ALGORITHMS` that was run.
        truncation : str
            One of the truncation methods that was run.
        isotonic : bool
            With or without isotonic regression.

        Returns
        -------
        float
            The mean relative error of that configuration.
        """
        return float(self.errors[(algorithm, truncation, isotonic)].mean())

    def table(self) -> list[tuple[str, str, bool, float]]:
        """``(algorithm, truncation, isotonic, overall mean relative error)`` for every configuration.

        Returns
        -------
        list of tuple
            One row per configuration, in the order they were run.
        """
        return [(a, t, i, float(e.mean())) for (a, t, i), e in self.errors.items()]


def compare_algorithms(problem: sums.SumProblem | None = None, *, epsilon: float = 1.0,
                       algorithms: Iterable[str] = sums.ALGORITHMS,
                       truncations: Iterable[str] = ("none", "svt", "recursive"),
                       isotonic: Iterable[bool] = (True, False), ratio: float = DEFAULTS["ratio"],
                       rho: float = DEFAULTS["rho"], beta: float = DEFAULTS["beta"],
                       growth: float = DEFAULTS["growth"], delta: float = DEFAULTS["delta"], trials: int = 100,
                       rng: RngLike = 0) -> SumComparison:
    """Run every configuration ``trials`` times, as in [WPKM19]_ Sec. 4 (Algorithm 9).

    Per truncation method one threshold per trial is drawn with ``rho * epsilon``
    and shared by Identity, Workload, TiMM and TaMM; each then answers with the
    remaining ``(1 - rho) epsilon``.  SQM splits ``epsilon`` over its m queries
    and chooses a threshold per query.  Isotonic regression is applied to the
    same noisy answers (paired comparison).

    Parameters
    ----------
    problem : SumProblem, optional
        Default: :func:`cps_problem` with 100 queries.
    epsilon : float
        Budget per trial and algorithm.
    algorithms : iterable of str
        Algorithms to run (see :data:`dpviz.sums.ALGORITHMS`).
    truncations : iterable of str
        Threshold methods to run (see :data:`dpviz.sums.THRESHOLD_METHODS`).
    isotonic : iterable of bool
        Which post-processing variants to report.
    ratio : float
        Truncation ratio p (see :func:`dpviz.sums.answer_prefix_sums`).
    rho : float
        Share of epsilon spent on the threshold.
    beta : float
        Trade-off of the recursive-style threshold.
    growth : float
        Growth rate of the threshold grid.
    delta : float
        Smoothing of the relative error.
    trials : int
        Number of trials (>= 2).
    rng : None, int, SeedSequence or Generator
        Seed; each truncation method and algorithm gets its own spawned stream, so a
        configuration's numbers do not depend on which others run beside it.

    Returns
    -------
    SumComparison
        Answers, relative errors and thresholds of every configuration.

    Raises
    ------
    ValueError
        For an unknown algorithm or truncation method, or invalid parameters.
    TypeError
        If ``problem`` is not a :class:`~dpviz.sums.SumProblem`.
    """
    problem = cps_problem(100) if problem is None else sums.check_problem(problem)
    epsilon = check_epsilon(epsilon)
    ratio = check_probability("ratio", ratio)
    rho = check_open_unit("rho", rho)
    beta = check_positive("beta", beta)
    delta = check_positive("delta", delta)
    trials = check_int("trials", trials, minimum=2)
    algorithms = [check_choice("algorithm", a, sums.ALGORITHMS) for a in algorithms]
    truncations = [check_choice("truncation", t, sums.THRESHOLD_METHODS) for t in truncations]
    isotonic = [bool(i) for i in isotonic]
    # one independent stream per (truncation, algorithm): a configuration's numbers do not depend on which
    # other configurations are run alongside it
    streams = as_generator(rng).spawn(len(sums.THRESHOLD_METHODS))
    answers: dict[Config, np.ndarray] = {}
    errors: dict[Config, np.ndarray] = {}
    taus: dict[str, np.ndarray] = {}
    sqm_taus: dict[str, np.ndarray] = {}
    for trunc in truncations:
        tgen = streams[sums.THRESHOLD_METHODS.index(trunc)]
        gen, *agens = tgen.spawn(1 + len(sums.ALGORITHMS))
        eps_thr, eps_ans = (float(e) for e in sums.split_budget(epsilon, rho, trunc))
        # eps_thr = 0 for "oracle" and "none", which spend nothing (choose_threshold ignores it there)
        t = np.asarray(sums.choose_threshold(problem, eps_thr, trunc, ratio=ratio, beta=beta, growth=growth,
                                             rng=gen, size=trials))
        taus[trunc] = t
        for alg in algorithms:
            gen = agens[sums.ALGORITHMS.index(alg)]
            if alg == "sqm":
                st = sums.sqm_thresholds(problem, eps_thr, trunc, ratio=ratio, beta=beta, growth=growth, rng=gen,
                                         size=trials)
                sqm_taus[trunc] = st
                raw = sums.sqm_answers(problem, st, eps_ans, rng=gen)
            else:
                raw = sums.answer_with_threshold(problem, alg, t, eps_ans, rng=gen)
            for iso in isotonic:
                ans = sums.isotonic(raw) if iso else raw
                answers[(alg, trunc, iso)] = ans
                errors[(alg, trunc, iso)] = sums.relative_error(ans, problem.truth, delta)
    return SumComparison(thresholds=problem.thresholds.copy(), truth=problem.truth.copy(), answers=answers,
                         errors=errors, taus=taus, sqm_taus=sqm_taus, epsilon=epsilon, ratio=ratio, rho=rho,
                         beta=beta, delta=delta, trials=trials)


@dataclass(frozen=True)
class RatioSweep:
    """Overall mean relative error against the truncation ratio p (SVT thresholds), per algorithm.

    Parameters
    ----------
    ratios : numpy.ndarray, shape (r,)
        The p values.
    errors : dict
        Algorithm -> (r,) mean relative error with Trunc(SVT) at each p.
    no_truncation : dict
        Algorithm -> mean relative error without truncation (whole budget on the answers).
    median_tau : numpy.ndarray, shape (r,)
        Median SVT threshold at each p.
    """

    ratios: np.ndarray
    errors: dict[str, np.ndarray]
    no_truncation: dict[str, float]
    median_tau: np.ndarray


def ratio_sweep(problem: sums.SumProblem | None = None,
                ratios: Sequence[float] = (0.9, 0.95, 0.99, 0.995, 0.999, 0.9995), *, epsilon: float = 1.0,
                algorithms: Iterable[str] = sums.ALGORITHMS, rho: float = DEFAULTS["rho"],
                growth: float = DEFAULTS["growth"], trials: int = 50, rng: RngLike = 0) -> RatioSweep:
    """Where does truncation pay?  :func:`compare_algorithms` with Trunc(SVT) at each ratio p, isotonic on.

    Small p truncates many records (large bias, small noise), p near 1 truncates
    almost nothing (no bias, the noise of the full domain).

    Parameters
    ----------
    problem : SumProblem, optional
        Default: :func:`cps_problem` with 100 queries.
    ratios : sequence of float
        Truncation ratios p in (0, 1].
    epsilon : float
        Budget per trial and algorithm.
    algorithms : iterable of str
        Algorithms to run.
    rho : float
        Share of epsilon spent on the SVT threshold.
    growth : float
        Growth rate of the threshold grid.
    trials : int
        Trials per ratio (>= 2).
    rng : None, int, SeedSequence or Generator
        Seed, reused at every ratio (common random numbers across p).

    Returns
    -------
    RatioSweep
        Mean relative error per algorithm and ratio, and without truncation.

    Raises
    ------
    ValueError
        For a ratio outside (0, 1] or invalid parameters.
    TypeError
        If ``problem`` is not a :class:`~dpviz.sums.SumProblem`.
    """
    problem = cps_problem(100) if problem is None else sums.check_problem(problem)
    ratio_arr = np.array([check_probability("ratio", r) for r in ratios])
    base = compare_algorithms(problem, epsilon=epsilon, algorithms=algorithms, truncations=("none",),
                              isotonic=(True,), trials=trials, rng=rng)
    errs = {a: np.empty(ratio_arr.size) for a in base_algs(base)}
    med = np.empty(ratio_arr.size)
    for i, r in enumerate(ratio_arr):
        c = compare_algorithms(problem, epsilon=epsilon, algorithms=algorithms, truncations=("svt",),
                               isotonic=(True,), ratio=float(r), rho=rho, growth=growth, trials=trials, rng=rng)
        for a in errs:
            errs[a][i] = c.overall(a, "svt", True)
        med[i] = float(np.median(c.taus["svt"]))
    return RatioSweep(ratios=ratio_arr, errors=errs,
                      no_truncation={a: base.overall(a, "none", True) for a in errs}, median_tau=med)


def base_algs(comp: SumComparison) -> list[str]:
    """Algorithms present in a comparison, in the seed's order.

    Parameters
    ----------
    comp : SumComparison
        A comparison from :func:`compare_algorithms`.

    Returns
    -------
    list of str
        The algorithms that were run, ordered as :data:`dpviz.sums.ALGORITHMS`.
    """
    present = {a for a, _, _ in comp.errors}
    return [a for a in sums.ALGORITHMS if a in present]


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
            delta: float = DEFAULTS["delta"], trials: int = 30, rng: RngLike = 0) -> SumExploration:
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
    delta : float
        Smoothing of the relative error.
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
        For invalid parameters (see :func:`dpviz.sums.release`).
    TypeError
        If ``problem`` is not a :class:`~dpviz.sums.SumProblem`.
    """
    problem = cps_problem(100) if problem is None else sums.check_problem(problem)
    trials = check_int("trials", trials, minimum=2)
    rel = sums.release(problem, epsilon, algorithm=algorithm, truncation=truncation, ratio=ratio, rho=rho,
                       isotonic=isotonic, beta=beta, growth=growth, rng=rng, size=trials)
    delta = check_positive("delta", delta)
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
                          errors=error_bands(sums.relative_error(rel.answers, problem.truth, delta)),
                          truncated_truth=clean, bias_closed_form=bias, taus=shown)
