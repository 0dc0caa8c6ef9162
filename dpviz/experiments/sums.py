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

from dataclasses import dataclass

import numpy as np

from dpviz import sums
from dpviz.experiments import TrialSummary, check_band, summarize
from dpviz.rng import RngLike, as_generator
from dpviz.validation import check_choice, check_epsilon, check_int, check_open_unit, check_positive, check_probability

__all__ = ["cps_problem", "ErrorBands", "error_bands", "SumComparison", "compare_algorithms", "RatioSweep",
           "ratio_sweep", "SumExploration", "explore", "DEFAULTS"]

#: Parameters used by the lecture and the explorer (ours: the seed's values are lost in its text).
DEFAULTS = dict(epsilon=1.0, ratio=0.999, rho=0.1, beta=1e-3, growth=1.1, delta=1.0)

_PROBLEMS: dict[tuple[int, float], sums.SumProblem] = {}


def cps_problem(m: int = 100, width: float = 1000.0) -> sums.SumProblem:
    """The CPS income prefix-sum problem: ``m`` evenly spaced queries on bins of ``width`` dollars up to $1M.

    Default: $1,000 bins (:func:`dpviz.sums.cps_income_bins`) and the 100
    thresholds $10k, $20k, ..., $1M of the seed's Example 1.  The explorer
    uses ``width=10_000`` (100 bins, one per query) to stay interactive.
    Cached per ``(m, width)``.
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
    """Relative error per query over trials: mean and central band (default 5-95 %)."""

    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    band: tuple[float, float]

    @property
    def overall(self) -> float:
        """Mean relative error over trials and queries (one number per configuration)."""
        return float(self.mean.mean())


def error_bands(rel_error, band=(5.0, 95.0)) -> ErrorBands:
    """Mean and ``band`` percentiles over trials (axis 0) of relative errors of shape (k, m)."""
    lo, hi = check_band(band)
    e = np.asarray(rel_error, dtype=float)
    if e.ndim != 2 or e.shape[0] < 1:
        raise ValueError(f"rel_error must have shape (trials, queries), got {e.shape}")
    lower, upper = np.percentile(e, [lo, hi], axis=0)
    return ErrorBands(mean=e.mean(axis=0), lower=lower, upper=upper, band=(lo, hi))


@dataclass(frozen=True)
class SumComparison:
    """Answers and relative errors of many configurations on one problem.

    Keys of ``answers``/``errors`` are ``(algorithm, truncation, isotonic)``.

    Attributes
    ----------
    thresholds, truth : (m,) query thresholds and true prefix sums
    answers : dict key -> (k, m) noisy answers
    errors : dict key -> (k, m) relative errors ``|y^ - y| / max(y, delta)``
    taus : dict truncation -> (k,) threshold shared by the batch algorithms (``inf``: none)
    sqm_taus : dict truncation -> (k, m) SQM's per-query thresholds
    epsilon, ratio, rho, beta, delta, trials : parameters
    """

    thresholds: np.ndarray
    truth: np.ndarray
    answers: dict
    errors: dict
    taus: dict
    sqm_taus: dict
    epsilon: float
    ratio: float
    rho: float
    beta: float
    delta: float
    trials: int

    def bands(self, algorithm: str, truncation: str = "svt", isotonic: bool = True, band=(5.0, 95.0)) -> ErrorBands:
        """Relative-error bands of one configuration."""
        return error_bands(self.errors[(algorithm, truncation, isotonic)], band)

    def answer_summary(self, algorithm: str, truncation: str = "svt", isotonic: bool = True,
                       band=(5.0, 95.0)) -> TrialSummary:
        """Mean, bias, variance and band of the answers of one configuration against the truth."""
        return summarize(self.answers[(algorithm, truncation, isotonic)], self.truth, band)

    def overall(self, algorithm: str, truncation: str = "svt", isotonic: bool = True) -> float:
        """Mean relative error over trials and queries."""
        return float(self.errors[(algorithm, truncation, isotonic)].mean())

    def table(self) -> list[tuple[str, str, bool, float]]:
        """``(algorithm, truncation, isotonic, overall mean relative error)`` for every configuration."""
        return [(a, t, i, float(e.mean())) for (a, t, i), e in self.errors.items()]


def compare_algorithms(problem: sums.SumProblem | None = None, *, epsilon: float = 1.0,
                       algorithms=sums.ALGORITHMS, truncations=("none", "svt", "recursive"),
                       isotonic=(True, False), ratio: float = DEFAULTS["ratio"], rho: float = DEFAULTS["rho"],
                       beta: float = DEFAULTS["beta"], growth: float = DEFAULTS["growth"],
                       delta: float = DEFAULTS["delta"], trials: int = 100, rng: RngLike = 0) -> SumComparison:
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
    algorithms, truncations : iterables of names
    isotonic : iterable of bool
        Which post-processing variants to report.
    ratio, rho, beta, growth : threshold parameters (see :func:`dpviz.sums.answer_prefix_sums`)
    delta : float
        Smoothing of the relative error.
    trials : int
    rng : seed or Generator

    Returns
    -------
    SumComparison
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
    answers, errors, taus, sqm_taus = {}, {}, {}, {}
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

    Attributes
    ----------
    ratios : (r,) the p values
    errors : dict algorithm -> (r,) mean relative error with Trunc(SVT) at each p
    no_truncation : dict algorithm -> mean relative error without truncation (whole budget)
    median_tau : (r,) median SVT threshold at each p
    """

    ratios: np.ndarray
    errors: dict
    no_truncation: dict
    median_tau: np.ndarray


