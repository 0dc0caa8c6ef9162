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

from dpviz.svt.codes import ABOVE, BELOW, NOT_DP
from dpviz.svt.exact import event_probability
from dpviz.svt.gptt import _query_epsilon, gptt_noise_scales
from dpviz.validation import (
    check_array,
    check_epsilon,
    check_int,
)


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
