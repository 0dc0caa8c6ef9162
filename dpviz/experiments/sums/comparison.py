"""The paper's experiment: every algorithm and truncation method, many trials, paired isotonic regression.

:func:`compare_algorithms` runs every configuration ``trials`` times with one
shared threshold per trial and truncation method (the paper's Algorithm 9; SQM
picks its own per query) and applies isotonic regression to the *same* noisy
answers; :func:`ratio_sweep` repeats it over the truncation ratio p
([WPKM19]_ Sec. 4).

References
----------
.. [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
   Summation Queries for Numerical Attributes under Differential Privacy."
   TPDP 2019, arXiv:1908.10268.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpviz import sums
from dpviz.experiments import TrialSummary, summarize
from dpviz.experiments.sums.bands import ErrorBands, error_bands
from dpviz.experiments.sums.cps import DEFAULTS, cps_problem
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    blame,
    check_array,
    check_bool,
    check_choice,
    check_elements,
    check_epsilon,
    check_int,
    check_open_unit,
    check_positive,
    check_probability,
    check_sequence,
    check_work,
)

__all__ = ["_Config", "SumComparison", "compare_algorithms", "RatioSweep", "ratio_sweep", "base_algs"]

#: A configuration: (algorithm, truncation, isotonic).
_Config = tuple[str, str, bool]


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
        Configuration -> (k, m) relative errors ``|y^ - y| / max(y, floor)``.
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
    floor : float
        Floor of the relative error's denominator, in dollars.
    trials : int
        Number of trials k.
    """

    thresholds: np.ndarray
    truth: np.ndarray
    answers: dict[_Config, np.ndarray]
    errors: dict[_Config, np.ndarray]
    taus: dict[str, np.ndarray]
    sqm_taus: dict[str, np.ndarray]
    epsilon: float
    ratio: float
    rho: float
    beta: float
    floor: float
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
                       growth: float = DEFAULTS["growth"], floor: float = DEFAULTS["floor"], trials: int = 100,
                       rng: RngLike = 0) -> SumComparison:
    """Run every configuration ``trials`` times, as in [WPKM19] Sec. 4 (Algorithm 9).

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
    floor : float
        Floor of the relative error's denominator ``max(|y|, floor)``, in dollars (finite, > 0; the paper's
        delta, named ``floor`` because it is not a privacy parameter: any positive floor is valid).
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
        For an unknown algorithm or truncation method, an empty list of them, invalid parameters, an
        epsilon so small that the noise overflows, or ``trials`` beyond the allocation cap.
    TypeError
        If ``problem`` is not a :class:`~dpviz.sums.SumProblem`, a name list is a lone string, or an
        ``isotonic`` entry is not a bool.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([5, 1500, 2500, 2900], [1000, 3000], uniform_bins(1000, 3000))
    >>> c = compare_algorithms(p, algorithms=("identity", "workload"), truncations=("none", "svt"), trials=3)
    >>> c.answers[("identity", "svt", True)].shape, len(c.table())
    ((3, 2), 8)
    """
    problem = cps_problem(100) if problem is None else sums.check_problem(problem)
    epsilon = check_epsilon(epsilon)
    ratio = check_probability("ratio", ratio)
    rho = check_open_unit("rho", rho)
    beta = check_positive("beta", beta)
    floor = check_positive("floor", floor)
    trials = check_int("trials", trials, minimum=2)
    check_elements(float(trials) * (2 * problem.n + problem.m), "noisy counts and answers per configuration",
                   trials=trials)
    algorithms = _names("algorithms", algorithms, sums.ALGORITHMS)
    truncations = _names("truncations", truncations, sums.THRESHOLD_METHODS)
    # each (algorithm, truncation) runs trials releases, as sums.release does with size=trials: one budget for all
    check_work(float(trials) * len(algorithms) * len(truncations), sums.MAX_RUNS,
               "runs (trials x algorithms x truncations)", trials=trials, algorithms=len(algorithms),
               truncations=len(truncations))
    isotonic = [check_bool(f"isotonic[{i}]", flag) for i, flag in enumerate(check_sequence("isotonic", isotonic))]
    # one independent stream per (truncation, algorithm): a configuration's numbers do not depend on which
    # other configurations are run alongside it
    streams = as_generator(rng).spawn(len(sums.THRESHOLD_METHODS))
    answers: dict[_Config, np.ndarray] = {}
    errors: dict[_Config, np.ndarray] = {}
    taus: dict[str, np.ndarray] = {}
    sqm_taus: dict[str, np.ndarray] = {}
    for trunc in truncations:
        tgen = streams[sums.THRESHOLD_METHODS.index(trunc)]
        gen, *agens = tgen.spawn(1 + len(sums.ALGORITHMS))
        eps_thr, eps_ans = (float(e) for e in sums.split_budget(epsilon, rho, trunc))
        # eps_thr = 0 for "oracle" and "none", which spend nothing: choose_threshold checks but ignores epsilon
        eps_choice = eps_thr if eps_thr > 0 else epsilon
        with blame(rho=rho):  # the threshold's budget is rho * epsilon: too small a share is rho's doing
            t = np.asarray(sums.choose_threshold(problem, eps_choice, trunc, ratio=ratio, beta=beta, growth=growth,
                                                 rng=gen, size=trials))
        taus[trunc] = t
        for alg in algorithms:
            gen = agens[sums.ALGORITHMS.index(alg)]
            if alg == "sqm":
                with blame(rho=rho):
                    st = sums.sqm_thresholds(problem, eps_choice, trunc, ratio=ratio, beta=beta, growth=growth,
                                             rng=gen, size=trials)
                sqm_taus[trunc] = st
                raw = sums.sqm_answers(problem, st, eps_ans, rng=gen)
            else:
                raw = sums.answer_with_threshold(problem, alg, t, eps_ans, rng=gen)
            for iso in isotonic:
                ans = sums.isotonic(raw) if iso else raw
                answers[(alg, trunc, iso)] = ans
                errors[(alg, trunc, iso)] = sums.relative_error(ans, problem.truth, floor)
    return SumComparison(thresholds=problem.thresholds.copy(), truth=problem.truth.copy(), answers=answers,
                         errors=errors, taus=taus, sqm_taus=sqm_taus, epsilon=epsilon, ratio=ratio, rho=rho,
                         beta=beta, floor=floor, trials=trials)


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
        For no ratios, a ratio outside (0, 1] or invalid parameters.
    TypeError
        If ``problem`` is not a :class:`~dpviz.sums.SumProblem` or ``ratios`` is not a list of numbers.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([5, 1500, 2500, 2900], [1000, 3000], uniform_bins(1000, 3000))
    >>> s = ratio_sweep(p, ratios=(0.5, 1.0), algorithms=("identity",), trials=3)
    >>> s.ratios, sorted(s.errors)
    (array([0.5, 1. ]), ['identity'])
    """
    problem = cps_problem(100) if problem is None else sums.check_problem(problem)
    ratio_arr = check_array("ratios", check_sequence("ratios", ratios), ndim=1)
    if ratio_arr.size == 0 or np.any(ratio_arr <= 0) or np.any(ratio_arr > 1):
        raise ValueError(f"ratios must be a non-empty list of truncation ratios in (0, 1], got {ratios!r}")
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


def _names(name: str, values: Any, allowed: Sequence[str]) -> list[str]:
    """A non-empty list of option names, each one of ``allowed`` (the message names ``name``)."""
    out = [check_choice(f"{name}[{i}]", v, allowed) for i, v in enumerate(check_sequence(name, values))]
    if not out:
        raise ValueError(f"{name} must name at least one of {tuple(allowed)}, got none")
    return out


def base_algs(comp: SumComparison) -> list[str]:
    """Algorithms present in a comparison, in the paper's order.

    Parameters
    ----------
    comp : SumComparison
        A comparison from :func:`compare_algorithms`.

    Returns
    -------
    list of str
        The algorithms that were run, ordered as :data:`dpviz.sums.ALGORITHMS`.

    Raises
    ------
    TypeError
        If ``comp`` is not a :class:`SumComparison`.

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([5, 1500, 2500, 2900], [1000, 3000], uniform_bins(1000, 3000))
    >>> base_algs(compare_algorithms(p, algorithms=("workload", "sqm"), truncations=("none",), trials=2))
    ['sqm', 'workload']
    """
    if not isinstance(comp, SumComparison):
        raise TypeError(f"comp must be a SumComparison (see compare_algorithms), got {type(comp).__name__}")
    present = {a for a, _, _ in comp.errors}
    return [a for a in sums.ALGORITHMS if a in present]
