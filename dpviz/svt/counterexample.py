"""The counterexample that proves GPTT is NOT differentially private ([CM15]_ Section 4, Thm 4.7).

Two neighbouring histograms over cells ``(x, y)``, ``D = (0, 1)`` and
``D' = (0, 0)`` (one row removed); ``t`` copies of ``c(x)`` and ``t`` copies of
``c(y)``; the event "every copy of ``c(x)`` below, every copy of ``c(y)``
above".  :func:`counterexample_probability` computes ``P_D(E)`` and
``P_D'(E)`` exactly: their ratio grows without bound in ``t``, so no finite
epsilon bounds GPTT's privacy loss.

References
----------
.. [CM15] Y. Chen, A. Machanavajjhala. "On the Privacy Properties of Variants on
   the Sparse Vector Technique." arXiv:1508.07306, 2015.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpviz.svt.codes import ABOVE, BELOW, NOT_DP
from dpviz.svt.exact import event_probability
from dpviz.svt.gptt_variant import _query_epsilon, gptt_noise_scales
from dpviz.validation import check_array, check_elements, check_epsilon, check_int

#: Most values of t one :func:`counterexample_probability` call integrates (each costs about 10 ms).
MAX_T_VALUES = 1000

__all__ = [
    "COUNTEREXAMPLE_THRESHOLD", "counterexample_databases", "counterexample_answers", "counterexample_event",
    "counterexample_probability", "counterexample_log_ratio_bound", "CounterexampleProbability", "MAX_T_VALUES",
]


def counterexample_databases() -> tuple[np.ndarray, np.ndarray]:
    """The neighbouring databases of the counterexample, as histograms over two cells ``(x, y)``.

    ``D = (0, 1)``: one record, with value y.  ``D' = (0, 0)``: that record
    removed.  They are neighbours under add/remove-one-record.

    Returns
    -------
    d : numpy.ndarray, shape (2,)
        The histogram of ``D``, ``[0, 1]``.
    d_prime : numpy.ndarray, shape (2,)
        The histogram of ``D'``, ``[0, 0]``.

    References
    ----------
    See [CM15] (Section 4) in the module docstring.

    Examples
    --------
    >>> d, d_prime = counterexample_databases()
    >>> d.tolist(), d_prime.tolist()
    ([0, 1], [0, 0])
    """
    return np.array([0, 1]), np.array([0, 0])


def counterexample_answers(t: int) -> tuple[np.ndarray, np.ndarray]:
    """Answers of the counterexample's ``2t`` queries on ``D`` and on ``D'`` ([CM15] Section 4, our instance).

    The queries are ``t`` copies of ``q_1 = c(x)`` followed by ``t`` copies of
    ``q_2 = c(y)``; each has sensitivity 1.  On ``D`` they answer ``(0,...,0, 1,...,1)``,
    on ``D'`` all zeros (see :func:`counterexample_databases`).

    Parameters
    ----------
    t : int
        Number of copies of each of the two queries, >= 1.

    Returns
    -------
    answers_d : numpy.ndarray, shape (2t,)
        The true answers on ``D``: t zeros, then t ones.
    answers_d_prime : numpy.ndarray, shape (2t,)
        The true answers on ``D'``: 2t zeros.

    Raises
    ------
    ValueError, TypeError
        If ``t`` is not an integer >= 1, or ``2 t`` exceeds :data:`dpviz.validation.MAX_ELEMENTS`.

    References
    ----------
    See [CM15] (Section 4) in the module docstring.

    Examples
    --------
    >>> a_d, a_d_prime = counterexample_answers(2)
    >>> a_d.tolist(), a_d_prime.tolist()
    ([0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0])
    """
    t = check_int("t", t, minimum=1)
    check_elements(2.0 * t, "query answers (2t)", t=t)
    d, dp = counterexample_databases()
    return np.repeat(d.astype(float), t), np.repeat(dp.astype(float), t)


def counterexample_event(t: int) -> np.ndarray:
    """The output event of the counterexample: ``BELOW`` on the t copies of q_1, ``ABOVE`` on the t copies of q_2.

    Parameters
    ----------
    t : int
        Number of copies of each of the two queries, >= 1.

    Returns
    -------
    numpy.ndarray of int8, shape (2t,)
        t ``BELOW`` (0) followed by t ``ABOVE`` (1).

    Raises
    ------
    ValueError, TypeError
        If ``t`` is not an integer >= 1, or ``2 t`` exceeds :data:`dpviz.validation.MAX_ELEMENTS`.

    Examples
    --------
    >>> counterexample_event(2)
    array([0, 0, 1, 1], dtype=int8)
    """
    t = check_int("t", t, minimum=1)
    check_elements(2.0 * t, "output codes (2t)", t=t)
    return np.repeat(np.array([BELOW, ABOVE], dtype=np.int8), t)


#: Threshold of the counterexample: the middle of the gap between the answers 0 and 1.
COUNTEREXAMPLE_THRESHOLD = 0.5


@dataclass(frozen=True)
class CounterexampleProbability:
    """Exact probabilities of the counterexample event under ``D`` and ``D'`` for each number of copies t.

    GPTT is **NOT differentially private**: ``ratio`` exceeds ``exp(claimed_epsilon)``
    once t is moderate and grows without bound.  Built by
    :func:`counterexample_probability`.

    Attributes
    ----------
    t : numpy.ndarray of int, shape (n,)
        Numbers of copies of each query.
    log_p_d : numpy.ndarray, shape (n,)
        ``log P_D(E)`` for each t.
    log_p_dprime : numpy.ndarray, shape (n,)
        ``log P_D'(E)`` for each t (``-inf`` without query noise).
    log_ratio_bound : numpy.ndarray, shape (n,)
        Proven lower bound on ``log(P_D(E) / P_D'(E))`` (see
        :func:`counterexample_log_ratio_bound`).
    epsilon_threshold : float
        eps1 of GPTT's threshold noise.
    epsilon_query : float
        eps2 of GPTT's query noise; inf means no query noise.
    claimed_epsilon : float
        The epsilon prior work claimed: ``eps1 + eps2`` (eps1 alone without query noise).

    References
    ----------
    See [CM15] (Section 4, Thm 4.7) in the module docstring.

    Examples
    --------
    >>> r = counterexample_probability([1, 2], 0.5, 0.5)
    >>> r.t.tolist(), bool(np.all(r.log_ratio >= r.log_ratio_bound))
    ([1, 2], True)
    """

    t: np.ndarray
    log_p_d: np.ndarray
    log_p_dprime: np.ndarray
    log_ratio_bound: np.ndarray
    epsilon_threshold: float
    epsilon_query: float
    claimed_epsilon: float

    @property
    def p_d(self) -> np.ndarray:
        """``P_D(E)`` for each t."""
        return np.exp(self.log_p_d)

    @property
    def p_dprime(self) -> np.ndarray:
        """``P_D'(E)`` for each t."""
        return np.exp(self.log_p_dprime)

    @property
    def log_ratio(self) -> np.ndarray:
        """The privacy loss ``log(P_D(E) / P_D'(E))`` of the event for each t (inf without query noise)."""
        with np.errstate(invalid="ignore"):
            return self.log_p_d - self.log_p_dprime

    @property
    def ratio(self) -> np.ndarray:
        """``P_D(E) / P_D'(E)`` for each t (may overflow to inf)."""
        with np.errstate(over="ignore"):
            return np.exp(self.log_ratio)

    def __repr__(self) -> str:
        return (f"CounterexampleProbability(GPTT, {NOT_DP}; t={self.t.tolist()}, "
                f"log_ratio={np.round(self.log_ratio, 4).tolist()}, claimed_epsilon={self.claimed_epsilon:g})")


