"""The whole release in one call: budget split -> threshold -> answers -> isotonic regression, as a :class:`SumRelease`.

:func:`release` works on a :class:`~dpviz.sums.SumProblem`,
:func:`answer_prefix_sums` on raw values.  Each algorithm of [WPKM19]_ Table 1
is given the same ``tau`` per trial (the paper's Algorithm 9), with ``eps' = (1 -
rho) eps`` for the answers (or ``eps`` without a private threshold); SQM chooses
one threshold per query.

References
----------
.. [WPKM19] Y. Wu, D. Pujol, I. Kotsogiannis, A. Machanavajjhala. "Answering
   Summation Queries for Numerical Attributes under Differential Privacy."
   TPDP 2019, arXiv:1908.10268.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpviz.accountant import PrivacyAccountant, charge_all, check_accountant, float_at_most
from dpviz.hierarchy import build_tree
from dpviz.rng import RngLike, as_generator
from dpviz.sums.answers import answer_with_threshold
from dpviz.sums.answers import isotonic as _isotonic_fit
from dpviz.sums.budget import split_budget
from dpviz.sums.matrix import _strategy
from dpviz.sums.options import _NAMES, ALGORITHMS, MAX_RUNS, NOT_DP, THRESHOLD_METHODS
from dpviz.sums.problem import SumProblem, _check_noise_epsilon, check_problem, prepare
from dpviz.sums.sqm import _sqm, _sqm_thresholds
from dpviz.sums.thresholds import (
    _check_threshold_noise,
    _recursive_on,
    _svt_on,
    choose_threshold,
    oracle_threshold,
    threshold_grid,
)
from dpviz.validation import (
    MAX_ELEMENTS,
    check_bool,
    check_choice,
    check_elements,
    check_epsilon,
    check_open_unit,
    check_positive,
    check_probability,
    check_trials,
    check_work,
)

__all__ = ["SumRelease", "release", "answer_prefix_sums"]


@dataclass(frozen=True)
class SumRelease:
    """Noisy prefix sums of one configuration, with its thresholds and budget split.

    Parameters
    ----------
    answers : numpy.ndarray, shape (k, m) or (m,)
        Noisy answers, one row per trial.
    tau : numpy.ndarray
        Truncation thresholds: (k,) (batch algorithms) or (k, m) (SQM: one per
        query), without the trial axis for one trial; ``inf`` = none.
    truth : numpy.ndarray, shape (m,)
        True prefix sums ``W_s diag(v) x``.
    thresholds : numpy.ndarray, shape (m,)
        Query thresholds.
    algorithm : str
        One of :data:`~dpviz.sums.ALGORITHMS`.
    truncation : str
        One of :data:`~dpviz.sums.THRESHOLD_METHODS`.
    epsilon : float
        Total budget per trial.
    epsilon_threshold : float
        Part of ``epsilon`` spent on the threshold(s).
    epsilon_answers : float
        Part of ``epsilon`` spent on the answers.
    ratio : float
        Truncation ratio p.
    rho : float
        Share of epsilon meant for a private threshold.
    isotonic : bool
        Whether isotonic regression was applied.
    private : bool
        False when the oracle threshold was used (NOT differentially private).

    Examples
    --------
    >>> from dpviz.sums import answer_prefix_sums, uniform_bins
    >>> r = answer_prefix_sums([5, 1500], [1000, 2000], 1.0, bins=uniform_bins(1000, 2000), algorithm="workload",
    ...                        truncation="oracle", rng=0)
    >>> r.label, r.private
    ('Workload, oracle threshold (NOT differentially private), isotonic', False)
    """

    answers: np.ndarray
    tau: np.ndarray
    truth: np.ndarray
    thresholds: np.ndarray
    algorithm: str
    truncation: str
    epsilon: float
    epsilon_threshold: float
    epsilon_answers: float
    ratio: float
    rho: float
    isotonic: bool
    private: bool

    @property
    def label(self) -> str:
        """Short description, e.g. ``"TaMM, SVT threshold, isotonic"`` (flags the NOT DP oracle)."""
        t = {"svt": "SVT threshold", "recursive": "recursive threshold", "none": "no truncation",
             "oracle": f"oracle threshold ({NOT_DP})"}[self.truncation]
        return f"{_NAMES[self.algorithm]}, {t}" + (", isotonic" if self.isotonic else "")


def _check_mm_elements(problem: SumProblem, algorithm: str, taus: npt.NDArray[np.float64], k: int,
                       size: int | None) -> None:
    """Refuse before any charge a ``size`` that :func:`dpviz.matrix_mechanism.run` would refuse after it.

    The trials sharing one tau measure that tau's strategy (p rows), estimate n counts and answer m queries,
    and at worst all k share the tau (of the possible ``taus``) whose strategy has the most rows.  GreedyH
    keeps at most every node of its binary tree, so no strategy is built while that bound fits the cap.
    """
    per_trial = float(problem.n + problem.m)
    if float(k) * (build_tree(problem.n, 2).n_nodes + per_trial) <= MAX_ELEMENTS:
        return
    p = max(_strategy(problem, algorithm, float(t)).shape[0] for t in (taus[:1] if algorithm == "timm" else taus))
    check_elements(float(k) * (p + per_trial), "noisy measurements, estimates and answers", size=size)


def release(problem: SumProblem, epsilon: float, *, algorithm: str = "tamm", truncation: str = "svt",
            ratio: float = 0.95, rho: float = 0.1, isotonic: bool = True, beta: float = 1e-3,
            start: float | None = None, growth: float = 1.1, accountant: PrivacyAccountant | None = None,
            rng: RngLike = None, size: int | None = None) -> SumRelease:
    """:func:`answer_prefix_sums` on an already vectorised :class:`SumProblem`.

    Parameters
    ----------
    problem : SumProblem
        The vectorised problem (see :func:`dpviz.sums.prepare`).
    epsilon : float
        Total privacy budget per trial.
    algorithm : {"sqm", "identity", "workload", "timm", "tamm"}
        The answering algorithm ([WPKM19] Table 1).
    truncation : {"svt", "recursive", "oracle", "none"}
        How the threshold is chosen ("oracle" is NOT DP).
    ratio : float in (0, 1]
        Truncation ratio p: the fraction of records SVT (and the oracle) keep untruncated.
    rho : float in (0, 1)
        Share of epsilon spent on choosing the threshold.
    isotonic : bool
        Apply isotonic regression to each trial's answers.
    beta : float
        Trade-off parameter of the "recursive" threshold (> 0).
    start : float, optional
        First point of the threshold grid (default: the first bin weight).
    growth : float
        Growth rate of the threshold grid (> 1).
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` before any noise is drawn, all or nothing
        (:func:`dpviz.accountant.charge_all`): one row ``size * rho * epsilon`` for a
        private threshold ("svt", "recursive") and one ``size * (1 - rho) * epsilon``
        for the answers (all of ``size * epsilon`` without a private threshold).
    rng : None, int, SeedSequence or Generator
        Randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent trials, stacked on a new first axis.

    Returns
    -------
    SumRelease
        The answers, thresholds and budget split.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`SumProblem` or ``isotonic`` is not a bool.
    ValueError
        For bad parameters, an accountant with ``truncation="oracle"`` (not DP), a threshold or answering
        budget so small that the noise would overflow float64, or ``size`` beyond the allocation cap
        :data:`dpviz.validation.MAX_ELEMENTS` (for TiMM and TaMM counted with the strategy's rows, as
        :func:`dpviz.matrix_mechanism.run` counts them).  All are refused before anything is charged.
    dpviz.accountant.BudgetExceededError
        If the accountant cannot pay for all trials (nothing is recorded then).

    Examples
    --------
    >>> from dpviz.sums import prepare, uniform_bins
    >>> p = prepare([5, 1500, 2500, 2900], [1000, 3000], uniform_bins(1000, 3000))
    >>> r = release(p, 1.0, algorithm="identity", truncation="svt", rho=0.2, rng=0, size=3)
    >>> r.answers.shape, r.tau.shape, r.epsilon_threshold
    ((3, 2), (3,), 0.2)
    """
    problem = check_problem(problem)
    algorithm = check_choice("algorithm", algorithm, ALGORITHMS)
    truncation = check_choice("truncation", truncation, THRESHOLD_METHODS)
    epsilon = check_epsilon(epsilon)
    ratio = check_probability("ratio", ratio)
    rho = check_open_unit("rho", rho)
    beta = check_positive("beta", beta)
    check_bool("isotonic", isotonic)
    size = check_trials(size)
    k = 1 if size is None else size
    check_work(float(k), MAX_RUNS, "runs (each with its own threshold search and isotonic fit)", size=size)
    check_elements(float(k) * (2 * problem.n + problem.m), "noisy counts and answers", size=size)
    eps_thr, eps_ans = split_budget(epsilon, rho, truncation)
    _check_noise_epsilon(problem, float(eps_ans), "epsilon" if eps_thr == 0 else "(1 - rho) * epsilon")
    grid = threshold_grid(problem.weights[0] if start is None else start, growth, problem.weights[-1])
    check_elements(float(k) * grid.size * (problem.m if algorithm == "sqm" else 1),
                   "threshold-search steps (trials x grid points)", size=size, growth=growth)
    if eps_thr > 0:   # the threshold stage's noise scales, exactly as _svt_on / _recursive_on draw them
        m_thr = problem.m if algorithm == "sqm" else 1
        _check_threshold_noise(truncation, float(eps_thr) / m_thr, ratio, beta,
                               "rho * epsilon" if m_thr == 1 else "rho * epsilon / m")
    if algorithm in ("timm", "tamm"):   # the element count matrix_mechanism.run checks, with the real strategy
        possible = {"none": np.array([np.inf]), "oracle": np.array([oracle_threshold(problem, ratio)])}
        _check_mm_elements(problem, algorithm, possible.get(truncation, grid), k, size)
    gen = as_generator(rng)
    acc = check_accountant(accountant)
    if acc is not None and truncation == "oracle":
        raise ValueError("truncation='oracle' reads the true quantile without noise: the release is "
                         f"{NOT_DP}, so no accountant can record it; pass accountant=None (teaching only)")
    # the threshold stage and the answer stage compose sequentially; k trials are k releases: all or nothing
    stages = [(f"sum queries: {_NAMES[algorithm]} answers", eps_ans, 0)]
    if eps_thr > 0:
        stages.insert(0, (f"sum queries: {truncation} threshold(s) for {_NAMES[algorithm]}", eps_thr, 0))
    charge_all(acc, stages, size=size)
    # the stages' noise gets doubles never above their exact shares, so it never spends more than is charged
    eps_thr_noise, eps_ans_noise = float_at_most(eps_thr), float_at_most(eps_ans)
    taus: npt.NDArray[np.float64]
    if algorithm == "sqm":
        taus = _sqm_thresholds(problem, truncation, eps_thr_noise, ratio, beta, start, growth, gen, k)
        answers = _sqm(problem, taus, eps_ans_noise, gen, k)
    else:
        if truncation == "svt":
            taus = _svt_on(problem.weights, problem._cum_count, problem.size,
                           threshold_grid(problem.weights[0] if start is None else start, growth, problem.weights[-1]),
                           eps_thr_noise, ratio, gen, k)
        elif truncation == "recursive":
            taus = _recursive_on(problem.weights, problem._cum_count, problem.size,
                                 threshold_grid(problem.weights[0] if start is None else start, growth,
                                                problem.weights[-1]), eps_thr_noise, beta, gen, k)
        else:
            taus = np.asarray(choose_threshold(problem, 1.0, truncation, ratio=ratio, size=k))
        answers = answer_with_threshold(problem, algorithm, taus, eps_ans_noise, rng=gen)
    if isotonic:
        answers = _isotonic_fit(answers)
    if size is None:
        answers, taus = answers[0], taus[0]
    return SumRelease(answers=answers, tau=taus, truth=problem.truth.copy(), thresholds=problem.thresholds.copy(),
                      algorithm=algorithm, truncation=truncation, epsilon=epsilon, epsilon_threshold=float(eps_thr),
                      epsilon_answers=float(eps_ans), ratio=ratio, rho=rho, isotonic=bool(isotonic),
                      private=truncation != "oracle")


def answer_prefix_sums(values: npt.ArrayLike, thresholds: npt.ArrayLike, epsilon: float, *,
                       bins: npt.ArrayLike | None = None, algorithm: str = "tamm", truncation: str = "svt",
                       ratio: float = 0.95, rho: float = 0.1, isotonic: bool = True, beta: float = 1e-3,
                       start: float | None = None, growth: float = 1.1, accountant: PrivacyAccountant | None = None,
                       rng: RngLike = None, size: int | None = None) -> SumRelease:
    """Answer prefix-sum queries over a numeric attribute under epsilon-DP, any configuration in one call.

    Vectorises ``values`` into ``bins`` (:func:`dpviz.sums.prepare`), chooses a
    truncation threshold with ``rho * epsilon`` (``truncation`` = "svt",
    "recursive"; "oracle" is NOT DP; "none" skips truncation and spends
    everything on the answers), answers with ``algorithm`` (SQM, Identity,
    Workload, TiMM, TaMM of [WPKM19] Table 1) using the rest, and optionally
    applies isotonic regression.  Per trial the release is epsilon-DP under
    adding or removing one record (except with the oracle): the threshold step
    and the answer step compose sequentially.

    Parameters
    ----------
    values : array_like, shape (N,)
        Non-negative record values (e.g. ``dpviz.datasets.load("CPS")``).
    thresholds : array_like, shape (m,)
        Strictly increasing query thresholds, each a bin edge: query i is the sum
        of all values ``<= thresholds[i]``.
    epsilon : float
        Total privacy budget per trial.
    bins : array_like, optional
        Bin upper edges (= weights); default :func:`dpviz.sums.cps_income_bins`
        ($1,000 bins up to $1,000,000).
    algorithm : {"sqm", "identity", "workload", "timm", "tamm"}
        The answering algorithm.
    truncation : {"svt", "recursive", "oracle", "none"}
        How the threshold is chosen.
    ratio : float in (0, 1]
        Truncation ratio p: the fraction of records SVT (and the oracle) keep untruncated.
    rho : float in (0, 1)
        Share of epsilon spent on choosing the threshold.
    isotonic : bool
        Apply isotonic regression to each trial's answers.
    beta : float
        Trade-off parameter of the "recursive" threshold (> 0).
    start : float, optional
        First point of the threshold grid ``start * growth^k`` (default: the first bin weight).
    growth : float
        Growth rate of the threshold grid (> 1).
    accountant : PrivacyAccountant, optional
        Charged ``size * epsilon`` before any noise is drawn, all or nothing
        (:func:`dpviz.accountant.charge_all`): one row ``size * rho * epsilon`` for a
        private threshold ("svt", "recursive") and one ``size * (1 - rho) * epsilon``
        for the answers (all of ``size * epsilon`` without a private threshold).
    rng : None, int, SeedSequence or Generator
        Randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent trials, stacked on a new first axis.

    Returns
    -------
    SumRelease
        The answers, thresholds and budget split.

    Raises
    ------
    ValueError, TypeError
        For bad inputs: no values, ratio outside (0, 1], rho outside (0, 1), negative values,
        unknown algorithm or truncation, thresholds that are not bin edges, an accountant with
        the oracle, an epsilon whose noise would overflow, or ``size`` beyond the allocation cap.
    dpviz.accountant.BudgetExceededError
        If the accountant cannot pay for all trials.

    Examples
    --------
    >>> from dpviz.sums import uniform_bins
    >>> r = answer_prefix_sums([5, 1500, 2500, 2900], [1000, 3000], 1.0, bins=uniform_bins(1000, 3000),
    ...                        algorithm="identity", truncation="none", isotonic=False, rng=0)
    >>> r.truth
    array([1000., 9000.])
    >>> r.answers.shape
    (2,)
    """
    problem = prepare(values, thresholds, bins)
    return release(problem, epsilon, algorithm=algorithm, truncation=truncation, ratio=ratio, rho=rho,
                   isotonic=isotonic, beta=beta, start=start, growth=growth, accountant=accountant, rng=rng,
                   size=size)