def ratio_sweep(problem: sums.SumProblem | None = None, ratios=(0.9, 0.95, 0.99, 0.995, 0.999, 0.9995), *,
                epsilon: float = 1.0, algorithms=sums.ALGORITHMS, rho: float = DEFAULTS["rho"],
                growth: float = DEFAULTS["growth"], trials: int = 50, rng: RngLike = 0) -> RatioSweep:
    """Where does truncation pay?  :func:`compare_algorithms` with Trunc(SVT) at each ratio p, isotonic on.

    Small p truncates many records (large bias, small noise), p near 1 truncates
    almost nothing (no bias, the noise of the full domain).
    """
    problem = cps_problem(100) if problem is None else sums.check_problem(problem)
    ratios = np.array([check_probability("ratio", r) for r in ratios])
    base = compare_algorithms(problem, epsilon=epsilon, algorithms=algorithms, truncations=("none",),
                              isotonic=(True,), trials=trials, rng=rng)
    errs = {a: np.empty(ratios.size) for a in base_algs(base)}
    med = np.empty(ratios.size)
    for i, r in enumerate(ratios):
        c = compare_algorithms(problem, epsilon=epsilon, algorithms=algorithms, truncations=("svt",),
                               isotonic=(True,), ratio=float(r), rho=rho, growth=growth, trials=trials, rng=rng)
        for a in errs:
            errs[a][i] = c.overall(a, "svt", True)
        med[i] = float(np.median(c.taus["svt"]))
    return RatioSweep(ratios=ratios, errors=errs, no_truncation={a: base.overall(a, "none", True) for a in errs},
                      median_tau=med)


def base_algs(comp: SumComparison) -> list[str]:
    """Algorithms present in a comparison, in the seed's order."""
    present = {a for a, _, _ in comp.errors}
    return [a for a in sums.ALGORITHMS if a in present]


@dataclass(frozen=True)
class SumExploration:
    """One configuration run ``trials`` times (what the explorer shows).

    Attributes
    ----------
    release : the :class:`dpviz.sums.SumRelease` (answers (k, m), tau)
    summary : answers against the truth (mean, bias, variance, 5-95 % band)
    errors : relative-error bands
    truncated_truth : (m,) noise-free answers at the median threshold (what truncation alone gives)
    bias_closed_form : (m,) exact truncation bias averaged over the trials' thresholds
    taus : (k,) thresholds (SQM: the threshold of its largest query)
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
