"""MWEM: multiplicative weights driven by exponentially-selected, Laplace-measured queries [HLM12]."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from dpviz.accountant import charge_all, float_at_most
from dpviz.data_aware.budget import _check_stages, _fraction
from dpviz.data_aware.queries import _queries_or_raise
from dpviz.mechanisms import laplace_scale, scaled_laplace, selection_scale, standard_gumbel
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    MAX_ELEMENTS,
    check_bool,
    check_counts,
    check_elements,
    check_epsilon,
    check_int,
    check_open_unit,
    check_positive,
    check_trials,
)

if TYPE_CHECKING:
    from dpviz.accountant import PrivacyAccountant

__all__ = ["MWEMResult", "mwem"]

#: Fixed cost, in array elements, charged against the work cap for each multiplicative-weights step (the
#: Python overhead of one step), so that many tiny steps are refused like a few huge ones.
_STEP_OVERHEAD = 4096
#: Cap on the selection scores computed over all rounds: 2 x MAX_ELEMENTS, just above the explorer's largest
#: setting (50 runs x 10 rounds x the 524,800 ranges of n = 1024, about 15 s on a shared 2-core machine).
_SCORE_WORK = 2.0 * MAX_ELEMENTS


@dataclass(frozen=True)
class MWEMResult:
    """What MWEM released (one run, or ``size`` runs stacked on a first axis).

    Attributes
    ----------
    estimate : numpy.ndarray
        Shape (n,) or (k, n): the final synthetic histogram ``A_T`` (sums to ``total``).
    history : numpy.ndarray or None
        Shape (T+1, n) or (k, T+1, n): the histogram after each round (round 0 is
        the uniform start); None unless ``keep_history``.  Every prefix of a run
        uses only released values, so it is itself differentially private.
    selected : numpy.ndarray
        Shape (T,) or (k, T): index of the workload query measured in each round.
    measurements : numpy.ndarray
        Shape (T,) or (k, T): its noisy answer, in the workload's units.
    total : float or numpy.ndarray
        The total count N used (a float, or (k,) with ``size``); noisy unless passed in as ``total``.
    epsilon : float
        Total budget spent.
    epsilon_total : float
        Budget of the noisy total (0 when ``total`` was passed in).
    epsilon_select : float
        Budget of the exponential-mechanism selection in each round.
    epsilon_measure : float
        Budget of the Laplace measurement in each round.
    rounds : int
        Number of rounds T.

    Examples
    --------
    >>> res = mwem([0, 0, 50, 0, 0, 0, 30, 0], ([0, 0], [4, 8]), 1.0, rounds=2, total=80.0, rng=0)
    >>> res.rounds, res.epsilon_total, res.epsilon_select, res.epsilon_measure
    (2, 0.0, 0.25, 0.25)
    """

    estimate: np.ndarray
    history: np.ndarray | None
    selected: np.ndarray
    measurements: np.ndarray
    total: Any
    epsilon: float
    epsilon_total: float
    epsilon_select: float
    epsilon_measure: float
    rounds: int


def mwem(x: ArrayLike, workload: Any, epsilon: float, *, rounds: int = 10, selection_share: float = 0.5,
         total: float | None = None, total_share: float = 0.05, passes: int = 10, keep_history: bool = False,
         rng: RngLike = None, size: int | None = None, accountant: PrivacyAccountant | None = None) -> MWEMResult:
    """MWEM: multiplicative weights driven by exponentially-selected, Laplace-measured queries [HLM12].

    Start from the uniform histogram ``A_0 = N/n``.  In round t = 1..T:

    1. *select* a query ``q`` of the workload with the exponential mechanism [MT07],
       ``P(q) ~ exp(eps_s |q(A_{t-1}) - q(x)| / (2 Delta))``, where ``Delta`` is the
       largest absolute coefficient (the score's sensitivity);
    2. *measure* it: ``m_t = q(x) + Lap(Delta / eps_m)``;
    3. *update* by multiplicative weights, ``A_t(i) ~ A_{t-1}(i) exp(q(i) (m_t - q(A_{t-1})) / (2 N Delta^2))``,
       renormalised to total N.  As in the paper's practical variant, every round
       then sweeps ``passes`` times over all measurements so far (pure
       post-processing).  The final ``A_T`` is returned (the paper's analysis
       averages the ``A_t``; its experiments, like DPBench, use the last one).

    Privacy (proof sketch): with ``total=None`` the total N is estimated as
    ``sum(x) + Lap(1/eps_N)`` (sensitivity 1), ``eps_N = total_share * epsilon``;
    the remaining budget is split evenly over the T rounds and within a round
    into ``eps_s = selection_share * eps_r`` and ``eps_m = eps_r - eps_s``.  Adding
    or removing one record changes every score ``|q(A) - q(x)|`` by at most
    ``Delta`` (A depends only on earlier *released* values), so the selection is
    eps_s-DP; the measured answer has sensitivity ``Delta``, so the Laplace step
    is eps_m-DP; the update only uses released values.  Sequential composition
    gives ``eps_N + T (eps_s + eps_m) = epsilon`` exactly.  A ``total`` passed in
    costs nothing and gives all of epsilon to the rounds, so it must be a fact known
    without looking at the data: fixed by the study design, or the record count
    under replace-one neighbours, where every neighbour has the same N (the paper's
    setting).  Under add/remove neighbours N is data: passing ``x.sum()`` is not DP
    (neighbours then get estimates with different sums, as the second example shows).

    Parameters
    ----------
    x : array_like, shape (n,)
        Histogram counts.
    workload : Workload, (starts, stops) or matrix
        The queries MWEM selects from: a :class:`dpviz.workloads.Workload` over
        the n cells, a ``(starts, stops)`` pair of half-open integer ranges, or a
        (m, n) query matrix (dense or scipy.sparse).
    epsilon : float
        Total budget > 0.
    rounds : int, default 10
        Number of rounds T >= 1.
    selection_share : float in (0, 1), default 0.5
        Share of each round's budget spent on selecting the query.
    total : float, optional
        Total count N known without looking at the data (see above; never ``x.sum()`` under add/remove
        neighbours); if None (default) it is estimated privately and charged.
    total_share : float in (0, 1), default 0.05
        Share of epsilon spent on estimating N when ``total`` is None.
    passes : int, default 10
        Multiplicative-weights sweeps over all measurements per round.
    keep_history : bool, default False
        Also return the histogram after every round.
    rng : None, int, SeedSequence or Generator, optional
        Source of randomness (see :func:`dpviz.rng.as_generator`).
    size : int, optional
        Number of independent runs, stacked on a first axis; None (default) for one run.
    accountant : PrivacyAccountant, optional
        Charged one row per stage (the total, then each round's selection and
        measurement, :func:`dpviz.accountant.charge_all`) for each of the
        ``size`` independent runs: ``size * epsilon`` in all (sequential
        composition), before any noise is drawn; refused, with nothing
        recorded, if it does not fit.

    Returns
    -------
    MWEMResult
        The final histogram, the selected queries and their noisy answers, the
        total used and the budget of every stage.

    Raises
    ------
    TypeError
        If the workload is missing or of the wrong type, ``keep_history`` is not
        a bool, or a number argument is not a number.
    ValueError
        For counts that are not finite and non-negative, a workload not over
        the n cells, epsilon <= 0, shares outside (0, 1), a stage budget below
        1e-100 (its noise would overflow), ``rounds`` or ``passes`` below 1,
        a non-positive ``total``, or a run too large: the
        multiplicative-weights work ``rounds (rounds + 1) / 2 x passes x (size x n + 4096)``,
        one round's selection scores ``size x queries`` (times n for a query
        matrix) or the kept history ``size x (rounds + 1) x n`` above
        :data:`dpviz.validation.MAX_ELEMENTS`, or all rounds' scores
        ``rounds x size x queries`` (times n) above twice it (so no call
        runs for minutes).
    BudgetExceededError
        If ``accountant`` cannot afford ``size * epsilon`` (nothing is recorded).

    References
    ----------
    See the package references: [HLM12] (MWEM), [MT07] (exponential mechanism).

    Examples
    --------
    >>> res = mwem([0, 0, 50, 0, 0, 0, 30, 0], ([0, 0, 0, 0], [2, 4, 6, 8]), 1.0, rounds=4, rng=0)
    >>> res.estimate.shape, res.selected.shape
    ((8,), (4,))

    The data's own sum as ``total`` leaks it: on add/remove neighbours the released sums differ for sure.

    >>> x = np.array([3.0, 0, 5, 7]); x_plus = x + [0, 0, 0, 1]
    >>> [float(mwem(d, ([0], [4]), 1.0, total=d.sum(), rng=0).estimate.sum().round(6)) for d in (x, x_plus)]
    [15.0, 16.0]
    """
    x = check_counts("x", x)
    n = x.size
    Q = _queries_or_raise(workload, n)
    eps = _fraction("epsilon", check_epsilon(epsilon))
    T = check_int("rounds", rounds, minimum=1)
    s = _fraction("selection_share", check_open_unit("selection_share", selection_share))
    passes = check_int("passes", passes, minimum=1)
    keep_history = check_bool("keep_history", keep_history)
    size = check_trials(size)
    k = 1 if size is None else size
    check_elements(float(T) * (T + 1) / 2 * passes * (float(k) * n + _STEP_OVERHEAD),
                   "multiplicative-weights work (rounds (rounds + 1) / 2 x passes x (size x n + 4096))",
                   rounds=T, passes=passes, size=size, n=n)
    per_round = float(k) * Q.m * (n if Q.kind == "matrix" else 1)
    check_elements(per_round, "selection scores of one round (size x queries, x n for a matrix)",
                   size=size, queries=Q.m, n=n)
    if T * per_round > _SCORE_WORK:
        raise ValueError(f"rounds={T}, size={size}, queries={Q.m}, n={n} would compute {T * per_round:.3g} "
                         f"selection scores (rounds x size x queries, x n for a matrix), above the cap "
                         f"{_SCORE_WORK:.3g}; use fewer rounds, runs or queries")
    if keep_history:
        check_elements(float(k) * (T + 1) * n, "kept history (size x (rounds + 1) x n)", size=size, rounds=T, n=n)
    if total is None:
        eps_total = eps * _fraction("total_share", check_open_unit("total_share", total_share))
    else:
        total = check_positive("total", total)
        eps_total = Fraction(0)
    eps_round = (eps - eps_total) / T
    eps_sel = eps_round * s
    eps_meas = eps_round - eps_sel
    _check_stages(f"epsilon={epsilon!r}, rounds={T}, selection_share={selection_share!r}, "
                  f"total_share={total_share!r}", total=eps_total, select=eps_sel, measure=eps_meas)
    gen = as_generator(rng)
    stages: list[tuple[str, Fraction, Fraction]] = []
    if total is None:
        stages.append(("MWEM: noisy total", eps_total, Fraction(0)))
    for t in range(T):
        stages += [(f"MWEM round {t + 1}: select (exp. mech.)", eps_sel, Fraction(0)),
                   (f"MWEM round {t + 1}: measure (Laplace)", eps_meas, Fraction(0))]
    charge_all(accountant, stages, size=size)

    if total is None:
        noisy_total = x.sum() + scaled_laplace(laplace_scale(1.0, eps_total), k, rng=gen)
        N = np.maximum(noisy_total, 1.0)  # post-processing
    else:
        N = np.full(k, total)
    truth = Q.answers(x[None, :])[0]
    A = np.repeat((N / n)[:, None], n, axis=1)
    logA = np.zeros((k, n))
    hist: list[np.ndarray] | None = [A.copy()] if keep_history else None
    sel = np.empty((k, T), dtype=np.int64)
    meas = np.empty((k, T))
    rows: list[np.ndarray] = []
    es, em = float_at_most(eps_sel), float_at_most(eps_meas)   # never above the stages' exact shares
    sel_scale = selection_scale(1.0, es)                          # 2 Delta / eps_s: the exponential mechanism's
    for t in range(T):
        score = np.abs(Q.answers(A) - truth)                      # sensitivity 1 after scaling
        gumbel = standard_gumbel(score.shape, rng=gen)
        idx = np.argmax(score / sel_scale + gumbel, axis=1)        # Gumbel-max = exponential mechanism
        sel[:, t] = idx
        meas[:, t] = truth[idx] + scaled_laplace(laplace_scale(1.0, em), k, rng=gen)
        rows.append(Q.rows(idx))
        for _ in range(passes):
            for j in range(t + 1):
                r = rows[j]
                err = meas[:, j] - np.einsum("kn,kn->k", r, A)
                logA += r * (err / (2.0 * N))[:, None]       # multiplicative weights, in log space
                logA -= logA.max(axis=1, keepdims=True)      # (no overflow, no NaN)
                A = np.exp(logA)
                A *= (N / A.sum(axis=1))[:, None]
        if hist is not None:
            hist.append(A.copy())
    history = None if hist is None else np.stack(hist, axis=1)
    meas *= Q.scale
    one = size is None
    return MWEMResult(
        estimate=A[0] if one else A,
        history=None if history is None else (history[0] if one else history),
        selected=sel[0] if one else sel, measurements=meas[0] if one else meas,
        total=float(N[0]) if one else N, epsilon=float(eps), epsilon_total=float(eps_total),
        epsilon_select=float(eps_sel), epsilon_measure=float(eps_meas), rounds=T,
    )
