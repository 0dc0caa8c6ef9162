"""The sparse vector technique, its broken variant GPTT, and the attack that reconstructs histograms with GPTT.

**Sparse vector (SVT).**  A stream of queries ``q_1, q_2, ...`` of sensitivity
``Delta`` is compared with a threshold ``T``.  The threshold is perturbed *once*,
``T^ = T + rho`` with ``rho ~ Lap(Delta / eps1)``; every query gets fresh noise
``nu_i ~ Lap(2 c Delta / eps2)``; the answer is "above" (``ABOVE = 1``) when
``q_i + nu_i >= T^`` and "below" (``BELOW = 0``) otherwise, and the algorithm
*halts* after its ``c``-th "above" (later queries are ``HALTED = -1``).  It is
``(eps1 + eps2)``-DP whatever the number of "below" answers ([CM15]_ Alg. 1,
calibration and proof of [LSL17]_ Alg. 1 / Thm 2; for monotone queries
``Lap(c Delta / eps2)`` suffices).

**Generalized private threshold testing (GPTT)** ([CM15]_ Alg. 2) is SVT
*without the halt*: threshold noise ``Lap(Delta/eps1)``, query noise
``Lap(Delta/eps2)`` (or none, ``eps2 = inf``), any number of "above" answers.
Prior work claimed it is ``(eps1 + eps2)``-DP.  **It is NOT differentially
private for any finite epsilon** ([CM15]_ Thm 4.7): :func:`counterexample_probability`
computes the exact probabilities of the Section 4 counterexample, whose ratio
grows without bound with the number of query copies ``t``.

**The attack** ([CM15]_ Section 5).  GPTT on all difference queries
``q_{x,y} = c(x) - c(y)`` (sensitivity 1) with threshold ``T`` in ``(0, 1)``
tells, whenever the noisy threshold lands in ``(0, 1]``, exactly which cells
have larger counts than which: cells with the same answer row
``S_x = {y : GPTT says c(x) - c(y) >= T^}`` form an ordered partition of the
domain into (unions of) level sets (Algorithm 3, :func:`ordered_partition`).
Spending the rest of the budget on one Laplace-noised total per part and
rounding the average (Algorithm 4, :func:`reconstruct_from_oracle`) recovers
most counts exactly, small counts above all.  The attack talks to the data only
through a :class:`GPTTOracle`.

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.
.. [LSL17] M. Lyu, D. Su, N. Li. "Understanding the Sparse Vector Technique for
   Differential Privacy." PVLDB 10(6), 2017.
.. [DR14] C. Dwork, A. Roth. "The Algorithmic Foundations of Differential
   Privacy." Foundations and Trends in TCS 9(3-4), 2014, Section 3.6.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
from scipy import integrate
from scipy.optimize import isotonic_regression

from dpviz.accountant import PrivacyAccountant, check_accountant
from dpviz.rng import RngLike, as_generator
from dpviz.validation import (
    check_array,
    check_bool,
    check_choice,
    check_counts,
    check_epsilon,
    check_int,
    check_nonnegative,
    check_open_unit,
    check_positive,
    check_probability,
    check_trials,
)

__all__ = [
    "ABOVE", "BELOW", "HALTED", "NOT_DP",
    "svt_noise_scales", "sparse_vector", "sparse_vector_probability", "gptt", "gptt_noise_scales",
    "event_probability", "COUNTEREXAMPLE_THRESHOLD", "counterexample_databases", "counterexample_answers", "counterexample_event",
    "counterexample_probability", "counterexample_log_ratio_bound", "CounterexampleProbability",
    "GPTTOracle", "SVTOracle", "DifferenceOracle", "OrderedPartition", "ordered_partition", "calibrate_shift",
    "Reconstruction", "ESTIMATORS", "ordered_estimate", "reconstruct_from_oracle", "reconstruct", "laplace_reconstruct",
    "ReconstructionAccuracy", "fraction_exact", "support_k",
]

#: Output codes of :func:`sparse_vector` and :func:`gptt`.
ABOVE, BELOW, HALTED = 1, 0, -1
#: Estimators of Algorithm 4: the paper's rounded averages, or the order-constrained fit (ours).
ESTIMATORS = ("average", "ordered")
#: The label every GPTT object, docstring and figure carries.
NOT_DP = "NOT differentially private"


# =========================================================================== noise
def _laplace_logcdf(x, b: float) -> np.ndarray:
    """log P(Lap(b) < x), stable in both tails."""
    x = np.asarray(x, dtype=float)
    return np.where(x < 0, math.log(0.5) + np.minimum(x, 0.0) / b, np.log1p(-0.5 * np.exp(-np.abs(x) / b)))


def _laplace_logsf(x, b: float) -> np.ndarray:
    """log P(Lap(b) >= x)."""
    return _laplace_logcdf(-np.asarray(x, dtype=float), b)


def _laplace_cdf(x, b: float) -> np.ndarray:
    return np.exp(_laplace_logcdf(x, b))


def _query_epsilon(epsilon_query) -> float:
    """``None`` or ``inf`` -> inf (no query noise); otherwise a finite epsilon > 0."""
    if epsilon_query is None:
        return math.inf
    return check_positive("epsilon_query", epsilon_query, allow_inf=True)


# =========================================================================== SVT
def svt_noise_scales(epsilon: float, c: int = 1, *, sensitivity: float = 1.0, threshold_share: float = 0.5,
                     monotonic: bool = False) -> tuple[float, float]:
    """Laplace scales ``(b_threshold, b_query)`` that make the sparse vector technique epsilon-DP.

    With ``eps1 = threshold_share * epsilon`` and ``eps2 = epsilon - eps1``:
    ``b_threshold = Delta / eps1`` and ``b_query = 2 c Delta / eps2`` (``c Delta / eps2``
    when every query is monotone in the data) ([LSL17]_ Alg. 1, Thm 2).  The
    calibration of [DR14]_/[CM15]_ Alg. 1 (``Lap(2c Delta/eps)`` and
    ``Lap(4c Delta/eps)``) is the special case ``eps1 = eps/(2c)``, ``eps2 = eps/2``,
    which spends less than epsilon.

    Raises
    ------
    ValueError, TypeError
        For a bad ``epsilon``, ``c`` (int >= 1), ``sensitivity`` (> 0) or
        ``threshold_share`` (in (0, 1)).
    """
    epsilon = check_epsilon(epsilon)
    c = check_int("c", c, minimum=1)
    delta = check_positive("sensitivity", sensitivity)
    share = check_open_unit("threshold_share", threshold_share)
    eps1, eps2 = share * epsilon, (1.0 - share) * epsilon
    return delta / eps1, (1.0 if check_bool("monotonic", monotonic) else 2.0) * c * delta / eps2


def sparse_vector(answers, threshold: float, epsilon: float, c: int = 1, *, sensitivity: float = 1.0,
                  threshold_share: float = 0.5, monotonic: bool = False,
                  accountant: PrivacyAccountant | None = None, rng: RngLike = None,
                  size: int | None = None) -> np.ndarray:
    """The sparse vector technique: above/below answers to a query stream, halting after ``c`` "above".

    One run draws ``rho ~ Lap(b_threshold)`` once and ``nu_i ~ Lap(b_query)`` per
    query (scales from :func:`svt_noise_scales`) and answers query i with
    ``ABOVE`` (1) if ``q_i + nu_i >= T + rho`` and ``BELOW`` (0) otherwise, until
    the ``c``-th ``ABOVE``; every later query is ``HALTED`` (-1).  The whole run
    is epsilon-DP when each query has sensitivity at most ``sensitivity``
    ([CM15]_ Alg. 1; [LSL17]_ Thm 2), however many queries answer ``BELOW``.

    Parameters
    ----------
    answers : array_like, shape (m,)
        True answers ``q_1(D), ..., q_m(D)`` of the query stream, in order.
    threshold : float
        The public threshold T.
    epsilon : float
        Total privacy budget of one run, finite and > 0.
    c : int, default 1
        Number of ``ABOVE`` answers after which the algorithm halts.
    sensitivity : float, default 1
        Bound Delta on the sensitivity of every single query.
    threshold_share : float, default 0.5
        Fraction of epsilon spent on the threshold noise, in (0, 1).
    monotonic : bool, default False
        Whether all queries move in the same direction when a row is added (allows
        query noise ``Lap(c Delta / eps2)``).
    accountant : PrivacyAccountant, optional
        Charged ``epsilon`` once per run (``size`` runs cost ``size * epsilon``)
        *before* any noise is drawn; raises ``BudgetExceededError`` if it does not fit.
    rng : None, int, SeedSequence or Generator
        Source of randomness.
    size : int, optional
        Number of independent runs, stacked on a new first axis.

    Returns
    -------
    numpy.ndarray of int8, shape (m,) or (size, m)
        ``ABOVE`` (1), ``BELOW`` (0) or ``HALTED`` (-1) per query.

    Raises
    ------
    ValueError, TypeError
        For bad parameters (named in the message).

    Examples
    --------
    >>> sparse_vector([0, 0, 100, 0, 100, 100], threshold=50, epsilon=1.0, c=2, rng=0)
    array([ 0,  0,  1,  0,  1, -1], dtype=int8)
    """
    answers = check_array("answers", answers, ndim=1)
    threshold = float(check_array("threshold", threshold, ndim=0))
    b_thr, b_q = svt_noise_scales(epsilon, c, sensitivity=sensitivity, threshold_share=threshold_share,
                                  monotonic=monotonic)
    size = check_trials(size)
    if check_accountant(accountant) is not None:
        runs = 1 if size is None else size
        accountant.spend(runs * check_epsilon(epsilon), label=f"sparse vector (c={c})" +
                         ("" if runs == 1 else f" x{runs} runs"))
    gen = as_generator(rng)
    k = 1 if size is None else size
    rho = gen.laplace(0.0, b_thr, size=(k, 1))
    nu = gen.laplace(0.0, b_q, size=(k, answers.size))
    above = answers[None, :] + nu >= threshold + rho
    positives_before = np.cumsum(above, axis=1) - above        # ABOVE answers strictly before query i
    out = np.where(positives_before < c, above.astype(np.int8), np.int8(HALTED)).astype(np.int8)
    return out[0] if size is None else out


# =========================================================================== GPTT
def gptt_noise_scales(epsilon_threshold: float, epsilon_query: float | None = None, *,
                      sensitivity: float = 1.0) -> tuple[float, float]:
    """Laplace scales ``(Delta/eps1, Delta/eps2)`` of GPTT; ``b_query = 0`` when there is no query noise.

    GPTT is **NOT differentially private** ([CM15]_ Thm 4.7); prior work claimed ``eps1 + eps2``.
    """
    eps1 = check_epsilon(epsilon_threshold, "epsilon_threshold")
    eps2 = _query_epsilon(epsilon_query)
    delta = check_positive("sensitivity", sensitivity)
    return delta / eps1, (0.0 if math.isinf(eps2) else delta / eps2)


def gptt(answers, threshold: float, epsilon_threshold: float, epsilon_query: float | None = None, *,
         sensitivity: float = 1.0, rng: RngLike = None, size: int | None = None) -> np.ndarray:
    """Generalized private threshold testing -- **NOT differentially private** ([CM15]_ Thm 4.7).

    Like :func:`sparse_vector` but never halts: one noisy threshold
    ``T^ = T + Lap(Delta/eps1)``, each query ``q_i + Lap(Delta/eps2)`` (no query noise
    when ``epsilon_query`` is None or inf), and the answer ``ABOVE`` (1) if
    ``q_i + nu_i >= T^``, ``BELOW`` (0) otherwise, for every query ([CM15]_ Alg. 2;
    Lee & Clifton 2014 use eps1 = eps/4, eps2 = 3eps/4; Chen et al. 2015 eps/2 each;
    Stoddard et al. 2014 eps1 = eps, no query noise).  Prior work claimed
    ``(eps1 + eps2)``-DP independent of the number of queries; the claim is false
    (see :func:`counterexample_probability` and :func:`reconstruct`).  No
    accountant is accepted: there is no valid epsilon to charge.

    Parameters
    ----------
    answers : array_like, shape (m,)
        True query answers.
    threshold : float
        The public threshold T.
    epsilon_threshold : float
        eps1 of the threshold noise, > 0.
    epsilon_query : float or None, default None
        eps2 of the query noise; None or inf means no query noise.
    sensitivity : float, default 1
        Delta, the bound on each query's sensitivity.
    rng, size
        Randomness and number of independent runs (new first axis).

    Returns
    -------
    numpy.ndarray of int8, shape (m,) or (size, m)
        ``ABOVE`` (1) or ``BELOW`` (0) per query.

    Examples
    --------
    >>> gptt([0, 3, 1, 2], threshold=1.5, epsilon_threshold=1.0, rng=0)
    array([0, 1, 0, 1], dtype=int8)
    """
    answers = check_array("answers", answers, ndim=1)
    threshold = float(check_array("threshold", threshold, ndim=0))
    b_thr, b_q = gptt_noise_scales(epsilon_threshold, epsilon_query, sensitivity=sensitivity)
    size = check_trials(size)
    gen = as_generator(rng)
    k = 1 if size is None else size
    rho = gen.laplace(0.0, b_thr, size=(k, 1))
    noisy = answers[None, :] + (gen.laplace(0.0, b_q, size=(k, answers.size)) if b_q > 0 else 0.0)
    out = (noisy >= threshold + rho).astype(np.int8)
    return out[0] if size is None else out


# =========================================================================== exact probabilities
def event_probability(answers, event, threshold: float, epsilon_threshold: float,
                      epsilon_query: float | None = None, *, sensitivity: float = 1.0,
                      log: bool = False) -> float:
    """Exact probability that GPTT outputs ``event`` on ``answers``, by integrating over the noisy threshold.

    GPTT is NOT differentially private: this is the tool that shows it (Section 4 of [CM15]_).

    Given the noisy threshold ``s = T + rho``, GPTT's answers are independent, so
    ``P(event) = int f_rho(s - T) prod_{i: ABOVE} S(s - q_i) prod_{i: BELOW} F(s - q_i) ds``
    with ``f_rho`` the ``Lap(Delta/eps1)`` density and ``F``, ``S = 1 - F`` the cdf and
    survival function of the query noise ``Lap(Delta/eps2)`` ([CM15]_ Section 4).
    The integrand is evaluated in log space and integrated with
    :func:`scipy.integrate.quad` piecewise between its kinks (T and every q_i),
    so probabilities far below 1e-300 are returned accurately as logarithms.
    Without query noise the integral is the closed form
    ``P(max_{BELOW} q_i < T^ <= min_{ABOVE} q_i)``.

    Parameters
    ----------
    answers : array_like, shape (m,)
        True query answers.
    event : array_like of 0/1, shape (m,)
        The output vector (``ABOVE`` = 1, ``BELOW`` = 0).
    threshold, epsilon_threshold, epsilon_query, sensitivity
        As in :func:`gptt`.
    log : bool, default False
        Return the natural logarithm of the probability (``-inf`` for 0).

    Returns
    -------
    float

    Examples
    --------
    >>> round(event_probability([0, 1], [0, 1], 0.5, 1.0), 6)  # P(0 < 0.5 + Lap(1) <= 1)
    0.393469
    """
    answers = check_array("answers", answers, ndim=1)
    event = check_array("event", event, ndim=1)
    if event.shape != answers.shape:
        raise ValueError(f"event must have the shape of answers {answers.shape}, got {event.shape}")
    if not np.all((event == ABOVE) | (event == BELOW)):
        raise ValueError("event must contain only ABOVE (1) and BELOW (0)")
    threshold = float(check_array("threshold", threshold, ndim=0))
    b1, b2 = gptt_noise_scales(epsilon_threshold, epsilon_query, sensitivity=sensitivity)
    up = answers[event == ABOVE]
    down = answers[event == BELOW]
    if b2 == 0.0:
        hi = up.min() if up.size else math.inf
        lo = down.max() if down.size else -math.inf
        if hi <= lo:
            p = 0.0
        else:
            p = float(_laplace_cdf(hi - threshold, b1) - _laplace_cdf(lo - threshold, b1))
        return (math.log(p) if p > 0 else -math.inf) if log else p
    vals_up, mult_up = np.unique(up, return_counts=True)
    vals_dn, mult_dn = np.unique(down, return_counts=True)

    def logf(s):
        s = np.asarray(s, dtype=float)
        out = -np.abs(s - threshold) / b1 - math.log(2.0 * b1)
        if vals_up.size:
            out = out + (mult_up * _laplace_logsf(s[..., None] - vals_up, b2)).sum(axis=-1)
        if vals_dn.size:
            out = out + (mult_dn * _laplace_logcdf(s[..., None] - vals_dn, b2)).sum(axis=-1)
        return out

    kinks = np.unique(np.concatenate([[threshold], vals_up, vals_dn]))
    span = max(b1, b2, 1.0)
    grid = np.concatenate([np.linspace(kinks[0] - 40 * span, kinks[-1] + 40 * span, 4001), kinks])
    lg = logf(grid)
    peak = float(grid[np.argmax(lg)])
    m = float(lg.max())
    pts = np.unique(np.concatenate([kinks, [peak]]))
    pieces = [(-math.inf, pts[0])] + list(zip(pts[:-1], pts[1:])) + [(pts[-1], math.inf)]
    total = 0.0
    for a, b in pieces:
        val, _ = integrate.quad(lambda s: math.exp(float(logf(s)) - m), a, b, epsabs=0.0, epsrel=1e-10,
                                limit=200)
        total += val
    logp = m + math.log(total) if total > 0 else -math.inf
    return logp if log else math.exp(logp)


def sparse_vector_probability(answers, output, threshold: float, epsilon: float, c: int = 1, *,
                              sensitivity: float = 1.0, threshold_share: float = 0.5, monotonic: bool = False,
                              log: bool = False) -> float:
    """Exact probability that :func:`sparse_vector` returns ``output`` on ``answers``.

    Until it halts, SVT answers exactly like GPTT with SVT's noise scales
    (:func:`svt_noise_scales`), so ``P(output)`` is the probability of the
    answered prefix (everything before the first ``HALTED``), computed by
    :func:`event_probability` (integration over the noisy threshold).  A valid
    output has at most ``c`` ``ABOVE`` answers, is ``HALTED`` from just after the
    c-th ``ABOVE`` on, and nowhere else; any other vector has probability 0.
    Used to check the epsilon-DP inequality ``P_D(a) <= e^epsilon P_D'(a)`` exactly
    ([LSL17]_ Thm 2).

    Examples
    --------
    >>> p = [sparse_vector_probability([0, 1], a, 0.5, 1.0) for a in ([1, -1], [0, 1], [0, 0])]
    >>> round(sum(p), 10)
    1.0
    """
    answers = check_array("answers", answers, ndim=1)
    output = check_array("output", output, ndim=1)
    if output.shape != answers.shape:
        raise ValueError(f"output must have the shape of answers {answers.shape}, got {output.shape}")
    if not np.all((output == ABOVE) | (output == BELOW) | (output == HALTED)):
        raise ValueError("output must contain only ABOVE (1), BELOW (0) and HALTED (-1)")
    b_thr, b_q = svt_noise_scales(epsilon, c, sensitivity=sensitivity, threshold_share=threshold_share,
                                  monotonic=monotonic)
    halted = np.flatnonzero(output == HALTED)
    n = int(halted[0]) if halted.size else output.size
    prefix = output[:n]
    positives = int(np.count_nonzero(prefix == ABOVE))
    # at most c ABOVE; the c-th ABOVE is the last answer given; HALTED only (and always) after a c-th ABOVE
    valid = (n > 0 and bool(np.all(output[n:] == HALTED)) and positives <= c
             and (positives < c or prefix[-1] == ABOVE) and (halted.size == 0 or positives == c))
    if not valid:
        return -math.inf if log else 0.0
    return event_probability(answers[:n], prefix, threshold, 1.0 / b_thr, 1.0 / b_q, sensitivity=1.0, log=log)


def counterexample_databases() -> tuple[np.ndarray, np.ndarray]:
    """The neighbouring databases of the counterexample, as histograms over two cells ``(x, y)``.

    ``D = (0, 1)``: one row, with value y.  ``D' = (0, 0)``: that row removed.
    They differ in the presence of a single row.
    """
    return np.array([0, 1]), np.array([0, 0])


def counterexample_answers(t: int) -> tuple[np.ndarray, np.ndarray]:
    """Answers of the counterexample's ``2t`` queries on ``D`` and on ``D'`` ([CM15]_ Section 4, our instance).

    The queries are ``t`` copies of ``q_1 = c(x)`` followed by ``t`` copies of
    ``q_2 = c(y)``; each has sensitivity 1.  On ``D`` they answer ``(0,...,0, 1,...,1)``,
    on ``D'`` all zeros (see :func:`counterexample_databases`).
    """
    t = check_int("t", t, minimum=1)
    d, dp = counterexample_databases()
    return np.repeat(d.astype(float), t), np.repeat(dp.astype(float), t)


def counterexample_event(t: int) -> np.ndarray:
    """The output event of the counterexample: ``BELOW`` on the t copies of q_1, ``ABOVE`` on the t copies of q_2."""
    t = check_int("t", t, minimum=1)
    return np.repeat(np.array([BELOW, ABOVE], dtype=np.int8), t)


#: Threshold of the counterexample: the middle of the gap between the answers 0 and 1.
COUNTEREXAMPLE_THRESHOLD = 0.5


@dataclass(frozen=True)
class CounterexampleProbability:
    """Exact probabilities of the counterexample event under ``D`` and ``D'`` for each number of copies t.

    GPTT is **NOT differentially private**: ``ratio`` exceeds ``exp(claimed_epsilon)``
    once t is moderate and grows without bound.
    """

    t: np.ndarray
    log_p_d: np.ndarray
    log_p_dprime: np.ndarray
    log_ratio_bound: np.ndarray          # proven lower bound on log(p_d / p_dprime)
    epsilon_threshold: float
    epsilon_query: float                 # inf = no query noise
    claimed_epsilon: float               # eps1 + eps2 (eps1 alone without query noise)

    @property
    def p_d(self) -> np.ndarray:
        return np.exp(self.log_p_d)

    @property
    def p_dprime(self) -> np.ndarray:
        return np.exp(self.log_p_dprime)

    @property
    def log_ratio(self) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return self.log_p_d - self.log_p_dprime

    @property
    def ratio(self) -> np.ndarray:
        with np.errstate(over="ignore"):
            return np.exp(self.log_ratio)

    def __repr__(self) -> str:
        return (f"CounterexampleProbability(GPTT, {NOT_DP}; t={self.t.tolist()}, "
                f"log_ratio={np.round(self.log_ratio, 4).tolist()}, claimed_epsilon={self.claimed_epsilon:g})")


def counterexample_log_ratio_bound(t, epsilon_threshold: float, epsilon_query: float | None = None) -> np.ndarray:
    """A proven lower bound on ``log(P_D(E) / P_D'(E))`` for the counterexample with threshold 1/2.

    Derivation (ours, following [CM15]_ Thm 4.7).  With query noise of scale b:
    on ``D'`` the integrand is ``(F(s) S(s))^t <= 4^-t`` for every s, so
    ``P_D'(E) <= 4^-t``.  On ``D`` it is ``(F(s) S(s - 1))^t``, and for s in [0, 1]
    ``F(s) S(s-1) >= F(0) S(-1) = (2 - e^{-1/b})/4``, so
    ``P_D(E) >= P(0 <= T^ <= 1) ((2 - e^{-1/b})/4)^t``.  Hence
    ``log ratio >= log(1 - e^{-eps1/2}) + t log(2 - e^{-1/b})``, which grows
    linearly in t: no finite epsilon bounds it.  Without query noise the ratio is
    infinite for every t.
    """
    t = np.atleast_1d(check_array("t", t, ndim=(0, 1)))
    if np.any(t < 1) or np.any(t != np.round(t)):
        raise ValueError(f"t must be integers >= 1, got {t.tolist()}")
    b1, b2 = gptt_noise_scales(epsilon_threshold, epsilon_query)
    if b2 == 0:
        return np.full(t.shape, math.inf)
    return math.log1p(-math.exp(-0.5 / b1)) + t * math.log(2.0 - math.exp(-1.0 / b2))


def counterexample_probability(t, epsilon_threshold: float, epsilon_query: float | None = None
                               ) -> CounterexampleProbability:
    """Exact probabilities of the GPTT counterexample event on neighbouring databases, for each t.

    GPTT (**NOT differentially private**) runs on the ``2t`` queries of
    :func:`counterexample_answers` with threshold 1/2; the event is
    :func:`counterexample_event` (all copies of ``c(x)`` below, all copies of
    ``c(y)`` above).  Both probabilities come from :func:`event_probability`
    (numerical integration over the noisy threshold).  Differential privacy with
    epsilon would need ``P_D(E) <= e^epsilon P_D'(E)``; the ratio grows without bound
    in t ([CM15]_ Thm 4.7), and without query noise ``P_D'(E) = 0 < P_D(E)``.

    Parameters
    ----------
    t : int or array_like of int
        Numbers of copies of each query (>= 1).
    epsilon_threshold, epsilon_query
        GPTT's budget split (None = no query noise).

    Returns
    -------
    CounterexampleProbability

    Examples
    --------
    >>> r = counterexample_probability([1, 10, 40], 0.5, 0.5)
    >>> bool(np.all(np.diff(r.log_ratio) > 0)), bool(r.log_ratio[-1] > r.claimed_epsilon)
    (True, True)
    """
    t_arr = np.atleast_1d(check_array("t", t, ndim=(0, 1)))
    if t_arr.size == 0 or np.any(t_arr < 1) or np.any(t_arr != np.round(t_arr)):
        raise ValueError(f"t must be integers >= 1, got {t_arr.tolist()}")
    t_arr = t_arr.astype(int)
    eps2 = _query_epsilon(epsilon_query)
    eps1 = check_epsilon(epsilon_threshold, "epsilon_threshold")
    lp, lq = [], []
    for ti in t_arr:
        ans_d, ans_dp = counterexample_answers(int(ti))
        ev = counterexample_event(int(ti))
        lp.append(event_probability(ans_d, ev, COUNTEREXAMPLE_THRESHOLD, eps1, eps2, log=True))
        lq.append(event_probability(ans_dp, ev, COUNTEREXAMPLE_THRESHOLD, eps1, eps2, log=True))
    return CounterexampleProbability(
        t=t_arr, log_p_d=np.array(lp), log_p_dprime=np.array(lq),
        log_ratio_bound=counterexample_log_ratio_bound(t_arr, eps1, eps2),
        epsilon_threshold=eps1, epsilon_query=eps2,
        claimed_epsilon=eps1 + (0.0 if math.isinf(eps2) else eps2),
    )


# =========================================================================== oracles
@runtime_checkable
class DifferenceOracle(Protocol):
    """What the attack may ask: threshold answers to difference queries, and noisy totals of disjoint groups."""

    domain_size: int

    def answer_differences(self, rows: np.ndarray, copies: int = 1, shift: float = 0.0) -> np.ndarray:
        """For x in ``rows`` and every cell y: how many of ``copies`` answers to ``c(x) - c(y) + shift`` were ABOVE."""

    def noisy_group_totals(self, labels: np.ndarray, epsilon: float) -> np.ndarray:
        """Laplace-noised total count of each group ``labels == g`` (disjoint groups, sensitivity 1)."""


class _HistogramOracle:
    """Shared machinery: holds the private histogram and answers noisy group totals (epsilon-DP)."""

    def __init__(self, counts, rng: RngLike = None) -> None:
        counts = check_counts("counts", counts)
        if np.any(counts != np.round(counts)):
            raise ValueError("counts must be integer counts")
        self.__counts = counts  # name-mangled: the attack never sees it
        self.domain_size = int(counts.size)
        self._rng = as_generator(rng)
        self.laplace_epsilon = 0.0
        self.queries_answered = 0

    def _counts(self) -> np.ndarray:
        return self.__counts

    def _check_rows(self, rows) -> np.ndarray:
        rows = np.asarray(rows)
        if rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer):
            raise TypeError("rows must be a 1-D integer array of cell indices")
        if rows.size and (rows.min() < 0 or rows.max() >= self.domain_size):
            raise ValueError(f"rows must lie in [0, {self.domain_size - 1}]")
        return rows

    def noisy_group_totals(self, labels, epsilon: float) -> np.ndarray:
        """Total count of each group ``g = 0..G-1`` plus ``Lap(1/epsilon)``: epsilon-DP (parallel composition [DMNS06]).

        The groups are disjoint, so adding or removing one row changes one total by
        one: the vector of totals has L1 sensitivity 1.
        """
        epsilon = check_epsilon(epsilon)
        labels = np.asarray(labels)
        if labels.shape != (self.domain_size,) or not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0:
            raise ValueError(f"labels must be {self.domain_size} non-negative integer group labels")
        totals = np.bincount(labels, weights=self.__counts)
        self.laplace_epsilon += epsilon
        return totals + self._rng.laplace(0.0, 1.0 / epsilon, size=totals.size)


class GPTTOracle(_HistogramOracle):
    """Answers difference queries ``c(x) - c(y)`` by GPTT -- **NOT differentially private** -- and noisy totals.

    The attack (:func:`ordered_partition`, :func:`reconstruct_from_oracle`) only
    calls :meth:`answer_differences` and :meth:`noisy_group_totals`; the true
    counts are kept in a private attribute.  All answers of one oracle come from
    one GPTT run: one noisy threshold ``T^ = T + Lap(1/eps1)`` drawn at
    construction, fresh query noise ``Lap(1/eps2)`` per answer (none if
    ``epsilon_query`` is None).  Difference queries have sensitivity 1.

    With ``copies > 1`` each query is asked ``copies`` times and the number of
    ``ABOVE`` answers is returned: given ``T^`` the copies are independent, so this
    count is drawn exactly as ``Binomial(copies, P(q + nu >= T^))`` ([CM15]_ Thm 3.5).
    """

    def __init__(self, counts, epsilon_threshold: float, epsilon_query: float | None = None, *,
                 threshold: float = 0.5, rng: RngLike = None) -> None:
        super().__init__(counts, rng)
        self.threshold = float(check_array("threshold", threshold, ndim=0))
        self._b1, self._b2 = gptt_noise_scales(epsilon_threshold, epsilon_query)
        self.epsilon_threshold = float(epsilon_threshold)
        self.epsilon_query = _query_epsilon(epsilon_query)
        self.__noisy_threshold = self.threshold + self._rng.laplace(0.0, self._b1)

    def answer_differences(self, rows, copies: int = 1, shift: float = 0.0) -> np.ndarray:
        """Number of ``ABOVE`` answers (out of ``copies``) of GPTT to ``c(x) - c(y) + shift``, x in rows, y every cell.

        ``shift`` is a public constant (the query keeps sensitivity 1); with
        ``x = y`` the query is the constant ``shift`` itself.  Returns an array of
        shape ``(len(rows), domain_size)``, dtype uint8 when ``copies`` <= 255
        (0/1 when copies = 1), else int32.
        """
        rows = self._check_rows(rows)
        copies = check_int("copies", copies, minimum=1)
        shift = float(check_array("shift", shift, ndim=0))
        c = self._counts()
        s = self.__noisy_threshold
        dtype = np.uint8 if copies <= 255 else np.int32
        self.queries_answered += rows.size * c.size * copies
        if self._b2 == 0.0:
            # c(x) - c(y) + shift >= s  <=>  c(y) <= c(x) + shift - s: one comparison per query, no temporaries
            above = c[None, :] <= (c[rows] + (shift - s))[:, None]
            return above.view(np.uint8) if copies == 1 else (above * copies).astype(dtype)
        diff = c[rows, None] - c[None, :] + shift
        if copies == 1:
            return (diff + self._rng.laplace(0.0, self._b2, size=diff.shape) >= s).astype(dtype)
        p = np.exp(_laplace_logsf(s - diff, self._b2))
        return self._rng.binomial(copies, p).astype(dtype)

    def __repr__(self) -> str:
        q = "no query noise" if math.isinf(self.epsilon_query) else f"epsilon_query={self.epsilon_query:g}"
        return (f"GPTTOracle({NOT_DP}; domain_size={self.domain_size}, epsilon_threshold={self.epsilon_threshold:g}, "
                f"{q}, threshold={self.threshold:g}, queries_answered={self.queries_answered})")


class SVTOracle(_HistogramOracle):
    """The honest counterpart of :class:`GPTTOracle`: difference queries answered by the sparse vector technique.

    One SVT run (epsilon-DP, :func:`sparse_vector`) over the query stream in the
    order asked (row by row); after ``c`` ``ABOVE`` answers every later query is
    ``HALTED`` (-1).  ``copies`` must be 1 (copies would count as separate queries
    in the same stream).
    """

    def __init__(self, counts, epsilon: float, c: int = 1, *, threshold: float = 0.5,
                 threshold_share: float = 0.5, rng: RngLike = None) -> None:
        super().__init__(counts, rng)
        self.threshold = float(check_array("threshold", threshold, ndim=0))
        self.epsilon = check_epsilon(epsilon)
        self.c = check_int("c", c, minimum=1)
        self._b1, self._b2 = svt_noise_scales(epsilon, c, threshold_share=threshold_share)
        self.__noisy_threshold = self.threshold + self._rng.laplace(0.0, self._b1)
        self.positives = 0

    def answer_differences(self, rows, copies: int = 1, shift: float = 0.0) -> np.ndarray:
        """SVT answers (1 above, 0 below, -1 halted) to ``c(x) - c(y) + shift``, x in rows, y every cell, as int8."""
        rows = self._check_rows(rows)
        check_int("copies", copies, minimum=1, maximum=1)
        shift = float(check_array("shift", shift, ndim=0))
        out = np.full((rows.size, self.domain_size), HALTED, dtype=np.int8)
        c = self._counts()
        chunk = 8                                      # rows per noise draw: stop drawing once halted
        for start in range(0, rows.size, chunk):
            if self.positives >= self.c:
                break
            r = rows[start:start + chunk]
            diff = (c[r, None] - c[None, :] + shift).ravel()
            above = diff + self._rng.laplace(0.0, self._b2, size=diff.size) >= self.__noisy_threshold
            before = self.positives + np.cumsum(above) - above
            flat = np.where(before < self.c, above.astype(np.int8), np.int8(HALTED))
            out[start:start + r.size] = flat.reshape(r.size, -1)
            self.positives = min(self.c, self.positives + int(above.sum()))
            self.queries_answered += int(np.count_nonzero(flat != HALTED))
        return out

    def __repr__(self) -> str:
        return (f"SVTOracle(epsilon-DP sparse vector; domain_size={self.domain_size}, epsilon={self.epsilon:g}, "
                f"c={self.c}, threshold={self.threshold:g}, queries_answered={self.queries_answered})")


# =========================================================================== the attack
@dataclass(frozen=True)
class OrderedPartition:
    """Algorithm 3's output: the domain split into groups with identical answer rows, ordered by ``|S_x|``.

    ``labels[x]`` is the group of cell x; group 0 has the smallest ``|S_x|``
    (= the smallest counts when the noisy threshold lies in (0, 1]).
    """

    labels: np.ndarray        # (d,) int64 group of each cell
    group_sizes: np.ndarray   # (G,) number of cells per group
    scores: np.ndarray        # (G,) |S_x| of the group (number of ABOVE answers in its row)

    @property
    def n_groups(self) -> int:
        return int(self.group_sizes.size)


def _majority(answers: np.ndarray, copies: int) -> np.ndarray:
    """Majority vote over copies (ABOVE when more than half said ABOVE); HALTED (-1) stays -1."""
    if copies == 1:
        return answers.astype(np.int8)
    return (answers.astype(np.int32) * 2 > copies).astype(np.int8)


def calibrate_shift(oracle: DifferenceOracle, *, copies: int = 1, query_scale: float = 0.0,
                    max_steps: int = 64) -> float:
    """Locate the noisy threshold with constant queries and return the shift that centres it in (0, 1].

    The constant query ``c(0) - c(0) + j = j`` (sensitivity 0) is ``ABOVE`` exactly when
    ``j >= T^`` (without query noise; with it, a majority of ``copies`` answers
    is ABOVE exactly when ``j >= T^`` up to sampling error, since the noise has
    median 0).  Doubling then bisection over the integers finds the smallest
    such j in ``O(log |T^|)`` queries.  Without query noise the shift is
    ``j - 1 = ceil(T^) - 1``: the effective threshold ``T^ - shift`` lies in
    (0, 1], where GPTT's answers to ``c(x) - c(y) + shift`` are exactly
    ``c(x) > c(y)``.  With query noise of known scale ``query_scale`` and
    ``copies > 1``, the fraction p of ABOVE answers to the constant query
    estimates ``T^ - j = S^{-1}(p)`` (``S`` the Laplace survival function), and
    the shift ``T^_est - 1/2`` puts the effective threshold half-way between the
    integer differences 0 and 1, where majority votes are most reliable.
    This refinement is ours, not [CM15]_'s: an attacker need not be lucky with
    the threshold noise.
    """
    copies = check_int("copies", copies, minimum=1)
    query_scale = check_nonnegative("query_scale", query_scale)
    row0 = np.array([0])

    def count(j: float) -> int:
        return int(np.asarray(oracle.answer_differences(row0, copies=copies, shift=float(j)))[0, 0])

    def above(j: int) -> bool:
        a = count(j)
        return a == ABOVE if copies == 1 else 2 * a > copies

    lo, hi = -1, 0                       # invariant once found: not above(lo), above(hi)
    if above(0):
        step = 1
        while above(-step):
            step *= 2
            if step > 2 ** max_steps:
                raise ValueError("could not locate the noisy threshold (no query ever answered BELOW)")
        lo, hi = -step, -step // 2 if step > 1 else 0
    else:
        step = 1
        while not above(step):
            step *= 2
            if step > 2 ** max_steps:
                raise ValueError("could not locate the noisy threshold (no query ever answered ABOVE)")
        lo, hi = step // 2 if step > 1 else 0, step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if above(mid):
            hi = mid
        else:
            lo = mid
    if query_scale == 0 or copies == 1:
        return float(hi - 1)
    estimates = []
    for j in (lo, hi):
        p = count(j) / copies
        if 0 < p < 1:   # invert P(j + nu >= T^) = S(T^ - j) for Laplace noise of scale query_scale
            gap = -query_scale * math.log(2 * p) if p <= 0.5 else query_scale * math.log(2 * (1 - p))
            estimates.append((abs(p - 0.5), j + gap))
    if not estimates:
        return float(hi - 1)
    return float(min(estimates)[1] - 0.5)


def ordered_partition(oracle: DifferenceOracle, *, copies: int = 1, calibrate: bool = False,
                      query_scale: float = 0.0, block: int = 512) -> OrderedPartition:
    """Algorithm 3 of [CM15]_: ordered partition of the domain from threshold answers to all difference queries.

    Against a GPTT oracle (NOT differentially private) the partition orders the cells by count; against an
    honest SVT oracle the halt after c answers leaves it almost uninformative.

    For every cell x the attack asks ``c(x) - c(y) >= T^ ?`` for all cells y
    (all ``d (d - 1)`` ordered pairs, i.e. every unordered pair both ways, plus the
    trivial ``x = y``), taking the majority over ``copies`` repetitions.  Cells
    with identical answer rows form a group; groups are ordered by the size of
    ``S_x = {y : ABOVE}``.  Sorting-based: rows are packed to bytes and grouped
    with :func:`numpy.unique`, so the whole domain of 4096 cells (about 16.8
    million ordered queries) takes a fraction of a second.

    When the noisy threshold lies in (0, 1] the groups are exactly the sets of
    cells with equal counts ([CM15]_ Lemma 5.10, Thm 5.12).  With
    ``calibrate=True`` the queries are first shifted by :func:`calibrate_shift`
    so that this holds whatever the threshold noise (our refinement).

    Parameters
    ----------
    oracle : DifferenceOracle
        The only access to the data (e.g. :class:`GPTTOracle`).
    copies : int, default 1
        Repetitions of each query, combined by majority vote.
    calibrate : bool, default False
        Shift the difference queries so the effective threshold lies in (0, 1].
    query_scale : float, default 0
        The (public) Laplace scale of GPTT's query noise, used by the calibration.
    block : int, default 512
        Rows asked per call (memory/speed trade-off).

    Returns
    -------
    OrderedPartition
    """
    if not isinstance(oracle, DifferenceOracle) or isinstance(oracle, np.ndarray):
        raise TypeError(f"oracle must provide answer_differences and noisy_group_totals, got {type(oracle).__name__}")
    copies = check_int("copies", copies, minimum=1)
    block = check_int("block", block, minimum=1)
    d = check_int("oracle.domain_size", oracle.domain_size, minimum=1)
    shift = calibrate_shift(oracle, copies=copies, query_scale=query_scale) if calibrate else 0.0
    packed_rows, scores = [], np.empty(d, dtype=np.int64)
    for start in range(0, d, block):
        rows = np.arange(start, min(d, start + block))
        votes = _majority(np.asarray(oracle.answer_differences(rows, copies=copies, shift=shift)), copies)
        if votes.shape != (rows.size, d):
            raise ValueError(f"oracle answered shape {votes.shape}, expected {(rows.size, d)}")
        scores[rows] = np.count_nonzero(votes == ABOVE, axis=1)
        # two bit planes (ABOVE, HALTED) so halted answers stay distinguishable from BELOW
        planes = [np.packbits(votes == ABOVE, axis=1)]
        if np.any(votes == HALTED):
            planes.append(np.packbits(votes == HALTED, axis=1))
        else:
            planes.append(np.zeros_like(planes[0]))
        packed_rows.append(np.concatenate(planes, axis=1))
    packed = np.ascontiguousarray(np.concatenate(packed_rows, axis=0))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    group_score = scores[first]
    order = np.lexsort((first, group_score))     # by |S_x|, ties by first cell
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    labels = rank[inverse].astype(np.int64)
    return OrderedPartition(labels=labels, group_sizes=np.bincount(labels, minlength=order.size),
                            scores=group_score[order])


@dataclass(frozen=True, repr=False)
class Reconstruction:
    """The attacker's guess of every count, with the partition it came from.

    When produced through GPTT the attack exploits a mechanism that is **NOT
    differentially private**; ``mechanism`` says which oracle was used.
    """

    guess: np.ndarray              # (d,) guessed counts (non-negative integers)
    partition: OrderedPartition
    noisy_totals: np.ndarray       # (G,) Laplace-noised group totals
    epsilon_partition: float       # claimed epsilon of the partition step
    epsilon_totals: float          # epsilon of the Laplace totals
    mechanism: str                 # "GPTT", "SVT" or "Laplace"
    queries: int                   # queries answered by the oracle

    def __repr__(self) -> str:
        if self.mechanism == "GPTT":
            label = f"GPTT, {NOT_DP}"
        elif self.mechanism in ("SVT", "Laplace"):
            label = f"{self.mechanism}, differentially private"
        else:
            label = f"{self.mechanism}, differential privacy not established"
        return (f"Reconstruction({label}; {self.guess.size} cells, {self.partition.n_groups} groups, "
                f"epsilon_partition={self.epsilon_partition:g}, epsilon_totals={self.epsilon_totals:g})")


def ordered_estimate(averages, weights) -> np.ndarray:
    """Least-squares group counts under the partition's order: ``c_{i+1} >= c_i + 1`` and ``c_0 >= 0``.

    Minimises ``sum_i w_i (a_i - c_i)^2`` subject to ``c_{i+1} - c_i >= 1`` and
    ``c_0 >= 0``.  With ``c_i = i + u_i`` this is isotonic regression of
    ``a_i - i`` (weights ``w_i``, :func:`scipy.optimize.isotonic_regression`)
    followed by ``max(u, 0)`` (a lower bound commutes with the isotonic fit).
    The constraints hold for the true group averages whenever the groups are
    intervals of counts in increasing order ([CM15]_ Lemma 5.10), since then the
    largest count of group i is below the smallest of group i+1.
    """
    a = check_array("averages", averages, ndim=1)
    w = check_array("weights", weights, ndim=1)
    if w.shape != a.shape or np.any(w <= 0):
        raise ValueError("weights must be positive, one per average")
    i = np.arange(a.size, dtype=float)
    u = isotonic_regression(a - i, weights=w, increasing=True).x
    return np.maximum(u, 0.0) + i


def reconstruct_from_oracle(oracle: DifferenceOracle, epsilon_totals: float, *, copies: int = 1,
                            calibrate: bool = False, estimator: str = "average", query_scale: float | None = None,
                            block: int = 512) -> Reconstruction:
    """Algorithm 4 of [CM15]_ given only an oracle: partition (Alg. 3), noisy group totals, rounded averages.

    The attack that shows GPTT is NOT differentially private; run through an :class:`SVTOracle` it is
    epsilon-DP end to end (and learns far less).

    ``guess[x] = max(0, round(noisy_total(P) / |P|))`` for the group P of x, with
    ``noisy_total(P) = sum_{y in P} c(y) + Lap(1/epsilon_totals)`` (one noisy total per
    group, parallel composition).  Rounding is half up; negative averages become 0
    (the attacker knows counts are non-negative).  ``estimator="ordered"``
    (ours, not the paper's) replaces the plain averages by
    :func:`ordered_estimate`, which pools the noisy totals of neighbouring groups
    using the order the partition reveals.  ``query_scale`` is GPTT's public
    query-noise scale (read from a :class:`GPTTOracle`'s parameters when None).

    Raises
    ------
    TypeError
        If ``oracle`` is not an oracle (e.g. an array of counts).
    """
    epsilon_totals = check_epsilon(epsilon_totals, "epsilon_totals")
    check_choice("estimator", estimator, ESTIMATORS)
    if query_scale is None:
        eps_q = oracle.epsilon_query if isinstance(oracle, GPTTOracle) else math.inf
        query_scale = 0.0 if math.isinf(eps_q) else 1.0 / eps_q
    partition = ordered_partition(oracle, copies=copies, calibrate=calibrate, query_scale=query_scale, block=block)
    totals = np.asarray(oracle.noisy_group_totals(partition.labels, epsilon_totals), dtype=float)
    avg = totals / partition.group_sizes
    if estimator == "ordered":
        avg = ordered_estimate(avg, partition.group_sizes.astype(float))
    guess = np.maximum(np.floor(avg + 0.5), 0.0)[partition.labels]
    if isinstance(oracle, GPTTOracle):
        mech, eps_p = "GPTT", oracle.epsilon_threshold + (0.0 if math.isinf(oracle.epsilon_query)
                                                           else oracle.epsilon_query)
    elif isinstance(oracle, SVTOracle):
        mech, eps_p = "SVT", oracle.epsilon
    else:
        mech, eps_p = type(oracle).__name__, float("nan")
    return Reconstruction(guess=guess, partition=partition, noisy_totals=totals, epsilon_partition=eps_p,
                          epsilon_totals=epsilon_totals, mechanism=mech,
                          queries=int(getattr(oracle, "queries_answered", -1)))


def _split(epsilon: float, split: float) -> tuple[float, float]:
    epsilon = check_epsilon(epsilon)
    split = check_open_unit("split", split)
    return split * epsilon, (1.0 - split) * epsilon


def reconstruct(counts, epsilon: float, *, split: float = 0.5, query_share: float = 0.0, copies: int = 1,
                calibrate: bool = False, estimator: str = "average", threshold: float = 0.5,
                rng: RngLike = None) -> Reconstruction:
    """Reconstruct a histogram with GPTT (**NOT differentially private**): Algorithms 3 and 4 of [CM15]_.

    The (claimed) budget epsilon is split: ``split * epsilon`` goes to GPTT on all
    difference queries (of which the fraction ``query_share`` is query noise;
    0 = no query noise, as in the paper's experiments), the rest to one Laplace
    total per group.  The counts go into a :class:`GPTTOracle`; the attack
    (:func:`reconstruct_from_oracle`) sees only the oracle's answers.

    Parameters
    ----------
    counts : array_like of non-negative integers, shape (d,)
        The private histogram.
    epsilon : float
        Total (claimed) budget.
    split : float, default 0.5
        Fraction of epsilon given to GPTT, in (0, 1).
    query_share : float, default 0
        Fraction of GPTT's share spent on query noise, in [0, 1).
    copies : int, default 1
        Repetitions of each difference query (majority vote), useful with query noise.
    calibrate : bool, default False
        Locate the noisy threshold first and shift the queries (see :func:`calibrate_shift`;
        not in the paper).
    estimator : {"average", "ordered"}, default "average"
        The paper's rounded group averages, or :func:`ordered_estimate` (ours).
    threshold : float, default 0.5
        GPTT's threshold T (1/2 puts the no-noise threshold in the middle of (0, 1]).
    rng
        Randomness of GPTT and of the Laplace totals.

    Returns
    -------
    Reconstruction
        ``guess`` (the guessed counts) and ``partition``.

    Examples
    --------
    >>> x = np.repeat([0, 1, 2, 3, 4, 5], 40)          # 240 cells, 40 of each count
    >>> r = reconstruct(x, 1.0, calibrate=True, rng=0)
    >>> r.partition.n_groups, int((r.guess == x).sum())
    (6, 240)
    """
    counts = check_counts("counts", counts)
    eps_gptt, eps_totals = _split(epsilon, split)
    check_choice("estimator", estimator, ESTIMATORS)
    query_share = check_probability("query_share", query_share, low_open=False, high_open=True)
    gen = as_generator(rng)
    eps_q = None if query_share == 0 else query_share * eps_gptt
    oracle = GPTTOracle(counts, (1.0 - query_share) * eps_gptt, eps_q, threshold=threshold, rng=gen)
    return reconstruct_from_oracle(oracle, eps_totals, copies=copies, calibrate=calibrate, estimator=estimator)


def laplace_reconstruct(counts, epsilon: float, *, rng: RngLike = None) -> np.ndarray:
    """The honest baseline: release every count with ``Lap(1/epsilon)`` noise and round (epsilon-DP).

    A histogram has L1 sensitivity 1 (a row changes one count by one), so this
    is epsilon-DP [DMNS06]; ``guess = max(0, round(c(x) + Lap(1/epsilon)))`` is the same
    post-processing as the attack's.
    """
    counts = check_counts("counts", counts)
    epsilon = check_epsilon(epsilon)
    noisy = counts + as_generator(rng).laplace(0.0, 1.0 / epsilon, size=counts.shape)
    return np.maximum(np.floor(noisy + 0.5), 0.0)


# =========================================================================== scoring
@dataclass(frozen=True)
class ReconstructionAccuracy:
    """Fraction of cells guessed exactly: overall, among cells with true count <= k ([CM15]_ Tables 2, 3), and
    among cells with 1 <= count <= k (where guessing "0 everywhere" does not help)."""

    overall: float
    small: float
    small_nonzero: float
    k: int
    n_cells: int
    n_small: int
    n_small_nonzero: int


def support_k(counts) -> int:
    """Largest k such that every count 0, 1, ..., k occurs in some cell (-1 if no cell is 0); [CM15]_ Table 1."""
    counts = check_counts("counts", counts)
    present = np.zeros(counts.size + 2, dtype=bool)
    small = counts[counts <= counts.size].astype(np.int64)
    present[small] = True
    missing = np.flatnonzero(~present)
    return int(missing[0]) - 1


def fraction_exact(counts, guess, k: int | None = None) -> ReconstructionAccuracy:
    """Fraction of cells with ``guess == counts``: overall, among cells with ``counts <= k``, and with ``1 <= counts <= k``.

    ``k`` defaults to :func:`support_k` of ``counts`` (the k of [CM15]_ Table 1).
    """
    counts = check_counts("counts", counts)
    guess = check_array("guess", guess, ndim=1)
    if guess.shape != counts.shape:
        raise ValueError(f"guess must have the shape of counts {counts.shape}, got {guess.shape}")
    k = support_k(counts) if k is None else check_int("k", k, minimum=0)
    hit = guess == counts
    small = counts <= k
    nonzero = small & (counts >= 1)
    n_small, n_nz = int(small.sum()), int(nonzero.sum())
    return ReconstructionAccuracy(overall=float(hit.mean()),
                                  small=float(hit[small].mean()) if n_small else float("nan"),
                                  small_nonzero=float(hit[nonzero].mean()) if n_nz else float("nan"),
                                  k=int(k), n_cells=int(counts.size), n_small=n_small, n_small_nonzero=n_nz)