def counterexample_log_ratio_bound(t: npt.ArrayLike, epsilon_threshold: float,
                                   epsilon_query: float | None = None) -> np.ndarray:
    """A proven lower bound on ``log(P_D(E) / P_D'(E))`` for the counterexample with threshold 1/2.

    Derivation (ours, following [CM15] Thm 4.7).  With query noise of scale b:
    on ``D'`` the integrand is ``(F(s) S(s))^t <= 4^-t`` for every s, so
    ``P_D'(E) <= 4^-t``.  On ``D`` it is ``(F(s) S(s - 1))^t``, and for s in [0, 1]
    ``F(s) S(s-1) >= F(0) S(-1) = (2 - e^{-1/b})/4``, so
    ``P_D(E) >= P(0 <= T^ <= 1) ((2 - e^{-1/b})/4)^t``.  Hence
    ``log ratio >= log(1 - e^{-eps1/2}) + t log(2 - e^{-1/b})``, which grows
    linearly in t: no finite epsilon bounds it.  Without query noise the ratio is
    infinite for every t.

    Parameters
    ----------
    t : int or array_like of int
        Numbers of copies of each query, >= 1.
    epsilon_threshold : float
        eps1 of GPTT's threshold noise, finite and > 0.
    epsilon_query : float or None, default None
        eps2 of GPTT's query noise; None or inf means no query noise.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The lower bound for each t (inf without query noise).

    Raises
    ------
    ValueError, TypeError
        If some t is not an integer >= 1, or a budget is invalid.

    References
    ----------
    See [CM15] (Thm 4.7) in the module docstring.

    Examples
    --------
    >>> counterexample_log_ratio_bound([1, 100], 0.5, 0.5).round(2).tolist()
    [-1.18, 31.67]
    """
    t = np.atleast_1d(check_array("t", t, ndim=(0, 1)))
    if np.any(t < 1) or np.any(t != np.round(t)):
        raise ValueError(f"t must be integers >= 1, got {t.tolist()}")
    b1, b2 = gptt_noise_scales(epsilon_threshold, epsilon_query)
    if b2 == 0:
        return np.full(t.shape, math.inf)
    # log(1 - e^{-x}) as log(-expm1(-x)): exact also when x is so small that e^{-x} rounds to 1
    return math.log(-math.expm1(-0.5 / b1)) + t * math.log(2.0 - math.exp(-1.0 / b2))


def counterexample_probability(t: npt.ArrayLike, epsilon_threshold: float, epsilon_query: float | None = None
                               ) -> CounterexampleProbability:
    """Exact probabilities of the GPTT counterexample event on neighbouring databases, for each t.

    GPTT (**NOT differentially private**) runs on the ``2t`` queries of
    :func:`counterexample_answers` with threshold 1/2; the event is
    :func:`counterexample_event` (all copies of ``c(x)`` below, all copies of
    ``c(y)`` above).  Both probabilities come from :func:`event_probability`
    (numerical integration over the noisy threshold).  Differential privacy with
    epsilon would need ``P_D(E) <= e^epsilon P_D'(E)``; the ratio grows without bound
    in t ([CM15] Thm 4.7), and without query noise ``P_D'(E) = 0 < P_D(E)``.

    Parameters
    ----------
    t : int or array_like of int
        Numbers of copies of each query (>= 1).
    epsilon_threshold : float
        eps1 of GPTT's threshold noise, finite and > 0.
    epsilon_query : float or None, default None
        eps2 of GPTT's query noise; None or inf means no query noise.

    Returns
    -------
    CounterexampleProbability
        ``P_D(E)``, ``P_D'(E)`` (as logarithms), their ratio and its proven lower
        bound for each t, with the claimed epsilon.

    Raises
    ------
    ValueError, TypeError
        If ``t`` is empty, lists more than :data:`MAX_T_VALUES` (1000) values, or
        some t is not an integer >= 1 (or ``2 t`` exceeds
        :data:`dpviz.validation.MAX_ELEMENTS`), or a budget is invalid.

    References
    ----------
    See [CM15] (Section 4, Thm 4.7) in the module docstring.

    Examples
    --------
    >>> r = counterexample_probability([1, 10, 40], 0.5, 0.5)
    >>> bool(np.all(np.diff(r.log_ratio) > 0)), bool(r.log_ratio[-1] > r.claimed_epsilon)
    (True, True)
    """
    t_arr = np.atleast_1d(check_array("t", t, ndim=(0, 1)))
    if t_arr.size == 0 or np.any(t_arr < 1) or np.any(t_arr != np.round(t_arr)):
        raise ValueError(f"t must be integers >= 1, got {t_arr.tolist()}")
    if t_arr.size > MAX_T_VALUES:
        raise ValueError(f"t must list at most {MAX_T_VALUES} values (one numerical integration each), "
                         f"got {t_arr.size}")
    check_elements(2.0 * float(t_arr.max()), "query answers (2t)", t=int(t_arr.max()))
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
